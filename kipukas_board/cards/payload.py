"""What a Kipukas card's QR code says, and refusing everything else.

A QR payload is *data*: it is matched as a whole against the forms printed on real cards and is
never fetched, opened or followed as a link. Three forms are accepted (docs/reference/file-formats.md, "The Kipukas card
QR codes"):

* ``kpks.us/HMPU#0004?BFxDCJ``: card design ``HMPU``, copy ``0004``, serial ``BFxDCJ``
  (a scheme ``https://`` or ``http://`` and a ``www.`` in front are allowed);
* ``https://www.kpks.us/frlU``: card design only;
* ``https://www.kipukas.cards/allele_sect_explorer/``: the official site's page for a design,
  named by its slug (the catalog turns the slug into a code).

Anything else raises :class:`PayloadError` whose message says what was wrong and what was expected,
and :class:`PayloadCounter` keeps a tally of refusals by reason for the page and the benchmarks.

Example::

    >>> from kipukas_board.cards.payload import parse_payload
    >>> p = parse_payload("kpks.us/HMPU#0004?BFxDCJ")
    >>> (p.code, p.copy, p.serial)
    ('HMPU', '0004', 'BFxDCJ')
    >>> parse_payload("https://evil.example/HMPU")
    Traceback (most recent call last):
    ...
    kipukas_board.cards.payload.PayloadError: not a Kipukas card: host 'evil.example' is not kpks.us or kipukas.cards
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

#: The longest payload considered; real ones are under 60 characters.
MAX_PAYLOAD = 200

CODE_RE = re.compile(r"[A-Za-z0-9_-]{4}")
_SCHEME = r"(?:(?P<scheme>https?)://)?"
_SHORT = re.compile(
    _SCHEME + r"(?P<host>(?:www\.)?kpks\.us)/(?P<code>[A-Za-z0-9_-]{4})"
    r"(?:#(?P<copy>[0-9]{1,6})\?(?P<serial>[A-Za-z0-9]{4,16})|/?)",
    re.IGNORECASE,
)
_SITE = re.compile(
    _SCHEME + r"(?P<host>(?:www\.)?kipukas\.cards)/(?P<slug>[a-z0-9][a-z0-9_-]{0,63})/?",
    re.IGNORECASE,
)
_HOST = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?([^/?#]*)", re.IGNORECASE)


class PayloadError(ValueError):
    """A payload that is not a Kipukas card; ``reason`` is a short key for counting."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class CardPayload:
    """A parsed card payload. ``code`` is None only for the slug form until the catalog resolves it."""

    text: str
    code: str | None
    copy: str | None = None
    serial: str | None = None
    slug: str | None = None

    @property
    def key(self) -> str:
        """What names one physical card if it can (serial), else the design (code or slug)."""
        if self.serial:
            return f"{self.code}#{self.copy}?{self.serial}"
        return self.code or f"slug:{self.slug}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def parse_payload(text: Any) -> CardPayload:
    """Parse a scanned payload, or raise :class:`PayloadError` saying why it is not a Kipukas card."""
    if not isinstance(text, str):
        raise PayloadError(f"a payload is text, got {type(text).__name__}", "not text")
    if not text:
        raise PayloadError("empty payload", "empty")
    if len(text) > MAX_PAYLOAD:
        raise PayloadError(f"payload of {len(text)} characters is too long for a Kipukas card "
                           f"(at most {MAX_PAYLOAD})", "too long")
    if not text.isascii() or not text.isprintable() or any(ch.isspace() for ch in text):
        raise PayloadError(f"not a Kipukas card: payload {text[:60]!r} holds spaces, control or "
                           f"non-ASCII characters", "bad characters")
    m = _SHORT.fullmatch(text)
    if m:
        return CardPayload(text=text, code=m["code"], copy=m["copy"], serial=m["serial"])
    m = _SITE.fullmatch(text)
    if m:
        return CardPayload(text=text, code=None, slug=m["slug"].lower())
    host = (_HOST.match(text) or [None, ""])[1].lower()
    if host not in ("kpks.us", "www.kpks.us", "kipukas.cards", "www.kipukas.cards"):
        raise PayloadError(f"not a Kipukas card: host {host!r} is not kpks.us or kipukas.cards", "other host")
    raise PayloadError(
        f"not a Kipukas card: {text[:60]!r} does not match kpks.us/CODE, kpks.us/CODE#COPY?SERIAL "
        f"(CODE 4 letters, digits, - or _; COPY digits; SERIAL letters and digits) or "
        f"kipukas.cards/SLUG/", "bad form")


class PayloadCounter:
    """Counts accepted and refused payloads by reason (thread-safe), for the page and the benches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.accepted = 0
        self.refused: Counter[str] = Counter()

    def check(self, text: Any) -> CardPayload | None:
        """The parsed payload, or None after counting why it was refused."""
        try:
            p = parse_payload(text)
        except PayloadError as exc:
            with self._lock:
                self.refused[exc.reason] += 1
            return None
        with self._lock:
            self.accepted += 1
        return p

    def count_accepted(self) -> None:
        """Count a payload accepted by another reader (a game mode's sticker)."""
        with self._lock:
            self.accepted += 1

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            return {"accepted": self.accepted, "refused": dict(self.refused)}
