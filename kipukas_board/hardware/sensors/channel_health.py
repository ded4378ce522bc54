"""Per-channel health for stand sensors: chattering and stuck switches are reported, not trusted.

A reed switch that flips many times in a short while (a weak magnet at the edge of its range, a
cracked glass tube, a loose wire) *chatters*; one that stays closed far longer than any token sits
is probably *stuck*. Adapters pass every settled change through :meth:`ChannelHealth.admit`: while a
channel chatters its changes are held back, and once it has been quiet for ``quiet_s`` its last
state is released (:meth:`released`), so the game sees one settled answer instead of a storm.

Example::

    >>> h = ChannelHealth(chatter_changes=3, chatter_window_s=10, quiet_s=2)
    >>> [h.admit("r0c1", closed, now) for closed, now in [(True, 0), (False, 1), (True, 2), (False, 3)]]
    [True, True, False, False]
    >>> h.report(now=3)["chatter"]
    ['r0c1']
    >>> h.released(now=4), h.released(now=5.5)
    ([], [('r0c1', False)])
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any


class ChannelHealth:
    """Chatter and stuck detection for a set of channels (not thread-safe: the adapter locks)."""

    def __init__(self, chatter_changes: int = 8, chatter_window_s: float = 10.0, quiet_s: float = 5.0,
                 stuck_s: float | None = 7200.0, clock: Callable[[], float] = time.monotonic) -> None:
        if chatter_changes < 2:
            raise ValueError(f"chatter_changes = {chatter_changes}: a channel needs at least 2 changes to chatter")
        self.chatter_changes = chatter_changes
        self.chatter_window_s = chatter_window_s
        self.quiet_s = quiet_s
        self.stuck_s = stuck_s
        self._clock = clock
        self._recent: dict[str, deque[float]] = {}
        self._last_change: dict[str, float] = {}
        self._closed: dict[str, bool] = {}
        self._chattering: dict[str, bool] = {}  # channel -> its latest state while held
        self.chatter_episodes: dict[str, int] = {}

    def admit(self, channel: str, closed: bool, now: float | None = None) -> bool:
        """Record a settled change; True if it may be passed on, False while the channel chatters."""
        now = self._clock() if now is None else now
        self._closed[channel] = closed
        self._last_change[channel] = now
        recent = self._recent.setdefault(channel, deque())
        recent.append(now)
        while recent and now - recent[0] > self.chatter_window_s:
            recent.popleft()
        if channel in self._chattering:
            self._chattering[channel] = closed
            return False
        if len(recent) >= self.chatter_changes:
            self._chattering[channel] = closed
            self.chatter_episodes[channel] = self.chatter_episodes.get(channel, 0) + 1
            return False
        return True

    def seen(self, channel: str, closed: bool, now: float | None = None) -> None:
        """Note a channel's state without it being a change (a snapshot at start-up)."""
        if channel not in self._closed:
            self._closed[channel] = closed
            self._last_change[channel] = self._clock() if now is None else now

    def corrected(self, channel: str, closed: bool, now: float | None = None) -> None:
        """Note a state a resync found: not a change of the switch (the host had missed or misread
        one), so it never counts towards chatter; a held channel keeps it as its latest state."""
        now = self._clock() if now is None else now
        if self._closed.get(channel) != closed:
            self._last_change[channel] = now
        self._closed[channel] = closed
        if channel in self._chattering:
            self._chattering[channel] = closed

    def trusted(self, channel: str) -> bool:
        return channel not in self._chattering

    def released(self, now: float | None = None) -> list[tuple[str, bool]]:
        """Channels that have calmed down, with the state to report for each (call now and then)."""
        now = self._clock() if now is None else now
        out = []
        for channel, closed in list(self._chattering.items()):
            if now - self._last_change[channel] >= self.quiet_s:
                del self._chattering[channel]
                self._recent[channel].clear()
                out.append((channel, closed))
        return out

    def next_release(self) -> float | None:
        """When the earliest chattering channel will have been quiet long enough (None if none chatter)."""
        times = [self._last_change[ch] + self.quiet_s for ch in self._chattering]
        return min(times) if times else None

    def report(self, now: float | None = None) -> dict[str, Any]:
        """``{"chatter": [...], "stuck": [...], "chatter_episodes": {...}}`` for the health page."""
        now = self._clock() if now is None else now
        stuck = []
        if self.stuck_s is not None:
            stuck = sorted(ch for ch, closed in self._closed.items()
                           if closed and now - self._last_change.get(ch, now) >= self.stuck_s)
        return {"chatter": sorted(self._chattering), "stuck": stuck,
                "chatter_episodes": dict(sorted(self.chatter_episodes.items()))}
