"""``kipukas-board map``: check and list map files.

    kipukas-board map check FILE...   # every problem in each file; exit 2 if any
    kipukas-board map list            # the maps shipped in calibration/maps/
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kipukas_board.board.mapfile import MapError, available_maps, load_map


def register(sub: Any) -> None:
    p = sub.add_parser("map", help="check or list map files")
    msub = p.add_subparsers(dest="map_command", metavar="ACTION", required=True)
    c = msub.add_parser("check", help="check map files and report every problem")
    c.add_argument("files", nargs="+")
    c.set_defaults(func=check)
    li = msub.add_parser("list", help="list the shipped maps")
    li.set_defaults(func=list_maps)


def check(args: argparse.Namespace) -> int:
    status = 0
    for f in args.files:
        try:
            b = load_map(f)
        except MapError as exc:
            print(exc.report(), file=sys.stderr)
            status = 2
            continue
        print(f"{b.source}: ok - {b.name!r}: {len(b.territories)} territories, {len(b.stands)} stands, "
              f"{len(b.paths)} paths, {len(b.docks)} docks")
    return status


def list_maps(args: argparse.Namespace) -> int:
    for name in available_maps():
        b = load_map(name)
        print(f"{name}: {b.name} ({len(b.territories)} territories) - {b.description}")
    return 0
