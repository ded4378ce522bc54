"""The stand-sensor port: reed switches under the stands, reported by channel.

A reed switch only says "something magnetic is here". Adapters report *channels* (a GPIO pin, a
matrix position on the sensor board, or in simulation the stand id itself); the runtime maps
channels to stands with the board's calibration, so the same adapter serves any map, and the
calibration walk-through can listen to channels no stand has yet.

Adapters debounce before they report (firmware or our own code, never a library's bounce timer), so
each :class:`SwitchChange` is a settled change.

Example, in simulation::

    >>> from kipukas_board.hardware.sensors.simulated import SimulatedStandSensors
    >>> seen = []
    >>> sensors = SimulatedStandSensors()
    >>> sensors.start(seen.append)
    >>> sensors.set("T1", True)
    True
    >>> seen
    [SwitchChange(channel='T1', closed=True)]
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SwitchChange:
    """One settled change of one switch: ``closed`` is True when a magnet is over it.

    ``at`` is when the adapter saw it (``time.monotonic()`` when the change is made, which adapters
    do as they read the switches). Adapters hand over the changes of one read one at a time, each
    after the consumer finished with the previous one, so the time a consumer takes one is late by
    whatever the consumer did before; the calibration walk tells two reeds that opened together
    from noise by these times. It takes no part in equality or the repr: two changes of the same
    switch to the same state are the same change.
    """

    channel: str
    closed: bool
    at: float = field(default_factory=time.monotonic, compare=False, repr=False)


Emit = Callable[[SwitchChange], None]

log = logging.getLogger(__name__)


def emit_guarded(emit: Callable[..., object] | None, *args: object) -> bool:
    """Call ``emit(*args)`` for an adapter's reader thread; True if it returned normally.

    An exception there is the consumer's fault, not the switches': it is logged and swallowed so
    that one bad consumer cannot end the thread that reads the switches (after which the watchdog
    would restart the whole board). Every adapter with a thread of its own delivers through this.
    """
    if emit is None:
        return False
    try:
        emit(*args)
    except Exception:
        log.exception("the consumer refused %r", args[0] if args else None)
        return False
    return True


class StandSensors(ABC):
    """Port for the stand sensors. Call :meth:`start` once with the function that takes changes."""

    @abstractmethod
    def start(self, emit: Emit) -> None:
        """Begin reporting: every settled change is passed to ``emit`` (from any thread)."""

    @abstractmethod
    def stop(self) -> None:
        """Stop reporting and release the hardware."""

    @abstractmethod
    def snapshot(self) -> dict[str, bool]:
        """The current state of every channel this adapter knows (True = closed)."""

    def health(self) -> dict[str, Any]:
        """A small JSON-able report for the page (link state, faults). Adapters add fields."""
        return {"adapter": type(self).__name__, "ok": True}
