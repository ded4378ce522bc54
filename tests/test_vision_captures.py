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
    assert pipe["correct"] >= 35, pipe
    # No decoder alone reaches it (the reason for a pipeline at all).
    assert all(m["correct"] < pipe["correct"] for n, m in report["methods"].items() if n != "pipeline")
