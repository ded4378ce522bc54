"""What the page's routes use of the board they serve: a protocol, so no route names the board's class.

Every route module (the web layer's, and each game mode's actions and pages) is handed the running
board as a :class:`ServedBoard`: its core loop (state, submit, subscribe), journal, settings and data
directory, the parts the routes drive (PINs, event streams, lights, cards, calibration, board test)
and the few board-wide questions and actions (the state now, submitting an event, following the
changes, the state document, why the map may not change, picking a map, a simulated token). The
core loop itself stays the board's. The assembled board (:class:`kipukas_board.app.BoardApp`)
implements it; the web layer never imports the board's module, not even for type checking.
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
    from kipukas_board.modes.kipukas.rules.dice import Dice
    from kipukas_board.settings import Settings
    from kipukas_board.show.lighting import Lighting
    from kipukas_board.store.journal import Journal
    from kipukas_board.vision.desk import CardDesk
    from kipukas_board.web.auth import PinStore
    from kipukas_board.web.sse import Broadcaster


class ServedBoard(Protocol):
    """The running board as its routes see it."""

    #: The dice a route rolls into the event it writes (the rules core never rolls).
    dice: Dice
    journal: Journal
    settings: Settings
    data_dir: Path
    #: True on a simulated board (the page may move tokens and show cards by hand).
    sim: bool
    pins: PinStore
    broadcaster: Broadcaster
    lighting: Lighting
    card_desk: CardDesk
    card_workers: list[Any]
    cameras: list[Any]
    #: The modes' imported decks.
    mode_cards: ModeCards
    #: The games the board runs, by name (:mod:`kipukas_board.modes`).
    modes: Mapping[str, Any]
    calibration: CalibrationSession
    board_test: BoardTestSession
    #: Functions ``register(flask_app, board)`` that add routes.
    route_plugins: list[Callable[[Any, Any], None]]
    #: Extra parts of the board's health, by name.
    health_sources: dict[str, Callable[[], dict[str, Any]]]

    @property
    def state(self) -> Any:
        """The table's state now (the core loop's latest)."""
        ...

    @property
    def unapplied(self) -> list[str]:
        """Stored events the rules could not apply since the last new game."""
        ...

    def submit(self, event: dict[str, Any], wait: bool = True, timeout: float = 10.0) -> int | None:
        """Journal and apply ``event``; with ``wait``, its journal number once durable and applied."""
        ...

    def subscribe(self, fn: Subscriber) -> None:
        """Call ``fn(state, effects)`` on the core thread after each event; it must not block."""
        ...

    def core_alive(self) -> bool: ...

    def state_json(self, state: Any = None) -> dict[str, Any]:
        """The state document the pages show (``/api/state`` and the event stream)."""
        ...

    def journal_health(self) -> dict[str, Any]: ...

    def game_report(self) -> dict[str, Any]:
        """The report of the game on the table (``GET /report``)."""
        ...

    def map_busy(self, state: Any = None) -> str | None:
        """Why the map may not change now, or None."""
        ...

    def pick_map(self, name: str) -> int:
        """Put the shipped map ``name`` on the table; returns the map event's journal number."""
        ...

    def sim_set_stand(self, stand_id: str, occupied: bool) -> bool:
        """Act as a token put on or lifted from ``stand_id`` (simulated sensors only)."""
        ...
