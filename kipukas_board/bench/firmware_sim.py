"""Run the sensor board's real firmware under CPython: a simulated reed matrix and a pseudo-terminal.

The firmware in ``firmware/`` is MicroPython. Its files import ``machine`` and ``time.ticks_*``;
``firmware/machine_shim/machine.py`` stands in for both, so the *same files* the Pico runs scan a
:class:`SimMatrix` here and write their frames into a real pseudo-terminal that the host adapter
opens with pyserial. The tests and ``kipukas-board sensors soak`` use this; the board never does.

:class:`PtyLink` is the firmware's serial port. It can also play a bad cable (:class:`Faults`):
garbage bytes, bit flips, dropped bytes and unplugging, each on a schedule. An unplug closes the
pseudo-terminal and makes a new one, and a symlink (like ``/dev/serial/by-id/...``) follows it.

Example::

    >>> import tempfile
    >>> link = PtyLink(tempfile.mkdtemp())            # the host opens link.path with pyserial
    >>> fw = FirmwareThread(rows=2, cols=2, link=link).start()
    >>> at = fw.matrix.set(3, True)                   # a magnet arrives over r1c1
    >>> fw.matrix.state(3)
    True
    >>> fw.stop(); link.close()
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
import tty
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from kipukas_board.resources import shipped_dir
from kipukas_board.textfile import replace_durably

FIRMWARE_DIR = shipped_dir("firmware")
SHIM_DIR = FIRMWARE_DIR / "machine_shim"


def firmware_modules() -> dict[str, ModuleType]:
    """Import the firmware's own files (kb_proto, kb_debounce, kb_led, kb_matrix, kb_firmware) and the shim."""
    if not (FIRMWARE_DIR / "kb_firmware.py").exists():
        raise FileNotFoundError(f"the firmware sources are not at {FIRMWARE_DIR} "
                                "(a checkout's firmware/, or kipukas_board/data/firmware in an installed package)")
    # appended, not prepended: firmware/config.py and main.py must never shadow another "config"
    for d in (str(SHIM_DIR), str(FIRMWARE_DIR)):
        if d not in sys.path:
            sys.path.append(d)
    import importlib

    return {name: importlib.import_module(name)
            for name in ("machine", "kb_time", "kb_proto", "kb_debounce", "kb_led", "kb_matrix", "kb_firmware")}


class SimMatrix:
    """A reed matrix the firmware scans through the shim's pins; tests move magnets with :meth:`set`.

    Levels are a function of time, so bounce and brief flickers happen between the firmware's scans
    as they would on real glass reeds.
    """

    BOUNCE_STEP_S = 0.0003

    def __init__(self, row_pins: list[int], col_pins: list[int], clock: Any = time.monotonic,
                 missing_diodes: set[int] | frozenset[int] = frozenset(),
                 reversed_diodes: set[int] | frozenset[int] = frozenset(),
                 shorts: set[frozenset[tuple[str, int]]] | frozenset[frozenset[tuple[str, int]]] = frozenset()) -> None:
        self.row_pins = list(row_pins)
        #: Wires touching: pairs of nodes (``("r", row)`` / ``("c", col)``) joined without a switch.
        self.shorts = set(shorts)
        #: Channels wired without their diode (or with a shorted one), and with it the wrong way round.
        self.missing_diodes = set(missing_diodes)
        self.reversed_diodes = set(reversed_diodes)
        self.col_of = {p: i for i, p in enumerate(col_pins)}
        self.row_of = {p: i for i, p in enumerate(row_pins)}
        self.ncols = len(col_pins)
        self.count = len(row_pins) * len(col_pins)
        self._clock = clock
        # per channel: (base state, kind, t0, t1): kind "still", "bounce" (base→new during t0..t1) or
        # "glitch" (not base during t0..t1)
        self._motion: list[tuple[bool, str, float, float]] = [(False, "still", 0.0, 0.0)] * self.count

    def closed(self, channel: int, now: float | None = None) -> bool:
        now = self._clock() if now is None else now
        base, kind, t0, t1 = self._motion[channel]
        if kind == "still" or now < t0 or now >= t1:
            return base
        if kind == "glitch":
            return not base
        # bouncing towards base (the new state) from its opposite
        return base if int((now - t0) / self.BOUNCE_STEP_S) % 2 else not base

    def set(self, channel: int, closed: bool, bounce_s: float = 0.0) -> float:
        """Move the magnet so the switch ends ``closed`` after ``bounce_s`` of bounce; returns when it settles."""
        now = self._clock()
        self._motion[channel] = (closed, "bounce" if bounce_s > 0 else "still", now, now + bounce_s)
        return now + bounce_s

    def glitch(self, channel: int, seconds: float) -> None:
        """A brief flicker (weak magnet, vibration): the opposite state for ``seconds``, then back."""
        now = self._clock()
        base = self.closed(channel, now)
        self._motion[channel] = (base, "glitch", now, now + seconds)

    def state(self, channel: int) -> bool:
        """The state the switch settles in."""
        return self._motion[channel][0]

    # the shim's board interface
    def read(self, pin: int, driven: dict[int, int]) -> int:
        """The level of column (or row) ``pin`` with the pins driven as ``driven`` says (pin -> 0/1; a
        pin not in it is released: the scan's idle rows, the self-test's columns).

        Current flows from the column's pull-up towards a row pulled low, through closed switches:
        from a column into a row through a diode the right way round (anode on the column) or no
        diode, from a row into a column only where a diode is missing or reversed. A released row
        passes current on; a driven one does not. A column that reaches both a low row and a row
        driven high is a fight between two outputs: it reads low here, the way a missing diode
        passes a rectangle test when idle rows are driven high (a real fight reads either way).
        """
        col, row = self.col_of.get(pin), self.row_of.get(pin)
        if col is None and row is None:
            return 1
        now = self._clock()
        if not self.missing_diodes and not self.reversed_diodes and not self.shorts:
            if col is None:
                return 1  # a good diode never lets a row be pulled low through a column
            # Every diode in place: current only ever crosses one switch, column -> low row.
            for rp in self.row_pins:
                if driven.get(rp) == 0 and self.closed(self.row_of[rp] * self.ncols + col, now):
                    return 0
            return 1
        closed = {ch for ch in range(self.count) if self.closed(ch, now)}
        low = self._pulled_low(closed, driven)
        return 0 if (("c", col) if col is not None else ("r", row)) in low else 1

    def _pulled_low(self, closed: set[int], driven: dict[int, int]) -> set[tuple[str, int]]:
        """Nodes (("r", row) / ("c", col)) from which current reaches a row pulled low through closed
        switches, each crossed the way its diode lets current flow."""
        start = {("r", self.row_of[p]) for p, v in driven.items() if p in self.row_of and v == 0}
        start |= {("c", self.col_of[p]) for p, v in driven.items() if p in self.col_of and v == 0}
        seen, todo = set(start), list(start)
        while todo:
            kind, i = todo.pop()
            if kind == "r" and (kind, i) not in start and self.row_pins[i] in driven:
                continue  # a row driven high holds its level (the fight) and passes nothing on
            for ch in closed:
                r, c = divmod(ch, self.ncols)
                plain, rev = ch in self.missing_diodes, ch in self.reversed_diodes
                if kind == "r" and r == i:  # column -> row: a diode the right way round, or none
                    ok, nxt = plain or not rev, ("c", c)
                elif kind == "c" and c == i:  # row -> column: only a reversed diode, or none
                    ok, nxt = plain or rev, ("r", r)
                else:
                    continue
                if ok and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
            for pair in self.shorts:
                if (kind, i) in pair:
                    for nxt in pair - {(kind, i)}:
                        if nxt not in seen:
                            seen.add(nxt)
                            todo.append(nxt)
        return seen


@dataclass
class Faults:
    """A bad cable: every ``every_s`` one round of the listed faults, spread over the period."""

    every_s: float = 0.1
    kinds: tuple[str, ...] = ("disconnect", "garbage", "bitflip", "drop")
    down_s: float = 0.003
    garbage_len: tuple[int, int] = (1, 12)
    seed: int = 1
    counts: dict[str, int] = field(default_factory=dict)


class PtyLink:
    """The firmware's serial port: a pseudo-terminal whose other end the host opens at :attr:`path`.

    ``path`` is a symlink that follows the pseudo-terminal across simulated unplugs. Not
    thread-safe: only the firmware thread calls :meth:`read` and :meth:`write` (faults happen there).
    """

    def __init__(self, link_dir: str | os.PathLike[str], faults: Faults | None = None) -> None:
        self.path = str(Path(link_dir) / "kipukas-sensors")
        self.faults = faults
        self._rng = random.Random(faults.seed if faults else 0)
        self._master: int | None = None
        self._slave: int | None = None
        self._up_at = 0.0
        self._next_round = time.monotonic() + (faults.every_s if faults else 0)
        self._pending: list[tuple[float, str]] = []
        self._flip_next = False
        self._drop_next = False
        self._garbage_in = b""
        self._unplug_for: float | None = None
        self.bytes_lost = 0
        self._connect()

    def _connect(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        tmp = self.path + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        replace_durably(tmp, self.path)  # the port reappears whole: never a path without its symlink
        self._master, self._slave = master, slave

    def restart_faults(self) -> None:
        """Start the fault schedule from now (after :attr:`faults` was set or changed)."""
        if self.faults is not None:
            self._rng = random.Random(self.faults.seed)
            self._next_round = time.monotonic() + self.faults.every_s
        self._pending = []

    def schedule_unplug(self, down_s: float) -> None:
        """From another thread: unplug at the firmware's next pass and plug back in after ``down_s``."""
        self._unplug_for = down_s

    def unplug(self) -> None:
        """Close the pseudo-terminal now: the host's reads fail as on a pulled cable, and the path goes
        away as udev takes a pulled board's /dev/serial/by-id link away. Left in place, it would name
        a freed pseudo-terminal number that the next pty opened on the machine (another test, another
        process) takes: a host reconnecting meanwhile would read a different board."""
        if os.path.lexists(self.path):
            os.unlink(self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def close(self) -> None:
        self.unplug()
        if os.path.lexists(self.path):
            os.unlink(self.path)

    def _count(self, kind: str) -> None:
        assert self.faults is not None
        self.faults.counts[kind] = self.faults.counts.get(kind, 0) + 1

    def _tick(self) -> None:
        f = self.faults
        now = time.monotonic()
        if self._unplug_for is not None:
            self.unplug()
            self._up_at = now + self._unplug_for
            self._unplug_for = None
        if self._master is None and now >= self._up_at:
            self._connect()
        if f is None:
            return
        if now >= self._next_round:
            self._next_round += f.every_s
            step = f.every_s / max(1, len(f.kinds))
            self._pending += [(now + i * step, k) for i, k in enumerate(f.kinds)]
        due = [k for t, k in self._pending if t <= now]
        self._pending = [(t, k) for t, k in self._pending if t > now]
        for kind in due:
            self._count(kind)
            if kind == "disconnect":
                if self._master is not None:
                    self.unplug()
                    self._up_at = now + f.down_s
            elif kind == "garbage":
                junk = bytes(self._rng.randrange(256) for _ in range(self._rng.randint(*f.garbage_len)))
                self._send(junk)  # into the host's stream
                self._garbage_in += bytes(self._rng.randrange(1, 256) for _ in range(3))  # and the board's
            elif kind == "bitflip":
                self._flip_next = True
            elif kind == "drop":
                self._drop_next = True

    def _send(self, data: bytes) -> None:
        if self._master is None:
            self.bytes_lost += len(data)
            return
        try:
            n = os.write(self._master, data)
            self.bytes_lost += len(data) - n
        except OSError:  # buffer full or the other side gone: bytes lost, as on a wire
            self.bytes_lost += len(data)

    # -- the firmware's port interface ----------------------------------------------------------
    def read(self) -> bytes:
        self._tick()
        data = b""
        if self._master is not None:
            try:
                data = os.read(self._master, 512)
            except (BlockingIOError, OSError):
                data = b""
        if self._garbage_in:
            data, self._garbage_in = self._garbage_in + data, b""
        return data

    def write(self, data: bytes) -> None:
        self._tick()
        if self._flip_next and data:
            i = self._rng.randrange(len(data))
            data = data[:i] + bytes([data[i] ^ (1 << self._rng.randrange(8))]) + data[i + 1:]
            self._flip_next = False
        if self._drop_next and data:
            i = self._rng.randrange(len(data))
            data = data[:i] + data[i + 1:]
            self.bytes_lost += 1
            self._drop_next = False
        self._send(data)


class FirmwareThread:
    """The firmware's main loop on a thread of this process (stop with :meth:`stop`)."""

    def __init__(self, rows: int, cols: int, link: PtyLink, **params: Any) -> None:
        mods = firmware_modules()
        row_pins = list(range(2, 2 + rows))
        col_pins = list(range(20, 20 + cols))
        self.matrix = SimMatrix(row_pins, col_pins)
        mods["machine"].attach(self.matrix)
        self.link = link
        self.firmware = mods["kb_firmware"].SensorFirmware(
            mods["kb_matrix"].Matrix(row_pins, col_pins, settle_us=0), link, **params)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="firmware", daemon=True)
        self.error: BaseException | None = None

    def _run(self) -> None:
        try:
            self.firmware.run(keep_going=lambda: not self._stop.is_set())
        except BaseException as exc:  # surfaced by the caller (tests, soak)
            self.error = exc
            raise

    def start(self) -> FirmwareThread:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2.0)
