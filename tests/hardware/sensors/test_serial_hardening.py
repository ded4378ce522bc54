"""The link's policy against frames a faulty link or a mis-built board can deliver: late frames,
resync corrections and impossible matrices (PROTOCOL.md sections 3 and 4, "Limits")."""

from __future__ import annotations

import pytest

from kipukas_board.hardware.sensors import protocol as sp
from kipukas_board.hardware.sensors.link_policy import Action, LinkPolicy, Report


def identity(seq: int, rows: int = 2, cols: int = 2) -> bytes:
    payload = bytes((1, rows, cols)) + (20).to_bytes(2, "big") + (1000).to_bytes(2, "big") \
        + (1000).to_bytes(2, "big") + (100).to_bytes(2, "big") + b"test"
    return sp.encode(sp.IDENTITY, seq, payload)


def snapshot(seq: int, closed: set[int], count: int = 4, reason: int = 0) -> bytes:
    bits = sum(1 << i for i in closed)
    return sp.encode(sp.SNAPSHOT, seq, bytes((reason, count)) + bits.to_bytes((count + 7) // 8, "little"))


def change(seq: int, channel: int, closed: bool) -> bytes:
    return sp.encode(sp.CHANGE, seq, bytes((channel, int(closed))))


class Fed:
    """A policy fed by hand (its requests go nowhere), synced on a 2 x 2 board; keeps what it reported."""

    def __init__(self) -> None:
        self.policy = LinkPolicy()
        self.policy.feed(identity(0) + snapshot(1, set(), reason=2), 0.0)
        self.actions: list[Action] = []

    def feed(self, data: bytes, now: float) -> None:
        self.actions += self.policy.feed(data, now)

    def reported(self) -> list[tuple[str, bool]]:
        return [(a.change.channel, a.change.closed) for a in self.actions if isinstance(a, Report)]


def test_a_late_snapshot_never_rolls_a_switch_back() -> None:
    s = Fed()
    # the board sent: CHANGE r0c0 closed (2), a periodic SNAPSHOT with it closed (3), CHANGE open (4);
    # the link delivers 2, 4 and then 3, late
    s.feed(change(2, 0, True) + change(4, 0, False), 1.0)
    s.feed(snapshot(3, {0}), 1.01)
    assert s.reported() == [("r0c0", True), ("r0c0", False)]  # the stale "closed" was not acted on
    assert s.policy.view()["r0c0"] is False
    assert s.policy.counters["late_frames"] == 1
    assert s.policy.resyncing  # a snapshot was asked for instead
    # the numbering goes on from the frame already taken: the next in-order frame is no gap
    gaps = s.policy.counters["seq_gaps"]
    s.feed(snapshot(5, set(), reason=1), 1.02)
    assert s.policy.counters["seq_gaps"] == gaps and not s.policy.resyncing
    assert s.reported() == [("r0c0", True), ("r0c0", False)]


def test_a_duplicated_change_is_late_and_not_reported_twice() -> None:
    s = Fed()
    s.feed(change(2, 1, True) + change(3, 1, False) + change(2, 1, True), 1.0)
    assert s.reported() == [("r0c1", True), ("r0c1", False)]
    assert s.policy.counters["late_frames"] == 1


def test_a_board_that_restarts_is_followed_from_its_power_on_identity() -> None:
    s = Fed()
    s.feed(change(2, 0, True) + change(3, 0, False), 1.0)
    s.feed(identity(0) + snapshot(1, {3}, reason=2), 2.0)  # seq 0 again: power-on, not late
    assert s.policy.counters["late_frames"] == 0
    assert s.reported()[-1] == ("r1c1", True)


def test_resync_corrections_do_not_count_as_chatter() -> None:
    s = Fed()
    # Ten snapshots in order, each disagreeing with the last: every one is a correction (the host had
    # missed a change), none a switch flickering, so the channel is never held back.
    for i in range(10):
        s.feed(snapshot(2 + i, {2} if i % 2 == 0 else set()), 1.0 + i * 0.1)
    assert s.reported() == [("r1c0", i % 2 == 0) for i in range(10)]
    assert s.policy.counters["corrections"] == 10
    assert s.policy.channels.report(2.0)["chatter"] == []
    # live changes still do
    for i in range(10):
        s.feed(change(12 + i, 3, i % 2 == 0), 3.0 + i * 0.1)
    assert "r1c1" in s.policy.channels.report(4.0)["chatter"]


@pytest.mark.parametrize("rows, cols", [(16, 16), (0, 0), (0, 8), (9, 8)])
def test_an_impossible_identity_is_a_health_error(rows: int, cols: int) -> None:
    with pytest.raises(sp.FrameError) as err:
        sp.parse_block(sp.encode(sp.IDENTITY, 0, bytes((1, rows, cols)) + bytes(8))[1:-1])
    assert err.value.kind == "geometry"
    s = Fed()
    s.feed(identity(5, rows, cols), 1.0)
    health = s.policy.health(1.0)
    assert health["ok"] is False
    assert f"{rows} x {cols}" in health["identity_error"] and f"{rows} x {cols}" in health["last_error"]
    ident = s.policy.identity
    assert ident is not None and (ident.rows, ident.cols) == (2, 2)  # not taken
    s.feed(identity(6), 1.1)  # a sound IDENTITY clears it
    assert s.policy.health(1.1)["identity_error"] is None


def test_a_restart_whose_identity_was_lost_is_followed_after_a_run_of_late_frames() -> None:
    s = Fed()
    for seq in range(2, 300):  # the board has been up a while
        s.feed(sp.encode(sp.HEARTBEAT, seq, bytes(6)), 1.0)
    # it restarts; its IDENTITY (seq 0) is lost, the boot snapshot (1) and heartbeats (2...) arrive
    s.feed(snapshot(1, {1}, reason=2), 2.0)
    for seq in range(2, 12):
        s.feed(sp.encode(sp.HEARTBEAT, seq, bytes(6)), 2.0 + seq * 0.01)
    assert s.policy.counters["late_frames"] == 8  # at most a run of 8 is refused ...
    s.feed(snapshot(12, {1}, reason=1), 2.5)
    assert s.reported() == [("r0c1", True)]  # ... then the new numbering is followed
