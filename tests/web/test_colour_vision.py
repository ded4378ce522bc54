"""The default player colours of every game's page stay apart for players with the three common colour
vision deficiencies: each palette (with the board page's sand for a holder it does not know and its
empty territory) is simulated as protanopes, deuteranopes and tritanopes see it (Machado, Oliveira and
Fernandes 2009, full severity, on linear RGB), and every two colours must stay at least ``MIN_DELTA_E``
apart (CIE76 in Lab). Colour is never the only cue on the map either (initials, marks), but the colours
should not collapse."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "kipukas_board" / "modes"
MIN_DELTA_E = 20.0
SIMULATIONS = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
    "typical vision": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
}


def _linear(c: int) -> float:
    v = c / 255
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def _lab(rgb: list[float]) -> tuple[float, float, float]:
    r, g, b = rgb
    x, y, z = (0.4124 * r + 0.3576 * g + 0.1805 * b, 0.2126 * r + 0.7152 * g + 0.0722 * b,
               0.0193 * r + 0.1192 * g + 0.9505 * b)

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x / 0.95047), f(y), f(z / 1.08883)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def seen(colour: str, how: str) -> tuple[float, float, float]:
    """``#rrggbb`` in Lab as seen with ``how`` (a key of SIMULATIONS)."""
    m = SIMULATIONS[how]
    rgb = [_linear(int(colour[i:i + 2], 16)) for i in (1, 3, 5)]
    return _lab([max(0.0, min(1.0, sum(m[r][k] * rgb[k] for k in range(3)))) for r in range(3)])


def palette(script: str) -> list[str]:
    text = (ROOT / script).read_text(encoding="utf-8")
    found = re.search(r"const COLORS = \[([^\]]*)\]", text)
    assert found, f"{script} has no COLORS palette"
    return re.findall(r'"(#[0-9a-fA-F]{6})"', found.group(1))


def test_the_simulation_tells_apart_what_it_should_and_not_what_it_should_not() -> None:
    red, green = "#e4572e", "#44aa11"  # a red and a green a deuteranope cannot tell apart
    assert math.dist(seen(red, "typical vision"), seen(green, "typical vision")) > 60
    assert math.dist(seen(red, "deuteranopia"), seen(green, "deuteranopia")) < MIN_DELTA_E


@pytest.mark.parametrize("script, extra", [
    ("kipukas/static/board.js", ["#c8aa78", "#24252b"]),  # a holder the board does not know; empty
    ("duel/static/duel.js", []),
    ("creature_combat/static/creature_combat.js", []),
])
def test_default_player_colours_stay_apart_under_colour_vision_deficiencies(script: str, extra: list[str]) -> None:
    colours = palette(script) + extra
    close = []
    for how in SIMULATIONS:
        for a, b in itertools.combinations(colours, 2):
            d = math.dist(seen(a, how), seen(b, how))
            if d < MIN_DELTA_E:
                close.append(f"{a} and {b} under {how}: {d:.1f}")
    assert not close, f"{script}: colours too close (at least {MIN_DELTA_E} apart wanted): {close}"
