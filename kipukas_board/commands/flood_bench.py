"""``kipukas-board bench-flood``: does the API still answer while sockets flood the board?

    kipukas-board bench-flood [--addresses 40] [--per-address 24] [--requests 20] [--json]

Starts a simulated board served exactly as ``run`` serves it (the default connection limits of
``kipukas_board/web/serving.py``) on a free loopback port, opens ``--per-address`` sockets from each
of ``--addresses`` loopback source addresses (127.0.0.2 and up; everything stays on this machine),
half of them silent and half sending a request that never ends (slowloris), then times
``--requests`` ``GET /api/state`` from 127.0.0.1 while they stay open. Prints a table; with ``--json``
the last line is one JSON object::

    {"sockets": 960, "connect_errors": 0, "answered": 20, "requests": 20,
     "latency_ms": {"p50": ..., "max": ...}, "connections": {"open": ..., "evicted": ..., ...}}

Exit code 0 when every request was answered, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from typing import Any

#: The most loopback source addresses used (127.0.0.2 to 127.0.0.201).
MAX_ADDRESSES = 200


def register(sub: Any) -> None:
    p = sub.add_parser("bench-flood", help="load check: the API answers while idle and slow sockets flood it",
                       description="Time /api/state while many idle and slow loopback connections are open.")
    p.add_argument("--addresses", type=int, default=40, help="loopback source addresses (default 40)")
    p.add_argument("--per-address", type=int, default=24, help="sockets from each address (default 24)")
    p.add_argument("--requests", type=int, default=20, help="GET /api/state to time (default 20)")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    p.set_defaults(func=bench_flood)


def run_flood(addresses: int, per_address: int, requests: int) -> dict[str, Any]:
    from kipukas_board.app import BoardApp
    from kipukas_board.settings import Settings
    from kipukas_board.web.serving import make_server

    with tempfile.TemporaryDirectory(prefix="kipukas-bench-flood-") as tmp:
        board = BoardApp(Settings(), tmp, sim=True, admin_pin="024680")
        server = make_server(board, "127.0.0.1", 0, ident="kipukas-board-bench")
        port = int(server.effective_port)  # type: ignore[union-attr]
        board.start()
        thread = threading.Thread(target=server.run, name="bench-flood-server", daemon=True)
        thread.start()
        socks: list[socket.socket] = []
        errors = 0
        times: list[float] = []
        try:
            for a in range(addresses):
                for i in range(per_address):
                    s = socket.socket()
                    socks.append(s)
                    try:
                        s.bind((f"127.0.0.{a + 2}", 0))
                        s.settimeout(2)
                        s.connect(("127.0.0.1", port))
                        if i % 2:
                            s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                    except OSError:
                        errors += 1
            for _ in range(requests):
                t0 = time.perf_counter()
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=20) as r:
                        r.read()
                    times.append((time.perf_counter() - t0) * 1000)
                except OSError:
                    pass
            connections = dict(board.health().get("connections", {}))
        finally:
            for s in socks:
                with contextlib.suppress(OSError):
                    s.close()
            board.stop()
            server.close()
            thread.join(5)
    return {"sockets": addresses * per_address, "connect_errors": errors, "requests": requests,
            "answered": len(times),
            "latency_ms": {"p50": round(statistics.median(times), 2) if times else None,
                           "max": round(max(times), 2) if times else None},
            "connections": connections}


def bench_flood(args: argparse.Namespace) -> int:
    if not 1 <= args.addresses <= MAX_ADDRESSES or args.per_address < 1 or args.requests < 1:
        print(f"kipukas-board bench-flood: --addresses must be 1 to {MAX_ADDRESSES}, --per-address and "
              f"--requests at least 1", file=sys.stderr)
        return 2
    res = run_flood(args.addresses, args.per_address, args.requests)
    conn = res["connections"]
    rows = [("sockets offered", f"{res['sockets']} ({args.addresses} addresses x {args.per_address}, "
                                f"half slowloris)"),
            ("connect errors", res["connect_errors"]),
            ("answered", f"{res['answered']} of {res['requests']} GET /api/state"),
            ("latency p50 (ms)", res["latency_ms"]["p50"]), ("latency max (ms)", res["latency_ms"]["max"]),
            ("open at the end", f"{conn.get('open')} (limit {conn.get('limit')}, "
                                f"{conn.get('per_address')} per address)"),
            ("evicted / refused / slow", f"{conn.get('evicted')} / {conn.get('refused')} / {conn.get('slow')}")]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if args.json:
        print(json.dumps(res))
    return 0 if res["answered"] == res["requests"] else 1
