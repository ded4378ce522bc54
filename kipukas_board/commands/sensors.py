"""``kipukas-board sensors``: watch the stand sensors live, and soak-test the sensor link.

    kipukas-board sensors monitor [--settings FILE] [--adapter serial|gpio] [--device PATH] [--seconds S]
    kipukas-board sensors soak --seconds 60 [--json]   # firmware ↔ faulty link ↔ host ↔ core
    kipukas-board board-test [--seconds S] [--json]    # each stand lights its own LED under a token

``monitor`` prints each settled change as it comes and the link's health every few seconds (with
``--json``: one JSON object per line, the last one the final health); it exits 1 if it never had a
link to the sensor board, saying why. ``soak`` runs the real firmware
under CPython against the real host path with injected faults and prints a table, then (with
``--json``) one JSON object as its last line: ``changes_made``, ``changes_delivered``, ``phantom``,
``final_mismatches``, ``resyncs``, ``latency_ms`` {``p50``, ``p99``} and details. It exits 0 only if
there was no phantom change, no final mismatch and the latency p99 was within its budget
(``--latency-budget-ms``, default debounce + 10 ms: the figure for an idle Pi 4 or 5 with the service
stopped; the table and ``machine`` in the JSON say which machine it ran on and how busy it was) (a
reason for each failure goes to stderr), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from kipukas_board.commands.argtypes import at_least, positive, whole
from kipukas_board.hardware.registry import AdapterError, build
from kipukas_board.hardware.sensors.port import SwitchChange


def register(sub: Any) -> None:
    p = sub.add_parser("sensors", help="watch the stand sensors, or soak-test the sensor link")
    ssub = p.add_subparsers(dest="sensors_command", metavar="ACTION", required=True)

    m = ssub.add_parser("monitor", help="print settled changes and link health as they happen")
    m.add_argument("--settings", type=Path,
                   help="settings file whose [sensors] section to use (default: the one `run` uses)")
    m.add_argument("--adapter", help="sensor adapter (serial, gpio, sim); overrides the settings file")
    m.add_argument("--device", help="serial device path (serial adapter), e.g. /dev/ttyACM0")
    m.add_argument("--vid", help="USB vendor id to look for (serial adapter, default 2E8A)")
    m.add_argument("--pins", help="comma-separated GPIO numbers (gpio adapter), e.g. 17,27,22")
    m.add_argument("--seconds", type=positive, help="stop after this long (default: until Ctrl-C)")
    m.add_argument("--every", type=positive, default=5.0, help="seconds between health lines (default 5)")
    m.add_argument("--json", action="store_true", help="one JSON object per line")
    m.set_defaults(func=monitor)

    s = ssub.add_parser("soak", help="firmware <-> faulty link <-> host <-> core soak test")
    s.add_argument("--seconds", type=positive, default=60.0, help="how long to inject faults (default 60)")
    s.add_argument("--debounce-ms", type=at_least(1), default=20, help="firmware debounce time (default 20)")
    s.add_argument("--rows", type=at_least(1), default=6, help="matrix rows (default 6)")
    s.add_argument("--cols", type=at_least(1), default=6,
                   help="matrix columns (default 6; rows x cols <= the map's stands)")
    s.add_argument("--map", default="kipuka-12", help="map whose stands the channels stand for (default kipuka-12)")
    s.add_argument("--rate", type=positive, default=10.0, help="stand changes per second (default 10)")
    s.add_argument("--fault-every-ms", type=positive, default=100.0,
                   help="one round of faults (unplug, garbage, bit flip, dropped byte) this often (default 100)")
    s.add_argument("--faults", default="disconnect,garbage,bitflip,drop",
                   help="which faults, comma-separated (default all four); 'none' for a clean link")
    s.add_argument("--seed", type=whole, default=1)
    s.add_argument("--latency-budget-ms", type=positive,
                   help="the latency p99 to hold the link to (default debounce + 10 ms: an idle Pi 4 or 5 with "
                        "the service stopped; on a busy or slower machine state its own figure)")
    s.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    s.set_defaults(func=soak)

    b = sub.add_parser("board-test", help="each stand lights its own LED while a token sits on it",
                       description="Board test mode: check the reeds and the LEDs together. Put a token on a "
                                   "stand: its LED lights green; lift it: dark. Uses the settings' sensor and "
                                   "LED adapters and the calibration, as the service does (stop the service "
                                   "first); the running board offers the same on its calibration page.")
    b.add_argument("--settings", type=Path, help="settings file (default $KIPUKAS_SETTINGS or the system one)")
    b.add_argument("--data-dir", type=Path, help="data directory whose calibration maps channels and pixels "
                                                 "(default: the service's, as the settings say)")
    b.add_argument("--seconds", type=positive, help="stop after this long (default: until Ctrl-C)")
    b.add_argument("--sim", action="store_true", help="allow simulated sensors or LEDs (nothing real is tested)")
    b.add_argument("--json", action="store_true", help="one JSON object per change, the last line the summary")
    b.set_defaults(func=board_test)


def _sensor_choice(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    from kipukas_board.commands.run import settings_path
    from kipukas_board.settings import load_settings

    path = settings_path(args.settings)  # the service's own settings unless told otherwise
    settings = load_settings(path) if path is not None else None
    name = args.adapter or (settings.sensors.adapter if settings else "serial")
    options: dict[str, Any] = dict(settings.sensors.options) if settings and settings.sensors.adapter == name else {}
    if args.device:
        options["device"] = args.device
    if args.vid:
        options["vid"] = args.vid
    if args.pins:
        try:
            options["pins"] = [int(p) for p in args.pins.split(",") if p.strip()]
        except ValueError:
            raise SystemExit(f"kipukas-board: --pins {args.pins!r}: expected GPIO numbers like 17,27,22") from None
    return name, options


def monitor(args: argparse.Namespace) -> int:
    from kipukas_board.settings import SettingsError

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    try:
        name, options = _sensor_choice(args)
        sensors = build("sensors", name, **options)
    except (SettingsError, AdapterError, ValueError) as exc:
        print(f"kipukas-board: {exc}", file=sys.stderr)
        return 2

    def show(change: SwitchChange) -> None:
        if args.json:
            print(json.dumps({"t": round(time.time(), 3), "channel": change.channel, "closed": change.closed}),
                  flush=True)
        else:
            stamp = datetime.now().strftime("%H:%M:%S.%f")[:-3]
            print(f"{stamp}  {change.channel:<8} {'closed' if change.closed else 'open'}", flush=True)

    linked = {"ever": False, "last": {}}

    def health_line() -> None:
        h = sensors.health()
        linked["last"] = h
        if h.get("connected", True) and h.get("synced", True):
            linked["ever"] = True
        if args.json:
            print(json.dumps({"health": h}), flush=True)
        else:
            keys = ("connected", "port", "synced", "last_heartbeat_age_s", "frames_ok", "frames_dropped",
                    "crc_errors", "seq_gaps", "resyncs", "reconnects", "last_error")
            shown = {k: h[k] for k in keys if k in h}
            chan = h.get("channels", {})
            print(f"-- {h.get('adapter')} ok={h.get('ok')} {shown} chatter={chan.get('chatter')} "
                  f"stuck={chan.get('stuck')}", flush=True)
            for fault in (h.get("wiring") or {}).get("faults", []):
                print(f"-- WIRING {fault['text']}", flush=True)

    sensors.start(show)
    closed = sorted(ch for ch, c in sensors.snapshot().items() if c)
    if not args.json:
        print(f"-- closed now: {', '.join(closed) or 'none'}", flush=True)
    end = time.monotonic() + args.seconds if args.seconds else None
    try:
        next_health = time.monotonic()
        while end is None or time.monotonic() < end:
            if time.monotonic() >= next_health:
                if not args.json:
                    health_line()
                next_health = time.monotonic() + args.every
            time.sleep(0.05 if end is None else max(0.0, min(0.05, end - time.monotonic())))
    except KeyboardInterrupt:
        pass
    finally:
        health_line()
        sensors.stop()
    if not linked["ever"]:  # nothing was watched: a monitor that saw no board must not pass for one that did
        why = linked["last"].get("last_error") or "the sensor board never answered"
        print(f"kipukas-board: sensors monitor: no link to the sensor board during the whole run: {why}",
              file=sys.stderr)
        return 1
    return 0


def soak(args: argparse.Namespace) -> int:
    from kipukas_board.bench.firmware_sim import Faults
    from kipukas_board.bench.sensor_soak import SoakConfig, failures, format_table, run_soak

    kinds = tuple(k for k in args.faults.split(",") if k.strip() and k.strip() != "none")
    unknown = set(kinds) - {"disconnect", "garbage", "bitflip", "drop"}
    if unknown:
        print(f"kipukas-board: --faults: unknown {', '.join(sorted(unknown))}; expected "
              f"disconnect, garbage, bitflip, drop or none", file=sys.stderr)
        return 2
    if args.seconds <= 0 or args.rows * args.cols > 64 or args.rows < 1 or args.cols < 1:
        print("kipukas-board: --seconds must be > 0 and rows x cols between 1 and 64", file=sys.stderr)
        return 2
    faults = Faults(every_s=args.fault_every_ms / 1000, kinds=kinds, seed=args.seed) if kinds else None
    cfg = SoakConfig(seconds=args.seconds, rows=args.rows, cols=args.cols, debounce_ms=args.debounce_ms,
                     changes_per_s=args.rate, map=args.map, faults=faults, seed=args.seed,
                     latency_budget_ms=args.latency_budget_ms)
    # the adapter logs every unplug; the soak makes hundreds on purpose
    logging.getLogger("kipukas_board.hardware.sensors.serial_link").setLevel(logging.ERROR)
    try:
        result = run_soak(cfg)
    except ValueError as exc:
        print(f"kipukas-board: {exc}", file=sys.stderr)
        return 2
    print(format_table(result))
    failed = failures(result)
    if args.json:
        print(json.dumps({**result, "passed": not failed, "failures": failed}))
    for reason in failed:
        print(f"kipukas-board sensors soak: FAIL: {reason}", file=sys.stderr)
    return 1 if failed else 0


def board_test(args: argparse.Namespace) -> int:
    """Run the board test mode against the real sensors and strip, printing what each token lights."""
    from kipukas_board.board.mapfile import MapError, load_map, map_exists
    from kipukas_board.calibrate.board_test import BoardTest, matrix_cols
    from kipukas_board.calibrate.files import CalibrationError, read_saved
    from kipukas_board.commands.run import board_data_dir, settings_path
    from kipukas_board.settings import SettingsError, load_settings
    from kipukas_board.show.layout import LayoutError, map_calibration_path
    from kipukas_board.store.map_choice import started_map

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    try:
        spath = settings_path(args.settings)
        if spath is not None and not spath.exists():
            raise ValueError(f"settings file {spath} does not exist")
        settings = load_settings(spath)
        sim = [port for port, a in (("[sensors]", settings.sensors.adapter), ("[leds]", settings.leds.adapter))
               if a == "sim"]
        if sim and not args.sim:
            raise ValueError(f"{' and '.join(sim)} adapter = \"sim\" in {spath or 'the default settings'}: "
                             f"the board test checks real reeds and LEDs (bring-up 1.2 and 2.2 set them), or "
                             f"pass --sim")
        data_dir = board_data_dir(args.data_dir, spath)
        board = load_map(started_map(settings.map, data_dir, exists=map_exists))
        saved = read_saved(map_calibration_path(settings.calibration, data_dir, board), board)  # as the board reads it
        if saved.error is not None:
            raise saved.error
        layout = saved.strip_layout(board, settings)
        channel_map = (saved.calibration.channels or None) if saved.calibration is not None else None
        sensors = build("sensors", settings.sensors.adapter, **settings.sensors.options)
        opts = dict(settings.leds.options)
        opts["count"] = layout.count
        opts.setdefault("order", layout.order)
        strip = build("leds", settings.leds.adapter, **opts)
    except MapError as exc:
        print(f"kipukas-board: {exc.report()}", file=sys.stderr)
        return 2
    except (SettingsError, AdapterError, CalibrationError, LayoutError, ValueError) as exc:
        print(f"kipukas-board: {exc}", file=sys.stderr)
        return 2
    stage = layout.output_stage()
    test = BoardTest(list(board.stands), layout.stands, layout.territories,
                     {sid: st.territory for sid, st in board.stands.items()}, layout.count, channel_map)
    import threading

    lock = threading.Lock()
    lit_ever: set[str] = set()
    placed: list[str] = []  # channels just closed: the main loop checks their wiring (not the reader thread)

    def take(change: SwitchChange) -> None:
        with lock:
            what = test.set(change.channel, change.closed)
            strip.show(stage.apply(test.frame()))
            if what["stand"] and change.closed:
                lit_ever.add(what["stand"])
            if change.closed:
                placed.append(change.channel)
        if args.json:
            print(json.dumps({"t": round(time.time(), 3), **what}), flush=True)
            return
        state = "closed" if change.closed else "open"
        if what["stand"] is None:
            print(f"{change.channel:<8} {state:6}  no stand ({test.mapping}): nothing lights", flush=True)
        else:
            px = ", ".join(map(str, what["pixels"])) or "none (no pixel for it)"
            print(f"{change.channel:<8} {state:6}  stand {what['stand']:<5} pixels {px}"
                  f"{' lit' if change.closed else ' dark'}", flush=True)

    sensors.start(take)
    test.cols = matrix_cols(sensors)
    for channel, closed in sensors.snapshot().items():
        if closed:
            take(SwitchChange(channel, True))
    if not args.json:
        print(f"board test: {settings.sensors.adapter} sensors, {settings.leds.adapter} strip of {layout.count}, "
              f"channels to stands by {test.mapping}. Put a token on each stand in turn; Ctrl-C ends.", flush=True)
    wiring = _WiringWatch(sensors, test, args.json)
    wiring.check(bare=True)
    end = time.monotonic() + args.seconds if args.seconds else None
    next_check = time.monotonic() + WIRING_CHECK_EVERY_S
    try:
        while end is None or time.monotonic() < end:
            with lock:
                just_placed, placed[:] = list(placed), []
            if just_placed or time.monotonic() >= next_check:
                wiring.check(placed=just_placed)
                next_check = time.monotonic() + WIRING_CHECK_EVERY_S
            time.sleep(0.05 if end is None else max(0.0, min(0.05, end - time.monotonic())))
    except KeyboardInterrupt:
        pass
    finally:
        sensors.stop()
        strip.close()
    missing = [sid for sid in board.stands if sid not in lit_ever]
    summary = {"stands_lit": len(lit_ever), "stands": len(board.stands), "never_lit": missing,
               "closed_at_end": test.status()["closed"], "unmapped": test.status()["unmapped"],
               "wiring_checked": wiring.checked, "wiring": list(wiring.faults.values())}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{len(lit_ever)} of {len(board.stands)} stands lit" +
              (f"; never: {', '.join(missing)} (an open reed, a diode missing altogether, or not tried)"
               if missing else ""))
        if wiring.faults:
            print(f"wiring faults: {len(wiring.faults)}:")
            for f in wiring.faults.values():
                print(f"  {f['text']}")
        elif wiring.checked:
            print("wiring check: no missing, shorted or reversed diode, no stuck reed, no touching wires")
        else:
            print(f"wiring check: not done ({wiring.why})")
    return 1 if wiring.faults else 0


#: The board test re-runs the sensor board's wiring check this often (and after every token placed).
WIRING_CHECK_EVERY_S = 1.0


class _WiringWatch:
    """The board test's use of the sensor board's wiring check: at the start (the board bare: a
    closed channel is a stuck reed) and after each token placed (its diode checked under it)."""

    def __init__(self, sensors: Any, test: Any, as_json: bool) -> None:
        self.sensors = sensors
        self.test = test
        self.as_json = as_json
        self.faults: dict[tuple[str, int | None], dict[str, Any]] = {}
        self.checked = False
        self.why = "the sensor adapter has no wiring check (only the serial sensor board has)"

    def check(self, bare: bool = False, placed: list[str] | None = None) -> None:
        from kipukas_board.hardware.sensors.matrix_check import diagnose
        from kipukas_board.hardware.sensors.protocol import channel_name

        run = getattr(self.sensors, "self_test", None)
        if run is None:
            return
        result = run(1.0)
        if result is None:
            self.why = (self.sensors.health().get("wiring") or {}).get("why") or "the sensor board did not answer"
            return
        self.checked = True
        every = range(result.nrows * result.ncols)
        expect_open = every if bare else ()
        for f in diagnose(result, expect_open=expect_open):
            name = channel_name(f.channel, result.ncols) if f.channel is not None else None
            key = (f.kind, f.channel if f.channel is not None else f.line)
            if key in self.faults:
                continue
            stand = self.test.stand_of(name) if name else None
            text = f"stand {stand}: {f.text}" if stand else f.text
            if bare and f.kind == "stuck-closed":
                text += " (if a token stood there when the test started, lift it: that is not a fault)"
            self.faults[key] = {**f.to_json(), "channel_name": name, "stand": stand, "text": text}
            if self.as_json:
                print(json.dumps({"t": round(time.time(), 3), "wiring": self.faults[key]}), flush=True)
            else:
                print(f"WIRING  {text}", flush=True)
