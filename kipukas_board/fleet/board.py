"""Joins a :class:`~kipukas_board.app.BoardApp` to its fleet when the settings have a ``[fleet]`` section.

The board publishes and nothing more: it subscribes to no topic and takes no command over MQTT
(the broker's ACL lets it write only under its own id, README "Many tables").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kipukas_board.fleet.cursor import AckCursor
from kipukas_board.fleet.mqtt import make_client, read_password_file
from kipukas_board.fleet.publisher import FleetPublisher

if TYPE_CHECKING:
    from kipukas_board.app import BoardApp


def attach(board: BoardApp, health_key: Callable[[dict[str, Any]], Any]) -> FleetPublisher | None:
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
                               state_doc=state_doc, health_doc=board.health, health_key=health_key)
    board.loop.subscribe(publisher.notify)
    board.health_sources["fleet"] = publisher.health
    return publisher
