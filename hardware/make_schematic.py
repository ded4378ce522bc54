#!/usr/bin/env python3
"""Write the sensor board's netlist and schematic from one description: the reed matrix, the Pico,
and the LED data path with its level shifter.

    python3 hardware/make_schematic.py          # rewrites hardware/netlist.txt, schematic.svg, drawings/*.svg

Why generated: the netlist (what a builder wires, checked by tests/maker/test_hardware_docs.py) and the
drawing (what a builder reads) cannot disagree if both come from the same lists below. Edit the lists,
run this, commit both files.

The reed matrix is scanned COL2ROW (as keyboard firmware calls it): the Pico pulls one row low at a
time (the others released: open-drain, high-impedance) and reads the columns, which have 10 kOhm
pull-ups; a closed reed pulls its column low through its diode. Released idle rows make a missing
diode show as a ghost instead of hiding it in a fight between two outputs. The diode (cathode towards the row) stops a current path through three closed switches from
making a fourth, open one look closed ("ghosting"), so any number of tokens can stand at once.

Rows, columns and channels are numbered from 0, as the firmware and the host number them (the
reed between ROW0 and COL0 reports as channel ``r0c0`` in ``kipukas-board sensors monitor``);
part references (SW1, D1, ...) count from 1 as reference designators do.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def _parts_spec() -> ModuleType:
    """The reed's and the magnet's sizes from the package's parts spec, read by path so this script
    runs with a bare python3 and draws the stand with the hole the printed holder bores."""
    path = HERE.parent / "kipukas_board" / "hardware" / "parts_spec.py"
    loader = importlib.util.spec_from_file_location("kipukas_parts_spec", path)
    assert loader and loader.loader, f"{path} is missing: run this script from the project's checkout"
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module


SPEC = _parts_spec()

ROWS = 8
COLS = 8
#: Pico GPIO for each row, ROW0 first (pulled low one at a time, released otherwise: open-drain).
ROW_PINS = [f"GP{n}" for n in range(2, 2 + ROWS)]          # GP2..GP9
#: Pico GPIO for each column, COL0 first (inputs, each with a 10 kOhm pull-up to 3V3).
COL_PINS = [f"GP{n}" for n in range(10, 10 + COLS)]        # GP10..GP17
#: Tie this pin to GND (jumper JP1) and reset: the firmware returns to the REPL (firmware/config.py).
SAFE_PIN = "GP22"
#: Column pull-up resistors: R2 on COL0 ... R9 on COL7.
PULLUP_OHMS = 10_000
#: Pico physical pin number of each GPIO used (Raspberry Pi Pico pinout).
PICO_PIN_NUMBER = {"GP0": 1, "GP1": 2, "GP2": 4, "GP3": 5, "GP4": 6, "GP5": 7, "GP6": 9, "GP7": 10,
                   "GP8": 11, "GP9": 12, "GP10": 14, "GP11": 15, "GP12": 16, "GP13": 17, "GP14": 19,
                   "GP15": 20, "GP16": 21, "GP17": 22, "GP22": 29, "GND": 3, "VBUS": 40, "3V3": 36}


def pullup_ref(c: int) -> str:
    """The pull-up resistor of column c: R2 for COL0 (R1 is the LED data resistor)."""
    return f"R{c + 2}"


def channel(r: int, c: int) -> str:
    """The sensor channel of matrix position (row r, column c), both from 0, exactly as the host
    names it (kipukas_board.hardware.sensors.protocol.channel_name): ``r3c5``."""
    return f"r{r}c{c}"


def switch_ref(r: int, c: int) -> str:
    """Reference designators count from 1: the reed at r0c0 is SW1."""
    return f"SW{r * COLS + c + 1}"


def diode_ref(r: int, c: int) -> str:
    return f"D{r * COLS + c + 1}"


@dataclass
class Netlist:
    components: dict[str, str] = field(default_factory=dict)   # ref -> description
    nets: dict[str, list[str]] = field(default_factory=dict)   # net -> ["REF.pin", ...]

    def part(self, ref: str, description: str) -> None:
        assert ref not in self.components, ref
        self.components[ref] = description

    def connect(self, net: str, *pins: str) -> None:
        self.nets.setdefault(net, []).extend(pins)


def build() -> Netlist:
    n = Netlist()
    n.part("U1", "Raspberry Pi Pico (sensor board), MicroPython firmware in firmware/")
    for r in range(ROWS):
        for c in range(COLS):
            n.part(switch_ref(r, c), f"reed switch, normally open; matrix row {r} column {c} "
                                     f"(channel {channel(r, c)})")
            n.part(diode_ref(r, c), f"1N4148 diode; matrix row {r} column {c}")
    for r, pin in enumerate(ROW_PINS):
        n.connect(f"ROW{r}", f"U1.{pin}", *(f"{diode_ref(r, c)}.K" for c in range(COLS)))
    for c, pin in enumerate(COL_PINS):
        n.connect(f"COL{c}", f"U1.{pin}", *(f"{switch_ref(r, c)}.1" for r in range(ROWS)), f"{pullup_ref(c)}.2")
    for r in range(ROWS):
        for c in range(COLS):
            n.connect(f"N_R{r}C{c}", f"{switch_ref(r, c)}.2", f"{diode_ref(r, c)}.A")
    for c in range(COLS):
        n.part(pullup_ref(c), f"10 kohm 1/4 W, pull-up of COL{c} to 3V3 (the column settles in under 20 us)")
    n.part("JP1", f"2-pin header and jumper: SAFE_PIN ({SAFE_PIN}) to GND; fitted = REPL instead of scanning")
    n.connect("+3V3_PICO", "U1.3V3", *(f"{pullup_ref(c)}.1" for c in range(COLS)))
    n.connect("SAFE", f"U1.{SAFE_PIN}", "JP1.1")

    # LED power: a closed 5 V brick into a panel XT60 inlet (rated for what the brick gives before it
    # cuts out: it is before the fuse), one fuse that protects every conductor behind it (all rated
    # above 5 A), then the strip's first feed (more feeds in drawings/led-power.svg).
    # LED data: Pi SPI0 MOSI -> 74AHCT125 (powered at 5 V) -> 330 ohm -> first pixel's DIN.
    n.part("J1", "Raspberry Pi 40-pin header (Pi 4 or Pi 5)")
    n.part("U2", "SN74AHCT125N quad buffer, 3.3 V -> 5 V level shifter for the LED data line")
    n.part("R1", "330 ohm 1/4 W, series resistor at the strip's DIN")
    n.part("C1", "1000 uF 10 V electrolytic across the strip's supply at its first feed, + to 5 V")
    n.part("C2", "100 nF ceramic, U2 decoupling")
    n.part("J2", "LED strip data connector (JST SM 3-pin): DIN and GND only; its 5 V contact left unconnected")
    n.part("J3", "LED supply inlet: XT60 panel-mount male (Amass XT60E-M, 30 A) in the box wall; the brick's "
                 "cable ends in its XT60 female")
    n.part("PS1", "5 V 6 A closed desktop power supply (Mean Well GST60A05-P1J), its DC plug replaced by an "
                  "XT60 female")
    n.part("F1", "5 A ATO blade fuse in a holder, right after J3: protects every LED power conductor")
    n.part("LED1", "WS2812B strip: 5 V and GND pads at each feed (18 AWG soldered), DIN from J2")
    n.part("U3", "MAX98357A I2S mono amplifier breakout")
    n.part("LS1", "speaker 4 ohm 3 W (passive), on the amplifier's outputs")
    n.connect("SPI_MOSI", "J1.19", "U2.2")            # GPIO10 / SPI0 MOSI -> 1A
    n.connect("LED_DATA_5V", "U2.3", "R1.1")          # 1Y
    n.connect("LED_DIN", "R1.2", "J2.2", "LED1.DIN")
    n.connect("+5V_IN", "PS1.+V", "J3.+V", "F1.1")    # the brick's XT60 in the inlet
    n.connect("+5V_LED", "F1.2", "LED1.5V", "C1.+", "U2.14", "U2.4", "U2.10", "U2.13", "C2.1")
    n.connect("GND", "PS1.-V", "J3.-V", "LED1.GND", "J2.3", "C1.-", "C2.2", "U2.7", "U2.1", "U2.5", "U2.9",
              "U2.12", "J1.6", "U1.GND", "JP1.2", "U3.GND", "J1.9")
    n.connect("NC_J2_5V", "J2.1")                     # the pigtail's 5 V wire: insulated, not used
    # Speaker: I2S from the Pi's PCM pins, powered from the Pi's 5 V (under 1 A).
    n.connect("PCM_CLK", "J1.12", "U3.BCLK")
    n.connect("PCM_FS", "J1.35", "U3.LRC")
    n.connect("PCM_DOUT", "J1.40", "U3.DIN")
    n.connect("+5V_PI", "J1.2", "U3.VIN")
    n.connect("SPK+", "U3.OUT+", "LS1.1")
    n.connect("SPK-", "U3.OUT-", "LS1.2")
    return n


def netlist_text(n: Netlist) -> str:
    out = ["# Kipukas board: sensor board (reed matrix), LED power and data path, speaker.",
           "# Generated by hardware/make_schematic.py: edit that file, not this one.",
           "# Pins: U1.GPn = Pico GPIO n; SW.1/SW.2 = reed leads; D.A/D.K = diode anode/cathode;",
           "# J1.n = Pi header pin n; U2.n = 74AHCT125 pin n (DIP-14); R2-R9 .1 = 3V3 side, .2 = column;",
           "# JP1 = the SAFE_PIN jumper; J3 = the LED supply's XT60 inlet; LED1 = the strip (first feed).",
           "# The Pico connects to the Pi by USB (power and serial), not by header wires.",
           "", "[components]"]
    out += [f"{ref:<5} {desc}" for ref, desc in n.components.items()]
    out += ["", "[nets]"]
    out += [f"{net:<12} {' '.join(pins)}" for net, pins in n.nets.items()]
    return "\n".join(out) + "\n"


# -- the drawing ----------------------------------------------------------------------------------

def _text(x: float, y: float, s: str, size: int = 11, anchor: str = "middle", cls: str = "") -> str:
    c = f' class="{cls}"' if cls else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{c}>'
            f'{escape(s)}</text>')


def _line(x1: float, y1: float, x2: float, y2: float, cls: str = "w") -> str:
    return f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" class="{cls}"/>'


def _cell(x: float, y: float, r: int, c: int) -> list[str]:
    """One matrix position: from the column wire at x, a reed then a diode down to the row wire at y.

    The column runs vertically at ``x``; the row horizontally at ``y``. The branch leaves the
    column at (x, y - 44), goes right through the reed (a glass envelope with two blades), then the
    diode (triangle pointing at the row: cathode towards the row) and joins the row at (x + 34, y).
    """
    bx = x + 34
    parts = [
        f'<g id="pos-{channel(r, c)}" data-switch="{switch_ref(r, c)}" data-diode="{diode_ref(r, c)}">',
        f'<circle cx="{x:.1f}" cy="{y - 44:.1f}" r="2" class="dot"/>',
        _line(x, y - 44, bx, y - 44),
        # reed switch, vertical, between y-44 and y-26
        _line(bx, y - 44, bx, y - 40),
        f'<rect x="{bx - 4:.1f}" y="{y - 40:.1f}" width="8" height="12" rx="4" class="glass"/>',
        _line(bx, y - 40, bx + 1.5, y - 33.5), _line(bx, y - 28, bx - 1.5, y - 34.5),
        _line(bx, y - 28, bx, y - 20),
        # diode pointing down (anode at top, cathode bar at bottom)
        f'<polygon points="{bx - 5:.1f},{y - 20:.1f} {bx + 5:.1f},{y - 20:.1f} {bx:.1f},{y - 12:.1f}" class="diode"/>',
        _line(bx - 5, y - 12, bx + 5, y - 12, "bar"),
        _line(bx, y - 12, bx, y),
        f'<circle cx="{bx:.1f}" cy="{y:.1f}" r="2" class="dot"/>',
        _text(bx + 7, y - 30, switch_ref(r, c), 7, "start", "ref"),
        _text(bx + 7, y - 13, diode_ref(r, c), 7, "start", "ref"),
        "</g>",
    ]
    return parts


def schematic_svg(n: Netlist) -> str:
    pitch_x, pitch_y = 70, 62
    x0, y0 = 150, 150            # first column wire, first row wire
    width = x0 + COLS * pitch_x + 440
    height = max(y0 + ROWS * pitch_y + 110, 760)
    s: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
        "<title>Kipukas board: reed matrix on the Pico, and the LED data path</title>",
        "<style>.w{stroke:#000;stroke-width:1.2}.bar{stroke:#000;stroke-width:2}"
        ".glass{fill:#e8f4ff;stroke:#357;stroke-width:1}.diode{fill:#000}.dot{fill:#000}"
        ".ref{fill:#555}.box{fill:#fff;stroke:#000;stroke-width:1.5}.net{fill:#036}"
        ".note{fill:#333}</style>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>',
        _text(20, 28, "Kipukas board - sensor board: 8 x 8 reed matrix, COL2ROW, on a Raspberry Pi Pico",
              15, "start"),
        _text(20, 46, "Rows GP2-GP9 open-drain: pulled low one at a time, the others released; columns GP10-GP17 "
                      "inputs with 10 kohm pull-ups (R2-R9); diode cathode towards the row.", 10, "start", "note"),
        _text(20, 59, "Channel rRcC is the reed on ROWr and COLc, counted from 0 as `sensors monitor` prints it. "
                      "Generated by hardware/make_schematic.py.", 10, "start", "note"),
    ]
    bottom = y0 + (ROWS - 1) * pitch_y
    right = x0 + (COLS - 1) * pitch_x + 34
    # Pico block on the left, pins down its right edge.
    pico_top, pico_bot = 64, bottom + 40
    s.append(f'<rect x="20" y="{pico_top}" width="70" height="{pico_bot - pico_top}" class="box"/>')
    s.append(_text(55, pico_top + 18, "U1", 12))
    s.append(_text(55, pico_top + 32, "Pico", 11))
    s.append(_text(55, pico_bot - 18, "GP10-17:", 8))
    s.append(_text(55, pico_bot - 7, "see COL0-7", 8))
    for r, pin in enumerate(ROW_PINS):
        y = y0 + r * pitch_y
        s.append(_text(86, y - 3, pin, 9, "end"))
        s.append(_line(90, y, right + 10, y))
        s.append(_text(right + 14, y + 4, f"ROW{r}", 10, "start", "net"))
    for c, pin in enumerate(COL_PINS):
        x = x0 + c * pitch_x
        s.append(_line(x, 92, x, bottom - 44))
        s.append(_text(x, 86, f"COL{c}", 10, "middle", "net"))
        s.append(_text(x, 74, f"U1.{pin}", 9))
    for r in range(ROWS):
        for c in range(COLS):
            s.extend(_cell(x0 + c * pitch_x, y0 + r * pitch_y, r, c))
    # Column pull-ups below the matrix: each column runs on down through its resistor to the 3V3 rail.
    rail = bottom + 44
    for c in range(COLS):
        x = x0 + c * pitch_x
        s.append(_line(x, bottom - 44, x, bottom + 14))
        s.append(f'<rect x="{x - 4:.1f}" y="{bottom + 14:.1f}" width="8" height="18" class="box"/>')
        s.append(_text(x + 7, bottom + 27, f"{pullup_ref(c)} 10k", 7, "start", "ref"))
        s.append(_line(x, bottom + 32, x, rail))
    s.append(_line(90, rail, x0 + (COLS - 1) * pitch_x, rail))
    s.append(_text(86, rail + 3, "3V3", 9, "end"))
    s.append(_text(x0 + (COLS - 1) * pitch_x + 8, rail + 4, "+3V3_PICO (pin 36)", 9, "start", "net"))
    # The SAFE_PIN jumper under the Pico.
    s.append(f'<g id="jp1"><rect x="30" y="{rail + 22}" width="50" height="16" class="box"/>')
    s.append(_text(55, rail + 34, "JP1", 9))
    s.append(_text(90, rail + 34, f"{SAFE_PIN} (pin 29) to GND: fitted = REPL, no scanning (SAFE_PIN)", 9,
                   "start", "note"))
    s.append("</g>")

    # LED data path on the right.
    lx = right + 80
    s.append(_text(lx, 100, "LED data path (Pi SPI0 MOSI -> WS2812 strip)", 12, "start"))
    s.append(f'<rect x="{lx}" y="120" width="80" height="60" class="box"/>')
    s.append(_text(lx + 40, 140, "J1 Pi", 11))
    s.append(_text(lx + 40, 156, "pin 19 GPIO10", 8))
    s.append(_text(lx + 40, 168, "pin 6 GND", 8))
    s.append(f'<rect x="{lx + 130}" y="120" width="90" height="60" class="box"/>')
    s.append(_text(lx + 175, 140, "U2 74AHCT125", 10))
    s.append(_text(lx + 175, 156, "2:1A  3:1Y  1:1OE=GND", 7))
    s.append(_text(lx + 175, 168, "14:VCC=+5V_LED  7:GND", 7))
    s.append(_line(lx + 80, 150, lx + 130, 150))
    s.append(_text(lx + 105, 145, "SPI_MOSI", 8, "middle", "net"))
    s.append(_line(lx + 220, 150, lx + 250, 150))
    s.append(f'<rect x="{lx + 250}" y="144" width="30" height="12" class="box"/>')
    s.append(_text(lx + 265, 140, "R1 330", 8))
    s.append(_line(lx + 280, 150, lx + 320, 150))
    s.append(_text(lx + 300, 145, "LED_DIN", 8, "middle", "net"))
    s.append(f'<rect x="{lx + 320}" y="120" width="60" height="90" class="box"/>')
    s.append(_text(lx + 350, 138, "J2 strip", 10))
    s.append(_text(lx + 350, 154, "1 5V n.c.", 8))
    s.append(_text(lx + 350, 168, "2 DIN", 8))
    s.append(_text(lx + 350, 182, "3 GND", 8))
    s.append(f'<rect x="{lx}" y="240" width="80" height="50" class="box"/>')
    s.append(_text(lx + 40, 258, "PS1 5 V 6 A", 10))
    s.append(_text(lx + 40, 271, "closed brick", 8))
    s.append(_text(lx + 40, 283, "GST60A05-P1J", 8))
    s.append(_line(lx + 80, 255, lx + 95, 255))
    s.append(f'<rect x="{lx + 95}" y="247" width="24" height="16" class="box"/>')
    s.append(_text(lx + 107, 243, "J3 XT60", 8))
    s.append(_line(lx + 119, 255, lx + 130, 255))
    s.append(f'<rect x="{lx + 130}" y="249" width="30" height="12" class="box"/>')
    s.append(_text(lx + 145, 275, "F1 5 A", 8))
    s.append(_line(lx + 160, 255, lx + 350, 255))
    s.append(_line(lx + 350, 255, lx + 350, 210))
    s.append(_text(lx + 250, 250, "+5V_LED (also U2 VCC, C2)", 8, "middle", "net"))
    s.append(f'<rect x="{lx + 290}" y="262" width="20" height="10" class="box"/>')
    s.append(_text(lx + 316, 270, "+", 9, "start"))
    s.append(_text(lx + 300, 288, "C1 1000 uF (+ to 5 V)", 8))
    s.append(_line(lx + 300, 255, lx + 300, 262))
    s.append(_line(lx + 40, 290, lx + 40, 320))
    s.append(_line(lx + 40, 320, lx + 370, 320))
    s.append(_line(lx + 370, 320, lx + 370, 210))
    s.append(_line(lx + 300, 272, lx + 300, 320))
    s.append(_text(lx + 200, 334, "GND: PSU -V, strip GND, C1, C2, U2 pins 7/1/5/9/12, Pi pins 6/9, Pico GND", 8,
                   "middle", "net"))
    s.append(_text(lx + 350, 226, "LED1 pads", 8))
    # Speaker: I2S amplifier on the Pi's PCM pins.
    s.append(f'<rect x="{lx}" y="580" width="80" height="60" class="box"/>')
    s.append(_text(lx + 40, 598, "J1 Pi", 11))
    s.append(_text(lx + 40, 612, "12 BCLK  35 LRC", 7))
    s.append(_text(lx + 40, 624, "40 DIN  2 5V  9 GND", 7))
    s.append(_line(lx + 80, 610, lx + 130, 610))
    s.append(f'<rect x="{lx + 130}" y="580" width="90" height="60" class="box"/>')
    s.append(_text(lx + 175, 604, "U3 MAX98357A", 10))
    s.append(_text(lx + 175, 620, "I2S amplifier", 8))
    s.append(_line(lx + 220, 600, lx + 260, 600))
    s.append(_line(lx + 220, 620, lx + 260, 620))
    s.append(f'<rect x="{lx + 260}" y="592" width="40" height="36" class="box"/>')
    s.append(_text(lx + 280, 614, "LS1 4R", 8))
    notes = [
        "Grounds are common: the Pi, the Pico (through USB) and the LED supply share GND.",
        "Never power the strip from the Pi's 5 V pins; the Pi has its own USB-C supply.",
        "Over 80 pixels: 5 V fed at both ends and every 60 pixels, 18 AWG",
        "to the strip's pads, all behind F1 (hardware/drawings/led-power.svg).",
        "J2 (JST SM) carries only DIN and GND: its 5 V wire is not used.",
        "Unused 74AHCT125 gates: OE (4, 10, 13) to +5V_LED, inputs (5, 9, 12) to GND.",
        "Pi 4 alternative for rpi-ws281x: GPIO18 (pin 12) instead of pin 19 (root only).",
        "The Pico connects to the Pi by USB: power and the serial link (/dev/ttyACM0).",
        "Full pin tables, power budget and BOM: hardware/README.md, wiring.md, bom.csv.",
    ]
    for i, line in enumerate(notes):
        s.append(_text(lx, 380 + i * 16, line, 9, "start", "note"))
    s.append("</svg>")
    return "\n".join(s) + "\n"


# -- the maker's drawings (hardware/drawings/) ------------------------------------------------------

def _svg(width: int, height: int, title: str, body: list[str]) -> str:
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
            f"<title>{escape(title)}</title>",
            "<style>.w{stroke:#000;stroke-width:1.5;fill:none}.thick{stroke:#b00;stroke-width:4}"
            ".gnd{stroke:#000;stroke-width:4}.data{stroke:#060;stroke-width:2}.box{fill:#fff;stroke:#000;"
            "stroke-width:1.5}.glass{fill:#e8f4ff;stroke:#357;stroke-width:1.2}.magnet{fill:#555}"
            ".pla{fill:#f3e7c9;stroke:#a08040}.diode{fill:#000}.band{fill:#000}.body{fill:#d0a060}"
            ".note{fill:#333}.warn{fill:#a00}.strip{fill:#eee;stroke:#000}.px{fill:#fff;stroke:#777}</style>",
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>',
            _text(20, 28, title, 15, "start")]
    return "\n".join(head + body + ["</svg>"]) + "\n"


def _diode_v(x: float, y: float, label: str) -> list[str]:
    """A diode pointing down from (x, y) to (x, y + 24): anode on top, cathode (bar) below."""
    return [_line(x, y, x, y + 6),
            f'<polygon points="{x - 6:.1f},{y + 6:.1f} {x + 6:.1f},{y + 6:.1f} {x:.1f},{y + 16:.1f}" class="diode"/>',
            _line(x - 6, y + 16, x + 6, y + 16, "bar"), _line(x, y + 16, x, y + 24),
            _text(x + 9, y + 15, label, 9, "start")]


def _reed_v(x: float, y: float, label: str) -> list[str]:
    """A reed switch from (x, y) to (x, y + 30): glass envelope with two blades."""
    return [_line(x, y, x, y + 6),
            f'<rect x="{x - 5:.1f}" y="{y + 6:.1f}" width="10" height="18" rx="5" class="glass"/>',
            _line(x, y + 6, x + 2, y + 16), _line(x, y + 24, x - 2, y + 14), _line(x, y + 24, x, y + 30),
            _text(x + 9, y + 19, label, 9, "start")]


def stand_svg() -> str:
    b = ['<g id="token">',
         '<rect x="140" y="70" width="120" height="60" rx="8" class="pla"/>',
         '<rect x="175" y="112" width="50" height="18" class="magnet"/>',
         _text(200, 100, "token (3D-printed)", 11),
         _text(320, 118, f"magnet: {SPEC.MAGNET_GRADE} disc {SPEC.MAGNET_DIAMETER_MM:g} x "
               f"{SPEC.MAGNET_THICKNESS_MM:g} mm, axial,", 10, "start"),
         _text(320, 132, "glued flush in the base, north face up", 10, "start"),
         _line(228, 121, 315, 121), "</g>",
         '<g id="map-top">',
         '<rect x="60" y="130" width="280" height="14" class="pla"/>',
         _text(320, 150, f"stand surface: map top, {SPEC.MAP_TOP_MM:g} mm of PLA", 10, "start"),
         "</g>",
         '<g id="reed">',
         '<rect x="194" y="144" width="12" height="70" class="pla"/>',
         '<rect x="196" y="150" width="8" height="44" rx="4" class="glass"/>',
         _line(200, 150, 201, 174), _line(200, 194, 199, 170),
         _text(320, 176, f"reed switch upright in a {SPEC.REED_HOLE_DIAMETER_MM:g} mm hole under the stand's centre",
               10, "start"),
         _text(320, 190, f"({SPEC.REED_PART.split()[-1]} {SPEC.REED_AT_RANGE[0]:g}-{SPEC.REED_AT_RANGE[1]:g} AT; "
               f"bend leads {SPEC.REED_BEND_FROM_GLASS_MM:g} mm or more from the glass)", 10, "start"),
         _line(210, 172, 315, 172),
         "</g>",
         '<g id="leads">',
         _line(200, 150, 200, 142), _line(200, 142, 120, 142), _line(120, 142, 120, 260),
         _text(112, 262, "COLc", 11, "end"), _text(112, 276, "(column wire)", 9, "end"),
         _line(200, 194, 200, 226),
         *_diode_v(200, 226, "1N4148: band (cathode) towards the row"),
         _line(200, 250, 200, 262), _line(80, 262, 300, 262),
         _text(306, 266, "ROWr (row wire)", 11, "start"),
         "</g>",
         _text(20, 310, "Wire each stand: column -> reed -> diode -> row. The reed's far lead goes to the diode's", 10,
               "start", "note"),
         _text(20, 324, "anode (plain end); the band faces the row. Keep neighbouring reeds 25 mm or more apart.", 10,
               "start", "note"),
         _text(20, 338, "Flat reed (thin map): lay it with one END under the stand's centre, not its middle.", 10,
               "start", "note")]
    return _svg(720, 360, "A stand: token magnet over an upright reed, its diode to the row", b)


def matrix_svg() -> str:
    b: list[str] = []
    xs, ys = (200, 360), (190, 300)
    b.append(_line(120, 70, 420, 70))
    b.append(_text(116, 74, "3V3", 11, "end"))
    for c, x in enumerate(xs):
        b += [f'<rect x="{x - 5}" y="78" width="10" height="26" class="box"/>',
              _text(x - 8, 95, f"{pullup_ref(c)} 10k", 9, "end"), _line(x, 70, x, 78), _line(x, 104, x, 330), _text(x, 350, f"COL{c} = {COL_PINS[c]} (input)", 10)]
    states = ("pulled low: being read", "released (high-impedance)")
    for r, y in enumerate(ys):
        b += [_line(120, y, 440, y), _text(116, y + 4, f"ROW{r} = {ROW_PINS[r]}", 10, "end"),
              _text(444, y + 4, states[r], 10, "start", "note")]
        for c, x in enumerate(xs):
            bx = x + 40
            b += [f'<g id="pos-{channel(r, c)}">', _line(x, y - 80, bx, y - 80),
                  *_reed_v(bx, y - 80, switch_ref(r, c)), *_diode_v(bx, y - 50, diode_ref(r, c)), _line(bx, y - 26, bx, y),
                  _text(bx + 9, y - 5, channel(r, c), 9, "start", "note"), "</g>"]
    b += ['<g id="diode-part">', '<rect x="520" y="340" width="70" height="18" rx="6" class="body"/>',
          '<rect x="574" y="340" width="8" height="18" class="band"/>', _line(490, 349, 520, 349),
          _line(590, 349, 620, 349), _text(490, 332, "1N4148 anode: to the reed (column side)", 9, "start"),
          _text(560, 376, "band = cathode: to the row", 9), "</g>"]
    notes = ["The firmware pulls one row low and reads every column; the other rows are released (open-drain),",
             "never driven high. A closed reed pulls its column low through its diode only while its own row is low.",
             "Missing diode: tokens on three corners of a rectangle make the fourth read closed (bring-up 1.6).",
             "Reversed diode: that stand never closes (bring-up 1.5). Both show; neither can pass unseen.",
             "Multimeter before the Pico goes in (bring-up 1.1): diode mode, red probe on COLc, black on ROWr:",
             "OL with no magnet; 0.5-0.7 V with a magnet on that stand; probes swapped: OL always.",
             "Continuity: no beep between any two row wires, any two column wires, or any wire and GND."]
    b += [_text(20, 405 + 15 * i, line, 10, "start", "note") for i, line in enumerate(notes)]
    return _svg(760, 520, "The reed matrix: 2 x 2 corner with diodes and column pull-ups", b)


def led_power_svg() -> str:
    b: list[str] = []
    b += ['<rect x="20" y="80" width="120" height="56" class="box"/>', _text(80, 102, "PS1 5 V 6 A", 11),
          _text(80, 118, "closed desktop brick", 9), _text(80, 130, "(mains side sealed)", 9),
          _line(140, 100, 170, 100, "thick"), '<rect x="170" y="88" width="36" height="44" class="box"/>',
          _text(188, 84, "J3 XT60", 9), _line(206, 100, 236, 100, "thick"),
          '<rect x="236" y="92" width="44" height="16" class="box"/>', _text(258, 125, "F1 5 A", 10),
          _line(280, 100, 330, 100, "thick"),
          '<rect x="330" y="86" width="60" height="28" class="box"/>', _text(360, 104, "+5 V WAGO", 9),
          '<rect x="330" y="140" width="60" height="28" class="box"/>', _text(360, 158, "GND WAGO", 9),
          _line(140, 124, 226, 124, "gnd"), _line(226, 124, 226, 154), _line(226, 154, 330, 154, "gnd")]
    feeds = [(0, "feed 1 (every build)"), (60, "feed 2"), (120, "feed 3"), (180, "feed 4: far end")]
    x0, y_strip = 150, 300
    b.append(f'<rect x="{x0 - 10}" y="{y_strip}" width="620" height="26" class="strip"/>')
    for k in range(0, 181, 15):
        b.append(f'<rect x="{x0 + k * 3 - 5:.1f}" y="{y_strip + 8}" width="10" height="10" class="px"/>')
    b.append(_text(x0 + 300, y_strip + 46, "WS2812B strip, 60/m: data runs left to right (the arrows on the strip)", 10))
    last = x0 + feeds[-1][0] * 3
    # +5 V and GND buses from the WAGO blocks along the strip, one drop per feed to its pads.
    b += [_line(390, 100, 420, 100, "thick"), _line(420, 100, 420, 210, "thick"), _line(420, 210, last + 4, 210, "thick"),
          _line(390, 154, 400, 154, "gnd"), _line(400, 154, 400, 240, "gnd"), _line(400, 240, last - 4, 240, "gnd"),
          _text(last + 10, 214, "+5 V, 18 AWG red", 9, "start"), _text(last + 10, 244, "GND, 18 AWG black", 9, "start")]
    for i, (px, label) in enumerate(feeds):
        x = x0 + px * 3
        if i == 0:
            b += [_line(420, 210, x + 4, 210, "thick"), _line(400, 240, x - 4, 240, "gnd")]
        b += [_line(x + 4, 210, x + 4, y_strip, "thick"), _line(x - 4, 240, x - 4, y_strip, "gnd"),
              _text(x, y_strip + 64 + (i % 2) * 14, f"{label}: pixel {px}", 9)]
    b += ['<g id="c1">', f'<rect x="{x0 + 14}" y="{y_strip - 50}" width="14" height="22" class="box"/>',
          _line(x0 + 4, y_strip - 56, x0 + 21, y_strip - 56, "w"), _line(x0 + 21, y_strip - 56, x0 + 21, y_strip - 50),
          _line(x0 + 21, y_strip - 28, x0 + 21, y_strip - 20), _line(x0 + 21, y_strip - 20, x0 - 4, y_strip - 20, "w"),
          _text(x0 + 34, y_strip - 42, "C1 1000 uF: + to 5 V, stripe (-) to GND,", 9, "start"),
          _text(x0 + 34, y_strip - 30, "across the first feed's pads", 9, "start"), "</g>"]
    b += ['<g id="data">', '<rect x="20" y="400" width="90" height="40" class="box"/>', _text(65, 418, "Pi pin 19", 10),
          _text(65, 432, "pin 6 GND", 9), _line(110, 414, 150, 414, "data"),
          '<rect x="150" y="396" width="110" height="48" class="box"/>', _text(205, 414, "U2 74AHCT125", 10),
          _text(205, 428, "OE 4,10,13 to 5 V", 8), _text(205, 439, "inputs 5,9,12 to GND", 8),
          _line(260, 414, 290, 414, "data"), '<rect x="290" y="408" width="30" height="12" class="box"/>',
          _text(305, 404, "R1 330", 8), _line(320, 414, 360, 414, "data"),
          '<rect x="360" y="396" width="90" height="48" class="box"/>', _text(405, 412, "J2 JST SM", 10),
          _text(405, 426, "DIN, GND used", 8), _text(405, 438, "5 V: not connected", 8, "middle", "warn"),
          _line(450, 414, 470, 414, "data"), _line(470, 414, 470, 388, "data"), _line(470, 388, 128, 388, "data"),
          _line(128, 388, 128, y_strip + 13, "data"), _line(130, y_strip + 13, x0 - 10, y_strip + 13, "data"),
          _text(124, 350, "DIN", 9, "end"), "</g>"]
    notes = ["F1 sits right after the XT60 inlet J3 and protects every conductor behind it: the 18 AWG feeds and the",
             "WAGO blocks are rated above 5 A. J3 (30 A) and its 16 AWG leads, before F1, carry the brick's 9 A.",
             "The software cap ([leds] power_budget_ma) stays at 4000 mA or less.",
             "Up to 80 pixels only feed 1; above that feed both ends and every 60 pixels, 18 AWG red/black soldered to",
             "the strip's 5 V/GND pads, each joint in heat-shrink. Never power the strip from the Pi's 5 V pins.",
             "The JST SM pigtail carries data: its 5 V wire is cut back and insulated, so no strip current runs through it."]
    b += [_text(20, 480 + 15 * i, line, 10, "start", "note") for i, line in enumerate(notes)]
    return _svg(800, 575, "LED power injection: one fused supply, feeds to the strip's pads", b)


DRAWINGS = {"stand.svg": stand_svg, "matrix.svg": matrix_svg, "led-power.svg": led_power_svg}


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else HERE
    n = build()
    (out / "netlist.txt").write_text(netlist_text(n))
    (out / "schematic.svg").write_text(schematic_svg(n))
    (out / "drawings").mkdir(exist_ok=True)
    for name, draw in DRAWINGS.items():
        (out / "drawings" / name).write_text(draw())
    print(f"wrote {out / 'netlist.txt'}, {out / 'schematic.svg'} and {len(DRAWINGS)} drawings in {out / 'drawings'}: "
          f"{len(n.components)} parts, {len(n.nets)} nets")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
