"""The LED part of the walk-through: light each territory's segment in turn; confirm, shift or resize it.

The strip is laid under the terrain by hand, so the layout it starts from (the calibration file's,
or the default: territory segments one after another, then one pixel per stand) is a guess. For
each territory the walk lights the pixels it believes belong there; the player looks at the board
and either confirms, or moves the segment a pixel at a time until the right terrain glows.

The strip is one chain, so a segment that is off by a pixel usually means everything after it is
off by the same pixel. Hence **shifting or resizing a segment carries along everything after it on
the strip that is not confirmed yet** (later territories' segments and the stand pixels): one shift
fixes an offset for the rest of the strip, and a segment grown by a pixel pushes the rest along
instead of overlapping it. Confirmed segments never move; a move that would run into one, or carry
the last pixels off the strip's end, goes only as far as there is room (:meth:`LedWalk.shift` and
:meth:`LedWalk.resize` return how far, and :meth:`LedWalk.blocked` says why not). No two segments
ever share a pixel, so saving never fails on an overlap the walk made. Pure: the session shows
:meth:`LedWalk.frame` on the strip.

Example::

    >>> walk = LedWalk({1: [0, 1], 2: [2, 3]}, count=6, stands={"T1": [4]})
    >>> walk.shift(+1), walk.segment, walk.territories[2], walk.stands["T1"]
    (1, [1, 2], [3, 4], [5])
    >>> walk.confirm(); walk.resize(-1), walk.territories[2], walk.stands["T1"]
    (-1, [3], [4])
    >>> walk.confirm(); walk.done
    True
"""

from __future__ import annotations

from typing import Any

RGB = tuple[int, int, int]
LIT: RGB = (255, 255, 255)
DIM: RGB = (0, 0, 16)
STAND: RGB = (0, 24, 0)


class LedWalk:
    def __init__(self, territories: dict[int, list[int]], count: int,
                 stands: dict[str, list[int]] | None = None) -> None:
        if not territories:
            raise ValueError("the layout has no territory segments to walk through")
        self.count = count
        self.order = sorted(territories)
        self.territories = {n: list(px) for n, px in territories.items()}
        self.stands = {sid: list(px) for sid, px in (stands or {}).items()}
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

    # -- moving ----------------------------------------------------------------------------------
    def _segments(self) -> dict[tuple[str, Any], list[int]]:
        return {**{("t", n): px for n, px in self.territories.items()},
                **{("s", sid): px for sid, px in self.stands.items()}}

    def _followers(self) -> list[tuple[str, Any]]:
        """What moves with the current segment: unconfirmed segments and stand pixels after it."""
        confirmed = set(self.order[: self.index])
        start = min(self.segment)
        return [key for key, px in self._segments().items()
                if px and min(px) > start and not (key[0] == "t" and key[1] in confirmed)]

    def _fits(self, moved: dict[tuple[str, Any], list[int]]) -> bool:
        seen: set[int] = set()
        for px in {**self._segments(), **moved}.values():
            for i in px:
                if not 0 <= i < self.count or i in seen:
                    return False
                seen.add(i)
        return True

    def _move(self, new_segment: list[int], follow_by: int) -> bool:
        moved = {("t", self.current): new_segment}
        for key in self._followers():
            moved[key] = [i + follow_by for i in self._segments()[key]]
        if not new_segment or not self._fits(moved):
            return False
        for (kind, name), px in moved.items():
            (self.territories if kind == "t" else self.stands)[name] = px
        return True

    def shift(self, delta: int) -> int:
        """Move the current segment ``delta`` pixels along the strip, and everything after it with it
        (as far as the strip's ends and the confirmed segments leave room); returns how far it moved."""
        if self.done:
            return 0
        step = 1 if delta > 0 else -1
        for d in range(delta, 0, -step):
            if self._move([i + d for i in self.segment], d):
                return d
        return 0

    def resize(self, delta: int) -> int:
        """Grow (``delta`` > 0) or shrink the current segment at its far end, by up to ``delta``
        pixels; everything after it moves along. A segment keeps at least one pixel. Returns the
        change made."""
        if self.done:
            return 0
        seg = sorted(self.segment)
        step = 1 if delta > 0 else -1
        for d in range(delta, 0, -step):
            new = seg + list(range(seg[-1] + 1, seg[-1] + 1 + d)) if d > 0 else seg[:d]
            if self._move(new, d):
                return d
        return 0

    def blocked(self, delta: int, resizing: bool = False) -> str:
        """Why the current segment cannot shift (or resize) by ``delta`` (for the page)."""
        n = self.current
        if n is None:
            return "every territory is confirmed: save the layout, or go back to change one"
        if resizing and delta < 0:
            return f"territory {n} has a single pixel left"
        if delta > 0:
            last = max(i for px in self._segments().values() for i in px)
            return (f"territory {n} and what follows it already reach pixel {last}, the end of the strip "
                    f"({self.count} pixels): shrink a segment after it first, or set [leds] count to the "
                    f"strip's real length")
        before = [m for m in self.order[: self.index] if self.territories[m] and
                  max(self.territories[m]) < min(self.segment)]
        if before:
            return f"territory {n} would run into territory {before[-1]}, which is confirmed (go back to move it)"
        return f"territory {n} is at the start of the strip"

    def confirm(self) -> None:
        if not self.done:
            self.index += 1

    def back(self) -> None:
        self.index = max(0, self.index - 1)

    # -- showing and saving ----------------------------------------------------------------------
    def frame(self) -> list[RGB]:
        """What the strip shows now: the current segment lit, stand pixels faint green, the rest dim."""
        lit = set(self.segment)
        stands = {i for px in self.stands.values() for i in px}
        return [LIT if i in lit else STAND if i in stands else DIM for i in range(self.count)]

    def status(self) -> dict[str, Any]:
        return {"territory": self.current, "segment": self.segment, "index": self.index,
                "total": len(self.order), "done": self.done, "count": self.count,
                "territories": {str(n): px for n, px in sorted(self.territories.items())},
                "stands": dict(self.stands)}

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "index": self.index,
                "territories": {str(n): px for n, px in self.territories.items()}, "stands": self.stands}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LedWalk:
        walk = cls({int(n): list(px) for n, px in d["territories"].items()}, int(d["count"]),
                   {str(k): list(v) for k, v in d.get("stands", {}).items()})
        walk.index = int(d["index"])
        return walk
