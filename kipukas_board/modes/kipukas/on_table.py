"""Kipukas on the table: its own state read from the table, and what it gives the table back.

The table (:class:`~kipukas_board.table.state.TableState`) holds what every game shares; while Kipukas
is played, its :attr:`~kipukas_board.table.state.TableState.mode_state` is Kipukas's
:class:`~kipukas_board.modes.kipukas.rules.state.KipukasState`, which keeps its own reading of the
shared fields (its rules read and change them together). After every event the table takes the
shared part back (:func:`shared`); while another game is played, Kipukas reads the table as a blank
game of its own (:func:`kipukas_state`). Kipukas's routes, report and mode use these; nothing outside
Kipukas's package needs them.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> table = new_kipukas_table(load_map("kipuka-8"))
    >>> table.game, kipukas_state(table).phase, table.switches["T1"]
    ('kipukas', 'setup', False)
"""

from __future__ import annotations

from typing import Any

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.modes.kipukas.rules.state import EMPTY_STAND, KipukasState, StandState, initial_state
from kipukas_board.table.state import TableState, new_table

NAME = "kipukas"
_OCCUPIED = StandState(occupied=True)


def kipukas_state(table: TableState) -> KipukasState:
    """Kipukas's state on ``table``: its own while Kipukas is played (with what the table shares as the
    table has it: the table may change it without Kipukas's rules); otherwise how Kipukas reads the
    table another game left (no game of its own, the switches, cards and problems as they are), which
    is where a Kipukas game started over a card duel begins."""
    if table.game == NAME and isinstance(table.mode_state, KipukasState):
        ks = table.mode_state
        if (ks.seq == table.seq and ks.problems is table.problems and ks.cards is table.cards
                and ks.counter == table.counter and ks.board is table.board
                and ks.problem_causes is table.problem_causes):
            return ks  # what the table shares came from Kipukas's last event (nearly always)
        # The table changed under the game (a refused map or resume, a resume's number and counter,
        # a map redrawn while the game was paused, the core loop's "not applied"): the table's word is
        # the one the rules go on from.
        return ks.evolve(board=table.board, cards=table.cards, problems=table.problems,
                         problem_causes=table.problem_causes, seq=table.seq, counter=table.counter)
    stands = {sid: _OCCUPIED if on else EMPTY_STAND for sid, on in table.switches.items()}
    return initial_state(table.board).evolve(stands=stands, cards=table.cards, problems=table.problems,
                                             problem_causes=table.problem_causes, seq=table.seq,
                                             counter=table.counter)


def shared(table: TableState, ks: KipukasState, before: KipukasState | None = None,
           moved: str | None = None, **more: Any) -> TableState:
    """``table`` with what it shares taken from Kipukas's state ``ks`` (map, switches, cards, problems,
    journal number, counter) and the fields ``more``.

    ``before``: the Kipukas state ``table`` was made from, and ``moved``: the stand the event reported.
    The switches are kept when no stand record changed and only ``moved``'s is looked at when one did
    (a reed reports one stand; the rules change other stands' records, never whether a token is on
    them): replay's hot path.
    """
    if before is not None and ks.stands is before.stands:
        switches = table.switches
    elif before is not None and moved is not None and moved in table.switches and moved in ks.stands:
        on = ks.stands[moved].occupied
        switches = table.switches if table.switches[moved] == on else {**table.switches, moved: on}
    else:
        switches = {sid: st.occupied for sid, st in ks.stands.items()}
    return table.evolve(board=ks.board, switches=switches, cards=ks.cards, problems=ks.problems,
                        problem_causes=ks.problem_causes, seq=ks.seq, counter=ks.counter, **more)


def on_table(game: KipukasState, table: TableState | None = None) -> TableState:
    """A table playing Kipukas's ``game`` (``table``'s paused game kept, if given)."""
    base = table if table is not None else new_table(game.board)
    return shared(base, game, game=NAME, mode_state=game)


def new_kipukas_table(board: BoardMap) -> TableState:
    """A fresh table on ``board``: Kipukas chosen, not started; what a board with an empty journal shows."""
    return on_table(initial_state(board))
