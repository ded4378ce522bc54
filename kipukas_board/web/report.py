"""The game report: who played, who held what cycle by cycle (an SVG chart), and the moments that
decided it, rebuilt from the journal (the rules' effects are not journaled, so the journal is
replayed through the rules from the last new game).

Example::

    >>> chart_svg([{"cycle": 0, "held": {1: 1, 2: 1}}, {"cycle": 1, "held": {1: 3, 2: 2}}],
    ...           [{"seat": 1, "name": "Ana", "color": "#d7263d"}])[:4]
    '<svg'
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.playstyles import holdings
from kipukas_board.modes.kipukas.rules.state import initial_state
from kipukas_board.web.narrate import WRITTEN, describe, said

if TYPE_CHECKING:
    from kipukas_board.app import BoardApp

#: Effects that decide a game, for the report's list of moments.
DECISIVE = frozenset({"won", "draw", "storm", "eliminated", "contention_started", "contention_ended",
                      "imprisoned", "liberated", "soul_lost", "setup_complete"})
W, H, PAD = 320, 180, 28


def game_report(board: BoardApp) -> dict[str, Any]:
    """Replay the journal and gather the last game's players, holdings per cycle and moments."""
    rows = list(board.journal.rows())
    start = max((i for i, (_, _, ev) in enumerate(rows) if ev.get("type") == "new_game"), default=None)
    state = board.loop.state
    if start is None:
        return {"started": False, "players": [], "cycles": [], "moments": [], "chart": "", "map": state.board.name}
    # the state just before the new game: replayed from the start (the map events set the board up)
    s = initial_state(state.board)
    for seq, _, ev in rows[:start]:
        s = apply(s, ev, seq=seq)[0]
    cycles: list[dict[str, Any]] = []
    moments: list[dict[str, Any]] = []
    for seq, ts, ev in rows[start:]:
        s, effects = apply(s, ev, seq=seq)
        setup_done = any(e.get("type") == "setup_complete" for e in effects)
        if setup_done or (ev.get("type") == "roll_diel" and s.phase != "setup"):
            cycles.append({"cycle": s.diel_cycle, "phase": s.diel_phase or "setup done", "held": holdings(s)})
        elif ev.get("type") == "undo" and cycles and cycles[-1]["cycle"] > s.diel_cycle:
            cycles.pop()
        decisive = [e for e in effects if e.get("type") in DECISIVE]
        if decisive or ev.get("type") in ("resolve_contention", "end_game", "soul_lost"):
            names = {p.seat: p.name for p in s.players}
            text = " ".join(said(s, decisive)) or describe(ev, names)
            moments.append({"seq": seq, "ts": ts, "cycle": s.diel_cycle, "text": text})
    if cycles and s.phase == "over" and cycles[-1]["held"] != holdings(s):
        cycles.append({"cycle": s.diel_cycle, "phase": "end", "held": holdings(s)})
    players = [{"seat": p.seat, "name": p.name, "color": p.color, "held": holdings(s).get(p.seat, 0),
                "souls_lost": s.souls_lost.get(p.seat, 0), "out": p.seat in s.eliminated} for p in s.players]
    return {"started": True, "players": players, "cycles": cycles, "moments": moments,
            "chart": chart_svg(cycles, players), "map": s.board.name,
            "play_style": WRITTEN.get(f"style_{s.play_style}", s.play_style), "phase": s.phase,
            "winner": next((p["name"] for p in players if p["seat"] == s.winner), None)}


def chart_svg(cycles: list[dict[str, Any]], players: list[dict[str, Any]]) -> str:
    """Territories held per player after each cycle, as one line per player (inline SVG)."""
    if not cycles or not players:
        return ""
    top = max(1, max((c["held"].get(p["seat"], 0) for c in cycles for p in players), default=1))
    n = max(1, len(cycles) - 1)
    x = lambda i: PAD + i * (W - 2 * PAD) / n  # noqa: E731
    y = lambda v: H - PAD - v * (H - 2 * PAD) / top  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" role="img" class="chart" '
           f'aria-label="Territories held per player, cycle by cycle">']
    out.append(f'<line x1="{PAD}" y1="{H - PAD}" x2="{W - PAD}" y2="{H - PAD}" stroke="#888"/>')
    out.append(f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{H - PAD}" stroke="#888"/>')
    out.append(f'<text x="{PAD - 6}" y="{y(top) + 4:.0f}" text-anchor="end" font-size="10">{top}</text>')
    out.append(f'<text x="{PAD - 6}" y="{H - PAD + 4}" text-anchor="end" font-size="10">0</text>')
    for i, c in enumerate(cycles):
        out.append(f'<text x="{x(i):.0f}" y="{H - PAD + 14}" text-anchor="middle" font-size="10">{c["cycle"]}</text>')
    out.append(f'<text x="{W / 2:.0f}" y="{H - 2}" text-anchor="middle" font-size="10">cycle</text>')
    for k, p in enumerate(players):
        nudge = (k - (len(players) - 1) / 2) * 3.5  # equal counts stay apart, one line beside the other
        pts = " ".join(f"{x(i):.1f},{y(c['held'].get(p['seat'], 0)) + nudge:.1f}" for i, c in enumerate(cycles))
        color = escape(p["color"])
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="3" points="{pts}" '
                   f'data-seat="{p["seat"]}"><title>{escape(p["name"])}</title></polyline>')
    out.append("</svg>")
    return "".join(out)
