"""Kipukas's actions on the page: its new game, diel rolls, answers, corrections, bouts, dice, timers.

A Flask blueprint (:func:`blueprint`, registered by :mod:`kipukas_board.modes.kipukas.routes`):
every action needs the admin PIN (``X-Admin-Pin``) and a JSON body; a bad body is a 400 naming the
field and what was expected, an action that does not fit the game right now (rolling the diel die
during setup, answering a closed question) is a 409 in the rules' words
(:func:`kipukas_board.modes.kipukas.rules.checks.why_not`), and nothing is journaled. Rolls are
made here, by the runtime, with the board's injected dice, and written into the event before it is
journaled (see :mod:`kipukas_board.modes.kipukas.rules.rolls`).

The table's own actions (new game for every mode, map, undo, redo, export) are
:mod:`kipukas_board.web.table_actions`. Each action answers ``{"ok": true, "seq": N, "event": {...},
"effects": [...]}``: the journaled event (with its rolls) and what the rules made of it. ::

    POST /api/actions/new-game           {"players": [{"seat": 1, "name": "Ana", "color": "#e4572e",
                                           "affinity": "brutal"}, ...], "edition": "web",
                                           "play_style": "domination", "options": {}, "diel_weights":
                                           {"day": 2, "night": 2, "storm": 2}, "first_placer": 1?}
                                         (the table's route, kipukas_board.web.table_actions, hands the
                                          body to :func:`new_game_event`; "kipukas" is the default game)
    POST /api/actions/roll-diel          {} (the board rolls) or {"phase": "storm"} (a physical roll)
    POST /api/actions/answer             {"question": "q3", "answer": 2}
    POST /api/actions/correction         {"target": "stand", "stand": "M4a", "owner": 1, "downed": true}
    POST /api/actions/resolve-contention {"territory": 3, "winner": 2}
    POST /api/actions/bout               {"territory": 3, "winner": 1, "loser": 2, "defeated": 1?,
                                           "stand": "M3a"?, "cleared": false?}
    POST /api/actions/initiative         {"seat": 1}
    POST /api/actions/soul-lost          {"seat": 1, "by": 2, "count": 1, "stand": "M3a"?} (a token on
                                           "stand" whose owner the board knows is that owner's soul)
    POST /api/actions/timer              {"label": "personal effect", "cycles": 5, "seat": 1}
    POST /api/actions/timer-cancel       {"timer": "t4"}
    POST /api/actions/roll-dice          {"kind": "random_territory" | "rogue_path" | "retreat" | "trap"
                                           | "d6" | "d20", "seat": 1?, "stand": "M3a" and "moves": 2
                                           (rogue_path: its stand and Movement Range), "souls":
                                           ["HMPU#0001"]? (retreat: the souls retreating)}
    POST /api/actions/end-game           {"winner": 1?}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response

from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.kipukas.rules.checks import why_not
from kipukas_board.modes.kipukas.rules.editions import MAX_MOVE, PHASES
from kipukas_board.modes.kipukas.rules.events import DICE_KINDS
from kipukas_board.modes.kipukas.rules.playstyles import STYLES, too_many_players
from kipukas_board.modes.kipukas.rules.rolls import (
    diel_event,
    placement_rolls,
    random_territory_outcome,
    rogue_paths,
    roll_event,
)
from kipukas_board.modes.kipukas.rules.rolls import roll_random_territory as _roll_territory
from kipukas_board.show.layout import map_key
from kipukas_board.web.server import BadRequest, json_body, require_pin
from kipukas_board.web.submit import Conflict, Submitter, int_field, only_fields

if TYPE_CHECKING:
    from kipukas_board.web.served import GameRoutes, Games, Table




def new_game_event(body: dict[str, Any], board: Table) -> dict[str, Any]:
    """The ``new_game`` event of ``POST /api/actions/new-game`` for Kipukas, checked against the map on
    the table, with the board's rolls (a random hill, who places first) written in."""
    only_fields(body, {"game", "players", "map", "edition", "play_style", "options", "diel_weights", "first_placer"})
    s = board.state
    board_map = s.board
    want = body.get("map")
    if want is not None:
        names = {board_map.name, map_key(board_map)}
        if not isinstance(want, str) or want not in names:
            raise Conflict(f"the board runs map {board_map.name!r} ({map_key(board_map)}); pick map {want!r} "
                           f"first (POST /api/actions/map, while no game runs), then start the game")
    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        raise BadRequest(f"field 'options' must be an object, got {options!r:.80}")
    event: dict[str, Any] = {
        "type": "new_game", "players": body.get("players"), "edition": body.get("edition", "web"),
        "play_style": body.get("play_style", "domination"), "options": dict(options or {}),
    }
    if "diel_weights" in body:
        event["diel_weights"] = body["diel_weights"]
    ps = STYLES.get(event["play_style"])
    players = event["players"]
    if ps is not None and isinstance(players, list):
        refused = too_many_players(ps, board_map, len(players))
        if refused:
            raise BadRequest(f"field 'players': {refused}")
        missing = [k for k in ps.needs if k not in event["options"]]
        if missing:
            raise BadRequest(f"field 'options' needs {', '.join(missing)} for {ps.title}")
        if event["options"].get("territory") == "random":  # a hill players can hold: not the lake
            top, allowed = board_map.highest_territory, board_map.holdable
            rolls = _roll_territory(top, board.dice, allowed)
            event["options"]["territory"] = random_territory_outcome(rolls, top, allowed)
            event["options"]["territory_rolls"] = rolls
    first = body.get("first_placer")
    if first is None and isinstance(players, list) and all(isinstance(p, dict) for p in players):
        seats = [p.get("seat") for p in players]
        if all(isinstance(x, int) for x in seats) and seats:
            event["placement_rolls"], first = placement_rolls(seats, board.dice)
    event["first_placer"] = first
    return event


def checker(board: Games) -> Callable[[Any, dict[str, Any]], str | None]:
    """Kipukas's ``why_not`` for the routes: first whether Kipukas is the game on the table at all.
    While another game is (a card duel, maybe with Kipukas paused under it), the Kipukas fields of
    the table are Kipukas's blank reading of it, and the rules' own check would answer 'no game started'."""

    def check(state: Any, event: dict[str, Any]) -> str | None:
        return another_game(board, state) or why_not(kipukas_state(state), event)

    return check


def another_game(board: Games, state: Any) -> str | None:
    """Why no Kipukas action fits while another game is on the table (None while Kipukas is)."""
    if state.game == "kipukas":
        return None
    other = board.modes.get(state.game)
    title = other.title if other is not None else state.game
    paused = state.paused is not None and state.paused.game == "kipukas"
    return (f"no Kipukas game is running: {title} is on the table" +
            (", and Kipukas is paused: Resume (on any page) brings it back" if paused else
             " (when it is over, start Kipukas with POST /api/actions/new-game)"))


def blueprint(board: GameRoutes) -> Blueprint:
    """Kipukas's action routes (see the module docs)."""
    bp = Blueprint("kipukas_actions", __name__)
    submit = Submitter(board)
    pin = require_pin(board)
    refused = checker(board)

    def state() -> Any:
        return board.state

    def play(event: dict[str, Any]) -> Response | tuple[Response, int]:
        return submit.unless_refused(event, refused)

    only = only_fields

    @bp.post("/api/actions/roll-diel")
    @pin
    def roll_diel() -> Response | tuple[Response, int]:
        body = json_body(required=False)
        only(body, {"phase"})
        phase = body.get("phase")
        if phase is not None and phase not in PHASES:
            raise BadRequest(f"field 'phase' must be one of {', '.join(PHASES)} (a physical roll), got {phase!r}")
        why = refused(state(), {"type": "roll_diel"})  # asked before the board rolls its dice
        if why is not None:
            raise Conflict(why)
        return submit(diel_event(kipukas_state(state()), board.dice, phase))

    @bp.post("/api/actions/answer")
    @pin
    def answer() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"question", "answer"})
        qid = body.get("question")
        if not isinstance(qid, str):
            raise BadRequest(f"field 'question' must be a question id like \"q3\", got {qid!r}")
        if "answer" not in body:
            raise BadRequest("field 'answer' is required (one of the question's options)")
        return play({"type": "answer", "question": qid, "answer": body["answer"]})


    @bp.post("/api/actions/correction")
    @pin
    def correction() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"target", "stand", "territory", "owner", "claim", "downed"})
        if (why := another_game(board, state())) is not None:
            raise Conflict(why)
        return submit({"type": "correction", **body})

    @bp.post("/api/actions/resolve-contention")
    @pin
    def resolve() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"territory", "winner"})
        n = int_field(body, "territory", "a territory number")
        w = int_field(body, "winner", "the seat that won the fight")
        return play({"type": "resolve_contention", "territory": n, "winner": w})

    @bp.post("/api/actions/bout")
    @pin
    def bout() -> Response | tuple[Response, int]:
        """A bout's outcome: souls of ``loser`` defeated by ``winner``; it never moves a claim."""
        body = json_body()
        only(body, {"territory", "winner", "loser", "defeated", "stand", "cleared"})
        int_field(body, "territory", "a territory number")
        for name in ("winner", "loser"):
            int_field(body, name, f"the seat that {'won' if name == 'winner' else 'lost'} the bout")
        return play({"type": "bout", **body})  # where the souls must meet is the rules' check

    @bp.post("/api/actions/initiative")
    @pin
    def initiative() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"seat"})
        seat = int_field(body, "seat", "the seat taking initiative")
        return play({"type": "take_initiative", "seat": seat})

    @bp.post("/api/actions/soul-lost")
    @pin
    def soul_lost() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"seat", "by", "count", "stand"})
        # The soul lost on a stand is its token's owner's; the seat given counts for a token whose
        # owner the board does not know, or for a soul lost off the map.
        sid = body.get("stand")
        token = kipukas_state(state()).stands.get(sid) if isinstance(sid, str) else None
        if token is not None and token.occupied and token.owner is not None:
            body = {**body, "seat": token.owner}
        int_field(body, "seat", "the seat whose soul was lost")
        return play({"type": "soul_lost", **body})

    @bp.post("/api/actions/timer")
    @pin
    def timer() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"label", "cycles", "seat"})
        return play({"type": "timer_start", "label": body.get("label"), "cycles": body.get("cycles"),
                     "seat": body.get("seat")})

    @bp.post("/api/actions/timer-cancel")
    @pin
    def timer_cancel() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"timer"})
        return play({"type": "timer_cancel", "timer": body.get("timer")})

    @bp.post("/api/actions/roll-dice")
    @pin
    def roll_dice() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"kind", "seat", "stand", "moves", "souls"})
        kind = body.get("kind")
        if kind not in DICE_KINDS:
            raise BadRequest(f"field 'kind' must be one of {', '.join(DICE_KINDS)}, got {kind!r}")
        seat = int_field(body, "seat", "a seat number", optional=True, nullable=True)
        stand = body.get("stand")
        moves = int_field(body, "moves", f"the rogue's Movement Range, 1 to {MAX_MOVE}", optional=True) or 1
        if kind == "rogue_path":
            if not isinstance(stand, str) or stand not in state().board.stands or not rogue_paths(state().board, stand):
                raise BadRequest(f"field 'stand' must be the rogue's stand (a stand id with land paths), got {stand!r}")
            if not 1 <= moves <= MAX_MOVE:
                raise BadRequest(f"field 'moves' must be the rogue's Movement Range, 1 to {MAX_MOVE}, got {moves}")
        souls = body.get("souls")
        if souls is not None and (kind != "retreat" or not isinstance(souls, list)
                                  or not all(isinstance(x, str) for x in souls)):
            raise BadRequest(f"field 'souls' is for a retreat: the ids of the souls retreating, got {souls!r:.80}")
        if (why := another_game(board, state())) is not None:
            raise Conflict(why)  # before the board rolls: no dice rolled for a game not on the table
        return submit(roll_event(kipukas_state(state()), kind, board.dice, seat=seat, stand=stand, moves=moves,
                                 souls=souls))

    @bp.post("/api/actions/end-game")
    @pin
    def end_game() -> Response | tuple[Response, int]:
        body = json_body(required=False)
        only(body, {"winner"})
        event: dict[str, Any] = {"type": "end_game"}
        if "winner" in body:
            event["winner"] = int_field(body, "winner", "the winning seat or null", nullable=True)
        return play(event)

    return bp
