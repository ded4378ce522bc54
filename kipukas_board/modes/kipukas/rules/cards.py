"""The ``card`` event: a player showed a card to their seat's camera (or the simulation posted one).

The runtime (:mod:`kipukas_board.vision.desk`) parses the payload, looks the card up in the catalog
and writes what it found *into the event* before it is journaled, so the pure core needs no
database and replay gives the same state even after the catalog changes.

The state keeps the last card shown at each seat in ``state.cards`` (one entry per seat, sorted by
seat), which the page shows.

During play, a soul card binds to a soul token (:mod:`kipukas_board.modes.kipukas.rules.souls`). A soul card (one
with a Movement Range in the catalog) shown while its player holds a lifted soul token (the latest
one of that seat in ``state.hand``) emits a ``reachable`` effect: the
stands that token can reach this turn, which the lighting blinks in the player's colour. The range
is the card's ``movement`` (a downed soul's: the edition's downed table), along land paths, plus
water paths for a Water dweller and tunnels for an Underground dweller (the web rules' habitats).

Example::

    >>> from kipukas_board.modes.kipukas.rules.cards import card_event, check_card
    >>> e = card_event(1, "kpks.us/RrDC#0001?DmFz33", "RrDC", "0001", "DmFz33", {"title": "Explorer"})
    >>> check_card(e) is None
    True
"""

from __future__ import annotations

from typing import Any

from kipukas_board.modes.kipukas.rules.editions import edition
from kipukas_board.modes.kipukas.rules.events import Event, EventError, register_event_type, required_field
from kipukas_board.modes.kipukas.rules.souls import card_shown
from kipukas_board.modes.kipukas.rules.state import GameState
from kipukas_board.strictjson import is_int

#: Path kinds a soul may use besides land, by the card's habitat (web rules, "Geography").
HABITAT_PATHS: dict[str, tuple[str, ...]] = {"water": ("water",), "underground": ("tunnel",)}

Effect = dict[str, Any]


def card_event(seat: int, payload: str, code: str | None, copy: str | None = None, serial: str | None = None,
               card: dict[str, Any] | None = None, flags: list[str] | None = None,
               source: str = "camera", error: str | None = None) -> Event:
    """A card presented at ``seat``. ``card`` is the catalog record (None when it is unknown, and
    then ``error`` says why, e.g. "unknown card ABCD"); ``flags`` are things a player should check."""
    return {"type": "card", "seat": seat, "payload": payload, "code": code, "copy": copy, "serial": serial,
            "card": card, "flags": list(flags or []), "source": source, "error": error}


def _opt(e: Event, name: str, kind: type, what: str) -> None:
    if e.get(name) is not None and not isinstance(e[name], kind):
        raise EventError(f"'card' event field {name!r} must be {what} or null, got {e[name]!r}")


def check_card(e: Event) -> None:
    """Raise :class:`EventError` naming the field when a card event is malformed."""
    seat = required_field(e, "seat", int, "a seat number (1 or more)")
    if seat < 1:
        raise EventError(f"'card' event field 'seat' must be 1 or more, got {seat}")
    required_field(e, "payload", str, "the scanned text")
    for name in ("code", "copy", "serial", "error", "source"):
        _opt(e, name, str, "a string")
    _opt(e, "card", dict, "the catalog record")
    flags = e.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise EventError(f"'card' event field 'flags' must be a list of strings, got {flags!r}")


def apply_card(state: GameState, event: Event, dice: Any = None) -> tuple[GameState, list[Effect]]:
    """Record the card shown at the event's seat (replacing that seat's previous one)."""
    card = event.get("card") or None
    entry = {
        "seat": event["seat"],
        "code": event.get("code"),
        "copy": event.get("copy"),
        "serial": event.get("serial"),
        "title": card.get("title") if card else None,
        "card": card,
        "known": card is not None,
        "error": event.get("error"),
        "flags": list(event.get("flags") or []),
        "seq": state.seq + 1,  # this showing: the card event's journal number when applied in journal order
    }
    cards = tuple(sorted((*(c for c in state.cards if c.get("seat") != event["seat"]), entry),
                         key=lambda c: c["seat"]))
    effects: list[Effect] = [{"type": "card", "seat": event["seat"], "code": entry["code"],
                              "title": entry["title"], "known": entry["known"], "flags": entry["flags"]}]
    problems = state.problems
    if entry["error"]:
        problems = (*problems, f"seat {event['seat']}: {entry['error']}")
    for flag in entry["flags"]:
        problems = (*problems, f"seat {event['seat']}: {flag}")
    state = card_shown(state.evolve(cards=cards, problems=problems), effects, event, card)
    reach = reachable_effect(state, event["seat"], card)
    if reach is not None:
        effects.append(reach)
    return state, effects


def reachable_effect(state: GameState, seat: int, card: dict[str, Any] | None) -> Effect | None:
    """Where the soul token ``seat`` holds can go, if ``card`` is a soul and the seat holds one.

    For instance (not run as a doctest: ``state`` is a game in play, with seat 1 holding a lifted soul
    token; the Kipukas rules tests play such games):

    >>> reachable_effect(state, 1, {"movement": 2, "habitat": "Water"})    # doctest: +SKIP
    {'type': 'reachable', 'from': 'M3a', 'moves': 2, 'kinds': ['land', 'water'], 'seat': 1}
    """
    if state.phase != "play" or not card:
        return None
    movement = card.get("movement")
    if not is_int(movement) or movement <= 0:
        return None  # not a soul (items, traps, terrain features have Movement 0)
    lift = next((h for h in reversed(state.hand) if h.owner == seat), None)
    if lift is None:
        return None
    ed = edition(state.edition)
    movement = ed.movement_range(movement, str(card.get("habitat", "")))  # 2023: heavens dwellers +1
    moves = ed.downed_move(movement).spaces if lift.downed else movement
    if moves <= 0:
        return None
    kinds = ["land", *HABITAT_PATHS.get(str(card.get("habitat", "")).lower(), ())]
    return {"type": "reachable", "from": lift.stand, "moves": moves, "kinds": kinds, "seat": seat}


register_event_type("card", check_card)
