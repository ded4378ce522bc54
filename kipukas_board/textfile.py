"""Reading the board's small text files (settings, calibration) with a size bound and a clear error,
and writing every file the board writes so that a power cut leaves the old file or the new one
(:func:`atomic_path`, and :func:`write_text_atomic` and :func:`write_bytes_atomic` on top of it).

Every such file is a few kilobytes of UTF-8 TOML. :func:`read_text` refuses anything else (too large,
a directory, NUL bytes, UTF-16, bytes that are not UTF-8) with one message that names the file, so a
wrong file is never a traceback.

Example::

    >>> from pathlib import Path; import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "x.toml"; _ = p.write_bytes("a = 'é'".encode("utf-16"))
    >>> try: read_text(p)
    ... except TextFileError as e: print(str(e).split(": ", 1)[1])
    holds UTF-16 text; expected UTF-8 text
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")

#: The largest text file read (a settings or calibration file is a few kilobytes).
MAX_TEXT_BYTES = 1024 * 1024


class TextFileError(ValueError):
    """The file cannot be read as UTF-8 text; ``reason`` says why, ``str()`` names the file."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path, self.reason = str(path), reason
        super().__init__(f"{path}: {reason}")


def read_text(path: str | os.PathLike[str], max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The text of ``path`` (a leading BOM dropped); raises :class:`TextFileError`."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            raw = fh.read(max_bytes + 1)
    except IsADirectoryError:
        raise TextFileError(p, "is a directory; expected a text file") from None
    except OSError as exc:
        raise TextFileError(p, f"cannot be read: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise TextFileError(p, f"is larger than {max_bytes // 1024} KiB; expected a small text file")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise TextFileError(p, "holds UTF-16 text; expected UTF-8 text")
    if b"\x00" in raw:
        raise TextFileError(p, "holds NUL bytes (binary data, or UTF-16 text); expected UTF-8 text")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextFileError(p, f"is not UTF-8 text (byte {exc.start} is {raw[exc.start:exc.start + 1]!r}); "
                               f"expected UTF-8 text") from None
    return text.removeprefix("\ufeff")


def file_signature(path: str | os.PathLike[str]) -> tuple[int, int, int, int] | None:
    """What changes when ``path`` is written: its ``(mtime_ns, ctime_ns, size, inode)``; None when it
    is absent. An atomic write (:func:`atomic_path`) brings a new inode; an edit in place moves the
    change time, which no program can set back (a tool that puts the old modification time back,
    ``cp -p`` over the file or ``touch -r``, moves it too).

    Not a hash of the contents: that would read every file on every look, which is what a
    :class:`FileMemo` is there to spare. What is left unseen are two edits in place of the same size
    within one tick of the file system's clock (a few milliseconds; recent Linux kernels stamp a change
    that follows a look more finely), which no person makes and the board never does."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


class FileMemo(Generic[T]):
    """What was made of a file, kept until the file changes (:func:`file_signature`): a page that
    lists every map's calibration on each visit reads a file again only when it was written.

    ``extra`` keys what else the result depends on (the map a calibration is checked against). The file
    is looked at before it is read, so a write during the read is seen on the next call. At most
    ``limit`` results are kept (the oldest goes first). Safe to share between the web server's threads.

    Example::

        >>> from pathlib import Path; import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "x.toml"; _ = p.write_text("a = 1")
        >>> memo, reads = FileMemo(), []
        >>> def make(): reads.append(1); return read_text(p)
        >>> memo.get(p, make), memo.get(p, make), len(reads)
        ('a = 1', 'a = 1', 1)
        >>> _ = p.write_text("a = 22"); memo.get(p, make), len(reads)
        ('a = 22', 2)
    """

    def __init__(self, limit: int = 64) -> None:
        self.limit = limit
        self._kept: dict[tuple[str, Hashable], tuple[tuple[int, int, int, int] | None, T]] = {}
        self._lock = threading.Lock()

    def get(self, path: str | os.PathLike[str], make: Callable[[], T], extra: Hashable = None) -> T:
        """``make()``'s result for ``path`` as it is now: kept from an earlier call while the file is
        unchanged, made again (and kept) when it changed, appeared or went away."""
        key, signature = (os.fspath(path), extra), file_signature(path)
        with self._lock:
            kept = self._kept.get(key)
        if kept is not None and kept[0] == signature:
            return kept[1]
        value = make()
        with self._lock:
            self._kept.pop(key, None)
            self._kept[key] = (signature, value)
            while len(self._kept) > self.limit:
                del self._kept[next(iter(self._kept))]
        return value


def write_text_atomic(path: str | os.PathLike[str], text: str, mode: int = 0o640) -> None:
    """Write ``text`` (UTF-8) to ``path`` so that a crash leaves the old file or the new one, never a
    mix: see :func:`atomic_path`."""
    write_bytes_atomic(path, text.encode("utf-8"), mode)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, mode: int = 0o640) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one, never a mix.

    Example::

        >>> from pathlib import Path; import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "keys.json"
        >>> write_bytes_atomic(p, b"{}", mode=0o600); oct(p.stat().st_mode & 0o777), p.read_bytes()
        ('0o600', b'{}')
    """
    with atomic_path(path, mode) as tmp, open(tmp, "wb") as fh:
        fh.write(data)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], mode: int = 0o640, suffix: str = ".tmp") -> Iterator[Path]:
    """The one way the board replaces a file: yields a fresh temporary path in ``path``'s folder for
    the caller (or a library: SQLite, a PDF writer) to fill; when the block ends without an error the
    file is fsynced, renamed over ``path`` and the folder fsynced, so a power cut leaves the old file
    or the new one. On an error the temporary file is removed and ``path`` is untouched.

    ``mode``: mkstemp's 0600 would hide the file from the Pi's first user, who reads the data
    directory through the service's group (hardware/bring-up.md), so files are group-readable
    unless they hold a secret (pass 0o600). ``suffix`` ends the temporary name, for writers that
    pick the format from it.

    Example::

        >>> from pathlib import Path; import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "sheet.svg"
        >>> with atomic_path(p, suffix=".svg") as tmp:
        ...     _ = tmp.write_text("<svg/>")
        >>> p.read_text(), sorted(x.name for x in p.parent.iterdir())
        ('<svg/>', ['sheet.svg'])
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{p.name}.", suffix=suffix, dir=p.parent)
    tmp = Path(name)
    try:
        try:
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, p)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(p.parent)


def replace_durably(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    """Rename ``src`` over ``dst`` (same folder) and fsync the folder, so the rename survives a power
    cut: for moving a finished file aside, where :func:`atomic_path` writes a new one."""
    os.replace(src, dst)
    fsync_dir(Path(dst).parent)


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """Make a folder's entries (a rename, a new file) durable."""
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
