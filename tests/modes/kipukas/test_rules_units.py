"""Small pure pieces of the rules: editions, the diel die's faces, dice for players, play styles."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kipukas_board.board.mapfile import load_map
from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.dice import ScriptedDice, SeededDice
from kipukas_board.modes.kipukas.rules.editions import DEFAULT_DIEL_WEIGHTS, diel_phase_for_roll, edition
from kipukas_board.modes.kipukas.rules.playstyles import player_limit, style
from kipukas_board.modes.kipukas.rules.rolls import (
    diel_event,
    placement_rolls,
    random_territory_outcome,
    retreat_outcome,
    roll_random_territory,
)
from kipukas_board.modes.kipukas.rules.state import StandState, TerritoryState, initial_state
from kipukas_board.table.events import EventError, check_event


def test_diel_faces_follow_the_weights():
    w = {"day": 3, "night": 2, "storm": 1}
    assert [diel_phase_for_roll(w, r) for r in range(1, 7)] == ["day"] * 3 + ["night"] * 2 + ["storm"]
    assert [diel_phase_for_roll(DEFAULT_DIEL_WEIGHTS, r) for r in (1, 2, 3, 4, 5, 6)] == \
        ["day", "day", "night", "night", "storm", "storm"]
    with pytest.raises(ValueError, match="above the die's 6 faces"):
        diel_phase_for_roll(w, 7)


def test_opening_cycles_are_fixed_and_the_rest_rolled():
    state = initial_state(load_map("kipuka-8")).evolve(phase="play", diel_cycle=3, edition="web")
    with pytest.raises(ValueError, match="no dice"):
        diel_event(state, None)
    e = diel_event(state, ScriptedDice([6]), None)
    assert (e["phase"], e["roll"], e["cycle"]) == ("storm", 6, 4)
    s2023 = state.evolve(diel_cycle=1, edition="2023")
    assert diel_event(s2023, None)["phase"] == "night" and diel_event(s2023, None)["source"] == "fixed"


def test_downed_movement_tables_differ_by_edition():
    web, ed = edition("web"), edition("2023")
    assert web.downed_move(0).spaces == 0 and ed.downed_move(0).spaces == 0
    assert web.downed_move(1).escort and not ed.downed_move(1).escort and ed.downed_move(1).every == 2
    assert web.downed_move(5).spaces == 2 and ed.downed_move(5).spaces == 3
    assert web.downed_move(9) == web.downed_move(5)
    with pytest.raises(KeyError, match="expected one of web, 2023"):
        edition("1999")


@given(st.integers(8, 12), st.integers(0, 10_000))
def test_random_territory_is_never_above_the_highest(highest, seed):
    rolls = roll_random_territory(highest, SeededDice(seed))
    assert all(r > highest for r in rolls[:-1])
    assert random_territory_outcome(rolls, highest) == rolls[-1] <= highest


@given(st.lists(st.integers(1, 8), min_size=2, max_size=4, unique=True), st.integers(0, 10_000))
def test_placement_rolls_name_one_of_the_highest(seats, seed):
    rounds, first = placement_rolls(seats, SeededDice(seed))
    assert first in seats
    assert [s for s, _ in rounds[:len(seats)]] == seats


def test_retreat_needs_to_beat_the_d20():
    assert retreat_outcome([6, 6], [11]) and not retreat_outcome([5, 6], [11]) and not retreat_outcome([1, 1], [20])


def test_mass_contention_player_limits():
    assert [player_limit(n) for n in range(8, 13)] == [2, 3, 3, 3, 4]
    assert style("mass_contention").max_players is None and style("domination").max_players == 2


def test_events_are_checked_before_the_journal():
    with pytest.raises(EventError, match="'first_placer' must be one of the players' seats"):
        check_event({"type": "new_game", "edition": "web", "play_style": "domination", "first_placer": 3,
                     "players": [{"seat": 1, "name": "A", "color": "#000000"},
                                 {"seat": 2, "name": "B", "color": "#ffffff"}]})
    with pytest.raises(EventError, match="'steps'"):
        check_event({"type": "dice_roll", "kind": "rogue_path", "stand": "M1a", "moves": 1,
                     "steps": [{"from": "M1a", "paths": ["M1b"], "rolls": [7]}]})
    with pytest.raises(EventError, match="'escapee'"):
        check_event({"type": "dice_roll", "kind": "retreat", "escapee": [1], "challenger": [3]})


def test_a_territory_holds_at_most_three_prisoners():
    board = load_map("kipuka-8")
    s = initial_state(board)
    s, _ = apply(s, {"type": "new_game", "edition": "web", "play_style": "domination", "first_placer": 1,
                     "players": [{"seat": 1, "name": "A", "color": "#000000"},
                                 {"seat": 2, "name": "B", "color": "#ffffff"}]})
    for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
        s, _ = apply(s, {"type": "stand", "stand": sid, "occupied": True})
    territories = dict(s.territories)
    territories[8] = TerritoryState(owner=2, claim="capital", prisoners=(1, 1, 1))
    stands = dict(s.stands)
    stands["M8a"] = StandState(occupied=True, owner=1, since=1)
    s = s.evolve(territories=territories, stands=stands)
    s, fx = apply(s, {"type": "roll_diel", "cycle": 2})
    s, fx = apply(s, {"type": "roll_diel", "cycle": 3})
    assert not [e for e in fx if e["type"] == "imprisoned"]
    assert "already holds 3 prisoners" in s.problems[-1]
    assert s.territories[8].prisoners == (1, 1, 1)
