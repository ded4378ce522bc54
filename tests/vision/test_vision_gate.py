"""The change gate and the camera reader: no decoding of an unchanged scene, never a card missed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from _qrgen import camouflage, noise, qr_tile

from kipukas_board.vision.gate import ChangeGate
from kipukas_board.vision.pipeline import DecodeResult
from kipukas_board.vision.preprocess import FrameError
from kipukas_board.vision.reader import STACK_AT, CameraReader

P = "kpks.us/RrDC#0001?DmFz33"


def _table(rng: np.random.Generator, size: tuple[int, int] = (720, 1280)) -> np.ndarray:
    """A textured, unevenly lit empty scene (a table seen by a seat's camera)."""
    base = rng.integers(60, 200, (23, 40, 3), dtype=np.uint8).astype(np.float32)
    big = cv2.resize(base, (size[1], size[0]), interpolation=cv2.INTER_CUBIC)
    ramp = np.linspace(-30, 30, size[1], dtype=np.float32)[None, :, None]
    return np.clip(big + ramp, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("sigma", [2.0, 8.0, 20.0])
def test_sensor_noise_alone_is_no_change(sigma: float) -> None:
    rng = np.random.default_rng(int(sigma))
    scene = _table(rng, (360, 640))  # a quarter of the pixels: a block averages 4x fewer, noise 2x
    gate = ChangeGate()
    assert gate.changed(noise(scene, rng, sigma))  # the first frame is always new
    flips = [gate.changed(noise(scene, rng, sigma)) for _ in range(25)]
    assert not any(flips), f"noise of sigma {sigma} counted as a change in {sum(flips)} of 25 frames"


def test_an_exposure_drift_is_no_change_but_a_card_is_at_once() -> None:
    rng = np.random.default_rng(3)
    scene = _table(rng)
    gate = ChangeGate()
    gate.changed(scene)
    brighter = np.clip(scene.astype(np.int16) + 12, 0, 255).astype(np.uint8)
    assert not gate.changed(noise(brighter, rng, 6))
    card = camouflage(qr_tile(P, px=5), rng)  # 175 px square: a small card, far from the camera
    shown = brighter.copy()
    shown[300:300 + card.shape[0], 500:500 + card.shape[1]] = card
    assert gate.changed(noise(shown, rng, 6))  # the very first frame that shows it
    assert not gate.changed(noise(shown, rng, 6))  # then it is the reference
    assert gate.changed(noise(brighter, rng, 6))  # taken away


def test_a_whole_new_view_is_a_change() -> None:
    """Every block changes (a hand over the lens, the camera moved): the noise estimate must not
    swallow it."""
    rng = np.random.default_rng(4)
    gate = ChangeGate()
    gate.changed(np.full((720, 1280, 3), 128, np.uint8))
    assert gate.changed(_table(rng))


def test_a_slow_drift_adds_up_against_the_reference() -> None:
    """Each frame differs from the one before by one grey level in one place; compared with the
    reference (not the previous frame) the change is seen once it adds up past the threshold."""
    rng = np.random.default_rng(5)
    scene = _table(rng)
    gate = ChangeGate(floor=6.0)
    gate.changed(scene)
    seen_at = None
    for step in range(1, 30):
        frame = scene.copy()
        frame[200:400, 300:600] = np.clip(scene[200:400, 300:600].astype(np.int16) + step, 0, 255)
        if gate.changed(frame):
            seen_at = step
            break
    assert seen_at is not None and 6 <= seen_at <= 12


def test_grey_and_small_frames_work_and_bad_ones_are_named() -> None:
    gate = ChangeGate()
    assert gate.changed(np.full((360, 640), 90, np.uint8))
    assert not gate.changed(np.full((360, 640), 90, np.uint8))
    assert gate.changed(np.full((720, 1280, 3), 90, np.uint8))  # another size: a new reference
    with pytest.raises(FrameError, match="numpy array"):
        gate.changed([[1, 2], [3, 4]])


class _Pipeline:
    """A pipeline that answers from a script and records how it was asked."""

    def __init__(self, results: list[DecodeResult]) -> None:
        self.results = results
        self.calls: list[bool] = []

    def decode(self, frame, thorough: bool = False, known=()) -> DecodeResult:
        self.calls.append(thorough)
        return self.results[min(len(self.calls), len(self.results)) - 1]


def test_reader_decodes_a_still_scene_once_and_keeps_its_codes() -> None:
    rng = np.random.default_rng(6)
    scene = _table(rng, (360, 640))
    pipe = _Pipeline([DecodeResult(codes=[P], complete=True)])
    reader = CameraReader(pipe)
    reads = [reader.read(noise(scene, rng, 4)) for _ in range(12)]
    # one decode; one look at the mean of its first frames, for a second card beside it; then nothing
    assert pipe.calls == [False, False]
    assert [i for i, r in enumerate(reads) if r.decoded] == [0, STACK_AT[0] - 1] and reads[-1].stacked == 1
    assert all(r.codes == [P] for r in reads)


def test_reader_gives_a_settled_scene_one_thorough_pass() -> None:
    """The first decode was cut short (the region of interest only, or heavy passes held back):
    the first unchanged frame gets a thorough pass, after which the scene costs nothing."""
    rng = np.random.default_rng(7)
    scene = _table(rng, (360, 640))
    pipe = _Pipeline([DecodeResult(codes=[P], complete=False), DecodeResult(codes=[P, "x"], complete=True)])
    reader = CameraReader(pipe)
    for _ in range(6):
        reader.read(noise(scene, rng, 4))
    assert pipe.calls[:2] == [False, True] and pipe.calls[2:] in ([], [False])  # and the look for a second card
    for _ in range(6):
        reader.read(noise(scene, rng, 4))
    assert pipe.calls == [False, True, False]
    assert reader.read(noise(scene, rng, 4)).codes == [P, "x"]
    other = scene.copy()
    other[100:300, 100:300] = 20
    read = reader.read(other)
    assert read.decoded and read.changed and pipe.calls == [False, True, False, False]


def test_a_scene_that_keeps_changing_without_a_code_is_decoded_at_most_once_per_interval() -> None:
    rng = np.random.default_rng(8)
    scene = _table(rng, (360, 640))
    now = [0.0]
    pipe = _Pipeline([DecodeResult(codes=[], complete=True)])
    reader = CameraReader(pipe, miss_interval_s=0.19, clock=lambda: now[0])
    decoded = []
    for k in range(11):  # a hand waving: every frame differs, 15 frames a second
        now[0] = k / 15
        frame = scene.copy()
        frame[50:250, 40 * k:40 * k + 150] = 10
        decoded.append(reader.read(frame).decoded)
    assert decoded == [True, False, False, True, False, False, True, False, False, True, False]
    now[0] = 11 / 15
    assert reader.read(frame).decoded  # the hand stopped on a frame left undecoded: it is decoded at once
    assert pipe.calls[-1] is True  # thoroughly
