"""The decode pipeline: cheap strategies first, stop at the first good read, never past the budget.

A *strategy* is one decoder on one preparation of the frame (channel, scale, filter; see
:mod:`kipukas_board.vision.preprocess`). No single strategy reads every camouflaged Kipukas code,
but different ones fail on different frames, so the pipeline tries them in the order of their
measured yield per millisecond (``kipukas-board bench-qr DIR --truth truth.json --strategies``
prints that measurement) and stops:

* once a strategy gave at least one valid Kipukas payload; only the following strategies whose
  expected costs fit in ``sweep_ms`` still run (the cheap zxing passes), so a second card in
  the same frame is usually caught without paying for the slow ones; or
* before a strategy whose expected cost would take the frame past ``budget_ms``.

Only text that decoded *and* validates as a Kipukas payload is returned; everything else is
listed in ``refused`` with the reason (a decoder's output is never corrected or guessed at).

On a camera (``remember_roi=True``) the pipeline also remembers where the last code was and first
tries the strategy that read it on that region alone, which is several times cheaper while a card
is held still; a full pass still runs every ``full_every_s`` so a second card is not missed.
A camera sees no card most of the time, and on such frames WeChat spends 80-160 ms (seconds on
sensor noise) finding nothing; with ``heavy_interval_s`` the heavy strategies (expected
cost of ``heavy_ms`` or more) run at most once per that interval per camera, so an idle seat costs
only the cheap passes while a held card still meets every strategy within a second.

Example::

    >>> import cv2
    >>> from kipukas_board.vision.pipeline import Pipeline
    >>> result = Pipeline().decode(cv2.imread("capture.jpg"))     # doctest: +SKIP
    >>> result.codes, round(result.ms)                            # doctest: +SKIP
    (['kpks.us/RrDC#0001?DmFz33'], 3)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kipukas_board.cards.payload import PayloadError, parse_payload
from kipukas_board.vision.decoders import Decoded, available_decoders
from kipukas_board.vision.preprocess import Frame

#: Frame size (longer side) the strategies' scales and expected costs refer to. A strategy's
#: ``scale`` is applied to a frame whose longer side is 1280 pixels; other frames are scaled to the
#: same working size (a 640x360 frame gets ``scale * 2``), so the code's module size in the working
#: image, which is what decides whether a decoder reads it, does not depend on the camera's
#: resolution or orientation.
REFERENCE_SIDE = 1280


@dataclass(frozen=True)
class Strategy:
    """One decoder on one preparation. ``cost_ms`` is its typical time on a 1280x720 frame."""

    decoder: str
    channel: str
    scale: float
    prep: str
    cost_ms: float

    @property
    def name(self) -> str:
        return f"{self.decoder}@{self.scale:g}/{self.channel}/{self.prep}"


#: Ordered greedily by measured yield per mean millisecond on real camouflaged captures (each next
#: strategy is the one reading the most codes the earlier ones missed, per ms; see README, "Card
#: scanning", and ``bench-qr --strategies``): fast zxing passes on sharpened or equalised half-size
#: images first, ZBar (a different binariser that reads other frames) in between, a full-size zxing
#: pass for smaller codes, ZBar at 0.75, and WeChat's multi-binariser reader last because its
#: misses are slow. ``cost_ms`` is the typical time measured on this project's development machine.
DEFAULT_STRATEGIES: tuple[Strategy, ...] = (
    Strategy("zxing", "gray", 0.5, "strong", 1.5),
    Strategy("zxing", "blue", 0.5, "strong", 1.5),
    Strategy("zxing", "gray", 0.5, "clahe_sharp", 2.0),
    Strategy("pyzbar", "blue", 0.5, "clahe", 7.0),
    Strategy("zxing", "blue", 0.5, "clahe", 1.8),
    Strategy("zxing", "gray", 1.0, "clahe", 4.5),
    Strategy("pyzbar", "gray", 0.5, "none", 6.0),
    Strategy("pyzbar", "gray", 0.75, "sharp", 15.0),
    Strategy("wechat", "gray", 0.75, "strong", 15.0),
    Strategy("wechat", "gray", 1.0, "sharp", 30.0),
)


@dataclass
class DecodeResult:
    """What one frame gave: valid Kipukas payloads, refused texts with reasons, time and strategies."""

    codes: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    ms: float = 0.0
    tried: list[str] = field(default_factory=list)
    hits: dict[str, list[str]] = field(default_factory=dict)
    points: dict[str, tuple[tuple[float, float], ...] | None] = field(default_factory=dict)
    over_budget: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"codes": self.codes, "ms": round(self.ms, 2), "refused": self.refused, "errors": self.errors,
                "tried": self.tried, "hits": self.hits}


class Pipeline:
    """Multi-strategy QR decoding under a per-frame time budget.

    ``strategies`` default to :data:`DEFAULT_STRATEGIES` (those whose decoder is not installed are
    dropped); ``decoders`` maps names to callables (tests inject fakes); ``clock`` returns seconds.
    """

    def __init__(self, strategies: Sequence[Strategy] | None = None, budget_ms: float = 80.0,
                 sweep_ms: float = 4.0, decoders: dict[str, Any] | None = None,
                 remember_roi: bool = False, full_every_s: float = 0.5,
                 heavy_interval_s: float | None = None, heavy_ms: float = 10.0,
                 clock: Callable[[], float] = time.perf_counter,
                 accept: Callable[[str], Any] | None = None) -> None:
        # accept(text) raises PayloadError for a text that is no card (default: Kipukas cards only;
        # the card desk also accepts the game modes' sticker payloads).
        self.accept = accept or parse_payload
        self.decoders = decoders if decoders is not None else available_decoders()
        if not self.decoders:
            raise RuntimeError("no QR decoder is installed (pip install 'kipukas-board[vision]')")
        chosen = DEFAULT_STRATEGIES if strategies is None else tuple(strategies)
        self.strategies = tuple(s for s in chosen if s.decoder in self.decoders)
        self.budget_ms = budget_ms
        self.sweep_ms = sweep_ms
        self.remember_roi = remember_roi
        self.full_every_s = full_every_s
        self._last_full: float | None = None
        self.heavy_interval_s = heavy_interval_s
        self.heavy_ms = heavy_ms
        self.clock = clock
        self._last_heavy: float | None = None
        self._roi: tuple[Strategy, tuple[int, int, int, int]] | None = None

    def decode(self, image: Any) -> DecodeResult:
        """Decode one frame (BGR or grey numpy array). Raises ``FrameError`` for a bad frame."""
        t0 = self.clock()
        frame = Frame(image)
        result = DecodeResult()
        if self.remember_roi and self._roi is not None:
            self._try_roi(frame, result)
            recent_full = self._last_full is not None and t0 - self._last_full < self.full_every_s
            if result.codes and recent_full:
                result.ms = (self.clock() - t0) * 1000
                return result
        self._last_full = t0
        sweep_left: float | None = None  # expected ms still allowed after the first good read
        heavy_ok = (self.heavy_interval_s is None or self._last_heavy is None
                    or t0 - self._last_heavy >= self.heavy_interval_s)
        for strat in self.strategies:
            expected = strat.cost_ms  # same working size whatever the camera's resolution
            if strat.cost_ms >= self.heavy_ms:
                if not heavy_ok:
                    result.over_budget = True
                    continue
                self._last_heavy = t0
            if sweep_left is not None:
                if expected > sweep_left:
                    continue
                sweep_left -= expected
            elapsed = (self.clock() - t0) * 1000
            if elapsed + expected > self.budget_ms:
                result.over_budget = True
                continue
            self._run(strat, frame, result, offset=(0, 0))
            if result.codes and sweep_left is None:
                sweep_left = self.sweep_ms
        result.ms = (self.clock() - t0) * 1000
        return result

    # -- internals -------------------------------------------------------------------------------
    def _run(self, strat: Strategy, frame: Frame, result: DecodeResult, offset: tuple[int, int],
             image: Any = None) -> None:
        s = _working_scale(strat.scale, frame)
        img = frame.image(strat.channel, s, strat.prep) if image is None else image
        result.tried.append(strat.name)
        try:
            found: list[Decoded] = self.decoders[strat.decoder](img)
        except Exception as exc:  # a decoder crash on one frame must not stop the camera
            result.errors.append(f"{strat.name} failed: {exc}")
            return
        for d in found:
            try:
                self.accept(d.text)
            except PayloadError as exc:
                result.refused[d.text[:200]] = str(exc)
                continue
            result.hits.setdefault(strat.name, []).append(d.text)
            if d.text not in result.codes:
                result.codes.append(d.text)
                pts = None
                if d.points:
                    pts = tuple((x / s + offset[0], y / s + offset[1]) for x, y in d.points)
                result.points[d.text] = pts
                if self.remember_roi and pts:
                    self._roi = (strat, _box(pts, frame.shape))

    def _try_roi(self, frame: Frame, result: DecodeResult) -> None:
        """The last hit's strategy on the last hit's region only (prepared from the crop: cheaper)."""
        assert self._roi is not None
        strat, (x0, y0, x1, y1) = self._roi
        sub = frame.bgr[y0:y1, x0:x1]
        s = _working_scale(strat.scale, frame)
        if min(sub.shape[0], sub.shape[1]) * s < 21:
            self._roi = None
            return
        img = Frame(sub).image(strat.channel, s, strat.prep)
        self._run(Strategy(strat.decoder, strat.channel, strat.scale, strat.prep, 0.0), frame, result,
                  offset=(x0, y0), image=img)
        if not result.codes:
            self._roi = None


def _working_scale(scale: float, frame: Frame) -> float:
    """``scale`` (meant for a frame 1280 pixels on its longer side) for this frame, rounded so
    preparations are shared."""
    return round(scale * REFERENCE_SIDE / max(frame.shape), 4)


def _box(points: Sequence[tuple[float, float]], shape: tuple[int, int]) -> tuple[int, int, int, int]:
    """The points' bounding box grown by half its size on each side, clipped to the frame."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    return (max(0, int(min(xs) - w / 2)), max(0, int(min(ys) - h / 2)),
            min(shape[1], int(max(xs) + w / 2)), min(shape[0], int(max(ys) + h / 2)))
