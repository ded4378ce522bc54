"""The page as a table companion, server side: device sessions and the CSRF token across a restart,
safe undo and redo, the log in sentences, the join QR code, the game report and friendly errors."""

from __future__ import annotations

import re

import pytest

from kipukas_board.app import BoardApp
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.settings import Settings
from kipukas_board.web.narrate import describe
from kipukas_board.web.server import create_app
from kipukas_board.web.sessions import COOKIE, WebKeys

PIN = "2468"
PLAYERS = [{"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]


class Board:
    """A board and its test client; :meth:`restart` stops it and starts a new one on the same data."""

    def __init__(self, data_dir):
        self.data_dir = data_dir
        self.board = self.client = None
        self.start()

    def start(self, map_name: str | None = None) -> None:
        settings = Settings(map=map_name) if map_name else Settings()
        self.board = BoardApp(settings, self.data_dir, sim=True, admin_pin=PIN, map_given=map_name is not None)
        self.board.start()
        self.client = create_app(self.board).test_client()

    def restart(self, map_name: str | None = None) -> None:
        """Stop and start again on the same data (with ``map_name``: as ``run --map`` would)."""
        jar = {c.key: c.value for c in self.client._cookies.values()}  # the phone keeps its cookies
        self.board.stop()
        self.start(map_name)
        for name, value in jar.items():
            self.client.set_cookie(name, value)

    @property
    def csrf(self) -> str:
        return self.client.application.extensions["kipukas_keys"].csrf_token

    def act(self, name: str, body: dict | None = None, pin: bool = True):
        headers = {"X-CSRF-Token": self.csrf}
        if pin:
            headers["X-Admin-Pin"] = PIN
        return self.client.post(f"/api/actions/{name}", json=body or {}, headers=headers)


@pytest.fixture
def table(data_dir):
    t = Board(data_dir)
    yield t
    t.board.stop()


def test_right_pin_makes_a_strict_httponly_session_that_survives_a_restart(table):
    c = table.client
    assert table.act("roll-dice", {"kind": "d6"}, pin=False).status_code == 401
    r = c.post("/api/pin/check", headers={"X-Admin-Pin": PIN, "X-CSRF-Token": table.csrf})
    cookie = r.headers["Set-Cookie"]
    assert f"{COOKIE}=" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Max-Age=" in cookie
    assert c.get("/api/pin/status", headers={"X-CSRF-Token": table.csrf}).json["trusted"] is True
    assert table.act("roll-dice", {"kind": "d6"}, pin=False).status_code == 200
    # The cookie alone (no page token, as a form from elsewhere would send it) is not enough.
    assert c.post("/api/actions/roll-dice", json={"kind": "d6"}).status_code == 401
    token_before = table.csrf
    table.restart()
    c = table.client
    assert table.csrf == token_before  # the token an open page holds still works
    r = c.post("/api/actions/roll-dice", json={"kind": "d6"},
               headers={"X-CSRF-Token": token_before, "Origin": "http://localhost"})
    assert r.status_code == 200, r.json  # and the phone is still trusted, without the PIN again
    c.post("/api/pin/forget", json={}, headers={"X-CSRF-Token": table.csrf})
    assert table.act("roll-dice", {"kind": "d6"}, pin=False).status_code == 401


def test_a_session_ends_when_it_expires_when_the_pin_changes_or_when_forged(tmp_path):
    keys = WebKeys(tmp_path, session_s=60)
    cookie = keys.issue("pin-a", now=1000.0)
    assert keys.session_ok(cookie, "pin-a", now=1059.0)
    assert not keys.session_ok(cookie, "pin-a", now=1060.0)  # expired
    assert not keys.session_ok(cookie, "pin-b", now=1001.0)  # the PIN changed
    forged = f"{int(cookie.split('.')[0]) + 10**6}.{cookie.split('.')[1]}"  # a later expiry, same MAC
    assert not keys.session_ok(forged, "pin-a", now=1001.0)
    assert not keys.session_ok("nonsense", "pin-a") and not keys.session_ok(None, "pin-a")
    assert WebKeys(tmp_path).csrf_token == keys.csrf_token  # kept on disk
    assert oct((tmp_path / WebKeys.FILENAME).stat().st_mode & 0o777) == "0o600"


def test_undo_says_what_refuses_a_new_game_without_confirmation_and_redoes(table):
    c = table.client
    assert table.act("new-game", {"players": PLAYERS, "first_placer": 1}).status_code == 200
    info = c.get("/api/undo").json
    assert info["undo"]["action"] == "new_game" and info["undo"]["needs_confirm"]
    assert "Ana, Ben" in info["undo"]["text"] and info["redo"] is None
    r = table.act("undo")
    assert r.status_code == 409 and "confirm" in r.json["error"]
    assert kipukas_state(table.board.loop.state).players  # the game is still there
    for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):  # setup: capitals and base camps
        table.board.sim_set_stand(sid, True)
    state = kipukas_state(table.board.loop.state)
    assert state.phase == "play"
    other = 2 if state.initiative == 1 else 1
    name = {1: "Ana", 2: "Ben"}[other]
    assert table.act("initiative", {"seat": other}).status_code == 200
    info = c.get("/api/undo").json
    assert info["undo"]["text"] == f"{name} took the initiative." and not info["undo"]["needs_confirm"]
    assert table.act("undo").status_code == 200
    assert kipukas_state(table.board.loop.state).initiative != other
    info = c.get("/api/undo").json
    assert info["redo"]["text"] == f"{name} took the initiative."
    assert table.act("redo").status_code == 200
    assert kipukas_state(table.board.loop.state).initiative == other
    assert c.get("/api/undo").json["redo"] is None
    assert table.act("redo").status_code == 409
    # Undo, then something else: what was undone can no longer be redone.
    assert table.act("undo").status_code == 200
    assert table.act("roll-dice", {"kind": "d6"}).status_code == 200
    assert c.get("/api/undo").json["redo"] is None
    # And the new game itself goes only when asked to.
    while c.get("/api/undo").json["undo"]["action"] != "new_game":
        assert table.act("undo").status_code == 200
    assert table.act("undo", {"confirm": "new_game"}).status_code == 200
    assert not kipukas_state(table.board.loop.state).players


def test_redo_survives_a_restart_until_anything_else_is_done(table):
    assert table.act("new-game", {"players": PLAYERS, "first_placer": 1}).status_code == 200
    for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
        table.board.sim_set_stand(sid, True)
    first = kipukas_state(table.board.loop.state).initiative
    other = 2 if first == 1 else 1
    assert table.act("initiative", {"seat": other}).status_code == 200
    assert table.act("roll-diel").status_code == 200
    rolled = (kipukas_state(table.board.loop.state).diel_cycle, kipukas_state(table.board.loop.state).diel_phase)
    assert table.act("undo").status_code == 200 and table.act("undo").status_code == 200
    assert kipukas_state(table.board.loop.state).initiative == first
    table.restart()  # a real restart: a new board on the same data directory
    info = table.client.get("/api/undo").json
    assert info["redo"]["action"] == "take_initiative", info
    assert table.act("redo").status_code == 200 and kipukas_state(table.board.loop.state).initiative == other
    table.restart()
    assert table.client.get("/api/undo").json["redo"]["action"] == "roll_diel"
    assert table.act("redo").status_code == 200
    s = kipukas_state(table.board.loop.state)
    assert (s.diel_cycle, s.diel_phase) == rolled  # the same roll, not a new one
    assert table.client.get("/api/undo").json["redo"] is None
    # Undo, restart, then something else: the offer is gone, and stays gone after another restart.
    assert table.act("undo").status_code == 200
    table.restart()
    assert table.client.get("/api/undo").json["redo"]["action"] == "roll_diel"
    assert table.act("roll-dice", {"kind": "d6"}).status_code == 200
    assert table.client.get("/api/undo").json["redo"] is None
    table.restart()
    assert table.client.get("/api/undo").json["redo"] is None
    assert table.act("redo").status_code == 409


def test_log_is_sentences_with_names_and_what_the_board_said(table):
    table.act("new-game", {"players": PLAYERS, "first_placer": 1})
    table.board.sim_set_stand("T1", True)
    entries = table.client.get("/api/log?limit=5").json["entries"]
    texts = [e["text"] for e in entries]
    assert "New game of Domination for Ana, Ben. Ana places first." in texts
    last = entries[-1]
    assert last["text"] == "A token was placed on stand T1 (simulated)."
    assert any("Ana places a capital on" in s for s in last["said"]), last
    assert describe({"type": "bout", "territory": 3, "winner": 1, "loser": 2, "defeated": 2},
                    {1: "Ana", 2: "Ben"}) == "Ana won a bout against Ben in territory 3, 2 souls of Ben defeated."
    assert not any(re.search(r"\w+=\w+", t) for t in texts)  # no raw key=value fields


def test_join_qr_report_and_friendly_errors(table):
    c = table.client
    r = c.get("/join.svg", headers={"Host": "192.168.7.9:8080"})
    assert r.mimetype == "image/svg+xml" and r.data.startswith(b"<svg")
    assert r.headers["X-Join-Url"] == "http://192.168.7.9:8080/"
    html = c.get("/report").get_data(as_text=True)
    assert "No game has been played" in html
    table.act("new-game", {"players": PLAYERS, "first_placer": 1})
    for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
        table.board.sim_set_stand(sid, True)
    table.act("roll-diel")
    html = c.get("/report").get_data(as_text=True)
    assert "<polyline" in html and "Ana" in html and "Setup is complete" in html
    r = c.get("/no/such/page", headers={"Accept": "text/html"})
    page = r.get_data(as_text=True)
    assert r.status_code == 404 and "<html" in page and "Back to the board" in page
    r = c.get("/api/nothing")
    assert r.status_code == 404 and r.json["error"].startswith("no such endpoint")


def test_new_game_form_offers_only_the_player_counts_the_map_allows(table):
    html = table.client.get("/").get_data(as_text=True)
    dom = re.search(r'<option value="domination"[^>]*data-max="(\d+)" data-why="([^"]*)"', html)
    mass = re.search(r'<option value="mass_contention"[^>]*data-max="(\d+)" data-why="([^"]*)"', html)
    assert dom and dom.group(1) == "2" and dom.group(2).startswith("up to 2 players")
    assert mass and mass.group(1) == "2" and "8 allow 2 players" in mass.group(2)  # kipuka-8


def test_problems_clear_themselves_when_what_they_were_about_moves_on(table):
    c, board = table.client, table.board
    table.act("new-game", {"players": PLAYERS, "first_placer": 1})
    for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
        board.sim_set_stand(sid, True)
    assert table.act("roll-diel").status_code == 200  # cycle 2: the opening night
    assert kipukas_state(board.loop.state).diel_phase == "night"
    board.sim_set_stand("M6a", True)  # a soul moved at night: a problem naming the stand
    open_now = c.get("/api/problems").json["problems"]
    assert [p["stands"] for p in open_now] == [["M6a"]], open_now
    board.sim_set_stand("M6a", False)  # taken back: the problem is over
    assert c.get("/api/problems").json["problems"] == []
    assert not any("M6a" in p for p in board.loop.state.problems)  # the rules dropped it themselves
    board.sim_set_stand("M3a", True)
    assert c.get("/api/problems").json["problems"]
    assert table.act("roll-diel").status_code == 200  # the next cycle begins: everything before is past
    assert c.get("/api/problems").json["problems"] == []


def test_an_undone_new_game_is_not_redone_on_another_map_after_a_restart(table):
    assert table.act("new-game", {"players": PLAYERS, "first_placer": 1}).status_code == 200
    assert table.act("undo", {"confirm": "new_game"}).status_code == 200
    assert table.client.get("/api/undo").json["redo"]["action"] == "new_game"
    assert table.act("redo", {"again": True}).status_code == 400  # redo takes no fields
    table.restart("kipuka-12")  # run --map kipuka-12: another map on the table, a fresh undo stack
    assert table.board.loop.state.board.name == "Kipuka of Twelve"
    assert table.client.get("/api/undo").json["redo"] is None
    assert table.act("redo").status_code == 409 and not kipukas_state(table.board.loop.state).started


def test_redo_offer_is_taken_once(data_dir):
    from kipukas_board.store.journal import Journal
    from kipukas_board.web.redo import RedoStack

    stack = RedoStack(Journal.in_dir(data_dir))
    stack.push({"type": "take_initiative", "seat": 1}, top="kipuka-8#3")
    taken = stack.take("kipuka-8#3")
    assert taken is not None and taken[0]["type"] == "take_initiative" and taken[1] == []
    assert stack.take("kipuka-8#3") is None  # a second tap finds nothing left to take


def test_redo_keeps_as_many_undone_actions_as_a_game_keeps_for_undo():
    from kipukas_board.modes.kipukas.rules.core import UNDO_DEPTH
    from kipukas_board.web.redo import DEPTH

    assert DEPTH >= UNDO_DEPTH, "undo could take back actions redo would forget"
