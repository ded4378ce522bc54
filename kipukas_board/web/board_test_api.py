"""Routes of the board test mode (:mod:`kipukas_board.calibrate.board_test`), a route plugin.

Reading whether the test is on needs nothing; turning it on or off takes the switches and the strip
away from the game, so it needs the admin PIN (``X-Admin-Pin``)::

    GET  /api/board-test                 {"on": false} or {"on": true, "mapping", "closed", "stands", "unmapped"}
    POST /api/board-test  {"on": true}   each stand lights its own LED while a token sits on it
    POST /api/board-test  {"on": false}  the game gets its switches and strip back (and resyncs)

Starting it while a calibration walk is open answers 409 with the reason.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Flask, Response, jsonify

from kipukas_board.web.served import Guarded, Workshop
from kipukas_board.web.server import BadRequest, error, json_body, require_pin


class BoardTestRoutesBoard(Workshop, Guarded, Protocol):
    """What the board test's routes use: the test and the PIN."""


def register(app: Flask, board: BoardTestRoutesBoard) -> None:
    session = board.board_test
    pin = require_pin(board)

    @app.get("/api/board-test")
    def board_test_status() -> Response:
        return jsonify(session.status())

    @app.post("/api/board-test")
    @pin
    def board_test_switch() -> Any:
        body = json_body()
        on = body.get("on")
        if not isinstance(on, bool) or set(body) - {"on"}:
            raise BadRequest(f'expected {{"on": true}} or {{"on": false}}, got {body!r:.80}')
        try:
            return jsonify(session.start() if on else session.stop())
        except ValueError as exc:
            return error(409, str(exc))
