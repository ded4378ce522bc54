"""Event streams cannot be hoarded and cannot swell the board (kipukas_board/web/sse.py, serving.py).

The live tests stand loopback addresses (127.0.0.x) in for the phones and guests of a table.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from waiting import wait_for

from kipukas_board.app import BoardApp
from kipukas_board.settings import Settings
from kipukas_board.web.serving import ConnectionGuard, make_server
from kipukas_board.web.sse import MAX_EACH, Broadcaster, StreamsFull


def _state(b: Broadcaster, seq: int) -> None:
    b.publish("state", f'{{"seq": {seq}, "pad": "{"x" * 2000}"}}', seq)


def test_a_stream_that_never_reads_holds_only_the_latest_state() -> None:
    b = Broadcaster()
    sub = b.open("10.0.0.5")
    for seq in range(600):
        _state(b, seq)
        b.publish("said", f'{{"seq": {seq}}}')
    assert sub.pending() == 1 + MAX_EACH  # one state, and the last spoken lines
    got = [sub.take(0) for _ in range(sub.pending())]
    states = [m for m in got if m and m.startswith(b"event: state")]
    assert len(states) == 1 and b"id: 599\n" in states[0]
    said = [m for m in got if m and m.startswith(b"event: said")]
    assert said[-1].endswith(b'{"seq": 599}\n\n') and said[0].endswith(b'{"seq": %d}\n\n' % (600 - MAX_EACH))
    assert sub.take(0) is None


def test_the_oldest_stream_of_an_address_makes_room_for_its_newest() -> None:
    b = Broadcaster(max_clients=40, per_address=2)
    first, second = b.open("10.0.0.5"), b.open("10.0.0.5")
    third = b.open("10.0.0.5")
    assert first.ended.is_set() and not second.ended.is_set() and not third.ended.is_set()
    body = first.body()
    with pytest.raises(StopIteration):
        next(body)  # the replaced page's body ends at its next step ...
    assert b.clients() == 2  # ... and gives its place back


def _open_and_settle(b: Broadcaster, addr: str, subs: list) -> None:  # type: ignore[type-arg]
    """Open a stream, and close those it ended, as their bodies do at their next step."""
    with contextlib.suppress(StreamsFull):
        subs.append(b.open(addr))
    for s in subs:
        if s.ended.is_set():
            s.close()


def test_two_addresses_cannot_keep_a_third_away() -> None:
    b = Broadcaster(max_clients=40, per_address=22)
    hoard: list = []  # type: ignore[type-arg]
    for addr in ("10.0.0.1", "10.0.0.2"):
        for _ in range(22):
            _open_and_settle(b, addr, hoard)
    assert b.clients() == 40
    phone = b.open("10.0.0.3")  # the biggest holder's oldest makes room
    assert not phone.ended.is_set()
    for i in range(50):  # the attackers keep asking: they take from each other, never from the phone
        _open_and_settle(b, f"10.0.0.{1 + i % 2}", hoard)
    assert not phone.ended.is_set() and b.clients() <= 41


def test_when_every_address_holds_one_the_next_is_refused() -> None:
    b = Broadcaster(max_clients=3)
    for i in range(3):
        b.open(f"10.0.0.{i}")
    with pytest.raises(StreamsFull, match="limit 3"):
        b.open("10.0.0.9")
    assert b.refused == 1


def test_an_ipv6_phone_counts_once_however_many_addresses_it_takes() -> None:
    b = Broadcaster(per_address=2)
    subs = [b.open(f"2001:db8::{i:x}") for i in range(1, 6)]
    assert sum(not s.ended.is_set() for s in subs) == 2


def test_a_body_never_writes_while_the_server_still_holds_output_and_ends_when_the_page_is_gone() -> None:
    b = Broadcaster(poll_s=0.01, keepalive_s=0.05)
    sub = b.open("10.0.0.5")
    unsent = [0]
    gone = [False]
    body = sub.body(b"first", unsent=lambda: unsent[0], gone=lambda: gone[0])
    assert next(body) == b"retry: 1000\n\n"
    unsent[0] = b.max_unsent + 1  # the page has not taken that yet
    got: list[bytes] = []
    t = threading.Thread(target=lambda: got.append(next(body)), daemon=True)
    t.start()
    time.sleep(0.2)
    assert got == [], "wrote while the last message was still waiting"
    unsent[0] = 0
    t.join(2)
    assert got == [b"first"]
    gone[0] = True
    with pytest.raises(StopIteration):
        next(body)
    assert b.clients() == 0


@contextlib.contextmanager
def _served(data_dir: Path, threads: int = 16, **guard: float) -> Iterator[tuple[BoardApp, int, ConnectionGuard]]:
    board = BoardApp(Settings(map="kipuka-8"), data_dir, sim=True, admin_pin="2468")
    g = ConnectionGuard(**guard)  # type: ignore[arg-type]
    server = make_server(board, "127.0.0.1", 0, threads=threads, guard=g)
    board.start()
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    try:
        yield board, int(server.effective_port), g
    finally:
        board.stop()
        server.close()
        t.join(5)


def _open_stream(port: int, source: str, rcvbuf: int | None = None) -> tuple[socket.socket, bytes]:
    sock = socket.socket()
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.bind((source, 0))
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    sock.sendall(b"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return sock, sock.recv(12)  # b"HTTP/1.1 200"


def test_live_a_phone_gets_a_stream_while_two_addresses_hoard_and_a_closed_page_frees_its_place(
        data_dir: Path) -> None:
    with _served(data_dir, threads=16) as (board, port, _guard):  # 8 streams at most
        hoard = [_open_stream(port, addr)[0] for addr in ("127.0.0.2", "127.0.0.3") for _ in range(6)]
        try:
            sock, status = _open_stream(port, "127.0.0.4")
            assert status == b"HTTP/1.1 200"
            assert wait_for(lambda: board.broadcaster.clients() <= 8, 3)
            # A page that closes gives its place back within seconds, with nothing published meanwhile.
            sock.close()
            assert wait_for(lambda: board.broadcaster.clients() <= 7, 3), "a closed page still holds its place"
        finally:
            for s in hoard:
                s.close()


def test_live_a_stream_that_stops_reading_is_dropped_and_holds_no_thread(data_dir: Path) -> None:
    with _served(data_dir, threads=8, stall_s=1.0) as (board, port, guard):
        stalled, status = _open_stream(port, "127.0.0.2", rcvbuf=1)
        assert status == b"HTTP/1.1 200"
        try:
            stands = sorted(board.loop.state.board.stands)
            t0 = time.monotonic()
            i = 0
            while guard.stalled == 0 and time.monotonic() - t0 < 20:
                sid = stands[i % len(stands)]
                board.sim_set_stand(sid, not board.loop.state.switches[sid])
                i += 1
            assert guard.stalled == 1, f"never dropped after {i} changes"
            assert wait_for(lambda: board.broadcaster.clients() == 0, 3), "its thread never let go"
        finally:
            stalled.close()


def test_the_board_itself_is_not_capped_per_address() -> None:
    b = Broadcaster(max_clients=40, per_address=2)
    subs = [b.open("127.0.0.1") for _ in range(6)] + [b.open("::1") for _ in range(3)]
    assert not any(s.ended.is_set() for s in subs) and b.clients() == 9


def test_journal_exports_are_few_at_once_and_read_a_page_at_a_time(client, board: BoardApp) -> None:
    from kipukas_board import strictjson
    from kipukas_board.web.table_actions import EXPORT_PAGE, MAX_EXPORTS

    for i in range(EXPORT_PAGE + 3):  # more than one page
        board.sim_set_stand("T1", i % 2 == 0)
    held = [client.get("/api/journal/export", buffered=False) for _ in range(MAX_EXPORTS)]
    refused = client.get("/api/journal/export")
    assert refused.status_code == 503 and int(refused.headers["Retry-After"]) > 0
    held.pop().close()  # a client that went away without reading gives its place back
    resp = client.get("/api/journal/export")
    assert resp.status_code == 200
    seqs = [strictjson.loads(line)["seq"] for line in resp.get_data(as_text=True).splitlines()]
    assert seqs == list(range(1, board.journal.last_seq() + 1))
    for r in held:
        r.close()


def test_the_report_is_replayed_once_per_journal_length(board: BoardApp, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import kipukas_board.app as app_module

    calls = []
    real = app_module.modes.game_report
    monkeypatch.setattr(app_module.modes, "game_report", lambda *a: calls.append(1) or real(*a))
    first = board.game_report()
    assert board.game_report() is first and len(calls) == 1  # asked again: not replayed again
    board.sim_set_stand("T1", True)
    board.game_report()
    assert len(calls) == 2  # the journal grew: replayed once more


def _hog(port: int, source: str, path: bytes, ahead: int) -> socket.socket:
    """A connection that sends ``ahead`` requests for ``path`` at once and reads none of the answers."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % path * ahead)
    return sock


def test_live_guests_that_stop_reading_from_many_connections_leave_threads_for_the_phones(data_dir: Path) -> None:
    import urllib.request

    with _served(data_dir, threads=8) as (_board, port, guard):
        # Two addresses, 6 connections each (under the 24 allowed), each asking for the page's
        # biggest script 200 times ahead and taking none of it: more waiting answers than threads.
        hogs = [_hog(port, f"127.0.0.{2 + i % 2}", b"/kipukas/static/board.js", 200) for i in range(12)]
        try:
            time.sleep(0.5)
            for _ in range(6):
                # Answered before the 5 s stall sweep could have freed a thread: the cap did it.
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=4.5) as resp:
                    assert resp.status == 200
            deadline = time.monotonic() + 10  # the hogs' connections are cut as their answers back up
            while guard.stats()["cut"] < 8 and time.monotonic() < deadline:
                time.sleep(0.1)
            stats = guard.stats()
            assert stats["waiting"] <= stats["max_waiting"] == 2 and stats["cut"] >= 8, stats
        finally:
            for s in hogs:
                s.close()
