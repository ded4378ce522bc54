"""The sensor part of the walk-through: place a token on each stand in turn.

The walk knows nothing about which channel is which. It asks for a token on one stand at a time and
watches the raw switch changes (channels, before any mapping):

- the first channel that closes while a token is asked for on stand S is S's channel; the walk then
  asks for the token to be lifted and moves on when that channel opens again;
- a channel already closed when the walk starts (the board should be bare) is **stuck**;
- a **duplicate** is a channel that really answers for a second stand: one that already belongs to
  an earlier stand and is the only one to close for S (S is skipped: crossed wires), or a second
  channel that closes with S's token and stays closed until that token is lifted (two reeds under
  one stand) and is not the next stand's own channel, or that opens within :data:`TOGETHER_S` of
  S's own channel when the token is lifted (given the changes' times);
- any other channel closing out of turn is *watched* and forgotten once it proves to be noise: it
  opens again while S's token is still down (a hand brushing another stand, a chattering reed), or
  S finds a channel of its own;
- a stand for which no channel answers is skipped by the player and recorded as **dead**.

A change that repeats what the walk already knows (a closed channel reported closed) is no change:
after a restart the board replays every switch's state through the walk, which must not count them
twice.

It is pure (no threads, no clock of its own: a change may carry its time):
:class:`~kipukas_board.calibrate.session.CalibrationSession` feeds it changes and saves
:meth:`SensorWalk.to_json` after every step so an interrupted walk resumes.

Example::

    >>> walk = SensorWalk(["T1", "M1a"], closed_at_start={"r9c9": True})
    >>> walk.current
    'T1'
    >>> walk.on_change("r0c3", True), walk.on_change("r0c3", True), walk.on_change("r0c3", False)
    (True, False, True)
    >>> walk.current
    'M1a'
    >>> walk.skip(); walk.done, walk.channels, walk.dead, walk.stuck
    (True, {'r0c3': 'T1'}, ['M1a'], ['r9c9'])
"""

from __future__ import annotations

from typing import Any

#: Two channels that open within this many seconds of each other opened with the same token.
TOGETHER_S = 0.3


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
        #: Channels that closed out of turn: channel → the stand whose step it was. Each becomes a
        #: duplicate or is forgotten as noise (see the module docs).
        self.suspects: dict[str, str] = {}
        self.notes: list[str] = [f"channel {ch} was closed before any token was placed (stuck?)"
                                 for ch in self.stuck]
        self._closed: set[str] = set(self.stuck)
        #: Watched channels of the current stand that opened as noise: channel → when (for TOGETHER_S).
        self._opened: dict[str, float] = {}

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

    def known(self, channel: str, closed: bool) -> bool:
        """Is that already the channel's state as the walk knows it (so no change at all)?"""
        return closed == (channel in self._closed)

    def on_change(self, channel: str, closed: bool, at: float | None = None) -> bool:
        """A raw switch change, straight from the sensor adapter; False when it only repeated the
        state the walk knew (ignored), so the caller saves and announces only real changes.

        ``at`` is when it happened (seconds on any steady clock); without it, two channels opening
        together cannot be told from noise, and a watched channel that opens first counts as noise.
        """
        if self.known(channel, closed):
            return False
        if closed:
            self._closed.add(channel)
        else:
            self._closed.discard(channel)
        if channel in self.stuck:
            if not closed:
                self.stuck.remove(channel)
                self._note(f"channel {channel} opened again: no longer counted as stuck")
            return True
        if self.done:
            return True
        if closed:
            self._closing(channel)
        else:
            self._opening(channel, at)
        return True

    def _closing(self, channel: str) -> None:
        stand = self.stands[self.index]
        mine = self.channel_of(stand)
        owner = self.channels.get(channel)
        if mine is None and owner is None:
            self.channels[channel] = stand
            self.step = "lift"
            self._found(stand, channel)
        elif owner != stand and channel not in self.suspects:
            self.suspects[channel] = stand
            why = f"already belongs to {owner}" if owner else f"{stand} already has channel {mine}"
            self._note(f"channel {channel} closed during stand {stand}'s turn ({why}): watching it")

    def _opening(self, channel: str, at: float | None) -> None:
        stand = self.stands[self.index]
        mine = self.channel_of(stand)
        if channel == mine and self.step == "lift":
            for ch, when in self._opened.items():  # opened with this token after all: two reeds
                if at is not None and at - when <= TOGETHER_S:
                    self._flag_duplicate(ch)
                    self._note(f"stand {stand} closed two channels: {mine} and {ch} (both opened as it was lifted)")
            self._advance()
            return
        if self.suspects.get(channel) == stand and mine is not None and mine in self._closed:
            # It opened again while this stand's token is still down: not this stand's doing.
            del self.suspects[channel]
            if at is not None:
                self._opened[channel] = at
            self._note(f"channel {channel} opened again while the token was on {stand}: ignored as noise")

    def _found(self, stand: str, channel: str) -> None:
        """``stand`` has its own ``channel`` now: settle the channels watched so far."""
        for ch, during in list(self.suspects.items()):
            # This stand's own channel, closed early (its token put down before the last was lifted),
            # or a bump that came and went before this stand's token: noise either way.
            if ch == channel or (during == stand and ch not in self._closed):
                del self.suspects[ch]
            elif during != stand:  # closed with an earlier stand's token, held until it was lifted
                del self.suspects[ch]
                self._flag_duplicate(ch)
                self._note(f"stand {during} closed two channels: {self.channel_of(during)} and {ch}")

    def _settle(self, stand: str) -> None:
        """``stand`` was skipped with no channel of its own: an earlier stand's channel that closed for
        it is a crossed wire; what else was watched keeps waiting for the next stand."""
        for ch, during in list(self.suspects.items()):
            owner = self.channels.get(ch)
            if during == stand and owner is not None:
                del self.suspects[ch]
                self._flag_duplicate(ch)
                self._note(f"channel {ch} answered for {stand} but already belongs to {owner}")

    def skip(self) -> None:
        """No channel answers for the current stand: record it as dead and ask for the next one."""
        if self.done:
            return
        stand = self.stands[self.index]
        if self.channel_of(stand) is None:
            self.dead.append(stand)
            self._note(f"no channel answered for stand {stand}: marked dead")
            self._settle(stand)
        self._advance()

    def back(self) -> None:
        """Go back one stand and walk it again (its channel and dead mark are forgotten)."""
        if self.index == 0 and self.step == "place":
            return
        if self.step == "place" or self.done:
            self.index -= 1
        stand = self.stands[self.index]
        self.channels = {ch: sid for ch, sid in self.channels.items() if sid != stand}
        self.suspects = {ch: sid for ch, sid in self.suspects.items() if sid != stand}
        self._opened = {}
        if stand in self.dead:
            self.dead.remove(stand)
        self.step = "place"

    def _advance(self) -> None:
        self.index += 1
        self.step = "place"
        self._opened = {}
        if self.done:  # nothing after the last stand can claim what is still watched
            for ch, during in list(self.suspects.items()):
                del self.suspects[ch]
                if ch in self._closed or self.channels.get(ch) is None:
                    self._flag_duplicate(ch)
                    self._note(f"stand {during} closed two channels: {self.channel_of(during)} and {ch}")

    def status(self) -> dict[str, Any]:
        """What the page shows: where the walk is and what it found so far."""
        return {"stand": self.current, "step": self.step if not self.done else "done",
                "index": self.index, "total": len(self.stands), "done": self.done,
                "channels": dict(self.channels), "dead": list(self.dead), "stuck": list(self.stuck),
                "duplicate": list(self.duplicate), "watching": sorted(self.suspects),
                "notes": list(self.notes[-10:]), "closed": sorted(self._closed)}

    # -- resuming --------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"stands": self.stands, "index": self.index, "step": self.step, "channels": self.channels,
                "dead": self.dead, "stuck": self.stuck, "duplicate": self.duplicate, "notes": self.notes,
                "suspects": self.suspects, "closed": sorted(self._closed)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SensorWalk:
        walk = cls(list(d["stands"]))
        walk.index = int(d["index"])
        walk.step = str(d["step"])
        walk.channels = {str(k): str(v) for k, v in d["channels"].items()}
        walk.dead, walk.stuck = list(d["dead"]), list(d["stuck"])
        walk.duplicate, walk.notes = list(d["duplicate"]), list(d["notes"])
        walk._closed = set(d.get("closed", []))
        walk.suspects = {str(k): str(v) for k, v in d.get("suspects", {}).items()}
        return walk
