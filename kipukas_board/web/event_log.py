"""The page's log of what happened, and the problems still open.

- the narration: after each event, the sentences the game writes for it go out on the event streams
  (``said``) and are kept for the log (:class:`~kipukas_board.web.narrate.Narration`);
- ``GET /api/log?limit=N``: the last N journal entries (at most :data:`LOG_LIMIT`), newest last, each
  described in words with what was said and the game it was said in (``game``, "" when nothing was);
- ``GET /api/problems``: the problems still open, with what each is about.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Flask, Response, jsonify, request

from kipukas_board import strictjson
from kipukas_board.board.places import territory_names
from kipukas_board.table.problems import open_problems
from kipukas_board.web.narrate import Narration, describe
from kipukas_board.web.served import Changes, Games, Records, Streams, TableView
from kipukas_board.web.server import error

#: The most journal entries one ``GET /api/log`` returns.
LOG_LIMIT = 200


class EventLogBoard(TableView, Changes, Games, Records, Streams, Protocol):
    """What the log uses: every change as it happens (the narration follows the table), the games
    (who writes the sentences, the seats' names), the journal, and the event streams the sentences
    go out on."""


def register(app: Flask, board: EventLogBoard) -> None:
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
        places = territory_names(state.board)
        souls = game.id_words(state)
        rows = [{"seq": seq, "ts": ts, "type": ev.get("type"), "text": describe(ev, names, places, souls),
                 "said": narration.sentences(seq), "game": narration.game(seq)}
                for seq, ts, ev in board.journal.rows(after)]
        return jsonify({"entries": rows})

    @app.get("/api/problems")
    def problems_open() -> Response:
        """The problems still open: the rules drop each one once what it was about moved on
        (:mod:`kipukas_board.table.problems`), so this is the state's own list with what each is about."""
        return jsonify({"problems": [c.to_json() for c in open_problems(board.state)]})
