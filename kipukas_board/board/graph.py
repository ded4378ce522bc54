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

from kipukas_board.board.mapfile import PATH_KINDS, BoardMap

LAND: frozenset[str] = frozenset({"land"})
#: Every path kind: the reed switches cannot tell a boat or a tunneller from a walker, so the rules
#: measure a token's move over any path.
ANY_PATH: frozenset[str] = frozenset(PATH_KINDS)

_Table = dict[str, dict[str, int]]
_DISTANCES: dict[tuple[int, frozenset[str]], tuple[BoardMap, _Table]] = {}


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
    """Number of path steps on a shortest route, or None if ``goal`` cannot be reached.

    The rules ask this for every token lifted and put down, so it is looked up in a table of every
    pair, computed once per map and set of kinds (a map does not change once loaded).

    Example::

        >>> from kipukas_board.board.mapfile import load_map
        >>> board = load_map("kipuka-8")
        >>> distance(board, "M1a", "M1b"), distance(board, "M1a", "M1a")
        (1, 0)
    """
    _known(board, start)
    _known(board, goal)
    return _distances(board, frozenset(kinds))[start].get(goal)


def _distances(board: BoardMap, kinds: frozenset[str]) -> _Table:
    key = (id(board), kinds)
    cached = _DISTANCES.get(key)
    if cached is not None and cached[0] is board:
        return cached[1]
    table: _Table = {}
    for start in board.stands:
        d = {start: 0}
        todo = deque([start])
        while todo:
            here = todo.popleft()
            for n, k in board.edges(here):
                if k in kinds and n not in d:
                    d[n] = d[here] + 1
                    todo.append(n)
        table[start] = d
    if len(_DISTANCES) > 16:
        _DISTANCES.clear()
    _DISTANCES[key] = (board, table)
    return table


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
