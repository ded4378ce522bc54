"""Scan sessions: one event per showing, a new one after the card is taken away, serials at two seats."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board.cards.payload import parse_payload
from kipukas_board.cards.sessions import ScanSessions

A = parse_payload("kpks.us/RrDC#0001?DmFz33")
B = parse_payload("kpks.us/HMPU#0004?BFxDCJ")
SHORT = parse_payload("https://www.kpks.us/frlU")


def test_a_card_held_for_many_frames_is_one_presentation() -> None:
    s = ScanSessions(gone_after_s=1.0)
    events = [e for i in range(100) for e in s.observe(1, [A], now=i * 0.05)]
    assert [(e.seat, e.payload.code) for e in events] == [(1, "RrDC")]


def test_missed_frames_inside_the_grace_period_do_not_end_it() -> None:
    s = ScanSessions(gone_after_s=1.0)
    frames = [[A], [], [], [A], [], [A]]
    events = [e for i, f in enumerate(frames) for e in s.observe(1, f, now=i * 0.3)]
    assert len(events) == 1


def test_taken_away_and_shown_again_is_a_new_presentation() -> None:
    s = ScanSessions(gone_after_s=1.0)
    assert len(s.observe(1, [A], 0.0)) == 1
    assert s.observe(1, [], 1.5) == [] and s.in_view(1) == []
    assert len(s.observe(1, [A], 1.6)) == 1


def test_two_cards_at_one_seat_and_the_same_design_at_two_seats() -> None:
    s = ScanSessions()
    assert {e.payload.code for e in s.observe(1, [A, B], 0.0)} == {"RrDC", "HMPU"}
    ev = s.observe(2, [SHORT], 0.0) + s.observe(3, [SHORT], 0.0)  # code-only: no serial, no flag
    assert [e.flags for e in ev] == [(), ()]


def test_the_same_serial_at_two_seats_is_flagged() -> None:
    s = ScanSessions()
    assert s.observe(1, [A], 0.0)[0].flags == ()
    flagged = s.observe(2, [A], 0.5)[0]
    assert flagged.seat == 2 and "DmFz33" in flagged.flags[0] and "seat 1" in flagged.flags[0]


def test_present_forces_a_new_presentation() -> None:
    s = ScanSessions()
    s.observe(1, [A], 0.0)
    assert s.present(1, A, 0.1).payload == A


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=60))
def test_presentations_match_gaps_longer_than_the_grace(seen: list[bool]) -> None:
    """Frames every 0.1 s; a new presentation starts exactly after a gap of > gone_after_s."""
    s = ScanSessions(gone_after_s=0.35)
    got = sum(len(s.observe(1, [A] if v else [], now=i * 0.1)) for i, v in enumerate(seen))
    expected, last = 0, None
    for i, v in enumerate(seen):
        if v:
            if last is None or (i - last) * 0.1 > 0.35:
                expected += 1
            last = i
    assert got == expected


class _EveryOtherHeavyPass:
    """A pipeline that reads the card only on every second heavy pass (once a second at best):
    what a code only WeChat can read looks like from a live camera."""

    def __init__(self, text: str) -> None:
        self.text, self.calls = text, 0

    def decode(self, frame, thorough=False, known=()):
        from kipukas_board.vision.pipeline import DecodeResult

        self.calls += 1  # never complete: the camera reader decodes every frame, as while a card moves
        return DecodeResult(codes=[self.text] if self.calls % 2 == 1 else [])


def test_a_card_only_heavy_passes_read_is_one_presentation_while_held(data_dir) -> None:
    from kipukas_board.cards.catalog import Catalog
    from kipukas_board.vision.desk import HEAVY_INTERVAL_S, CardDesk

    now = [0.0]
    submitted: list[dict] = []
    desk = CardDesk(Catalog.in_dir(data_dir), submit=lambda e, wait=True, timeout=None: submitted.append(e),
                    clock=lambda: now[0], pipeline_factory=lambda: _EveryOtherHeavyPass("kpks.us/RrDC#0001?DmFz33"))
    for k in range(7):  # a read at 0, 2, 4, 6 s; a miss at 1, 3, 5 s: heavy passes once a second
        now[0] = k * HEAVY_INTERVAL_S
        desk.on_frame(1, np.full((48, 64), 20 + 30 * k, np.uint8))
    assert len(submitted) == 1, submitted
    # a new game forgets which seat showed which serial; a restart remembers the journal's last cards
    desk.remember([{"seat": 1, "serial": "DmFz33"}])
    assert desk.present(2, "kpks.us/RrDC#0001?DmFz33")["flags"]
    desk.follow(None, [{"type": "new_game"}])
    assert desk.present(2, "kpks.us/RrDC#0001?DmFz33")["flags"] == []
