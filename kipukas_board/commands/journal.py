"""``kipukas-board journal``: check the journal and its backups, or restore it from a backup.

    kipukas-board journal check [--data-dir DIR] [--json]     # exit 0 sound, 1 damaged or lost events
    kipukas-board journal restore [--data-dir DIR] [--from BACKUP]   # stop the board first

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
from typing import Any

from kipukas_board.settings import default_data_dir


def register(sub: Any) -> None:
    p = sub.add_parser("journal", help="check the journal and its backups, or restore it from a backup")
    jsub = p.add_subparsers(dest="journal_command", metavar="ACTION")
    c = jsub.add_parser("check", help="report what the journal, its high-water mark and its backups hold")
    c.add_argument("--data-dir", type=Path, help=f"the board's data directory (default {default_data_dir()})")
    c.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    c.set_defaults(func=check)
    r = jsub.add_parser("restore", help="rebuild the journal from its newest sound backup (stop the board first)")
    r.add_argument("--data-dir", type=Path, help=f"the board's data directory (default {default_data_dir()})")
    r.add_argument("--from", dest="source", type=Path, help="a backup file to restore from")
    r.set_defaults(func=restore)
    p.set_defaults(func=lambda args: (p.print_help(sys.stderr), 2)[1])


def check(args: argparse.Namespace) -> int:
    from kipukas_board.store.backup import check as check_dir

    data_dir = args.data_dir or default_data_dir()
    if not data_dir.is_dir():
        print(f"kipukas-board journal check: no data directory at {data_dir}", file=sys.stderr)
        return 2
    ok, lines, details = check_dir(data_dir)
    if args.json:
        print(json.dumps({"ok": ok, **details}))
    else:
        print("\n".join(lines))
        print("sound" if ok else "PROBLEMS FOUND: see above; `kipukas-board journal restore` rebuilds from a backup")
    return 0 if ok else 1


def restore(args: argparse.Namespace) -> int:
    from kipukas_board.store.backup import restore as restore_dir
    from kipukas_board.store.journal import JournalError

    data_dir = args.data_dir or default_data_dir()
    if not data_dir.is_dir():
        print(f"kipukas-board journal restore: no data directory at {data_dir}", file=sys.stderr)
        return 2
    try:
        lines = restore_dir(data_dir, args.source)
    except (JournalError, OSError) as exc:
        print(f"kipukas-board journal restore: {exc}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0
