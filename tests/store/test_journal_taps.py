"""The journal's taps table (kipukas_board/store/journal.py): a tap is kept by a clock a jump of the
wall clock cannot move, and by count."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board.store.journal import TAPS_KEPT, TAPS_MAX_AGE_S, Journal, boot_id
from kipukas_board.table.events import stand_event

YEAR_S = 365 * 24 * 3600.0
ANSWER = (200, b'{"ok": true}', "application/json")


class Clocks:
    """A wall clock and a monotonic clock the test moves apart, as NTP does on a Pi without a clock."""

    def __init__(self) -> None:
        self.wall = 1_700_000_000.0
        self.mono = 50.0

    def journal(self, path: str | Path = ":memory:", boot: str = "boot-a") -> Journal:
        return Journal(path, clock=lambda: self.wall, monotonic=lambda: self.mono, boot=boot)


def _tap(j: Journal, ref: str) -> None:
    j.append(stand_event("T1", True), tap=ref)
    j.keep_tap_answer(ref, *ANSWER)


@settings(max_examples=40, deadline=None)
@given(jumps=st.lists(st.floats(min_value=-30 * YEAR_S, max_value=30 * YEAR_S, allow_nan=False), max_size=4),
       waited=st.floats(min_value=0, max_value=3 * TAPS_MAX_AGE_S, allow_nan=False))
def test_a_kept_tap_lives_by_the_monotonic_clock_whatever_the_wall_clock_does(jumps: list[float],
                                                                              waited: float) -> None:
    """NTP setting the clock of a Pi that booted without one moves the wall clock by years either
    way: a tap is still answered from the journal exactly while it is younger than the age kept."""
    clocks = Clocks()
    j = clocks.journal()
    _tap(j, "roll")
    for jump in jumps:
        clocks.wall += jump
        _tap(j, f"after-{jump!r}")  # a write prunes: it must not forget the tap either
    clocks.mono += waited
    j.append(stand_event("T1", False))
    found = j.tap("roll")
    if waited <= TAPS_MAX_AGE_S:
        assert found == (1, ANSWER), f"forgotten after {waited:.0f} s with the wall clock moved by {jumps}"
    else:
        assert found is None, f"still answered {waited:.0f} s after, past the {TAPS_MAX_AGE_S:.0f} s kept"
    _tap(j, "late")  # and a write after that age forgets it for good
    assert (j.tap("roll") is None) == (waited > TAPS_MAX_AGE_S)


def test_a_forward_jump_of_years_keeps_the_tap_and_a_backward_one_does_not_keep_it_longer() -> None:
    clocks = Clocks()
    j = clocks.journal()
    _tap(j, "roll")
    clocks.wall += 5 * YEAR_S  # NTP after boot
    _tap(j, "next")
    assert j.tap("roll") == (1, ANSWER), "a forward jump of the wall clock forgot the tap"
    clocks.wall -= 10 * YEAR_S
    clocks.mono += TAPS_MAX_AGE_S + 1
    assert j.tap("roll") is None, "a backward jump of the wall clock kept the tap past its age"


def test_a_tap_of_another_boot_is_kept_by_count_alone(tmp_path: Path) -> None:
    """After a reboot the monotonic clock starts again near 0 and cannot tell the age of a tap kept
    before it: the tap is answered until newer taps push it out."""
    clocks = Clocks()
    clocks.mono = 90_000.0
    j = clocks.journal(tmp_path / "journal.sqlite", boot="boot-a")
    _tap(j, "before-reboot")
    j.close()
    clocks.mono = 12.0  # a new boot: the monotonic clock began again
    j = clocks.journal(tmp_path / "journal.sqlite", boot="boot-b")
    assert j.tap("before-reboot") == (1, ANSWER)
    for n in range(TAPS_KEPT - 1):
        _tap(j, f"t{n}")
    assert j.tap("before-reboot") == (1, ANSWER), "forgotten before the count was reached"
    _tap(j, "one-more")
    assert j.tap("before-reboot") is None, "a tap of another boot outlived the count"
    j.close()


def test_a_journal_from_before_the_boot_columns_gains_them_and_keeps_its_taps(tmp_path: Path) -> None:
    """A journal written when the taps table had no boot nor monotonic time opens, and its taps are
    kept by count (their age is unknown)."""
    path = tmp_path / "journal.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL, event TEXT NOT NULL);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE taps (ref TEXT PRIMARY KEY, ts REAL NOT NULL, seq INTEGER, status INTEGER, body BLOB,
                           mimetype TEXT);
        INSERT INTO meta VALUES ('schema', '1');
        INSERT INTO events (ts, event) VALUES (1.0, '{"occupied":true,"stand":"T1","type":"stand"}');
        INSERT INTO taps VALUES ('old', 1.0, 1, 200, X'7B7D', 'application/json');
    """)
    db.close()
    j = Clocks().journal(path)
    assert j.tap("old") == (1, (200, b"{}", "application/json"))
    _tap(j, "new")
    assert j.tap("new") == (2, ANSWER) and j.tap("old") is not None
    j.close()


def test_the_boot_id_is_the_kernels_or_one_per_process(tmp_path: Path) -> None:
    f = tmp_path / "boot_id"
    f.write_text("6f1c2b3a-0000-4000-8000-000000000001\n")
    assert boot_id(f) == "6f1c2b3a-0000-4000-8000-000000000001"
    a, b = boot_id(tmp_path / "none"), boot_id(tmp_path / "none")
    assert a != b and a.startswith("process-"), "without the kernel's id every start must count as a boot"


def test_a_restore_brings_back_the_taps_of_the_events_it_brings_back(tmp_path: Path) -> None:
    """A tap journaled after the last backup, and an answer given after it, come back with the
    events the restore carries over from the old journal: a phone sending the tap again just after
    the restore is answered as before, not done twice. A tap whose event did not come back is done
    again (nothing of it is in the journal)."""
    from kipukas_board.store.backup import restore, take_backup

    clocks = Clocks()
    data = tmp_path / "data"
    data.mkdir()
    j = clocks.journal(data / Journal.FILENAME)
    _tap(j, "in-backup")                                   # 1
    j.append(stand_event("T2", True), tap="answered-later")  # 2, its answer comes after the backup
    take_backup(j, data)
    j.keep_tap_answer("answered-later", 409, b'{"error": "no"}', "application/json")
    _tap(j, "after-backup")                                # 3
    _tap(j, "event-lost")                                  # 4
    _tap(j, "last")                                        # 5
    j.close()
    db = sqlite3.connect(data / Journal.FILENAME)
    with db:  # event 4 no longer reads as JSON: the restore cannot bring it back
        db.execute("UPDATE events SET event = '{not json' WHERE seq = 4")
    db.close()

    lines = restore(data)
    j = clocks.journal(data / Journal.FILENAME)
    assert [s for s, _ in j.events()] == [1, 2, 3, 5]
    assert j.tap("in-backup") == (1, ANSWER)
    assert j.tap("answered-later") == (2, (409, b'{"error": "no"}', "application/json"))
    assert j.tap("after-backup") == (3, ANSWER), "a tap journaled after the backup was not brought back"
    assert j.tap("last") == (5, ANSWER)
    assert j.tap("event-lost") is None, "a tap whose event was lost would be answered as done"
    j.close()
    assert any("carried over 4 phone tap(s)" in line for line in lines), lines


def test_a_restore_from_a_journal_older_than_the_taps_table_still_works(tmp_path: Path) -> None:
    from kipukas_board.store.backup import restore, take_backup

    data = tmp_path / "data"
    data.mkdir()
    j = Clocks().journal(data / Journal.FILENAME)
    _tap(j, "a")
    take_backup(j, data)
    _tap(j, "b")
    j.close()
    db = sqlite3.connect(data / Journal.FILENAME)
    with db:
        db.execute("DROP TABLE taps")
    db.close()
    lines = restore(data)
    assert any("no phone taps were carried over" in line for line in lines), lines
    j = Clocks().journal(data / Journal.FILENAME)
    assert [s for s, _ in j.events()] == [1, 2] and j.tap("a") == (1, ANSWER) and j.tap("b") is None
    j.close()


def _check(data: Path, capsys, *extra: str) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    from kipukas_board import cli

    code = cli.main(["journal", "check", "--data-dir", str(data), *extra])
    return code, capsys.readouterr().out


def test_journal_check_says_how_many_taps_are_kept_and_names_those_whose_event_is_gone(tmp_path: Path,
                                                                                       capsys) -> None:
    """A tap and its event are written in one transaction, so a tap whose event the journal does not
    hold is damage: sent again it would be answered "done" though nothing of it is left. ``journal
    check`` counts the taps and reports such a one as a problem (exit 1), naming its journal number."""
    import json

    data = tmp_path / "data"
    data.mkdir()
    j = Clocks().journal(data / Journal.FILENAME)
    for ref in ("a", "b", "c"):
        _tap(j, ref)                                     # events 1, 2, 3
    j.append(stand_event("T2", True))                    # 4, no tap
    j.close()
    code, out = _check(data, capsys)
    assert code == 0 and "events 1 to 4 (4 rows), 3 phone tap(s) kept;" in out, out
    assert "TAPS" not in out

    db = sqlite3.connect(data / Journal.FILENAME)
    with db:  # the event of tap "b" is gone, as damage or a hand edit would leave it
        db.execute("DELETE FROM events WHERE seq = 2")
    db.close()
    code, out = _check(data, capsys)
    assert code == 1, out
    assert "3 phone tap(s) kept (1 of them for events it does not hold: 2)" in out, out
    assert "TAPS: " in out and "1 phone tap(s) point at events the journal does not hold" in out, out
    code, out = _check(data, capsys, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False
    assert (doc["journal"]["taps"], doc["journal"]["taps_astray"], doc["journal"]["taps_astray_seqs"]) == (3, 1, [2])


def test_journal_check_reports_a_taps_table_it_cannot_read_and_does_not_fail_on_none(tmp_path: Path,
                                                                                     capsys) -> None:
    data = tmp_path / "data"
    data.mkdir()
    j = Clocks().journal(data / Journal.FILENAME)
    _tap(j, "a")
    j.close()
    db = sqlite3.connect(data / Journal.FILENAME)
    with db:  # a taps table no version wrote: it names no events
        db.execute("DROP TABLE taps")
        db.execute("CREATE TABLE taps (ref TEXT PRIMARY KEY)")
    db.close()
    code, out = _check(data, capsys)
    assert code == 1 and "Traceback" not in out, out
    assert "its phone taps unreadable (" in out and "TAPS: " in out and "cannot be read" in out, out

    db = sqlite3.connect(data / Journal.FILENAME)
    with db:  # a journal from before taps were kept
        db.execute("DROP TABLE taps")
    db.close()
    code, out = _check(data, capsys)
    assert code == 0 and "no table of phone taps" in out, out
