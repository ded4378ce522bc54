"""Play from the sensors: move inference, claims on territory stands, contention, night moves.

A reed switch only says "something is here". The board infers the rest:

* a movement stand empties: its token (and owner) goes into the *hand*, the tokens lifted and not
  yet put down;
* a stand fills within reach (the edition's
  :attr:`~kipukas_board.modes.kipukas.rules.editions.Edition.reach` path steps; a downed soul's
  edition limit) of the latest token in the hand: that token moved, and keeps its owner;
* a movement stand fills with nothing in the hand: a soul stepped out of a base camp or capital, and
  the holder of the one territory stand next to it owns it; if none or several could, a question;
* a stand fills far from every lifted token ("two far stands change together"): a question;
* a territory stand fills: a claim (base camp) for the soul that moved onto it, or, if its own token
  was only lifted and put back, the claim stands; during a fight the swap is the attacker's claim,
  followed step by step in :mod:`~kipukas_board.modes.kipukas.rules.contention`;
* a token leaves a contested territory: retreat or loss? A question.

Anything that happens at night or in a storm is flagged (``night_move``): souls do not move then.
Anything moved on the first day is flagged too (``same_day_move``): every soul on the map was played
that day, and "cards cannot be moved in the same day they were played unless stated otherwise" (a
card may allow it, so it is a problem to check, not a refusal).
"""

from __future__ import annotations

from kipukas_board.board.graph import ANY_PATH, distance
from kipukas_board.board.places import territory_name
from kipukas_board.modes.kipukas.rules.common import (
    ask,
    drop_questions,
    problem,
    refresh_contention,
    seat_name,
    set_claim,
    souls_limit,
    souls_on_board,
    territory_stand_id,
)
from kipukas_board.modes.kipukas.rules.contention import (
    attacker_token_lifted,
    attackers,
    holder_token_lifted,
    soul_onto_stand,
    tick_waits,
    token_back,
)
from kipukas_board.modes.kipukas.rules.editions import SUPPLY, edition
from kipukas_board.modes.kipukas.rules.souls import rest_reset, token_moved
from kipukas_board.modes.kipukas.rules.state import EMPTY_STAND, KipukasState, Lift, StandState
from kipukas_board.table.events import Effect

#: Tokens the hand remembers (older lifts are forgotten: they went into base camps or off the map).
HAND_SIZE = 8


def _reach(state: KipukasState, lift: Lift) -> int:
    if not lift.downed:
        return edition(state.edition).reach
    return max(row.spaces for row in edition(state.edition).downed.values())


def _take_from_hand(state: KipukasState, sid: str,
                    only: list[int] | None = None) -> tuple[Lift | None, tuple[Lift, ...]]:
    """The latest lifted token that could have reached ``sid`` (with ``only``: one of those seats'),
    and the hand without it."""
    hand = state.hand
    for i in range(len(hand) - 1, -1, -1):
        h = hand[i]
        if only is not None and h.owner not in only:
            continue
        d = distance(state.board, h.stand, sid, ANY_PATH)
        if d is not None and d <= _reach(state, h):
            return h, hand[:i] + hand[i + 1:]
    return None, hand


def _options(state: KipukasState) -> list[int]:
    return [p.seat for p in state.players if p.seat not in state.eliminated]


def on_stand_play(state: KipukasState, effects: list[Effect], sid: str, occupied: bool) -> KipukasState:
    spec = state.board.stands[sid]
    if occupied and state.diel_phase in ("night", "storm"):
        effects.append({"type": "night_move", "stand": sid, "phase": state.diel_phase})
        state = problem(state, effects, f"a token was put on {sid} during the {state.diel_phase}: souls do not "
                                        f"move at night or in a storm", quiet=True)
    waits = state.claim_waits
    if spec.kind == "movement":
        state = _fill_movement(state, effects, sid) if occupied else _lift_movement(state, effects, sid)
    else:
        state = _fill_territory(state, effects, sid) if occupied else _lift_territory(state, effects, sid)
    return tick_waits(state, effects, waits)


def _same_day(state: KipukasState, effects: list[Effect], sid: str) -> KipukasState:
    """Flag a soul moved on the first day: it was played that day (a card may allow it)."""
    if state.diel_cycle != 1:
        return state
    effects.append({"type": "same_day_move", "stand": sid, "cycle": 1})
    return problem(state, effects, f"a soul was moved to {sid} on day 1, the day it was played: cards cannot be "
                                   f"moved in the same day they were played unless a card says otherwise "
                                   f"(dismiss this if one does)", quiet=True)


def _set_stand(state: KipukasState, sid: str, st: StandState) -> KipukasState:
    stands = dict(state.stands)
    stands[sid] = st
    return state.evolve(stands=stands)


def _fill_movement(state: KipukasState, effects: list[Effect], sid: str) -> KipukasState:
    n = state.board.stands[sid].territory
    state = _same_day(state, effects, sid)
    lift, hand = _take_from_hand(state, sid)
    owner: int | None = None
    downed = False
    soul: str | None = None
    since = state.diel_cycle
    why = ""
    if lift is not None:
        owner, downed, soul = lift.owner, lift.downed, lift.soul
        if state.board.stands[lift.stand].territory == n:
            since = lift.since  # a step within the territory is no new arrival (no dodging imprisonment)
        effects.append({"type": "moved", "from": lift.stand, "to": sid, "owner": owner})
        if owner is None:
            why = f"it came from {lift.stand}, whose owner was not known"
    elif state.hand:
        far = ", ".join(h.stand for h in state.hand)
        why = f"it is too far from the token(s) lifted from {far} to be one of them"
    else:
        owners = sorted({state.territories[state.board.stands[m].territory].owner
                         for m, _ in state.board.edges(sid)
                         if state.board.stands[m].kind == "territory"} - {None})
        if len(owners) == 1:
            owner = owners[0]
        else:
            why = ("no base camp next to it could have sent it" if not owners
                   else "souls from more than one player's base camp could have stepped there")
    if owner is not None and souls_on_board(state, owner) >= SUPPLY["soul"]:
        state = problem(state, effects, f"{seat_name(state, owner)} already has all {SUPPLY['soul']} soul tokens "
                                        f"on the map; the token on {sid} cannot be theirs")
        owner, why = None, f"{seat_name(state, owner)} has no soul token left"
    stands = dict(state.stands)
    stands[sid] = StandState(occupied=True, owner=owner, downed=downed, since=since, soul=soul)
    state = state.evolve(stands=stands, hand=hand)
    if owner is None:
        state = ask(state, effects, "stand_owner", f"Whose soul token is on {sid}? ({why})",
                    _options(state), stand=sid)
    elif soul is None:  # a soul card shown at the seat before the token came down binds to it
        state = token_moved(state, effects, owner, sid=sid)
    state = souls_limit(state, effects, sid)
    return refresh_contention(state, effects, n)


def _lift_movement(state: KipukasState, effects: list[Effect], sid: str) -> KipukasState:
    n = state.board.stands[sid].territory
    st = state.stands[sid]
    state = _set_stand(state, sid, EMPTY_STAND)
    state = drop_questions(state, kind="stand_owner", stand=sid)
    if st.awaiting is not None:  # an imprisoned or wasted soul's token taken off: expected, not a move
        return refresh_contention(state, effects, n)
    stepped = attacker_token_lifted(state, effects, sid, st.owner)
    if stepped is not None:  # the second half of a claim: the soul stepped onto the waiting territory stand
        return refresh_contention(stepped, effects, n)
    was = state.contenders.get(n, ())
    contested = n if st.owner is not None and st.owner in was else None
    against = tuple(s for s in was if s != st.owner) if contested else ()
    lift = Lift(sid, st.owner, st.downed, contested, against, st.since, st.soul)
    state = rest_reset(state.evolve(hand=(*state.hand, lift)[-HAND_SIZE:]), st.soul)
    if st.soul is None:  # a soul card shown at the seat just before binds to the token lifted
        state = token_moved(state, effects, st.owner, lift=lift)
    return refresh_contention(state, effects, n)


def ask_vanished(state: KipukasState, effects: list[Effect]) -> KipukasState:
    """Tokens that left a contested territory and never came down elsewhere this cycle: retreat
    (into a base camp) or loss? The board cannot tell; the players say."""
    for lift in state.hand:
        if lift.contested is not None and lift.owner is not None:
            n = lift.contested
            state = ask(state, effects, "vanished",
                        f"{seat_name(state, lift.owner)}'s token left {lift.stand} during contention in "
                        f"{territory_name(state.board, n)} and did not come back down: did the soul retreat into a "
                        f"base camp, or was it wasted?",
                        ["retreated", "wasted"], stand=lift.stand, territory=n, owner=lift.owner,
                        against=list(lift.against))
    return state


def _fill_territory(state: KipukasState, effects: list[Effect], sid: str) -> KipukasState:
    n = state.board.stands[sid].territory
    t = state.territories[n]
    state = _set_stand(state, sid, StandState(occupied=True, owner=t.owner, since=state.diel_cycle))
    was_lifted = sid in state.lifted_claims
    if was_lifted:
        lifted = dict(state.lifted_claims)
        lifted.pop(sid)
        state = state.evolve(lifted_claims=lifted)
    if was_lifted and t.claim is not None:  # the holder's token put back, or an attacker's soul stepping on
        lift, hand = _take_from_hand(state, sid, only=attackers(state, n))
        if lift is not None:  # lift then place: a lifted soul of an attacker stepped onto the stand
            state = _same_day(state.evolve(hand=hand), effects, sid)
            effects.append({"type": "moved", "from": lift.stand, "to": sid, "owner": lift.owner})
            return soul_onto_stand(state, effects, n, lift.owner)
        return token_back(state, effects, sid)
    if t.claim is not None:
        return problem(state, effects,
                       f"{territory_name(state.board, n)} is already held by {seat_name(state, t.owner)}")
    lift, hand = _take_from_hand(state, sid)
    if lift is None and state.diel_cycle == 1:
        return problem(state, effects, f"one too many: setup is complete and no soul can claim on the first day; "
                                       f"lift the token from {sid}")
    owner = None
    if lift is not None:
        state = _same_day(state.evolve(hand=hand), effects, sid)
        owner = lift.owner
        effects.append({"type": "moved", "from": lift.stand, "to": sid, "owner": owner})
    else:
        owners = sorted({t2.owner for m, t2 in state.territories.items()
                         if t2.owner is not None and _near_holding(state, m, sid)})
        if len(owners) == 1:
            owner = owners[0]
    if owner is None:
        return ask(state, effects, "claim_owner",
                   f"Who claimed {territory_name(state.board, n)}? A token was put on {sid}.", _options(state),
                   territory=n)
    state = set_claim(state, effects, n, owner, "base_camp", gained=True)
    if state.territories[n].owner == owner:
        state = _set_stand(state, sid, StandState(occupied=True, owner=owner, since=state.diel_cycle))
    return state


def _near_holding(state: KipukasState, territory: int, sid: str) -> bool:
    ts = territory_stand_id(state.board, territory)
    if ts is None:
        return False
    d = distance(state.board, ts, sid, ANY_PATH)
    return d is not None and d <= edition(state.edition).reach


def _lift_territory(state: KipukasState, effects: list[Effect], sid: str) -> KipukasState:
    n = state.board.stands[sid].territory
    t = state.territories[n]
    state = _set_stand(state, sid, EMPTY_STAND)
    if t.claim is not None:  # the claim stands until the token comes back or players say it is lost
        lifted = dict(state.lifted_claims)
        lifted[sid] = (t.owner, t.claim)
        state = holder_token_lifted(state.evolve(lifted_claims=lifted), effects, sid)
    return state
