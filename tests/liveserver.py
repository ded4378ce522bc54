"""A real board served by real waitress on a free loopback port, for tests that need HTTP/SSE."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kipukas_board.app import BoardApp
from kipukas_board.settings import Settings
from kipukas_board.web.serving import make_server


@contextmanager
def live_board(
    data_dir: Path, map_name: str = "kipuka-8", pin: str = "2468", threads: int = 32,
    max_streams: int | None = None, **kw: Any
) -> Iterator[tuple[BoardApp, str]]:
    """Yield ``(board, base_url)``; everything is stopped afterwards (served as ``run`` serves it)."""
    settings = Settings(map=map_name)
    board = BoardApp(settings, data_dir, sim=True, admin_pin=pin, **kw)
    server = make_server(board, "127.0.0.1", 0, threads=threads, max_streams=max_streams)
    board.start()
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    try:
        yield board, f"http://127.0.0.1:{server.effective_port}"
    finally:
        board.stop()
        server.close()
        t.join(5)
