"""Reading the board's small text files (settings, calibration) with a size bound and a clear error,
and writing them so that a power cut leaves the old file or the new one (:func:`write_text_atomic`).

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

import os
import tempfile
from pathlib import Path

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


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves the old file or the new one, never a mix:
    a temporary file in the same folder, fsynced, renamed over ``path``, and the folder fsynced."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        # mkstemp makes the file 0600; the Pi's first user reads the data directory through the
        # service's group (hardware/bring-up.md), so it is group-readable like the rest of it.
        os.fchmod(fd, 0o640)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(p.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
