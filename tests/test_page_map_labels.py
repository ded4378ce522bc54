"""The map's words stay readable in real headless Chromium at 360 and 390 px: no territory number
(at its widest, with a holder's initial and the hill's mark) lies on a stand or another number, and
none is cut off by the map's edge, on every shipped map."""

from __future__ import annotations

from pathlib import Path

import pytest
from web_helpers import serve_board

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

MAPS = sorted(p.stem for p in (Path(__file__).resolve().parents[1] / "calibration" / "maps").glob("kipuka-*.toml"))
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
