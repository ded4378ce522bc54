"""PROTOCOL.md's worked examples, checked byte for byte by a reader written from the document alone.

The functions here follow the document's text (section 2: CRC-16/CCITT-FALSE bitwise; section 3:
COBS) and share no code with the firmware or the host; then both implementations must produce the
same bytes from the same fields.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kipukas_board.bench.firmware_sim import firmware_modules
from kipukas_board.hardware.sensors import protocol as sp

DOC = Path(__file__).resolve().parents[2] / "firmware" / "PROTOCOL.md"


def doc_crc(data: bytes) -> int:
    crc = 0xFFFF
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def doc_unstuff(block: bytes) -> bytes:
    out, i = b"", 0
    while i < len(block):
        n = block[i]
        assert n != 0 and i + n <= len(block), "not valid COBS"
        out += block[i + 1:i + n]
        i += n
        if n != 0xFF and i < len(block):
            out += b"\x00"
    return out


def hexbytes(text: str) -> bytes:
    text = text.strip()
    return b"" if text == "(none)" else bytes.fromhex(text)


def examples() -> list[dict[str, str]]:
    blocks = re.findall(r"```example\n(.*?)```", DOC.read_text(), re.S)
    out = []
    for block in blocks:
        fields = dict(line.split(":", 1) for line in block.strip().splitlines())
        out.append({k.strip(): v.strip() for k, v in fields.items()})
    return out


def test_the_document_has_examples_of_every_frame_type() -> None:
    types = {int(e["type"], 16) for e in examples()}
    assert types == {sp.IDENTITY, sp.CHANGE, sp.SNAPSHOT, sp.HEARTBEAT, sp.SELFTEST, sp.ERROR,
                     sp.CMD_IDENTIFY, sp.CMD_SNAPSHOT, sp.CMD_SET, sp.CMD_SELFTEST}
    assert "0x29B1" in DOC.read_text() and doc_crc(b"123456789") == 0x29B1


@pytest.mark.parametrize("ex", examples(), ids=lambda e: e["name"])
def test_worked_example(ex: dict[str, str]) -> None:
    ftype, seq, payload = int(ex["type"], 16), int(ex["seq"]), hexbytes(ex["payload"])
    frame, wire = hexbytes(ex["frame"]), hexbytes(ex["wire"])
    # the document is self-consistent, read by the document's own rules
    assert frame[0] == ftype and frame[1:3] == seq.to_bytes(2, "big") and frame[3] == len(payload)
    assert frame[4:-2] == payload
    assert doc_crc(frame[:-2]) == int(ex["crc"], 16) == int.from_bytes(frame[-2:], "big")
    assert wire[0] == 0 and wire[-1] == 0 and 0 not in wire[1:-1]
    assert doc_unstuff(wire[1:-1]) == frame
    # and both implementations produce exactly these bytes and read them back
    assert sp.encode(ftype, seq, payload) == wire
    assert firmware_modules()["kb_proto"].encode_frame(ftype, seq, payload) == wire
    if ftype < 0x80:
        msgs = sp.FrameDecoder().feed(wire)
        assert len(msgs) == 1 and not isinstance(msgs[0], sp.FrameError)
        assert msgs[0].seq == seq


def test_snapshot_example_bitmap_means_channels_0_21_63() -> None:
    ex = next(e for e in examples() if e["name"] == "snapshot")
    (msg,) = sp.FrameDecoder().feed(hexbytes(ex["wire"]))
    assert isinstance(msg, sp.Snapshot) and msg.reason == "requested"
    assert [i for i, c in enumerate(msg.closed) if c] == [0, 21, 63]


# -- section 3 check 4 and section 4: what the board does with each kind of host frame -------------

def host_frame_rules() -> list[tuple[str, str, str]]:
    """The rows of PROTOCOL.md's table "What the board does with a host frame": (frame, board, counted)."""
    text = DOC.read_text()
    start = text.index("What the board does with a host frame")
    rows = re.findall(r"^\| (.+?) \| (.+?) \| (.+?) \|$", text[start:].split("\n## ")[0], re.M)
    return [r for r in rows if not r[0].startswith("the frame") and not set(r[0]) <= {"-"}]


def damaged(wire: bytes) -> bytes:
    """The same frame with its CRC broken (fails check 3)."""
    body = bytearray(sp.cobs_decode(wire[1:-1]))
    body[-1] ^= 0x01
    return b"\x00" + sp.cobs_encode(bytes(body)) + b"\x00"


#: For each kind of frame the table names (by a phrase of its first cell), frames of that kind.
FRAMES_OF_KIND = {
    "fails check 1, 2 or 3": [damaged(sp.encode(sp.CMD_IDENTIFY, 1)), b"\x00\x05\x01\x00"],
    "its own frame echoed back": [sp.encode(sp.CHANGE, 3, b"\x01\x01"), sp.encode(sp.HEARTBEAT, 3, b"\x00" * 6),
                                  sp.encode(sp.ERROR, 3, b"\x02x"),
                                  sp.encode(sp.SELFTEST, 3, b"\x01\x01" + b"\x00" * 4)],
    "neither a host command": [sp.encode(0x99, 2), sp.encode(0x06, 2), sp.encode(0x85, 2)],
    "payload of the wrong size": [sp.encode(sp.CMD_IDENTIFY, 4, b"\x01"), sp.encode(sp.CMD_SNAPSHOT, 5, b"\x00"),
                                  sp.encode(sp.CMD_SET, 6, b"\x00" * 7), sp.encode(sp.CMD_SET, 7, b"\xff" * 9),
                                  sp.encode(sp.CMD_SELFTEST, 8, b"\x00")],
    "value out of range": [sp.set_command(8, scan_us=10), sp.set_command(9, heartbeat_ms=5)],
}


def test_the_document_names_every_error_code_the_implementations_know() -> None:
    text = DOC.read_text()
    codes = dict(re.findall(r"(\d) (bad frame|unknown command|bad parameter)", text.split("| 0x7F | ERROR")[1]))
    assert {int(k): v for k, v in codes.items()} == sp.ERROR_CODES
    kb = firmware_modules()["kb_proto"]
    assert (kb.E_BAD_FRAME, kb.E_UNKNOWN_COMMAND, kb.E_BAD_PARAMETER) == (1, 2, 3)


@pytest.mark.parametrize("rule", host_frame_rules(), ids=lambda r: r[0][:40])
def test_the_firmware_treats_host_frames_as_the_table_says(rule: tuple[str, str, str]) -> None:
    kind, board_does, counted = rule
    frames = next(f for phrase, f in FRAMES_OF_KIND.items() if phrase in kind)
    m = re.search(r"answers (nothing|ERROR code (\d))", board_does)
    assert m, board_does
    want_code = int(m.group(2)) if m.group(2) else None
    want_count = counted.startswith("yes")
    mods = firmware_modules()
    mods["machine"].attach(None)

    class Port:
        def __init__(self) -> None:
            self.decoder = sp.FrameDecoder()
            self.msgs: list = []

        def read(self) -> bytes:
            return b""

        def write(self, data: bytes) -> None:
            self.msgs += self.decoder.feed(data)

    for wire in frames:
        port = Port()
        fw = mods["kb_firmware"].SensorFirmware(mods["kb_matrix"].Matrix([2, 3], [10, 11], settle_us=0), port)
        fw.begin()
        port.msgs.clear()
        params = (fw.debounce_ms, fw.scan_us, fw.snapshot_ms, fw.heartbeat_ms)
        for block in mods["kb_proto"].BlockReader().feed(wire):
            fw.handle(block)
        if want_code is None:
            assert port.msgs == [], (wire.hex(" "), port.msgs)
        else:
            assert [(type(x).__name__, x.code) for x in port.msgs] == [("BoardError", want_code)], wire.hex(" ")
        assert fw.bad_frames == (1 if want_count else 0), wire.hex(" ")
        assert (fw.debounce_ms, fw.scan_us, fw.snapshot_ms, fw.heartbeat_ms) == params  # nothing changed


def test_the_table_covers_every_kind_of_host_frame() -> None:
    kinds = [r[0] for r in host_frame_rules()]
    assert len(kinds) == len(FRAMES_OF_KIND)
    for phrase in FRAMES_OF_KIND:
        assert sum(phrase in k for k in kinds) == 1, phrase


def test_the_hosts_timings_are_the_documents() -> None:
    """Sections 3 and 5 give numbers; the serial link's policy must use the same ones."""
    from kipukas_board.hardware.sensors import link_policy as ss
    from kipukas_board.hardware.sensors.serial_link import SerialStandSensors

    text = " ".join(DOC.read_text().split())
    host = SerialStandSensors(device="doc").policy
    assert int(re.search(r"no new byte for (\d+) ms", text).group(1)) == round(ss.PARTIAL_TIMEOUT_S * 1000)
    assert int(re.search(r"as soon as (\d+) ms have passed since the last one", text).group(1)) == round(
        ss.EVIDENCE_GAP_S * 1000)
    assert int(re.search(r"within a short time \((\d+) ms\)", text).group(1)) == round(host.resync_timeout_s * 1000)
    assert int(re.search(r"for (\d+) heartbeat periods", text).group(1)) == ss.STALE_HEARTBEATS
    assert re.search(r"(\d+) s before the first", text).group(1) == f"{ss.STALE_UNKNOWN_S:g}"
