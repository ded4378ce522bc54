"""The souls panel and the bout assistant in real headless Chromium, at phone sizes."""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest
from web_helpers import post_action, serve_board, unlock_page

from kipukas_board.cards.catalog import Catalog
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.kipukas.rules.bouts import FAILED_BLOW_RULE, FAILED_RETREAT_RULE
from kipukas_board.modes.kipukas.rules.dice import ScriptedDice, SystemDice

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"

CARDS = [
    {"code": "HMPU", "slug": "hilbert", "title": "Hilbert", "type": "Character", "genetic_disposition": "Avian",
     "motivation": "Passion", "habitat": "Plains", "injury_tolerance": 1, "movement": 2, "die": "D6-D6",
     "brawl_sequence": "HMPU", "keal_means": []},
    {"code": "ZrrD", "slug": "raven", "title": "Raven", "type": "Species", "genetic_disposition": "Avian",
     "motivation": "Survival", "habitat": "Forest", "injury_tolerance": 1, "movement": 3, "die": "",
     "brawl_sequence": "ZrrD", "keal_means": []},
]


def _two_souls_in_territory_3(srv, ana_affinity: str = "") -> None:
    """Setup done, two diel rolls, then Bo's ZrrD soul on M3b and Ana's HMPU soul walked to M3a: two
    souls of different players in territory 3, ready for a bout."""
    ana = {"seat": 1, "name": "Ana", "color": "#d7263d", **({"affinity": ana_affinity} if ana_affinity else {})}
    post_action(srv.url, "/api/actions/new-game", {"first_placer": 1, "players": [
        ana, {"seat": 2, "name": "Bo", "color": "#1b98e0"}]})
    for sid in ("T1", "T8", "T2", "T3", "T5", "T7"):
        srv.board.sim_set_stand(sid, True)
    post_action(srv.url, "/api/actions/roll-diel", {})
    post_action(srv.url, "/api/actions/roll-diel", {})
    post_action(srv.url, "/api/sim/cards", {"seat": 2, "payload": "kpks.us/ZrrD#0001?AbZrrD"})
    srv.board.sim_set_stand("M3b", True)
    post_action(srv.url, "/api/sim/cards", {"seat": 1, "payload": "kpks.us/HMPU#0001?AbHMPU"})
    for sid, on in (("M2b", True), ("M2b", False), ("M3a", True)):
        srv.board.sim_set_stand(sid, on)


@pytest.mark.parametrize("viewport", [(360, 740), (390, 844)])
def test_souls_panel_and_bout_assistant_on_a_phone(browser, tmp_path, viewport):
    Catalog.in_dir(tmp_path).import_records(CARDS)
    with serve_board(tmp_path) as srv:
        ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, bypass_csp=True)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        refused: list[str] = []  # a plan the board refuses is never asked for (the console would show it)
        page.on("response", lambda r: refused.append(r.url) if "/api/bout/plan" in r.url and r.status >= 400 else None)
        _two_souls_in_territory_3(srv, ana_affinity="Avian")
        unlock_page(page, srv.url)  # the PIN entered once, as a phone does: the board trusts this browser
        page.wait_for_function("document.querySelector('#souls').textContent.includes('Hilbert')", timeout=3000)
        hilbert = page.text_content('#souls [data-soul="HMPU#0001"]')  # where its token is, in words
        assert "the stand in Long Grass towards Fern Hollow" in hilbert and "M3a" not in hilbert
        assert kipukas_state(srv.board.loop.state).territories[3].contention
        page.click('#contention li[data-fight="3"] .bout-open')  # one tap from the fight
        # the souls of the fight are proposed on each side, never one soul against itself
        assert page.input_value("#bout-territory") == "3"
        sides = {page.input_value("#bout-attacker"), page.input_value("#bout-defender")}
        assert sides == {"HMPU#0001", "ZrrD#0001"}
        page.select_option("#bout-attacker", "HMPU#0001")
        page.select_option("#bout-defender", "ZrrD#0001")
        page.fill("#bout-archetype", "-1")
        page.dispatch_event("#bout-archetype", "change")
        page.wait_for_function("document.querySelector('#bout-plan').textContent.includes('-1 archetypal material')",
                               timeout=3000)
        plan = page.text_content("#bout-plan")
        assert page.is_visible("#bout-archetype-how"), "the fists tool's number is explained where it is typed"
        assert "fists tool on kipukas.cards" in page.text_content("#bout-archetype-how")
        assert "D6 + D6" in plan and "affinity" in plan and "+3 habitat" in plan and "-1 archetypal material" in plan
        # a side with nothing to add reads so in a sentence, as the other empty notes do
        notes = page.eval_on_selector_all("#bout-plan .bout-side li.none", "ls => ls.map((l) => l.textContent)")
        assert notes == ["No modifier."], notes
        page.fill("#bout-att-rolls", "6 6, 5 3")  # two rounds said for a bout of one
        page.fill("#bout-def-rolls", "4")
        page.click("#bout-physical")
        page.wait_for_selector("#message.error:not([hidden])", timeout=3000)
        told = page.text_content("#message")
        assert told == "Hilbert rolls D6 + D6 once: say 2 numbers (e.g. “6 5”), not 4.", told
        assert kipukas_state(srv.board.loop.state).last_bout is None, "dice that do not fit the bout were sent"
        page.fill("#bout-att-rolls", "6 6")
        page.fill("#bout-def-rolls", "4")
        page.click("#bout-physical")
        page.wait_for_function("document.querySelector('#bout-result').textContent.includes('Hilbert wins')",
                               timeout=3000)
        # the answer to the action may come after the stream's state that shows the result
        page.wait_for_function("document.querySelector('#message').textContent === 'Bout settled with the dice said.'",
                               timeout=3000)
        page.wait_for_function("document.querySelector('#souls').textContent.includes('downed')", timeout=3000)
        assert kipukas_state(srv.board.loop.state).souls["ZrrD#0001"].downed
        page.wait_for_function("document.querySelector('#caption').textContent.includes('loses one')", timeout=3000)
        assert "Raven loses one KEAL means in the bout" in page.text_content("#caption"), \
            "the caption writes KEAL means as the web rules and the page's panels do"
        page.locator("#caption").screenshot(path=os.path.join(os.environ.get("KIPUKAS_SCREENSHOTS", str(tmp_path)),
                                                              f"caption-keal-{viewport[0]}.png"))
        # The Final Blow: the dice it needs are shown, and taken as players say them ("1 1, 1 1, 1 1").
        page.dispatch_event("#bout-attacker", "change")  # a new bout: the old result goes
        assert page.text_content("#bout-result") == ""
        page.wait_for_function("document.querySelector('#bout-plan').textContent.includes('Final Blow')", timeout=3000)
        q = "territory=3&attacker=HMPU%230001&defender=ZrrD%230001"
        with urllib.request.urlopen(f"{srv.url}/api/bout/plan?{q}", timeout=10) as resp:
            fb = json.loads(resp.read())
        assert f"{fb['best_of']} rounds of" in page.text_content("#bout-att-rolls-how")

        # A best 2 of 3 won twice is over: two rounds said are the whole bout (the web rules: "twice in 3 rolls").
        assert fb["best_of"] == 3 and fb["rounds"] == [2, 3]

        def said(face: int, dice: list) -> str:
            return ", ".join(" ".join(str(min(face, d)) for d in dice) for _ in range(fb["rounds"][0]))

        # Hilbert's Final Blow fails: "After an unsuccessful blow, the player loses their ability to attack
        # with that card for this diel cycle" (both rule books): the list marks him, the plan says why
        page.fill("#bout-att-rolls", said(1, fb["attacker"]["dice"]))
        page.fill("#bout-def-rolls", said(20, fb["defender"]["dice"]))
        page.click("#bout-physical")
        page.wait_for_function("document.querySelector('#bout-result').textContent.includes('Raven wins')",
                               timeout=3000)
        bout = kipukas_state(srv.board.loop.state).last_bout
        assert bout["final_blow"] and len(bout["rounds"]) == 2
        page.wait_for_function("document.querySelector('#souls').textContent.includes('no attack this cycle')",
                               timeout=3000)
        # Neither soul may attack now (Hilbert's blow failed, the Raven is downed): the assistant says so
        # and asks the board for no plan it would refuse; neither is offered as the attacker.
        page.wait_for_function("document.querySelector('#bout-plan').textContent.startsWith('No soul here can attack')",
                               timeout=3000)
        assert page.text_content("#bout-plan") == ("No soul here can attack now: Raven is downed, Hilbert is out of "
                                                   "attacks this diel cycle."), page.text_content("#bout-plan")
        offered = page.eval_on_selector_all("#bout-attacker option", "os => os.map((o) => [o.textContent, o.disabled])")
        assert sorted(offered) == [["Hilbert (Ana): no attack this cycle, cannot attack", True],
                                   ["Raven (Bo): downed, cannot attack", True]], offered
        assert not refused, f"the page asked for a bout's plan the board refuses: {refused}"
        assert page.is_disabled("#bout-roll") and page.is_disabled("#bout-physical"), "no bout to roll"
        page.locator("#bout-panel").screenshot(path=os.path.join(os.environ.get("KIPUKAS_SCREENSHOTS", str(tmp_path)),
                                                                 f"bout-nobody-attacks-{viewport[0]}.png"),
                                               style="#message, #actionbar { visibility: hidden; }")
        post_action(srv.url, "/api/actions/roll-diel", {"phase": "night"})  # a new diel cycle: Hilbert may attack again
        page.wait_for_function("document.querySelector('#bout-plan').textContent.includes('Final Blow')", timeout=3000)
        assert page.input_value("#bout-attacker") == "HMPU#0001" and not page.is_disabled("#bout-roll")
        shots = os.environ.get("KIPUKAS_SCREENSHOTS", str(tmp_path))
        for panel in ("souls", "bout"):
            # the panel as it stands, without what floats over it at that moment (the toast that
            # goes after 3 s, the action bar fixed at the bottom of the screen); bout-360x740.png is
            # docs/_static/page-bout-360.png
            name = f"{panel}-{viewport[0]}x{viewport[1]}.png"
            page.locator(f"#{panel}-panel").screenshot(path=os.path.join(shots, name),
                                                       style="#message, #actionbar { visibility: hidden; }")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport[0], f"the page scrolls sideways at {viewport[0]} px ({width} px wide)"
        # every control of the souls panel (the bind form's long stand names too) lies inside the panel
        assert page.is_visible("#soul-bind")
        outside = page.evaluate("""() => { const p = document.getElementById('souls-panel').getBoundingClientRect();
          return [...document.querySelectorAll('#souls-panel select, #souls-panel button, #souls-panel summary')]
            .map((e) => [e.id || e.textContent.trim(), e.getBoundingClientRect()])
            .filter(([, r]) => r.width && (r.left < p.left || r.right > p.right + 0.5))
            .map(([what, r]) => `${what} ${Math.round(r.left)}..${Math.round(r.right)}`
                                + ` (panel ${p.left}..${p.right})`); }""")
        assert not outside, outside
        post_action(srv.url, "/api/actions/end-game", {"winner": 2})  # over: no more bouts
        page.wait_for_selector("#bout-form", state="hidden", timeout=3000)
        assert page.text_content("#bout-none") == "The game is over: no more bouts."
        page.wait_for_timeout(500)
        assert not refused, f"the page asked for a bout's plan after the game: {refused}"
        ctx.close()
        assert not errors, errors


def test_a_wasted_souls_token_is_called_out_until_it_is_lifted(browser, tmp_path):
    Catalog.in_dir(tmp_path).import_records(CARDS)
    with serve_board(tmp_path) as srv:
        _two_souls_in_territory_3(srv, ana_affinity="Avian")
        fight = {"territory": 3, "attacker": "HMPU#0001", "defender": "ZrrD#0001", "archetype": 0}
        post_action(srv.url, "/api/actions/bout-roll", {**fight, "rolls": {"attacker": [[6, 6]], "defender": [[1]]}})
        post_action(srv.url, "/api/actions/bout-roll",
                    {**fight, "rolls": {"attacker": [[6, 6]] * 3, "defender": [[1]] * 3}})
        assert kipukas_state(srv.board.loop.state).souls["ZrrD#0001"].wasted
        ctx = browser.new_context(viewport={"width": 360, "height": 740})
        page = ctx.new_page()
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        assert page.text_content("#now") == "Raven (Bo) is wasted: take its token off the map."
        assert "wasted" in page.get_attribute('[data-stand="M3b"]', "class")
        assert page.text_content('[data-mark="M3b"]') == "✕"
        srv.board.sim_set_stand("M3b", False)  # the token is taken off
        page.wait_for_function("() => !document.querySelector('#now').textContent.includes('wasted')", timeout=3000)
        assert "wasted" not in page.get_attribute('[data-stand="M3b"]', "class")
        ctx.close()


def test_a_soul_whose_card_has_only_a_base_fights_with_no_die_to_type(browser, tmp_path):
    """The Myrthvither Raven's card reads "Base 3": the Bout panel says it rolls no die, and a bout
    with the players' faces is settled with nothing typed for it."""
    raven = {**CARDS[1], "die": "Base 3"}
    Catalog.in_dir(tmp_path).import_records([CARDS[0], raven])
    with serve_board(tmp_path) as srv:
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        _two_souls_in_territory_3(srv)
        unlock_page(page, srv.url)
        page.wait_for_selector('#contention li[data-fight="3"] .bout-open', timeout=5000)
        page.click('#contention li[data-fight="3"] .bout-open')
        page.select_option("#bout-attacker", "HMPU#0001")
        page.select_option("#bout-defender", "ZrrD#0001")
        page.dispatch_event("#bout-defender", "change")
        # The plan asked when the assistant opened (the first soul there attacking) may still be shown:
        # wait for the plan of the pick, whose defender is the card with only a base.
        page.wait_for_function("document.querySelector('#bout-plan').textContent.includes('base roll')"
                               " && document.querySelector('#bout-def-rolls-how').textContent.includes('no die')",
                               timeout=5000)
        plan = page.text_content("#bout-plan")
        assert "rolls no die" in plan and "+3 the card's base roll (Base 3)" in plan and "D20" not in plan
        page.fill("#bout-att-rolls", "6 6")
        page.click("#bout-physical")
        page.wait_for_function("document.querySelector('#bout-result').textContent.includes('Hilbert wins')",
                               timeout=3000)
        assert kipukas_state(srv.board.loop.state).last_bout["rolls"]["defender"] == [[]]
        page.locator("#bout-panel").screenshot(path=os.path.join(os.environ.get("KIPUKAS_SCREENSHOTS", str(tmp_path)),
                                                                 "bout-base-390x844.png"))
        ctx.close()
        assert not errors, errors


@pytest.mark.parametrize("viewport", [(360, 740), (390, 844)])
def test_the_bout_assistant_names_a_territory_as_the_map_does_named_or_not(browser, tmp_path, viewport):
    """"Long Grass (3), contention" where the map names it, "territory 3, contention" where it does not
    (it read "territory (3)"), as the questions and captions word it."""
    from tests.maptools import map_data, to_toml

    unnamed = map_data()
    for t in unnamed["territories"]:
        t.pop("name", None)
    drawn = tmp_path / "unnamed.toml"
    drawn.write_text(to_toml(unnamed))
    for map_name, want in (("kipuka-8", "Long Grass (3), contention"), (str(drawn), "territory 3, contention")):
        data = tmp_path / f"data-{len(want)}"
        Catalog.in_dir(data).import_records(CARDS)
        with serve_board(data, map_name=map_name) as srv:
            _two_souls_in_territory_3(srv)
            ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
            page = ctx.new_page()
            page.goto(srv.url + "/")
            page.wait_for_selector("#link.up", timeout=5000)
            page.wait_for_function("() => document.querySelectorAll('#bout-territory option').length > 0",
                                   timeout=3000)
            assert page.text_content("#bout-territory option") == want
            ctx.close()


@pytest.mark.parametrize("viewport", [(360, 740), (390, 844)])
def test_no_attack_this_cycle_says_why_on_a_tap_quoting_the_rule_that_applies(browser, tmp_path, viewport):
    """The souls list's "no attack this cycle" says why on a phone, which cannot hover a tooltip: a tap
    opens the board's own words (``attack_spent_why``), a failed retreat (the Kipukas web rules,
    "Retreat and Reinforce") or a failed blow (both rule books, "Defeating a Soul"), different rules. Opened,
    it stays open while the board's state changes around it."""
    Catalog.in_dir(tmp_path).import_records(CARDS)
    shots = os.environ.get("KIPUKAS_SCREENSHOTS", str(tmp_path))
    with serve_board(tmp_path) as srv:
        _two_souls_in_territory_3(srv)
        srv.board.dice = ScriptedDice([1, 1, 12])  # the escapee's 2 D6 (2) against the D20 (12): caught
        post_action(srv.url, "/api/actions/roll-dice", {"kind": "retreat", "seat": 1, "souls": ["HMPU#0001"]})
        ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, has_touch=True,
                                  bypass_csp=True)  # axe is injected
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(srv.url + "/")
        page.wait_for_selector("#link.up", timeout=5000)
        spent = '#souls [data-soul="HMPU#0001"] .spent'
        pill, why = f"{spent} summary", f"{spent} .spent-why"
        page.wait_for_selector(pill, timeout=3000)
        assert page.text_content(pill) == "no attack this cycle"
        assert not page.is_visible(why), "the reason shows before it is asked for"
        box = page.locator(pill).bounding_box()
        assert box and box["height"] >= 24 and box["x"] + box["width"] <= viewport[0], box
        page.locator(pill).scroll_into_view_if_needed()
        page.tap(pill)
        page.wait_for_selector(why, state="visible", timeout=3000)
        told = page.text_content(why) or ""
        assert told.startswith("Its retreat failed"), told
        assert FAILED_RETREAT_RULE in told and "the Kipukas web rules" in told and FAILED_BLOW_RULE not in told, told
        assert page.get_attribute(f"{spent} summary", "title") is None, "the reason is a tooltip again"
        srv.board.sim_set_stand("T3", True)  # the board's state changes: the souls list is drawn again
        page.wait_for_timeout(600)
        assert page.is_visible(why), "the reason a player opened closed when the state changed"
        page.locator("#souls-panel").screenshot(path=os.path.join(shots, f"souls-why-retreat-{viewport[0]}.png"),
                                                style="#message, #actionbar { visibility: hidden; }")
        if AXE.exists():  # the disclosure open, with axe-core's tap target and label-in-name rules on
            page.add_script_tag(path=str(AXE))
            found = page.evaluate("() => axe.run('#souls-panel', {resultTypes: ['violations'], rules: {"
                                  "'target-size': {enabled: true}, 'label-content-name-mismatch': {enabled: true}}})")
            assert not found["violations"], [(v["id"], v["help"], [n["target"] for n in v["nodes"]][:3])
                                             for v in found["violations"]]
        page.tap(pill)
        page.wait_for_selector(why, state="hidden", timeout=3000)
        srv.board.sim_set_stand("T3", False)
        srv.board.dice = SystemDice()
        post_action(srv.url, "/api/actions/roll-diel", {"phase": "night"})  # a new diel cycle: Hilbert may attack again
        page.wait_for_selector(spent, state="detached", timeout=3000)
        post_action(srv.url, "/api/actions/bout-roll", {"territory": 3, "attacker": "HMPU#0001",
                                                        "defender": "ZrrD#0001",
                                                        "rolls": {"attacker": [[1, 1]], "defender": [[19]]}})  # lost
        page.wait_for_selector(pill, timeout=3000)
        assert not page.is_visible(why), "a new failure opens closed"
        page.tap(pill)
        page.wait_for_selector(why, state="visible", timeout=3000)
        told = page.text_content(why) or ""
        assert told.startswith("Its blow failed"), told
        assert FAILED_BLOW_RULE in told and "both rule books" in told and FAILED_RETREAT_RULE not in told, told
        page.locator("#souls-panel").screenshot(path=os.path.join(shots, f"souls-why-blow-{viewport[0]}.png"),
                                                style="#message, #actionbar { visibility: hidden; }")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport[0], f"the page scrolls sideways at {viewport[0]} px ({width} px wide)"
        ctx.close()
        assert not errors, errors
