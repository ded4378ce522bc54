"""scripts/install-pi: every step planned by --dry-run, applied under a fake root, then planned no more.

The fake root (``KIPUKAS_ROOT``) holds a Raspberry Pi OS-like /etc, /boot/firmware/config.txt,
/proc/device-tree/model and an empty dpkg database. Users and groups are made there by the real
useradd/groupadd/usermod (``--prefix``), the unit enabled by the real ``systemctl --root``; only
apt-get, apt-cache and the base python3 are stand-ins (they would need the network and a Pi): the
apt-get stand-in records packages in the fake dpkg database, which the script reads with the real
dpkg-query; the apt-cache stand-in knows every package but those listed in the fake root's
``apt-unknown`` (plain Debian lacks Raspberry Pi OS's); the python3 stand-in makes a venv whose pip
records what it was asked to install, and fails while the fake root holds a ``pip-fails`` file.
The install on a real arm64 Debian is proven by scripts/prove-install-arm64 (README).
"""

from __future__ import annotations

import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest
from conftest import need_tool

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-pi"
STEP = re.compile(r"^\[(\d+)/(\d+)\] (.+?): (already done|to do|skipped)(.*)$")

APT_STANDIN = r"""#!/usr/bin/env python3
# apt-get stand-in: "install" records each package as installed in the fake root's dpkg database.
import os, sys
root = os.environ["KIPUKAS_ROOT"]
with open(os.path.join(root, "apt-get.log"), "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\n")
if "install" in sys.argv:
    versions = {"python3-numpy": "1:1.24.2-1+deb12u1", "python3-opencv": "4.6.0+dfsg-12"}
    with open(os.path.join(root, "var/lib/dpkg/status"), "a") as st:
        for p in sys.argv[sys.argv.index("install") + 1:]:
            if not p.startswith("-"):
                st.write(f"Package: {p}\nStatus: install ok installed\nArchitecture: all\n"
                         f"Version: {versions.get(p, '1.0-1')}\n\n")
"""

APT_CACHE_STANDIN = r"""#!/usr/bin/env python3
# apt-cache stand-in for "policy PKG...": a candidate for every package not listed in apt-unknown.
import os, sys
root = os.environ["KIPUKAS_ROOT"]
try:
    unknown = open(os.path.join(root, "apt-unknown")).read().split()
except FileNotFoundError:
    unknown = []
for p in sys.argv[2:]:
    print(f"{p}:\n  Installed: (none)\n  Candidate: {'(none)' if p in unknown else '1.0-1'}")
"""

PYTHON_STANDIN = r"""#!/usr/bin/env python3
# python3 stand-in for "-m venv --system-site-packages DIR": a venv whose python logs pip calls.
import os, stat, sys
args = sys.argv[1:]
assert args[:3] == ["-m", "venv", "--system-site-packages"], args
venv = args[3]
os.makedirs(os.path.join(venv, "bin"))
py = os.path.join(venv, "bin", "python")
with open(py, "w") as f:
    f.write('''#!/usr/bin/env python3
import os, sys
bin_dir = os.path.dirname(os.path.abspath(__file__))
if "pip" in sys.argv and os.path.exists(os.path.join(os.environ["KIPUKAS_ROOT"], "pip-fails")):
    sys.exit("pip stand-in: failing as asked")
if "show" in sys.argv:
    sys.exit(1)
with open(os.path.join(bin_dir, "..", "pip.log"), "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
if "rpi_ws281x>=5.0" in sys.argv:
    os.makedirs(os.path.join(bin_dir, "..", "lib", "python3.11", "site-packages", "rpi_ws281x"))
if "-e" in sys.argv:
    exe = os.path.join(bin_dir, "kipukas-board")
    open(exe, "w").write("#!/bin/sh\\n")
    os.chmod(exe, 0o755)
''')
os.chmod(py, os.stat(py).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
"""


def make_fake_root(base: Path) -> Path:
    root = base / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\npi:x:1000:1000::/home/pi:/bin/bash\n")
    (root / "etc/group").write_text("root:x:0:\ndialout:x:20:pi\naudio:x:29:pi\nvideo:x:44:pi\npi:x:1000:\n")
    (root / "etc/shadow").write_text("root:*:19000:0:99999:7:::\npi:*:19000:0:99999:7:::\n")
    (root / "etc/gshadow").write_text("root:*::\ndialout:*::pi\naudio:*::pi\nvideo:*::pi\npi:!::\n")
    for f in ("shadow", "gshadow"):
        (root / "etc" / f).chmod(0o640)
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text(
        "# For more options see config.txt(5)\n#dtparam=i2c_arm=on\n#dtparam=i2s=on\n#dtparam=spi=on\n"
        "dtparam=audio=on\n\n[all]\n")
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    (root / "var/lib/dpkg").mkdir(parents=True)
    (root / "var/lib/dpkg/status").write_text("")
    return root


@pytest.fixture
def fake(tmp_path: Path) -> dict[str, str]:
    root = make_fake_root(tmp_path)
    tools = tmp_path / "tools"
    tools.mkdir()
    for name, text in (("apt-get", APT_STANDIN), ("apt-cache", APT_CACHE_STANDIN), ("python3-base", PYTHON_STANDIN)):
        (tools / name).write_text(text)
        (tools / name).chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KIPUKAS_")}
    env.update(KIPUKAS_ROOT=str(root), KIPUKAS_APT_GET=str(tools / "apt-get"),
               KIPUKAS_APT_CACHE=str(tools / "apt-cache"), KIPUKAS_PYTHON=str(tools / "python3-base"))
    return env


def install(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def steps(out: str) -> dict[str, str]:
    """Step title → "already done" / "to do" / "skipped", from the script's output."""
    found = {m.group(3): m.group(4) for m in map(STEP.match, out.splitlines()) if m}
    assert len(found) == 13, out
    return found


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else b"")
            for p in sorted(root.rglob("*"))}


def test_dry_run_on_this_machine_lists_every_step_and_exits_0() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KIPUKAS_")}
    proc = install(env, "--dry-run")
    plan = steps(proc.stdout)
    assert "dry run (nothing is changed)" in proc.stdout
    assert set(plan.values()) <= {"to do", "already done", "skipped"}
    assert proc.stdout.rstrip().splitlines()[-1].startswith("dry run: ")
    if not Path("/run/systemd/system").is_dir():  # a container or chroot: enabled, started at boot
        assert "service running: skipped (systemd is not running here" in proc.stdout, proc.stdout


def test_bad_options_are_refused_with_a_reason(fake: dict[str, str]) -> None:
    proc = install(fake, "--frobnicate", check=False)
    assert proc.returncode == 2 and "unknown option --frobnicate" in proc.stderr
    proc = install(fake, "--admin-pin", "12ab", check=False)
    assert proc.returncode == 2 and "4 to 12 digits" in proc.stderr


def test_fake_root_refuses_the_real_apt_get(fake: dict[str, str]) -> None:
    env = dict(fake)
    del env["KIPUKAS_APT_GET"]
    proc = install(env, check=False)
    assert proc.returncode != 0
    assert "refusing to run the real apt-get" in proc.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="useradd --prefix needs root, even on a fake root")
def test_install_applies_every_step_once_and_then_plans_nothing(fake: dict[str, str]) -> None:
    need_tool("systemctl", "systemd")  # a skip locally, a failure under KIPUKAS_REQUIRE_TOOLS=1 (CI)
    need_tool("useradd", "passwd")
    root = Path(fake["KIPUKAS_ROOT"])
    before = tree(root)

    first = install(fake, "--dry-run", "--admin-pin", "2468")
    plan = steps(first.stdout)
    assert tree(root) == before, "a dry run changed the fake root"
    assert plan.pop("service running").startswith("skipped")  # not the live system
    assert plan.pop("rpi-ws281x for the ws281x LED adapter").startswith("skipped")  # the LEDs are not ws281x
    assert set(plan.values()) == {"to do"}, first.stdout
    assert "create group gpio, add kipukas" in first.stdout and "add kipukas to video" in first.stdout
    assert "python3-picamera2" in first.stdout and "dtparam=spi=on" in first.stdout

    done = install(fake, "--admin-pin", "2468")
    assert "install: 11 step(s) done now, 0 were already done, 2 skipped" in done.stdout, done.stdout

    # What the steps left behind, read back from the fake root.
    passwd = (root / "etc/passwd").read_text()
    assert re.search(r"^kipukas:x:\d+:\d+:[^:]*:/var/lib/kipukas-board:/usr/sbin/nologin$", passwd, re.M)
    groups = {line.split(":")[0]: line.split(":")[3].split(",") for line in (root / "etc/group").read_text().split()}
    for g in ("gpio", "spi", "video", "dialout", "audio"):
        assert "kipukas" in groups[g], (g, groups[g])
    assert groups["audio"] == ["pi", "kipukas"]  # existing members kept
    assert groups["kipukas"] == ["pi"]  # the first user reads the service's calibration (bring-up)
    config = (root / "boot/firmware/config.txt").read_text()
    assert re.findall(r"^\s*dtparam=spi=on", config, re.M) == ["dtparam=spi=on"]
    assert "#dtparam=spi=on" not in config
    assert (root / "opt/kipukas-board/app/pyproject.toml").read_bytes() == (ROOT / "pyproject.toml").read_bytes()
    assert not (root / "opt/kipukas-board/app/.venv").exists()
    unit = root / "etc/systemd/system/kipukas-board.service"
    assert unit.read_bytes() == (ROOT / "systemd/kipukas-board.service").read_bytes()
    link = root / "usr/local/bin/kipukas-board"
    assert os.readlink(link) == "/opt/kipukas-board/venv/bin/kipukas-board"  # valid on the Pi, not here
    wants = root / "etc/systemd/system/multi-user.target.wants/kipukas-board.service"
    assert wants.is_symlink()
    settings = root / "etc/kipukas-board/settings.toml"
    assert settings.read_bytes() == (ROOT / "systemd/settings.pi.toml").read_bytes()
    environment = root / "etc/kipukas-board/environment"
    assert environment.read_text() == "KIPUKAS_ADMIN_PIN=2468\n"
    assert environment.stat().st_mode & 0o777 == 0o600

    # The board answers as kipukas.local: the host is named so and Avahi announces the page.
    assert (root / "etc/hostname").read_text() == "kipukas\n"
    assert re.search(r"^127\.0\.1\.1\tkipukas$", (root / "etc/hosts").read_text(), re.M)
    assert "<port>8080</port>" in (root / "etc/avahi/services/kipukas-board.service").read_text()

    # apt was asked once for exactly the missing packages; pip was held to apt's numpy.
    apt_log = (root / "apt-get.log").read_text().splitlines()
    assert apt_log[0].startswith("update")
    assert "python3-picamera2" in apt_log[1] and "python3-lgpio" in apt_log[1]
    assert "python3-opencv" not in apt_log[1]  # OpenCV is the headless wheel unless --opencv apt
    venv = root / "opt/kipukas-board/venv"
    pins = [line for line in (venv / "kipukas-constraints.txt").read_text().splitlines() if not line.startswith("#")]
    assert pins == ["numpy==1.24.2"]
    reqs = (venv / "kipukas-requirements.txt").read_text().splitlines()
    assert any(r.startswith("flask") for r in reqs)
    assert any(r.startswith("mpremote") for r in reqs)  # scripts/flash-pico uses the venv's
    assert not [r for r in reqs if re.match(r"(numpy|opencv)", r, re.I)], reqs
    # The card decoders come from the vision extra without dependencies and without pip's OpenCV.
    vision = (venv / "kipukas-vision.txt").read_text().splitlines()
    assert sorted(re.split(r"[<>=]", r)[0] for r in vision) == ["pyzbar", "zxing-cpp"], vision
    pip_log = (venv / "pip.log").read_text().splitlines()
    assert len(pip_log) == 4
    assert f"-c {venv}/kipukas-constraints.txt -r {venv}/kipukas-requirements.txt" in pip_log[0]
    assert "--no-deps" in pip_log[1] and pip_log[1].endswith(f"-r {venv}/kipukas-vision.txt")
    # OpenCV: the contrib wheel (WeChat), only binary, held to apt's numpy by the constraints.
    assert pip_log[2].endswith(f"--only-binary=:all: -c {venv}/kipukas-constraints.txt "
                               "opencv-contrib-python-headless>=4.8,<4.12"), pip_log[2]
    assert "--no-deps" in pip_log[3] and pip_log[3].endswith(f"-e {root}/opt/kipukas-board/app")

    # Run twice: nothing left to plan, nothing done again.
    settings.write_text(settings.read_text() + "\n# edited by hand\n")
    after = tree(root)
    second = install(fake, "--dry-run", "--admin-pin", "2468")
    plan = steps(second.stdout)
    assert plan.pop("service running").startswith("skipped")
    assert plan.pop("rpi-ws281x for the ws281x LED adapter").startswith("skipped")
    assert set(plan.values()) == {"already done"}, second.stdout
    assert "dry run: 0 step(s) to do, 11 already done, 2 skipped" in second.stdout
    third = install(fake, "--admin-pin", "2468")
    assert "install: 0 step(s) done now, 11 were already done" in third.stdout
    assert tree(root) == after, "a run with nothing to do changed files"
    assert len((root / "apt-get.log").read_text().splitlines()) == 3  # update, packages, avahi-daemon
    assert "# edited by hand" in settings.read_text()  # the maker's settings are never overwritten

    # Drift is noticed step by step: a user removed from a group is put back, nothing else redone.
    group_file = root / "etc/group"
    group_file.write_text(re.sub(r"^(spi:x:\d+:).*$", r"\1", group_file.read_text(), flags=re.M))
    drift = steps(install(fake, "--dry-run").stdout)
    assert [t for t, s in drift.items() if s == "to do"] == ["service user kipukas and its groups"]
    assert "add kipukas to spi" in install(fake, "--dry-run").stdout


def test_a_changed_checkout_updates_the_program_and_the_venv(fake: dict[str, str], tmp_path: Path) -> None:
    """The copy step compares trees: an edited source file is planned as an update."""
    if os.geteuid() != 0:
        pytest.skip("useradd --prefix needs root, even on a fake root")
    root = Path(fake["KIPUKAS_ROOT"])
    install(fake)
    app_file = root / "opt/kipukas-board/app/README.md"
    app_file.write_text(app_file.read_text() + "\nlocal change\n")
    plan = steps(install(fake, "--dry-run").stdout)
    assert plan["program files in /opt/kipukas-board/app"] == "to do"
    assert plan["venv /opt/kipukas-board/venv"] == "already done"
    install(fake)
    assert app_file.read_bytes() == (ROOT / "README.md").read_bytes()


def test_script_documents_its_usage() -> None:
    out = subprocess.run(["bash", str(SCRIPT), "--help"], capture_output=True, text=True, check=True).stdout
    assert "--dry-run" in out and "sudo scripts/install-pi" in out
    assert textwrap.dedent(out).strip()


def needs_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("useradd --prefix needs root, even on a fake root")
    need_tool("systemctl", "systemd")
    need_tool("useradd", "passwd")


def test_on_plain_debian_the_raspberry_pi_packages_are_left_out_with_what_then_does_not_work(
        fake: dict[str, str]) -> None:
    needs_root()
    root = Path(fake["KIPUKAS_ROOT"])
    (root / "apt-unknown").write_text("python3-picamera2\npython3-lgpio\n")
    (root / "boot/firmware/config.txt").unlink()  # not Raspberry Pi OS either
    plan = install(fake, "--dry-run").stdout
    assert "CSI cameras (camera adapter picamera2) do not work; USB cameras (adapter opencv) still do" in plan
    assert "python3-lgpio: GPIO on a Pi 5" in plan
    assert "SPI enabled: skipped (no /boot/firmware/config.txt: not Raspberry Pi OS" in plan
    done = install(fake)
    apt_log = (root / "apt-get.log").read_text().splitlines()
    assert "python3-numpy" in apt_log[1] and "picamera2" not in apt_log[1] and "lgpio" not in apt_log[1]
    again = install(fake, "--dry-run").stdout
    assert steps(again)["apt packages"] == "already done", again
    assert "left out: python3-picamera2" in again  # still said on every run
    assert "install: 10 step(s) done now" in done.stdout, done.stdout


def test_a_failed_step_stops_the_run_says_so_and_is_retried_by_the_next(fake: dict[str, str]) -> None:
    needs_root()
    root = Path(fake["KIPUKAS_ROOT"])
    (root / "pip-fails").write_text("")
    failed = install(fake, check=False)
    assert failed.returncode != 0
    assert "step 'venv /opt/kipukas-board/venv' failed" in failed.stderr, failed.stderr
    assert "run install-pi again" in failed.stderr
    plan = steps(install(fake, "--dry-run").stdout)
    assert plan["venv /opt/kipukas-board/venv"] == "to do" and plan["program files in /opt/kipukas-board/app"] \
        == "already done"
    assert plan["command /usr/local/bin/kipukas-board"] == "to do"  # nothing after the failure was done
    (root / "pip-fails").unlink()
    done = install(fake)
    assert "install: 6 step(s) done now, 5 were already done, 2 skipped" in done.stdout, done.stdout


def test_opencv_from_apt_when_asked(fake: dict[str, str]) -> None:
    needs_root()
    root = Path(fake["KIPUKAS_ROOT"])
    install(fake, "--opencv", "apt")
    apt_log = (root / "apt-get.log").read_text().splitlines()
    assert "python3-opencv" in apt_log[1]
    venv = root / "opt/kipukas-board/venv"
    assert "opencv-contrib-python-headless===from-apt" in (venv / "kipukas-constraints.txt").read_text()
    assert "opencv-contrib-python-headless>=" not in (venv / "pip.log").read_text()
    proc = install(fake, "--opencv", "cuda", check=False)
    assert proc.returncode == 2 and "--opencv takes wheel or apt" in proc.stderr


def test_ws281x_is_installed_with_its_compiler_only_when_the_settings_choose_it(fake: dict[str, str]) -> None:
    needs_root()
    root = Path(fake["KIPUKAS_ROOT"])
    install(fake)
    assert "rpi_ws281x" not in (root / "opt/kipukas-board/venv/pip.log").read_text()
    settings = root / "etc/kipukas-board/settings.toml"
    settings.write_text(settings.read_text().replace('[leds]\nadapter = "sim"', '[leds]\nadapter = "ws281x"'))
    plan = install(fake, "--dry-run").stdout
    assert steps(plan)["rpi-ws281x for the ws281x LED adapter"] == "to do", plan
    assert "build-essential python3-dev (to compile it); pip install rpi_ws281x>=5.0" in plan
    install(fake)
    assert "install -y -q --no-install-recommends build-essential python3-dev" in (root / "apt-get.log").read_text()
    assert "rpi_ws281x>=5.0" in (root / "opt/kipukas-board/venv/pip.log").read_text()
    assert steps(install(fake, "--dry-run").stdout)["rpi-ws281x for the ws281x LED adapter"] == "already done"
