"""Creature Combat Territory's page in real headless Chromium at phone sizes: a new game, lands dealt,
deploy, a creature revealed by a scanned sticker and one picked on the page (the reveal form offering
only the chosen player's ready creatures, turning to whoever has not revealed yet), two adjustments that add
up (the second with a Sacrifice cost), the tally."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cct_decks import write_decks
from web_helpers import serve_board, unlock_page

from kipukas_board.cli import main

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")


#: Where the screenshots go (KIPUKAS_SCREENSHOTS=DIR keeps them to look at; a temporary folder otherwise).
SHOTS = os.environ.get("KIPUKAS_SCREENSHOTS")




@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_a_round_on_the_page(browser, tmp_path: Path, size: tuple[int, int]) -> None:
    data = tmp_path / "data"
    for deck in write_decks(tmp_path):
        assert main(["catalog", "import", str(deck), "--data-dir", str(data)]) == 0
    shots = Path(SHOTS) if SHOTS else tmp_path
    with serve_board(data) as srv:
        ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, bypass_csp=True)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        unlock_page(page, srv.url, "/creature-combat")  # the PIN once: a device session
        assert page.text_content("#cc-phase") == "No game: start one under Controls."
        page.wait_for_function("document.querySelectorAll('#cc-new-players select option').length >= 8")
        page.select_option('#cc-new-players fieldset[data-seat="2"] select', "ben")
        page.click('#cc-new-game-form button[type="submit"]')
        page.wait_for_function("document.getElementById('cc-phase').textContent === 'round 1 · round begin'",
                               timeout=3000)
        assert srv.board.loop.state.game == "creature-combat"
        # every empty panel's note (a land slot not dealt yet, no land tallied) reads as a sentence, as on the
        # Kipukas page
        empty = page.eval_on_selector_all(".none", "els => els.map((e) => e.textContent.trim())")
        assert len(empty) >= 5, f"the empty panels say nothing: {empty}"  # five slots and the results
        assert all(t[:1].isupper() and t.endswith(".") for t in empty), empty
        for _ in range(5):
            dealt = page.input_value("#cc-deal-land")  # each deal once the page offers the next land
            page.click('#cc-deal button[type="submit"]')
            page.wait_for_function("(was) => document.getElementById('cc-deal-land').value !== was || "
                                   "document.getElementById('cc-phase').textContent.includes('deploy')",
                                   arg=dealt, timeout=3000)
        page.wait_for_function("document.getElementById('cc-phase').textContent === 'round 1 · deploy'", timeout=3000)
        assert page.locator("#cc-slots li .none").count() == 0
        broken = page.evaluate("""() => [...document.querySelectorAll('#cc-slots li')].flatMap((li) => {
            const walker = document.createTreeWalker(li, NodeFilter.SHOW_TEXT); const out = [];
            for (let n = walker.nextNode(); n; n = walker.nextNode()) {
              for (const m of n.textContent.matchAll(/[A-Za-z]{4,}/g)) {
                const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
                if (r.getClientRects().length > 1) out.push(m[0]);
              } }
            return out; })""")
        assert not broken, f"words broken across lines at {size[0]} px: {broken}"
        page.screenshot(path=str(shots / f"cct-deploy-{size[0]}.png"))
        for seat in (1, 2):
            page.click(f'.cc-seat[data-seat="{seat}"] button.primary')
            page.wait_for_timeout(150)
        page.wait_for_selector("#cc-combat-panel:not([hidden])", timeout=3000)
        srv.board.card_desk.present(1, "cct:ana-bear")  # a sticker shown at seat 1's camera
        page.wait_for_selector('#cc-fighters [data-creature="ana-bear"]', timeout=3000)
        # Ana has revealed: the reveal form turns to Ben, offering his ready creatures and none of Ana's.
        page.wait_for_function("document.getElementById('cc-reveal-seat').value === '2'", timeout=3000)
        cc = srv.board.loop.state.mode_state
        for seat in (2, 1, 2):
            page.select_option("#cc-reveal-seat", str(seat))
            ready = sorted(cid for cid, c in cc.creatures.items() if c.seat == seat and cc.pile[cid] == "ready")
            offered = sorted(page.eval_on_selector_all("#cc-reveal-creature option", "os => os.map((o) => o.value)"))
            assert ready and offered == ready, f"seat {seat}: offered {offered}, ready {ready}"
        page.select_option("#cc-reveal-creature", "ben-goat")
        page.click('#cc-reveal button[type="submit"]')
        page.wait_for_selector('#cc-fighters [data-creature="ben-goat"]', timeout=3000)
        page.select_option("#cc-adjust-creature", "ben-goat")
        page.fill("#cc-adj-power", "2")
        page.fill("#cc-adj-reason", "Stampede")
        page.click('#cc-adjust button[type="submit"]')
        page.wait_for_function("document.getElementById('cc-fighters').textContent.includes('Stampede')", timeout=3000)
        page.fill("#cc-adj-power", "0")
        page.fill("#cc-adj-rest", "1")
        page.check("#cc-adj-sacrifice")
        page.fill("#cc-adj-reason", "Last Stand")
        page.click('#cc-adjust button[type="submit"]')
        page.wait_for_function("document.getElementById('cc-fighters').textContent.includes('2 abilities added up')",
                               timeout=3000)
        goat = page.text_content('#cc-fighters [data-creature="ben-goat"]')
        assert "Stampede; Last Stand" in goat and "sacrificed" in goat, goat
        adj = srv.board.loop.state.mode_state.adjustments["ben-goat"]
        assert (adj.power, adj.rest, adj.sacrifice) == (2, 1, True)
        page.evaluate("document.getElementById('cc-combat-panel').scrollIntoView()")
        page.screenshot(path=str(shots / f"cct-combat-{size[0]}.png"))
        assert page.text_content("#cc-results").startswith("No land tallied yet")  # an empty panel says why
        page.click("#cc-resolve")
        page.wait_for_function("document.querySelectorAll('#cc-results li:not(.none)').length === 1", timeout=3000)
        assert page.locator("#cc-results li").count() == 1
        result = srv.board.loop.state.mode_state.results[0]
        text = page.text_content("#cc-results")
        assert str(result["totals"]["1"]) in text and str(result["totals"]["2"]) in text
        page.wait_for_function("document.getElementById('cc-caption').textContent.includes('Combat at land 2')",
                               timeout=3000)
        # the caption is the whole of what was said: the land's result as well as the next combat
        caption = page.text_content("#cc-caption") or ""
        assert f"Player 1 {result['totals']['1']} and Player 2 {result['totals']['2']}." in caption, caption
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size[0], f"the page scrolls sideways at {size[0]} px ({width} px wide)"
        assert "(sacrificed: removed at round end)" in page.text_content('.cc-seat[data-seat="2"]')
        page.evaluate("document.getElementById('cc-players-panel').scrollIntoView()")
        page.screenshot(path=str(shots / f"cct-after-{size[0]}.png"))
        ctx.close()
        assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_starting_over_kipukas_while_a_duel_waits_paused_says_the_duel_is_ended(browser, tmp_path: Path,
                                                                               size: tuple[int, int]) -> None:
    """The board keeps one paused game: a duel paused for a Kipukas game is ended when Creature Combat
    starts over that game (Kipukas takes the paused place). The page says so before, as every page does."""
    from kipukas_board.modes.duel.rules import example_new_game

    data = tmp_path / "data"
    for deck in write_decks(tmp_path):
        assert main(["catalog", "import", str(deck), "--data-dir", str(data)]) == 0
    with serve_board(data) as srv:
        srv.board.loop.submit(example_new_game())  # a duel under way ...
        srv.board.loop.submit({"type": "new_game", "edition": "web", "play_style": "domination", "first_placer": 1,
                               "players": [{"seat": 1, "name": "Ana", "color": "#d7263d"},
                                           {"seat": 2, "name": "Ben", "color": "#1b98e0"}]})  # ... paused for Kipukas
        srv.board.sim_set_stand("T1", True)
        assert srv.board.loop.state.paused.game == "duel" and srv.board.loop.state.game == "kipukas"
        ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})  # CSP on
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        unlock_page(page, srv.url, "/creature-combat")
        page.wait_for_selector("#paused-banner:not([hidden])", timeout=3000)
        assert page.text_content("#paused-banner .text") == "Card duel is paused."
        page.evaluate("document.getElementById('cc-new-game').open = true")
        page.wait_for_function("() => document.querySelectorAll('#cc-new-players select option').length >= 8")
        page.select_option('#cc-new-players fieldset[data-seat="2"] select', "ben")
        page.click('#cc-new-game-form button[type="submit"]')
        page.wait_for_selector("#kb-ask[open]", timeout=3000)
        asked = page.text_content("#kb-ask-text")
        assert asked == ("A game of Kipukas is under way. Start a game of Creature Combat Territory instead? The game "
                         "under way is paused, and a card duel, paused before it, is ended: one game waits paused at "
                         "a time."), asked
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"cct-start-over-paused-{size[0]}.png"))
        page.click("#kb-ask-yes")
        page.wait_for_function("() => document.getElementById('cc-phase').textContent === 'round 1 · round begin'",
                               timeout=3000)
        s = srv.board.loop.state
        assert s.game == "creature-combat" and s.paused.game == "kipukas", "Kipukas waits paused, the duel is gone"
        page.wait_for_function("() => document.querySelector('#paused-banner .text').textContent"
                               " === 'Kipukas is paused.'", timeout=3000)
        ctx.close()
        assert not errors, errors
