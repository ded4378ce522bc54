"""Pixel numbers made visible: one frame in which every pixel's colour says its number.

Counting pixels along a strip under a map is slow and error-prone, so ``kipukas-board leds identify``
lights them all at once in a code a maker can read with the legend beside them:

- every 60th pixel (0, 60, 120, ...: the start of each metre of 60/m strip) is **bright white**;
- every other 10th pixel (10, 20, 30, 40, 50, 70, ...) is **dim white**;
- the nine pixels after a white one take the colour of their ten within the metre: red (1-9),
  yellow (11-19), green (21-29), cyan (31-39), blue (41-49), magenta (51-59).

So the green pixel four after the dim white that follows the second bright white is 60 + 20 + 4 =
pixel 84 (:func:`describe` says it in words).

Example::

    >>> identify_color(0), identify_color(84)
    ((255, 255, 255), (0, 255, 0))
    >>> describe(84)
    'pixel 84: green, the 4th after the dim white 80 (metre 2 starts at the bright white 60)'
"""

from __future__ import annotations

RGB = tuple[int, int, int]

#: A metre of the BOM's strip: the bright markers are this far apart.
METRE = 60
BRIGHT: RGB = (255, 255, 255)
DIM: RGB = (90, 90, 90)
#: The colour of each ten within a metre, and its name.
TENS: tuple[tuple[str, RGB], ...] = (("red", (255, 0, 0)), ("yellow", (255, 160, 0)), ("green", (0, 255, 0)),
                                     ("cyan", (0, 200, 255)), ("blue", (0, 0, 255)), ("magenta", (255, 0, 200)))


def identify_color(i: int) -> RGB:
    """The colour pixel ``i`` shows in the identify frame."""
    if i % METRE == 0:
        return BRIGHT
    if i % 10 == 0:
        return DIM
    return TENS[(i % METRE) // 10][1]


def describe(i: int) -> str:
    """How to find pixel ``i`` in the identify frame, in words."""
    metre_start = i - i % METRE
    where = f"metre {i // METRE + 1} starts at the bright white {metre_start}"
    if i % METRE == 0:
        return f"pixel {i}: bright white ({where})"
    if i % 10 == 0:
        return f"pixel {i}: dim white ({where})"
    ten = i - i % 10
    marker = "bright white" if ten % METRE == 0 else "dim white"
    n = i % 10
    nth = {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")
    return f"pixel {i}: {TENS[(i % METRE) // 10][0]}, the {nth} after the {marker} {ten} ({where})"


def legend() -> str:
    """The legend printed beside the lit strip."""
    tens = ", ".join(f"{name} {10 * k + 1}-{10 * k + 9}" for k, (name, _rgb) in enumerate(TENS))
    return (f"bright white: every {METRE}th pixel (0, {METRE}, {2 * METRE}, ...); dim white: the other tens; "
            f"between them, by the ten within each {METRE}: {tens}")


def frame(count: int, span: list[int] | None = None) -> dict[int, RGB]:
    """The identify frame for a strip of ``count`` pixels (only ``span`` lit when given)."""
    return {i: identify_color(i) for i in (span if span is not None else range(count))}
