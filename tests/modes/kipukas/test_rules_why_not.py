"""One rule, one check: the page refuses an action with the words the rules core would use for the same
event in the same state (both ask :func:`kipukas_board.modes.kipukas.rules.checks.why_not`), and a
refused action is never journaled."""

from __future__ import annotations

import pytest
from rules_table import Table

from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.dice import ScriptedDice

SETUP = ["T1", "T8", "T2", "T7", "T5", "T4"]

#: (the page's action and body, the event it would journal) refused before setup is over
BEFORE_PLAY = [
    ("roll-diel", {}, {"type": "roll_diel", "cycle": 1, "phase": "day", "roll": 3, "source": "board"}),
    ("initiative", {"seat": 1}, {"type": "take_initiative", "seat": 1}),
    ("resolve-contention", {"territory": 3, "winner": 1}, {"type": "resolve_contention", "territory": 3, "winner": 1}),
    ("bout", {"territory": 3, "winner": 1, "loser": 2}, {"type": "bout", "territory": 3, "winner": 1, "loser": 2}),
]
#: refused during play
IN_PLAY = [
    ("answer", {"question": "q9", "answer": 1}, {"type": "answer", "question": "q9", "answer": 1}),
    ("resolve-contention", {"territory": 3, "winner": 1}, {"type": "resolve_contention", "territory": 3, "winner": 1}),
    ("soul-lost", {"seat": 4}, {"type": "soul_lost", "seat": 4}),
    ("timer", {"label": "effect", "cycles": 2, "seat": 3}, {"type": "timer_start", "label": "effect", "cycles": 2,
                                                             "seat": 3}),
    ("timer-cancel", {"timer": "t7"}, {"type": "timer_cancel", "timer": "t7"}),
    ("end-game", {"winner": 4}, {"type": "end_game", "winner": 4}),
]


def refused_alike(t: Table, action: str, body: dict, event: dict) -> None:
    state = t.board.loop.state
    said = t.act(action, body, status=409)["error"]
    _, effects = apply(kipukas_state(state), event, seq=None)
    assert [e["text"] for e in effects if e["type"] == "problem"] == [said]
    assert t.board.loop.state.seq == state.seq  # nothing journaled


@pytest.mark.parametrize(("action", "body", "event"), BEFORE_PLAY, ids=[a for a, _, _ in BEFORE_PLAY])
def test_before_play_the_page_and_the_core_refuse_in_the_same_words(data_dir, action, body, event):
    with Table(data_dir) as t:
        t.new_game(2, first_placer=1)
        refused_alike(t, action, body, event)


@pytest.mark.parametrize(("action", "body", "event"), IN_PLAY, ids=[f"{a}-{i}" for i, (a, _, _) in enumerate(IN_PLAY)])
def test_in_play_the_page_and_the_core_refuse_in_the_same_words(data_dir, action, body, event):
    with Table(data_dir, dice=ScriptedDice([1] * 20)) as t:
        t.new_game(2, first_placer=1)
        t.put(*SETUP)
        refused_alike(t, action, body, event)
