"""The board drawn as SVG from the map file, for the page.

Territories are rounded blobs around their stands (a convex hull drawn with a wide round stroke,
which also covers territories of one or two stands); paths are lines, dashed for water and dotted
for tunnels; territory stands are squares, movement stands circles. Every element carries the
``data-territory`` / ``data-stand`` attribute the page and its tests use (docs/reference/http-api.md).
"""

from __future__ import annotations

from html import escape

from kipukas_board.board.mapfile import BoardMap

PAD = 70
#: Radius of a stand's tap target, in map units (stands on the shipped maps are ~100 apart).
HIT_R = 45
#: Half a drawn stand's size, in map units: large enough to read a token's mark on a phone.
STAND_R = 26


def _hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def board_svg(board: BoardMap) -> str:
    xs = [s.x for s in board.stands.values()]
    ys = [s.y for s in board.stands.values()]
    x0, y0 = min(xs) - PAD - 20, min(ys) - PAD - 20
    w, h = max(xs) - x0 + PAD + 20, max(ys) - y0 + PAD + 20
    out = [f'<svg id="board" xmlns="http://www.w3.org/2000/svg" viewBox="{x0:.0f} {y0:.0f} {w:.0f} {h:.0f}" '
           f'role="img" aria-label="{escape(board.name)}">']
    out.append('<g class="territories">')
    for n, t in sorted(board.territories.items()):
        pts = _hull([(s.x, s.y) for s in board.stands_in(n)])
        if len(pts) == 1:
            pts = pts * 2
        pstr = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        label = escape(f"{n} {t.name}".strip())
        out.append(f'<polygon class="territory geo-{t.geography}{" transit" if t.transit else ""}" '
                   f'data-territory="{n}" points="{pstr}"><title>{label}</title></polygon>')
    out.append("</g><g class=\"paths\">")
    for p in board.paths:
        a, b = board.stands[p.a], board.stands[p.b]
        out.append(f'<line class="path path-{p.kind}" data-path="{escape(p.a)}-{escape(p.b)}" '
                   f'x1="{a.x:.1f}" y1="{a.y:.1f}" x2="{b.x:.1f}" y2="{b.y:.1f}"/>')
    out.append("</g><g class=\"labels\">")
    for n in sorted(board.territories):
        ss = board.stands_in(n)
        cx = sum(s.x for s in ss) / len(ss)
        cy = min(s.y for s in ss) - 38
        out.append(f'<text class="tlabel" data-label="{n}" x="{cx:.1f}" y="{cy:.1f}">{n}</text>')
    # Invisible, larger tap targets around each stand: a stand drawn to scale on a phone is a few
    # pixels wide. They carry data-hit (not data-stand, which stays unique to the drawn stand).
    out.append("</g><g class=\"hits\">")
    for s in board.stands.values():
        out.append(f'<circle class="hit" data-hit="{escape(s.id)}" cx="{s.x:.1f}" cy="{s.y:.1f}" r="{HIT_R}"/>')
    out.append("</g><g class=\"stands\">")
    for s in board.stands.values():
        sid = escape(s.id)
        dock = " dock" if s.id in board.docks else ""
        if s.kind == "territory":
            out.append(f'<rect class="stand stand-territory" data-stand="{sid}" data-territory-of="{s.territory}" '
                       f'x="{s.x - STAND_R:.1f}" y="{s.y - STAND_R:.1f}" width="{2 * STAND_R}" '
                       f'height="{2 * STAND_R}" rx="4">'
                       f'<title>{sid}</title></rect>')
        else:
            out.append(f'<circle class="stand stand-movement{dock}" data-stand="{sid}" '
                       f'data-territory-of="{s.territory}" cx="{s.x:.1f}" cy="{s.y:.1f}" r="{STAND_R}">'
                       f'<title>{sid}{" (dock)" if dock else ""}</title></circle>')
    # A letter on each token (C capital, B base camp, ? in hand, × downed), set by the page.
    out.append("</g><g class=\"marks\" aria-hidden=\"true\">")
    for s in board.stands.values():
        out.append(f'<text class="mark" data-mark="{escape(s.id)}" x="{s.x:.1f}" y="{s.y + 8:.1f}"></text>')
    out.append("</g></svg>")
    return "\n".join(out)
