"""A tap sent twice is done once: the page sends each tap again while the board does not answer.

A phone on the table's Wi-Fi loses the board for a moment now and then. The page (``common.js``,
``api()``) keeps a tap that got no answer and sends it again, with the same ``X-Tap`` header, until the
board answers; a tap whose first sending did reach the board (the answer was what got lost) must not
roll the diel die twice. So the board remembers the answer to each of the last :data:`KEEP` taps, by
the phone that sent it, the path and the tap's id, and gives a repeat that answer again without doing
anything.

Only answers of taps that were taken are remembered (2xx, and 409: the rules heard it and refused); a
tap turned away before it was done (no PIN, a bad body, the board unable to record) is tried again for
real. The answers are kept in memory, and those of taps that journaled an event in the journal's
database too (:class:`KeptTaps`, the journal's ``taps`` table): the event a tap journals is written in
one transaction with the tap's reference (:func:`current`, which
:class:`~kipukas_board.web.submit.Submitter` hands the core loop), and its answer once given. So a tap
whose answer was lost as the board restarted, sent again by the phone after it (for up to
:data:`RESEND_S` seconds), is answered as before and not done twice; one the board stopped before
answering is answered "done already" with its journal number. A tap that journaled nothing is done
again after a restart, which changes nothing the journal holds.

A tap is under way from its first sending until it has an answer; that includes a tap whose event
the board's core, busy, has not journaled within :data:`~kipukas_board.web.submit.WAIT_S` seconds:
its sending is answered "still under way" (:data:`BUSY_STATUS`, ``Retry-After``) and the event is done
in its turn. A tap under way is pinned in memory (newer taps never push it out) until it has its
answer, so a repeat never starts it again: the repeat waits (up to :data:`WAIT_S`) and gets the first
sending's answer, or is told it is still under way. At most :data:`UNDER_WAY` taps are under way; past
that a new tap is told the board is busy and is not done.

An answer is remembered with the headers of it that matter to the phone (:data:`REPLAYED`), above all
``Set-Cookie``: the right PIN's answer makes the phone trusted by its cookie, and a phone whose answer
was lost and that sends the tap again must still get that cookie. They are bounded
(:data:`MAX_HEADERS`); an answer with more is not remembered, like one with too large a body. They are
kept in memory only, never in the journal's database: a device session's cookie is a credential the
SD card and its backups must not hold, and no answer to a tap that journals an event sets one.

Example::

    >>> taps = TapMemory(keep=2)
    >>> key = ("phone-a", "/api/actions/roll-diel", "t1")
    >>> taps.begin(key) is None      # a new tap: do it
    True
    >>> taps.done(key, 200, b'{"ok": true}', "application/json", (("Set-Cookie", "k=v; HttpOnly"),))
    >>> taps.begin(key)              # the same tap again: its answer, nothing done
    Answer(status=200, body=b'{"ok": true}', mimetype='application/json', headers=(('Set-Cookie', 'k=v; HttpOnly'),))
    >>> tap_id("abc-DEF_123"), tap_id("no spaces"), tap_id("x" * 65)
    ('abc-DEF_123', None, None)
    >>> len(tap_ref(key))            # how the journal's database knows the tap: bounded whatever the cookie
    64
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, NamedTuple, Protocol

from flask import Flask, Response, g, has_request_context, request

from kipukas_board.core_loop import StillQueued
from kipukas_board.store.journal import TAPS_KEPT, JournalError

log = logging.getLogger(__name__)

#: The answers remembered (about the taps of a long evening's last minutes at a busy table), as many
#: as the journal's database keeps.
KEEP = TAPS_KEPT
#: The longest answer remembered, in bytes (an action's answer is a few kilobytes of effects).
MAX_ANSWER = 64 * 1024
#: How long a repeat waits for the first sending of its tap to be answered, in seconds: under the
#: page's 8 s before it gives up on a request (common.js ``API_TIMEOUT_MS``), as the action's own wait.
WAIT_S = 6.0
#: Taps under way at most (pinned in memory until answered): more than the web server's 48 request
#: threads, as a tap answered "still under way" stays under way while the core loop holds its event.
UNDER_WAY = 64
#: The status of "not done yet, ask again" (with ``Retry-After``): a repeat of a tap still under way,
#: a tap whose event the busy core loop has not done in time, a new tap when :data:`UNDER_WAY` are.
BUSY_STATUS = 503
#: The seconds ``Retry-After`` asks a phone to wait before sending a tap under way again.
RETRY_AFTER_S = 2
#: Why a tap under way is not answered yet.
UNDER_WAY_WORDS = "this tap is still under way; it will be done once, not again"
#: How long the page goes on sending a tap the board does not answer (common.js has the same figure).
RESEND_S = 20
#: The longest device cookie that tells a phone apart (the board issues 75 characters); a longer one,
#: written by the client, is none of the board's, and the phone's address tells it apart instead.
MAX_COOKIE = 100
#: The header that carries a tap's id: letters, digits, ``-`` and ``_``, at most 64 of them.
HEADER = "X-Tap"
#: The headers of an answer given again with it (lower case): what the route set for the phone. The
#: rest (security headers, Content-Length) the board adds to every answer, the replayed one too.
REPLAYED = frozenset({"set-cookie", "cache-control", "content-disposition", "location"})
#: The most bytes of :data:`REPLAYED` headers (names and values) an answer remembered may carry: a
#: device session's cookie is under 300.
MAX_HEADERS = 4096

_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_KEPT = frozenset({409})


class Answer(NamedTuple):
    """An answer to give a tap again: its status, body, mimetype and the :data:`REPLAYED` headers."""

    status: int
    body: bytes
    mimetype: str
    headers: tuple[tuple[str, str], ...] = ()


def replayed_headers(headers: Any) -> tuple[tuple[str, str], ...] | None:
    """The :data:`REPLAYED` ones of ``headers`` (``(name, value)`` pairs, in order, repeats kept);
    None when they are more than :data:`MAX_HEADERS` bytes, too many to remember.

    Example::

        >>> replayed_headers([("Set-Cookie", "a=1"), ("X-Frame-Options", "DENY"), ("Set-Cookie", "b=2")])
        (('Set-Cookie', 'a=1'), ('Set-Cookie', 'b=2'))
        >>> replayed_headers([("Set-Cookie", "a" * MAX_HEADERS)]) is None
        True
    """
    kept = tuple((str(k), str(v)) for k, v in headers if str(k).lower() in REPLAYED)
    return kept if sum(len(k) + len(v) for k, v in kept) <= MAX_HEADERS else None


def tap_id(value: str | None) -> str | None:
    """``value`` when it is a well-formed tap id, else None."""
    return value if value is not None and _ID.fullmatch(value) else None


def malformed(value: str) -> str:
    """Why ``value`` is no tap id, for a 400: the board could not remember the tap, so a client that
    sent it again would have it done twice. Names the size, never echoes the value (it may be huge).

    Example::

        >>> malformed("a b").split("; ")[1]
        'got 3 characters, not all of them allowed'
    """
    if not value:
        what = "none"
    else:
        what = f"{len(value)} characters" + ("" if len(value) > 64 else ", not all of them allowed")
    return f"the {HEADER} header must be 1 to 64 letters, digits, '-' or '_' (a new id for each tap); got {what}"


def tap_ref(key: tuple[str, ...]) -> str:
    """The journal's name for the tap ``key`` (phone, path, tap id): a SHA-256 in hex, 64 characters
    whatever the phone's cookie holds."""
    return hashlib.sha256("\0".join(key).encode("utf-8", "replace")).hexdigest()


def current() -> str | None:
    """The reference (:func:`tap_ref`) of the tap this request is doing, for the journal to keep with
    the event it journals; None outside a request or for a request that is no tap."""
    key = g.get("kipukas_tap") if has_request_context() else None
    return tap_ref(key) if key is not None else None


class KeptTaps(Protocol):
    """Where taps outlive the board's process (:class:`~kipukas_board.store.journal.Journal`)."""

    def tap(self, ref: str) -> tuple[int | None, tuple[int, bytes, str] | None] | None: ...

    def keep_tap_answer(self, ref: str, status: int, body: bytes, mimetype: str) -> None: ...


class TapMemory:
    """The answers of the last ``keep`` taps, by ``(phone, path, tap id)``, and the taps under way;
    thread-safe. With ``kept`` (the journal) a tap not in memory is looked up there, and the answer of
    one that journaled an event is kept there too.

    A tap under way (begun, not yet answered, or answered "still under way" while its event waits
    for the core loop) is pinned: newer taps never push it out, so a repeat of it can never start it
    again. There are at most ``under_way`` of them: one per request thread, and those whose event
    the busy core loop still holds; past that a new tap is answered "busy" (:data:`BUSY_STATUS`) and
    not done."""

    def __init__(self, keep: int = KEEP, kept: KeptTaps | None = None, under_way: int = UNDER_WAY) -> None:
        self._keep = keep
        self._kept = kept
        self._max_under_way = under_way
        self._answers: OrderedDict[tuple[str, ...], Answer] = OrderedDict()
        self._under_way: dict[tuple[str, ...], threading.Event] = {}
        self._lock = threading.Lock()

    def _from_kept(self, key: tuple[str, ...]) -> Answer | None:
        """The answer the journal's database kept for ``key`` (from before a restart), if any."""
        if self._kept is None:
            return None
        try:
            found = self._kept.tap(tap_ref(key))
        except JournalError as exc:
            log.error("a tap could not be looked up in the journal: %s", exc)
            return None
        if found is None:
            return None
        seq, answer = found
        if answer is not None:
            return Answer(*answer)
        if seq is None:
            return None
        # journaled, then no answer kept (the board stopped, or failed, before it answered): done, and said so
        return done_answer(seq, "the board's first answer to it was lost")

    def _seen(self, key: tuple[str, ...]) -> Answer | threading.Event | None:
        """Inside the lock: ``key``'s answer, or the event set when the tap under way is answered."""
        return self._answers.get(key) or self._under_way.get(key)

    def _remember(self, key: tuple[str, ...], answer: Answer) -> None:
        """Inside the lock: keep ``answer``, forgetting the oldest answers past ``keep``."""
        self._answers[key] = answer
        self._answers.move_to_end(key)
        while len(self._answers) > self._keep:
            self._answers.popitem(last=False)

    def begin(self, key: tuple[str, ...], wait_s: float | None = None) -> Answer | None:
        """None when ``key`` is a new tap (it is marked under way: call :meth:`done`, :meth:`drop` or
        :meth:`pending`), else the answer to give: the one it was given, waiting up to ``wait_s``
        seconds (:data:`WAIT_S`) for a first sending still under way, else "still under way"
        (:data:`BUSY_STATUS`, never done again); "busy" when too many taps are under way."""
        deadline = time.monotonic() + (WAIT_S if wait_s is None else wait_s)
        while True:
            with self._lock:
                seen = self._seen(key)
            if seen is None:
                kept = self._from_kept(key)  # outside the lock: a read of the database
                with self._lock:
                    seen = self._seen(key)  # begun by another request meanwhile?
                    if seen is None and kept is not None:
                        self._remember(key, kept)
                        return kept
                    if seen is None and len(self._under_way) >= self._max_under_way:
                        return busy(f"{len(self._under_way)} taps are under way, as many as it takes "
                                    f"at once; this one was not done", under_way=False)
                    if seen is None:
                        self._under_way[key] = threading.Event()
                        return None
            if isinstance(seen, Answer):
                return seen
            if not seen.wait(max(0.0, deadline - time.monotonic())):
                return busy(UNDER_WAY_WORDS)
            # answered: its answer, or forgotten (the first sending failed before it did anything)

    def done(self, key: tuple[str, ...], status: int, body: bytes, mimetype: str,
             headers: Any = ()) -> None:
        """Remember the answer to ``key`` with its :data:`REPLAYED` ``headers`` (``(name, value)``
        pairs) when it was taken and is small, or forget the tap."""
        kept_headers = replayed_headers(headers)
        taken = (200 <= status < 300 or status in _KEPT) and len(body) <= MAX_ANSWER and kept_headers is not None
        if taken and self._kept is not None:
            try:
                self._kept.keep_tap_answer(tap_ref(key), status, body, mimetype)
            except JournalError as exc:  # the memory still has it; only a restart would forget it
                log.error("a tap's answer could not be kept in the journal: %s", exc)
        with self._lock:
            under_way = self._under_way.pop(key, None)
            if taken:
                self._remember(key, Answer(status, body, mimetype, kept_headers or ()))
            else:
                self._answers.pop(key, None)
        if under_way is not None:
            under_way.set()

    def drop(self, key: tuple[str, ...]) -> None:
        """Forget ``key`` (its first sending failed before it had an answer)."""
        self.done(key, 0, b"", "")

    def pending(self, key: tuple[str, ...], outcome: Future[int],
                answer: Callable[[int], tuple[int, bytes]] | None = None) -> None:
        """``key``'s request was answered "still under way" while its event waits in the core loop:
        keep the tap under way until ``outcome`` (the event's journal number, or the error that
        refused it) is known, then remember ``answer(seq)`` (status, JSON body; by default "done,
        journal number seq"), or forget the tap if its event was refused (it did nothing)."""

        def finished(result: Future[int]) -> None:
            error = result.exception()
            if error is not None:
                self.drop(key)
                return
            seq = result.result()
            if answer is None:
                done = done_answer(seq, "the board was busy when it first answered")
                self.done(key, done.status, done.body, done.mimetype)
                return
            try:
                status, body = answer(seq)
            except Exception:  # the event is done: a repeat must still not do it again
                log.exception("the answer to a tap done late could not be made")
                done = done_answer(seq, "the board was busy when it first answered")
                status, body = done.status, done.body
            self.done(key, status, body, "application/json")

        outcome.add_done_callback(finished)

    def under_way(self) -> int:
        """How many taps are under way now (pinned in memory)."""
        with self._lock:
            return len(self._under_way)


def done_answer(seq: int, why: str) -> Answer:
    """The answer to a tap found done (journal number ``seq``) whose own answer the board does not
    have, saying ``why``."""
    body = {"ok": True, "seq": seq, "effects": [], "note": f"Already done (journal number {seq}); {why}."}
    return Answer(200, json.dumps(body).encode(), "application/json")


def busy(why: str, under_way: bool = True) -> Answer:
    """The answer "not done now, ask again" (:data:`BUSY_STATUS` with ``Retry-After``), saying
    ``why``: never remembered, and it starts nothing. ``under_way``: the tap is being done (a repeat
    gets its answer once it is), else it was not done at all.

    Example::

        >>> answer = busy(UNDER_WAY_WORDS)
        >>> answer.status, answer.headers, json.loads(answer.body)["error"][:52]
        (503, (('Retry-After', '2'),), 'Not done yet: the board is busy (this tap is still u')
    """
    body = {"error": f"Not done yet: the board is busy ({why}). Look at the board before tapping again.",
            "under_way": under_way}
    return Answer(BUSY_STATUS, json.dumps(body).encode(), "application/json",
                  (("Retry-After", str(RETRY_AFTER_S)),))


def _response(answer: Answer) -> Response:
    """``answer`` as the response to give."""
    resp = Response(answer.body, status=answer.status, mimetype=answer.mimetype)
    for name, value in answer.headers:
        resp.headers.add(name, value)
    return resp


def register(app: Flask, cookie: str, kept: KeptTaps | None = None) -> TapMemory:
    """Answer a repeated tap (a POST with the same ``X-Tap`` from the same phone, on the same path) as
    the first was answered. ``cookie``: the device session cookie's name, which tells phones apart
    (behind it, the address the request came from); ``kept``: the journal, which keeps taps across a
    restart."""
    taps = TapMemory(kept=kept)

    @app.before_request
    def _repeat() -> Response | None:
        raw = request.headers.get(HEADER) if request.method == "POST" else None
        if raw is None:
            return None
        tap = tap_id(raw)
        if tap is None:  # done as an ordinary request, a tap sent again would be done twice
            return Response(json.dumps({"error": malformed(raw)}), status=400, mimetype="application/json")
        phone = request.cookies.get(cookie)
        if not phone or len(phone) > MAX_COOKIE:  # bounded: the memory holds up to KEEP of these keys
            phone = request.remote_addr or "?"
        key = (phone, request.path, tap)
        answer = taps.begin(key)
        if answer is None:
            g.kipukas_tap = key
            return None
        return _response(answer)

    @app.errorhandler(StillQueued)
    def _still_under_way(exc: StillQueued) -> Response:
        # The core loop is busy: the event will still be done in its turn. A tap stays under way until
        # it is (a repeat waits for it, or is told it is still under way, never does it again); a
        # request that is no tap is told the same.
        if g.get("kipukas_tap") is None:
            return _response(busy("it is still under way and will be done in its turn"))
        g.kipukas_tap_pending = exc
        return _response(busy(UNDER_WAY_WORDS))

    @app.after_request
    def _remember(resp: Response) -> Response:
        key = g.pop("kipukas_tap", None)
        still: StillQueued | None = g.pop("kipukas_tap_pending", None)
        if key is not None and still is not None:
            taps.pending(key, still.pending, still.answer)
        elif key is not None and resp.is_streamed:
            taps.drop(key)
        elif key is not None:
            taps.done(key, resp.status_code, resp.get_data(), resp.mimetype or "", resp.headers.items())
        return resp

    @app.teardown_request
    def _forget(exc: Any) -> None:
        key = g.pop("kipukas_tap", None)  # still here: the request failed before it had an answer
        if key is not None:
            taps.drop(key)

    return taps
