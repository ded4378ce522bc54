"""A Raspberry Pi camera module through picamera2 (libcamera).

picamera2 comes from apt (``sudo apt install python3-picamera2``), never from pip, so the Pi's venv
is made with ``--system-site-packages``; it is imported only when this adapter is built.
The main stream is asked for in ``RGB888``, which picamera2 lays out as B, G, R bytes: exactly the
BGR order OpenCV and the decoders expect, with no conversion.

Example settings (``settings.toml``)::

    [[cameras]]
    adapter = "picamera2"
    seat = 1
    camera_num = 0      # which CSI camera (a Pi 5 has two connectors)
    width = 1280
    height = 720
"""

from __future__ import annotations

import threading
from typing import Any

from kipukas_board.hardware.cameras import Camera


class Picamera2Camera(Camera):
    """Frames (BGR numpy arrays) from CSI camera ``camera_num``."""

    def __init__(self, seat: int = 1, camera_num: int = 0, width: int = 1280, height: int = 720,
                 **_options: Any) -> None:
        from picamera2 import Picamera2  # Pi only (apt python3-picamera2)

        self.seat = seat
        self.camera_num = camera_num
        self.frames = 0
        self.error: str | None = None
        self._lock = threading.Lock()  # read (worker thread) and close (shutdown) never overlap
        self._closed = False
        self._cam = Picamera2(camera_num)
        config = self._cam.create_video_configuration(main={"size": (width, height), "format": "RGB888"})
        self._cam.configure(config)
        self._cam.start()

    def read(self) -> Any | None:
        try:
            with self._lock:
                if self._closed:
                    return None
                frame = self._cam.capture_array("main")
        except Exception as exc:
            self.error = f"camera {self.camera_num} for seat {self.seat}: {exc}"
            return None
        self.error = None
        self.frames += 1
        return frame

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._cam.stop()
            finally:
                self._cam.close()

    def health(self) -> dict[str, Any]:
        return {"adapter": "picamera2", "ok": self.error is None, "seat": self.seat,
                "camera_num": self.camera_num, "frames": self.frames, "error": self.error}
