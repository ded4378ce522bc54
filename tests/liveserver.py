"""A real board served by real waitress on a free loopback port, for tests that need HTTP/SSE."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
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


#: The admin PIN of a live board started with the defaults.
PIN = "2468"


class Api:
    """The board's HTTP API as a player's phone uses it (JSON bodies, the admin PIN)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def call(self, path: str, body: dict[str, Any] | None = None, pin: bool = True) -> tuple[int, dict[str, Any]]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method="GET" if body is None else "POST",
                                     headers={"Content-Type": "application/json",
                                              **({"X-Admin-Pin": PIN} if pin else {})})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def ok(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        status, doc = self.call(path, body)
        assert status == 200, (path, body, doc)
        return doc

    def cc(self, action: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.ok(f"/api/actions/creature-combat/{action}", body or {})

    def state(self) -> dict[str, Any]:
        return self.ok("/api/state")
