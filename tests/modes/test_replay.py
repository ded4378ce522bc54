"""The journal export (endpoint and command), ``kipukas-board replay`` and ``bench-replay``."""

from __future__ import annotations

import json

import pytest
from rules_table import PIN, Table

from kipukas_board.app import BoardApp
from kipukas_board.cli import main
from kipukas_board.modes.kipukas.rules.dice import ScriptedDice
from kipukas_board.settings import Settings

# added by the runtime, not part of the game state
LIVE_ONLY = ("health", "lights", "sim", "captions", "map_busy", "under_way")


def game_state(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k not in LIVE_ONLY}


def play_some(t: Table) -> None:
    t.new_game(2, first_placer=1)
    t.put("T1", "T8", "T2", "T7", "T5", "T4")
    t.roll(), t.roll()
    t.put("M2b")
    t.move("M2b", "M3a", "T3")
    t.put("M3b")
    t.move("M3b", "M4a")
    t.act("timer", {"label": "personal effect", "cycles": 5, "seat": 1})
    t.act("roll-dice", {"kind": "random_territory"})
    t.act("resolve-contention", {"territory": 4, "winner": 1})
    t.act("undo")
    t.put("M6a")
    t.roll()  # the board's diel roll (scripted dice)


def test_export_replays_to_the_live_state(data_dir, tmp_path, capsys):
    with Table(data_dir, dice=ScriptedDice([4, 6])) as t:
        play_some(t)
        live = game_state(t.state())
        r = t.client.get("/api/journal/export")
        assert r.status_code == 200 and r.mimetype == "application/x-ndjson"
        exported = r.get_data(as_text=True)
    lines = exported.splitlines()
    assert json.loads(lines[0])["event"]["type"] == "map" and len(lines) == live["seq"]
    f = tmp_path / "game.jsonl"
    f.write_text(exported)
    assert main(["replay", str(f)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed == live
    assert replayed["territories"][3]["owner"] == 2  # the undone resolution stays undone

    # the command-line export reads the same journal
    assert main(["export", "--data-dir", str(data_dir)]) == 0
    assert capsys.readouterr().out == exported

    # and a board restarted on the same data directory rebuilds the same game from its journal
    settings = Settings()
    board = BoardApp(settings, data_dir, sim=True, admin_pin=PIN)
    try:
        assert game_state(board.state_json()) == live
    finally:
        board.stop()


def test_replay_reads_bare_events_and_names_bad_lines(tmp_path, capsys):
    f = tmp_path / "bare.jsonl"
    f.write_text('{"type": "stand", "stand": "T1", "occupied": true}\n\n'
                 '{"type": "stand", "stand": "M1a", "occupied": true}\n')
    assert main(["replay", str(f), "--map", "kipuka-8"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {s["id"] for s in doc["stands"] if s["occupied"]} == {"T1", "M1a"}

    f.write_text('{"type": "stand", "stand": "T1", "occupied": true}\n{"type": "stand", "stand": "T1"\n')
    assert main(["replay", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}, line 2: not JSON" in err
    f.write_text('{"seq": 1, "event": {"type": "teleport"}}\n')
    assert main(["replay", str(f)]) == 2
    assert "line 1: unknown event type 'teleport'" in capsys.readouterr().err
    f.write_text('{"type": "roll_diel", "cycle": 0}\n')
    assert main(["replay", str(f)]) == 2
    assert "'cycle' must be a whole number from 1 up" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_export_needs_an_existing_journal(tmp_path, capsys):
    assert main(["export", "--data-dir", str(tmp_path)]) == 2
    assert "no journal at" in capsys.readouterr().err
    assert not (tmp_path / "journal.sqlite").exists()  # nothing created by looking


def test_bench_replay_prints_a_table_and_one_json_line(capsys):
    assert main(["bench-replay", "--events", "1500", "--repeat", "1", "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert any(line.startswith("events per second") for line in out)
    last = json.loads(out[-1])
    assert last["events"] == 1500 and last["events_per_s"] > 0


def test_bench_replay_refuses_a_player_count_no_game_takes(capsys):
    for n in ("1", "5"):
        with pytest.raises(SystemExit) as exc:
            main(["bench-replay", "--players", n, "--events", "10", "--repeat", "1"])
        assert exc.value.code == 2
        assert f"argument --players: {n} is out of range; expected 2 to 4" in capsys.readouterr().err


def test_an_event_that_cannot_be_applied_is_skipped_by_replay_as_by_the_board(tmp_path):
    from kipukas_board import modes
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.core_loop import CoreLoop
    from kipukas_board.modes.replay import replay_events
    from kipukas_board.store.journal import Journal
    from kipukas_board.table.events import stand_event

    board = load_map("kipuka-8")
    broken = {"type": "map", "name": "Kipuka of Eight", "toml": "this is not a map"}  # stored, no longer loads
    journal = Journal.in_dir(tmp_path)
    for event in (stand_event("T1", True), broken, stand_event("M1a", True)):
        journal.append(event)
    live = CoreLoop(journal, board, rules=modes).state
    rows = [(seq, event) for seq, event in journal.events()]
    replayed = replay_events(rows, modes.new_table(board))
    assert live.problems[0].startswith("event 2 not applied: its map no longer loads")
    assert game_state(modes.state_json(replayed)) == game_state(modes.state_json(live))


def test_export_into_a_pipe_whose_reader_has_gone_ends_quietly(tmp_path):
    """``kipukas-board export | head`` is how a reader looks at a journal: once ``head`` has gone,
    the command stops with exit code 1 and no traceback."""
    import os
    import subprocess
    import sys

    from kipukas_board.store.journal import Journal

    j = Journal(tmp_path / "journal.sqlite")
    for i in range(3000):  # far more than a pipe's buffer
        j.append({"type": "stand", "stand": "T1", "occupied": i % 2 == 0, "source": "sim"})
    j.close()
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line is written
    try:
        done = subprocess.run([sys.executable, "-c", "import sys; from kipukas_board.cli import main; sys.exit(main())",
                               "export", "--data-dir", str(tmp_path)],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write_end)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
