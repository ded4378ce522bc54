"""One camera's frames to codes: the change gate first, the decode pipeline only when it pays.

The rules, per frame:

* the scene changed (:class:`~kipukas_board.vision.gate.ChangeGate`): decode it at once (the cheap
  passes, and the heavy ones at most once per heavy interval while the scene keeps moving), so a
  card coming into view is read on the first frame that shows it;
* the scene is unchanged and was already decoded *completely* (a full pass that held no strategy
  back): nothing to do; the codes that pass read are still in view and are returned again, so a
  card held still stays present without any decoding;
* the scene is unchanged but not yet decoded completely (it has just settled, or the last pass
  only looked at the last card's region): one thorough pass over the whole frame, every strategy
  within the budget. A card only the heavy decoders read is read then, and a second card laid
  next to the first is found;
* the scene keeps changing and the last decode read nothing (a hand moving over the stand, a card
  only WeChat reads waved about): decode at most once per ``miss_interval_s``, since every such
  frame costs all the cheap passes. A still scene is never held back this way, so a card laid on an
  empty stand is decoded on the first frame that shows it.

* the scene is unchanged, was decoded completely and read nothing, yet it is not featureless (a
  card in sensor noise, too dim or too blurred for any decoder in one frame): the search goes on
  across frames. Each frame is aligned on the first one and added to a :class:`FrameStack`, and
  the mean is decoded when it holds one of ``stack_at`` frames (noise down by sqrt(N)): the cheap
  strategies at the first counts, the whole ladder with the heavy decoders at the last (when some
  pass located a code there: an empty textured view does not pay for them, though it does pay the
  deep ladder below, once). After the
  last count the scene is given up until it changes, so a textured view with no card costs a
  second's search, then nothing. A mean that reads nothing and shows a linear smear (a card moved
  during the exposure: the same in every frame, so the stacking cannot take it away) is decoded
  once more with the smear measured and taken back (:mod:`kipukas_board.vision.motion`, some 40 ms),
  and one with blown-out highlights with its light evened out (:mod:`kipukas_board.vision.light`).
  The mean of :data:`DEEP_AT` frames, if that still reads nothing, then gets the *deep* ladder
  (:data:`~kipukas_board.vision.pipeline.DEEP_STRATEGIES`: whole-frame passes, ZBar's at full
  working size and WeChat's at three quarters of it, that read small, dim and reflecting codes the
  rest misses, some 100 ms), on the mean with its smear taken back where it shows one; and where it
  shows one, first its grey image with the smear taken back at full size
  (:data:`~kipukas_board.vision.pipeline.UNSMEARED_STRATEGIES`, some 30-50 ms: a small code's modules
  are lost at the half size the other looks work at);
* the scene is unchanged and was read: the mean of the next ``stack_at`` count is decoded once more
  by the same ladder (its cheap strategies), for a second card held beside the first that the pass,
  stopping at its first read, left unread (a scene the search read at its last count has no next
  one, and gets no such look). The codes read already are no good read there (``known``), so the
  ladder goes on past them until another card is read or its budget is spent (once per card, some
  50 ms of cheap passes), and where it reads no other, the mean is taken back from its smear and
  glare if it shows them (behind a smear of :data:`LONG_SMEAR` pixels or more, at full size too).
  Beside cards read large (:data:`~kipukas_board.vision.pipeline.LARGE_CODE_PX`) these looks run
  only the ladder's passes at half size: a card laid beside them is seen from about as far, and
  the upscaling passes, for small codes, cost some two fifths of the look.

So a still, empty stand costs one thumbnail per frame, and a held card the same once it is read.

Example (not run as a doctest: it needs camera frames; ``tests/vision/test_vision_gate.py`` and
``test_vision_stack.py`` run it)::

    >>> reader = CameraReader(Pipeline(remember_roi=True, heavy_interval_s=1.0, isolate=True))  # doctest: +SKIP
    >>> read = reader.read(frame)                                                             # doctest: +SKIP
    >>> read.codes, read.decoded                                                              # doctest: +SKIP
    (['kpks.us/RrDC#0001?DmFz33'], True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from kipukas_board.vision.gate import ChangeGate
from kipukas_board.vision.light import even_light, glare
from kipukas_board.vision.motion import UNSMEAR_SCALE, estimate_motion, unsmear
from kipukas_board.vision.pipeline import LARGE_CODE_PX, REFERENCE_SIDE, DecodeResult
from kipukas_board.vision.stack import FrameStack

#: The stacked mean of an unread still scene is decoded at these frame counts (at 15 fps about
#: 0.3, 0.5 and 0.8 s after the scene settled; noise sigma down by 2, 2.8 and 3.5).
STACK_AT = (4, 8, 12)
#: The mean of this many stacked frames of a scene nothing has read also gets the deep ladder
#: (:data:`~kipukas_board.vision.pipeline.DEEP_STRATEGIES`), once: on the bench's camera conditions
#: it read as many codes within the first second as at every count (a later mean comes too late:
#: each costs the seat the frames it skips meanwhile), for a third of the cost on a still view with
#: no card in it, which pays it on every settle.
DEEP_AT = 8
#: A scene already read is looked at for a second card on its mean with the smear taken back at
#: full size (:data:`~kipukas_board.vision.pipeline.UNSMEARED_STRATEGIES`) only behind a smear at
#: least this long, in pixels of the frame: behind 9 px of diagonal blur (12.7 px long) the second
#: card of a two-card capture is read there and nowhere else, while behind every smear the look
#: read no more cards within a second on three noise draws under 3, 5 and 9 px of blur, and the
#: held cards' CPU rose by a fifth under 3 and 5 px (8.1-8.8 to 10.5-11.2 % of a core, and
#: 10.4-10.5 to 12.5-13.0 %).
LONG_SMEAR = 10.0


@dataclass
class FrameRead:
    """What one frame gave: its codes, and whether it was decoded (``result``) or the scene unchanged."""

    codes: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    decoded: bool = False
    changed: bool = False
    result: DecodeResult | None = None
    #: How many aligned frames the decoded image averaged (1: the frame itself).
    stacked: int = 1


class CameraReader:
    """The gate and a pipeline for one camera (one seat); not shared between threads."""

    def __init__(self, pipeline: Any, gate: ChangeGate | None = None, miss_interval_s: float = 0.2,
                 clock: Callable[[], float] = time.monotonic, stack_at: tuple[int, ...] = STACK_AT,
                 second_looks: bool = True, deep_at: int | None = None) -> None:
        self.pipeline = pipeline
        self.second_looks = second_looks
        self.deep_at = DEEP_AT if deep_at is None else deep_at
        self._deep: Any = None
        self.gate = gate or ChangeGate()
        self.miss_interval_s = miss_interval_s
        self.clock = clock
        self._codes: list[str] = []
        self._sides: dict[str, float] = {}  # each code's side where it was read (see _code_sides)
        self._done = False
        self._missed_at: float | None = None  # when a decode of a changing scene last read nothing
        self.frames = 0
        self.decoded = 0
        self.stack_at = tuple(sorted(stack_at))
        if self.stack_at and self.stack_at[0] < 2:
            # a stack holds two frames when it can first be decoded (the one it starts from and the
            # next): a smaller count is never reached, and a stack whose last count is never reached
            # is never dropped
            raise ValueError(f"stack_at {stack_at!r}: each count must be at least 2 frames (the default is "
                             f"{STACK_AT!r})")
        self._stack: FrameStack | None = None  # a still scene's frames so far
        self._first: Any = None  # the frame a stack starts from, until a second still frame comes
        self._located = False  # a decode of this unread scene located a symbol it could not read
        self._more = False  # the scene was read: its stack is looked at once, for a second card
        self._searcher: Any = None
        self._half_searcher: Any = None  # the search ladder's half-size passes, for a second card
        self._unsmeared: Any = None  # the pipeline for a mean taken back from its smear at full size
        self._smear: tuple[int, int] | None = None  # the smear measured on the last mean looked at
        self._looked: tuple[Any, Any] | None = None  # that mean and its grey image

    def read(self, frame: Any) -> FrameRead:
        """Codes in view on this frame; decodes only when the rules above say so."""
        self.frames += 1
        changed = self.gate.changed(frame)
        if changed:
            self._stack = self._first = None
        if not changed and self._done:
            if self._stack is not None or self._first is not None:
                return self._search(frame)
            return FrameRead(codes=list(self._codes))
        now = self.clock()
        if changed and self._missed_at is not None and now - self._missed_at < self.miss_interval_s:
            self._done = False  # once it settles the scene gets its thorough pass
            return FrameRead(changed=True)
        result: DecodeResult = self.pipeline.decode(frame, thorough=not changed)
        self.decoded += 1
        self._codes = list(result.codes)
        self._sides = _code_sides(result, frame)
        self._done = bool(result.complete)
        self._missed_at = now if changed and not result.codes else None
        if result.featureless or not self.stack_at:
            self._stack = self._first = None
        elif self._stack is None or not self._stack.add(frame):
            # the stack starts from this frame once the next one shows the same still view (made
            # then, so a scene that keeps changing costs no stack)
            self._stack, self._first, self._located = None, frame, False
        self._located = self._located or bool(result.located)
        self._more = bool(result.codes)
        return FrameRead(codes=list(result.codes), refused=dict(result.refused), decoded=True, changed=changed,
                         result=result)

    def _search(self, frame: Any) -> FrameRead:
        """One more frame of a still scene: stacked, and its mean decoded at the counts in
        ``stack_at`` (the heavy decoders only at the last, the deep ladder at ``deep_at``); or, for
        a scene already read, once at the next count, for a second card the pass that read it left
        unread."""
        if self._stack is None:
            self._stack, self._first = FrameStack(self._first), None
        if not self._stack.add(frame):  # moved too far for the gate to see: another view
            self._stack, self._first = None, frame
            return FrameRead(codes=list(self._codes))
        n = self._stack.count
        if n not in self.stack_at:
            return FrameRead(codes=list(self._codes))
        if self._searcher is None:
            make = getattr(self.pipeline, "searcher", None)
            self._searcher = make() if make is not None else self.pipeline
        self._smear = self._looked = None
        if self._more:
            mean = self._stack.mean()
            searcher = self._second_card_searcher()
            result = searcher.decode(mean, known=self._codes)
            self.decoded += 1
            if self.second_looks and not set(result.codes) - set(self._codes):
                result = self._second_look(self._looks(mean), thorough=False, known=self._codes,
                                           pipeline=searcher) or result
                if (not set(result.codes) - set(self._codes) and self._smear is not None
                        and math.hypot(*self._smear) >= LONG_SMEAR):
                    result = self._unsmeared_look(mean, known=self._codes) or result
            self._stack = None
            self._codes += [c for c in result.codes if c not in self._codes]
            return FrameRead(codes=list(self._codes), refused=dict(result.refused), decoded=True, result=result,
                             stacked=n)
        last = n >= self.stack_at[-1]
        # the heavy decoders' misses cost most: the last mean gets them only where some pass located a
        # code (a textured view with no card, a lamp's reflection on an empty stand, never does)
        mean = self._stack.mean()
        result = self._searcher.decode(mean, thorough=last and self._located)
        self._located = self._located or bool(result.located)
        self.decoded += 1
        looks: list[tuple[Any, float]] = []
        if not result.codes and self.second_looks:
            looks = self._looks(mean)
            result = self._second_look(looks, thorough=last and self._located) or result
        if not result.codes and n == self.deep_at and self._smear is not None:
            # before the deep ladder: a small code behind the smear is read on the full-size image
            # taken back, for a third to a half of the deep ladder's cost (30-50 ms against some 100)
            result = self._unsmeared_look(mean) or result
        if not result.codes and n == self.deep_at:
            if self._deep is None:
                make = getattr(self.pipeline, "deep", None)
                self._deep = make() if make is not None else None
            if self._deep is not None:
                # a smear is taken back first (every decoder misses a smeared code); a reflection is
                # not: the deep ladder's own equalisation suits it better than the evened light
                image, scale = looks[0] if looks and looks[0][1] == UNSMEAR_SCALE else (mean, 1.0)
                result = self._decode_look(self._deep, image, scale, thorough=True)
        if last:
            self._stack = None
        elif result.codes:
            # read at last: the stack goes on, and its mean at the next count is looked at once more
            # for a second card (the pass that read this one stopped at its first read)
            self._more = True
        self._codes = list(result.codes)
        self._sides = _code_sides(result, mean)
        return FrameRead(codes=list(result.codes), refused=dict(result.refused), decoded=True, result=result,
                         stacked=n)

    def _second_card_searcher(self) -> Any:
        """The ladder for the look for a second card: the search ladder; only its passes at half
        size or less where every card read is large (:data:`~kipukas_board.vision.pipeline.LARGE_CODE_PX`):
        a card laid beside it on the stand is seen from about as far, so as large, and the upscaling
        passes, some two fifths of the look's cost, are there for small codes."""
        if not self._codes or any(self._sides.get(c, 0.0) < LARGE_CODE_PX for c in self._codes):
            return self._searcher
        if self._half_searcher is None:
            make = getattr(self._searcher, "up_to_scale", None)
            self._half_searcher = make(0.5) if make is not None else self._searcher
        return self._half_searcher

    def _looks(self, mean: Any) -> list[tuple[Any, float]]:
        """The mean with what the camera did taken back, as (image, its scale to the frame): its
        linear smear (at half size: :mod:`~kipukas_board.vision.motion`) where it shows one, its light
        evened out (:func:`~kipukas_board.vision.light.even_light`) where it shows glare; none
        where it shows neither."""
        import cv2

        grey = cv2.cvtColor(mean, cv2.COLOR_BGR2GRAY) if mean.ndim == 3 else mean
        self._looked = (mean, grey)
        motion = self._smear = estimate_motion(grey)
        looks: list[tuple[Any, float]] = []
        if motion is not None:
            looks.append((unsmear(mean, motion), UNSMEAR_SCALE))
        if glare(grey):
            looks.append((even_light(mean), 1.0))
        return looks

    def _unsmeared_look(self, mean: Any, known: Collection[str] = ()) -> DecodeResult | None:
        """The mean's grey image with its smear (measured by the last :meth:`_looks`) taken back at
        full size, decoded by :data:`~kipukas_board.vision.pipeline.UNSMEARED_STRATEGIES`; None for a
        pipeline without that ladder (or without its decoders). Some 30-50 ms at 1280x720 on the
        development machine (the deconvolution about 20, the two passes 10-30), paid at most twice
        per still scene that shows a smear: unread at :data:`DEEP_AT` frames, and read, in the look
        for a second card behind a smear of :data:`LONG_SMEAR` or more."""
        import cv2

        if self._unsmeared is None:
            make = getattr(self.pipeline, "unsmeared", None)
            self._unsmeared = (make() if make is not None else None) or False
        if not self._unsmeared or self._smear is None:
            return None
        if self._looked is not None and self._looked[0] is mean:
            grey = self._looked[1]  # made by the look that measured the smear
        else:
            grey = cv2.cvtColor(mean, cv2.COLOR_BGR2GRAY) if mean.ndim == 3 else mean
        return self._decode_look(self._unsmeared, unsmear(grey, self._smear, scale=1.0), 1.0, thorough=True,
                                 known=known)

    def _second_look(self, looks: list[tuple[Any, float]], thorough: bool,
                     known: Collection[str] = (), pipeline: Any = None) -> DecodeResult | None:
        """Each of ``looks`` decoded by the search ladder (or ``pipeline``): the first that reads a
        code not ``known``, else the last one made; None when there are none."""
        result: DecodeResult | None = None
        for image, scale in looks:
            result = self._decode_look(pipeline or self._searcher, image, scale, thorough, known)
            if set(result.codes) - set(known):
                break
        return result

    def _decode_look(self, pipeline: Any, image: Any, scale: float, thorough: bool,
                     known: Collection[str] = ()) -> DecodeResult:
        """``image`` (the mean, or a look at ``scale`` of it) decoded by ``pipeline``, its points
        given in frame pixels."""
        result: DecodeResult = pipeline.decode(image, thorough=thorough, known=known)
        self.decoded += 1
        if scale != 1.0:
            result.points = {t: None if pts is None else tuple((x / scale, y / scale) for x, y in pts)
                             for t, pts in result.points.items()}
            result.located = [tuple((x / scale, y / scale) for x, y in pts) for pts in result.located]
        return result

    def close(self) -> None:
        close = getattr(self.pipeline, "close", None)
        if close is not None:
            close()


def _code_sides(result: DecodeResult, frame: Any) -> dict[str, float]:
    """The longest side of each code ``result`` read with its corners, in pixels of a frame
    :data:`~kipukas_board.vision.pipeline.REFERENCE_SIDE` pixels long (``frame``: the image whose
    pixels the corners are in)."""
    corners = {code: pts for code, pts in result.points.items() if pts}
    if not corners:
        return {}
    to_reference = REFERENCE_SIDE / max(frame.shape[:2])
    return {code: to_reference * max(math.dist(pts[i], pts[i - 1]) for i in range(len(pts)))
            for code, pts in corners.items()}
