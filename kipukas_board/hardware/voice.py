"""The voice port: spoken announcements through the board's speaker.

``say`` never blocks the caller: adapters queue phrases and speak them one after another.

Example::

    >>> from kipukas_board.hardware.voice import SilentVoice
    >>> voice = SilentVoice()
    >>> voice.say("Storm!")
    >>> voice.spoken
    ['Storm!']
"""

from __future__ import annotations

import threading
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


class SilentVoice(Voice):
    """Speaks nothing, remembers everything it was asked to say (for tests and the page's log)."""

    def __init__(self, **_options: Any) -> None:
        self._lock = threading.Lock()
        self.spoken: list[str] = []

    def say(self, text: str) -> None:
        with self._lock:
            self.spoken.append(text)

    def health(self) -> dict[str, Any]:
        return {"adapter": "silent", "ok": True, "spoken": len(self.spoken)}
