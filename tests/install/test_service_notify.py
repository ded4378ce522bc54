"""systemd notification: READY=1 and WATCHDOG=1 over a real Unix datagram socket.

The end-to-end test runs a real ``kipukas-board run --sim`` process with ``$NOTIFY_SOCKET`` pointing
at a socket the test reads, as systemd would, then stops the lighting thread and checks that the
pings stop.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board.app import BoardApp
from kipukas_board.sdnotify import Notifier, socket_address, watchdog_interval
from kipukas_board.service import BoardService, Watchdog, dead_parts
from kipukas_board.settings import AdapterChoice, Settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[tuple[str, socket.socket]]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = str(tmp_path / "notify.sock")
    sock.bind(path)
    sock.settimeout(0.05)
    yield path, sock
    sock.close()


def drain(sock: socket.socket, seconds: float, until: str | None = None) -> list[str]:
    """Datagrams received within ``seconds`` (or until one contains ``until``)."""
    got: list[str] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            msg = sock.recv(4096).decode()
        except TimeoutError:
            continue
        got.append(msg)
        if until is not None and until in msg:
            break
    return got


# -- the protocol ------------------------------------------------------------------------------------

def test_notifier_sends_to_a_path_socket(notify_socket: tuple[str, socket.socket]) -> None:
    path, sock = notify_socket
    n = Notifier(environ={"NOTIFY_SOCKET": path})
    assert n.enabled
    assert n.ready("serving\non :8080")
    assert n.watchdog()
    assert drain(sock, 1.0, until="WATCHDOG") == ["READY=1\nSTATUS=serving on :8080", "WATCHDOG=1"]


def test_notifier_sends_to_an_abstract_socket() -> None:
    name = f"@kipukas-test-{os.getpid()}-{time.monotonic_ns()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(socket_address(name))
    sock.settimeout(1.0)
    try:
        assert Notifier(environ={"NOTIFY_SOCKET": name}).stopping()
        assert sock.recv(100) == b"STOPPING=1"
    finally:
        sock.close()


def test_notifier_without_systemd_or_with_a_gone_socket_is_harmless(tmp_path: Path) -> None:
    assert not Notifier(environ={}).enabled
    assert Notifier(environ={}).ready() is False
    gone = Notifier(environ={"NOTIFY_SOCKET": str(tmp_path / "nobody-listens")})
    assert gone.watchdog() is False  # logged, never raised
    with pytest.raises(ValueError, match="absolute path"):
        socket_address("relative/notify")


@settings(max_examples=60, deadline=None)
@given(text=st.text(min_size=1, max_size=200))
def test_any_status_text_goes_out_as_one_status_line(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    """A status with newlines or odd characters must not smuggle in a second KEY=VALUE line."""
    path = str(tmp_path_factory.mktemp("sd") / "n.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(1.0)
    try:
        assert Notifier(environ={"NOTIFY_SOCKET": path}).status(text)
        got = sock.recv(65536).decode()
    finally:
        sock.close()
    assert got.startswith("STATUS=") and "\n" not in got
    assert got[len("STATUS="):] == " ".join(text.split())


def test_watchdog_interval_follows_systemd_rules() -> None:
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "2500000"}) == 2.5
    assert watchdog_interval({"WATCHDOG_USEC": "2500000", "WATCHDOG_PID": "7"}, pid=7) == 2.5
    assert watchdog_interval({"WATCHDOG_USEC": "2500000", "WATCHDOG_PID": "7"}, pid=8) is None
    assert watchdog_interval({"WATCHDOG_USEC": "2500000", "WATCHDOG_PID": "seven"}, pid=7) is None
    assert watchdog_interval({"WATCHDOG_USEC": "soon"}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "0"}) is None


def test_watchdog_pings_only_while_every_part_is_alive(notify_socket: tuple[str, socket.socket]) -> None:
    path, sock = notify_socket
    parts = {"core": True, "lighting": True}
    dog = Watchdog(lambda: parts, Notifier(environ={"NOTIFY_SOCKET": path}), interval=1.0)
    assert dog.tick() is True
    parts["lighting"] = False
    assert dog.tick() is False
    assert dog.tick() is False
    parts["lighting"] = True
    assert dog.tick() is True
    assert drain(sock, 0.5) == ["WATCHDOG=1", "STATUS=not alive: lighting", "STATUS=running", "WATCHDOG=1"]
    assert dog.pings == 2


def test_a_liveness_check_that_raises_counts_as_dead() -> None:
    def broken() -> dict[str, bool]:
        raise RuntimeError("boom")

    assert dead_parts(broken) == ["liveness-check"]


# -- BoardApp.liveness -------------------------------------------------------------------------------

def test_board_liveness_covers_core_lighting_and_adapters_with_alive(data_dir: Path) -> None:
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    board.start()
    try:
        assert board.liveness() == {"core": True, "lighting": True}  # simulated adapters have no threads
        board.voice.alive = lambda: 1 / 0  # type: ignore[attr-defined]  # an alive() that raises
        assert board.liveness() == {"core": True, "lighting": True, "voice": False}
        del board.voice.alive  # type: ignore[attr-defined]
        board.lighting.stop()
        assert board.liveness() == {"core": True, "lighting": False}
    finally:
        board.stop()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the death is the point
def test_watchdog_stops_pinging_when_a_real_sensor_thread_dies(
        data_dir: Path, notify_socket: tuple[str, socket.socket]) -> None:
    """The GPIO adapter on gpiozero's mock pins: its own thread counts in liveness, and once that thread
    dies (here: a bug in its debounce loop) nothing reads the switches and the watchdog must stop."""
    from gpiozero.pins.mock import MockFactory

    factory = MockFactory()
    settings = Settings(sensors=AdapterChoice("gpio", {"pins": {"T1": 17}, "pin_factory": factory,
                                                        "debounce_ms": 5}))
    board = BoardApp(settings, data_dir, admin_pin="2468")
    path, sock = notify_socket
    dog = Watchdog(board.liveness, Notifier(environ={"NOTIFY_SOCKET": path}), interval=1.0)
    board.start()
    try:
        assert board.liveness()["sensors"] is True
        assert dog.tick() is True

        def broken(now: float | None = None) -> list[tuple[str, bool]]:
            raise ZeroDivisionError("a bug in the debounce loop")

        board.sensors.channels.released = broken  # type: ignore[attr-defined]
        factory.pin(17).drive_low()  # wakes the thread, which meets the bug once the debounce time is up
        end = time.monotonic() + 5
        while board.sensors.alive() and time.monotonic() < end:  # type: ignore[attr-defined]
            time.sleep(0.01)
        assert board.liveness()["sensors"] is False
        assert dog.tick() is False and dog.tick() is False
        assert drain(sock, 0.5) == ["WATCHDOG=1", "STATUS=not alive: sensors"]
        assert dog.pings == 1
    finally:
        board.stop()


def test_service_waits_for_every_part_before_ready(notify_socket: tuple[str, socket.socket]) -> None:
    path, sock = notify_socket

    class Board:
        parts = {"core": False}

        def liveness(self) -> dict[str, bool]:
            return dict(self.parts)

    board = Board()
    service = BoardService(board, environ={"NOTIFY_SOCKET": path})
    service.READY_TIMEOUT_S = 0.3
    assert service.started() is False  # never alive: no READY, a status saying why
    assert drain(sock, 0.5) == ["STATUS=start-up failed: not alive: core"]
    board.parts["core"] = True
    assert service.started("up") is True
    assert drain(sock, 0.5) == ["READY=1\nSTATUS=up"]
    assert service.watchdog is None  # no WATCHDOG_USEC: no pings
    service.stopping()


# -- end to end: a real `kipukas-board run --sim` under a pretend systemd ---------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post_json(url: str, body: dict[str, object], pin: str | None = None) -> dict[str, object]:
    headers = {"Content-Type": "application/json", **({"X-Admin-Pin": pin} if pin else {})}
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.loads(resp.read())


@pytest.mark.slow
def test_daemon_notifies_ready_pings_and_stops_pinging_when_a_thread_dies(
        tmp_path: Path, notify_socket: tuple[str, socket.socket]) -> None:
    path, sock = notify_socket
    port = free_port()
    env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000", "PYTHONUNBUFFERED": "1"}
    env.pop("WATCHDOG_PID", None)
    env.pop("KIPUKAS_SETTINGS", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kipukas_board", "run", "--sim", "--port", str(port),
         "--data-dir", str(tmp_path / "data"), "--admin-pin", "2468"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        first = drain(sock, 30.0, until="READY=1")
        assert first and "READY=1" in first[-1], f"no READY=1; got {first}; output: {proc.poll()}"
        # READY means the page is up: it answers at once.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as resp:
            assert json.loads(resp.read())["ok"] is True

        pings = [m for m in drain(sock, 2.0) if m == "WATCHDOG=1"]
        assert len(pings) >= 3, f"expected a ping every 0.2 s, got {pings}"  # 10 when not starved of CPU

        answer = post_json(f"http://127.0.0.1:{port}/api/sim/faults", {"part": "lighting"}, pin="2468")
        assert answer["liveness"] == {"core": True, "lighting": False}
        after = drain(sock, 3.0, until="STATUS=not alive: lighting")
        assert after and after[-1] == "STATUS=not alive: lighting", after
        silent = drain(sock, 1.2)  # three watchdog intervals: no WATCHDOG=1 at all
        assert "WATCHDOG=1" not in silent, silent

        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        assert "STOPPING=1" in drain(sock, 1.0, until="STOPPING=1")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        output = proc.stdout.read() if proc.stdout else ""
    assert "watchdog: not alive: lighting" in output


def test_sim_fault_route_names_the_parts_it_knows(data_dir: Path) -> None:
    from kipukas_board.service import register_sim_faults
    from kipukas_board.web.server import create_app

    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    board.route_plugins.append(register_sim_faults)
    client = create_app(board).test_client()
    board.start()
    pin = {"X-Admin-Pin": "2468"}
    try:
        # Stopping a part of the board needs the PIN, even in simulation.
        assert client.post("/api/sim/faults", json={"part": "core"}).status_code == 401
        assert client.post("/api/sim/faults", json={"part": "core"}, headers={"X-Admin-Pin": "1357"}).status_code == 403
        assert board.loop.alive()
        resp = client.post("/api/sim/faults", json={"part": "sensors"}, headers=pin)
        assert resp.status_code == 400
        assert "expected one of core, lighting" in resp.get_json()["error"]
        assert client.post("/api/sim/faults", data="x", headers=pin).status_code == 400
        assert client.post("/api/sim/faults", json={"part": ["core"]}, headers=pin).status_code == 400
        answer = client.post("/api/sim/faults", json={"part": "core"}, headers=pin).get_json()
        assert answer["liveness"]["core"] is False
    finally:
        board.stop()


@pytest.mark.slow
def test_notify_bench_prints_a_table_and_one_json_object(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kipukas_board", "service", "notify-bench", "--seconds", "1",
         "--watchdog-sec", "0.4", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0].startswith("WatchdogSec (pretend)")
    result = json.loads(lines[-1])
    assert 0 < result["ready_s"] < 60
    assert result["pings"] >= 2 and result["ping_gap_s"]["min"] > 0
    assert result["dead_reported_after_s"] is not None and result["pings_after_fault"] <= 1
    assert result["exit_code"] == 0


def test_notify_bench_refuses_nonsense() -> None:
    from kipukas_board.cli import main

    with pytest.raises(SystemExit, match="^2$"):  # argparse refuses it
        main(["service", "notify-bench", "--seconds", "0"])
