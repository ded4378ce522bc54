"""The rules core: ``apply(state, event, dice) -> (state, effects)``.

Pure: no I/O, no clock, no randomness except through ``dice`` (see :mod:`kipukas_board.game.dice`).
The same journal therefore always rebuilds the same state, on the Pi after a power cut or in a test.

*Effects* are plain dicts for the outside world (``{"type": "say", "text": ...}`` for the voice,
``{"type": "claimed", ...}`` for the log); the lights are drawn from the state itself.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.game.core import apply
    >>> from kipukas_board.game.state import initial_state
    >>> state = initial_state(load_map("kipuka-8"))            # doctest: +SKIP
    >>> state, effects = apply(state, {"type": "stand", "stand": "T1", "occupied": True})  # doctest: +SKIP
    >>> state.territories[1].claim                             # doctest: +SKIP
    'base_camp'
"""

from __future__ import annotations

from typing import Any

from kipukas_board.board.mapfile import parse_map
from kipukas_board.game.events import Event
from kipukas_board.game.state import GameState, StandState, TerritoryState, initial_state

Effect = dict[str, Any]


def apply(state: GameState, event: Event, dice: Any = None, seq: int | None = None) -> tuple[GameState, list[Effect]]:
    """Fold one checked event into ``state``. ``seq`` is the event's journal number, if journaled."""
    handler = _HANDLERS.get(event["type"])
    if handler is None:
        return state, []
    new, effects = handler(state, event, dice)
    if seq is not None:
        new = new.evolve(seq=seq)
    return new, effects


def _on_map(state: GameState, event: Event, dice: Any) -> tuple[GameState, list[Effect]]:
    board = parse_map(event["toml"], source=event["name"])
    return initial_state(board), [{"type": "map", "name": board.name}]


def _on_stand(state: GameState, event: Event, dice: Any) -> tuple[GameState, list[Effect]]:
    sid = event["stand"]
    if sid not in state.stands:
        return state.evolve(problems=(*state.problems, f"unknown stand {sid!r} reported")), []
    occupied = event["occupied"]
    stands = dict(state.stands)
    stands[sid] = StandState(occupied=occupied, owner=stands[sid].owner if occupied else None)
    effects: list[Effect] = [{"type": "stand", "stand": sid, "occupied": occupied}]
    territories = state.territories
    spec = state.board.stands[sid]
    if spec.kind == "territory":
        territories = dict(territories)
        t = territories[spec.territory]
        if occupied and t.claim is None:
            territories[spec.territory] = TerritoryState(owner=t.owner, claim="base_camp")
            effects.append({"type": "claimed", "territory": spec.territory, "owner": t.owner})
        elif not occupied and t.claim is not None:
            territories[spec.territory] = TerritoryState()
            effects.append({"type": "released", "territory": spec.territory})
    return state.evolve(stands=stands, territories=territories), effects


_HANDLERS = {
    "stand": _on_stand,
    "map": _on_map,
    "card": __import__("kipukas_board.game.cards", fromlist=["apply_card"]).apply_card,  # card scanning (issue 4)
}
