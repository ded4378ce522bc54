"""What every game on the table shares: the map, the switches, the cards shown, the open problems,
the journal number and which game is played (with that game's own state beside them).

The board's parts read this and nothing of a game's inside: the core loop keeps it, the page draws
its map and switches, the lights thread and the voice hand it to the game's mode
(:mod:`kipukas_board.modes`), which looks at its own typed state in :attr:`TableState.mode_state`
(Kipukas's :class:`~kipukas_board.modes.kipukas.rules.state.KipukasState`, a card duel's
``DuelState``, ...). A mode's state may keep its own reading of the same things where its rules need
more than the table knows (Kipukas's stand records say whose token it infers is on a stand, beside
whether the reed is closed); after every event the mode hands the table what it shares.

Like a game's state, a table state is never changed in place: :meth:`TableState.evolve` returns a
copy that shares every container it did not change.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> table = new_table(load_map("kipuka-8"))
    >>> table.switches["T1"], table.game, table.seq
    (False, '', 0)
    >>> table.evolve(seq=3).with_problem("seat 1: unknown card frlU").problems
    ('seat 1: unknown card frlU',)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.table.problems import MAX_PROBLEMS

_new = object.__new__
_set = object.__setattr__  # frozen: copies are built through object's own setattr


@dataclass(frozen=True)
class TableState:
    """The table now. ``seq`` is the journal number last applied; ``counter`` numbers what the games
    open (questions, timers) so ids stay unique across games."""

    board: BoardMap
    #: Every stand of the map: is a token on it (what its reed switch says).
    switches: dict[str, bool] = field(default_factory=dict)
    #: The last card shown at each seat's camera, one entry a seat, sorted by seat.
    cards: tuple[dict[str, Any], ...] = ()
    #: The open problems (each clears itself, :mod:`kipukas_board.table.problems`) and their causes.
    problems: tuple[str, ...] = ()
    problem_causes: tuple[Any, ...] = ()
    seq: int = 0
    counter: int = 0
    #: Which game is played (a name of :data:`kipukas_board.modes.MODES`).
    game: str = ""
    #: That game's own typed state.
    mode_state: Any = None
    #: The game put aside by a newer one: its whole table state (one game deep).
    paused: TableState | None = None

    def evolve(self, **changes: Any) -> TableState:
        """A copy with ``changes`` applied (containers not named are shared, not copied)."""
        if not _FIELDS.issuperset(changes):
            raise TypeError(f"TableState has no field(s) {', '.join(sorted(changes.keys() - _FIELDS))}")
        d = self.__dict__.copy()
        d.update(changes)
        new = _new(TableState)
        _set(new, "__dict__", d)
        return new

    def with_problem(self, text: str) -> TableState:
        return self.evolve(problems=(*self.problems, text)[-MAX_PROBLEMS:])

    @property
    def problem_cycle(self) -> int:
        """The game's clock (Kipukas's diel cycle), so a problem the table raises mid-game lasts as the
        game's own would; a game without one: the problems end by their causes or with a new game."""
        cycle = getattr(self.mode_state, "problem_cycle", 0)
        return cycle if isinstance(cycle, int) else 0


_FIELDS = frozenset(f.name for f in fields(TableState))


def new_table(board: BoardMap, game: str = "", mode_state: Any = None) -> TableState:
    """A table on ``board`` with no token on any stand, no card shown and no problem."""
    return TableState(board=board, switches=dict.fromkeys(board.stands, False), game=game, mode_state=mode_state)


__all__ = ["TableState", "new_table"]
