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


def _journaled_by_the_board(data_dir: Path, pick: str = "kipuka-12") -> int:
    """A board on the settings' kipuka-8 that journals the pick of ``pick`` and stops before writing
    map-choice.json (a power cut between the two): the pick's journal number."""
    from kipukas_board.store.map_choice import read_choice

    board = BoardApp(settings_for("kipuka-8"), data_dir, sim=True, admin_pin="2468")
    board.start()
    try:
        seq = board.submit_map(pick)  # journaled and applied; map_picked never runs
    finally:
        board.stop()
    assert read_choice(data_dir) is None
    return seq


def test_a_pick_journaled_before_the_board_stopped_is_where_the_restart_comes_back(data_dir: Path) -> None:
    """The journal is the truth: map-choice.json missing the pick does not put the settings' map back."""
    from kipukas_board.store.map_choice import read_choice

    seq = _journaled_by_the_board(data_dir)
    board = BoardApp(settings_for("kipuka-8"), data_dir, sim=True, admin_pin="2468")
    try:
        assert board.loop.state.board.name == "Kipuka of Twelve"
        assert board.journal.last_seq() == seq, "the settings' map was journaled again"
        assert read_choice(data_dir) == "kipuka-12", "the pick was not kept once the board was up"
    finally:
        board.stop()


def test_the_journals_pick_wins_over_an_older_one_in_map_choice_but_not_over_a_given_map(data_dir: Path) -> None:
    from kipukas_board.store.map_choice import read_choice, write_choice

    seq = _journaled_by_the_board(data_dir, "kipuka-13")
    write_choice(data_dir, "kipuka-12")  # an earlier pick, kept; the last one was not
    board = BoardApp(settings_for("kipuka-8"), data_dir, sim=True, admin_pin="2468")
    try:
        assert board.loop.state.board.name == load_name("kipuka-13") and board.journal.last_seq() == seq
    finally:
        board.stop()
    assert read_choice(data_dir) == "kipuka-13"
    board = BoardApp(settings_for("kipuka-8"), data_dir, sim=True, admin_pin="2468", map_given=True)
    try:
        assert board.loop.state.board.name == load_name("kipuka-8") and board.journal.last_seq() == seq + 1
    finally:
        board.stop()
    assert read_choice(data_dir) == "kipuka-8"  # --map is the map to come back to, as before


def load_name(key: str) -> str:
    from kipukas_board.board.mapfile import load_map

    return load_map(key).name


def test_a_journaled_pick_whose_file_is_gone_starts_on_the_journals_copy_and_keeps_the_game(
        data_dir: Path, tmp_path: Path) -> None:
    """A map picked on an earlier version that shipped it: the journal carries its text, so the game
    played on it goes on instead of the start being refused for the settings' map."""
    from kipukas_board.store.journal import Journal
    from kipukas_board.table.events import map_event

    gone = map_data()
    gone["name"] = "Kipuka Gone"
    gone["paths"] = gone["paths"][:-1]  # other paths: not a redrawing of the settings' kipuka-8
    j = Journal.in_dir(data_dir)  # as the board journals a pick
    j.append(map_event("Kipuka Gone", to_toml(gone), str(tmp_path / "kipuka-99.toml"), picked="kipuka-99"))
    j.close()
    with Table(data_dir, map_name="kipuka-8") as t:
        assert t.board.loop.state.board.name == "Kipuka Gone"
        play(t)
        t.put("M1a")
        last = t.board.journal.last_seq()
    board = BoardApp(settings_for("kipuka-8"), data_dir, sim=True, admin_pin="2468")
    try:
        state = kipukas_state(board.loop.state)
        assert state.board.name == "Kipuka Gone" and state.phase == "play" and state.stands["M1a"].occupied
        assert board.journal.last_seq() == last, "a map was journaled again"
    finally:
        board.stop()


def test_a_pick_the_rules_refused_leaves_the_board_on_the_game_it_holds(data_dir: Path) -> None:
    """A pick journaled just after a game started is refused by the rules: the start stays on the
    game's map instead of loading the pick and refusing to start."""
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.table.events import map_event

    with Table(data_dir, map_name="kipuka-8") as t:
        play(t)
        twelve = load_map("kipuka-12")
        t.board.loop.submit(map_event(twelve.name, twelve.source_text, twelve.source, picked="kipuka-12"))
        assert t.board.loop.state.board.name == load_name("kipuka-8")
        last = t.board.journal.last_seq()
    board = BoardApp(settings_for("kipuka-8"), data_dir, sim=True, admin_pin="2468")
    try:
        assert kipukas_state(board.loop.state).phase == "play"
        assert board.loop.state.board.name == load_name("kipuka-8") and board.journal.last_seq() == last
    finally:
        board.stop()
