"""The board's page under waitress, with the limits that keep it answering.

Every place that serves the page (``kipukas-board run``, ``bench-sse``, the tests' live servers)
goes through :func:`make_server`, so they all get the same guards:

- waitress refuses a request body over :data:`~kipukas_board.web.server.MAX_BODY` as soon as it
  reads the ``Content-Length`` (or, when chunked, once that much has arrived): without
  ``max_request_body_size`` it would first take in up to 1 GiB and only then let Flask refuse it.
  A route that takes a file (``allow_larger_body``: the card file upload) has its own larger limit,
  held the same way, and keeps a body over ``MAX_BODY`` only from a phone the PIN unlocked or with a
  PIN the board already checked, and only :data:`LARGE_BODIES_AT_ONCE` at a time; any other is read
  and dropped as it arrives (:func:`larger_bodies`);
- open event streams are capped below the thread count (:func:`stream_cap`): each one holds a
  worker thread for as long as a page is open, and without a cap a few dozen connections to
  ``/api/stream`` would leave no thread for ``/api/state``, the actions or ``/healthz``;
- a request's line and headers together may be at most :data:`MAX_REQUEST_HEAD` bytes (waitress
  answers 431 past it): waitress's own limit, 256 KiB, let every connection of the
  :data:`CONNECTION_LIMIT` hold that much while its request was still arriving;
- connections are bounded (:class:`ConnectionGuard`): at most :data:`CONNECTION_LIMIT` open, at most
  :data:`PER_ADDRESS` from one address; a connection with no request in progress is closed after
  :data:`IDLE_S` seconds, and a request must have arrived whole within :data:`REQUEST_S` seconds of
  its first byte (slow senders are cut off). When the limit is reached the longest-idle connections
  without a request in progress make room (a request still arriving is idle from its first byte, so
  a guest's endless body never looks fresher than a phone just come), so silent sockets can never
  keep a phone out. An event
  stream always has a request in progress and sends its own keepalive every 15 s, so it is never
  taken for idle;
- a connection whose client takes none of the answer waiting for it for :data:`STALL_S` seconds is
  closed (a stream that stopped reading, or a guest's tiny receive window), and a connection holds at
  most :data:`OUTBUF_HIGH_WATERMARK` bytes of unsent output before the thread writing it waits;
- a thread that must wait for a slow reader to take an answer (one over
  :data:`OUTBUF_HIGH_WATERMARK`, or answers to requests sent ahead without reading) is a thread no
  phone gets: at most :data:`WAITING_PER_ADDRESS` threads wait on the connections of one address and
  at most half the threads event streams leave (:func:`waiting_cap`) on all of them; a connection that
  would wait past either is closed instead, so guests who stop reading from many connections cannot
  take every thread, however many connections and addresses they use;
- a closed connection is noticed while its request is still being answered
  (``channel_request_lookahead``), so a page that goes away frees its stream within a second;
- each stream is told how much output its connection still holds, in the server and unacknowledged
  in the kernel (:func:`kernel_unsent`), and whether its client is gone
  (the ``kipukas.unsent`` and ``kipukas.gone`` environ keys), so it never writes to a stalled page
  (``kipukas_board/web/sse.py``).

So the board serves as many phones as fit in :data:`CONNECTION_LIMIT` (a browser opens up to 6
connections to a host, one of them the page's event stream): with the defaults, 40 pages following
the game live (48 threads less 8 kept for the rest) and, as each page needs at most 6 connections,
enough room for all of them.
"""

from __future__ import annotations

import io
import logging
import resource
import socket
import struct
import threading
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kipukas_board.web.server import (
    BODY_ADMITS,
    BODY_CROWDED,
    BODY_DROPPED_KEY,
    BODY_LIMITS,
    BODY_UNCHECKED,
    GONE_KEY,
    MAX_BODY,
    UNSENT_KEY,
    create_app,
)
from kipukas_board.web.sse import address_key

if TYPE_CHECKING:
    from flask import Flask

    from kipukas_board.web.served import ServedBoard

log = logging.getLogger(__name__)

try:
    import fcntl
    import termios

    _SIOCOUTQ: int | None = termios.TIOCOUTQ  # the same request as SIOCOUTQ for a TCP socket on Linux
except (ImportError, AttributeError):  # not on this system: only the server's own buffer is looked at
    _SIOCOUTQ = None

#: Bytes a request's line and headers may take together. The page's own are under 2 KiB (its one
#: cookie is 75 characters); waitress's default, 256 KiB, let 400 connections sending headers that
#: never end hold about 100 MB of the board's memory (measured: 113 MB to 211 MB).
MAX_REQUEST_HEAD = 16 * 1024
#: Bodies over :data:`~kipukas_board.web.server.MAX_BODY` (card files) the server keeps while they
#: arrive at once; more are read and dropped, and their route asks for them again.
LARGE_BODIES_AT_ONCE = 2
#: Threads kept free of event streams for every other request (at most half the threads).
STREAM_RESERVE = 8
#: Open connections at most (fewer if the process may not open that many files).
CONNECTION_LIMIT = 400
#: Open connections from one address at most (a phone's browser opens up to 6, a few tabs more).
PER_ADDRESS = 24
#: Seconds a connection may sit with no request in progress before it is closed.
IDLE_S = 30.0
#: Seconds from a request's first byte until it must have arrived whole (headers and body).
REQUEST_S = 15.0
#: How often (seconds) the server looks for idle, slow and stalled connections.
SWEEP_S = 1.0
#: Seconds a client may take none of the answer waiting for it before its connection is closed.
STALL_S = 5.0
#: Bytes of unsent output a connection may hold before the thread writing it waits (waitress's
#: ``outbuf_high_watermark``, 16 MiB by default). An event stream holds at most one message (its
#: body writes only once the last has left), far below waitress's ``outbuf_overflow`` (1 MiB), past
#: which unsent output would spill to a temporary file.
OUTBUF_HIGH_WATERMARK = 256 * 1024
#: Threads that may wait at once for the connections of one address to take their answers (a phone
#: rarely has even one: only a journal export is bigger than the watermark, and browsers do not send
#: requests ahead of their answers).
WAITING_PER_ADDRESS = 2


class ConnectionGuard:
    """Bounds waitress's connections (see the module docs); :meth:`install` fits it to a server.

    waitress itself only closes a connection after ``channel_timeout`` without any activity (a
    slow sender that trickles a byte now and then is never idle) and, at its connection limit, stops
    accepting altogether, so a few hundred silent sockets lock every phone out.
    """

    def __init__(self, limit: int = CONNECTION_LIMIT, per_address: int = PER_ADDRESS,
                 idle_s: float = IDLE_S, request_s: float = REQUEST_S, stall_s: float = STALL_S,
                 waiting_per_address: int = WAITING_PER_ADDRESS, max_waiting: int | None = None) -> None:
        self.limit, self.per_address, self.idle_s, self.request_s = limit, per_address, idle_s, request_s
        self.stall_s = stall_s
        #: Threads that may wait on slow readers: per address, and in all (None: set by make_server).
        self.waiting_per_address, self.max_waiting = waiting_per_address, max_waiting
        self.waiting: dict[str, int] = {}  #: threads now waiting on slow readers, by address
        self.waiting_lock = threading.Lock()
        self.cut = 0  #: connections closed rather than given a thread to wait on their reader
        self.stalled = 0  #: connections closed because the client took none of its answer for stall_s
        self.refused = 0  #: connections closed at once: too many from one address
        self.evicted = 0  #: idle connections closed to make room
        self.slow = 0  #: connections closed because a request took too long to arrive
        self.server: Any = None

    def install(self, server: Any) -> None:
        """Wrap ``server``'s accept, readable and maintenance (a waitress server object)."""
        from waitress.channel import ClientDisconnected

        self.server = server
        accept, readable = server.handle_accept, server.readable
        guard = self

        class Task(server.channel_class.task_class):  # type: ignore[misc, name-defined]
            def get_environment(self) -> dict[str, Any]:
                environ: dict[str, Any] = super().get_environment()
                channel = self.channel
                environ[UNSENT_KEY] = lambda: channel.total_outbufs_len + kernel_unsent(channel.socket)
                environ[GONE_KEY] = lambda: not channel.connected or channel.will_close
                environ[BODY_DROPPED_KEY] = getattr(self.request, "body_dropped", None)
                return environ

        class Channel(server.channel_class):  # type: ignore[misc, name-defined]
            task_class = Task
            request_started = 0.0
            #: When the output now waiting began to wait, or last made progress (time.monotonic(): a
            #: clock set forward must not make every connection look stalled).
            waiting_since = 0.0
            #: Bytes the kernel held unacknowledged at the last sweep.
            kernel_unsent = 0

            def received(self, data: bytes) -> bool:
                if self.request is None and data:
                    self.request_started = time.time()
                return bool(super().received(data))

            def write_soon(self, data: bytes) -> int:
                if data and self.will_close:  # being closed (cut, stalled): nothing more to send
                    raise ClientDisconnected
                if not self.total_outbufs_len:
                    self.waiting_since = time.monotonic()
                return int(super().write_soon(data))

            def handle_close(self) -> None:
                request = self.request  # a request still arriving: its body's buffer (maybe a file) goes now
                super().handle_close()
                if request is not None:
                    request.close()

            def _flush_some(self, do_close: bool = True) -> Any:
                sent = super()._flush_some(do_close=do_close)
                if sent:
                    self.waiting_since = time.monotonic()
                return sent

            def _flush_outbufs_below_high_watermark(self) -> None:
                # Where waitress makes the thread wait until the client has taken enough.
                if self.total_outbufs_len <= self.adj.outbuf_high_watermark:
                    return
                key = address_key(self.addr[0] if isinstance(self.addr, tuple) else self.addr)
                if not guard._start_waiting(key):
                    self.will_close = True
                    self.server.pull_trigger()
                    return
                try:
                    super()._flush_outbufs_below_high_watermark()
                finally:
                    guard._stop_waiting(key)

        server.channel_class = Channel

        def handle_accept() -> None:
            accept()
            guard._refuse_crowds()

        def guarded_readable() -> bool:
            if self._open() >= self.limit - 1:
                self._make_room()
            return bool(readable())

        server.handle_accept = handle_accept
        server.readable = guarded_readable
        server.maintenance = self.maintenance

    def _start_waiting(self, key: str) -> bool:
        """Count a thread about to wait on ``key``'s reader; False (counted as cut) if over a cap."""
        with self.waiting_lock:
            total = sum(self.waiting.values())
            if self.waiting.get(key, 0) >= self.waiting_per_address or (
                    self.max_waiting is not None and total >= self.max_waiting):
                self.cut += 1
                return False
            self.waiting[key] = self.waiting.get(key, 0) + 1
            return True

    def _stop_waiting(self, key: str) -> None:
        with self.waiting_lock:
            left = self.waiting.get(key, 0) - 1
            if left > 0:
                self.waiting[key] = left
            else:
                self.waiting.pop(key, None)

    def _channels(self) -> list[Any]:
        return [c for c in self.server.active_channels.values() if not c.will_close]

    def _open(self) -> int:
        return len(self.server.active_channels)

    def _refuse_crowds(self) -> None:
        """Close the newest connection of an address holding more than its share."""
        channels = self._channels()
        if not channels:
            return
        newest = max(channels, key=lambda c: c.creation_time)
        addr = newest.addr[0] if isinstance(newest.addr, tuple) else newest.addr
        same = sum(1 for c in channels if (c.addr[0] if isinstance(c.addr, tuple) else c.addr) == addr)
        if same > self.per_address:
            self.refused += 1
            newest.will_close = True
            newest.handle_close()

    @staticmethod
    def _busy(channel: Any) -> bool:
        return bool(channel.requests)

    @staticmethod
    def _idle_since(channel: Any) -> float:
        """Since when ``channel`` has been of no use to anyone: its last activity, or, while a request
        is still arriving, that request's first byte. A guest sending a body that never ends is active
        at every byte, and a phone whose request the server has not read yet is not: by last activity
        alone the phone was the one closed to make room."""
        if channel.request is not None and channel.request_started:
            return float(min(channel.last_activity, channel.request_started))
        return float(channel.last_activity)

    def _make_room(self) -> None:
        """At the limit, close the longest-idle connections with no request in progress (a request
        still arriving counts as idle from its first byte: :meth:`_idle_since`)."""
        idle = sorted((c for c in self._channels() if not self._busy(c)), key=self._idle_since)
        for channel in idle[: max(1, self.limit // 10)]:
            self.evicted += 1
            channel.will_close = True

    def maintenance(self, now: float) -> None:
        for channel in self._channels():
            if self._busy(channel):
                # A request (an event stream, say) is being answered: only a client that takes
                # nothing of it for stall_s is cut off, which also frees a thread waiting to write.
                # Taking is the server sending more, or the kernel's unacknowledged bytes shrinking.
                in_kernel = kernel_unsent(channel.socket)
                mono = time.monotonic()
                if not (channel.total_outbufs_len or in_kernel) or in_kernel < channel.kernel_unsent:
                    channel.waiting_since = mono
                channel.kernel_unsent = in_kernel
                if mono - channel.waiting_since > self.stall_s:
                    self.stalled += 1
                    channel.will_close = True
                continue
            if channel.request is not None and now - channel.request_started > self.request_s:
                self.slow += 1
                channel.will_close = True
            elif channel.last_activity < now - self.idle_s:
                channel.will_close = True

    def stats(self) -> dict[str, int]:
        return {"open": self._open() if self.server is not None else 0, "limit": self.limit,
                "per_address": self.per_address, "refused": self.refused, "evicted": self.evicted,
                "slow": self.slow, "stalled": self.stalled, "waiting": sum(self.waiting.values()),
                "max_waiting": self.max_waiting or 0, "waiting_per_address": self.waiting_per_address,
                "cut": self.cut}


def kernel_unsent(sock: socket.socket | None) -> int:
    """Bytes written to ``sock`` that its peer has not acknowledged yet (Linux's ``SIOCOUTQ``; 0
    where the kernel cannot tell, or the socket is closed).

    A client that stopped reading leaves them growing in the kernel's send buffer (up to megabytes
    on a fast link) while the server's own buffer looks empty: only this shows that it takes nothing.
    """
    if sock is None or _SIOCOUTQ is None:
        return 0
    try:
        return int(struct.unpack("i", fcntl.ioctl(sock.fileno(), _SIOCOUTQ, b"\0\0\0\0"))[0])
    except (OSError, ValueError):
        return 0


def connection_limit(wanted: int = CONNECTION_LIMIT) -> int:
    """``wanted``, or less when the process may open fewer files (a socket is a file).

    Keeps 64 files for everything else (journal, cameras, serial port, logs).
    """
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(16, min(wanted, soft - 64))


def stream_cap(threads: int, max_streams: int | None = None) -> int:
    """How many event streams may be open at once with ``threads`` waitress threads.

    >>> stream_cap(48), stream_cap(4), stream_cap(48, 10)
    (40, 2, 10)
    """
    if threads < 2:
        raise ValueError(f"threads = {threads}: the page needs at least 2 threads (one for event streams, "
                         f"one for everything else)")
    if max_streams is None:
        return threads - min(STREAM_RESERVE, threads // 2)
    if not 1 <= max_streams < threads:
        raise ValueError(f"max streams = {max_streams}: expected 1 to {threads - 1} (fewer than the "
                         f"{threads} threads, so requests other than event streams still get one)")
    return max_streams


class DroppedBody:
    """A request body's buffer that keeps nothing and only counts what arrived (the interface of
    waitress's buffers), for a body :func:`larger_bodies` does not keep."""

    def __init__(self) -> None:
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def append(self, data: bytes) -> None:
        self.size += len(data)

    def getfile(self) -> io.BytesIO:
        return io.BytesIO()

    def close(self) -> None:
        pass


def larger_bodies(parser_class: Any, adj: Any, limits: dict[str, int],
                  admits: Callable[[dict[str, str]], bool] | None = None,
                  at_once: int = LARGE_BODIES_AT_ONCE) -> Any:
    """waitress's request parser, letting a body of up to ``limits[path]`` bytes in for those paths
    (``allow_larger_body``) and keeping :data:`~kipukas_board.web.server.MAX_BODY` for every other.

    A body that may be over ``MAX_BODY`` (a longer ``Content-Length``, or chunked) is kept only when
    ``admits`` (asked with the request's headers once they are in) says yes, and only ``at_once`` of
    them at a time; any other is read and dropped as it arrives, and the request carries why
    (``BODY_DROPPED_KEY``) for its route. Kept, 400 connections sending 500 kB each and waiting held
    200 MB of memory, or hundreds of megabytes of temporary files at 5 MiB each."""
    import copy

    wider = {}
    for path, limit in limits.items():
        wider[path] = copy.copy(adj)
        wider[path].max_request_body_size = limit + 1  # waitress refuses content_length >= this
    kept: weakref.WeakSet[Any] = weakref.WeakSet()  # requests whose large body is kept, until closed
    lock = threading.Lock()

    class Parser(parser_class):  # type: ignore[misc, valid-type]
        body_dropped: str | None = None

        def parse_header(self, header_plus: bytes) -> None:
            super().parse_header(header_plus)
            if self.path not in wider:
                return
            self.adj = wider[self.path]  # read once the headers are in, for the body
            if self.body_rcv is None or not (self.chunked or self.content_length > MAX_BODY):
                return
            if admits is not None and not admits(self.headers):
                self._drop(BODY_UNCHECKED)
                return
            with lock:
                if len(kept) < at_once:
                    kept.add(self)
                    return
            self._drop(BODY_CROWDED)

        def _drop(self, why: str) -> None:
            self.body_rcv.buf = DroppedBody()
            self.body_dropped = why

        def close(self) -> None:
            with lock:
                kept.discard(self)
            super().close()

    return Parser


def waiting_cap(threads: int, streams: int) -> int:
    """How many threads may wait on slow readers at once: half of those event streams leave.

    >>> waiting_cap(48, 40), waiting_cap(16, 8), waiting_cap(4, 2)
    (4, 4, 1)
    """
    return max(1, (threads - streams) // 2)


def make_server(board: ServedBoard, host: str, port: int, threads: int = 48, max_streams: int | None = None,
                app: Flask | None = None, **waitress_options: Any) -> Any:
    """A waitress server (not yet running) for ``board``'s page; raises OSError if it cannot listen.

    ``app`` defaults to :func:`~kipukas_board.web.server.create_app` of ``board`` (add route
    plugins to ``board`` first). Other keywords go to ``waitress.create_server``.
    """
    from waitress import create_server

    board.broadcaster.max_clients = stream_cap(threads, max_streams)
    guard = waitress_options.pop("guard", None) or ConnectionGuard(limit=connection_limit())
    if guard.max_waiting is None:
        guard.max_waiting = waiting_cap(threads, board.broadcaster.max_clients)
    waitress_options.setdefault("connection_limit", guard.limit + 8)  # the guard makes room before this
    waitress_options.setdefault("channel_timeout", guard.idle_s)
    waitress_options.setdefault("cleanup_interval", SWEEP_S)
    waitress_options.setdefault("outbuf_high_watermark", OUTBUF_HIGH_WATERMARK)
    waitress_options.setdefault("max_request_header_size", MAX_REQUEST_HEAD)
    # Keep reading a connection while its request is answered, so a page that closes is seen at
    # once (waitress.client_disconnected) and its stream's thread and place are freed in a second.
    waitress_options.setdefault("channel_request_lookahead", 1)
    # poll(), not select(): select() fails outright once any descriptor of the process is past 1024.
    waitress_options.setdefault("asyncore_use_poll", True)
    app = app if app is not None else create_app(board)
    server = create_server(app, host=host, port=port, threads=threads,
                           # waitress refuses content_length >= this; Flask refuses > MAX_BODY: the same limit.
                           max_request_body_size=MAX_BODY + 1, **waitress_options)
    guard.install(server)
    limits = app.extensions.get(BODY_LIMITS, {})
    if limits:
        server.channel_class.parser_class = larger_bodies(server.channel_class.parser_class, server.adj, limits,
                                                          app.extensions.get(BODY_ADMITS))
    board.health_sources["connections"] = guard.stats
    board.health_sources["streams"] = board.broadcaster.stats
    return server
