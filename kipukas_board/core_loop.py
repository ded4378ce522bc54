"""The one core thread: takes events from every adapter, journals them, applies the rules.

Adapters (sensor threads, cameras, the page) call :meth:`CoreLoop.submit` from any thread. The core thread
takes events one at a time, appends each to the journal *before* anything else (durable first), folds it
into the table's state with the pure rules it is built with (:mod:`kipukas_board.modes`, which hands each
event to the rules of the game it belongs to), then tells the subscribers (lighting, voice, the page's event
stream). A caller that waits on ``submit`` is answered only after its event is on disk, so an acknowledged
request survives ``kill -9``.

Example::

    >>> from kipukas_board import modes
    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.store.journal import Journal
    >>> loop = CoreLoop(Journal(":memory:"), load_map("kipuka-8"), rules=modes)
    >>> loop.start()
    >>> loop.submit({"type": "stand", "stand": "T1", "occupied": True})   # its journal number, once on disk
    2
    >>> loop.stop()
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Protocol

from kipukas_board.board.mapfile import BoardMap, MapError, new_map_problems
from kipukas_board.store.journal import Journal, JournalWriteError
from kipukas_board.table.events import Effect, Event, EventError, check_event, map_event, without_unknown
from kipukas_board.table.problems import not_applied
from kipukas_board.table.state import TableState

log = logging.getLogger(__name__)

Subscriber = Callable[[TableState, list[dict[str, Any]]], None]


class TableRules(Protocol):
    """The rules the loop folds events with: the game modes (:mod:`kipukas_board.modes` is one)."""

    def new_table(self, board: BoardMap) -> TableState:
        """The table before the first event, on ``board``."""
        ...

    def apply(self, state: TableState, event: Event, seq: int | None = None) -> tuple[TableState, list[Effect]]:
        """Fold one checked event into ``state`` (pure)."""
        ...

    def game_in_progress(self, state: TableState) -> str | None:
        """The title of the game under way on the table, or None."""
        ...


class MapChanged(ValueError):
    """The journal holds a game in progress on another map: starting would throw it away."""

    def __init__(self, was: BoardMap, now: BoardMap, journal: Any) -> None:
        super().__init__(
            f"the journal {journal} holds a game in progress on map {was.name!r} ({was.source}), but this start "
            f"loads {now.name!r} ({now.source}), whose stands or paths differ. To carry on, start with "
            f"--map {was.source}; to start afresh, export the game (kipukas-board export) and move the journal aside "
            f"(journal.sqlite with its journal.hwm; the journal alone would be reported as lost)")


class StillQueued(TimeoutError):
    """A caller stopped waiting for its event, which is still under way: queued behind others, or
    journaled and not yet applied. It will be done in its turn; ``pending`` (the event's journal
    number, or the error that refused it) says when, so a caller that answers now can tell the
    outcome later, and a tap sent again meanwhile is not done a second time."""

    def __init__(self, waited: float, pending: Future[int]) -> None:
        super().__init__(f"the board's core is busy: the event is still under way after {waited:g} s "
                         f"and will be done in its turn")
        self.pending = pending
        #: The caller's answer once the event is done, from its journal number (status, JSON body): set
        #: by a page route, so a tap sent again then gets the answer its first sending would have had.
        self.answer: Callable[[int], tuple[int, bytes]] | None = None

    def then(self, finish: Callable[[int], tuple[int, bytes]]) -> StillQueued:
        """Run ``finish(seq)`` once, when the event is done: what its caller does after the event (write
        a file, read the switches again), and the answer it would have given (status, JSON body), which
        becomes :attr:`answer`. It runs on a thread of its own, never the core's (it may submit events
        and wait for them), after the event is journaled and applied; not at all if it could not
        be journaled. :attr:`pending` then stands for both: it is done, with the journal number, once
        ``finish`` has run, so a tap sent again meanwhile is answered only when all of it is done.
        Returns ``self``, to raise again.

        Example::

            >>> from concurrent.futures import Future
            >>> core: Future[int] = Future()
            >>> late = StillQueued(0.1, core).then(lambda seq: (200, b'{"seq": %d}' % seq))
            >>> core.set_result(7)
            >>> late.pending.result(5), late.answer(7)
            (7, (200, b'{"seq": 7}'))
        """
        core = self.pending
        finished: Future[int] = Future()
        answers: list[tuple[int, bytes]] = []

        def run(seq: int) -> None:
            try:
                answers.append(finish(seq))
            except Exception:  # the event is done all the same: a tap sent again must not do it again
                log.exception("what follows event %d, done late, failed", seq)
            finished.set_result(seq)

        def done(outcome: Future[int]) -> None:  # on the core thread, as it finishes the event
            error = outcome.exception()
            if error is not None:
                finished.set_exception(error)
                return
            threading.Thread(target=run, args=(outcome.result(),), name="late-event", daemon=True).start()

        core.add_done_callback(done)
        self.pending = finished
        self.answer = lambda seq: answers[0]  # none when finish failed: the tap is told "done" (web/taps.py)
        return self


class MapBusy(Exception):
    """The map cannot change now (a game is under way, a calibration walk is open); the message says why."""


#: Event types after which the game's state starts afresh (what earlier events did no longer counts).
FRESH_START = frozenset({"new_game", "map"})
#: Unapplied events named at most (the state's problems say the rest).
MAX_UNAPPLIED = 20


@dataclass
class _Item:
    event: Event
    done: Future[int]
    tap: str | None = None


class CoreLoop:
    """Owns the state. Build it, :meth:`start` it, :meth:`submit` events, :meth:`stop` it."""

    #: The loop counts as alive if it has woken within this many seconds.
    HEARTBEAT_S = 5.0

    def __init__(self, journal: Journal, board: BoardMap, *, rules: TableRules,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.journal = journal
        self._rules = rules
        self._clock = clock
        self._queue: queue.Queue[_Item | None] = queue.Queue()
        self._subscribers: list[Subscriber] = []
        self._thread: threading.Thread | None = None
        self._beat = clock()
        self._stopping = threading.Event()
        #: Why the last append to the journal failed; None once an append succeeds again.
        self.journal_error: str | None = None
        #: Stored events the rules could not apply since the last new game (``/healthz`` is not ok
        #: while there are any: the state lacks what they did).
        self.unapplied: list[str] = []
        self._state = self._rebuild(board)

    # -- start-up --------------------------------------------------------------------------------
    def _rebuild(self, board: BoardMap) -> TableState:
        """Replay the journal; if it was made on another map (or is empty), journal this map."""
        state = self._rules.new_table(board)
        replayed = 0
        for seq, event in self.journal.events():
            try:
                # The check every new event passes: a stored one must pass it too. Keys earlier
                # versions let in are dropped (no rule reads them) and the rest is checked in full.
                event, dropped = without_unknown(event)
            except EventError as exc:
                state = self._not_applied(state, seq, EventError(f"the journal holds it malformed ({exc})"))
                replayed += 1
                continue
            if dropped:
                self.journal.note_problem(f"event {seq} held {', '.join(dropped[:5])}, which no event takes "
                                  f"now; replayed without them")
            state = self._apply(state, event, seq)[0]
            replayed += 1
        if replayed:
            log.info("replayed %d journaled events", replayed)
        if state.board.to_json() != board.to_json() or replayed == 0:
            held = self._rules.game_in_progress(state) is not None or (
                state.paused is not None and self._rules.game_in_progress(state.paused) is not None)
            if replayed and held and state.board.structure() != board.structure():
                raise MapChanged(state.board, board, self.journal.path)
            # a map coming to the board: today's limits
            problems = new_map_problems(board.territories, board.name, board.description)
            if problems:
                raise MapError(board.source or board.name, problems)
            text = board.source_text or ""
            event = map_event(board.name, text, board.source or None)
            seq = self.journal.append(event)
            state = self._apply(state, event, seq)[0]
        return state

    def _apply(self, state: TableState, event: Event, seq: int) -> tuple[TableState, list[dict[str, Any]]]:
        try:
            new, effects = self._rules.apply(state, event, seq=seq)
        except MapError as exc:
            log.error("journaled map %s no longer loads: %s", event.get("name"), exc)
            return self._not_applied(state, seq, exc), []
        except Exception as exc:  # a rules bug must not stop the board; replay meets it the same way
            log.exception("event %d could not be applied", seq)
            return self._not_applied(state, seq, exc), []
        if event.get("type") in FRESH_START and self.unapplied:
            # A new game (or map) starts from scratch: what the skipped events would have changed
            # no longer matters to the state.
            self.unapplied = []
        return new, effects

    def _not_applied(self, state: TableState, seq: int, why: Exception) -> TableState:
        """Skip event ``seq``; the state says so, and so does ``/healthz`` until a new game starts."""
        new = not_applied(state, seq, why)
        text = new.problems[-1]
        log.error("%s", text)
        if len(self.unapplied) < MAX_UNAPPLIED:
            self.unapplied.append(text)
        return new

    # -- running ---------------------------------------------------------------------------------
    @property
    def state(self) -> TableState:
        """The latest state (a consistent snapshot: states are never changed in place)."""
        return self._state

    def subscribe(self, fn: Subscriber) -> None:
        """Call ``fn(state, effects)`` on the core thread after each event; it must not block."""
        self._subscribers.append(fn)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="core", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout)

    def alive(self) -> bool:
        """True while the core thread runs and has woken recently (``GET /healthz``)."""
        return (self._thread is not None and self._thread.is_alive()
                and self._clock() - self._beat < self.HEARTBEAT_S)

    def submit(self, event: Event, wait: bool = True, timeout: float = 10.0, tap: str | None = None) -> int | None:
        """Queue ``event`` (checked first: a malformed one raises ``EventError`` and is not queued);
        ``tap``, the phone's tap that sent it, is journaled with it (:meth:`Journal.append
        <kipukas_board.store.journal.Journal.append>`).

        With ``wait`` (the default) returns the event's journal number once it is durable and
        applied; otherwise returns None at once. Raises
        :class:`~kipukas_board.store.journal.JournalWriteError` when it could not be journaled (it was
        then not applied either), and :class:`StillQueued` when it is not done within ``timeout``
        seconds (it is still queued, and will be done).
        """
        check_event(event)
        item = _Item(event, Future(), tap)
        self._queue.put(item)
        if not wait:
            return None
        try:
            return item.done.result(timeout)
        except TimeoutError:  # concurrent.futures' own (the built-in one since Python 3.11)
            raise StillQueued(timeout, item.done) from None

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._beat = self._clock()
            try:
                item = self._queue.get(timeout=1.0)
            except queue.Empty:
                continue
            if item is None:
                break
            try:
                seq = self.journal.append(item.event, tap=item.tap)
            except JournalWriteError as exc:  # disk full, read-only: refuse the event, keep running
                log.error("event refused, not journaled: %s", exc)
                self.journal_error = str(exc)
                item.done.set_exception(exc)
                continue
            except Exception as exc:
                log.exception("could not journal an event")
                self.journal_error = f"the event could not be journaled: {exc}"
                item.done.set_exception(JournalWriteError(self.journal_error))
                continue
            self.journal_error = None
            state, effects = self._apply(self._state, item.event, seq)
            self._state = state
            for fn in self._subscribers:
                try:
                    fn(state, effects)
                except Exception:
                    log.exception("subscriber %r failed", fn)
            item.done.set_result(seq)
