"""The events the core understands, as the plain JSON objects the journal stores.

Events are dicts with a ``"type"``; they come from adapters (a reed switch, a camera), from the page
(a player's answer or correction) and from the runtime (a map being loaded). :func:`check_event`
is the gate in front of the journal: only a well-formed event is ever written, so replay never
meets one it cannot read. It checks *form* (fields, types, ranges); whether an event makes sense in
the current game (a seat that is not playing, a question already answered) is the core's business,
which turns it into a visible problem rather than an exception.

Every roll that decides something is *in* the event (the runtime rolls before journaling, see
:mod:`kipukas_board.modes.kipukas.rules.rolls`), so replay is exact whatever dice were used.

Event types: ``map``, ``stand``, ``new_game``, ``roll_diel``, ``answer``, ``correction``, ``undo``,
``resolve_contention``, ``bout``, ``soul_lost`` / ``soul_wasted``, ``take_initiative``, ``timer_start``,
``timer_cancel``, ``dice_roll``, ``end_game``, ``soul_bind``, ``soul_unbind``, ``soul_fix``,
``soul_damage``, ``bout_roll``.

Example::

    >>> from kipukas_board.modes.kipukas.rules.events import EventError, check_event, stand_event
    >>> check_event(stand_event("T1", True))
    {'type': 'stand', 'stand': 'T1', 'occupied': True, 'source': 'sensor'}
    >>> try:
    ...     check_event({"type": "roll_diel", "cycle": 4, "phase": "dusk"})
    ... except EventError as error:
    ...     print(error)
    'roll_diel' event field 'phase' must be one of day, night, storm or null, got 'dusk'
"""

from __future__ import annotations

import re
from typing import Any

from kipukas_board import strictjson
from kipukas_board.modes.kipukas.rules.editions import EDITIONS, PHASES
from kipukas_board.modes.kipukas.rules.playstyles import STYLES
from kipukas_board.strictjson import is_int

Event = dict[str, Any]

#: Events a player makes on the page; ``undo`` takes back the last of these.
PLAYER_ACTIONS = frozenset({
    "new_game", "roll_diel", "answer", "correction", "resolve_contention", "bout", "soul_lost", "soul_wasted",
    "take_initiative", "timer_start", "timer_cancel", "dice_roll", "end_game",
    "soul_bind", "soul_unbind", "soul_fix", "soul_damage", "bout_roll",
})

#: Souls one retreat roll may name: a group retreat out of one territory (3 souls per player).
MAX_RETREATING = 3
DICE_KINDS = ("random_territory", "rogue_path", "retreat", "trap", "d6", "d20")
_COLOR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")


class EventError(ValueError):
    """An event that is not well formed; the message names the field and what was expected."""


class UnknownFieldError(EventError):
    """An object in the event has a key the event does not take (earlier versions took any, so a
    journal may hold such an event from before: replay drops those keys, :func:`without_unknown`).

    ``path`` leads from the event to that object (``("options",)``, ``("players", 1)``) and ``keys``
    are the keys it does not take.
    """

    def __init__(self, message: str, path: tuple[str | int, ...] = (), keys: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.path, self.keys = path, keys


#: Unknown-field objects one stored event may have dropped at most (options and four players).
MAX_DROPS = 8


def without_unknown(event: Event) -> tuple[Event, list[str]]:
    """``event`` as the checker takes it today, with the keys earlier versions let in dropped, and
    what was dropped (``"options.note"``); raises :class:`EventError` if it is wrong otherwise.

    A stored event is checked as every new one is; only keys no rule reads are dropped, so the rules
    apply it as they did, and the rest of the event is checked too instead of being taken on trust.

    Example::

        >>> e = {"type": "new_game", "edition": "web", "play_style": "domination", "first_placer": 1,
        ...      "options": {"note": "x", "cycles": 2},
        ...      "players": [{"seat": 1, "name": "A", "color": "#ff0000"},
        ...                  {"seat": 2, "name": "B", "color": "#0000ff", "hat": 1}]}
        >>> fixed, dropped = without_unknown(e)
        >>> dropped, fixed["options"], "hat" in fixed["players"][1], "hat" in e["players"][1]
        (['players[1].hat', 'options.note'], {'cycles': 2}, False, True)
    """
    import copy

    dropped: list[str] = []
    for _ in range(MAX_DROPS):
        try:
            return check_event(event), dropped
        except UnknownFieldError as exc:
            if not exc.keys:
                raise
            if not dropped:
                event = copy.deepcopy(event)
            holder: Any = event
            for step in exc.path:
                holder = holder[step]
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in exc.path).lstrip(".")
            for key in exc.keys:
                holder.pop(key, None)
                dropped.append(f"{where}.{key}")
    return check_event(event), dropped


def stand_event(stand: str, occupied: bool, source: str = "sensor") -> Event:
    """A token arrived on (``occupied=True``) or left ``stand``."""
    return {"type": "stand", "stand": stand, "occupied": occupied, "source": source}


def map_event(name: str, toml_text: str, path: str | None = None) -> Event:
    """The board was (re)started on a map; the map's text goes into the journal so replay is exact
    (``path``: where the file was, for messages that tell a player which ``--map`` to give)."""
    return {"type": "map", "name": name, "toml": toml_text, **({"path": path} if path else {})}


def required_field(event: Event, name: str, kind: type | tuple[type, ...], what: str) -> Any:
    """``event[name]``, which must be there and of ``kind`` (a bool is no int); raises
    :class:`EventError` naming the field and ``what`` was expected."""
    if name not in event:
        raise EventError(f"{event.get('type')!r} event needs field {name!r} ({what})")
    value = event[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise EventError(f"{event.get('type')!r} event field {name!r} must be {what}, got {value!r}")
    return value


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


#: Checkers by event type. Other layers add theirs with :func:`register_event_type`.
_CHECKERS: dict[str, Any] = {}


def register_event_type(name: str, checker: Any) -> None:
    """Declare an event type; ``checker(event)`` raises :class:`EventError` when it is malformed."""
    _CHECKERS[name] = checker


def check_event(event: Any) -> Event:
    """Return ``event`` if it is well formed, else raise :class:`EventError` saying what is wrong."""
    if not isinstance(event, dict):
        raise EventError(f"an event is a JSON object, got {type(event).__name__}")
    kind = event.get("type")
    if kind not in _CHECKERS:
        raise EventError(f"unknown event type {kind!r}; expected one of {', '.join(sorted(_CHECKERS))}")
    bad = strictjson.problem(event)  # journaled, then sent to every page: it must be plain JSON
    if bad:
        raise EventError(f"{kind!r} event field {bad}")
    _CHECKERS[kind](event)
    return event


def _check_stand(e: Event) -> None:
    required_field(e, "stand", str, "a stand id")
    required_field(e, "occupied", bool, "true or false")


def _check_map(e: Event) -> None:
    required_field(e, "name", str, "the map's name")
    required_field(e, "toml", str, "the map file's text")


#: What a player object of a new game holds.
PLAYER_FIELDS = frozenset({"seat", "name", "color", "affinity"})
#: What a new game's ``options`` may hold: a play style's settings, and the rolls that picked a
#: random hill (added by the board, never by a page).
OPTION_FIELDS = ("cycles", "territory", "soul_limit", "territory_rolls")


def check_players(players: Any, where: str = "'new_game' event field 'players'") -> None:
    """2 to 4 players, each ``{"seat": 1-8, "name": str, "color": "#rrggbb", "affinity": str?}``."""
    if not isinstance(players, list) or not 2 <= len(players) <= 4:
        raise EventError(f"{where} must be a list of 2 to 4 players, got {players!r}")
    seats = set()
    for i, p in enumerate(players):
        w = f"{where}[{i}]"
        if not isinstance(p, dict):
            raise EventError(f"{w} must be an object with seat, name and color, got {p!r}")
        extra = sorted(set(p) - PLAYER_FIELDS)
        if extra:
            raise UnknownFieldError(f"{w} has unknown field(s) {', '.join(map(str, extra))[:120]}; "
                                    f"expected {', '.join(sorted(PLAYER_FIELDS))}",
                                    ("players", i), tuple(extra))
        seat = p.get("seat")
        if not is_int(seat) or not 1 <= seat <= 8:
            raise EventError(f"{w}.seat must be a seat number 1 to 8, got {seat!r}")
        if seat in seats:
            raise EventError(f"{w}.seat {seat} is given twice; every player needs their own seat")
        seats.add(seat)
        name = p.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 40:
            raise EventError(f"{w}.name must be a non-empty name of at most 40 characters, got {name!r}")
        color = p.get("color")
        if not isinstance(color, str) or not _COLOR_RE.match(color):
            raise EventError(f"{w}.color must be a colour like \"#1e90ff\", got {color!r}")
        aff = p.get("affinity", "")
        if not isinstance(aff, str) or len(aff) > 40:
            raise EventError(f"{w}.affinity must be text of at most 40 characters, got {aff!r}")


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
    "stand": _check_stand, "map": _check_map, "new_game": check_new_game, "roll_diel": _check_roll_diel,
    "answer": _check_answer, "correction": _check_correction, "undo": _check_undo,
    "resolve_contention": _check_resolve, "bout": _check_bout,
    "soul_lost": _check_soul_lost, "soul_wasted": _check_soul_lost,
    "take_initiative": _check_initiative, "timer_start": _check_timer_start,
    "timer_cancel": _check_timer_cancel, "dice_roll": _check_dice_roll, "end_game": _check_end_game,
    "soul_bind": _check_soul_bind, "soul_unbind": _check_soul_unbind, "soul_fix": _check_soul_fix,
    "soul_damage": _check_soul_damage, "bout_roll": _check_bout_roll,
}.items():
    register_event_type(_name, _fn)
