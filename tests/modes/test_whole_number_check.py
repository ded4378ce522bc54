"""One whole-number check for every card game's files and events, and the finite-number one beside it.

The card duel and Creature Combat read card files, tables and events whose numbers must be whole
numbers (JSON's ``true`` is a Python ``int`` too, and must not pass as 1). They share
:func:`kipukas_board.strictjson.is_int` instead of each keeping a copy that could drift.
"""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kipukas_board.strictjson import is_int, is_number

CHECKED = [
    "kipukas_board.modes.duel.cardfile",
    "kipukas_board.modes.duel.events",
    "kipukas_board.modes.creature_combat.cardfile",
    "kipukas_board.modes.creature_combat.table",
    "kipukas_board.modes.creature_combat.events",
    "kipukas_board.modes.kipukas.rules.events",
]


@given(st.integers())
def test_every_int_is_whole(n: int) -> None:
    assert is_int(n)


@given(st.booleans() | st.floats() | st.text() | st.none() | st.lists(st.integers()))
def test_bools_floats_and_the_rest_are_not(v: object) -> None:
    assert not is_int(v)


@given(st.integers() | st.floats(allow_nan=False, allow_infinity=False))
def test_every_int_and_finite_float_is_a_number(v: float) -> None:
    assert is_number(v)


@given(st.booleans() | st.sampled_from([float("nan"), float("inf"), float("-inf")]) | st.text() | st.none()
       | st.lists(st.floats()))
def test_bools_non_finite_floats_and_the_rest_are_not_numbers(v: object) -> None:
    assert not is_number(v)


@pytest.mark.parametrize("name", CHECKED)
def test_each_module_uses_the_one_check(name: str) -> None:
    module = importlib.import_module(name)
    assert not hasattr(module, "_int") and not hasattr(module, "_is_int"), f"{name} keeps its own copy"
    assert module.is_int is is_int
