"""``GET /report`` through the game-mode seam: every game's journal read by its own rules, so a duel
played first no longer breaks the report of the Kipukas game after it, and the duel and Creature
Combat Territory have reports of their own (who played, the turns or rounds, the decisive moments).
The page's log writes each game's effects in that game's words too."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cct_decks import write_decks
from rules_table import PIN, Table

from kipukas_board.board.mapfile import load_map
from kipukas_board.cli import main
from kipukas_board.modes import game_report
from kipukas_board.modes.replay import read_lines

DECKS = Path(__file__).parents[1] / "duel_decks"
GOLDEN = Path(__file__).parents[1] / "fixtures" / "golden"


def duel_players(a: str, b: str) -> list[dict]:
    return [{"seat": 1, "name": "Ana", "color": "#e4572e", "deck": a}, {"seat": 2, "name": "Ben", "color": "#1e90ff",
                                                                       "deck": b}]


def page(t: Table) -> str:
    r = t.client.get("/report")
    assert r.status_code == 200, r.get_data(as_text=True)[-400:]
    return r.get_data(as_text=True)


def cells(html: str, seat: int) -> list[str]:
    row = re.search(rf'<tr data-seat="{seat}">(.*?)</tr>', html, re.S)
    assert row, html
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td>(.*?)</td>", row.group(1), re.S)]


def test_a_duel_then_kipukas_each_reported_by_its_own_rules(data_dir, capsys):
    for deck in ("iv8-p1", "iv8-p2"):
        assert main(["catalog", "import", str(DECKS / f"{deck}.toml"), "--data-dir", str(data_dir)]) == 0
    capsys.readouterr()
    with Table(data_dir) as t:
        t.act("new-game", {"game": "duel", "players": duel_players("iv8-p1", "iv8-p2"), "challenged": 1})
        for card in ("punch", "strong-punch", "final-punch"):
            assert t.client.post("/api/sim/cards", json={"payload": f"duel:{card}", "seat": 1}).status_code == 200
        t.act("duel/pass", {"seat": 1})
        flip = t.act("duel/pass", {"seat": 2})["seq"]  # 25 attack against no defense: one of Ben's Hearts flips
        log = {e["seq"]: e["said"] for e in t.client.get("/api/log").get_json()["entries"]}
        assert any("Ben flips a Heart" in text for text in log[flip]), log[flip]  # the duel's words in the log
        t.act("duel/concede", {"seat": 2})
        html = page(t)
        assert "Card duel game report" in html and "A card duel, 3 turns." in html and "Ana won." in html
        assert cells(html, 1) == ["Ana", "3 of 3", "3"] and cells(html, 2) == ["Ben", "2 of 3", "0"]
        moments = re.findall(r'<span class="cycle">(.*?)</span>\s*(.*?)</li>', html)
        assert [when for when, _ in moments] == ["turn 2", "turn 3"], moments  # Ben's Heart, then his concession
        assert "Ben" in moments[0][1] and "Ana" in moments[1][1]

        t.new_game(2, first_placer=1)
        t.put("T1", "T8", "T2", "T7", "T5", "T4")
        roll = t.roll()["seq"]
        # each event's words name the game they were said in (the Kipukas page reads back only its own)
        games = {e["seq"]: e["game"] for e in t.client.get("/api/log?limit=200").get_json()["entries"] if e["said"]}
        assert games[flip] == "duel" and games[roll] == "kipukas", games
        assert all(e["game"] == "" for e in t.client.get("/api/log?limit=200").get_json()["entries"] if not e["said"])
        html = page(t)  # a 500 (KeyError 'play_style') when the duel's events went to Kipukas's rules
        assert "Kipukas game report" in html and "Domination on Kipuka of Eight." in html
        assert "<polyline" in html and "Setup is complete" in html
        assert cells(html, 1) == ["Player 1", "3", "0"]
        r = t.client.post("/api/actions/new-game", headers={"X-Admin-Pin": PIN},
                          json={"game": "duel", "players": duel_players("iv8-p1", "iv8-p2")})
        assert r.status_code == 200  # the Kipukas game is paused; the report follows the duel on the table
        assert "Card duel game report" in page(t) and "No game" not in page(t)


def test_creature_combat_reports_its_rounds_and_each_lands_combat(data_dir, tmp_path, capsys):
    for deck in write_decks(tmp_path):
        assert main(["catalog", "import", str(deck), "--data-dir", str(data_dir)]) == 0
    capsys.readouterr()
    with Table(data_dir) as t:
        assert "No game has been played on this board yet" in page(t)
        t.act("new-game", {"game": "creature-combat", "players": duel_players("ana", "ben")})
        for lid in ("ana-land-00", "ben-land-03", "ana-land-01", "ben-land-02", "ana-land-04"):
            t.act("creature-combat/deal", {"land": lid})
        t.act("creature-combat/done", {"seat": 1})
        t.act("creature-combat/done", {"seat": 2})
        t.act("creature-combat/reveal", {"creature": "ana-bear", "seat": 1})
        t.act("creature-combat/resolve")
        t.act("creature-combat/end-game")
        html = page(t)
        assert "Creature Combat Territory game report" in html and "Creature Combat Territory, 1 round." in html
        assert cells(html, 1) == ["Ana", "1"] and cells(html, 2) == ["Ben", "0"] and "Ana won." in html
        whens = re.findall(r'<span class="cycle">(.*?)</span>', html)
        assert whens == ["round 1", "round 1"], whens  # the forest land's combat, then the end


def test_the_recorded_kipukas_game_reports_as_before():
    """The report of the recorded Kipukas game (its journal up to the game's end) equals the one the
    board made before reports went through the modes."""
    lines = (GOLDEN / "journal.jsonl").read_text().splitlines()
    rows = [(s, json.loads(line)["ts"], e) for line, (s, e) in zip(lines, read_lines(lines), strict=True) if s <= 26]
    got = json.loads(json.dumps(game_report(rows, load_map("kipuka-8"))))
    want = json.loads((GOLDEN / "report-kipukas.json").read_text())
    for key in ("game", "title", "columns", "summary", "chart_title", "no_chart"):
        got.pop(key)
    for m in got["moments"]:
        assert m.pop("when") == f"cycle {m['cycle']}"
    assert got == want
    whole = [(s, json.loads(line)["ts"], e) for line, (s, e) in zip(lines, read_lines(lines), strict=True)]
    assert game_report(whole, load_map("kipuka-8"))["players"][0]["name"] == "Player 1"  # the last game, Kipukas


def test_the_log_names_a_duel_card_by_its_card_not_by_a_later_games_player(data_dir, capsys):
    """The log is read with the names of the game on the table now; a duel's card shown before a
    Kipukas game is told by the card, never as shown at that Kipukas player's seat."""
    for deck in ("iv8-p1", "iv8-p2"):
        assert main(["catalog", "import", str(DECKS / f"{deck}.toml"), "--data-dir", str(data_dir)]) == 0
    capsys.readouterr()
    with Table(data_dir) as t:
        t.act("new-game", {"game": "duel", "players": duel_players("iv8-p1", "iv8-p2"), "challenged": 1})
        assert t.client.post("/api/sim/cards", json={"payload": "duel:punch", "seat": 1}).status_code == 200
        shown = t.board.journal.last_seq()
        t.act("duel/concede", {"seat": 2})
        t.new_game(2, first_placer=1)
        log = {e["seq"]: e["text"] for e in t.client.get("/api/log").get_json()["entries"]}
        assert log[shown] == "Punch was shown at seat 1.", log[shown]


def test_the_report_names_the_territory_a_contention_was_won_over_as_the_map_does(data_dir):
    """The report's moment for a contention the players settled is the log's sentence, with the
    territory as the map names it ("Grey Peaks (4)"), never "territory 4"."""
    with Table(data_dir) as t:
        t.act("new-game", {"players": [
            {"seat": 1, "name": "Ana", "color": "#e4572e"}, {"seat": 2, "name": "Ben", "color": "#1e90ff"}],
            "first_placer": 1})
        t.put("T1", "T8", "T2", "T7", "T5", "T4")  # Ben's last base camp on Grey Peaks (4)
        t.roll()
        t.roll()
        t.put("M4b")
        t.act("correction", {"target": "stand", "stand": "M4b", "owner": 1})  # Ana's soul in Ben's territory
        t.act("resolve-contention", {"territory": 4, "winner": 2})
        html = page(t)
        assert "Ben won the contention over Grey Peaks (4)." in html, re.findall(r"contention[^<]*", html)
        assert "territory 4" not in html
