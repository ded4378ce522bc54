"""Chatter and stuck detection."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kipukas_board.hardware.sensors.channel_health import ChannelHealth


def test_chatter_holds_changes_and_releases_the_last_state() -> None:
    h = ChannelHealth(chatter_changes=4, chatter_window_s=10, quiet_s=3, stuck_s=None)
    admitted = [h.admit("c", i % 2 == 0, now=float(i)) for i in range(7)]
    assert admitted == [True, True, True, False, False, False, False]
    assert h.report(now=6)["chatter"] == ["c"] and h.chatter_episodes == {"c": 1}
    assert h.released(now=8) == []
    assert h.released(now=9) == [("c", True)]
    assert h.report(now=9)["chatter"] == [] and h.trusted("c")
    assert h.admit("c", False, now=20)  # trusted again after it calmed down


def test_slow_changes_never_chatter() -> None:
    h = ChannelHealth(chatter_changes=4, chatter_window_s=10)
    assert all(h.admit("c", i % 2 == 0, now=i * 4.0) for i in range(50))
    assert h.report(now=200)["chatter"] == []


def test_stuck_closed_is_reported() -> None:
    h = ChannelHealth(stuck_s=100)
    h.seen("a", True, now=0)
    h.admit("b", True, now=50)
    h.admit("c", True, now=0)
    h.admit("c", False, now=10)
    assert h.report(now=120)["stuck"] == ["a"]
    assert h.report(now=151)["stuck"] == ["a", "b"]


@given(st.lists(st.floats(0.01, 5.0), min_size=1, max_size=60), st.integers(2, 10))
def test_never_more_than_n_minus_1_changes_pass_in_a_window(gaps, n) -> None:
    h = ChannelHealth(chatter_changes=n, chatter_window_s=10, quiet_s=1e9)
    t, passed = 0.0, []
    for i, g in enumerate(gaps):
        t += g
        if h.admit("c", i % 2 == 0, now=t):
            passed.append(t)
    # until it is flagged, fewer than n changes fall in any 10 s window
    for i in range(len(passed) - n + 1):
        assert passed[i + n - 1] - passed[i] > 10
