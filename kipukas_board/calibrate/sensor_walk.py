"""The sensor part of the walk-through: place a token on each stand in turn.

The walk knows nothing about which channel is which. It asks for a token on one stand at a time and
watches the raw switch changes (channels, before any mapping):

- the first channel that closes while a token is asked for on stand S is S's channel; the walk then
  asks for the token to be lifted and moves on when that channel opens again;
- a channel already closed when the walk starts (the board should be bare) is **stuck**;
- a channel that closes for S although it already belongs to an earlier stand, or a second channel
  closing for the same stand, is a **duplicate** (crossed wires, two reeds under one stand);
- a stand for which no channel answers is skipped by the player and recorded as **dead**.

It is pure (no threads, no clock): :class:`~kipukas_board.calibrate.session.CalibrationSession`
feeds it changes and saves :meth:`SensorWalk.to_json` after every step so an interrupted walk resumes.

Example::

    >>> walk = SensorWalk(["T1", "M1a"], closed_at_start={"r9c9": True})
    >>> walk.current
    'T1'
    >>> walk.on_change("r0c3", True); walk.on_change("r0c3", False)
    >>> walk.current
    'M1a'
    >>> walk.skip(); walk.done, walk.channels, walk.dead, walk.stuck
    (True, {'r0c3': 'T1'}, ['M1a'], ['r9c9'])
"""

from __future__ import annotations

from typing import Any


class SensorWalk:
    def __init__(self, stands: list[str], closed_at_start: dict[str, bool] | None = None) -> None:
        if not stands:
            raise ValueError("the map has no stands to walk through")
        self.stands = list(stands)
        self.index = 0
        #: "place" (waiting for a token on the current stand) or "lift" (waiting for it to go).
        self.step = "place"
        self.channels: dict[str, str] = {}
        self.dead: list[str] = []
        self.stuck: list[str] = sorted(ch for ch, closed in (closed_at_start or {}).items() if closed)
        self.duplicate: list[str] = []
        self.notes: list[str] = [f"channel {ch} was closed before any token was placed (stuck?)"
                                 for ch in self.stuck]
        self._closed: set[str] = set(self.stuck)

    @property
    def done(self) -> bool:
        return self.index >= len(self.stands)

    @property
    def current(self) -> str | None:
        return None if self.done else self.stands[self.index]

    def channel_of(self, stand: str) -> str | None:
        for ch, sid in self.channels.items():
            if sid == stand:
                return ch
        return None

    def _note(self, text: str) -> None:
        self.notes.append(text)
        del self.notes[:-50]

    def _flag_duplicate(self, channel: str) -> None:
        if channel not in self.duplicate:
            self.duplicate.append(channel)

    def on_change(self, channel: str, closed: bool) -> None:
        """A raw switch change, straight from the sensor adapter."""
        if closed:
            self._closed.add(channel)
        else:
            self._closed.discard(channel)
        if channel in self.stuck:
            if not closed:
                self.stuck.remove(channel)
                self._note(f"channel {channel} opened again: no longer counted as stuck")
            return
        if self.done:
            return
        stand = self.stands[self.index]
        mine = self.channel_of(stand)
        if closed:
            owner = self.channels.get(channel)
            if owner is not None and owner != stand:
                self._flag_duplicate(channel)
                self._note(f"channel {channel} answered for {stand} but already belongs to {owner}")
            elif mine is None:
                self.channels[channel] = stand
                self.step = "lift"
            elif channel != mine:
                self._flag_duplicate(channel)
                self._note(f"stand {stand} closed two channels: {mine} and {channel}")
        elif channel == mine and self.step == "lift":
            self._advance()

    def skip(self) -> None:
        """No channel answers for the current stand: record it as dead and ask for the next one."""
        if self.done:
            return
        stand = self.stands[self.index]
        if self.channel_of(stand) is None:
            self.dead.append(stand)
            self._note(f"no channel answered for stand {stand}: marked dead")
        self._advance()

    def back(self) -> None:
        """Go back one stand and walk it again (its channel and dead mark are forgotten)."""
        if self.index == 0 and self.step == "place":
            return
        if self.step == "place" or self.done:
            self.index -= 1
        stand = self.stands[self.index]
        self.channels = {ch: sid for ch, sid in self.channels.items() if sid != stand}
        if stand in self.dead:
            self.dead.remove(stand)
        self.step = "place"

    def _advance(self) -> None:
        self.index += 1
        self.step = "place"

    def status(self) -> dict[str, Any]:
        """What the page shows: where the walk is and what it found so far."""
        return {"stand": self.current, "step": self.step if not self.done else "done",
                "index": self.index, "total": len(self.stands), "done": self.done,
                "channels": dict(self.channels), "dead": list(self.dead), "stuck": list(self.stuck),
                "duplicate": list(self.duplicate), "notes": list(self.notes[-10:]),
                "closed": sorted(self._closed)}

    # -- resuming --------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"stands": self.stands, "index": self.index, "step": self.step, "channels": self.channels,
                "dead": self.dead, "stuck": self.stuck, "duplicate": self.duplicate, "notes": self.notes,
                "closed": sorted(self._closed)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SensorWalk:
        walk = cls(list(d["stands"]))
        walk.index = int(d["index"])
        walk.step = str(d["step"])
        walk.channels = {str(k): str(v) for k, v in d["channels"].items()}
        walk.dead, walk.stuck = list(d["dead"]), list(d["stuck"])
        walk.duplicate, walk.notes = list(d["duplicate"]), list(d["notes"])
        walk._closed = set(d.get("closed", []))
        return walk
