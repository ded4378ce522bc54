"""``kipukas-board replay | export | bench-replay``: the journal as JSON lines, rebuilt and timed.

    kipukas-board export --data-dir DIR [--out FILE]     # the journal as JSON lines
    kipukas-board replay FILE [--map NAME_OR_PATH]       # rebuild a game, print its final state (JSON)
    kipukas-board bench-replay --events N [--json]       # how fast a journal rebuilds

Each exported line is ``{"seq": N, "ts": T, "event": {...}}``; ``replay`` also reads bare events, one
per line. A line that is not JSON or not a well-formed event stops ``replay`` with exit code 2 and a
message naming the file, the line and what was wrong. ``bench-replay`` prints a table and, with
``--json``, one JSON object as its last line: ``{"events": N, "events_per_s": ...}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from kipukas_board.board.mapfile import MapError, load_map
from kipukas_board.modes import apply, state_json
from kipukas_board.modes.kipukas.rules.events import EventError, check_event
from kipukas_board.modes.kipukas.rules.state import GameState, initial_state


class ReplayError(ValueError):
    """A journal line that cannot be replayed; the message names the line."""


def register(sub: Any) -> None:
    e = sub.add_parser("export", help="print the journal as JSON lines")
    e.add_argument("--data-dir", type=Path, required=True, help="the board's data directory (holds journal.sqlite)")
    e.add_argument("--out", type=Path, help="write to this file instead of standard output")
    e.set_defaults(func=export)
    r = sub.add_parser("replay", help="rebuild a game from exported JSON lines and print the final state")
    r.add_argument("file", type=Path, help="JSON lines from `kipukas-board export` or GET /api/journal/export")
    r.add_argument("--map", default="kipuka-8", help="map to start on if the file has no map event first")
    r.set_defaults(func=replay)
    b = sub.add_parser("bench-replay", help="time rebuilding the state from a generated journal")
    b.add_argument("--events", type=int, default=10000, help="events in the generated journal (default 10000)")
    b.add_argument("--map", default="kipuka-12", help="map to play on (default kipuka-12)")
    b.add_argument("--players", type=int, default=3, help="players (default 3, Mass Contention)")
    b.add_argument("--seed", type=int, default=1, help="seed for the generated game")
    b.add_argument("--repeat", type=int, default=5, help="timed runs; the best counts (default 5)")
    b.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    b.set_defaults(func=bench)


# -- reading and replaying ----------------------------------------------------------------------------
#: ``json.loads`` without its per-call wrapper (type checks and two whitespace scans): a journal has
#: tens of thousands of short lines, and the wrapper was a tenth of a replay's time.
_decode = json.JSONDecoder().raw_decode


def read_lines(lines: Iterable[str], source: str = "<journal>") -> Iterator[tuple[int | None, dict[str, Any]]]:
    """``(seq or None, event)`` from JSON lines (``{"seq", "ts", "event"}`` or bare events)."""
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj, end = _decode(line, len(line) - len(line.lstrip()))
            if line[end:].strip():
                raise json.JSONDecodeError("extra data after the event", line, end)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"{source}, line {i}: not JSON ({exc.msg}); expected one event per line") from None
        seq = None
        if isinstance(obj, dict) and "event" in obj and "type" not in obj:
            seq = obj.get("seq")
            if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool)):
                raise ReplayError(f"{source}, line {i}: 'seq' must be a whole number, got {seq!r}")
            obj = obj["event"]
        try:
            check_event(obj)
        except EventError as exc:
            raise ReplayError(f"{source}, line {i}: {exc}") from None
        yield seq, obj


def replay_events(events: Iterable[tuple[int | None, dict[str, Any]]], start: GameState) -> GameState:
    """Fold ``events`` into ``start`` exactly as the core loop does."""
    state = start
    for seq, event in events:
        try:
            state = apply(state, event, seq=seq)[0]
        except MapError as exc:
            state = state.evolve(problems=(*state.problems, str(exc)))
        except Exception as exc:  # as the core loop: a rules bug must not stop the rebuild
            state = state.evolve(problems=(*state.problems, f"event {seq} not applied: {exc}"))
    return state


def replay(args: argparse.Namespace) -> int:
    try:
        start = initial_state(load_map(args.map))
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

    path = args.data_dir / Journal.FILENAME
    if not path.is_file():
        print(f"kipukas-board export: no journal at {path} (is --data-dir the board's data directory?)",
              file=sys.stderr)
        return 2
    try:
        journal = Journal(path)
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
    from kipukas_board.modes.kipukas.rules.dice import SeededDice
    from kipukas_board.modes.kipukas.rules.simulate import random_game

    if args.events < 1 or args.repeat < 1:
        print("kipukas-board bench-replay: --events and --repeat must be 1 or more", file=sys.stderr)
        return 2
    try:
        board = load_map(args.map)
    except MapError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    style = "domination" if args.players == 2 else "mass_contention"
    events = random_game(board, args.events, SeededDice(args.seed), players=args.players, play_style=style)
    text = [json.dumps({"seq": i, "event": e}, separators=(",", ":")) for i, e in enumerate(events, 1)]
    best = cpu = float("inf")
    final = None
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        final = replay_events(read_lines(text), initial_state(board))
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)  # on a busy machine the CPU time is the steadier number
    assert final is not None
    rate = len(events) / best
    kinds: dict[str, int] = {}
    for e in events:
        kinds[e["type"]] = kinds.get(e["type"], 0) + 1
    rows = [("events", f"{len(events)}"), ("map", board.name), ("players", str(args.players)),
            ("event mix", ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))),
            ("best of", f"{args.repeat} runs (JSON decode + check + apply)"),
            ("rebuild time", f"{best * 1000:.1f} ms"), ("events per second", f"{rate:,.0f}"),
            ("CPU time", f"{cpu * 1000:.1f} ms"), ("events per CPU second", f"{len(events) / max(cpu, 1e-9):,.0f}"),
            ("final diel cycle", str(final.diel_cycle))]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if args.json:
        print(json.dumps({"events": len(events), "events_per_s": round(rate, 1), "seconds": round(best, 6),
                          "cpu_seconds": round(cpu, 6), "events_per_cpu_s": round(len(events) / max(cpu, 1e-9), 1),
                          "map": board.name, "players": args.players, "seed": args.seed}))
    return 0
