"""Creature Combat Territory's game report: who played, how many rounds, and the moments that decided
it (each land's combat, the end), from the steps of the journal's replay
(:func:`kipukas_board.modes.game_report`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kipukas_board.modes.base import Step
from kipukas_board.modes.creature_combat.phrases import phrases_for
from kipukas_board.modes.creature_combat.rules import CCState

#: Effects that decide a game, for the report's list of moments.
DECISIVE = frozenset({"cc_result", "cc_conceded", "cc_over"})


def report(steps: list[Step], game_of: Callable[[Any], Any]) -> dict[str, Any]:
    """Players (lands won), rounds and decisive moments of the game ``steps`` played (the game is
    ``game_of(state)`` in each step)."""
    moments: list[dict[str, Any]] = []
    cc: CCState | None = None
    for step in steps:
        round_ = cc.round if cc is not None else 1  # the round the event was made in
        cc = game_of(step.state)
        if cc is None:
            continue
        texts = [t for e in step.effects if e.get("type") in DECISIVE for t in (phrases_for(e, cc) or [])]
        if texts:
            moments.append({"seq": step.seq, "ts": step.ts, "when": f"round {round_}", "text": " ".join(texts)})
    if cc is None:
        return {"players": [], "columns": [], "summary": "", "phase": "", "winner": None, "moments": []}
    players = [{"seat": s.seat, "name": s.name, "color": s.color, "lands": len(cc.land_piles.get(s.seat, ())),
                "out": s.conceded} for s in cc.seats]
    rounds = f"{cc.round} round{'s' if cc.round != 1 else ''}"
    return {"players": players, "columns": [["lands", "Lands won"]],
            "summary": f"Creature Combat Territory, {rounds}.", "rounds": cc.round, "phase": cc.phase,
            "winner": next((s.name for s in cc.seats if s.seat == cc.winner), None), "moments": moments}
