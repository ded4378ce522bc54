"""The CLI formats: ``scan --json``, ``bench-qr --json``, ``catalog import``; and the files camera feeding the desk."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from _qrgen import camouflage, place, qr_tile

from kipukas_board.cards.catalog import Catalog
from kipukas_board.cli import main
from kipukas_board.hardware.registry import build
from kipukas_board.vision.desk import CameraWorker, CardDesk

P = "kpks.us/RrDC#0001?DmFz33"
Q = "https://www.kpks.us/frlU"


@pytest.fixture
def captures(tmp_path: Path) -> Path:
    rng = np.random.default_rng(11)
    d = tmp_path / "caps"
    d.mkdir()
    cv2.imwrite(str(d / "one.png"), place([camouflage(qr_tile(P), rng)]))
    cv2.imwrite(str(d / "two.png"), place([qr_tile(P), qr_tile(Q)], positions=[(100, 100), (100, 700)]))
    cv2.imwrite(str(d / "none.png"), np.full((720, 1280, 3), 100, np.uint8))
    (d / "truth.json").write_text(json.dumps({"images": {"one.png": {"codes": [P]}, "two.png": {"codes": [P, Q]},
                                                         "none.png": {"codes": [Q]}}}))
    return d


def test_scan_json(captures: Path, capsys) -> None:
    rc = main(["scan", str(captures / "one.png"), str(captures / "two.png"), str(captures / "none.png"), "--json"])
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert rc == 0
    assert list(doc["images"]) == ["one.png", "two.png", "none.png"]
    assert doc["images"]["one.png"]["codes"] == [P]
    assert sorted(doc["images"]["two.png"]["codes"]) == sorted([P, Q])
    assert doc["images"]["none.png"]["codes"] == []
    assert all(isinstance(v["ms"], float) for v in doc["images"].values())


def test_scan_takes_a_time_budget_above_zero(captures: Path, capsys) -> None:
    with pytest.raises(SystemExit) as refused:  # argparse refuses it, naming the option
        main(["scan", str(captures / "one.png"), "--budget-ms", "0"])
    assert refused.value.code == 2
    assert "--budget-ms: expected milliseconds above 0, got '0'" in capsys.readouterr().err
    assert main(["scan", str(captures / "one.png"), "--budget-ms", "5000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["images"]["one.png"]["codes"] == [P]


def test_scan_names_unreadable_files(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    assert main(["scan", str(bad), "--json"]) == 2
    out = capsys.readouterr()
    assert "notes.txt: not an image" in out.err
    bad_doc = json.loads(out.out.strip().splitlines()[-1])["images"]["notes.txt"]
    assert bad_doc["codes"] == [] and isinstance(bad_doc["ms"], float) and "error" in bad_doc


def test_scan_keeps_two_files_of_one_name_apart(captures: Path, tmp_path: Path, capsys) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "one.png").write_bytes((captures / "none.png").read_bytes())
    a, b = str(captures / "one.png"), str(other / "one.png")
    assert main(["scan", a, b, str(captures / "two.png"), "--json"]) == 0
    images = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["images"]
    assert list(images) == [a, b, "two.png"]
    assert images[a]["codes"] == [P] and images[b]["codes"] == []


def test_bench_qr_json_counts(captures: Path, capsys) -> None:
    rc = main(["bench-qr", str(captures), "--truth", str(captures / "truth.json"), "--json"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert rc == 0 and lines[1].startswith("method")
    doc = json.loads(lines[-1])
    pipe = doc["methods"]["pipeline"]
    assert (pipe["correct"], pipe["wrong"], pipe["missed"]) == (3, 0, 1)
    assert set(doc["methods"]) == {"zxing", "pyzbar", "wechat", "pipeline"}
    for m in doc["methods"].values():
        assert m["correct"] + m["missed"] == 4 and m["median_ms"] <= m["p95_ms"]
        assert 0 < m["median_cpu_ms"] <= m["p95_cpu_ms"]


def test_scan_says_when_a_frame_ran_out_of_budget(tmp_path: Path, capsys) -> None:
    static = tmp_path / "static.png"
    cv2.imwrite(str(static), np.random.default_rng(3).integers(0, 256, (720, 1280, 3), dtype=np.uint8))
    assert main(["scan", str(static), "--budget-ms", "25"]) == 0
    out = capsys.readouterr().out
    assert "static.png: no Kipukas code" in out and "ran out of its CPU budget" in out and "wechat@" in out
    assert main(["scan", str(static), "--budget-ms", "25", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["images"]["static.png"]
    assert doc["over_budget"] is True and doc["cpu_ms"] > 0 and "budget" in doc["budget_note"]
    with pytest.raises(SystemExit) as exit_info:
        main(["scan", str(static), "--budget-ms", "0"])
    assert exit_info.value.code == 2 and "above 0" in capsys.readouterr().err


def test_bench_camera_json(captures: Path, capsys) -> None:
    """A short run through the board's camera worker, desk and pipeline: an empty scene reads
    nothing and is decoded once, a card is read from its scene's first frames."""
    rc = main(["bench-camera", "blank", str(captures / "one.png"), "--fps", "10", "--seconds", "1.5",
               "--noise", "4", "--json"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert rc == 0 and "first read ms" in lines[1]
    doc = json.loads(lines[-1])
    blank, card = doc["scenes"]
    assert blank["image"] == "blank" and blank["reads"] == 0 and blank["codes"] == [] and blank["first_read_ms"] is None
    assert 1 <= blank["decoded"] <= 2  # its first frame, then one thorough pass: noise alone is no change
    assert card["codes"] == [P] and card["first_read_ms"] is not None and card["reads"] >= card["frames"] - 2
    assert doc["seats"][0]["cards_presented"] == 1
    assert all(s["cpu_pct"] > 0 for s in doc["scenes"]) and doc["total_cpu_pct"] == doc["seats"][0]["cpu_pct"]
    # every frame the camera made was handled or counted as dropped, scene by scene and in all
    assert all(s["produced"] == 15 and s["frames"] + s["dropped"] == 15 for s in doc["scenes"])
    seat = doc["seats"][0]
    assert seat["produced"] == 30 and seat["frames"] + seat["dropped"] == 30


def test_bench_camera_refuses_bad_input(captures: Path, tmp_path: Path, capsys) -> None:
    assert main(["bench-camera", str(tmp_path / "absent.png")]) == 2
    assert "not an image OpenCV can read" in capsys.readouterr().err
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.zeros((360, 640, 3), np.uint8))
    assert main(["bench-camera", str(small), str(captures / "one.png")]) == 2
    assert "different sizes" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="^2$"):  # argparse refuses it
        main(["bench-camera", "blank", "--fps", "0"])
    assert "--fps" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="^2$"):  # argparse refuses it
        main(["bench-camera", "blank", "--jitter", "-1"])
    assert "--jitter" in capsys.readouterr().err


def test_bench_qr_bad_truth(tmp_path: Path, capsys) -> None:
    (tmp_path / "t.json").write_text('{"images": {"a.png": {"codes": "x"}}}')
    assert main(["bench-qr", str(tmp_path), "--truth", str(tmp_path / "t.json")]) == 2
    assert "codes must be a list" in capsys.readouterr().err


def test_catalog_import_command(tmp_path: Path, capsys) -> None:
    good = tmp_path / "cards.json"
    good.write_text(json.dumps([{"code": "RrDC", "slug": "a", "title": "A", "type": "Species",
                                 "injury_tolerance": 1, "movement": 1, "keal_means": []}]))
    assert main(["catalog", "import", str(good), "--data-dir", str(tmp_path / "d")]) == 0
    assert main(["catalog", "show", "RrDC", "--data-dir", str(tmp_path / "d")]) == 0
    assert main(["catalog", "show", "ZZZZ", "--data-dir", str(tmp_path / "d")]) == 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"code": "RrDC"}]))
    assert main(["catalog", "import", str(bad), "--data-dir", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert "unknown card ZZZZ" in err and "record 0 ('RrDC'): field 'slug' is missing" in err


def test_installed_command_runs(captures: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "kipukas_board", "scan", str(captures / "one.png"), "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and json.loads(out.stdout.splitlines()[-1])["images"]["one.png"]["codes"] == [P]


def test_files_camera_feeds_one_event_per_showing(captures: Path, tmp_path: Path) -> None:
    frames = tmp_path / "seat1"
    frames.mkdir()
    img = cv2.imread(str(captures / "one.png"))
    for i in range(6):  # card held for 6 frames, then gone
        cv2.imwrite(str(frames / f"f{i:02d}.png"), img)
    cam = build("cameras", "files", seat=1, path=str(frames))
    submitted = []
    desk = CardDesk(Catalog.in_dir(tmp_path / "d"), submit=lambda e, wait=True, timeout=None: submitted.append(e))
    worker = CameraWorker(cam, desk, interval_s=0.01)
    worker.start()
    deadline = time.monotonic() + 30
    while worker.frames < 6 and time.monotonic() < deadline:
        time.sleep(0.05)
    worker.stop()
    assert worker.frames == 6 and worker.error is None
    assert [(e["seat"], e["code"], e["serial"]) for e in submitted] == [(1, "RrDC", "DmFz33")]
    assert cam.health()["frames"] == 6


def test_files_camera_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        build("cameras", "files", seat=1, path=str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no images"):
        build("cameras", "files", seat=1, path=str(tmp_path / "empty"))


def _video(path: Path, frames: list[np.ndarray]) -> Path:
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (frames[0].shape[1], frames[0].shape[0]))
    for f in frames:
        w.write(f)
    w.release()
    return path


def test_video_through_the_files_and_opencv_adapters(tmp_path: Path) -> None:
    frame = place([qr_tile(P)], size=(360, 640))
    video = _video(tmp_path / "seat.avi", [frame] * 3)
    for adapter, opts in (("files", {"path": str(video)}), ("opencv", {"device": str(video)})):
        cam = build("cameras", adapter, seat=2, **opts)
        got = [cam.read() for _ in range(3)]
        assert all(g is not None for g in got), adapter
        if adapter == "files":
            assert cam.read() is None  # the video is over
        else:
            with pytest.raises(OSError, match="gave no frame"):
                cam.read()  # a capture that stops giving frames counts as unplugged: the worker retries
        assert cam.health()["seat"] == 2 and cam.health()["frames"] == 3
        cam.close()
        assert cam.read() is None  # closed: no reopening


def test_worker_keeps_retrying_a_failing_camera(tmp_path: Path) -> None:
    class Flaky:
        seat = 3
        calls = 0

        def read(self):
            Flaky.calls += 1
            if Flaky.calls < 3:
                raise OSError("unplugged")
            return None

    desk = CardDesk(Catalog.in_dir(tmp_path / "d"), submit=lambda e, wait=True, timeout=None: None)
    worker = CameraWorker(Flaky(), desk, interval_s=0.01, retry_s=0.01)
    worker.start()
    deadline = time.monotonic() + 10
    while Flaky.calls < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    worker.stop()
    assert Flaky.calls >= 5 and worker.error is None


def test_cameras_command_lists_seats(tmp_path: Path, capsys) -> None:
    s = tmp_path / "settings.toml"
    s.write_text('[[cameras]]\nadapter = "opencv"\nseat = 2\ndevice = 1\n\n[[cameras]]\nadapter = "files"\nseat = 1\n'
                 'path = "caps"\n')
    assert main(["cameras", "--settings", str(s)]) == 0
    assert capsys.readouterr().out.splitlines() == ["seat 1: files (path='caps')", "seat 2: opencv (device=1)"]
    assert main(["cameras", "--settings", str(tmp_path / "absent.toml")]) == 2


def test_desk_counts_refused_codes_from_frames(tmp_path: Path) -> None:
    submitted = []
    desk = CardDesk(Catalog.in_dir(tmp_path / "d"), submit=lambda e, wait=True, timeout=None: submitted.append(e))
    frame = place([qr_tile("https://evil.example/x"), qr_tile(P)], positions=[(100, 100), (100, 700)])
    events = desk.on_frame(4, frame)
    assert [e["code"] for e in events] == ["RrDC"] and submitted == events
    assert desk.counter.to_json() == {"accepted": 1, "refused": {"other host": 1}}
    assert desk.on_frame(4, frame) == []  # still held: no new event


def test_bench_qr_live_mode(captures: Path, capsys) -> None:
    assert main(["bench-qr", str(captures), "--truth", str(captures / "truth.json"), "--live", "3", "--json"]) == 0
    live = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["live"]
    assert live["frames"] == 9 and live["frames_read"] == 6  # none.png's code is absent from the image


def test_scan_without_opencv_says_what_to_install_instead_of_a_traceback(tmp_path, monkeypatch, capsys) -> None:
    import sys

    from kipukas_board.commands import cards as cards_cmd

    class Available:
        available = True

    monkeypatch.setattr(cards_cmd, "_say_missing_decoders", lambda: Available())
    monkeypatch.setitem(sys.modules, "cv2", None)  # import cv2 raises ImportError
    assert main(["scan", str(tmp_path / "card.png")]) == 1
    err = capsys.readouterr().err
    assert "OpenCV" in err and "python3-opencv" in err and "Traceback" not in err
