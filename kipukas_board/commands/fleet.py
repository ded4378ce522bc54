"""``kipukas-board fleet``: the organiser's side of an event with many boards. ::

    kipukas-board fleet dashboard --broker URL [--host H] [--port P]
                                  [--username U --password-file F] [--ca-file F]
    kipukas-board fleet bench --boards 50 --changes 200 --broker URL [--rate R] [--json]

``dashboard`` serves a page with every board that publishes to the broker (docs/admins/fleet.md).
``bench`` runs simulated boards through the broker to the dashboard's subscriber and prints a table,
then (with ``--json``) one JSON object as its last line: ``sent``, ``delivered``, ``lost``,
``duplicates``, ``out_of_order``, ``latency_ms`` {``p50``, ``p99``, ``max``}, ``seconds``. It exits 1
if any event was lost or came out of order, 2 for bad arguments or a broker it cannot reach.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
from pathlib import Path
from typing import Any

from kipukas_board.commands.argtypes import at_least, port, positive
from kipukas_board.settings import BrokerAddress


def _broker(text: str) -> BrokerAddress:
    try:
        return BrokerAddress.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _auth_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--broker", type=_broker, required=True, help="mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    p.add_argument("--username", help="MQTT username (the example ACL's reader is 'dashboard')")
    p.add_argument("--password-file", type=Path, help="file whose first line is the MQTT password")
    p.add_argument("--ca-file", help="CA certificate (PEM) for an mqtts:// broker (default: the system's CAs)")


def register(sub: Any) -> None:
    p = sub.add_parser("fleet", help="many tables: the organiser's dashboard and the MQTT load bench")
    fsub = p.add_subparsers(dest="fleet_command", metavar="ACTION", required=True)

    d = fsub.add_parser("dashboard", help="serve a page showing every board on the broker, live")
    _auth_args(d)
    d.add_argument("--host", default="127.0.0.1", help="address to serve the page on (0.0.0.0 for the LAN)")
    d.add_argument("--port", type=port, default=8090, help="port to serve the page on (default 8090)")
    d.set_defaults(func=dashboard)

    b = fsub.add_parser("bench", help="simulated boards publishing through a real broker; delivered and latency")
    _auth_args(b)
    b.add_argument("--boards", type=at_least(1), default=50, help="simulated boards (default 50)")
    b.add_argument("--changes", type=at_least(1), default=200, help="events each board journals (default 200)")
    b.add_argument("--rate", type=positive, default=10.0, help="events a second per board (default 10)")
    b.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    b.set_defaults(func=bench)


def _credentials(args: argparse.Namespace) -> tuple[str | None, str | None]:
    from kipukas_board.fleet.mqtt import read_password_file

    password = read_password_file(args.password_file) if args.password_file else None
    return args.username, password


def dashboard(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from kipukas_board.fleet.dashboard import Dashboard, make_server
    from kipukas_board.fleet.mqtt import FleetConfigError
    from kipukas_board.fleet.view import FleetView

    try:
        username, password = _credentials(args)
        view = FleetView(args.broker, username, password, args.ca_file)
    except FleetConfigError as exc:
        print(f"kipukas-board fleet dashboard: {exc}", file=sys.stderr)
        return 2
    dash = Dashboard(view)
    try:
        server = make_server(dash, args.host, args.port)
    except OSError as exc:
        print(f"kipukas-board fleet dashboard: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
    dash.start()
    print(f"Kipukas fleet dashboard for {args.broker.url()} at http://{args.host}:{server.effective_port}/",
          flush=True)

    def _stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        dash.stop()
        server.close()
    return 0


def bench(args: argparse.Namespace) -> int:
    from kipukas_board.bench.fleet import format_table, run_bench
    from kipukas_board.fleet.mqtt import FleetConfigError

    try:
        username, password = _credentials(args)
        result = run_bench(args.broker, args.boards, args.changes, args.rate, username, password, args.ca_file)
    except (FleetConfigError, ConnectionError) as exc:
        print(f"kipukas-board fleet bench: {exc}", file=sys.stderr)
        return 2
    print(format_table(result), flush=True)
    if args.json:
        print(json.dumps(result), flush=True)
    return 0 if result["lost"] == 0 and result["out_of_order"] == 0 else 1
