"""The card duel's actions and page (a route plugin the mode registers).

Every action needs the admin PIN and answers like the other modes' actions: ``{"ok": true, "seq": N,
"event": {...}, "effects": [...]}``; a malformed body is a 400 naming the field, an action the rules
refuse now (not that player's turn, a card already in play) a 409 saying why. ::

    POST /api/actions/new-game       {"game": "duel", "players": [{"seat": 1, "name": "Ana", "color": "#e4572e",
                                       "deck": "ana"}, {...}], "challenged": 1?, "hearts": 3?,
                                       "deck_size": 30?}                  (the challenged plays first)
    POST /api/actions/duel/play      {"card": "punch", "seat": 1?, "side": "left"?, "target": "club#1"?,
                                      "replace": "shield#1"?, "needs_met": true?}   picked on the page
    POST /api/actions/duel/aim       {"target": "oak-bark-shield#1" | null, "seat": 2?}
    POST /api/actions/duel/choose    {"card": "cestus#1", "side": "left" | "right"}
    POST /api/actions/duel/adjust    {"card": "club#1", "attack": 2, "defense": 0, "reason": "..."}
    POST /api/actions/duel/move      {"card": "mates#1", "to": "discard" | "destroy" | "trash" | "limbo" |
                                      "bottom" | "pool", "reason": "trap went off"}
    POST /api/actions/duel/draw      {"count": 1, "reason": "...", "seat": 1?}
    POST /api/actions/duel/pass      {"seat": 1?}                          the attack meets the defense
    POST /api/actions/duel/concede   {"seat": 2}
    POST /api/actions/duel/undo      {}
    GET  /api/duel/decks             the imported decks
    GET  /duel                       the mode's page
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask

from kipukas_board.modes.duel.rules import DECK_SIZE, HEARTS, deck_problems
from kipukas_board.modes.routes import mode_blueprint
from kipukas_board.strictjson import is_int
from kipukas_board.web.server import BadRequest
from kipukas_board.web.submit import only_fields

if TYPE_CHECKING:
    from kipukas_board.web.served import GameRoutes, Games

NAME = "duel"
HERE = Path(__file__).parent
_CARD_FIELDS = ("id", "name", "type", "schools", "exotic", "text", "copies", "status", "hands", "shield",
                "summon", "stay", "effects")
ACTIONS: dict[str, set[str]] = {
    "play": {"card", "seat", "side", "target", "replace", "needs_met"}, "aim": {"target", "seat"},
    "choose": {"card", "side"}, "adjust": {"card", "attack", "defense", "reason"},
    "move": {"card", "to", "reason"}, "draw": {"count", "reason", "seat"}, "pass": {"seat"},
    "concede": {"seat"}, "undo": set(),
}


def new_game_event(body: dict[str, Any], board: Games) -> dict[str, Any]:
    """The ``new_game`` event: each player's deck read from the catalog and written in, checked."""
    only_fields(body, {"game", "players", "challenged", "hearts", "deck_size"})
    players = body.get("players")
    if not isinstance(players, list) or len(players) != 2:
        raise BadRequest(f"field 'players' must be a list of 2 players (the card duel is for two), got {players!r:.80}")
    for k, default, lo, hi in (("hearts", HEARTS, 1, 10), ("deck_size", DECK_SIZE, 1, 200)):
        v = body.get(k, default)
        if not is_int(v) or not lo <= v <= hi:
            raise BadRequest(f"field {k!r} must be a whole number {lo} to {hi} (the same for both players), got {v!r}")
    decks = board.mode_cards.decks(NAME)
    cards, problems, used, out_players = [], [], {}, []
    for i, p in enumerate(players):
        if not isinstance(p, dict):
            raise BadRequest(f"field 'players[{i}]' must be an object with seat, name, color and deck")
        only_fields(p, {"seat", "name", "color", "deck"}, f"in 'players[{i}]': ")
        deck = p.get("deck")
        if not isinstance(deck, str) or deck not in decks:
            known = ", ".join(sorted(decks)) or "none yet: kipukas-board catalog import FILE.toml"
            raise BadRequest(f"field 'players[{i}].deck' must name an imported duel deck ({known}), got {deck!r}")
        if deck in used:
            raise BadRequest(f"field 'players[{i}].deck': deck {deck!r} is already players[{used[deck]}]'s; "
                             f"each player brings their own")
        used[deck] = i
        out_players.append({k: p[k] for k in ("seat", "name", "color") if k in p})
        mine = [{**{k: c[k] for k in _CARD_FIELDS if k in c}, "seat": p.get("seat")}
                for c in board.mode_cards.deck(NAME, deck)]
        problems += deck_problems(mine, f"{p.get('name') or deck}'s deck {deck!r}", body.get("deck_size", DECK_SIZE))
        cards += mine
    if problems:
        raise BadRequest("; ".join(problems) + " (a non-standard game: agree on deck_size)")
    event: dict[str, Any] = {"type": "new_game", "game": NAME, "players": out_players, "cards": cards,
                             "hearts": body.get("hearts", HEARTS)}
    if "challenged" in body:
        event["challenged"] = body["challenged"]
    return event


def register(app: Flask, board: GameRoutes) -> None:
    """The duel's page and actions."""
    app.register_blueprint(mode_blueprint(board, name=NAME, slug="duel", here=HERE, template="duel.html",
                                          title="card duel", actions=ACTIONS, event_type=lambda a: "duel_" + a))
