"""The SSE load check runs end to end (small sizes: the real check is the command, see README)."""

from __future__ import annotations

import json

import pytest

from kipukas_board.bench.sse import percentile, run_sse_bench
from kipukas_board.cli import main


def test_every_client_gets_every_change():
    res = run_sse_bench(clients=4, changes=12, interval_ms=5)
    assert res["expected"] == 48 and res["delivered"] == 48 and res["missing"] == 0
    lat = res["latency_ms"]
    assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["max"]


def test_cli_json_is_the_last_line(capsys):
    assert main(["bench-sse", "--clients", "2", "--changes", "4", "--interval-ms", "0", "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    doc = json.loads(out[-1])
    assert doc["clients"] == 2 and doc["changes"] == 4 and doc["missing"] == 0
    assert any(line.startswith("latency p99 (ms)") for line in out)


def test_bad_arguments_exit_2(capsys):
    with pytest.raises(SystemExit, match="^2$"):  # argparse refuses it
        main(["bench-sse", "--clients", "0"])
    assert "--clients" in capsys.readouterr().err


def test_percentile_nearest_rank():
    assert percentile([5.0], 99) == 5.0
    assert percentile(list(map(float, range(1, 101))), 99) == 99.0
    assert percentile(list(map(float, range(1, 101))), 50) == 50.0
