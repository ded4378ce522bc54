"""The silent voice: speaks nothing and remembers every phrase, for tests and the page.

Example::

    >>> from kipukas_board.hardware.voice.simulated import SilentVoice
    >>> voice = SilentVoice()
    >>> voice.say("Storm!")
    >>> voice.spoken
    ['Storm!']
"""

from __future__ import annotations

import threading
from typing import Any

from kipukas_board.hardware.voice.port import Voice


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
