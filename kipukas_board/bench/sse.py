"""``bench-sse``: do 20 phones on the table each get every change, and how fast?

Starts a simulated board served by waitress on a free loopback port (a temporary data directory, so
the journal is real SQLite with synchronous=FULL), opens ``clients`` event streams (``GET
/api/stream``, read over plain sockets, as a phone's EventSource would), then flips stand switches
``changes`` times. Latency is measured from the moment a switch changes to the moment each client
has read the ``state`` event carrying that change, or a later state (a stream keeps only the latest
state for a page that has not taken the last one yet); journal write, rules, lighting, SSE and the
loopback network all included. Each client comes from its own loopback address, as phones do.
:func:`run_sse_bench` returns the figures; ``kipukas-board bench-sse`` prints them.

Example::

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50)
    3.0
"""

from __future__ import annotations

import contextlib
import math
import socket
import statistics
import tempfile
import threading
import time
from typing import Any

TARGET_P99_MS = 100.0


class StreamClient(threading.Thread):
    """One EventSource-like reader: records when each ``state`` event id arrived."""

    def __init__(self, port: int, name: str, source: str = "127.0.0.1") -> None:
        super().__init__(name=name, daemon=True)
        self.port = port
        self.source = source  # the loopback address it comes from, as each phone has its own
        self.arrived: dict[int, float] = {}
        self.ready = threading.Event()
        self.error: str | None = None
        self._sock: socket.socket | None = None

    def run(self) -> None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=30, source_address=(self.source, 0))
            self._sock = sock
            sock.sendall(b"GET /api/stream HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            fh = sock.makefile("rb")
            status = fh.readline()
            if b" 200 " not in status:
                raise OSError(f"stream answered {status!r}")
            while fh.readline() not in (b"\r\n", b"\n", b""):
                pass  # headers
            event, ident = None, None
            for raw in fh:
                now = time.perf_counter()
                line = raw.rstrip(b"\r\n")
                if not line:
                    if event == "state" and ident is not None:
                        # A stream keeps only the latest state, so a state also brings every change
                        # before it that this client had not seen yet.
                        for seq in range(max(self.arrived, default=ident - 1) + 1, ident + 1):
                            self.arrived.setdefault(seq, now)
                        self.ready.set()
                    event, ident = None, None
                elif line.startswith(b"event:"):
                    event = line[6:].strip().decode()
                elif line.startswith(b"id:"):
                    ident = int(line[3:].strip())
        except OSError as exc:
            if self._sock is not None:
                self.error = str(exc)
        finally:
            self.ready.set()

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of a non-empty list."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))
    return s[k]


def run_sse_bench(clients: int, changes: int, interval_ms: float, map_name: str | None = None) -> dict[str, Any]:
    from kipukas_board.app import BoardApp
    from kipukas_board.settings import Settings
    from kipukas_board.web.serving import PER_ADDRESS, ConnectionGuard, connection_limit, make_server

    settings = Settings()
    if map_name:
        settings.map = map_name
    with tempfile.TemporaryDirectory(prefix="kipukas-bench-sse-") as tmp:
        board = BoardApp(settings, tmp, sim=True, admin_pin="0000")
        # Every client comes from this one address, as no table's phones would: widen its share.
        guard = ConnectionGuard(limit=connection_limit(), per_address=max(PER_ADDRESS, clients + 8), idle_s=600)
        server = make_server(board, "127.0.0.1", 0, threads=clients + 8, max_streams=clients, guard=guard,
                             ident="kipukas-board-bench")
        port = server.effective_port  # type: ignore[union-attr]
        board.start()
        stopping = threading.Event()

        def serve() -> None:
            try:
                server.run()
            except OSError:  # the socket map is closed under select() at shutdown
                if not stopping.is_set():
                    raise

        serving = threading.Thread(target=serve, name="waitress", daemon=True)
        serving.start()
        readers = [StreamClient(port, f"sse-{i}", f"127.0.1.{1 + i % 250}") for i in range(clients)]
        sent: dict[int, float] = {}
        try:
            for r in readers:
                r.start()
            for r in readers:
                r.ready.wait(30)
            failed = [r.error for r in readers if r.error]
            if failed:
                raise RuntimeError(f"{len(failed)} stream(s) failed to open: {failed[0]}")
            stands = sorted(board.loop.state.board.stands)
            for i in range(changes):
                sid = stands[(i // 2) % len(stands)]
                occupied = not board.loop.state.switches[sid]
                t0 = time.perf_counter()
                board.sim_set_stand(sid, occupied)  # returns once journaled, applied and published
                sent[board.loop.state.seq] = t0
                time.sleep(interval_ms / 1000)
            deadline = time.monotonic() + 10
            last = max(sent) if sent else 0
            while time.monotonic() < deadline and not all(last in r.arrived for r in readers):
                time.sleep(0.02)
        finally:
            stopping.set()
            for r in readers:
                r.close()
            board.broadcaster.close()  # ends every stream, so waitress's workers finish
            server.task_dispatcher.shutdown(timeout=5)  # type: ignore[union-attr]
            server.close()
            board.stop()
    lat = [(r.arrived[seq] - t0) * 1000 for r in readers for seq, t0 in sent.items() if seq in r.arrived]
    expected = len(sent) * clients
    per_client_missing = [sum(1 for seq in sent if seq not in r.arrived) for r in readers]
    stats = {k: round(percentile(lat, q), 2) for k, q in (("p50", 50), ("p95", 95), ("p99", 99))} if lat else {}
    if lat:
        stats["max"] = round(max(lat), 2)
        stats["mean"] = round(statistics.fmean(lat), 2)
    return {"clients": clients, "changes": len(sent), "expected": expected, "delivered": len(lat),
            "missing": expected - len(lat), "clients_missing_some": sum(1 for m in per_client_missing if m),
            "latency_ms": stats, "target_p99_ms": TARGET_P99_MS,
            "meets_target": bool(lat) and len(lat) == expected and stats["p99"] <= TARGET_P99_MS}
