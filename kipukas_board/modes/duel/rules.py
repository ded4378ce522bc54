"""The card duel's rules core (the card duel's rules): ``apply(duel, event) -> (duel, effects)``, pure.

No I/O, no clock, no dice: the runtime writes the players' decks into the ``new_game`` event, and the
board never needs the source's order, because it cannot see it: between the source and the pool it
knows *how many* cards each holds, not which. A card's identity is known from the moment it is played
(shown to the seat's camera or picked on the page) until it comes back to the source.

Every card of a deck (each copy its own *instance*, ``punch#2``) is in exactly one place at any time:
``hidden`` (the source or the pool, counted by ``source`` and ``pool``), the ``line``, the ``hands``
(assists and traps in the two hand slots), the ``terrain`` (one for the whole table), the ``trash``
or ``limbo``.

The turn (docs/explanation/rules.md holds the interpretations): the challenged player's first turn begins
with a draw of 5, the other's with 7, every later one with its last line discarded and a standard draw
(up to 5 in the pool). The player plays cards; passing the turn compares the foe's attack with the
player's defense (plus the shield of the assist the foe aimed at, or of a GUARD assist): more attack
than defense flips one of the player's Hearts. No Heart left loses; so does having to draw with an
empty source and an empty trash.

Example::

    >>> duel, fx = new_game(example_new_game())
    >>> duel.to_act, duel.sides[0].pool, duel.sides[0].source
    (1, 5, 25)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from kipukas_board.modes.duel.effects import contributions, value_of

TYPES = ("attack", "defense", "scroll", "terrain", "assist", "trap")
IN_LINE = ("attack", "defense", "scroll")
STATUSES = ("PHASE", "CRUMBLE", "BURN", "GUARD")
DECK_SIZE = 30
MAX_COPIES = 3
MAX_EXOTIC_COPIES = 1
HEARTS = 3
FIRST_DRAW = 5
SECOND_DRAW = 7
STANDARD = 5
POOL_LIMIT = 10
HAND_SLOTS = 2
UNDO_DEPTH = 20
#: Bounds on one card's adjustments: each total, and how many texts may add to it.
MAX_ADJUST = 999
MAX_ADJUSTMENTS = 8
PLACES = ("hidden", "line", "hands", "terrain", "trash", "limbo")

Effect = dict[str, Any]
Event = dict[str, Any]


@dataclass(frozen=True)
class Side:
    """One player's piles. ``hidden`` holds the instances in the source or the pool."""

    seat: int
    name: str
    color: str
    hidden: frozenset[str]
    source: int
    pool: int = 0
    line: tuple[str, ...] = ()
    hands: tuple[str, ...] = ()
    trash: tuple[str, ...] = ()
    limbo: tuple[str, ...] = ()
    hearts: int = HEARTS
    hearts_total: int = HEARTS
    aim: str | None = None


@dataclass(frozen=True)
class Duel:
    defs: dict[str, dict[str, Any]]  # card id -> its card (from the card file)
    owner: dict[str, int]  # instance -> seat
    sides: tuple[Side, Side]  # the challenged first
    turn: int = 1
    to_act: int = 0
    terrain: str | None = None
    terrain_safe_until: int = 0  # the terrain cannot be destroyed up to this turn
    sides_chosen: dict[str, str] = field(default_factory=dict)  # instance -> "left" | "right"
    adjustments: dict[str, dict[str, Any]] = field(default_factory=dict)
    results: tuple[dict[str, Any], ...] = ()
    phase: str = "play"
    winner: int | None = None
    end_reason: str | None = None
    undo: tuple[Duel, ...] = ()

    def evolve(self, **changes: Any) -> Duel:
        unknown = changes.keys() - _FIELDS
        if unknown:
            raise TypeError(f"Duel has no field(s) {', '.join(sorted(unknown))}")
        return replace(self, **changes)

    def side(self, seat: int) -> Side:
        return next(s for s in self.sides if s.seat == seat)

    def foe(self, seat: int) -> Side:
        return next(s for s in self.sides if s.seat != seat)

    def with_side(self, side: Side) -> Duel:
        return self.evolve(sides=tuple(side if s.seat == side.seat else s for s in self.sides))

    def card(self, inst: str) -> dict[str, Any]:
        return self.defs[inst.split("#")[0]]

    def place_of(self, inst: str) -> str:
        s = self.side(self.owner[inst])
        for place in ("line", "hands", "trash", "limbo"):
            if inst in getattr(s, place):
                return place
        if inst == self.terrain:
            return "terrain"
        return "hidden"

    # -- totals --------------------------------------------------------------------------------------
    def contributions(self, seat: int) -> list[dict[str, Any]]:
        s, f = self.side(seat), self.foe(seat)
        cards = [{"card": i, "where": "line"} for i in s.line] + [{"card": i, "where": "hands"} for i in s.hands]
        if self.terrain is not None and self.owner[self.terrain] == seat:
            cards.append({"card": self.terrain, "where": "terrain"})
        for c in cards:
            c["def"] = self.card(c["card"])
            c["side"] = self.sides_chosen.get(c["card"])
            c["adjust"] = self.adjustments.get(c["card"])
        table = {"line_names": [self.card(i)["name"] for i in s.line],
                 "line_types": [self.card(i)["type"] for i in s.line],
                 "lines": len(s.line) + len(f.line), "pools": s.pool + f.pool,
                 "terrain": self.card(self.terrain)["name"] if self.terrain else None}
        return contributions(cards, table)

    def totals(self, seat: int) -> dict[str, Any]:
        rows = self.contributions(seat)
        return {"attack": sum(r["attack"] for r in rows), "defense": sum(r["defense"] for r in rows), "cards": rows}

    def shield_against(self, seat: int) -> str | None:
        """The assist of ``seat`` that stands in the way of the foe's attack: the one the foe aimed at,
        else the first with GUARD."""
        s, f = self.side(seat), self.foe(seat)
        if f.aim is not None and f.aim in s.hands:
            return f.aim
        return next((i for i in s.hands if "GUARD" in self.card(i).get("status", ())), None)

    def to_json(self) -> dict[str, Any]:
        def inst(i: str) -> dict[str, Any]:
            d = self.card(i)
            return {"card": i, "id": d["id"], "name": d["name"], "type": d["type"], "seat": self.owner[i],
                    "text": d.get("text", ""),
                    "status": list(d.get("status", ())), "side": self.sides_chosen.get(i),
                    "hands": d.get("hands"), "shield": d.get("shield")}

        seats = []
        for s in self.sides:
            t = self.totals(s.seat)
            mine = sorted(i for i, o in self.owner.items() if o == s.seat and i in s.hidden)
            seats.append({
                "seat": s.seat, "name": s.name, "color": s.color, "source": s.source, "pool": s.pool,
                "trash": len(s.trash), "limbo": len(s.limbo), "hearts": s.hearts, "hearts_total": s.hearts_total,
                "line": [inst(i) for i in s.line], "hands": [inst(i) for i in s.hands],
                "trash_cards": [inst(i) for i in s.trash], "limbo_cards": [inst(i) for i in s.limbo],
                "aim": s.aim, "attack": t["attack"], "defense": t["defense"], "contributions": t["cards"],
                "shield": self.shield_against(s.seat),
                "playable": sorted({i.split("#")[0] for i in mine}),
            })
        return {"turn": self.turn, "to_act": self.to_act, "phase": self.phase, "seats": seats,
                "terrain": inst(self.terrain) if self.terrain else None, "terrain_safe_until": self.terrain_safe_until,
                "results": list(self.results[-10:]), "last_result": self.results[-1] if self.results else None,
                "winner": self.winner, "end_reason": self.end_reason, "can_undo": bool(self.undo),
                "cards": {cid: d for cid, d in sorted(self.defs.items())}}


_FIELDS = frozenset(f.name for f in fields(Duel))


class Refused(Exception):
    """The event does not fit the game now; the message says why."""


def _problem(text: str) -> Effect:
    return {"type": "problem", "text": text}


def refused(effects: list[Effect]) -> bool:
    return bool(effects) and all(e.get("type") == "problem" for e in effects)


# -- deck checks -------------------------------------------------------------------------------------
def card_name_key(name: str) -> str:
    """The name a card is counted by: the card duel rules limit copies "of each card", so two entries
    of one deck with the same printed name are one card, whatever their ids. Asterisks (an exotic's
    mark), case and runs of spaces do not make another card.

    >>> card_name_key("  *Single  Axe Throw* ") == card_name_key("single axe throw")
    True
    """
    return " ".join(name.replace("*", " ").split()).casefold()


def is_exotic(card: dict[str, Any]) -> bool:
    """Exotic by the card duel rules ("Exotic cards have asterisks involving the name") or by the card
    file's ``exotic`` flag: either is enough.

    >>> is_exotic({"name": "*Avoidance*"}), is_exotic({"name": "Punch", "exotic": True}), is_exotic({"name": "Punch"})
    (True, True, False)
    """
    return bool(card.get("exotic")) or "*" in str(card.get("name", ""))


def deck_problems(cards: list[dict[str, Any]], who: str = "the deck", size: int = DECK_SIZE) -> list[str]:
    """The card duel rules' deck checks: ``size`` cards, at most 3 copies of a card, at most 1 of an
    exotic. Copies are counted by the card's name (:func:`card_name_key`), not by its id."""
    out = []
    total = sum(int(c.get("copies", 1)) for c in cards)
    if total != size:
        out.append(f"{who}: has {total} cards, a deck has {size}")
    by_name: dict[str, list[dict[str, Any]]] = {}
    for c in cards:
        by_name.setdefault(card_name_key(str(c.get("name", c["id"]))), []).append(c)
    for same in by_name.values():
        n = sum(int(c.get("copies", 1)) for c in same)
        what = f"card {same[0]['id']!r}" if len(same) == 1 else (
            f"card {str(same[0].get('name', '')).strip()!r} (ids {', '.join(repr(c['id']) for c in same)})")
        copies, in_all = ("field 'copies' is", "") if len(same) == 1 else ("has", " copies in all")
        if n > MAX_COPIES:
            out.append(f"{who}: {what} {copies} {n}{in_all}, at most {MAX_COPIES} copies of a card")
        if any(is_exotic(c) for c in same) and n > MAX_EXOTIC_COPIES:
            out.append(f"{who}: {what} is exotic, {copies} {n}{in_all}, at most {MAX_EXOTIC_COPIES}")
    return out


# -- new game ----------------------------------------------------------------------------------------
def new_game(event: Event) -> tuple[Duel, list[Effect]]:
    """A duel from a checked ``new_game`` event: ``players`` (the challenged first unless ``challenged``
    names a seat), ``cards`` (each with its ``seat`` and ``copies``), ``hearts``."""
    players = list(event["players"])
    first = event.get("challenged", players[0]["seat"])
    players.sort(key=lambda p: p["seat"] != first)
    hearts = int(event.get("hearts", HEARTS))
    defs, owner = {}, {}
    for c in event["cards"]:
        defs[c["id"]] = {k: v for k, v in c.items() if k != "seat"}
        for n in range(1, int(c.get("copies", 1)) + 1):
            owner[f"{c['id']}#{n}"] = c["seat"]
    sides = []
    for p in players:
        mine = frozenset(i for i, s in owner.items() if s == p["seat"])
        sides.append(Side(p["seat"], p["name"].strip(), p["color"].lower(), hidden=mine, source=len(mine),
                          hearts=hearts, hearts_total=hearts))
    duel = Duel(defs=defs, owner=owner, sides=(sides[0], sides[1]), to_act=sides[0].seat)
    effects: list[Effect] = [{"type": "duel_new_game", "players": [s.seat for s in duel.sides],
                              "challenged": duel.to_act, "hearts": hearts}]
    duel = _begin_turn(duel, effects)
    return duel, effects


# -- moving cards ------------------------------------------------------------------------------------
def _take(duel: Duel, inst: str) -> Duel:
    """Lift ``inst`` from wherever it is (not from ``hidden``: a played card leaves the pool itself)."""
    s = duel.side(duel.owner[inst])
    place = duel.place_of(inst)
    if place == "terrain":
        return duel.evolve(terrain=None, terrain_safe_until=0)
    if place in ("line", "hands", "trash", "limbo"):
        s = replace(s, **{place: tuple(i for i in getattr(s, place) if i != inst)})
        if place == "hands":
            foe = duel.foe(s.seat)
            if foe.aim == inst:
                duel = duel.with_side(replace(foe, aim=None))
    duel = duel.with_side(s)
    return duel.evolve(sides_chosen={k: v for k, v in duel.sides_chosen.items() if k != inst},
                       adjustments={k: v for k, v in duel.adjustments.items() if k != inst})


def _put(duel: Duel, inst: str, to: str) -> Duel:
    """Put a lifted card in ``to``: trash, limbo, bottom (of the source), pool."""
    s = duel.side(duel.owner[inst])
    if to == "trash":
        s = replace(s, trash=(*s.trash, inst))
    elif to == "limbo":
        s = replace(s, limbo=(*s.limbo, inst))
    elif to == "bottom":
        s = replace(s, hidden=s.hidden | {inst}, source=s.source + 1)
    elif to == "pool":
        s = replace(s, hidden=s.hidden | {inst}, pool=s.pool + 1)
    else:  # pragma: no cover - callers pass the places above
        raise ValueError(to)
    return duel.with_side(s)


def discard_to(duel: Duel, inst: str) -> str:
    """Where a discarded card goes: PHASE to the bottom of the source, CRUMBLE to limbo, else trash."""
    status = duel.card(inst).get("status", ())
    if "PHASE" in status:
        return "bottom"
    if "CRUMBLE" in status:
        return "limbo"
    return "trash"


def _discard(duel: Duel, inst: str, effects: list[Effect], why: str) -> Duel:
    to = discard_to(duel, inst)
    effects.append({"type": "duel_moved", "card": inst, "name": duel.card(inst)["name"], "seat": duel.owner[inst],
                    "from": duel.place_of(inst), "to": to, "why": why})
    return _put(_take(duel, inst), inst, to)


def _destroy(duel: Duel, inst: str, effects: list[Effect], why: str) -> Duel:
    if inst == duel.terrain and duel.turn <= duel.terrain_safe_until:
        raise Refused(f"{duel.card(inst)['name']} cannot be destroyed until turn {duel.terrain_safe_until} is over")
    effects.append({"type": "duel_moved", "card": inst, "name": duel.card(inst)["name"], "seat": duel.owner[inst],
                    "from": duel.place_of(inst), "to": "limbo", "why": why})
    return _put(_take(duel, inst), inst, "limbo")


def _draw(duel: Duel, seat: int, n: int, effects: list[Effect], why: str) -> Duel:
    """Draw ``n`` (the trash recycled into a new source when the source runs out; no card beyond the
    pool limit). Having to draw from an empty source and trash loses the game."""
    drawn = 0
    for _ in range(n):
        s = duel.side(seat)
        if s.pool >= POOL_LIMIT:
            effects.append({"type": "duel_pool_full", "seat": seat, "pool": s.pool, "not_drawn": n - drawn})
            break
        if s.source == 0:
            if not s.trash:
                if drawn:
                    effects.append({"type": "duel_drew", "seat": seat, "count": drawn, "why": why})
                return _end(duel, effects, winner=duel.foe(seat).seat,
                            reason=f"{s.name} had to draw with no cards in the source or the trash")
            s = replace(s, hidden=s.hidden | set(s.trash), source=len(s.trash), trash=())
            effects.append({"type": "duel_recycled", "seat": seat, "source": s.source})
        duel = duel.with_side(replace(s, source=s.source - 1, pool=s.pool + 1))
        drawn += 1
    if drawn:
        effects.append({"type": "duel_drew", "seat": seat, "count": drawn, "why": why})
    return duel


def _begin_turn(duel: Duel, effects: list[Effect]) -> Duel:
    seat = duel.to_act
    s = duel.side(seat)
    for inst in s.line:
        duel = _discard(duel, inst, effects, "last combo discarded")
    duel = duel.with_side(replace(duel.side(seat), aim=None))
    if duel.turn == 1:
        n, why = FIRST_DRAW, "first turn"
    elif duel.turn == 2:
        n, why = SECOND_DRAW, "second turn"
    else:
        n, why = max(0, STANDARD - duel.side(seat).pool), "standard draw"
    effects.append({"type": "duel_turn", "turn": duel.turn, "seat": seat, "draw": n})
    return _draw(duel, seat, n, effects, why)


def _end(duel: Duel, effects: list[Effect], winner: int | None, reason: str) -> Duel:
    effects.append({"type": "duel_over", "winner": winner, "reason": reason})
    return duel.evolve(phase="over", winner=winner, end_reason=reason)


# -- events ------------------------------------------------------------------------------------------
def apply(duel: Duel, event: Event) -> tuple[Duel, list[Effect]]:
    """Fold one checked duel event into ``duel``; a refusal leaves it unchanged and says why."""
    kind = event["type"]
    if kind == "undo":
        if not duel.undo:
            return duel, [_problem("nothing to undo")]
        return duel.undo[-1].evolve(undo=duel.undo[:-1]), [{"type": "undone", "action": "duel action"}]
    if duel.phase == "over":
        return duel, [_problem("the duel is over; start a new one")]
    handler = _HANDLERS.get(kind)
    if handler is None:
        return duel, [_problem(f"{kind.replace('_', ' ')} is not part of the card duel")]
    effects: list[Effect] = []
    try:
        new = handler(duel, event, effects)
    except Refused as exc:
        return duel, [_problem(str(exc))]
    if new is not duel:
        new = new.evolve(undo=(*duel.undo, duel.evolve(undo=()))[-UNDO_DEPTH:])
    return new, effects


def _acting(duel: Duel, seat: int | None) -> Side:
    if seat is None:
        seat = duel.to_act
    if seat not in (s.seat for s in duel.sides):
        raise Refused(f"seat {seat} is not in this duel (seats {', '.join(str(s.seat) for s in duel.sides)})")
    if seat != duel.to_act:
        raise Refused(f"it is {duel.side(duel.to_act).name}'s turn, not {duel.side(seat).name}'s")
    return duel.side(seat)


def _instance(duel: Duel, card: str, where: str | None = None, seat: int | None = None) -> str:
    """The instance ``card`` names: an instance (``punch#2``) as given, or a card id's first copy
    that is ``where`` (and ``seat``'s)."""
    if "#" in card:
        if card not in duel.owner:
            raise Refused(f"no card {card!r} in this duel")
        return card
    if card not in duel.defs:
        raise Refused(f"no card {card!r} in this duel's decks")
    copies = sorted((i for i in duel.owner if i.split("#")[0] == card), key=lambda i: int(i.split("#")[1]))
    if seat is not None and duel.owner[copies[0]] != seat:
        raise Refused(f"{duel.defs[card]['name']} ({card}) is in {duel.side(duel.owner[copies[0]]).name}'s deck, "
                      f"not {duel.side(seat).name}'s")
    for i in copies:
        if (where is None or duel.place_of(i) == where) and (seat is None or duel.owner[i] == seat):
            return i
    name = duel.defs[card]["name"]
    if where == "hidden":
        raise Refused(f"no copy of {name} ({card}) is left in {duel.side(duel.owner[copies[0]]).name}'s "
                      f"source or pool: every copy is in play, in the trash or in limbo")
    raise Refused(f"no copy of {name} ({card}) is {where}")


def _on_play(duel: Duel, event: Event, effects: list[Effect]) -> Duel:
    s = _acting(duel, event.get("seat"))
    inst = _instance(duel, event["card"], "hidden", s.seat)
    if duel.owner[inst] != s.seat:
        raise Refused(f"{duel.card(inst)['name']} ({inst}) is {duel.side(duel.owner[inst]).name}'s card")
    if duel.place_of(inst) != "hidden":
        raise Refused(f"{duel.card(inst)['name']} ({inst}) is already in the {duel.place_of(inst)}")
    if s.pool <= 0:
        raise Refused(f"{s.name}'s pool is empty by the board's count (draw with the draw action if a text drew)")
    d = duel.card(inst)
    if d.get("summon") and not event.get("needs_met"):
        raise Refused(f"{d['name']} needs to be summoned: {d['summon']} (confirm with needs_met)")
    side = event.get("side")
    sided = any("or" in e for e in d.get("effects", ()))
    if side is not None and not sided:
        raise Refused(f"{d['name']} has no \"or\" effect to turn left or right")
    duel = duel.with_side(replace(s, hidden=s.hidden - {inst}, pool=s.pool - 1))
    kind = d["type"]
    where = kind
    if kind in IN_LINE:
        s = duel.side(s.seat)
        duel = duel.with_side(replace(s, line=(*s.line, inst)))
        where = "line"
    elif kind == "terrain":
        if duel.terrain is not None:
            duel = _destroy(duel, duel.terrain, effects, f"replaced by {d['name']}")
        safe = any(e.get("protect") for e in d.get("effects", ()))
        duel = duel.evolve(terrain=inst, terrain_safe_until=duel.turn + 1 if safe else 0)
    else:  # assist or trap: into the hand slots
        need = 1 if kind == "trap" else int(d.get("hands", 1))
        s = duel.side(s.seat)
        hands = list(s.hands)
        used = sum(1 if duel.card(i)["type"] == "trap" else int(duel.card(i).get("hands", 1)) for i in hands)
        replace_first = _in_play(duel, event["replace"]) if event.get("replace") else None
        while used + need > HAND_SLOTS and hands:
            old = replace_first if replace_first in hands else hands[0]
            replace_first = None
            hands.remove(old)
            used -= 1 if duel.card(old)["type"] == "trap" else int(duel.card(old).get("hands", 1))
            duel = _destroy(duel, old, effects, f"replaced by {d['name']}")
        s = duel.side(s.seat)
        duel = duel.with_side(replace(s, hands=(*s.hands, inst)))
        where = "hands"
    if side is not None:
        duel = duel.evolve(sides_chosen={**duel.sides_chosen, inst: side})
    effects.append({"type": "duel_played", "seat": s.seat, "card": inst, "name": d["name"], "card_type": kind,
                    "where": where, "side": side})
    # instant effects
    for e in d.get("effects", ()):
        if "or" in e and e["or"] != side:
            continue
        if "draw" in e:
            foe = duel.foe(s.seat)
            taken = duel.totals(foe.seat)["attack"]
            n, how = value_of(e, {"attack taken": taken, "cards in both pools": s.pool + foe.pool})
            if duel.phase != "over" and n > 0:
                duel = _draw(duel, s.seat, n, effects, f"{d['name']}: {how}")
        elif "destroy" in e:
            target = event.get("target")
            if target is None:
                raise Refused(f"{d['name']} destroys {a_(e['destroy'])}: name it with target")
            t = _instance(duel, target)
            tkind = duel.card(t)["type"]
            place = duel.place_of(t)
            kinds = ("assist", "trap") if e["destroy"] == "equip" else (e["destroy"],)
            if tkind not in kinds or place not in ("hands", "terrain"):
                raise Refused(f"{d['name']} destroys {a_(e['destroy'])} in play; {duel.card(t)['name']} ({t}) is "
                              f"{a_(tkind)} in the {place}")
            duel = _destroy(duel, t, effects, f"destroyed by {d['name']}")
    if "BURN" in d.get("status", ()) and duel.phase != "over":
        duel = _destroy(duel, inst, effects, "BURN: used up")
    return duel


def a_(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _on_aim(duel: Duel, event: Event, effects: list[Effect]) -> Duel:
    s = _acting(duel, event.get("seat"))
    target = event.get("target")
    if target is None:
        effects.append({"type": "duel_aimed", "seat": s.seat, "target": None})
        return duel.with_side(replace(s, aim=None))
    t = _instance(duel, target, "hands", duel.foe(s.seat).seat)
    if duel.card(t)["type"] != "assist":
        raise Refused(f"{duel.card(t)['name']} is a trap: a line aims only at an assist")
    effects.append({"type": "duel_aimed", "seat": s.seat, "target": t, "name": duel.card(t)["name"],
                    "shield": int(duel.card(t).get("shield", 0))})
    return duel.with_side(replace(s, aim=t))


def _on_choose(duel: Duel, event: Event, effects: list[Effect]) -> Duel:
    inst = _in_play(duel, event["card"])
    d = duel.card(inst)
    if not any("or" in e for e in d.get("effects", ())):
        raise Refused(f"{d['name']} has no \"or\" effect to turn left or right")
    _acting(duel, duel.owner[inst])
    effects.append({"type": "duel_chose", "card": inst, "name": d["name"], "side": event["side"]})
    return duel.evolve(sides_chosen={**duel.sides_chosen, inst: event["side"]})


def _in_play(duel: Duel, card: str) -> str:
    if "#" in card:
        inst = _instance(duel, card)
    else:
        inst = next((i for i in sorted(duel.owner) if i.split("#")[0] == card
                     and duel.place_of(i) in ("line", "hands", "terrain")), "")
        if not inst:
            _instance(duel, card)  # names an unknown card
            raise Refused(f"no copy of {duel.defs[card]['name']} ({card}) is in play")
    if duel.place_of(inst) not in ("line", "hands", "terrain"):
        raise Refused(f"{duel.card(inst)['name']} ({inst}) is not in play (it is in the {duel.place_of(inst)})")
    return inst


def _on_adjust(duel: Duel, event: Event, effects: list[Effect]) -> Duel:
    """A text the engine does not compute changed a card's attack or defense. A second adjustment of
    the same card adds to the first (two texts may both touch it), so none is lost."""
    inst = _in_play(duel, event["card"])
    added = {"attack": event.get("attack", 0), "defense": event.get("defense", 0), "reason": event["reason"].strip()}
    earlier = duel.adjustments.get(inst)
    adj = dict(added, count=1)
    if earlier is not None:
        adj = {"attack": earlier["attack"] + added["attack"], "defense": earlier["defense"] + added["defense"],
               "reason": f"{earlier['reason']}; {added['reason']}", "count": earlier.get("count", 1) + 1}
    name = duel.card(inst)["name"]
    if adj["count"] > MAX_ADJUSTMENTS:
        raise Refused(f"{name} ({inst}) already has {MAX_ADJUSTMENTS} adjustments: undo one first")
    for k in ("attack", "defense"):
        if abs(adj[k]) > MAX_ADJUST:
            raise Refused(f"{name} ({inst}): this adjustment would bring its {k} change to {adj[k]} in all, "
                          f"at most {MAX_ADJUST} either way")
    effects.append({"type": "duel_adjusted", "card": inst, "name": name, **adj, "added": added})
    return duel.evolve(adjustments={**duel.adjustments, inst: adj})


def _on_move(duel: Duel, event: Event, effects: list[Effect]) -> Duel:
    """A card moved by a text the engine does not compute (a trap going off, a lost STAY need)."""
    inst = _in_play(duel, event["card"])
    to, why = event["to"], event["reason"].strip()
    if to == "destroy":
        return _destroy(duel, inst, effects, why)
    if to == "discard":
        return _discard(duel, inst, effects, why)
    effects.append({"type": "duel_moved", "card": inst, "name": duel.card(inst)["name"], "seat": duel.owner[inst],
                    "from": duel.place_of(inst), "to": to, "why": why})
    return _put(_take(duel, inst), inst, to)


def _on_draw(duel: Duel, event: Event, effects: list[Effect]) -> Duel:
    s = _acting(duel, event.get("seat"))
    return _draw(duel, s.seat, event["count"], effects, event["reason"].strip())


def resolve(duel: Duel, seat: int) -> tuple[Duel, dict[str, Any]]:
    """The foe's attack against ``seat``'s defense (and the shield in the way), as ``seat`` passes."""
    foe = duel.foe(seat)
    attack_t, defense_t = duel.totals(foe.seat), duel.totals(seat)
    shield_card = duel.shield_against(seat)
    shield = int(duel.card(shield_card).get("shield", 0)) if shield_card else 0
    attack, defense = attack_t["attack"], defense_t["defense"]
    defeated = shield_card is not None and attack > shield
    flipped = attack > defense + shield and duel.side(seat).hearts > 0
    result = {"turn": duel.turn, "seat": seat, "attacker": foe.seat, "attack": attack, "defense": defense,
              "shield": shield, "shield_card": shield_card, "defeated": shield_card if defeated else None,
              "flipped": flipped,
              "attack_from": [{"card": r["card"], "name": r["name"], "attack": r["attack"]}
                              for r in attack_t["cards"] if r["attack"]],
              "defense_from": [{"card": r["card"], "name": r["name"], "defense": r["defense"]}
                               for r in defense_t["cards"] if r["defense"]]}
    return duel, result


def _on_pass(duel: Duel, event: Event, effects: list[Effect]) -> Duel:
    s = _acting(duel, event.get("seat"))
    duel, result = resolve(duel, s.seat)
    effects.append({"type": "duel_resolved", **result})
    if result["defeated"]:
        duel = _discard(duel, result["defeated"], effects, "defeated: the attack beat its shield")
    if result["flipped"]:
        side = duel.side(s.seat)
        duel = duel.with_side(replace(side, hearts=side.hearts - 1))
        effects.append({"type": "duel_heart", "seat": s.seat, "hearts": side.hearts - 1, "attack": result["attack"],
                        "defense": result["defense"] + result["shield"], "flash": True})
    duel = duel.evolve(results=(*duel.results, result))
    if duel.side(s.seat).hearts == 0:
        return _end(duel, effects, winner=duel.foe(s.seat).seat,
                    reason=f"{duel.side(s.seat).name} has no Heart left")
    duel = duel.evolve(turn=duel.turn + 1, to_act=duel.foe(s.seat).seat)
    return _begin_turn(duel, effects)


def _on_concede(duel: Duel, event: Event, effects: list[Effect]) -> Duel:
    seat = event["seat"]
    if seat not in (s.seat for s in duel.sides):
        raise Refused(f"seat {seat} is not in this duel")
    return _end(duel, effects, winner=duel.foe(seat).seat, reason=f"{duel.side(seat).name} conceded")


def on_card(duel: Duel, seat: int, card: dict[str, Any] | None) -> tuple[Duel, list[Effect]]:
    """A duel card shown at a seat's camera is played by that seat (refused, and said why, otherwise)."""
    if not card or duel.phase == "over":
        return duel, []
    return apply(duel, {"type": "duel_play", "seat": seat, "card": card["id"]})


_HANDLERS = {
    "duel_play": _on_play,
    "duel_aim": _on_aim,
    "duel_choose": _on_choose,
    "duel_adjust": _on_adjust,
    "duel_move": _on_move,
    "duel_draw": _on_draw,
    "duel_pass": _on_pass,
    "duel_concede": _on_concede,
}
EVENT_TYPES = frozenset(_HANDLERS)


def census(duel: Duel) -> dict[str, int]:
    """How many instances each place holds (with ``hidden`` checked against source + pool)."""
    out = dict.fromkeys(PLACES, 0)
    for inst in duel.owner:
        out[duel.place_of(inst)] += 1
    return out


def example_new_game(size: int = DECK_SIZE) -> Event:
    """A small two-player duel ``new_game`` event (docs and tests): each deck ``size`` cards."""
    cards = []
    for seat in (1, 2):
        for k in range(size // 3):
            cards.append({"id": f"s{seat}-jab-{k}", "seat": seat, "name": f"Jab {k}", "type": "attack",
                          "copies": 3, "effects": [{"attack": 3}]})
        if size % 3:
            cards.append({"id": f"s{seat}-block", "seat": seat, "name": "Block", "type": "defense",
                          "copies": size % 3, "effects": [{"defense": 4}]})
    return {"type": "new_game", "game": "duel", "players": [{"seat": 1, "name": "Ana", "color": "#e4572e"},
                                                             {"seat": 2, "name": "Ben", "color": "#1e90ff"}],
            "challenged": 1, "hearts": HEARTS, "cards": cards}
