"""Routes of the calibration walk-through (a route plugin; see :func:`register`).

Reading where the walk is needs nothing; every step changes the board's calibration, so every
``POST`` needs the admin PIN (``X-Admin-Pin``)::

    GET  /api/calibration                          where each walk is, what was saved
    POST /api/calibration/sensors/start  {"mode": "lift" | "fast", "confirm": true}
                                                   begin: the board must be bare of tokens; an open
                                                   walk is thrown away only with "confirm"
    POST /api/calibration/sensors/skip|back        no channel answers / walk the last stand again
    POST /api/calibration/sensors/cancel {"confirm": true}  give up (what was found is lost: asked)
    POST /api/calibration/sensors/resolve          "the token is on the asked stand": the conflict's
                                                   channel is its, the other stand is walked again
    POST /api/calibration/sensors/redo {"stand": "M1a"}  walk that one stand again, now
    POST /api/calibration/sensors/save {"confirm": true} write channel → stand to calibration/<board>.toml
                                                   (with open problems only with "confirm")
    POST /api/calibration/leds/start {"count": 180} the strip's real length (optional)
    POST /api/calibration/leds/shift  {"by": -1}   move the lit segment (and the unconfirmed rest after it)
    POST /api/calibration/leds/resize {"by": 1}    grow/shrink the lit segment at its far end (the rest moves)
    POST /api/calibration/leds/confirm|back|cancel|save
    POST /api/calibration/cameras/<seat>/start     wait for a card shown to that seat's camera
    POST /api/calibration/cameras/<seat>/save
    POST /api/calibration/cameras/<seat>/controls  {"focus": 3.5 | null, "exposure_us": 8000 | null}
    GET  /api/calibration/cameras/<seat>/frame.png the live preview (PIN too: it shows players' cards)

A step that does not fit (saving an unfinished walk, an unknown step) answers 409 with the reason;
one that needs the player's word first (throwing a walk away, saving with open problems) answers 409
with ``"confirm": true`` and ``items``, the list the page shows before it asks.
The preview answers 404 for a seat without a camera and 503 (with the reason) when the seat's camera
is there but cannot be read right now (unplugged, busy), so the page can say which it is.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Flask, Response, jsonify

from kipukas_board.calibrate.camera_controls import control_problem
from kipukas_board.calibrate.files import CalibrationError
from kipukas_board.calibrate.session import CameraUnavailable, NeedsConfirmation
from kipukas_board.strictjson import is_int
from kipukas_board.web.served import Guarded, Workshop
from kipukas_board.web.server import BadRequest, error, json_body, require_pin


class CalibrationRoutesBoard(Workshop, Guarded, Protocol):
    """What the calibration's routes use: the walk and the PIN."""


def register(app: Flask, board: CalibrationRoutesBoard) -> None:
    session = board.calibration
    pin = require_pin(board)

    def run(fn: Any, *args: Any) -> Response | tuple[Response, int]:
        try:
            return jsonify(fn(*args))
        except CalibrationError as exc:
            return error(422, "the calibration does not fit this board", problems=exc.problems)
        except NeedsConfirmation as exc:
            return error(409, str(exc), confirm=True, items=exc.items)
        except ValueError as exc:
            return error(409, str(exc))

    @app.get("/api/calibration")
    def calibration_status() -> Response:
        return jsonify(session.status())

    @app.post("/api/calibration/sensors/<step>")
    @pin
    def calibration_sensors(step: str) -> Any:
        body = json_body(required=False, fields=frozenset({"confirm", "mode", "stand"})) \
            if step in ("start", "save", "redo", "cancel") else {}
        confirm = body.get("confirm", False)
        if not isinstance(confirm, bool):
            raise BadRequest(f"confirm must be true or false, got {confirm!r}")
        if step == "start":
            mode = body.get("mode", "lift")
            if mode not in ("lift", "fast"):
                raise BadRequest(f'mode must be "lift" (lift each token) or "fast" (leave them down), got {mode!r}')
            return run(session.sensors_start, mode, confirm)
        if step == "save":
            return run(session.sensors_save, confirm)
        if step == "redo":
            stand = body.get("stand")
            if not isinstance(stand, str) or not stand or len(stand) > 16:
                raise BadRequest(f'expected {{"stand": "<stand id>"}}, got stand = {stand!r}')
            return run(session.sensors_do, step, stand)
        if step not in ("skip", "back", "cancel", "resolve"):
            return error(404, f"unknown sensor step {step!r}; expected start, skip, back, resolve, redo, cancel "
                              f"or save")
        return run(session.sensors_do, step, None, confirm)

    @app.post("/api/calibration/leds/<step>")
    @pin
    def calibration_leds(step: str) -> Any:
        if step == "start":
            count = json_body(required=False, fields=frozenset({"count", "confirm"})).get("count")
            if count is not None and (not is_int(count) or not 1 <= count <= 2000):
                raise BadRequest(f"count must be the strip's number of pixels, 1 to 2000, got {count!r}")
            return run(session.leds_start, count)
        if step == "save":
            return run(session.leds_save)
        if step in ("shift", "resize"):
            by = json_body(fields=frozenset({"by", "confirm"})).get("by")
            if not is_int(by) or not -64 <= by <= 64:
                raise BadRequest(f'expected {{"by": N}} with N a whole number from -64 to 64, got by = {by!r}')
            return run(session.leds_do, step, by)
        if step not in ("confirm", "back", "cancel"):
            return error(404, f"unknown LED step {step!r}; expected start, shift, resize, confirm, back, cancel "
                              f"or save")
        return run(session.leds_do, step)

    @app.get("/api/calibration/cameras/<int:seat>/frame.png")
    @pin
    def calibration_frame(seat: int) -> Any:
        try:
            png = session.camera_frame(seat)
        except CameraUnavailable as exc:
            resp, status = error(503, str(exc))
            resp.headers["Retry-After"] = "1"
            return resp, status
        except LookupError as exc:
            return error(404, str(exc.args[0]))
        except ValueError as exc:
            return error(502, f"seat {seat}'s camera gave a frame that cannot be shown: {exc}")
        resp = Response(png, mimetype="image/png")
        resp.headers["Cache-Control"] = "no-store"
        return resp

    @app.post("/api/calibration/cameras/<int:seat>/controls")
    @pin
    def calibration_camera_controls(seat: int) -> Any:
        body = json_body(fields=frozenset({"focus", "exposure_us"}))
        focus, exposure = body.get("focus"), body.get("exposure_us")
        for name, value in (("focus", focus), ("exposure_us", exposure)):
            why = None if value is None else control_problem(name, value, "or null for auto")
            if why:
                raise BadRequest(why)
        try:
            return jsonify(session.camera_controls(seat, None if focus is None else float(focus), exposure))
        except LookupError as exc:
            return error(404, str(exc.args[0]))
        except ValueError as exc:
            return error(400, str(exc))

    @app.post("/api/calibration/cameras/<int:seat>/<step>")
    @pin
    def calibration_camera(seat: int, step: str) -> Any:
        if seat < 1 or seat > 12:
            return error(404, f"seat {seat} is not a seat number (1 to 12)")
        if step == "start":
            return run(session.camera_start, seat)
        if step == "save":
            return run(session.camera_save, seat)
        return error(404, f"unknown camera step {step!r}; expected start or save")
