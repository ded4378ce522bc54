"""``kipukas-board hardware``: what a maker orders and makes for a board.

    kipukas-board hardware bom --map kipuka-8 --players 2            # a table with prices
    kipukas-board hardware bom --map kipuka-13 --players 4 --pi 4 --json
    kipukas-board hardware bom --map kipuka-13 --players 4 --layout full --csv > bom.csv
    kipukas-board hardware parts --map kipuka-12 --out parts/          # STL, STEP, drilling template
    kipukas-board hardware parts --map my-map.toml --out parts/ --page letter --template-only

Each subcommand registers itself in :func:`register` through one small function (``_add_bom``);
a new one (the printed parts) adds its own beside it. The calculations live in
:mod:`kipukas_board.maker`, not here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kipukas_board.board.mapfile import MapError, load_map
from kipukas_board.commands.argtypes import whole
from kipukas_board.maker import bom as bom_mod


def register(sub: Any) -> None:
    p = sub.add_parser("hardware", help="what to order and make for a board: the bill of materials, printed parts")
    hsub = p.add_subparsers(dest="hardware_command", metavar="ACTION", required=True)
    _add_bom(hsub)
    _add_parts(hsub)


def _add_bom(hsub: Any) -> None:
    b = hsub.add_parser("bom", help="the bill of materials for a map and a number of players, with the power chain")
    b.add_argument("--map", required=True, help="map name (calibration/maps/) or path")
    b.add_argument("--players", type=whole, required=True, choices=bom_mod.PLAYERS)
    b.add_argument("--pi", type=whole, default=5, choices=bom_mod.PIS, help="Raspberry Pi model (default 5)")
    b.add_argument("--layout", default="default", choices=sorted(bom_mod.LAYOUTS),
                   help="LED layout: default (3 pixels a territory) or full (a 12-pixel ring); 1 pixel a stand")
    out = b.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="one JSON document: parts and power")
    out.add_argument("--csv", action="store_true", help="CSV, as hardware/bom.csv")
    b.set_defaults(func=bom)


def _add_parts(hsub: Any) -> None:
    pa = hsub.add_parser("parts", help="printable parts (STL, STEP) and a 1:1 drilling template (SVG, PDF) for a map")
    pa.add_argument("--map", required=True, help="map name (calibration/maps/) or path; needs a [physical] section")
    pa.add_argument("--out", required=True, help="folder to write into (made if missing)")
    pa.add_argument("--players", type=whole, default=2, choices=bom_mod.PLAYERS,
                    help="how many camera mounts of each kind to print, as the BOM counts cameras (default 2)")
    pa.add_argument("--pi", type=whole, default=5, choices=bom_mod.PIS, help="Raspberry Pi model (default 5)")
    pa.add_argument("--page", default="a4", choices=["a4", "letter"], help="the template PDF's paper (default a4)")
    pa.add_argument("--no-step", action="store_true", help="STL only, no STEP files")
    pa.add_argument("--render", action="store_true", help="a PNG picture of each part too")
    pa.add_argument("--template-only", action="store_true", help="only the drilling template (no CAD library needed)")
    pa.set_defaults(func=parts)


def parts(args: argparse.Namespace) -> int:
    from kipukas_board.maker.parts import cad
    from kipukas_board.maker.parts.template import TemplateError

    try:
        board = load_map(args.map)
    except MapError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    from kipukas_board.maker.parts.build import write_parts, write_template

    try:
        files = write_template(board, args.out, args.page)
    except TemplateError as exc:
        print(f"kipukas-board: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # reportlab, for the PDF
        print(f"kipukas-board: {exc.name} is missing; {cad.INSTALL_HINT}", file=sys.stderr)
        return 1
    t = files.template
    print(f"{files.svg}: drilling template, {t.width:g} x {t.depth:g} mm, {len(t.holes)} stand holes, "
          f"{len(t.leds)} LED pieces")
    print(f"{files.pdf}: the same on {files.pages} {args.page.upper()} page(s); print at actual size, "
          "tape the pages where their crosses meet")
    for warning in t.warnings:
        print(f"kipukas-board: warning: {warning}", file=sys.stderr)
    if args.template_only:
        return 0
    bom = bom_mod.build_bom(board, args.players, args.pi)
    cameras = {"cm3": bom.qty("csi-camera"), "c920": bom.qty("usb-camera")}
    try:
        written = write_parts(board, args.out, step=not args.no_step, render=args.render, cameras=cameras)
    except cad.CadMissing as exc:
        print(f"kipukas-board: {exc}", file=sys.stderr)
        return 1
    bad = 0
    for f in written:
        size = " x ".join(f"{v:.1f}" for v in f.check.size)
        state = "ok" if f.check.ok else "NOT PRINTABLE: " + "; ".join(f.check.problems())
        print(f"{f.stl}: {f.title}, print {f.count}, {size} mm: {state}")
        bad += not f.check.ok
    from kipukas_board.maker.parts.params import ReedHolder

    seated = ReedHolder.for_kind("movement").seated()
    lo, hi = seated.at_range
    print(f"reed holders: the token's magnet sits {seated.seated_gap_mm:.1f} mm over the glass: "
          f"{seated.seated_mt:.1f} mT, {seated.seated_mt / seated.pull_in_mt[1]:.1f}x what a {lo:g}-{hi:g} AT reed "
          f"needs; lifted {seated.lift_to_open_mm:g} mm it opens")
    print(f"{Path(args.out) / 'parts.md'}: what to print, how many, material, layer and supports")
    return 1 if bad else 0


def bom(args: argparse.Namespace) -> int:
    try:
        board = load_map(args.map)
    except MapError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    result = bom_mod.build_bom(board, args.players, args.pi, args.layout)
    result.map_name = args.map.rsplit("/", 1)[-1].removesuffix(".toml")
    if args.json:
        print(json.dumps(result.to_json(), indent=1))
    elif args.csv:
        sys.stdout.write(result.to_csv())
    else:
        print(f"{result.map_name}, {args.players} players, Raspberry Pi {args.pi}, {args.layout} LED layout: "
              f"{result.pixels} pixels in {result.pieces} pieces, {result.feeds} power feed(s)")
        print(f"{'qty':>5} {'unit':<4}  {'part':<60} {'maker / part number':<40} {'USD':>8}")
        for p in result.parts:
            maker = f"{p.manufacturer} {p.mpn}".strip() if p.mpn else p.manufacturer
            print(f"{p.qty:>5} {p.unit:<4}  {p.description[:60]:<60} {maker[:40]:<40} {p.price:>8.2f}")
        print(f"{'':>5} {'':<4}  {'total (indicative)':<60} {'':<40} {result.total_usd():>8.2f}")
        print(f"LED power: budget {result.budget_ma:g} mA ([leds] power_budget_ma), fuse {bom_mod.FUSE_A:g} A, "
              f"supply {bom_mod.PSU_A:g} A")
        for p in result.protected:
            print(f"  {p.name}: rated {p.rating_a:g} A, carries at most {p.carries_a:.2f} A, protected by "
                  f"{p.protected_by}")
    problems = result.problems()
    for problem in problems:
        print(f"kipukas-board: unsafe power chain: {problem}", file=sys.stderr)
    return 1 if problems else 0
