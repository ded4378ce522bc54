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

ROOT = Path(__file__).resolve().parents[2]
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
    assert "150 parts" in proc.stdout
    names = ["netlist.txt", "schematic.svg", *(f"drawings/{d}" for d in schematic.DRAWINGS)]
    assert {p.name for p in (HW / "drawings").iterdir()} == set(schematic.DRAWINGS), "a drawing no generator writes"
    for name in names:
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
        assert sorted(p for p in col if p.startswith("SW")) == sorted(
            f"SW{r * cols + c + 1}.1" for r in range(rows))
        assert [p for p in col if not p.startswith(("U1.", "SW"))] == [f"{schematic.pullup_ref(c)}.2"]
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
    assert set(nets["LED_DIN"]) == {"R1.2", "J2.2", "LED1.DIN"}
    assert {"U2.14", "LED1.5V", "C1.+", "F1.2"} <= set(nets["+5V_LED"])
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
    """bom.csv is the reference build (kipuka-13): its reeds and diodes are the map's stands; the
    netlist's further matrix positions are spare."""
    parts, _ = netlist
    with open(HW / "bom.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and list(rows[0])[:2] == ["refs", "qty"] and {"description", "mpn", "notes"} <= set(rows[0])
    covered: list[str] = []
    for row in rows:
        refs = expand(row["refs"])
        covered += refs
        if refs:
            assert int(row["qty"]) == len(refs), row
        assert row["description"].strip(), row
    assert sorted(covered) == sorted(set(covered)), "a part is in two BOM lines"
    stands = len(load_map("kipuka-13").stands)
    spare = {f"{kind}{n}" for kind in ("SW", "D") for n in range(stands + 1, 65)}
    # J1 is the Pi's own header; LED1, the strip, is bought by the metre (its BOM line says so)
    missing = set(parts) - set(covered) - {"J1", "LED1"} - spare
    assert not missing, f"parts in the netlist but not in hardware/bom.csv: {sorted(missing)}"
    assert f"SW{stands}" in covered and f"D{stands}" in covered
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
    for command in ("kipukas-board sensors monitor", "kipukas-board leds test", "kipukas-board scan --seat",
                    "kipukas-board board-test", "leds test --pattern load", "leds test --pattern walk",
                    "scripts/flash-pico --uf2", "kipukas-board map stands", "scripts/install-pi --dry-run",
                    "systemctl status kipukas-board", "[board] map", "`count = ", "power_budget_ma"):
        assert command in text, command
    assert "port /dev/ttyACM0" not in text and "<this repository>" not in text
    # every numbered step has its minutes, a check and an "if not"
    rows = re.findall(r"^\| (\d+\.\d+) \|(.*)$", text, re.M)
    assert len(rows) >= 35
    minutes = 0
    for number, rest in rows:
        cells = [c.strip() for c in rest.rstrip("|").split(" | ")]
        assert len(cells) == 4 and cells[0].isdigit() and cells[1] and cells[2], (number, cells)
        assert cells[3], f"bring-up step {number} has no 'if not'"
        minutes += int(cells[0])
    assert 150 <= minutes <= 240, f"bring-up takes {minutes} min: one evening is at most four hours"
    # one host name from Imager to the last step, the one install-pi gives
    assert "<hostname>" not in text and "kipukas.local" in text.split("| 0.1 |")[1].split("\n")[0]
    assert re.search(r"MDNS_NAME=\"?\$\{?[A-Z_]*:-?kipukas|MDNS_NAME=kipukas|default kipukas",
                     (ROOT / "scripts" / "install-pi").read_text())
    assert "board-test" in text.split("| 1.5 |")[1].split("\n")[0] and "wiring check" in text
    assert "leds identify" in text
    for doc in ("wiring.md", "schematic.svg", "netlist.txt", "bom.csv", "bring-up.md"):
        assert (HW / doc).exists() and doc in (HW / "README.md").read_text()


def _bom() -> list[dict[str, str]]:
    with open(HW / "bom.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_one_fuse_protects_every_led_power_conductor_and_the_bom_covers_the_biggest_build(
        netlist: tuple[dict[str, str], dict[str, list[str]]]) -> None:
    """README: a closed brick, one 5 A fuse right after its jack, and behind it only conductors rated
    above what the fuse holds; the JST SM strip connector (3 A contacts) carries no power; the
    software cap stays at 80 % of the fuse; the BOM holds strip and wire for the biggest build."""
    from kipukas_board.hardware import power_chain
    from kipukas_board.maker import bom as bom_mod

    budget = load("led_budget")
    parts, nets = netlist
    rows = _bom()
    fuse = next(r for r in rows if r["refs"] == "F1")
    fuse_a = float(re.search(r"(\d+(?:\.\d+)?) A\b", fuse["description"]).group(1))
    assert fuse_a == budget.FUSE_A == bom_mod.FUSE_A and budget.CAP_MAX_A <= 0.8 * fuse_a < budget.SUPPLY_A
    assert [r["refs"] for r in rows if r["description"].startswith("Fuse")] == ["F1"]
    # every part on the fused 5 V path is rated at or above what the fuse holds
    assert set(nets["+5V_IN"]) == {"PS1.+V", "J3.+V", "F1.1"}
    on_led_5v = {p.split(".")[0] for p in nets["+5V_LED"]}
    assert "J2" not in on_led_5v and nets["NC_J2_5V"] == ["J2.1"], "the strip's JST SM carries no power"
    jack = next(r for r in rows if r["refs"] == "J3")
    jack_a = float(re.search(r"rated (\d+) A\b", jack["description"]).group(1))
    assert jack_a >= budget.SUPPLY_A * power_chain.SUPPLY_TRIP_FACTOR  # before the fuse: the brick's limit
    hold = power_chain.fuse_hold_a(fuse_a)
    wago = next(r for r in rows if r["description"].startswith("Lever splice"))
    assert float(re.search(r"(\d+) A", wago["description"]).group(1)) >= hold
    for wire in (r for r in rows if r["description"].startswith("Wire") and "LED" in r["description"]
                 and "data" not in r["description"]):
        awg = int(re.search(r"Wire (\d+) AWG", wire["description"]).group(1))
        assert power_chain.AWG_RATING_A[awg] >= hold, wire
    supply = next(r for r in rows if r["refs"] == "PS1")
    assert "closed" in supply["description"] and "mains" not in parts["PS1"].lower()
    assert not re.search(r"LRS-|screw terminal.*mains|mains wiring by", (HW / "bom.csv").read_text() +
                         (HW / "README.md").read_text())
    assert budget.feeds(180) == 4 and [budget.feeds(n) for n in (48, 72, 80, 81, 120)] == [1, 1, 1, 3, 3]
    assert all(bom_mod.feeds(n) == budget.feeds(n) for n in range(1, 400))
    biggest = max(budget.table(), key=lambda r: r["pixels"])
    strip = [r for r in rows if r["description"].startswith("LED strip")]
    metres = sum(int(r["qty"]) for r in strip)
    assert metres * budget.PIXELS_PER_M >= biggest["pixels"]
    red = next(r for r in rows if r["description"].startswith("Wire") and "red" in r["description"])
    assert int(red["qty"]) >= biggest["feeds"]  # about 1 m a feed, and the jumpers besides
    readme = (HW / "README.md").read_text()
    for row in budget.table():
        assert re.search(rf"^\| {row['map']} \| {row['layout']}[^\n]*\| {row['feeds']} \|$", readme, re.M), row
    assert f"at most {int(budget.CAP_MAX_A * 1000)}" in (HW / "bring-up.md").read_text()


def test_the_safe_pin_jumper_is_in_the_config_tables_netlist_schematic_and_bom(
        schematic: ModuleType, netlist: tuple[dict[str, str], dict[str, list[str]]]) -> None:
    parts, nets = netlist
    config = (ROOT / "firmware" / "config.py").read_text()
    gp = int(re.search(r"^SAFE_PIN = (\d+)", config, re.M).group(1))
    assert f"GP{gp}" == schematic.SAFE_PIN
    assert set(nets["SAFE"]) == {f"U1.GP{gp}", "JP1.1"} and "JP1.2" in nets["GND"]
    number = schematic.PICO_PIN_NUMBER[f"GP{gp}"]
    assert re.search(rf"^\| {number} \| GP{gp} \| SAFE \| JP1", (HW / "wiring.md").read_text(), re.M)
    assert "JP1" in [r["refs"] for r in _bom()]
    svg = ET.parse(HW / "schematic.svg")
    assert any(g.get("id") == "jp1" for g in svg.iter("{http://www.w3.org/2000/svg}g"))
    assert "SAFE_PIN jumper" in (ROOT / "firmware" / "README.md").read_text()


def test_every_column_has_its_pull_up_and_the_settle_time_covers_a_metre_of_wire(
        schematic: ModuleType, netlist: tuple[dict[str, str], dict[str, list[str]]]) -> None:
    parts, nets = netlist
    for c in range(schematic.COLS):
        ref = schematic.pullup_ref(c)
        assert f"{ref}.2" in nets[f"COL{c}"] and f"{ref}.1" in nets["+3V3_PICO"]
        assert parts[ref].startswith("10 kohm")
        assert f"R{c + 2} (10 kΩ) to 3V3" in (HW / "wiring.md").read_text()
    assert "U1.3V3" in nets["+3V3_PICO"]
    bom = next(r for r in _bom() if r["refs"] == f"R2-R{schematic.COLS + 1}")
    assert int(bom["qty"]) == schematic.COLS and "10 kohm" in bom["description"]
    settle = int(re.search(r"^SETTLE_US = (\d+)", (ROOT / "firmware" / "config.py").read_text(), re.M).group(1))
    tau_us = schematic.PULLUP_OHMS * 200e-12 * 1e6  # a metre of column wire: up to about 200 pF
    assert settle >= 5 * tau_us, (settle, tau_us)
    assert f"default {settle} µs" in (HW / "README.md").read_text() or f"(default {settle} µs)" in \
        (ROOT / "firmware" / "README.md").read_text()


def test_the_speaker_is_in_the_netlist_and_the_bom(netlist: tuple[dict[str, str], dict[str, list[str]]]) -> None:
    parts, nets = netlist
    assert {"U3", "LS1"} <= set(parts)
    assert set(nets["PCM_CLK"]) == {"J1.12", "U3.BCLK"} and set(nets["PCM_DOUT"]) == {"J1.40", "U3.DIN"}
    refs = [r["refs"] for r in _bom()]
    assert "U3" in refs and "LS1" in refs


def test_the_drawings_show_what_the_docs_say(schematic: ModuleType) -> None:
    budget = load("led_budget")
    svg = "{http://www.w3.org/2000/svg}"

    def texts(name: str) -> str:
        tree = ET.parse(HW / "drawings" / name)
        return "\n".join("".join(t.itertext()) for t in tree.iter(f"{svg}text"))

    stand = texts("stand.svg")
    assert "1N4148: band (cathode) towards the row" in stand and "N42 disc 5 x 2 mm" in stand
    matrix = ET.parse(HW / "drawings" / "matrix.svg")
    ids = {g.get("id") for g in matrix.iter(f"{svg}g")}
    assert {"pos-r0c0", "pos-r0c1", "pos-r1c0", "pos-r1c1", "diode-part"} <= ids
    assert "released (high-impedance)" in texts("matrix.svg") and "R2 10k" in texts("matrix.svg")
    power = texts("led-power.svg")
    feeds = [0, 60, 120, 180]
    assert len(feeds) == budget.feeds(180)
    for px in feeds:
        assert f"pixel {px}" in power
    assert f"F1 {budget.FUSE_A:g} A" in power and "5 V: not connected" in power
    for name in schematic.DRAWINGS:
        assert f"drawings/{name}" in (HW / "README.md").read_text()
        assert f"drawings/{name}" in (HW / "bring-up.md").read_text()


def test_firmware_flashing_names_one_micropython_version_everywhere() -> None:
    firmware_readme = (ROOT / "firmware" / "README.md").read_text()
    version = re.search(r"\*\*MicroPython (\d+\.\d+\.\d+)\*\*", firmware_readme).group(1)
    bom = next(r for r in _bom() if r["refs"] == "U1")
    assert f"MicroPython {version}" in bom["description"]
    assert f"v{version}.uf2" in (HW / "bring-up.md").read_text() and f"v{version}.uf2" in firmware_readme
    assert "scripts/flash-pico" in firmware_readme
    assert "pip install mpremote" not in firmware_readme
    flash = (ROOT / "scripts" / "flash-pico").read_text()
    assert "MIN_VERSION=(1 20)" in flash and "1.20 or later" in firmware_readme


def test_the_docs_say_what_the_firmware_does_with_rows_and_the_led() -> None:
    """The rows not being read are released (open-drain; tests/test_firmware_logic.py checks the
    firmware), and the firmware blinks the Pico's LED while it scans (kb_led.py)."""
    readme = (HW / "README.md").read_text()
    assert "releases every other row (high-impedance, never driven high)" in readme
    assert "Pin.OPEN_DRAIN" in (ROOT / "firmware" / "kb_matrix.py").read_text()
    assert "open-drain" in (HW / "make_schematic.py").read_text()
    for doc in (HW / "README.md", HW / "wiring.md", HW / "make_schematic.py", ROOT / "firmware" / "README.md"):
        assert not re.search(r"(other|idle|unselected) rows?\s+(are\s+)?(driven\s+)?high\b", doc.read_text()), doc
    firmware = (ROOT / "firmware" / "kb_firmware.py").read_text()
    assert "self.beat.tick(now)" in firmware and '"LED"' in (ROOT / "firmware" / "config.py").read_text()
    for doc in ("wiring.md", "bring-up.md"):
        assert "blinks, half a second on" in (HW / doc).read_text(), doc


def test_the_stand_drawing_and_readme_give_the_reed_the_parts_specs_hole() -> None:
    """The reed's hole in the stand drawing, its generator and the README is the one the printed
    holder bores (the parts spec), not a figure of their own."""
    from kipukas_board.hardware import parts_spec as spec

    want = f"{spec.REED_HOLE_DIAMETER_MM:g} mm hole"
    for doc in (HW / "README.md", HW / "drawings" / "stand.svg"):
        holes = re.findall(r"upright in an? ([\d.]+) mm hole", doc.read_text())
        assert holes, f"hardware/{doc.relative_to(HW)} no longer says which hole the reed stands in"
        assert {f"{float(h):g} mm hole" for h in holes} == {want}, \
            f"hardware/{doc.relative_to(HW)} gives the reed a {holes} mm hole; the parts spec bores {want}"
    drawn = load("make_schematic").stand_svg()
    assert want in drawn and spec.REED_PART.split()[-1] in drawn


def test_the_readme_gives_the_printed_holders_gap_and_margins() -> None:
    """The README's figures for the printed holder are the ones its parameters work out."""
    from kipukas_board.maker.parts.params import ReedHolder

    h = ReedHolder.for_kind("territory")
    p = h.seated()
    readme = " ".join((HW / "README.md").read_text().split())
    want = (f"{h.magnet_to_reed:.1f} mm in all, where the pair still closes with a "
            f"{p.seated_mt / p.pull_in_mt[1]:.1f}x margin and opens once the token is {p.lift_to_open_mm:g} mm up")
    assert want in readme
