"""The sensor board's serial protocol, host side: frames in and out, checked byte by byte.

``firmware/PROTOCOL.md`` is the specification. The firmware has its own implementation
(``firmware/kb_proto.py``, MicroPython); this one is written separately for the host and the tests
check that the two, and the worked examples in PROTOCOL.md, agree byte for byte.

A frame is ``type seq(2) len payload crc(2)`` (big-endian, CRC-16/CCITT-FALSE over everything before
it), COBS-stuffed and sent between ``0x00`` delimiters. A frame that fails any check (stuffing, length,
CRC, a payload of the wrong size for its type) is dropped and counted, never half-used.

Example::

    >>> from kipukas_board.hardware.sensors.protocol import FrameDecoder, encode, Change
    >>> wire = encode(0x02, 7, bytes([5, 1]))
    >>> wire.hex(" ")
    '00 02 02 07 07 02 05 01 55 c9 00'
    >>> dec = FrameDecoder()
    >>> dec.feed(wire)
    [Change(seq=7, channel=5, closed=True)]
"""

from __future__ import annotations

from dataclasses import dataclass, field

PROTO_VERSION = 1
MAX_PAYLOAD = 64
#: The most channels a matrix may have (rows x cols): what a SNAPSHOT's count and bitmap carry here.
MAX_CHANNELS = 64
#: A frame at most this far behind the one expected is late (PROTOCOL.md section 3); farther is a gap.
LATE_WINDOW = 1024
#: After this many late frames in a row the board's numbering is taken to have started again.
LATE_RUN = 8

# board -> host
IDENTITY, CHANGE, SNAPSHOT, HEARTBEAT, SELFTEST, ERROR = 0x01, 0x02, 0x03, 0x04, 0x05, 0x7F
# host -> board
CMD_IDENTIFY, CMD_SNAPSHOT, CMD_SET, CMD_SELFTEST = 0x81, 0x82, 0x83, 0x84
#: In a SET command, a field holding KEEP leaves that parameter unchanged.
KEEP = 0xFFFF

SNAPSHOT_REASONS = {0: "periodic", 1: "requested", 2: "boot"}
ERROR_CODES = {1: "bad frame", 2: "unknown command", 3: "bad parameter"}


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _crc_table()


def crc16_ccitt_false(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected, no final XOR).

    >>> hex(crc16_ccitt_false(b"123456789"))
    '0x29b1'
    """
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ b) & 0xFF]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Stuff ``data`` so it holds no 0x00 (Cheshire and Baker's COBS)."""
    out = bytearray()
    start = 0
    while True:
        end = start
        while end < len(data) and data[end] != 0 and end - start < 254:
            end += 1
        out.append(end - start + 1)
        out += data[start:end]
        if end - start == 254:          # a full group: no zero follows it implicitly
            start = end
            if end == len(data):
                out.append(1)
                break
            continue
        if end >= len(data):
            break
        start = end + 1                  # skip the zero this group stands for
    return bytes(out)


def cobs_decode(block: bytes) -> bytes | None:
    """Undo :func:`cobs_encode`; None if ``block`` is not valid COBS."""
    out = bytearray()
    i = 0
    while i < len(block):
        code = block[i]
        if code == 0 or i + code > len(block):
            return None
        chunk = block[i + 1:i + code]
        if 0 in chunk:
            return None
        out += chunk
        i += code
        if code < 0xFF and i < len(block):
            out.append(0)
    return bytes(out)


def encode(ftype: int, seq: int, payload: bytes = b"") -> bytes:
    """The wire bytes of one frame: ``00 COBS(frame) 00``."""
    if not 0 <= ftype <= 0xFF or not 0 <= seq <= 0xFFFF:
        raise ValueError(f"frame type {ftype} / sequence {seq} out of range (0..255 / 0..65535)")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes; at most {MAX_PAYLOAD}")
    body = bytes([ftype, seq >> 8, seq & 0xFF, len(payload)]) + payload
    body += crc16_ccitt_false(body).to_bytes(2, "big")
    return b"\x00" + cobs_encode(body) + b"\x00"


# -- messages -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Identity:
    seq: int
    proto: int
    rows: int
    cols: int
    debounce_ms: int
    scan_us: int
    snapshot_ms: int
    heartbeat_ms: int
    version: str


@dataclass(frozen=True)
class Change:
    seq: int
    channel: int
    closed: bool


@dataclass(frozen=True)
class Snapshot:
    seq: int
    reason: str
    closed: tuple[bool, ...]


@dataclass(frozen=True)
class Heartbeat:
    seq: int
    uptime_ms: int
    bad_commands: int


@dataclass(frozen=True)
class BoardError:
    seq: int
    code: int
    message: str


@dataclass(frozen=True)
class SelfTest:
    """The matrix's wiring check (PROTOCOL.md, SELFTEST): what each position and line read.

    ``closed``: the channels a plain scan read closed; ``reverse``: the channels whose row read low
    while only their column was pulled low (current backwards through the position); ``rows`` and
    ``cols``: the lines that read low while another line of their kind alone was pulled low.
    :mod:`kipukas_board.hardware.sensors.matrix_check` says what each means.
    """

    seq: int
    nrows: int
    ncols: int
    closed: frozenset[int]
    reverse: frozenset[int]
    rows: frozenset[int]
    cols: frozenset[int]


Message = Identity | Change | Snapshot | Heartbeat | SelfTest | BoardError


class FrameError(ValueError):
    """A block that is not a valid frame; ``kind`` is 'cobs', 'length', 'crc', 'payload', 'overflow',
    'timeout', 'echo' (an intact frame of the receiver's own direction: the line echoes), or 'geometry'
    (an intact IDENTITY whose matrix cannot exist)."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


def parse_block(block: bytes) -> Message:
    """One COBS block (without delimiters) → a message, or :class:`FrameError` saying what was wrong."""
    body = cobs_decode(block)
    if body is None:
        raise FrameError("cobs", f"not a valid COBS block ({block[:16].hex(' ')}...)")
    if len(body) < 6 or body[3] != len(body) - 6:
        raise FrameError("length", f"{len(body)} bytes with length field {body[3] if len(body) > 3 else '-'}")
    want = crc16_ccitt_false(body[:-2])
    got = int.from_bytes(body[-2:], "big")
    if want != got:
        raise FrameError("crc", f"CRC {got:04x}, expected {want:04x}")
    ftype, seq, p = body[0], int.from_bytes(body[1:3], "big"), body[4:-2]
    return parse_payload(ftype, seq, p)


def parse_payload(ftype: int, seq: int, p: bytes) -> Message:
    """A checked frame's payload → a message (or :class:`FrameError` 'payload')."""
    def need(ok: bool, what: str) -> None:
        if not ok:
            raise FrameError("payload", f"type 0x{ftype:02x}: {what}, got {len(p)} bytes {p.hex(' ')}")

    if ftype == CHANGE:
        need(len(p) == 2 and p[1] in (0, 1), "2 bytes: channel, state 0/1")
        return Change(seq, p[0], p[1] == 1)
    if ftype == SNAPSHOT:
        need(len(p) >= 2 and p[0] in SNAPSHOT_REASONS and len(p) == 2 + (p[1] + 7) // 8,
             "reason 0-2, channel count, ceil(count/8) bitmap bytes")
        bits = tuple(bool(p[2 + i // 8] >> (i % 8) & 1) for i in range(p[1]))
        return Snapshot(seq, SNAPSHOT_REASONS[p[0]], bits)
    if ftype == HEARTBEAT:
        need(len(p) == 6, "6 bytes: uptime_ms(4), bad commands(2)")
        return Heartbeat(seq, int.from_bytes(p[:4], "big"), int.from_bytes(p[4:], "big"))
    if ftype == IDENTITY:
        need(len(p) >= 11, "at least 11 bytes")
        if not (p[1] >= 1 and p[2] >= 1 and p[1] * p[2] <= MAX_CHANNELS):
            # Intact (the CRC held), so the board really says so: a firmware or build mistake.
            raise FrameError("geometry", f"IDENTITY gives an impossible matrix of {p[1]} x {p[2]}: rows and "
                                         f"columns must be 1 or more and rows x cols at most {MAX_CHANNELS}")
        u = [int.from_bytes(p[3 + 2 * i:5 + 2 * i], "big") for i in range(4)]
        return Identity(seq, p[0], p[1], p[2], u[0], u[1], u[2], u[3], p[11:].decode("ascii", "replace"))
    if ftype == SELFTEST:
        need(len(p) >= 2 and p[0] >= 1 and p[1] >= 1 and p[0] * p[1] <= MAX_CHANNELS, "rows, cols (rows x cols <= 64)")
        n, nr, nc = p[0] * p[1], p[0], p[1]
        sizes = ((n + 7) // 8, (n + 7) // 8, (nr + 7) // 8, (nc + 7) // 8)
        need(len(p) == 2 + sum(sizes), "rows, cols, then the closed, reverse, rows and cols bitmaps")
        sets, at = [], 2
        for size, count in zip(sizes, (n, n, nr, nc), strict=True):
            sets.append(frozenset(i for i in range(count) if p[at + i // 8] >> (i % 8) & 1))
            at += size
        return SelfTest(seq, nr, nc, *sets)
    if ftype == ERROR:
        need(len(p) >= 1, "an error code")
        return BoardError(seq, p[0], p[1:].decode("ascii", "replace"))
    # the host's own command came back: a port that echoes
    if ftype in (CMD_IDENTIFY, CMD_SNAPSHOT, CMD_SET, CMD_SELFTEST):
        raise FrameError("echo", f"the host's own command 0x{ftype:02x} came back")
    raise FrameError("payload", f"unknown frame type 0x{ftype:02x}")


@dataclass
class DecoderStats:
    frames_ok: int = 0
    bad: dict[str, int] = field(default_factory=lambda: {"cobs": 0, "length": 0, "crc": 0, "payload": 0,
                                                          "overflow": 0, "timeout": 0, "echo": 0,
                                                          "geometry": 0})

    @property
    def frames_bad(self) -> int:
        return sum(self.bad.values())


class FrameDecoder:
    """Turns a byte stream into messages; bad frames are counted in :attr:`stats` and skipped.

    After garbage, the next ``0x00`` resynchronises: at most the frame the garbage touched is lost.
    A frame is judged as soon as the bytes its length field promises have arrived, without waiting
    for its closing ``0x00`` (so a damaged delimiter costs no time); bytes that follow it before the
    delimiter make a bad frame of their own.
    """

    #: Longest block a valid frame can stuff to; anything longer is garbage.
    LIMIT = MAX_PAYLOAD + 8

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False
        self._judged = False
        self._trailing = False
        self._group_at = 0  # where the next COBS code byte of the current block is
        self.stats = DecoderStats()
        self.last_error: str | None = None

    def reset(self) -> None:
        """Forget a partial frame (after a reconnect)."""
        self._buf.clear()
        self._overflow = self._judged = self._trailing = False
        self._group_at = 0

    def _judge(self, block: bytes, out: list[Message | FrameError]) -> None:
        try:
            msg = parse_block(block)
        except FrameError as exc:
            self._bad(exc, out)
        else:
            self.stats.frames_ok += 1
            out.append(msg)

    def _bad(self, exc: FrameError, out: list[Message | FrameError]) -> None:
        self.stats.bad[exc.kind] += 1
        self.last_error = str(exc)
        out.append(exc)

    def pending(self) -> bool:
        """True while part of a block waits for its closing 0x00."""
        return bool(self._buf) or self._judged or self._overflow

    def expire(self) -> FrameError | None:
        """Give up on a partial block (the caller saw no byte for a while): a frame is sent whole,
        so one that stops half-way lost its end, or its delimiter, on the way."""
        if not self.pending():
            return None
        out: list[Message | FrameError] = []
        if self._judged:
            if self._trailing:
                self._bad(FrameError("length", "bytes after a complete frame"), out)
        else:
            self._bad(FrameError("timeout", f"{len(self._buf)} bytes and then silence, no closing 0x00"), out)
        self.reset()
        return out[0] if out else None

    def feed(self, data: bytes) -> list[Message | FrameError]:
        """Messages (and FrameErrors, in stream order) completed by ``data``."""
        out: list[Message | FrameError] = []
        for ended, part in _split_keep(data):
            if self._judged:
                self._trailing = self._trailing or bool(part)
            elif self._overflow:
                pass
            elif len(self._buf) + len(part) > self.LIMIT:
                self._overflow = True
            else:
                self._buf += part
            if ended:
                if self._judged:
                    if self._trailing:
                        self._bad(FrameError("length", "bytes after a complete frame"), out)
                elif self._overflow:
                    self._bad(FrameError("overflow", f"more than {self.LIMIT} bytes without a delimiter"), out)
                elif self._buf:
                    self._judge(bytes(self._buf), out)
                self.reset()
            elif part and not self._judged and not self._overflow:
                self._judge_early(out)
        return out

    def _judge_early(self, out: list[Message | FrameError]) -> None:
        # Walk the COBS groups received so far; at each group boundary, if the decoded bytes hold as
        # many as the length field promises, judge the frame now (bytes after it become trailing junk).
        buf = self._buf
        while self._group_at < len(buf):
            end = self._group_at + buf[self._group_at]
            if end > len(buf):
                return
            self._group_at = end
            body = cobs_decode(bytes(buf[:end]))
            if body is not None and len(body) >= 6 and len(body) >= 6 + body[3]:
                self._judge(bytes(buf[:end]), out)
                self._judged = True
                self._trailing = end < len(buf)
                return


def _split_keep(data: bytes) -> list[tuple[bool, bytes]]:
    """``data`` split at 0x00: (ended_by_delimiter, bytes before it) pieces."""
    parts = data.split(b"\x00")
    return [(i < len(parts) - 1, p) for i, p in enumerate(parts)]


def channel_name(channel: int, cols: int) -> str:
    """The host's name for a matrix channel: ``r<row>c<col>``, rows and columns counted from 0
    (PROTOCOL.md section 4; ``sensors monitor`` prints it and hardware/ labels the wiring with it).

    >>> channel_name(21, 8), channel_name(0, 8)
    ('r2c5', 'r0c0')
    """
    return f"r{channel // cols}c{channel % cols}"


def set_command(seq: int, debounce_ms: int | None = None, scan_us: int | None = None,
                snapshot_ms: int | None = None, heartbeat_ms: int | None = None) -> bytes:
    """The wire bytes of a SET command; None keeps a parameter as it is."""
    vals = [KEEP if v is None else int(v) for v in (debounce_ms, scan_us, snapshot_ms, heartbeat_ms)]
    for v in vals:
        if not 0 <= v <= 0xFFFF:
            raise ValueError(f"SET parameter {v} does not fit in 16 bits")
    return encode(CMD_SET, seq, b"".join(v.to_bytes(2, "big") for v in vals))
