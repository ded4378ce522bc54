"""Stand sensors on the Pico sensor board, over USB serial (pyserial).

The board (``firmware/``) scans and debounces the reed matrix; this adapter decides what to believe.
Every frame is checked (COBS, length, CRC-16, payload size); a bad frame is dropped and counted, and
because something may have been lost with it the adapter asks at once for a snapshot and makes its
view match it (a *resync*). A sequence gap, a reconnect or a board restart does the same. Unplugging
the board does not stop the service: the adapter reopens the port (by path, or by USB VID/PID) until
it is back, then resyncs, so the game sees exactly the changes that happened meanwhile.

Channels are named ``r<row>c<col>`` (row-major, as the firmware numbers them); calibration maps them
to stands. Link health (connected, heartbeat age, frames ok/dropped, CRC errors, sequence gaps,
resyncs, reconnects, chattering or stuck channels) is in :meth:`health`, which the page shows.

Settings example (``[sensors]`` in the settings file)::

    [sensors]
    adapter = "serial"
    vid = "2E8A"                 # Raspberry Pi's USB vendor id (the Pico); or: device = "/dev/ttyACM0"
    debounce_ms = 20             # optional: sent to the board at connect

Example (``device`` may be any path pyserial opens, a pseudo-terminal in the tests)::

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
from kipukas_board.hardware.sensors.port import Emit, StandSensors, SwitchChange, emit_guarded

log = logging.getLogger(__name__)

PICO_VID = 0x2E8A
#: PROTOCOL.md section 5: the link is stale after this many heartbeat periods without a frame.
STALE_HEARTBEATS = 3
#: Stale after this long while the board's heartbeat period is not known yet (no IDENTITY so far).
STALE_UNKNOWN_S = 1.0


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
    """The sensor board over USB serial: see the module docstring."""

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
        self.params = {"debounce_ms": debounce_ms, "scan_us": scan_us, "snapshot_ms": snapshot_ms,
                       "heartbeat_ms": heartbeat_ms}
        self.reconnect_s = reconnect_s
        self.resync_timeout_s = resync_timeout_s
        #: None: stale after STALE_HEARTBEATS of the board's own heartbeat periods (its IDENTITY says).
        self.stale_s = stale_s
        self.startup_wait_s = startup_wait_s
        self._clock = clock
        self.channels = ChannelHealth(chatter_changes, chatter_window_s, chatter_quiet_s, stuck_s, clock)

        self._lock = threading.RLock()
        self._emit: Emit | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._synced_once = threading.Event()
        self._ser: Any = None
        self._decoder = sp.FrameDecoder()
        self._board: dict[str, bool] = {}   # what the board last said
        self._view: dict[str, bool] = {}    # what we have reported (snapshot() returns this)
        self._identity: sp.Identity | None = None
        self._expected_seq: int | None = None
        self._late_run = 0  # late frames in a row (PROTOCOL.md section 3: a restart whose IDENTITY was lost)
        self._resync_since: float | None = None
        self._last_request = 0.0
        self._ask_at = 0.0  # while resyncing: when to send the next snapshot request
        self._last_byte = 0.0
        self._resync_reason = ""
        self._cmd_seq = 0
        self._path: str | None = None
        self._last_frame = 0.0
        self._last_heartbeat: float | None = None
        self._last_probe = 0.0
        self._connected_once = False
        self.counters = {"frames_ok": 0, "frames_dropped": 0, "crc_errors": 0, "seq_gaps": 0, "late_frames": 0,
                         "resyncs": 0, "corrections": 0, "reconnects": 0, "board_errors": 0}
        self.last_error: str | None = None
        #: Set while the board's latest IDENTITY gave a matrix that cannot exist (health not ok).
        self.identity_error: str | None = None
        self.board_bad_commands = 0
        #: Called with (SwitchChange, how) after each emit; how is "live" or "resync" (soak, tests).
        self.observer: Callable[[SwitchChange, str], None] | None = None
        self._outbox: list[tuple[SwitchChange, str]] = []
        self._starting = False

    # -- the port ---------------------------------------------------------------------------------
    def start(self, emit: Emit) -> None:
        """Open the port in a reader thread; waits up to ``startup_wait_s`` for the first snapshot so
        that :meth:`snapshot` is right when the app reconciles (it carries on without the board).

        If the board only answers later, its first snapshot is reported channel by channel, open
        and closed, since nothing reconciled the game with it."""
        self._emit = emit
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="serial-sensors", daemon=True)
        self._starting = True
        self._thread.start()
        if self.startup_wait_s:
            self._synced_once.wait(self.startup_wait_s)
        self._starting = False

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(2.0)
        self._close()
        self._emit = None

    def snapshot(self) -> dict[str, bool]:
        with self._lock:
            return dict(self._view)

    def alive(self) -> bool:
        """True while the reader thread runs (the service's watchdog asks).

        An unplugged board does not make this False: the thread keeps reopening the port, and
        :meth:`health` says what is wrong. False before :meth:`start`, after :meth:`stop`, and if the
        thread has died, when nothing reads the switches any more and only a restart helps.
        """
        thread = self._thread
        return thread is not None and thread.is_alive()

    def stale_after_s(self) -> float:
        """Seconds without a frame after which the link counts as stale: ``stale_s`` if set, else
        STALE_HEARTBEATS heartbeat periods as the board's IDENTITY gives them (PROTOCOL.md §5)."""
        if self.stale_s is not None:
            return self.stale_s
        ident = self._identity
        if ident is None or ident.heartbeat_ms <= 0:
            return STALE_UNKNOWN_S
        return STALE_HEARTBEATS * ident.heartbeat_ms / 1000

    def wait_synced(self, timeout: float) -> bool:
        """True once the first snapshot has been applied (False after ``timeout`` seconds)."""
        return self._synced_once.wait(timeout)

    def request_snapshot(self, reason: str = "asked") -> None:
        """Ask the board for a snapshot and make the view match it when it comes."""
        with self._lock:
            self._start_resync(reason, self._clock(), force=True)

    def health(self) -> dict[str, Any]:
        with self._lock:
            now = self._clock()
            ident = self._identity
            connected = self._ser is not None
            synced = connected and self._resync_since is None and ident is not None
            stale_after = self.stale_after_s()
            stale = connected and now - self._last_frame > stale_after
            channels = self.channels.report(now)
            return {
                "adapter": "serial",
                "ok": bool(synced and not stale and not channels["chatter"] and not channels["stuck"]
                           and self.identity_error is None),
                "identity_error": self.identity_error,
                "connected": connected,
                "port": self._path or self.device,
                "synced": synced,
                "stale": stale,
                "stale_after_s": round(stale_after, 3),
                "device": None if ident is None else {
                    "firmware": ident.version, "protocol": ident.proto, "rows": ident.rows, "cols": ident.cols,
                    "debounce_ms": ident.debounce_ms, "scan_us": ident.scan_us,
                    "snapshot_ms": ident.snapshot_ms, "heartbeat_ms": ident.heartbeat_ms},
                "last_heartbeat_age_s": None if self._last_heartbeat is None
                else round(now - self._last_heartbeat, 3),
                **self.counters,
                "bad_frames": dict(self._decoder.stats.bad),
                "board_bad_commands": self.board_bad_commands,
                "last_error": self.last_error,
                "channels": channels,
            }

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
                now = self._clock()
                if data:
                    self._last_byte = now
                    self._on_bytes(data, now)
                elif now - self._last_byte >= self.PARTIAL_TIMEOUT_S:
                    self._expire_partial(now)
                self._housekeeping(now)
                self._flush()
            except Exception as exc:  # serial.SerialException, OSError: unplugged or gone
                if self._stopping.is_set():
                    break
                was_open = self._ser is not None
                self.last_error = (f"link to {self._path} lost: {exc}" if was_open
                                   else f"looking for the sensor board's port failed: {exc}")
                log.warning("%s; reconnecting", self.last_error)
                self._close()
                self._flush()
                if not was_open or self._clock() - opened_at < self.reconnect_s:
                    # failed to open, or lost as soon as it opened: wait rather than spin
                    self._stopping.wait(self.reconnect_s)

    def _read(self, ser: Any) -> bytes:
        """Wait for bytes, but no longer than the next thing to do (a partial block to expire, a
        snapshot request to repeat, housekeeping every 10 ms)."""
        wait = 0.01
        now = self._clock()
        if self._decoder.pending():
            wait = min(wait, max(0.0, self._last_byte + self.PARTIAL_TIMEOUT_S - now))
        if self._resync_since is not None:
            wait = min(wait, max(0.0, self._ask_at - now))
        try:
            fd = ser.fileno()
        except Exception:  # not a POSIX port: let pyserial wait
            return ser.read(ser.in_waiting or 1)
        readable, _, _ = select.select([fd], [], [], wait)
        if not readable:
            return b""
        return ser.read(max(1, ser.in_waiting))  # readable but empty: pyserial raises (unplugged)

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
            ser = serial.Serial(path, self.baudrate, timeout=self.PARTIAL_TIMEOUT_S, write_timeout=0.5,
                                exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            self._note_error(explain_open_error(path, exc))
            return False
        with self._lock:
            self._ser = ser
            self._path = path
            self._decoder.reset()
            self._expected_seq = None
            self._last_frame = self._clock()
            try:
                self._send(sp.CMD_IDENTIFY)
                if any(v is not None for v in self.params.values()):
                    self._send_raw(sp.set_command(self._next_seq(), **self.params))
                self._send(sp.CMD_SNAPSHOT)
            except Exception as exc:  # SerialTimeoutException, OSError: opened, but it takes nothing
                self._ser = None
                with contextlib.suppress(Exception):
                    ser.close()
                self._note_error(f"{path} opened but writing to it failed ({exc}): is the sensor board "
                                 f"running the kipukas firmware? Unplug it and plug it back in; "
                                 f"the adapter keeps trying")
                return False
            if self._connected_once:
                self.counters["reconnects"] += 1
            self._connected_once = True
            self.last_error = None
            self._start_resync("connect", self._last_frame, force=True, send=False)  # sent above
        log.info("sensor board on %s", path)
        return True

    def _note_error(self, message: str) -> None:
        if message != self.last_error:
            log.warning("%s", message)
        self.last_error = message

    def _close(self) -> None:
        with self._lock:
            ser, self._ser = self._ser, None
        if ser is not None:
            with contextlib.suppress(Exception):
                ser.close()

    def _next_seq(self) -> int:
        self._cmd_seq = (self._cmd_seq + 1) & 0xFFFF
        return self._cmd_seq

    def _send(self, ftype: int, payload: bytes = b"") -> None:
        self._send_raw(sp.encode(ftype, self._next_seq(), payload))

    def _send_raw(self, data: bytes) -> None:
        if self._ser is not None:
            self._ser.write(data)

    # -- frames ------------------------------------------------------------------------------------
    #: A frame is written whole; a block that stops this long without its 0x00 has lost its end.
    PARTIAL_TIMEOUT_S = 0.003

    def _expire_partial(self, now: float) -> None:
        with self._lock:
            err = self._decoder.expire()
            if err is not None:
                self._on_bad(err, now)

    def _on_bad(self, item: sp.FrameError, now: float) -> None:
        if item.kind == "echo":  # nothing was lost: the line hands our own commands back
            self._note_error("the sensor board's port echoes the host's commands back: is the Pico at the "
                             "MicroPython prompt (safe-mode pin grounded, or main.py stopped)?")
            return
        if item.kind == "geometry":  # the board really said so: asking again would get the same answer
            self.counters["frames_dropped"] += 1
            self.identity_error = f"{item}; check the firmware's ROWS and COLS (firmware/README.md)"
            self._note_error(f"sensor board: {self.identity_error}")
            return
        self.counters["frames_dropped"] += 1
        if item.kind == "crc":
            self.counters["crc_errors"] += 1
        # whatever the bad frame held is lost: ask for the truth now
        self._start_resync(f"bad frame ({item})", now, evidence=True)

    def _on_bytes(self, data: bytes, now: float) -> None:
        with self._lock:
            for item in self._decoder.feed(data):
                if isinstance(item, sp.FrameError):
                    self._on_bad(item, now)
                else:
                    self._on_message(item, now)

    def _on_message(self, msg: sp.Message, now: float) -> None:
        self.counters["frames_ok"] += 1
        self._last_frame = now
        if self._expected_seq is not None and msg.seq != self._expected_seq:
            behind = (self._expected_seq - msg.seq) & 0xFFFF
            restart = isinstance(msg, sp.Identity) and msg.seq == 0  # the board's power-on frame
            if behind <= sp.LATE_WINDOW and not restart and self._late_run < sp.LATE_RUN:
                # Sent before a frame already taken (PROTOCOL.md section 3): acting on it would put
                # old states back. Never used; the snapshot asked for covers whatever it held.
                self.counters["late_frames"] += 1
                self._late_run += 1
                self._start_resync(f"late frame (seq {msg.seq}, expected {self._expected_seq})", now,
                                   evidence=True)
                return
            self.counters["seq_gaps"] += 1
            self._start_resync(f"sequence gap (expected {self._expected_seq}, got {msg.seq})", now, evidence=True)
        self._expected_seq = (msg.seq + 1) & 0xFFFF
        self._late_run = 0
        if isinstance(msg, sp.Identity):
            self.identity_error = None
            if msg.proto != sp.PROTO_VERSION:
                self._note_error(f"sensor board speaks protocol {msg.proto}; this host speaks "
                                 f"{sp.PROTO_VERSION}: update the firmware or kipukas-board")
            if self._identity is not None and (self._identity.rows, self._identity.cols) != (msg.rows, msg.cols):
                self._start_resync("matrix size changed", now, force=True)
            self._identity = msg
        elif isinstance(msg, sp.Change):
            name = self._name(msg.channel)
            if name is None:
                self._start_resync("change before identity", now, evidence=True)
                return
            self._deliver(name, msg.closed, now, "live")
        elif isinstance(msg, sp.Snapshot):
            self._on_snapshot(msg, now)
        elif isinstance(msg, sp.Heartbeat):
            self._last_heartbeat = now
            self.board_bad_commands = msg.bad_commands
        elif isinstance(msg, sp.BoardError):
            self.counters["board_errors"] += 1
            self._note_error(f"sensor board refused a command: "
                             f"{sp.ERROR_CODES.get(msg.code, msg.code)}: {msg.message}")

    def _name(self, channel: int) -> str | None:
        ident = self._identity
        if ident is None or channel >= ident.rows * ident.cols:
            return None
        return sp.channel_name(channel, ident.cols)

    def _on_snapshot(self, msg: sp.Snapshot, now: float) -> None:
        ident = self._identity
        if ident is None or len(msg.closed) != ident.rows * ident.cols:
            self._send(sp.CMD_IDENTIFY)
            self._start_resync("snapshot before identity", now, evidence=True)
            return
        first = not self._synced_once.is_set()
        for i, closed in enumerate(msg.closed):
            name = sp.channel_name(i, ident.cols)
            if first and name not in self._view:
                self._board[name] = closed
                self._view[name] = closed
                self.channels.seen(name, closed, now)
                if not self._starting:
                    # The board came after start-up, so the app's reconcile never saw it: report every
                    # channel once, open ones too, so a stand the journal thinks occupied is corrected.
                    self._emit_change(name, closed, "resync")
                continue
            if self._deliver(name, closed, now, "resync"):
                self.counters["corrections"] += 1
        if self._resync_since is not None:
            self._resync_since = None
            self.counters["resyncs"] += 1
        self._synced_once.set()

    def _deliver(self, name: str, closed: bool, now: float, how: str) -> bool:
        """The board says ``name`` is ``closed``: pass it on if it is news and the channel is trusted."""
        if self._board.get(name) != closed:
            self._board[name] = closed
            if how == "resync":  # the host missed a change, the switch did not make an extra one
                self.channels.corrected(name, closed, now)
                if not self.channels.trusted(name):
                    return False
            elif not self.channels.admit(name, closed, now):
                return False
        elif not self.channels.trusted(name):
            return False
        if self._view.get(name, False) == closed:  # a channel never reported counts as open
            self._view[name] = closed
            return False
        self._view[name] = closed
        self._emit_change(name, closed, how)
        return True

    def _emit_change(self, name: str, closed: bool, how: str) -> None:
        self._outbox.append((SwitchChange(name, closed), how))

    # -- resync and liveness --------------------------------------------------------------------
    #: Evidence of loss re-asks at most this often (the lost frame may have been the snapshot itself).
    EVIDENCE_GAP_S = 0.002

    def _start_resync(self, reason: str, now: float, force: bool = False, evidence: bool = False,
                      send: bool = True) -> None:
        """Ask the board for a snapshot; the view is made to match it when it comes.

        Any snapshot that arrives after the evidence of a loss covers that loss, because the board
        sends in order. So a request is needed only when none is on its way: a new loss while one
        is (``evidence``) may have been the answer itself, and is answered with a new request as
        soon as ``EVIDENCE_GAP_S`` has passed since the last one. The gap bounds how many requests
        a burst of noise can cause; deferring rather than dropping the request keeps a lost
        answer from costing the whole ``resync_timeout_s``.
        """
        if self._resync_since is not None and not force:
            due = self._last_request + (self.EVIDENCE_GAP_S if evidence else self.resync_timeout_s)
            if now < due:
                self._ask_at = min(self._ask_at, due)
                self._resync_reason = reason
                return
        if self._resync_since is None:
            self._resync_since = now
        self._last_request = now
        self._ask_at = now + self.resync_timeout_s
        self._resync_reason = reason
        if not send:
            return
        try:
            self._send(sp.CMD_SNAPSHOT)
        except Exception as exc:  # the reader loop notices the dead port
            log.debug("snapshot request not sent: %s", exc)

    def _housekeeping(self, now: float) -> None:
        with self._lock:
            if self._resync_since is not None and now >= self._ask_at:
                reason = self._resync_reason
                self._start_resync(reason if reason.endswith("(again)") else reason + " (again)", now,
                                   force=True)
            for name, closed in self.channels.released(now):
                if self._view.get(name) != closed:
                    self._view[name] = closed
                    self._emit_change(name, closed, "released")
            silent = now - self._last_frame
            stale_after = self.stale_after_s()
            if silent > 3 * stale_after:
                self.last_error = f"no frame from {self._path} for {silent:.1f} s: reopening the port"
                raise OSError(self.last_error)
            if silent > stale_after and now - self._last_probe > stale_after:
                self._last_probe = now
                self._send(sp.CMD_IDENTIFY)
