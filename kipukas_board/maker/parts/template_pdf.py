"""The drilling template as a PDF for a home printer: the 1:1 drawing cut into A4 or Letter tiles
that overlap, with alignment marks to tape them together.

Each page shows a tile of the map (the printable area less a 10 mm margin), numbered by row and
column, with the same crosses at the tile grid's corners on every page that shares them: lay two
pages one over the other until their crosses meet, then tape. The pages are portrait or landscape,
whichever takes fewer. A 50 mm bar on each page checks that
the printer kept the scale ("actual size", never "fit to page"). reportlab draws it (the
``stickers`` and ``parts`` extras install it); it is imported when a PDF is written.

Example::

    >>> tiles(500, 270, "a4")[:2]
    [(0, 0, 0.0, 0.0), (0, 1, 180.0, 0.0)]
    >>> landscape(500, 270, "a4"), len(tiles(500, 270, "a4")), len(tiles(500, 270, "a4", landscape=True))
    (True, 6, 4)
"""

from __future__ import annotations

import math
from pathlib import Path

from kipukas_board.maker.parts.template import STYLES, Shape

#: Page sizes in mm, portrait.
PAGES = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN = 10.0
#: How much neighbouring tiles share, so the marks of both pages fall on each.
OVERLAP = 10.0
MM = 72 / 25.4  # PostScript points in a millimetre


def page_size(page: str, landscape: bool = False) -> tuple[float, float]:
    if page not in PAGES:
        raise ValueError(f"unknown page size {page!r}; expected one of {', '.join(PAGES)}")
    w, h = PAGES[page]
    return (h, w) if landscape else (w, h)


def _step(page: str, landscape: bool = False) -> tuple[float, float, float, float]:
    w, h = page_size(page, landscape)
    area_w, area_h = w - 2 * MARGIN, h - 2 * MARGIN - 8.0  # 8 mm at the bottom for the page's caption
    return area_w, area_h, area_w - OVERLAP, area_h - OVERLAP


def landscape(width: float, depth: float, page: str) -> bool:
    """Whether landscape pages take fewer than portrait ones (portrait when it is a tie)."""
    return len(tiles(width, depth, page, landscape=True)) < len(tiles(width, depth, page))


def tiles(width: float, depth: float, page: str, landscape: bool = False) -> list[tuple[int, int, float, float]]:
    """``(row, column, x, y)`` of every tile's top-left corner in map mm, row by row."""
    area_w, area_h, step_x, step_y = _step(page, landscape)
    cols = max(1, math.ceil((width - OVERLAP) / step_x)) if width > area_w else 1
    rows = max(1, math.ceil((depth - OVERLAP) / step_y)) if depth > area_h else 1
    return [(r, c, c * step_x, r * step_y) for r in range(rows) for c in range(cols)]


def write_pdf(shapes: list[Shape], width: float, depth: float, path: str | Path, page: str = "a4",
              title: str = "") -> int:
    """Write the tiled PDF; returns the number of pages (:func:`tiles` in the orientation
    :func:`landscape` picks)."""
    from reportlab.lib.colors import HexColor
    from reportlab.pdfgen.canvas import Canvas

    turn = landscape(width, depth, page)
    pw, ph = page_size(page, turn)
    area_w, area_h, step_x, step_y = _step(page, turn)
    all_tiles = tiles(width, depth, page, turn)
    rows = max(r for r, *_ in all_tiles) + 1
    cols = max(c for _, c, *_ in all_tiles) + 1
    marks = [(c * step_x, r * step_y) for r in range(rows + 1) for c in range(cols + 1)]
    marks += [(c * step_x + OVERLAP, r * step_y + OVERLAP) for r in range(rows) for c in range(cols)]
    canvas = Canvas(str(path), pagesize=(pw * MM, ph * MM))
    canvas.setTitle(title or "drilling template")
    for r, c, x0, y0 in all_tiles:
        # Map mm (x right, y down from the map's top-left) to page points (y up).
        ox, oy = MARGIN - x0, ph - MARGIN + y0

        def pt(x: float, y: float, ox: float = ox, oy: float = oy) -> tuple[float, float]:
            return ((ox + x) * MM, (oy - y) * MM)

        canvas.saveState()
        clip = canvas.beginPath()
        clip.rect(MARGIN * MM, (ph - MARGIN - area_h) * MM, area_w * MM, area_h * MM)
        canvas.clipPath(clip, stroke=0, fill=0)
        for s in shapes:
            _draw(canvas, s, pt, HexColor)
        for mx, my in marks:
            _mark(canvas, *pt(mx, my))
        canvas.restoreState()
        canvas.setLineWidth(0.2 * MM)
        canvas.setDash()
        canvas.rect(MARGIN * MM, (ph - MARGIN - area_h) * MM, area_w * MM, area_h * MM)
        bar_y = (MARGIN + 2.0) * MM
        canvas.setLineWidth(0.4 * MM)
        canvas.line(MARGIN * MM, bar_y, (MARGIN + 50) * MM, bar_y)
        for i in range(6):
            canvas.line((MARGIN + 10 * i) * MM, bar_y, (MARGIN + 10 * i) * MM, bar_y + 1.5 * MM)
        canvas.setFont("Helvetica", 7)
        canvas.drawString((MARGIN + 53) * MM, bar_y + 1.2 * MM,
                          f"{title}: page {r * cols + c + 1} of {len(all_tiles)}, row {r + 1}, column {c + 1}")
        canvas.drawString((MARGIN + 53) * MM, bar_y - 1.8 * MM,
                          "The bar is 50 mm: print at actual size. Tape the pages where their crosses meet.")
        canvas.showPage()
    canvas.save()
    return len(all_tiles)


def _mark(canvas, x: float, y: float) -> None:
    """An alignment cross in a circle, 8 mm across."""
    canvas.setStrokeColorRGB(0, 0, 0)
    canvas.setLineWidth(0.2 * MM)
    canvas.setDash()
    canvas.circle(x, y, 2.5 * MM, stroke=1, fill=0)
    canvas.line(x - 4 * MM, y, x + 4 * MM, y)
    canvas.line(x, y - 4 * MM, x, y + 4 * MM)


def _draw(canvas, s: Shape, pt, HexColor) -> None:  # noqa: N803 - reportlab's class, passed in
    stroke, width, dash, fill = STYLES[s.style]
    canvas.setStrokeColor(HexColor(stroke))
    canvas.setLineWidth(max(width, 0.1) * MM)
    canvas.setDash([d * MM for d in dash]) if dash else canvas.setDash()
    c = s.coords
    if s.kind == "line":
        canvas.line(*pt(c[0], c[1]), *pt(c[2], c[3]))
    elif s.kind == "polyline":
        path = canvas.beginPath()
        path.moveTo(*pt(c[0], c[1]))
        for i in range(2, len(c), 2):
            path.lineTo(*pt(c[i], c[i + 1]))
        canvas.drawPath(path, stroke=1, fill=0)
    elif s.kind == "circle":
        canvas.circle(*pt(c[0], c[1]), c[2] * MM, stroke=1, fill=0)
    elif s.kind == "rect":
        x, y = pt(c[0], c[1] + c[3])
        canvas.rect(x, y, c[2] * MM, c[3] * MM, stroke=1, fill=0)
    elif s.kind == "text":
        canvas.setFillColor(HexColor(fill))
        canvas.setFont("Helvetica", s.size * MM * 0.9)
        canvas.drawCentredString(*pt(c[0], c[1]), s.text)
