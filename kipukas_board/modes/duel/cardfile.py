"""Card duel card files (TOML, docs/reference/file-formats.md): one player's deck of ``[[cards]]``.

One file is one deck (``deck = "ana"`` at the top; the file's name without ``.toml`` otherwise). A
card names itself by an ``id`` (unique across the board's duel decks; its sticker's QR payload is
``duel:`` + id, the same on every copy) and gives:

* ``name`` (a name with asterisks makes the card exotic, as the card duel rules mark exotics),
  ``type`` (attack, defense, scroll, terrain, assist, trap), ``schools`` (rock, earth, water,
  ice, air, spark, fire, metal; one or two), ``exotic`` (true/false), ``text`` (as printed), ``copies``
  (1 to 3; 1 when left out);
* ``status``: any of PHASE, CRUMBLE, BURN (scrolls only), GUARD (assists only);
* ``hands`` (assists: 1 or 2), ``shield`` (assists: 0 up), ``summon`` and ``stay`` (the needs, as text);
* ``effects``: the structured form of the text (:mod:`kipukas_board.modes.duel.effects`).

Every problem is named with the card's id and field; the deck checks (30 cards, copies counted by
the card's name, exotics) are notes here, since players may agree on a non-standard game, and are
checked again at new game.

Example::

    >>> f = parse_card_file('[[cards]]\\nid = "punch"\\nname = "Punch"\\ntype = "attack"\\n'
    ...                     'schools = ["rock"]\\ntext = "+5 ATTACK"\\neffects = [{ attack = 5 }]\\n', "ana.toml")
    >>> f.deck, f.cards[0]["effects"]
    ('ana', [{'attack': 5}])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kipukas_board.modes.base import CardFileError
from kipukas_board.modes.deckfile import MAX_TEXT, read_deck_file
from kipukas_board.modes.duel.effects import CONDITIONS, DESTROYS, INSTANT_ONLY_PER, PER, SIDES, WHATS
from kipukas_board.modes.duel.events import ID_RE
from kipukas_board.modes.duel.rules import MAX_COPIES, STATUSES, TYPES, deck_problems, is_exotic
from kipukas_board.strictjson import is_int

SCHOOLS = ("rock", "earth", "water", "ice", "air", "spark", "fire", "metal")
MAX_EFFECTS = 8
MAX_NUMBER = 99


@dataclass
class DuelCardFile:
    deck: str
    cards: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def creatures(self) -> list[dict[str, Any]]:  # what ``catalog import`` reports for other modes
        return []

    def records(self) -> list[dict[str, Any]]:
        """Every card as the catalog stores it (``kind`` is its type; ``deck`` and ``mode`` written in)."""
        return [{**c, "kind": c["type"], "title": f"{c['name']} ({c['type']})", "deck": self.deck, "mode": "duel"}
                for c in self.cards]

    def sticker_records(self) -> list[dict[str, Any]]:
        """One record per copy: every copy of a card carries the same sticker."""
        return [r for r in self.records() for _ in range(r["copies"])]

    def summary(self) -> str:
        return f"{sum(c['copies'] for c in self.cards)} cards ({len(self.cards)} different)"


def _text(v: Any) -> bool:
    return isinstance(v, str) and bool(v.strip()) and len(v) <= MAX_TEXT


def parse_card_file(text: str, source: str) -> DuelCardFile:
    """Check a duel card file; raise :class:`CardFileError` listing every problem."""
    read = read_deck_file(text, source, ("cards",), ID_RE, "duel:", repeat_hint="; give copies = N instead")
    problems = read.problems
    out = DuelCardFile(deck=read.deck)
    if not read.cards and not problems:
        problems.append("'cards' must be a non-empty array of tables ([[cards]])")
    notes = []
    for _kind, where, c in read.cards:
        card, bad = _card(c, where)
        problems += bad
        out.cards.append(card)
        if card["exotic"] and c.get("exotic") is not True and isinstance(card["name"], str):
            notes.append(f"{where}: name {card['name']!r} has asterisks, so the card is exotic (the card duel "
                         f"rules: \"Exotic cards have asterisks involving the name\"), though field 'exotic' "
                         f"is {'false' if c.get('exotic') is False else 'left out'}")
    if problems:
        raise CardFileError(source, problems)
    out.warnings = notes + deck_problems(out.cards, f"deck {out.deck!r}")
    return out


def _card(c: dict[str, Any], where: str) -> tuple[dict[str, Any], list[str]]:
    bad: list[str] = []
    known = {"id", "name", "type", "schools", "exotic", "text", "copies", "status", "hands", "shield", "summon",
             "stay", "effects"}
    for k in sorted(set(c) - known):
        bad.append(f"{where}: unknown field {k!r} (expected {', '.join(sorted(known))})")
    if not _text(c.get("name")):
        bad.append(f"{where}: field 'name' must be text (1 to {MAX_TEXT} characters), got {c.get('name')!r:.40}")
    kind = c.get("type")
    if kind not in TYPES:
        bad.append(f"{where}: field 'type' must be one of {', '.join(TYPES)}, got {kind!r:.40}")
    schools = c.get("schools", [])
    if not isinstance(schools, list) or not 1 <= len(schools) <= 2 or not all(s in SCHOOLS for s in schools):
        bad.append(f"{where}: field 'schools' must list one or two of {', '.join(SCHOOLS)}, got {schools!r:.60}")
    exotic = c.get("exotic", False)
    marked = is_exotic({"name": c.get("name")})
    if not isinstance(exotic, bool):
        bad.append(f"{where}: field 'exotic' must be true or false, got {exotic!r:.20}")
    copies = c.get("copies", 1)
    if not is_int(copies) or not 1 <= copies <= MAX_COPIES:
        bad.append(f"{where}: field 'copies' must be 1 to {MAX_COPIES}, got {copies!r:.20}")
        copies = 1
    elif (exotic is True or marked) and copies > 1:
        why = "" if exotic is True else " (its name has asterisks, the card duel rules' mark of an exotic)"
        bad.append(f"{where}: field 'copies' is {copies}, but an exotic card may be in a deck once{why}")
    for k in ("text", "summon", "stay"):
        if k in c and not _text(c[k]):
            bad.append(f"{where}: field {k!r} must be text (1 to {MAX_TEXT} characters), got {c[k]!r:.40}")
    status = c.get("status", [])
    if not isinstance(status, list) or not all(s in STATUSES for s in status):
        bad.append(f"{where}: field 'status' must list some of {', '.join(STATUSES)}, got {status!r:.60}")
        status = []
    if "BURN" in status and kind != "scroll":
        bad.append(f"{where}: field 'status' has BURN, but only scrolls burn (this is {kind!r})")
    if "GUARD" in status and kind != "assist":
        bad.append(f"{where}: field 'status' has GUARD, but only assists guard (this is {kind!r})")
    hands = c.get("hands")
    if hands is not None:
        if kind not in ("assist", "trap"):
            bad.append(f"{where}: field 'hands' is for assists and traps, this is {kind!r}")
        elif not is_int(hands) or not 1 <= hands <= 2:
            bad.append(f"{where}: field 'hands' must be 1 or 2, got {hands!r:.20}")
        elif kind == "trap" and hands != 1:
            bad.append(f"{where}: field 'hands' is {hands}, but a trap always needs 1 hand")
    shield = c.get("shield")
    if shield is not None:
        if kind != "assist":
            bad.append(f"{where}: field 'shield' is for assists, this is {kind!r}")
        elif not is_int(shield) or not 0 <= shield <= MAX_NUMBER:
            bad.append(f"{where}: field 'shield' must be a whole number 0 to {MAX_NUMBER}, got {shield!r:.20}")
    effects = c.get("effects", [])
    if not isinstance(effects, list) or len(effects) > MAX_EFFECTS:
        bad.append(f"{where}: field 'effects' must be a list of at most {MAX_EFFECTS} tables, got {effects!r:.60}")
        effects = []
    for k, e in enumerate(effects):
        bad += _effect(e, f"{where}: field 'effects[{k}]'", kind)
    sides = {e.get("or") for e in effects if isinstance(e, dict) and "or" in e}
    if sides and sides != set(SIDES):
        bad.append(f"{where}: field 'effects': an \"or\" needs both sides, left and right (got {sorted(sides)})")
    card = {"id": c.get("id"), "name": c.get("name"), "type": kind, "schools": list(schools) if isinstance(
        schools, list) else [], "exotic": exotic is True or marked, "text": c.get("text", ""), "copies": copies,
        "status": list(status), "effects": [dict(e) for e in effects if isinstance(e, dict)]}
    if kind in ("assist", "trap"):
        card["hands"] = hands if is_int(hands) else 1
    if kind == "assist":
        card["shield"] = shield if is_int(shield) else 0
    for k in ("summon", "stay"):
        if k in c:
            card[k] = c[k]
    return card, bad


def _effect(e: Any, where: str, kind: Any) -> list[str]:
    if not isinstance(e, dict):
        return [f"{where} must be a table like {{ attack = 5 }}, got {e!r:.40}"]
    bad = []
    whats = [w for w in WHATS if w in e]
    if len(whats) != 1:
        return [f"{where} must have exactly one of {', '.join(WHATS)}, got {sorted(e)!r:.80}"]
    what = whats[0]
    known = {what, "per", "name", "every", "or", *CONDITIONS}
    for k in sorted(set(e) - known):
        bad.append(f"{where}: unknown key {k!r} (expected {', '.join(sorted(known))})")
    v = e[what]
    if what in ("attack", "defense", "draw") and (not is_int(v) or not -MAX_NUMBER <= v <= MAX_NUMBER):
        bad.append(f"{where}.{what} must be a whole number -{MAX_NUMBER} to {MAX_NUMBER}, got {v!r:.20}")
    if what == "destroy" and v not in DESTROYS:
        bad.append(f"{where}.destroy must be one of {', '.join(DESTROYS)}, got {v!r:.20}")
    if what == "protect" and v != "first round":
        bad.append(f"{where}.protect must be \"first round\", got {v!r:.20}")
    if what == "protect" and kind != "terrain":
        bad.append(f"{where}.protect is for terrains (this card is {kind!r})")
    per = e.get("per")
    if per is not None:
        if per not in PER:
            bad.append(f"{where}.per must be one of {', '.join(repr(p) for p in PER)}, got {per!r:.40}")
        elif per in INSTANT_ONLY_PER and what != "draw":
            bad.append(f"{where}.per {per!r} counts only for draw (attack and defense feed it)")
        if per == "named" and not _text(e.get("name")):
            bad.append(f"{where}.name must name the card counted by per = \"named\", got {e.get('name')!r:.40}")
    if "every" in e and (not is_int(e["every"]) or not 1 <= e["every"] <= MAX_NUMBER or per is None):
        bad.append(f"{where}.every must be a whole number 1 to {MAX_NUMBER} with a per, got {e['every']!r:.20}")
    conds = [k for k in CONDITIONS if k in e]
    if len(conds) > 1:
        bad.append(f"{where} may have one condition, got {', '.join(conds)}")
    for k in ("after", "last_with", "terrain"):
        if k in e and not _text(e[k]):
            bad.append(f"{where}.{k} must be a card name (text), got {e[k]!r:.40}")
    if "only_attack" in e and e["only_attack"] is not True:
        bad.append(f"{where}.only_attack must be true, got {e['only_attack']!r:.20}")
    if "or" in e and e["or"] not in SIDES:
        bad.append(f"{where}.or must be \"left\" or \"right\", got {e['or']!r:.20}")
    return bad
