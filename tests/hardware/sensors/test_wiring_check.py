"""The host's side of the sensor board's wiring check: what the link keeps and shows in health, what
the board test prints by stand, and what each reading means (matrix_check)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from kipukas_board.hardware.sensors import protocol as sp
from kipukas_board.hardware.sensors.link_policy import LinkPolicy, Send
from kipukas_board.hardware.sensors.matrix_check import diagnose


def _bitmap(bits: set[int], n: int) -> bytes:
    out = bytearray((n + 7) // 8)
    for i in bits:
        out[i // 8] |= 1 << (i % 8)
    return bytes(out)


def selftest_frame(seq: int, closed: set[int], reverse: set[int], rows: int = 2, cols: int = 2,
                   row_short: set[int] = frozenset(), col_short: set[int] = frozenset()) -> bytes:
    n = rows * cols
    return sp.encode(sp.SELFTEST, seq, bytes((rows, cols)) + _bitmap(closed, n) + _bitmap(reverse, n)
                     + _bitmap(set(row_short), rows) + _bitmap(set(col_short), cols))


def _synced(policy: LinkPolicy) -> list:
    policy.connect(0.0)
    policy.greeted(0.0)
    ident = sp.encode(sp.IDENTITY, 0, bytes((1, 2, 2, 0, 20, 3, 232, 3, 232, 0, 100)) + b"kipukas-sensors 1.1.0")
    return policy.feed(ident + sp.encode(sp.SNAPSHOT, 1, bytes((1, 4, 0))), 0.01)


def test_the_link_asks_for_the_wiring_check_once_synced_and_health_names_each_fault() -> None:
    policy = LinkPolicy()
    actions = _synced(policy)
    assert any(isinstance(a, Send) and sp.cobs_decode(a.data[1:-1])[0] == sp.CMD_SELFTEST for a in actions)
    assert policy.health(0.02)["wiring"] == {"checked": False, "faults": []}
    policy.feed(selftest_frame(2, closed={1}, reverse={1}), 0.03)
    h = policy.health(0.03)
    assert h["ok"] is False
    (fault,) = h["wiring"]["faults"]
    assert fault["kind"] == "diode-missing" and fault["channel_name"] == "r0c1" and "1N4148" in fault["text"]
    policy.feed(selftest_frame(3, closed=set(), reverse=set()), 0.04)
    assert policy.health(0.04)["wiring"] == {"checked": True, "faults": []} and policy.health(0.04)["ok"]


def test_a_firmware_without_the_check_is_said_so_and_is_no_board_error() -> None:
    policy = LinkPolicy()
    _synced(policy)
    policy.feed(sp.encode(sp.ERROR, 2, b"\x02unknown command 0x84"), 0.02)
    h = policy.health(0.02)
    assert h["board_errors"] == 0 and "older than 1.1.0" in h["wiring"]["why"] and "flash-pico" in h["wiring"]["why"]


def test_what_each_reading_means() -> None:
    t = sp.SelfTest(0, 2, 4, closed=frozenset({0, 5}), reverse=frozenset({5, 6}), rows=frozenset({0, 1}),
                    cols=frozenset())
    kinds = [(f.kind, f.channel, f.line) for f in diagnose(t, expect_open={0}, expect_closed={3})]
    assert kinds == [("stuck-closed", 0, None), ("open", 3, None), ("diode-missing", 5, None),
                     ("diode-reversed", 6, None), ("rows-touching", None, 0), ("rows-touching", None, 1)]


@given(st.sets(st.integers(0, 15)), st.sets(st.integers(0, 15)), st.sets(st.integers(0, 15)))
def test_a_clean_reading_with_the_tokens_where_expected_finds_nothing(closed, elsewhere, extra) -> None:
    t = sp.SelfTest(0, 4, 4, frozenset(closed), frozenset(), frozenset(), frozenset())
    assert diagnose(t, expect_open=set(elsewhere) - closed, expect_closed=closed) == []
    missing = set(extra) - closed
    assert {f.channel for f in diagnose(t, expect_closed=closed | missing)} == missing


def test_the_board_test_reports_wiring_faults_by_stand_and_fails(tmp_path, monkeypatch, capsys) -> None:
    from kipukas_board.cli import main
    from kipukas_board.commands import sensors as sensors_cmd

    real = sensors_cmd.build

    def build(port, name, **opts):
        adapter = real(port, name, **opts)
        if port == "sensors":  # a sensor board whose second position has lost its diode
            adapter.self_test = lambda timeout=1.0: sp.SelfTest(0, 1, 8, frozenset({1}), frozenset({1}),
                                                                frozenset(), frozenset())
        return adapter

    monkeypatch.setattr(sensors_cmd, "build", build)
    s = tmp_path / "settings.toml"
    s.write_text('[board]\nmap = "kipuka-8"\n[leds]\ncount = 60\n')
    assert main(["board-test", "--sim", "--settings", str(s), "--data-dir", str(tmp_path), "--seconds", "0.1",
                 "--json"]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    summary = lines[-1]
    kinds = sorted(f["kind"] for f in summary["wiring"])
    assert kinds == ["diode-missing"] and summary["wiring_checked"] is True
    (fault,) = summary["wiring"]
    assert fault["channel_name"] == "r0c1" and fault["stand"] and fault["text"].startswith(f"stand {fault['stand']}:")


def test_the_boards_health_names_the_stand_of_a_missing_diode(tmp_path) -> None:
    """End to end: the real firmware on a matrix with one diode missing under a token, the serial link,
    and the board's health, which names the stand the calibration gives that channel."""
    import time

    from kipukas_board.bench.firmware_sim import FirmwareThread, PtyLink
    from tests.hardware.sensors.test_serial_sensors import COLS, ROWS, make_app, wait_for

    link = PtyLink(tmp_path)
    fw = FirmwareThread(ROWS, COLS, link, debounce_ms=10).start()
    try:
        fw.matrix.missing_diodes = {7}
        fw.matrix.set(7, True)
        time.sleep(0.05)
        app, _seen = make_app(tmp_path, link)
        app.start()
        try:
            def faults() -> list:
                return app.state_json()["health"]["sensors"]["wiring"]["faults"]

            assert wait_for(lambda: bool(faults()), 5.0)
            (fault,) = faults()
            stand = list(app.loop.state.board.stands)[7]
            assert fault["kind"] == "diode-missing" and fault["channel_name"] == f"r{7 // COLS}c{7 % COLS}"
            assert fault["stand"] == stand and fault["text"].startswith(f"stand {stand}:")
            assert app.state_json()["health"]["sensors"]["ok"] is False
        finally:
            app.stop()
    finally:
        fw.stop()
        link.close()


def test_the_pages_board_test_asks_for_the_check_after_each_token_and_shows_faults_by_stand() -> None:
    from types import SimpleNamespace

    from kipukas_board.calibrate.board_test import BoardTest, BoardTestSession
    from kipukas_board.hardware.sensors.port import SwitchChange

    asked: list[int] = []
    fault = {"kind": "diode-reversed", "channel": 1, "line": None, "channel_name": "r0c1",
             "text": "r0c1 conducts only backwards"}
    sensors = SimpleNamespace(request_self_test=lambda: asked.append(1),
                              health=lambda: {"wiring": {"checked": True, "faults": [fault]}})
    lighting = SimpleNamespace(show_test_frame=lambda frame: None)
    session = BoardTestSession(SimpleNamespace(sensors=sensors, lighting=lighting))
    session.test = BoardTest(["T1", "T2"], {"T1": [0], "T2": [1]}, {}, {}, count=2)
    assert session.on_switch(SwitchChange("r0c0", True)) and asked == [1]
    session.on_switch(SwitchChange("r0c0", False))
    assert asked == [1]  # a lifted token needs no check
    (shown,) = session.status()["wiring"]
    assert shown["stand"] == "T2" and shown["text"] == "stand T2: r0c1 conducts only backwards"
