"""What every page is served in: the guards around every request and the values every template gets.

- a CSRF guard in front of every change (:class:`~kipukas_board.web.auth.CsrfGuard`), with the
  board's page keys (:func:`~kipukas_board.web.server.web_keys`: the same token after a restart, so
  open pages keep working);
- the content security policy on every answer: scripts only from the board itself;
- the values every template gets: ``csrf_token``, ``join_url``, ``pin_set`` and ``pin_managed``,
  and the new-game form's play styles and maps (:func:`~kipukas_board.web.map_list.shipped_maps`);
- ``GET /join.svg``: the QR code of ``join_url``, for other phones to join.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Flask, Response, request

from kipukas_board.web.auth import CsrfGuard
from kipukas_board.web.join import join_url, qr_svg
from kipukas_board.web.map_list import MapsShown, shipped_maps
from kipukas_board.web.served import Guarded
from kipukas_board.web.server import error, web_keys

#: What every page's answer may load: scripts only from the board; the state is embedded as inert JSON.
CONTENT_SECURITY_POLICY = ("default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
                           "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


class PageFrameBoard(MapsShown, Guarded, Protocol):
    """What the frame of every page uses: the PIN's state, the data directory (the page keys), and
    what the new-game form offers (the map running, Kipukas's play styles, the shipped maps)."""


def register(app: Flask, board: PageFrameBoard) -> None:
    guard = CsrfGuard(web_keys(app, board).csrf_token)
    app.extensions["kipukas_csrf"] = guard

    @app.before_request
    def _csrf() -> tuple[Response, int] | None:
        form_token = request.form.get("csrf_token") if request.mimetype in (
            "application/x-www-form-urlencoded", "multipart/form-data") else None
        why = guard.problem(request.method, request.headers, request.host, form_token)
        return error(403, why) if why else None

    @app.after_request
    def _policy(resp: Response) -> Response:
        resp.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return resp

    @app.context_processor
    def _template_values() -> dict[str, Any]:
        # The new-game form offers what the board page's game (Kipukas) asks at setup on this map: its
        # play styles with the options each needs and how many players each allows (also in GET /api/state).
        board_map = board.state.board
        return {"csrf_token": guard.token, "join_url": join_url(request.host, request.scheme),
                "pin_set": board.pins.is_set, "pin_managed": board.pins.managed,
                **board.modes["kipukas"].setup_options(board_map), "maps": shipped_maps(board)}

    @app.get("/join.svg")
    def join_qr() -> Response:
        """A QR code of this page's address on the table's network, for other phones to join."""
        url = join_url(request.host, request.scheme)
        resp = Response(qr_svg(url), mimetype="image/svg+xml")
        resp.headers["Cache-Control"] = "no-store"
        resp.headers["X-Join-Url"] = url
        return resp
