"""The bill of materials for one build: a map, its LED layout, the number of players and the Pi.

Everything is counted from the build, not copied from the biggest one: one reed and one diode per
stand, 22 magnets per player (1 capital, 11 base camps, 10 soul tokens), one camera per seat (the
Pi's CSI ports first, USB webcams after), strip and pixels from the LED layout, and wire by length
and gauge. The strip is cut into one piece per segment of the layout (a territory's pixels, a
stand's pixel); every cut is bridged by a jumper of 5 V, GND and data. The 5 V and GND jumpers are
sized by :func:`~kipukas_board.hardware.power_chain.wire_for` for the current they carry and for the
fuse that protects them, so "the fuse protects the smallest conductor" holds for every one.

Lengths a map file does not give are planning figures (:data:`JUMPER_M`, :data:`MATRIX_WIRE_M`),
rounded up generously; prices are indicative US dollars for single quantities from the usual
distributors (late 2026), to plan a budget, not to quote. Confirm each part number with your
distributor before ordering.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> bom = build_bom(load_map("kipuka-8"), players=2)
    >>> bom.qty("reed"), bom.qty("diode"), bom.qty("magnet"), bom.qty("led-strip")
    (24, 24, 44, 1)
    >>> bom.problems()
    []
"""

from __future__ import annotations

import csv
import io
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kipukas_board.board.mapfile import BoardMap, available_maps, load_map
from kipukas_board.hardware import parts_spec, power_chain
from kipukas_board.show.layout import LedLayout, default_layout

#: Pixels per territory of the two LED layouts the docs plan for ("full": a 12-pixel ring).
LAYOUTS = {"default": 3, "full": 12}
PLAYERS = (2, 3, 4)
PIS = (4, 5)
#: Tokens with a magnet, per player: 1 capital, 11 base camps, 10 soul tokens.
MAGNETS_PER_PLAYER = 22
#: A pixel at full white, in mA, by the LED layout's own planning figures (its ``ma_per_channel`` and
#: ``idle_ma``, which the renderer's power cap uses too): what a calibrated layout does not change.
WHITE_MA = LedLayout.idle_ma + 3 * LedLayout.ma_per_channel
PIXELS_PER_M = 60
#: One feed at the strip's input carries up to this many pixels; above, a feed every FEED_EVERY.
ONE_FEED_UP_TO, FEED_EVERY = 80, 60
#: The LED supply (a closed 5 V brick), its fuse and the parts behind it, with their ratings in A.
PSU_A, FUSE_A = 6.0, power_chain.DEFAULT_FUSE_A
#: J3, the LED supply's inlet in the case wall: an XT60 pair (Amass rates the XT60 family 30 A
#: continuous). It sits before the fuse, so it must carry what the brick gives before it cuts out.
JACK_RATING_A = 30.0
#: The wire on J3's solder cups, before the fuse: the fuse holder's own lead on (+), a short piece
#: of the same gauge to the GND block on (-).
INLET_LEAD_AWG = 16
FUSE_HOLDER_RATING_A = 20.0
WAGO_RATING_A = 20.0          # WAGO 221: 32 A (IEC), 20 A (UL); the lower
WAGO_WAYS = 5
#: The build hardware/bom.csv lists: the biggest the shipped maps allow (map, players, Pi, LED layout).
REFERENCE_BUILD = ("kipuka-13", 4, 5, "full")
#: Planning lengths: a jumper between two strip pieces, a feed pair, the supply side
#: (inlet, fuse, blocks), the data run from the level shifter to the first pixel.
JUMPER_M, FEED_M, SUPPLY_SIDE_M, DATA_RUN_M = 0.15, 1.0, 0.3, 0.5
#: Matrix wire per stand: a reed's two leads out to its row and column lines, and its share of them.
MATRIX_WIRE_M = 0.6
#: USB current the Pi gives all its ports together, and what each device draws at most.
PI_USB_MA = {4: 1200, 5: 1600}
USB_WEBCAM_MA, PICO_MA = 500, 100
#: CSI camera connectors on each Pi.
PI_CSI = {4: 1, 5: 2}


@dataclass(frozen=True)
class Part:
    """One line of the bill: what, how many, from whom, and what else fits."""

    name: str
    kind: str
    qty: int
    description: str
    unit: str = "pcs"
    refs: str = ""
    manufacturer: str = "any"
    mpn: str = ""
    alternatives: str = ""
    price_each: float = 0.0
    notes: str = ""
    rating_a: float | None = None

    @property
    def price(self) -> float:
        return round(self.qty * self.price_each, 2)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"name": self.name, "kind": self.kind, "qty": self.qty, "unit": self.unit,
                               "refs": self.refs, "description": self.description,
                               "manufacturer": self.manufacturer, "mpn": self.mpn,
                               "alternatives": self.alternatives, "price_each_usd": self.price_each,
                               "price_usd": self.price, "notes": self.notes}
        if self.rating_a is not None:
            doc["rating_a"] = self.rating_a
        return doc


@dataclass(frozen=True)
class Protected:
    """A conductor or connector on the LED power path, its rating and what protects it."""

    name: str
    kind: str          # "conductor" | "connector"
    rating_a: float
    carries_a: float
    protected_by: str  # "F1" (the fuse) or "PS1" (the supply's own limit, before the fuse)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "rating_a": self.rating_a,
                "carries_a": round(self.carries_a, 2), "protected_by": self.protected_by}


@dataclass
class Bom:
    map_name: str
    players: int
    pi: int
    layout: str
    pixels: int
    pieces: int
    feeds: int
    budget_ma: float
    white_ma: float
    parts: list[Part] = field(default_factory=list)
    protected: list[Protected] = field(default_factory=list)

    def qty(self, name: str) -> int:
        return sum(p.qty for p in self.parts if p.name == name)

    def problems(self) -> list[str]:
        """How the power chain is broken (see :func:`power_chain.check_chain`); empty when it holds."""
        return power_chain.check_chain(
            self.budget_ma, FUSE_A, PSU_A,
            [(p.name, p.rating_a) for p in self.protected if p.protected_by == "F1"],
            [(p.name, p.rating_a) for p in self.protected if p.protected_by == "PS1"])

    def total_usd(self) -> float:
        return round(sum(p.price for p in self.parts), 2)

    def to_json(self) -> dict[str, Any]:
        return {"map": self.map_name, "players": self.players, "pi": self.pi, "layout": self.layout,
                "pixels": self.pixels, "strip_pieces": self.pieces,
                "parts": [p.to_json() for p in self.parts],
                "power": {"budget_ma": self.budget_ma, "white_ma": round(self.white_ma), "fuse_a": FUSE_A,
                          "fuse_hold_a": power_chain.fuse_hold_a(FUSE_A), "psu_a": PSU_A, "feeds": self.feeds,
                          "protected": [p.to_json() for p in self.protected], "problems": self.problems()},
                "total_usd": self.total_usd()}

    def to_csv(self) -> str:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["refs", "qty", "unit", "kind", "description", "manufacturer", "mpn", "alternatives",
                    "price_each_usd", "notes"])
        for p in self.parts:
            w.writerow([p.refs, p.qty, p.unit, p.kind, p.description, p.manufacturer, p.mpn, p.alternatives,
                        f"{p.price_each:.2f}", p.notes])
        return out.getvalue()


def feeds(pixels: int) -> int:
    """Power feeds for a strip of ``pixels``: 1 up to 80, else pixel 0, every 60 after it and the far end.

    Example::

        >>> [feeds(n) for n in (48, 80, 81, 180, 195)]
        [1, 1, 3, 4, 5]
    """
    if pixels <= ONE_FEED_UP_TO:
        return 1
    return -(-pixels // FEED_EVERY) + 1


def feed_pixels(pixels: int) -> list[int]:
    """Where the feeds go: pixel 0, every 60 pixels, and the last pixel when there is more than one feed."""
    if pixels <= ONE_FEED_UP_TO:
        return [0]
    at = list(range(0, pixels, FEED_EVERY))
    return at + [pixels - 1]


def strip_pieces(layout: LedLayout) -> list[list[int]]:
    """The strip's pieces in wire order: each segment's pixels, runs of consecutive pixels kept together."""
    segments = [sorted(px) for px in (*layout.territories.values(), *layout.stands.values()) if px]
    pieces: list[list[int]] = []
    for seg in segments:
        run = [seg[0]]
        for a, b in zip(seg, seg[1:], strict=False):
            if b == a + 1:
                run.append(b)
            else:
                pieces.append(run)
                run = [b]
        pieces.append(run)
    return sorted(pieces)


def jumper_currents(pieces: list[list[int]], pixels: int, budget_ma: float,
                    white_ma: float = WHITE_MA) -> list[float]:
    """Current (A) each jumper between consecutive pieces carries at most: every pixel after it up to
    the next feed at full white (``white_ma`` each, all of them through this jumper), never more than
    the budget allows."""
    feeds_at = feed_pixels(pixels)
    out = []
    for piece in pieces[1:]:
        start = piece[0]
        nxt = min((f for f in feeds_at if f >= start), default=pixels)
        downstream = max(nxt - start, 0) if nxt > start else 0
        out.append(min(downstream * white_ma, budget_ma) / 1000)
    return out


def strip_copper_current(pixels: int, budget_ma: float, white_ma: float = WHITE_MA) -> float:
    """Current (A) the strip's own 5 V and GND copper carries at most: every pixel from a feed up to the
    next feed (or the strip's end) at full white, all of it drawn through the copper next to that feed,
    never more than the budget allows.

    >>> strip_copper_current(48, 10_000, 61), strip_copper_current(195, 4000, 61)
    (2.928, 3.66)
    """
    at = feed_pixels(pixels)
    span = max(b - a for a, b in zip(at, [*at[1:], pixels], strict=True))
    return min(span * white_ma, budget_ma) / 1000


def _usb_hub_needed(cameras_usb: int, pi: int) -> bool:
    """More than 80 % of the Pi's USB current for the webcams and the Pico needs a powered hub."""
    return cameras_usb * USB_WEBCAM_MA + PICO_MA > 0.8 * PI_USB_MA[pi]


def build_bom(board: BoardMap, players: int, pi: int = 5, layout: str = "default",
              led_layout: LedLayout | None = None) -> Bom:
    """The parts for ``board`` with ``players`` seats on a Raspberry Pi ``pi``.

    ``led_layout`` is the strip as calibrated (a board's ``[leds]``); without it the planning
    layout ``layout`` (:data:`LAYOUTS`) is used.
    """
    if players not in PLAYERS:
        raise ValueError(f"players {players!r}: expected one of {', '.join(map(str, PLAYERS))}")
    if pi not in PIS:
        raise ValueError(f"pi {pi!r}: expected 4 or 5")
    if led_layout is None:
        if layout not in LAYOUTS:
            raise ValueError(f"layout {layout!r}: expected one of {', '.join(LAYOUTS)}")
        led_layout = default_layout(board, per_territory=LAYOUTS[layout])
    stands = len(board.stands)
    pixels = led_layout.count
    pieces = strip_pieces(led_layout)
    n_feeds = feeds(pixels)
    pixel_white_ma = led_layout.idle_ma + 3 * led_layout.ma_per_channel
    white_ma = pixels * pixel_white_ma
    budget_ma = float(min(math.ceil(white_ma / 100) * 100, power_chain.max_budget_ma(FUSE_A)))
    strip_m = math.ceil(pixels / PIXELS_PER_M)
    jumpers = jumper_currents(pieces, pixels, budget_ma, pixel_white_ma)
    worst_jumper = max(jumpers, default=0.0)
    jumper_awg = power_chain.wire_for(worst_jumper, FUSE_A)
    feed_awg = power_chain.wire_for(budget_ma / 1000, FUSE_A)
    power_m = math.ceil(n_feeds * FEED_M + len(jumpers) * JUMPER_M + SUPPLY_SIDE_M)
    data_m = math.ceil(len(jumpers) * JUMPER_M + DATA_RUN_M)
    matrix_m = math.ceil(stands * MATRIX_WIRE_M)
    wago_positions = 1 + n_feeds + 2  # supply in, each feed, and on GND the Pi and the level shifter
    wago_per_rail = 1 if wago_positions <= WAGO_WAYS else 1 + math.ceil((wago_positions - WAGO_WAYS) / (WAGO_WAYS - 2))
    csi = min(players, PI_CSI[pi])
    webcams = players - csi
    hub = _usb_hub_needed(webcams, pi)
    magnet = f"{parts_spec.MAGNET_DIAMETER_MM:g} x {parts_spec.MAGNET_THICKNESS_MM:g} mm"
    at_lo, at_hi = parts_spec.REED_AT_RANGE

    parts: list[Part] = []
    add = parts.append
    if pi == 5:
        add(Part("pi", "computer", 1, "Raspberry Pi 5, 4 GB", manufacturer="Raspberry Pi Ltd",
                 mpn="Raspberry Pi 5 4GB", alternatives="Raspberry Pi 5 8GB; Raspberry Pi 4 Model B 4GB (with --pi 4)",
                 price_each=60.0, notes="order code from an approved reseller; 2 GB is enough for the board"))
        add(Part("pi-psu", "power", 1, "USB-C power supply 27 W 5.1 V 5 A for the Pi 5",
                 manufacturer="Raspberry Pi Ltd", mpn="Raspberry Pi 27W USB-C Power Supply",
                 alternatives="any USB-PD 5.1 V 5 A supply", price_each=12.0,
                 notes="a weaker supply limits the Pi's USB ports to 600 mA in all"))
        add(Part("pi-cooler", "cooling", 1, "Raspberry Pi 5 Active Cooler", manufacturer="Raspberry Pi Ltd",
                 mpn="Raspberry Pi Active Cooler", price_each=5.0,
                 notes="card vision under a closed map holds a core busy: without it the Pi 5 throttles"))
    else:
        add(Part("pi", "computer", 1, "Raspberry Pi 4 Model B, 2 GB or more", manufacturer="Raspberry Pi Ltd",
                 mpn="Raspberry Pi 4 Model B 2GB",
                 alternatives="Raspberry Pi 4 Model B 4GB; Raspberry Pi 5 4GB (with --pi 5)",
                 price_each=45.0, notes="order code from an approved reseller"))
        add(Part("pi-psu", "power", 1, "USB-C power supply 15 W 5.1 V 3 A for the Pi 4",
                 manufacturer="Raspberry Pi Ltd", mpn="Raspberry Pi 15W USB-C Power Supply",
                 alternatives="any 5.1 V 3 A USB-C supply",
                 price_each=8.0, notes="the official one avoids under-voltage warnings"))
        add(Part("pi-heatsink", "cooling", 1, "Heatsink set for the Raspberry Pi 4 (or a case with a fan)",
                 alternatives="Raspberry Pi 4 Case Fan", price_each=3.0,
                 notes="card vision holds a core busy under the map"))
    add(Part("microsd", "storage", 1, "microSD card 32 GB, A1 or better", alternatives="SanDisk Extreme 32 GB A2",
             price_each=8.0, notes="Raspberry Pi OS Bookworm 64-bit Lite"))
    add(Part("pico", "controller", 1, "Raspberry Pi Pico (RP2040) with headers, MicroPython 1.24.1", refs="U1",
             manufacturer="Raspberry Pi Ltd", mpn="Raspberry Pi Pico H",
             alternatives="Raspberry Pi Pico soldered to the sensor board; a Pico 2 (RP2350) runs the same "
                          "firmware with MicroPython for the RP2350",
             price_each=5.0, notes="MicroPython 1.20 or later (firmware/README.md)"))
    add(Part("pico-cable", "cable", 1, "USB-A to micro-USB data cable, 0.5 m (Pico to Pi)", price_each=3.0,
             notes="must carry data, not only power"))
    add(Part("reed", "sensor", stands, f"Reed switch SPST-NO, {parts_spec.REED_GLASS_LENGTH_MM:g} x "
             f"{parts_spec.REED_GLASS_DIAMETER_MM:g} mm glass, {at_lo:g}-{at_hi:g} AT",
             refs=f"SW1-SW{stands}", manufacturer="Littelfuse", mpn=f"MDSR-7-{at_lo:g}-{at_hi:g}",
             alternatives=f"MDSR-10-{at_lo:g}-{at_hi:g} (10.2 mm glass)", price_each=0.90,
             notes="one per stand; buy one and run the one-reed test (hardware/magnets.md) before the rest"))
    add(Part("diode", "sensor", stands, "Diode 1N4148, 100 V 200 mA, DO-35", refs=f"D1-D{stands}",
             manufacturer="Vishay", mpn="1N4148-TAP", alternatives="onsemi 1N4148TR", price_each=0.05,
             notes="one per reed; band (cathode) towards the row"))
    add(Part("pull-up", "sensor", 8, "Resistor 10 kohm 1/4 W metal film (column pull-ups)", refs="R2-R9",
             manufacturer="Yageo", mpn="MFR-25FBF52-10K", price_each=0.10,
             notes="one per column, to the Pico's 3V3 (pin 36)"))
    add(Part("safe-jumper", "sensor", 1, "Pin header 2-pin 2.54 mm and a jumper shunt (SAFE_PIN)", refs="JP1",
             manufacturer="Amphenol", mpn="68000-102HLF and 68786-102LF", price_each=0.50,
             notes="header to GP22 (pin 29) and GND; fit the shunt only to update the firmware"))
    add(Part("sensor-board", "board", 1, "Stripboard 100 x 160 mm for the sensor board (Pico, pull-ups, JP1)",
             alternatives="a small PCB", price_each=5.0, notes="signals only: no LED current runs on it"))
    add(Part("terminal", "connector", 2, "Screw terminal block 2.54 mm, 8-way, for rows and columns",
             alternatives="pin headers with Dupont housings", price_each=1.0))
    add(Part("matrix-wire", "wire", matrix_m, "Wire 24 AWG stranded or ribbon, for rows and columns", unit="m",
             price_each=0.10, notes=f"about {MATRIX_WIRE_M:g} m per stand: each reed's leads out to its row and "
                                    "column lines and its share of them"))
    add(Part("level-shifter", "led", 1, "Quad buffer 74AHCT125, DIP-14 (3.3 V to 5 V level shifter)", refs="U2",
             manufacturer="Texas Instruments", mpn="SN74AHCT125N", alternatives="Nexperia 74AHCT125N",
             price_each=0.70, notes="powered from the LED 5 V"))
    add(Part("level-shifter-socket", "led", 1, "DIP-14 socket", price_each=0.30))
    add(Part("level-shifter-board", "board", 1, "Stripboard 30 x 50 mm for U2, R1 and C2 at the strip's first pixel",
             price_each=1.5, notes="carries signals and U2's few mA only; the strip's current runs in the feed wires"))
    add(Part("data-resistor", "led", 1, "Resistor 330 ohm 1/4 W metal film", refs="R1", manufacturer="Yageo",
             mpn="MFR-25FBF52-330R", price_each=0.10, notes="at the strip's DIN"))
    add(Part("bulk-cap", "led", 1, "Capacitor 1000 uF 10 V electrolytic", refs="C1", manufacturer="Panasonic",
             mpn="EEU-FR1A102", price_each=0.50, notes="across 5 V/GND at the first feed; long lead (+) to 5 V"))
    add(Part("decoupling-cap", "led", 1, "Capacitor 100 nF 50 V ceramic", refs="C2", manufacturer="KEMET",
             mpn="C320C104K5R5TA", price_each=0.20, notes="U2 decoupling"))
    add(Part("led-psu", "power", 1, f"Power supply 5 V {PSU_A:g} A 30 W, closed desktop type (its 2.1 x 5.5 mm "
             "plug is cut off: the cable gets J3's XT60 female)", refs="PS1", manufacturer="Mean Well",
             mpn="GST60A05-P1J", alternatives="any closed 5 V 6 A brick with safety marks", price_each=22.0,
             notes="the mains side stays sealed inside the brick: no mains wiring in the build; only its "
                   "low-voltage output cable is re-terminated", rating_a=PSU_A))
    add(Part("power-inlet", "connector", 1, f"XT60 panel-mount male with screw flange, and an XT60 female for the "
             f"brick's cable, rated {JACK_RATING_A:g} A", refs="J3", unit="pair", manufacturer="Amass",
             mpn="XT60E-M and XT60H-F", alternatives="any XT60 panel-mount male with two M2.5 ears and an XT60 "
             "female with a sheath (genuine Amass parts are the ones rated; clones vary)",
             price_each=3.0, rating_a=JACK_RATING_A,
             notes=f"before the fuse: it must carry what the brick gives before it cuts out "
                   f"({PSU_A * power_chain.SUPPLY_TRIP_FACTOR:g} A), more than the 2.1 mm barrel jacks looked at are "
                   "rated for (1-5 A, a few 8 A); the female (shrouded contacts) goes on the brick's live cable, "
                   "the male in the box's front wall with two M2.5 x 8 mm screws"))
    add(Part("inlet-wire", "wire", 1, f"Wire {INLET_LEAD_AWG} AWG stranded, black, from J3 (-) to the GND block",
             unit="m", price_each=0.60,
             notes=f"before the fuse, with the fuse holder's {INLET_LEAD_AWG} AWG lead on J3 (+): both carry what "
                   "the brick gives until it cuts out; keep them short (under 0.3 m); with the Keystone holder, "
                   "a piece of it on J3 (+) too"))
    add(Part("fuse", "power", 1, f"Fuse {FUSE_A:g} A ATO blade", refs="F1", manufacturer="Littelfuse",
             mpn="0287005.PXCN", price_each=0.30, rating_a=FUSE_A,
             notes="right after J3: protects every LED power conductor and contact behind it"))
    add(Part("fuse-holder", "connector", 1, f"Inline ATO blade fuse holder with 16 AWG leads, rated "
             f"{FUSE_HOLDER_RATING_A:g} A or more", manufacturer="Littelfuse", mpn="FHAC0001ZXJ",
             alternatives="Keystone 3557-2 on its own stripboard piece with 16 AWG bridging its copper",
             price_each=3.0, rating_a=FUSE_HOLDER_RATING_A,
             notes="in the wire between J3 and the +5 V block: the fuse current never runs on stripboard copper"))
    add(Part("wago", "connector", 2 * wago_per_rail,
             f"Lever splice connector, 5-way, {WAGO_RATING_A:g} A, for power distribution",
             manufacturer="WAGO", mpn="221-415", price_each=0.80, rating_a=WAGO_RATING_A,
             notes=f"{wago_per_rail} for +5 V and {wago_per_rail} for GND: supply in, {n_feeds} feed(s), "
                   "and on GND the Pi (pin 6) and U2"))
    add(Part("led-strip", "led", strip_m, f"LED strip WS2812B, 5 V, {PIXELS_PER_M} LEDs/m, IP30, 1 m", unit="m",
             manufacturer="Worldsemi (chip)", mpn="WS2812B", alternatives="WS2812B-V5 strip", price_each=8.0,
             notes=f"{pixels} pixels in {len(pieces)} pieces ({layout} layout); cut on the marked pads"))
    add(Part("power-wire-red", "wire", power_m, f"Wire {min(feed_awg, jumper_awg)} AWG stranded, red, for LED 5 V",
             unit="m", price_each=0.40,
             notes=f"{n_feeds} feed(s) of about {FEED_M:g} m, {len(jumpers)} jumper(s) of about {JUMPER_M:g} m "
                   f"between strip pieces, and the supply side"))
    add(Part("power-wire-black", "wire", power_m, f"Wire {min(feed_awg, jumper_awg)} AWG stranded, black, for LED "
             "GND", unit="m", price_each=0.40, notes="the same runs as the red"))
    add(Part("data-wire", "wire", data_m, "Wire 24 AWG stranded, for the LED data line", unit="m", price_each=0.10,
             notes="from U2 to the first pixel and across every cut, next to its GND jumper"))
    add(Part("strip-connector", "connector", 1, "JST SM 3-pin housing with contacts mating the strip's input "
             "pigtail (data)", refs="J2", manufacturer="JST", mpn="SMR-03V-B and SYM-001T-P0.6", price_each=0.60,
             notes="DIN and GND only; the pigtail's 5 V wire is cut back and insulated (3 A contacts)"))
    add(Part("heat-shrink", "supplies", 1, "Heat-shrink tubing assortment, 2-6 mm", price_each=5.0))
    add(Part("solder", "supplies", 1, "Solder, lead-free or 60/40 rosin core, 0.7-1 mm", price_each=8.0))
    add(Part("magnet", "token", players * MAGNETS_PER_PLAYER,
             f"Neodymium disc magnet {parts_spec.MAGNET_GRADE}, {magnet}, axially magnetised",
             alternatives="6 x 2 mm N35 (a little stronger; recheck the lift test)", price_each=0.08,
             notes=f"{MAGNETS_PER_PLAYER} per player (1 capital, 11 base camps, 10 soul tokens); all north face up"))
    if csi:
        add(Part("csi-camera", "camera", csi, "Raspberry Pi Camera Module 3 (12 MP, autofocus)",
                 manufacturer="Raspberry Pi Ltd", mpn="Camera Module 3", alternatives="Camera Module 3 Wide",
                 price_each=25.0, notes="one per seat on the Pi's CSI port(s)"))
        if pi == 5:
            cable = ("Camera cable for Raspberry Pi 5, 22-pin to 15-pin, 500 mm",
                     "Camera Cable for Raspberry Pi 5 (500 mm)")
        else:
            cable = ("Camera flat cable 15-pin, 500 mm", "")
        add(Part("csi-cable", "camera", csi, cable[0], manufacturer="Raspberry Pi Ltd", mpn=cable[1],
                 price_each=3.0, notes="a 300 mm cable does not reach a stand"))
    if webcams:
        add(Part("usb-camera", "camera", webcams, "USB webcam, UVC, 1080p, autofocus", manufacturer="Logitech",
                 mpn="C920", alternatives="Logitech C922; any UVC autofocus webcam", price_each=60.0,
                 notes=f"seats beyond the Pi {pi}'s {PI_CSI[pi]} CSI port(s); up to {USB_WEBCAM_MA} mA each"))
    if hub:
        add(Part("usb-hub", "power", 1, "Powered USB hub with its own supply, 4 ports", price_each=20.0,
                 alternatives="any self-powered USB 3 hub",
                 notes=f"{webcams} webcam(s) and the Pico may draw {webcams * USB_WEBCAM_MA + PICO_MA} mA, more "
                       f"than 80 % of the {PI_USB_MA[pi]} mA the Pi {pi} gives its USB ports"))
    add(Part("amplifier", "sound", 1, "I2S mono amplifier MAX98357A breakout", refs="U3", manufacturer="Adafruit",
             mpn="3006", price_each=6.0, notes="on the Pi's PCM pins (12, 35, 40)"))
    add(Part("speaker", "sound", 1, "Speaker 4 ohm 3 W, 40-50 mm (passive)", refs="LS1", price_each=2.0))
    add(Part("standoffs", "mechanical", 4, "M2.5 x 6 mm standoffs and screws (Pi), M2 x 5 mm (cameras)",
             price_each=0.50))

    protected = [
        Protected("J3 XT60 inlet", "connector", JACK_RATING_A, PSU_A * power_chain.SUPPLY_TRIP_FACTOR, "PS1"),
        Protected(f"J3 leads to F1 and the GND block {INLET_LEAD_AWG} AWG", "conductor",
                  power_chain.AWG_RATING_A[INLET_LEAD_AWG], PSU_A * power_chain.SUPPLY_TRIP_FACTOR, "PS1"),
        Protected("F1 fuse holder", "connector", FUSE_HOLDER_RATING_A, budget_ma / 1000, "F1"),
        Protected("WAGO 221 blocks", "connector", WAGO_RATING_A, budget_ma / 1000, "F1"),
        Protected(f"supply-side wire {min(feed_awg, jumper_awg)} AWG", "conductor",
                  power_chain.AWG_RATING_A[min(feed_awg, jumper_awg)], budget_ma / 1000, "F1"),
        Protected(f"feed pairs {feed_awg} AWG", "conductor", power_chain.AWG_RATING_A[feed_awg],
                  budget_ma / 1000, "F1"),
    ]
    if jumpers:
        protected.append(Protected(f"strip jumpers {jumper_awg} AWG", "conductor",
                                   power_chain.AWG_RATING_A[jumper_awg], worst_jumper, "F1"))
    protected.append(Protected("strip copper between cut pads", "conductor", power_chain.STRIP_COPPER_A,
                               strip_copper_current(pixels, budget_ma, pixel_white_ma), "F1"))
    return Bom(map_name=board.name if not board.source else board.source.rsplit("/", 1)[-1].removesuffix(".toml"),
               players=players, pi=pi, layout=layout, pixels=pixels, pieces=len(pieces), feeds=n_feeds,
               budget_ma=budget_ma, white_ma=white_ma, parts=parts, protected=protected)


#: The parts the quantity table in hardware/bom.md shows, in its column order.
TABLE_PARTS = ("reed", "diode", "magnet", "led-strip", "power-wire-red", "data-wire", "matrix-wire", "csi-camera",
               "usb-camera", "usb-hub")


def quantity_table(boards: list[tuple[str, BoardMap]], pi: int = 5, layout: str = "default") -> str:
    """The Markdown table of what changes with the map and the players (hardware/bom.md)."""
    head = ["map", "players", "pixels", "reeds", "diodes", "magnets", "strip (m)", "18 AWG red + black (m each)",
            "data wire (m)", "matrix wire (m)", "CSI cameras", "USB webcams", "powered hub", "about (USD)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]
    for name, board in boards:
        for n in PLAYERS:
            b = build_bom(board, n, pi, layout)
            cells = [name, str(n), str(b.pixels)] + [str(b.qty(p)) for p in TABLE_PARTS[:-1]]
            cells += ["yes" if b.qty("usb-hub") else "no", f"{b.total_usd():.0f}"]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def power_table(b: Bom) -> str:
    """The Markdown table of the power chain of one build (hardware/bom.md)."""
    lines = ["| on the LED power path | kind | rating | carries at most | protected by |", "|---|---|---:|---:|---|"]
    for p in b.protected:
        lines.append(f"| {p.name} | {p.kind} | {p.rating_a:g} A | {p.carries_a:.2f} A | {p.protected_by} |")
    return "\n".join(lines)


def docs_blocks() -> dict[str, str]:
    """The generated parts of hardware/bom.md, by block name."""
    boards = [(name, load_map(name)) for name in available_maps()]
    name, players, pi, layout = REFERENCE_BUILD
    from kipukas_board.maker import magnets
    from kipukas_board.maker.parts.params import holder_note

    return {"pi5": quantity_table(boards, pi=5), "pi4": quantity_table(boards, pi=4),
            "power": power_table(build_bom(load_map(name), players, pi, layout)),
            "magnet-field": magnets.field_table(), "magnet-pairs": magnets.pair_table(),
            "magnet-holder": holder_note()}


def reference_csv() -> str:
    """hardware/bom.csv: the reference build's bill."""
    name, players, pi, layout = REFERENCE_BUILD
    b = build_bom(load_map(name), players, pi, layout)
    return b.to_csv()


def fill_blocks(text: str, blocks: dict[str, str]) -> str:
    """``text`` with every ``<!-- bom:NAME -->`` ... ``<!-- /bom:NAME -->`` block replaced by ``blocks[NAME]``."""
    for name, body in blocks.items():
        text = re.sub(rf"(<!-- bom:{name} -->\n).*?(<!-- /bom:{name} -->)",
                      lambda m, body=body: m.group(1) + body + "\n" + m.group(2), text, flags=re.S)
    return text


def main(argv: list[str]) -> int:
    """``python -m kipukas_board.maker.bom HARDWARE_DIR``: rewrite bom.csv and the tables of bom.md and
    magnets.md there."""
    if len(argv) != 1:
        print("usage: python -m kipukas_board.maker.bom HARDWARE_DIR", file=sys.stderr)
        return 2
    folder = Path(argv[0])
    (folder / "bom.csv").write_text(reference_csv())
    blocks = docs_blocks()
    for md in (folder / "bom.md", folder / "magnets.md"):
        md.write_text(fill_blocks(md.read_text(), blocks))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
