"""The journal and the core loop: durable first, replay rebuilds exactly the live state."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board import modes
from kipukas_board.board.mapfile import load_map
from kipukas_board.core_loop import CoreLoop
from kipukas_board.modes import state_json
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.state import initial_state
from kipukas_board.modes.kipukas.rules.view import state_json as kipukas_json
from kipukas_board.store.journal import Journal, JournalError
from kipukas_board.table.events import EventError, check_event, stand_event

BOARD = load_map("kipuka-8")


def test_append_is_ordered_and_survives_reopen(tmp_path: Path) -> None:
    j = Journal.in_dir(tmp_path)
    seqs = [j.append(stand_event(f"M{i}a", True)) for i in range(1, 6)]
    assert seqs == [1, 2, 3, 4, 5]
    j.close()
    j2 = Journal.in_dir(tmp_path)
    assert [e["stand"] for _, e in j2.events()] == ["M1a", "M2a", "M3a", "M4a", "M5a"]
    assert [s for s, _ in j2.events(after=3)] == [4, 5]
    assert j2.last_seq() == 5


def test_journal_is_wal_with_full_sync(tmp_path: Path) -> None:
    j = Journal.in_dir(tmp_path)
    mode = j._db.execute("PRAGMA journal_mode").fetchone()[0]
    sync = j._db.execute("PRAGMA synchronous").fetchone()[0]
    assert (mode, sync) == ("wal", 2)


def test_not_a_journal_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "journal.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(JournalError, match="not a usable journal"):
        Journal(bad)


def test_malformed_events_never_reach_the_journal(tmp_path: Path) -> None:
    loop = CoreLoop(Journal.in_dir(tmp_path), BOARD, rules=modes)
    loop.start()
    try:
        before = loop.journal.last_seq()
        for bad in ({"type": "stand", "stand": "T1"}, {"type": "stand", "stand": 3, "occupied": True},
                    {"type": "teleport"}, ["not", "a", "dict"]):
            with pytest.raises(EventError):
                loop.submit(bad)  # type: ignore[arg-type]
        assert loop.journal.last_seq() == before
    finally:
        loop.stop()


def test_claim_when_a_territory_stand_fills_and_release_when_it_empties() -> None:
    s = initial_state(BOARD)
    s, fx = apply(s, check_event(stand_event("T3", True)))
    assert s.stands["T3"].occupied and s.territories[3].claim == "base_camp"
    assert any(e["type"] == "claimed" and e["territory"] == 3 and e["owner"] is None for e in fx)
    s, _ = apply(s, stand_event("M3a", True))
    assert s.territories[3].claim == "base_camp" and s.stands["M3a"].occupied
    s, fx = apply(s, stand_event("T3", False))
    assert s.territories[3].claim is None
    assert {"type": "released", "territory": 3} in fx


def test_loop_journals_before_it_publishes_and_replay_matches(tmp_path: Path) -> None:
    journal = Journal.in_dir(tmp_path)
    loop = CoreLoop(journal, BOARD, rules=modes)
    seen: list[tuple[int, int]] = []
    loop.subscribe(lambda state, fx: seen.append((state.seq, journal.last_seq())))
    loop.start()
    for sid in ("T1", "M1a", "T2", "M1a"):
        occupied = not loop.state.switches[sid]
        loop.submit(stand_event(sid, occupied))
    loop.stop()
    # Each publication happened after its event was on disk.
    assert all(journaled >= seq for seq, journaled in seen)
    live = state_json(loop.state)
    journal.close()
    rebuilt = state_json(CoreLoop(Journal.in_dir(tmp_path), BOARD, rules=modes).state)
    assert rebuilt == live


def test_restart_on_another_map_journals_that_map(tmp_path: Path) -> None:
    loop = CoreLoop(Journal.in_dir(tmp_path), BOARD, rules=modes)
    assert loop.state.board.name == BOARD.name
    loop.journal.close()
    big = load_map("kipuka-12")
    loop2 = CoreLoop(Journal.in_dir(tmp_path), big, rules=modes)
    assert loop2.state.board.name == big.name
    assert len(loop2.state.switches) == len(big.stands)
    kinds = [e["type"] for _, e in loop2.journal.events()]
    assert kinds == ["map", "map"]


def test_journal_rows_are_plain_json(tmp_path: Path) -> None:
    j = Journal.in_dir(tmp_path)
    j.append(stand_event("T1", True, "sim"))
    j.close()
    row = sqlite3.connect(tmp_path / "journal.sqlite").execute("SELECT event FROM events").fetchone()[0]
    assert '"stand":"T1"' in row


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(BOARD.stands)), st.booleans()), max_size=60))
def test_replaying_any_sequence_gives_the_same_state(moves: list[tuple[str, bool]]) -> None:
    j = Journal(":memory:")
    loop = CoreLoop(j, BOARD, rules=modes)
    state = kipukas_state(loop.state)
    for sid, occ in moves:
        ev = stand_event(sid, occ)
        state = apply(state, ev, seq=j.append(ev))[0]
    # Invariants: a claim exactly where a territory stand is occupied.
    for n, t in state.territories.items():
        sq = BOARD.territory_stand(n)
        assert (t.claim is not None) == (sq is not None and state.stands[sq.id].occupied)
    assert kipukas_json(kipukas_state(CoreLoop(j, BOARD, rules=modes).state)) == kipukas_json(state)
