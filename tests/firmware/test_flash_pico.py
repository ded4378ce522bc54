"""scripts/flash-pico: MicroPython's version checked, every firmware file copied (main.py last)
with the board's mpremote; driven here with a stand-in mpremote that records its calls."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "flash-pico"
FIRMWARE = ROOT / "firmware"

FAKE_MPREMOTE = """#!/usr/bin/env bash
echo "$*" >> "$(dirname "$0")/calls.log"
case "$*" in
  *exec*) [ -n "${FAKE_FAIL:-}" ] && { echo "could not enter raw repl" >&2; exit 1; }
          echo "${FAKE_VERSION:-(1, 24, 1, '')}" ;;
esac
"""


def flash(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    fake = tmp_path / "mpremote"
    fake.write_text(FAKE_MPREMOTE)
    fake.chmod(0o755)
    full = {**{k: v for k, v in os.environ.items() if not k.startswith("FAKE_")}, "MPREMOTE": str(fake), **env}
    return subprocess.run(["bash", str(SCRIPT), *args], env=full, capture_output=True, text=True, timeout=60)


def calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def test_it_checks_the_version_then_copies_every_firmware_file_with_main_last(tmp_path: Path) -> None:
    port = str(tmp_path / "ttyACM0")
    done = flash(tmp_path, "--port", port)
    assert done.returncode == 0, done.stderr
    want = sorted(p.name for p in FIRMWARE.glob("*.py") if p.name != "main.py") + ["main.py"]
    assert "machine_shim" not in " ".join(want) and {"config.py", "kb_matrix.py"} <= set(want)
    assert calls(tmp_path) == [f"connect {port} exec import sys; print(sys.implementation.version)",
                               f"connect {port} cp {' '.join(want)} :", f"connect {port} reset"]
    assert "MicroPython 1.24" in done.stdout


def test_an_old_micropython_is_refused_before_anything_is_copied(tmp_path: Path) -> None:
    done = flash(tmp_path, "--port", "/dev/null", FAKE_VERSION="(1, 19, 1, '')")
    assert done.returncode == 1 and "needs 1.20 or later" in done.stderr
    assert not [c for c in calls(tmp_path) if " cp " in c]


def test_a_board_that_does_not_answer_points_at_the_safe_pin_jumper(tmp_path: Path) -> None:
    done = flash(tmp_path, "--port", "/dev/null", FAKE_FAIL="1")
    assert done.returncode == 1 and "SAFE_PIN jumper (JP1: GP22 to GND)" in done.stderr


def test_dry_run_and_files_only_change_nothing_and_skip_the_check(tmp_path: Path) -> None:
    done = flash(tmp_path, "--dry-run", "--files-only", "--port", "/dev/null")
    assert done.returncode == 0, done.stderr
    assert calls(tmp_path) == [] and "cp " in done.stdout and "main.py :" in done.stdout
    bad = flash(tmp_path, "--uf2", str(tmp_path / "missing.uf2"))
    assert bad.returncode == 1 and "does not exist" in bad.stderr
    assert flash(tmp_path, "--bogus").returncode == 2


def test_files_only_on_a_running_pico_says_to_fit_the_safe_pin_jumper_and_copies_nothing(tmp_path: Path) -> None:
    """A Pico running the firmware has Ctrl-C off: mpremote cannot enter its REPL. --files-only
    checks first and says what to do, instead of mpremote's bare 'could not enter raw repl'."""
    done = flash(tmp_path, "--files-only", "--port", "/dev/null", FAKE_FAIL="1")
    assert done.returncode == 1 and "SAFE_PIN jumper (JP1: GP22 to GND)" in done.stderr
    assert "could not enter raw repl" in done.stderr  # mpremote's own words kept, after the advice's cause
    assert not [c for c in calls(tmp_path) if " cp " in c]
    ok = flash(tmp_path, "--files-only", "--port", "/dev/null")
    assert ok.returncode == 0 and [c.split()[2] for c in calls(tmp_path)][-3:] == ["exec", "cp", "reset"]
