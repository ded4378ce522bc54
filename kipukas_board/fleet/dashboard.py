"""The organiser's dashboard: every board of the event on one page, live.

``kipukas-board fleet dashboard --broker URL`` runs a :class:`~kipukas_board.fleet.view.FleetView`
and serves a plain HTML/JS page with Flask on waitress (the board's own stack). The page takes the
list once (``GET /api/boards``) and then follows ``GET /api/stream`` (server-sent events): a
``boards`` event carries the summaries of the boards that changed (and the ids of boards retired
by an empty retained health message). Changes are gathered for
:data:`PUSH_EVERY_S` so a hundred busy tables make a few messages a second, not hundreds.

It only reads from the broker; nothing on the page changes a board.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from flask import Flask, Response, jsonify, render_template, request

from kipukas_board.fleet.view import FleetView
from kipukas_board.web.sse import Broadcaster, StreamsFull

#: Seconds the pusher gathers changed boards before sending them to the pages.
PUSH_EVERY_S = 0.25


class Dashboard:
    """The view, the pages' broadcaster and the thread between them."""

    def __init__(self, view: FleetView, max_streams: int = 24) -> None:
        self.view = view
        self.broadcaster = Broadcaster(max_clients=max_streams)
        self._dirty: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._was_connected: bool | None = None
        self._thread = threading.Thread(target=self._push, name="dashboard-push", daemon=True)
        view.on_change = self.changed

    def start(self) -> None:
        self.view.start()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.broadcaster.close()
        self.view.stop()

    def changed(self, board_id: str) -> None:
        with self._lock:
            self._dirty.add(board_id)

    def snapshot(self) -> dict[str, Any]:
        return {"broker": self.view.broker.url(), "connected": self.view.connected, "now": time.time(),
                "boards": self.view.boards(), "bad_messages": self.view.bad_messages}

    def _push(self) -> None:
        while not self._stop.wait(PUSH_EVERY_S):
            with self._lock:
                dirty, self._dirty = self._dirty, set()
            found = {i: self.view.board(i) for i in sorted(dirty)}
            boards = [b for b in found.values() if b is not None]
            removed = [i for i, b in found.items() if b is None]
            connected = self.view.connected
            if dirty or connected != self._was_connected:
                self._was_connected = connected
                doc = {"connected": connected, "now": time.time(), "boards": boards, "removed": removed}
                self.broadcaster.publish("boards", json.dumps(doc))


def create_app(dash: Dashboard) -> Flask:
    app = Flask(__name__)
    app.config.update(DEBUG=False)
    app.json.sort_keys = False  # type: ignore[attr-defined]

    @app.get("/")
    def index() -> str:
        return render_template("dashboard.html", broker=dash.view.broker.url())

    @app.get("/api/boards")
    def boards() -> Response:
        return jsonify(dash.snapshot())

    @app.get("/api/stream")
    def stream() -> Response | tuple[Response, int]:
        try:
            sub = dash.broadcaster.open(request.remote_addr or "?")  # a few per address (web/sse.py)
        except StreamsFull as exc:
            resp = jsonify({"error": str(exc)})
            resp.headers["Retry-After"] = "10"
            return resp, 503
        try:  # the snapshot after registering: a change in between is queued, not lost
            first = Broadcaster.message("boards", json.dumps(dash.snapshot()))
        except BaseException:
            sub.close()
            raise
        return Response(sub.body(first), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @app.get("/healthz")
    def healthz() -> tuple[Response, int]:
        ok = dash.view.connected
        return jsonify({"ok": ok, "broker": dash.view.broker.url()}), 200 if ok else 503

    @app.after_request
    def _headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Content-Security-Policy", "default-src 'self'")  # board names are data, never code
        return resp

    return app


#: The dashboard takes no request body (every route is a GET): waitress refuses one larger than this
#: as soon as it reads its ``Content-Length``, where by default it would first spool up to 1 GiB.
MAX_BODY = 1024


def make_server(dash: Dashboard, host: str, port: int, threads: int = 32) -> Any:
    """A waitress server for the dashboard (``.run()`` serves, ``.close()`` stops; port 0 picks one).

    It polls its sockets with poll(), as the board's own server does: select() fails outright once a
    descriptor of the process is past 1024, and meets a socket closed by another thread (a test or
    bench stopping a server it runs on a thread) with an error that ends the server's loop.
    """
    from waitress import create_server

    if dash.broadcaster.max_clients is not None and dash.broadcaster.max_clients > threads - 4:
        dash.broadcaster.max_clients = max(1, threads - 4)  # leave threads for /api/boards and /healthz
    return create_server(create_app(dash), host=host, port=port, threads=threads, channel_timeout=3600,
                         ident="kipukas-fleet-dashboard", asyncore_use_poll=True,
                         max_request_body_size=MAX_BODY + 1)
