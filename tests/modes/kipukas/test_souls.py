"""Souls: soul cards bound to soul tokens, KEAL means, downed and wasted souls, storms and the land.

Pure-core tests on the kipuka-8 map (territory 1 and 8 volcanic, 3 and 6 plains) with a small
catalog of made-up soul cards written into the card events, as the card desk writes them.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kipukas_board.board.mapfile import load_map
from kipukas_board.modes.kipukas.rules.bouts import FAILED_BLOW_RULE
from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.state import KipukasState, initial_state
from kipukas_board.modes.kipukas.rules.view import state_json
from kipukas_board.table.cards import card_event
from kipukas_board.table.events import check_event, map_event, stand_event

BOARD = load_map("kipuka-8")
SETUP = ["T1", "T8", "T2", "T3", "T5", "T7"]  # seat 1: T1, T2, T5; seat 2: T8, T3, T7
CARDS: dict[str, dict[str, Any]] = {
    "AaAa": {"code": "AaAa", "title": "Ash Walker", "movement": 2, "injury_tolerance": 2, "habitat": "Volcanic"},
    "BbBb": {"code": "BbBb", "title": "Bog Hound", "movement": 3, "injury_tolerance": 2, "habitat": "Forest"},
    "CcCc": {"code": "CcCc", "title": "Cliff Owl", "movement": 4, "injury_tolerance": 1, "habitat": "Mountain"},
    "IiIi": {"code": "IiIi", "title": "Iron Key", "movement": 0, "injury_tolerance": 0, "habitat": ""},
}


def card(seat: int, code: str, copy: str = "0001") -> dict[str, Any]:
    return check_event(card_event(seat, f"kpks.us/{code}#{copy}?Xy{copy}", code, copy, f"Xy{copy}", CARDS[code]))


def roll(cycle: int, phase: str) -> dict[str, Any]:
    return {"type": "roll_diel", "cycle": cycle, "phase": phase, "roll": None, "source": "physical"}


def opening() -> list[dict[str, Any]]:
    """Day 3 of a two-player web game, nothing moved yet."""
    events = [map_event(BOARD.name, BOARD.source_text),
              {"type": "new_game", "edition": "web", "play_style": "highest_body_count", "first_placer": 1,
               "options": {}, "players": [{"seat": s, "name": f"P{s}", "color": "#102030"} for s in (1, 2)]}]
    events += [stand_event(sid, True) for sid in SETUP]
    events += [{"type": "roll_diel", "cycle": c, "phase": p, "roll": None, "source": "fixed"}
               for c, p in ((2, "night"), (3, "day"))]
    return events


def fold(events: list[dict[str, Any]], state: KipukasState | None = None) -> tuple[KipukasState, list[dict[str, Any]]]:
    s = state or initial_state(BOARD)
    fx: list[dict[str, Any]] = []
    for e in events:
        s, f = apply(s, check_event(e), seq=s.seq + 1)
        fx.extend(f)
    return s, fx


def souls(s: KipukasState) -> dict[str, dict[str, Any]]:
    return {d["id"]: d for d in state_json(s)["souls"]}


def test_a_card_shown_before_a_token_binds_to_the_next_token_of_that_seat() -> None:
    s, fx = fold([*opening(), card(1, "BbBb"), stand_event("M2b", True)])  # a soul steps out of T2
    assert souls(s) == {"BbBb#0001": {"id": "BbBb#0001", "seat": 1, "code": "BbBb", "title": "Bog Hound",
                                      "stand": "M2b", "keal": {"tolerance": 2, "lost": 0}, "downed": False,
                                      "wasted": False, "attack_spent": False, "attack_spent_why": ""}}
    assert {"type": "soul_bound", "soul": "BbBb#0001", "title": "Bog Hound", "seat": 1, "stand": "M2b"} in fx
    s, _ = fold([stand_event("M2b", False), stand_event("M3a", True)], s)  # it walks on: the token carries it
    assert souls(s)["BbBb#0001"]["stand"] == "M3a"
    s, _ = fold([stand_event("M3a", False), stand_event("T2", False), stand_event("T2", True)], s)
    assert s.soul_pending == {}


def test_a_card_still_waiting_at_the_next_roll_stops_waiting_and_binds_nothing_later() -> None:
    s, _ = fold([*opening(), card(1, "BbBb")])
    assert s.soul_pending == {1: "BbBb#0001"}
    s, fx = fold([roll(4, "night")], s)
    assert s.soul_pending == {}
    assert {"type": "soul_wait_ended", "soul": "BbBb#0001", "seat": 1, "title": "Bog Hound"} in fx
    s, fx = fold([roll(5, "day"), stand_event("M2b", True)], s)  # a later soul of that seat: not Bog Hound
    assert souls(s)["BbBb#0001"]["stand"] is None and s.stands["M2b"].soul is None
    assert not any(e["type"] == "soul_bound" for e in fx)
    s, _ = fold([{"type": "soul_bind", "stand": "M2b", "soul": "BbBb#0001"}], s)  # the page still can
    assert souls(s)["BbBb#0001"]["stand"] == "M2b"
    # undo the bind and both rolls: the card waits again, and the token that really came down since
    # (re-applied by undo) is the next one of that seat, so it binds
    s, _ = fold([{"type": "undo"}] * 3, s)
    assert s.diel_cycle == 3 and s.soul_pending == {} and souls(s)["BbBb#0001"]["stand"] == "M2b"


def test_a_card_waiting_binds_to_a_token_once_players_say_whose_it_is() -> None:
    s, _ = fold([*opening(), card(2, "BbBb"), stand_event("M4b", True)])  # nobody's base camp next to it
    q = next(q for q in s.questions if q["kind"] == "stand_owner" and q.get("stand") == "M4b")
    assert s.soul_pending == {2: "BbBb#0001"} and s.stands["M4b"].soul is None
    s, fx = fold([{"type": "answer", "question": q["id"], "answer": 2}], s)
    assert s.soul_pending == {} and souls(s)["BbBb#0001"]["stand"] == "M4b"
    assert any(e["type"] == "soul_bound" and e["stand"] == "M4b" for e in fx)


def test_a_card_shown_with_a_token_in_hand_binds_to_that_token_and_an_item_binds_nothing() -> None:
    s, _ = fold([*opening(), stand_event("M2b", True)])  # nobody showed a card: the board knows no soul
    assert souls(s) == {}
    s, fx = fold([stand_event("M2b", False), card(1, "IiIi"), card(1, "CcCc"), stand_event("M3a", True)], s)
    assert list(souls(s)) == ["CcCc#0001"] and souls(s)["CcCc#0001"]["stand"] == "M3a"
    assert any(e["type"] == "soul_bound" and e.get("lifted_from") == "M2b" for e in fx)


def test_a_card_shown_at_two_seats_is_a_question_not_a_guess() -> None:
    s, _ = fold([*opening(), card(1, "BbBb"), stand_event("M2b", True), card(2, "BbBb")])
    q = s.questions[-1]
    assert q["kind"] == "soul_seat" and q["options"] == [1, 2]
    assert souls(s)["BbBb#0001"]["stand"] == "M2b"  # nothing moved before the answer
    s, _ = fold([{"type": "answer", "question": q["id"], "answer": 2}], s)
    assert souls(s)["BbBb#0001"]["seat"] == 2 and souls(s)["BbBb#0001"]["stand"] is None
    assert s.soul_pending == {2: "BbBb#0001"}


def test_a_soul_bound_twice_is_a_question_and_bind_moves_it() -> None:
    s, _ = fold([*opening(), card(1, "BbBb"), stand_event("M2b", True), stand_event("M2a", True),
                 stand_event("M2a", False), card(1, "BbBb")])  # the Bog Hound shown for a second token
    q = s.questions[-1]
    assert q["kind"] == "soul_bind" and q["options"] == ["bind", "keep"] and "M2b" in q["text"]
    kept, _ = fold([{"type": "answer", "question": q["id"], "answer": "keep"}], s)
    assert souls(kept)["BbBb#0001"]["stand"] == "M2b"
    moved, _ = fold([{"type": "answer", "question": q["id"], "answer": "bind"}, stand_event("M3a", True)], s)
    assert souls(moved)["BbBb#0001"]["stand"] == "M3a" and moved.stands["M2b"].soul is None


def test_bind_unbind_and_fix_on_the_page_are_undoable() -> None:
    s, _ = fold([*opening(), stand_event("M2b", True), card(1, "CcCc")])
    assert souls(s)["CcCc#0001"]["stand"] is None  # waits for a token
    s, _ = fold([{"type": "soul_bind", "stand": "M2b", "soul": "CcCc#0001"}], s)
    assert souls(s)["CcCc#0001"]["stand"] == "M2b"
    s2, _ = fold([{"type": "soul_fix", "soul": "CcCc#0001", "lost": 1}], s)
    assert souls(s2)["CcCc#0001"]["downed"] and s2.stands["M2b"].downed
    s3, _ = fold([{"type": "undo"}], s2)
    assert souls(s3) == souls(s)
    s4, fx = fold([{"type": "soul_unbind", "soul": "CcCc#0001"}], s)
    assert souls(s4)["CcCc#0001"]["stand"] is None and {"type": "soul_unbound", "soul": "CcCc#0001",
                                                        "title": "Cliff Owl"} in fx
    bad, fx = fold([{"type": "soul_fix", "soul": "CcCc#0001", "lost": 5}], s)
    assert "tolerates 1 KEAL means" in fx[-1]["text"] and souls(bad) == souls(s)


def _soul_in_t3() -> KipukasState:
    """Seat 1's Bog Hound (tolerance 2) stands on M3a, in seat 2's plains territory 3 (in contention)."""
    s, _ = fold([*opening(), card(1, "BbBb"), stand_event("M2b", True), stand_event("M2b", False),
                 stand_event("M3a", True)])
    assert s.contenders.get(3)
    return s


def test_bouts_hurt_down_and_the_final_blow_wastes_a_soul_counted_for_the_play_style() -> None:
    s = _soul_in_t3()
    bout = {"type": "bout", "territory": 3, "winner": 2, "loser": 1, "soul": "BbBb#0001"}
    s, fx = fold([bout], s)
    assert souls(s)["BbBb#0001"]["keal"] == {"tolerance": 2, "lost": 1} and s.souls_lost == {}
    assert [e["cause"] for e in fx if e["type"] == "soul_keal"] == ["bout"]
    s, _ = fold([bout], s)
    assert souls(s)["BbBb#0001"]["downed"] and s.stands["M3a"].downed
    refused, fx = fold([{**bout, "final_blow": False}], s)
    assert "is downed" in fx[-1]["text"]
    s, fx = fold([bout], s)  # downed: this bout is its Final Blow
    d = souls(s)["BbBb#0001"]
    assert d["wasted"] and not d["downed"] and s.stands["M3a"].awaiting == "wasted"
    assert s.souls_lost == {1: 1} and s.souls_defeated == {2: 1}  # counted once, no "soul wasted" button
    assert state_json(s)["scores"] == {"defeated": {"1": 0, "2": 1}}
    again, fx = fold([card(1, "BbBb")], s)
    assert "was wasted" in fx[-1]["text"]
    s, _ = fold([stand_event("M3a", False)], s)  # its token taken off
    assert souls(s)["BbBb#0001"]["stand"] is None and souls(s)["BbBb#0001"]["wasted"]


def test_a_storm_costs_every_exposed_bound_soul_one_keal_means_and_wastes_the_downed() -> None:
    s, _ = fold([*opening(), card(1, "BbBb"), stand_event("M2b", True), card(1, "CcCc"), stand_event("M5a", True),
                 {"type": "soul_fix", "soul": "CcCc#0001", "lost": 1}])
    s, fx = fold([roll(4, "storm")], s)
    hits = {e["soul"]: (e["change"], e["wasted"], e["cause"]) for e in fx if e["type"] == "soul_keal"}
    assert hits == {"BbBb#0001": (-1, False, "storm"), "CcCc#0001": (0, True, "storm")}
    assert s.souls_lost == {1: 1} and s.stands["M5a"].awaiting == "wasted"


def test_volcanic_land_hurts_once_a_cycle_except_volcanic_dwellers() -> None:
    s, _ = fold([*opening(), card(1, "BbBb"), stand_event("M1a", True), card(1, "AaAa"), stand_event("M1b", True)])
    s, fx = fold([roll(4, "day")], s)
    assert [(e["soul"], e["cause"]) for e in fx if e["type"] == "soul_keal"] == [("BbBb#0001", "volcanic")]
    s, _ = fold([roll(5, "night"), roll(6, "day")], s)  # lost 2 at cycle 5, the Final Blow at cycle 6
    assert souls(s)["BbBb#0001"]["wasted"] and souls(s)["AaAa#0001"]["keal"]["lost"] == 0


def test_plains_heal_one_keal_means_per_two_cycles_rested_out_of_contention() -> None:
    s, _ = fold([*opening(), card(1, "BbBb"), stand_event("M2b", True), stand_event("M2b", False),
                 stand_event("M6a", True), {"type": "soul_fix", "soul": "BbBb#0001", "lost": 2}])
    s, fx = fold([roll(4, "night")], s)  # first cycle rested: nothing yet
    assert not [e for e in fx if e["type"] == "soul_keal"]
    s, fx = fold([roll(5, "day")], s)
    assert [(e["change"], e["cause"]) for e in fx if e["type"] == "soul_keal"] == [(1, "plains")]
    s, _ = fold([stand_event("M6a", False), stand_event("M6b", True), roll(6, "day")], s)  # moved: starts over
    assert souls(s)["BbBb#0001"]["keal"]["lost"] == 1
    fought = _soul_in_t3()  # territory 3 is plains too, but in contention: no rest
    fought, _ = fold([{"type": "soul_fix", "soul": "BbBb#0001", "lost": 1}, roll(4, "day"), roll(5, "day")], fought)
    assert souls(fought)["BbBb#0001"]["keal"]["lost"] == 1


def test_a_downed_soul_moves_by_the_editions_downed_table() -> None:
    s, _ = fold([*opening(), card(1, "CcCc"), stand_event("M2b", True),
                 {"type": "soul_fix", "soul": "CcCc#0001", "lost": 1}, stand_event("M2b", False)])
    assert s.hand[-1].downed
    _, fx = fold([card(1, "CcCc")], s)
    reach = next(e for e in fx if e["type"] == "reachable")
    from kipukas_board.modes.kipukas.rules.editions import edition
    assert reach["moves"] == edition("web").downed_move(4).spaces < 4


OPS = ("card", "card", "stand", "stand", "stand", "bout", "damage", "heal", "fix", "roll", "undo", "answer",
       "bout_roll")
NEAR = ["M2a", "M2b", "M3a", "M3b", "M3a", "M3b", "M1a", "M6a", "M5a"]


def to_event(s: KipukasState, op: str, a: int, b: int) -> dict[str, Any] | None:
    ids = list(s.souls)
    if op == "card":
        return card(1 + b % 2, ("AaAa", "BbBb", "CcCc", "IiIi")[a % 4], copy=f"000{a % 2}")
    if op == "stand":
        sid = NEAR[a % len(NEAR)]
        return stand_event(sid, not s.stands[sid].occupied)
    if op == "roll":
        return roll(s.diel_cycle + 1, ("day", "night", "storm")[a % 3])
    if op == "undo":
        return {"type": "undo"}
    if op == "answer" and s.questions:
        q = s.questions[a % len(s.questions)]
        return {"type": "answer", "question": q["id"], "answer": q["options"][b % len(q["options"])]}
    if not ids:
        return None
    soul = s.souls[ids[a % len(ids)]]
    if op == "bout_roll":
        from kipukas_board.modes.kipukas.rules.bouts import plan_bout, roll_plan
        from kipukas_board.modes.kipukas.rules.dice import SeededDice
        for foe in s.souls.values():
            plan = plan_bout(s, 3, soul.id, foe.id, archetype=b % 5 - 2)
            if isinstance(plan, dict):
                return {"type": "bout_roll", "territory": 3, "attacker": soul.id, "defender": foe.id,
                        "archetype": plan["archetype"], "rolls": roll_plan(plan, SeededDice(a * 31 + b))}
        return None
    if op == "bout":
        return {"type": "bout", "territory": 3, "winner": 3 - soul.seat, "loser": soul.seat, "soul": soul.id}
    if op == "damage":
        return {"type": "soul_damage", "soul": soul.id, "count": 1 + b % 3}
    if op == "heal":
        return {"type": "soul_damage", "soul": soul.id, "healed": 1 + b % 2}
    if op == "fix":
        return {"type": "soul_fix", "soul": soul.id, "lost": b % 3}
    return None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 30), st.integers(0, 30)), max_size=40))
def test_soul_bookkeeping_holds_whatever_happens(ops) -> None:
    start = [*opening(), card(2, "AaAa", "0009"), stand_event("M3b", True),  # two souls face off in T3
             card(1, "BbBb", "0009"), stand_event("M2b", True), stand_event("M2b", False), stand_event("M3a", True)]
    s, _ = fold(start)
    journal = list(start)
    for op, a, b in ops:
        event = to_event(s, op, a, b)
        if event is None:
            continue
        before = s
        s, _ = fold([event], s)
        journal.append(event)
        for soul in s.souls.values():
            assert 0 <= soul.lost <= soul.tolerance, soul
            assert not (soul.downed and soul.wasted)
            if event["type"] != "undo" and soul.id in before.souls and before.souls[soul.id].wasted:
                assert soul.wasted, (event, soul)  # wasted souls stay wasted
        bound = [st_.soul for st_ in s.stands.values() if st_.soul is not None and st_.occupied]
        assert len(bound) == len(set(bound)), "a soul on two stands"
        for sid, stand in s.stands.items():
            if stand.soul is not None and stand.occupied and not s.souls[stand.soul].wasted:
                assert stand.downed == s.souls[stand.soul].downed, sid
    replayed, _ = fold(journal)
    assert state_json(replayed) == state_json(s)  # replay is exact


# -- the bout assistant ------------------------------------------------------------------------------
HERO = {"code": "HMPU", "title": "Hilbert", "movement": 2, "injury_tolerance": 1, "habitat": "Plains",
        "die": "D6-D6", "genetic_disposition": "Avian", "motivation": "Passion", "brawl_sequence": "HMPU"}
RAVEN = {"code": "ZrrD", "title": "Raven", "movement": 3, "injury_tolerance": 1, "habitat": "Forest",
         "die": "", "genetic_disposition": "Avian", "motivation": "Survival", "brawl_sequence": "ZrrD"}


def _duel(attacker_affinity: str = "Avian", raven: dict[str, Any] | None = None) -> KipukasState:
    """Hilbert (seat 1) walked into seat 2's plains territory 3, where the Raven stands on M3b."""
    events = opening()
    events[1] = {**events[1], "players": [{"seat": 1, "name": "Ana", "color": "#102030",
                                           "affinity": attacker_affinity},
                                          {"seat": 2, "name": "Bo", "color": "#302010"}]}
    r = raven or RAVEN
    s, _ = fold([*events,
                 check_event(card_event(2, "kpks.us/ZrrD#0001", r["code"], "0001", None, r)),
                 stand_event("M3b", True),
                 check_event(card_event(1, "kpks.us/HMPU#0001", "HMPU", "0001", None, HERO)),
                 stand_event("M2b", True), stand_event("M2b", False), stand_event("M3a", True)])
    assert {d["stand"] for d in souls(s).values()} == {"M3a", "M3b"}
    return s


def bout_roll(rolls: dict[str, Any], archetype: int = 0, attacker: str = "HMPU#0001",
              defender: str = "ZrrD#0001") -> dict[str, Any]:
    return check_event({"type": "bout_roll", "territory": 3, "attacker": attacker, "defender": defender,
                        "archetype": archetype, "rolls": rolls})


def test_the_bout_plan_names_every_modifier_and_its_source() -> None:
    from kipukas_board.modes.kipukas.rules.bouts import plan_bout
    plan = plan_bout(_duel(), 3, "HMPU#0001", "ZrrD#0001", archetype=-2)
    assert isinstance(plan, dict)
    att, dfn = plan["attacker"], plan["defender"]
    assert att["dice"] == [6, 6] and att["assumed"] is None
    assert dfn["dice"] == [20] and "no die" in dfn["assumed"]
    assert [m["value"] for m in att["modifiers"]] == [1, 3, -2]  # affinity, plains dweller on plains, fists
    assert "affinity" in att["modifiers"][0]["source"] and "primary" in att["modifiers"][1]["source"]
    assert dfn["modifiers"] == [] and plan["final_blow"] is False and plan["best_of"] == 1
    nomad = plan_bout(_duel(raven={**RAVEN, "habitat": "Nomad"}), 3, "HMPU#0001", "ZrrD#0001")
    assert isinstance(nomad, dict) and [m["value"] for m in nomad["attacker"]["modifiers"]] == [1]
    assert "nomad" in nomad["notes"][0]
    met = _duel().evolve(contenders={})  # no contention, but the two souls stand in one territory
    assert isinstance(plan_bout(met, 3, "HMPU#0001", "ZrrD#0001"), dict)  # enemies meet: they fight
    assert "downed" not in str(plan_bout(_duel(), 3, "ZrrD#0001", "ZrrD#0001"))  # same seat: refused, why
    assert "both" in str(plan_bout(_duel(), 3, "ZrrD#0001", "ZrrD#0001"))


def test_a_won_attack_costs_a_keal_means_a_failed_one_nothing_and_the_final_blow_wastes() -> None:
    s = _duel()
    lost, fx = fold([bout_roll({"attacker": [[1, 1]], "defender": [[19]]})], s)  # 2+4 against 19
    # nobody hurt; Hilbert attacks no more this cycle, and the board says why
    spent = {**souls(s)["HMPU#0001"], "attack_spent": True,
             "attack_spent_why": f'its blow failed (both rule books: "{FAILED_BLOW_RULE}")'}
    assert souls(lost) == {**souls(s), "HMPU#0001": spent} and lost.last_bout["winner"] == "defender"
    assert lost.last_bout["rounds"] == [{"attacker": 6, "defender": 19, "won": "defender", "brawl": False}]
    s, fx = fold([bout_roll({"attacker": [[6, 6]], "defender": [[3]]})], s)
    assert souls(s)["ZrrD#0001"]["downed"] and s.last_bout["winner"] == "attacker"
    # the Final Blow: the Raven fights for self (Survival): best 2 of 3; Hilbert's Passion adds 3 to attack
    from kipukas_board.modes.kipukas.rules.bouts import plan_bout
    plan = plan_bout(s, 3, "HMPU#0001", "ZrrD#0001")
    assert isinstance(plan, dict) and plan["final_blow"] and plan["best_of"] == 3
    assert plan["attacker"]["bonus"] == 1 + 3 + 3
    wasted, fx = fold([bout_roll({"attacker": [[1, 1], [1, 1], [6, 6]], "defender": [[20], [1], [1]]})], s)
    assert [r["won"] for r in wasted.last_bout["rounds"]] == ["defender", "attacker", "attacker"]
    assert souls(wasted)["ZrrD#0001"]["wasted"] and wasted.souls_lost == {2: 1} and wasted.souls_defeated == {1: 1}
    assert wasted.territories[3].taker == 1  # the holder has no soul left: Hilbert may take the base camp
    undone, _ = fold([{"type": "undo"}], wasted)
    assert souls(undone) == souls(s)
    replayed, _ = fold([{"type": "undo"}, bout_roll({"attacker": [[1, 1], [1, 1], [6, 6]],
                                                     "defender": [[20], [1], [1]]})], wasted)
    assert state_json(replayed)["souls"] == state_json(wasted)["souls"]


def test_a_best_2_of_3_said_at_the_table_ends_once_a_side_has_won_twice() -> None:
    # The web rules: Self "Makes Final Blow a best 2 out of 3 victory condition"; "If the Final Blow is
    # successful (in this case twice in 3 rolls)": two rounds won are the bout, a split needs the third.
    s, _ = fold([bout_roll({"attacker": [[6, 6]], "defender": [[3]]})], _duel())  # the Raven downed
    won, fx = fold([bout_roll({"attacker": [[6, 6], [6, 5]], "defender": [[1], [2]]})], s)
    assert won.last_bout["winner"] == "attacker" and len(won.last_bout["rounds"]) == 2
    assert souls(won)["ZrrD#0001"]["wasted"]
    split, fx = fold([bout_roll({"attacker": [[6, 6], [1, 1]], "defender": [[1], [20]]})], s)
    assert fx[-1]["text"] == "bout: the bout is not decided after 2 rounds (1 to 1): roll round 3 too"
    assert souls(split) == souls(s)
    uneven, fx = fold([bout_roll({"attacker": [[6, 6], [6, 6]], "defender": [[1], [1], [1]]})], s)
    assert fx[-1]["text"] == "bout: both sides roll as many rounds: the attacker said 2, the defender 3"
    one, fx = fold([bout_roll({"attacker": [[6, 6]], "defender": [[1]]})], s)
    assert "attacker's rolls must be 2 or 3 rounds of D6+D6 faces" in fx[-1]["text"] and souls(one) == souls(s)


def test_a_tie_goes_to_the_brawl_sequence_and_bad_rolls_are_refused() -> None:
    from kipukas_board.modes.kipukas.rules.bouts import brawl_winner
    assert [brawl_winner(a, b) for a, b in [("Aa9-", "ZAAA"), ("Zz0_", "aAAA"), ("Aa9-", "AzAA"), ("Zz0_", "Z9AA"),
                                            ("Aa9-", "Aa0A"), ("Aa0_", "Aa-A"), ("Aa9-", "Aa9_")]] == ["a"] * 7
    s = _duel()
    tied, _ = fold([bout_roll({"attacker": [[5, 5]], "defender": [[14]]})], s)  # 10+4 = 14: HMPU beats ZrrD
    assert tied.last_bout["rounds"][0]["brawl"] and tied.last_bout["winner"] == "attacker"
    bad, fx = fold([bout_roll({"attacker": [[7, 1]], "defender": [[3]]})], s)
    assert "attacker's rolls must be 1 round(s) of D6+D6" in fx[-1]["text"] and souls(bad) == souls(s)


def test_generated_games_show_souls_and_fight_bouts() -> None:
    from kipukas_board.modes.kipukas.rules.dice import SeededDice
    from kipukas_board.modes.kipukas.rules.simulate import random_game

    board = load_map("kipuka-12")
    events = random_game(board, 3000, SeededDice(3), players=3, play_style="mass_contention")
    kinds = {e["type"] for e in events}
    assert {"card", "bout_roll"} <= kinds
    s = initial_state(board)
    for e in events:
        s, _ = apply(s, check_event(e))
    assert s.souls and any(x.lost or x.wasted for x in s.souls.values())


def test_a_token_marked_downed_by_hand_and_its_soul_agree() -> None:
    s, _ = fold([*opening(), stand_event("M2b", True),
                 {"type": "correction", "target": "stand", "stand": "M2b", "owner": 1, "downed": True},
                 stand_event("M2b", False), card(1, "CcCc"), stand_event("M3a", True)])
    assert souls(s)["CcCc#0001"]["downed"] and s.stands["M3a"].downed  # first seen downed: starts downed
    s, fx = fold([{"type": "correction", "target": "stand", "stand": "M3a", "downed": False}], s)
    assert not souls(s)["CcCc#0001"]["downed"] and souls(s)["CcCc#0001"]["keal"]["lost"] == 0
    s, _ = fold([{"type": "correction", "target": "stand", "stand": "M3a", "downed": True}], s)
    assert souls(s)["CcCc#0001"]["keal"]["lost"] == 1 and s.stands["M3a"].downed
