"""The page at the table in real headless Chromium at phone sizes (CSP on): no tap ends a game
unasked (another mode's start asks, pauses the game under way, and "Resume" brings it back), and the
action a locked phone tapped happens once the PIN is given."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from web_helpers import PIN, post_action, serve_board, unlock_page

from kipukas_board.cli import main
from kipukas_board.modes.kipukas.on_table import kipukas_state

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

DECKS = Path(__file__).parents[2] / "duel_decks"
SIZES = [(360, 740), (390, 844)]
SHOTS = os.environ.get("KIPUKAS_SCREENSHOTS")  # a folder to keep the screenshots in, to look at


def _kipukas(url: str) -> None:
    post_action(url, "/api/actions/new-game", {"players": [{"seat": 1, "name": "Ana", "color": "#d7263d"},
                                                           {"seat": 2, "name": "Ben", "color": "#1b98e0"}],
                                               "first_placer": 1})  # Ana places first: who holds what is known


def _set_up(srv) -> None:  # type: ignore[no-untyped-def]
    """A Kipukas game whose setup is done: Ana's and Ben's capitals and base camps are on the map (day 1)."""
    _kipukas(srv.url)
    for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
        srv.board.sim_set_stand(sid, True)


def _phone(browser, size: tuple[int, int]):
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})  # CSP on
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    return ctx, page, errors


@pytest.mark.parametrize("size", SIZES)
def test_a_duel_started_over_kipukas_asks_pauses_and_resumes(browser, tmp_path: Path, size) -> None:
    data = tmp_path / "data"
    for deck in ("iv8-p1", "iv8-p2"):
        assert main(["catalog", "import", str(DECKS / f"{deck}.toml"), "--data-dir", str(data)]) == 0
    with serve_board(data) as srv:
        _kipukas(srv.url)
        srv.board.sim_set_stand("T1", True)  # the first capital is down: a game worth keeping
        ctx, page, errors = _phone(browser, size)
        other_ctx, other, other_errors = _phone(browser, SIZES[1 - SIZES.index(size)])  # a second phone on /
        other.goto(srv.url + "/")
        other.wait_for_selector("#link.up", timeout=5000)
        unlock_page(page, srv.url, "/duel")
        page.wait_for_function("() => document.querySelectorAll('#duel-new-players select option').length >= 4")
        assert page.text_content("#duel-caption") == "", "the duel page tells only the duel's news"
        page.select_option('#duel-new-players fieldset[data-seat="1"] select', "iv8-p1")
        page.select_option('#duel-new-players fieldset[data-seat="2"] select', "iv8-p2")
        page.click('#duel-new-game-form button[type="submit"]')
        page.wait_for_selector("#kb-ask[open]", timeout=3000)
        assert "A game of Kipukas is under way" in page.text_content("#kb-ask-text")
        page.click("#kb-ask-no")  # kept playing: nothing changed
        assert srv.board.loop.state.game == "kipukas"
        page.click('#duel-new-game-form button[type="submit"]')
        page.click("#kb-ask-yes")
        page.wait_for_function("() => document.querySelector('#duel-phase').textContent.includes('turn 1')",
                               timeout=3000)
        page.wait_for_function("() => document.getElementById('message').textContent === 'New card duel started.'",
                               timeout=3000)  # a tap is told in a sentence
        page.wait_for_selector("#paused-banner:not([hidden])", timeout=3000)
        assert page.text_content("#paused-banner .text") == "Kipukas is paused."
        other.wait_for_selector("#paused-banner:not([hidden])", timeout=3000)  # every phone says so
        assert other.text_content("#paused-banner .text") == "Kipukas is paused."
        other.wait_for_selector("#now-go:not([hidden])", timeout=3000)  # and where the duel is played
        assert other.text_content("#now") == "A card duel is under way on its own page."  # said as players say it
        assert other.get_attribute("#now-go", "href") == "/duel"
        assert page.get_attribute("header nav a[href='/report']", "href") == "/report"  # every mode's report
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"paused-{size[0]}.png"))
        page.evaluate("document.getElementById('duel-new-game').open = true")  # another duel over this one
        page.click('#duel-new-game-form button[type="submit"]')
        page.wait_for_selector("#kb-ask[open]", timeout=3000)  # the board keeps one paused game: it says which ends
        assert "a game of Kipukas, paused before it, is ended" in page.text_content("#kb-ask-text")
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"paused-ask-{size[0]}.png"))
        page.click("#kb-ask-no")
        assert srv.board.loop.state.paused is not None and srv.board.loop.state.game == "duel"
        page.click("#resume-button")
        page.wait_for_selector("#kb-ask[open]", timeout=3000)  # the duel under way is asked about too
        assert page.text_content("#kb-ask-text") == "Resume Kipukas? A card duel under way is paused in its place."
        page.click("#kb-ask-yes")
        page.wait_for_url(srv.url + "/", timeout=5000)
        page.wait_for_function("() => document.querySelector('#players').textContent.includes('Ana')", timeout=3000)
        s = srv.board.loop.state
        assert s.game == "kipukas" and kipukas_state(s).territories[1].claim == "capital"
        assert page.text_content("#paused-banner .text") == "Card duel is paused."
        assert "Hearts" not in page.text_content("#caption"), "the Kipukas page tells only Kipukas's news"
        other.wait_for_function("() => document.querySelector('#paused-banner .text').textContent"
                                " === 'Card duel is paused.'", timeout=3000)
        other_ctx.close()
        assert not other_errors, other_errors
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size[0], f"the page scrolls sideways at {size[0]} px ({width} px wide)"
        ctx.close()
        assert not errors, errors


@pytest.mark.parametrize("size", SIZES[:1])
def test_a_locked_phones_tap_happens_once_the_pin_is_given(browser, tmp_path: Path, size) -> None:
    with serve_board(tmp_path / "data") as srv:
        _kipukas(srv.url)
        ctx, page, errors = _phone(browser, size)
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_function("() => !document.getElementById('bar-undo').disabled", timeout=3000)
        page.click("#bar-undo")
        page.click("#confirm-yes")  # undo the new game itself: asked first
        page.wait_for_selector("#pin-dialog[open]", timeout=3000)
        page.fill("#pin-input", PIN)
        page.click("#pin-ok")
        page.wait_for_function("() => document.querySelector('#message').textContent.startsWith('Undone')",
                               timeout=3000)
        assert not kipukas_state(srv.board.loop.state).started, "the undo tapped before the PIN was given happened"
        ctx.close()
        assert not errors, errors


def test_a_tap_whose_pin_was_not_given_says_it_was_not_done(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, SIZES[0])
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        page.click("#new-game summary")
        page.select_option("#map-pick", index=1)
        page.wait_for_selector("#pin-dialog[open]", timeout=3000)
        page.click("#pin-cancel")
        page.wait_for_selector("#message.error:not([hidden])", timeout=3000)
        assert "Not done: this needs the board's PIN" in page.text_content("#message")
        assert srv.board.loop.state.board.name == "Kipuka of Eight"
        ctx.close()
        assert not errors, errors


@pytest.mark.parametrize("size", SIZES)
def test_king_of_the_hill_names_and_marks_its_hill_and_counts_only_while_held(browser, tmp_path: Path, size) -> None:
    with serve_board(tmp_path / "data") as srv:
        post_action(srv.url, "/api/actions/new-game", {
            "players": [{"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}],
            "play_style": "king_of_the_hill", "options": {"territory": 6, "cycles": 2}, "first_placer": 1})
        ctx, page, errors = _phone(browser, size)
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        why = page.text_content("#now-why")
        assert "The hill is Sunflats (6" in why and "nobody holds it" in why and "left of" not in why
        assert page.text_content('[data-label="6"]') == "6 ▲"
        srv.board.sim_set_stand("T2", True)  # Ana's capital, next to the hill
        srv.board.sim_set_stand("T6", True)  # Ben's capital, on the hill
        page.wait_for_function("() => document.querySelector('#now-why').textContent.includes('Ben holds the hill')",
                               timeout=3000)
        assert page.text_content('[data-label="6"]') == "6 B ▲"  # the holder's initial beside the colour
        assert page.text_content('[data-label="2"]') == "2 A"
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"hill-{size[0]}.png"))
        ctx.close()
        assert not errors, errors


def _map_seen(page) -> float:
    """The share of the drawn map inside the phone's screen (1.0: all of it)."""
    return page.evaluate("""() => { const r = document.getElementById('board').getBoundingClientRect();
        const seen = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0); return Math.max(0, seen) / r.height; }""")


@pytest.mark.parametrize("size", SIZES)
def test_the_map_stays_in_view_through_setup_a_question_problems_and_a_storm(browser, tmp_path: Path, size) -> None:
    with serve_board(tmp_path / "data") as srv:
        ctx, page, errors = _phone(browser, size)
        unlock_page(page, srv.url, "/")
        seen = {"no game": _map_seen(page)}
        _kipukas(srv.url)
        srv.board.sim_set_stand("T1", True)
        page.wait_for_function("() => document.querySelector('#now').textContent.includes('place')", timeout=3000)
        seen["setup"] = _map_seen(page)
        for sid in ("T8", "T2", "T7", "T5", "T4"):
            srv.board.sim_set_stand(sid, True)
        post_action(srv.url, "/api/actions/roll-diel", {})  # the opening night (the day came with setup)
        for sid in ("M1a", "M2a", "M8a"):  # souls put down at night: problems of one kind
            srv.board.sim_set_stand(sid, True)
        srv.board.sim_set_stand("M6a", True)  # next to nobody's camp: the board asks whose
        page.wait_for_selector("#questions-panel:not([hidden])", timeout=3000)
        page.wait_for_selector("#problems-panel:not([hidden])", timeout=3000)
        page.wait_for_timeout(600)  # the log and the problems follow the state
        seen["question and problems"] = _map_seen(page)
        assert page.text_content("#now") == "Answer the board's question first."
        question = kipukas_state(srv.board.loop.state).questions[0]["text"]
        assert question not in page.text_content("#caption"), "the question is said once, in its panel"
        assert page.locator("#problems li").count() == 1, "problems of one kind are one line"
        assert page.get_attribute("#problems li", "data-count") == "4"  # M6a was put down at night too
        assert page.text_content("#problems li span").startswith("4× A token was put on the")
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"question-{size[0]}.png"))
        page.click("#questions .buttons button >> nth=0")
        page.wait_for_selector("#questions-panel", state="hidden", timeout=5000)  # answered before play goes on
        post_action(srv.url, "/api/actions/roll-diel", {})  # the opening's last day
        srv.board.sim_set_stand("M4b", True)  # a soul in Ben's territory 4 ...
        post_action(srv.url, "/api/actions/correction", {"target": "stand", "stand": "M4b", "owner": 1})  # ... is Ana's
        assert kipukas_state(srv.board.loop.state).territories[4].contention, srv.board.loop.state.problems
        page.wait_for_selector("#contention-panel:not([hidden])", timeout=5000)
        page.wait_for_timeout(600)
        seen["a fight"] = _map_seen(page)
        now, caption = page.text_content("#now"), page.text_content("#caption")
        assert now == "Ana and Ben fight over Grey Peaks (4): tap who won.", now
        assert "Grey Peaks" not in caption and "contention" not in caption, f"the fight is said twice: {caption}"
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"fight-{size[0]}.png"))
        post_action(srv.url, "/api/actions/roll-diel", {"phase": "storm"})
        page.wait_for_function("() => document.querySelector('#caption').textContent.toLowerCase().includes('storm')",
                               timeout=3000)
        page.wait_for_timeout(1500)  # the storm's overlay has passed
        seen["storm"] = _map_seen(page)
        assert page.text_content("#now") == "Ben's initiative: play, then roll the diel die."
        lines = page.evaluate("""() => { const e = document.getElementById('now');
            return Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)); }""")
        assert lines <= 2, f"the what-now line takes {lines} lines at {size[0]} px"
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"storm-{size[0]}.png"))
        for text in [page.text_content("#caption"), page.text_content("#now"), page.text_content("#problems")]:
            for sid in srv.board.loop.state.board.stands:
                assert f" {sid} " not in f" {text} ".replace(".", " ").replace(",", " "), (sid, text)
        post_action(srv.url, "/api/actions/end-game", {"winner": 1})
        page.wait_for_selector("#winner:not([hidden])", timeout=3000)
        page.wait_for_timeout(1500)
        seen["the end"] = _map_seen(page)
        low = {k: round(v, 2) for k, v in seen.items() if v < 0.8}
        assert not low, f"at {size[0]}x{size[1]} less than 80 % of the map is on the screen: {low}"
        page.goto(srv.url + "/report")  # the report names stands as the page does
        moments = page.text_content("body")
        assert "Exposed to the storm: the west stand in Ember Ridge, the stand in Fern Hollow" in moments, moments
        for sid in srv.board.loop.state.board.stands:
            assert f" {sid} " not in f" {moments} ".replace(".", " ").replace(",", " "), (sid, moments)
        ctx.close()
        assert not errors, errors


def test_a_soul_event_is_told_by_card_name_and_owner_never_by_its_fields() -> None:
    from kipukas_board.web.narrate import describe

    souls = {"RrDC#0001": "Raven, Ana's", "WyRm#0002": "Wyrm, Ben's"}
    told = describe({"type": "bout_roll", "territory": 3, "attacker": "RrDC#0001", "defender": "WyRm#0002",
                     "archetype": 0}, {1: "Ana", 2: "Ben"}, {3: "Long Grass"}, souls)
    assert told == "A bout in Long Grass (3): Raven, Ana's attacked Wyrm, Ben's."
    assert describe({"type": "soul_damage", "soul": "WyRm#0002", "count": 2}, souls=souls) == \
        "Wyrm, Ben's lost 2 KEAL means."
    unknown = describe({"type": "something_new", "archetype": 0, "attacker": "RrDC#0001"})
    assert unknown == "Something new." and "#" not in unknown


AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"
PAGES = ["/", "/duel", "/creature-combat", "/calibrate", "/report"]


def _axe(page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    # label-content-name-mismatch is experimental in axe: asked for by name (WCAG 2.5.3, label in name)
    result = page.evaluate("() => axe.run(document, {resultTypes: ['violations'], "
                           "rules: {'label-content-name-mismatch': {enabled: true}}})")
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in result["violations"]]


@pytest.mark.parametrize("moment", ["first load", "mid-game"])
def test_axe_finds_no_violation_on_any_page(browser, tmp_path: Path, moment: str) -> None:
    if not AXE.exists():
        if os.environ.get("KIPUKAS_REQUIRE_TOOLS") == "1":
            pytest.fail(f"{AXE} is missing: run `npm ci` (scripts/run-tests does)", pytrace=False)
        pytest.skip(f"{AXE} is missing: run `npm ci` (scripts/run-tests does)")
    from cct_decks import write_decks

    data = tmp_path / "data"
    for deck in [*write_decks(tmp_path), DECKS / "iv8-p1.toml", DECKS / "iv8-p2.toml"]:
        assert main(["catalog", "import", str(deck), "--data-dir", str(data)]) == 0
    with serve_board(data) as srv:
        ctx = browser.new_context(viewport={"width": 360, "height": 740}, bypass_csp=True)  # axe is injected
        page = ctx.new_page()
        unlock_page(page, srv.url, "/")
        visits = [(path, None) for path in PAGES]
        if moment == "mid-game":
            _kipukas(srv.url)
            for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
                srv.board.sim_set_stand(sid, True)  # setup ends in the opening day: the day pill shows
            srv.board.sim_set_stand("M6a", True)  # a question on the page
            duel = {"game": "duel", "players": [{"seat": 1, "name": "Ana", "color": "#e4572e", "deck": "iv8-p1"},
                                                {"seat": 2, "name": "Ben", "color": "#1e90ff", "deck": "iv8-p2"}]}
            cct = {"game": "creature-combat", "players": [
                {"seat": 1, "name": "Ana", "color": "#e4572e", "deck": "ana"},
                {"seat": 2, "name": "Ben", "color": "#1e90ff", "deck": "ben"}]}
            visits += [("/duel", duel), ("/", None), ("/creature-combat", cct), ("/report", None)]
        bad = {}
        for path, start in visits:
            if start is not None:  # the game before is paused; its banner shows on every page
                post_action(srv.url, "/api/actions/new-game", start)
            page.goto(srv.url + path)
            page.wait_for_timeout(500)
            found = _axe(page)
            if found:
                bad[path] = found
        ctx.close()
        assert not bad, "\n".join(f"{p}: {v}" for p, vs in bad.items() for v in vs)


SMALL_TARGETS = """() => [...document.querySelectorAll('button, a[href], select, input, summary, [data-hit]')]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden'
                 && !e.closest('[hidden], dialog:not([open]), details:not([open]) > :not(summary)'))
  .map((e) => [e, e.getBoundingClientRect()])
  .filter(([e, r]) => r.width < 24 || r.height < 24)
  .map(([e, r]) => `${e.tagName.toLowerCase()}#${e.id || e.dataset.hit || e.textContent.trim().slice(0, 20)} `
                   + `${Math.round(r.width)}x${Math.round(r.height)}`)"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("map_name", ["kipuka-8", "kipuka-12", "kipuka-13"])
def test_every_tap_target_is_24_px_and_nothing_is_wider_than_the_phone(browser, tmp_path: Path, size, map_name) -> None:
    with serve_board(tmp_path / "data", map_name=map_name) as srv:
        ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
        page = ctx.new_page()
        unlock_page(page, srv.url, "/")
        _kipukas(srv.url)
        small, wide = {}, {}
        for path in PAGES:
            page.goto(srv.url + path)
            page.wait_for_timeout(400)
            found = page.evaluate(SMALL_TARGETS)
            if found:
                small[path] = found
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > size[0]:
                wide[path] = width
        ctx.close()
        assert not small, f"tap targets under 24 px at {size[0]} px on {map_name}: {small}"
        assert not wide, f"pages wider than {size[0]} px on {map_name}: {wide}"


def test_in_simulation_the_page_shows_any_known_card_at_a_seat(browser, tmp_path: Path) -> None:
    from kipukas_board.cards.catalog import Catalog

    data = tmp_path / "data"
    data.mkdir()
    Catalog.in_dir(data).import_records([
        {"code": "ZrrD", "slug": "raven", "title": "Raven", "type": "Species", "genetic_disposition": "Avian",
         "motivation": "Survival", "habitat": "Forest", "injury_tolerance": 1, "movement": 3, "die": "",
         "brawl_sequence": "ZrrD", "keal_means": []}])
    assert main(["catalog", "import", str(DECKS / "iv8-p1.toml"), "--data-dir", str(data)]) == 0
    with serve_board(data) as srv:
        _kipukas(srv.url)
        ctx, page, errors = _phone(browser, SIZES[0])
        unlock_page(page, srv.url, "/")
        page.wait_for_selector("#sim-card:not([hidden])", timeout=3000)
        games = page.eval_on_selector_all("#sim-card-pick optgroup", "gs => gs.map(g => g.label)")
        assert games == ["Kipukas", "Card duel"]
        page.select_option("#sim-card-pick", label="Raven")
        page.select_option("#sim-card-seat", label="Ben")
        page.click('#sim-card button[type="submit"]')
        page.wait_for_function("() => document.querySelector('#cards').textContent.includes('Ben: Raven')",
                               timeout=3000)
        assert any(c.get("seat") == 2 and c.get("code") == "ZrrD" for c in srv.board.loop.state.cards)
        page.select_option("#sim-card-pick", label="Raven")  # the same design at the other seat: another copy
        page.select_option("#sim-card-seat", label="Ana")
        page.click('#sim-card button[type="submit"]')
        page.wait_for_function("() => document.querySelector('#cards').textContent.includes('Ana: Raven')",
                               timeout=3000)
        page.select_option("#sim-card-pick", index=0)  # and another card at Ben's seat
        page.select_option("#sim-card-seat", label="Ben")
        page.click('#sim-card button[type="submit"]')
        page.wait_for_timeout(500)
        twice = [p for p in srv.board.loop.state.problems if "two seats" in p]
        assert not twice, f"simulated cards must be distinct physical cards: {twice}"
        ctx.close()
        assert not errors, errors


def test_ending_the_game_from_more_actions_shows_the_end_on_the_map(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _set_up(srv)
        ctx, page, errors = _phone(browser, SIZES[0])
        unlock_page(page, srv.url, "/")
        page.click('#actionbar a[href="#controls-panel"]')
        page.click('#controls-panel [data-action="end-game"]')
        page.click("#confirm-yes")
        page.wait_for_selector("#winner:not([hidden])", timeout=3000)
        page.wait_for_function("() => document.querySelector('#message').textContent === 'Game ended.'", timeout=3000)
        page.wait_for_timeout(800)  # a smooth scroll has ended
        top = page.evaluate("document.getElementById('now').getBoundingClientRect().top")
        assert 0 <= top < 740, f"the end is off screen: the what-now line is at {top} px"
        assert page.text_content("#now") == "The game is over without a winner."
        ctx.close()
        assert not errors, errors


def test_the_players_can_end_the_game_naming_its_winner(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _set_up(srv)
        ctx, page, errors = _phone(browser, SIZES[1])
        unlock_page(page, srv.url, "/")
        page.click('#actionbar a[href="#controls-panel"]')
        page.select_option("#end-winner", label="Ben")
        page.click('#controls-panel [data-action="end-game"]')
        assert page.text_content("#confirm-text") == "End this game now, with Ben as the winner?"
        page.screenshot(path=str(Path(SHOTS or tmp_path) / "end-with-winner-390.png"))
        page.click("#confirm-yes")
        page.wait_for_selector("#winner:not([hidden])", timeout=3000)
        assert page.text_content("#winner") == "Ben wins"
        assert kipukas_state(srv.board.loop.state).winner == 2
        page.wait_for_timeout(800)  # a smooth scroll has ended
        page.screenshot(path=str(Path(SHOTS or tmp_path) / "ended-with-winner-390.png"))
        assert page.is_hidden("#end-actions"), "a game that is over cannot be ended again"
        ctx.close()
        assert not errors, errors


def test_a_tap_the_rules_refuse_says_it_was_not_done_and_why(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _kipukas(srv.url)
        for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):  # Ana's capital on T1, Ben's base camp on T7
            srv.board.sim_set_stand(sid, True)
        ctx, page, errors = _phone(browser, SIZES[0])
        unlock_page(page, srv.url, "/")
        page.click('[data-stand="T7"]')
        page.select_option("#fix-owner", label="Ana")
        page.select_option("#fix-claim", "capital")  # a second capital for Ana: the rules refuse it
        page.click('#correct-form button[type="submit"]')
        page.wait_for_selector("#message.error:not([hidden])", timeout=3000)
        said = page.text_content("#message")
        assert said.startswith("Not done: ") and said.endswith(".") and "one capital per player" in said, said
        page.screenshot(path=str(Path(SHOTS or tmp_path) / "refused-360.png"))
        ctx.close()
        assert not errors, errors


def test_a_token_put_down_in_simulation_while_a_calibration_walk_is_open_is_told_where_it_went(
        browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _kipukas(srv.url)
        post_action(srv.url, "/api/calibration/sensors/start", {"mode": "lift"})
        ctx, page, errors = _phone(browser, SIZES[1])
        unlock_page(page, srv.url, "/")
        page.wait_for_selector("#calibration-banner:not([hidden])", timeout=3000)
        page.click('[data-stand="T1"]')
        page.click("#stand-sim button")
        page.wait_for_selector("#message.error:not([hidden])", timeout=3000)
        said = page.text_content("#message")
        assert said.startswith("Not in the game: the calibration's sensors walk is open"), said
        assert kipukas_state(srv.board.loop.state).territories[1].claim is None
        ctx.close()
        assert not errors, errors


def test_a_questions_worded_answers_read_as_buttons(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _set_up(srv)
        srv.board.sim_set_stand("T5", False)  # a base camp's token off its stand ...
        post_action(srv.url, "/api/actions/roll-diel", {})  # ... when the cycle ends: was the claim lost?
        assert [q["options"] for q in kipukas_state(srv.board.loop.state).questions] == [["lost", "keep"]]
        ctx, page, errors = _phone(browser, SIZES[0])
        unlock_page(page, srv.url, "/")
        page.wait_for_selector("#questions-panel:not([hidden])", timeout=3000)
        assert page.locator("#questions .buttons button").all_text_contents() == ["Lost", "Keep"]
        ctx.close()
        assert not errors, errors


@pytest.mark.parametrize("size", [(360, 640), (390, 844)])
def test_a_paused_game_is_one_slim_line_above_the_game_on_the_table(browser, tmp_path: Path, size) -> None:
    from cct_decks import write_decks

    data = tmp_path / "data"
    for deck in write_decks(tmp_path):
        assert main(["catalog", "import", str(deck), "--data-dir", str(data)]) == 0
    with serve_board(data) as srv:
        post_action(srv.url, "/api/actions/new-game", {"game": "creature-combat", "players": [
            {"seat": 1, "name": "Ana", "color": "#d7263d", "deck": "ana"},
            {"seat": 2, "name": "Ben", "color": "#1b98e0", "deck": "ben"}]})
        _kipukas(srv.url)  # Kipukas started over it: Creature Combat Territory is paused
        ctx, page, errors = _phone(browser, size)
        unlock_page(page, srv.url, "/")
        page.wait_for_selector("#paused-banner:not([hidden])", timeout=3000)
        assert page.text_content("#paused-banner .text") == "Creature Combat Territory is paused."
        height = page.evaluate("document.getElementById('paused-banner').getBoundingClientRect().height")
        assert height <= 64, f"the paused game takes {height:.0f} px of a {size[1]} px screen"
        assert page.get_attribute("#resume-button", "aria-label") == "Resume Creature Combat Territory"
        page.screenshot(path=str(Path(SHOTS or tmp_path) / f"paused-slim-{size[0]}.png"))
        ctx.close()
        assert not errors, errors


def test_a_tapped_stands_panel_opens_whole_above_the_action_bar_with_the_stand_in_view(
        browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _set_up(srv)
        post_action(srv.url, "/api/actions/roll-diel", {})
        post_action(srv.url, "/api/actions/roll-diel", {})  # day 3
        srv.board.sim_set_stand("M4b", True)  # a soul in Ben's territory 4 ...
        post_action(srv.url, "/api/actions/correction", {"target": "stand", "stand": "M4b", "owner": 1})  # ... is Ana's
        ctx, page, errors = _phone(browser, (360, 640))
        unlock_page(page, srv.url, "/")
        page.wait_for_selector("#contention-panel:not([hidden])", timeout=3000)
        page.click('[data-stand="M4b"]')
        page.wait_for_timeout(300)
        bar = page.evaluate("document.getElementById('actionbar').getBoundingClientRect().top")
        close = page.evaluate("document.getElementById('stand-close').getBoundingClientRect().bottom")
        assert close <= bar, f"the panel's Close is under the action bar ({close:.0f} > {bar:.0f})"
        stand = page.evaluate("document.querySelector('[data-stand=\"M4b\"]').getBoundingClientRect().top")
        header = page.evaluate("document.querySelector('header').getBoundingClientRect().bottom")
        assert stand >= header, "the tapped stand went under the header"
        page.screenshot(path=str(Path(SHOTS or tmp_path) / "stand-panel-360x640.png"))
        ctx.close()
        assert not errors, errors


def test_a_tap_on_what_the_message_lies_over_reaches_it(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _set_up(srv)
        ctx, page, errors = _phone(browser, SIZES[1])
        unlock_page(page, srv.url, "/")
        page.click("#bar-roll")  # "Rolled." lies over the page above the action bar for 3 s
        page.wait_for_selector("#message:not([hidden])", timeout=3000)
        box = page.locator("#message").bounding_box()
        hit = page.evaluate("([x, y]) => !!document.elementFromPoint(x, y).closest('#message')",
                            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
        assert not hit, "a tap there lands on the message and is lost"
        ctx.close()
        assert not errors, errors


def test_a_tap_on_a_territory_away_from_its_stands_opens_its_square_stand(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _kipukas(srv.url)
        srv.board.sim_set_stand("T1", True)  # Ana's capital in Ember Ridge
        ctx, page, errors = _phone(browser, SIZES[1])
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        # a spot of territory 1's drawing with no stand (nor a stand's tap area) on it
        spot = page.evaluate("""() => {
            const t = document.querySelector('[data-territory="1"]').getBoundingClientRect();
            for (let fy = 0.05; fy < 1; fy += 0.05) for (let fx = 0.05; fx < 1; fx += 0.05) {
              const x = t.left + t.width * fx, y = t.top + t.height * fy, at = document.elementFromPoint(x, y);
              if (at && !at.closest('[data-stand],[data-hit]') && at.closest('[data-territory="1"]')) return { x, y };
            }
            return null; }""")
        assert spot, "territory 1 is all stands: no spot to tap"
        page.mouse.click(spot["x"], spot["y"])
        page.wait_for_selector("#stand-panel:not([hidden])", timeout=2000)
        assert page.text_content("#stand-title") == "The territory stand of Ember Ridge"
        assert page.text_content("#stand-info") == "Capital of Ana."
        ctx.close()
        assert not errors, errors


def test_a_tap_on_a_greyed_out_button_says_why(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _kipukas(srv.url)  # setup: the diel die is not rolled yet, and nothing was undone to redo
        ctx, page, errors = _phone(browser, SIZES[0])
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        page.wait_for_function("() => ['bar-roll', 'bar-redo'].every((id) => document.getElementById(id).title)",
                               timeout=3000)  # the reasons are in (the redo's follows the log)
        assert page.is_disabled("#bar-roll") and page.is_disabled("#bar-redo")
        for button in ("#bar-roll", "#bar-redo"):
            box = page.locator(button).bounding_box()
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.wait_for_function("(b) => { const m = document.getElementById('message');"
                                   " return !m.hidden && m.textContent.startsWith(document.querySelector(b).title); }",
                                   arg=button, timeout=2000)
            said = page.text_content("#message")
            assert said and said[0].isupper() and said.endswith("."), (button, said)
            assert said.rstrip(".") == page.get_attribute(button, "title").rstrip("."), (button, said)
        assert page.text_content("#message") == "Nothing to redo: only what Undo took back."
        ctx.close()
        assert not errors, errors


def test_a_fight_the_board_asks_about_is_not_offered_again_until_answered(browser, tmp_path: Path) -> None:
    with serve_board(tmp_path / "data") as srv:
        _kipukas(srv.url)
        for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):  # Ben's base camp on T4 (Grey Peaks)
            srv.board.sim_set_stand(sid, True)
        post_action(srv.url, "/api/actions/roll-diel", {})
        post_action(srv.url, "/api/actions/roll-diel", {})  # day 3
        for sid, seat in (("M4b", 1), ("M4a", 2)):  # Ana's soul and Ben's in Grey Peaks
            srv.board.sim_set_stand(sid, True)
            post_action(srv.url, "/api/actions/correction", {"target": "stand", "stand": sid, "owner": seat})
        assert kipukas_state(srv.board.loop.state).territories[4].contention
        ctx, page, errors = _phone(browser, SIZES[1])
        unlock_page(page, srv.url, "/")
        page.wait_for_selector("#contention-panel:not([hidden])", timeout=3000)
        page.click('#contention [data-fight="4"] button:has-text("Ben won")')  # Ana's soul still stands there
        page.wait_for_selector("#questions-panel:not([hidden])", timeout=3000)
        page.wait_for_timeout(300)
        assert page.is_hidden('#contention [data-fight="4"]'), "the fight asked about is offered again"
        asked = page.text_content("#questions p")
        assert asked.startswith("Ben won the fight in Grey Peaks (4), but Ana's soul token still stands on the "), \
            f"the question names the territory and the players as they know them: {asked!r}"
        page.screenshot(path=str(Path(SHOTS or tmp_path) / "fight-asked-390.png"))
        page.click("#questions .buttons button:has-text('Retreat')")
        page.wait_for_selector("#questions-panel", state="hidden", timeout=3000)
        ctx.close()
        assert not errors, errors
