"""Rolling for the board, in two halves: the *runtime* rolls raw dice into an event before it is
journaled (``roll_*`` / :func:`prepare`), the *core* reads the outcome from those raw rolls
(``*_outcome``), so replay never rolls again and any dice source (system, seeded, scripted, a
player's physical die) gives an exact journal.

Example::

    >>> from kipukas_board.game.dice import ScriptedDice
    >>> from kipukas_board.game.rolls import roll_random_territory, random_territory_outcome
    >>> rolls = roll_random_territory(8, ScriptedDice([17, 12, 5]))
    >>> rolls, random_territory_outcome(rolls, 8)
    ([17, 12, 5], 5)
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.game.dice import Dice
from kipukas_board.game.editions import PHASES, diel_phase_for_roll, edition
from kipukas_board.game.state import GameState

#: Re-rolls before giving up (a D20 for territory 1..8 needs about 2.5 rolls on average).
MAX_REROLLS = 200


# -- the diel die -----------------------------------------------------------------------------------
def roll_diel(weights: dict[str, int], dice: Dice) -> tuple[str, int]:
    """Roll the diel die with ``weights`` faces per phase: ``(phase, face)``."""
    total = sum(weights.get(p, 0) for p in PHASES)
    face = dice.roll(total)
    return diel_phase_for_roll(weights, face), face


def diel_event(state: GameState, dice: Dice | None, phase: str | None = None) -> dict[str, Any]:
    """The ``roll_diel`` event for the next cycle: the fixed opening, a physical roll (``phase``
    given) or a board roll with ``dice``."""
    nxt = state.diel_cycle + 1
    opening = edition(state.edition).opening
    if nxt <= len(opening):
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


def roll_rogue_path(board: BoardMap, stand: str, dice: Dice) -> list[dict[str, int]]:
    """A D6 per path leaving ``stand``; ties for the highest are rolled again among themselves."""
    options = sorted({n for n, _ in board.edges(stand)})
    if not options:
        raise ValueError(f"stand {stand!r} has no paths for a rogue to take")
    rounds = []
    for _ in range(MAX_REROLLS):
        rolled = {n: dice.roll(6) for n in options}
        rounds.append(rolled)
        top = max(rolled.values())
        options = [n for n, r in rolled.items() if r == top]
        if len(options) == 1:
            return rounds
    raise RuntimeError("rogue path rolls kept tying; the dice are broken")


def rogue_path_outcome(rounds: list[dict[str, int]]) -> str | None:
    last = rounds[-1]
    top = max(last.values())
    best = [n for n, r in last.items() if r == top]
    return best[0] if len(best) == 1 else None


def retreat_outcome(escapee: list[int], challenger: list[int]) -> bool:
    """The escapee must *win*: 2 D6 strictly above the challenger's D20 (a tie fails)."""
    return sum(escapee) > challenger[0]


def roll_event(state: GameState, kind: str, dice: Dice, seat: int | None = None,
               stand: str | None = None) -> dict[str, Any]:
    """A ``dice_roll`` event with the raw rolls for ``kind`` (see ``DICE_KINDS`` in events)."""
    e: dict[str, Any] = {"type": "dice_roll", "kind": kind, "seat": seat}
    if kind == "random_territory":
        e["rolls"] = roll_random_territory(state.board.highest_territory, dice)
    elif kind == "rogue_path":
        if stand is None or stand not in state.board.stands:
            raise ValueError(f"rogue_path needs the rogue's stand (one of the map's stands), got {stand!r}")
        e["stand"] = stand
        e["rounds"] = roll_rogue_path(state.board, stand, dice)
    elif kind == "retreat":
        e["escapee"] = [dice.roll(6), dice.roll(6)]
        e["challenger"] = [dice.roll(20)]
    elif kind in ("trap", "d20"):
        e["rolls"] = [dice.roll(20)]
    elif kind == "d6":
        e["rolls"] = [dice.roll(6)]
    else:
        raise ValueError(f"unknown dice kind {kind!r}")
    return e


def dice_outcome(state: GameState, e: dict[str, Any]) -> dict[str, Any]:
    """What a ``dice_roll`` event means, for the log and the voice."""
    kind = e["kind"]
    out: dict[str, Any] = {"type": "dice", "kind": kind, "seat": e.get("seat")}
    if kind == "random_territory":
        out["rolls"] = list(e["rolls"])
        out["territory"] = random_territory_outcome(e["rolls"], state.board.highest_territory)
    elif kind == "rogue_path":
        out["stand"] = e["stand"]
        out["rounds"] = e["rounds"]
        out["to"] = rogue_path_outcome(e["rounds"])
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
