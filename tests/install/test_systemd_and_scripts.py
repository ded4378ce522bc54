"""The unit files pass ``systemd-analyze verify`` and ``security``; every shell script passes shellcheck.

``systemd-analyze verify`` fails a unit whose ExecStart binary is missing, so the test verifies a
copy whose ExecStart points at this checkout's own ``kipukas-board`` (the one the venv installed);
everything else in the unit is checked as shipped. Warnings (an unknown key, a typo in a section)
do not change verify's exit code, so the test also requires it to print nothing.

A missing systemd-analyze or shellcheck skips these tests on a developer's machine, but fails them
under ``KIPUKAS_REQUIRE_TOOLS=1``, which scripts/run-tests (what CI runs) sets once it has
installed the test packages: CI cannot go green without these checks having run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need_tool

ROOT = Path(__file__).resolve().parents[2]
UNITS = sorted((ROOT / "systemd").glob("*.service"))
INSTALLED_EXEC = "/opt/kipukas-board/venv/bin/kipukas-board"


def need(tool: str, package: str) -> str:
    return need_tool(tool, package)


def unit_settings(path: Path) -> dict[tuple[str, str], list[str]]:
    """(section, key) → values, in order (systemd keys may repeat)."""
    out: dict[tuple[str, str], list[str]] = {}
    section = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        out.setdefault((section, key.strip()), []).append(value.strip())
    return out


def local_copy(unit: Path, tmp_path: Path) -> Path:
    exe = Path(sys.executable).with_name("kipukas-board")
    if not exe.exists():
        message = f"{exe} is missing: install the project (scripts/run-tests does)"
        if os.environ.get("KIPUKAS_REQUIRE_TOOLS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    text = unit.read_text()
    assert INSTALLED_EXEC in text, f"{unit.name}: ExecStart should run {INSTALLED_EXEC}"
    copy = tmp_path / unit.name
    copy.write_text(text.replace(INSTALLED_EXEC, str(exe)))
    return copy


def test_there_is_a_unit() -> None:
    assert [u.name for u in UNITS] == ["kipukas-board.service"]


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_systemd_analyze_verify_passes_without_a_warning(unit: Path, tmp_path: Path) -> None:
    tool = need("systemd-analyze", "systemd")
    proc = subprocess.run([tool, "verify", str(local_copy(unit, tmp_path))],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "" and proc.stderr.strip() == "", proc.stdout + proc.stderr


def test_verify_would_catch_a_mistake(tmp_path: Path) -> None:
    """The check above can fail: a misspelt key and a missing binary are both reported."""
    tool = need("systemd-analyze", "systemd")
    bad = local_copy(UNITS[0], tmp_path)
    bad.write_text(bad.read_text().replace("WatchdogSec=", "WatchDogSec=", 1))
    proc = subprocess.run([tool, "verify", str(bad)], capture_output=True, text=True, timeout=60)
    assert "Unknown key" in proc.stderr and "WatchDogSec" in proc.stderr
    missing = tmp_path / "missing" / UNITS[0].name
    missing.parent.mkdir()
    missing.write_text(UNITS[0].read_text())  # ExecStart in /opt, which this machine lacks
    proc = subprocess.run([tool, "verify", str(missing)], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "is not executable" in proc.stderr


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_hardening_scores_ok_in_systemd_analyze_security(unit: Path, tmp_path: Path) -> None:
    tool = need("systemd-analyze", "systemd")
    proc = subprocess.run([tool, "security", "--offline=true", "--threshold=30", "--no-pager",
                           str(local_copy(unit, tmp_path))], capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d)", proc.stdout)
    assert match, proc.stdout + proc.stderr
    assert proc.returncode == 0 and float(match.group(1)) <= 3.0, proc.stdout[-2000:]


def test_unit_keeps_the_promises_of_issue_8() -> None:
    s = unit_settings(ROOT / "systemd" / "kipukas-board.service")
    one = {k: v[-1] for k, v in s.items()}
    assert one[("Service", "Type")] == "notify"
    assert one[("Service", "NotifyAccess")] == "main"
    assert int(one[("Service", "WatchdogSec")]) >= 10  # the core loop's heartbeat is 5 s
    assert one[("Service", "Restart")] == "on-failure"
    assert one[("Service", "ProtectSystem")] == "strict"
    assert one[("Service", "NoNewPrivileges")] == "true"
    assert one[("Service", "StateDirectory")] == "kipukas-board"
    assert one[("Service", "WorkingDirectory")] == "/var/lib/kipukas-board"  # writable: lgpio's pipes
    assert set(one[("Service", "SupplementaryGroups")].split()) == {"gpio", "spi", "video", "dialout", "audio"}
    assert ("Service", "PrivateDevices") not in s, "PrivateDevices hides GPIO, SPI, serial and cameras"
    # systemd < 252 (Bullseye): ProtectClock implies DeviceAllow=char-rtc, an allow-list hiding the rest
    assert ("Service", "ProtectClock") not in s, "ProtectClock hides GPIO, SPI, serial and cameras before systemd 252"
    assert ("Service", "DeviceAllow") not in s, "any DeviceAllow= makes the device policy an allow-list"
    assert one[("Service", "ExecStart")].split()[:2] == [INSTALLED_EXEC, "run"]
    assert "--sim" not in one[("Service", "ExecStart")]
    assert one[("Install", "WantedBy")] == "multi-user.target"


def test_install_script_and_unit_agree_on_paths() -> None:
    script = (ROOT / "scripts" / "install-pi").read_text()
    assert "PREFIX=/opt/kipukas-board" in script and 'VENV="$PREFIX/venv"' in script
    assert "SVC_USER=kipukas" in script
    unit = unit_settings(ROOT / "systemd" / "kipukas-board.service")
    assert unit[("Service", "User")] == ["kipukas"]
    assert "--settings /etc/kipukas-board/settings.toml" in unit[("Service", "ExecStart")][0]


def shell_scripts() -> list[Path]:
    """Every shell script in the repo: *.sh, and files whose first line names sh or bash."""
    found = []
    for p in sorted(ROOT.rglob("*")):
        rel = p.relative_to(ROOT).parts
        if not p.is_file() or rel[0] in {".git", ".venv", "node_modules"} or "__pycache__" in rel:
            continue
        if p.suffix in {".py", ".toml", ".md", ".txt", ".json", ".html", ".js", ".css", ".svg"}:
            continue
        try:
            head = p.read_bytes()[:80].split(b"\n", 1)[0]
        except OSError:
            continue
        if p.suffix in {".sh", ".bash"} or re.match(rb"#!\s*/(usr/)?bin/(env\s+)?(ba)?sh\b", head):
            found.append(p)
    return found


def test_the_known_scripts_are_found() -> None:
    names = {str(p.relative_to(ROOT)) for p in shell_scripts()}
    assert {"scripts/install-pi", "scripts/run-tests", "scripts/run-board", "scripts/_setup.sh",
            ".ci/run"} <= names, names


def test_shellcheck_passes_on_every_shell_script() -> None:
    tool = need("shellcheck", "shellcheck")
    scripts = [str(p.relative_to(ROOT)) for p in shell_scripts()]
    proc = subprocess.run([tool, "--format=gcc", *scripts], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_shellcheck_would_catch_a_mistake(tmp_path: Path) -> None:
    tool = need("shellcheck", "shellcheck")
    bad = tmp_path / "bad.sh"
    bad.write_text("#!/bin/bash\nrm -rf $1/\n")
    proc = subprocess.run([tool, str(bad)], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "SC2086" in proc.stdout


def test_the_settings_the_installer_writes_load_and_serve_the_table() -> None:
    from kipukas_board.settings import load_settings

    s = load_settings(ROOT / "systemd" / "settings.pi.toml")  # raises SettingsError naming any mistake
    assert s.host == "0.0.0.0" and s.port == 8080  # the phones at the table must reach the page
    assert [c.options["seat"] for c in s.cameras] == [1, 2]
    assert s.budget_ms == 300  # a Pi core is slower than the machine the default was planned on


# -- KIPUKAS_REQUIRE_TOOLS: in CI a missing tool fails, never skips ----------------------------------

def test_a_missing_tool_skips_locally_but_fails_when_required(monkeypatch) -> None:
    monkeypatch.delenv("KIPUKAS_REQUIRE_TOOLS", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no-such-tool-kb is not installed"):
        need_tool("no-such-tool-kb", "nothing")
    monkeypatch.setenv("KIPUKAS_REQUIRE_TOOLS", "1")
    with pytest.raises(pytest.fail.Exception, match="KIPUKAS_REQUIRE_TOOLS=1"):
        need_tool("no-such-tool-kb", "nothing")
    assert need_tool("bash", "bash").endswith("bash")


def run_install_apt(tmp_path: Path, packages: str, fake_bin: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """scripts/_setup.sh's install_apt on a package list, with a PATH of stand-ins: only ``fake_bin``
    and the real grep and dirname (so no sudo, no apt-get, no dpkg-query unless faked)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("grep", "dirname"):
        real = shutil.which(tool)
        assert real, tool
        (bin_dir / tool).symlink_to(real)
    for name, body in fake_bin.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    (tmp_path / "list.txt").write_text(packages)
    script = (f'source "{ROOT}/scripts/_setup.sh"\n'  # as scripts/run-tests calls it
              f'if install_apt "{tmp_path}/list.txt"; then echo REQUIRED; else echo OPTIONAL; fi')
    bash = shutil.which("bash")
    assert bash
    return subprocess.run([bash, "-c", script], capture_output=True, text=True, timeout=60,
                          env={"PATH": str(bin_dir), "HOME": str(tmp_path)})


def test_install_apt_says_whether_the_test_packages_are_there(tmp_path: Path) -> None:
    """run-tests requires the tools exactly when install_apt returns 0: every package installed."""
    installed = {"dpkg-query": "echo 'install ok installed'"}
    proc = run_install_apt(tmp_path / "all", "systemd  # comment\n\nshellcheck\n", installed)
    assert proc.returncode == 0 and proc.stdout.strip() == "REQUIRED", proc.stdout + proc.stderr
    # missing, not root and no sudo: named, and 1, so that the tools stay optional for this run
    proc = run_install_apt(tmp_path / "none", "shellcheck\n", {"dpkg-query": "exit 1", "id": "echo 1000"})
    assert proc.stdout.strip() == "OPTIONAL" and "missing Debian packages (shellcheck)" in proc.stderr
    # as root, a failing apt-get stops the caller even inside `if install_apt ...; then`
    failing = {"dpkg-query": "exit 1", "id": "echo 0", "apt-get": "exit 100"}
    proc = run_install_apt(tmp_path / "root", "shellcheck\n", failing)
    assert proc.returncode == 1 and "installing Debian packages: shellcheck" in proc.stdout
    assert "OPTIONAL" not in proc.stdout and "REQUIRED" not in proc.stdout


def test_run_tests_requires_the_tools_once_the_packages_are_installed() -> None:
    text = (ROOT / "scripts" / "run-tests").read_text()
    guarded = re.search(r'if install_apt [^\n]*; then\n(?:\s*#[^\n]*\n)*\s*export KIPUKAS_REQUIRE_TOOLS=', text)
    assert guarded, "scripts/run-tests must set KIPUKAS_REQUIRE_TOOLS=1 when install_apt succeeds"
