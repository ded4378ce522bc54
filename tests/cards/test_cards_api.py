"""``POST /api/sim/cards`` and ``GET /api/cards`` on a simulated board (real SQLite journal)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kipukas_board.app import BoardApp
from kipukas_board.cards.catalog import Catalog
from kipukas_board.settings import Settings
from kipukas_board.web.server import create_app

CARD = {"code": "RrDC", "slug": "allele", "title": "Allele Sect Explorer", "type": "Species",
        "injury_tolerance": 3, "movement": 1, "keal_means": []}


@pytest.fixture
def board(data_dir: Path):
    Catalog.in_dir(data_dir).import_records([CARD])
    b = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    app = create_app(b)
    b.start()
    yield b, app.test_client()
    b.stop()


def test_a_simulated_card_is_journaled_with_its_catalog_data(board, data_dir: Path) -> None:
    b, client = board
    r = client.post("/api/sim/cards", json={"payload": "kpks.us/RrDC#0001?DmFz33", "seat": 2})
    assert r.status_code == 200
    body = r.get_json()
    assert body["known"] and body["title"] == "Allele Sect Explorer" and body["seat"] == 2
    state = client.get("/api/state").get_json()
    assert state["cards"][0]["card"]["movement"] == 1
    seq, event = list(b.journal.events())[-1]
    assert seq == body["seq"] and event["type"] == "card" and event["card"]["title"] == "Allele Sect Explorer"


def test_replay_rebuilds_the_cards_without_the_catalog(board, data_dir: Path) -> None:
    b, client = board
    client.post("/api/sim/cards", json={"payload": "kpks.us/RrDC#0001?DmFz33", "seat": 1})
    b.stop()
    (data_dir / "cards.sqlite").unlink()
    b2 = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    assert b2.loop.state.cards[0]["title"] == "Allele Sect Explorer"
    b2.stop()


def test_unknown_cards_and_serials_at_two_seats_are_reported(board) -> None:
    _, client = board
    unknown = client.post("/api/sim/cards", json={"payload": "https://www.kpks.us/ZZZZ", "seat": 1}).get_json()
    assert unknown["known"] is False and unknown["error"] == "unknown card ZZZZ"
    client.post("/api/sim/cards", json={"payload": "kpks.us/RrDC#0001?DmFz33", "seat": 1})
    again = client.post("/api/sim/cards", json={"payload": "kpks.us/RrDC#0001?DmFz33", "seat": 3}).get_json()
    assert again["flags"] and "seat 1" in again["flags"][0]


@pytest.mark.parametrize("body, status, what", [
    ({"payload": "https://evil.example/x", "seat": 1}, 422, "not a Kipukas card"),
    ({"payload": "kpks.us/RrDC", "seat": 0}, 400, "seat"),
    ({"payload": "kpks.us/RrDC", "seat": "1"}, 400, "seat"),
    ({"seat": 1}, 400, "payload"),
    ([1, 2], 400, "JSON object"),
])
def test_bad_requests_are_named(board, body, status, what) -> None:
    _, client = board
    r = client.post("/api/sim/cards", data=json.dumps(body), content_type="application/json")
    assert r.status_code == status and what in r.get_json()["error"]


def test_refusals_are_counted_and_cameras_listed(board) -> None:
    _, client = board
    client.post("/api/sim/cards", json={"payload": "hello", "seat": 1})
    doc = client.get("/api/cards").get_json()
    assert doc["payloads"]["refused"] == {"other host": 1}
    assert doc["catalog_cards"] == 1 and isinstance(doc["cameras"], list)


def test_not_in_simulation_the_endpoint_is_absent(data_dir: Path) -> None:
    b = BoardApp(Settings().simulated(), data_dir, sim=False, admin_pin="2468")
    client = create_app(b).test_client()
    assert client.post("/api/sim/cards", json={"payload": "kpks.us/RrDC", "seat": 1}).status_code == 404
    b.stop()
