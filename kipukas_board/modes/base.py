"""What a game mode is: the one interface through which the board reaches a game's rules.

The core loop, the journal's replay, the lighting, the voice, the state document and the page call a
mode only through these methods, via :mod:`kipukas_board.modes` (which picks the mode a state is
playing). A new game is a new subclass registered in ``kipukas_board.modes.MODES``; nothing in the
other modes changes.

Every method takes the table's state, a :class:`~kipukas_board.table.state.TableState`: what every
game shares (the map, the stands' switches, the cards last shown, the problems, the journal number),
which game is played (``state.game``, a mode's :attr:`~GameMode.name`) and that game's own typed
state (``state.mode_state``, what :meth:`GameMode.game` returns: Kipukas's ``KipukasState``, a
duel's ``Duel``, ...).

Example::

    >>> from kipukas_board.modes import mode_named
    >>> mode_named("creature-combat").key
    'creature_combat'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kipukas_board.show.phrases import PHRASES
from kipukas_board.table.cards import record_card
from kipukas_board.table.events import Effect, Event
from kipukas_board.table.state import TableState, new_table

if TYPE_CHECKING:
    from kipukas_board.web.served import ServedBoard


@dataclass(frozen=True)
class Step:
    """One journaled event as a report reads it: when it came, and the state and effects it made."""

    seq: int
    ts: float
    event: Event
    state: TableState
    effects: list[Effect]


def table_phrases(effect: Mapping[str, Any], phrases: Mapping[str, str] = PHRASES) -> list[str] | None:
    """The sentences of the table's own effects, the same in every game (a problem, an undo, a
    sentence to say); None for any other effect.

    Example::

        >>> table_phrases({"type": "undone", "action": "duel_play"})
        ['Undone: duel play.']
    """
    kind = effect.get("type")
    if kind == "say":
        return [str(effect.get("text", ""))]
    if kind == "undone":
        return [phrases["undone"].format(action=str(effect.get("action", "")).replace("_", " "))]
    if kind == "problem":
        return [] if effect.get("quiet") else [phrases["problem"].format(text=str(effect.get("text", "")))]
    return None


class CardFileError(ValueError):
    """A game mode's card file that cannot be imported; ``problems`` names each (card id and field)."""

    def __init__(self, source: str, problems: list[str]) -> None:
        shown = "\n".join(f"  - {p}" for p in problems[:60])
        more = f"\n  ... and {len(problems) - 60} more" if len(problems) > 60 else ""
        super().__init__(f"{source}: card file not imported, {len(problems)} problem(s):\n{shown}{more}")
        self.source = source
        self.problems = problems


class GameMode:
    """A game the board can run. Subclasses override what their game needs."""

    #: As given in ``POST /api/actions/new-game`` ``{"game": ...}`` and shown in ``/api/state``'s ``game``.
    name: str = ""
    #: The key of the mode's own fields in ``/api/state``.
    key: str = ""
    title: str = ""
    #: A game of this mode in a sentence ("a card duel"); empty: "a game of <title>".
    game_noun: str = ""
    #: QR payloads of this mode's cards start with this (``"cct:"``); None: the mode reads Kipukas cards.
    payload_prefix: str | None = None
    #: Tables of a TOML card file that say it is this mode's (``[[creatures]]``, ``[[lands]]``).
    card_tables: tuple[str, ...] = ()
    #: Where the mode's own page is (None: the board page serves it).
    page: str | None = None

    @property
    def a_game(self) -> str:
        """How a sentence names one game of this mode: "a game of Kipukas", "a card duel"."""
        return self.game_noun or f"a game of {self.title}"

    # -- rules -----------------------------------------------------------------------------------
    def in_progress(self, state: TableState) -> bool:
        """Is a game of this mode under way (started, not over)? The map changes only when none is."""
        game = self.game(state)
        return game is not None and getattr(game, "phase", None) != "over"

    def check_new_game(self, event: Event) -> None:
        """Raise ``EventError`` naming the field when the mode's ``new_game`` event is malformed."""
        raise NotImplementedError

    def apply(self, state: TableState, event: Event, seq: int | None) -> tuple[TableState, list[Effect]]:
        """Fold one checked event into the table state (pure: no I/O, no clock, no dice).

        The skeleton every card game shares: a ``new_game`` sets a fresh table (the switches keep what
        they see) with the game's state from :meth:`start`; a ``stand`` is only remembered (these games
        do not use the stands); a ``card`` is shown and, when it is this game's (:attr:`payload_prefix`),
        handed to :meth:`on_card`; anything else goes to :meth:`step`. The game's refusals become the
        table's problems. A mode with rules of its own for the table (Kipukas) overrides this.
        """
        kind = event["type"]
        game = self.game(state)
        effects: list[Effect] = []
        if kind == "new_game":
            game, effects = self.start(event)
            if self.started(effects):
                fresh = new_table(state.board, game=self.name, mode_state=game)
                state = fresh.evolve(switches=dict(state.switches), counter=state.counter)
        elif kind == "stand":
            sid = event["stand"]
            if sid not in state.switches:
                effects = [{"type": "problem", "text": f"unknown stand {sid!r} reported"}]
            elif state.switches[sid] != event["occupied"]:
                state = state.evolve(switches={**state.switches, sid: event["occupied"]})
                effects = [{"type": "stand", "stand": sid, "occupied": event["occupied"]}]
        elif kind == "card":
            state, effects = record_card(state, event)
            mine = bool(self.payload_prefix) and str(event.get("payload", "")).startswith(self.payload_prefix)
            if game is not None and mine:
                game, more = self.on_card(game, event)
                effects += more
        elif game is None:
            effects = [{"type": "problem", "text": f"no {self.not_started} has started"}]
        else:
            game, effects = self.step(game, event)
        for e in effects:
            if e.get("type") == "problem":
                state = state.with_problem(e["text"])
        if game is not None and self.game(state) is not None and kind != "new_game":
            state = state.evolve(mode_state=game)
        if seq is not None:
            state = state.evolve(seq=seq)
        return state, effects

    # -- what a card game adds to the apply skeleton ------------------------------------------------
    #: The game in "no ... has started", the problem of an event before its ``new_game``.
    not_started: str = "game"

    def game(self, state: TableState) -> Any:
        """The game's own state on the table (None when no game of this mode is there)."""
        return state.mode_state if state.game == self.name else None

    def start(self, event: Event) -> tuple[Any, list[Effect]]:
        """The game's state and effects for a checked ``new_game`` event."""
        raise NotImplementedError

    def started(self, effects: list[Effect]) -> bool:
        """Did the ``new_game`` the rules answered with ``effects`` start a game (not refuse it)?"""
        return True

    def on_card(self, game: Any, event: Event) -> tuple[Any, list[Effect]]:
        """A card of this game shown at a seat's camera (``event["seat"]``, ``event.get("card")``)."""
        return game, []

    def step(self, game: Any, event: Event) -> tuple[Any, list[Effect]]:
        """Any other event of this game."""
        raise NotImplementedError

    def why_not(self, state: TableState, event: Event) -> str | None:
        """Why the rules refuse ``event`` (well formed) in ``state`` now, in their own words; None when
        they take it. The page asks before it journals an action, so a refusal is never journaled and
        reads as the rules would say it (python-chess's ``is_legal`` beside ``push``).

        By default the event is tried on the rules (pure, so trying changes nothing): refused when all
        it gives are problems. A mode with a cheaper check of its own (Kipukas) overrides this.
        """
        _, effects = self.apply(state, event, None)
        texts = [e["text"] for e in effects if e.get("type") == "problem"]
        return "; ".join(texts) if effects and len(texts) == len(effects) else None

    def seat_names(self, state: TableState) -> dict[int, str]:
        """The players' names by seat (the page's log and the undo offer name players by these)."""
        return {}

    def seat_color(self, state: TableState, seat: int | None) -> str | None:
        """The ``"#rrggbb"`` colour of the player at ``seat`` (the lights blink a soul's reach in it)."""
        return None

    def setup_options(self, board_map: Any) -> dict[str, Any]:
        """What the game's new-game form offers on ``board_map`` (Kipukas: ``play_styles`` and
        ``player_limits``), for the page's templates."""
        return {}

    def id_words(self, state: TableState) -> dict[str, str]:
        """Ids the game's events carry, in the words the log writes instead (Kipukas's souls:
        ``{"s3": "Raven, Ana's"}``)."""
        return {}

    def last_action(self, state: TableState) -> Any:
        """The newest action the table's undo (``POST /api/actions/undo``) would take back: an object
        with ``action``, ``seq`` and ``expired``, or None when there is none."""
        return None

    def winner(self, state: TableState) -> int | None:
        """The seat that won the game on the table, if it is won (the lights celebrate it)."""
        return None

    def to_json(self, state: TableState) -> dict[str, Any] | None:
        """The mode's fields for ``/api/state`` (under :attr:`key`)."""
        return None

    def report(self, steps: list[Step]) -> dict[str, Any]:
        """The game report (``GET /report``) of one game, from the steps since its ``new_game`` (pure).

        Keys the page shows: ``players`` (each with ``seat``, ``name``, ``color``, ``out`` and a value
        for every column), ``columns`` (``[key, heading]`` pairs), ``summary`` (a sentence), ``phase``,
        ``winner`` (a name or None), ``moments`` (``{"seq", "ts", "when", "text"}``: what decided the
        game) and optionally ``chart`` (inline SVG) with ``chart_title``.
        """
        return {"players": [], "columns": [], "summary": "", "phase": "", "winner": None, "moments": []}

    # -- show ------------------------------------------------------------------------------------
    def render(self, state: TableState, layout: Any, t: float, scene: Any) -> list[Any]:
        """The LED frame for ``state`` at animation time ``t`` (pure)."""
        raise NotImplementedError

    def animating(self, state: TableState, scene: Any, t: float) -> bool:
        return False

    def phrases(self, effect: Mapping[str, Any], state: TableState | None) -> list[str]:
        """The sentences spoken (and captioned) for one effect; ``[]`` for none."""
        return []

    def written(self, effect: Mapping[str, Any], state: TableState | None) -> list[str]:
        """The sentences for one effect as the page's log writes them; what the voice says by default."""
        return self.phrases(effect, state)

    # -- cards and page --------------------------------------------------------------------------
    def parse_card_file(self, text: str, source: str) -> Any:
        """Check a TOML card file; return what :meth:`card_records` stores, or raise ``CardFileError``."""
        raise NotImplementedError(f"{self.title} has no card files")

    def register_routes(self, app: Any, board: ServedBoard) -> None:
        """Add the mode's actions and page to the Flask ``app``."""

    def new_game_event(self, body: dict[str, Any], board: Any) -> Event:
        """Turn ``POST /api/actions/new-game``'s body into the journaled event (the runtime side: may
        read the catalog and files, raising ``BadRequest`` naming the field)."""
        raise NotImplementedError
