"""Will the token's magnet close the stand's reed, and only that one? The field against the distance.

A disc magnet magnetised through its thickness has, on its axis at a distance ``z`` from its face,
the field (``Br`` its remanence, ``R`` its radius, ``L`` its thickness)::

    B(z) = Br / 2 * ((z + L) / sqrt(R^2 + (z + L)^2) - z / sqrt(R^2 + z^2))

An upright reed under the stand's centre lies along that axis; what closes it is the field along its
blades, so :func:`reed_field_mt` takes the mean over the glass. Off the axis (a token on the
neighbouring stand) the magnet is far enough away to be a dipole (:func:`neighbour_field_mt`).

A reed's sensitivity is given in ampere-turns (AT), measured in its maker's test coil; for a reed of
this size about :data:`MT_PER_AT` millitesla of field along the glass per AT is the planning figure
used here (an estimate: the one-reed test in hardware/magnets.md is what decides). A closed reed
opens again when the field falls below its drop-out, at least :data:`DROP_OUT_SHARE` of its pull-in.

Example::

    >>> round(axial_field_mt(12.5, 6.0, 3.0, 1.43), 1)      # a 6 x 3 mm N52 disc, 12.5 mm away
    6.7
    >>> p = recommended()
    >>> p.seated_mt > 2 * p.pull_in_mt[1] and p.neighbour_mt < p.pull_in_mt[0] / 2
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kipukas_board.hardware import parts_spec

#: Field along the glass per ampere-turn of pull-in, for a 10-15 mm reed (planning figure, in mT).
MT_PER_AT = 0.1
#: A closed reed opens once the field falls below this share of its pull-in (datasheets: 40-80 %).
DROP_OUT_SHARE = 0.4
#: Steps of the mean along the glass.
_STEPS = 40


def axial_field_mt(z_mm: float, diameter_mm: float, thickness_mm: float, br_t: float) -> float:
    """The field on the magnet's axis ``z_mm`` from its face, in mT."""
    r, length, z = diameter_mm / 2, thickness_mm, max(z_mm, 0.0)
    return 1000 * br_t / 2 * ((z + length) / math.hypot(r, z + length) - z / math.hypot(r, z))


def reed_field_mt(gap_mm: float, diameter_mm: float = parts_spec.MAGNET_DIAMETER_MM,
                  thickness_mm: float = parts_spec.MAGNET_THICKNESS_MM, br_t: float = parts_spec.MAGNET_REMANENCE_T,
                  glass_mm: float = parts_spec.REED_GLASS_LENGTH_MM) -> float:
    """Mean field along an upright reed whose glass starts ``gap_mm`` below the magnet's face."""
    return sum(axial_field_mt(gap_mm + glass_mm * (i + 0.5) / _STEPS, diameter_mm, thickness_mm, br_t)
               for i in range(_STEPS)) / _STEPS


def neighbour_field_mt(pitch_mm: float, gap_mm: float, diameter_mm: float = parts_spec.MAGNET_DIAMETER_MM,
                       thickness_mm: float = parts_spec.MAGNET_THICKNESS_MM,
                       br_t: float = parts_spec.MAGNET_REMANENCE_T,
                       glass_mm: float = parts_spec.REED_GLASS_LENGTH_MM) -> float:
    """Size of the mean vertical field along the reed of a stand ``pitch_mm`` away (the magnet as a dipole)."""
    volume = math.pi * (diameter_mm / 2) ** 2 * thickness_mm
    k = br_t * 1000 * volume / (4 * math.pi)  # mT mm^3
    total = 0.0
    for i in range(_STEPS):
        z = gap_mm + thickness_mm / 2 + glass_mm * (i + 0.5) / _STEPS  # from the magnet's centre, downwards
        r = math.hypot(pitch_mm, z)
        total += k * (3 * (z / r) ** 2 - 1) / r ** 3
    return abs(total / _STEPS)


def gap_where(field_mt: float, **magnet: float) -> float:
    """The gap (mm, to 0.1 mm) beyond which the mean field along the reed is below ``field_mt``."""
    gap = 0.0
    while reed_field_mt(gap, **magnet) >= field_mt and gap < 200:
        gap = round(gap + 0.1, 1)
    return gap


@dataclass(frozen=True)
class Pair:
    """A magnet and a reed grade, and what they do at the stand's distances."""

    magnet: str
    at_range: tuple[float, float]
    pull_in_mt: tuple[float, float]
    seated_gap_mm: float
    seated_mt: float
    closes_within_mm: float
    opens_beyond_mm: float
    lift_to_open_mm: float
    neighbour_mt: float


def pair(at_range: tuple[float, float] = parts_spec.REED_AT_RANGE, seated_gap_mm: float = parts_spec.MAGNET_TO_REED_MM,
         pitch_mm: float = parts_spec.STAND_PITCH_MIN_MM, **magnet: float) -> Pair:
    """What a magnet (``diameter_mm``, ``thickness_mm``, ``br_t``; default the recommended one) does with a
    reed of ``at_range``: every reed of the grade closes within ``closes_within_mm`` and opens beyond
    ``opens_beyond_mm`` (gaps from the magnet's face to the glass)."""
    lo, hi = (a * MT_PER_AT for a in at_range)
    d = magnet.get("diameter_mm", parts_spec.MAGNET_DIAMETER_MM)
    t = magnet.get("thickness_mm", parts_spec.MAGNET_THICKNESS_MM)
    br = magnet.get("br_t", parts_spec.MAGNET_REMANENCE_T)
    opens = gap_where(DROP_OUT_SHARE * lo, **magnet)
    return Pair(magnet=f"{d:g} x {t:g} mm, Br {br:g} T", at_range=at_range, pull_in_mt=(lo, hi),
                seated_gap_mm=seated_gap_mm, seated_mt=reed_field_mt(seated_gap_mm, **magnet),
                closes_within_mm=gap_where(hi, **magnet), opens_beyond_mm=opens,
                lift_to_open_mm=round(opens - seated_gap_mm, 1),
                neighbour_mt=neighbour_field_mt(pitch_mm, seated_gap_mm, **magnet))


def recommended() -> Pair:
    """The recommended pair: the parts_spec magnet with the parts_spec reed grade."""
    return pair()


#: Magnets the docs compare (name -> diameter, thickness, remanence).
CANDIDATES = {
    "5 x 2 mm N42 (recommended)": (5.0, 2.0, 1.30),
    "6 x 2 mm N35": (6.0, 2.0, 1.19),
    "6 x 3 mm N52": (6.0, 3.0, 1.43),
}
#: Gaps (mm, magnet face to glass) of the field table.
TABLE_GAPS = (2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30)


def field_table() -> str:
    """Markdown: mean field along the reed against the gap, for each candidate magnet."""
    head = "| gap (mm) | " + " | ".join(CANDIDATES) + " |"
    lines = [head, "|---:|" + "---:|" * len(CANDIDATES)]
    for g in TABLE_GAPS:
        cells = [f"{reed_field_mt(g, diameter_mm=d, thickness_mm=t, br_t=br):.2f} mT"
                 for d, t, br in CANDIDATES.values()]
        lines.append(f"| {g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def pair_table() -> str:
    """Markdown: each candidate magnet with each reed grade of the MDSR-7."""
    lines = ["| magnet | reed grade | closes within | field seated (4 mm) | margin | opens beyond | lift to open | "
             "neighbour at 25 mm |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, (d, t, br) in CANDIDATES.items():
        for grade in ((10.0, 15.0), (15.0, 20.0), (20.0, 25.0)):
            p = pair(grade, diameter_mm=d, thickness_mm=t, br_t=br)
            lines.append(f"| {name} | {grade[0]:g}-{grade[1]:g} AT ({p.pull_in_mt[0]:g}-{p.pull_in_mt[1]:g} mT) | "
                         f"{p.closes_within_mm:g} mm | {p.seated_mt:.1f} mT | {p.seated_mt / p.pull_in_mt[1]:.1f}x | "
                         f"{p.opens_beyond_mm:g} mm | {p.lift_to_open_mm:g} mm | {p.neighbour_mt:.2f} mT |")
    return "\n".join(lines)

