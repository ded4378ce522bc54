"""hardware/: the netlist, schematic, pin tables, BOM and power budget agree with each other and
with the shipped maps."""

from __future__ import annotations

import csv
import importlib.util
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from kipukas_board.board.mapfile import available_maps, load_map

ROOT = Path(__file__).resolve().parents[1]
HW = ROOT / "hardware"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"hw_{name}", HW / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def schematic() -> ModuleType:
    return load("make_schematic")


def parse_netlist(text: str) -> tuple[dict[str, str], dict[str, list[str]]]:
    parts: dict[str, str] = {}
    nets: dict[str, list[str]] = {}
    section = ""
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, rest = line.partition(" ")
        if section == "components":
            parts[key] = rest.strip()
        elif section == "nets":
            nets[key] = rest.split()
    return parts, nets


@pytest.fixture(scope="module")
def netlist() -> tuple[dict[str, str], dict[str, list[str]]]:
    return parse_netlist((HW / "netlist.txt").read_text())


def test_committed_netlist_and_schematic_are_what_the_generator_writes(schematic: ModuleType,
                                                                       tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(HW / "make_schematic.py"), str(tmp_path)],
                          capture_output=True, text=True, check=True)
    assert "137 parts" in proc.stdout
    for name in ("netlist.txt", "schematic.svg"):
        assert (tmp_path / name).read_text() == (HW / name).read_text(), \
            f"hardware/{name} is stale: run python3 hardware/make_schematic.py"


def test_the_matrix_has_a_position_for_every_stand_of_every_shipped_map(schematic: ModuleType) -> None:
    most = max(len(load_map(name).stands) for name in available_maps())
    assert most >= 39  # kipuka-13's; if a bigger map ships, the matrix must grow with it
    assert most <= schematic.ROWS * schematic.COLS


def test_every_position_has_a_reed_then_a_diode_with_its_cathode_on_the_row(
        netlist: tuple[dict[str, str], dict[str, list[str]]], schematic: ModuleType) -> None:
    parts, nets = netlist
    rows, cols = schematic.ROWS, schematic.COLS
    for r in range(rows):  # rows, columns and channels count from 0; reference designators from 1
        row = nets[f"ROW{r}"]
        pico = [p for p in row if p.startswith("U1.")]
        assert pico == [f"U1.{schematic.ROW_PINS[r]}"]
        assert sorted(p for p in row if not p.startswith("U1.")) == sorted(
            f"D{r * cols + c + 1}.K" for c in range(cols))
    for c in range(cols):
        col = nets[f"COL{c}"]
        assert [p for p in col if p.startswith("U1.")] == [f"U1.{schematic.COL_PINS[c]}"]
        assert sorted(p for p in col if not p.startswith("U1.")) == sorted(
            f"SW{r * cols + c + 1}.1" for r in range(rows))
    for r in range(rows):
        for c in range(cols):
            k = r * cols + c + 1
            assert nets[f"N_R{r}C{c}"] == [f"SW{k}.2", f"D{k}.A"]
            assert parts[f"D{k}"].startswith("1N4148")


def test_channel_names_in_the_docs_are_the_ones_the_host_prints(
        netlist: tuple[dict[str, str], dict[str, list[str]]], schematic: ModuleType) -> None:
    """``sensors monitor`` names the reed at firmware channel n by sensor_protocol.channel_name; the
    firmware numbers the reed on the i-th row pin and j-th column pin n = i * cols + j. The netlist,
    the schematic and wiring.md must give every reed that same name (SW1 is r0c0, not r1c1)."""
    from kipukas_board.hardware.sensors.protocol import channel_name

    parts, nets = netlist
    cols = schematic.COLS
    for k in range(1, schematic.ROWS * cols + 1):
        name = channel_name(k - 1, cols)
        assert f"(channel {name})" in parts[f"SW{k}"], (k, parts[f"SW{k}"])
        row = next(n for n, pins in nets.items() if n.startswith("ROW") and f"D{k}.K" in pins)
        col = next(n for n, pins in nets.items() if n.startswith("COL") and f"SW{k}.1" in pins)
        # the firmware's channel order is the order of config.ROW_PINS / COL_PINS, i.e. the GP numbers
        i = schematic.ROW_PINS.index(next(p[3:] for p in nets[row] if p.startswith("U1.")))
        j = schematic.COL_PINS.index(next(p[3:] for p in nets[col] if p.startswith("U1.")))
        assert channel_name(i * cols + j, cols) == name == f"r{row[3:]}c{col[3:]}"
    config = (ROOT / "firmware" / "config.py").read_text()
    assert f"ROW_PINS = ({', '.join(p[2:] for p in schematic.ROW_PINS)})" in config
    assert f"COL_PINS = ({', '.join(p[2:] for p in schematic.COL_PINS)})" in config
    svg_ids = {g.get("id") for g in ET.parse(HW / "schematic.svg").iter("{http://www.w3.org/2000/svg}g")}
    assert f"pos-{channel_name(0, cols)}" in svg_ids and "pos-r0c0" in svg_ids
    wiring = (HW / "wiring.md").read_text()
    table = re.findall(r"\| (ROW\d|COL\d) \| [^|]*\(channels (r\d+c\d+)-(r\d+c\d+)\)", wiring)
    assert len(table) == schematic.ROWS + schematic.COLS
    for net, first, last in re.findall(r"\| (ROW\d|COL\d) \| [^|]*\(channels (r\d+c\d+)-(r\d+c\d+)\)", wiring):
        n = int(net[3:])
        want = (f"r{n}c0", f"r{n}c{cols - 1}") if net.startswith("ROW") else (f"r0c{n}", f"r{schematic.ROWS - 1}c{n}")
        assert (first, last) == want, net
    for doc in ("README.md", "wiring.md", "bring-up.md"):
        text = (HW / doc).read_text()
        assert "r0c0" in text, f"hardware/{doc} should show the first channel as r0c0"


def test_no_pin_is_on_two_nets_and_every_pin_belongs_to_a_listed_part(
        netlist: tuple[dict[str, str], dict[str, list[str]]]) -> None:
    parts, nets = netlist
    seen: dict[str, str] = {}
    for net, pins in nets.items():
        for pin in pins:
            assert pin not in seen, f"{pin} is on {seen.get(pin)} and {net}"
            seen[pin] = net
            assert pin.split(".")[0] in parts, f"{pin} on {net}: no such part"
    # The level shifter: Pi MOSI in, 5 V out through the resistor to DIN; powered from the LED 5 V.
    assert set(nets["SPI_MOSI"]) == {"J1.19", "U2.2"}
    assert set(nets["LED_DIN"]) == {"R1.2", "J2.2"}
    assert {"U2.14", "J2.1", "C1.+"} <= set(nets["+5V_LED"])
    assert {"U2.7", "U2.1", "J1.6", "J2.3", "U1.GND"} <= set(nets["GND"])


def expand(refs: str) -> list[str]:
    """``"SW1-SW64"`` → SW1..SW64; ``"U2"`` → [U2]; ``""`` → []."""
    out: list[str] = []
    for item in filter(None, (r.strip() for r in refs.split(","))):
        m = re.fullmatch(r"([A-Z]+)(\d+)-\1(\d+)", item)
        if m:
            out += [f"{m.group(1)}{i}" for i in range(int(m.group(2)), int(m.group(3)) + 1)]
        else:
            out.append(item)
    return out


def test_the_bom_covers_every_part_of_the_netlist_once(netlist: tuple[dict[str, str], dict[str, list[str]]]) -> None:
    parts, _ = netlist
    with open(HW / "bom.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and list(rows[0]) == ["refs", "qty", "description", "manufacturer", "mpn", "notes"]
    covered: list[str] = []
    for row in rows:
        refs = expand(row["refs"])
        covered += refs
        if refs:
            assert int(row["qty"]) == len(refs), row
        assert row["description"].strip(), row
    assert sorted(covered) == sorted(set(covered)), "a part is in two BOM lines"
    missing = set(parts) - set(covered) - {"J1"}  # J1 is the Pi's own header
    assert not missing, f"parts in the netlist but not in hardware/bom.csv: {sorted(missing)}"
    mpns = {r["description"].split(",")[0]: r["mpn"] for r in rows}
    assert mpns["Quad buffer 74AHCT125"] == "SN74AHCT125N"


def test_pico_pin_table_in_wiring_md_matches_the_netlist(schematic: ModuleType,
                                                         netlist: tuple[dict[str, str], dict[str, list[str]]]) -> None:
    _, nets = netlist
    table = re.findall(r"^\|\s*(\d+)\s*\|\s*(GP\d+)\s*\|\s*(ROW\d|COL\d)\s*\|", (HW / "wiring.md").read_text(), re.M)
    assert len(table) == schematic.ROWS + schematic.COLS
    for number, gpio, net in table:
        assert f"U1.{gpio}" in nets[net], (gpio, net)
        assert schematic.PICO_PIN_NUMBER[gpio] == int(number), gpio


def test_schematic_svg_is_well_formed_and_labels_every_row_column_and_position(schematic: ModuleType) -> None:
    tree = ET.parse(HW / "schematic.svg")
    texts = {"".join(t.itertext()) for t in tree.iter("{http://www.w3.org/2000/svg}text")}
    for r in range(schematic.ROWS):
        assert f"ROW{r}" in texts
    for c in range(schematic.COLS):
        assert f"COL{c}" in texts
    groups = [g for g in tree.iter("{http://www.w3.org/2000/svg}g") if g.get("id", "").startswith("pos-")]
    assert len(groups) == schematic.ROWS * schematic.COLS


def test_led_budget_table_in_readme_is_what_the_script_computes() -> None:
    proc = subprocess.run([sys.executable, str(HW / "led_budget.py"), "--json"], capture_output=True,
                          text=True, check=True)
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    readme = (HW / "README.md").read_text()
    assert len(data["rows"]) == 2 * len(available_maps())
    for row in data["rows"]:
        pattern = (rf"^\| {row['map']} \| {row['layout']}[^|]* \| {row['pixels']} \| {row['dark_a']:.2f} A \| "
                   rf"{row['play_a']:.2f} A \| {row['white_a']:.2f} A \|")
        assert re.search(pattern, readme, re.M), f"README's budget row for {row['map']} {row['layout']} is stale"
    worst = max(r["white_a"] for r in data["rows"])
    assert worst == pytest.approx(195 * 0.061, abs=0.01)  # kipuka-13's full layout, all white


def test_bring_up_uses_the_boards_own_diagnostics() -> None:
    text = (HW / "bring-up.md").read_text()
    for command in ("kipukas-board sensors monitor", "kipukas-board leds test", "kipukas-board scan --camera",
                    "scripts/install-pi --dry-run", "systemctl status kipukas-board"):
        assert command in text, command
    for doc in ("wiring.md", "schematic.svg", "netlist.txt", "bom.csv", "bring-up.md"):
        assert (HW / doc).exists() and doc in (HW / "README.md").read_text()


def test_the_bom_has_a_fuse_for_every_power_feed_and_strip_for_every_pixel() -> None:
    """README: over 80 pixels, a fused feed at both ends and every 60 pixels; the BOM is for the
    biggest build, so it must cover that build's feeds and pixels."""
    budget = load("led_budget")
    assert [budget.feeds(n) for n in (48, 72, 80, 81, 120, 180)] == [1, 1, 1, 3, 3, 4]
    biggest = max(budget.table(), key=lambda r: r["pixels"])
    with open(HW / "bom.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    fuses = sum(int(r["qty"]) for r in rows if r["description"].startswith("Fuse 5 A"))
    assert fuses == biggest["feeds"], f"{fuses} fuses in the BOM, {biggest['feeds']} feeds for {biggest}"
    strip = [r for r in rows if r["description"].startswith("LED strip")]
    metres = sum(int(r["qty"]) * float(re.search(r"(\d+(?:\.\d+)?) m\b", r["description"]).group(1)) for r in strip)
    assert metres * budget.PIXELS_PER_M >= biggest["pixels"]
    wire = next(r for r in rows if r["description"].startswith("Wire 18 AWG"))
    assert float(re.search(r"(\d+) m each", wire["description"]).group(1)) >= biggest["feeds"]  # ~1 m a feed
    readme = (HW / "README.md").read_text()
    for row in budget.table():
        assert re.search(rf"^\| {row['map']} \| {row['layout']}[^\n]*\| {row['feeds']} \|$", readme, re.M), row


def test_the_docs_say_what_the_firmware_does_with_rows_and_the_led() -> None:
    """The rows not being read are driven high (tests/test_firmware_logic.py checks the firmware), and
    the firmware blinks the Pico's LED while it scans (kb_led.py)."""
    readme = (HW / "README.md").read_text()
    assert "high-impedance" not in readme and "every other row\n  high" in readme
    assert "high-impedance" not in (HW / "make_schematic.py").read_text()
    firmware = (ROOT / "firmware" / "kb_firmware.py").read_text()
    assert "self.beat.tick(now)" in firmware and '"LED"' in (ROOT / "firmware" / "config.py").read_text()
    for doc in ("wiring.md", "bring-up.md"):
        assert "blinks, half a second on" in (HW / doc).read_text(), doc
