"""``last_event_of`` (kipukas_board/store/journal.py): the journal's last event of a type, however far
back it is, read before the board opens its journal (which map a restart starts on)."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board.store.journal import Journal, last_event_of
from kipukas_board.store.map_choice import journaled_pick
from kipukas_board.table.events import map_event, stand_event

#: An event whose text says "map" without being one: a player so named, in a new game.
NAMED_MAP = {"type": "new_game", "players": [{"seat": 1, "name": "map", "color": "#d7263d"}]}


def _raw(path: Path, *texts: str) -> None:
    """Rows written behind the journal's back, as damage or an older version left them."""
    db = sqlite3.connect(path)
    with db:
        db.executemany("INSERT INTO events (ts, event) VALUES (0, ?)", ((t,) for t in texts))
    db.close()


def test_the_map_picked_before_more_than_200_events_that_say_map_is_still_found(tmp_path: Path) -> None:
    j = Journal.in_dir(tmp_path)
    j.append(map_event("Kipuka of Eight", "", picked="kipuka-8"))
    picked = j.append(map_event("Kipuka of Twelve", "", picked="kipuka-12"))
    for i in range(250):
        j.append(NAMED_MAP if i % 2 else stand_event("T1", i % 4 == 0))
        j.append({"type": "redo", "event": {"type": "map", "name": "nested, not one"}})
    j.close()
    _raw(tmp_path / Journal.FILENAME, '{"type":"map" damaged', '{"type": "stand", "note": "map", "x": NaN}')
    found = last_event_of(tmp_path / Journal.FILENAME, "map")
    assert found is not None and found[0] == picked, found
    pick = journaled_pick(tmp_path)
    assert pick is not None and pick.key == "kipuka-12" and pick.seq == picked


def test_a_map_event_only_pythons_json_reads_is_still_found(tmp_path: Path) -> None:
    """A row SQLite's JSON functions refuse (a NaN, as an older version may have written) goes through
    the same lenient reading as every other row the board replays."""
    j = Journal.in_dir(tmp_path)
    j.append(map_event("Kipuka of Eight", "", picked="kipuka-8"))
    j.close()
    _raw(tmp_path / Journal.FILENAME, '{"type": "map", "name": "B", "toml": "", "scale": NaN}',
         json.dumps(NAMED_MAP))
    found = last_event_of(tmp_path / Journal.FILENAME, "map")
    assert found is not None and found[0] == 2 and found[1]["name"] == "B" and found[1]["scale"] is None, found


KINDS = ("map", "names-map", "nested", "damaged", "nan-map", "stand")


def _row(kind: str, n: int) -> str:
    return {
        "map": json.dumps({"type": "map", "name": f"m{n}", "toml": ""}),
        "names-map": json.dumps(NAMED_MAP),
        "nested": json.dumps({"type": "redo", "event": {"type": "map", "name": "x"}}),
        "damaged": '{"type": "map", "name": ',
        "nan-map": json.dumps({"type": "map", "name": f"m{n}", "toml": "", "x": float("nan")}),
        "stand": json.dumps(stand_event("T1", True)),
    }[kind]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(KINDS), max_size=30))
def test_the_last_event_of_the_type_is_found_whatever_follows_it(kinds: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / Journal.FILENAME
        Journal(path).close()
        _raw(path, *(_row(k, n) for n, k in enumerate(kinds, start=1)))
        found = last_event_of(path, "map")
    maps = [n for n, k in enumerate(kinds, start=1) if k in ("map", "nan-map")]
    if not maps:
        assert found is None, found
    else:
        assert found is not None and found[0] == maps[-1] and found[1]["name"] == f"m{maps[-1]}", (found, maps)
