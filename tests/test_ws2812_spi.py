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

from kipukas_board.hardware.leds_spi import SPI_HZ, chunks, encode_frame

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
