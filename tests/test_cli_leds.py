"""``kipukas-board leds test`` and ``leds bench`` on the simulated strip."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kipukas_board.board.mapfile import load_map
from kipukas_board.show.layout import default_layout


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kipukas_board", *args], capture_output=True, text=True)


def test_leds_test_walks_every_segment(tmp_path: Path) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text('[board]\nmap = "kipuka-8"\n')
    done = run("leds", "test", "--sim", "--seconds", "0", "--settings", str(settings), "--color", "0,255,0",
               "--data-dir", str(tmp_path / "data"), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout.strip().splitlines()[-1])
    lay = default_layout(load_map("kipuka-8"))
    seg = doc["segments"]
    assert [s["pixels"] for s in seg] == [*lay.territories.values(), *lay.stands.values()]
    assert all(s["lit"] == s["pixels"] for s in seg), "each step lights exactly its own pixels"
    assert seg[0]["what"].startswith("territory 1")


def test_leds_test_reports_a_bad_calibration(tmp_path: Path) -> None:
    cal = tmp_path / "cal.toml"
    cal.write_text('[leds]\norder = "XRGB"\n[leds.territories]\n1 = [0]\n')
    settings = tmp_path / "settings.toml"
    settings.write_text(f'[board]\ncalibration = "{cal}"\n')
    done = run("leds", "test", "--sim", "--seconds", "0", "--settings", str(settings))
    assert done.returncode == 2
    assert str(cal) in done.stderr and "order = 'XRGB'" in done.stderr


def test_leds_bench_prints_a_table_and_json() -> None:
    done = run("leds", "bench", "--leds", "300", "--frames", "20", "--live", "0.5", "--json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("300 LEDs") and "fps@p95" in lines[1]
    doc = json.loads(lines[-1])
    assert doc["leds"] == 300 and set(doc["scenes"]) >= {"contention", "storm (exposed)", "win show"}
    assert all(s["total_ms"]["p95"] > 0 for s in doc["scenes"].values())
    # each scene shows what it is named for: the animated ones change from frame to frame
    frames = {name: s["distinct_frames"] for name, s in doc["scenes"].items()}
    assert frames["day (steady)"] == 1
    assert all(frames[n] > 1 for n in ("contention", "storm (exposed)", "win show")), frames
    assert doc["live"]["fps"] > 0 and doc["live"]["update_ms"]["max"] > 0
    assert doc["spi_wire_ms"] > 300 * 24 * 1.25e-3  # 300 pixels of 24 bits at 1.25 us, plus the reset
