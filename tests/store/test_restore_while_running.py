"""One process at a time on a data directory: ``journal restore`` refuses while a board runs there,
and a board refuses to start while a restore or another board works there. A restore under a running
board moved its journal aside while it wrote to it, and everything it journaled after went to the
file set aside; two boards appended to one journal, each with a game of its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from test_kill9 import free_port, post, start

from kipukas_board import cli
from kipukas_board.store.dir_lock import restoring


def test_a_restore_is_refused_while_a_board_runs_there_and_done_once_it_has_stopped(tmp_path: Path,
                                                                                  capsys) -> None:
    port = free_port()
    proc = start(tmp_path, port)
    try:
        assert post(port, "T1", True)["ok"] is True
        assert cli.main(["journal", "restore", "--data-dir", str(tmp_path)]) == 1
        err = capsys.readouterr().err
        assert "a board is running on" in err and "Stop it first" in err
        assert not list(tmp_path.glob("journal.sqlite.damaged-*")), "the running board's journal was moved aside"
        assert post(port, "T2", True)["ok"] is True  # the board goes on writing to its own journal
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(20)
    assert cli.main(["journal", "restore", "--data-dir", str(tmp_path)]) == 0
    assert "restoring from" in capsys.readouterr().out


def test_a_board_does_not_start_while_a_restore_works_on_its_directory(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    with restoring(tmp_path / "data"):
        done = subprocess.run([sys.executable, "-m", "kipukas_board", "run", "--sim", "--data-dir",
                               str(tmp_path / "data"), "--port", str(free_port()), "--admin-pin", "2468"],
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "journal restore is rebuilding its journal" in done.stderr
    assert not (tmp_path / "data" / "journal.sqlite").exists(), "the board opened the journal under the restore"


def test_a_second_board_on_the_same_directory_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    port = free_port()
    proc = start(tmp_path, port)
    try:
        first = post(port, "T1", True)
        files = sorted(p.name for p in tmp_path.iterdir())
        done = subprocess.run([sys.executable, "-m", "kipukas_board", "run", "--sim", "--data-dir", str(tmp_path),
                               "--port", str(free_port()), "--admin-pin", "2468"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 1, done.stdout + done.stderr
        assert f"another board is running on {tmp_path}" in done.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == files
        assert post(port, "T2", True)["seq"] == first["seq"] + 1, "the refused board journaled something"
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(20)


def test_a_directory_that_cannot_be_locked_does_not_stop_the_board_or_the_restore(tmp_path: Path,
                                                                                    monkeypatch) -> None:
    """A file system without flock: the lock is a safety net, so what ran before still runs."""
    import fcntl

    from kipukas_board.store import dir_lock

    def no_flock(fd: int, how: int) -> None:
        raise OSError(95, "Operation not supported")

    monkeypatch.setattr(fcntl, "flock", no_flock)
    held = dir_lock.hold_while_running(tmp_path)
    with dir_lock.restoring(tmp_path):
        pass
    held.close()
    held.close()  # safe twice
