"""Which LED pixels light which territory and stand.

The calibration walk-through measures the real layout; until then :func:`default_layout` gives every
territory a segment of ``per_territory`` pixels (in territory order) followed by one pixel per stand,
which is also what the simulated strip uses.

Example::

    >>> from kipukas_board.show.layout import LedLayout
    >>> layout = LedLayout(territories={1: [0, 1, 2]}, stands={"T1": [3]})
    >>> layout.count
    4
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kipukas_board.board.mapfile import BoardMap


@dataclass
class LedLayout:
    territories: dict[int, list[int]]
    stands: dict[str, list[int]] = field(default_factory=dict)

    @property
    def count(self) -> int:
        used = [i for seg in (*self.territories.values(), *self.stands.values()) for i in seg]
        return max(used) + 1 if used else 0

    def to_json(self) -> dict[str, Any]:
        return {"territories": {str(n): list(px) for n, px in sorted(self.territories.items())},
                "stands": {sid: list(px) for sid, px in self.stands.items()}}


def default_layout(board: BoardMap, per_territory: int = 3) -> LedLayout:
    """Territory segments first, in territory order, then one pixel per stand in map order."""
    territories: dict[int, list[int]] = {}
    i = 0
    for n in sorted(board.territories):
        territories[n] = list(range(i, i + per_territory))
        i += per_territory
    stands: dict[str, list[int]] = {}
    for sid in board.stands:
        stands[sid] = [i]
        i += 1
    return LedLayout(territories, stands)
