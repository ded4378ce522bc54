"""The camera port: one camera per seat, in that player's phone stand, looking at shown cards.

A camera gives frames (numpy arrays, BGR or grey); decoding QR codes is
:mod:`kipukas_board.vision`'s job, so every camera gets the same decoder. The simulated camera has
no frames: in simulation a card is "shown" by posting its payload (``POST /api/sim/cards``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class Camera(ABC):
    """Port for the camera serving ``seat``."""

    seat: int

    @abstractmethod
    def read(self) -> Any | None:
        """The next frame as a numpy array, or None when there is none (yet)."""

    def close(self) -> None:
        """Release the device."""

    def health(self) -> dict[str, Any]:
        return {"adapter": type(self).__name__, "ok": True, "seat": self.seat}
