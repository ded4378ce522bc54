"""``kipukas-board leds bench``: what a frame costs, render, output stage and SPI encoding apart.

:func:`run_lighting_bench` times every kind of frame the Kipukas renderer draws on a 12-territory
board with a chosen number of pixels (one core, median and p95), and :func:`live_run` runs the real
lighting thread on a simulated strip while a fake core updates it 20 times a second; the command
prints what they return.
"""

from __future__ import annotations

import statistics
import time
from typing import Any


def bench_layout(n_leds: int) -> tuple[Any, Any]:
    """A 12-territory board with ``n_leds`` pixels: one per stand, the rest split among territories."""
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.show.layout import LedLayout

    board = load_map("kipuka-12")
    stands = list(board.stands)
    terrs = sorted(board.territories)
    per = max(1, (n_leds - len(stands)) // len(terrs))
    territories = {n: list(range(k * per, (k + 1) * per)) for k, n in enumerate(terrs)}
    i = per * len(terrs)
    stand_px = {}
    for sid in stands:
        if i < n_leds:
            stand_px[sid] = [i]
            i += 1
    return board, LedLayout(territories, stand_px, length=n_leds)


def bench_scenes(board: Any) -> dict[str, tuple[Any, Any]]:
    """Named (state, scene) pairs covering every kind of frame the renderer draws."""
    from kipukas_board.modes.kipukas.rules.state import Player, StandState, TerritoryState, initial_state
    from kipukas_board.show.lighting import Scene

    s = initial_state(board)
    players = (Player(1, "Ann", "#e6194b"), Player(2, "Bob", "#4363d8"), Player(3, "Cy", "#3cb44b"))
    terrs = {n: TerritoryState(owner=(k % 3) + 1, claim="capital" if k < 3 else "base_camp")
             for k, n in enumerate(sorted(board.territories))}
    stands = {sid: StandState(occupied=k % 2 == 0, owner=(k % 3) + 1) for k, sid in enumerate(board.stands)}
    day = s.evolve(players=players, territories=terrs, stands=stands, phase="play", diel_phase="day")
    cont = dict(terrs)
    contenders = {}
    for n in list(cont)[::2]:
        cont[n] = TerritoryState(owner=cont[n].owner, claim=cont[n].claim, contention=True)
        contenders[n] = (cont[n].owner, cont[n].owner % 3 + 1)
    exposed = tuple(list(board.stands)[::3])
    return {
        "day (steady)": (day, Scene()),
        "night (breathing)": (day.evolve(diel_phase="night"), Scene()),
        "contention": (day.evolve(territories=cont, contenders=contenders), Scene()),
        "storm (exposed)": (day.evolve(diel_phase="storm", storm_exposed=exposed), Scene()),
        "win show": (day.evolve(winner=1, phase="over"), Scene(won_at=0.0)),
        "fault": (day, Scene(fault=True)),
    }


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def live_run(board: Any, layout: Any, seconds: float) -> dict[str, Any]:
    """Run :class:`Lighting` on a simulated strip with contention (animating) while a fake core calls
    ``update`` 20 times a second; measure frames sent and the time ``update`` takes."""
    from kipukas_board import modes
    from kipukas_board.hardware.leds.simulated import SimulatedLedStrip
    from kipukas_board.modes.kipukas.on_table import on_table
    from kipukas_board.show.lighting import FPS, Lighting

    state = on_table(bench_scenes(board)["contention"][0])
    strip = SimulatedLedStrip(count=layout.count)
    lighting = Lighting(strip, layout, game=modes)
    lighting.start(state)
    costs = []
    try:
        time.sleep(0.2)
        f0, t0 = strip.frames_shown, time.monotonic()
        while time.monotonic() - t0 < seconds:
            a = time.perf_counter()
            lighting.update(state, [])
            costs.append((time.perf_counter() - a) * 1e3)
            time.sleep(0.05)
        fps = (strip.frames_shown - f0) / (time.monotonic() - t0)
    finally:
        lighting.stop()
    return {"seconds": seconds, "target_fps": FPS, "fps": round(fps, 1),
            "update_ms": {"p50": round(statistics.median(costs), 3), "max": round(max(costs), 3)}}


def run_lighting_bench(leds: int, frames: int) -> dict[str, Any]:
    """Per scene: median render, output and encode times, total p50 and p95 (ms), distinct frames
    (more than 1: the scene really animates) and the frame rate the p95 allows; and the SPI time
    of one frame on the wire."""
    from kipukas_board.hardware.leds.spi import SPI_HZ, encode_frame
    from kipukas_board.modes.kipukas.lights import render

    board, layout = bench_layout(leds)
    stage = layout.output_stage()
    results: dict[str, Any] = {}
    for name, (state, scene) in bench_scenes(board).items():
        r_ms, o_ms, e_ms, tot = [], [], [], []
        distinct = set()
        for k in range(frames):
            t = k / 30.0
            a = time.perf_counter()
            frame = render(state, layout, t, scene)
            distinct.add(tuple(frame))
            b = time.perf_counter()
            wire = stage.apply(frame)
            c = time.perf_counter()
            encode_frame(wire, layout.order)
            d = time.perf_counter()
            r_ms.append((b - a) * 1e3)
            o_ms.append((c - b) * 1e3)
            e_ms.append((d - c) * 1e3)
            tot.append((d - a) * 1e3)
        res = {"render_ms": round(statistics.median(r_ms), 3), "output_ms": round(statistics.median(o_ms), 3),
               "encode_ms": round(statistics.median(e_ms), 3),
               "total_ms": {"p50": round(statistics.median(tot), 3), "p95": round(pct(tot, 0.95), 3)},
               "distinct_frames": len(distinct)}
        res["max_fps_p95"] = round(1000 / max(res["total_ms"]["p95"], 1e-6), 1)
        results[name] = res
    wire_ms = round(len(encode_frame([(0, 0, 0)] * layout.count, layout.order)) * 8 / SPI_HZ * 1e3, 2)
    return {"board": board, "layout": layout, "scenes": results, "spi_wire_ms": wire_ms, "spi_hz": SPI_HZ}
