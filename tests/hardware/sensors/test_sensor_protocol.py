"""The frame codec: the host's and the firmware's implementations agree, and damage is never believed."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board.bench.firmware_sim import firmware_modules
from kipukas_board.hardware.sensors import protocol as sp

P = firmware_modules()["kb_proto"]

payloads = st.binary(min_size=0, max_size=sp.MAX_PAYLOAD)


def test_crc_check_value_both_implementations() -> None:
    assert sp.crc16_ccitt_false(b"123456789") == 0x29B1
    assert P.crc16(b"123456789") == 0x29B1
    assert sp.crc16_ccitt_false(b"") == 0xFFFF


@given(st.binary(max_size=600))
def test_cobs_round_trip_and_agreement(data: bytes) -> None:
    host = sp.cobs_encode(data)
    assert 0 not in host
    assert host == P.cobs_encode(data)
    assert sp.cobs_decode(host) == data
    assert P.cobs_decode(host) == data


@given(st.integers(0, 255), st.integers(0, 0xFFFF), payloads)
def test_frames_identical_from_firmware_and_host(ftype: int, seq: int, payload: bytes) -> None:
    wire = sp.encode(ftype, seq, payload)
    assert wire == P.encode_frame(ftype, seq, payload)
    assert wire[0] == 0 and wire[-1] == 0 and 0 not in wire[1:-1]
    assert P.decode_block(wire[1:-1]) == (ftype, seq, payload)


def _valid_messages() -> st.SearchStrategy[tuple[int, int, bytes]]:
    change = st.tuples(st.just(sp.CHANGE), st.integers(0, 0xFFFF),
                       st.tuples(st.integers(0, 63), st.integers(0, 1)).map(bytes))
    heartbeat = st.tuples(st.just(sp.HEARTBEAT), st.integers(0, 0xFFFF), st.binary(min_size=6, max_size=6))
    snapshot = st.tuples(st.just(sp.SNAPSHOT), st.integers(0, 0xFFFF),
                         st.tuples(st.integers(0, 2), st.binary(min_size=8, max_size=8))
                         .map(lambda t: bytes([t[0], 64]) + t[1]))
    return st.one_of(change, heartbeat, snapshot)


@settings(max_examples=200)
@given(st.lists(_valid_messages(), min_size=1, max_size=8), st.lists(st.binary(max_size=20), max_size=8),
       st.randoms(use_true_random=False))
def test_garbage_between_frames_costs_nothing_and_is_never_believed(frames, junk, rnd) -> None:
    stream = b""
    for i, (t, seq, p) in enumerate(frames):
        if i < len(junk):
            stream += junk[i]
        stream += sp.encode(t, seq, p)
    dec = sp.FrameDecoder()
    out: list = []
    # feed in random pieces, as a serial port delivers them
    i = 0
    while i < len(stream):
        n = rnd.randint(1, 16)
        out += dec.feed(stream[i:i + n])
        i += n
    msgs = [m for m in out if not isinstance(m, sp.FrameError)]
    expected = [sp.parse_payload(t, seq, p) for t, seq, p in frames]
    assert msgs == expected  # every frame survives garbage *between* frames (leading 0x00)


@settings(max_examples=300)
@given(_valid_messages(), st.data())
def test_a_flipped_bit_or_dropped_byte_never_yields_a_wrong_message(frame, data) -> None:
    t, seq, p = frame
    wire = bytearray(sp.encode(t, seq, p))
    if data.draw(st.booleans(), label="flip"):
        i = data.draw(st.integers(0, len(wire) - 1))
        wire[i] ^= 1 << data.draw(st.integers(0, 7))
    else:
        del wire[data.draw(st.integers(0, len(wire) - 1))]
    follow = sp.encode(sp.HEARTBEAT, 1, bytes(6))
    out = sp.FrameDecoder().feed(bytes(wire) + follow)
    original = sp.parse_payload(t, seq, p)
    msgs = [m for m in out if not isinstance(m, sp.FrameError)]
    # only the undamaged original (when only a delimiter was hit) and the following frame may come out
    assert all(m in (original, sp.parse_payload(sp.HEARTBEAT, 1, bytes(6))) for m in msgs)
    assert msgs[-1] == sp.parse_payload(sp.HEARTBEAT, 1, bytes(6))


def test_error_names_what_was_wrong() -> None:
    wire = bytearray(sp.encode(sp.CHANGE, 7, bytes([5, 1])))
    wire[6] ^= 0x40
    with pytest.raises(sp.FrameError) as e:
        sp.parse_block(bytes(wire[1:-1]))
    assert e.value.kind == "crc" and "expected" in str(e.value)
    with pytest.raises(sp.FrameError, match="2 bytes: channel, state"):
        sp.parse_block(sp.encode(sp.CHANGE, 1, bytes([5, 7]))[1:-1])
    with pytest.raises(sp.FrameError, match="unknown frame type 0x55"):
        sp.parse_block(sp.encode(0x55, 1, b"")[1:-1])


def test_overlong_block_is_dropped_and_the_next_frame_survives() -> None:
    dec = sp.FrameDecoder()
    junk = bytes(random.Random(3).randrange(1, 256) for _ in range(500))
    out = dec.feed(junk + sp.encode(sp.CHANGE, 9, bytes([3, 0])))
    assert out[-1] == sp.Change(9, 3, False)
    assert dec.stats.frames_bad == 1


def test_set_command_keeps_unset_fields() -> None:
    wire = sp.set_command(3, debounce_ms=15)
    assert P.decode_block(wire[1:-1]) == (sp.CMD_SET, 3, bytes([0, 15]) + b"\xff" * 6)
    with pytest.raises(ValueError):
        sp.set_command(1, scan_us=70000)


def test_frame_with_a_damaged_closing_delimiter_is_judged_without_waiting() -> None:
    wire = sp.encode(sp.CHANGE, 7, bytes([5, 1]))
    dec = sp.FrameDecoder()
    # the closing 0x00 became 0x08: the frame is whole, so it is delivered now; the junk is flagged later
    assert dec.feed(wire[:-1] + b"\x08") == [sp.Change(7, 5, True)]
    (err,) = dec.feed(b"\x00")
    assert isinstance(err, sp.FrameError) and err.kind == "length"


def test_a_block_cut_short_expires_as_bad() -> None:
    wire = sp.encode(sp.CHANGE, 7, bytes([5, 1]))
    dec = sp.FrameDecoder()
    assert dec.feed(wire[:5]) == [] and dec.pending()
    err = dec.expire()
    assert isinstance(err, sp.FrameError) and err.kind == "timeout" and dec.stats.bad["timeout"] == 1
    assert not dec.pending() and dec.expire() is None
    assert dec.feed(wire) == [sp.Change(7, 5, True)]
