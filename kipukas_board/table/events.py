"""The events every game on the table shares, as the plain JSON objects the journal stores.

Events are dicts with a ``"type"``; they come from adapters (a reed switch, a camera), from the page
(a player's answer or correction) and from the runtime (a map being loaded). :func:`check_event`
is the gate in front of the journal: only a well-formed event is ever written, so replay never
meets one it cannot read. It checks *form* (fields, types, ranges); whether an event makes sense in
the current game is the game's rules' business, which turn it into a visible problem rather than an
exception.

The table knows the events of the table itself (``stand``, ``map``, ``card``: see
:mod:`kipukas_board.table.cards`) and how a game's players are written; each game mode registers its
own event types with :func:`register_event_type` when it is imported (:mod:`kipukas_board.modes`
imports them all).

Example::

    >>> from kipukas_board.table.events import EventError, check_event, stand_event
    >>> check_event(stand_event("T1", True))
    {'type': 'stand', 'stand': 'T1', 'occupied': True, 'source': 'sensor'}
    >>> try:
    ...     check_event({"type": "stand", "stand": "T1", "occupied": "yes"})
    ... except EventError as error:
    ...     print(error)
    'stand' event field 'occupied' must be true or false, got 'yes'
"""

from __future__ import annotations

import re
from typing import Any

from kipukas_board import strictjson
from kipukas_board.strictjson import is_int

Event = dict[str, Any]
#: What the rules tell the world an event did: semantic plain dicts (``{"type": "claimed", ...}``),
#: never phrase text.
Effect = dict[str, Any]

_COLOR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")


def refused(effects: list[Effect]) -> bool:
    """Did the rules refuse the event? Its only effects are problems (the state changed only by them)."""
    return bool(effects) and all(e.get("type") == "problem" for e in effects)


class EventError(ValueError):
    """An event that is not well formed; the message names the field and what was expected."""


class UnknownFieldError(EventError):
    """An object in the event has a key the event does not take (earlier versions took any, so a
    journal may hold such an event from before: replay drops those keys, :func:`without_unknown`).

    ``path`` leads from the event to that object (``("options",)``, ``("players", 1)``) and ``keys``
    are the keys it does not take.
    """

    def __init__(self, message: str, path: tuple[str | int, ...] = (), keys: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.path, self.keys = path, keys


#: Unknown-field objects one stored event may have dropped at most (options and four players).
MAX_DROPS = 8


def without_unknown(event: Event) -> tuple[Event, list[str]]:
    """``event`` as the checker takes it today, with the keys earlier versions let in dropped, and
    what was dropped (``"options.note"``); raises :class:`EventError` if it is wrong otherwise.

    A stored event is checked as every new one is; only keys no rule reads are dropped, so the rules
    apply it as they did, and the rest of the event is checked too instead of being taken on trust.

    Example (a Kipukas ``new_game``: importing the modes registers every game's events)::

        >>> import kipukas_board.modes
        >>> e = {"type": "new_game", "edition": "web", "play_style": "domination", "first_placer": 1,
        ...      "options": {"note": "x", "cycles": 2},
        ...      "players": [{"seat": 1, "name": "A", "color": "#ff0000"},
        ...                  {"seat": 2, "name": "B", "color": "#0000ff", "hat": 1}]}
        >>> fixed, dropped = without_unknown(e)
        >>> dropped, fixed["options"], "hat" in fixed["players"][1], "hat" in e["players"][1]
        (['players[1].hat', 'options.note'], {'cycles': 2}, False, True)
    """
    import copy

    dropped: list[str] = []
    for _ in range(MAX_DROPS):
        try:
            return check_event(event), dropped
        except UnknownFieldError as exc:
            if not exc.keys:
                raise
            if not dropped:
                event = copy.deepcopy(event)
            holder: Any = event
            for step in exc.path:
                holder = holder[step]
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in exc.path).lstrip(".")
            for key in exc.keys:
                holder.pop(key, None)
                dropped.append(f"{where}.{key}")
    return check_event(event), dropped


def stand_event(stand: str, occupied: bool, source: str = "sensor") -> Event:
    """A token arrived on (``occupied=True``) or left ``stand``."""
    return {"type": "stand", "stand": stand, "occupied": occupied, "source": source}


#: The longest shipped map's short name a ``map`` event's ``picked`` may carry.
MAX_PICKED = 64


def map_event(name: str, toml_text: str, path: str | None = None, picked: str | None = None) -> Event:
    """The board was (re)started on a map, or one was picked on the page; the map's text goes into the
    journal so replay is exact (``path``: where the file was, for messages that tell a player which
    ``--map`` to give; ``picked``: the shipped map's short name when it was picked on the page, so a
    start finds the pick in the journal even if the board stopped before it was kept elsewhere)."""
    return {"type": "map", "name": name, "toml": toml_text, **({"path": path} if path else {}),
            **({"picked": picked} if picked else {})}


def required_field(event: Event, name: str, kind: type | tuple[type, ...], what: str) -> Any:
    """``event[name]``, which must be there and of ``kind`` (a bool is no int); raises
    :class:`EventError` naming the field and ``what`` was expected."""
    if name not in event:
        raise EventError(f"{event.get('type')!r} event needs field {name!r} ({what})")
    value = event[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise EventError(f"{event.get('type')!r} event field {name!r} must be {what}, got {value!r}")
    return value


#: Checkers by event type. Other layers add theirs with :func:`register_event_type`.
_CHECKERS: dict[str, Any] = {}


def register_event_type(name: str, checker: Any) -> None:
    """Declare an event type; ``checker(event)`` raises :class:`EventError` when it is malformed."""
    _CHECKERS[name] = checker


def check_event(event: Any) -> Event:
    """Return ``event`` if it is well formed, else raise :class:`EventError` saying what is wrong."""
    if not isinstance(event, dict):
        raise EventError(f"an event is a JSON object, got {type(event).__name__}")
    kind = event.get("type")
    if kind not in _CHECKERS:
        raise EventError(f"unknown event type {kind!r}; expected one of {', '.join(sorted(_CHECKERS))}")
    bad = strictjson.problem(event)  # journaled, then sent to every page: it must be plain JSON
    if bad:
        raise EventError(f"{kind!r} event field {bad}")
    _CHECKERS[kind](event)
    return event


def _check_stand(e: Event) -> None:
    required_field(e, "stand", str, "a stand id")
    required_field(e, "occupied", bool, "true or false")


def _check_map(e: Event) -> None:
    required_field(e, "name", str, "the map's name")
    required_field(e, "toml", str, "the map file's text")
    if "picked" in e:
        picked = required_field(e, "picked", str, "the short name of the map picked on the page")
        if not 0 < len(picked) <= MAX_PICKED:
            raise EventError(f"'map' event field 'picked' must be a map's short name of 1 to {MAX_PICKED} "
                             f"characters, got {picked!r:.80}")


#: What a player object of a new game holds.
PLAYER_FIELDS = frozenset({"seat", "name", "color", "affinity"})


def check_players(players: Any, where: str = "'new_game' event field 'players'") -> None:
    """2 to 4 players, each ``{"seat": 1-8, "name": str, "color": "#rrggbb", "affinity": str?}``."""
    if not isinstance(players, list) or not 2 <= len(players) <= 4:
        raise EventError(f"{where} must be a list of 2 to 4 players, got {players!r}")
    seats = set()
    for i, p in enumerate(players):
        w = f"{where}[{i}]"
        if not isinstance(p, dict):
            raise EventError(f"{w} must be an object with seat, name and color, got {p!r}")
        extra = sorted(set(p) - PLAYER_FIELDS)
        if extra:
            raise UnknownFieldError(f"{w} has unknown field(s) {', '.join(map(str, extra))[:120]}; "
                                    f"expected {', '.join(sorted(PLAYER_FIELDS))}",
                                    ("players", i), tuple(extra))
        seat = p.get("seat")
        if not is_int(seat) or not 1 <= seat <= 8:
            raise EventError(f"{w}.seat must be a seat number 1 to 8, got {seat!r}")
        if seat in seats:
            raise EventError(f"{w}.seat {seat} is given twice; every player needs their own seat")
        seats.add(seat)
        name = p.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 40:
            raise EventError(f"{w}.name must be a non-empty name of at most 40 characters, got {name!r}")
        color = p.get("color")
        if not isinstance(color, str) or not _COLOR_RE.match(color):
            raise EventError(f"{w}.color must be a colour like \"#1e90ff\", got {color!r}")
        aff = p.get("affinity", "")
        if not isinstance(aff, str) or len(aff) > 40:
            raise EventError(f"{w}.affinity must be text of at most 40 characters, got {aff!r}")


register_event_type("stand", _check_stand)
register_event_type("map", _check_map)
