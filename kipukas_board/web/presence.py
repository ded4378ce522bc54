"""Proof that someone is at the table: a token put on a stand the page names, then lifted again.

Once wrong PINs board-wide reach their limit (:class:`~kipukas_board.web.auth.WrongPinLimiter`), no
address on the network may try another PIN, however new: a guest can take as many addresses as the
network gives out (on IPv6, at will). Only a phone whose holder proves presence at the board itself
may try again. The phone asks for a challenge (``POST /api/pin/presence``) and is told a stand that
is empty now; once a token is put on that stand and lifted again (the board sees both), the phone's
challenge token (sent back in ``X-Presence``) admits :data:`TRIES` PIN tries within :data:`PROOF_S`
seconds, whatever the board-wide count. Nobody on the network can move a token; in simulation the
simulation route stands in for a hand, as it does for every token.

Challenges are few and short-lived: one per address (an IPv6 address by its /64; a new request from
it replaces its old one), at most :data:`MAX_OPEN` at once, each for :data:`CHALLENGE_S` seconds.
When all are taken, the oldest still waiting for its token makes room for the newcomer, so guests
asking from many addresses cannot keep the admin from getting one; a challenge whose token is
already on its stand (someone is at the table) is never the one to go.
Time is the monotonic clock: setting the board's clock does not stretch a challenge or a proof.

Example::

    >>> check = PresenceCheck(clock=lambda: 0.0)
    >>> c = check.challenge("10.0.0.7", {"T1": True, "M1": False})
    >>> c.stand, check.admits(c.token)
    ('M1', False)
    >>> check.observe({"T1": True, "M1": True}); check.observe({"T1": True, "M1": False})
    >>> check.admits(c.token)
    True
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kipukas_board.web.sse import address_key

#: Seconds a challenge waits for its token to be put on and lifted.
CHALLENGE_S = 180.0
#: Seconds a proof admits PIN tries.
PROOF_S = 600.0
#: PIN tries a proof admits.
TRIES = 3
#: Challenges open at once, at most (one per address).
MAX_OPEN = 16
#: Stage names a challenge goes through.
WAITING, ON, PROVEN = "waiting", "token on", "proven"


class NoChallenge(RuntimeError):
    """No challenge can be given now (the message says why)."""


@dataclass
class Challenge:
    token: str
    stand: str
    client: str
    issued: float
    stage: str = WAITING
    proven_at: float = 0.0
    tries: int = TRIES

    def to_json(self, now: float) -> dict[str, object]:
        left = (self.issued + CHALLENGE_S if self.stage != PROVEN else self.proven_at + PROOF_S) - now
        return {"stage": self.stage, "stand": self.stand, "expires_in": max(0, round(left)),
                "tries": self.tries if self.stage == PROVEN else None,
                "say": (f"Put a token on stand {self.stand}, then lift it again." if self.stage == WAITING else
                        f"Now lift the token from stand {self.stand}." if self.stage == ON else
                        "Presence shown: enter the PIN on this phone.")}


class PresenceCheck:
    """Gives challenges, watches the stands for them (:meth:`observe`), and admits proven phones."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._open: dict[str, Challenge] = {}  # token -> challenge
        self._occupied: dict[str, bool] = {}
        self.replaced = 0  #: waiting challenges that made room for a newer one when all were taken

    def _expire(self, now: float) -> None:
        for token, c in list(self._open.items()):
            if (c.stage == PROVEN and (now - c.proven_at > PROOF_S or c.tries <= 0)) or (
                    c.stage != PROVEN and now - c.issued > CHALLENGE_S):
                del self._open[token]

    def challenge(self, client: str, occupied: Mapping[str, bool]) -> Challenge:
        """A new challenge for ``client`` naming an empty stand; raises :class:`NoChallenge`."""
        key = address_key(client)
        now = self._clock()
        with self._lock:
            self._expire(now)
            for token, c in list(self._open.items()):
                if c.client == key and c.stage != PROVEN:
                    del self._open[token]  # its newer request replaces it
            if len(self._open) >= MAX_OPEN:
                waiting = [c for c in self._open.values() if c.stage == WAITING]
                if not waiting:
                    raise NoChallenge(f"{MAX_OPEN} phones are already proving presence; try again in a few minutes")
                del self._open[min(waiting, key=lambda c: c.issued).token]
                self.replaced += 1
            taken = {c.stand for c in self._open.values() if c.stage != PROVEN}
            empty = sorted(s for s, on in occupied.items() if not on and s not in taken)
            if not empty:
                raise NoChallenge("no stand is empty to put a token on; lift one and ask again")
            c = Challenge(secrets.token_urlsafe(18), secrets.choice(empty), key, now)
            self._open[c.token] = c
            self._occupied.update(occupied)
            return c

    def stats(self) -> dict[str, int]:
        """For the board's health: challenges open now, the most at once, and those that made room."""
        with self._lock:
            self._expire(self._clock())
            return {"open": len(self._open), "limit": MAX_OPEN, "replaced": self.replaced}

    def observe(self, occupied: Mapping[str, bool]) -> None:
        """The stands as the board sees them now (a core-loop subscriber calls this on every change)."""
        now = self._clock()
        with self._lock:
            for c in self._open.values():
                on = occupied.get(c.stand, False)
                if c.stage == WAITING and on and not self._occupied.get(c.stand, False):
                    c.stage = ON
                elif c.stage == ON and not on:
                    c.stage, c.proven_at = PROVEN, now
            self._occupied = dict(occupied)

    def status(self, token: str | None) -> dict[str, object] | None:
        """What the phone holding ``token`` should do now (None: no such challenge, or it expired)."""
        now = self._clock()
        with self._lock:
            self._expire(now)
            c = self._open.get(token or "")
            return c.to_json(now) if c is not None else None

    def admits(self, token: str | None) -> bool:
        """Does ``token`` hold a proof with tries left?"""
        now = self._clock()
        with self._lock:
            self._expire(now)
            c = self._open.get(token or "")
            return c is not None and c.stage == PROVEN and c.tries > 0

    def spend(self, token: str | None) -> None:
        """One PIN try made under the proof of ``token``."""
        with self._lock:
            c = self._open.get(token or "")
            if c is not None:
                c.tries -= 1
