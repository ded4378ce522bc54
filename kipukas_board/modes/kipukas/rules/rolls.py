"""Rolling for the board, in two halves: the *runtime* rolls raw dice into an event before it is
journaled (``roll_*`` / :func:`prepare`), the *core* reads the outcome from those raw rolls
(``*_outcome``), so replay never rolls again and any dice source (system, seeded, scripted, a
player's physical die) gives an exact journal.

Example::

    >>> from kipukas_board.modes.kipukas.rules.dice import ScriptedDice
    >>> from kipukas_board.modes.kipukas.rules.rolls import roll_random_territory, random_territory_outcome
    >>> rolls = roll_random_territory(8, ScriptedDice([17, 12, 5]))
    >>> rolls, random_territory_outcome(rolls, 8)
    ([17, 12, 5], 5)
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from kipukas_board.board.graph import neighbours
from kipukas_board.board.mapfile import BoardMap
from kipukas_board.modes.kipukas.rules.dice import Dice
from kipukas_board.modes.kipukas.rules.editions import MAX_MOVE, PHASES, diel_phase_for_roll, edition
from kipukas_board.modes.kipukas.rules.state import KipukasState

#: Re-rolls before giving up (a D20 for territory 1..8 needs about 2.5 rolls on average).
MAX_REROLLS = 200


# -- the diel die -----------------------------------------------------------------------------------
def roll_diel(weights: dict[str, int], dice: Dice) -> tuple[str, int]:
    """Roll the diel die with ``weights`` faces per phase: ``(phase, face)``."""
    total = sum(weights.get(p, 0) for p in PHASES)
    face = dice.roll(total)
    return diel_phase_for_roll(weights, face), face


def diel_event(state: KipukasState, dice: Dice | None, phase: str | None = None) -> dict[str, Any]:
    """The ``roll_diel`` event for the next cycle: the fixed opening, a physical roll (``phase``
    given) or a board roll with ``dice``. A physical roll that disagrees with the fixed opening is
    kept as rolled, so the rules refuse it and say why."""
    nxt = state.diel_cycle + 1
    opening = edition(state.edition).opening
    if nxt <= len(opening) and phase in (None, opening[nxt - 1]):
        return {"type": "roll_diel", "cycle": nxt, "phase": opening[nxt - 1], "roll": None, "source": "fixed"}
    if phase is not None:
        return {"type": "roll_diel", "cycle": nxt, "phase": phase, "roll": None, "source": "physical"}
    if dice is None:
        raise ValueError("the board has no dice to roll the diel die with")
    ph, face = roll_diel(state.diel_weights, dice)
    return {"type": "roll_diel", "cycle": nxt, "phase": ph, "roll": face, "source": "board"}


# -- dice for players -------------------------------------------------------------------------------
def roll_random_territory(highest: int, dice: Dice, allowed: Collection[int] | None = None) -> list[int]:
    """D20 rolls, re-rolled until one is at most ``highest`` (the last roll is the territory); with
    ``allowed``, also re-rolled until it names one of those (King of the Hill: a holdable territory)."""
    rolls = []
    for _ in range(MAX_REROLLS):
        r = dice.roll(20)
        rolls.append(r)
        if r <= highest and (allowed is None or r in allowed):
            return rolls
    raise RuntimeError(f"no D20 roll at most {highest} in {MAX_REROLLS} tries; the dice are broken")


def random_territory_outcome(rolls: list[int], highest: int, allowed: Collection[int] | None = None) -> int | None:
    for r in rolls:
        if r <= highest and (allowed is None or r in allowed):
            return r
    return None


def rogue_paths(board: BoardMap, stand: str) -> list[str]:
    """The land paths leaving ``stand``, in the order they are numbered 1, 2, 3... for the D6."""
    return neighbours(board, stand)


def roll_rogue_path(board: BoardMap, stand: str, moves: int, dice: Dice) -> list[dict[str, Any]]:
    """A rogue species' walk, as the web rules put it: "Assign the paths connected to its current
    movement/territory stand, numbers 1-6. Roll a D6, then move the species along the appropriate path.
    Repeat until it has moved its entire Movement Range."

    Each step is ``{"from": stand, "paths": [numbered 1..k], "rolls": [...]}``; a roll above k names
    no path and is rolled again (the last roll counts). A stand with more than 6 paths is rolled with a
    die of that many faces. The walk stops early at a stand with no path.
    """
    if not 1 <= moves <= MAX_MOVE:
        raise ValueError(f"a rogue's Movement Range is 1 to {MAX_MOVE}, got {moves}")
    steps: list[dict[str, Any]] = []
    here = stand
    for _ in range(moves):
        paths = rogue_paths(board, here)
        if not paths:
            break
        faces = max(6, len(paths))
        rolls = []
        for _ in range(MAX_REROLLS):
            rolls.append(dice.roll(faces))
            if rolls[-1] <= len(paths):
                break
        else:
            raise RuntimeError("rogue path rolls never named a path; the dice are broken")
        steps.append({"from": here, "paths": paths, "rolls": rolls})
        here = paths[rolls[-1] - 1]
    return steps


def rogue_path_outcome(board: BoardMap, stand: str, steps: list[dict[str, Any]]) -> list[str]:
    """The stands a rogue walks through (``stand`` first), checked against the map: raises
    ``ValueError`` naming the step whose paths or rolls do not fit."""
    route = [stand]
    for i, step in enumerate(steps):
        here = route[-1]
        if step["from"] != here:
            raise ValueError(f"rogue path step {i + 1} starts at {step['from']!r}, not at {here!r}")
        paths = rogue_paths(board, here)
        if list(step["paths"]) != paths:
            raise ValueError(f"rogue path step {i + 1}: the paths from {here} are {paths}, not {step['paths']}")
        rolls = step["rolls"]
        if rolls[-1] > len(paths) or any(r <= len(paths) for r in rolls[:-1]):
            raise ValueError(f"rogue path step {i + 1}: rolls {rolls} do not end at the first one naming one of "
                             f"{len(paths)} paths")
        route.append(paths[rolls[-1] - 1])
    return route


def retreat_outcome(escapee: list[int], challenger: list[int]) -> bool:
    """The escapee must *win*: 2 D6 strictly above the challenger's D20 (a tie fails)."""
    return sum(escapee) > challenger[0]


def roll_event(state: KipukasState, kind: str, dice: Dice, seat: int | None = None,
               stand: str | None = None, moves: int = 1, souls: list[str] | None = None) -> dict[str, Any]:
    """A ``dice_roll`` event with the raw rolls for ``kind`` (see ``DICE_KINDS`` in events); a retreat
    may name the ``souls`` retreating."""
    e: dict[str, Any] = {"type": "dice_roll", "kind": kind, "seat": seat}
    if kind == "random_territory":
        e["rolls"] = roll_random_territory(state.board.highest_territory, dice)
    elif kind == "rogue_path":
        if stand is None or stand not in state.board.stands:
            raise ValueError(f"rogue_path needs the rogue's stand (one of the map's stands), got {stand!r}")
        e["stand"] = stand
        e["moves"] = moves
        e["steps"] = roll_rogue_path(state.board, stand, moves, dice)
    elif kind == "retreat":
        e["escapee"] = [dice.roll(6), dice.roll(6)]
        e["challenger"] = [dice.roll(20)]
        if souls:
            e["souls"] = list(souls)
    elif kind in ("trap", "d20"):
        e["rolls"] = [dice.roll(20)]
    elif kind == "d6":
        e["rolls"] = [dice.roll(6)]
    else:
        raise ValueError(f"unknown dice kind {kind!r}")
    return e


def dice_outcome(state: KipukasState, e: dict[str, Any]) -> dict[str, Any]:
    """What a ``dice_roll`` event means, for the log and the voice."""
    kind = e["kind"]
    out: dict[str, Any] = {"type": "dice", "kind": kind, "seat": e.get("seat")}
    if kind == "random_territory":
        out["rolls"] = list(e["rolls"])
        out["territory"] = random_territory_outcome(e["rolls"], state.board.highest_territory)
    elif kind == "rogue_path":
        route = rogue_path_outcome(state.board, e["stand"], e["steps"])
        out.update(stand=e["stand"], moves=e["moves"], steps=e["steps"], route=route, to=route[-1])
    elif kind == "retreat":
        out.update(escapee=list(e["escapee"]), challenger=list(e["challenger"]),
                   escaped=retreat_outcome(e["escapee"], e["challenger"]))
    elif kind == "trap":
        out["rolls"] = list(e["rolls"])
        out["detected"] = edition(state.edition).trap_detected(e["rolls"][0])
        out["edition"] = state.edition
    else:
        out["rolls"] = list(e["rolls"])
    return out


def placement_rolls(seats: list[int], dice: Dice) -> tuple[list[list[int]], int]:
    """Each player rolls a D6, the tied highest roll again: ``(rounds of [seat, roll], first placer)``."""
    contenders = list(seats)
    rounds: list[list[int]] = []
    for _ in range(MAX_REROLLS):
        rolled = [[s, dice.roll(6)] for s in contenders]
        rounds.extend(rolled)
        top = max(r for _, r in rolled)
        contenders = [s for s, r in rolled if r == top]
        if len(contenders) == 1:
            return rounds, contenders[0]
    raise RuntimeError("placement rolls kept tying; the dice are broken")
