"""bench-pi, the maker's bench: recorded frames before 1..N seats, or the settings' cameras live."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
from _qrgen import place, qr_tile

from kipukas_board.cli import main

P = "kpks.us/RrDC#0001?DmFz33"
Q = "kpks.us/HMPU#0004?BFxDCJ"


@pytest.fixture
def frames(tmp_path: Path) -> list[str]:
    out = []
    for name, payload in (("a.png", P), ("b.png", Q)):
        path = tmp_path / name
        cv2.imwrite(str(path), place([qr_tile(payload, px=6)], size=(360, 640)))
        out.append(str(path))
    return out


def test_recorded_frames_before_one_then_two_seats(frames: list[str], tmp_path: Path, capsys) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text("[vision]\nbudget_ms = 120\n")  # the board's budget, as a Pi's settings give it
    rc = main(["bench-pi", "--frames", *frames, "--seats", "2", "--seconds", "1", "--settings", str(settings),
               "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    assert rc == 0 and out[1].split()[:3] == ["seats", "cards", "read"]
    doc = json.loads(out[-1])
    assert doc["source"] == "frames" and doc["frames"] == ["a.png", "b.png"] and "cores" in doc["machine"]
    assert [(r["seats"], r["cards"], r["cards_read"]) for r in doc["rows"]] == [(1, 2, 2), (2, 4, 4)]
    assert {r["budget_ms"] for r in doc["rows"]} == {120} and "budget 120 ms" in out[0]
    for r in doc["rows"]:
        assert 0 < r["first_ms_median"] <= r["first_ms_max"] and r["cpu_total"] > 0 and 0 <= r["dropped_pct"] <= 100


def test_live_cameras_from_the_settings(frames: list[str], tmp_path: Path, capsys) -> None:
    folder = tmp_path / "seat1"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"{i}.png"), cv2.imread(frames[0]))
    settings = tmp_path / "settings.toml"
    settings.write_text(f'[[cameras]]\nadapter = "files"\nseat = 1\npath = "{folder}"\nloop = true\n\n'
                        '[[cameras]]\nadapter = "sim"\nseat = 2\n')
    rc = main(["bench-pi", "--cameras", "--settings", str(settings), "--seconds", "1", "--json"])
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert rc == 0 and doc["source"] == "cameras"
    (seat,) = doc["seats"]  # the simulated camera has no frames: not read
    assert seat["seat"] == 1 and seat["frames"] > 0 and list(seat["codes"]) == [P]


def test_bad_input_is_named(tmp_path: Path, capsys) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text('[[cameras]]\nadapter = "sim"\nseat = 1\n')
    assert main(["bench-pi", "--cameras", "--settings", str(settings)]) == 2
    assert "no seat a camera" in capsys.readouterr().err
    bad = tmp_path / "x.txt"
    bad.write_text("no image")
    assert main(["bench-pi", "--frames", str(bad)]) == 2
    assert "not an image OpenCV can read" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bench-pi"])
    assert "one of the arguments --frames --cameras is required" in capsys.readouterr().err
