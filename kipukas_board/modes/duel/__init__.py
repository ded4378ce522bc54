"""The two-player card duel as a game mode of the board.

* :mod:`.rules`: the pure rules core (the turn, the piles, the Hearts); :mod:`.effects`: what each card
  in play adds, with where it came from;
* :mod:`.events`: the form of its events; :mod:`.cardfile`: its TOML card files;
* :mod:`.lights` and :mod:`.phrases`: the Heart LEDs and what the voice says;
* :mod:`.routes`: its actions (``/api/actions/duel/*``) and page (``/duel``).

This module is the adapter the board talks to (:class:`DuelMode`): the duel's state lives in
``GameState.extra["duel"]`` and each event goes to :func:`.rules.apply`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kipukas_board.modes.base import Effect, Event, GameMode, Step
from kipukas_board.modes.duel import events as duel_events
from kipukas_board.modes.duel import lights, rules
from kipukas_board.modes.duel.cardfile import DuelCardFile, parse_card_file
from kipukas_board.modes.duel.phrases import phrases_for as duel_phrases
from kipukas_board.modes.kipukas.rules.cards import apply_card
from kipukas_board.modes.kipukas.rules.state import GameState, StandState, initial_state

NAME = "duel"
KEY = "duel"


class DuelMode(GameMode):
    name = NAME
    key = KEY
    title = "Card duel"
    payload_prefix = "duel:"
    card_tables = ("cards",)
    page = "/duel"

    def check_new_game(self, event: Event) -> None:
        duel_events.check_new_game(event)

    @staticmethod
    def game(state: GameState) -> rules.Duel | None:
        return state.extra.get(KEY)

    def apply(self, state: GameState, event: Event, seq: int | None) -> tuple[GameState, list[Effect]]:
        kind = event["type"]
        duel = self.game(state)
        effects: list[Effect] = []
        if kind == "new_game":
            duel, effects = rules.new_game(event)
            fresh = initial_state(state.board)
            stands = {sid: StandState(occupied=st.occupied) for sid, st in state.stands.items()}
            state = fresh.evolve(stands=stands, counter=state.counter, extra={"game": NAME, KEY: duel})
        elif kind == "stand":
            sid = event["stand"]
            if sid not in state.stands:
                effects = [{"type": "problem", "text": f"unknown stand {sid!r} reported"}]
            elif state.stands[sid].occupied != event["occupied"]:  # the duel does not use the stands
                state = state.evolve(stands={**state.stands, sid: StandState(occupied=event["occupied"])})
                effects = [{"type": "stand", "stand": sid, "occupied": event["occupied"]}]
        elif kind == "card":
            state, shown = apply_card(state, event)
            effects = [e for e in shown if e.get("type") == "card"]
            if duel is not None and str(event.get("payload", "")).startswith(self.payload_prefix):
                duel, more = rules.on_card(duel, event["seat"], event.get("card"))
                effects += more
        elif duel is None:
            effects = [{"type": "problem", "text": "no card duel has started"}]
        else:
            duel, effects = rules.apply(duel, event)
        for e in effects:
            if e.get("type") == "problem":
                state = state.with_problem(e["text"])
        if duel is not None and self.game(state) is not None and kind != "new_game":
            state = state.evolve(extra={**state.extra, KEY: duel})
        if seq is not None:
            state = state.evolve(seq=seq)
        return state, effects

    def to_json(self, state: GameState) -> dict[str, Any] | None:
        duel = self.game(state)
        return duel.to_json() if duel is not None else None

    def render(self, state: GameState, layout: Any, t: float, scene: Any) -> list[Any]:
        return lights.render(self.game(state), layout, t, scene)

    def animating(self, state: GameState, scene: Any, t: float) -> bool:
        return lights.animating(self.game(state), scene, t)

    def phrases(self, effect: Mapping[str, Any], state: GameState | None) -> list[str]:
        said = duel_phrases(effect, self.game(state) if state is not None else None)
        if said is not None:
            return said
        from kipukas_board.modes.kipukas.phrases import phrases_for  # problems, undo: said as in Kipukas

        return phrases_for(effect, state) if effect.get("type") in ("problem", "undone", "say") else []

    def report(self, steps: list[Step]) -> dict[str, Any]:
        from kipukas_board.modes.duel.report import report

        return report(steps, self.key)

    def parse_card_file(self, text: str, source: str) -> DuelCardFile:
        return parse_card_file(text, source)

    def new_game_event(self, body: dict[str, Any], board: Any) -> Event:
        from kipukas_board.modes.duel.routes import new_game_event

        return new_game_event(body, board)

    def register_routes(self, app: Any, board: Any) -> None:
        from kipukas_board.modes.duel.routes import register

        register(app, board)
