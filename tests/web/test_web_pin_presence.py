"""Past the board-wide wrong-PIN limit, only presence at the table reopens PIN entry, for that phone
(kipukas_board/web/presence.py); device sessions expire by a clock that cannot be set back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kipukas_board.app import BoardApp
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.settings import Settings
from kipukas_board.web.auth import WrongPinLimiter
from kipukas_board.web.server import create_app
from kipukas_board.web.sessions import WebKeys

PIN = "2468"


def _guess(client: Any, pin: str, addr: str, token: str | None = None) -> int:
    headers = {"X-Admin-Pin": pin, **({"X-Presence": token} if token else {})}
    return client.post("/api/pin/check", headers=headers, environ_base={"REMOTE_ADDR": addr}).status_code


def test_past_the_limit_no_address_may_guess_until_presence_is_shown_at_the_table(data_dir: Path) -> None:
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin=PIN)
    board.pins.limiter = WrongPinLimiter(board_limit=3, board_window_s=600)
    board.start()
    try:
        client = create_app(board).test_client()
        statuses = [_guess(client, f"{9000 + i:06d}", f"10.0.{i // 250}.{i % 250}") for i in range(82)]
        assert statuses.count(403) == 3, "wrong PINs checked past the board-wide limit"
        assert set(statuses[3:]) == {429}
        assert _guess(client, PIN, "10.9.9.9") == 429  # the right PIN from a new address waits too
        refused = client.post("/api/pin/check", headers={"X-Admin-Pin": PIN},
                              environ_base={"REMOTE_ADDR": "10.9.9.9"}).get_json()
        assert "/api/pin/presence" in refused["error"]

        # The admin's phone asks which stand to use; a token goes on it and comes off again.
        challenge = client.post("/api/pin/presence", environ_base={"REMOTE_ADDR": "10.9.9.9"}).get_json()
        token, stand = challenge["token"], challenge["stand"]
        assert stand in kipukas_state(board.loop.state).stands and not board.loop.state.switches[stand]
        assert _guess(client, PIN, "10.9.9.9", token) == 429, "no presence shown yet"
        board.sim_set_stand(stand, True)
        assert client.get("/api/pin/presence", headers={"X-Presence": token}).get_json()["stage"] == "token on"
        assert _guess(client, PIN, "10.9.9.9", token) == 429, "a token put on but not lifted is not enough"
        board.sim_set_stand(stand, False)
        assert client.get("/api/pin/presence", headers={"X-Presence": token}).get_json()["stage"] == "proven"

        assert _guess(client, "111111", "10.9.9.10", "forged-token") == 429  # another phone: still closed
        assert _guess(client, "111111", "10.9.9.9", token) == 403  # this phone may try again ...
        assert _guess(client, PIN, "10.9.9.9", token) == 200  # ... and gets in with the right PIN
        assert _guess(client, "222222", "10.9.9.11") == 429  # guessing from the network stays closed
    finally:
        board.stop()


def test_a_proof_admits_only_a_few_tries(data_dir: Path) -> None:
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin=PIN)
    board.pins.limiter = WrongPinLimiter(board_limit=1, board_window_s=600)
    board.start()
    try:
        client = create_app(board).test_client()
        assert _guess(client, "000000", "10.0.0.1") == 403
        token = client.post("/api/pin/presence").get_json()["token"]
        stand = client.get("/api/pin/presence", headers={"X-Presence": token}).get_json()["stand"]
        board.sim_set_stand(stand, True)
        board.sim_set_stand(stand, False)
        assert [_guess(client, f"00000{i}", "10.0.0.1", token) for i in range(1, 5)] == [403, 403, 403, 429]
    finally:
        board.stop()


def test_a_session_does_not_outlive_its_time_when_the_clock_is_set_back(tmp_path: Path) -> None:
    wall = [1_000_000.0]
    mono = [50.0]
    keys = WebKeys(tmp_path, session_s=3600, wall=lambda: wall[0], monotonic=lambda: mono[0])
    cookie = keys.issue("pin")
    assert keys.session_ok(cookie, "pin")
    mono[0] += 3601  # an hour and a second later ...
    wall[0] -= 86_400  # ... with the clock set back a day
    assert not keys.session_ok(cookie, "pin"), "setting the clock back stretched a session"
    # After a restart the clock is read no earlier than the latest time the board had recorded.
    again = WebKeys(tmp_path, session_s=3600, wall=lambda: wall[0], monotonic=lambda: 0.0)
    assert not again.session_ok(cookie, "pin")


def test_the_pin_dialog_walks_a_locked_out_admin_through_presence(browser, tmp_path: Path) -> None:
    """In Chromium at phone size: the PIN refused board-wide, the dialog names a stand, a token goes
    on it and off again (the simulation's hand), and the PIN is taken."""
    import os

    from web_helpers import PIN as PAGE_PIN
    from web_helpers import serve_board

    with serve_board(tmp_path) as srv:
        srv.board.pins.limiter = WrongPinLimiter(board_limit=1, board_window_s=600)
        assert _guess(create_app(srv.board).test_client(), "000000", "10.0.0.66") == 403  # someone guessed
        ctx = browser.new_context(viewport={"width": 360, "height": 740}, bypass_csp=True)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.goto(srv.url + "/")
            page.wait_for_selector("#link.up", timeout=5000)
            page.click("#pin-button")
            page.fill("#pin-input", PAGE_PIN)
            page.click("#pin-ok")
            page.wait_for_selector("#pin-presence:not([hidden])", timeout=3000)
            page.click("#pin-presence-ask")
            page.wait_for_function("document.querySelector('#pin-presence-say').textContent.includes('Put a token on')",
                                   timeout=3000)
            said = page.text_content("#pin-presence-say") or ""
            stand = said.rsplit("(", 1)[1].split(")")[0]
            assert stand in kipukas_state(srv.board.loop.state).stands, said
            assert "the " in said, f"the stand is not named in the map's words: {said}"
            page.screenshot(path=str(tmp_path / "presence-360.png"))
            if os.environ.get("KIPUKAS_SCREENSHOTS"):
                page.screenshot(path=os.path.join(os.environ["KIPUKAS_SCREENSHOTS"], "presence-360.png"))
            srv.board.sim_set_stand(stand, True)
            srv.board.sim_set_stand(stand, False)
            page.wait_for_function("document.querySelector('#pin-presence-say').textContent.includes('Presence shown')",
                                   timeout=4000)
            page.click("#pin-ok")
            page.wait_for_selector("#pin-button.unlocked", timeout=3000)
        finally:
            ctx.close()
        assert not errors, f"JavaScript errors on the page: {errors}"


def test_guests_asking_from_many_addresses_cannot_keep_the_admin_from_a_challenge() -> None:
    from kipukas_board.web.presence import MAX_OPEN, PresenceCheck

    now = [0.0]
    check = PresenceCheck(clock=lambda: now[0])
    stands = {f"S{i}": False for i in range(40)}
    for i in range(MAX_OPEN):  # every place taken by guests, none of whom can touch a token
        check.challenge(f"10.0.0.{i + 1}", stands)
        now[0] += 1
    admin = check.challenge("10.0.1.1", stands)  # the oldest guest's challenge makes room
    check.observe({**stands, admin.stand: True})  # the admin's token goes on ...
    for i in range(3 * MAX_OPEN):  # ... while the guests keep asking from new addresses
        check.challenge(f"10.0.2.{i + 1}", {**stands, admin.stand: True})
    check.observe({**stands, admin.stand: False})  # ... and comes off again
    assert check.admits(admin.token) and check.replaced == 1 + 3 * MAX_OPEN
    assert check.stats() == {"open": MAX_OPEN, "limit": MAX_OPEN, "replaced": 1 + 3 * MAX_OPEN}
