"""Joins a running board to its fleet when the settings have a ``[fleet]`` section.

The board publishes and nothing more: it subscribes to no topic and takes no command over MQTT
(the broker's ACL lets it write only under its own id, docs/admins/fleet.md). What the fleet uses of
the board is :class:`FleetHost` (the assembled board implements it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from kipukas_board.fleet.cursor import AckCursor
from kipukas_board.fleet.mqtt import make_client, read_password_file
from kipukas_board.fleet.publisher import FleetPublisher

if TYPE_CHECKING:
    from kipukas_board.core_loop import Subscriber
    from kipukas_board.settings import Settings
    from kipukas_board.store.journal import Journal


class FleetHost(Protocol):
    """The running board as the fleet sees it: its settings and journal, its state and health
    documents, and the core's changes as they happen."""

    settings: Settings
    data_dir: Path
    journal: Journal
    health_sources: dict[str, Callable[[], dict[str, Any]]]

    def state_json(self) -> dict[str, Any]: ...

    def health(self) -> dict[str, Any]: ...

    def subscribe(self, fn: Subscriber) -> None:
        """Call ``fn(state, effects)`` on the core thread after each event."""
        ...


def attach(board: FleetHost, health_key: Callable[[dict[str, Any]], Any]) -> FleetPublisher | None:
    """A publisher for ``board`` (not started), or None without ``[fleet]``. ``health_key`` picks from
    the board's health what is worth publishing at once when it changes (the board's own health flags).

    Raises :class:`~kipukas_board.fleet.mqtt.FleetConfigError` (a ``ValueError``) for a password or CA
    file that cannot be used, so ``kipukas-board run`` reports it and exits 2 before serving.
    """
    fleet = board.settings.fleet
    if fleet is None:
        return None
    password = read_password_file(fleet.password_file) if fleet.password_file else None
    username = fleet.username or (fleet.board_id if password is not None else None)
    client = make_client(f"kipukas-board-{fleet.board_id}", fleet.broker, username, password, fleet.ca_file)
    cursor = AckCursor.in_dir(board.data_dir, fleet.broker.url(), fleet.board_id)

    def state_doc() -> dict[str, Any]:
        doc = board.state_json()
        doc.pop("health", None)
        return doc

    publisher = FleetPublisher(board.journal, cursor, client, fleet.broker, fleet.board_id, fleet.name,
                               state_doc=state_doc, health_doc=board.health, health_key=health_key,
                               unacked_limit_s=fleet.unacked_limit_s)
    board.subscribe(publisher.notify)
    board.health_sources["fleet"] = publisher.health
    return publisher
