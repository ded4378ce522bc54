"""Creature Combat Territory card files (TOML, docs/reference/file-formats.md): a player's creatures and lands.

One file is one player's deck (``deck = "Ana's forest deck"`` at the top; the file's name without
``.toml`` otherwise). Every card names itself by an ``id``, unique across the board's decks, and its
sticker's QR payload is ``cct:`` + id. Checked all at once, each problem naming the card id and field:

* creatures: ``id``, ``name``, ``species``, ``cost`` (1 to 100), ``base_power`` (0 up), ``biomes``
  (biome = modifier), ``types`` and ``ability`` (text), ``stars`` (must be cost / 10 rounded up; computed
  when left out); when the card gives its parts (``ability_cost``, or no ability at all, and an optional
  ``discount``) the cost must follow the card-creation formula;
* lands: ``id``, ``name``, ``biome`` (one of :data:`~kipukas_board.modes.creature_combat.rules.BIOMES`).

The deck checks (creature deck cost at most 100, 25 lands) are warnings here: players may agree on
other limits at new game, which checks them with the same function.

Example::

    >>> f = parse_card_file('[[lands]]\\nid = "l1"\\nname = "Misty Hollow"\\nbiome = "forest"\\n', "ana.toml")
    >>> f.deck, [c["id"] for c in f.lands]
    ('ana', ['l1'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kipukas_board.modes.base import CardFileError
from kipukas_board.modes.creature_combat.events import ID_RE
from kipukas_board.modes.creature_combat.rules import BIOMES, card_cost, deck_problems, stars_for
from kipukas_board.modes.deckfile import MAX_TEXT, read_deck_file
from kipukas_board.strictjson import is_int


@dataclass
class CardFile:
    deck: str
    creatures: list[dict[str, Any]] = field(default_factory=list)
    lands: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def records(self) -> list[dict[str, Any]]:
        """Every card as the catalog stores it (``kind``, ``deck`` and ``mode`` written in)."""
        common = {"deck": self.deck, "mode": "creature-combat"}
        return ([{**c, "kind": "creature", "title": f"{c['name']} ({c['species']})", **common} for c in self.creatures]
                + [{**d, "kind": "land", "title": f"{d['name']} ({d['biome']})", **common} for d in self.lands])


def _text(v: Any, required: bool = True) -> bool:
    if v is None:
        return not required
    return isinstance(v, str) and (bool(v.strip()) or not required) and len(v) <= MAX_TEXT


def parse_card_file(text: str, source: str) -> CardFile:
    """Check a creature-combat card file; raise :class:`CardFileError` listing every problem."""
    read = read_deck_file(text, source, ("creatures", "lands"), ID_RE, "cct:")
    problems = read.problems
    out = CardFile(deck=read.deck)
    for kind, where, c in read.cards:
        card, bad = (_creature if kind == "creatures" else _land)(c, where)
        problems += bad
        (out.creatures if kind == "creatures" else out.lands).append(card)
    if not out.creatures and not out.lands and not problems:
        problems.append("the file holds no [[creatures]] and no [[lands]]")
    if problems:
        raise CardFileError(source, problems)
    out.warnings = deck_problems(out.creatures, out.lands, who=f"deck {out.deck!r}")
    return out


def _creature(c: dict[str, Any], where: str) -> tuple[dict[str, Any], list[str]]:
    bad: list[str] = []
    for name in ("name", "species"):
        if not _text(c.get(name)):
            bad.append(f"{where}: field {name!r} must be text (1 to {MAX_TEXT} characters), got {c.get(name)!r:.40}")
    for name in ("ability", "variant", "version"):
        if name in c and not _text(c[name], required=False) and not is_int(c[name]):
            bad.append(f"{where}: field {name!r} must be text, got {c[name]!r:.40}")
    cost, base = c.get("cost"), c.get("base_power")
    if not is_int(cost) or not 1 <= cost <= 100:
        bad.append(f"{where}: field 'cost' must be a whole number 1 to 100, got {cost!r}")
        cost = None
    if not is_int(base) or base < 0:
        bad.append(f"{where}: field 'base_power' must be a whole number from 0 up, got {base!r}")
        base = None
    biomes = c.get("biomes", {})
    if not isinstance(biomes, dict):
        bad.append(f"{where}: field 'biomes' must be a table like {{ forest = 2, ocean = -3 }}, got {biomes!r:.40}")
        biomes = {}
    for b, v in biomes.items():
        if b not in BIOMES:
            bad.append(f"{where}: field 'biomes.{b}': no such biome (expected {', '.join(BIOMES)})")
        if not is_int(v):
            bad.append(f"{where}: field 'biomes.{b}' must be a whole number (the modifier), got {v!r}")
    types = c.get("types", [])
    if not isinstance(types, list) or not all(_text(t) for t in types):
        bad.append(f"{where}: field 'types' must be a list of type names, got {types!r:.40}")
    stars = c.get("stars")
    if cost is not None:
        if stars is None:
            stars = stars_for(cost)
        elif not is_int(stars) or stars != stars_for(cost):
            bad.append(f"{where}: field 'stars' must be cost / 10 rounded up = {stars_for(cost)} for cost {cost}, "
                       f"got {stars!r}")
    for name in ("ability_cost", "discount"):
        if name in c and (not is_int(c[name]) or c[name] < 0):
            bad.append(f"{where}: field {name!r} must be a whole number from 0 up, got {c[name]!r}")
    known_ability = c.get("ability_cost") if is_int(c.get("ability_cost")) else (0 if not c.get("ability") else None)
    discount = c.get("discount", 0) if is_int(c.get("discount", 0)) else 0
    if cost is not None and base is not None and known_ability is not None and not bad:
        want = card_cost(base, biomes, known_ability, discount)
        if want != cost:
            bonus = sum(v for v in biomes.values() if v > 0)
            bad.append(f"{where}: field 'cost' is {cost}, but the card-creation formula gives {want} "
                       f"(base power {base} x 2 + biome bonus {bonus} / 2 rounded up + ability cost {known_ability}"
                       f"{f' - discount {discount}' if discount else ''}); fix the cost or give the card's "
                       f"ability_cost / discount")
    card = {"id": c.get("id"), "name": c.get("name"), "species": c.get("species"), "cost": cost, "stars": stars,
            "types": list(types) if isinstance(types, list) else [], "base_power": base, "biomes": dict(biomes),
            "ability": c.get("ability", "") or ""}
    for name in ("ability_cost", "discount", "variant", "version"):
        if name in c:
            card[name] = c[name]
    return card, bad


def _land(c: dict[str, Any], where: str) -> tuple[dict[str, Any], list[str]]:
    bad = []
    if not _text(c.get("name")):
        bad.append(f"{where}: field 'name' must be text (1 to {MAX_TEXT} characters), got {c.get('name')!r:.40}")
    biome = c.get("biome")
    if biome not in BIOMES:
        bad.append(f"{where}: field 'biome' must be one of {', '.join(BIOMES)}, got {biome!r:.40}")
    return {"id": c.get("id"), "name": c.get("name"), "biome": biome}, bad
