"""The stand-sensing soak: real firmware ↔ a faulty pseudo-terminal ↔ serial adapter ↔ BoardApp core.

``kipukas-board sensors soak --seconds S --json`` runs this. The firmware's own files run on a thread
(:mod:`kipukas_board.bench.firmware_sim`) and scan a simulated matrix on which magnets arrive and
leave with contact bounce, and weak magnets flicker for less than the debounce time. Between the
firmware and the host a :class:`~kipukas_board.bench.firmware_sim.PtyLink` injects garbage bytes,
bit flips, dropped bytes and unplugs on a schedule. The host side is the production path: the serial
adapter built from settings inside a :class:`~kipukas_board.app.BoardApp`, whose core journals
every stand event to SQLite.

Everything runs in one process, so one clock (``time.monotonic``) times both ends: latency is from the
moment a switch *settles* at the firmware to the moment the core has applied the stand event.

Judged against what the simulation actually did:

- ``phantom``: core events that match no settled change (a flicker reported, a duplicate, a wrong state);
- ``final_mismatches``: stands whose core state differs from the switches once the faults stop;
- ``missed``: settled changes the core never saw as such (possible only if a change and its undo both
  fall inside one outage; the final state is still right).

The soak passes (:func:`failures` is empty, exit status 0) only with no phantom change, no final
mismatch and a latency p99 within debounce + 10 ms: the three promises of stand sensing. The latency
is real time on this machine, so a busy one can miss it; the table says by how much and by which
path (live frames or resyncs).
"""

from __future__ import annotations

import bisect
import json
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kipukas_board.bench.firmware_sim import Faults, FirmwareThread, PtyLink
from kipukas_board.hardware.sensors.protocol import channel_name


@dataclass
class SoakConfig:
    seconds: float = 60.0
    rows: int = 6
    cols: int = 6
    debounce_ms: int = 20
    scan_us: int = 1000
    heartbeat_ms: int = 100
    snapshot_ms: int = 1000
    changes_per_s: float = 10.0
    glitches_per_s: float = 5.0
    bounce_max_s: float = 0.004
    #: A stand keeps its state at least this long: 1.5 s allows at most 7 changes in 10 s, below the
    #: adapter's chatter threshold (8 in 10 s), as real play does.
    min_hold_s: float = 1.5
    map: str = "kipuka-12"
    faults: Faults | None = field(default_factory=Faults)
    seed: int = 1
    settle_s: float = 1.0
    #: The latency p99 the soak holds the link to; None: debounce + 10 ms, the figure for an idle
    #: Raspberry Pi 4 or 5 with the service stopped (a loaded machine needs its own, stated figure).
    latency_budget_ms: float | None = None


def machine() -> dict[str, Any]:
    """The machine the soak ran on, for its budget to be read against: CPUs, load, model."""
    import os
    import platform

    try:
        model = Path("/proc/device-tree/model").read_text(errors="replace").strip("\x00\n ") or None
    except OSError:
        model = None
    try:
        load = round(os.getloadavg()[0], 2)
    except OSError:
        load = None
    return {"cpus": os.cpu_count(), "load_1min": load, "arch": platform.machine(), "model": model}


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))
    return s[k]


def run_soak(cfg: SoakConfig, work_dir: str | None = None) -> dict[str, Any]:
    """Run the soak; returns the result dict (the fields docs/reference/command-line.md names first, details after)."""
    from kipukas_board.app import BoardApp
    from kipukas_board.settings import AdapterChoice, Settings

    load_at_start = machine()["load_1min"]
    tmp = tempfile.TemporaryDirectory(prefix="kipukas-soak-") if work_dir is None else None
    root = Path(work_dir or tmp.name)  # type: ignore[union-attr]
    n = cfg.rows * cfg.cols
    link = PtyLink(root)
    fw = FirmwareThread(cfg.rows, cfg.cols, link, debounce_ms=cfg.debounce_ms, scan_us=cfg.scan_us,
                        heartbeat_ms=cfg.heartbeat_ms, snapshot_ms=cfg.snapshot_ms).start()
    settings = Settings(map=cfg.map, sensors=AdapterChoice("serial", {
        "device": link.path, "reconnect_s": 0.002, "resync_timeout_s": 0.02,
        "startup_wait_s": 5.0}))
    app = BoardApp(settings, root / "data", admin_pin="0000")
    stands = list(app.loop.state.board.stands)
    if len(stands) < n:
        app.stop()
        fw.stop()
        link.close()
        raise ValueError(f"map {cfg.map!r} has {len(stands)} stands; the soak's {cfg.rows}x{cfg.cols} "
                         f"matrix needs {n}")
    channel_of = {stands[i]: i for i in range(n)}
    app.channel_map = {channel_name(i, cfg.cols): stands[i] for i in range(n)}

    delivered: list[tuple[float, int, bool]] = []

    def on_core(state: Any, effects: list[dict[str, Any]]) -> None:
        now = time.monotonic()
        for e in effects:
            if e.get("type") == "stand" and e.get("stand") in channel_of:
                delivered.append((now, channel_of[e["stand"]], bool(e["occupied"])))

    how_counts: dict[str, int] = {}
    hows: list[list[str]] = [[] for _ in range(n)]

    def on_adapter(change: Any, how: str) -> None:
        how_counts[how] = how_counts.get(how, 0) + 1
        sid = app.channel_map.get(change.channel) if app.channel_map else None
        if sid in channel_of:
            hows[channel_of[sid]].append(how)
    app.loop.subscribe(on_core)
    matrix = fw.matrix
    intended: list[list[tuple[float, float, bool]]] = [[] for _ in range(n)]
    try:
        app.start()
        sensors = app.sensors
        sensors.observer = on_adapter
        if not sensors.wait_synced(5.0):
            raise RuntimeError(f"the host never synced with the simulated board ({sensors.health()['last_error']})")
        link.faults = cfg.faults
        link.restart_faults()
        rng = random.Random(cfg.seed)
        last_touch = [-1e9] * n
        start = time.monotonic()
        end = start + cfg.seconds
        next_change = start + rng.expovariate(cfg.changes_per_s)
        next_glitch = start + (rng.expovariate(cfg.glitches_per_s) if cfg.glitches_per_s else 1e18)
        glitches = 0
        while True:
            now = time.monotonic()
            wake = min(next_change, next_glitch)
            if wake >= end:
                break
            if wake > now:
                time.sleep(wake - now)
                continue
            idle = [c for c in range(n) if now - last_touch[c] >= cfg.min_hold_s]
            if next_change <= now:
                next_change = now + rng.expovariate(cfg.changes_per_s)
                if idle:
                    c = rng.choice(idle)
                    new = not matrix.state(c)
                    bounce = rng.uniform(0.0005, cfg.bounce_max_s) if rng.random() < 0.7 else 0.0
                    t0 = time.monotonic()
                    settle = matrix.set(c, new, bounce)
                    intended[c].append((t0, settle, new))
                    last_touch[c] = settle
                    idle.remove(c)
            if next_glitch <= now:
                next_glitch = now + rng.expovariate(cfg.glitches_per_s)
                if idle:
                    c = rng.choice(idle)
                    length = rng.uniform(0.0005, max(0.001, cfg.debounce_ms / 1000 - 0.002))
                    matrix.glitch(c, length)
                    last_touch[c] = time.monotonic() + length
                    glitches += 1
        if time.monotonic() < end:
            time.sleep(end - time.monotonic())
        # faults off; let the link come back and the host settle on the truth
        link.faults = None
        quiet_until = time.monotonic() + cfg.settle_s
        while time.monotonic() < quiet_until:
            time.sleep(0.05)
        sensors.request_snapshot("soak end")
        time.sleep(0.3)
        core = app.loop.state
        final_mismatches = sum(core.switches[stands[c]] != matrix.state(c) for c in range(n))
        view = sensors.snapshot()
        adapter_mismatches = sum(view.get(channel_name(c, cfg.cols)) != matrix.state(c)
                                 for c in range(n))
        health = sensors.health()
    finally:
        app.stop()
        fw.stop()
        fault_counts = dict(cfg.faults.counts) if cfg.faults else {}
        link.close()
        if tmp is not None:
            tmp.cleanup()
    if fw.error is not None:
        raise RuntimeError(f"the firmware thread failed: {fw.error!r}")

    phantom, matched, latencies = 0, 0, []
    by_how: dict[str, list[float]] = {}
    by_channel: list[list[tuple[float, bool]]] = [[] for _ in range(n)]
    for t, c, s in delivered:
        by_channel[c].append((t, s))
    for c in range(n):
        plan = intended[c]
        p = 0
        for k, (t, s) in enumerate(by_channel[c]):
            j = p
            while j < len(plan) and not (plan[j][2] == s and plan[j][0] <= t):
                j += 1
            # the matched change must have started before the event; a later one cannot explain it
            if j < len(plan) and plan[j][0] <= t:
                latencies.append((t - plan[j][1]) * 1000)
                how = hows[c][k] if k < len(hows[c]) else "?"
                by_how.setdefault(how, []).append(latencies[-1])
                matched += 1
                p = j + 1
            else:
                phantom += 1
    made = sum(len(p) for p in intended)
    lat_sorted = sorted(latencies)
    budget = cfg.latency_budget_ms if cfg.latency_budget_ms is not None else cfg.debounce_ms + 10
    return {
        "machine": {**machine(), "load_1min_at_start": load_at_start},
        "changes_made": made,
        "changes_delivered": len(delivered),
        "phantom": phantom,
        "final_mismatches": final_mismatches,
        "resyncs": health["resyncs"],
        "latency_ms": {"p50": _round(_percentile(latencies, 0.5)), "p99": _round(_percentile(latencies, 0.99))},
        "latency_max_ms": _round(lat_sorted[-1] if lat_sorted else None),
        "latency_budget_ms": budget,
        "p99_within_budget": bool(latencies) and _percentile(latencies, 0.99) <= budget,
        "over_budget": len(lat_sorted) - bisect.bisect_right(lat_sorted, budget),
        "missed": made - matched,
        "adapter_mismatches": adapter_mismatches,
        "glitches": glitches,
        "delivered_by": how_counts,
        "latency_ms_by_how": {h: {"n": len(v), "p50": _round(_percentile(v, 0.5)), "p99": _round(_percentile(v, 0.99)),
                                  "max": _round(max(v))} for h, v in sorted(by_how.items())},
        "faults": fault_counts,
        "link": {k: health[k] for k in ("frames_ok", "frames_dropped", "crc_errors", "seq_gaps", "reconnects",
                                         "corrections", "bad_frames")},
        "config": {"seconds": cfg.seconds, "matrix": f"{cfg.rows}x{cfg.cols}", "debounce_ms": cfg.debounce_ms,
                   "scan_us": cfg.scan_us, "changes_per_s": cfg.changes_per_s,
                   "fault_every_ms": round(cfg.faults.every_s * 1000) if cfg.faults else None,
                   "fault_kinds": list(cfg.faults.kinds) if cfg.faults else []},
    }


def failures(result: dict[str, Any]) -> list[str]:
    """Why the soak failed, one reason per broken promise; empty if it passed."""
    out = []
    if result["phantom"]:
        out.append(f"{result['phantom']} phantom change(s): events no settled switch change explains")
    if result["final_mismatches"]:
        out.append(f"{result['final_mismatches']} stand(s) wrong in the core once the faults stopped")
    if result["latency_ms"]["p99"] is None:
        out.append("no switch change reached the core (soak too short or --rate too low): latency not measured")
    elif not result["p99_within_budget"]:
        m = result.get("machine") or {}
        loaded = ""
        if m.get("cpus") and (m.get("load_1min_at_start") or 0) >= m["cpus"] / 2:
            loaded = (f"; the machine was busy (load {m['load_1min_at_start']} on {m['cpus']} CPUs): the "
                      f"budget is for an idle Pi with the service stopped (--latency-budget-ms states another)")
        out.append(f"latency p99 {result['latency_ms']['p99']} ms is over the budget of "
                   f"{result['latency_budget_ms']} ms ({result['over_budget']} change(s) over it){loaded}")
    return out


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 2)


def format_table(result: dict[str, Any]) -> str:
    """The human-readable table printed before the JSON line."""
    lat = result["latency_ms"]
    rows = [
        ("changes made (settled at the firmware)", result["changes_made"]),
        ("changes delivered (events at the core)", result["changes_delivered"]),
        ("phantom changes", result["phantom"]),
        ("missed changes", result["missed"]),
        ("final mismatches (core vs switches)", result["final_mismatches"]),
        ("final mismatches (adapter vs switches)", result["adapter_mismatches"]),
        ("sub-debounce flickers injected", result["glitches"]),
        ("resyncs", result["resyncs"]),
        ("latency p50 / p99 / max (ms)", f"{lat['p50']} / {lat['p99']} / {result['latency_max_ms']}"),
        (f"p99 within the budget of {result['latency_budget_ms']} ms", result["p99_within_budget"]),
        ("machine", json.dumps(result.get("machine"), sort_keys=True)),
        ("changes over that budget", result["over_budget"]),
        ("delivered by", json.dumps(result["delivered_by"], sort_keys=True)),
        ("latency by path (ms)", json.dumps(result["latency_ms_by_how"], sort_keys=True)),
        ("faults injected", json.dumps(result["faults"], sort_keys=True)),
        ("link", json.dumps(result["link"], sort_keys=True)),
        ("verdict", "; ".join(failures(result)) or "pass"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


__all__ = ["SoakConfig", "run_soak", "format_table", "failures", "Faults"]
