"""Opening the board's SQLite files for reading only, creating and changing nothing beside them.

The commands that only look (``journal check``, ``catalog show``) must work for whoever may read
the service's data directory, and leave it as they found it. On a Pi the directory belongs to the
service's user (mode 0750, files 0640): the first user, in its group, may read it but not write.

``mode=ro`` alone is not enough for a file in WAL mode (the journal, the card catalog). With the
board stopped there is no ``-wal`` or ``-shm`` file, and SQLite makes both to read: as the first
user that fails ("attempt to write a readonly database"), and as root it leaves two files owned by
root that stop the service writing its journal when it starts. So:

* with ``-wal`` and ``-shm`` beside the file (the board running, or stopped by a power cut), it is
  read through them with ``mode=ro``: the events committed but not yet copied into the file are seen;
* without them every committed write is in the file itself, and it is read as ``immutable`` (no
  locks, no WAL, nothing made). A board that starts writing during that read could make it see a
  torn page: the command reports a damaged file, and says so again or not when run again.

Example::

    >>> import sqlite3, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x.sqlite"
    >>> db = sqlite3.connect(path); _ = db.execute("CREATE TABLE t (a)"); db.commit(); db.close()
    >>> ro = connect_read_only(path)
    >>> ro.execute("INSERT INTO t VALUES (1)")
    Traceback (most recent call last):
    ...
    sqlite3.OperationalError: attempt to write a readonly database
    >>> ro.close(); sorted(p.name for p in path.parent.iterdir())
    ['x.sqlite']
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from pathlib import Path
from typing import Any


def read_only_uri(path: str | Path) -> str:
    """The SQLite URI that reads ``path`` without writing or creating anything (see the module)."""
    p = Path(path)
    uri = f"file:{urllib.parse.quote(str(p))}?mode=ro"
    live = Path(f"{p}-wal").exists() and Path(f"{p}-shm").exists()
    return uri if live else uri + "&immutable=1"


def connect_read_only(path: str | Path, **kwargs: Any) -> sqlite3.Connection:
    """A connection that reads ``path`` only; ``kwargs`` go to :func:`sqlite3.connect`. A missing file
    raises ``sqlite3.OperationalError`` ("unable to open database file"), as it is never created."""
    return sqlite3.connect(read_only_uri(path), uri=True, **kwargs)
