"""Which LED pixels light which territory and stand.

The strip's length and the power cap are facts of the build, set once in the settings file's
``[leds]`` section (``count``, ``power_budget_ma``) and applied over the calibration by
:func:`with_strip_settings`. The board's calibration file (``<data dir>/calibration/<name>.toml``,
see :func:`calibration_path`) is the one place the segments live: the board reads the whole file with
the calibration's loader (:func:`kipukas_board.calibrate.files.read_saved`, which checks the
``[leds]`` section with :func:`parse_layout`) and lights its layout only when the loader accepts the
file; ``kipukas_board.calibrate.files.strip_layout`` gives every diagnostic the same layout. The
calibration walk-through writes the segments it measured back into the same section, keeping every
other key. Without the file or the section, or when the file is refused, :func:`default_layout`
gives every territory a segment of ``per_territory`` pixels (in territory order) followed by one
pixel per stand, which is also what the simulated strip uses.

A calibration's ``[leds]`` section (every key optional except the segments)::

    [leds]
    count = 40              # pixels on the strip (default: highest pixel used + 1)
    order = "GRB"           # colour order on the wire: RGB, RBG, GRB, GBR, BRG or BGR
    gamma = 2.2             # perceptual correction applied before sending
    brightness = 0.6        # global, 0-1
    power_budget_ma = 2500  # the LEDs' share of the 5 V supply, in mA (see show/power.py)
    ma_per_channel = 20.0   # current of one channel at full duty
    idle_ma = 1.0           # each pixel's controller, even when dark
    fault_pixels = [39]     # blink red when some hardware is unhealthy (default: the last pixel)

    [leds.territories]      # territory number -> its pixels: a list, or "first-last"
    1 = "0-4"
    2 = [5, 6, 7, 8]

    [leds.stands]           # optional: a pixel under a stand
    T1 = [30]

Example::

    >>> from kipukas_board.show.layout import LedLayout
    >>> layout = LedLayout(territories={1: [0, 1, 2]}, stands={"T1": [3]})
    >>> layout.count
    4
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.hardware import power_chain
from kipukas_board.hardware.leds.spi import COLOR_ORDERS
from kipukas_board.show.power import OutputStage
from kipukas_board.strictjson import is_int, is_number
from kipukas_board.textfile import FileMemo, TextFileError, read_text

#: The most pixels a layout may drive, as the settings' ``[leds] count`` allows: every pixel costs
#: memory in each frame the lighting renders and the page reads (and, at 800 kHz, 30 us of each frame).
MAX_LEDS = 10_000


class LayoutError(ValueError):
    """The ``[leds]`` section of a calibration file has mistakes; ``problems`` lists each one."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: [leds]: " + "; ".join(problems))


@dataclass
class LedLayout:
    territories: dict[int, list[int]]
    stands: dict[str, list[int]] = field(default_factory=dict)
    order: str = "GRB"
    gamma: float = 2.2
    brightness: float = 0.6
    power_budget_ma: float = 2500.0
    ma_per_channel: float = 20.0
    idle_ma: float = 1.0
    length: int = 0
    fault_pixels: list[int] | None = None
    source: str = "default"

    @property
    def count(self) -> int:
        used = [i for seg in (*self.territories.values(), *self.stands.values()) for i in seg]
        return max(self.length, max(used) + 1 if used else 0)

    def faults(self) -> list[int]:
        """The pixels that blink when hardware is unhealthy."""
        if self.fault_pixels is not None:
            return list(self.fault_pixels)
        return [self.count - 1] if self.count else []

    def output_stage(self) -> OutputStage:
        return OutputStage(gamma=self.gamma, brightness=self.brightness, budget_ma=self.power_budget_ma,
                           ma_per_channel=self.ma_per_channel, idle_ma=self.idle_ma)

    def to_json(self) -> dict[str, Any]:
        return {"territories": {str(n): list(px) for n, px in sorted(self.territories.items())},
                "stands": {sid: list(px) for sid, px in self.stands.items()}}


def default_layout(board: BoardMap, per_territory: int = 3) -> LedLayout:
    """Territory segments first, in territory order, then one pixel per stand in map order."""
    territories: dict[int, list[int]] = {}
    i = 0
    for n in sorted(board.territories):
        territories[n] = list(range(i, i + per_territory))
        i += per_territory
    stands: dict[str, list[int]] = {}
    for sid in board.stands:
        stands[sid] = [i]
        i += 1
    return LedLayout(territories, stands)


def calibration_path(name: str, data_dir: str | os.PathLike[str] | None = None) -> Path:
    """``[board] calibration = NAME`` → ``<data dir>/calibration/NAME.toml``, the file the walk-through
    writes and the board reads; a name with a ``/`` (or ending in ``.toml``) is a path of its own.

    ``data_dir`` defaults to the board's default data directory (``kipukas-board run`` without
    ``--data-dir``).

    >>> str(calibration_path("default", "/var/lib/kipukas-board"))
    '/var/lib/kipukas-board/calibration/default.toml'
    >>> str(calibration_path("/etc/kipukas-board/table.toml", "/var/lib/kipukas-board"))
    '/etc/kipukas-board/table.toml'
    """
    if "/" in name or os.sep in name or name.endswith(".toml"):
        return Path(name)
    if data_dir is None:
        from kipukas_board.settings import default_data_dir

        data_dir = default_data_dir()
    return Path(data_dir) / "calibration" / f"{name}.toml"


#: What each calibration file says it was made on, read again only when the file is written: the list
#: of maps asks for every map's file on each visit.
_MADE_ON: FileMemo[str | None] = FileMemo()


def _made_on(path: Path) -> str | None:
    """The map name a calibration file says it was made on (``board = ...``); None when it cannot be
    read or says nothing (such a file is left to the loader, which reports what is wrong with it)."""
    return _MADE_ON.get(path, partial(_read_made_on, path))


def _read_made_on(path: Path) -> str | None:
    try:
        data = tomllib.loads(read_text(path))
    except (TextFileError, tomllib.TOMLDecodeError):
        return None
    board = data.get("board")
    return board if isinstance(board, str) else None


def map_key(board: BoardMap) -> str:
    """The short name of ``board``'s map file (``kipuka-12``), as ``kipukas-board map list`` names it.

    >>> from kipukas_board.board.mapfile import load_map
    >>> map_key(load_map("kipuka-12"))
    'kipuka-12'
    """
    return Path(board.source).stem if board.source else board.name


def map_calibration_path(name: str, data_dir: str | os.PathLike[str] | None, board: BoardMap) -> Path:
    """The calibration file of ``board``'s map: each map keeps its own, since its LEDs and sensors differ.

    ``calibration/NAME.toml`` (:func:`calibration_path`) while it is absent or made on this map (its
    ``board`` names it); otherwise ``calibration/NAME.<map>.toml`` (``default.kipuka-12.toml``). So a
    board that only ever ran one map keeps the one file it always had, and a map picked on the page
    gets a file of its own. A name that is a path is that file whatever the map (a file made on
    another map is then reported by the loader, as before).

    >>> from kipukas_board.board.mapfile import load_map
    >>> str(map_calibration_path("default", "/nowhere", load_map("kipuka-12")))
    '/nowhere/calibration/default.toml'
    """
    plain = calibration_path(name, data_dir)
    if "/" in name or os.sep in name or name.endswith(".toml"):
        return plain
    own = plain.with_name(f"{plain.stem}.{map_key(board)}.toml")
    if not plain.exists():
        return plain if not own.exists() else own
    made_on = _made_on(plain)
    if made_on is None or made_on == board.name:
        return plain
    return own


def _pixels(value: Any, where: str, problems: list[str]) -> list[int]:
    if isinstance(value, str):
        first, sep, last = value.partition("-")
        if sep and first.strip().isdigit() and last.strip().isdigit() and int(first) <= int(last):
            if int(last) >= MAX_LEDS:
                problems.append(f"{where} = {value!r}: pixel {int(last)} is past the most a board drives "
                                f"({MAX_LEDS} pixels, 0 to {MAX_LEDS - 1})")
                return []
            return list(range(int(first), int(last) + 1))
        problems.append(f"{where} = {value!r}: expected a list of pixel numbers or \"first-last\"")
        return []
    if is_int(value):
        value = [value]
    if not isinstance(value, list) or not all(is_int(v) for v in value):
        problems.append(f"{where} = {value!r}: expected a list of pixel numbers or \"first-last\"")
        return []
    bad = [v for v in value if v < 0]
    if bad:
        problems.append(f"{where}: pixel numbers start at 0, got {bad[:5]}")
        return []
    if any(v >= MAX_LEDS for v in value) or len(value) > MAX_LEDS:
        problems.append(f"{where}: pixel numbers go from 0 to {MAX_LEDS - 1} (at most {MAX_LEDS} pixels), "
                        f"got {max(value)}")
        return []
    return list(value)


def _number(leds: dict[str, Any], key: str, default: float, lo: float, hi: float, problems: list[str]) -> float:
    v = leds.get(key, default)
    if not is_number(v) or not lo <= v <= hi:
        problems.append(f"{key} = {v!r}: expected a number from {lo:g} to {hi:g}")
        return default
    return float(v)


def parse_layout(leds: Any, board: BoardMap | None, source: str = "<calibration>") -> LedLayout:
    """Check a ``[leds]`` table (against ``board``, unless None); raises :class:`LayoutError` listing
    every problem. No pixel may light two things: two territories, or a territory and a stand."""
    problems: list[str] = []
    if not isinstance(leds, dict):
        raise LayoutError(source, [f"expected a table, got {type(leds).__name__}"])
    known = {"count", "order", "gamma", "brightness", "power_budget_ma", "ma_per_channel", "idle_ma",
             "fault_pixels", "territories", "stands"}
    for key in leds:
        if key not in known:
            problems.append(f"unknown key {key!r}; expected one of {', '.join(sorted(known))}")
    order = str(leds.get("order", "GRB")).upper()
    if order not in COLOR_ORDERS:
        problems.append(f"order = {leds.get('order')!r}: expected one of {', '.join(COLOR_ORDERS)}")
        order = "GRB"
    lay = LedLayout(territories={}, stands={}, order=order, source=source,
                    gamma=_number(leds, "gamma", 2.2, 0.1, 5.0, problems),
                    brightness=_number(leds, "brightness", 0.6, 0.0, 1.0, problems),
                    power_budget_ma=_number(leds, "power_budget_ma", 2500.0, 1.0, 1e6, problems),
                    ma_per_channel=_number(leds, "ma_per_channel", 20.0, 0.0, 1000.0, problems),
                    idle_ma=_number(leds, "idle_ma", 1.0, 0.0, 100.0, problems))
    count = leds.get("count", 0)
    if not is_int(count) or not 0 <= count <= MAX_LEDS:
        problems.append(f"count = {count!r}: expected a whole number of pixels from 0 to {MAX_LEDS}")
        count = 0
    lay.length = count
    owner: dict[int, str] = {}

    def claim(pixels: list[int], what: str) -> None:
        for px in pixels:
            if px in owner:
                problems.append(f"pixel {px} is given to both {owner[px]} and {what}")
            owner[px] = what
            if count and px >= count:
                problems.append(f"{what}: pixel {px} is past the end of the strip (count = {count})")

    terr = leds.get("territories")
    if not isinstance(terr, dict):
        problems.append("[leds.territories] is missing: expected territory number -> pixels")
        terr = {}
    for key, value in terr.items():
        if not str(key).isdigit():
            problems.append(f"territories.{key}: expected a territory number")
            continue
        if board is not None and int(key) not in board.territories:
            problems.append(f"territories.{key}: map {board.name!r} has no territory {key!r} "
                            f"(it has {', '.join(str(n) for n in sorted(board.territories))})")
            continue
        px = _pixels(value, f"territories.{key}", problems)
        claim(px, f"territory {key}")
        lay.territories[int(key)] = px
    missing = sorted(set(board.territories) - set(lay.territories)) if board is not None else []
    if terr and missing:
        problems.append(f"territories {', '.join(map(str, missing))} have no pixels")
    stands = leds.get("stands", {})
    if not isinstance(stands, dict):
        problems.append("[leds.stands] must be a table: stand id -> pixels")
        stands = {}
    for sid, value in stands.items():
        if board is not None and sid not in board.stands:
            problems.append(f"stands.{sid}: map {board.name!r} has no stand {sid!r}")
            continue
        px = _pixels(value, f"stands.{sid}", problems)
        claim(px, f"stand {sid}")
        lay.stands[sid] = px
    if "fault_pixels" in leds:
        lay.fault_pixels = _pixels(leds["fault_pixels"], "fault_pixels", problems)
    if problems:
        raise LayoutError(source, problems)
    return lay


def with_strip_settings(layout: LedLayout, settings: Any) -> LedLayout:
    """``layout`` with the settings' ``[leds] count`` and ``power_budget_ma`` applied (when set).

    The settings file is where a builder states the strip's length and the supply's share for the
    LEDs (bring-up step 2.2); a calibration's values for them are overridden. Raises
    :class:`LayoutError` when a segment lies past the settings' ``count``.
    """
    from dataclasses import replace

    count = getattr(settings, "led_count", None)
    budget = getattr(settings, "led_power_budget_ma", None)
    fuse_a = getattr(settings, "led_fuse_a", power_chain.DEFAULT_FUSE_A)
    cap = power_chain.max_budget_ma(fuse_a)
    if budget is None and layout.power_budget_ma > cap:
        raise LayoutError(layout.source, [f"power_budget_ma = {layout.power_budget_ma:g} mA is more than 80 % of "
                                          f"the {fuse_a:g} A LED fuse (the settings' [leds] fuse_a): at most "
                                          f"{cap:g} mA; set [leds] power_budget_ma in the settings file"])
    if count is None and budget is None:
        return layout
    changes: dict[str, Any] = {}
    if budget is not None:
        changes["power_budget_ma"] = float(budget)
    if count is not None:
        if layout.source == "default":  # no calibration yet: the placeholder segments end with the strip
            changes["territories"] = {n: [i for i in px if i < count] for n, px in layout.territories.items()}
            changes["stands"] = {sid: [i for i in px if i < count] for sid, px in layout.stands.items()}
            changes["fault_pixels"] = [count - 1]
        used = [i for seg in (*changes.get("territories", layout.territories).values(),
                              *changes.get("stands", layout.stands).values()) for i in seg]
        if used and max(used) >= count:
            raise LayoutError(layout.source, [f"pixel {max(used)} is past the end of the strip: the settings' "
                                              f"[leds] count = {count}"])
        changes["length"] = count
    return replace(layout, **changes)
