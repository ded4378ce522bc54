"""The ``card`` event: checked before the journal, folded purely into ``state.cards``."""

from __future__ import annotations

import pytest

from kipukas_board.board.mapfile import load_map
from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.state import initial_state
from kipukas_board.modes.kipukas.rules.view import state_json
from kipukas_board.table.cards import card_event
from kipukas_board.table.events import EventError, check_event


def test_last_card_per_seat_is_recorded() -> None:
    state = initial_state(load_map("kipuka-8"))
    e1 = card_event(2, "kpks.us/RrDC#0001?DmFz33", "RrDC", "0001", "DmFz33", {"code": "RrDC", "title": "Explorer"})
    e2 = card_event(1, "https://www.kpks.us/frlU", "frlU", card=None, error="unknown card frlU")
    e3 = card_event(2, "kpks.us/HMPU#0004?BFxDCJ", "HMPU", "0004", "BFxDCJ", {"code": "HMPU", "title": "H"})
    s1, fx = apply(state, check_event(e1))
    assert fx[0] == {"type": "card", "seat": 2, "code": "RrDC", "title": "Explorer", "known": True, "flags": []}
    s2, _ = apply(s1, check_event(e2))
    s3, _ = apply(s2, check_event(e3), seq=9)
    assert [(c["seat"], c["code"], c["known"]) for c in s3.cards] == [(1, "frlU", False), (2, "HMPU", True)]
    assert "seat 1: unknown card frlU" in s3.problems
    assert state_json(s3)["cards"][1]["title"] == "H" and s3.seq == 9
    assert state.cards == ()  # pure: the old state is untouched
    e4 = card_event(1, "kpks.us/RrDC#0001?DmFz33", "RrDC", "0001", "DmFz33", {"code": "RrDC", "title": "Explorer"})
    s4, _ = apply(s3, check_event(e4))
    assert s4.problems == ()  # seat 1 showed another card: its unreadable one is no longer a problem


@pytest.mark.parametrize("change, what", [
    ({"seat": 0}, "seat"), ({"seat": "1"}, "seat"), ({"seat": True}, "seat"),
    ({"payload": 5}, "payload"), ({"code": 12}, "code"), ({"card": "x"}, "card"), ({"flags": [1]}, "flags"),
])
def test_malformed_card_events_are_refused(change, what) -> None:
    e = {**card_event(1, "kpks.us/RrDC#0001?DmFz33", "RrDC"), **change}
    with pytest.raises(EventError, match=what):
        check_event(e)
