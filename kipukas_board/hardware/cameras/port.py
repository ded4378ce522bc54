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

    def automatic(self) -> bool:
        """Put the camera on its own automatic settings; False when it has none to set.

        A seat runs on them whenever the calibration keeps no focus or exposure for it: no calibration
        file for the map, one the loader refused, one that saves nothing for the seat, or a saved
        value the camera refused. The board calls this when a map is picked or a calibration applied,
        so a seat never keeps the manual focus and exposure of the map picked before. What
        "automatic" means depends on the adapter:

        * ``picamera2``: libcamera's auto exposure (``AeEnable``) and, on a camera with a focus motor
          (the Camera Module 3, ``AfMode`` among its controls), continuous autofocus; a fixed-focus
          lens has nothing to focus.
        * ``opencv`` (a USB camera under V4L2): auto exposure (aperture priority) and the camera's
          autofocus switched on (a camera without one ignores it), kept for when the device is opened
          again after an unplug.
        * ``sim``: no device; it forgets the focus and exposure it was given (its health shows none).
        * ``files``: recorded images have no settings: nothing (False).

        Every adapter that sets focus and exposure does it through its ``set_controls`` with nothing
        given (a setting left out is automatic), so this default calls that; one without it has none.
        """
        setter = getattr(self, "set_controls", None)
        if setter is None:
            return False
        setter()
        return True

    def close(self) -> None:
        """Release the device."""

    def health(self) -> dict[str, Any]:
        return {"adapter": type(self).__name__, "ok": True, "seat": self.seat}
