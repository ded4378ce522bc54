"""A tap sent twice is done once: the page sends each tap again while the board does not answer.

A phone on the table's Wi-Fi loses the board for a moment now and then. The page (``common.js``,
``api()``) keeps a tap that got no answer and sends it again, with the same ``X-Tap`` header, until the
board answers; a tap whose first sending did reach the board (the answer was what got lost) must not
roll the diel die twice. So the board remembers the answer to each of the last :data:`KEEP` taps, by
the phone that sent it, the path and the tap's id, and gives a repeat that answer again without doing
anything.

Only answers of taps that were taken are remembered (2xx, and 409: the rules heard it and refused); a
tap turned away before it was done (no PIN, a bad body, the board unable to record) is tried again for
real. The memory lives in the board's process: a tap sent again across a restart of the board is done
again (the page gives up after :data:`RESEND_S` seconds, well inside a restart's usual length).

Example::

    >>> taps = TapMemory(keep=2)
    >>> key = ("phone-a", "/api/actions/roll-diel", "t1")
    >>> taps.begin(key) is None      # a new tap: do it
    True
    >>> taps.done(key, 200, b'{"ok": true}', "application/json")
    >>> taps.begin(key)              # the same tap again: its answer, nothing done
    (200, b'{"ok": true}', 'application/json')
    >>> tap_id("abc-DEF_123"), tap_id("no spaces"), tap_id("x" * 65)
    ('abc-DEF_123', None, None)
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Any

from flask import Flask, Response, g, request

#: The answers remembered (about the taps of a long evening's last minutes at a busy table).
KEEP = 256
#: The longest answer remembered, in bytes (an action's answer is a few kilobytes of effects).
MAX_ANSWER = 64 * 1024
#: How long a repeat waits for the first sending of its tap to be answered, in seconds.
WAIT_S = 10.0
#: How long the page goes on sending a tap the board does not answer (common.js has the same figure).
RESEND_S = 20
#: The header that carries a tap's id: letters, digits, ``-`` and ``_``, at most 64 of them.
HEADER = "X-Tap"

_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_KEPT = frozenset({409})


def tap_id(value: str | None) -> str | None:
    """``value`` when it is a well-formed tap id, else None (a malformed one is not remembered)."""
    return value if value is not None and _ID.fullmatch(value) else None


class TapMemory:
    """The answers of the last ``keep`` taps, by ``(phone, path, tap id)``; thread-safe."""

    def __init__(self, keep: int = KEEP) -> None:
        self._keep = keep
        self._answers: OrderedDict[tuple[str, ...], tuple[int, bytes, str] | threading.Event] = OrderedDict()
        self._lock = threading.Lock()

    def begin(self, key: tuple[str, ...], wait_s: float = WAIT_S) -> tuple[int, bytes, str] | None:
        """None when ``key`` is a new tap (it is marked under way: call :meth:`done` or :meth:`drop`),
        else the answer it was given (waiting up to ``wait_s`` for a first sending still under way)."""
        with self._lock:
            seen = self._answers.get(key)
            if seen is None:
                self._answers[key] = threading.Event()
                while len(self._answers) > self._keep:
                    self._answers.popitem(last=False)
                return None
        if isinstance(seen, threading.Event):
            seen.wait(wait_s)
            with self._lock:
                seen = self._answers.get(key)
            if not isinstance(seen, tuple):
                return (409, b'{"error": "this tap is still being done: look at the board before tapping again"}',
                        "application/json")
        return seen

    def done(self, key: tuple[str, ...], status: int, body: bytes, mimetype: str) -> None:
        """Remember the answer to ``key`` (when it was taken and is small), or forget the tap."""
        with self._lock:
            under_way = self._answers.get(key)
            if (200 <= status < 300 or status in _KEPT) and len(body) <= MAX_ANSWER:
                self._answers[key] = (status, body, mimetype)
            else:
                self._answers.pop(key, None)
        if isinstance(under_way, threading.Event):
            under_way.set()

    def drop(self, key: tuple[str, ...]) -> None:
        """Forget ``key`` (its first sending failed before it had an answer)."""
        self.done(key, 0, b"", "")


def register(app: Flask, cookie: str) -> TapMemory:
    """Answer a repeated tap (a POST with the same ``X-Tap`` from the same phone, on the same path) as
    the first was answered. ``cookie``: the device session cookie's name, which tells phones apart
    (behind it, the address the request came from)."""
    taps = TapMemory()

    @app.before_request
    def _repeat() -> Response | None:
        tap = tap_id(request.headers.get(HEADER)) if request.method == "POST" else None
        if tap is None:
            return None
        key = (request.cookies.get(cookie) or request.remote_addr or "?", request.path, tap)
        answer = taps.begin(key)
        if answer is None:
            g.kipukas_tap = key
            return None
        status, body, mimetype = answer
        return Response(body, status=status, mimetype=mimetype)

    @app.after_request
    def _remember(resp: Response) -> Response:
        key = g.pop("kipukas_tap", None)
        if key is not None and resp.is_streamed:
            taps.drop(key)
        elif key is not None:
            taps.done(key, resp.status_code, resp.get_data(), resp.mimetype or "")
        return resp

    @app.teardown_request
    def _forget(exc: Any) -> None:
        key = g.pop("kipukas_tap", None)  # still here: the request failed before it had an answer
        if key is not None:
            taps.drop(key)

    return taps
