"""The board's page under waitress, with the limits that keep it answering.

Every place that serves the page (``kipukas-board run``, ``bench-sse``, the tests' live servers)
goes through :func:`make_server`, so they all get the same two guards:

- waitress refuses a request body over :data:`~kipukas_board.web.server.MAX_BODY` as soon as it
  reads the ``Content-Length`` (or, when chunked, once that much has arrived): without
  ``max_request_body_size`` it would first take in up to 1 GiB and only then let Flask refuse it;
- open event streams are capped below the thread count (:func:`stream_cap`): each one holds a
  worker thread for as long as a page is open, and without a cap a few dozen connections to
  ``/api/stream`` would leave no thread for ``/api/state``, the actions or ``/healthz``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kipukas_board.web.server import MAX_BODY, create_app

if TYPE_CHECKING:
    from flask import Flask

    from kipukas_board.app import BoardApp

#: Threads kept free of event streams for every other request (at most half the threads).
STREAM_RESERVE = 8


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


def make_server(board: BoardApp, host: str, port: int, threads: int = 48, max_streams: int | None = None,
                app: Flask | None = None, **waitress_options: Any) -> Any:
    """A waitress server (not yet running) for ``board``'s page; raises OSError if it cannot listen.

    ``app`` defaults to :func:`~kipukas_board.web.server.create_app` of ``board`` (add route
    plugins to ``board`` first). Other keywords go to ``waitress.create_server``.
    """
    from waitress import create_server

    board.broadcaster.max_clients = stream_cap(threads, max_streams)
    return create_server(app if app is not None else create_app(board), host=host, port=port, threads=threads,
                         # waitress refuses content_length >= this; Flask refuses > MAX_BODY: the same limit.
                         max_request_body_size=MAX_BODY + 1, **waitress_options)
