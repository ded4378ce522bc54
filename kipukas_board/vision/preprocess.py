"""Image preparations for camouflaged QR codes, cached per frame so strategies share the work.

Why these steps: a Kipukas code is printed in dark purple on yellow inside a cracked-lava texture of
the same palette, photographed hand-held by a phone-stand camera.

* **Channel.** ``gray`` (luma), ``blue`` (the yellow of the light modules is dark in blue, so the
  code's contrast differs from luma's) and ``min`` (the darkest of B, G, R: the purple ink is
  dark in every channel, the red cracks of the texture are not) give different code/texture contrast.
* **Scale.** The codes fill a large part of the frame (modules of 8 to 16 pixels at 1280x720), so
  half size keeps them readable, smooths the texture and makes every decoder 3 to 4 times faster;
  small or far codes need full size or more.
* **CLAHE** (contrast-limited adaptive histogram equalisation) evens out uneven light and low
  contrast. **Sharpen** (an unsharp mask scaled with the image; ``sharp`` adds the detail once,
  ``strong`` twice) undoes the camera's blur, which is what defeats the decoders on hand-held
  captures most often; ``deblur`` (a wide mask added six times) takes back some of the motion blur
  of a card moved during the exposure, at the cost of loud noise (so it is tried on stacked frames).

A :class:`Frame` computes each derived image once: ``frame.image("min", 0.5, "sharp")``.

Example::

    >>> import numpy as np
    >>> f = Frame(np.zeros((720, 1280, 3), np.uint8))
    >>> f.image("gray", 0.5, "clahe").shape
    (360, 640)
"""

from __future__ import annotations

from typing import Any

CHANNELS = ("gray", "blue", "green", "red", "min")
PREPS = ("none", "clahe", "sharp", "strong", "clahe_sharp", "deblur")


def _cv2() -> Any:
    import cv2

    return cv2


class FrameError(ValueError):
    """A frame that is not an 8-bit grey or BGR image."""


def check_frame(frame: Any) -> Any:
    """Return ``frame`` as a contiguous uint8 array, or raise :class:`FrameError` saying what is wrong."""
    import numpy as np

    if not isinstance(frame, np.ndarray):
        raise FrameError(f"a frame is a numpy array, got {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise FrameError(f"a frame has 8-bit pixels (uint8), got {frame.dtype}")
    if frame.ndim == 3 and frame.shape[2] == 4:
        frame = frame[:, :, :3]
    if not (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 3)):
        raise FrameError(f"a frame is H x W (grey) or H x W x 3 (BGR), got shape {frame.shape}")
    if frame.shape[0] < 21 or frame.shape[1] < 21:
        raise FrameError(f"a frame of {frame.shape[1]}x{frame.shape[0]} pixels is too small to hold a QR code")
    return np.ascontiguousarray(frame)


class Frame:
    """One camera frame and the preparations made from it so far."""

    def __init__(self, bgr: Any) -> None:
        self.bgr = check_frame(bgr)
        self._cache: dict[tuple[Any, ...], Any] = {}  # (channel, scale, prep[, detail]) -> image
        self._clahe: Any = None

    @property
    def shape(self) -> tuple[int, int]:
        return self.bgr.shape[0], self.bgr.shape[1]

    def channel(self, name: str) -> Any:
        key = (name, 1.0, "none")
        if key not in self._cache:
            self._cache[key] = _channel_of(self.bgr, name)
        return self._cache[key]

    def scaled(self, name: str, scale: float) -> Any:
        """The ``name`` channel at ``scale``: the whole frame's channel made smaller or larger.

        A channel is taken from the whole frame and then resized, never from the colour frame
        resized: one channel of 1280x720 made half as large costs 0.25 ms, the colour frame made
        half as large 0.45 ms before any channel is taken from it (three quarters as large, 2.0
        against 4.9 ms), so the colour frame would pay only from a third channel at one scale, which
        no ladder asks for; and the darkest channel of a shrunk frame is not the darkest channel
        shrunk (the darkest of averages is not the average of the darkest).
        """
        if scale == 1.0:
            return self.channel(name)
        key = (name, scale, "none")
        if key not in self._cache:
            cv2 = _cv2()
            interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
            self._cache[key] = cv2.resize(self.channel(name), None, fx=scale, fy=scale, interpolation=interp)
        return self._cache[key]

    def image(self, channel: str, scale: float, prep: str, detail: float | None = None) -> Any:
        """The ``channel`` image at ``scale`` with ``prep`` applied (computed once per frame).

        ``detail`` sizes the sharpening (its Gaussian's sigma is a multiple of it, in pixels of the
        image made): the scale at which a 1280-pixel-wide frame shows the code's modules as large as
        this image does. It is ``scale`` for such a frame (the default); a 640x360 frame at
        ``scale`` 1.0 shows them as a 1280x720 one does at 0.5, so the pipeline gives it 0.5 there,
        and the same code is sharpened alike whatever the camera's resolution.
        """
        # the detail is part of the key only where it sizes a mask (CLAHE and no preparation are the
        # same image whatever it is), as the number itself: no rounding can make two widths one
        d = scale if detail is None or prep in ("none", "clahe") else detail
        key = (channel, scale, prep) if d == scale else (channel, scale, prep, d)
        if key in self._cache:
            return self._cache[key]
        img = self.scaled(channel, scale)
        if prep == "none":
            return img
        if prep == "clahe":
            out = self._get_clahe().apply(img)
        elif prep == "sharp":
            out = sharpen(img, 3.0 * d, 1.0)
        elif prep == "strong":
            out = sharpen(img, 3.0 * d, 2.0)
        elif prep == "clahe_sharp":
            out = self._get_clahe().apply(sharpen(img, 2.0 * d))
        elif prep == "deblur":
            out = sharpen(img, 4.0 * d, 6.0)
        else:
            raise ValueError(f"unknown preparation {prep!r}; expected one of {PREPS}")
        self._cache[key] = out
        return out

    def _get_clahe(self) -> Any:
        if self._clahe is None:
            self._clahe = _cv2().createCLAHE(clipLimit=2.0, tileGridSize=(8, 8))
        return self._clahe


def _channel_of(bgr: Any, name: str) -> Any:
    """The ``name`` channel of a BGR image (a grey image is its own every channel)."""
    if name not in CHANNELS:
        raise ValueError(f"unknown channel {name!r}; expected one of {CHANNELS}")
    if bgr.ndim == 2:
        return bgr
    cv2 = _cv2()
    if name == "gray":
        return cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    if name == "min":
        b, g, r = cv2.split(bgr)  # contiguous planes: cv2.min on strided views costs four times more
        return cv2.min(cv2.min(b, g), r)
    return cv2.extractChannel(bgr, ("blue", "green", "red").index(name))  # cheaper than a strided copy


def sharpen(img: Any, sigma: float, amount: float = 1.0) -> Any:
    """Unsharp mask: ``img + amount * (img - blur(img, sigma))``, saturated to 0..255."""
    cv2 = _cv2()
    return cv2.addWeighted(img, 1.0 + amount, cv2.GaussianBlur(img, (0, 0), max(sigma, 0.5)), -amount, 0)
