"""What now: the page's what-now line and its "Why?", from the rules core's
:func:`~kipukas_board.modes.kipukas.rules.guide.next_step`, for every moment of setup and play.

Where a sentence states a rule, the test names the rule book that says so ("the Kipukas web rules",
"the December 2023 rule book"); the games are played through the pure core, one event at a time.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kipukas_board.board.mapfile import BoardMap, load_map
from kipukas_board.board.places import place_names
from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.dice import SeededDice
from kipukas_board.modes.kipukas.rules.guide import NextStep, next_json, next_step, refusals
from kipukas_board.modes.kipukas.rules.simulate import random_game
from kipukas_board.modes.kipukas.rules.state import KipukasState, Soul, StandState, TerritoryState, initial_state
from kipukas_board.modes.kipukas.rules.view import state_json
from kipukas_board.table.events import stand_event

BOARD = load_map("kipuka-8")
NAMES = ["Ana", "Ben", "Cai", "Dee"]
COLORS = ["#d7263d", "#1b98e0", "#f7f35a", "#8800ff"]
#: A legal domination setup for two players on kipuka-8: capitals T1 and T8, then base camps.
SETUP = ["T1", "T8", "T2", "T7", "T5", "T4"]
STAND_ID = re.compile(rf"\b({'|'.join(BOARD.stands)})\b")
DAY = "Day: resolve contention, play a card, move souls and claim territory."


def new_game(players: int = 2, first: int = 1, rolls: object = ((1, 5), (2, 3)), board: BoardMap = BOARD,
             **event: object) -> KipukasState:
    ev = {"type": "new_game", "edition": "web", "play_style": "domination", "first_placer": first, "options": {},
          "players": [{"seat": s, "name": NAMES[s - 1], "color": COLORS[s - 1]} for s in range(1, players + 1)],
          **event}
    if rolls is not None:
        ev["placement_rolls"] = [list(r) for r in rolls]  # type: ignore[union-attr]
    state, effects = apply(initial_state(board), ev)
    assert not [e for e in effects if e["type"] == "problem"], effects
    return state


def put(state: KipukasState, *sids: str) -> KipukasState:
    for sid in sids:
        state, _ = apply(state, stand_event(sid, True))
    return state


def in_play(edition: str = "web") -> KipukasState:
    state = put(new_game(edition=edition), *SETUP)
    assert state.phase == "play"
    return state


# -- before a game, and after one ----------------------------------------------------------------

def test_with_no_game_the_page_says_how_to_start_one():
    assert next_step(initial_state(BOARD)) == NextStep(
        None, "No game yet. Start one under More actions → New game.",
        "Each player puts their tokens by their seat; one phone with the PIN starts the game.")


def test_a_game_won_names_the_winner():
    state = in_play().evolve(phase="over", winner=2)
    assert next_step(state) == NextStep(2, "Ben won. Game over.",
                                        "Start a new game under More actions, or print the game report.")


def test_a_game_over_without_a_winner_says_so():
    step = next_step(in_play().evolve(phase="over", winner=None))
    assert (step.seat, step.now) == (None, "The game is over without a winner.")


# -- setup ---------------------------------------------------------------------------------------

def test_setup_begins_with_the_first_placers_capital_and_the_rolls_that_chose_them():
    # Both rule books, "Game Setup" 4: both players roll a D6, the higher roll places first; 5: one
    # player places their capital, then the other, then base camps.
    step = next_step(new_game(first=1, rolls=((1, 5), (2, 3))))
    assert step == NextStep(1, "Ana: place your capital on a territory stand.",
                            "Everyone places a capital first, then base camps, in turn: Ana, then Ben. "
                            "Ana places first (D6 for first placement: Ana 5, Ben 3).")


def test_the_capitals_go_round_the_table_from_the_first_placer():
    three = new_game(players=3, first=2, rolls=((1, 2), (2, 6), (3, 4)), play_style="mass_contention",
                     board=load_map("kipuka-12"))
    step = next_step(put(three, "T1"))
    assert step.seat == 3
    assert step.now == "Cai: place your capital on a territory stand."
    assert "in turn: Ben, then Cai, then Ana." in step.why
    assert "Ben places first (D6 for first placement: Ana 2, Ben 6, Cai 4)." in step.why


def test_a_tie_rolls_again_and_every_roll_is_told():
    step = next_step(new_game(first=2, rolls=((1, 4), (2, 4), (1, 1), (2, 6))))
    assert step.why.endswith("Ben places first (D6 for first placement: Ana 4, Ben 4, Ana 1, Ben 6).")


def test_once_every_capital_is_down_base_camps_follow():
    step = next_step(put(new_game(), "T1", "T8"))
    assert step == NextStep(1, "Ana: place a base camp on a territory stand.",
                            "Base camps now, in turn: Ana, then Ben. "
                            "Ana places first (D6 for first placement: Ana 5, Ben 3).")


def test_without_the_rolls_the_why_still_says_how_the_first_placer_was_chosen():
    step = next_step(new_game(rolls=None))
    assert step.why.endswith("Ana places first (highest D6 roll).")


@pytest.mark.parametrize("rolls", [[[1, "5"]], [[1]], ["x"], [[1, 5, 6]], [[True, 5]]])
def test_rolls_of_another_form_are_left_out_not_shown_wrong(rolls):
    step = next_step(new_game(rolls=rolls))
    assert step.why.endswith("Ana places first (highest D6 roll).")


def test_king_of_the_hill_setup_names_the_hill():
    state = new_game(play_style="king_of_the_hill", options={"territory": 3, "cycles": 4})
    assert next_step(state).why.endswith(
        "The hill is Long Grass (3, marked ▲ on the map): nobody holds it; hold it 4 cycles to win.")


def test_a_new_game_on_a_map_with_tokens_left_asks_to_clear_it_first_then_the_capital():
    played = put(in_play(), "M2a")  # a game's tokens still on the map (T1 ... T4, a soul on M2a)
    ev = {"type": "new_game", "edition": "web", "play_style": "domination", "first_placer": 2, "options": {},
          "players": [{"seat": s, "name": NAMES[s - 1], "color": COLORS[s - 1]} for s in (1, 2)]}
    state, _ = apply(played, ev)
    step = next_step(state)
    assert (step.seat, step.now) == (None, "Clear the map first: lift the tokens left on it.")
    assert step.why.startswith("7 tokens are still on the map (the stand in Fern Hollow towards Ember Ridge, ")
    assert step.why.endswith(", ...); setup starts on an empty map, then Ben places a capital.")
    assert not STAND_ID.search(step.why), step.why
    for sid in [*SETUP, "M2a"][:-1]:
        state, _ = apply(state, stand_event(sid, False))
    assert next_step(state).why.startswith("1 token is still on the map (the ")
    state, _ = apply(state, stand_event("M2a", False))
    assert next_step(state).now == "Ben: place your capital on a territory stand."


# -- play ----------------------------------------------------------------------------------------

def test_play_begins_with_the_player_who_placed_the_capital_second_in_the_opening_day():
    # Both rule books, "Game Setup" 9: "Begin the game on the turn of the player who placed their
    # capital second"; the Kipukas web rules: "The first 3 turns are predetermined to always be day,
    # then night, then day".
    assert next_step(in_play()) == NextStep(2, "Ben's initiative: play, then roll the diel die.",
                                            f"Cycle 1. {DAY} Cycle 2 is fixed: night.")


def test_the_web_rules_fix_three_opening_cycles_and_the_2023_book_two():
    # The Kipukas web rules: day, night, day; the December 2023 rule book: "The first diel cycle is
    # always day, followed by night".
    web, book = in_play("web").evolve(diel_cycle=2), in_play("2023").evolve(diel_cycle=2)
    assert next_step(web).why.endswith("Cycle 3 is fixed: day.")
    assert "fixed" not in next_step(book).why
    assert next_step(web.evolve(diel_cycle=3)).why == f"Cycle 3. {DAY}"


@pytest.mark.parametrize(("edition", "count", "cycles"), [("web", 3, "day, night, day"), ("2023", 2, "day, night")])
def test_before_the_first_roll_the_fixed_opening_is_told(edition, count, cycles):
    state = in_play(edition).evolve(diel_phase=None, diel_cycle=0)
    assert next_step(state) == NextStep(2, "Roll the diel die to start cycle 1.",
                                        f"The first {count} cycles are fixed ({cycles}); the die decides after that.")


def test_the_night_reads_as_each_edition_has_it():
    # The Kipukas web rules, "Night Actions": draw, craft, play a sabotage card, take initiative for
    # the next diel cycle. The December 2023 rule book, "Night": discard, draw, craft, then "either
    # play a sabotage card or lay a trap".
    web = next_step(in_play("web").evolve(diel_phase="night", diel_cycle=4)).why
    book = next_step(in_play("2023").evolve(diel_phase="night", diel_cycle=4)).why
    assert web == "Cycle 4. Night: draw, craft, sabotage or take the initiative. Souls may not move."
    assert book == "Cycle 4. Night: discard, draw, craft, then sabotage or lay a trap. Souls may not move."


def test_a_storm_says_who_is_hurt_and_that_the_initiative_carries_over():
    # Both rule books, "Storm": a card not within a capital or base camp takes KEAL means damage; the
    # Kipukas web rules: "Initiative does not apply to storm rolls. It carries over".
    step = next_step(in_play().evolve(diel_phase="storm", diel_cycle=5))
    assert step.why == ("Cycle 5. Storm: souls outside a capital or base camp lose a KEAL means. "
                        "Initiative carries over.")
    assert step.seat == 2


def test_with_nobody_holding_the_initiative_the_cycle_is_everyones():
    step = next_step(in_play().evolve(initiative=None, diel_cycle=4))
    assert (step.seat, step.now) == (None, "Play the cycle, then roll the diel die.")


def test_the_initiative_taken_moves_the_line_to_its_holder():
    state, _ = apply(in_play(), {"type": "take_initiative", "seat": 1})
    assert next_step(state).now == "Ana's initiative: play, then roll the diel die."


@pytest.mark.parametrize(("cycle", "left"), [(1, "5 cycles left of 6."), (5, "1 cycle left of 6."),
                                             (6, "0 cycles left of 6."), (9, "0 cycles left of 6.")])
def test_a_style_played_for_so_many_cycles_counts_them_down(cycle, left):
    state = put(new_game(play_style="coastal_war", options={"cycles": 6}), *SETUP).evolve(diel_cycle=cycle)
    assert next_step(state).why.endswith(f" {left}")


def test_king_of_the_hill_counts_only_while_someone_holds_the_hill():
    state = put(new_game(play_style="king_of_the_hill", options={"territory": 5, "cycles": 3}), "T1", "T2")
    assert state.phase == "play"
    hill = TerritoryState(owner=1, claim="base_camp")
    held = state.evolve(territories={**state.territories, 5: hill}, hill_since=1, diel_cycle=2)
    assert next_step(state).why.endswith(
        "The hill is Mossdeep (5, marked ▲ on the map): nobody holds it; hold it 3 cycles to win.")
    assert next_step(held).why.endswith("Ana holds the hill, Mossdeep (5, marked ▲ on the map): 2 cycles more to win.")
    assert next_step(held.evolve(hill_since=None)).why.endswith(
        "Ana holds the hill, Mossdeep (5, marked ▲ on the map): hold it 3 cycles in play to win.")
    assert next_step(held.evolve(diel_cycle=9)).why.endswith("0 cycles more to win.")


# -- what comes first in play --------------------------------------------------------------------

def test_an_open_question_comes_before_all_else():
    q = {"id": "q1", "text": "Whose token is on M3a?", "options": [1, 2], "stand": "M3a"}
    state = in_play().evolve(questions=(q,), diel_phase="day")
    assert next_step(state) == NextStep(None, "Answer the board's question first.", "")


def test_a_wasted_souls_token_still_on_the_map_is_called_out_by_its_place():
    soul = Soul(id="s1", seat=2, code="Rv", copy=None, serial=None, title="Raven", tolerance=0, movement=2,
                wasted=True)
    state = in_play()
    stands = {**state.stands, "M3a": StandState(occupied=True, owner=2, soul="s1")}
    step = next_step(state.evolve(souls={"s1": soul}, stands=stands))
    assert step == NextStep(2, "Raven (Ben) is wasted: take its token off the map.",
                            f"Its token is on {place_names(BOARD)['M3a']}, marked ✕ on the map. "
                            "A wasted soul counts as lost.")
    assert "M3a" not in step.why
    lifted = {**stands, "M3a": StandState(occupied=False, soul="s1")}
    assert "wasted" not in next_step(state.evolve(souls={"s1": soul}, stands=lifted)).now


def test_a_fight_by_day_names_the_fighters_and_the_territories():
    # Both rule books, "Day" 1: "If enemies are in your territory, choose to attack or retreat"
    # before anything else that day.
    state = in_play()
    contended = {**state.territories, 3: TerritoryState(contention=True),
                 6: TerritoryState(contention=True)}
    fight = state.evolve(territories=contended, contenders={3: (2, 1), 6: (1, 2)})
    assert next_step(fight) == NextStep(2, "Ana and Ben fight over Long Grass (3), Sunflats (6): tap who won.", DAY)
    assert next_step(fight.evolve(contenders={})).now == "Fight over Long Grass (3), Sunflats (6): tap who won."
    # by night a fight waits for the day: the line is the cycle's
    assert next_step(fight.evolve(diel_phase="night")).now == "Ben's initiative: play, then roll the diel die."


# -- what the page greys out -------------------------------------------------------------------

def test_before_play_the_diel_die_and_the_initiative_are_refused_and_the_game_may_end():
    assert refusals(new_game()) == {
        "roll_diel": "the diel die is rolled only while the game is in play (it is in setup)",
        "take_initiative": "initiative is taken only while the game is in play (it is in setup)"}
    assert set(refusals(initial_state(BOARD))) == {"roll_diel", "take_initiative", "end_game"}


def test_in_play_the_page_may_roll_take_the_initiative_and_end_the_game():
    assert refusals(in_play()) == {}


def test_in_a_storm_the_initiative_is_refused_as_the_web_rules_say():
    # The Kipukas web rules: "Initiative does not apply to storm rolls. It carries over".
    assert refusals(in_play().evolve(diel_phase="storm")) == {
        "take_initiative": "initiative does not apply to storm rolls; it carries over"}


def test_a_game_over_refuses_all_three():
    assert set(refusals(in_play().evolve(phase="over"))) == {"roll_diel", "take_initiative", "end_game"}


def test_the_state_document_carries_the_step_and_the_refusals():
    state = new_game()
    assert state_json(state)["next"] == {**next_step(state).to_json(), "refused": refusals(state)}


# -- every state a game can reach ----------------------------------------------------------------

@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), edition=st.sampled_from(["web", "2023"]),
       style=st.sampled_from([("domination", {}), ("coastal_war", {"cycles": 5})]))
def test_every_state_of_a_game_has_a_next_step_for_a_player_or_for_all(seed, edition, style):
    state = initial_state(BOARD)
    events = random_game(BOARD, 150, SeededDice(seed), edition=edition, play_style=style[0], options=style[1])
    for event in events:
        state, _ = apply(state, event)
        step = next_step(state)
        assert step.now.endswith(".")
        assert step.seat is None or step.seat in state.seats
        assert not STAND_ID.search(f"{step.now} {step.why}"), step  # stands by place, never by id
        for kind, why in refusals(state).items():  # refused in the core's own words
            event = {"type": kind, "seat": state.seats[0] if state.seats else 1}
            assert [e["text"] for e in apply(state, event)[1] if e["type"] == "problem"] == [why]
    assert state_json(state)["next"] == next_json(state)


def test_the_rules_name_a_player_by_name_and_add_the_seat_only_to_tell_two_of_one_name_apart():
    from kipukas_board.modes.kipukas.rules.common import seat_name
    from kipukas_board.modes.kipukas.rules.state import Player

    state = new_game()
    assert (seat_name(state, 1), seat_name(state, 2), seat_name(state, 3)) == ("Ana", "Ben", "seat 3")
    twins = state.evolve(players=(Player(1, "Ana", COLORS[0]), Player(2, "ana", COLORS[1])))
    assert (seat_name(twins, 1), seat_name(twins, 2)) == ("Ana (seat 1)", "ana (seat 2)")
