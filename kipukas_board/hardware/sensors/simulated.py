"""The simulated stand sensors: switches set by tests and the page, like gpiozero's MockFactory pins.

In ``run --sim`` the page's ``POST /api/sim/stands/<id>`` flips these; tests drive them directly.

Example::

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

import hashlib
import threading
from typing import Any

from kipukas_board.hardware.sensors.port import Emit, StandSensors, SwitchChange


class SimulatedStandSensors(StandSensors):
    """Switches that tests and the page flip by hand; the channel is the stand id.

    Setting a switch to the state it already has reports nothing, as a real debounced switch would.

    With ``channels="matrix"`` the switches report anonymous matrix positions (``"r3c5"``) wired
    to the stands in a scrambled but repeatable order (``seed``), as a real sensor board does
    before calibration: :meth:`set` still takes the *stand* (where the hand puts the token).
    """

    def __init__(self, channels: str = "stand", seed: int = 7, **_options: Any) -> None:
        if channels not in ("stand", "matrix"):
            raise ValueError(f'sensors option channels = {channels!r}; expected "stand" or "matrix"')
        self.channels = channels
        self.seed = seed
        self._wiring: dict[str, str] = {}
        self._lock = threading.Lock()
        self._closed: dict[str, bool] = {}
        self._emit: Emit | None = None

    def channel_for(self, stand: str) -> str:
        """The channel the switch under ``stand`` reports on (the stand itself unless "matrix")."""
        if self.channels == "stand":
            return stand
        with self._lock:
            if stand not in self._wiring:
                used = set(self._wiring.values())
                h = int.from_bytes(hashlib.sha256(f"{self.seed}:{stand}".encode()).digest()[:4], "big")
                while f"r{h % 16}c{(h // 16) % 16}" in used:
                    h += 1
                self._wiring[stand] = f"r{h % 16}c{(h // 16) % 16}"
            return self._wiring[stand]

    def start(self, emit: Emit) -> None:
        self._emit = emit

    def stop(self) -> None:
        self._emit = None

    def snapshot(self) -> dict[str, bool]:
        with self._lock:
            return dict(self._closed)

    def set(self, channel: str, closed: bool) -> bool:
        """Close or open the switch on ``channel`` (a stand id); returns True if that was a change.

        If the consumer refuses the change (raises: the journal could not record it), the switch is
        put back as it was and the error passes on: a simulated hand that could not be recorded did
        not move the token, so the switch never differs from what was journaled.
        """
        channel = self.channel_for(channel)
        with self._lock:
            before = self._closed.get(channel, False)
            if before == closed:
                return False
            self._closed[channel] = closed
            emit = self._emit
        if emit is not None:
            try:
                emit(SwitchChange(channel, closed))
            except BaseException:
                with self._lock:
                    if self._closed.get(channel) == closed:
                        self._closed[channel] = before
                raise
        return True

    def clear(self) -> None:
        """Lift every token without reporting it: the board changed to another map, whose journal
        starts bare (the simulated hand then puts tokens on the new map's stands)."""
        with self._lock:
            self._closed.clear()
            self._wiring.clear()

    def health(self) -> dict[str, Any]:
        return {"adapter": "sim", "ok": True}
