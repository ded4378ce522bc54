"""What the host believes about the sensor board's switches: the serial link's rules, with no port.

The sensor board (``firmware/``) sends frames; this object is fed the bytes and the clock's ticks and
answers with what to do: bytes to write, switch changes to report, or a port to reopen. It never reads,
writes, sleeps or asks the time, so every rule can be tested row by row with a made-up clock; the
adapter (:mod:`.serial_link`) only moves bytes and carries out the actions (Klipper's split between
``msgproto`` and ``serialhdl``).

The rules (``firmware/PROTOCOL.md`` sections 3 to 5): a bad frame, a sequence gap, a late frame, a
board restart or a reconnect each start a *resync*: a snapshot is asked for and the view is made to
match it when it comes. A late frame is never acted on. A channel that chatters is held back
(:class:`.channel_health.ChannelHealth`). A link silent for a few heartbeat periods is probed, and
reopened if it stays silent.

Example (a 2 x 2 board says who it is and what is closed; then a damaged frame)::

    >>> from kipukas_board.hardware.sensors import protocol as sp
    >>> policy = LinkPolicy()
    >>> greeting = policy.connect(0.0)        # IDENTIFY and SNAPSHOT, for the adapter to write
    >>> policy.greeted(0.0)
    []
    >>> ident = sp.encode(sp.IDENTITY, 0, bytes((1, 2, 2, 0, 20, 3, 232, 3, 232, 0, 100)) + b"doc")
    >>> actions = policy.feed(ident + sp.encode(sp.SNAPSHOT, 1, bytes((1, 4, 0b10))), 0.01)
    >>> [a.change for a in actions if isinstance(a, Report)]    # and a Send: the wiring check's request
    [SwitchChange(channel='r0c0', closed=False), SwitchChange(channel='r0c1', closed=True), \
SwitchChange(channel='r1c0', closed=False), SwitchChange(channel='r1c1', closed=False)]
    >>> policy.health(0.02)["synced"], policy.view()["r0c1"]
    (True, True)
    >>> policy.feed(b"\\x00\\x05\\x01\\x02\\x00", 0.03) == [Send(sp.encode(sp.CMD_SNAPSHOT, 4), required=False)]
    True
    >>> policy.resyncing
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kipukas_board.hardware.sensors import protocol as sp
from kipukas_board.hardware.sensors.channel_health import ChannelHealth
from kipukas_board.hardware.sensors.matrix_check import diagnose
from kipukas_board.hardware.sensors.port import SwitchChange

#: PROTOCOL.md section 5: the link is stale after this many heartbeat periods without a frame.
STALE_HEARTBEATS = 3
#: Stale after this long while the board's heartbeat period is not known yet (no IDENTITY so far).
STALE_UNKNOWN_S = 1.0
#: A frame is written whole; a block that stops this long without its 0x00 has lost its end.
PARTIAL_TIMEOUT_S = 0.003
#: Evidence of loss re-asks at most this often (the lost frame may have been the snapshot itself).
EVIDENCE_GAP_S = 0.002
#: With nothing else to wait for, the adapter comes back to :meth:`LinkPolicy.tick` this often.
TICK_S = 0.01


@dataclass(frozen=True)
class Send:
    """Write these bytes to the board. ``required``: a failed write means the port is gone; a snapshot
    request that fails is only logged, since the next read finds the dead port anyway."""

    data: bytes
    required: bool = True


@dataclass(frozen=True)
class Report:
    """Tell the game about this change; ``how`` is "live", "resync" or "released"."""

    change: SwitchChange
    how: str


@dataclass(frozen=True)
class Warn:
    """Something the board's keeper should read in the log (also in :meth:`LinkPolicy.health`)."""

    message: str


@dataclass(frozen=True)
class Reopen:
    """The link has been silent for ``silent_s`` seconds, too long: close the port and open it again."""

    silent_s: float


Action = Send | Report | Warn | Reopen


class LinkPolicy:
    """The resync rules of the serial link as a pure object: see the module docstring.

    Every input is a method taking ``now`` (seconds, any monotonic origin) and returning the actions
    it calls for, in order. ``starting`` is set by the adapter while the app is waiting for the first
    snapshot: the app reconciles with :meth:`view` itself then, so only later first snapshots are
    reported channel by channel.
    """

    def __init__(self, params: dict[str, int | None] | None = None, resync_timeout_s: float = 0.05,
                 stale_s: float | None = None, channels: ChannelHealth | None = None) -> None:
        self.params = dict(params or {})
        self.resync_timeout_s = resync_timeout_s
        #: None: stale after STALE_HEARTBEATS of the board's own heartbeat periods (its IDENTITY says).
        self.stale_s = stale_s
        self.channels = channels if channels is not None else ChannelHealth()
        self.starting = False
        #: True once the first snapshot has been applied.
        self.synced_once = False
        self.connected = False
        self.counters = {"frames_ok": 0, "frames_dropped": 0, "crc_errors": 0, "seq_gaps": 0, "late_frames": 0,
                         "resyncs": 0, "corrections": 0, "reconnects": 0, "board_errors": 0}
        self.last_error: str | None = None
        #: Set while the board's latest IDENTITY gave a matrix that cannot exist (health not ok).
        self.identity_error: str | None = None
        self.board_bad_commands = 0
        self.identity: sp.Identity | None = None
        self._decoder = sp.FrameDecoder()
        self._board: dict[str, bool] = {}   # what the board last said
        self._view: dict[str, bool] = {}    # what has been reported (view() returns this)
        self._expected_seq: int | None = None
        self._late_run = 0  # late frames in a row (PROTOCOL.md section 3: a restart whose IDENTITY was lost)
        self._resync_since: float | None = None
        self._last_request = 0.0
        self._ask_at = 0.0  # while resyncing: when to send the next snapshot request
        self._resync_reason = ""
        self._last_byte = 0.0
        self._last_frame = 0.0
        self._last_heartbeat: float | None = None
        self._last_probe = 0.0
        self._cmd_seq = 0
        self._connected_once = False
        self._out: list[Action] = []
        #: The board's latest wiring check (SELFTEST), how many have come, and whether the firmware
        #: refused the command (older than 1.1.0).
        self.wiring: sp.SelfTest | None = None
        self.wiring_count = 0
        self.wiring_unsupported = False

    # -- what the adapter asks -------------------------------------------------------------------
    def view(self) -> dict[str, bool]:
        """Every channel as last reported (what the game has been told)."""
        return dict(self._view)

    @property
    def resyncing(self) -> bool:
        """True from the evidence of a loss until a snapshot has covered it."""
        return self._resync_since is not None

    def stale_after_s(self) -> float:
        """Seconds without a frame after which the link counts as stale: ``stale_s`` if set, else
        STALE_HEARTBEATS heartbeat periods as the board's IDENTITY gives them (PROTOCOL.md §5)."""
        if self.stale_s is not None:
            return self.stale_s
        ident = self.identity
        if ident is None or ident.heartbeat_ms <= 0:
            return STALE_UNKNOWN_S
        return STALE_HEARTBEATS * ident.heartbeat_ms / 1000

    def wait_s(self, now: float) -> float:
        """How long the adapter may wait for bytes before :meth:`tick` has something to do."""
        wait = TICK_S
        if self._decoder.pending():
            wait = min(wait, max(0.0, self._last_byte + PARTIAL_TIMEOUT_S - now))
        if self._resync_since is not None:
            wait = min(wait, max(0.0, self._ask_at - now))
        return wait

    def health(self, now: float) -> dict[str, Any]:
        """The link's health as the page shows it (the adapter adds ``adapter`` and ``port``)."""
        ident = self.identity
        synced = self.connected and self._resync_since is None and ident is not None
        stale_after = self.stale_after_s()
        stale = self.connected and now - self._last_frame > stale_after
        channels = self.channels.report(now)
        wiring_faults = bool(self.wiring is not None and diagnose(self.wiring))
        return {
            "ok": bool(synced and not stale and not channels["chatter"] and not channels["stuck"]
                       and self.identity_error is None and not wiring_faults),
            "identity_error": self.identity_error,
            "connected": self.connected,
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
            "wiring": self.wiring_health(),
        }

    def wiring_health(self) -> dict[str, Any]:
        """The latest wiring check's faults by channel (those it finds with no token known to be
        anywhere: diodes and touching wires; stuck and open reeds need the board test)."""
        if self.wiring_unsupported:
            return {"checked": False, "faults": [], "why": "the sensor board's firmware is older than 1.1.0 and "
                    "has no wiring check: scripts/flash-pico --files-only"}
        if self.wiring is None:
            return {"checked": False, "faults": []}
        faults = []
        for f in diagnose(self.wiring):
            item = f.to_json()
            if f.channel is not None:
                item["channel_name"] = sp.channel_name(f.channel, self.wiring.ncols)
            faults.append(item)
        return {"checked": True, "faults": faults}

    def request_self_test(self) -> list[Action]:
        """Ask the board for its wiring check (:attr:`wiring` holds the answer when it comes)."""
        self._send(sp.CMD_SELFTEST, required=False)
        return self._take()

    # -- the port's life ---------------------------------------------------------------------------
    def connect(self, now: float) -> list[Action]:
        """A port has just opened: forget any half-read frame, and greet the board (IDENTIFY, the
        settings if any, SNAPSHOT). Call :meth:`greeted` once those bytes are written."""
        self._decoder.reset()
        self._expected_seq = None
        self._last_frame = now
        self._send(sp.CMD_IDENTIFY)
        if any(v is not None for v in self.params.values()):
            self._out.append(Send(sp.set_command(self._next_seq(), **self.params)))
        self._send(sp.CMD_SNAPSHOT)
        return self._take()

    def greeted(self, now: float) -> list[Action]:
        """The greeting went out: the link is up and a resync is on its way (its request was sent)."""
        self.connected = True
        if self._connected_once:
            self.counters["reconnects"] += 1
        self._connected_once = True
        self.last_error = None
        self._start_resync("connect", now, force=True, send=False)
        return self._take()

    def disconnected(self) -> None:
        """The port is closed (unplugged, or it failed): health says not connected."""
        self.connected = False

    def note_error(self, message: str) -> list[Action]:
        """The adapter met a problem worth showing: remember it, warn once per new message."""
        self._note_error(message)
        return self._take()

    def request_snapshot(self, reason: str, now: float) -> list[Action]:
        """Ask the board for a snapshot and make the view match it when it comes."""
        self._start_resync(reason, now, force=True)
        return self._take()

    # -- input ---------------------------------------------------------------------------------------
    def feed(self, data: bytes, now: float) -> list[Action]:
        """Bytes from the board, as they came."""
        if data:
            self._last_byte = now
        for item in self._decoder.feed(data):
            if isinstance(item, sp.FrameError):
                self._on_bad(item, now)
            else:
                self._on_message(item, now)
        return self._take()

    def on_message(self, msg: sp.Message, now: float) -> list[Action]:
        """One checked frame from the board."""
        self._on_message(msg, now)
        return self._take()

    def on_frame_error(self, error: sp.FrameError, now: float) -> list[Action]:
        """A frame that failed a check (what :class:`~.protocol.FrameDecoder` hands out)."""
        self._on_bad(error, now)
        return self._take()

    def tick(self, now: float) -> list[Action]:
        """Time has passed: expire a block cut short, repeat an unanswered request, release channels
        that have calmed down, probe a quiet link and give up on a silent one."""
        if now - self._last_byte >= PARTIAL_TIMEOUT_S:
            err = self._decoder.expire()
            if err is not None:
                self._on_bad(err, now)
        if self._resync_since is not None and now >= self._ask_at:
            reason = self._resync_reason
            self._start_resync(reason if reason.endswith("(again)") else reason + " (again)", now, force=True)
        for name, closed in self.channels.released(now):
            if self._view.get(name) != closed:
                self._view[name] = closed
                self._out.append(Report(SwitchChange(name, closed), "released"))
        if self.connected:
            silent = now - self._last_frame
            stale_after = self.stale_after_s()
            if silent > 3 * stale_after:
                self._out.append(Reopen(silent))
            elif silent > stale_after and now - self._last_probe > stale_after:
                self._last_probe = now
                self._send(sp.CMD_IDENTIFY)
        return self._take()

    # -- the rules -----------------------------------------------------------------------------------
    def _take(self) -> list[Action]:
        out, self._out = self._out, []
        return out

    def _next_seq(self) -> int:
        self._cmd_seq = (self._cmd_seq + 1) & 0xFFFF
        return self._cmd_seq

    def _send(self, ftype: int, required: bool = True) -> None:
        self._out.append(Send(sp.encode(ftype, self._next_seq()), required))

    def _note_error(self, message: str) -> None:
        if message != self.last_error:
            self._out.append(Warn(message))
        self.last_error = message

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
            if self.identity is not None and (self.identity.rows, self.identity.cols) != (msg.rows, msg.cols):
                self._start_resync("matrix size changed", now, force=True)
            self.identity = msg
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
        elif isinstance(msg, sp.SelfTest):
            self.wiring = msg
            self.wiring_count += 1
        elif isinstance(msg, sp.BoardError):
            if msg.code == 2 and f"0x{sp.CMD_SELFTEST:02x}" in msg.message:
                self.wiring_unsupported = True
                self.wiring_count += 1
                return
            self.counters["board_errors"] += 1
            self._note_error(f"sensor board refused a command: "
                             f"{sp.ERROR_CODES.get(msg.code, msg.code)}: {msg.message}")

    def _name(self, channel: int) -> str | None:
        ident = self.identity
        if ident is None or channel >= ident.rows * ident.cols:
            return None
        return sp.channel_name(channel, ident.cols)

    def _on_snapshot(self, msg: sp.Snapshot, now: float) -> None:
        ident = self.identity
        if ident is None or len(msg.closed) != ident.rows * ident.cols:
            self._send(sp.CMD_IDENTIFY)
            self._start_resync("snapshot before identity", now, evidence=True)
            return
        first = not self.synced_once
        for i, closed in enumerate(msg.closed):
            name = sp.channel_name(i, ident.cols)
            if first and name not in self._view:
                self._board[name] = closed
                self._view[name] = closed
                self.channels.seen(name, closed, now)
                if not self.starting:
                    # The board came after start-up, so the app's reconcile never saw it: report every
                    # channel once, open ones too, so a stand the journal thinks occupied is corrected.
                    self._out.append(Report(SwitchChange(name, closed), "resync"))
                continue
            if self._deliver(name, closed, now, "resync"):
                self.counters["corrections"] += 1
        if self._resync_since is not None:
            self._resync_since = None
            self.counters["resyncs"] += 1
        if first:  # once the board is known: check its wiring, for health
            self._send(sp.CMD_SELFTEST, required=False)
        self.synced_once = True

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
        self._out.append(Report(SwitchChange(name, closed), how))
        return True

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
            due = self._last_request + (EVIDENCE_GAP_S if evidence else self.resync_timeout_s)
            if now < due:
                self._ask_at = min(self._ask_at, due)
                self._resync_reason = reason
                return
        if self._resync_since is None:
            self._resync_since = now
        self._last_request = now
        self._ask_at = now + self.resync_timeout_s
        self._resync_reason = reason
        if send:
            self._send(sp.CMD_SNAPSHOT, required=False)
