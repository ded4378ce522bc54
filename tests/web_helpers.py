"""A real board served by waitress on a free loopback port, for the page and load tests."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kipukas_board.app import BoardApp
from kipukas_board.settings import Settings
from kipukas_board.web.serving import make_server

PIN = "2468"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@dataclass
class Served:
    board: BoardApp
    url: str


@contextmanager
def serve_board(data_dir: Path, cameras: list[Any] | None = None, map_name: str = "kipuka-8", port: int = 0,
                **sensor_options: object) -> Iterator[Served]:
    """A board on ``port`` (0: a free one; give the same port again to restart a board in place)."""
    settings = Settings(map=map_name)
    settings.sensors.options = dict(sensor_options)
    board = BoardApp(settings, data_dir, sim=True, admin_pin=PIN)
    if cameras is not None:
        board.cameras = cameras
    server = make_server(board, "127.0.0.1", port, threads=12, channel_timeout=60)
    board.start()
    stopping = threading.Event()

    def run() -> None:
        try:
            server.run()
        except OSError:  # the socket map is closed under select() at shutdown
            if not stopping.is_set():
                raise

    t = threading.Thread(target=run, daemon=True)
    t.start()
    try:
        yield Served(board, f"http://127.0.0.1:{server.effective_port}")  # type: ignore[union-attr]
    finally:
        stopping.set()
        board.broadcaster.close()
        server.task_dispatcher.shutdown(timeout=5)  # type: ignore[union-attr]
        server.close()
        # As the board's process does when it ends: the connections still open are closed, so a browser
        # sends no request (a page's stream coming back) down one kept alive to the stopped board.
        for channel in list(server.active_channels.values()):  # type: ignore[union-attr]
            channel.handle_close()  # (the server's loop, polling nothing now, ends by itself)
        board.stop()


def unlock_page(page: Any, url: str, path: str = "/") -> None:
    """Open ``url + path`` in a Playwright ``page`` and unlock it with the PIN as a phone does once:
    the PIN checked with the page's CSRF token, so the board trusts this browser (a device-session
    cookie), then the page loaded again and waited for until its stream is up and it shows unlocked."""
    page.goto(url + path)
    token = page.get_attribute('meta[name="csrf-token"]', "content")
    r = page.request.post(url + "/api/pin/check", headers={"X-Admin-Pin": PIN, "X-CSRF-Token": token})
    assert r.ok, f"the PIN was refused on {path}: {r.status} {r.text()}"
    page.reload()
    page.wait_for_selector("#link.up", timeout=5000)
    page.wait_for_selector("#pin-button.unlocked", timeout=3000)


def post_action(url: str, path: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    """``body`` POSTed to ``url + path`` as another phone at the table sends an action (real HTTP, JSON,
    with the PIN); the answer's JSON. A status other than ``status`` fails the test with the board's words,
    so a refused action is told, not swallowed."""
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "X-Admin-Pin": PIN})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            got, doc = resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        got, doc = exc.code, json.loads(exc.read())
    assert got == status, f"POST {path} {body!r:.200} answered {got}, not {status}: {doc}"
    return doc


@contextmanager
def serve_again(data_dir: Path, port: int, map_name: str = "kipuka-8") -> Iterator[Served]:
    """The board started again on the same port, as after a restart (the old socket may take a moment
    to be released), for a page left open across it."""
    for _ in range(50):
        try:
            cm = serve_board(data_dir, port=port, map_name=map_name)
            srv = cm.__enter__()
            break
        except OSError:
            time.sleep(0.1)
    else:
        raise AssertionError(f"port {port} stayed taken after the first board stopped")
    try:
        yield srv
    finally:
        cm.__exit__(None, None, None)


class FrameCamera:
    """A camera adapter that gives a fixed BGR frame (left half pure blue) and records controls."""

    def __init__(self, seat: int = 1, width: int = 64, height: int = 48) -> None:
        import numpy as np

        self.seat = seat
        self.frame = np.zeros((height, width, 3), dtype=np.uint8)
        self.frame[:, : width // 2, 0] = 255  # B of BGR
        self.controls: list[dict[str, Any]] = []

    def read(self) -> Any:
        return self.frame

    def set_controls(self, **controls: Any) -> None:
        self.controls.append(controls)

    def health(self) -> dict[str, Any]:
        return {"adapter": "test-frames", "ok": True, "seat": self.seat}

    def close(self) -> None:
        pass
