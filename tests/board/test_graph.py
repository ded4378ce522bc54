"""Graph helpers: neighbours, reachability within N moves honouring path kinds, shortest paths."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board.board.graph import adjacent_territories, distance, neighbours, reachable, shortest_path
from kipukas_board.board.mapfile import load_map

SMALL = load_map("kipuka-8")
BIG = load_map("kipuka-12")


def test_neighbours_follow_the_map_file() -> None:
    assert neighbours(SMALL, "T1") == ["M1a", "M1b"]
    assert neighbours(SMALL, "M1b") == ["M1a", "M2a", "M5a", "T1"]


def test_reachable_within_n_moves() -> None:
    assert reachable(SMALL, "T1", 0) == {"T1": 0}
    one = reachable(SMALL, "T1", 1)
    assert one == {"T1": 0, "M1a": 1, "M1b": 1}
    two = reachable(SMALL, "T1", 2)
    assert two["M2a"] == 2 and two["M5a"] == 2 and "T2" not in two


def test_water_needs_a_boat_and_tunnels_an_underground_dweller() -> None:
    dock = "M3b"
    assert "W2" not in reachable(BIG, dock, 3)
    assert reachable(BIG, dock, 1, kinds={"land", "water"})["W2"] == 1
    assert "M6b" not in reachable(BIG, "M1a", 1)
    assert reachable(BIG, "M1a", 1, kinds={"land", "tunnel"})["M6b"] == 1
    # The lake is reachable only over water.
    assert shortest_path(BIG, "T1", "W1") is None
    route = shortest_path(BIG, "T3", "W1", kinds={"land", "water"})
    assert route is not None and route[0] == "T3" and route[-1] == "W1" and "M3b" in route


def test_shortest_path_is_shortest_and_stable() -> None:
    route = shortest_path(SMALL, "T1", "T8")
    assert route == shortest_path(SMALL, "T1", "T8")
    assert route[0] == "T1" and route[-1] == "T8"
    assert len(route) - 1 == reachable(SMALL, "T1", 20)["T8"] == distance(SMALL, "T1", "T8")
    for a, b in zip(route, route[1:], strict=False):
        assert b in neighbours(SMALL, a)


def test_adjacent_territories() -> None:
    assert adjacent_territories(SMALL, 1) == [2, 5]
    assert adjacent_territories(SMALL, 6) == [2, 5, 7]
    assert 12 in adjacent_territories(BIG, 3, kinds={"land", "water"})
    assert 12 not in adjacent_territories(BIG, 3)


def test_unknown_stand_and_negative_moves() -> None:
    with pytest.raises(KeyError, match="NOPE"):
        neighbours(SMALL, "NOPE")
    with pytest.raises(ValueError):
        reachable(SMALL, "T1", -1)


stands = st.sampled_from(sorted(BIG.stands))
kinds = st.sets(st.sampled_from(["land", "water", "tunnel"]), min_size=1)


@settings(max_examples=200, deadline=None)
@given(stands, st.integers(0, 6), kinds)
def test_reachability_grows_with_moves_and_agrees_with_shortest_path(start: str, n: int, ks: set[str]) -> None:
    near = reachable(BIG, start, n, ks)
    far = reachable(BIG, start, n + 1, ks)
    assert set(near) <= set(far)
    for sid, d in near.items():
        assert d <= n
        assert distance(BIG, start, sid, ks) == d
