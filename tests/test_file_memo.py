"""FileMemo keeps what was made of a file until the file changes: an edit in place that keeps the
size and puts the old modification time back (``cp -p`` from a backup, ``touch -r``) is a change too."""

from __future__ import annotations

import os
import time
from pathlib import Path

from kipukas_board.textfile import FileMemo, read_text


def _after_the_clock_moved(path: Path) -> None:
    """Wait until the file system stamps a change later than ``path``'s last one (its clock may tick
    only every few milliseconds), so a write now is not stamped in the same tick."""
    probe = path.with_name(".probe")
    deadline = time.monotonic() + 5
    while True:
        probe.write_text("x")
        if probe.stat().st_ctime_ns > path.stat().st_ctime_ns or time.monotonic() > deadline:
            probe.unlink()
            return


def test_a_same_size_edit_in_place_with_its_old_time_put_back_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "default.toml"
    path.write_text("focus = 4\n")
    memo: FileMemo[str] = FileMemo()
    assert memo.get(path, lambda: read_text(path)) == "focus = 4\n"
    before = path.stat()
    _after_the_clock_moved(path)
    with open(path, "r+") as fh:  # the same file (inode), the same size
        fh.write("focus = 9\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # and its modification time put back
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    assert memo.get(path, lambda: read_text(path)) == "focus = 9\n"


def test_an_unchanged_file_is_not_read_again(tmp_path: Path) -> None:
    path = tmp_path / "default.toml"
    path.write_text("focus = 4\n")
    memo: FileMemo[str] = FileMemo()
    reads: list[str] = []

    def make() -> str:
        reads.append(path.name)
        return read_text(path)

    _after_the_clock_moved(path)
    assert memo.get(path, make) == memo.get(path, make) == "focus = 4\n" and reads == ["default.toml"]
