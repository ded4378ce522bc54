"""Colour helpers shared by the renderer and the CLI: parsing, blending and scaling ``(r, g, b)``.

Example::

    >>> from kipukas_board.show.colors import blend, hex_to_rgb
    >>> blend(hex_to_rgb("#ff0000"), (0, 0, 255), 0.5)
    (128, 0, 128)
"""

from __future__ import annotations

from collections.abc import Sequence

RGB = tuple[int, int, int]

OFF: RGB = (0, 0, 0)
WHITE: RGB = (255, 255, 255)


def hex_to_rgb(color: str) -> RGB:
    """``"#ff8800"`` → ``(255, 136, 0)``; ValueError naming the colour otherwise."""
    c = str(color).lstrip("#")
    if len(c) != 6:
        raise ValueError(f"colour {color!r} is not #rrggbb")
    try:
        return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16))
    except ValueError:
        raise ValueError(f"colour {color!r} is not #rrggbb") from None


def rgb_to_hex(rgb: Sequence[int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def parse_rgb(text: str) -> RGB:
    """``"255,0,16"`` → ``(255, 0, 16)`` (the CLI's pixel syntax); ValueError saying what was expected."""
    parts = str(text).split(",")
    if len(parts) != 3:
        raise ValueError(f"pixel {text!r} is not R,G,B (three whole numbers 0-255 separated by commas)")
    try:
        vals = tuple(int(p.strip()) for p in parts)
    except ValueError:
        raise ValueError(f"pixel {text!r} is not R,G,B (three whole numbers 0-255 separated by commas)") from None
    if any(not 0 <= v <= 255 for v in vals):
        raise ValueError(f"pixel {text!r} has a channel outside 0-255")
    return vals  # type: ignore[return-value]


def blend(a: Sequence[int], b: Sequence[int], f: float) -> RGB:
    """``a`` moved a fraction ``f`` (0-1) of the way to ``b``, rounded."""
    f = 0.0 if f < 0 else 1.0 if f > 1 else f
    return (round(a[0] + (b[0] - a[0]) * f), round(a[1] + (b[1] - a[1]) * f),
            round(a[2] + (b[2] - a[2]) * f))


def scale(c: Sequence[int], f: float) -> RGB:
    """``c`` at ``f`` (0-1) of its brightness, rounded."""
    return blend(OFF, c, f)
