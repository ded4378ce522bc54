"""What the LEDs show in Creature Combat Territory (pure: state, layout, time -> pixels).

* a land slot holding a land glows in its **biome's colour** (:data:`BIOME_COLORS`); an empty one is dark;
* the land being fought **pulses** between its biome colour and white;
* a land just claimed shows its **winner's colour** until the next round (the card goes to their pile);
* a seat light (where the table layout gives one) shows its player's colour, and **blinks** while the
  board waits for that player to say done;
* at the end every slot shows the winner's colour (white for a tie).

Slot ``k`` is lit by the pixels the table layout gives it (``pixels``), or else by the LED segment of
territory ``segment`` (default ``k``) in the board's LED calibration.
"""

from __future__ import annotations

import math
from typing import Any

from kipukas_board.show.colors import OFF, RGB, WHITE, blend, hex_to_rgb, scale

BIOME_COLORS: dict[str, RGB] = {
    "forest": (20, 140, 40), "mountain": (120, 110, 140), "plain": (200, 180, 60), "lake": (40, 120, 220),
    "ocean": (10, 40, 200), "swamp": (70, 100, 40), "desert": (230, 150, 50), "tundra": (200, 230, 255),
    "jungle": (0, 200, 90), "volcano": (230, 40, 10),
}
PULSE_S = 1.2
BLINK_S = 1.0
LAND_LEVEL = 0.6


def slot_pixels(table: dict[str, Any], layout: Any, number: int) -> list[int]:
    """The pixels that light land slot ``number`` (1-based)."""
    spec = next((s for s in table.get("slots", []) if s.get("number") == number), {})
    if spec.get("pixels"):
        return list(spec["pixels"])
    return list(layout.territories.get(spec.get("segment", number), []))


def _rgb(color: str, default: RGB = WHITE) -> RGB:
    try:
        return hex_to_rgb(color)
    except (ValueError, TypeError):
        return default


def render(cc: Any, layout: Any, t: float = 0.0) -> list[RGB]:
    n = layout.count
    frame: list[RGB] = [OFF] * n
    if cc is None:
        return frame
    colors = {s.seat: _rgb(s.color) for s in cc.seats}

    def put(pixels: list[int], c: RGB) -> None:
        for i in pixels:
            if 0 <= i < n:
                frame[i] = c

    last = cc.last_result
    for k in range(len(cc.slots)):
        pixels = slot_pixels(cc.table, layout, k + 1)
        land = cc.land_at(k)
        if cc.phase == "over":
            put(pixels, colors.get(cc.winner, WHITE))
        elif land is not None:
            c = scale(BIOME_COLORS.get(land.biome, WHITE), LAND_LEVEL)
            if cc.phase == "combat" and cc.combat_slot == k:
                c = blend(BIOME_COLORS.get(land.biome, WHITE), WHITE, 0.5 - 0.5 * math.cos(2 * math.pi * t / PULSE_S))
            put(pixels, c)
        elif last and last.get("winner") is not None and last.get("slot") == k + 1 and last.get("round") == cc.round:
            put(pixels, colors.get(last["winner"], WHITE))
    waiting = cc.phase in ("deploy", "round_end")
    blink_on = t % BLINK_S < BLINK_S / 2
    for spec in cc.table.get("seats", []):
        seat = spec.get("seat")
        if seat not in colors or not spec.get("pixels"):
            continue
        s = cc.seat(seat)
        c = colors[seat] if s is not None and not s.conceded else OFF
        if waiting and seat in cc.active and seat not in cc.done and not blink_on:
            c = scale(c, 0.15)
        put(list(spec["pixels"]), c)
    return frame


def animating(cc: Any) -> bool:
    if cc is None:
        return False
    return cc.phase == "combat" or (cc.phase in ("deploy", "round_end")
                                    and any(s.get("pixels") for s in cc.table.get("seats", [])))
