"""Creature Combat Territory (the card game of that name) as a game mode of the board.

* :mod:`.rules`: the pure rules core (rounds, power, piles, the end);
* :mod:`.events`: the form of its events; :mod:`.cardfile`: its TOML card files;
  :mod:`.table`: table layout files (five land slots, the seats); :mod:`.stickers`: sticker sheets;
* :mod:`.lights` and :mod:`.phrases`: what the LEDs show and the voice says;
* :mod:`.routes`: its actions (``/api/actions/creature-combat/*``) and page (``/creature-combat``).

This module is the adapter the board talks to (:class:`CreatureCombatMode`): it keeps the game's
state in ``GameState.extra["creature_combat"]`` and hands each event to :func:`.rules.apply`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kipukas_board.modes.base import Effect, Event, GameMode, Step
from kipukas_board.modes.creature_combat import events as cc_events
from kipukas_board.modes.creature_combat import lights, rules
from kipukas_board.modes.creature_combat.cardfile import CardFile, parse_card_file
from kipukas_board.modes.creature_combat.phrases import phrases_for as cc_phrases
from kipukas_board.modes.kipukas.rules.cards import apply_card
from kipukas_board.modes.kipukas.rules.state import GameState, StandState, initial_state

NAME = "creature-combat"
KEY = "creature_combat"


class CreatureCombatMode(GameMode):
    name = NAME
    key = KEY
    title = "Creature Combat Territory"
    payload_prefix = "cct:"
    card_tables = ("creatures", "lands")
    page = "/creature-combat"

    def check_new_game(self, event: Event) -> None:
        cc_events.check_new_game(event)

    @staticmethod
    def game(state: GameState) -> rules.CCState | None:
        return state.extra.get(KEY)

    def apply(self, state: GameState, event: Event, seq: int | None) -> tuple[GameState, list[Effect]]:
        kind = event["type"]
        cc = self.game(state)
        effects: list[Effect] = []
        if kind == "new_game":
            new_cc, effects = rules.new_game(event)
            if not rules.refused(effects):
                # A fresh table: the switches keep what they see; no Kipukas game, no old cards.
                fresh = initial_state(state.board)
                stands = {sid: StandState(occupied=st.occupied) for sid, st in state.stands.items()}
                state = fresh.evolve(stands=stands, counter=state.counter, extra={"game": NAME, KEY: new_cc})
        elif kind == "stand":
            sid = event["stand"]
            if sid not in state.stands:
                effects = [{"type": "problem", "text": f"unknown stand {sid!r} reported"}]
            elif state.stands[sid].occupied != event["occupied"]:  # the game does not use the stands
                state = state.evolve(stands={**state.stands, sid: StandState(occupied=event["occupied"])})
                effects = [{"type": "stand", "stand": sid, "occupied": event["occupied"]}]
        elif kind == "card":
            state, shown = apply_card(state, event)
            effects = [e for e in shown if e.get("type") == "card"]
            if cc is not None and str(event.get("payload", "")).startswith(self.payload_prefix):
                cc, more = rules.on_card(cc, event["seat"], event.get("card"))
                effects += more
        elif cc is None:
            effects = [{"type": "problem", "text": "no Creature Combat Territory game has started"}]
        else:
            cc, effects = rules.apply(cc, event)
        for e in effects:
            if e.get("type") == "problem":
                state = state.with_problem(e["text"])
        if cc is not None and self.game(state) is not None and kind != "new_game":
            state = state.evolve(extra={**state.extra, KEY: cc})
        if seq is not None:
            state = state.evolve(seq=seq)
        return state, effects

    def to_json(self, state: GameState) -> dict[str, Any] | None:
        cc = self.game(state)
        return cc.to_json() if cc is not None else None

    def render(self, state: GameState, layout: Any, t: float, scene: Any) -> list[Any]:
        return lights.render(self.game(state), layout, t)

    def animating(self, state: GameState, scene: Any, t: float) -> bool:
        return lights.animating(self.game(state))

    def phrases(self, effect: Mapping[str, Any], state: GameState | None) -> list[str]:
        said = cc_phrases(effect, self.game(state) if state is not None else None)
        if said is not None:
            return said
        from kipukas_board.modes.kipukas.phrases import phrases_for  # problems, undo: said as in Kipukas

        return phrases_for(effect, state) if effect.get("type") in ("problem", "undone", "say") else []

    def report(self, steps: list[Step]) -> dict[str, Any]:
        from kipukas_board.modes.creature_combat.report import report

        return report(steps, self.key)

    def parse_card_file(self, text: str, source: str) -> CardFile:
        return parse_card_file(text, source)

    def new_game_event(self, body: dict[str, Any], board: Any) -> Event:
        from kipukas_board.modes.creature_combat.routes import new_game_event

        return new_game_event(body, board)

    def register_routes(self, app: Any, board: Any) -> None:
        from kipukas_board.modes.creature_combat.routes import register

        register(app, board)
