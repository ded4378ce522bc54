"""The page's own routes and guards (a route plugin; see :func:`register`).

- a CSRF guard in front of every change (:class:`~kipukas_board.web.auth.CsrfGuard`);
- ``csrf_token`` and ``pin_set`` for the templates;
- ``GET /calibrate``: the walk-through page;
- ``GET /api/log?limit=N``: the last N journal entries, newest last, for the page's event log;
- ``POST /api/pin/check``: lets the page tell a player at once whether the PIN they typed is right
  (rate-limited like every other PIN use);
- ``POST /api/pin`` ``{"new_pin": "135790"}``: replace the PIN (needs the current one), e.g. the
  random one printed at the first start; refused (409) when ``--admin-pin`` / ``KIPUKAS_ADMIN_PIN``
  sets the PIN, since that setting would put the old one back at the next start.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, jsonify, render_template, request

from kipukas_board.game.playstyles import STYLES, player_limits
from kipukas_board.web.auth import CsrfGuard
from kipukas_board.web.server import BadRequest, error, json_body, require_pin
from kipukas_board.web.svg import board_svg

if TYPE_CHECKING:
    from kipukas_board.app import BoardApp

LOG_LIMIT = 200
PIN_MANAGED = ("this board's PIN is set by --admin-pin or KIPUKAS_ADMIN_PIN (for the service: "
               "/etc/kipukas-board/environment, or sudo scripts/install-pi --admin-pin NNNN); change it "
               "there and restart the board, or the old PIN would come back at the next start")


def describe(event: dict[str, Any]) -> str:
    """One line a player can read for a journaled event (unknown types fall back to their fields)."""
    kind = event.get("type")
    if kind == "stand":
        how = "placed on" if event.get("occupied") else "lifted from"
        return f"token {how} {event.get('stand')} ({event.get('source', 'sensor')})"
    if kind == "map":
        return f"board started on map {event.get('name')}"
    fields = ", ".join(f"{k}={v}" for k, v in event.items() if k != "type" and not isinstance(v, dict | list))
    return f"{kind}: {fields}" if fields else str(kind)


def register(app: Flask, board: BoardApp) -> None:
    guard = CsrfGuard()
    app.extensions["kipukas_csrf"] = guard

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
        # play_styles: the new-game form offers every style the rules know, with the options each needs
        # and how many players it allows on this map (player_limits, also in GET /api/state).
        return {"csrf_token": guard.token, "pin_set": board.pins.is_set, "pin_managed": board.pins.managed,
                "play_styles": list(STYLES.values()), "player_limits": player_limits(board.loop.state.board)}

    @app.get("/calibrate")
    def calibrate_page() -> str:
        return render_template("calibrate.html", svg=board_svg(board.loop.state.board), sim=board.sim,
                               initial=json.dumps(board.state_json()),
                               calibration=json.dumps(board.calibration.status()))

    @app.get("/api/log")
    def log_tail() -> Response | tuple[Response, int]:
        try:
            limit = int(request.args.get("limit", "50"))
        except ValueError:
            return error(400, f"limit must be a whole number, got {request.args.get('limit')!r}")
        limit = max(1, min(limit, LOG_LIMIT))
        after = max(0, board.journal.last_seq() - limit)
        rows = [{"seq": seq, "ts": ts, "type": ev.get("type"), "text": describe(ev)}
                for seq, ts, ev in board.journal.rows(after)]
        return jsonify({"entries": rows})

    @app.post("/api/pin/check")
    @require_pin(board)
    def pin_check() -> Response:
        return jsonify({"ok": True})

    @app.post("/api/pin")
    @require_pin(board)
    def pin_change() -> Response | tuple[Response, int]:
        new = json_body().get("new_pin")
        if not isinstance(new, str):
            raise BadRequest(f'expected {{"new_pin": "<4 to 12 digits>"}}, got new_pin = {new!r}')
        if board.pins.managed:
            return error(409, PIN_MANAGED)
        try:
            board.pins.set(new)
        except ValueError as exc:
            return error(400, str(exc))
        return jsonify({"ok": True})
