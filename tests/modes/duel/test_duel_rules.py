"""The card duel's rules core: the turn, the piles, the Hearts, the end; properties over random games
(every card in exactly one place, the counts adding up, replay exact)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kipukas_board.modes import apply as mode_apply
from kipukas_board.modes import state_json
from kipukas_board.modes.duel import rules
from kipukas_board.modes.duel.rules import Duel, apply, census, new_game, refused
from kipukas_board.table.events import EventError, check_event

P = [{"seat": 1, "name": "Ana", "color": "#e4572e"}, {"seat": 2, "name": "Ben", "color": "#1e90ff"}]


def card(cid: str, seat: int, kind: str = "attack", copies: int = 1, **more: Any) -> dict[str, Any]:
    return {"id": cid, "seat": seat, "name": more.pop("name", cid.title()), "type": kind, "copies": copies,
            "effects": more.pop("effects", []), **more}


def deck(seat: int, size: int, *special: dict[str, Any]) -> list[dict[str, Any]]:
    """``special`` cards and plain attacks of 1 to make ``size``."""
    out = list(special)
    n = size - sum(c["copies"] for c in special)
    k = 0
    while n > 0:
        out.append(card(f"s{seat}-plain-{k}", seat, copies=min(3, n), effects=[{"attack": 1}]))
        n -= min(3, n)
        k += 1
    return out


def start(cards: list[dict[str, Any]], hearts: int = 3) -> Duel:
    duel, fx = new_game({"type": "new_game", "game": "duel", "players": P, "challenged": 1, "hearts": hearts,
                         "cards": cards})
    assert not refused(fx)
    return duel


def do(duel: Duel, **event: Any) -> tuple[Duel, list[dict[str, Any]]]:
    new, fx = apply(duel, event)
    assert not refused(fx), (event, fx)
    return new, fx


def test_draws_five_then_seven_then_up_to_five() -> None:
    d = start(deck(1, 30) + deck(2, 30))
    assert (d.side(1).pool, d.side(1).source, d.side(2).pool) == (5, 25, 0)
    d, _ = do(d, type="duel_play", card="s1-plain-0")
    d, _ = do(d, type="duel_pass")
    assert (d.side(2).pool, d.side(2).source, d.to_act) == (7, 23, 2)
    d, _ = do(d, type="duel_pass")
    assert d.side(1).pool == 5 and d.side(1).source == 24 and d.side(1).trash == ("s1-plain-0#1",)
    d, _ = do(d, type="duel_pass")
    assert d.side(2).pool == 7  # already 5 or more: no draw


def test_a_heart_flips_when_attack_beats_defense_and_no_heart_left_loses() -> None:
    big = card("axe", 1, effects=[{"attack": 50}], copies=3)
    d = start(deck(1, 30, big) + deck(2, 30), hearts=2)
    d, _ = do(d, type="duel_play", card="axe")
    d, _ = do(d, type="duel_pass")
    d, fx = do(d, type="duel_pass")  # Ben puts up no defense
    heart = next(e for e in fx if e["type"] == "duel_heart")
    assert heart == {"type": "duel_heart", "seat": 2, "hearts": 1, "attack": 50, "defense": 0, "flash": True}
    assert d.side(2).hearts == 1
    d, _ = do(d, type="duel_play", card="axe")  # Ana's line now has one axe again (the last was discarded)
    d, _ = do(d, type="duel_play", card="axe")
    d, _ = do(d, type="duel_pass")
    d, fx = do(d, type="duel_pass")
    assert [e["hearts"] for e in fx if e["type"] == "duel_heart"] == [0]  # 100 attack: still one Heart a turn
    assert d.phase == "over" and d.winner == 1 and "Ben has no Heart left" in d.end_reason
    assert refused(apply(d, {"type": "duel_pass"})[1])


def test_equal_attack_and_defense_flip_nothing() -> None:
    d = start(deck(1, 30, card("jab", 1, effects=[{"attack": 6}]))
              + deck(2, 30, card("wall", 2, "defense", effects=[{"defense": 6}])))
    d, _ = do(d, type="duel_play", card="jab")
    d, _ = do(d, type="duel_pass")
    d, _ = do(d, type="duel_play", card="wall")
    d, fx = do(d, type="duel_pass")
    assert next(e for e in fx if e["type"] == "duel_resolved")["flipped"] is False


def test_the_trash_is_recycled_and_an_empty_source_and_trash_loses() -> None:
    # A 6-card deck: Ana draws 5, plays them all; at turn 3 her line goes to the trash and she draws
    # the last card of the source, then the trash becomes a new source.
    d = start(deck(1, 6) + deck(2, 30))
    for _ in range(5):
        d, _ = do(d, type="duel_play", card=sorted(i for i in d.side(1).hidden)[0].split("#")[0])
    assert d.side(1).pool == 0
    d, _ = do(d, type="duel_pass")
    d, fx = do(d, type="duel_pass")
    assert any(e["type"] == "duel_recycled" for e in fx)
    assert d.side(1).pool == 5 and d.side(1).trash == () and d.side(1).source == 1
    # Burning everything: a deck whose cards all go to limbo runs dry
    burn = card("flare", 1, "scroll", copies=3, status=["BURN"])
    d = start([burn, card("ember", 1, "scroll", copies=3, status=["BURN"])] + deck(2, 30))
    for cid in ("flare", "flare", "flare", "ember", "ember"):
        d, _ = do(d, type="duel_play", card=cid)
    d, _ = do(d, type="duel_pass")
    d, fx = do(d, type="duel_pass")  # Ana must draw 5: one ember, then nothing in the source or trash
    assert [e["count"] for e in fx if e["type"] == "duel_drew"] == [1]
    assert d.phase == "over" and d.winner == 2 and "no cards in the source or the trash" in d.end_reason


def test_pool_limit_stops_a_draw() -> None:
    gift = card("gift", 1, "scroll", effects=[{"draw": 9}])
    d = start(deck(1, 30, gift) + deck(2, 30))
    d, fx = do(d, type="duel_play", card="gift")
    assert d.side(1).pool == rules.POOL_LIMIT
    full = next(e for e in fx if e["type"] == "duel_pool_full")
    assert full["not_drawn"] == 9 - (rules.POOL_LIMIT - 4)  # the pool held 4 after the gift was played


def test_hand_slots_replace_the_oldest_and_statuses_send_cards_where_they_belong() -> None:
    cards = deck(1, 30, card("club", 1, "assist", hands=1, shield=2), card("mace", 1, "assist", hands=1, shield=2),
                 card("pike", 1, "assist", hands=2, shield=2), card("ghost", 1, "attack", status=["PHASE"]),
                 card("dust", 1, "attack", status=["CRUMBLE"])) + deck(2, 30)
    d = start(cards)
    d = d.with_side(rules.replace(d.side(1), pool=9))  # let Ana hold every card she needs
    for cid in ("club", "mace"):
        d, _ = do(d, type="duel_play", card=cid)
    d, fx = do(d, type="duel_play", card="pike")  # two hands: both older assists destroyed
    assert d.side(1).hands == ("pike#1",) and set(d.side(1).limbo) == {"club#1", "mace#1"}
    d, _ = do(d, type="duel_play", card="ghost")
    d, _ = do(d, type="duel_play", card="dust")
    d, _ = do(d, type="duel_pass")
    src = d.side(1).source
    d, fx = do(d, type="duel_pass")
    moved = {e["card"]: e["to"] for e in fx if e["type"] == "duel_moved"}
    assert moved == {"ghost#1": "bottom", "dust#1": "limbo"}
    assert "ghost#1" in d.side(1).hidden and d.side(1).source == src + 1 - (5 - (9 - 5))


def test_or_choices_and_conditions_are_computed_live() -> None:
    cestus = card("cestus", 1, "scroll", effects=[{"attack": 7, "or": "left"}, {"defense": 7, "or": "right"}])
    punch = card("punch", 1, name="Punch", effects=[{"attack": 5}])
    strong = card("strong", 1, name="Strong Punch", effects=[{"attack": 10, "after": "Punch"}])
    final = card("final", 1, name="Final Punch", effects=[{"attack": 10, "last_with": "Punch"}])
    d = start(deck(1, 30, cestus, punch, strong, final) + deck(2, 30))
    d = d.with_side(rules.replace(d.side(1), pool=9))
    d, _ = do(d, type="duel_play", card="strong")  # not after Punch
    assert d.totals(1)["attack"] == 0
    d, _ = do(d, type="duel_play", card="final")
    d, _ = do(d, type="duel_play", card="punch")  # Final Punch is no longer the last with Punch
    assert [r["attack"] for r in d.totals(1)["cards"]] == [0, 0, 5]
    d, _ = do(d, type="duel_play", card="cestus", side="right")
    assert (d.totals(1)["attack"], d.totals(1)["defense"]) == (5, 7)
    d, _ = do(d, type="duel_choose", card="cestus", side="left")
    assert (d.totals(1)["attack"], d.totals(1)["defense"]) == (12, 0)


def test_refusals_say_why_and_change_nothing() -> None:
    d = start(deck(1, 30, card("roots", 1, "scroll", status=["BURN"], effects=[{"destroy": "assist"}])) + deck(2, 30))
    for event, why in (({"type": "duel_play", "card": "s2-plain-0"}, "in Ben's deck, not Ana's"),
                       ({"type": "duel_play", "card": "nope"}, "no card 'nope'"),
                       ({"type": "duel_play", "card": "roots"}, "name it with target"),
                       ({"type": "duel_play", "card": "roots", "target": "s2-plain-0#1"}, "destroys an assist in play"),
                       ({"type": "duel_pass", "seat": 2}, "it is Ana's turn")):
        new, fx = apply(d, event)
        assert refused(fx) and why in fx[0]["text"], (event, fx)
        assert new is d
    with pytest.raises(EventError, match="'duel_play' event field 'side'"):
        check_event({"type": "duel_play", "card": "x", "side": "up"})
    with pytest.raises(EventError, match="'duel_adjust' event field 'reason'"):
        check_event({"type": "duel_adjust", "card": "x", "attack": 2})


def test_a_second_adjustment_of_a_card_adds_to_the_first() -> None:
    """Two texts may both touch one card in play; the second adjustment adds to the first, and a total
    past the bounds is refused with the reason."""
    d = start(deck(1, 30) + deck(2, 30))
    d, _ = do(d, type="duel_play", card="s1-plain-0")
    base = d.totals(1)["attack"]
    d, _ = do(d, type="duel_adjust", card="s1-plain-0", attack=2, defense=0, reason="house rule")
    d, fx = do(d, type="duel_adjust", card="s1-plain-0", attack=3, defense=1, reason="a trap")
    assert d.totals(1)["attack"] == base + 5 and d.totals(1)["defense"] == 1
    assert fx[0]["reason"] == "house rule; a trap" and fx[0]["added"]["attack"] == 3 and fx[0]["count"] == 2
    new, fx = apply(d, {"type": "duel_adjust", "card": "s1-plain-0", "attack": 999, "defense": 0, "reason": "x"})
    assert refused(fx) and "attack change to 1004 in all, at most 999" in fx[0]["text"] and new is d


def test_deck_checks() -> None:
    ok = [card("a", 1, copies=3)] * 10
    assert rules.deck_problems([{**c, "id": f"a{i}", "name": f"A{i}"} for i, c in enumerate(ok)]) == []
    bad = [card("a", 1, copies=4), card("b", 1, copies=2, exotic=True)]
    probs = rules.deck_problems(bad, "Ana's deck")
    assert probs == ["Ana's deck: has 6 cards, a deck has 30",
                     "Ana's deck: card 'a' field 'copies' is 4, at most 3 copies of a card",
                     "Ana's deck: card 'b' is exotic, field 'copies' is 2, at most 1"]



def test_three_copies_of_each_card_are_counted_by_the_cards_name_not_its_id() -> None:
    """The card duel rules: "Each deck can contain only 3 copies of each card." Two entries with one
    printed name are one card, whatever ids the file gave them."""
    two_ids = [card("punch", 1, copies=2, name="Punch"), card("punch-b", 1, copies=2, name="  punch ")]
    assert rules.deck_problems(two_ids, "Ana's deck", size=4) == [
        "Ana's deck: card 'Punch' (ids 'punch', 'punch-b') has 4 copies in all, at most 3 copies of a card"]
    other = [card("punch", 1, copies=2, name="Punch"), card("strong", 1, copies=2, name="Strong Punch")]
    assert rules.deck_problems(other, size=4) == []


def test_one_copy_of_an_exotic_card_and_asterisks_make_a_card_exotic() -> None:
    """The card duel rules: "Each deck can contain only 1 copy of an exotic card." and "Exotic cards
    have asterisks involving the name." The asterisks count whatever the exotic flag says."""
    marked = [card("axe", 1, name="*Single Axe Throw*", exotic=False),
              card("axe-2", 1, name="Single Axe Throw")]
    assert rules.deck_problems(marked, "Ben's deck", size=2) == [
        "Ben's deck: card '*Single Axe Throw*' (ids 'axe', 'axe-2') is exotic, has 2 copies in all, at most 1"]
    assert rules.deck_problems([card("axe", 1, name="*Single Axe Throw*")], size=1) == []
    assert rules.is_exotic({"name": "Avoidance", "exotic": True}) and not rules.is_exotic({"name": "Avoidance"})


@given(st.lists(st.tuples(st.sampled_from(["Punch", "punch", "*Punch*", "Jab", " Jab  "]),
                          st.integers(1, 3)), min_size=1, max_size=6))
def test_a_name_over_its_limit_is_always_reported_and_one_within_never(entries: list[tuple[str, int]]) -> None:
    cards = [card(f"c{i}", 1, copies=n, name=name) for i, (name, n) in enumerate(entries)]
    probs = rules.deck_problems(cards, size=sum(n for _, n in entries))
    for key in ("punch", "jab"):
        ids = [i for i, (name, _) in enumerate(entries) if rules.card_name_key(name) == key]
        total = sum(entries[i][1] for i in ids)
        limit = 1 if any("*" in entries[i][0] for i in ids) else 3
        reported = bool(ids) and any(f"'c{ids[0]}'" in p for p in probs)  # the group's first id is named
        assert reported == (total > limit), (entries, probs)


# -- properties ------------------------------------------------------------------------------------
SPECIAL = [
    card("club", 1, "assist", hands=1, shield=3, effects=[{"attack": 1, "per": "cards in both lines"}]),
    card("pike", 1, "assist", hands=2, shield=5, status=["GUARD"],
         effects=[{"defense": 2, "per": "cards in both pools"}]),
    card("trap", 1, "trap", hands=1),
    card("mount", 1, "terrain", effects=[{"protect": "first round"}]),
    card("ghost", 1, "attack", copies=2, status=["PHASE"], effects=[{"attack": 4}]),
    card("roots", 1, "scroll", status=["BURN"], effects=[{"destroy": "assist"}]),
    card("swift", 1, "scroll", effects=[{"draw": 1, "per": "attack taken", "every": 5}]),
    card("cestus", 2, "scroll", effects=[{"attack": 7, "or": "left"}, {"defense": 7, "or": "right"}]),
    card("syn", 2, "defense", copies=3, name="Syn", effects=[{"defense": 4, "per": "named", "name": "Syn"}]),
    card("dust", 2, "defense", copies=2, status=["CRUMBLE"], effects=[{"defense": 3}]),
    card("forest", 2, "terrain"),
    card("chain", 2, "assist", hands=2, shield=4, effects=[{"attack": 2, "per": "cards in line"}]),
    card("gift", 2, "scroll", effects=[{"draw": 3}]),
]
IDS = [c["id"] for c in SPECIAL] + ["s1-plain-0", "s2-plain-0", "s2-plain-1"]
INSTANCES = [f"{i}#1" for i in IDS] + ["syn#2", "ghost#2"]


def small_game(size: int) -> list[dict[str, Any]]:
    mine = [c for c in SPECIAL if c["seat"] == 1]
    theirs = [c for c in SPECIAL if c["seat"] == 2]
    return deck(1, size, *mine) + deck(2, size, *theirs)


plays = st.builds(lambda c: {"type": "duel_play", "card": c}, st.sampled_from(IDS))
events = st.one_of(
    plays, plays, plays,
    st.builds(lambda c, s, t, side: {"type": "duel_play", "card": c, **({"seat": s} if s else {}),
                                     **({"target": t} if t else {}), **({"side": side} if side else {})},
              st.sampled_from(IDS), st.sampled_from([None, 1, 2]), st.sampled_from([None, *INSTANCES]),
              st.sampled_from([None, "left", "right"])),
    st.just({"type": "duel_pass"}),
    st.just({"type": "duel_pass"}),
    st.builds(lambda t: {"type": "duel_aim", "target": t}, st.sampled_from([None, "club", "pike", "chain"])),
    st.builds(lambda c, s: {"type": "duel_choose", "card": c, "side": s}, st.sampled_from(["cestus", "club"]),
              st.sampled_from(["left", "right"])),
    st.builds(lambda c, a: {"type": "duel_adjust", "card": c, "attack": a, "defense": 0, "reason": "text"},
              st.sampled_from(INSTANCES), st.integers(-5, 5)),
    st.builds(lambda c, to: {"type": "duel_move", "card": c, "to": to, "reason": "text"},
              st.sampled_from(INSTANCES), st.sampled_from(["discard", "destroy", "trash", "limbo", "bottom", "pool"])),
    st.builds(lambda n: {"type": "duel_draw", "count": n, "reason": "text"}, st.integers(1, 4)),
    st.just({"type": "undo"}),
)


def check_conserved(d: Duel) -> None:
    for s in d.sides:
        mine = {i for i, o in d.owner.items() if o == s.seat}
        places = [*s.hidden, *s.line, *s.hands, *s.trash, *s.limbo]
        if d.terrain is not None and d.owner[d.terrain] == s.seat:
            places.append(d.terrain)
        assert sorted(places) == sorted(mine), "every card in exactly one place"
        assert s.source >= 0 and s.pool >= 0 and s.source + s.pool == len(s.hidden)
        assert s.pool <= rules.POOL_LIMIT
        assert 0 <= s.hearts <= s.hearts_total
        assert sum(1 if d.card(i)["type"] == "trap" else d.card(i).get("hands", 1) for i in s.hands) <= rules.HAND_SLOTS
        assert all(d.card(i)["type"] in rules.IN_LINE for i in s.line)
    assert sum(census(d).values()) == len(d.owner)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.sampled_from([12, 30]), evs=st.lists(events, max_size=60))
def test_cards_are_conserved_and_replay_is_exact(size: int, evs: list[dict[str, Any]]) -> None:
    start_event = {"type": "new_game", "game": "duel", "players": P, "challenged": 1, "hearts": 3,
                   "cards": small_game(size)}
    d, _ = new_game(start_event)
    check_conserved(d)
    flips: dict[int, int] = {}
    for e in evs:
        check_event(e)
        before = d
        d, fx = apply(d, e)
        check_conserved(d)
        if refused(fx):
            assert d is before
        hearts = [x for x in fx if x["type"] == "duel_heart"]
        assert len(hearts) <= 1, "at most one Heart flipped a turn"
        for h in hearts:
            flips[h["seat"]] = flips.get(h["seat"], 0) + 1
    # replay through the board's mode seam: the same events give the same state document
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.modes import new_table

    def fold() -> dict[str, Any]:
        s, _ = mode_apply(new_table(load_map("kipuka-8")), start_event, 1)
        for k, e in enumerate(evs):
            s, _ = mode_apply(s, e, k + 2)
        return state_json(s)

    once, twice = fold(), fold()
    assert once == twice and once["duel"] == d.to_json()


def test_a_named_equip_is_replaced_instead_of_the_oldest() -> None:
    cards = deck(1, 30, card("club", 1, "assist", hands=1), card("mace", 1, "assist", hands=1),
                 card("whip", 1, "assist", hands=1)) + deck(2, 30)
    d = start(cards)
    for cid in ("club", "mace"):
        d, _ = do(d, type="duel_play", card=cid)
    d, _ = do(d, type="duel_play", card="whip", replace="mace")
    assert d.side(1).hands == ("club#1", "whip#1") and d.side(1).limbo == ("mace#1",)
