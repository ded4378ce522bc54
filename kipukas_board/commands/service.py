"""``kipukas-board service``: the systemd side of the board, measured without systemd.

    kipukas-board service notify-bench [--seconds S] [--watchdog-sec W] [--json]

Runs ``kipukas-board run --sim`` in a child process under a pretend service manager (a Unix datagram
socket in ``$NOTIFY_SOCKET`` and ``$WATCHDOG_USEC``, as systemd sets them), then prints a table:
how long until READY=1, how regular the WATCHDOG=1 pings are, and, after the lighting thread is
stopped through the simulation's fault endpoint, how long until the pings stop and how many came
after it. ``--json`` prints the same as one JSON object on the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from kipukas_board.commands.argtypes import positive


def register(sub: Any) -> None:
    svc = sub.add_parser("service", help="the systemd service: notify and watchdog checks",
                         description="Check the board's systemd integration without systemd.")
    cmds = svc.add_subparsers(dest="service_command", metavar="SUBCOMMAND")
    p = cmds.add_parser("notify-bench", help="measure READY=1 and watchdog pings of a simulated board")
    p.add_argument("--seconds", type=positive, default=5.0, help="how long to collect pings before the fault")
    p.add_argument("--watchdog-sec", type=positive, default=1.0, help="the WatchdogSec= to pretend (default 1)")
    p.add_argument("--json", action="store_true", help="also print one JSON object as the last line")
    p.set_defaults(func=notify_bench)
    svc.set_defaults(func=lambda args: (svc.print_help(sys.stderr), 2)[1])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _collect(sock: socket.socket, seconds: float, t0: float, until: str | None = None) -> list[tuple[float, str]]:
    got: list[tuple[float, str]] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            msg = sock.recv(4096).decode()
        except TimeoutError:
            continue
        got.append((time.monotonic() - t0, msg))
        if until is not None and until in msg:
            break
    return got


def measure(seconds: float, watchdog_sec: float) -> dict[str, Any]:
    """Run the simulated board under a pretend systemd and time its notifications."""
    if seconds <= 0 or watchdog_sec <= 0:
        raise ValueError("--seconds and --watchdog-sec must be positive")
    with tempfile.TemporaryDirectory(prefix="kb-notify-") as tmp:
        path = str(Path(tmp) / "notify.sock")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(0.02)
        port = _free_port()
        env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": str(int(watchdog_sec * 1e6))}
        env.pop("WATCHDOG_PID", None)
        t0 = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "kipukas_board", "run", "--sim", "--port", str(port),
             "--data-dir", str(Path(tmp) / "data"), "--admin-pin", "246813"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            start = _collect(sock, 60.0, t0, until="READY=1")
            if not start or "READY=1" not in start[-1][1]:
                raise RuntimeError(f"the board sent no READY=1 within 60 s (exit code {proc.poll()})")
            ready_s = start[-1][0]
            pings = [t for t, m in _collect(sock, seconds, t0) if m == "WATCHDOG=1"]
            req = urllib.request.Request(f"http://127.0.0.1:{port}/api/sim/faults", method="POST",
                                         data=json.dumps({"part": "lighting"}).encode(),
                                         headers={"Content-Type": "application/json", "X-Admin-Pin": "246813"})
            fault_at = time.monotonic() - t0
            urllib.request.urlopen(req, timeout=10).read()
            after = _collect(sock, 3 * watchdog_sec, t0)
            proc.send_signal(signal.SIGTERM)
            exit_code = proc.wait(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            sock.close()
    late = [t for t, m in after if m == "WATCHDOG=1"]
    status = next((t for t, m in after if m.startswith("STATUS=not alive")), None)
    gaps = [b - a for a, b in zip(pings, pings[1:], strict=False)]
    return {
        "watchdog_sec": watchdog_sec,
        "ready_s": round(ready_s, 3),
        "pings": len(pings),
        "ping_gap_s": {"min": round(min(gaps), 3) if gaps else None,
                       "median": round(statistics.median(gaps), 3) if gaps else None,
                       "max": round(max(gaps), 3) if gaps else None},
        "pings_after_fault": len(late),
        "last_ping_after_fault_s": round(max(late) - fault_at, 3) if late else 0.0,
        "dead_reported_after_s": round(status - fault_at, 3) if status is not None else None,
        "exit_code": exit_code,
    }


def notify_bench(args: argparse.Namespace) -> int:
    try:
        r = measure(args.seconds, args.watchdog_sec)
    except (ValueError, RuntimeError) as exc:
        print(f"kipukas-board: {exc}", file=sys.stderr)
        return 1 if isinstance(exc, RuntimeError) else 2
    g = r["ping_gap_s"]
    rows = [
        ("WatchdogSec (pretend)", f"{r['watchdog_sec']:g} s"),
        ("READY=1 after start", f"{r['ready_s']:.3f} s"),
        ("WATCHDOG=1 pings", f"{r['pings']} in {args.seconds:g} s"),
        ("gap between pings", f"min {g['min']} / median {g['median']} / max {g['max']} s"),
        ("lighting stopped: reported dead after", f"{r['dead_reported_after_s']} s"),
        ("pings after the fault", f"{r['pings_after_fault']} (last {r['last_ping_after_fault_s']} s after)"),
        ("exit code on SIGTERM", str(r["exit_code"])),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if args.json:
        print(json.dumps(r))
    healthy = r["pings"] > 0 and r["dead_reported_after_s"] is not None and r["exit_code"] == 0
    return 0 if healthy else 1
