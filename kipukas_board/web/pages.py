"""The page's own routes and guards (a route plugin; see :func:`register`).

- a CSRF guard in front of every change (:class:`~kipukas_board.web.auth.CsrfGuard`);
- ``csrf_token`` and ``pin_set`` for the templates;
- ``GET /calibrate``: the walk-through page;
- ``GET /api/maps``: the shipped maps new game can pick, and whether the map may change now;
- ``GET /api/log?limit=N``: the last N journal entries, newest last, for the page's event log;
- ``POST /api/pin/check``: lets the page tell a player at once whether the PIN they typed is right
  (rate-limited like every other PIN use);
- ``POST /api/pin`` ``{"new_pin": "135790"}``: replace the PIN (needs the current one), e.g. the
  random one printed at the first start; refused (409) when ``--admin-pin`` / ``KIPUKAS_ADMIN_PIN``
  sets the PIN, since that setting would put the old one back at the next start.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Flask, Response, jsonify, render_template, request

from kipukas_board import strictjson
from kipukas_board.board.mapfile import MapError, available_maps, load_map
from kipukas_board.show.layout import map_calibration_path, map_key
from kipukas_board.table.problems import open_problems
from kipukas_board.web.auth import CsrfGuard
from kipukas_board.web.join import join_url, qr_svg
from kipukas_board.web.narrate import Narration, describe
from kipukas_board.web.served import Files, GameRoutes, MapChoice, Records, Streams, Workshop
from kipukas_board.web.server import BadRequest, device_trusted, error, json_body, require_pin
from kipukas_board.web.sessions import COOKIE, WebKeys
from kipukas_board.web.svg import board_svg

LOG_LIMIT = 200
PIN_MANAGED = ("this board's PIN is set by --admin-pin or KIPUKAS_ADMIN_PIN (for the service: "
               "/etc/kipukas-board/environment, or sudo scripts/install-pi --admin-pin NNNN); change it "
               "there and restart the board, or the old PIN would come back at the next start")


class PagesBoard(GameRoutes, Records, MapChoice, Workshop, Files, Streams, Protocol):
    """What the page's own routes use: everything but the cards desk and the app factory's own
    (the log reads the journal, the map list the settings and data directory, the calibration page
    the walk's status, the captions go out on the event streams)."""


def register(app: Flask, board: PagesBoard) -> None:
    def said(seq: int, text: list[str], kinds: list[str], game: str) -> None:
        board.broadcaster.publish("said", strictjson.sent_dumps({"seq": seq, "said": text, "effects": kinds,
                                                                 "game": game}))

    def written(effect: dict[str, Any], state: Any) -> list[str]:
        """The sentences of the game being played (``state.game``), written for the log."""
        mode = board.modes.get(getattr(state, "game", "kipukas")) or board.modes["kipukas"]
        return mode.written(effect, state)

    narration = Narration(written, publish=said)
    board.subscribe(narration)
    app.extensions["kipukas_narration"] = narration
    keys = WebKeys(board.data_dir)
    app.extensions["kipukas_keys"] = keys
    guard = CsrfGuard(keys.csrf_token)  # the same token after a restart: open pages keep working
    app.extensions["kipukas_csrf"] = guard

    def trust_device(resp: Response) -> Response:
        """Remember this phone as trusted (it just gave the right PIN) until the session expires."""
        cookie = keys.issue(board.pins.fingerprint or "")
        resp.set_cookie(COOKIE, cookie, max_age=int(keys.session_s), httponly=True, samesite="Strict", path="/")
        return resp

    @app.before_request
    def _csrf() -> tuple[Response, int] | None:
        form_token = request.form.get("csrf_token") if request.mimetype in (
            "application/x-www-form-urlencoded", "multipart/form-data") else None
        why = guard.problem(request.method, request.headers, request.host, form_token)
        return error(403, why) if why else None

    @app.after_request
    def _policy(resp: Response) -> Response:
        # Scripts only from the board itself; the state is embedded as inert JSON, never run.
        resp.headers.setdefault("Content-Security-Policy",
                                "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
                                "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
        return resp

    @app.context_processor
    def _template_values() -> dict[str, Any]:
        # The new-game form offers what the board page's game (Kipukas) asks at setup on this map: its
        # play styles with the options each needs and how many players each allows (also in GET /api/state).
        board_map = board.state.board
        return {"csrf_token": guard.token, "join_url": join_url(request.host, request.scheme),
                "pin_set": board.pins.is_set, "pin_managed": board.pins.managed,
                **board.modes["kipukas"].setup_options(board_map), "maps": shipped_maps()}

    def shipped_maps() -> list[dict[str, Any]]:
        """Every shipped map for the new-game form: which runs now, which has a calibration of its own
        yet, and how many players each play style allows on it (and why)."""
        running = board.state.board
        out = []
        for key in available_maps():
            try:
                m = running if key == map_key(running) else load_map(key)
            except MapError:
                continue  # a shipped map always loads (tests/board/test_mapfile.py); never offer one that does not
            calibrated = map_calibration_path(board.settings.calibration, board.data_dir, m).exists()
            out.append({"key": key, "name": m.name, "current": m is running, "calibrated": calibrated,
                        "holdable": len(m.holdable),
                        "player_limits": board.modes["kipukas"].setup_options(m).get("player_limits", {})})
        return out

    @app.get("/api/maps")
    def maps() -> Response:
        """The shipped maps new game can pick (``POST /api/actions/map``), and why the board may not
        change its map now (``busy``: a game under way, a calibration walk open; None when it may)."""
        return jsonify({"maps": shipped_maps(), "busy": board.map_busy()})

    @app.get("/join.svg")
    def join_qr() -> Response:
        """A QR code of this page's address on the table's network, for other phones to join."""
        url = join_url(request.host, request.scheme)
        resp = Response(qr_svg(url), mimetype="image/svg+xml")
        resp.headers["Cache-Control"] = "no-store"
        resp.headers["X-Join-Url"] = url
        return resp

    @app.get("/report")
    def report_page() -> str:
        return render_template("report.html", report=board.game_report())

    @app.get("/calibrate")
    def calibrate_page() -> str:
        return render_template("calibrate.html", svg=board_svg(board.state.board), sim=board.sim,
                               initial=strictjson.sent_dumps(board.state_json()),
                               calibration=strictjson.sent_dumps(board.calibration.status()))

    @app.get("/api/log")
    def log_tail() -> Response | tuple[Response, int]:
        try:
            limit = int(request.args.get("limit", "50"))
        except ValueError:
            return error(400, f"limit must be a whole number, got {request.args.get('limit')!r}")
        limit = max(1, min(limit, LOG_LIMIT))
        after = max(0, board.journal.last_seq() - limit)
        state = board.state
        game = board.modes.get(state.game) or board.modes["kipukas"]
        names = game.seat_names(state)
        places = {n: t.name for n, t in state.board.territories.items() if t.name}
        souls = game.id_words(state)
        rows = [{"seq": seq, "ts": ts, "type": ev.get("type"), "text": describe(ev, names, places, souls),
                 "said": narration.sentences(seq)}
                for seq, ts, ev in board.journal.rows(after)]
        return jsonify({"entries": rows})

    @app.get("/api/problems")
    def problems_open() -> Response:
        """The problems still open: the rules drop each one once what it was about moved on
        (:mod:`kipukas_board.table.problems`), so this is the state's own list with what each is about."""
        return jsonify({"problems": [c.to_json() for c in open_problems(board.state)]})

    @app.post("/api/pin/check")
    @require_pin(board)
    def pin_check() -> Response:
        json_body(required=False, fields=frozenset())  # the PIN comes in X-Admin-Pin
        return trust_device(jsonify({"ok": True, "expires": int(keys.now() + keys.session_s)}))

    @app.get("/api/pin/status")
    def pin_status() -> Response:
        """Is this phone trusted (the session cookie is HttpOnly: the page asks instead of reading it)?"""
        ok = device_trusted(board)
        return jsonify({"trusted": ok, "expires": keys.expires(request.cookies.get(COOKIE)) if ok else None})

    @app.post("/api/pin/forget")
    def pin_forget() -> Response:
        """Lock this phone again (ends its device session)."""
        json_body(required=False, fields=frozenset())
        resp = jsonify({"ok": True})
        resp.delete_cookie(COOKIE, path="/", httponly=True, samesite="Strict")
        return resp

    @app.post("/api/pin")
    @require_pin(board)
    def pin_change() -> Response | tuple[Response, int]:
        new = json_body(fields=frozenset({"new_pin"})).get("new_pin")
        if not isinstance(new, str):
            raise BadRequest(f'expected {{"new_pin": "<4 to 12 digits>"}}, got new_pin = {new!r}')
        if board.pins.managed:
            return error(409, PIN_MANAGED)
        try:
            board.pins.set(new)
        except ValueError as exc:
            return error(400, str(exc))
        return trust_device(jsonify({"ok": True}))  # every other phone's session ended with the old PIN
