"""The calibration walk-through: the pure walks, the file, and a walk on a running simulated board."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from waiting import wait_for

from kipukas_board.app import BoardApp
from kipukas_board.board.mapfile import load_map
from kipukas_board.calibrate import files
from kipukas_board.calibrate.files import Calibration, CalibrationError
from kipukas_board.calibrate.led_walk import LedWalk
from kipukas_board.calibrate.sensor_walk import SensorWalk
from kipukas_board.calibrate.session import NeedsConfirmation
from kipukas_board.hardware.sensors.port import SwitchChange
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.settings import Settings

STANDS = [f"S{i}" for i in range(12)]


@given(st.permutations(range(40)), st.sets(st.sampled_from(STANDS), max_size=4),
       st.sets(st.integers(40, 45), max_size=2), st.dictionaries(st.sampled_from(STANDS), st.integers(0, 39)))
def test_sensor_walk_recovers_any_wiring(perm, dead, stuck_cells, noise):
    """Whatever the wiring, and whatever other channel blips while a token is down, every stand gets
    its own channel and no healthy channel is called a duplicate."""
    wiring = {sid: f"c{perm[i]}" for i, sid in enumerate(STANDS)}
    stuck = {f"c{n}": True for n in stuck_cells}
    walk = SensorWalk(STANDS, closed_at_start=stuck)
    for sid in STANDS:
        assert walk.current == sid and walk.step == "place"
        if sid in dead:
            walk.skip()
            continue
        walk.on_change(wiring[sid], True)
        assert walk.step == "lift"
        blip = f"c{perm[noise[sid]]}" if sid in noise else wiring[sid]
        if blip != wiring[sid]:  # a hand brushes another stand's token (or a reed chatters)
            walk.on_change(blip, True)
            walk.on_change(blip, False)
        walk.on_change(wiring[sid], False)
    assert walk.done
    assert walk.channels == {wiring[s]: s for s in STANDS if s not in dead}
    assert sorted(walk.dead) == sorted(dead)
    assert walk.stuck == sorted(stuck) and walk.duplicate == []


def test_sensor_walk_flags_real_duplicates_and_stuck_that_recover():
    walk = SensorWalk(["A", "B", "C"], closed_at_start={"x": True})
    walk.on_change("a", True)          # A's channel
    walk.on_change("a2", True)         # a second channel closes with A's token ...
    walk.on_change("a", False)         # ... and is still closed when the token is lifted
    walk.on_change("a2", False)
    assert walk.current == "B" and walk.duplicate == []  # not yet: it could be B's token put down early
    walk.on_change("a", True)          # A's channel answers for B: crossed wires ...
    walk.on_change("a", False)
    walk.skip()                        # ... and nothing else does
    assert walk.dead == ["B"] and walk.duplicate == ["a"]
    walk.on_change("c", True)          # C has a channel of its own: a2 was A's second reed
    assert walk.duplicate == ["a", "a2"]
    walk.on_change("x", False)         # the stuck one opens: no longer stuck
    assert walk.stuck == []
    walk.back()
    assert walk.current == "C" and walk.channel_of("C") is None


def test_sensor_walk_forgets_noise_and_an_early_token():
    walk = SensorWalk(["A", "B", "C"])
    walk.on_change("a", True)
    walk.on_change("n", True)          # chatter while A's token is down
    walk.on_change("n", False)
    walk.on_change("a", False)
    walk.on_change("b", True)
    walk.on_change("a", True)          # a hand brushes A's token while B's is down
    walk.on_change("a", False)
    walk.on_change("c", True)          # C's token put down before B's is lifted ...
    walk.on_change("b", False)
    assert walk.current == "C" and walk.step == "place"
    walk.on_change("c", False)         # ... so the player lifts it and puts it down again
    walk.on_change("c", True)
    assert walk.on_change("c", True) is False  # a repeat (a restart replays every switch) is no change
    assert walk.on_change("c", False) is True
    assert walk.done and walk.duplicate == [] and walk.channels == {"a": "A", "b": "B", "c": "C"}


def test_two_reeds_under_one_stand_are_told_from_noise_by_when_they_open():
    together = SensorWalk(["A", "B"])
    together.on_change("a", True, at=0.0)
    together.on_change("a2", True, at=0.02)
    together.on_change("a2", False, at=3.0)   # lifted: both open at once, a2 first
    together.on_change("a", False, at=3.01)
    assert together.duplicate == ["a2"] and together.current == "B"
    blip = SensorWalk(["A", "B"])
    blip.on_change("a", True, at=0.0)
    blip.on_change("a2", True, at=1.0)
    blip.on_change("a2", False, at=1.05)      # came and went while the token sat still
    blip.on_change("a", False, at=3.0)
    assert blip.duplicate == [] and blip.current == "B"


def test_sensor_walk_resumes_from_json():
    walk = SensorWalk(["A", "B", "C"])
    for ch, closed in (("a", True), ("a", False), ("b", True), ("z", True)):
        walk.on_change(ch, closed)
    again = SensorWalk.from_json(walk.to_json())
    assert again.status() == walk.status() and again.suspects == {"z": "B"}
    again.on_change("b", False)
    assert again.current == "C"


def test_led_walk_shift_carries_the_rest_and_stays_on_strip():
    walk = LedWalk({1: [0, 1, 2], 2: [3, 4, 5]}, count=8)
    walk.shift(-5)
    assert walk.segment == [0, 1, 2]
    walk.shift(100)  # territory 2 comes along, so there is room for 2 pixels only
    assert walk.segment == [2, 3, 4] and walk.territories[2] == [5, 6, 7]
    assert walk.frame()[2] == (255, 255, 255) and walk.frame()[0] != (255, 255, 255)
    walk.confirm()
    walk.shift(-3)  # never into a confirmed segment
    assert walk.territories == {1: [2, 3, 4], 2: [5, 6, 7]}
    walk.resize(+1)  # no room at the end of the strip
    assert walk.segment == [5, 6, 7]
    walk.resize(-2)
    assert walk.segment == [5]


LED_STEPS = st.lists(st.tuples(st.sampled_from(["shift", "resize", "confirm", "back"]), st.integers(-5, 5)),
                     max_size=40)


@settings(max_examples=60, deadline=None)
@given(LED_STEPS)
def test_any_led_walk_saves_a_layout_the_board_loads(tmp_path_factory, steps):
    """Whatever the player does, the walk never makes an overlap, so its result always saves (through
    the session, as the page does), lights the running board at once and loads on the next start."""
    board = BoardApp(Settings(), tmp_path_factory.mktemp("data"), sim=True)
    try:
        strip = board.strip.count
        session = board.calibration
        session.leds_start()
        walk = session.leds
        for what, by in steps:
            try:
                session.leds_do(what, by)
            except ValueError as exc:  # no room for that move: refused with the reason, nothing moved
                assert "cannot" in str(exc)
        while not walk.done:
            session.leds_do("confirm")
        session.leds_save()
        loaded = files.read_saved(session.path, board.loop.state.board).led_layout(board.loop.state.board)
        assert loaded.territories == walk.territories and loaded.stands == walk.stands
        assert loaded.count == strip
        live = board.layout
        assert live is board.lighting.layout and live.territories == walk.territories and live.stands == walk.stands
        assert live.count == strip and live.faults() == [strip - 1]
    finally:
        board.journal.close()


def test_file_round_trip_and_validation(tmp_path):
    from kipukas_board.show.layout import default_layout

    board = load_map("kipuka-8")
    lay = default_layout(board)
    extra = {"count": 60, "order": "RGB", "gamma": 1.8, "brightness": 0.3, "power_budget_ma": 1200,
             "fault_pixels": [39], "stands": {sid: px for sid, px in lay.stands.items()}}
    cal = Calibration(board=board.name, channels={"r1c2": "T1", 'we"ird': "M1a"}, dead=["M1b"],
                      led_territories=lay.territories, cameras={1: {"test_scan": True}}, leds=extra)
    path = tmp_path / "calibration" / "default.toml"
    files.save(path, cal, board)
    back = files.load(path, board)
    assert back == cal
    led = files.read_saved(path, board).led_layout(board)  # the board reads the very same file
    assert led.count == 60 and led.order == "RGB" and led.stands == lay.stands and led.faults() == [39]
    bad = cal.__class__(board=board.name, channels={"r1": "T99"})
    with pytest.raises(CalibrationError) as e:
        files.save(path, bad, board)
    assert "no stand 'T99'" in str(e.value)
    assert files.load(path, board) == cal  # the refused save left the good file alone
    on_a_stand = Calibration(board=board.name, led_territories={**lay.territories, 8: [21, 22, 24]},
                             leds={"stands": lay.stands})  # pixel 24 is T1's
    with pytest.raises(CalibrationError, match="pixel 24 is given to both"):
        files.save(path, on_a_stand, board)
    with pytest.raises(CalibrationError) as e:
        files.loads('board = "x"\n[sensors.channels]\na = "T1"\nb = "T1"\n[leds.territories]\n"1" = [0, -1]\n')
    assert len(e.value.problems) == 2 and "two channels" in e.value.problems[0]
    with pytest.raises(CalibrationError, match="Kipuka of Twelve"):
        files.loads(files.dumps(cal), board=load_map("kipuka-12"))
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def _walk_all(board: BoardApp, skip: set[str] = frozenset(), stop_after: int | None = None) -> None:
    for i, sid in enumerate(list(board.loop.state.board.stands)):
        if stop_after is not None and i >= stop_after:
            return
        assert board.calibration.status()["sensors"]["stand"] == sid
        if sid in skip:
            board.calibration.sensors_do("skip")
            continue
        board.sim_set_stand(sid, True)
        board.sim_set_stand(sid, False)


def test_walk_on_a_running_board_with_anonymous_channels_resumes_and_is_applied(data_dir):
    settings = Settings()
    settings.sensors.options = {"channels": "matrix"}
    board = BoardApp(settings, data_dir, sim=True, admin_pin="1234")
    board.start()
    # Before calibration a token lands on an unknown channel: nothing happens in the game.
    board.sim_set_stand("T1", True)
    assert board.loop.state.switches["T1"] is False
    assert board.health()["sensors"]["unmapped_channels"]
    board.sim_set_stand("T1", False)
    board.calibration.sensors_start()
    _walk_all(board, stop_after=5)
    board.stop()  # interrupted half-way

    board = BoardApp(settings, data_dir, sim=True)
    board.start()
    status = board.calibration.status()["sensors"]
    assert status["index"] == 5 and status["stand"] == list(board.loop.state.board.stands)[5]
    with pytest.raises(ValueError, match="finish or skip"):
        board.calibration.sensors_save()
    stands = list(board.loop.state.board.stands)
    for sid in stands[5:]:
        if sid == "M4b":
            board.calibration.sensors_do("skip")
        else:
            board.sim_set_stand(sid, True)
            board.sim_set_stand(sid, False)
    assert board.loop.state.switches["T1"] is False  # walk tokens never reached the game
    with pytest.raises(NeedsConfirmation) as asked:  # a dead stand, and no read-back: asked first
        board.calibration.sensors_save()
    assert "no sensor answered for M4b" in asked.value.items
    assert any("not touched in the read-back" in item for item in asked.value.items)
    board.calibration.sensors_save(confirm=True)
    assert not (data_dir / "calibration-progress.json").exists()
    saved = files.load(data_dir / "calibration" / "default.toml", board.loop.state.board)
    assert saved.dead == ["M4b"] and len(saved.channels) == len(stands) - 1
    health = board.health()["calibration"]  # a saved board with a blind stand is not healthy
    assert health["ok"] is False and health["faults"] == ["no sensor for M4b"]
    assert all(ch.startswith("r") for ch in saved.channels)
    board.sim_set_stand("T3", True)
    assert board.loop.state.switches["T3"] and kipukas_state(board.loop.state).territories[3].claim == "base_camp"
    board.stop()

    # A fresh start reads the saved file and maps channels at once.
    board = BoardApp(settings, data_dir, sim=True)
    board.start()
    assert board.channel_map == saved.channels
    board.sim_set_stand("T2", True)
    assert board.loop.state.switches["T2"]
    board.stop()


def _hand_made_leds(data_dir) -> None:
    """A calibration file with a hand-written [leds] section (as hardware/README suggests)."""
    from kipukas_board.show.layout import default_layout

    board = load_map("kipuka-8")
    lay = default_layout(board)
    terr = "\n".join(f'"{n}" = {px}' for n, px in lay.territories.items())
    stands = "\n".join(f'"{sid}" = {px}' for sid, px in lay.stands.items())
    path = data_dir / "calibration" / "default.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'board = "{board.name}"\nversion = 1\n\n[leds]\ncount = 60\norder = "RGB"\nbrightness = 0.3\n'
                    f'power_budget_ma = 1200\n\n[leds.territories]\n{terr}\n\n[leds.stands]\n{stands}\n')


def test_led_walk_on_a_board_shows_frames_saves_into_the_one_file_and_is_read_back(data_dir):
    _hand_made_leds(data_dir)
    path = data_dir / "calibration" / "default.toml"
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="1234")
    board.start()
    try:
        # The board reads its LED layout from the data directory's calibration file.
        assert board.layout.order == "RGB" and board.layout.count == 60 and board.strip.count == 60
        board.calibration.leds_start()
        board.calibration.leds_do("shift", 1)  # the strip starts a pixel later than thought ...
        st = board.calibration.status()["leds"]
        assert st["segment"] == [1, 2, 3] and st["territories"]["8"] == [22, 23, 24]  # ... so all moves along
        assert st["stands"]["T1"] == [25]
        assert wait_for(lambda: board.lighting.frame()[3] == (255, 255, 255))
        # The test frame lights the shifted segment; on the wire it passes the output stage
        # (brightness, power cap), so compare with what that stage makes of it.
        frame = board.lighting.frame()
        assert frame[0] != (255, 255, 255)
        assert wait_for(lambda: board.strip.pixels() == board.lighting.stage.apply(board.lighting.frame()))
        wire = board.strip.pixels()
        assert wire[3] > wire[0]
        board.calibration.leds_do("confirm")
        board.calibration.leds_do("resize", 1)  # territory 2 has a pixel more: 3 and on move along
        assert board.calibration.status()["leds"]["territories"]["3"] == [8, 9, 10]
        for _ in range(7):
            board.calibration.leds_do("confirm")
        board.calibration.leds_save()  # no overlap to refuse
        assert board.layout.territories[1] == [1, 2, 3] and board.layout.stands["T1"] == [26]
        text = path.read_text()
        assert 'order = "RGB"' in text and "brightness = 0.3" in text and "power_budget_ma = 1200" in text
        led = files.read_saved(path, board.loop.state.board).led_layout(board.loop.state.board)
        assert led.count == 60 and led.territories == board.layout.territories and led.stands["T1"] == [26]
    finally:
        board.stop()
    again = BoardApp(Settings(), data_dir, sim=True)
    try:
        assert again.layout.territories[2] == [4, 5, 6, 7] and again.layout.stands["T1"] == [26]
        assert again.layout.order == "RGB" and again.layout.brightness == 0.3
    finally:
        again.journal.close()


def test_a_segment_shrunk_in_the_walk_keeps_the_lights_working(data_dir):
    """Shrinking a segment leaves the strip's last pixel unused; the layout must still span the whole
    strip, or every frame after the save is refused as too short (until a restart)."""
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="1234")  # default layout: no spare pixel
    board.start()
    try:
        strip = board.strip.count
        old = board.layout
        before = {n: list(px) for n, px in old.territories.items()}
        session = board.calibration
        session.leds_start()
        session.leds_do("resize", -1)  # territory 1 loses a pixel; everything after it moves back one
        while not session.status()["leds"]["done"]:
            session.leds_do("confirm")
        session.leds_save()
        assert board.layout.territories[1] == [0, 1] and board.layout.territories[2] == [2, 3, 4]
        assert board.layout.count == board.strip.count == strip
        assert board.layout is board.lighting.layout and board.layout is not old
        assert old.territories == before  # swapped whole, never edited under the lighting thread
        board.sim_set_stand("T1", True)  # a new state, so a new frame for the strip
        assert wait_for(lambda: board.strip.pixels() == board.lighting.stage.apply(board.lighting.frame()))
        assert board.lighting.health()["errors"] == 0
        session.leds_start()  # the next walk still walks the whole strip
        assert session.status()["leds"]["count"] == strip
    finally:
        board.stop()


def test_a_layout_applied_while_running_spans_the_whole_strip(data_dir):
    """A calibration whose [leds] has no count and whose pixels end before the strip does (written by
    hand, say) still gives the running lights a layout as long as the strip."""
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="1234")
    try:
        lay = board.layout
        last = max(lay.stands, key=lambda sid: lay.stands[sid])
        stands = {sid: px for sid, px in lay.stands.items() if sid != last}  # the strip's last pixel is unused
        board.calibration.apply(Calibration(board=board.loop.state.board.name, led_territories=lay.territories,
                                            leds={"stands": stands}))
        assert board.calibration.problem is None and last not in board.layout.stands
        assert board.layout.count == board.strip.count
    finally:
        board.journal.close()


def test_led_walk_says_why_a_shift_cannot_happen(data_dir):
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="1234")  # default layout: no spare pixel
    board.start()
    try:
        board.calibration.leds_start()
        with pytest.raises(ValueError, match="end of the strip"):
            board.calibration.leds_do("shift", 1)
        board.calibration.leds_do("resize", -1)
        board.calibration.leds_do("shift", 1)
        assert board.calibration.status()["leds"]["segment"] == [1, 2]
    finally:
        board.stop()


def test_a_resumed_led_walk_lights_its_segment_again(data_dir):
    _hand_made_leds(data_dir)
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="1234")
    board.start()
    board.calibration.leds_start()
    board.calibration.leds_do("confirm")
    board.calibration.leds_do("shift", 2)  # territory 2 now at 5, 6, 7
    board.stop()  # a power cut mid-walk
    board = BoardApp(Settings(), data_dir, sim=True)
    board.start()
    try:
        assert board.calibration.status()["leds"]["segment"] == [5, 6, 7]
        lit = [(255, 255, 255) if i in (5, 6, 7) else None for i in range(60)]
        assert wait_for(lambda: [p if p == (255, 255, 255) else None for p in board.lighting.frame()] == lit)
        assert board.health()["calibration"]["active"] == "leds"
    finally:
        board.stop()


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**16))
def test_matrix_wiring_is_repeatable_and_one_to_one(seed):
    from kipukas_board.hardware.sensors.simulated import SimulatedStandSensors

    stands = list(load_map("kipuka-12").stands)
    a, b = SimulatedStandSensors(channels="matrix", seed=seed), SimulatedStandSensors(channels="matrix", seed=seed)
    wa = {s: a.channel_for(s) for s in stands}
    wb = {s: b.channel_for(s) for s in stands}
    assert wa == wb  # the same seed wires the same board
    assert len(set(wa.values())) == len(stands)  # one switch per channel
    assert set(wa.values()) != set(stands)  # and the channels say nothing about the stands


def test_camera_steps_through_the_api(data_dir):
    pytest.importorskip("numpy")
    from web_helpers import PIN, FrameCamera

    from kipukas_board.cards.catalog import Catalog
    from kipukas_board.web.server import create_app

    Catalog.in_dir(data_dir).import_records([{"code": "RrDC", "slug": "allele", "title": "Allele Sect Explorer",
                                              "type": "Species", "injury_tolerance": 3, "movement": 1,
                                              "keal_means": []}])
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin=PIN)
    cam = FrameCamera(seat=2)
    board.cameras = [cam]
    board.start()
    try:
        c = create_app(board).test_client()
        h = {"X-Admin-Pin": PIN}
        card = {"payload": "kpks.us/RrDC#0001?DmFz33", "seat": 2}
        assert c.post("/api/sim/cards", json=card).status_code == 200  # shown before the test scan
        assert c.get("/api/calibration/cameras/2/frame.png").status_code == 401
        r = c.get("/api/calibration/cameras/2/frame.png", headers=h)
        assert r.status_code == 200 and r.mimetype == "image/png" and r.data[:4] == b"\x89PNG"
        r = c.get("/api/calibration/cameras/3/frame.png", headers=h)
        assert r.status_code == 404 and "seats with cameras: 2" in r.json["error"]
        r = c.post("/api/calibration/cameras/2/controls", json={"focus": 99, "exposure_us": None}, headers=h)
        assert r.status_code == 400 and "dioptres" in r.json["error"]
        r = c.post("/api/calibration/cameras/2/controls", json={"focus": True, "exposure_us": None}, headers=h)
        assert r.status_code == 400 and r.json["error"] == ("focus = True: expected dioptres from 0 (far) to 15 "
                                                            "(close), or null for auto")
        r = c.post("/api/calibration/cameras/2/controls", json={"focus": 2.5, "exposure_us": None}, headers=h)
        assert r.status_code == 200 and cam.controls == [{"focus": 2.5, "exposure_us": None}]
        c.post("/api/calibration/cameras/2/start", headers=h)
        r = c.post("/api/calibration/cameras/2/save", headers=h)
        assert r.status_code == 409 and "show a card" in r.json["error"]
        assert c.get("/api/calibration").json["cameras"]["2"]["testing"]
        # The same card shown to seat 2's camera again is a new reading: it passes the test scan.
        assert c.post("/api/sim/cards", json=card).status_code == 200
        st = c.get("/api/calibration").json["cameras"]["2"]
        assert st["ok"] and st["card"]["code"] == "RrDC" and st["card"]["title"] == "Allele Sect Explorer"
        assert c.post("/api/calibration/cameras/2/save", headers=h).status_code == 200
        saved = files.load(data_dir / "calibration" / "default.toml")
        assert saved.cameras == {2: {"test_scan": True, "focus": 2.5}}
    finally:
        board.stop()
    # On the next start the saved focus goes back to the camera.
    board = BoardApp(Settings(), data_dir, sim=True)
    cam2 = FrameCamera(seat=2)
    board.cameras = [cam2]
    board.calibration.apply(board.calibration.saved)
    assert cam2.controls == [{"focus": 2.5}]
    board.journal.close()


def test_an_open_sensor_walk_is_in_health_and_holds_the_switches_across_a_restart(data_dir, monkeypatch):
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="1234")
    board.start()
    assert board.health()["calibration"]["ok"] is True
    board.calibration.sensors_start()
    h = board.health()["calibration"]
    assert h["ok"] is False and h["active"] == "sensors" and "not reaching the game" in h["note"]
    board.sim_set_stand("T1", True)  # the walk takes it
    board.sim_set_stand("T1", False)
    board.stop()  # the walk is left open

    board = BoardApp(Settings(), data_dir, sim=True)
    board.sensors.set("T2", True)  # a token went down while the board was off
    board.start()  # ... and the start-up resync goes to the walk, not the game
    try:
        assert board.health()["calibration"]["active"] == "sensors"
        assert board.loop.state.switches["T2"] is False
        assert [e for _, e in board.journal.events() if e.get("source") == "resync"] == []
        walk = board.calibration.status()["sensors"]
        second = list(board.loop.state.board.stands)[1]
        assert walk["channels"] == {"T1": "T1", "T2": second}  # to the walk it is a token on its stand
        resyncs = []
        real_reconcile = board._reconcile
        monkeypatch.setattr(board, "_reconcile", lambda: (resyncs.append(1), real_reconcile())[1])
        board.calibration.sensors_do("cancel", confirm=True)  # closing the walk hands the switches back
        assert board.health()["calibration"]["ok"] is True
        assert resyncs == [1]  # through the board's own resync, which waits for the core: no polling
        assert board.loop.state.switches["T2"]
    finally:
        board.stop()


def test_the_sensor_walk_times_changes_by_when_the_adapter_saw_them(data_dir):
    """An adapter hands over the changes of one read one after another, each after the walk wrote (and
    fsynced) the previous one's progress: the walk must go by when each change was seen
    (``SwitchChange.at``), not by when it arrives."""
    board = BoardApp(Settings(), data_dir, sim=True, admin_pin="1234")
    session = board.calibration

    def walk_t1(x2_opens_at: float) -> list[str]:
        session.sensors_start(restart=True)
        for channel, closed, at in (("x1", True, 0.0), ("x2", True, 0.02), ("x2", False, x2_opens_at),
                                    ("x1", False, 3.01)):
            session.on_switch(SwitchChange(channel, closed, at=at))
        assert session.status()["sensors"]["stand"] != "T1"
        return session.status()["sensors"]["duplicate"]

    try:
        assert walk_t1(3.0) == ["x2"]  # both opened as the token was lifted: two reeds under T1
        assert walk_t1(1.0) == []  # x2 came and went two seconds earlier: noise, however close the calls
    finally:
        board.journal.close()


def test_a_switch_change_is_stamped_when_made_and_compares_without_it():
    import time

    before = time.monotonic()
    change = SwitchChange("r0c1", True)
    assert before <= change.at <= time.monotonic()
    assert change == SwitchChange("r0c1", True, at=change.at + 5)
    assert repr(change) == "SwitchChange(channel='r0c1', closed=True)"


class _UnreadableCamera:
    """A camera that is there (seat 2) but fails every read, as an unplugged USB camera does."""

    seat = 2

    def read(self) -> None:
        raise OSError(19, "No such device")

    def health(self) -> dict:
        return {"adapter": "test-unreadable", "ok": False, "seat": self.seat}

    def close(self) -> None:
        pass


def test_a_camera_that_cannot_be_read_answers_503_with_the_reason(data_dir):
    from web_helpers import PIN

    from kipukas_board.web.server import create_app

    board = BoardApp(Settings(), data_dir, sim=True, admin_pin=PIN)
    board.cameras = [_UnreadableCamera()]
    try:
        c = create_app(board).test_client()
        h = {"X-Admin-Pin": PIN}
        r = c.get("/api/calibration/cameras/2/frame.png", headers=h)
        assert r.status_code == 503 and "No such device" in r.json["error"] and r.headers["Retry-After"] == "1"
        r = c.get("/api/calibration/cameras/3/frame.png", headers=h)  # no camera at all: that is a 404
        assert r.status_code == 404 and "seats with cameras: 2" in r.json["error"]
    finally:
        board.journal.close()


CAMERA_EDITS = [  # a hand edit of seat 1's [[cameras]] entry, and what the refusal says
    ("focus = 99", "focus = 99: expected dioptres from 0 (far) to 15 (close), or leave it out for auto"),
    ("focus = -0.5", "focus = -0.5: expected dioptres from 0 (far) to 15 (close)"),
    ("focus = nan", "focus = nan: expected dioptres"),
    ("focus = true", "focus = True: expected dioptres"),
    ('exposure_us = "fast"', "exposure_us = 'fast': expected a whole number of microseconds from 100 to 1000000, "
                             "or leave it out for auto"),
    ("exposure_us = 99", "exposure_us = 99: expected a whole number of microseconds from 100 to 1000000"),
    ("exposure_us = 1000001", "exposure_us = 1000001: expected a whole number"),
    ("exposure_us = 8000.5", "exposure_us = 8000.5: expected a whole number"),
    ("exposure = 8000", "unknown key(s) exposure; expected seat, test_scan, focus, exposure_us"),
    ('test_scan = "yes"', "test_scan = 'yes': expected true or false"),
]


@pytest.mark.parametrize(("edit", "said"), CAMERA_EDITS)
def test_a_hand_edited_camera_setting_is_refused_when_the_file_is_read(tmp_path, edit, said):
    """The focus and exposure a calibration file keeps go to a seat's camera as they are: the file is
    checked with the limits the calibration page's request is, before the board uses any of it."""
    board = load_map("kipuka-8")
    path = tmp_path / "default.toml"
    head = f'board = "{board.name}"\nversion = 1\n\n[[cameras]]\nseat = 1\ntest_scan = true\n'
    path.write_text(head + "focus = 2.5\nexposure_us = 8000\n\n[[cameras]]\nseat = 2\n")
    assert files.load(path, board).cameras == {1: {"test_scan": True, "focus": 2.5, "exposure_us": 8000}, 2: {}}
    path.write_text(head.replace("test_scan = true\n", "") + edit + "\n\n[[cameras]]\nseat = 2\n")
    with pytest.raises(CalibrationError) as e:
        files.load(path, board)
    assert len(e.value.problems) == 1 and said in e.value.problems[0]
    assert e.value.problems[0].startswith("[[cameras]] #1 (seat 1): ")
    assert str(e.value).startswith(f"{path}: [[cameras]] #1 (seat 1): ")


@pytest.mark.parametrize("head, given", [("version = 1", "board is missing"), ("board = 3", "board = 3"),
                                         ('board = ""', 'board = ""')])
def test_a_file_without_the_maps_name_gets_one_problem_saying_what_is_expected(head: str, given: str) -> None:
    text = head + '\n[sensors.channels]\n"r0c0" = "T1"\n'
    for board, line in ((load_map("kipuka-8"), 'board = "Kipuka of Eight"'), (None, 'board = "<map name>"')):
        with pytest.raises(CalibrationError) as e:
            files.loads(text, "cal.toml", board)
        assert e.value.problems == [f"{given}: expected the name of the map the file was made on, "
                                    f"a line at the top such as {line}"]


def test_a_seat_given_two_camera_entries_is_refused():
    text = files.dumps(Calibration(board="Kipuka of Eight", cameras={1: {"focus": 2.0}}))
    with pytest.raises(CalibrationError, match=r"\[\[cameras\]\] #2 \(seat 1\): seat 1 has a \[\[cameras\]\] "
                                               r"entry already; give each seat one"):
        files.loads(text + "\n[[cameras]]\nseat = 1\nfocus = 3.0\n", "cal.toml")


def test_a_board_whose_file_holds_a_bad_focus_puts_its_cameras_on_automatic(data_dir):
    from web_helpers import FrameCamera

    path = data_dir / "calibration" / "default.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'board = "{load_map("kipuka-8").name}"\nversion = 1\n\n[[cameras]]\nseat = 1\nfocus = 99\n')
    board = BoardApp(Settings(), data_dir, sim=True)
    cam = FrameCamera(seat=1)
    board.cameras = [cam]
    try:
        assert board.calibration.saved is None
        assert board.calibration.problem == (f"{path}: [[cameras]] #1 (seat 1): focus = 99: expected dioptres "
                                             f"from 0 (far) to 15 (close), or leave it out for auto")
        board.calibration.follow_map()  # read again, as on another map: still refused, still not applied
        assert cam.controls == [{}] and board.calibration.saved is None  # nothing set by hand: automatic
    finally:
        board.journal.close()
