"""bench-streams runs end to end (small sizes; the documented figure is the command's defaults)."""

from __future__ import annotations

import json

import pytest

from kipukas_board.bench.streams import run_streams_bench
from kipukas_board.cli import main


def test_a_small_run_measures_the_board_and_a_fresh_page_still_follows() -> None:
    res = run_streams_bench(streams=3, changes=6, settle_s=0.2)
    assert res["streams"] == 3 and res["changes"] == 6
    assert 0 < res["rss_start_mb"] <= res["rss_peak_mb"]
    assert res["temp_files_peak"] == 0 and res["fresh_page_ok"]


def test_bad_arguments_exit_2(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit, match="^2$"):  # argparse refuses it
        main(["bench-streams", "--streams", "0"])
    assert "--streams" in capsys.readouterr().err


def test_the_table_and_json_are_printed(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    fake = {"streams": 1, "changes": 1, "flood_s": 0.1, "settle_s": 0.0, "rss_start_mb": 40.0, "rss_peak_mb": 41.0,
            "rss_after_mb": 41.0, "temp_files_peak": 0, "temp_mib_peak": 0.0, "temp_files_after": 0,
            "connections_after": 0, "fresh_page_ok": True, "fresh_page_s": 0.01, "target_rss_mb": 120.0,
            "meets_target": True}
    monkeypatch.setattr("kipukas_board.bench.streams.run_streams_bench", lambda *a: fake)
    assert main(["bench-streams", "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert json.loads(out[-1]) == fake and any(line.startswith("board RSS peak (MB)") for line in out)
