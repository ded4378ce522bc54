"""Contention as a flow, through the simulated reed switches and the actions API: a fight starts when an
enemy soul enters, lasts across days, ends when one side has no soul left; a bout's outcome defeats
souls and never moves a claim; the attacker claims by moving a soul onto the territory stand once the
holder's token is off it, in either order; whatever the board cannot tell apart, it asks."""

from __future__ import annotations

from dataclasses import replace

from rules_table import Table

from kipukas_board.modes.kipukas.on_table import kipukas_state

# seat 1 places first on kipuka-8: capitals T1 / T8, base camps T2, T3 (seat 2), T5, T7 (seat 2)
SETUP = ["T1", "T8", "T2", "T3", "T5", "T7"]


def play(t: Table, edition: str = "web") -> None:
    t.new_game(2, edition=edition, first_placer=1)
    t.put(*SETUP)
    assert t.state()["phase"] == "play" and t.owners()[3] == 2


def into_t3(t: Table) -> None:
    """Day 3: seat 1's soul steps out of T2 and walks into seat 2's base camp T3."""
    play(t)
    t.roll(), t.roll()
    t.put("M2b")
    t.move("M2b", "M3a")
    assert t.territory(3)["contenders"] == [2, 1]


def test_a_soul_stepping_onto_the_stand_without_a_won_fight_is_asked_about_never_dropped(data_dir):
    with Table(data_dir) as t:
        into_t3(t)
        t.lift("T3")  # the defender's base camp token off...
        assert t.territory(3)["waiting"] == {"stand": "T3", "seat": 1, "step": "token_off"}
        t.move("M3a", "T3")  # ...then the attacker's soul onto the stand
        q = t.questions()[-1]
        assert q["kind"] == "claim_owner" and q["territory"] == 3 and q["options"] == [1, 2]
        assert "no fight in it has been won yet" in q["text"]
        assert t.state()["hand"] == []  # the soul is not left "in hand"
        assert t.territory(3)["owner"] == 2  # nothing moved before the players answer
        r = t.answer(q["id"], 1)
        assert {"type": "claimed", "territory": 3, "owner": 1, "claim": "base_camp"} in r["effects"]
        assert t.stand("T3")["owner"] == 1 and t.territory(3)["contention"] is False


def test_winning_the_fight_claims_only_when_a_soul_steps_onto_the_stand_lift_then_place(data_dir):
    with Table(data_dir) as t:
        into_t3(t)
        r = t.act("resolve-contention", {"territory": 3, "winner": 1})
        assert not [e for e in r["effects"] if e["type"] == "claimed"]  # no claim from a distance
        assert {"type": "contention_ended", "territory": 3, "players": [2, 1]} in r["effects"]
        terr = t.territory(3)
        assert (terr["owner"], terr["taker"], terr["contention"]) == (2, 1, False)
        assert terr["waiting"] == {"stand": "T3", "seat": 1, "step": "fight_won"}
        t.lift("M3a")  # the soul first, then the token swap
        t.lift("T3")
        assert t.owners()[3] == 2  # the claim stands while the stand is empty
        t.put("T3")
        assert (t.territory(3)["owner"], t.territory(3)["claim"]) == (1, "base_camp")
        assert t.questions() == [] and t.state()["hand"] == []
        assert kipukas_state(t.board.loop.state).claims_gained == {1: 1}


def test_place_then_lift_within_the_window_claims_and_late_is_asked(data_dir):
    with Table(data_dir) as t:
        into_t3(t)
        t.act("resolve-contention", {"territory": 3, "winner": 1})
        t.lift("T3")
        t.put("T3")  # a base camp token goes down while the soul token still stands on M3a
        assert t.territory(3)["waiting"]["step"] == "token_back" and t.owners()[3] == 2
        t.lift("M3a")  # ...and comes off right after: the soul stepped onto the stand
        assert t.owners()[3] == 1 and t.questions() == []
        assert {"type": "moved", "from": "M3a", "to": "T3", "owner": 1} in t.effects

    with Table(data_dir.parent / "late") as t:
        into_t3(t)
        t.act("resolve-contention", {"territory": 3, "winner": 1})
        t.lift("T3")
        t.put("T3")
        t.put("M6a"), t.lift("M6a"), t.put("M6a")  # three other changes and M3a still stands: two readings
        q = t.questions()[-1]
        assert q["kind"] == "claim_owner" and q["options"] == [1, 2] and t.owners()[3] == 2
        t.answer(q["id"], 2)  # it was seat 2's token put back: the claim stays, seat 1 may still take it
        assert t.owners()[3] == 2 and t.territory(3)["taker"] == 1


def test_a_fight_the_defender_wins_with_the_attacker_still_there_is_asked_about_and_carries_on(data_dir):
    with Table(data_dir) as t:
        into_t3(t)
        r = t.act("resolve-contention", {"territory": 3, "winner": 2})
        q = next(e["question"] for e in r["effects"] if e["type"] == "question")
        assert q["kind"] == "fight_over" and q["seat"] == 1 and q["options"] == ["defeated", "retreat", "continue"]
        assert t.territory(3)["contention"] is True  # not closed behind the players' backs
        t.answer(q["id"], "continue")  # the counterattack stopped: the fight goes on tomorrow
        r = t.roll("night")
        assert {"type": "contention_continues", "territory": 3, "players": [2, 1], "cycle": 4} in r["effects"]
        assert t.territory(3)["contention"] is True
        t.act("resolve-contention", {"territory": 3, "winner": 2})
        q = t.questions()[-1]
        t.answer(q["id"], "retreat")
        assert t.territory(3)["contention"] is False and t.stand("M3a")["awaiting"] is None
        t.move("M3a", "M2b")  # the retreat is an ordinary move: no question about a vanished soul
        r = t.roll("day")
        assert not [e for e in r["effects"] if e["type"] == "question"]
        assert t.owners()[3] == 2


def test_a_bout_defeats_souls_and_never_moves_a_claim(data_dir):
    with Table(data_dir) as t:
        into_t3(t)
        t.put("M3b")  # the defender's soul steps out of T3 to meet it
        assert t.stand("M3b")["owner"] == 2
        r = t.act("bout", {"territory": 3, "winner": 1, "loser": 2, "defeated": 1, "stand": "M3b"})
        assert {"type": "souls_defeated", "territory": 3, "seat": 2, "by": 1, "count": 1, "stand": "M3b",
                "cleared": False} in r["effects"]
        assert not [e for e in r["effects"] if e["type"] == "claimed"]
        assert t.stand("M3b")["awaiting"] == "wasted" and t.territory(3)["contention"] is True
        s = t.state()
        assert s["souls_lost"] == {"2": 1} and s["souls_defeated"] == {"1": 1}
        t.lift("M3b")  # taking the defeated soul's token off is no move
        assert t.state()["hand"] == []
        # bad bouts are refused, with the reason
        r = t.act("bout", {"territory": 3, "winner": 1, "loser": 1}, status=409)
        assert "against itself" in r["error"]
        r = t.act("bout", {"territory": 3, "winner": 1, "loser": 7}, status=409)
        assert r["error"] == "bout: the loser, seat 7, is not playing"
        t.act("bout", {"territory": 3, "winner": 1, "loser": 2, "defeated": 11}, status=400)
        r = t.act("bout", {"territory": 3, "winner": 1, "loser": 2, "stand": "M1a"}, status=409)
        assert "not a movement stand of Long Grass (3)" in r["error"]
        r = t.act("bout", {"territory": 5, "winner": 2, "loser": 1, "cleared": True}, status=409)
        assert "has no soul in Mossdeep (5)" in r["error"]  # no enemies meet there: no bout, no taker
        assert t.territory(5)["taker"] is None and t.state()["souls_lost"] == {"2": 1}
        r = t.act("bout", {"territory": 3, "winner": 1, "loser": 2, "defeated": 2, "cleared": True})
        assert not [e for e in r["effects"] if e["type"] == "claimed"]
        assert t.territory(3)["taker"] == 1 and t.territory(3)["contention"] is False and t.owners()[3] == 2


def test_an_attacker_cleared_by_a_bout_ends_the_fight_and_a_taker_who_leaves_loses_the_chance(data_dir):
    with Table(data_dir) as t:
        into_t3(t)
        r = t.act("bout", {"territory": 3, "winner": 2, "loser": 1, "cleared": True})
        assert {"type": "contention_ended", "territory": 3, "players": [2, 1]} in r["effects"]
        assert t.stand("M3a")["awaiting"] == "wasted" and t.state()["souls_lost"] == {"1": 1}
        t.lift("M3a")
        t.put("M2b")
        t.move("M2b", "M3a")  # a fresh attack, won, but the winner walks away
        t.act("resolve-contention", {"territory": 3, "winner": 1})
        t.move("M3a", "M2b")
        assert t.territory(3)["taker"] == 1  # still this cycle
        r = t.roll("night")
        assert {"type": "claim_chance_ended", "territory": 3, "seat": 1} in r["effects"]
        assert t.territory(3)["taker"] is None and t.territory(3)["waiting"] is None and t.owners()[3] == 2


def test_moves_on_the_first_day_are_flagged_as_problems_to_check(data_dir):
    with Table(data_dir) as t:
        play(t)
        assert t.state()["diel"]["cycle"] == 1
        t.put("M2b")  # a soul played today steps out of its base camp
        assert t.of_type("same_day_move") == [{"type": "same_day_move", "stand": "M2b", "cycle": 1}]
        assert "cannot be moved in the same day they were played" in t.problems()[-1]
        t.move("M2b", "M3b", "M4a", "T4")  # and claims: every step is flagged, the claim is kept
        assert [e["stand"] for e in t.of_type("same_day_move")] == ["M2b", "M3b", "M4a", "T4"]
        assert t.owners()[4] == 1
        t.roll(), t.roll()
        n = len(t.of_type("same_day_move"))
        t.put("M4b")
        assert len(t.of_type("same_day_move")) == n  # day 3: nothing to flag


def test_a_physical_roll_against_the_fixed_opening_is_refused_with_the_reason(data_dir):
    with Table(data_dir) as t:
        play(t)
        r = t.act("roll-diel", {"phase": "storm"}, status=409)
        assert "fixed opening's night" in r["error"] and "first rolled for cycle 4" in r["error"]
        assert t.state()["diel"]["cycle"] == 1
        r = t.roll("night")  # agreeing with the opening is fine
        assert r["event"]["source"] == "fixed" and t.state()["diel"]["cycle"] == 2


def test_a_refused_capital_take_under_the_2023_book_answers_409(data_dir):
    with Table(data_dir) as t:
        play(t, edition="2023")
        t.roll()  # 2023 rule book: day, night, then the die
        t.roll("day")
        t.put("M7b")
        assert t.stand("M7b")["owner"] == 2
        t.put("M1b")
        t.move("M1b", "M2a", "M2b", "M3a", "M3b", "M4a", "M4b", "M8a")
        assert t.territory(8)["contenders"] == [2, 1]  # 2023: a capital is contended like any territory
        r = t.act("resolve-contention", {"territory": 8, "winner": 1}, status=409)
        assert "must first hold every other territory" in r["error"]
        assert t.territory(8)["taker"] is None and t.owners()[8] == 2
        # the fight's outcome can still be recorded as a bout: souls defeated, the capital untouched
        r = t.act("bout", {"territory": 8, "winner": 1, "loser": 2, "cleared": True})
        assert r["ok"] and "cannot be taken" in t.problems()[-1] and t.territory(8)["taker"] is None


def test_a_refused_resolution_and_a_bout_are_undone_like_any_action(data_dir):
    with Table(data_dir) as t:
        into_t3(t)
        t.act("resolve-contention", {"territory": 3, "winner": 1})
        assert t.territory(3)["taker"] == 1
        r = t.act("undo")
        assert r["effects"][0]["action"] == "resolve_contention"
        assert t.territory(3)["taker"] is None and t.territory(3)["contention"] is True


def test_a_holder_reseating_its_token_with_no_fight_there_is_no_question(data_dir):
    with Table(data_dir) as t:
        play(t)
        t.roll(), t.roll()
        t.put("M2b")
        t.move("M2b", "M3a", "M3b", "M4a")  # seat 1's soul passes through T3 (a fight, then gone)...
        t.lift("M4a")  # ...and goes into a base camp: its lift stays in the hand this cycle
        t.lift("T7")
        t.put("T7")  # seat 2 straightens its own token in T7, no enemy there: nothing to ask
        assert t.questions() == [] and t.owners()[7] == 2 and t.territory(7)["waiting"] is None


def test_an_attacker_who_wins_while_the_holders_soul_still_stands_there_is_asked_before_any_take(data_dir):
    with Table(data_dir) as t:
        into_t3(t)
        t.put("M3b")  # the holder's soul steps out of T3 into the fight
        r = t.act("resolve-contention", {"territory": 3, "winner": 1})
        q = next(e["question"] for e in r["effects"] if e["type"] == "question")
        assert q["kind"] == "fight_over" and q["seat"] == 2 and "M3b" in q["text"]
        assert t.territory(3)["taker"] is None  # no take while the holder may fight on
        t.answer(q["id"], "defeated")
        assert t.stand("M3b")["awaiting"] == "wasted" and t.state()["souls_lost"] == {"2": 1}
        assert t.territory(3)["taker"] == 1 and t.owners()[3] == 2  # now the winner may take it


def test_a_prison_taken_frees_its_prisoners():
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.modes.kipukas.rules.common import set_claim
    from kipukas_board.modes.kipukas.rules.state import Player, initial_state

    s = initial_state(load_map("kipuka-8"))
    territories = dict(s.territories)
    territories[3] = replace(territories[3], owner=2, claim="base_camp", prisoners=(1, 1))
    s = s.evolve(territories=territories, phase="play",
                 players=(Player(1, "A", "#ff0000"), Player(2, "B", "#0000ff")))
    effects: list[dict] = []
    s = set_claim(s, effects, 3, 1, "base_camp", gained=True)
    assert s.territories[3].owner == 1 and s.territories[3].prisoners == ()
    assert {"type": "liberated", "territory": 3, "seats": [1, 1]} in effects
    effects.clear()
    s = set_claim(s, effects, 3, 1, "capital")  # the same holder changing its token frees nobody
    assert not [e for e in effects if e["type"] == "liberated"]
