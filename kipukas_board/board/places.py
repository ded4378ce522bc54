"""Stands named by where they are, in the words players use, never by their ids.

A territory is named as the map names it, with the number the map shows after it ("Grey Peaks (4)",
:func:`territory_name`: the one wording of a territory for the rules' questions and problems, the
log and the captions). A territory's stand is "the territory stand of Ember Ridge"; a soul stand is
named by the territory it is in and the ones its paths lead to ("the stand in Ember Ridge towards
Fern Hollow"), or by its side of the territory when two stands there lead the same way. The page reads these names from
the map it is sent; the game report rewrites its sentences with :func:`in_words`.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> board = load_map("kipuka-8")
    >>> territory_name(board, 4)
    'Grey Peaks (4)'
    >>> territory_name({}, 9)                      # a map that leaves it unnamed
    'territory 9'
    >>> place_names(board)["T1"]
    'the territory stand of Ember Ridge'
    >>> in_words(board, "Exposed to the storm: stand M1a and stand T4.")
    'Exposed to the storm: the west stand in Ember Ridge and the territory stand of Grey Peaks.'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class MapOfStands(Protocol):
    """What naming a stand reads of a map (a :class:`~kipukas_board.board.mapfile.BoardMap` has it);
    a protocol rather than the class, since the map file's ``to_json`` names its stands through here."""

    territories: Mapping[int, Any]
    stands: Mapping[str, Any]
    paths: Sequence[Any]


def territory_name(board: Any, number: Any) -> str:
    """``number`` as players know it: the name the map gives it with the number the map shows in
    brackets ("Grey Peaks (4)"), or "territory 4" where the map leaves it unnamed (or has no such
    territory). ``board`` is a map (anything with ``territories``) or, as the log keeps them, a
    mapping of territory number → name."""
    territories = getattr(board, "territories", board)
    try:
        t = territories.get(number)
    except TypeError:  # an unhashable number from a request body names no territory
        t = None
    name = t if isinstance(t, str) else getattr(t, "name", "")
    return f"{name} ({number})" if name else f"territory {number}"


def territory_names(board: MapOfStands) -> dict[int, str]:
    """The names the map gives its territories, by number (the unnamed left out): what the log's
    sentences (:func:`kipukas_board.web.narrate.describe`) name territories with."""
    return {n: t.name for n, t in board.territories.items() if t.name}


def _home(board: MapOfStands, number: int) -> str:
    t = board.territories.get(number)
    return (t.name if t is not None else "") or f"territory {number}"


def _leads_to(board: MapOfStands, sid: str) -> list[str]:
    """The other territories ``sid``'s paths lead to, by name, in the map's order."""
    here = board.stands[sid].territory
    out: list[str] = []
    for p in board.paths:
        other = p.b if p.a == sid else p.a if p.b == sid else None
        o = board.stands.get(other) if other is not None else None
        if o is not None and o.territory != here and _home(board, o.territory) not in out:
            out.append(_home(board, o.territory))
    return out


def place_names(board: MapOfStands) -> dict[str, str]:
    """Every stand of ``board`` by where it is (see the module's docstring)."""
    names: dict[str, str] = {}
    for st in board.stands.values():
        home = _home(board, st.territory)
        if st.kind == "territory":
            names[st.id] = f"the territory stand of {home}"
            continue
        mates = [m for m in board.stands.values() if m.territory == st.territory and m.kind != "territory"]
        towards = _leads_to(board, st.id)
        clash = any(m.id != st.id and set(_leads_to(board, m.id)) & set(towards) for m in mates)
        if towards and not clash:
            names[st.id] = f"the stand in {home} towards {' and '.join(towards)}"
            continue
        if len(mates) < 2:
            names[st.id] = f"the soul stand in {home}"
            continue
        xs, ys = [m.x for m in mates], [m.y for m in mates]
        wide = max(xs) - min(xs) >= max(ys) - min(ys)
        lo, hi = (min(xs), max(xs)) if wide else (min(ys), max(ys))
        v = st.x if wide else st.y
        side = ("west" if wide else "north") if v == lo else ("east" if wide else "south") if v == hi else "middle"
        names[st.id] = f"the {side} stand in {home}"
    return names


def _stand_ids(board: MapOfStands) -> re.Pattern[str]:
    """Finds a stand id in a text ("stand M3a" and a bare "M3a" alike, group ``id``), and before it
    any territory name of the map that has a stand id for a word (group ``name``): a name is matched
    first where it starts, so the id inside it ("Route T4") is never taken for a stand."""
    ids = "|".join(re.escape(sid) for sid in sorted(board.stands, key=len, reverse=True))
    stand = rf"(?:\bstands? )?\b(?P<id>{ids})\b"
    named = sorted({t.name for t in board.territories.values() if t.name and re.search(rf"\b({ids})\b", t.name)},
                   key=len, reverse=True)
    if not named:
        return re.compile(stand)
    return re.compile(rf"(?P<name>(?<!\w)(?:{'|'.join(re.escape(n) for n in named)})(?!\w))|{stand}")


def in_words(board: MapOfStands, text: str) -> str:
    """``text`` with every stand id ("stand M3a" and a bare "M3a" alike) put by where it is; a
    territory's name is left as the map gives it, a stand id in it too ("Route T4 (1)")."""
    if not board.stands or not text:
        return text
    names = place_names(board)
    return _stand_ids(board).sub(lambda m: m.group(0) if m.group("id") is None else names[m.group("id")], text)


__all__ = ["in_words", "place_names", "territory_name", "territory_names"]
