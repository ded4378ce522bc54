"""Every number the command line takes goes through the shared argument types of
:mod:`kipukas_board.commands.argtypes`: finite, whole where it counts, in range where a range means
something, and refused by argparse with a message (exit 2) before a command starts.

A bare ``type=float`` takes ``nan`` and ``inf`` (``leds test --seconds nan`` never ended), a bare
``type=int`` takes ``--seats 0`` or ``--volume 900``: this test walks every subcommand's options
and fails on either.
"""

from __future__ import annotations

import argparse

import pytest

from kipukas_board.cli import build_parser, main
from kipukas_board.commands import argtypes


def options(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """``(command words, action)`` for every option and positional of every subcommand."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from options(sub, (*path, name))
        else:
            yield path, action


def number_options() -> list[tuple[str, argparse.Action]]:
    found = []
    for path, action in options(build_parser()):
        numeric_default = isinstance(action.default, int | float) and not isinstance(action.default, bool)
        if action.type in (int, float) or getattr(action.type, "__module__", "") == argtypes.__name__ or (
                action.type is None and numeric_default and action.nargs != 0):
            found.append((" ".join(path) + " " + "/".join(action.option_strings or [action.dest]), action))
    return found


def test_no_number_option_takes_a_bare_int_or_float() -> None:
    bare = [name for name, action in number_options()
            if getattr(action.type, "__module__", "") != argtypes.__name__]
    assert not bare, f"take these numbers through kipukas_board.commands.argtypes: {bare}"


def test_the_walk_sees_the_commands_number_options() -> None:
    names = [name for name, _ in number_options()]
    assert len(names) >= 40 and "leds test --seconds" in names and "run --port" in names, names


@pytest.mark.parametrize("name,action", number_options(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_number_option_refuses_what_is_no_number(name: str, action: argparse.Action) -> None:
    for text in ("nan", "inf", "-inf", "ten"):
        with pytest.raises(argparse.ArgumentTypeError):
            action.type(text)


@pytest.mark.parametrize("argv,said", [
    (["leds", "test", "--seconds", "nan"], "argument --seconds: 'nan' is not a finite number"),
    (["say", "hi", "--volume", "900"], "argument --volume: 900 is out of range; expected 0 to 100"),
    (["bench-camera", "blank", "--seats", "0"], "argument --seats: 0 must be at least 1"),
    (["bench-replay", "--players", "5"], "argument --players: 5 is out of range; expected 2 to 4"),
])
def test_a_bad_number_is_refused_before_the_command_runs(argv: list[str], said: str, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and said in capsys.readouterr().err
