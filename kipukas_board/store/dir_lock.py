"""One process at a time changes a data directory: one running board, or ``journal restore``.

``journal restore`` moves the journal aside and puts a rebuilt one in its place. A board running
there keeps writing to the file it has open, the one moved aside, so every event after the restore
goes where nothing reads it, and its next start reports them lost. The admins' pages say to stop
the service first; this makes it a check rather than something to remember. Two boards on one
directory would each append to one journal while holding a game of its own, and start it on what the
other wrote.

``kipukas-board run`` holds an exclusive lock on its data directory for as long as it runs, and
``journal restore`` for as long as it works: a restore refuses while a board runs there, and a board
refuses to start while another board or a restore holds it. The lock is ``flock`` on the directory
itself, so nothing is added to it, and the kernel drops it when the process ends, however it ends
(``kill -9`` and a power cut included), so a stale lock cannot keep the board down.

Example::

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> with restoring(d):
    ...     pass
    >>> held = hold_while_running(d)
    >>> hold_while_running(d)
    Traceback (most recent call last):
    ...
    kipukas_board.store.dir_lock.DirectoryBusy: another board is running on ...
    >>> held.close()
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class DirectoryBusy(RuntimeError):
    """The data directory is in use by what the lock keeps apart (a board, or a restore)."""


#: What :func:`_lock` gives where the directory cannot be locked at all (see there).
UNLOCKABLE = -1


class HeldLock:
    """A lock on a directory, held until :meth:`close` (or the end of the process)."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = None if fd == UNLOCKABLE else fd

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the directory's descriptor drops the flock
            self._fd = None


def _lock(path: str | Path, how: int) -> int | None:
    """The directory's descriptor with ``how`` taken on it; None when another process holds a lock
    that excludes it; :data:`UNLOCKABLE` when the directory cannot be opened or locked at all (a file
    system without ``flock``, a directory this user may write but not read). The lock is a safety
    net: where it cannot be had, what ran before still runs."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return UNLOCKABLE
    try:
        fcntl.flock(fd, how | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except OSError:
        os.close(fd)
        return UNLOCKABLE
    return fd


def hold_while_running(path: str | Path) -> HeldLock:
    """``path`` to the running board alone until it stops.

    Raises :class:`DirectoryBusy` while another board runs there or ``journal restore`` works on it.
    """
    fd = _lock(path, fcntl.LOCK_EX)
    if fd is None:
        raise DirectoryBusy(f"another board is running on {path}, or journal restore is rebuilding its journal: "
                            f"stop that board first (on a Pi the service: sudo systemctl stop kipukas-board), or "
                            f"give this one another --data-dir")
    return HeldLock(fd)


@contextmanager
def restoring(path: str | Path) -> Iterator[None]:
    """``path`` to the restore alone while the block runs.

    Raises :class:`DirectoryBusy` when a board runs on the directory.
    """
    fd = _lock(path, fcntl.LOCK_EX)
    if fd is None:
        raise DirectoryBusy(f"a board is running on {path}: a restore now would move its journal aside while it "
                            f"writes to it, and what it writes after would be lost. Stop it first (on a Pi: sudo "
                            f"systemctl stop kipukas-board), then run journal restore again")
    try:
        yield
    finally:
        if fd != UNLOCKABLE:
            os.close(fd)
