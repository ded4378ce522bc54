"""JSON as the pages read it: no NaN, no Infinity, no number a page cannot hold.

Python's ``json`` reads and writes ``NaN`` and ``Infinity`` by default, which are not JSON: one such
value in a request would reach the state, the event stream and the journal, and every page would fail
to parse what the board sends, across restarts. So everything the board reads from outside goes
through :func:`loads` (a request body), which refuses them with a message naming where the value
was; everything it records goes through :func:`dumps`, which refuses them too, and everything it
sends through :func:`sent_dumps`, which sends them as ``null`` and logs where they were.
:func:`problem` finds such a value in data already parsed, and :func:`repair_loads` reads a stored
text that holds one from before this check, turning it into ``null`` and saying where.

Whole numbers are bounded by what a page's JavaScript holds exactly (:data:`MAX_INT`).

Example::

    >>> loads('{"players": 2}')
    {'players': 2}
    >>> loads('{"options": {"note": NaN}}')
    Traceback (most recent call last):
    ...
    kipukas_board.strictjson.JSONValueError: the JSON body holds NaN, which JSON does not allow (numbers must be finite)
    >>> loads('{"seat": 1, "seat": 2}')
    Traceback (most recent call last):
    ...
    kipukas_board.strictjson.JSONValueError: the JSON body gives the key 'seat' twice in one object; give each key once
    >>> problem({"options": {"note": float("inf")}})
    'options.note is inf (numbers must be finite)'
    >>> repair_loads('{"a": [1, NaN]}')
    ({'a': [1, None]}, ['a[1]'])
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any

log = logging.getLogger(__name__)

#: The largest whole number a JSON number carries exactly to a page (JavaScript's safe integers).
MAX_INT = 2**53 - 1


def is_int(v: Any) -> bool:
    """Whether ``v`` is a whole number as JSON gives it: an ``int`` but never a bool, which Python
    counts as one (``true`` must not pass for 1 in a card file, a table or an event).

    >>> is_int(3), is_int(True), is_int(3.0)
    (True, False, False)
    """
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    """Whether ``v`` is a finite number: an ``int`` or a finite ``float``, never a bool.

    A bool is refused for the reason :func:`is_int` gives. NaN and the infinities are refused too:
    TOML reads ``nan`` and ``inf`` as floats, and no length, position, time or limit the board reads
    means anything as one (a NaN also slips through every ``lo <= v <= hi`` written the other way
    round, and a page cannot draw at it).

    >>> is_number(3), is_number(0.5), is_number(True), is_number(float("nan")), is_number(float("inf"))
    (True, True, False, False, False)
    >>> is_number("3")
    False
    """
    if isinstance(v, float):
        return math.isfinite(v)
    return is_int(v)


class JSONValueError(ValueError):
    """A value JSON cannot carry (NaN, Infinity, a number out of range); the message says where."""


def loads(text: str | bytes, what: str = "the JSON body") -> Any:
    """Parse ``text`` strictly; :class:`JSONValueError` for NaN, Infinity, a number out of range or
    a key given twice in one object (plain ``ValueError`` for text that is not JSON at all)."""

    def constant(name: str) -> Any:
        raise JSONValueError(f"{what} holds {name}, which JSON does not allow (numbers must be finite)")

    def real(s: str) -> float:
        value = float(s)
        if not math.isfinite(value):
            raise JSONValueError(f"{what} holds the number {s[:40]}, which is out of range "
                                 f"(numbers must be finite)")
        return value

    def whole(s: str) -> int:
        if len(s) > 17 or abs(int(s)) > MAX_INT:
            raise JSONValueError(f"{what} holds the whole number {s[:40]}{'...' if len(s) > 40 else ''}, "
                                 f"which is out of range (at most {MAX_INT} either way)")
        return int(s)

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        # Python keeps the last of a key given twice, other readers the first: refused, so no two
        # readers of one body can disagree about what it says.
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                raise JSONValueError(f"{what} gives the key {key[:40]!r} twice in one object; give each key once")
            obj[key] = value
        return obj

    return json.loads(text, parse_constant=constant, parse_float=real, parse_int=whole, object_pairs_hook=unique)


def _path(where: str, key: object) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else str(key)


def problem(value: Any, where: str = "") -> str | None:
    """Where ``value`` holds something JSON cannot carry, and what (None: nothing).

    >>> problem([1, 2.5, {"n": 2**60}])
    '[2].n is 1152921504606846976, out of range (at most 9007199254740991 either way)'
    """
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{where or 'the value'} is {value} (numbers must be finite)"
    if is_int(value):
        if abs(value) > MAX_INT:
            return f"{where or 'the value'} is {value}, out of range (at most {MAX_INT} either way)"
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return f"{_path(where, k)}: a key is {type(k).__name__}, not text"
            found = problem(v, _path(where, k))
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = problem(v, _path(where, i))
            if found:
                return found
    return None


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` that refuses NaN and Infinity, raising :class:`JSONValueError` naming where."""
    try:
        return json.dumps(value, allow_nan=False, **kwargs)
    except ValueError as exc:
        raise JSONValueError(f"cannot be sent as JSON: {problem(value) or exc}") from None


def repaired(value: Any) -> tuple[Any, list[str]]:
    """``value`` with NaN, Infinity and numbers out of range turned into None, and where they were.

    >>> repaired({"a": [1, float("nan")], "b": 2})
    ({'a': [1, None], 'b': 2}, ['a[1]'])
    """
    where_fixed: list[str] = []

    def fix(v: Any, where: str) -> Any:
        if isinstance(v, float) and not math.isfinite(v) or (
                is_int(v) and abs(v) > MAX_INT):
            where_fixed.append(where or "the value")
            return None
        if isinstance(v, dict):
            return {k: fix(x, _path(where, k)) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [fix(x, _path(where, i)) for i, x in enumerate(v)]
        return v

    return fix(value, ""), where_fixed


def repair_loads(text: str | bytes) -> tuple[Any, list[str]]:
    """Parse stored ``text``, turning NaN, Infinity and numbers out of range into ``null``; returns the
    value and the paths that were repaired (empty when nothing was)."""
    return repaired(json.loads(text))


def sent_dumps(value: Any, **kwargs: Any) -> str:
    """What the board *sends* (answers, event streams, MQTT): always valid JSON. A value JSON cannot
    carry is a bug upstream; it is logged with where it was and sent as ``null``, so the pages keep
    working instead of failing to parse every message. (What the board *records* goes through
    :func:`dumps`, which refuses.)"""
    try:
        return json.dumps(value, allow_nan=False, **kwargs)
    except ValueError:
        fixed, where = repaired(value)
        log.error("not JSON, sent as null: %s", ", ".join(where[:5]) or "a value")
        return json.dumps(fixed, allow_nan=False, **kwargs)
