"""A whole 2-player Domination game on kipuka-8, from new game to a win, driven only through the
simulated reed switches and the actions API."""

from __future__ import annotations

from rules_table import Table, setup_two_players

from kipukas_board.modes.kipukas.rules.dice import ScriptedDice


def test_domination_game_from_setup_to_a_win(data_dir):
    with Table(data_dir, dice=ScriptedDice([5, 2])) as t:
        setup_two_players(t)
        s = t.state()
        assert s["phase"] == "play"
        # play starts with the player who placed the capital second, who also has initiative
        assert s["first_player"] == 2 and s["initiative"] == 2
        assert s["diel"] == {"cycle": 1, "phase": "day", "weights": {"day": 2, "night": 2, "storm": 2}}
        assert t.owners() == {1: 1, 2: 1, 3: None, 4: 2, 5: 1, 6: None, 7: 2, 8: 2}

        # web rules open day, night, day: the board does not roll for them
        assert t.roll()["event"] == {"type": "roll_diel", "cycle": 2, "phase": "night", "roll": None,
                                     "source": "fixed"}
        assert t.roll()["event"]["phase"] == "day"

        # a soul steps out of base camp T2 (its token appears next to it) and walks to claim T3
        t.put("M2b")
        assert t.stand("M2b")["owner"] == 1
        t.move("M2b", "M3a", "T3")
        assert (t.territory(3)["owner"], t.territory(3)["claim"]) == (1, "base_camp")
        # another from T5 claims T6
        t.put("M5b")
        t.move("M5b", "M6a", "T6")
        assert t.territory(6)["owner"] == 1
        assert t.questions() == []

        # attack T4 (seat 2's base camp): contention begins when the enemy soul arrives
        t.put("M3b")
        assert t.stand("M3b")["owner"] == 1
        t.move("M3b", "M4a")
        assert t.territory(4)["contention"] is True
        assert t.territory(4)["contenders"] == [2, 1]
        started = t.of_type("contention_started")[-1]
        assert started == {"type": "contention_started", "territory": 4, "players": [2, 1]}
        # winning the fight claims nothing yet: the soul must step onto the territory stand
        r = t.act("resolve-contention", {"territory": 4, "winner": 1})
        assert not [e for e in r["effects"] if e["type"] == "claimed"]
        assert t.territory(4)["contention"] is False and t.territory(4)["owner"] == 2
        assert t.territory(4)["taker"] == 1
        assert t.territory(4)["waiting"] == {"stand": "T4", "seat": 1, "step": "fight_won"}  # lit for seat 1
        t.lift("T4")  # seat 2's base camp token off, then seat 1's soul onto the stand (lift then place)
        t.move("M4a", "T4")
        assert (t.territory(4)["owner"], t.territory(4)["claim"]) == (1, "base_camp")
        assert t.territory(4)["waiting"] is None and t.stand("T4")["owner"] == 1
        assert t.problems() == [] and t.questions() == []

        # on to T7, then the capital, which falls once seat 2 holds no other base camp
        t.put("M4a")  # a soul steps out of the new base camp
        t.move("M4a", "M7a")
        assert t.territory(7)["contenders"] == [2, 1]
        t.act("resolve-contention", {"territory": 7, "winner": 1})
        assert t.owners()[7] == 2
        t.lift("T7")  # place then lift: seat 1's token goes down first, the soul token comes off after
        t.put("T7")
        assert t.owners()[7] == 2 and t.territory(7)["waiting"]["step"] == "token_back"
        t.lift("M7a")
        assert t.owners()[7] == 1 and t.questions() == []
        t.put("M7b")
        t.move("M7b", "M8a")
        assert t.territory(8)["contention"] is True  # no longer protected: seat 2 has only its capital
        t.act("resolve-contention", {"territory": 8, "winner": 1})
        t.lift("T8")
        t.lift("M8a")
        t.put("T8")
        assert {"type": "won", "winner": 1, "play_style": "domination"} in t.effects
        s = t.state()
        assert s["phase"] == "over" and s["winner"] == 1
        assert set(t.owners().values()) == {1}
        # the game is over: the diel die is not rolled any more
        t.act("roll-diel", {}, status=409)


def test_capital_cannot_be_taken_while_its_owner_holds_a_base_camp(data_dir):
    with Table(data_dir, dice=ScriptedDice([5, 2])) as t:
        setup_two_players(t)
        t.roll(), t.roll()
        t.put("M1b")  # seat 1's soul steps out of T1
        t.move("M1b", "M2a", "M2b", "M3a", "M3b", "M4a")
        assert t.territory(4)["contenders"] == [2, 1]  # T4 is an ordinary base camp of seat 2
        t.move("M4a", "M4b", "M8a")  # on into seat 2's capital: pass-through, no contention
        assert t.territory(4)["contention"] is False  # the evidence left T4
        assert t.territory(8)["contention"] is False
        assert t.stand("M8a")["owner"] == 1
        # nor can a correction hand the capital over while seat 2 holds T4 and T7
        t.act("correction", {"target": "territory", "territory": 8, "owner": 1}, status=409)
        assert t.territory(8)["owner"] == 2
        assert any("cannot be taken" in p and "still holds another base camp" in p for p in t.problems())


def test_setup_mistakes_are_visible_problems(data_dir):
    with Table(data_dir, dice=ScriptedDice([2, 6])) as t:
        t.new_game(2)
        assert t.state()["setup"]["placer"] == 2  # seat 2 rolled higher
        t.put("M3a")  # a movement stand at setup
        assert "M3a is a movement stand" in t.problems()[-1]
        assert t.stand("M3a")["owner"] is None and t.territory(3)["owner"] is None
        t.lift("M3a")
        t.put("T3")
        assert t.territory(3)["owner"] == 2
        t.lift("T3")  # the latest placement taken back: still seat 2's turn
        assert t.territory(3)["owner"] is None and t.state()["setup"]["placer"] == 2
        for sid in ("T3", "T6", "T1", "T2", "T5", "T8"):
            t.put(sid)
        s = t.state()
        assert s["phase"] == "play" and s["first_player"] == 1
        # one too many: no soul can claim on the first day, so a seventh token is a mistake
        t.put("T4")
        assert "one too many" in t.problems()[-1]
        assert t.territory(4)["owner"] is None
        # a lifted base camp from an earlier placement: the claim stays, the problem is shown
        t.lift("T4")
        t.lift("T3")
        assert t.territory(3)["owner"] == 2
        t.put("T3")
        assert t.territory(3)["owner"] == 2
