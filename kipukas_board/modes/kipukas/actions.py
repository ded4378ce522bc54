"""The game's actions on the page: new game, diel rolls, answers, corrections, undo, dice, timers.

A route plugin (:func:`register`, listed in ``BoardApp.route_plugins``): every action needs the admin
PIN (``X-Admin-Pin``) and a JSON body; a bad body is a 400 naming the field and what was expected, an
action that does not fit the game right now (rolling the diel die during setup, answering a closed
question) is a 409 saying why. Rolls are made here, by the runtime, with the board's injected dice,
and written into the event before it is journaled (see :mod:`kipukas_board.modes.kipukas.rules.rolls`).

Each action answers ``{"ok": true, "seq": N, "event": {...}, "effects": [...]}``: the journaled event
(with its rolls) and what the rules made of it. ::

    POST /api/actions/new-game           {"players": [{"seat": 1, "name": "Ana", "color": "#e4572e",
                                           "affinity": "brutal"}, ...], "edition": "web",
                                           "play_style": "domination", "options": {}, "diel_weights":
                                           {"day": 2, "night": 2, "storm": 2}, "first_placer": 1?}
                                         ("game": another mode's name hands the body to that mode,
                                          kipukas_board.modes; "kipukas" is the default)
    POST /api/actions/map                {"map": "kipuka-12"} (a shipped map, while no game runs; 409 during one)
    POST /api/actions/roll-diel          {} (the board rolls) or {"phase": "storm"} (a physical roll)
    POST /api/actions/answer             {"question": "q3", "answer": 2}
    GET  /api/undo                       what undo would take back and redo would do again, in words
    POST /api/actions/undo               {} ({"confirm": "new_game"} to take back a new game)
    POST /api/actions/redo               {} (again the action undo just took back, same rolls; kept across
                                          a restart until anything else is done)
    POST /api/actions/correction         {"target": "stand", "stand": "M4a", "owner": 1, "downed": true}
    POST /api/actions/resolve-contention {"territory": 3, "winner": 2}
    POST /api/actions/bout               {"territory": 3, "winner": 1, "loser": 2, "defeated": 1?,
                                           "stand": "M3a"?, "cleared": false?}
    POST /api/actions/initiative         {"seat": 1}
    POST /api/actions/soul-lost          {"seat": 1, "by": 2, "count": 1, "stand": "M3a"?}
    POST /api/actions/timer              {"label": "personal effect", "cycles": 5, "seat": 1}
    POST /api/actions/timer-cancel       {"timer": "t4"}
    POST /api/actions/roll-dice          {"kind": "random_territory" | "rogue_path" | "retreat" | "trap"
                                           | "d6" | "d20", "seat": 1?, "stand": "M3a" and "moves": 2
                                           (rogue_path: its stand and Movement Range)}
    POST /api/actions/end-game           {"winner": 1?}
    GET  /api/journal/export             the journal as JSON lines: {"seq", "ts", "event"} per line
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from flask import Response, jsonify

from kipukas_board import strictjson
from kipukas_board.board.mapfile import available_maps
from kipukas_board.core_loop import MapBusy
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
from kipukas_board.web.narrate import describe
from kipukas_board.web.redo import RedoStack
from kipukas_board.web.server import BadRequest, error, json_body, require_pin
from kipukas_board.web.submit import Submitter, only_fields

if TYPE_CHECKING:
    from kipukas_board.app import BoardApp




class Conflict(Exception):
    """The action is well formed but does not fit the game now (409)."""


def _int(body: dict[str, Any], name: str, what: str, optional: bool = False, nullable: bool = False) -> Any:
    if name not in body:
        if optional:
            return None
        raise BadRequest(f"field {name!r} is required ({what})")
    v = body[name]
    if v is None and nullable:
        return None
    if not isinstance(v, int) or isinstance(v, bool):
        raise BadRequest(f"field {name!r} must be {what}, got {v!r}")
    return v


def register(app: Any, board: BoardApp) -> None:
    """Add the action routes and the journal export to the Flask ``app``."""
    submit = Submitter(board)
    pin = require_pin(board)
    # Redo: the actions undo took back, kept in the journal's database so a restart still offers them;
    # any new action in between makes them stale (kipukas_board.web.redo).
    redo_stack = RedoStack(board.journal)
    undo_lock = threading.Lock()

    @app.errorhandler(Conflict)
    def _conflict(exc: Conflict) -> tuple[Response, int]:
        return error(409, str(exc))

    def state() -> Any:
        return board.loop.state

    def in_play(what: str) -> None:
        s = state()
        if s.phase != "play":
            raise Conflict(f"{what} only while a game is in play (the game is in {s.phase}"
                           f"{'' if s.started else ', no game started'})")

    only = only_fields

    @app.post("/api/actions/new-game")
    @pin
    def new_game() -> Response | tuple[Response, int]:
        body = json_body()
        game = body.get("game", "kipukas")
        mode = board.modes.get(game) if isinstance(game, str) else None
        if mode is None:
            raise BadRequest(f"field 'game' must be one of {', '.join(sorted(board.modes))}, got {game!r}")
        if mode.name != "kipukas":  # another game mode builds its own event (its decks, its table)
            return submit(mode.new_game_event(body, board))
        only(body, {"game", "players", "map", "edition", "play_style", "options", "diel_weights", "first_placer"})
        s = state()
        board_map = s.board
        want = body.get("map")
        if want is not None:
            names = {board_map.name, map_key(board_map)}
            if not isinstance(want, str) or want not in names:
                raise Conflict(f"the board runs map {board_map.name!r} ({map_key(board_map)}); pick map {want!r} "
                               f"first (POST /api/actions/map, while no game runs), then start the game")
        event: dict[str, Any] = {
            "type": "new_game", "players": body.get("players"), "edition": body.get("edition", "web"),
            "play_style": body.get("play_style", "domination"), "options": dict(body.get("options") or {}),
        }
        if "diel_weights" in body:
            event["diel_weights"] = body["diel_weights"]
        if not isinstance(body.get("options", {}), dict):
            raise BadRequest(f"field 'options' must be an object, got {body['options']!r}")
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
                rolls = _roll_territory(top, board.loop.dice, allowed)
                event["options"]["territory"] = random_territory_outcome(rolls, top, allowed)
                event["options"]["territory_rolls"] = rolls
        first = body.get("first_placer")
        if first is None and isinstance(players, list) and all(isinstance(p, dict) for p in players):
            seats = [p.get("seat") for p in players]
            if all(isinstance(x, int) for x in seats) and seats:
                event["placement_rolls"], first = placement_rolls(seats, board.loop.dice)
        event["first_placer"] = first
        return submit(event)

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
        try:
            seq = board.pick_map(name)
            redo_stack.clear()  # an undone new game must not come back on another map
        except MapBusy as exc:
            raise Conflict(str(exc)) from None
        except ValueError as exc:
            raise BadRequest(f"field 'map': {exc}") from None
        now = state().board
        return jsonify({"ok": True, "seq": seq, "map": {"key": map_key(now), "name": now.name}})

    @app.post("/api/actions/roll-diel")
    @pin
    def roll_diel() -> Response | tuple[Response, int]:
        body = json_body(required=False)
        only(body, {"phase"})
        phase = body.get("phase")
        if phase is not None and phase not in PHASES:
            raise BadRequest(f"field 'phase' must be one of {', '.join(PHASES)} (a physical roll), got {phase!r}")
        in_play("the diel die is rolled")
        return submit(diel_event(state(), board.loop.dice, phase))

    @app.post("/api/actions/answer")
    @pin
    def answer() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"question", "answer"})
        qid = body.get("question")
        if not isinstance(qid, str):
            raise BadRequest(f"field 'question' must be a question id like \"q3\", got {qid!r}")
        if "answer" not in body:
            raise BadRequest("field 'answer' is required (one of the question's options)")
        q = next((q for q in state().questions if q["id"] == qid), None)
        if q is None:
            raise Conflict(f"no open question {qid!r}; open: {[x['id'] for x in state().questions]}")
        if body["answer"] not in q["options"] or isinstance(body["answer"], bool):
            raise BadRequest(f"field 'answer' must be one of {q['options']} for question {qid}, "
                             f"got {body['answer']!r}")
        return submit({"type": "answer", "question": qid, "answer": body["answer"]})


    def event_at(seq: int | None) -> dict[str, Any] | None:
        if seq is None:
            return None
        return next((ev for n, _, ev in board.journal.rows(seq - 1) if n == seq), None)

    def undo_top(s: Any) -> str:
        """Where redo's offer belongs: this map, after the newest action undo could take back."""
        return f"{map_key(s.board)}#{s.undo[-1].seq if s.undo else ''}"

    def sentence(event: dict[str, Any] | None, action: str) -> str:
        if event is None:
            return action.replace("_", " ")
        s = state()
        return describe(event, {p.seat: p.name for p in s.players},
                        {n: t.name for n, t in s.board.territories.items() if t.name})

    def redo_ready() -> dict[str, Any] | None:
        return redo_stack.ready(undo_top(state()))

    @app.get("/api/undo")
    def undo_info() -> Response:
        s = state()
        top = s.undo[-1] if s.undo else None
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
        if not s.undo or s.undo[-1].expired:
            raise Conflict("nothing to undo" if not s.undo else "the last action is too far back to undo")
        top = s.undo[-1]
        if top.action == "new_game" and body.get("confirm") != "new_game":
            raise Conflict("undoing now takes back the new game itself (players and setup); send "
                           '{"confirm": "new_game"} to do that')
        original = event_at(top.seq)
        with undo_lock:  # one undo or redo at a time: two quick taps must not both take the same action
            if undo_top(state()) != undo_top(s):
                raise Conflict("the board changed meanwhile; look again before undoing")
            redo_ready()  # an offer left from before the action now undone is stale: drop it first
            resp = submit({"type": "undo"})
            if original is not None and not isinstance(resp, tuple):
                redo_stack.push(original, undo_top(state()))
        return resp

    @app.post("/api/actions/redo")
    @pin
    def redo() -> Response | tuple[Response, int]:
        only(json_body(required=False), set())
        with undo_lock:
            taken = redo_stack.take(undo_top(state()))
            if taken is None:
                raise Conflict("nothing to redo (only what undo just took back, before anything else is done)")
            event, rest = taken
            resp = submit(event)
            redo_stack.after_redo(rest, undo_top(state()), done=not isinstance(resp, tuple))
        return resp

    @app.post("/api/actions/correction")
    @pin
    def correction() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"target", "stand", "territory", "owner", "claim", "downed"})
        return submit({"type": "correction", **body})

    @app.post("/api/actions/resolve-contention")
    @pin
    def resolve() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"territory", "winner"})
        n = _int(body, "territory", "a territory number")
        w = _int(body, "winner", "the seat that won the fight")
        in_play("contention is resolved")
        cont = state().contenders.get(n)
        if not cont:
            raise Conflict(f"territory {n} is not in contention")
        if w not in cont:
            raise BadRequest(f"field 'winner' must be one of the contenders {list(cont)}, got {w}")
        return submit({"type": "resolve_contention", "territory": n, "winner": w})

    @app.post("/api/actions/bout")
    @pin
    def bout() -> Response | tuple[Response, int]:
        """A bout's outcome: souls of ``loser`` defeated by ``winner``; it never moves a claim."""
        body = json_body()
        only(body, {"territory", "winner", "loser", "defeated", "stand", "cleared"})
        n = _int(body, "territory", "a territory number")
        in_play("a bout is recorded")
        s = state()
        if n not in s.territories:
            raise BadRequest(f"field 'territory' must be a territory of this map (1 to {len(s.territories)}), got {n}")
        for name in ("winner", "loser"):
            seat = _int(body, name, f"the seat that {'won' if name == 'winner' else 'lost'} the bout")
            if seat not in s.seats:
                raise BadRequest(f"field {name!r} must be a playing seat {list(s.seats)}, got {seat}")
        if n not in s.contenders:
            raise Conflict(f"territory {n} is not in contention: a bout is fought where an enemy soul has entered "
                           f"a held territory")
        return submit({"type": "bout", **body})

    @app.post("/api/actions/initiative")
    @pin
    def initiative() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"seat"})
        seat = _int(body, "seat", "the seat taking initiative")
        in_play("initiative is taken")
        if seat not in state().seats:
            raise BadRequest(f"field 'seat' must be a playing seat {list(state().seats)}, got {seat}")
        return submit({"type": "take_initiative", "seat": seat})

    @app.post("/api/actions/soul-lost")
    @pin
    def soul_lost() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"seat", "by", "count", "stand"})
        seat = _int(body, "seat", "the seat whose soul was lost")
        if not state().started:
            raise Conflict("no game started")
        if seat not in state().seats:
            raise BadRequest(f"field 'seat' must be a playing seat {list(state().seats)}, got {seat}")
        return submit({"type": "soul_lost", **body})

    @app.post("/api/actions/timer")
    @pin
    def timer() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"label", "cycles", "seat"})
        return submit({"type": "timer_start", "label": body.get("label"), "cycles": body.get("cycles"),
                       "seat": body.get("seat")})

    @app.post("/api/actions/timer-cancel")
    @pin
    def timer_cancel() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"timer"})
        tid = body.get("timer")
        if not isinstance(tid, str) or tid not in {t["id"] for t in state().timers}:
            raise BadRequest(f"field 'timer' must be a running timer's id {[t['id'] for t in state().timers]}, "
                             f"got {tid!r}")
        return submit({"type": "timer_cancel", "timer": tid})

    @app.post("/api/actions/roll-dice")
    @pin
    def roll_dice() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"kind", "seat", "stand", "moves"})
        kind = body.get("kind")
        if kind not in DICE_KINDS:
            raise BadRequest(f"field 'kind' must be one of {', '.join(DICE_KINDS)}, got {kind!r}")
        seat = _int(body, "seat", "a seat number", optional=True, nullable=True)
        stand = body.get("stand")
        moves = _int(body, "moves", f"the rogue's Movement Range, 1 to {MAX_MOVE}", optional=True) or 1
        if kind == "rogue_path":
            if not isinstance(stand, str) or stand not in state().board.stands or not rogue_paths(state().board, stand):
                raise BadRequest(f"field 'stand' must be the rogue's stand (a stand id with land paths), got {stand!r}")
            if not 1 <= moves <= MAX_MOVE:
                raise BadRequest(f"field 'moves' must be the rogue's Movement Range, 1 to {MAX_MOVE}, got {moves}")
        return submit(roll_event(state(), kind, board.loop.dice, seat=seat, stand=stand, moves=moves))

    @app.post("/api/actions/end-game")
    @pin
    def end_game() -> Response | tuple[Response, int]:
        body = json_body(required=False)
        only(body, {"winner"})
        event: dict[str, Any] = {"type": "end_game"}
        if "winner" in body:
            event["winner"] = _int(body, "winner", "the winning seat or null", nullable=True)
        s = state()
        if not s.started or s.phase == "over":
            raise Conflict("there is no game in progress to end")
        return submit(event)

    @app.get("/api/journal/export")
    def export() -> Response:
        def lines() -> Iterator[str]:
            for seq, ts, event in board.journal.rows():
                yield strictjson.dumps({"seq": seq, "ts": ts, "event": event}, separators=(",", ":")) + "\n"

        resp = Response(lines(), mimetype="application/x-ndjson")
        resp.headers["Content-Disposition"] = "attachment; filename=kipukas-journal.jsonl"
        return resp
