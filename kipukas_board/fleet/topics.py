"""The fleet's topics and messages (docs/admins/fleet.md): what a board publishes and a consumer reads. ::

    kipukas/<board_id>/state    retained, QoS 1: the /api/state JSON less "health"
    kipukas/<board_id>/events   QoS 1: {"seq": n, "ts": t, "event": {...}}, one per journaled event,
                                in seq order; after an outage some may come twice (de-duplicate by
                                board and seq), none is skipped
    kipukas/<board_id>/health   retained, QoS 1: {"online": true, "name": ..., "health": {...}, ...};
                                the board's last will is {"online": false}

Payloads come from the network, so :func:`decode` bounds their size and names what was wrong.

Example::

    >>> topic_for("table-07", "events")
    'kipukas/table-07/events'
    >>> parse_topic("kipukas/table-07/state")
    ('table-07', 'state')
    >>> decode(encode_event(3, 1700000000.5, {"type": "stand"}))["seq"]
    3
"""

from __future__ import annotations

from typing import Any

from kipukas_board import strictjson
from kipukas_board.settings import BOARD_ID_RE

PREFIX = "kipukas"
KINDS = ("state", "events", "health")
#: Every board's topics, for a consumer (the dashboard, the bench's subscriber).
SUBSCRIBE_ALL = [(f"{PREFIX}/+/{kind}", 1) for kind in KINDS]
#: A payload over this many bytes is refused (a state with a long log stays well under it).
MAX_PAYLOAD = 1024 * 1024
#: The last will: what the broker says for a board that went away without saying goodbye.
OFFLINE = b'{"online": false}'


class MessageError(ValueError):
    """A fleet message that is not what the contract says (too big, not JSON, missing a field)."""


def topic_for(board_id: str, kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown fleet topic kind {kind!r}; expected one of {', '.join(KINDS)}")
    return f"{PREFIX}/{board_id}/{kind}"


def parse_topic(topic: str) -> tuple[str, str] | None:
    """``(board_id, kind)`` for a fleet topic, None for anything else."""
    parts = topic.split("/")
    if len(parts) != 3 or parts[0] != PREFIX or parts[2] not in KINDS or not BOARD_ID_RE.fullmatch(parts[1]):
        return None
    return parts[1], parts[2]


def dumps(doc: Any) -> bytes:
    return strictjson.sent_dumps(doc, separators=(",", ":")).encode()


def encode_event(seq: int, ts: float, event: dict[str, Any]) -> bytes:
    return dumps({"seq": seq, "ts": ts, "event": event})


def decode(payload: bytes, kind: str = "state") -> dict[str, Any]:
    """A message's JSON object, read strictly (:func:`kipukas_board.strictjson.loads`: no NaN or
    Infinity, no whole number a page cannot hold, no key given twice); for ``events`` also checks
    ``seq`` (a whole number >= 1), ``ts`` (a finite number of seconds) and ``event``.

    >>> decode(b'{"seq": 4, "ts": true, "event": {}}', "events")
    Traceback (most recent call last):
    ...
    kipukas_board.fleet.topics.MessageError: events message 4 has ts = True; expected the time the board ...
    """
    if len(payload) > MAX_PAYLOAD:
        raise MessageError(f"{kind} message of {len(payload)} bytes is over the {MAX_PAYLOAD}-byte limit")
    try:
        doc = strictjson.loads(payload, f"{kind} message")
    except strictjson.JSONValueError as exc:
        raise MessageError(str(exc)) from None
    except ValueError as exc:  # not UTF-8, or not JSON at all
        raise MessageError(f"{kind} message is not JSON: {exc}") from None
    except RecursionError:
        raise MessageError(f"{kind} message nests too deeply to be a fleet message") from None
    if not isinstance(doc, dict):
        raise MessageError(f"{kind} message must be a JSON object, got {type(doc).__name__}")
    if kind == "events":
        seq = doc.get("seq")
        if not strictjson.is_int(seq) or seq < 1:
            raise MessageError(f"events message has seq = {seq!r}; expected a whole number from 1")
        ts = doc.get("ts")
        if not strictjson.is_number(ts):
            raise MessageError(f"events message {seq} has ts = {ts!r}; expected the time the board journaled "
                               f"it (a finite number of seconds since 1970)")
        if not isinstance(doc.get("event"), dict):
            raise MessageError(f"events message {seq} has no event object")
    return doc
