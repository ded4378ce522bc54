"""``bench-camera``: what a seat's camera costs while still images play before it as scenes.

Each image is shown as a still scene for ``seconds`` at ``fps`` frames a second, with fresh
Gaussian sensor noise on every frame, by a :class:`SceneCamera`: an ordinary camera adapter whose
frames come from a producer thread at the camera's pace, as a real camera's driver delivers them.
The seat's :class:`~kipukas_board.vision.desk.CameraWorker` reads it and hands each frame to the
:class:`~kipukas_board.vision.desk.CardDesk` the board runs (change gate, decode pipeline with its
WeChat worker process, scan sessions, card events), so what is measured is what the board does.

Per scene it reports the frames the seat handled, the frames it dropped (the camera keeps only its
newest frame, so a seat still busy with one frame never sees the frames made meanwhile: it skips
them rather than falling behind), the frames it decoded, the frames that read a
Kipukas code (``reads``; an unchanged scene's codes count, as they stay in view), the codes, the
first read (``first_read_ms``: from the scene's first frame to the first frame that read a code)
and ``cpu_pct``: the CPU time of the seat's worker thread plus its decoder worker process, per wall
second of the scene, in % of one core. The producer's work (making noisy frames) is the camera's,
not the seat's, and is not counted. With several seats every seat plays the same scenes at once,
each with its own camera, worker thread and pipeline, and the total is the sum of the seats.

With ``jitter`` the whole picture also moves by up to that many pixels in each direction between
frames, as a card held in a hand does, so the change gate cannot skip it (a few shifted copies
are made once, and every frame takes another one than the frame before).

Noise: a pool of Gaussian noise fields is drawn once and every frame gets one the previous frame
did not have (in a fresh random order each round), so consecutive frames never share their noise,
while making a frame costs two saturating additions instead of drawing 2.7 million numbers.

Example (not run as a doctest: it plays camera scenes for seconds; ``kipukas-board bench-camera`` runs it)::

    >>> report = run_bench_camera(["blank", "card.jpg"], fps=15, seconds=4, noise=3)   # doctest: +SKIP
    >>> [s["cpu_pct"] for s in report["scenes"]]                                       # doctest: +SKIP
    [0.9, 3.2]
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kipukas_board.hardware.cameras.port import Camera
from kipukas_board.settings import DEFAULT_BUDGET_MS

#: The pseudo-image ``blank``: an empty, evenly lit mid-grey scene (an idle seat), as large as the
#: other images (1280x720 when there are none).
BLANK = "blank"
BLANK_SHAPE = (720, 1280, 3)
NOISE_POOL = 6


class BenchCameraError(ValueError):
    """An image that cannot be played, or settings a bench cannot run with (the message says why)."""


def load_scenes(names: Sequence[str]) -> list[Any]:
    """The BGR images for the scenes: files OpenCV reads, all of one size (a camera's frames are),
    or ``blank``."""
    import cv2
    import numpy as np

    files: dict[str, Any] = {}
    for name in names:
        if name == BLANK or name in files:
            continue
        img = cv2.imread(name, cv2.IMREAD_COLOR)
        if img is None:
            raise BenchCameraError(f"{name}: not an image OpenCV can read (expected a JPEG, PNG, ... file or 'blank')")
        files[name] = img
    shapes = {img.shape for img in files.values()}
    if len(shapes) > 1:
        sizes = ", ".join(f"{n}: {img.shape[1]}x{img.shape[0]}" for n, img in files.items())
        raise BenchCameraError(f"the images are of different sizes ({sizes}); one camera gives frames of one size")
    shape = shapes.pop() if shapes else BLANK_SHAPE
    return [np.full(shape, 128, np.uint8) if n == BLANK else files[n] for n in names]


class NoisePool:
    """Gaussian noise fields of ``sigma`` grey levels, each split into its positive and negative part
    (uint8) so that adding one to a frame is two saturating OpenCV additions."""

    def __init__(self, shape: tuple[int, ...], sigma: float, size: int = NOISE_POOL, seed: int = 0) -> None:
        import numpy as np

        self.sigma = sigma
        self.fields: list[tuple[Any, Any]] = []
        if sigma <= 0:
            return
        rng = np.random.default_rng(seed)
        for _ in range(size):
            n = np.rint(rng.normal(0.0, sigma, shape)).clip(-255, 255).astype(np.int16)
            self.fields.append((n.clip(0, 255).astype(np.uint8), (-n).clip(0, 255).astype(np.uint8)))


class SceneCamera(Camera):
    """Still images played as scenes, one after another, at ``fps`` with noise from ``pool``.

    ``images`` holds per scene a list of pictures: one for a still scene, several shifted copies
    for a jittering one.

    A producer thread makes each frame at its time and keeps only the newest (a camera's one-frame
    buffer: a seat slower than the camera sees fewer frames, never old ones). :meth:`read` waits for
    a frame newer than the last it returned and gives None once every scene has played.
    """

    def __init__(self, seat: int, images: Sequence[Any], fps: float, seconds: float, pool: NoisePool,
                 seed: int = 0) -> None:
        import numpy as np

        self.seat = seat
        self.images = [list(poses) for poses in images]  # per scene: its picture, or shifted copies
        self._pose = -1
        self.fps = fps
        self.per_scene = max(1, round(fps * seconds))
        self.pool = pool
        self._rng = np.random.default_rng(seed)
        self._cond = threading.Condition()
        self._frame: Any = None
        self._index = -1
        self._taken = -1
        self._over = False
        self.produced = 0
        self.produced_by_scene: dict[int, int] = {}
        self.last_scene = -1
        self.scene_start: dict[int, float] = {}
        self.ended_at: float | None = None
        self._thread = threading.Thread(target=self._produce, name=f"scene-camera-{seat}", daemon=True)
        self._stop = threading.Event()

    def start(self, at: float) -> None:
        self._t0 = at
        self._thread.start()

    def _noisy(self, img: Sequence[Any], order: list[int], k: int) -> Any:
        import cv2

        if len(img) > 1:  # shifted copies: never the one the frame before had
            pick = int(self._rng.integers(0, len(img) - 1))
            self._pose = pick if pick < self._pose else pick + 1
        else:
            self._pose = 0
        img = img[self._pose]
        if not self.pool.fields:
            return img.copy()
        pos, neg = self.pool.fields[order[k % len(order)]]
        return cv2.subtract(cv2.add(img, pos), neg)

    def _order(self, last: int | None) -> list[int]:
        """A fresh random order of the pool whose first field is not ``last``."""
        n = len(self.pool.fields)
        if n == 0:
            return [0]
        order = [int(i) for i in self._rng.permutation(n)]
        if n > 1 and order[0] == last:
            order[0], order[1] = order[1], order[0]
        return order

    def _produce(self) -> None:
        total = self.per_scene * len(self.images)
        order = self._order(None)
        for k in range(total):
            if k and self.pool.fields and k % len(order) == 0:
                order = self._order(order[-1])
            due = self._t0 + k / self.fps
            if self._stop.wait(max(0.0, due - time.monotonic())):
                break
            scene = k // self.per_scene
            frame = self._noisy(self.images[scene], order, k)
            with self._cond:
                if scene not in self.scene_start:  # when its first frame was there to be read
                    self.scene_start[scene] = time.monotonic()
                self._frame, self._index = (frame, scene), k
                self.produced += 1
                self.produced_by_scene[scene] = self.produced_by_scene.get(scene, 0) + 1
                self._cond.notify_all()
        with self._cond:
            self._over = True
            self.ended_at = time.monotonic()
            self._cond.notify_all()

    def read(self) -> Any | None:
        with self._cond:
            self._cond.wait_for(lambda: self._index > self._taken or self._over, timeout=1.0)
            if self._index <= self._taken:
                return None
            self._taken = self._index
            frame, self.last_scene = self._frame
            return frame

    def done(self) -> bool:
        with self._cond:
            return self._over and self._taken >= self._index

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2)


@dataclass
class SceneStats:
    """What one seat did during one scene."""

    image: str
    seat: int
    frames: int = 0
    produced: int = 0
    decoded: int = 0
    over_budget: int = 0
    reads: int = 0
    codes: list[str] = field(default_factory=list)
    cpu_s: float = 0.0
    first_read_ms: float | None = None
    decode_cpu_ms: list[float] = field(default_factory=list)

    def to_json(self, seconds: float) -> dict[str, Any]:
        return {"image": self.image, "seat": self.seat, "frames": self.frames, "produced": self.produced,
                "dropped": max(0, self.produced - self.frames),
                "cpu_pct": round(100 * self.cpu_s / seconds, 2), "reads": self.reads, "codes": self.codes,
                "first_read_ms": None if self.first_read_ms is None else round(self.first_read_ms, 1),
                "decoded": self.decoded, "over_budget": self.over_budget,
                "decode_cpu_ms_max": round(max(self.decode_cpu_ms), 2) if self.decode_cpu_ms else None}


JITTER_POSES = 8


def _shifted(img: Any, jitter: int, seed: int) -> list[Any]:
    """``img`` alone, or ``JITTER_POSES`` copies moved by up to ``jitter`` pixels each way."""
    import cv2
    import numpy as np

    if not jitter:
        return [img]
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(JITTER_POSES):
        dx, dy = (int(v) for v in rng.integers(-jitter, jitter + 1, 2))
        out.append(cv2.warpAffine(img, np.float32([[1, 0, dx], [0, 1, dy]]), (img.shape[1], img.shape[0]),
                                  borderMode=cv2.BORDER_REPLICATE))
    return out


def run_bench_camera(images: Sequence[str], fps: float = 15.0, seconds: float = 5.0, noise: float = 3.0,
                     seats: int = 1, budget_ms: float | None = None, seed: int = 0,
                     jitter: int = 0) -> dict[str, Any]:
    """Play ``images`` as scenes before ``seats`` cameras at once and measure each seat (see above)."""
    import cv2

    from kipukas_board.cards.catalog import Catalog
    from kipukas_board.vision.desk import CameraWorker, CardDesk

    if not images:
        raise BenchCameraError("bench-camera needs at least one IMAGE (a file, or 'blank' for an empty scene)")
    if not (0 < fps <= 120):
        raise BenchCameraError(f"--fps must be above 0 and at most 120, got {fps:g}")
    if not (0 < seconds <= 600):
        raise BenchCameraError(f"--seconds must be above 0 and at most 600, got {seconds:g}")
    if not (0 <= noise <= 100):
        raise BenchCameraError(f"--noise must be 0 to 100 grey levels, got {noise:g}")
    if not (0 <= jitter <= 100):
        raise BenchCameraError(f"--jitter must be 0 to 100 pixels, got {jitter}")
    if not (1 <= seats <= 8):
        raise BenchCameraError(f"--seats must be 1 to 8, got {seats}")
    cv2.setNumThreads(1)
    pictures = load_scenes(images)
    pool = NoisePool(pictures[0].shape, noise, seed=seed)
    poses = [_shifted(p, jitter, seed) for p in pictures]
    stats = {(seat, i): SceneStats(name, seat) for seat in range(1, seats + 1) for i, name in enumerate(images)}
    events: list[dict[str, Any]] = []
    lock = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="kipukas-bench-camera-") as tmp:
        catalog = Catalog.in_dir(Path(tmp))
        desk = CardDesk(catalog, submit=lambda e, wait=True: events.append(e), budget_ms=budget_ms or DEFAULT_BUDGET_MS)
        cameras: dict[int, SceneCamera] = {}
        last_cpu: dict[int, float] = {}
        last_worker_ms: dict[int, float] = {}
        for seat in range(1, seats + 1):
            cameras[seat] = SceneCamera(seat, poses, fps, seconds, pool, seed=seed + seat)
            reader = desk.reader(seat)  # made here, so its imports and worker start are not measured
            reader.pipeline.warm_up()
            last_worker_ms[seat] = reader.pipeline.worker_cpu_ms()
            last_cpu[seat] = 0.0

        def on_read(seat: int, read: Any, new_events: list[dict[str, Any]]) -> None:
            now, cpu = time.monotonic(), time.thread_time()
            cam = cameras[seat]
            pipeline = desk.reader(seat).pipeline
            worker_ms = pipeline.worker_cpu_ms() if read.decoded else last_worker_ms[seat]
            with lock:
                s = stats[(seat, cam.last_scene)]
                s.frames += 1
                s.cpu_s += cpu - last_cpu[seat] + (worker_ms - last_worker_ms[seat]) / 1000
                last_cpu[seat], last_worker_ms[seat] = cpu, worker_ms
                if read.decoded:
                    s.decoded += 1
                    s.decode_cpu_ms.append(read.result.cpu_ms)
                    s.over_budget += bool(read.result.over_budget)
                if read.codes:
                    s.reads += 1
                    s.codes.extend(c for c in read.codes if c not in s.codes)
                    if s.first_read_ms is None:
                        s.first_read_ms = (now - cam.scene_start[cam.last_scene]) * 1000

        desk.on_read = on_read
        workers = [CameraWorker(cam, desk, interval_s=0.005) for cam in cameras.values()]
        start = time.monotonic() + 0.2
        for w in workers:
            w.start()
        for cam in cameras.values():
            cam.start(start)
        try:
            deadline = start + len(images) * seconds + 30
            while not all(c.done() for c in cameras.values()) and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            for w in workers:
                w.stop()
            for cam in cameras.values():
                cam.close()
            desk.close()
            catalog.close()
    produced = {seat: cam.produced for seat, cam in cameras.items()}
    for (seat, i), st in stats.items():
        st.produced = cameras[seat].produced_by_scene.get(i, 0)
    scenes = [stats[(seat, i)].to_json(_played(cameras[seat], i, seconds))
              for seat in range(1, seats + 1) for i in range(len(images))]
    per_seat = []
    for seat in range(1, seats + 1):
        mine = [s for s in scenes if s["seat"] == seat]
        per_seat.append({"seat": seat, "frames": sum(s["frames"] for s in mine), "produced": produced[seat],
                         "dropped": max(0, produced[seat] - sum(s["frames"] for s in mine)),
                         "cpu_pct": round(sum(s["cpu_pct"] for s in mine) / len(mine), 2),
                         "cards_presented": sum(1 for e in events if e.get("seat") == seat)})
    return {"fps": fps, "seconds": seconds, "noise": noise, "jitter": jitter, "budget_ms": desk.budget_ms,
            "scenes": scenes,
            "seats": per_seat, "total_cpu_pct": round(sum(s["cpu_pct"] for s in per_seat), 2)}


def _played(cam: SceneCamera, scene: int, seconds: float) -> float:
    """How long scene ``scene`` was really shown: ``seconds``, unless the camera fell behind."""
    start = cam.scene_start.get(scene)
    end = cam.scene_start.get(scene + 1, cam.ended_at)
    if start is None or end is None:
        return seconds
    return max(seconds, end - start)


def format_table(report: dict[str, Any]) -> str:
    """The report as a plain-text table: one row per seat and scene, then the seats and their total."""
    head = (f"{'seat':>4} {'image':<28} {'frames':>6} {'dropped':>7} {'decoded':>7} {'cpu %':>6} {'reads':>5} "
            f"{'first read ms':>13} {'max decode cpu ms':>17}  codes")
    lines = [f"{report['fps']:g} fps, {report['seconds']:g} s a scene, noise sigma {report['noise']:g}, "
             f"jitter {report.get('jitter', 0)} px, budget {report['budget_ms']:g} ms of CPU a frame; "
             "cpu % is of one core", head, "-" * len(head)]
    for s in report["scenes"]:
        first = "-" if s["first_read_ms"] is None else f"{s['first_read_ms']:.0f}"
        worst = "-" if s["decode_cpu_ms_max"] is None else f"{s['decode_cpu_ms_max']:.1f}"
        name = Path(s["image"]).name if s["image"] != BLANK else BLANK
        lines.append(f"{s['seat']:>4} {name[:28]:<28} {s['frames']:>6} {s['dropped']:>7} {s['decoded']:>7} "
                     f"{s['cpu_pct']:>6.2f} "
                     f"{s['reads']:>5} {first:>13} {worst:>17}  {', '.join(s['codes']) or '-'}")
    for seat in report["seats"]:
        lines.append(f"seat {seat['seat']}: {seat['frames']} of {seat['produced']} frames handled "
                     f"({seat['dropped']} dropped: the camera had a newer one by the time the seat was ready), "
                     f"{seat['cpu_pct']:.2f} % of a core on average, {seat['cards_presented']} card event(s)")
    if len(report["seats"]) > 1:
        lines.append(f"all {len(report['seats'])} seats together: {report['total_cpu_pct']:.2f} % of one core")
    return "\n".join(lines)
