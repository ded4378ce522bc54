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
The hashes run on :data:`MAX_CONCURRENT_CHECKS` threads of their own (:func:`hashed`), never on the
request's: the C library keeps the 16 MiB a hash took in the memory pool of the thread that took it,
so guesses answered by many of the web server's threads left the board 16 MiB larger for each
(measured: 313 to 533 MB after 32 wrong PINs sent in parallel; 49 MB against 277 MB for 32 hashes
from 16 threads with and without the two threads).

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
import logging
import re
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kipukas_board.textfile import write_text_atomic

log = logging.getLogger(__name__)

_N, _R, _P = 2**14, 8, 1
#: A PIN is 4 to 12 ASCII digits: what a phone's number pad types and any HTTP header can carry
#: (``str.isdigit`` would also pass Arabic-Indic and other digits that no header can send).
PIN_FORMAT = re.compile(r"[0-9]{4,12}")
#: New random PINs have this many digits; a shorter one is warned about beyond loopback.
RANDOM_PIN_DIGITS = 6
#: The PIN file is a few hundred bytes; anything larger is not one.
MAX_PIN_FILE = 4096
#: scrypt checks allowed at once (each takes 128·r·n bytes = 16 MiB); the rest wait their turn.
MAX_CONCURRENT_CHECKS = 2
#: How long a check waits for its turn before the request is answered 503 (busy).
CHECK_WAIT_S = 10.0


def _hash(pin: str, salt: bytes) -> bytes:
    return hashlib.scrypt(pin.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)


#: The threads every PIN hash of the process runs on (see the module docs: why not the request's).
_HASHERS = ThreadPoolExecutor(max_workers=MAX_CONCURRENT_CHECKS, thread_name_prefix="pin-hash")


def hashed(pin: str, salt: bytes) -> bytes:
    """``pin``'s scrypt hash under ``salt``, computed on one of the PIN-hash threads (the caller waits).

    Example::

        >>> len(hashed("024680", b"salt" * 4))
        32
    """
    return _HASHERS.submit(lambda: _hash(pin, salt)).result()


def check_pin_format(pin: object) -> str:
    """``pin`` if it is 4 to 12 ASCII digits; otherwise ValueError saying what a PIN must be."""
    if not isinstance(pin, str) or not PIN_FORMAT.fullmatch(pin):
        raise ValueError("the admin PIN must be 4 to 12 digits, ASCII 0-9 only")
    return pin


class PinFileError(ValueError):
    """The stored PIN file cannot be read or written; the message names the file."""


class PinStore:
    FILENAME = "admin-pin.json"

    def __init__(self, data_dir: str | Path) -> None:
        self.path = Path(data_dir) / self.FILENAME
        self._salt: bytes | None = None
        self._hash: bytes | None = None
        #: Digits of the stored PIN (None when unknown), for the short-PIN warning.
        self.length: int | None = None
        #: Slows down guessing per client and board-wide, remembered across restarts (see
        #: :class:`WrongPinLimiter`); :meth:`verify` consults it.
        self.limiter = WrongPinLimiter(path=Path(data_dir) / WrongPinLimiter.FILENAME)
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
            self._load()

    def _load(self) -> None:
        try:
            with open(self.path, "rb") as f:
                raw = f.read(MAX_PIN_FILE + 1)
            if len(raw) > MAX_PIN_FILE:
                raise ValueError(f"larger than {MAX_PIN_FILE} bytes")
            d = json.loads(raw.decode("utf-8"))
            self._salt = bytes.fromhex(d["salt"])
            self._hash = bytes.fromhex(d["scrypt"])
            length = d.get("digits")
            self.length = length if isinstance(length, int) else None
        except OSError as exc:
            raise PinFileError(f"{self.path}: the admin PIN file cannot be read: {exc.strerror or exc}") from None
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise PinFileError(f"{self.path}: the admin PIN file is damaged ({exc}); delete it and set a new PIN "
                               f"(--admin-pin, or start without one for a random PIN)") from None

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
        """Store ``pin`` (4 to 12 ASCII digits), replacing any earlier one; written atomically.

        Raises ValueError for a PIN of another form, :class:`PinFileError` when the file cannot be
        written (the old PIN then stays, and no half-written file is left behind).
        """
        check_pin_format(pin)
        matched = self._check(pin)
        if matched is not None:  # already the PIN: nothing to write, but it is known right now
            self._remember(pin, matched)
            self.length = len(pin)
            return
        salt = secrets.token_bytes(16)
        digest = hashed(pin, salt)
        try:
            write_text_atomic(self.path, json.dumps({"salt": salt.hex(), "scrypt": digest.hex(), "n": _N,
                                                     "digits": len(pin)}))
        except OSError as exc:
            raise PinFileError(f"{self.path}: the new PIN could not be saved ({exc.strerror or exc}); "
                               f"the old PIN still holds") from None
        with self._lock:  # the old PIN is forgotten with its hash: it must not pass from memory
            self._salt, self._hash = salt, digest
            self._memo = self._tag(pin)
        self.length = len(pin)

    def make_random(self) -> str:
        pin = f"{secrets.randbelow(10**RANDOM_PIN_DIGITS):0{RANDOM_PIN_DIGITS}d}"
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
            return digest if hmac.compare_digest(hashed(pin, salt), digest) else None
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

    def known(self, pin: str | None) -> bool:
        """Is ``pin`` the PIN that last verified (or was set)? No hash, nothing counted: for the server
        to decide whether to keep a large body before its request reaches the PIN check, which then
        counts a wrong PIN as always (so a guess learns nothing here)."""
        return bool(pin) and self._remembered(str(pin))

    def verify(self, pin: str | None, client: str, present: bool = False) -> PinVerdict:
        """Check ``pin`` sent by ``client`` (its address), counting wrong ones against the client.

        A client locked out by too many wrong PINs gets 429 *without* its PIN being checked (not even
        against the remembered one), so guessing during the wait gains nothing. The remembered PIN
        passes without a hash or a count; any other goes the counted, hashed way.

        Once wrong PINs board-wide reach the limit, *no* client may try (a guest can take new
        addresses at will), unless ``present``: its holder showed presence at the table
        (:mod:`kipukas_board.web.presence`), which the caller checked; the caller then names the
        proof as ``client`` and limits its tries. So the admin is never locked out for long by
        someone else, and guessing from the network stops at the limit.
        """
        wait = self.limiter.retry_after(client)
        if wait > 0 or not pin:
            return self._refusal(wait)
        board_wait = self.limiter.board_retry_after()
        if board_wait > 0 and not present:
            return PinVerdict(False, 429, f"too many wrong PINs on this board: PIN entry from the network is "
                                          f"closed for {board_wait:.0f} s, or until someone at the table shows "
                                          f"presence (POST /api/pin/presence names a stand to put a token on "
                                          f"and lift again)", board_wait)
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
    """Slows down guessing: after ``free`` wrong PINs from one client, each try must wait; and no
    more than ``board_limit`` wrong PINs from all clients together in any ``board_window_s``.

    Per client the wait doubles with every further wrong PIN (``base_s``, 2·``base_s``, ... up to
    ``max_s``); a right PIN clears the client's record. Board-wide, guesses spread over many
    addresses (one phone can take many on a LAN) meet a wall too: with the defaults, once 30 wrong
    PINs came in 10 minutes, no address may try until the oldest of them is 10 minutes old, except a
    phone whose holder showed presence at the table (:meth:`PinStore.verify`). So guessing gets at
    most 4,320 tries a day whatever the addresses, and a 6-digit PIN takes months, while a player
    who mistypes twice notices nothing. A right PIN does not clear the board-wide count.

    With ``path`` the records are kept in that file (wall-clock times, written on every change), so a
    restart does not clear them; a lockout read back is never longer than ``max_s`` (or the window)
    from now, in case the clock went back.

    Example::

        >>> lim = WrongPinLimiter(free=1, base_s=10, clock=lambda: 0.0)
        >>> lim.failed("phone"); lim.retry_after("phone")
        0.0
        >>> lim.failed("phone"); lim.retry_after("phone")
        10.0
    """

    FILENAME = "pin-limits.json"
    #: The largest limits file read back.
    MAX_FILE = 512 * 1024

    def __init__(self, free: int = 5, base_s: float = 1.0, max_s: float = 300.0,
                 clock: Callable[[], float] = time.time, max_clients: int = 1024,
                 board_limit: int = 30, board_window_s: float = 600.0, path: Path | None = None) -> None:
        self.free, self.base_s, self.max_s, self.max_clients = free, base_s, max_s, max_clients
        self.board_limit, self.board_window_s = board_limit, board_window_s
        self.path = path
        self._clock = clock
        self._lock = threading.Lock()
        self._wrong: dict[str, tuple[int, float]] = {}  # client -> (wrong count, locked until)
        self._board: list[float] = []  # times of the board's recent wrong PINs, oldest first
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            with open(path, "rb") as f:
                raw = f.read(self.MAX_FILE + 1)
        except FileNotFoundError:
            return
        except OSError as exc:
            log.warning("%s: wrong-PIN records not read (%s); starting without them", path, exc.strerror)
            return
        try:
            if len(raw) > self.MAX_FILE:
                raise ValueError(f"larger than {self.MAX_FILE} bytes")
            d = json.loads(raw.decode("utf-8"))
            now = self._clock()
            for client, (count, until) in list(d.get("clients", {}).items())[-self.max_clients:]:
                self._wrong[str(client)] = (int(count), min(float(until), now + self.max_s))
            self._board = sorted(min(float(t), now) for t in d.get("board", [])[-self.board_limit:])
        except (ValueError, TypeError, AttributeError, RecursionError) as exc:
            # Refuse nothing on a damaged file, but say so: a reset counter is a weaker lock.
            log.error("%s: wrong-PIN records damaged (%s); starting without them", path, exc)
            self._wrong, self._board = {}, []

    def _save(self) -> None:
        """Write the records (called with the lock held); a failure is logged, never raised."""
        if self.path is None:
            return
        try:
            write_text_atomic(self.path, json.dumps({"clients": {c: list(v) for c, v in self._wrong.items()},
                                                     "board": self._board}))
        except OSError as exc:
            log.error("%s: wrong-PIN records not saved (%s); they hold until the board restarts",
                      self.path, exc.strerror)

    def wrong_count(self, client: str) -> int:
        with self._lock:
            return self._wrong.get(client, (0, 0.0))[0]

    def board_retry_after(self) -> float:
        """Seconds until the board takes another PIN to hash (0.0: now), whoever sends it."""
        with self._lock:
            now = self._clock()
            self._board = [t for t in self._board if t > now - self.board_window_s]
            if len(self._board) < self.board_limit:
                return 0.0
            return max(0.0, self._board[-self.board_limit] + self.board_window_s - now)

    def retry_after(self, client: str) -> float:
        """Seconds ``client`` must wait before its next try (0.0: it may try now)."""
        with self._lock:
            _, until = self._wrong.get(client, (0, 0.0))
        return max(0.0, until - self._clock())

    def failed(self, client: str) -> None:
        with self._lock:
            self._count_wrong(client)
            self._save()

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
            self._save()
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
            if self._board:
                self._board.pop()  # this attempt's board-wide count (the newest)
            self._save()

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
        now = self._clock()
        self._board = [t for t in self._board if t > now - self.board_window_s][-self.board_limit:] + [now]

    def succeeded(self, client: str) -> None:
        with self._lock:
            if self._wrong.pop(client, None) is not None:
                self._save()



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
