"""A built wheel stands alone: installed in a fresh venv, away from the checkout, every command works.

The wheel is built from a copy of the project's files (the checkout gets no build/ or egg-info), with
the test venv's setuptools (``--no-build-isolation``: no download) and ``-v``, so the build's own
warnings are read. The fresh venv gets the wheel without dependencies; a .pth file lends it the test
venv's site-packages for Flask, OpenCV and the rest (reinstalling those would take minutes), but not
its kipukas_board, which is an editable install whose finder a .pth path line never loads. Every
command runs with the checkout out of reach (another working directory, no PYTHONPATH), so a map, a
template or a firmware file found at all was found inside the installed package.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD = "kpks.us/jKPw#0002?5Wz31Z"


def project_files() -> list[str]:
    """The files a build reads: what git tracks (or, without git, the project's folders)."""
    proc = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard"],
                          capture_output=True, text=True)
    if proc.returncode == 0:
        return [f for f in proc.stdout.splitlines() if (ROOT / f).is_file()]
    return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
            if p.is_file() and not {".git", ".venv", "__pycache__"} & set(p.parts)]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    for f in project_files():
        (src / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, src / f)
    dist = base / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", str(dist), str(src)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    wheel = next(dist.glob("kipukas_board-*.whl"))

    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True, capture_output=True, text=True, timeout=300)
    # Added after the fresh venv's own site-packages: its kipukas_board comes first, and is the only one.
    (Path(purelib) / "kipukas-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "KIPUKAS_", "VIRTUAL_ENV"))}
    env.update(PATH=f"{venv / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}", PYTHONUNBUFFERED="1")
    work = base / "elsewhere"
    work.mkdir()
    yield {"wheel": wheel, "build": build.stdout + build.stderr, "venv": venv, "env": env, "cwd": work,
           "purelib": Path(purelib)}


def cli(inst: dict[str, object], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(str(inst["venv"])) / "bin" / "kipukas-board"), *args], cwd=inst["cwd"],
                          env=inst["env"], capture_output=True, text=True, timeout=timeout)  # type: ignore[arg-type]


def test_the_build_warns_of_nothing_deprecated_and_names_an_spdx_license(installed: dict[str, object]) -> None:
    log = str(installed["build"])
    assert "Deprecat" not in log and "deprecat" not in log, [ln for ln in log.splitlines() if "eprecat" in ln]
    with zipfile.ZipFile(str(installed["wheel"])) as whl:
        names = set(whl.namelist())
        meta = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in meta.splitlines()
    shipped = {
        "kipukas_board/data/maps/kipuka-8.toml", "kipukas_board/data/maps/kipuka-12.toml",
        "kipukas_board/data/firmware/kb_firmware.py", "kipukas_board/data/firmware/PROTOCOL.md",
        "kipukas_board/data/firmware/machine_shim/machine.py",
        "kipukas_board/modes/kipukas/templates/index.html", "kipukas_board/modes/kipukas/static/board.js",
    }
    assert shipped <= names, sorted(shipped - names)
    # Every file of the shipped folders is in the wheel, so a new map or firmware module cannot be forgotten.
    pages = [(str(d.relative_to(ROOT)), str(d.relative_to(ROOT / "kipukas_board")))
             for d in (ROOT / "kipukas_board").rglob("*")
             if d.is_dir() and d.name != "__pycache__" and not (d / "__init__.py").exists()]
    assert ("kipukas_board/web/templates", "web/templates") in pages
    for folder, inside in [("calibration/maps", "data/maps"), ("firmware", "data/firmware"), *pages]:
        for f in (ROOT / folder).rglob("*"):
            if f.is_file() and "__pycache__" not in f.parts and f.suffix != ".pyc":
                assert f"kipukas_board/{inside}/{f.relative_to(ROOT / folder)}" in names, f
    assert not [n for n in names if "__pycache__" in n or n.startswith(("tests/", "calibration/", "firmware/"))]


def test_the_installed_package_is_the_wheel_not_the_checkout(installed: dict[str, object]) -> None:
    proc = subprocess.run(
        [str(Path(str(installed["venv"])) / "bin" / "python"), "-c",
         "import kipukas_board, kipukas_board.resources as r; print(kipukas_board.__file__); "
         "print(r.shipped_dir('maps')); print(r.shipped_dir('firmware'))"],
        cwd=installed["cwd"], env=installed["env"], capture_output=True, text=True, check=True)  # type: ignore[arg-type]
    purelib = Path(str(installed["purelib"]))
    package, maps, firmware = (Path(line) for line in proc.stdout.split())
    assert package.parent == purelib / "kipukas_board"
    assert maps == purelib / "kipukas_board/data/maps" and firmware == purelib / "kipukas_board/data/firmware"


def test_map_commands_find_the_shipped_maps(installed: dict[str, object]) -> None:
    listed = cli(installed, "map", "list")
    assert listed.returncode == 0, listed.stderr
    assert "kipuka-8" in listed.stdout and "kipuka-12" in listed.stdout
    missing = cli(installed, "map", "check", "no-such-map")
    shipped = ", ".join(sorted(p.stem for p in (ROOT / "calibration/maps").glob("*.toml")))
    assert missing.returncode == 2 and f"shipped maps are: {shipped}\n" in missing.stderr


def test_sensors_soak_runs_the_shipped_firmware(installed: dict[str, object]) -> None:
    proc = cli(installed, "sensors", "soak", "--seconds", "2", "--rate", "20", "--json", timeout=120)
    assert "firmware sources are not" not in proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    # What the firmware sent arrived whole; latency is left to the soak's own tests (a shared CPU slows it).
    assert result["changes_made"] > 0 and result["changes_delivered"] == result["changes_made"], result
    assert result["phantom"] == 0 and result["final_mismatches"] == 0, result
    assert all(f.startswith("latency") for f in result["failures"]), result["failures"]
    assert proc.returncode == (0 if result["passed"] else 1)


def test_scan_reads_a_code(installed: dict[str, object], tmp_path: Path) -> None:
    segno = pytest.importorskip("segno")
    image = tmp_path / "card.png"
    segno.make_qr(PAYLOAD, error="m").save(str(image), scale=8, border=4)
    proc = cli(installed, "scan", str(image), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1])["images"]["card.png"]["codes"] == [PAYLOAD]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return resp.status, resp.read()


def test_run_sim_serves_the_page_from_the_package(installed: dict[str, object], tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [str(Path(str(installed["venv"])) / "bin" / "kipukas-board"), "run", "--sim", "--port", str(port),
         "--data-dir", str(tmp_path / "data"), "--admin-pin", "2468", "--map", "kipuka-12"],
        cwd=installed["cwd"], env=installed["env"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # type: ignore[arg-type]
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, body = fetch(f"http://127.0.0.1:{port}/healthz")
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "the board never answered /healthz"
                time.sleep(0.2)
        assert status == 200 and json.loads(body)["ok"] is True
        status, page = fetch(f"http://127.0.0.1:{port}/")
        assert status == 200 and b"board.js" in page
        status, script = fetch(f"http://127.0.0.1:{port}/kipukas/static/board.js")
        assert status == 200 and script
        _, state = fetch(f"http://127.0.0.1:{port}/api/state")
        assert len(json.loads(state)["map"]["territories"]) == 12
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, proc.stdout.read() if proc.stdout else ""
