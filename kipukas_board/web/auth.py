"""The admin PIN that guards every change to the game or the calibration.

Only a salted scrypt hash is stored (``admin-pin.json`` in the data directory). The PIN comes from
``--admin-pin`` or ``KIPUKAS_ADMIN_PIN``; on a first run with neither, a random 6-digit PIN is made
and printed once on the console.

A PIN given by ``--admin-pin`` or ``KIPUKAS_ADMIN_PIN`` is *managed*: it is set again on every start,
so the page refuses to change it (a change would silently revert at the next restart); the PIN is then
changed where it is configured (the service's environment). Without one, the page's change sticks.

Each check costs a scrypt hash (16 MiB of memory, tens of milliseconds on a Pi), so at most
:data:`MAX_CONCURRENT_CHECKS` run at once, and a client's attempt is counted *before* its hash is
computed: parallel guesses cannot slip past the wrong-PIN limit while earlier ones are still hashing.

A PIN that verified is remembered (as an HMAC under a key made at start, never in the clear or on
disk) and later requests carrying it pass at once, without a hash and without being counted: the
calibration page sends the PIN with every preview frame, several times a second per seat, and those
requests, in flight together, would otherwise count as wrong until hashed and lock the page out with
the right PIN. Only the right PIN is ever remembered, so guesses still take the slow, counted path;
a locked-out client is refused before the memory is consulted; and a new PIN replaces the memory.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_N, _R, _P = 2**14, 8, 1
#: scrypt checks allowed at once (each takes 128·r·n bytes = 16 MiB); the rest wait their turn.
MAX_CONCURRENT_CHECKS = 2
#: How long a check waits for its turn before the request is answered 503 (busy).
CHECK_WAIT_S = 10.0


def _hash(pin: str, salt: bytes) -> bytes:
    return hashlib.scrypt(pin.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)


class PinStore:
    FILENAME = "admin-pin.json"

    def __init__(self, data_dir: str | Path) -> None:
        self.path = Path(data_dir) / self.FILENAME
        self._salt: bytes | None = None
        self._hash: bytes | None = None
        #: Slows down guessing (see :class:`WrongPinLimiter`); :meth:`verify` consults it.
        self.limiter = WrongPinLimiter()
        #: True when the PIN comes from --admin-pin / KIPUKAS_ADMIN_PIN (set on every start): the page
        #: may not change it.
        self.managed = False
        self._checks = threading.BoundedSemaphore(MAX_CONCURRENT_CHECKS)
        #: Guards the stored hash and the remembered PIN together, so a check that started before a
        #: change of PIN cannot remember the old one after it.
        self._lock = threading.Lock()
        self._memo_key = secrets.token_bytes(32)
        self._memo: bytes | None = None  # HMAC of the PIN that last verified (see the module docs)
        if self.path.exists():
            d = json.loads(self.path.read_text())
            self._salt = bytes.fromhex(d["salt"])
            self._hash = bytes.fromhex(d["scrypt"])

    @property
    def is_set(self) -> bool:
        return self._hash is not None

    @property
    def fingerprint(self) -> str | None:
        """A short id of the stored PIN hash (None: no PIN): it changes whenever the PIN does, so
        device sessions signed with it (web/sessions.py) end with a change of PIN."""
        with self._lock:
            digest = self._hash
        return hashlib.sha256(b"fingerprint" + digest).hexdigest()[:24] if digest else None

    def set(self, pin: str) -> None:
        """Store ``pin`` (4 to 12 digits), replacing any earlier one; written atomically."""
        if not (pin.isdigit() and 4 <= len(pin) <= 12):
            raise ValueError("the admin PIN must be 4 to 12 digits")
        matched = self._check(pin)
        if matched is not None:  # already the PIN: nothing to write, but it is known right now
            self._remember(pin, matched)
            return
        salt = secrets.token_bytes(16)
        digest = _hash(pin, salt)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"salt": salt.hex(), "scrypt": digest.hex(), "n": _N}))
        os.replace(tmp, self.path)
        with self._lock:  # the old PIN is forgotten with its hash: it must not pass from memory
            self._salt, self._hash = salt, digest
            self._memo = self._tag(pin)

    def make_random(self) -> str:
        pin = f"{secrets.randbelow(10**6):06d}"
        self.set(pin)
        return pin

    def check(self, pin: str | None) -> bool:
        """Is ``pin`` the PIN? Raises :class:`PinBusy` if no check slot frees up in time."""
        return self._check(pin) is not None

    def _check(self, pin: str | None) -> bytes | None:
        """The stored hash ``pin`` matched (None: it did not), by scrypt; raises :class:`PinBusy`."""
        with self._lock:
            salt, digest = self._salt, self._hash
        if not pin or digest is None or salt is None:
            return None
        if not self._checks.acquire(timeout=CHECK_WAIT_S):
            raise PinBusy("the board is busy checking other PINs; try again in a few seconds")
        try:
            return digest if hmac.compare_digest(_hash(pin, salt), digest) else None
        finally:
            self._checks.release()

    def _tag(self, pin: str) -> bytes:
        return hmac.new(self._memo_key, pin.encode(), hashlib.sha256).digest()

    def _remember(self, pin: str, digest: bytes | None) -> None:
        """Remember ``pin``, which matched ``digest``, unless the PIN was changed meanwhile."""
        with self._lock:
            if digest is not None and digest is self._hash:  # the very hash it matched, not a newer one
                self._memo = self._tag(pin)

    def _remembered(self, pin: str) -> bool:
        with self._lock:
            memo = self._memo
        return memo is not None and hmac.compare_digest(self._tag(pin), memo)

    def verify(self, pin: str | None, client: str) -> PinVerdict:
        """Check ``pin`` sent by ``client`` (its address), counting wrong ones against the client.

        A client locked out by too many wrong PINs gets 429 *without* its PIN being checked (not even
        against the remembered one), so guessing during the wait gains nothing. The remembered PIN
        passes without a hash or a count; any other goes the counted, hashed way.
        """
        wait = self.limiter.retry_after(client)
        if wait > 0 or not pin:
            return self._refusal(wait)
        if self._remembered(pin):
            self.limiter.succeeded(client)
            return PinVerdict(True)
        wait, before = self.limiter.reserve(client)  # counted as wrong until the hash says otherwise
        if wait > 0:
            return self._refusal(wait)
        try:
            matched = self._check(pin)
        except PinBusy as exc:
            self.limiter.cancel(client, before)
            return PinVerdict(False, 503, str(exc), 5.0)
        if matched is None:
            return PinVerdict(False, 403, "wrong admin PIN", self.limiter.retry_after(client))
        self._remember(pin, matched)
        self.limiter.succeeded(client)
        return PinVerdict(True)

    @staticmethod
    def _refusal(wait: float) -> PinVerdict:
        if wait > 0:
            return PinVerdict(False, 429, f"too many wrong PINs; try again in {wait:.0f} s", wait)
        return PinVerdict(False, 401, "this action needs the admin PIN in the X-Admin-Pin header")


class PinBusy(RuntimeError):
    """Every scrypt check slot stayed taken for :data:`CHECK_WAIT_S`."""


# -- wrong-PIN rate limiting -----------------------------------------------------------------------
@dataclass(frozen=True)
class PinVerdict:
    """What :meth:`PinStore.verify` decided: ``status`` is the HTTP status to answer when not ``ok``."""

    ok: bool
    status: int = 200
    message: str = ""
    retry_after: float = 0.0


class WrongPinLimiter:
    """Slows down guessing: after ``free`` wrong PINs from one client, each try must wait.

    The wait doubles with every further wrong PIN (``base_s``, 2·``base_s``, ... up to ``max_s``);
    a right PIN clears the client's record. A 6-digit PIN then takes years to guess over the table's
    network, while a player who mistypes twice notices nothing.

    Example::

        >>> lim = WrongPinLimiter(free=1, base_s=10, clock=lambda: 0.0)
        >>> lim.failed("phone"); lim.retry_after("phone")
        0.0
        >>> lim.failed("phone"); lim.retry_after("phone")
        10.0
    """

    def __init__(self, free: int = 5, base_s: float = 1.0, max_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic, max_clients: int = 4096) -> None:
        self.free, self.base_s, self.max_s, self.max_clients = free, base_s, max_s, max_clients
        self._clock = clock
        self._lock = threading.Lock()
        self._wrong: dict[str, tuple[int, float]] = {}  # client -> (wrong count, locked until)

    def retry_after(self, client: str) -> float:
        """Seconds ``client`` must wait before its next try (0.0: it may try now)."""
        with self._lock:
            _, until = self._wrong.get(client, (0, 0.0))
        return max(0.0, until - self._clock())

    def failed(self, client: str) -> None:
        with self._lock:
            self._count_wrong(client)

    def reserve(self, client: str) -> tuple[float, tuple[int, float]]:
        """Check and count one attempt in a single step. Returns ``(wait, before)``: ``wait`` is 0.0
        with the attempt counted as wrong (until :meth:`succeeded`), or the seconds to wait with
        nothing counted; ``before`` is the client's (wrong count, locked until) as it was, which
        :meth:`cancel` puts back.

        Checking (:meth:`retry_after`) and counting (:meth:`failed`) apart would let many requests
        sent at once all pass the check before the first is counted.
        """
        with self._lock:
            before = self._wrong.get(client, (0, 0.0))
            wait = before[1] - self._clock()
            if wait > 0:
                return wait, before
            self._count_wrong(client)
            return 0.0, before

    def cancel(self, client: str, before: tuple[int, float]) -> None:
        """Take back one :meth:`reserve` whose PIN was never checked (the board was busy).

        The record goes back to exactly ``before`` (what :meth:`reserve` returned): working out a
        new lockout from the count would start a fresh wait where the last one had long expired. If
        other attempts were counted meanwhile, only this one is taken off the count and their
        lockout stands; if a right PIN cleared the record meanwhile, it stays clear.
        """
        with self._lock:
            count, until = self._wrong.get(client, (0, 0.0))
            if count == 0:
                return
            if count == before[0] + 1:  # nothing else counted since this reserve
                if before[0] == 0:
                    self._wrong.pop(client, None)
                else:
                    self._wrong[client] = before
            else:
                self._wrong[client] = (count - 1, until)

    def _wait(self, count: int) -> float:
        return 0.0 if count <= self.free else min(self.max_s, self.base_s * 2 ** (count - self.free - 1))

    def _count_wrong(self, client: str) -> None:
        if len(self._wrong) >= self.max_clients and client not in self._wrong:
            # Forget the oldest records rather than grow without bound.
            for key in list(self._wrong)[: self.max_clients // 2]:
                del self._wrong[key]
        count, _ = self._wrong.get(client, (0, 0.0))
        count += 1
        self._wrong[client] = (count, self._clock() + self._wait(count))

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._wrong.pop(client, None)



# -- cross-site request forgery -------------------------------------------------------------------
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: Content types a page on another site can send with a plain HTML form (no CORS preflight).
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain")


class CsrfGuard:
    """Refuses changes that another web site's page could make a player's browser send.

    The page sends its changes as JSON with custom headers (``X-Admin-Pin``, ``X-CSRF-Token``),
    which a foreign page cannot do without a CORS preflight the board never grants. What remains
    is a plain HTML form posted from elsewhere, so a change is refused when:

    - the browser says it comes from another site (``Origin`` not this host, or
      ``Sec-Fetch-Site: cross-site``);
    - it is form-encoded (or ``text/plain``) and lacks this board's token in ``csrf_token``;
    - it carries an ``X-CSRF-Token`` that is not this board's token.

    Scripts and tests that send JSON without browser headers pass, as they should.

    Example::

        >>> g = CsrfGuard("t0ken")
        >>> g.problem("POST", {"Origin": "http://evil.example"}, "board.local:8080", None)
        'cross-site request refused (Origin http://evil.example is not this board)'
        >>> g.problem("POST", {"Content-Type": "application/json"}, "board.local:8080", None) is None
        True
    """

    def __init__(self, token: str | None = None) -> None:
        self.token = token or secrets.token_urlsafe(24)

    def _ok(self, given: str | None) -> bool:
        return bool(given) and hmac.compare_digest(str(given).encode(), self.token.encode())

    def problem(self, method: str, headers: Any, host: str, form_token: str | None) -> str | None:
        """Why this request must be refused, or None when it may go on."""
        if method.upper() in SAFE_METHODS:
            return None
        origin = headers.get("Origin")
        if origin and origin != "null":
            origin_host = origin.split("://", 1)[-1].rstrip("/")
            if origin_host.lower() != host.lower():
                return f"cross-site request refused (Origin {origin} is not this board)"
        elif origin == "null":
            return "cross-site request refused (Origin null)"
        if headers.get("Sec-Fetch-Site", "").lower() == "cross-site":
            return "cross-site request refused (Sec-Fetch-Site: cross-site)"
        header_token = headers.get("X-CSRF-Token")
        if header_token is not None and not self._ok(header_token):
            return "stale or wrong X-CSRF-Token; reload the page"
        ctype = headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if ctype in FORM_TYPES and not self._ok(form_token) and not self._ok(header_token):
            return f"a {ctype} form needs this board's csrf_token field; reload the page"
        return None
