"""Why the rules refuse an event now: one check per rule, for the core and the page alike.

:func:`why_not` answers, for a well-formed event, the one sentence saying why Kipukas's rules will not
take it in this state (``None`` when they will). The core's handlers refuse with it, and the page's
actions (:mod:`kipukas_board.modes.kipukas.actions`) ask it before they journal anything, so a
refusal reads the same wherever it comes from and a rule changes in one place (python-chess keeps
``Board.is_legal`` beside ``Board.push`` the same way).

Only what depends on the state is here; the form of an event (fields, types) is
:mod:`kipukas_board.modes.kipukas.rules.events`'s, and what an accepted event does is each
handler's.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.modes.kipukas.rules.state import initial_state
    >>> why_not(initial_state(load_map("kipuka-8")), {"type": "roll_diel"})
    'the diel die is rolled only while the game is in play (it is in setup, no game started)'
    >>> why_not(initial_state(load_map("kipuka-8")), {"type": "stand", "stand": "T1", "occupied": True}) is None
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kipukas_board.board.places import territory_name
from kipukas_board.modes.kipukas.rules.state import KipukasState

Check = Callable[[KipukasState, dict[str, Any]], "str | None"]


def why_not(state: KipukasState, event: dict[str, Any]) -> str | None:
    """Why ``event`` (well formed) may not be applied to ``state`` now, or None when it may."""
    check = _CHECKS.get(event.get("type", ""))
    return check(state, event) if check is not None else None


def in_play(state: KipukasState, what: str) -> str | None:
    """``what`` happens only during play: why not now, or None."""
    if state.phase == "play":
        return None
    started = "" if state.started else ", no game started"
    return f"{what} only while the game is in play (it is in {state.phase}{started})"


def not_playing(state: KipukasState, seat: Any, who: str = "seat") -> str | None:
    """Why ``seat`` cannot act: it is no player's (None when it is)."""
    return None if seat in state.seats else f"{who} {seat} is not playing"


def _roll_diel(state: KipukasState, event: dict[str, Any]) -> str | None:
    return in_play(state, "the diel die is rolled")


def _answer(state: KipukasState, event: dict[str, Any]) -> str | None:
    qid, answer = event.get("question"), event.get("answer")
    q = next((q for q in state.questions if q["id"] == qid), None)
    if q is None:
        return f"no open question {qid!r} (open: {', '.join(x['id'] for x in state.questions) or 'none'})"
    if answer not in q["options"] or isinstance(answer, bool):
        return f"question {qid}: answer {answer!r} is not one of {q['options']}"
    return None


def _resolve(state: KipukasState, event: dict[str, Any]) -> str | None:
    n, winner = event.get("territory"), event.get("winner")
    contenders = state.contenders.get(n)  # type: ignore[arg-type]
    return (in_play(state, "contention is resolved")
            or (f"{territory_name(state.board, n)} is not in contention" if not contenders else None)
            or (f"seat {winner} is not contending {territory_name(state.board, n)} (contenders {list(contenders)})"
                if winner not in contenders else None))  # type: ignore[operator]


def _bout(state: KipukasState, event: dict[str, Any]) -> str | None:
    n, winner, loser = event.get("territory"), event.get("winner"), event.get("loser")
    return (in_play(state, "a bout is recorded")
            or (f"bout: no territory {n} on this map" if n not in state.territories else None)
            or next((f"bout: the {who}, seat {seat}, is not playing" for who, seat in (("winner", winner),
                     ("loser", loser)) if seat not in state.seats), None)
            or (f"bout: seat {winner} cannot win a bout against itself" if winner == loser else None))


def _initiative(state: KipukasState, event: dict[str, Any]) -> str | None:
    return (in_play(state, "initiative is taken") or not_playing(state, event.get("seat"))
            or ("initiative does not apply to storm rolls; it carries over" if state.diel_phase == "storm" else None))


def _soul_lost(state: KipukasState, event: dict[str, Any]) -> str | None:
    by = event.get("by")
    return (not_playing(state, event.get("seat"))
            or (not_playing(state, by, "seat") and f"seat {by} (who defeated the soul) is not playing"
                if by is not None else None))


def _timer_start(state: KipukasState, event: dict[str, Any]) -> str | None:
    seat = event.get("seat")
    return not_playing(state, seat) if seat is not None else None


def _timer_cancel(state: KipukasState, event: dict[str, Any]) -> str | None:
    tid = event.get("timer")
    if any(t["id"] == tid for t in state.timers):
        return None
    return f"no running timer {tid!r} (running: {', '.join(t['id'] for t in state.timers) or 'none'})"


def _end_game(state: KipukasState, event: dict[str, Any]) -> str | None:
    if state.phase == "over" or not state.started:
        return "there is no game in progress to end"
    winner = event.get("winner")
    return not_playing(state, winner) if winner is not None else None


_CHECKS: dict[str, Check] = {
    "roll_diel": _roll_diel, "answer": _answer, "resolve_contention": _resolve, "bout": _bout,
    "take_initiative": _initiative, "soul_lost": _soul_lost, "timer_start": _timer_start,
    "timer_cancel": _timer_cancel, "end_game": _end_game,
    "soul_bind": lambda state, event: in_play(state, "souls are bound"),
    "soul_damage": lambda state, event: in_play(state, "KEAL means change"),
    "bout_roll": lambda state, event: in_play(state, "a bout is fought"),
}
