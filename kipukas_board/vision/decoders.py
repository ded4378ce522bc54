"""QR decoders behind one small interface, each imported only when first used.

Three libraries read QR codes here; none reads every camouflaged Kipukas code, and their costs
differ tenfold, so :mod:`kipukas_board.vision.pipeline` combines them:

* ``zxing`` (zxing-cpp, PyPI ``zxing-cpp``): the fastest by far (about 1 ms on a 640x360 grey
  image); its local-average binariser copes with uneven light but it misses many textured codes.
* ``pyzbar`` (ZBar through ctypes; needs the system library ``libzbar0``): slower (about 20 ms at
  1280x720, 5 ms at half size) and reads a different subset.
* ``wechat`` (OpenCV's ``wechat_qrcode`` module, only in the *contrib* build: pip
  ``opencv-contrib-python-headless``, or on Debian bookworm / Raspberry Pi OS ``python3-opencv``
  4.6, whose cv2 links ``libopencv-contrib406`` and exposes ``cv2.wechat_qrcode_WeChatQRCode``;
  plain pip ``opencv-python`` lacks it): the most robust alone, but it retries several binarisers
  on a frame where it fails and can then take hundreds of milliseconds. Without its CNN model
  files (which we do not ship) it uses its traditional detector; with them it reads no card the
  camera loop misses, at twice the CPU a frame (``kipukas_board.bench.wechat_models`` measures it).

Every decoder takes a 2-D uint8 (grey) or 3-channel BGR numpy array and returns :class:`Decoded`
results: the text and the corner points in that image's pixel coordinates. zxing also returns the
symbols it *located* but could not decode (``located=True``, empty text): a small or blurred code
often shows its finder patterns at a scale too coarse to read it, and the pipeline then looks again
at that region alone, upscaled (see :mod:`kipukas_board.vision.pipeline`). Such a result is a place,
never a read.

Example::

    >>> from kipukas_board.vision.decoders import make_decoder
    >>> dec = make_decoder("zxing")                  # doctest: +SKIP
    >>> [d.text for d in dec(grey_image)]            # doctest: +SKIP
    ['kpks.us/RrDC#0001?DmFz33']
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Points = tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Decoded:
    """One code read from an image: its text and corner points (image pixels), if known.

    ``located`` marks a symbol found but not decoded (its text is empty): only its place counts.
    """

    text: str
    points: Points | None = None
    located: bool = False


class DecoderUnavailable(RuntimeError):
    """The library behind a decoder is not installed on this machine."""


class DecoderTimeout(RuntimeError):
    """A decoder was stopped at its deadline before it finished (it read nothing in time)."""


class ZxingDecoder:
    """zxing-cpp, QR codes only; symbols it found but could not decode come back as ``located``.

    It does not look for inverted (light on dark) codes: Kipukas codes are printed dark on light,
    and the inverted search costs a third more on every frame. Nor does it turn the image or shrink
    it itself when it reads nothing: a QR code's finder patterns are found at any angle, and the
    pipeline's strategies choose the scales (a quarter of its own time, and the pipeline reads no
    code fewer on the captures under the bench's camera conditions; a full-size pass alone does
    read fewer, the large codes it read by shrinking the image, which the half-size passes read first).
    """

    name = "zxing"

    def __init__(self) -> None:
        try:
            import zxingcpp
        except ImportError as exc:
            raise DecoderUnavailable(f"zxing needs the zxing-cpp package ({exc})") from exc
        self._zx = zxingcpp
        self._formats = zxingcpp.BarcodeFormat.QRCode

    def __call__(self, image: Any) -> list[Decoded]:
        out = []
        for b in self._zx.read_barcodes(image, formats=self._formats, try_invert=False, try_rotate=False,
                                        try_downscale=False, return_errors=True):
            p = b.position
            pts = tuple((float(q.x), float(q.y)) for q in (p.top_left, p.top_right, p.bottom_right, p.bottom_left))
            out.append(Decoded(b.text, pts) if b.valid else Decoded("", pts, located=True))
        return out


class ZbarDecoder:
    """ZBar through pyzbar, QR codes only. Payloads that are not UTF-8 are dropped (never guessed)."""

    name = "pyzbar"

    def __init__(self) -> None:
        try:
            from pyzbar import pyzbar
        except (ImportError, OSError) as exc:  # OSError: libzbar0 missing
            raise DecoderUnavailable(f"pyzbar needs the pyzbar package and the libzbar0 library ({exc})") from exc
        self._zb = pyzbar
        self._symbols = [pyzbar.ZBarSymbol.QRCODE]

    def __call__(self, image: Any) -> list[Decoded]:
        out = []
        for s in self._zb.decode(image, symbols=self._symbols):
            try:
                text = s.data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            out.append(Decoded(text, tuple((float(p.x), float(p.y)) for p in s.polygon) or None))
        return out


class WeChatDecoder:
    """OpenCV contrib's WeChat QR reader (traditional detector; no CNN model files needed)."""

    name = "wechat"

    def __init__(self) -> None:
        try:
            import cv2
        except ImportError as exc:
            raise DecoderUnavailable(f"wechat needs OpenCV ({exc})") from exc
        if not hasattr(cv2, "wechat_qrcode_WeChatQRCode"):
            raise DecoderUnavailable("wechat needs OpenCV built with the contrib module wechat_qrcode "
                                     "(apt python3-opencv on Debian bookworm, or pip opencv-contrib-python-headless; "
                                     "plain opencv-python lacks it)")
        self._reader = cv2.wechat_qrcode_WeChatQRCode()

    def __call__(self, image: Any) -> list[Decoded]:
        texts, points = self._reader.detectAndDecode(image)
        out = []
        for i, text in enumerate(texts):
            pts = None
            if points is not None and i < len(points):
                pts = tuple((float(x), float(y)) for x, y in points[i].reshape(-1, 2))
            out.append(Decoded(str(text), pts))
        return out


DECODERS: dict[str, Callable[[], Any]] = {
    "zxing": ZxingDecoder,
    "pyzbar": ZbarDecoder,
    "wechat": WeChatDecoder,
}


#: What to install when a decoder is missing: on Debian / Raspberry Pi OS, and in the board's venv.
INSTALL: dict[str, str] = {
    "zxing": "pip install zxing-cpp in the board's venv (scripts/run-board and scripts/install-pi install it)",
    "pyzbar": "apt-get install libzbar0 (the ZBar library), and pip install pyzbar in the board's venv",
    "wechat": "pip install opencv-contrib-python-headless in the board's venv, or apt-get install python3-opencv "
              "(plain opencv-python has no WeChat reader)",
}


@dataclass(frozen=True)
class DecoderHealth:
    """Which decoders this machine runs, and for each missing one why and what to install.

    The scanner runs with whatever decoders are there, so a missing one does not stop it; it reads
    fewer cards (ZBar and WeChat each read codes the others miss), which is why it is said.
    """

    available: tuple[str, ...]
    missing: dict[str, str]

    @property
    def ok(self) -> bool:
        """Every decoder is there."""
        return not self.missing

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "available": list(self.available),
                "missing": [{"decoder": n, "problem": why, "install": INSTALL[n]} for n, why in self.missing.items()]}

    def lines(self) -> list[str]:
        """One sentence per missing decoder, for people."""
        if not self.available:
            head = ["no QR decoder is installed: no card can be read"]
        else:
            head = []
        return head + [f"the {n} decoder is missing ({why}); cards it alone reads are not read. Install: {INSTALL[n]}"
                       for n, why in self.missing.items()]


def decoder_health(makers: dict[str, Callable[[], Any]] | None = None) -> DecoderHealth:
    """Try to make every decoder (``makers`` defaults to :data:`DECODERS`) and say which are missing.

    Example::

        >>> def absent() -> None:
        ...     raise DecoderUnavailable("pyzbar needs the libzbar0 library")
        >>> h = decoder_health({"zxing": lambda: object(), "pyzbar": absent})
        >>> h.ok, h.available, h.to_json()["missing"][0]["install"].split(" (")[0]
        (False, ('zxing',), 'apt-get install libzbar0')
    """
    available: list[str] = []
    missing: dict[str, str] = {}
    for name, make in (DECODERS if makers is None else makers).items():
        try:
            make()
        except DecoderUnavailable as exc:
            missing[name] = str(exc)
        else:
            available.append(name)
    return DecoderHealth(tuple(available), missing)


def make_decoder(name: str) -> Any:
    """A decoder by name; raises :class:`DecoderUnavailable` if its library is missing."""
    if name not in DECODERS:
        raise ValueError(f"unknown decoder {name!r}; expected one of {', '.join(DECODERS)}")
    return DECODERS[name]()


def available_decoders() -> dict[str, Any]:
    """Every decoder this machine can run, by name."""
    out = {}
    for name in DECODERS:
        with contextlib.suppress(DecoderUnavailable):
            out[name] = make_decoder(name)
    return out
