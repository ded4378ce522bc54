"""The game report's chart: a line per player over the cycles (or rounds) of a game, as inline SVG.

The report itself is the game mode's (``GameMode.report``, gathered by
:func:`kipukas_board.modes.game_report` and served by ``GET /report`` through ``BoardApp.game_report``).

Example::

    >>> chart_svg([{"cycle": 0, "held": {1: 1, 2: 1}}, {"cycle": 1, "held": {1: 3, 2: 2}}],
    ...           [{"seat": 1, "name": "Ana", "color": "#d7263d"}])[:4]
    '<svg'
"""

from __future__ import annotations

from html import escape
from typing import Any

W, H, PAD = 320, 180, 28


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
