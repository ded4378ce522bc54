"""The simulated camera: no frames; in simulation a card is shown by posting its payload
(``POST /api/sim/cards``), or a ``files`` camera plays images."""

from __future__ import annotations

from typing import Any

from kipukas_board.hardware.cameras.port import Camera


class SimulatedCamera(Camera):
    """A camera with no frames; cards reach the board as payloads through the simulation API."""

    def __init__(self, seat: int = 1, **_options: Any) -> None:
        self.seat = seat

    def read(self) -> None:
        return None

    def health(self) -> dict[str, Any]:
        return {"adapter": "sim", "ok": True, "seat": self.seat}
