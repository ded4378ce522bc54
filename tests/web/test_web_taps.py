"""A tap the page sends again (the board did not answer in time) is done once (kipukas_board/web/taps.py)."""

from __future__ import annotations

import threading

import pytest

from kipukas_board.app import BoardApp
from kipukas_board.web.taps import KEEP, MAX_HEADERS, Answer, TapMemory

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


def test_a_refusal_is_remembered_too(client, board: BoardApp) -> None:
    _game(client, board)
    refused = client.post("/api/actions/resolve-contention", json={"territory": 3, "winner": 1},
                          headers={**PIN, "X-Tap": "tap-4"})
    assert refused.status_code == 409
    before = board.loop.state.seq
    again = client.post("/api/actions/resolve-contention", json={"territory": 3, "winner": 1},
                        headers={**PIN, "X-Tap": "tap-4"})
    assert again.get_json() == refused.get_json() and board.loop.state.seq == before


def test_a_malformed_tap_id_is_refused_naming_what_it_must_be(client, board: BoardApp) -> None:
    """A tap whose id the board cannot remember would be done again when sent again: the client is
    told, not served as if its tap were safe to send twice. The id is not echoed (it may be huge)."""
    _game(client, board)
    before = board.loop.state.seq
    for bad in ("has space", "x" * 65, "", "é", "<b>", "x" * 100_000):
        resp = client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": bad})
        assert resp.status_code == 400, (len(bad), resp.status_code)
        why = resp.get_json()["error"]
        assert "X-Tap" in why and "1 to 64 letters, digits, '-' or '_'" in why and len(why) < 200, why
    assert board.loop.state.seq == before, "a tap with a malformed id was done"
    assert client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "x" * 64}).status_code == 200


def test_the_memory_is_bounded_and_a_repeat_waits_for_the_first_answer() -> None:
    taps = TapMemory(keep=3)
    for n in range(5):
        assert taps.begin(("p", "/x", str(n))) is None
        taps.done(("p", "/x", str(n)), 200, b"{}", "application/json")
    assert taps.begin(("p", "/x", "0")) is None, "the oldest answer is forgotten past keep"
    assert taps.begin(("p", "/x", "4")) == Answer(200, b"{}", "application/json")
    assert KEEP >= 100
    key = ("p", "/x", "slow")
    assert taps.begin(key) is None
    threading.Timer(0.05, taps.done, (key, 200, b'{"ok": true}', "application/json")).start()
    assert taps.begin(key, wait_s=5) == Answer(200, b'{"ok": true}', "application/json")
    failed = ("p", "/x", "failed")
    assert taps.begin(failed) is None
    taps.drop(failed)
    assert taps.begin(failed) is None, "a tap whose first sending had no answer is done when sent again"


def _restarted(board: BoardApp, data_dir):  # type: ignore[no-untyped-def]
    """The board stopped and made again on the same data directory (its journal), as after a restart."""
    from kipukas_board.settings import Settings

    board.stop()
    again = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    again.start()
    return again


def _phone_after(client, board: BoardApp):  # type: ignore[no-untyped-def]
    """A client of ``board`` as ``client`` was (its device cookie if it had one, else its address):
    the same phone, the board restarted."""
    from kipukas_board.web.server import create_app
    from kipukas_board.web.sessions import COOKIE

    phone = create_app(board).test_client()
    cookie = client.get_cookie(COOKIE)
    if cookie is not None:
        phone.set_cookie(COOKIE, cookie.value)
    return phone


def test_a_tap_sent_again_after_the_board_restarted_is_answered_as_before_and_not_done_twice(data_dir) -> None:
    from kipukas_board.settings import Settings
    from kipukas_board.web.server import create_app

    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    board.start()
    try:
        client = create_app(board).test_client()
        _game(client, board)
        first = client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "before-restart"})
        assert first.status_code == 200
        rolled = board.loop.state.seq  # the answer is lost on the way back; the board restarts
        board = _restarted(board, data_dir)
        assert board.loop.state.seq == rolled
        phone = _phone_after(client, board)
        again = phone.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "before-restart"})
        assert again.status_code == 200 and again.get_json() == first.get_json(), "answered as before"
        assert board.loop.state.seq == rolled and board.journal.last_seq() == rolled, "the diel die was rolled twice"
        other = phone.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "after-restart"})
        assert other.status_code == 200 and board.loop.state.seq == rolled + 1, "a new tap is done"
        stranger = phone.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "before-restart"},
                              environ_base={"REMOTE_ADDR": "192.168.7.23"})  # another phone's tap of that id
        assert stranger.status_code == 200 and board.loop.state.seq == rolled + 2, "is that phone's own"
    finally:
        board.stop()


def test_a_tap_journaled_but_not_answered_before_a_restart_is_told_done_not_done_again(data_dir) -> None:
    """The board stopped between journaling the tap's event and keeping its answer: the event and the
    tap were written in one transaction, so the tap sent again is found done, by its journal number."""
    import sqlite3

    from kipukas_board.settings import Settings
    from kipukas_board.store.journal import Journal
    from kipukas_board.web.server import create_app

    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    board.start()
    try:
        client = create_app(board).test_client()
        _game(client, board)
        assert client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "cut"}).status_code == 200
        rolled = board.loop.state.seq
        board.stop()
        db = sqlite3.connect(data_dir / Journal.FILENAME)
        with db:  # as if the board had stopped before it answered
            assert db.execute("UPDATE taps SET status = NULL, body = NULL WHERE seq = ?", (rolled,)).rowcount == 1
        db.close()
        board = _restarted(board, data_dir)
        again = _phone_after(client, board).post("/api/actions/roll-diel", json={},
                                                 headers={**PIN, "X-Tap": "cut"})
        assert again.status_code == 200 and board.loop.state.seq == rolled, "the diel die was rolled twice"
        assert again.get_json()["seq"] == rolled and "Already done" in again.get_json()["note"]
    finally:
        board.stop()


def test_the_journal_keeps_taps_bounded_in_number_and_age() -> None:
    from kipukas_board.store.journal import TAPS_KEPT, TAPS_MAX_AGE_S, Journal

    now = [1000.0]  # the monotonic clock: the age of a tap is never the wall clock's
    j = Journal(":memory:", monotonic=lambda: now[0], boot="this-boot")
    j.append({"type": "stand", "stand": "T1", "occupied": True}, tap="first")
    assert j.tap("first") == (1, None)
    j.keep_tap_answer("first", 200, b"{}", "application/json")
    assert j.tap("first") == (1, (200, b"{}", "application/json"))
    for n in range(TAPS_KEPT):
        j.append({"type": "stand", "stand": "T1", "occupied": n % 2 == 0}, tap=f"t{n}")
        j.keep_tap_answer(f"t{n}", 409, b"{}", "application/json")
    assert j.tap("first") is None and j.tap(f"t{TAPS_KEPT - 1}") is not None, "the oldest goes past the count"
    assert j._read("SELECT COUNT(*) FROM taps")[0][0] == TAPS_KEPT
    now[0] += TAPS_MAX_AGE_S + 1
    assert j.tap(f"t{TAPS_KEPT - 1}") is None, "a tap older than the age kept is not answered from the journal"
    j.append({"type": "stand", "stand": "T1", "occupied": True}, tap="late")
    assert j._read("SELECT COUNT(*) FROM taps")[0][0] == 1, "and it is gone at the next write"


def test_a_tap_whose_event_the_disk_refuses_is_not_kept_and_the_journal_writes_on_after(tmp_path) -> None:
    """The event and its tap in one transaction: a full disk refuses both, leaves no transaction open,
    and the tap sent again once there is room is done (nothing of it was kept)."""
    import pytest

    from kipukas_board.store.journal import Journal, JournalWriteError

    j = Journal.in_dir(tmp_path)
    pages = j._db.execute("PRAGMA page_count").fetchone()[0]
    j._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(JournalWriteError, match="disk is full"):
        for n in range(500):  # the last page may still take a few
            j.append({"type": "stand", "stand": "T1", "occupied": True, "pad": "x" * 400}, tap=f"full-{n}")
    refused = f"full-{n}"
    assert j.tap(refused) is None and not j._db.in_transaction
    j._db.execute("PRAGMA max_page_count = 1073741823")
    seq = j.append({"type": "stand", "stand": "T1", "occupied": False}, tap=refused)
    assert j.tap(refused) == (seq, None) and j.last_seq() == seq
    j.close()


def test_a_tap_that_journals_nothing_is_not_written_to_the_journal(client, board: BoardApp) -> None:
    """Only a tap that journaled an event can be done twice across a restart, so only its answer is
    written to the SD card: a guest without the PIN, tapping a route that changes nothing the journal
    holds, makes the board write nothing and pushes no phone's tap out of the journal."""
    _game(client, board)
    assert client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "a-roll"}).status_code == 200
    for n in range(3):
        assert client.post("/api/pin/forget", json={}, headers={"X-Tap": f"guest-{n}"}).status_code == 200
    refused = client.post("/api/actions/resolve-contention", json={"territory": 3, "winner": 1},
                          headers={**PIN, "X-Tap": "refused"})
    assert refused.status_code == 409
    kept = board.journal._read("SELECT seq, status FROM taps")
    assert kept == [(board.loop.state.seq, 200)], f"the journal kept taps that journaled nothing: {kept}"
    again = client.post("/api/actions/resolve-contention", json={"territory": 3, "winner": 1},
                        headers={**PIN, "X-Tap": "refused"})
    assert again.get_json() == refused.get_json(), "a refusal is still answered again from memory"


@pytest.mark.filterwarnings("ignore:The 'kipukas_device' cookie is too large")  # as a guest would send it
def test_a_huge_cookie_does_not_swell_the_memory_of_taps(board: BoardApp) -> None:
    """The phone is told apart by its device cookie, which the client writes: a guest sending 100 kB
    cookies with every tap kept 256 of them (25 MB) in the board's memory. A cookie longer than any
    the board issues is no phone of its own: the address tells that phone apart instead."""
    from kipukas_board.web.server import create_app
    from kipukas_board.web.sessions import COOKIE

    app = create_app(board)
    guest = app.test_client()
    for n in range(3):
        guest.set_cookie(COOKIE, f"{n}" * 100_000)  # set each time: forgetting the PIN deletes it
        assert guest.post("/api/pin/forget", json={}, headers={"X-Tap": f"big-{n}"}).status_code == 200
    again = guest.post("/api/pin/forget", json={}, headers={"X-Tap": "big-0"})
    assert again.status_code == 200
    held = sum(len(part) for key in app.extensions["kipukas_taps"]._answers for part in key)
    assert held < 3 * 200, f"the memory of taps holds {held} characters of keys for 3 taps"


def test_a_tap_that_failed_after_its_event_was_journaled_is_not_done_again_nor_said_restarted(
        client, board: BoardApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """The board failed while answering a tap whose event it had journaled (a 500): sent again, the
    tap is found done in the journal and answered so, and the answer does not claim a restart."""
    from kipukas_board.web import submit

    _game(client, board)
    before = board.loop.state.seq
    real = submit.refused
    failures = iter([RuntimeError("the answer failed")])

    def refused_once(effects):  # type: ignore[no-untyped-def]
        for exc in failures:
            raise exc
        return real(effects)

    monkeypatch.setattr(submit, "refused", refused_once)
    assert client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "t-500"}).status_code == 500
    assert board.loop.state.seq == before + 1
    again = client.post("/api/actions/roll-diel", json={}, headers={**PIN, "X-Tap": "t-500"})
    assert again.status_code == 200 and board.loop.state.seq == before + 1, "the diel die was rolled twice"
    note = again.get_json()["note"]
    assert f"journal number {before + 1}" in note and "restart" not in note, note


def test_the_pin_answer_given_again_sets_the_phones_cookie_again(board: BoardApp) -> None:
    """The right PIN's answer makes the phone trusted by the cookie it sets. The answer was lost on
    the way (the phone has no cookie) and the page sends the tap again: the answer given again must
    set the cookie too, or the phone stays locked though the board counted the PIN as given."""
    from kipukas_board.web.server import create_app
    from kipukas_board.web.sessions import COOKIE

    app = create_app(board)
    first = app.test_client().post("/api/pin/check", json={}, headers={**PIN, "X-Tap": "pin-1"})
    assert first.status_code == 200 and COOKIE in first.headers.get("Set-Cookie", "")
    phone = app.test_client()  # the same phone (its address), without the cookie it never got
    again = phone.post("/api/pin/check", json={}, headers={**PIN, "X-Tap": "pin-1"})
    assert again.status_code == 200 and again.get_json() == first.get_json()
    assert again.headers.getlist("Set-Cookie") == first.headers.getlist("Set-Cookie"), "the cookie was not set again"
    csrf = app.extensions["kipukas_keys"].csrf_token  # as the page sends it
    assert phone.get("/api/pin/status", headers={"X-CSRF-Token": csrf}).get_json()["trusted"] is True
    assert again.headers.get("X-Frame-Options") == "DENY", "the board's own headers are on the answer given again"


def test_only_the_headers_that_matter_are_remembered_and_only_so_many() -> None:
    taps = TapMemory(keep=4)
    key = ("p", "/api/pin/check", "t")
    assert taps.begin(key) is None
    taps.done(key, 200, b"{}", "application/json",
              [("Set-Cookie", "a=1; HttpOnly"), ("Content-Length", "2"), ("X-Frame-Options", "DENY"),
               ("Set-Cookie", "b=2")])
    assert taps.begin(key) == Answer(200, b"{}", "application/json", (("Set-Cookie", "a=1; HttpOnly"),
                                                                      ("Set-Cookie", "b=2")))
    big = ("p", "/api/pin/check", "big")
    assert taps.begin(big) is None
    taps.done(big, 200, b"{}", "application/json", [("Set-Cookie", "c=" + "x" * MAX_HEADERS)])
    assert taps.begin(big) is None, "an answer with more headers than are kept is remembered without them"


def _post(url: str, path: str, tap: str | None = None,
          body: object = None) -> tuple[int, dict[str, str], dict]:  # type: ignore[type-arg]
    """POST ``body`` (``{}``) to ``url + path`` over real HTTP with the PIN (and ``tap`` as its X-Tap):
    the status, headers and JSON of the answer."""
    import json
    import urllib.error
    import urllib.request

    headers = {"Content-Type": "application/json", **PIN, **({"X-Tap": tap} if tap else {})}
    data = json.dumps({} if body is None else body).encode()
    req = urllib.request.Request(url + path, data=data, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())


def test_a_tap_the_busy_core_has_not_done_is_never_done_twice_and_its_repeat_gets_its_answer(
        data_dir, monkeypatch: pytest.MonkeyPatch) -> None:
    """The core loop is busy (here: the journal's write of the roll is held by a gate): the tap is
    answered "still under way" (503, Retry-After), not 500; the phone sends it again, once too early
    (told the same, not done again) and once while it is finished (it waits, and gets the roll's own
    answer); the diel die is rolled once. Real HTTP through waitress, as a phone sends it."""
    from kipukas_board.table.events import stand_event
    from kipukas_board.web import submit, taps
    from tests.web_helpers import serve_board

    with serve_board(data_dir) as srv:
        board = srv.board
        assert _post(srv.url, "/api/actions/new-game", None, {"players": PLAYERS, "first_placer": 1})[0] == 200
        for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
            board.sim_set_stand(sid, True)
        board.submit(stand_event("T4", True))  # behind the stands: all of them journaled
        before = board.journal.last_seq()
        # Short waits from here on (not for the game's set-up, which a loaded machine may take longer over):
        monkeypatch.setattr(submit, "WAIT_S", 0.3)  # the action's wait for the core (the board's own: submit.WAIT_S)
        monkeypatch.setattr(taps, "WAIT_S", 0.3)  # a repeat's wait for the first sending
        gate = threading.Event()
        real_append = board.journal.append

        def held_append(event, tap=None):  # type: ignore[no-untyped-def]
            if event.get("type") == "roll_diel":
                gate.wait(20)
            return real_append(event, tap=tap)

        monkeypatch.setattr(board.journal, "append", held_append)
        status, headers, doc = _post(srv.url, "/api/actions/roll-diel", "busy-roll")
        assert status == 503 and headers.get("Retry-After"), (status, doc)
        assert "still under way" in doc["error"] and "done once" in doc["error"], doc
        status, headers, doc = _post(srv.url, "/api/actions/roll-diel", "busy-roll")  # sent again, too early
        assert status == 503 and headers.get("Retry-After") and "still under way" in doc["error"], (status, doc)
        assert taps.WAIT_S == 0.3 and board.journal.last_seq() == before
        status, _, doc = _post(srv.url, "/api/actions/roll-diel")  # no tap: told, never a 500
        assert status == 503 and "will be done in its turn" in doc["error"], (status, doc)

        monkeypatch.setattr(taps, "WAIT_S", 10.0)
        waited: list[tuple[int, dict[str, str], dict]] = []  # type: ignore[type-arg]
        repeat = threading.Thread(target=lambda: waited.append(_post(srv.url, "/api/actions/roll-diel",
                                                                     "busy-roll")))
        repeat.start()
        threading.Timer(0.3, gate.set).start()  # the core gets to it while the repeat waits
        repeat.join(15)
        board.submit(stand_event("T3", True))  # behind anything queued: every roll is journaled now
        rolls = [seq for seq, e in board.journal.events() if seq > before and e["type"] == "roll_diel"]
        assert len(rolls) == 2, f"the diel die was rolled {len(rolls)} times for two taps of one and one untapped"
        status, _, doc = waited[0]
        assert status == 200 and doc["ok"] and doc["seq"] == rolls[0] and doc["event"]["type"] == "roll_diel", doc
        again = _post(srv.url, "/api/actions/roll-diel", "busy-roll")
        assert again[0] == 200 and again[2] == doc, "sent again later: the same answer"
        kept = board.journal.tap(taps.tap_ref(("127.0.0.1", "/api/actions/roll-diel", "busy-roll")))
        assert kept is not None and kept[0] == rolls[0] and kept[1] is not None and kept[1][0] == 200, \
            "the answer given late is not kept for a restart"


def test_a_tap_under_way_is_not_pushed_out_by_newer_ones_and_their_number_is_bounded() -> None:
    """A slow tap's repeat must find it under way however many taps were answered meanwhile: were it
    forgotten, the repeat would do it a second time. Taps under way are bounded apart: past the bound
    a new tap is told "busy" and not done."""
    from concurrent.futures import Future

    from kipukas_board.web.taps import BUSY_STATUS

    taps = TapMemory(keep=3, under_way=2)
    slow = ("p", "/x", "slow")
    assert taps.begin(slow) is None
    for n in range(KEEP + 1):
        key = ("p", "/x", str(n))
        assert taps.begin(key) is None
        taps.done(key, 200, b"{}", "application/json")
    repeat = taps.begin(slow, wait_s=0.01)
    assert repeat is not None, "the tap under way was forgotten: its repeat would be done again"
    assert repeat.status == BUSY_STATUS and ("Retry-After", "2") in repeat.headers and b"still under way" in repeat.body

    other = ("p", "/x", "other")
    assert taps.begin(other) is None
    refused = taps.begin(("p", "/x", "third"), wait_s=0.01)
    assert refused is not None and refused.status == BUSY_STATUS and b"was not done" in refused.body
    taps.done(other, 200, b"{}", "application/json")
    assert taps.begin(("p", "/x", "third")) is None, "a place under way freed is taken again"

    queued: Future[int] = Future()  # answered "still under way": the core loop still holds its event
    taps.pending(slow, queued, lambda seq: (200, b'{"seq": %d}' % seq))
    assert taps.begin(slow, wait_s=0.01).status == BUSY_STATUS  # type: ignore[union-attr]
    queued.set_result(7)
    assert taps.begin(slow) == Answer(200, b'{"seq": 7}', "application/json")
    refused_event: Future[int] = Future()
    lost = ("p", "/x", "lost")
    taps.drop(("p", "/x", "third"))
    assert taps.begin(lost) is None
    taps.pending(lost, refused_event)
    refused_event.set_exception(RuntimeError("the disk is full"))
    assert taps.begin(lost) is None, "a tap whose event was refused did nothing: sent again, it is done"


def test_an_undo_and_a_redo_the_busy_core_does_late_still_keep_redo_right(
        data_dir, monkeypatch: pytest.MonkeyPatch) -> None:
    """Undo keeps what it took back for redo, redo keeps the rest of what undo took back: both after
    their event. Done late by the busy core (503 "still under way"), that must still happen, once:
    the late undo offers its action for redo, the late redo leaves the older undone action offered."""
    from kipukas_board.modes.kipukas.on_table import kipukas_state
    from kipukas_board.web import submit, taps
    from tests.web_helpers import serve_board

    def redo_offer(url: str) -> str | None:
        import json
        import urllib.request

        with urllib.request.urlopen(url + "/api/undo", timeout=10) as resp:
            offer = json.loads(resp.read())["redo"]
        return offer["action"] if offer else None

    with serve_board(data_dir) as srv:
        board = srv.board
        assert _post(srv.url, "/api/actions/new-game", None, {"players": PLAYERS, "first_placer": 1})[0] == 200
        for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
            board.sim_set_stand(sid, True)
        assert _post(srv.url, "/api/actions/roll-dice", None, {"kind": "d6"})[0] == 200
        seat = 2 if kipukas_state(board.state).initiative == 1 else 1
        assert _post(srv.url, "/api/actions/initiative", None, {"seat": seat})[0] == 200
        assert _post(srv.url, "/api/actions/undo")[0] == 200  # the initiative undone in time
        assert redo_offer(srv.url) == "take_initiative"

        monkeypatch.setattr(submit, "WAIT_S", 0.3)
        monkeypatch.setattr(taps, "WAIT_S", 0.3)
        gate = threading.Event()
        real_append = board.journal.append

        def held_append(event, tap=None):  # type: ignore[no-untyped-def]
            if event.get("type") in ("undo", "dice_roll"):
                gate.wait(20)
            return real_append(event, tap=tap)

        monkeypatch.setattr(board.journal, "append", held_append)
        # the late undo takes the roll back and offers it; the late redo rolls it again, and the
        # initiative undone before is offered again
        for action, offered in (("undo", "dice_roll"), ("redo", "take_initiative")):
            gate.clear()
            status, _, doc = _post(srv.url, f"/api/actions/{action}", f"late-{action}")
            assert status == 503 and "still under way" in doc["error"], (action, status, doc)
            monkeypatch.setattr(taps, "WAIT_S", 10.0)
            threading.Timer(0.3, gate.set).start()
            status, _, doc = _post(srv.url, f"/api/actions/{action}", f"late-{action}")
            monkeypatch.setattr(taps, "WAIT_S", 0.3)
            assert status == 200 and doc["ok"], (action, status, doc)
            assert redo_offer(srv.url) == offered, f"after the late {action}, redo must offer {offered}"
        rolls = [e for _, e in board.journal.events() if e["type"] == "dice_roll"]
        assert len(rolls) == 2 and rolls[0]["rolls"] == rolls[1]["rolls"], "rolled once, redone with its rolls"


def test_a_simulated_token_the_busy_core_records_late_stays_where_the_hand_put_it(
        data_dir, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand's change the busy core has not journaled in time is still journaled in its turn: the
    simulated switch must not be put back as if it had been refused, or the switch and the game
    disagree (the journal says a token is on the stand, the switch that it is not)."""
    from kipukas_board.web import submit
    from tests.web_helpers import serve_board

    with serve_board(data_dir) as srv:
        board = srv.board
        gate = threading.Event()
        real_append = board.journal.append
        real_submit = board.loop.submit

        def held_append(event, tap=None):  # type: ignore[no-untyped-def]
            if event.get("type") == "stand":
                gate.wait(20)
            return real_append(event, tap=tap)

        monkeypatch.setattr(submit, "WAIT_S", 0.3)  # the simulated hand's wait for the core, as every action's
        monkeypatch.setattr(board.journal, "append", held_append)
        status, _, doc = _post(srv.url, "/api/sim/stands/T1", None, {"occupied": True})
        gate.set()
        assert status == 200 and doc["changed"], (status, doc)
        real_submit({"type": "undo"}, timeout=10)  # behind it: the stand's event is done by now
        assert board.sensors.snapshot().get("T1") is True, "the hand's token was taken back"
        assert board.state.switches["T1"] is True, "the late stand event was not journaled"


def test_the_simulated_camera_and_hand_wait_for_a_busy_core_as_every_action_does(
        client, board: BoardApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """``POST /api/sim/cards`` and ``/api/sim/stands`` answer after :data:`~kipukas_board.web.submit.WAIT_S`
    (under the page's 8 s before it gives up), not after the core's own default: the core here holds
    their events for 2 s, four times the wait, and both are answered while it still does."""
    from kipukas_board.web import submit

    monkeypatch.setattr(submit, "WAIT_S", 0.5)
    gate = threading.Event()
    real_append = board.journal.append
    journaled: list[str] = []

    def held_append(event, tap=None):  # type: ignore[no-untyped-def]
        if event.get("type") in ("card", "stand"):
            gate.wait(2)
            journaled.append(event["type"])
        return real_append(event, tap=tap)

    monkeypatch.setattr(board.journal, "append", held_append)
    try:
        card = client.post("/api/sim/cards", json={"payload": "kpks.us/RrDC#0001?DmFz33", "seat": 1})
        assert journaled == [], "the card was answered only once the core had done it"
        assert card.status_code == 503 and "still under way" in card.get_json()["error"], card.get_json()
        stand = client.post("/api/sim/stands/T1", json={"occupied": True})
        assert journaled == [], "the stand was answered only once the core had done it"
        assert stand.status_code == 200 and stand.get_json()["changed"], stand.get_json()
    finally:
        gate.set()
    board.submit({"type": "undo"}, timeout=10)  # behind them: both are done in their turn
    assert journaled == ["card", "stand"] and board.state.switches["T1"] is True


def test_a_second_undo_tap_while_the_first_is_still_under_way_is_refused_not_queued(
        data_dir, monkeypatch: pytest.MonkeyPatch) -> None:
    """The busy core has not done an undo yet (503 "still under way"), so the board looks as before:
    a second undo tap (another phone, or the same phone's second tap) must be refused with a 409
    saying an undo is under way, not queued to take back a second action; a redo too. The repeat of
    the first tap still waits for its own answer. Once the undo is done, or has failed, undo works
    again: it is never blocked for good."""
    from kipukas_board.store.journal import JournalWriteError
    from kipukas_board.table.events import stand_event
    from kipukas_board.web import submit, taps
    from tests.web_helpers import serve_board

    def undos() -> int:
        return sum(1 for _, e in board.journal.events() if e["type"] == "undo")

    with serve_board(data_dir) as srv:
        board = srv.board
        assert _post(srv.url, "/api/actions/new-game", None, {"players": PLAYERS, "first_placer": 1})[0] == 200
        for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
            board.sim_set_stand(sid, True)
        for _ in range(3):  # three actions undo could take back
            assert _post(srv.url, "/api/actions/roll-dice", None, {"kind": "d6"})[0] == 200

        monkeypatch.setattr(submit, "WAIT_S", 0.3)
        monkeypatch.setattr(taps, "WAIT_S", 0.3)
        gate = threading.Event()
        fail = threading.Event()
        real_append = board.journal.append

        def held_append(event, tap=None):  # type: ignore[no-untyped-def]
            if event.get("type") == "undo":
                gate.wait(20)
                if fail.is_set():
                    raise JournalWriteError("the disk is full")
            return real_append(event, tap=tap)

        monkeypatch.setattr(board.journal, "append", held_append)
        status, _, doc = _post(srv.url, "/api/actions/undo", "undo-a")
        assert status == 503 and "still under way" in doc["error"], (status, doc)
        for path, tap in (("/api/actions/undo", "undo-b"), ("/api/actions/redo", "redo-c"),
                          ("/api/actions/undo", None)):
            status, _, doc = _post(srv.url, path, tap)
            assert status == 409 and "an undo is under way" in doc["error"], (path, tap, status, doc)
        status, _, doc = _post(srv.url, "/api/actions/undo", "undo-a")  # the first tap sent again
        assert status == 503 and "still under way" in doc["error"], (status, doc)

        monkeypatch.setattr(taps, "WAIT_S", 10.0)
        threading.Timer(0.3, gate.set).start()
        status, _, doc = _post(srv.url, "/api/actions/undo", "undo-a")
        assert status == 200 and doc["ok"], (status, doc)
        assert undos() == 1, f"{undos()} undo events journaled for one undo and two refused taps"
        status, _, doc = _post(srv.url, "/api/actions/undo", "undo-b")
        assert status == 409 and "an undo is under way" in doc["error"], "a refused tap sent again: refused again"

        status, _, doc = _post(srv.url, "/api/actions/undo", "undo-d")  # done: undo is free again
        assert status == 200 and doc["ok"] and undos() == 2, (status, doc)

        gate.clear()
        fail.set()  # the next undo is held, then the disk refuses it
        monkeypatch.setattr(taps, "WAIT_S", 0.3)
        status, _, doc = _post(srv.url, "/api/actions/undo", "undo-e")
        assert status == 503, (status, doc)
        status, _, doc = _post(srv.url, "/api/actions/redo", "redo-g")
        assert status == 409 and "an undo is under way" in doc["error"], (status, doc)
        gate.set()
        board.submit(stand_event("T3", True), timeout=10)  # behind the failed undo
        fail.clear()
        status, _, doc = _post(srv.url, "/api/actions/undo", "undo-f")
        assert status == 200 and doc["ok"] and undos() == 3, ("a failed undo left undo blocked", status, doc)


def test_a_duel_undo_under_way_refuses_a_second_one(data_dir, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """The card duel's undo (its own route, the board's undo event) as the table's: while one the busy
    core has not done is under way, a second tap is refused, not queued to take back a second action;
    once it is done, undo works again."""
    from pathlib import Path

    from kipukas_board.cli import main
    from kipukas_board.web import submit, taps
    from tests.web_helpers import serve_board

    decks = Path(__file__).parents[1] / "duel_decks"
    for deck in ("iv8-p1", "iv8-p2"):
        assert main(["catalog", "import", str(decks / f"{deck}.toml"), "--data-dir", str(data_dir)]) == 0
    capsys.readouterr()
    players = [{"seat": 1, "name": "Ana", "color": "#e4572e", "deck": "iv8-p1"},
               {"seat": 2, "name": "Ben", "color": "#1e90ff", "deck": "iv8-p2"}]
    with serve_board(data_dir) as srv:
        board = srv.board

        def undos() -> int:
            return sum(1 for _, e in board.journal.events() if e["type"] == "undo")

        status, _, doc = _post(srv.url, "/api/actions/new-game", None, {"game": "duel", "players": players})
        assert status == 200, doc
        for seat in (1, 2, 1):  # three passes undo could take back
            status, _, doc = _post(srv.url, "/api/actions/duel/pass", None, {"seat": seat})
            assert status == 200, doc

        monkeypatch.setattr(submit, "WAIT_S", 0.3)
        monkeypatch.setattr(taps, "WAIT_S", 0.3)
        gate = threading.Event()
        real_append = board.journal.append

        def held_append(event, tap=None):  # type: ignore[no-untyped-def]
            if event.get("type") == "undo":
                gate.wait(20)
            return real_append(event, tap=tap)

        monkeypatch.setattr(board.journal, "append", held_append)
        status, _, doc = _post(srv.url, "/api/actions/duel/undo", "duel-undo-a")
        assert status == 503 and "still under way" in doc["error"], (status, doc)
        status, _, doc = _post(srv.url, "/api/actions/duel/undo", "duel-undo-b")
        assert status == 409 and "an undo is under way" in doc["error"], (status, doc)

        monkeypatch.setattr(taps, "WAIT_S", 10.0)
        threading.Timer(0.3, gate.set).start()
        status, _, doc = _post(srv.url, "/api/actions/duel/undo", "duel-undo-a")
        assert status == 200 and doc["ok"], (status, doc)
        assert undos() == 1, f"{undos()} undo events journaled for one undo and two refused taps"
        status, _, doc = _post(srv.url, "/api/actions/duel/undo", "duel-undo-c")
        assert status == 200 and doc["ok"] and undos() == 2, (status, doc)
