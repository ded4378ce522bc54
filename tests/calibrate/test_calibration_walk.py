"""The sensor walk catches a maker's slips: conflicts, redo, the fast walk and the read-back.

A hand is modelled as a player who puts a token where they think the walk asks, sometimes on the
wrong stand without noticing; whatever the slips, the walk must end with every stand on its own
channel, and a token on the wrong stand must never be saved silently.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board.calibrate.sensor_walk import SensorWalk

STANDS = [f"S{i}" for i in range(10)]


def play(walk: SensorWalk, wiring: dict[str, str], slips: dict[int, int], limit: int = 400) -> int:
    """Walk with a player who answers every ask on the asked stand, except at the ask numbers in
    ``slips``, where the token goes on another stand and is lifted again without a word. A conflict
    the player sees is answered as a person would: "it *is* on the asked stand" when it is, or the
    token is lifted and put where it belongs. Returns the number of token moves."""
    moves = asks = 0
    while not walk.done:
        assert moves < limit, walk.status()
        asked = walk.current
        target = asked
        if asks in slips:
            target = STANDS[slips[asks] % len(STANDS)]
        asks += 1
        ch = wiring[target]
        walk.on_change(ch, True)
        moves += 1
        if walk.conflict is not None:
            if target == asked:
                walk.resolve()
            else:  # the player sees the map point at the other stand: lifts it, places it right
                walk.on_change(ch, False)
                moves += 1
                assert walk.conflict is None
                continue
        if walk.step == "lift" or walk.current != asked or walk.mode == "lift":
            walk.on_change(ch, False)
            moves += 1
    return moves


def read_back(walk: SensorWalk, wiring: dict[str, str]) -> list[str]:
    """Touch every stand once, as the player does before saving; the stands the map showed wrong."""
    wrong = []
    for sid in STANDS:
        walk.on_change(wiring[sid], True)
        if walk.last_touch["stand"] != sid:
            wrong.append(sid)
        walk.on_change(wiring[sid], False)
    return wrong


@settings(max_examples=150, deadline=None)
@given(st.permutations(range(len(STANDS))), st.dictionaries(st.integers(0, 12), st.integers(0, 9), max_size=3))
def test_any_slips_end_with_every_stand_on_its_own_channel(perm, slips):
    """Most slips surface as a conflict during the walk; two that swap a pair of stands cannot
    (each took the other's sensor), and the read-back shows them on the map: redo, and it is right."""
    wiring = {sid: f"r{perm[i]}c1" for i, sid in enumerate(STANDS)}
    walk = SensorWalk(STANDS)
    play(walk, wiring, slips)
    for _ in range(3):
        wrong = read_back(walk, wiring)
        if not wrong:
            break
        for sid in wrong:
            walk.redo(sid)
        play(walk, wiring, {})
    assert walk.channels == {wiring[s]: s for s in STANDS}
    assert walk.dead == [] and walk.duplicate == [] and walk.open_items() == []
    assert set(walk.by_stand().values()) == {"verified"}


def test_the_slip_of_the_report_is_caught_at_the_stand_it_took_and_fixed_in_one_tap_per_stand():
    """Token meant for M1a on T6; the player then believes M1a is still asked and shifts by one."""
    stands = ["T1", "M1a", "M1b", "M1c", "T6"]
    wiring = {"T1": "r0c0", "M1a": "r1c1", "M1b": "r2c2", "M1c": "r3c3", "T6": "r15c14"}
    walk = SensorWalk(stands)
    for placed in ("T1", "T6", "M1a", "M1b"):  # the walk asks T1, M1a, M1b, M1c
        walk.on_change(wiring[placed], True)
        walk.on_change(wiring[placed], False)
    assert walk.current == "T6" and walk.channels["r15c14"] == "M1a"
    walk.on_change("r15c14", True)  # the token on T6: that channel is recorded as M1a's
    assert walk.conflict == {"stand": "T6", "channel": "r15c14", "owner": "M1a"}
    assert walk.step == "place" and walk.current == "T6"  # nothing recorded until the player says
    walk.resolve()                                        # "that was T6: redo M1a"
    walk.on_change("r15c14", False)
    cascade = []
    while not walk.done:
        asked = walk.current
        walk.on_change(wiring[asked], True)
        if walk.conflict:
            cascade.append((asked, walk.conflict["owner"]))
            walk.resolve()
        walk.on_change(wiring[asked], False)
    assert cascade == [("M1a", "M1b"), ("M1b", "M1c")]
    assert walk.channels == {ch: s for s, ch in wiring.items()}


def test_a_hand_that_brushes_another_stand_is_a_conflict_until_lifted_and_records_nothing():
    walk = SensorWalk(["A", "B"])
    walk.on_change("a", True)
    walk.on_change("a", False)
    walk.on_change("a", True)  # B is asked; A's token touched again
    assert walk.conflict["owner"] == "A" and "A" in walk.open_items()[0]
    walk.on_change("a", False)
    assert walk.conflict is None and walk.current == "B" and walk.channels == {"a": "A"}


def test_redo_any_stand_and_a_token_left_on_at_the_start():
    walk = SensorWalk(["A", "B", "C"], closed_at_start={"b": True})  # B's token forgotten on the board
    walk.on_change("a", True)
    walk.on_change("a", False)
    walk.skip()                           # nothing answers for B: its reed is the stuck one
    assert walk.dead == ["B"] and walk.stuck == ["b"]
    walk.on_change("b", False)            # the token is lifted: no longer stuck, B still dead ...
    assert walk.stuck == [] and walk.dead == ["B"]
    walk.redo("B")                        # ... until B is walked again, before C
    assert walk.current == "B" and walk.dead == []
    walk.on_change("b", True)
    walk.on_change("b", False)
    assert walk.current == "C"
    walk.on_change("c", True)
    walk.on_change("c", False)
    assert walk.done and walk.channels == {"a": "A", "b": "B", "c": "C"}
    walk.redo("A")                        # after the end too
    assert not walk.done and walk.current == "A" and "a" not in walk.channels
    with pytest.raises(ValueError, match="no stand 'Z'"):
        walk.redo("Z")


def test_redo_of_a_stand_not_walked_yet_is_not_asked_twice():
    walk = SensorWalk(["A", "B", "C"])
    walk.redo("C")
    walk.on_change("c", True)
    walk.on_change("c", False)
    assert walk.current == "A"
    for ch in ("a", "b"):
        walk.on_change(ch, True)
        walk.on_change(ch, False)
    assert walk.done and walk.channels == {"a": "A", "b": "B", "c": "C"}


@settings(max_examples=100, deadline=None)
@given(st.permutations(range(len(STANDS))), st.sets(st.integers(0, len(STANDS) - 1), max_size=3))
def test_the_fast_walk_takes_one_move_a_stand_and_undoes_a_bump(perm, bumps):
    wiring = {sid: f"r{perm[i]}c2" for i, sid in enumerate(STANDS)}
    walk = SensorWalk(STANDS, mode="fast")
    moves, t = 0, 0.0
    bumped: set[int] = set()
    while not walk.done:
        asked = walk.current
        i = STANDS.index(asked)
        t += 5.0
        walk.on_change(wiring[asked], True, at=t)
        moves += 1
        if i in bumps and i not in bumped:  # it slid off at once: the walk asks for it again
            bumped.add(i)
            walk.on_change(wiring[asked], False, at=t + 0.5)
            moves += 1
            assert walk.current == asked
    assert moves == len(STANDS) + 2 * len(bumped)  # a bump: it slides off, it goes back on
    assert walk.channels == {wiring[s]: s for s in STANDS}
    assert set(walk.by_stand().values()) == {"mapped"}
    for sid in STANDS:  # clearing the board is the read-back
        walk.on_change(wiring[sid], False, at=t + 10)
    assert set(walk.by_stand().values()) == {"verified"} and walk.open_items() == []


def test_the_fast_walk_tells_a_second_reed_from_the_next_token_by_time():
    walk = SensorWalk(["A", "B"], mode="fast")
    walk.on_change("a", True, at=0.0)
    walk.on_change("a2", True, at=0.05)  # no hand places the next token 50 ms later
    assert walk.current == "B" and walk.duplicate == ["a2"]
    walk.on_change("b", True, at=4.0)
    assert walk.done and walk.channels == {"a": "A", "b": "B"}


def test_the_read_back_shows_each_touch_and_strays_and_survives_a_restart():
    walk = SensorWalk(["A", "B"])
    for ch in ("a", "b"):
        walk.on_change(ch, True)
        walk.on_change(ch, False)
    walk.on_change("b", True)
    assert walk.last_touch == {"stand": "B", "channel": "b", "closed": True}
    walk.on_change("zz", True)  # a reed nobody walked
    assert walk.last_touch["stand"] is None and walk.strays == ["zz"]
    assert walk.by_stand() == {"A": "mapped", "B": "verified"}
    assert any("belong to no stand" in item for item in walk.open_items())
    again = SensorWalk.from_json(walk.to_json())
    assert again.status() == walk.status()


def test_unknown_mode_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="expected lift or fast"):
        SensorWalk(["A"], mode="quick")


def test_a_slip_in_a_fast_walk_is_found_by_lifting_and_replacing_the_token_already_there():
    walk = SensorWalk(["T1", "M1a", "M1b", "T6"], mode="fast")
    wiring = {"T1": "a", "M1a": "b", "M1b": "c", "T6": "f"}
    walk.on_change("a", True, at=1.0)
    walk.on_change("f", True, at=5.0)   # M1a's token went on T6
    walk.on_change("c", True, at=9.0)   # M1b's where it belongs
    assert walk.current == "T6" and walk.channels["f"] == "M1a"
    walk.on_change("f", False, at=13.0)  # T6 already has a token: the page says lift it and put it back
    assert walk.conflict is None and walk.current == "T6"
    walk.on_change("f", True, at=15.0)
    assert walk.conflict == {"stand": "T6", "channel": "f", "owner": "M1a"}
    walk.resolve()
    assert walk.current == "M1a"
    walk.on_change("b", True, at=19.0)
    assert walk.done and walk.channels == {ch: s for s, ch in wiring.items()}
