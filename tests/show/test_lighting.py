"""What the territory LEDs show for given states, the power cap, the calibrated layout, the thread."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from waiting import wait_for

from kipukas_board import modes
from kipukas_board.app import BoardApp
from kipukas_board.bench.lighting import bench_layout
from kipukas_board.board.mapfile import load_map
from kipukas_board.calibrate.files import SUMMARY_CHARS, CalibrationError, load, read_saved
from kipukas_board.hardware.leds.simulated import SimulatedLedStrip
from kipukas_board.modes.kipukas import lights as L
from kipukas_board.modes.kipukas.lights import render
from kipukas_board.modes.kipukas.on_table import on_table
from kipukas_board.modes.kipukas.rules.state import KipukasState, Player, StandState, TerritoryState, initial_state
from kipukas_board.settings import Settings
from kipukas_board.show.colors import blend, scale
from kipukas_board.show.layout import LedLayout, default_layout, with_strip_settings
from kipukas_board.show.lighting import Lighting, Scene
from kipukas_board.show.power import OutputStage
from kipukas_board.web.server import create_app

RED, BLUE, GREEN = (255, 0, 0), (0, 0, 255), (0, 200, 0)
PLAYERS = (Player(1, "Ann", "#ff0000"), Player(2, "Bob", "#0000ff"), Player(3, "Cy", "#00c800"))


@pytest.fixture(scope="module")
def board():
    return load_map("kipuka-8")


def game(board, phase: str | None = "day", **changes) -> KipukasState:
    """Seat 1 holds T1 (capital) and T3; seat 2 holds T2; the rest unclaimed. M1a holds seat 1's soul."""
    s = initial_state(board)
    terr = dict(s.territories)
    terr[1] = TerritoryState(owner=1, claim="capital")
    terr[2] = TerritoryState(owner=2, claim="base_camp")
    terr[3] = TerritoryState(owner=1, claim="base_camp")
    stands = dict(s.stands)
    stands["T1"] = StandState(True, 1)
    stands["T2"] = StandState(True, 2)
    stands["M1a"] = StandState(True, 1)
    return s.evolve(players=PLAYERS, territories=terr, stands=stands, phase="play", diel_phase=phase).evolve(
        **changes)


def px(frame, layout: LedLayout, what):
    idx = layout.territories[what] if isinstance(what, int) else layout.stands[what]
    return [frame[i] for i in idx]


def test_held_territories_show_their_holders_colour_and_capital_differs(board) -> None:
    lay = default_layout(board)
    f = render(game(board), lay, 0.0)
    assert px(f, lay, 2) == [BLUE, BLUE, BLUE]
    assert px(f, lay, 3) == [RED, RED, RED]
    cap = px(f, lay, 1)
    assert cap[0] == cap[2] == RED and cap[1] == blend(RED, (255, 255, 255), 0.5)
    assert px(f, lay, 4) == [L.UNCLAIMED_DAY] * 3  # unclaimed: dim warm by day
    assert px(f, lay, "M1a") == [RED] and px(f, lay, "M1b") == [(0, 0, 0)]


def test_night_dims_holders_and_cools_the_unclaimed(board) -> None:
    lay = default_layout(board)
    for t in (0.0, 1.5, 3.0):
        f = render(game(board, "night"), lay, t)
        assert px(f, lay, 2) == [scale(BLUE, L.NIGHT_LEVEL)] * 3
        r, g, b = px(f, lay, 5)[0]
        assert b > r and b > g, "unclaimed territories glow cool at night"
    # the night ambient breathes
    assert render(game(board, "night"), lay, 0.0) != render(game(board, "night"), lay, L.NIGHT_BREATH_S / 2)


def test_contention_cycles_between_the_contenders(board) -> None:
    lay = default_layout(board)
    terr = dict(game(board).territories)
    terr[2] = TerritoryState(owner=2, claim="base_camp", contention=True)
    s = game(board, territories=terr, contenders={2: (2, 3)})
    P = L.CONTENTION_PERIOD
    assert px(render(s, lay, 0.0), lay, 2) == [BLUE] * 3
    assert px(render(s, lay, P), lay, 2) == [GREEN] * 3
    assert px(render(s, lay, 2 * P), lay, 2) == [BLUE] * 3
    mid = px(render(s, lay, P / 2), lay, 2)[0]
    assert mid not in (BLUE, GREEN) and mid[1] > 0 and mid[2] > 0
    assert px(render(s, lay, P / 2), lay, 3) == [RED] * 3  # others steady


def test_storm_lightning_then_exposed_stands_pulse(board) -> None:
    lay = default_layout(board)
    s = game(board, "storm", storm_exposed=("M1a",))
    scene = Scene(storm_at=100.0)
    assert set(render(s, lay, 100.01, scene)) == {(255, 255, 255)}  # a flash
    assert set(render(s, lay, 100.1, scene)) == {L.LIGHTNING_DARK}  # between flashes
    # after the lightning the exposed stand pulses between dark and its token's colour
    t0 = 100.0 + 2 * L.EXPOSED_PERIOD  # wave at 0
    assert px(render(s, lay, t0, scene), lay, "M1a") == [(0, 0, 0)]
    assert px(render(s, lay, t0 + L.EXPOSED_PERIOD / 2, scene), lay, "M1a") == [RED]
    # unexposed stands and held territories stay steady
    for t in (t0, t0 + L.EXPOSED_PERIOD / 2):
        f = render(s, lay, t, scene)
        assert px(f, lay, "T2") == [BLUE] and px(f, lay, 2) == [BLUE] * 3
        assert px(f, lay, 6) == [L.UNCLAIMED_STORM] * 3


def test_storm_exposure_without_stand_pixels_pulses_the_territory(board) -> None:
    lay = LedLayout(territories=default_layout(board).territories)  # no stand pixels
    s = game(board, "storm", storm_exposed=("M1a",))
    assert px(render(s, lay, 0.0), lay, 1)[0] == (0, 0, 0)
    assert px(render(s, lay, L.EXPOSED_PERIOD / 2), lay, 1)[0] == RED
    assert px(render(s, lay, 0.0), lay, 2) == [BLUE] * 3


def test_win_show_then_the_winners_colour_everywhere(board) -> None:
    lay = default_layout(board)
    s = game(board, winner=2, phase="over")
    show = render(s, lay, 1.0, Scene(won_at=0.0))
    assert set(show) <= {BLUE, (255, 255, 255), scale(BLUE, 0.2)} and BLUE in show
    assert show != render(s, lay, 1.5, Scene(won_at=0.0))  # it moves
    after = render(s, lay, L.WIN_SHOW_S + 1, Scene(won_at=0.0))
    for n in lay.territories:
        assert px(after, lay, n) == [BLUE] * 3


def test_fault_pixels_blink_red(board) -> None:
    lay = default_layout(board)
    fp = lay.faults()[0]
    assert render(game(board), lay, 0.2, Scene(fault=True))[fp] == L.FAULT
    assert render(game(board), lay, 0.7, Scene(fault=True))[fp] == (0, 0, 0)
    assert render(game(board), lay, 0.2)[fp] != L.FAULT


def test_reachable_stands_of_a_scanned_soul_blink(board) -> None:
    lay = default_layout(board)
    now = [50.0]
    lighting = Lighting(SimulatedLedStrip(count=lay.count), lay, clock=lambda: now[0],
                        game=modes)
    lighting.update(on_table(game(board)), [{"type": "reachable", "from": "M1a", "moves": 1, "seat": 2, "seconds": 5}])
    f = lighting.frame()
    from kipukas_board.board.graph import reachable
    near = [s for s, d in reachable(board, "M1a", 1).items() if d == 1]
    assert near and all(px(f, lay, s) == [BLUE] for s in near)
    now[0] = 50.0 + L.REACHABLE_PERIOD * 0.75  # blinks off
    lighting.update(on_table(game(board)))
    assert all(px(lighting.frame(), lay, s) == [(0, 0, 0)] for s in near if not game(board).stands[s].occupied)
    now[0] = 56.0  # expired
    lighting.update(on_table(game(board)))
    assert px(lighting.frame(), lay, near[0]) == px(render(game(board), lay, 56.0), lay, near[0])


# -- power -------------------------------------------------------------------------------------


def test_all_white_frame_stays_under_the_power_cap() -> None:
    stage = OutputStage(gamma=1.0, brightness=1.0, budget_ma=2500, ma_per_channel=20, idle_ma=1)
    white = [(255, 255, 255)] * 300
    assert stage.estimate_ma(white) == pytest.approx(300 * 61)
    out = stage.apply(white)
    assert stage.estimate_ma(out) <= 2500
    assert stage.estimate_ma(out) > 2500 * 0.95, "the cap scales down, it does not black out"
    assert len({p for p in out}) == 1 and out[0][0] == out[0][1] == out[0][2]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)), min_size=1, max_size=300),
       st.floats(100, 20000), st.floats(0.0, 1.0), st.floats(1.0, 3.0))
def test_power_cap_holds_for_any_frame(frame, budget, brightness, gamma) -> None:
    stage = OutputStage(gamma=gamma, brightness=brightness, budget_ma=budget)
    out = stage.apply(frame)
    if len(frame) * stage.idle_ma <= budget:
        assert stage.estimate_ma(out) <= budget + 1e-9
    assert all(0 <= c <= 255 for p in out for c in p)
    # never brighter than asked, channel by channel
    assert all(o <= round(255 * (i / 255) ** gamma * brightness) for p, q in zip(frame, out, strict=True)
               for i, o in zip(p, q, strict=True))


def test_gamma_and_brightness() -> None:
    stage = OutputStage(gamma=2.2, brightness=0.5, budget_ma=1e6)
    assert stage.apply([(255, 128, 0)]) == [(128, round(255 * (128 / 255) ** 2.2 * 0.5), 0)]


# -- layout from calibration ------------------------------------------------------------------


def test_layout_from_calibration(tmp_path: Path, board) -> None:
    cal = tmp_path / "myboard.toml"
    terr = "\n".join(f'{n} = "{(n - 1) * 4}-{(n - 1) * 4 + 3}"' for n in sorted(board.territories))
    cal.write_text(f"""
board = "{board.name}"

[sensors.channels]   # other sections belong to other parts of the calibration
"r0c0" = "T1"

[leds]
count = 40
order = "rgb"
gamma = 1.8
brightness = 0.3
power_budget_ma = 1200
fault_pixels = [39]

[leds.territories]
{terr}

[leds.stands]
T1 = [32]
M1a = 33
""")
    lay = read_saved(cal, board).led_layout(board)
    assert lay.order == "RGB" and lay.count == 40 and lay.territories[2] == [4, 5, 6, 7]
    assert lay.stands == {"T1": [32], "M1a": [33]} and lay.faults() == [39]
    stage = lay.output_stage()
    assert stage.budget_ma == 1200 and stage.brightness == 0.3 and stage.gamma == 1.8
    assert read_saved(tmp_path / "absent.toml", board).led_layout(board) == default_layout(board)


def test_layout_mistakes_are_all_named(tmp_path: Path, board) -> None:
    cal = tmp_path / "bad.toml"
    cal.write_text(f"""
board = "{board.name}"
[leds]
order = "GRBW"
brightness = 1.5
[leds.territories]
1 = [0, 1]
2 = [1, 2]
99 = [5]
3 = "a-b"
[leds.stands]
X9 = [7]
""")
    with pytest.raises(CalibrationError) as err:
        load(cal, board)
    msg = str(err.value)
    assert str(cal) in msg
    for needle in ("order = 'GRBW'", "brightness = 1.5", "pixel 1 is given to both territory 1 and territory 2",
                   "no territory '99'", "territories.3 = 'a-b'", "have no pixels", "no stand 'X9'"):
        assert needle in msg, needle
    short = read_saved(cal, board).summary  # the page's map note: the first problem and how many more
    assert short == f"{err.value.problems[0]} (and {len(err.value.problems) - 1} more)"
    assert str(cal) not in short


def test_a_refused_files_summary_stays_a_line(tmp_path: Path, board) -> None:
    """A problem may quote what the file holds (a whole table): the short reason is cut, and says so."""
    cal = tmp_path / "long.toml"
    many = ", ".join(f'"r{i}c0"' for i in range(200))
    cal.write_text(f'board = "{board.name}"\n[sensors]\nchannels = [{many}]\n')
    saved = read_saved(cal, board)
    assert len(saved.problem) > 1000 and "[sensors.channels] must map channel names" in saved.summary
    assert len(saved.summary) == SUMMARY_CHARS and saved.summary.endswith("…")
    assert read_saved(tmp_path / "absent.toml", board).summary is None


def _one_pixel_each(board, head: str = "") -> str:
    """A calibration file lighting each territory by one pixel in blue-green-red order (``head``: its
    top lines, ``board = ...`` and the rest)."""
    terr = "\n".join(f"{n} = [{n - 1}]" for n in sorted(board.territories))
    return f'{head}\n[leds]\norder = "BGR"\n[leds.territories]\n{terr}\n'


def test_board_app_uses_the_calibration_layout(tmp_path: Path, board) -> None:
    cal = tmp_path / "cal.toml"
    cal.write_text(_one_pixel_each(board, f'board = "{board.name}"\n[sensors.channels]\n"r0c0" = "T1"'))
    app = BoardApp(Settings(calibration=str(cal)), tmp_path / "data", sim=True, admin_pin="1234")
    try:
        assert app.layout.count == len(board.territories) and app.layout.order == "BGR"
        assert app.layout.source == str(cal) and app.strip.count == app.layout.count
        assert app.channel_map == {"r0c0": "T1"}  # the same reading gave the sensors their stands
        health = app.health()["calibration"]
        assert health["calibrated"] is True and health["error"] is None and health["refused"] is None
    finally:
        app.stop()


# A calibration file the loader refuses, for each kind of mistake, with an [leds] that is fine itself.
REFUSED = {
    "no board": ("", "board is missing: expected the name of the map the file was made on"),
    "another map": ('board = "Kipuka of Twelve"', "made on map 'Kipuka of Twelve'"),
    "bad focus": ('board = "{name}"\n[[cameras]]\nseat = 1\nfocus = 99', "focus"),
    "bad channels": ('board = "{name}"\n[sensors.channels]\n"r0c0" = "T99"', "the map has no stand 'T99'"),
}


@pytest.mark.parametrize("mistake", sorted(REFUSED))
def test_a_refused_calibration_file_lights_the_default_layout_and_says_why(tmp_path: Path, board,
                                                                           mistake: str) -> None:
    """A file the loader refuses is applied in nothing, its [leds] included: the LEDs light the
    default layout, and the page's health names the file and what is wrong with it."""
    head, why = REFUSED[mistake]
    cal = tmp_path / "cal.toml"
    cal.write_text(_one_pixel_each(board, head.format(name=board.name)))
    settings = Settings(calibration=str(cal))
    app = BoardApp(settings, tmp_path / "data", sim=True, admin_pin="1234")
    try:
        assert app.layout == with_strip_settings(default_layout(board), app.settings)
        assert app.layout.order == "GRB" and app.strip.count == default_layout(board).count
        assert app.channel_map is None
        health = app.health()["calibration"]
        assert health["calibrated"] is False and health["ok"] is False
        assert str(cal) in health["error"] and why in health["error"], health["error"]
        assert "was not applied" in health["note"] and "default layout" in health["note"]
        # the page's map note has a line: the same reason, without the file's path
        assert why in health["refused"] and str(cal) not in health["refused"], health["refused"]
        assert health["error"].startswith(f"{cal}: " + health["refused"].split(" (and ")[0])  # its first problem
        assert app.calibration.status()["problem"] == health["error"]
    finally:
        app.stop()


def test_a_layout_past_the_settings_strip_lights_the_default_and_says_why(tmp_path: Path, board) -> None:
    """An accepted file whose segments lie past the settings' [leds] count: the board starts on the
    default layout (cut to the strip) with the reason in its health, and keeps the file's channels."""
    cal = tmp_path / "cal.toml"
    cal.write_text(_one_pixel_each(board, f'board = "{board.name}"\n[sensors.channels]\n"r0c0" = "T1"')
                   .replace(f"{max(board.territories)} = [{max(board.territories) - 1}]",
                            f"{max(board.territories)} = [50]"))
    app = BoardApp(replace(Settings(calibration=str(cal)), led_count=20), tmp_path / "data", sim=True,
                   admin_pin="1234")
    try:
        assert app.layout.source == "default" and app.strip.count == 20
        assert app.channel_map == {"r0c0": "T1"}
        error = app.health()["calibration"]["error"]
        assert "LED layout not applied" in error and "pixel 50 is past the end of the strip" in error
        assert str(cal) in error
    finally:
        app.stop()


# -- the thread and /api/leds -----------------------------------------------------------------


def test_thread_animates_only_while_something_moves(board) -> None:
    lay = default_layout(board)
    strip = SimulatedLedStrip(count=lay.count)
    lighting = Lighting(strip, lay,
                        game=modes)
    lighting.start(on_table(game(board)))
    try:
        assert wait_for(lambda: strip.frames_shown >= 1)
        time.sleep(0.3)
        steady = strip.frames_shown
        time.sleep(0.3)
        assert strip.frames_shown == steady, "a steady day frame is sent once, not repeated"
        terr = dict(game(board).territories)
        terr[2] = TerritoryState(owner=2, claim="base_camp", contention=True)
        lighting.update(on_table(game(board, territories=terr, contenders={2: (2, 3)})))
        assert wait_for(lambda: strip.frames_shown >= steady + 5), "contention animates"
        lighting.update(on_table(game(board)))
        time.sleep(0.2)
        calm = strip.frames_shown
        time.sleep(0.3)
        assert strip.frames_shown == calm
        assert lighting.health()["estimated_ma"] > 0
    finally:
        lighting.stop()


def test_fault_indicator_follows_the_health_callback(board) -> None:
    lay = default_layout(board)
    strip = SimulatedLedStrip(count=lay.count)
    ok = [True]
    lighting = Lighting(strip, lay, healthy=lambda: ok[0],
                        game=modes)
    lighting.start(on_table(game(board)))
    try:
        ok[0] = False
        assert wait_for(lambda: lighting.health()["fault_shown"], 3.0)
        fp = lay.faults()[0]
        assert wait_for(lambda: strip.pixels()[fp][0] > 0 and strip.pixels()[fp][1:] == (0, 0), 2.0)
        ok[0] = True
        assert wait_for(lambda: not lighting.health()["fault_shown"], 3.0)
    finally:
        lighting.stop()


def test_white_board_on_300_leds_stays_under_the_cap() -> None:
    big, lay = bench_layout(300)
    s = initial_state(big)
    s = s.evolve(players=(Player(1, "Snow", "#ffffff"),),
                 territories={n: TerritoryState(owner=1, claim="base_camp") for n in s.territories},
                 stands={sid: StandState(True, 1) for sid in s.stands}, diel_phase="day")
    lay.brightness = 1.0
    lay.gamma = 1.0
    strip = SimulatedLedStrip(count=lay.count)
    lighting = Lighting(strip, lay,
                        game=modes)
    lighting.start(on_table(s))
    try:
        assert wait_for(lambda: strip.frames_shown >= 1)
        assert set(lighting.frame()) == {(255, 255, 255)}
        assert lighting.stage.estimate_ma(strip.pixels()) <= lay.power_budget_ma
        assert lighting.health()["power_scale"] < 0.2
    finally:
        lighting.stop()


def test_set_layout_swaps_the_whole_layout_and_its_output_stage(board) -> None:
    """A calibration save hands the lights a new layout object (the old one is never edited under the
    lighting thread); the frame follows it at once, and a layout that does not fill the strip is refused."""
    lay = default_layout(board)
    lighting = Lighting(SimulatedLedStrip(count=lay.count), lay, clock=lambda: 0.0,
                        game=modes)
    lighting.update(on_table(game(board)))
    assert px(lighting.frame(), lay, 2) == [BLUE] * 3
    shrunk = replace(lay, territories={**lay.territories, 2: lay.territories[2][:2]}, brightness=0.2,
                     length=lay.count)  # territory 2 lost a pixel; the strip is as long as ever
    lighting.set_layout(shrunk)
    assert lighting.layout is shrunk and lighting.stage.brightness == 0.2
    frame = lighting.frame()
    assert len(frame) == lay.count and px(frame, shrunk, 2) == [BLUE] * 2 and frame[lay.territories[2][2]] == L.OFF
    assert lay.territories[2] == [3, 4, 5]  # the old layout was not touched
    short = replace(shrunk, stands={}, length=0)  # counts only up to its last territory pixel
    with pytest.raises(ValueError, match=f"the strip has {lay.count}"):
        lighting.set_layout(short)
    assert lighting.layout is shrunk


def test_api_leds_shows_each_territorys_holder(tmp_path: Path, board) -> None:
    app = BoardApp(Settings(), tmp_path / "data", sim=True, admin_pin="1234")
    try:
        app.lighting = Lighting(app.strip, app.layout, clock=lambda: 0.0,
                        game=modes)
        terr = dict(game(board).territories)
        terr[3] = TerritoryState(owner=1, claim="base_camp", contention=True)
        app.lighting.update(on_table(game(board, territories=terr, contenders={3: (1, 2)})))
        doc = create_app(app).test_client().get("/api/leds").get_json()
        pixels = [tuple(p) for p in doc["pixels"]]
        layout = {int(k): v for k, v in doc["layout"]["territories"].items()}
        assert [pixels[i] for i in layout[2]] == [BLUE] * 3
        assert [pixels[i] for i in layout[1]][0::2] == [RED, RED]  # capital: holder's colour, crowned
        assert [pixels[i] for i in layout[3]] == [RED] * 3  # contention at t=0: first contender
        assert [pixels[i] for i in layout[5]] == [L.UNCLAIMED_DAY] * 3
        assert [pixels[i] for i in doc["layout"]["stands"]["T2"]] == [BLUE]
        assert app.lights_json()["territories"]["2"] == "#0000ff"
    finally:
        app.stop()


def test_reads_the_rules_cores_contenders_and_storm_fields(board) -> None:
    """KipukasState.contenders and .storm_exposed are the rules core's word; the renderer reads them first."""
    lay = default_layout(board)
    terr = dict(game(board).territories)
    terr[2] = TerritoryState(owner=2, claim="base_camp", contention=True)
    s = game(board, "storm", territories=terr)
    object.__setattr__(s, "contenders", {2: (3, 2)})
    object.__setattr__(s, "storm_exposed", ("M1a",))
    f = render(s, lay, 4 * L.CONTENTION_PERIOD)  # 4.8 s: first contender, and the pulse is dark
    assert px(f, lay, 2) == [GREEN] * 3 and px(f, lay, "M1a") == [(0, 0, 0)]


def test_effects_start_the_timed_shows(board) -> None:
    lay = default_layout(board)
    now = [10.0]
    lighting = Lighting(SimulatedLedStrip(count=lay.count), lay, clock=lambda: now[0],
                        game=modes)
    lighting.update(on_table(game(board, "storm")),
                    [{"type": "diel", "cycle": 5, "phase": "storm", "roll": 6, "fixed": False},
                     {"type": "storm", "cycle": 5, "exposed": ["M1a"], "wasted": []}])
    assert set(lighting.frame()) == {(255, 255, 255)}, "lightning starts with the storm"
    now[0] = 10.0 + L.LIGHTNING_S + 2 * L.EXPOSED_PERIOD
    lighting.update(on_table(game(board, "storm")))
    assert px(lighting.frame(), lay, "M1a") == [(0, 0, 0)], "the storm effect's exposed stands pulse"
    lighting.update(on_table(game(board, winner=1, phase="over")),
                    [{"type": "won", "winner": 1, "play_style": "domination"}])
    assert scale(RED, 0.2) in lighting.frame(), "the win show starts"


def test_a_territory_stand_waiting_for_the_fights_winner_pulses_in_the_winners_colour(board) -> None:
    """Seat 1 won the fight over seat 2's T2: T2's stand pulses between seat 2's token and seat 1's colour
    until a soul steps on; without pixels of its own, the territory's segment does."""
    lay = default_layout(board)
    terr = dict(game(board).territories)
    terr[2] = replace(terr[2], taker=1)
    s = game(board, territories=terr)
    stands = dict(s.stands)
    stands["T2"] = StandState(occupied=True, owner=2)
    s = s.evolve(stands=stands)
    half = L.EXPOSED_PERIOD / 2
    assert px(render(s, lay, 0.0), lay, "T2") == [BLUE]
    assert px(render(s, lay, half), lay, "T2") == [RED]
    assert L.animating(s, Scene(), 0.0)
    no_stand_pixels = LedLayout(lay.territories, {sid: px_ for sid, px_ in lay.stands.items() if sid != "T2"})
    assert px(render(s, no_stand_pixels, half), no_stand_pixels, 2) == [RED] * 3
    assert px(render(s, no_stand_pixels, 0.0), no_stand_pixels, 2) == [BLUE] * 3
