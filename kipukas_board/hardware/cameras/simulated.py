"""The simulated camera: no frames; in simulation a card is shown by posting its payload
(``POST /api/sim/cards``), or a ``files`` camera plays images."""

from __future__ import annotations

from typing import Any

from kipukas_board.hardware.cameras.port import Camera


class SimulatedCamera(Camera):
    """A camera with no frames; cards reach the board as payloads through the simulation API."""

    def __init__(self, seat: int = 1, stands_in_for: str | None = None, **_options: Any) -> None:
        self.seat = seat
        #: The adapter the settings name for this seat, when ``--sim`` put this one in its place.
        self.stands_in_for = stands_in_for if stands_in_for != "sim" else None

    def read(self) -> None:
        return None

    def health(self) -> dict[str, Any]:
        out: dict[str, Any] = {"adapter": "sim", "ok": True, "seat": self.seat}
        if self.stands_in_for:
            out["stands_in_for"] = self.stands_in_for
        return out
