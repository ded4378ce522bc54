"""The bring-up diagnostics read what the service reads: ``scan --seat`` through the seat's
configured adapter, the service's data directory for the system settings, a group-readable
calibration file."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import cv2
import pytest
from _qrgen import place, qr_tile

from kipukas_board.calibrate import files
from kipukas_board.cli import main
from kipukas_board.commands import run as run_cmd

CARD = "kpks.us/HMPU#0004?BFxDCJ"


def _settings(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "settings.toml"
    p.write_text(text)
    return p


@pytest.fixture
def card_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "frames"
    folder.mkdir()
    blank = place([], (360, 640))
    cv2.imwrite(str(folder / "0.png"), blank)  # the first frames: no card yet (autofocus settling)
    cv2.imwrite(str(folder / "1.png"), place([qr_tile(CARD, 6)], (360, 640)))
    cv2.imwrite(str(folder / "2.png"), place([qr_tile("https://example.com/not-a-card", 6)], (360, 640)))
    return folder


def _record_controls(monkeypatch) -> list[dict | str]:
    """Every camera the settings build is the files adapter with a Pi camera's ``set_controls`` and
    ``automatic``, which record what they are given (the returned list; "automatic" for the latter)."""
    from kipukas_board.hardware import registry

    given: list[dict | str] = []
    built = registry.build

    def build(port: str, name: str, **options):
        cam = built(port, name, **options)
        cam.set_controls = lambda **controls: given.append(controls)
        cam.automatic = lambda: given.append("automatic") or True
        return cam

    monkeypatch.setattr(registry, "build", build)
    return given


def test_scan_seat_reads_that_seats_camera_through_its_adapter_for_some_seconds(tmp_path, card_folder, capsys):
    s = _settings(tmp_path, f'[[cameras]]\nseat = 1\nadapter = "sim"\n\n'
                            f'[[cameras]]\nseat = 2\nadapter = "files"\npath = "{card_folder}"\nloop = true\n')
    # an empty frame may cost WeChat's whole share of the CPU budget: long enough for three frames
    # on a busy machine
    assert main(["scan", "--seat", "2", "--seconds", "2", "--settings", str(s), "--data-dir", str(tmp_path),
                 "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    # recorded images have no automatic settings to be put on: said so, not "automatic exposure"
    assert out[0].startswith("seat 2: files camera (not calibrated: camera defaults (this camera cannot be put on "
                             "automatic settings)); reading")
    assert any(line.endswith(f"read {CARD}") for line in out), out
    doc = json.loads(out[-1])
    assert list(doc["codes"]) == [CARD] and doc["frames"] >= 3  # it kept reading: the loop, not one frame
    assert any("example.com" in t for t in doc["refused"])  # another QR: refused with its reason


def test_scan_seat_with_no_card_in_view_fails(tmp_path, capsys):
    folder = tmp_path / "empty"
    folder.mkdir()
    cv2.imwrite(str(folder / "0.png"), place([], (360, 640)))
    s = _settings(tmp_path, f'[[cameras]]\nseat = 1\nadapter = "files"\npath = "{folder}"\nloop = true\n')
    assert main(["scan", "--seat", "1", "--seconds", "0.3", "--settings", str(s), "--data-dir", str(tmp_path)]) == 1
    assert "0 code(s) read" in capsys.readouterr().out


def test_scan_seat_names_a_missing_seat_and_refuses_the_simulated_camera(tmp_path, capsys):
    s = _settings(tmp_path, '[[cameras]]\nseat = 1\nadapter = "sim"\n')
    assert main(["scan", "--seat", "3", "--settings", str(s), "--data-dir", str(tmp_path)]) == 2
    assert "no [[cameras]] table with seat = 3 (seats with a camera: 1)" in capsys.readouterr().err
    assert main(["scan", "--seat", "1", "--settings", str(s), "--data-dir", str(tmp_path)]) == 2
    assert "simulated one" in capsys.readouterr().err


def test_diagnostics_on_the_system_settings_read_the_service_data_directory(tmp_path, monkeypatch):
    system = tmp_path / "etc" / "settings.toml"
    service = tmp_path / "var" / "lib" / "kipukas-board"
    monkeypatch.setattr(run_cmd, "SYSTEM_SETTINGS", system)
    monkeypatch.setattr(run_cmd, "SERVICE_DATA_DIR", service)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "home-state"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    mine = tmp_path / "mine"
    assert run_cmd.board_data_dir(mine, system) == mine  # --data-dir always wins
    assert run_cmd.board_data_dir(None, system) == tmp_path / "home-state" / "kipukas-board"  # no service yet
    service.mkdir(parents=True)
    assert run_cmd.board_data_dir(None, system) == service
    assert run_cmd.board_data_dir(None, tmp_path / "other.toml") == tmp_path / "home-state" / "kipukas-board"
    service.chmod(0o700)
    monkeypatch.setattr(run_cmd.os, "access", lambda *_a, **_k: False)  # as a user outside the group
    with pytest.raises(ValueError, match="join the kipukas group"):
        run_cmd.board_data_dir(None, system)


def test_the_calibration_file_is_readable_by_the_service_group(tmp_path):
    path = tmp_path / "calibration" / "default.toml"
    files.save(path, files.Calibration(board="Kipuka of Eight", channels={"r0c0": "T1"}))
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@pytest.mark.parametrize("calibrated", [False, True])
def test_scan_seat_puts_only_the_seats_calibrated_settings_on_its_camera(tmp_path, card_folder, capsys, monkeypatch,
                                                                        calibrated):
    """As the running board: a seat the walk set a focus for gets it; one not calibrated is put on its
    camera's automatic settings (a USB camera keeps a manual exposure between two programs)."""
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.settings import DEFAULT_MAP
    from kipukas_board.show.layout import map_calibration_path

    s = _settings(tmp_path, f'[[cameras]]\nseat = 2\nadapter = "files"\npath = "{card_folder}"\nloop = true\n')
    data = tmp_path / "data"
    if calibrated:
        files.save(map_calibration_path("default", data, load_map(DEFAULT_MAP)),
                   files.Calibration(board=load_map(DEFAULT_MAP).name, cameras={2: {"test_scan": True, "focus": 2.5}}))
    given = _record_controls(monkeypatch)
    assert main(["scan", "--seat", "2", "--seconds", "1", "--settings", str(s), "--data-dir", str(data)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    if calibrated:
        assert given == [{"focus": 2.5}]
        assert first.startswith("seat 2: files camera (focus 2.5 dioptres, exposure auto)")
    else:
        assert given == ["automatic"]
        assert first.startswith("seat 2: files camera (not calibrated: automatic exposure, continuous autofocus "
                                "where the camera has a focus motor); reading")


def test_scan_seat_uses_nothing_of_a_refused_calibration_file_and_says_the_boards_reason(tmp_path, card_folder,
                                                                                        capsys, monkeypatch):
    """A hand-edited file with one mistake (a stand the map does not have) is refused whole, as the
    board refuses it: its seat's focus, fine by itself, is not put on the camera either, and the
    message gives the reason the board's health gives."""
    from kipukas_board.app import BoardApp
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.settings import DEFAULT_MAP, Settings
    from kipukas_board.show.layout import map_calibration_path

    s = _settings(tmp_path, f'[[cameras]]\nseat = 2\nadapter = "files"\npath = "{card_folder}"\nloop = true\n')
    data = tmp_path / "data"
    cal = map_calibration_path("default", data, load_map(DEFAULT_MAP))
    cal.parent.mkdir(parents=True)
    cal.write_text(f'board = "{load_map(DEFAULT_MAP).name}"\n[sensors.channels]\n"r0c0" = "T99"\n'
                   f'[[cameras]]\nseat = 2\nfocus = 2.5\n')
    board = BoardApp(Settings(), data, sim=True, admin_pin="2468")
    try:
        reason = board.health()["calibration"]["error"]
        summary = board.health()["calibration"]["refused"]  # as the page's map note says it
    finally:
        board.stop()
    assert str(cal) in reason and "no stand 'T99'" in reason
    given = _record_controls(monkeypatch)
    assert main(["scan", "--seat", "2", "--seconds", "1", "--settings", str(s), "--data-dir", str(data)]) == 0
    out = capsys.readouterr()
    assert given == ["automatic"]  # nothing of the refused file, its focus included
    assert f"calibration not applied, the cameras run on their automatic settings: {reason}" in out.err
    assert out.out.splitlines()[0].startswith(
        "seat 2: files camera (automatic exposure, continuous autofocus where the camera has a focus motor; "
        f"the calibration file was not applied: {summary}); reading")
    assert summary.startswith("[sensors.channels] 'r0c0' = 'T99': the map has no stand 'T99'")
