"""Uneven light evened out: a lamp's reflection on a glossy card, a window behind it.

A bright spot adds light to part of the card: inside it the code's dark modules are as bright as
the light ones outside, so a decoder's binariser, whose threshold follows the light over a window
of some modules, puts the edge of the spot where the code's edges should be, and CLAHE
(:mod:`~kipukas_board.vision.preprocess`), which limits its gain, leaves the spot's slope in. Taking
away each pixel's neighbourhood mean and dividing by its neighbourhood spread (*local contrast
normalisation*) leaves the modules alone at the same contrast everywhere, as long as the spot has
not blown them out entirely.

The neighbourhood statistics are Gaussian-weighted over ``sigma`` pixels (about two modules of a
code at 1280x720) and computed on a quarter-size image, then enlarged: the light varies slowly,
so this costs a sixteenth and changes nothing that matters (some 20 ms for a 1280x720 colour frame
on the development machine).

:func:`glare` says when a picture has blown-out highlights: the only pictures evened out, since on
others the strategies' own CLAHE does the same work.

Example::

    >>> import numpy as np
    >>> ys, xs = np.mgrid[:360, :640]
    >>> modules = np.where((xs // 8 + ys // 8) % 2 == 0, 60.0, 140.0)       # a checkerboard
    >>> spot = 150.0 * np.exp(-((xs - 320) ** 2 + (ys - 180) ** 2) / (2 * 80.0 ** 2))
    >>> lit = np.clip(modules + spot, 0, 255).astype(np.uint8)
    >>> glare(lit), glare(modules.astype(np.uint8))
    (True, False)
    >>> even = even_light(lit)
    >>> def contrast(img, y, x):       # light minus dark modules around (x, y)
    ...     patch = img[y:y + 16, x:x + 16].astype(float)
    ...     return round(float(patch.max() - patch.min()))
    >>> contrast(lit, 176, 312), contrast(lit, 16, 16)                  # blown out in the spot
    (48, 80)
    >>> abs(contrast(even, 176, 312) - contrast(even, 16, 16)) < 20    # the same everywhere after
    True
"""

from __future__ import annotations

from typing import Any

#: Neighbourhood of the local statistics (Gaussian sigma, pixels of a 1280-pixel-wide frame).
SIGMA = 16.0
#: The statistics are computed on an image this many times smaller on each side.
STATS_SHRINK = 4
#: A picture with at least this share of blown-out pixels (grey 250 and more) has glare.
GLARE_SHARE = 0.002
#: Grey levels added to the local variance, so flat neighbourhoods (sensor noise only) are not
#: blown up into noise of full contrast.
FLAT_VARIANCE = 16.0


def glare(grey: Any) -> bool:
    """Has the picture blown-out highlights (at least :data:`GLARE_SHARE` of it at 250 or more)?"""
    import cv2

    return cv2.countNonZero(cv2.compare(grey, 250, cv2.CMP_GE)) >= GLARE_SHARE * grey.size


def even_light(image: Any, sigma: float = SIGMA) -> Any:
    """``image`` (grey or BGR, 8-bit) with each pixel's neighbourhood mean taken away and its spread
    brought to the same contrast everywhere (mid-grey 128, one spread = 48 grey levels)."""
    import cv2
    import numpy as np

    h, w = image.shape[:2]
    scale = max(h, w) / 1280
    img = image.astype(np.float32)
    small = cv2.resize(img, (max(1, w // STATS_SHRINK), max(1, h // STATS_SHRINK)), interpolation=cv2.INTER_AREA)
    s = sigma * scale / STATS_SHRINK
    mean = cv2.GaussianBlur(small, (0, 0), s)
    square = cv2.GaussianBlur(small * small, (0, 0), s)
    spread = np.sqrt(np.maximum(square - mean * mean, 0) + FLAT_VARIANCE)
    mean = cv2.resize(mean, (w, h), interpolation=cv2.INTER_LINEAR)
    spread = cv2.resize(spread, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip((img - mean) / spread * 48 + 128, 0, 255).astype(np.uint8)
