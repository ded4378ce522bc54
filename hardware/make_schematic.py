#!/usr/bin/env python3
"""Write the sensor board's netlist and schematic from one description: the reed matrix, the Pico,
and the LED data path with its level shifter.

    python3 hardware/make_schematic.py          # rewrites hardware/netlist.txt and hardware/schematic.svg

Why generated: the netlist (what a builder wires, checked by tests/test_hardware_docs.py) and the
drawing (what a builder reads) cannot disagree if both come from the same lists below. Edit the lists,
run this, commit both files.

The reed matrix is scanned COL2ROW (as keyboard firmware calls it): the Pico drives one row low at a
time (the others high) and reads the columns, which have pull-ups; a closed reed pulls its column
low through its diode. The diode (cathode towards the row) stops a current path through three closed switches from
making a fourth, open one look closed ("ghosting"), so any number of tokens can stand at once.

Rows, columns and channels are numbered from 0, as the firmware and the host number them (the
reed between ROW0 and COL0 reports as channel ``r0c0`` in ``kipukas-board sensors monitor``);
part references (SW1, D1, ...) count from 1 as reference designators do.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent

ROWS = 8
COLS = 8
#: Pico GPIO for each row, ROW0 first (driven low one at a time, driven high otherwise).
ROW_PINS = [f"GP{n}" for n in range(2, 2 + ROWS)]          # GP2..GP9
#: Pico GPIO for each column, COL0 first (inputs with pull-ups).
COL_PINS = [f"GP{n}" for n in range(10, 10 + COLS)]        # GP10..GP17
#: Pico physical pin number of each GPIO used (Raspberry Pi Pico pinout).
PICO_PIN_NUMBER = {"GP0": 1, "GP1": 2, "GP2": 4, "GP3": 5, "GP4": 6, "GP5": 7, "GP6": 9, "GP7": 10,
                   "GP8": 11, "GP9": 12, "GP10": 14, "GP11": 15, "GP12": 16, "GP13": 17, "GP14": 19,
                   "GP15": 20, "GP16": 21, "GP17": 22, "GND": 3, "VBUS": 40, "3V3": 36}


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
        n.connect(f"COL{c}", f"U1.{pin}", *(f"{switch_ref(r, c)}.1" for r in range(ROWS)))
    for r in range(ROWS):
        for c in range(COLS):
            n.connect(f"N_R{r}C{c}", f"{switch_ref(r, c)}.2", f"{diode_ref(r, c)}.A")

    # LED data path: Pi SPI0 MOSI -> 74AHCT125 (powered at 5 V) -> 330 ohm -> first pixel's DIN.
    n.part("J1", "Raspberry Pi 40-pin header (Pi 4 or Pi 5)")
    n.part("U2", "SN74AHCT125N quad buffer, 3.3 V -> 5 V level shifter for the LED data line")
    n.part("R1", "330 ohm 1/4 W, series resistor at the strip's DIN")
    n.part("C1", "1000 uF 10 V electrolytic across the strip's supply, at the strip")
    n.part("C2", "100 nF ceramic, U2 decoupling")
    n.part("J2", "LED strip input connector: 5V, DIN, GND (JST SM 3-pin)")
    n.part("PS1", "5 V 10 A power supply for the LEDs (Mean Well LRS-50-5)")
    n.part("F1", "5 A fuse (ATO blade) in the LED supply's first feed (over 80 pixels: one more per feed)")
    n.connect("SPI_MOSI", "J1.19", "U2.2")            # GPIO10 / SPI0 MOSI -> 1A
    n.connect("LED_DATA_5V", "U2.3", "R1.1")          # 1Y
    n.connect("LED_DIN", "R1.2", "J2.2")
    n.connect("PSU_5V", "PS1.+V", "F1.1")
    n.connect("+5V_LED", "F1.2", "J2.1", "C1.+", "U2.14", "U2.4", "U2.10", "U2.13", "C2.1")
    n.connect("GND", "PS1.-V", "J2.3", "C1.-", "C2.2", "U2.7", "U2.1", "U2.5", "U2.9", "U2.12",
              "J1.6", "U1.GND")
    return n


def netlist_text(n: Netlist) -> str:
    out = ["# Kipukas board: sensor board (reed matrix) and LED data path.",
           "# Generated by hardware/make_schematic.py: edit that file, not this one.",
           "# Pins: U1.GPn = Pico GPIO n; SW.1/SW.2 = reed leads; D.A/D.K = diode anode/cathode;",
           "# J1.n = Pi header pin n; U2.n = 74AHCT125 pin n (DIP-14).",
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
    height = max(y0 + ROWS * pitch_y + 60, 700)
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
        _text(20, 46, "Rows GP2-GP9 driven low one at a time (the others high); columns GP10-GP17 inputs with "
                      "pull-ups; diode cathode towards the row.", 10, "start", "note"),
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
    s.append(_text(lx + 350, 154, "1 5V", 8))
    s.append(_text(lx + 350, 168, "2 DIN", 8))
    s.append(_text(lx + 350, 182, "3 GND", 8))
    s.append(f'<rect x="{lx}" y="240" width="80" height="50" class="box"/>')
    s.append(_text(lx + 40, 262, "PS1 5 V 10 A", 10))
    s.append(_text(lx + 40, 278, "LRS-50-5", 8))
    s.append(_line(lx + 80, 255, lx + 130, 255))
    s.append(f'<rect x="{lx + 130}" y="249" width="30" height="12" class="box"/>')
    s.append(_text(lx + 145, 245, "F1 5 A", 8))
    s.append(_line(lx + 160, 255, lx + 350, 255))
    s.append(_line(lx + 350, 255, lx + 350, 210))
    s.append(_text(lx + 250, 250, "+5V_LED (also U2 VCC, C2)", 8, "middle", "net"))
    s.append(f'<rect x="{lx + 290}" y="262" width="20" height="10" class="box"/>')
    s.append(_text(lx + 300, 288, "C1 1000 uF", 8))
    s.append(_line(lx + 300, 255, lx + 300, 262))
    s.append(_line(lx + 40, 290, lx + 40, 320))
    s.append(_line(lx + 40, 320, lx + 370, 320))
    s.append(_line(lx + 370, 320, lx + 370, 210))
    s.append(_line(lx + 300, 272, lx + 300, 320))
    s.append(_text(lx + 200, 334, "GND: PSU -V, strip GND, C1, C2, U2 pins 7/1/5/9/12, Pi pin 6, Pico GND", 8,
                   "middle", "net"))
    notes = [
        "Grounds are common: the Pi, the Pico (through USB) and the LED supply share GND.",
        "Never power the strip from the Pi's 5 V pins; the Pi has its own USB-C supply.",
        "Over 80 pixels: 5 V fed at both ends and every 60 pixels, each feed through its own 5 A fuse.",
        "Unused 74AHCT125 gates: OE (4, 10, 13) to +5V_LED, inputs (5, 9, 12) to GND.",
        "Pi 4 alternative for rpi-ws281x: GPIO18 (pin 12) instead of pin 19 (root only).",
        "The Pico connects to the Pi by USB: power and the serial link (/dev/ttyACM0).",
        "Full pin tables, power budget and BOM: hardware/README.md, wiring.md, bom.csv.",
    ]
    for i, line in enumerate(notes):
        s.append(_text(lx, 380 + i * 16, line, 9, "start", "note"))
    s.append("</svg>")
    return "\n".join(s) + "\n"


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else HERE
    n = build()
    (out / "netlist.txt").write_text(netlist_text(n))
    (out / "schematic.svg").write_text(schematic_svg(n))
    print(f"wrote {out / 'netlist.txt'} and {out / 'schematic.svg'}: {len(n.components)} parts, {len(n.nets)} nets")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
