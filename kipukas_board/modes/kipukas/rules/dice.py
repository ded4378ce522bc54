"""Dice sources for the rules core, which never calls ``random`` itself.

The board rolls through a :class:`Dice`; every roll that decides anything is written into the event
that the journal stores, so replay reproduces the game without re-rolling.

Example::

    >>> from kipukas_board.modes.kipukas.rules.dice import ScriptedDice
    >>> d = ScriptedDice([6, 1])
    >>> d.roll(6), d.roll(6)
    (6, 1)
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Protocol


class Dice(Protocol):
    def roll(self, sides: int) -> int:
        """A fair roll of a die with ``sides`` faces: 1 to ``sides``."""
        ...


class SystemDice:
    """Real randomness from the operating system (the board in play)."""

    def __init__(self) -> None:
        self._rng = random.SystemRandom()

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


class SeededDice:
    """Repeatable rolls from a seed (tests, benchmarks)."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


class ScriptedDice:
    """Exactly the given rolls, in order (scripted test games); runs out loudly."""

    def __init__(self, rolls: Iterable[int]) -> None:
        self._rolls = list(rolls)

    def roll(self, sides: int) -> int:
        if not self._rolls:
            raise IndexError("scripted dice ran out of rolls")
        r = self._rolls.pop(0)
        if not 1 <= r <= sides:
            raise ValueError(f"scripted roll {r} does not fit a D{sides}")
        return r
