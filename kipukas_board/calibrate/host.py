"""What the calibration and the board test use of the board they run in: a small protocol.

The calibration session (:mod:`.session`) and the board test (:mod:`.board_test`) are handed the
running board, but see only this: the table's state, the settings and data directory, the ports
(switches, lights, cameras), the channel map they set, the raw switch listeners and health sources
they join, and three actions (:meth:`~CalibrationHost.resync` the game with the switches,
:meth:`~CalibrationHost.publish` an event to the pages, and the lighting's test frames). The
assembled board (:class:`kipukas_board.app.BoardApp`) implements it; a test may hand in anything
else that does, and nothing here knows the board's own module.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from kipukas_board.hardware.sensors.port import StandSensors, SwitchChange
    from kipukas_board.settings import Settings
    from kipukas_board.show.layout import LedLayout
    from kipukas_board.show.lighting import Lighting
    from kipukas_board.table.state import TableState
    from kipukas_board.vision.desk import CardDesk


class CalibrationHost(Protocol):
    """The running board as the calibration sees it."""

    settings: Settings
    data_dir: Path
    #: True on a simulated board (cards arrive by POST, not by camera).
    sim: bool
    sensors: StandSensors
    #: The strip's thread: test frames, the layout swapped whole, the strip's length.
    lighting: Lighting
    cameras: list[Any]
    #: Card events from the cameras (a camera test waits for its seat's next card).
    card_desk: CardDesk
    #: channel → stand id, set from the calibration; None: the channel *is* the stand id.
    channel_map: dict[str, str] | None
    #: Closed channels that belong to no stand (health lists them).
    unmapped_channels: dict[str, bool]
    #: Why the map's LEDs cannot be lit until a restart, or None.
    map_led_problem: str | None
    #: Raw switch listeners; one returning True keeps the change from the game.
    switch_listeners: list[Callable[[SwitchChange], bool | None]]
    #: Extra parts of the board's health, by name.
    health_sources: dict[str, Callable[[], dict[str, Any]]]

    @property
    def state(self) -> TableState:
        """The table's state now (its map, its cards shown)."""
        ...

    @property
    def layout(self) -> LedLayout:
        """The LED layout the lights use now."""
        ...

    def resync(self) -> None:
        """Make the game agree with the switches as they are now."""
        ...

    def publish(self, event: str, data: str) -> None:
        """Send a server-sent event to every open page."""
        ...
