"""Card scanning commands.

    kipukas-board scan PATH... [--camera N] [--budget-ms MS] [--json]   # decode images (or a camera frame)
    kipukas-board scan --seat N [--seconds S] [--json]    # read seat N's camera as the board does
    kipukas-board bench-qr DIR --truth truth.json [--json] [--strategies] [--budget-ms MS]
    kipukas-board bench-camera IMAGE... [--fps F] [--seconds S] [--noise SIGMA] [--jitter PX] [--seats N] [--json]
    kipukas-board bench-pi (--frames IMAGE... | --cameras [--data-dir DIR]) [--seats N] [--seconds S] [--json]
    kipukas-board bench-robustness DIR --truth FILE [--conditions A,B] [--limit N] [--seed N] [--idle-view IMG] ...
    kipukas-board catalog import PATH_OR_URL [--data-dir DIR]
    kipukas-board catalog show CODE [--data-dir DIR]
    kipukas-board cameras [--settings FILE]               # which camera serves which seat

``scan`` decodes each image on its own, single-threaded, with a fresh pipeline (no state carried
between images) and prints what it read; with ``--json`` the last line is
``{"images": {"<file name>": {"codes": [...], "ms": 12.3}}}``. ``bench-qr`` prints a table of
correct / wrong / missed / median / p95 per decoder alone and for the pipeline, and with ``--json``
one JSON object as its last line. Exit codes: 0 done, 1 a run-time failure, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kipukas_board.bench.qr import VARIANTS
from kipukas_board.cards.store import CATALOG_FILE
from kipukas_board.commands.argtypes import at_least, between, milliseconds, non_negative, positive
from kipukas_board.commands.run import DATA_DIR_HELP
from kipukas_board.settings import DEFAULT_BUDGET_MS

if TYPE_CHECKING:
    from kipukas_board.calibrate.files import SavedFile

#: The largest ``--seed``: a 32-bit number, short enough to write down beside a table.
SEED_MAX = 2**32 - 1


def _condition_names() -> list[str]:
    from kipukas_board.bench.conditions import CONDITIONS

    return list(CONDITIONS)


def _conditions(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in _condition_names()]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"unknown condition(s) {', '.join(unknown) or repr(text)}; expected a "
                                         f"comma-separated list of {', '.join(_condition_names())}")
    return names


def register(sub: Any) -> None:
    s = sub.add_parser("scan", help="decode Kipukas QR codes in images or a camera frame",
                       description="Decode each image on its own (single-threaded, no state between images).")
    s.add_argument("paths", nargs="*", metavar="PATH", help="image files")
    s.add_argument("--camera", type=at_least(0), metavar="N",
                   help="also read one frame from OpenCV camera index N (a USB camera; not a Pi camera module)")
    s.add_argument("--seat", type=at_least(1), metavar="N",
                   help="read the camera the settings give seat N through its adapter (picamera2, opencv, "
                        "files) for --seconds while autofocus settles, printing each code it reads")
    s.add_argument("--seconds", type=positive, default=5.0, help="how long --seat reads (default 5)")
    s.add_argument("--settings", type=Path, help="settings file for --seat (default $KIPUKAS_SETTINGS or the "
                                                 "system one)")
    s.add_argument("--data-dir", type=Path, help="data directory whose calibration holds the seat's focus and "
                                                 "exposure (default: the service's, as the settings say)")
    s.add_argument("--budget-ms", type=milliseconds, default=None, metavar="MS",
                   help="CPU time each image may cost (default 80; with --seat, the settings' [vision] "
                        "budget_ms); a frame that runs out says so")
    s.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    s.set_defaults(func=scan)

    b = sub.add_parser("bench-qr", help="measure the QR decoders and the pipeline on captures with known payloads")
    b.add_argument("dir", type=Path, help="folder of captures")
    b.add_argument("--truth", type=Path, required=True, help='truth file: {"images": {"<name>": {"codes": [...]}}}')
    b.add_argument("--strategies", action="store_true", help="also measure each pipeline strategy alone")
    b.add_argument("--variant", choices=VARIANTS, default="none",
                   help="alter every capture first (mirror, dim, jpeg35, 640x360, rot90, blur) to check "
                        "the pipeline on captures unlike the ones it was ordered on")
    b.add_argument("--live", type=at_least(0), metavar="N", default=0,
                   help="also hold each capture before a simulated camera for N frames (camera-mode pipeline)")
    b.add_argument("--budget-ms", type=milliseconds, default=80.0, metavar="MS",
                   help="the pipeline's CPU time per image (default 80)")
    b.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    b.set_defaults(func=bench)

    bc = sub.add_parser("bench-camera", help="measure what a seat's camera costs while images play before it",
                        description="Play each IMAGE as a still camera scene with fresh sensor noise on every "
                                    "frame, through the camera worker, card desk and pipeline the board runs, and "
                                    "print per scene the CPU used, the frames read and the first read's delay.")
    bc.add_argument("images", nargs="+", metavar="IMAGE", help="image files, or 'blank' for an empty scene")
    bc.add_argument("--fps", type=positive, default=15.0, help="frames a second (default 15)")
    bc.add_argument("--seconds", type=positive, default=5.0, help="seconds each scene is shown (default 5)")
    bc.add_argument("--noise", type=non_negative, default=3.0, metavar="SIGMA",
                    help="Gaussian sensor noise in grey levels, fresh on every frame (default 3)")
    bc.add_argument("--jitter", type=at_least(0), default=0, metavar="PX",
                    help="move the picture by up to PX pixels between frames, as a hand-held card (default 0)")
    bc.add_argument("--seats", type=at_least(1), default=1, help="seats playing the scenes at once (default 1)")
    bc.add_argument("--budget-ms", type=milliseconds, default=None, metavar="MS",
                    help="CPU time a frame may cost (default the board's, 80)")
    bc.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    bc.set_defaults(func=bench_camera)

    br = sub.add_parser("bench-robustness", help="hold each capture before a seat's loop under worse camera "
                                                 "conditions and count what it reads within a second",
                        description="Apply each camera condition (noise, motion blur, JPEG, half resolution, "
                                    "-1 EV, glare) to every capture with known codes, hold it before a seat's loop "
                                    "with fresh sensor noise on every frame, and print per condition the codes read "
                                    "within --within seconds, the first-read times, the loop's CPU while a card is "
                                    "held and while the stand is empty, and the still-image counts and CPU of the "
                                    "pipeline and of WeChat alone on the same frames.")
    br.add_argument("dir", type=Path, help="folder of captures")
    br.add_argument("--truth", type=Path, required=True, help='truth file: {"images": {"<name>": {"codes": [...]}}}')
    br.add_argument("--conditions", type=_conditions, default=None, metavar="A,B",
                    help="conditions to apply (default all: " + ", ".join(_condition_names()) + ")")
    br.add_argument("--limit", type=at_least(1), default=None, metavar="N", help="only the first N captures (by name)")
    br.add_argument("--fps", type=positive, default=15.0, help="frames a second (default 15)")
    br.add_argument("--seconds", type=positive, default=2.0, help="how long each card is held (default 2)")
    br.add_argument("--within", type=positive, default=1.0, help="a card counts as read within this many seconds "
                                                              "(default 1)")
    br.add_argument("--budget-ms", type=milliseconds, default=DEFAULT_BUDGET_MS, metavar="MS",
                    help=f"CPU time a frame may cost (default the board's, {DEFAULT_BUDGET_MS:g})")
    br.add_argument("--idle", type=positive, default=10.0, help="seconds the empty stand is watched for the idle "
                                                              "CPU (default 10)")
    br.add_argument("--idle-view", type=Path, default=None, metavar="IMAGE",
                    help="a picture of the empty stand as the seat's camera sees it (the room behind it) to watch "
                         "for the idle CPU, instead of a blank grey view")
    br.add_argument("--seed", type=between(0, SEED_MAX), default=0, metavar="N",
                    help="seed of the sensor noise (default 0): a run with the same seed shows every card the same "
                         "noise, another seed other noise, to see how much the figures owe to one draw")
    br.add_argument("--no-search", action="store_true", help="without the search across frames (to compare)")
    br.add_argument("--cpu-scale", type=positive, default=1.0, metavar="X",
                    help="take the seat's core to be X times slower than this machine's (1 to 10; 3.5 for a "
                         "Raspberry Pi 4): every CPU time the loop measures, its budget's too, counts X times "
                         "over, an estimate of what a slower board reads in time (default 1)")
    br.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    br.set_defaults(func=bench_robustness)

    bp = sub.add_parser("bench-pi", help="the seat loop's figures for 1 to 4 seats on this machine (run it on a Pi)",
                        description="With --frames: play the pictures of cards as camera scenes (then an empty "
                                    "stand) before 1, 2, 3 and 4 seats at once, in real time on this machine's "
                                    "cores, and print per number of seats the cards read, first reads, CPU and "
                                    "dropped frames. With --cameras: read every seat's camera from the settings "
                                    "at once for --seconds while you hold cards before them, each with the focus "
                                    "and exposure its calibration gives it, as the board sets them.")
    src = bp.add_mutually_exclusive_group(required=True)
    src.add_argument("--frames", nargs="+", metavar="IMAGE", help="pictures of cards, all of one size (e.g. taken "
                                                                  "with rpicam-still by the seat's camera)")
    src.add_argument("--cameras", action="store_true", help="the settings' cameras, live")
    bp.add_argument("--seats", type=at_least(1), default=4, help="up to this many seats at once (default 4)")
    bp.add_argument("--seconds", type=positive, default=None,
                    help="seconds each picture is shown (default 3), or the live reading lasts (default 20)")
    bp.add_argument("--noise", type=non_negative, default=2.0, metavar="SIGMA",
                    help="sensor noise added to recorded frames (default 2)")
    bp.add_argument("--settings", type=Path, help="settings file: the cameras for --cameras, the decode budget for "
                                                  "both (default $KIPUKAS_SETTINGS or the system one)")
    bp.add_argument("--data-dir", type=Path, help="data directory whose calibration holds each seat's focus and "
                                                  "exposure for --cameras (default: the service's, as the settings "
                                                  "say)")
    bp.add_argument("--budget-ms", type=milliseconds, default=None, metavar="MS",
                    help="CPU time a frame may cost (default the board's, or the settings' [vision] budget_ms)")
    bp.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    bp.set_defaults(func=bench_pi)

    c = sub.add_parser("catalog", help="import or look up the card catalog")
    csub = c.add_subparsers(dest="catalog_command", metavar="ACTION", required=True)
    ci = csub.add_parser("import", help="import a catalog JSON file or https URL, or a game mode's TOML card "
                                        "file (all-or-nothing)")
    ci.add_argument("source", metavar="PATH_OR_URL")
    ci.add_argument("--data-dir", type=Path, help=DATA_DIR_HELP)
    ci.set_defaults(func=catalog_import)
    cs = csub.add_parser("show", help="print one card's data by its code")
    cs.add_argument("code")
    cs.add_argument("--data-dir", type=Path, help=DATA_DIR_HELP)
    cs.set_defaults(func=catalog_show)
    st = csub.add_parser("stickers", help="print a game mode's card file as a sheet of QR stickers (PDF or SVG)")
    st.add_argument("file", type=Path, help="the TOML card file")
    st.add_argument("--out", type=Path, required=True, help="sheet.pdf or sheet.svg")
    st.set_defaults(func=catalog_stickers)


    cam = sub.add_parser("cameras", help="list the configured cameras and the seat each one serves")
    cam.add_argument("--settings", type=Path, help="settings file (default $KIPUKAS_SETTINGS or the system one)")
    cam.set_defaults(func=cameras)


def _err(msg: str) -> None:
    print(f"kipukas-board: {msg}", file=sys.stderr)


def _saved_calibration(settings: Any, spath: Path | None, data_dir_arg: Path | None) -> SavedFile:
    """The calibration file the board would start with (the start map's, in the data directory a
    diagnostic reads), read and accepted or refused as the board reads it
    (:func:`~kipukas_board.calibrate.files.read_saved`): a refused file is named on stderr with the
    board's reason and none of it is used, as the board uses none of it."""
    from kipukas_board.board.mapfile import load_map, map_exists
    from kipukas_board.calibrate.files import read_saved
    from kipukas_board.commands.run import board_data_dir
    from kipukas_board.show.layout import map_calibration_path
    from kipukas_board.store.map_choice import started_map

    data_dir = board_data_dir(data_dir_arg, spath)
    board = load_map(started_map(settings.map, data_dir, exists=map_exists))
    saved = read_saved(map_calibration_path(settings.calibration, data_dir, board), board)
    if saved.problem is not None:
        _err(f"calibration not applied, the cameras run on their automatic settings: {saved.problem}")
    return saved


def _seat_camera(args: argparse.Namespace) -> tuple[Any, str, dict[str, Any], str | None, float]:
    """Seat ``args.seat``'s camera as the settings build it, that seat's calibrated controls, why the
    calibration file was not applied (None: it was, or there is none), and the settings' decode
    budget (``[vision] budget_ms``, which every seat of the board uses)."""
    from kipukas_board.calibrate.camera_controls import saved_controls
    from kipukas_board.commands.run import settings_path
    from kipukas_board.hardware.registry import build
    from kipukas_board.settings import load_settings

    spath = settings_path(args.settings)
    if spath is not None and not spath.exists():
        raise ValueError(f"settings file {spath} does not exist")
    settings = load_settings(spath)
    seats = {c.options.get("seat"): c for c in settings.cameras}
    choice = seats.get(args.seat)
    if choice is None:
        have = ", ".join(str(n) for n in sorted(k for k in seats if isinstance(k, int))) or "none"
        raise ValueError(f"the settings ({spath or 'defaults'}) have no [[cameras]] table with seat = {args.seat} "
                         f"(seats with a camera: {have})")
    if choice.adapter == "sim":
        raise ValueError(f"seat {args.seat}'s camera is the simulated one (adapter = \"sim\"): it has no frames. "
                         f"Set adapter = \"picamera2\" (a Pi camera module) or \"opencv\" (USB) in its "
                         f"[[cameras]] table")
    saved = _saved_calibration(settings, spath, args.data_dir)
    controls = saved_controls(saved.calibration, args.seat)
    cam = build("cameras", choice.adapter, **choice.options)
    return cam, choice.adapter, controls, saved.summary, settings.budget_ms


def scan_seat(args: argparse.Namespace) -> int:
    """Read seat N's camera for a few seconds the way the board does (its adapter, its pipeline),
    printing each code the first time it is read; exit 0 once a Kipukas code was read."""
    from kipukas_board.calibrate.camera_controls import apply_controls, describe
    from kipukas_board.hardware.registry import AdapterError
    from kipukas_board.settings import SettingsError
    from kipukas_board.vision.pipeline import Pipeline
    from kipukas_board.vision.preprocess import FrameError

    try:
        cam, adapter, controls, not_applied, budget_ms = _seat_camera(args)
    except (SettingsError, AdapterError, ValueError) as exc:
        _err(str(exc))
        return 2
    except (OSError, RuntimeError) as exc:  # the device is missing, busy or refuses to start
        _err(f"seat {args.seat}'s camera did not open: {exc}")
        return 1
    codes: dict[str, float] = {}
    refused: dict[str, str] = {}
    frames = decoded_ms = 0.0
    status = 1
    pipe: Pipeline | None = None
    try:
        automatic = True
        try:  # as the board: a seat not calibrated runs on its camera's automatic settings
            applied = apply_controls(cam, controls)
            if not applied and controls:
                _err(f"camera controls not applied: the {adapter} adapter cannot set them (camera defaults)")
            automatic = applied or bool(controls)  # else none to put it on: it keeps its defaults
        except (ValueError, OSError, RuntimeError) as exc:
            _err(f"camera controls not applied: {exc}")
        print(f"seat {args.seat}: {adapter} camera ({describe(controls, not_applied, automatic=automatic)})"
              + f"; reading for {args.seconds:g} s with {args.budget_ms or budget_ms:g} ms of CPU a frame, "
              "show a card's back 15-20 cm from the camera", flush=True)
        pipe = Pipeline(remember_roi=True, budget_ms=args.budget_ms or budget_ms, isolate=True)
        pipe.warm_up()  # WeChat's worker process is started before the seconds count
        t0 = time.monotonic()
        while time.monotonic() - t0 < args.seconds:
            frame = cam.read()
            if frame is None:
                time.sleep(0.05)
                continue
            frames += 1
            try:
                result = pipe.decode(frame)
            except FrameError as exc:
                _err(f"frame {int(frames)}: {exc}")
                continue
            decoded_ms += result.ms
            at = time.monotonic() - t0
            for code in result.codes:
                if code not in codes:
                    codes[code] = round(at, 2)
                    print(f"{at:5.1f} s  read {code}", flush=True)
            for text, why in result.refused.items():
                if text not in refused:
                    refused[text] = why
                    print(f"{at:5.1f} s  refused {text[:60]!r}: {why}", flush=True)
    finally:
        cam.close()
        if pipe is not None:
            pipe.close()
    err = getattr(cam, "error", None)
    if not frames:
        _err(f"seat {args.seat}'s camera gave no frame in {args.seconds:g} s" + (f": {err}" if err else ""))
    elif codes:
        status = 0
    print(f"{int(frames)} frame(s), {len(codes)} code(s) read, {len(refused)} refused"
          + (f", {decoded_ms / frames:.0f} ms a frame to decode" if frames else ""))
    if args.json:
        print(json.dumps({"seat": args.seat, "adapter": adapter, "frames": int(frames), "codes": codes,
                          "refused": refused}))
    return status


def _say_missing_decoders() -> Any:
    """Name on stderr every QR decoder this machine lacks, with what to install (a ``DecoderHealth``)."""
    from kipukas_board.vision.decoders import decoder_health

    health = decoder_health()
    for line in health.lines():
        _err(line)
    return health


def scan(args: argparse.Namespace) -> int:
    decoders = _say_missing_decoders()
    if not decoders.available:
        return 1
    if args.seat is not None:
        if args.paths or args.camera is not None:
            _err("scan --seat reads one seat's camera; give no PATH or --camera with it")
            return 2
        return scan_seat(args)
    if not args.paths and args.camera is None:
        _err("scan needs at least one PATH, --camera N or --seat N")
        return 2
    if args.budget_ms is not None and not args.budget_ms > 0:
        _err(f"--budget-ms must be a number of milliseconds above 0, got {args.budget_ms}")
        return 2
    try:
        import cv2
    except ImportError as exc:
        _err(f"scan reads images with OpenCV, which this Python cannot import ({exc}): on the Pi "
             f"`sudo scripts/install-pi` installs it (python3-opencv); elsewhere pip install opencv-python-headless")
        return 1

    from kipukas_board.vision.pipeline import Pipeline

    cv2.setNumThreads(1)
    out: dict[str, Any] = {}
    status = 0
    frames: list[tuple[str, Any]] = []
    names = [Path(p).name for p in args.paths]
    for p, name in zip(args.paths, names, strict=True):
        # keyed by file name (the contract); two files of one name in different folders keep their paths
        key = name if names.count(name) == 1 else p
        t0 = time.perf_counter()
        img = cv2.imread(p, cv2.IMREAD_COLOR)
        if img is None:
            _err(f"{p}: not an image file OpenCV can read (expected JPEG, PNG, ...)")
            status = 2
            out[key] = {"codes": [], "ms": round((time.perf_counter() - t0) * 1000, 2),
                        "error": "not a readable image"}
        else:
            out[key] = {}  # filled below, in the order the paths were given
            frames.append((key, img))
    if args.camera is not None:
        from kipukas_board.hardware.cameras.opencv import OpenCVCamera

        cam = OpenCVCamera(seat=0, device=args.camera)
        try:
            frame = cam.read()
        except OSError as exc:
            frame = None
            _err(str(exc))
        finally:
            cam.close()
        if frame is None:
            status = 1
        else:
            frames.append((f"camera {args.camera}", frame))
    pipeline = Pipeline(budget_ms=args.budget_ms or DEFAULT_BUDGET_MS, isolate=True) if frames else None
    try:
        for name, img in frames:
            # no state between images: the pipeline keeps none without a region of interest
            result = pipeline.decode(img)
            out[name] = {"codes": result.codes, "ms": round(result.ms, 2), "cpu_ms": round(result.cpu_ms, 2)}
            if result.refused:
                out[name]["refused"] = result.refused
            note = result.budget_note()
            if note:
                out[name]["over_budget"] = True
                out[name]["budget_note"] = note
            if not args.json:
                codes = ", ".join(result.codes) or "no Kipukas code"
                print(f"{name}: {codes} ({result.ms:.1f} ms, {result.cpu_ms:.1f} ms of CPU)")
                for text, why in result.refused.items():
                    print(f"  refused {text[:60]!r}: {why}")
                if note:
                    print(f"  {note}")
    finally:
        if pipeline is not None:
            pipeline.close()
    if args.json:
        print(json.dumps({"images": out, "decoders_missing": list(decoders.missing)}))
    return status


def bench(args: argparse.Namespace) -> int:
    from kipukas_board.bench.qr import BenchError, format_table, run_bench, run_live

    try:
        report = run_bench(args.dir, args.truth, strategies=args.strategies, variant=args.variant,
                           progress=None if args.json else lambda n: print(f"  {n}", file=sys.stderr),
                           budget_ms=args.budget_ms)
    except BenchError as exc:
        _err(str(exc))
        return 2
    print(format_table(report))
    if args.live > 0:
        live = run_live(args.dir, args.truth, args.live, variant=args.variant)
        report["live"] = live
        print(f"camera mode, each capture held for {args.live} frames: {live['frames_read']}/{live['frames']} "
              f"frames read; per frame median {live['median_ms']:.2f} ms, mean {live['mean_ms']:.2f} ms, "
              f"p95 {live['p95_ms']:.2f} ms")
    if args.json:
        print(json.dumps(report))
    return 0


def bench_camera(args: argparse.Namespace) -> int:
    from kipukas_board.bench.camera import BenchCameraError, format_table, run_bench_camera

    try:
        report = run_bench_camera(args.images, fps=args.fps, seconds=args.seconds, noise=args.noise,
                                  seats=args.seats, budget_ms=args.budget_ms, jitter=args.jitter)
    except BenchCameraError as exc:
        _err(str(exc))
        return 2
    print(format_table(report))
    if args.json:
        print(json.dumps(report))
    return 0


def bench_robustness(args: argparse.Namespace) -> int:
    from kipukas_board.bench.qr import BenchError
    from kipukas_board.bench.robustness import format_table, run_robustness

    try:
        report = run_robustness(args.dir, args.truth, args.conditions, limit=args.limit, fps=args.fps,
                                seconds=args.seconds, within_s=args.within, budget_ms=args.budget_ms,
                                search=not args.no_search, idle_s=args.idle, seed=args.seed,
                                idle_view=args.idle_view, cpu_scale=args.cpu_scale,
                                progress=None if args.json else lambda n: print(f"  {n} done", file=sys.stderr))
    except BenchError as exc:
        _err(str(exc))
        return 2
    print(format_table(report))
    if args.json:
        print(json.dumps(report))
    return 0


def bench_pi(args: argparse.Namespace) -> int:
    from kipukas_board.bench.camera import BenchCameraError
    from kipukas_board.bench.pi import format_table, run_live, run_pi_bench
    from kipukas_board.commands.run import settings_path
    from kipukas_board.settings import SettingsError, load_settings

    say = None if args.json else lambda line: print(f"  {line}", file=sys.stderr, flush=True)
    cameras: list[Any] = []
    spath = settings_path(args.settings)
    if spath is not None and not spath.exists():
        _err(f"settings file {spath} does not exist")
        return 2
    try:
        settings = load_settings(spath)  # the board's decode budget, as on this machine (300 on a Pi)
    except SettingsError as exc:
        _err(f"{exc.path}: " + "; ".join(exc.problems))
        return 2
    try:
        if args.frames:
            report = run_pi_bench(args.frames, max_seats=args.seats, seconds=args.seconds or 3.0,
                                  noise=args.noise, budget_ms=args.budget_ms or settings.budget_ms, progress=say)
        else:
            from kipukas_board.calibrate.camera_controls import saved_controls
            from kipukas_board.hardware.registry import build

            chosen = sorted((c for c in settings.cameras if c.adapter != "sim"),
                            key=lambda c: c.options.get("seat", 0))[:args.seats]
            saved = _saved_calibration(settings, spath, args.data_dir) if chosen else None
            cal, refused = (saved.calibration, saved.summary) if saved is not None else (None, None)
            cameras = [build("cameras", c.adapter, **c.options) for c in chosen]
            seconds = args.seconds or 20.0
            print(f"reading {len(cameras)} seat camera(s) for {seconds:g} s: hold a card before each now",
                  file=sys.stderr, flush=True)
            report = run_live(cameras, seconds=seconds, budget_ms=args.budget_ms or settings.budget_ms,
                              controls={cam.seat: saved_controls(cal, cam.seat) for cam in cameras},
                              progress=say, refused=refused)
    except BenchCameraError as exc:
        _err(str(exc))
        return 2
    except (OSError, RuntimeError, ValueError) as exc:
        _err(f"bench-pi could not run: {exc}")
        return 1
    finally:
        for cam in cameras:
            cam.close()
    print(format_table(report))
    if args.json:
        print(json.dumps(report))
    return 0


def catalog_import(args: argparse.Namespace) -> int:
    from kipukas_board.cards.catalog import Catalog, CatalogError
    from kipukas_board.commands.run import find_data_dir
    from kipukas_board.modes.card_files import is_deck_file

    try:
        where = find_data_dir(args.data_dir)
    except ValueError as exc:
        _err(str(exc))
        return 2
    problem = where.write_problem("catalog import")
    if problem is not None:
        _err(problem)
        return 2
    note = where.write_note()
    if note is not None:
        _err(note)
    print(where.line())
    data_dir = where.path
    if is_deck_file(args.source):
        return _import_card_file(Path(args.source), Path(data_dir))
    cat = Catalog.in_dir(data_dir)
    try:
        n = cat.import_source(args.source)
    except CatalogError as exc:
        _err(str(exc))
        return 2
    finally:
        cat.close()
    print(f"imported {n} card{'' if n == 1 else 's'} from {args.source} into {Path(data_dir) / CATALOG_FILE}")
    return 0


def _read_file(path: Path) -> bytes | None:
    """A card file's bytes (at most one byte past the limit, so a larger one is refused unread);
    None after saying why it cannot be read."""
    from kipukas_board.modes.card_files import MAX_CARD_FILE

    try:
        with path.open("rb") as fh:
            return fh.read(MAX_CARD_FILE + 1)
    except OSError as exc:
        _err(f"{path}: cannot read: {exc}")
        return None


def _read_card_file(path: Path) -> tuple[Any, Any] | None:
    """The game mode a TOML card file is for, and the file checked; None after saying what is wrong
    (the checks and words of :mod:`kipukas_board.modes.card_files`, which the page's upload uses too)."""
    from kipukas_board.modes.card_files import CardFileRefused, read_deck

    data = _read_file(path)
    if data is None:
        return None
    try:
        return read_deck(str(path), data)
    except CardFileRefused as exc:
        _err(str(exc))
        return None


def _import_card_file(path: Path, data_dir: Path) -> int:
    from kipukas_board.cards.mode_catalog import ModeCards
    from kipukas_board.modes.card_files import CardFileRefused, import_deck

    data = _read_file(path)
    if data is None:
        return 2
    store = ModeCards.in_dir(data_dir)
    try:
        done = import_deck(str(path), data, store)
    except CardFileRefused as exc:
        _err(str(exc))
        return 2
    finally:
        store.close()
    print(done.summary)
    for w in done.notes:
        print(f"  note: {w}")
    return 0


def catalog_stickers(args: argparse.Namespace) -> int:
    from kipukas_board.modes.stickers import StickerError, write_sheet

    read = _read_card_file(args.file)
    if read is None:
        return 2
    mode, cards = read
    try:
        # one sticker per card, or per copy where the mode's cards come in copies
        stickers = cards.sticker_records() if hasattr(cards, "sticker_records") else cards.records()
        pages = write_sheet(mode, stickers, args.out)
    except StickerError as exc:
        _err(str(exc))
        return 2
    print(f"wrote {len(stickers)} stickers on {pages} page(s) to {args.out}")
    return 0


def catalog_show(args: argparse.Namespace) -> int:
    """Print one card. It only reads, so it opens the catalog read-only (``CardStore.read_only_in``):
    the Pi's first user may run it on the service's files, and nothing is created or changed."""
    import sqlite3

    from kipukas_board.cards.catalog import Catalog, UnknownCard
    from kipukas_board.cards.mode_catalog import ModeCards
    from kipukas_board.cards.store import CardStore, CatalogFileError
    from kipukas_board.commands.run import find_data_dir

    try:
        where = find_data_dir(args.data_dir)
    except ValueError as exc:
        _err(str(exc))
        return 2
    print(where.line(), file=sys.stderr)  # stdout holds only the card's JSON
    hit = None
    if ":" in args.code:  # a game mode's sticker payload, e.g. cct:fox-1
        from kipukas_board.cards.mode_catalog import parse_mode_payload
        from kipukas_board.modes import payload_prefixes

        hit = parse_mode_payload(args.code, payload_prefixes())
        if hit is None:
            _err(f"{args.code!r} is no game mode's card payload (prefixes: {', '.join(payload_prefixes())})")
            return 2
    try:
        store = CardStore.read_only_in(where.path)
    except CatalogFileError as exc:
        _err(str(exc))
        return 1
    try:
        card = ModeCards(store).card(*hit) if hit is not None else Catalog(store).card(args.code)
    except UnknownCard as exc:
        _err(str(exc))
        return 1
    except sqlite3.Error as exc:  # damaged, or a catalog of an older board without the table asked for
        _err(f"{store.path}: the card catalog cannot be read ({exc}); importing a catalog into it "
             f"(kipukas-board catalog import) brings an older one up to date")
        return 1
    finally:
        store.close()
    print(json.dumps(card, indent=1, ensure_ascii=False))
    return 0


def cameras(args: argparse.Namespace) -> int:
    from kipukas_board.commands.run import settings_path
    from kipukas_board.settings import SettingsError, load_settings

    path = settings_path(args.settings)
    if path is not None and not path.exists():
        _err(f"settings file {path} does not exist")
        return 2
    try:
        settings = load_settings(path)
    except SettingsError as exc:
        _err(f"{exc.path}: " + "; ".join(exc.problems))
        return 2
    if not settings.cameras:
        print(f"no cameras configured ({path or 'default settings'}); add [[cameras]] sections with a seat")
        return 0
    for c in sorted(settings.cameras, key=lambda c: c.options.get("seat", 0)):
        opts = ", ".join(f"{k}={v!r}" for k, v in c.options.items() if k != "seat")
        print(f"seat {c.options.get('seat', '?')}: {c.adapter}" + (f" ({opts})" if opts else ""))
    return 0
