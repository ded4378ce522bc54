"""A camera that plays back files: one image, a folder of images, or a video.

Used to replay captures through the same path as a live camera (desk, sessions, events), for tests
and for checking a decode change against recorded footage on a development machine.

Example settings (``settings.toml``)::

    [[cameras]]
    adapter = "files"
    seat = 1
    path = "captures/seat1/"     # an image, a folder of images or a video file
    loop = false                 # start again at the end

A folder of two images played once, each frame a BGR numpy array, then None at the end::

    >>> import tempfile, cv2, numpy as np
    >>> folder = tempfile.mkdtemp()
    >>> for name in ("a.png", "b.png"):
    ...     _ = cv2.imwrite(f"{folder}/{name}", np.zeros((48, 64, 3), np.uint8))
    >>> cam = FileCamera(seat=1, path=folder)
    >>> cam.read().shape, cam.read().shape, cam.read()
    ((48, 64, 3), (48, 64, 3), None)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kipukas_board.hardware.cameras.port import Camera

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm"}


class FileCamera(Camera):
    """Frames from ``path`` (image, folder of images in name order, or a video OpenCV can read)."""

    def __init__(self, seat: int = 1, path: str | Path = "", loop: bool = False, **_options: Any) -> None:
        import cv2  # lazily: only this adapter and the vision code need OpenCV

        self._cv2 = cv2
        self.seat = seat
        self.path = Path(path)
        self.loop = loop
        self.frames = 0
        self.error: str | None = None
        self._video: Any = None
        self._files: list[Path] = []
        self._next = 0
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                raise ValueError(f"camera for seat {seat}: folder {self.path} holds no images "
                                 f"(expected {', '.join(sorted(IMAGE_SUFFIXES))})")
        elif self.path.is_file():
            if self.path.suffix.lower() in IMAGE_SUFFIXES:
                self._files = [self.path]
            else:
                self._video = cv2.VideoCapture(str(self.path))
                if not self._video.isOpened():
                    raise ValueError(f"camera for seat {seat}: {self.path} is neither an image nor a video "
                                     f"OpenCV can open")
        else:
            raise ValueError(f"camera for seat {seat}: {self.path} does not exist")

    def read(self) -> Any | None:
        if self._video is not None:
            ok, frame = self._video.read()
            if not ok and self.loop:
                self._video.set(self._cv2.CAP_PROP_POS_FRAMES, 0)
                ok, frame = self._video.read()
            if not ok:
                return None
            self.frames += 1
            return frame
        if self._next >= len(self._files):
            if not self.loop:
                return None
            self._next = 0
        p = self._files[self._next]
        self._next += 1
        frame = self._cv2.imread(str(p), self._cv2.IMREAD_COLOR)
        if frame is None:
            self.error = f"{p} is not an image OpenCV can read"
            return None
        self.frames += 1
        return frame

    def close(self) -> None:
        self._next = len(self._files)
        self.loop = False
        if self._video is not None:
            self._video.release()

    def health(self) -> dict[str, Any]:
        return {"adapter": "files", "ok": self.error is None, "seat": self.seat, "path": str(self.path),
                "frames": self.frames, "error": self.error}
