"""The page's PIN routes: checking the PIN, a trusted phone's session, and changing the PIN.

- ``POST /api/pin/check``: lets the page tell a player at once whether the PIN they typed is right
  (rate-limited like every other PIN use); a right one makes this phone trusted for a while (a device
  session, :func:`~kipukas_board.web.server.device_trusted`);
- ``GET /api/pin/status``: whether this phone is trusted, and until when (the session cookie is
  HttpOnly, so the page asks instead of reading it);
- ``POST /api/pin/forget``: lock this phone again;
- ``POST /api/pin`` ``{"new_pin": "135790"}``: replace the PIN (needs the current one), e.g. the
  random one printed at the first start; refused (409) when ``--admin-pin`` / ``KIPUKAS_ADMIN_PIN``
  sets the PIN, since that setting would put the old one back at the next start.
"""

from __future__ import annotations

from typing import Protocol

from flask import Flask, Response, jsonify, request

from kipukas_board.web.served import Files, Guarded
from kipukas_board.web.server import BadRequest, device_trusted, error, json_body, require_pin, web_keys
from kipukas_board.web.sessions import COOKIE

PIN_MANAGED = ("this board's PIN is set by --admin-pin or KIPUKAS_ADMIN_PIN (for the service: "
               "/etc/kipukas-board/environment, or sudo scripts/install-pi --admin-pin NNNN); change it "
               "there and restart the board, or the old PIN would come back at the next start")


class PinRoutesBoard(Guarded, Files, Protocol):
    """What the PIN routes use: the PIN, and the data directory (where the page keys that sign a
    trusted phone's session are kept)."""


def register(app: Flask, board: PinRoutesBoard) -> None:
    keys = web_keys(app, board)

    def trust_device(resp: Response) -> Response:
        """Remember this phone as trusted (it just gave the right PIN) until the session expires."""
        cookie = keys.issue(board.pins.fingerprint or "")
        resp.set_cookie(COOKIE, cookie, max_age=int(keys.session_s), httponly=True, samesite="Strict", path="/")
        return resp

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
