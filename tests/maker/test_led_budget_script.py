"""hardware/led_budget.py takes its figures from the package (the fuse, the supply, a pixel's mA, the
strip and its feeds) instead of copies of them, and still runs as the hardware README says, with a
bare python3 from the checkout."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from test_hardware_docs import load

from kipukas_board.hardware import power_chain
from kipukas_board.maker import bom
from kipukas_board.show.layout import LedLayout

SCRIPT = Path(__file__).resolve().parents[2] / "hardware" / "led_budget.py"
FIGURES = ("FUSE_A", "SUPPLY_A", "CAP_MAX_A", "MA_PER_CHANNEL", "MA_IDLE", "PIXELS_PER_M", "ONE_FEED_UP_TO",
           "FEED_EVERY")


def test_the_script_sets_none_of_the_packages_figures_by_hand() -> None:
    tree = ast.parse(SCRIPT.read_text())
    by_hand = sorted(t.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
                     and isinstance(node.value, ast.Constant) for t in node.targets
                     if isinstance(t, ast.Name) and t.id in FIGURES)
    assert not by_hand, f"led_budget.py repeats the package's figures: {by_hand}"
    assert not any(isinstance(n, ast.FunctionDef) and n.name == "feeds" for n in tree.body), "feeds() is bom.feeds"


def test_the_scripts_figures_are_the_packages() -> None:
    budget = load("led_budget")
    assert (budget.FUSE_A, budget.SUPPLY_A, budget.PIXELS_PER_M) == (bom.FUSE_A, bom.PSU_A, bom.PIXELS_PER_M)
    assert power_chain.max_budget_ma(bom.FUSE_A) == budget.CAP_MAX_A * 1000
    assert (LedLayout.ma_per_channel, LedLayout.idle_ma) == (budget.MA_PER_CHANNEL, budget.MA_IDLE)
    assert budget.feeds is bom.feeds


def test_it_runs_with_a_bare_python3_from_elsewhere(tmp_path: Path) -> None:
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        pytest.skip("no system python3 at /usr/bin or /bin to run the script the way the README says")
    proc = subprocess.run([python, "-I", str(SCRIPT), "--json"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["fuse_a"] == bom.FUSE_A and data["supply_a"] == bom.PSU_A and data["rows"]
