"""The board's side of the fleet: its journal, state and health, published to an MQTT broker.

The game never waits for the broker. The core thread only marks that something changed
(:meth:`FleetPublisher.notify`); one publisher thread of its own reads the journal and hands events
to paho-mqtt, whose network thread sends them. So a broker that is slow, away or unreachable
costs the game nothing.

Events are read from the journal, not from memory: the thread keeps at most ``window`` events handed
to paho and not yet acknowledged, and moves a durable cursor (:class:`~kipukas_board.fleet.cursor.AckCursor`)
over the events whose PUBACK came back, in order. paho resends what was in flight when a connection
drops; a board that restarts starts from its cursor. Either way the broker gets every event in
order, none skipped, some perhaps twice (consumers de-duplicate by board and seq).

The state and health topics are retained and carry only the latest: they are published when the
link comes up and when they change, never queued while the broker is away.

Example (not run as a doctest: it needs a journal, its cursor and an MQTT broker;
``tests/fleet/test_fleet_publish.py`` runs it against a real Mosquitto)::

    >>> pub = FleetPublisher(journal, cursor, client, broker, "table-07", "Table 7",
    ...                      state_doc=lambda: {}, health_doc=lambda: {})      # doctest: +SKIP
    >>> pub.start(); core_loop.subscribe(pub.notify)                         # doctest: +SKIP
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from kipukas_board.fleet import topics
from kipukas_board.fleet.cursor import AckCursor
from kipukas_board.fleet.mqtt import KEEPALIVE_S
from kipukas_board.settings import BrokerAddress
from kipukas_board.store.journal import Journal

log = logging.getLogger(__name__)

Doc = Callable[[], dict[str, Any]]


class FleetPublisher:
    """Publishes one board to one broker. :meth:`start`, :meth:`notify` on every change, :meth:`stop`."""

    #: Events handed to paho and not yet acknowledged, at most (bounds memory during an outage).
    WINDOW = 200
    #: Seconds between saves of the acknowledged cursor while it moves (each is an fsync; a crash
    #: between two saves only means the events acknowledged since are sent again).
    SAVE_EVERY_S = 1.0
    #: The retained state (the whole /api/state, tens of kilobytes) goes out at most this often; a
    #: burst of events sends the latest state once. Events themselves are never held back.
    STATE_EVERY_S = 0.25
    #: How often the thread looks at the board's health for a flag that flipped.
    HEALTH_POLL_S = 1.0
    #: Health is published at least this often, so counters and ages on the dashboard stay fresh.
    HEALTH_REFRESH_S = 30.0
    #: After a reconnect, how long the events paho resends may take to be acknowledged before the
    #: publisher gives up on them and sends again from its cursor.
    RESUME_WAIT_S = 30.0
    #: The fleet link is not ok once the oldest event the broker has not acknowledged has waited
    #: this long (seconds): a broker that takes events and never acknowledges them delivers nothing.
    #: The default of ``[fleet] unacked_limit_s``.
    UNACKED_LIMIT_S = 60.0
    #: Journal marks kept for the ages of waiting events (a mark per change the thread saw).
    MAX_MARKS = 4096

    def __init__(self, journal: Journal, cursor: AckCursor, client: mqtt.Client, broker: BrokerAddress,
                 board_id: str, name: str, state_doc: Doc, health_doc: Doc,
                 health_key: Callable[[dict[str, Any]], Any] = lambda h: h,
                 clock: Callable[[], float] = time.monotonic,
                 unacked_limit_s: float = UNACKED_LIMIT_S) -> None:
        self.journal = journal
        self.cursor = cursor
        self.client = client
        self.broker = broker
        self.board_id = board_id
        self.name = name
        self._state_doc = state_doc
        self._health_doc = health_doc
        self._health_key = health_key
        self._clock = clock
        self._topic = {kind: topics.topic_for(board_id, kind) for kind in topics.KINDS}
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fleet-publisher", daemon=True)
        # Written by paho's network thread, read by ours: a deque and plain flags need no lock.
        self._acked_mids: collections.deque[int] = collections.deque()
        self._connected = False
        self._link_changed = False
        # Set on each connect: paho resends what was in flight only after telling us it is connected,
        # so new events wait until those are acknowledged (or order on the wire could break).
        self._resuming = False
        self._resumed_at = 0.0
        # Only the publisher thread touches these.
        self._inflight: dict[int, int] = {}      # mid -> seq of the events handed to paho
        self._acked_ahead: set[int] = set()      # seqs acknowledged past a gap still in flight
        self._acked = self._saved = self._sent = 0
        self._saved_at = 0.0
        self._state_dirty = True
        self._state_at = float("-inf")
        self._health_dirty = True
        self._health_last: Any = None
        self._health_at = self._health_polled = float("-inf")
        # (last journal seq, when this thread first saw it): how long each waiting event has waited,
        # by the monotonic clock; marks the broker acknowledged are dropped.
        self._marks: collections.deque[tuple[int, float]] = collections.deque()
        self.unacked_limit_s = unacked_limit_s  #: ``[fleet] unacked_limit_s`` in the settings
        self.last_error: str | None = None
        self.connects = 0
        self.published = 0
        client.will_set(self._topic["health"], topics.OFFLINE, qos=1, retain=True)
        client.max_inflight_messages_set(self.WINDOW + 10)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_connect_fail = self._on_connect_fail

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> None:
        acked = self.cursor.load()
        last = self.journal.last_seq()
        if acked > last:
            # A new journal (the old one moved aside): its events were never published.
            log.warning("fleet: the broker acknowledged up to event %d but the journal ends at %d; "
                        "publishing this journal from its first event", acked, last)
            acked = 0
            self.cursor.save(0)
        self._acked = self._saved = self._sent = acked
        self._saved_at = self._clock()
        self._mark(last)
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=KEEPALIVE_S)
        self.client.loop_start()
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Say goodbye (health offline, retained), save the cursor, close. Waits ``timeout`` at most."""
        self._stopping.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        try:
            if self._connected:
                info = self.client.publish(self._topic["health"], topics.dumps({"online": False, "reason": "stopped"}),
                                           qos=1, retain=True)
                info.wait_for_publish(timeout)
            self._take_acks()
            self._save(force=True)
        except Exception:
            log.exception("fleet: while saying goodbye to the broker")
        self.client.disconnect()
        self.client.loop_stop()
        self.cursor.close()

    def alive(self) -> bool:
        return self._thread.is_alive()

    def notify(self, state: Any = None, effects: Any = None) -> None:
        """A core subscriber: something was journaled. Never blocks."""
        self._state_dirty = True
        self._wake.set()

    # -- paho's network thread ---------------------------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.last_error = f"the broker refused the connection: {reason}"
            log.warning("fleet: %s", self.last_error)
            return
        self._resuming = True
        self._resumed_at = 0.0
        self._connected = True
        self._link_changed = True
        self.connects += 1
        self.last_error = None
        log.info("fleet: connected to %s as %s", self.broker.url(), self.board_id)
        self._wake.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if self._connected and not self._stopping.is_set():
            log.warning("fleet: lost the broker %s (%s); events wait in the journal", self.broker.url(), reason)
            self.last_error = f"disconnected: {reason}"
        self._connected = False
        self._link_changed = True

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self.last_error = f"cannot reach {self.broker.url()}"

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        self._acked_mids.append(mid)
        self._wake.set()

    # -- the publisher thread ----------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stopping.is_set():
            # Back sooner while an acknowledged cursor or a changed state waits its turn.
            timeout = self.SAVE_EVERY_S if self._acked != self._saved else self.HEALTH_POLL_S
            self._wake.wait(min(timeout, self.STATE_EVERY_S) if self._state_dirty else timeout)
            self._wake.clear()
            if self._stopping.is_set():
                break
            try:
                self._step()
            except Exception as exc:  # a journal read that failed, a bug: say so and keep trying
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.exception("fleet: publishing failed")

    def _mark(self, last: int) -> None:
        """Note that events up to ``last`` exist now (the start of their wait for a PUBACK)."""
        while self._marks and self._marks[0][0] <= self._acked:
            self._marks.popleft()
        if last > self._acked and (not self._marks or last > self._marks[-1][0]) and len(self._marks) < self.MAX_MARKS:
            self._marks.append((last, self._clock()))

    def oldest_unacked_s(self) -> float:
        """How long (seconds) the oldest event the broker has not acknowledged has waited (0.0: none)."""
        acked = self._acked
        for seq, seen in list(self._marks):
            if seq > acked:
                return max(0.0, self._clock() - seen)
        return 0.0

    def _step(self) -> None:
        self._mark(self.journal.last_seq())
        self._take_acks()
        try:
            self._publish()
        finally:
            self._save()  # after publishing: its fsync must not hold up the events waiting to go

    def _publish(self) -> None:
        if self._link_changed:
            self._link_changed = False
            self._health_dirty = self._state_dirty = True
        if not self._connected:
            return
        now = self._clock()
        health: dict[str, Any] | None = None
        if self._health_dirty or now - self._health_polled >= self.HEALTH_POLL_S:  # not on every event
            self._health_polled = now
            health = self._health_doc()
            key = self._health_key(health)
            if key != self._health_last or now - self._health_at >= self.HEALTH_REFRESH_S:
                self._health_dirty = True
        if self._state_dirty and now - self._state_at >= self.STATE_EVERY_S:
            self._state_dirty = False
            self._state_at = now
            self.client.publish(self._topic["state"], topics.dumps(self._state_doc()), qos=1, retain=True)
        if self._health_dirty and health is not None:
            self._health_dirty = False
            self._health_last, self._health_at = key, now
            self.client.publish(self._topic["health"], topics.dumps(self.health_message(health)), qos=1, retain=True)
        self._publish_events()

    def _publish_events(self) -> None:
        if self._resuming:
            now = self._clock()
            if not self._inflight or self._resumed_at == 0.0:
                self._resumed_at = now
            if self._inflight and now - self._resumed_at < self.RESUME_WAIT_S:
                return  # paho is resending these first; their PUBACKs wake us
            if self._inflight:
                # Never answered: hand the journal from the cursor to paho again (a consumer may see
                # some twice, which de-duplication by seq absorbs).
                log.warning("fleet: %d events in flight were not acknowledged after reconnecting; "
                            "sending again from event %d", len(self._inflight), self._acked + 1)
                self._inflight.clear()
                self._acked_ahead.clear()
                self._sent = self._acked
            self._resuming = False
            self._resumed_at = 0.0
        room = self.WINDOW - len(self._inflight)
        if room <= 0:
            return
        for seq, ts, event in self.journal.rows(self._sent, limit=room):
            info = self.client.publish(self._topic["events"], topics.encode_event(seq, ts, event), qos=1)
            if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):  # NO_CONN: queued, sent on reconnect
                self.last_error = f"paho refused event {seq}: {mqtt.error_string(info.rc)}"
                return
            self._inflight[info.mid] = seq
            self._sent = seq
            self.published += 1
        if len(self._inflight) >= self.WINDOW or self._sent < self.journal.last_seq():
            self._wake.set()  # more to read once acknowledgements make room

    def _take_acks(self) -> None:
        """Move the cursor over the events the broker acknowledged, never past one still in flight."""
        while self._acked_mids:
            seq = self._inflight.pop(self._acked_mids.popleft(), None)
            if seq is not None:  # None: a state or health message
                self._acked_ahead.add(seq)
        while self._acked + 1 in self._acked_ahead:
            self._acked += 1
            self._acked_ahead.discard(self._acked)

    def _save(self, force: bool = False) -> None:
        now = self._clock()
        if self._acked != self._saved and (force or now - self._saved_at >= self.SAVE_EVERY_S):
            self.cursor.save(self._acked)
            self._saved, self._saved_at = self._acked, now

    # -- what it says ------------------------------------------------------------------------------
    def health_message(self, health: dict[str, Any]) -> dict[str, Any]:
        return {"online": True, "board_id": self.board_id, "name": self.name, "health": health}

    def health(self) -> dict[str, Any]:
        """The fleet link, for the board's own ``/api/state`` health: ok only while connected *and*
        no event has waited for the broker's acknowledgement longer than :attr:`unacked_limit_s`
        (connected alone says nothing of a broker that takes events and never acknowledges them)."""
        last = self.journal.last_seq()
        waited = self.oldest_unacked_s()
        stuck = waited > self.unacked_limit_s
        error = self.last_error
        if stuck:
            error = (f"event {self._acked + 1} has waited {waited:.0f} s for the broker's acknowledgement "
                     f"(limit {self.unacked_limit_s:g} s); {max(0, last - self._acked)} events wait"
                     + (f"; {self.last_error}" if self.last_error else ""))
        return {"ok": self._connected and not stuck, "connected": self._connected, "broker": self.broker.url(),
                "board_id": self.board_id, "acked_seq": self._acked, "backlog": max(0, last - self._acked),
                "oldest_unacked_s": round(waited, 1), "unacked_limit_s": self.unacked_limit_s,
                "last_error": error}
