"""Sticker sheets: a QR code per card of a game mode's card file, with the card's name, for sleeves.

Each sticker is :data:`STICKER_MM` wide and tall with a QR code of :data:`QR_MM` (error correction M,
a quiet zone of 4 modules) above the card's name and a second line (species or biome), small enough to
sit on a card's back under a standard 63 x 88 mm sleeve. The payload is the mode's prefix and the
card's id (``cct:fox-1``): data the board reads, never a link. QR matrices come from segno; the PDF
(A4 pages, cut marks around each sticker) is drawn with reportlab; the SVG is one A4-wide sheet as
long as the cards need.

Example (not run as a doctest: it needs a mode's imported cards; ``tests/modes/duel/test_duel_cards.py``
draws sheets and reads their codes back)::

    >>> write_sheet(mode, cards.records(), Path("sheet.svg"))   # doctest: +SKIP
    1
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from kipukas_board.install_hints import extra_hint
from kipukas_board.textfile import atomic_path

PAGE_MM = (210.0, 297.0)
MARGIN_MM = 10.0
STICKER_MM = (45.0, 54.0)
QR_MM = 36.0
MAX_STICKERS = 2000


class StickerError(ValueError):
    """The sheet cannot be written (an unknown format, a missing library, the disk)."""


def _matrix(payload: str) -> list[list[bool]]:
    try:
        import segno
    except ImportError:
        raise StickerError(f"sticker sheets need segno: {extra_hint('stickers')}") from None
    qr = segno.make(payload, error="m", micro=False)
    return [[bool(v) for v in row] for row in qr.matrix]


def _label(card: dict[str, Any]) -> tuple[str, str]:
    name = str(card.get("name") or card["id"])[:28]
    second = card.get("species") or card.get("biome") or card.get("type") or ""
    return name, f"{second} · {card['id']}"[:36] if second else str(card["id"])[:36]


def _layout(n: int) -> tuple[int, int]:
    cols = int((PAGE_MM[0] - 2 * MARGIN_MM) // STICKER_MM[0])
    rows = int((PAGE_MM[1] - 2 * MARGIN_MM) // STICKER_MM[1])
    return cols, rows


def write_sheet(mode: Any, cards: list[dict[str, Any]], out: Path) -> int:
    """Write the sheet for ``cards`` to ``out`` (``.pdf`` or ``.svg``, atomically); returns the pages."""
    if not cards:
        raise StickerError("no cards to print")
    if len(cards) > MAX_STICKERS:
        raise StickerError(f"{len(cards)} cards: at most {MAX_STICKERS} stickers in one sheet")
    suffix = out.suffix.lower()
    if suffix not in (".pdf", ".svg"):
        raise StickerError(f"--out must end in .pdf or .svg, got {out.name!r}")
    items = [(mode.payload_prefix + c["id"], *_label(c), _matrix(mode.payload_prefix + c["id"])) for c in cards]
    try:
        with atomic_path(out, suffix=suffix) as tmp:
            pages = _pdf(items, str(tmp)) if suffix == ".pdf" else _svg(items, str(tmp))
    except OSError as exc:
        raise StickerError(f"cannot write {out}: {exc}") from exc
    return pages


def _cells(n: int) -> list[tuple[int, float, float]]:
    """(page, x, y) in mm from the page's top-left corner, for each of ``n`` stickers."""
    cols, rows = _layout(n)
    out = []
    for i in range(n):
        page, k = divmod(i, cols * rows)
        r, c = divmod(k, cols)
        out.append((page, MARGIN_MM + c * STICKER_MM[0], MARGIN_MM + r * STICKER_MM[1]))
    return out


def _svg(items: list[tuple[str, str, str, list[list[bool]]]], path: str) -> int:
    cols, rows = _layout(len(items))
    n_rows = -(-len(items) // cols)
    height = 2 * MARGIN_MM + n_rows * STICKER_MM[1]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{PAGE_MM[0]}mm" height="{height}mm" '
             f'viewBox="0 0 {PAGE_MM[0]} {height}">', f'<rect width="{PAGE_MM[0]}" height="{height}" fill="#fff"/>']
    for i, (payload, name, second, matrix) in enumerate(items):
        r, c = divmod(i, cols)
        x, y = MARGIN_MM + c * STICKER_MM[0], MARGIN_MM + r * STICKER_MM[1]
        parts.append(f'<g data-payload="{escape(payload, {chr(34): "&quot;"})}">')
        parts.append(f'<rect x="{x + 0.5}" y="{y + 0.5}" width="{STICKER_MM[0] - 1}" height="{STICKER_MM[1] - 1}" '
                     f'rx="2" fill="none" stroke="#bbb" stroke-width="0.2"/>')
        size = len(matrix) + 8
        m = QR_MM / size
        qx, qy = x + (STICKER_MM[0] - QR_MM) / 2, y + 2
        path_d = []
        for ry, row in enumerate(matrix):
            for rx, dark in enumerate(row):
                if dark:
                    path_d.append(f"M{qx + (rx + 4) * m:.3f} {qy + (ry + 4) * m:.3f}h{m:.3f}v{m:.3f}h{-m:.3f}z")
        parts.append(f'<path fill="#000" d="{"".join(path_d)}"/>')
        parts.append(f'<text x="{x + STICKER_MM[0] / 2}" y="{y + QR_MM + 7}" font-family="sans-serif" font-size="4" '
                     f'text-anchor="middle" font-weight="bold">{escape(name)}</text>')
        parts.append(f'<text x="{x + STICKER_MM[0] / 2}" y="{y + QR_MM + 11.5}" font-family="sans-serif" '
                     f'font-size="3" text-anchor="middle">{escape(second)}</text></g>')
    parts.append("</svg>\n")
    Path(path).write_text("\n".join(parts), encoding="utf-8")
    return 1


def _pdf(items: list[tuple[str, str, str, list[list[bool]]]], path: str) -> int:
    try:
        from reportlab.lib.units import mm
        from reportlab.pdfgen import canvas
    except ImportError:
        raise StickerError(f"PDF sticker sheets need reportlab: {extra_hint('stickers')}; "
                           "or write an .svg") from None
    pdf = canvas.Canvas(path, pagesize=(PAGE_MM[0] * mm, PAGE_MM[1] * mm), invariant=1)
    pdf.setTitle("Card stickers")
    page_h = PAGE_MM[1]
    current = 0
    for (page, x, y), (_payload, name, second, matrix) in zip(_cells(len(items)), items, strict=True):
        if page != current:
            pdf.showPage()
            current = page
        pdf.setStrokeGray(0.7)
        pdf.setLineWidth(0.2)
        pdf.roundRect((x + 0.5) * mm, (page_h - y - STICKER_MM[1] + 0.5) * mm, (STICKER_MM[0] - 1) * mm,
                      (STICKER_MM[1] - 1) * mm, 2 * mm, stroke=1, fill=0)
        size = len(matrix) + 8
        m = QR_MM / size
        qx, qy = x + (STICKER_MM[0] - QR_MM) / 2, y + 2
        pdf.setFillGray(0)
        for ry, row in enumerate(matrix):
            for rx, dark in enumerate(row):
                if dark:
                    pdf.rect((qx + (rx + 4) * m) * mm, (page_h - qy - (ry + 5) * m) * mm, m * mm, m * mm,
                             stroke=0, fill=1)
        cx = (x + STICKER_MM[0] / 2) * mm
        pdf.setFont("Helvetica-Bold", 11)
        pdf.drawCentredString(cx, (page_h - y - QR_MM - 7) * mm, name)
        pdf.setFont("Helvetica", 8)
        pdf.drawCentredString(cx, (page_h - y - QR_MM - 11.5) * mm, second)
    pdf.showPage()
    pdf.save()
    return current + 1
