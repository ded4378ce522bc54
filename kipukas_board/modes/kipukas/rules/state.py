"""Kipukas's own state, which its rules core folds events into (its JSON form is
:mod:`kipukas_board.modes.kipukas.rules.view`); on the table it is the
:attr:`~kipukas_board.table.state.TableState.mode_state` while Kipukas is played.

Besides what only Kipukas has (players, claims, the diel cycle, souls, questions...), it keeps its
own reading of what the table shares (the map, each stand with whose token the rules infer is on it,
the cards shown, its problems, the journal number), because its rules read and change them
together; the table takes the shared part back after every event
(:func:`kipukas_board.modes.kipukas.on_table.shared`).

The state is treated as immutable: :func:`kipukas_board.modes.kipukas.rules.core.apply` returns a new state that
shares every record it did not change (records are frozen dataclasses, containers are copied
shallowly and only when something in them changes), which keeps replaying a long journal fast and
makes "before" and "after" safe to compare.

What the board *knows* is kept apart from what it *infers*: a stand's ``occupied`` is the reed switch;
its ``owner`` is inferred (setup order, moves, answers) and stays ``None`` while an open question asks.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.modes.kipukas.rules.state import initial_state
    >>> s = initial_state(load_map("kipuka-8"))
    >>> s.phase, s.territories[1].claim
    ('setup', None)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.modes.kipukas.rules.editions import DEFAULT_DIEL_WEIGHTS
from kipukas_board.table.problems import MAX_PROBLEMS

_R = TypeVar("_R")
_new = object.__new__
_set = object.__setattr__  # the records are frozen: copies are built through object's own setattr


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
    downed: bool = False  # the soul(s) on this stand are downed (entered by players)
    awaiting: str | None = None  # "imprisoned" | "wasted": the token should be lifted; its lift is no move
    since: int = 0  # diel cycle the token arrived (for loitering in an enemy capital)
    soul: str | None = None  # id of the soul bound to this token (see :mod:`kipukas_board.modes.kipukas.rules.souls`)


#: A stand with no token (records are immutable, so one serves every empty stand).
EMPTY_STAND = StandState()


@dataclass(frozen=True)
class TerritoryState:
    owner: int | None = None  # seat of the holder, when known
    claim: str | None = None  # "capital" | "base_camp" | None
    contention: bool = False
    prisoners: tuple[int, ...] = ()  # seats whose souls are imprisoned here
    resolved: frozenset[int] = frozenset()  # seats whose presence a resolution already settled
    #: The seat whose fight left the holder no soul here: its next soul onto the territory stand takes it.
    taker: int | None = None


@dataclass(frozen=True)
class Lift:
    """A token lifted from a stand and not yet put down: the hand of a player mid-move."""

    stand: str
    owner: int | None
    downed: bool = False
    contested: int | None = None  # the territory in contention it left (asked about if it never reappears)
    against: tuple[int, ...] = ()  # the other contenders there when it left
    since: int = 0  # the diel cycle it arrived where it was lifted from
    soul: str | None = None  # the soul bound to the token, carried to where it is put down


@dataclass(frozen=True)
class Soul:
    """A soul card the board has bound to a soul token: who it is and how hurt it is.

    ``lost`` counts KEAL means lost, from 0 to ``tolerance`` (the card's injury tolerance); at the
    tolerance the soul is *downed*. A soul whose card has 0 KEAL means is never downed: it moves and
    fights, and the first KEAL means bout it loses wastes it (the web rules' Myrthvither Raven, "Card
    Status (health): 0": "if it losses once, it is wasted"). A *wasted* soul is out of play for good
    (only undo brings it back). ``failed_cycle``: the diel cycle in which its blow last failed ("After an
    unsuccessful blow, the player loses their ability to attack with that card for this diel cycle").
    Where it stands is kept on the stand (``StandState.soul``) or the lifted token (``Lift.soul``).
    """

    id: str
    seat: int
    code: str
    copy: str | None
    serial: str | None
    title: str
    tolerance: int
    movement: int
    habitat: str = ""
    die: str = ""  # the card's Die Rolls ("D6-D6"; empty: see kipukas_board.modes.kipukas.rules.bouts.DEFAULT_DIE)
    archetype: str = ""  # the Archetypal Gene (the catalog's genetic_disposition), for affinity
    motivation: str = ""
    brawl: str = ""  # the brawl sequence that breaks ties
    lost: int = 0
    wasted: bool = False
    rested: int = 0  # plains healing: diel cycles rested towards the next KEAL means healed
    failed_cycle: int = -1
    failed_by: str = ""  # what failed in that cycle: "blow" or "retreat"

    @property
    def downed(self) -> bool:
        return not self.wasted and self.tolerance > 0 and self.lost >= self.tolerance


@dataclass(frozen=True)
class ClaimWait:
    """A territory stand waiting for an attacker's soul during (or after) a fight over its territory.

    The attacker claims by putting a soul on the territory stand once the holder's token has left it,
    in either order: ``placed`` False, the holder's token is off and the stand waits for the token
    to come down; ``placed`` True, a token is back on the stand while the attacker's soul token
    still stands in the territory, and the board waits ``left`` more sensor changes for that token
    to be lifted (the soul stepped onto the stand). The stand is lit in ``seat``'s colour meanwhile.
    """

    territory: int
    stand: str
    seat: int | None  # the attacker it waits for (None when several could claim)
    placed: bool = False
    left: int = 0


@dataclass(frozen=True)
class UndoEntry:
    """The state before a player action, and the sensor events that came after it (re-applied on undo)."""

    action: str
    seq: int | None
    before: KipukasState
    since: tuple[dict[str, Any], ...] = ()
    expired: bool = False


@dataclass(frozen=True)
class KipukasState:
    """Everything a Kipukas game knows. ``seq`` is the journal sequence number last applied."""

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
    problems: tuple[str, ...] = ()  # the open ones: each clears itself (kipukas_board.table.problems)
    problem_causes: tuple[Any, ...] = ()  # a ProblemCause per problem: what it is about
    seq: int = 0
    # -- the game's settings (new-game) --
    started: bool = False
    edition: str = "web"
    play_style: str = "domination"
    style_options: dict[str, Any] = field(default_factory=dict)
    diel_weights: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_DIEL_WEIGHTS))
    # -- setup --
    placement_order: tuple[int, ...] = ()  # seats in placing order (first placer first)
    placement_rolls: tuple[tuple[int, int], ...] = ()  # the D6 rolls that chose the first placer: (seat, roll)
    placements: int = 0  # tokens placed so far at setup
    placer: int | None = None  # whose placement it is (setup)
    placed: tuple[str, ...] = ()  # territory stands placed at setup, in order
    first_player: int | None = None  # plays first: the player who placed the capital second
    initiative: int | None = None
    # -- play --
    contenders: dict[int, tuple[int, ...]] = field(default_factory=dict)
    storm_exposed: tuple[str, ...] = ()
    hand: tuple[Lift, ...] = ()  # tokens lifted and not yet put down
    lifted_claims: dict[str, tuple[int | None, str | None]] = field(default_factory=dict)
    claim_waits: tuple[ClaimWait, ...] = ()  # territory stands waiting for an attacker's soul
    souls: dict[str, Soul] = field(default_factory=dict)  # soul cards bound (or shown), by id
    soul_pending: dict[int, str] = field(default_factory=dict)  # seat -> soul shown, waiting for its token
    last_bout: dict[str, Any] | None = None  # the bout assistant's last reckoning, for the page
    souls_lost: dict[int, int] = field(default_factory=dict)
    souls_defeated: dict[int, int] = field(default_factory=dict)
    claims_gained: dict[int, int] = field(default_factory=dict)
    eliminated: tuple[int, ...] = ()
    hill_since: int | None = None  # King of the Hill: cycle since which the hill's holder held it
    last_roll: dict[str, Any] | None = None
    counter: int = 0  # for question and timer ids
    undo: tuple[UndoEntry, ...] = ()

    def evolve(self, **changes: Any) -> KipukasState:
        """A copy with ``changes`` applied (containers not named are shared, not copied).

        A copy of the attribute dict rather than :func:`dataclasses.replace` (which re-runs
        ``__init__`` over ~40 fields): replay applies thousands of events a second and this is its
        hot path. A *draft* (see :func:`draft`) is changed in place and returned instead.
        """
        if not _FIELDS.issuperset(changes):
            raise TypeError(f"KipukasState has no field(s) {', '.join(sorted(changes.keys() - _FIELDS))}")
        d = self.__dict__
        if _DRAFT in d:
            d.update(changes)
            d[_DRAFT] = True
            return self
        d = d.copy()
        d.update(changes)
        new = _new(KipukasState)
        _set(new, "__dict__", d)
        return new

    def player(self, seat: int | None) -> Player | None:
        for p in self.players:
            if p.seat == seat:
                return p
        return None

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(p.seat for p in self.players)

    def with_problem(self, text: str) -> KipukasState:
        return self.evolve(problems=(*self.problems, text)[-MAX_PROBLEMS:])

    @property
    def problem_cycle(self) -> int:
        """A problem not over by its cause is over when the next diel cycle begins."""
        return self.diel_cycle


_FIELDS = frozenset(f.name for f in fields(KipukasState))
_DRAFT = "_draft"  # a key in a draft's attribute dict (never a field): False until it is changed


def draft(state: KipukasState) -> KipukasState:
    """A private working copy of ``state`` for one step of the rules, which ``evolve`` changes in place.

    A rules step evolves the state several times (a stand set, a hand shortened, a contention
    refreshed, ...), and a copy of ~40 attributes each time would be the replay's largest single
    cost. The rules core takes one draft per event instead, hands it to the event's handler, and seals it
    (:func:`seal`) before anyone else can see it, so every state outside the core is still
    immutable. Inside a handler a draft reads like any state; the one thing a handler must not do
    is keep an earlier ``state`` to read after evolving (it would see the new values): it keeps
    the field values it needs instead, as the rules modules do.

    Example::

        >>> from kipukas_board.board.mapfile import load_map
        >>> work = draft(initial_state(load_map("kipuka-8")))
        >>> work.evolve(diel_cycle=3) is work
        True
        >>> seal(work), work.evolve(seq=1) is work
        (True, False)
    """
    d = state.__dict__.copy()
    d[_DRAFT] = False
    new = _new(KipukasState)
    _set(new, "__dict__", d)
    return new


def changed_draft(work: KipukasState) -> bool:
    """Whether any ``evolve`` changed the draft ``work`` so far."""
    return bool(work.__dict__.get(_DRAFT, False))


def seal(work: KipukasState) -> bool:
    """End ``work``'s life as a draft (it is an ordinary immutable state from now on); whether any
    ``evolve`` changed it."""
    return bool(work.__dict__.pop(_DRAFT, False))


def amend(record: _R, **changes: Any) -> _R:
    """A copy of the frozen record ``record`` (a :class:`StandState`, :class:`Soul`, ...) with ``changes``.

    What :func:`dataclasses.replace` does, without re-running ``__init__``: the rules make these
    copies many times an event. The records have no ``__post_init__`` to skip; a field name that is not
    the record's raises :class:`TypeError` as ``replace`` does.

    Example::

        >>> amend(StandState(occupied=True, owner=2), downed=True)
        StandState(occupied=True, owner=2, downed=True, awaiting=None, since=0, soul=None)
    """
    d = record.__dict__.copy()
    n = len(d)
    d.update(changes)
    if len(d) != n:
        unknown = ", ".join(sorted(changes.keys() - record.__dict__.keys()))
        raise TypeError(f"{type(record).__name__} has no field(s) {unknown}")
    new = _new(type(record))
    _set(new, "__dict__", d)
    return new


def waiting_stands(state: KipukasState) -> dict[int, dict[str, Any]]:
    """Territory stands waiting for an attacker's soul (lit in their colour), by territory: ``stand``,
    ``seat`` and ``step``: "fight_won" (the holder has no soul left there and its token is still on),
    "token_off" (the holder's token is off; the soul may step on) or "token_back" (a token is back
    on; the attacker's soul token should come off its movement stand)."""
    out: dict[int, dict[str, Any]] = {}
    for w in state.claim_waits:
        out[w.territory] = {"stand": w.stand, "seat": w.seat, "step": "token_back" if w.placed else "token_off"}
    for n, t in state.territories.items():
        if t.taker is not None and n not in out:
            for sid, spec in state.board.stands.items():
                if spec.territory == n and spec.kind == "territory":
                    out[n] = {"stand": sid, "seat": t.taker, "step": "fight_won"}
    return out


def turn_order(state: KipukasState) -> tuple[int, ...]:
    """Who acts in what order this cycle: the initiative holder first, then round the table in
    placing order (the seat after the first placer, ...), skipping eliminated players.

    Both books describe two players: the one who placed the capital second plays first and holds
    initiative for the first day; the other acts next. With three or four players the board goes
    on round the table, so the first placer always acts last on the first day.
    """
    order = [s for s in state.placement_order if s not in state.eliminated]
    if state.initiative not in order:
        return tuple(order)
    i = order.index(state.initiative)
    return tuple(order[i:] + order[:i])


def initial_state(board: BoardMap) -> KipukasState:
    """An empty board: no tokens, no claims, no game yet."""
    return KipukasState(
        board=board,
        stands={sid: StandState() for sid in board.stands},
        territories={n: TerritoryState() for n in sorted(board.territories)},
    )
