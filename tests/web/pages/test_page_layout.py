"""Nothing on any page overlaps or is cut off at 360 and 390 px (real headless Chromium), at first
load and mid-game: no two controls, headings, paragraphs or list items lie on each other (what a
scrolling box hides is not counted), and no box that hides its overflow is too narrow for what it
holds (a header's pills cut at the edge). The card games' pages are checked with their own game in
play too, with axe-core's rules (tap target size and label-in-name on)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from web_helpers import post_action, serve_board, unlock_page

from kipukas_board.modes.kipukas.on_table import kipukas_state

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

PAGES = ["/", "/duel", "/creature-combat", "/calibrate", "/report"]

OVERLAPS = """() => {
  const shown = (e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden'
    && !e.closest('[hidden], dialog:not([open]), details:not([open]) > :not(summary)');
  const fixed = (e) => { for (let x = e; x; x = x.parentElement) {
    if (['fixed', 'sticky'].includes(getComputedStyle(x).position)) return true; } return false; };
  // an element's box as far as the boxes around it that clip their overflow let it be seen
  const seen = (e) => {
    const r = e.getBoundingClientRect();
    let b = { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    for (let x = e.parentElement; x; x = x.parentElement) {
      const st = getComputedStyle(x);
      if (st.overflowX === 'visible' && st.overflowY === 'visible') continue;
      const c = x.getBoundingClientRect();
      b = { left: Math.max(b.left, c.left), right: Math.min(b.right, c.right),
            top: Math.max(b.top, c.top), bottom: Math.min(b.bottom, c.bottom) };
    }
    return b;
  };
  const name = (e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''} `
                      + `"${(e.textContent || '').trim().slice(0, 24)}"`;
  const els = [...document.querySelectorAll('button, a[href], select, input, summary, label, h1, h2, .pill, p, li')]
    .filter(shown);
  const boxes = els.map(seen), pinned = els.map(fixed), out = [];
  for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++) {
    if (els[i].contains(els[j]) || els[j].contains(els[i]) || pinned[i] !== pinned[j]) continue;
    const r = boxes[i], q = boxes[j];
    const w = Math.min(r.right, q.right) - Math.max(r.left, q.left);
    const h = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
    if (w > 2 && h > 2) out.push(`${name(els[i])} on ${name(els[j])}`);
  }
  return out;
}"""

CUT = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getClientRects().length && !e.closest('[hidden], dialog:not([open]), svg, script, select')
    && e.scrollWidth > e.clientWidth + 1 && ['hidden', 'clip'].includes(getComputedStyle(e).overflowX))
  .map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''} "${e.textContent.trim().slice(0, 30)}" `
              + `needs ${e.scrollWidth} px, has ${e.clientWidth}`)"""


@pytest.mark.parametrize("moment", ["first load", "mid-game"])
def test_nothing_overlaps_or_is_cut_off_on_any_page(browser, tmp_path: Path, moment: str) -> None:
    with serve_board(tmp_path / "data", map_name="kipuka-13") as srv:
        if moment == "mid-game":
            post_action(srv.url, "/api/actions/new-game", {"first_placer": 1, "players": [
                {"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]})
            for stand in srv.board.state.board.stands.values():  # both capitals and base camps down
                if stand.kind == "territory" and kipukas_state(srv.board.state).phase == "setup":
                    srv.board.sim_set_stand(stand.id, True)
            assert kipukas_state(srv.board.state).phase == "play"
            post_action(srv.url, "/api/actions/roll-diel", {})
        page = browser.new_page(viewport={"width": 390, "height": 844})
        found = {}
        for path in PAGES:
            page.goto(srv.url + path)
            page.wait_for_timeout(300)
            for width in (360, 390):
                page.set_viewport_size({"width": width, "height": 800})
                page.wait_for_timeout(100)
                bad = page.evaluate(OVERLAPS) + page.evaluate(CUT)
                if bad:
                    found[f"{path} at {width} px"] = bad[:6]
        page.close()
        assert not found, found


AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"
#: axe-core's rules, with the two that are off by default and matter on a phone: tap target size and
#: an accessible name that starts with the words shown.
AXE_RUN = ("() => axe.run(document, {resultTypes: ['violations'], rules: {"
           "'target-size': {enabled: true}, 'label-content-name-mismatch': {enabled: true}}})")


def _checks(page) -> list[str]:
    """axe-core's violations, overlaps and cut boxes on the page as it is now."""
    page.add_script_tag(path=str(AXE))
    found = [f"{v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
             for v in page.evaluate(AXE_RUN)["violations"]]
    return found + page.evaluate(OVERLAPS) + page.evaluate(CUT)


def test_the_card_games_pages_mid_game_pass_axe_and_the_layout_checks(browser, tmp_path: Path) -> None:
    """The duel's page with a duel in play and Creature Combat's in a fight, then the report of each."""
    from cct_decks import write_decks

    from kipukas_board.cli import main

    if not AXE.exists():
        if os.environ.get("KIPUKAS_REQUIRE_TOOLS") == "1":  # CI installs it: a skip would hide a failure
            pytest.fail(f"{AXE} is missing: run `npm ci` (scripts/run-tests does)", pytrace=False)
        pytest.skip(f"{AXE} is missing: run `npm ci` (scripts/run-tests does)")
    data = tmp_path / "data"
    decks = [*write_decks(tmp_path), *(Path(__file__).parents[2] / "duel_decks").glob("iv8-p*.toml")]
    for deck in decks:
        assert main(["catalog", "import", str(deck), "--data-dir", str(data)]) == 0
    found: dict[str, list[str]] = {}

    def check(where: str) -> None:
        for width in (360, 390):
            page.set_viewport_size({"width": width, "height": 800})
            page.wait_for_timeout(100)
            bad = _checks(page)
            if bad:
                found[f"{where} at {width} px"] = bad[:6]

    with serve_board(data) as srv:
        ctx = browser.new_context(viewport={"width": 390, "height": 800}, bypass_csp=True)  # axe is injected
        page = ctx.new_page()
        unlock_page(page, srv.url, "/duel")
        page.wait_for_function("() => document.querySelectorAll('#duel-new-players select option').length >= 4")
        page.select_option('#duel-new-players fieldset[data-seat="1"] select', "iv8-p1")
        page.select_option('#duel-new-players fieldset[data-seat="2"] select', "iv8-p2")
        page.click('#duel-new-game-form button[type="submit"]')
        page.wait_for_function("() => document.querySelector('#duel-phase').textContent.includes('turn 1')",
                               timeout=3000)
        check("/duel in a duel")
        page.goto(srv.url + "/report")
        check("/report of a duel")

        page.goto(srv.url + "/creature-combat")
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_function("() => document.querySelectorAll('#cc-new-players select option').length >= 8")
        page.select_option('#cc-new-players fieldset[data-seat="2"] select', "ben")
        page.click('#cc-new-game-form button[type="submit"]')
        page.wait_for_selector("#kb-ask[open]", timeout=3000)  # the duel under way is asked about first
        page.click("#kb-ask-yes")
        page.wait_for_function("() => document.getElementById('cc-phase').textContent === 'round 1 · round begin'",
                               timeout=3000)
        for _ in range(5):  # each deal once the page shows the one before (the next land offered)
            dealt = page.input_value("#cc-deal-land")
            page.click('#cc-deal button[type="submit"]')
            page.wait_for_function("(was) => document.getElementById('cc-deal-land').value !== was || "
                                   "document.getElementById('cc-phase').textContent.includes('deploy')",
                                   arg=dealt, timeout=3000)
        for seat in (1, 2):
            page.click(f'.cc-seat[data-seat="{seat}"] button.primary')
            page.wait_for_function("(s) => !document.querySelector(`.cc-seat[data-seat='${s}'] button.primary`) || "
                                   "document.querySelector(`.cc-seat[data-seat='${s}'] button.primary`).disabled",
                                   arg=seat, timeout=3000)
        srv.board.card_desk.present(1, "cct:ana-bear")  # a creature revealed at seat 1's camera
        page.wait_for_selector('#cc-fighters [data-creature="ana-bear"]', timeout=3000)
        check("/creature-combat in a fight")
        page.goto(srv.url + "/report")
        check("/report of Creature Combat")
        ctx.close()
    assert not found, found
