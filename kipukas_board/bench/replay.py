"""``kipukas-board bench-replay``: how fast a journal rebuilds the state.

:func:`run_replay_bench` plays a generated game of ``events`` events (seeded, so every run is the
same game), writes it as JSON lines and times rebuilding the state from them, JSON decode, event
check and rules included, best of ``repeat`` runs; the command prints what it returns.
"""

from __future__ import annotations

import json
import time
from typing import Any

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.modes import new_table
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.kipukas.rules.dice import SeededDice
from kipukas_board.modes.kipukas.rules.simulate import random_game
from kipukas_board.modes.replay import read_lines, replay_events


def run_replay_bench(board: BoardMap, events: int, players: int, seed: int, repeat: int) -> dict[str, Any]:
    """Wall and CPU time of the best rebuild, events per second of each, the event mix and the
    final diel cycle (a check that the game went somewhere)."""
    style = "domination" if players == 2 else "mass_contention"
    game = random_game(board, events, SeededDice(seed), players=players, play_style=style)
    text = [json.dumps({"seq": i, "event": e}, separators=(",", ":")) for i, e in enumerate(game, 1)]
    best = cpu = float("inf")
    final = None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        final = replay_events(read_lines(text), new_table(board))
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)  # on a busy machine the CPU time is the steadier number
    assert final is not None
    kinds: dict[str, int] = {}
    for e in game:
        kinds[e["type"]] = kinds.get(e["type"], 0) + 1
    return {"events": len(game), "seconds": round(best, 6), "cpu_seconds": round(cpu, 6),
            "events_per_s": round(len(game) / best, 1), "events_per_cpu_s": round(len(game) / max(cpu, 1e-9), 1),
            "mix": sorted(kinds.items(), key=lambda kv: -kv[1]), "final_diel_cycle": kipukas_state(final).diel_cycle}
