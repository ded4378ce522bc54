"""kill -9 after a burst of acknowledged posts loses nothing: the restarted board shows the same state."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(data_dir: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kipukas_board", "run", "--sim", "--data-dir", str(data_dir),
         "--port", str(port), "--admin-pin", "2468"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"board did not come up: {proc.stdout.read() if proc.stdout else ''}")


def get(port: int, path: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
        return json.loads(r.read())


def post(port: int, stand: str, occupied: bool) -> dict:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/sim/stands/{stand}",
                                 data=json.dumps({"occupied": occupied}).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.read())


def essential(doc: dict) -> dict:
    return {k: doc[k] for k in ("seq", "stands", "territories", "players", "diel", "phase", "winner")}


def test_state_after_kill_9_equals_state_before(tmp_path: Path) -> None:
    port = free_port()
    proc = start(tmp_path, port)
    try:
        stands = [s["id"] for s in get(port, "/api/state")["stands"]]
        rng = random.Random(7)
        expected: dict[str, bool] = {}
        for _ in range(120):
            sid = rng.choice(stands)
            occ = not expected.get(sid, False)
            assert post(port, sid, occ)["ok"] is True
            expected[sid] = occ
        before = essential(get(port, "/api/state"))
        leds_before = get(port, "/api/leds")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    proc = start(tmp_path, port)
    try:
        after = essential(get(port, "/api/state"))
        assert after == before
        assert {s["id"]: s["occupied"] for s in after["stands"] if s["occupied"]} == {
            k: v for k, v in expected.items() if v}
        assert get(port, "/api/leds")["pixels"] == leds_before["pixels"]
    finally:
        proc.terminate()
        proc.wait(10)
