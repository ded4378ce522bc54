"""Catalog import (all-or-nothing, every problem named) and lookup."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import shared_path

from kipukas_board.cards.catalog import MAX_CATALOG_BYTES, Catalog, CatalogError, UnknownCard, check_records
from kipukas_board.cards.payload import parse_payload


def card(code: str, **over) -> dict:
    rec = {"code": code, "slug": f"card_{code.lower()}", "title": f"Card {code}", "type": "Species",
           "variation": "Species", "genetic_disposition": None, "motivation": "Spirit", "habitat": "Forest",
           "injury_tolerance": 3, "movement": 2, "die": "", "brawl_sequence": code,
           "keal_means": [{"name": "Claw", "genetics": ["Magic"], "count": 2}], "tamability": None,
           "scarcity": "Founder's Deck", "tags": "", "description": "", "play_style": None,
           "url": f"https://www.kipukas.cards/card_{code.lower()}/"}
    rec.update(over)
    return rec


def write(tmp_path: Path, records) -> Path:
    p = tmp_path / "cards.json"
    p.write_text(json.dumps(records))
    return p


def test_import_and_lookup(data_dir: Path, tmp_path: Path) -> None:
    cat = Catalog.in_dir(data_dir)
    assert cat.import_source(str(write(tmp_path, [card("AB12"), card("K-_z")]))) == 2
    assert cat.card("K-_z")["title"] == "Card K-_z"
    assert cat.resolve(parse_payload("https://www.kipukas.cards/card_ab12/"))["code"] == "AB12"
    with pytest.raises(UnknownCard, match=r"^unknown card ZZZZ$"):
        cat.card("ZZZZ")
    cat.close()
    assert len(Catalog.in_dir(data_dir)) == 2  # durable: reopened from the file


def test_every_bad_record_is_named_and_nothing_is_imported(data_dir: Path, tmp_path: Path) -> None:
    cat = Catalog.in_dir(data_dir)
    cat.import_records([card("OLD1")])
    bad = [card("AB12"), card("AB12"), card("X"), card("CD34", movement="2"), {"title": "no code"},
           card("EF56", keal_means=[{"name": "x", "count": -1}]), "not an object", card("GH78", injury_tolerance=True)]
    with pytest.raises(CatalogError) as info:
        cat.import_source(str(write(tmp_path, bad)))
    text = "\n".join(info.value.problems)
    assert "record 1 ('AB12'): field 'code' repeats record 0" in text
    assert "record 2 ('X'): field 'code' must be 4 letters" in text
    assert "record 3 ('CD34'): field 'movement' must be an integer, got '2'" in text
    assert "record 4: field 'code' is missing" in text
    assert "record 5 ('EF56'): field 'keal_means[0].count' must be a whole number" in text
    assert "record 6: expected an object" in text
    assert "record 7 ('GH78'): field 'injury_tolerance' must be an integer, got True" in text
    assert [c for c in ("OLD1",) if cat.card(c)] == ["OLD1"] and len(cat) == 1  # the old catalog is intact


@pytest.mark.parametrize("content, what", [
    (b"{not json", "not valid UTF-8 JSON"),
    (b"\xff\xfe", "not valid UTF-8 JSON"),
    (b'{"cards": []}', "a JSON list"),
    (b"[]", "holds no cards"),
])
def test_bad_documents(data_dir: Path, tmp_path: Path, content: bytes, what: str) -> None:
    p = tmp_path / "c.json"
    p.write_bytes(content)
    with pytest.raises(CatalogError, match=what):
        Catalog.in_dir(data_dir).import_source(str(p))


def test_missing_and_oversized_files(data_dir: Path, tmp_path: Path) -> None:
    cat = Catalog.in_dir(data_dir)
    with pytest.raises(CatalogError, match="cannot read"):
        cat.import_source(str(tmp_path / "absent.json"))
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_CATALOG_BYTES + 1))
    with pytest.raises(CatalogError, match="larger than"):
        cat.import_source(str(big))


def test_urls_https_only_with_limits(data_dir: Path) -> None:
    cat = Catalog.in_dir(data_dir)
    with pytest.raises(CatalogError, match="only https"):
        cat.import_source("http://example.org/cards.json")
    seen = {}

    class Resp(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    def opener(req, timeout):
        seen["url"], seen["timeout"] = req.full_url, timeout
        return Resp(json.dumps([card("UR11")]).encode())

    assert cat.import_source("https://example.org/cards.json", opener=opener) == 1
    assert seen == {"url": "https://example.org/cards.json", "timeout": 15.0}

    def huge(req, timeout):
        return Resp(b"[" + b" " * MAX_CATALOG_BYTES + b"]")

    with pytest.raises(CatalogError, match="larger than"):
        cat.import_source("https://example.org/huge.json", opener=huge)

    def down(req, timeout):
        raise OSError("connection refused")

    with pytest.raises(CatalogError, match="could not fetch: connection refused"):
        cat.import_source("https://example.org/down.json", opener=down)
    assert cat.card("UR11")  # failed imports left the last good one


def test_the_real_catalog_imports(data_dir: Path) -> None:
    path = shared_path("catalog", "cards.json")
    cat = Catalog.in_dir(data_dir)
    assert cat.import_source(str(path)) == 56
    assert cat.card("RrDC")["title"] == "Allele Sect Explorer"
    assert cat.card("frlU")["code"] == "frlU"


def test_a_redirect_never_leads_down_to_plain_http() -> None:
    """urllib follows redirects by itself; the catalog's opener refuses one that leaves https."""
    import http.server
    import threading
    import urllib.error
    import urllib.request

    from kipukas_board.cards.catalog import _HttpsOnlyRedirects, https_opener

    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{self.server.server_port}/cards.json")
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(urllib.error.URLError, match="refused a redirect to http://"):
            https_opener()(f"http://127.0.0.1:{server.server_port}/start", timeout=5)
    finally:
        server.shutdown()
    req = urllib.request.Request("https://example.org/a.json")
    ok = _HttpsOnlyRedirects().redirect_request(req, None, 302, "Found", {}, "https://cdn.example.org/b.json")
    assert ok.full_url == "https://cdn.example.org/b.json"


def test_duplicate_slugs_and_odd_files_are_refused(data_dir: Path, tmp_path: Path) -> None:
    a, b = card("AB12"), card("CD34")
    a["slug"], b["slug"] = "same", "SAME"
    assert any("repeats record 0's slug" in p for p in check_records([a, b]))
    with pytest.raises(CatalogError, match="not a regular file"):
        Catalog.in_dir(data_dir).import_source(str(tmp_path))


def test_the_board_opens_its_card_file_once_for_both_views(board) -> None:
    """Kipukas's catalog and the other modes' decks are two views of one store (one connection)."""
    assert board.card_desk.catalog.store is board.mode_cards.store
    board.mode_cards.import_deck("creature-combat", "ana", [{"id": "fox-1", "kind": "creature"}])
    assert board.card_desk.catalog.store.one("SELECT COUNT(*) FROM mode_cards") == (1,)


def test_a_card_file_that_is_not_sqlite_says_what_to_do(tmp_path: Path) -> None:
    from kipukas_board.cards.store import CATALOG_FILE, CardStore, CatalogFileError

    (tmp_path / CATALOG_FILE).write_bytes(b"not a database at all" * 100)
    with pytest.raises(CatalogFileError, match="cannot be opened.*move it aside.*catalog import"):
        CardStore.in_dir(tmp_path)
