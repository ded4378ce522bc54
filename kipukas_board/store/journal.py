"""The event journal: every input, appended to SQLite before its effects go out.

The board's state is never stored, only the events; on start the state is rebuilt by replaying them.
SQLite runs in WAL mode with ``synchronous=FULL``, so once :meth:`Journal.append` has returned the
event survives a power cut or ``kill -9``.

Example::

    >>> from kipukas_board.store.journal import Journal
    >>> j = Journal(":memory:")
    >>> j.append({"type": "stand", "stand": "T1", "occupied": True})
    1
    >>> [e for _, e in j.events()]
    [{'type': 'stand', 'stand': 'T1', 'occupied': True}]
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq   INTEGER PRIMARY KEY AUTOINCREMENT,
    ts    REAL NOT NULL,            -- wall-clock seconds when journaled (for the log, never the rules)
    event TEXT NOT NULL             -- the event as JSON
);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


class JournalError(RuntimeError):
    """The journal file cannot be opened or is not a kipukas-board journal."""


class Journal:
    """An append-only log of events in one SQLite file (``":memory:"`` for tests).

    Safe to share between threads: writes are serialised by a lock.
    """

    FILENAME = "journal.sqlite"

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        self._clock = clock
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: not a usable journal ({exc})") from exc
        if mode.lower() not in ("wal", "memory"):  # some filesystems (network shares) refuse WAL quietly
            raise JournalError(f"{self.path}: the filesystem refused SQLite's WAL mode (journal_mode is {mode!r}); "
                               f"put the data directory on a local disk")
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif int(row[0]) != SCHEMA_VERSION:
            raise JournalError(f"{self.path}: journal schema {row[0]}, this version reads {SCHEMA_VERSION}")

    @classmethod
    def in_dir(cls, data_dir: str | Path) -> Journal:
        """Open (creating if needed) the journal in ``data_dir``."""
        d = Path(data_dir)
        d.mkdir(parents=True, exist_ok=True)
        return cls(d / cls.FILENAME)

    def append(self, event: dict[str, Any]) -> int:
        """Write ``event`` durably; returns its sequence number (1, 2, ...)."""
        text = json.dumps(event, separators=(",", ":"), sort_keys=True)
        with self._lock:
            cur = self._db.execute("INSERT INTO events (ts, event) VALUES (?, ?)", (self._clock(), text))
            return int(cur.lastrowid)

    def events(self, after: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(seq, event)`` in order, from just after ``after``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, event FROM events WHERE seq > ? ORDER BY seq", (after,)
            ).fetchall()
        for seq, text in rows:
            yield seq, json.loads(text)

    def rows(self, after: int = 0, limit: int | None = None) -> Iterator[tuple[int, float, dict[str, Any]]]:
        """``(seq, ts, event)``: the same as :meth:`events` with the time each was journaled; at most
        ``limit`` of them (a reader that pages through a long journal keeps its memory bounded)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, ts, event FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
                (after, -1 if limit is None else limit),
            ).fetchall()
        for seq, ts, text in rows:
            yield seq, ts, json.loads(text)

    def last_seq(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
