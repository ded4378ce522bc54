"""The LED-strip port: WS2812 pixels under the terrain.

A game mode's renderer (such as :mod:`kipukas_board.modes.kipukas.lights`) decides colours; an
adapter only puts a finished frame of ``(r, g, b)`` tuples on the wire. Gamma, brightness and the
power cap belong to the renderer's output stage (:mod:`kipukas_board.show.power`), so every
adapter shows the same thing; only the wire's colour order (``order="GRB"``, from the calibration) is the adapter's.

Example::

    >>> from kipukas_board.hardware.leds.simulated import SimulatedLedStrip
    >>> strip = SimulatedLedStrip(count=3)
    >>> strip.show([(255, 0, 0), (0, 0, 0), (0, 0, 255)])
    >>> strip.pixels()
    [(255, 0, 0), (0, 0, 0), (0, 0, 255)]
"""

from __future__ import annotations

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

    def resize(self, count: int) -> None:
        """Drive ``count`` pixels from the next frame on (the owner counted a longer strip in the LED
        walk). Adapters whose library fixes the length when the strip is opened refuse."""
        raise ValueError(f"the {type(self).__name__} LED adapter fixes the strip's length when the board starts: "
                         f"save the count ([leds] count in the calibration file) and restart the board")

    def close(self) -> None:
        """Turn the pixels off and release the hardware."""

    def health(self) -> dict[str, Any]:
        return {"adapter": type(self).__name__, "ok": True, "count": self.count}

    def _check(self, pixels: Sequence[RGB]) -> None:
        if len(pixels) != self.count:
            raise ValueError(f"frame has {len(pixels)} pixels, the strip has {self.count}")
