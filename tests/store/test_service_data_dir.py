"""The admin's commands (``journal check|restore``, ``catalog import|show``, ``export``) find the data
directory the installed service uses, as the diagnostics do, say which one they used, and refuse to
write where the running board never looks.

The Pi is faked in tmp_path: a system settings file and the service's data directory, as
``scripts/install-pi`` leaves them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kipukas_board import cli
from kipukas_board.cards.store import CATALOG_FILE
from kipukas_board.commands import run as run_cmd
from kipukas_board.store.backup import RollingBackup
from kipukas_board.store.journal import Journal
from kipukas_board.table.events import stand_event

CARD = {"code": "RrDC", "slug": "a", "title": "A", "type": "Species", "injury_tolerance": 1, "movement": 1,
        "keal_means": []}


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    """The user's own state directory (the default without a service)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "home-state"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.delenv("KIPUKAS_SETTINGS", raising=False)
    monkeypatch.setattr(run_cmd, "SYSTEM_SETTINGS", tmp_path / "etc" / "settings.toml")
    monkeypatch.setattr(run_cmd, "SERVICE_DATA_DIR", tmp_path / "var" / "lib" / "kipukas-board")
    return tmp_path / "home-state" / "kipukas-board"


@pytest.fixture
def service(home: Path) -> Path:
    """A Pi set up by install-pi: the system settings file and the service's data directory."""
    run_cmd.SYSTEM_SETTINGS.parent.mkdir(parents=True)
    run_cmd.SYSTEM_SETTINGS.write_text("")
    run_cmd.SERVICE_DATA_DIR.mkdir(parents=True)
    return run_cmd.SERVICE_DATA_DIR


@pytest.fixture
def cards(tmp_path: Path) -> Path:
    path = tmp_path / "cards.json"
    path.write_text(json.dumps([CARD]))
    return path


def _journal(data: Path, events: int) -> None:
    j = Journal.in_dir(data)
    for i in range(events):
        j.append(stand_event("T1", i % 2 == 0))
    RollingBackup(j, data).run_once()
    j.close()


def test_journal_check_reads_the_service_journal_and_says_so(service: Path, home: Path, capsys) -> None:
    _journal(service, 3)
    assert cli.main(["journal", "check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"data directory: {service} (the installed service's)"
    assert out[1].startswith(f"{service / 'journal.sqlite'}: sound, events 1 to 3")
    assert cli.main(["journal", "check", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["data_dir"] == str(service) and doc["service"] is True and doc["journal"]["last"] == 3
    assert not home.exists()


def test_journal_restore_rebuilds_the_service_journal(service: Path, capsys) -> None:
    _journal(service, 4)
    (service / "journal.sqlite").unlink()
    assert cli.main(["journal", "restore"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"data directory: {service} (the installed service's)\n")
    assert f"{service / 'journal.sqlite'} now holds events up to 4" in out
    j = Journal.in_dir(service)
    assert [s for s, _ in j.events()] == [1, 2, 3, 4]
    j.close()


def test_catalog_import_and_show_use_the_service_cards(service: Path, home: Path, cards: Path, capsys) -> None:
    assert cli.main(["catalog", "import", str(cards)]) == 0
    out = capsys.readouterr().out
    assert f"data directory: {service} (the installed service's)" in out
    assert f"imported 1 card from {cards} into" in out  # one card, not "1 cards"
    assert (service / CATALOG_FILE).exists() and not home.exists()
    assert cli.main(["catalog", "show", "RrDC"]) == 0
    got = capsys.readouterr()
    assert json.loads(got.out)["code"] == "RrDC"  # stdout stays the card's JSON alone
    assert f"data directory: {service}" in got.err


def test_export_reads_the_service_journal(service: Path, capsys) -> None:
    _journal(service, 2)
    assert cli.main(["export"]) == 0
    got = capsys.readouterr()
    assert [json.loads(line)["seq"] for line in got.out.splitlines()] == [1, 2]
    assert f"data directory: {service}" in got.err


def test_a_write_elsewhere_than_the_service_is_refused_unless_named(service: Path, home: Path, cards: Path,
                                                                  tmp_path: Path, monkeypatch, capsys) -> None:
    other = tmp_path / "bench.toml"  # settings of another board: its data directory is not the service's
    other.write_text("")
    monkeypatch.setenv("KIPUKAS_SETTINGS", str(other))
    assert cli.main(["catalog", "import", str(cards)]) == 2
    err = capsys.readouterr().err
    assert f"{home} is not the data directory of the installed service, which uses {service}" in err
    assert f"--data-dir {service}" in err and not home.exists()
    _journal(home, 2)
    assert cli.main(["journal", "restore"]) == 2
    assert "is not the data directory of the installed service" in capsys.readouterr().err

    mine = tmp_path / "mine"
    assert cli.main(["catalog", "import", str(cards), "--data-dir", str(mine)]) == 0  # named: done, with a word
    got = capsys.readouterr()
    assert f"note: {mine} is not the installed service's data directory ({service})" in got.err
    assert f"data directory: {mine} (given with --data-dir; the installed service uses {service})" in got.out
    assert (mine / CATALOG_FILE).exists() and not (service / CATALOG_FILE).exists()
    assert cli.main(["journal", "check"]) == 0  # a read goes on, saying whose directory it read
    assert f"data directory: {home} (not the installed service's; the installed service uses {service})" in \
        capsys.readouterr().out


def test_a_write_into_the_service_directory_by_another_user_is_refused(service: Path, cards: Path,
                                                                       monkeypatch, capsys) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: service.stat().st_uid + 1)  # root, or the Pi's first user
    assert cli.main(["catalog", "import", str(cards)]) == 2
    err = capsys.readouterr().err
    assert f"{service} belongs to the service's user" in err and "sudo -u" in err
    assert not (service / CATALOG_FILE).exists()
    assert cli.main(["journal", "restore"]) == 2
    assert "sudo -u" in capsys.readouterr().err


def test_without_a_service_the_commands_use_the_users_own_directory(home: Path, cards: Path, capsys) -> None:
    assert cli.main(["catalog", "import", str(cards)]) == 0
    assert f"data directory: {home}\n" in capsys.readouterr().out
    assert (home / CATALOG_FILE).exists()
    _journal(home, 1)
    assert cli.main(["journal", "check"]) == 0
    assert capsys.readouterr().out.startswith(f"data directory: {home}\n")


def _files(d: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every file in ``d`` with its mode, its modification time and its bytes, and ``d``'s own time
    under ".": a file made and removed again (SQLite's ``-wal`` and ``-shm`` of a writer) changes it."""
    return {".": (d.stat().st_mode, d.stat().st_mtime_ns, b""),
            **{p.name: (p.stat().st_mode, p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(d.iterdir())}}


def test_the_read_only_commands_read_a_read_only_service_directory_and_change_nothing(
        service: Path, cards: Path, capsys) -> None:
    """``catalog show``, ``journal check`` and ``export`` as the Pi's first user, who may read the service's files
    (0440 here, the directory 0550) but not write them, with the board stopped. As root (the tests'
    user) the modes refuse nothing, so what is checked there is that the commands created, changed and
    left behind nothing: SQLite opening a WAL file for writing, or even with ``mode=ro`` alone, makes
    ``-wal`` and ``-shm`` files, which root would own and the service then could not write."""
    assert cli.main(["catalog", "import", str(cards)]) == 0
    _journal(service, 3)
    capsys.readouterr()
    for p in service.iterdir():
        p.chmod(0o440)
    service.chmod(0o550)
    try:
        before = _files(service)
        assert not [n for n in before if n.endswith(("-wal", "-shm"))]  # the board is stopped
        assert cli.main(["catalog", "show", "RrDC"]) == 0
        assert json.loads(capsys.readouterr().out)["code"] == "RrDC"
        assert _files(service) == before
        assert cli.main(["catalog", "show", "ZZZZ"]) == 1
        assert "unknown card ZZZZ" in capsys.readouterr().err
        assert cli.main(["catalog", "show", "duel:jab"]) == 1  # the other modes' decks: the same file
        assert "unknown card duel card 'jab'" in capsys.readouterr().err
        assert cli.main(["journal", "check"]) == 0
        out = capsys.readouterr().out
        assert f"{service / 'journal.sqlite'}: sound, events 1 to 3" in out and out.endswith("sound\n")
        assert _files(service) == before
        assert cli.main(["export"]) == 0  # it only reads too
        assert [json.loads(line)["seq"] for line in capsys.readouterr().out.splitlines()] == [1, 2, 3]
        assert _files(service) == before
    finally:
        service.chmod(0o750)
        for p in service.iterdir():
            p.chmod(0o640)


def test_the_diagnostics_and_replay_read_the_service_directory_and_change_nothing(
        service: Path, cards: Path, tmp_path: Path, capsys) -> None:
    """The other commands that read the service's directory (the LED and board tests read its map
    choice and calibration; ``replay`` rebuilds what ``export`` wrote) open no SQLite file of it and
    write nothing there either, run as the first user or as root."""
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.store.map_choice import write_choice

    assert cli.main(["catalog", "import", str(cards)]) == 0
    _journal(service, 3)
    write_choice(service, "kipuka-12")
    run_cmd.SYSTEM_SETTINGS.write_text("[leds]\ncount = 60\n")
    out = tmp_path / "events.jsonl"
    for p in service.iterdir():
        p.chmod(0o440)
    service.chmod(0o550)
    try:
        before = _files(service)
        assert cli.main(["export", "--out", str(out)]) == 0
        assert cli.main(["replay", str(out)]) == 0
        assert cli.main(["leds", "test", "--sim", "--seconds", "0", "--json"]) == 0
        assert cli.main(["leds", "identify", "--sim", "--seconds", "0", "--json"]) == 0
        assert cli.main(["board-test", "--sim", "--seconds", "0.05", "--json"]) == 0
        summary = json.loads(capsys.readouterr().out.splitlines()[-1])
        assert summary["stands"] == len(load_map("kipuka-12").stands)  # it read the service's map choice
        assert _files(service) == before
    finally:
        service.chmod(0o750)
        for p in service.iterdir():
            p.chmod(0o640)


def test_the_journals_map_pick_is_read_from_a_read_only_directory_without_a_trace(service: Path) -> None:
    """The map the journal last picked (read before the board opens its journal, and by whatever
    would start on the board's map) reads a stopped board's journal as the other readers do: as the
    first user, and as root without making and removing -wal and -shm files beside it."""
    from kipukas_board.store.map_choice import journaled_pick
    from kipukas_board.table.events import map_event

    j = Journal.in_dir(service)
    j.append(map_event("Kipuka of Twelve", "", picked="kipuka-12"))
    j.append(stand_event("T1", True))
    j.close()
    for p in service.iterdir():
        p.chmod(0o440)
    service.chmod(0o550)
    try:
        before = _files(service)
        pick = journaled_pick(service)
        assert pick is not None and pick.key == "kipuka-12"
        assert _files(service) == before
    finally:
        service.chmod(0o750)
        for p in service.iterdir():
            p.chmod(0o640)


def test_catalog_show_without_a_catalog_says_so_and_creates_none(service: Path, capsys) -> None:
    assert cli.main(["catalog", "show", "RrDC"]) == 1
    assert "no card catalog here yet; import one first (kipukas-board catalog import" in capsys.readouterr().err
    assert list(service.iterdir()) == []


def test_the_read_only_commands_see_what_a_running_board_has_not_copied_into_its_files_yet(
        service: Path, cards: Path, capsys) -> None:
    """With the board running, its last writes may be only in the ``-wal`` file: the commands read
    through it, and the board goes on writing after them."""
    from kipukas_board.cards.catalog import Catalog

    journal = Journal.in_dir(service)
    catalog = Catalog.in_dir(service)
    try:
        for i in range(3):
            journal.append(stand_event("T1", i % 2 == 0))
        catalog.import_source(str(cards))
        assert (service / "journal.sqlite-wal").stat().st_size > 0
        assert cli.main(["journal", "check"]) == 0
        assert f"{service / 'journal.sqlite'}: sound, events 1 to 3" in capsys.readouterr().out
        assert cli.main(["catalog", "show", "RrDC"]) == 0
        assert json.loads(capsys.readouterr().out)["code"] == "RrDC"
        assert cli.main(["export"]) == 0
        assert [json.loads(line)["seq"] for line in capsys.readouterr().out.splitlines()] == [1, 2, 3]
        journal.append(stand_event("T1", True))  # the board still writes
        assert journal.last_seq() == 4
    finally:
        journal.close()
        catalog.close()


def test_a_read_only_open_reads_a_path_a_uri_would_misread(tmp_path: Path) -> None:
    import sqlite3

    from kipukas_board.store.read_only import connect_read_only

    odd = tmp_path / "a dir?x=1#%20" / "c.sqlite"
    odd.parent.mkdir()
    db = sqlite3.connect(odd)
    db.execute("CREATE TABLE t (a)")
    db.execute("INSERT INTO t VALUES (7)")
    db.commit()
    db.close()
    ro = connect_read_only(odd)
    try:
        assert ro.execute("SELECT a FROM t").fetchall() == [(7,)]
    finally:
        ro.close()
    with pytest.raises(sqlite3.OperationalError):
        connect_read_only(tmp_path / "missing.sqlite")
    assert not (tmp_path / "missing.sqlite").exists()


def test_a_journal_command_on_no_directory_names_it_once(home: Path, service: Path, tmp_path: Path,
                                                          capsys) -> None:
    """The directory named once, then whose it is: beside the installed service, where the service's is."""
    missing = tmp_path / "nowhere"
    assert cli.main(["journal", "check", "--data-dir", str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"kipukas-board journal check: no data directory at {missing} "
                   f"(given with --data-dir; the installed service uses {service})"), err
    assert err.count(str(missing)) == 1
