"""Motion blur measured from the picture and taken back: a smeared card that the strategy ladder
cannot read is read once its stacked mean is deconvolved."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from _qrgen import camouflage, noise, place, qr_tile

from kipukas_board.vision.decoders import available_decoders
from kipukas_board.vision.motion import cepstrum, estimate_motion, line_kernel
from kipukas_board.vision.pipeline import Pipeline
from kipukas_board.vision.reader import STACK_AT, CameraReader

P = "kpks.us/RrDC#0001?DmFz33"


def _card(seed: int = 4) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return place([camouflage(qr_tile(P, px=8), rng)], size=(360, 640))


def _smear(frame: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """A box smear of max(|dx|, |dy|) taps along (dx, dy) (dx, dy: 0 or the length)."""
    n = max(abs(dx), abs(dy))
    kernel = np.zeros((n, n), np.float32)
    for i in range(n):
        kernel[i * (dy != 0), i * (dx != 0)] = 1.0 / n
    return cv2.filter2D(frame, -1, kernel, borderType=cv2.BORDER_REPLICATE)


@pytest.mark.parametrize(("dx", "dy"), [(7, 0), (0, 11), (9, 9)])
def test_the_smear_is_measured_from_the_picture(dx: int, dy: int) -> None:
    grey = cv2.cvtColor(_smear(_card(), dx, dy), cv2.COLOR_BGR2GRAY)
    assert estimate_motion(grey) == (dx, dy)


@pytest.mark.parametrize(("h", "w"), [(48, 80), (45, 75), (45, 80), (48, 75)])
def test_the_cepstrum_is_numpys_for_every_parity_of_size(h: int, w: int) -> None:
    # OpenCV packs the spectrum differently for odd and even sides; numpy's full transforms are the reference
    g = np.random.default_rng(h * w).normal(100, 30, (h, w)).astype(np.float32)
    x = (g - g.mean()) * cv2.createHanningWindow((w, h), cv2.CV_32F)
    mag = np.abs(np.fft.rfft2(x))
    want = np.fft.irfft2(np.log(mag + 1e-3 * mag.mean() + 1e-6), s=(h, w))
    got = cepstrum(g)
    assert got.shape == (h, w)
    assert np.abs(got - want).max() < 1e-3 * np.abs(want).max()


@pytest.mark.parametrize(("h", "w", "motion"), [(45, 75, (9, 9)), (45, 75, (5, 0)), (48, 45, (5, 0)),
                                               (45, 45, (0, 7)), (60, 80, (4.5, 4.5)), (45, 45, (5, 0))])
@pytest.mark.parametrize("lopsided", [False, True])
def test_the_deconvolution_is_numpys_wiener_filter_for_every_parity_of_size(
        monkeypatch: pytest.MonkeyPatch, h: int, w: int, motion, lopsided: bool) -> None:
    # the packed spectra hold odd and even transform sizes differently (a last column of its own, or
    # not; a last row that is real, or an imaginary part): numpy's complex transforms are the reference.
    # The transforms here are 120x144, 81x120, 90x81, 90x90, 108x125 and 81x81: each parity of each side
    # A line's kernel is symmetric, so its spectrum is real; a lopsided one has imaginary parts too
    import kipukas_board.vision.motion as motion_module

    img = np.random.default_rng(h + w).integers(0, 256, (h, w), dtype=np.uint8)  # every frequency, up to the last
    kernel = line_kernel(*motion)
    if lopsided:
        kernel = np.random.default_rng(w).random(kernel.shape).astype(np.float32) ** 4
        kernel /= kernel.sum()
        monkeypatch.setattr(motion_module, "line_kernel", lambda dx, dy: kernel)
    pad = kernel.shape[0] * 2
    ph, pw = cv2.getOptimalDFTSize(h + 2 * pad), cv2.getOptimalDFTSize(w + 2 * pad)
    k = np.zeros((ph, pw))
    k[:kernel.shape[0], :kernel.shape[0]] = kernel
    k = np.roll(k, (-(kernel.shape[0] // 2),) * 2, axis=(0, 1))
    spectrum = np.fft.fft2(k)
    wiener = np.conj(spectrum) / (np.abs(spectrum) ** 2 + 0.01)
    padded = cv2.copyMakeBorder(img, pad, ph - h - pad, pad, pw - w - pad, cv2.BORDER_REFLECT).astype(float)
    want = np.clip(np.rint(np.real(np.fft.ifft2(np.fft.fft2(padded) * wiener))[pad:pad + h, pad:pad + w]), 0, 255)
    assert np.abs(motion_module.deconvolve(img, motion, 0.01).astype(float) - want).max() <= 1  # float32, float64


def test_a_smear_taken_back_again_reuses_its_filter_and_gives_the_same_picture() -> None:
    from kipukas_board.vision.motion import _wiener_for, deconvolve

    img = np.random.default_rng(7).integers(0, 256, (90, 160), dtype=np.uint8)
    _wiener_for.cache_clear()
    first = deconvolve(img, (9, 9))
    assert (_wiener_for.cache_info().hits, _wiener_for.cache_info().misses) == (0, 1)
    assert np.array_equal(deconvolve(img, (9, 9)), first) and _wiener_for.cache_info().hits == 1
    deconvolve(img, (5, 5))  # another smear: another filter
    assert _wiener_for.cache_info().misses == 2
    kernel = line_kernel(9, 9)
    kept = _wiener_for(kernel.tobytes(), kernel.shape[0], 32, 48, 0.01)
    with pytest.raises(ValueError, match="read-only"):
        kept[0, 0] = 1.0  # a kept filter, which no caller may change



@pytest.mark.parametrize(("ph", "pw"), [(4, 1), (1, 4), (3, 1), (2, 2), (5, 3)])
def test_the_filter_of_a_tiny_transform_is_numpys_wiener_filter_too(ph: int, pw: int) -> None:
    # OpenCV takes an array of four values or fewer beside a number for a scalar of its own: the
    # filter of a 4x1 transform must still be made, and right
    from kipukas_board.vision.motion import _wiener

    kernel = np.random.default_rng(ph * pw).random((3, 3)).astype(np.float32)
    kernel /= kernel.sum()
    k = np.zeros((ph, pw))
    k[np.ix_((np.arange(3) - 1) % ph, (np.arange(3) - 1) % pw)] = kernel
    spectrum = np.fft.fft2(k)
    x = np.random.default_rng(1).random((ph, pw)).astype(np.float32)
    want = np.real(np.fft.ifft2(np.fft.fft2(x) * np.conj(spectrum) / (np.abs(spectrum) ** 2 + 0.01)))
    got = cv2.dft(cv2.mulSpectrums(cv2.dft(x), _wiener(kernel, ph, pw, 0.01), 0),
                  flags=cv2.DFT_INVERSE | cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)
    assert got.shape == (ph, pw) and np.abs(got - want).max() < 1e-5


@pytest.mark.parametrize(("shape", "scale"), [((1, 1), 0.5), ((1, 40), 0.4), ((20, 20), 0.0),
                                              ((20, 20), -0.5), ((20, 20), float("nan"))])
def test_an_image_too_small_for_its_scale_is_named_not_left_to_opencv(shape, scale: float) -> None:
    from kipukas_board.vision.motion import unsmear

    with pytest.raises(ValueError, match=rf"cannot unsmear a {shape[1]}x{shape[0]} image at scale .*: expected a "
                                         "positive scale that leaves the image at least 1 pixel each way"):
        unsmear(np.zeros(shape, np.uint8), (5, 0), scale=scale)
    assert unsmear(np.zeros((3, 3), np.uint8), (5, 0), scale=0.5).shape == (2, 2)  # 1.5 rounds to 2


@pytest.mark.parametrize(("h", "w"), [(353, 631), (360, 639), (359, 640)])
def test_the_smear_is_measured_on_a_picture_of_any_size(h: int, w: int) -> None:
    # odd and awkward sizes: the spectrum's packed layout differs, and the picture is padded
    grey = cv2.cvtColor(_smear(_card(), 9, 9), cv2.COLOR_BGR2GRAY)[:h, :w]
    assert estimate_motion(grey) == (9, 9)
    assert estimate_motion(cv2.cvtColor(_card(), cv2.COLOR_BGR2GRAY)[:h, :w]) is None


def test_a_sharp_picture_shows_no_smear() -> None:
    assert estimate_motion(cv2.cvtColor(_card(), cv2.COLOR_BGR2GRAY)) is None


def test_the_line_kernel_sums_to_one_and_lies_along_the_motion() -> None:
    k = line_kernel(6, 0)
    assert k.sum() == pytest.approx(1.0)
    c = k.shape[0] // 2
    assert k[c].sum() == pytest.approx(1.0, abs=1e-6)  # all on the middle row


@pytest.mark.parametrize(("dx", "dy"), [(13, 0), (15, 15)])
def test_a_smeared_card_is_read_only_with_the_smear_taken_back(dx: int, dy: int) -> None:
    decoders = {n: d for n, d in available_decoders().items() if n != "wechat"}  # cheap, no worker
    if "zxing" not in decoders:
        pytest.skip("zxing-cpp is not installed")
    smeared = _smear(_card(), dx, dy)
    firsts = []
    for on in (False, True):
        rng = np.random.default_rng(5)
        reader = CameraReader(Pipeline(decoders=decoders, remember_roi=True, heavy_interval_s=1.0), second_looks=on)
        reads = [reader.read(noise(smeared, rng, 2)) for _ in range(STACK_AT[-1] + 2)]
        assert all(c == P for r in reads for c in r.codes)
        firsts.append(next((i for i, r in enumerate(reads) if r.codes), None))
    assert firsts[0] is None  # the ladder and the stacking alone never read it
    assert firsts[1] == STACK_AT[0] - 1  # read on the first stacked mean


def test_a_code_read_from_the_half_size_unsmeared_mean_is_placed_in_frame_pixels() -> None:
    decoders = {n: d for n, d in available_decoders().items() if n != "wechat"}
    if "zxing" not in decoders:
        pytest.skip("zxing-cpp is not installed")
    card = _card()
    smeared = _smear(card, 13, 0)
    rng = np.random.default_rng(5)
    reader = CameraReader(Pipeline(decoders=decoders, remember_roi=True, heavy_interval_s=1.0))
    read = next(r for r in (reader.read(noise(smeared, rng, 2)) for _ in range(STACK_AT[0])) if r.codes)
    assert read.result is not None
    pts = np.array(read.result.points[P])
    ys, xs = np.nonzero((card != 120).any(axis=2))  # the code's tile on the grey frame
    # the corners lie on the tile's finder patterns (within a module or two), not at half those coordinates
    assert xs.min() - 16 <= pts[:, 0].min() and pts[:, 0].max() <= xs.max() + 16
    assert ys.min() - 16 <= pts[:, 1].min() and pts[:, 1].max() <= ys.max() + 16
    assert pts[:, 0].max() - pts[:, 0].min() > 0.6 * (xs.max() - xs.min())
