"""``kipukas-board bench-sse`` and ``bench-streams``: do 20 phones on the table each get every change,
and how fast?

    kipukas-board bench-sse [--clients 20] [--changes 200] [--interval-ms 20] [--map NAME] [--json]

Starts a simulated board served by waitress on a free loopback port (a temporary data directory, so
the journal is real SQLite with synchronous=FULL), opens ``--clients`` event streams (``GET
/api/stream``, read over plain sockets, as a phone's EventSource would), then flips stand switches
``--changes`` times. Latency is measured from the moment a switch changes to the moment each client
has read the ``state`` event carrying that change, or a later state (a stream keeps only the latest
state for a page that has not taken the last one yet); journal write, rules, lighting, SSE and the
loopback network all included. Each client comes from its own loopback address, as phones do. Prints
a table; with ``--json`` the last line is one JSON object::

    {"clients": 20, "changes": 200, "expected": 4000, "delivered": 4000, "missing": 0,
     "latency_ms": {"p50": ..., "p95": ..., "p99": ..., "max": ...}, "target_p99_ms": 100.0,
     "meets_target": true}

Exit code 0 when every client got every change, 1 otherwise (a p99 over the target is reported in
``meets_target``, not as a failure: the machine it runs on decides the number).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import socket
import statistics
import sys
import tempfile
import threading
import time
from typing import Any

TARGET_P99_MS = 100.0


def register(sub: Any) -> None:
    p = sub.add_parser("bench-sse", help="load check: N event-stream clients each receive every state change",
                       description="Measure delivery of every state change to N server-sent-event clients.")
    p.add_argument("--clients", type=int, default=20, help="event-stream clients (default 20)")
    p.add_argument("--changes", type=int, default=200, help="stand switch changes to make (default 200)")
    p.add_argument("--interval-ms", type=float, default=20.0,
                   help="pause between changes, in ms (default 20: quicker than hands move tokens)")
    p.add_argument("--map", default=None, help="map name or file (default: the default map)")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    p.set_defaults(func=bench_sse)

    p = sub.add_parser("bench-streams", help="load check: event streams that never read, and the board's memory",
                       description="Open N event streams that never read, make M changes, and measure the "
                                   "board's memory, temp files and open connections (kipukas_board/bench/streams.py).")
    p.add_argument("--streams", type=int, default=40, help="never-reading event streams (default 40)")
    p.add_argument("--changes", type=int, default=600, help="stand changes to make (default 600)")
    p.add_argument("--settle-s", type=float, default=15.0,
                   help="seconds to wait after the changes before measuring what is left (default 15)")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    p.set_defaults(func=bench_streams)


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


def run_bench(clients: int, changes: int, interval_ms: float, map_name: str | None = None) -> dict[str, Any]:
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
                occupied = not board.loop.state.stands[sid].occupied
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


def bench_sse(args: argparse.Namespace) -> int:
    if args.clients < 1 or args.changes < 1 or args.interval_ms < 0:
        print("kipukas-board bench-sse: --clients and --changes must be at least 1, --interval-ms at least 0",
              file=sys.stderr)
        return 2
    try:
        res = run_bench(args.clients, args.changes, args.interval_ms, args.map)
    except RuntimeError as exc:
        print(f"kipukas-board bench-sse: {exc}", file=sys.stderr)
        return 1
    lat = res["latency_ms"]
    rows = [("clients", res["clients"]), ("changes", res["changes"]),
            ("delivered", f"{res['delivered']} of {res['expected']}"), ("missing", res["missing"])]
    rows += [(f"latency {k} (ms)", v) for k, v in lat.items()]
    rows.append(("p99 target (ms)", f"<= {TARGET_P99_MS:g}: {'met' if res['meets_target'] else 'NOT met'}"))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if args.json:
        print(json.dumps(res))
    return 0 if res["missing"] == 0 else 1


def bench_streams(args: argparse.Namespace) -> int:
    from kipukas_board.bench.streams import BenchStreamsError, format_table, run_streams_bench

    if args.streams < 1 or args.changes < 1 or args.settle_s < 0:
        print("kipukas-board bench-streams: --streams and --changes must be at least 1, --settle-s at least 0",
              file=sys.stderr)
        return 2
    try:
        res = run_streams_bench(args.streams, args.changes, args.settle_s)
    except BenchStreamsError as exc:
        print(f"kipukas-board bench-streams: {exc}", file=sys.stderr)
        return 1
    print(format_table(res))
    if args.json:
        print(json.dumps(res))
    return 0 if res["meets_target"] else 1
