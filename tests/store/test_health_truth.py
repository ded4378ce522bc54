"""Health that tells the truth: a stored event the rules cannot apply, and a journal from another board."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from kipukas_board.app import BoardApp
from kipukas_board.settings import Settings
from kipukas_board.store.identity import FILENAME, ForeignJournal
from kipukas_board.web.server import create_app

PIN = {"X-Admin-Pin": "2468"}
PLAYERS = [{"seat": 1, "name": "Ana", "color": "#1e90ff"}, {"seat": 2, "name": "Ben", "color": "#ff4500"}]


def _board(data_dir: Path) -> BoardApp:
    return BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")


def _store(data_dir: Path, event: dict) -> int:
    """Append ``event`` to the journal as an older version could have written it."""
    db = sqlite3.connect(data_dir / "journal.sqlite")
    with db:
        db.execute("INSERT INTO events (ts, event) VALUES (?, ?)", (0.0, json.dumps(event)))
    seq = db.execute("SELECT MAX(seq) FROM events").fetchone()[0]
    db.close()
    (data_dir / "journal.hwm").write_text(f"{seq:020d}\n")
    return int(seq)


def test_a_stored_event_that_cannot_be_applied_makes_healthz_not_ok_until_a_new_game(data_dir: Path) -> None:
    b = _board(data_dir)
    b.start()
    b.stop()
    seq = _store(data_dir, {"type": "stand", "stand": "T1", "occupied": "yes"})  # wrongly typed
    b = _board(data_dir)
    b.start()
    try:
        client = create_app(b).test_client()
        resp = client.get("/healthz")
        assert resp.status_code == 503
        said = resp.get_json()["unapplied"]
        assert len(said) == 1 and f"event {seq} not applied" in said[0] and "occupied" in said[0]
        assert any(f"event {seq} not applied" in p for p in b.loop.state.problems)
        assert not b.loop.state.switches["T1"], "the malformed event changed nothing"
        resp = client.post("/api/actions/new-game", json={"players": PLAYERS, "first_placer": 1}, headers=PIN)
        assert resp.status_code == 200, resp.get_json()
        assert client.get("/healthz").status_code == 200  # the new game no longer depends on it
    finally:
        b.stop()


def test_a_journal_from_another_board_is_refused_naming_both(tmp_path: Path) -> None:
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    for d in (mine, theirs):
        b = _board(d)
        b.start()
        b.sim_set_stand("T1", True)
        b.stop()
    me = json.loads((mine / FILENAME).read_text())
    other = json.loads((theirs / FILENAME).read_text())
    assert me["id"] != other["id"]
    for name in ("journal.sqlite", "journal.hwm"):
        shutil.copy(theirs / name, mine / name)
    with pytest.raises(ForeignJournal) as refused:
        _board(mine)
    text = str(refused.value)
    assert me["id"] in text and other["id"] in text and FILENAME in text
    # Moving the identity aside is the way to carry on the other board's games here.
    (mine / FILENAME).unlink()
    b = _board(mine)
    try:
        assert b.identity.id == other["id"]
    finally:
        b.stop()
