"""Board test mode: each stand lights its own LED while a token sits on it.

Sensors and LEDs are checked together, with the board bare, before (or after) the calibration
walk: put a token on a stand and that stand's pixel lights green; lift it and the pixel goes dark.
A closed channel that belongs to no stand is listed (and lights nothing), so a stuck reed or a
miswired position is seen at once.

Which stand a channel is:

- the calibration's channel map, once the sensor walk has saved one;
- otherwise the channel *is* the stand id (simulated and direct-GPIO sensors name stands);
- otherwise a matrix channel ``r<r>c<c>`` is the stand at position ``r * cols + c`` in the map's
  stand order: wiring the reeds in map order (hardware/README.md, "Reed matrix") makes the board
  test pass before any calibration.

Which pixels a stand lights: its own (``[leds.stands]`` of the calibration, or the default layout's
one pixel per stand); a stand without a pixel lights its territory's segment instead.

:class:`BoardTest` is pure (states in, frames out); :class:`BoardTestSession` runs it inside the
board (a switch listener that keeps the test's changes from the game, the strip through the
lighting's test frame); ``kipukas-board board-test`` runs it without the service.

Example::

    >>> from kipukas_board.calibrate.board_test import BoardTest
    >>> t = BoardTest(["T1", "T2"], {"T1": [4], "T2": [5]}, {}, {}, count=6)
    >>> t.set("r0c1", True)["stand"]
    'T2'
    >>> [i for i, px in enumerate(t.frame()) if px != (0, 0, 0)]
    [5]
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kipukas_board.hardware.sensors.port import SwitchChange

if TYPE_CHECKING:
    from kipukas_board.calibrate.host import CalibrationHost

RGB = tuple[int, int, int]
LIT: RGB = (0, 255, 0)
_MATRIX = re.compile(r"r(\d{1,2})c(\d{1,2})")


class BoardTest:
    """Closed channels in, a frame out: each closed stand's pixels lit, everything else dark."""

    def __init__(self, stands: list[str], stand_pixels: dict[str, list[int]], territory_pixels: dict[int, list[int]],
                 territory_of: dict[str, int], count: int, channel_map: dict[str, str] | None = None,
                 cols: int = 8) -> None:
        self.stands = list(stands)
        self.stand_pixels = {sid: list(px) for sid, px in stand_pixels.items()}
        self.territory_pixels = {n: list(px) for n, px in territory_pixels.items()}
        self.territory_of = dict(territory_of)
        self.count = count
        self.channel_map = dict(channel_map) if channel_map else None
        self.cols = cols
        self.closed: dict[str, bool] = {}

    @property
    def mapping(self) -> str:
        """How channels are turned into stands (said on the page and by the command)."""
        return "calibration" if self.channel_map else f"stand ids, or map order ({self.cols} columns)"

    def stand_of(self, channel: str) -> str | None:
        if self.channel_map:
            sid = self.channel_map.get(channel)
            return sid if sid in self.stands else None
        if channel in self.stands:
            return channel
        m = _MATRIX.fullmatch(channel)
        if m and int(m.group(2)) < self.cols:
            k = int(m.group(1)) * self.cols + int(m.group(2))
            return self.stands[k] if k < len(self.stands) else None
        return None

    def pixels_of(self, sid: str) -> list[int]:
        own = self.stand_pixels.get(sid) or self.territory_pixels.get(self.territory_of.get(sid, -1), [])
        return [i for i in own if 0 <= i < self.count]

    def set(self, channel: str, closed: bool) -> dict[str, Any]:
        """Record one change; returns what it means (channel, closed, stand or None, its pixels)."""
        if closed:
            self.closed[channel] = True
        else:
            self.closed.pop(channel, None)
        sid = self.stand_of(channel)
        return {"channel": channel, "closed": closed, "stand": sid, "pixels": self.pixels_of(sid) if sid else []}

    def frame(self) -> list[RGB]:
        frame: list[RGB] = [(0, 0, 0)] * self.count
        for channel in self.closed:
            sid = self.stand_of(channel)
            for i in self.pixels_of(sid) if sid else ():
                frame[i] = LIT
        return frame

    def status(self) -> dict[str, Any]:
        closed = sorted(self.closed)
        stands = {ch: self.stand_of(ch) for ch in closed}
        return {"mapping": self.mapping, "closed": closed,
                "stands": sorted(sid for sid in stands.values() if sid),
                "unmapped": [ch for ch, sid in stands.items() if sid is None]}


def faults_by_stand(faults: list[dict[str, Any]], test: BoardTest) -> list[dict[str, Any]]:
    """The sensor board's wiring faults (its health's ``wiring.faults``), each with the stand its
    channel is, by the same mapping the board test lights stands by."""
    out = []
    for f in faults:
        name = f.get("channel_name")
        stand = test.stand_of(name) if isinstance(name, str) else None
        out.append({**f, "stand": stand, "text": f"stand {stand}: {f['text']}" if stand else f["text"]})
    return out


def matrix_cols(sensors: Any, default: int = 8) -> int:
    """The sensor board's columns, as its firmware said at connect (health's ``device.cols``)."""
    try:
        device = sensors.health().get("device") or {}
    except Exception:  # a health report is informative only; the default is the firmware's
        device = {}
    cols = device.get("cols") if isinstance(device, dict) else None
    return cols if isinstance(cols, int) and cols > 0 else default


def for_board(board: CalibrationHost) -> BoardTest:
    """A board test for the running board: its map, calibrated channel map and LED layout."""
    bmap = board.state.board
    layout = board.layout
    return BoardTest(list(bmap.stands), layout.stands, layout.territories,
                     {sid: st.territory for sid, st in bmap.stands.items()}, layout.count,
                     board.channel_map, cols=matrix_cols(board.sensors))


class BoardTestSession:
    """Board test mode inside the running board (``POST /api/board-test``).

    While on, every switch change goes to the test (not to the game) and the strip shows the test's
    frame; turning it off hands the strip back to the game and resyncs the game with the switches,
    so tokens placed or lifted during the test are not lost.
    """

    def __init__(self, board: CalibrationHost, busy: Callable[[], str | None] = lambda: None) -> None:
        """``busy`` says why the test may not start now (a calibration walk holds the switches or
        the strip), or None."""
        self.board = board
        self.busy = busy
        self.test: BoardTest | None = None
        self._lock = threading.Lock()

    def on_switch(self, change: SwitchChange) -> bool:
        with self._lock:
            if self.test is None:
                return False
            self.test.set(change.channel, change.closed)
            self.board.lighting.show_test_frame(self.test.frame())
        if change.closed:  # check the diode under the token just placed (the answer shows in status)
            ask = getattr(self.board.sensors, "request_self_test", None)
            if callable(ask):
                ask()
        return True

    def start(self) -> dict[str, Any]:
        with self._lock:
            why = self.busy()
            if why:
                raise ValueError(f"the board test cannot start while {why}")
            if self.test is None:
                self.test = for_board(self.board)
                for channel, closed in self.board.sensors.snapshot().items():
                    if closed:
                        self.test.set(channel, True)
                self.board.lighting.show_test_frame(self.test.frame())
            return self._status()

    def stop(self) -> dict[str, Any]:
        with self._lock:
            was_on = self.test is not None
            self.test = None
            if was_on:
                self.board.lighting.end_test_frame()
        if was_on:
            self.board.resync()
        return self.status()

    def status(self) -> dict[str, Any]:
        with self._lock:
            return self._status()

    def _status(self) -> dict[str, Any]:
        if self.test is None:
            return {"on": False}
        return {"on": True, **self.test.status(), "wiring": self._wiring()}

    def _wiring(self) -> list[dict[str, Any]]:
        """The sensor board's latest wiring faults (its health's), each with its stand."""
        try:
            wiring = self.board.sensors.health().get("wiring") or {}
        except Exception:  # a health report is informative only
            return []
        return faults_by_stand(wiring.get("faults", []), self.test) if self.test is not None else []

    def health(self) -> dict[str, Any]:
        return {"ok": True, "board_test": self.test is not None}
