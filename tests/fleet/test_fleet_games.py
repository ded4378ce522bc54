"""The dashboard's row for each game: which game a board plays and its progress, read from real states
built through each mode's rules (``modes.apply``) as a board publishes them (``modes.state_json``)."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from kipukas_board import modes
from kipukas_board.board.mapfile import load_map
from kipukas_board.fleet.games import MAX_PLAYERS, MAX_PROGRESS, MAX_TEXT, game_on_table
from kipukas_board.fleet.view import BoardSummary
from kipukas_board.modes.creature_combat import rules as cc_rules
from kipukas_board.modes.duel import rules as duel_rules
from kipukas_board.table.events import check_event
from kipukas_board.table.state import TableState

KIPUKAS_GAME = {"type": "new_game", "edition": "web", "play_style": "domination", "first_placer": 1,
                "players": [{"seat": 1, "name": "Ana", "color": "#e4572e", "affinity": "brutal"},
                            {"seat": 2, "name": "Bo", "color": "#1e90ff", "affinity": "brutal"}]}


def play(state: TableState, *events: dict[str, Any]) -> TableState:
    for event in events:
        state, effects = modes.apply(state, check_event(event))
        assert not [e for e in effects if e.get("type") == "problem"], effects
    return state


def row(state: TableState) -> dict[str, Any]:
    return BoardSummary("t", state=modes.state_json(state)).to_json()


def table() -> TableState:
    return modes.new_table(load_map("kipuka-8"))


def test_no_game_on_a_fresh_table() -> None:
    doc = row(table())
    assert (doc["playing"], doc["title"], doc["progress"], doc["paused"]) == (None, None, None, None)
    assert doc["players"] == []


def test_a_kipukas_game_in_setup_names_its_players_and_its_phase() -> None:
    doc = row(play(table(), KIPUKAS_GAME))
    assert (doc["playing"], doc["title"], doc["phase"]) == ("kipukas", "Kipukas", "setup")
    assert doc["progress"] == "setup"  # diel cycle 0 is no cycle yet
    assert [(p["name"], p["territories"], p["detail"]) for p in doc["players"]] == [
        ("Ana", 0, "0 territories"), ("Bo", 0, "0 territories")]


def test_a_card_duel_under_way_names_its_players_hearts_turn_and_who_is_to_play() -> None:
    duel = play(table(), duel_rules.example_new_game())
    doc = row(duel)
    assert (doc["game"], doc["playing"], doc["title"], doc["phase"]) == ("duel", "duel", "Card duel", "play")
    assert doc["progress"] == "turn 1 · Ana to play"
    assert [(p["name"], p["color"], p["detail"]) for p in doc["players"]] == [
        ("Ana", "#e4572e", "3/3 Hearts"), ("Ben", "#1e90ff", "3/3 Hearts")]
    assert row(play(duel, {"type": "duel_pass", "seat": 1}))["progress"] == "turn 2 · Ben to play"
    over = row(play(duel, {"type": "duel_concede", "seat": 1}))
    assert (over["progress"], over["winner"], over["phase"]) == ("Ben wins (Ana conceded)", 2, "over")


def test_a_duel_started_mid_game_says_kipukas_is_paused() -> None:
    doc = row(play(table(), KIPUKAS_GAME, duel_rules.example_new_game()))
    assert (doc["title"], doc["paused"], doc["progress"]) == ("Card duel", "Kipukas", "turn 1 · Ana to play")
    assert [p["name"] for p in doc["players"]] == ["Ana", "Ben"]  # the duel's players, not Kipukas's


def test_creature_combat_names_its_round_step_land_fought_and_lands_won() -> None:
    cc = play(table(), cc_rules.example_new_game())
    doc = row(cc)
    assert (doc["playing"], doc["title"]) == ("creature-combat", "Creature Combat Territory")
    assert doc["progress"] == "round 1 · round begin"
    deals = [{"type": "cc_deal", "land": land} for land in ("l1-0", "l1-1", "l1-2", "l2-0", "l2-1")]
    cc = play(cc, *deals)
    assert row(cc)["progress"] == "round 1 · deploy"
    cc = play(cc, {"type": "cc_done", "seat": 1}, {"type": "cc_done", "seat": 2})
    assert row(cc)["progress"] == "round 1 · combat at Land 1.0"
    cc = play(cc, {"type": "cc_reveal", "seat": 1, "creature": "fox-1"}, {"type": "cc_resolve"})
    doc = row(cc)
    assert [(p["name"], p["detail"]) for p in doc["players"]] == [("Ana", "1 land"), ("Ben", "0 lands")]
    assert doc["progress"].startswith("round 1 · combat at Land ")


def test_a_game_this_dashboard_does_not_know_shows_by_the_title_the_board_gives_it() -> None:
    doc = BoardSummary("t", state={"game": "chess", "games": [{"name": "chess", "title": "Chess"}],
                                   "under_way": {"game": "chess", "title": "Chess"}, "players": []}).to_json()
    assert (doc["playing"], doc["title"], doc["progress"], doc["players"]) == ("chess", "Chess", None, [])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=60),
    lambda kids: st.lists(kids, max_size=12) | st.dictionaries(st.text(max_size=12), kids, max_size=6),
    max_leaves=40)
# A seat and a game's own document shaped as the boards send them, every value any JSON.
seats = st.lists(st.dictionaries(st.sampled_from(["seat", "name", "color", "hearts", "hearts_total", "lands",
                                                  "conceded", "eliminated"]), json_values), max_size=12)
own = st.fixed_dictionaries({}, optional={
    "seats": seats, "phase": st.sampled_from(["play", "over", "combat", "round_end"]) | json_values,
    **dict.fromkeys(("turn", "to_act", "winner", "tied", "round", "combat", "end_reason"), json_values)})
KEYS = ("territories", "diel", "phase", "winner", "games", "under_way", "paused")
game_docs = st.fixed_dictionaries(
    {"game": st.sampled_from(["kipukas", "duel", "creature-combat", "other"]) | json_values},
    optional={"duel": own | json_values, "creature_combat": own | json_values, "players": seats | json_values,
              **dict.fromkeys(KEYS, json_values)})


@settings(max_examples=150, deadline=None)
@given(game_docs)
# a seat or an owner that is a list or an object (no key to count by), territories that are no list
@example({"game": "kipukas", "players": [{"seat": [1], "name": "Ana"}], "territories": [{"owner": {"a": 1}}]})
@example({"game": "kipukas", "players": [{"seat": 1, "name": "Ana"}], "territories": 5})
def test_any_message_reads_without_error_and_its_texts_stay_short(doc: dict[str, Any]) -> None:
    """A state message comes from the network: whatever its shape, the row is made and bounded."""
    game = game_on_table(doc)
    out = BoardSummary("t", state=doc).to_json()
    if game is None:
        assert out["title"] is None and out["players"] == []
        return
    assert len(game.players) <= MAX_PLAYERS and len(game.title) <= MAX_TEXT
    for p in game.players:
        assert p["name"] is None or len(p["name"]) <= MAX_TEXT
    assert game.progress is None or len(game.progress) <= MAX_PROGRESS
