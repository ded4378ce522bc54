"""Kipukas's game report: who played, who held what cycle by cycle (a chart), and the moments that
decided it, from the steps the journal's replay made (:func:`kipukas_board.modes.game_report`; the
rules' effects are not journaled, so the report reads them from the replay).
"""

from __future__ import annotations

from typing import Any

from kipukas_board.board.places import in_words, territory_names
from kipukas_board.modes.base import Step
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.kipukas.phrases import phrases_for
from kipukas_board.modes.kipukas.rules.playstyles import holdings
from kipukas_board.web.narrate import WRITTEN, describe, said
from kipukas_board.web.report import chart_svg

#: Effects that decide a game, for the report's list of moments.
DECISIVE = frozenset({"won", "draw", "storm", "eliminated", "contention_started", "contention_ended",
                      "imprisoned", "liberated", "soul_lost", "setup_complete"})


def _written(effect: dict[str, Any], state: Any) -> list[str]:
    return phrases_for(effect, state, WRITTEN)


def report(steps: list[Step]) -> dict[str, Any]:
    """Players, holdings after each cycle and the decisive moments of the game ``steps`` played."""
    cycles: list[dict[str, Any]] = []
    moments: list[dict[str, Any]] = []
    for step in steps:
        s, ev, effects = kipukas_state(step.state), step.event, step.effects
        setup_done = any(e.get("type") == "setup_complete" for e in effects)
        if setup_done or (ev.get("type") == "roll_diel" and s.phase != "setup"):
            cycles.append({"cycle": s.diel_cycle, "phase": s.diel_phase or "setup done", "held": holdings(s)})
        elif ev.get("type") == "undo" and cycles and cycles[-1]["cycle"] > s.diel_cycle:
            cycles.pop()
        decisive = [e for e in effects if e.get("type") in DECISIVE]
        if decisive or ev.get("type") in ("resolve_contention", "end_game", "soul_lost"):
            names = {p.seat: p.name for p in s.players}
            text = in_words(s.board, " ".join(said(s, decisive, _written))
                            or describe(ev, names, territory_names(s.board)))
            moments.append({"seq": step.seq, "ts": step.ts, "cycle": s.diel_cycle, "when": f"cycle {s.diel_cycle}",
                            "text": text})
    s = kipukas_state(steps[-1].state)
    if cycles and s.phase == "over" and cycles[-1]["held"] != holdings(s):
        cycles.append({"cycle": s.diel_cycle, "phase": "end", "held": holdings(s)})
    players = [{"seat": p.seat, "name": p.name, "color": p.color, "held": holdings(s).get(p.seat, 0),
                "souls_lost": s.souls_lost.get(p.seat, 0), "out": p.seat in s.eliminated} for p in s.players]
    style = WRITTEN.get(f"style_{s.play_style}", s.play_style)
    return {"players": players, "columns": [["held", "Territories held"], ["souls_lost", "Souls lost"]],
            "cycles": cycles, "moments": moments, "chart": chart_svg(cycles, players),
            "chart_title": "Who held what, cycle by cycle", "no_chart": "No cycle has been played yet.",
            "summary": f"{style} on {s.board.name}.", "play_style": style,
            "phase": s.phase, "winner": next((p["name"] for p in players if p["seat"] == s.winner), None)}
