"""``kipukas-board journal``: check the journal and its backups, or restore it from a backup; and
``bench-journal``, how long those readings of a long journal take.

    kipukas-board journal check [--data-dir DIR] [--json]     # exit 0 sound, 1 damaged or lost events
    kipukas-board journal restore [--data-dir DIR] [--from BACKUP]   # stop the board first
    kipukas-board bench-journal [--events 100000] [--say-map-every 10] [--repeat 5] [--json]

Without ``--data-dir`` both use the board's data directory: on a Pi set up by ``scripts/install-pi``
the service's (``/var/lib/kipukas-board``), found as the diagnostics find it
(:func:`~kipukas_board.commands.run.find_data_dir`); each says which directory it used. ``restore``
refuses a directory the service does not use unless ``--data-dir`` names it, and the service's
directory to anyone but the service's user (``sudo -u kipukas``).

``check`` changes nothing. ``restore`` moves the damaged journal aside (``journal.sqlite.damaged-*``),
rebuilds it from the newest sound backup and carries over every newer event the damaged file still
gives up, with the phones' taps of those events, so a tap sent again is not done twice
(:mod:`kipukas_board.store.backup`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kipukas_board.commands.run import DataDir

from kipukas_board.commands.argtypes import at_least, whole
from kipukas_board.commands.run import DATA_DIR_HELP


def register(sub: Any) -> None:
    p = sub.add_parser("journal", help="check the journal and its backups, or restore it from a backup")
    jsub = p.add_subparsers(dest="journal_command", metavar="ACTION")
    c = jsub.add_parser("check", help="report what the journal, its high-water mark and its backups hold")
    c.add_argument("--data-dir", type=Path, help=DATA_DIR_HELP)
    c.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    c.set_defaults(func=check)
    r = jsub.add_parser("restore", help="rebuild the journal from its newest sound backup (stop the board first)")
    r.add_argument("--data-dir", type=Path, help=DATA_DIR_HELP)
    r.add_argument("--from", dest="source", type=Path, help="a backup file to restore from")
    r.set_defaults(func=restore)
    p.set_defaults(func=lambda args: (p.print_help(sys.stderr), 2)[1])
    b = sub.add_parser("bench-journal",
                       help="time the readings of a long journal: the map a start loads, journal check")
    b.add_argument("--events", type=at_least(1), default=100_000,
                   help="events in the generated journal (default 100000)")
    b.add_argument("--say-map-every", type=at_least(0), default=10,
                   help='an event naming "map" without being one every N events (default 10; 0: none)')
    b.add_argument("--map", default="kipuka-12", help="map the generated game is played on (default kipuka-12)")
    b.add_argument("--seed", type=whole, default=1, help="seed for the generated game")
    b.add_argument("--repeat", type=at_least(1), default=5,
                   help="timed runs of each reading; the best counts (default 5)")
    b.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    b.set_defaults(func=bench)


def _data_dir(args: argparse.Namespace, action: str) -> DataDir | None:
    """The data directory ``journal ACTION`` works on (:func:`~kipukas_board.commands.run.find_data_dir`),
    or None once it has said on stderr why there is none to work on."""
    from kipukas_board.commands.run import find_data_dir

    try:
        where = find_data_dir(args.data_dir)
    except ValueError as exc:
        print(f"kipukas-board journal {action}: {exc}", file=sys.stderr)
        return None
    if not where.path.is_dir():
        whose = where.whose()
        print(f"kipukas-board journal {action}: no data directory at {where.path}" + (f" ({whose})" if whose else ""),
              file=sys.stderr)
        return None
    return where


def check(args: argparse.Namespace) -> int:
    from kipukas_board.store.backup import check as check_dir

    where = _data_dir(args, "check")
    if where is None:
        return 2
    data_dir = where.path
    ok, lines, details = check_dir(data_dir)
    if args.json:
        print(json.dumps({"ok": ok, "data_dir": str(data_dir), "service": where.is_service, **details}))
    else:
        print("\n".join([where.line(), *lines]))
        print("sound" if ok else "PROBLEMS FOUND: see above; `kipukas-board journal restore` rebuilds from a backup")
    return 0 if ok else 1


def restore(args: argparse.Namespace) -> int:
    from kipukas_board.store.backup import restore as restore_dir
    from kipukas_board.store.journal import JournalError

    where = _data_dir(args, "restore")
    if where is None:
        return 2
    data_dir = where.path
    problem = where.write_problem("journal restore")
    if problem is not None:
        print(f"kipukas-board journal restore: {problem}", file=sys.stderr)
        return 2
    note = where.write_note()
    if note is not None:
        print(f"kipukas-board journal restore: {note}", file=sys.stderr)
    print(where.line())
    from kipukas_board.store.dir_lock import DirectoryBusy, restoring

    try:
        with restoring(data_dir):  # refused while a board runs on the directory
            lines = restore_dir(data_dir, args.source)
    except (JournalError, DirectoryBusy, OSError) as exc:
        print(f"kipukas-board journal restore: {exc}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def bench(args: argparse.Namespace) -> int:
    from kipukas_board.bench.journal_reads import run_journal_bench
    from kipukas_board.board.mapfile import MapError, load_map

    try:
        board = load_map(args.map)
    except MapError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    res = run_journal_bench(board, args.events, args.say_map_every, args.seed, args.repeat)
    every = f'an event naming "map" every {args.say_map_every}' if args.say_map_every else 'no other event naming "map"'
    print(f"journal of {res['events']:,} events ({res['bytes'] / 1e6:.1f} MB; {board.name}, seed {args.seed}), "
          f"its last map event number {res['last_map']}, {every}; best of {args.repeat}")
    chosen = res["last_event_of"][0]["ms"]
    rows = [("which map a start loads", "ms", "vs the board's", "found")]
    rows += [(r["reading"], f"{r['ms']:.1f}", f"{r['ms'] / max(chosen, 1e-9):.2f}",
              f"{r['found']}" + ("" if r["right"] else " (WRONG)")) for r in res["last_event_of"]]
    rows += [("journal check's reading", "ms", "", "missing")]
    rows += [(r["reading"], f"{r['ms']:.1f}", "", str(r["missing"])) for r in res["check"]]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))))
    if args.json:
        print(json.dumps(res))
    return 0 if all(r["right"] for r in res["last_event_of"][:1]) else 1
