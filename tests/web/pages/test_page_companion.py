"""The table's page as a companion, in real headless Chromium at phone sizes (360x740, 390x844):
what to do now, the map drawn from the state with light effects that end, safe undo, corrections from
a tapped stand, a page that keeps working across a board restart, the phone layout, and axe-core's
accessibility rules (npm package, installed by scripts/run-tests) on the board, new-game and
calibration pages. Screenshots go to ``$KIPUKAS_SCREENSHOTS`` (default: the test's tmp dir).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from web_helpers import post_action, serve_again, serve_board, unlock_page

from kipukas_board.modes.kipukas.on_table import kipukas_state
from tests.maptools import map_data, to_toml

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
ROOT = Path(__file__).resolve().parents[3]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def _need(ok: bool, why: str) -> None:
    if ok:
        return
    if os.environ.get("KIPUKAS_REQUIRE_TOOLS") == "1":  # CI installs everything: a skip would hide a failure
        pytest.fail(why, pytrace=False)
    pytest.skip(why)


PHONES = [(360, 740), (390, 844)]
PLAYERS = [{"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]
SETUP = ("T1", "T8", "T2", "T7", "T5", "T4")  # capitals 1 / 8, then base camps 2, 7 / 5, 4 (first placer 1)


def _context(browser, size, bypass_csp=True):
    """A phone. ``bypass_csp``: Playwright's wait_for_function evaluates strings, which the page's CSP
    forbids (test_page_browser.py checks the pages keep their own CSP)."""
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, bypass_csp=bypass_csp,
                              device_scale_factor=1, is_mobile=True, has_touch=True)
    return ctx


def _shot(page, tmp_path, name: str, full: bool = False) -> None:
    shots = os.environ.get("KIPUKAS_SCREENSHOTS", str(tmp_path))
    page.screenshot(path=os.path.join(shots, f"{name}.png"), full_page=full)


def _game_in_play(srv) -> None:
    post_action(srv.url, "/api/actions/new-game", {"players": PLAYERS, "first_placer": 1})
    for sid in SETUP:
        srv.board.sim_set_stand(sid, True)
    assert kipukas_state(srv.board.loop.state).phase == "play"


def _wait_text(page, selector: str, text: str, timeout: float = 3000, prop: str = "textContent") -> None:
    """Wait until ``selector``'s ``prop`` (textContent, title) includes ``text``."""
    page.wait_for_function("([s, t, p]) => (document.querySelector(s)[p] || '').includes(t)",
                           arg=[selector, text, prop], timeout=timeout)


def _fill(page, selector: str) -> str:
    return page.eval_on_selector(selector, "e => getComputedStyle(e).fill")


def _layout_ok(page, width: int) -> None:
    """Nothing wider than the phone; an opaque header of at most 64 px; the action bar on screen."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    header = page.evaluate("""() => { const h = document.querySelector('header'); const r = h.getBoundingClientRect();
        return [r.height, getComputedStyle(h).backgroundColor]; }""")
    assert header[0] <= 64, f"header is {header[0]} px tall"
    assert header[1].startswith("rgb(") and "rgba" not in header[1], f"header background {header[1]} is see-through"
    bar = page.evaluate("() => document.getElementById('actionbar').getBoundingClientRect().bottom")
    assert bar <= page.viewport_size["height"] + 0.5  # the main actions need no scrolling
    wide = page.evaluate("""w => [...document.querySelectorAll('body *')].filter(e => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.right > w + 1 && getComputedStyle(e).position !== 'fixed'; })
        .map(e => e.tagName + '#' + e.id).slice(0, 5)""", width)
    assert not wide, f"elements reach past {width} px: {wide}"
    cut = page.evaluate("""() => [...document.querySelectorAll('header h1, header .pill, header button')]
        .filter(e => e.offsetWidth > 0 && e.scrollWidth > e.clientWidth + 1)
        .map(e => `${e.id || e.tagName}: ${e.textContent}`)""")
    assert not cut, f"the header cuts {cut}"  # every pill shown whole (an ellipsis hides what it says)
    top = page.evaluate("""() => { const y = window.scrollY; window.scrollTo(0, document.body.scrollHeight);
        const top = document.querySelector('header').getBoundingClientRect().top;
        window.scrollTo(0, y); return top; }""")
    assert top == 0, f"the header scrolled away (top {top} px)"  # it stays on screen, sticky


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_whole_setup_and_cycle_say_what_to_do_now(browser, tmp_path, size):
    with serve_board(tmp_path) as srv:
        ctx = _context(browser, size)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        unlock_page(page, srv.url)
        assert "No game yet" in page.text_content("#now")
        _layout_ok(page, size[0])
        _shot(page, tmp_path, f"companion-empty-{size[0]}x{size[1]}")
        # New game from the page: the map and the players the style allows, and why.
        page.click('#actionbar a[href="#controls-panel"]')
        page.click("#new-game summary")
        assert page.is_hidden("#roll-actions") and page.is_hidden("#seat-actions")  # no game: nothing to roll
        assert page.is_hidden("#bout-form") and page.is_visible("#bout-none")  # no soul in a territory yet
        assert page.is_disabled("#add-player")  # Domination: 2 players
        note = page.text_content("#player-count-note")  # how many, and why not more
        assert note.startswith("2 players on Kipuka of Eight; not 3 or more: "), note
        assert page.text_content("#play-style-summary") == "Hold every base camp and capital on the map."
        assert page.is_disabled('.player-row button[aria-label="remove seat 2"]'), "a ✕ that does nothing"
        page.select_option("#play-style", "mass_contention")
        assert "8 allow 2 players" in page.text_content("#player-count-note")  # kipuka-8: 8 territories
        _layout_ok(page, size[0])
        _shot(page, tmp_path, f"companion-new-game-{size[0]}x{size[1]}")
        page.select_option("#play-style", "domination")
        page.click('#new-game-form button[type="submit"]')
        _wait_text(page, "#now", "place your capital", 3000)
        s = kipukas_state(srv.board.loop.state)
        placer = s.placer
        name = {1: "Player 1", 2: "Player 2"}[placer]
        assert page.text_content("#now").startswith(f"{name}: place your capital")
        _wait_text(page, "#now-why", "D6 for first placement", 3000)  # who places first, and why: the dice are shown
        for i, sid in enumerate(SETUP):
            srv.board.sim_set_stand(sid, True)
            if i == 1:
                _wait_text(page, "#now", "place a base camp", 3000)
        _wait_text(page, "#now", "initiative: play, then roll", 3000)
        assert "Cycle 1. Day" in page.text_content("#now-why")  # setup ends in the opening day
        page.wait_for_selector("#roll-actions", state="visible", timeout=3000)  # in play: a physical roll
        assert "Cycle 2 is fixed: night" in page.text_content("#now-why")
        # Capitals and base camps read differently; the holder's colour is on the token.
        assert page.text_content('[data-mark="T1"]') == "★" and page.text_content('[data-mark="T2"]') == "⌂"
        assert "capital" in page.get_attribute('[data-stand="T1"]', "class")
        # Two quick presses of Roll advance one cycle.
        page.click("#bar-roll")
        page.click("#bar-roll", force=True)
        page.wait_for_function("document.querySelector('#diel').textContent === 'night 2'", timeout=3000)
        time.sleep(0.5)
        assert kipukas_state(srv.board.loop.state).diel_cycle == 2
        _wait_text(page, "#caption", "Night 2", 3000)
        assert "Souls may not move" in page.text_content("#now-why")
        _layout_ok(page, size[0])
        _shot(page, tmp_path, f"companion-play-{size[0]}x{size[1]}")
        _shot(page, tmp_path, f"companion-play-full-{size[0]}x{size[1]}", full=True)
        ctx.close()
        assert not errors, errors


def test_storm_and_win_effects_end_and_the_map_shows_the_holders_again(browser, tmp_path):
    """The lights flash white in a storm and chase on a win; the page shows both as passing overlays,
    and the map underneath shows the holders' colours again within 2 s."""
    with serve_board(tmp_path) as srv:
        ctx = _context(browser, PHONES[1], bypass_csp=True)  # wait_for_function evaluates strings
        page = ctx.new_page()
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        _game_in_play(srv)
        # Day 1: a soul lifted from its stand is "in hand": drawn dashed with a ?, owner still known.
        srv.board.sim_set_stand("M1a", True)
        srv.board.sim_set_stand("M1a", False)
        page.wait_for_function("() => document.querySelector('[data-stand=\"M1a\"]').classList.contains('in-hand')",
                               timeout=3000)
        assert page.text_content('[data-mark="M1a"]') == "?"
        srv.board.sim_set_stand("M1a", True)
        for _ in range(2):  # the rest of the fixed opening
            post_action(srv.url, "/api/actions/roll-diel", {})
        red = "rgb(215, 38, 61)"
        page.wait_for_function("c => getComputedStyle(document.querySelector('[data-territory=\"1\"]')).fill === c",
                               arg=red, timeout=3000)
        # (how soon, measured: tests/page_effects_bench.py)
        seq = srv.board.loop.state.seq
        post_action(srv.url, "/api/actions/roll-diel", {"phase": "storm"})
        page.wait_for_selector("#fx.fx-storm", timeout=3000)  # the storm is shown...
        page.wait_for_function("() => document.getElementById('fx').className === ''", timeout=3000)
        assert srv.board.loop.state.seq == seq + 1  # ...and over by itself, with no later change to repaint
        assert _fill(page, '[data-territory="1"]') == red and _fill(page, '[data-territory="8"]') == "rgb(27, 152, 224)"
        assert "storm" in page.text_content("#caption").lower()
        # The web rules: "Initiative does not apply to storm rolls": greyed out, the rules' reason beside it
        assert page.is_disabled('#seat-actions [data-action="initiative"]')
        assert page.text_content("#initiative-why") == "Initiative does not apply to storm rolls; it carries over."
        post_action(srv.url, "/api/actions/end-game", {"winner": 1})
        page.wait_for_selector("#fx.fx-won", timeout=3000)
        page.wait_for_function("() => document.getElementById('fx').className === ''", timeout=3000)
        assert _fill(page, '[data-territory="1"]') == red
        assert page.text_content("#winner") == "Ana wins" and "Ana won" in page.text_content("#now")
        ctx.close()


def test_undo_asks_first_names_what_and_redo_brings_it_back(browser, tmp_path):
    with serve_board(tmp_path) as srv:
        ctx = _context(browser, PHONES[0])
        page = ctx.new_page()
        unlock_page(page, srv.url)
        _game_in_play(srv)
        seat = 2 if kipukas_state(srv.board.loop.state).initiative == 1 else 1
        post_action(srv.url, "/api/actions/initiative", {"seat": seat})
        name = {1: "Ana", 2: "Ben"}[seat]
        _wait_text(page, "#bar-undo", "took the initiative", 3000, "title")
        page.click("#bar-undo")
        page.wait_for_selector("#confirm-dialog[open]", timeout=2000)
        _wait_text(page, "#confirm-text", f"Undo this? {name} took the initiative.", 3000)
        _shot(page, tmp_path, "companion-undo-confirm-360x740")
        page.click("#confirm-no")
        assert kipukas_state(srv.board.loop.state).initiative == seat  # nothing undone without a yes
        page.click("#bar-undo")
        page.click("#confirm-yes")
        page.wait_for_selector("#bar-redo:not([disabled])", timeout=3000)
        assert kipukas_state(srv.board.loop.state).initiative != seat
        page.click("#bar-redo")
        page.wait_for_selector("#bar-redo[disabled]", timeout=3000)
        assert kipukas_state(srv.board.loop.state).initiative == seat
        # Back to the new game: it is named, and goes only with a clear yes.
        while kipukas_state(srv.board.loop.state).undo[-1].action != "new_game":
            post_action(srv.url, "/api/actions/undo", {})
        _wait_text(page, "#bar-undo", "New game", 3000, "title")
        page.click("#bar-undo")
        _wait_text(page, "#confirm-text", "Undo the new game itself?", 3000)
        page.click("#confirm-yes")
        _wait_text(page, "#now", "No game yet", 3000)
        ctx.close()


def test_a_tapped_stand_shows_what_the_board_believes_and_corrects_it(browser, tmp_path):
    with serve_board(tmp_path) as srv:
        ctx = _context(browser, PHONES[1])
        page = ctx.new_page()
        unlock_page(page, srv.url)
        _game_in_play(srv)
        post_action(srv.url, "/api/actions/roll-diel", {})
        srv.board.sim_set_stand("M6a", True)  # a soul next to nobody's territory: the board asks whose
        q = kipukas_state(srv.board.loop.state).questions[-1]
        page.wait_for_selector("#questions-panel:not([hidden])", timeout=3000)
        answers = page.locator("#questions .buttons button").all_text_contents()
        assert sorted(answers) == ["Ana", "Ben"]  # by name, not seat number
        assert "asked" in page.get_attribute('[data-stand="M6a"]', "class")
        assert page.evaluate("document.getElementById('questions-panel').getBoundingClientRect().top") < \
            page.evaluate("document.getElementById('map').getBoundingClientRect().top")  # near the top
        page.click('#questions .buttons button:has-text("Ben")')
        page.wait_for_selector("#questions-panel", state="hidden", timeout=3000)
        assert kipukas_state(srv.board.loop.state).stands["M6a"].owner == 2 and not any(x["id"] == q["id"] for x in
                                                                       kipukas_state(srv.board.loop.state).questions)
        # The tap on the stand: what the board believes, and the fix (Ana's soul after all).
        page.dispatch_event('[data-hit="M6a"]', "click")
        page.wait_for_selector("#stand-panel:not([hidden])", timeout=2000)
        _wait_text(page, "#stand-info", "A soul of Ben", 3000)
        _shot(page, tmp_path, "companion-stand-390x844")
        page.select_option("#fix-owner", "1")
        page.click('#correct-form button[type="submit"]')
        _wait_text(page, "#stand-info", "A soul of Ana", 3000)
        assert kipukas_state(srv.board.loop.state).stands["M6a"].owner == 1
        assert "selected" in page.get_attribute('[data-stand="M6a"]', "class")
        # The night move is a problem near the top until the soul goes back (the page fetches the open
        # problems after each change, so the list is waited for, not read at once).
        night = "the stand in Sunflats towards Fern Hollow and Mossdeep during the night"
        _wait_text(page, "#problems", night, 3000)
        srv.board.sim_set_stand("M6a", False)
        page.wait_for_selector("#problems-panel", state="hidden", timeout=3000)
        ctx.close()


def test_an_open_page_keeps_working_across_a_board_restart(browser, tmp_path):
    """The page keeps its CSRF token and the phone its device session: after the board restarts the
    next tap works without a reload and without the PIN."""
    with serve_board(tmp_path) as srv:
        port = int(srv.url.rsplit(":", 1)[1])
        ctx = _context(browser, PHONES[1])
        page = ctx.new_page()
        unlock_page(page, srv.url)
        _game_in_play(srv)
        _wait_text(page, "#now", "roll the diel die", 3000)
    page.wait_for_selector("#link.down", timeout=5000)  # the board is gone
    with serve_again(tmp_path, port) as srv:
        page.wait_for_selector("#link.up", timeout=15000)  # the stream came back by itself
        page.click("#bar-roll")
        # The roll's own words (shown only when the board took it; a toast that hides after 3 s, so its
        # text is waited for, not its being shown), then the roll drawn from the new board's stream.
        _wait_text(page, "#message", "Rolled.", 5000)
        assert page.get_attribute("#message", "class") == "ok"
        _wait_text(page, "#diel", "night 2", 5000)
        assert kipukas_state(srv.board.loop.state).diel_cycle == 2
        # Still unlocked as the new board sees the phone (the page asks it when its stream opens).
        token = page.get_attribute('meta[name="csrf-token"]', "content")  # the page's own, from before
        assert page.request.get(srv.url + "/api/pin/status", headers={"X-CSRF-Token": token}).json()["trusted"]
        page.wait_for_selector("#pin-button.unlocked", timeout=3000)
        ctx.close()


def test_an_open_page_draws_the_map_again_when_the_board_restarts_on_a_redrawn_file(browser, tmp_path):
    """The same map name, territory 1 renamed and its capital's stand moved up: the page left open
    puts the new drawing in place of the old one, and keeps the open stand panel and the PIN being
    typed; the stand's words follow the new name, and a tap on the new drawing still opens a stand."""
    drawn = tmp_path / "maps" / "kipuka-8.toml"
    drawn.parent.mkdir()
    drawn.write_text(to_toml(map_data()))
    with serve_board(tmp_path, map_name=str(drawn)) as srv:
        port = int(srv.url.rsplit(":", 1)[1])
        ctx = _context(browser, PHONES[0])
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        unlock_page(page, srv.url)
        _game_in_play(srv)
        _wait_text(page, "#now", "roll the diel die", 3000)
        old = page.get_attribute("#board", "data-revision")
        assert old == srv.board.loop.state.board.revision
        old_hull = page.get_attribute('[data-territory="1"]', "points")
        old_label = page.get_attribute('[data-label="1"]', "y")
        page.dispatch_event('[data-hit="M1a"]', "click")
        _wait_text(page, "#stand-title", "Ember Ridge", 2000)
        page.locator("#map").screenshot(path=os.path.join(os.environ.get("KIPUKAS_SCREENSHOTS", str(tmp_path)),
                                                          "companion-map-before-redraw-360x740.png"))
        page.click("#pin-button")
        page.fill("#pin-input", "13")  # half a PIN typed when the board goes away
    page.wait_for_selector("#link.down", timeout=5000)
    redrawn = map_data()
    redrawn["territories"][0]["name"] = "Ash Ridge"
    t1 = next(st for st in redrawn["stands"] if st["id"] == "T1")
    t1["y"] -= 60
    drawn.write_text(to_toml(redrawn))
    with serve_again(tmp_path, port, map_name=str(drawn)) as srv:
        new = srv.board.loop.state.board.revision
        assert new != old and kipukas_state(srv.board.loop.state).phase == "play"  # the game goes on
        page.wait_for_selector("#link.up", timeout=15000)
        page.wait_for_function("r => document.getElementById('board').dataset.revision === r", arg=new, timeout=5000)
        assert page.get_attribute('[data-territory="1"]', "points") != old_hull
        assert page.get_attribute('[data-label="1"]', "y") != old_label  # the label moved up with the stand
        assert page.text_content('[data-territory="1"] title') == "1 Ash Ridge"
        assert page.locator("#board").count() == 1
        # What the player was doing is still there: the PIN dialog with its digits, the stand panel.
        assert page.eval_on_selector("#pin-dialog", "d => d.open")
        assert page.input_value("#pin-input") == "13"
        page.click("#pin-cancel")
        assert page.is_visible("#stand-panel")
        _wait_text(page, "#stand-title", "Ash Ridge", 2000)  # its words follow the renamed territory
        assert "selected" in page.get_attribute('[data-stand="M1a"]', "class")  # marked on the new drawing
        # The claims are painted on the new drawing (territory 1 is Ana's capital)
        assert _fill(page, '[data-territory="1"]') == "rgb(215, 38, 61)"
        page.locator("#map").screenshot(path=os.path.join(os.environ.get("KIPUKAS_SCREENSHOTS", str(tmp_path)),
                                                          "companion-map-after-redraw-360x740.png"))
        page.dispatch_event('[data-hit="M2b"]', "click")  # taps reach the new drawing
        _wait_text(page, "#stand-title", "Fern Hollow", 2000)
        ctx.close()
        assert not errors, errors


def test_unknown_pages_and_a_board_that_does_not_answer_are_said_plainly(browser, tmp_path):
    with serve_board(tmp_path) as srv:
        ctx = _context(browser, PHONES[0])
        page = ctx.new_page()
        page.clock.install()  # the page's own clock, so its 20 s of sending a tap again pass at once
        resp = page.goto(srv.url + "/no-such-page")
        assert resp.status == 404 and "no page at /no-such-page" in page.text_content("main")
        _layout_ok_plain = page.evaluate("document.documentElement.scrollWidth")
        assert _layout_ok_plain <= PHONES[0][0]
        unlock_page(page, srv.url)
        _game_in_play(srv)
        page.wait_for_function("!document.querySelector('#bar-roll').disabled", timeout=3000)
    page.click("#bar-roll")
    page.wait_for_selector("#message.wait:not([hidden])", timeout=5000)  # the tap is kept and sent again
    assert "Not sent yet: the board does not answer" in page.text_content("#message")
    page.clock.run_for(21_000)
    page.wait_for_selector("#message.error:not([hidden])", timeout=5000)  # given up after 20 s
    assert page.text_content("#message").startswith("Not done: the board did not answer for 20 s."), \
        page.text_content("#message")
    assert "Tap again once the dot at the top is green" in page.text_content("#message")
    ctx.close()


def test_new_game_picks_another_map_and_plays_its_first_placement(browser, tmp_path):
    with serve_board(tmp_path) as srv:
        ctx = _context(browser, PHONES[1])
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        unlock_page(page, srv.url)
        page.click('#actionbar a[href="#controls-panel"]')
        page.click("#new-game summary")
        assert "uncalibrated" in page.text_content('#map-pick option[value="kipuka-12"]')
        page.select_option("#map-pick", "kipuka-12")
        # The board changes its map; the page loads itself again on it, new game open.
        page.wait_for_function("document.getElementById('map-name') && "
                               "document.getElementById('map-name').textContent === 'Kipuka of Twelve'", timeout=8000)
        page.wait_for_selector("#new-game[open]", timeout=3000)
        page.wait_for_selector("#link.up", timeout=5000)
        assert srv.board.loop.state.board.name == "Kipuka of Twelve"
        assert page.eval_on_selector("#map-pick", "e => e.value") == "kipuka-12"
        assert page.locator("#map svg [data-territory]").count() >= 12  # the new map is drawn
        _wait_text(page, "#map-note", "Kipuka of Twelve is not calibrated yet")
        assert "this map is not calibrated yet" in page.text_content('#health [data-part="calibration"]')
        page.select_option("#play-style", "mass_contention")  # 11 holdable territories: 3 players
        assert page.text_content("#player-count-note").startswith("2 to 3 players on Kipuka of Twelve; not 4 or more")
        page.click("#add-player")
        assert page.locator(".player-row").count() == 3 and page.is_disabled("#add-player")
        assert page.is_enabled('.player-row button[aria-label="remove seat 1"]'), "three seats: one may go"
        _layout_ok(page, PHONES[1][0])
        _shot(page, tmp_path, "companion-map-picked-390x844")
        page.click('#new-game-form button[type="submit"]')
        _wait_text(page, "#now", "place your capital", 4000)
        s = kipukas_state(srv.board.loop.state)
        assert s.board.name == "Kipuka of Twelve" and len(s.players) == 3
        first = next(st.id for st in s.board.stands.values() if st.kind == "territory")
        page.dispatch_event(f'[data-hit="{first}"]', "click")  # the simulated hand, on the page
        page.wait_for_selector("#stand-panel:not([hidden])", timeout=2000)
        page.click('#stand-sim button:has-text("Put a token")')
        page.wait_for_function("sid => document.querySelector(`[data-stand='${sid}']`).classList.contains('capital')",
                               arg=first, timeout=4000)
        assert kipukas_state(srv.board.loop.state).placements == 1
        assert page.is_disabled("#map-pick")  # a game runs: the map stays, and the page says why
        _wait_text(page, "#map-note", "The map cannot change now: a game of Kipukas is under way")
        ctx.close()
        assert not errors, errors


@pytest.mark.parametrize("path", ["/", "/calibrate", "/report"])
def test_axe_finds_nothing_serious_or_critical(browser, tmp_path, path):
    _need(AXE.exists(), f"{AXE} is missing: run `npm ci` in {ROOT} (scripts/run-tests does)")
    with serve_board(tmp_path) as srv:
        ctx = _context(browser, PHONES[1], bypass_csp=True)  # axe is injected as a script
        page = ctx.new_page()
        unlock_page(page, srv.url, "/calibrate" if path == "/calibrate" else "/")  # controls show unlocked
        if path != "/calibrate":
            _game_in_play(srv)
            post_action(srv.url, "/api/actions/roll-diel", {})
            srv.board.sim_set_stand("M6a", True)  # a question on the page
        page.goto(srv.url + path)
        if path == "/":  # the board page with its new-game form open: both checked at once
            page.click("#new-game summary")
        page.wait_for_timeout(600)
        page.add_script_tag(path=str(AXE))
        result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
        bad = [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
               for v in result["violations"] if v["impact"] in ("serious", "critical")]
        assert not bad, "\n".join(bad)
        ctx.close()
