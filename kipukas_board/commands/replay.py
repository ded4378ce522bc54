"""``kipukas-board replay | export | bench-replay``: the journal as JSON lines, rebuilt and timed.

    kipukas-board export [--data-dir DIR] [--out FILE]   # the journal as JSON lines
    kipukas-board replay FILE [--map NAME_OR_PATH]       # rebuild a game, print its final state (JSON)
    kipukas-board bench-replay --events N [--json]       # how fast a journal rebuilds

Each exported line is ``{"seq": N, "ts": T, "event": {...}}``; ``replay`` also reads bare events, one
per line. ``export`` without ``--data-dir`` reads the installed service's journal, as ``journal
check`` finds it, and names the directory on stderr. A line that is not JSON or not a well-formed
event stops ``replay`` with exit code 2 and a message naming the file, the line and what was wrong.
``bench-replay`` prints a table and, with ``--json``, one JSON object as its last line:
``{"events": N, "events_per_s": ...}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kipukas_board.board.mapfile import MapError, load_map
from kipukas_board.commands.argtypes import at_least, between, whole
from kipukas_board.commands.run import DATA_DIR_HELP, find_data_dir
from kipukas_board.modes import new_table, state_json
from kipukas_board.modes.replay import ReplayError, read_lines, replay_events


def register(sub: Any) -> None:
    e = sub.add_parser("export", help="print the journal as JSON lines")
    e.add_argument("--data-dir", type=Path, help=DATA_DIR_HELP)
    e.add_argument("--out", type=Path, help="write to this file instead of standard output")
    e.set_defaults(func=export)
    r = sub.add_parser("replay", help="rebuild a game from exported JSON lines and print the final state")
    r.add_argument("file", type=Path, help="JSON lines from `kipukas-board export` or GET /api/journal/export")
    r.add_argument("--map", default="kipuka-8", help="map to start on if the file has no map event first")
    r.set_defaults(func=replay)
    b = sub.add_parser("bench-replay", help="time rebuilding the state from a generated journal")
    b.add_argument("--events", type=at_least(1), default=10000, help="events in the generated journal (default 10000)")
    b.add_argument("--map", default="kipuka-12", help="map to play on (default kipuka-12)")
    b.add_argument("--players", type=between(2, 4), default=3,
                   help="players, 2 to 4 (default 3, Mass Contention)")
    b.add_argument("--seed", type=whole, default=1, help="seed for the generated game")
    b.add_argument("--repeat", type=at_least(1), default=5, help="timed runs; the best counts (default 5)")
    b.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    b.set_defaults(func=bench)


def replay(args: argparse.Namespace) -> int:
    try:
        start = new_table(load_map(args.map))
    except MapError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    try:
        with open(args.file, encoding="utf-8") as f:
            state = replay_events(read_lines(f, str(args.file)), start)
    except OSError as exc:
        print(f"kipukas-board replay: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except (ReplayError, UnicodeDecodeError) as exc:
        print(f"kipukas-board replay: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(state_json(state), indent=2))
    return 0


def export(args: argparse.Namespace) -> int:
    from kipukas_board.store.journal import Journal, JournalError

    try:
        where = find_data_dir(args.data_dir)
    except ValueError as exc:
        print(f"kipukas-board export: {exc}", file=sys.stderr)
        return 2
    path = where.path / Journal.FILENAME
    if not path.is_file():
        print(f"kipukas-board export: no journal at {path} ({where.line()}; is it the board's?)", file=sys.stderr)
        return 2
    print(where.line(), file=sys.stderr)  # stdout holds only the journal's lines
    try:
        journal = Journal(path, read_only=True)  # it only reads: the Pi's first user may run it, root leaves no file
    except JournalError as exc:
        print(f"kipukas-board export: {exc}", file=sys.stderr)
        return 2
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    try:
        for seq, ts, event in journal.rows():
            out.write(json.dumps({"seq": seq, "ts": ts, "event": event}, separators=(",", ":")) + "\n")
    finally:
        journal.close()
        if args.out:
            out.close()
    return 0


# -- benchmark -------------------------------------------------------------------------------------
def bench(args: argparse.Namespace) -> int:
    from kipukas_board.bench.replay import run_replay_bench

    if args.events < 1 or args.repeat < 1:
        print("kipukas-board bench-replay: --events and --repeat must be 1 or more", file=sys.stderr)
        return 2
    try:
        board = load_map(args.map)
    except MapError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    res = run_replay_bench(board, args.events, args.players, args.seed, args.repeat)
    best, cpu, n = res["seconds"], res["cpu_seconds"], res["events"]
    rows = [("events", f"{n}"), ("map", board.name), ("players", str(args.players)),
            ("event mix", ", ".join(f"{k} {v}" for k, v in res["mix"])),
            ("best of", f"{args.repeat} runs (JSON decode + check + apply)"),
            ("rebuild time", f"{best * 1000:.1f} ms"), ("events per second", f"{res['events_per_s']:,.0f}"),
            ("CPU time", f"{cpu * 1000:.1f} ms"), ("events per CPU second", f"{res['events_per_cpu_s']:,.0f}"),
            ("final diel cycle", str(res["final_diel_cycle"]))]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if args.json:
        print(json.dumps({"events": n, "events_per_s": res["events_per_s"], "seconds": best,
                          "cpu_seconds": cpu, "events_per_cpu_s": res["events_per_cpu_s"],
                          "map": board.name, "players": args.players, "seed": args.seed}))
    return 0
