"""The ``kipukas-board`` command.

Each command group lives in its own module under :mod:`kipukas_board.commands`; add a new one to
:data:`COMMAND_MODULES`. Exit codes: 0 success, 1 failure at run time, 2 bad input (arguments,
map or settings files), as argparse does.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from kipukas_board import __version__

#: Modules whose ``register(subparsers)`` adds commands, in the order ``--help`` lists them.
COMMAND_MODULES = [
    "kipukas_board.commands.run",
    "kipukas_board.commands.maps",
    "kipukas_board.commands.replay",
    "kipukas_board.commands.journal",
    "kipukas_board.commands.cards",
    "kipukas_board.commands.sensors",
    "kipukas_board.commands.show",
    "kipukas_board.commands.bench",
    "kipukas_board.commands.service",
    "kipukas_board.commands.fleet",
    "kipukas_board.commands.hardware",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kipukas-board",
        description="The Kipukas smart board: sensors, cameras, lights, voice and the table's page.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of the output went away (`kipukas-board export | head`): what it did not read
        # is not wanted. Standard output goes to /dev/null, so that the flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
