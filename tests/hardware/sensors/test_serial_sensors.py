"""The serial adapter against the real firmware over a real pseudo-terminal, into a real BoardApp."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from waiting import wait_for

from kipukas_board.app import BoardApp
from kipukas_board.bench.firmware_sim import Faults, FirmwareThread, PtyLink
from kipukas_board.hardware.registry import build
from kipukas_board.hardware.sensors import protocol as sp
from kipukas_board.hardware.sensors import serial_link
from kipukas_board.hardware.sensors.link_policy import EVIDENCE_GAP_S, Action, LinkPolicy, Reopen, Report, Send, Warn
from kipukas_board.hardware.sensors.port import SwitchChange
from kipukas_board.hardware.sensors.serial_link import SensorLinkError, SerialStandSensors, find_port
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.settings import AdapterChoice, Settings
from kipukas_board.table.events import stand_event

ROWS, COLS = 6, 6


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
        for n, (ch, closed) in enumerate(plan, 1):
            fw.matrix.set(ch, closed, bounce_s=0.002)
            # each change settled and arrived before the next is made, so the order of settling is the
            # order of the plan even when a busy machine runs the firmware's scan late
            assert wait_for(lambda n=n: len(seen) >= n, 10.0)
        # two magnets land in the same instant: both arrive, lower channel first
        fw.matrix.set(30, True)
        fw.matrix.set(29, True)
        expected = [(stands[ch], closed) for ch, closed in plan] + [(stands[29], True), (stands[30], True)]
        assert wait_for(lambda: len(seen) >= len(expected), 10.0)
        time.sleep(0.1)
        assert seen == expected
        state = kipukas_state(app.loop.state)
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
        assert wait_for(lambda: kipukas_state(app.loop.state).stands[stands[33]].occupied
                        and kipukas_state(app.loop.state).stands[stands[3]].occupied)
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
        assert wait_for(lambda: sensors.health()["channels"]["chatter"] == ["r0c2"]
                        and len([c for c in got if c.channel == "r0c2"]) >= 3)
        assert sensors.health()["ok"] is False
        assert [c.closed for c in got if c.channel == "r0c2"] == [True, False, True]
        assert wait_for(lambda: sensors.health()["channels"]["chatter"] == [], 10.0)
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


def test_an_unplugged_link_takes_its_path_away_as_udev_does(tmp_path: Path) -> None:
    """Left in place, the path would name a freed pseudo-terminal that the next pty opened on the
    machine takes (another test, another process): a host reconnecting meanwhile read that board's
    switches as its own."""
    link = PtyLink(tmp_path)
    try:
        assert os.path.realpath(link.path).startswith("/dev/pts/")
        link.unplug()
        assert not os.path.lexists(link.path)
    finally:
        link.close()


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
    assert kipukas_state(app.loop.state).stands[stands[0]].occupied  # the journal's word, before any switch is read
    app.start()
    try:
        assert wait_for(lambda: app.sensors.health()["synced"], 5.0)
        assert wait_for(lambda: not kipukas_state(app.loop.state).stands[stands[0]].occupied
                        and kipukas_state(app.loop.state).stands[stands[2]].occupied, 2.0)
        time.sleep(0.1)
        # the switches rule: stand 1's switch is open too, so it is cleared as well
        assert {s for s, st in kipukas_state(app.loop.state).stands.items() if st.occupied} == {stands[2]}
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
        assert wait_for(lambda: len(got) >= ROWS * COLS)  # reported just after the sync, outside the lock
        assert got == [SwitchChange(f"r{r}c{c}", (r, c) == (0, 4)) for r in range(ROWS) for c in range(COLS)]
    finally:
        sensors.stop()


# -- the resync rules against a fake clock (the policy alone: no port, no threads, no timing) -----

def identity(seq: int, rows: int = 2, cols: int = 2, heartbeat_ms: int = 100) -> bytes:
    payload = bytes((sp.PROTO_VERSION, rows, cols)) + b"".join(
        v.to_bytes(2, "big") for v in (20, 1000, 1000, heartbeat_ms)) + b"test"
    return sp.encode(sp.IDENTITY, seq, payload)


def snapshot(seq: int, closed: int = 0, count: int = 4) -> bytes:
    return sp.encode(sp.SNAPSHOT, seq, bytes((1, count, closed)))


def sent(actions: list[Action]) -> list[int]:
    """The types of the frames the policy asked to write, in order."""
    return [sp.cobs_decode(a.data[1:-1])[0] for a in actions if isinstance(a, Send)]


def connected_policy(now: float) -> LinkPolicy:
    policy = LinkPolicy()
    assert sent(policy.connect(now)) == [sp.CMD_IDENTIFY, sp.CMD_SNAPSHOT]
    assert policy.greeted(now) == []  # the greeting's SNAPSHOT is the resync's request
    policy.feed(identity(0) + snapshot(1), now)
    assert policy.health(now)["synced"]
    return policy


BAD_BLOCK = b"\x00\x05\x01\x02\x00"  # not valid COBS: the code byte points past the block's end
SNAP, IDENT = sp.CMD_SNAPSHOT, sp.CMD_IDENTIFY
GAP, TIMEOUT = EVIDENCE_GAP_S, 0.05

# (seconds after a synced start, what happens, frames the host writes, resyncing afterwards, reopen asked)
EPS = 1e-6
RESYNC_ROWS: list[tuple[float, str, list[int], bool, bool]] = [
    (0.0, "bad", [SNAP], True, False),                 # a loss: ask at once
    (0.001, "bad", [], True, False),                   # the answer, damaged, 1 ms later: not before the gap
    (0.001, "tick", [], True, False),
    (GAP + EPS, "tick", [SNAP], True, False),          # as soon as it has passed, not after the timeout
    (GAP + TIMEOUT - 0.001, "tick", [], True, False),
    (GAP + TIMEOUT + EPS, "tick", [SNAP], True, False),  # no answer within the timeout: ask again
    (0.06, "snapshot", [], False, False),              # the answer ends the resync
    (0.2, "tick", [], False, False),                   # and nothing more is asked
    (0.35, "tick", [], False, False),                  # 0.29 s after the last frame: not stale yet
    (0.37, "tick", [IDENT], False, False),             # stale (3 heartbeats of 100 ms): probe
    (0.5, "tick", [], False, False),                   # once per stale period
    (0.68, "tick", [IDENT], False, False),
    (0.95, "tick", [], False, False),
    (0.97, "tick", [], False, True),                   # silent over 3 stale periods: reopen the port
]


def test_the_resync_rules_row_by_row() -> None:
    start = 10.0
    policy = connected_policy(start)
    for at, what, writes, resyncing, reopen in RESYNC_ROWS:
        now = start + at
        if what == "bad":
            actions = policy.feed(BAD_BLOCK, now)
        elif what == "snapshot":
            actions = policy.feed(snapshot(2), now)
        else:
            actions = policy.tick(now)
        assert sent(actions) == writes, (at, what)
        assert policy.resyncing is resyncing, (at, what)
        assert any(isinstance(a, Reopen) for a in actions) is reopen, (at, what)
    assert policy.counters["resyncs"] == 2 and policy.counters["frames_dropped"] == 2  # connect and loss
    assert policy.health(start + 0.97)["stale"] is True


def test_a_second_loss_soon_after_a_request_is_asked_again_within_the_gap_not_the_timeout() -> None:
    """The damaged frame after a request may have been the answer itself: the host asks again as soon
    as EVIDENCE_GAP_S allows, instead of waiting out resync_timeout_s (50 ms) for an answer that
    will never come."""
    policy = connected_policy(10.0)
    asks = sent(policy.feed(BAD_BLOCK, 10.0))
    assert asks == [SNAP]
    asks += sent(policy.feed(BAD_BLOCK, 10.001))  # 1 ms later: the answer, damaged
    asks += sent(policy.tick(10.001))
    assert asks == [SNAP]  # not yet: at most one request per EVIDENCE_GAP_S
    asks += sent(policy.tick(10.0 + EVIDENCE_GAP_S))
    assert asks == [SNAP, SNAP]
    assert policy.resync_timeout_s / 10 > EVIDENCE_GAP_S


def test_a_snapshot_after_the_last_loss_ends_the_resync_without_another_request() -> None:
    policy = connected_policy(10.0)
    actions = policy.feed(BAD_BLOCK, 10.0)
    actions += policy.feed(BAD_BLOCK + snapshot(2, closed=0b10), 10.001)  # a loss, then the answer after it
    actions += policy.tick(10.011)
    assert sent(actions) == [SNAP]
    assert Report(SwitchChange("r0c1", True), "resync") in actions
    assert policy.health(10.011)["synced"] and policy.view()["r0c1"] is True


def test_the_link_is_stale_after_three_of_the_boards_own_heartbeat_periods() -> None:
    policy = connected_policy(10.0)  # the board said heartbeat_ms = 100
    assert policy.health(10.0)["stale_after_s"] == 0.3
    assert policy.health(10.29)["stale"] is False
    assert policy.health(10.31)["stale"] is True
    policy.feed(identity(2, heartbeat_ms=1000), 10.31)  # a slow heartbeat, set by SET
    h = policy.health(13.21)
    assert h["stale_after_s"] == 3.0 and h["stale"] is False  # a fixed 1 s would call it stale
    assert LinkPolicy(stale_s=0.05).stale_after_s() == 0.05  # the setting still wins
    assert SerialStandSensors(device="wire", stale_s=0.05).health()["stale_after_s"] == 0.05


def test_an_echoing_port_is_named_and_never_flooded_with_requests() -> None:
    """A Pico at the MicroPython prompt echoes what the host writes: the echoed commands are intact
    frames of the host's own direction, not lost ones, so they must not set off snapshot requests."""
    now = 100.0
    policy = connected_policy(now)
    actions: list[Action] = []
    for k in range(50):
        now += 0.001
        actions += policy.feed(sp.encode(sp.CMD_SNAPSHOT, k) + sp.encode(sp.CMD_IDENTIFY, k), now)
        actions += policy.tick(now)
    assert sent(actions) == [] and not policy.resyncing
    warnings = [a for a in actions if isinstance(a, Warn)]
    assert len(warnings) == 1 and "echoes the host's commands" in warnings[0].message  # said once
    h = policy.health(now)
    assert "echoes the host's commands" in (h["last_error"] or "")
    assert h["bad_frames"]["echo"] == 100 and h["frames_dropped"] == 0


def test_a_write_that_fails_mid_chunk_loses_no_change_the_link_took(monkeypatch) -> None:
    """A chunk whose middle frame makes the host write (a snapshot of the wrong size asks for the
    board's IDENTITY) and the write fails: the port is reopened, and the changes before and after
    that frame still reach the game, since the link's view already holds them."""
    import serial

    chunks = [identity(0) + snapshot(1),
              sp.encode(sp.CHANGE, 2, bytes((0, 1))) + sp.encode(sp.SNAPSHOT, 3, bytes((1, 9, 0, 0)))
              + sp.encode(sp.CHANGE, 4, bytes((1, 1)))]
    opened = []

    class FakePort:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.greeted = False
            opened.append(self)

        def fileno(self) -> int:
            raise OSError("not a POSIX port")  # the adapter then lets pyserial wait

        in_waiting = 0

        def read(self, n: int) -> bytes:
            if len(opened) == 1 and chunks:
                return chunks.pop(0)
            time.sleep(0.005)
            return b""

        def write(self, data: bytes) -> None:
            if self.greeted and len(opened) == 1:
                raise serial.SerialException("device reports readiness to read but returned no data")
            self.greeted = self.greeted or sp.cobs_decode(data[1:-1])[0] == sp.CMD_SNAPSHOT

        def close(self) -> None:
            pass

    monkeypatch.setattr(serial, "Serial", FakePort)
    sensors = SerialStandSensors(device="fake", reconnect_s=0.01, startup_wait_s=0)
    got: list[SwitchChange] = []
    sensors.start(got.append)
    try:
        assert wait_for(lambda: len(opened) >= 2)  # the failed write reopened the port
        assert SwitchChange("r0c0", True) in got and SwitchChange("r0c1", True) in got
        assert sensors.snapshot()["r0c0"] is True and sensors.snapshot()["r0c1"] is True
    finally:
        sensors.stop()
