"""The printed parts as build123d solids, from :mod:`kipukas_board.maker.parts.params`.

Every function returns one closed solid in mm, placed as it prints: its flat face on the bed (z = 0)
and no overhang that needs supports except where the docs say so. :func:`all_parts` lists what a map
needs. build123d is imported when the first part is built, so that collecting this module (for its
doctest) needs no CAD library; build through :func:`kipukas_board.maker.parts.cad.load_models`, which
names the extra to install when it is missing.

Example (needs the ``parts`` extra)::

    >>> from kipukas_board.maker.parts import cad                            # doctest: +SKIP
    >>> models = cad.load_models()                                    # doctest: +SKIP
    >>> holder = models.reed_holder(ReedHolder.for_kind("movement"))  # doctest: +SKIP
    >>> round(holder.bounding_box().size.Z, 2)                       # doctest: +SKIP
    19.47
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kipukas_board.hardware.parts_spec import REED_GLASS_LENGTH_MM
from kipukas_board.maker.parts import dimensions as dim
from kipukas_board.maker.parts.params import FIT, CameraMount, ElectronicsBox, LedChannel, ReedHolder

if TYPE_CHECKING:
    from build123d import Part


def _bd() -> types.ModuleType:
    """build123d, imported on the first part built (so that collecting this module, e.g. for its
    doctest, needs no CAD library)."""
    import build123d

    return build123d


def _box(x: float, y: float, z: float, at: tuple[float, float, float] = (0, 0, 0), corner: bool = False) -> Part:
    """A box ``x`` by ``y`` by ``z`` standing on ``at``: centred on it in x and y, or from it as its corner."""
    bd = _bd()
    align = (bd.Align.MIN,) * 3 if corner else (bd.Align.CENTER, bd.Align.CENTER, bd.Align.MIN)
    return bd.Pos(*at) * bd.Box(x, y, z, align=align)


def _cyl(d: float, h: float, at: tuple[float, float, float] = (0, 0, 0)) -> Part:
    """An upright cylinder of diameter ``d`` standing on ``at``."""
    bd = _bd()
    return bd.Pos(*at) * bd.Cylinder(d / 2, h, align=(bd.Align.CENTER, bd.Align.CENTER, bd.Align.MIN))


def _ycyl(d: float, h: float, at: tuple[float, float, float]) -> Part:
    """A cylinder of diameter ``d`` and length ``h`` lying along y, centred on ``at``: a hole through a wall."""
    bd = _bd()
    return bd.Pos(*at) * bd.Cylinder(d / 2, h, rotation=(90, 0, 0))


def reed_holder(p: ReedHolder) -> Part:
    """The plug under a stand: flange on the bed, body up, the reed's bore from the top face."""
    prism = _box if p.shape == "square" else (lambda a, _b, h, at=(0, 0, 0): _cyl(a, h, at))
    part = prism(p.flange, p.flange, p.flange_thickness) + prism(p.body, p.body, p.height, (0, 0, 0))
    top = p.height
    glass_bottom = top - p.glass_depth - REED_GLASS_LENGTH_MM
    part -= _cyl(p.glass_bore, p.glass_depth + REED_GLASS_LENGTH_MM + 0.01, (0, 0, glass_bottom))
    part -= _cyl(p.lead_hole, glass_bottom + 0.02, (0, 0, -0.01))
    g = p.lead_groove
    # The top lead's groove across the top face to the +x side, and its slot down the side and
    # through the flange.
    part -= _box(p.body / 2 + 1, g, g, (0, -g / 2, top - g), corner=True)
    part -= _box(g, g, top + 0.02, (p.body / 2 - g * 0.75, -g / 2, -0.01), corner=True)
    for y in (-p.screw_spacing / 2, p.screw_spacing / 2):
        part -= _cyl(p.screw_hole, p.flange_thickness + 0.02, (0, y, -0.01))
    return part


def led_channel(p: LedChannel) -> Part:
    """The channel, open at the top, with the diffuser's recess, wire notches at both ends and a
    screw tab beyond each end."""
    length, width, height = p.outer_length, p.outer_width, p.height
    part = _box(length, width, height)
    part += _box(length + 2 * p.tab, width, p.floor * 2)
    part -= _box(p.inner_length, p.inner_width, height, (0, 0, p.floor))
    part -= _box(p.inner_length + 2 * p.ledge, p.inner_width + 2 * p.ledge, p.diffuser + 0.01,
                 (0, 0, height - p.diffuser))
    for side in (-1, 1):
        x = side * (p.inner_length / 2 + p.wall / 2)
        part -= _box(p.wall + 0.02, 4.0, height, (x, 0, p.floor + 1.0))
        part -= _cyl(p.screw_hole, p.floor * 2 + 0.02, (side * (length / 2 + p.tab / 2), 0, -0.01))
    return part


def led_diffuser(p: LedChannel) -> Part:
    """The strip that clicks into the channel's recess: print it in natural or white PETG."""
    return _box(p.inner_length + 2 * p.ledge - FIT, p.inner_width + 2 * p.ledge - FIT, p.diffuser)


def camera_mount(p: CameraMount) -> Part:
    """The slab, drawn lying on its back (z = 0 is the side towards the stand's back rest, z = thickness
    faces the player, its top edge at y = height) and returned standing on that top edge, as it
    prints; the hook clips over the back rest."""
    w, h, t = p.width, p.height, p.thickness
    part = _box(w, h, t, (-w / 2, 0, 0), corner=True)
    # The hook: a cap behind the top edge and a lip hanging down behind the back rest.
    gap = p.back_rest + FIT
    part += _box(w, p.hook_wall, gap + p.hook_wall, (-w / 2, h - p.hook_wall, -gap - p.hook_wall), corner=True)
    part += _box(w, p.hook_drop, p.hook_wall, (-w / 2, h - p.hook_drop, -gap - p.hook_wall), corner=True)
    lens_y = h - p.lens_from_top
    if p.camera == "cm3":
        cam = dim.CAMERA_MODULE_3
        lx, ly = dim.CAMERA_MODULE_3_LENS
        bx, by = -lx, lens_y - ly  # the board's bottom-left corner in slab coordinates
        pocket = 3.0
        part -= _box(cam.width + 2 * FIT, cam.depth + 2 * FIT, pocket + 0.01, (bx - FIT, by - FIT, -0.01), corner=True)
        window = dim.CAMERA_MODULE_3_LENS_HOUSING + 2.5
        part -= _box(window, window, t + 0.02, (-window / 2, lens_y - window / 2, -0.01), corner=True)
        for hx, hy in cam.holes:
            part -= _cyl(1.7, pocket + 5.0, (bx + hx, by + hy, -0.01))
        # The ribbon from the connector at the board's bottom edge down to the slab's bottom edge.
        rw, rt = dim.CAMERA_RIBBON
        part -= _box(rw, by + 0.02, rt, (-rw / 2, -0.01, -0.01), corner=True)
    elif p.camera == "c920":
        cam3 = dim.C920
        shelf_w, shelf_d = cam3.width + 6.0, cam3.depth + 6.0
        # A shelf standing out in front of the slab's top, for the camera's folded clip, screwed
        # from below into the clip's 1/4"-20 thread; a notch at the back for the cable.
        shelf = _box(shelf_w, 4.0, shelf_d, (-shelf_w / 2, h - 4.0, t - 0.01), corner=True)
        shelf += _box(shelf_w, h * 0.3, 3.0, (-shelf_w / 2, h * 0.7, t - 0.01), corner=True)
        shelf -= _ycyl(dim.TRIPOD_SCREW_CLEARANCE, 4.2, (0, h - 2.0, t + shelf_d / 2))
        part += shelf
        part -= _box(8.0, 4.0, 6.0, (-4.0, h - 4.02, t + shelf_d - 6.0), corner=True)
    else:
        raise ValueError(f"no camera mount for {p.camera!r}; expected 'cm3' or 'c920'")
    # Printed on its top edge: the hook's cap and the C920's shelf lie on the bed, nothing overhangs.
    bd = _bd()
    return bd.Pos(0, 0, h) * bd.Rot(-90, 0, 0) * part


def box_base(p: ElectronicsBox) -> Part:
    """The box's base: floor and walls, standoffs for the three boards, the power inlet, glands, cable
    slots, vents and two screw ears to hang it under the table."""
    ow, od, oh = p.outer
    part = _box(ow, od, oh, corner=True)
    part -= _box(p.inner_width, p.inner_depth, oh, (p.wall, p.wall, p.floor), corner=True)
    for y in (-10.0, od):  # ears on the long sides, 10 mm deep, with a 4.5 mm screw hole
        ear = _box(24.0, 10.0, 4.0, (ow / 2 - 12.0, y, 0), corner=True)
        ear -= _cyl(4.5, 4.02, (ow / 2, y + 5.0, -0.01))
        part += ear
    origins = p.board_origins()
    boards = {"pi": dim.PI5, "sensor": dim.SENSOR_CARRIER, "power": dim.POWER_BOARD}
    for key, board in boards.items():
        ox, oy = origins[key]
        for hx, hy in board.holes:
            x, y = p.wall + ox + hx, p.wall + oy + hy
            part += _cyl(p.standoff_diameter, p.standoff, (x, y, p.floor - 0.01))
            part -= _cyl(board.hole_diameter * 0.85, p.standoff + 0.02, (x, y, p.floor))
    # The inline fuse holder's saddle, behind the Pi: two posts either side of it, a cable tie
    # through their slots (its leads reach the power inlet J3 and the power board's +5 V block).
    fh = dim.INLINE_FUSE_HOLDER
    sx, sy = p.wall + origins["pi"][0] + 10.0, p.wall + origins["pi"][1] + dim.PI5.depth + 14.0
    for dy in (0.0, fh.depth + 2 * FIT + 4.0):
        post = _box(fh.width * 0.6, 4.0, fh.height * 0.6, (sx + fh.width * 0.2, sy + dy - 4.0, p.floor - 0.01),
                    corner=True)
        post -= _box(4.0, 4.02, 2.0, (sx + fh.width * 0.5 - 2.0, sy + dy - 4.01, p.floor + 2.0), corner=True)
        part += post
    z_wall = p.floor + p.standoff + 6.0  # openings' centres, above the boards
    pi_x = p.wall + origins["pi"][0]
    # Front wall (y = 0): the Pi's USB-C supply (11.2 mm from the board's left edge) and the power
    # inlet J3 in front of the power board: its body through a rectangle, its flange outside, a
    # screw through each ear.
    uw, uh = dim.USB_C_OVERMOULD
    part -= _box(uw, p.wall + 0.02, oh, (pi_x + 11.2 - uw / 2, -0.01, p.floor + p.standoff), corner=True)
    jx, jz = p.inlet_centre()
    inlet = dim.XT60E_M
    bw, bh = (size + 2 * inlet.clearance for size in inlet.body)
    part -= _box(bw, p.wall + 0.02, bh, (jx, p.wall / 2, jz - bh / 2))
    for side in (-1, 1):
        part -= _ycyl(inlet.ear_hole, p.wall + 0.02, (jx + side * inlet.ear_pitch / 2, p.wall / 2, jz))
    # Back wall (y = depth): the cable glands over the sensor and power boards, a notch for the USB cameras.
    for i in range(p.glands):
        gx = p.wall + origins["sensor"][0] + 14.0 + i * 24.0
        part -= _ycyl(dim.GLAND_HOLE, p.wall + 0.02, (gx, od - p.wall / 2, z_wall + 4))
    part -= _box(14.0, p.wall + 0.02, oh, (pi_x + 40.0, od - p.wall - 0.01, p.floor + p.standoff + 8.0), corner=True)
    # Left wall (x = 0): the two camera ribbons.
    rw, rt = dim.CAMERA_RIBBON
    for i in range(2):
        part -= _box(p.wall + 0.02, rw, rt, (-0.01, p.wall + 20.0 + i * 30.0, z_wall + 4.0), corner=True)
    # Right wall (x = width): low vents, air in; the lid's vents over the Pi let it out.
    n, (sw, sh) = p.vent_slots, p.vent_slot
    pitch = (p.inner_depth - 20.0) / n
    for i in range(n):
        part -= _box(p.wall + 0.02, sw, sh, (ow - p.wall - 0.01, p.wall + 10.0 + i * pitch, p.floor + 4.0),
                     corner=True)
    return part


def box_lid(p: ElectronicsBox) -> Part:
    """The lid, printed top face down: a plate, a lip that fits inside the walls, vents over the Pi."""
    ow, od, _ = p.outer
    part = _box(ow, od, p.lid, corner=True)
    lip_w, lip_d = p.inner_width - 2 * FIT, p.inner_depth - 2 * FIT
    ring = _box(lip_w, lip_d, p.lid_lip, (p.wall + FIT, p.wall + FIT, p.lid - 0.01), corner=True)
    ring -= _box(lip_w - 4.0, lip_d - 4.0, p.lid_lip + 0.02, (p.wall + FIT + 2.0, p.wall + FIT + 2.0, p.lid - 0.02),
                 corner=True)
    part += ring
    origin = p.board_origins()["pi"]
    x0, y0 = p.wall + origin[0] + 10.0, p.wall + origin[1] + 8.0
    for i in range(10):
        part -= _box(2.5, dim.PI5.depth - 16.0, p.lid + 0.02, (x0 + i * 6.5, y0, -0.01), corner=True)
    return part


@dataclass(frozen=True)
class PartModel:
    """A part to write: its file stem, what it is, how many to print for the map, and how to build it."""

    stem: str
    title: str
    count: int
    build: Any  # () -> Part
    material: str
    layer: float
    supports: str


def all_parts(stand_counts: dict[str, int], segment_pixels: dict[int, int],
              cameras: dict[str, int] | None = None) -> list[PartModel]:
    """Every part of a build: reed holders per stand kind (``stand_counts``), an LED channel and
    diffuser per segment length (``segment_pixels``: pixels -> how many segments), both cameras'
    mounts (``cameras``: how many of each, ``cm3`` and ``c920``, to print) and the box."""
    cameras = {"cm3": 2, "c920": 0} if cameras is None else cameras
    out: list[PartModel] = []
    for kind, n in sorted(stand_counts.items()):
        p = ReedHolder.for_kind(kind)
        out.append(PartModel(f"reed-holder-{kind}", f"reed holder, {kind} stand ({p.shape})", n,
                             lambda p=p: reed_holder(p), "PLA or PETG", 0.12, "none (flange down)"))
    for pixels, n in sorted(segment_pixels.items()):
        c = LedChannel(pixels)
        out.append(PartModel(f"led-channel-{pixels}px", f"LED channel, {pixels} pixel{'s' * (pixels > 1)}", n,
                             lambda c=c: led_channel(c), "PLA, black or dark", 0.2, "none (floor down)"))
        out.append(PartModel(f"led-diffuser-{pixels}px", f"LED diffuser, {pixels} pixel{'s' * (pixels > 1)}", n,
                             lambda c=c: led_diffuser(c), "PETG, natural or white", 0.2, "none"))
    for cam, title in (("cm3", "Camera Module 3"), ("c920", "USB camera (C920)")):
        m = CameraMount(cam)
        out.append(PartModel(f"camera-mount-{cam}", f"camera mount, {title}", cameras.get(cam, 0),
                             lambda m=m: camera_mount(m), "PLA, black (no glare)", 0.2,
                             "none (it lies on its top edge: the hook's cap on the bed)"))
    b = ElectronicsBox()
    out.append(PartModel("box-base", "electronics box, base", 1, lambda: box_base(b), "PETG (near the Pi's heat)",
                         0.24, "none (floor down; the wall holes bridge)"))
    out.append(PartModel("box-lid", "electronics box, lid", 1, lambda: box_lid(b), "PETG", 0.24,
                         "none (top face down)"))
    return out
