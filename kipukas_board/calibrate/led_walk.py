"""The LED part of the walk-through: light each territory's segment in turn; confirm or shift it.

The strip is laid under the terrain by hand, so the default layout (territory segments one after
another) is a guess. For each territory the walk lights the pixels it believes belong there; the
player looks at the board and either confirms or shifts the segment a pixel at a time until the
right terrain glows. Pure: the session shows :meth:`LedWalk.frame` on the strip.

Example::

    >>> walk = LedWalk({1: [0, 1], 2: [2, 3]}, count=6)
    >>> walk.shift(+1); walk.segment
    [1, 2]
    >>> walk.confirm(); walk.confirm(); walk.done, walk.territories
    (True, {1: [1, 2], 2: [2, 3]})
"""

from __future__ import annotations

from typing import Any

RGB = tuple[int, int, int]
LIT: RGB = (255, 255, 255)
DIM: RGB = (0, 0, 16)


class LedWalk:
    def __init__(self, territories: dict[int, list[int]], count: int) -> None:
        if not territories:
            raise ValueError("the layout has no territory segments to walk through")
        self.count = count
        self.order = sorted(territories)
        self.territories = {n: list(px) for n, px in territories.items()}
        self.index = 0

    @property
    def done(self) -> bool:
        return self.index >= len(self.order)

    @property
    def current(self) -> int | None:
        return None if self.done else self.order[self.index]

    @property
    def segment(self) -> list[int]:
        n = self.current
        return [] if n is None else self.territories[n]

    def shift(self, delta: int) -> None:
        """Move the current segment ``delta`` pixels along the strip (kept on the strip)."""
        seg = self.segment
        if not seg:
            return
        delta = max(-min(seg), min(delta, self.count - 1 - max(seg)))
        self.territories[self.order[self.index]] = [i + delta for i in seg]

    def confirm(self) -> None:
        if not self.done:
            self.index += 1

    def back(self) -> None:
        self.index = max(0, self.index - 1)

    def frame(self) -> list[RGB]:
        """What the strip shows now: the current segment lit, every other pixel dim blue."""
        lit = set(self.segment)
        return [LIT if i in lit else DIM for i in range(self.count)]

    def status(self) -> dict[str, Any]:
        return {"territory": self.current, "segment": self.segment, "index": self.index,
                "total": len(self.order), "done": self.done, "count": self.count,
                "territories": {str(n): px for n, px in sorted(self.territories.items())}}

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "index": self.index,
                "territories": {str(n): px for n, px in self.territories.items()}}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LedWalk:
        walk = cls({int(n): list(px) for n, px in d["territories"].items()}, int(d["count"]))
        walk.index = int(d["index"])
        return walk
