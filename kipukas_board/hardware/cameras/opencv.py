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

from kipukas_board.hardware.cameras.port import Camera

#: V4L2's exposure_auto menu as OpenCV passes it: 1 manual, 3 aperture priority (auto).
V4L2_MANUAL_EXPOSURE, V4L2_AUTO_EXPOSURE = 1, 3


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
        self._controls: tuple[float | None, int | None] | None = None
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
        if self._controls is not None:  # reopened after an unplug: the calibrated exposure again
            self._apply_controls(cap, *self._controls)
        return cap

    def read(self) -> Any | None:
        with self._lock:
            if self._closed:
                return None
            if self._cap is None:
                self._cap = self._open()
            ok, frame = self._cap.read()
            if not ok:  # unplugged, or the device went away: let go, so the next read reopens it
                self._cap.release()
                self._cap = None
        if not ok:
            self.error = f"camera {self.device!r} for seat {self.seat} gave no frame (unplugged?)"
            raise OSError(self.error)
        self.error = None
        self.frames += 1
        return frame

    def set_controls(self, focus: float | None = None, exposure_us: int | None = None) -> None:
        """Exposure in µs (None: auto) and autofocus on (``focus`` None) for a UVC camera under V4L2.

        V4L2 takes exposure in 100 µs units with auto exposure set to 1 (manual) or 3 (auto).
        A UVC camera's focus scale is the maker's own, not dioptres, so a manual focus is refused
        with a reason rather than set to a meaningless number.
        """
        if focus is not None:
            raise ValueError(f"camera {self.device!r} for seat {self.seat}: a USB camera's focus is not in "
                             f"dioptres; leave focus on auto (null)")
        with self._lock:
            if self._closed:
                return
            self._controls = (focus, exposure_us)  # kept: the device gets them whenever it (re)opens
            if self._cap is not None:
                self._apply_controls(self._cap, focus, exposure_us)

    def _apply_controls(self, cap: Any, focus: float | None, exposure_us: int | None) -> None:
        cv2 = self._cv2
        cap.set(cv2.CAP_PROP_AUTOFOCUS, 1)
        if exposure_us is None:
            cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, V4L2_AUTO_EXPOSURE)
        else:
            cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, V4L2_MANUAL_EXPOSURE)
            cap.set(cv2.CAP_PROP_EXPOSURE, max(1, round(exposure_us / 100)))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._cap is not None:
                self._cap.release()
                self._cap = None

    def health(self) -> dict[str, Any]:
        return {"adapter": "opencv", "ok": self.error is None, "seat": self.seat, "device": str(self.device),
                "frames": self.frames, "error": self.error}
