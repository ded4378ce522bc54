"""A journal as JSON lines, read back and replayed: what ``kipukas-board replay`` and the tests
rebuild a game from, exactly as the core loop folds the events.

Each line is ``{"seq": N, "ts": T, "event": {...}}`` (what ``kipukas-board export`` writes) or a bare
event. A line that is not JSON or not a well-formed event raises :class:`ReplayError` naming the
source, the line and what was wrong.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.modes import new_table
    >>> lines = ['{"seq": 1, "event": {"type": "stand", "stand": "T1", "occupied": true}}']
    >>> state = replay_events(read_lines(lines), new_table(load_map("kipuka-8")))
    >>> state.seq, state.switches["T1"]
    (1, True)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from kipukas_board.modes import apply
from kipukas_board.strictjson import is_int
from kipukas_board.table.events import EventError, check_event
from kipukas_board.table.problems import not_applied
from kipukas_board.table.state import TableState


class ReplayError(ValueError):
    """A journal line that cannot be replayed; the message names the line."""


#: ``json.loads`` without its per-call wrapper (type checks and two whitespace scans): a journal has
#: tens of thousands of short lines, and the wrapper was a tenth of a replay's time.
_decode = json.JSONDecoder().raw_decode


def read_lines(lines: Iterable[str], source: str = "<journal>") -> Iterator[tuple[int | None, dict[str, Any]]]:
    """``(seq or None, event)`` from JSON lines (``{"seq", "ts", "event"}`` or bare events)."""
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj, end = _decode(line, len(line) - len(line.lstrip()))
            if line[end:].strip():
                raise json.JSONDecodeError("extra data after the event", line, end)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"{source}, line {i}: not JSON ({exc.msg}); expected one event per line") from None
        seq = None
        if isinstance(obj, dict) and "event" in obj and "type" not in obj:
            seq = obj.get("seq")
            if seq is not None and (not is_int(seq)):
                raise ReplayError(f"{source}, line {i}: 'seq' must be a whole number, got {seq!r}")
            obj = obj["event"]
        try:
            check_event(obj)
        except EventError as exc:
            raise ReplayError(f"{source}, line {i}: {exc}") from None
        yield seq, obj


def replay_events(events: Iterable[tuple[int | None, dict[str, Any]]], start: TableState) -> TableState:
    """Fold ``events`` into ``start`` exactly as the core loop does: an event that cannot be applied (a
    map that no longer loads, a rules bug) is skipped with the same problem (:func:`not_applied`)."""
    state = start
    for seq, event in events:
        try:
            state = apply(state, event, seq=seq)[0]
        except Exception as exc:  # as the core loop: a rules bug must not stop the rebuild
            state = not_applied(state, seq, exc)
    return state
