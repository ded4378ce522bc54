"""PROTOCOL.md's worked examples, checked byte for byte by a reader written from the document alone.

The functions here follow the document's text (section 2: CRC-16/CCITT-FALSE bitwise; section 3:
COBS) and share no code with the firmware or the host; then both implementations must produce the
same bytes from the same fields.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kipukas_board.hardware import sensor_protocol as sp
from kipukas_board.hardware.firmware_sim import firmware_modules

DOC = Path(__file__).resolve().parents[1] / "firmware" / "PROTOCOL.md"


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
    assert types == {sp.IDENTITY, sp.CHANGE, sp.SNAPSHOT, sp.HEARTBEAT, sp.ERROR,
                     sp.CMD_IDENTIFY, sp.CMD_SNAPSHOT, sp.CMD_SET}
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
