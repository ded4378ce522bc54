"""Server-sent events: every state change goes to every open page.

Each client gets its own queue; :meth:`Broadcaster.publish` (called on the core thread) only puts a
ready-made message on each queue, so a slow phone never slows the core. A client whose queue fills
up (it stopped reading) is dropped and reconnects by itself, as EventSource does.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator


class Broadcaster:
    def __init__(self, max_queued: int = 256, keepalive_s: float = 15.0) -> None:
        self._clients: set[queue.Queue[bytes | None]] = set()
        self._lock = threading.Lock()
        self.max_queued = max_queued
        self.keepalive_s = keepalive_s
        self.dropped = 0

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
        for q in clients:
            try:
                q.put_nowait(msg)
            except queue.Full:
                self.dropped += 1
                self._remove(q)
                with contextlib.suppress(queue.Full):
                    q.put_nowait(None)

    def clients(self) -> int:
        with self._lock:
            return len(self._clients)

    def _remove(self, q: queue.Queue[bytes | None]) -> None:
        with self._lock:
            self._clients.discard(q)

    def close(self) -> None:
        """Tell every stream to end (server shutdown)."""
        with self._lock:
            clients = list(self._clients)
            self._clients.clear()
        for q in clients:
            with contextlib.suppress(queue.Full):
                q.put_nowait(None)

    def stream(self, first: bytes | None = None) -> Iterator[bytes]:
        """A response body for one client: ``first`` (the current state), then every message."""
        q: queue.Queue[bytes | None] = queue.Queue(self.max_queued)
        with self._lock:
            self._clients.add(q)

        def gen() -> Iterator[bytes]:
            try:
                yield b"retry: 1000\n\n"
                if first is not None:
                    yield first
                while True:
                    try:
                        msg = q.get(timeout=self.keepalive_s)
                    except queue.Empty:
                        yield b": keepalive\n\n"
                        continue
                    if msg is None:
                        return
                    yield msg
            finally:
                self._remove(q)

        return gen()
