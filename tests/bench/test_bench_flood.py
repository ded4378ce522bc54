"""The flood check runs end to end (small sizes: the real check is the command, see README)."""

from __future__ import annotations

import json

import pytest

from kipukas_board.cli import main


def test_cli_json_is_the_last_line_and_every_request_is_answered(capsys) -> None:
    assert main(["bench-flood", "--addresses", "2", "--per-address", "4", "--requests", "3", "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    doc = json.loads(out[-1])
    assert doc["sockets"] == 8 and doc["answered"] == 3 and doc["connections"]["limit"] > 0
    assert any(line.startswith("answered") for line in out)


def test_bad_arguments_exit_2(capsys) -> None:
    with pytest.raises(SystemExit, match="^2$"):  # argparse refuses it
        main(["bench-flood", "--addresses", "0"])
    assert "--addresses" in capsys.readouterr().err
