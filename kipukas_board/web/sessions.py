"""What keeps an open page working across a board restart: a secret kept on disk, the CSRF token
made from it, and device sessions (a phone that entered the right PIN stays trusted for a while).

The secret (``web-secret.json`` in the data directory, readable by the board's user only) is made
once. The page's CSRF token is an HMAC of it, so the token a page loaded before a restart is still
this board's token after it. A device session is a cookie, ``HttpOnly`` (no script on the page can
read it) and ``SameSite=Strict`` (no other site's page can make the browser send it), holding its
expiry and an HMAC over the expiry and a fingerprint of the PIN's stored hash: it survives a restart,
ends when it expires, and every session ends at once when the PIN is changed.

Example::

    >>> import tempfile
    >>> keys = WebKeys(tempfile.mkdtemp())
    >>> cookie = keys.issue("pinhash", now=1000.0)
    >>> keys.session_ok(cookie, "pinhash", now=1001.0)
    True
    >>> keys.session_ok(cookie, "newpinhash", now=1001.0)
    False
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import math
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path

from kipukas_board.textfile import write_text_atomic

#: The device-session cookie's name.
COOKIE = "kipukas_device"
#: How long a phone stays trusted after the right PIN (a long evening of play).
SESSION_S = 12 * 3600


class WebKeys:
    """The board's web secret, its CSRF token and its device-session cookies."""

    FILENAME = "web-secret.json"
    #: The latest time the board read, kept so a restart does not read an earlier one.
    CLOCK_FILENAME = "clock-floor"
    #: Seconds between records of that time.
    FLOOR_EVERY_S = 60.0

    def __init__(self, data_dir: str | Path, session_s: float = SESSION_S,
                 wall: Callable[[], float] = time.time, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.path = Path(data_dir) / self.FILENAME
        self.session_s = session_s
        self._secret = self._load_or_make()
        self.csrf_token = hmac.new(self._secret, b"csrf", hashlib.sha256).hexdigest()[:32]
        self._wall, self._mono = wall, monotonic
        self._floor_path = Path(data_dir) / self.CLOCK_FILENAME
        self._clock_lock = threading.Lock()
        self._last = (max(wall(), self._read_floor()), monotonic())  # (clock read, monotonic then)
        self._floor_saved = float("-inf")

    def _read_floor(self) -> float:
        try:
            value = float(self._floor_path.read_text()[:40])
        except (OSError, ValueError):
            return float("-inf")
        return value if math.isfinite(value) else float("-inf")

    def now(self) -> float:
        """The time sessions are judged by: the wall clock, but never earlier than the last reading
        plus the monotonic time since, so setting the clock back (even across a restart, down to the
        last recorded minute) cannot stretch a session; setting it forward only ends sessions sooner.
        """
        with self._clock_lock:
            last, then = self._last
            mono = self._mono()
            t = max(self._wall(), last + max(0.0, mono - then))
            self._last = (t, mono)
            if mono - self._floor_saved >= self.FLOOR_EVERY_S:
                self._floor_saved = mono
                # A failed record only lets a restart with the clock set back gain: no reason to refuse.
                with contextlib.suppress(OSError):
                    write_text_atomic(self._floor_path, f"{t:.0f}\n")
            return t

    def _load_or_make(self) -> bytes:
        try:
            secret = bytes.fromhex(json.loads(self.path.read_text())["secret"])
            if len(secret) >= 32:
                return secret
        except (OSError, ValueError, KeyError, TypeError):
            pass  # absent or unreadable: a new secret (open pages then reload once)
        secret = secrets.token_bytes(32)
        write_text_atomic(self.path, json.dumps({"secret": secret.hex()}), mode=0o600)
        return secret

    def csrf_ok(self, given: str | None) -> bool:
        """Is ``given`` this board's CSRF token?"""
        return bool(given) and hmac.compare_digest(str(given).encode(), self.csrf_token.encode())

    def _mac(self, expires: int, pin_id: str) -> str:
        return hmac.new(self._secret, f"device|{expires}|{pin_id}".encode(), hashlib.sha256).hexdigest()

    def issue(self, pin_id: str, now: float | None = None) -> str:
        """A cookie value for a phone that just gave the right PIN (``pin_id``: the PIN's fingerprint)."""
        expires = int((self.now() if now is None else now) + self.session_s)
        return f"{expires}.{self._mac(expires, pin_id)}"

    def expires(self, cookie: str | None) -> int | None:
        """The expiry written in ``cookie`` (not checked), or None if it is not one of ours in shape."""
        head, _, _ = (cookie or "").partition(".")
        return int(head) if head.isdigit() and len(head) < 16 else None

    def session_ok(self, cookie: str | None, pin_id: str | None, now: float | None = None) -> bool:
        """Is ``cookie`` a device session this board issued, for the current PIN, not yet expired?"""
        if not cookie or not pin_id or len(cookie) > 100:
            return False
        expires = self.expires(cookie)
        if expires is None or expires <= (self.now() if now is None else now):
            return False
        return hmac.compare_digest(cookie.partition(".")[2], self._mac(expires, pin_id))
