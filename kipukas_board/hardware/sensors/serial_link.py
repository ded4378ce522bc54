"""Stand sensors on the Pico sensor board, over USB serial (pyserial).

The board (``firmware/``) scans and debounces the reed matrix; :class:`.link_policy.LinkPolicy`
decides what to believe (every frame checked, a bad frame dropped and counted and answered with a
*resync*), and this adapter is only the port: a reader thread that hands the policy the bytes and the
clock's ticks and carries out what it answers (write, report a change, reopen). Unplugging the board
does not stop the service: the adapter reopens the port (by path, or by USB VID/PID) until it is
back, then resyncs, so the game sees exactly the changes that happened meanwhile.

Channels are named ``r<row>c<col>`` (row-major, as the firmware numbers them); calibration maps them
to stands. Link health (connected, heartbeat age, frames ok/dropped, CRC errors, sequence gaps,
resyncs, reconnects, chattering or stuck channels) is in :meth:`health`, which the page shows.

Settings example (``[sensors]`` in the settings file)::

    [sensors]
    adapter = "serial"
    vid = "2E8A"                 # Raspberry Pi's USB vendor id (the Pico); or: device = "/dev/ttyACM0"
    debounce_ms = 20             # optional: sent to the board at connect

Example (``device`` may be any path pyserial opens, a pseudo-terminal in the tests; not run as a doctest: it
needs the sensor board on a serial port; ``tests/hardware/sensors/test_serial_sensors.py`` runs it on a
pseudo-terminal)::

    >>> sensors = SerialStandSensors(device="/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode-if00")  # doctest: +SKIP
    >>> sensors.start(print)                                                   # doctest: +SKIP
    SwitchChange(channel='r2c5', closed=True)
"""

from __future__ import annotations

import contextlib
import grp
import logging
import os
import select
import threading
import time
from collections.abc import Callable
from typing import Any

from kipukas_board.hardware.sensors import protocol as sp
from kipukas_board.hardware.sensors.channel_health import ChannelHealth
from kipukas_board.hardware.sensors.link_policy import (
    PARTIAL_TIMEOUT_S,
    Action,
    LinkPolicy,
    Reopen,
    Report,
    Send,
    Warn,
)
from kipukas_board.hardware.sensors.port import Emit, StandSensors, SwitchChange, emit_guarded

log = logging.getLogger(__name__)

PICO_VID = 0x2E8A


class SensorLinkError(RuntimeError):
    """The sensor board cannot be reached; the message says what to check."""


def _hexid(value: int | str | None, what: str) -> int | None:
    if value is None or isinstance(value, int):
        return value
    try:
        return int(str(value), 16)
    except ValueError:
        raise ValueError(f"sensors {what} = {value!r}: expected a hexadecimal USB id such as '2E8A'") from None


def find_port(vid: int | None = PICO_VID, pid: int | None = None, serial_number: str | None = None) -> str:
    """The device path of the first USB serial port with this VID (and PID, serial number)."""
    from serial.tools import list_ports

    found = sorted(
        (p for p in list_ports.comports()
         if (vid is None or p.vid == vid) and (pid is None or p.pid == pid)
         and (serial_number is None or p.serial_number == serial_number)),
        key=lambda p: p.device,
    )
    if not found:
        want = f"USB VID {vid:04X}" if vid is not None else "any USB id"
        if pid is not None:
            want += f" PID {pid:04X}"
        if serial_number:
            want += f" serial {serial_number}"
        raise SensorLinkError(
            f"no serial port with {want}: check the sensor board's USB cable and that it runs the "
            f"kipukas firmware (`ls -l /dev/serial/by-id/` lists what is plugged in), "
            f"or set [sensors] device = \"/dev/ttyACM0\"")
    return found[0].device


def explain_open_error(path: str, exc: BaseException) -> str:
    """A message for a port that would not open, saying what to check."""
    if not os.path.exists(path):
        return (f"{path} does not exist: is the sensor board plugged in? (`ls -l /dev/serial/by-id/` "
                f"lists USB serial devices; set [sensors] device or vid/pid to match)")
    if not os.access(path, os.R_OK | os.W_OK):
        try:
            group = grp.getgrgid(os.stat(path).st_gid).gr_name
        except (KeyError, OSError):
            group = "dialout"
        return (f"no permission to open {path}: add this user to the {group!r} group "
                f"(sudo usermod -aG {group} $USER, then log in again) or run the service as a member of it")
    text = str(exc)
    if "lock" in text.lower() or "busy" in text.lower():
        return (f"{path} is in use by another program (ModemManager, screen, minicom, another "
                f"kipukas-board?): close it and the board reconnects by itself")
    return f"could not open {path}: {text}"


class SerialStandSensors(StandSensors):
    """The sensor board over USB serial: see the module docstring. ``policy`` holds what the link
    believes (its counters and health); this class holds the port and the reader thread."""

    def __init__(self, device: str | None = None, vid: int | str | None = PICO_VID, pid: int | str | None = None,
                 serial_number: str | None = None, baudrate: int = 115200,
                 debounce_ms: int | None = None, scan_us: int | None = None, snapshot_ms: int | None = None,
                 heartbeat_ms: int | None = None, reconnect_s: float = 0.5, resync_timeout_s: float = 0.05,
                 stale_s: float | None = None, startup_wait_s: float = 2.0, chatter_changes: int = 8,
                 chatter_window_s: float = 10.0, chatter_quiet_s: float = 5.0, stuck_s: float | None = 7200.0,
                 clock: Callable[[], float] = time.monotonic, **unknown: Any) -> None:
        if unknown:
            raise ValueError(f"unknown [sensors] option(s) for the serial adapter: {', '.join(sorted(unknown))}")
        self.device = device
        self.vid = _hexid(vid, "vid")
        self.pid = _hexid(pid, "pid")
        self.serial_number = serial_number
        self.baudrate = baudrate
        self.reconnect_s = reconnect_s
        self.startup_wait_s = startup_wait_s
        self._clock = clock
        self.policy = LinkPolicy(
            {"debounce_ms": debounce_ms, "scan_us": scan_us, "snapshot_ms": snapshot_ms,
             "heartbeat_ms": heartbeat_ms},
            resync_timeout_s=resync_timeout_s, stale_s=stale_s,
            channels=ChannelHealth(chatter_changes, chatter_window_s, chatter_quiet_s, stuck_s, clock))

        self._lock = threading.RLock()
        self._emit: Emit | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._synced_once = threading.Event()
        self._ser: Any = None
        self._path: str | None = None
        #: Called with (SwitchChange, how) after each emit; how is "live" or "resync" (soak, tests).
        self.observer: Callable[[SwitchChange, str], None] | None = None
        self._outbox: list[tuple[SwitchChange, str]] = []

    # -- the port ---------------------------------------------------------------------------------
    def start(self, emit: Emit) -> None:
        """Open the port in a reader thread; waits up to ``startup_wait_s`` for the first snapshot so
        that :meth:`snapshot` is right when the app reconciles (it carries on without the board).

        If the board only answers later, its first snapshot is reported channel by channel, open
        and closed, since nothing reconciled the game with it."""
        self._emit = emit
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="serial-sensors", daemon=True)
        with self._lock:
            self.policy.starting = True
        self._thread.start()
        if self.startup_wait_s:
            self._synced_once.wait(self.startup_wait_s)
        with self._lock:
            self.policy.starting = False

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(2.0)
        self._close()
        self._emit = None

    def snapshot(self) -> dict[str, bool]:
        with self._lock:
            return self.policy.view()

    def alive(self) -> bool:
        """True while the reader thread runs (the service's watchdog asks).

        An unplugged board does not make this False: the thread keeps reopening the port, and
        :meth:`health` says what is wrong. False before :meth:`start`, after :meth:`stop`, and if the
        thread has died, when nothing reads the switches any more and only a restart helps.
        """
        thread = self._thread
        return thread is not None and thread.is_alive()

    def wait_synced(self, timeout: float) -> bool:
        """True once the first snapshot has been applied (False after ``timeout`` seconds)."""
        return self._synced_once.wait(timeout)

    def request_snapshot(self, reason: str = "asked") -> None:
        """Ask the board for a snapshot and make the view match it when it comes."""
        with self._lock:
            self._carry_out(self.policy.request_snapshot(reason, self._clock()))

    def request_self_test(self) -> None:
        """Ask the board for its wiring check without waiting: health's ``wiring`` shows the answer.
        Safe from the function given to :meth:`start` (the board test asks after each token placed)."""
        with self._lock:
            self._carry_out(self.policy.request_self_test())

    def self_test(self, timeout: float = 1.0) -> sp.SelfTest | None:
        """Ask the board for its wiring check and wait for the answer (None: no answer within
        ``timeout``, or a firmware without the check; health's ``wiring`` says which).

        Never call it from the function given to :meth:`start`: that runs on the reader thread, which
        is the one that takes the answer."""
        with self._lock:
            before = self.policy.wiring_count
            self._carry_out(self.policy.request_self_test())
        end = self._clock() + timeout
        while self._clock() < end:
            with self._lock:
                if self.policy.wiring_count != before:
                    return None if self.policy.wiring_unsupported else self.policy.wiring
            self._stopping.wait(0.01)
        return None

    def health(self) -> dict[str, Any]:
        with self._lock:
            return {"adapter": "serial", "port": self._path or self.device, **self.policy.health(self._clock())}

    # -- the reader thread ----------------------------------------------------------------------
    def _run(self) -> None:
        # Every failure, opening and greeting the board included, ends in the except below: the
        # port is closed (health says not connected, and why) and reopened; the thread never dies
        # of a link problem.
        opened_at = 0.0
        while not self._stopping.is_set():
            try:
                if self._ser is None:
                    if not self._open():
                        self._stopping.wait(self.reconnect_s)
                        continue
                    opened_at = self._clock()
                data = self._read(self._ser)
                with self._lock:
                    now = self._clock()
                    if data:
                        self._carry_out(self.policy.feed(data, now))
                    self._carry_out(self.policy.tick(now))
                self._flush()
            except Exception as exc:  # serial.SerialException, OSError: unplugged or gone
                if self._stopping.is_set():
                    break
                was_open = self._ser is not None
                self._note_error(f"link to {self._path} lost: {exc}" if was_open
                                 else f"looking for the sensor board's port failed: {exc}", quiet=True)
                log.warning("%s; reconnecting", self.policy.last_error)
                self._close()
                self._flush()
                if not was_open or self._clock() - opened_at < self.reconnect_s:
                    # failed to open, or lost as soon as it opened: wait rather than spin
                    self._stopping.wait(self.reconnect_s)

    def _read(self, ser: Any) -> bytes:
        """Wait for bytes, but no longer than the policy's next thing to do."""
        with self._lock:
            wait = self.policy.wait_s(self._clock())
        try:
            fd = ser.fileno()
        except Exception:  # not a POSIX port: let pyserial wait
            return ser.read(ser.in_waiting or 1)
        readable, _, _ = select.select([fd], [], [], wait)
        if not readable:
            return b""
        return ser.read(max(1, ser.in_waiting))  # readable but empty: pyserial raises (unplugged)

    def _carry_out(self, actions: list[Action]) -> None:
        """Do what the policy asked, in order (called holding the lock; changes wait in the outbox).

        A write that fails, or a link to reopen, ends the writing but not the reporting: every
        change the policy took into its view is still passed on (its view is what the game was
        told), then the failure goes to the reader loop, which reopens the port."""
        failure: BaseException | None = None
        for action in actions:
            if isinstance(action, Report):
                self._outbox.append((action.change, action.how))
            elif isinstance(action, Warn):
                log.warning("%s", action.message)
            elif failure is not None:
                continue
            elif isinstance(action, Send):
                try:
                    self._write(action.data)
                except Exception as exc:
                    if action.required:
                        failure = exc
                    else:  # a snapshot request: the reader loop notices the dead port
                        log.debug("snapshot request not sent: %s", exc)
            elif isinstance(action, Reopen):
                failure = OSError(f"no frame from {self._path} for {action.silent_s:.1f} s: reopening the port")
        if self.policy.synced_once:
            self._synced_once.set()
        if failure is not None:
            raise failure

    def _write(self, data: bytes) -> None:
        if self._ser is not None:
            self._ser.write(data)

    def _flush(self) -> None:
        # Emit outside the lock: the app's emit waits for the core, whose subscribers read health().
        with self._lock:
            out, self._outbox = self._outbox, []
        emit = self._emit
        for change, how in out:
            if emit_guarded(emit, change):  # the consumer's fault, not the link's: keep reading
                emit_guarded(self.observer, change, how)

    def _open(self) -> bool:
        import serial

        try:
            path = self.device or find_port(self.vid, self.pid, self.serial_number)
        except SensorLinkError as exc:
            self._note_error(str(exc))
            return False
        try:
            ser = serial.Serial(path, self.baudrate, timeout=PARTIAL_TIMEOUT_S, write_timeout=0.5,
                                exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            self._note_error(explain_open_error(path, exc))
            return False
        with self._lock:
            self._ser = ser
            self._path = path
            now = self._clock()
            try:
                for action in self.policy.connect(now):
                    if isinstance(action, Send):
                        ser.write(action.data)
            except Exception as exc:  # SerialTimeoutException, OSError: opened, but it takes nothing
                self._ser = None
                with contextlib.suppress(Exception):
                    ser.close()
                self._note_error(f"{path} opened but writing to it failed ({exc}): is the sensor board "
                                 f"running the kipukas firmware? Unplug it and plug it back in; "
                                 f"the adapter keeps trying")
                return False
            self._carry_out(self.policy.greeted(now))
        log.info("sensor board on %s", path)
        return True

    def _note_error(self, message: str, quiet: bool = False) -> None:
        with self._lock:
            actions = self.policy.note_error(message)
        if not quiet:
            for action in actions:
                if isinstance(action, Warn):
                    log.warning("%s", action.message)

    def _close(self) -> None:
        with self._lock:
            ser, self._ser = self._ser, None
            self.policy.disconnected()
        if ser is not None:
            with contextlib.suppress(Exception):
                ser.close()
