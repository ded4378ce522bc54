"""Linear motion blur: measured from the picture itself, and taken back by Wiener deconvolution.

A card moved while the shutter is open is smeared along one line, the same in every frame, so
stacking frames (:mod:`kipukas_board.vision.stack`) cannot help and sharpening only a little: the
modules of the code run into each other along the line of motion. Knowing the line, the smear can
be undone almost exactly.

* **Measured.** A smear along a line of length L multiplies the picture's spectrum by a sinc whose
  zeros repeat every 1/L along that line's direction. The *cepstrum* (the inverse Fourier transform
  of the log magnitude spectrum) turns such a periodic pattern of dips into one strong negative
  peak at the smear's vector (dx, dy), whatever the picture shows. :func:`estimate_motion` looks
  for that peak within :data:`MAX_BLUR` pixels of the origin and reports it only when it stands
  well below the rest of the cepstrum there (a z-score of :data:`MIN_SCORE` or lower) and is at
  least :data:`MIN_BLUR` pixels long: a sharp picture has no such peak, and a smear of a few
  pixels is left to the sharpening strategies.
* **Taken back.** :func:`deconvolve` divides the spectrum by the smear's (a line of the measured
  length and direction), damped where the smear's response is small
  (``conj(H) / (|H|^2 + k)``, a Wiener filter with a constant noise-to-signal ratio ``k``: larger
  ``k`` leaves more blur and less amplified noise, which is why it is used on stacked means).

Cost at 1280x720 on the development machine: about 5 ms to measure (OpenCV's real DFT of the grey
image and its inverse, the spectrum kept in OpenCV's packed layout: numpy's ``rfft2`` and ``irfft2``
took 2.4-3.7 times as long for the same cepstrum, measured side by side); to deconvolve, 7-12 ms
for a colour frame at half size and 21-23 ms for a grey one at full size, every spectrum packed as
well (with complex spectra 20-27 and 53-69 ms, measured side by side), paid once per still unread
scene whose picture shows a smear.

Example::

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> import cv2
    >>> blobs = cv2.GaussianBlur(rng.normal(0, 1, (360, 640)).astype(np.float32), (0, 0), 3)
    >>> sharp = np.where(blobs > 0, 200.0, 40.0).astype(np.float32)   # dark and light patches
    >>> smeared = cv2.filter2D(sharp, -1, np.ones((1, 9), np.float32) / 9).astype(np.uint8)
    >>> estimate_motion(smeared)                                  # a horizontal smear, 9 px
    (9, 0)
    >>> err = lambda img: float(np.abs(img.astype(np.float32) - sharp)[20:-20, 20:-20].mean())
    >>> err(deconvolve(smeared, (9, 0))) < err(smeared) / 1.5
    True
"""

from __future__ import annotations

import functools
import math
from typing import Any

#: The longest smear looked for, in pixels (a card moving a tenth of its width in one exposure).
MAX_BLUR = 24
#: Shorter smears are left alone: the unsharp masks of :mod:`~kipukas_board.vision.preprocess` cope.
MIN_BLUR = 4.0
#: How far below the cepstrum's spread the smear's peak must lie (in standard deviations). On the
#: captures, sharp pictures stay above -4 at lengths of 4 pixels and more, and smears of 5 and 9
#: pixels lie at -4 to -17.
MIN_SCORE = -4.0
#: A peak at right angles to the deepest one that is at least this share as deep marks a grid (the
#: modules of a code seen square on), not a smear.
GRID_SHARE = 0.5
#: The Wiener filter's constant noise-to-signal ratio for a stacked mean.
NOISE_RATIO = 0.01
#: :func:`unsmear` works on the picture at this scale unless told otherwise: on the captures with
#: 9 px of motion blur a half-size picture, deconvolved, gave more reads than the full-size one (the
#: smear's ringing and amplified noise average out), for a quarter of the cost. A full-size look as
#: well, at the later stacked means, read one more code of 36 in half the runs with 5 px of blur,
#: and late (about 1 s): not worth its 100 ms.
UNSMEAR_SCALE = 0.5


def estimate_motion(grey: Any, max_blur: int = MAX_BLUR) -> tuple[int, int] | None:
    """The smear's vector (dx, dy) in pixels, or None when the picture shows no linear smear.

    The sign of the vector means nothing (a line has no direction); ``grey`` is a 2-D image.
    """
    import numpy as np

    g = np.asarray(grey, np.float32)
    h, w = g.shape
    if min(h, w) < 4 * max_blur:
        return None
    r = max_blur
    cep = cepstrum(g)
    # the cepstrum near its origin, the origin in the middle (it wraps around at the edges)
    ch, cw = cep.shape
    near = cep[np.ix_(np.arange(-r, r + 1) % ch, np.arange(-r, r + 1) % cw)]
    ys, xs = np.mgrid[-r:r + 1, -r:r + 1]
    dist = np.hypot(xs, ys)
    ring = (dist >= 3) & (dist <= r)
    spread = float(near[ring].std())
    if spread <= 0:
        return None
    scores = np.where(ring, near, 0.0)
    i = np.unravel_index(int(np.argmin(scores)), scores.shape)
    dx, dy = int(xs[i]), int(ys[i])
    if dy < 0 or (dy == 0 and dx < 0):  # the same line: said one way
        dx, dy = -dx, -dy
    score = float(near[i]) / spread
    if score > MIN_SCORE or float(np.hypot(dx, dy)) < MIN_BLUR:
        return None
    # a code's square grid of modules dips the spectrum alike along two perpendicular lines, a smear
    # along one only: a peak as deep at right angles is the modules' pitch, not a smear
    across = float(near[r + dx, r - dy]) / spread
    if across < score * GRID_SHARE:
        return None
    return dx, dy


@functools.lru_cache(maxsize=4)
def _real_slots(h: int, w: int) -> Any:
    """1 where OpenCV's packed spectrum of a real ``h`` x ``w`` image (its CCS layout) holds a real
    part, 0 where it holds an imaginary one.

    Within the columns 1 .. w-2 (w-1 for an odd width) real and imaginary parts alternate, the real
    ones in the odd columns; the first column, and the last for an even width, pack a column's own
    half spectrum the same way down the rows (the first row's value real, then real in the odd rows).
    """
    import numpy as np

    m = np.zeros((h, w), np.float32)
    m[:, 1:w - 1 if w % 2 == 0 else w:2] = 1
    for c in [0] + ([w - 1] if w % 2 == 0 else []):
        m[0, c] = 1
        m[1::2, c] = 1
    return m


def cepstrum(g: Any) -> Any:
    """The real cepstrum of the float image ``g`` (windowed, zero-padded to a size OpenCV's DFT is
    fast at): the inverse transform of its log magnitude spectrum, in pixels of lag.

    OpenCV's real DFT keeps the spectrum packed (half of it, real and imaginary parts side by side, the
    CCS layout), which costs a tenth of numpy's ``rfft2`` at 1280x720 on the development machine (1.3
    against 16 ms, twice). The log magnitude of a real image's spectrum is real and even, so in that
    layout it is its value in the real parts' places and 0 in the imaginary parts', and its inverse is
    real.
    """
    import cv2

    h, w = g.shape
    ph, pw = cv2.getOptimalDFTSize(h), cv2.getOptimalDFTSize(w)
    window = cv2.createHanningWindow((w, h), cv2.CV_32F)
    x = cv2.multiply(cv2.subtract(g, float(cv2.mean(g)[0])), window)
    if (ph, pw) != (h, w):  # the window took the edges to 0, so padding with 0 adds no edge
        x = cv2.copyMakeBorder(x, 0, ph - h, 0, pw - w, cv2.BORDER_CONSTANT, value=0)
    spec = cv2.dft(x)
    mag = cv2.sqrt(cv2.mulSpectrums(spec, spec, 0, conjB=True))  # |X| in the real parts' places, 0 elsewhere
    slots = _real_slots(ph, pw)
    floor = 1e-3 * float(cv2.sumElems(mag)[0]) / float(cv2.sumElems(slots)[0]) + 1e-6
    log_mag = cv2.multiply(cv2.log(mag + floor), slots)
    return cv2.dft(log_mag, flags=cv2.DFT_INVERSE | cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)


def line_kernel(dx: float, dy: float) -> Any:
    """A smear of length ``hypot(dx, dy)`` along (dx, dy), drawn anti-aliased, summing to 1."""
    import numpy as np

    length = float(np.hypot(dx, dy))
    size = int(np.ceil(length)) + 3
    size += size % 2 == 0
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    # points spread bilinearly from -L/2 to L/2 cover L pixels, as a box smear of L taps does
    for t in np.linspace(-length / 2, length / 2, int(4 * length) + 1):
        x, y = c + t * dx / length, c + t * dy / length
        x0, y0 = int(np.floor(x)), int(np.floor(y))
        fx, fy = x - x0, y - y0
        kernel[y0, x0] += (1 - fx) * (1 - fy)
        kernel[y0, x0 + 1] += fx * (1 - fy)
        kernel[y0 + 1, x0] += (1 - fx) * fy
        kernel[y0 + 1, x0 + 1] += fx * fy
    return kernel / kernel.sum()


def deconvolve(image: Any, motion: tuple[float, float], noise_ratio: float = NOISE_RATIO) -> Any:
    """``image`` (grey or BGR, 8-bit) with the smear ``motion`` taken back, as an 8-bit image.

    The picture is padded by mirroring before the transform, so its edges do not ring into it. Every
    spectrum stays in OpenCV's packed layout (see :func:`cepstrum`): at 1280x720 a grey image's
    transform costs 1.8 ms there against 10.4 with a complex one, its inverse 2 against 10.8, and
    the whole deconvolution 21-23 ms against 53-69 (most of the rest is the filter's, made once for
    each smear and size and kept for the next means), measured on the development machine.
    """
    import cv2
    import numpy as np

    kernel = line_kernel(*motion)
    pad = kernel.shape[0] * 2
    h, w = image.shape[:2]
    ph, pw = cv2.getOptimalDFTSize(h + 2 * pad), cv2.getOptimalDFTSize(w + 2 * pad)
    wiener = _wiener_for(np.asarray(kernel, np.float32).tobytes(), kernel.shape[0], ph, pw, noise_ratio)
    channels = cv2.split(image) if image.ndim == 3 else [image]
    out = []
    for ch in channels:
        padded = cv2.copyMakeBorder(ch, pad, ph - h - pad, pad, pw - w - pad, cv2.BORDER_REFLECT)
        spec = cv2.dft(padded.astype(np.float32))
        back = cv2.dft(cv2.mulSpectrums(spec, wiener, 0), flags=cv2.DFT_INVERSE | cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)
        out.append(np.clip(np.rint(back[pad:pad + h, pad:pad + w]), 0, 255).astype(np.uint8))
    return cv2.merge(out) if image.ndim == 3 else out[0]


@functools.lru_cache(maxsize=4)
def _wiener_for(kernel: bytes, size: int, ph: int, pw: int, noise_ratio: float) -> Any:
    """:func:`_wiener` of the ``size`` x ``size`` float32 ``kernel`` (its bytes, so it is a key), kept
    for the next call: a still scene's means show the same smear at every count, each taken back at
    half size and, at the eighth, at full size, and making the filter is half of a deconvolution's
    cost (a read-only array: 4 MB at full size, 1 MB at half)."""
    import numpy as np

    filt = _wiener(np.frombuffer(kernel, np.float32).reshape(size, size), ph, pw, noise_ratio)
    filt.flags.writeable = False
    return filt


def _wiener(kernel: Any, ph: int, pw: int, noise_ratio: float) -> Any:
    """The Wiener filter ``conj(H) / (|H|^2 + k)`` of ``kernel`` for a ``ph`` x ``pw`` transform, in
    OpenCV's packed layout (see :func:`_real_slots`): each complex value's real and imaginary parts
    sit in two slots, which share the one real denominator."""
    import cv2
    import numpy as np

    s, c = kernel.shape[0], kernel.shape[0] // 2
    k = np.zeros((ph, pw), np.float32)
    # the kernel's centre at the origin, as the transform expects (it wraps round the edges)
    k[np.ix_((np.arange(s) - c) % ph, (np.arange(s) - c) % pw)] = kernel
    kf = cv2.dft(k)
    power = cv2.mulSpectrums(kf, kf, 0, conjB=True)  # |H|^2 in the real parts' slots, 0 in the others
    conj = kf.copy()
    # the imaginary parts' slots: every second one of the middle columns along each row (the slot
    # before holds the real part), and every second row of the first and last columns (the slot
    # above holds it); each takes its real part's |H|^2, and its sign is turned for the conjugate
    imag = slice(2, pw - 1 if pw % 2 == 0 else pw, 2)
    power[:, imag] = power[:, 1:imag.stop - 1:2]
    conj[:, imag] *= -1
    for col in [0] + ([pw - 1] if pw % 2 == 0 else []):
        power[2::2, col] = power[1:ph - 1 if ph % 2 == 1 else ph - 2:2, col]
        conj[2::2, col] *= -1
    # numpy's add, not cv2.add: OpenCV takes a 4x1 (or smaller) array beside a number for a scalar of
    # its own and refuses the pair; the float32 sums are the same
    power += np.float32(noise_ratio)
    return cv2.divide(conj, power)


def unsmear(image: Any, motion: tuple[int, int], scale: float = UNSMEAR_SCALE,
            noise_ratio: float = NOISE_RATIO) -> Any:
    """``image`` (BGR or grey, 8-bit) at ``scale`` with its linear smear ``motion`` (full-size
    pixels, as :func:`estimate_motion` measures it) taken back.

    Its points are ``1 / scale`` times smaller than the frame's.
    """
    import cv2

    h, w = image.shape[:2]
    # rounded as cv2.resize sizes its output, which refuses an empty one with an assertion
    if not (math.isfinite(scale) and scale > 0) or round(h * scale) < 1 or round(w * scale) < 1:
        raise ValueError(f"cannot unsmear a {w}x{h} image at scale {scale!r}: expected a positive scale "
                         f"that leaves the image at least 1 pixel each way")
    if scale != 1.0:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return deconvolve(image, (motion[0] * scale, motion[1] * scale), noise_ratio)
