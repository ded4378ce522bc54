"""The bout assistant: the arithmetic of a bout between two souls the board knows, and its outcome.

What the rule books say a roll is made of (web rules, "What modifies a roll?", "Habitat Effects",
"Motivation (Final Blow)", "Brawl in the Event of a Tie"; the 2023 book's "Final Attack"), and what
the board computes, each number with its source beside it:

* **Dice** from the card's Die Rolls ("D6-D6" is two D6 summed; "D20" one D20). A card whose die
  field is empty rolls :data:`DEFAULT_DIE` (one D20; docs/explanation/rules.md says why). The 2023
  book's Final Attack "is always two D20s rolled against each other": one D20 a side.
* **Affinity:** +1 to every roll of a soul whose Archetypal Gene is its player's declared affinity.
* **Habitat** by the territory's geography (:meth:`.editions.Edition.habitat_roll`): primary (+2
  mountain or forest dwellers in their own land, +3 plains dwellers on plains), else secondary (-2 for
  plains dwellers in mountains or forest); the 2023 book adds +1 for plains dwellers elsewhere but
  mountains and forest. The web rules apply habitat to every bout, the 2023 book to KEAL means bouts
  only. When either soul is a Nomad no habitat effect applies to the bout.
* **Archetype interaction** (the fists tool's number: archetypal material in a KEAL means bout,
  archetypal adaptations in a Final Blow): given by the players, added to the attack.
* **Final Blow** motives: Self (Survival, Possessor, Satisfaction) makes it best 2 of 3; Support
  (Passion, Sacrifice, Conscience) +3 to its attack roll; Society (Duty, Spirit, Service) +3 to its
  defense roll.
* **Ties** go to the brawl sequence: compared left to right, capitals (A highest) beat lowercase (a
  highest) beat digits (9 highest) beat a dash beats an underscore.

The runtime rolls with the board's dice (or takes the players' physical rolls) and journals one
``bout_roll`` event holding the faces; :func:`on_bout_roll` recomputes the plan from the state,
settles it and hands the outcome to the one contention path,
:func:`~kipukas_board.modes.kipukas.rules.contention.on_bout`: a won attack costs the defender one KEAL means (its
Final Blow wastes it; a soul with 0 KEAL means is wasted by the first bout it loses); a failed attack
hurts nobody, but the attacker may not attack again in that diel cycle (both rule books). A bout is
fought wherever the two souls stand in one territory, held or not ("If an enemy is in the same
territory that you moved to, you must engage an attack").

Example::

    >>> parse_die("D6-D6"), parse_die("Base 2 + D6"), parse_die("")
    (((6, 6), 0, None), ((6,), 2, None), ((20,), 0, 'the card gives no die: one D20 assumed'))
    >>> brawl_winner("HMPU", "ZrrD")
    'a'
"""

from __future__ import annotations

import re
from typing import Any

from kipukas_board.board.places import territory_name
from kipukas_board.modes.kipukas.rules.checks import in_play
from kipukas_board.modes.kipukas.rules.common import movement_stands, problem, seat_name
from kipukas_board.modes.kipukas.rules.contention import on_bout
from kipukas_board.modes.kipukas.rules.editions import HABITAT_ROLLS, edition
from kipukas_board.modes.kipukas.rules.souls import put_soul, soul_stand
from kipukas_board.modes.kipukas.rules.state import KipukasState, Soul, amend
from kipukas_board.strictjson import is_int
from kipukas_board.table.events import Effect, refused

#: What a soul rolls when its card's die field is empty.
DEFAULT_DIE = (20,)
_DIE_RE = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*$")
#: "Base 3" in a card's Die Rolls: a fixed number, alone or added to the dice ("Base 2 + D6").
_BASE_RE = re.compile(r"\bbase\s+(\d{1,2})\b", re.IGNORECASE)
#: A note in brackets after the dice ("D6-D6 (Option to Re-roll)"): card text for the players.
_NOTE_RE = re.compile(r"\(([^()]{1,60})\)")
MAX_DICE = 6
#: Motivation -> the triad it fights to preserve (web rules, "Motivation (Final Blow)").
TRIADS = {m: t for t, ms in {"self": ("survival", "possessor", "satisfaction"),
                             "support": ("passion", "sacrifice", "conscience"),
                             "society": ("duty", "spirit", "service")}.items() for m in ms}
ARCHETYPE_LIMIT = 40
#: Both rule books, "Defeating a Soul": why a soul whose attack failed is refused another this cycle.
FAILED_BLOW_RULE = ("After an unsuccessful blow, the player loses their ability to attack with that card for "
                    "this diel cycle")
#: The web rules, "Retreat and Reinforce": the same for a soul whose retreat failed.
FAILED_RETREAT_RULE = "If unsuccessful, the retreating soul(s) forgo their ability to attack for the day"


def spent_why(soul: Soul) -> str:
    """Why ``soul`` attacks no more this diel cycle, with the rule that says so: a failed retreat and a
    failed blow are different rules in different books. The refused bout and the page's souls list
    (``attack_spent_why`` in ``GET /api/state``) say it in these same words.

    Example::

        >>> hilbert = Soul(id="HMPU#0001", seat=1, code="HMPU", copy=None, serial=None, title="Hilbert",
        ...                tolerance=1, movement=2, failed_by="retreat")
        >>> spent_why(hilbert)[:40]
        'its retreat failed (the Kipukas web rule'
    """
    if soul.failed_by == "retreat":
        return f'its retreat failed (the Kipukas web rules: "{FAILED_RETREAT_RULE}")'
    return f'its blow failed (both rule books: "{FAILED_BLOW_RULE}")'


def parse_die(text: str) -> tuple[tuple[int, ...], int, str | None]:
    """The dice a card's Die Rolls field names (sides of each die), the fixed base it adds ("Base 3"
    alone rolls no die), and what was assumed or left to the players, if anything."""
    rest = (text or "").strip()
    notes = _NOTE_RE.findall(rest)
    rest = _NOTE_RE.sub(" ", rest)
    bases = _BASE_RE.findall(rest)
    rest = _BASE_RE.sub(" ", rest)
    base = int(bases[0]) if len(bases) == 1 else 0
    parts = [p for p in re.split(r"[-+,/ ]+", rest) if p]
    if not parts and not bases:
        return DEFAULT_DIE, 0, "the card gives no die: one D20 assumed"
    dice: list[int] = []
    for part in parts:
        m = _DIE_RE.match(part)
        if m is None or not 2 <= int(m.group(2)) <= 100 or len(bases) > 1:
            return DEFAULT_DIE, 0, f"the card's die {text!r} is not understood: one D20 assumed"
        dice += [int(m.group(2))] * int(m.group(1) or 1)
    if len(dice) > MAX_DICE:
        return DEFAULT_DIE, 0, f"the card's die {text!r} names more than {MAX_DICE} dice: one D20 assumed"
    note = "; ".join(f"the card's ({n.strip()}) is the players' to apply" for n in notes) or None
    return tuple(dice), base, note


def _brawl_rank(ch: str) -> tuple[int, int]:
    if "A" <= ch <= "Z":
        return 0, ord(ch) - ord("A")
    if "a" <= ch <= "z":
        return 1, ord(ch) - ord("a")
    if ch.isdigit():
        return 2, 9 - int(ch)
    return 3, {"-": 0, "_": 1}.get(ch, 2)


def brawl_winner(a: str, b: str) -> str | None:
    """``"a"`` or ``"b"``: whose brawl sequence wins (None if they are the same)."""
    for x, y in zip(a, b, strict=False):
        if x != y:
            return "a" if _brawl_rank(x) < _brawl_rank(y) else "b"
    if len(a) != len(b):
        return "a" if len(a) > len(b) else "b"
    return None


def check_typing_table(table: Any, source: str) -> dict[str, dict[str, int]]:
    """A typing table (``{attacking adaptation: {defending adaptation: modifier}}``, from the TOML
    file described in docs/explanation/rules.md), checked; raises ``ValueError`` naming the entry that is wrong."""
    rows = table.get("modifiers") if isinstance(table, dict) else None
    if not isinstance(rows, dict):
        raise ValueError(f"{source}: expected a [modifiers] table of attacking adaptations")
    out: dict[str, dict[str, int]] = {}
    for attack, row in rows.items():
        if not isinstance(row, dict):
            raise ValueError(f"{source}: modifiers.{attack} must be a table of defending adaptations")
        for defense, value in row.items():
            if not is_int(value) or abs(value) > ARCHETYPE_LIMIT:
                raise ValueError(f"{source}: modifiers.{attack}.{defense} must be a whole number "
                                 f"-{ARCHETYPE_LIMIT} to {ARCHETYPE_LIMIT}, got {value!r}")
        out[attack.strip().lower()] = {d.strip().lower(): v for d, v in row.items()}
    return out


def table_modifier(table: dict[str, dict[str, int]], attack: str, defense: str) -> int:
    """The typing table's modifier for ``attack`` against ``defense`` (0 where it names none)."""
    return table.get(attack.strip().lower(), {}).get(defense.strip().lower(), 0)


def _side(state: KipukasState, soul: Soul, role: str, geography: str, nomads: bool, final: bool,
          archetype: int, archetype_source: str = "") -> dict[str, Any]:
    dice, base, assumed = parse_die(soul.die)
    if final and state.edition == "2023":
        dice, base, assumed = (20,), 0, "2023 rules: a final attack is one D20 against one D20"
    mods: list[dict[str, Any]] = []
    if base:
        mods.append({"source": f"the card's base roll ({soul.die.strip()})", "value": base})
    player = state.player(soul.seat)
    if player is not None and player.affinity and soul.archetype and \
            player.affinity.strip().lower() == soul.archetype.strip().lower():
        mods.append({"source": f"affinity: {soul.archetype} is {player.name}'s declared affinity", "value": 1})
    habitat = soul.habitat.strip().lower()
    ed = edition(state.edition)
    value = ed.habitat_roll(habitat, geography)
    if value and not nomads and (ed.habitat_in_final_blow or not final):
        if habitat == geography:
            kind = "primary"
        elif HABITAT_ROLLS.get(geography, (0, None))[1] is not None and value < 0:
            kind = "secondary"
        else:
            kind = f"{ed.name} rules: {habitat} dwellers elsewhere"
        mods.append({"source": f"habitat: a {habitat} dweller in {geography} land ({kind})", "value": value})
    if role == "attacker" and archetype:
        default = "archetypal adaptations (fists tool)" if final else "archetypal material (fists tool)"
        mods.append({"source": archetype_source or default, "value": archetype})
    triad = TRIADS.get(soul.motivation.strip().lower())
    if final and triad == "support" and role == "attacker":
        mods.append({"source": f"Final Blow: {soul.motivation} fights for support, +3 attack", "value": 3})
    if final and triad == "society" and role == "defender":
        mods.append({"source": f"Final Blow: {soul.motivation} fights for society, +3 defense", "value": 3})
    return {"soul": soul.id, "title": soul.title, "seat": soul.seat, "die": soul.die, "dice": list(dice),
            "assumed": assumed, "modifiers": mods, "bonus": sum(m["value"] for m in mods), "brawl": soul.brawl}


def plan_bout(state: KipukasState, territory: int, attacker: str, defender: str,
              archetype: int = 0, archetype_source: str = "") -> dict[str, Any] | str:
    """Both sides of a bout in ``territory`` (a dict), or a text saying why it cannot be fought."""
    not_now = in_play(state, "a bout is fought")  # the words of checks.why_not's bout_roll
    if not_now is not None:
        return not_now
    if territory not in state.territories:
        return f"no territory {territory} on this map"
    if abs(archetype) > ARCHETYPE_LIMIT:
        return f"the archetype modifier must be -{ARCHETYPE_LIMIT} to {ARCHETYPE_LIMIT}, got {archetype}"
    souls = []
    for role, sid in (("attacker", attacker), ("defender", defender)):
        soul = state.souls.get(sid)
        if soul is None:
            return f"the {role} {sid!r} is no soul the board knows (bind its card first)"
        if soul.wasted:
            return f"the {role}, {soul.title}, was wasted"
        at = soul_stand(state, soul.id)
        if at is None or state.board.stands[at].territory != territory:
            return f"the {role}, {soul.title}, does not stand in {territory_name(state.board, territory)}"
        souls.append(soul)
    att, dfn = souls
    if att.seat == dfn.seat:
        return f"{att.title} and {dfn.title} are both {seat_name(state, att.seat)}'s souls"
    # Both souls stand in the territory: enemies meet there, so they fight, whoever holds it.
    if att.downed:
        return f"{att.title} is downed and cannot attack"
    if att.failed_cycle == state.diel_cycle:
        again = "" if att.failed_by == "retreat" else " again"
        return f"{att.title} cannot attack{again} in this diel cycle: {spent_why(att)}; it may still defend"
    final = dfn.downed
    geography = state.board.territories[territory].geography
    nomads = "nomad" in (att.habitat.strip().lower(), dfn.habitat.strip().lower())
    best_of = 3 if final and "self" in (TRIADS.get(att.motivation.lower()), TRIADS.get(dfn.motivation.lower())) else 1
    notes = []
    if nomads:
        notes.append("a nomad is in the bout: no habitat effects apply")
    elif final and not edition(state.edition).habitat_in_final_blow:
        notes.append(f"{state.edition} rules: habitat applies to KEAL means bouts, not to the Final Blow")
    if best_of == 3:
        notes.append("a soul fighting for self makes the Final Blow best 2 of 3")
    return {"territory": territory, "geography": geography, "final_blow": final, "best_of": best_of,
            "archetype": archetype, "notes": notes,
            "attacker": _side(state, att, "attacker", geography, nomads, final, archetype, archetype_source),
            "defender": _side(state, dfn, "defender", geography, nomads, final, archetype)}


def roll_plan(plan: dict[str, Any], dice: Any) -> dict[str, list[list[int]]]:
    """Roll every round of ``plan`` with ``dice`` (the runtime's side: the faces go into the event)."""
    return {role: [[dice.roll(s) for s in plan[role]["dice"]] for _ in range(plan["best_of"])]
            for role in ("attacker", "defender")}


def rounds_to_say(plan: dict[str, Any]) -> tuple[int, int]:
    """The fewest and the most rounds of ``plan``'s bout that rolls made at the table may say: a best
    2 of 3 is won "twice in 3 rolls" (the web rules), so a side that wins the first two rounds has won
    and the third is rolled only after a split.

    Example::

        >>> rounds_to_say({"best_of": 3}), rounds_to_say({"best_of": 1})
        ((2, 3), (1, 1))
    """
    return plan["best_of"] // 2 + 1, plan["best_of"]


def settle(plan: dict[str, Any], rolls: dict[str, Any]) -> dict[str, Any] | str:
    """Sums per round, ties by brawl, and who won the bout; or a text naming rolls that do not fit.
    Both sides say as many rounds, within :func:`rounds_to_say`, and the rounds said decide the bout."""
    rounds = []
    wins = {"attacker": 0, "defender": 0}
    need, most = rounds_to_say(plan)
    said = f"{most} round(s)" if need == most else f"{need} or {most} rounds"
    for role in ("attacker", "defender"):
        got = rolls.get(role) if isinstance(rolls, dict) else None
        sides = plan[role]["dice"]
        if (not isinstance(got, list) or not need <= len(got) <= most
                or not all(isinstance(r, list) and len(r) == len(sides)
                           and all(is_int(f) and 1 <= f <= s
                                   for f, s in zip(r, sides, strict=True)) for r in got)):
            dice = "+".join(f"D{s}" for s in sides) + " faces" if sides else "no faces (its card rolls no die)"
            return f"the {role}'s rolls must be {said} of {dice}, got {got!r:.120}"
    count = len(rolls["attacker"])
    if len(rolls["defender"]) != count:
        return (f"both sides roll as many rounds: the attacker said {count}, "
                f"the defender {len(rolls['defender'])}")
    for i in range(count):
        if max(wins.values()) >= need:
            break
        a = sum(rolls["attacker"][i]) + plan["attacker"]["bonus"]
        d = sum(rolls["defender"][i]) + plan["defender"]["bonus"]
        brawl = None
        if a == d:
            brawl = brawl_winner(plan["attacker"]["brawl"], plan["defender"]["brawl"])
            won = "attacker" if brawl == "a" else "defender"
        else:
            won = "attacker" if a > d else "defender"
        wins[won] += 1
        rounds.append({"attacker": a, "defender": d, "won": won, "brawl": brawl is not None})
    if max(wins.values()) < need:
        return (f"the bout is not decided after {count} rounds ({wins['attacker']} to {wins['defender']}): "
                f"roll round {count + 1} too")
    winner = "attacker" if wins["attacker"] >= need else "defender"
    return {"rounds": rounds, "winner": winner}


def failed_retreat(state: KipukasState, soul_ids: list[str], effects: list[Effect]) -> KipukasState:
    """The web rules: souls whose challenged retreat failed attack no more this diel cycle. Souls the
    board does not know, or wasted ones, are named in a problem; the 2023 book has no such rule."""
    if not edition(state.edition).failed_retreat_ends_attacks:
        return state
    unknown = []
    for sid in soul_ids:
        soul = state.souls.get(sid)
        if soul is None or soul.wasted:
            unknown.append(sid)
            continue
        state = put_soul(state, amend(soul, failed_cycle=state.diel_cycle, failed_by="retreat"))
        effects.append({"type": "attack_spent", "soul": sid, "title": soul.title, "seat": soul.seat,
                        "cycle": state.diel_cycle, "by": "retreat", "rule": FAILED_RETREAT_RULE})
    if unknown:
        state = problem(state, effects, f"retreat: {', '.join(unknown)} is no soul in play the board knows; "
                                        f"its failed retreat is not remembered")
    return state


def on_bout_roll(state: KipukasState, event: dict[str, Any], effects: list[Effect]) -> KipukasState:
    """A bout the board reckoned: recompute the plan, settle the journaled rolls, apply the outcome."""
    plan = plan_bout(state, event["territory"], event["attacker"], event["defender"], event.get("archetype", 0),
                     event.get("archetype_source", ""))
    if isinstance(plan, str):
        return problem(state, effects, f"bout: {plan}")
    result = settle(plan, event["rolls"])
    if isinstance(result, str):
        return problem(state, effects, f"bout: {result}")
    att, dfn = state.souls[event["attacker"]], state.souls[event["defender"]]
    n = plan["territory"]
    record = {**plan, "rolls": event["rolls"], **result, "source": event.get("source", "board")}
    if result["winner"] == "attacker":
        outcome: dict[str, Any] = {"type": "bout", "territory": n, "winner": att.seat, "loser": dfn.seat,
                                   "soul": dfn.id, "final_blow": plan["final_blow"]}
        if plan["final_blow"]:
            at = soul_stand(state, dfn.id)
            others = [m for m in movement_stands(state.board, n) if m != at and state.stands[m].occupied
                      and state.stands[m].owner == dfn.seat and state.stands[m].awaiting is None]
            outcome["cleared"] = not others
    else:  # the attack failed: nobody is hurt, and that soul attacks no more this diel cycle
        outcome = {"type": "bout", "territory": n, "winner": dfn.seat, "loser": att.seat, "defeated": 0}
    applied: list[Effect] = []
    new = on_bout(state, outcome, applied)
    if refused(applied):  # the outcome does not fit the fight: nothing happened but the problem
        effects.extend(applied)
        return new
    effects.append({"type": "bout_rolled", "territory": n, "attacker": att.id, "defender": dfn.id,
                    "winner": result["winner"], "final_blow": plan["final_blow"],
                    "sums": [[r["attacker"], r["defender"]] for r in result["rounds"]],
                    "titles": [att.title, dfn.title], "seats": [att.seat, dfn.seat], "notes": list(plan["notes"])})
    effects.extend(applied)
    if result["winner"] == "defender":
        new = put_soul(new, amend(new.souls[att.id], failed_cycle=state.diel_cycle, failed_by="blow"))
        effects.append({"type": "attack_spent", "soul": att.id, "title": att.title, "seat": att.seat,
                        "cycle": state.diel_cycle, "by": "blow", "rule": FAILED_BLOW_RULE})
    return new.evolve(last_bout=record)
