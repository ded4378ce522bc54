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
