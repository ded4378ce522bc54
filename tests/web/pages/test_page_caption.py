"""The caption under the what-now line in real headless Chromium (390 px): what the board said, less what
a panel already shows. A problem or a question is read in its panel, never again in the caption, and a
problem put right (or a question answered) is not left in the caption asking for it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_page_table import _kipukas, _phone, _set_up
from web_helpers import post_action, serve_board, unlock_page

from tests.maptools import map_data, to_toml

pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

SHOTS = os.environ.get("KIPUKAS_SCREENSHOTS")  # a folder to keep the screenshots in, to look at
ASKS = ("Please check the board", "The board has a question")  # show/phrases.py: "problem", "question"


def _caption(page) -> str:  # type: ignore[no-untyped-def]
    return page.text_content("#caption") or ""


def test_a_problem_or_a_question_is_not_told_again_in_the_caption_nor_left_there(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, (390, 844))
        unlock_page(page, srv.url, "/")
        _set_up(srv)
        srv.board.sim_set_stand("T3", True)  # one token too many after setup: a problem
        page.wait_for_selector("#problems-panel:not([hidden])", timeout=3000)
        page.wait_for_timeout(600)  # the problems list follows the state
        assert not any(a in _caption(page) for a in ASKS), f"said twice: {_caption(page)!r}"
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "caption-problem-390.png"))
        srv.board.sim_set_stand("T3", False)  # put right
        page.wait_for_selector("#problems-panel", state="hidden", timeout=3000)
        assert not any(a in _caption(page) for a in ASKS), f"left asking for what was put right: {_caption(page)!r}"
        post_action(srv.url, "/api/actions/roll-diel", {})  # night
        srv.board.sim_set_stand("M6a", True)  # next to nobody's camp at night: a question and a problem
        page.wait_for_selector("#questions-panel:not([hidden])", timeout=3000)
        page.wait_for_selector("#problems-panel:not([hidden])", timeout=3000)
        page.wait_for_timeout(600)
        assert not any(a in _caption(page) for a in ASKS), f"said twice: {_caption(page)!r}"
        page.click("#questions .buttons button >> nth=0")
        page.wait_for_selector("#questions-panel", state="hidden", timeout=5000)
        page.wait_for_timeout(600)
        assert "The board has a question" not in _caption(page), f"an answered question is left: {_caption(page)!r}"
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "caption-answered-390.png"))
        ctx.close()
        assert not errors, errors


def test_a_page_reloaded_mid_game_shows_what_the_board_said_last(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, (390, 844))
        unlock_page(page, srv.url, "/")
        _set_up(srv)
        page.wait_for_function("() => document.getElementById('caption').textContent.includes('Setup is complete')",
                               timeout=3000)
        said = _caption(page)
        page.reload()
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_function("() => document.getElementById('caption').textContent !== ''", timeout=3000)
        assert _caption(page) == said, "the reloaded page lost what the board said last"
        ctx.close()
        assert not errors, errors


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_the_caption_names_a_territory_as_the_map_does(browser, tmp_path: Path, size) -> None:
    """"Ben claims Grey Peaks (4) with a base camp.", as the rules' questions word it, never "Grey Peaks,
    territory 4"."""
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, size)
        unlock_page(page, srv.url, "/")
        _set_up(srv)  # Ben's last base camp goes down on T4, Grey Peaks
        page.wait_for_function("() => document.getElementById('caption').textContent.includes('Setup is complete')",
                               timeout=3000)
        assert _caption(page).startswith("Ben claims Grey Peaks (4) with a base camp."), _caption(page)
        assert "territory 4" not in page.text_content("#caption-full")
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"caption-territory-{size[0]}.png"))
        ctx.close()
        assert not errors, errors


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_during_setup_the_caption_does_not_say_again_whose_placement_the_what_now_line_says(browser, tmp_path: Path,
                                                                                             size) -> None:
    """The what-now line reads "Ben: place your capital on a territory stand."; the caption under it
    keeps what happened ("Ana places a capital on Ember Ridge (1).") without the voice's "Ben, place
    your capital." again. The voice still says it (nobody at the table reads the page)."""
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, size)
        unlock_page(page, srv.url, "/")
        _kipukas(srv.url)
        page.wait_for_function("() => document.getElementById('now').textContent.startsWith('Ana: place')",
                               timeout=3000)
        page.wait_for_timeout(300)  # the caption follows the board's sentences
        assert "place your capital" not in _caption(page), _caption(page)
        srv.board.sim_set_stand("T1", True)
        page.wait_for_function("() => document.getElementById('caption').textContent.includes('Ember Ridge')",
                               timeout=3000)
        assert page.text_content("#now") == "Ben: place your capital on a territory stand."
        assert _caption(page) == "Ana places a capital on Ember Ridge (1).", _caption(page)
        assert "Ben, place your capital." in srv.board.voice.spoken  # said aloud all the same
        for sid in ("T8", "T2"):
            srv.board.sim_set_stand(sid, True)
        page.wait_for_function("() => document.getElementById('now').textContent.startsWith('Ben: place a base')",
                               timeout=3000)
        page.wait_for_timeout(300)
        assert _caption(page) == "Ana claims Fern Hollow (2) with a base camp.", _caption(page)
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"caption-setup-{size[0]}.png"))
        srv.board.sim_set_stand("T7", True)
        srv.board.sim_set_stand("T5", True)
        srv.board.sim_set_stand("T4", True)  # setup complete: the line moves on, the caption tells it
        page.wait_for_function("() => document.getElementById('caption').textContent.includes('Setup is complete')",
                               timeout=3000)
        ctx.close()
        assert not errors, errors


def test_a_territory_named_with_a_stand_id_keeps_its_name_in_the_caption(browser, tmp_path: Path) -> None:
    """A map may name a territory "Route T4" where T4 is one of its stands: the page put the stand's
    place in its name ("Ana places a capital on Route the territory stand of Grey Peaks (1).")."""
    data = map_data()
    data["territories"][0]["name"] = "Route T4"  # territory 1, where Ana's capital goes (T1)
    (tmp_path / "route.toml").write_text(to_toml(data))
    with serve_board(tmp_path / "data", map_name=str(tmp_path / "route.toml")) as srv:
        ctx, page, errors = _phone(browser, (390, 844))
        unlock_page(page, srv.url, "/")
        _kipukas(srv.url)
        srv.board.sim_set_stand("T1", True)
        page.wait_for_function("() => document.getElementById('caption').textContent.includes('capital on')",
                               timeout=3000)
        assert "Ana places a capital on Route T4 (1)." in _caption(page), _caption(page)
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "caption-route-t4-390.png"))
        ctx.close()
        assert not errors, errors
