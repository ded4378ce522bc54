"""The parameters of every printed part, in mm: plain data shared by the models and the template.

The CAD models (:mod:`kipukas_board.maker.parts.models`) build from these and the drilling template
(:mod:`kipukas_board.maker.parts.template`) draws the holes from the same figures, so a hole in the template
always takes the holder printed for it. Nothing here needs the CAD library.

Example::

    >>> from kipukas_board.maker.parts.params import ReedHolder
    >>> square, round_ = ReedHolder.for_kind("territory"), ReedHolder.for_kind("movement")
    >>> square.shape, round_.shape
    ('square', 'round')
    >>> square.hole_size > square.body > square.glass_bore
    True
"""

from __future__ import annotations

from dataclasses import dataclass

from kipukas_board.hardware import parts_spec as spec
from kipukas_board.maker import magnets
from kipukas_board.maker.parts import dimensions as dim

#: Gap between a printed part and what fits into it, for a usual 0.4 mm nozzle.
FIT = 0.3
#: How much larger than the holder the hole in the map is drilled.
HOLE_CLEARANCE = 0.4


@dataclass(frozen=True)
class ReedHolder:
    """A plug pushed into a blind hole under a stand from below, holding the reed upright on the
    stand's centre with the top of its glass :attr:`glass_depth` under the plug's top face.

    The top lead leaves the glass upwards, is bent :data:`~kipukas_board.hardware.parts_spec.REED_BEND_FROM_GLASS_MM`
    above it (never closer, or the glass seal cracks) and runs in a groove across the top face and
    down a slot in the side; the bottom lead leaves through the floor. So the glass sits at least the
    bend distance and a lead's thickness under the top face: :attr:`magnet_to_reed` is what the
    token's magnet really sees.
    """

    kind: str  # the stand kind: "territory" (square, keyed) or "movement" (round)
    shape: str  # "square" | "round"
    body: float  # the body's side or diameter
    flange: float  # the flange's side or diameter, held under the map by two screws
    flange_thickness: float = 2.0
    screw_hole: float = 2.4  # M2 self-tapping into the map's underside
    glass_bore: float = spec.REED_HOLE_DIAMETER_MM
    lead_hole: float = spec.REED_LEAD_DIAMETER_MM + 0.6
    lead_groove: float = 1.2  # width and depth of the top-lead groove and side slot
    bottom_margin: float = 2.0  # plastic under the glass, above the flange

    @classmethod
    def for_kind(cls, kind: str) -> ReedHolder:
        if kind == "territory":
            return cls("territory", "square", body=12.0, flange=20.0)
        if kind == "movement":
            return cls("movement", "round", body=10.0, flange=17.0)
        raise ValueError(f"no reed holder for stand kind {kind!r}; expected 'territory' or 'movement'")

    @property
    def glass_depth(self) -> float:
        """The top of the glass under the holder's top face: the spec's air gap, or more when the top
        lead's bend needs the room."""
        bend = spec.REED_BEND_FROM_GLASS_MM + spec.REED_LEAD_DIAMETER_MM + 0.3
        return max(spec.HOLDER_CLEARANCE_MM, bend)

    @property
    def body_height(self) -> float:
        return self.glass_depth + spec.REED_GLASS_LENGTH_MM + self.bottom_margin

    @property
    def height(self) -> float:
        return self.body_height + self.flange_thickness

    @property
    def magnet_to_reed(self) -> float:
        """The magnet's bottom face to the glass's top with the token on its stand."""
        return spec.TOKEN_FLOOR_MM + spec.MAP_TOP_MM + self.glass_depth

    def seated(self) -> magnets.Pair:
        """What the recommended magnet and reed grade do at this holder's gap: the field with the
        token seated, how many times the grade's highest pull-in that is, and how far a token must be
        lifted before every reed of the grade opens."""
        return magnets.pair(seated_gap_mm=self.magnet_to_reed)

    @property
    def hole_size(self) -> float:
        """The blind hole drilled under the stand: the body and its clearance."""
        return self.body + HOLE_CLEARANCE

    @property
    def hole_depth(self) -> float:
        """How deep the hole goes from the map's underside: the body's height (the map keeps
        ``MAP_TOP_MM`` of plastic above it)."""
        return self.body_height

    @property
    def screw_spacing(self) -> float:
        return (self.flange + self.body) / 2


@dataclass(frozen=True)
class LedChannel:
    """A channel for one strip segment of ``pixels`` pixels, cut on the strip's copper pads, and the
    diffuser strip that clicks into its top."""

    pixels: int
    wall: float = 2.4  # 1.6 mm left beside the diffuser's recess
    floor: float = 1.2
    end_margin: float = 3.0  # room at each end for the soldered wires
    depth: float = 7.0  # floor to the diffuser's ledge: the LEDs sit 3-4 mm under the diffuser
    diffuser: float = 1.2  # a diffuser this thick (six 0.2 mm layers) hides the single LEDs' dots
    ledge: float = 0.8
    tab: float = 8.0  # screw tabs at both ends
    screw_hole: float = 2.4

    @property
    def inner_length(self) -> float:
        return self.pixels * dim.STRIP_PITCH + 2 * self.end_margin

    @property
    def inner_width(self) -> float:
        return dim.STRIP.width + 2 * FIT

    @property
    def outer_length(self) -> float:
        return self.inner_length + 2 * self.wall

    @property
    def outer_width(self) -> float:
        return self.inner_width + 2 * self.wall

    @property
    def height(self) -> float:
        return self.floor + self.depth + self.diffuser


@dataclass(frozen=True)
class CameraMount:
    """A phone-sized slab that rests in a phone stand as a phone does, with a hook at the back that
    clips over the stand's back rest, holding a camera facing the player."""

    camera: str  # "cm3" | "c920"
    width: float = dim.PHONE_SLAB_WIDTH
    height: float = 110.0
    thickness: float = dim.PHONE_SLAB_THICKNESS
    back_rest: float = 5.0  # the phone stand's back rest the hook clips over
    hook_drop: float = 14.0
    hook_wall: float = 2.4
    lens_from_top: float = 28.0  # the lens centre under the slab's top edge


@dataclass(frozen=True)
class ElectronicsBox:
    """The box under the table: the Pi, the Pico's carrier and the power board on standoffs, the
    LED supply's inlet, cable glands, camera and power cable slots, and vents in the walls and the lid."""

    inner_width: float = 190.0
    inner_depth: float = 125.0
    inner_height: float = 38.0
    wall: float = 2.4
    floor: float = 2.0
    standoff: float = 5.0  # standoff height under every board
    standoff_diameter: float = 6.0
    glands: int = 3  # reed rows and columns, LED power feeds and data, the speaker
    vent_slots: int = 8
    vent_slot: tuple[float, float] = (2.5, 24.0)
    lid: float = 2.0
    lid_lip: float = 4.0

    @property
    def outer(self) -> tuple[float, float, float]:
        return (self.inner_width + 2 * self.wall, self.inner_depth + 2 * self.wall, self.inner_height + self.floor)

    def inlet_centre(self) -> tuple[float, float]:
        """Where the power inlet J3 sits in the front wall: its centre's x from the box's outer left
        edge and its height from the bed, in front of the power board and above the boards."""
        return (self.wall + self.board_origins()["power"][0] + 15.0, self.floor + self.standoff + 6.0)

    def board_origins(self) -> dict[str, tuple[float, float]]:
        """Each board's bottom-left corner inside the box, from the inner bottom-left corner: the Pi
        at the left (its USB and Ethernet towards the front wall's slots), the Pico's carrier and
        the power board side by side at the right."""
        gap = 8.0
        return {
            "pi": (gap, gap),
            "sensor": (gap + dim.PI5.width + gap, self.inner_depth - gap - dim.SENSOR_CARRIER.depth),
            "power": (self.inner_width - gap - dim.POWER_BOARD.width, gap),
        }


def holder_note() -> str:
    """Markdown: what the recommended pair does at the printed reed holder's real gap."""
    h = ReedHolder.for_kind("territory")
    p = h.seated()
    return ("The printed reed holder ([docs/makers/printed-parts.md](../docs/makers/printed-parts.md)) puts "
            f"the top of the glass {h.glass_depth:.1f} mm under its top face, since the top lead must bend "
            f"{spec.REED_BEND_FROM_GLASS_MM:g} mm or more above the glass: **{h.magnet_to_reed:.1f} mm** from "
            f"magnet to glass in all. There the recommended pair gives {p.seated_mt:.1f} mT along the glass, "
            f"{p.seated_mt / p.pull_in_mt[1]:.1f} times the grade's highest pull-in, and every reed of the grade "
            f"opens once the token is lifted {p.lift_to_open_mm:g} mm.")
