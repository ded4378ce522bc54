"""The simulated LED strip: keeps the last frame for the page and the tests.

Example::

    >>> from kipukas_board.hardware.leds.simulated import SimulatedLedStrip
    >>> strip = SimulatedLedStrip(count=3)
    >>> strip.show([(255, 0, 0), (0, 0, 0), (0, 0, 255)])
    >>> strip.pixels()
    [(255, 0, 0), (0, 0, 0), (0, 0, 255)]
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from kipukas_board.hardware.leds.port import RGB, LedStrip


class SimulatedLedStrip(LedStrip):
    """Keeps the last frame so the page (``GET /api/leds``) and tests can see it."""

    def __init__(self, count: int = 0, **_options: Any) -> None:
        self.count = count
        self._lock = threading.Lock()
        self._pixels: list[RGB] = [(0, 0, 0)] * count
        self.frames_shown = 0

    def show(self, pixels: Sequence[RGB]) -> None:
        self._check(pixels)
        with self._lock:
            self._pixels = [tuple(p) for p in pixels]  # type: ignore[misc]
            self.frames_shown += 1

    def resize(self, count: int) -> None:
        with self._lock:
            self.count = count
            self._pixels = (self._pixels + [(0, 0, 0)] * count)[:count]

    def pixels(self) -> list[RGB]:
        with self._lock:
            return list(self._pixels)

    def close(self) -> None:
        with self._lock:
            self._pixels = [(0, 0, 0)] * self.count

    def health(self) -> dict[str, Any]:
        return {"adapter": "sim", "ok": True, "count": self.count, "frames": self.frames_shown}
