"""Creature Combat Territory's actions and page (a route plugin the mode registers).

Every action needs the admin PIN and answers like the Kipukas actions: ``{"ok": true, "seq": N,
"event": {...}, "effects": [...]}``; a malformed body is a 400 naming the field, an action the rules
refuse now (a creature that is resting, a slot already filled) a 409 saying why. ::

    POST /api/actions/new-game                   {"game": "creature-combat", "players": [{"seat": 1,
                                                   "name": "Ana", "color": "#e4572e", "deck": "ana"}, ...],
                                                   "options": {"deck_cost": 100, "land_deck": 25}?,
                                                   "table": "creature-combat"?}
    POST /api/actions/creature-combat/deal       {"land": "land-07", "slot": 3?}   a land into a slot
    POST /api/actions/creature-combat/done       {"seat": 1}                        deployed / round end done
    POST /api/actions/creature-combat/reveal     {"creature": "fox-1", "seat": 1?}  picked on the page
    POST /api/actions/creature-combat/unreveal   {"creature": "fox-1"}
    POST /api/actions/creature-combat/adjust     {"creature": "fox-1", "base": -2, "power": 0, "rest": 1,
                                                   "support": false, "sacrifice": false,
                                                   "reason": "Roar from Zap"}   adds to an earlier one
    POST /api/actions/creature-combat/resolve    {}                                 tally the land
    POST /api/actions/creature-combat/choose     {"creature": "fox-1", "choice": "rest" | "ready"}
    POST /api/actions/creature-combat/concede    {"seat": 2}
    POST /api/actions/creature-combat/end-game   {"winner": 1?}                     agreed end
    POST /api/actions/creature-combat/undo       {}
    GET  /api/creature-combat/decks              the imported decks
    GET  /creature-combat                        the mode's page
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask

from kipukas_board.modes.creature_combat.rules import DECK_COST, LAND_DECK, deck_problems
from kipukas_board.modes.creature_combat.table import DEFAULT_TABLE, TableError, load_table
from kipukas_board.modes.routes import mode_blueprint
from kipukas_board.strictjson import is_int
from kipukas_board.web.server import BadRequest
from kipukas_board.web.submit import only_fields

if TYPE_CHECKING:
    from kipukas_board.web.served import GameRoutes, Games

NAME = "creature-combat"
HERE = Path(__file__).parent
_CREATURE_FIELDS = ("id", "name", "species", "cost", "stars", "base_power", "biomes", "ability")
#: Action → the fields its body may have (the event type is ``cc_`` + the action).
ACTIONS: dict[str, set[str]] = {
    "deal": {"land", "slot"}, "done": {"seat"}, "reveal": {"creature", "seat"}, "unreveal": {"creature", "seat"},
    "adjust": {"creature", "base", "power", "rest", "support", "sacrifice", "reason"}, "resolve": set(),
    "choose": {"creature", "seat", "choice"}, "concede": {"seat"}, "end-game": {"winner"}, "undo": set(),
}

#: A table layout named over HTTP: a shipped file's name, never a path on the board.
TABLE_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")



def new_game_event(body: dict[str, Any], board: Games) -> dict[str, Any]:
    """The ``new_game`` event for ``POST /api/actions/new-game``: each player's deck read from the
    catalog and written in, the table layout read and written in, the deck limits checked."""
    only_fields(body, {"game", "players", "options", "table"})
    players = body.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 4:
        raise BadRequest(f"field 'players' must be a list of 2 to 4 players, got {players!r:.80}")
    opts = body.get("options") or {}
    if not isinstance(opts, dict):
        raise BadRequest(f"field 'options' must be an object with deck_cost and land_deck, got {opts!r:.60}")
    only_fields(opts, {"deck_cost", "land_deck"}, "in 'options': ")
    deck_cost, land_deck = opts.get("deck_cost", DECK_COST), opts.get("land_deck", LAND_DECK)
    for k, v in (("deck_cost", deck_cost), ("land_deck", land_deck)):
        if not is_int(v) or v < 1:
            raise BadRequest(f"field 'options.{k}' must be a whole number from 1 up (the players' agreement), "
                             f"got {v!r}")
    try:
        name = body.get("table", DEFAULT_TABLE)
        if not isinstance(name, str) or not TABLE_NAME.fullmatch(name):
            raise BadRequest(f"field 'table' must name a shipped table layout (calibration/maps/tables/<name>.toml: "
                             f"lowercase letters, digits and '-'), got {name!r}")
        table = load_table(name)
    except TableError as exc:
        raise BadRequest(f"field 'table': {exc}") from None
    decks = board.mode_cards.decks(NAME)
    seats_at_table = {s["seat"] for s in table["seats"]}
    out_players, creatures, lands, problems, used = [], [], [], [], {}
    for i, p in enumerate(players):
        if not isinstance(p, dict):
            raise BadRequest(f"field 'players[{i}]' must be an object with seat, name, color and deck")
        only_fields(p, {"seat", "name", "color", "deck"}, f"in 'players[{i}]': ")
        deck, seat = p.get("deck"), p.get("seat")
        if not isinstance(deck, str) or deck not in decks:
            known = ", ".join(sorted(decks)) or "none yet: kipukas-board catalog import FILE.toml"
            raise BadRequest(f"field 'players[{i}].deck' must name an imported deck ({known}), got {deck!r}")
        if deck in used:
            raise BadRequest(f"field 'players[{i}].deck': deck {deck!r} is already players[{used[deck]}]'s; "
                             f"each player brings their own")
        used[deck] = i
        if isinstance(seat, int) and seat not in seats_at_table:
            raise BadRequest(f"field 'players[{i}].seat': the table layout {table['name']!r} has seats "
                             f"{sorted(seats_at_table)}, got {seat}")
        out_players.append({k: p[k] for k in ("seat", "name", "color") if k in p})
        cards = board.mode_cards.deck(NAME, deck)
        mine_c = [{**{k: c.get(k) for k in _CREATURE_FIELDS}, "seat": seat} for c in cards if c["kind"] == "creature"]
        mine_l = [{"id": c["id"], "name": c["name"], "biome": c["biome"], "seat": seat}
                  for c in cards if c["kind"] == "land"]
        problems += deck_problems(mine_c, mine_l, deck_cost, land_deck, f"{p.get('name') or deck}'s deck {deck!r}")
        creatures += mine_c
        lands += mine_l
    if problems:
        raise BadRequest("; ".join(problems))
    return {"type": "new_game", "game": NAME, "players": out_players, "creatures": creatures, "lands": lands,
            "options": {"deck_cost": deck_cost, "land_deck": land_deck}, "table": table}


def register(app: Flask, board: GameRoutes) -> None:
    """The mode's page and actions (``end-game`` is the ``cc_end`` event)."""
    app.register_blueprint(mode_blueprint(
        board, name=NAME, slug="creature-combat", here=HERE, template="creature_combat.html",
        title="Creature Combat Territory game", actions=ACTIONS, event_type=lambda a: "cc_" + a.replace("-game", "")))
