"""The card desk: from a camera frame (or a simulated payload) to a journaled ``card`` event.

This is the I/O side of card scanning. For each seat it decodes frames with the vision pipeline
(keeping that seat's region of interest), refuses anything that is not a Kipukas payload (counted
by reason), turns the stream of reads into presentations with :class:`ScanSessions`, looks each
card up in the catalog and submits one ``card`` event carrying the card's data, so the pure core
never touches the database.

One :class:`CameraWorker` thread per real camera feeds the desk; in simulation cards arrive through
``POST /api/sim/cards`` (:mod:`kipukas_board.web.cards_api`).

Example (not run as a doctest: it needs an imported catalog and a running core loop;
``tests/cards/test_cards_sessions.py`` and ``tests/cards/test_cards_api.py`` run the desk)::

    >>> desk = CardDesk(Catalog.in_dir(tmp), submit=loop.submit)          # doctest: +SKIP
    >>> desk.present(1, "kpks.us/RrDC#0001?DmFz33", source="sim")["code"]  # doctest: +SKIP
    'RrDC'
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from kipukas_board.cards.catalog import Catalog, UnknownCard
from kipukas_board.cards.mode_catalog import ModeCards, mode_card_payload, parse_mode_payload
from kipukas_board.cards.payload import CardPayload, PayloadCounter, PayloadError, parse_payload
from kipukas_board.cards.sessions import Presentation, ScanSessions
from kipukas_board.table.cards import card_event
from kipukas_board.vision.decoders import DecoderHealth, decoder_health
from kipukas_board.vision.pipeline import Pipeline
from kipukas_board.vision.reader import CameraReader

log = logging.getLogger(__name__)

Submit = Callable[..., Any]


#: While a seat's scene keeps changing, the slow strategies (WeChat) run at most this often on it.
HEAVY_INTERVAL_S = 1.0


class CardDesk:
    """Payloads and frames in, ``card`` events out (through ``submit``, e.g. ``CoreLoop.submit``)."""

    def __init__(self, catalog: Catalog, submit: Submit, sessions: ScanSessions | None = None,
                 clock: Callable[[], float] = time.monotonic, pipeline_factory: Callable[[], Any] | None = None,
                 mode_cards: ModeCards | None = None, mode_prefixes: dict[str, str] | None = None,
                 budget_ms: float = 80.0, decoder_check: Callable[[], DecoderHealth] = decoder_health):
        self.catalog = catalog
        self._decoder_check = decoder_check
        self._decoders: dict[str, Any] | None = None
        #: Every seat's decode budget in CPU ms a frame (``[vision] budget_ms`` in the settings).
        self.budget_ms = budget_ms
        #: The game modes' cards (sticker payloads ``prefix:id``, e.g. ``cct:fox-1``) and their prefixes.
        self.mode_cards = mode_cards
        self.mode_prefixes = dict(mode_prefixes or {})
        self.submit = submit
        # A card only the heavy decoders read is seen once per HEAVY_INTERVAL_S at best; one missed
        # heavy pass must not end its presentation, or a card held still would be "shown" again.
        self.sessions = sessions or ScanSessions(gone_after_s=max(1.5, 2 * HEAVY_INTERVAL_S + 0.5))
        self.counter = PayloadCounter()
        self.clock = clock
        self._pipeline_factory = pipeline_factory
        self._readers: dict[int, Any] = {}
        #: Called as ``on_read(seat, frame_read, events)`` after every camera frame (benchmarks).
        self.on_read: Callable[[int, Any, list[dict[str, Any]]], None] | None = None
        self._lock = threading.Lock()

    def follow(self, state: Any, effects: list[dict[str, Any]]) -> None:
        """Core subscriber: a new game forgets which seat showed which serial (cards change hands
        between games). ``BoardApp`` subscribes it and seeds the memory from the journal at start."""
        if any(e.get("type") == "new_game" for e in effects):
            self.sessions.forget_serials()

    def remember(self, cards: Iterable[dict[str, Any]]) -> None:
        """Seed the serial memory with the last card each seat showed (``state.cards``)."""
        self.sessions.forget_serials({c["serial"]: c["seat"] for c in cards if c.get("serial")})

    # -- events ----------------------------------------------------------------------------------
    def event_for(self, pres: Presentation, source: str) -> dict[str, Any]:
        """The ``card`` event for a presentation, with the catalog's record written in."""
        p = pres.payload
        card: dict[str, Any] | None = None
        error: str | None = None
        code = p.code
        mode_card = parse_mode_payload(p.text, self.mode_prefixes)
        if mode_card is not None:
            mode, cid = mode_card
            try:
                if self.mode_cards is None:
                    raise UnknownCard(f"{mode} card {cid!r}")
                card = self.mode_cards.card(mode, cid)
            except UnknownCard as exc:
                error = (f"{exc} (import its deck: Import cards on the page, or "
                         f"kipukas-board catalog import FILE.toml)")
            return card_event(pres.seat, p.text, p.text, None, None, card, list(pres.flags), source, error)
        try:
            card = self.catalog.resolve(p)
            code = card.get("code", code)
        except UnknownCard as exc:
            error = str(exc)
            if len(self.catalog) == 0:
                error += (" (no catalog imported: Import cards on the page, or "
                          "kipukas-board catalog import PATH_OR_URL)")
        return card_event(pres.seat, p.text, code, p.copy, p.serial, card, list(pres.flags), source, error)

    def present(self, seat: int, text: Any, source: str = "sim", wait: bool = True,
                timeout: float = 10.0) -> dict[str, Any]:
        """A card shown once at ``seat`` (the simulation's camera): raises ``PayloadError`` if refused,
        and ``StillQueued`` when the busy core has not journaled it within ``timeout`` seconds.

        Unlike camera frames, each call is its own presentation, even of the card already in view.
        """
        if parse_mode_payload(text, self.mode_prefixes):
            self.counter.count_accepted()
            payload: CardPayload | None = mode_card_payload(text)
        else:
            payload = self.counter.check(text)  # counts it, accepted or refused by reason
        if payload is None:
            parse_payload(text)  # raises PayloadError saying why
            raise AssertionError("unreachable: the counter refused what the parser accepts")
        pres = self.sessions.present(seat, payload, self.clock())
        event = self.event_for(pres, source)
        seq = self.submit(event, wait=wait, timeout=timeout)
        return {**event, "seq": seq}

    # -- frames ----------------------------------------------------------------------------------
    def accept(self, text: str) -> None:
        """The pipeline's check of a decoded text: a Kipukas card or a game mode's sticker, else
        ``PayloadError`` saying why."""
        if parse_mode_payload(text, self.mode_prefixes) is None:
            parse_payload(text)

    def reader(self, seat: int) -> Any:
        """This seat's camera reader: its own change gate and pipeline (its region of interest, its
        WeChat worker process), so seats never share decoding state or wait for each other."""
        with self._lock:
            if seat not in self._readers:
                if self._pipeline_factory is None:
                    pipeline = Pipeline(remember_roi=True, heavy_interval_s=HEAVY_INTERVAL_S, isolate=True,
                                        accept=self.accept, budget_ms=self.budget_ms)
                else:
                    pipeline = self._pipeline_factory()
                self._readers[seat] = CameraReader(pipeline)
            return self._readers[seat]

    def pipeline(self, seat: int) -> Any:
        """This seat's decode pipeline (it keeps the seat's region of interest between frames)."""
        return self.reader(seat).pipeline

    def on_frame(self, seat: int, frame: Any, source: str = "camera") -> list[dict[str, Any]]:
        """Read one frame from ``seat``'s camera; submit and return the events for new cards.

        An unchanged scene is not decoded again: its codes are still in view and keep their
        presentation alive (see :class:`~kipukas_board.vision.reader.CameraReader`); they are
        counted once, when decoded.
        """
        read = self.reader(seat).read(frame)
        payloads: list[CardPayload] = []
        for text in read.codes:
            if parse_mode_payload(text, self.mode_prefixes):
                if read.decoded:
                    self.counter.count_accepted()
                payloads.append(mode_card_payload(text))
                continue
            p = self.counter.check(text) if read.decoded else _parse_quietly(text)
            if p is not None:
                payloads.append(p)
        for text in read.refused:  # counted by reason, once per frame that read it
            self.counter.check(text)
        events = [self.event_for(pres, source) for pres in self.sessions.observe(seat, payloads, self.clock())]
        for e in events:
            self.submit(e, wait=False)
        if self.on_read is not None:
            self.on_read(seat, read, events)
        return events

    def close(self) -> None:
        """End every seat's decoder worker processes."""
        with self._lock:
            readers, self._readers = list(self._readers.values()), {}
        for r in readers:
            r.close()

    def health(self) -> dict[str, Any]:
        return {"payloads": self.counter.to_json(), "catalog_cards": len(self.catalog)}

    def decoders(self) -> dict[str, Any]:
        """The QR decoders this machine has and, for each missing one, why and what to install (looked
        at once: a library installed later needs a restart to load anyway). ``note`` says what is
        missing in words (the page shows it)."""
        if self._decoders is None:
            h = self._decoder_check()
            self._decoders = {**h.to_json(), **({"note": "; ".join(h.lines())} if h.lines() else {})}
            for line in h.lines():
                log.warning("card scanning: %s", line)
        return self._decoders


def _parse_quietly(text: str) -> CardPayload | None:
    """A payload already counted when its frame was decoded, parsed again without counting."""
    try:
        return parse_payload(text)
    except PayloadError:
        return None


class CameraWorker:
    """A thread that reads one seat's camera and hands each frame to the desk.

    ``cpu_s`` is the CPU time the thread has used (``time.thread_time``): what this seat's reading
    costs, less any decoder worker process. It sleeps ``interval_s`` when the camera has no frame.
    When the camera raises (unplugged, busy) the error is kept for the health report and the worker
    tries again after ``retry_s``, so a camera plugged in late still starts working. It stops on :meth:`stop`.
    """

    def __init__(self, camera: Any, desk: CardDesk, interval_s: float = 0.05, retry_s: float = 2.0) -> None:
        self.camera = camera
        self.desk = desk
        self.interval_s = interval_s
        self.retry_s = retry_s
        self.frames = 0
        self.cpu_s = 0.0
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"camera-seat{camera.seat}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def alive(self) -> bool:
        """Is the thread still reading? (The service's watchdog pings only while it is.)"""
        return self._thread.is_alive()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        start = time.thread_time()
        while not self._stop.is_set():
            self.cpu_s = time.thread_time() - start
            try:
                frame = self.camera.read()
            except Exception as exc:
                if self.error is None:
                    log.warning("camera for seat %s failed: %s (retrying every %.0f s)",
                                self.camera.seat, exc, self.retry_s)
                self.error = f"camera for seat {self.camera.seat} failed: {exc}"
                self._stop.wait(self.retry_s)
                continue
            self.error = None
            if frame is None:
                self._stop.wait(self.interval_s)
                continue
            self.frames += 1
            try:
                self.desk.on_frame(self.camera.seat, frame)
            except Exception:
                log.exception("decoding a frame from seat %s failed", self.camera.seat)
