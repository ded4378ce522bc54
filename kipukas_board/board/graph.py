"""Graph helpers over a map's stands and paths: neighbours, shortest path, reachability.

Souls walk land paths; water paths need a boat (launched from a dock), tunnels need an underground
dweller. Every helper takes ``kinds``, the path kinds this soul may use (default: land only), so the
rules and the lighting ask the same question the same way.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.board.graph import reachable
    >>> board = load_map("kipuka-8")
    >>> sorted(reachable(board, "M1a", moves=1))
    ['M1a', 'M1b', 'T1']
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection

from kipukas_board.board.mapfile import BoardMap

LAND: frozenset[str] = frozenset({"land"})


def neighbours(board: BoardMap, stand_id: str, kinds: Collection[str] = LAND) -> list[str]:
    """Stands one path away from ``stand_id`` along paths of the given kinds, sorted."""
    _known(board, stand_id)
    return sorted({n for n, k in board.edges(stand_id) if k in kinds})


def reachable(board: BoardMap, stand_id: str, moves: int, kinds: Collection[str] = LAND) -> dict[str, int]:
    """Every stand within ``moves`` path steps of ``stand_id``, with its distance (start included at 0)."""
    _known(board, stand_id)
    if moves < 0:
        raise ValueError(f"moves must be 0 or more, got {moves}")
    dist = {stand_id: 0}
    todo = deque([stand_id])
    while todo:
        here = todo.popleft()
        if dist[here] == moves:
            continue
        for n, k in board.edges(here):
            if k in kinds and n not in dist:
                dist[n] = dist[here] + 1
                todo.append(n)
    return dist


def shortest_path(board: BoardMap, start: str, goal: str, kinds: Collection[str] = LAND) -> list[str] | None:
    """The stands on a shortest route from ``start`` to ``goal`` (both included), or None if none.

    Ties are broken by stand id so the answer is the same on every run.
    """
    _known(board, start)
    _known(board, goal)
    prev: dict[str, str | None] = {start: None}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        if here == goal:
            route = [goal]
            while prev[route[-1]] is not None:
                route.append(prev[route[-1]])  # type: ignore[arg-type]
            return route[::-1]
        for n in sorted(n for n, k in board.edges(here) if k in kinds):
            if n not in prev:
                prev[n] = here
                todo.append(n)
    return None


def distance(board: BoardMap, start: str, goal: str, kinds: Collection[str] = LAND) -> int | None:
    """Number of path steps on a shortest route, or None if ``goal`` cannot be reached."""
    route = shortest_path(board, start, goal, kinds)
    return None if route is None else len(route) - 1


def adjacent_territories(board: BoardMap, number: int, kinds: Collection[str] = LAND) -> list[int]:
    """Territories joined to territory ``number`` by at least one path of the given kinds."""
    out: set[int] = set()
    for s in board.stands_in(number):
        for n, k in board.edges(s.id):
            t = board.stands[n].territory
            if k in kinds and t != number:
                out.add(t)
    return sorted(out)


def _known(board: BoardMap, stand_id: str) -> None:
    if stand_id not in board.stands:
        raise KeyError(f"unknown stand {stand_id!r}")
