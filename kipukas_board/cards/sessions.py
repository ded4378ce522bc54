"""Scan sessions: turn a stream of per-frame decodes into "card presented" moments.

A camera reads the same card in frame after frame while a player holds it up; the game wants to
hear about it once. :class:`ScanSessions` remembers, per seat, which cards are in view. A card
becomes *present* the first frame it is read and stays present while it keeps being read; once it
has not been read for ``gone_after_s`` seconds it is *gone*, and showing it again is a new
presentation. Frames where the decoder missed the card (camouflage, motion blur) inside that grace
period do not end a presentation.

The same serial (one physical card) presented at two seats is flagged on the second presentation:
that is a misread, a copied code or a card passed across the table, and a player should look.

The clock is injected so tests run without sleeping.

Example::

    >>> from kipukas_board.cards.payload import parse_payload
    >>> s = ScanSessions(gone_after_s=1.0)
    >>> p = parse_payload("kpks.us/RrDC#0001?DmFz33")
    >>> [e.payload.code for e in s.observe(1, [p], now=0.0)]
    ['RrDC']
    >>> s.observe(1, [p], now=0.5)       # still held: nothing new
    []
    >>> s.observe(1, [], now=2.0)        # taken away
    []
    >>> [e.payload.code for e in s.observe(1, [p], now=2.1)]   # shown again
    ['RrDC']
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from kipukas_board.cards.payload import CardPayload


@dataclass(frozen=True)
class Presentation:
    """One card shown at one seat; ``flags`` name anything a player should check."""

    seat: int
    payload: CardPayload
    flags: tuple[str, ...] = ()


@dataclass
class _Seen:
    payload: CardPayload
    last: float


@dataclass
class ScanSessions:
    """Per-seat memory of the cards in view. Thread-safe: one camera thread per seat may call it."""

    gone_after_s: float = 1.5
    _in_view: dict[int, dict[str, _Seen]] = field(default_factory=dict)
    _serial_seat: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def observe(self, seat: int, payloads: Iterable[CardPayload], now: float) -> list[Presentation]:
        """Feed what one frame at ``seat`` read; returns the cards that are newly presented."""
        new: list[Presentation] = []
        with self._lock:
            view = self._in_view.setdefault(seat, {})
            for key in [k for k, s in view.items() if now - s.last > self.gone_after_s]:
                del view[key]
            for p in payloads:
                seen = view.get(p.key)
                if seen is not None:
                    seen.last = now
                    continue
                view[p.key] = _Seen(p, now)
                flags: list[str] = []
                if p.serial:
                    other = self._serial_seat.get(p.serial)
                    if other is not None and other != seat:
                        flags.append(f"serial {p.serial} ({p.code} copy {p.copy}) was already shown at "
                                     f"seat {other}; one physical card cannot be at two seats")
                    self._serial_seat[p.serial] = seat
                new.append(Presentation(seat, p, tuple(flags)))
        return new

    def forget_serials(self, keep: dict[str, int] | None = None) -> None:
        """Start the serial-to-seat memory afresh (a new game: cards may have changed hands), or from
        ``keep`` (after a restart: the last card each seat showed, from the journal)."""
        with self._lock:
            self._serial_seat = dict(keep or {})

    def present(self, seat: int, payload: CardPayload, now: float) -> Presentation:
        """Present ``payload`` at ``seat`` now even if it is already in view (a simulated showing)."""
        with self._lock:
            self._in_view.get(seat, {}).pop(payload.key, None)
        return self.observe(seat, [payload], now)[0]

    def seen_since(self, seat: int, since: float) -> list[CardPayload]:
        """The cards in view at ``seat`` that a frame read at or after ``since`` (a card held up
        before a camera test began counts once it is read again)."""
        with self._lock:
            return [s.payload for s in self._in_view.get(seat, {}).values() if s.last >= since]

    def in_view(self, seat: int) -> list[CardPayload]:
        """The cards currently in view at ``seat``."""
        with self._lock:
            return [s.payload for s in self._in_view.get(seat, {}).values()]
