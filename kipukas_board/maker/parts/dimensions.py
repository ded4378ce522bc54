"""The sizes of the bill of materials' parts that the printed parts are built around, in mm.

One place for every outside dimension a printed part must fit: a board's outline and mounting holes,
a camera's lens, the LED strip, the fuse holder, the power inlet and the cable glands. The figures
are the makers' published mechanical drawings (named beside each); check them against the part in
your hand before a long print, and change them here rather than in a model. The reed and the magnet
live in :mod:`kipukas_board.hardware.parts_spec`, shared with the BOM and the field calculation.

Example::

    >>> from kipukas_board.maker.parts.dimensions import PI5, PICO
    >>> PI5.hole_spacing, PICO.hole_spacing
    ((58.0, 49.0), (47.0, 11.4))
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Board:
    """A rectangular circuit board: its outline and the centres of its mounting holes from its
    bottom-left corner."""

    name: str
    width: float
    depth: float
    holes: tuple[tuple[float, float], ...]
    hole_diameter: float
    #: The tallest part on top of the board (connectors, a lens): the room it needs above the board.
    height_above: float
    thickness: float = 1.6

    @property
    def hole_spacing(self) -> tuple[float, float]:
        xs = sorted({x for x, _ in self.holes})
        ys = sorted({y for _, y in self.holes})
        return (round(xs[-1] - xs[0], 3), round(ys[-1] - ys[0], 3))


#: Raspberry Pi 5 (and 4 B, the same outline and holes): product brief mechanical drawing.
PI5 = Board("Raspberry Pi 5", 85.0, 56.0, ((3.5, 3.5), (61.5, 3.5), (3.5, 52.5), (61.5, 52.5)), 2.75, 17.0)
#: Raspberry Pi Pico (H): datasheet mechanical drawing; M2 holes 2 mm from the short edges.
PICO = Board("Raspberry Pi Pico", 51.0, 21.0, ((2.0, 4.8), (49.0, 4.8), (2.0, 16.2), (49.0, 16.2)), 2.1, 4.0)
#: The Pico's carrier: a piece of the BOM's stripboard holding the Pico, the column pull-ups, the
#: SAFE_PIN header and the two 8-way terminal blocks for rows and columns (diodes at the reeds).
SENSOR_CARRIER = Board("sensor board (stripboard)", 80.0, 50.0,
                       ((3.5, 3.5), (76.5, 3.5), (3.5, 46.5), (76.5, 46.5)), 3.2, 14.0)
#: The power board: stripboard with the level shifter U2 (in its DIP socket), R1, C1, C2, the strip's
#: JST plug and the four WAGO 221-415 blocks glued on; the fuse current never runs on its copper (the
#: inline fuse holder sits beside it in its saddle).
POWER_BOARD = Board("power board (stripboard)", 70.0, 50.0,
                    ((3.5, 3.5), (66.5, 3.5), (3.5, 46.5), (66.5, 46.5)), 3.2, 22.0)
#: Raspberry Pi Camera Module 3 (same outline and holes as Camera Module 2): 25 x 24 mm, M2 holes
#: 21 x 12.5 mm apart, the upper pair 2 mm from the top edge; the lens housing is 8.5 mm square.
CAMERA_MODULE_3 = Board("Raspberry Pi Camera Module 3", 25.0, 24.0,
                        ((2.0, 9.5), (23.0, 9.5), (2.0, 22.0), (23.0, 22.0)), 2.2, 11.5, thickness=1.0)
#: Where the Camera Module 3's lens centre is, from the board's bottom-left corner.
CAMERA_MODULE_3_LENS = (12.5, 14.5)
CAMERA_MODULE_3_LENS_HOUSING = 8.5


@dataclass(frozen=True)
class Box3:
    """A part that is a box to us: width (x), depth (y), height (z)."""

    name: str
    width: float
    depth: float
    height: float


#: Logitech C920: the camera body without its clip (the clip folds under it and has a 1/4"-20 thread).
C920 = Box3("Logitech C920", 94.0, 24.0, 29.0)
#: 1/4"-20 UNC: a tripod screw's clearance hole.
TRIPOD_SCREW_CLEARANCE = 6.6

#: WS2812B strip, 60 LEDs/m, IP30 (no silicone): width, thickness with the LEDs, pixel pitch.
STRIP = Box3("WS2812B strip 60/m IP30", 10.0, 1000.0 / 60.0, 3.2)
STRIP_PITCH = 1000.0 / 60.0

#: The BOM's inline ATO fuse holder (F1's, 16 AWG leads): its body, held in a saddle of two posts and a
#: cable tie. A planning figure: measure yours and change it here before printing the box.
INLINE_FUSE_HOLDER = Box3("Littelfuse FHAC0001ZXJ inline ATO fuse holder", 40.0, 15.0, 12.0)
#: WAGO 221-415 lever connector.
WAGO_221_415 = Box3("WAGO 221-415", 20.2, 13.1, 15.9)



@dataclass(frozen=True)
class PanelConnector:
    """A connector screwed to a wall by a flange: its body goes through a rectangular cut-out, two
    screws through the ears either side of it."""

    name: str
    #: The body behind the flange: width along the wall, height up it.
    body: tuple[float, float]
    ear_pitch: float
    #: The flange outside the wall: width along it, height up it.
    flange: tuple[float, float]
    #: A clearance hole for the ears' screws (M2.5: 2.7 mm nominal, larger printed).
    ear_hole: float = 3.4
    #: Clearance around the body, per side.
    clearance: float = 0.3


#: J3, the LED supply's inlet: an Amass XT60E-M (panel-mount male). A planning figure from one
#: maker's caliper measurement (body 15.6 x 8.1 mm, ears measured 22.6 mm apart and fitted at
#: 22.0 mm, flange 27.2 x 12.1 mm), not from Amass's drawing: the ear holes are made 3.4 mm, loose
#: enough for either pitch. Hold your part against it before printing the box.
XT60E_M = PanelConnector("Amass XT60E-M panel-mount male", body=(15.6, 8.1), ear_pitch=22.3, flange=(27.2, 12.1))
#: A PG7 cable gland's thread (12.5 mm), for the reed cables, the LED feeds and the speaker.
GLAND_HOLE = 12.7
#: The Pi 5 camera cable's 15-pin end (16 mm wide flat cable) through a slot in the box wall.
CAMERA_RIBBON = (17.0, 2.5)
#: The USB-C plug's overmould for the Pi's own supply cable (through a notch in the wall).
USB_C_OVERMOULD = (12.5, 7.5)

#: What a phone stand made for phones takes: a slab of this thickness rests on its ledge.
PHONE_SLAB_THICKNESS = 11.0
PHONE_SLAB_WIDTH = 72.0

#: Which line of ``kipukas-board hardware bom`` (its part name and part number) each figure here was
#: taken from: if the BOM names another part, the printed parts no longer fit it (a test checks this).
BOM_PARTS: dict[str, tuple[str, object]] = {
    "pi": ("Raspberry Pi 5 4GB", PI5),
    "pico": ("Raspberry Pi Pico H", PICO),
    "csi-camera": ("Camera Module 3", CAMERA_MODULE_3),
    "usb-camera": ("C920", C920),
    "fuse-holder": ("FHAC0001ZXJ", INLINE_FUSE_HOLDER),
    "power-inlet": ("XT60E-M", XT60E_M),
    "wago": ("221-415", WAGO_221_415),
    "led-strip": ("WS2812B", STRIP),
}

#: The largest part a common printer bed takes (a 220 x 220 mm bed, e.g. a Prusa MK3 or Ender 3).
PRINT_BED = (220.0, 220.0, 220.0)
