"""Setup from the sensors: capitals in placing order, then base camps round the table until each
player holds the play style's number of territories (3; King of the Hill: the capital only).

Placement ``k`` (0-based) belongs to ``placement_order[k % players]``: the first round places
capitals, later rounds base camps. Play then starts with the player who placed the capital second
(both rule books), who also holds initiative for the first day (web rules: the lower D6 roll).

Mistakes are shown, never absorbed: a token on a movement stand, a token on a territory already held,
a token lifted out of turn all become problems on the page.
"""

from __future__ import annotations

from typing import Any

from kipukas_board.board.graph import adjacent_territories
from kipukas_board.board.places import territory_name
from kipukas_board.modes.kipukas.rules.common import check_claims_win, problem, seat_name, set_claim
from kipukas_board.modes.kipukas.rules.editions import edition
from kipukas_board.modes.kipukas.rules.playstyles import style
from kipukas_board.modes.kipukas.rules.state import KipukasState, StandState
from kipukas_board.table.events import Effect


def total_placements(state: KipukasState) -> int:
    return len(state.players) * style(state.play_style).setup_claims


def placement_claim(state: KipukasState, k: int) -> str:
    return "capital" if k < len(state.players) else "base_camp"


def announce(state: KipukasState, effects: list[Effect]) -> None:
    if state.placer is not None:
        effects.append({"type": "placement", "placer": state.placer,
                        "claim": placement_claim(state, state.placements)})


def on_stand_setup(state: KipukasState, effects: list[Effect], sid: str, occupied: bool) -> KipukasState:
    spec = state.board.stands[sid]
    stands = dict(state.stands)
    old = stands[sid]
    stands[sid] = StandState(occupied=occupied, owner=old.owner if occupied else None)
    state = state.evolve(stands=stands)
    if spec.kind == "movement":
        if occupied:
            return problem(state, effects, f"{sid} is a movement stand: only capitals and base camps are placed "
                                           f"at setup (it is {seat_name(state, state.placer)}'s placement)")
        return state
    n = spec.territory
    t = state.territories[n]
    if occupied:
        if t.claim is not None:
            return problem(state, effects, f"{territory_name(state.board, n)} is already held by "
                                           f"{seat_name(state, t.owner)}; lift the extra token from {sid}")
        if state.placer is None:
            return problem(state, effects, f"one too many: setup is complete; lift the token from {sid}")
        k = state.placements
        claim = placement_claim(state, k)
        if not _adjacent_to_capitals(state, n):
            return problem(state, effects, f"{style(state.play_style).title}: players start with capitals in "
                                           f"adjacent territories; {territory_name(state.board, n)} is not next to "
                                           f"the first capital (lift the token from {sid})")
        before = len(effects)
        placed = set_claim(state, effects, n, state.placer, claim)
        if placed.territories[n].owner != state.placer:  # refused (supply): the problem is already shown
            return placed
        del effects[before:]  # re-emit below in order
        state = placed
        effects.append({"type": "claimed", "territory": n, "owner": state.placer, "claim": claim})
        k += 1
        state = state.evolve(placements=k, placed=(*state.placed, sid))
        if k >= total_placements(state):
            return start_play(state, effects)
        order = state.placement_order
        state = state.evolve(placer=order[k % len(order)])
        announce(state, effects)
        return state
    # a territory token lifted at setup: taking back the latest placement is fine, others are problems
    if t.claim is None:
        return state
    if state.placed and state.placed[-1] == sid:
        k = state.placements - 1
        territories = dict(state.territories)
        territories[n] = type(t)()
        order = state.placement_order
        state = state.evolve(territories=territories, placements=k, placed=state.placed[:-1],
                             placer=order[k % len(order)])
        effects.append({"type": "claimed", "territory": n, "owner": None, "claim": None})
        announce(state, effects)
        return state
    return problem(state, effects, f"the {t.claim.replace('_', ' ')} of {seat_name(state, t.owner)} was lifted "
                                   f"from {sid} during setup; put it back (or correct the claim on the page)")


def start_play(state: KipukasState, effects: list[Effect]) -> KipukasState:
    """Setup is complete: the fixed opening's first cycle begins."""
    order = state.placement_order
    first = order[1] if len(order) > 1 else order[0]
    phase = edition(state.edition).opening[0]
    state = state.evolve(phase="play", placer=None, first_player=first, initiative=first,
                         diel_cycle=1, diel_phase=phase, hill_since=_hill_since(state))
    effects.append({"type": "setup_complete", "first_player": first, "initiative": first})
    effects.append({"type": "diel", "cycle": 1, "phase": phase, "roll": None, "fixed": True})
    return check_claims_win(state, effects)


def _hill_since(state: KipukasState) -> Any:
    hill = state.style_options.get("territory")
    if state.play_style == "king_of_the_hill" and hill is not None and state.territories[hill].owner is not None:
        return 1
    return None


def _adjacent_to_capitals(state: KipukasState, n: int) -> bool:
    """King of the Hill (and the referee specials): "players start with only a capital in adjacent
    territories", so every capital after the first must border one already placed."""
    if style(state.play_style).setup_claims != 1:
        return True
    capitals = [m for m, t in state.territories.items() if t.claim == "capital"]
    if not capitals:
        return True
    near = adjacent_territories(state.board, n, kinds=("land", "water", "tunnel"))
    return any(m in near for m in capitals)
