"""The Kipukas page's problems line in real headless Chromium at phone sizes: with several problems
open, the folded panel's summary reads whole (at most two lines, never cut with an ellipsis)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_page_table import _kipukas, _phone
from web_helpers import post_action, serve_board, unlock_page

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

SHOTS = os.environ.get("KIPUKAS_SCREENSHOTS")  # a folder to keep the screenshots in, to look at

#: The lines a text takes on the page: the distinct tops of its rectangles.
LINES = """(id) => { const r = document.createRange(); r.selectNodeContents(document.getElementById(id));
    return new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top))).size; }"""


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_several_problems_read_whole_in_the_folded_summary(browser, tmp_path: Path, size) -> None:
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, size)
        unlock_page(page, srv.url, "/")
        _kipukas(srv.url)
        for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
            srv.board.sim_set_stand(sid, True)
        post_action(srv.url, "/api/actions/roll-diel", {})  # night: souls put down now are problems
        for sid in ("M1a", "M2a", "M8a"):
            srv.board.sim_set_stand(sid, True)
        page.wait_for_selector("#problems-panel:not([hidden])", timeout=3000)
        page.wait_for_function("document.querySelector('#problems li')?.dataset.count === '3'", timeout=3000)
        page.evaluate("document.getElementById('problems-panel').scrollIntoView()")
        assert not page.evaluate("document.getElementById('problems-panel').open"), "the panel starts folded"
        summary = page.text_content("#problems-summary")
        first = page.text_content("#problems li span")
        assert first.startswith("3× A token was put on"), f"a problem reads as a sentence: {first!r}"
        assert summary in (f"Please check: {first}", "Check 3 problems: tap to read"), summary
        cut = page.evaluate("(() => { const s = document.getElementById('problems-summary');"
                            " return s.scrollWidth > s.clientWidth + 1 || s.scrollHeight > s.clientHeight + 1; })()")
        assert not cut, f"the summary is cut at {size[0]} px: {summary!r}"
        lines = page.evaluate(LINES, "problems-summary")
        assert 1 <= lines <= 2, f"the summary takes {lines} lines at {size[0]} px: {summary!r}"
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"problems-summary-{size[0]}.png"))
        ctx.close()
        assert not errors, errors


#: A problem's text -> as a page shows it: a sentence opening with a capital, but a first word that
#: is a name from code (a stand id, a card's payload) as the board wrote it.
AS_SENTENCES = [
    ("correction: no territory 3 on this map", "Correction: no territory 3 on this map"),
    ("territory 3 is not in contention", "Territory 3 is not in contention"),
    ("nothing to undo", "Nothing to undo"),
    ("T1 holds no token now; nothing to set", "T1 holds no token now; nothing to set"),
    ("m4b is a movement stand", "m4b is a movement stand"),
    ("frlU: unknown card", "frlU: unknown card"),
    ("t-1 is a movement stand", "t-1 is a movement stand"),
    ("'abc' is not a soul", "'abc' is not a soul"),
    ("", ""),
]


def test_a_problem_opens_with_a_capital_unless_it_opens_with_a_name_from_code(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, (390, 844))
        page.goto(srv.url + "/")
        shown = page.evaluate("(texts) => texts.map((t) => KB.sentence(t))", [t for t, _ in AS_SENTENCES])
        assert shown == [want for _, want in AS_SENTENCES]
        ctx.close()
        assert not errors, errors
