"""A restart on a redrawn map keeps the game; one on a different map refuses to throw it away."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_table import Table, play

from kipukas_board.app import BoardApp
from kipukas_board.core_loop import MapChanged
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.settings import Settings
from tests.maptools import map_data, to_toml


def settings_for(map_path: str | Path) -> Settings:
    s = Settings()
    s.map = str(map_path)
    return s


def test_a_redrawn_map_keeps_the_game_and_another_map_is_refused(data_dir, tmp_path: Path) -> None:
    drawn = tmp_path / "kipuka-8-copy.toml"
    drawn.write_text(to_toml(map_data()))
    with Table(data_dir, map_name=str(drawn)) as t:
        play(t)
        t.put("M1a")
        before = t.state()
    moved = map_data()
    moved["stands"][0]["x"] += 7  # the drawing changes, the game does not
    moved["description"] = "redrawn"
    drawn.write_text(to_toml(moved))
    board = BoardApp(settings_for(drawn), data_dir, sim=True, admin_pin="2468")
    try:
        after = kipukas_state(board.loop.state)
        assert after.board.description == "redrawn" and after.phase == "play"
        assert {sid for sid, st in after.stands.items() if st.occupied} == \
            {s["id"] for s in before["stands"] if s["occupied"]}
        assert {n: t.owner for n, t in after.territories.items()} == \
            {t["number"]: t["owner"] for t in before["territories"]}
    finally:
        board.stop()
    with pytest.raises(MapChanged, match="holds a game in progress on map") as err:
        BoardApp(settings_for("kipuka-12"), data_dir, sim=True)
    assert f"--map {drawn}" in str(err.value)


def test_before_a_game_another_map_simply_replaces_the_board(data_dir) -> None:
    BoardApp(settings_for("kipuka-8"), data_dir, sim=True, admin_pin="2468").stop()
    board = BoardApp(settings_for("kipuka-12"), data_dir, sim=True)
    try:
        assert board.loop.state.board.name == "Kipuka of Twelve"
    finally:
        board.stop()


def _long_named(tmp_path: Path) -> Path:
    data = map_data()
    data["territories"][2]["name"] = "The Long Ridge Where The Old Fire Mountain Sleeps"  # 49 characters
    f = tmp_path / "long-names.toml"
    f.write_text(to_toml(data))
    return f


def test_a_board_whose_journal_holds_a_map_from_before_the_name_limit_still_starts_and_plays(
        data_dir, tmp_path: Path) -> None:
    """A map journaled before territory names were bounded replays as it was and starts the board on
    its file again; only a map coming to the board anew is held to the limit."""
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.store.journal import Journal
    from kipukas_board.table.events import map_event, stand_event

    f = _long_named(tmp_path)
    old = load_map(f, new=False)
    j = Journal.in_dir(data_dir)  # as a board of an earlier version journaled it
    j.append(map_event(old.name, old.source_text or "", str(f)))
    j.append(stand_event("T1", True))
    j.close()
    board = BoardApp(settings_for(f), data_dir, sim=True, admin_pin="2468")
    try:
        state = kipukas_state(board.loop.state)
        assert state.board.territories[3].name == "The Long Ridge Where The Old Fire Mountain Sleeps"
        assert state.stands["T1"].occupied and not board.loop.unapplied
        assert board.journal.last_seq() == 2, "the map was journaled again"
    finally:
        board.stop()


def test_a_board_started_anew_on_a_map_over_the_name_limit_says_which_territory(data_dir, tmp_path: Path) -> None:
    from kipukas_board.board.mapfile import MapError

    with pytest.raises(MapError, match=r"territory 3: field 'name' is 49 characters.*at most 40 characters"):
        BoardApp(settings_for(_long_named(tmp_path)), data_dir, sim=True, admin_pin="2468")


def _long_described(tmp_path: Path) -> Path:
    data = map_data()
    data["name"] = "The Kipuka Of The Long Ridge Where Fire Sleeps"  # 46 characters
    data["description"] = "A very long story. " * 20  # 380 characters
    f = tmp_path / "long-description.toml"
    f.write_text(to_toml(data))
    return f


def test_a_board_whose_journal_holds_a_map_named_at_length_still_starts_but_a_new_one_is_refused(
        data_dir, tmp_path: Path) -> None:
    """The map's own name and description are held to their limits as a territory's name is: a map
    the journal already holds starts the board as it was; started anew on it, the board says why not."""
    from kipukas_board.board.mapfile import MapError, load_map
    from kipukas_board.store.journal import Journal
    from kipukas_board.table.events import map_event, stand_event

    f = _long_described(tmp_path)
    with pytest.raises(MapError, match=r"(?s)field 'name' is 46 characters.*field 'description' is 380 characters"):
        BoardApp(settings_for(f), data_dir, sim=True, admin_pin="2468")
    old = load_map(f, new=False)
    j = Journal.in_dir(data_dir)  # as a board of an earlier version journaled it
    j.append(map_event(old.name, old.source_text or "", str(f)))
    j.append(stand_event("T1", True))
    j.close()
    board = BoardApp(settings_for(f), data_dir, sim=True, admin_pin="2468")
    try:
        state = kipukas_state(board.loop.state)
        assert state.board.name == old.name and state.board.description == "A very long story. " * 20
        assert state.stands["T1"].occupied and not board.loop.unapplied
        assert board.journal.last_seq() == 2, "the map was journaled again"
    finally:
        board.stop()
