"""The table's page in real headless Chromium (Debian's package, driven by Playwright).

A real board is served by waitress on a free loopback port with a temporary data directory.
"""

from __future__ import annotations

import os
import time

import pytest
from web_helpers import PIN, post_action, serve_board, unlock_page

from kipukas_board.modes.kipukas.on_table import kipukas_state

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")


CLAIMED_UNKNOWN = "rgb(200, 170, 120)"  # modes/kipukas/lights.py CLAIMED_UNKNOWN: a claim by an unknown holder


def _fill(page, selector: str) -> str:
    return page.eval_on_selector(selector, "e => getComputedStyle(e).fill")


def _wait_fill(page, selector: str, want: str, within_s: float = 1.0) -> float:
    """Seconds until ``selector``'s fill is ``want`` (fails after ``within_s``)."""
    t0 = time.monotonic()
    page.wait_for_function("([s, w]) => getComputedStyle(document.querySelector(s)).fill === w",
                           arg=[selector, want], timeout=within_s * 1000)
    return time.monotonic() - t0


def test_click_stand_colours_territory_via_sse(page, tmp_path):
    with serve_board(tmp_path) as srv:
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        before = _fill(page, '[data-territory="2"]')
        assert before != CLAIMED_UNKNOWN
        page.click('[data-stand="T2"]')  # opens the stand; in simulation its panel has the hand
        page.click("#stand-sim button")
        _wait_fill(page, '[data-territory="2"]', CLAIMED_UNKNOWN)
        assert kipukas_state(srv.board.loop.state).territories[2].claim == "base_camp"
        assert page.get_attribute('[data-stand="T2"]', "data-occupied") == "true"
        # A change made elsewhere (another phone, a real switch) arrives by the stream alone.
        srv.board.sim_set_stand("T2", False)
        _wait_fill(page, '[data-territory="2"]', before)
        page.wait_for_function("document.querySelector('#log').textContent"
                               ".includes('lifted from the territory stand of Fern Hollow')", timeout=3000)


def _new_game_on_the_page(page, style: str = "domination", **options: str) -> None:
    if not page.evaluate("document.getElementById('new-game').open"):
        page.click("#new-game summary")
    page.select_option("#play-style", style)
    for name, value in options.items():
        field = f'#new-game-form [name="{name}"]'
        if name == "territory":
            page.select_option(field, value)
        else:
            page.fill(field, value)
    page.evaluate("document.getElementById('message').hidden = true")
    page.click('#new-game-form button[type="submit"]')
    if page.evaluate("!!document.querySelector('#kb-ask[open]')"):  # a game is running: asked first
        page.click("#kb-ask-yes")
    page.wait_for_selector("#message.ok:not([hidden])", timeout=3000)


def test_new_game_then_claim_takes_the_players_colour(page, tmp_path):
    """New game from the page's form, then the first setup placement: the territory turns the placer's
    colour on this page, by the event stream alone, within a second."""
    with serve_board(tmp_path) as srv:
        unlock_page(page, srv.url)
        _new_game_on_the_page(page)
        page.wait_for_function("document.querySelector('#players').textContent.includes('Player 2')", timeout=2000)
        s = kipukas_state(srv.board.loop.state)
        assert s.phase == "setup" and [p.color for p in s.players] == ["#d7263d", "#1b98e0"]
        placer = s.placer
        assert placer in (1, 2)
        srv.board.sim_set_stand("T1", True)  # the placer's capital goes down on territory 1
        assert kipukas_state(srv.board.loop.state).territories[1].owner == placer
        _wait_fill(page, '[data-territory="1"]', {1: "rgb(215, 38, 61)", 2: "rgb(27, 152, 224)"}[placer], 1.0)


def test_new_game_form_asks_for_what_each_play_style_needs(page, tmp_path):
    with serve_board(tmp_path) as srv:
        unlock_page(page, srv.url)
        page.click("#new-game summary")
        shown = "() => [...document.querySelectorAll('#new-game-form [data-option]')].filter(l => !l.hidden)" \
                ".map(l => l.dataset.option).sort().join(' ')"
        assert page.evaluate(shown) == ""
        page.select_option("#play-style", "coastal_war")
        assert page.evaluate(shown) == "cycles"
        page.select_option("#play-style", "cost_too_great")
        assert page.evaluate(shown) == "soul_limit"
        page.select_option("#play-style", "ends_justify_means")
        assert page.evaluate(shown) == "cycles"
        # how many players each style allows on this map, and why (kipuka-8: 8 territories)
        page.select_option("#play-style", "mass_contention")
        assert "(up to 2)" in page.text_content('#play-style option[value="mass_contention"]')
        assert "8 allow 2 players" in page.text_content("#player-count-note")
        _new_game_on_the_page(page, "king_of_the_hill", territory="4", cycles="3")
        s = kipukas_state(srv.board.loop.state)
        assert s.play_style == "king_of_the_hill" and s.style_options == {"territory": 4, "cycles": 3}
        _new_game_on_the_page(page, "king_of_the_hill", territory="random", cycles="2")
        s = kipukas_state(srv.board.loop.state)
        assert 1 <= s.style_options["territory"] <= 8 and s.style_options["cycles"] == 2


def test_soul_wasted_button_records_the_loss(page, tmp_path):
    with serve_board(tmp_path) as srv:
        unlock_page(page, srv.url)
        ps = [{"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]
        post_action(srv.url, "/api/actions/new-game", {"players": ps, "first_placer": 1})
        for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
            srv.board.sim_set_stand(sid, True)
        post_action(srv.url, "/api/actions/roll-diel", {})
        srv.board.sim_set_stand("M1a", True)  # a soul of seat 1 next to its capital
        page.wait_for_function("document.querySelector('#act-stand option[value=M1a]')", timeout=3000)
        assert page.text_content("#act-stand option[value=M1a]") == "Ana's, the west stand in Ember Ridge"  # no id
        page.select_option("#act-seat", "1")
        page.select_option("#act-stand", "M1a")
        page.select_option("#act-by", "2")
        page.click('[data-action="soul-lost"]')
        page.wait_for_selector("#message.ok", timeout=3000)
        s = kipukas_state(srv.board.loop.state)
        assert s.souls_lost == {1: 1} and s.souls_defeated == {2: 1}
        assert s.stands["M1a"].awaiting == "wasted"


def test_a_sensor_walk_left_open_shows_a_banner_on_the_board_page(page, tmp_path, monkeypatch):
    monkeypatch.setattr("kipukas_board.app.HEALTH_POLL_S", 0.1)
    with serve_board(tmp_path) as srv:
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        assert page.is_hidden("#calibration-banner")
        post_action(srv.url, "/api/calibration/sensors/start", {})  # from another phone, say
        page.wait_for_selector("#calibration-banner:not([hidden])", timeout=2000)
        assert "not reaching the game" in page.text_content("#calibration-banner")
        assert page.get_attribute("#calibration-banner a", "href") == "/calibrate"
        post_action(srv.url, "/api/calibration/sensors/cancel", {})
        page.wait_for_selector("#calibration-banner", state="hidden", timeout=2000)


def test_control_refused_without_pin_happens_once_the_pin_is_given(page, tmp_path):
    with serve_board(tmp_path) as srv:
        page.goto(srv.url + "/calibrate")
        page.wait_for_selector("#link.up", timeout=5000)
        page.click("#sensors-start")
        page.wait_for_selector("#pin-dialog[open]", timeout=2000)  # the action asked for the PIN itself
        assert srv.board.calibration.sensors is None
        page.fill("#pin-input", "0000")
        page.click("#pin-ok")
        page.wait_for_function("document.querySelector('#pin-error').textContent"
                               " === 'Wrong admin PIN: check the digits and try again.'", timeout=3000)
        assert page.evaluate("(() => { const i = document.getElementById('pin-input');"
                             " return i.selectionStart === 0 && i.selectionEnd === i.value.length; })()"), \
            "the wrong digits are selected, to be typed over"
        page.keyboard.type(PIN)
        assert page.input_value("#pin-input") == PIN
        page.fill("#pin-input", PIN)
        page.click("#pin-ok")
        page.wait_for_selector("#pin-button.unlocked", timeout=3000)
        # the tap that asked for the PIN goes through now, without a second tap
        page.wait_for_function("document.querySelector('#sensor-prompt').dataset.stand === 'T1'", timeout=3000)
        assert srv.board.calibration.sensors is not None


def test_sensor_calibration_walk_through_in_simulation(page, tmp_path):
    with serve_board(tmp_path, channels="matrix") as srv:
        unlock_page(page, srv.url, "/calibrate")
        page.click("#sensors-start")
        stands = list(srv.board.loop.state.board.stands)
        for sid in stands:
            page.wait_for_function(
                "s => { const p = document.querySelector('#sensor-prompt');"
                " return p.dataset.stand === s && p.dataset.step === 'place'; }", arg=sid, timeout=3000)
            assert page.get_attribute(f'[data-stand="{sid}"]', "class").endswith("target")
            if sid == "M5b":
                page.click('[data-sensors="skip"]')
                continue
            page.click(f'[data-stand="{sid}"]')  # the hand puts a token on the stand
            page.wait_for_function("document.querySelector('#sensor-prompt').dataset.step === 'lift'", timeout=3000)
            page.click(f'[data-stand="{sid}"]')  # and lifts it
        page.wait_for_function("document.querySelector('#sensor-prompt').dataset.step === 'done'", timeout=3000)
        assert "No sensor answered for M5b" in page.text_content("#sensor-flags")
        page.click("#sensors-save")  # a stand with no sensor and no read-back: the page asks first
        page.wait_for_selector("#confirm-dialog[open]", timeout=3000)
        page.click("#confirm-yes")
        page.wait_for_function("document.querySelector('#mapping').textContent === 'sensors calibrated'",
                               timeout=3000)
        cal_file = tmp_path / "calibration" / "default.toml"
        assert cal_file.exists() and '"M5b"' in cal_file.read_text()
        assert len(srv.board.channel_map) == len(stands) - 1
        # Now the anonymous channels reach the game: a token on T4 claims territory 4.
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        page.click('[data-stand="T4"]')
        page.click("#stand-sim button")
        _wait_fill(page, '[data-territory="4"]', CLAIMED_UNKNOWN)


def test_board_test_button_on_the_calibration_page(browser, tmp_path):
    """The calibration page's board test switch (360 px wide): on, a token lights its stand's pixel
    and stays out of the game, off hands the switches back."""
    with serve_board(tmp_path) as srv:
        ctx = browser.new_context(viewport={"width": 360, "height": 740}, bypass_csp=True)
        page = ctx.new_page()
        try:
            unlock_page(page, srv.url, "/calibrate")
            assert page.text_content("#board-test-toggle") == "Start board test"
            page.click("#board-test-toggle")
            page.wait_for_selector('#board-test-toggle[aria-pressed="true"]', timeout=3000)
            assert "put a token on each stand" in page.text_content("#board-test-state")
            page.click('[data-stand="T2"]')  # the simulated hand
            px = srv.board.layout.stands["T2"][0]
            deadline = time.monotonic() + 3
            while srv.board.strip.pixels()[px] == (0, 0, 0) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert srv.board.strip.pixels()[px][1] > 0 and not srv.board.loop.state.switches["T2"]
            page.locator("#board-test").screenshot(path=str(tmp_path / "board-test-360.png"))
            page.click("#board-test-toggle")
            page.wait_for_selector('#board-test-toggle[aria-pressed="false"]', timeout=3000)
            assert srv.board.board_test.status() == {"on": False}
            if os.environ.get("KIPUKAS_SCREENSHOTS"):
                page.screenshot(path=os.path.join(os.environ["KIPUKAS_SCREENSHOTS"], "board-test-360.png"))
        finally:
            ctx.close()


@pytest.mark.parametrize("viewport", [(390, 844), (1280, 800)])
def test_screenshots_phone_and_laptop(browser, tmp_path, viewport):
    """Not a look test: checks the page fits the viewport's width and leaves PNGs to look at."""
    with serve_board(tmp_path) as srv:
        srv.board.sim_set_stand("T1", True)
        ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})  # CSP on
        csp_errors: list[str] = []
        ctx.on("console", lambda m: csp_errors.append(m.text) if "Content Security Policy" in m.text else None)
        pg = ctx.new_page()
        for path in ("/", "/calibrate"):
            pg.goto(srv.url + path)
            pg.wait_for_selector("#link.up", timeout=5000)
            width = pg.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport[0], f"{path} scrolls sideways at {viewport[0]} px wide ({width} px)"
            name = "board" if path == "/" else "calibrate"
            shots = os.environ.get("KIPUKAS_SCREENSHOTS", str(tmp_path))
            pg.screenshot(path=os.path.join(shots, f"{name}-{viewport[0]}x{viewport[1]}.png"), full_page=True)
        ctx.close()
        assert not csp_errors, f"the page breaks its own Content-Security-Policy: {csp_errors}"


def test_board_text_is_never_run_as_html(page, tmp_path):
    """Text that reaches the page (here a problem naming a bogus stand) shows as text, never runs."""
    from kipukas_board.table.events import stand_event

    evil = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">'
    with serve_board(tmp_path) as srv:
        srv.board.loop.submit(stand_event(evil, True))  # the initial JSON in the page carries it
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        srv.board.loop.submit(stand_event(evil + "2", True))  # and so does the stream
        page.wait_for_function("document.querySelector('#problems').textContent.includes('pwned=2\">2')",
                               timeout=3000)
        assert page.evaluate("window.pwned") is None
        assert page.locator("#problems img").count() == 0


def test_camera_preview_and_focus_in_chromium(page, tmp_path):
    """The live preview is a real PNG Chromium decodes (blue stays blue: BGR → RGB done right)."""
    pytest.importorskip("numpy")
    from web_helpers import FrameCamera

    cam = FrameCamera(seat=1)
    with serve_board(tmp_path, cameras=[cam]) as srv:
        unlock_page(page, srv.url, "/calibrate")
        row = '#cameras li[data-seat="1"]'
        page.click(f"{row} .preview-toggle")
        page.wait_for_function("s => { const i = document.querySelector(s); return !i.hidden && i.naturalWidth > 0; }",
                               arg=f"{row} img.preview", timeout=3000)
        rgb = page.evaluate("""s => { const i = document.querySelector(s);
            const c = document.createElement('canvas'); c.width = i.naturalWidth; c.height = i.naturalHeight;
            const g = c.getContext('2d'); g.drawImage(i, 0, 0);
            return [Array.from(g.getImageData(2, 2, 1, 1).data), Array.from(g.getImageData(c.width - 2, 2, 1, 1).data),
                    c.width, c.height]; }""", f"{row} img.preview")
        assert rgb[0][:3] == [0, 0, 255] and rgb[1][:3] == [0, 0, 0] and rgb[2:] == [64, 48]
        page.click(f"{row} .preview-toggle")  # stop polling
        page.uncheck(f'{row} input[type="checkbox"]')
        page.fill(f'{row} input[type="range"]', "7.5")
        page.fill(f'{row} input[type="number"]', "8000")
        page.click(f'{row} button:has-text("Apply")')
        page.wait_for_function("s => document.querySelector(s).textContent.includes('settings applied')",
                               arg=f"{row} .status", timeout=3000)
        assert cam.controls[-1] == {"focus": 7.5, "exposure_us": 8000}


def test_panels_show_what_the_rules_and_scanning_put_in_the_state(page, tmp_path):
    """Players, counts, questions, contention, timers, cards, initiative, winner: all from real events
    (actions, simulated switches and a simulated camera), drawn from the state the stream sends."""
    from kipukas_board.cards.catalog import Catalog

    Catalog.in_dir(tmp_path).import_records([{
        "code": "HMPU", "slug": "ember-wyrm", "title": "Ember <i>Wyrm</i>", "type": "Species", "habitat": "volcanic",
        "injury_tolerance": 3, "movement": 2, "keal_means": []}])
    with serve_board(tmp_path) as srv:
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        b, url = srv.board, srv.url
        ps = [{"seat": 1, "name": "Ana <b>", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]
        post_action(url, "/api/actions/new-game", {"players": ps, "first_placer": 1})
        for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):  # capitals 1 / 8, base camps 2, 7 / 5, 4
            b.sim_set_stand(sid, True)
        assert kipukas_state(b.loop.state).phase == "play"
        post_action(url, "/api/actions/roll-diel", {})  # the opening day
        b.sim_set_stand("M6a", True)  # a token next to nobody's territory: the board asks whose it is
        b.sim_set_stand("M2a", True)
        # Ben's, in Ana's 2
        post_action(url, "/api/actions/correction", {"target": "stand", "stand": "M2a", "owner": 2})
        post_action(url, "/api/actions/timer", {"label": "Set-aside card", "cycles": 5, "seat": 1})
        post_action(url, "/api/sim/cards", {"payload": "kpks.us/HMPU#0004?BFxDCJ", "seat": 2})
        s = kipukas_state(b.loop.state)
        assert s.questions and s.territories[2].contention and s.timers and s.cards
        page.wait_for_function("document.querySelector('#cards').textContent.includes('Wyrm')", timeout=3000)
        assert page.locator("#players b").count() == 0  # the name is text, not markup
        assert page.text_content('#players li[data-seat="1"] .count') == "3 territories"
        assert page.text_content("#diel") == f"{s.diel_phase} {s.diel_cycle}"
        assert page.text_content("#now") == "Answer the board's question first."  # before all else
        asked = page.text_content("#questions")  # the question with the stand in words, not its id
        assert "Whose soul token is on the stand in Sunflats towards Fern Hollow and Mossdeep?" in asked
        assert "M6a" not in asked
        assert page.locator("#questions .buttons button").count() == len(s.questions[-1]["options"])
        assert "2 Fern Hollow" in page.text_content("#contention")
        assert page.locator("#contention button").count() == 2
        assert page.get_attribute('[data-territory="2"]', "class").endswith("contention")
        due = s.diel_cycle + 5
        assert page.text_content("#timers") == f"Set-aside card (Ana <b>): due in cycle {due}, 5 cycles left"
        card = page.text_content('#cards .card[data-seat="2"]')
        assert "Ben: Ember <i>Wyrm</i>" in card and "volcanic" in card
        assert "ember-wyrm" not in card and "slug" not in card.lower()  # what is printed on it, no internals
        post_action(url, "/api/actions/end-game", {"winner": 1})
        page.wait_for_selector("#winner:not([hidden])", timeout=3000)
        assert page.text_content("#winner") == "Ana <b> wins"
