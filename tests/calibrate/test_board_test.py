"""Board test mode: each stand lights its own LED while a token sits on it (pure core, the running
board's API, and the command)."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st
from waiting import wait_for

from kipukas_board.app import BoardApp
from kipukas_board.board.mapfile import load_map
from kipukas_board.calibrate.board_test import LIT, BoardTest
from kipukas_board.settings import Settings
from kipukas_board.show.layout import default_layout

BOARD = load_map("kipuka-8")
STANDS = list(BOARD.stands)
LAYOUT = default_layout(BOARD)
TERRITORY_OF = {sid: s.territory for sid, s in BOARD.stands.items()}


def _test(channel_map=None, stand_pixels=None, cols=8) -> BoardTest:
    return BoardTest(STANDS, LAYOUT.stands if stand_pixels is None else stand_pixels, LAYOUT.territories,
                     TERRITORY_OF, LAYOUT.count, channel_map, cols)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(STANDS), st.booleans()), max_size=40))
def test_exactly_the_stands_with_a_token_are_lit(moves) -> None:
    t = _test()
    on: set[str] = set()
    for sid, closed in moves:
        t.set(sid, closed)
        (on.add if closed else on.discard)(sid)
    lit = {i for i, px in enumerate(t.frame()) if px == LIT}
    assert lit == {i for sid in on for i in LAYOUT.stands[sid]}
    assert all(px in ((0, 0, 0), LIT) for px in t.frame())
    assert t.status()["stands"] == sorted(on)


def test_matrix_channels_before_calibration_are_stands_in_map_order() -> None:
    t = _test(cols=6)
    assert t.set("r0c0", True)["stand"] == STANDS[0]
    assert t.set("r1c2", True)["stand"] == STANDS[8]
    assert t.set("r7c7", True)["stand"] is None  # past the map's stands (and the columns)
    assert t.status()["unmapped"] == ["r7c7"] and "map order (6 columns)" in t.mapping
    assert {i for i, px in enumerate(t.frame()) if px == LIT} == {*LAYOUT.stands[STANDS[0]], *LAYOUT.stands[STANDS[8]]}


def test_the_calibrations_channel_map_wins_and_a_stand_without_a_pixel_lights_its_territory() -> None:
    t = _test(channel_map={"r5c5": "T2"}, stand_pixels={})
    assert t.set("r0c0", True)["stand"] is None  # not in the calibration: no stand
    got = t.set("r5c5", True)
    assert got["stand"] == "T2" and got["pixels"] == LAYOUT.territories[BOARD.stands["T2"].territory]
    assert t.mapping == "calibration"


def test_board_test_through_the_api_keeps_tokens_from_the_game_and_resyncs_after(data_dir) -> None:
    from web_helpers import PIN

    from kipukas_board.web.server import create_app

    board = BoardApp(Settings(), data_dir, sim=True, admin_pin=PIN)
    board.start()
    try:
        c = create_app(board).test_client()
        h = {"X-Admin-Pin": PIN}
        assert c.get("/api/board-test").json == {"on": False}
        assert c.post("/api/board-test", json={"on": True}).status_code == 401
        assert c.post("/api/board-test", json={"on": "yes"}, headers=h).status_code == 400
        r = c.post("/api/board-test", json={"on": True}, headers=h)
        assert r.status_code == 200 and r.json["on"] is True and r.json["closed"] == []
        board.sim_set_stand("T1", True)
        px = LAYOUT.stands["T1"][0]
        assert wait_for(lambda: board.strip.pixels()[px] != (0, 0, 0))
        lit = [i for i, p in enumerate(board.strip.pixels()) if p != (0, 0, 0)]
        assert lit == [px] and board.strip.pixels()[px][0] == 0 == board.strip.pixels()[px][2]  # green only
        assert c.get("/api/board-test").json["stands"] == ["T1"]
        assert board.loop.state.switches["T1"] is False  # the test's token never reached the game
        r = c.post("/api/board-test", json={"on": False}, headers=h)
        assert r.json == {"on": False}
        assert wait_for(lambda: board.loop.state.switches["T1"])  # resynced: the token is still there
        board.calibration.sensors_start()
        r = c.post("/api/board-test", json={"on": True}, headers=h)
        assert r.status_code == 409 and "sensor walk" in r.json["error"]
    finally:
        board.stop()


def test_the_board_test_command_lights_each_stand_under_a_token(tmp_path, monkeypatch, capsys) -> None:
    import json
    import threading

    from kipukas_board.cli import main
    from kipukas_board.commands import sensors as sensors_cmd

    built: dict[str, object] = {}
    real = sensors_cmd.build

    def build(port, name, **opts):
        built[port] = real(port, name, **opts)
        return built[port]

    monkeypatch.setattr(sensors_cmd, "build", build)
    s = tmp_path / "settings.toml"
    s.write_text('[leds]\ncount = 60\n')

    def player() -> None:
        assert wait_for(lambda: "sensors" in built and "leds" in built)
        time.sleep(0.2)
        built["sensors"].set("T2", True)
        time.sleep(0.1)
        frames.append(built["leds"].pixels())
        built["sensors"].set("T2", False)

    frames: list = []
    t = threading.Thread(target=player)
    t.start()
    assert main(["board-test", "--sim", "--settings", str(s), "--data-dir", str(tmp_path), "--seconds", "0.8",
                 "--json"]) == 0
    t.join()
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[0]["stand"] == "T2" and lines[0]["closed"] is True and lines[1]["closed"] is False
    assert [i for i, p in enumerate(frames[0]) if p != (0, 0, 0)] == LAYOUT.stands["T2"]
    assert lines[-1]["stands_lit"] == 1 and "T1" in lines[-1]["never_lit"]


def test_the_board_test_command_refuses_simulated_hardware_unless_asked(tmp_path, capsys) -> None:
    from kipukas_board.cli import main

    s = tmp_path / "settings.toml"
    s.write_text('[leds]\nadapter = "spi"\n')
    assert main(["board-test", "--settings", str(s), "--data-dir", str(tmp_path), "--seconds", "0.1"]) == 2
    err = capsys.readouterr().err
    assert '[sensors] adapter = "sim"' in err and "[leds]" not in err.split("adapter")[0]
