"""The card duel's game report: who played, how many turns, and the moments that decided it (the
Hearts that flipped, the end), from the steps of the journal's replay
(:func:`kipukas_board.modes.game_report`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kipukas_board.modes.base import Step
from kipukas_board.modes.duel.phrases import phrases_for
from kipukas_board.modes.duel.rules import Duel

#: Effects that decide a duel, for the report's list of moments.
DECISIVE = frozenset({"duel_heart", "duel_over"})


def report(steps: list[Step], game_of: Callable[[Any], Any]) -> dict[str, Any]:
    """Players (Hearts left, cards played), turns and decisive moments of the duel ``steps`` played
    (the duel is ``game_of(state)`` in each step)."""
    moments: list[dict[str, Any]] = []
    played: dict[int, int] = {}
    duel: Duel | None = None
    for step in steps:
        turn = duel.turn if duel is not None else 1  # the turn the event was made in
        duel = game_of(step.state)
        if duel is None:
            continue
        for e in step.effects:
            if e.get("type") == "duel_played" and isinstance(e.get("seat"), int):
                played[e["seat"]] = played.get(e["seat"], 0) + 1
        texts = [t for e in step.effects if e.get("type") in DECISIVE for t in (phrases_for(e, duel) or [])]
        if texts:
            moments.append({"seq": step.seq, "ts": step.ts, "when": f"turn {turn}", "text": " ".join(texts)})
    if duel is None:
        return {"players": [], "columns": [], "summary": "", "phase": "", "winner": None, "moments": []}
    players = [{"seat": s.seat, "name": s.name, "color": s.color, "hearts": f"{s.hearts} of {s.hearts_total}",
                "played": played.get(s.seat, 0), "out": s.hearts == 0} for s in duel.sides]
    turns = f"{duel.turn} turn{'s' if duel.turn != 1 else ''}"
    return {"players": players, "columns": [["hearts", "Hearts left"], ["played", "Cards played"]],
            "summary": f"A card duel, {turns}.", "turns": duel.turn, "phase": duel.phase,
            "winner": next((s.name for s in duel.sides if s.seat == duel.winner), None), "moments": moments}
