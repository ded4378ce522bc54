"""Journal faults: a write the disk refuses, and every way an SD card can lose or damage the journal.

Nothing is acknowledged that was not kept (a refused write is an error, and no switch moves without
its event); nothing lost goes unsaid (lost ranges are reported and their numbers never reused);
every damaged file ends in one message naming it, never a traceback or a silent fresh start.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from kipukas_board import cli
from kipukas_board.app import BoardApp
from kipukas_board.settings import Settings
from kipukas_board.store.backup import RollingBackup
from kipukas_board.store.journal import Journal, JournalError
from kipukas_board.table.events import stand_event
from kipukas_board.web.server import create_app

PIN = "246813"


def fill(journal: Journal, n: int) -> None:
    for i in range(n):
        journal.append(stand_event("T1", i % 2 == 0))


def snapshot_files(src: Path, dst: Path) -> None:
    """Copy a live journal's files as a power cut would leave them (the WAL not yet checkpointed)."""
    dst.mkdir()
    for name in ("journal.sqlite", "journal.sqlite-wal", "journal.hwm"):
        if (src / name).exists():
            shutil.copy(src / name, dst / name)


# -- lost data -------------------------------------------------------------------------------------
def test_a_flipped_bit_in_the_wal_is_reported_as_a_lost_range_and_numbers_are_not_reused(tmp_path: Path) -> None:
    live = Journal.in_dir(tmp_path / "live")
    fill(live, 100)
    snapshot_files(tmp_path / "live", tmp_path / "card")
    live.close()
    wal = tmp_path / "card" / "journal.sqlite-wal"
    data = bytearray(wal.read_bytes())
    page = int.from_bytes(data[8:12], "big")
    frame = 32 + 60 * (24 + page) + 24 + 200  # inside the 61st frame's page
    data[frame] ^= 0x10
    wal.write_bytes(bytes(data))

    j = Journal.in_dir(tmp_path / "card")
    kept = j.last_seq()
    assert 1 < kept < 100  # SQLite itself dropped the damaged frame and everything after it, silently
    assert [(g["first"], g["last"]) for g in j.lost] == [(kept + 1, 100)]
    assert j.health()["lost"][0]["last"] == 100
    assert j.append(stand_event("T2", True)) == 101  # never a number that was acknowledged before
    j.close()
    again = Journal.in_dir(tmp_path / "card")  # said once, remembered, not found again
    assert [(g["first"], g["last"]) for g in again.lost] == [(kept + 1, 100)]
    assert again.append(stand_event("T2", False)) == 102


def test_a_journal_truncated_to_nothing_is_no_silent_fresh_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    j = Journal.in_dir(data)
    fill(j, 40)
    j.close()
    (data / "journal.sqlite").write_bytes(b"")
    board = BoardApp(Settings(), data, sim=True, admin_pin=PIN)
    try:
        lost = board.health()["journal"]["lost"]
        assert [(g["first"], g["last"]) for g in lost] == [(1, 40)]
        assert board.loop.state.seq > 40  # the map event of the new start took a fresh number
        client = create_app(board).test_client()
        assert client.get("/healthz").get_json()["lost"][0]["last"] == 40
    finally:
        board.stop()


def damage(path: Path, how: str) -> None:
    raw = bytearray(path.read_bytes())
    if how == "zeroed":
        path.write_bytes(bytes(len(raw)))
    elif how == "half":
        path.write_bytes(bytes(raw[: len(raw) // 2]))
    elif how == "page":
        page = int.from_bytes(raw[16:18], "big")
        raw[2 * page: 3 * page] = b"\xa5" * page  # the third page: a table's b-tree
        path.write_bytes(bytes(raw))
    elif how == "garbage":
        path.write_bytes(b"this is not sqlite" * 100)


def no_serving(monkeypatch) -> None:
    """A start that should stop early must not end up serving (and the test waiting on it)."""
    from kipukas_board.commands import run

    def serve(board, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        board.stop()
        raise AssertionError("the board started although its files are damaged")

    monkeypatch.setattr(run, "serve", serve)


@pytest.mark.parametrize("how", ["zeroed", "half", "page", "garbage"])
def test_a_damaged_journal_is_one_clear_message_naming_the_file(tmp_path: Path, how: str, capsys,
                                                                monkeypatch) -> None:
    no_serving(monkeypatch)
    data = tmp_path / "data"
    j = Journal.in_dir(data)
    for i in range(400):  # several pages
        j.append({"type": "stand", "stand": f"M{i % 8 + 1}a", "occupied": i % 2 == 0, "note": "x" * 40})
    j.close()
    damage(data / "journal.sqlite", how)
    with pytest.raises(JournalError) as err:
        list(Journal.in_dir(data).events())
    assert str(data / "journal.sqlite") in str(err.value) and "journal restore" in str(err.value)
    assert "events 1 to 400 had been acknowledged" in str(err.value)  # what is at stake, from the mark

    code = cli.main(["run", "--sim", "--data-dir", str(data), "--port", "0", "--admin-pin", PIN])
    out = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in out.err and str(data / "journal.sqlite") in out.err
    assert len(out.err.strip().splitlines()) == 1, out.err
    assert not (data / "admin-pin.json").exists()  # nothing was started on top of it


def test_backup_check_and_restore_bring_back_what_the_backup_holds(tmp_path: Path, capsys) -> None:
    data = tmp_path / "data"
    j = Journal.in_dir(data)
    for i in range(300):
        j.append({"type": "stand", "stand": "T1", "occupied": i % 2 == 0, "note": "x" * 40})
    backup = RollingBackup(j, data)
    backup.run_once()
    assert backup.last is not None and backup.last.last == 300
    fill(j, 20)  # 301..320, after the backup
    backup.run_once()  # rolls: the older copy moves to journal-backup.1.sqlite
    assert (data / "journal-backup.1.sqlite").exists() and backup.last.last == 320
    fill(j, 5)  # 321..325, in no backup
    j.close()
    damage(data / "journal.sqlite", "page")

    assert cli.main(["journal", "check", "--data-dir", str(data)]) == 1
    out = capsys.readouterr().out
    assert "DAMAGED" in out and "journal-backup.sqlite: sound, events 1 to 320" in out

    assert cli.main(["journal", "restore", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "restoring from" in out and list(data.glob("journal.sqlite.damaged-*"))
    j = Journal.in_dir(data)
    seqs = [s for s, _ in j.events()]
    assert seqs[:320] == list(range(1, 321))
    covered = set(seqs) | {n for g in j.lost for n in range(g["first"], g["last"] + 1)}
    assert covered >= set(range(1, 326))  # every acknowledged event is either back or said lost
    assert j.append(stand_event("T2", True)) == 326
    j.close()
    assert cli.main(["journal", "check", "--data-dir", str(data)]) == 0


def test_check_json_names_a_missing_journal_with_a_mark_as_lost(tmp_path: Path, capsys) -> None:
    data = tmp_path / "data"
    j = Journal.in_dir(data)
    fill(j, 7)
    j.close()
    (data / "journal.sqlite").unlink()
    assert cli.main(["journal", "check", "--data-dir", str(data), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False and doc["high_water"] == 7 and doc["journal"]["exists"] is False


# -- writes the disk refuses -------------------------------------------------------------------------
FAULTS = {
    "full": ("PRAGMA max_page_count = {pages}", "PRAGMA max_page_count = 1073741823", "disk is full"),
    "read-only": ("PRAGMA query_only = 1", "PRAGMA query_only = 0", "read-only"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_change_the_journal_cannot_write_is_refused_and_nothing_drifts(tmp_path: Path, fault: str) -> None:
    board = BoardApp(Settings(), tmp_path / "data", sim=True, admin_pin=PIN)
    client = create_app(board).test_client()
    board.start()
    on, off, reason = FAULTS[fault]
    db = board.journal._db
    try:
        assert client.get("/healthz").status_code == 200
        with board.journal._lock:
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            db.execute(on.format(pages=pages))
        refused = None
        for i in range(300):  # the last page may still take a few small events
            stand = "T1" if i % 2 == 0 else "T2"
            want = not board.loop.state.switches[stand]
            r = client.post(f"/api/sim/stands/{stand}", json={"occupied": want})
            if r.status_code != 200:
                refused = (stand, want, r)
                break
        assert refused is not None, "the journal never filled up"
        stand, want, r = refused
        assert r.status_code == 503 and reason in r.get_json()["error"] and r.get_json()["recording"] is False
        # the simulated switch stayed where the journal has the token
        assert board.sensors.snapshot().get(stand, False) == board.loop.state.switches[stand] != want
        again = client.post(f"/api/sim/stands/{stand}", json={"occupied": want})
        assert again.status_code == 503  # not a quiet 200 {"changed": false}
        health = client.get("/healthz")
        assert health.status_code == 503 and health.get_json()["recording"] is False
        assert reason in health.get_json()["journal_error"]
        assert client.get("/api/state").get_json()["health"]["journal"]["recording"] is False

        with board.journal._lock:
            db.execute(off)
        deadline = time.monotonic() + 10
        while client.get("/healthz").status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.get("/healthz").status_code == 200  # the health watcher's probe saw it recover
        ok = client.post(f"/api/sim/stands/{stand}", json={"occupied": want})
        assert ok.status_code == 200 and ok.get_json()["changed"] is True
        assert board.loop.state.switches[stand] == want
    finally:
        board.stop()


def test_a_pin_change_the_disk_refuses_leaves_no_temp_file_and_the_old_pin(tmp_path: Path, monkeypatch) -> None:
    import errno

    from kipukas_board import textfile
    from kipukas_board.web import auth

    store = auth.PinStore(tmp_path)
    store.set("135790")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(textfile.os, "fsync", full)
    with pytest.raises(auth.PinFileError, match="No space left on device"):
        store.set("246802")
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["admin-pin.json"]
    assert auth.PinStore(tmp_path).check("135790") and not auth.PinStore(tmp_path).check("246802")


def test_a_damaged_high_water_mark_is_said_and_written_again(tmp_path: Path) -> None:
    j = Journal.in_dir(tmp_path)
    fill(j, 3)
    j.close()
    (tmp_path / "journal.hwm").write_bytes(b"\xff\x00garbage" * 10)
    j = Journal.in_dir(tmp_path)
    assert "high-water mark is damaged" in j.health()["problems"][0]
    assert j.append(stand_event("T2", True)) == 4
    j.close()
    assert Journal.read_high_water(tmp_path / "journal.hwm") == 4
    assert Journal.in_dir(tmp_path).health()["problems"] == []


def test_a_damaged_card_catalog_is_one_clear_message(tmp_path: Path, capsys, monkeypatch) -> None:
    no_serving(monkeypatch)
    data = tmp_path / "data"
    data.mkdir()
    (data / "cards.sqlite").write_bytes(b"not a database at all" * 50)
    code = cli.main(["run", "--sim", "--data-dir", str(data), "--port", "0", "--admin-pin", PIN])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and str(data / "cards.sqlite") in err
