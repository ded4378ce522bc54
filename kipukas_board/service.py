"""The board as a systemd service: ``READY=1`` once it is up, ``WATCHDOG=1`` only while it is alive.

``systemd/kipukas-board.service`` is ``Type=notify`` with ``WatchdogSec=``. :class:`BoardService`
keeps both promises of that unit:

* **READY=1** is sent by :meth:`BoardService.started`, which ``kipukas-board run`` calls after the
  core loop, the sensors and the lighting have started and the page's socket is listening, and
  only once every part reports alive (until then systemd keeps the unit "activating").
* **WATCHDOG=1** is sent every half watchdog interval by a thread of its own, and only while every
  part in :meth:`BoardApp.liveness <kipukas_board.app.BoardApp.liveness>` is alive: the core loop
  (which also stops counting as alive if it has not woken for a few seconds), the lighting thread,
  and any adapter that has an ``alive() -> bool`` method (the liveness protocol: a real adapter
  with a thread of its own, such as a serial reader or a camera grabber, adds one). If a part dies
  or hangs, the pings stop, systemd sends SIGABRT after ``WatchdogSec=`` and restarts the service
  (``Restart=on-failure``); the journal replays, so nothing acknowledged is lost.
  :func:`faulthandler.enable` is on while a watchdog is set, so that SIGABRT first writes every
  thread's stack to the journal.

Outside systemd (no ``$NOTIFY_SOCKET``) all of this is a no-op.

Example (not run as a doctest: it needs a started board; ``kipukas-board service notify-bench`` and
``tests/install/test_service_notify.py`` run it under a pretend systemd)::

    service = BoardService(board)
    service.started("http://0.0.0.0:8080/")
    ...                                         # serve the page
    service.stopping()
"""

from __future__ import annotations

import faulthandler
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from kipukas_board.sdnotify import Notifier, watchdog_interval
from kipukas_board.web.served import Guarded, Threads

log = logging.getLogger(__name__)

Liveness = Callable[[], Mapping[str, bool]]


def dead_parts(liveness: Liveness) -> list[str]:
    """The names of the parts that are not alive (a liveness check that raises counts as dead)."""
    try:
        parts = liveness()
    except Exception:
        log.exception("the liveness check failed")
        return ["liveness-check"]
    return sorted(name for name, ok in parts.items() if not ok)


class Watchdog:
    """Pings ``notifier.watchdog()`` every ``interval / 2`` seconds while nothing is dead."""

    def __init__(self, liveness: Liveness, notifier: Notifier, interval: float) -> None:
        self.liveness = liveness
        self.notifier = notifier
        self.interval = interval
        self.pings = 0
        self._dead: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2.0)

    def tick(self) -> bool:
        """One check: ping if every part is alive; True if it pinged."""
        dead = dead_parts(self.liveness)
        if dead != self._dead:
            if dead:
                log.error("watchdog: not alive: %s; no more WATCHDOG=1 until it recovers "
                          "(systemd restarts the service after WatchdogSec)", ", ".join(dead))
                self.notifier.status(f"not alive: {', '.join(dead)}")
            else:
                log.warning("watchdog: every part is alive again")
                self.notifier.status("running")
            self._dead = dead
        if dead:
            return False
        self.notifier.watchdog()
        self.pings += 1
        return True

    def _run(self) -> None:
        period = max(self.interval / 2, 0.05)
        while not self._stop.is_set():
            self.tick()
            self._stop.wait(period)


class BoardService:
    """Tells systemd about one :class:`~kipukas_board.app.BoardApp` (anything with ``liveness()``)."""

    #: How long :meth:`started` waits for every part to report alive before giving up on READY.
    READY_TIMEOUT_S = 30.0

    def __init__(self, board: Any, notifier: Notifier | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        self.board = board
        self.notifier = notifier or Notifier(environ=environ)
        interval = watchdog_interval(environ)
        self.watchdog = Watchdog(board.liveness, self.notifier, interval) if interval else None

    def started(self, status: str = "running") -> bool:
        """Send READY=1 once every part is alive and start the watchdog; True if READY was sent."""
        if not self.notifier.enabled:
            return False
        if self.watchdog is not None:
            faulthandler.enable()
        deadline = time.monotonic() + self.READY_TIMEOUT_S
        while dead := dead_parts(self.board.liveness):
            if time.monotonic() > deadline:
                log.error("not telling systemd READY: still not alive after %.0f s: %s",
                          self.READY_TIMEOUT_S, ", ".join(dead))
                self.notifier.status(f"start-up failed: not alive: {', '.join(dead)}")
                return False
            time.sleep(0.1)
        sent = self.notifier.ready(status)
        if self.watchdog is not None:
            self.watchdog.start()
        return sent

    def stopping(self) -> None:
        if self.watchdog is not None:
            self.watchdog.stop()
        self.notifier.stopping()
        self.notifier.close()


# -- simulation-only fault injection ---------------------------------------------------------------

class SimFaultsBoard(Threads, Guarded, Protocol):
    """What ``POST /api/sim/faults`` uses of the board: its threads, the admin PIN, and whether it is
    simulated (the route answers 404 on a real board)."""

    sim: bool


def register_sim_faults(flask_app: Any, board: SimFaultsBoard) -> None:
    """Add ``POST /api/sim/faults`` ``{"part": "lighting" | "core"}`` (simulation only, admin PIN).

    It stops that part's thread as a crash would, so the watchdog can be seen to stop pinging and
    ``/api/state``'s health to turn red, end to end, without real hardware. A route plugin for
    :attr:`BoardApp.route_plugins <kipukas_board.app.BoardApp.route_plugins>`.
    """
    from kipukas_board.web.server import error, json_body, require_pin

    # Unlike the simulated switches and cards (a hand on the table), this stops the board: PIN only.
    @flask_app.post("/api/sim/faults")
    @require_pin(board)
    def sim_fault() -> Any:
        if not board.sim:
            return error(404, "simulation endpoints exist only when the board runs with --sim")
        part = json_body(fields=frozenset({"part"})).get("part")
        if not isinstance(part, str) or part not in board.stoppable_parts:
            return error(400, f"part = {part!r} cannot be stopped; expected one of "
                              f"{', '.join(sorted(board.stoppable_parts))}")
        log.warning("simulated fault: stopping %s", part)
        board.sim_stop_part(part)
        return {"stopped": part, "liveness": board.liveness()}
