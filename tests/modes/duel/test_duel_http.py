"""The worked simulation of the card duel's rules (../shared/seeds/003, section IV.8, steps a to bu)
replayed through the HTTP API of a real board (waitress), with cards shown to the seats' simulated
cameras and picked on the page, reaching the numbers the text gives; then the journal replayed and the
board restarted to the same state.

The decks are tests/duel_decks/iv8-p1.toml and iv8-p2.toml: the cards the simulation names, written as
card files, and plain cards to make 30. P1 (seat 1) is the challenged player.
"""

from __future__ import annotations

import urllib.request
from pathlib import Path
from typing import Any

from liveserver import Api, live_board

from kipukas_board.cli import main

DECKS = Path(__file__).parents[2] / "duel_decks"
PLAYERS = [{"seat": 1, "name": "Ana", "color": "#e4572e", "deck": "iv8-p1"},
           {"seat": 2, "name": "Ben", "color": "#1e90ff", "deck": "iv8-p2"}]


def duel(api: Api) -> dict[str, Any]:
    return api.state()["duel"]


def seat(api: Api, n: int) -> dict[str, Any]:
    return next(s for s in duel(api)["seats"] if s["seat"] == n)


def contribution(api: Api, n: int, name: str) -> dict[str, Any]:
    return next(c for c in seat(api, n)["contributions"] if c["name"] == name)


def show(api: Api, n: int, card: str) -> None:
    """A card shown to seat ``n``'s camera (its sticker's payload)."""
    r = api.ok("/api/sim/cards", {"payload": f"duel:{card}", "seat": n})
    assert r["known"] is True, r


def play(api: Api, card: str, **more: Any) -> dict[str, Any]:
    """A card picked on the page."""
    return api.ok("/api/actions/duel/play", {"card": card, **more})


def test_the_worked_simulation_through_the_http_api(tmp_path: Path, capsys) -> None:
    data = tmp_path / "data"
    for deck in ("iv8-p1", "iv8-p2"):
        assert main(["catalog", "import", str(DECKS / f"{deck}.toml"), "--data-dir", str(data)]) == 0
    assert "30 cards" in capsys.readouterr().out
    with live_board(data) as (board, url):
        api = Api(url)
        status, doc = api.call("/api/actions/new-game", {"game": "duel", "players": PLAYERS, "deck_size": 20})
        assert status == 400 and "Ana's deck 'iv8-p1': has 30 cards, a deck has 20" in doc["error"]
        doc = api.ok("/api/actions/new-game", {"game": "duel", "players": PLAYERS, "challenged": 1})
        assert [e["type"] for e in doc["effects"]][:3] == ["duel_new_game", "duel_turn", "duel_drew"]
        d = duel(api)
        assert api.state()["game"] == "duel" and d["to_act"] == 1 and d["turn"] == 1
        # a. the challenged plays first and draws 5
        assert (seat(api, 1)["pool"], seat(api, 1)["source"], seat(api, 1)["hearts"]) == (5, 25, 3)
        # b-h. Punch, Strong Punch (after Punch), Final Punch (last with Punch) shown to P1's camera
        for card in ("punch", "strong-punch", "final-punch"):
            show(api, 1, card)
        assert [c["name"] for c in seat(api, 1)["line"]] == ["Punch", "Strong Punch", "Final Punch"]
        assert [c["attack"] for c in seat(api, 1)["contributions"]] == [5, 10, 10]
        assert "after Punch" in contribution(api, 1, "Strong Punch")["why"]
        assert seat(api, 1)["attack"] == 25
        # P2 cannot play in P1's turn
        status, doc = api.call("/api/actions/duel/play", {"card": "avoidance", "seat": 2})
        assert status == 409 and "it is Ana's turn, not Ben's" in doc["error"]
        # i-j. two cards stay in the pool
        assert seat(api, 1)["pool"] == 2
        api.ok("/api/actions/duel/pass", {"seat": 1})
        # k-l. P2 draws 7 and faces 25 attack
        d = duel(api)
        assert d["to_act"] == 2 and seat(api, 2)["pool"] == 7
        # m. two Synergy Energy: 16 defense
        show(api, 2, "synergy-energy")
        show(api, 2, "synergy-energy")
        assert [c["defense"] for c in seat(api, 2)["contributions"]] == [8, 8]
        assert seat(api, 2)["defense"] == 16
        # n-o. Avoidance: 26 defense
        play(api, "avoidance")
        assert seat(api, 2)["defense"] == 26
        # a third Synergy Energy: the deck has two
        status, doc = api.call("/api/actions/duel/play", {"card": "synergy-energy"})
        assert status == 409 and "no copy of Synergy Energy" in doc["error"]
        # p-t. Mountain, off the line
        show(api, 2, "mountain")
        assert duel(api)["terrain"]["name"] == "Mountain" and len(seat(api, 2)["line"]) == 3
        # u. Single Axe Throw: +20 as the only attack in the line
        play(api, "single-axe-throw")
        assert contribution(api, 2, "Single Axe Throw")["attack"] == 20 and seat(api, 2)["attack"] == 20
        # v. P2 passes with 2 in the pool; 25 attack against 26 defense flips nothing
        assert seat(api, 2)["pool"] == 2
        doc = api.ok("/api/actions/duel/pass", {})
        res = next(e for e in doc["effects"] if e["type"] == "duel_resolved")
        assert (res["attack"], res["defense"], res["flipped"]) == (25, 26, False)
        assert seat(api, 2)["hearts"] == 3
        # w. P1's combo discarded, a standard draw of 3
        assert seat(api, 1)["line"] == [] and seat(api, 1)["trash"] == 3 and seat(api, 1)["pool"] == 5
        assert next(e for e in doc["effects"] if e["type"] == "duel_drew")["count"] == 3
        # x. Forest cannot replace Mountain in its first round
        status, doc = api.call("/api/actions/duel/play", {"card": "forest"})
        assert status == 409 and "Mountain cannot be destroyed until turn 3 is over" in doc["error"]
        # y-z. Swift Comeback draws 1 per 10 attack taken: 2
        assert seat(api, 2)["attack"] == 20
        doc = play(api, "swift-comeback")
        assert next(e for e in doc["effects"] if e["type"] == "duel_drew")["count"] == 2
        assert seat(api, 1)["pool"] == 6 and [c["name"] for c in seat(api, 1)["line"]] == ["Swift Comeback"]
        # ab-ae. Oak Bark Shield and Stretch Club in the two hand slots
        show(api, 1, "oak-bark-shield")
        show(api, 1, "stretch-club")
        assert [c["name"] for c in seat(api, 1)["hands"]] == ["Oak Bark Shield", "Stretch Club"]
        # ah-ai. Elemental Aura (+8 at any terrain), Recurrent Aura (+2 per defense card in line)
        show(api, 1, "elemental-aura")
        show(api, 1, "recurrent-aura")
        # aj-ak. Oak Bark Shield's 8 with two cards in each pool; 20 defense in all
        assert (seat(api, 1)["pool"], seat(api, 2)["pool"]) == (2, 2)
        assert contribution(api, 1, "Oak Bark Shield")["defense"] == 8
        assert "4 cards in both pools" in contribution(api, 1, "Oak Bark Shield")["why"]
        assert contribution(api, 1, "Elemental Aura")["defense"] == 8
        assert contribution(api, 1, "Recurrent Aura")["defense"] == 4
        assert seat(api, 1)["defense"] == 20
        # al-am. Stretch Club's attack follows both lines: 3 of P1's and 4 of P2's now
        assert contribution(api, 1, "Stretch Club")["attack"] == 7
        doc = api.ok("/api/actions/duel/pass", {})
        res = next(e for e in doc["effects"] if e["type"] == "duel_resolved")
        assert (res["attack"], res["defense"], res["flipped"]) == (20, 20, False)  # defended perfectly
        # an-ao. P2's combo discarded (Mountain stays): Stretch Club's attack is 3; a standard draw of 3
        assert seat(api, 2)["line"] == [] and duel(api)["terrain"]["name"] == "Mountain"
        assert seat(api, 1)["attack"] == 3 and contribution(api, 1, "Stretch Club")["attack"] == 3
        assert seat(api, 2)["pool"] == 5
        # ap-ar. Struggling Roots (BURN) destroys Stretch Club: nothing left to defend
        status, doc = api.call("/api/actions/duel/play", {"card": "struggling-roots"})
        assert status == 409 and "name it with target" in doc["error"]
        play(api, "struggling-roots", target="stretch-club")
        assert seat(api, 1)["attack"] == 0
        assert [c["name"] for c in seat(api, 1)["limbo_cards"]] == ["Stretch Club"]
        assert [c["name"] for c in seat(api, 2)["limbo_cards"]] == ["Struggling Roots"]
        assert seat(api, 2)["line"] == []
        # as-ay. P2's line aims at Oak Bark Shield (shield 8)
        doc = api.ok("/api/actions/duel/aim", {"target": "oak-bark-shield"})
        assert doc["effects"][0]["shield"] == 8 and seat(api, 2)["aim"] == "oak-bark-shield#1"
        # bc-bi. Hateful Mates in a hand; Chainsickle takes both hands, so the trap is destroyed
        show(api, 2, "hateful-mates")
        assert [c["name"] for c in seat(api, 2)["hands"]] == ["Hateful Mates"]
        show(api, 2, "chainsickle")
        assert [c["name"] for c in seat(api, 2)["hands"]] == ["Chainsickle"]
        assert "Hateful Mates" in [c["name"] for c in seat(api, 2)["limbo_cards"]]
        assert contribution(api, 2, "Chainsickle")["attack"] == 0  # no card in P2's line yet
        # bk-bm. Double Edged Cestus: +7 attack or +7 defense, turned left
        play(api, "double-edged-cestus")
        assert "turn the card left or right" in contribution(api, 2, "Double Edged Cestus")["why"]
        api.ok("/api/actions/duel/choose", {"card": "double-edged-cestus", "side": "right"})
        assert seat(api, 2)["defense"] == 7
        api.ok("/api/actions/duel/choose", {"card": "double-edged-cestus", "side": "left"})
        assert contribution(api, 2, "Chainsickle")["attack"] == 2
        assert (seat(api, 2)["attack"], seat(api, 2)["defense"]) == (9, 0)
        doc = api.ok("/api/actions/duel/pass", {})
        res = next(e for e in doc["effects"] if e["type"] == "duel_resolved")
        assert (res["attack"], res["flipped"]) == (0, False)
        # ay-ba, the next turn: P1's combo discarded (Swift Comeback's PHASE: the bottom of the source)
        moved = {e["name"]: e["to"] for e in doc["effects"] if e["type"] == "duel_moved"}
        assert moved == {"Swift Comeback": "bottom", "Elemental Aura": "trash", "Recurrent Aura": "trash"}
        assert seat(api, 1)["pool"] == 5
        # P1 passes: 9 attack beats the shield of 8, so Oak Bark Shield is defeated (CRUMBLE: limbo);
        # P1 has 12 defense from it (6 cards in both pools) and 8 extra from its shield: no Heart flips
        doc = api.ok("/api/actions/duel/pass", {})
        res = next(e for e in doc["effects"] if e["type"] == "duel_resolved")
        assert (res["attack"], res["defense"], res["shield"], res["flipped"]) == (9, 12, 8, False)
        assert res["defeated"] == "oak-bark-shield#1"
        assert "Oak Bark Shield" in [c["name"] for c in seat(api, 1)["limbo_cards"]]
        # a manual adjustment with a reason, then undo
        doc = api.ok("/api/actions/duel/adjust", {"card": "chainsickle", "attack": 5, "reason": "house rule test"})
        assert contribution(api, 2, "Chainsickle")["attack"] == 5
        assert "house rule test" in contribution(api, 2, "Chainsickle")["why"]
        api.ok("/api/actions/duel/undo", {})
        assert contribution(api, 2, "Chainsickle")["attack"] == 0
        before = api.state()["duel"]
        counts = [(s["source"], s["pool"], s["trash"], s["limbo"], len(s["line"]), len(s["hands"]))
                  for s in before["seats"]]
        # P1: 13 drawn of 30 and Swift Comeback back at the bottom; the three punches and two auras in
        # the trash; Stretch Club and Oak Bark Shield in limbo. P2: 14 drawn; five in the trash; Struggling
        # Roots and Hateful Mates in limbo; Chainsickle in the hands, Mountain the terrain.
        assert counts == [(18, 5, 5, 2, 0, 0), (16, 5, 5, 2, 0, 1)]
        # the page is served
        with urllib.request.urlopen(url + "/duel", timeout=10) as resp:
            page = resp.read().decode()
        assert resp.status == 200 and 'id="duel-seats"' in page
    # restart: the journal rebuilds the same duel
    with live_board(data) as (board, url):
        after = Api(url).state()["duel"]
        for k in ("turn", "to_act", "seats", "terrain", "results"):
            assert after[k] == before[k], k
