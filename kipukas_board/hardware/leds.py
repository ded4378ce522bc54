"""The LED-strip port: WS2812 pixels under the terrain.

The renderer (:mod:`kipukas_board.show.lighting`) decides colours; an adapter only puts a finished
frame of ``(r, g, b)`` tuples on the wire. Gamma, brightness and the power cap belong to the
renderer's output stage (:mod:`kipukas_board.show.power`), so every adapter shows the same thing;
only the wire's colour order (``order="GRB"``, from the calibration) is the adapter's.

Example::

    >>> from kipukas_board.hardware.leds import SimulatedLedStrip
    >>> strip = SimulatedLedStrip(count=3)
    >>> strip.show([(255, 0, 0), (0, 0, 0), (0, 0, 255)])
    >>> strip.pixels()
    [(255, 0, 0), (0, 0, 0), (0, 0, 255)]
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

RGB = tuple[int, int, int]


class LedStrip(ABC):
    """Port for a strip of ``count`` pixels."""

    count: int

    @abstractmethod
    def show(self, pixels: Sequence[RGB]) -> None:
        """Send one whole frame (exactly ``count`` pixels, each channel 0-255)."""

    def close(self) -> None:
        """Turn the pixels off and release the hardware."""

    def health(self) -> dict[str, Any]:
        return {"adapter": type(self).__name__, "ok": True, "count": self.count}

    def _check(self, pixels: Sequence[RGB]) -> None:
        if len(pixels) != self.count:
            raise ValueError(f"frame has {len(pixels)} pixels, the strip has {self.count}")


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

    def pixels(self) -> list[RGB]:
        with self._lock:
            return list(self._pixels)

    def close(self) -> None:
        with self._lock:
            self._pixels = [(0, 0, 0)] * self.count

    def health(self) -> dict[str, Any]:
        return {"adapter": "sim", "ok": True, "count": self.count, "frames": self.frames_shown}
