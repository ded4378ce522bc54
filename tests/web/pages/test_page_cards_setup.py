"""Setting a fresh board up from the page, in real headless Chromium at phone sizes (CSP on): the card
catalog and a deck imported by uploading their files (the PIN asked on a locked phone, the upload done
once it is given, a refused file named with what was wrong), the simulated camera's list of cards
refreshed. Screenshots go to ``$KIPUKAS_SCREENSHOTS`` (default: the test's tmp dir)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from web_helpers import PIN, serve_board

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

DECKS = Path(__file__).parents[2] / "duel_decks"
SIZES = [(360, 740), (390, 844)]


def _card(code: str, title: str) -> dict:
    return {"code": code, "slug": title.lower().replace(" ", "_"), "title": title, "type": "Character",
            "injury_tolerance": 2, "movement": 1, "keal_means": [{"name": "Claw", "count": 2}]}


# About 100 kB, as the real catalog: over an action's 64 kB, so the locked phone's first sending is
# dropped by the server and the page sends it again once the PIN unlocked it.
CATALOG = b"[" + b" " * 100_000 + json.dumps([_card("RrDC", "Allele Sect Explorer"),
                                             _card("HMPU", "Brindle Moth")]).encode()[1:]


def _file(name: str, data: bytes) -> dict:
    return {"name": name, "mimeType": "application/octet-stream", "buffer": data}


@pytest.mark.parametrize("size", SIZES)
def test_a_fresh_board_gets_its_cards_from_the_page(browser, tmp_path: Path, size) -> None:
    shots = Path(os.environ.get("KIPUKAS_SCREENSHOTS") or tmp_path)
    with serve_board(tmp_path / "data") as srv:
        ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})  # CSP on
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        page.click("#cards-setup summary")
        page.set_input_files("#card-file", _file("cards.json", CATALOG))
        page.click('#card-import-form button[type="submit"]')
        page.wait_for_selector("#pin-dialog[open]", timeout=3000)  # locked: the PIN first, then the upload
        page.fill("#pin-input", PIN)
        page.click("#pin-ok")
        page.wait_for_function("() => document.querySelector('#card-import-result').textContent.startsWith("
                               "'Imported 2 cards from cards.json')", timeout=4000)
        assert len(srv.board.card_desk.catalog) == 2

        page.set_input_files("#card-file", _file("broken.toml", b"deck = \n"))
        page.click('#card-import-form button[type="submit"]')
        page.wait_for_selector("#card-import-result.error", timeout=3000)
        assert page.text_content("#card-import-result").startswith("broken.toml: not valid TOML")

        page.set_input_files("#card-file", _file("iv8-p1.toml", (DECKS / "iv8-p1.toml").read_bytes()))
        page.click('#card-import-form button[type="submit"]')
        page.wait_for_function("() => document.querySelector('#card-import-result').textContent.startsWith("
                               "\"Imported Card duel deck 'iv8-p1'\")", timeout=4000)
        assert srv.board.mode_cards.decks("duel")

        # the simulated camera's list (the Kipukas page's Cards shown) learns the imported cards at once
        page.wait_for_function("() => [...document.querySelectorAll('#sim-card-pick option')]"
                               ".some((o) => o.textContent === 'Brindle Moth')", timeout=3000)
        page.locator("#cards-setup").scroll_into_view_if_needed()
        page.screenshot(path=str(shots / f"cards-setup-{size[0]}.png"))
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size[0], f"the page scrolls sideways at {size[0]} px ({width} px wide)"
        for sel in ("#card-file", '#card-import-form button'):
            box = page.locator(sel).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= size[0], f"{sel} is clipped at {size[0]} px: {box}"
        ctx.close()
        assert not errors, errors


def test_the_duel_page_imports_a_deck_and_offers_it_at_once(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        ctx = browser.new_context(viewport={"width": 360, "height": 740})
        page = ctx.new_page()
        page.goto(srv.url + "/duel")
        page.wait_for_selector("#link.up", timeout=5000)
        page.fill('#duel-new-players fieldset[data-seat="1"] [name="name"]', "Ana")  # typed before the import
        page.click("#cards-setup summary")
        page.set_input_files("#card-file", _file("iv8-p2.toml", (DECKS / "iv8-p2.toml").read_bytes()))
        page.click('#card-import-form button[type="submit"]')
        page.wait_for_selector("#pin-dialog[open]", timeout=3000)
        page.fill("#pin-input", PIN)
        page.click("#pin-ok")
        page.wait_for_function("() => document.querySelector('#card-import-result').textContent"
                               ".startsWith('Imported Card duel deck')", timeout=4000)
        assert "iv8-p2" in srv.board.mode_cards.decks("duel")
        # the new-game form offers the deck at once, and keeps the name typed
        page.wait_for_function("() => [...document.querySelectorAll('#duel-new-players select option')]"
                               ".some((o) => o.value === 'iv8-p2')", timeout=3000)
        assert page.input_value('#duel-new-players fieldset[data-seat="1"] [name="name"]') == "Ana"
        ctx.close()
