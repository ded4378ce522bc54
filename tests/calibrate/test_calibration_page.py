"""The calibration page in real Chromium at phone size, through the slips a maker makes.

A real board is served by waitress with anonymous matrix channels (as a sensor board reports them
before calibration); the page's simulated hand puts tokens on stands. Screenshots of each moment are
left in the test's folder (``KIPUKAS_SHOTS=DIR`` keeps them) to be looked at.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from waiting import wait_for
from web_helpers import FrameCamera, serve_again, serve_board, unlock_page

from kipukas_board.calibrate.sensor_walk import BUMP_S
from tests.maptools import map_data, to_toml

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
PlaywrightTimeout = playwright_api.TimeoutError





def shot(page, tmp_path: Path, name: str) -> None:
    folder = Path(os.environ.get("KIPUKAS_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"calibrate-{name}.png"), full_page=False)


def asked(page, stand: str, step: str = "place") -> None:
    page.wait_for_function(
        "([s, st]) => { const p = document.querySelector('#sensor-prompt');"
        " return p.dataset.stand === s && p.dataset.step === st; }", arg=[stand, step], timeout=4000)


def tap(page, stand: str) -> None:
    """The hand: a token put on the stand, or taken off it."""
    page.click(f'[data-stand="{stand}"]')


def put_and_lift(page, stand: str, expect_lift: bool = True) -> None:
    tap(page, stand)
    if expect_lift:
        page.wait_for_function("document.querySelector('#sensor-prompt').dataset.step === 'lift'", timeout=4000)
    tap(page, stand)


def test_a_token_on_the_wrong_stand_is_caught_fixed_in_a_tap_and_checked_before_saving(page, tmp_path):
    with serve_board(tmp_path, channels="matrix") as srv:
        unlock_page(page, srv.url, "/calibrate")
        stands = list(srv.board.loop.state.board.stands)
        page.click("#sensors-start")
        asked(page, "T1")
        assert "target" in page.get_attribute('[data-stand="T1"]', "class")
        put_and_lift(page, "T1")
        asked(page, "M1a")
        put_and_lift(page, "T2")   # the slip: M1a's token goes on T2 ...
        asked(page, "M1b")
        put_and_lift(page, "M1a")  # ... and the maker, one behind now, puts M1b's on M1a
        asked(page, "T2")
        tap(page, "T2")            # T2's sensor was recorded as M1a's: a conflict, shown at once
        page.wait_for_selector("#conflict:not([hidden])", timeout=4000)
        assert "felt a token on M1a, not on T2" in page.text_content("#conflict-text")
        assert "conflict-owner" in page.get_attribute('[data-stand="M1a"]', "class")
        assert page.get_attribute("#sensor-prompt", "data-step") == "place"  # nothing recorded meanwhile
        shot(page, tmp_path, "conflict")
        page.click("#conflict-resolve")  # "It is on T2: walk M1a again"
        page.wait_for_selector("#conflict", state="hidden", timeout=4000)
        asked(page, "T2", "lift")
        tap(page, "T2")
        asked(page, "M1a")               # walked again at once, and M1b after it
        tap(page, "M1a")
        page.wait_for_selector("#conflict:not([hidden])", timeout=4000)
        assert "felt a token on M1b, not on M1a" in page.text_content("#conflict-text")
        page.click("#conflict-resolve")
        asked(page, "M1a", "lift")
        tap(page, "M1a")
        asked(page, "M1b")
        put_and_lift(page, "M1b")
        for sid in stands[stands.index("T2") + 1:]:
            asked(page, sid)
            if sid == "M5b":
                page.click('[data-sensors="skip"]')
                continue
            put_and_lift(page, sid)
        page.wait_for_function("document.querySelector('#sensor-prompt').dataset.step === 'done'", timeout=4000)
        assert "No sensor answered for M5b" in page.text_content("#sensor-flags")
        # The read-back: each touch lights its stand on the map.
        for sid in ("T1", "M1a", "T2"):
            tap(page, sid)
            page.wait_for_function("s => document.querySelector(`[data-stand='${s}']`).classList.contains('touched')",
                                   arg=sid, timeout=4000)
            tap(page, sid)
        page.wait_for_function("document.querySelector('[data-stand=\"T2\"]').classList.contains('cal-verified')",
                               timeout=4000)
        assert "3 of 23 checked" in page.text_content("#sensor-prompt")
        assert "Last: T2." in page.text_content("#sensor-hint")
        assert "cal-dead" in page.get_attribute('[data-stand="M5b"]', "class")
        shot(page, tmp_path, "read-back")
        page.click("#sensors-save")      # open problems: the page asks first
        page.wait_for_selector("#confirm-dialog[open]", timeout=4000)
        items = page.text_content("#confirm-items")
        assert "No sensor answered for M5b." in items and "20 of 24 stands not touched" in items
        shot(page, tmp_path, "save-asks")
        page.click("#confirm-yes")
        page.wait_for_function("document.querySelector('#mapping').textContent === 'sensors calibrated'",
                               timeout=4000)
        sensors = srv.board.sensors
        assert srv.board.channel_map[sensors.channel_for("T2")] == "T2"
        assert srv.board.channel_map[sensors.channel_for("M1a")] == "M1a"
        assert srv.board.channel_map[sensors.channel_for("M1b")] == "M1b"
        assert len(srv.board.channel_map) == len(stands) - 1
        health = srv.board.health()["calibration"]
        assert health["ok"] is False and health["faults"] == ["no sensor for M5b"]
        assert "no sensor for M5b" in page.text_content("#sensor-flags")
        assert page.text_content("#cal-faults") == "1 problem" and page.is_visible("#cal-faults")
        shot(page, tmp_path, "saved")
        page.goto(srv.url + "/")  # the board page says so too
        page.wait_for_selector("#calibration-banner:not([hidden])", timeout=4000)
        assert "cannot see every stand: no sensor for M5b" in page.text_content("#calibration-banner")


def test_start_asks_before_throwing_a_walk_away(page, tmp_path):
    with serve_board(tmp_path, channels="matrix") as srv:
        unlock_page(page, srv.url, "/calibrate")
        page.click("#sensors-start")
        asked(page, "T1")
        put_and_lift(page, "T1")
        asked(page, "M1a")
        page.click("#sensors-start")  # now "Start over"
        page.wait_for_selector("#confirm-dialog[open]", timeout=4000)
        title = page.text_content("#confirm-title")
        assert "at M1a, 1 of 24 stands found" in title and title[0].isupper() and title.endswith("."), title
        assert page.eval_on_selector("#confirm-title", "e => getComputedStyle(e).textTransform") == "none", \
            "a long sentence in capitals"
        shot(page, tmp_path, "start-over-asked")
        page.click("#confirm-no")
        time.sleep(0.3)
        assert srv.board.calibration.sensors.channels  # kept
        page.click('[data-sensors="cancel"]')  # Cancel asks too, once something was found
        page.wait_for_selector("#confirm-dialog[open]", timeout=4000)
        assert "1 stands found so far are lost" in page.text_content("#confirm-items")
        page.click("#confirm-no")
        time.sleep(0.3)
        assert srv.board.calibration.sensors is not None
        page.click("#sensors-start")
        page.wait_for_selector("#confirm-dialog[open]", timeout=4000)
        page.click("#confirm-yes")
        asked(page, "T1")
        assert srv.board.calibration.sensors.channels == {}


def test_redo_a_stand_whose_token_was_left_on_at_the_start(page, tmp_path):
    with serve_board(tmp_path, channels="matrix") as srv:
        srv.board.sim_set_stand("M1a", True)  # a token left on the board
        unlock_page(page, srv.url, "/calibrate")
        page.click("#sensors-start")
        asked(page, "T1")
        assert "closed with no token" in page.text_content("#sensor-flags")
        put_and_lift(page, "T1")
        asked(page, "M1a")
        page.click('[data-sensors="skip"]')  # nothing answers: its reed is the stuck one
        asked(page, "M1b")
        tap(page, "M1a")                      # (the page's hand did not know it was there)
        tap(page, "M1a")                      # the maker lifts the forgotten token ...
        page.select_option("#redo-stand", "M1a")
        page.click("#redo")                   # ... and walks M1a again
        asked(page, "M1a")
        put_and_lift(page, "M1a")
        asked(page, "M1b")
        walk = srv.board.calibration.sensors
        assert walk.dead == [] and walk.stuck == [] and "M1a" in walk.channels.values()


def test_the_fast_walk_on_a_36_stand_board_and_the_moves_it_takes(browser, tmp_path):
    """Both modes through the page on kipuka-12 (36 stands): the moves a maker makes, for the README."""
    moves = {}
    for mode in ("lift", "fast"):
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
        page = ctx.new_page()
        with serve_board(tmp_path / mode, channels="matrix", map_name="kipuka-12") as srv:
            unlock_page(page, srv.url, "/calibrate")
            page.check(f'input[name="mode"][value="{mode}"]')
            page.click("#sensors-start")
            stands = list(srv.board.loop.state.board.stands)
            count, t0 = 0, time.monotonic()
            for sid in stands:
                asked(page, sid)
                if mode == "fast":  # a hand is never within SECOND_REED_S of the last token
                    page.wait_for_timeout(200)
                tap(page, sid)
                count += 1
                if mode == "lift":
                    asked(page, sid, "lift")
                    tap(page, sid)
                    count += 1
            page.wait_for_function("document.querySelector('#sensor-prompt').dataset.step === 'done'", timeout=4000)
            if mode == "fast":  # clearing the board is the read-back
                # a hand reaches the last stand's token long after it put it down; lifted within
                # BUMP_S of that, the walk takes it for a bump and asks for the stand again
                page.wait_for_timeout(BUMP_S * 1000)
                for sid in stands:
                    tap(page, sid)
                    count += 1
                # 36 touches in a row, each through the simulated sensor board and the stream: a
                # ceiling for a loaded machine (they take some 0.02 s); a miss says where
                try:
                    page.wait_for_function(
                        f"document.querySelectorAll('.stand.cal-verified').length === {len(stands)}", timeout=15000)
                except PlaywrightTimeout:
                    unverified = page.eval_on_selector_all(".stand:not(.cal-verified)", "els => els.map(e => "
                                                           "e.dataset.stand + ':' + e.getAttribute('class'))")
                    pytest.fail(f"read-back not shown within 15 s: on the page {unverified}; the walk's "
                                f"by stand {srv.board.calibration.sensors.by_stand()}, switches "
                                f"{dict(srv.board.loop.state.switches)}; page message "
                                f"{page.text_content('#message')!r}")
            moves[mode] = (count, time.monotonic() - t0)
            walk = srv.board.calibration.sensors
            assert len(walk.channels) == 36 and walk.open_items() == []
            page.click("#sensors-save")
            if mode == "lift":  # not read back: asked
                page.wait_for_selector("#confirm-dialog[open]", timeout=4000)
                page.click("#confirm-yes")
            page.wait_for_function("document.querySelector('#mapping').textContent === 'sensors calibrated'",
                                   timeout=4000)
        ctx.close()
    print(f"\n36 stands: lift walk {moves['lift'][0]} moves (no read-back), fast walk {moves['fast'][0]} moves "
          f"(read-back included); page driven in {moves['lift'][1]:.1f} s and {moves['fast'][1]:.1f} s")
    assert moves["lift"][0] == 72 and moves["fast"][0] == 72


def test_a_camera_test_shows_its_read_as_it_happens_even_for_a_card_already_shown(page, tmp_path):
    import cv2
    from _qrgen import qr_tile

    from kipukas_board.hardware.cameras.files import FileCamera

    img = tmp_path / "card.png"
    tile = qr_tile("kpks.us/HMPU#0004?BFxDCJ", px=8)
    cv2.imwrite(str(img), cv2.copyMakeBorder(tile, 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=(200, 200, 200)))
    cam = FileCamera(seat=1, path=img, loop=True)
    with serve_board(tmp_path / "data", cameras=[cam]) as srv:
        deadline = time.monotonic() + 10
        while not srv.board.loop.state.cards and time.monotonic() < deadline:  # already in front of the camera
            time.sleep(0.05)
        assert srv.board.loop.state.cards, "the files camera never read its card"
        unlock_page(page, srv.url, "/calibrate")
        row = '#cameras li[data-seat="1"]'
        page.wait_for_selector(row, timeout=4000)
        page.click(f"{row} button.test")
        page.wait_for_function("r => document.querySelector(r + ' .status').textContent.startsWith('read ')",
                               arg=row, timeout=6000)
        assert "HMPU" in page.text_content(f"{row} .status")
        page.click(f"{row} .preview-toggle")
        page.wait_for_selector(f"{row} img.preview:not([hidden])", timeout=6000)
        # Nothing covers the controls: each button is what a tap at its centre reaches.
        for sel in (f"{row} .preview-toggle", f"{row} button.test", f"{row} button.save"):
            box = page.locator(sel).bounding_box()
            hit = page.evaluate("([x, y]) => document.elementFromPoint(x, y).outerHTML",
                                [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
            assert hit.startswith("<button"), (sel, hit)
        shot(page, tmp_path, "camera-read")
        page.click(f"{row} button.save")
        page.wait_for_function("document.querySelector('#saved').textContent.includes('seat 1')", timeout=4000)
        # Focus and exposure set and saved are shown again after a reload.
        srv.board.calibration.camera_controls(1, 4.5, 8000)
        srv.board.calibration.camera_start(1)
        page.wait_for_function("r => document.querySelector(r + ' .status').textContent.startsWith('read ')",
                               arg=row, timeout=6000)
        page.click(f"{row} button.save")
        page.wait_for_timeout(300)
        page.reload()
        page.wait_for_selector(row, timeout=4000)
        assert page.input_value(f'{row} input[type="number"]') == "8000"
        assert page.input_value(f'{row} input[type="range"]') == "4.5"
        assert not page.is_checked(f'{row} input[type="checkbox"]')


def test_the_led_walk_takes_the_strips_real_length_first(page, tmp_path):
    with serve_board(tmp_path) as srv:
        layout_count = srv.board.strip.count
        unlock_page(page, srv.url, "/calibrate")
        assert page.input_value("#led-count") == str(layout_count)
        page.fill("#led-count", str(layout_count + 12))
        page.click("#leds-start")
        page.wait_for_function("document.querySelector('#led-prompt').dataset.territory === '1'", timeout=4000)
        assert srv.board.strip.count == layout_count + 12
        page.click('[data-leds="shift"][data-by="1"]')  # room at the end now: a shift is not refused
        page.wait_for_function("document.querySelector('#message').textContent.startsWith('Territory 1 now pixels')",
                               timeout=4000)
        assert srv.board.calibration.leds.territories[1][0] == 1


def test_the_board_test_shows_wiring_faults_by_stand_while_it_runs(page, tmp_path):
    """The sensor board's wiring check (asked after each token placed) shows under the board test,
    refreshed while the test runs, by stand."""
    with serve_board(tmp_path / "data", channels="matrix") as srv:
        sensors = srv.board.sensors
        plain = sensors.health
        fault = {"kind": "diode-missing", "channel": 1, "line": None, "channel_name": "r0c1",
                 "text": "r0c1 conducts both ways: its diode is missing or shorted"}
        sensors.health = lambda: {**plain(), "wiring": {"checked": True, "faults": []}}
        unlock_page(page, srv.url, "/calibrate")
        page.click("#board-test-toggle")
        page.wait_for_selector("#board-test-toggle[aria-pressed=true]", timeout=3000)
        assert page.locator("#board-test-wiring li").count() == 0
        sensors.health = lambda: {**plain(), "wiring": {"checked": True, "faults": [fault]}}
        page.wait_for_selector("#board-test-wiring li", timeout=5000)
        shown = page.inner_text("#board-test-wiring li")
        assert shown.startswith("Wiring: stand ") and "diode is missing" in shown
        shot(page, tmp_path, "board-test-wiring")
        page.click("#board-test-toggle")
        page.wait_for_selector("#board-test-toggle[aria-pressed=false]", timeout=3000)
        assert page.locator("#board-test-wiring li").count() == 0


def test_the_map_is_drawn_again_when_the_board_restarts_on_a_redrawn_file_of_the_same_name(browser, tmp_path):
    """Territory 1 renamed and its capital's stand moved up, the map's name the same: the calibration
    page left open puts the new drawing in place of the old one, painted, and taps reach it."""
    drawn = tmp_path / "maps" / "kipuka-8.toml"
    drawn.parent.mkdir()
    drawn.write_text(to_toml(map_data()))
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, bypass_csp=True)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    with serve_board(tmp_path / "data", map_name=str(drawn)) as srv:
        port = int(srv.url.rsplit(":", 1)[1])
        unlock_page(page, srv.url, "/calibrate")
        old = page.get_attribute("#board", "data-revision")
        assert old == srv.board.loop.state.board.revision
        old_hull = page.get_attribute('[data-territory="1"]', "points")
        shot(page, tmp_path, "before-redraw-360x740")
    page.wait_for_selector("#link.down", timeout=5000)
    redrawn = map_data()
    redrawn["territories"][0]["name"] = "Ash Ridge"
    next(st for st in redrawn["stands"] if st["id"] == "T1")["y"] -= 60
    drawn.write_text(to_toml(redrawn))
    with serve_again(tmp_path / "data", port, map_name=str(drawn)) as srv:
        new = srv.board.loop.state.board.revision
        assert new != old
        page.wait_for_selector("#link.up", timeout=15000)
        page.wait_for_function("r => document.getElementById('board').dataset.revision === r", arg=new, timeout=5000)
        assert page.locator("#board").count() == 1
        assert page.get_attribute('[data-territory="1"]', "points") != old_hull
        assert page.text_content('[data-territory="1"] title') == "1 Ash Ridge"
        page.wait_for_function("document.querySelector('[data-territory=\"1\"]').style.fill !== ''", timeout=3000)
        tap(page, "T1")  # the simulated hand reaches the new drawing
        page.wait_for_function("document.querySelector('[data-stand=\"T1\"]').classList.contains('hand')",
                               timeout=3000)
        assert wait_for(lambda: srv.board.loop.state.switches.get("T1"), timeout=5)
        shot(page, tmp_path, "after-redraw-360x740")
    ctx.close()
    assert not errors, errors


def test_the_camera_inputs_take_the_boards_own_limits(page, tmp_path, monkeypatch):
    """The focus and exposure inputs' min and max are the limits the board checks a request with, sent
    with the walk's status: limits changed on the board are the page's at once."""
    from kipukas_board.calibrate import camera_controls

    monkeypatch.setattr(camera_controls, "FOCUS_DIOPTRES", (1.0, 12.5))
    monkeypatch.setattr(camera_controls, "EXPOSURE_US", (200, 500_000))
    with serve_board(tmp_path / "data", cameras=[FrameCamera(seat=1)]) as srv:
        assert srv.board.calibration.status()["camera_limits"] == {
            "focus": {"min": 1.0, "max": 12.5}, "exposure_us": {"min": 200, "max": 500_000}}
        unlock_page(page, srv.url, "/calibrate")
        row = '#cameras li[data-seat="1"]'
        page.wait_for_selector(row, timeout=4000)
        bounds = page.eval_on_selector_all(f"{row} input[type=range], {row} input[type=number]",
                                           "es => es.map((e) => [e.type, e.min, e.max])")
        assert bounds == [["range", "1", "12.5"], ["number", "200", "500000"]]


def _in_view(page, selector: str) -> bool:
    """Whether ``selector`` is on the phone's screen whole, under neither the header nor (outside the
    map) the map held in view above the walk."""
    return page.evaluate("""(sel) => { const e = document.querySelector(sel), r = e.getBoundingClientRect();
        const map = document.getElementById('map');
        const top = e.closest('#map') ? document.querySelector('header').getBoundingClientRect().bottom
                                      : map.getBoundingClientRect().bottom;
        return r.top >= top - 1 && r.bottom <= innerHeight + 1 && r.height > 0; }""", selector)


@pytest.mark.parametrize("size", [(360, 640), (390, 844)])
def test_the_map_stays_in_view_beside_the_walks_prompt(browser, tmp_path, size):
    with serve_board(tmp_path, channels="matrix") as srv:
        ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, bypass_csp=True)
        page = ctx.new_page()
        unlock_page(page, srv.url, "/calibrate")
        page.locator("#sensors-start").scroll_into_view_if_needed()  # the maker scrolled down to the walk
        page.click("#sensors-start")
        asked(page, "T1")
        for stand, after in (("T1", "M1a"), ("M1a", "M1b")):
            assert _in_view(page, "#sensor-prompt"), "the walk's prompt is off the screen"
            assert _in_view(page, f'[data-stand="{stand}"]'), \
                f"the stand the walk asks for ({stand}) is off the screen at {size[0]}x{size[1]}"
            shot(page, tmp_path, f"walk-{stand}-{size[0]}")
            put_and_lift(page, stand)
            asked(page, after)
        page.click('[data-sensors="cancel"]')
        page.click("#confirm-yes")  # "Go ahead": the walk is thrown away
        page.wait_for_function("!document.body.classList.contains('walking')", timeout=4000)
        ctx.close()


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_an_empty_cameras_or_saved_list_says_so_in_a_sentence(browser, tmp_path, size):
    """A board with no camera and no calibration saved: each list's note opens with a capital and ends
    with a full stop, as every empty panel's note on the board's pages does."""
    with serve_board(tmp_path / "data", cameras=[]) as srv:
        ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        unlock_page(page, srv.url, "/calibrate")
        page.wait_for_selector("#cameras li.none", timeout=4000)
        page.wait_for_selector("#saved li.none", timeout=4000)
        assert page.text_content("#cameras li.none") == "No cameras configured."
        assert page.text_content("#saved li.none") == "Nothing saved yet."
        page.locator("#saved-panel").scroll_into_view_if_needed()
        shot(page, tmp_path, f"empty-notes-{size[0]}")
        ctx.close()
        assert not errors, errors
