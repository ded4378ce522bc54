"""The simulated camera: no frames; in simulation a card is shown by posting its payload
(``POST /api/sim/cards``), or a ``files`` camera plays images.

It keeps the focus and exposure the calibration puts on it, as the real camera it stands in for
would be given them, so the calibration page and the board's health can be tried in simulation:

    >>> cam = SimulatedCamera(seat=1)
    >>> cam.set_controls(focus=4.5, exposure_us=None)
    >>> cam.health()["controls"]
    {'focus': 4.5}
    >>> cam.automatic(), "controls" in cam.health()   # another map, not calibrated: automatic again
    (True, False)
"""

from __future__ import annotations

from typing import Any

from kipukas_board.hardware.cameras.port import Camera


class SimulatedCamera(Camera):
    """A camera with no frames; cards reach the board as payloads through the simulation API."""

    def __init__(self, seat: int = 1, stands_in_for: str | None = None, **_options: Any) -> None:
        self.seat = seat
        #: The adapter the settings name for this seat, when ``--sim`` put this one in its place.
        self.stands_in_for = stands_in_for if stands_in_for != "sim" else None
        #: The focus (dioptres) and exposure (µs) set by hand; {} is automatic.
        self.controls: dict[str, float | int] = {}

    def read(self) -> None:
        return None

    def set_controls(self, focus: float | None = None, exposure_us: int | None = None) -> None:
        """Keep ``focus`` and ``exposure_us`` (None: automatic); there is no device to refuse them."""
        self.controls = {k: v for k, v in (("focus", focus), ("exposure_us", exposure_us)) if v is not None}

    def health(self) -> dict[str, Any]:
        out: dict[str, Any] = {"adapter": "sim", "ok": True, "seat": self.seat}
        if self.stands_in_for:
            out["stands_in_for"] = self.stands_in_for
        if self.controls:
            out["controls"] = dict(self.controls)
        return out
