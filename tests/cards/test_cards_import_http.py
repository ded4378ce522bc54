"""Setting a board up from the page: ``POST /api/cards/import`` takes a card file's bytes with the PIN,
checks it as ``kipukas-board catalog import`` does (the same words) and bounds the upload."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kipukas_board.cli import main
from kipukas_board.modes.card_files import MAX_UPLOAD

DECKS = Path(__file__).parents[1] / "duel_decks"
PIN = {"X-Admin-Pin": "2468"}


def card(code: str, title: str, **extra) -> dict:
    return {"code": code, "slug": title.lower().replace(" ", "_"), "title": title, "type": "Character",
            "injury_tolerance": 2, "movement": 1, "keal_means": [{"name": "Claw", "count": 2}], **extra}


CATALOG = json.dumps([card("RrDC", "Allele Sect Explorer"), card("HMPU", "Brindle Moth")]).encode()


def upload(client, name: str, data: bytes, headers: dict | None = None):
    return client.post(f"/api/cards/import?name={name}", data=data,
                       headers={"Content-Type": "application/octet-stream", **(PIN if headers is None else headers)})


def _post(url: str, data, headers: dict, ctype: str = "application/octet-stream") -> tuple[int, dict]:
    """A POST through real HTTP: its status and JSON answer (a text answer as ``{"text": ...}``; 0 for a
    connection cut off while the body was still being sent)."""
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": ctype, **headers})
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        text = exc.read()
        return exc.code, json.loads(text) if text.startswith(b"{") else {"text": text.decode()}
    except (urllib.error.URLError, ConnectionError) as exc:  # refused while still sending: cut off
        return 0, {"text": str(exc)}


def test_a_catalog_uploaded_with_the_pin_is_imported_and_its_cards_are_known(client, board) -> None:
    assert upload(client, "cards.json", CATALOG, headers={}).status_code == 401  # the PIN first
    assert len(board.card_desk.catalog) == 0
    r = upload(client, "cards.json", CATALOG)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["summary"] == "imported 2 cards from cards.json into the card catalog"
    shown = client.post("/api/sim/cards", json={"payload": "kpks.us/HMPU#0001?Simulated", "seat": 2}).get_json()
    assert shown["known"] and shown["title"] == "Brindle Moth" and shown["seat"] == 2


def test_a_deck_uploaded_is_refused_or_imported_in_the_words_of_the_command(client, board, tmp_path, capsys) -> None:
    text = (DECKS / "iv8-p1.toml").read_bytes()
    r = upload(client, "iv8-p1.toml", text)
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["game"] == "duel" and body["deck"] == "iv8-p1"
    assert body["summary"].startswith("imported Card duel deck 'iv8-p1' from iv8-p1.toml: ")
    assert "iv8-p1" in board.mode_cards.decks("duel")

    bad = text.replace(b"[[card]]", b"[[cards]]", 1) + b"\n[[nothing]]\nx = 1\n"
    bad_file = tmp_path / "bad.toml"
    bad_file.write_bytes(bad)
    assert main(["catalog", "import", str(bad_file), "--data-dir", str(tmp_path / "d")]) == 2
    said = capsys.readouterr().err.strip().removeprefix("kipukas-board: ").replace(str(bad_file), "bad.toml")
    r = upload(client, "bad.toml", bad)
    assert r.status_code == 422
    assert r.get_json()["error"] == said  # the page's refusal is the command's


@pytest.mark.parametrize(("name", "data", "status", "says"), [
    ("cards.json", b"[1, 2", 422, "cards.json: catalog not imported, 1 problem(s):\n  - not valid UTF-8 JSON"),
    ("cards.json", json.dumps([card("RrDC", "A", movement=-1)]).encode(), 422,
     "record 0 ('RrDC'): field 'movement' must not be negative, got -1"),
    ("deck.toml", b"deck = 'x'\n", 422, "deck.toml: not a card file of any game mode (expected "),
    ("deck.toml", b"deck = \n", 422, "deck.toml: not valid TOML"),
    ("photo.png", b"\x89PNG", 422, "photo.png: not a card file (expected the card catalog, a .json file, "
                                   "or a game mode's deck, a .toml file)"),
    ("../x.json", CATALOG, 400, "expected ?name=FILE"),
    ("cards.json", b"", 400, "cards.json: the upload is empty"),
])
def test_a_refused_upload_names_what_was_wrong(client, board, name, data, status, says) -> None:
    r = upload(client, name, data)
    assert r.status_code == status, r.get_json()
    assert says in r.get_json()["error"]
    assert len(board.card_desk.catalog) == 0


def test_the_upload_is_bounded(client, board) -> None:
    r = upload(client, "cards.json", b" " * (MAX_UPLOAD + 1))
    assert r.status_code == 413
    assert f"larger than {MAX_UPLOAD} bytes" in r.get_json()["error"]
    big = b"[" + b" " * 100_000 + CATALOG[1:]  # over an action's 64 kB, under the upload's limit
    assert upload(client, "cards.json", big).status_code == 200


def test_the_served_board_takes_a_catalog_larger_than_an_action_and_nothing_larger_elsewhere(tmp_path) -> None:
    """Through waitress, as on the Pi: its own body limit lets the upload's larger body in on that
    route only."""

    from web_helpers import serve_board

    big = b"[" + b" " * 150_000 + CATALOG[1:]  # the real catalog is about 100 kB

    def post(path: str, data, ctype: str) -> tuple[int, dict]:
        return _post(path, data, PIN, ctype)

    with serve_board(tmp_path / "data") as srv:
        status, body = post(srv.url + "/api/cards/import?name=cards.json", big, "application/octet-stream")
        assert status == 200, body
        assert len(srv.board.card_desk.catalog) == 2
        refused = (413, 0)  # 413, or the connection cut while the client still sends
        status, body = post(srv.url + "/api/cards/import?name=cards.json", b" " * (MAX_UPLOAD + 1),
                            "application/octet-stream")
        assert status in refused, body
        chunks = iter([b" " * 65536] * (MAX_UPLOAD // 65536 + 2))  # no Content-Length: sent chunked
        status, body = post(srv.url + "/api/cards/import?name=cards.json", chunks, "application/octet-stream")
        assert status in refused, body
        assert len(srv.board.card_desk.catalog) == 2
        status, body = post(srv.url + "/api/actions/answer", b"{" + b" " * 100_000 + b"}", "application/json")
        assert status in refused, body


def _open_temp_files() -> int:
    """Temporary files this process holds open, already deleted: waitress's bodies over 512 kB."""
    import os

    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        pytest.skip("needs /proc/self/fd (Linux) to see the server's temporary files")
    held = 0
    for fd in fds.iterdir():
        try:
            if os.readlink(fd).endswith("(deleted)") and fd.stat().st_size > 0:
                held += 1
        except OSError:
            continue
    return held


def test_a_large_body_is_kept_only_from_an_unlocked_phone_or_with_a_pin_already_checked(tmp_path) -> None:
    """A guest without the PIN used to have a card file's 5 MiB taken in (in memory up to 512 kB, then
    a temporary file) before the route's PIN check, on each of 400 connections. Now a large body is
    kept only for a device session with the page's token, or a PIN the board has checked already;
    anyone else's is read and dropped, and the route answers as before."""
    import re
    import socket
    import time
    import urllib.error
    import urllib.request

    from web_helpers import serve_board

    from kipukas_board.web.auth import PinStore

    big = b"[" + b" " * 150_000 + CATALOG[1:]

    post = _post

    with serve_board(tmp_path / "data") as srv:
        url = srv.url + "/api/cards/import?name=cards.json"
        port = int(srv.url.rsplit(":", 1)[1])
        before = _open_temp_files()
        guest = socket.create_connection(("127.0.0.1", port), timeout=5)
        try:  # a guest sends 2 MB of an announced 5 MB and waits
            guest.sendall(f"POST /api/cards/import?name=a.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Content-Length: {MAX_UPLOAD - 1}\r\n\r\n".encode() + b" " * 2_000_000)
            time.sleep(0.5)
            assert _open_temp_files() == before  # nothing of it kept
        finally:
            guest.close()
        status, body = post(url, big, {})  # whole, without the PIN: refused as before
        assert status == 401 and "PIN" in body["error"]

        with urllib.request.urlopen(srv.url + "/", timeout=10) as resp:
            token = re.search(r'name="csrf-token" content="([^"]+)"', resp.read().decode()).group(1)
        req = urllib.request.Request(srv.url + "/api/pin/check", data=b"", method="POST",
                                     headers={**PIN, "X-CSRF-Token": token})
        with urllib.request.urlopen(req, timeout=20) as resp:
            cookie = resp.headers["Set-Cookie"].split(";", 1)[0]
        status, body = post(url, big, {"Cookie": cookie, "X-CSRF-Token": token})  # an unlocked phone
        assert status == 200, body

        srv.board.pins = PinStore(tmp_path / "data")  # the PIN on file, not checked since the start
        status, body = post(url, big, PIN)
        assert status == 503 and "send the file again" in body["error"], body
        assert post(url, big, PIN)[0] == 200  # checked by then: kept
        assert post(url, big, {"X-Admin-Pin": "1357"})[0] == 403  # a wrong PIN is refused and counted


def test_only_two_large_bodies_are_kept_at_once_even_with_the_pin(tmp_path) -> None:
    """A player with the PIN could have a card file's 5 MiB kept on each of 400 connections (600 MB
    of temporary files, measured); now the server keeps two large bodies at once. A third is read
    and dropped, answered 503 'send it again'; once a sending ends, its place is free."""
    import socket
    import time

    from web_helpers import serve_board

    from kipukas_board.web.serving import LARGE_BODIES_AT_ONCE

    big = b"[" + b" " * 150_000 + CATALOG[1:]

    def post(url: str) -> tuple[int, dict]:
        return _post(url, big, PIN)

    with serve_board(tmp_path / "data") as srv:
        url = srv.url + "/api/cards/import?name=cards.json"
        port = int(srv.url.rsplit(":", 1)[1])
        before = _open_temp_files()
        slow = []
        try:
            for _ in range(LARGE_BODIES_AT_ONCE + 2):  # with the PIN, 2 MB of an announced 5 MB, then a wait
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                slow.append(s)
                s.sendall(f"POST /api/cards/import?name=a.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"X-Admin-Pin: {PIN['X-Admin-Pin']}\r\nContent-Length: {MAX_UPLOAD - 1}\r\n\r\n".encode()
                          + b" " * 2_000_000)
            time.sleep(0.5)
            assert _open_temp_files() - before == LARGE_BODIES_AT_ONCE
            status, body = post(url)
            assert status == 503 and "being sent to the board right now" in body["error"], body
        finally:
            for s in slow:
                s.close()
        deadline = time.monotonic() + 5
        while _open_temp_files() > before and time.monotonic() < deadline:
            time.sleep(0.05)  # the closed sendings' places free as the server sees them go
        assert post(url)[0] == 200


def test_an_action_body_keeps_its_own_limit(client) -> None:
    r = client.post("/api/actions/answer", data=b"{" + b" " * 70_000 + b"}",
                    headers={"Content-Type": "application/json", **PIN})
    assert r.status_code == 413


def test_the_real_catalog_uploads_through_the_served_board_as_the_command_imports_it(tmp_path, capsys) -> None:
    """The official catalog snapshot (about 90 kB, more than an action's 64 kB) through waitress: the
    same cards as ``catalog import`` of the same file."""
    import urllib.request

    from conftest import shared_path
    from web_helpers import serve_board

    real = shared_path("catalog", "cards.json")
    assert main(["catalog", "import", str(real), "--data-dir", str(tmp_path / "cli")]) == 0
    said = capsys.readouterr().out
    with serve_board(tmp_path / "data") as srv:
        req = urllib.request.Request(srv.url + "/api/cards/import?name=cards.json", data=real.read_bytes(),
                                     method="POST", headers={"Content-Type": "application/octet-stream", **PIN})
        with urllib.request.urlopen(req, timeout=20) as resp:
            body = json.loads(resp.read())
        assert f"imported {body['count']} cards from" in said
        assert body["count"] == len(json.loads(real.read_text())) == len(srv.board.card_desk.catalog)


def test_the_simulated_camera_lists_the_imported_cards_of_every_game(client, board) -> None:
    """``GET /api/sim/cards``: each catalog card with a serial of its own, each mode's cards by its
    payload prefix and under the game's title (read through the card views, not the store)."""
    assert client.get("/api/sim/cards").get_json() == {"cards": []}
    assert upload(client, "cards.json", CATALOG).status_code == 200
    assert upload(client, "iv8-p1.toml", (DECKS / "iv8-p1.toml").read_bytes()).status_code == 200
    known = client.get("/api/sim/cards").get_json()["cards"]
    kipukas = [c for c in known if c["game"] == "Kipukas"]
    assert kipukas == [{"game": "Kipukas", "title": "Brindle Moth", "payload": "kpks.us/HMPU#0001?Sim0000"},
                       {"game": "Kipukas", "title": "Allele Sect Explorer", "payload": "kpks.us/RrDC#0001?Sim0001"}]
    duel = {c["payload"]: c for c in known if c not in kipukas}
    assert len(duel) == len(board.mode_cards.deck("duel", "iv8-p1"))
    assert duel["duel:punch"] == {"game": board.modes["duel"].title, "title": "Punch", "payload": "duel:punch"}
