"""Kipukas itself as a game mode: every call is handed to the rules, lighting and phrases that were
written for it (:mod:`kipukas_board.modes.kipukas.rules.core`, :mod:`kipukas_board.modes.kipukas.lights`,
:mod:`kipukas_board.modes.kipukas.phrases`), unchanged.

Kipukas is the default game: a journal from before there were modes replays as Kipukas.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kipukas_board.modes.base import Effect, Event, GameMode, Step
from kipukas_board.modes.kipukas import lights, phrases
from kipukas_board.modes.kipukas.rules import checks, core
from kipukas_board.modes.kipukas.rules import events as game_events
from kipukas_board.modes.kipukas.rules.state import GameState


class KipukasMode(GameMode):
    name = "kipukas"
    key = "kipukas"
    title = "Kipukas"

    def in_progress(self, state: GameState) -> bool:
        return state.started and state.phase != "over" and state.game == self.name

    def check_new_game(self, event: Event) -> None:
        game_events.check_new_game(event)

    def apply(self, state: GameState, event: Event, seq: int | None) -> tuple[GameState, list[Effect]]:
        return core.apply(state, event, seq=seq)

    def why_not(self, state: GameState, event: Event) -> str | None:
        return checks.why_not(state, event)

    def render(self, state: GameState, layout: Any, t: float, scene: Any) -> list[Any]:
        return lights.render(state, layout, t, scene)

    def animating(self, state: GameState, scene: Any, t: float) -> bool:
        return lights.animating(state, scene, t)

    def phrases(self, effect: Mapping[str, Any], state: GameState | None) -> list[str]:
        return phrases.phrases_for(effect, state)

    def written(self, effect: Mapping[str, Any], state: GameState | None) -> list[str]:
        from kipukas_board.web.narrate import WRITTEN  # stand ids written, not spelled out

        return phrases.phrases_for(effect, state, WRITTEN)

    def report(self, steps: list[Step]) -> dict[str, Any]:
        from kipukas_board.modes.kipukas.report import report

        return report(steps) if steps else super().report(steps)

    def new_game_event(self, body: dict[str, Any], board: Any) -> Event:
        from kipukas_board.modes.kipukas.actions import new_game_event

        return new_game_event(body, board)

    def register_routes(self, app: Any, board: Any) -> None:
        from kipukas_board.modes.kipukas.routes import register

        register(app, board)
