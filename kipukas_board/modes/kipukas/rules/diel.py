"""The diel cycle: the edition's fixed opening, then rolls; and what a new cycle brings.

At each new cycle, in this order: the hand is emptied (lifted tokens went into base camps), claims
whose token is still off the map are asked about, a storm exposes every soul token not inside a
capital or base camp (a bound soul loses one KEAL means, downed ones are wasted), volcanic territories
hurt and plains heal the souls the board knows (:func:`~kipukas_board.modes.kipukas.rules.souls.land_effects`),
souls loitering in an enemy capital since two cycles
ago are imprisoned, due timers are announced, and cycle-counted play styles are decided.

Loitering: the rules say a soul left in an enemy capital "for more than 1 day after arriving" is
taken prisoner. The board counts diel cycles: a soul that arrived in cycle ``c`` and is still there
when cycle ``c + 2`` begins has stayed more than one full cycle and is imprisoned.
"""

from __future__ import annotations

from kipukas_board.board.places import territory_name
from kipukas_board.modes.kipukas.rules.common import (
    ask,
    movement_stands,
    problem,
    refresh_contention,
    seat_name,
    soul_limits,
    win,
)
from kipukas_board.modes.kipukas.rules.contention import end_of_cycle, fights_continue
from kipukas_board.modes.kipukas.rules.editions import MAX_PRISONERS, edition
from kipukas_board.modes.kipukas.rules.movement import ask_vanished
from kipukas_board.modes.kipukas.rules.playstyles import cycles_winner, style
from kipukas_board.modes.kipukas.rules.souls import end_waits, land_effects, storm_damage
from kipukas_board.modes.kipukas.rules.state import KipukasState, StandState, amend
from kipukas_board.table.events import Effect


def on_roll_diel(state: KipukasState, event: dict, effects: list[Effect]) -> KipukasState:
    cycle = state.diel_cycle + 1  # in play (checks.why_not)
    if event["cycle"] != cycle:
        return problem(state, effects, f"a diel roll for cycle {event['cycle']} arrived in cycle {state.diel_cycle}"
                                       f" (rolled twice?); ignored")
    opening = edition(state.edition).opening
    fixed = cycle <= len(opening)
    if fixed and event.get("phase") not in (None, opening[cycle - 1]):
        return problem(state, effects, f"cycle {cycle} is the fixed opening's {opening[cycle - 1]} "
                                       f"({state.edition} rules open {', '.join(opening)}): the diel die is first "
                                       f"rolled for cycle {len(opening) + 1}, so a rolled {event['phase']} "
                                       f"does not count")
    phase = opening[cycle - 1] if fixed else event.get("phase")
    if phase is None:
        return problem(state, effects, f"the diel roll for cycle {cycle} has no phase")
    roll = None if fixed else event.get("roll")
    state = ask_vanished(state, effects)
    state = end_of_cycle(state, effects)
    state = end_waits(state, effects)
    state = state.evolve(diel_cycle=cycle, diel_phase=phase, storm_exposed=(), hand=())
    effects.append({"type": "diel", "cycle": cycle, "phase": phase, "roll": roll, "fixed": fixed,
                    "source": event.get("source", "fixed" if fixed else "physical")})
    for sid, (owner, _claim) in sorted(state.lifted_claims.items()):
        n = state.board.stands[sid].territory
        if not any(q.get("kind") == "claim_lost" and q.get("territory") == n for q in state.questions):
            state = ask(state, effects, "claim_lost",
                        f"{seat_name(state, owner)}'s token of {territory_name(state.board, n)} is still off {sid}: "
                        f"was the claim lost?", ["lost", "keep"], territory=n, stand=sid)
    fights_continue(state, effects)
    if phase == "storm":
        state = _storm(state, effects, cycle)
    state = land_effects(state, effects)
    state = _imprison(state, effects, cycle)
    state = _timers(state, effects, cycle)
    return _decide(state, effects, cycle)


def _storm(state: KipukasState, effects: list[Effect], cycle: int) -> KipukasState:
    board = state.board
    exposed = sorted(sid for sid, st in state.stands.items()
                     if st.occupied and st.awaiting is None and board.stands[sid].kind == "movement")
    wasted = [sid for sid in exposed if state.stands[sid].downed]
    unbound = [sid for sid in wasted if state.stands[sid].soul is None]
    if unbound:  # tokens whose soul the board does not know: counted here; bound souls below
        stands = dict(state.stands)
        lost = dict(state.souls_lost)
        for sid in unbound:
            st = stands[sid]
            stands[sid] = StandState(occupied=True, owner=st.owner, downed=True, awaiting="wasted", since=st.since)
            if st.owner is not None:
                lost[st.owner] = lost.get(st.owner, 0) + 1
        state = state.evolve(stands=stands, souls_lost=lost)
        for n in sorted({board.stands[sid].territory for sid in unbound}):  # the wasted fight no more
            state = refresh_contention(state, effects, n)
    effects.append({"type": "storm", "cycle": cycle, "exposed": exposed, "wasted": wasted})
    state = state.evolve(storm_exposed=tuple(exposed))
    state = storm_damage(state, effects, exposed)
    return soul_limits(state, effects)


def _imprison(state: KipukasState, effects: list[Effect], cycle: int) -> KipukasState:
    board = state.board
    if not edition(state.edition).capital_imprisons:
        return state
    capitals = [n for n, t in state.territories.items() if t.claim == "capital"]
    for sid in [m for n in capitals for m in movement_stands(board, n)]:
        st = state.stands[sid]
        if not st.occupied or st.owner is None or st.awaiting is not None or cycle - st.since < 2:
            continue
        spec = board.stands[sid]
        t = state.territories[spec.territory]
        if t.owner in (None, st.owner):
            continue
        if len(t.prisoners) >= MAX_PRISONERS:
            state = problem(state, effects, f"{territory_name(board, spec.territory)} already holds "
                                            f"{MAX_PRISONERS} prisoners; "
                                            f"the soul on {sid} is not imprisoned")
            continue
        territories = dict(state.territories)
        territories[spec.territory] = amend(t, prisoners=(*t.prisoners, st.owner))
        stands = dict(state.stands)
        stands[sid] = StandState(occupied=True, owner=st.owner, downed=st.downed, awaiting="imprisoned",
                                 since=st.since, soul=st.soul)
        state = state.evolve(territories=territories, stands=stands)
        effects.append({"type": "imprisoned", "territory": spec.territory, "stand": sid,
                        "prisoner_of": t.owner, "owner": st.owner})
        state = refresh_contention(state, effects, spec.territory)  # a prisoner fights no more
    return state


def _timers(state: KipukasState, effects: list[Effect], cycle: int) -> KipukasState:
    due = [t for t in state.timers if t["due"] <= cycle]
    if not due:
        return state
    for t in due:
        effects.append({"type": "timer_due", "timer": {"id": t["id"], "label": t["label"], "seat": t["seat"]}})
    return state.evolve(timers=tuple(t for t in state.timers if t["due"] > cycle))


def _decide(state: KipukasState, effects: list[Effect], cycle: int) -> KipukasState:
    ps = style(state.play_style)
    if ps.decided_by == "hill":
        hill = state.style_options.get("territory")
        need = int(state.style_options.get("cycles", 0))
        owner = state.territories[hill].owner if hill in state.territories else None
        if owner is not None and state.hill_since is not None and cycle - state.hill_since >= need:
            return win(state, effects, owner)
    elif ps.decided_by == "cycles":
        decided, winner = cycles_winner(state)
        if decided:
            return win(state, effects, winner)
    return state
