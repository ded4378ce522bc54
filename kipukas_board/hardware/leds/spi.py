"""WS2812 pixels driven from the SPI bus's MOSI pin (GPIO10): works on every Pi, the Pi 5 included.

rpi-ws281x drives the strip with the PWM/PCM peripheral and DMA, which the Pi 5's RP1 chip does not
have. SPI works everywhere and needs no root (the user only has to be in the ``spi`` group, with
``dtparam=spi=on`` in ``config.txt``).

**Encoding.** A WS2812 bit lasts 1.25 us (800 kHz). At an SPI clock of 2.4 MHz one SPI bit lasts
417 ns, so each WS2812 bit becomes three SPI bits: ``0`` → ``100`` (high 417 ns, low 833 ns) and
``1`` → ``110`` (high 833 ns, low 417 ns). The datasheet asks T0H 0.40 us ± 150 ns, T1H 0.80 us
± 150 ns and a bit period of 1.25 us ± 600 ns, which this meets with some margin for an SPI clock
that is a few per cent off (the Pi divides its core clock, so 2.4 MHz is never exact). A pixel is
24 WS2812 bits in the strip's colour order (GRB for WS2812B), most significant bit first: 9 SPI
bytes. A frame ends with a reset gap of :data:`RESET_US` (300 us) of zero bytes: older WS2812 parts
latch after 50 us low, newer WS2812B-V5 parts want 280 us.

**Chunking.** The kernel's spidev driver moves at most ``bufsiz`` bytes (4096 by default, the
``spidev.bufsiz`` module parameter) per transfer, and the clock pauses between transfers. A pause
is harmless only while MOSI is low, so frames are sent in chunks that are a multiple of 3 bytes:
every 3-byte group holds 8 whole WS2812 bits and ends on a low SPI bit, so a pause only stretches a
low time. How long the pause between two ``writebytes2`` calls lasts was never measured on a Pi; if
it passes the strip's latch threshold (about 50 us on older parts) the strip shows a torn frame. One
transfer per frame avoids the question: up to 445 pixels fit in the default 4096 bytes; a longer
strip needs ``spidev.bufsiz=65536`` on the kernel command line (``/boot/firmware/cmdline.txt``), and
the adapter warns at start and reports ``transfers_per_frame`` in its health until it has it.

Example::

    >>> from kipukas_board.hardware.leds.spi import encode_frame
    >>> encode_frame([(255, 0, 0)], order="GRB", reset_bytes=0).hex()   # G=0, R=255, B=0
    '924924db6db6924924'
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterable, Sequence
from typing import Any

from kipukas_board.hardware.leds.port import RGB, LedStrip

log = logging.getLogger(__name__)

#: SPI clock: 3 SPI bits per WS2812 bit at 800 kHz.
SPI_HZ = 2_400_000
#: Low time that ends a frame; >= 280 us for WS2812B-V5, with margin.
RESET_US = 300
#: SPI bits per WS2812 bit.
BITS_PER_BIT = 3
COLOR_ORDERS = ("RGB", "RBG", "GRB", "GBR", "BRG", "BGR")


def _byte_table() -> list[bytes]:
    table = []
    for value in range(256):
        bits = 0
        for i in range(7, -1, -1):
            bits = (bits << 3) | (0b110 if value >> i & 1 else 0b100)
        table.append(bits.to_bytes(3, "big"))
    return table


#: Each colour byte (0-255) → its 3 SPI bytes.
BYTE_TABLE: list[bytes] = _byte_table()


def check_order(order: str) -> str:
    """``order`` upper-cased, or ValueError naming the accepted orders."""
    o = str(order).upper()
    if o not in COLOR_ORDERS:
        raise ValueError(f"colour order {order!r} is not one of {', '.join(COLOR_ORDERS)}")
    return o


def reset_bytes_for(spi_hz: int, reset_us: float = RESET_US) -> int:
    """Zero bytes needed for a low gap of at least ``reset_us`` at ``spi_hz``."""
    return math.ceil(reset_us * spi_hz / 8e6)


def encode_frame(pixels: Iterable[Sequence[int]], order: str = "GRB", spi_hz: int = SPI_HZ,
                 reset_bytes: int | None = None) -> bytes:
    """The SPI bytes for ``pixels`` (``(r, g, b)`` each 0-255) sent as they are, then the reset gap.

    No gamma, brightness or power cap here: that is the renderer's output stage.
    """
    o = check_order(order)
    idx = ["RGB".index(c) for c in o]
    out = bytearray()
    table = BYTE_TABLE
    for n, px in enumerate(pixels):
        if len(px) != 3:
            raise ValueError(f"pixel {n} is {tuple(px)!r}; expected (r, g, b)")
        for i in idx:
            v = px[i]
            if not isinstance(v, int) or not 0 <= v <= 255:
                raise ValueError(f"pixel {n} has channel value {v!r}; expected a whole number 0-255")
            out += table[v]
    out += bytes(reset_bytes_for(spi_hz) if reset_bytes is None else reset_bytes)
    return bytes(out)


def chunks(data: bytes, limit: int) -> list[bytes]:
    """``data`` cut into transfers of at most ``limit`` bytes, each a multiple of 3 bytes long."""
    size = max(3, limit - limit % 3)
    return [data[i:i + size] for i in range(0, len(data), size)]


def spidev_bufsiz(default: int = 4096) -> int:
    """The spidev driver's per-transfer limit (``/sys/module/spidev/parameters/bufsiz``)."""
    try:
        with open("/sys/module/spidev/parameters/bufsiz") as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return default


class SpiLedStrip(LedStrip):
    """A WS2812 strip on ``/dev/spidev<bus>.<device>`` (bus 0 → MOSI on GPIO10, pin 19).

    Settings::

        [leds]
        adapter = "spi"
        bus = 0
        device = 0
        order = "GRB"       # usually set by the calibration's [leds] order

    ``spidev`` is imported only here (``pip install spidev`` on the Pi).
    """

    def __init__(self, count: int = 0, bus: int = 0, device: int = 0, order: str = "GRB",
                 spi_hz: int = SPI_HZ, bufsiz: int | None = None, spi: Any = None, **_options: Any) -> None:
        self.count = int(count)
        self.order = check_order(order)
        self.spi_hz = int(spi_hz)
        self.path = f"/dev/spidev{bus}.{device}"
        if spi is None:
            spi = self._open(int(bus), int(device))
        self._spi = spi  # anything with writebytes2() and close(): an opened spidev.SpiDev, or a test double
        self._spi.max_speed_hz = self.spi_hz
        self._spi.mode = 0
        self._limit = int(bufsiz) if bufsiz else spidev_bufsiz()
        self.frames_shown = 0
        self.errors = 0
        self._measure()

    def resize(self, count: int) -> None:
        """SPI sends whatever length it is given: only the bookkeeping changes."""
        self.count = int(count)
        self._measure()

    def _measure(self) -> None:
        """How many spidev transfers a frame takes now (more than one can tear the frame: warned)."""
        frame_bytes = len(encode_frame([(0, 0, 0)] * self.count, self.order, self.spi_hz))
        self.transfers_per_frame = len(chunks(bytes(frame_bytes), self._limit))
        if self.transfers_per_frame > 1:
            log.warning("a frame of %d pixels is %d SPI bytes, more than spidev's %d-byte transfer: it goes in %d "
                        "transfers, and a pause between them can tear the frame; add spidev.bufsiz=65536 to "
                        "/boot/firmware/cmdline.txt and reboot", self.count, frame_bytes, self._limit,
                        self.transfers_per_frame)

    def _open(self, bus: int, device: int) -> Any:
        try:
            import spidev  # Pi only
        except ImportError as exc:
            raise ValueError(f"the spi LED adapter needs the spidev library, which this machine lacks ({exc}); "
                             f"pip install spidev (or apt install python3-spidev), or run with --sim") from exc

        if not os.path.exists(self.path):
            raise ValueError(f"{self.path} does not exist: enable SPI (dtparam=spi=on in config.txt) "
                             f"or pick another bus/device in [leds]")
        spi = spidev.SpiDev()
        try:
            spi.open(bus, device)
        except PermissionError as exc:
            raise ValueError(f"cannot open {self.path}: {exc.strerror}; add the user to the 'spi' group") from exc
        return spi

    def show(self, pixels: Sequence[RGB]) -> None:
        self._check(pixels)
        data = encode_frame(pixels, self.order, self.spi_hz)
        try:
            for part in chunks(data, self._limit):
                self._spi.writebytes2(part)
        except OSError:
            self.errors += 1
            raise
        self.frames_shown += 1

    def close(self) -> None:
        try:
            self.show([(0, 0, 0)] * self.count)
        except Exception:
            log.exception("could not blank the strip")
        self._spi.close()

    def health(self) -> dict[str, Any]:
        return {"adapter": "spi", "ok": self.errors == 0, "count": self.count, "device": self.path,
                "spi_hz": self.spi_hz, "frames": self.frames_shown, "errors": self.errors,
                "transfers_per_frame": self.transfers_per_frame}
