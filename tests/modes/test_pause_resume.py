"""Starting another game while one is under way pauses it instead of throwing it away, and
``POST /api/actions/resume`` puts it back: a table breaks for a quick card duel and comes back to its
Kipukas game where it was (players, claims, undo), and a game started by mistake is taken back."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_table import Table

from kipukas_board import modes
from kipukas_board.board.mapfile import load_map
from kipukas_board.core_loop import MapChanged
from kipukas_board.modes.duel.rules import example_new_game
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.replay import replay_events
from tests.maptools import map_data, to_toml


def kipukas_in_setup(t: Table) -> dict:
    t.new_game(players=2)
    t.put("T1")  # the first player's capital
    return t.state()


def test_a_duel_started_mid_game_pauses_kipukas_and_resume_brings_it_back(data_dir: Path) -> None:
    with Table(data_dir) as t:
        before = kipukas_in_setup(t)
        assert before["phase"] == "setup" and "paused" not in before
        t.board.loop.submit(example_new_game())  # what the duel page's start sends, decks written in
        during = t.state()
        assert during["game"] == "duel"
        assert during["paused"] == {"game": "kipukas", "title": "Kipukas", "page": None}
        back = t.act("resume")
        assert [e["type"] for e in back["effects"]] == ["resumed"]
        after = t.state()
        assert after["game"] == "kipukas" and after["players"] == before["players"]
        assert after["territories"] == before["territories"] and after["setup"] == before["setup"]
        assert after["paused"]["game"] == "duel"  # the duel is kept aside in its turn
        assert kipukas_state(t.board.loop.state).undo, "the Kipukas game's undo comes back with it"


def test_a_token_moved_during_the_duel_reaches_the_resumed_game(data_dir: Path) -> None:
    with Table(data_dir) as t:
        kipukas_in_setup(t)
        t.board.loop.submit(example_new_game())
        t.lift("T1")
        t.act("resume")
        assert t.stand("T1")["occupied"] is False


def test_resume_with_nothing_paused_is_refused_saying_so(data_dir: Path) -> None:
    with Table(data_dir) as t:
        doc = t.act("resume", status=409)
        assert "no game is paused" in doc["error"]


def test_the_paused_game_survives_a_restart(data_dir: Path) -> None:
    with Table(data_dir) as t:
        before = kipukas_in_setup(t)
        t.board.loop.submit(example_new_game())
    with Table(data_dir) as t:
        assert t.state()["paused"]["game"] == "kipukas"
        t.act("resume")
        assert t.state()["players"] == before["players"]


def test_a_map_redrawn_during_the_duel_is_drawn_when_kipukas_resumes_and_after_a_restart(
        data_dir: Path, tmp_path: Path) -> None:
    """A restart during the duel on a redrawn map file (a territory renamed): the resumed game is drawn
    as the table is, and a restart replays to what the live board showed (no map event added)."""
    drawn = tmp_path / "kipuka-8-copy.toml"
    drawn.write_text(to_toml(map_data()))
    with Table(data_dir, map_name=str(drawn)) as t:
        before = kipukas_in_setup(t)
        t.board.loop.submit(example_new_game())
    renamed = map_data()
    renamed["territories"][0]["name"] = "Ash Ridge"
    drawn.write_text(to_toml(renamed))
    with Table(data_dir, map_name=str(drawn)) as t:
        assert t.state()["game"] == "duel" and t.state()["map"]["territories"][0]["name"] == "Ash Ridge"
        t.act("resume")
        live = t.state()
        assert live["game"] == "kipukas" and live["players"] == before["players"]
        assert live["map"]["territories"][0]["name"] == "Ash Ridge", "the resumed game shows the table's drawing"
        assert kipukas_state(t.board.loop.state).board is t.board.loop.state.board
        live_doc, seq = modes.state_json(t.board.loop.state), t.board.journal.last_seq()
        replayed = replay_events(t.board.journal.events(), modes.new_table(load_map("kipuka-8")))
        assert modes.state_json(replayed) == live_doc, "kipukas-board replay rebuilds what the live board shows"
    with Table(data_dir, map_name=str(drawn)) as t:
        assert t.board.journal.last_seq() == seq, "the replayed board is on the file's map: no map event added"
        assert modes.state_json(t.board.loop.state) == live_doc


def test_another_map_is_refused_while_kipukas_is_paused_on_the_page_and_at_a_restart(data_dir: Path) -> None:
    """The duel over, Kipukas not resumed yet: picking another map would throw Kipukas away, so the
    page's pick is refused saying so, and so is a restart on another map; Resume still brings it back."""
    with Table(data_dir) as t:
        kipukas_in_setup(t)
        t.board.loop.submit(example_new_game())
        t.board.loop.submit({"type": "duel_concede", "seat": 2})
        busy = t.client.get("/api/maps").get_json()["busy"]
        assert busy == ("a game of Kipukas is under way on Kipuka of Eight (paused: Resume on any page brings it "
                        "back); the map changes only when no game runs (end the game first)")
        assert t.act("map", {"map": "kipuka-12"}, status=409)["error"] == busy
    with pytest.raises(MapChanged, match="holds a game in progress on map 'Kipuka of Eight'"):
        Table(data_dir, map_name="kipuka-12")
    with Table(data_dir) as t:
        t.act("resume")
        assert t.state()["game"] == "kipukas" and t.state()["phase"] == "setup"


def test_a_game_over_is_not_paused(data_dir: Path) -> None:
    with Table(data_dir) as t:
        t.new_game(players=2)
        t.act("end-game", {})
        t.board.loop.submit(example_new_game())
        assert "paused" not in t.state()


def test_undo_right_after_a_duel_began_points_to_the_paused_game(data_dir: Path) -> None:
    with Table(data_dir) as t:
        kipukas_in_setup(t)
        t.board.loop.submit(example_new_game())
        doc = t.act("duel/undo", status=409)
        assert "Kipukas is paused: Resume (on any page) brings it back" in doc["error"], doc["error"]


def test_a_kipukas_action_during_the_duel_is_refused_naming_the_duel_and_the_paused_game(data_dir: Path) -> None:
    """Kipukas's actions while the duel is on the table say so (not 'no game started', nor a seat
    'not playing' read from the paused game's blank stand-in), and nothing is journaled."""
    with Table(data_dir) as t:
        kipukas_in_setup(t)
        t.board.loop.submit(example_new_game())
        seq = t.board.journal.last_seq()
        for name, body in [("roll-diel", {}), ("timer", {"label": "x", "cycles": 2, "seat": 1}),
                           ("initiative", {"seat": 1}), ("soul-lost", {"seat": 1, "by": 2, "count": 1}),
                           ("end-game", {}), ("soul-bind", {"soul": "HMPU#0001", "seat": 1, "stand": "M1a"}),
                           ("roll-dice", {"kind": "d6"}),
                           ("correction", {"target": "stand", "stand": "T1", "owner": 1})]:
            why = t.act(name, body, status=409)["error"]
            assert why.startswith("no Kipukas game is running: Card duel is on the table"), (name, why)
            assert "Kipukas is paused: Resume (on any page) brings it back" in why, (name, why)
        assert t.board.journal.last_seq() == seq


def test_a_kipukas_action_after_a_duel_alone_says_how_to_start_kipukas(data_dir: Path) -> None:
    with Table(data_dir) as t:
        t.board.loop.submit(example_new_game())
        why = t.act("roll-diel", status=409)["error"]
        assert why.startswith("no Kipukas game is running: Card duel is on the table"), why
        assert "POST /api/actions/new-game" in why and "paused" not in why


def test_a_duel_action_while_the_duel_is_paused_says_resume_brings_it_back(data_dir: Path) -> None:
    with Table(data_dir) as t:
        kipukas_in_setup(t)
        t.board.loop.submit(example_new_game())
        t.act("resume")  # Kipukas back on the table, the duel paused in its turn
        why = t.act("duel/pass", {"seat": 1}, status=409)["error"]
        assert "card duel is paused" in why and "Resume (on any page) brings it back" in why, why
        assert "start one" not in why, why


def test_the_tables_undo_right_after_a_duel_began_points_to_the_paused_game_too(data_dir: Path) -> None:
    """The Kipukas page's Undo (``POST /api/actions/undo``) says what the duel page's says."""
    with Table(data_dir) as t:
        kipukas_in_setup(t)
        t.board.loop.submit(example_new_game())
        why = t.act("undo", status=409)["error"]
        assert why == "nothing to undo since a card duel began; Kipukas is paused: Resume (on any page) brings it back"


def test_creature_combat_started_over_kipukas_while_a_duel_waits_paused_ends_the_duel(data_dir: Path) -> None:
    """The board keeps one paused game: Kipukas, under way, takes the paused place and the duel paused
    before it is ended (the page asks first and says so). With no game under way the paused duel stays."""
    from kipukas_board.modes.creature_combat.rules import example_new_game as creature_combat

    with Table(data_dir) as t:
        t.board.loop.submit(example_new_game())
        kipukas_in_setup(t)  # the duel waits paused for Kipukas
        assert t.state()["paused"]["game"] == "duel"
        t.board.loop.submit(creature_combat())
        assert t.state()["game"] == "creature-combat" and t.state()["paused"]["game"] == "kipukas"
        t.act("resume")  # Kipukas back, Creature Combat paused in its place; the duel is gone
        assert t.state()["paused"]["game"] == "creature-combat"
        t.act("end-game", {})  # Kipukas over: nothing under way
        t.board.loop.submit(example_new_game())
        assert t.state()["game"] == "duel" and t.state()["paused"]["game"] == "creature-combat", "the paused game stays"
