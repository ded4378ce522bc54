"""The form of the card duel's events (checked before they are journaled).

Form only (fields, types, ranges); whether an event fits the duel now (whose turn, where the card is)
is the rules core's business, which refuses it with a reason.

Example::

    >>> check_duel_event({"type": "duel_play", "card": "punch", "seat": 1}) is None
    True
"""

from __future__ import annotations

import re
from typing import Any

from kipukas_board.modes.duel.effects import SIDES
from kipukas_board.modes.duel.rules import EVENT_TYPES, HEARTS, MAX_ADJUST, POOL_LIMIT, TYPES
from kipukas_board.strictjson import is_int
from kipukas_board.table.events import EventError, check_players, register_event_type

#: A card's id (its QR payload is ``duel:`` + id).
ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
#: A card id (``punch``) or one copy of it (``punch#2``).
CARD_RE = re.compile(ID_RE.pattern + r"(#[0-9]{1,2})?")
MAX_REASON = 200
MAX_CARDS = 200
MOVES = ("discard", "destroy", "trash", "limbo", "bottom", "pool")


def _card(e: dict[str, Any], name: str, optional: bool = False) -> None:
    v = e.get(name)
    if optional and v is None:
        return
    if not isinstance(v, str) or not CARD_RE.fullmatch(v):
        raise EventError(f"{e['type']!r} event field {name!r} must be a card id (\"punch\") or one copy of it "
                         f"(\"punch#2\"), got {v!r:.60}")


def _seat(e: dict[str, Any], optional: bool = False) -> None:
    v = e.get("seat")
    if optional and v is None:
        return
    if not is_int(v) or not 1 <= v <= 8:
        raise EventError(f"{e['type']!r} event field 'seat' must be a seat number 1 to 8, got {v!r}")


def _reason(e: dict[str, Any]) -> None:
    r = e.get("reason")
    if not isinstance(r, str) or not r.strip() or len(r) > MAX_REASON:
        raise EventError(f"{e['type']!r} event field 'reason' must say why (the card's text), 1 to {MAX_REASON} "
                         f"characters, got {r!r:.60}")


def check_new_game(e: dict[str, Any]) -> None:
    """A duel ``new_game``: two players, the challenged seat, the Hearts, the decks written in."""
    check_players(e.get("players"))
    seats = {p["seat"] for p in e["players"]}
    if len(seats) != 2:
        raise EventError(f"'new_game' event field 'players': the card duel is for 2 players, got {len(seats)}")
    if e.get("challenged", e["players"][0]["seat"]) not in seats:
        raise EventError(f"'new_game' event field 'challenged' must be one of the seats {sorted(seats)}, "
                         f"got {e.get('challenged')!r}")
    hearts = e.get("hearts", HEARTS)
    if not is_int(hearts) or not 1 <= hearts <= 10:
        raise EventError(f"'new_game' event field 'hearts' must be 1 to 10 (the same for both), got {hearts!r}")
    cards = e.get("cards")
    if not isinstance(cards, list) or not cards or len(cards) > MAX_CARDS:
        raise EventError(f"'new_game' event field 'cards' must be a list of 1 to {MAX_CARDS} cards")
    ids = set()
    for i, c in enumerate(cards):
        w = f"'new_game' event field 'cards[{i}]'"
        if not isinstance(c, dict) or not isinstance(c.get("id"), str) or "#" in c["id"] \
                or not CARD_RE.fullmatch(c["id"]):
            raise EventError(f"{w} must be a card with an id, got {c!r:.80}")
        if c["id"] in ids:
            raise EventError(f"{w}: card id {c['id']!r} is given twice")
        ids.add(c["id"])
        if c.get("seat") not in seats:
            raise EventError(f"{w}.seat must be one of the players' seats {sorted(seats)}, got {c.get('seat')!r}")
        if c.get("type") not in TYPES:
            raise EventError(f"{w}.type must be one of {', '.join(TYPES)}, got {c.get('type')!r}")
        if not is_int(c.get("copies", 1)) or not 1 <= c.get("copies", 1) <= 30:
            raise EventError(f"{w}.copies must be 1 to 30, got {c.get('copies')!r}")
        if not isinstance(c.get("name"), str) or not isinstance(c.get("effects", []), list):
            raise EventError(f"{w} must have a name and a list of effects")


def check_duel_event(e: dict[str, Any]) -> None:
    kind = e["type"]
    if kind == "duel_play":
        _card(e, "card")
        _seat(e, optional=True)
        _card(e, "target", optional=True)
        _card(e, "replace", optional=True)
        if e.get("side") is not None and e["side"] not in SIDES:
            raise EventError(f"'duel_play' event field 'side' must be \"left\" or \"right\", got {e['side']!r}")
        if "needs_met" in e and not isinstance(e["needs_met"], bool):
            raise EventError(f"'duel_play' event field 'needs_met' must be true or false, got {e['needs_met']!r}")
    elif kind == "duel_aim":
        _seat(e, optional=True)
        _card(e, "target", optional=True)
    elif kind == "duel_choose":
        _card(e, "card")
        if e.get("side") not in SIDES:
            raise EventError(f"'duel_choose' event field 'side' must be \"left\" or \"right\", got {e.get('side')!r}")
    elif kind == "duel_adjust":
        _card(e, "card")
        for name in ("attack", "defense"):
            v = e.get(name, 0)
            if not is_int(v) or not -MAX_ADJUST <= v <= MAX_ADJUST:
                raise EventError(f"'duel_adjust' event field {name!r} must be a whole number from {-MAX_ADJUST} to "
                                 f"{MAX_ADJUST}, got {v!r}")
        _reason(e)
    elif kind == "duel_move":
        _card(e, "card")
        if e.get("to") not in MOVES:
            raise EventError(f"'duel_move' event field 'to' must be one of {', '.join(MOVES)}, got {e.get('to')!r}")
        _reason(e)
    elif kind == "duel_draw":
        _seat(e, optional=True)
        if not is_int(e.get("count")) or not 1 <= e["count"] <= POOL_LIMIT:
            raise EventError(f"'duel_draw' event field 'count' must be 1 to {POOL_LIMIT}, got {e.get('count')!r}")
        _reason(e)
    elif kind == "duel_pass":
        _seat(e, optional=True)
    elif kind == "duel_concede":
        _seat(e)


for _kind in EVENT_TYPES:
    register_event_type(_kind, check_duel_event)
