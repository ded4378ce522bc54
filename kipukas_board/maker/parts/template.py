"""The 1:1 drilling template of a map: every stand's hole, the LED strip's pieces with their cut
marks, and the cable routes, drawn in millimetres on the printed map's outline.

:func:`plan` works out what goes where from the map (its ``[physical]`` section) and the parts'
parameters; :func:`drawing` turns the plan into plain shapes (lines, circles, rectangles, text, all
in mm from the map's top-left corner) that :func:`to_svg` writes as an SVG sized in mm and
:mod:`kipukas_board.maker.parts.template_pdf` tiles over printer pages. Nothing here does I/O.

The LED pieces follow the board's default layout (:func:`kipukas_board.show.layout.default_layout`):
a segment per territory in territory order, then one pixel per stand, one chain from the box. Each
territory's segment is drawn beside the middle of its stands, each stand's pixel beside its hole:
a suggestion that keeps the chain short, to move where the terrain lets the light through.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> t = plan(load_map("kipuka-8"))
    >>> len(t.holes), t.holes[0].stand, t.holes[0].shape
    (24, 'T1', 'square')
    >>> '<svg' in to_svg(drawing(t))
    True
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.hardware.parts_spec import STAND_PITCH_MIN_MM
from kipukas_board.maker.parts import dimensions as dim
from kipukas_board.maker.parts.params import ReedHolder
from kipukas_board.show.layout import default_layout

#: Matrix columns, as the firmware scans them: a stand's wiring position is (index // 8, index % 8).
MATRIX_COLUMNS = 8
#: The hole in the map's base where every cable goes down to the box.
HUB_HOLE = 25.0
#: The strip piece's drawn width: the strip and a millimetre each side.
STRIP_BAND = dim.STRIP.width + 2.0


class TemplateError(ValueError):
    """A map that cannot give a template (no size in mm)."""


@dataclass(frozen=True)
class Hole:
    stand: str
    kind: str
    x: float
    y: float
    shape: str  # "square" | "round"
    size: float  # side or diameter
    depth: float
    matrix: str  # "r0c0": the channel to wire it on, in the map's stand order
    switch: int  # SW1.. in the netlist


@dataclass(frozen=True)
class LedPiece:
    """A piece of strip: ``pixels`` pixels from ``start`` to ``end`` (the data arrow's direction)."""

    label: str
    first_pixel: int
    pixels: int
    start: tuple[float, float]
    end: tuple[float, float]


@dataclass(frozen=True)
class Route:
    kind: str  # "reed" (a stand's pair to the sensor board) | "led" (data and power along the chain)
    points: tuple[tuple[float, float], ...]


@dataclass
class Template:
    name: str
    width: float
    depth: float
    holes: list[Hole]
    leds: list[LedPiece]
    routes: list[Route]
    hub: tuple[float, float]
    #: Pairs of stands closer than the reed pitch allows, with their distance in mm.
    too_close: list[tuple[str, str, float]] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        return [f"stands {a} and {b} are {d:.0f} mm apart, under the {STAND_PITCH_MIN_MM:g} mm that keeps a "
                "token on one from closing the other's reed" for a, b, d in self.too_close]


def plan(board: BoardMap, per_territory: int = 3, hub: tuple[float, float] | None = None) -> Template:
    """What the template shows for ``board``. Raises :class:`TemplateError` for a map without a
    ``[physical]`` section, naming what to add."""
    if board.physical is None:
        raise TemplateError(
            f"{board.source or board.name}: the map has no [physical] section, so nothing says where its stands "
            "are in mm; add [physical] with width_mm, depth_mm and mm_per_unit (or each stand's x_mm, y_mm), "
            "as 'Measuring a printed map' in calibration/maps/README.md says")
    width, depth = board.physical.width_mm, board.physical.depth_mm
    hub = hub or (width / 2, depth / 2)
    holders = {kind: ReedHolder.for_kind(kind) for kind in ("territory", "movement")}
    holes: list[Hole] = []
    for k, (sid, stand) in enumerate(board.stands.items()):
        pos = board.position_mm(sid)
        assert pos is not None  # the checker gave every stand a position when the map has [physical]
        h = holders[stand.kind]
        r, c = divmod(k, MATRIX_COLUMNS)
        holes.append(Hole(sid, stand.kind, pos[0], pos[1], h.shape, h.hole_size, h.hole_depth, f"r{r}c{c}", k + 1))
    too_close = _too_close(holes)
    layout = default_layout(board, per_territory)
    by_id = {h.stand: h for h in holes}
    leds: list[LedPiece] = []
    # The hub's hole is in the way of a strip piece too: a round hole of its size at its place.
    obstacles = [*holes, Hole("hub", "hub", hub[0], hub[1], "round", HUB_HOLE, 0.0, "", 0)]
    for number, pixels in sorted(layout.territories.items(), key=lambda kv: kv[1][0]):
        mine = [by_id[s.id] for s in board.stands_in(number)]
        cx = sum(h.x for h in mine) / len(mine)
        cy = sum(h.y for h in mine) / len(mine)
        leds.append(_piece(f"territory {number}", pixels, (cx, cy), obstacles, leds, width, depth))
    for sid, pixels in sorted(layout.stands.items(), key=lambda kv: kv[1][0]):
        h = by_id[sid]
        leds.append(_piece(sid, pixels, (h.x + h.size / 2 + STRIP_BAND / 2 + 3 + len(pixels) * dim.STRIP_PITCH / 2,
                                         h.y), obstacles, leds, width, depth))
    routes = [Route("reed", ((h.x, h.y), hub)) for h in holes]
    chain = [hub]
    for piece in leds:
        chain += [piece.start, piece.end]
    routes.append(Route("led", tuple(chain)))
    return Template(board.name, width, depth, holes, leds, routes, hub, too_close)


def _too_close(holes: list[Hole]) -> list[tuple[str, str, float]]:
    out = []
    for a, b in itertools.combinations(holes, 2):
        d = math.dist((a.x, a.y), (b.x, b.y))
        if d < STAND_PITCH_MIN_MM:
            out.append((a.stand, b.stand, d))
    return out


def _piece(label: str, pixels: list[int], centre: tuple[float, float], holes: list[Hole],
           placed: list[LedPiece], width: float, depth: float) -> LedPiece:
    """A horizontal piece centred near ``centre``: moved down, then up, in 6 mm steps until it clears
    every hole and every piece already placed; failing that within 30 mm, moved sideways too (by
    half its length and more) and up or down as far as 48 mm, nearest first; and only when nothing
    there is clear, left where it was first tried."""
    length = len(pixels) * dim.STRIP_PITCH

    def at(dx: float, dy: float) -> tuple[float, float]:
        return (min(max(centre[0] + dx, length / 2), width - length / 2),
                min(max(centre[1] + dy, STRIP_BAND / 2), depth - STRIP_BAND / 2))

    def clear(cx: float, cy: float) -> bool:
        return not any(abs(h.x - cx) < length / 2 + h.size / 2 + 1 and abs(h.y - cy) < STRIP_BAND / 2 + h.size / 2 + 1
                       for h in holes) and not any(
            abs((p.start[0] + p.end[0]) / 2 - cx) < (length + p.pixels * dim.STRIP_PITCH) / 2 + 2
            and abs(p.start[1] - cy) < STRIP_BAND + 5 for p in placed)

    tries = [(0.0, 6.0 * step) for step in (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5)]
    side = length / 2 + 6.0
    tries += sorted(((dx, 6.0 * k) for dx in (-side, side, -2 * side, 2 * side) for k in range(-8, 9)),
                    key=lambda d: (math.hypot(*d), d))
    cx, cy = next((c for c in (at(*d) for d in tries) if clear(*c)), at(0.0, 0.0))
    return LedPiece(label, pixels[0], len(pixels), (cx - length / 2, cy), (cx + length / 2, cy))


# -- drawing ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Shape:
    """One drawn shape in mm. ``kind`` is line (x1 y1 x2 y2), polyline (x y x y ...), circle (cx cy r),
    rect (x y w h) or text (x y, with ``text`` and ``size``); ``style`` names its pen."""

    kind: str
    coords: tuple[float, ...]
    style: str
    text: str = ""
    size: float = 3.0
    id: str = ""


#: Pens: stroke colour, width in mm, dash pattern in mm (empty: solid), fill.
STYLES: dict[str, tuple[str, float, tuple[float, ...], str]] = {
    "outline": ("#000000", 0.5, (), "none"),
    "hole": ("#000000", 0.35, (), "none"),
    "centre": ("#000000", 0.2, (), "none"),
    "led": ("#b5179e", 0.3, (), "none"),
    "cut": ("#b5179e", 0.6, (), "none"),
    "reed": ("#0077b6", 0.25, (3.0, 2.0), "none"),
    "chain": ("#e85d04", 0.3, (1.0, 1.5), "none"),
    "warn": ("#d00000", 0.5, (), "none"),
    "text": ("#000000", 0.0, (), "#000000"),
    "mark": ("#000000", 0.25, (), "none"),
}


def drawing(t: Template) -> list[Shape]:
    """Every shape of the template, in mm from the map's top-left corner."""
    out = [Shape("rect", (0, 0, t.width, t.depth), "outline", id="outline")]
    for r in t.routes:
        out.append(Shape("polyline", tuple(v for p in r.points for v in p), "reed" if r.kind == "reed" else "chain"))
    out.append(Shape("circle", (*t.hub, HUB_HOLE / 2), "hole", id="hub"))
    out.append(Shape("text", (t.hub[0], t.hub[1] + HUB_HOLE / 2 + 4), "text",
                     f"cables to the box: {HUB_HOLE:g} mm hole"))
    for p in t.leds:
        (x0, y0), (x1, _) = p.start, p.end
        out.append(Shape("rect", (x0, y0 - STRIP_BAND / 2, x1 - x0, STRIP_BAND), "led", id=f"led-{_slug(p.label)}"))
        for i in range(1, p.pixels):
            x = x0 + i * dim.STRIP_PITCH
            out.append(Shape("line", (x, y0 - 1.5, x, y0 + 1.5), "led"))
        for x in (x0, x1):
            out.append(Shape("line", (x, y0 - STRIP_BAND / 2 - 2.5, x, y0 + STRIP_BAND / 2 + 2.5), "cut"))
        label = f"{p.label}: px {p.first_pixel}" + (f"-{p.first_pixel + p.pixels - 1}" if p.pixels > 1 else "")
        out.append(Shape("text", ((x0 + x1) / 2, y0 - STRIP_BAND / 2 - 1.2), "text", label, 2.2))
    for h in t.holes:
        half = h.size / 2
        if h.shape == "square":
            out.append(Shape("rect", (h.x - half, h.y - half, h.size, h.size), "hole", id=f"hole-{h.stand}"))
        else:
            out.append(Shape("circle", (h.x, h.y, half), "hole", id=f"hole-{h.stand}"))
        out.append(Shape("line", (h.x - half - 2, h.y, h.x + half + 2, h.y), "centre"))
        out.append(Shape("line", (h.x, h.y - half - 2, h.x, h.y + half + 2), "centre"))
        out.append(Shape("text", (h.x, h.y - half - 3), "text", h.stand, 3.0))
        out.append(Shape("text", (h.x, h.y + half + 4.5), "text", f"{h.matrix} SW{h.switch}", 2.2))
    by_id = {h.stand: h for h in t.holes}
    for a, b, _ in t.too_close:
        out.append(Shape("line", (by_id[a].x, by_id[a].y, by_id[b].x, by_id[b].y), "warn"))
    # A scale bar to check the print: it must measure 100 mm.
    x0, y0 = 10.0, t.depth - 8.0
    out.append(Shape("line", (x0, y0, x0 + 100, y0), "outline", id="scale-100mm"))
    for i in range(11):
        out.append(Shape("line", (x0 + 10 * i, y0 - (2.5 if i % 5 == 0 else 1.2), x0 + 10 * i, y0), "mark"))
    out.append(Shape("text", (x0 + 50, y0 - 3.5), "text", "this bar must measure 100 mm", 2.5))
    title = (f"{t.name}: drilling template 1:1, {t.width:g} x {t.depth:g} mm, seen from above. "
             "Square holes: territory stands; round: movement stands.")
    out.append(Shape("text", (t.width / 2, 6.0), "text", title, 3.0))
    return out


def _slug(s: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in s)


def to_svg(shapes: list[Shape], width: float | None = None, depth: float | None = None) -> str:
    """An SVG of ``shapes`` whose user unit is 1 mm and whose size says mm, so it prints 1:1."""
    if width is None or depth is None:
        outline = next(s for s in shapes if s.id == "outline")
        width, depth = outline.coords[2], outline.coords[3]
    body = []
    for s in shapes:
        stroke, sw, dash, fill = STYLES[s.style]
        ident = f' id="{escape(s.id)}"' if s.id else ""
        pen = f'stroke="{stroke}" stroke-width="{sw:g}" fill="{fill}"' + (
            f' stroke-dasharray="{" ".join(f"{d:g}" for d in dash)}"' if dash else "")
        c = [round(v, 3) for v in s.coords]
        if s.kind == "line":
            body.append(f'<line{ident} x1="{c[0]:g}" y1="{c[1]:g}" x2="{c[2]:g}" y2="{c[3]:g}" {pen}/>')
        elif s.kind == "polyline":
            pts = " ".join(f"{c[i]:g},{c[i + 1]:g}" for i in range(0, len(c), 2))
            body.append(f'<polyline{ident} points="{pts}" {pen}/>')
        elif s.kind == "circle":
            body.append(f'<circle{ident} cx="{c[0]:g}" cy="{c[1]:g}" r="{c[2]:g}" {pen}/>')
        elif s.kind == "rect":
            body.append(f'<rect{ident} x="{c[0]:g}" y="{c[1]:g}" width="{c[2]:g}" height="{c[3]:g}" {pen}/>')
        elif s.kind == "text":
            body.append(f'<text{ident} x="{c[0]:g}" y="{c[1]:g}" font-size="{s.size:g}" text-anchor="middle" '
                        f'font-family="sans-serif" fill="{fill}">{escape(s.text)}</text>')
        else:
            raise ValueError(f"unknown shape kind {s.kind!r}")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}mm" height="{depth:g}mm" '
            f'viewBox="0 0 {width:g} {depth:g}">\n' + "\n".join(body) + "\n</svg>\n")
