"""The decode pipeline on generated frames: rotation, blur, noise, low contrast, camouflage, two codes."""

from __future__ import annotations

import numpy as np
import pytest
from _qrgen import blur, camouflage, low_contrast, noise, place, qr_tile, rotate

from kipukas_board.vision.decoders import Decoded, available_decoders
from kipukas_board.vision.pipeline import DEFAULT_STRATEGIES, Pipeline, Strategy
from kipukas_board.vision.preprocess import Frame, FrameError

P = "kpks.us/RrDC#0001?DmFz33"
Q = "kpks.us/HMPU#0004?BFxDCJ"
SHORT = "https://www.kpks.us/frlU"


def test_every_decoder_is_installed_for_the_tests() -> None:
    assert set(available_decoders()) == {"zxing", "pyzbar", "wechat"}


@pytest.mark.parametrize("name, make", [
    ("plain", lambda rng: place([qr_tile(P)])),
    ("rotated 30", lambda rng: rotate(place([qr_tile(P)]), 30)),
    ("rotated -75", lambda rng: rotate(place([qr_tile(P)]), -75)),
    ("blurred", lambda rng: blur(place([qr_tile(P)]), 2.5)),
    ("noisy", lambda rng: noise(place([qr_tile(P)]), rng, 25)),
    ("low contrast", lambda rng: low_contrast(place([qr_tile(P)]), 0.25)),
    ("camouflaged", lambda rng: place([camouflage(qr_tile(P), rng)])),
    ("camouflaged, blurred, rotated", lambda rng: rotate(blur(place([camouflage(qr_tile(P), rng)]), 1.5), -20)),
    ("small and far", lambda rng: place([camouflage(qr_tile(P, px=5), rng)])),
])
def test_reads_generated_frames(name: str, make) -> None:
    frame = make(np.random.default_rng(7))
    result = Pipeline().decode(frame)
    assert result.codes == [P], name
    assert result.ms > 0 and result.tried


def test_reads_two_codes_in_one_frame() -> None:
    rng = np.random.default_rng(3)
    frame = place([camouflage(qr_tile(P), rng), camouflage(qr_tile(SHORT), rng)], positions=[(200, 100), (180, 800)])
    assert sorted(Pipeline().decode(frame).codes) == sorted([P, SHORT])


def test_grey_frames_work_too() -> None:
    frame = Frame(place([qr_tile(Q)])).channel("gray")
    assert Pipeline().decode(frame).codes == [Q]


def test_a_non_kipukas_code_is_refused_with_its_reason() -> None:
    result = Pipeline().decode(place([qr_tile("https://evil.example/steal")]))
    assert result.codes == []
    assert "evil.example" in result.refused["https://evil.example/steal"]


def test_a_frame_of_lava_texture_without_a_code_gives_nothing() -> None:
    rng = np.random.default_rng(0)
    frame = place([camouflage(np.full((300, 300, 3), (40, 190, 235), np.uint8), rng, 0.8)], size=(360, 640))
    result = Pipeline().decode(frame)
    assert result.codes == [] and result.refused == {}


def test_a_destroyed_code_is_not_guessed() -> None:
    """Half the code painted over: nothing may come back, least of all a 'close' payload."""
    tile = qr_tile(P)
    tile[:, : tile.shape[1] // 2] = tile[0, 0]
    assert Pipeline().decode(place([tile])).codes == []


@pytest.mark.parametrize("bad, what", [
    ("not an array", "numpy array"),
    (np.zeros((720, 1280), np.float32), "uint8"),
    (np.zeros((720, 1280, 2), np.uint8), "shape"),
    (np.zeros((10, 10), np.uint8), "too small"),
])
def test_bad_frames_are_named(bad, what) -> None:
    with pytest.raises(FrameError, match=what):
        Pipeline().decode(bad)


class _Fake:
    """A decoder that returns fixed texts and counts its calls."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.calls = 0

    def __call__(self, image) -> list[Decoded]:
        self.calls += 1
        return [Decoded(t, ((10.0, 10.0), (60.0, 10.0), (60.0, 60.0), (10.0, 60.0))) for t in self.texts]


def _tick_clock(step_ms: float):
    t = [0.0]

    def clock() -> float:
        t[0] += step_ms / 1000
        return t[0]

    return clock


def test_stops_at_the_first_strategy_that_reads_a_valid_code() -> None:
    miss, hit, later = _Fake([]), _Fake([P]), _Fake([Q])
    strategies = [Strategy("miss", "gray", 0.5, "none", 1.0), Strategy("hit", "gray", 0.5, "none", 1.0),
                  Strategy("later", "gray", 1.0, "none", 20.0)]
    p = Pipeline(strategies, decoders={"miss": miss, "hit": hit, "later": later}, sweep_ms=2.0)
    assert p.decode(place([qr_tile(P)])).codes == [P]
    assert (miss.calls, hit.calls, later.calls) == (1, 1, 0)


def test_invalid_payloads_do_not_stop_the_search() -> None:
    junk, hit = _Fake(["hello world"]), _Fake([P])
    strategies = [Strategy("junk", "gray", 0.5, "none", 1.0), Strategy("hit", "gray", 0.5, "none", 1.0)]
    result = Pipeline(strategies, decoders={"junk": junk, "hit": hit}).decode(place([qr_tile(P)]))
    assert result.codes == [P] and "hello world" in result.refused


def test_budget_skips_strategies_that_would_overrun() -> None:
    cheap, dear = _Fake([]), _Fake([P])
    strategies = [Strategy("cheap", "gray", 0.5, "none", 5.0), Strategy("dear", "gray", 0.5, "none", 100.0)]
    p = Pipeline(strategies, budget_ms=50, decoders={"cheap": cheap, "dear": dear}, clock=_tick_clock(1.0))
    result = p.decode(place([qr_tile(P)]))
    assert result.codes == [] and result.over_budget and dear.calls == 0 and cheap.calls == 1


def test_the_budget_counts_cpu_time_not_wall_time() -> None:
    """On a busy machine a frame's wall time grows while its CPU time does not: the same strategies
    run, so the same codes are read. Only CPU time spent past ``slack`` times the budget can stop a
    frame short, and it says so."""
    a, b, c = _Fake([]), _Fake([]), _Fake([P])
    strategies = [Strategy("a", "gray", 0.5, "none", 5.0), Strategy("b", "gray", 0.5, "none", 5.0),
                  Strategy("c", "gray", 0.5, "none", 5.0)]
    decoders = {"a": a, "b": b, "c": c}
    busy = Pipeline(strategies, budget_ms=20, decoders=decoders, clock=_tick_clock(1000.0),
                    cpu_clock=_tick_clock(1.0)).decode(place([qr_tile(P)]))
    assert busy.codes == [P] and not busy.over_budget and busy.budget_note() is None
    assert busy.ms >= 1000 and busy.cpu_ms < 20
    slow = Pipeline(strategies, budget_ms=20, decoders=decoders, clock=_tick_clock(1.0),
                    cpu_clock=_tick_clock(15.0)).decode(place([qr_tile(P)]))
    # 15 ms of CPU per clock reading: 15 spent before "a", 30 before "b", 45 (> 40) before "c"
    assert slow.codes == [] and slow.over_budget and slow.skipped == ["c@0.5/gray/none"]
    note = slow.budget_note()
    assert note is not None and "c@0.5/gray/none" in note and "--budget-ms" in note


def test_held_back_heavy_passes_are_not_over_budget_and_a_thorough_pass_runs_them() -> None:
    cheap, heavy = _Fake([]), _Fake([P])
    strategies = [Strategy("cheap", "gray", 0.5, "none", 1.0), Strategy("heavy", "gray", 0.5, "none", 20.0)]
    now = [0.0]
    p = Pipeline(strategies, decoders={"cheap": cheap, "heavy": heavy}, heavy_interval_s=1.0, clock=lambda: now[0])
    first = p.decode(place([qr_tile(P)]))
    assert first.codes == [P] and first.complete
    now[0] = 0.2
    second = p.decode(place([qr_tile(P)]))
    assert second.codes == [] and second.held_back == ["heavy@0.5/gray/none"]
    assert not second.over_budget and not second.complete
    third = p.decode(place([qr_tile(P)]), thorough=True)
    assert third.codes == [P] and third.complete and heavy.calls == 2


def test_an_isolated_wechat_is_stopped_at_its_cpu_deadline_and_replaced() -> None:
    """WeChat on sensor noise runs for seconds; in its worker process it is killed once it has used
    its deadline of CPU time, and the next image gets a fresh worker that reads it."""
    from kipukas_board.vision.decoders import DecoderTimeout
    from kipukas_board.vision.isolated import IsolatedDecoder

    static = np.random.default_rng(8).integers(0, 256, (540, 960), dtype=np.uint8)
    dec = IsolatedDecoder("wechat")
    try:
        with pytest.raises(DecoderTimeout, match="stopped after"):
            dec(static, deadline_ms=40)
        assert dec.kills == 1 and dec.last_cpu_ms >= 40
        card = place([qr_tile(P)], size=(360, 640))[:, :, 1]
        assert [d.text for d in dec(card, deadline_ms=5000)] == [P]
        assert dec.cpu_ms() >= 40
    finally:
        dec.close()


def test_a_frame_whose_wechat_pass_ran_out_of_budget_says_so() -> None:
    static = np.random.default_rng(9).integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    p = Pipeline([Strategy("wechat", "gray", 0.75, "strong", 15.0), Strategy("wechat", "gray", 1.0, "sharp", 10.0)],
                 budget_ms=30, isolate=True)
    try:
        result = p.decode(static)
    finally:
        p.close()
    # killed after twice the 30 ms its plan left it; the frame ends there, the next strategy is skipped
    assert result.codes == [] and result.over_budget and result.interrupted == ["wechat@0.75/gray/strong"]
    assert result.skipped == ["wechat@1/gray/sharp"] and result.cpu_ms >= 60
    assert "wechat@0.75/gray/strong" in result.budget_note()


def test_a_crashing_decoder_is_reported_not_raised() -> None:
    def boom(image):
        raise RuntimeError("segfault avoided")

    hit = _Fake([P])
    strategies = [Strategy("boom", "gray", 0.5, "none", 1.0), Strategy("hit", "gray", 0.5, "none", 1.0)]
    result = Pipeline(strategies, decoders={"boom": boom, "hit": hit}).decode(place([qr_tile(P)]))
    assert result.codes == [P] and result.refused == {} and "segfault" in result.errors[0]


def test_roi_from_the_last_hit_is_tried_first_on_a_camera() -> None:
    frame = place([camouflage(qr_tile(P), np.random.default_rng(5))], positions=[(100, 200)])
    p = Pipeline(remember_roi=True, full_every_s=60.0)
    first = p.decode(frame)
    assert first.codes == [P] and p._roi is not None
    second = p.decode(frame)
    assert second.codes == [P] and len(second.tried) == 1  # the region alone was enough
    gone = noise(np.full_like(frame, 128), np.random.default_rng(6), 25)  # a busy, empty view
    third = p.decode(gone)  # card gone: one miss there, and the card gets another frame
    assert third.codes == [] and p._roi is not None and "zxing@0.5/gray/clahe_sharp" not in third.tried[1:]
    fourth = p.decode(gone)  # a second miss in a row: the region is forgotten
    assert fourth.codes == [] and p._roi is None


def test_a_full_pass_still_runs_now_and_then_to_catch_a_second_card() -> None:
    one = place([qr_tile(P)], positions=[(100, 100)])
    both = place([qr_tile(P), qr_tile(Q)], positions=[(100, 100), (100, 700)])
    now = [0.0]
    p = Pipeline(remember_roi=True, full_every_s=0.5, clock=lambda: now[0])
    assert p.decode(one).codes == [P]
    now[0] = 0.2
    assert p.decode(both).codes == [P]  # the region of the first card was enough
    now[0] = 0.6
    assert sorted(p.decode(both).codes) == sorted([P, Q])  # a full pass is due


def test_heavy_strategies_run_at_most_once_per_interval_on_a_camera() -> None:
    cheap, heavy = _Fake([]), _Fake([])
    strategies = [Strategy("cheap", "gray", 0.5, "none", 1.0), Strategy("heavy", "gray", 0.5, "none", 20.0)]
    now = [0.0]
    p = Pipeline(strategies, decoders={"cheap": cheap, "heavy": heavy}, heavy_interval_s=1.0, clock=lambda: now[0])
    frame = place([qr_tile(P)])
    for t in (0.0, 0.1, 0.5, 0.99, 1.0, 1.5, 2.2):
        now[0] = t
        p.decode(frame)
    assert cheap.calls == 7 and heavy.calls == 3  # at 0.0, 1.0 and 2.2
    assert Pipeline(strategies, decoders={"cheap": cheap, "heavy": heavy}).heavy_interval_s is None


def test_default_strategies_only_name_known_preparations() -> None:
    f = Frame(np.zeros((64, 64, 3), np.uint8))
    for s in DEFAULT_STRATEGIES:
        assert f.image(s.channel, s.scale, s.prep).dtype == np.uint8


@pytest.mark.parametrize("channel", ["gray", "blue", "green", "red", "min"])
@pytest.mark.parametrize("scale", [0.5, 0.75])
def test_a_smaller_channel_is_the_channel_made_smaller(channel: str, scale: float) -> None:
    """A channel at a scale below 1 is the whole frame's channel made smaller, pixel for pixel: the
    darkest channel too, which taken from the colour frame made smaller would differ (the darkest of
    averages is not the average of the darkest), and which the strategies were measured with."""
    import cv2

    rng = np.random.default_rng(5)
    bgr = cv2.GaussianBlur(rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8), (0, 0), 2)
    f = Frame(bgr)
    small = f.scaled(channel, scale)
    if channel == "gray":
        whole = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    elif channel == "min":
        whole = bgr.min(axis=2)
    else:
        whole = bgr[:, :, ("blue", "green", "red").index(channel)].copy()
    want = cv2.resize(whole, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    assert small.shape == want.shape and small.dtype == np.uint8
    assert np.array_equal(small, want)


def test_a_half_resolution_frame_is_sharpened_as_the_full_one_made_as_small() -> None:
    """The strategies' sharpening is sized to the code's modules: a 640x360 frame at working scale
    1.0 shows them as a 1280x720 frame does at 0.5, and gets the same unsharp mask (within the
    rounding of the two shrinks), not one twice as wide."""
    import cv2

    from kipukas_board.vision.pipeline import _working_scale

    full = place([camouflage(qr_tile(P), np.random.default_rng(2))])
    half = cv2.resize(full, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    for prep in ("sharp", "strong", "clahe_sharp", "deblur"):
        want = Frame(full).image("gray", 0.5, prep).astype(int)
        s = _working_scale(0.5, Frame(half))
        sized = Frame(half).image("gray", s, prep, detail=0.5).astype(int)
        wide = Frame(half).image("gray", s, prep).astype(int)
        assert s == 1.0
        assert np.abs(sized - want).mean() < np.abs(wide - want).mean() / 2, prep
    seen: list[np.ndarray] = []

    def record(image: np.ndarray) -> list[Decoded]:
        seen.append(image)
        return []

    Pipeline([Strategy("zxing", "gray", 0.5, "strong", 1.0)], decoders={"zxing": record}).decode(half)
    assert np.array_equal(seen[0], Frame(half).image("gray", 1.0, "strong", detail=0.5))


class _Seen(_Fake):
    """A fake that keeps every image it was given."""

    def __init__(self, texts: list[str]) -> None:
        super().__init__(texts)
        self.images: list[np.ndarray] = []

    def __call__(self, image) -> list[Decoded]:
        self.images.append(image)
        return super().__call__(image)


def test_the_crops_of_a_half_resolution_frame_are_sharpened_as_the_full_ones_too() -> None:
    """A located region and a remembered one are prepared from their crop of the frame: at half
    resolution they too get the mask sized to the strategy's scale (the code's modules), not to the
    working scale, which is twice it there."""
    from kipukas_board.vision.pipeline import _regions

    half = place([camouflage(qr_tile(P, px=5), np.random.default_rng(3))], size=(360, 640))
    finder, crop = _Locator((300.0, 150.0, 320.0, 170.0)), _Seen([P])
    result = Pipeline([Strategy("finder", "gray", 0.5, "none", 1.0),
                       Strategy("crop", "gray", 1.0, "strong", 4.0, located=True)],
                      decoders={"finder": finder, "crop": crop}).decode(half)
    assert result.codes == [P]
    (x0, y0, x1, y1), = _regions(result.located, (360, 640))
    region = Frame(half[y0:y1, x0:x1])
    assert np.array_equal(crop.images[0], region.image("gray", 2.0, "strong", detail=1.0))
    assert not np.array_equal(crop.images[0], region.image("gray", 2.0, "strong"))

    own = _Seen([P])
    p = Pipeline([Strategy("own", "gray", 0.5, "strong", 1.0)], decoders={"own": own}, remember_roi=True,
                 full_every_s=60.0)
    corner = place([camouflage(qr_tile(P, px=5), np.random.default_rng(3))], size=(360, 640), positions=[(5, 5)])
    assert p.decode(corner).codes == [P] and p.decode(corner).codes == [P]  # the fake's points lie on the code
    x0, y0, x1, y1 = p._roi[1]
    remembered = Frame(corner[y0:y1, x0:x1])
    assert own.images[1].shape == (y1 - y0, x1 - x0)  # the second frame looked at the region alone
    assert np.array_equal(own.images[1], remembered.image("gray", 1.0, "strong", detail=0.5))
    assert not np.array_equal(own.images[1], remembered.image("gray", 1.0, "strong"))


def test_zxing_is_asked_for_neither_its_turned_nor_its_shrunk_search(monkeypatch) -> None:
    """A QR code's finder patterns are found at any angle, and the strategies choose the scales:
    zxing's own retries on a miss (turning the image, shrinking it) only cost time, so they are off,
    and a code at any angle is still read."""
    from kipukas_board.vision.decoders import ZxingDecoder

    zx = ZxingDecoder()
    asked: list[dict] = []
    real = zx._zx.read_barcodes

    class _Spy:
        def __getattr__(self, name: str):
            return getattr(zx._zx, name)

        @staticmethod
        def read_barcodes(image, **kwargs):
            asked.append(kwargs)
            return real(image, **kwargs)

    monkeypatch.setattr(zx, "_zx", _Spy())
    grey = Frame(place([qr_tile(P)])).channel("gray")
    for degrees in (0, 45, 90, 135, 200):
        assert [d.text for d in zx(Frame(rotate(place([qr_tile(P)]), degrees)).channel("gray"))] == [P], degrees
    assert zx(np.full_like(grey, 128)) == []
    assert asked and all(not a["try_rotate"] and not a["try_downscale"] and not a["try_invert"] for a in asked)


def test_a_name_that_is_no_channel_is_refused_after_a_shrink_and_no_mask_gets_anothers_image() -> None:
    """A channel made smaller is cached, but a name that is no channel is refused after a shrink as
    before one. An image is cached under the mask width it was made with, and CLAHE, which has none,
    is made once whatever width is asked for."""
    f = Frame(np.random.default_rng(1).integers(0, 256, (64, 96, 3), dtype=np.uint8))
    f.scaled("blue", 0.5)
    with pytest.raises(ValueError, match="unknown channel 'bgr'"):
        f.image("bgr", 0.5, "none")
    wide, narrow = f.image("gray", 1.0, "strong"), f.image("gray", 1.0, "strong", detail=0.5)
    assert not np.array_equal(wide, narrow)
    assert np.array_equal(narrow, Frame(f.bgr).image("gray", 1.0, "strong", detail=0.5))
    assert f.image("gray", 1.0, "clahe", detail=0.5) is f.image("gray", 1.0, "clahe")


def test_an_unknown_channel_is_named_on_grey_frames_too() -> None:
    with pytest.raises(ValueError, match="unknown channel 'purple'"):
        Frame(np.zeros((64, 64), np.uint8)).image("purple", 0.5, "none")


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from kipukas_board.cards.payload import PayloadError, parse_payload  # noqa: E402


def _is_kipukas(text: str) -> bool:
    try:
        parse_payload(text)
    except PayloadError:
        return False
    return True


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=40))
def test_qr_codes_with_other_payloads_are_never_returned(text: str) -> None:
    """Real QR images of arbitrary text: the pipeline returns them only if they are Kipukas payloads."""
    result = Pipeline().decode(place([qr_tile(text, px=6)], size=(360, 640)))
    assert all(_is_kipukas(c) for c in result.codes)
    if not _is_kipukas(text):
        assert result.codes == []


def test_working_size_does_not_depend_on_resolution_or_orientation() -> None:
    from kipukas_board.vision.pipeline import _working_scale

    assert _working_scale(0.5, Frame(np.zeros((720, 1280, 3), np.uint8))) == 0.5
    assert _working_scale(0.5, Frame(np.zeros((1280, 720, 3), np.uint8))) == 0.5
    assert _working_scale(0.5, Frame(np.zeros((360, 640, 3), np.uint8))) == 1.0
    small = place([camouflage(qr_tile(P, px=5), np.random.default_rng(2))], size=(360, 640))
    assert Pipeline().decode(small).codes == [P]


def test_a_card_only_a_heavy_decoder_reads_is_looked_at_once_per_heavy_interval() -> None:
    """Its region is retried with the heavy decoder at most once per interval, and the full pass
    waits too, so a held card that only WeChat reads does not cost a heavy pass on every frame."""
    cheap, heavy = _Fake([]), _Fake([P])
    strategies = [Strategy("cheap", "gray", 0.5, "none", 1.0), Strategy("heavy", "gray", 0.5, "none", 20.0)]
    now = [0.0]
    p = Pipeline(strategies, decoders={"cheap": cheap, "heavy": heavy}, remember_roi=True, full_every_s=0.5,
                 heavy_interval_s=1.0, clock=lambda: now[0])
    frame = place([qr_tile(P)])
    seen = []
    for t in (0.0, 0.1, 0.2, 0.3, 0.4, 1.05, 1.1):
        now[0] = t
        seen.append(p.decode(frame).codes)
    assert seen == [[P], [], [], [], [], [P], []]
    assert heavy.calls == 2 and cheap.calls == 2  # full passes at 0.0 and 1.05 (due), the region at 1.05


class _Locator:
    """A decoder that locates a symbol (corner points in its image) without decoding it."""

    def __init__(self, box: tuple[float, float, float, float] | None) -> None:
        self.box = box
        self.calls = 0

    def __call__(self, image) -> list[Decoded]:
        self.calls += 1
        if self.box is None:
            return []
        x0, y0, x1, y1 = self.box
        return [Decoded("", ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), located=True)]


class _Shapes(_Fake):
    """A fake that also notes the shape of every image it was given."""

    def __init__(self, texts: list[str]) -> None:
        super().__init__(texts)
        self.shapes: list[tuple[int, ...]] = []

    def __call__(self, image) -> list[Decoded]:
        self.shapes.append(image.shape)
        return super().__call__(image)


def test_a_located_symbol_is_decoded_again_on_its_region_alone() -> None:
    """A symbol located but not decoded is a place, never a read: the ``located`` strategy looks at
    a square four times its size around it, and a code read there has frame coordinates."""
    finder, crop = _Locator((300.0, 150.0, 320.0, 170.0)), _Shapes([P])  # at half size: 40 px at (600, 300)
    strategies = [Strategy("finder", "gray", 0.5, "none", 1.0),
                  Strategy("crop", "gray", 1.0, "none", 4.0, located=True)]
    result = Pipeline(strategies, decoders={"finder": finder, "crop": crop}).decode(place([qr_tile(P)]))
    assert result.codes == [P] and result.refused == {}
    assert crop.shapes == [(160, 160)]  # 4 x 40 px around (620, 320), not the 720x1280 frame
    assert result.hits == {"crop@1/gray/none/located": [P]}
    assert result.points[P][0] == (540.0 + 10, 240.0 + 10)  # the fake's (10, 10) in the region
    assert result.located == [((600.0, 300.0), (640.0, 300.0), (640.0, 340.0), (600.0, 340.0))]


def test_a_located_strategy_does_not_run_when_nothing_was_located() -> None:
    finder, crop = _Locator(None), _Shapes([P])
    strategies = [Strategy("finder", "gray", 0.5, "none", 1.0),
                  Strategy("crop", "gray", 1.0, "none", 4.0, located=True)]
    result = Pipeline(strategies, decoders={"finder": finder, "crop": crop}).decode(place([qr_tile(P)]))
    assert result.codes == [] and crop.calls == 0 and result.tried == ["finder@0.5/gray/none"]
    assert not result.over_budget and not result.skipped


def test_regions_grow_around_the_symbol_clip_and_keep_only_small_distinct_ones() -> None:
    from kipukas_board.vision.pipeline import MAX_REGIONS, _regions

    def sym(x: float, y: float, side: float) -> tuple[tuple[float, float], ...]:
        return ((x, y), (x + side, y), (x + side, y + side), (x, y + side))

    assert _regions([sym(600, 300, 40)], (720, 1280)) == [(540, 240, 700, 400)]
    assert _regions([sym(0, 0, 40)], (720, 1280)) == [(0, 0, 100, 100)]  # clipped at the frame's edge
    assert _regions([sym(300, 100, 300)], (720, 1280)) == []  # 1200 px around it: the whole frame again
    # the same symbol found by two passes is one region; the largest regions come first
    many = [sym(600, 300, 40), sym(602, 301, 40), sym(100, 100, 20), sym(1000, 500, 60)]
    assert _regions(many, (720, 1280)) == [(910, 410, 1150, 650), (540, 240, 700, 400)][:MAX_REGIONS]


def test_a_small_codes_region_is_retried_with_the_located_strategies_when_its_own_misses() -> None:
    """On a camera a hand-held small code is read by one decoder on one frame and another on the
    next: the region keeps being read for a few ms, not by whole-frame passes."""
    first, crop = _Fake([P]), _Shapes([P])
    strategies = [Strategy("first", "gray", 0.5, "none", 1.0), Strategy("crop", "gray", 1.0, "none", 4.0, located=True)]
    p = Pipeline(strategies, decoders={"first": first, "crop": crop}, remember_roi=True, full_every_s=60.0)
    frame = place([qr_tile(P)])
    assert p.decode(frame).codes == [P] and crop.calls == 0
    first.texts = []  # its own strategy now misses there
    again = p.decode(frame)
    assert again.codes == [P] and again.tried == ["first@0.5/gray/none", "crop@1/gray/none/located"]
    assert crop.shapes[0][0] < 200  # the region (50 px grown by half each way), not the frame



def test_a_heavy_located_strategy_on_a_small_codes_region_waits_for_the_heavy_interval() -> None:
    """The region's located retries are held back by the heavy interval as the whole-frame passes are:
    a card the cheap pass read a moment ago costs no heavy retry when it misses on a noisy frame."""
    first, heavy = _Fake([P]), _Shapes([P])
    strategies = [Strategy("first", "gray", 0.5, "none", 1.0),
                  Strategy("heavy", "gray", 1.0, "none", 20.0, located=True)]
    now = [0.0]
    p = Pipeline(strategies, decoders={"first": first, "heavy": heavy}, remember_roi=True, full_every_s=60.0,
                 heavy_interval_s=1.0, roi_misses=10, clock=lambda: now[0])
    frame = place([qr_tile(P)])
    assert p.decode(frame).codes == [P] and p._roi is not None
    first.texts = []  # its own strategy now misses on the region
    now[0] = 0.1
    held = p.decode(frame)
    assert held.codes == [] and heavy.calls == 0 and held.held_back == ["heavy@1/gray/none/located"]
    now[0] = 1.2  # a heavy interval without a cheap read: the heavy retry may run, once
    assert p.decode(frame).codes == [P] and heavy.calls == 1
    now[0] = 1.5  # within the interval of that heavy retry: the next one waits
    again = p.decode(frame)
    assert again.codes == [] and heavy.calls == 1 and again.held_back == ["heavy@1/gray/none/located"]
    now[0] = 2.3
    assert p.decode(frame).codes == [P] and heavy.calls == 2


def test_a_heavy_located_strategy_held_back_on_the_region_and_the_whole_frame_is_named_once() -> None:
    """A region that misses ends with its last chance and the whole frame is searched in the same
    frame: the heavy located strategy waits in both, and the frame names it once."""
    class ReadsThenLocates(_Fake):
        def __call__(self, image) -> list[Decoded]:
            self.calls += 1
            if self.calls == 1:
                return [Decoded(P, ((100.0, 100.0), (150.0, 100.0), (150.0, 150.0), (100.0, 150.0)))]
            return [Decoded("", ((10.0, 10.0), (30.0, 10.0), (30.0, 30.0), (10.0, 30.0)), located=True)]

    first, heavy = ReadsThenLocates([]), _Fake([P])
    strategies = [Strategy("first", "gray", 0.5, "none", 1.0),
                  Strategy("heavy", "gray", 1.0, "none", 20.0, located=True)]
    now = [0.0]
    p = Pipeline(strategies, decoders={"first": first, "heavy": heavy}, remember_roi=True, full_every_s=60.0,
                 heavy_interval_s=1.0, roi_misses=1, clock=lambda: now[0])
    frame = place([qr_tile(P)])
    assert p.decode(frame).codes == [P] and p._roi is not None
    now[0] = 0.1
    held = p.decode(frame)
    # the region's retry and the whole frame's pass on its located symbol were both held back
    assert held.tried == ["first@0.5/gray/none", "first@0.5/gray/none"] and heavy.calls == 0
    assert held.held_back == ["heavy@1/gray/none/located"]


def test_a_card_the_cheap_passes_read_a_moment_ago_costs_no_heavy_pass_when_a_frame_misses() -> None:
    cheap, heavy = _Fake([P]), _Fake([P])
    strategies = [Strategy("cheap", "gray", 0.5, "none", 1.0), Strategy("heavy", "gray", 0.5, "none", 20.0)]
    now = [0.0]
    p = Pipeline(strategies, decoders={"cheap": cheap, "heavy": heavy}, heavy_interval_s=1.0, clock=lambda: now[0])
    frame = place([qr_tile(P)])
    assert p.decode(frame).codes == [P]
    cheap.texts = []  # a noisy frame of the same card
    now[0] = 0.5
    missed = p.decode(frame)
    assert missed.codes == [] and missed.held_back == ["heavy@0.5/gray/none"] and heavy.calls == 0
    now[0] = 1.1  # no cheap read for a heavy interval: the heavy pass may run again
    assert p.decode(frame).codes == [P] and heavy.calls == 1
    now[0] = 1.2
    assert p.decode(frame, thorough=True).codes == [P] and heavy.calls == 2  # a thorough pass runs it


def test_a_featureless_frame_skips_every_strategy_but_a_faint_small_code_does_not() -> None:
    """A covered lens or a bare wall in sensor noise costs no decoder past the first cheap one (WeChat
    would spend its whole deadline there); a small code at a quarter of its contrast is still looked
    at, and read."""
    from kipukas_board.vision.pipeline import DEFAULT_STRATEGIES, _featureless

    rng = np.random.default_rng(4)
    for flat in (noise(np.full((720, 1280, 3), 128, np.uint8), rng, 4), np.zeros((720, 1280, 3), np.uint8)):
        result = Pipeline().decode(flat)
        assert result.tried == [DEFAULT_STRATEGIES[0].name] and result.codes == [] and result.featureless
        assert result.complete and not result.over_budget
    faint = low_contrast(place([qr_tile(P, px=5)]), 0.25)
    assert not _featureless(Frame(faint))
    assert Pipeline().decode(faint).codes == [P]



@pytest.mark.parametrize("costs", [(5.0, 5.0), (5.0, 20.0)])
def test_a_featureless_frame_is_not_over_budget_for_strategies_it_never_needed(costs) -> None:
    """A budget smaller than the first strategy's cost runs nothing; on an empty stand nothing was lost
    (no code can be there), so the frame is featureless and complete, not cut short by the budget."""
    cheap, other = _Fake([]), _Fake([])
    strategies = [Strategy("cheap", "gray", 0.5, "none", costs[0]), Strategy("other", "gray", 0.5, "none", costs[1])]
    p = Pipeline(strategies, budget_ms=1.0, decoders={"cheap": cheap, "other": other})
    empty = p.decode(np.full((720, 1280, 3), 128, np.uint8))
    assert empty.featureless and empty.complete and empty.tried == [] and cheap.calls == other.calls == 0
    assert not empty.over_budget and empty.skipped == [] and empty.budget_note() is None
    card = p.decode(place([qr_tile(P)]))  # a frame with a code: the budget did cut it short
    assert not card.featureless and card.over_budget and card.skipped == ["cheap@0.5/gray/none", "other@0.5/gray/none"]


def test_a_frame_the_first_strategy_reads_never_pays_the_look_for_features(monkeypatch) -> None:
    """The look costs a quarter of a millisecond; a read shows a code, so a frame the first cheap
    strategy reads (most frames with a card) is spared it, and one it misses is looked at once."""
    import kipukas_board.vision.pipeline as pipeline

    looks: list[int] = []
    real = pipeline._featureless
    monkeypatch.setattr(pipeline, "_featureless", lambda frame: looks.append(1) or real(frame))
    result = Pipeline().decode(place([qr_tile(P)]))
    assert result.codes == [P] and len(result.tried) == 1 and looks == []
    assert Pipeline().decode(np.full((720, 1280, 3), 128, np.uint8)).featureless and looks == [1]
    textured = Pipeline().decode(place([camouflage(np.full((300, 300, 3), (40, 190, 235), np.uint8),
                                                   np.random.default_rng(0), 0.8)]))
    assert not textured.featureless and len(textured.tried) > 1 and looks == [1, 1]


def test_a_featureless_frame_costs_a_ladder_of_heavy_decoders_nothing() -> None:
    heavy = _Fake([])
    p = Pipeline([Strategy("heavy", "gray", 0.5, "none", 15.0)], decoders={"heavy": heavy})
    assert p.decode(np.zeros((720, 1280, 3), np.uint8)).featureless and heavy.calls == 0
    assert not p.decode(place([qr_tile(P)])).featureless and heavy.calls == 1


def test_a_small_cards_region_costs_an_empty_stand_only_its_own_strategy() -> None:
    """A small code's remembered region is retried with the located strategies when its own one
    misses; on a featureless frame (the card taken away) the look comes first, so the empty stand
    pays the region's one cheap strategy, never the upscaling ones, and the card is forgotten."""
    p = Pipeline(remember_roi=True, full_every_s=60.0)
    assert p.decode(place([qr_tile(P, px=5)])).codes == [P]
    strat, (x0, y0, x1, y1) = p._roi
    assert (x1 - x0) * (y1 - y0) <= 0.125 * 1280 * 720  # small enough for the located retries
    empty = p.decode(np.full((720, 1280, 3), 128, np.uint8))
    assert empty.featureless and empty.complete and empty.tried == [strat.name]
    assert p._roi is None and p._roi_missed == 0 and p._cheap_read_at is None


class _Deadlined(_Fake):
    """A decoder in a worker process (as WeChat is): a miss runs until it is stopped at its deadline."""

    interruptible = True

    def __init__(self, texts: list[str]) -> None:
        super().__init__(texts)
        self.last_cpu_ms = 0.0

    def __call__(self, image, deadline_ms: float | None = None) -> list[Decoded]:
        found = super().__call__(image)
        if found:
            self.last_cpu_ms = 5.0
            return found
        self.last_cpu_ms = deadline_ms or 0.0
        from kipukas_board.vision.decoders import DecoderTimeout

        raise DecoderTimeout(f"stopped after {self.last_cpu_ms:.0f} ms")


def _heavy_read_pipeline(now: list[float]) -> tuple[Pipeline, _Fake, _Deadlined]:
    """A camera's pipeline whose last card only the heavy decoder read (its region is remembered)."""
    cheap, heavy = _Fake([]), _Deadlined([P])
    strategies = [Strategy("cheap", "gray", 0.5, "none", 1.0), Strategy("heavy", "gray", 0.5, "none", 15.0)]
    p = Pipeline(strategies, decoders={"cheap": cheap, "heavy": heavy}, remember_roi=True, full_every_s=0.5,
                 heavy_interval_s=1.0, clock=lambda: now[0])
    assert p.decode(place([qr_tile(P)])).codes == [P] and p._roi is not None and p._roi[0].decoder == "heavy"
    cheap.texts, heavy.texts = [Q], []  # the next card: the cheap passes read it, the heavy one misses
    return p, cheap, heavy


def test_an_empty_view_forgets_the_last_cards_region_so_the_next_card_is_read_at_once() -> None:
    """The last card's region belongs to a card that is gone once the view is empty: kept, the next
    card's first frame would spend its whole budget on the heavy decoder there and read nothing."""
    now = [0.0]
    p, cheap, heavy = _heavy_read_pipeline(now)
    now[0] = 0.1
    assert p.decode(np.full((720, 1280, 3), 128, np.uint8)).tried == []  # the empty stand
    assert p._roi is None
    now[0] = 5.0
    first = p.decode(place([qr_tile(Q)], positions=[(300, 700)]))
    assert first.codes == [Q] and first.tried == ["cheap@0.5/gray/none"] and heavy.calls == 1


def test_a_region_whose_decoder_used_the_whole_budget_leaves_the_full_pass_to_the_next_frame() -> None:
    """A card swapped for another without an empty view between: the heavy decoder misses on the old
    region at its deadline. That frame is no full pass and not complete, so the next frame searches
    the whole frame (a settled scene gets its thorough pass) instead of waiting for the heavy interval."""
    now = [0.0]
    p, cheap, heavy = _heavy_read_pipeline(now)
    other = place([qr_tile(Q)], positions=[(300, 700)])
    now[0] = 5.0
    first = p.decode(other)
    assert first.codes == [] and first.interrupted == ["heavy@0.5/gray/none"] and first.over_budget
    assert not first.complete and cheap.calls == 1  # the whole-frame pass did not run
    now[0] = 5.2
    second = p.decode(other)
    assert second.codes == [Q] and heavy.calls == 2  # the heavy decoder waits for its interval
