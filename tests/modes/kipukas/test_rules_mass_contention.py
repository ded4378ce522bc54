"""A 3-player Mass Contention game on the 12-territory map, and the actions API's refusals."""

from __future__ import annotations

from rules_table import Table

from kipukas_board.modes.kipukas.rules.dice import ScriptedDice


def test_three_player_mass_contention_on_twelve_territories(data_dir):
    with Table(data_dir, map_name="kipuka-12") as t:
        t.act("new-game", {"players": [{"seat": s, "name": n, "color": c} for s, n, c in
                                       ((1, "Ana", "#e4572e"), (2, "Bo", "#1e90ff"), (3, "Cy", "#2e8b57"))],
                           "play_style": "mass_contention", "first_placer": 1})
        placements = [("T1", 1), ("T5", 2), ("T9", 3), ("T2", 1), ("T6", 2), ("T10", 3),
                      ("T3", 1), ("T7", 2), ("T11", 3)]
        for sid, seat in placements:
            assert t.state()["setup"]["placer"] == seat
            t.put(sid)
        s = t.state()
        assert s["phase"] == "play" and s["first_player"] == 2
        assert s["scores"] == {"territories": {"1": 3, "2": 3, "3": 3}}
        t.roll(), t.roll()  # web opening: cycle 3 is day

        t.put("M3b")  # seat 1 out of T3, claims T4
        t.move("M3b", "M4a", "T4")
        t.put("M7b")  # seat 2 out of T7, claims T8
        t.move("M7b", "M8a", "T8")
        assert t.owners()[4] == 1 and t.owners()[8] == 2

        # seat 1 passes through seat 2's capital T5 into seat 2's base camp T6
        t.put("M4b")
        t.move("M4b", "M5a", "M5b")
        assert t.territory(5)["contention"] is False
        t.move("M5b", "M6a")
        assert t.territory(6)["contenders"] == [2, 1]
        # seat 3 walks in from T9 through T8 and T7 (contending each on the way) to join the fight
        t.put("M9a")
        t.move("M9a", "M8b")
        assert t.territory(8)["contenders"] == [2, 3]
        t.move("M8b", "M8a", "M7b", "M7a", "M6b")
        assert t.territory(8)["contention"] is False and t.territory(7)["contention"] is False
        assert t.territory(6)["contenders"] == [2, 1, 3]
        assert {"type": "contention_changed", "territory": 6, "players": [2, 1, 3]} in t.effects

        # seat 3 wins: seat 2 has no soul left there, but seat 1's token still stands on M6a: asked
        r = t.act("resolve-contention", {"territory": 6, "winner": 3})
        assert not [e for e in r["effects"] if e["type"] == "claimed"]
        q = t.questions()[-1]
        assert q["kind"] == "fight_over" and q["seat"] == 1 and q["options"] == ["defeated", "retreat", "continue"]
        assert t.territory(6)["contention"] is True
        r = t.answer(q["id"], "defeated")
        assert {"type": "souls_defeated", "territory": 6, "seat": 1, "by": 3, "count": 1, "stand": None,
                "cleared": True} in r["effects"]
        assert t.stand("M6a")["awaiting"] == "wasted" and t.territory(6)["contention"] is False
        t.act("resolve-contention", {"territory": 6, "winner": 3}, status=409)
        t.lift("M6a")  # the defeated soul's token comes off: no move
        t.lift("T6")
        t.move("M6b", "T6")  # seat 3's soul steps onto the base camp stand
        assert (t.territory(6)["owner"], t.territory(6)["claim"]) == (3, "base_camp")

        # the rest by corrections; capitals fall only once their owners hold no other base camp
        r = t.act("correction", {"target": "territory", "territory": 1, "owner": 3}, status=409)
        assert "still holds another base camp" in r["error"] and t.owners()[1] == 1
        for n in (2, 3, 4, 7, 8, 1):
            t.act("correction", {"target": "territory", "territory": n, "owner": 3})
            assert t.owners()[n] == 3
        r = t.act("correction", {"target": "territory", "territory": 5, "owner": 3})
        assert {"type": "won", "winner": 3, "play_style": "mass_contention"} in r["effects"]
        assert t.owners()[12] is None  # the water is a transit territory: nobody holds it
        assert t.state()["winner"] == 3


def test_player_limits_and_bad_bodies_are_refused(data_dir):
    with Table(data_dir) as t:
        t.act("roll-diel", {}, status=409)  # no game yet
        ps = [{"seat": s, "name": f"P{s}", "color": "#123456"} for s in (1, 2, 3)]
        r = t.act("new-game", {"players": ps, "play_style": "mass_contention"}, status=400)
        assert "at most 2 players" in r["error"]  # 8 territories: 2 players
        r = t.act("new-game", {"players": ps[:1]}, status=400)
        assert "'players' must be a list of 2 to 4 players" in r["error"]
        bad = [dict(ps[0]), {"seat": 2, "name": "B", "color": "blue"}]
        r = t.act("new-game", {"players": bad}, status=400)
        assert "'players'[1].color" in r["error"] and "#1e90ff" in r["error"]
        r = t.act("new-game", {"players": ps[:2], "edition": "2019"}, status=400)
        assert "'edition' must be one of web, 2023" in r["error"]
        r = t.act("new-game", {"players": ps[:2], "diel_weights": {"day": 1, "dusk": 1}}, status=400)
        assert "diel_weights" in r["error"]
        r = t.act("new-game", {"players": ps[:2], "play_style": "king_of_the_hill"}, status=400)
        assert "territory, cycles" in r["error"]
        r = t.act("new-game", {"players": ps[:2], "colour": 1}, status=400)
        assert "unknown field(s) colour" in r["error"]
        r = t.act("new-game", {"players": ps[:2], "map": "kipuka-12"}, status=409)
        assert "pick map 'kipuka-12' first (POST /api/actions/map" in r["error"]
        t.act("new-game", {"players": ps[:2], "map": "kipuka-8", "first_placer": 2,
                           "diel_weights": {"day": 3, "night": 2, "storm": 1}})
        assert t.state()["diel"]["weights"] == {"day": 3, "night": 2, "storm": 1}
        r = t.act("roll-diel", {}, status=409)
        assert "setup" in r["error"]
        for sid in ("T1", "T2", "T3", "T4", "T5", "T6"):
            t.put(sid)
        r = t.act("roll-diel", {"phase": "dusk"}, status=400)
        assert "'phase' must be one of day, night, storm" in r["error"]
        r = t.act("answer", {"question": 3, "answer": 1}, status=400)
        assert "'question'" in r["error"]
        r = t.act("resolve-contention", {"territory": "3", "winner": 1}, status=400)
        assert "'territory' must be a territory number" in r["error"]
        r = t.act("timer", {"label": "x", "cycles": 0}, status=400)
        assert "'cycles' must be a whole number from 1 up" in r["error"]
        r = t.act("correction", {"target": "stand", "stand": "M1a"}, status=400)
        assert "at least one of 'owner', 'claim' or 'downed'" in r["error"]
        r = t.client.post("/api/actions/undo", json={})
        assert r.status_code == 401
        r = t.client.post("/api/actions/undo", json={}, headers={"X-Admin-Pin": "0000"})
        assert r.status_code == 403


def test_the_lake_does_not_count_towards_the_player_limit(data_dir):
    """kipuka-12 has 12 territories, one of them a transit lake: 11 can be held, so 3 players at most
    (4 players placing 3 territories each would need 12 territory stands and setup could never end)."""
    with Table(data_dir, map_name="kipuka-12") as t:
        ps = [{"seat": s, "name": f"P{s}", "color": "#123456"} for s in (1, 2, 3, 4)]
        r = t.act("new-game", {"players": ps, "play_style": "mass_contention"}, status=400)
        assert "11 territories that can be held" in r["error"] and "at most 3 players" in r["error"]
        t.act("new-game", {"players": ps[:3], "play_style": "mass_contention"})


def test_a_random_hill_is_never_the_lake(data_dir):
    lake = 12
    with Table(data_dir, map_name="kipuka-12", dice=ScriptedDice([lake, 19, 7, 5, 2])) as t:
        assert t.board.loop.state.board.territories[lake].transit
        r = t.new_game(2, play_style="king_of_the_hill", options={"territory": "random", "cycles": 2})
        assert r["event"]["options"]["territory_rolls"] == [lake, 19, 7]
        assert t.state()["style_options"]["territory"] == 7 and t.state()["phase"] == "setup"


def test_four_players_play_mass_contention_on_the_thirteen_territory_map(data_dir):
    """kipuka-13: twelve land territories that can be held around a transit lake, so Mass Contention
    seats 4. Placing goes round the table from the first placer; the second placer plays first and
    holds initiative; each day the others act round the table after the initiative holder."""
    with Table(data_dir, map_name="kipuka-13", dice=ScriptedDice([2, 6, 3, 1])) as t:
        s = t.state()
        assert s["player_limits"]["mass_contention"]["players"] == 4
        assert "12 here" in s["player_limits"]["mass_contention"]["why"]
        assert s["player_limits"]["domination"]["players"] == 2
        r = t.new_game(4, play_style="mass_contention")
        assert r["event"]["first_placer"] == 2  # seat 2 rolled the highest D6
        assert t.state()["setup"]["order"] == [2, 3, 4, 1]
        for k in range(12):  # capitals T1, T4, T7, T10, then base camps round the table twice
            sid = f"T{[1, 4, 7, 10][k % 4] + k // 4}"
            assert t.state()["setup"]["placer"] == [2, 3, 4, 1][k % 4]
            t.put(sid)
        s = t.state()
        assert s["phase"] == "play" and s["first_player"] == 3 and s["initiative"] == 3
        assert s["turn_order"] == [3, 4, 1, 2]  # the first placer acts last on the first day
        assert s["scores"] == {"territories": {"1": 3, "2": 3, "3": 3, "4": 3}}
        assert t.owners()[13] is None  # the lake is transit: nobody holds it
        t.roll(), t.roll()  # cycle 3, the fixed day
        t.act("initiative", {"seat": 1})
        assert t.state()["turn_order"] == [1, 2, 3, 4]
        # a fight between two of the four: seat 2 (T2) walks into seat 3's T5 through seat 2's T3
        t.put("M2b")
        assert t.stand("M2b")["owner"] == 2
        t.move("M2b", "M3a", "M3b", "M4a", "M4b", "M5a")
        assert t.territory(5)["contenders"] == [3, 2]
        t.act("resolve-contention", {"territory": 5, "winner": 2})
        t.lift("T5")
        t.move("M5a", "T5")
        assert t.owners()[5] == 2 and t.state()["scores"]["territories"] == {"1": 3, "2": 4, "3": 2, "4": 3}


def test_the_thirteen_territory_map_is_refused_a_fifth_player_with_the_reason(data_dir):
    with Table(data_dir, map_name="kipuka-13") as t:
        ps = [{"seat": s, "name": f"P{s}", "color": "#123456"} for s in (1, 2, 3, 4, 5)]
        r = t.act("new-game", {"players": ps, "play_style": "mass_contention"}, status=400)
        assert "allows at most 4 players, not 5" in r["error"]
        r = t.act("new-game", {"players": ps[:3], "play_style": "king_of_the_hill",
                               "options": {"territory": 2, "cycles": 3}}, status=400)
        assert "at most 2 players" in r["error"]
