# Kipukas sensor board: the main loop (scan, debounce, report, answer the host).
#
# Firmware does timing, the host does meaning: this loop scans the matrix every ``scan_us``,
# reports each debounced change at once in its own frame, sends a full snapshot every
# ``snapshot_ms`` and when asked, and a heartbeat every ``heartbeat_ms``. Every frame carries a
# sequence number and a CRC-16 (see PROTOCOL.md). ``led`` (a Pin, or None) blinks while it scans.
#
# ``port`` is anything with read() -> bytes (never blocks; b"" when nothing came) and
# write(bytes): USB CDC on the Pico (main.py), a pseudo-terminal under CPython.
#
#   fw = SensorFirmware(Matrix(rows, cols), UsbPort())
#   fw.run()
import kb_proto as P
from kb_debounce import Debouncer
from kb_led import Heartbeat
from kb_time import sleep_us, ticks_add, ticks_diff, ticks_ms, ticks_us

VERSION = "kipukas-sensors 1.1.0"

LIMITS = {  # parameter: (lowest, highest) accepted by the SET command
    "debounce_ms": (0, 1000),
    "scan_us": (200, 50000),
    "snapshot_ms": (100, 60000),
    "heartbeat_ms": (10, 10000),
}


class SensorFirmware:
    def __init__(self, matrix, port, debounce_ms=20, scan_us=1000, snapshot_ms=1000, heartbeat_ms=100,
                 version=VERSION, led=None, blink_ms=500):
        self.matrix = matrix
        self.port = port
        self.debounce_ms = debounce_ms
        self.scan_us = scan_us
        self.snapshot_ms = snapshot_ms
        self.heartbeat_ms = heartbeat_ms
        self.version = version
        self.count = matrix.count
        self.raw = bytearray(self.count)
        self.deb = Debouncer(self.count, debounce_ms)
        self.reader = P.BlockReader()
        self.seq = 0
        self.bad_frames = 0
        self.uptime_ms = 0
        self.started = False
        self.beat = Heartbeat(led, blink_ms)

    # -- sending ------------------------------------------------------------------------------
    def send(self, ftype, payload=b""):
        frame = P.encode_frame(ftype, self.seq, payload)
        self.seq = (self.seq + 1) & 0xFFFF
        self.port.write(frame)

    def send_identity(self):
        payload = (bytes((P.PROTO_VERSION, self.matrix.nrows, self.matrix.ncols))
                   + P.put_u16(self.debounce_ms) + P.put_u16(self.scan_us)
                   + P.put_u16(self.snapshot_ms) + P.put_u16(self.heartbeat_ms)
                   + self.version.encode())
        self.send(P.T_IDENTITY, payload)

    def send_snapshot(self, reason):
        self.send(P.T_SNAPSHOT, bytes((reason, self.count)) + P.bitmap(self.deb.stable))

    def send_heartbeat(self):
        bad = self.bad_frames + self.reader.overflows
        self.send(P.T_HEARTBEAT, P.put_u32(self.uptime_ms & 0xFFFFFFFF) + P.put_u16(bad & 0xFFFF))

    def send_self_test(self):
        # The matrix's wiring check (PROTOCOL.md, SELFTEST): some 300 pin changes and reads for an
        # 8 x 8 matrix, a few milliseconds under MicroPython (an estimate: not timed on a Pico), so
        # the next scan comes that much late, once; it never changes the debounced states.
        closed, reverse, rows, cols = self.matrix.self_test()
        self.send(P.T_SELFTEST, bytes((self.matrix.nrows, self.matrix.ncols)) + P.bitmap(closed)
                  + P.bitmap(reverse) + P.bitmap(rows) + P.bitmap(cols))

    def send_error(self, code, message):
        self.send(P.T_ERROR, bytes((code,)) + message.encode()[:P.MAX_PAYLOAD - 1])

    # -- commands -----------------------------------------------------------------------------
    def handle(self, block):
        # PROTOCOL.md section 3: a block failing checks 1-3 (COBS, length, CRC) is noise: dropped,
        # counted, never answered. One failing check 4 (unknown type, wrong payload size) is intact
        # but not understood: dropped and counted too, and answered with ERROR 2 or 1, unless its
        # type is one the board sends (the line echoed our own frame: answering would loop).
        frame = P.decode_block(block)
        if frame is None:
            self.bad_frames += 1
            return
        ftype, _seq, payload = frame
        name = "0x" + hex(0x100 | ftype)[-2:]
        size = P.COMMAND_SIZE.get(ftype)
        if size is None:
            self.bad_frames += 1
            if ftype not in P.BOARD_TYPES:  # a board type is our own frame echoed back: never answer it
                self.send_error(P.E_UNKNOWN_COMMAND, "unknown command " + name)
            return
        if len(payload) != size:
            self.bad_frames += 1
            self.send_error(P.E_BAD_FRAME, "command {} needs {} payload bytes, got {}".format(  # noqa: UP032
                name, size, len(payload)))
            return
        if ftype == P.C_IDENTIFY:
            self.send_identity()
        elif ftype == P.C_SNAPSHOT:
            self.send_snapshot(P.R_REQUESTED)
        elif ftype == P.C_SELFTEST:
            self.send_self_test()
        else:
            self.set_params(payload)

    def set_params(self, payload):
        # ``payload`` is 8 bytes (handle() checked). All fields are checked before any is applied.
        names = ("debounce_ms", "scan_us", "snapshot_ms", "heartbeat_ms")
        values = [P.u16(payload, 2 * i) for i in range(4)]
        # (index loops: MicroPython's zip() has no strict=, and ruff asks for it)
        for i in range(4):
            lo, hi = LIMITS[names[i]]
            if values[i] != P.KEEP and not lo <= values[i] <= hi:
                self.send_error(P.E_BAD_PARAMETER,
                                "{}={} outside {}..{}".format(names[i], values[i], lo, hi))  # noqa: UP032
                return
        for i in range(4):
            if values[i] != P.KEEP:
                setattr(self, names[i], values[i])
        self.deb.debounce_ms = self.debounce_ms
        # A new period counts from now: a shorter one must not wait for the old one to run out.
        now = ticks_ms()
        if values[1] != P.KEEP:
            self.next_scan = ticks_add(ticks_us(), self.scan_us)
        if values[2] != P.KEEP:
            self.next_snapshot = ticks_add(now, self.snapshot_ms)
        if values[3] != P.KEEP:
            self.next_heartbeat = ticks_add(now, self.heartbeat_ms)
        self.send_identity()

    # -- the loop -----------------------------------------------------------------------------
    def begin(self):
        now = ticks_ms()
        self.matrix.scan(self.raw)
        self.deb.prime(self.raw, now)
        self.last_ms = now
        self.next_scan = ticks_us()
        self.next_snapshot = now
        self.next_heartbeat = now
        self.started = True
        self.send_identity()
        self.send_snapshot(P.R_BOOT)
        self.next_snapshot = ticks_add(now, self.snapshot_ms)

    def step(self):
        # One pass: scan if due, report, answer commands; returns microseconds until the next scan.
        if not self.started:
            self.begin()
        now_us = ticks_us()
        if ticks_diff(now_us, self.next_scan) >= 0:
            self.next_scan = ticks_add(now_us, self.scan_us)
            now = ticks_ms()
            self.uptime_ms += ticks_diff(now, self.last_ms)
            self.last_ms = now
            self.matrix.scan(self.raw)
            self.beat.tick(now)
            for ch, state in self.deb.update(self.raw, now):
                self.send(P.T_CHANGE, bytes((ch, state)))
            if ticks_diff(now, self.next_snapshot) >= 0:
                self.next_snapshot = ticks_add(now, self.snapshot_ms)
                self.send_snapshot(P.R_PERIODIC)
            if ticks_diff(now, self.next_heartbeat) >= 0:
                self.next_heartbeat = ticks_add(now, self.heartbeat_ms)
                self.send_heartbeat()
        data = self.port.read()
        if data:
            for block in self.reader.feed(data):
                self.handle(block)
        return ticks_diff(self.next_scan, ticks_us())

    def run(self, keep_going=None, tick=None):
        # Loop until keep_going() is false (forever on the Pico); tick() is called each pass (watchdog).
        while keep_going is None or keep_going():
            wait = self.step()
            if tick is not None:
                tick()
            if wait > 0:
                sleep_us(wait)
