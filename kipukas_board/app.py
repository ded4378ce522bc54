"""The assembled board: adapters chosen by the settings, the core loop, lighting, voice and page.

:class:`BoardApp` owns every thread of the one process that runs on the Pi (it alone touches the
GPIO, the serial port, the SPI bus and the cameras). ``kipukas-board run`` builds one and serves it;
tests build one on a temporary data directory and talk to it through Flask's test client or a real
waitress server.

Example::

    >>> from kipukas_board.app import BoardApp
    >>> from kipukas_board.settings import Settings
    >>> app = BoardApp(Settings().simulated(), data_dir="/tmp/kb", sim=True)   # doctest: +SKIP
    >>> app.start(); app.sim_set_stand("T1", True)                             # doctest: +SKIP
    True
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from kipukas_board import modes, strictjson
from kipukas_board.board.mapfile import BoardMap, available_maps, load_map, map_exists, parse_map
from kipukas_board.calibrate.board_test import BoardTestSession, faults_by_stand, for_board
from kipukas_board.calibrate.files import SavedFile, read_saved
from kipukas_board.calibrate.session import attach
from kipukas_board.cards.catalog import Catalog
from kipukas_board.cards.mode_catalog import ModeCards
from kipukas_board.cards.store import CardStore
from kipukas_board.core_loop import CoreLoop, MapBusy, MapChanged, StillQueued, Subscriber
from kipukas_board.hardware.cameras.simulated import SimulatedCamera
from kipukas_board.hardware.registry import build
from kipukas_board.hardware.sensors.port import SwitchChange
from kipukas_board.hardware.sensors.simulated import SimulatedStandSensors
from kipukas_board.modes.kipukas.rules.dice import Dice, SystemDice
from kipukas_board.settings import Settings
from kipukas_board.show.announcer import Announcer
from kipukas_board.show.layout import LayoutError, LedLayout, default_layout, map_calibration_path, with_strip_settings
from kipukas_board.show.lighting import Lighting, rgb_to_hex
from kipukas_board.store.backup import RollingBackup
from kipukas_board.store.identity import claim_journal
from kipukas_board.store.journal import Journal, JournalError, JournalWriteError
from kipukas_board.store.map_choice import JournaledPick, journaled_pick, read_choice, start_map, write_choice
from kipukas_board.table.events import map_event, stand_event
from kipukas_board.table.state import TableState
from kipukas_board.vision.desk import CameraWorker, CardDesk
from kipukas_board.web import (
    board_test_api,
    calibration_api,
    calibration_page,
    cards_api,
    event_log,
    map_list,
    page_frame,
    pin_routes,
    report_page,
    table_actions,
)
from kipukas_board.web import submit as submission
from kipukas_board.web.auth import PinStore
from kipukas_board.web.sse import Broadcaster

log = logging.getLogger(__name__)


RoutePlugin = Callable[[Any, "BoardApp"], None]

#: How often the health watcher looks for a part whose health changed.
HEALTH_POLL_S = 1.0
#: How long the sensors' thread waits for the busy core to journal a real switch's change before it
#: reads on (the change is still journaled in its turn).
SWITCH_WAIT_S = 10.0
#: Health keys whose change is worth telling the pages at once.
HEALTH_FLAG_KEYS = frozenset({"ok", "connected", "error", "last_error", "stuck", "chatter", "active"})


def health_flags(doc: Any, path: str = "") -> tuple[tuple[str, str], ...]:
    """The ``HEALTH_FLAG_KEYS`` values anywhere in a health document, as sorted (path, value) pairs.

    >>> health_flags({"sensors": {"ok": True, "frames_ok": 12}, "cameras": [{"ok": False}]})
    (('cameras.0.ok', 'False'), ('sensors.ok', 'True'))
    """
    out: list[tuple[str, str]] = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            where = f"{path}.{k}" if path else str(k)
            if k in HEALTH_FLAG_KEYS:
                out.append((where, repr(v) if not isinstance(v, str) else v))
            out.extend(health_flags(v, where))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.extend(health_flags(v, f"{path}.{i}"))
    return tuple(sorted(out))


def _mode_routes(app: Any, board: BoardApp) -> None:
    """Each game mode's own actions and page, the table's resume of a paused game, and the card
    routes that set a board up from the page (they read every mode's card files)."""
    from kipukas_board.modes import card_routes
    from kipukas_board.modes.routes import register_resume

    register_resume(app, board)
    card_routes.register(app, board)
    for mode in board.modes.values():
        mode.register_routes(app, board)


class BoardApp:
    """Everything the board runs, wired together. Raises ``MapError`` if the map does not load."""

    def __init__(self, settings: Settings, data_dir: str | Path, sim: bool = False,
                 admin_pin: str | None = None, dice: Dice | None = None, map_given: bool = False) -> None:
        # map_given: the map in the settings came from --map, which wins over a map picked on the page.
        self.settings = settings.simulated() if sim else replace(settings)
        self.sim = sim
        self.data_dir = Path(data_dir)
        # The journal is the truth: a pick it holds wins over map-choice.json, which a board stopped
        # between the two writes never got (see store/map_choice.py).
        pick = journaled_pick(self.data_dir)
        configured = self.settings.map
        board, start, overrides_pick = self._start_board(map_given, pick)
        s = self.settings
        #: Set while a map picked on the page cannot be lit until a restart (the strip's length is fixed).
        self.map_led_problem: str | None = None
        # the map's own calibration file (calibrate/files.py), read once: its LED layout (with the settings'
        # strip length and cap) sizes the strip, and the calibration session applies the rest of the same
        # reading. Read before anything is created, so a bad one is reported on a board left as it was.
        saved = self._read_calibration(board)
        layout = self._layout_for(board, saved)
        held = pick.key if pick is not None and start == pick.key else None
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.journal = Journal.in_dir(self.data_dir)
        self._report_lock = threading.Lock()
        self._map_lock = threading.Lock()  # map_picked: one pick's file written at a time
        self._report: tuple[int, dict[str, Any]] | None = None  # (journal length, the report then)
        try:  # another board's journal is refused before anything of it is replayed
            self.identity = claim_journal(self.journal, self.data_dir,
                                          name=s.fleet.board_id if s.fleet is not None else None)
        except JournalError:
            self.journal.close()
            raise
        #: The dice the routes roll into the events they write (the rules never roll).
        self.dice: Dice = dice or SystemDice()
        try:
            self.loop = CoreLoop(self.journal, board, rules=modes)
        except MapChanged:
            if held is None:
                raise
            # The rules refused the pick (a game started just before it): the table still holds the
            # game on its map, so start as if the pick had never been made.
            log.warning("map %s picked on the page (journal event %d) did not come onto the table (a game "
                        "held it); starting as without it", held, pick.seq if pick else 0)
            self.settings.map = configured
            board, start, overrides_pick = self._start_board(map_given, None)
            saved = self._read_calibration(board)
            layout = self._layout_for(board, saved)
            held = None
            self.loop = CoreLoop(self.journal, board, rules=modes)
        if overrides_pick:  # the journal runs on this map now: a later start comes back to it
            write_choice(self.data_dir, start)
        elif held is not None and read_choice(self.data_dir) != held:
            write_choice(self.data_dir, held)  # the pick the board stopped before keeping
        self.backup = RollingBackup(self.journal, self.data_dir)
        self.pins = PinStore(self.data_dir)
        self.generated_pin: str | None = None
        if admin_pin:
            self.pins.set(admin_pin)
            self.pins.managed = True  # set again on every start: the page must not change it (web/auth.py)
        elif not self.pins.is_set:
            self.generated_pin = self.pins.make_random()

        self.sensors = build("sensors", s.sensors.adapter, **s.sensors.options)
        strip_opts = dict(s.leds.options)
        strip_opts["count"] = layout.count
        strip_opts.setdefault("order", layout.order)
        self.strip = build("leds", s.leds.adapter, **strip_opts)
        self.voice = build("voice", s.voice.adapter, **s.voice.options)
        self.cameras = [build("cameras", c.adapter, **c.options) for c in s.cameras]
        # The desk turns decoded frames into card events; one worker thread per camera that gives
        # frames is started by start() and stopped by stop().
        #: The games the board runs (kipukas_board.modes), and the cards of the modes' TOML card files.
        self.modes = modes.MODES
        self.card_store = CardStore.in_dir(self.data_dir)
        self.mode_cards = ModeCards(self.card_store)
        self.card_desk = CardDesk(Catalog(self.card_store), submit=self.loop.submit,
                                  mode_cards=self.mode_cards, mode_prefixes=modes.payload_prefixes(),
                                  budget_ms=s.budget_ms)
        self.card_workers: list[CameraWorker] = []
        self.lighting = Lighting(self.strip, layout, healthy=self._hardware_ok, game=modes)
        self.announcer = Announcer(self.voice, say_for=modes.phrases_for)
        #: The latest sentences spoken, as captions for the page (``captions`` in ``/api/state``).
        self.captions: deque[dict[str, Any]] = deque(maxlen=8)
        self.broadcaster = Broadcaster()
        #: channel → stand id; None means the channel *is* the stand id (simulation, GPIO by name).
        self.channel_map: dict[str, str] | None = None
        self.unmapped_channels: dict[str, bool] = {}
        #: Functions ``register(flask_app, board_app)`` that add routes (actions, cards, calibration).
        self.route_plugins: list[RoutePlugin] = [table_actions.register, cards_api.register, page_frame.register,
                                                 pin_routes.register, map_list.register, event_log.register,
                                                 report_page.register, calibration_page.register,
                                                 calibration_api.register, _mode_routes,
                                                 board_test_api.register]
        self._started = False
        self._lock = threading.Lock()
        # Raw switch listeners: a listener returning True keeps the change from the game (the
        # calibration walk does, while it holds the switches).
        self.switch_listeners: list[Callable[[SwitchChange], bool | None]] = []
        #: Extra parts of :meth:`health`, by name (e.g. the calibration walk says when it holds the switches).
        self.health_sources: dict[str, Callable[[], dict[str, Any]]] = {}
        self._health_stop = threading.Event()
        self._publish_lock = threading.RLock()
        self._published_seq = -1
        self._health_thread = threading.Thread(target=self._watch_health, name="health-watch", daemon=True)
        self.calibration = attach(self, saved)
        self.board_test = BoardTestSession(self, busy=self._walk_open)
        self.switch_listeners.append(self.board_test.on_switch)
        self.health_sources["board_test"] = self.board_test.health
        from kipukas_board.fleet.board import attach as join_fleet

        #: Publishes to the event's MQTT broker when the settings have [fleet]; None otherwise.
        self.fleet = join_fleet(self, health_key=health_flags)

    def _read_calibration(self, board: BoardMap) -> SavedFile:
        """``board``'s calibration file, read once and accepted or refused whole by its loader (a refusal
        is logged here, when it is read; the calibration session shows it on the pages)."""
        saved = read_saved(map_calibration_path(self.settings.calibration, self.data_dir, board), board)
        if saved.problem is not None:
            log.error("calibration not applied, the LEDs light the default layout: %s", saved.problem)
        return saved

    def _layout_for(self, board: BoardMap, saved: SavedFile) -> LedLayout:
        """The LED layout of ``board``'s calibration file when the loader accepted it; the default
        layout when there is none, the file was refused, or the settings' strip cannot hold its layout.
        The calibration session shows why on the pages (``health.calibration``) from the same reading."""
        try:
            return saved.strip_layout(board, self.settings)
        except LayoutError as exc:
            log.error("LED layout not applied, using the default: %s", exc)
            try:
                return with_strip_settings(default_layout(board), self.settings)
            except LayoutError:
                return default_layout(board)

    @property
    def state(self) -> TableState:
        """The table's state now (the core loop's latest)."""
        return self.loop.state

    def submit(self, event: dict[str, Any], wait: bool = True, timeout: float = 10.0,
               tap: str | None = None) -> int | None:
        """Journal and apply ``event`` (:meth:`CoreLoop.submit <kipukas_board.core_loop.CoreLoop.submit>`):
        with ``wait``, its journal number once it is durable and applied."""
        return self.loop.submit(event, wait, timeout, tap)

    def core_alive(self) -> bool:
        """Is the core thread running (it has woken within its heartbeat)?"""
        return self.loop.alive()

    @property
    def unapplied(self) -> list[str]:
        """Stored events the rules could not apply since the last new game (the health says them)."""
        return list(self.loop.unapplied)

    def subscribe(self, fn: Subscriber) -> None:
        """Call ``fn(state, effects)`` on the core thread after each event (the fleet's publisher)."""
        self.loop.subscribe(fn)

    def publish(self, event: str, data: str) -> None:
        """Send one server-sent event (``event``, its ``data`` text) to every open page."""
        self.broadcaster.publish(event, data)

    @property
    def layout(self) -> LedLayout:
        """The LED layout in use: the lighting's own, which a calibration save swaps whole
        (:meth:`Lighting.set_layout`), so the board and its lights never hold two different ones."""
        return self.lighting.layout

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> None:
        state = self.loop.state
        self._lit_map = state.board
        if isinstance(self.sensors, SimulatedStandSensors):
            # After a restart the simulated switches start where the journal left the tokens.
            for sid, on in state.switches.items():
                if on:
                    self.sensors.set(sid, True)
        self.loop.subscribe(self._follow_map)  # before the lighting: it must never light a map by another's layout
        self.loop.subscribe(self.lighting.update)
        self.loop.subscribe(self._speak)  # before publishing, so the page gets the captions with the state
        self.loop.subscribe(self._publish)
        self.loop.subscribe(self.card_desk.follow)
        self.card_desk.remember(state.cards)
        self.loop.start()
        self.lighting.start(state)
        self.sensors.start(self._on_switch)
        self._reconcile()
        self.card_workers = [CameraWorker(cam, self.card_desk) for cam in self.cameras
                             if not isinstance(cam, SimulatedCamera)]
        if self.card_workers:
            self.card_desk.decoders()  # a missing decoder is logged when the cameras start
        for worker in self.card_workers:
            worker.start()
        if self.fleet is not None:
            self.fleet.start()
        self._started = True
        self._health_thread.start()
        self.backup.start()

    def stop(self) -> None:
        parts = (self._stop_health_watch, self.sensors.stop, *[w.stop for w in self.card_workers], self.loop.stop,
                 self.lighting.stop,
                 self.broadcaster.close, self.voice.close, *[c.close for c in self.cameras],
                 *([self.fleet.stop] if self.fleet is not None else []),  # it reads the journal: before its close
                 self.card_desk.close, self.card_store.close, self.backup.stop,
                 self.backup.run_once, self.journal.close)
        for part in parts:
            try:
                part()
            except Exception:
                log.exception("while stopping %r", part)

    # -- the map -------------------------------------------------------------------------------
    def _start_board(self, map_given: bool, pick: JournaledPick | None) -> tuple[BoardMap, str, bool]:
        """The map to start on (:func:`~kipukas_board.store.map_choice.start_map`, with the pick the
        journal holds), its name, and whether it overrides a pick (then it is kept as the map to come
        back to once journaled). ``self.settings.map`` is set to the name when it is not the settings'."""
        held = pick.key if pick is not None else None
        start, why = start_map(self.settings.map, self.data_dir, map_given, journaled=held,
                               exists=lambda name: map_exists(name) or name == held)
        overrides_pick = why is not None and start == self.settings.map  # --map, or a pick no longer there
        if why:
            log.warning("%s", why)
            self.settings.map = start
        if pick is not None and start == pick.key and not map_exists(start):
            log.warning("map %s picked on the page (journal event %d) is no longer shipped; starting on the "
                        "journal's copy of it", start, pick.seq)
            return parse_map(pick.toml, source=pick.path or start, new=False), start, overrides_pick
        # Not new=True here: a map the journal already holds must still start the board; the core
        # applies the limits of a map coming to the board when it journals one (CoreLoop._rebuild).
        return load_map(self.settings.map, new=False), start, overrides_pick

    def map_busy(self, state: TableState | None = None) -> str | None:
        """Why the map may not change now (a game under way, a calibration walk or board test open)."""
        state = state or self.loop.state
        holder = modes.holding_the_map(state)
        if holder is not None:
            mode, is_paused = holder
            return (f"{mode.a_game} is under way on {state.board.name}{modes.PAUSED_NOTE if is_paused else ''}; "
                    f"the map changes only when no game runs (end the game first)")
        walk = self._walk_open()
        if walk is not None:
            return f"{walk}; finish or close it first (it was started for this map)"
        if self.board_test.test is not None:
            return "the board test is running; stop it first"
        return None

    def pick_map(self, name: str) -> int:
        """Switch the running board to the shipped map ``name`` (new game, while no game runs).

        The pick is an input: it is journaled as a ``map`` event first (replay starts the board on it
        the same way a start does), then the core's subscriber :meth:`_follow_map` gives the lights
        and the sensors that map's own calibration, and :meth:`map_picked` keeps the pick. Returns the
        event's journal number. Raises ``ValueError`` for a map that is not shipped and :class:`MapBusy`
        while a game runs (the rules core refuses it too, should a game start in between).
        """
        seq = self.submit_map(name)
        self.map_picked(name, seq)
        return seq

    def submit_map(self, name: str, timeout: float = 10.0, tap: str | None = None) -> int:
        """The first half of :meth:`pick_map`: journal and apply the ``map`` event for ``name``
        (``tap``: the phone's tap that sent it); its journal number. Raises what :meth:`pick_map`
        does, and :class:`~kipukas_board.core_loop.StillQueued` when the busy core has not done it
        within ``timeout`` seconds: then :meth:`map_picked` is still owed once it is done."""
        shipped = available_maps()
        if name not in shipped:
            raise ValueError(f"no shipped map {name!r:.60}; the board ships {', '.join(shipped)}")
        why = self.map_busy()
        if why is not None:
            raise MapBusy(why)
        board = load_map(name)
        seq = self.loop.submit(map_event(board.name, board.source_text or "", board.source, picked=name),
                               timeout=timeout, tap=tap)
        assert seq is not None  # waited for
        return seq

    def map_picked(self, name: str, seq: int) -> None:
        """The second half of :meth:`pick_map`, once its event (journal number ``seq``) is done, in
        time or late: the pick written to the data directory, so a restart comes back on it
        (:mod:`kipukas_board.store.map_choice`), and the switches read again through the new map's
        channel map. :class:`MapBusy` when the map did not come onto the table (the rules refused it)."""
        with self._map_lock:  # two picks finishing at once: the one that sees the table last writes last
            now = self.loop.state.board
            if now.structure() != load_map(name).structure():
                problems = self.loop.state.problems
                raise MapBusy(problems[-1] if problems else f"the board stays on {now.name}")
            write_choice(self.data_dir, name)
        log.info("map %s picked on the page (journal event %d)", name, seq)
        self._reconcile()  # a real board's switches, read through the new map's channel map

    def _follow_map(self, state: TableState, effects: list[dict[str, Any]]) -> None:
        """On the core thread, when a ``map`` event put another map on the table: that map's LED layout,
        channel map and calibration, before the lighting sees the new state."""
        if not any(e.get("type") == "map" for e in effects) or state.board.structure() == self._lit_map.structure():
            return
        self._lit_map = state.board
        if isinstance(self.sensors, SimulatedStandSensors):
            self.sensors.clear()  # the simulated hand starts the new map bare, as the journal does
        self.channel_map = None
        self.unmapped_channels.clear()
        saved = self._read_calibration(state.board)
        layout = self._layout_for(state.board, saved)
        self.map_led_problem = None
        strip = self.strip.count
        if layout.count > strip and self.lighting.can_resize():
            self.lighting.set_length(layout.count)
            strip = layout.count
        if layout.count > strip:
            self.map_led_problem = (f"map {state.board.name} needs {layout.count} LEDs and the strip was started "
                                    f"with {strip}: restart the board to light it (it restarts on this map)")
            log.error("%s", self.map_led_problem)
            layout = LedLayout(territories={}, length=strip, source="dark until a restart")
        self.lighting.set_layout(replace(layout, length=strip), state)
        self.calibration.follow_map(saved)

    # -- inputs ----------------------------------------------------------------------------------
    def stand_for(self, channel: str) -> str | None:
        stands = self.loop.state.board.stands
        if self.channel_map is None:
            return channel if channel in stands else None
        sid = self.channel_map.get(channel)
        return sid if sid in stands else None

    def _on_switch(self, change: SwitchChange) -> None:
        for listener in self.switch_listeners:
            if listener(change):
                return
        sid = self.stand_for(change.channel)
        if sid is None:
            self.unmapped_channels[change.channel] = change.closed
            return
        source = "sim" if self.sim else "sensor"
        # The simulated hand is the page's (POST /api/sim/stands): it waits as the page's actions do,
        # under the page's own wait for an answer.
        wait_s = submission.WAIT_S if isinstance(self.sensors, SimulatedStandSensors) else SWITCH_WAIT_S
        try:
            self.loop.submit(stand_event(sid, change.closed, source), timeout=wait_s)
        except StillQueued:  # journaled in its turn: the token did move, and the switch stays as it is
            log.warning("switch %s (stand %s): the busy core will journal it in its turn", change.channel, sid)
        except JournalWriteError as exc:
            if isinstance(self.sensors, SimulatedStandSensors):
                raise  # the simulated hand is refused and its switch put back (the page is told why)
            # A real token did move: it is journaled by the reconcile once the journal writes again.
            log.error("switch %s (stand %s) not journaled yet: %s", change.channel, sid, exc)

    def _walk_open(self) -> str | None:
        """Why the board test may not start: a calibration walk holds the switches or the strip."""
        if self.calibration.sensors is not None:
            return "the sensor walk is open"
        if self.calibration.leds is not None:
            return "the LED walk is open"
        return None

    def resync(self) -> None:
        """Make the game agree with the switches as they are now (after a board test, say)."""
        self._reconcile()

    def _reconcile(self) -> None:
        """Make the state agree with the switches as they are now (after a restart or a gap)."""
        state = self.loop.state
        for channel, closed in self.sensors.snapshot().items():
            # Through the switch listeners, as a live change would go: an open sensor walk takes them.
            if any(listener(SwitchChange(channel, closed)) for listener in self.switch_listeners):
                continue
            sid = self.stand_for(channel)
            if sid is not None and state.switches[sid] != closed:
                self.loop.submit(stand_event(sid, closed, "resync"))

    def sim_set_stand(self, stand_id: str, occupied: bool) -> bool:
        """Act as a token placed on / lifted from ``stand_id`` (simulation); True if it changed."""
        if not isinstance(self.sensors, SimulatedStandSensors):
            raise RuntimeError("the stand sensors are not simulated")
        return self.sensors.set(stand_id, occupied)

    #: The parts :meth:`sim_stop_part` can stop: the threads :meth:`liveness` always names.
    stoppable_parts: tuple[str, ...] = ("core", "lighting")

    def sim_stop_part(self, part: str) -> None:
        """Stop ``part``'s thread as a crash would (``POST /api/sim/faults``, simulation only), so the
        watchdog and the page's health can be seen to turn red; ``ValueError`` for a part not in
        :attr:`stoppable_parts`."""
        stops = {"core": self.loop.stop, "lighting": self.lighting.stop}
        if part not in stops:
            raise ValueError(f"part = {part!r} cannot be stopped; expected one of {', '.join(self.stoppable_parts)}")
        stops[part]()

    def liveness(self) -> dict[str, bool]:
        """Is every thread of the board alive? ``{"core": True, "lighting": True, ...}``.

        The systemd watchdog (:mod:`kipukas_board.service`) pings only while all are True. Besides
        the core loop and the lighting thread, any adapter with an ``alive() -> bool`` method (one
        that runs a thread of its own) is included; one whose ``alive()`` raises counts as dead.
        """
        parts: dict[str, bool] = {"core": self.loop.alive(), "lighting": self.lighting.alive()}
        adapters: list[tuple[str, Any]] = [("sensors", self.sensors), ("leds", self.strip), ("voice", self.voice)]
        adapters += [(f"camera-{getattr(c, 'seat', i + 1)}", c) for i, c in enumerate(self.cameras)]
        adapters += [(f"camera-worker-{w.camera.seat}", w) for w in self.card_workers]
        for name, adapter in adapters:
            alive = getattr(adapter, "alive", None)
            if callable(alive):
                try:
                    parts[name] = bool(alive())
                except Exception:
                    log.exception("%s.alive() failed", name)
                    parts[name] = False
        return parts

    # -- outputs ---------------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        h: dict[str, Any] = {
            "core": {"ok": self.loop.alive()},
            "journal": self.journal_health(),
            "sensors": self.sensors.health(),
            "leds": {**self.lighting.health(), "ok": self.lighting.alive() or not self._started},
            "voice": self.voice.health(),
            "cameras": [c.health() for c in self.cameras],
            "decoders": self.card_desk.decoders(),
            "stream_clients": self.broadcaster.clients(),
        }
        if self.unmapped_channels:
            h["sensors"] = {**h["sensors"], "unmapped_channels": sorted(self.unmapped_channels)}
        wiring = h["sensors"].get("wiring") if isinstance(h["sensors"], dict) else None
        if isinstance(wiring, dict) and wiring.get("faults"):
            h["sensors"] = {**h["sensors"], "wiring": {**wiring, "faults": self._faults_by_stand(wiring["faults"])}}
        for name, source in self.health_sources.items():
            h[name] = source()
        return h

    def _faults_by_stand(self, faults: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The sensor board's wiring faults, each with the stand its channel is (or None)."""
        try:
            return faults_by_stand(faults, for_board(self))
        except Exception:  # health is informative: a half-started board still reports the faults
            log.exception("mapping wiring faults to stands failed")
            return faults

    def journal_health(self) -> dict[str, Any]:
        """The journal's health: it cannot record while its last write failed (the journal's own
        record, or the core's, which also sees a failure outside SQLite), until a write goes through."""
        h = {**self.journal.health(), "backup": self.backup.health(), "board": self.identity.to_json()}
        error = self.journal.write_error or self.loop.journal_error
        if error:
            h.update(ok=False, recording=False, error=error)
        return h

    def _stop_health_watch(self) -> None:
        self._health_stop.set()
        if self._health_thread.is_alive():
            self._health_thread.join(2 * HEALTH_POLL_S)

    def _watch_health(self) -> None:
        """Push the state to the pages when a part's health flips (a sensor link drops, a camera fails).

        State changes already carry the health; this covers the quiet moments in between, so a page
        shows an unplugged sensor board within about a second. Counters that tick all the time
        (frames, heartbeat age) do not count as a change.
        """
        last = None
        while not self._health_stop.wait(HEALTH_POLL_S):
            if (self.journal.write_error or self.loop.journal_error) and self.journal.probe():
                log.warning("the journal can be written again")
                self.loop.journal_error = None
                self._reconcile()  # switch changes refused meanwhile are journaled now
            try:
                flags = health_flags(self.health())
            except Exception:
                log.exception("reading the hardware's health failed")
                continue
            if last is not None and flags != last:
                with self._publish_lock:  # read the state inside the lock: the newest, never a stale one
                    state = self.loop.state
                    self._publish(state, [])
            last = flags

    def lights_json(self) -> dict[str, Any]:
        frame = self.lighting.frame()
        lay = self.layout
        return {
            "territories": {str(n): rgb_to_hex(frame[px[0]]) for n, px in lay.territories.items() if px},
            "stands": {sid: rgb_to_hex(frame[px[0]]) for sid, px in lay.stands.items() if px},
        }

    def game_report(self) -> dict[str, Any]:
        """``GET /report``: the game on the table, its journal replayed through its mode's rules.

        Made once per journal length and one at a time: a replay of a long journal takes the whole
        journal into memory and seconds of CPU, and anyone on the network may ask for the page.
        """
        with self._report_lock:
            seq = self.journal.last_seq()
            if self._report is None or self._report[0] != seq:
                self._report = (seq, modes.game_report(self.journal.rows(), self.loop.state.board))
            return self._report[1]

    def state_json(self, state: TableState | None = None) -> dict[str, Any]:
        doc = modes.state_json(state or self.loop.state)
        doc["captions"] = list(self.captions)
        doc["health"] = self.health()
        doc["lights"] = self.lights_json()
        doc["sim"] = self.sim
        doc["map_busy"] = self.map_busy(state)
        playing = modes.active(state or self.loop.state)
        doc["under_way"] = ({"game": playing.name, "title": playing.title, "a_game": playing.a_game}
                            if modes.game_in_progress(state or self.loop.state) else None)
        return doc

    def _publish(self, state: TableState, effects: list[dict[str, Any]]) -> None:
        """Send ``state`` to the pages. The core thread and the health watcher both publish, so one
        lock keeps them in order and an older state never follows a newer one."""
        with self._publish_lock:
            if state.seq < self._published_seq:
                return  # the core published a newer state while this one waited
            self._published_seq = state.seq
            self.broadcaster.publish("state", strictjson.sent_dumps(self.state_json(state)), state.seq)

    def _speak(self, state: TableState, effects: list[dict[str, Any]]) -> None:
        for text in self.announcer.announce(state, effects):
            self.captions.append({"seq": state.seq, "text": text, "game": state.game})

    def _hardware_ok(self) -> bool:
        """For the lighting's fault indicator: every port but the LEDs themselves reports ok."""
        if not self._started:
            return True
        parts = [self.sensors.health(), self.voice.health(), *[c.health() for c in self.cameras]]
        return self.loop.alive() and all(p.get("ok", True) for p in parts)
