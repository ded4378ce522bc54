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
    assert most >= 36  # kipuka-12's; if a bigger map ships, the matrix must grow with it
    assert most <= schematic.ROWS * schematic.COLS


def test_every_position_has_a_reed_then_a_diode_with_its_cathode_on_the_row(
        netlist: tuple[dict[str, str], dict[str, list[str]]], schematic: ModuleType) -> None:
    parts, nets = netlist
    rows, cols = schematic.ROWS, schematic.COLS
    for r in range(1, rows + 1):
        row = nets[f"ROW{r}"]
        pico = [p for p in row if p.startswith("U1.")]
        assert pico == [f"U1.{schematic.ROW_PINS[r - 1]}"]
        assert sorted(p for p in row if not p.startswith("U1.")) == sorted(
            f"D{(r - 1) * cols + c}.K" for c in range(1, cols + 1))
    for c in range(1, cols + 1):
        col = nets[f"COL{c}"]
        assert [p for p in col if p.startswith("U1.")] == [f"U1.{schematic.COL_PINS[c - 1]}"]
        assert sorted(p for p in col if not p.startswith("U1.")) == sorted(
            f"SW{(r - 1) * cols + c}.1" for r in range(1, rows + 1))
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            k = (r - 1) * cols + c
            assert nets[f"N_R{r}C{c}"] == [f"SW{k}.2", f"D{k}.A"]
            assert f"channel r{r}c{c}" in parts[f"SW{k}"]
            assert parts[f"D{k}"].startswith("1N4148")


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
    for r in range(1, schematic.ROWS + 1):
        assert f"ROW{r}" in texts
    for c in range(1, schematic.COLS + 1):
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
    assert worst == pytest.approx(180 * 0.061, abs=0.01)


def test_bring_up_uses_the_boards_own_diagnostics() -> None:
    text = (HW / "bring-up.md").read_text()
    for command in ("kipukas-board sensors monitor", "kipukas-board leds test", "kipukas-board scan --camera",
                    "scripts/install-pi --dry-run", "systemctl status kipukas-board"):
        assert command in text, command
    for doc in ("wiring.md", "schematic.svg", "netlist.txt", "bom.csv", "bring-up.md"):
        assert (HW / doc).exists() and doc in (HW / "README.md").read_text()
