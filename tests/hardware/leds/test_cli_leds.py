"""``kipukas-board leds test`` (its bring-up patterns, on the simulated strip and on the SPI adapter
with a recording bus) and ``leds bench``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kipukas_board.board.mapfile import load_map
from kipukas_board.cli import main
from kipukas_board.hardware import registry
from kipukas_board.hardware.leds.spi import SpiLedStrip, encode_frame
from kipukas_board.show.layout import default_layout


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kipukas_board", *args], capture_output=True, text=True)


def test_leds_test_walks_every_segment(tmp_path: Path) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text('[board]\nmap = "kipuka-8"\n')
    done = run("leds", "test", "--pattern", "segments", "--sim", "--seconds", "0", "--settings", str(settings),
               "--color", "0,255,0", "--data-dir", str(tmp_path / "data"), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout.strip().splitlines()[-1])
    lay = default_layout(load_map("kipuka-8"))
    seg = doc["steps"]
    assert [s["pixels"] for s in seg] == [*lay.territories.values(), *lay.stands.values()]
    assert all(s["lit"] == s["pixels"] for s in seg), "each step lights exactly its own pixels"
    assert seg[0]["what"].startswith("territory 1")


@pytest.mark.parametrize("picked_by", ["the page", "the journal"])
def test_leds_test_lights_the_map_picked_on_the_page_as_the_board_starts_on_it(tmp_path: Path, picked_by) -> None:
    from kipukas_board.store.journal import Journal
    from kipukas_board.store.map_choice import write_choice
    from kipukas_board.table.events import map_event

    settings = tmp_path / "settings.toml"
    settings.write_text('[board]\nmap = "kipuka-8"\n')
    data = tmp_path / "data"
    data.mkdir()
    if picked_by == "the page":
        write_choice(data, "kipuka-12")
    else:  # journaled, and the board stopped before it wrote the choice down
        journal = Journal.in_dir(data)
        journal.append(map_event("Kipuka of Twelve", "", picked="kipuka-12"))
        journal.close()
    done = run("leds", "test", "--pattern", "segments", "--sim", "--seconds", "0", "--settings", str(settings),
               "--color", "0,255,0", "--data-dir", str(data), "--json")
    assert done.returncode == 0, done.stderr
    seg = json.loads(done.stdout.strip().splitlines()[-1])["steps"]
    lay = default_layout(load_map("kipuka-12"))
    assert [s["pixels"] for s in seg] == [*lay.territories.values(), *lay.stands.values()]


def test_leds_test_reports_a_bad_calibration(tmp_path: Path) -> None:
    cal = tmp_path / "cal.toml"
    cal.write_text('[leds]\norder = "XRGB"\n[leds.territories]\n1 = [0]\n')
    settings = tmp_path / "settings.toml"
    settings.write_text(f'[board]\ncalibration = "{cal}"\n')
    done = run("leds", "test", "--pattern", "segments", "--sim", "--seconds", "0", "--settings", str(settings))
    assert done.returncode == 2
    assert str(cal) in done.stderr and "order = 'XRGB'" in done.stderr


def test_leds_test_refuses_a_calibration_the_board_would_not_apply(tmp_path: Path, capsys) -> None:
    """A calibration file the loader refuses for a mistake outside [leds] (here a camera's focus) is
    not applied by the board, so leds test does not light its segments either: it says why."""
    cal = tmp_path / "cal.toml"
    cal.write_text('board = "Kipuka of Eight"\n[[cameras]]\nseat = 1\nfocus = 99\n[leds]\ncount = 40\n'
                   '[leds.territories]\n' + "".join(f'{n} = [{n}]\n' for n in range(1, 9)))
    s = _settings(tmp_path, f'[board]\ncalibration = "{cal}"\n')
    argv = ["leds", "test", "--pattern", "segments", "--sim", "--settings", str(s), "--seconds", "0", "--json"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert str(cal) in err and "focus" in err and "seat 1" in err
    cal.write_text(cal.read_text().replace("focus = 99", "focus = 2.5"))
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert doc["layout"] == str(cal) and doc["steps"][0]["lit"] == [1]


def test_leds_bench_prints_a_table_and_json() -> None:
    done = run("leds", "bench", "--leds", "300", "--frames", "20", "--live", "0.5", "--json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("300 LEDs") and "fps@p95" in lines[1]
    doc = json.loads(lines[-1])
    assert doc["leds"] == 300 and set(doc["scenes"]) >= {"contention", "storm (exposed)", "win show"}
    assert all(s["total_ms"]["p95"] > 0 for s in doc["scenes"].values())
    # each scene shows what it is named for: the animated ones change from frame to frame
    frames = {name: s["distinct_frames"] for name, s in doc["scenes"].items()}
    assert frames["day (steady)"] == 1
    assert all(frames[n] > 1 for n in ("contention", "storm (exposed)", "win show")), frames
    assert doc["live"]["fps"] > 0 and doc["live"]["update_ms"]["max"] > 0
    assert doc["spi_wire_ms"] > 300 * 24 * 1.25e-3  # 300 pixels of 24 bits at 1.25 us, plus the reset


class RecordingSpi:
    """A spidev stand-in: keeps every transfer."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.max_speed_hz = 0
        self.mode = 0

    def writebytes2(self, data: bytes) -> None:
        self.sent.append(bytes(data))

    def close(self) -> None:
        pass


@pytest.fixture
def spi_strip(monkeypatch):
    """The settings' "spi" adapter built on a recording bus; yields the bus."""
    bus = RecordingSpi()
    real = registry.build

    def build(port, name, **opts):
        if port == "leds" and name == "spi":
            return SpiLedStrip(spi=bus, bufsiz=1 << 20, **opts)
        return real(port, name, **opts)

    monkeypatch.setattr(registry, "build", build)
    return bus


def _settings(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "settings.toml"
    p.write_text(text)
    return p


def test_colors_light_every_pixel_of_the_settings_count_in_turn_on_the_configured_adapter(
        tmp_path: Path, spi_strip, capsys) -> None:
    s = _settings(tmp_path, '[leds]\nadapter = "spi"\ncount = 30\nfuse_a = 5\npower_budget_ma = 4000\n')
    assert main(["leds", "test", "--settings", str(s), "--data-dir", str(tmp_path), "--seconds", "0", "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("driving the 'spi' strip on /dev/spidev0.0: 30 pixels")
    doc = json.loads(out[-1])
    assert [st["what"] for st in doc["steps"]] == ["red", "green", "blue", "white"]
    assert all(st["lit"] == list(range(30)) for st in doc["steps"]), "every pixel, not only the layout's"
    frames = spi_strip.sent
    assert len(frames) == 5 and frames[4] == encode_frame([(0, 0, 0)] * 30, "GRB")  # dark again at the end
    # each frame on the wire is the whole strip in one colour, in GRB order (red: G=0, R>0, B=0)
    level = round(255 * 0.6)  # gamma 2.2 of 255 is 255, times the default brightness 0.6
    assert frames[0] == encode_frame([(level, 0, 0)] * 30, "GRB")
    assert frames[2] == encode_frame([(0, 0, level)] * 30, "GRB")


def test_load_is_held_to_the_cap_and_lights_only_one_feeds_span(tmp_path: Path, spi_strip, capsys) -> None:
    s = _settings(tmp_path, '[leds]\nadapter = "spi"\ncount = 100\npower_budget_ma = 1000\n')
    assert main(["leds", "test", "--pattern", "load", "--pixels", "50-99", "--settings", str(s),
                 "--data-dir", str(tmp_path), "--seconds", "0", "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    doc = json.loads(out[-1])
    (step,) = doc["steps"]
    assert step["lit"] == list(range(50, 100))
    assert step["estimated_ma"] <= 1000 and step["scale"] < 1  # 50 white pixels want 3 A: the cap holds it
    assert "held down by the cap" in out[1]


def test_walk_goes_along_the_strip_one_pixel_at_a_time(tmp_path: Path, spi_strip, capsys) -> None:
    s = _settings(tmp_path, '[leds]\nadapter = "spi"\ncount = 8\n')
    assert main(["leds", "test", "--pattern", "walk", "--settings", str(s), "--data-dir", str(tmp_path),
                 "--seconds", "0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert [st["lit"] for st in doc["steps"]] == [[i] for i in range(8)]


def test_the_simulated_adapter_is_refused_unless_asked_for(tmp_path: Path, capsys) -> None:
    s = _settings(tmp_path, '[leds]\ncount = 10\n')  # adapter defaults to sim
    assert main(["leds", "test", "--settings", str(s), "--data-dir", str(tmp_path), "--seconds", "0"]) == 2
    err = capsys.readouterr().err
    assert "nothing would light" in err and 'adapter = \"spi\"' in err
    assert main(["leds", "test", "--sim", "--settings", str(s), "--data-dir", str(tmp_path), "--seconds", "0"]) == 0
    assert "simulated: nothing lights" in capsys.readouterr().out


def test_no_pixel_count_and_a_span_off_the_strip_are_named(tmp_path: Path, capsys) -> None:
    s = _settings(tmp_path, "")
    assert main(["leds", "test", "--sim", "--settings", str(s), "--data-dir", str(tmp_path), "--seconds", "0"]) == 2
    assert "[leds] count" in capsys.readouterr().err
    assert main(["leds", "test", "--sim", "--count", "10", "--pixels", "5-10", "--settings", str(s),
                 "--data-dir", str(tmp_path), "--seconds", "0"]) == 2
    assert "within 0-9" in capsys.readouterr().err


def test_the_settings_count_and_cap_reach_the_board_over_the_calibration(tmp_path: Path) -> None:
    """One place: the settings' [leds] count and power_budget_ma win over a calibration's."""
    from kipukas_board.calibrate.files import strip_layout
    from kipukas_board.settings import load_settings
    from kipukas_board.show.layout import LayoutError

    cal = tmp_path / "cal.toml"
    cal.write_text('board = "Kipuka of Eight"\n[leds]\ncount = 40\npower_budget_ma = 9000\n[leds.territories]\n'
                   + "".join(f'{n} = [{n}]\n' for n in range(1, 9)))
    s = _settings(tmp_path, f'[board]\ncalibration = "{cal}"\n[leds]\nadapter = "spi"\ncount = 120\n'
                            f'power_budget_ma = 3500\n')
    settings = load_settings(s)
    assert settings.leds.options == {} and settings.led_count == 120
    lay = strip_layout(settings, load_map("kipuka-8"))
    assert (lay.count, lay.power_budget_ma) == (120, 3500.0)
    s.write_text(f'[board]\ncalibration = "{cal}"\n[leds]\ncount = 5\npower_budget_ma = 3500\n')
    with pytest.raises(LayoutError, match="past the end of the strip"):
        strip_layout(load_settings(s), load_map("kipuka-8"))
    s.write_text(f'[board]\ncalibration = "{cal}"\n')  # the calibration's 9000 mA is more than the fuse carries
    with pytest.raises(LayoutError, match="9000 mA is more than 80 % of the 5 A LED fuse"):
        strip_layout(load_settings(s), load_map("kipuka-8"))


def test_without_a_settings_count_a_calibrated_strip_length_is_used(tmp_path: Path, capsys) -> None:
    cal = tmp_path / "cal.toml"
    cal.write_text('board = "Kipuka of Eight"\n[leds]\ncount = 40\n[leds.territories]\n'
                   + "".join(f'{n} = [{n}]\n' for n in range(1, 9)))
    s = _settings(tmp_path, f'[board]\ncalibration = "{cal}"\n')
    assert main(["leds", "test", "--sim", "--settings", str(s), "--seconds", "0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert doc["count"] == 40 and doc["steps"][0]["lit"] == list(range(40))


def test_identify_lights_every_pixel_in_its_code_and_prints_the_legend_and_the_order(tmp_path: Path, capsys) -> None:
    from kipukas_board.show import pixel_identify as pid

    s = _settings(tmp_path, '[board]\nmap = "kipuka-8"\n[leds]\ncount = 70\n')
    assert main(["leds", "identify", "--sim", "--settings", str(s), "--data-dir", str(tmp_path), "--seconds", "0",
                 "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "bright white: every 60th pixel" in out[1] and "red 1-9" in out[1]
    assert "territory 1 (Ember Ridge)" in out[2] and "pixels 0-2" in out[2]  # the default order: territories first
    (step,) = json.loads(out[-1])["steps"]
    assert step["lit"] == list(range(70))
    frame = pid.frame(70)
    assert frame[0] == frame[60] == pid.BRIGHT and frame[10] == frame[50] == pid.DIM
    assert len({frame[i] for i in (1, 11, 21, 31, 41, 51)}) == 6  # each ten its own colour


@given(st.integers(0, 10_000))
def test_every_pixel_number_can_be_read_back_from_its_description(i: int) -> None:
    import re

    from kipukas_board.show import pixel_identify as pid

    text = pid.describe(i)
    m = re.search(r"the (\d+)\w\w after the (?:bright|dim) white (\d+)", text)
    if m:
        assert int(m.group(2)) + int(m.group(1)) == i and pid.identify_color(int(m.group(2))) in (pid.BRIGHT, pid.DIM)
    else:
        assert pid.identify_color(i) in (pid.BRIGHT, pid.DIM) and text.startswith(f"pixel {i}: ")
