"""The organiser's view of every board: what the dashboard shows and the load bench counts.

:class:`FleetView` subscribes to every board's topics (``kipukas/+/state``, ``/events``, ``/health``)
and keeps one summary per board: its name, the game on its table (Kipukas, a card duel or Creature
Combat Territory: :mod:`~kipukas_board.fleet.games` reads each) with its players and progress, the last
event's number and when it came, and the alarms an organiser must see at once (offline, sensor link
down, camera failing, journal not writing). Events are de-duplicated by board and sequence number, as
the contract asks of every consumer.

It only reads: it publishes nothing and sends no command to a board.

Example (not run as a doctest: it needs an MQTT broker; ``tests/fleet/test_fleet_dashboard.py`` runs it
against a real Mosquitto)::

    >>> view = FleetView(BrokerAddress.parse("mqtt://127.0.0.1:1883"))      # doctest: +SKIP
    >>> view.start(); view.boards()                                           # doctest: +SKIP
    [{'board_id': 'table-07', 'name': 'Table 7', 'online': True, 'alarms': [], ...}]
"""

from __future__ import annotations

import collections
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt

from kipukas_board.fleet import topics
from kipukas_board.fleet.games import game_on_table, paused_title
from kipukas_board.fleet.mqtt import KEEPALIVE_S, make_client
from kipukas_board.settings import BrokerAddress

log = logging.getLogger(__name__)

#: Called with (board_id, seq, ts the board journaled it, wall time it arrived) for each new event.
EventHook = Callable[[str, int, float, float], None]


@dataclass
class BoardSummary:
    """One board as the dashboard shows it (``to_json`` is what the page gets)."""

    board_id: str
    name: str = ""
    online: bool | None = None        # None: no health message seen yet
    state: dict[str, Any] = field(default_factory=dict)
    health: dict[str, Any] = field(default_factory=dict)
    last_seq: int = 0
    last_event_at: float | None = None
    events: int = 0                   # distinct events received
    duplicates: int = 0
    missed: int = 0                   # sequence numbers jumped over (the view was away)

    def alarms(self) -> list[str]:
        out: list[str] = []
        if self.online is False:
            out.append("board offline")
        h = self.health
        if isinstance(h.get("sensors"), dict) and h["sensors"].get("ok") is False:
            out.append("sensor link down")
        cams = h.get("cameras") if isinstance(h.get("cameras"), list) else []
        for cam in cams:
            if isinstance(cam, dict) and cam.get("ok") is False:
                out.append(f"camera seat {cam.get('seat', '?')} failing")
        if isinstance(h.get("journal"), dict) and h["journal"].get("ok") is False:
            out.append("journal not writing")
        if isinstance(h.get("core"), dict) and h["core"].get("ok") is False:
            out.append("core loop stalled")
        return out

    def to_json(self) -> dict[str, Any]:
        game = game_on_table(self.state)
        # A board with no game (no players named by a new game, no duel or Creature Combat game) still
        # reports Kipukas's first phase, "setup", and diel cycle 0: they describe no game, so the summary
        # gives none (the page's "No game." and "–").
        return {"board_id": self.board_id, "name": self.name or self.board_id, "online": self.online,
                "game": self.state.get("game", "kipukas" if self.state else None),
                "playing": game.game if game else None, "title": game.title if game else None,
                "progress": game.progress if game else None, "paused": paused_title(self.state),
                "phase": game.phase if game else None, "cycle": game.cycle if game else None,
                "diel_phase": game.diel_phase if game else None, "winner": game.winner if game else None,
                "players": game.players if game else [],
                "last_seq": self.last_seq, "last_event_at": self.last_event_at, "events": self.events,
                "duplicates": self.duplicates, "missed": self.missed, "alarms": self.alarms()}


class FleetView:
    """Every board on one broker, kept up to date by paho's network thread."""

    def __init__(self, broker: BrokerAddress, username: str | None = None, password: str | None = None,
                 ca_file: str | None = None, client_id: str | None = None, keep_session: bool = False,
                 on_change: Callable[[str], None] | None = None, on_event: EventHook | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.broker = broker
        self._boards: dict[str, BoardSummary] = {}
        self._lock = threading.Lock()
        #: Called with a board id whenever that board's summary changed (on paho's thread: must not block).
        self.on_change = on_change
        #: Called for each new (de-duplicated) event, for the bench's latency count.
        self.on_event = on_event
        self._clock = clock
        self.connected = False
        self.subscribed = threading.Event()
        self.bad_messages = 0
        self.problems: collections.deque[str] = collections.deque(maxlen=20)
        # A client id of its own unless told (two dashboards with one id would push each other off).
        client_id = client_id or f"kipukas-dashboard-{os.getpid()}-{secrets.token_hex(3)}"
        self.client = make_client(client_id, broker, username, password, ca_file, keep_session)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        self.client.on_connect_fail = lambda client, userdata: self.problems.append(
            f"cannot reach {broker.url()} (is a broker listening there?)")

    def start(self) -> None:
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=KEEPALIVE_S)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def boards(self) -> list[dict[str, Any]]:
        with self._lock:
            return [b.to_json() for _, b in sorted(self._boards.items())]

    def board(self, board_id: str) -> dict[str, Any] | None:
        with self._lock:
            b = self._boards.get(board_id)
            return b.to_json() if b else None

    def _forget(self, board_id: str, kind: str) -> None:
        with self._lock:
            b = self._boards.get(board_id)
            if b is None:
                return
            if kind == "health":
                del self._boards[board_id]
            else:
                b.state = {}
        if self.on_change is not None:
            self.on_change(board_id)

    # -- paho's network thread ---------------------------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.problems.append(f"the broker refused the connection: {reason}")
            log.warning("fleet view: the broker refused the connection: %s", reason)
            return
        self.connected = True
        client.subscribe(topics.SUBSCRIBE_ALL)  # again on every connect: the session is not kept

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, props: Any) -> None:
        self.subscribed.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected = False
        self.subscribed.clear()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        where = topics.parse_topic(msg.topic)
        if where is None:
            return
        board_id, kind = where
        if not msg.payload and kind != "events":
            self._forget(board_id, kind)  # an empty retained message deletes it (a board retired)
            return
        try:
            doc = topics.decode(msg.payload, kind)
        except topics.MessageError as exc:
            self.bad_messages += 1
            self.problems.append(f"{msg.topic}: {exc}")
            return
        now = self._clock()
        new_event = None
        with self._lock:
            b = self._boards.get(board_id)
            if b is None:
                b = self._boards[board_id] = BoardSummary(board_id)
            if kind == "state":
                b.state = doc
            elif kind == "health":
                b.online = doc.get("online") is True
                if isinstance(doc.get("name"), str):
                    b.name = doc["name"][:80]
                if isinstance(doc.get("health"), dict):
                    b.health = doc["health"]
            else:
                seq = doc["seq"]
                if seq <= b.last_seq:
                    b.duplicates += 1
                else:
                    if b.last_seq:
                        b.missed += seq - b.last_seq - 1
                    b.last_seq, b.last_event_at = seq, now
                    b.events += 1
                    new_event = (seq, doc["ts"])  # a finite number: topics.decode refuses any other
        if new_event is not None and self.on_event is not None:
            self.on_event(board_id, new_event[0], new_event[1], now)
        if self.on_change is not None:
            self.on_change(board_id)
