"""Glare: a lamp's reflection on a card is evened out before the stacked mean is decoded again, and
on an empty stand it is no feature at all."""

from __future__ import annotations

import numpy as np
import pytest
from _qrgen import camouflage, low_contrast, noise, place, qr_tile

from kipukas_board.vision.decoders import available_decoders
from kipukas_board.vision.light import even_light, glare
from kipukas_board.vision.pipeline import Pipeline
from kipukas_board.vision.reader import STACK_AT, CameraReader

P = "kpks.us/RrDC#0001?DmFz33"


def _spot(img: np.ndarray, amplitude: float = 160.0, sigma: float = 60.0) -> np.ndarray:
    """A bright Gaussian spot (saturating) a little left of and above the middle."""
    h, w = img.shape[:2]
    ys, xs = np.ogrid[:h, :w]
    spot = amplitude * np.exp(-((xs - 0.47 * w) ** 2 + (ys - 0.47 * h) ** 2) / (2 * sigma ** 2))
    return np.clip(img.astype(np.float32) + spot[..., None], 0, 255).astype(np.uint8)


def _faint_card() -> np.ndarray:
    rng = np.random.default_rng(4)
    return low_contrast(place([camouflage(qr_tile(P, px=8), rng, 0.5)], size=(360, 640)), 0.5)


def test_glare_is_said_only_where_highlights_are_blown_out() -> None:
    card = _faint_card()
    assert glare(_spot(card)[:, :, 1]) and not glare(card[:, :, 1])


def test_even_light_brings_the_modules_to_one_contrast_inside_and_outside_the_spot() -> None:
    ys, xs = np.mgrid[:360, :640]
    modules = np.where((xs // 8 + ys // 8) % 2 == 0, 70, 130).astype(np.uint8)
    lit = _spot(np.dstack([modules] * 3), 160.0)
    out = even_light(lit)
    assert out.shape == lit.shape and out.dtype == np.uint8

    def contrast(img: np.ndarray, y: int, x: int) -> int:
        patch = img[y:y + 16, x:x + 16, 1].astype(int)
        return int(patch.max() - patch.min())

    inside, outside = (169, 301), (16, 16)
    assert contrast(lit, *inside) < 0.7 * contrast(lit, *outside)  # the spot blows the light modules out
    assert abs(contrast(out, *inside) - contrast(out, *outside)) < 0.2 * contrast(out, *outside)


def test_a_card_under_glare_is_read_only_with_the_light_evened_out() -> None:
    decoders = {n: d for n, d in available_decoders().items() if n != "wechat"}  # cheap, no worker
    if "zxing" not in decoders:
        pytest.skip("zxing-cpp is not installed")
    lit = _spot(_faint_card())
    firsts = []
    for on in (False, True):
        rng = np.random.default_rng(5)
        reader = CameraReader(Pipeline(decoders=decoders, remember_roi=True, heavy_interval_s=1.0), second_looks=on)
        reads = [reader.read(noise(lit, rng, 2)) for _ in range(STACK_AT[-1] + 2)]
        assert all(c == P for r in reads for c in r.codes)
        firsts.append(next((i for i, r in enumerate(reads) if r.codes), None))
    assert firsts == [None, STACK_AT[0] - 1]


def test_a_lamps_reflection_on_an_empty_stand_costs_no_decoder_past_the_first_cheap_one() -> None:
    from kipukas_board.vision.pipeline import DEFAULT_STRATEGIES

    rng = np.random.default_rng(6)
    empty = noise(_spot(np.full((720, 1280, 3), 128, np.uint8), 170.0, 144.0), rng, 2)
    result = Pipeline().decode(empty)
    assert result.featureless and result.tried == [DEFAULT_STRATEGIES[0].name]
