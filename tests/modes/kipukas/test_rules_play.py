"""Scripted turns through the simulated sensors and the actions API: storms, night moves,
imprisonment, King of the Hill, editions, questions and undo, timers and dice for players."""

from __future__ import annotations

from rules_table import Table, play

from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.kipukas.rules.dice import ScriptedDice


def test_storm_exposes_every_soul_outside_a_capital_or_base_camp(data_dir):
    with Table(data_dir, dice=ScriptedDice([5, 1])) as t:  # the diel die: 5 = storm, then 1 = day
        play(t, edition="2023")
        t.put("M1a")  # next to seat 1's capital
        t.put("M2a")  # next to seat 1's base camp T2
        t.put("M8b")  # next to seat 2's capital
        t.put("M6a")  # next to no held territory: a question, answered
        q = t.questions()[-1]
        assert q["kind"] == "stand_owner" and q["stand"] == "M6a"
        t.answer(q["id"], 2)
        t.act("correction", {"target": "stand", "stand": "M2a", "downed": True})
        assert t.stand("M2a")["downed"] is True
        assert t.roll()["event"]["phase"] == "night"  # 2023 rule book: day, night, then roll
        r = t.roll()
        assert r["event"] == {"type": "roll_diel", "cycle": 3, "phase": "storm", "roll": 5, "source": "board"}
        assert {"type": "diel", "cycle": 3, "phase": "storm", "roll": 5, "fixed": False,
                "source": "board"} in r["effects"]
        storm = next(e for e in r["effects"] if e["type"] == "storm")
        assert storm == {"type": "storm", "cycle": 3, "exposed": ["M1a", "M2a", "M6a", "M8b"], "wasted": ["M2a"]}
        s = t.state()
        assert s["storm_exposed"] == ["M1a", "M2a", "M6a", "M8b"]
        assert s["souls_lost"] == {"1": 1}
        assert t.stand("M2a")["awaiting"] == "wasted"
        # initiative does not apply to storms: it carries over
        r = t.act("initiative", {"seat": 1}, status=409)  # refused, and said why
        assert "carries over" in r["error"] and t.state()["initiative"] == 2
        t.lift("M2a")  # the wasted soul's token taken off: not a move, no question
        assert t.state()["hand"] == [] and t.questions() == []
        r = t.roll()
        assert r["event"]["phase"] == "day"
        assert t.state()["storm_exposed"] == []
        # a physical roll entered by a player
        r = t.roll("storm")
        assert r["event"] == {"type": "roll_diel", "cycle": 5, "phase": "storm", "roll": None, "source": "physical"}
        assert t.state()["storm_exposed"] == ["M1a", "M6a", "M8b"]


def test_movement_at_night_is_flagged(data_dir):
    with Table(data_dir) as t:
        play(t)
        t.roll()  # cycle 2: night
        t.put("M1a")
        assert t.of_type("night_move") == [{"type": "night_move", "stand": "M1a", "phase": "night"}]
        assert "during the night" in t.problems()[-1]


def into_the_enemy_capital(t: Table) -> None:
    """Web rules: seat 1's soul steps out of T1 and walks into seat 2's capital T8 on day 3."""
    play(t)
    t.roll(), t.roll()  # cycle 3: the fixed day
    t.put("M1b")
    t.move("M1b", "M2a", "M2b", "M3a", "M3b", "M4a", "M4b", "M8a")


def test_a_soul_loitering_in_an_enemy_capital_is_imprisoned(data_dir):
    with Table(data_dir) as t:
        into_the_enemy_capital(t)
        assert t.territory(8)["contention"] is False  # pass-through
        r = t.roll("night")  # cycle 4: one cycle there, not yet more than one
        assert not [e for e in r["effects"] if e["type"] == "imprisoned"]
        r = t.roll("day")  # cycle 5: it stayed more than a whole cycle
        assert {"type": "imprisoned", "territory": 8, "stand": "M8a", "prisoner_of": 2, "owner": 1} in r["effects"]
        assert t.territory(8)["prisoners"] == [1]
        assert t.stand("M8a")["awaiting"] == "imprisoned"
        t.lift("M8a")  # its token goes to the capital's card stack: no move, no question
        assert t.state()["hand"] == [] and t.questions() == []
        assert t.territory(8)["prisoners"] == [1]


def test_king_of_the_hill_is_won_after_holding_the_hill_n_cycles(data_dir):
    # the hill is a random territory: D20 17 and 13 are above 8 and re-rolled, 3 counts; then D6 5 / 2
    with Table(data_dir, dice=ScriptedDice([17, 13, 3, 5, 2])) as t:
        r = t.new_game(2, play_style="king_of_the_hill", options={"territory": "random", "cycles": 3})
        assert r["event"]["options"] == {"territory": 3, "territory_rolls": [17, 13, 3], "cycles": 3}
        t.put("T2", "T4")  # King of the Hill: players start with only a capital, in adjacent territories
        assert "not next to the first capital" in t.problems()[-1]
        assert t.territory(4)["owner"] is None and t.state()["setup"]["placer"] == 2
        t.lift("T4")
        t.put("T6")  # T2 and T6 are joined by the path M2b-M6a
        s = t.state()
        assert s["phase"] == "play" and t.territory(6)["claim"] == "capital"
        t.roll(), t.roll()  # cycle 3, day
        t.put("M2b")
        t.move("M2b", "M3a", "T3")
        assert t.territory(3)["owner"] == 1
        for phase in ("night", "day"):  # cycles 4 and 5: held 1, then 2 cycles
            r = t.roll(phase)
            assert not [e for e in r["effects"] if e["type"] == "won"]
        r = t.roll("night")  # cycle 6: held 3 cycles
        assert {"type": "won", "winner": 1, "play_style": "king_of_the_hill"} in r["effects"]
        assert t.state()["winner"] == 1


def _edition_game(data_dir, edition):
    with Table(data_dir, dice=ScriptedDice([7])) as t:
        play(t, edition=edition)
        t.put("M1a")
        t.roll()
        r3 = t.roll("day")  # a physical roll of day: the web rules' fixed third day agrees
        t.put("M1b")
        t.move("M1b", "M2a")
        trap = t.act("roll-dice", {"kind": "trap", "seat": 1})
        return t.state(), r3, trap


def test_the_same_game_under_both_editions_differs_only_where_the_rules_do(tmp_path):
    web, web3, web_trap = _edition_game(tmp_path / "web", "web")
    ed23, ed3, ed_trap = _edition_game(tmp_path / "2023", "2023")
    # where the rules differ: the opening, trap detection, the downed movement table
    assert web3["event"]["source"] == "fixed" and ed3["event"]["source"] == "physical"
    assert web_trap["effects"][0]["detected"] is False  # web: 1-4
    assert ed_trap["effects"][0]["detected"] is True  # 2023: 1, 2, 7, 8
    assert web["rules"]["opening"] == ["day", "night", "day"] and ed23["rules"]["opening"] == ["day", "night"]
    assert web["rules"]["downed_movement"]["1"]["escort"] is True
    assert ed23["rules"]["downed_movement"]["1"]["every"] == 2
    # and the words the board says for a night (each edition's own list of what a night allows)
    assert "Discard, draw, craft" in " ".join(c["text"] for c in ed23["captions"])
    assert "Discard" not in " ".join(c["text"] for c in web["captions"])
    # everywhere else the two games are the same
    for doc in (web, ed23):
        for key in ("edition", "rules", "last_roll", "health", "lights", "captions"):
            doc.pop(key)
    assert web == ed23


def test_questions_answers_and_undo(data_dir):
    with Table(data_dir) as t:
        t.act("undo", status=409)  # nothing to undo yet
        play(t)
        t.roll(), t.roll()
        # a token appears where no base camp could have sent it
        t.put("M3a")
        q = t.questions()[-1]
        assert q["kind"] == "stand_owner" and q["options"] == [1, 2] and "M3a" in q["text"]
        assert t.answer(q["id"], 5, status=409)["error"] == f"question {q['id']}: answer 5 is not one of [1, 2]"
        t.answer("q99", 1, status=409)
        t.answer(q["id"], 2)
        assert t.stand("M3a")["owner"] == 2 and t.questions() == []
        # a token lifted and put down within a soul's reach keeps its owner
        t.put("M1b")
        t.move("M1b", "M6b")  # M1b-M5a-M5b-M6a-M6b: 4 steps, the same soul
        assert t.stand("M6b")["owner"] == 1
        # two far stands change together: is the token on M8b the one lifted from M1a?
        t.put("M1a")
        t.lift("M1a")
        t.put("M8b")  # 9 steps from M1a: too far to be that soul, even next to seat 2's capital
        q = t.questions()[-1]
        assert q["stand"] == "M8b" and "too far" in q["text"] and t.stand("M8b")["owner"] is None
        t.answer(q["id"], 1)
        # seat 1 enters seat 2's base camp T7, then its token vanishes and never comes back down
        t.move("M8b", "M8a", "M7b")
        assert t.territory(7)["contenders"] == [2, 1]
        t.lift("M7b")
        r = t.roll()  # the end of the cycle: was it a retreat or a loss?
        q = next(e["question"] for e in r["effects"] if e["type"] == "question")
        assert q["kind"] == "vanished" and q["options"] == ["retreated", "wasted"]
        t.answer(q["id"], "wasted")
        s = t.state()
        assert s["souls_lost"] == {"1": 1} and s["souls_defeated"] == {"2": 1}
        # undo the answer: the loss is taken back and the question is open again
        t.put("M5a")  # a sensor change after the answer survives the undo
        r = t.act("undo")
        assert r["effects"][0]["type"] == "undone" and r["effects"][0]["action"] == "answer"
        s = t.state()
        assert s["souls_lost"] == {} and [x["id"] for x in s["questions"]] == [q["id"]]
        assert t.stand("M5a")["occupied"] is True
        t.answer(q["id"], "retreated")
        assert t.state()["souls_lost"] == {}


def test_timers_fall_due_after_their_cycles(data_dir):
    with Table(data_dir) as t:
        play(t)
        r = t.act("timer", {"label": "personal effect", "cycles": 5, "seat": 1})
        tid = r["event"] and t.state()["timers"][0]["id"]
        assert t.state()["timers"][0]["due"] == 6
        other = t.act("timer", {"label": "sabotage", "cycles": 2})
        t.act("timer-cancel", {"timer": t.state()["timers"][1]["id"]})
        assert other["ok"] and len(t.state()["timers"]) == 1
        due = []
        for phase in (None, None, "day", "night", "day"):  # cycles 2 to 6
            r = t.roll(phase)
            due += [e for e in r["effects"] if e["type"] == "timer_due"]
            if t.state()["diel"]["cycle"] < 6:
                assert due == []
        assert due == [{"type": "timer_due", "timer": {"id": tid, "label": "personal effect", "seat": 1}}]
        assert t.state()["timers"] == []


def test_dice_for_players(data_dir):
    dice = ScriptedDice([20, 9, 4,  6, 6, 11,  3, 3, 6,  6, 2, 5, 1,  2])
    with Table(data_dir, dice=dice) as t:
        play(t)
        r = t.act("roll-dice", {"kind": "random_territory"})
        assert r["effects"][0]["rolls"] == [20, 9, 4] and r["effects"][0]["territory"] == 4
        assert t.act("roll-dice", {"kind": "retreat", "seat": 1})["effects"][0]["escaped"] is True  # 12 beats 11
        assert t.act("roll-dice", {"kind": "retreat", "seat": 2})["effects"][0]["escaped"] is False  # a tie fails
        # a rogue of Movement 2 on M1b: its land paths numbered 1 M1a, 2 M2a, 3 M5a, 4 T1; a 6 names no
        # path and is rolled again, 2 goes to M2a; from M2a (1 M1b, 2 M2b, 3 T2) a 5 is re-rolled, 1 goes back
        r = t.act("roll-dice", {"kind": "rogue_path", "stand": "M1b", "moves": 2})
        fx = r["effects"][0]
        assert fx["steps"] == [{"from": "M1b", "paths": ["M1a", "M2a", "M5a", "T1"], "rolls": [6, 2]},
                               {"from": "M2a", "paths": ["M1b", "M2b", "T2"], "rolls": [5, 1]}]
        assert fx["route"] == ["M1b", "M2a", "M1b"] and fx["to"] == "M1b"
        r = t.act("roll-dice", {"kind": "trap"})
        assert r["effects"][0]["detected"] is True  # 2 is found in both editions
        assert t.state()["last_roll"]["kind"] == "trap"
        t.act("roll-dice", {"kind": "rogue_path", "stand": "nowhere"}, status=400)
        t.act("roll-dice", {"kind": "rogue_path", "stand": "M1b", "moves": 6}, status=400)
        # a hand-made event whose numbering does not match the map is refused by the rules
        t.board.loop.submit({"type": "dice_roll", "kind": "rogue_path", "seat": None, "stand": "M1b",
                                 "moves": 1, "steps": [{"from": "M1b", "paths": ["M2a", "M1a"], "rolls": [1]}]})
        assert "the paths from M1b are" in t.problems()[-1]
        t.act("roll-dice", {"kind": "d12"}, status=400)


def test_a_base_camp_token_swapped_during_contention_or_gone_is_asked_about(data_dir):
    with Table(data_dir) as t:
        play(t)
        t.roll(), t.roll()
        t.put("M1b")
        t.move("M1b", "M5a", "M5b", "M6a", "M6b", "M7a")  # seat 1 walks into seat 2's T7
        assert t.territory(7)["contenders"] == [2, 1]
        t.lift("T7")
        assert t.territory(7)["waiting"] == {"stand": "T7", "seat": 1, "step": "token_off"}
        t.put("T7")  # a token is back while seat 1's soul token still stands on M7a: the board waits
        assert t.territory(7)["waiting"] == {"stand": "T7", "seat": 1, "step": "token_back"}
        t.put("M2a"), t.lift("M2a"), t.put("M2a")  # three other changes and M7a never lifted: whose token?
        q = t.questions()[-1]
        assert q["kind"] == "claim_owner" and q["territory"] == 7 and q["options"] == [1, 2]
        assert t.territory(7)["owner"] == 2 and t.territory(7)["waiting"] is None
        r = t.answer(q["id"], 1)
        assert {"type": "claimed", "territory": 7, "owner": 1, "claim": "base_camp"} in r["effects"]
        assert t.territory(7)["contention"] is False and t.stand("T7")["owner"] == 1
        # seat 2's T4 token is lifted and not put back by the next roll
        t.lift("T4")
        assert t.territory(4)["owner"] == 2  # a hand lifting a token does not end a claim
        r = t.roll()
        q = next(e["question"] for e in r["effects"] if e["type"] == "question")
        assert q["territory"] == 4 and q["options"] == ["lost", "keep"]
        t.answer(q["id"], "lost")
        assert (t.territory(4)["owner"], t.territory(4)["claim"]) == (None, None)


def test_hopping_between_an_enemy_capitals_stands_does_not_dodge_imprisonment(data_dir):
    with Table(data_dir) as t:
        into_the_enemy_capital(t)
        t.roll("night")
        t.move("M8a", "M8b")  # a step within the capital is no new arrival
        r = t.roll("day")  # cycle 5
        assert {"type": "imprisoned", "territory": 8, "stand": "M8b", "prisoner_of": 2, "owner": 1} in r["effects"]


def test_the_2023_capital_falls_only_to_a_player_holding_everything_else(tmp_path):
    """2023 rule book: "your opponent will not be able to take your capital until they take all other
    territories on the board", a soul entering it puts it in contention, and nobody is imprisoned.
    The web rules: not while its owner holds another base camp; souls pass through; loiterers are jailed."""
    def raid(data_dir, edition):
        with Table(data_dir) as t:
            play(t, edition=edition)
            t.roll(), t.roll(), t.roll("day")  # cycle 4: a physical day under both editions
            t.put("M1b")
            t.move("M1b", "M2a", "M2b", "M3a", "M3b", "M4a", "M4b", "M8a")
            contended = t.territory(8)["contention"]
            t.roll("night"), t.roll("day")
            prisoners = t.territory(8)["prisoners"]
            r = t.act("correction", {"target": "territory", "territory": 8, "owner": 1}, status=409)
            return contended, prisoners, r["error"], t.state()["rules"]

    web = raid(tmp_path / "web", "web")
    ed23 = raid(tmp_path / "2023", "2023")
    assert web[:2] == (False, [1]) and "still holds another base camp" in web[2]
    assert ed23[:2] == (True, []) and "must first hold every other territory" in ed23[2]
    assert (web[3]["capital_rule"], ed23[3]["capital_rule"]) == ("other_base_camps", "all_territories")


def test_a_refused_action_is_no_step_for_undo(data_dir):
    with Table(data_dir) as t:
        play(t)
        t.act("timer", {"label": "effect", "cycles": 5, "seat": 1})
        t.roll()  # cycle 2: the fixed night
        t.roll()  # cycle 3: the fixed day
        t.act("initiative", {"seat": 9}, status=400)  # refused before the journal
        r = t.act("end-game", {"winner": 5}, status=409)  # refused in the rules' words, before the journal
        assert r["error"] == "seat 5 is not playing"
        r = t.act("correction", {"target": "territory", "territory": 8, "owner": 1}, status=409)
        assert "cannot be taken" in r["error"]
        assert [u.action for u in kipukas_state(t.board.loop.state).undo][-2:] == ["roll_diel", "roll_diel"]
        r = t.act("undo")
        assert r["effects"][0] == {"type": "undone", "action": "roll_diel", "seq": r["effects"][0]["seq"]}
        assert t.state()["diel"]["cycle"] == 2


def test_a_soul_lost_on_a_stand_is_its_tokens_owners_whatever_seat_the_page_sent(data_dir):
    with Table(data_dir, dice=ScriptedDice([1] * 20)) as t:
        play(t)
        t.put("M1a")  # a soul of seat 1, next to its capital
        r = t.act("soul-lost", {"seat": 2, "by": 2, "stand": "M1a"})
        assert r["event"]["seat"] == 1  # journaled as the token's owner's
        assert t.state()["souls_lost"] == {"1": 1} and t.stand("M1a")["awaiting"] == "wasted"
        t.act("soul-lost", {"seat": 2, "by": 1})  # off the map: the seat sent is the one
        assert t.state()["souls_lost"] == {"1": 1, "2": 1}
