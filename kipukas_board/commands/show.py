"""``kipukas-board leds ...`` and ``kipukas-board say``: check the lights and the speaker.

    kipukas-board leds test [--pattern colors|load|walk|segments] [--count N] [--pixels A-B] [--json]
    kipukas-board leds identify [--seconds S]               # every pixel's number shown by its colour
    kipukas-board leds spi-bytes R,G,B [R,G,B ...] --json    # the SPI backend's exact bytes
    kipukas-board leds bench --leds 300 [--frames N] --json  # frame time of render + output + encode
    kipukas-board say TEXT... [--wav FILE] [--volume V]      # speak through espeak-ng

The strip, its layout and the voice come from the settings file (``--settings``, as for ``run``)
and its calibration, read as the board reads it (:func:`kipukas_board.calibrate.files.strip_layout`:
a calibration file the board would refuse fails the test with the loader's reason). ``leds test``
drives the settings' adapter and says which; on the simulated one it refuses unless ``--sim`` asks
for it, since nothing would light.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from kipukas_board.commands.argtypes import at_least, between, non_negative
from kipukas_board.commands.run import SYSTEM_SETTINGS, settings_path
from kipukas_board.show import pixel_identify


def register(sub: Any) -> None:
    p = sub.add_parser("leds", help="test the LED strip, print SPI bytes, benchmark frames",
                       description="Check the territory LEDs.")
    lsub = p.add_subparsers(dest="leds_command", metavar="ACTION", required=True)

    t = lsub.add_parser("test", help="bring-up patterns: every pixel red/green/blue/white, full load, a walk",
                        description="Light the strip for bring-up (hardware/bring-up.md, section 2). Patterns: "
                                    "colors (every pixel red, green, blue, then white), load (every pixel white "
                                    "at full brightness, held down only by the power cap: measure the supply "
                                    "current), walk (one pixel at a time along the strip), segments (each "
                                    "territory and stand of the calibrated layout in turn).")
    t.add_argument("--pattern", choices=PATTERNS, default="colors", help="what to light (default colors)")
    t.add_argument("--count", type=at_least(1), help="pixels on the strip (default: the settings' [leds] count)")
    t.add_argument("--pixels", metavar="FIRST-LAST",
                   help="light only these pixels (one power feed's span, for the load test); the rest stay dark")
    t.add_argument("--sim", action="store_true", help="drive the simulated strip (nothing lights)")
    t.add_argument("--settings", type=Path, help=f"settings file (default $KIPUKAS_SETTINGS or {SYSTEM_SETTINGS})")
    t.add_argument("--map", help="map name or path (default: the map the board starts on, "
                                 "a map picked on the page included)")
    t.add_argument("--data-dir", type=Path, help="the board's data directory, whose calibration file holds "
                                                 "the LED layout (default: the service's, as the settings say)")
    t.add_argument("--seconds", type=non_negative, help="how long each step stays lit (default: 2 for colors, "
                                                 "10 for load, 0.1 for walk, 0.7 for segments)")
    t.add_argument("--color", default="255,255,255", help="R,G,B for walk and segments (default white)")
    t.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    t.set_defaults(func=leds_test)

    i = lsub.add_parser("identify", help="every pixel's number made visible by its colour, with the legend",
                        description="Light the whole strip at once in a code that gives each pixel's number: "
                                    "bright white every 60th pixel, dim white every other 10th, and the nine "
                                    "between coloured by their ten (red, yellow, green, cyan, blue, magenta). "
                                    "Then prints which pixels the layout gives each territory and stand, in strip "
                                    "order (hardware/README.md, 'LED pixel order').")
    i.add_argument("--count", type=at_least(1), help="pixels on the strip (default: the settings' [leds] count)")
    i.add_argument("--pixels", metavar="FIRST-LAST", help="light only these pixels")
    i.add_argument("--sim", action="store_true", help="drive the simulated strip (nothing lights)")
    i.add_argument("--settings", type=Path, help=f"settings file (default $KIPUKAS_SETTINGS or {SYSTEM_SETTINGS})")
    i.add_argument("--map", help="map name or path (default: the map the board starts on, "
                                 "a map picked on the page included)")
    i.add_argument("--data-dir", type=Path, help="the board's data directory (default: the service's)")
    i.add_argument("--seconds", type=non_negative, help="how long the frame stays lit (default 60)")
    i.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    i.set_defaults(func=leds_test, pattern="identify", color="255,255,255")

    s = lsub.add_parser("spi-bytes", help="the exact SPI bytes for these pixel values (no gamma/cap)")
    s.add_argument("pixels", nargs="+", metavar="R,G,B")
    s.add_argument("--order", default="GRB", help="colour order on the wire (default GRB)")
    s.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    s.set_defaults(func=spi_bytes)

    b = lsub.add_parser("bench", help="time render + output stage + SPI encoding per frame")
    b.add_argument("--leds", type=at_least(13), default=300,
                   help="pixels on the simulated strip, 13 or more: one a territory (default 300)")
    b.add_argument("--frames", type=at_least(1), default=300, help="frames per scene (default 300)")
    b.add_argument("--live", type=non_negative, default=2.0,
                   help="also run the real lighting thread this many seconds on a contention scene and "
                        "report the frames a second it reached and what update() cost the core (0: skip)")
    b.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    b.set_defaults(func=bench)

    v = sub.add_parser("say", help="speak a sentence through espeak-ng (or write it to a WAV)")
    v.add_argument("text", nargs="+")
    v.add_argument("--wav", type=Path, help="write a WAV file instead of playing")
    v.add_argument("--settings", type=Path, help="settings file whose [voice] options to use")
    v.add_argument("--voice", help="espeak-ng voice (default from settings, else en)")
    v.add_argument("--speed", type=between(80, 450), help="words a minute, 80 to 450 (espeak-ng's range)")
    v.add_argument("--volume", type=between(0, 100), help="0-100")
    v.set_defaults(func=say)


def _fail(msg: str, code: int = 2) -> int:
    print(f"kipukas-board: {msg}", file=sys.stderr)
    return code


def _load_settings(path: Path | None) -> Any:
    from kipukas_board.settings import load_settings

    spath = settings_path(path)
    if spath is not None and not spath.exists():
        raise ValueError(f"settings file {spath} does not exist")
    return load_settings(spath)


def _ranges(px: list[int]) -> str:
    if not px:
        return "no pixels"
    if px == list(range(px[0], px[-1] + 1)) and len(px) > 1:
        return f"pixels {px[0]}-{px[-1]}"
    return "pixel" + ("s " if len(px) > 1 else " ") + ", ".join(map(str, px))


PATTERNS = ("colors", "load", "walk", "segments")
DEFAULT_SECONDS = {"colors": 2.0, "load": 10.0, "walk": 0.1, "segments": 0.7, "identify": 60.0}


def _span(text: str | None, count: int) -> list[int]:
    """``--pixels FIRST-LAST`` (or one number) as a list of pixels on a strip of ``count``."""
    if text is None:
        return list(range(count))
    first, sep, last = text.partition("-")
    try:
        a, b = int(first), int(last) if sep else int(first)
    except ValueError:
        raise ValueError(f"--pixels {text!r}: expected FIRST-LAST, e.g. 0-89") from None
    if not 0 <= a <= b < count:
        raise ValueError(f"--pixels {text!r}: expected FIRST-LAST within 0-{count - 1} (the strip's {count} pixels)")
    return list(range(a, b + 1))


def _steps(pattern: str, layout: Any, board: Any, span: list[int], color: Any) -> list[tuple[str, dict[int, Any]]]:
    """The frames a pattern shows, each as (what it is, {pixel: colour}); unlisted pixels are dark."""
    if pattern == "colors":
        return [(name, dict.fromkeys(span, rgb)) for name, rgb in
                (("red", (255, 0, 0)), ("green", (0, 255, 0)), ("blue", (0, 0, 255)), ("white", (255, 255, 255)))]
    if pattern == "load":
        return [("full white", dict.fromkeys(span, (255, 255, 255)))]
    if pattern == "walk":
        return [(f"pixel {i}", {i: color}) for i in span]
    if pattern == "identify":
        return [("every pixel's number", pixel_identify.frame(len(span), span))]
    steps = [(f"territory {n}" + (f" ({board.territories[n].name})" if board.territories[n].name else ""),
              dict.fromkeys(px, color)) for n, px in sorted(layout.territories.items())]
    return steps + [(f"stand {sid}", dict.fromkeys(px, color)) for sid, px in layout.stands.items()]


def _layout_order(layout: Any, board: Any) -> list[tuple[str, list[int]]]:
    """Each territory's and stand's pixels, in strip order (by their first pixel)."""
    parts = [(f"territory {n}" + (f" ({board.territories[n].name})" if n in board.territories
                                  and board.territories[n].name else ""), sorted(px))
             for n, px in layout.territories.items() if px]
    parts += [(f"stand {sid}", sorted(px)) for sid, px in layout.stands.items() if px]
    return sorted(parts, key=lambda p: p[1][0])


def leds_test(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from kipukas_board.board.mapfile import MapError, load_map, map_exists
    from kipukas_board.calibrate.files import strip_layout
    from kipukas_board.commands.run import board_data_dir
    from kipukas_board.hardware.registry import build
    from kipukas_board.settings import SettingsError
    from kipukas_board.show.colors import parse_rgb
    from kipukas_board.store.map_choice import started_map

    try:
        spath = settings_path(args.settings)
        settings = _load_settings(args.settings)
        adapter = "sim" if args.sim else settings.leds.adapter
        if adapter == "sim" and not args.sim:
            return _fail(f"the settings ({spath or 'defaults'}) choose the simulated strip ([leds] adapter = \"sim\"): "
                         f"nothing would light. Set adapter = \"spi\" (or \"ws281x\") in [leds], or pass --sim "
                         f"to run the pattern on the simulated strip")
        color = parse_rgb(args.color)
        data_dir = board_data_dir(args.data_dir, spath)
        # the map the board starts on, a map picked on the page included, unless --map names one
        board = load_map(args.map or started_map(settings.map, data_dir, exists=map_exists))
        layout = strip_layout(settings, board, data_dir)
        count = args.count if args.count is not None else settings.led_count
        if count is None and layout.source != "default":
            count = layout.count  # a calibration written before the settings held the count
        if args.pattern == "segments":
            count = max(count or 0, layout.count)
        if not count or count < 1:
            return _fail("how many pixels? set [leds] count in the settings file (bring-up 2.2) or pass --count N")
        if args.pattern == "load":
            layout = replace(layout, brightness=1.0)  # only the cap holds the load down
        span = _span(args.pixels, count)
        opts = {} if args.sim else dict(settings.leds.options)
        opts["count"] = count
        opts.setdefault("order", layout.order)
        strip = build("leds", adapter, **opts)
    except MapError as exc:
        return _fail(exc.report())
    except (SettingsError, ValueError) as exc:
        return _fail(str(exc))
    stage = layout.output_stage()
    where = getattr(strip, "path", None)
    print(f"driving the {adapter!r} strip" + (f" on {where}" if where else "") +
          (" (simulated: nothing lights)" if adapter == "sim" else "") +
          f": {count} pixels, order {opts['order']}, brightness {layout.brightness:g}, "
          f"power cap {layout.power_budget_ma:.0f} mA", flush=True)
    if args.pattern == "identify":
        print(pixel_identify.legend(), flush=True)
        for what, px in _layout_order(layout, board):
            print(f"  {_ranges(px):12} {what}", flush=True)
    seconds = DEFAULT_SECONDS[args.pattern] if args.seconds is None else max(0.0, args.seconds)
    report = []
    try:
        for what, lit in _steps(args.pattern, layout, board, span, color):
            frame = [(0, 0, 0)] * count
            for i, rgb in lit.items():
                frame[i] = rgb
            wire = stage.apply(frame)
            try:
                strip.show(wire)
            except OSError as exc:
                return _fail(f"the {adapter!r} strip refused a frame: {exc}", 1)
            shown = strip.pixels() if hasattr(strip, "pixels") else wire  # the simulated strip remembers
            on = [i for i, p in enumerate(shown) if p != (0, 0, 0)]
            capped = " (held down by the cap)" if stage.last_scale < 0.999 else ""
            print(f"{what:32} {_ranges(sorted(lit)):24} ~{stage.last_estimate_ma:.0f} mA{capped}", flush=True)
            report.append({"what": what, "pixels": sorted(lit), "lit": on,
                           "estimated_ma": round(stage.last_estimate_ma, 1), "scale": round(stage.last_scale, 3)})
            time.sleep(seconds)
    finally:
        strip.close()
    if args.json:
        print(json.dumps({"adapter": adapter, "pattern": args.pattern, "count": count,
                          "power_budget_ma": layout.power_budget_ma, "layout": layout.source, "steps": report}))
    return 0


def spi_bytes(args: argparse.Namespace) -> int:
    from kipukas_board.hardware.leds.spi import RESET_US, SPI_HZ, encode_frame, reset_bytes_for
    from kipukas_board.show.colors import parse_rgb

    try:
        pixels = [parse_rgb(p) for p in args.pixels]
        data = encode_frame(pixels, order=args.order)
    except ValueError as exc:
        return _fail(str(exc))
    reset = reset_bytes_for(SPI_HZ)
    if not args.json:
        print(f"{len(pixels)} pixel(s), order {args.order.upper()}, SPI {SPI_HZ} Hz, 3 SPI bits per WS2812 bit")
        print(f"{len(data) - reset} data bytes + {reset} reset bytes (>= {RESET_US} us low) = {len(data)} bytes")
        print(data.hex())
        return 0
    print(json.dumps({"spi_hz": SPI_HZ, "order": args.order.upper(), "pixels": len(pixels),
                      "reset_bytes": reset, "bytes": data.hex()}))
    return 0


def bench(args: argparse.Namespace) -> int:
    from kipukas_board.bench.lighting import live_run, run_lighting_bench

    res = run_lighting_bench(args.leds, args.frames)
    results = res["scenes"]
    print(f"{args.leds} LEDs, {args.frames} frames per scene (render + output stage + SPI encode, one core)")
    print(f"{'scene':20} {'render':>8} {'output':>8} {'encode':>8} {'total p50':>10} {'total p95':>10} {'fps@p95':>8}")
    for name, r in results.items():
        print(f"{name:20} {r['render_ms']:8.3f} {r['output_ms']:8.3f} {r['encode_ms']:8.3f} "
              f"{r['total_ms']['p50']:10.3f} {r['total_ms']['p95']:10.3f} {r['max_fps_p95']:8.1f}")
    wire_ms = res["spi_wire_ms"]
    print(f"on the wire: {wire_ms} ms per frame over SPI at {res['spi_hz']} Hz (reset gap included)")
    live = live_run(res["board"], res["layout"], args.live) if args.live > 0 else None
    if live:
        print(f"live thread, contention for {live['seconds']} s: {live['fps']} frames/s sent to the strip "
              f"(target {live['target_fps']}); core's update() p50 {live['update_ms']['p50']} ms, "
              f"max {live['update_ms']['max']} ms")
    if args.json:
        worst = max(r["total_ms"]["p95"] for r in results.values())
        print(json.dumps({"leds": args.leds, "frames": args.frames, "scenes": results,
                          "worst_total_ms_p95": worst, "min_fps_p95": round(1000 / max(worst, 1e-6), 1),
                          "spi_wire_ms": wire_ms, "live": live}))
    return 0


def say(args: argparse.Namespace) -> int:
    from kipukas_board.hardware.voice.espeak import EspeakVoice
    from kipukas_board.settings import SettingsError

    try:
        settings = _load_settings(args.settings)
        opts = dict(settings.voice.options) if settings.voice.adapter == "espeak" else {}
        for key in ("voice", "speed", "volume"):
            if getattr(args, key) is not None:
                opts[key] = getattr(args, key)
        opts["muted"] = False
        voice = EspeakVoice(**opts)
    except (SettingsError, ValueError, TypeError) as exc:
        return _fail(str(exc))
    text = " ".join(args.text)
    try:
        if args.wav:
            import subprocess

            try:
                voice.render_wav(text, args.wav)
            except (subprocess.CalledProcessError, OSError) as exc:
                return _fail(f"could not write {args.wav}: {exc}", 1)
            print(f"wrote {args.wav} ({args.wav.stat().st_size} bytes)")
            return 0
        voice.say(text)
        voice.wait_idle(60)
        if voice.errors:
            return _fail(f"could not speak: {voice.last_error}", 1)
        return 0
    finally:
        voice.close()
