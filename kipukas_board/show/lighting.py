"""The thread that keeps the strip animated, whatever game is played.

A game mode's renderer (:func:`kipukas_board.modes.render`: state, layout, time, scene → pixels) is
pure, so what the strip shows can be tested without a strip. :class:`Lighting` subscribes to the
core: :meth:`Lighting.update` renders the new state at once (so ``GET /api/leds`` is current when the
core's subscribers return) and wakes a thread of its own that sends frames to the strip, at
:data:`FPS` frames a second while something animates and not at all while nothing does. A slow or
failing strip therefore never blocks the core. Gamma, brightness and the power cap are applied
after the renderer, by :class:`~kipukas_board.show.power.OutputStage`, on the way to the wire.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from kipukas_board.board.graph import LAND, reachable
from kipukas_board.hardware.leds.port import LedStrip
from kipukas_board.show.colors import OFF, RGB, WHITE, hex_to_rgb, rgb_to_hex
from kipukas_board.show.layout import LedLayout
from kipukas_board.table.state import TableState

__all__ = ["Lighting", "Scene", "ShownGame", "hex_to_rgb", "rgb_to_hex", "seat_rgb"]

log = logging.getLogger(__name__)

FPS = 30
#: How long the stands a scanned soul can reach blink.
REACHABLE_S = 10.0


@dataclass(frozen=True)
class Scene:
    """What the renderer needs beyond the state: when timed shows started (on the lighting's clock)."""

    storm_at: float | None = None
    exposed: tuple[str, ...] = ()
    won_at: float | None = None
    reachable: tuple[str, ...] = ()
    reachable_color: RGB = WHITE
    reachable_until: float = 0.0
    fault: bool = False
    #: A game mode's timed show: the last effect that asked for one (``"flash": true``) and when it came.
    flash_at: float | None = None
    flash: dict[str, Any] | None = None


class ShownGame(Protocol):
    """What the lights ask of the game on the table (:mod:`kipukas_board.modes` answers for every game)."""

    def render(self, state: TableState, layout: LedLayout, t: float = 0.0, scene: Any = None) -> list[RGB]:
        """The frame for ``state`` at animation time ``t``."""
        ...

    def animating(self, state: TableState, scene: Scene, t: float) -> bool:
        """Does the frame change with time now (so the thread keeps drawing)?"""
        ...

    def seat_color(self, state: TableState, seat: int | None) -> str | None:
        """The ``"#rrggbb"`` colour of the player at ``seat``."""
        ...

    def winner(self, state: TableState) -> int | None:
        """The seat that won the game on the table, if it is won."""
        ...


def seat_rgb(game: ShownGame, state: TableState, seat: int | None, unknown: RGB) -> RGB:
    """The colour of the player at ``seat``, or ``unknown`` when there is none or it is not a colour."""
    color = game.seat_color(state, seat)
    if color is None:
        return unknown
    try:
        return hex_to_rgb(color)
    except ValueError:
        return unknown


HealthCheck = Callable[[], bool]


@dataclass
class _Stats:
    frames: int = 0
    errors: int = 0
    shown_at: list[float] = field(default_factory=list)
    render_ms: float = 0.0


#: The longest strip the board drives (a 12-territory build uses about 200 pixels; each pixel costs
#: a few bytes a frame and up to 60 mA, so a count far beyond this is a typing slip).
MAX_PIXELS = 2000


class Lighting:
    """Keeps the strip showing the latest state; :meth:`update` is the core's subscriber.

    ``healthy`` is called (from the lighting thread, at most once a second) to learn whether the rest
    of the hardware is well; when it returns False (or raises) the fault pixels blink. ``clock`` is
    injectable so tests can step time.

    Example (not run as a doctest: it needs a running core loop; ``tests/show/test_lighting.py`` runs it)::

        >>> lighting = Lighting(SimulatedLedStrip(count=layout.count), layout)   # doctest: +SKIP
        >>> loop.subscribe(lighting.update); lighting.start(loop.state)          # doctest: +SKIP
    """

    def __init__(self, strip: LedStrip, layout: LedLayout, healthy: HealthCheck | None = None,
                 clock: Callable[[], float] = time.monotonic, fps: float = FPS,
                 *, game: ShownGame) -> None:
        self._game = game
        self._render = game.render
        self._animating = game.animating
        self.strip = strip
        self.layout = layout
        self.stage = layout.output_stage()
        self._healthy = healthy
        self._clock = clock
        self._period = 1.0 / fps
        self._state: TableState | None = None
        self._scene = Scene()
        self._frame: list[RGB] = [OFF] * layout.count
        self._wire: list[RGB] = [OFF] * layout.count
        self._dirty = False
        self._test_frame: list[RGB] | None = None
        self._cond = threading.Condition()
        #: Held while a frame goes to the strip, so its length never changes under a frame.
        self._strip_lock = threading.Lock()
        self._stop = False
        self._stats = _Stats()
        self._next_health = 0.0
        self._thread = threading.Thread(target=self._run, name="lighting", daemon=True)

    # -- called by the core and the app ----------------------------------------------------------
    def start(self, state: TableState) -> None:
        self.update(state)
        self._thread.start()

    def update(self, state: TableState, effects: Iterable[dict[str, Any]] | None = None) -> None:
        """Take a new state (and the effects that made it); renders at once, never waits on the strip."""
        now = self._clock()
        with self._cond:
            prev = self._state
            scene = self._scene
            for e in effects or ():
                kind = e.get("type")
                if kind == "storm" or (kind == "diel" and e.get("phase") == "storm"):
                    scene = replace(scene, storm_at=now, exposed=tuple(e.get("exposed", scene.exposed)))
                elif kind == "won":
                    scene = replace(scene, won_at=now)
                elif kind == "reachable":
                    scene = self._reachable_scene(state, scene, e, now)
                if e.get("flash"):
                    scene = replace(scene, flash_at=now, flash=dict(e))
            won = self._game.winner(state)
            if won is not None and scene.won_at is None and prev is not None and self._game.winner(prev) is None:
                scene = replace(scene, won_at=now)
            if won is None and scene.won_at is not None:
                scene = replace(scene, won_at=None)
            self._state, self._scene = state, scene
            self._frame = self._render(state, self.layout, now, scene)
            self._dirty = True
            self._cond.notify()

    def show_test_frame(self, frame: Sequence[RGB]) -> None:
        """Hold ``frame`` on the strip (calibration) until :meth:`end_test_frame`; game states wait.

        The frame still goes through the output stage, so the power cap protects the supply.
        """
        if len(frame) != self.layout.count:
            raise ValueError(f"test frame has {len(frame)} pixels, the layout has {self.layout.count}")
        with self._cond:
            self._test_frame = [tuple(p) for p in frame]  # type: ignore[misc]
            self._dirty = True
            self._cond.notify()

    def set_layout(self, layout: LedLayout, state: TableState | None = None) -> None:
        """Light by ``layout`` from now on (the calibration walk saved new segments; with ``state``,
        another map was put on the table and the two change together, so no frame draws one map by
        the other's layout).

        The layout is swapped whole, under the lock the lighting thread reads it under, so a frame is
        never rendered from a layout half-way through a change (the old layout's dicts are left as
        they were). Its output stage (gamma, brightness, power budget) is rebuilt from it too. Raises
        ValueError, changing nothing, when ``layout.count`` is not the strip's length: every frame
        must fill the strip exactly (the length changes only through :meth:`set_length`).
        """
        if layout.count != self.strip.count:
            raise ValueError(f"the LED layout has {layout.count} pixels, the strip has {self.strip.count}")
        stage = layout.output_stage()
        now = self._clock()
        with self._cond:
            self.layout, self.stage = layout, stage
            if state is not None:
                self._state, self._scene = state, Scene()
            if self._state is not None:
                self._frame = self._render(self._state, layout, now, self._scene)
            self._dirty = True
            self._cond.notify()

    def can_resize(self) -> bool:
        """Can :meth:`set_length` grow or shrink the strip while the board runs (its adapter allows)?"""
        return type(self.strip).resize is not LedStrip.resize

    def set_length(self, count: int) -> None:
        """Drive a strip of ``count`` pixels from now on (the LED walk: the owner counted the real strip).

        Raises ValueError, changing nothing, when the adapter cannot (rpi-ws281x fixes the length when
        the strip opens) or when the layout lights pixels beyond ``count``.
        """
        if not 1 <= count <= MAX_PIXELS:
            raise ValueError(f"a strip of {count} pixels: expected 1 to {MAX_PIXELS}")
        layout = replace(self.layout, length=count)
        if layout.count != count:
            raise ValueError(f"the LED layout lights pixels up to {layout.count}; the strip cannot be {count} long")
        with self._strip_lock:
            self.strip.resize(count)
            self.set_layout(layout)

    def end_test_frame(self) -> None:
        """Go back to showing the game."""
        with self._cond:
            self._test_frame = None
            self._dirty = True
            self._cond.notify()

    def show_reachable(self, stands: Collection[str], color: RGB = WHITE, seconds: float = REACHABLE_S) -> None:
        """Blink ``stands`` in ``color`` for ``seconds`` (where a scanned soul can move)."""
        now = self._clock()
        with self._cond:
            self._scene = replace(self._scene, reachable=tuple(stands), reachable_color=color,
                                  reachable_until=now + seconds)
            self._dirty = True
            self._cond.notify()

    def _reachable_scene(self, state: TableState, scene: Scene, e: dict[str, Any], now: float) -> Scene:
        """``{"type": "reachable", "stands": [...]}`` or ``{"from": id, "moves": n, "kinds": [...]}``,
        with an optional ``"seat"`` (colour) and ``"seconds"``."""
        try:
            if "stands" in e:
                stands = tuple(str(s) for s in e["stands"])
            else:
                dist = reachable(state.board, str(e["from"]), int(e["moves"]), e.get("kinds") or LAND)
                stands = tuple(s for s, d in dist.items() if d > 0)
        except (KeyError, ValueError, TypeError) as exc:
            log.warning("ignoring reachable effect %r: %s", e, exc)
            return scene
        color = seat_rgb(self._game, state, e.get("seat"), WHITE)
        return replace(scene, reachable=stands, reachable_color=color,
                       reachable_until=now + float(e.get("seconds", REACHABLE_S)))

    def frame(self) -> list[RGB]:
        """The frame last rendered, in logical colours (before gamma, brightness and the power cap)."""
        with self._cond:
            return list(self._frame)

    def wire_frame(self) -> list[RGB]:
        """The values last sent to the strip (after gamma, brightness and the power cap)."""
        with self._cond:
            return list(self._wire)

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
        now = self._clock()
        with self._cond:
            recent = [x for x in self._stats.shown_at if now - x <= 1.0]
            h.update(errors=self._stats.errors, frames_sent=self._stats.frames, fps=len(recent),
                     render_ms=round(self._stats.render_ms, 3), fault_shown=self._scene.fault,
                     estimated_ma=round(self.stage.last_estimate_ma, 1),
                     power_budget_ma=self.stage.budget_ma, power_scale=round(self.stage.last_scale, 3))
        return h

    # -- the lighting thread -----------------------------------------------------------------------
    def _check_health(self, now: float) -> None:
        if self._healthy is None or now < self._next_health:
            return
        self._next_health = now + 1.0
        try:
            ok = bool(self._healthy())
        except Exception:
            log.exception("health callback failed")
            ok = False
        with self._cond:
            if self._scene.fault == ok:
                self._scene = replace(self._scene, fault=not ok)
                self._dirty = True

    def _run(self) -> None:
        next_at = self._clock()
        while True:
            self._check_health(self._clock())
            with self._cond:
                if self._stop:
                    return
                if not self._dirty:
                    now = self._clock()
                    anim = self._state is not None and self._animating(self._state, self._scene, now)
                    wait = (next_at - now) if anim else 1.0
                    if wait > 0:
                        self._cond.wait(wait)
                        if self._stop:
                            return
                        if not self._dirty and not (anim and self._clock() >= next_at):
                            continue  # woken early, or a quiet second passed: look at health again
                now = self._clock()
                state, scene, test = self._state, self._scene, self._test_frame
                layout, stage = self.layout, self.stage  # one layout per frame (set_layout swaps both)
                self._dirty = False
            if state is None and test is None:
                continue
            t0 = time.perf_counter()
            frame = list(test) if test is not None else self._render(state, layout, now, scene)
            wire = stage.apply(frame)
            with self._cond:
                self._stats.render_ms = (time.perf_counter() - t0) * 1000
                self._frame = frame
                self._wire = wire
            try:
                with self._strip_lock:
                    if len(wire) != self.strip.count:  # rendered just before set_length: the next one fits
                        continue
                    self.strip.show(wire)
            except Exception:
                with self._cond:
                    self._stats.errors += 1
                log.exception("LED strip refused a frame")
            else:
                with self._cond:
                    self._stats.frames += 1
                    shown = self._stats.shown_at
                    shown.append(now)
                    if len(shown) > 4 * FPS:
                        del shown[: 2 * FPS]
            next_at = max(next_at + self._period, now)
