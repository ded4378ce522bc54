"""Card routes: the simulated camera (``POST /api/sim/cards``) and what the cameras see (``GET /api/cards``).

``register(app, board)`` is a route plugin of the board; the board owns the
:class:`~kipukas_board.vision.desk.CardDesk` (catalog in the data directory) and the
:class:`~kipukas_board.vision.desk.CameraWorker` threads (started and stopped with the board).

In simulation, ``POST /api/sim/cards`` with ``{"payload": "kpks.us/RrDC#0001?DmFz33", "seat": 1}``
acts as seat 1's camera reading that card: the payload is validated (a refusal is a 422 naming
why), looked up in the catalog and journaled as a ``card`` event. Like the stand simulation it
needs no PIN, and it exists only when the board runs with ``--sim``.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Flask, Response, jsonify

from kipukas_board.cards.payload import PayloadError
from kipukas_board.strictjson import is_int
from kipukas_board.web import submit as submission
from kipukas_board.web.served import CardsSeen, Games, Table
from kipukas_board.web.server import BadRequest, error, json_body

#: Highest seat number accepted (Mass Contention has up to 4 players; leave room for spectators' stands).
MAX_SEAT = 8
#: Most cards the page's simulated camera lists (a whole catalog is a few hundred).
MAX_KNOWN = 1000


class CardsApiBoard(Table, CardsSeen, Games, Protocol):
    """What the card routes use: the cards shown on the table, the card desk and cameras, and the
    games (the simulated camera lists each mode's cards under its title)."""


def register(app: Flask, board: CardsApiBoard) -> None:
    desk = board.card_desk

    @app.get("/api/cards")
    def cards() -> Response:
        return jsonify({
            "cameras": [{**c.health(), "seat": c.seat} for c in board.cameras],
            "workers": [{"seat": w.camera.seat, "frames": w.frames, "error": w.error} for w in board.card_workers],
            "shown": list(board.state.cards),
            **desk.health(),
        })

    @app.get("/api/sim/cards")
    def sim_known_cards() -> tuple[Response, int] | Response:
        """The cards the board knows (the catalog's and every game mode's decks'), for the page's
        simulated camera: what each is called and what its sticker or QR code says."""
        if not board.sim:
            return error(404, "simulation endpoints exist only when the board runs with --sim")
        # Each card its own serial ("Sim" and its number; the page puts the seat in too), so two cards
        # shown at two seats are never taken for one physical card at both.
        known = [{"game": "Kipukas", "title": card.get("title") or code,
                  "payload": f"kpks.us/{code}#0001?Sim{n:04d}"}
                 for n, (code, card) in enumerate(desk.catalog.cards(MAX_KNOWN))]
        prefixes = {mode: prefix for prefix, mode in desk.mode_prefixes.items()}
        titles = {m.name: m.title for m in board.modes.values()}
        for mode, cid, card in board.mode_cards.cards(MAX_KNOWN):
            if mode in prefixes:
                known.append({"game": titles.get(mode, mode), "title": card.get("name") or cid,
                              "payload": f"{prefixes[mode]}:{cid}"})
        return jsonify({"cards": known[:MAX_KNOWN]})

    @app.post("/api/sim/cards")
    def sim_card() -> tuple[Response, int] | Response:
        if not board.sim:
            return error(404, "simulation endpoints exist only when the board runs with --sim")
        body = json_body(fields=frozenset({"payload", "seat"}))
        seat = body.get("seat")
        if not is_int(seat) or not 1 <= seat <= MAX_SEAT:
            raise BadRequest(f'expected {{"payload": "...", "seat": 1..{MAX_SEAT}}}, got seat = {seat!r}')
        payload: Any = body.get("payload")
        if not isinstance(payload, str):
            raise BadRequest(f'expected {{"payload": "<scanned text>", "seat": N}}, got payload = {payload!r:.60}')
        try:
            # the page's actions' wait: a busy core is answered "still under way" before the page gives up
            event = desk.present(seat, payload, source="sim", timeout=submission.WAIT_S)
        except PayloadError as exc:
            return error(422, str(exc), reason=exc.reason, payloads=desk.counter.to_json())
        return jsonify({"ok": True, **{k: event[k] for k in ("seat", "code", "copy", "serial", "flags",
                                                            "error", "seq")},
                        "title": (event["card"] or {}).get("title"), "known": event["card"] is not None})
