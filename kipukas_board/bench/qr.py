"""``bench-qr``: how many codes each decoder alone, and the pipeline, read on a folder of captures.

The truth file is ``{"images": {"<file name>": {"codes": ["<payload>", ...]}}}``. For each image
every method runs on it in turn (so all see the same machine load), single-threaded, with no state
carried between images. Per method it counts:

* ``correct``: payloads in the truth that it read;
* ``wrong``: payloads it returned that are not in that image's truth;
* ``missed``: payloads in the truth that it did not read;
* ``unverified``: payloads read in an image whose truth is empty (a code is visible there but its
  payload is unknown, so it is neither right nor wrong);

and the median and 95th-percentile milliseconds per image, both of CPU time (the decoding thread's,
plus the pipeline's worker process for WeChat: what the budget counts, and what a busy machine does
not change) and of wall time.

"Alone" means the decoder on the full frame as the camera gives it (grey for zxing and ZBar, BGR
for WeChat), returning whatever it decodes. The pipeline returns only valid Kipukas payloads.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kipukas_board.vision.decoders import available_decoders
from kipukas_board.vision.pipeline import Pipeline, Strategy
from kipukas_board.vision.preprocess import Frame


class BenchError(ValueError):
    """A truth file or image folder that cannot be benchmarked (the message says why)."""


def load_truth(path: str | Path) -> dict[str, list[str]]:
    """``{file name: [payload, ...]}`` from a truth file, checked."""
    p = Path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BenchError(f"{p}: cannot read the truth file: {exc}") from exc
    images = doc.get("images") if isinstance(doc, dict) else None
    if not isinstance(images, dict):
        raise BenchError(f'{p}: expected {{"images": {{"<file name>": {{"codes": [...]}}}}}}')
    out: dict[str, list[str]] = {}
    for name, entry in images.items():
        codes = entry.get("codes") if isinstance(entry, dict) else None
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise BenchError(f'{p}: images["{name}"].codes must be a list of strings')
        out[name] = codes
    return out


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of a non-empty list."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))
    return s[k]


@dataclass
class Tally:
    correct: int = 0
    wrong: int = 0
    missed: int = 0
    unverified: int = 0
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    wrong_reads: list[str] = field(default_factory=list)

    def add(self, name: str, truth: list[str], codes: list[str], ms: float, cpu_ms: float) -> None:
        got, want = set(codes), set(truth)
        self.ms.append(ms)
        self.cpu_ms.append(cpu_ms)
        if not want:
            self.unverified += len(got)
            return
        self.correct += len(got & want)
        self.missed += len(want - got)
        bad = got - want
        self.wrong += len(bad)
        self.wrong_reads.extend(f"{name}: {b!r}" for b in sorted(bad))

    def to_json(self) -> dict[str, Any]:
        return {"correct": self.correct, "wrong": self.wrong, "missed": self.missed,
                "unverified": self.unverified,
                "median_ms": round(statistics.median(self.ms), 2) if self.ms else None,
                "mean_ms": round(statistics.fmean(self.ms), 2) if self.ms else None,
                "p95_ms": round(percentile(self.ms, 95), 2) if self.ms else None,
                "median_cpu_ms": round(statistics.median(self.cpu_ms), 2) if self.cpu_ms else None,
                "mean_cpu_ms": round(statistics.fmean(self.cpu_ms), 2) if self.cpu_ms else None,
                "p95_cpu_ms": round(percentile(self.cpu_ms, 95), 2) if self.cpu_ms else None,
                "wrong_reads": self.wrong_reads}


#: A method takes a BGR frame and returns the codes it read and, when it knows better than the
#: calling thread's CPU clock (a pipeline with a worker process), its own CPU ms.
Method = Callable[[Any], tuple[list[str], float | None]]


def _alone(name: str, dec: Any) -> Method:
    def run(bgr: Any) -> tuple[list[str], float | None]:
        if name == "wechat":
            img = bgr
        else:
            img = Frame(bgr).channel("gray")
        return [d.text for d in dec(img) if not d.located], None

    return run


def _pipelined(pipe: Pipeline) -> Method:
    def run(bgr: Any) -> tuple[list[str], float | None]:
        result = pipe.decode(bgr)
        return result.codes, result.cpu_ms

    return run


def _variants() -> dict[str, Callable[[Any], Any]]:
    """Ways to turn the captures we have into captures we do not have (checks for over-fitting)."""
    import cv2
    import numpy as np

    def jpeg(img: Any, q: int = 35) -> Any:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)

    return {
        "none": lambda img: img,
        "mirror": lambda img: cv2.flip(img, 1),              # a front camera that mirrors
        "dim": lambda img: (img.astype(np.float32) * 0.55).astype(np.uint8),  # a darker room
        "jpeg35": jpeg,                                        # a cheap camera's compression
        "640x360": lambda img: cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA),  # a lower resolution
        "rot90": lambda img: cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE),  # a camera mounted sideways
        "blur": lambda img: cv2.GaussianBlur(img, (0, 0), 1.2),  # worse focus
    }


VARIANTS = ("none", "mirror", "dim", "jpeg35", "640x360", "rot90", "blur")


def run_bench(folder: str | Path, truth_path: str | Path, strategies: bool = False, variant: str = "none",
              pipeline_factory: Callable[[], Pipeline] | None = None,
              progress: Callable[[str], None] | None = None, budget_ms: float = 80.0) -> dict[str, Any]:
    """Benchmark every available decoder alone and the pipeline; optionally each strategy alone.

    The pipeline is the one ``scan`` uses (WeChat in a worker process, ``budget_ms`` of CPU per
    image); it keeps no state between images (no region of interest, no heavy interval).
    """
    import cv2

    cv2.setNumThreads(1)
    transform = _variants()[variant]
    folder = Path(folder)
    truth = load_truth(truth_path)
    missing = [n for n in truth if not (folder / n).is_file()]
    if missing:
        raise BenchError(f"{folder}: {len(missing)} image(s) named in the truth file are missing: "
                         f"{', '.join(missing[:5])}")
    decoders = available_decoders()
    methods: dict[str, Method] = {n: _alone(n, d) for n, d in decoders.items()}
    pipe = (pipeline_factory or (lambda: Pipeline(budget_ms=budget_ms, isolate=True)))()
    try:
        methods["pipeline"] = _pipelined(pipe)
        if strategies:
            for s in pipe.strategies:
                if not s.located:  # alone it has nothing located to look at
                    methods[f"strategy {s.name}"] = _strategy(s, decoders)
        tallies = {m: Tally() for m in methods}
        for name in sorted(truth):
            bgr = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
            if bgr is None:
                raise BenchError(f"{folder / name}: not an image OpenCV can read")
            bgr = transform(bgr)
            for m, fn in methods.items():
                t0, c0 = time.perf_counter(), time.thread_time()
                codes, own_cpu = fn(bgr)
                cpu = (time.thread_time() - c0) * 1000 if own_cpu is None else own_cpu
                tallies[m].add(name, truth[name], codes, (time.perf_counter() - t0) * 1000, cpu)
            if progress:
                progress(name)
    finally:
        pipe.close()
    return {"images": len(truth), "codes": sum(len(c) for c in truth.values()), "variant": variant,
            "budget_ms": pipe.budget_ms, "methods": {m: t.to_json() for m, t in tallies.items()}}


def run_live(folder: str | Path, truth_path: str | Path, frames: int, variant: str = "none") -> dict[str, Any]:
    """Each capture held before a camera for ``frames`` frames: the camera-mode pipeline (region of
    interest, heavy strategies at most once a second) per image; frames read and ms per frame."""
    import cv2

    cv2.setNumThreads(1)
    transform = _variants()[variant]
    truth = load_truth(truth_path)
    decoders = available_decoders()
    per_frame: list[float] = []
    read = total = 0
    for name in sorted(truth):
        if not truth[name]:
            continue
        bgr = cv2.imread(str(Path(folder) / name), cv2.IMREAD_COLOR)
        if bgr is None:
            raise BenchError(f"{Path(folder) / name}: not an image OpenCV can read")
        bgr = transform(bgr)
        pipe = Pipeline(decoders=decoders, remember_roi=True, heavy_interval_s=1.0)
        for _ in range(frames):
            t0 = time.perf_counter()
            codes = pipe.decode(bgr).codes
            per_frame.append((time.perf_counter() - t0) * 1000)
            total += 1
            read += bool(set(codes) & set(truth[name]))
    return {"frames": total, "frames_read": read, "median_ms": round(statistics.median(per_frame), 2),
            "mean_ms": round(statistics.fmean(per_frame), 2), "p95_ms": round(percentile(per_frame, 95), 2)}


def _strategy(s: Strategy, decoders: dict[str, Any]) -> Method:
    one = Pipeline(strategies=[s], budget_ms=1e9, decoders=decoders)
    return lambda bgr: (one.decode(bgr).codes, None)


def format_table(report: dict[str, Any]) -> str:
    """The report as a plain-text table, one row per method."""
    head = (f"{'method':<40} {'correct':>7} {'wrong':>5} {'missed':>6} {'unverif':>7} {'cpu med':>8} "
            f"{'cpu p95':>8} {'cpu mean':>8} {'wall med':>8} {'wall p95':>8}")
    lines = [f"{report['images']} images, {report['codes']} codes, variant {report.get('variant', 'none')}, "
             f"pipeline budget {report.get('budget_ms', 80):g} ms of CPU; times in ms", head, "-" * len(head)]
    for m, t in report["methods"].items():
        lines.append(f"{m:<40} {t['correct']:>7} {t['wrong']:>5} {t['missed']:>6} {t['unverified']:>7} "
                     f"{t['median_cpu_ms']:>8.2f} {t['p95_cpu_ms']:>8.2f} {t['mean_cpu_ms']:>8.2f} "
                     f"{t['median_ms']:>8.2f} {t['p95_ms']:>8.2f}")
    return "\n".join(lines)
