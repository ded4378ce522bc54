"""Subcommands of ``kipukas-board``, one module per command group.

Each module has ``register(subparsers)`` that adds its parser(s) and sets ``func`` to a callable
taking the parsed arguments and returning an exit code. :mod:`kipukas_board.cli` lists the modules.
"""
