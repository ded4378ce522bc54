"""The game state the core folds events into, and its JSON form for ``GET /api/state``.

The state is treated as immutable: :func:`kipukas_board.game.core.apply` returns a new state that
shares every record it did not change (records are frozen dataclasses, containers are copied
shallowly), which keeps replaying a long journal fast and makes "before" and "after" safe to compare.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kipukas_board.board.mapfile import BoardMap


@dataclass(frozen=True)
class Player:
    seat: int
    name: str
    color: str  # "#rrggbb"
    affinity: str = ""


@dataclass(frozen=True)
class StandState:
    occupied: bool = False
    owner: int | None = None  # seat of the player whose token it is, when known


@dataclass(frozen=True)
class TerritoryState:
    owner: int | None = None  # seat of the holder, when known
    claim: str | None = None  # "capital" | "base_camp" | None
    contention: bool = False


@dataclass(frozen=True)
class GameState:
    """Everything the board knows. ``seq`` is the journal sequence number last applied."""

    board: BoardMap
    stands: dict[str, StandState]
    territories: dict[int, TerritoryState]
    players: tuple[Player, ...] = ()
    phase: str = "setup"  # "setup" | "play" | "over"
    winner: int | None = None
    diel_cycle: int = 0
    diel_phase: str | None = None  # "day" | "night" | "storm" | None
    questions: tuple[dict[str, Any], ...] = ()
    cards: tuple[dict[str, Any], ...] = ()
    timers: tuple[dict[str, Any], ...] = ()
    problems: tuple[str, ...] = ()
    seq: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def evolve(self, **changes: Any) -> GameState:
        """A copy with ``changes`` applied (containers not named are shared, not copied)."""
        return replace(self, **changes)

    def player(self, seat: int | None) -> Player | None:
        for p in self.players:
            if p.seat == seat:
                return p
        return None

    def to_json(self) -> dict[str, Any]:
        """The ``GET /api/state`` document (DESIGN.md §3); ``health`` is added by the runtime."""
        b = self.board
        return {
            "seq": self.seq,
            "map": b.to_json(),
            "players": [{"seat": p.seat, "name": p.name, "color": p.color, "affinity": p.affinity}
                        for p in self.players],
            "territories": [
                {"number": n, "owner": t.owner, "claim": t.claim, "contention": t.contention}
                for n, t in sorted(self.territories.items())
            ],
            "stands": [
                {"id": sid, "kind": b.stands[sid].kind, "territory": b.stands[sid].territory,
                 "occupied": st.occupied, "owner": st.owner}
                for sid, st in self.stands.items()
            ],
            "diel": {"cycle": self.diel_cycle, "phase": self.diel_phase},
            "phase": self.phase,
            "winner": self.winner,
            "questions": list(self.questions),
            "cards": list(self.cards),
            "timers": list(self.timers),
            "problems": list(self.problems),
        }


def initial_state(board: BoardMap) -> GameState:
    """An empty board: no tokens, no claims, no game yet."""
    return GameState(
        board=board,
        stands={sid: StandState() for sid in board.stands},
        territories={n: TerritoryState() for n in sorted(board.territories)},
    )
