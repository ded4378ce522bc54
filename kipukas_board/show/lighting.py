"""From game state to LED frames.

:func:`render` is pure (state, layout, time → pixels), so what the strip shows can be tested
without a strip. :class:`Lighting` subscribes to the core, renders each new state at once and hands
the frame to a thread of its own that talks to the strip, so a slow strip never blocks the core.

Colours, in the foundation: an unclaimed territory glows dim; a claimed one takes its holder's
colour (a warm white while the holder is unknown); a stand's pixel shows the colour of the token on
it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from kipukas_board.game.state import GameState
from kipukas_board.hardware.leds import RGB, LedStrip
from kipukas_board.show.layout import LedLayout

log = logging.getLogger(__name__)

OFF: RGB = (0, 0, 0)
UNCLAIMED: RGB = (24, 24, 24)
CLAIMED_UNKNOWN: RGB = (200, 170, 120)
TOKEN_UNKNOWN: RGB = (255, 255, 255)


def hex_to_rgb(color: str) -> RGB:
    """``"#ff8800"`` → ``(255, 136, 0)``."""
    c = color.lstrip("#")
    if len(c) != 6:
        raise ValueError(f"colour {color!r} is not #rrggbb")
    return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16))


def rgb_to_hex(rgb: Sequence[int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _owner_rgb(state: GameState, seat: int | None, unknown: RGB) -> RGB:
    p = state.player(seat)
    return hex_to_rgb(p.color) if p else unknown


def territory_color(state: GameState, number: int) -> RGB:
    t = state.territories[number]
    if t.claim is None:
        return UNCLAIMED
    return _owner_rgb(state, t.owner, CLAIMED_UNKNOWN)


def render(state: GameState, layout: LedLayout, t: float = 0.0) -> list[RGB]:
    """The frame for ``state`` at animation time ``t`` seconds."""
    frame: list[RGB] = [OFF] * layout.count
    for n, pixels in layout.territories.items():
        if n in state.territories:
            c = territory_color(state, n)
            for i in pixels:
                frame[i] = c
    for sid, pixels in layout.stands.items():
        st = state.stands.get(sid)
        c = _owner_rgb(state, st.owner, TOKEN_UNKNOWN) if st and st.occupied else OFF
        for i in pixels:
            frame[i] = c
    return frame


class Lighting:
    """Keeps the strip showing the latest state; call :meth:`update` from the core's subscriber."""

    def __init__(self, strip: LedStrip, layout: LedLayout) -> None:
        self.strip = strip
        self.layout = layout
        self._frame: list[RGB] = [OFF] * layout.count
        self._pending: list[RGB] | None = None
        self._cond = threading.Condition()
        self._stop = False
        self._errors = 0
        self._thread = threading.Thread(target=self._run, name="lighting", daemon=True)

    def start(self, state: GameState) -> None:
        self.update(state)
        self._thread.start()

    def update(self, state: GameState, effects: Any = None) -> None:
        frame = render(state, self.layout)
        with self._cond:
            self._frame = frame
            self._pending = frame
            self._cond.notify()

    def frame(self) -> list[RGB]:
        """The frame last handed to the strip."""
        with self._cond:
            return list(self._frame)

    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join(2.0)
        self.strip.close()

    def health(self) -> dict[str, Any]:
        h = dict(self.strip.health())
        h["errors"] = self._errors
        return h

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._pending is None and not self._stop:
                    self._cond.wait()
                if self._stop:
                    return
                frame, self._pending = self._pending, None
            try:
                self.strip.show(frame)
            except Exception:
                self._errors += 1
                log.exception("LED strip refused a frame")
