"""``bench-robustness``: does a seat's loop read every card held to it when the camera sees worse?

Each capture of a labelled folder is turned into what a worse camera would give (one
:mod:`~kipukas_board.bench.conditions` condition at a time) and held before a seat's loop for
``seconds`` at ``fps``, with fresh sensor noise on every frame. The loop is the one a seat of the
board runs (:class:`~kipukas_board.vision.reader.CameraReader`: change gate, decode pipeline with
its WeChat worker process and the frame stacking of an unread still scene), a fresh one per capture
as if the stand had been empty before.

Time is simulated from measured CPU, so a machine busy with other work gives the same answers
(only slower): the frames are made at ``k / fps``; the seat takes the newest frame made by the time
it is free, and is busy for the CPU time that frame cost it (its thread's, plus its decoder
process's for the calls it waits on), as if it had a core of its own; a decoder process replaced
after its deadline warms up on another core while the seat goes on, as on the board, so its CPU
counts in the seat's CPU and not in its time, unless the seat calls it before it is ready: that
call waits for the rest of the warm-up, as on the board. A seat slower than the camera so skips frames, as on
the board. ``cpu_scale`` makes that core slower than this machine's: every CPU time the loop
measures, its budget's included, is counted that many times over (3.5 for a Raspberry Pi 4's core,
taken as 3-4 times slower), so the run shows what a slower board would read in time; an
**estimate**, since a core of another design is not slower at everything alike. Per condition it
reports:

* ``read``: the codes of the truth the loop read within ``within_s`` of the card's first frame, of
  all the codes (and ``wrong``: codes it read that are not in the capture's truth, each named under
  the table with its capture: a truth file lists the codes known to be in a picture, and a second
  card no decoder read before may be read at last, which only a look at the picture can tell);
* ``first_ms``: the median and the worst time to the first read of the cards it read;
* ``cpu_held``: the loop's CPU per second of a held card, in % of one core (mean over the cards);
  ``cpu_idle``: the same for an empty stand (a blank grey view in the same condition and noise, or
  ``idle_view``: a picture of what the seat's camera sees with no card held, such as the room
  behind the stand) over ``idle_s`` seconds, since a stand stays empty for minutes and its view's
  first second (a decode, and the search of a view that is not flat) is paid once per settle;
* ``still``: the pipeline on one noisy frame of the card alone, as ``kipukas-board scan`` decodes a
  still image (codes read, median CPU ms), and ``wechat``: OpenCV's WeChat reader on the same
  frame, in the same run (codes read, median CPU ms); their ratio is the figure to quote. Each
  side decodes the frame :data:`STILL_REPEATS` times and its least CPU time counts.

Example (not run as a doctest: it needs captures and their truth file;
``tests/bench/test_bench_robustness.py`` runs it on generated ones)::

    >>> report = run_robustness("captures", "captures/truth.json", ["noise8"], limit=3)   # doctest: +SKIP
    >>> report["conditions"][0]["read"], report["conditions"][0]["codes"]                 # doctest: +SKIP
    (3, 3)
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kipukas_board.bench.conditions import CONDITIONS, Condition, condition
from kipukas_board.bench.qr import BenchError, load_truth
from kipukas_board.settings import DEFAULT_BUDGET_MS

#: Distinct noise fields per (frame size, sigma): more than the frames a still scene's search
#: stacks (13), so a stacked mean never averages one field twice.
NOISE_FIELDS = 16


def _stable_seed(*parts: object) -> int:
    """A seed from ``parts`` that is the same in every run and every process (``hash`` of a string is not)."""
    import zlib

    return zlib.crc32("/".join(str(p) for p in parts).encode())


class HoldNoise:
    """Gaussian sensor noise from a pool of fields drawn once per frame size and sigma (drawing 2.7
    million numbers a frame would cost the bench more than the loop it measures); within one hold
    every frame gets another field, in a random order of its own.

    Every draw is seeded by what it is for (the run's seed, the pool's frame size and sigma; the
    condition and the capture a hold shows), never by what was drawn before: a run of some
    conditions or some captures shows each the same noise as the full run, so its figures compare.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._pools: dict[tuple[tuple[int, ...], float], Any] = {}

    def pool(self, shape: tuple[int, ...], sigma: float) -> Any:
        from kipukas_board.bench.camera import NoisePool

        key = (shape, sigma)
        if key not in self._pools:  # one pool kept at a time: each is 16 frames' worth of memory
            self._pools = {key: NoisePool(shape, sigma, size=NOISE_FIELDS,
                                          seed=_stable_seed(self.seed, "pool", shape, sigma))}
        return self._pools[key]

    def frames(self, img: Any, sigma: float, *hold: object) -> Callable[[int], Any]:
        """``frame(k)``: ``img`` with the hold's k-th noise field; ``hold`` names the hold (its
        condition, capture and purpose), which seeds the order of its fields."""
        import cv2
        import numpy as np

        fields = self.pool(img.shape, sigma).fields
        rng = np.random.default_rng(_stable_seed(self.seed, "hold", *hold))
        order = [int(i) for i in rng.permutation(len(fields))] if fields else []

        def frame(k: int) -> Any:
            if not fields:
                return img.copy()
            pos, neg = fields[order[k % len(order)]]
            return cv2.subtract(cv2.add(img, pos), neg)

        return frame


#: The slowest core ``--cpu-scale`` simulates, in times this machine's.
MAX_CPU_SCALE = 10.0


class SeatWorker:
    """An isolated decoder (:class:`~kipukas_board.vision.isolated.IsolatedDecoder`) as the bench's
    seat sees it. The seat waits for its calls (``called_ms``: their CPU, summed), not for a worker
    replaced after a deadline, which warms up on another core while the seat goes on (``cpu_ms``
    counts that too: it is CPU the board spends). On a core ``scale`` times slower both count
    ``scale`` times over, and a deadline, given in that core's milliseconds, is shortened to match,
    so the worker is stopped where the slower core would have spent it.

    A call that comes before the replacement has warmed up waits for it, as on the board (the
    worker's next call waits until its new process is ready): ``clock`` gives the seat's simulated
    time in seconds (None outside the frames it times), and the part of the replacement's warm-up
    (its CPU, on the slower core) not yet over by then counts in ``called_ms`` too, and in
    ``waited_ms``. Not in ``last_cpu_ms``: the budget counts CPU, and the board's does not count
    that wait either.

    Example::

        >>> class Worker:  # a stand-in that spent 10 ms of CPU on an image, and 30 more warming up
        ...     interruptible, last_cpu_ms = True, 0.0
        ...     def __call__(self, image, deadline_ms=None):
        ...         self.last_cpu_ms, self.deadline_ms = 10.0, deadline_ms
        ...         return []
        ...     def cpu_ms(self):
        ...         return 40.0
        >>> slow = SeatWorker(Worker(), scale=4.0)
        >>> slow("image", deadline_ms=60.0), slow.last_cpu_ms, slow.worker.deadline_ms
        ([], 40.0, 15.0)
        >>> slow.called_ms, slow.cpu_ms()
        (40.0, 160.0)
    """

    interruptible = True

    def __init__(self, worker: Any, scale: float = 1.0, clock: Callable[[], float | None] | None = None) -> None:
        self.worker = worker
        self.scale = scale
        self.clock = clock
        self.last_cpu_ms = 0.0
        self.called_ms = 0.0
        self.waited_ms = 0.0
        # a replacement warming up: the seat's simulated time when it started, and the CPU (ms) of
        # this decoder's processes then
        self._replaced: tuple[float, float] | None = None

    def _now(self) -> float | None:
        return None if self.clock is None else self.clock()

    def _wait_for_replacement(self) -> float:
        """The simulated ms this call waits for a replacement still warming up (0 if none)."""
        if self._replaced is None:
            return 0.0
        started, cpu0 = self._replaced
        self._replaced = None
        self.worker.ready()  # the real one has warmed up: its warm-up's CPU is known
        now = self._now()
        if now is None:
            return 0.0
        return max(0.0, self.cpu_ms() - cpu0 - (now - started) * 1000)

    def __call__(self, image: Any, deadline_ms: float | None = None) -> Any:
        from kipukas_board.vision.decoders import DecoderTimeout

        waited = self._wait_for_replacement()
        killed = False
        try:
            return self.worker(image, deadline_ms=None if deadline_ms is None else deadline_ms / self.scale)
        except DecoderTimeout:
            killed = True  # and replaced at once: the replacement warms up from now on
            raise
        finally:
            self.last_cpu_ms = self.worker.last_cpu_ms * self.scale
            self.waited_ms += waited
            self.called_ms += waited + self.last_cpu_ms
            now = self._now() if killed else None
            if now is not None:
                self._replaced = (now, self.cpu_ms())

    def cpu_ms(self) -> float:
        return self.worker.cpu_ms() * self.scale

    def ready(self) -> None:
        self.worker.ready()
        self._replaced = None

    def close(self) -> None:
        self.worker.close()


class _Seat:
    """A seat's loop as the board builds it, under a simulated clock; one decoder set for all cards.
    ``cpu_scale`` is how many times slower than this machine's the seat's core is taken to be."""

    #: The fork server's process id (:func:`~kipukas_board.vision.isolated.fork_server_pid`), None
    #: where it was not found: its CPU is then counted nowhere.
    fork_server: int | None = None

    def __init__(self, budget_ms: float, search: bool = True, cpu_scale: float = 1.0) -> None:
        from kipukas_board.vision.decoders import available_decoders
        from kipukas_board.vision.isolated import IsolatedDecoder, fork_server_pid
        from kipukas_board.vision.pipeline import ISOLATED_DECODERS

        self.budget_ms = budget_ms
        self.search = search
        self.cpu_scale = cpu_scale
        self.now = 0.0
        self.decoders = available_decoders()
        self._frame: tuple[float, float, float] | None = None  # the frame being read: see seat_time
        self.isolated = {n: SeatWorker(IsolatedDecoder(n), cpu_scale, clock=self.seat_time)
                         for n in ISOLATED_DECODERS if n in self.decoders}
        self.loop_decoders = {**self.decoders, **self.isolated}
        for dec in self.isolated.values():
            dec.ready()
        if self.isolated:
            self.fork_server = fork_server_pid()

    def cpu_clock(self) -> float:
        """Seconds of this thread's CPU, as the seat's slower core would have spent them."""
        return time.thread_time() * self.cpu_scale

    def seat_time(self) -> float | None:
        """The seat's simulated time (s) while it reads a frame of a hold: the frame's start, and
        what it has spent on the frame so far; None outside a hold's frames."""
        if self._frame is None:
            return None
        now, c0, q0 = self._frame
        return now + self.cpu_clock() - c0 + (self.called_ms() - q0) / 1000

    def reader(self) -> Any:
        from kipukas_board.vision.desk import HEAVY_INTERVAL_S
        from kipukas_board.vision.pipeline import Pipeline
        from kipukas_board.vision.reader import STACK_AT, CameraReader

        pipe = Pipeline(decoders=self.loop_decoders, remember_roi=True, heavy_interval_s=HEAVY_INTERVAL_S,
                        budget_ms=self.budget_ms, clock=lambda: self.now, cpu_clock=self.cpu_clock)
        return CameraReader(pipe, clock=lambda: self.now, stack_at=STACK_AT if self.search else ())

    def worker_ms(self) -> float:
        """The decoder processes' CPU so far, warming up included, and the fork server's that
        started them (ms, on the seat's core): the bench has one seat, so every fork is its own."""
        from kipukas_board.vision.isolated import process_cpu_ms

        forks = process_cpu_ms(self.fork_server) if self.fork_server is not None else None
        return sum(dec.cpu_ms() for dec in self.isolated.values()) + (forks or 0.0) * self.cpu_scale

    def called_ms(self) -> float:
        """The decoder processes' CPU so far on the calls the seat waited for, and its waits for a
        replacement still warming up (ms)."""
        return sum(dec.called_ms for dec in self.isolated.values())

    def hold(self, img: Any, sigma: float, fps: float, seconds: float, noise: HoldNoise,
             *name: object) -> dict[str, Any]:
        """One card (or an empty view) held for ``seconds``: its reads by simulated time, and its CPU.
        ``name`` names the hold for its noise (see :class:`HoldNoise`)."""
        reader = self.reader()
        for dec in self.isolated.values():
            # a worker stopped at its deadline by an earlier decode (the still image's, just before)
            # is replaced at once and loads its model in the background: it finishes first, so this
            # hold is charged only for what its own frames cost
            dec.ready()
        make = noise.frames(img, sigma, *name)
        n = max(1, round(fps * seconds))
        free = 0.0
        cpu = 0.0
        # the decoder processes' CPU is counted over the whole hold, not frame by frame: a replacement
        # warms up between frames too (while the next frame is made)
        w0 = self.worker_ms()
        k = 0
        reads: dict[str, float] = {}
        handled = 0
        while k < n:
            k = max(k, math.floor(free * fps + 1e-9))  # the newest frame made by the time the seat is free
            if k >= n:
                break
            self.now = max(free, k / fps)
            frame = make(k)
            c0, q0 = self.cpu_clock(), self.called_ms()
            self._frame = (self.now, c0, q0)
            try:
                read = reader.read(frame)
            finally:
                self._frame = None
            own = self.cpu_clock() - c0
            # the seat is busy for its own CPU and its decoder calls'; a worker replaced after its
            # deadline warms up meanwhile on another core, and only the CPU counts that (a call
            # that comes before it is ready waits for it: that wait is in called_ms)
            free = self.now + own + (self.called_ms() - q0) / 1000
            cpu += own
            handled += 1
            for code in read.codes:
                reads.setdefault(code, free)
            k += 1
        for dec in self.isolated.values():
            # a worker replaced after the hold's last frame warms up for this hold too
            dec.ready()
        cpu += (self.worker_ms() - w0) / 1000
        return {"reads": reads, "cpu_pct": 100 * cpu / max(seconds, free), "frames": n, "handled": handled}

    def close(self) -> None:
        for dec in self.isolated.values():
            dec.close()


#: A still frame is decoded this many times by each side and its least CPU time kept: one sample of
#: a few milliseconds on a machine shared with other work varies by a tenth or more between runs
#: (the ratio of two medians moved by 0.05-0.07 from run to run), the least of three much less.
STILL_REPEATS = 3


def _still(seat: _Seat, frame: Any, repeats: int = STILL_REPEATS) -> tuple[list[str], float, list[str], float]:
    """The pipeline (as ``scan`` runs it) and WeChat alone on one frame: codes (of the first decode)
    and the least CPU ms of ``repeats`` decodes, of each."""
    from kipukas_board.vision.pipeline import Pipeline

    codes: list[str] | None = None
    cpu = float("inf")
    for _ in range(repeats):
        result = Pipeline(decoders=seat.loop_decoders, budget_ms=seat.budget_ms,
                          cpu_clock=seat.cpu_clock).decode(frame)
        codes = result.codes if codes is None else codes
        cpu = min(cpu, result.cpu_ms)
    wechat = seat.decoders.get("wechat")
    if wechat is None:
        return codes or [], cpu, [], float("nan")
    texts: list[str] | None = None
    wcpu = float("inf")
    for _ in range(repeats):
        c0 = seat.cpu_clock()
        found = [d.text for d in wechat(frame)]
        wcpu = min(wcpu, (seat.cpu_clock() - c0) * 1000)
        texts = found if texts is None else texts
    return codes or [], cpu, texts or [], wcpu


def run_robustness(folder: str | Path, truth_path: str | Path, conditions: Sequence[str] | None = None,
                   limit: int | None = None, fps: float = 15.0, seconds: float = 2.0, within_s: float = 1.0,
                   budget_ms: float = DEFAULT_BUDGET_MS, seed: int = 0, search: bool = True, idle_s: float = 10.0,
                   idle_view: str | Path | None = None, cpu_scale: float = 1.0,
                   progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Every condition applied to every capture (the first ``limit`` with codes, sorted by name).

    ``search=False`` measures the loop without its search across frames (no stacking), for comparison.
    ``seed`` seeds the sensor noise (see :class:`HoldNoise`): the same seed shows every card the same
    noise in every run, another seed other noise. ``cpu_scale`` takes the seat's core to be that
    many times slower than this machine's (see the module's notes).
    """
    import cv2
    import numpy as np

    if not (0 < fps <= 120):
        raise BenchError(f"--fps must be above 0 and at most 120, got {fps:g}")
    if not (0 < idle_s <= 600):
        raise BenchError(f"the idle stand is watched for more than 0 and at most 600 s, got {idle_s:g}")
    if not (1.0 <= cpu_scale <= MAX_CPU_SCALE):
        raise BenchError(f"the seat's core is taken to be 1 to {MAX_CPU_SCALE:g} times slower than this machine's "
                         f"(--cpu-scale), got {cpu_scale:g}")
    if not (0 < within_s <= seconds <= 60):
        raise BenchError(f"expected 0 < within ({within_s:g} s) <= seconds ({seconds:g} s) <= 60")
    chosen: list[Condition] = []
    for name in conditions or list(CONDITIONS):
        try:
            chosen.append(condition(name))
        except ValueError as exc:
            raise BenchError(str(exc)) from None
    folder = Path(folder)
    truth = {n: c for n, c in sorted(load_truth(truth_path).items()) if c}
    names = list(truth)[:limit] if limit else list(truth)
    if not names:
        raise BenchError(f"{truth_path}: no capture with a known code to hold before the camera")
    captures = {}
    for name in names:
        img = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        if img is None:
            raise BenchError(f"{folder / name}: missing, or not an image OpenCV can read")
        captures[name] = img
    blank = np.full(next(iter(captures.values())).shape, 128, np.uint8)
    if idle_view is not None:
        blank = cv2.imread(str(idle_view), cv2.IMREAD_COLOR)
        if blank is None:
            raise BenchError(f"{idle_view}: missing, or not an image OpenCV can read (the empty stand's view)")
    cv2.setNumThreads(1)
    noise = HoldNoise(seed)
    seat = _Seat(budget_ms, search, cpu_scale)
    rows = []
    try:
        for cond in chosen:
            row: dict[str, Any] = {"condition": cond.name, "what": cond.what, "noise": cond.noise, "codes": 0,
                                   "read": 0, "wrong": 0, "still": 0, "wechat": 0, "missed": [],
                                   "not_in_truth": {}}
            first: list[float] = []
            held: list[float] = []
            still_ms: list[float] = []
            wechat_ms: list[float] = []
            for name, img in captures.items():
                want = set(truth[name])
                seen = cond.apply(img)
                frame0 = noise.frames(seen, cond.noise, cond.name, name, "still")(0)
                codes, cpu, texts, wcpu = _still(seat, frame0)
                row["still"] += len(want & set(codes))
                row["wechat"] += len(want & set(texts))
                still_ms.append(cpu)
                wechat_ms.append(wcpu)
                hold = seat.hold(seen, cond.noise, fps, seconds, noise, cond.name, name, "held")
                in_time = {c for c, t in hold["reads"].items() if t <= within_s}
                row["codes"] += len(want)
                row["read"] += len(want & in_time)
                unlisted = sorted(set(hold["reads"]) - want)
                row["wrong"] += len(unlisted)
                if unlisted:
                    row["not_in_truth"][name] = unlisted
                if want - in_time:
                    row["missed"].append(name)
                first.extend(t * 1000 for c, t in hold["reads"].items() if c in want)
                held.append(hold["cpu_pct"])
            idle = seat.hold(cond.apply(blank), cond.noise, fps, idle_s, noise, cond.name, "idle")
            row.update(first_ms_median=round(statistics.median(first), 1) if first else None,
                       first_ms_max=round(max(first), 1) if first else None,
                       cpu_held=round(statistics.fmean(held), 2), cpu_idle=round(idle["cpu_pct"], 2),
                       still_ms_median=round(statistics.median(still_ms), 2),
                       wechat_ms_median=round(statistics.median(wechat_ms), 2))
            rows.append(row)
            if progress:
                progress(cond.name)
    finally:
        seat.close()
    return {"images": len(names), "seed": seed, "search": search, "fps": fps, "seconds": seconds,
            "within_s": within_s, "idle_s": idle_s, "idle_view": None if idle_view is None else Path(idle_view).name,
            "budget_ms": budget_ms, "cpu_scale": cpu_scale, "conditions": rows}


def _slower(scale: float) -> str:
    """How the table's heading names a simulated slower core (nothing for this machine's own)."""
    return "" if scale == 1.0 else f", {scale:g} times slower than this machine's: an estimate"


def format_table(report: dict[str, Any]) -> str:
    """The report as a plain-text table, one row per condition, then the goals it meets."""
    head = (f"{'condition':<9} {'codes':>5} {'loop read':>9} {'wrong':>5} {'first ms med/max':>16} "
            f"{'cpu% held':>9} {'cpu% idle':>9} {'still':>5} {'wechat':>6} {'still ms':>8} {'wechat ms':>9} "
            f"{'ratio':>5}")
    lines = [f"{report['images']} captures, each held {report['seconds']:g} s at {report['fps']:g} fps; read within "
             f"{report['within_s']:g} s; idle: an empty stand for {report.get('idle_s', 10):g} s "
             f"({report.get('idle_view') or 'blank grey'}); "
             f"noise seed {report.get('seed', 0)}; "
             f"search across frames {'on' if report.get('search', True) else 'off'}; "
             f"budget {report['budget_ms']:g} ms of CPU a frame; time simulated from "
             f"measured CPU (a core per seat{_slower(report.get('cpu_scale', 1.0))}); cpu % of one core; "
             "still = the pipeline on the first frame alone, "
             f"wechat = WeChat alone on that frame; ms = median CPU (each frame's least of {STILL_REPEATS} decodes)",
             head, "-" * len(head)]
    for r in report["conditions"]:
        first = "-" if r["first_ms_median"] is None else f"{r['first_ms_median']:.0f}/{r['first_ms_max']:.0f}"
        ratio = r["still_ms_median"] / r["wechat_ms_median"] if r["wechat_ms_median"] else float("nan")
        lines.append(f"{r['condition']:<9} {r['codes']:>5} {r['read']:>9} {r['wrong']:>5} {first:>16} "
                     f"{r['cpu_held']:>9.1f} {r['cpu_idle']:>9.1f} {r['still']:>5} {r['wechat']:>6} "
                     f"{r['still_ms_median']:>8.2f} {r['wechat_ms_median']:>9.2f} {ratio:>5.2f}")
    for r in report["conditions"]:
        if r["missed"]:
            lines.append(f"{r['condition']}: not read within {report['within_s']:g} s: {', '.join(r['missed'])}")
        for name, codes in r.get("not_in_truth", {}).items():
            lines.append(f"{r['condition']}: read, not in the truth file: {name}: {', '.join(codes)}")
    return "\n".join(lines)
