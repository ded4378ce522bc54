"""The speaker through espeak-ng (Debian package ``espeak-ng``): offline, small, fast on a Pi.

Phrases go into a queue and one worker thread speaks them one after another, so announcements never
overlap and :meth:`EspeakVoice.say` never blocks the core. espeak-ng is started with an argument
list (never a shell) and the text is written to its standard input (``--stdin``), so a phrase that
starts with ``-`` or holds ``$(...)`` is only ever spoken, never interpreted.

Settings::

    [voice]
    adapter = "espeak"
    voice = "en"        # espeak-ng -v
    speed = 165         # words a minute (espeak-ng -s)
    volume = 80         # 0-100 (espeak-ng -a 0-200 is its amplitude)
    muted = false
    device = ""         # optional: an ALSA device, e.g. "plughw:1,0" (played with aplay)

Example (not run as a doctest: it needs espeak-ng and a speaker; ``tests/hardware/voice/test_voice.py`` runs it)::

    >>> voice = EspeakVoice(volume=50)          # doctest: +SKIP
    >>> voice.say("Storm! Stands M 3 A and M 4 B are exposed.")   # doctest: +SKIP
    >>> voice.render_wav("Day two.", "/tmp/day.wav")             # doctest: +SKIP
"""

from __future__ import annotations

import collections
import logging
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

from kipukas_board.hardware.voice.port import Voice

log = logging.getLogger(__name__)

#: Longest a single phrase may take before the worker gives up on it.
PHRASE_TIMEOUT_S = 30.0
#: Phrases waiting beyond this are dropped, oldest first (a backlog of stale news helps nobody).
MAX_QUEUE = 16


class EspeakVoice(Voice):
    """Speaks through espeak-ng, one phrase at a time. Raises ValueError if espeak-ng is missing."""

    def __init__(self, voice: str = "en", speed: int = 165, volume: int = 80, muted: bool = False,
                 device: str = "", command: str = "espeak-ng", max_queue: int = MAX_QUEUE,
                 **_options: Any) -> None:
        path = shutil.which(command)
        if path is None:
            raise ValueError(f"voice: {command!r} is not installed (apt install espeak-ng), "
                             f'or set [voice] adapter = "silent"')
        self.command = path
        self.voice = str(voice)
        self.speed = int(speed)
        self.device = str(device)
        self.muted = bool(muted)
        self.volume = 0
        self.set_volume(volume)
        self.max_queue = int(max_queue)
        self._queue: collections.deque[str] = collections.deque()
        self._cond = threading.Condition()
        self._closed = False
        self._busy = False
        self.spoken = 0
        self.dropped = 0
        self.errors = 0
        self.last_error = ""
        self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
        self._thread.start()

    # -- controls ---------------------------------------------------------------------------------
    def set_volume(self, volume: int) -> None:
        """0-100; ValueError outside that."""
        v = int(volume)
        if not 0 <= v <= 100:
            raise ValueError(f"voice volume {volume!r} must be from 0 to 100")
        self.volume = v

    def mute(self, muted: bool = True) -> None:
        """While muted, phrases are counted and dropped, not queued."""
        self.muted = bool(muted)

    def args(self, wav: str | None = None) -> list[str]:
        """The espeak-ng argument list (the text goes to its stdin)."""
        a = [self.command, "-v", self.voice, "-s", str(self.speed), "-a", str(self.volume * 2)]
        if wav is not None:
            a += ["-w", wav]
        elif self.device:
            a += ["--stdout"]
        return [*a, "--stdin"]

    # -- the port ---------------------------------------------------------------------------------
    def say(self, text: str) -> None:
        text = " ".join(str(text).split())
        if not text:
            return
        with self._cond:
            if self.muted or self._closed:
                self.dropped += 1
                return
            self._queue.append(text)
            while len(self._queue) > self.max_queue:
                self._queue.popleft()
                self.dropped += 1
            self._cond.notify()

    def render_wav(self, text: str, path: str | Path) -> Path:
        """Speak ``text`` into a WAV file (synchronously, not through the queue)."""
        out = Path(path)
        subprocess.run(self.args(str(out)), input=str(text).encode(), check=True,
                       timeout=PHRASE_TIMEOUT_S, capture_output=True)
        return out

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until the queue is empty and nothing is being spoken (for tests and ``say``)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._busy, timeout)

    def pending(self) -> int:
        with self._cond:
            return len(self._queue) + (1 if self._busy else 0)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify_all()
        self._thread.join(PHRASE_TIMEOUT_S + 1)

    def alive(self) -> bool:
        """True while the speaking thread runs (the service's watchdog asks).

        It starts with the adapter and ends with :meth:`close`. A phrase that fails is counted in
        :meth:`health` and does not end it; if the thread dies anyway, every later phrase would sit
        in the queue unspoken, and only a restart of the service brings the voice back.
        """
        return self._thread.is_alive()

    def health(self) -> dict[str, Any]:
        with self._cond:
            queued = len(self._queue)
        return {"adapter": "espeak", "ok": self._thread.is_alive() and not self.last_error,
                "muted": self.muted, "volume": self.volume, "queued": queued, "spoken": self.spoken,
                "dropped": self.dropped, "errors": self.errors, "last_error": self.last_error}

    # -- the worker ---------------------------------------------------------------------------------
    def _speak(self, text: str) -> None:
        data = text.encode()
        if self.device:
            # espeak-ng writes a WAV to stdout; aplay plays it on the chosen ALSA device.
            with subprocess.Popen(self.args(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL) as synth:
                assert synth.stdin is not None
                synth.stdin.write(data)  # a phrase is far smaller than a pipe's buffer
                synth.stdin.close()
                play = subprocess.run(["aplay", "-q", "-D", self.device], stdin=synth.stdout,
                                      capture_output=True, timeout=PHRASE_TIMEOUT_S, check=False)
                synth.wait(PHRASE_TIMEOUT_S)
            if play.returncode != 0:
                raise RuntimeError(f"aplay -D {self.device} failed: {play.stderr.decode(errors='replace').strip()}")
            return
        done = subprocess.run(self.args(), input=data, capture_output=True, timeout=PHRASE_TIMEOUT_S,
                              check=False)
        if done.returncode != 0:
            raise RuntimeError(f"espeak-ng exited {done.returncode}: "
                               f"{done.stderr.decode(errors='replace').strip()}")

    def _run(self) -> None:
        while True:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                text = self._queue.popleft()
                self._busy = True
            try:
                self._speak(text)
                self.spoken += 1
                self.last_error = ""
            except Exception as exc:  # a broken speaker must not stop the board
                self.errors += 1
                self.last_error = str(exc)
                log.warning("voice: could not speak %r: %s", text, exc)
