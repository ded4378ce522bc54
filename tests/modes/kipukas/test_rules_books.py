"""Kipukas as the two rule books write it, edition by edition: habitat bonuses and which bout they
belong to, the heavens dwellers' movement, plains healing, bouts wherever enemies meet, a failed
attacker's lost attacks, a soul with 0 KEAL means, and the 3 souls per player in a territory.

Each test quotes the sentence it is written from: "the web rules" are the Kipukas web rules, "the
2023 book" the December 2023 rule book. Pure-core tests on the kipuka-8 map (territory 3 is seat 2's
plains, 4 is nobody's mountain), its territory 3's geography changed where a test needs another.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from kipukas_board.board.mapfile import load_map
from kipukas_board.modes.kipukas.phrases import phrases_for
from kipukas_board.modes.kipukas.rules.bouts import FAILED_BLOW_RULE, plan_bout
from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.editions import EDITIONS, HABITAT_ROLLS, MAX_SOULS_PER_PLAYER, edition
from kipukas_board.modes.kipukas.rules.state import KipukasState, amend, initial_state
from kipukas_board.modes.kipukas.rules.view import state_json
from kipukas_board.table.cards import card_event
from kipukas_board.table.events import check_event, map_event, stand_event

BOARD = load_map("kipuka-8")
SETUP = ["T1", "T8", "T2", "T3", "T5", "T7"]  # seat 1: T1, T2, T5; seat 2: T8, T3, T7
GEOGRAPHIES = ("mountain", "forest", "plains", "volcanic", "water")
ON_LAND = GEOGRAPHIES[:4]  # territory 3 as water would need water paths
HABITATS = ("Mountain", "Forest", "Plains", "Water", "Heavens", "Volcanic", "Underground", "Nomad", "")
HERO = {"code": "HMPU", "title": "Hilbert", "movement": 2, "injury_tolerance": 1, "habitat": "Plains",
        "die": "D6-D6", "genetic_disposition": "Avian", "motivation": "Passion", "brawl_sequence": "HMPU"}
RAVEN = {"code": "ZrrD", "title": "Myrthvither Raven", "movement": 2, "injury_tolerance": 1, "habitat": "Forest",
         "die": "", "genetic_disposition": "Avian", "motivation": "Satisfaction", "brawl_sequence": "ZrrD"}


def map_text(t3: str = "plains", more_stands: int = 0) -> str:
    """kipuka-8 with territory 3 of geography ``t3`` and ``more_stands`` extra movement stands in it."""
    text = BOARD.source_text.replace('number = 3\nname = "Long Grass"\ngeography = "plains"',
                                     f'number = 3\nname = "Long Grass"\ngeography = "{t3}"')
    assert f'geography = "{t3}"' in text
    for i in range(more_stands):
        sid = f"M3{'cdefg'[i]}"
        text += (f'\n[[stands]]\nid = "{sid}"\nkind = "movement"\nterritory = 3\nx = {560 + 30 * i}\ny = 260\n'
                 f'\n[[paths]]\na = "T3"\nb = "{sid}"\nkind = "land"\n')
    return text


def fold(events: list[dict[str, Any]], state: KipukasState | None = None) -> tuple[KipukasState, list[dict[str, Any]]]:
    s = state or initial_state(BOARD)
    fx: list[dict[str, Any]] = []
    for e in events:
        s, f = apply(s, check_event(e), seq=s.seq + 1)
        fx.extend(f)
    return s, fx


def opening(ed: str = "web", t3: str = "plains", more_stands: int = 0) -> list[dict[str, Any]]:
    """Day 3 of a two-player game of edition ``ed``; seat 1 declared the Avian its crux."""
    events = [map_event(BOARD.name, map_text(t3, more_stands)),
              {"type": "new_game", "edition": ed, "play_style": "highest_body_count", "first_placer": 1,
               "options": {}, "players": [{"seat": 1, "name": "Ana", "color": "#102030", "affinity": "Avian"},
                                          {"seat": 2, "name": "Bo", "color": "#302010"}]}]
    events += [stand_event(sid, True) for sid in SETUP]
    fixed = len(edition(ed).opening)
    events += [{"type": "roll_diel", "cycle": c, "phase": p, "roll": None,
                "source": "fixed" if c <= fixed else "physical"} for c, p in ((2, "night"), (3, "day"))]
    return events


def roll(cycle: int, phase: str = "day") -> dict[str, Any]:
    return {"type": "roll_diel", "cycle": cycle, "phase": phase, "roll": None, "source": "physical"}


def card(seat: int, c: dict[str, Any], copy: str = "0001") -> dict[str, Any]:
    return check_event(card_event(seat, f"kpks.us/{c['code']}#{copy}", c["code"], copy, None, c))


@functools.lru_cache(maxsize=32)
def _met(ed: str, t3: str) -> KipukasState:
    s, _ = fold([*opening(ed, t3), card(2, RAVEN), stand_event("M3b", True),
                 card(1, HERO), stand_event("M2b", True), stand_event("M2b", False), stand_event("M3a", True)])
    return s


def met(ed: str = "web", t3: str = "plains", hero: dict[str, Any] | None = None,
        raven: dict[str, Any] | None = None) -> KipukasState:
    """Hilbert (seat 1, on M3a) and the Raven (seat 2, on M3b) in territory 3, of geography ``t3``;
    ``hero`` and ``raven`` change fields of their souls."""
    s = _met(ed, t3)
    souls = dict(s.souls)
    for sid, changes in (("HMPU#0001", hero), ("ZrrD#0001", raven)):
        if changes:
            souls[sid] = amend(souls[sid], **changes)
    return s.evolve(souls=souls) if hero or raven else s


def bout_roll(attacker: list[list[int]], defender: list[list[int]], att: str = "HMPU#0001", dfn: str = "ZrrD#0001",
              territory: int = 3) -> dict[str, Any]:
    return {"type": "bout_roll", "territory": territory, "attacker": att, "defender": dfn, "archetype": 0,
            "rolls": {"attacker": attacker, "defender": defender}}


def habitat_mods(plan: dict[str, Any], role: str) -> list[dict[str, Any]]:
    return [m for m in plan[role]["modifiers"] if m["source"].startswith("habitat")]


# -- habitat, per edition ---------------------------------------------------------------------------
def test_2023_plains_dwellers_get_one_elsewhere_except_mountains_and_forest() -> None:
    """The 2023 book's habitat table, Plains: "Plains dwellers get 1 added to rolls elsewhere excluding
    mountains and forest". The web rules give plains no such effect."""
    table = {geo: (edition("2023").habitat_roll("Plains", geo), edition("web").habitat_roll("Plains", geo))
             for geo in GEOGRAPHIES}
    assert table == {"mountain": (-2, -2), "forest": (-2, -2), "plains": (3, 3), "volcanic": (1, 0), "water": (1, 0)}
    plan = plan_bout(met("2023", "volcanic"), 3, "HMPU#0001", "ZrrD#0001")
    assert isinstance(plan, dict)
    assert habitat_mods(plan, "attacker") == [
        {"source": "habitat: a plains dweller in volcanic land (2023 rules: plains dwellers elsewhere)", "value": 1}]
    web = plan_bout(met("web", "volcanic"), 3, "HMPU#0001", "ZrrD#0001")
    assert isinstance(web, dict) and habitat_mods(web, "attacker") == []


def test_2023_habitat_belongs_to_keal_means_bouts_and_the_web_applies_it_to_every_battle_roll() -> None:
    """The 2023 book, "What modifies a roll?": habitat is under "Apply to K.E.A.L. means bouts", archetypal
    adaptations and motivation under "Apply effect to final attack rolls". The web rules list habitat
    under "Apply effect to all battle rolls"."""
    for ed, in_final in (("2023", False), ("web", True)):
        downed = met(ed, "plains", raven={"lost": 1})  # the Raven is downed: Hilbert's attack is its Final Blow
        plan = plan_bout(downed, 3, "HMPU#0001", "ZrrD#0001")
        assert isinstance(plan, dict) and plan["final_blow"]
        assert bool(habitat_mods(plan, "attacker")) is in_final, ed
        assert any("Final Blow: Passion" in m["source"] for m in plan["attacker"]["modifiers"])  # motivation: both
        keal = plan_bout(met(ed, "plains"), 3, "HMPU#0001", "ZrrD#0001")
        assert isinstance(keal, dict) and habitat_mods(keal, "attacker")[0]["value"] == 3  # a KEAL means bout: both
    downed = met("2023", "plains", raven={"lost": 1})
    plan = plan_bout(downed, 3, "HMPU#0001", "ZrrD#0001")
    assert "2023 rules: habitat applies to KEAL means bouts, not to the Final Blow" in plan["notes"]
    _, fx = fold([bout_roll([[20], [20], [20]], [[1], [1], [1]])], downed)  # 2023: D20 against D20; said too
    said = phrases_for(next(e for e in fx if e["type"] == "bout_rolled"), downed)
    assert said[0].startswith("Final Blow, Hilbert against Myrthvither Raven") and \
        "2023 rules: habitat applies to KEAL means bouts, not to the Final Blow." in said


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(EDITIONS)), st.sampled_from(ON_LAND), st.sampled_from(HABITATS),
       st.sampled_from(HABITATS), st.booleans(), st.integers(-3, 3))
def test_no_bonus_belongs_to_the_wrong_edition_or_the_wrong_bout(
        ed: str, geo: str, att_habitat: str, dfn_habitat: str, final: bool, archetype: int) -> None:
    s = met(ed, geo, hero={"habitat": att_habitat},
            raven={"habitat": dfn_habitat, "lost": 1 if final else 0})
    plan = plan_bout(s, 3, "HMPU#0001", "ZrrD#0001", archetype=archetype)
    assert isinstance(plan, dict) and plan["final_blow"] is final
    nomads = "Nomad" in (att_habitat, dfn_habitat)
    for role, habitat in (("attacker", att_habitat), ("defender", dfn_habitat)):
        mods = plan[role]["modifiers"]
        want = edition(ed).habitat_roll(habitat, geo)
        applies = not nomads and (not final or edition(ed).habitat_in_final_blow)
        assert [m["value"] for m in mods if m["source"].startswith("habitat")] == ([want] if want and applies else [])
        for m in mods:
            src = m["source"]
            assert "Final Blow" not in src or final  # motives belong to the Final Blow
            assert "elsewhere" not in src or ed == "2023"  # the plains-elsewhere bonus is the 2023 book's
            assert not src.startswith("habitat") or not (final and ed == "2023")
            assert not src.startswith("archetyp") or role == "attacker"
        fists = [m["source"] for m in mods if m["source"].startswith("archetyp")]
        if role == "attacker" and archetype:
            assert fists == ["archetypal adaptations (fists tool)" if final else "archetypal material (fists tool)"]


def test_2023_heavens_dwellers_add_one_to_their_movement_range_and_the_light_shows_it() -> None:
    """The 2023 book's habitat table, Heavens: "Add 1 to movement range". The web rules' heavens
    dwellers "Typically have high movement ability", which changes no number."""
    from kipukas_board.board.graph import reachable

    owl = {"code": "OoOo", "title": "Sky Owl", "movement": 2, "injury_tolerance": 1, "habitat": "Heavens"}
    lit = {}
    for ed, moves in (("2023", 3), ("web", 2)):
        s, _ = fold([*opening(ed), card(1, owl), stand_event("M2b", True), stand_event("M2b", False)])
        _, fx = fold([card(1, owl)], s)
        reach = next(e for e in fx if e["type"] == "reachable")
        assert reach["moves"] == moves, ed
        assert edition(ed).movement_range(2, "Heavens") == moves and edition(ed).movement_range(2, "Plains") == 2
        lit[ed] = set(reachable(BOARD, reach["from"], reach["moves"], reach["kinds"]))  # what the light blinks
    assert lit["web"] < lit["2023"]


def test_only_the_web_rules_heal_on_the_plains() -> None:
    """The web rules' Plains: "Heal revealed souls in territory 1 KEAL Means per 2 turns rested, when not
    under contention". The 2023 book's Plains has no healing."""
    hound = {"code": "BbBb", "title": "Bog Hound", "movement": 3, "injury_tolerance": 2, "habitat": "Forest"}
    healed = {}
    for ed in ("web", "2023"):
        s, _ = fold([*opening(ed), card(1, hound), stand_event("M2b", True), stand_event("M2b", False),
                     stand_event("M6a", True), {"type": "soul_fix", "soul": "BbBb#0001", "lost": 2},
                     roll(4, "night"), roll(5, "day")])
        healed[ed] = s.souls["BbBb#0001"].lost
    assert healed == {"web": 1, "2023": 2}


# -- where bouts are fought --------------------------------------------------------------------------
def test_a_bout_is_fought_where_enemies_meet_held_territory_or_not() -> None:
    """The 2023 book: "If an enemy is in the same territory that you moved to, you must engage an
    attack." Territory 4 is nobody's: no contention, but the two souls meet there and fight."""
    s, _ = fold([*opening("2023"), card(2, RAVEN), stand_event("M7a", True), stand_event("M7a", False),
                 stand_event("M4b", True), card(1, HERO), stand_event("M2b", True), stand_event("M2b", False),
                 stand_event("M4a", True)])
    assert s.territories[4].owner is None and 4 not in s.contenders
    plan = plan_bout(s, 4, "HMPU#0001", "ZrrD#0001")
    assert isinstance(plan, dict) and plan["geography"] == "mountain"
    won, fx = fold([bout_roll([[6, 6]], [[1]], territory=4)], s)
    assert won.souls["ZrrD#0001"].lost == 1 and won.last_bout["winner"] == "attacker"
    manual, fx = fold([{"type": "bout", "territory": 4, "winner": 2, "loser": 1, "soul": "HMPU#0001"}], s)
    assert manual.souls["HMPU#0001"].lost == 1
    nobody, fx = fold([{"type": "bout", "territory": 6, "winner": 2, "loser": 1}], s)
    assert "has no soul in Sunflats (6)" in fx[-1]["text"]


# -- a failed blow -----------------------------------------------------------------------------------
def test_a_soul_whose_blow_failed_cannot_attack_again_in_that_diel_cycle() -> None:
    """Both books, "Defeating a Soul": "After an unsuccessful blow, the player loses their ability to
    attack with that card for this diel cycle." The board refuses the next attack and names the rule;
    the soul still defends, and attacks again in the next cycle."""
    for ed in ("web", "2023"):
        s = met(ed)
        s, fx = fold([bout_roll([[1, 1]], [[19]])], s)
        spent = next(e for e in fx if e["type"] == "attack_spent")
        assert phrases_for(spent, s) == ["Ana's Hilbert missed its blow: it cannot attack again this diel cycle."]
        rolled = next(e for e in fx if e["type"] == "bout_rolled")
        assert phrases_for(rolled, s)[0] == "Hilbert against Myrthvither Raven, 6 to 19: Myrthvither Raven wins."
        assert state_json(s)["souls"][1]["attack_spent"] is True
        why = plan_bout(s, 3, "HMPU#0001", "ZrrD#0001")
        assert isinstance(why, str) and "cannot attack again in this diel cycle" in why and FAILED_BLOW_RULE in why
        again, fx = fold([bout_roll([[6, 6]], [[1]])], s)
        assert again.souls["ZrrD#0001"].lost == 0 and "bout: Hilbert cannot attack again" in fx[-1]["text"]
        assert isinstance(plan_bout(s, 3, "ZrrD#0001", "HMPU#0001"), dict)  # the Raven attacks; Hilbert defends
        s, _ = fold([roll(4, "night"), roll(5, "day")], s)
        assert isinstance(plan_bout(s, 3, "HMPU#0001", "ZrrD#0001"), dict)
        assert state_json(s)["souls"][1]["attack_spent"] is False


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["hero", "raven", "roll"]), st.integers(1, 6), st.integers(1, 20)),
                min_size=1, max_size=12))
def test_a_failed_attacker_never_attacks_twice_in_a_cycle(steps: list[tuple[str, int, int]]) -> None:
    s = met("web", raven={"tolerance": 3})
    failed: dict[str, int] = {}
    cycle = s.diel_cycle
    for who, a, d in steps:
        if who == "roll":
            cycle += 1
            s, _ = fold([roll(cycle, "day")], s)
            continue
        att, dfn = ("HMPU#0001", "ZrrD#0001") if who == "hero" else ("ZrrD#0001", "HMPU#0001")
        att_dice = [[a, a]] if who == "hero" else [[d]]
        dfn_dice = [[d]] if who == "hero" else [[a, a]]
        if s.souls[dfn].downed:
            continue  # the Final Blow's rounds differ; the rule is the same
        s, fx = fold([bout_roll(att_dice, dfn_dice, att, dfn)], s)
        rolled = [e for e in fx if e["type"] == "bout_rolled"]
        if failed.get(att) == cycle:
            event("a second attack after a failed blow in the same cycle")
            assert not rolled, (att, cycle, fx)  # refused: it failed already in this cycle
        elif rolled and rolled[0]["winner"] == "defender":
            failed[att] = cycle
        if any(x.wasted for x in s.souls.values()):
            break


# -- a soul with 0 KEAL means ------------------------------------------------------------------------
def test_a_soul_with_0_keal_means_fights_and_is_wasted_by_the_first_bout_it_loses() -> None:
    """The web rules' worked example: the Myrthvither Raven ("Card Status (health): 0") attacks Hilbert;
    "It modifies how the opponent can engauge it at the expense having 0 KEAL means. This means if it
    losses once, it is wasted.\""""
    s = met("web", raven={"tolerance": 0})
    raven = s.souls["ZrrD#0001"]
    assert not raven.downed and not state_json(s)["souls"][0]["downed"]
    plan = plan_bout(s, 3, "ZrrD#0001", "HMPU#0001")  # the Raven attacks: it is not downed
    assert isinstance(plan, dict) and not plan["final_blow"]
    back = plan_bout(s, 3, "HMPU#0001", "ZrrD#0001")
    assert isinstance(back, dict) and not back["final_blow"]  # a KEAL means bout, habitat and all
    lost, fx = fold([bout_roll([[6, 6]], [[1]])], s)
    assert lost.souls["ZrrD#0001"].wasted and lost.souls_lost == {2: 1}
    _, fx = fold([{"type": "bout", "territory": 3, "winner": 1, "loser": 2, "soul": "ZrrD#0001",
                   "final_blow": True}], s)
    assert "has 0 KEAL means and is not downed" in fx[-1]["text"]


# -- 3 souls per player ------------------------------------------------------------------------------
def test_a_fourth_soul_of_one_player_in_a_territory_is_a_problem_prisoners_apart() -> None:
    """The web rules: "Every territory hosts a max of 3 souls (per player)", and of prisoners: "This is
    in addition to the 3 souls per player normally supported". A map with four movement stands in
    territory 3; seat 2 holds it, so souls stepping out there are seat 2's."""
    s, _ = fold([*opening("web", more_stands=3)])
    s, fx = fold([stand_event(sid, True) for sid in ("M3a", "M3b", "M3c")], s)
    assert [p for p in s.problems if "soul tokens in Long Grass (3)" in p] == []
    s, fx = fold([stand_event("M3d", True)], s)
    limit = next(e for e in fx if e["type"] == "souls_limit")
    assert (limit["seat"], limit["count"], limit["limit"]) == (2, 4, MAX_SOULS_PER_PLAYER)
    text = next(p for p in s.problems if "soul tokens in Long Grass (3)" in p)
    assert text.startswith("Bo has 4 soul tokens in Long Grass (3), on M3a, M3b, M3c, M3d:")
    assert "prisoners are counted apart" in text
    said = phrases_for(limit, s)[0]
    assert said.startswith("Bo has 4 souls in") and said.endswith("a territory hosts at most 3 souls per player.")
    s, _ = fold([stand_event("M3c", False)], s)  # one of them lifted: the problem is over
    assert not [p for p in s.problems if "soul tokens in Long Grass (3)" in p]
    prisoner = s.evolve(stands={**s.stands, "M3a": amend(s.stands["M3a"], awaiting="imprisoned")})
    _, fx = fold([stand_event("M3e", True)], prisoner)  # three souls and a prisoner: within the limit
    assert not [e for e in fx if e["type"] == "souls_limit"]


@pytest.mark.parametrize("ed", sorted(EDITIONS))
def test_the_habitat_table_is_the_books_in_every_edition(ed: str) -> None:
    """Both books' table: "Add 2 to mountain dweller rolls", "Take 2 from plains dweller rolls" (mountain
    and forest), "Add 3 to plains dweller rolls"."""
    e = edition(ed)
    book = {("Mountain", "mountain"): 2, ("Plains", "mountain"): -2, ("Forest", "forest"): 2,
            ("Plains", "forest"): -2, ("Plains", "plains"): 3, ("Mountain", "forest"): 0,
            ("Forest", "mountain"): 0, ("Mountain", "plains"): 0, ("Forest", "plains"): 0,
            ("Nomad", "plains"): 0, ("Forest", "water"): 0, ("Volcanic", "volcanic"): 0}
    assert {pair: e.habitat_roll(*pair) for pair in book} == book
    assert {geo: row[0] for geo, row in HABITAT_ROLLS.items()} == {"mountain": 2, "forest": 2, "plains": 3}


def test_a_failed_retreat_ends_the_souls_attacks_for_the_cycle_in_the_web_edition_only() -> None:
    """The web rules, "Retreat and Reinforce": "If unsuccessful, the retreating soul(s) forgo their
    ability to attack for the day." The 2023 book's retreat has no such sentence."""
    retreat = {"type": "dice_roll", "kind": "retreat", "seat": 1, "escapee": [1, 1], "challenger": [12],
               "souls": ["HMPU#0001"]}
    web, fx = fold([retreat], met("web"))
    spent = next(e for e in fx if e["type"] == "attack_spent")
    assert spent["by"] == "retreat" and phrases_for(spent, web) == [
        "Ana's Hilbert failed to retreat: it cannot attack this diel cycle."]
    why = plan_bout(web, 3, "HMPU#0001", "ZrrD#0001")
    assert isinstance(why, str) and "its retreat failed" in why and "forgo their ability to attack" in why
    hilbert = next(x for x in state_json(web)["souls"] if x["id"] == "HMPU#0001")
    assert hilbert["attack_spent"] and "the Kipukas web rules" in hilbert["attack_spent_why"]
    assert "forgo their ability to attack" in hilbert["attack_spent_why"] and hilbert["attack_spent_why"] in why
    escaped, fx = fold([{**retreat, "escapee": [6, 6], "challenger": [3]}], met("web"))
    assert isinstance(plan_bout(escaped, 3, "HMPU#0001", "ZrrD#0001"), dict)  # it got away: no rule applies
    book, fx = fold([retreat], met("2023"))
    assert not [e for e in fx if e["type"] == "attack_spent"]
    assert isinstance(plan_bout(book, 3, "HMPU#0001", "ZrrD#0001"), dict)
    _, fx = fold([{**retreat, "souls": ["NOPE#0001"]}], met("web"))
    assert "NOPE#0001 is no soul in play" in fx[-1]["text"]
    with pytest.raises(Exception, match="field 'souls' must list at most 3 soul ids"):
        check_event({**retreat, "souls": ["a", "b", "c", "d"]})


# -- a die field with a base ---------------------------------------------------------------------------
def test_a_card_s_base_is_a_fixed_roll_not_a_d20() -> None:
    """The catalog's Die Rolls fields include "Base 3" (the Myrthvither Raven) and "Base 2 + D6": a fixed
    number, alone or added to the dice. The board adds the base and rolls only the dice the card names,
    where it rolled one D20 before."""
    from kipukas_board.modes.kipukas.rules.bouts import parse_die

    assert parse_die("Base 3") == ((), 3, None)
    assert parse_die("Base 2 + D6") == ((6,), 2, None)
    assert parse_die("D6-D6") == ((6, 6), 0, None)
    dice, base, note = parse_die("D6-D6 (Option to Re-roll)")
    assert (dice, base) == ((6, 6), 0) and note is not None and "Option to Re-roll" in note
    assert parse_die("Base lots")[0] == (20,)  # not understood: one D20, said so
    s = met("web", raven={"die": "Base 3"})
    plan = plan_bout(s, 3, "HMPU#0001", "ZrrD#0001")
    assert isinstance(plan, dict) and plan["defender"]["dice"] == [] and plan["defender"]["assumed"] is None
    assert {"source": "the card's base roll (Base 3)", "value": 3} in plan["defender"]["modifiers"]
    won, fx = fold([bout_roll([[2, 1]], [[]])], s)  # Hilbert's 3 against the Raven's fixed 3 + its modifiers
    rolled = next(e for e in fx if e["type"] == "bout_rolled")
    assert rolled["sums"][0][1] == plan["defender"]["bonus"] and plan["defender"]["bonus"] >= 3
    final = plan_bout(met("2023", raven={"die": "Base 2 + D6", "lost": 1}), 3, "HMPU#0001", "ZrrD#0001")
    assert isinstance(final, dict) and final["defender"]["dice"] == [20]  # 2023: two D20s, the base aside
    assert not [m for m in final["defender"]["modifiers"] if "base roll" in m["source"]]
