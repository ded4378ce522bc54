"""A camera frame as a PNG for the calibration page's live preview, with no imaging library.

Cameras give numpy arrays (grey ``H×W`` or BGR ``H×W×3``, 8-bit); the Pi build must not need
Pillow or OpenCV just to show a preview, and PNG is only zlib plus a few chunks. Frames are shrunk
by taking every n-th pixel (cheap, and plenty to judge focus and framing on a phone).

Example::

    >>> png = encode_png(2, 1, 1, bytes([0, 255]))
    >>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(width: int, height: int, channels: int, pixels: bytes, level: int = 3) -> bytes:
    """PNG bytes for 8-bit ``pixels`` (rows top to bottom; 1 channel = grey, 3 = RGB)."""
    if channels not in (1, 3):
        raise ValueError(f"a preview frame has 1 (grey) or 3 (colour) channels, got {channels}")
    if width < 1 or height < 1:
        raise ValueError(f"a preview frame needs a size of at least 1×1, got {width}×{height}")
    stride = width * channels
    if len(pixels) != stride * height:
        raise ValueError(f"{width}×{height}×{channels} needs {stride * height} bytes, got {len(pixels)}")
    raw = b"".join(b"\x00" + pixels[y * stride:(y + 1) * stride] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0 if channels == 1 else 2, 0, 0, 0)
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, level)) + _chunk(b"IEND", b"")


def frame_to_png(frame: Any, max_width: int = 480) -> bytes:
    """PNG of a numpy frame (grey, or BGR as OpenCV and picamera2's "BGR888" give), shrunk to ``max_width``."""
    shape = getattr(frame, "shape", None)
    if shape is None or len(shape) not in (2, 3) or str(getattr(frame, "dtype", "")) != "uint8":
        raise ValueError(f"expected an 8-bit image array (H×W or H×W×3), got {type(frame).__name__} "
                         f"shape={shape} dtype={getattr(frame, 'dtype', None)}")
    step = max(1, -(-shape[1] // max_width))
    if len(shape) == 2:
        small, channels = frame[::step, ::step], 1
    elif shape[2] in (3, 4):
        small, channels = frame[::step, ::step, 2::-1], 3  # BGR(A) → RGB
    else:
        raise ValueError(f"expected 3 colour channels (BGR), got {shape[2]}")
    h, w = small.shape[0], small.shape[1]
    return encode_png(w, h, channels, small.tobytes())
