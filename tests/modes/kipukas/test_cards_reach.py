"""A soul card shown while its player holds the soul's token lights where that token can go.

Driven like a table: simulated reed switches and the simulated camera endpoint, with a small
catalog imported into the board (a land soul of Movement 2, a Water dweller, an item).
"""

from __future__ import annotations

from rules_table import Table, setup_two_players

from kipukas_board.board.graph import reachable
from kipukas_board.modes.kipukas.rules.dice import ScriptedDice

CARDS = [
    {"code": "LND2", "slug": "land_two", "title": "Land Two", "type": "Species", "habitat": "Plains",
     "injury_tolerance": 2, "movement": 2, "keal_means": []},
    {"code": "WAT1", "slug": "water_one", "title": "Water One", "type": "Species", "habitat": "Water",
     "injury_tolerance": 2, "movement": 1, "keal_means": []},
    {"code": "ITEM", "slug": "an_item", "title": "An Item", "type": "Item", "habitat": None,
     "injury_tolerance": 0, "movement": 0, "keal_means": []},
]


def show(t: Table, code: str, seat: int) -> list[dict]:
    before = len(t.effects)
    r = t.client.post("/api/sim/cards", json={"payload": f"kpks.us/{code}#0001?AbCdEf", "seat": seat})
    assert r.status_code == 200, r.get_json()
    return [e for e in t.effects[before:] if e["type"] == "reachable"]


def test_a_soul_card_lights_the_stands_its_lifted_token_can_reach(data_dir) -> None:
    with Table(data_dir, dice=ScriptedDice([5, 2])) as t:
        t.board.card_desk.catalog.import_records(CARDS)
        setup_two_players(t)  # seat 1 holds T1 (capital), T2, T5; seat 2 holds T8, T7, T4
        t.roll(), t.roll()
        assert show(t, "LND2", 1) == []  # nothing in hand yet: the board does not guess which token
        t.put("M2b")  # a soul of seat 1 steps out of T2 ...
        t.lift("M2b")  # ... and is picked up
        assert show(t, "LND2", 2) == []  # seat 2 holds no token
        assert show(t, "ITEM", 1) == []  # an item does not move
        [reach] = show(t, "LND2", 1)
        assert reach == {"type": "reachable", "from": "M2b", "moves": 2, "kinds": ["land"], "seat": 1}
        # the lighting blinks exactly those stands, in seat 1's colour
        board = t.board.loop.state.board
        want = {s for s, d in reachable(board, "M2b", 2).items() if d > 0}
        scene = t.board.lighting._scene
        assert set(scene.reachable) == want and len(want) > 2
        assert scene.reachable_color == (0xE4, 0x57, 0x2E)
        [reach] = show(t, "WAT1", 1)
        assert reach["moves"] == 1 and reach["kinds"] == ["land", "water"]


def test_a_downed_soul_reaches_only_as_far_as_the_editions_table(data_dir) -> None:
    with Table(data_dir, dice=ScriptedDice([5, 2])) as t:
        t.board.card_desk.catalog.import_records(CARDS)
        setup_two_players(t)
        t.roll(), t.roll()
        t.put("M2b")
        t.act("correction", {"target": "stand", "stand": "M2b", "owner": 1, "downed": True})
        t.lift("M2b")
        [reach] = show(t, "LND2", 1)
        assert reach["moves"] == 1  # web rules: a downed Movement 2 soul moves 1
