"""A board publishes its journal, state and health to a real Mosquitto and loses nothing when it goes away.

Each test starts its own broker (tests/mqtt_broker.py) and a real board with ``[fleet]`` settings, and
reads what arrives with a plain paho subscriber that keeps its session (so the broker queues events for
it while either side restarts). What it received is compared with the board's journal, event by event.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from mqtt_broker import Mosquitto

from kipukas_board.app import BoardApp
from kipukas_board.fleet.mqtt import make_client
from kipukas_board.settings import BrokerAddress, FleetSettings, Settings
from kipukas_board.store.journal import Journal


def wait_for(what: Callable[[], Any], timeout: float = 15.0, why: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = what()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {why or what}")


class Collector:
    """Everything the broker delivers under kipukas/#: events in arrival order, the latest state and health."""

    def __init__(self, url: str, ca_file: str | None = None, username: str | None = None,
                 password: str | None = None) -> None:
        self.events: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        self.latest: dict[str, Any] = {}
        self.lock = threading.Lock()
        self.subscribed = threading.Event()
        self.client = make_client("test-collector", BrokerAddress.parse(url), username, password, ca_file,
                                  keep_session=True)
        self.client.on_connect = lambda c, u, f, r, p: c.subscribe("kipukas/#", qos=1)
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.on_message = self._on_message
        broker = BrokerAddress.parse(url)
        self.client.connect_async(broker.host, broker.port, keepalive=5)
        self.client.loop_start()
        wait_for(self.subscribed.is_set, why="the collector to subscribe")

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        _, board, kind = msg.topic.split("/")
        doc = json.loads(msg.payload)
        with self.lock:
            if kind == "events":
                self.events.setdefault(board, []).append((doc["seq"], doc["event"]))
            else:
                self.latest[f"{board}/{kind}"] = doc

    def distinct(self, board: str) -> list[tuple[int, dict[str, Any]]]:
        """Events de-duplicated by seq (as the contract asks consumers to), in arrival order."""
        seen: set[int] = set()
        out = []
        with self.lock:
            for seq, event in self.events.get(board, []):
                if seq not in seen:
                    seen.add(seq)
                    out.append((seq, event))
        return out

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def fleet_board(data_dir: Path, url: str, board_id: str = "table-01", **kw: Any) -> BoardApp:
    fleet = FleetSettings(BrokerAddress.parse(url), board_id, f"Table {board_id[-2:]}", **kw)
    return BoardApp(Settings(fleet=fleet), data_dir, sim=True, admin_pin="2468")


def toggle(board: BoardApp, times: int, stand: str = "T1") -> None:
    for _ in range(times):
        board.sim_set_stand(stand, not board.loop.state.switches[stand])


def journal_events(data_dir: Path) -> list[tuple[int, dict[str, Any]]]:
    j = Journal.in_dir(data_dir)
    try:
        return list(j.events())
    finally:
        j.close()


def assert_all_in_order(col: Collector, board_id: str, data_dir: Path) -> None:
    expected = journal_events(data_dir)
    wait_for(lambda: len(col.distinct(board_id)) >= len(expected), why=f"{len(expected)} events from {board_id}")
    assert col.distinct(board_id) == expected, "every journaled event, in journal order, none skipped"


@pytest.fixture
def broker(tmp_path: Path):
    b = Mosquitto(tmp_path / "broker").start()
    yield b
    b.stop()


def test_events_state_and_health_reach_the_broker_and_the_health_shows_the_link(broker, data_dir) -> None:
    col = Collector(broker.url)
    board = fleet_board(data_dir, broker.url)
    board.start()
    try:
        wait_for(lambda: board.health()["fleet"]["connected"], why="the fleet link")
        toggle(board, 6)
        assert_all_in_order(col, "table-01", data_dir)
        state = wait_for(lambda: col.latest.get("table-01/state", {}).get("stands") and col.latest["table-01/state"])
        assert "health" not in state
        wait_for(lambda: col.latest["table-01/state"]["stands"] == board.state_json()["stands"],
                 why="the retained state to match /api/state")
        health = col.latest["table-01/health"]
        assert health["online"] is True and health["name"] == "Table 01"
        assert health["health"]["fleet"]["connected"] is True
        fleet = board.health()["fleet"]
        wait_for(lambda: board.health()["fleet"]["backlog"] == 0, why="every event acknowledged")
        assert fleet["board_id"] == "table-01" and fleet["broker"] == broker.url
    finally:
        board.stop()
        col.close()
    # A board that stops says so (retained), so the dashboard shows it offline at once.
    wait_for(lambda: col.latest.get("table-01/health", {}).get("online") is False, why="the goodbye")
    # The board subscribed to nothing (it takes no commands); the broker's log shows who did.
    log = broker.log()
    assert "Received SUBSCRIBE from test-collector" in log
    assert "Received SUBSCRIBE from kipukas-board-table-01" not in log


def test_after_the_broker_was_stopped_and_started_again_the_board_catches_up_in_order(broker, data_dir) -> None:
    col = Collector(broker.url)
    board = fleet_board(data_dir, broker.url)
    board.start()
    try:
        toggle(board, 4)
        assert_all_in_order(col, "table-01", data_dir)
        broker.stop()
        wait_for(lambda: not board.health()["fleet"]["connected"], why="the board to see the broker gone")
        toggle(board, 30)  # the game goes on while the broker is away: every change is applied and kept
        fleet = board.health()["fleet"]
        assert fleet["ok"] is False and fleet["connected"] is False and fleet["backlog"] >= 30
        broker.start()
        assert_all_in_order(col, "table-01", data_dir)
        wait_for(lambda: board.health()["fleet"]["backlog"] == 0, why="the cursor to catch up")
        assert board.health()["fleet"]["connected"] is True
    finally:
        board.stop()
        col.close()


def test_a_board_restarted_while_the_broker_is_away_publishes_everything_once_it_is_back(broker, data_dir) -> None:
    col = Collector(broker.url)
    try:
        board = fleet_board(data_dir, broker.url)
        board.start()
        try:
            toggle(board, 3)
            assert_all_in_order(col, "table-01", data_dir)
            broker.stop()
            toggle(board, 10)
        finally:
            board.stop()
        board = fleet_board(data_dir, broker.url)  # the board comes back first, and plays on
        board.start()
        try:
            toggle(board, 10, stand="T2")
            broker.start()
            assert_all_in_order(col, "table-01", data_dir)
            wait_for(lambda: board.health()["fleet"]["backlog"] == 0, why="the cursor to catch up")
        finally:
            board.stop()
        # A restart with the broker up republishes nothing the broker had acknowledged.
        before = len(col.events["table-01"])
        board = fleet_board(data_dir, broker.url)
        board.start()
        try:
            wait_for(lambda: board.health()["fleet"]["connected"], why="the fleet link")
            toggle(board, 1)
            assert_all_in_order(col, "table-01", data_dir)
        finally:
            board.stop()
        assert len(col.events["table-01"]) == before + 1
    finally:
        col.close()


def test_events_in_flight_when_the_broker_hangs_and_dies_are_sent_again_in_order(broker, data_dir) -> None:
    """The broker stops answering (SIGSTOP) while events are in flight, then dies (SIGKILL) and comes
    back: paho resends those first, and the events journaled since follow them, in order."""
    col = Collector(broker.url)
    board = fleet_board(data_dir, broker.url)
    board.start()
    try:
        toggle(board, 2)
        assert_all_in_order(col, "table-01", data_dir)
        # The broker's autosave (every second) must have written the collector's session since it
        # subscribed, or the kill below would lose the session; wait for the file, not for a time.
        db = Path(broker.dir) / "mosquitto.db"
        since = time.time()
        wait_for(lambda: db.exists() and db.stat().st_mtime > since, why="the broker to save its sessions")
        os.kill(broker.proc.pid, signal.SIGSTOP)
        try:
            toggle(board, 25)
            wait_for(lambda: board.fleet._inflight, why="events handed to paho and not acknowledged")
        finally:
            # Killed while still stopped: it never reads those events. (Woken first, it could read and
            # acknowledge them and die before saving them: Mosquitto acknowledges before it writes.)
            broker.kill()
        toggle(board, 10, stand="T2")
        broker.start()
        assert_all_in_order(col, "table-01", data_dir)
        wait_for(lambda: board.health()["fleet"]["backlog"] == 0, why="the cursor to catch up")
    finally:
        board.stop()
        col.close()


def test_a_journal_that_stops_writing_is_an_alarm_on_the_dashboard(broker, data_dir, monkeypatch) -> None:
    from kipukas_board.fleet.view import FleetView
    from kipukas_board.store.journal import JournalWriteError

    monkeypatch.setattr("kipukas_board.fleet.publisher.FleetPublisher.HEALTH_POLL_S", 0.1)
    view = FleetView(BrokerAddress.parse(broker.url))
    view.start()
    board = fleet_board(data_dir, broker.url)
    board.start()
    try:
        wait_for(lambda: (view.board("table-01") or {}).get("online"), why="the board on the dashboard")
        assert view.board("table-01")["alarms"] == []

        with board.journal._lock:  # the file system turns read-only under the journal
            board.journal._db.execute("PRAGMA query_only = 1")
        with pytest.raises(JournalWriteError, match="read-only"):
            board.sim_set_stand("T1", True)
        journal = board.health()["journal"]
        assert journal["ok"] is False and "read-only" in journal["error"]
        wait_for(lambda: "journal not writing" in view.board("table-01")["alarms"], why="the journal alarm")
    finally:
        board.stop()
        view.stop()
