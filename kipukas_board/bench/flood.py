"""``bench-flood``: does the API still answer while sockets flood the board?

Starts a simulated board served exactly as ``run`` serves it (the default connection limits of
``kipukas_board/web/serving.py``) on a free loopback port, opens ``per_address`` sockets from each
of ``addresses`` loopback source addresses (127.0.0.2 and up; everything stays on this machine),
half of them silent and half sending a request that never ends (slowloris), then times
``requests`` ``GET /api/state`` from 127.0.0.1 while they stay open. :func:`run_flood` returns the
figures; ``kipukas-board bench-flood`` prints them.
"""

from __future__ import annotations

import contextlib
import socket
import statistics
import tempfile
import threading
import time
import urllib.request
from typing import Any

#: The most loopback source addresses used (127.0.0.2 to 127.0.0.201).
MAX_ADDRESSES = 200


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
