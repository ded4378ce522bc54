"""The board's calibration file: what the walk-through learned, in TOML.

It lives at ``<data dir>/calibration/<name>.toml`` (``[board] calibration = "<name>"`` in the
settings, ``default`` unless set; a value with a ``/`` or ending in ``.toml`` is a path of its own),
one file per map (:func:`~kipukas_board.show.layout.map_calibration_path`: a map the plain name is
already taken by gets ``<name>.<map>.toml``). It is the map's one calibration file: the walk-through
writes it, and the board reads its channel map, cameras and LED layout from it in one reading
(:func:`read_saved`): a file the loader refuses is not applied at all, its ``[leds]`` included (the
LEDs then light the default layout, and the page says why). The ``[leds]``
section may hold more than the walk measures (``count``, ``order``, ``gamma``, ``brightness``, the
power budget, ``[leds.stands]``...): a save keeps every key it did not change. The file is written
atomically (a temporary file in the same folder, fsynced, then renamed), so a power cut leaves
either the old file or the new one, never half of one.

Example of a file::

    board = "Kipuka of Eight"     # the map it was made on (refused on another map)
    version = 1

    [sensors]
    channels = { "r0c3" = "T1", "r5c1" = "M1a" }   # channel → stand
    dead = ["M1b"]                                  # stands no channel answered for
    stuck = ["r7c7"]                                # channels closed with no token on the board
    duplicate = ["r2c2"]                            # channels that answered for two stands

    [leds]
    order = "GRB"                                   # anything show/layout.py reads; kept as written

    [leds.territories]
    "1" = [0, 1, 2]

    [leds.stands]
    "T1" = [24]

Example::

    >>> from kipukas_board.calibrate.files import Calibration, dumps, loads
    >>> cal = Calibration(board="Kipuka of Eight", channels={"r0c3": "T1"})
    >>> loads(dumps(cal)).channels
    {'r0c3': 'T1'}
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.calibrate.camera_controls import CONTROLS, control_problem
from kipukas_board.show.layout import (
    LayoutError,
    LedLayout,
    calibration_path,
    default_layout,
    map_calibration_path,
    parse_layout,
    with_strip_settings,
)
from kipukas_board.strictjson import is_int
from kipukas_board.textfile import TextFileError, read_text, write_text_atomic

__all__ = ["Calibration", "CalibrationError", "SavedFile", "atomic_write", "calibration_path", "check_against",
           "dumps", "load", "loads", "map_calibration_path", "read_saved", "save", "strip_layout"]

VERSION = 1

#: How long :attr:`SavedFile.summary` may be: a line on a phone (a problem may quote a whole table).
SUMMARY_CHARS = 160


class CalibrationError(ValueError):
    """A calibration file with mistakes; ``problems`` names each field and what was expected."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: " + "; ".join(problems))


@dataclass
class Calibration:
    board: str
    channels: dict[str, str] = field(default_factory=dict)
    dead: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    duplicate: list[str] = field(default_factory=list)
    #: Channels that closed in the walk's read-back but belong to no stand.
    unmapped: list[str] = field(default_factory=list)
    led_territories: dict[int, list[int]] = field(default_factory=dict)
    cameras: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: The rest of ``[leds]`` as written (count, order, gamma, brightness, power budget, stands, ...).
    leds: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"board": self.board, "version": VERSION,
                "sensors": {"channels": dict(self.channels), "dead": list(self.dead),
                            "stuck": list(self.stuck), "duplicate": list(self.duplicate),
                            "unmapped": list(self.unmapped)},
                "leds": {**self.leds,
                         "territories": {str(n): list(px) for n, px in sorted(self.led_territories.items())}},
                "cameras": [{"seat": s, **c} for s, c in sorted(self.cameras.items())]}

    def leds_table(self) -> dict[str, Any]:
        """The whole ``[leds]`` table, as :func:`~kipukas_board.show.layout.parse_layout` reads it."""
        return {**self.leds, "territories": {str(n): list(px) for n, px in self.led_territories.items()}}


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _key(k: str) -> str:
    """A TOML key: bare when it may be (``count``), quoted otherwise."""
    return k if k and all(c.isascii() and (c.isalnum() or c in "_-") for c in k) else _q(k)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return _q(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to a calibration file")


def dumps(cal: Calibration) -> str:
    """The TOML text of ``cal`` (stable order, so files diff well)."""
    out = ["# Written by the kipukas-board calibration walk-through; edit with care.",
           f"board = {_q(cal.board)}", f"version = {VERSION}", "", "[sensors]", "dead = " + _value(cal.dead),
           "stuck = " + _value(cal.stuck), "duplicate = " + _value(cal.duplicate),
           "unmapped = " + _value(cal.unmapped), "", "[sensors.channels]"]
    out += [f"{_q(ch)} = {_q(sid)}" for ch, sid in sorted(cal.channels.items())]
    if cal.led_territories or cal.leds:  # no [leds] at all: the board keeps its default layout
        scalars = {k: v for k, v in cal.leds.items() if not isinstance(v, dict)}
        out += ["", "[leds]"] + [f"{_key(k)} = {_value(v)}" for k, v in scalars.items()]
        out += ["", "[leds.territories]"]
        out += [f'"{n}" = {_value(px)}' for n, px in sorted(cal.led_territories.items())]
        for name, table in ((k, v) for k, v in cal.leds.items() if isinstance(v, dict)):
            out += ["", f"[leds.{_key(name)}]"] + [f"{_q(str(k))} = {_value(v)}" for k, v in table.items()]
    for seat, cam in sorted(cal.cameras.items()):
        out += ["", "[[cameras]]", f"seat = {seat}"]
        out += [f"{k} = {_value(v)}" for k, v in sorted(cam.items()) if k != "seat"]
    return "\n".join(out) + "\n"


def _str_list(data: dict[str, Any], key: str, where: str, problems: list[str]) -> list[str]:
    v = data.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        problems.append(f"{where}.{key} must be a list of strings, got {v!r}")
        return []
    return list(v)


#: What a ``[[cameras]]`` entry may hold besides the camera settings (``CONTROLS``).
_CAMERA_KEYS = ("seat", "test_scan")


def _camera_problems(cam: dict[str, Any]) -> list[str]:
    """What is wrong in one ``[[cameras]]`` entry: its focus and exposure are checked with the limits
    the calibration walk's request is (a value a hand edit gave reaches the camera as it is), and a
    key the board does not read is named (a misspelled ``exposure = 8000`` would leave it on auto)."""
    problems = [why for k in CONTROLS if k in cam
                if (why := control_problem(k, cam[k], "or leave it out for auto"))]
    if "test_scan" in cam and not isinstance(cam["test_scan"], bool):
        problems.append(f"test_scan = {cam['test_scan']!r}: expected true or false")
    unknown = sorted(k for k in cam if k not in _CAMERA_KEYS + CONTROLS)
    if unknown:
        problems.append(f"unknown key(s) {', '.join(unknown)}; expected {', '.join(_CAMERA_KEYS + CONTROLS)}")
    return problems


def loads(text: str, source: str = "<calibration>", board: BoardMap | None = None) -> Calibration:
    """Parse and check calibration text; with ``board``, also check it against that map.

    Raises :class:`CalibrationError` listing every problem at once.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CalibrationError(source, [f"not valid TOML: {exc}"]) from exc
    problems: list[str] = []
    name = data.get("board")
    if not isinstance(name, str) or not name:
        # One problem for one mistake: the comparison with the running map (check_against) is left out.
        line = f"board = {_q(board.name)}" if board is not None else 'board = "<map name>"'
        shown = _q(name) if isinstance(name, str) else repr(name)
        given = "board is missing" if name is None else f"board = {shown}"
        problems.append(f"{given}: expected the name of the map the file was made on, "
                        f"a line at the top such as {line}")
        name = ""
    version = data.get("version", VERSION)
    if version != VERSION:
        problems.append(f"version = {version!r}; this kipukas-board reads version {VERSION}")
    sensors = data.get("sensors", {})
    if not isinstance(sensors, dict):
        problems.append("[sensors] must be a table")
        sensors = {}
    channels = sensors.get("channels", {})
    if not isinstance(channels, dict) or not all(isinstance(v, str) for v in channels.values()):
        problems.append(f"[sensors.channels] must map channel names to stand ids (strings), got {channels!r}")
        channels = {}
    cal = Calibration(board=name, channels=dict(channels),
                      dead=_str_list(sensors, "dead", "sensors", problems),
                      stuck=_str_list(sensors, "stuck", "sensors", problems),
                      duplicate=_str_list(sensors, "duplicate", "sensors", problems),
                      unmapped=_str_list(sensors, "unmapped", "sensors", problems))
    seen: dict[str, str] = {}
    for ch, sid in sorted(channels.items()):
        if sid in seen:
            problems.append(f"[sensors.channels] stand {sid!r} has two channels ({seen[sid]!r} and {ch!r})")
        seen[sid] = ch
    leds = data.get("leds", {})
    if not isinstance(leds, dict):
        problems.append("[leds] must be a table")
    elif leds:
        cal.leds = {k: v for k, v in leds.items() if k != "territories"}
        try:
            # The board reads this section with the same function: what passes here lights the same.
            # It also refuses a pixel given to two things (two territories, a territory and a stand).
            on = board if board is not None and board.name == name else None  # another map: said below
            cal.led_territories = dict(parse_layout(leds, on, source).territories)
        except LayoutError as exc:
            problems += [f"[leds] {p}" for p in exc.problems]
    cams = data.get("cameras", [])
    if not isinstance(cams, list):
        problems.append("cameras must be an array of tables: [[cameras]]")
        cams = []
    seats: set[int] = set()
    for i, cam in enumerate(cams):
        seat = cam.get("seat") if isinstance(cam, dict) else None
        if not is_int(seat) or seat < 1:
            problems.append(f"[[cameras]] #{i + 1}: seat must be a seat number (1, 2, ...), got {seat!r}")
            continue
        where = f"[[cameras]] #{i + 1} (seat {seat})"
        if seat in seats:
            problems.append(f"{where}: seat {seat} has a [[cameras]] entry already; give each seat one")
            continue
        seats.add(seat)
        bad = [f"{where}: {why}" for why in _camera_problems(cam)]
        if bad:
            problems += bad
            continue
        cal.cameras[seat] = {k: v for k, v in cam.items() if k != "seat"}
    if board is not None:
        problems += check_against(cal, board)
    if problems:
        raise CalibrationError(source, problems)
    return cal


def check_against(cal: Calibration, board: BoardMap) -> list[str]:
    """Problems that make ``cal`` wrong for ``board`` (an empty list when it fits)."""
    problems = []
    if cal.board and cal.board != board.name:  # no name at all is the loader's one problem
        problems.append(f"made on map {cal.board!r}, but the board runs map {board.name!r}; "
                        f"run the walk-through again")
    for ch, sid in sorted(cal.channels.items()):
        if sid not in board.stands:
            problems.append(f"[sensors.channels] {ch!r} = {sid!r}: the map has no stand {sid!r}")
    return problems


def load(path: str | Path, board: BoardMap | None = None) -> Calibration:
    p = Path(path)
    try:
        text = read_text(p)
    except TextFileError as exc:
        raise CalibrationError(str(p), [exc.reason]) from None
    return loads(text, str(p), board)


@dataclass(frozen=True)
class SavedFile:
    """A map's calibration file as the board read it, once: its channel map, cameras and LED layout
    all come from this one reading, so the lights never follow a file the rest of the board refused.

    ``calibration`` is the file when it exists and the loader accepted it; ``error`` says why a file
    that exists was refused (the calibration page and ``health.calibration`` show it). Neither: the
    map has no file yet.

    Example::

        >>> from kipukas_board.board.mapfile import load_map
        >>> board = load_map("kipuka-8")
        >>> saved = SavedFile(Path("cal.toml"), error=CalibrationError("cal.toml", ["board is missing: ..."]))
        >>> saved.problem
        'cal.toml: board is missing: ...'
        >>> saved.summary   # the same reason where there is little room (the page's map note)
        'board is missing: ...'
        >>> saved.led_layout(board) == default_layout(board)   # a refused file lights nothing of its own
        True
    """

    path: Path
    calibration: Calibration | None = None
    error: CalibrationError | None = None

    @property
    def problem(self) -> str | None:
        """Why the file was not applied, in the words the page shows; None when it was (or is absent)."""
        return None if self.error is None else str(self.error)

    @property
    def summary(self) -> str | None:
        """Why the file was not applied, short: its first problem without the file's path (and how many
        more there are), cut to :data:`SUMMARY_CHARS`. The page's map note has room for a line; the
        health row and the calibration page show :attr:`problem` whole. None when the file was applied
        (or is absent)."""
        if self.error is None:
            return None
        first, *rest = self.error.problems or [str(self.error)]
        if len(first) > SUMMARY_CHARS:
            first = first[:SUMMARY_CHARS - 1].rstrip() + "…"
        return first + (f" (and {len(rest)} more)" if rest else "")

    def led_layout(self, board: BoardMap) -> LedLayout:
        """The accepted file's ``[leds]`` layout; :func:`~kipukas_board.show.layout.default_layout` when
        there is no file, the loader refused it, or it has no ``[leds]``."""
        cal = self.calibration
        if cal is None or not (cal.leds or cal.led_territories):
            return default_layout(board)
        return parse_layout(cal.leds_table(), board, str(self.path))

    def strip_layout(self, board: BoardMap, settings: Any) -> LedLayout:
        """:meth:`led_layout` with the settings' strip length and power cap
        (:func:`~kipukas_board.show.layout.with_strip_settings`): the layout the board runs. Raises
        :class:`~kipukas_board.show.layout.LayoutError` when the settings' strip cannot hold it."""
        return with_strip_settings(self.led_layout(board), settings)


def read_saved(path: str | Path, board: BoardMap) -> SavedFile:
    """Read ``board``'s calibration file once and decide on it: accepted, refused (with the reason), or
    absent. Never raises for a bad file: the board runs on without it and says why."""
    p = Path(path)
    if not p.exists():
        return SavedFile(p)
    try:
        return SavedFile(p, load(p, board))
    except CalibrationError as exc:
        return SavedFile(p, error=exc)


def strip_layout(settings: Any, board: BoardMap, data_dir: str | Path | None = None) -> LedLayout:
    """The LED layout the board would run on ``board`` (:meth:`SavedFile.strip_layout` of its calibration
    file, :func:`~kipukas_board.show.layout.map_calibration_path`), for the diagnostics (``leds test``,
    ``board-test``): they light what the board lights. Raises :class:`CalibrationError` for a file the
    board would refuse (rather than light the default while the maker tests the file), and
    :class:`~kipukas_board.show.layout.LayoutError` when the settings' strip cannot hold its layout."""
    saved = read_saved(map_calibration_path(settings.calibration, data_dir, board), board)
    if saved.error is not None:
        raise saved.error
    return saved.strip_layout(board, settings)


def atomic_write(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves the old file or the new one, never a mix."""
    write_text_atomic(path, text)


def save(path: str | Path, cal: Calibration, board: BoardMap | None = None) -> None:
    """Check ``cal`` (against ``board`` when given) and write it atomically; nothing written if bad."""
    text = dumps(cal)
    loads(text, str(path), board)  # what we write must read back clean
    atomic_write(path, text)
