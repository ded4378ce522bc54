"""The fleet's load bench: many simulated boards publishing through a real broker to the dashboard's view.

Each simulated board is the real publishing path with no hardware: a real SQLite journal (in a
temporary directory), its own durable cursor, and a :class:`~kipukas_board.fleet.publisher.FleetPublisher`
with its own MQTT connection. A driver thread per board journals ``changes`` stand events at ``rate``
a second (starting at a random moment of the first period, as tables do), and the
dashboard's :class:`~kipukas_board.fleet.view.FleetView` counts what arrives. The latency of an event
is from the moment its append to the journal returned (durable) to the moment the view received it
(one machine, one wall clock); the append's own time (SQLite's fsync) is reported apart as
``journal_ms``.

A lost event (sent, never received) or one received out of order fails the bench (exit code 1).

Example::

    kipukas-board fleet bench --boards 50 --changes 200 --broker mqtt://127.0.0.1:1883 --json
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from kipukas_board.fleet import topics
from kipukas_board.fleet.cursor import AckCursor
from kipukas_board.fleet.mqtt import make_client
from kipukas_board.fleet.publisher import FleetPublisher
from kipukas_board.fleet.view import FleetView
from kipukas_board.settings import BrokerAddress
from kipukas_board.store.journal import Journal

#: The p99 latency the bench is held to for 50 boards on one small machine.
TARGET_P99_MS = 200.0


def percentile(values: list[float], pct: float) -> float | None:
    """Nearest-rank percentile; None for no values.

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50)
    3.0
    """
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(pct / 100 * len(ordered))))
    return ordered[rank - 1]


class _SimBoard:
    def __init__(self, index: int, broker: BrokerAddress, work: Path, username: str | None, password: str | None,
                 ca_file: str | None) -> None:
        self.board_id = board_name(index)
        self.dir = work / self.board_id
        self.dir.mkdir()
        self.journal = Journal.in_dir(self.dir)
        self.durable: dict[int, float] = {}
        client = make_client(f"kipukas-board-{self.board_id}", broker, username, password, ca_file)
        self.publisher = FleetPublisher(
            self.journal, AckCursor.in_dir(self.dir, broker.url(), self.board_id), client, broker,
            self.board_id, f"Bench {index}", state_doc=lambda: {"phase": "play", "players": []},
            health_doc=lambda: {"sensors": {"ok": True}})

    def drive(self, changes: int, rate: float, start_at: float) -> None:
        period = 1.0 / rate
        due = start_at + random.uniform(0, period)
        for n in range(changes):
            time.sleep(max(0.0, due - time.time()))
            seq = self.journal.append({"type": "stand", "stand": "T1", "occupied": n % 2 == 0, "source": "sim"})
            self.durable[seq] = time.time()  # on disk from here: where the fleet's part begins
            self.publisher.notify()
            due += period


def board_name(index: int) -> str:
    return f"bench-{index:03d}"


def _run_boards(indices: list[int], broker: BrokerAddress, changes: int, rate: float, username: str | None,
                password: str | None, ca_file: str | None, settle_s: float, ready: Any, go: Any, done: Any) -> None:
    """One worker process: its share of the boards, connected first, driven once ``go`` is set, until
    the broker has acknowledged every event. Puts ``("ready", n)`` then ``("done", sent)`` (or
    ``("error", text)``) on ``done``, ``sent`` being {board_id: {seq: wall time the event was durable}}."""
    try:
        with tempfile.TemporaryDirectory(prefix="kipukas-fleet-bench-") as tmp:
            sims = [_SimBoard(i, broker, Path(tmp), username, password, ca_file) for i in indices]
            try:
                for s in sims:
                    s.publisher.start()
                deadline = time.monotonic() + 30
                while not all(s.publisher.health()["connected"] for s in sims):
                    if time.monotonic() > deadline:
                        errors = {s.publisher.last_error for s in sims if s.publisher.last_error}
                        raise ConnectionError(f"simulated boards could not connect to {broker.url()}: "
                                              f"{'; '.join(sorted(errors)) or 'no answer'}")
                    time.sleep(0.05)
                ready.put(("ready", len(sims)))
                go.wait()
                start_at = time.time()
                drivers = [threading.Thread(target=s.drive, args=(changes, rate, start_at), daemon=True)
                           for s in sims]
                for d in drivers:
                    d.start()
                for d in drivers:
                    d.join()
                deadline = time.monotonic() + settle_s
                while time.monotonic() < deadline and any(s.publisher.health()["backlog"] for s in sims):
                    time.sleep(0.05)
            finally:
                for s in sims:
                    s.publisher.stop()
                    s.journal.close()
        done.put(("done", {s.board_id: s.durable for s in sims}))
    except Exception as exc:
        ready.put(("error", f"{type(exc).__name__}: {exc}"))
        done.put(("error", f"{type(exc).__name__}: {exc}"))


def run_bench(broker: BrokerAddress, boards: int = 50, changes: int = 200, rate: float = 10.0,
              username: str | None = None, password: str | None = None, ca_file: str | None = None,
              settle_s: float = 30.0, processes: int | None = None) -> dict[str, Any]:
    """Run the bench and return its numbers (see :func:`format_table`). Needs a broker at ``broker``.

    The simulated boards run in ``processes`` worker processes (default: one per 10 boards, at most
    8), apart from the subscriber, as real boards are apart from the dashboard: a subscriber sharing
    one interpreter lock with a hundred publishing threads would measure the lock, not the broker.
    """
    if boards < 1 or changes < 1 or rate <= 0:
        raise ValueError("--boards and --changes must be at least 1 and --rate above 0")
    procs = min(boards, processes or min(8, max(1, math.ceil(boards / 10))))
    received: dict[tuple[str, int], tuple[float, float]] = {}   # (board, seq) -> (journal ts, arrival)
    durable: dict[tuple[str, int], float] = {}
    lock = threading.Lock()

    def on_event(board_id: str, seq: int, ts: float, at: float) -> None:
        with lock:
            received[(board_id, seq)] = (ts, at)

    view = FleetView(broker, username, password, ca_file, on_event=on_event)
    sent = boards * changes
    shares = [list(range(1 + k, boards + 1, procs)) for k in range(procs)]
    try:
        view.start()
        if not view.subscribed.wait(10):
            raise ConnectionError(f"the bench's subscriber could not subscribe at {broker.url()} within 10 s"
                                  + (f" ({view.problems[-1]})" if view.problems else ""))
        ctx = multiprocessing.get_context("spawn")
        ready, done, go = ctx.Queue(), ctx.Queue(), ctx.Event()
        workers = [ctx.Process(target=_run_boards, daemon=True,
                               args=(share, broker, changes, rate, username, password, ca_file, settle_s,
                                     ready, go, done)) for share in shares if share]
        for w in workers:
            w.start()
        try:
            for _ in workers:  # every simulated board connected before the first change
                kind, detail = ready.get(timeout=60)
                if kind == "error":
                    raise ConnectionError(detail)
            t0 = time.monotonic()
            go.set()
            for _ in workers:
                kind, detail = done.get(timeout=changes / rate + settle_s + 60)
                if kind == "error":
                    raise ConnectionError(detail)
                durable.update({(b, seq): t for b, seqs in detail.items() for seq, t in seqs.items()})
        finally:
            go.set()
            for w in workers:
                w.join(10)
                if w.is_alive():
                    w.terminate()
        deadline = time.monotonic() + settle_s
        while time.monotonic() < deadline:
            with lock:
                if len(received) >= sent:
                    break
            time.sleep(0.05)
        seconds = time.monotonic() - t0
        seen = {b["board_id"]: b for b in view.boards() if b["board_id"].startswith("bench-")}
    finally:
        _retire(view, [board_name(i) for i in range(1, boards + 1)])
        view.stop()
    delivered = sum(b["events"] for b in seen.values())
    with lock:
        got = dict(received)
    # The fleet's latency: from the event durable in the journal to its arrival at the subscriber;
    # the journal's own time (its fsync) apart, as the board's disk is no part of the broker's path.
    lat = [(got[k][1] - t) * 1000.0 for k, t in durable.items() if k in got]
    journal = [(t - got[k][0]) * 1000.0 for k, t in durable.items() if k in got]
    return {"boards": boards, "changes": changes, "rate": rate, "processes": procs, "sent": sent,
            "delivered": delivered, "lost": sent - delivered, "duplicates": sum(b["duplicates"] for b in seen.values()),
            "out_of_order": sum(b["missed"] for b in seen.values()),
            "latency_ms": {"p50": _round(percentile(lat, 50)), "p99": _round(percentile(lat, 99)),
                           "max": _round(max(lat) if lat else None)},
            "journal_ms": {"p50": _round(percentile(journal, 50)), "p99": _round(percentile(journal, 99))},
            "target_p99_ms": TARGET_P99_MS, "seconds": round(seconds, 2), "broker": broker.url(),
            "load_avg_1m": round(os.getloadavg()[0], 2)}


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 1)


def _retire(view: FleetView, board_ids: list[str]) -> None:
    """Delete the simulated boards' retained state and health, so no dashboard shows them afterwards."""
    client = view.client
    if not view.connected:
        return
    infos = [client.publish(topics.topic_for(b, kind), b"", qos=1, retain=True)
             for b in board_ids for kind in ("state", "health")]
    for info in infos:
        try:
            info.wait_for_publish(5)
        except (RuntimeError, ValueError):
            break


def format_table(r: dict[str, Any]) -> str:
    lat = r["latency_ms"]
    head = ["boards", "changes", "sent", "delivered", "lost", "dup", "p50 ms", "p99 ms", "max ms",
            "journal p99 ms", "seconds"]
    row = [r["boards"], r["changes"], r["sent"], r["delivered"], r["lost"], r["duplicates"], lat["p50"],
           lat["p99"], lat["max"], r["journal_ms"]["p99"], r["seconds"]]
    cells = [str("-" if v is None else v) for v in row]
    widths = [max(len(h), len(c)) for h, c in zip(head, cells, strict=True)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True)),
             "  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))]
    verdict = "no event lost" if r["lost"] == 0 and r["out_of_order"] == 0 else \
        f"FAILED: {r['lost']} lost, {r['out_of_order']} out of order"
    p99 = lat["p99"]
    target = "" if p99 is None else (f"; p99 {'within' if p99 <= r['target_p99_ms'] else 'OVER'} the "
                                     f"{r['target_p99_ms']:.0f} ms target")
    lines.append(f"{r['delivered']} of {r['sent']} events delivered through {r['broker']}: {verdict}{target}")
    return "\n".join(lines)
