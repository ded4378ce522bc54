"""Helpers for tests that build map files: read a shipped map as data, change it, write TOML back."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

MAPS = Path(__file__).resolve().parents[1] / "calibration" / "maps"


def map_data(name: str = "kipuka-8") -> dict[str, Any]:
    return tomllib.loads((MAPS / f"{name}.toml").read_text())


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    raise TypeError(f"cannot write {v!r}")


def to_toml(data: dict[str, Any]) -> str:
    """Write the flat map format (scalars at top, flat tables such as [physical], arrays of flat tables)
    as TOML."""
    lines = [f"{k} = {_value(v)}" for k, v in data.items() if not isinstance(v, list | dict)]
    for key, table in data.items():
        if isinstance(table, dict):
            lines.append(f"\n[{key}]")
            lines += [f"{k} = {_value(v)}" for k, v in table.items()]
    for key, entries in data.items():
        if not isinstance(entries, list):
            continue
        for e in entries:
            lines.append(f"\n[[{key}]]")
            lines += [f"{k} = {_value(v)}" for k, v in e.items()]
    return "\n".join(lines) + "\n"
