"""The settings file: every documented option loads; mistakes are reported, all at once, by name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kipukas_board.settings import AdapterChoice, Settings, SettingsError, load_settings

GOOD = """
[board]
map = "kipuka-12"
calibration = "table"

[web]
host = "0.0.0.0"
port = 8081

[sensors]
adapter = "serial"
vid = "2E8A"
debounce_ms = 20

[leds]
adapter = "spi"
bus = 0
device = 0
order = "GRB"

[voice]
adapter = "espeak"
voice = "en-gb"
speed = 150
volume = 60
muted = false
device = "plughw:1,0"

[[cameras]]
adapter = "picamera2"
seat = 1
camera_num = 0

[[cameras]]
adapter = "opencv"
seat = 2
device = "/dev/v4l/by-id/usb-cam-video-index0"

[[cameras]]
adapter = "files"
seat = 3
path = "captures/"

[vision]
budget_ms = 300
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "settings.toml"
    p.write_text(text)
    return p


def test_the_documented_options_load(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path, GOOD))
    assert (s.map, s.calibration, s.host, s.port) == ("kipuka-12", "table", "0.0.0.0", 8081)
    assert s.sensors.adapter == "serial" and s.sensors.options == {"vid": "2E8A", "debounce_ms": 20}
    assert [c.options["seat"] for c in s.cameras] == [1, 2, 3]
    assert s.budget_ms == 300.0 and s.simulated().budget_ms == 300.0 and Settings().budget_ms == 80.0
    gpio = load_settings(write(tmp_path, '[sensors]\nadapter = "gpio"\npins = { T1 = 17 }\npin_factory = "auto"\n'))
    assert gpio.sensors.options["pins"] == {"T1": 17}


def test_back_to_simulation_with_the_real_options_left_in_place(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path, '[leds]\nadapter = "sim"\nbus = 0\n[[cameras]]\nadapter = "sim"\n'
                                      'seat = 1\ncamera_num = 0\n'))
    assert s.leds.options == {"bus": 0} and s.all_simulated()
    with pytest.raises(SettingsError, match="no option 'bsu'"):
        load_settings(write(tmp_path, '[leds]\nadapter = "sim"\nbsu = 0\n'))


def test_every_mistake_is_named(tmp_path: Path) -> None:
    text = """
board = "x"
[web]
port = true
prot = 80
[leds]
adapter = "spi"
brightnes = 0.3
[voice]
adapter = ["espeak"]
[[cameras]]
adapter = "files"
seat = 1
paht = "captures/"
[[cameras]]
adapter = "sim"
seat = 1
"""
    with pytest.raises(SettingsError) as err:
        load_settings(write(tmp_path, text))
    problems = "\n".join(err.value.problems)
    for fragment in ("[board] must be a table", "[web] port = True", "[web] unknown key 'prot'",
                     "[leds] brightnes = 0.3: the 'spi' leds adapter has no option 'brightnes'",
                     "[voice] adapter = ['espeak'] is not known",
                     "[cameras[0]] paht = 'captures/'", "expected one of adapter, loop, path, seat",
                     "[cameras[1]] seat = 1 is served by cameras[0] already"):
        assert fragment in problems, f"{fragment!r} not in:\n{problems}"


def test_run_reports_a_bad_settings_file_and_exits_2(tmp_path: Path) -> None:
    path = write(tmp_path, '[leds]\nadapter = "spi"\nbrightnes = 0.3\n')
    done = subprocess.run([sys.executable, "-m", "kipukas_board", "run", "--settings", str(path),
                           "--data-dir", str(tmp_path / "data"), "--port", "0"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "brightnes" in done.stderr and "Traceback" not in done.stderr


def test_without_a_real_adapter_run_says_so_and_keeps_the_sim_endpoints_off(tmp_path: Path) -> None:
    """The Pi's first settings file simulates every part (bring-up switches them one by one) and
    listens on the table's network: the board says it senses nothing, and the simulation endpoints,
    which need no PIN, stay off unless --sim asks for them."""
    import os
    import socket
    import time
    import urllib.error
    import urllib.request

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    path = write(tmp_path, '[sensors]\nadapter = "sim"\n')
    proc = subprocess.Popen([sys.executable, "-m", "kipukas_board", "run", "--settings", str(path), "--port",
                             str(port), "--data-dir", str(tmp_path / "data"), "--admin-pin", "2468"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("the board did not come up")
        for route, body in (("sim/stands/T1", b'{"occupied": true}'), ("sim/faults", b'{"part": "core"}')):
            req = urllib.request.Request(f"http://127.0.0.1:{port}/api/{route}", method="POST", data=body,
                                         headers={"Content-Type": "application/json"})
            try:
                urllib.request.urlopen(req, timeout=2)
                raise AssertionError(f"/api/{route} answered without --sim")
            except urllib.error.HTTPError as exc:
                assert exc.code == 404, (route, exc.code)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert "every adapter is simulated" in err and "every adapter simulated" in out


def test_sim_keeps_cameras_that_need_no_pi_and_says_what_a_simulated_one_stands_in_for(tmp_path):
    from kipukas_board.hardware.cameras.simulated import SimulatedCamera

    s = Settings(cameras=[AdapterChoice("files", {"seat": 1, "path": str(tmp_path), "loop": True}),
                          AdapterChoice("opencv", {"seat": 2, "device": 0}),
                          AdapterChoice("picamera2", {"seat": 3})]).simulated()
    assert [c.adapter for c in s.cameras] == ["files", "opencv", "sim"]
    assert s.cameras[0].options == {"seat": 1, "path": str(tmp_path), "loop": True}
    assert s.cameras[2].options == {"seat": 3, "stands_in_for": "picamera2"}
    assert SimulatedCamera(**s.cameras[2].options).health() == {"adapter": "sim", "ok": True, "seat": 3,
                                                                 "stands_in_for": "picamera2"}


@pytest.mark.parametrize("value", ['"fast"', "0", "true", "9000", "-80", "[80]"])
def test_a_bad_decode_budget_is_refused_saying_what_is_expected(tmp_path: Path, value: str) -> None:
    with pytest.raises(SettingsError) as err:
        load_settings(write(tmp_path, f"[vision]\nbudget_ms = {value}\n"))
    (problem,) = err.value.problems
    assert problem.startswith("[vision] budget_ms = ") and "a number from 10 to 5000" in problem
    with pytest.raises(SettingsError, match="unknown key 'budget'"):
        load_settings(write(tmp_path, "[vision]\nbudget = 80\n"))


def test_the_decode_budget_reaches_every_seats_pipeline(tmp_path: Path) -> None:
    from kipukas_board.app import BoardApp

    path = write(tmp_path, '[vision]\nbudget_ms = 250.5\n[[cameras]]\nadapter = "sim"\nseat = 1\n'
                           '[[cameras]]\nadapter = "sim"\nseat = 2\n')
    board = BoardApp(load_settings(path), tmp_path / "data", sim=True, admin_pin="2468")
    try:
        assert board.card_desk.budget_ms == 250.5
        assert [board.card_desk.pipeline(seat).budget_ms for seat in (1, 2)] == [250.5, 250.5]
    finally:
        board.card_desk.close()
        board.stop()


def test_the_example_settings_file_loads() -> None:
    example = Path(__file__).resolve().parents[1] / "calibration" / "settings.example.toml"
    assert load_settings(example).budget_ms == 80.0


@pytest.mark.parametrize(("leds", "refused"), [
    ("power_budget_ma = 4000", False),
    ("power_budget_ma = 4001", True),
    ("fuse_a = 3\npower_budget_ma = 2400", False),
    ("fuse_a = 3\npower_budget_ma = 2500", True),
    ("fuse_a = 5.4\npower_budget_ma = 4320", False),
])
def test_an_led_budget_above_80_percent_of_the_fuse_is_refused_naming_both(tmp_path: Path, leds: str,
                                                                         refused: bool) -> None:
    p = tmp_path / "settings.toml"
    p.write_text(f"[leds]\n{leds}\n")
    if not refused:
        assert load_settings(p).led_power_budget_ma is not None
        return
    with pytest.raises(SettingsError) as exc:
        load_settings(p)
    (problem,) = exc.value.problems
    budget = leds.rsplit("= ", 1)[1]
    fuse = leds.split("= ")[1].split("\n")[0] if leds.startswith("fuse") else "5"
    assert f"power_budget_ma = {budget} mA" in problem and f"80 % of the {fuse} A LED fuse" in problem
    assert f"at most {int(float(fuse) * 800)} mA" in problem


@pytest.mark.parametrize(("fuse", "refused"), [(5, False), (5.45, False), (5.5, True), (7.5, True), (30, True)])
def test_a_fuse_the_wiring_behind_it_cannot_take_is_refused_saying_why(tmp_path: Path, fuse: float,
                                                                       refused: bool) -> None:
    """A fuse holds 110 % of its rating indefinitely: above 5.45 A that is more than the strip's copper
    (6 A) or the 18 AWG wires (7 A) carry, so a short would overheat them before the fuse blew."""
    p = tmp_path / "settings.toml"
    p.write_text(f"[leds]\nfuse_a = {fuse}\npower_budget_ma = 1000\n")
    if not refused:
        assert load_settings(p).led_fuse_a == fuse
        return
    with pytest.raises(SettingsError) as exc:
        load_settings(p)
    (problem,) = exc.value.problems
    assert problem.startswith(f"[leds] fuse_a = {fuse:g}: a {fuse:g} A fuse holds") and "strip's copper" in problem
    assert "at most 5.45 A" in problem


def test_a_calibrations_budget_above_the_fuse_is_refused_at_start(tmp_path: Path) -> None:
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.show.layout import LayoutError, default_layout, with_strip_settings

    layout = default_layout(load_map("kipuka-8"))
    layout.power_budget_ma = 4500
    settings = Settings()
    with pytest.raises(LayoutError, match=r"power_budget_ma = 4500 mA is more than 80 % of the 5 A LED fuse"):
        with_strip_settings(layout, settings)
    settings.led_power_budget_ma = 3000  # the settings' own budget overrides the calibration's
    assert with_strip_settings(layout, settings).power_budget_ma == 3000


def test_a_fuse_out_of_range_is_named_alone_not_compared_with_a_fuse_nobody_wrote(tmp_path: Path) -> None:
    """A refused ``fuse_a`` says what was expected; the budget is not then weighed against the default
    5 A fuse, which would name a figure the settings file never gave."""
    p = tmp_path / "settings.toml"
    p.write_text("[leds]\nfuse_a = 40\npower_budget_ma = 6000\n")
    with pytest.raises(SettingsError) as exc:
        load_settings(p)
    assert exc.value.problems == ["[leds] fuse_a = 40: expected a number from 1 to 30"]


def test_a_port_on_the_command_line_is_checked_as_the_settings_port_is(capsys) -> None:
    """``run --port`` and ``fleet dashboard --port`` take 0 (any free port) to 65535: 99999 started a board that said it
    served on port 99999 and listened on 34463 (the port wrapped around 65536)."""
    from kipukas_board.cli import main

    for argv in (["run", "--sim", "--port", "99999"], ["run", "--sim", "--port", "-1"],
                 ["fleet", "dashboard", "--port", "70000"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert "--port: " in err and "expected a whole number from 0 (any free port) to 65535" in err, err
