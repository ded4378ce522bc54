"""Creature Combat Territory (the card game of that name) as a game mode of the board.

* :mod:`.rules`: the pure rules core (rounds, power, piles, the end);
* :mod:`.events`: the form of its events; :mod:`.cardfile`: its TOML card files;
  :mod:`.table`: table layout files (five land slots, the seats); :mod:`.stickers`: sticker sheets;
* :mod:`.lights` and :mod:`.phrases`: what the LEDs show and the voice says;
* :mod:`.routes`: its actions (``/api/actions/creature-combat/*``) and page (``/creature-combat``).

This module is the adapter the board talks to (:class:`CreatureCombatMode`): it keeps the game's
state in ``TableState.mode_state`` (a :class:`.rules.CCState`) and hands each event to :func:`.rules.apply`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kipukas_board.modes.base import Effect, Event, GameMode, Step, table_phrases
from kipukas_board.modes.creature_combat import events as cc_events
from kipukas_board.modes.creature_combat import lights, rules
from kipukas_board.modes.creature_combat.cardfile import CardFile, parse_card_file
from kipukas_board.modes.creature_combat.phrases import phrases_for as cc_phrases
from kipukas_board.table.state import TableState

NAME = "creature-combat"
KEY = "creature_combat"


class CreatureCombatMode(GameMode):
    name = NAME
    key = KEY
    title = "Creature Combat Territory"
    payload_prefix = "cct:"
    card_tables = ("creatures", "lands")
    page = "/creature-combat"
    not_started = "Creature Combat Territory game"

    def check_new_game(self, event: Event) -> None:
        cc_events.check_new_game(event)

    def start(self, event: Event) -> tuple[rules.CCState, list[Effect]]:
        return rules.new_game(event)

    def started(self, effects: list[Effect]) -> bool:
        return not rules.refused(effects)

    def on_card(self, game: rules.CCState, event: Event) -> tuple[rules.CCState, list[Effect]]:
        return rules.on_card(game, event["seat"], event.get("card"))

    def step(self, game: rules.CCState, event: Event) -> tuple[rules.CCState, list[Effect]]:
        return rules.apply(game, event)

    def to_json(self, state: TableState) -> dict[str, Any] | None:
        cc = self.game(state)
        return cc.to_json() if cc is not None else None

    def render(self, state: TableState, layout: Any, t: float, scene: Any) -> list[Any]:
        return lights.render(self.game(state), layout, t)

    def animating(self, state: TableState, scene: Any, t: float) -> bool:
        return lights.animating(self.game(state))

    def phrases(self, effect: Mapping[str, Any], state: TableState | None) -> list[str]:
        said = cc_phrases(effect, self.game(state) if state is not None else None)
        if said is not None:
            return said
        return table_phrases(effect) or []

    def report(self, steps: list[Step]) -> dict[str, Any]:
        from kipukas_board.modes.creature_combat.report import report

        return report(steps, self.game)

    def parse_card_file(self, text: str, source: str) -> CardFile:
        return parse_card_file(text, source)

    def new_game_event(self, body: dict[str, Any], board: Any) -> Event:
        from kipukas_board.modes.creature_combat.routes import new_game_event

        return new_game_event(body, board)

    def register_routes(self, app: Any, board: Any) -> None:
        from kipukas_board.modes.creature_combat.routes import register

        register(app, board)
