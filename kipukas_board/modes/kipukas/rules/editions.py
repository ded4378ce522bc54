"""What differs between the two rule books, as data: one game setting, never a code fork.

``web`` is the current Kipukas web rules, ``2023`` the December 2023 rule book.
Everything the board decides by edition is read from :data:`EDITIONS`, so a third edition is one more
entry here.

Example::

    >>> from kipukas_board.modes.kipukas.rules.editions import edition
    >>> edition("web").opening, edition("2023").opening
    (('day', 'night', 'day'), ('day', 'night'))
    >>> edition("2023").trap_detected(7)
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PHASES = ("day", "night", "storm")

#: Faces of the diel die per phase when new-game does not say. The rule books give no odds, so we
#: assume a six-faced die with each symbol on two faces (uniform); set ``diel_weights`` to match the
#: physical die (e.g. ``{"day": 3, "night": 2, "storm": 1}``).
DEFAULT_DIEL_WEIGHTS: dict[str, int] = {"day": 2, "night": 2, "storm": 2}

#: The furthest a soul moves in one diel cycle (Movement Range 0 to 5 in both downed tables); the
#: board uses it to decide whether a lifted token can be the one that appeared elsewhere.
MAX_MOVE = 5

#: Tokens each player owns (rules digest: 1 capital, 11 base camps, 10 soul tokens).
SUPPLY = {"capital": 1, "base_camp": 11, "soul": 10}

#: Prisoners a territory can hold (in addition to the 3 souls per player).
MAX_PRISONERS = 3


@dataclass(frozen=True)
class DownedMove:
    """How far a downed soul moves: ``spaces`` per move, a move every ``every`` diel cycles, ``escort``
    needed to move at all; ``note`` is the rule book's wording."""

    spaces: int
    every: int = 1
    escort: bool = False
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"spaces": self.spaces, "every": self.every, "escort": self.escort, "note": self.note}


@dataclass(frozen=True)
class Edition:
    name: str
    opening: tuple[str, ...]
    trap_detect: frozenset[int]
    downed: dict[int, DownedMove] = field(default_factory=dict)
    plays_first: str = "second_capital"  # both books: the player who placed the capital second
    #: When a capital can be taken: "other_base_camps" (web: "capitals cannot be taken until all other
    #: base camps are taken", i.e. while its owner holds no other base camp) or "all_territories" (2023:
    #: "not ... until they take all other territories on the board": the taker holds every other one).
    capital_rule: str = "other_base_camps"
    #: Web: "with the exception of the capital" an enemy soul puts a held territory in contention, and
    #: souls "move through capitals without entering contention". 2023: no exception.
    capital_contention: bool = False
    #: Web: a soul loitering "more than 1 day" in an enemy capital is taken prisoner. 2023: no such rule.
    capital_imprisons: bool = True
    notes: str = ""

    def trap_detected(self, roll: int) -> bool:
        """Whether a D20 trap-detection roll finds the trap in this edition."""
        return roll in self.trap_detect

    def downed_move(self, movement: int) -> DownedMove:
        """The downed movement-table row for a soul of Movement Range ``movement`` (5 and up use 5)."""
        if movement < 0:
            raise ValueError(f"movement range must be 0 or more, got {movement}")
        return self.downed[min(movement, max(self.downed))]


EDITIONS: dict[str, Edition] = {
    "web": Edition(
        name="web",
        opening=("day", "night", "day"),
        trap_detect=frozenset({1, 2, 3, 4}),
        downed={
            0: DownedMove(0, note="cannot be moved by any means, including card effects"),
            1: DownedMove(1, escort=True, note="1 with escort"),
            2: DownedMove(1, note="1"),
            3: DownedMove(1, note="1"),
            4: DownedMove(2, note="2"),
            5: DownedMove(2, note="2"),
        },
        notes="web rules: opening day, night, day; traps detected on 1-4",
    ),
    "2023": Edition(
        name="2023",
        opening=("day", "night"),
        trap_detect=frozenset({1, 2, 7, 8}),
        downed={
            0: DownedMove(0, note="cannot be moved by the effects of other cards"),
            1: DownedMove(1, every=2, note="move once every two diel cycles"),
            2: DownedMove(1, note="1"),
            3: DownedMove(2, every=2, note="move two spaces, then wait for the next diel cycle"),
            4: DownedMove(2, note="2"),
            5: DownedMove(3, every=2, note="move three spaces, then wait for the next diel cycle"),
        },
        capital_rule="all_territories",
        capital_contention=True,
        capital_imprisons=False,
        notes="2023 rule book: opening day, night; traps detected on 1, 2, 7, 8; a capital falls only to a player "
              "holding every other territory, is contended like any territory, and takes no prisoners",
    ),
}


def edition(name: str) -> Edition:
    """The edition called ``name``; raises ``KeyError`` naming the known ones."""
    try:
        return EDITIONS[name]
    except KeyError:
        raise KeyError(f"unknown edition {name!r}; expected one of {', '.join(EDITIONS)}") from None


def diel_phase_for_roll(weights: dict[str, int], roll: int) -> str:
    """The phase on face ``roll`` (1-based) of a die with ``weights`` faces per phase, in the order
    day, night, storm. ``diel_phase_for_roll({"day": 2, "night": 2, "storm": 2}, 5) == "storm"``."""
    total = 0
    for phase in PHASES:
        total += weights.get(phase, 0)
        if roll <= total:
            return phase
    raise ValueError(f"roll {roll} is above the die's {total} faces")
