"""The rules core: ``apply(state, event) -> (state, effects)``.

Pure: no I/O, no clock, no randomness (whoever writes an event rolls its dice into it, see
:mod:`kipukas_board.modes.kipukas.rules.rolls`). The same journal therefore always rebuilds the same
state, on the Pi after a power cut or in a test.

*Effects* are semantic plain dicts for the outside world (``{"type": "diel", ...}``,
``{"type": "storm", ...}``, ``{"type": "claimed", ...}``; :mod:`kipukas_board.show` turns them into
words and light),
never phrase text; the lights are drawn from the state itself.

The rules live in modules named for what they hold: :mod:`~kipukas_board.modes.kipukas.rules.setup`,
:mod:`~kipukas_board.modes.kipukas.rules.movement`, :mod:`~kipukas_board.modes.kipukas.rules.diel`,
:mod:`~kipukas_board.modes.kipukas.rules.questions`, :mod:`~kipukas_board.modes.kipukas.rules.playstyles`,
:mod:`~kipukas_board.modes.kipukas.rules.editions`.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.modes.kipukas.rules.core import apply
    >>> from kipukas_board.modes.kipukas.rules.state import initial_state
    >>> state = initial_state(load_map("kipuka-8"))
    >>> players = [{"seat": 1, "name": "Ana", "color": "#e4572e"}, {"seat": 2, "name": "Ben", "color": "#1e90ff"}]
    >>> state, fx = apply(state, {"type": "new_game", "players": players, "edition": "web",
    ...                           "play_style": "domination", "options": {}, "first_placer": 1})
    >>> state, fx = apply(state, {"type": "stand", "stand": "T1", "occupied": True})
    >>> state.territories[1].claim, state.territories[1].owner
    ('capital', 1)
"""

from __future__ import annotations

from kipukas_board.board.mapfile import parse_map
from kipukas_board.board.places import territory_name
from kipukas_board.modes.kipukas.rules.bouts import failed_retreat, on_bout_roll
from kipukas_board.modes.kipukas.rules.cards import apply_card
from kipukas_board.modes.kipukas.rules.checks import why_not
from kipukas_board.modes.kipukas.rules.common import (
    check_claims_win,
    problem,
    refresh_all_contention,
    refresh_contention,
    win,
)
from kipukas_board.modes.kipukas.rules.contention import on_bout, on_resolve
from kipukas_board.modes.kipukas.rules.diel import on_roll_diel
from kipukas_board.modes.kipukas.rules.editions import DEFAULT_DIEL_WEIGHTS
from kipukas_board.modes.kipukas.rules.events import PLAYER_ACTIONS
from kipukas_board.modes.kipukas.rules.guide import MAX_ROLLS_TOLD
from kipukas_board.modes.kipukas.rules.movement import on_stand_play
from kipukas_board.modes.kipukas.rules.playstyles import best, body_count, style, too_many_players
from kipukas_board.modes.kipukas.rules.questions import on_answer, on_correction, on_soul_lost
from kipukas_board.modes.kipukas.rules.rolls import dice_outcome
from kipukas_board.modes.kipukas.rules.setup import announce, on_stand_setup
from kipukas_board.modes.kipukas.rules.souls import on_soul_bind, on_soul_damage, on_soul_fix, on_soul_unbind
from kipukas_board.modes.kipukas.rules.state import (
    KipukasState,
    Player,
    StandState,
    TerritoryState,
    UndoEntry,
    amend,
    changed_draft,
    draft,
    initial_state,
    seal,
)
from kipukas_board.strictjson import is_int
from kipukas_board.table.events import Effect, Event, refused
from kipukas_board.table.problems import settle

#: Player actions that can be undone, newest last.
UNDO_DEPTH = 20
#: Sensor events kept per undo entry; past this the entry can no longer be undone.
UNDO_SINCE = 200


def apply(state: KipukasState, event: Event, seq: int | None = None) -> tuple[KipukasState, list[Effect]]:
    """Fold one checked event into ``state``. ``seq`` is the event's journal number, if journaled.

    The problems whose cause the event resolved are dropped (:func:`kipukas_board.table.problems.settle`).
    """
    new, effects = _fold(state, event, seq)
    return settle(state, new, event, effects, seq), effects


def _fold(state: KipukasState, event: Event, seq: int | None = None) -> tuple[KipukasState, list[Effect]]:
    kind = event["type"]
    effects: list[Effect] = []
    if kind == "undo":
        new = _undo(state, effects)
        return (new.evolve(seq=seq) if seq is not None else new), effects
    handler = _HANDLERS.get(kind)
    if handler is None:
        return (state.evolve(seq=seq) if seq is not None else state), []
    why = why_not(state, event)  # the same check the page asks before it journals the action
    if why is not None:
        new = problem(state, effects, why)
        return (new.evolve(seq=seq) if seq is not None else new), effects
    work = draft(state)  # the handler's private copy, changed in place (see game.state.draft)
    try:
        new = handler(work, event, effects)
        changed = new is not work or changed_draft(work)
        if kind in PLAYER_ACTIONS and changed and not refused(effects):  # a refusal is no action
            entry = UndoEntry(action=kind, seq=seq, before=state.evolve(undo=()))
            return new.evolve(undo=(*state.undo, entry)[-UNDO_DEPTH:], seq=new.seq if seq is None else seq), effects
        if kind == "stand" and new.undo and not new.undo[-1].expired:
            top = new.undo[-1]
            top = (amend(top, since=(*top.since, event)) if len(top.since) < UNDO_SINCE
                   else amend(top, since=(), expired=True))
            return new.evolve(undo=(*new.undo[:-1], top), seq=new.seq if seq is None else seq), effects
        return (new.evolve(seq=seq) if seq is not None else new), effects
    finally:
        seal(work)  # also when the handler raised: no draft outlives the step


def _undo(state: KipukasState, effects: list[Effect]) -> KipukasState:
    if not state.undo:
        return problem(state, effects, "nothing to undo")
    top = state.undo[-1]
    if top.expired:
        return problem(state, effects, f"the last {top.action.replace('_', ' ')} is too far back to undo "
                                       f"(more than {UNDO_SINCE} sensor changes since)")
    # The map as it is now: one redrawn since is kept (another map would have started a fresh game).
    restored = top.before.evolve(board=state.board, undo=state.undo[:-1],
                                 counter=max(state.counter, top.before.counter))
    for ev in top.since:  # the tokens moved since then really moved: keep them, and what they settled
        restored, _ = apply(restored, ev)
    effects.append({"type": "undone", "action": top.action, "seq": top.seq})
    return restored


# -- handlers ---------------------------------------------------------------------------------------
def _on_map(state: KipukasState, event: Event, effects: list[Effect]) -> KipukasState:
    """A map file loaded at start. Redrawn only (positions, names): the game goes on, on the new
    drawing. Different stands or paths: a fresh board (the runtime refuses that mid-game)."""
    board = parse_map(event["toml"], source=event.get("path") or event["name"], new=False)
    same = board.structure() == state.board.structure()
    effects.append({"type": "map", "name": board.name, "kept": same})
    return state.evolve(board=board) if same else initial_state(board)


def _on_stand(state: KipukasState, event: Event, effects: list[Effect]) -> KipukasState:
    sid = event["stand"]
    if sid not in state.stands:
        return problem(state, effects, f"unknown stand {sid!r} reported")
    occupied = event["occupied"]
    if state.stands[sid].occupied == occupied:
        return state  # a repeat (resync) changes nothing
    effects.append({"type": "stand", "stand": sid, "occupied": occupied})
    if state.started and state.phase == "setup":
        return on_stand_setup(state, effects, sid, occupied)
    if state.phase == "play":
        return on_stand_play(state, effects, sid, occupied)
    stands = dict(state.stands)  # no game (or game over): the board only keeps track of the tokens
    stands[sid] = StandState(occupied=occupied, owner=state.stands[sid].owner if occupied else None)
    state = state.evolve(stands=stands)
    if state.started:
        return refresh_contention(state, effects, state.board.stands[sid].territory)
    return _free_claim(state, effects, sid, occupied)


def _free_claim(state: KipukasState, effects: list[Effect], sid: str, occupied: bool) -> KipukasState:
    """Before any game: a token on a territory stand marks the territory held by nobody known yet.

    This lets a board be tried out (and its lights checked) without starting a game; ``new_game``
    starts from fresh territories, so these marks never leak into a game.
    """
    spec = state.board.stands[sid]
    if spec.kind != "territory":
        return state
    t = state.territories[spec.territory]
    if occupied and t.claim is None:
        territories = dict(state.territories)
        territories[spec.territory] = TerritoryState(claim="base_camp")
        effects.append({"type": "claimed", "territory": spec.territory, "owner": None, "claim": "base_camp"})
        return state.evolve(territories=territories)
    if not occupied and t.claim is not None:
        territories = dict(state.territories)
        territories[spec.territory] = TerritoryState()
        effects.append({"type": "released", "territory": spec.territory})
        return state.evolve(territories=territories)
    return state


def _on_new_game(state: KipukasState, event: Event, effects: list[Effect]) -> KipukasState:
    board = state.board
    ps = style(event["play_style"])
    players = tuple(Player(seat=p["seat"], name=p["name"].strip(), color=p["color"].lower(),
                           affinity=p.get("affinity", "")) for p in event["players"])
    too_many = too_many_players(ps, board, len(players))
    if too_many:
        return problem(state, effects, too_many)
    opts = dict(event.get("options", {}))
    missing = [k for k in ps.needs if k not in opts]
    if missing:
        return problem(state, effects, f"{ps.title} needs option(s) {', '.join(missing)}")
    hill = opts.get("territory")
    if "territory" in ps.needs and (hill not in board.territories or board.territories[hill].transit):
        return problem(state, effects, f"{ps.title}: {territory_name(board, hill)} is not a territory that can be held "
                                       f"on {board.name!r}")
    first = event["first_placer"]
    seats = [p.seat for p in players]
    i = seats.index(first)
    order = tuple(seats[i:] + seats[:i])
    fresh = initial_state(board)
    stands = {sid: StandState(occupied=st.occupied) for sid, st in state.stands.items()}
    new = fresh.evolve(
        stands=stands, players=players, started=True, edition=event["edition"], play_style=ps.name,
        style_options=opts, diel_weights=dict(event.get("diel_weights") or DEFAULT_DIEL_WEIGHTS),
        placement_order=order, placement_rolls=_placement_rolls(event), placer=first, counter=state.counter,
    )
    effects.append({"type": "new_game", "players": seats, "edition": new.edition, "play_style": ps.name,
                    "first_placer": first, "placement_rolls": event.get("placement_rolls")})
    left = sorted(sid for sid, st in stands.items() if st.occupied)
    if left:
        new = problem(new, effects, f"tokens are still on {', '.join(left)}: clear the map before setup")
    announce(new, effects)
    return new


def _placement_rolls(event: Event) -> tuple[tuple[int, int], ...]:
    """The new game's D6 rolls for first placement, as ``(seat, roll)``; rolls of another form (the
    event does not require them) are left out rather than shown wrong."""
    rolls = event.get("placement_rolls")
    if not isinstance(rolls, list):
        return ()
    return tuple((r[0], r[1]) for r in rolls[:MAX_ROLLS_TOLD]
                 if isinstance(r, list) and len(r) == 2 and all(is_int(x) for x in r))


def _on_initiative(state: KipukasState, event: Event, effects: list[Effect]) -> KipukasState:
    seat = event["seat"]  # in play, a player's, not in a storm (checks.why_not)
    effects.append({"type": "initiative", "seat": seat})
    return state.evolve(initiative=seat)


def _on_timer_start(state: KipukasState, event: Event, effects: list[Effect]) -> KipukasState:
    seat = event.get("seat")
    n = state.counter + 1
    timer = {"id": f"t{n}", "label": event["label"].strip(), "seat": seat, "started": state.diel_cycle,
             "cycles": event["cycles"], "due": state.diel_cycle + event["cycles"]}
    effects.append({"type": "timer_started", "timer": dict(timer)})
    return state.evolve(counter=n, timers=(*state.timers, timer))


def _on_timer_cancel(state: KipukasState, event: Event, effects: list[Effect]) -> KipukasState:
    keep = tuple(t for t in state.timers if t["id"] != event["timer"])  # a running one (checks.why_not)
    effects.append({"type": "timer_cancelled", "timer": event["timer"]})
    return state.evolve(timers=keep)


def _on_dice_roll(state: KipukasState, event: Event, effects: list[Effect]) -> KipukasState:
    if event["kind"] == "rogue_path":
        sid = event["stand"]
        if sid not in state.stands:
            return problem(state, effects, f"rogue path: no stand {sid!r} on this map")
    try:
        outcome = dice_outcome(state, event)
    except (ValueError, KeyError) as exc:  # a rogue walk whose numbering does not fit the map
        return problem(state, effects, f"{event['kind'].replace('_', ' ')}: {exc}")
    effects.append(outcome)
    state = state.evolve(last_roll={k: v for k, v in outcome.items() if k != "type"})
    if event["kind"] == "retreat" and not outcome["escaped"] and event.get("souls"):
        state = failed_retreat(state, list(event["souls"]), effects)
    return state


def _on_end_game(state: KipukasState, event: Event, effects: list[Effect]) -> KipukasState:
    if "winner" in event:  # a game in progress, a playing winner (checks.why_not)
        winner = event["winner"]
    elif state.play_style == "highest_body_count":
        winner = best(body_count(state))
    else:
        winner = None
    return win(state, effects, winner)


def _on_card(state: KipukasState, event: Event, effects: list[Effect]) -> KipukasState:
    new, fx = apply_card(state, event)
    effects.extend(fx)
    return new


_HANDLERS = {
    "stand": _on_stand,
    "map": _on_map,
    "new_game": _on_new_game,
    "roll_diel": lambda s, e, fx: on_roll_diel(s, e, fx),
    "answer": lambda s, e, fx: on_answer(s, e, fx),
    "correction": lambda s, e, fx: on_correction(s, e, fx),
    "resolve_contention": on_resolve,
    "bout": on_bout,
    "soul_lost": lambda s, e, fx: on_soul_lost(s, e, fx),
    "soul_wasted": lambda s, e, fx: on_soul_lost(s, e, fx),
    "take_initiative": _on_initiative,
    "timer_start": _on_timer_start,
    "timer_cancel": _on_timer_cancel,
    "dice_roll": _on_dice_roll,
    "end_game": _on_end_game,
    "card": _on_card,
    "soul_bind": on_soul_bind,
    "soul_unbind": on_soul_unbind,
    "soul_fix": on_soul_fix,
    "soul_damage": on_soul_damage,
    "bout_roll": on_bout_roll,
}

__all__ = ["apply", "check_claims_win", "refresh_all_contention"]
