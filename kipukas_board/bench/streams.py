"""Event streams that never read: does the board stay small, and does a fresh page still follow it?

``kipukas-board bench-streams`` runs this. It starts a real board (``kipukas-board run --sim``, its
own process, so what is measured is the board alone) on a free loopback port, opens ``streams``
``GET /api/stream`` connections (:data:`PER_SOURCE` from each of several loopback addresses) whose
sockets have the smallest receive window the kernel allows and are never read (a stalled phone, or
a guest doing it on purpose), then makes ``changes``
stand changes through the simulation route (``POST /api/sim/stands/<id>``), as ordinary play would.

Measured from outside the board, by ``/proc``:

- the board's resident memory (RSS) before the streams, its peak while the changes go out, and
  after the changes, once the board had ``settle_s`` seconds to drop what it holds;
- temporary files the board holds open (waitress spills a connection's unsent output to a deleted
  file under ``/tmp`` past its ``outbuf_overflow``): how many at the peak, and their size;
- connections to the board's port still open after settling;
- whether a fresh page opened after the flood gets the latest state (``fresh_page_ok``) and how long
  that took.

Example (a small run; the documented figure uses the defaults; not run as a doctest: it serves a real board
for seconds; ``tests/bench/test_bench_streams.py`` runs it)::

    >>> res = run_streams_bench(streams=2, changes=4, settle_s=0.5)  # doctest: +SKIP
    >>> res["fresh_page_ok"]  # doctest: +SKIP
    True
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

#: The goal: the board stays under this much resident memory whatever the readers do.
TARGET_RSS_MB = 120.0
#: Streams opened from each loopback address (127.0.1.1, 127.0.1.2, ...), as a few phones would.
PER_SOURCE = 4


class BenchStreamsError(RuntimeError):
    """The board did not start or answer; the message says what was seen."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (from ``/proc/PID/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def temp_files(pid: int) -> tuple[int, int]:
    """``(count, bytes)`` of deleted regular files process ``pid`` holds open (temporary files)."""
    count = size = 0
    fd_dir = Path(f"/proc/{pid}/fd")
    for fd in fd_dir.iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("/") and target.endswith("(deleted)"):
                st = os.stat(fd)
                if not target.startswith(("/dev/", "/proc/")) and (st.st_mode & 0o170000) == 0o100000:
                    count += 1
                    size += st.st_size
    return count, size


def open_connections(port: int) -> int:
    """Established TCP connections whose local port is ``port`` (from ``/proc/net/tcp*``)."""
    n = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                local, state = fields[1], fields[3]
                if state == "01" and int(local.rsplit(":", 1)[1], 16) == port:
                    n += 1
    return n


def _stalled_stream(port: int, source: str) -> socket.socket:
    """A stream request from address ``source`` on a socket with the smallest receive window, never read."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)  # the kernel raises it to its minimum
    sock.bind((source, 0))
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    sock.sendall(b"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    return sock


def _request(url: str, body: dict[str, Any] | None = None, timeout: float = 10) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method="POST" if data else "GET",
                                 headers={"Content-Type": "application/json"} if data else {})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read())


def _fresh_page(port: int, want_seq: int, timeout: float) -> float | None:
    """Seconds until a new stream delivered a state with ``id >= want_seq`` (None: it did not)."""
    t0 = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(b"GET /api/stream HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            fh = sock.makefile("rb")
            if b" 200 " not in fh.readline():
                return None
            for raw in fh:
                if raw.startswith(b"id:") and int(raw[3:].strip()) >= want_seq:
                    return time.monotonic() - t0
                if time.monotonic() - t0 > timeout:
                    return None
    except OSError:
        return None
    return None


def run_streams_bench(streams: int = 40, changes: int = 600, settle_s: float = 15.0,
                      interval_ms: float = 0.0) -> dict[str, Any]:
    """Run the bench (see the module docs) and return its figures."""
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="kipukas-bench-streams-") as tmp:
        env = dict(os.environ)
        env.pop("KIPUKAS_SETTINGS", None)  # the board's defaults, not this machine's settings
        log = open(Path(tmp) / "board.log", "wb")  # noqa: SIM115 - closed below, after the board
        proc = subprocess.Popen(
            [sys.executable, "-m", "kipukas_board", "run", "--sim", "--host", "127.0.0.1", "--port", str(port),
             "--data-dir", str(Path(tmp) / "data"), "--admin-pin", "0000"],
            stdout=log, stderr=subprocess.STDOUT, env=env)
        socks: list[socket.socket] = []
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    state = _request(f"{url}/api/state", timeout=2)
                    break
                except OSError as exc:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise BenchStreamsError(f"the board did not start ({exc}); see {log.name}") from None
                    time.sleep(0.2)
            stands = sorted(s["id"] for s in state["stands"])
            rss_start = rss_mb(proc.pid)
            for i in range(streams):
                socks.append(_stalled_stream(port, f"127.0.1.{1 + i // PER_SOURCE}"))
            time.sleep(0.5)
            peak, temp_peak = rss_start, (0, 0)
            occupied = {s["id"]: bool(s["occupied"]) for s in state["stands"]}
            stop = threading.Event()

            def sample() -> None:
                nonlocal peak, temp_peak
                while not stop.is_set():
                    with contextlib.suppress(OSError):
                        peak = max(peak, rss_mb(proc.pid))
                        files = temp_files(proc.pid)
                        if files[1] >= temp_peak[1]:
                            temp_peak = files
                    stop.wait(0.1)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            t0 = time.monotonic()
            seq = 0
            for i in range(changes):
                sid = stands[(i // 2) % len(stands)]
                occupied[sid] = not occupied[sid]
                seq = _request(f"{url}/api/sim/stands/{sid}", {"occupied": occupied[sid]})["seq"]
                if interval_ms:
                    time.sleep(interval_ms / 1000)
            flood_s = time.monotonic() - t0
            time.sleep(settle_s)
            stop.set()
            sampler.join(5)
            rss_after = rss_mb(proc.pid)
            temp_after = temp_files(proc.pid)
            conns_after = open_connections(port)
            fresh = _fresh_page(port, seq, timeout=15)
        finally:
            for s in socks:
                s.close()
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()
    return {"streams": streams, "changes": changes, "flood_s": round(flood_s, 1), "settle_s": settle_s,
            "rss_start_mb": round(rss_start, 1), "rss_peak_mb": round(peak, 1), "rss_after_mb": round(rss_after, 1),
            "temp_files_peak": temp_peak[0], "temp_mib_peak": round(temp_peak[1] / 2**20, 1),
            "temp_files_after": temp_after[0], "connections_after": conns_after,
            "fresh_page_ok": fresh is not None, "fresh_page_s": round(fresh, 2) if fresh is not None else None,
            "target_rss_mb": TARGET_RSS_MB,
            "meets_target": peak < TARGET_RSS_MB and temp_peak[0] == 0 and fresh is not None}


def format_table(res: dict[str, Any]) -> str:
    rows = [("never-reading streams", res["streams"]), ("changes", f"{res['changes']} in {res['flood_s']} s"),
            ("board RSS at start (MB)", res["rss_start_mb"]), ("board RSS peak (MB)", res["rss_peak_mb"]),
            (f"board RSS after {res['settle_s']:g} s (MB)", res["rss_after_mb"]),
            ("temp files at peak", f"{res['temp_files_peak']} ({res['temp_mib_peak']} MiB)"),
            ("temp files after", res["temp_files_after"]),
            ("connections open after", res["connections_after"]),
            ("fresh page gets the latest state", f"yes, in {res['fresh_page_s']} s" if res["fresh_page_ok"] else "NO"),
            ("goal", f"peak < {res['target_rss_mb']:g} MB, no temp files: "
                     f"{'met' if res['meets_target'] else 'NOT met'}")]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)
