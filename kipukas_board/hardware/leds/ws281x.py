"""WS2812 pixels through rpi-ws281x (PWM/PCM + DMA): Pi 4 and older only.

rpi-ws281x does not run on a Pi 5 (its RP1 chip has no compatible PWM/DMA path); use the ``spi``
adapter there (:mod:`kipukas_board.hardware.leds.spi`). This one needs root (``/dev/mem``) for PWM on
GPIO18, or the ``spi`` group for its own SPI mode on GPIO10.

Settings::

    [leds]
    adapter = "ws281x"
    pin = 18            # GPIO18 (PWM0); 10 uses the library's SPI mode
    dma = 10
    channel = 0
    order = "GRB"       # usually set by the calibration's [leds] order

Brightness and gamma are the renderer's job (so every adapter shows the same thing): the library's
own brightness stays at 255 and its gamma table is left as identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kipukas_board.hardware.leds.port import RGB, LedStrip
from kipukas_board.hardware.leds.spi import check_order


class Ws281xLedStrip(LedStrip):
    """A strip on the rpi-ws281x library's ``PixelStrip`` (imported lazily: ``pip install rpi_ws281x``)."""

    def __init__(self, count: int = 0, pin: int = 18, dma: int = 10, channel: int = 0,
                 freq_hz: int = 800_000, invert: bool = False, order: str = "GRB", **_options: Any) -> None:
        try:
            import rpi_ws281x  # Pi 4 and older only
        except ImportError as exc:
            raise ValueError(f"the ws281x LED adapter needs the rpi_ws281x library, which this machine lacks "
                             f"({exc}); pip install rpi_ws281x on a Pi 4 or older, use adapter = \"spi\" "
                             f"on a Pi 5, or run with --sim") from exc

        self.count = int(count)
        self.order = check_order(order)
        strip_type = getattr(rpi_ws281x.ws, f"WS2811_STRIP_{self.order}")
        self._strip = rpi_ws281x.PixelStrip(self.count, int(pin), int(freq_hz), int(dma), bool(invert),
                                            255, int(channel), strip_type)
        try:
            self._strip.begin()
        except RuntimeError as exc:
            raise ValueError(f"rpi-ws281x could not start on GPIO{pin} ({exc}); on a Pi 5 use "
                             f'adapter = "spi"; on older Pis run as root for PWM') from exc
        self.frames_shown = 0
        self.errors = 0

    def show(self, pixels: Sequence[RGB]) -> None:
        self._check(pixels)
        s = self._strip
        for i, (r, g, b) in enumerate(pixels):
            s.setPixelColorRGB(i, int(r), int(g), int(b))
        try:
            s.show()
        except RuntimeError:
            self.errors += 1
            raise
        self.frames_shown += 1

    def close(self) -> None:
        self.show([(0, 0, 0)] * self.count)

    def health(self) -> dict[str, Any]:
        return {"adapter": "ws281x", "ok": self.errors == 0, "count": self.count,
                "frames": self.frames_shown, "errors": self.errors}
