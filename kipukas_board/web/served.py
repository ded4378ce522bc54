"""What the page's routes use of the board they serve: small protocols, so no route names the board's class.

Every route module (the web layer's, and each game mode's actions and pages) is handed the running
board, but each declares only the part of it that it uses, built from the groups below (gpiozero's
devices know their pin factory, not the whole board):

- :class:`TableView`: the table's state, the state document, whether the board is simulated; the
  routes that only show the table;
- :class:`Changes`: following the table's changes (the log's narration);
- :class:`Table`: both, and submitting an event and the dice a route rolls; every route that acts
  on the table (:class:`~kipukas_board.web.submit.Submitter` needs no more);
- :class:`Games`: the games the board runs and their imported decks;
- :class:`Guarded`: the admin PIN (:func:`~kipukas_board.web.server.require_pin`);
- :class:`Records`: the journal, its health, the events it could not apply, the game's report;
- :class:`CardsSeen`: the card desk and the cameras;
- :class:`MapChoice`: why the map may not change, and changing it;
- :class:`Workshop`: the calibration walk and the board test;
- :class:`Files`: the settings and the data directory;
- :class:`Streams`: the pages' event streams.
- :class:`Threads`: whether each of the board's threads is alive, and stopping one as a crash would
  (the simulated faults of :func:`kipukas_board.service.register_sim_faults`).

:class:`GameRoutes` is what every game mode's routes share (table, games, PIN). A route module that
needs more declares its own protocol from these next to its ``register`` (e.g.
:class:`kipukas_board.web.event_log.EventLogBoard`); ``tests/web/test_route_protocols.py`` fails when a
route uses a member its protocol lacks. :class:`ServedBoard` is all of them together, plus what
only the app factory (:func:`~kipukas_board.web.server.create_app`) uses: it is what the board
hands the app. The assembled board (:class:`kipukas_board.app.BoardApp`) implements it; the web
layer never imports the board's module, not even for type checking. The core loop itself stays
the board's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from kipukas_board.calibrate.board_test import BoardTestSession
    from kipukas_board.calibrate.session import CalibrationSession
    from kipukas_board.cards.mode_catalog import ModeCards
    from kipukas_board.core_loop import Subscriber
    from kipukas_board.settings import Settings
    from kipukas_board.show.lighting import Lighting
    from kipukas_board.store.journal import Journal
    from kipukas_board.vision.desk import CardDesk
    from kipukas_board.web.auth import PinStore
    from kipukas_board.web.sse import Broadcaster


class Dice(Protocol):
    """What a route rolls with (the board's system dice, a test's scripted or seeded ones): the web
    layer declares only this, and names no game's module."""

    def roll(self, sides: int) -> int:
        """A fair roll of a die with ``sides`` faces: 1 to ``sides``."""
        ...


class TableView(Protocol):
    """The table as a page that only shows it sees it: the map list, the log, the calibration page,
    the values every page's template gets."""

    #: True on a simulated board (the page may move tokens and show cards by hand).
    sim: bool

    @property
    def state(self) -> Any:
        """The table's state now (the core loop's latest)."""
        ...

    def state_json(self, state: Any = None) -> dict[str, Any]:
        """The state document the pages show (``/api/state`` and the event stream)."""
        ...


class Changes(Protocol):
    """Following the table's changes as they happen: the log's narration, the submitter's wait."""

    def subscribe(self, fn: Subscriber) -> None:
        """Call ``fn(state, effects)`` on the core thread after each event; it must not block."""
        ...


class Table(TableView, Changes, Protocol):
    """The table as an action sees it: every action route (through
    :class:`~kipukas_board.web.submit.Submitter`), the pages that embed the state, each game's
    new-game event, the simulated camera."""

    #: The dice a route rolls into the event it writes (the rules core never rolls).
    dice: Dice

    def submit(self, event: dict[str, Any], wait: bool = True, timeout: float = 10.0,
               tap: str | None = None) -> int | None:
        """Journal and apply ``event``; with ``wait``, its journal number once durable and applied.
        ``tap``: the phone's tap that sent it (:func:`kipukas_board.web.taps.current`), journaled with it."""
        ...


class Games(Protocol):
    """The games the board runs: the table's new game and undo (which game, its title), each
    mode's page and actions, the card import and the simulated camera's list of cards."""

    #: The games the board runs, by name (:mod:`kipukas_board.modes`).
    modes: Mapping[str, Any]
    #: The modes' imported decks.
    mode_cards: ModeCards


class Guarded(Protocol):
    """The admin PIN: every route that changes the table (:func:`~kipukas_board.web.server.require_pin`,
    :func:`~kipukas_board.web.server.device_trusted`) and the page's PIN routes."""

    pins: PinStore


class Records(Protocol):
    """What the board recorded and whether it still records: ``/healthz``, the page's log, undo and
    redo, the journal export, the game report."""

    journal: Journal

    @property
    def unapplied(self) -> list[str]:
        """Stored events the rules could not apply since the last new game."""
        ...

    def core_alive(self) -> bool: ...

    def journal_health(self) -> dict[str, Any]: ...

    def game_report(self) -> dict[str, Any]:
        """The report of the game on the table (``GET /report``)."""
        ...


class CardsSeen(Protocol):
    """The card desk and the cameras: ``/api/cards``, the simulated camera, the card import,
    ``/healthz`` (which QR decoders are missing)."""

    card_desk: CardDesk
    cameras: list[Any]
    card_workers: list[Any]


class MapChoice(Protocol):
    """The map on the table: the new-game form's list of maps and ``POST /api/actions/map``."""

    def map_busy(self, state: Any = None) -> str | None:
        """Why the map may not change now, or None."""
        ...

    def submit_map(self, name: str, timeout: float = 10.0, tap: str | None = None) -> int:
        """Journal and apply the event that puts the shipped map ``name`` on the table; its journal
        number (``StillQueued`` when the busy core has not done it within ``timeout`` seconds)."""
        ...

    def map_picked(self, name: str, seq: int) -> None:
        """Once the map event ``seq`` is done: keep the pick for a restart, read the switches again
        (``MapBusy`` when the map did not come onto the table)."""
        ...


class Workshop(Protocol):
    """The calibration walk and the board test: their routes, and the calibration page."""

    calibration: CalibrationSession
    board_test: BoardTestSession


class Files(Protocol):
    """The settings and the data directory: the page's keys and map list, the app's host names,
    Kipukas's typing table."""

    settings: Settings
    data_dir: Path


class Streams(Protocol):
    """The pages' event streams: ``/api/stream`` and the spoken sentences the page shows."""

    broadcaster: Broadcaster


class Threads(Protocol):
    """The board's threads as the simulated faults see them: which can be stopped, stopping one,
    and whether each is alive (what the systemd watchdog pings on)."""

    #: The parts :meth:`sim_stop_part` can stop (``"core"``, ``"lighting"``).
    stoppable_parts: tuple[str, ...]

    def sim_stop_part(self, part: str) -> None:
        """Stop ``part``'s thread as a crash would; ``ValueError`` naming the parts it can stop."""
        ...

    def liveness(self) -> Mapping[str, bool]:
        """Whether each thread of the board is alive, by name (``{"core": True, ...}``)."""
        ...


class GameRoutes(Table, Games, Guarded, Protocol):
    """What every game mode's routes use (:func:`kipukas_board.modes.routes.mode_blueprint`,
    Kipukas's actions): the table, the games, the PIN."""


class ServedBoard(Table, Games, Guarded, Records, CardsSeen, MapChoice, Workshop, Files, Streams, Threads,
                  Protocol):
    """The running board as the app is handed it (every group, plus the app factory's own)."""

    #: The strip's thread (``/api/leds``: the frame shown and the layout).
    lighting: Lighting
    #: Functions ``register(flask_app, board)`` that add routes.
    route_plugins: list[Callable[[Any, Any], None]]
    #: Extra parts of the board's health, by name.
    health_sources: dict[str, Callable[[], dict[str, Any]]]

    def sim_set_stand(self, stand_id: str, occupied: bool) -> bool:
        """Act as a token put on or lifted from ``stand_id`` (simulated sensors only)."""
        ...
