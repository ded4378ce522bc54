"""What redo may bring back: the actions undo took back, kept in the journal's database.

Undo is an event like any other, so replay rebuilds the undo stack after a restart; the actions it
took back are not state, so they are kept beside the events (:meth:`Journal.set_note
<kipukas_board.store.journal.Journal.set_note>`) and a restart still offers redo. Each one is kept
with the place it belongs after: the undo stack's top as it was right after (the map on the table
and the journal number of the newest action undo could take back next, as a string). Any action
done since, or another map on the table (picked, or given at a restart), changes that place, and the
whole offer is then stale and dropped. Redo submits the original event again, with its rolls.

Example::

    >>> from kipukas_board.store.journal import Journal
    >>> redo = RedoStack(Journal(":memory:"))
    >>> redo.push({"type": "roll_diel", "phase": "day"}, top="kipuka-8#3")
    >>> redo.ready(top="kipuka-8#3")["type"]
    'roll_diel'
    >>> redo.ready(top="kipuka-8#7") is None    # something else was done since
    True
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from kipukas_board.store.journal import Journal, JournalWriteError

log = logging.getLogger(__name__)

NOTE = "redo"
#: A place string is a map key and a journal number; anything longer in the note is not ours.
MAX_PLACE = 200
#: Undone actions kept for redo: as many as a game keeps for undo (Kipukas keeps 20; a test holds
#: the two together).
DEPTH = 20


class RedoStack:
    """The undone actions, newest last, each with the undo top it belongs after; kept in SQLite."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._lock = threading.Lock()
        kept = journal.note(NOTE)
        self._stack: list[tuple[dict[str, Any], str | None]] = []
        if isinstance(kept, list):
            for item in kept[-DEPTH:]:
                top = item.get("top") if isinstance(item, dict) else None
                if (isinstance(item, dict) and isinstance(item.get("event"), dict)
                        and isinstance(item["event"].get("type"), str)
                        and (top is None or (isinstance(top, str) and len(top) <= MAX_PLACE))):
                    self._stack.append((item["event"], top))

    def _save(self) -> None:
        self._journal.set_note(NOTE, [{"event": ev, "top": top} for ev, top in self._stack] or None)

    def ready(self, top: str | None) -> dict[str, Any] | None:
        """The action redo would do again now (None: nothing, or the offer went stale and is dropped)."""
        with self._lock:
            self._drop_stale(top)
            return dict(self._stack[-1][0]) if self._stack else None

    def take(self, top: str | None) -> tuple[dict[str, Any], list[tuple[dict[str, Any], str | None]]] | None:
        """Take the newest off for redo, if it is still ready at ``top``: the event, and the rest as
        they were (to put back if it is refused). One step, so two quick taps cannot both take it."""
        with self._lock:
            self._drop_stale(top)
            if not self._stack:
                return None
            event, _ = self._stack.pop()
            return dict(event), list(self._stack)

    def _drop_stale(self, top: str | None) -> None:
        if self._stack and self._stack[-1][1] != top:
            self._stack.clear()  # something else was done since: the undone actions no longer fit
            try:
                self._save()
            except JournalWriteError as exc:  # kept stale on disk: the next load finds it stale again
                log.error("could not drop the stale redo offer from the journal: %s", exc)

    def push(self, event: dict[str, Any], top: str | None) -> None:
        """Undo took ``event`` back, leaving ``top`` as the undo stack's top."""
        with self._lock:
            self._stack = [*self._stack, (dict(event), top)][-DEPTH:]
            self._save()

    def clear(self) -> None:
        """Nothing can be redone any more (another map was put on the table)."""
        with self._lock:
            self._stack = []
            self._save()

    def after_redo(self, rest: list[tuple[dict[str, Any], str | None]], top: str | None, done: bool) -> None:
        """The redo went through (``done``): the rest belong after the new ``top``; else put them back."""
        with self._lock:
            self._stack = [(ev, top) for ev, _ in rest] if done else [*rest]
            self._save()
