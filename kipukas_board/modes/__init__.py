"""Game modes: the seam between the board (journal, core loop, lights, voice, page) and a game's rules.

The board runs one game at a time; ``POST /api/actions/new-game`` ``{"game": NAME}`` picks it
(``kipukas`` by default) and ``/api/state`` says which (``"game"``) with the mode's own fields under
its key. Everything outside a mode calls these functions, never a game's rules directly:

* :func:`apply` folds an event into the table state (the core loop and replay);
* :func:`state_json` is the ``/api/state`` document;
* :func:`render` / :func:`animating` draw the LEDs, :func:`phrases_for` says (and captions) effects;
* :func:`game_report` replays the journal through :func:`apply` and hands the game on the table's
  steps to its mode's ``report``;
* a ``new_game`` while another game is under way pauses that game instead of throwing it away, and a
  ``resume`` event puts it back on the table (pausing the one it replaces in turn): a table breaks for
  a quick duel and comes back to its Kipukas game, and a game started by mistake is taken back;
* :func:`mode_for_card_file` finds the mode a TOML card file belongs to, :func:`mode_for_payload` the
  mode a scanned payload names.

To add a game, write a :class:`~kipukas_board.modes.base.GameMode` subclass in a package of its own
and add it to :data:`MODES` (docs/explanation/game-modes.md).

Example::

    >>> from kipukas_board.modes import MODES
    >>> sorted(MODES)
    ['creature-combat', 'duel', 'kipukas']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kipukas_board.board.mapfile import BoardMap, parse_map
from kipukas_board.modes.base import Effect, Event, GameMode, Step
from kipukas_board.modes.creature_combat import CreatureCombatMode
from kipukas_board.modes.duel import DuelMode
from kipukas_board.modes.kipukas.mode import KipukasMode
from kipukas_board.modes.kipukas.on_table import kipukas_state, new_kipukas_table
from kipukas_board.modes.kipukas.rules import view
from kipukas_board.table.events import EventError, refused, register_event_type
from kipukas_board.table.problems import settle
from kipukas_board.table.state import TableState

DEFAULT = "kipukas"
#: Every game the board can run, by name.
MODES: dict[str, GameMode] = {m.name: m for m in (KipukasMode(), CreatureCombatMode(), DuelMode())}
#: Events about the table itself, not a game: always the default mode's (it owns the map and stands).
TABLE_EVENTS = frozenset({"map"})


def new_table(board: BoardMap) -> TableState:
    """A fresh table on ``board`` with the default game chosen and not started: where a board with an
    empty journal begins, and where replay starts."""
    return new_kipukas_table(board)


def mode_named(name: str) -> GameMode:
    """The mode called ``name``; ``KeyError`` naming the modes there are."""
    try:
        return MODES[name]
    except KeyError:
        raise KeyError(f"no game {name!r}; the board runs {', '.join(sorted(MODES))}") from None


def active(state: TableState) -> GameMode:
    """The mode ``state`` is playing."""
    return MODES.get(state.game, MODES[DEFAULT])


def game_in_progress(state: TableState) -> str | None:
    """The title of the game under way on the table (started, not over), or None when none is."""
    mode = active(state)
    return mode.title if mode.in_progress(state) else None


def holding_the_map(state: TableState) -> tuple[GameMode, bool] | None:
    """The mode of the game another map (other stands or paths) would throw away, and whether that game
    is the paused one: the game under way on the table, else the one paused for it (a duel over,
    Kipukas not resumed yet); None when no game holds the map.

    Example::

        >>> from kipukas_board.board.mapfile import load_map
        >>> holding_the_map(new_table(load_map("kipuka-8"))) is None
        True
    """
    if game_in_progress(state) is not None:
        return active(state), False
    back = paused(state)
    if back is not None and game_in_progress(back) is not None:
        return active(back), True
    return None


#: Said after a game in the map's refusals when the game holding the map is the paused one.
PAUSED_NOTE = " (paused: Resume on any page brings it back)"


def _map_refused(state: TableState, event: Event) -> str | None:
    """Why a ``map`` event may not replace the board now: another map (other stands or paths) while a
    game is under way, or paused, would throw the game away. A redrawn map (same stands and paths) is
    always fine: the game on the table and the paused one go on, on the new drawing."""
    holder = holding_the_map(state)
    if holder is None:
        return None
    board = parse_map(event["toml"], source=event.get("path") or event["name"], new=False)
    if board.structure() == state.board.structure():
        return None
    mode, is_paused = holder
    return (f"the map stays {state.board.name} while {mode.a_game} is under way{PAUSED_NOTE if is_paused else ''}; "
            f"end the game first to play on {board.name}")


def paused(state: TableState) -> TableState | None:
    """The table state of the game put aside for the one being played, or None."""
    return state.paused


def _without_paused(state: TableState) -> TableState:
    return state if state.paused is None else state.evolve(paused=None)


def _with_paused(state: TableState, put_aside: TableState | None) -> TableState:
    """``state`` keeping ``put_aside`` (one game deep: what it had paused itself is dropped)."""
    rest = _without_paused(state)
    if put_aside is None:
        return rest
    return rest.evolve(paused=_without_paused(put_aside))


def _refuse(state: TableState, text: str, seq: int | None) -> tuple[TableState, list[Effect]]:
    refusal = state.with_problem(text)
    return (refusal.evolve(seq=seq) if seq is not None else refusal), [{"type": "problem", "text": text}]


def _resume(state: TableState, event: Event, seq: int | None) -> tuple[TableState, list[Effect]]:
    """Put the paused game back; the game it replaces is paused in its place if it is under way. The
    tokens moved meanwhile really moved: each stand that changed is re-applied through the paused
    game's own rules, so what the board infers from them is up to date; and the map is the table's
    (a map redrawn meanwhile is the one the game goes on with)."""
    back = paused(state)
    if back is None:
        return _refuse(state, "no game is paused, so there is nothing to resume", seq)
    aside = state if game_in_progress(state) else None
    mode = active(back)
    if back.board.structure() != state.board.structure():  # such a map is refused while a game is paused
        return _refuse(state, f"{mode.title} was paused on {back.board.name}, whose stands or paths differ from "
                              f"{state.board.name} on the table now; it cannot go on on this map", seq)
    # The map as the table has it: redrawn meanwhile (same stands and paths), the game goes on, on the
    # new drawing; the mode reads it from the table (Kipukas's own copy follows, see on_table.py).
    restored = back.evolve(board=state.board, counter=max(state.counter, back.counter))
    for sid, now in state.switches.items():
        was = restored.switches.get(sid)
        if was is not None and was != now:
            restored, _ = mode.apply(restored, {"type": "stand", "stand": sid, "occupied": now}, None)
    restored = _with_paused(restored, aside)
    effects: list[Effect] = [{"type": "resumed", "game": mode.name, "title": mode.title,
                              "paused": active(aside).title if aside is not None else None}]
    return (restored.evolve(seq=seq) if seq is not None else restored), effects


def apply(state: TableState, event: Event, seq: int | None = None) -> tuple[TableState, list[Effect]]:
    """Fold one checked event into ``state`` with the rules of the game it belongs to."""
    kind = event["type"]
    if kind == "resume":
        return _resume(state, event, seq)
    if kind == "new_game":
        mode = MODES.get(event.get("game", DEFAULT), MODES[DEFAULT])
    elif kind in TABLE_EVENTS:
        why = _map_refused(state, event)
        if why is not None:
            new = state.with_problem(why)
            effects = [{"type": "problem", "text": why}]
            return settle(state, new.evolve(seq=seq) if seq is not None else new, event, effects, seq), effects
        mode = MODES[DEFAULT]
    else:
        mode = active(state)
    new, effects = mode.apply(state, event, seq)
    if mode is not MODES[DEFAULT]:  # Kipukas's rules settle their own problems (modes/kipukas/rules/core.py)
        new = settle(state, new, event, effects, seq)
    if kind == "new_game" and not refused(effects):
        # The game under way is put aside, not lost; with none under way the one paused before stays.
        new = _with_paused(new, state if game_in_progress(state) else paused(state))
    return new, effects


def state_json(state: TableState) -> dict[str, Any]:
    """``/api/state``: the table and Kipukas fields, ``game``, and the game's own fields under its key.

    Kipukas's fields are always there (as Kipukas reads the table while another game plays: no players,
    nothing claimed), so the board page draws the map and switches whatever game is on the table."""
    doc = view.state_json(kipukas_state(state))
    mode = active(state)
    doc["game"] = mode.name
    doc["games"] = [{"name": m.name, "title": m.title, "a_game": m.a_game, "page": m.page} for m in MODES.values()]
    own = mode.to_json(state)
    if own is not None:
        doc[mode.key] = own
    back = paused(state)
    if back is not None:
        was = active(back)
        doc["paused"] = {"game": was.name, "title": was.title, "page": was.page}
    return doc


def game_report(rows: Iterable[tuple[int, float, Event]], board: BoardMap) -> dict[str, Any]:
    """The report of the game on the table: the whole journal (``(seq, ts, event)`` rows) replayed
    through :func:`apply` from ``board``, and the steps since that game's last ``new_game`` in which it
    was on the table handed to its mode's ``report``. Every game's events go to its own rules, so a
    duel played before a Kipukas game (or paused in the middle of one) reads as a duel.

    ``game``, ``title``, ``map`` and ``started`` are added to what the mode reports.
    """
    state = new_table(board)
    steps: list[Step] = []
    for seq, ts, event in rows:
        try:
            state, effects = apply(state, event, seq=seq)
        except Exception as exc:  # as the core loop: a rules bug must not stop the rebuild
            state, effects = state.evolve(problems=(*state.problems, f"event {seq} not applied: {exc}")), []
        steps.append(Step(seq, ts, event, state, effects))
    mode = active(state)
    doc: dict[str, Any] = {"game": mode.name, "title": mode.title, "map": state.board.name}
    start = max((i for i, st in enumerate(steps) if st.event.get("type") == "new_game"
                 and st.event.get("game", DEFAULT) == mode.name and active(st.state) is mode), default=None)
    if start is None:
        return {**doc, "started": False, **GameMode.report(mode, [])}
    return {**doc, "started": True, **mode.report([st for st in steps[start:] if active(st.state) is mode])}


def seat_color(state: TableState, seat: int | None) -> str | None:
    return active(state).seat_color(state, seat)


def winner(state: TableState) -> int | None:
    return active(state).winner(state)


def render(state: TableState, layout: Any, t: float = 0.0, scene: Any = None) -> list[Any]:
    return active(state).render(state, layout, t, scene)


def animating(state: TableState, scene: Any, t: float) -> bool:
    return active(state).animating(state, scene, t)


def phrases_for(effect: Mapping[str, Any], state: TableState | None = None) -> list[str]:
    if effect.get("type") == "resumed":  # the table's own news, the same in every game
        aside = f" {effect['paused']} is paused." if effect.get("paused") else ""
        return [f"Back to {effect['title']}.{aside}"]
    mode = active(state) if state is not None else MODES[DEFAULT]
    return mode.phrases(effect, state)


def mode_for_card_file(tables: set[str]) -> GameMode | None:
    """The mode whose card files have these top-level tables (None if no mode's do)."""
    for mode in MODES.values():
        if mode.card_tables and tables & set(mode.card_tables):
            return mode
    return None


def mode_for_payload(text: str) -> GameMode | None:
    for mode in MODES.values():
        if mode.payload_prefix and text.startswith(mode.payload_prefix):
            return mode
    return None


def payload_prefixes() -> dict[str, str]:
    """``{"cct": "creature-combat"}``: the prefixes (without ``:``) of every mode's card payloads."""
    return {m.payload_prefix.rstrip(":"): m.name for m in MODES.values() if m.payload_prefix}


def _check_new_game(event: Event) -> None:
    game = event.get("game", DEFAULT)
    if game not in MODES:
        raise EventError(f"'new_game' event field 'game' must be one of {', '.join(sorted(MODES))}, got {game!r}")
    MODES[game].check_new_game(event)


def _check_resume(event: Event) -> None:
    extra = sorted(set(event) - {"type"})
    if extra:
        raise EventError(f"'resume' event takes no fields, got {', '.join(extra)}")


register_event_type("new_game", _check_new_game)
register_event_type("resume", _check_resume)

__all__ = ["MODES", "GameMode", "active", "apply", "game_in_progress", "game_report", "holding_the_map", "mode_named",
           "new_table", "paused", "phrases_for", "render", "seat_color", "state_json", "winner"]
