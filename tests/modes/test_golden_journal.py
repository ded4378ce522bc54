"""A journal recorded on the board (a Kipukas game with token moves, diel rolls, souls, bouts, an
answered question, an undo; then a card duel, a game of Creature Combat Territory and a new Kipukas
game) replays to the state documents written beside it when it was recorded.

``fixtures/golden/journal.jsonl`` is ``GET /api/journal/export`` of that session;
``fixtures/golden/states.json`` holds ``/api/state`` (without what the runtime adds) after each of the
journal numbers named in ``checkpoints.json``. A change that moves code without meaning to change the
rules must leave every one of them equal; a rules change that means to alter them rewrites
``states.json`` on purpose and says why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kipukas_board.board.mapfile import load_map
from kipukas_board.modes import new_table, state_json
from kipukas_board.modes.replay import read_lines, replay_events

GOLDEN = Path(__file__).parents[1] / "fixtures" / "golden"
CHECKPOINTS: dict[str, int] = json.loads((GOLDEN / "checkpoints.json").read_text())


def replayed_to(seq: int) -> dict:
    lines = (GOLDEN / "journal.jsonl").read_text().splitlines()
    events = [(s, e) for s, e in read_lines(lines, "journal.jsonl") if s is not None and s <= seq]
    assert len(events) == seq
    doc = state_json(replay_events(events, new_table(load_map("kipuka-8"))))
    return json.loads(json.dumps(doc))  # tuples as lists, as the page receives them


@pytest.mark.parametrize("name", list(CHECKPOINTS))
def test_the_recorded_journal_replays_to_the_recorded_state(name: str) -> None:
    want = json.loads((GOLDEN / "states.json").read_text())[name]
    got = replayed_to(CHECKPOINTS[name])
    assert got == want
