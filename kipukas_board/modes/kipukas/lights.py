"""Kipukas on the LEDs: from the table's state to a frame, pure (state, layout, time, scene → pixels),
so what the strip shows can be tested without a strip. The strip thread that calls it is
:class:`kipukas_board.show.lighting.Lighting`, the same for every game mode.

What the players see (the colours the page shows too; gamma, brightness and the power cap are
applied after, by :class:`~kipukas_board.show.power.OutputStage`, on the way to the wire):

* a held territory: its holder's colour on every pixel; a **capital** mixes every second pixel of
  its segment (pixels 1, 3, ...) half-way to white, so it reads as a crown of sparkles (a one-pixel
  segment has no second pixel: its capital is :data:`SINGLE_PIXEL_CROWN` of the way to white);
* an unclaimed territory: a dim ambient glow: neutral before play, **warm** by day, a slowly
  breathing **cool** blue at night, storm grey in a storm;
* at **night** held territories drop to :data:`NIGHT_LEVEL` of their colour (the board sleeps);
* a territory in **contention** cycles smoothly between its contenders' colours (each shown in turn
  for :data:`CONTENTION_PERIOD` seconds; with one known contender, between its colour and white);
* a **storm**: :data:`LIGHTNING_S` of lightning flashes over the whole strip, then the stands the
  storm exposed pulse between their token's colour and dark (a territory whose stands have no
  pixels of their own pulses as a whole);
* a **win**: a chase in the winner's colour for :data:`WIN_SHOW_S` seconds, then every territory
  steady in the winner's colour;
* a territory stand **waiting for an attacker's soul** (the holder lost the fight, or the base camp
  token is being swapped) pulses in the attacker's colour; without pixels of its own, its
  territory's segment alternates between the holder's and the attacker's colour;
* the **reachable stands** of a scanned soul blink in its owner's colour for a few seconds;
* a **fault** (a health callback says some hardware is unhealthy): the layout's fault pixels blink
  red, once a second.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.modes.kipukas.rules.state import initial_state
    >>> from kipukas_board.show.layout import default_layout
    >>> board = load_map("kipuka-8")
    >>> render(initial_state(board), default_layout(board))[0]
    (24, 24, 24)
"""

from __future__ import annotations

import math
from typing import Any

from kipukas_board.modes.kipukas.rules.state import KipukasState, waiting_stands
from kipukas_board.show.colors import OFF, RGB, WHITE, blend, hex_to_rgb, rgb_to_hex, scale
from kipukas_board.show.layout import LedLayout
from kipukas_board.show.lighting import Scene

__all__ = ["render", "Scene", "hex_to_rgb", "rgb_to_hex", "territory_color", "animating"]

UNCLAIMED: RGB = (24, 24, 24)
UNCLAIMED_DAY: RGB = (40, 26, 10)
UNCLAIMED_NIGHT: tuple[RGB, RGB] = (8, 12, 32), (16, 24, 56)
UNCLAIMED_STORM: RGB = (14, 16, 24)
NIGHT_BREATH_S = 6.0
NIGHT_LEVEL = 0.5
CLAIMED_UNKNOWN: RGB = (200, 170, 120)
#: A capital lit by a single pixel is its holder's colour this far towards white (a base camp's is pure).
SINGLE_PIXEL_CROWN = 0.4
TOKEN_UNKNOWN: RGB = (255, 255, 255)
CONTENTION_PERIOD = 1.2
LIGHTNING_S = 1.2
#: (start, end) seconds after the storm in which the whole strip flashes white.
LIGHTNING_FLASHES = ((0.0, 0.08), (0.2, 0.28), (0.5, 0.65))
LIGHTNING_DARK: RGB = (6, 6, 14)
EXPOSED_PERIOD = 0.8
WIN_SHOW_S = 20.0
WIN_CHASE_PX_PER_S = 30.0
WIN_BAND = 5
REACHABLE_PERIOD = 0.5
FAULT: RGB = (255, 0, 0)


def player_rgb(state: KipukasState, seat: int | None, unknown: RGB) -> RGB:
    """The colour of the player at ``seat``, or ``unknown`` when there is none or it is not a colour."""
    p = state.player(seat)
    if p is None:
        return unknown
    try:
        return hex_to_rgb(p.color)
    except ValueError:
        return unknown


def territory_color(state: KipukasState, number: int) -> RGB:
    """The steady colour of territory ``number`` (its holder's, or the neutral unclaimed glow)."""
    t = state.territories[number]
    if t.claim is None:
        return UNCLAIMED
    return player_rgb(state, t.owner, CLAIMED_UNKNOWN)


def contenders(state: KipukasState, number: int) -> tuple[int, ...]:
    """Seats contending for ``number`` (``KipukasState.contenders``), else the holder alone."""
    seats = state.contenders.get(number, ())
    if not seats and state.territories[number].contention and state.territories[number].owner is not None:
        seats = (state.territories[number].owner,)
    return tuple(seats)


def storm_exposed(state: KipukasState, scene: Scene) -> tuple[str, ...]:
    return tuple(state.storm_exposed) or scene.exposed


def _wave(t: float, period: float) -> float:
    """0 → 1 → 0 smoothly over ``period`` seconds, 0 at t = 0."""
    return 0.5 - 0.5 * math.cos(2 * math.pi * t / period)


def _contention_rgb(state: KipukasState, number: int, t: float) -> RGB:
    seats = contenders(state, number)
    colors = [player_rgb(state, s, CLAIMED_UNKNOWN) for s in seats]
    if not colors:
        colors = [territory_color(state, number)]
    if len(colors) == 1:
        colors.append(WHITE)
    phase = (t / CONTENTION_PERIOD) % len(colors)
    i = int(phase)
    f = phase - i
    f = f * f * (3 - 2 * f)  # smoothstep: dwell on each colour, glide between
    return blend(colors[i], colors[(i + 1) % len(colors)], f)


def _ambient(state: KipukasState, t: float) -> RGB:
    phase = state.diel_phase
    if phase == "day":
        return UNCLAIMED_DAY
    if phase == "night":
        return blend(UNCLAIMED_NIGHT[0], UNCLAIMED_NIGHT[1], _wave(t, NIGHT_BREATH_S))
    if phase == "storm":
        return UNCLAIMED_STORM
    return UNCLAIMED


def _lightning(t_since: float) -> bool:
    return any(a <= t_since < b for a, b in LIGHTNING_FLASHES)


def render(state: KipukasState, layout: LedLayout, t: float = 0.0, scene: Scene | None = None) -> list[RGB]:
    """The frame for ``state`` at animation time ``t`` seconds (see the module doc for the colours)."""
    scene = scene or Scene()
    n_px = layout.count
    frame: list[RGB] = [OFF] * n_px

    # Lightning takes the whole strip.
    if scene.storm_at is not None and 0 <= t - scene.storm_at < LIGHTNING_S:
        c = WHITE if _lightning(t - scene.storm_at) else LIGHTNING_DARK
        frame = [c] * n_px
        return _fault(frame, layout, scene, t)

    winner = state.player(state.winner) if state.winner is not None else None
    if winner is not None:
        w = player_rgb(state, winner.seat, WHITE)
        if scene.won_at is not None and 0 <= t - scene.won_at < WIN_SHOW_S:
            head = (t - scene.won_at) * WIN_CHASE_PX_PER_S
            for i in range(n_px):
                d = (head - i) % max(n_px, 1)
                frame[i] = (WHITE if d < 1 else w) if d < WIN_BAND else scale(w, 0.2)
            return _fault(frame, layout, scene, t)

    ambient = _ambient(state, t)
    night = state.diel_phase == "night"
    exposed = set(storm_exposed(state, scene)) if state.diel_phase == "storm" else set()
    exposed_on = _wave(t, EXPOSED_PERIOD)
    stands_with_pixels = {sid for sid, px in layout.stands.items() if px}
    board = state.board
    waits = {w["stand"]: w["seat"] for w in waiting_stands(state).values()} if winner is None else {}
    wait_on = _wave(t, EXPOSED_PERIOD)

    for n, pixels in layout.territories.items():
        ts = state.territories.get(n)
        if ts is None:
            continue
        capital = False
        if winner is not None:
            c = player_rgb(state, winner.seat, WHITE)
        elif ts.contention or contenders_present(state, n):
            c = _contention_rgb(state, n, t)
        elif ts.claim is None:
            c = ambient
        else:
            c = territory_color(state, n)
            capital = ts.claim == "capital"
            if night:
                c = scale(c, NIGHT_LEVEL)
        if exposed and any(s in exposed and s not in stands_with_pixels for s in _stands_of(board, n)):
            c = scale(c, exposed_on)
        for sid in _stands_of(board, n) if waits else ():
            if sid in waits and sid not in stands_with_pixels:
                c = blend(c, player_rgb(state, waits[sid], WHITE), wait_on)
        crown = blend(c, WHITE, 0.5) if capital else c
        if capital and len(pixels) == 1:  # no second pixel to crown: the one pixel is paler than a base camp's
            c = blend(c, WHITE, SINGLE_PIXEL_CROWN)
        for k, i in enumerate(pixels):
            if i < n_px:
                frame[i] = crown if k % 2 else c

    reach = set(scene.reachable) if t < scene.reachable_until else set()
    reach_on = t % REACHABLE_PERIOD < REACHABLE_PERIOD / 2
    for sid, pixels in layout.stands.items():
        st = state.stands.get(sid)
        c = player_rgb(state, st.owner, TOKEN_UNKNOWN) if st and st.occupied else OFF
        if sid in exposed:
            c = scale(c if c != OFF else TOKEN_UNKNOWN, exposed_on)
        if sid in waits:
            c = blend(c, player_rgb(state, waits[sid], WHITE), wait_on)
        if sid in reach:
            c = scene.reachable_color if reach_on else OFF
        for i in pixels:
            if i < n_px:
                frame[i] = c
    return _fault(frame, layout, scene, t)


def contenders_present(state: KipukasState, number: int) -> bool:
    return bool(state.contenders.get(number))


def _stands_of(board: Any, number: int) -> list[str]:
    try:
        return [s.id for s in board.stands_in(number)]
    except (KeyError, AttributeError):
        return []


def _fault(frame: list[RGB], layout: LedLayout, scene: Scene, t: float) -> list[RGB]:
    if scene.fault:
        c = FAULT if t % 1.0 < 0.5 else OFF
        for i in layout.faults():
            if 0 <= i < len(frame):
                frame[i] = c
    return frame


def animating(state: KipukasState, scene: Scene, t: float) -> bool:
    """Whether the frame at ``t`` can differ from the frame a moment later (so the thread keeps going)."""
    if scene.fault or t < scene.reachable_until:
        return True
    if scene.storm_at is not None and t - scene.storm_at < LIGHTNING_S:
        return True
    if state.winner is not None:
        return scene.won_at is not None and t - scene.won_at < WIN_SHOW_S
    if state.diel_phase == "night":
        return True
    if state.diel_phase == "storm" and storm_exposed(state, scene):
        return True
    return (any(ts.contention or contenders_present(state, n) for n, ts in state.territories.items())
            or bool(waiting_stands(state)))
