"""The serial adapter against the real firmware over a real pseudo-terminal, into a real BoardApp."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kipukas_board.app import BoardApp
from kipukas_board.bench.firmware_sim import Faults, FirmwareThread, PtyLink
from kipukas_board.hardware.registry import build
from kipukas_board.hardware.sensors import protocol as sp
from kipukas_board.hardware.sensors import serial_link
from kipukas_board.hardware.sensors.port import SwitchChange
from kipukas_board.hardware.sensors.serial_link import SensorLinkError, SerialStandSensors, find_port
from kipukas_board.modes.kipukas.rules.events import stand_event
from kipukas_board.settings import AdapterChoice, Settings

ROWS, COLS = 6, 6


def wait_for(cond: Any, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.005)
    return bool(cond())


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[FirmwareThread, PtyLink]]:
    link = PtyLink(tmp_path)
    fw = FirmwareThread(ROWS, COLS, link, debounce_ms=10).start()
    yield fw, link
    fw.stop()
    link.close()
    assert fw.error is None


def make_app(tmp_path: Path, link: PtyLink, **opts: Any) -> tuple[BoardApp, list[tuple[str, bool]]]:
    options = {"device": link.path, "reconnect_s": 0.01, "startup_wait_s": 5.0, **opts}
    app = BoardApp(Settings(map="kipuka-12", sensors=AdapterChoice("serial", options)), tmp_path / "data",
                   admin_pin="1234")
    stands = list(app.loop.state.board.stands)
    app.channel_map = {f"r{i // COLS}c{i % COLS}": stands[i] for i in range(ROWS * COLS)}
    seen: list[tuple[str, bool]] = []

    def on_core(state: Any, effects: list[dict[str, Any]]) -> None:
        seen.extend((e["stand"], e["occupied"]) for e in effects if e.get("type") == "stand")

    app.loop.subscribe(on_core)
    return app, seen


def test_end_to_end_each_change_arrives_once_in_order(rig, tmp_path: Path) -> None:
    fw, link = rig
    app, seen = make_app(tmp_path, link)
    stands = list(app.loop.state.board.stands)
    app.start()
    try:
        plan = [(0, True), (7, True), (35, True), (0, False), (12, True), (7, False), (20, True), (35, False),
                (12, False), (5, True)]
        for ch, closed in plan:
            fw.matrix.set(ch, closed, bounce_s=0.002)
            time.sleep(0.06)  # well over the debounce, so the order of settling is the order of the plan
        # two magnets land in the same instant: both arrive, lower channel first
        fw.matrix.set(30, True)
        fw.matrix.set(29, True)
        expected = [(stands[ch], closed) for ch, closed in plan] + [(stands[29], True), (stands[30], True)]
        assert wait_for(lambda: len(seen) >= len(expected), 3.0)
        time.sleep(0.1)
        assert seen == expected
        state = app.loop.state
        assert {s for s, st in state.stands.items() if st.occupied} == {stands[c] for c in (5, 20, 29, 30)}
        health = app.state_json()["health"]["sensors"]
        assert health["adapter"] == "serial" and health["connected"] and health["synced"]
        assert health["device"]["rows"] == ROWS and health["device"]["debounce_ms"] == 10
        assert health["frames_dropped"] == 0 and health["seq_gaps"] == 0
        assert health["last_heartbeat_age_s"] is not None and health["last_heartbeat_age_s"] < 1.0
        # the journal has each event exactly once, from the sensor
        events = [e for _, e in app.journal.events() if e["type"] == "stand"]
        assert [(e["stand"], e["occupied"]) for e in events] == expected
    finally:
        app.stop()


def test_switches_closed_before_start_are_in_the_state(rig, tmp_path: Path) -> None:
    fw, link = rig
    fw.matrix.set(3, True)
    fw.matrix.set(33, True)
    time.sleep(0.05)
    app, seen = make_app(tmp_path, link)
    stands = list(app.loop.state.board.stands)
    app.start()
    try:
        assert wait_for(lambda: app.loop.state.stands[stands[33]].occupied
                        and app.loop.state.stands[stands[3]].occupied)
        assert sorted(seen) == sorted([(stands[3], True), (stands[33], True)])
    finally:
        app.stop()


def test_unplug_and_replug_delivers_what_changed_meanwhile(rig, tmp_path: Path) -> None:
    fw, link = rig
    sensors = SerialStandSensors(device=link.path, reconnect_s=0.01, startup_wait_s=5.0)
    got: list[SwitchChange] = []
    sensors.start(got.append)
    try:
        fw.matrix.set(1, True)
        assert wait_for(lambda: SwitchChange("r0c1", True) in got)
        link.schedule_unplug(0.3)
        assert wait_for(lambda: not sensors.health()["connected"], 2.0)
        assert "lost" in (sensors.health()["last_error"] or "") or "does not exist" in sensors.health()["last_error"]
        fw.matrix.set(1, False)   # while unplugged
        fw.matrix.set(9, True)
        assert wait_for(lambda: sensors.health()["connected"] and sensors.health()["synced"]
                        and SwitchChange("r1c3", True) in got, 5.0)
        time.sleep(0.05)
        assert got == [SwitchChange("r0c1", True), SwitchChange("r0c1", False), SwitchChange("r1c3", True)]
        h = sensors.health()
        assert h["reconnects"] == 1 and h["resyncs"] >= 2 and h["corrections"] == 2
        assert sensors.snapshot()["r1c3"] is True and sensors.snapshot()["r0c1"] is False
    finally:
        sensors.stop()


def test_bad_frames_are_dropped_counted_and_recovered(rig, tmp_path: Path) -> None:
    fw, link = rig
    sensors = SerialStandSensors(device=link.path, reconnect_s=0.01, startup_wait_s=5.0)
    got: list[SwitchChange] = []
    sensors.start(got.append)
    try:
        link.faults = Faults(every_s=0.02, kinds=("garbage", "bitflip", "drop"), seed=7)
        link.restart_faults()
        state = {}
        for i in range(24):
            ch = (i * 5) % 36
            state[ch] = not state.get(ch, False)
            fw.matrix.set(ch, state[ch])
            time.sleep(0.025)
        link.faults = None
        time.sleep(0.2)
        sensors.request_snapshot()
        time.sleep(0.1)
        h = sensors.health()
        assert h["frames_dropped"] > 0 and h["crc_errors"] + h["bad_frames"]["cobs"] + h["bad_frames"]["length"] > 0
        assert h["resyncs"] > 1
        view = sensors.snapshot()
        assert {f"r{c // 6}c{c % 6}" for c, v in state.items() if v} == {k for k, v in view.items() if v}
        # every reported change was real: per channel the reports alternate and end at the truth
        for ch, final in state.items():
            name = f"r{ch // 6}c{ch % 6}"
            mine = [c.closed for c in got if c.channel == name]
            assert all(a != b for a, b in zip(mine, mine[1:], strict=False))
            assert (mine[-1] if mine else False) == final
    finally:
        sensors.stop()


def test_chattering_channel_is_held_back_then_released(rig, tmp_path: Path) -> None:
    fw, link = rig
    sensors = SerialStandSensors(device=link.path, startup_wait_s=5.0, chatter_changes=4, chatter_window_s=5,
                                 chatter_quiet_s=0.3)
    got: list[SwitchChange] = []
    sensors.start(got.append)
    try:
        for i in range(8):
            fw.matrix.set(2, i % 2 == 0)
            time.sleep(0.03)
        fw.matrix.set(2, True)
        time.sleep(0.05)
        assert sensors.health()["channels"]["chatter"] == ["r0c2"]
        assert sensors.health()["ok"] is False
        assert [c.closed for c in got if c.channel == "r0c2"] == [True, False, True]
        assert wait_for(lambda: sensors.health()["channels"]["chatter"] == [], 2.0)
        time.sleep(0.05)
        assert got[-1] == SwitchChange("r0c2", True) and sensors.snapshot()["r0c2"] is True
    finally:
        sensors.stop()


def test_missing_port_error_says_what_to_check(tmp_path: Path) -> None:
    s = SerialStandSensors(device=str(tmp_path / "ttyACM9"), startup_wait_s=0.3)
    s.start(lambda c: None)
    try:
        err = s.health()["last_error"]
        assert "does not exist" in err and "plugged in" in err and "/dev/serial/by-id" in err
        assert s.health()["connected"] is False and s.health()["ok"] is False
    finally:
        s.stop()


@pytest.mark.skipif(os.geteuid() == 0, reason="root opens any file, so permissions cannot be refused")
def test_permission_error_names_the_group(tmp_path: Path) -> None:
    master, slave = os.openpty()
    try:
        path = os.ttyname(slave)
        link = tmp_path / "tty"
        link.symlink_to(path)
        os.chmod(path, 0)
        msg = serial_link.explain_open_error(str(link), PermissionError(13, "Permission denied"))
        assert "no permission" in msg and "usermod -aG" in msg
    finally:
        os.close(master)
        os.close(slave)


def test_permission_message_when_access_is_refused(tmp_path: Path, monkeypatch) -> None:
    dev = tmp_path / "ttyACM0"
    dev.write_text("")
    monkeypatch.setattr(serial_link.os, "access", lambda p, mode: False)
    msg = serial_link.explain_open_error(str(dev), PermissionError(13, "Permission denied"))
    assert f"no permission to open {dev}" in msg and "sudo usermod -aG" in msg


class FakePortInfo:
    def __init__(self, device: str, vid: int | None, pid: int | None, serial_number: str | None = None) -> None:
        self.device, self.vid, self.pid, self.serial_number = device, vid, pid, serial_number


def test_find_port_by_vid_pid(monkeypatch) -> None:
    from serial.tools import list_ports

    ports = [FakePortInfo("/dev/ttyUSB0", 0x0403, 0x6001), FakePortInfo("/dev/ttyACM1", 0x2E8A, 0x0005, "E66"),
             FakePortInfo("/dev/ttyACM0", 0x2E8A, 0x0005, "E65")]
    monkeypatch.setattr(list_ports, "comports", lambda: ports)
    assert find_port() == "/dev/ttyACM0"
    assert find_port(serial_number="E66") == "/dev/ttyACM1"
    assert find_port(vid=0x0403) == "/dev/ttyUSB0"
    with pytest.raises(SensorLinkError, match=r"USB VID 2E8A PID 000A.*ls -l /dev/serial/by-id/"):
        find_port(pid=0x000A)


def test_settings_build_the_serial_adapter_and_refuse_typos() -> None:
    s = build("sensors", "serial", vid="2e8a", pid="0005")
    assert (s.vid, s.pid) == (0x2E8A, 5)
    with pytest.raises(ValueError, match="unknown .* option.*baud"):
        build("sensors", "serial", baud=9600)
    with pytest.raises(ValueError, match="hexadecimal USB id"):
        build("sensors", "serial", vid="pico")


def test_board_plugged_in_after_start_corrects_a_stale_journal(rig, tmp_path: Path) -> None:
    fw, link = rig
    # a game where stand 0 and stand 1 were occupied when the Pi went down
    first, _ = make_app(tmp_path, link)
    stands = list(first.loop.state.board.stands)
    first.loop.start()
    first.loop.submit(stand_event(stands[0], True))
    first.loop.submit(stand_event(stands[1], True))
    first.loop.stop()
    first.journal.close()
    # meanwhile a player took token 0 away and put one on stand 2; the board is unplugged at boot
    fw.matrix.set(2, True)
    link.schedule_unplug(0.8)
    time.sleep(0.05)
    app, seen = make_app(tmp_path, link, startup_wait_s=0.2)
    assert app.loop.state.stands[stands[0]].occupied  # the journal's word, before any switch is read
    app.start()
    try:
        assert wait_for(lambda: app.sensors.health()["synced"], 5.0)
        assert wait_for(lambda: not app.loop.state.stands[stands[0]].occupied
                        and app.loop.state.stands[stands[2]].occupied, 2.0)
        time.sleep(0.1)
        # the switches rule: stand 1's switch is open too, so it is cleared as well
        assert {s for s, st in app.loop.state.stands.items() if st.occupied} == {stands[2]}
        assert (stands[0], False) in seen and (stands[2], True) in seen  # corrected as changes, journaled
    finally:
        app.stop()


def test_alive_while_the_reader_thread_runs_even_with_no_board(tmp_path: Path) -> None:
    s = SerialStandSensors(device=str(tmp_path / "ttyACM9"), reconnect_s=0.01, startup_wait_s=0)
    assert s.alive() is False  # not started: nothing reads the switches yet
    s.start(lambda change: None)
    try:
        time.sleep(0.05)
        # unplugged is a health matter (the thread keeps reopening), not a dead thread
        assert s.alive() is True and s.health()["connected"] is False
    finally:
        s.stop()
    assert s.alive() is False


def test_a_port_that_opens_but_refuses_writes_is_retried_and_health_says_so(rig, monkeypatch) -> None:
    """Opening succeeds, greeting the board (IDENTIFY) fails: that goes the reconnect way, never
    kills the reader thread, and health says not connected, and why."""
    import serial

    fw, link = rig
    refuse = {"writes": 10**6, "refused": 0}

    class Refusing(serial.Serial):
        def write(self, data: Any) -> int | None:
            if refuse["writes"] > 0:
                refuse["writes"] -= 1
                refuse["refused"] += 1
                raise serial.SerialTimeoutException("Write timeout")
            return super().write(data)

    monkeypatch.setattr(serial, "Serial", Refusing)
    fw.matrix.set(4, True)
    sensors = SerialStandSensors(device=link.path, reconnect_s=0.01, startup_wait_s=0)
    got: list[SwitchChange] = []
    sensors.start(got.append)
    try:
        assert wait_for(lambda: refuse["refused"] >= 3)
        h = sensors.health()
        assert sensors.alive() and h["connected"] is False and h["synced"] is False
        assert "writing to it failed" in h["last_error"] and "Write timeout" in h["last_error"]
        refuse["writes"] = 0  # the board reads again
        assert wait_for(lambda: sensors.health()["synced"], 5.0)
        assert sensors.snapshot()["r0c4"] is True and sensors.health()["last_error"] is None
        assert got == [SwitchChange(f"r{r}c{c}", (r, c) == (0, 4)) for r in range(ROWS) for c in range(COLS)]
    finally:
        sensors.stop()


# -- the resync logic against a fake clock (no threads, no timing) -------------------------------

class WirePort:
    """The host's serial port: records what the host writes."""

    def __init__(self) -> None:
        self.written = b""

    def write(self, data: bytes) -> None:
        self.written += data

    def commands(self) -> list[int]:
        """The types of the frames written so far, in order."""
        out = []
        for block in self.written.split(b"\x00"):
            body = sp.cobs_decode(block) if block else None
            if body:
                out.append(body[0])
        return out


def identity(seq: int, rows: int = 2, cols: int = 2, heartbeat_ms: int = 100) -> bytes:
    payload = bytes((sp.PROTO_VERSION, rows, cols)) + b"".join(
        v.to_bytes(2, "big") for v in (20, 1000, 1000, heartbeat_ms)) + b"test"
    return sp.encode(sp.IDENTITY, seq, payload)


def snapshot(seq: int, closed: int = 0, count: int = 4) -> bytes:
    return sp.encode(sp.SNAPSHOT, seq, bytes((1, count, closed)))


def connected_host(now: list[float]) -> tuple[SerialStandSensors, WirePort]:
    host = SerialStandSensors(device="wire", startup_wait_s=0, clock=lambda: now[0])
    port = WirePort()
    host._ser = port
    host._on_bytes(identity(0) + snapshot(1), now[0])
    host._flush()
    assert host.health()["synced"]
    return host, port


BAD_BLOCK = b"\x00\x05\x01\x02\x00"  # not valid COBS: the code byte points past the block's end


def test_a_second_loss_soon_after_a_request_is_asked_again_within_the_gap_not_the_timeout() -> None:
    """The damaged frame after a request may have been the answer itself: the host asks again as soon
    as EVIDENCE_GAP_S allows, instead of waiting out resync_timeout_s (50 ms) for an answer that
    will never come."""
    now = [10.0]
    host, port = connected_host(now)

    def asks() -> int:
        return port.commands().count(sp.CMD_SNAPSHOT)

    host._on_bytes(BAD_BLOCK, now[0])
    assert asks() == 1
    now[0] += 0.001
    host._on_bytes(BAD_BLOCK, now[0])  # 1 ms later: the answer, damaged
    host._housekeeping(now[0])
    assert asks() == 1  # not yet: at most one request per EVIDENCE_GAP_S
    now[0] = 10.0 + host.EVIDENCE_GAP_S
    host._housekeeping(now[0])
    assert asks() == 2
    assert host.resync_timeout_s / 10 > host.EVIDENCE_GAP_S


def test_a_snapshot_after_the_last_loss_ends_the_resync_without_another_request() -> None:
    now = [10.0]
    host, port = connected_host(now)
    host._on_bytes(BAD_BLOCK, now[0])
    now[0] += 0.001
    host._on_bytes(BAD_BLOCK + snapshot(2, closed=0b10), now[0])  # a loss, then the answer after it
    host._flush()
    now[0] += 0.01
    host._housekeeping(now[0])
    assert port.commands().count(sp.CMD_SNAPSHOT) == 1
    assert host.health()["synced"] and host.snapshot()["r0c1"] is True


def test_the_link_is_stale_after_three_of_the_boards_own_heartbeat_periods() -> None:
    now = [10.0]
    host, _ = connected_host(now)  # the board said heartbeat_ms = 100
    assert host.health()["stale_after_s"] == 0.3
    now[0] += 0.29
    assert host.health()["stale"] is False
    now[0] += 0.02
    assert host.health()["stale"] is True
    host._on_bytes(identity(2, heartbeat_ms=1000), now[0])  # a slow heartbeat, set by SET
    now[0] += 2.9
    h = host.health()
    assert h["stale_after_s"] == 3.0 and h["stale"] is False  # a fixed 1 s would call it stale
    fixed = SerialStandSensors(device="wire", stale_s=0.05)
    assert fixed.stale_after_s() == 0.05  # the setting still wins


def test_an_echoing_port_is_named_and_never_flooded_with_requests() -> None:
    """A Pico at the MicroPython prompt echoes what the host writes: the echoed commands are intact
    frames of the host's own direction, not lost ones, so they must not set off snapshot requests."""
    from kipukas_board.hardware.sensors import protocol as sp
    from kipukas_board.hardware.sensors.serial_link import SerialStandSensors

    host = SerialStandSensors(device="/dev/echoing")
    sent: list[bytes] = []
    host._send_raw = sent.append  # type: ignore[method-assign]
    now = 100.0
    host._last_frame = host._last_probe = now  # just connected: the link is not stale in these 50 ms
    for k in range(50):
        now += 0.001
        host._on_bytes(sp.encode(sp.CMD_SNAPSHOT, k) + sp.encode(sp.CMD_IDENTIFY, k), now)
        host._housekeeping(now)
    assert sent == [] and host._resync_since is None
    assert "echoes the host's commands" in (host.last_error or "")
    assert host._decoder.stats.bad["echo"] == 100 and host.counters["frames_dropped"] == 0
