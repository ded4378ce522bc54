"""The card duel's page in real headless Chromium at phone sizes: a new duel, cards shown to a seat's
camera and picked on the page, each card's contribution shown beside it, the turn passed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from web_helpers import serve_board, unlock_page

from kipukas_board.cli import main

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")


SHOTS = os.environ.get("KIPUKAS_SCREENSHOTS")
DECKS = Path(__file__).parents[2] / "duel_decks"




def _text(page, selector: str, want: str) -> None:
    page.wait_for_function("([s, w]) => (document.querySelector(s) || {}).textContent?.includes(w)",
                           arg=[selector, want], timeout=3000)


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_a_turn_on_the_page(browser, tmp_path: Path, size: tuple[int, int]) -> None:
    data = tmp_path / "data"
    for deck in ("iv8-p1", "iv8-p2"):
        assert main(["catalog", "import", str(DECKS / f"{deck}.toml"), "--data-dir", str(data)]) == 0
    shots = Path(SHOTS) if SHOTS else tmp_path
    with serve_board(data) as srv:
        ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})  # CSP on
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        unlock_page(page, srv.url, "/duel")  # the PIN once: a device session
        assert page.text_content("#duel-phase") == "No duel: start one under Controls."
        page.wait_for_function("document.querySelectorAll('#duel-new-players select option').length >= 4")
        page.select_option('#duel-new-players fieldset[data-seat="1"] select', "iv8-p1")
        page.select_option('#duel-new-players fieldset[data-seat="2"] select', "iv8-p2")
        page.fill('#duel-new-players fieldset[data-seat="1"] [name=name]', "Ana")
        page.click('#duel-new-game-form button[type="submit"]')
        _text(page, "#duel-phase", "turn 1 · Ana")
        seat1 = '.seat[data-seat="1"]'
        assert page.text_content(f'{seat1} [data-pile="pool"]').strip() == "5 pool"
        for card in ("punch", "strong-punch"):
            srv.board.card_desk.present(1, f"duel:{card}")  # stickers shown at seat 1's camera
        page.wait_for_selector(f'{seat1} [data-card="strong-punch#1"]', timeout=3000)
        assert "“or” effect" in page.text_content("#duel-play-how")  # the play form's words are explained
        page.select_option("#duel-play-card", "final-punch")
        page.click('#duel-play button[type="submit"]')
        page.wait_for_selector(f'{seat1} [data-card="final-punch#1"]', timeout=3000)
        _text(page, f"{seat1} .attack", "attack 25")
        assert "after Punch" in page.text_content(f'{seat1} [data-card="strong-punch#1"] .card-why')
        assert page.text_content(f'{seat1} [data-card="final-punch#1"] .card-num') == "atk 10"
        assert page.locator(f"{seat1} .heart.up").count() == 3
        page.screenshot(path=str(shots / f"duel-line-{size[0]}.png"), full_page=True)
        page.click("#duel-pass")
        _text(page, "#duel-phase", "turn 2 · Player 2")
        _text(page, '.seat[data-seat="2"] [data-pile="pool"]', "7 pool")
        _text(page, "#duel-caption", "Turn 2")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size[0], f"the page scrolls sideways at {size[0]} px ({width} px wide)"
        page.screenshot(path=str(shots / f"duel-turn2-{size[0]}.png"), full_page=True)
        ctx.close()
        assert not errors, f"JavaScript or Content-Security-Policy errors on the page: {errors}"


def test_a_problem_is_shown_at_the_top_and_no_empty_panel_otherwise(browser, tmp_path: Path) -> None:
    data = tmp_path / "data"
    for deck in ("iv8-p1", "iv8-p2"):
        assert main(["catalog", "import", str(DECKS / f"{deck}.toml"), "--data-dir", str(data)]) == 0
    with serve_board(data) as srv:
        ctx = browser.new_context(viewport={"width": 390, "height": 844})  # CSP on
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        unlock_page(page, srv.url, "/duel")
        assert page.is_hidden("#duel-problems-panel"), "an empty Problems panel is shown"
        page.wait_for_function("document.querySelectorAll('#duel-new-players select option').length >= 4")
        page.select_option('#duel-new-players fieldset[data-seat="2"] select', "iv8-p2")
        page.click('#duel-new-game-form button[type="submit"]')
        _text(page, "#duel-phase", "turn 1")
        # every empty panel's note (no terrain, an empty line, free hands) reads as a sentence, as on the
        # Kipukas page
        empty = page.eval_on_selector_all(".none", "els => els.map((e) => e.textContent.trim())")
        assert len(empty) >= 5, f"the empty panels say nothing: {empty}"  # the terrain, each seat's line and hands
        assert all(t[:1].isupper() and t.endswith(".") for t in empty), empty
        srv.board.card_desk.present(2, "duel:punch")  # shown at the seat whose turn it is not
        page.wait_for_selector("#duel-problems-panel:not([hidden])", timeout=3000)
        top = page.evaluate("document.getElementById('duel-problems-panel').getBoundingClientRect().top")
        assert 0 <= top < 844 / 2, f"the problem is told at {top} px, not near the top of the screen"
        told = page.text_content("#duel-problems li") or ""
        assert told[:1].isupper(), f"the problem does not read as a sentence: {told!r}"
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "duel-problem-390.png"))
        ctx.close()
        assert not errors, errors
