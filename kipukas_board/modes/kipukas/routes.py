"""Kipukas's page assets and actions, registered by the mode (:meth:`KipukasMode.register_routes`):
its actions (:mod:`.actions`), the souls and the bout assistant (:mod:`.souls_api`), each a blueprint.

The page itself is the board's home (``GET /``, :func:`kipukas_board.web.server.create_app` renders
``index.html``, found in this mode's ``templates/``); its scripts are served from ``/kipukas/static/``
like the other modes' (``/duel/static/``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint

if TYPE_CHECKING:
    from kipukas_board.modes.kipukas.souls_api import SoulsBoard

HERE = Path(__file__).parent


def page_blueprint() -> Blueprint:
    """The page's templates and scripts (``url_for('kipukas.static', filename='board.js')``)."""
    return Blueprint("kipukas", __name__, template_folder=str(HERE / "templates"),
                     static_folder=str(HERE / "static"), static_url_path="/kipukas/static")


def register(app: Any, board: SoulsBoard) -> None:
    """Add Kipukas's page assets and actions to the Flask ``app``."""
    from kipukas_board.modes.kipukas import actions, souls_api

    app.register_blueprint(page_blueprint())
    app.register_blueprint(actions.blueprint(board))
    app.register_blueprint(souls_api.blueprint(board))
