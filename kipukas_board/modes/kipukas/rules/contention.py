"""Contention as a flow: a fight over a held territory, from the first enemy soul to an owner everyone sees.

What the rule books say (web rules and 2023 book, "Claiming Territories: Contention"), and what the
board makes of it:

* An enemy soul entering a held territory puts it in contention (web rules: except a capital whose
  owner still holds another base camp): :func:`~kipukas_board.modes.kipukas.rules.common.refresh_contention`
  follows the tokens.
* The fight lasts across days while both sides have souls there: "If their counterattack stops
  before all your souls are defeated, on the following day, you have the option to continue the
  fight or retreat". It ends when one side has no soul left in the territory (defeated, retreated or
  moved away). Each new cycle says which fights go on (``contention_continues``).
* A bout's outcome defeats souls and never moves a claim. The ``bout`` event is that outcome
  (``souls_defeated`` effect: who lost how many souls to whom, and whether the loser has any soul
  left there); ``resolve_contention`` is the page's short form, "``winner`` won the fight".
* When the holder has no soul left, the winner becomes the territory's ``taker``: "you must take the
  base camp by moving a soul onto the territory stand" (2023: "onto the base camp stand"), and
  "you move a soul into the base camp, you should replace their base camp token with your base camp
  token". On the reed switches that is two changes in **either order**: the holder's token leaves the
  territory stand and the attacker's soul token leaves its movement stand, and a token comes back
  down on the territory stand. While the board waits for the second half it lights the territory
  stand in the attacker's colour (:class:`~kipukas_board.modes.kipukas.rules.state.ClaimWait`).
* Whenever two readings are possible (no fight was won, several attackers, a token put back while
  the attacker's soul token stayed where it was) the board asks (``claim_owner``); a claim is never
  dropped or handed over in silence.

The "short window" for *place then lift* is counted in reed-switch changes (:data:`SWAP_WINDOW`),
not seconds: the core has no clock, and counting keeps a replay exact.

Example events::

    {"type": "bout", "territory": 3, "winner": 1, "loser": 2, "defeated": 1, "stand": "M3a", "cleared": true}
    {"type": "resolve_contention", "territory": 3, "winner": 1}
"""

from __future__ import annotations

from typing import Any

from kipukas_board.board.graph import ANY_PATH, distance
from kipukas_board.board.places import territory_name
from kipukas_board.modes.kipukas.rules.common import (
    ask,
    capital_protected,
    lose_soul,
    meeting,
    movement_stands,
    present_enemies,
    problem,
    refresh_contention,
    seat_name,
    set_claim,
    territory_stand_id,
)
from kipukas_board.modes.kipukas.rules.editions import edition
from kipukas_board.modes.kipukas.rules.playstyles import style
from kipukas_board.modes.kipukas.rules.souls import damage, soul_stand, waste
from kipukas_board.modes.kipukas.rules.state import ClaimWait, KipukasState, Soul, StandState, amend
from kipukas_board.table.events import Effect

#: Sensor changes a territory stand waits, after a token came back down on it, for the attacker's
#: soul token to leave its movement stand (the soul stepped onto the territory stand).
SWAP_WINDOW = 3

FIGHT_OVER_OPTIONS = ["defeated", "retreat", "continue"]


# -- who could be claiming --------------------------------------------------------------------------
def attackers(state: KipukasState, n: int) -> list[int]:
    """Seats that could be moving a soul onto territory ``n``'s stand now: the taker first, then the
    enemies contending it, then souls lifted from it mid-fight (still in the hand)."""
    t = state.territories[n]
    seats: list[int] = []
    for s in (t.taker, *state.contenders.get(n, ())[1:],
              *(h.owner for h in state.hand if h.contested == n)):
        if s is not None and s != t.owner and s not in seats:
            seats.append(s)
    return seats


def _wait_seat(state: KipukasState, n: int, seats: list[int]) -> int | None:
    taker = state.territories[n].taker
    if taker in seats:
        return taker
    return seats[0] if len(seats) == 1 else None


def _set_waits(state: KipukasState, n: int, wait: ClaimWait | None) -> KipukasState:
    waits = tuple(w for w in state.claim_waits if w.territory != n)
    return state.evolve(claim_waits=(*waits, wait) if wait is not None else waits)


def wait_for(state: KipukasState, n: int) -> ClaimWait | None:
    for w in state.claim_waits:
        if w.territory == n:
            return w
    return None


def _put(state: KipukasState, sid: str, st: StandState) -> KipukasState:
    stands = dict(state.stands)
    stands[sid] = st
    return state.evolve(stands=stands)


# -- the territory stand's token leaves and comes back ---------------------------------------------
def holder_token_lifted(state: KipukasState, effects: list[Effect], sid: str) -> KipukasState:
    """The holder's token left territory stand ``sid`` (its claim stands until the players say it
    is lost). During a fight, the stand now waits for an attacker's soul and is lit for them."""
    n = state.board.stands[sid].territory
    seats = attackers(state, n)
    if not seats:
        return _set_waits(state, n, None)
    seat = _wait_seat(state, n, seats)
    effects.append({"type": "claim_waiting", "territory": n, "stand": sid, "seat": seat, "placed": False})
    return _set_waits(state, n, ClaimWait(n, sid, seat))


def token_back(state: KipukasState, effects: list[Effect], sid: str) -> KipukasState:
    """A token came down on the held territory stand ``sid`` after the holder's token left it, and no
    lifted soul of an attacker could have stepped onto it (see :func:`soul_onto_stand` for that).
    With attackers' soul tokens still standing in the territory, this may be the first half of
    *place then lift*: wait :data:`SWAP_WINDOW` changes for one of them to be lifted."""
    n = state.board.stands[sid].territory
    t = state.territories[n]
    seats = [s for s in attackers(state, n) if s in present_enemies(state, n)]
    if not seats:
        return _set_waits(state, n, None)  # the holder's own token, put back
    seat = _wait_seat(state, n, seats)
    effects.append({"type": "claim_waiting", "territory": n, "stand": sid, "seat": seat, "placed": True})
    state = _put(state, sid, StandState(occupied=True, owner=t.owner, since=state.diel_cycle))
    return _set_waits(state, n, ClaimWait(n, sid, seat, placed=True, left=SWAP_WINDOW))


def soul_onto_stand(state: KipukasState, effects: list[Effect], n: int, seat: int | None) -> KipukasState:
    """A soul of ``seat`` (None: not known) stepped onto held territory ``n``'s stand while the holder's
    token was off it: the taker claims it; without a won fight the board cannot tell a take from a
    token put back and a soul gone elsewhere, so it asks."""
    state = _set_waits(state, n, None)
    t = state.territories[n]
    sid = territory_stand_id(state.board, n)
    if seat is not None and seat == t.taker:
        state = set_claim(state, effects, n, seat, "base_camp", gained=True)
        owner = state.territories[n].owner
        if sid is not None and state.stands[sid].occupied:
            state = _put(state, sid, StandState(occupied=True, owner=owner, since=state.diel_cycle))
        return state
    options = [seat, t.owner] if seat is not None else [s for s in _options(state) if s != t.owner] + [t.owner]
    who = seat_name(state, seat) + "'s soul" if seat is not None else "a soul"
    why = (f"{seat_name(state, t.owner)} may still have souls there (no fight in it has been won yet)"
           if t.taker is None else f"the fight there was won by {seat_name(state, t.taker)}")
    return ask(state, effects, "claim_owner",
               f"{who[:1].upper()}{who[1:]} moved onto {sid} while {seat_name(state, t.owner)}'s token was off it, "
               f"but {why}: who holds {territory_name(state.board, n)} now?", options, territory=n)


def attacker_token_lifted(state: KipukasState, effects: list[Effect], sid: str,
                          owner: int | None) -> KipukasState | None:
    """A soul token of ``owner`` left movement stand ``sid``. If a territory stand is waiting for that
    attacker (*place then lift*), the soul stepped onto it: returns the new state; else None (an
    ordinary lift, into the hand)."""
    if owner is None:
        return None
    for w in state.claim_waits:
        holder = state.territories[w.territory].owner
        if not w.placed or owner == holder or (w.seat is not None and w.seat != owner):
            continue
        d = distance(state.board, sid, w.stand, ANY_PATH)
        if state.board.stands[sid].territory == w.territory or (d is not None and d <= edition(state.edition).reach):
            effects.append({"type": "moved", "from": sid, "to": w.stand, "owner": owner})
            return soul_onto_stand(state, effects, w.territory, owner)
    return None


def tick_waits(state: KipukasState, effects: list[Effect], before: tuple[ClaimWait, ...]) -> KipukasState:
    """One more sensor change has passed: waits placed before it count down; an expired one is
    asked about (a token is on the stand, but whose?)."""
    if not state.claim_waits or not before:
        return state
    for w in state.claim_waits:
        if w.placed and w in before:
            if w.left > 1:
                state = _set_waits(state, w.territory, amend(w, left=w.left - 1))
            else:
                state = _expire(state, effects, w)
    return state


def _expire(state: KipukasState, effects: list[Effect], w: ClaimWait) -> KipukasState:
    state = _set_waits(state, w.territory, None)
    if not w.placed:
        return state  # the stand is still empty: the next roll asks whether the claim was lost
    n = w.territory
    t = state.territories[n]
    seats = [s for s in attackers(state, n) if s != t.owner] or ([w.seat] if w.seat is not None else [])
    effects.append({"type": "claim_wait_ended", "territory": n, "stand": w.stand})
    return ask(state, effects, "claim_owner",
               f"A token went back onto {w.stand} while {' and '.join(seat_name(state, s) for s in seats)} "
               f"still had a soul token in {territory_name(state.board, n)}, and none was lifted: is it "
               f"{seat_name(state, t.owner)}'s token put back, or did the attacker take the base camp?",
               [*seats, t.owner], territory=n)


def end_of_cycle(state: KipukasState, effects: list[Effect]) -> KipukasState:
    """Before a new cycle: open waits end (a token back on its stand is asked about), and a taker
    with no soul token left in the territory is a taker no more (it left without claiming)."""
    for w in state.claim_waits:
        state = _expire(state, effects, w)
    for n, t in state.territories.items():
        if t.taker is not None and t.taker not in present_enemies(state, n):
            territories = dict(state.territories)
            territories[n] = amend(t, taker=None)
            state = state.evolve(territories=territories)
            effects.append({"type": "claim_chance_ended", "territory": n, "seat": t.taker})
    return state


def fights_continue(state: KipukasState, effects: list[Effect]) -> None:
    """At a new cycle: the fights that go on ("on the following day, you have the option to continue
    the fight or retreat")."""
    for n, players in sorted(state.contenders.items()):
        effects.append({"type": "contention_continues", "territory": n, "players": list(players),
                        "cycle": state.diel_cycle})


# -- outcomes ---------------------------------------------------------------------------------------
def _options(state: KipukasState) -> list[int]:
    return [p.seat for p in state.players if p.seat not in state.eliminated]


def _waste_tokens(state: KipukasState, n: int, seat: int, only: str | None = None) -> tuple[KipukasState, list[str]]:
    """Mark ``seat``'s soul tokens in territory ``n`` (or just ``only``) defeated: they wait to be
    taken off, and taking them off is no move."""
    stands = dict(state.stands)
    wasted = []
    for sid in ([only] if only else movement_stands(state.board, n)):
        st = stands[sid]
        if st.occupied and st.owner == seat and st.awaiting is None:
            stands[sid] = amend(st, awaiting="wasted")
            wasted.append(sid)
    return (state.evolve(stands=stands) if wasted else state), wasted


def _holder_cleared(state: KipukasState, effects: list[Effect], n: int, winner: int) -> KipukasState:
    t = state.territories[n]
    territories = dict(state.territories)
    territories[n] = amend(t, taker=winner)
    state = state.evolve(territories=territories)
    sid = territory_stand_id(state.board, n)
    effects.append({"type": "claim_waiting", "territory": n, "stand": sid, "seat": winner, "placed": False,
                    "taker": True})
    return state


def _capital_refusal(state: KipukasState, n: int, winner: int) -> str | None:
    t = state.territories[n]
    if t.claim != "capital" or not capital_protected(state, t.owner, n, winner):
        return None
    if not style(state.play_style).capitals_takeable:
        why = "capitals cannot be taken in this play style"
    elif edition(state.edition).capital_rule == "all_territories":
        why = f"{seat_name(state, winner)} must first hold every other territory on the board"
    else:
        why = f"{seat_name(state, t.owner)} still holds another base camp"
    return f"{territory_name(state.board, n)} is {seat_name(state, t.owner)}'s capital and cannot be taken: {why}"


def on_resolve(state: KipukasState, event: dict[str, Any], effects: list[Effect]) -> KipukasState:
    """``winner`` won the fight over territory ``n``. The holder lost: the winner may now take the base
    camp by moving a soul onto its stand (nothing moves yet). The holder won: an attacker whose soul
    token still stands there is asked about (defeated, retreating, or fighting on tomorrow)."""
    n, winner = event["territory"], event["winner"]  # in play, in contention, a contender (checks.why_not)
    contenders = state.contenders[n]
    holder = state.territories[n].owner
    if winner != holder:
        refusal = _capital_refusal(state, n, winner)
        if refusal is not None:
            return problem(state, effects, refusal)
    effects.append({"type": "contention_resolved", "territory": n, "winner": winner})
    if winner != holder and not _soul_tokens(state, n, holder):
        state = _holder_cleared(state, effects, n, winner)
    for seat in contenders:
        if seat == winner:
            continue
        stands = _soul_tokens(state, n, seat)
        if stands:
            state = ask(state, effects, "fight_over",
                        f"{seat_name(state, winner)} won the fight in {territory_name(state.board, n)}, but "
                        f"{seat_name(state, seat)}'s "
                        f"soul token still stands on {', '.join(stands)}: were all of their souls there defeated, "
                        f"do they retreat, or did the counterattack stop and the fight goes on tomorrow?",
                        FIGHT_OVER_OPTIONS, territory=n, seat=seat, by=winner)
    return refresh_contention(state, effects, n)


def _soul_tokens(state: KipukasState, n: int, seat: int | None) -> list[str]:
    """The movement stands of territory ``n`` where a soul token of ``seat`` still stands (not one
    waiting to be taken off)."""
    return [sid for sid in movement_stands(state.board, n) if state.stands[sid].occupied
            and state.stands[sid].owner == seat and state.stands[sid].awaiting is None]


def answer_fight_over(state: KipukasState, effects: list[Effect], q: dict[str, Any], answer: str) -> KipukasState:
    """The players' word on a side whose soul tokens stood in the territory when the other side won
    the fight. When that side is the holder and it is out of the fight (defeated or retreating), the
    winner may take the base camp, as if the holder had had no soul left there."""
    n, seat = q["territory"], q["seat"]
    if answer == "continue":
        effects.append({"type": "contention_continues", "territory": n,
                        "players": list(state.contenders.get(n, ())), "cycle": state.diel_cycle})
        return state
    if answer == "defeated":
        state, wasted = _waste_tokens(state, n, seat)
        effects.append({"type": "souls_defeated", "territory": n, "seat": seat, "by": q.get("by"),
                        "count": len(wasted), "stand": None, "cleared": True})
        if wasted:
            state = lose_soul(state, effects, seat, q.get("by"), len(wasted))
    else:  # they retreat: their tokens there no longer count, and lifting them is a move
        t = state.territories[n]
        territories = dict(state.territories)
        territories[n] = amend(t, resolved=t.resolved | {seat})
        state = state.evolve(territories=territories)
    by = q.get("by")
    if seat == state.territories[n].owner and by is not None and by != seat:
        state = _holder_cleared(state, effects, n, by)
    return refresh_contention(state, effects, n)


def on_bout(state: KipukasState, event: dict[str, Any], effects: list[Effect]) -> KipukasState:
    """A bout's outcome: ``defeated`` souls of ``loser`` lost to ``winner`` in territory ``n`` (the token
    on ``stand`` waits to be taken off); ``cleared``: the loser has no soul left there. Claims never
    move here: a cleared holder makes the winner the territory's taker."""
    n, winner, loser = event["territory"], event["winner"], event["loser"]  # checked by checks.why_not
    met = meeting(state, n)
    for who, seat in (("winner", winner), ("loser", loser)):
        if seat not in met:
            return problem(state, effects, f"bout: the {who}, {seat_name(state, seat)}, has no soul in "
                                           f"{territory_name(state.board, n)} "
                                           f"(a bout is fought where enemy souls meet: seats there {sorted(met)})")
    sid = event.get("stand")
    if sid is not None:
        spec = state.board.stands.get(sid)
        st = state.stands.get(sid)
        if spec is None or spec.kind != "movement" or spec.territory != n:
            return problem(state, effects, f"bout: {sid!r} is not a movement stand of {territory_name(state.board, n)}")
        if st is None or not st.occupied or st.owner not in (loser, None) or st.awaiting is not None:
            return problem(state, effects, f"bout: {sid} holds no soul token of {seat_name(state, loser)} to take off")
    soul = None
    if "soul" in event:
        soul = state.souls.get(event["soul"])
        why, sid = _bout_soul(state, event, soul, loser, n, sid)
        if why is not None or soul is None:
            return problem(state, effects, why or "bout: no such soul")
        if not event.get("final_blow", soul.downed):  # a KEAL means bout: the soul is hurt, not defeated
            state = damage(state, effects, soul, 1, "bout", by=winner)
            return refresh_contention(state, effects, n)
    count = int(event.get("defeated", 1))
    cleared = bool(event.get("cleared", False))
    holder = state.territories[n].owner
    effects.append({"type": "souls_defeated", "territory": n, "seat": loser, "by": winner, "count": count,
                    "stand": sid, "cleared": cleared})
    if sid is not None:
        st = state.stands[sid]
        state = _put(state, sid, amend(st, owner=loser, awaiting="wasted"))
    if soul is not None:  # its Final Blow was lost: wasted (counted lost below, with the bout's count)
        state = waste(state, effects, soul, winner, "final_blow", count_loss=False)
    if cleared:
        state, _ = _waste_tokens(state, n, loser)
        if loser == holder and winner != holder:
            refusal = _capital_refusal(state, n, winner)
            if refusal is not None:
                state = problem(state, effects, refusal)
            else:
                state = _holder_cleared(state, effects, n, winner)
    if count:
        state = lose_soul(state, effects, loser, winner, count)
    return refresh_contention(state, effects, n)


def _bout_soul(state: KipukasState, event: dict[str, Any], soul: Soul | None, loser: int, n: int,
               sid: str | None) -> tuple[str | None, str | None]:
    """(why the named soul cannot have lost this bout, or None; the losing soul's stand, or None
    when it stands on none)."""
    if soul is None:
        return f"bout: no soul {event['soul']!r} is known (bind its card first)", None
    if soul.seat != loser:
        return f"bout: {soul.title} is {seat_name(state, soul.seat)}'s soul, not the loser's", None
    if soul.wasted:
        return f"bout: {soul.title} was already wasted", None
    final = event.get("final_blow", soul.downed)
    if final and not soul.downed:
        if soul.tolerance == 0:
            return (f"bout: {soul.title} has 0 KEAL means and is not downed: it fights KEAL means bouts, and the "
                    f"first it loses wastes it (the web rules' Myrthvither Raven)"), None
        return (f"bout: {soul.title} has lost {soul.lost} of {soul.tolerance} KEAL means and is not downed: "
                f"only a downed soul is engaged in a Final Blow"), None
    if not final and soul.downed:
        return f"bout: {soul.title} is downed: the next bout against it is its Final Blow", None
    at = soul_stand(state, soul.id)
    if at is not None and state.board.stands[at].territory != n:
        return f"bout: {soul.title} stands on {at}, not in {territory_name(state.board, n)}", None
    if sid is not None and at is not None and sid != at:
        return f"bout: {soul.title} stands on {at}, not on {sid}", None
    return None, (at if final else (sid or at))
