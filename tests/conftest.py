"""Shared fixtures. ``../shared/`` (real captures and the real catalog) is optional: tests that need
it skip with a message naming what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
MAPS = ROOT / "calibration" / "maps"


def shared_path(*parts: str) -> Path:
    """A path in ../shared/, or skip the test saying what was looked for."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} is not here (../shared/ holds development data; tests that need it skip)")
    return p


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    return d
