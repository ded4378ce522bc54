"""The form of Creature Combat Territory's events (checked before they are journaled).

Like :mod:`kipukas_board.modes.kipukas.rules.events`, this checks *form* only (fields, types, ranges); whether an
event fits the game now (a creature already resting, a slot already filled) is the rules core's
business, which refuses it with a reason.

Example::

    >>> check_cc_event({"type": "cc_reveal", "creature": "fox-1", "seat": 1}) is None
    True
"""

from __future__ import annotations

import re
from typing import Any

from kipukas_board.modes.creature_combat.rules import BIOMES, EVENT_TYPES, MAX_ADJUST, SLOTS
from kipukas_board.strictjson import is_int
from kipukas_board.table.events import EventError, check_players, register_event_type

ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
MAX_REASON = 200
MAX_CARDS = 2000


def _id(e: dict[str, Any], name: str, what: str) -> None:
    v = e.get(name)
    if not isinstance(v, str) or not ID_RE.fullmatch(v):
        raise EventError(f"{e['type']!r} event field {name!r} must be {what} (a card id: letters, digits, "
                         f"'-', '_', '.', at most 40), got {v!r:.60}")


def _seat(e: dict[str, Any], name: str = "seat", optional: bool = False) -> None:
    if optional and e.get(name) is None:
        return
    v = e.get(name)
    if not is_int(v) or not 1 <= v <= 8:
        raise EventError(f"{e['type']!r} event field {name!r} must be a seat number 1 to 8, got {v!r}")


def _small(e: dict[str, Any], name: str) -> None:
    v = e.get(name, 0)
    if not is_int(v) or not -MAX_ADJUST <= v <= MAX_ADJUST:
        raise EventError(f"{e['type']!r} event field {name!r} must be a whole number from {-MAX_ADJUST} to "
                         f"{MAX_ADJUST}, got {v!r}")


def check_new_game(e: dict[str, Any]) -> None:
    """A creature-combat ``new_game``: players, and the decks the runtime wrote in from the catalog."""
    check_players(e.get("players"))
    seats = {p["seat"] for p in e["players"]}
    for what in ("creatures", "lands"):
        cards = e.get(what)
        if not isinstance(cards, list) or len(cards) > MAX_CARDS:
            raise EventError(f"'new_game' event field {what!r} must be a list of at most {MAX_CARDS} cards, "
                             f"got {type(cards).__name__}")
        ids = set()
        for i, c in enumerate(cards):
            w = f"'new_game' event field '{what}[{i}]'"
            if not isinstance(c, dict) or not isinstance(c.get("id"), str) or not ID_RE.fullmatch(c["id"]):
                raise EventError(f"{w} must be a card with an id, got {c!r:.80}")
            if c["id"] in ids:
                raise EventError(f"{w}: card id {c['id']!r} is given twice")
            ids.add(c["id"])
            if c.get("seat") not in seats:
                raise EventError(f"{w}.seat must be one of the players' seats {sorted(seats)}, got {c.get('seat')!r}")
            if what == "lands":
                if c.get("biome") not in BIOMES:
                    raise EventError(f"{w}.biome must be one of {', '.join(BIOMES)}, got {c.get('biome')!r}")
                continue
            for name in ("cost", "stars", "base_power"):
                if not is_int(c.get(name)):
                    raise EventError(f"{w}.{name} must be a whole number, got {c.get(name)!r}")
            b = c.get("biomes", {})
            if not isinstance(b, dict) or not all(k in BIOMES and is_int(v) for k, v in b.items()):
                raise EventError(f"{w}.biomes must map biomes to whole numbers, got {b!r:.80}")
    opts = e.get("options", {})
    if not isinstance(opts, dict) or set(opts) - {"deck_cost", "land_deck"}:
        raise EventError(f"'new_game' event field 'options' may hold deck_cost and land_deck, got {opts!r:.80}")
    for k, v in opts.items():
        if not is_int(v) or not 1 <= v <= 10000:
            raise EventError(f"'new_game' event field 'options.{k}' must be a whole number from 1 up, got {v!r}")
    if "table" in e and not isinstance(e["table"], dict):
        raise EventError(f"'new_game' event field 'table' must be the table layout object, got {e['table']!r:.60}")


def check_cc_event(e: dict[str, Any]) -> None:
    kind = e["type"]
    if kind == "cc_deal":
        _id(e, "land", "the land's id")
        if e.get("slot") is not None and (not is_int(e["slot"]) or not 1 <= e["slot"] <= SLOTS):
            raise EventError(f"'cc_deal' event field 'slot' must be a land slot 1 to {SLOTS}, got {e['slot']!r}")
    elif kind in ("cc_done", "cc_concede"):
        _seat(e)
    elif kind in ("cc_reveal", "cc_unreveal"):
        _id(e, "creature", "the creature's id")
        _seat(e, optional=True)
    elif kind == "cc_adjust":
        _id(e, "creature", "the creature's id")
        for name in ("base", "power", "rest"):
            _small(e, name)
        for name in ("support", "sacrifice"):
            if name in e and not isinstance(e[name], bool):
                raise EventError(f"'cc_adjust' event field {name!r} must be true or false, got {e[name]!r}")
        reason = e.get("reason")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
            raise EventError(f"'cc_adjust' event field 'reason' must say why (the ability), 1 to {MAX_REASON} "
                             f"characters, got {reason!r:.60}")
    elif kind == "cc_choose":
        _id(e, "creature", "the creature's id")
        _seat(e, optional=True)
        if e.get("choice") not in ("rest", "ready"):
            raise EventError(f"'cc_choose' event field 'choice' must be \"rest\" (take one rest counter off) or "
                             f"\"ready\" (returning to ready), got {e.get('choice')!r}")
    elif kind == "cc_end":
        _seat(e, "winner", optional=True)


for _kind in EVENT_TYPES:
    register_event_type(_kind, check_cc_event)
