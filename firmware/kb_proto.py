# Kipukas sensor board: frame encoding (CRC-16/CCITT-FALSE, COBS, 0x00 delimiters).
#
# Runs on MicroPython (RP2040) and, unchanged, on CPython under the tests. PROTOCOL.md is the
# specification; this file is one implementation of it (the host has its own, in
# kipukas_board/hardware/sensors/protocol.py, and the tests check the two agree).
#
# A frame before stuffing:  type(1) seq(2, big-endian) len(1) payload(len) crc(2, big-endian)
# The CRC covers type..payload. On the wire: 0x00, COBS(frame), 0x00.
#
#   encode_frame(T_CHANGE, 7, bytes((21, 1)))   # channel 21 closed, sequence number 7

PROTO_VERSION = 1

# board -> host
T_IDENTITY = 0x01
T_CHANGE = 0x02
T_SNAPSHOT = 0x03
T_HEARTBEAT = 0x04
T_SELFTEST = 0x05
T_ERROR = 0x7F
BOARD_TYPES = (T_IDENTITY, T_CHANGE, T_SNAPSHOT, T_HEARTBEAT, T_SELFTEST, T_ERROR)
# host -> board
C_IDENTIFY = 0x81
C_SNAPSHOT = 0x82
C_SET = 0x83
C_SELFTEST = 0x84

# snapshot reasons
R_PERIODIC = 0
R_REQUESTED = 1
R_BOOT = 2

# SET: a field holding KEEP leaves that parameter as it is
KEEP = 0xFFFF

# host commands the board knows, and the payload size each must have (PROTOCOL.md section 4)
COMMAND_SIZE = {C_IDENTIFY: 0, C_SNAPSHOT: 0, C_SET: 8, C_SELFTEST: 0}

# error codes
E_BAD_FRAME = 1  # an intact frame whose payload has the wrong size for its type
E_UNKNOWN_COMMAND = 2
E_BAD_PARAMETER = 3

MAX_PAYLOAD = 64


def crc16(data, crc=0xFFFF):
    # CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor; check("123456789") = 0x29B1.
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def cobs_encode(data):
    # Consistent Overhead Byte Stuffing: the result holds no 0x00 byte.
    out = bytearray()
    code_at = 0
    out.append(0)
    code = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    # Inverse of cobs_encode; returns None when ``data`` is not a valid COBS block.
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            return None
        end = i + code
        if end > n:
            return None
        for j in range(i + 1, end):
            if data[j] == 0:
                return None
            out.append(data[j])
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(ftype, seq, payload=b""):
    # The bytes to write for one frame: leading 0x00, COBS block, trailing 0x00.
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload too long")
    body = bytearray((ftype, (seq >> 8) & 0xFF, seq & 0xFF, len(payload)))
    body.extend(payload)
    crc = crc16(body)
    body.append(crc >> 8)
    body.append(crc & 0xFF)
    return b"\x00" + cobs_encode(body) + b"\x00"


def decode_block(block):
    # One COBS block (between delimiters) -> (type, seq, payload), or None if it fails any check.
    body = cobs_decode(block)
    if body is None or len(body) < 6:
        return None
    if body[3] != len(body) - 6:
        return None
    crc = crc16(body[:-2])
    if body[-2] != crc >> 8 or body[-1] != crc & 0xFF:
        return None
    return body[0], (body[1] << 8) | body[2], bytes(body[4:-2])


class BlockReader:
    # Splits an incoming byte stream at 0x00 and yields COBS blocks. A block longer than any frame
    # can stuff to (PROTOCOL.md section 3) is dropped whole: counted once, and everything up to the
    # next 0x00 skipped, so no tail of it is ever taken for a frame.

    def __init__(self, limit=MAX_PAYLOAD + 8):
        self.buf = bytearray()
        self.limit = limit
        self.overflows = 0
        self.skipping = False

    def feed(self, data):
        blocks = []
        for b in data:
            if b == 0:
                if self.buf and not self.skipping:
                    blocks.append(bytes(self.buf))
                self.buf = bytearray()
                self.skipping = False
            elif self.skipping:
                continue
            elif len(self.buf) < self.limit:
                self.buf.append(b)
            else:
                self.overflows += 1
                self.skipping = True
                self.buf = bytearray()
        return blocks


def u16(buf, at):
    return (buf[at] << 8) | buf[at + 1]


def put_u16(v):
    return bytes(((v >> 8) & 0xFF, v & 0xFF))


def put_u32(v):
    return bytes(((v >> 24) & 0xFF, (v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF))


def bitmap(states):
    # Channel i is bit (i % 8) of byte (i // 8); 1 = closed.
    out = bytearray((len(states) + 7) // 8)
    for i in range(len(states)):
        if states[i]:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)
