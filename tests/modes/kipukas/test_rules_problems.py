"""Problems that clear themselves, at the edges: undo re-applying the token moves that came after the
undone action, and a list at its cap (the oldest problem dropped to make room); and every problem,
refusal and spoken line naming a territory as the map names it."""

from __future__ import annotations

import pytest

from kipukas_board.board.mapfile import load_map, parse_map
from kipukas_board.modes.kipukas.phrases import phrases_for
from kipukas_board.modes.kipukas.rules.checks import why_not
from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.state import MAX_PROBLEMS, KipukasState, initial_state
from kipukas_board.table.problems import settle

BOARD = load_map("kipuka-8")
#: kipuka-8 with no territory named: a number is all players have to go by
UNNAMED = parse_map("\n".join(line for line in BOARD.source_text.splitlines() if not line.startswith("name = ")
                              or line == f"name = {BOARD.name!r}".replace("'", '"')), "unnamed")
NEW_GAME = {"type": "new_game", "edition": "web", "play_style": "domination", "first_placer": 1,
            "players": [{"seat": 1, "name": "A", "color": "#ff0000"}, {"seat": 2, "name": "B", "color": "#0000ff"}]}


def fold(state: KipukasState, *events: dict) -> KipukasState:
    for e in events:
        state, _ = apply(state, e, seq=state.seq + 1)
    return state


def stand(sid: str, occupied: bool) -> dict:
    return {"type": "stand", "stand": sid, "occupied": occupied}


def test_undo_keeps_a_problem_cleared_by_a_token_move_it_re_applies() -> None:
    s = fold(initial_state(BOARD), {
        "type": "new_game", "edition": "web", "play_style": "domination", "first_placer": 1,
        "players": [{"seat": 1, "name": "A", "color": "#ff0000"}, {"seat": 2, "name": "B", "color": "#0000ff"}]},
        *(stand(sid, True) for sid in ("T1", "T8", "T2", "T7", "T5", "T4")),
        {"type": "roll_diel", "cycle": 2, "phase": "night", "roll": None, "source": "fixed"},
        stand("M1a", True))  # a soul put down at night: a problem naming M1a
    assert any("M1a" in p for p in s.problems)
    s = fold(s, {"type": "take_initiative", "seat": 1}, stand("M1a", False))  # lifted again: it is over
    assert not any("M1a" in p for p in s.problems)
    s = fold(s, {"type": "undo"})  # undoes the initiative; the lift really happened and is kept
    assert s.initiative != 1 and not s.stands["M1a"].occupied
    assert not any("M1a" in p for p in s.problems), s.problems


def test_at_the_cap_the_open_problems_keep_their_causes() -> None:
    s = initial_state(BOARD)
    for i in range(MAX_PROBLEMS):  # refusals: over at the next accepted action
        s = settle(s, s.with_problem(f"refused {i}"), {"type": "undo"}, [{"type": "problem", "text": f"refused {i}"}])
    night = "a token was put on M1a during the night"
    s = settle(s, s.with_problem(night), {"type": "stand", "stand": "M1a"},
               [{"type": "stand", "stand": "M1a"}, {"type": "problem", "text": night}])
    assert len(s.problems) == MAX_PROBLEMS and s.problems[-1] == night and s.problems[0] == "refused 1"
    assert [c.refused for c in s.problem_causes] == [True] * (MAX_PROBLEMS - 1) + [False]
    s = settle(s, s.evolve(initiative=1), {"type": "take_initiative"}, [{"type": "initiative"}])
    assert s.problems == (night,)


@pytest.mark.parametrize(("board", "peaks"), [(BOARD, "Grey Peaks (4)"), (UNNAMED, "territory 4")])
def test_problems_refusals_and_spoken_lines_name_a_territory_as_the_map_does(board, peaks) -> None:
    """"Ben claims Grey Peaks (4) with a base camp", never "Grey Peaks, territory 4": the name the
    map gives with the number the map shows, or the number alone where the map names none."""
    assert board.territories[4].name == ("Grey Peaks" if board is BOARD else "")
    s = fold(initial_state(board), NEW_GAME, *(stand(sid, True) for sid in ("T1", "T8", "T2", "T7", "T5", "T4")))
    assert s.territories[4].owner == 2 and s.phase == "play"
    said = phrases_for({"type": "claimed", "territory": 4, "owner": 2, "claim": "base_camp"}, s)
    assert said == [f"B claims {peaks} with a base camp."]
    assert why_not(s, {"type": "resolve_contention", "territory": 4, "winner": 1}) == f"{peaks} is not in contention"
    bout = why_not(s, {"type": "bout", "territory": 4, "winner": 1, "loser": 2})
    bout = bout or [e["text"] for e in apply(s, {"type": "bout", "territory": 4, "winner": 1, "loser": 2},
                                             seq=s.seq + 1)[1] if e["type"] == "problem"][0]
    assert f"has no soul in {peaks} " in bout, bout
    ember = "Ember Ridge (1)" if board is BOARD else "territory 1"
    taken = fold(s, {"type": "correction", "target": "territory", "territory": 1, "owner": 2})
    assert taken.problems[-1].startswith(f"{ember} is A's capital and cannot be taken: "), taken.problems
