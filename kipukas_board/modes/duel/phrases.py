"""Every sentence the board speaks (and captions) for the card duel, in one table.

Each entry is a :meth:`str.format` template; the fields it may use are listed beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PHRASES: dict[str, str] = {
    # new game: {first} {hearts}
    "new_game": "Card duel. {first} is challenged and plays first. {hearts} Hearts each.",
    # a turn begins: {player} {turn} {draw}
    "turn": "Turn {turn}: {player}, draw {draw}.",
    "turn_no_draw": "Turn {turn}: {player}, no draw.",
    # a card played: {player} {name} {attack} {defense} (the player's totals after it)
    "played": "{name}. {player}: attack {attack}, defense {defense}.",
    # a drawing effect: {player} {count}
    "drew": "{player} draws {count} more.",
    "recycled": "{player}'s trash becomes a new source.",
    # moved by a rule: {name} {to}
    "moved": "{name} goes to {to}.",
    # resolution: {player} {attack} {defense}
    "held": "{player} holds: {attack} attack against {defense} defense.",
    "flipped": "{attack} attack beats {defense} defense. {player} flips a Heart, {hearts} left.",
    "defeated": "{name} is defeated.",
    "aimed": "{player} aims at {name}, shield {shield}.",
    # the end: {winner} {reason}
    "over": "{winner} wins the duel: {reason}.",
    "pool_full": "{player}'s pool is full.",
}
PLACES = {"trash": "the trash", "limbo": "limbo", "bottom": "the bottom of the source", "pool": "the pool"}


def _name(duel: Any, seat: Any) -> str:
    if duel is not None:
        for s in duel.sides:
            if s.seat == seat:
                return s.name
    return f"Seat {seat}"


def phrases_for(effect: Mapping[str, Any], duel: Any, p: Mapping[str, str] = PHRASES) -> list[str] | None:
    """The sentences for one duel effect; None when it is not one of this mode's."""
    kind = str(effect.get("type", ""))
    if not kind.startswith("duel_"):
        return None
    if kind == "duel_new_game":
        return [p["new_game"].format(first=_name(duel, effect.get("challenged")), hearts=effect.get("hearts"))]
    if kind == "duel_turn":
        key = "turn" if effect.get("draw") else "turn_no_draw"
        return [p[key].format(turn=effect["turn"], player=_name(duel, effect["seat"]), draw=effect.get("draw"))]
    if kind == "duel_played":
        t = duel.totals(effect["seat"]) if duel is not None else {"attack": "?", "defense": "?"}
        return [p["played"].format(name=effect["name"], player=_name(duel, effect["seat"]), attack=t["attack"],
                                   defense=t["defense"])]
    if kind == "duel_drew" and effect.get("why") not in ("first turn", "second turn", "standard draw"):
        return [p["drew"].format(player=_name(duel, effect["seat"]), count=effect["count"])]
    if kind == "duel_recycled":
        return [p["recycled"].format(player=_name(duel, effect["seat"]))]
    if kind == "duel_moved" and effect.get("why") != "last combo discarded":
        return [p["moved"].format(name=effect["name"], to=PLACES.get(effect["to"], effect["to"]))]
    if kind == "duel_resolved":
        out = []
        if effect.get("defeated"):
            out.append(p["defeated"].format(name=duel.card(effect["defeated"])["name"] if duel else effect["defeated"]))
        if not effect.get("flipped"):
            out.append(p["held"].format(player=_name(duel, effect["seat"]), attack=effect["attack"],
                                        defense=effect["defense"] + effect["shield"]))
        return out
    if kind == "duel_heart":
        return [p["flipped"].format(player=_name(duel, effect["seat"]), hearts=effect["hearts"],
                                    attack=effect.get("attack"), defense=effect.get("defense"))]
    if kind == "duel_aimed" and effect.get("target"):
        return [p["aimed"].format(player=_name(duel, effect["seat"]), name=effect["name"], shield=effect["shield"])]
    if kind == "duel_pool_full":
        return [p["pool_full"].format(player=_name(duel, effect["seat"]))]
    if kind == "duel_over":
        return [p["over"].format(winner=_name(duel, effect.get("winner")), reason=effect["reason"])]
    return []
