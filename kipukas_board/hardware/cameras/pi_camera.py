"""A Raspberry Pi camera module through picamera2 (libcamera).

picamera2 comes from apt (``sudo apt install python3-picamera2``), never from pip, so the Pi's venv
is made with ``--system-site-packages``; it is imported only when this adapter is built.
The main stream is asked for in ``RGB888``, which picamera2 lays out as B, G, R bytes: exactly the
BGR order OpenCV and the decoders expect, with no conversion.

A camera with a focus motor (one that lists ``AfMode`` in ``camera_controls``: the Camera Module 3)
is put on continuous autofocus as soon as it is opened. libcamera alone starts it in manual mode, the
lens held at one position, which may not be a card's distance; a seat's calibrated focus, put on the
camera afterwards (:meth:`Picamera2Camera.set_controls`), replaces it with that lens position. Not
yet checked on a Pi: written from picamera2's documented controls and tested on a stand-in.

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

from kipukas_board.hardware.cameras.port import Camera

#: libcamera's AfModeEnum values (picamera2 takes the plain numbers).
AF_MANUAL, AF_CONTINUOUS = 0, 2


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
        if "AfMode" in self._cam.camera_controls:  # until a calibrated focus says otherwise
            self._cam.set_controls({"AfMode": AF_CONTINUOUS})

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

    def set_controls(self, focus: float | None = None, exposure_us: int | None = None) -> None:
        """Focus in dioptres (None: continuous autofocus) and exposure in µs (None: auto exposure).

        The calibration walk-through calls this while a player holds a card to the camera. A camera
        without a focus motor (Camera Module 1 and 2, HQ camera) has no ``AfMode`` control: asking it
        for a manual focus is refused with a reason instead of being silently ignored.
        """
        available = self._cam.camera_controls  # control name -> (min, max, default)
        ctl: dict[str, Any] = {}
        if "AfMode" in available:
            if focus is None:
                ctl["AfMode"] = AF_CONTINUOUS
            else:
                ctl.update(AfMode=AF_MANUAL, LensPosition=float(focus))
        elif focus is not None:
            raise ValueError(f"camera {self.camera_num} for seat {self.seat} has a fixed-focus lens: "
                             f"leave focus on auto (null)")
        if exposure_us is None:
            ctl["AeEnable"] = True
        else:
            ctl.update(AeEnable=False, ExposureTime=int(exposure_us))
        with self._lock:
            if not self._closed:
                self._cam.set_controls(ctl)

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
