"""``kipukas-board bench-journal`` (kipukas_board/bench/journal_reads.py): a table, and one JSON line."""

from __future__ import annotations

import json

from kipukas_board.cli import main


def test_bench_journal_prints_a_table_and_one_json_line_and_shows_the_old_reading_wrong(capsys) -> None:
    assert main(["bench-journal", "--events", "1500", "--say-map-every", "5", "--repeat", "1", "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("journal of 1,500 events") and "which map a start loads" in out[1], out
    doc = json.loads(out[-1])
    readings = {r["reading"]: r for r in doc["last_event_of"]}
    assert readings["LIKE, then SQLite's JSON (the board's)"]["right"] and doc["last_map"] == 1
    assert not readings["the last 200 naming it (before)"]["right"], "300 later events name map: it must miss"
    assert all(r["right"] for name, r in readings.items() if "before" not in name)
    assert [r["missing"] for r in doc["check"]] == [0, 0, 0, 0]
