"""A camera through OpenCV's VideoCapture: a USB (UVC) camera by index, or a device path or URL.

Example settings (``settings.toml``)::

    [[cameras]]
    adapter = "opencv"
    seat = 2
    device = 0          # /dev/video0; or "/dev/v4l/by-id/usb-...-video-index0" to survive re-plugging
    width = 1280
    height = 720
"""

from __future__ import annotations

import threading
from typing import Any

from kipukas_board.hardware.cameras import Camera


class OpenCVCamera(Camera):
    """Frames (BGR) from ``cv2.VideoCapture(device)``; opened lazily on the first read.

    :meth:`read` and :meth:`close` may be called from different threads (the camera worker reads,
    the board's shutdown closes): a close waits for a read in progress, and after it ``read``
    returns None instead of reopening the device.
    """

    def __init__(self, seat: int = 1, device: int | str = 0, width: int = 1280, height: int = 720,
                 **_options: Any) -> None:
        import cv2  # lazily: a board without USB cameras never needs it here

        self._cv2 = cv2
        self.seat = seat
        self.device = device
        self.width, self.height = width, height
        self._cap: Any = None
        self._lock = threading.Lock()
        self._closed = False
        self.frames = 0
        self.error: str | None = None

    def _open(self) -> Any:
        cv2 = self._cv2
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            self.error = f"cannot open camera {self.device!r} for seat {self.seat}"
            raise OSError(self.error)
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not a queue of stale ones
        return cap

    def read(self) -> Any | None:
        with self._lock:
            if self._closed:
                return None
            if self._cap is None:
                self._cap = self._open()
            ok, frame = self._cap.read()
        if not ok:
            self.error = f"camera {self.device!r} for seat {self.seat} gave no frame"
            return None
        self.error = None
        self.frames += 1
        return frame

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._cap is not None:
                self._cap.release()
                self._cap = None

    def health(self) -> dict[str, Any]:
        return {"adapter": "opencv", "ok": self.error is None, "seat": self.seat, "device": str(self.device),
                "frames": self.frames, "error": self.error}
