"""What redo may bring back: the actions undo took back, kept in the journal's database.

Undo is an event like any other, so replay rebuilds the undo stack after a restart; the actions it
took back are not state, so they are kept beside the events (:meth:`Journal.set_note
<kipukas_board.store.journal.Journal.set_note>`) and a restart still offers redo. Each one is kept
with the undo stack's top as it was right after (the journal number of the newest action undo could
take back next): any action done since changes that top, and the whole offer is then stale and
dropped. Redo submits the original event again, with its rolls.

Example::

    >>> from kipukas_board.store.journal import Journal
    >>> redo = RedoStack(Journal(":memory:"))
    >>> redo.push({"type": "roll_diel", "phase": "day"}, top=3)
    >>> redo.ready(top=3)["type"]
    'roll_diel'
    >>> redo.ready(top=7) is None    # something else was done since
    True
"""

from __future__ import annotations

import threading
from typing import Any

from kipukas_board.game.core import UNDO_DEPTH
from kipukas_board.store.journal import Journal

NOTE = "redo"


class RedoStack:
    """The undone actions, newest last, each with the undo top it belongs after; kept in SQLite."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._lock = threading.Lock()
        kept = journal.note(NOTE)
        self._stack: list[tuple[dict[str, Any], int | None]] = []
        if isinstance(kept, list):
            for item in kept[-UNDO_DEPTH:]:
                if (isinstance(item, dict) and isinstance(item.get("event"), dict)
                        and isinstance(item["event"].get("type"), str)
                        and (item.get("top") is None or isinstance(item.get("top"), int))):
                    self._stack.append((item["event"], item.get("top")))

    def _save(self) -> None:
        self._journal.set_note(NOTE, [{"event": ev, "top": top} for ev, top in self._stack] or None)

    def ready(self, top: int | None) -> dict[str, Any] | None:
        """The action redo would do again now (None: nothing, or the offer went stale and is dropped)."""
        with self._lock:
            if self._stack and self._stack[-1][1] != top:
                self._stack.clear()  # something else was done since: the undone actions no longer fit
                self._save()
            return dict(self._stack[-1][0]) if self._stack else None

    def push(self, event: dict[str, Any], top: int | None) -> None:
        """Undo took ``event`` back, leaving ``top`` as the undo stack's top."""
        with self._lock:
            self._stack = [*self._stack, (dict(event), top)][-UNDO_DEPTH:]
            self._save()

    def pop(self) -> list[tuple[dict[str, Any], int | None]]:
        """Take the newest off for redo; returns the rest as they were (to put back if it is refused)."""
        with self._lock:
            self._stack.pop()
            return list(self._stack)

    def clear(self) -> None:
        """Nothing can be redone any more (another map was put on the table)."""
        with self._lock:
            self._stack = []
            self._save()

    def after_redo(self, rest: list[tuple[dict[str, Any], int | None]], top: int | None, done: bool) -> None:
        """The redo went through (``done``): the rest belong after the new ``top``; else put them back."""
        with self._lock:
            self._stack = [(ev, top) for ev, _ in rest] if done else [*rest]
            self._save()
