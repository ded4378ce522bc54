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
    >>> edition("2023").habitat_roll("plains", "water"), edition("web").habitat_roll("plains", "water")
    (1, 0)
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

#: Souls one player may have in one territory: the web rules' "Every territory hosts a max of 3 souls
#: (per player)"; the 2023 book's "Every territory hosts a max of 3 souls" read the same way, since a
#: territory in contention holds two players' souls. Prisoners are counted apart.
MAX_SOULS_PER_PLAYER = 3


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


#: Both books' habitat table for rolls: geography -> (its dwellers' primary bonus, the dwellers its
#: secondary effect hits and by how much): "Add 2 to mountain dweller rolls / Take 2 from plains
#: dweller rolls", the same for forest, "Add 3 to plains dweller rolls".
HABITAT_ROLLS: dict[str, tuple[int, tuple[str, int] | None]] = {
    "mountain": (2, ("plains", -2)), "forest": (2, ("plains", -2)), "plains": (3, None),
}


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
    #: Which bouts the habitat table applies to: web ("Apply effect to all battle rolls: ... Habitat"),
    #: every bout, the Final Blow too; 2023 ("Apply to K.E.A.L. means bouts: Habitat"), KEAL means
    #: bouts only.
    habitat_in_final_blow: bool = True
    #: A habitat's bonus for its dwellers in every *other* geography but the ones named: 2023's plains
    #: "Plains dwellers get 1 added to rolls elsewhere excluding mountains and forest". Web: none.
    habitat_elsewhere: dict[str, tuple[int, frozenset[str]]] = field(default_factory=dict)
    #: Web plains: "Heal revealed souls in territory 1 KEAL Means per 2 turns rested, when not under
    #: contention". 2023 gives plains no healing.
    plains_heal: bool = True
    #: Added to a heavens dweller's Movement Range: 2023 heavens "Add 1 to movement range"; web 0
    #: ("Typically have high movement ability" is no rule).
    heavens_move: int = 0
    #: Web: "If unsuccessful, the retreating soul(s) forgo their ability to attack for the day". The
    #: 2023 book's retreat says nothing of the kind.
    failed_retreat_ends_attacks: bool = True
    notes: str = ""

    @property
    def reach(self) -> int:
        """The furthest any soul moves in one diel cycle in this edition."""
        return MAX_MOVE + self.heavens_move

    def movement_range(self, movement: int, habitat: str) -> int:
        """A soul's Movement Range in this edition: its card's, plus the heavens bonus for a heavens
        dweller."""
        return movement + (self.heavens_move if habitat.strip().lower() == "heavens" else 0)

    def habitat_roll(self, habitat: str, geography: str) -> int:
        """What the habitat table adds to a roll of a ``habitat`` dweller fighting in ``geography``
        (nomads and the bout's kind are the caller's business)."""
        habitat, geography = habitat.strip().lower(), geography.strip().lower()
        if geography in HABITAT_ROLLS:
            bonus, secondary = HABITAT_ROLLS[geography]
            if habitat == geography:
                return bonus
            if secondary is not None and habitat == secondary[0]:
                return secondary[1]
        if habitat in self.habitat_elsewhere:
            bonus, excluded = self.habitat_elsewhere[habitat]
            if geography not in excluded:
                return bonus
        return 0

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
        habitat_in_final_blow=False,
        habitat_elsewhere={"plains": (1, frozenset({"plains", "mountain", "forest"}))},
        plains_heal=False,
        heavens_move=1,
        failed_retreat_ends_attacks=False,
        notes="2023 rule book: opening day, night; traps detected on 1, 2, 7, 8; a capital falls only to a player "
              "holding every other territory, is contended like any territory, and takes no prisoners; habitat "
              "applies to KEAL means bouts only; plains dwellers +1 elsewhere but mountains and forest, no plains "
              "healing; heavens dwellers +1 movement range",
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
