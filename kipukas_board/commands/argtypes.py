"""Argument types the commands share, so a number on the command line is checked one way everywhere:
finite, in range, and refused with a message that says what was expected.

argparse calls a type with the text given and reports an :class:`argparse.ArgumentTypeError` as
``kipukas-board COMMAND: error: argument --NAME: MESSAGE`` (exit code 2).

Example::

    >>> positive("2.5"), at_least(1)("3"), non_negative("0")
    (2.5, 3, 0.0)
    >>> milliseconds("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected milliseconds above 0, got '0'
    >>> at_least(1)("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 0 must be at least 1
    >>> between(2, 4)("5")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 5 is out of range; expected 2 to 4
    >>> whole("nan")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'nan' is not a whole number
    >>> port("8080")
    8080
    >>> port("99999")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 99999 is no TCP port; expected a whole number from 0 (any free port) to 65535
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive(text: str) -> float:
    """A finite number above 0 (a rate or a duration of 0 would never do anything)."""
    value = _number(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} must be above 0")
    return value


def non_negative(text: str) -> float:
    """A finite number, 0 or more (a pause, a settling time)."""
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} must be 0 or more")
    return value


def milliseconds(text: str) -> float:
    """A time budget in milliseconds: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected milliseconds (a number above 0), got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected milliseconds above 0, got {text!r}")
    return value


def at_least(low: int) -> Callable[[str], int]:
    """A whole number of ``low`` or more (a count of boards, changes, clients)."""

    def whole(text: str) -> int:
        value = _whole(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"{text} must be at least {low}")
        return value

    whole.__name__ = f"at_least_{low}"
    return whole


def _whole(text: str, expected: str = "") -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number{expected}") from None


def whole(text: str) -> int:
    """Any whole number, where every one means something (a seed), or where ``choices`` lists them."""
    return _whole(text)


def between(low: int, high: int) -> Callable[[str], int]:
    """A whole number from ``low`` to ``high`` (players at a table, a percentage, a voice's speed)."""

    def ranged(text: str) -> int:
        expected = f"; expected {low} to {high}"
        value = _whole(text, expected)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is out of range{expected}")
        return value

    ranged.__name__ = f"between_{low}_{high}"
    return ranged


def port(text: str) -> int:
    """A TCP port to listen on: 1 to 65535, or 0 for any free one (the tests' way to run a board)."""
    expected = "expected a whole number from 0 (any free port) to 65535"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number; {expected}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is no TCP port; {expected}")
    return value
