"""Kipukas's state as the JSON document of ``GET /api/state`` (docs/reference/http-api.md).

Apart from :mod:`~kipukas_board.modes.kipukas.rules.state` because the document carries what other
rules modules compute from the state (the play style's standing, the edition's tables), while those
modules read the state: keeping the view here lets every one of them import the state's module and
none import each other in a circle.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.modes.kipukas.rules.state import initial_state
    >>> from kipukas_board.modes.kipukas.rules.view import state_json
    >>> doc = state_json(initial_state(load_map("kipuka-8")))
    >>> doc["phase"], doc["territories"][0]["claim"]
    ('setup', None)
"""

from __future__ import annotations

from typing import Any

from kipukas_board.modes.kipukas.rules.bouts import spent_why
from kipukas_board.modes.kipukas.rules.editions import EDITIONS
from kipukas_board.modes.kipukas.rules.guide import hill_json, next_json
from kipukas_board.modes.kipukas.rules.playstyles import player_limits, scores
from kipukas_board.modes.kipukas.rules.souls import where
from kipukas_board.modes.kipukas.rules.state import KipukasState, Soul, turn_order, waiting_stands


def state_json(state: KipukasState) -> dict[str, Any]:
    """The ``GET /api/state`` document; ``health`` is added by the runtime."""
    b = state.board
    ed = EDITIONS[state.edition]
    waiting = waiting_stands(state) if state.claim_waits or any(
        t.taker is not None for t in state.territories.values()) else {}
    return {
        "seq": state.seq,
        "map": b.to_json(),
        "players": [{"seat": p.seat, "name": p.name, "color": p.color, "affinity": p.affinity,
                     "eliminated": p.seat in state.eliminated}
                    for p in state.players],
        "territories": [
            {"number": n, "owner": t.owner, "claim": t.claim, "contention": t.contention,
             "contenders": list(state.contenders.get(n, ())), "prisoners": list(t.prisoners),
             "taker": t.taker, "waiting": waiting.get(n)}
            for n, t in sorted(state.territories.items())
        ],
        "stands": [
            {"id": sid, "kind": b.stands[sid].kind, "territory": b.stands[sid].territory,
             "occupied": st.occupied, "owner": st.owner, "downed": st.downed, "awaiting": st.awaiting}
            for sid, st in state.stands.items()
        ],
        "diel": {"cycle": state.diel_cycle, "phase": state.diel_phase, "weights": dict(state.diel_weights)},
        "phase": state.phase,
        "winner": state.winner,
        "edition": state.edition,
        "rules": {"opening": list(ed.opening), "trap_detect": sorted(ed.trap_detect),
                  "downed_movement": {str(k): v.to_json() for k, v in ed.downed.items()},
                  "capital_rule": ed.capital_rule, "capital_contention": ed.capital_contention,
                  "capital_imprisons": ed.capital_imprisons},
        "play_style": state.play_style,
        "style_options": dict(state.style_options),
        "player_limits": player_limits(b),
        "setup": {"placer": state.placer, "order": list(state.placement_order),
                  "placements": state.placements},
        "first_player": state.first_player,
        "initiative": state.initiative,
        "turn_order": list(turn_order(state)),
        "storm_exposed": list(state.storm_exposed),
        "hand": [{"stand": h.stand, "owner": h.owner} for h in state.hand],
        "scores": scores(state) if state.players else {},
        "souls_lost": {str(k): v for k, v in sorted(state.souls_lost.items())},
        "souls_defeated": {str(k): v for k, v in sorted(state.souls_defeated.items())},
        "last_roll": state.last_roll,
        "questions": list(state.questions),
        "cards": list(state.cards),
        "souls": souls_json(state),
        "last_bout": state.last_bout,
        "timers": list(state.timers),
        "problems": list(state.problems),
        "can_undo": bool(state.undo) and not state.undo[-1].expired,
        **hill_json(state),
        "next": next_json(state),
    }


def souls_json(state: KipukasState) -> list[dict[str, Any]]:
    """The souls the board knows (``souls`` in ``GET /api/state``): ``stand`` is null for one in a hand, a base camp or
    a capital (or shown and not yet bound to a token). ``attack_spent``: it attacks no more this diel cycle;
    ``attack_spent_why`` then says why, with the rule that applies (a failed blow or a failed retreat)."""
    if not state.souls:
        return []
    stands = where(state)

    def spent(s: Soul) -> bool:
        return s.failed_cycle == state.diel_cycle and not s.wasted

    return [{"id": s.id, "seat": s.seat, "code": s.code, "title": s.title, "stand": stands[s.id],
             "keal": {"tolerance": s.tolerance, "lost": s.lost}, "downed": s.downed, "wasted": s.wasted,
             "attack_spent": spent(s), "attack_spent_why": spent_why(s) if spent(s) else ""}
            for s in state.souls.values()]
