"""Kipukas itself as a game mode: every call is handed to the rules, lighting and phrases that were
written for it (:mod:`kipukas_board.modes.kipukas.rules.core`, :mod:`kipukas_board.modes.kipukas.lights`,
:mod:`kipukas_board.modes.kipukas.phrases`), with Kipukas's own state taken from the table and the
table's shared part given back.

Kipukas is the default game: a journal from before there were modes replays as Kipukas, and a new
board's table plays it (not started) until another game begins.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.modes.kipukas.on_table import kipukas_state, new_kipukas_table
    >>> table = new_kipukas_table(load_map("kipuka-8"))
    >>> table, fx = KipukasMode().apply(table, {"type": "stand", "stand": "T1", "occupied": True}, 2)
    >>> table.switches["T1"], kipukas_state(table).territories[1].claim, table.seq
    (True, 'base_camp', 2)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.modes.base import Effect, Event, GameMode, Step
from kipukas_board.modes.kipukas import lights, phrases
from kipukas_board.modes.kipukas.on_table import NAME, kipukas_state, on_table, shared
from kipukas_board.modes.kipukas.rules import checks, core
from kipukas_board.modes.kipukas.rules import events as game_events
from kipukas_board.modes.kipukas.rules.playstyles import STYLES, player_limits
from kipukas_board.modes.kipukas.rules.state import KipukasState, UndoEntry
from kipukas_board.table.events import refused
from kipukas_board.table.state import TableState


class KipukasMode(GameMode):
    name = NAME
    key = "kipukas"
    title = "Kipukas"

    def game(self, state: TableState) -> KipukasState | None:
        return state.mode_state if state.game == self.name and isinstance(state.mode_state, KipukasState) else None

    def in_progress(self, state: TableState) -> bool:
        game = self.game(state)
        return game is not None and game.started and game.phase != "over"

    def check_new_game(self, event: Event) -> None:
        game_events.check_new_game(event)

    def apply(self, state: TableState, event: Event, seq: int | None) -> tuple[TableState, list[Effect]]:
        """The rules core on Kipukas's state; the table takes back what it shares. A ``map`` event on a
        table playing another game only redraws the map (same stands and paths) under that game, or
        starts a fresh Kipukas table on a new map."""
        before = kipukas_state(state)
        after, effects = core.apply(before, event, seq=seq)
        if event["type"] == "map" and any(e.get("type") == "map" and not e.get("kept") for e in effects):
            return on_table(after), effects  # another map: a fresh table, nothing paused
        if state.game == self.name:
            moved = event.get("stand") if event["type"] == "stand" else None
            return shared(state, after, before, moved, mode_state=after), effects
        if event["type"] == "new_game" and not refused(effects):
            return on_table(after, state), effects
        return shared(state, after), effects  # the other game goes on (a redrawn map, a refused start)

    def why_not(self, state: TableState, event: Event) -> str | None:
        return checks.why_not(kipukas_state(state), event)

    def render(self, state: TableState, layout: Any, t: float, scene: Any) -> list[Any]:
        return lights.render(kipukas_state(state), layout, t, scene)

    def animating(self, state: TableState, scene: Any, t: float) -> bool:
        return lights.animating(kipukas_state(state), scene, t)

    def phrases(self, effect: Mapping[str, Any], state: TableState | None) -> list[str]:
        return phrases.phrases_for(effect, kipukas_state(state) if state is not None else None)

    def written(self, effect: Mapping[str, Any], state: TableState | None) -> list[str]:
        from kipukas_board.web.narrate import WRITTEN  # stand ids written, not spelled out

        return phrases.phrases_for(effect, kipukas_state(state) if state is not None else None, WRITTEN)

    def seat_names(self, state: TableState) -> dict[int, str]:
        return {p.seat: p.name for p in kipukas_state(state).players}

    def seat_color(self, state: TableState, seat: int | None) -> str | None:
        p = kipukas_state(state).player(seat)
        return p.color if p is not None else None

    def setup_options(self, board_map: BoardMap) -> dict[str, Any]:
        return {"play_styles": list(STYLES.values()), "player_limits": player_limits(board_map)}

    def id_words(self, state: TableState) -> dict[str, str]:
        from kipukas_board.web.narrate import soul_names

        return soul_names(kipukas_state(state))

    def last_action(self, state: TableState) -> UndoEntry | None:
        undo = kipukas_state(state).undo
        return undo[-1] if undo else None

    def winner(self, state: TableState) -> int | None:
        return kipukas_state(state).winner

    def report(self, steps: list[Step]) -> dict[str, Any]:
        from kipukas_board.modes.kipukas.report import report

        return report(steps) if steps else super().report(steps)

    def new_game_event(self, body: dict[str, Any], board: Any) -> Event:
        from kipukas_board.modes.kipukas.actions import new_game_event

        return new_game_event(body, board)

    def register_routes(self, app: Any, board: Any) -> None:
        from kipukas_board.modes.kipukas.routes import register

        register(app, board)
