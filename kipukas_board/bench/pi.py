"""``bench-pi``: the seat loop's figures for 1 to 4 seats, on the machine it runs on (a Pi).

The camera figures in the docs were measured on an x86 development machine; a Pi's cores are some
3-4 times slower, so its figures are estimates until a maker measures them. This bench is that
measurement, one command and a few minutes, in one of two ways:

* **Recorded frames** (``frames``): pictures of cards (the Pi camera's own, e.g. taken with
  ``rpicam-still``, or any labelled captures) are played as camera scenes before 1, then 2, 3 and 4
  seats at once, with fresh sensor noise on every frame, through the same path as the board
  (:func:`~kipukas_board.bench.camera.run_bench_camera`: a camera thread per seat, the seat's worker
  thread, card desk, change gate, pipeline and its WeChat process), followed by an empty scene.
  Everything runs in real time on the Pi's own cores, so dropped frames and first-read times are
  the Pi's.
* **Live cameras** (``cameras``): every seat the settings give a camera reads it for ``seconds``, all
  at once, as the board does, while the maker holds cards before them. Each camera first gets the
  focus and exposure its seat's calibration keeps, put on it as the running board puts them
  (:func:`~kipukas_board.calibrate.camera_controls.apply_controls`), so the figures are those of
  what the board sees; the table says per seat which settings it used.

Per number of seats it prints the CPU per seat while a card is held and while the stand is empty,
the total, the frames dropped, the cards read and the first-read times.

Example (not run as a doctest: it plays pictures before the seats in real time;
``tests/bench/test_bench_pi.py`` runs it)::

    >>> report = run_pi_bench(["card1.jpg", "card2.jpg"], max_seats=2, seconds=2)   # doctest: +SKIP
    >>> [(r["seats"], r["cards_read"]) for r in report["rows"]]                     # doctest: +SKIP
    [(1, 2), (2, 4)]
"""

from __future__ import annotations

import contextlib
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kipukas_board.bench.camera import BLANK, BenchCameraError, run_bench_camera


def _load() -> str:
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def machine() -> str:
    """What this machine is, for the table's head (a Pi says its model)."""
    import os
    import platform

    model = ""
    with contextlib.suppress(OSError):
        model = Path("/proc/device-tree/model").read_text(encoding="ascii", errors="replace").strip("\x00\n ")
    return f"{model or platform.machine()}, {os.cpu_count()} cores, load average {_load()}"


def run_pi_bench(frames: Sequence[str], max_seats: int = 4, seconds: float = 3.0, fps: float = 15.0,
                 noise: float = 2.0, budget_ms: float | None = None,
                 progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Recorded frames before 1..``max_seats`` seats at once (see above)."""
    if not frames:
        raise BenchCameraError("bench-pi needs pictures of cards (--frames) or --cameras")
    if not (1 <= max_seats <= 4):
        raise BenchCameraError(f"--seats must be 1 to 4, got {max_seats}")
    rows = []
    for seats in range(1, max_seats + 1):
        report = run_bench_camera([*frames, BLANK], fps=fps, seconds=seconds, noise=noise, seats=seats,
                                  budget_ms=budget_ms)
        cards = [s for s in report["scenes"] if s["image"] != BLANK]
        idle = [s for s in report["scenes"] if s["image"] == BLANK]
        firsts = [s["first_read_ms"] for s in cards if s["first_read_ms"] is not None]
        produced = sum(s["produced"] for s in report["seats"])
        rows.append({
            "seats": seats,
            "cards": len(cards), "cards_read": sum(1 for s in cards if s["codes"]),
            "cpu_held": round(statistics.fmean(s["cpu_pct"] for s in cards), 2),
            "cpu_idle": round(statistics.fmean(s["cpu_pct"] for s in idle), 2),
            "cpu_total": report["total_cpu_pct"],
            "dropped_pct": round(100 * sum(s["dropped"] for s in report["seats"]) / max(1, produced), 1),
            "first_ms_median": round(statistics.median(firsts), 1) if firsts else None,
            "first_ms_max": round(max(firsts), 1) if firsts else None,
            "budget_ms": report["budget_ms"],
        })
        if progress:
            progress(f"{seats} seat(s) done")
    return {"source": "frames", "machine": machine(), "fps": fps, "seconds": seconds, "noise": noise,
            "frames": [Path(f).name for f in frames], "rows": rows}


def _set_controls(cam: Any, controls: dict[str, Any], refused: str | None = None) -> dict[str, Any]:
    """Put a seat's calibrated ``controls`` on its camera as the board does (none: the camera's automatic
    settings, or its defaults where its adapter cannot set any); what was used, in words (``settings``,
    the seat's line above the table). ``refused``: why the calibration file was not applied, when the
    loader refused it (then there are no controls, and the line says why rather than "not calibrated").

    ``calibration`` says what became of the seat's calibration, for programs reading the JSON:
    ``applied`` (its focus and exposure are on the camera), ``not calibrated`` (the file keeps none for
    the seat, or there is no file: the camera runs on its automatic settings, as meant), ``file refused``
    (the board would apply no part of the file: automatic) or ``not applied`` (the camera refused them,
    or cannot set them). ``calibration_problem`` says what went wrong, None when nothing did."""
    from kipukas_board.calibrate.camera_controls import AUTOMATIC, apply_controls, describe

    state = "file refused" if refused is not None else "applied" if controls else "not calibrated"
    used = {"controls": controls, "calibration": state, "calibration_problem": refused,
            "settings": describe(controls, refused)}
    try:
        applied = apply_controls(cam, controls)
    except (ValueError, OSError, RuntimeError) as exc:  # as the board, which then runs on the camera's own
        if not controls:
            used["settings"] += f" (not put on automatic: {exc})"
            used["calibration_problem"] = "; ".join(filter(None, [refused, f"not put on automatic: {exc}"]))
        else:
            used["settings"] += (f" (calibrated, but not applied: {exc}"
                                 + (f"; {AUTOMATIC})" if isinstance(exc, ValueError) else ")"))
            used["calibration"], used["calibration_problem"] = "not applied", str(exc)
        return used
    if not controls:
        if not applied:  # no automatic settings to put it on: it keeps whatever it runs on
            used["settings"] = describe(controls, refused, automatic=False)
        return used
    if applied:
        used["settings"] += " (calibrated)"
    else:
        used["settings"] += " (calibrated; this camera cannot set them: camera defaults)"
        used["calibration"], used["calibration_problem"] = "not applied", "this camera cannot set them"
    return used


def run_live(cameras: Sequence[Any], seconds: float = 20.0, budget_ms: float | None = None,
             controls: dict[int, dict[str, Any]] | None = None,
             progress: Callable[[str], None] | None = None, refused: str | None = None) -> dict[str, Any]:
    """Each camera (one per seat) read at once for ``seconds`` by the board's workers and desk, after
    ``controls[seat]`` (the seat's calibrated focus and exposure, :func:`saved_controls
    <kipukas_board.calibrate.camera_controls.saved_controls>`) were put on it. ``refused``: why the
    calibration file was not applied (:attr:`~kipukas_board.calibrate.files.SavedFile.summary`), when
    the loader refused it; each seat's line says so."""
    import tempfile

    from kipukas_board.cards.catalog import Catalog
    from kipukas_board.settings import DEFAULT_BUDGET_MS
    from kipukas_board.vision.desk import CameraWorker, CardDesk

    if not cameras:
        raise BenchCameraError("the settings give no seat a camera ([[cameras]] with a seat and a real adapter)")
    lock = threading.Lock()
    per: dict[int, dict[str, Any]] = {c.seat: {"seat": c.seat, "frames": 0, "decoded": 0, "codes": {},
                                              "cpu_s": 0.0} for c in cameras}
    for cam in cameras:
        per[cam.seat].update(_set_controls(cam, (controls or {}).get(cam.seat, {}), refused))
        if progress:
            progress(f"seat {cam.seat}: {per[cam.seat]['settings']}")
    last_cpu: dict[int, float] = {}
    last_worker: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="kipukas-bench-pi-") as tmp:
        catalog = Catalog.in_dir(Path(tmp))
        desk = CardDesk(catalog, submit=lambda e, wait=True: None, budget_ms=budget_ms or DEFAULT_BUDGET_MS)
        for cam in cameras:
            desk.reader(cam.seat).pipeline.warm_up()
            last_worker[cam.seat] = desk.reader(cam.seat).pipeline.worker_cpu_ms()
        start = time.monotonic()

        def on_read(seat: int, read: Any, events: list[dict[str, Any]]) -> None:
            cpu = time.thread_time()
            worker = desk.reader(seat).pipeline.worker_cpu_ms() if read.decoded else last_worker[seat]
            with lock:
                p = per[seat]
                p["frames"] += 1
                p["decoded"] += int(read.decoded)
                p["cpu_s"] += cpu - last_cpu.get(seat, cpu) + (worker - last_worker[seat]) / 1000
                last_cpu[seat], last_worker[seat] = cpu, worker
                for code in read.codes:
                    if code not in p["codes"]:
                        p["codes"][code] = round((time.monotonic() - start) * 1000)
                        if progress:
                            progress(f"seat {seat} read {code}")

        desk.on_read = on_read
        workers = [CameraWorker(cam, desk, interval_s=0.005) for cam in cameras]
        for w in workers:
            w.start()
        try:
            time.sleep(seconds)
        finally:
            for w in workers:
                w.stop()
            desk.close()
            catalog.close()
    seats = [{**p, "cpu_pct": round(100 * p.pop("cpu_s") / seconds, 2), "fps": round(p["frames"] / seconds, 1)}
             for p in per.values()]
    return {"source": "cameras", "machine": machine(), "seconds": seconds, "seats": seats,
            "total_cpu_pct": round(sum(s["cpu_pct"] for s in seats), 2), "calibration_refused": refused}


def format_table(report: dict[str, Any]) -> str:
    """The report as a plain-text table."""
    if report["source"] == "cameras":
        head = f"{'seat':>4} {'frames':>6} {'fps':>5} {'decoded':>7} {'cpu %':>6}  codes (ms after the start)"
        lines = [f"live cameras for {report['seconds']:g} s on {report['machine']}; cpu % of one core"]
        lines += [f"seat {s['seat']} camera: {s.get('settings', 'camera defaults')}" for s in report["seats"]]
        lines += [head, "-" * len(head)]
        for s in report["seats"]:
            codes = ", ".join(f"{c} ({ms})" for c, ms in s["codes"].items()) or "-"
            lines.append(f"{s['seat']:>4} {s['frames']:>6} {s['fps']:>5.1f} {s['decoded']:>7} {s['cpu_pct']:>6.2f}  "
                         f"{codes}")
        lines.append(f"all seats together: {report['total_cpu_pct']:.2f} % of one core")
        return "\n".join(lines)
    head = (f"{'seats':>5} {'cards read':>10} {'first ms med/max':>16} {'cpu% held':>9} {'cpu% idle':>9} "
            f"{'cpu% total':>10} {'dropped %':>9}")
    lines = [f"{len(report['frames'])} recorded frame(s) as cards, {report['seconds']:g} s each then an empty stand, "
             f"{report['fps']:g} fps, noise sigma {report['noise']:g}, budget {report['rows'][0]['budget_ms']:g} ms of "
             f"CPU a frame, on {report['machine']}; cpu % of one core per seat (held, idle) and for all seats "
             "(total)", head, "-" * len(head)]
    for r in report["rows"]:
        first = "-" if r["first_ms_median"] is None else f"{r['first_ms_median']:.0f}/{r['first_ms_max']:.0f}"
        lines.append(f"{r['seats']:>5} {r['cards_read']:>4} of {r['cards']:<3} {first:>16} {r['cpu_held']:>9.1f} "
                     f"{r['cpu_idle']:>9.1f} {r['cpu_total']:>10.1f} {r['dropped_pct']:>9.1f}")
    return "\n".join(lines)
