"""The SPI backend's bytes, decoded back into a WS2812 pulse train and held to the datasheet.

The decoder here shares nothing with the encoder: it turns bytes into MOSI levels at the SPI clock,
measures every high and low pulse in nanoseconds, and reads WS2812 bits from the pulse widths alone.
The CLI test feeds it the hex printed by ``kipukas-board leds spi-bytes --json`` (the bytes alone).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board.hardware.leds.spi import SPI_HZ, chunks, encode_frame

# WS2812B datasheet timings, in nanoseconds.
T0H, T1H, TOL_H = 400, 800, 150
PERIOD, TOL_PERIOD = 1250, 600
RESET_NS = 280_000  # WS2812B-V5; older parts 50 us


def pulses(data: bytes, spi_hz: float) -> list[tuple[int, float]]:
    """MOSI as (level, duration ns) runs, MSB first, idle low after the last byte."""
    bit_ns = 1e9 / spi_hz
    runs: list[tuple[int, float]] = []
    for byte in data:
        for i in range(7, -1, -1):
            level = byte >> i & 1
            if runs and runs[-1][0] == level:
                runs[-1] = (level, runs[-1][1] + bit_ns)
            else:
                runs.append((level, bit_ns))
    return runs


def decode(data: bytes, spi_hz: float) -> tuple[list[int], float, list[str]]:
    """(WS2812 bits, final low ns, timing violations) read from the pulse train."""
    runs = pulses(data, spi_hz)
    problems: list[str] = []
    if runs and runs[0][0] == 0:
        runs = runs[1:]  # leading idle low is not part of a bit
    bits: list[int] = []
    final_low = 0.0
    for k in range(0, len(runs), 2):
        high = runs[k][1]
        low = runs[k + 1][1] if k + 1 < len(runs) else 0.0
        last = k + 2 >= len(runs)
        if abs(high - T0H) <= TOL_H:
            bit = 0
        elif abs(high - T1H) <= TOL_H:
            bit = 1
        else:
            problems.append(f"pulse {k // 2}: high {high:.0f} ns is neither T0H nor T1H")
            bit = -1
        bits.append(bit)
        if last:
            final_low = low
            # the last bit's own low part is inside the reset gap
        elif abs(high + low - PERIOD) > TOL_PERIOD:
            problems.append(f"bit {k // 2}: period {high + low:.0f} ns outside {PERIOD}±{TOL_PERIOD}")
        elif low >= 50_000:
            problems.append(f"bit {k // 2}: a {low:.0f} ns low inside the frame would latch early")
    return bits, final_low, problems


def pixels_from_bits(bits: list[int], order: str = "GRB") -> list[tuple[int, int, int]]:
    assert len(bits) % 24 == 0, f"{len(bits)} bits is not a whole number of pixels"
    out = []
    for p in range(0, len(bits), 24):
        chans = [int("".join(map(str, bits[p + 8 * c:p + 8 * c + 8])), 2) for c in range(3)]
        by = dict(zip(order, chans, strict=True))
        out.append((by["R"], by["G"], by["B"]))
    return out


def check_frame(data: bytes, spi_hz: float, expect: list[tuple[int, int, int]]) -> None:
    bits, final_low, problems = decode(data, spi_hz)
    assert problems == []
    assert final_low >= RESET_NS, f"reset gap {final_low / 1000:.1f} us is shorter than 280 us"
    assert pixels_from_bits(bits) == expect


FRAMES = [
    [(0, 0, 0)],
    [(255, 255, 255)],
    [(255, 0, 0), (0, 255, 0), (0, 0, 255)],
    [(1, 128, 254), (170, 85, 15), (240, 0, 1), (0, 0, 0), (255, 255, 255)],
    [(i, 255 - i, (i * 7) % 256) for i in range(0, 256, 5)],
]


@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f"{len(f)}px")
def test_frames_decode_within_datasheet_timing(frame: list[tuple[int, int, int]]) -> None:
    check_frame(encode_frame(frame, "GRB"), SPI_HZ, frame)


@pytest.mark.parametrize("clock_error", [-0.05, 0.05])
def test_timing_holds_when_the_pi_cannot_hit_the_clock_exactly(clock_error: float) -> None:
    frame = FRAMES[3]
    check_frame(encode_frame(frame, "GRB"), SPI_HZ * (1 + clock_error), frame)


def test_decoder_rejects_a_wrong_clock() -> None:
    """The check can fail: at 1.2 MHz the highs are twice too long."""
    _, _, problems = decode(encode_frame([(255, 0, 0)], "GRB"), SPI_HZ / 2)
    assert problems


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)), min_size=1, max_size=20))
def test_any_frame_round_trips(frame: list[tuple[int, int, int]]) -> None:
    check_frame(encode_frame(frame, "GRB"), SPI_HZ, frame)


def test_colour_order_changes_the_wire_order() -> None:
    rgb = encode_frame([(255, 0, 0)], "RGB", reset_bytes=0)
    grb = encode_frame([(255, 0, 0)], "GRB", reset_bytes=0)
    assert rgb[:3] == grb[3:6] and rgb[3:6] == grb[:3]
    bits, _, _ = decode(rgb + bytes(90), SPI_HZ)
    assert pixels_from_bits(bits, "RGB") == [(255, 0, 0)]


def test_bad_pixels_are_named() -> None:
    with pytest.raises(ValueError, match="pixel 1 has channel value 256"):
        encode_frame([(0, 0, 0), (256, 0, 0)])
    with pytest.raises(ValueError, match="colour order 'XYZ'"):
        encode_frame([(0, 0, 0)], "XYZ")


def test_chunks_cut_on_whole_bytes_of_colour_with_mosi_low() -> None:
    data = encode_frame([(255, 255, 255)] * 500, "GRB")
    parts = chunks(data, 4096)
    assert b"".join(parts) == data
    assert all(len(p) <= 4096 for p in parts)
    # every cut falls where the line is low, so the pause only stretches a low time
    assert all(len(p) % 3 == 0 and p[-1] & 1 == 0 for p in parts[:-1])
    assert len(parts) > 1


def test_cli_spi_bytes_decode_independently() -> None:
    frame = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (18, 52, 86)]
    args = [",".join(map(str, p)) for p in frame]
    out = subprocess.run([sys.executable, "-m", "kipukas_board", "leds", "spi-bytes", *args, "--json"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    check_frame(bytes.fromhex(doc["bytes"]), doc["spi_hz"], frame)


def test_cli_spi_bytes_refuses_bad_pixels() -> None:
    out = subprocess.run([sys.executable, "-m", "kipukas_board", "leds", "spi-bytes", "1,2", "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert "'1,2' is not R,G,B" in out.stderr


class FakeSpiDev:
    """Records what the adapter hands the spidev driver, transfer by transfer."""

    def __init__(self) -> None:
        self.transfers: list[bytes] = []
        self.closed = False

    def writebytes2(self, data: bytes) -> None:
        self.transfers.append(bytes(data))

    def close(self) -> None:
        self.closed = True


def test_spi_adapter_sends_whole_frames_in_safe_chunks() -> None:
    from kipukas_board.hardware.leds.spi import SpiLedStrip

    fake = FakeSpiDev()
    strip = SpiLedStrip(count=300, order="GRB", bufsiz=4096, spi=fake)
    frame = [(i % 256, 255 - i % 256, 7) for i in range(300)]
    strip.show(frame)
    assert fake.max_speed_hz == SPI_HZ and fake.mode == 0
    assert b"".join(fake.transfers) == encode_frame(frame, "GRB")
    assert len(fake.transfers) == 1 + (300 * 9 + 90) // 4095
    assert all(len(t) <= 4096 and len(t) % 3 == 0 for t in fake.transfers[:-1])
    check_frame(b"".join(fake.transfers), SPI_HZ, frame)
    with pytest.raises(ValueError, match="frame has 2 pixels, the strip has 300"):
        strip.show([(0, 0, 0)] * 2)
    fake.transfers.clear()
    strip.close()
    assert fake.closed and b"".join(fake.transfers) == encode_frame([(0, 0, 0)] * 300, "GRB")


def test_a_frame_longer_than_one_transfer_is_reported(caplog) -> None:
    from kipukas_board.hardware.leds.spi import SpiLedStrip

    fits = SpiLedStrip(count=445, bufsiz=4096, spi=FakeSpiDev())  # 445 * 9 + 90 = 4095 bytes: one transfer
    assert fits.health()["transfers_per_frame"] == 1 and "spidev.bufsiz" not in caplog.text
    long = SpiLedStrip(count=446, bufsiz=4096, spi=FakeSpiDev())
    assert long.health()["transfers_per_frame"] == 2
    assert "spidev.bufsiz=65536" in caplog.text and "446 pixels" in caplog.text


def test_missing_pi_libraries_are_named() -> None:
    import importlib.util

    from kipukas_board.hardware.registry import build

    for name, lib in (("spi", "spidev"), ("ws281x", "rpi_ws281x")):
        if importlib.util.find_spec(lib) is not None:
            continue  # on a Pi the library is there; the message is for machines without it
        with pytest.raises(ValueError, match=f"needs the {lib} library, which this machine lacks"):
            build("leds", name, count=3)


def test_ws281x_adapter_drives_pixelstrip(monkeypatch: pytest.MonkeyPatch) -> None:
    """Against a stand-in with rpi_ws281x's PixelStrip signature (num, pin, freq, dma, invert,
    brightness, channel, strip_type): the library's brightness stays 255 (ours is applied before)."""
    import types

    made: dict = {}

    class PixelStrip:
        def __init__(self, *args) -> None:
            made["args"] = args
            made["pixels"] = {}

        def begin(self) -> None:
            pass

        def setPixelColorRGB(self, n, r, g, b) -> None:  # noqa: N802 - the library's name
            made["pixels"][n] = (r, g, b)

        def show(self) -> None:
            made["shows"] = made.get("shows", 0) + 1

    ws = types.SimpleNamespace(WS2811_STRIP_GRB=0x00081000, WS2811_STRIP_RGB=0x00100800)
    monkeypatch.setitem(sys.modules, "rpi_ws281x", types.SimpleNamespace(PixelStrip=PixelStrip, ws=ws))
    from kipukas_board.hardware.leds.ws281x import Ws281xLedStrip

    strip = Ws281xLedStrip(count=2, pin=18, order="grb")
    assert made["args"] == (2, 18, 800_000, 10, False, 255, 0, 0x00081000)
    strip.show([(1, 2, 3), (4, 5, 6)])
    assert made["pixels"] == {0: (1, 2, 3), 1: (4, 5, 6)} and made["shows"] == 1
