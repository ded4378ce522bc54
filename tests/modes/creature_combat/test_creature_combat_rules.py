"""Creature Combat Territory's rules core: the arithmetic, the rounds, and properties over random games."""

from __future__ import annotations

from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from kipukas_board.modes.creature_combat.events import check_cc_event, check_new_game
from kipukas_board.modes.creature_combat.rules import (
    BIOMES,
    PILES,
    Adjustment,
    Creature,
    apply,
    card_cost,
    combat_totals,
    creature_power,
    new_game,
    rest_after_combat,
    stars_for,
)


def fox(base: int = 5, biomes: dict[str, int] | None = None, stars: int = 2) -> Creature:
    return Creature("fox-1", 1, "Rusty", "Red Fox", 12, stars, base, biomes if biomes is not None else {"forest": 2})


def test_power_is_base_plus_the_matching_biome_modifier() -> None:
    assert creature_power(fox(), "forest") == 7
    assert creature_power(fox(biomes={"ocean": -3}), "ocean") == 2
    assert creature_power(fox(), "desert") == 5  # no matching modifier: 0


def test_power_is_zero_when_base_power_is_zero_or_less_and_the_modifier_is_ignored() -> None:
    assert creature_power(fox(base=0, biomes={"forest": 4}), "forest") == 0
    assert creature_power(fox(base=3), "forest", Adjustment(base=-5, reason="Deal 5 damage")) == 0


def test_adjustments_change_base_power_and_power_and_support_adds_nothing() -> None:
    assert creature_power(fox(), "forest", Adjustment(base=-1, reason="Roar")) == 6
    assert creature_power(fox(), "forest", Adjustment(power=2, reason="Allies +2")) == 9


def test_rest_counters_one_for_base_zero_stars_more_for_damage_to_zero() -> None:
    assert rest_after_combat(fox()) == 0
    assert rest_after_combat(fox(base=0)) == 1
    assert rest_after_combat(fox(base=3, stars=2), Adjustment(base=-3, reason="Deal 3 damage")) == 1 + 2
    assert rest_after_combat(fox(), Adjustment(rest=2, reason="Rest 2")) == 2


def test_card_creation_formula_and_stars() -> None:
    assert card_cost(5, {"forest": 2, "ocean": -3}, ability_cost=1) == 12
    assert card_cost(1, {"forest": 1}) == 3  # a leftover biome point counts as 2
    assert card_cost(0, {}) == 1  # the final cost is at least 1
    assert card_cost(45, {}, discount=9) == 81
    assert [stars_for(c) for c in (1, 10, 11, 100)] == [1, 1, 2, 10]


def game_event(n_seats: int = 2, creatures: list[list[dict[str, Any]]] | None = None, lands_each: int = 3,
               biomes: list[str] | None = None) -> dict[str, Any]:
    players = [{"seat": s, "name": f"P{s}", "color": f"#{s:02x}{s:02x}{s:02x}"} for s in range(1, n_seats + 1)]
    cards = []
    for s in range(1, n_seats + 1):
        for i, c in enumerate((creatures or [[]] * n_seats)[s - 1] or
                              [{"base_power": 3, "biomes": {"forest": 1}}, {"base_power": 0, "biomes": {}}]):
            cards.append({"id": f"c{s}-{i}", "seat": s, "name": f"C{s}.{i}", "species": "Beast", "cost": 5,
                          "stars": 1, "ability": "", **c})
    bs = biomes or list(BIOMES)
    lands = [{"id": f"l{s}-{i}", "seat": s, "name": f"L{s}.{i}", "biome": bs[(s + i) % len(bs)]}
             for s in range(1, n_seats + 1) for i in range(lands_each)]
    e = {"type": "new_game", "game": "creature-combat", "players": players, "creatures": cards, "lands": lands,
         "options": {"deck_cost": 100, "land_deck": lands_each}}
    check_new_game(e)
    return e


def step(cc: Any, event: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
    check_cc_event(event) if event["type"] != "undo" else None
    return apply(cc, event)


def test_a_round_from_dealing_to_the_next_round() -> None:
    cc, fx = new_game(game_event(biomes=["forest"]))
    assert cc.phase == "round_begin" and fx[-1] == {"type": "cc_round", "round": 1, "deal": 5}
    for lid in ("l1-0", "l1-1", "l1-2", "l2-0", "l2-1"):
        cc, fx = step(cc, {"type": "cc_deal", "land": lid})
    assert cc.phase == "deploy" and cc.deck == ("l2-2",)
    cc, _ = step(cc, {"type": "cc_done", "seat": 1})
    assert cc.phase == "deploy"
    cc, fx = step(cc, {"type": "cc_done", "seat": 2})
    assert cc.phase == "combat" and cc.combat_slot == 0 and fx[-1]["type"] == "cc_combat"
    cc, _ = step(cc, {"type": "cc_reveal", "creature": "c1-0"})
    cc, _ = step(cc, {"type": "cc_reveal", "creature": "c1-1"})
    cc, _ = step(cc, {"type": "cc_reveal", "creature": "c2-0"})
    cc, _ = step(cc, {"type": "cc_reveal", "creature": "c2-1"})
    assert combat_totals(cc) == {1: 4, 2: 4}
    cc, fx = step(cc, {"type": "cc_adjust", "creature": "c2-0", "power": 1, "reason": "Howl: +1 power"})
    assert combat_totals(cc) == {1: 4, 2: 5}
    cc, fx = step(cc, {"type": "cc_resolve"})
    result = fx[0]
    assert result["winner"] == 2 and result["totals"] == {"1": 4, "2": 5}
    assert cc.land_piles[2] == ("l1-0",) and cc.slots[0] is None
    assert cc.pile["c1-1"] == "resting" and cc.rest["c1-1"] == 1  # base power 0: one rest counter
    assert cc.pile["c1-0"] == "returning"
    # the other four lands: nobody reveals, each is a draw and stays
    for _ in range(4):
        cc, fx = step(cc, {"type": "cc_resolve"})
        assert fx[0]["winner"] is None
    assert cc.phase == "round_end"
    assert cc.pile["c1-0"] == "ready"  # step 1: returning to ready
    assert cc.pile["c1-1"] == "returning"  # step 2: its one rest counter came off
    assert cc.choices_left == {1: 0, 2: 1} and cc.done == {1}  # seat 1 has no land: nothing to choose
    new, fx = step(cc, {"type": "cc_choose", "seat": 2, "creature": "c1-1", "choice": "ready"})
    assert new is cc and "belongs to seat 1, not seat 2" in fx[0]["text"]
    cc, fx = step(cc, {"type": "cc_choose", "creature": "c2-1", "choice": "ready"})
    assert cc.pile["c2-1"] == "ready" and cc.choices_left[2] == 0
    new, fx = step(cc, {"type": "cc_choose", "creature": "c2-0", "choice": "ready"})
    assert "no land-pile choice left" in fx[0]["text"]
    cc, _ = step(cc, {"type": "cc_done", "seat": 2})
    assert cc.phase == "round_begin" and cc.round == 2
    cc, fx = step(cc, {"type": "cc_deal", "land": "l2-2"})
    assert cc.phase == "deploy" and cc.slots[0] == "l2-2"  # the deck ran out: deploy with what lies


def test_refusals_name_the_reason_and_change_nothing() -> None:
    cc, _ = new_game(game_event())
    for bad, words in [
        ({"type": "cc_done", "seat": 1}, "only in deploy or round end"),
        ({"type": "cc_deal", "land": "nope"}, "no land 'nope'"),
        ({"type": "cc_reveal", "creature": "c1-0"}, "only in combat"),
    ]:
        new, fx = step(cc, bad)
        assert new is cc and fx[0]["type"] == "problem" and words in fx[0]["text"]
    cc, _ = step(cc, {"type": "cc_deal", "land": "l1-0", "slot": 3})
    new, fx = step(cc, {"type": "cc_deal", "land": "l1-1", "slot": 3})
    assert new is cc and "slot 3 already holds L1.0" in fx[0]["text"]
    new, fx = step(cc, {"type": "cc_deal", "land": "l1-0"})
    assert "already dealt: it is in slot 3" in fx[0]["text"]


def test_the_game_ends_when_no_land_is_left_and_the_most_lands_win() -> None:
    cc, _ = new_game(game_event(lands_each=1, creatures=[[{"base_power": 4}, {"base_power": 2}], [{"base_power": 1}]]))
    cc, _ = step(cc, {"type": "cc_deal", "land": "l1-0"})
    cc, _ = step(cc, {"type": "cc_deal", "land": "l2-0"})
    for s in (1, 2):
        cc, _ = step(cc, {"type": "cc_done", "seat": s})
    for cid in ("c1-0", "c1-1"):  # one creature fights once a round
        cc, _ = step(cc, {"type": "cc_reveal", "creature": cid})
        cc, fx = step(cc, {"type": "cc_resolve"})
    assert cc.phase == "over" and cc.winner == 1 and cc.end_reason == "no lands left to claim"
    assert fx[-1]["type"] == "cc_over" and fx[-1]["lands"] == {"1": 2, "2": 0}


def test_early_majority_needs_more_than_half_and_concede_leaves_the_last_player_winning() -> None:
    cc, _ = new_game(game_event(lands_each=2))
    new, fx = step(cc, {"type": "cc_end", "winner": 1})
    assert new is cc and "not a majority" in fx[0]["text"]
    # Ana has claimed 3 of the 4 lands (the rest of the game elided): the others may agree she wins.
    held = cc.evolve(land_piles={1: ("l1-0", "l1-1", "l2-0"), 2: ()}, deck=("l2-1",))
    over, fx = step(held, {"type": "cc_end", "winner": 1})
    assert over.phase == "over" and over.winner == 1 and fx[-1]["reason"] == "majority agreed"
    cc3, _ = new_game(game_event(n_seats=3))
    cc3, fx = step(cc3, {"type": "cc_concede", "seat": 2})
    assert cc3.phase != "over" and cc3.active == (1, 3)
    cc3, fx = step(cc3, {"type": "cc_concede", "seat": 3})
    assert cc3.phase == "over" and cc3.winner == 1


# -- properties over random games ---------------------------------------------------------------------
creature_st = st.fixed_dictionaries({"base_power": st.integers(0, 6),
                                     "biomes": st.dictionaries(st.sampled_from(BIOMES[:4]), st.integers(-3, 3),
                                                               max_size=3),
                                     "stars": st.integers(1, 3)})
game_st = st.integers(2, 4).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.lists(creature_st, min_size=1, max_size=4), min_size=n, max_size=n),
    st.integers(1, 4)))
KINDS = ["play"] * 30 + ["deal", "done", "reveal", "unreveal", "adjust", "resolve", "choose", "undo", "concede", "end"]


def decode_action(x: int) -> tuple[str, int, int, bool]:
    """One random number -> (kind, k, v, flag): plain integers keep the data generation fast."""
    return KINDS[x % len(KINDS)], (x // 64) % 41, (x // 4096) % 9 - 4, bool(x & 1 << 20)


def play(cc: Any, k: int, v: int, flag: bool) -> dict[str, Any] | None:
    """A move that fits the phase (most random moves would be refused and the game would never start)."""
    active = [s for s in cc.active if s not in cc.done]
    if cc.phase == "round_begin" and cc.deck:
        return {"type": "cc_deal", "land": cc.deck[k % len(cc.deck)]}
    if cc.phase in ("deploy", "round_end") and active:
        if cc.phase == "round_end" and flag:
            mine = [c for c, p in sorted(cc.pile.items()) if p in ("resting", "returning")]
            if mine:
                c = mine[k % len(mine)]
                return {"type": "cc_choose", "creature": c, "choice": "rest" if cc.pile[c] == "resting" else "ready"}
        return {"type": "cc_done", "seat": active[k % len(active)]}
    if cc.phase == "combat":
        ready = [c for c, p in sorted(cc.pile.items()) if p == "ready"]
        if ready and k % 3:
            return {"type": "cc_reveal", "creature": ready[k % len(ready)]}
        return {"type": "cc_resolve"}
    return None


def make_event(cc: Any, action: tuple[str, int, int, bool]) -> dict[str, Any] | None:
    kind, k, v, flag = action
    if kind == "play":
        return play(cc, k, v, flag)
    creatures = sorted(cc.creatures)
    cid = creatures[k % len(creatures)]
    seat = cc.seats[k % len(cc.seats)].seat
    if kind == "deal":
        lands = sorted(cc.lands)
        return {"type": "cc_deal", "land": lands[k % len(lands)], **({"slot": k % 5 + 1} if flag else {})}
    if kind in ("done", "concede"):
        if kind == "concede" and k % 8:
            return None  # conceding is rare
        return {"type": f"cc_{kind}", "seat": seat}
    if kind in ("reveal", "unreveal"):
        return {"type": f"cc_{kind}", "creature": cid}
    if kind == "adjust":
        return {"type": "cc_adjust", "creature": cid, "base": v, "power": -v // 2, "rest": abs(v) % 3,
                "support": flag and k % 3 == 0, "sacrifice": flag and k % 5 == 1, "reason": "test ability"}
    if kind == "resolve":
        return {"type": "cc_resolve"}
    if kind == "choose":
        return {"type": "cc_choose", "creature": cid, "choice": "rest" if flag else "ready"}
    if kind == "end":
        return None if k % 10 else {"type": "cc_end"}
    return {"type": "undo"}


def check_invariants(cc: Any) -> None:
    assert set(cc.pile) == set(cc.creatures)  # every creature in exactly one pile
    assert all(p in PILES for p in cc.pile.values())
    assert {c for c, p in cc.pile.items() if p == "resting"} == set(cc.rest)
    assert all(n > 0 for n in cc.rest.values())
    assert all(cc.pile[c] in ("resting", "returning") for c in cc.sacrificed)  # removed at round end
    at_land = sorted(c for cids in cc.revealed.values() for c in cids)
    assert at_land == sorted(c for c, p in cc.pile.items() if p == "land")
    assert not at_land or cc.phase == "combat"
    placed = list(cc.deck) + [x for x in cc.slots if x] + [x for pile in cc.land_piles.values() for x in pile]
    assert sorted(placed) == sorted(cc.lands)  # every land in exactly one place
    land = cc.land_at(cc.combat_slot)
    if cc.phase == "combat" and land is not None:
        expect = {s: 0 for s in cc.active}
        for seat, cids in cc.revealed.items():
            for cid in cids:
                c, adj = cc.creatures[cid], cc.adjustments.get(cid)
                base = max(0, c.base_power + (adj.base if adj else 0))
                power = (0 if base <= 0 else base + c.biomes.get(land.biome, 0)) + (adj.power if adj else 0)
                if seat in expect and not (adj and adj.support):
                    expect[seat] += power
        assert combat_totals(cc) == expect  # totals follow the formula


@settings(max_examples=120, deadline=None)
@given(game_st, st.lists(st.integers(0, 2**21), min_size=30, max_size=150))
def test_random_games_keep_every_creature_in_one_pile_totals_follow_the_formula_and_replay_exactly(
        game: tuple[int, list[list[dict[str, Any]]], int], actions: list[int]) -> None:
    n, creatures, lands_each = game
    start = game_event(n, creatures, lands_each)
    cc, _ = new_game(start)
    journal = []
    for action in actions:
        e = make_event(cc, decode_action(action))
        if e is None:
            continue
        before = cc
        cc, fx = step(cc, e)
        journal.append(e)
        if fx and all(x["type"] == "problem" for x in fx):
            assert cc is before  # a refusal changes nothing
        check_invariants(cc)
    event(f"reached round {min(cc.round, 3)}{'+' if cc.round >= 3 else ''}, phase {cc.phase}")
    replayed, _ = new_game(start)
    for e in journal:
        replayed, _ = apply(replayed, e)
    assert replayed.to_json() == cc.to_json()


def test_every_phase_and_result_is_spoken() -> None:
    from kipukas_board.modes.creature_combat.phrases import phrases_for

    cc, said = new_game(game_event(lands_each=3, biomes=["forest"]))
    effects = list(said)
    script = [{"type": "cc_deal", "land": lid} for lid in ("l1-0", "l1-1", "l1-2", "l2-0", "l2-1")]
    script += [{"type": "cc_done", "seat": 1}, {"type": "cc_done", "seat": 2},
               {"type": "cc_reveal", "creature": "c1-0"},
               {"type": "cc_adjust", "creature": "c1-0", "power": 1, "reason": "Howl"}, {"type": "cc_resolve"},
               {"type": "cc_resolve"}, {"type": "cc_concede", "seat": 2}]
    for e in script:
        cc, fx = step(cc, e)
        effects += fx
    kinds = {e["type"] for e in effects}
    assert {"cc_new_game", "cc_round", "cc_dealt", "cc_deploy", "cc_done", "cc_combat", "cc_revealed", "cc_adjusted",
            "cc_result", "cc_conceded", "cc_over"} <= kinds
    for e in effects:
        sentences = phrases_for(e, cc)
        assert sentences and all(s.strip() for s in sentences), e
    assert phrases_for({"type": "cc_result", "name": "Misty Hollow", "winner": 1, "totals": {"1": 7, "2": 3}}, cc) == [
        "P1 claims Misty Hollow, P1 7 and P2 3."]


def _at_combat(biomes: list[str] | None = None) -> Any:
    """Both players deployed; combat at land 1 with C1.0 (base 3, forest +1) and C2.0 revealed."""
    cc, _ = new_game(game_event(biomes=biomes or ["forest"]))
    for lid in ("l1-0", "l1-1", "l1-2", "l2-0", "l2-1"):
        cc, _ = step(cc, {"type": "cc_deal", "land": lid})
    for seat in (1, 2):
        cc, _ = step(cc, {"type": "cc_done", "seat": seat})
    for cid in ("c1-0", "c2-0"):
        cc, _ = step(cc, {"type": "cc_reveal", "creature": cid})
    return cc


def test_a_second_ability_on_the_same_creature_adds_to_the_first_and_no_rest_cost_is_lost() -> None:
    """Creature Combat Territory: "If a Creature has more than one ability, you may activate more than
    one in a round." and "Rest X – Add X amount of rest counters to the Creature when it activates this
    ability." An earlier Rest 2 still counts after a second ability (or an enemy's) changes its power."""
    cc = _at_combat()
    cc, _ = step(cc, {"type": "cc_adjust", "creature": "c1-0", "rest": 2, "power": 1, "reason": "Howl: Rest 2"})
    cc, fx = step(cc, {"type": "cc_adjust", "creature": "c1-0", "base": -1, "reason": "Roar from C2.0"})
    adj = cc.adjustments["c1-0"]
    assert (adj.base, adj.power, adj.rest, adj.count) == (-1, 1, 2, 2)
    assert adj.reason == "Howl: Rest 2; Roar from C2.0"
    assert fx[0]["earlier"]["reason"] == "Howl: Rest 2" and fx[0]["added"]["base"] == -1
    assert combat_totals(cc)[1] == (3 - 1) + 1 + 1  # base after Roar, the forest modifier, Howl's +1
    cc, fx = step(cc, {"type": "cc_resolve"})
    assert cc.pile["c1-0"] == "resting" and cc.rest["c1-0"] == 2  # the Rest 2 is not lost


def test_adjustments_beyond_the_bounds_are_refused_with_the_reason() -> None:
    cc = _at_combat()
    for _ in range(8):
        cc, _ = step(cc, {"type": "cc_adjust", "creature": "c2-0", "base": -1, "reason": "Deal 1 damage"})
    new, fx = step(cc, {"type": "cc_adjust", "creature": "c2-0", "base": -1, "reason": "Deal 1 damage"})
    assert new is cc and "already has 8 adjustments in this combat" in fx[0]["text"] and "at most 8" in fx[0]["text"]
    cc = _at_combat()
    cc, _ = step(cc, {"type": "cc_adjust", "creature": "c2-0", "power": 999, "reason": "Huge"})
    new, fx = step(cc, {"type": "cc_adjust", "creature": "c2-0", "power": 1, "reason": "More"})
    assert new is cc and "its power change to 1000 in all, at most 999" in fx[0]["text"]


def test_a_sacrifice_cost_removes_the_creature_from_the_game_when_the_round_ends() -> None:
    """Creature Combat Territory: "Sacrifice – This Creature is removed from the game when the round
    ends." It fights this combat, then never comes back to a pile it could be deployed from."""
    from kipukas_board.modes.creature_combat.phrases import phrases_for

    cc = _at_combat()
    cc, fx = step(cc, {"type": "cc_adjust", "creature": "c1-0", "power": 3, "sacrifice": True,
                       "reason": "Last Stand: Sacrifice"})
    assert phrases_for(fx[0], cc) == ["C1.0 now has power 7: Last Stand: Sacrifice.",
                                      "C1.0 is sacrificed: removed from the game when the round ends."]
    cc, fx = step(cc, {"type": "cc_resolve"})
    assert fx[0]["winner"] == 1 and fx[0]["sacrificed"] == ["c1-0"] and "c1-0" in cc.sacrificed
    assert cc.to_json()["creatures"]["c1-0"]["sacrificed"] is True
    said: list[dict[str, Any]] = []
    for _ in range(4):
        cc, fx = step(cc, {"type": "cc_resolve"})
        said += fx
    assert cc.phase in ("round_end", "round_begin") and cc.pile["c1-0"] == "removed" and not cc.sacrificed
    removed = next(e for e in said if e["type"] == "cc_removed")
    assert phrases_for(removed, cc) == ["C1.0 removed from the game: Sacrifice."]
    assert cc.piles_of(1)["removed"] == ["c1-0"]
    new, fx = apply(cc, {"type": "cc_choose", "creature": "c1-0", "choice": "ready"})
    assert new is cc and fx[0]["type"] == "problem"


def test_a_sacrifice_or_support_cost_holds_when_a_later_adjustment_does_not_repeat_it() -> None:
    """Creature Combat Territory: "Sacrifice – This Creature is removed from the game when the round
    ends" and "Support – This Creature doesn't add its power to the Total Power": a cost paid by one
    ability stays paid when another ability (or an enemy's) adjusts the same creature afterwards."""
    cc = _at_combat()
    cc, _ = step(cc, {"type": "cc_adjust", "creature": "c1-0", "sacrifice": True, "reason": "Last Stand: Sacrifice"})
    cc, _ = step(cc, {"type": "cc_adjust", "creature": "c1-0", "base": -1, "reason": "Roar from C2.0"})
    cc, _ = step(cc, {"type": "cc_adjust", "creature": "c2-0", "support": True, "reason": "Shield: Support"})
    cc, _ = step(cc, {"type": "cc_adjust", "creature": "c2-0", "power": 2, "reason": "Howl"})
    assert cc.adjustments["c1-0"].sacrifice and cc.adjustments["c2-0"].support
    assert combat_totals(cc)[2] == 0  # the supporting creature adds nothing, whatever Howl gave it
    cc, fx = step(cc, {"type": "cc_resolve"})
    assert fx[0]["sacrificed"] == ["c1-0"]


def test_a_second_adjustment_is_spoken_as_added_to_the_first() -> None:
    from kipukas_board.modes.creature_combat.phrases import phrases_for

    cc = _at_combat()
    cc, _ = step(cc, {"type": "cc_adjust", "creature": "c1-0", "rest": 2, "reason": "Howl: Rest 2"})
    cc, fx = step(cc, {"type": "cc_adjust", "creature": "c1-0", "power": 1, "reason": "Allies +1"})
    assert phrases_for(fx[0], cc) == ["C1.0 now has power 5: Allies +1, added to Howl: Rest 2. Abilities add up."]
