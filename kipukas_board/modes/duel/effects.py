"""The card duel's effects engine: what each card in play adds, computed from the table as it is now.

A card's ``effects`` (from its card file) is a list of small tables. Each has exactly one *what*:

* ``attack = N`` / ``defense = N``: a value added to its player's attack or defense while the card is
  in play (in the line, in a hand slot, or as the terrain);
* ``draw = N``: cards its player draws when the card is played (an instant effect);
* ``destroy = "assist" | "trap" | "terrain" | "equip"``: a card of that kind in play the player names
  when playing it goes to limbo (an instant effect);
* ``protect = "first round"``: the card cannot be destroyed this turn and the next one.

and optionally:

* ``per``: multiply by a count of the table (:data:`PER`), with ``name`` for ``"named"``; ``every = K``
  counts whole K's (``draw = 1, per = "attack taken", every = 10``: one card per 10 attack taken);
* a condition (:data:`CONDITIONS`): ``after = "Punch"`` (the card just before it in the line is named
  Punch), ``last_with = "Punch"`` (no later card in the line has Punch in its name), ``only_attack = true``
  (it is the only attack card in its line), ``terrain = "any"`` or a terrain's name (a terrain in play);
* ``or = "left" | "right"``: one side of an "or" effect; the player turns the card to pick a side and
  only the effects of that side count (effects without ``or`` always count).

Every number the engine shows says where it came from (:func:`contributions`).

Example::

    >>> value_of({"attack": 4, "per": "named", "name": "Synergy Energy"}, {"named": 2})
    (8, '+4 x 2 cards named Synergy Energy')
"""

from __future__ import annotations

from typing import Any

WHATS = ("attack", "defense", "draw", "destroy", "protect")
VALUES = ("attack", "defense")
#: What ``per`` may count (for the player whose card it is).
PER = {
    "named": "cards named {name} in its line",
    "attack in line": "attack cards in its line",
    "defense in line": "defense cards in its line",
    "cards in line": "cards in its line",
    "cards in both lines": "cards in both lines",
    "cards in both pools": "cards in both pools",
    "attack taken": "attack taken",
}
#: ``per`` counts that only instant effects (``draw``) may use: the values feed them.
INSTANT_ONLY_PER = frozenset({"attack taken"})
CONDITIONS = ("after", "last_with", "only_attack", "terrain")
DESTROYS = ("assist", "trap", "terrain", "equip")
SIDES = ("left", "right")


def value_of(effect: dict[str, Any], counts: dict[str, int]) -> tuple[int, str]:
    """The number one effect gives with ``counts`` (the :data:`PER` counts it needs), and why."""
    what = next(k for k in ("attack", "defense", "draw") if k in effect)
    base = int(effect[what])
    per = effect.get("per")
    if per is None:
        return base, f"{base:+d}"
    n = counts.get(per, 0)
    label = PER[per].format(name=effect.get("name", "")).replace(" in its line", "")
    every = int(effect.get("every", 1))
    if every > 1:
        return base * (n // every), f"{base:+d} x ({n} {label} / {every})"
    return base * n, f"{base:+d} x {n} {label}"


def condition_met(effect: dict[str, Any], line_names: list[str], line_types: list[str], pos: int | None,
                  terrain: str | None) -> tuple[bool, str]:
    """Whether ``effect``'s condition holds for a card at ``pos`` of its line (None: off the line)."""
    if "after" in effect:
        want = effect["after"]
        ok = pos is not None and pos > 0 and line_names[pos - 1] == want
        return ok, f"after {want}" if ok else f"not right after {want}"
    if "last_with" in effect:
        part = str(effect["last_with"]).lower()
        ok = pos is not None and not any(part in n.lower() for n in line_names[pos + 1:])
        return ok, f"last with {effect['last_with']} in its name" if ok else f"a later card has {effect['last_with']}"
    if effect.get("only_attack"):
        attacks = sum(1 for t in line_types if t == "attack")
        ok = pos is not None and line_types[pos] == "attack" and attacks == 1
        return ok, "only attack in line" if ok else f"{attacks} attack cards in line"
    if "terrain" in effect:
        want = str(effect["terrain"])
        ok = terrain is not None and (want == "any" or want.lower() == terrain.lower())
        at = "any terrain" if want == "any" else want
        return ok, f"at {at}" if ok else f"not at {at}"
    return True, ""


def contributions(cards: list[dict[str, Any]], table: dict[str, Any]) -> list[dict[str, Any]]:
    """Each card's attack and defense and why, for one player's cards in play.

    ``cards``: ``[{"card": instance, "where": "line"|"hands"|"terrain", "def": card, "side": "left"?,
    "adjust": {"attack", "defense", "reason"}?}]`` in line order first; ``table``: the counts
    (``pools``, ``lines``, ``taken``), this player's line (``line_names``, ``line_types``) and the terrain.
    """
    names, types = table["line_names"], table["line_types"]
    counts_base = {
        "attack in line": sum(1 for t in types if t == "attack"),
        "defense in line": sum(1 for t in types if t == "defense"),
        "cards in line": len(types),
        "cards in both lines": table["lines"],
        "cards in both pools": table["pools"],
        "attack taken": table.get("taken", 0),
    }
    out = []
    pos = 0
    for c in cards:
        d = c["def"]
        here = pos if c["where"] == "line" else None
        if c["where"] == "line":
            pos += 1
        row = {"card": c["card"], "id": d["id"], "name": d["name"], "type": d["type"], "where": c["where"],
               "attack": 0, "defense": 0, "why": []}
        sided = any("or" in e for e in d.get("effects", ()))
        if sided and c.get("side") is None:
            row["why"].append("turn the card left or right to pick its effect")
        for e in d.get("effects", ()):
            what = next((k for k in VALUES if k in e), None)
            if what is None:
                continue
            if "or" in e and e["or"] != c.get("side"):
                continue
            ok, cond = condition_met(e, names, types, here, table.get("terrain"))
            counts = {**counts_base, "named": sum(1 for n in names if n == e.get("name"))}
            v, how = value_of(e, counts)
            side = f" ({e['or']})" if "or" in e else ""
            if not ok:
                row["why"].append(f"{what} 0: {cond}")
                continue
            row[what] += v
            row["why"].append(f"{what} {how}{' ' + cond if cond else ''}{side}")
        adj = c.get("adjust")
        if adj:
            row["attack"] += adj.get("attack", 0)
            row["defense"] += adj.get("defense", 0)
            row["why"].append(f"adjusted {adj.get('attack', 0):+d} attack {adj.get('defense', 0):+d} defense: "
                              f"{adj.get('reason', '')}")
        row["why"] = "; ".join(row["why"])
        out.append(row)
    return out
