"""The new-game form's map note in real headless Chromium at 360 px: a map whose calibration file was
refused (a hand edit with a mistake) says the file was not applied and why, not "not calibrated yet";
the map list marks it apart from a map with no file. Screenshots go to ``$KIPUKAS_SCREENSHOTS``
(default: the test's tmp dir)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from web_helpers import serve_board

from kipukas_board.board.mapfile import load_map
from kipukas_board.show.layout import map_calibration_path

pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")


def _note(page) -> str:
    return page.text_content("#map-note") or ""


def test_a_refused_calibration_file_is_named_in_the_map_note_with_its_reason(page, tmp_path) -> None:
    eight = load_map("kipuka-8")
    cal = map_calibration_path("default", tmp_path, eight)
    cal.parent.mkdir(parents=True, exist_ok=True)
    cal.write_text(f'board = "{eight.name}"\n[[cameras]]\nseat = 1\nfocus = 99\n')  # a hand edit gone wrong
    page.set_viewport_size({"width": 360, "height": 740})
    with serve_board(tmp_path) as srv:
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        page.click('#actionbar a[href="#controls-panel"]')
        page.click("#new-game summary")
        page.wait_for_function("document.getElementById('map-note').textContent.includes('not applied')",
                               timeout=3000)
        note = _note(page)
        assert note.startswith("Map: Kipuka of Eight. The calibration file was not applied: "
                               "[[cameras]] #1 (seat 1): focus = 99: expected dioptres"), note
        # the board's own sentence (the one scan and bench-pi say), not one the page words itself
        said = srv.board.health()["calibration"]["refused_note"]
        assert note == f"Map: Kipuka of Eight. {said[0].upper()}{said[1:].removesuffix('.')}.", (note, said)
        assert "not calibrated yet" not in note and str(cal) not in note  # short: the health row has the path
        banner = page.text_content("#calibration-banner .text") or ""  # the same sentence, not a second wording
        assert banner.startswith(f"{said[0].upper()}{said[1:].removesuffix('.')}."), banner
        health = page.text_content('#health [data-part="calibration"] summary') or ""
        assert "calibration needs attention" in health and str(cal) in health and "focus = 99" in health
        assert "(file refused)" in page.text_content('#map-pick option[value="kipuka-8"]')
        assert "(uncalibrated)" in page.text_content('#map-pick option[value="kipuka-12"]')  # no file at all
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.locator("#map-note").scroll_into_view_if_needed()
        shots = os.environ.get("KIPUKAS_SCREENSHOTS", str(tmp_path))
        page.screenshot(path=os.path.join(shots, "map-note-refused-360x740.png"))

        # The board picks another map with no file: the note says that one is not calibrated yet.
        srv.board.pick_map("kipuka-12")
        page.wait_for_function("document.getElementById('map-name') && "
                               "document.getElementById('map-name').textContent === 'Kipuka of Twelve'", timeout=8000)
        page.wait_for_function("document.getElementById('map-note').textContent.includes('not calibrated yet')",
                               timeout=3000)
        assert "not applied" not in _note(page)


def test_the_page_words_no_refusal_of_its_own() -> None:
    """The refused file's sentence is the board's (``health.calibration.refused_note``), so the page,
    ``scan`` and ``bench-pi`` cannot drift apart."""
    import kipukas_board
    from kipukas_board.calibrate.camera_controls import AUTOMATIC, describe, not_applied

    board_js = (Path(kipukas_board.__file__).parent / "modes" / "kipukas" / "static" / "board.js").read_text()
    assert "calibration file was not applied" not in board_js and "refused_note" in board_js
    assert "calibration was not applied" not in board_js  # the banner's error says itself what waits
    assert describe({}, refused="focus = 99: ...") == f"{AUTOMATIC}; {not_applied('focus = 99: ...')}"
