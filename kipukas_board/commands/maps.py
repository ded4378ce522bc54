"""``kipukas-board map``: check and list map files.

    kipukas-board map check FILE...   # every problem in each file; exit 2 if any
    kipukas-board map list            # the maps shipped in calibration/maps/
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kipukas_board.board.mapfile import MapError, available_maps, load_map
from kipukas_board.commands.argtypes import at_least


def register(sub: Any) -> None:
    p = sub.add_parser("map", help="check or list map files")
    msub = p.add_subparsers(dest="map_command", metavar="ACTION", required=True)
    c = msub.add_parser("check", help="check map files and report every problem")
    c.add_argument("files", nargs="+")
    c.set_defaults(func=check)
    li = msub.add_parser("list", help="list the shipped maps")
    li.set_defaults(func=list_maps)
    st = msub.add_parser("stands", help="a map's stands in order, with the matrix position to wire each on")
    st.add_argument("map", help="map name or path")
    st.add_argument("--cols", type=at_least(1), default=8, help="matrix columns (default 8, as firmware/config.py)")
    st.set_defaults(func=list_stands)


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


def list_stands(args: argparse.Namespace) -> int:
    """Wiring the reeds in this order lets the board test light each stand's LED before calibration
    (kipukas_board/calibrate/board_test.py maps channel r*cols+c to the map's stand at that index)."""
    try:
        b = load_map(args.map, new=False)  # a board may run on it already: its wiring is still wanted
    except MapError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    if not 1 <= args.cols <= 64:
        print("kipukas-board: --cols must be from 1 to 64", file=sys.stderr)
        return 2
    for k, (sid, stand) in enumerate(b.stands.items()):
        r, c = divmod(k, args.cols)
        print(f"r{r}c{c:<3} SW{k + 1:<4} {sid:<6} territory {stand.territory} ({stand.kind})")
    return 0
