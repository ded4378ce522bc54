"""The table's own actions on the page, whatever game is played: new game, map, undo and redo, export.

A route plugin (:func:`register`, listed in ``ServedBoard.route_plugins``; it sees the board as
:class:`TableActionsBoard`): every action needs the admin PIN (``X-Admin-Pin``) and a JSON body; a
bad body is a 400 naming the field and what was expected, an action that does not fit the table
right now is a 409 saying why (:class:`~kipukas_board.web.submit.Conflict`). A game's own actions
are its mode's routes (Kipukas's in :mod:`kipukas_board.modes.kipukas.actions`)::

    POST /api/actions/new-game           {"game": "kipukas" | "duel" | ..., ...}: the body goes to that game's
                                         mode (``GameMode.new_game_event``), which writes the event
    POST /api/actions/map                {"map": "kipuka-12"} (a shipped map, while no game runs; 409 during one)
    GET  /api/undo                       what undo would take back and redo would do again, in words
    POST /api/actions/undo               {} ({"confirm": "new_game"} to take back a new game)
    POST /api/actions/redo               {} (again the action undo just took back, same rolls; kept across
                                          a restart until anything else is done)
    GET  /api/journal/export             the journal as JSON lines: {"seq", "ts", "event"} per line
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any, Protocol

from flask import Response, jsonify

from kipukas_board import strictjson
from kipukas_board.board.mapfile import available_maps
from kipukas_board.board.places import territory_names
from kipukas_board.core_loop import MapBusy, StillQueued
from kipukas_board.show.layout import map_key
from kipukas_board.web import submit as submission
from kipukas_board.web import taps
from kipukas_board.web.narrate import describe
from kipukas_board.web.redo import RedoStack
from kipukas_board.web.served import GameRoutes, MapChoice, Records
from kipukas_board.web.server import BadRequest, error, json_body, require_pin
from kipukas_board.web.submit import Conflict, Submitter, only_fields, undo_guard


class TableActionsBoard(GameRoutes, Records, MapChoice, Protocol):
    """What the table's actions use: the table, the games (each writes its own new-game event from
    the body), the PIN, the journal (undo's words, redo, the export) and the choice of map."""


#: Journal exports sent at once, at most (more get 503 with Retry-After).
MAX_EXPORTS = 2
#: Journal rows read at a time for an export.
EXPORT_PAGE = 500


def register(app: Any, board: TableActionsBoard) -> None:
    """Add the table's action routes and the journal export to the Flask ``app``."""
    submit = Submitter(board)
    pin = require_pin(board)
    # Redo: the actions undo took back, kept in the journal's database so a restart still offers them;
    # any new action in between makes them stale (kipukas_board.web.redo).
    redo_stack = RedoStack(board.journal)
    undo_lock = threading.RLock()  # re-entered by an undo's follow-up run in its own request

    @app.errorhandler(Conflict)
    def _conflict(exc: Conflict) -> tuple[Response, int]:
        return error(409, str(exc))

    def state() -> Any:
        return board.state

    only = only_fields

    @app.post("/api/actions/new-game")
    @pin
    def new_game() -> Response | tuple[Response, int]:
        body = json_body()
        game = body.get("game", "kipukas")
        mode = board.modes.get(game) if isinstance(game, str) else None
        if mode is None:
            raise BadRequest(f"field 'game' must be one of {', '.join(sorted(board.modes))}, got {game!r}")
        return submit(mode.new_game_event(body, board))  # each game builds its own event (its decks, its map)

    @app.post("/api/actions/map")
    @pin
    def pick_map() -> Response:
        """Put another shipped map on the table while no game runs (see BoardApp.pick_map)."""
        body = json_body()
        only(body, {"map"})
        name = body.get("map")
        if not isinstance(name, str):
            raise BadRequest(f"field 'map' must be a shipped map's name ({', '.join(available_maps())}), "
                             f"got {name!r:.60}")

        def picked(seq: int) -> dict[str, Any]:
            """What follows the map event once it is done (in time, or late): the pick kept, redo dropped."""
            board.map_picked(name, seq)
            redo_stack.clear()  # an undone new game must not come back on another map
            now = state().board
            return {"ok": True, "seq": seq, "map": {"key": map_key(now), "name": now.name}}

        def picked_late(seq: int) -> tuple[int, bytes]:
            try:
                return 200, json.dumps(picked(seq)).encode()
            except MapBusy as exc:
                return 409, json.dumps({"error": str(exc)}).encode()

        try:
            seq = board.submit_map(name, timeout=submission.WAIT_S, tap=taps.current())
            return jsonify(picked(seq))
        except StillQueued as exc:  # answered 503: the pick is finished once the busy core has done it
            raise exc.then(picked_late) from None
        except MapBusy as exc:
            raise Conflict(str(exc)) from None
        except ValueError as exc:
            raise BadRequest(f"field 'map': {exc}") from None


    def event_at(seq: int | None) -> dict[str, Any] | None:
        if seq is None:
            return None
        return next((ev for n, _, ev in board.journal.rows(seq - 1, limit=1) if n == seq), None)

    def game_of(s: Any) -> Any:
        return board.modes.get(s.game) or board.modes["kipukas"]

    def last_action(s: Any) -> Any:
        """The newest action undo could take back in the game on the table (``action``, ``seq``,
        ``expired``), or None."""
        return game_of(s).last_action(s)

    def undo_top(s: Any) -> str:
        """Where redo's offer belongs: this map, after the newest action undo could take back."""
        top = last_action(s)
        return f"{map_key(s.board)}#{top.seq if top is not None else ''}"

    def sentence(event: dict[str, Any] | None, action: str) -> str:
        if event is None:
            return action.replace("_", " ")
        s = state()
        game = game_of(s)
        return describe(event, game.seat_names(s),
                        territory_names(s.board), game.id_words(s))

    def redo_ready() -> dict[str, Any] | None:
        return redo_stack.ready(undo_top(state()))

    @app.get("/api/undo")
    def undo_info() -> Response:
        s = state()
        top = last_action(s)
        undo_doc = None
        if top is not None:
            undo_doc = {"action": top.action, "seq": top.seq, "expired": top.expired,
                        "text": sentence(event_at(top.seq), top.action),
                        "needs_confirm": top.action == "new_game"}
        ready = redo_ready()
        redo_doc = {"action": ready["type"], "text": sentence(ready, ready["type"])} if ready else None
        return jsonify({"undo": undo_doc, "redo": redo_doc})


    @app.post("/api/actions/undo")
    @pin
    def undo() -> Response | tuple[Response, int]:
        body = json_body(required=False)
        only(body, {"confirm"})
        s = state()
        top = last_action(s)
        if top is None and s.paused is not None:  # nothing of this game yet: the paused one is a Resume away
            now, was = board.modes.get(s.game), board.modes.get(s.paused.game)
            raise Conflict(f"nothing to undo since {now.a_game if now else s.game} began; "
                           f"{was.title if was else s.paused.game} is paused: Resume (on any page) brings it back")
        if top is None or top.expired:
            raise Conflict("nothing to undo" if top is None else "the last action is too far back to undo")
        if top.action == "new_game" and body.get("confirm") != "new_game":
            raise Conflict("undoing now takes back the new game itself (players and setup); send "
                           '{"confirm": "new_game"} to do that')
        original = event_at(top.seq)
        with undo_lock:  # one undo or redo at a time: two quick taps must not both take the same action
            undo_guard().check("undo")
            if undo_top(state()) != undo_top(s):
                raise Conflict("the board changed meanwhile; look again before undoing")
            redo_ready()  # an offer left from before the action now undone is stale: drop it first

            def undone(seq: int, taken: bool) -> None:  # in this request, or once the busy core did it
                if original is not None and taken:
                    with undo_lock:
                        redo_stack.push(original, undo_top(state()))

            return undo_guard().run("undo", lambda: submit({"type": "undo"}, then=undone))


    @app.post("/api/actions/redo")
    @pin
    def redo() -> Response | tuple[Response, int]:
        only(json_body(required=False), set())
        with undo_lock:
            undo_guard().check("redo")
            taken = redo_stack.take(undo_top(state()))
            if taken is None:
                raise Conflict("nothing to redo (only what undo just took back, before anything else is done)")
            event, rest = taken

            def redone(seq: int, done: bool) -> None:  # in this request, or once the busy core did it
                with undo_lock:
                    redo_stack.after_redo(rest, undo_top(state()), done=done)

            return undo_guard().run("redo", lambda: submit(event, then=redone))


    exports = threading.BoundedSemaphore(MAX_EXPORTS)

    @app.get("/api/journal/export")
    def export() -> Response | tuple[Response, int]:
        # A long journal is read a page at a time and at most MAX_EXPORTS are sent at once: many
        # exports read whole into memory at once, to clients that never read them, would swell the Pi.
        if not exports.acquire(blocking=False):
            resp, status = error(503, f"{MAX_EXPORTS} journal exports are being sent already; try again shortly")
            resp.headers["Retry-After"] = "5"
            return resp, status

        def lines() -> Iterator[str]:
            after = 0
            while True:
                page = list(board.journal.rows(after, limit=EXPORT_PAGE))
                for seq, ts, event in page:
                    yield strictjson.sent_dumps({"seq": seq, "ts": ts, "event": event}, separators=(",", ":")) + "\n"
                if len(page) < EXPORT_PAGE:
                    return
                after = page[-1][0]

        resp = Response(lines(), mimetype="application/x-ndjson")
        resp.headers["Content-Disposition"] = "attachment; filename=kipukas-journal.jsonl"
        resp.call_on_close(exports.release)  # called once the server is done with it, read or not
        return resp

