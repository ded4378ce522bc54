"""Setting a board up from the page: importing a card file, and the cards the board knows.

* ``POST /api/cards/import?name=FILE`` (PIN): the file's bytes as the body (``application/octet-stream``),
  imported by :func:`kipukas_board.modes.card_files.import_card_file`, the checks and words of
  ``kipukas-board catalog import``. The body may be larger than an action's (the catalog is about
  100 kB) but never more than :data:`~kipukas_board.modes.card_files.MAX_UPLOAD`; a refusal is a 422
  whose ``error`` names the file, what was wrong and what was expected.
* ``GET /api/cards/known``: every card the board could show, each with a QR payload that names it,
  so the page can act as a seat's camera in simulation (``POST /api/sim/cards``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from flask import Response, jsonify, request

from kipukas_board.modes.card_files import MAX_UPLOAD, CardFileRefused, import_card_file
from kipukas_board.web.server import BadRequest, error, require_pin

if TYPE_CHECKING:
    from kipukas_board.web.served import ServedBoard

#: A file name as the page sends it: no folders, printable, short.
NAME_RE = re.compile(r"[^/\\\x00-\x1f]{1,120}")
#: The copy number and serial a simulated catalog card is shown with (any copy reads the same design).
SIM_COPY, SIM_SERIAL = "0001", "SIMCARD"


def register(app: Any, board: ServedBoard) -> None:
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
        request.max_content_length = MAX_UPLOAD  # this route only: the card catalog exceeds an action's limit
        data = request.get_data(cache=False)
        if not data:
            raise BadRequest(f"{name}: the upload is empty; send the file's bytes as the body")
        try:
            done = import_card_file(name, data, board.card_desk.catalog, board.mode_cards)
        except CardFileRefused as exc:
            return error(422, str(exc))
        return jsonify({"ok": True, **done.to_json()})

    @app.get("/api/cards/known")
    def known_cards() -> Response:
        return jsonify({"cards": known(board)})


def known(board: ServedBoard) -> list[dict[str, Any]]:
    """Every imported card as ``{"payload", "title", "game", "deck"}``: the catalog's designs (by title),
    then each mode's decks."""
    out = [{"payload": f"kpks.us/{card['code']}#{SIM_COPY}?{SIM_SERIAL}", "game": "kipukas", "deck": None,
            "title": str(card.get("title") or card["code"])} for card in board.card_desk.catalog.designs()]
    for mode in board.modes.values():
        if not mode.payload_prefix:
            continue
        for deck in sorted(board.mode_cards.decks(mode.name)):
            for card in board.mode_cards.deck(mode.name, deck):
                title = card.get("title") or card.get("name") or card["id"]
                out.append({"payload": f"{mode.payload_prefix}{card['id']}", "title": str(title),
                            "game": mode.name, "deck": deck})
    return out
