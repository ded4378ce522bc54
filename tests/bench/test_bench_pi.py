"""bench-pi, the maker's bench: recorded frames before 1..N seats, or the settings' cameras live."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
from _qrgen import place, qr_tile

from kipukas_board.board.mapfile import load_map
from kipukas_board.calibrate import files
from kipukas_board.cli import main
from kipukas_board.hardware import registry
from kipukas_board.settings import DEFAULT_MAP
from kipukas_board.show.layout import map_calibration_path

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
    # each card is held 2 s of real time: a read takes tens of ms, but a machine busy with other work
    # once kept a seat from its first read for over a second
    rc = main(["bench-pi", "--frames", *frames, "--seats", "2", "--seconds", "2", "--settings", str(settings),
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
    rc = main(["bench-pi", "--cameras", "--settings", str(settings), "--data-dir", str(tmp_path), "--seconds", "1",
               "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    doc = json.loads(out[-1])
    assert rc == 0 and doc["source"] == "cameras"
    (seat,) = doc["seats"]  # the simulated camera has no frames: not read
    assert seat["seat"] == 1 and seat["frames"] > 0 and list(seat["codes"]) == [P]
    # nothing was meant to be applied: said so, not as a calibration that failed
    assert (seat["calibration"], seat["calibration_problem"]) == ("not calibrated", None) and "applied" not in seat
    # no calibration file in the data directory, and recorded images have no automatic settings to put on
    assert out[1] == "seat 1 camera: not calibrated: camera defaults (this camera cannot be put on automatic settings)"


def test_a_refused_calibration_file_is_said_on_each_seats_line(frames: list[str], tmp_path: Path, capsys) -> None:
    folder = tmp_path / "seat1"
    folder.mkdir()
    cv2.imwrite(str(folder / "0.png"), cv2.imread(frames[0]))
    settings = tmp_path / "settings.toml"
    settings.write_text(f'[[cameras]]\nadapter = "files"\nseat = 1\npath = "{folder}"\nloop = true\n')
    data = tmp_path / "data"
    path = map_calibration_path("default", data, load_map(DEFAULT_MAP))
    path.parent.mkdir(parents=True)
    path.write_text(f'board = "{load_map(DEFAULT_MAP).name}"\n[[cameras]]\nseat = 1\nfocus = 99\n')
    rc = main(["bench-pi", "--cameras", "--settings", str(settings), "--data-dir", str(data), "--seconds", "0.3",
               "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    why = "[[cameras]] #1 (seat 1): focus = 99: expected dioptres from 0 (far) to 15 (close), or leave it out for auto"
    assert rc == 0 and out[1] == ("seat 1 camera: camera defaults (this camera cannot be put on automatic settings); "
                                  f"the calibration file was not applied: {why}")
    doc = json.loads(out[-1])
    assert doc["calibration_refused"] == why
    assert [(s["calibration"], s["calibration_problem"]) for s in doc["seats"]] == [("file refused", why)]


def test_live_cameras_get_the_focus_and_exposure_their_seats_calibration_keeps(frames: list[str], tmp_path: Path,
                                                                                 monkeypatch, capsys) -> None:
    folder = tmp_path / "seat"
    folder.mkdir()
    cv2.imwrite(str(folder / "0.png"), cv2.imread(frames[0]))
    settings = tmp_path / "settings.toml"
    settings.write_text("".join(f'[[cameras]]\nadapter = "files"\nseat = {n}\npath = "{folder}"\nloop = true\n\n'
                                for n in (1, 2, 3, 4)))
    data = tmp_path / "data"  # the start map's calibration file, where the walk saves it
    files.save(map_calibration_path("default", data, load_map(DEFAULT_MAP)),
               files.Calibration(board=load_map(DEFAULT_MAP).name, cameras={
                   1: {"test_scan": True, "focus": 4.5, "exposure_us": 8000},
                   2: {"test_scan": True, "focus": 2.0}, 3: {"test_scan": True, "exposure_us": 5000}}))
    given: list[tuple[int, dict]] = []
    built = registry.build

    def build(port: str, name: str, **options):
        # the files adapter, with the set_controls a Pi camera module has at seats 1 and 2 (seat 2's lens
        # refuses a focus); seat 3's, as shipped, cannot set any
        cam = built(port, name, **options)
        if cam.seat == 3:
            return cam

        def set_controls(**controls) -> None:
            given.append((cam.seat, controls))
            if cam.seat == 2:
                raise ValueError("camera 1 for seat 2 has a fixed-focus lens: leave focus on auto (null)")

        cam.set_controls = set_controls
        return cam

    monkeypatch.setattr(registry, "build", build)
    rc = main(["bench-pi", "--cameras", "--settings", str(settings), "--data-dir", str(data), "--seconds", "0.3",
               "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    # seat 2's refused focus puts its camera back on automatic: set_controls with nothing, as on a Pi;
    # seat 4, not calibrated, is put on automatic the same way
    assert rc == 0 and given == [(1, {"focus": 4.5, "exposure_us": 8000}), (2, {"focus": 2.0}), (2, {}), (4, {})]
    assert out[1:5] == ["seat 1 camera: focus 4.5 dioptres, exposure 8000 µs (calibrated)",
                        "seat 2 camera: focus 2.0 dioptres, exposure auto (calibrated, but not applied: camera 1 for "
                        "seat 2 has a fixed-focus lens: leave focus on auto (null); automatic exposure, continuous "
                        "autofocus where the camera has a focus motor)",
                        "seat 3 camera: focus auto, exposure 5000 µs (calibrated; this camera cannot set them: "
                        "camera defaults)",
                        "seat 4 camera: not calibrated: automatic exposure, continuous autofocus where the camera has "
                        "a focus motor"]
    doc = json.loads(out[-1])
    assert [(s["seat"], s["controls"], s["calibration"], s["calibration_problem"]) for s in doc["seats"]] == [
        (1, {"focus": 4.5, "exposure_us": 8000}, "applied", None),
        (2, {"focus": 2.0}, "not applied", "camera 1 for seat 2 has a fixed-focus lens: leave focus on auto (null)"),
        (3, {"exposure_us": 5000}, "not applied", "this camera cannot set them"), (4, {}, "not calibrated", None)]


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
