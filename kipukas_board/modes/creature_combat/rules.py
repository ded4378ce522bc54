"""Creature Combat Territory's rules core: ``apply(cc, event) -> (cc, effects)``, pure.

The rules are those of "Creature Combat Territory" (docs/explanation/rules.md holds the board's
interpretations).
No I/O, no clock, no dice: the runtime writes everything the rules need *into* the events (the
players' decks from the card catalog, the table layout), so a replay of the journal is exact.

What the board can know: which lands lie in the five slots (scanned or picked on the page), which
creatures were revealed at the land being fought (shown to a seat's camera or picked on the page),
and the adjustments players enter for abilities (free text on the cards). Creatures deployed face
down are unknown until revealed, so they stay in the *ready* pile in the board's eyes until then.

Every creature is in exactly one pile at any time: ``ready``, ``land`` (revealed at the land being
fought), ``resting`` (with its rest counters) or ``returning``.

Example::

    >>> cc, fx = new_game(example_new_game())
    >>> cc.phase, cc.round
    ('round_begin', 1)
    >>> creature_power(Creature("f", 1, "Rusty", "Red Fox", 12, 2, 5, {"forest": 2}), "forest")
    7
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

BIOMES = ("forest", "mountain", "plain", "lake", "ocean", "swamp", "desert", "tundra", "jungle", "volcano")
#: Lands in play at once (the rule book's table layout).
SLOTS = 5
#: The rule book's deck limits; players may agree on others at new game.
DECK_COST = 100
LAND_DECK = 25
PILES = ("ready", "land", "resting", "returning", "removed")
PHASES = ("round_begin", "deploy", "combat", "round_end", "over")
#: Player actions ``undo`` can take back, newest last.
UNDO_DEPTH = 20
#: Bounds on one creature's adjustments in one combat: each number (the rule book's damage counters
#: "can go as high as 50 and beyond"), and how many abilities may add to it.
MAX_ADJUST = 999
MAX_ADJUSTMENTS = 8

Effect = dict[str, Any]
Event = dict[str, Any]


@dataclass(frozen=True)
class Creature:
    id: str
    seat: int
    name: str
    species: str
    cost: int
    stars: int
    base_power: int
    biomes: dict[str, int] = field(default_factory=dict)
    ability: str = ""

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Creature:
        return cls(id=d["id"], seat=d["seat"], name=d.get("name", ""), species=d.get("species", ""),
                   cost=d["cost"], stars=d["stars"], base_power=d["base_power"],
                   biomes=dict(d.get("biomes", {})), ability=d.get("ability", ""))


@dataclass(frozen=True)
class Land:
    id: str
    seat: int  # whose land deck it came from (they take it back after the game)
    name: str
    biome: str


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    color: str
    conceded: bool = False


@dataclass(frozen=True)
class Adjustment:
    """What abilities did to one creature in one combat (players enter it; the card's text says why).

    ``base``: change to Base Power (damage, Exhaust, "-1 Base Power"); ``power``: change to its power
    after the biome rule; ``rest``: Rest counters the abilities cost; ``support``: it adds no power;
    ``sacrifice``: it is removed from the game when the round ends. A second ability on the same
    creature adds to the first (:meth:`plus`): a creature may use more than one ability in a round,
    and an enemy's ability may hit it too, so no cost already paid is lost.

    Example::

        >>> a = Adjustment(rest=2, reason="Roar").plus(Adjustment(base=-1, sacrifice=True, reason="Last stand"))
        >>> a.base, a.rest, a.sacrifice, a.reason, a.count
        (-1, 2, True, 'Roar; Last stand', 2)
    """

    base: int = 0
    power: int = 0
    rest: int = 0
    support: bool = False
    reason: str = ""
    sacrifice: bool = False
    count: int = 1

    def plus(self, other: Adjustment) -> Adjustment:
        """Both adjustments at once: numbers add, support and sacrifice hold if either has them."""
        return Adjustment(base=self.base + other.base, power=self.power + other.power, rest=self.rest + other.rest,
                          support=self.support or other.support, reason=f"{self.reason}; {other.reason}",
                          sacrifice=self.sacrifice or other.sacrifice, count=self.count + other.count)

    def to_json(self) -> dict[str, Any]:
        return {"base": self.base, "power": self.power, "rest": self.rest, "support": self.support,
                "sacrifice": self.sacrifice, "reason": self.reason, "count": self.count}


@dataclass(frozen=True)
class CCState:
    seats: tuple[Seat, ...]
    creatures: dict[str, Creature]
    lands: dict[str, Land]
    pile: dict[str, str]  # creature id -> one of PILES
    rest: dict[str, int]  # creature id -> rest counters (only creatures in the resting pile)
    deck: tuple[str, ...]  # land ids not dealt yet (sorted: the real deck's order is unknown)
    slots: tuple[str | None, ...] = (None,) * SLOTS
    land_piles: dict[int, tuple[str, ...]] = field(default_factory=dict)
    round: int = 1
    phase: str = "round_begin"
    done: frozenset[int] = frozenset()
    combat_slot: int | None = None  # index into slots of the land being fought
    revealed: dict[int, tuple[str, ...]] = field(default_factory=dict)  # seat -> creatures at that land
    adjustments: dict[str, Adjustment] = field(default_factory=dict)  # creature -> this combat's
    sacrificed: frozenset[str] = frozenset()  # creatures removed from the game when this round ends
    choices_left: dict[int, int] = field(default_factory=dict)  # Round End land-pile choices per seat
    results: tuple[dict[str, Any], ...] = ()
    last_result: dict[str, Any] | None = None
    winner: int | None = None
    tied: tuple[int, ...] = ()
    end_reason: str | None = None
    options: dict[str, int] = field(default_factory=dict)
    table: dict[str, Any] = field(default_factory=dict)
    undo: tuple[CCState, ...] = ()

    def evolve(self, **changes: Any) -> CCState:
        unknown = changes.keys() - _FIELDS
        if unknown:
            raise TypeError(f"CCState has no field(s) {', '.join(sorted(unknown))}")
        new = object.__new__(CCState)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    @property
    def active(self) -> tuple[int, ...]:
        """Seats still playing (not conceded)."""
        return tuple(s.seat for s in self.seats if not s.conceded)

    def seat(self, seat: int) -> Seat | None:
        return next((s for s in self.seats if s.seat == seat), None)

    def land_at(self, index: int | None) -> Land | None:
        if index is None or not 0 <= index < len(self.slots):
            return None
        lid = self.slots[index]
        return self.lands[lid] if lid is not None else None

    def piles_of(self, seat: int) -> dict[str, Any]:
        """The seat's creatures by pile; resting ones grouped by their rest counters."""
        out: dict[str, Any] = {"ready": [], "land": [], "returning": [], "resting": {}, "removed": []}
        for cid, c in sorted(self.creatures.items()):
            if c.seat != seat:
                continue
            pile = self.pile[cid]
            if pile == "resting":
                out["resting"].setdefault(str(self.rest[cid]), []).append(cid)
            else:
                out[pile].append(cid)
        return out

    def to_json(self) -> dict[str, Any]:
        land = self.land_at(self.combat_slot)
        totals = combat_totals(self) if self.phase == "combat" and land is not None else {}
        return {
            "round": self.round,
            "phase": self.phase,
            "seats": [{"seat": s.seat, "name": s.name, "color": s.color, "conceded": s.conceded,
                       "lands": [self._land_json(lid) for lid in self.land_piles.get(s.seat, ())],
                       "piles": self.piles_of(s.seat),
                       "done": s.seat in self.done, "choices_left": self.choices_left.get(s.seat, 0)}
                      for s in self.seats],
            "slots": [{"number": i + 1, "land": self._land_json(lid)} for i, lid in enumerate(self.slots)],
            "deck": len(self.deck),
            "deck_lands": [self._land_json(lid) for lid in self.deck],
            "lands_total": len(self.lands),
            "combat": None if land is None else {
                "slot": self.combat_slot + 1 if self.combat_slot is not None else None,
                "land": self._land_json(land.id),
                "revealed": {str(s): [self._fighter_json(cid, land.biome) for cid in cids]
                             for s, cids in sorted(self.revealed.items())},
                "totals": {str(s): t for s, t in sorted(totals.items())},
            },
            "creatures": {cid: {"seat": c.seat, "name": c.name, "species": c.species, "cost": c.cost,
                                "stars": c.stars, "base_power": c.base_power, "biomes": dict(c.biomes),
                                "ability": c.ability, "pile": self.pile[cid], "rest": self.rest.get(cid, 0),
                                "sacrificed": cid in self.sacrificed}
                          for cid, c in sorted(self.creatures.items())},
            "last_result": self.last_result,
            "results": list(self.results[-20:]),
            "winner": self.winner,
            "tied": list(self.tied),
            "end_reason": self.end_reason,
            "options": dict(self.options),
            "table": self.table,
            "can_undo": bool(self.undo),
        }

    def _land_json(self, lid: str | None) -> dict[str, Any] | None:
        if lid is None:
            return None
        land = self.lands[lid]
        return {"id": land.id, "name": land.name, "biome": land.biome, "seat": land.seat}

    def _fighter_json(self, cid: str, biome: str) -> dict[str, Any]:
        c = self.creatures[cid]
        adj = self.adjustments.get(cid)
        return {"id": cid, "name": c.name, "species": c.species, "base_power": c.base_power,
                "modifier": c.biomes.get(biome, 0), "power": creature_power(c, biome, adj),
                "counts": not (adj and adj.support), "adjustment": adj.to_json() if adj else None}


_FIELDS = frozenset(f.name for f in fields(CCState))


# -- the arithmetic ---------------------------------------------------------------------------------
def effective_base(c: Creature, adj: Adjustment | None = None) -> int:
    """Base Power after this combat's changes; it cannot go below 0 (rule book, "Taking Damage")."""
    return max(0, c.base_power + (adj.base if adj else 0))


def creature_power(c: Creature, biome: str, adj: Adjustment | None = None) -> int:
    """Base Power plus the Biome Modifier matching ``biome`` (0 without one); 0 when Base Power is 0
    or less (the modifier ignored); then the adjustment's ``power`` change."""
    base = effective_base(c, adj)
    power = 0 if base <= 0 else base + c.biomes.get(biome, 0)
    return power + (adj.power if adj else 0)


def combat_totals(cc: CCState) -> dict[int, int]:
    """Total power per active seat at the land being fought (supporting creatures add nothing)."""
    land = cc.land_at(cc.combat_slot)
    if land is None:
        return {}
    totals = {s: 0 for s in cc.active}
    for seat, cids in cc.revealed.items():
        if seat not in totals:
            continue
        for cid in cids:
            adj = cc.adjustments.get(cid)
            if adj is None or not adj.support:
                totals[seat] += creature_power(cc.creatures[cid], land.biome, adj)
    return totals


def rest_after_combat(c: Creature, adj: Adjustment | None = None) -> int:
    """Rest counters a creature gets when pulled back: 1 if its Base Power is 0 or less; its star
    count more if damage (a negative ``base`` change) brought it to 0; plus what its ability cost."""
    base = effective_base(c, adj)
    rest = 1 if base <= 0 else 0
    if base == 0 and c.base_power > 0 and adj is not None and adj.base < 0:
        rest += c.stars
    return rest + max(0, adj.rest if adj else 0)


def card_cost(base_power: int, biomes: dict[str, int], ability_cost: int = 0, discount: int = 0) -> int:
    """The card-creation formula: Base Power x 2 + half the total Biome Bonus rounded up + the
    abilities' cost, less a discount, at least 1.

    >>> card_cost(5, {"forest": 2, "ocean": -3}, ability_cost=1)
    12
    """
    bonus = sum(v for v in biomes.values() if v > 0)
    return max(1, base_power * 2 + math.ceil(bonus / 2) + ability_cost - discount)


def stars_for(cost: int) -> int:
    """Star count = cost / 10 rounded up."""
    return math.ceil(cost / 10)


def deck_problems(creatures: list[dict[str, Any]], lands: list[dict[str, Any]], deck_cost: int = DECK_COST,
                  land_deck: int = LAND_DECK, who: str = "the deck") -> list[str]:
    """The rule book's deck checks (one rule, checked by the importer and at new game alike)."""
    out = []
    total = sum(int(c.get("cost", 0)) for c in creatures)
    if total > deck_cost:
        out.append(f"{who}: creature deck costs {total} in all, more than the {deck_cost} agreed "
                   f"(the rule book's limit is {DECK_COST}; agree on another with options.deck_cost at new game)")
    if len(lands) != land_deck:
        out.append(f"{who}: land deck has {len(lands)} lands, the game needs {land_deck} "
                   f"(the rule book's deck is {LAND_DECK}; agree on another with options.land_deck at new game)")
    return out


# -- events -----------------------------------------------------------------------------------------
def new_game(event: Event) -> tuple[CCState, list[Effect]]:
    """A new game from a checked ``new_game`` event (its decks already written in by the runtime)."""
    seats = tuple(Seat(p["seat"], p["name"].strip(), p["color"].lower()) for p in event["players"])
    creatures = {c["id"]: Creature.from_json(c) for c in event["creatures"]}
    lands = {d["id"]: Land(d["id"], d["seat"], d.get("name", d["id"]), d["biome"]) for d in event["lands"]}
    options = {"deck_cost": DECK_COST, "land_deck": LAND_DECK, **event.get("options", {})}
    cc = CCState(seats=seats, creatures=creatures, lands=lands, pile={cid: "ready" for cid in creatures},
                 rest={}, deck=tuple(sorted(lands)), land_piles={s.seat: () for s in seats},
                 options=options, table=dict(event.get("table") or {}))
    effects: list[Effect] = [{"type": "cc_new_game", "players": [s.seat for s in seats],
                              "creatures": len(creatures), "lands": len(lands)}]
    problems = []
    for s in seats:
        mine_c = [event_c for event_c in event["creatures"] if event_c["seat"] == s.seat]
        mine_l = [d for d in event["lands"] if d["seat"] == s.seat]
        problems += deck_problems(mine_c, mine_l, options["deck_cost"], options["land_deck"], f"{s.name}'s deck")
    if problems:
        return cc, [_problem(p) for p in problems]
    return _round_begin(cc, effects), effects


def _problem(text: str) -> Effect:
    return {"type": "problem", "text": text}


def refused(effects: list[Effect]) -> bool:
    return bool(effects) and all(e.get("type") == "problem" for e in effects)


def apply(cc: CCState, event: Event) -> tuple[CCState, list[Effect]]:
    """Fold one checked creature-combat event into ``cc``; a refusal leaves it unchanged and says why
    in ``problem`` effects."""
    kind = event["type"]
    effects: list[Effect] = []
    if kind == "undo":
        if not cc.undo:
            return cc, [_problem("nothing to undo")]
        prev = cc.undo[-1]
        return prev.evolve(undo=cc.undo[:-1]), [{"type": "undone", "action": "creature combat action"}]
    if cc.phase == "over":
        return cc, [_problem("the game is over; start a new one")]
    handler = _HANDLERS.get(kind)
    if handler is None:
        return cc, [_problem(f"{kind.replace('_', ' ')} is not part of Creature Combat Territory")]
    try:
        new = handler(cc, event, effects)
    except _Refused as exc:
        return cc, [_problem(str(exc))]
    if new is not cc:
        new = new.evolve(undo=(*cc.undo, cc.evolve(undo=()))[-UNDO_DEPTH:])
    return new, effects


class _Refused(Exception):
    """The event does not fit the game now; the message says why."""


def _need_phase(cc: CCState, what: str, *phases: str) -> None:
    if cc.phase not in phases:
        names = " or ".join(p.replace("_", " ") for p in phases)
        raise _Refused(f"{what} only in {names} (the round is in {cc.phase.replace('_', ' ')})")


def _need_seat(cc: CCState, seat: int) -> None:
    s = cc.seat(seat)
    if s is None:
        raise _Refused(f"seat {seat} is not playing (seats {', '.join(str(x.seat) for x in cc.seats)})")
    if s.conceded:
        raise _Refused(f"{s.name} (seat {seat}) has conceded")


def _round_begin(cc: CCState, effects: list[Effect]) -> CCState:
    """Round Begin: lands are dealt into the empty slots (a draw's land stays where it was)."""
    empty = sum(1 for lid in cc.slots if lid is None)
    to_deal = min(empty, len(cc.deck))
    cc = cc.evolve(phase="round_begin", done=frozenset(), combat_slot=None, revealed={}, adjustments={},
                   choices_left={})
    effects.append({"type": "cc_round", "round": cc.round, "deal": to_deal})
    if to_deal == 0:
        return _after_dealing(cc, effects)
    return cc


def _after_dealing(cc: CCState, effects: list[Effect]) -> CCState:
    if all(lid is None for lid in cc.slots):
        return _end(cc, effects, "no lands left to claim")
    effects.append({"type": "cc_deploy", "round": cc.round})
    return cc.evolve(phase="deploy", done=frozenset())


def _on_deal(cc: CCState, event: Event, effects: list[Effect]) -> CCState:
    _need_phase(cc, "lands are dealt", "round_begin")
    lid = event["land"]
    if lid not in cc.lands:
        raise _Refused(f"no land {lid!r} in this game's land decks")
    if lid not in cc.deck:
        where = next((f"slot {i + 1}" for i, x in enumerate(cc.slots) if x == lid), None)
        where = where or next((f"seat {s}'s land pile" for s, p in cc.land_piles.items() if lid in p), "play")
        raise _Refused(f"land {lid!r} ({cc.lands[lid].name}) was already dealt: it is in {where}")
    slot = event.get("slot")
    if slot is None:
        index = next((i for i, x in enumerate(cc.slots) if x is None), None)
        if index is None:
            raise _Refused("every land slot is filled")
    else:
        index = slot - 1
        if not 0 <= index < SLOTS:
            raise _Refused(f"slot {slot} is not one of the {SLOTS} land slots")
        if cc.slots[index] is not None:
            raise _Refused(f"slot {slot} already holds {cc.lands[cc.slots[index]].name}")
    slots = list(cc.slots)
    slots[index] = lid
    land = cc.lands[lid]
    cc = cc.evolve(slots=tuple(slots), deck=tuple(x for x in cc.deck if x != lid))
    effects.append({"type": "cc_dealt", "slot": index + 1, "land": lid, "name": land.name, "biome": land.biome})
    if all(x is not None for x in cc.slots) or not cc.deck:
        return _after_dealing(cc, effects)
    return cc


def _on_done(cc: CCState, event: Event, effects: list[Effect]) -> CCState:
    _need_phase(cc, "players say done", "deploy", "round_end")
    seat = event["seat"]
    _need_seat(cc, seat)
    if seat in cc.done:
        return cc
    done = cc.done | {seat}
    effects.append({"type": "cc_done", "seat": seat, "phase": cc.phase})
    return _when_all_done(cc.evolve(done=done), effects)


def _when_all_done(cc: CCState, effects: list[Effect]) -> CCState:
    """Deploy ends (combat begins) and Round End ends (the next round begins) once every player still
    playing has said done."""
    if not set(cc.active) <= cc.done:
        return cc
    if cc.phase == "deploy":
        return _next_combat(cc, effects, start=0)
    return _round_begin(cc.evolve(round=cc.round + 1), effects)


def _next_combat(cc: CCState, effects: list[Effect], start: int) -> CCState:
    index = next((i for i in range(start, SLOTS) if cc.slots[i] is not None), None)
    if index is None:
        return _round_end(cc, effects)
    land = cc.lands[cc.slots[index]]  # type: ignore[index]
    effects.append({"type": "cc_combat", "slot": index + 1, "land": land.id, "name": land.name,
                    "biome": land.biome})
    return cc.evolve(phase="combat", combat_slot=index, revealed={}, adjustments={}, done=frozenset())


def _owner_ready(cc: CCState, seat: int | None, cid: str) -> Creature:
    c = cc.creatures.get(cid)
    if c is None:
        raise _Refused(f"no creature {cid!r} in this game's decks")
    if seat is not None and c.seat != seat:
        raise _Refused(f"creature {cid!r} ({c.name}) belongs to seat {c.seat}, not seat {seat}")
    _need_seat(cc, c.seat)
    return c


def _on_reveal(cc: CCState, event: Event, effects: list[Effect]) -> CCState:
    _need_phase(cc, "creatures are revealed", "combat")
    c = _owner_ready(cc, event.get("seat"), event["creature"])
    pile = cc.pile[c.id]
    if pile == "land":
        return cc  # shown again: already counted
    if pile != "ready":
        extra = f" with {cc.rest[c.id]} rest counter(s)" if pile == "resting" else ""
        raise _Refused(f"{c.name} ({c.id}) cannot fight: it is in the {pile} pile{extra}")
    revealed = dict(cc.revealed)
    revealed[c.seat] = (*revealed.get(c.seat, ()), c.id)
    land = cc.land_at(cc.combat_slot)
    assert land is not None
    effects.append({"type": "cc_revealed", "seat": c.seat, "creature": c.id, "name": c.name,
                    "power": creature_power(c, land.biome)})
    return cc.evolve(revealed=revealed, pile={**cc.pile, c.id: "land"})


def _on_unreveal(cc: CCState, event: Event, effects: list[Effect]) -> CCState:
    _need_phase(cc, "a revealed creature is taken back", "combat")
    c = _owner_ready(cc, event.get("seat"), event["creature"])
    if cc.pile[c.id] != "land":
        raise _Refused(f"{c.name} ({c.id}) is not revealed at this land")
    revealed = dict(cc.revealed)
    revealed[c.seat] = tuple(x for x in revealed.get(c.seat, ()) if x != c.id)
    adjustments = {k: v for k, v in cc.adjustments.items() if k != c.id}
    effects.append({"type": "cc_unrevealed", "seat": c.seat, "creature": c.id})
    return cc.evolve(revealed=revealed, adjustments=adjustments, pile={**cc.pile, c.id: "ready"})


def _on_adjust(cc: CCState, event: Event, effects: list[Effect]) -> CCState:
    _need_phase(cc, "powers are adjusted", "combat")
    cid = event["creature"]
    c = _owner_ready(cc, None, cid)
    if cc.pile[cid] != "land":
        raise _Refused(f"{c.name} ({cid}) is not revealed at this land: only fighting creatures are adjusted")
    added = Adjustment(base=event.get("base", 0), power=event.get("power", 0), rest=event.get("rest", 0),
                       support=bool(event.get("support", False)), reason=event["reason"].strip(),
                       sacrifice=bool(event.get("sacrifice", False)))
    earlier = cc.adjustments.get(cid)
    adj = added if earlier is None else earlier.plus(added)
    if adj.count > MAX_ADJUSTMENTS:
        raise _Refused(f"{c.name} ({cid}) already has {earlier.count if earlier else 0} adjustments in this "
                       f"combat ({earlier.reason if earlier else ''}), at most {MAX_ADJUSTMENTS}: undo one or "
                       f"take the creature back and reveal it again")
    for k in ("base", "power", "rest"):
        if abs(getattr(adj, k)) > MAX_ADJUST:
            raise _Refused(f"{c.name} ({cid}): this adjustment would bring its {k} change to {getattr(adj, k)} "
                           f"in all, at most {MAX_ADJUST} either way")
    land = cc.land_at(cc.combat_slot)
    assert land is not None
    effects.append({"type": "cc_adjusted", "seat": c.seat, "creature": cid, "name": c.name,
                    "adjustment": adj.to_json(), "added": added.to_json(),
                    "earlier": earlier.to_json() if earlier else None, "power": creature_power(c, land.biome, adj)})
    return cc.evolve(adjustments={**cc.adjustments, cid: adj})


def _on_resolve(cc: CCState, event: Event, effects: list[Effect]) -> CCState:
    _need_phase(cc, "a land's combat is resolved", "combat")
    land = cc.land_at(cc.combat_slot)
    assert land is not None and cc.combat_slot is not None
    totals = combat_totals(cc)
    best = max(totals.values()) if totals else 0
    top = [s for s, t in totals.items() if t == best]
    winner = top[0] if len(top) == 1 else None
    slots, land_piles = list(cc.slots), dict(cc.land_piles)
    if winner is not None:
        slots[cc.combat_slot] = None
        land_piles[winner] = (*land_piles.get(winner, ()), land.id)
    pile, rest = dict(cc.pile), dict(cc.rest)
    rested = {}
    sacrificed = cc.sacrificed | {cid for cid, a in cc.adjustments.items() if a.sacrifice}
    for cids in cc.revealed.values():
        for cid in cids:
            n = rest_after_combat(cc.creatures[cid], cc.adjustments.get(cid))
            if n > 0:
                pile[cid], rest[cid] = "resting", n
                rested[cid] = n
            else:
                pile[cid] = "returning"
    result = {"round": cc.round, "slot": cc.combat_slot + 1, "land": land.id, "name": land.name,
              "biome": land.biome, "totals": {str(s): t for s, t in sorted(totals.items())}, "winner": winner,
              "creatures": {str(s): list(c) for s, c in sorted(cc.revealed.items()) if c},
              "adjustments": {cid: a.to_json() for cid, a in sorted(cc.adjustments.items())},
              "rest": rested, "sacrificed": sorted(sacrificed - cc.sacrificed)}
    effects.append({"type": "cc_result", **result})
    cc = cc.evolve(slots=tuple(slots), land_piles=land_piles, pile=pile, rest=rest, revealed={},
                   adjustments={}, results=(*cc.results, result), last_result=result, sacrificed=sacrificed)
    return _next_combat(cc, effects, start=cc.combat_slot + 1)  # type: ignore[operator]


def _round_end(cc: CCState, effects: list[Effect]) -> CCState:
    """Round End steps 1 and 2 (returning to ready, one rest counter off each resting creature); the
    land-pile choices of step 3 wait for the players. A creature whose ability cost Sacrifice is
    removed from the game first ("This Creature is removed from the game when the round ends")."""
    pile, rest = dict(cc.pile), dict(cc.rest)
    removed = sorted(cc.sacrificed)
    for cid in removed:
        pile[cid] = "removed"
        rest.pop(cid, None)
    for cid, p in pile.items():
        if p == "returning":
            pile[cid] = "ready"
    for cid, p in list(pile.items()):
        if p == "resting":
            rest[cid] -= 1
            if rest[cid] == 0:
                del rest[cid]
                pile[cid] = "returning"
    cc = cc.evolve(pile=pile, rest=rest, combat_slot=None, revealed={}, adjustments={}, sacrificed=frozenset())
    if removed:
        effects.append({"type": "cc_removed", "creatures": removed, "names": [cc.creatures[c].name for c in removed],
                        "reason": "Sacrifice"})
    if not cc.deck and all(lid is None for lid in cc.slots):
        return _end(cc, effects, "no lands left to claim")
    choices = {s: len(cc.land_piles.get(s, ())) for s in cc.active}
    done = frozenset(s for s, n in choices.items() if n == 0 or not _choice_possible(cc, s))
    effects.append({"type": "cc_round_end", "round": cc.round, "choices": {str(s): n for s, n in choices.items()}})
    cc = cc.evolve(phase="round_end", choices_left=choices, done=done)
    if set(cc.active) <= done:
        return _round_begin(cc.evolve(round=cc.round + 1), effects)
    return cc


def _choice_possible(cc: CCState, seat: int) -> bool:
    return any(cc.creatures[cid].seat == seat and p in ("resting", "returning") for cid, p in cc.pile.items())


def _on_choose(cc: CCState, event: Event, effects: list[Effect]) -> CCState:
    _need_phase(cc, "land-pile choices are made", "round_end")
    c = _owner_ready(cc, event.get("seat"), event["creature"])
    seat = c.seat
    if seat in cc.done:
        raise _Refused(f"seat {seat} has said done for this round end")
    if cc.choices_left.get(seat, 0) <= 0:
        raise _Refused(f"seat {seat} has no land-pile choice left this round "
                       f"({len(cc.land_piles.get(seat, ()))} land(s) in their pile)")
    pile, rest = dict(cc.pile), dict(cc.rest)
    if event["choice"] == "rest":
        if pile[c.id] != "resting":
            raise _Refused(f"{c.name} ({c.id}) has no rest counter to remove (it is {pile[c.id]})")
        rest[c.id] -= 1
        if rest[c.id] == 0:
            del rest[c.id]
            pile[c.id] = "returning"
    else:
        if pile[c.id] != "returning":
            raise _Refused(f"{c.name} ({c.id}) is not in the returning pile (it is {pile[c.id]})")
        pile[c.id] = "ready"
    left = {**cc.choices_left, seat: cc.choices_left[seat] - 1}
    effects.append({"type": "cc_chosen", "seat": seat, "creature": c.id, "choice": event["choice"],
                    "pile": pile[c.id], "rest": rest.get(c.id, 0), "left": left[seat]})
    return cc.evolve(pile=pile, rest=rest, choices_left=left)


def _on_concede(cc: CCState, event: Event, effects: list[Effect]) -> CCState:
    seat = event["seat"]
    _need_seat(cc, seat)
    seats = tuple(Seat(s.seat, s.name, s.color, True) if s.seat == seat else s for s in cc.seats)
    pile, revealed = dict(cc.pile), dict(cc.revealed)
    for cid in revealed.pop(seat, ()):
        pile[cid] = "ready"
    cc = cc.evolve(seats=seats, pile=pile, revealed=revealed,
                   adjustments={k: v for k, v in cc.adjustments.items() if cc.creatures[k].seat != seat})
    effects.append({"type": "cc_conceded", "seat": seat})
    if len(cc.active) == 1:
        return _end(cc, effects, "the others conceded", winner=cc.active[0])
    if cc.phase in ("deploy", "round_end"):
        return _when_all_done(cc, effects)
    return cc


def _on_end(cc: CCState, event: Event, effects: list[Effect]) -> CCState:
    """Players agree to end: with ``winner``, the early majority (that seat must hold more than half
    of all the lands in the game); without, the game ends now and the most lands win."""
    if "winner" in event and event["winner"] is not None:
        seat = event["winner"]
        _need_seat(cc, seat)
        held, total = len(cc.land_piles.get(seat, ())), len(cc.lands)
        if held * 2 <= total:
            raise _Refused(f"seat {seat} holds {held} of the {total} lands, not a majority (more than {total // 2})")
        return _end(cc, effects, "majority agreed", winner=seat)
    return _end(cc, effects, "players agreed to end")


def _end(cc: CCState, effects: list[Effect], reason: str, winner: int | None = None) -> CCState:
    pile = dict(cc.pile)
    for cids in cc.revealed.values():  # a fight cut short: its creatures are pulled back, unharmed
        for cid in cids:
            pile[cid] = "ready"
    cc = cc.evolve(pile=pile, revealed={}, adjustments={}, combat_slot=None)
    counts = {s: len(cc.land_piles.get(s, ())) for s in cc.active}
    tied: tuple[int, ...] = ()
    if winner is None and counts:
        best = max(counts.values())
        top = tuple(s for s, n in counts.items() if n == best)
        winner, tied = (top[0], ()) if len(top) == 1 else (None, top)
    effects.append({"type": "cc_over", "winner": winner, "tied": list(tied), "reason": reason,
                    "lands": {str(s): n for s, n in sorted(counts.items())}})
    return cc.evolve(phase="over", winner=winner, tied=tied, end_reason=reason, done=frozenset())


def on_card(cc: CCState, seat: int, card: dict[str, Any] | None) -> tuple[CCState, list[Effect]]:
    """A card shown at a seat's camera: a land while lands are dealt goes to the next empty slot; a
    creature during combat is revealed for its owner. Other showings only appear on the page."""
    if not card or cc.phase == "over":
        return cc, []
    if card.get("kind") == "land" and cc.phase == "round_begin":
        return apply(cc, {"type": "cc_deal", "land": card["id"]})
    if card.get("kind") == "creature" and cc.phase == "combat":
        return apply(cc, {"type": "cc_reveal", "creature": card["id"]})
    return cc, []


_HANDLERS = {
    "cc_deal": _on_deal,
    "cc_done": _on_done,
    "cc_reveal": _on_reveal,
    "cc_unreveal": _on_unreveal,
    "cc_adjust": _on_adjust,
    "cc_resolve": _on_resolve,
    "cc_choose": _on_choose,
    "cc_concede": _on_concede,
    "cc_end": _on_end,
}
EVENT_TYPES = frozenset(_HANDLERS)


def example_new_game() -> Event:
    """A small two-player ``new_game`` event (docs and tests)."""
    creatures = [
        {"id": "fox-1", "seat": 1, "name": "Rusty", "species": "Red Fox", "cost": 12, "stars": 2,
         "base_power": 5, "biomes": {"forest": 2, "ocean": -3}, "ability": ""},
        {"id": "eel-1", "seat": 2, "name": "Zap", "species": "Eel", "cost": 9, "stars": 1,
         "base_power": 4, "biomes": {"lake": 3}, "ability": ""},
    ]
    lands = [{"id": f"l{s}-{i}", "seat": s, "name": f"Land {s}.{i}", "biome": BIOMES[i % len(BIOMES)]}
             for s in (1, 2) for i in range(3)]
    return {"type": "new_game", "game": "creature-combat",
            "players": [{"seat": 1, "name": "Ana", "color": "#e4572e"}, {"seat": 2, "name": "Ben", "color": "#1e90ff"}],
            "creatures": creatures, "lands": lands, "options": {"deck_cost": 100, "land_deck": 3}}
