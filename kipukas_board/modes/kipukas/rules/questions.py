"""Answers to the board's questions and players' corrections: what sensing cannot know.

Both are journaled events, so an answer given on a phone survives a restart and replays exactly.
An answer that does not fit (no such question, an option not offered) is a visible problem; the
question stays open.

Example answer and correction events::

    {"type": "answer", "question": "q3", "answer": 2}
    {"type": "correction", "target": "stand", "stand": "M4a", "owner": 1, "downed": true}
    {"type": "correction", "target": "territory", "territory": 4, "owner": 2, "claim": "base_camp"}
"""

from __future__ import annotations

from typing import Any

from kipukas_board.board.places import territory_name
from kipukas_board.modes.kipukas.rules.common import (
    check_claims_win,
    lose_soul,
    problem,
    refresh_contention,
    set_claim,
    souls_limit,
    souls_on_board,
    territory_stand_id,
)
from kipukas_board.modes.kipukas.rules.contention import answer_fight_over
from kipukas_board.modes.kipukas.rules.editions import SUPPLY
from kipukas_board.modes.kipukas.rules.souls import answer_bind, answer_seat, marked_downed, token_moved, waste
from kipukas_board.modes.kipukas.rules.state import KipukasState, StandState
from kipukas_board.table.events import Effect, refused


def on_answer(state: KipukasState, event: dict[str, Any], effects: list[Effect]) -> KipukasState:
    qid = event["question"]
    q = next(q for q in state.questions if q["id"] == qid)  # open, and the answer one of its options (checks)
    answer = event["answer"]
    state = state.evolve(questions=tuple(x for x in state.questions if x["id"] != qid))
    effects.append({"type": "answered", "question": qid, "answer": answer})
    kind = q["kind"]
    if kind == "stand_owner":
        return _set_stand_owner(state, effects, q["stand"], answer)
    if kind == "claim_owner":
        n = q["territory"]
        claim = state.territories[n].claim
        if claim is None or state.territories[n].owner != answer:
            claim = "base_camp"
        state = set_claim(state, effects, n, answer, claim, gained=state.territories[n].owner != answer)
        sid = territory_stand_id(state.board, n)
        if sid is not None and state.stands[sid].occupied:  # the token on the stand is the holder's
            state = _put_stand(state, sid, StandState(occupied=True, owner=state.territories[n].owner,
                                                      since=state.stands[sid].since))
        return state
    if kind == "fight_over":
        return answer_fight_over(state, effects, q, answer)
    if kind == "vanished":
        if answer == "wasted":
            against = q.get("against") or []
            state = lose_soul(state, effects, q["owner"], by=against[0] if len(against) == 1 else None)
        return state
    if kind == "soul_bind":
        return answer_bind(state, effects, q, answer)
    if kind == "soul_seat":
        return answer_seat(state, effects, q, answer)
    if kind == "claim_lost":
        lifted = dict(state.lifted_claims)
        if answer == "lost":
            lifted.pop(q["stand"], None)
            state = state.evolve(lifted_claims=lifted)
            return set_claim(state, effects, q["territory"], None, None)
        return state
    return problem(state, effects, f"question {qid} is of an unknown kind {kind!r}")


def on_soul_lost(state: KipukasState, event: dict[str, Any], effects: list[Effect]) -> KipukasState:
    seat, by = event["seat"], event.get("by")  # both playing (checks.why_not)
    state = lose_soul(state, effects, seat, by, int(event.get("count", 1)))
    sid = event.get("stand")
    if sid in state.stands and state.stands[sid].occupied and state.board.stands[sid].kind == "movement":
        st = state.stands[sid]
        if st.soul is not None and st.soul in state.souls and not state.souls[st.soul].wasted:
            state = waste(state, effects, state.souls[st.soul], by, "lost", count_loss=False)  # counted above
        state = _put_stand(state, sid, StandState(occupied=True, owner=st.owner, downed=st.downed,
                                                  awaiting="wasted", since=st.since, soul=st.soul))
        state = refresh_contention(state, effects, state.board.stands[sid].territory)
    return state


def _put_stand(state: KipukasState, sid: str, st: StandState) -> KipukasState:
    stands = dict(state.stands)
    stands[sid] = st
    return state.evolve(stands=stands)


def _set_stand_owner(state: KipukasState, effects: list[Effect], sid: str, owner: int | None,
                     downed: bool | None = None) -> KipukasState:
    st = state.stands[sid]
    if not st.occupied:
        return problem(state, effects, f"{sid} holds no token now; nothing to set")
    if (owner is not None and owner != st.owner and state.board.stands[sid].kind == "movement"
            and souls_on_board(state, owner) >= SUPPLY["soul"]):
        return problem(state, effects, f"seat {owner} already has all {SUPPLY['soul']} soul tokens on the map")
    state = _put_stand(state, sid, StandState(occupied=True, owner=owner, since=st.since, awaiting=st.awaiting,
                                              downed=st.downed if downed is None else downed, soul=st.soul))
    if st.soul is None and owner != st.owner and st.awaiting is None and state.board.stands[sid].kind == "movement":
        state = token_moved(state, effects, owner, sid=sid)  # its owner known now: a card waiting at that seat binds
    if owner != st.owner and state.board.stands[sid].kind == "movement":
        state = souls_limit(state, effects, sid)
    return refresh_contention(state, effects, state.board.stands[sid].territory)


def on_correction(state: KipukasState, event: dict[str, Any], effects: list[Effect]) -> KipukasState:
    owner = event.get("owner")
    if owner is not None and owner not in state.seats:
        return problem(state, effects, f"correction: seat {owner} is not playing (seats {list(state.seats)})")
    if event["target"] == "stand":
        sid = event["stand"]
        if sid not in state.stands:
            return problem(state, effects, f"correction: no stand {sid!r} on this map")
        st = state.stands[sid]
        if state.board.stands[sid].kind == "territory":
            return problem(state, effects, f"correction: {sid} is a territory stand; correct territory "
                                           f"{state.board.stands[sid].territory} instead")
        before = len(effects)
        state = _set_stand_owner(state, effects, sid, owner if "owner" in event else st.owner, event.get("downed"))
        if not refused(effects[before:]):
            if "downed" in event:  # the soul bound to the token follows
                state = marked_downed(state, effects, sid, event["downed"])
            effects.append({"type": "corrected", "stand": sid})
        return state
    n = event["territory"]
    if n not in state.territories:
        return problem(state, effects, f"correction: no territory {n} on this map")
    if state.board.territories[n].transit and owner is not None:
        return problem(state, effects,
                       f"correction: {territory_name(state.board, n)} is a transit territory and cannot be held")
    t = state.territories[n]
    new_owner = owner if "owner" in event else t.owner
    if new_owner is None:
        claim = None
    elif "claim" in event and event["claim"] is not None:
        claim = event["claim"]
    else:  # a new holder puts down their own base camp token; the same holder keeps the claim's kind
        claim = t.claim if new_owner == t.owner and t.claim else "base_camp"
    before = len(effects)
    state = set_claim(state, effects, n, new_owner, claim)
    if refused(effects[before:]):
        return state
    effects.append({"type": "corrected", "territory": n})
    return check_claims_win(state, effects)
