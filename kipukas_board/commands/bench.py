"""``kipukas-board bench-sse``, ``bench-streams`` and ``bench-flood``: the web load checks (the
measuring is in :mod:`kipukas_board.bench`; this module parses and prints).

    kipukas-board bench-sse [--clients 20] [--changes 200] [--interval-ms 20] [--map NAME] [--json]
    kipukas-board bench-streams [--streams 40] [--changes 600] [--settle-s 15] [--json]
    kipukas-board bench-flood [--addresses 40] [--per-address 24] [--requests 20] [--json]

Each prints a table; with ``--json`` the last line is one JSON object. ``bench-sse``'s::

    {"clients": 20, "changes": 200, "expected": 4000, "delivered": 4000, "missing": 0,
     "latency_ms": {"p50": ..., "p95": ..., "p99": ..., "max": ...}, "target_p99_ms": 100.0,
     "meets_target": true}

exits 0 when every client got every change, 1 otherwise (a p99 over the target is reported in
``meets_target``, not as a failure: the machine it runs on decides the number). ``bench-flood``'s::

    {"sockets": 960, "connect_errors": 0, "answered": 20, "requests": 20,
     "latency_ms": {"p50": ..., "max": ...}, "connections": {"open": ..., "evicted": ..., ...}}

exits 0 when every request was answered, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from kipukas_board.commands.argtypes import at_least, non_negative


def register(sub: Any) -> None:
    register_sse(sub)
    register_flood(sub)


def register_sse(sub: Any) -> None:
    p = sub.add_parser("bench-sse", help="load check: N event-stream clients each receive every state change",
                       description="Measure delivery of every state change to N server-sent-event clients.")
    p.add_argument("--clients", type=at_least(1), default=20, help="event-stream clients (default 20)")
    p.add_argument("--changes", type=at_least(1), default=200, help="stand switch changes to make (default 200)")
    p.add_argument("--interval-ms", type=non_negative, default=20.0,
                   help="pause between changes, in ms (default 20: quicker than hands move tokens)")
    p.add_argument("--map", default=None, help="map name or file (default: the default map)")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    p.set_defaults(func=bench_sse)

    p = sub.add_parser("bench-streams", help="load check: event streams that never read, and the board's memory",
                       description="Open N event streams that never read, make M changes, and measure the "
                                   "board's memory, temp files and open connections (kipukas_board/bench/streams.py).")
    p.add_argument("--streams", type=at_least(1), default=40, help="never-reading event streams (default 40)")
    p.add_argument("--changes", type=at_least(1), default=600, help="stand changes to make (default 600)")
    p.add_argument("--settle-s", type=non_negative, default=15.0,
                   help="seconds to wait after the changes before measuring what is left (default 15)")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    p.set_defaults(func=bench_streams)


def register_flood(sub: Any) -> None:
    p = sub.add_parser("bench-flood", help="load check: the API answers while idle and slow sockets flood it",
                       description="Time /api/state while many idle and slow loopback connections are open.")
    p.add_argument("--addresses", type=at_least(1), default=40, help="loopback source addresses (default 40)")
    p.add_argument("--per-address", type=at_least(1), default=24, help="sockets from each address (default 24)")
    p.add_argument("--requests", type=at_least(1), default=20, help="GET /api/state to time (default 20)")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    p.set_defaults(func=bench_flood)


def bench_sse(args: argparse.Namespace) -> int:
    from kipukas_board.bench.sse import TARGET_P99_MS, run_sse_bench

    try:
        res = run_sse_bench(args.clients, args.changes, args.interval_ms, args.map)
    except RuntimeError as exc:
        print(f"kipukas-board bench-sse: {exc}", file=sys.stderr)
        return 1
    lat = res["latency_ms"]
    rows = [("clients", res["clients"]), ("changes", res["changes"]),
            ("delivered", f"{res['delivered']} of {res['expected']}"), ("missing", res["missing"])]
    rows += [(f"latency {k} (ms)", v) for k, v in lat.items()]
    rows.append(("p99 target (ms)", f"<= {TARGET_P99_MS:g}: {'met' if res['meets_target'] else 'NOT met'}"))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if args.json:
        print(json.dumps(res))
    return 0 if res["missing"] == 0 else 1


def bench_streams(args: argparse.Namespace) -> int:
    from kipukas_board.bench.streams import BenchStreamsError, format_table, run_streams_bench

    try:
        res = run_streams_bench(args.streams, args.changes, args.settle_s)
    except BenchStreamsError as exc:
        print(f"kipukas-board bench-streams: {exc}", file=sys.stderr)
        return 1
    print(format_table(res))
    if args.json:
        print(json.dumps(res))
    return 0 if res["meets_target"] else 1


def bench_flood(args: argparse.Namespace) -> int:
    from kipukas_board.bench.flood import MAX_ADDRESSES, run_flood

    if not 1 <= args.addresses <= MAX_ADDRESSES or args.per_address < 1 or args.requests < 1:
        print(f"kipukas-board bench-flood: --addresses must be 1 to {MAX_ADDRESSES}, --per-address and "
              f"--requests at least 1", file=sys.stderr)
        return 2
    res = run_flood(args.addresses, args.per_address, args.requests)
    conn = res["connections"]
    rows = [("sockets offered", f"{res['sockets']} ({args.addresses} addresses x {args.per_address}, "
                                f"half slowloris)"),
            ("connect errors", res["connect_errors"]),
            ("answered", f"{res['answered']} of {res['requests']} GET /api/state"),
            ("latency p50 (ms)", res["latency_ms"]["p50"]), ("latency max (ms)", res["latency_ms"]["max"]),
            ("open at the end", f"{conn.get('open')} (limit {conn.get('limit')}, "
                                f"{conn.get('per_address')} per address)"),
            ("evicted / refused / slow", f"{conn.get('evicted')} / {conn.get('refused')} / {conn.get('slow')}")]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if args.json:
        print(json.dumps(res))
    return 0 if res["answered"] == res["requests"] else 1
