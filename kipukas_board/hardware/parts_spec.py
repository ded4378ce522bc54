"""The physical sizes the printed parts and the bill of materials share: the reed, the magnet, the gap.

One module so that the reed holder a printer makes, the magnet a maker orders and the calculation in
``hardware/magnets.md`` cannot disagree. Lengths are in millimetres, fields in millitesla. The reed
figures are the Littelfuse MDSR-7 datasheet's maxima (12.7 x 1.8 mm glass, 0.47 mm leads); the
magnet is the recommended token magnet, a 5 x 2 mm N42 disc magnetised through its thickness.

The stand is built so that the magnet's bottom face sits :data:`MAGNET_TO_REED_MM` above the top end
of an upright reed's glass: :data:`TOKEN_FLOOR_MM` of token under the magnet, then
:data:`MAP_TOP_MM` of map above the reed holder, then :data:`HOLDER_CLEARANCE_MM` of air.

Example::

    >>> from kipukas_board.hardware import parts_spec as p
    >>> p.MAGNET_TO_REED_MM == p.TOKEN_FLOOR_MM + p.MAP_TOP_MM + p.HOLDER_CLEARANCE_MM
    True
    >>> p.REED_HOLE_DIAMETER_MM > p.REED_GLASS_DIAMETER_MM
    True
"""

from __future__ import annotations

from typing import Final

#: Reed switch: Littelfuse MDSR-7 (SPST-NO), glass envelope and leads, datasheet maxima.
REED_PART: Final = "Littelfuse MDSR-7"
REED_GLASS_LENGTH_MM: Final = 12.7
REED_GLASS_DIAMETER_MM: Final = 1.8
REED_LEAD_DIAMETER_MM: Final = 0.47
REED_OVERALL_LENGTH_MM: Final = 40.38
#: Bend a lead no closer to the glass than this (hold the lead with pliers between bend and glass).
REED_BEND_FROM_GLASS_MM: Final = 2.0
#: Solder no closer to the glass than this.
REED_SOLDER_FROM_GLASS_MM: Final = 3.0
#: The hole a holder gives the glass: loose enough to slide in without stress on the seals.
REED_HOLE_DIAMETER_MM: Final = 2.3
#: The recommended sensitivity grade, in ampere-turns (the MDSR-7 comes in 10-15, 15-20, 20-25 AT).
REED_AT_RANGE: Final = (15.0, 20.0)
#: The reed stands upright under the stand's centre, its axis on the magnet's axis.
REED_ORIENTATION: Final = "vertical"

#: Token magnet: N42 neodymium disc, magnetised axially (through its thickness).
MAGNET_DIAMETER_MM: Final = 5.0
MAGNET_THICKNESS_MM: Final = 2.0
MAGNET_GRADE: Final = "N42"
#: Remanence used for the field calculation (N42: 1.28-1.32 T; the middle).
MAGNET_REMANENCE_T: Final = 1.30

#: Token plastic under the magnet, map plastic over the reed holder and the air between them.
TOKEN_FLOOR_MM: Final = 1.0
MAP_TOP_MM: Final = 2.0
HOLDER_CLEARANCE_MM: Final = 1.0
#: Magnet's bottom face to the top end of the reed's glass with the token on its stand.
MAGNET_TO_REED_MM: Final = TOKEN_FLOOR_MM + MAP_TOP_MM + HOLDER_CLEARANCE_MM

#: Centre-to-centre distance of neighbouring stands' reeds, at least.
STAND_PITCH_MIN_MM: Final = 25.0
