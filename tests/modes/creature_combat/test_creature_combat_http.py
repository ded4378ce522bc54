"""A whole game of Creature Combat Territory through the HTTP API of a real board (waitress),
with stickers scanned through the simulated camera, then the journal replayed and the board restarted."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

from cct_decks import write_decks
from liveserver import Api, live_board

from kipukas_board.cli import main
from kipukas_board.modes.creature_combat.lights import BIOME_COLORS, LAND_LEVEL

PIN = "2468"


PLAYERS = [{"seat": 1, "name": "Ana", "color": "#e4572e", "deck": "ana"},
           {"seat": 2, "name": "Ben", "color": "#1e90ff", "deck": "ben"}]


def test_a_whole_game_through_the_http_api(tmp_path: Path, capsys) -> None:
    data = tmp_path / "data"
    for deck in write_decks(tmp_path):
        assert main(["catalog", "import", str(deck), "--data-dir", str(data)]) == 0
    with live_board(data) as (board, url):
        api = Api(url)
        assert api.state()["game"] == "kipukas"
        # refusals name the field
        status, doc = api.call("/api/actions/new-game", {"game": "creature-combat", "players": [
            {**PLAYERS[0], "deck": "nobody"}, PLAYERS[1]]})
        assert status == 400 and "field 'players[0].deck' must name an imported deck (ana, ben)" in doc["error"]
        status, doc = api.call("/api/actions/new-game", {"game": "creature-combat", "players": PLAYERS,
                                                         "options": {"deck_cost": 20}})
        assert status == 400
        assert "Ana's deck 'ana': creature deck costs 31 in all, more than the 20 agreed" in doc["error"]
        for table in ("/etc/passwd", "../../../secrets.toml", "x.toml"):  # a name, never a path on the board
            status, doc = api.call("/api/actions/new-game", {"game": "creature-combat", "players": PLAYERS,
                                                             "table": table})
            assert status == 400 and "must name a shipped table layout" in doc["error"], table
        status, doc = api.call("/api/actions/new-game", {"game": "chess", "players": PLAYERS})
        assert status == 400 and "field 'game' must be one of creature-combat, duel, kipukas" in doc["error"]
        assert api.call("/api/actions/new-game", {"game": "creature-combat", "players": PLAYERS}, pin=False)[0] == 401

        doc = api.ok("/api/actions/new-game", {"game": "creature-combat", "players": PLAYERS})
        assert [e["type"] for e in doc["effects"]] == ["cc_new_game", "cc_round"]
        s = api.state()
        cc = s["creature_combat"]
        assert s["game"] == "creature-combat" and cc["phase"] == "round_begin" and cc["deck"] == 50

        # Round Begin: two lands scanned at a seat camera, three picked on the page.
        for payload in ("cct:ana-land-00", "cct:ben-land-03"):
            r = api.ok("/api/sim/cards", {"payload": payload, "seat": 1})
            assert r["known"] is True
        for lid in ("ana-land-01", "ben-land-02", "ana-land-04"):
            api.cc("deal", {"land": lid})
        status, doc = api.call("/api/actions/creature-combat/deal", {"land": "ana-land-05"})
        assert status == 409 and "lands are dealt only in round begin (the round is in deploy)" in doc["error"]
        cc = api.state()["creature_combat"]
        assert [sl["land"]["biome"] for sl in cc["slots"]] == ["forest", "lake", "mountain", "plain", "ocean"]
        assert cc["phase"] == "deploy"
        leds = api.ok("/api/leds")
        slot1 = leds["layout"]["territories"]["1"]
        want = [round(c * LAND_LEVEL) for c in BIOME_COLORS["forest"]]
        assert all(leds["pixels"][i] == want for i in slot1)  # the slot glows in its biome's colour

        # Deploy: the board waits until every player says done.
        api.cc("done", {"seat": 1})
        assert api.state()["creature_combat"]["phase"] == "deploy"
        doc = api.cc("done", {"seat": 2})
        assert doc["effects"][-1] == {"type": "cc_combat", "slot": 1, "land": "ana-land-00", "name": "Ana Land 0",
                                      "biome": "forest"}

        # Combat at land 1 (forest): Ana shows her bear to her camera, Ben picks his goat on the page.
        assert api.ok("/api/sim/cards", {"payload": "cct:ana-bear", "seat": 1})["known"]
        api.cc("reveal", {"creature": "ben-goat", "seat": 2})
        cc = api.state()["creature_combat"]
        assert cc["combat"]["totals"] == {"1": 8 + 3, "2": 6}
        doc = api.cc("adjust", {"creature": "ben-goat", "base": 0, "power": 6, "rest": 1,
                                "reason": "Stampede: +6 power, rest 1"})
        assert doc["effects"][0]["power"] == 12
        status, doc = api.call("/api/actions/creature-combat/adjust", {"creature": "ben-goat", "power": 1})
        assert status == 400 and "'reason' must say why" in doc["error"]
        doc = api.cc("resolve")
        result = doc["effects"][0]
        assert result["winner"] == 2 and result["totals"] == {"1": 11, "2": 12}
        assert result["adjustments"]["ben-goat"]["reason"] == "Stampede: +6 power, rest 1"
        cc = api.state()["creature_combat"]
        ben = cc["seats"][1]
        assert [x["id"] for x in ben["lands"]] == ["ana-land-00"] and ben["piles"]["resting"] == {"1": ["ben-goat"]}
        assert cc["seats"][0]["piles"]["returning"] == ["ana-bear"]
        leds = api.ok("/api/leds")
        assert all(leds["pixels"][i] == [30, 144, 255] for i in slot1)  # lit in the winner's colour

        # Land 2 (lake): the eel at home; the fox fights out of its biome; the moth adds nothing.
        status, doc = api.call("/api/actions/creature-combat/reveal", {"creature": "ana-bear"})
        assert status == 409 and "cannot fight: it is in the returning pile" in doc["error"]
        api.ok("/api/sim/cards", {"payload": "cct:ana-fox", "seat": 1})
        api.cc("reveal", {"creature": "ana-moth"})
        api.ok("/api/sim/cards", {"payload": "cct:ben-eel", "seat": 2})
        assert api.state()["creature_combat"]["combat"]["totals"] == {"1": 5 + 0, "2": 4 + 3}
        assert api.cc("resolve")["effects"][0]["winner"] == 2
        # Lands 3 to 5: nobody has a creature left to reveal; each is a draw and stays.
        for _ in range(3):
            assert api.cc("resolve")["effects"][0]["winner"] is None
        cc = api.state()["creature_combat"]
        assert cc["phase"] == "round_end"
        ana, ben = cc["seats"]
        assert ana["done"] and ana["choices_left"] == 0  # no land: no choice to make
        assert ben["choices_left"] == 2 and ben["piles"]["returning"] == ["ben-goat"]  # its 1 rest counter came off
        assert ana["piles"]["returning"] == ["ana-moth"] and sorted(ana["piles"]["ready"]) == ["ana-bear", "ana-fox"]
        api.cc("choose", {"creature": "ben-goat", "choice": "ready"})
        status, doc = api.call("/api/actions/creature-combat/choose", {"creature": "ben-eel", "choice": "rest"})
        assert status == 409 and "has no rest counter to remove" in doc["error"]
        doc = api.cc("done", {"seat": 2})
        assert {"type": "cc_round", "round": 2, "deal": 2} in doc["effects"]

        # Round 2 until the end: the players agree to stop; the most lands wins.
        doc = api.cc("end-game")
        over = doc["effects"][-1]
        assert over == {"type": "cc_over", "winner": 2, "tied": [], "reason": "players agreed to end",
                        "lands": {"1": 0, "2": 2}}
        s = api.state()
        assert s["creature_combat"]["phase"] == "over" and s["creature_combat"]["winner"] == 2
        assert any("Ben wins" in c["text"] for c in s["captions"])
        live = s["creature_combat"]
        export = tmp_path / "game.jsonl"
        with urllib.request.urlopen(url + "/api/journal/export", timeout=10) as resp:
            export.write_bytes(resp.read())
    # the journal, replayed by the replay command, gives the same game
    capsys.readouterr()
    assert main(["replay", str(export)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["game"] == "creature-combat" and replayed["creature_combat"] == live
    # and a board restarted on the same data directory carries on where it was
    with live_board(data) as (board, url):
        assert Api(url).state()["creature_combat"] == live
