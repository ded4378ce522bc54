"""The HTTP contract of DESIGN.md §3 that concerns state, stream, LEDs, simulated stands and health."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from kipukas_board.app import BoardApp
from kipukas_board.modes import state_json
from kipukas_board.web.server import create_app, require_pin
from tests.liveserver import live_board


def territory_pixels(leds: dict, n: int) -> list[list[int]]:
    return [leds["pixels"][i] for i in leds["layout"]["territories"][str(n)]]


def test_state_lists_every_stand_of_the_default_map(client, board: BoardApp) -> None:
    doc = client.get("/api/state").get_json()
    assert {s["id"] for s in doc["stands"]} == set(board.loop.state.board.stands)
    assert {s["id"] for s in doc["map"]["stands"]} == set(board.loop.state.board.stands)
    for key in ("map", "players", "territories", "stands", "diel", "phase", "winner", "questions", "cards",
                "timers", "health"):
        assert key in doc
    assert (doc["diel"]["cycle"], doc["diel"]["phase"]) == (0, None)
    assert all(s["occupied"] is False and s["owner"] is None for s in doc["stands"])


def test_sim_stand_post_occupies_and_changes_the_territory_leds(client) -> None:
    before = client.get("/api/leds").get_json()
    r = client.post("/api/sim/stands/T2", json={"occupied": True})
    assert r.status_code == 200 and r.get_json()["changed"] is True
    doc = client.get("/api/state").get_json()
    assert next(s for s in doc["stands"] if s["id"] == "T2")["occupied"] is True
    assert next(t for t in doc["territories"] if t["number"] == 2)["claim"] == "base_camp"
    after = client.get("/api/leds").get_json()
    assert territory_pixels(after, 2) != territory_pixels(before, 2)
    assert territory_pixels(after, 1) == territory_pixels(before, 1)
    # The same again is no change; taking it off restores the dim territory.
    assert client.post("/api/sim/stands/T2", json={"occupied": True}).get_json()["changed"] is False
    client.post("/api/sim/stands/T2", json={"occupied": False})
    assert territory_pixels(client.get("/api/leds").get_json(), 2) == territory_pixels(before, 2)


def test_leds_layout_covers_every_territory_and_stand(client, board: BoardApp) -> None:
    leds = client.get("/api/leds").get_json()
    assert set(leds["layout"]["territories"]) == {str(n) for n in board.loop.state.board.territories}
    assert set(leds["layout"]["stands"]) == set(board.loop.state.board.stands)
    assert all(len(p) == 3 and all(0 <= c <= 255 for c in p) for p in leds["pixels"])


@pytest.mark.parametrize(
    "path, body, status, fragment",
    [
        ("/api/sim/stands/NOPE", {"occupied": True}, 404, "unknown stand 'NOPE'"),
        ("/api/sim/stands/T1", {"occupied": "yes"}, 400, "occupied"),
        ("/api/sim/stands/T1", {}, 400, "occupied"),
        ("/api/sim/stands/T1", None, 400, "JSON object"),
        ("/api/sim/stands/T1", [1, 2], 400, "JSON object"),
    ],
)
def test_bad_requests_are_named(client, path, body, status, fragment) -> None:
    if body is None:
        r = client.post(path, data="not json", content_type="application/json")
    else:
        r = client.post(path, json=body)
    assert r.status_code == status
    assert fragment in r.get_json()["error"]


def test_oversized_body_is_refused(client) -> None:
    r = client.post("/api/sim/stands/T1", data="x" * 100_000, content_type="application/json")
    assert r.status_code == 413


def test_healthz(client, board: BoardApp) -> None:
    assert client.get("/healthz").status_code == 200
    board.loop.stop()
    assert client.get("/healthz").status_code == 503


def test_page_has_the_map_svg_with_data_attributes(client, board: BoardApp) -> None:
    html = client.get("/").get_data(as_text=True)
    for sid in board.loop.state.board.stands:
        assert f'data-stand="{sid}"' in html
    for n in board.loop.state.board.territories:
        assert f'data-territory="{n}"' in html


def test_the_map_drawing_alone_carries_the_revision_the_state_names(client, board: BoardApp) -> None:
    r = client.get("/board.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and r.headers["Cache-Control"] == "no-store"
    revision = client.get("/api/state").get_json()["map"]["revision"]
    assert revision == board.loop.state.board.revision
    svg = r.get_data(as_text=True)
    assert svg.startswith('<svg id="board"') and f'data-revision="{revision}"' in svg
    assert svg in client.get("/").get_data(as_text=True)  # the same drawing the page came with


def test_require_pin_refuses_without_and_with_a_wrong_pin(board: BoardApp) -> None:
    def plugin(app, b):
        @app.post("/api/actions/_test")
        @require_pin(b)
        def _t():
            return {"ok": True}

    board.route_plugins.append(plugin)
    c = create_app(board).test_client()
    assert c.post("/api/actions/_test").status_code == 401
    assert c.post("/api/actions/_test", headers={"X-Admin-Pin": "0000"}).status_code == 403
    assert c.post("/api/actions/_test", headers={"X-Admin-Pin": "2468"}).status_code == 200


def test_pin_is_stored_hashed(data_dir: Path, board: BoardApp) -> None:
    text = (data_dir / "admin-pin.json").read_text()
    assert "2468" not in text and "scrypt" in text


def test_stream_sends_a_state_event_per_change_over_waitress(data_dir: Path) -> None:
    with live_board(data_dir) as (board, url):
        got: list[dict] = []
        ready = threading.Event()

        def listen() -> None:
            with urllib.request.urlopen(f"{url}/api/stream", timeout=10) as resp:
                kind = ""
                for raw in resp:
                    line = raw.decode().rstrip("\n")
                    if line.startswith("event: "):
                        kind = line[7:]
                    if line.startswith("data: ") and kind == "state":  # "said" events carry captions
                        got.append(json.loads(line[6:]))
                        ready.set()
                        if len(got) == 4:
                            return

        t = threading.Thread(target=listen, daemon=True)
        t.start()
        assert ready.wait(10), "no first state event"
        for sid in ("T1", "M2a", "T3"):
            req = urllib.request.Request(f"{url}/api/sim/stands/{sid}", data=b'{"occupied": true}',
                                         headers={"Content-Type": "application/json"}, method="POST")
            urllib.request.urlopen(req, timeout=10).read()
        t.join(10)
        assert len(got) == 4
        occupied = [{s["id"] for s in doc["stands"] if s["occupied"]} for doc in got]
        assert occupied == [set(), {"T1"}, {"T1", "M2a"}, {"T1", "M2a", "T3"}]
        assert [d["seq"] for d in got] == sorted(d["seq"] for d in got)
        assert got[-1]["lights"]["territories"]["3"] != got[0]["lights"]["territories"]["3"]


def test_restart_brings_back_the_same_state_and_sim_switches(data_dir: Path) -> None:
    with live_board(data_dir) as (board, url):
        for sid in ("T1", "M1a"):
            board.sim_set_stand(sid, True)
        before = state_json(board.loop.state)
    time.sleep(0.05)
    with live_board(data_dir) as (board, url):
        assert state_json(board.loop.state) == before
        # The simulated switch under T1 is closed again, so lifting the token is a change.
        assert board.sim_set_stand("T1", False) is True


def _events(chunks, n: int, max_chunks: int = 10) -> list[dict]:
    """The next ``n`` state documents from an event-stream body (or fewer, after ``max_chunks``)."""
    out: list[dict] = []
    for _, chunk in zip(range(max_chunks), chunks, strict=False):
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        out += [json.loads(line[6:]) for line in text.split("\n") if line.startswith("data: ")]
        if len(out) >= n:
            return out
    return out


def test_a_change_right_after_the_snapshot_still_reaches_the_new_stream(board: BoardApp) -> None:
    """The stream registers its client before taking the snapshot it sends first."""
    real = board.state_json
    calls = [0]

    def snapshot_then_a_change(state=None):
        doc = real(state)
        calls[0] += 1
        if calls[0] == 1:  # the route's snapshot: a token lands just after it was taken
            board.sim_set_stand("T1", True)
        return doc

    board.state_json = snapshot_then_a_change  # type: ignore[method-assign]
    board.broadcaster.keepalive_s = 0.1  # a lost change shows as keepalives, not a hang
    resp = create_app(board).test_client().get("/api/stream", buffered=False)
    try:
        got = _events(iter(resp.response), 2)
        assert len(got) == 2, "the change made just after the snapshot never arrived"
        first, second = got
        assert not next(s for s in first["stands"] if s["id"] == "T1")["occupied"]
        assert next(s for s in second["stands"] if s["id"] == "T1")["occupied"]
    finally:
        resp.close()
    assert board.broadcaster.clients() == 0  # closing the body gives the place back


def test_streams_are_capped_so_other_requests_still_get_a_thread(data_dir: Path) -> None:
    import http.client

    with live_board(data_dir, threads=4) as (board, url):  # 4 threads: 2 for streams, 2 for the rest
        host, port = url.removeprefix("http://").split(":")
        streams = []
        for _ in range(2):
            conn = http.client.HTTPConnection(host, int(port), timeout=10)
            conn.request("GET", "/api/stream")
            resp = conn.getresponse()
            assert resp.status == 200
            resp.readline()  # "retry: 1000": the stream is open and holds its thread
            streams.append(conn)
        assert board.broadcaster.clients() == 2
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{url}/api/stream", timeout=10)
        assert refused.value.code == 503 and int(refused.value.headers["Retry-After"]) > 0
        assert "limit 2" in json.loads(refused.value.read())["error"]
        for path in ("/api/state", "/healthz", "/api/leds", "/"):  # all still answered
            assert urllib.request.urlopen(f"{url}{path}", timeout=30).status == 200
        streams.pop().close()  # a page goes away: its place is free again at its next keepalive or change
        board.sim_set_stand("T1", True)
        deadline = time.monotonic() + 30  # a ceiling for a loaded machine: the loop ends when the place is free
        while board.broadcaster.clients() > 1 and time.monotonic() < deadline:
            board.sim_set_stand("T1", not board.loop.state.switches["T1"])
            time.sleep(0.05)
        assert board.broadcaster.clients() == 1
        with urllib.request.urlopen(f"{url}/api/stream", timeout=10) as again:
            assert again.status == 200
        for conn in streams:
            conn.close()


def test_waitress_refuses_a_huge_body_before_receiving_it(data_dir: Path) -> None:
    import socket

    with live_board(data_dir) as (board, url):
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(b"POST /api/sim/stands/T1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 200000000\r\n\r\n" + b"x" * 1000)
            # Without max_request_body_size waitress would wait for all 200 MB: this read would time out.
            status = sock.recv(200).split(b"\r\n", 1)[0]
        assert status.startswith(b"HTTP/1.1 413"), status
        # The limit is Flask's: a body of exactly 64 KiB is still read (and refused only as bad JSON).
        req = urllib.request.Request(f"{url}/api/sim/stands/T1", data=b" " * (64 * 1024),
                                     headers={"Content-Type": "application/json"}, method="POST")
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=5)
        assert e.value.code == 400


def test_run_refuses_a_stream_cap_that_would_starve_the_page(tmp_path: Path, capsys) -> None:
    from kipukas_board.cli import main

    code = main(["run", "--sim", "--data-dir", str(tmp_path), "--port", "0", "--admin-pin", "2468",
                 "--threads", "4", "--max-streams", "4"])
    assert code == 2 and "max streams = 4: expected 1 to 3" in capsys.readouterr().err
