"""The organiser's dashboard and the load bench, against a real Mosquitto and real boards.

The dashboard is served by waitress and looked at in real Chromium at phone size; the bench runs a
few simulated boards through the broker (the full 50-board run is a command, README "Many tables").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from mqtt_broker import Mosquitto
from test_fleet_publish import fleet_board, toggle, wait_for
from web_helpers import CHROMIUM, CHROMIUM_ARGS, PIN

from kipukas_board.board.mapfile import load_map
from kipukas_board.cli import main
from kipukas_board.fleet.dashboard import Dashboard, make_server
from kipukas_board.fleet.view import BoardSummary, FleetView
from kipukas_board.modes import new_table, state_json
from kipukas_board.modes.duel.rules import example_new_game
from kipukas_board.settings import BrokerAddress
from kipukas_board.web.server import create_app
from kipukas_board.web.serving import make_server as make_board_server


@pytest.fixture
def broker(tmp_path: Path):
    b = Mosquitto(tmp_path / "broker").start()
    yield b
    b.stop()


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def by_id(url: str) -> dict[str, dict[str, Any]]:
    return {b["board_id"]: b for b in get(f"{url}/api/boards")["boards"]}


def new_game(board: Any, names: list[str]) -> None:
    colors = ["#e4572e", "#1e90ff", "#2e8b57"]
    players = [{"seat": i + 1, "name": n, "color": colors[i], "affinity": "brutal"} for i, n in enumerate(names)]
    r = create_app(board).test_client().post("/api/actions/new-game", json={"players": players},
                                             headers={"X-Admin-Pin": PIN})
    assert r.status_code == 200, r.get_json()


def test_players_and_territories_held_are_counted_per_seat() -> None:
    b = BoardSummary("t", state={"players": [{"seat": 1, "name": "Ana"}, {"seat": 2, "name": "Bo"}],
                                 "territories": [{"owner": 1}, {"owner": 1}, {"owner": None}, {"owner": 2}],
                                 "diel": {"cycle": 3, "phase": "night"}, "phase": "play"},
                     health={"sensors": {"ok": False}, "cameras": [{"seat": 2, "ok": False}, {"seat": 1, "ok": True}],
                             "journal": {"ok": False}}, online=False)
    doc = b.to_json()
    assert [(p["name"], p["territories"]) for p in doc["players"]] == [("Ana", 2), ("Bo", 1)]
    assert (doc["phase"], doc["cycle"], doc["diel_phase"]) == ("play", 3, "night")
    assert doc["alarms"] == ["board offline", "sensor link down", "camera seat 2 failing", "journal not writing"]


def test_a_board_with_no_game_reports_no_phase_and_no_cycle() -> None:
    """A board with no game still has Kipukas's first phase ("setup") and diel cycle 0 in its state;
    the dashboard shows neither beside "No game."."""
    doc = BoardSummary("t", state=state_json(new_table(load_map("kipuka-8")))).to_json()
    assert doc["players"] == [] and doc["game"] == "kipukas"
    assert (doc["phase"], doc["cycle"], doc["diel_phase"], doc["winner"]) == (None, None, None, None)


def test_the_dashboard_shows_every_board_live_with_its_alarms(broker, tmp_path, monkeypatch) -> None:
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing: install the Debian package chromium")
    monkeypatch.setattr("kipukas_board.fleet.publisher.FleetPublisher.HEALTH_POLL_S", 0.1)
    dash = Dashboard(FleetView(BrokerAddress.parse(broker.url)))
    server = make_server(dash, "127.0.0.1", 0, threads=8)
    dash.start()
    serving = threading.Thread(target=server.run, daemon=True)
    serving.start()
    url = f"http://127.0.0.1:{server.effective_port}"
    one = fleet_board(tmp_path / "one", broker.url, "table-01")
    two = fleet_board(tmp_path / "two", broker.url, "table-02")
    three = fleet_board(tmp_path / "three", broker.url, "table-03")
    for board in (one, two, three):
        board.start()
    try:
        new_game(one, ["Ana", "Bo"])
        toggle(one, 2)
        # A card duel on table-03, as the duel page starts one (its decks written in), one turn played.
        three.loop.submit(example_new_game())
        three.loop.submit({"type": "duel_pass", "seat": 1})
        wait_for(lambda: by_id(url).get("table-03", {}).get("progress") == "turn 2 · Ben to play",
                 why="table-03's duel on the dashboard")
        wait_for(lambda: by_id(url).get("table-01", {}).get("players"), why="table-01's players on the dashboard")
        wait_for(lambda: "table-02" in by_id(url), why="table-02 on the dashboard")
        row = by_id(url)["table-01"]
        assert row["name"] == "Table 01" and [p["name"] for p in row["players"]] == ["Ana", "Bo"]
        assert row["online"] is True and row["alarms"] == [] and row["last_seq"] == one.journal.last_seq()
        assert row["phase"] == one.state_json()["phase"] and row["title"] == "Kipukas"
        duel = by_id(url)["table-03"]
        assert (duel["game"], duel["title"], duel["phase"], duel["cycle"]) == ("duel", "Card duel", "play", None)
        assert [(p["name"], p["detail"]) for p in duel["players"]] == [("Ana", "3/3 Hearts"), ("Ben", "3/3 Hearts")]

        broken = {**two.sensors.health(), "ok": False, "connected": False, "last_error": "unplugged"}
        monkeypatch.setattr(two.sensors, "health", lambda: broken)
        wait_for(lambda: "sensor link down" in by_id(url)["table-02"]["alarms"], why="the sensor alarm")

        with playwright_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 390, "height": 844})
                errors: list[str] = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                # The board's own page lists the fleet link with its health.
                board_page = make_board_server(two, "127.0.0.1", 0, threads=8)
                threading.Thread(target=board_page.run, daemon=True).start()
                try:
                    page.goto(f"http://127.0.0.1:{board_page.effective_port}/")
                    page.wait_for_selector('#health li[data-part="fleet"].ok')
                    row = page.text_content('#health li[data-part="fleet"]')
                    assert "fleet link up" in row and "board id: table-02" in row
                finally:
                    two.broadcaster.close()
                    board_page.close()
                page.goto(url)
                page.wait_for_selector('tr[data-board="table-02"].alarm')
                assert "sensor link down" in page.inner_text('tr[data-board="table-02"]')
                assert "Ana (" in page.inner_text('tr[data-board="table-01"]')
                assert page.text_content('tr[data-board="table-01"] td[data-label="game"]') == "Kipukas"
                # a board with no game says so in a sentence, as every empty note does
                assert page.text_content('tr[data-board="table-02"] td[data-label="game"]') == "No game."
                assert page.text_content('tr[data-board="table-02"] td[data-label="players"]') == "–"
                assert page.text_content('tr[data-board="table-02"] td[data-label="progress"]') == "–"  # not "setup"
                assert by_id(url)["table-02"]["phase"] is None
                # a duel says so, with its two players, their Hearts and whose turn it is
                duel_row = 'tr[data-board="table-03"]'
                assert page.text_content(f'{duel_row} td[data-label="game"]') == "Card duel"
                assert page.text_content(f'{duel_row} td[data-label="players"]') == "Ana (3/3 Hearts)Ben (3/3 Hearts)"
                assert page.text_content(f'{duel_row} td[data-label="progress"]') == "turn 2 · Ben to play"
                box = page.locator(duel_row).bounding_box()
                assert box is not None and box["width"] <= 390, box  # a card of its own at phone width
                page.screenshot(path=str(tmp_path / "dashboard-duel-390.png"), full_page=True)
                one.stop()  # the board goes away: its row turns to offline, live
                page.wait_for_selector('tr[data-board="table-01"].offline', timeout=10_000)
                assert "board offline" in page.inner_text('tr[data-board="table-01"]')
                page.screenshot(path=str(tmp_path / "dashboard-390.png"), full_page=True)
                page.set_viewport_size({"width": 1280, "height": 720})
                page.screenshot(path=str(tmp_path / "dashboard-1280.png"))
                if os.environ.get("KIPUKAS_SHOTS"):
                    for name in ("dashboard-duel-390.png", "dashboard-390.png", "dashboard-1280.png"):
                        Path(os.environ["KIPUKAS_SHOTS"], name).write_bytes((tmp_path / name).read_bytes())
                assert not errors, errors
            finally:
                browser.close()
    finally:
        for board in (one, two, three):
            board.stop()
        dash.stop()
        server.close()


def test_the_view_refuses_a_message_json_cannot_carry_and_keeps_the_board_as_it_was(broker) -> None:
    """A board (or anything with a login) that sends NaN or a time of ``true``: the view counts the
    message as bad with its reason, its board keeps what the good messages said, and the latency hook
    sees only real times."""
    from kipukas_board.fleet.mqtt import make_client

    got: list[tuple[str, int, float]] = []
    view = FleetView(BrokerAddress.parse(broker.url), on_event=lambda b, seq, ts, now: got.append((b, seq, ts)))
    view.start()
    pub = make_client("test-sender", BrokerAddress.parse(broker.url))
    pub.connect(BrokerAddress.parse(broker.url).host, BrokerAddress.parse(broker.url).port)
    pub.loop_start()
    try:
        wait_for(view.subscribed.is_set, why="the view to subscribe")
        for payload in (b'{"online": true, "name": "Table 9", "health": {}}',
                        b'{"online": false, "name": "Not me", "health": {"cpu": NaN}}'):
            pub.publish("kipukas/table-09/health", payload, qos=1).wait_for_publish(5)
        for payload in (b'{"seq": 1, "ts": 1.5, "event": {}}', b'{"seq": 2, "ts": NaN, "event": {}}',
                        b'{"seq": 3, "ts": true, "event": {}}', b'{"seq": 4, "ts": 2.5, "event": {}}'):
            pub.publish("kipukas/table-09/events", payload, qos=1).wait_for_publish(5)
        wait_for(lambda: (view.board("table-09") or {}).get("last_seq") == 4, why="table-09's event 4 in the view")
        row = view.board("table-09")
        assert row["online"] is True and row["name"] == "Table 9"  # the refused health message changed nothing
        assert (row["events"], row["missed"]) == (2, 2)  # 2 and 3 never arrived as far as the view knows
        assert got == [("table-09", 1, 1.5), ("table-09", 4, 2.5)]
        assert view.bad_messages == 3
        assert list(view.problems) == [
            "kipukas/table-09/health: health message holds NaN, which JSON does not allow (numbers must be finite)",
            "kipukas/table-09/events: events message holds NaN, which JSON does not allow (numbers must be finite)",
            "kipukas/table-09/events: events message 3 has ts = True; expected the time the board journaled it "
            "(a finite number of seconds since 1970)"]
    finally:
        pub.loop_stop()
        pub.disconnect()
        view.stop()


def test_the_bench_delivers_every_event_and_exits_1_on_a_loss(broker, capsys, monkeypatch) -> None:
    rc = main(["fleet", "bench", "--boards", "3", "--changes", "15", "--rate", "30", "--broker", broker.url, "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    result = json.loads(out[-1])
    assert rc == 0, out
    assert (result["sent"], result["delivered"], result["lost"], result["out_of_order"]) == (45, 45, 0, 0)
    assert result["latency_ms"]["p50"] is not None and "45 of 45 events delivered" in "\n".join(out)
    # The simulated boards retire themselves: nothing of them stays retained on the broker.
    view = FleetView(BrokerAddress.parse(broker.url), client_id="after-bench")
    view.start()
    try:
        assert view.subscribed.wait(5)
        import time
        time.sleep(0.5)
        assert [b for b in view.boards() if b["board_id"].startswith("bench-")] == []
    finally:
        view.stop()

    lossy = {**result, "delivered": 44, "lost": 1}
    monkeypatch.setattr("kipukas_board.bench.fleet.run_bench", lambda *a, **k: lossy)
    assert main(["fleet", "bench", "--boards", "3", "--changes", "15", "--broker", broker.url]) == 1
    assert "FAILED: 1 lost" in capsys.readouterr().out


def test_bad_bench_and_dashboard_arguments_are_named(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main(["fleet", "bench", "--broker", "http://x", "--boards", "2"])
    assert e.value.code == 2 and "expected mqtt://HOST[:PORT]" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["fleet", "bench", "--broker", "mqtt://127.0.0.1:1", "--boards", "0"])
    assert "must be at least 1" in capsys.readouterr().err


def test_the_dashboard_command_serves_until_stopped(broker) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "kipukas_board", "fleet", "dashboard", "--broker", broker.url,
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert "Kipukas fleet dashboard for" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
        url = line.strip().rsplit(" at ", 1)[1].rstrip("/")
        wait_for(lambda: status(f"{url}/healthz") == 200, why="the dashboard to reach the broker (503 before)")
        assert get(f"{url}/api/boards")["broker"] == broker.url
    finally:
        proc.terminate()
        assert proc.wait(10) == 0
        proc.stdout.close()
        proc.stderr.close()


def test_run_names_a_fleet_password_file_it_cannot_read(tmp_path, capsys) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text(f'[fleet]\nbroker = "mqtt://127.0.0.1:1"\nboard_id = "t1"\n'
                        f'password_file = "{tmp_path / "missing.password"}"\n')
    assert main(["run", "--sim", "--settings", str(settings), "--data-dir", str(tmp_path / "data")]) == 2
    assert "missing.password" in capsys.readouterr().err


def test_the_dashboard_refuses_a_large_body_before_it_arrives() -> None:
    """Every route is a GET: a request announcing a body over MAX_BODY is answered 413 at once, where
    waitress would otherwise wait for (and spool) up to 1 GiB of it."""
    import socket

    from kipukas_board.fleet.dashboard import MAX_BODY

    dash = Dashboard(FleetView(BrokerAddress.parse("mqtt://127.0.0.1:1")))  # never started: no broker needed
    server = make_server(dash, "127.0.0.1", 0, threads=4)
    serving = threading.Thread(target=server.run, daemon=True)
    serving.start()
    try:
        with socket.create_connection(("127.0.0.1", server.effective_port), timeout=5) as s:
            s.sendall(f"POST /api/boards HTTP/1.1\r\nHost: x\r\nContent-Length: {100 * MAX_BODY}\r\n\r\n".encode())
            answer = s.recv(4096)  # nothing of the body is sent: a server waiting for it times this out
        assert answer.startswith(b"HTTP/1.1 413"), answer[:80]
    finally:
        server.close()
        serving.join(5)
