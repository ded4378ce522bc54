"""The one SQLite file that holds every imported card (``cards.sqlite`` in the data directory).

Kipukas's catalog (:class:`~kipukas_board.cards.catalog.Catalog`) and the other modes' decks
(:class:`~kipukas_board.cards.mode_catalog.ModeCards`) are two views of it; this class is the one
place that opens the file, sets its durability (WAL, synchronous FULL), creates its tables, says
what to do when it cannot be opened, and serialises access (one connection, one lock), so the
board holds one connection to it, not one per view. A command that only reads opens it with
``read_only=True`` (:meth:`CardStore.read_only_in`): nothing is created, set or written.

Example::

    >>> store = CardStore(":memory:")
    >>> with store.transaction() as db:
    ...     _ = db.execute("INSERT INTO meta (key, value) VALUES ('source', 'doc')")
    >>> store.one("SELECT value FROM meta WHERE key = 'source'")
    ('doc',)
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kipukas_board.store.read_only import connect_read_only

CATALOG_FILE = "cards.sqlite"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS cards (code TEXT PRIMARY KEY, slug TEXT, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS cards_slug ON cards(slug)",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)",
    "CREATE TABLE IF NOT EXISTS mode_cards (mode TEXT NOT NULL, id TEXT NOT NULL, "
    "deck TEXT NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (mode, id))",
)


class CatalogFileError(ValueError):
    """The catalog file cannot be opened (damaged, or not SQLite)."""


class CardStore:
    """``cards.sqlite``: see the module docstring. Safe to share between threads."""

    def __init__(self, path: str | Path, read_only: bool = False) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._closed = False
        try:
            if read_only:
                self._db = self._open_read_only()
                return
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            for statement in _SCHEMA:
                self._db.execute(statement)
        except sqlite3.Error as exc:
            raise CatalogFileError(f"{self.path}: the card catalog cannot be opened ({exc}); move it aside "
                                   f"and import the catalogs again (kipukas-board catalog import)") from None

    def _open_read_only(self) -> sqlite3.Connection:
        """The file as it is, for a command that only reads (``catalog show``): nothing made or changed,
        so the Pi's first user (who may read the service's files, not write them) may run it, and
        root running it leaves no file of root's behind (:mod:`kipukas_board.store.read_only`)."""
        if not Path(self.path).is_file():
            raise CatalogFileError(f"{self.path}: no card catalog here yet; import one first "
                                   f"(kipukas-board catalog import FILE_OR_URL)")
        if not os.access(self.path, os.R_OK):
            raise CatalogFileError(f"{self.path}: this user may not read the card catalog; run the command as "
                                   f"the board's user, or as a member of its group, or with sudo")
        db = connect_read_only(self.path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # a file that is not SQLite says so here
        except sqlite3.Error:
            db.close()
            raise
        return db

    @classmethod
    def read_only_in(cls, data_dir: str | Path) -> CardStore:
        """``data_dir``'s catalog opened for reading only (the directory is never created)."""
        return cls(Path(data_dir) / CATALOG_FILE, read_only=True)

    @classmethod
    def in_dir(cls, data_dir: str | Path) -> CardStore:
        d = Path(data_dir)
        d.mkdir(parents=True, exist_ok=True)
        return cls(d / CATALOG_FILE)

    def close(self) -> None:
        """Close the file; safe to call twice (both views close the store they share)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._db.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def one(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
        """The first row ``sql`` selects, or None."""
        with self._lock:
            return self._db.execute(sql, params).fetchone()

    def all(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Every row ``sql`` selects."""
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock and one write transaction: committed when the block ends, rolled back if
        it raises, so an import is all-or-nothing. Checks inside the block see a stable file."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
