"""Nothing on any page overlaps or is cut off at 360 and 390 px (real headless Chromium), at first
load and mid-game: no two controls, headings, paragraphs or list items lie on each other (what a
scrolling box hides is not counted), and no box that hides its overflow is too narrow for what it
holds (a header's pills cut at the edge)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from web_helpers import PIN, serve_board

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


def _post(url: str, path: str, body: dict) -> dict:
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "X-Admin-Pin": PIN})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


@pytest.mark.parametrize("moment", ["first load", "mid-game"])
def test_nothing_overlaps_or_is_cut_off_on_any_page(browser, tmp_path: Path, moment: str) -> None:
    with serve_board(tmp_path / "data", map_name="kipuka-13") as srv:
        if moment == "mid-game":
            _post(srv.url, "/api/actions/new-game", {"first_placer": 1, "players": [
                {"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]})
            for stand in srv.board.state.board.stands.values():  # both capitals and base camps down
                if stand.kind == "territory" and srv.board.state.phase == "setup":
                    srv.board.sim_set_stand(stand.id, True)
            assert srv.board.state.phase == "play"
            _post(srv.url, "/api/actions/roll-diel", {})
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
