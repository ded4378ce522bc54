"""The two-player card duel as a game mode of the board.

* :mod:`.rules`: the pure rules core (the turn, the piles, the Hearts); :mod:`.effects`: what each card
  in play adds, with where it came from;
* :mod:`.events`: the form of its events; :mod:`.cardfile`: its TOML card files;
* :mod:`.lights` and :mod:`.phrases`: the Heart LEDs and what the voice says;
* :mod:`.routes`: its actions (``/api/actions/duel/*``) and page (``/duel``).

This module is the adapter the board talks to (:class:`DuelMode`): the duel's state lives in
``TableState.mode_state`` (a :class:`.rules.Duel`) and each event goes to :func:`.rules.apply`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kipukas_board.modes.base import Effect, Event, GameMode, Step, table_phrases
from kipukas_board.modes.duel import events as duel_events
from kipukas_board.modes.duel import lights, rules
from kipukas_board.modes.duel.cardfile import DuelCardFile, parse_card_file
from kipukas_board.modes.duel.phrases import phrases_for as duel_phrases
from kipukas_board.table.state import TableState

NAME = "duel"
KEY = "duel"


class DuelMode(GameMode):
    name = NAME
    key = KEY
    title = "Card duel"
    game_noun = "a card duel"
    payload_prefix = "duel:"
    card_tables = ("cards",)
    page = "/duel"
    not_started = "card duel"

    def check_new_game(self, event: Event) -> None:
        duel_events.check_new_game(event)

    def start(self, event: Event) -> tuple[rules.Duel, list[Effect]]:
        return rules.new_game(event)

    def on_card(self, game: rules.Duel, event: Event) -> tuple[rules.Duel, list[Effect]]:
        return rules.on_card(game, event["seat"], event.get("card"))

    def step(self, game: rules.Duel, event: Event) -> tuple[rules.Duel, list[Effect]]:
        return rules.apply(game, event)

    def to_json(self, state: TableState) -> dict[str, Any] | None:
        duel = self.game(state)
        return duel.to_json() if duel is not None else None

    def render(self, state: TableState, layout: Any, t: float, scene: Any) -> list[Any]:
        return lights.render(self.game(state), layout, t, scene)

    def animating(self, state: TableState, scene: Any, t: float) -> bool:
        return lights.animating(self.game(state), scene, t)

    def phrases(self, effect: Mapping[str, Any], state: TableState | None) -> list[str]:
        said = duel_phrases(effect, self.game(state) if state is not None else None)
        if said is not None:
            return said
        return table_phrases(effect) or []

    def report(self, steps: list[Step]) -> dict[str, Any]:
        from kipukas_board.modes.duel.report import report

        return report(steps, self.game)

    def parse_card_file(self, text: str, source: str) -> DuelCardFile:
        return parse_card_file(text, source)

    def new_game_event(self, body: dict[str, Any], board: Any) -> Event:
        from kipukas_board.modes.duel.routes import new_game_event

        return new_game_event(body, board)

    def register_routes(self, app: Any, board: Any) -> None:
        from kipukas_board.modes.duel.routes import register

        register(app, board)
