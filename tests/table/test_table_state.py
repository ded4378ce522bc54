"""The table every game is played on: what it shares stays what the game on it says, whatever the
game, and a game's own state never leaks into another's."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kipukas_board import modes
from kipukas_board.board.mapfile import load_map
from kipukas_board.modes.duel.rules import example_new_game
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.kipukas.rules.dice import SeededDice
from kipukas_board.modes.kipukas.rules.simulate import random_game
from kipukas_board.modes.replay import replay_events
from kipukas_board.table.cards import card_event, record_card
from kipukas_board.table.events import map_event
from kipukas_board.table.problems import settle
from kipukas_board.table.state import TableState, new_table
from tests.maptools import map_data, to_toml

BOARD = load_map("kipuka-8")
PLAYERS = [{"seat": 1, "name": "Ana", "color": "#e4572e"}, {"seat": 2, "name": "Ben", "color": "#1e90ff"}]


def shares_what_kipukas_says(table: TableState) -> None:
    game = kipukas_state(table)
    assert table.game == "kipukas" and table.mode_state is game
    assert table.switches == {sid: s.occupied for sid, s in game.stands.items()}
    assert (table.board, table.cards, table.problems, table.problem_causes, table.seq, table.counter) == \
        (game.board, game.cards, game.problems, game.problem_causes, game.seq, game.counter)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), style=st.sampled_from(["domination", "mass_contention"]))
def test_through_a_random_kipukas_game_the_table_shares_exactly_what_the_rules_hold(seed: int, style: str) -> None:
    board = load_map("kipuka-12")
    table = modes.new_table(board)
    players = 3 if style == "mass_contention" else 2
    for seq, event in enumerate(random_game(board, 250, SeededDice(seed), players=players, play_style=style), 1):
        table, _ = modes.apply(table, event, seq)
        shares_what_kipukas_says(table)


def test_a_card_game_keeps_the_switches_cards_and_problems_on_the_table_and_kipukas_reads_them_blank() -> None:
    table, _ = modes.apply(modes.new_table(BOARD), {"type": "stand", "stand": "M1a", "occupied": True}, 1)
    table, fx = modes.apply(table, example_new_game(), 2)
    assert table.game == "duel" and type(table.mode_state).__name__ == "Duel"
    table, _ = modes.apply(table, {"type": "stand", "stand": "T2", "occupied": True}, 3)
    table, _ = modes.apply(table, card_event(1, "??", None, error="unknown card frlU"), 4)
    assert table.switches["M1a"] and table.switches["T2"] and table.seq == 4
    assert table.problems == ("seat 1: unknown card frlU",) and table.cards[0]["seat"] == 1
    blank = kipukas_state(table)  # how the board page draws a duel's table
    assert blank.players == () and not blank.started
    assert {sid for sid, s in blank.stands.items() if s.occupied} == {"M1a", "T2"}
    assert blank.problems == table.problems and blank.seq == 4


def test_a_refused_kipukas_start_leaves_the_duel_on_the_table() -> None:
    table, _ = modes.apply(modes.new_table(BOARD), example_new_game(), 1)
    too_many = [*PLAYERS, *({"seat": s, "name": f"P{s}", "color": "#123456"} for s in (3, 4))]
    table, fx = modes.apply(table, {"type": "new_game", "players": too_many, "edition": "web",
                                    "play_style": "king_of_the_hill", "options": {}, "first_placer": 1}, 2)
    assert [e["type"] for e in fx] == ["problem"]
    assert table.game == "duel" and table.paused is None and table.problems


def test_a_kipukas_game_started_over_a_duel_puts_the_duel_aside_and_keeps_the_tokens() -> None:
    table, _ = modes.apply(modes.new_table(BOARD), example_new_game(), 1)
    table, _ = modes.apply(table, {"type": "stand", "stand": "M2a", "occupied": True}, 2)
    table, fx = modes.apply(table, {"type": "new_game", "players": PLAYERS, "edition": "web",
                                    "play_style": "domination", "options": {}, "first_placer": 1}, 3)
    assert table.game == "kipukas" and table.paused is not None and table.paused.game == "duel"
    shares_what_kipukas_says(table)
    assert kipukas_state(table).stands["M2a"].occupied, "the token the reeds still see"


def test_the_table_records_a_card_and_settles_its_problem_when_the_seat_shows_another() -> None:
    table = new_table(BOARD)
    shown, fx = record_card(table, card_event(2, "x", None, error="unknown card ABCD"))
    shown = settle(table, shown, {"type": "card", "seat": 2}, fx, 1)
    assert shown.problems == ("seat 2: unknown card ABCD",) and shown.problem_causes[0].seat == 2
    again, fx = record_card(shown, card_event(2, "y", "RrDC", card={"title": "Explorer"}))
    again = settle(shown, again, {"type": "card", "seat": 2}, fx, 2)
    assert again.problems == () and again.cards[0]["title"] == "Explorer"
    assert table.cards == () and table.problems == (), "states are never changed in place"


def kipukas_in_play(board=BOARD) -> TableState:
    """Two players, capitals and base camps placed, the first diel cycles rolled: a game under way."""
    table = modes.new_table(board)
    events = [{"type": "new_game", "players": PLAYERS, "edition": "web", "play_style": "domination",
               "options": {}, "first_placer": 1},
              *({"type": "stand", "stand": sid, "occupied": True} for sid in ("T1", "T8", "T2", "T3", "T5", "T7")),
              {"type": "roll_diel", "cycle": 2, "phase": "night", "roll": None, "source": "fixed"}]
    for seq, event in enumerate(events, 1):
        table, _ = modes.apply(table, event, seq)
    assert kipukas_state(table).phase == "play" and kipukas_state(table).diel_cycle == 2
    return table


def test_a_refused_resume_or_map_during_kipukas_shows_its_problem_and_number_in_the_state_document() -> None:
    table = kipukas_in_play()
    table, fx = modes.apply(table, {"type": "resume"}, 9)
    assert [e["type"] for e in fx] == ["problem"]
    doc = modes.state_json(table)
    assert doc["seq"] == 9 and doc["problems"] == ["no game is paused, so there is nothing to resume"]
    twelve = load_map("kipuka-12")
    table, fx = modes.apply(table, map_event(twelve.name, twelve.source_text), 10)
    doc = modes.state_json(table)
    assert doc["seq"] == 10 and any("the map stays" in p for p in doc["problems"]), doc["problems"]
    assert table.problem_causes[-1].cycle == 2, "raised in the game's diel cycle: it lasts as Kipukas's own"
    table, _ = modes.apply(table, {"type": "answer", "question": "q9", "answer": 1}, 11)  # refused too
    assert any("the map stays" in p for p in modes.state_json(table)["problems"])
    shares_what_kipukas_says(table)  # the next Kipukas event hands the table its own state again


def test_resuming_kipukas_shows_the_resume_s_journal_number() -> None:
    table = kipukas_in_play()
    table, _ = modes.apply(table, example_new_game(), 8)
    table, _ = modes.apply(table, {"type": "stand", "stand": "M1a", "occupied": True}, 9)
    table, fx = modes.apply(table, {"type": "resume"}, 10)
    assert [e["type"] for e in fx] == ["resumed"] and table.game == "kipukas"
    assert modes.state_json(table)["seq"] == 10 and kipukas_state(table).seq == 10


def test_undo_after_a_resume_takes_back_the_kipukas_action_and_leaves_the_duel_paused() -> None:
    """The undo entry holds Kipukas's state only: taking back a diel roll made before the duel does not
    throw away the duel the resume put aside (the table's paused game is not Kipukas's to undo)."""
    table = kipukas_in_play()
    table, _ = modes.apply(table, example_new_game(), 8)
    table, _ = modes.apply(table, {"type": "stand", "stand": "M1a", "occupied": True}, 9)
    table, _ = modes.apply(table, {"type": "resume"}, 10)
    table, fx = modes.apply(table, {"type": "undo"}, 11)
    assert [e["type"] for e in fx] == ["undone"] and fx[0]["action"] == "roll_diel"
    assert kipukas_state(table).diel_cycle == 1 and table.switches["M1a"], "the token moved meanwhile stays"
    assert table.paused is not None and table.paused.game == "duel"
    shares_what_kipukas_says(table)


def test_an_event_replay_could_not_apply_mid_game_shows_in_the_state_document() -> None:
    table = kipukas_in_play()
    table = replay_events([(9, map_event("Broken", "stands = [unclosed"))], table)
    assert table.problems, "the table says so, as the core loop's 'not applied' does"
    assert modes.state_json(table)["problems"] == list(table.problems)
    table = replay_events([(9, {"type": "stand", "stand": "M1a", "occupied": True})], table)
    assert table.problems[0] in modes.state_json(table)["problems"], "the next Kipukas event keeps it"


def redrawn(**names: str) -> dict:
    """The ``map`` event of kipuka-8 with territories renamed (``t1="Ash Ridge"``): the same stands and
    paths, another drawing."""
    data = map_data()
    for t in data["territories"]:
        t["name"] = names.get(f"t{t['number']}", t["name"])
    return map_event(BOARD.name, to_toml(data))


def test_a_map_redrawn_during_a_duel_is_the_map_of_the_resumed_kipukas_game() -> None:
    table = kipukas_in_play()
    table, _ = modes.apply(table, example_new_game(), 8)
    event = redrawn(t1="Ash Ridge")
    table, fx = modes.apply(table, event, 9)
    assert fx == [{"type": "map", "name": BOARD.name, "kept": True}]
    assert table.board.territories[1].name == "Ash Ridge" and table.game == "duel"
    table, fx = modes.apply(table, {"type": "resume"}, 10)
    assert [e["type"] for e in fx] == ["resumed"] and table.game == "kipukas"
    assert table.board.territories[1].name == "Ash Ridge"
    assert kipukas_state(table).board is table.board, "the game goes on, on the table's drawing"
    assert modes.state_json(table)["map"]["territories"][0]["name"] == "Ash Ridge"
    assert kipukas_state(table).phase == "play" and kipukas_state(table).diel_cycle == 2, "the game itself kept"
    table, _ = modes.apply(table, {"type": "stand", "stand": "M1a", "occupied": True}, 11)
    shares_what_kipukas_says(table)
    assert kipukas_state(table).board.territories[1].name == "Ash Ridge"


def test_another_map_while_kipukas_is_paused_is_refused_naming_the_paused_game_and_keeps_it() -> None:
    """A duel over, Kipukas still paused: a map with other stands or paths would throw Kipukas away,
    so the rules refuse it as they do during the game, and Resume still brings Kipukas back."""
    table = kipukas_in_play()
    table, _ = modes.apply(table, example_new_game(), 8)
    table, _ = modes.apply(table, {"type": "duel_concede", "seat": 2}, 9)
    assert modes.game_in_progress(table) is None and table.paused is not None
    twelve = load_map("kipuka-12")
    table, fx = modes.apply(table, map_event(twelve.name, twelve.source_text), 10)
    assert [e["type"] for e in fx] == ["problem"], fx
    assert fx[0]["text"] == ("the map stays Kipuka of Eight while a game of Kipukas is under way (paused: Resume on "
                             "any page brings it back); end the game first to play on Kipuka of Twelve")
    assert table.board.name == "Kipuka of Eight" and table.paused is not None and table.seq == 10
    table, fx = modes.apply(table, {"type": "resume"}, 11)
    assert table.game == "kipukas" and kipukas_state(table).diel_cycle == 2


def test_undo_after_a_redrawn_map_keeps_the_new_drawing() -> None:
    """The undo entry holds the game as it was before the diel roll, drawn as it was then: taking the
    roll back keeps the table's drawing (a redraw changes no stand nor path, so nothing else)."""
    table = kipukas_in_play()
    event = redrawn(t1="Ash Ridge")
    table, _ = modes.apply(table, event, 8)
    table, fx = modes.apply(table, {"type": "undo"}, 9)
    assert [e["type"] for e in fx] == ["undone"] and kipukas_state(table).diel_cycle == 1
    assert table.board.territories[1].name == "Ash Ridge"
    shares_what_kipukas_says(table)


def test_a_resume_onto_a_map_with_other_stands_is_refused_saying_why() -> None:
    """The rules refuse such a map while a game is paused, so only a hand-made table meets this: the
    resume says why rather than play the paused game on stands it does not have."""
    table = kipukas_in_play()
    table, _ = modes.apply(table, example_new_game(), 8)
    elsewhere = table.evolve(board=load_map("kipuka-12"))
    after, fx = modes.apply(elsewhere, {"type": "resume"}, 9)
    assert fx == [{"type": "problem", "text": "Kipukas was paused on Kipuka of Eight, whose stands or paths differ "
                                              "from Kipuka of Twelve on the table now; it cannot go on on this map"}]
    assert after.game == "duel" and after.paused is table.paused and after.seq == 9
