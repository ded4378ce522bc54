"""The ``card`` event: a player showed a card to their seat's camera (or the simulation posted one).

The runtime (:mod:`kipukas_board.vision.desk`) parses the payload, looks the card up in the catalog
and writes what it found *into the event* before it is journaled, so the rules need no database and
replay gives the same state even after the catalog changes.

The table keeps the last card shown at each seat (``cards``, one entry per seat, sorted by seat),
which the page shows, whatever game is played; a game's rules then read the card their own way.

Example::

    >>> from kipukas_board.table.cards import card_event, check_card
    >>> e = card_event(1, "kpks.us/RrDC#0001?DmFz33", "RrDC", "0001", "DmFz33", {"title": "Explorer"})
    >>> check_card(e) is None
    True
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from kipukas_board.table.events import Effect, Event, EventError, register_event_type, required_field


class ShowsCards(Protocol):
    """A state that keeps the cards shown: the table's, or a game's own reading of the table."""

    @property
    def cards(self) -> tuple[dict[str, Any], ...]: ...
    @property
    def problems(self) -> tuple[str, ...]: ...
    @property
    def seq(self) -> int: ...
    def evolve(self, **changes: Any) -> Any: ...


_S = TypeVar("_S", bound=ShowsCards)


def card_event(seat: int, payload: str, code: str | None, copy: str | None = None, serial: str | None = None,
               card: dict[str, Any] | None = None, flags: list[str] | None = None,
               source: str = "camera", error: str | None = None) -> Event:
    """A card presented at ``seat``. ``card`` is the catalog record (None when it is unknown, and
    then ``error`` says why, e.g. "unknown card ABCD"); ``flags`` are things a player should check."""
    return {"type": "card", "seat": seat, "payload": payload, "code": code, "copy": copy, "serial": serial,
            "card": card, "flags": list(flags or []), "source": source, "error": error}


def _opt(e: Event, name: str, kind: type, what: str) -> None:
    if e.get(name) is not None and not isinstance(e[name], kind):
        raise EventError(f"'card' event field {name!r} must be {what} or null, got {e[name]!r}")


def check_card(e: Event) -> None:
    """Raise :class:`EventError` naming the field when a card event is malformed."""
    seat = required_field(e, "seat", int, "a seat number (1 or more)")
    if seat < 1:
        raise EventError(f"'card' event field 'seat' must be 1 or more, got {seat}")
    required_field(e, "payload", str, "the scanned text")
    for name in ("code", "copy", "serial", "error", "source"):
        _opt(e, name, str, "a string")
    _opt(e, "card", dict, "the catalog record")
    flags = e.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise EventError(f"'card' event field 'flags' must be a list of strings, got {flags!r}")


def record_card(state: _S, event: Event) -> tuple[_S, list[Effect]]:
    """Record the card shown at the event's seat (replacing that seat's previous one); its read error
    and flags become problems naming the seat."""
    card = event.get("card") or None
    entry = {
        "seat": event["seat"],
        "code": event.get("code"),
        "copy": event.get("copy"),
        "serial": event.get("serial"),
        "title": card.get("title") if card else None,
        "card": card,
        "known": card is not None,
        "error": event.get("error"),
        "flags": list(event.get("flags") or []),
        "seq": state.seq + 1,  # this showing: the card event's journal number when applied in journal order
    }
    cards = tuple(sorted((*(c for c in state.cards if c.get("seat") != event["seat"]), entry),
                         key=lambda c: c["seat"]))
    effects: list[Effect] = [{"type": "card", "seat": event["seat"], "code": entry["code"],
                              "title": entry["title"], "known": entry["known"], "flags": entry["flags"]}]
    problems = state.problems
    if entry["error"]:
        problems = (*problems, f"seat {event['seat']}: {entry['error']}")
    for flag in entry["flags"]:
        problems = (*problems, f"seat {event['seat']}: {flag}")
    return state.evolve(cards=cards, problems=problems), effects


register_event_type("card", check_card)

__all__ = ["card_event", "check_card", "record_card"]
