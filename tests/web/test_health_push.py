"""A part whose health flips reaches the open pages without waiting for a game change."""

from __future__ import annotations

import json
import threading
import time

from kipukas_board.app import BoardApp
from kipukas_board.settings import Settings


def test_a_sensor_link_going_down_is_pushed_to_the_pages(data_dir, monkeypatch) -> None:
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    monkeypatch.setattr("kipukas_board.app.HEALTH_POLL_S", 0.05)
    board.start()
    try:
        got: list[dict] = []
        stream = board.broadcaster.stream()
        next(stream)  # "retry:" line

        def read() -> None:
            for msg in stream:
                if msg.startswith(b"event: state"):
                    data = b"".join(line[6:] for line in msg.split(b"\n") if line.startswith(b"data: "))
                    got.append(json.loads(data))
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        time.sleep(0.3)
        assert got == [], "nothing changed, so nothing is pushed (counters alone are no change)"
        link = {**board.sensors.health(), "ok": False, "connected": False, "last_error": "unplugged"}
        monkeypatch.setattr(board.sensors, "health", lambda: link)
        reader.join(5)
        assert got and got[0]["health"]["sensors"]["connected"] is False
    finally:
        board.stop()


def test_an_older_state_never_follows_a_newer_one(data_dir) -> None:
    """The core thread and the health watcher both publish; the pages must never step back."""
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    try:
        sub = board.broadcaster.open()
        old = board.loop.state
        new = old.evolve(seq=old.seq + 1)
        board._publish(new, [])
        board._publish(old, [])  # e.g. the watcher read the state just before the core moved on
        board._publish(new, [])
        sent = []
        while (msg := sub.take(0)) is not None:
            sent.append(msg)
        ids = [int(line[4:]) for msg in sent for line in msg.decode().splitlines() if line.startswith("id: ")]
        assert ids == [new.seq]  # the stream keeps only the latest state, and never the older one
    finally:
        board.stop()
