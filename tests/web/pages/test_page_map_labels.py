"""The map's words and marks in real headless Chromium at phone sizes: no territory number (at its
widest, with a holder's initial and the hill's mark) lies on a stand or another number, and none is cut
off by the map's edge, on every shipped map at 360 and 390 px; ownership is marked by initials as well
as colours, on territories and on souls' tokens."""

from __future__ import annotations

from pathlib import Path

import pytest
from web_helpers import post_action, serve_board

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

MAPS = sorted(p.stem for p in (Path(__file__).resolve().parents[3] / "calibration" / "maps").glob("kipuka-*.toml"))
CLASHES = """() => {
  document.querySelectorAll('[data-label]').forEach((e) => { e.textContent = `${e.dataset.label} W ▲`; });
  const boxes = (sel, key) => [...document.querySelectorAll(sel)]
    .map((e) => [e.dataset[key], e.getBoundingClientRect()]);
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const labels = boxes('[data-label]', 'label'), stands = boxes('[data-stand]', 'stand');
  const map = document.querySelector('#board').getBoundingClientRect();
  const out = [];
  for (const [n, r] of labels) {
    for (const [s, q] of stands) if (meet(r, q)) out.push(`territory ${n}'s number on stand ${s}`);
    for (const [m, q] of labels) if (m < n && meet(r, q)) out.push(`territory ${n}'s number on territory ${m}'s`);
    const outside = r.left < map.left || r.right > map.right || r.top < map.top || r.bottom > map.bottom;
    if (outside) out.push(`territory ${n}'s number cut off`);
  }
  return out;
}"""


@pytest.mark.parametrize("width", [360, 390])
def test_no_territory_number_lies_on_a_stand_or_another_number(browser, tmp_path: Path, width: int) -> None:
    assert MAPS, "no shipped maps found"
    found = {}
    for name in MAPS:
        with serve_board(tmp_path / name, map_name=name) as srv:
            page = browser.new_page(viewport={"width": width, "height": 800})
            page.goto(srv.url + "/")
            page.wait_for_selector("#board")
            clashes = page.evaluate(CLASHES)
            if clashes:
                found[name] = clashes
            page.close()
    assert not found, found


def test_ownership_is_marked_by_more_than_colour_on_territories_and_stands(browser, tmp_path: Path) -> None:
    """Two players in the same colour can still tell their tokens apart: each held territory's number
    carries its holder's initial and each soul's token its owner's, standing or downed."""
    with serve_board(tmp_path / "data") as srv:
        same = "#1b98e0"
        post_action(srv.url, "/api/actions/new-game", {"first_placer": 1, "players": [
            {"seat": 1, "name": "Ana", "color": same}, {"seat": 2, "name": "Ben", "color": same}]})
        for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
            srv.board.sim_set_stand(sid, True)
        for stand, owner, downed in (("M1a", 1, False), ("M4a", 2, True)):
            srv.board.sim_set_stand(stand, True)
            post_action(srv.url, "/api/actions/correction", {"target": "stand", "stand": stand, "owner": owner,
                                                             "downed": downed})
        page = browser.new_page(viewport={"width": 360, "height": 740})
        page.goto(srv.url + "/")
        page.wait_for_function("() => document.querySelector('[data-mark=\"M4a\"]').textContent === 'B×'",
                               timeout=4000)
        assert page.text_content('[data-mark="M1a"]') == "A"
        assert page.text_content('[data-label="1"]') == "1 A"
        assert page.text_content('[data-label="8"]') == "8 B"
        # a capital and a base camp carry a sign, not a letter a player's initial could be
        assert page.text_content('[data-mark="T1"]') == "★" and page.text_content('[data-mark="T2"]') == "⌂"
        page.locator("#map").screenshot(path=str(tmp_path / "owners.png"))
        page.close()
