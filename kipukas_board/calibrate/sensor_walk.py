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
- a stand for which no channel answers is skipped by the player and recorded as **dead**;
- a channel that already belongs to another stand closing while a token is asked for is a
  **conflict**, shown at once: either the hand slipped (the token went on that other stand: lifting it
  ends the conflict) or that other stand was recorded wrong (a token put on the wrong stand earlier,
  the slip that would otherwise shift every stand after it by one). :meth:`SensorWalk.resolve` takes the
  player's word for the second: the channel becomes the asked stand's, and the other stand is walked
  again (:meth:`SensorWalk.redo` does that for any stand).

Two ways to walk (``mode``): ``"lift"`` asks for each token to be lifted before the next stand, so a
stand is two moves; ``"fast"`` leaves every token down (each new channel that closes is the next
stand), so a stand is one move and the board is cleared at the end. In fast mode a channel that opens
again right after it was recorded was a bump or a token that slid off, and its stand is asked again;
a second channel closing within :data:`SECOND_REED_S` of the last is a second reed under that stand.

When every stand has been walked the walk **verifies**: each token that touches a stand (placed or
lifted, clearing the board after a fast walk counts) marks that stand confirmed and is shown on the
page's map, so the player sees the board read back before saving; a channel no stand owns that closes
then is a **stray**. :meth:`SensorWalk.open_items` lists what is still wrong for Save to ask about.

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

The slip, caught: a token meant for M1a went on T6, so T6's channel was recorded as M1a's; at T6's
turn that channel closes again, and the player says the token is on T6::

    >>> walk = SensorWalk(["M1a", "T6"])
    >>> walk.on_change("r15c14", True), walk.on_change("r15c14", False)   # "M1a" (really on T6)
    (True, True)
    >>> walk.on_change("r15c14", True); walk.conflict["owner"]
    True
    'M1a'
    >>> walk.resolve(); walk.channels, walk.current, walk.step
    ({'r15c14': 'T6'}, 'T6', 'lift')
    >>> walk.on_change("r15c14", False); walk.current                      # M1a is walked again
    True
    'M1a'
"""

from __future__ import annotations

from typing import Any

#: Two channels that open within this many seconds of each other opened with the same token.
TOGETHER_S = 0.3
#: In a fast walk, a new channel closing this soon after the last one was recorded closed with the same
#: token (a second reed under that stand): a magnet reaches both at once, no hand is that quick.
SECOND_REED_S = 0.15
#: In a fast walk, the last stand's channel opening this soon after it closed was a bump, not the
#: start of clearing the board (for any other stand, the next token is not down yet, so it must be).
BUMP_S = 1.5


MODES = ("lift", "fast")


class SensorWalk:
    def __init__(self, stands: list[str], closed_at_start: dict[str, bool] | None = None,
                 mode: str = "lift") -> None:
        if not stands:
            raise ValueError("the map has no stands to walk through")
        if mode not in MODES:
            raise ValueError(f"unknown walk mode {mode!r}; expected {' or '.join(MODES)}")
        self.stands = list(stands)
        self.mode = mode
        self.index = 0
        #: Stands to walk again before the walk goes on (front first): redone by hand or after a conflict.
        self.queue: list[str] = []
        #: A channel of ``owner`` that closed while a token was asked for on ``stand``, until it opens
        #: again or the player resolves it: ``{"stand": ..., "channel": ..., "owner": ...}``.
        self.conflict: dict[str, str] | None = None
        #: Stands a token touched once every stand was walked (the read-back before saving).
        self.verified: list[str] = []
        #: Channels no stand owns that closed during the read-back.
        self.strays: list[str] = []
        #: The last touch during the read-back: ``{"stand": id or None, "channel": ..., "closed": ...}``.
        self.last_touch: dict[str, Any] | None = None
        #: Stands found recorded wrong while the current stand's token is down: walked once it is lifted.
        self._redo_next: list[str] = []
        #: In fast mode: the stand recorded last and when (a bump that opens at once undoes it).
        self._last: tuple[str, str, float | None] | None = None
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
        return self.index >= len(self.stands) and not self.queue and not self._redo_next

    @property
    def current(self) -> str | None:
        if self.queue:
            return self.queue[0]
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
                self._note(f"a sensor that was closed at the start opened (channel {channel}): "
                           f"a token left on was lifted")
            return True
        if self.conflict is not None and self.conflict["channel"] == channel and not closed:
            self._note(f"the token on {self.conflict['owner']} was lifted: still waiting for {self.conflict['stand']}")
            self.conflict = None
        if self.mode == "fast" and not closed and self._bumped(channel, at):
            return True
        if self.done:
            self._touch(channel, closed)
            return True
        if closed:
            self._closing(channel, at)
        else:
            self._opening(channel, at)
        return True

    def _touch(self, channel: str, closed: bool) -> None:
        """A change once every stand was walked: the read-back the page shows on its map."""
        stand = self.channels.get(channel)
        self.last_touch = {"stand": stand, "channel": channel, "closed": closed}
        if stand is not None:
            if stand not in self.verified:
                self.verified.append(stand)
        elif closed and channel not in self.strays and channel not in self.duplicate:
            self.strays.append(channel)
            self._note(f"a sensor that belongs to no stand closed (channel {channel})")

    def _closing(self, channel: str, at: float | None) -> None:
        stand = self.current
        assert stand is not None
        mine = self.channel_of(stand)
        owner = self.channels.get(channel)
        if self.mode == "fast" and owner is None and self._last is not None:
            last_stand, last_channel, when = self._last
            if at is not None and when is not None and at - when <= SECOND_REED_S and last_channel in self._closed:
                # No hand puts two tokens down that fast: a second reed under the stand just recorded.
                self._flag_duplicate(channel)
                self._note(f"{last_stand} has two sensors under it (channels {last_channel} and {channel})")
                return
        if mine is None and owner is None:
            self.channels[channel] = stand
            self._found(stand, channel)
            if self.mode == "fast":
                self._last = (stand, channel, at)
                self._advance()
            else:
                self.step = "lift"
        elif self.step == "place" and owner is not None and owner != stand and mine is None:
            self.conflict = {"stand": stand, "channel": channel, "owner": owner}
            self._note(f"a token touched {owner}'s sensor while {stand} was asked for")
            self.suspects.setdefault(channel, stand)
        elif owner != stand and channel not in self.suspects:
            self.suspects[channel] = stand
            why = f"{owner}'s sensor" if owner else "a sensor of no stand yet"
            self._note(f"{why} closed while the token was on {stand} (channel {channel}): a bump, or a second "
                       f"sensor under {stand}? The next moves tell")

    def _bumped(self, channel: str, at: float | None) -> bool:
        """Fast walk: tokens stay down, so the channel just recorded opening again means the token
        came off, or a hand brushed a reed with no token: its stand is asked for again."""
        if self._last is None or self._last[1] != channel or self.channels.get(channel) != self._last[0]:
            return False
        stand, _, when = self._last
        if self.done and not (at is not None and when is not None and at - when <= BUMP_S):
            return False  # the board being cleared after the last stand: the read-back
        del self.channels[channel]
        self.queue.insert(0, stand)
        self._last = None
        self._note(f"the token on {stand} came off before the next one was placed: place it on {stand} again")
        return True

    def _opening(self, channel: str, at: float | None) -> None:
        if self.mode == "fast":
            return
        stand = self.current
        assert stand is not None
        mine = self.channel_of(stand)
        if channel == mine and self.step == "lift":
            for ch, when in self._opened.items():  # opened with this token after all: two reeds
                if at is not None and at - when <= TOGETHER_S:
                    self._flag_duplicate(ch)
                    self._note(f"{stand} has two sensors under it (channels {mine} and {ch}: "
                               f"both opened as its token was lifted)")
            self._advance()
            return
        if self.suspects.get(channel) == stand and mine is not None and mine in self._closed:
            # It opened again while this stand's token is still down: not this stand's doing.
            del self.suspects[channel]
            if at is not None:
                self._opened[channel] = at
            self._note(f"a sensor closed and opened while the token sat on {stand}: a bump, ignored "
                       f"(channel {channel})")

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
                self._note(f"{during} has two sensors under it (channels {self.channel_of(during)} and {ch})")

    def _settle(self, stand: str) -> None:
        """``stand`` was skipped with no channel of its own: an earlier stand's channel that closed for
        it is a crossed wire; what else was watched keeps waiting for the next stand."""
        for ch, during in list(self.suspects.items()):
            owner = self.channels.get(ch)
            if during == stand and owner is not None:
                del self.suspects[ch]
                self._flag_duplicate(ch)
                self._note(f"{stand} and {owner} share one sensor: crossed wires? (channel {ch})")

    def skip(self) -> None:
        """No channel answers for the current stand: record it as dead and ask for the next one."""
        if self.done:
            return
        stand = self.current
        assert stand is not None
        self.conflict = None
        if self.channel_of(stand) is None:
            self.dead.append(stand)
            self._note(f"no sensor answered for {stand}")
            self._settle(stand)
        self._advance()

    def redo(self, stand: str) -> None:
        """Walk ``stand`` again, now: its channel and dead mark are forgotten, and the walk asks for it
        before going on (a token left on at the start and lifted since, a slip seen on the map)."""
        if stand not in self.stands:
            raise ValueError(f"there is no stand {stand!r} on this map")
        if self.step == "lift" and self.current != stand:
            raise ValueError(f"lift the token from {self.current} first")
        self._forget(stand)
        if stand in self.queue:
            self.queue.remove(stand)
        self._note(f"{stand} will be walked again")
        if stand == self.current:  # the stand being walked (its token may still be down): ask afresh
            self.step = "place"
            return
        self.queue.insert(0, stand)

    def resolve(self) -> None:
        """The player's answer to the open conflict: "the token *is* on the asked stand".

        The closing channel becomes the asked stand's; the stand it was recorded for is walked again
        next (it was recorded from a token on the wrong stand).
        """
        c = self.conflict
        if c is None:
            raise ValueError("there is no conflict to resolve")
        stand, channel, owner = c["stand"], c["channel"], c["owner"]
        self.conflict = None
        self._forget(owner)
        self.suspects.pop(channel, None)
        self.channels[channel] = stand
        self._note(f"{stand} recorded (channel {channel}); {owner} will be walked again")
        self._found(stand, channel)
        if owner in self.queue:
            self.queue.remove(owner)
        self._redo_next.append(owner)
        if self.mode == "fast" or channel not in self._closed:
            self._last = (stand, channel, None) if self.mode == "fast" else None
            self._advance()
        else:
            self.step = "lift"

    def _forget(self, stand: str) -> None:
        self.channels = {ch: sid for ch, sid in self.channels.items() if sid != stand}
        self.suspects = {ch: sid for ch, sid in self.suspects.items() if sid != stand}
        if stand in self.dead:
            self.dead.remove(stand)
        if stand in self.verified:
            self.verified.remove(stand)

    def back(self) -> None:
        """Go back one stand and walk it again (its channel and dead mark are forgotten)."""
        self.conflict = None
        if self.queue:  # a stand being redone: go back to where the walk was
            if self.step == "lift":
                self._forget(self.queue[0])
                self.step = "place"
            else:
                self.queue.pop(0)
            return
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
        if self.queue:
            self.queue.pop(0)
        else:
            self.index += 1
        # A stand further on that was already walked (redone out of turn) is not asked for twice.
        while self.index < len(self.stands) and self.channel_of(self.stands[self.index]) is not None:
            self.index += 1
        self.queue[0:0] = self._redo_next
        self._redo_next = []
        self.step = "place"
        self._opened = {}
        if self.done:  # nothing after the last stand can claim what is still watched
            for ch, during in list(self.suspects.items()):
                del self.suspects[ch]
                if ch in self._closed or self.channels.get(ch) is None:
                    self._flag_duplicate(ch)
                    self._note(f"{during} has two sensors under it (channels {self.channel_of(during)} and {ch})")

    def by_stand(self) -> dict[str, str]:
        """Each stand's result for the page's map: ``verified`` (recorded and touched in the
        read-back), ``mapped``, ``duplicate`` (its channel also answers elsewhere), ``dead``, or
        ``todo`` (not walked yet)."""
        dup_stands = {self.channels[ch] for ch in self.duplicate if ch in self.channels}
        out: dict[str, str] = {}
        for sid in self.stands:
            if sid in self.dead:
                out[sid] = "dead"
            elif self.channel_of(sid) is None:
                out[sid] = "todo"
            elif sid in dup_stands:
                out[sid] = "duplicate"
            else:
                out[sid] = "verified" if sid in self.verified else "mapped"
        return out

    def open_items(self) -> list[str]:
        """What is still wrong, in words for people: what Save asks the player to confirm."""
        items = []
        if self.conflict is not None:
            items.append(f"a token is on {self.conflict['owner']}'s sensor while {self.conflict['stand']} is asked for")
        if self.dead:
            items.append(f"no sensor answered for {', '.join(self.dead)}")
        if self.duplicate:
            items.append(f"{len(self.duplicate)} sensor(s) answer for two stands or twice for one "
                         f"(channels {', '.join(self.duplicate)})")
        if self.stuck:
            items.append(f"{len(self.stuck)} sensor(s) were closed with no token on them "
                         f"(channels {', '.join(self.stuck)})")
        if self.strays:
            items.append(f"{len(self.strays)} sensor(s) belong to no stand (channels {', '.join(self.strays)})")
        return items

    def status(self) -> dict[str, Any]:
        """What the page shows: where the walk is and what it found so far."""
        return {"stand": self.current, "step": self.step if not self.done else "done",
                "mode": self.mode, "index": self.index, "total": len(self.stands), "done": self.done,
                "channels": dict(self.channels), "dead": list(self.dead), "stuck": list(self.stuck),
                "duplicate": list(self.duplicate), "watching": sorted(self.suspects),
                "notes": list(self.notes[-10:]), "closed": sorted(self._closed),
                "queue": list(self.queue), "conflict": dict(self.conflict) if self.conflict else None,
                "verified": list(self.verified), "strays": list(self.strays), "last_touch": self.last_touch,
                "by_stand": self.by_stand(), "open": self.open_items()}

    # -- resuming --------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"stands": self.stands, "index": self.index, "step": self.step, "channels": self.channels,
                "dead": self.dead, "stuck": self.stuck, "duplicate": self.duplicate, "notes": self.notes,
                "suspects": self.suspects, "closed": sorted(self._closed), "mode": self.mode,
                "queue": self.queue, "conflict": self.conflict, "verified": self.verified,
                "strays": self.strays, "last_touch": self.last_touch, "redo_next": self._redo_next,
                "last": list(self._last) if self._last else None}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SensorWalk:
        walk = cls(list(d["stands"]), mode=str(d.get("mode", "lift")))
        walk.queue = [str(s) for s in d.get("queue", [])]
        walk.conflict = dict(d["conflict"]) if d.get("conflict") else None
        walk.verified = [str(s) for s in d.get("verified", [])]
        walk.strays = [str(s) for s in d.get("strays", [])]
        walk.last_touch = d.get("last_touch")
        walk._redo_next = [str(s) for s in d.get("redo_next", [])]
        last = d.get("last")
        walk._last = (str(last[0]), str(last[1]), last[2]) if last else None
        walk.index = int(d["index"])
        walk.step = str(d["step"])
        walk.channels = {str(k): str(v) for k, v in d["channels"].items()}
        walk.dead, walk.stuck = list(d["dead"]), list(d["stuck"])
        walk.duplicate, walk.notes = list(d["duplicate"]), list(d["notes"])
        walk._closed = set(d.get("closed", []))
        walk.suspects = {str(k): str(v) for k, v in d.get("suspects", {}).items()}
        return walk
