"""What the LEDs show in the card duel (pure: duel, layout, time, scene -> pixels).

The duel lights territories of the board's LED layout (the kipuka-8 table has eight):

* the challenged player's three Hearts on territories 1, 2 and 3, the challenger's on 4, 5 and 6 (one
  territory per Heart; with more Hearts agreed, the Hearts beyond the sixth territory are not shown);
* a Heart still up glows in its player's colour; a flipped one is a dim ember;
* territory 7 (the challenged) and 8 (the challenger) light in the player's colour while that player
  is to act, and **pulse**;
* a Heart that has just flipped **flashes** white for :data:`FLASH_S` seconds (the lighting's scene
  keeps when the ``duel_heart`` effect came);
* at the end every Heart territory shows the winner's colour.
"""

from __future__ import annotations

import math
from typing import Any

from kipukas_board.show.colors import OFF, RGB, WHITE, blend, hex_to_rgb, scale

FLASH_S = 1.5
FLASH_HZ = 4.0
PULSE_S = 1.6
FLIPPED: RGB = (40, 8, 0)
HEART_LEVEL = 0.8


def heart_territory(index: int, heart: int) -> int:
    """The territory lighting Heart ``heart`` (0-based) of the player at ``index`` (0: challenged)."""
    return 1 + 3 * index + heart


def turn_territory(index: int) -> int:
    return 7 + index


def _rgb(color: str) -> RGB:
    try:
        return hex_to_rgb(color)
    except (ValueError, TypeError):
        return WHITE


def render(duel: Any, layout: Any, t: float = 0.0, scene: Any = None) -> list[RGB]:
    n = layout.count
    frame: list[RGB] = [OFF] * n
    if duel is None:
        return frame

    def put(territory: int, c: RGB) -> None:
        for i in layout.territories.get(territory, []):
            if 0 <= i < n:
                frame[i] = c

    flash = getattr(scene, "flash", None) or {}
    flash_at = getattr(scene, "flash_at", None)
    flashing = (flash.get("type") == "duel_heart" and flash_at is not None and 0 <= t - flash_at < FLASH_S)
    for index, side in enumerate(duel.sides):
        color = _rgb(side.color)
        for heart in range(min(side.hearts_total, 3)):
            up = heart < side.hearts
            c = scale(color, HEART_LEVEL) if up else FLIPPED
            if duel.phase == "over":
                winner = next((s for s in duel.sides if s.seat == duel.winner), None)
                c = _rgb(winner.color) if winner is not None else WHITE
            elif flashing and flash.get("seat") == side.seat and heart == side.hearts:
                c = WHITE if (t - flash_at) * FLASH_HZ % 1 < 0.5 else FLIPPED
            put(heart_territory(index, heart), c)
        if duel.phase != "over" and duel.to_act == side.seat:
            put(turn_territory(index), blend(scale(color, 0.2), color, 0.5 - 0.5 * math.cos(2 * math.pi * t / PULSE_S)))
    return frame


def animating(duel: Any, scene: Any, t: float) -> bool:
    if duel is None:
        return False
    flash_at = getattr(scene, "flash_at", None)
    return duel.phase != "over" or (flash_at is not None and 0 <= t - flash_at < FLASH_S)
