"""A tap the page sends again (the board did not answer in time) is done once (kipukas_board/web/taps.py)."""

from __future__ import annotations

import threading

from kipukas_board.app import BoardApp
from kipukas_board.web.taps import KEEP, TapMemory

PIN = {"X-Admin-Pin": "2468"}
PLAYERS = [{"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]


def _game(client, board: BoardApp) -> None:  # type: ignore[no-untyped-def]
    started = client.post("/api/actions/new-game", json={"players": PLAYERS, "first_placer": 1}, headers=PIN)
    assert started.status_code == 200
    for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):  # setup done: the diel die may be rolled
        board.sim_set_stand(sid, True)


def test_a_roll_sent_again_with_its_tap_id_is_rolled_once_and_answered_alike(client, board: BoardApp) -> None:
    _game(client, board)
    before = board.loop.state.seq
    first = client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "tap-1"})
    again = client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "tap-1"})
    assert first.status_code == again.status_code == 200
    assert again.get_json() == first.get_json()
    assert board.loop.state.seq == before + 1, "the repeat rolled the diel die again"
    other = client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "tap-2"})
    assert other.status_code == 200 and board.loop.state.seq == before + 2, "another tap is another roll"


def test_a_tap_turned_away_for_the_pin_is_done_when_sent_again_with_it(client, board: BoardApp) -> None:
    _game(client, board)
    before = board.loop.state.seq
    locked = client.post("/api/actions/roll-diel", json={}, headers={"X-Tap": "tap-3"})
    assert locked.status_code == 401
    unlocked = client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "tap-3"})
    assert unlocked.status_code == 200 and board.loop.state.seq == before + 1


def test_a_refusal_is_remembered_too_and_a_malformed_tap_id_is_not(client, board: BoardApp) -> None:
    _game(client, board)
    refused = client.post("/api/actions/resolve-contention", json={"territory": 3, "winner": 1},
                          headers={**PIN, "X-Tap": "tap-4"})
    assert refused.status_code == 409
    before = board.loop.state.seq
    again = client.post("/api/actions/resolve-contention", json={"territory": 3, "winner": 1},
                        headers={**PIN, "X-Tap": "tap-4"})
    assert again.get_json() == refused.get_json() and board.loop.state.seq == before
    for bad in ("has space", "x" * 65):
        client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": bad})
        client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": bad})
    assert board.loop.state.seq == before + 4, "a malformed tap id is an ordinary request"


def test_the_memory_is_bounded_and_a_repeat_waits_for_the_first_answer() -> None:
    taps = TapMemory(keep=3)
    for n in range(5):
        assert taps.begin(("p", "/x", str(n))) is None
        taps.done(("p", "/x", str(n)), 200, b"{}", "application/json")
    assert taps.begin(("p", "/x", "0")) is None, "the oldest answer is forgotten past keep"
    assert taps.begin(("p", "/x", "4")) == (200, b"{}", "application/json")
    assert KEEP >= 100
    key = ("p", "/x", "slow")
    assert taps.begin(key) is None
    threading.Timer(0.05, taps.done, (key, 200, b'{"ok": true}', "application/json")).start()
    assert taps.begin(key, wait_s=5) == (200, b'{"ok": true}', "application/json")
    failed = ("p", "/x", "failed")
    assert taps.begin(failed) is None
    taps.drop(failed)
    assert taps.begin(failed) is None, "a tap whose first sending had no answer is done when sent again"
