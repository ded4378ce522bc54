"""Kipukas's own events, checked for form before they are journaled (the table's gate,
:func:`kipukas_board.table.events.check_event`, calls the checkers this module registers).

Whether an event makes sense in the current game (a seat that is not playing, a question already answered)
is the core's business, which turns it into a visible problem rather than an exception.

Every roll that decides something is *in* the event (the runtime rolls before journaling, see
:mod:`kipukas_board.modes.kipukas.rules.rolls`), so replay is exact whatever dice were used.

Event types (besides the table's ``map``, ``stand`` and ``card``): ``new_game``, ``roll_diel``, ``answer``,
``correction``, ``undo``, ``resolve_contention``, ``bout``, ``soul_lost`` / ``soul_wasted``,
``take_initiative``, ``timer_start``, ``timer_cancel``, ``dice_roll``, ``end_game``, ``soul_bind``,
``soul_unbind``, ``soul_fix``, ``soul_damage``, ``bout_roll``.

Example::

    >>> import kipukas_board.modes.kipukas.rules.events
    >>> from kipukas_board.table.events import EventError, check_event
    >>> try:
    ...     check_event({"type": "roll_diel", "cycle": 4, "phase": "dusk"})
    ... except EventError as error:
    ...     print(error)
    'roll_diel' event field 'phase' must be one of day, night, storm or null, got 'dusk'
"""

from __future__ import annotations

from typing import Any

from kipukas_board.modes.kipukas.rules.editions import EDITIONS, PHASES
from kipukas_board.modes.kipukas.rules.playstyles import STYLES
from kipukas_board.strictjson import is_int
from kipukas_board.table.events import (
    Event,
    EventError,
    UnknownFieldError,
    check_players,
    register_event_type,
    required_field,
)

#: Events a player makes on the page; ``undo`` takes back the last of these.
PLAYER_ACTIONS = frozenset({
    "new_game", "roll_diel", "answer", "correction", "resolve_contention", "bout", "soul_lost", "soul_wasted",
    "take_initiative", "timer_start", "timer_cancel", "dice_roll", "end_game",
    "soul_bind", "soul_unbind", "soul_fix", "soul_damage", "bout_roll",
})

#: Souls one retreat roll may name: a group retreat out of one territory (3 souls per player).
MAX_RETREATING = 3
DICE_KINDS = ("random_territory", "rogue_path", "retreat", "trap", "d6", "d20")


def _seat(event: Event, name: str, optional: bool = False, nullable: bool = False) -> int | None:
    if name not in event and optional:
        return None
    v = event.get(name)
    if v is None and nullable and name in event:
        return None
    if not is_int(v) or not 1 <= v <= 8:
        extra = " or null" if nullable else ""
        raise EventError(f"{event.get('type')!r} event field {name!r} must be a seat number 1 to 8{extra}, "
                         f"got {v!r}")
    return v


def _choice(event: Event, name: str, choices: Any, optional: bool = False, nullable: bool = False) -> Any:
    if name not in event:
        if optional:
            return None
        raise EventError(f"{event.get('type')!r} event needs field {name!r} (one of {', '.join(choices)})")
    v = event[name]
    if v is None and nullable:
        return None
    if v not in choices:
        tail = " or null" if nullable else ""
        raise EventError(f"{event.get('type')!r} event field {name!r} must be one of {', '.join(choices)}"
                         f"{tail}, got {v!r}")
    return v


def _positive(event: Event, name: str, optional: bool = False, low: int = 1) -> int | None:
    if name not in event and optional:
        return None
    v = event.get(name)
    if not is_int(v) or v < low:
        raise EventError(f"{event.get('type')!r} event field {name!r} must be a whole number from {low} up, "
                         f"got {v!r}")
    return v


def _rolls(event: Event, name: str = "rolls", sides: int = 20) -> list[int]:
    v = event.get(name)
    if not isinstance(v, list) or not v or not all(is_int(r) and 1 <= r <= sides for r in v):
        raise EventError(f"{event.get('type')!r} event field {name!r} must be a non-empty list of rolls "
                         f"1 to {sides}, got {v!r}")
    return v


#: What a new game's ``options`` may hold: a play style's settings, and the rolls that picked a
#: random hill (added by the board, never by a page).
OPTION_FIELDS = ("cycles", "territory", "soul_limit", "territory_rolls")


def check_weights(w: Any, where: str = "'new_game' event field 'diel_weights'") -> None:
    if not isinstance(w, dict) or set(w) - set(PHASES):
        raise EventError(f"{where} must be an object with faces per phase (day, night, storm), got {w!r}")
    if not all(is_int(v) and 0 <= v <= 20 for v in w.values()) or sum(w.values()) < 1:
        raise EventError(f"{where} must give 0 to 20 faces per phase and at least one face in all, got {w!r}")


def check_new_game(e: Event) -> None:
    check_players(e.get("players"))
    _choice(e, "edition", tuple(EDITIONS))
    _choice(e, "play_style", tuple(STYLES))
    if "diel_weights" in e:
        check_weights(e["diel_weights"])
    opts = e.get("options", {})
    if not isinstance(opts, dict):
        raise EventError(f"'new_game' event field 'options' must be an object, got {opts!r}")
    extra = sorted(set(opts) - set(OPTION_FIELDS))
    if extra:
        raise UnknownFieldError(f"'new_game' event field 'options' has unknown field(s) "
                                f"{', '.join(map(str, extra))[:120]}; expected {', '.join(OPTION_FIELDS)}",
                                ("options",), tuple(extra))
    for key in ("cycles", "territory", "soul_limit"):
        if key in opts and (not is_int(opts[key]) or opts[key] < 1):
            raise EventError(f"'new_game' event field 'options.{key}' must be a whole number from 1 up, "
                             f"got {opts[key]!r}")
    rolls = opts.get("territory_rolls", [])
    if not isinstance(rolls, list) or len(rolls) > 1000 or not all(is_int(r) and 1 <= r <= 20 for r in rolls):
        raise EventError(f"'new_game' event field 'options.territory_rolls' must be a list of D20 rolls (1 to 20), "
                         f"got {rolls!r:.80}")
    first = _seat(e, "first_placer")
    if first not in {p["seat"] for p in e["players"]}:
        raise EventError(f"'new_game' event field 'first_placer' must be one of the players' seats, got {first}")


def _check_roll_diel(e: Event) -> None:
    _positive(e, "cycle")
    _choice(e, "phase", PHASES, optional=True, nullable=True)
    if e.get("roll") is not None:
        _positive(e, "roll")


def _check_answer(e: Event) -> None:
    required_field(e, "question", str, "a question id")
    if "answer" not in e:
        raise EventError("'answer' event needs field 'answer' (one of the question's options)")


def _check_correction(e: Event) -> None:
    target = _choice(e, "target", ("stand", "territory"))
    if target == "stand":
        required_field(e, "stand", str, "a stand id")
        if "downed" in e:
            required_field(e, "downed", bool, "true or false")
    else:
        _positive(e, "territory")
        _choice(e, "claim", ("capital", "base_camp"), optional=True, nullable=True)
    _seat(e, "owner", optional=True, nullable=True)
    if not any(k in e for k in ("owner", "downed", "claim")):
        raise EventError("'correction' event needs at least one of 'owner', 'claim' or 'downed'")


def _check_undo(e: Event) -> None:
    pass


def _check_resolve(e: Event) -> None:
    _positive(e, "territory")
    _seat(e, "winner")


def _check_bout(e: Event) -> None:
    _positive(e, "territory")
    _seat(e, "winner")
    _seat(e, "loser")
    _positive(e, "defeated", optional=True, low=0)
    if e.get("defeated", 1) > 10:
        raise EventError(f"'bout' event field 'defeated' must be 0 to 10 souls, got {e['defeated']!r}")
    if "stand" in e and e["stand"] is not None:
        required_field(e, "stand", str, "the defeated soul's stand id or null")
    if "cleared" in e:
        required_field(e, "cleared", bool, "true or false (the loser has no soul left in the territory)")
    if "soul" in e:
        _soul_id(e)
    if "final_blow" in e:
        required_field(e, "final_blow", bool, "true or false (the bout was the Final Blow against the losing soul)")


def _soul_id(e: Event) -> str:
    v = required_field(e, "soul", str, "a soul id from /api/state's souls")
    if not v or len(v) > 40:
        raise EventError(f"{e.get('type')!r} event field 'soul' must be a soul id of 1 to 40 characters, got {v!r}")
    return v


def _check_bout_roll(e: Event) -> None:
    _positive(e, "territory")
    for name in ("attacker", "defender"):
        v = required_field(e, name, str, "a soul id from /api/state's souls")
        if not v or len(v) > 40:
            raise EventError(f"'bout_roll' event field {name!r} must be a soul id of 1 to 40 characters, got {v!r}")
    arch = e.get("archetype", 0)
    if not is_int(arch) or abs(arch) > 40:
        raise EventError(f"'bout_roll' event field 'archetype' must be a whole number -40 to 40, got {arch!r}")
    rolls = e.get("rolls")
    if (not isinstance(rolls, dict) or set(rolls) != {"attacker", "defender"}
            or not all(isinstance(r, list) and 1 <= len(r) <= 3
                       and all(isinstance(x, list) and len(x) <= 6 and all(is_int(f) and 1 <= f <= 100 for f in x)
                               for x in r) for r in rolls.values())):
        raise EventError("'bout_roll' event field 'rolls' must be {\"attacker\": [[faces], ...], \"defender\": "
                         f"[[faces], ...]}} (1 to 3 rounds of up to 6 dice: none for a card with only a base), "
                         f"got {rolls!r:.160}")
    _choice(e, "source", ("board", "physical"), optional=True)
    if "archetype_source" in e:
        src = required_field(e, "archetype_source", str, "where the archetype modifier came from")
        if len(src) > 120:
            raise EventError(f"'bout_roll' event field 'archetype_source' must be at most 120 characters, got {src!r}")


def _check_soul_bind(e: Event) -> None:
    required_field(e, "stand", str, "the movement stand whose token the soul is")
    if "soul" in e:
        _soul_id(e)
    else:
        _seat(e, "seat")


def _check_soul_unbind(e: Event) -> None:
    _soul_id(e)


def _check_soul_fix(e: Event) -> None:
    _soul_id(e)
    _positive(e, "lost", optional=True, low=0)
    if "wasted" in e:
        required_field(e, "wasted", bool, "true (the soul is wasted)")
    _seat(e, "by", optional=True, nullable=True)
    if "lost" not in e and not e.get("wasted"):
        raise EventError("'soul_fix' event needs 'lost' (KEAL means lost) or 'wasted': true")


def _check_soul_damage(e: Event) -> None:
    _soul_id(e)
    _positive(e, "count", optional=True)
    _positive(e, "healed", optional=True)
    if e.get("count", 1) > 20 or e.get("healed", 1) > 20:
        raise EventError("'soul_damage' event fields 'count' and 'healed' must be 1 to 20")
    _seat(e, "by", optional=True, nullable=True)
    if "cause" in e:
        cause = required_field(e, "cause", str, "a short word for what hurt or healed the soul")
        if len(cause) > 40:
            raise EventError(f"'soul_damage' event field 'cause' must be at most 40 characters, got {cause!r}")


def _check_soul_lost(e: Event) -> None:
    _seat(e, "seat")
    _seat(e, "by", optional=True, nullable=True)
    _positive(e, "count", optional=True)
    if "stand" in e:
        required_field(e, "stand", str, "a stand id")


def _check_initiative(e: Event) -> None:
    _seat(e, "seat")


def _check_timer_start(e: Event) -> None:
    label = required_field(e, "label", str, "what the timer is for")
    if not label.strip() or len(label) > 80:
        raise EventError(f"'timer_start' event field 'label' must be 1 to 80 characters, got {label!r}")
    _positive(e, "cycles")
    _seat(e, "seat", optional=True, nullable=True)


def _check_timer_cancel(e: Event) -> None:
    required_field(e, "timer", str, "a timer id")


def _check_dice_roll(e: Event) -> None:
    kind = _choice(e, "kind", DICE_KINDS)
    _seat(e, "seat", optional=True, nullable=True)
    if kind in ("random_territory", "trap", "d20"):
        _rolls(e, "rolls", 20)
    elif kind == "d6":
        _rolls(e, "rolls", 6)
    elif kind == "retreat":
        _rolls(e, "escapee", 6)
        _rolls(e, "challenger", 20)
        if len(e["escapee"]) != 2 or len(e["challenger"]) != 1:
            raise EventError("'dice_roll' retreat needs 'escapee' (2 D6) and 'challenger' (1 D20)")
        souls = e.get("souls", [])
        if (not isinstance(souls, list) or len(souls) > MAX_RETREATING
                or not all(isinstance(x, str) and 0 < len(x) <= 64 for x in souls)):
            raise EventError(f"'dice_roll' retreat field 'souls' must list at most {MAX_RETREATING} soul ids "
                             f"(the souls retreating), got {souls!r:.80}")
    elif kind == "rogue_path":
        required_field(e, "stand", str, "the rogue's stand id")
        moves = required_field(e, "moves", int, "the rogue's Movement Range")
        steps = e.get("steps")
        if (not isinstance(steps, list) or len(steps) > moves
                or not all(isinstance(st, dict) and isinstance(st.get("from"), str)
                           and isinstance(st.get("paths"), list) and st["paths"]
                           and all(isinstance(x, str) for x in st["paths"])
                           and isinstance(st.get("rolls"), list) and st["rolls"]
                           and all(is_int(r) and 1 <= r <= max(6, len(st["paths"])) for r in st["rolls"])
                           for st in steps)):
            raise EventError("'dice_roll' rogue_path needs 'steps': at most 'moves' of {\"from\": stand, "
                             f"\"paths\": [stands numbered 1..k], \"rolls\": [die rolls]}}, got {steps!r:.200}")


def _check_end_game(e: Event) -> None:
    _seat(e, "winner", optional=True, nullable=True)


for _name, _fn in {
    "new_game": check_new_game, "roll_diel": _check_roll_diel,
    "answer": _check_answer, "correction": _check_correction, "undo": _check_undo,
    "resolve_contention": _check_resolve, "bout": _check_bout,
    "soul_lost": _check_soul_lost, "soul_wasted": _check_soul_lost,
    "take_initiative": _check_initiative, "timer_start": _check_timer_start,
    "timer_cancel": _check_timer_cancel, "dice_roll": _check_dice_roll, "end_game": _check_end_game,
    "soul_bind": _check_soul_bind, "soul_unbind": _check_soul_unbind, "soul_fix": _check_soul_fix,
    "soul_damage": _check_soul_damage, "bout_roll": _check_bout_roll,
}.items():
    register_event_type(_name, _fn)
