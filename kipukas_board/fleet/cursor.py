"""The last journaled event the broker acknowledged, kept on disk per broker and board id.

The publisher reads events from the journal and moves this cursor only when the broker has answered
PUBACK for them, so after a broker outage or a board restart it starts again just after the last
event the broker is known to hold: nothing is skipped. It is saved once a second at most while it moves; a
power cut between a PUBACK and the next save only means those events are sent again, and
consumers de-duplicate by board and sequence number.

It lives in its own SQLite file (``fleet.sqlite`` beside the journal): the journal stays the game's
alone, and a new broker (another event, another address) starts from the first event.

Example::

    >>> c = AckCursor(":memory:", "mqtt://fleet.local:1883", "table-07")
    >>> c.load()
    0
    >>> c.save(41); c.load()
    41
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS acked (
    broker   TEXT NOT NULL,
    board_id TEXT NOT NULL,
    seq      INTEGER NOT NULL,          -- the last event the broker acknowledged (0: none yet)
    PRIMARY KEY (broker, board_id)
);
"""


class AckCursor:
    FILENAME = "fleet.sqlite"

    def __init__(self, path: str | Path, broker: str, board_id: str) -> None:
        self.path = str(path)
        self.broker = broker
        self.board_id = board_id
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    @classmethod
    def in_dir(cls, data_dir: str | Path, broker: str, board_id: str) -> AckCursor:
        return cls(Path(data_dir) / cls.FILENAME, broker, board_id)

    def load(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT seq FROM acked WHERE broker = ? AND board_id = ?",
                                   (self.broker, self.board_id)).fetchone()
        return int(row[0]) if row else 0

    def save(self, seq: int) -> None:
        """Remember ``seq`` durably (returns once it is on disk)."""
        with self._lock:
            self._db.execute("INSERT INTO acked (broker, board_id, seq) VALUES (?, ?, ?) "
                             "ON CONFLICT (broker, board_id) DO UPDATE SET seq = excluded.seq",
                             (self.broker, self.board_id, seq))

    def close(self) -> None:
        with self._lock:
            self._db.close()
