"""The core subscriber that speaks: each batch of effects, said through the game mode's phrases.

The sentences come from the game being played (:func:`kipukas_board.modes.phrases_for`); this only
queues them on the voice port, so a slow speaker never holds the core.

Example::

    >>> from kipukas_board.hardware.voice.simulated import SilentVoice
    >>> voice = SilentVoice()
    >>> Announcer(voice, say_for=lambda effect, state: [effect["text"]]).announce(None, [{"text": "Hello."}])
    ['Hello.']
    >>> voice.spoken
    ['Hello.']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kipukas_board.hardware.voice.port import Voice


class Announcer:
    """Subscriber for the core loop: speaks what each batch of effects means.

Example (not run as a doctest: it needs a running core loop and a voice;
    ``tests/hardware/voice/test_voice.py`` runs it)::

        >>> loop.subscribe(Announcer(voice, say_for=modes.phrases_for).announce)   # doctest: +SKIP
    """

    def __init__(self, voice: Voice, say_for: Callable[[Mapping[str, Any], Any], list[str]]) -> None:
        self.voice = voice
        #: effect, state -> sentences: the game mode's (kipukas_board.modes.phrases_for).
        self.say_for = say_for

    def announce(self, state: Any, effects: Iterable[Mapping[str, Any]]) -> list[str]:
        """Queue the sentences for ``effects``; returns them (for the log and tests)."""
        said: list[str] = []
        for e in effects:
            texts = self.say_for(e, state)
            for text in texts:
                self.voice.say(text)
                said.append(text)
        return said
