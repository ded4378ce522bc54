"""Journal an action's event and answer with what the rules made of it: one way for every route.

The board's actions, the souls' and every game mode's routes all do the same three things: check the
event, hand it to the core loop (which journals it before the rules see it), and answer with the
effects the rules produced, as a 409 naming the problems when the rules refused it. That lives here
once, so a refusal reads the same on every route.

Example, inside a route plugin::

    submit = Submitter(board)
    @app.post("/api/actions/roll-diel")
    def roll() -> Response:
        return submit({"type": "roll_diel"})
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import Response, current_app, jsonify

from kipukas_board.core_loop import StillQueued
from kipukas_board.strictjson import is_int
from kipukas_board.table.events import EventError, check_event, refused
from kipukas_board.web import taps
from kipukas_board.web.server import BadRequest

if TYPE_CHECKING:
    from kipukas_board.web.served import Table


#: How long an action (and the simulated camera and hand, ``/api/sim/cards`` and ``/api/sim/stands``)
#: waits for the core loop to journal and apply its event before it answers "still under way" (503):
#: the event is still done in its turn, and a repeat of its tap is not done again.
#: Under the page's 8 s before it gives up on a request (common.js ``API_TIMEOUT_MS``), so the page
#: hears "still under way" and asks again, rather than taking the board for gone.
WAIT_S = 6.0


class EffectsBySeq:
    """Remembers the effects of the latest events, by journal number, for each action's answer."""

    def __init__(self, keep: int = 64) -> None:
        self._by_seq: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()
        self._keep = keep
        self._lock = threading.Lock()

    def __call__(self, state: Any, effects: list[dict[str, Any]]) -> None:
        with self._lock:
            self._by_seq[state.seq] = effects
            while len(self._by_seq) > self._keep:
                self._by_seq.popitem(last=False)

    def get(self, seq: int | None) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._by_seq.get(seq or -1, []))


class Submitter:
    """Calling it with an event journals it and returns the HTTP answer (see the module docs)."""

    def __init__(self, board: Table) -> None:
        self.board = board
        self.recorder = EffectsBySeq()
        board.subscribe(self.recorder)

    def __call__(self, event: dict[str, Any], then: Callable[[int, bool], None] | None = None,
                 ) -> Response | tuple[Response, int]:
        """Journal ``event`` and answer with its effects. ``then(seq, taken)``: what the route does
        after the event (journal number ``seq``; ``taken``: the rules did not refuse it), run once,
        before the answer: in this request, or, when the busy core does the event late (503 "still
        under way"), once it is done (:meth:`StillQueued.then <kipukas_board.core_loop.StillQueued.then>`)."""
        try:
            check_event(event)
            # the tap is journaled with it: done once across a restart
            seq = self.board.submit(event, timeout=WAIT_S, tap=taps.current())
        except EventError as exc:
            raise BadRequest(str(exc)) from None
        except StillQueued as exc:  # answered 503 (web/taps.py); the tap's answer, once it is done, is this one
            def late(seq: int) -> tuple[int, bytes]:
                doc, status = self.answer(event, seq)
                if then is not None:
                    then(seq, status == 200)
                return status, json.dumps(doc).encode()

            raise exc.then(late) from None
        doc, status = self.answer(event, seq)
        if then is not None and seq is not None:
            then(seq, status == 200)
        return jsonify(doc), status

    def answer(self, event: dict[str, Any], seq: int | None) -> tuple[dict[str, Any], int]:
        """The answer to ``event``, journaled as ``seq``: its effects, or a 409 naming why the rules refused it."""
        effects = self.recorder.get(seq)
        if refused(effects):
            return {"ok": False, "error": "; ".join(e["text"] for e in effects), "seq": seq,
                    "event": event, "effects": effects}, 409
        return {"ok": True, "seq": seq, "event": event, "effects": effects}, 200

    def unless_refused(self, event: dict[str, Any],
                       why_not: Callable[[Any, dict[str, Any]], str | None]) -> Response | tuple[Response, int]:
        """Journal ``event`` unless the game's rules would refuse it now (``why_not(state, event)``, the
        mode's own check): then a 409 in the rules' words, and nothing is journaled."""
        try:
            check_event(event)
        except EventError as exc:
            raise BadRequest(str(exc)) from None
        why = why_not(self.board.state, event)
        if why is not None:
            raise Conflict(why)
        return self(event)


def only_fields(body: dict[str, Any], allowed: set[str], where: str = "") -> None:
    """Refuse a body with a field the route does not take, naming it and the fields it does."""
    extra = sorted(set(body) - allowed)
    if extra:
        raise BadRequest(f"unknown field(s) {where}{', '.join(extra)}; expected {', '.join(sorted(allowed)) or 'none'}")


class Conflict(Exception):
    """The action is well formed but does not fit the game now (409, saying why)."""


class OneUndoAtATime:
    """Undo and redo, one at a time until the core has done it: held from an undo's or redo's
    submission until its event is done, refused or failed, also when the busy core does it after the
    answer "still under way". Until then the board looks as before it, so a second tap (another
    phone's, or another page's: the table's undo and a game's own take back the same action) would
    pass every check on the state and take back a second action. :func:`undo_guard` gives the app's one.

    Example::

        >>> guard = OneUndoAtATime()
        >>> guard.run("undo", lambda: "done")
        'done'
        >>> guard.check("redo")  # free again: nothing raised
    """

    def __init__(self) -> None:
        self._held = threading.Lock()
        self._what = ""

    def _busy(self, action: str) -> Conflict:
        was = "a redo" if self._what == "redo" else "an undo"
        return Conflict(f"{was} is under way (the board is busy and will do it in its turn); "
                        f"look at the board once it is done before you {action} again")

    def check(self, action: str) -> None:
        """A :class:`Conflict` when an undo or redo is under way (before taking anything off a stack)."""
        if self._held.locked():
            raise self._busy(action)

    def run(self, action: str, submit: Callable[[], Any]) -> Any:
        """``submit()`` (which journals the undo or redo event) unless one is under way (a
        :class:`Conflict`); the next is refused until its event is done."""
        if not self._held.acquire(blocking=False):
            raise self._busy(action)
        self._what = action

        def free(_: object = None) -> None:
            self._what = ""
            self._held.release()

        late = False
        try:
            return submit()
        except StillQueued as exc:  # freed once done, after what follows it (exc.pending: StillQueued.then)
            late = True
            exc.pending.add_done_callback(free)
            raise
        finally:
            if not late:
                free()


def undo_guard() -> OneUndoAtATime:
    """The app's :class:`OneUndoAtATime` (in ``app.extensions``), shared by every route that undoes."""
    return current_app.extensions.setdefault("kipukas_undo", OneUndoAtATime())


def int_field(body: dict[str, Any], name: str, what: str, optional: bool = False, nullable: bool = False) -> Any:
    """``body[name]``, a whole number (not a bool), or a 400 naming the field and ``what`` it must be."""
    if name not in body:
        if optional:
            return None
        raise BadRequest(f"field {name!r} is required ({what})")
    v = body[name]
    if v is None and nullable:
        return None
    if not is_int(v):
        raise BadRequest(f"field {name!r} must be {what}, got {v!r}")
    return v
