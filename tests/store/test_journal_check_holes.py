"""``kipukas-board journal check`` (kipukas_board/store/backup.py): an event gone from the middle of
the numbering without being recorded as lost is reported and fails the check, and so is a backup
whose taps name an event it does not hold; the check reads the files and changes none of them."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board import cli
from kipukas_board.store.backup import inspect, take_backup
from kipukas_board.store.journal import Journal
from kipukas_board.table.events import stand_event

ANSWER = (200, b'{"ok": true}', "application/json")


def _journal(data: Path, n: int, taps: tuple[int, ...] = ()) -> None:
    """Events 1 to ``n`` in ``data``'s journal; those numbered in ``taps`` sent by a phone's tap."""
    j = Journal.in_dir(data)
    for seq in range(1, n + 1):
        ref = f"tap-{seq}" if seq in taps else None
        assert j.append(stand_event("T1", seq % 2 == 0), tap=ref) == seq
        if ref is not None:
            j.keep_tap_answer(ref, *ANSWER)
    j.close()


def _edit(path: Path, *sql: str) -> None:
    """Change ``path`` as damage or a hand edit would, behind the journal's back."""
    db = sqlite3.connect(path)
    with db:
        for statement in sql:
            db.execute(statement)
    db.close()


def _files(d: Path) -> dict[str, tuple[int, bytes]]:
    """Every file in ``d`` with its modification time and bytes (a file made and removed again
    changes the directory's own time, kept under ".")."""
    return {".": (d.stat().st_mtime_ns, b""),
            **{p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(d.iterdir())}}


def _check(data: Path, capsys, *extra: str) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    before = _files(data)
    code = cli.main(["journal", "check", "--data-dir", str(data), *extra])
    assert _files(data) == before, "journal check changed a file of the data directory"
    return code, capsys.readouterr().out


def test_a_hole_in_the_journals_numbering_not_recorded_as_lost_is_reported_and_fails(tmp_path: Path,
                                                                                     capsys) -> None:
    data = tmp_path / "data"
    _journal(data, 9)
    code, out = _check(data, capsys)
    assert code == 0 and "MISSING" not in out, out

    _edit(data / Journal.FILENAME, "DELETE FROM events WHERE seq IN (3, 4, 7)")
    code, out = _check(data, capsys)
    assert code == 1, out
    assert f"MISSING: {data / Journal.FILENAME}: events 3 to 4 and event 7 are missing" in out, out
    doc = json.loads(_check(data, capsys, "--json")[1])
    assert doc["ok"] is False
    assert doc["journal"]["missing"] == [{"first": 3, "last": 4}, {"first": 7, "last": 7}]
    assert doc["journal"]["missing_events"] == 3

    # Recorded as lost (as a restore records what neither file held), the hole is said, not a problem;
    # a hole only partly recorded is reported for the rest.
    _edit(data / Journal.FILENAME, "INSERT OR REPLACE INTO meta VALUES ('lost', "
          "'[{\"first\": 3, \"last\": 4, \"found\": 0}, {\"first\": 6, \"last\": 6, \"found\": 0}]')")
    code, out = _check(data, capsys)
    assert code == 1 and "recorded as lost: events 3 to 4" in out, out
    assert "event 7 is missing" in out and "events 3 to 4 and" not in out, out
    _edit(data / Journal.FILENAME, "INSERT OR REPLACE INTO meta VALUES ('lost', "
          "'[{\"first\": 3, \"last\": 4, \"found\": 0}, {\"first\": 7, \"last\": 7, \"found\": 0}]')")
    code, out = _check(data, capsys)
    assert code == 0 and "MISSING" not in out, out

    _edit(data / Journal.FILENAME, "DELETE FROM events WHERE seq = 1")  # the first one too
    code, out = _check(data, capsys)
    assert code == 1 and "event 1 is missing" in out, out


def test_a_backup_whose_taps_name_an_event_it_does_not_hold_fails_the_check(tmp_path: Path, capsys) -> None:
    """A backup is what ``journal restore`` brings back: a tap in it whose event it lacks would, after
    a restore, answer that tap sent again with "done" though nothing of it is left."""
    data = tmp_path / "data"
    _journal(data, 5, taps=(2, 4))
    j = Journal.in_dir(data)
    take_backup(j, data)
    j.close()
    backup = data / "journal-backup.sqlite"
    code, out = _check(data, capsys)
    assert code == 0 and f"{backup}: sound, events 1 to 5 (5 rows), 2 phone tap(s) kept;" in out, out

    _edit(backup, "DELETE FROM events WHERE seq = 4")
    code, out = _check(data, capsys)
    assert code == 1, out
    assert f"TAPS: {backup}: 1 phone tap(s) point at events this backup does not hold" in out, out
    assert f"MISSING: {backup}: event 4 is missing" in out, out
    assert f"{data / Journal.FILENAME}: sound" in out and f"TAPS: {data / Journal.FILENAME}" not in out, out


def test_holes_are_found_in_one_pass_over_a_long_journal(tmp_path: Path) -> None:
    """A journal of 20,000 events with holes here and there: each is found, none made up."""
    path = tmp_path / "journal.sqlite"
    _edit(path, "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL, event TEXT NOT NULL)",
          "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    gone = {1, 2, 500, 501, 502, 9_999, 19_999}
    db = sqlite3.connect(path)
    with db:
        db.executemany("INSERT INTO events VALUES (?, 0, '{}')", ((s,) for s in range(1, 20_001) if s not in gone))
    db.close()
    rep = inspect(path)
    assert rep.sound and rep.missing_events == len(gone)
    assert [(g["first"], g["last"]) for g in rep.missing] == [(1, 2), (500, 502), (9_999, 9_999), (19_999, 19_999)]


@settings(max_examples=40, deadline=None)
@given(held=st.sets(st.integers(1, 60), min_size=1),
       lost=st.lists(st.tuples(st.integers(1, 60), st.integers(0, 8)), max_size=4))
def test_what_is_missing_is_every_number_neither_held_nor_recorded_lost(held: set[int],
                                                                        lost: list[tuple[int, int]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "journal.sqlite"
        _edit(path, "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL, event TEXT)",
              "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        ranges = [{"first": a, "last": a + n} for a, n in lost]
        db = sqlite3.connect(path)
        with db:
            db.executemany("INSERT INTO events VALUES (?, 0, '{}')", ((s,) for s in held))
            db.execute("INSERT INTO meta VALUES ('lost', ?)", (json.dumps(ranges),))
        db.close()
        rep = inspect(path)
    recorded = {n for g in ranges for n in range(g["first"], g["last"] + 1)}
    expected = set(range(1, max(held) + 1)) - held - recorded
    found = {n for g in rep.missing for n in range(g["first"], g["last"] + 1)}
    assert rep.missing_events == len(expected)
    assert found <= expected and (found == expected or len(rep.missing) == 5), (rep.missing, expected)
    assert all(a["last"] + 1 < b["first"] for a, b in zip(rep.missing, rep.missing[1:], strict=False))


def test_a_restore_from_a_backup_leaves_out_the_backups_taps_whose_event_it_does_not_hold(tmp_path: Path,
                                                                                          capsys) -> None:
    """The check fails such a backup; restored from all the same (``--from``, or the only one left),
    the tap must not come back without its event, or sent again it would be answered "done"."""
    from kipukas_board.store.backup import restore

    data = tmp_path / "data"
    _journal(data, 5, taps=(2, 4))
    j = Journal.in_dir(data)
    take_backup(j, data)
    j.close()
    backup = data / "journal-backup.sqlite"
    _edit(backup, "DELETE FROM events WHERE seq = 4")
    (data / Journal.FILENAME).unlink()  # the journal gone: only the backup is left
    lines = restore(data)
    assert any("lost: events 4 to 4" in line for line in lines), lines
    assert any("left out 1 phone tap(s) of the backup" in line for line in lines), lines
    j = Journal.in_dir(data)
    assert [s for s, _ in j.events()] == [1, 2, 3, 5]
    assert j.tap("tap-2") is not None and j.tap("tap-2")[0] == 2  # type: ignore[index]
    assert j.tap("tap-4") is None, "a tap whose event the restore did not bring back would be answered as done"
    j.close()
    code, out = _check(data, capsys)  # the restored journal is sound; the damaged backup is still said
    assert f"{data / Journal.FILENAME}: sound, events 1 to 5 (4 rows), 1 phone tap(s) kept;" in out, out
    assert "recorded as lost: events 4 to 4" in out and f"TAPS: {data / Journal.FILENAME}" not in out, out
    assert f"MISSING: {data / Journal.FILENAME}" not in out and f"TAPS: {backup}" in out, out
