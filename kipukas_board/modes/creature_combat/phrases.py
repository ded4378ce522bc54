"""Every sentence the board speaks (and captions) for Creature Combat Territory, in one table.

Each entry is a :meth:`str.format` template; the fields it may use are listed beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PHRASES: dict[str, str] = {
    # new game: {players}
    "new_game": "Creature Combat Territory for {players}. Shuffle your land decks together.",
    # round begin: {round} {deal}
    "round": "Round {round}. Deal {deal} lands into the empty slots.",
    "round_no_deal": "Round {round}. No lands left to deal.",
    # a land dealt: {slot} {name} {biome}
    "dealt": "Land {slot}: {name}, {biome}.",
    # deploy: {round}
    "deploy": "Deploy your creatures face down, then say done on the page.",
    "done": "{player} is done.",
    # combat at a land: {slot} {name} {biome}
    "combat": "Combat at land {slot}, {name}, {biome}. Show the creatures you deployed here to your camera.",
    # a creature revealed: {player} {name} {power}
    "revealed": "{player} reveals {name}, power {power}.",
    # an adjustment: {name} {power} {reason}; added to an earlier one: {earlier} {count}
    "adjusted": "{name} now has power {power}: {reason}.",
    "adjusted_more": "{name} now has power {power}: {reason}, added to {earlier}. Abilities add up.",
    "sacrifice": "{name} is sacrificed: removed from the game when the round ends.",
    # round end: {names} removed by their Sacrifice cost
    "removed": "{names} removed from the game: Sacrifice.",
    # result: {name} {winner} {totals}
    "won_land": "{winner} claims {name}, {totals}.",
    "draw_land": "{name} is a draw, {totals}. The land stays.",
    # round end: {round}
    "round_end": "Round {round} ends. Players with lands may take rest counters off or ready a creature.",
    # the end: {winner} {players} {reason}
    "over": "{winner} wins Creature Combat Territory with the most lands. Well played.",
    "over_majority": "{winner} holds a majority of the lands and wins. Well played.",
    "over_tied": "The game ends in a tie between {players}.",
    "conceded": "{player} concedes.",
    "seat": "Seat {seat}",
    "and": "and",
}


def _player(state: Any, seat: Any, cc: Any) -> str:
    s = cc.seat(seat) if cc is not None and seat is not None else None
    return s.name if s is not None and s.name else PHRASES["seat"].format(seat=seat)


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {PHRASES['and']} " + items[-1]


def phrases_for(effect: Mapping[str, Any], cc: Any, p: Mapping[str, str] = PHRASES) -> list[str] | None:
    """The sentences for one creature-combat effect; None when it is not one of this mode's."""
    kind = str(effect.get("type", ""))
    if not kind.startswith("cc_"):
        return None
    name = _player
    if kind == "cc_new_game":
        return [p["new_game"].format(players=_join([name(None, s, cc) for s in effect.get("players", [])]))]
    if kind == "cc_round":
        key = "round" if effect.get("deal") else "round_no_deal"
        return [p[key].format(round=effect.get("round"), deal=effect.get("deal"))]
    if kind == "cc_dealt":
        return [p["dealt"].format(slot=effect["slot"], name=effect["name"], biome=effect["biome"])]
    if kind == "cc_deploy":
        return [p["deploy"].format(round=effect.get("round"))]
    if kind == "cc_done":
        return [p["done"].format(player=name(None, effect.get("seat"), cc))]
    if kind == "cc_combat":
        return [p["combat"].format(slot=effect["slot"], name=effect["name"], biome=effect["biome"])]
    if kind == "cc_revealed":
        return [p["revealed"].format(player=name(None, effect.get("seat"), cc), name=effect["name"],
                                     power=effect["power"])]
    if kind == "cc_adjusted":
        added, earlier = effect.get("added") or effect["adjustment"], effect.get("earlier")
        if earlier:
            said = [p["adjusted_more"].format(name=effect["name"], power=effect["power"], reason=added["reason"],
                                              earlier=earlier["reason"], count=effect["adjustment"].get("count"))]
        else:
            said = [p["adjusted"].format(name=effect["name"], power=effect["power"], reason=added["reason"])]
        if added.get("sacrifice") and not (earlier or {}).get("sacrifice"):
            said.append(p["sacrifice"].format(name=effect["name"]))
        return said
    if kind == "cc_removed":
        return [p["removed"].format(names=_join(list(effect.get("names", [])) or ["a creature"]))]
    if kind == "cc_result":
        totals = _join([f"{name(None, int(s), cc)} {t}" for s, t in effect.get("totals", {}).items()] or ["0"])
        if effect.get("winner") is None:
            return [p["draw_land"].format(name=effect["name"], totals=totals)]
        return [p["won_land"].format(winner=name(None, effect["winner"], cc), name=effect["name"], totals=totals)]
    if kind == "cc_round_end":
        return [p["round_end"].format(round=effect.get("round"))]
    if kind == "cc_conceded":
        return [p["conceded"].format(player=name(None, effect.get("seat"), cc))]
    if kind == "cc_over":
        if effect.get("winner") is None:
            tied = [name(None, s, cc) for s in effect.get("tied", [])] or ["everyone"]
            return [p["over_tied"].format(players=_join(tied))]
        key = "over_majority" if effect.get("reason") == "majority agreed" else "over"
        return [p[key].format(winner=name(None, effect["winner"], cc))]
    return []
