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
