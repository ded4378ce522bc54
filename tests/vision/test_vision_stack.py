"""The search across frames: an unread still card's frames are aligned and averaged, and the mean
decoded at a few frame counts, the heavy decoders only at the last."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from _qrgen import noise

from kipukas_board.vision.decoders import Decoded
from kipukas_board.vision.motion import UNSMEAR_SCALE
from kipukas_board.vision.pipeline import (
    DEBLUR_STRATEGIES,
    DEEP_STRATEGIES,
    SEARCH_STRATEGIES,
    UNSMEARED_STRATEGIES,
    DecodeResult,
    Pipeline,
    Strategy,
)
from kipukas_board.vision.reader import DEEP_AT, LONG_SMEAR, STACK_AT, CameraReader
from kipukas_board.vision.stack import FrameStack

P = "kpks.us/RrDC#0001?DmFz33"


def _scene(rng: np.random.Generator, size: tuple[int, int] = (360, 640)) -> np.ndarray:
    """A textured view (a card's art): something to align on, and not featureless."""
    base = rng.integers(40, 220, (45, 80, 3), dtype=np.uint8).astype(np.float32)
    return cv2.resize(base, (size[1], size[0]), interpolation=cv2.INTER_CUBIC).astype(np.uint8)


class _NoiseLimited:
    """A pipeline that reads the card only where the frame's noise is below ``limit`` grey levels."""

    def __init__(self, clean: np.ndarray, limit: float, located: bool = True) -> None:
        self.clean = clean.astype(np.float32)
        self.limit = limit
        self.located = [((10.0, 10.0), (60.0, 10.0), (60.0, 60.0), (10.0, 60.0))] if located else []
        self.calls: list[tuple[float, bool]] = []

    def decode(self, frame, thorough: bool = False, known=()) -> DecodeResult:
        sigma = float(np.std(frame.astype(np.float32) - self.clean))
        self.calls.append((sigma, thorough))
        read = sigma < self.limit
        return DecodeResult(codes=[P] if read else [], complete=True, located=[] if read else list(self.located))


def test_a_card_lost_in_noise_is_read_from_the_stacked_frames() -> None:
    rng = np.random.default_rng(1)
    clean = _scene(rng)
    pipe = _NoiseLimited(clean, limit=5.0)  # sigma 8 alone: never; 4 frames: about 4
    reader = CameraReader(pipe)
    reads = [reader.read(noise(clean, rng, 8)) for _ in range(10)]
    first = next(i for i, r in enumerate(reads) if r.codes)
    assert first == STACK_AT[0] - 1 and reads[first].stacked == STACK_AT[0]
    assert all(r.codes == [P] for r in reads[first:])
    # the frame itself, the mean of 4 that read it, the mean of 8 once more for a second card; then nothing
    assert len(pipe.calls) == 3
    assert pipe.calls[0][0] > 7 and pipe.calls[1][0] < 4.5 and pipe.calls[2][0] < 3.3


def test_an_unreadable_still_view_is_searched_at_the_stack_counts_then_given_up() -> None:
    rng = np.random.default_rng(2)
    clean = _scene(rng)
    pipe = _NoiseLimited(clean, limit=0.0)  # never reads
    reader = CameraReader(pipe)
    decoded = [reader.read(noise(clean, rng, 8)).decoded for _ in range(3 * STACK_AT[-1])]
    assert [i + 1 for i, d in enumerate(decoded) if d] == [1, *STACK_AT]
    # the heavy decoders (thorough) only on the last mean; noise falls as sqrt(N)
    assert [t for _, t in pipe.calls] == [False] * len(STACK_AT) + [True]
    sigmas = [s for s, _ in pipe.calls]
    assert sigmas == sorted(sigmas, reverse=True)
    assert sigmas[-1] == pytest.approx(8 / np.sqrt(STACK_AT[-1]), rel=0.2)


def test_a_view_where_nothing_was_located_gets_no_heavy_pass_on_its_last_mean() -> None:
    rng = np.random.default_rng(9)
    clean = _scene(rng)
    pipe = _NoiseLimited(clean, limit=0.0, located=False)
    reader = CameraReader(pipe)
    for _ in range(2 * STACK_AT[-1]):
        reader.read(noise(clean, rng, 8))
    assert [t for _, t in pipe.calls] == [False] * (len(STACK_AT) + 1)


def test_a_change_of_scene_starts_the_stack_again() -> None:
    rng = np.random.default_rng(3)
    clean = _scene(rng)
    pipe = _NoiseLimited(clean, limit=0.0)
    reader = CameraReader(pipe, miss_interval_s=0.0)  # the new view is decoded however soon it comes
    for _ in range(STACK_AT[0] - 1):
        reader.read(noise(clean, rng, 8))
    other = _scene(rng)
    assert reader.read(other).changed
    for _ in range(STACK_AT[0] - 2):
        assert not reader.read(noise(other, rng, 8)).decoded  # 3 frames of the new view, not 4+
    assert reader.read(noise(other, rng, 8)).stacked == STACK_AT[0]


def test_a_featureless_view_is_not_searched() -> None:
    pipe = _NoiseLimited(np.zeros((360, 640, 3), np.uint8), limit=0.0)
    reader = CameraReader(pipe)
    pipe.decode = lambda frame, thorough=False: DecodeResult(complete=True, featureless=True)  # type: ignore[method-assign]
    rng = np.random.default_rng(4)
    flat = np.full((360, 640, 3), 128, np.uint8)
    assert [reader.read(noise(flat, rng, 2)).decoded for _ in range(20)].count(True) == 1


def _move(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    h, w = img.shape[:2]
    return cv2.warpAffine(img, np.float32([[1, 0, dx], [0, 1, dy]]), (w, h), borderMode=cv2.BORDER_REPLICATE)


def test_frames_moved_by_a_few_pixels_are_aligned_before_they_are_added() -> None:
    rng = np.random.default_rng(5)
    clean = _scene(rng, (720, 1280))
    stack = FrameStack(clean)
    moves = [(3, -2), (-4, 1), (2, 3), (-1, -4)]
    for dx, dy in moves:
        moved = _move(clean, dx, dy)
        assert stack.shift(moved) == pytest.approx((dx, dy), abs=0.6)
        assert stack.add(moved)
    inner = (slice(20, -20), slice(20, -20))
    aligned = np.abs(stack.mean()[inner].astype(float) - clean[inner]).mean()
    smeared = np.abs(np.mean([cv2.warpAffine(clean, np.float32([[1, 0, dx], [0, 1, dy]]), (1280, 720))
                              for dx, dy in moves], axis=0)[inner] - clean[inner]).mean()
    assert aligned < smeared / 2


def test_another_view_or_size_is_refused() -> None:
    rng = np.random.default_rng(6)
    clean = _scene(rng, (720, 1280))
    stack = FrameStack(clean)
    far = _move(clean, 40, 0)
    assert not stack.add(far)
    assert not stack.add(clean[:360, :640])
    assert stack.count == 1


class _Fake:
    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    def __call__(self, image) -> list[Decoded]:
        self.log.append(self.name)
        return []


def test_the_searcher_continues_the_ladder_before_the_heavy_decoders_and_runs_those_only_thoroughly() -> None:
    log: list[str] = []
    decoders = {n: _Fake(n, log) for n in ("zxing", "pyzbar", "wechat")}
    pipe = Pipeline(decoders=decoders, budget_ms=1e6, remember_roi=True, heavy_interval_s=1.0)
    search = pipe.searcher()
    names = [s.name for s in search.strategies]
    assert names.index(SEARCH_STRATEGIES[0].name) < names.index("wechat@0.75/gray/strong")
    assert names.index("wechat@0.75/gray/strong") < names.index(DEBLUR_STRATEGIES[0].name)
    assert search.decoders is pipe.decoders and search.accept is pipe.accept
    frame = _scene(np.random.default_rng(7))
    quick = search.decode(frame)
    assert "wechat" not in log and "wechat@0.75/gray/strong" in quick.held_back
    assert any(t == SEARCH_STRATEGIES[0].name for t in quick.tried)
    assert {s.name for s in DEBLUR_STRATEGIES} <= set(quick.tried)  # with the heavy ones held back, within budget
    log.clear()
    search.decode(frame, thorough=True)
    assert "wechat" in log


def test_a_read_still_scene_is_looked_at_once_more_for_a_second_card() -> None:
    rng = np.random.default_rng(10)
    clean = _scene(rng)
    pipe = _NoiseLimited(clean, limit=5.0)
    second = "kpks.us/HMPU#0004?BFxDCJ"

    # the first card in any frame, the second in a mean
    def decode(frame, thorough: bool = False, known=()) -> DecodeResult:
        clear = _NoiseLimited.decode(pipe, frame, thorough).codes
        return DecodeResult(codes=[P, second] if clear else [P], complete=True)

    pipe.decode = decode  # type: ignore[method-assign]
    reader = CameraReader(pipe)
    reads = [reader.read(noise(clean, rng, 8)) for _ in range(3 * STACK_AT[-1])]
    assert reads[0].codes == [P] and reads[STACK_AT[0] - 1].codes == [P, second]
    assert all(r.codes == [P, second] for r in reads[STACK_AT[0] - 1:])
    assert len(pipe.calls) == 2  # the frame, the mean of the first frames; nothing after


class _Reads:
    """A decoder that reads ``codes`` only from images prepared as ``by`` prepares them (by its name)."""

    def __init__(self, name: str, log: list[str], codes: dict[str, list[str]]) -> None:
        self.name, self.log, self.codes = name, log, codes
        self.strategy = ""

    def __call__(self, image) -> list[Decoded]:
        self.log.append(self.strategy)
        return [Decoded(t) for t in self.codes.get(self.strategy, [])]


@pytest.fixture
def named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pipeline tells its fake decoders (:class:`_Reads`) which strategy they run for."""
    run = Pipeline._run

    def told(self, strat, *args, **kwargs) -> None:
        self.decoders[strat.decoder].strategy = strat.name
        run(self, strat, *args, **kwargs)

    monkeypatch.setattr(Pipeline, "_run", told)


def test_a_known_code_is_no_good_read_and_the_ladder_goes_on_to_a_second(named) -> None:
    second = "kpks.us/HMPU#0004?BFxDCJ"
    ladder = [Strategy("zxing", "gray", 0.5, "none", 1.0), Strategy("zxing", "blue", 0.5, "none", 1.0)]
    log: list[str] = []
    dec = _Reads("zxing", log, {ladder[0].name: [P], ladder[1].name: [second]})
    pipe = Pipeline(strategies=ladder, decoders={"zxing": dec})
    frame = _scene(np.random.default_rng(11))
    assert pipe.decode(frame).codes == [P]  # stops at its first read
    assert pipe.decode(frame, known=[P]).codes == [P, second]
    assert pipe.decode(frame, known=[P, second]).codes == [P, second]  # nothing new: the whole ladder, no more


def test_a_card_only_the_deep_ladder_reads_is_read_on_its_mean_which_is_the_only_one_to_pay_for_it(named) -> None:
    rng = np.random.default_rng(12)
    clean = _scene(rng)
    log: list[str] = []
    decoders = {n: _Reads(n, log, {DEEP_STRATEGIES[0].name: [P]}) for n in ("zxing", "pyzbar", "wechat")}
    for deep_at, read_at in ((None, DEEP_AT), (STACK_AT[0], STACK_AT[0]), (STACK_AT[-1] + 1, None)):
        reader = CameraReader(Pipeline(decoders=decoders, remember_roi=True, heavy_interval_s=1.0), deep_at=deep_at)
        reads = [reader.read(noise(clean, rng, 2)) for _ in range(2 * STACK_AT[-1])]
        first = next((i + 1 for i, r in enumerate(reads) if r.codes), None)
        assert first == read_at
        if read_at:
            assert reads[first - 1].stacked == read_at and all(r.codes == [P] for r in reads[first - 1:])
    # a view nothing reads (a still room, a card no decoder can read) pays the deep ladder once
    log.clear()
    unread = {n: _Reads(n, log, {}) for n in ("zxing", "pyzbar", "wechat")}
    reader = CameraReader(Pipeline(decoders=unread, remember_roi=True, heavy_interval_s=1.0))
    for _ in range(3 * STACK_AT[-1]):
        reader.read(noise(clean, rng, 2))
    assert log.count(DEEP_STRATEGIES[0].name) == 1 and log.count(SEARCH_STRATEGIES[0].name) == len(STACK_AT)


def test_a_scene_the_search_read_is_looked_at_once_more_for_a_second_card() -> None:
    rng = np.random.default_rng(13)
    clean = _scene(rng)
    second = "kpks.us/HMPU#0004?BFxDCJ"
    pipe = _NoiseLimited(clean, limit=5.0)

    def decode(frame, thorough: bool = False, known=()) -> DecodeResult:  # each card where the noise is low enough
        sigma = float(np.std(frame.astype(np.float32) - pipe.clean))
        pipe.calls.append((sigma, thorough))
        codes = ([P] if sigma < 5.0 else []) + ([second] if sigma < 3.3 else [])
        return DecodeResult(codes=codes, complete=True, located=[] if codes else list(pipe.located))

    pipe.decode = decode  # type: ignore[method-assign]
    reader = CameraReader(pipe)
    reads = [reader.read(noise(clean, rng, 8)) for _ in range(3 * STACK_AT[-1])]
    assert reads[STACK_AT[0] - 1].codes == [P]
    assert reads[STACK_AT[1] - 1].codes == [P, second]
    assert all(r.codes == [P, second] for r in reads[STACK_AT[1] - 1:])
    assert len(pipe.calls) == 3


def test_every_strategy_of_the_deep_ladder_runs_on_a_mean_it_does_not_read() -> None:
    decoders = {n: (lambda image: []) for n in ("zxing", "pyzbar", "wechat")}
    result = Pipeline(decoders=decoders).deep().decode(_scene(np.random.default_rng(14)), thorough=True)
    assert result.tried == [s.name for s in DEEP_STRATEGIES]
    assert not result.over_budget and not result.skipped


def test_a_known_code_read_on_the_remembered_region_does_not_end_the_frame(named) -> None:
    second = "kpks.us/HMPU#0004?BFxDCJ"
    ladder = [Strategy("zxing", "gray", 0.5, "none", 1.0), Strategy("zxing", "blue", 0.5, "none", 1.0)]
    corners = ((100.0, 100.0), (160.0, 100.0), (160.0, 160.0), (100.0, 160.0))

    class _WithPoints(_Reads):
        def __call__(self, image) -> list[Decoded]:
            return [Decoded(d.text, points=corners) for d in super().__call__(image)]

    log: list[str] = []
    dec = _WithPoints("zxing", log, {ladder[0].name: [P], ladder[1].name: [second]})
    now = [0.0]
    pipe = Pipeline(strategies=ladder, decoders={"zxing": dec}, remember_roi=True, clock=lambda: now[0])
    frame = _scene(np.random.default_rng(15))
    assert pipe.decode(frame).codes == [P]
    now[0] = 0.1  # within the full pass's interval: the remembered region is looked at first
    assert pipe.decode(frame).codes == [P] and log[-1] == ladder[0].name
    now[0] = 0.2
    assert pipe.decode(frame, known=[P]).codes == [P, second]


class _InTurn:
    """A decoder that gives, for each strategy (by its name), the next of its answers in turn."""

    def __init__(self, answers: dict[str, list[list[Decoded]]]) -> None:
        self.answers = answers
        self.strategy = ""

    def __call__(self, image) -> list[Decoded]:
        turns = self.answers.get(self.strategy, [])
        return turns.pop(0) if turns else []


def test_a_known_code_is_no_good_read_on_the_located_regions_either(named) -> None:
    second = "kpks.us/HMPU#0004?BFxDCJ"
    whole = Strategy("zxing", "gray", 0.5, "none", 1.0)  # at 640x360, frame pixels are its pixels
    located = Strategy("zxing", "blue", 1.0, "none", 1.0, located=True)
    here = ((100.0, 100.0), (130.0, 100.0), (130.0, 130.0), (100.0, 130.0))
    there = ((400.0, 200.0), (430.0, 200.0), (430.0, 230.0), (400.0, 230.0))
    dec = _InTurn({whole.name: [[Decoded(P), Decoded("", here, located=True), Decoded("", there, located=True)]],
                   located.name: [[Decoded(P)], [Decoded(second)]]})  # one answer per region
    result = Pipeline(strategies=[whole, located], decoders={"zxing": dec}).decode(
        _scene(np.random.default_rng(16)), known=[P])
    assert result.codes == [P, second]
    assert result.tried == [whole.name, located.name, located.name]


def test_the_look_for_a_second_card_goes_on_past_the_code_read_already(named) -> None:
    from kipukas_board.vision.pipeline import DEFAULT_STRATEGIES

    second = "kpks.us/HMPU#0004?BFxDCJ"
    rng = np.random.default_rng(17)
    clean = _scene(rng)
    log: list[str] = []
    # the first strategy reads the first card on every image, the next one the second card: a pass
    # stopping at its first read never reaches it
    reads_by = {DEFAULT_STRATEGIES[0].name: [P], DEFAULT_STRATEGIES[1].name: [second]}
    decoders = {n: _Reads(n, log, reads_by) for n in ("zxing", "pyzbar", "wechat")}
    reader = CameraReader(Pipeline(decoders=decoders))
    reads = [reader.read(noise(clean, rng, 2)) for _ in range(2 * STACK_AT[-1])]
    assert reads[0].codes == [P] and reads[STACK_AT[0] - 2].codes == [P]
    assert all(r.codes == [P, second] for r in reads[STACK_AT[0] - 1:])
    assert reads[STACK_AT[0] - 1].stacked == STACK_AT[0]
    assert not {s.name for s in DEEP_STRATEGIES} & set(log)  # a read scene never pays the deep ladder


class _OnLooks:
    """Fake decoders that read ``always`` on any image, ``on_look`` only on the one image the
    reader's second look makes (its smear or glare taken back at half size), and ``on_full`` only
    on the mean's grey image with its smear taken back at full size, by strategy name."""

    def __init__(self, always: dict[str, list[str]], on_look: dict[str, list[str]],
                 on_full: dict[str, list[str]] | None = None) -> None:
        self.always, self.on_look, self.on_full = always, on_look, on_full or {}
        self.strategy, self.looking, self.full = "", False, False
        self.log: list[str] = []

    def __call__(self, image) -> list[Decoded]:
        self.log.append(self.strategy)
        texts = (self.always.get(self.strategy, []) + (self.on_look.get(self.strategy, []) if self.looking else [])
                 + (self.on_full.get(self.strategy, []) if self.full else []))
        return [Decoded(t) for t in texts]


@pytest.fixture
def looks(monkeypatch: pytest.MonkeyPatch, named):
    """Every mean shows a smear and glare; taking either back gives one image, ``looks.image``,
    and the fake decoders are told when they decode it."""
    import kipukas_board.vision.reader as reader_module

    class Looks:
        image = cv2.resize(_scene(np.random.default_rng(18)), None, fx=0.5, fy=0.5)
        full = cv2.cvtColor(_scene(np.random.default_rng(18)), cv2.COLOR_BGR2GRAY)  # the grey taken back at full size
        motion = (5, 5)
        unsmeared: list[tuple[tuple[int, int], float]] = []  # (smear, scale) of each smear taken back

    def unsmear(mean, motion, scale=UNSMEAR_SCALE):
        Looks.unsmeared.append((motion, scale))
        return Looks.full if scale == 1.0 else Looks.image

    monkeypatch.setattr(reader_module, "estimate_motion", lambda grey: Looks.motion)
    monkeypatch.setattr(reader_module, "unsmear", unsmear)
    monkeypatch.setattr(reader_module, "glare", lambda grey: True)
    monkeypatch.setattr(reader_module, "even_light", lambda mean: Looks.image)
    decode = Pipeline.decode

    def told(self, image, thorough=False, known=()):
        for dec in self.decoders.values():
            dec.looking = image is Looks.image
            dec.full = image is Looks.full
        return decode(self, image, thorough, known)

    monkeypatch.setattr(Pipeline, "decode", told)
    return Looks


def test_the_second_look_at_a_read_scene_goes_on_past_the_code_read_already(looks) -> None:
    from kipukas_board.vision.pipeline import DEFAULT_STRATEGIES

    second = "kpks.us/HMPU#0004?BFxDCJ"
    rng = np.random.default_rng(19)
    clean = _scene(rng)
    dec = _OnLooks({DEFAULT_STRATEGIES[0].name: [P]}, {DEFAULT_STRATEGIES[1].name: [second]})
    reader = CameraReader(Pipeline(decoders={"zxing": dec}))
    reads = [reader.read(noise(clean, rng, 2)) for _ in range(2 * STACK_AT[-1])]
    assert reads[STACK_AT[0] - 2].codes == [P]
    assert all(r.codes == [P, second] for r in reads[STACK_AT[0] - 1:])


def test_the_deep_ladder_decodes_the_mean_with_its_smear_taken_back(looks) -> None:
    rng = np.random.default_rng(20)
    clean = _scene(rng)
    dec = _OnLooks({}, {DEEP_STRATEGIES[0].name: [P]})
    reader = CameraReader(Pipeline(decoders={n: dec for n in ("zxing", "pyzbar", "wechat")}))
    reads = [reader.read(noise(clean, rng, 2)) for _ in range(2 * STACK_AT[-1])]
    assert reads[DEEP_AT - 2].codes == [] and reads[DEEP_AT - 1].codes == [P]


def test_a_smeared_card_only_the_full_size_look_reads_is_read_there_before_the_deep_ladder(looks) -> None:
    rng = np.random.default_rng(21)
    clean = _scene(rng)
    dec = _OnLooks({}, {}, {UNSMEARED_STRATEGIES[0].name: [P]})
    reader = CameraReader(Pipeline(decoders={n: dec for n in ("zxing", "pyzbar", "wechat")}))
    reads = [reader.read(noise(clean, rng, 2)) for _ in range(2 * STACK_AT[-1])]
    assert reads[DEEP_AT - 2].codes == [] and reads[DEEP_AT - 1].codes == [P]
    assert reads[DEEP_AT - 1].stacked == DEEP_AT and all(r.codes == [P] for r in reads[DEEP_AT - 1:])
    assert [scale for _, scale in looks.unsmeared].count(1.0) == 1  # taken back at full size once
    assert not {s.name for s in DEEP_STRATEGIES} & set(dec.log)  # read there: the deep ladder is spared


def test_a_scene_that_shows_no_smear_gets_no_full_size_look(looks) -> None:
    looks.motion = None
    rng = np.random.default_rng(22)
    clean = _scene(rng)
    dec = _OnLooks({}, {}, {UNSMEARED_STRATEGIES[0].name: [P]})
    reader = CameraReader(Pipeline(decoders={n: dec for n in ("zxing", "pyzbar", "wechat")}))
    reads = [reader.read(noise(clean, rng, 2)) for _ in range(2 * STACK_AT[-1])]
    assert not any(r.codes for r in reads) and looks.unsmeared == []
    assert DEEP_STRATEGIES[0].name in dec.log and UNSMEARED_STRATEGIES[0].name not in dec.log


@pytest.mark.parametrize("smear, second_read", [((9, 9), True), ((5, 5), False)])
def test_a_second_card_behind_a_long_smear_is_looked_for_at_full_size(looks, smear, second_read) -> None:
    from kipukas_board.vision.pipeline import DEFAULT_STRATEGIES

    assert (np.hypot(*smear) >= LONG_SMEAR) == second_read
    looks.motion = smear
    second = "kpks.us/HMPU#0004?BFxDCJ"
    rng = np.random.default_rng(23)
    clean = _scene(rng)
    dec = _OnLooks({DEFAULT_STRATEGIES[0].name: [P]}, {}, {UNSMEARED_STRATEGIES[0].name: [second]})
    reader = CameraReader(Pipeline(decoders={n: dec for n in ("zxing", "pyzbar", "wechat")}))
    reads = [reader.read(noise(clean, rng, 2)) for _ in range(2 * STACK_AT[-1])]
    assert reads[STACK_AT[0] - 2].codes == [P]
    assert all(r.codes == ([P, second] if second_read else [P]) for r in reads[STACK_AT[0] - 1:])
    assert looks.unsmeared.count((smear, 1.0)) == (1 if second_read else 0)


def test_a_stack_count_the_stack_never_holds_is_refused() -> None:
    # a stack holds two frames at the first count it can be decoded at (the frame it starts from and
    # the next): a count of 1 would never be reached, and the stack never dropped
    with pytest.raises(ValueError, match="stack_at.*1.*at least 2"):
        CameraReader(_NoiseLimited(_scene(np.random.default_rng(21)), limit=5.0), stack_at=(1, 8))
    assert CameraReader(_NoiseLimited(_scene(np.random.default_rng(21)), limit=5.0), stack_at=()).stack_at == ()


def test_a_reader_whose_decoders_have_no_full_size_ladder_does_not_take_the_smear_back_at_full_size(looks) -> None:
    # the full-size deconvolution costs some 20 ms: without zxing there is nothing to decode it
    rng = np.random.default_rng(24)
    clean = _scene(rng)
    dec = _OnLooks({}, {})
    reader = CameraReader(Pipeline(decoders={n: dec for n in ("pyzbar", "wechat")}))
    for _ in range(2 * STACK_AT[-1]):
        reader.read(noise(clean, rng, 2))
    assert looks.unsmeared and [scale for _, scale in looks.unsmeared].count(1.0) == 0
    assert DEEP_STRATEGIES[0].name in dec.log  # the deep ladder still ran on the unread scene


class _StandIn:
    """A pipeline that only decodes (no searcher, deep or full-size ladder)."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.inner = pipeline

    def decode(self, image, thorough=False, known=()):
        return self.inner.decode(image, thorough, known)


@pytest.mark.parametrize("how", ["no second looks", "a stand-in pipeline"])
def test_a_reader_without_second_looks_or_a_full_size_ladder_reads_on_without_one(looks, how) -> None:
    looks.motion = (9, 9)
    rng = np.random.default_rng(25)
    clean = _scene(rng)
    dec = _OnLooks({}, {}, {UNSMEARED_STRATEGIES[0].name: [P]})
    pipe = Pipeline(decoders={n: dec for n in ("zxing", "pyzbar", "wechat")})
    reader = (CameraReader(pipe, second_looks=False) if how == "no second looks" else CameraReader(_StandIn(pipe)))
    reads = [reader.read(noise(clean, rng, 2)) for _ in range(2 * STACK_AT[-1])]
    assert not any(r.codes for r in reads) and (1.0 not in [scale for _, scale in looks.unsmeared])


def test_a_text_read_on_the_full_size_look_that_is_no_card_is_no_read(looks) -> None:
    url = "https://example.com/kpks.us/RrDC"
    rng = np.random.default_rng(26)
    clean = _scene(rng)
    dec = _OnLooks({}, {}, {UNSMEARED_STRATEGIES[0].name: [url]})
    reader = CameraReader(Pipeline(decoders={n: dec for n in ("zxing", "pyzbar", "wechat")}))
    reads = [reader.read(noise(clean, rng, 2)) for _ in range(2 * STACK_AT[-1])]
    assert UNSMEARED_STRATEGIES[0].name in dec.log and not any(r.codes for r in reads)


class _Cornered:
    """A fake decoder that reads ``code`` with its corners (a square ``side`` pixels wide) for the
    strategy named ``by``, nothing for the others, and logs every strategy it runs for."""

    def __init__(self, code: str, by: str, side: float) -> None:
        self.code, self.by, self.side = code, by, side
        self.strategy = ""
        self.log: list[str] = []

    def __call__(self, image) -> list[Decoded]:
        self.log.append(self.strategy)
        if self.strategy != self.by:
            return []
        s = self.side * image.shape[1] / 640  # the corners in the working image's pixels
        return [Decoded(self.code, ((10.0, 10.0), (10.0 + s, 10.0), (10.0 + s, 10.0 + s), (10.0, 10.0 + s)))]


@pytest.mark.parametrize("side, upscaled", [(125.0, False), (60.0, True)])
def test_the_look_for_a_second_card_beside_a_large_one_spares_the_upscaling_passes(named, side, upscaled) -> None:
    """A card read with a side of 250 px at 1280 (125 px of a 640x360 frame) needs no upscaling, nor
    does one laid beside it: the look for it runs the half-size passes only. Beside a small card
    (120 px at 1280) it runs them all."""
    from kipukas_board.vision.pipeline import DEFAULT_STRATEGIES, LARGE_CODE_PX

    assert (2 * side >= LARGE_CODE_PX) != upscaled
    rng = np.random.default_rng(27)
    clean = _scene(rng)
    dec = _Cornered(P, DEFAULT_STRATEGIES[0].name, side)
    reader = CameraReader(Pipeline(decoders={"zxing": dec, "pyzbar": dec}))
    first = reader.read(noise(clean, rng, 2))
    assert first.codes == [P] and dec.log == [DEFAULT_STRATEGIES[0].name]
    reads = [reader.read(noise(clean, rng, 2)) for _ in range(STACK_AT[0])]
    assert any(r.decoded for r in reads) and all(r.codes == [P] for r in reads)
    look = dec.log[1:]  # the look at the stacked mean, past the code read already
    assert DEFAULT_STRATEGIES[5].name in look  # ZBar on the blue channel at half size, in both
    whole = [s.name for s in (*DEFAULT_STRATEGIES, *SEARCH_STRATEGIES, *DEBLUR_STRATEGIES)
             if s.scale > 0.5 and not s.located and s.decoder != "wechat"]
    assert whole and (set(whole) <= set(look)) == upscaled and (set(whole) & set(look) == set()) != upscaled
