"""A page out of sight (another tab in front, the phone's screen off) in real headless Chromium at 390 px
(CSP on): it lets its event stream go (common.js) and, shown again, shows the board as a page opened
then would, its own tap made meanwhile done once, and it never opens streams in a loop.

Headless Chromium never puts a page out of sight by itself (a tab brought in front of it, a minimised
window and a background tab all leave it "visible"), so these tests say so as the browser would:
``document.hidden`` and a ``visibilitychange`` event (``SEEN``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_page_table import _phone, _set_up
from test_page_taps import SEEN
from waiting import wait_for
from web_helpers import post_action, serve_board, unlock_page

pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

SHOTS = os.environ.get("KIPUKAS_SCREENSHOTS")  # a folder to keep the screenshots in, to look at
AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"


def _streams(page) -> list[str]:  # type: ignore[no-untyped-def]
    """The stream requests the page makes, counted as they go out."""
    opened: list[str] = []
    page.on("request", lambda r: opened.append(r.url) if r.url.endswith("/api/stream") else None)
    return opened


def _as_opened_now(browser, url: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """What a phone opening the page now reads: the what-now line, the diel die, the caption."""
    ctx, page, errors = _phone(browser, (390, 844))
    page.goto(url + "/")
    page.wait_for_selector("#link.up", timeout=5000)
    page.wait_for_timeout(900)  # the caption is recalled from the log
    seen = _read(page)
    ctx.close()
    assert not errors, errors
    return seen


def _read(page) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {k: page.text_content(sel) or "" for k, sel in (("now", "#now"), ("diel", "#diel"), ("caption", "#caption"))}


def test_a_page_shown_again_reads_as_one_opened_now_and_its_own_tap_is_done_once(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, (390, 844))
        opened = _streams(page)
        unlock_page(page, srv.url, "/")
        _set_up(srv)
        page.wait_for_function("() => document.getElementById('caption').textContent.includes('Setup is complete')",
                               timeout=3000)
        page.wait_for_function("() => !document.getElementById('bar-roll').disabled", timeout=3000)
        opened.clear()  # (the page loaded twice to take the PIN)
        # the phone's own roll, its answer still on the way as the screen goes off
        page.evaluate("() => document.getElementById('bar-roll').click()")  # its answer comes once out of sight
        page.evaluate(SEEN, True)
        assert wait_for(lambda: srv.board.broadcaster.clients() == 0), "a page out of sight holds its stream"
        wait_for(lambda: sum(1 for *_, e in srv.board.journal.rows() if e.get("type") == "roll_diel") == 1)
        post_action(srv.url, "/api/actions/roll-diel", {})  # another phone rolls on meanwhile
        page.wait_for_timeout(1500)
        assert not opened, f"a page out of sight opened streams: {opened}"
        page.evaluate(SEEN, False)
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_timeout(900)
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "shown-again-390.png"))
        rolls = [e for *_, e in srv.board.journal.rows() if e.get("type") == "roll_diel"]
        assert len(rolls) == 2, f"the phone's roll was done {len(rolls) - 1} times"
        assert _read(page) == _as_opened_now(browser, srv.url), "shown again, the page reads otherwise than a new one"
        assert len(opened) == 1 and wait_for(lambda: srv.board.broadcaster.clients() == 1), opened
        ctx.close()
        assert not errors, errors


def test_a_screen_off_for_a_second_mid_fight_comes_back_right(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, (390, 844))
        opened = _streams(page)
        unlock_page(page, srv.url, "/")
        _set_up(srv)
        post_action(srv.url, "/api/actions/roll-diel", {})  # the opening night
        post_action(srv.url, "/api/actions/roll-diel", {})  # the opening's last day
        srv.board.sim_set_stand("M4b", True)  # a soul in Ben's Grey Peaks ...
        post_action(srv.url, "/api/actions/correction", {"target": "stand", "stand": "M4b", "owner": 1})  # ... is Ana's
        page.wait_for_selector("#contention-panel:not([hidden])", timeout=5000)
        page.wait_for_timeout(600)
        opened.clear()
        fight = _read(page)
        assert fight["now"] == "Ana and Ben fight over Grey Peaks (4): tap who won.", fight
        page.evaluate(SEEN, True)  # a second of screen off: nothing happens meanwhile
        page.wait_for_timeout(1000)
        page.evaluate(SEEN, False)
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_timeout(600)
        assert _read(page) == fight and page.is_visible("#contention-panel")
        page.evaluate(SEEN, True)  # and a second in which another phone settles the fight
        post_action(srv.url, "/api/actions/resolve-contention", {"territory": 4, "winner": 2})
        page.wait_for_timeout(1000)
        page.evaluate(SEEN, False)
        page.wait_for_selector("#contention-panel", state="hidden", timeout=5000)
        page.wait_for_timeout(900)
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "fight-settled-while-off-390.png"))
        assert _read(page) == _as_opened_now(browser, srv.url)
        assert len(opened) == 2, opened
        ctx.close()
        assert not errors, errors


def test_a_page_shown_and_hidden_quickly_opens_one_stream_each_time_and_none_while_hidden(browser,
                                                                                         tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, (390, 844))
        opened = _streams(page)
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        for _ in range(10):
            page.evaluate(SEEN, True)
            page.wait_for_timeout(50)
            page.evaluate(SEEN, False)
            page.wait_for_timeout(50)
        page.wait_for_selector("#link.up", timeout=5000)
        assert wait_for(lambda: srv.board.broadcaster.clients() == 1), srv.board.broadcaster.clients()
        assert len(opened) == 11, f"{len(opened)} streams opened for 10 showings"
        page.evaluate(SEEN, True)
        page.wait_for_timeout(3500)  # the board's stream would have come back by itself by now
        streams = srv.board.broadcaster.clients()
        assert len(opened) == 11 and streams == 0, (len(opened), streams)
        ctx.close()
        assert not errors, errors


def test_a_page_shown_again_does_not_say_live_before_its_new_stream_is(browser, tmp_path: Path) -> None:
    """Shown again after minutes out of sight, the page still draws the board as it was; its dot must
    not say "live" until the new stream has opened (on a slow link, seconds), or the old state reads
    as the board's now."""
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, (390, 844))
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        page.evaluate(SEEN, True)
        page.route("**/api/stream", lambda route: None)  # the new stream is slow to come: never answered here
        page.evaluate(SEEN, False)
        page.wait_for_timeout(300)
        link = page.get_attribute("#link", "class"), page.text_content("#link")
        assert link == ("pill down", "connecting…"), link
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "shown-again-connecting-390.png"), clip={"x": 0, "y": 0,
                                                                                        "width": 390, "height": 120})
        page.unroute("**/api/stream")
        ctx.close()
        assert not errors, errors


def _said_after(url: str, seq: int, before: int | None = None) -> list[str]:
    """What the board said in Kipukas for each event after journal number ``seq`` (and up to ``before``),
    oldest first, as its log has it."""
    import json
    import urllib.request

    with urllib.request.urlopen(f"{url}/api/log?limit=40", timeout=10) as resp:
        entries = json.loads(resp.read())["entries"]
    return [" ".join(e["said"]) for e in entries
            if seq < e["seq"] <= (before or e["seq"]) and e["said"] and e["game"] == "kipukas"]


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_a_page_shown_again_shows_what_the_board_said_meanwhile_newest_last_each_once(browser, tmp_path: Path,
                                                                                      size) -> None:
    """A player who looked away reads what the board said meanwhile, not only its last words: the last
    five events' lines, newest last (the newest in the caption, as on a page opened now), each once;
    the next thing said live takes their place (the log keeps them)."""
    with serve_board(tmp_path / "data") as srv:
        ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, bypass_csp=True)  # axe is injected
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        unlock_page(page, srv.url, "/")
        _set_up(srv)
        page.wait_for_function("() => document.getElementById('caption').textContent.includes('Setup is complete')",
                               timeout=3000)
        page.wait_for_timeout(600)  # the log is read after the state: nothing recalled as missed
        assert page.is_hidden("#caption-missed"), "a page in sight all along missed nothing"
        away_from = srv.board.journal.last_seq()
        page.evaluate(SEEN, True)
        assert wait_for(lambda: srv.board.broadcaster.clients() == 0), "a page out of sight holds its stream"
        for _ in range(7):  # another phone plays on: each diel roll is said
            post_action(srv.url, "/api/actions/roll-diel", {})
        said = _said_after(srv.url, away_from)
        assert len(said) == 7, said
        page.evaluate(SEEN, False)
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_selector("#caption-missed:not([hidden])", timeout=3000)
        page.wait_for_timeout(300)
        shown = page.eval_on_selector_all("#caption-missed-list li", "ls => ls.map((l) => l.textContent)")
        assert shown == said[-5:-1], shown
        assert page.text_content("#caption") == said[-1]
        assert _read(page)["caption"] == _as_opened_now(browser, srv.url)["caption"]
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"shown-again-missed-{size[0]}.png"))
        if AXE.exists():  # the list shown, with axe-core's tap target and label-in-name rules on
            page.add_script_tag(path=str(AXE))
            found = page.evaluate("() => axe.run('#now-panel', {resultTypes: ['violations'], rules: {"
                                  "'target-size': {enabled: true}, 'label-content-name-mismatch': {enabled: true}}})")
            assert not found["violations"], [(v["id"], v["help"], [n["target"] for n in v["nodes"]][:3])
                                             for v in found["violations"]]
        page.evaluate(SEEN, True)  # away again, nothing said meanwhile: nothing shown twice
        page.wait_for_timeout(300)
        page.evaluate(SEEN, False)
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_timeout(900)
        again = page.eval_on_selector_all("#caption-missed-list li", "ls => ls.map((l) => l.textContent)")
        assert again == shown and page.text_content("#caption") == said[-1], again
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size[0], f"the page scrolls sideways at {size[0]} px ({width} px wide)"
        post_action(srv.url, "/api/actions/roll-diel", {})  # said live, in sight: the missed lines go
        page.wait_for_selector("#caption-missed", state="hidden", timeout=3000)
        assert page.text_content("#caption") == _said_after(srv.url, away_from)[-1]
        page.evaluate(SEEN, True)  # away once more, two things said: read, then put away with a tap
        for _ in range(2):
            post_action(srv.url, "/api/actions/roll-diel", {})
        page.evaluate(SEEN, False)
        page.wait_for_selector("#caption-missed:not([hidden])", timeout=5000)
        page.wait_for_timeout(300)
        shown = page.eval_on_selector_all("#caption-missed-list li", "ls => ls.map((l) => l.textContent)")
        assert shown == _said_after(srv.url, away_from)[-2:-1], shown
        page.click("#caption-missed-hide")
        page.wait_for_selector("#caption-missed", state="hidden", timeout=3000)
        assert page.text_content("#caption") == _said_after(srv.url, away_from)[-1]
        ctx.close()
        assert not errors, errors


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_the_duel_page_shown_again_shows_what_was_said_meanwhile(browser, tmp_path: Path, size) -> None:
    """The card games' pages too: a duel played on by other phones while this one was out of sight, its
    turns said meanwhile are listed above the caption, newest last, each once; the page opened with the
    duel under way lists nothing (the news before it is not missed)."""
    import json
    import urllib.request

    from test_page_table import DECKS

    from kipukas_board.cli import main

    data = tmp_path / "data"
    for deck in ("iv8-p1", "iv8-p2"):
        assert main(["catalog", "import", str(DECKS / f"{deck}.toml"), "--data-dir", str(data)]) == 0

    def events_after(url: str, seq: int) -> list[str]:  # the state's duel captions, one line per event
        with urllib.request.urlopen(f"{url}/api/state", timeout=10) as resp:
            caps = [c for c in json.loads(resp.read())["captions"] if c["game"] == "duel" and c["seq"] > seq]
        lines: dict[int, list[str]] = {}
        for c in caps:
            lines.setdefault(c["seq"], []).append(c["text"])
        return [" ".join(v) for _, v in sorted(lines.items())]

    with serve_board(data) as srv:
        post_action(srv.url, "/api/actions/new-game", {"game": "duel", "players": [
            {"seat": 1, "name": "Ana", "color": "#e4572e", "deck": "iv8-p1"},
            {"seat": 2, "name": "Ben", "color": "#1e90ff", "deck": "iv8-p2"}]})
        post_action(srv.url, "/api/actions/duel/pass", {"seat": 1})
        ctx, page, errors = _phone(browser, size)
        page.goto(srv.url + "/duel")
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_function("() => document.getElementById('duel-caption').textContent !== ''", timeout=3000)
        assert page.is_hidden("#duel-missed"), "a page opened now missed nothing"
        away_from = srv.board.journal.last_seq()
        page.evaluate(SEEN, True)
        assert wait_for(lambda: srv.board.broadcaster.clients() == 0), "a page out of sight holds its stream"
        for seat in (2, 1, 2):  # the duel goes on: each turn is said
            post_action(srv.url, "/api/actions/duel/pass", {"seat": seat})
        said = events_after(srv.url, away_from)
        assert len(said) >= 3, said
        page.evaluate(SEEN, False)
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_selector("#duel-missed:not([hidden])", timeout=3000)
        shown = page.eval_on_selector_all("#duel-missed-list li", "ls => ls.map((l) => l.textContent)")
        assert shown == said[-5:-1], shown
        assert page.text_content("#duel-caption") == said[-1], "the caption is the last event's words, whole"
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"duel-shown-again-missed-{size[0]}.png"))
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size[0], f"the page scrolls sideways at {size[0]} px ({width} px wide)"
        page.click("#duel-missed-hide")
        page.wait_for_selector("#duel-missed", state="hidden", timeout=3000)
        ctx.close()
        assert not errors, errors


def test_kipukas_news_from_before_the_page_was_opened_is_not_listed_as_missed(browser, tmp_path: Path) -> None:
    """A Kipukas page opened while a duel is played (Kipukas paused), then out of sight while Kipukas is
    resumed and played on: shown again, it lists what was said since it was opened, never the Kipukas
    news from before it was (that was not missed by this page; the log has it)."""
    from test_page_table import DECKS

    from kipukas_board.cli import main

    data = tmp_path / "data"
    for deck in ("iv8-p1", "iv8-p2"):
        assert main(["catalog", "import", str(DECKS / f"{deck}.toml"), "--data-dir", str(data)]) == 0
    with serve_board(data) as srv:
        _set_up(srv)  # Kipukas says a good deal during setup
        before = srv.board.journal.last_seq()
        post_action(srv.url, "/api/actions/new-game", {"game": "duel", "players": [
            {"seat": 1, "name": "Ana", "color": "#e4572e", "deck": "iv8-p1"},
            {"seat": 2, "name": "Ben", "color": "#1e90ff", "deck": "iv8-p2"}]})
        ctx, page, errors = _phone(browser, (390, 844))
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_timeout(900)  # the log is read after the state
        assert page.text_content("#caption") == "", "the Kipukas page told another game's news"
        page.evaluate(SEEN, True)
        assert wait_for(lambda: srv.board.broadcaster.clients() == 0), "a page out of sight holds its stream"
        opened_at = srv.board.journal.last_seq()
        post_action(srv.url, "/api/actions/resume", {})
        for _ in range(2):
            post_action(srv.url, "/api/actions/roll-diel", {})
        said = _said_after(srv.url, opened_at)
        assert len(_said_after(srv.url, 0, before)) >= 5, "Kipukas said too little before to fill the list"
        page.evaluate(SEEN, False)
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_function("() => document.getElementById('caption').textContent !== ''", timeout=3000)
        page.wait_for_timeout(300)
        shown = page.eval_on_selector_all("#caption-missed-list li", "ls => ls.map((l) => l.textContent)")
        assert shown == said[-5:-1] and page.text_content("#caption") == said[-1], (shown, said)
        ctx.close()
        assert not errors, errors
