"""Setting a board up from the page: ``POST /api/cards/import`` imports a card file.

``POST /api/cards/import?name=FILE`` (PIN) takes the file's bytes as the body
(``application/octet-stream``) and imports them by :func:`kipukas_board.modes.card_files.import_card_file`,
the checks and words of ``kipukas-board catalog import``. The body may be larger than an action's (the
catalog is about 100 kB) but never more than :data:`~kipukas_board.modes.card_files.MAX_UPLOAD`; a
refusal is a 422 whose ``error`` names the file, what was wrong and what was expected.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from flask import Response, jsonify, request

from kipukas_board.modes.card_files import MAX_UPLOAD, CardFileRefused, import_card_file
from kipukas_board.web.served import CardsSeen, Games, Guarded
from kipukas_board.web.server import (
    BODY_CROWDED,
    MAX_BODY,
    BadRequest,
    allow_larger_body,
    body_dropped,
    error,
    require_pin,
)

#: A file name as the page sends it: no folders, printable, short.
NAME_RE = re.compile(r"[^/\\\x00-\x1f]{1,120}")


class CardImportBoard(CardsSeen, Games, Guarded, Protocol):
    """What the card import uses: the card desk's catalog, the modes' decks and the PIN."""


def register(app: Any, board: CardImportBoard) -> None:
    allow_larger_body(app, "/api/cards/import", MAX_UPLOAD)

    @app.post("/api/cards/import")
    @require_pin(board)
    def import_cards() -> Response | tuple[Response, int]:
        name = request.args.get("name", "")
        if not NAME_RE.fullmatch(name):
            raise BadRequest(f"expected ?name=FILE (the uploaded file's name, ending .json for the card catalog "
                             f"or .toml for a game mode's deck, at most 120 characters), got {name[:60]!r}")
        length = request.content_length
        if length is not None and length > MAX_UPLOAD:
            return error(413, f"{name}: larger than {MAX_UPLOAD} bytes; a card file is far smaller")
        dropped = body_dropped()
        if dropped:
            why = ("other card files are being sent to the board right now; send it again in a moment"
                   if dropped == BODY_CROWDED else
                   f"the board keeps a file over {MAX_BODY} bytes only from a phone the PIN unlocked, or with a "
                   f"PIN it has checked already; it is checked now, so send the file again")
            resp, status = error(503, f"{name}: not imported: {why}")
            resp.headers["Retry-After"] = "1"
            return resp, status
        request.max_content_length = MAX_UPLOAD  # this route only: the card catalog exceeds an action's limit
        data = request.get_data(cache=False)
        if not data:
            raise BadRequest(f"{name}: the upload is empty; send the file's bytes as the body")
        try:
            done = import_card_file(name, data, board.card_desk.catalog, board.mode_cards)
        except CardFileRefused as exc:
            return error(422, str(exc))
        return jsonify({"ok": True, **done.to_json()})
