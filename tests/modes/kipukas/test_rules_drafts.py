"""The rules core changes one private draft per event in place (``game.state.draft``). These tests
hold it to a core that copies the state on every change: the same states (every field) and effects
after every event, the state handed in never changed, and no draft ever handed out."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rules_properties import BOARDS, game, to_event

from kipukas_board.modes.kipukas.rules import core
from kipukas_board.modes.kipukas.rules.dice import SeededDice
from kipukas_board.modes.kipukas.rules.simulate import random_game
from kipukas_board.modes.kipukas.rules.state import _DRAFT, _FIELDS, KipukasState, draft, initial_state, seal
from kipukas_board.modes.kipukas.rules.view import state_json
from kipukas_board.table.events import check_event, map_event


def apply_with_copies(state: KipukasState, event: dict, seq: int) -> tuple[KipukasState, list]:
    """``core.apply`` with an ordinary copy for its draft: every ``evolve`` inside the step copies."""
    real = core.draft
    core.draft = lambda s: s.evolve()  # an ordinary copy: evolve on it copies again
    try:
        return core.apply(state, event, seq=seq)
    finally:
        core.draft = real


class Twin:
    """Feeds every event to the draft-using core and to the copying one, and compares."""

    def __init__(self, board) -> None:
        self.state = initial_state(board)
        self.ref = initial_state(board)
        self.seq = 0

    def feed(self, event: dict) -> None:
        check_event(event)
        self.seq += 1
        before = dict(self.state.__dict__)
        new, effects = core.apply(self.state, event, seq=self.seq)
        ref, ref_effects = apply_with_copies(self.ref, event, self.seq)
        assert self.state.__dict__ == before, f"{event['type']} changed the state it was given"
        assert _DRAFT not in new.__dict__, f"{event['type']} handed out a draft"
        assert effects == ref_effects, f"{event['type']}: effects differ from the copying core"
        assert fields_of(new) == fields_of(ref), f"{event['type']}: state differs from the copying core"
        assert state_json(new) == state_json(ref)
        self.state, self.ref = new, ref


def fields_of(s: KipukasState) -> dict:
    """Every field of ``s``; an undo entry's "before" state compared the same way, not by identity."""
    out = {f: getattr(s, f) for f in sorted(_FIELDS) if f != "undo"}
    out["undo"] = [(u.action, u.seq, u.since, u.expired, fields_of(u.before)) for u in s.undo]
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game)
def test_drafts_give_the_same_states_and_effects_as_copies(g):
    board = BOARDS[g["map"]]
    players = g["players"] if g["style"] == "mass_contention" and g["map"] == "kipuka-12" else 2
    twin = Twin(board)
    twin.feed(map_event(board.name, board.source_text))
    twin.feed({"type": "new_game", "edition": g["edition"], "play_style": g["style"], "first_placer": 1,
               "options": {"cycles": 4, "territory": 2, "soul_limit": 3},
               "players": [{"seat": s, "name": f"P{s}", "color": "#102030"} for s in range(1, players + 1)]})
    squares = sorted(s.id for s in board.stands.values() if s.kind == "territory")
    for i in g["setup"]:
        sid = squares[i % len(squares)] if i % 7 else sorted(board.stands)[i % len(board.stands)]
        twin.feed({"type": "stand", "stand": sid, "occupied": not twin.state.stands[sid].occupied})
    for op, a, b in g["ops"]:
        e = to_event(twin.state, op, a, b)
        if e is not None:
            twin.feed(e)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.sampled_from([2, 3]))
def test_drafts_match_copies_over_generated_games_with_souls_and_bouts(seed, players):
    board = BOARDS["kipuka-12"]
    style = "domination" if players == 2 else "mass_contention"
    events = random_game(board, 600, SeededDice(seed), players=players, play_style=style)
    twin = Twin(board)
    for e in events:
        twin.feed(e)
    kinds = {e["type"] for e in events}
    assert {"card", "roll_diel", "stand"} <= kinds  # the generated game shows cards, rolls and moves


def test_a_draft_changes_in_place_and_a_sealed_one_copies():
    state = initial_state(BOARDS["kipuka-8"])
    work = draft(state)
    assert work.evolve(diel_cycle=3) is work and work.diel_cycle == 3
    assert state.diel_cycle == 0  # the draft is a copy: the state it came from is untouched
    assert seal(work) is True
    copy = work.evolve(diel_cycle=4)
    assert copy is not work and work.diel_cycle == 3 and copy.diel_cycle == 4
    assert seal(draft(state)) is False  # a draft nobody changed says so


def test_a_handler_that_raises_leaves_no_draft_behind(monkeypatch):
    state = initial_state(BOARDS["kipuka-8"])
    seen: list[KipukasState] = []

    def boom(s, e, fx):
        seen.append(s.evolve(diel_cycle=9))
        raise RuntimeError("a rules bug")

    monkeypatch.setitem(core._HANDLERS, "stand", boom)
    with pytest.raises(RuntimeError):
        core.apply(state, {"type": "stand", "stand": "T1", "occupied": True}, seq=1)
    assert _DRAFT not in seen[0].__dict__ and state.diel_cycle == 0
