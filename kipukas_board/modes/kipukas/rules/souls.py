"""Souls: which soul card is which soul token, and its KEAL means, downed and wasted status.

A reed switch sees a token; a seat's camera sees a card. The board joins the two:

* a soul card (a card with a Movement Range) shown at a seat while that seat holds a lifted soul
  token binds to that token; shown with no token in the hand it *waits* (``state.soul_pending``) and
  binds to the next soul token that seat lifts or puts down (a soul entering from a base camp), until
  the diel cycle ends (:func:`end_waits`);
* a bound token carries its soul when it moves (``Lift.soul`` -> ``StandState.soul``);
* a card bound at one seat and shown at another, a soul shown for a token that carries another soul,
  or a bound soul shown for a second token, is a question (``soul_bind``), never a guess;
* the page binds, unbinds and fixes (``soul_bind``, ``soul_unbind``, ``soul_fix`` events).

KEAL means (web rules, "KEAL Means Damage, Healing, and Tolerance"): a soul loses KEAL means up to its
injury tolerance and is *downed* there ("When any card's KEAL means count reaches the last number,
they become downed"); damage beyond that falls on the Final Blow and *wastes* it ("If it applies to the
Final Blow, the card becomes wasted"). A downed soul moves by the edition's downed table: the stand
and the lifted token carrying it are marked downed, which the move inference and the reachable stands
already follow. A wasted soul is counted lost (:func:`~kipukas_board.modes.kipukas.rules.common.lose_soul`), so the
play styles that count losses need no "soul wasted" button, and its token waits to be taken off.

Example::

    >>> s = Soul("RrDC#0001", 1, "RrDC", "0001", None, "Explorer", tolerance=3, movement=1)
    >>> hurt(s, 3).downed, hurt(s, 4).wasted
    (True, True)
"""

from __future__ import annotations

from typing import Any

from kipukas_board.modes.kipukas.rules.common import ask, lose_soul, problem, refresh_contention, seat_name
from kipukas_board.modes.kipukas.rules.editions import edition
from kipukas_board.modes.kipukas.rules.state import KipukasState, Lift, Soul, amend
from kipukas_board.strictjson import is_int
from kipukas_board.table.events import Effect

#: The question asked when a binding would clash with another; its answers.
BIND_OPTIONS = ["bind", "keep"]


# -- pure helpers on one soul ------------------------------------------------------------------------
def hurt(soul: Soul, count: int) -> Soul:
    """``soul`` after losing ``count`` KEAL means (damage past the tolerance wastes it)."""
    if soul.wasted or count <= 0:
        return soul
    lost = soul.lost + count
    if lost > soul.tolerance:
        return amend(soul, lost=soul.tolerance, wasted=True, rested=0)
    return amend(soul, lost=lost, rested=0)


def healed(soul: Soul, count: int) -> Soul:
    """``soul`` after ``count`` KEAL means healed (never below none lost; a wasted soul stays wasted)."""
    if soul.wasted or count <= 0:
        return soul
    return amend(soul, lost=max(0, soul.lost - count))


def is_soul_card(card: dict[str, Any] | None) -> bool:
    """A soul (character or species) has a Movement Range; items, traps and terrain features have 0."""
    if not card:
        return False
    mv = card.get("movement")
    return is_int(mv) and mv > 0


def new_soul(state: KipukasState, seat: int, event: dict[str, Any], card: dict[str, Any]) -> Soul:
    """The record of a soul card first seen at ``seat`` (its id is ``CODE#COPY``, made unique)."""
    code = str(event.get("code") or card.get("code") or "?")
    copy = event.get("copy")
    base = f"{code}#{copy}" if copy else code
    sid, n = base, 1
    while sid in state.souls:
        n += 1
        sid = f"{base}-{n}"
    tol = card.get("injury_tolerance")
    return Soul(id=sid, seat=seat, code=code, copy=copy, serial=event.get("serial"),
                title=str(card.get("title") or code), tolerance=tol if isinstance(tol, int) and tol >= 0 else 0,
                movement=int(card.get("movement") or 0), habitat=str(card.get("habitat") or ""),
                die=str(card.get("die") or ""), archetype=str(card.get("genetic_disposition") or ""),
                motivation=str(card.get("motivation") or ""),
                brawl=str(card.get("brawl_sequence") or card.get("code") or ""))


def find_soul(state: KipukasState, event: dict[str, Any]) -> Soul | None:
    """The soul already known for the card in ``event`` (same code and copy, and serial when both
    have one)."""
    code, copy, serial = event.get("code"), event.get("copy"), event.get("serial")
    base = f"{code}#{copy}" if copy else str(code)
    sid, n = base, 1
    while sid in state.souls:  # ids are CODE#COPY, CODE#COPY-2, ... (see new_soul): no scan of every soul
        s = state.souls[sid]
        if s.code == code and s.copy == copy and (s.serial is None or serial is None or s.serial == serial):
            return s
        n += 1
        sid = f"{base}-{n}"
    return None


def where(state: KipukasState) -> dict[str, str | None]:
    """Soul id -> the stand its token stands on (None: in a hand, a base camp or a capital)."""
    out: dict[str, str | None] = dict.fromkeys(state.souls)
    for sid, st in state.stands.items():
        if st.soul is not None and st.occupied:
            out[st.soul] = sid
    return out


def soul_stand(state: KipukasState, soul_id: str) -> str | None:
    for sid, st in state.stands.items():
        if st.soul == soul_id and st.occupied:
            return sid
    return None


# -- state changes -----------------------------------------------------------------------------------
def put_soul(state: KipukasState, soul: Soul) -> KipukasState:
    """Store ``soul`` and mark the token carrying it downed or not, so movement follows its status."""
    souls = dict(state.souls)
    souls[soul.id] = soul
    state = state.evolve(souls=souls)
    return _sync_token(state, soul)


def _sync_token(state: KipukasState, soul: Soul) -> KipukasState:
    downed = soul.downed or soul.wasted
    sid = soul_stand(state, soul.id)
    if sid is not None and state.stands[sid].downed != downed:
        stands = dict(state.stands)
        stands[sid] = amend(stands[sid], downed=downed)
        state = state.evolve(stands=stands)
    if any(h.soul == soul.id and h.downed != downed for h in state.hand):
        state = state.evolve(hand=tuple(amend(h, downed=downed) if h.soul == soul.id else h for h in state.hand))
    return state


def _unbind_everywhere(state: KipukasState, soul_id: str) -> KipukasState:
    """No token carries ``soul_id`` any more (and no seat waits to bind it)."""
    if any(st.soul == soul_id for st in state.stands.values()):
        state = state.evolve(stands={sid: (amend(st, soul=None) if st.soul == soul_id else st)
                                     for sid, st in state.stands.items()})
    if any(h.soul == soul_id for h in state.hand):
        state = state.evolve(hand=tuple(amend(h, soul=None) if h.soul == soul_id else h for h in state.hand))
    if soul_id in state.soul_pending.values():
        state = state.evolve(soul_pending={k: v for k, v in state.soul_pending.items() if v != soul_id})
    return state


def _bound_elsewhere(state: KipukasState, soul_id: str, stand: str | None, lift: Lift | None) -> str | None:
    """Where else ``soul_id`` is bound, other than the token at ``stand`` or ``lift`` (a stand id)."""
    for sid, st in state.stands.items():
        if st.soul == soul_id and st.occupied and sid != stand:
            return sid
    for h in state.hand:
        if h.soul == soul_id and h is not lift:
            return h.stand
    return None


def bind_stand(state: KipukasState, effects: list[Effect], soul: Soul, sid: str, force: bool = False) -> KipukasState:
    """Bind ``soul`` to the token on ``sid``; without ``force`` a clash is asked about."""
    st = state.stands[sid]
    other = _bound_elsewhere(state, soul.id, sid, None)
    if st.soul == soul.id and other is None:
        return state  # already so
    if not force and ((st.soul is not None and st.soul != soul.id) or other is not None):
        return _ask_bind(state, effects, soul, sid, st.soul, other)
    state = _unbind_everywhere(state, soul.id)
    soul = _as_marked(state, soul, st.downed)
    old = state.stands[sid].soul
    stands = dict(state.stands)
    stands[sid] = amend(state.stands[sid], soul=soul.id)
    state = state.evolve(stands=stands)
    if old is not None and old != soul.id:
        effects.append({"type": "soul_unbound", "soul": old, "title": state.souls[old].title})
    if st.owner is not None and st.owner != soul.seat:
        soul = amend(soul, seat=st.owner)
    effects.append({"type": "soul_bound", "soul": soul.id, "title": soul.title, "seat": soul.seat, "stand": sid})
    return put_soul(state, soul)


def bind_lift(state: KipukasState, effects: list[Effect], soul: Soul, lift: Lift, force: bool = False) -> KipukasState:
    """Bind ``soul`` to the lifted token ``lift`` (it lands with it)."""
    other = _bound_elsewhere(state, soul.id, None, lift)
    if lift.soul == soul.id and other is None:
        return state  # already so
    if not force and ((lift.soul is not None and lift.soul != soul.id) or other is not None):
        return _ask_bind(state, effects, soul, lift.stand, lift.soul, other, lifted=True)
    old = lift.soul
    state = _unbind_everywhere(state, soul.id)
    soul = _as_marked(state, soul, lift.downed)
    lift = next((h for h in state.hand if h.stand == lift.stand), lift)
    state = state.evolve(hand=tuple(amend(h, soul=soul.id) if h is lift else h for h in state.hand))
    if old is not None and old != soul.id:
        effects.append({"type": "soul_unbound", "soul": old, "title": state.souls[old].title})
    effects.append({"type": "soul_bound", "soul": soul.id, "title": soul.title, "seat": soul.seat,
                    "stand": None, "lifted_from": lift.stand})
    return put_soul(state, soul)


def _as_marked(state: KipukasState, soul: Soul, downed: bool) -> Soul:
    """A soul seen for the first time on a token the players marked downed starts downed (the
    board never saw its injuries); a soul it already knows keeps its own count."""
    if downed and soul.id not in state.souls and not soul.downed:
        return amend(soul, lost=soul.tolerance)
    return soul


def marked_downed(state: KipukasState, effects: list[Effect], sid: str, downed: bool) -> KipukasState:
    """The players corrected the token on ``sid`` to downed (or not): its bound soul follows, its
    KEAL means lost set to the tolerance (or one below it)."""
    soul_id = state.stands[sid].soul
    soul = state.souls.get(soul_id) if soul_id is not None else None
    if soul is None or soul.wasted or soul.downed == downed:
        return state
    lost = soul.tolerance if downed else max(0, soul.tolerance - 1)
    effects.append({"type": "soul_keal", "soul": soul.id, "title": soul.title, "seat": soul.seat,
                    "change": soul.lost - lost, "lost": lost, "tolerance": soul.tolerance, "downed": downed,
                    "wasted": False, "cause": "fixed", "stand": sid})
    return put_soul(state, amend(soul, lost=lost))


def _ask_bind(state: KipukasState, effects: list[Effect], soul: Soul, sid: str, carried: str | None,
              other: str | None, lifted: bool = False) -> KipukasState:
    token = f"the token lifted from {sid}" if lifted else f"the token on {sid}"
    why = []
    if carried is not None and carried != soul.id:
        why.append(f"{token} is already {state.souls[carried].title}")
    if other is not None:
        why.append(f"{soul.title} is already bound to the token from {other}")
    state = put_soul(state, soul) if soul.id not in state.souls else state
    return ask(state, effects, "soul_bind",
               f"{seat_name(state, soul.seat)} showed {soul.title}, but {' and '.join(why)}: bind {soul.title} "
               f"to {token} (and unbind the other), or keep the bindings as they are?",
               list(BIND_OPTIONS), soul=soul.id, stand=sid, lifted=lifted)


def answer_bind(state: KipukasState, effects: list[Effect], q: dict[str, Any], answer: str) -> KipukasState:
    """The players said whether the asked binding holds."""
    if answer != "bind":
        return state
    soul = state.souls.get(q["soul"])
    if soul is None:
        return problem(state, effects, f"soul {q['soul']!r} is no longer known; bind it on the page")
    if q.get("lifted"):
        lift = next((h for h in state.hand if h.stand == q["stand"]), None)
        if lift is not None:
            return bind_lift(state, effects, soul, lift, force=True)
    if state.stands[q["stand"]].occupied:
        return bind_stand(state, effects, soul, q["stand"], force=True)
    return problem(state, effects, f"the token {q['stand']} was asked about has moved; bind {soul.title} on the page")


def card_shown(state: KipukasState, effects: list[Effect], event: dict[str, Any],
               card: dict[str, Any] | None) -> KipukasState:
    """A card shown at a seat's camera during play: bind it if it is a soul (see the module's text)."""
    if state.phase != "play" or not is_soul_card(card):
        return state
    assert card is not None
    seat = event["seat"]
    soul = find_soul(state, event)
    if soul is not None and soul.wasted:
        return problem(state, effects, f"seat {seat}: {soul.title} was wasted and cannot be played again "
                                       f"(undo, if that was a mistake)")
    if soul is not None and soul.seat != seat:
        return ask(state, effects, "soul_seat",
                   f"{soul.title} is {seat_name(state, soul.seat)}'s soul, but its card was shown at seat {seat}: "
                   f"whose soul is it?", [soul.seat, seat], soul=soul.id)
    if soul is None:
        soul = new_soul(state, seat, event, card)
    lift = next((h for h in reversed(state.hand) if h.owner == seat), None)
    if lift is not None:
        return bind_lift(state, effects, soul, lift)
    state = put_soul(state, soul)
    pending = dict(state.soul_pending)
    pending[seat] = soul.id
    effects.append({"type": "soul_waiting", "soul": soul.id, "title": soul.title, "seat": seat})
    return state.evolve(soul_pending=pending)


def answer_seat(state: KipukasState, effects: list[Effect], q: dict[str, Any], seat: int) -> KipukasState:
    """The players said whose soul a card shown at two seats is: the other seat's binding goes."""
    soul = state.souls.get(q["soul"])
    if soul is None or soul.seat == seat:
        return state
    state = _unbind_everywhere(state, soul.id)
    state = put_soul(state, amend(soul, seat=seat))
    pending = dict(state.soul_pending)
    pending[seat] = soul.id
    effects.append({"type": "soul_waiting", "soul": soul.id, "title": soul.title, "seat": seat})
    return state.evolve(soul_pending=pending)


def token_moved(state: KipukasState, effects: list[Effect], seat: int | None, sid: str | None = None,
                lift: Lift | None = None) -> KipukasState:
    """A token of ``seat`` was put on ``sid`` or lifted (``lift``): a soul card waiting at that seat
    binds to it."""
    if seat is None or seat not in state.soul_pending:
        return state
    soul = state.souls.get(state.soul_pending[seat])
    pending = {k: v for k, v in state.soul_pending.items() if k != seat}
    state = state.evolve(soul_pending=pending)
    if soul is None or soul.wasted:
        return state
    if lift is not None:
        return bind_lift(state, effects, soul, lift)
    assert sid is not None
    return bind_stand(state, effects, soul, sid)


def end_waits(state: KipukasState, effects: list[Effect]) -> KipukasState:
    """At a new diel cycle a soul card still waiting for its token stops waiting.

    "Shown, then played" happens within a player's turn; a card left waiting into the next cycle
    would bind to whatever token that seat moves next, maybe much later and for another soul. The
    soul stays known (the page can still bind it to a token); the seat just no longer waits.
    """
    if not state.soul_pending:
        return state
    for seat, soul_id in sorted(state.soul_pending.items()):
        soul = state.souls.get(soul_id)
        effects.append({"type": "soul_wait_ended", "soul": soul_id, "seat": seat,
                        "title": soul.title if soul is not None else soul_id})
    return state.evolve(soul_pending={})


def rest_reset(state: KipukasState, soul_id: str | None) -> KipukasState:
    """A soul that moves stops resting (plains healing starts again from nothing)."""
    if soul_id is None:
        return state
    s = state.souls.get(soul_id)
    if s is None or s.rested == 0:
        return state
    souls = dict(state.souls)
    souls[soul_id] = amend(s, rested=0)
    return state.evolve(souls=souls)


def waste(state: KipukasState, effects: list[Effect], soul: Soul, by: int | None, cause: str,
          count_loss: bool = True) -> KipukasState:
    """``soul`` is wasted: its token waits to be taken off, and it counts as a soul lost."""
    soul = amend(soul, wasted=True, lost=soul.tolerance, rested=0)
    sid = soul_stand(state, soul.id)
    if sid is not None and state.stands[sid].awaiting is None:
        stands = dict(state.stands)
        stands[sid] = amend(stands[sid], awaiting="wasted", downed=True)
        state = state.evolve(stands=stands)
    effects.append({"type": "soul_keal", "soul": soul.id, "title": soul.title, "seat": soul.seat,
                    "change": 0, "lost": soul.lost, "tolerance": soul.tolerance, "downed": False,
                    "wasted": True, "cause": cause, "stand": sid})
    state = put_soul(state, soul)
    if sid is not None:  # a token waiting to be taken off no longer counts in a fight
        state = refresh_contention(state, effects, state.board.stands[sid].territory)
    return lose_soul(state, effects, soul.seat, by) if count_loss else state


def damage(state: KipukasState, effects: list[Effect], soul: Soul, count: int, cause: str,
           by: int | None = None) -> KipukasState:
    """``soul`` loses ``count`` KEAL means (past its tolerance: wasted), reported as ``soul_keal``."""
    after = hurt(soul, count)
    if after.wasted:
        return waste(state, effects, soul, by, cause)
    effects.append({"type": "soul_keal", "soul": soul.id, "title": soul.title, "seat": soul.seat,
                    "change": -(after.lost - soul.lost), "lost": after.lost, "tolerance": after.tolerance,
                    "downed": after.downed, "wasted": False, "cause": cause, "stand": soul_stand(state, soul.id)})
    return put_soul(state, after)


def heal(state: KipukasState, effects: list[Effect], soul: Soul, count: int, cause: str) -> KipukasState:
    after = healed(soul, count)
    if after == soul:
        return state
    effects.append({"type": "soul_keal", "soul": soul.id, "title": soul.title, "seat": soul.seat,
                    "change": soul.lost - after.lost, "lost": after.lost, "tolerance": after.tolerance,
                    "downed": after.downed, "wasted": False, "cause": cause, "stand": soul_stand(state, soul.id)})
    return put_soul(state, after)


# -- the page's actions ------------------------------------------------------------------------------
def _known(state: KipukasState, effects: list[Effect], soul_id: Any, what: str) -> Soul | KipukasState:
    soul = state.souls.get(soul_id)
    if soul is None:
        known = ", ".join(state.souls) or "none yet"
        return problem(state, effects, f"{what}: no soul {soul_id!r} (known: {known})")
    return soul


def on_soul_bind(state: KipukasState, event: dict[str, Any], effects: list[Effect]) -> KipukasState:
    """Bind a soul (``soul``: a known id; or ``seat``: the card last shown there) to the token on ``stand``."""
    sid = event["stand"]
    spec = state.board.stands.get(sid)
    if spec is None or spec.kind != "movement":
        return problem(state, effects, f"bind: {sid!r} is not a movement stand of this map")
    if not state.stands[sid].occupied:
        return problem(state, effects, f"bind: no token stands on {sid}")
    if "soul" in event:
        found = _known(state, effects, event["soul"], "bind")
        if isinstance(found, KipukasState):
            return found
        soul = found
    else:
        seat = event["seat"]
        shown = next((c for c in state.cards if c.get("seat") == seat), None)
        if shown is None or not is_soul_card(shown.get("card")):
            return problem(state, effects, f"bind: the last card shown at seat {seat} is not a soul card")
        soul = find_soul(state, shown) or new_soul(state, seat, shown, shown["card"])
    if soul.wasted:
        return problem(state, effects, f"bind: {soul.title} was wasted")
    return bind_stand(state, effects, soul, sid, force=True)


def on_soul_unbind(state: KipukasState, event: dict[str, Any], effects: list[Effect]) -> KipukasState:
    found = _known(state, effects, event["soul"], "unbind")
    if isinstance(found, KipukasState):
        return found
    effects.append({"type": "soul_unbound", "soul": found.id, "title": found.title})
    return _unbind_everywhere(state, found.id)


def on_soul_fix(state: KipukasState, event: dict[str, Any], effects: list[Effect]) -> KipukasState:
    """Set a soul's KEAL means lost (``lost``), or waste it (``wasted: true``); undo takes either back."""
    found = _known(state, effects, event["soul"], "fix")
    if isinstance(found, KipukasState):
        return found
    soul = found
    if soul.wasted:
        return problem(state, effects, f"fix: {soul.title} was wasted; undo the action that wasted it instead")
    if "lost" in event:
        lost = event["lost"]
        if lost > soul.tolerance:
            return problem(state, effects, f"fix: {soul.title} tolerates {soul.tolerance} KEAL means lost, "
                                           f"not {lost}")
        if lost != soul.lost:
            cause = "fixed"
            effects.append({"type": "soul_keal", "soul": soul.id, "title": soul.title, "seat": soul.seat,
                            "change": soul.lost - lost, "lost": lost, "tolerance": soul.tolerance,
                            "downed": lost >= soul.tolerance, "wasted": False, "cause": cause,
                            "stand": soul_stand(state, soul.id)})
            soul = amend(soul, lost=lost)
            state = put_soul(state, soul)
    if event.get("wasted"):
        state = waste(state, effects, soul, event.get("by"), "fixed")
    return state


def on_soul_damage(state: KipukasState, event: dict[str, Any], effects: list[Effect]) -> KipukasState:
    """A card effect, trap or healer changed a soul's KEAL means (``count`` lost; ``healed`` back)."""
    found = _known(state, effects, event["soul"], "KEAL means")
    if isinstance(found, KipukasState):
        return found
    if found.wasted:
        return problem(state, effects, f"{found.title} was wasted")
    if event.get("healed"):
        return heal(state, effects, found, event["healed"], event.get("cause", "healed"))
    return damage(state, effects, found, event.get("count", 1), event.get("cause", "damage"), event.get("by"))


# -- what the land and the weather do at a new diel cycle --------------------------------------------
def storm_damage(state: KipukasState, effects: list[Effect], exposed: list[str]) -> KipukasState:
    """"If a soul is caught exposed during a storm they will lose one KEAL means or if they are downed
    they will be wasted": every bound soul on an exposed stand."""
    for sid in exposed:
        soul_id = state.stands[sid].soul
        soul = state.souls.get(soul_id) if soul_id is not None else None
        if soul is None or soul.wasted:
            continue
        if soul.downed:
            state = waste(state, effects, soul, None, "storm")
        else:
            state = damage(state, effects, soul, 1, "storm")
    return state


def land_effects(state: KipukasState, effects: list[Effect]) -> KipukasState:
    """At a new diel cycle, for every bound soul standing on a movement stand (not waiting to be taken
    off): a volcanic territory costs one KEAL means (volcanic dwellers are immune; a downed soul's
    damage falls on its Final Blow and wastes it); in the web edition a plains territory not in
    contention heals one KEAL means for every two cycles the soul has rested there (the 2023 book
    gives plains no healing)."""
    if not state.souls:
        return state
    board = state.board
    for sid, st in state.stands.items():  # map order: the same on every replay
        if st.soul is None or not st.occupied or st.awaiting is not None:
            continue
        soul = state.souls.get(st.soul)
        if soul is None or soul.wasted:
            continue
        n = board.stands[sid].territory
        geo = board.territories[n].geography
        if geo == "volcanic" and soul.habitat.lower() != "volcanic":
            state = damage(state, effects, soul, 1, "volcanic")
        elif geo == "plains" and edition(state.edition).plains_heal:
            if state.territories[n].contention or soul.lost == 0:
                if soul.rested:
                    state = put_soul(state, amend(soul, rested=0))
                continue
            if soul.rested + 1 >= 2:
                state = heal(state, effects, amend(soul, rested=0), 1, "plains")
            else:
                state = put_soul(state, amend(soul, rested=soul.rested + 1))
    return state
