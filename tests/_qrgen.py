"""Generated QR images for the vision tests: Kipukas-like colours, camouflage, blur, noise, rotation.

Nothing here is copied from ../shared: every image is drawn from a payload with segno and a seeded
random generator, so the tests run anywhere and fail the same way every time.
"""

from __future__ import annotations

import cv2
import numpy as np
import segno

PURPLE = (90, 30, 70)     # BGR: the dark modules' ink
YELLOW = (40, 190, 235)   # BGR: the light modules' paper
RED = (40, 40, 200)       # BGR: the texture's cracks


def qr_modules(payload: str, error: str = "m") -> np.ndarray:
    """The code's modules (1 = dark) with a 4-module quiet zone."""
    q = segno.make_qr(payload, error=error)
    m = np.array(q.matrix, dtype=np.uint8)
    return np.pad(m, 4)


def qr_tile(payload: str, px: int = 10, dark: tuple[int, int, int] = PURPLE,
            light: tuple[int, int, int] = YELLOW) -> np.ndarray:
    """A BGR image of the code, ``px`` pixels per module."""
    m = qr_modules(payload)
    big = np.kron(m, np.ones((px, px), np.uint8))
    img = np.empty((*big.shape, 3), np.uint8)
    img[big == 1] = dark
    img[big == 0] = light
    return img


def camouflage(tile: np.ndarray, rng: np.random.Generator, strength: float = 0.35) -> np.ndarray:
    """Lay a cracked-lava-like texture of the code's own palette over it.

    Smooth random blobs darken parts of the light area towards purple (at ``strength``) and red
    cracks run through, so the texture shares the code's colours as the real cards' art does.
    """
    h, w = tile.shape[:2]
    noise = rng.random((h // 8 + 1, w // 8 + 1)).astype(np.float32)
    blobs = cv2.resize(cv2.GaussianBlur(noise, (0, 0), 1.0), (w, h), interpolation=cv2.INTER_CUBIC)
    mask = (blobs > np.quantile(blobs, 0.6)).astype(np.float32)[..., None]
    out = tile.astype(np.float32)
    out = out * (1 - strength * mask) + np.array(PURPLE, np.float32) * strength * mask
    edges = cv2.Canny((mask[..., 0] * 255).astype(np.uint8), 50, 150) > 0
    out[edges] = out[edges] * 0.5 + np.array(RED, np.float32) * 0.5
    return np.clip(out, 0, 255).astype(np.uint8)


def place(tiles: list[np.ndarray], size: tuple[int, int] = (720, 1280), background: int = 120,
          positions: list[tuple[int, int]] | None = None) -> np.ndarray:
    """A ``size`` BGR frame with the tiles pasted at ``positions`` (top-left corners)."""
    frame = np.full((*size, 3), background, np.uint8)
    positions = positions or [((size[0] - t.shape[0]) // 2, (size[1] - t.shape[1]) // 2) for t in tiles]
    for t, (y, x) in zip(tiles, positions, strict=True):
        frame[y:y + t.shape[0], x:x + t.shape[1]] = t
    return frame


def rotate(frame: np.ndarray, degrees: float) -> np.ndarray:
    h, w = frame.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    return cv2.warpAffine(frame, m, (w, h), borderValue=(120, 120, 120))


def blur(frame: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(frame, (0, 0), sigma)


def noise(frame: np.ndarray, rng: np.random.Generator, sd: float) -> np.ndarray:
    return np.clip(frame.astype(np.float32) + rng.normal(0, sd, frame.shape), 0, 255).astype(np.uint8)


def low_contrast(frame: np.ndarray, factor: float) -> np.ndarray:
    """Squeeze the frame's range towards mid-grey (``factor`` 0.2 keeps a fifth of the contrast)."""
    return np.clip(128 + (frame.astype(np.float32) - 128) * factor, 0, 255).astype(np.uint8)
