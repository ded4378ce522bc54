"""Problems that clear themselves: the rules keep only the problems whose cause still holds.

A problem is raised as text (a rule's refusal, a card the board cannot read, an event the core loop
could not apply); :func:`settle`, called once per event by the rules' entry points, records
what caused each new one (:class:`ProblemCause`) and drops each older one once its cause is gone:

- a **refused action** (the event's only effects were problems: "nothing to undo", "no open
  question q3") is over at the next action the rules accept;
- a problem **naming a stand** ("a token was put on M6a during the night") is over when that stand
  changes again (the token was lifted or put back);
- a problem about a **seat's card** ("seat 1: unknown card frlU") is over when that seat shows
  another card;
- every problem is over when the game's clock moves on (Kipukas's **next diel cycle**;
  :attr:`Problems.problem_cycle`) or a **new game** starts.

Pure like the rules: the same journal gives the same open problems on every replay. Every game's
state settles its problems this way: the table's (:class:`kipukas_board.table.state.TableState`) and
Kipukas's own, whose rules raise most of them.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.table.state import new_table
    >>> s0 = new_table(load_map("kipuka-8"))
    >>> s1 = settle(s0, s0.with_problem("a token on M6a at night"), {"type": "stand"}, [])
    >>> s1.problems
    ('a token on M6a at night',)
    >>> s2 = settle(s1, s1, {"type": "stand", "stand": "M6a"}, [{"type": "stand", "stand": "M6a"}])
    >>> s2.problems
    ()
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from kipukas_board.board.mapfile import BoardMap, MapError

#: How many problems a state keeps (oldest dropped first); the journal keeps everything.
MAX_PROBLEMS = 50

#: Effects that say nothing was done by themselves: an event whose effects are only these did not
#: count as an accepted action (a token moved, a question opened, a problem raised).
_NOT_ACTIONS = frozenset({"problem", "stand", "question"})


class Problems(Protocol):
    """A state that keeps open problems: the table's, or a game's own that its rules raise into."""

    @property
    def board(self) -> BoardMap: ...
    @property
    def problems(self) -> tuple[str, ...]: ...
    @property
    def problem_causes(self) -> tuple[Any, ...]: ...
    @property
    def problem_cycle(self) -> int:
        """The game's clock: a problem raised before the current value is over."""
        ...

    def evolve(self, **changes: Any) -> Any: ...


_S = TypeVar("_S", bound=Problems)


@dataclass(frozen=True)
class ProblemCause:
    """What one open problem is about, and so when it is over (see the module doc)."""

    text: str
    seq: int | None  # the journal number of the event that raised it
    cycle: int  # the game's clock when it was raised (Kipukas's diel cycle)
    stands: frozenset[str] = frozenset()  # stands its text names
    refused: bool = False  # raised by an event the rules refused
    seat: int | None = None  # the seat whose card raised it

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "seq": self.seq, "cycle": self.cycle, "stands": sorted(self.stands),
                "refused": self.refused, **({"seat": self.seat} if self.seat is not None else {})}


def _named_stands(text: str, stands: Iterable[str]) -> frozenset[str]:
    return frozenset({w.strip(".,;:()'\"") for w in text.split()} & set(stands))


def open_problems(state: Problems) -> tuple[ProblemCause, ...]:
    """``state``'s causes, one per problem: a problem put in outside the rules (the core loop's "event
    N not applied") gets one that lasts until the next diel cycle."""
    causes = state.problem_causes
    if len(causes) == len(state.problems) and all(c.text == t for c, t in zip(causes, state.problems, strict=True)):
        return causes
    if len(causes) > len(state.problems) or any(c.text != t for c, t in zip(causes, state.problems, strict=False)):
        causes = ()
    made = [ProblemCause(text=t, seq=None, cycle=state.problem_cycle, stands=_named_stands(t, state.board.stands))
            for t in state.problems[len(causes):]]
    return (*causes, *made)


def _raised(before: Problems, after: Problems) -> tuple[tuple[ProblemCause, ...], list[str]]:
    """The causes ``after`` carries on from ``before`` and the problem texts the event raised.

    Within one event the list only grows (a handler appends); a state replaced whole (undo brings
    back an earlier one, a new game or another map starts afresh) carries its own list and causes.
    """
    old, now = before.problems, after.problems
    if len(now) >= len(old) and now[:len(old)] == old:
        return open_problems(before), list(now[len(old):])
    if len(now) == MAX_PROBLEMS:  # appended past the cap: the oldest few were dropped from the front
        for dropped in range(1, len(old) + 1):
            if now[:len(old) - dropped] == old[dropped:]:
                return open_problems(before)[dropped:], list(now[len(old) - dropped:])
    causes = after.problem_causes  # carried by the state that replaced it; any more were raised now
    if len(causes) <= len(now) and all(c.text == t for c, t in zip(causes, now, strict=False)):
        return causes, list(now[len(causes):])
    return (), list(now)


def settle(before: _S, after: _S, event: dict[str, Any], effects: list[dict[str, Any]],
           seq: int | None = None) -> _S:
    """``after`` (the state ``event`` made from ``before``) with each problem whose cause is gone dropped
    and the new ones' causes recorded (``state.problems`` and ``state.problem_causes`` stay aligned)."""
    if not after.problems and not after.problem_causes:
        return after  # most events: nothing open, nothing raised (replay's hot path)
    carried, new_texts = _raised(before, after)
    kinds = {str(e.get("type")) for e in effects}
    refused = bool(effects) and kinds == {"problem"}
    accepted = bool(kinds - _NOT_ACTIONS)
    moved = {str(e.get("stand")) for e in effects if e.get("type") == "stand"}
    new_game = event.get("type") == "new_game" and not refused
    card_seat = event.get("seat") if event.get("type") == "card" else None
    keep = [c for c in carried
            if not (new_game or after.problem_cycle > c.cycle or c.stands & moved or (c.refused and accepted)
                    or (card_seat is not None and c.seat == card_seat))]
    stands = after.board.stands
    for text in new_texts:
        keep.append(ProblemCause(text=text, seq=seq, cycle=after.problem_cycle, stands=_named_stands(text, stands),
                                 refused=refused, seat=card_seat))
    keep = keep[-MAX_PROBLEMS:]
    if tuple(keep) == after.problem_causes and tuple(c.text for c in keep) == after.problems:
        return after
    return after.evolve(problems=tuple(c.text for c in keep), problem_causes=tuple(keep))


def not_applied(state: _S, seq: int | None, exc: Exception) -> _S:
    """``state`` after event ``seq`` could not be applied (``exc``: why; a journaled map that no
    longer loads, or a rules bug): the journal number moves on and a problem says which event and why,
    so the board goes on and players see what it skipped. The core loop and ``kipukas-board replay``
    both skip an event this way, so a replayed journal gives the live board's state.

    Example::

        >>> from kipukas_board.board.mapfile import load_map
        >>> from kipukas_board.table.state import new_table
        >>> not_applied(new_table(load_map("kipuka-8")), 7, KeyError("play_style")).problems
        ("event 7 not applied: 'play_style'",)
    """
    why = f"its map no longer loads: {exc}" if isinstance(exc, MapError) else str(exc)
    problems = (*state.problems, f"event {seq} not applied: {why}")[-MAX_PROBLEMS:]
    return state.evolve(problems=problems) if seq is None else state.evolve(seq=seq, problems=problems)


__all__ = ["MAX_PROBLEMS", "ProblemCause", "Problems", "not_applied", "open_problems", "settle"]
