"""The voice port: spoken announcements through the board's speaker.

``say`` never blocks the caller: adapters queue phrases and speak them one after another.

Example::

    >>> from kipukas_board.hardware.voice.simulated import SilentVoice
    >>> voice = SilentVoice()
    >>> voice.say("Storm!")
    >>> voice.spoken
    ['Storm!']
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class Voice(ABC):
    """Port for the speaker."""

    @abstractmethod
    def say(self, text: str) -> None:
        """Queue ``text`` to be spoken; returns at once."""

    def close(self) -> None:
        """Stop speaking and release the device."""

    def health(self) -> dict[str, Any]:
        return {"adapter": type(self).__name__, "ok": True}
