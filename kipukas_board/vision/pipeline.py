"""The decode pipeline: cheap strategies first, stop at the first good read, never past the budget.

A *strategy* is one decoder on one preparation of the frame (channel, scale, filter; see
:mod:`kipukas_board.vision.preprocess`). No single strategy reads every camouflaged Kipukas code,
but different ones fail on different frames, so the pipeline tries them in the order of their
measured yield per millisecond (``kipukas-board bench-qr DIR --truth truth.json --strategies``
prints that measurement) and stops:

* once a strategy gave at least one valid Kipukas payload (a decoder that reads one card of two
  in view nearly always reads both) that the caller did not name as ``known`` (a look for a second
  card names the codes it has: reading one of them again is no good read); or
* before a strategy whose expected cost would take the frame past ``budget_ms``.

Only a *thorough* pass (below) may go on after the first good read with the following strategies
whose expected costs fit in ``sweep_ms``, to catch a second card that only another decoder reads.
It is off (0 ms) by default: measured on the captures, a 4 or 12 ms sweep found no code the first
read had not, for 2.3x and 5.7x the median cost.

The budget is planned in CPU milliseconds and enforced in CPU time, never in wall time, so a
machine busy with other work gives a frame the same passes as an idle one and reads the same
codes; only the frame's wall time grows:

* **Planned.** A strategy runs only if the expected costs (``cost_ms``, measured on the development
  machine) of the strategies run so far plus its own fit in ``budget_ms``. Which strategies a frame
  gets therefore does not depend on how long anything took.
* **Enforced.** The CPU time actually spent (the decoding thread's own, ``time.thread_time``, plus
  a worker process's for it) may exceed the plan by ``slack`` times at most: past that the frame
  stops, and a decoder in a worker process (:mod:`kipukas_board.vision.isolated`; WeChat, whose
  misses run for hundreds of milliseconds, seconds on sensor noise) is killed once it has used
  ``slack`` times the budget its plan left it (which ends the frame: it has used its share and
  more). A frame never costs much more than
  ``slack * budget_ms`` of CPU, and a machine up to ``slack`` times slower or busier than planned
  still reads what the plan reads.

A frame that ran out of budget says so (``over_budget``; ``skipped`` names the strategies it lost,
``interrupted`` the decoder stopped at its deadline); a featureless frame (below) lost none, as it
needed none.

Only text that decoded *and* validates as a Kipukas payload is returned; everything else is
listed in ``refused`` with the reason (a decoder's output is never corrected or guessed at).

A *located* strategy (``Strategy(..., located=True)``) runs only on the regions where an earlier
zxing pass located a symbol it could not decode (see :func:`_regions`): a small code is found at
full size but read only upscaled, and upscaling its region alone costs a tenth of upscaling the
frame. With nothing located it costs nothing.

On a camera (``remember_roi=True``) the pipeline also remembers where the last code was and first
tries the strategy that read it on that region alone, which is several times cheaper while a card
is held still (on a small code's region the located strategies too, when that one misses); a
region that misses is given one more frame before a whole-frame search (``roi_misses``), and a full
pass still runs every ``full_every_s`` so a second card is not missed. A featureless frame (an
empty stand) forgets the region: the next card is elsewhere, and the decoder that read the last
one may be a slow miss on it. A region miss that used the frame's whole budget ends the frame
without counting as a full pass, so the next frame searches the whole frame.
While a scene keeps changing (a hand moving, a card coming in), ``heavy_interval_s`` lets the heavy
strategies (expected cost of ``heavy_ms`` or more) run at most once per that interval per camera,
and not at all within that interval of a read by a cheap strategy (the card is still there; a frame
of it that missed was noise);
``decode(frame, thorough=True)`` runs a full pass with every strategy whatever the interval: the
camera reader (:mod:`kipukas_board.vision.reader`) asks for one when a
scene settles before it was decoded completely, after which the scene costs nothing until it
changes. A result is ``complete`` when it came from a full pass that held no strategy back, so decoding the same
scene again would give nothing new (a pass cut short by the budget is complete: with the budget
planned, the same scene would be cut short the same way).

Example::

    >>> import cv2
    >>> from kipukas_board.vision.pipeline import Pipeline
    >>> result = Pipeline().decode(cv2.imread("capture.jpg"))     # doctest: +SKIP
    >>> result.codes, round(result.ms)                            # doctest: +SKIP
    (['kpks.us/RrDC#0001?DmFz33'], 3)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from kipukas_board.cards.payload import PayloadError, parse_payload
from kipukas_board.install_hints import extra_hint
from kipukas_board.vision.decoders import Decoded, DecoderTimeout, available_decoders
from kipukas_board.vision.preprocess import Frame

#: Frame size (longer side) the strategies' scales and expected costs refer to. A strategy's
#: ``scale`` is applied to a frame whose longer side is 1280 pixels; other frames are scaled to the
#: same working size (a 640x360 frame gets ``scale * 2``), so the code's module size in the working
#: image, which is what decides whether a decoder reads it, does not depend on the camera's
#: resolution or orientation.
REFERENCE_SIDE = 1280


#: Decoders whose misses can run long; ``Pipeline(isolate=True)`` runs them in a worker process
#: that is killed at the frame's deadline.
ISOLATED_DECODERS = ("wechat",)


@dataclass(frozen=True)
class Strategy:
    """One decoder on one preparation. ``cost_ms`` is its typical time on a 1280x720 frame.

    A ``located`` strategy does not look at the whole frame: it runs on each region where an earlier
    pass located a symbol it could not decode (at most :data:`MAX_REGIONS` a frame, ``cost_ms`` each),
    and not at all when none was located.
    """

    decoder: str
    channel: str
    scale: float
    prep: str
    cost_ms: float
    located: bool = False

    @property
    def name(self) -> str:
        return f"{self.decoder}@{self.scale:g}/{self.channel}/{self.prep}" + ("/located" if self.located else "")


#: Ordered greedily by measured yield per CPU millisecond on real camouflaged captures (each next
#: strategy is the one reading the most codes the earlier ones missed, per ms of the decoding
#: thread's CPU; see docs/explanation/card-scanning.md and ``bench-qr --strategies``): zxing on half-size
#: CLAHE and sharpened images first (about 1 ms each; the blue channel sharpened twice comes
#: second, measured on the captures under the robustness bench's camera conditions: after the
#: first it reads the most frames the first misses (44-47 of 680 frames over two draws, about half
#: of them smeared by motion), for the least time: no CLAHE), ZBar (a different binariser that reads other
#: frames, and both cards of a capture that zxing reads one of: so it comes before the full-size
#: zxing passes for smaller codes, which the greedy order put first), ZBar again on the regions
#: where a zxing pass located a symbol it could not read (a small code: 4-pixel modules at 1280x720
#: are located at full size but read only upscaled, and upscaling the whole frame costs ten times
#: more), and WeChat's multi-binariser reader last because its misses are slow. ZBar at 0.75 and
#: WeChat at full size, measured too, read nothing the earlier strategies left for them.
#: ``cost_ms`` is the typical CPU time, preparation included, measured on this project's
#: development machine; the budget plans with it.
DEFAULT_STRATEGIES: tuple[Strategy, ...] = (
    Strategy("zxing", "gray", 0.5, "clahe_sharp", 1.6),
    Strategy("zxing", "blue", 0.5, "strong", 1.1),
    Strategy("zxing", "gray", 0.5, "strong", 1.0),
    Strategy("zxing", "blue", 0.5, "clahe", 1.4),
    Strategy("zxing", "blue", 0.5, "clahe_sharp", 1.6),
    Strategy("pyzbar", "blue", 0.5, "none", 8.0),
    Strategy("zxing", "gray", 1.0, "clahe_sharp", 4.5),
    Strategy("zxing", "gray", 1.0, "clahe", 3.5),
    Strategy("pyzbar", "blue", 1.0, "none", 4.0, located=True),
    Strategy("zxing", "min", 1.5, "clahe_sharp", 3.0, located=True),
    Strategy("wechat", "gray", 0.75, "strong", 15.0),
)

#: The rest of the ladder for a code still unread after the default one, tried on the stacked mean
#: of a still scene's frames (:mod:`kipukas_board.vision.reader`) before the heavy decoders: the
#: red channel and ZBar on grey read some textured codes the default channels miss, and a small
#: code whose noise the stacking took away is read upscaled 1.5 times and sharpened, on its located
#: region or, failing a location, on the whole frame.
SEARCH_STRATEGIES: tuple[Strategy, ...] = (
    Strategy("zxing", "red", 0.5, "sharp", 1.3),
    Strategy("pyzbar", "gray", 0.5, "none", 8.0),
    Strategy("zxing", "gray", 1.5, "sharp", 3.0, located=True),
    Strategy("zxing", "blue", 1.5, "sharp", 3.0, located=True),
    Strategy("zxing", "gray", 1.5, "sharp", 9.0),
)

#: The very last of the search's ladder, after the heavy decoders: a wide, six-fold unsharp mask
#: (``deblur``) reads some codes smeared by a card moving during the exposure (on the captures with
#: 9 px of motion blur, a third of those nothing else read). Motion blur is the same in every frame,
#: so the first stacked means, where the heavy decoders are held back, suit them as well as the last.
DEBLUR_STRATEGIES: tuple[Strategy, ...] = (
    Strategy("zxing", "gray", 1.0, "deblur", 5.0),
    Strategy("pyzbar", "gray", 0.5, "deblur", 8.0),
)

#: The deep ladder: what a still scene's stacked mean gets when the whole search ladder above read
#: nothing on it, once, when its noise is down (the mean of :data:`~kipukas_board.vision.reader.DEEP_AT`
#: frames). Each is a whole-frame pass (ZBar's at full working size, WeChat's at three quarters of
#: it), 20-30 ms, that no earlier strategy covers and that reads codes the rest of the ladder misses
#: on the stacked means of the captures under the bench's camera conditions: ZBar on the darkest
#: channel sharpened twice (a small code at half resolution, a card dimmed a stop), on the blue
#: channel as it is (a motion-smeared code once the smear is taken back), and on grey with the wide
#: unsharp mask; and WeChat on the darkest channel, equalised and sharpened (a code under a lamp's
#: reflection).
DEEP_STRATEGIES: tuple[Strategy, ...] = (
    Strategy("pyzbar", "min", 1.0, "strong", 21.0),
    Strategy("pyzbar", "blue", 1.0, "none", 20.0),
    Strategy("wechat", "min", 0.75, "clahe_sharp", 30.0),
    Strategy("pyzbar", "gray", 1.0, "deblur", 25.0),
)

#: The ladder for a still scene's mean smeared along a line, with the smear taken back at full
#: size (:mod:`~kipukas_board.vision.motion` works at half size for the search's looks: cheaper, and
#: enough for large codes): a small code's modules, 4 to 8 pixels at 1280x720, are lost at half
#: size, so a long smear over them is taken back on the full-size grey image, and that image
#: upscaled. Measured on the 8-frame means of the codes the loop still missed under the robustness
#: bench's 5 and 9 px motion blur (21 capture-draws over three noise draws), every zxing
#: preparation of every channel at 1, 1.5 and 2 times and ZBar at 1: some pass read the code on 15
#: of them, zxing's on the grey channel on 9, of which upscaled 1.5 times and sharpened twice reads
#: the most (9 ms), and upscaled twice and sharpened once the most of the rest. The blue and green
#: channels read a few others on their own, but with all three channels taken back and two passes
#: on them added, the loop read no more cards within a second (34 of 36 under 9 px of blur on each
#: of three draws, as with grey alone) for more CPU.
UNSMEARED_STRATEGIES: tuple[Strategy, ...] = (
    Strategy("zxing", "gray", 1.5, "strong", 9.0),
    Strategy("zxing", "gray", 2.0, "sharp", 19.0),
)

#: A code at least this many pixels on its side in a frame :data:`REFERENCE_SIDE` pixels long
#: (modules of 6 pixels or more: a Kipukas code is 29 modules wide) is read at half size: the passes
#: at full working size and above are there for smaller codes.
LARGE_CODE_PX = 180.0

#: A located region is looked at this many times the located symbol's size, centred on it: a symbol
#: that was located but not decoded is often a wrong pairing of finder patterns, which can lie
#: anywhere within about one code's width of the real code.
REGION_GROW = 4.0
#: At most this many located regions are decoded a frame (the largest first).
MAX_REGIONS = 2
#: A region larger than this share of the frame is no region: the whole-frame passes covered it.
MAX_REGION_SHARE = 0.25
#: On a camera, a remembered code's region up to this share of the frame (a small code) is also
#: retried with the located strategies when its own strategy misses there; a larger one is not (a
#: large code needs no upscaling, and upscaling its region costs as much as a whole-frame pass).
SMALL_REGION_SHARE = 0.125


@dataclass
class DecodeResult:
    """What one frame gave: valid Kipukas payloads, refused texts with reasons, time and strategies.

    ``ms`` is wall time; ``cpu_ms`` the CPU time the frame cost (the decoding thread's plus a worker
    process's), which is what the budget counts. ``over_budget`` says the budget cut the frame short
    (``skipped`` names the strategies it lost, ``interrupted`` the one stopped at its deadline);
    ``held_back`` names heavy strategies left for a later frame by ``heavy_interval_s``.
    """

    codes: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    ms: float = 0.0
    cpu_ms: float = 0.0
    tried: list[str] = field(default_factory=list)
    hits: dict[str, list[str]] = field(default_factory=dict)
    points: dict[str, tuple[tuple[float, float], ...] | None] = field(default_factory=dict)
    over_budget: bool = False
    skipped: list[str] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)
    held_back: list[str] = field(default_factory=list)
    complete: bool = False
    #: Symbols located but not decoded so far (corner points in frame pixels), for ``located`` strategies.
    located: list[tuple[tuple[float, float], ...]] = field(default_factory=list)
    #: The frame was too flat to hold a code (no strategy ran): an empty stand, a covered lens.
    featureless: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"codes": self.codes, "ms": round(self.ms, 2), "cpu_ms": round(self.cpu_ms, 2),
                "refused": self.refused, "errors": self.errors, "tried": self.tried, "hits": self.hits,
                "over_budget": self.over_budget, "skipped": self.skipped, "interrupted": self.interrupted}

    def hold_back(self, name: str) -> None:
        """Name a heavy strategy left for a later frame, once: a located one may wait both on the
        remembered region and on the whole frame's located symbols in the same frame."""
        if name not in self.held_back:
            self.held_back.append(name)

    def budget_note(self) -> str | None:
        """A word for people when the budget cut this frame short, else None."""
        if not self.over_budget:
            return None
        lost = self.interrupted + self.skipped
        return (f"ran out of its CPU budget: {len(lost)} strateg{'y' if len(lost) == 1 else 'ies'} "
                f"not finished ({', '.join(lost)}); a larger --budget-ms may read more")


class Pipeline:
    """Multi-strategy QR decoding under a per-frame CPU budget (planned, and enforced up to ``slack``).

    ``strategies`` default to :data:`DEFAULT_STRATEGIES` (those whose decoder is not installed are
    dropped); ``decoders`` maps names to callables (tests inject fakes); with ``isolate`` the
    decoders named in :data:`ISOLATED_DECODERS` run in a worker process of this pipeline's own,
    killed at the frame's deadline. ``clock`` (seconds, wall) paces the camera intervals;
    ``cpu_clock`` (seconds of this thread's CPU) counts the budget. Call :meth:`close` to end the
    worker process.
    """

    def __init__(self, strategies: Sequence[Strategy] | None = None, budget_ms: float = 80.0,
                 sweep_ms: float = 0.0, decoders: dict[str, Any] | None = None,
                 remember_roi: bool = False, full_every_s: float = 0.5,
                 heavy_interval_s: float | None = None, heavy_ms: float = 10.0,
                 clock: Callable[[], float] = time.perf_counter,
                 cpu_clock: Callable[[], float] = time.thread_time, isolate: bool = False,
                 slack: float = 2.0, accept: Callable[[str], Any] | None = None, roi_misses: int = 2) -> None:
        # accept(text) raises PayloadError for a text that is no card (default: Kipukas cards only;
        # the card desk also accepts the game modes' sticker payloads).
        self.accept = accept or parse_payload
        if decoders is None:
            decoders = available_decoders()
            if isolate:
                from kipukas_board.vision.isolated import IsolatedDecoder

                decoders.update({n: IsolatedDecoder(n) for n in ISOLATED_DECODERS if n in decoders})
        self.decoders = decoders
        if not self.decoders:
            raise RuntimeError(f"no QR decoder is installed: {extra_hint('vision')}; on a Pi, "
                               "sudo scripts/install-pi")
        chosen = DEFAULT_STRATEGIES if strategies is None else tuple(strategies)
        self.strategies = tuple(s for s in chosen if s.decoder in self.decoders)
        self.budget_ms = budget_ms
        self.slack = slack
        self.sweep_ms = sweep_ms
        self.remember_roi = remember_roi
        self.full_every_s = full_every_s
        self._last_full: float | None = None
        self.heavy_interval_s = heavy_interval_s
        self.heavy_ms = heavy_ms
        self.clock = clock
        self.cpu_clock = cpu_clock
        self._last_heavy: float | None = None
        self._roi: tuple[Strategy, tuple[int, int, int, int]] | None = None
        self.roi_misses = roi_misses
        self._cheap_read_at: float | None = None  # when a strategy below heavy_ms last read a code
        self._now = 0.0
        self._roi_missed = 0

    def searcher(self) -> Pipeline:
        """A pipeline for the search across frames of a code this one has not read: this one's
        strategies with :data:`SEARCH_STRATEGIES` before the heavy ones and :data:`DEBLUR_STRATEGIES`
        after them, the same decoders (and worker
        process), budget and payload check, no camera state; its heavy decoders run only in a
        ``thorough`` pass."""
        light = [s for s in self.strategies if s.cost_ms < self.heavy_ms]
        heavy = [s for s in self.strategies if s.cost_ms >= self.heavy_ms]
        extra = [s for s in SEARCH_STRATEGIES if s.decoder in self.decoders and s not in light]
        late = [s for s in DEBLUR_STRATEGIES if s.decoder in self.decoders]
        return self._sibling(light + extra + heavy + late, self.budget_ms, heavy_interval_s=float("inf"))

    def up_to_scale(self, scale: float) -> Pipeline:
        """A pipeline of this one's strategies that work at ``scale`` or less, and its ``located``
        ones (they run only on a located symbol's region, for a few ms): the same decoders (and
        worker process), budget, heavy interval and payload check, no camera state. For a look
        whose code needs no upscaling (:data:`LARGE_CODE_PX`), which the passes at full working
        size and more cost for nothing."""
        return self._sibling([s for s in self.strategies if s.scale <= scale or s.located], self.budget_ms,
                             heavy_interval_s=self.heavy_interval_s)

    def deep(self) -> Pipeline:
        """A pipeline of :data:`DEEP_STRATEGIES` (those whose decoder is here) for a still scene the
        search ladder has not read: the same decoders (and worker process) and payload check, no
        camera state; every strategy may run (the caller decides when the scene is worth it), so its
        budget is the ladder's whole expected cost where that is more than this one's (the four
        plan 96 ms, more than the default 80)."""
        ladder = [s for s in DEEP_STRATEGIES if s.decoder in self.decoders]
        budget = max(self.budget_ms, sum(s.cost_ms for s in ladder))
        return self._sibling(ladder, budget)

    def unsmeared(self) -> Pipeline | None:
        """A pipeline of :data:`UNSMEARED_STRATEGIES` (those whose decoder is here) for a mean whose
        smear was taken back at full size: the same decoders and payload check, no camera state;
        every strategy may run. None where none of their decoders is here: the image is not worth
        its deconvolution then."""
        ladder = [s for s in UNSMEARED_STRATEGIES if s.decoder in self.decoders]
        if not ladder:
            return None
        return self._sibling(ladder, max(self.budget_ms, sum(s.cost_ms for s in ladder)))

    def _sibling(self, strategies: Sequence[Strategy], budget_ms: float,
                 heavy_interval_s: float | None = None) -> Pipeline:
        """A pipeline of ``strategies`` sharing this one's decoders (and worker process), payload
        check, clocks and slack, with no camera state of its own."""
        return Pipeline(strategies=strategies, budget_ms=budget_ms, decoders=self.decoders,
                        heavy_interval_s=heavy_interval_s, heavy_ms=self.heavy_ms, clock=self.clock,
                        cpu_clock=self.cpu_clock, slack=self.slack, accept=self.accept)

    def warm_up(self) -> None:
        """Wait until the isolated decoders' worker processes can take images."""
        for dec in self.decoders.values():
            ready = getattr(dec, "ready", None)
            if ready is not None:
                ready()

    def worker_cpu_ms(self) -> float:
        """CPU time the isolated decoders' worker processes have used so far, in ms."""
        return sum(dec.cpu_ms() for dec in self.decoders.values() if hasattr(dec, "cpu_ms"))

    def close(self) -> None:
        """End the worker processes of isolated decoders (a later decode starts them again)."""
        for dec in self.decoders.values():
            close = getattr(dec, "close", None)
            if close is not None:
                close()

    def decode(self, image: Any, thorough: bool = False, known: Collection[str] = ()) -> DecodeResult:
        """Decode one frame (BGR or grey numpy array). Raises ``FrameError`` for a bad frame.

        ``thorough`` runs a full pass in which every strategy may run, whatever the region of
        interest and the heavy interval say (and with the second-card sweep, if ``sweep_ms`` is set).
        ``known`` codes (read already, on an earlier frame) are returned when read again but are no
        good read: the ladder goes on until it reads another (the look for a second card).
        """
        t0 = self._now = self.clock()
        c0 = self.cpu_clock()
        frame = Frame(image)
        result = DecodeResult()
        extra = [0.0]  # CPU ms spent for this frame in worker processes

        def spent() -> float:
            return (self.cpu_clock() - c0) * 1000 + extra[0]

        def finish() -> DecodeResult:
            result.ms = (self.clock() - t0) * 1000
            result.cpu_ms = spent()
            return result

        looked: list[bool] = []  # the look's answer, once it was taken

        def flat() -> bool:
            """Is this frame featureless? Looked at once, when a frame that has read nothing so far
            is about to pay more than one cheap strategy: a read shows a code, and on most frames with
            a card the first cheap strategy reads it, so they never pay for the look. Asked again, it
            gives the same answer."""
            if looked:
                return looked[0]
            if result.codes or result.refused:
                return False
            looked.append(_featureless(frame))
            if not looked[0]:
                return False
            # no dark and light modules anywhere (a covered lens, a dark room, a bare wall): nothing
            # more is worth a look, and no card is in view, so the last card's region and its
            # recent read are forgotten (the next card is somewhere else, and the decoder that
            # read the last one may not read it)
            self._forget_card()
            result.complete = result.featureless = True
            # no strategy was needed, so none the budget left out was lost; a decoder stopped at its
            # deadline did run out of it
            result.skipped.clear()
            result.over_budget = bool(result.interrupted)
            return True

        interval = self.heavy_interval_s
        # an infinite interval keeps the heavy strategies for thorough passes only
        interval_over = interval is not None and (
            (self._last_heavy is None and interval != float("inf"))
            or (self._last_heavy is not None and t0 - self._last_heavy >= interval))
        heavy_ok = (thorough or interval is None
                    or (interval_over
                        # a card the cheap passes read a moment ago is still there: a miss now is
                        # the noise of a hand-held frame, which a heavy pass would pay dearly for
                        and (self._cheap_read_at is None or t0 - self._cheap_read_at >= interval)))
        if self.remember_roi and self._roi is not None:
            recent_full = self._last_full is not None and t0 - self._last_full < self.full_every_s
            roi_strategy = self._roi[0]
            if roi_strategy.cost_ms >= self.heavy_ms and not heavy_ok:
                # a card only a heavy decoder reads: its region waits for the heavy interval too
                # (the scan session keeps the card meanwhile), and so does the full pass
                if flat():
                    return finish()
                if recent_full and not thorough:
                    result.hold_back(roi_strategy.name)
                    return finish()
            else:
                if roi_strategy.cost_ms >= self.heavy_ms:
                    if flat():
                        return finish()
                    self._last_heavy = t0
                self._try_roi(frame, result, extra, flat, heavy_ok)
                if flat():
                    return finish()
                new = set(result.codes) - set(known)  # a known code read there is no good read
                if not new and (result.interrupted or spent() > self.budget_ms * self.slack):
                    # the region's decoder missed and used the frame's whole budget (WeChat on a
                    # region where the card is no more): the whole-frame search is left to the
                    # next frame, so this frame is no full pass, and the scene not decoded completely
                    result.over_budget = True
                    return finish()
                if recent_full and not thorough and (new or (not result.codes and self._roi is not None)):
                    # read there; or missed there once, and the card is given another frame
                    # before the whole frame is searched again (a known code read there is
                    # neither: the whole frame is searched for another)
                    return finish()
        self._last_full = t0
        budget = self.budget_ms
        sweep_left: float | None = None  # expected ms still allowed after the first good read
        planned = 0.0  # expected CPU ms of the strategies run so far
        for strat in self.strategies:
            if (result.tried or strat.cost_ms >= self.heavy_ms) and flat():
                return finish()
            regions: list[tuple[int, int, int, int]] = []
            if strat.located:
                regions = _regions(result.located, frame.shape) if not set(result.codes) - set(known) else []
                if not regions:
                    continue
            expected = strat.cost_ms * max(1, len(regions))  # same working size whatever the camera's resolution
            if sweep_left is not None:
                if expected > sweep_left:
                    continue
                sweep_left -= expected
            if strat.cost_ms >= self.heavy_ms:
                if not heavy_ok:
                    result.hold_back(strat.name)
                    continue
                self._last_heavy = t0
            left = budget - planned
            if expected > left or spent() > budget * self.slack or result.interrupted:
                result.over_budget = True
                result.skipped.append(strat.name)
                continue
            planned += expected
            if strat.located:
                for x0, y0, x1, y1 in regions:
                    sub = Frame(frame.bgr[y0:y1, x0:x1]).image(strat.channel, _working_scale(strat.scale, frame),
                                                              strat.prep, detail=strat.scale)
                    self._run(strat, frame, result, offset=(x0, y0), extra=extra, deadline_ms=left * self.slack,
                              image=sub)
                    if set(result.codes) - set(known):
                        break
            else:
                self._run(strat, frame, result, offset=(0, 0), extra=extra, deadline_ms=left * self.slack)
            if set(result.codes) - set(known) and sweep_left is None:
                if not thorough:
                    break
                sweep_left = self.sweep_ms
        if flat():
            return finish()
        result.complete = not result.held_back
        return finish()

    # -- internals -------------------------------------------------------------------------------
    def _forget_card(self) -> None:
        """No card in view: drop the state kept for the card that was (its region, its misses there,
        when the cheap passes last read it)."""
        self._roi = None
        self._roi_missed = 0
        self._cheap_read_at = None

    def _run(self, strat: Strategy, frame: Frame, result: DecodeResult, offset: tuple[int, int],
             extra: list[float], deadline_ms: float | None = None, image: Any = None) -> None:
        s = _working_scale(strat.scale, frame)
        img = frame.image(strat.channel, s, strat.prep, detail=strat.scale) if image is None else image
        result.tried.append(strat.name)
        dec = self.decoders[strat.decoder]
        try:
            if getattr(dec, "interruptible", False):
                try:
                    found: list[Decoded] = dec(img, deadline_ms=deadline_ms)
                finally:
                    extra[0] += dec.last_cpu_ms
            else:
                found = dec(img)
        except DecoderTimeout:
            result.over_budget = True
            result.interrupted.append(strat.name)
            return
        except Exception as exc:  # a decoder crash on one frame must not stop the camera
            result.errors.append(f"{strat.name} failed: {exc}")
            return
        for d in found:
            if d.located:
                if d.points:
                    result.located.append(tuple((x / s + offset[0], y / s + offset[1]) for x, y in d.points))
                continue
            try:
                self.accept(d.text)
            except PayloadError as exc:
                result.refused[d.text[:200]] = str(exc)
                continue
            result.hits.setdefault(strat.name, []).append(d.text)
            if strat.cost_ms < self.heavy_ms:
                self._cheap_read_at = self._now
            if d.text not in result.codes:
                result.codes.append(d.text)
                pts = None
                if d.points:
                    pts = tuple((x / s + offset[0], y / s + offset[1]) for x, y in d.points)
                result.points[d.text] = pts
                if self.remember_roi and pts:
                    self._roi = (strat, _box(pts, frame.shape))

    def _try_roi(self, frame: Frame, result: DecodeResult, extra: list[float],
                 flat: Callable[[], bool] = lambda: False, heavy_ok: bool = True) -> None:
        """The last hit's strategy on the last hit's region only (prepared from the crop: cheaper);
        if it misses, the ``located`` strategies on that region (a hand-held card in sensor noise
        is read by one or another on most frames, for a few ms), unless ``flat()`` says the frame
        is featureless (the card is gone: ``flat`` forgets it). A heavy one among them runs only when
        ``heavy_ok`` (the heavy interval, as in the whole-frame pass; the caller decides for the
        region's own strategy). The region is forgotten after ``roi_misses`` frames in a row that
        read nothing there."""
        assert self._roi is not None
        strat, (x0, y0, x1, y1) = self._roi
        sub = Frame(frame.bgr[y0:y1, x0:x1])
        ladder = [strat]
        if (x1 - x0) * (y1 - y0) <= SMALL_REGION_SHARE * frame.shape[0] * frame.shape[1]:
            # a small code: the located strategies upscale, cheap on its small region only
            ladder += [t for t in self.strategies if t.located and t != strat]
        for t in ladder:
            heavy = t is not strat and t.cost_ms >= self.heavy_ms
            if (result.tried or heavy) and flat():
                return
            s = _working_scale(t.scale, frame)
            if min(sub.shape) * s < 21:
                continue
            if heavy:
                if not heavy_ok:
                    result.hold_back(t.name)
                    continue
                self._last_heavy = self._now
            self._run(t, frame, result, offset=(x0, y0), extra=extra, deadline_ms=self.budget_ms * self.slack,
                      image=sub.image(t.channel, s, t.prep, detail=t.scale))
            if result.codes:
                self._roi_missed = 0
                return
        self._roi_missed += 1
        if self._roi_missed >= self.roi_misses:
            self._roi = None
            self._roi_missed = 0


#: A frame whose half-size grey image, smoothed over 3x3 pixels, departs from its own neighbourhood
#: mean (over :data:`FEATURELESS_AREA` pixels) by a span of fewer grey levels than this holds no
#: code: a Kipukas code's dark and light modules differ by some 140 levels in good light and 35 at
#: a quarter of that contrast, while sensor noise of sigma 4 spans about 9 once smoothed. Such a
#: frame (a covered lens, a dark room, a bare wall, a lamp's smooth reflection on an empty stand)
#: skips every strategy after the first cheap one (a frame that one reads shows a code, so the
#: look is spared on most frames with a card): WeChat would spend its whole deadline on it.
FEATURELESS_RANGE = 16.0
#: The neighbourhood (pixels of the half-size image, about four modules of a large code) whose mean
#: is taken away first, so slow changes of light (a bright spot, a vignette) are no features.
FEATURELESS_AREA = 33


def _featureless(frame: Frame) -> bool:
    """Too flat to hold a code? Costs a quarter of a millisecond at 1280x720 (the half-size grey
    image is shared with the first strategies)."""
    import cv2
    import numpy as np

    img = frame.scaled("gray", _working_scale(0.5, frame))
    detail = cv2.blur(img, (3, 3)).astype(np.int16) - cv2.blur(img, (FEATURELESS_AREA, FEATURELESS_AREA))
    lo, hi, _, _ = cv2.minMaxLoc(detail)
    return hi - lo < FEATURELESS_RANGE


def _working_scale(scale: float, frame: Frame) -> float:
    """``scale`` (meant for a frame 1280 pixels on its longer side) for this frame, rounded so
    preparations are shared."""
    return round(scale * REFERENCE_SIDE / max(frame.shape), 4)


def _regions(located: Sequence[Sequence[tuple[float, float]]],
             shape: tuple[int, int]) -> list[tuple[int, int, int, int]]:
    """Squares (x0, y0, x1, y1) to look at again for the symbols located but not decoded: each
    :data:`REGION_GROW` times the symbol's size around its centre, clipped to the frame; the largest
    first, none larger than :data:`MAX_REGION_SHARE` of the frame, none whose centre is in one taken
    already, at most :data:`MAX_REGIONS`."""
    h, w = shape
    squares = []
    for pts in located:
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        side = max(max(xs) - min(xs), max(ys) - min(ys)) * REGION_GROW
        cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
        box = (max(0, int(cx - side / 2)), max(0, int(cy - side / 2)),
               min(w, int(cx + side / 2)), min(h, int(cy + side / 2)))
        area = (box[2] - box[0]) * (box[3] - box[1])
        if 0 < area <= MAX_REGION_SHARE * w * h and min(box[2] - box[0], box[3] - box[1]) >= 21:
            squares.append((area, (cx, cy), box))
    out: list[tuple[int, int, int, int]] = []
    for _, (cx, cy), box in sorted(squares, key=lambda q: -q[0]):
        if len(out) == MAX_REGIONS:
            break
        if not any(b[0] <= cx < b[2] and b[1] <= cy < b[3] for b in out):
            out.append(box)
    return out


def _box(points: Sequence[tuple[float, float]], shape: tuple[int, int]) -> tuple[int, int, int, int]:
    """The points' bounding box grown by half its size on each side, clipped to the frame."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    return (max(0, int(min(xs) - w / 2)), max(0, int(min(ys) - h / 2)),
            min(shape[1], int(max(xs) + w / 2)), min(shape[0], int(max(ys) + h / 2)))
