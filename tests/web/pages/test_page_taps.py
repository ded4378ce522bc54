"""A tap while the phone's link to the board is down is not lost, and is done once (real Chromium, 390 px):
the page keeps it and sends it again with the same tap id (common.js), the board does it once however
often it arrives (web/taps.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from web_helpers import post_action, serve_board, unlock_page

pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

SHOTS = os.environ.get("KIPUKAS_SCREENSHOTS")  # a folder to keep the screenshots in, to look at
PLAYERS = [{"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]


def _in_play(srv) -> None:  # type: ignore[no-untyped-def]
    post_action(srv.url, "/api/actions/new-game", {"players": PLAYERS, "first_placer": 1})
    for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):  # capitals and base camps: day 1, the die may be rolled
        srv.board.sim_set_stand(sid, True)


def _rolls(srv) -> int:  # type: ignore[no-untyped-def]
    return sum(1 for _, _, ev in srv.board.journal.rows() if ev.get("type") == "roll_diel")


def _unlocked(page, url: str) -> None:  # type: ignore[no-untyped-def]
    unlock_page(page, url)
    page.wait_for_function("() => !document.getElementById('bar-roll').disabled", timeout=3000)


def test_a_roll_tapped_offline_is_sent_once_the_link_is_back(page, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _in_play(srv)
        _unlocked(page, srv.url)
        page.context.set_offline(True)
        page.click("#bar-roll")
        page.wait_for_selector("#message.wait", timeout=3000)
        assert "Not sent yet" in page.text_content("#message"), page.text_content("#message")
        assert page.get_attribute("#link", "class") == "pill down", "the dot shows the board does not answer"
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "tap-offline-390.png"))
        assert _rolls(srv) == 0
        page.context.set_offline(False)
        page.wait_for_function("() => document.getElementById('message').textContent === 'Rolled.'", timeout=6000)
        assert _rolls(srv) == 1
        page.wait_for_selector("#link.up", timeout=3000)


def test_a_roll_whose_answer_was_lost_is_not_rolled_twice(page, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _in_play(srv)
        _unlocked(page, srv.url)
        sent: list[str] = []

        def lose_first_answer(route) -> None:  # type: ignore[no-untyped-def]
            sent.append(route.request.headers.get("x-tap", ""))
            if len(sent) == 1:
                route.fetch()  # the board got the tap and rolled ...
                route.abort("connectionreset")  # ... and its answer never came back
            else:
                route.continue_()

        page.route("**/api/actions/roll-diel", lose_first_answer)
        page.click("#bar-roll")
        page.wait_for_function("() => document.getElementById('message').textContent === 'Rolled.'", timeout=6000)
        assert len(sent) == 2 and sent[0] and sent[0] == sent[1], f"sent again with the same tap id: {sent}"
        assert _rolls(srv) == 1, "the tap was rolled twice"


#: The page shown or put out of sight (another tab in front, the screen off), as the browser says it.
SEEN = """(hidden) => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  const state = hidden ? "hidden" : "visible";
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => state });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_pages_out_of_sight_let_their_streams_go_so_more_tabs_still_load(browser, tmp_path: Path) -> None:
    """A browser opens at most 6 connections to the board and each page's event stream holds one for
    good: with five tabs open a sixth did not finish loading (its own stream took the last connection)
    and none had a connection left for a tap. A page out of sight lets its stream go and opens a new
    one when shown again, which brings the board's state as it is then."""
    from waiting import wait_for

    with serve_board(tmp_path / "data") as srv:
        ctx = browser.new_context(viewport={"width": 390, "height": 844})  # one browser: one pool of 6
        tabs = []
        for _ in range(5):
            tab = ctx.new_page()
            tab.goto(srv.url + "/")
            tab.wait_for_selector("#link.up", timeout=5000)
            tabs.append(tab)
        assert wait_for(lambda: srv.board.broadcaster.clients() == 5), srv.board.broadcaster.clients()
        for tab in tabs:
            tab.evaluate(SEEN, True)
        assert wait_for(lambda: srv.board.broadcaster.clients() == 0), "a page out of sight still holds its stream"
        more = [ctx.new_page() for _ in range(2)]
        for tab in more:  # the sixth and the seventh tab load and follow the board
            tab.goto(srv.url + "/", timeout=10000)
            tab.wait_for_selector("#link.up", timeout=5000)
        tabs[0].evaluate(SEEN, False)  # the first tab shown again: a new stream, the state now
        tabs[0].wait_for_selector("#link.up", timeout=5000)
        srv.board.sim_set_stand("T3", True)
        tabs[0].wait_for_selector('[data-stand="T3"].occupied', timeout=5000)
        assert srv.board.broadcaster.clients() == 3
        ctx.close()


def test_a_roll_the_busy_board_is_still_doing_is_asked_for_again_and_rolled_once(
        page, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's core is busy (the roll's journal write is held): the page hears "still under way"
    (503), says so, asks again with the same tap id after Retry-After, and shows the roll once it is
    done; the diel die is rolled once."""
    import threading

    from kipukas_board.web import submit, taps

    monkeypatch.setattr(submit, "WAIT_S", 0.5)
    monkeypatch.setattr(taps, "WAIT_S", 0.5)
    with serve_board(tmp_path / "data") as srv:
        _in_play(srv)
        _unlocked(page, srv.url)
        gate = threading.Event()
        real_append = srv.board.journal.append

        def held_append(event, tap=None):  # type: ignore[no-untyped-def]
            if event.get("type") == "roll_diel":
                gate.wait(20)
            return real_append(event, tap=tap)

        monkeypatch.setattr(srv.board.journal, "append", held_append)
        sent: list[tuple[str, int]] = []
        page.on("response", lambda r: sent.append((r.request.headers.get("x-tap", ""), r.status))
                if r.url.endswith("/api/actions/roll-diel") else None)
        page.click("#bar-roll")
        page.wait_for_selector("#message.wait", timeout=5000)
        said = page.text_content("#message") or ""
        assert "the board is busy and still doing it" in said, said
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "tap-busy-390.png"))
        gate.set()
        page.wait_for_function("() => document.getElementById('message').textContent === 'Rolled.'", timeout=8000)
        assert _rolls(srv) == 1, "the tap was rolled twice"
        assert len(sent) >= 2 and sent[0][1] == 503 and sent[-1][1] == 200, sent
        assert len({tap for tap, _ in sent}) == 1 and sent[0][0], f"asked again with another tap id: {sent}"
