"""The souls' actions and the bout assistant on the page (a Flask blueprint, like :mod:`.actions`).

Every action needs the admin PIN and a JSON body, answers like :mod:`.actions` (``{"ok": true, "seq",
"event", "effects"}``; 400 naming a bad field, 409 when the rules refuse it)::

    POST /api/actions/soul-bind     {"stand": "M3a", "soul": "RrDC#0001"} or {"stand": "M3a", "seat": 1}
                                    (the card last shown at that seat)
    POST /api/actions/soul-unbind   {"soul": "RrDC#0001"}
    POST /api/actions/soul-fix      {"soul": "RrDC#0001", "lost": 2} or {"soul": ..., "wasted": true}
    POST /api/actions/soul-damage   {"soul": "RrDC#0001", "count": 1, "cause": "trap"} or {..., "healed": 1}
    GET  /api/bout/plan?territory=3&attacker=HMPU%230001&defender=ZrrD%230001&archetype=-5
                                    both sides' dice and modifiers with their sources (no PIN: it changes
                                    nothing); 409 saying why when no such bout can be fought
    POST /api/actions/bout-roll     {"territory": 3, "attacker": "HMPU#0001", "defender": "ZrrD#0001",
                                     "archetype": -5?, "rolls": {"attacker": [[4, 2]], "defender": [[5]]}?}
                                    without ``rolls`` the board rolls with its dice; the faces are journaled

Without ``archetype``, a Final Blow takes its archetype modifier from ``typing.toml`` in the board's
data directory when there is one (the number and its source go into the journaled event); otherwise 0.
"""

from __future__ import annotations

import tomllib
from typing import Any, Protocol

from flask import Blueprint, Response, jsonify, request

from kipukas_board.modes.kipukas.actions import checker
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.kipukas.rules.bouts import (
    check_typing_table,
    plan_bout,
    roll_plan,
    rounds_to_say,
    table_modifier,
)
from kipukas_board.strictjson import is_int
from kipukas_board.web.served import Files, GameRoutes
from kipukas_board.web.server import BadRequest, error, json_body, require_pin
from kipukas_board.web.submit import Conflict, Submitter, int_field, only_fields


class SoulsBoard(GameRoutes, Files, Protocol):
    """What the souls and bouts routes use: a game's routes, and the data directory (the typing
    table a board may hold); Kipukas's routes as a whole
    (:mod:`kipukas_board.modes.kipukas.routes`) need no more."""


#: The typing table a board may have in its data directory (format in docs/explanation/rules.md); none ships.
TYPING_FILE = "typing.toml"
MAX_TYPING_BYTES = 64 * 1024


def _soul_field(body: dict[str, Any], name: str = "soul") -> str:
    v = body.get(name)
    if not isinstance(v, str) or not v or len(v) > 40:
        raise BadRequest(f"field {name!r} must be a soul id from /api/state's souls, got {v!r:.60}")
    return v


def blueprint(board: SoulsBoard) -> Blueprint:
    """The souls' and bouts' routes (see the module docs)."""
    bp = Blueprint("kipukas_souls", __name__)
    submit = Submitter(board)
    pin = require_pin(board)
    refused = checker(board)

    only = only_fields

    def refuse(kind: str) -> None:
        """The rules' refusal of a ``kind`` event now (not in play), before anything is read or rolled."""
        why = refused(board.state, {"type": kind})
        if why is not None:
            raise Conflict(why)

    @bp.post("/api/actions/soul-bind")
    @pin
    def soul_bind() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"stand", "soul", "seat"})
        refuse("soul_bind")
        stand = body.get("stand")
        if not isinstance(stand, str) or stand not in board.state.switches:
            raise BadRequest(f"field 'stand' must be a stand id of this map, got {stand!r:.40}")
        if "soul" in body:
            return submit({"type": "soul_bind", "stand": stand, "soul": _soul_field(body)})
        return submit({"type": "soul_bind", "stand": stand,
                       "seat": int_field(body, "seat", "the seat whose last card is the soul")})

    @bp.post("/api/actions/soul-unbind")
    @pin
    def soul_unbind() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"soul"})
        return submit({"type": "soul_unbind", "soul": _soul_field(body)})

    @bp.post("/api/actions/soul-fix")
    @pin
    def soul_fix() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"soul", "lost", "wasted", "by"})
        return submit({"type": "soul_fix", **body, "soul": _soul_field(body)})

    @bp.post("/api/actions/soul-damage")
    @pin
    def soul_damage() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"soul", "count", "healed", "cause", "by"})
        refuse("soul_damage")
        return submit({"type": "soul_damage", **body, "soul": _soul_field(body)})

    def _typing(attacker: str, defender: str) -> tuple[int, str]:
        """The typing table's number for a Final Blow (gene against gene), if the board has a table."""
        path = board.data_dir / TYPING_FILE
        s = kipukas_state(board.state)
        att, dfn = s.souls.get(attacker), s.souls.get(defender)
        if not path.is_file() or att is None or dfn is None or not dfn.downed:
            return 0, ""
        if path.stat().st_size > MAX_TYPING_BYTES:
            raise Conflict(f"{path}: a typing table is at most {MAX_TYPING_BYTES} bytes")
        try:
            table = check_typing_table(tomllib.loads(path.read_text(encoding="utf-8")), str(path))
        except (ValueError, UnicodeDecodeError) as exc:  # tomllib.TOMLDecodeError is a ValueError
            raise Conflict(f"{path}: {exc}") from None
        value = table_modifier(table, att.archetype, dfn.archetype)
        return value, f"archetype interaction from {TYPING_FILE}: {att.archetype} against {dfn.archetype}"

    def _plan(territory: Any, attacker: Any, defender: Any, archetype: Any) -> dict[str, Any]:
        if not is_int(territory):
            raise BadRequest(f"field 'territory' must be a territory number, got {territory!r:.20}")
        for name, v in (("attacker", attacker), ("defender", defender)):
            _soul_field({name: v}, name)
        source = ""
        if archetype is None:
            archetype, source = _typing(attacker, defender)
        if not is_int(archetype):
            raise BadRequest(f"field 'archetype' must be a whole number (the fists tool's), got {archetype!r:.20}")
        plan = plan_bout(kipukas_state(board.state), territory, attacker, defender, archetype, source)
        if isinstance(plan, str):
            raise Conflict(plan)
        plan["archetype_source"] = source
        plan["rounds"] = list(rounds_to_say(plan))  # the fewest and the most rounds the players may say
        return plan

    @bp.get("/api/bout/plan")
    def bout_plan() -> Response | tuple[Response, int]:
        args = request.args
        try:
            territory = int(args.get("territory", ""))
            archetype = int(args["archetype"]) if args.get("archetype") not in (None, "") else None
        except ValueError:
            return error(400, "query 'territory' and 'archetype' must be whole numbers")
        return jsonify(_plan(territory, args.get("attacker"), args.get("defender"), archetype))

    @bp.post("/api/actions/bout-roll")
    @pin
    def bout_roll() -> Response | tuple[Response, int]:
        body = json_body()
        only(body, {"territory", "attacker", "defender", "archetype", "rolls"})
        refuse("bout_roll")
        plan = _plan(body.get("territory"), body.get("attacker"), body.get("defender"), body.get("archetype"))
        event = {"type": "bout_roll", "territory": plan["territory"], "attacker": body["attacker"],
                 "defender": body["defender"], "archetype": plan["archetype"]}
        if plan["archetype_source"]:
            event["archetype_source"] = plan["archetype_source"]
        if "rolls" in body:
            event.update(rolls=body["rolls"], source="physical")
        else:
            event.update(rolls=roll_plan(plan, board.dice), source="board")
        return submit(event)

    return bp
