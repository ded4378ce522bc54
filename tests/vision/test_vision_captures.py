"""The pipeline on the real captures in ../shared/qr-captures (skipped when absent).

Accuracy only: the timings are measured and compared by ``kipukas-board bench-qr`` (a table, not a
timed assertion that would flake on a busy machine).
"""

from __future__ import annotations

from conftest import shared_path

from kipukas_board.bench.qr import run_bench


def test_pipeline_reads_the_real_captures() -> None:
    folder = shared_path("qr-captures")
    report = run_bench(folder, folder / "truth.json")
    pipe = report["methods"]["pipeline"]
    assert report["codes"] == 36
    assert pipe["wrong"] == 0, pipe["wrong_reads"]
    assert pipe["correct"] == 36, pipe  # every code, the small ones on the regions where they were located
    # No decoder alone reaches it (the reason for a pipeline at all).
    assert all(m["correct"] < pipe["correct"] for n, m in report["methods"].items() if n != "pipeline")


def test_a_small_code_is_read_on_the_region_where_a_pass_located_it() -> None:
    """capture_0062's code has 4-pixel modules: the whole-frame passes locate it but do not read it,
    and before the located pass only WeChat read it (after 100-140 ms of CPU, at its deadline)."""
    import cv2

    from kipukas_board.vision.pipeline import Pipeline

    frame = cv2.imread(str(shared_path("qr-captures") / "capture_0062.jpg"))
    result = Pipeline(decoders=None).decode(frame)
    assert result.codes == ["https://www.kpks.us/frlU"]
    assert result.located and list(result.hits)[0].endswith("/located")
    assert not any(t.startswith("wechat") for t in result.tried)


def test_the_blue_channel_sharpened_twice_is_tried_second() -> None:
    """After the first strategy, zxing on the blue channel sharpened twice reads the most frames the
    first misses for the least time (no CLAHE): these two are read by it, and by none of the first
    strategy, the grey channel sharpened twice or the blue channel under CLAHE, so a ladder that
    tried it later would pay for those first."""
    import cv2

    from kipukas_board.bench.conditions import condition
    from kipukas_board.vision.pipeline import DEFAULT_STRATEGIES, Pipeline

    folder = shared_path("qr-captures")
    frames = {"capture_0020.jpg": cv2.imread(str(folder / "capture_0020.jpg")),
              "capture_0010.jpg, 5 px of motion blur": condition("blur5").apply(
                  cv2.imread(str(folder / "capture_0010.jpg")))}
    second = DEFAULT_STRATEGIES[1]
    assert (second.decoder, second.channel, second.prep) == ("zxing", "blue", "strong")
    for what, frame in frames.items():
        result = Pipeline(decoders=None).decode(frame)
        assert result.codes and result.tried == [s.name for s in DEFAULT_STRATEGIES[:2]], what
        assert list(result.hits) == [second.name], what
