"""Server-sent events: every state change goes to every open page, and no page can hoard or swell.

:meth:`Broadcaster.publish` (called on the core thread) only hands a ready-made message to each
client, so a slow phone never slows the core. A client holds at most the *latest* message of each
kind (``state``, ``calibration``, ...): a newer one replaces the one not yet sent (a page draws the
latest state anyway), so a page that stops reading costs one message, never a queue of full states.
Only the kinds in :data:`KEEP_EACH` (the spoken lines, each of which a page shows) are kept one by
one, at most :data:`MAX_EACH` of them.

The response body (:class:`_Body`) writes a message only while the page has taken all but
:data:`MAX_UNSENT` bytes of what was sent (``unsent()``, a callable the server provides): a stalled
page therefore leaves the body waiting on its client, never blocked in a socket write, and the
server drops it when it makes no progress (``kipukas_board/web/serving.py``). The body also ends
within :data:`POLL_S` of its page going away (``gone()``), so a closed page's place is free again in
about a second.

Every open stream holds one of waitress's worker threads, so streams are capped twice:

- at most ``per_address`` from one address (a phone needs one or two; an IPv6 phone counts by its
  /64 network, where it can take new addresses at will): a newer stream from an address at its cap
  makes the oldest one of that address end, as a page reloaded in a browser would (the board's own
  loopback addresses, :data:`UNCOUNTED`, are not capped per address);
- at most ``max_clients`` in all: past it, the address holding the most streams gives up its oldest
  if it holds at least two more than the newcomer's address, otherwise :meth:`Broadcaster.open`
  raises :class:`StreamsFull` and the route answers 503, leaving threads for ``/api/state``, the
  actions and ``/healthz``. So a few addresses can never keep a new phone away.

A route registers the client *before* it takes the snapshot it sends first
(:meth:`Broadcaster.open`, then :meth:`Subscription.body`), so a change made in between is kept
rather than lost; at worst the client sees the same state twice, which a page simply draws again.

Example::

    >>> b = Broadcaster(max_clients=4, per_address=2)
    >>> sub = b.open("10.0.0.5")
    >>> for seq in (1, 2, 3):
    ...     b.publish("state", '{"seq": %d}' % seq, seq)
    >>> sub.take(0)  # only the latest state was kept
    b'event: state\\nid: 3\\ndata: {"seq": 3}\\n\\n'
    >>> second, third = b.open("10.0.0.5"), b.open("10.0.0.5")
    >>> sub.ended.is_set(), b.replaced  # the address's oldest stream made room for its newest
    (True, 1)
"""

from __future__ import annotations

import ipaddress
import itertools
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator

#: Event kinds of which every message is kept (the others keep only their latest message).
KEEP_EACH = frozenset({"said"})
#: At most this many messages of the :data:`KEEP_EACH` kinds wait for one client (oldest dropped).
MAX_EACH = 16
#: Open streams one address may hold (a phone needs one or two; a few tabs more).
PER_ADDRESS = 4
#: Addresses not capped per address: the board itself (a display on the Pi, a developer's tabs);
#: nobody on the table's network can send from them. Their streams still count in the total.
UNCOUNTED = frozenset({"127.0.0.1", "::1"})
#: Seconds between a body's checks that its page is still there and taking what is sent.
POLL_S = 0.5
#: The first wait (seconds) for a page to take what was sent; it doubles up to :data:`POLL_S`.
FIRST_WAIT_S = 0.002
#: Bytes sent and not yet taken by the page (acknowledged by its TCP) under which the next message
#: may go: a page that reads is rarely above it (its acknowledgements may lag by tens of ms), and a
#: page that stopped reading holds no more than this and one message.
MAX_UNSENT = 64 * 1024


class StreamsFull(RuntimeError):
    """As many streams are open as the server can spare threads for."""


def address_key(addr: str | None) -> str:
    """What counts as one address for the per-address cap: an IPv6 address by its /64 network.

    >>> address_key("192.168.1.20"), address_key("fe80::1:2:3:4"), address_key("::ffff:10.0.0.5")
    ('192.168.1.20', 'fe80::/64', '10.0.0.5')
    """
    if not addr:
        return ""
    try:
        ip = ipaddress.ip_address(addr.split("%", 1)[0])
    except ValueError:
        return addr
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class Subscription:
    """One client's place on the broadcast: its latest messages, and the body that sends them.

    The body is an iterator with ``close()`` (which WSGI servers call even when the body was never
    iterated), so a client that goes away before its first byte still gives its place back.
    """

    _order = itertools.count()

    def __init__(self, owner: Broadcaster, key: str | None = None) -> None:
        self._owner = owner
        #: The address (see :func:`address_key`) this stream counts against; None: no per-address cap.
        self.key = key
        self.number = next(self._order)  # opening order: the oldest of an address makes room first
        self._cond = threading.Condition()
        self._pending: OrderedDict[object, bytes] = OrderedDict()
        self._each = itertools.count()
        #: Set when the client is dropped or the server shuts down: the body ends at its next step.
        self.ended = threading.Event()

    def put(self, event: str, msg: bytes) -> None:
        """Keep ``msg`` for the client: the latest of its kind, or one more of a :data:`KEEP_EACH` kind."""
        with self._cond:
            if event in KEEP_EACH:
                each = [k for k in self._pending if isinstance(k, tuple)]
                for k in each[: max(0, len(each) - MAX_EACH + 1)]:
                    del self._pending[k]
                self._pending[(event, next(self._each))] = msg
            else:
                self._pending.pop(event, None)  # the newer one goes last: it is the newest news
                self._pending[event] = msg
            self._cond.notify()

    def take(self, timeout: float | None) -> bytes | None:
        """The oldest message kept for the client, waiting up to ``timeout`` s (None: nothing came)."""
        with self._cond:
            if not self._pending and not self.ended.is_set():
                self._cond.wait(timeout)
            if not self._pending:
                return None
            return self._pending.popitem(last=False)[1]

    def pending(self) -> int:
        """Messages kept and not yet sent (at most one per kind, plus :data:`MAX_EACH`)."""
        with self._cond:
            return len(self._pending)

    def end(self) -> None:
        self.ended.set()
        with self._cond:
            self._pending.clear()
            self._cond.notify_all()

    def close(self) -> None:
        """Give the place back (idempotent)."""
        self.end()
        self._owner._remove(self)

    def body(self, first: bytes | None = None, unsent: Callable[[], int] | None = None,
             gone: Callable[[], bool] | None = None) -> _Body:
        """The response body: ``first`` (the snapshot taken after registering), then every message.

        ``unsent()`` says how many bytes the server still holds for this client (a message is
        written only when it is 0) and ``gone()`` whether the client went away; both default to a
        server that tells neither.
        """
        return _Body(self, first, unsent, gone)


class _Body:
    def __init__(self, sub: Subscription, first: bytes | None, unsent: Callable[[], int] | None,
                 gone: Callable[[], bool] | None) -> None:
        self._sub = sub
        self._pending: list[bytes] = [b"retry: 1000\n\n"] + ([first] if first is not None else [])
        self._unsent = unsent
        self._gone = gone
        self._last_sent = time.monotonic()
        self._backoff = FIRST_WAIT_S

    def __iter__(self) -> _Body:
        return self

    def __next__(self) -> bytes:
        sub = self._sub
        owner = sub._owner
        while True:
            if sub.ended.is_set() or (self._gone is not None and self._gone()):
                self.close()
                raise StopIteration
            if self._unsent is not None and self._unsent() > owner.max_unsent:
                # The page has not taken what was sent yet: wait (the latest state is kept
                # meanwhile) rather than pile more up or block in a write; briefly at first, as
                # a page that reads takes it within milliseconds.
                sub.ended.wait(self._backoff)
                self._backoff = min(owner.poll_s, self._backoff * 2)
                continue
            self._backoff = FIRST_WAIT_S
            if self._pending:
                return self._sent(self._pending.pop(0))
            msg = sub.take(owner.poll_s)
            if msg is not None:
                return self._sent(msg)
            if time.monotonic() - self._last_sent >= owner.keepalive_s:
                return self._sent(b": keepalive\n\n")

    def _sent(self, msg: bytes) -> bytes:
        self._last_sent = time.monotonic()
        return msg

    def close(self) -> None:
        self._sub.close()


class Broadcaster:
    def __init__(self, keepalive_s: float = 15.0, max_clients: int | None = None,
                 per_address: int | None = PER_ADDRESS, poll_s: float = POLL_S) -> None:
        self._clients: set[Subscription] = set()
        self._lock = threading.Lock()
        self.keepalive_s = keepalive_s
        self.poll_s = poll_s
        self.max_unsent = MAX_UNSENT
        #: Open streams allowed at once (None: no cap). ``make_server`` sets it from waitress's threads.
        self.max_clients = max_clients
        #: Open streams allowed from one address (None: no cap); see the module docs.
        self.per_address = per_address
        self.replaced = 0  #: streams ended to make room for a newer one
        self.refused = 0  #: streams refused (503)

    @staticmethod
    def message(event: str, data: str, ident: int | None = None) -> bytes:
        lines = [f"event: {event}"]
        if ident is not None:
            lines.append(f"id: {ident}")
        lines += [f"data: {line}" for line in data.splitlines() or [""]]
        return ("\n".join(lines) + "\n\n").encode()

    def publish(self, event: str, data: str, ident: int | None = None) -> None:
        msg = self.message(event, data, ident)
        with self._lock:
            clients = [s for s in self._clients if not s.ended.is_set()]
        for sub in clients:
            sub.put(event, msg)

    def clients(self) -> int:
        with self._lock:
            return len(self._clients)

    def _remove(self, sub: Subscription) -> None:
        with self._lock:
            self._clients.discard(sub)

    def open(self, client: str | None = None) -> Subscription:
        """Register a new client from address ``client`` (None: not counted per address), making
        room as the module docs say, or raise :class:`StreamsFull`."""
        key = (address_key(client) if client is not None and self.per_address is not None
               and client not in UNCOUNTED else None)
        sub = Subscription(self, key)
        victim: Subscription | None = None
        with self._lock:
            live = [s for s in self._clients if not s.ended.is_set()]
            mine = sorted((s for s in live if key is not None and s.key == key), key=lambda s: s.number)
            if key is not None and self.per_address is not None and len(mine) >= self.per_address:
                victim = mine[0]
            elif self.max_clients is not None and len(self._clients) >= self.max_clients:
                counts = Counter(s.key for s in live if s.key is not None)
                top = max(counts.items(), key=lambda kv: kv[1], default=None)
                if key is None or top is None or top[1] < len(mine) + 2:
                    self.refused += 1
                    raise StreamsFull(f"{len(self._clients)} pages are already following the board "
                                      f"(limit {self.max_clients})")
                victim = min((s for s in live if s.key == top[0]), key=lambda s: s.number)
            self._clients.add(sub)
        if victim is not None:
            self.replaced += 1
            victim.end()
        return sub

    def close(self) -> None:
        """Tell every stream to end (server shutdown)."""
        with self._lock:
            clients = list(self._clients)
            self._clients.clear()
        for sub in clients:
            sub.end()

    def stats(self) -> dict[str, int | None]:
        return {"open": self.clients(), "limit": self.max_clients, "per_address": self.per_address,
                "replaced": self.replaced, "refused": self.refused}

    def stream(self, first: bytes | None = None) -> Iterator[bytes]:
        """Register and return a body in one step (for callers with no snapshot to take in between)."""
        return self.open().body(first)
