"""A card shown in Kipukas: the table records it (:mod:`kipukas_board.table.cards`), then the rules read it.

During play, a soul card binds to a soul token (:mod:`kipukas_board.modes.kipukas.rules.souls`). A
soul card (one with a Movement Range in the catalog) shown while its player holds a lifted soul token
(the latest one of that seat in ``state.hand``) emits a ``reachable`` effect: the stands that token
can reach this turn, which the lighting blinks in the player's colour. The range is the card's
``movement`` (a downed soul's: the edition's downed table), along land paths, plus water paths for a
Water dweller and tunnels for an Underground dweller (the web rules' habitats).
"""

from __future__ import annotations

from typing import Any

from kipukas_board.modes.kipukas.rules.editions import edition
from kipukas_board.modes.kipukas.rules.souls import card_shown
from kipukas_board.modes.kipukas.rules.state import KipukasState
from kipukas_board.strictjson import is_int
from kipukas_board.table.cards import record_card
from kipukas_board.table.events import Effect, Event

#: Path kinds a soul may use besides land, by the card's habitat (web rules, "Geography").
HABITAT_PATHS: dict[str, tuple[str, ...]] = {"water": ("water",), "underground": ("tunnel",)}


def apply_card(state: KipukasState, event: Event) -> tuple[KipukasState, list[Effect]]:
    """Record the card shown at the event's seat (the table's way, :func:`kipukas_board.table.cards.record_card`),
    then what it means in Kipukas: a soul card binds or waits for its token, and shows where a lifted
    soul token may go."""
    state, effects = record_card(state, event)
    card = event.get("card") or None
    state = card_shown(state, effects, event, card)
    reach = reachable_effect(state, event["seat"], card)
    if reach is not None:
        effects.append(reach)
    return state, effects


def reachable_effect(state: KipukasState, seat: int, card: dict[str, Any] | None) -> Effect | None:
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

