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


#: A territory label's box at its widest ("10 A ▲": number, holder's initial, the hill's mark), in
#: map units for the page's 34 px bold label: half its width, and how far it reaches above and below
#: its baseline.
LABEL_HALF_W, LABEL_UP, LABEL_DOWN = 66, 28, 8
#: Room kept between a label and a stand.
LABEL_GAP = 4


def _label_box(x: float, y: float) -> tuple[float, float, float, float]:
    return x - LABEL_HALF_W, y - LABEL_UP, x + LABEL_HALF_W, y + LABEL_DOWN


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """The area two boxes share (0 when apart)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def label_spots(board: BoardMap) -> dict[int, tuple[float, float]]:
    """Where each territory's number is written: above its stands where that is clear, otherwise the
    nearest spot around them where the label at its widest covers no stand and no other label.

    Example::

        >>> from kipukas_board.board.mapfile import load_map
        >>> spots = label_spots(load_map("kipuka-13"))
        >>> len(spots)
        13
    """
    r = STAND_R + LABEL_GAP
    stands = [(s.x - r, s.y - r, s.x + r, s.y + r) for s in board.stands.values()]
    placed: list[tuple[float, float, float, float]] = []
    out: dict[int, tuple[float, float]] = {}
    for n in sorted(board.territories):
        ss = board.stands_in(n)
        cx = sum(s.x for s in ss) / len(ss)
        top = min(s.y for s in ss)
        home = (cx, top - 38)
        tries = [home]
        for s in ss:  # around each of its stands, nearest first
            for dist in (STAND_R + LABEL_UP + LABEL_GAP, 80, 110):
                tries += [(s.x, s.y - dist), (s.x, s.y + dist + LABEL_UP),
                          (s.x - STAND_R - LABEL_HALF_W - LABEL_GAP - dist + 60, s.y + 10),
                          (s.x + STAND_R + LABEL_HALF_W + LABEL_GAP + dist - 60, s.y + 10)]

        def cost(spot: tuple[float, float], home: tuple[float, float] = home) -> float:
            box = _label_box(*spot)
            covered = sum(_overlap(box, b) for b in stands) + sum(_overlap(box, b) for b in placed)
            return covered * 1000 + abs(spot[0] - home[0]) + abs(spot[1] - home[1])

        best = min(tries, key=cost)
        out[n] = best
        placed.append(_label_box(*best))
    return out


def board_svg(board: BoardMap) -> str:
    spots = label_spots(board)
    boxes = [_label_box(*spot) for spot in spots.values()]
    x0 = min([s.x - PAD - 20 for s in board.stands.values()] + [b[0] - LABEL_GAP for b in boxes])
    y0 = min([s.y - PAD - 20 for s in board.stands.values()] + [b[1] - LABEL_GAP for b in boxes])
    w = max([s.x + PAD + 20 for s in board.stands.values()] + [b[2] + LABEL_GAP for b in boxes]) - x0
    h = max([s.y + PAD + 20 for s in board.stands.values()] + [b[3] + LABEL_GAP for b in boxes]) - y0
    out = [f'<svg id="board" xmlns="http://www.w3.org/2000/svg" viewBox="{x0:.0f} {y0:.0f} {w:.0f} {h:.0f}" '
           f'role="img" aria-label="{escape(board.name)}" data-revision="{board.revision}">']
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
    for n, (x, y) in spots.items():
        out.append(f'<text class="tlabel" data-label="{n}" x="{x:.1f}" y="{y:.1f}">{n}</text>')
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
    # A mark on each token (★ capital, ⌂ base camp, a soul's owner's initial, ? in hand, × downed), set by the page.
    out.append("</g><g class=\"marks\" aria-hidden=\"true\">")
    for s in board.stands.values():
        out.append(f'<text class="mark" data-mark="{escape(s.id)}" x="{s.x:.1f}" y="{s.y + 8:.1f}"></text>')
    out.append("</g></svg>")
    return "\n".join(out)
