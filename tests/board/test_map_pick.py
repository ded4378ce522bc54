"""New game picks the map while no game runs: journaled first, each map with its own calibration file,
the pick kept across a restart (and an explicit --map winning over it), refused with a 409 during a game."""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from web_helpers import PIN, post_action, serve_board

from kipukas_board import modes, textfile
from kipukas_board.app import BoardApp
from kipukas_board.board.mapfile import load_map
from kipukas_board.calibrate import files
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.settings import Settings
from kipukas_board.show.layout import default_layout, map_calibration_path
from kipukas_board.store import map_choice
from kipukas_board.store.map_choice import read_choice
from kipukas_board.table.events import map_event
from kipukas_board.web.map_list import shipped_maps

HDR = {"X-Admin-Pin": "2468"}
PLAYERS = [{"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]


def test_a_pick_is_journaled_first_then_lights_sensors_and_the_data_dir_follow(client, board, data_dir) -> None:
    board.sim_set_stand("T1", True)  # a token on the old map: the simulated hand starts the new one bare
    maps = client.get("/api/maps").get_json()
    assert maps["busy"] is None
    offered = {m["key"]: m for m in maps["maps"]}
    assert offered["kipuka-8"]["current"] and not offered["kipuka-12"]["current"]
    assert offered["kipuka-12"]["player_limits"]["mass_contention"]["players"] == 3  # 11 holdable territories
    assert offered["kipuka-8"]["player_limits"]["mass_contention"]["players"] == 2

    r = client.post("/api/actions/map", json={"map": "kipuka-12"}, headers=HDR)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["map"] == {"key": "kipuka-12", "name": "Kipuka of Twelve"}
    seq, event = list(board.journal.events())[-1]
    assert event["type"] == "map" and event["name"] == "Kipuka of Twelve" and seq == r.get_json()["seq"]
    assert read_choice(data_dir) == "kipuka-12"
    state = board.loop.state
    assert state.board.name == "Kipuka of Twelve" and not any(state.switches.values())
    assert board.sensors.snapshot() == {}
    assert board.layout.territories == default_layout(state.board).territories  # its own layout, no calibration
    assert board.strip.count == board.layout.count
    doc = client.get("/api/state").get_json()
    assert doc["map"]["name"] == "Kipuka of Twelve" and len(doc["lights"]["territories"]) == 12
    health = doc["health"]["calibration"]
    assert health["calibrated"] is False and "Kipuka of Twelve is not calibrated yet" in health["note"]
    assert health["ok"] is True  # still playable in simulation
    assert {m["key"]: m["current"] for m in client.get("/api/maps").get_json()["maps"]}["kipuka-12"]
    # The new map plays: a game and its first placement.
    r = client.post("/api/actions/new-game", json={"players": PLAYERS, "first_placer": 1, "map": "kipuka-12"},
                    headers=HDR)
    assert r.status_code == 200, r.get_json()
    first = next(s.id for s in board.loop.state.board.stands.values() if s.kind == "territory")
    board.sim_set_stand(first, True)
    assert kipukas_state(board.loop.state).placements == 1


def test_refused_during_a_game_unknown_maps_named_and_the_rules_core_refuses_too(client, board) -> None:
    r = client.post("/api/actions/new-game", json={"players": PLAYERS, "first_placer": 1}, headers=HDR)
    assert r.status_code == 200
    r = client.post("/api/actions/map", json={"map": "kipuka-12"}, headers=HDR)
    assert r.status_code == 409
    assert "a game of Kipukas is under way" in r.get_json()["error"] and "end the game first" in r.get_json()["error"]
    assert "under way" in client.get("/api/maps").get_json()["busy"]
    assert board.loop.state.board.name == "Kipuka of Eight"
    r = client.post("/api/actions/new-game", json={"players": PLAYERS, "map": "kipuka-12"}, headers=HDR)
    assert r.status_code == 409 and "POST /api/actions/map" in r.get_json()["error"]
    # The core refuses it as well (a game started between the check and the journal).
    twelve = load_map("kipuka-12")
    state, fx = modes.apply(board.loop.state, map_event(twelve.name, twelve.source_text, twelve.source))
    assert state.board.name == "Kipuka of Eight" and modes.game_in_progress(state)
    assert fx[0]["type"] == "problem" and "end the game first" in fx[0]["text"]
    # ... but not a redrawn map (same stands and paths), nor any map before a game.
    eight = load_map("kipuka-8")
    state, fx = modes.apply(board.loop.state, map_event("Kipuka of Eight", eight.source_text, eight.source))
    assert modes.game_in_progress(state) and fx[0] == {"type": "map", "name": "Kipuka of Eight", "kept": True}
    state, fx = modes.apply(modes.new_table(eight), map_event(twelve.name, twelve.source_text, twelve.source))
    assert state.board.name == "Kipuka of Twelve"
    client.post("/api/actions/end-game", json={}, headers=HDR)
    assert client.post("/api/actions/undo", json={}, headers=HDR).status_code == 200  # the end taken back ...
    assert client.get("/api/undo").get_json()["redo"]["action"] == "end_game"
    assert client.post("/api/actions/redo", json={}, headers=HDR).status_code == 200  # ... and done again
    for body, why in (({"map": "atlantis"}, "no shipped map 'atlantis'"), ({"map": 12}, "field 'map' must be"),
                      ({"map": "kipuka-12", "x": 1}, "unknown field(s) x")):
        r = client.post("/api/actions/map", json=body, headers=HDR)
        assert r.status_code == 400 and why in r.get_json()["error"], r.get_json()
    assert client.post("/api/actions/map", json={"map": "kipuka-12"}).status_code in (401, 403)  # the PIN
    assert client.post("/api/actions/undo", json={}, headers=HDR).status_code == 200
    assert client.post("/api/actions/undo", json={"confirm": "new_game"}, headers=HDR).status_code == 200
    assert client.get("/api/undo").get_json()["redo"]["action"] == "new_game"
    r = client.post("/api/actions/map", json={"map": "kipuka-12"}, headers=HDR)  # no game now: allowed
    assert r.status_code == 200 and board.loop.state.board.name == "Kipuka of Twelve"
    assert client.get("/api/undo").get_json()["redo"] is None  # the old new game does not come back here


def test_each_map_keeps_its_own_calibration_file(data_dir: Path) -> None:
    eight, twelve = load_map("kipuka-8"), load_map("kipuka-12")
    plain = data_dir / "calibration" / "default.toml"
    assert map_calibration_path("default", data_dir, twelve) == plain  # no file yet: the plain name
    files.save(plain, files.Calibration(board=eight.name, channels={"c1": "T1"}), eight)
    assert map_calibration_path("default", data_dir, eight) == plain
    own = data_dir / "calibration" / "default.kipuka-12.toml"
    assert map_calibration_path("default", data_dir, twelve) == own
    files.save(own, files.Calibration(board=twelve.name, channels={"c9": "T9"}), twelve)
    assert map_calibration_path("/etc/t.toml", data_dir, twelve) == Path("/etc/t.toml")

    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    board.start()
    try:
        assert board.channel_map == {"c1": "T1"} and board.calibration.path == plain
        board.pick_map("kipuka-12")
        assert board.channel_map == {"c9": "T9"} and board.calibration.path == own
        assert board.health()["calibration"]["calibrated"] is True
        board.pick_map("kipuka-13")  # none yet: the channels are the stands again
        assert board.channel_map is None and board.health()["calibration"]["calibrated"] is False
        board.pick_map("kipuka-8")
        assert board.channel_map == {"c1": "T1"}
    finally:
        board.stop()


def _count_reads(monkeypatch, folder: Path) -> list[str]:
    """The text files read under ``folder`` from now on (every board file goes through ``read_text``)."""
    reads: list[str] = []

    def counting_open(path, *args, **kwargs):
        if Path(path).is_relative_to(folder):
            reads.append(Path(path).name)
        return open(path, *args, **kwargs)

    monkeypatch.setattr(textfile, "open", counting_open, raising=False)
    return reads


def test_the_list_of_maps_reads_a_calibration_file_again_only_when_it_was_written(
        client, data_dir: Path, monkeypatch) -> None:
    eight, twelve = load_map("kipuka-8"), load_map("kipuka-12")
    files.save(data_dir / "calibration" / "default.toml", files.Calibration(board=eight.name), eight)
    files.save(data_dir / "calibration" / "default.kipuka-12.toml", files.Calibration(board=twelve.name), twelve)
    reads = _count_reads(monkeypatch, data_dir)
    first = client.get("/api/maps").get_json()
    assert reads and {"default.toml", "default.kipuka-12.toml"} <= set(reads)
    del reads[:]
    assert client.get("/api/maps").get_json() == first and reads == []
    files.save(data_dir / "calibration" / "default.kipuka-12.toml",
               files.Calibration(board=twelve.name, channels={"c9": "T9"}), twelve)
    del reads[:]
    client.get("/api/maps")
    assert reads == ["default.kipuka-12.toml"]  # the written one, once


def test_a_calibration_file_edited_between_two_lists_is_listed_as_it_is_now(client, data_dir: Path) -> None:
    twelve = load_map("kipuka-12")
    own = data_dir / "calibration" / "default.kipuka-12.toml"
    files.save(own, files.Calibration(board=twelve.name), twelve)

    def listed() -> dict:
        return {m["key"]: m for m in client.get("/api/maps").get_json()["maps"]}["kipuka-12"]

    assert listed()["calibrated"] and listed()["refused"] is None
    own.write_text(own.read_text() + "[[cameras]]\nseat = 1\nfocus = 99\n")  # in place, as an editor may
    assert not listed()["calibrated"] and listed()["refused"].startswith("[[cameras]] #1 (seat 1): focus = 99")
    own.unlink()
    assert not listed()["calibrated"] and listed()["refused"] is None


def test_an_open_calibration_walk_keeps_the_map(board) -> None:
    board.calibration.sensors_start()
    with pytest.raises(Exception, match="sensor walk is open"):
        board.pick_map("kipuka-12")
    assert board.loop.state.board.name == "Kipuka of Eight"


def test_the_pick_survives_a_restart_and_an_explicit_map_wins_saying_so(tmp_path: Path, caplog) -> None:
    with serve_board(tmp_path, map_name="kipuka-8") as srv:
        post_action(srv.url, "/api/actions/map", {"map": "kipuka-13"})
    with caplog.at_level(logging.WARNING, logger="kipukas_board.app"), \
            serve_board(tmp_path, map_name="kipuka-8") as srv:  # the settings still say kipuka-8
        assert srv.board.loop.state.board.name == "Kipuka of Thirteen"
        assert srv.board.layout.territories == default_layout(srv.board.loop.state.board).territories
    assert "starting on map kipuka-13 picked on the page" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="kipukas_board.app"):
        board = BoardApp(Settings(map="kipuka-12"), tmp_path, sim=True, admin_pin=PIN, map_given=True)
        try:
            assert board.loop.state.board.name == "Kipuka of Twelve"
        finally:
            board.stop()
    assert "--map kipuka-12 given: starting on it, not on kipuka-13 picked on the page" in caplog.text
    assert read_choice(tmp_path) == "kipuka-12"  # the map a start without --map comes back to


def test_a_game_started_on_a_given_map_is_found_again_by_a_start_without_it(tmp_path: Path) -> None:
    """Picked kipuka-12 on the page, then a start with --map kipuka-8 and a game on it: the service's
    next start (no --map) must come back to kipuka-8, where the game is, not refuse to start."""
    with serve_board(tmp_path, map_name="kipuka-8") as srv:
        post_action(srv.url, "/api/actions/map", {"map": "kipuka-12"})
    board = BoardApp(Settings(map="kipuka-8"), tmp_path, sim=True, admin_pin=PIN, map_given=True)
    board.start()
    try:
        board.loop.submit({"type": "new_game", "edition": "web", "play_style": "domination", "first_placer": 1,
                           "players": [{"seat": s, "name": f"P{s}", "color": "#102030"} for s in (1, 2)]})
        assert kipukas_state(board.loop.state).started
    finally:
        board.stop()
    board = BoardApp(Settings(map="kipuka-12"), tmp_path, sim=True, admin_pin=PIN)  # the settings say 12
    try:
        assert board.loop.state.board.name == "Kipuka of Eight" and kipukas_state(board.loop.state).started
    finally:
        board.stop()


def test_a_picked_map_whose_calibration_is_refused_lights_the_default_layout(data_dir: Path) -> None:
    """The picked map's own file is read once, as at start: refused (a camera's focus out of range),
    none of it is applied, its [leds] included, and the health says why; the accepted file of the map
    picked back lights by its layout again."""
    eight, twelve = load_map("kipuka-8"), load_map("kipuka-12")
    plain = data_dir / "calibration" / "default.toml"
    files.save(plain, files.Calibration(board=eight.name, channels={"c1": "T1"},
                                        led_territories={n: [n - 1] for n in eight.territories}), eight)
    own = data_dir / "calibration" / "default.kipuka-12.toml"
    terr = "".join(f"{n} = [{n - 1}]\n" for n in sorted(twelve.territories))
    own.write_text(f'board = "{twelve.name}"\n[sensors.channels]\n"c9" = "T9"\n[[cameras]]\nseat = 1\nfocus = 99\n'
                   f'[leds]\norder = "BGR"\n[leds.territories]\n{terr}')
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    board.start()
    try:
        assert board.layout.source == str(plain) and board.layout.territories[1] == [0]
        board.pick_map("kipuka-12")
        assert board.layout.territories == default_layout(twelve).territories and board.layout.order == "GRB"
        assert board.channel_map is None
        health = board.health()["calibration"]
        assert health["calibrated"] is False and str(own) in health["error"] and "focus" in health["error"]
        assert health["refused"].startswith("[[cameras]] #1 (seat 1): focus = 99")  # the page's map note
        offered = {m["key"]: m for m in shipped_maps(board)}  # the new-game form's list reads it the same
        assert offered["kipuka-12"]["refused"] == health["refused"] and not offered["kipuka-12"]["calibrated"]
        assert offered["kipuka-8"]["calibrated"] and offered["kipuka-8"]["refused"] is None
        board.pick_map("kipuka-8")
        assert board.layout.source == str(plain) and board.channel_map == {"c1": "T1"}
        assert board.health()["calibration"]["error"] is None and board.health()["calibration"]["refused"] is None
    finally:
        board.stop()


def test_a_strip_fixed_at_start_stays_dark_and_the_restart_lights_the_picked_map(data_dir: Path, monkeypatch) -> None:
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    board.start()
    try:
        monkeypatch.setattr(board.lighting, "can_resize", lambda: False)  # as rpi-ws281x: fixed when it opens
        before = board.strip.count
        board.pick_map("kipuka-12")  # its default layout needs more pixels than kipuka-8's
        assert board.strip.count == before and board.layout.count == before
        assert board.layout.territories == {} and set(board.lighting.frame()) == {(0, 0, 0)}
        health = board.health()["calibration"]
        assert health["ok"] is False and "restart the board to light it" in health["error"]
    finally:
        board.stop()
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")  # the restart comes back on the pick
    try:
        assert board.loop.state.board.name == "Kipuka of Twelve"
        assert board.strip.count == default_layout(board.loop.state.board).count
        assert board.health()["calibration"]["error"] is None
    finally:
        board.stop()


def test_a_picked_map_no_longer_shipped_falls_back_to_the_configured_one(tmp_path: Path) -> None:
    from kipukas_board.board.mapfile import map_exists
    from kipukas_board.store.map_choice import start_map, write_choice

    write_choice(tmp_path, "kipuka-99")  # picked on an older version that shipped it
    name, why = start_map("kipuka-8", tmp_path, given=False, exists=map_exists)
    assert name == "kipuka-8" and "kipuka-99 picked earlier is no longer there" in why
    write_choice(tmp_path, "kipuka-12")
    assert start_map("kipuka-8", tmp_path, given=False, exists=map_exists)[0] == "kipuka-12"


def test_a_seat_camera_follows_the_picked_maps_calibration_and_goes_back_to_automatic_without_one(
        data_dir: Path) -> None:
    """A simulated camera holds what the calibration gives it, as the real one it stands in for: a map
    whose calibration keeps nothing for the seat (no file, a refused file, a file without the seat)
    puts the camera back on automatic instead of leaving it on the previous map's focus and exposure."""
    from kipukas_board.settings import AdapterChoice

    eight, twelve, thirteen = load_map("kipuka-8"), load_map("kipuka-12"), load_map("kipuka-13")
    files.save(map_calibration_path("default", data_dir, eight), files.Calibration(
        board=eight.name, cameras={1: {"test_scan": True, "focus": 4.5, "exposure_us": 8000}}), eight)
    other_seat = map_calibration_path("default", data_dir, thirteen)
    files.save(other_seat, files.Calibration(board=thirteen.name, cameras={2: {"test_scan": True, "focus": 3.0}}),
               thirteen)
    board = BoardApp(Settings(cameras=[AdapterChoice("sim", {"seat": 1, "stands_in_for": "picamera2"})]),
                     data_dir, sim=True, admin_pin="2468")
    (cam,) = board.cameras
    board.start()
    try:
        assert cam.health()["controls"] == {"focus": 4.5, "exposure_us": 8000}
        board.pick_map("kipuka-12")  # no file yet
        assert cam.controls == {} and "controls" not in cam.health()
        board.pick_map("kipuka-8")
        assert cam.controls == {"focus": 4.5, "exposure_us": 8000}
        board.pick_map("kipuka-13")  # a file that keeps a focus for seat 2 only
        assert cam.controls == {} and board.health()["calibration"]["calibrated"] is True
        board.pick_map("kipuka-8")
        own = map_calibration_path("default", data_dir, twelve)
        own.write_text(f'board = "{twelve.name}"\n[[cameras]]\nseat = 1\nfocus = 99\n')
        board.pick_map("kipuka-12")  # refused: none of it, and nothing of kipuka-8's either
        assert board.health()["calibration"]["refused"].startswith("[[cameras]] #1 (seat 1): focus = 99")
        assert cam.controls == {}
    finally:
        board.stop()


def _tap(url: str, path: str, tap: str, body: object) -> tuple[int, dict[str, Any]]:
    """``body`` POSTed over real HTTP with the PIN and ``tap`` as its X-Tap, as the page sends a tap:
    the status and JSON of the answer."""
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "X-Admin-Pin": PIN, "X-Tap": tap})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_pick_the_busy_core_does_late_still_keeps_the_map_rereads_the_switches_and_drops_redo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The core loop is busy (the journal's write of the map event is held): the pick is answered
    "still under way" (503) and done in its turn. What the pick does after its event must still be
    done, once: map-choice.json written (a restart comes back on the picked map), the switches read
    again through the new map, redo's offer dropped. The phone's repeat, answered once it is all
    done, finds it so."""
    from kipukas_board import app as app_module
    from kipukas_board.web import redo, submit, taps

    with serve_board(tmp_path, map_name="kipuka-8") as srv:
        board = srv.board
        post_action(srv.url, "/api/actions/new-game", {"players": PLAYERS, "first_placer": 1})
        post_action(srv.url, "/api/actions/undo", {"confirm": "new_game"})
        assert board.journal.note(redo.NOTE), "undo offers the new game for redo"
        monkeypatch.setattr(submit, "WAIT_S", 0.3)  # the action's wait for the core (the board's own: submit.WAIT_S)
        monkeypatch.setattr(taps, "WAIT_S", 0.3)  # a repeat's wait for the first sending
        before = board.journal.last_seq()
        gate = threading.Event()
        real_append = board.journal.append

        def held_append(event, tap=None):  # type: ignore[no-untyped-def]
            if event.get("type") == "map":
                gate.wait(30)
            return real_append(event, tap=tap)

        rereads: list[int] = []
        real_reconcile = board._reconcile
        monkeypatch.setattr(board, "_reconcile", lambda: (rereads.append(1), real_reconcile())[1])
        writes: list[str] = []
        monkeypatch.setattr(app_module, "write_choice", lambda d, name: (writes.append(name),
                                                                         map_choice.write_choice(d, name))[1])
        monkeypatch.setattr(board.journal, "append", held_append)
        status, doc = _tap(srv.url, "/api/actions/map", "late-pick", {"map": "kipuka-12"})
        assert status == 503 and "still under way" in doc["error"], (status, doc)
        assert read_choice(tmp_path) is None and not rereads

        monkeypatch.setattr(taps, "WAIT_S", 10.0)
        threading.Timer(0.3, gate.set).start()  # the core gets to it while the repeat waits
        status, doc = _tap(srv.url, "/api/actions/map", "late-pick", {"map": "kipuka-12"})
        assert status == 200 and doc["ok"], (status, doc)
        assert doc["map"] == {"key": "kipuka-12", "name": "Kipuka of Twelve"}, doc
        maps = [seq for seq, e in board.journal.events() if seq > before and e["type"] == "map"]
        assert len(maps) == 1 and doc["seq"] == maps[0], "the map was picked once, and the answer says where"
        assert read_choice(tmp_path) == "kipuka-12", "the late pick was not kept for a restart"
        assert writes == ["kipuka-12"] and rereads == [1], "what follows the pick was not done exactly once"
        assert board.journal.note(redo.NOTE) is None, "redo still offers the new game undone on the old map"
        assert _tap(srv.url, "/api/actions/map", "late-pick", {"map": "kipuka-12"}) == (status, doc)
        assert writes == ["kipuka-12"] and rereads == [1]
    with serve_board(tmp_path, map_name="kipuka-8") as srv:  # the settings still say kipuka-8
        assert srv.board.loop.state.board.name == "Kipuka of Twelve"
