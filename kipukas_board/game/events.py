"""The events the core understands, as the plain JSON objects the journal stores.

Events are dicts with a ``"type"``; they come from adapters (a reed switch, a camera), from the page
(a player's answer or correction) and from the runtime (a map being loaded). :func:`check_event`
is the gate in front of the journal: only a well-formed event is ever written, so replay never
meets one it cannot read.

Example::

    >>> from kipukas_board.game.events import stand_event, check_event
    >>> check_event(stand_event("T1", True))
    {'type': 'stand', 'stand': 'T1', 'occupied': True, 'source': 'sensor'}
"""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]


class EventError(ValueError):
    """An event that is not well formed; the message names the field and what was expected."""


def stand_event(stand: str, occupied: bool, source: str = "sensor") -> Event:
    """A token arrived on (``occupied=True``) or left ``stand``."""
    return {"type": "stand", "stand": stand, "occupied": occupied, "source": source}


def map_event(name: str, toml_text: str) -> Event:
    """The board was (re)started on a map; the map's text goes into the journal so replay is exact."""
    return {"type": "map", "name": name, "toml": toml_text}


def _field(event: Event, name: str, kind: type | tuple[type, ...], what: str) -> Any:
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
    _CHECKERS[kind](event)
    return event


def _check_stand(e: Event) -> None:
    _field(e, "stand", str, "a stand id")
    _field(e, "occupied", bool, "true or false")


def _check_map(e: Event) -> None:
    _field(e, "name", str, "the map's name")
    _field(e, "toml", str, "the map file's text")


register_event_type("stand", _check_stand)
register_event_type("map", _check_map)
