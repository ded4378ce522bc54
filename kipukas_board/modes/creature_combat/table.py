"""Table layout files for Creature Combat Territory: the five land slots and the players' seats.

Shipped in ``calibration/maps/tables/`` (``creature-combat.toml``); ``--table NAME`` (or the new-game
field ``table``) finds one there by name, anything with a ``/`` or ending in ``.toml`` is a path. The
layout is written into the ``new_game`` event, so a replay lights the same pixels.

    name = "Creature Combat Territory"
    [[slots]]          # exactly 5, numbered 1 to 5
    number = 1
    segment = 1        # lit by this territory's LED segment in the board's LED calibration (default: number)
    # pixels = [0, 1, 2]   # or by these pixels
    x = 60
    y = 40             # where the page draws it
    [[seats]]          # 2 to 4
    seat = 1
    x = 160
    y = 150
    pixels = [40]      # optional: a light at the seat that blinks while the board waits for that player

Example::

    >>> load_table("creature-combat")["slots"][0]["number"]
    1
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from kipukas_board.board.mapfile import MAPS_DIR
from kipukas_board.modes.creature_combat.rules import SLOTS
from kipukas_board.strictjson import is_int, is_number

TABLES_DIR = MAPS_DIR / "tables"
DEFAULT_TABLE = "creature-combat"
MAX_TABLE_BYTES = 64 * 1024


class TableError(ValueError):
    def __init__(self, source: str, problems: list[str]) -> None:
        super().__init__(f"{source}: table layout not usable, {len(problems)} problem(s): " + "; ".join(problems))
        self.source = source
        self.problems = problems


def table_path(name_or_path: str) -> Path:
    if "/" in name_or_path or name_or_path.endswith(".toml"):
        return Path(name_or_path)
    return TABLES_DIR / f"{name_or_path}.toml"


def load_table(name_or_path: str = DEFAULT_TABLE) -> dict[str, Any]:
    path = table_path(name_or_path)
    try:
        if path.stat().st_size > MAX_TABLE_BYTES:
            raise TableError(str(path), [f"larger than {MAX_TABLE_BYTES} bytes"])
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        shipped = ", ".join(sorted(p.stem for p in TABLES_DIR.glob("*.toml"))) or "(none)"
        raise TableError(str(path), [f"no such table layout; shipped ones: {shipped}"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TableError(str(path), [f"cannot read: {exc}"]) from None
    return parse_table(text, str(path))


def parse_table(text: str, source: str = "<table>") -> dict[str, Any]:
    """Check a table layout; raise :class:`TableError` listing every problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TableError(source, [f"not valid TOML: {exc}"]) from None
    problems: list[str] = []
    extra = set(data) - {"name", "description", "game", "slots", "seats"}
    if extra:
        problems.append(f"unknown key(s) {', '.join(sorted(extra))} (expected name, description, game, slots, seats)")
    if not isinstance(data.get("name"), str) or not data["name"].strip():
        problems.append("'name' is required (the layout's name)")
    slots, seats = data.get("slots", []), data.get("seats", [])
    if not isinstance(slots, list) or len(slots) != SLOTS:
        problems.append(f"needs exactly {SLOTS} [[slots]], got {len(slots) if isinstance(slots, list) else slots!r}")
        slots = slots if isinstance(slots, list) else []
    numbers = []
    for i, s in enumerate(slots):
        w = f"slots[{i}]"
        if not isinstance(s, dict):
            problems.append(f"{w}: expected a table")
            continue
        bad = set(s) - {"number", "name", "segment", "pixels", "x", "y"}
        if bad:
            problems.append(f"{w}: unknown field(s) {', '.join(sorted(bad))}")
        if not is_int(s.get("number")) or not 1 <= s["number"] <= SLOTS:
            problems.append(f"{w}.number must be 1 to {SLOTS}, got {s.get('number')!r}")
        else:
            numbers.append(s["number"])
        if "segment" in s and (not is_int(s["segment"]) or s["segment"] < 1):
            problems.append(f"{w}.segment must be a territory number (its LED segment), got {s['segment']!r}")
        if "pixels" in s and (not isinstance(s["pixels"], list) or not all(is_int(p) and p >= 0 for p in s["pixels"])):
            problems.append(f"{w}.pixels must be a list of pixel indexes, got {s['pixels']!r:.60}")
        for k in ("x", "y"):
            if not is_number(s.get(k)):
                problems.append(f"{w}.{k} must be a number (where the page draws it), got {s.get(k)!r}")
    if sorted(numbers) != list(range(1, SLOTS + 1)) and len(numbers) == len(slots) == SLOTS:
        problems.append(f"slot numbers must be 1 to {SLOTS} once each, got {sorted(numbers)}")
    if not isinstance(seats, list) or not 2 <= len(seats) <= 4:
        problems.append(f"needs 2 to 4 [[seats]], got {len(seats) if isinstance(seats, list) else seats!r}")
        seats = seats if isinstance(seats, list) else []
    seen = set()
    for i, s in enumerate(seats):
        w = f"seats[{i}]"
        if not isinstance(s, dict):
            problems.append(f"{w}: expected a table")
            continue
        bad = set(s) - {"seat", "x", "y", "pixels"}
        if bad:
            problems.append(f"{w}: unknown field(s) {', '.join(sorted(bad))}")
        if not is_int(s.get("seat")) or not 1 <= s["seat"] <= 8:
            problems.append(f"{w}.seat must be a seat number 1 to 8, got {s.get('seat')!r}")
        elif s["seat"] in seen:
            problems.append(f"{w}.seat {s['seat']} is given twice")
        else:
            seen.add(s["seat"])
        if "pixels" in s and (not isinstance(s["pixels"], list) or not all(is_int(p) and p >= 0 for p in s["pixels"])):
            problems.append(f"{w}.pixels must be a list of pixel indexes, got {s['pixels']!r:.60}")
    if problems:
        raise TableError(source, problems)
    return {"name": data["name"], "description": data.get("description", ""),
            "slots": sorted((dict(s) for s in slots), key=lambda s: s["number"]),
            "seats": sorted((dict(s) for s in seats), key=lambda s: s["seat"])}
