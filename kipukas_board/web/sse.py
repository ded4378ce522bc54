"""Server-sent events: every state change goes to every open page.

Each client gets its own queue; :meth:`Broadcaster.publish` (called on the core thread) only puts a
ready-made message on each queue, so a slow phone never slows the core. A client whose queue fills
up (it stopped reading) is dropped and reconnects by itself, as EventSource does: nothing more is
queued for it and its body ends at its next step. It still counts against the cap until its body is
closed, though, because until then it still holds its thread (likely stuck writing to the client
that stopped reading, until waitress gives up on that connection).

Every open stream holds one of waitress's worker threads for as long as it is open, so the number of
streams is capped (``max_clients``): past it :meth:`Broadcaster.open` raises :class:`StreamsFull` and
the route answers 503, leaving threads for ``/api/state``, the actions and ``/healthz``.

A route registers the client *before* it takes the snapshot it sends first (:meth:`Broadcaster.open`,
then :meth:`Subscription.body`), so a change made in between is queued rather than lost; at worst the
client sees the same state twice, which a page simply draws again.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator


class StreamsFull(RuntimeError):
    """As many streams are open as the server can spare threads for."""


class Subscription:
    """One client's place on the broadcast: its queue, and the response body that drains it.

    The body is an iterator with ``close()`` (which WSGI servers call even when the body was never
    iterated), so a client that goes away before its first byte still gives its place back.
    """

    def __init__(self, owner: Broadcaster, max_queued: int) -> None:
        self._owner = owner
        self.queue: queue.Queue[bytes | None] = queue.Queue(max_queued)
        #: Set when the client is dropped or the server shuts down: the body ends at its next step.
        self.ended = threading.Event()

    def end(self) -> None:
        self.ended.set()
        with contextlib.suppress(queue.Full):
            self.queue.put_nowait(None)

    def close(self) -> None:
        """Give the place back (idempotent)."""
        self.ended.set()
        self._owner._remove(self)

    def body(self, first: bytes | None = None) -> _Body:
        """The response body: ``first`` (the snapshot taken after registering), then every message."""
        return _Body(self, first)


class _Body:
    def __init__(self, sub: Subscription, first: bytes | None) -> None:
        self._sub = sub
        self._pending: list[bytes] = [b"retry: 1000\n\n"] + ([first] if first is not None else [])

    def __iter__(self) -> _Body:
        return self

    def __next__(self) -> bytes:
        if self._pending:
            return self._pending.pop(0)
        sub = self._sub
        while True:
            if sub.ended.is_set():
                self.close()
                raise StopIteration
            try:
                msg = sub.queue.get(timeout=sub._owner.keepalive_s)
            except queue.Empty:
                return b": keepalive\n\n"
            if msg is None:
                self.close()
                raise StopIteration
            return msg

    def close(self) -> None:
        self._sub.close()


class Broadcaster:
    def __init__(self, max_queued: int = 256, keepalive_s: float = 15.0, max_clients: int | None = None) -> None:
        self._clients: set[Subscription] = set()
        self._lock = threading.Lock()
        self.max_queued = max_queued
        self.keepalive_s = keepalive_s
        #: Open streams allowed at once (None: no cap). ``make_server`` sets it from waitress's threads.
        self.max_clients = max_clients
        self.dropped = 0
        self.refused = 0

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
            clients = list(self._clients)
        for sub in clients:
            if sub.ended.is_set():
                continue  # dropped already: counted (it holds its thread) until its body closes
            try:
                sub.queue.put_nowait(msg)
            except queue.Full:
                # It stopped reading: drop it (its body ends at its next step); EventSource reconnects.
                # Its place is given back by Subscription.close(), once its thread is free again.
                self.dropped += 1
                sub.end()

    def clients(self) -> int:
        with self._lock:
            return len(self._clients)

    def _remove(self, sub: Subscription) -> None:
        with self._lock:
            self._clients.discard(sub)

    def open(self) -> Subscription:
        """Register a new client, or raise :class:`StreamsFull` when ``max_clients`` are open."""
        sub = Subscription(self, self.max_queued)
        with self._lock:
            if self.max_clients is not None and len(self._clients) >= self.max_clients:
                self.refused += 1
                raise StreamsFull(f"{len(self._clients)} pages are already following the board "
                                  f"(limit {self.max_clients})")
            self._clients.add(sub)
        return sub

    def close(self) -> None:
        """Tell every stream to end (server shutdown)."""
        with self._lock:
            clients = list(self._clients)
            self._clients.clear()
        for sub in clients:
            sub.end()

    def stream(self, first: bytes | None = None) -> Iterator[bytes]:
        """Register and return a body in one step (for callers with no snapshot to take in between)."""
        return self.open().body(first)
