"""A family of camera conditions to apply to real captures: how a seat's camera can see worse.

The captures the pipeline was tuned on come from one phone-stand camera in good light. A seat's
camera on a Pi sees worse: more sensor noise in a dim room, a card moved while the shutter is
open, a cheap camera's compression, a lower resolution, a darker exposure, a lamp's reflection on
a glossy card. Each :class:`Condition` turns a capture into the picture such a camera would give,
before the frame's own sensor noise (``noise``, fresh on every frame, which the bench adds):

* ``noise2`` / ``noise4`` / ``noise8``: the capture as it is, with sensor noise of sigma 2, 4 or 8
  grey levels on every frame (2 is a good sensor in daylight, 8 a small one at high gain);
* ``blur3`` / ``blur5`` / ``blur9``: linear motion blur of 3, 5 or 9 pixels along a diagonal (a card
  moving during the exposure), with noise sigma 2;
* ``jpeg40``: JPEG at quality 40 (a camera that only gives MJPEG over USB), noise sigma 2 on top;
* ``half``: half the resolution (640x360 for 1280x720 captures, a cheaper sensor mode);
* ``ev-1``: one stop less light: half the linear light, so every grey level times 0.5^(1/2.2)
  (about 0.73) under the sRGB-like gamma, with the same noise sigma 2 (relatively twice as loud);
* ``glare``: a lamp's reflection: a Gaussian bright spot adding up to 170 grey levels (saturating),
  a fifth of the shorter side wide, centred at 45 % of the width and 40 % of the height, where a
  card held to the camera usually is, with noise sigma 2.

Every condition is deterministic (the same capture gives the same picture), so a run can be
repeated; only the per-frame noise is drawn, from a seeded generator.

Example::

    >>> import numpy as np
    >>> img = np.full((72, 128, 3), 200, np.uint8)
    >>> CONDITIONS["half"].apply(img).shape
    (36, 64, 3)
    >>> int(CONDITIONS["ev-1"].apply(img)[0, 0, 0])
    146
    >>> CONDITIONS["noise8"].noise
    8.0
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Condition:
    """One way a camera sees worse: ``apply`` changes the picture once, ``noise`` is the sensor
    noise sigma (grey levels) every frame gets on top."""

    name: str
    what: str
    transform: Callable[[Any], Any]
    noise: float = 2.0

    def apply(self, img: Any) -> Any:
        """The capture as this camera gives it (before its per-frame noise)."""
        return self.transform(img)


def _same(img: Any) -> Any:
    return img


def _motion_blur(length: int) -> Callable[[Any], Any]:
    def blur(img: Any) -> Any:
        import cv2
        import numpy as np

        kernel = np.eye(length, dtype=np.float32) / length  # a diagonal streak of ``length`` pixels
        return cv2.filter2D(img, -1, kernel, borderType=cv2.BORDER_REPLICATE)

    return blur


def _jpeg(quality: int) -> Callable[[Any], Any]:
    def jpeg(img: Any) -> Any:
        import cv2

        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise ValueError("OpenCV could not encode the capture as JPEG")
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)

    return jpeg


def _half(img: Any) -> Any:
    import cv2

    return cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2), interpolation=cv2.INTER_AREA)


def _ev_minus_one(img: Any) -> Any:
    import numpy as np

    return np.clip(np.rint(img.astype(np.float32) * 0.5 ** (1 / 2.2)), 0, 255).astype(np.uint8)


def _glare(img: Any) -> Any:
    import numpy as np

    h, w = img.shape[:2]
    sigma = min(h, w) / 5
    ys, xs = np.ogrid[:h, :w]
    spot = 170.0 * np.exp(-(((xs - 0.45 * w) ** 2 + (ys - 0.40 * h) ** 2) / (2 * sigma ** 2)))
    out = img.astype(np.float32) + (spot[..., None] if img.ndim == 3 else spot)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


#: The family, in the order the bench reports it.
CONDITIONS: dict[str, Condition] = {c.name: c for c in (
    Condition("noise2", "sensor noise sigma 2", _same, 2.0),
    Condition("noise4", "sensor noise sigma 4", _same, 4.0),
    Condition("noise8", "sensor noise sigma 8", _same, 8.0),
    Condition("blur3", "motion blur 3 px", _motion_blur(3)),
    Condition("blur5", "motion blur 5 px", _motion_blur(5)),
    Condition("blur9", "motion blur 9 px", _motion_blur(9)),
    Condition("jpeg40", "JPEG quality 40", _jpeg(40)),
    Condition("half", "half resolution", _half),
    Condition("ev-1", "one stop darker", _ev_minus_one),
    Condition("glare", "a lamp's reflection", _glare),
)}


def condition(name: str) -> Condition:
    """A condition by name, or ``ValueError`` naming the ones there are."""
    try:
        return CONDITIONS[name]
    except KeyError:
        raise ValueError(f"unknown camera condition {name!r}; expected one of {', '.join(CONDITIONS)}") from None
