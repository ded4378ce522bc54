"""The real camera adapters' controls: what picamera2 and OpenCV are asked to do.

picamera2 exists only on Raspberry Pi OS, so a small stand-in module records what the adapter asks
of it (configuration, controls); the OpenCV adapter talks to a recording capture in place of a device.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

cv2 = pytest.importorskip("cv2")


class FakePicamera2:
    """Records the calls the adapter makes; ``af`` says whether the camera has a focus motor."""

    af = True

    def __init__(self, camera_num: int = 0) -> None:
        self.camera_num = camera_num
        self.calls: list[tuple[str, Any]] = []
        self.camera_controls = {"ExposureTime": (130, 3066985, 20000), "AeEnable": (False, True, True)}
        if self.af:
            self.camera_controls.update(AfMode=(0, 2, 0), LensPosition=(0.0, 15.0, 1.0))

    def create_video_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
        return {"main": main}

    def configure(self, config: dict[str, Any]) -> None:
        self.calls.append(("configure", config))

    def start(self) -> None:
        self.calls.append(("start", None))

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append(("set_controls", dict(controls)))

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def close(self) -> None:
        self.calls.append(("close", None))


@pytest.fixture
def picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setattr(FakePicamera2, "af", True)
    return FakePicamera2


def test_picamera2_asks_for_bgr_frames_and_maps_focus_and_exposure(picamera2) -> None:
    from kipukas_board.hardware.cameras.pi_camera import Picamera2Camera

    cam = Picamera2Camera(seat=3, camera_num=1, width=1280, height=720)
    fake = cam._cam
    assert fake.camera_num == 1
    assert ("configure", {"main": {"size": (1280, 720), "format": "RGB888"}}) in fake.calls
    cam.set_controls(focus=4.5, exposure_us=8000)
    cam.set_controls(focus=None, exposure_us=None)
    sets = [c for name, c in fake.calls if name == "set_controls"]
    assert sets == [{"AfMode": 2},  # opened: continuous autofocus until calibrated
                    {"AfMode": 0, "LensPosition": 4.5, "AeEnable": False, "ExposureTime": 8000},
                    {"AfMode": 2, "AeEnable": True}]
    cam.close()
    cam.set_controls(focus=None, exposure_us=9000)  # after close: nothing reaches the closed camera
    assert [n for n, _ in fake.calls][-2:] == ["stop", "close"]


def test_an_uncalibrated_picamera2_with_a_focus_motor_focuses_continuously_a_calibrated_one_keeps_its_lens(
        picamera2) -> None:
    """Opened, a Camera Module 3 (``AfMode`` among its controls) is put on continuous autofocus after it
    started, rather than left on libcamera's manual default; a seat's calibrated focus, put on it as the
    board puts it, then holds the lens where the calibration says."""
    from kipukas_board.calibrate.camera_controls import apply_controls
    from kipukas_board.hardware.cameras.pi_camera import Picamera2Camera

    cam = Picamera2Camera(seat=1)
    assert [n for n, _ in cam._cam.calls] == ["configure", "start", "set_controls"]
    assert cam._cam.calls[-1] == ("set_controls", {"AfMode": 2})
    calibrated = Picamera2Camera(seat=2)
    assert apply_controls(calibrated, {"focus": 6.0})
    assert calibrated._cam.calls[-1] == ("set_controls", {"AfMode": 0, "LensPosition": 6.0, "AeEnable": True})


def test_a_picamera2_goes_back_to_continuous_autofocus_and_auto_exposure_on_a_map_not_calibrated_for_its_seat(
        picamera2, tmp_path) -> None:
    """A Camera Module 3 on the board, held at a calibrated lens position and exposure on one map, gets
    continuous autofocus and auto exposure again when a map with no calibration file is picked, and
    when the calibration of the map picked back is refused for a focus this camera cannot take."""
    from kipukas_board.app import BoardApp
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.calibrate import files
    from kipukas_board.hardware.cameras.pi_camera import Picamera2Camera
    from kipukas_board.settings import Settings
    from kipukas_board.show.layout import map_calibration_path

    eight = load_map("kipuka-8")
    files.save(map_calibration_path("default", tmp_path, eight), files.Calibration(
        board=eight.name, cameras={1: {"test_scan": True, "focus": 6.0, "exposure_us": 8000}}), eight)
    board = BoardApp(Settings(), tmp_path, sim=True, admin_pin="2468")
    cam = Picamera2Camera(seat=1)
    board.cameras = [cam]
    board.calibration.follow_map()  # as at start, with this camera on seat 1
    board.start()
    try:
        manual = {"AfMode": 0, "LensPosition": 6.0, "AeEnable": False, "ExposureTime": 8000}
        assert cam._cam.calls[-1] == ("set_controls", manual)
        board.pick_map("kipuka-12")  # not calibrated yet
        assert cam._cam.calls[-1] == ("set_controls", {"AfMode": 2, "AeEnable": True})
        board.pick_map("kipuka-8")
        assert cam._cam.calls[-1] == ("set_controls", manual)
        cam._cam.camera_controls.pop("AfMode")  # a fixed-focus camera put in its place
        board.pick_map("kipuka-13")
        assert cam._cam.calls[-1] == ("set_controls", {"AeEnable": True})
        board.pick_map("kipuka-8")  # its focus refused by this lens: the camera's automatic exposure
        assert cam._cam.calls[-1] == ("set_controls", {"AeEnable": True})
        assert "fixed-focus lens" in board.health()["calibration"]["error"]
    finally:
        board.stop()


def test_picamera2_without_a_focus_motor_refuses_a_manual_focus(picamera2, monkeypatch) -> None:
    from kipukas_board.hardware.cameras.pi_camera import Picamera2Camera

    monkeypatch.setattr(FakePicamera2, "af", False)
    cam = Picamera2Camera(seat=2)
    with pytest.raises(ValueError, match="fixed-focus lens"):
        cam.set_controls(focus=2.0, exposure_us=None)
    cam.set_controls(focus=None, exposure_us=5000)
    assert [c for n, c in cam._cam.calls if n == "set_controls"] == [{"AeEnable": False, "ExposureTime": 5000}]


class RecordingCapture:
    def __init__(self) -> None:
        self.props: list[tuple[int, float]] = []

    def set(self, prop: int, value: float) -> bool:
        self.props.append((prop, value))
        return True

    def release(self) -> None:
        pass


def test_opencv_sets_v4l2_exposure_in_100_us_units() -> None:
    from kipukas_board.hardware.cameras.opencv import OpenCVCamera

    cam = OpenCVCamera(seat=1, device=0)
    cam._cap = cap = RecordingCapture()
    cam.set_controls(focus=None, exposure_us=8000)
    assert cap.props == [(cv2.CAP_PROP_AUTOFOCUS, 1), (cv2.CAP_PROP_AUTO_EXPOSURE, 1), (cv2.CAP_PROP_EXPOSURE, 80)]
    cap.props.clear()
    cam.set_controls(focus=None, exposure_us=None)
    assert cap.props == [(cv2.CAP_PROP_AUTOFOCUS, 1), (cv2.CAP_PROP_AUTO_EXPOSURE, 3)]
    with pytest.raises(ValueError, match="not in dioptres"):
        cam.set_controls(focus=3.0, exposure_us=None)


def test_opencv_automatic_is_v4l2_auto_exposure_and_autofocus_kept_for_a_reopen() -> None:
    from kipukas_board.hardware.cameras.opencv import OpenCVCamera

    cam = OpenCVCamera(seat=1, device=0)
    cam._cap = cap = RecordingCapture()
    cam.set_controls(focus=None, exposure_us=8000)
    cap.props.clear()
    assert cam.automatic() is True
    assert cap.props == [(cv2.CAP_PROP_AUTOFOCUS, 1), (cv2.CAP_PROP_AUTO_EXPOSURE, 3)]
    assert cam._controls == (None, None)  # what a reopened device is given


def test_opencv_lets_go_of_an_unplugged_camera_and_reopens_it(monkeypatch) -> None:
    """A capture that stops giving frames is released and the read raises, so the camera worker
    retries; the next read opens the device afresh (a camera plugged back in works again)."""
    from kipukas_board.hardware.cameras.opencv import OpenCVCamera

    class Capture(RecordingCapture):
        def __init__(self, frames: list) -> None:
            super().__init__()
            self.frames, self.released = frames, False

        def isOpened(self) -> bool:  # noqa: N802 (OpenCV's name)
            return True

        def read(self):
            return (True, self.frames.pop(0)) if self.frames else (False, None)

        def release(self) -> None:
            self.released = True

    opened: list[Capture] = []

    def video_capture(device):
        opened.append(Capture(["frame"] if len(opened) != 1 else []))
        return opened[-1]

    monkeypatch.setattr(cv2, "VideoCapture", video_capture)
    cam = OpenCVCamera(seat=1, device=0)
    cam.set_controls(focus=None, exposure_us=8000)  # before the first open: kept for it
    assert cam.read() == "frame"
    assert (cv2.CAP_PROP_EXPOSURE, 80) in opened[0].props
    with pytest.raises(OSError, match="gave no frame"):
        cam.read()  # the first capture ran dry: unplugged
    assert opened[0].released and cam.health()["ok"] is False
    with pytest.raises(OSError):
        cam.read()  # reopened, but still nothing
    assert cam.read() == "frame" and len(opened) == 3 and cam.health()["ok"] is True
    assert (cv2.CAP_PROP_EXPOSURE, 80) in opened[2].props, "the reopened camera keeps its calibrated exposure"
