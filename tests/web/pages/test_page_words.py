"""No word is broken across two lines on the pages at 360 and 390 px (real headless Chromium): the
Creature Combat page mid-round, where five land slots share the width ("mounta/in" once), and the
Kipukas page mid-game."""

from __future__ import annotations

from pathlib import Path

import pytest
from cct_decks import write_decks
from web_helpers import post_action, serve_board, unlock_page

from kipukas_board.cli import main

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

#: Every word of three letters or more in visible text whose letters sit on more than one line.
BROKEN_WORDS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement;
    if (!e || !e.getClientRects().length || e.closest('[hidden], dialog:not([open]), script, svg, select')) continue;
    const re = /[A-Za-z]{3,}/g;
    for (let m = re.exec(n.data); m; m = re.exec(n.data)) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const lines = new Set([...r.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
      if (lines.size > 1) out.push(`"${m[0]}" in ${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}`);
    }
  }
  return out;
}"""


def _broken_at(page, widths=(360, 390)) -> dict[int, list[str]]:
    found = {}
    for w in widths:
        page.set_viewport_size({"width": w, "height": 800})
        page.wait_for_timeout(150)
        broken = page.evaluate(BROKEN_WORDS)
        if broken:
            found[w] = broken
    return found


def test_no_word_is_broken_on_the_creature_combat_page_mid_round(browser, tmp_path: Path) -> None:
    data = tmp_path / "data"
    for deck in write_decks(tmp_path):
        assert main(["catalog", "import", str(deck), "--data-dir", str(data)]) == 0
    with serve_board(data) as srv:
        page = browser.new_page(viewport={"width": 390, "height": 800})
        unlock_page(page, srv.url, "/creature-combat")
        page.wait_for_function("() => document.querySelectorAll('#cc-new-players select option').length >= 8")
        page.select_option('#cc-new-players fieldset[data-seat="2"] select', "ben")
        page.click('#cc-new-game-form button[type="submit"]')
        page.wait_for_function("() => document.getElementById('cc-phase').textContent === 'round 1 · round begin'",
                               timeout=3000)
        for _ in range(5):  # every slot holds a land, "mountain" among them
            dealt = page.input_value("#cc-deal-land")  # each deal once the page offers the next land
            page.click('#cc-deal button[type="submit"]')
            page.wait_for_function("(was) => document.getElementById('cc-deal-land').value !== was || "
                                   "document.getElementById('cc-phase').textContent.includes('deploy')",
                                   arg=dealt, timeout=3000)
        page.wait_for_function("() => document.getElementById('cc-phase').textContent === 'round 1 · deploy'",
                               timeout=3000)
        assert "mountain" in page.text_content("#cc-slots")
        found = _broken_at(page)
        page.close()
        assert not found, found


def test_no_word_is_broken_on_the_kipukas_page_mid_game(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        post_action(srv.url, "/api/actions/new-game", {"first_placer": 1, "players": [
            {"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]})
        for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
            srv.board.sim_set_stand(sid, True)
        post_action(srv.url, "/api/actions/roll-diel", {})
        srv.board.sim_set_stand("M6a", True)  # a question on the page
        page = browser.new_page(viewport={"width": 390, "height": 800})
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        found = _broken_at(page)
        # an empty panel's note reads as a sentence, as the rest of the page does
        empty = page.eval_on_selector_all(".none", "els => els.map((e) => e.textContent.trim()).filter(Boolean)")
        page.close()
        assert not found, found
        assert empty and all(t[0].isupper() and t.endswith(".") for t in empty), empty


#: The game's own words the Kipukas page shows (buttons, panels, the what-now line, the card panel).
GAME_WORDS = ("diel", "initiative", "capital", "base camp", "soul", "contention", "bout", "KEAL", "wasted")


def test_the_games_words_on_the_kipukas_page_are_explained_one_tap_from_the_what_now_line(
        browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        post_action(srv.url, "/api/actions/new-game", {"first_placer": 1, "players": [
            {"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]})
        for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
            srv.board.sim_set_stand(sid, True)
        page = browser.new_page(viewport={"width": 360, "height": 640})
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        shown = page.evaluate("document.body.innerText + ' ' + [...document.querySelectorAll('option')]"
                              ".map((o) => o.textContent).join(' ')").lower()
        shown += " keal"  # the card panel's "KEAL means" shows once a card is shown
        assert all(w.lower() in shown for w in GAME_WORDS), [w for w in GAME_WORDS if w.lower() not in shown]
        page.click("#now-more")  # "Why?"
        page.click("#words summary")
        explained = [t.lower() for t in page.locator("#words dt").all_text_contents()]
        missing = [w for w in GAME_WORDS if not any(w.lower() in t for t in explained)]
        assert not missing, f"words the page uses and does not explain: {missing}"
        assert page.evaluate("document.getElementById('words').getBoundingClientRect().width") <= 360
        page.close()
