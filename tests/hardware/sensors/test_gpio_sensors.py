"""The GPIO adapter with gpiozero's mock pins: our debounce, not gpiozero's bounce_time."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from waiting import wait_for

from kipukas_board.hardware.registry import build
from kipukas_board.hardware.sensors import gpio as gpio_sensors
from kipukas_board.hardware.sensors.gpio import GpioStandSensors, is_pi5, make_pin_factory
from kipukas_board.hardware.sensors.port import SwitchChange


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


def start(factory: MockFactory, **opts) -> tuple[GpioStandSensors, list[SwitchChange]]:
    s = GpioStandSensors(pin_factory=factory, **{"pins": {"T1": 17, "T2": 27}, "debounce_ms": 15, **opts})
    got: list[SwitchChange] = []
    s.start(got.append)
    return s, got


def test_bouncing_contact_reports_once_after_it_settles(factory: MockFactory) -> None:
    s, got = start(factory)
    try:
        pin = factory.pin(17)
        t0 = time.monotonic()
        for _ in range(6):  # contact bounce: a few edges within 3 ms
            pin.drive_low()
            time.sleep(0.0005)
            pin.drive_high()
            time.sleep(0.0005)
        pin.drive_low()
        settled = time.monotonic()
        assert s.wait_idle(2.0)
        assert got == [SwitchChange("T1", True)]
        assert time.monotonic() - settled >= 0.015 - 0.001  # reported only after the debounce time
        assert s.snapshot() == {"T1": True, "T2": False}
        assert s.health()["edges"] >= 13 and time.monotonic() - t0 < 2
    finally:
        s.stop()


def test_flicker_shorter_than_debounce_is_not_reported(factory: MockFactory) -> None:
    s, got = start(factory, debounce_ms=60)  # generous, so a busy machine cannot stretch the flicker
    try:
        pin = factory.pin(27)
        pin.drive_low()
        time.sleep(0.004)
        pin.drive_high()
        assert s.wait_idle(2.0)
        time.sleep(0.08)
        assert got == []
        pin.drive_low()
        assert s.wait_idle(2.0)
        pin.drive_high()
        assert s.wait_idle(2.0)
        assert got == [SwitchChange("T2", True), SwitchChange("T2", False)]
    finally:
        s.stop()


def test_state_at_start_is_the_snapshot_not_a_change(factory: MockFactory, monkeypatch) -> None:
    from gpiozero.pins.mock import MockPin

    # a closed switch holds the pin low whatever its pull-up says (MockPin's pull-up would drive it high)
    monkeypatch.setattr(MockPin, "_set_pull", lambda self, value: setattr(self, "_pull", value))
    factory.pin(17).drive_low()
    factory.pin(27).drive_high()
    s, got = start(factory)
    try:
        assert s.snapshot() == {"T1": True, "T2": False}
        time.sleep(0.03)
        assert got == []
        assert s.health()["pin_factory"] == "MockFactory" and s.health()["pins"] == {"T1": 17, "T2": 27}
    finally:
        s.stop()


def test_chatter_is_reported_and_not_trusted(factory: MockFactory) -> None:
    s, got = start(factory, debounce_ms=2, chatter_changes=4, chatter_window_s=5, chatter_quiet_s=0.2)
    try:
        pin = factory.pin(17)
        for i in range(6):
            (pin.drive_low if i % 2 == 0 else pin.drive_high)()
            assert s.wait_idle(1.0)
        assert s.health()["channels"]["chatter"] == ["T1"] and s.health()["ok"] is False
        assert [c.closed for c in got] == [True, False, True]
        # quiet for chatter_quiet_s, the channel is trusted again and its true state told: waited for,
        # not slept on, so a busy machine that runs the release late does not fail the test
        assert wait_for(lambda: s.health()["channels"]["chatter"] == [] and got[-1] == SwitchChange("T1", False))
        assert s.snapshot()["T1"] is False
    finally:
        s.stop()


def test_list_of_pins_names_channels_gpioN_and_bad_pins_are_refused() -> None:
    s = GpioStandSensors(pins=[17, 22], pin_factory=MockFactory())
    assert list(s.pins) == ["gpio17", "gpio22"]
    with pytest.raises(ValueError, match="not a GPIO number"):
        GpioStandSensors(pins={"T1": 99})
    with pytest.raises(ValueError, match="used twice"):
        GpioStandSensors(pins={"T1": 17, "T2": 17})
    with pytest.raises(ValueError, match="unknown .* option.*bounce_time"):
        build("sensors", "gpio", pins=[17], bounce_time=0.1)


def test_pi5_gets_the_lgpio_factory(tmp_path: Path, monkeypatch) -> None:
    model = tmp_path / "model"
    model.write_text("Raspberry Pi 5 Model B Rev 1.0\x00")
    assert is_pi5(model)
    model.write_text("Raspberry Pi 4 Model B Rev 1.4\x00")
    assert not is_pi5(model)
    assert not is_pi5(tmp_path / "absent")
    chosen = []

    class FakeLGPIO:
        def __init__(self) -> None:
            chosen.append("lgpio")

    import sys
    import types

    fake = types.ModuleType("gpiozero.pins.lgpio")
    fake.LGPIOFactory = FakeLGPIO  # the real one needs the lgpio library, which only a Pi has
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", fake)
    monkeypatch.setattr(gpio_sensors, "is_pi5", lambda: True)
    assert isinstance(make_pin_factory("auto"), FakeLGPIO) and chosen == ["lgpio"]
    monkeypatch.setattr(gpio_sensors, "is_pi5", lambda: False)
    assert make_pin_factory("auto") is None
    assert isinstance(make_pin_factory("mock"), MockFactory)
    with pytest.raises(ValueError, match="expected auto, lgpio"):
        make_pin_factory("pigpioo")


def test_a_pin_that_cannot_be_opened_says_what_to_check() -> None:
    factory = MockFactory()
    busy = GpioStandSensors(pins={"T1": 17}, pin_factory=factory)
    busy.start(lambda c: None)
    try:
        second = GpioStandSensors(pins={"T0": 4, "T1": 17}, pin_factory=factory)
        with pytest.raises(RuntimeError, match=r"cannot open GPIO17 \(T1\) with the MockFactory.*lgpio"):
            second.start(lambda c: None)
        assert second._devices == {}  # GPIO4 was released again
    finally:
        busy.stop()


def test_a_consumer_that_raises_does_not_stop_the_thread(factory: MockFactory) -> None:
    """The serial adapter's rule, here too: the consumer's exception is logged, the next change still comes."""
    got: list[SwitchChange] = []

    def picky(change: SwitchChange) -> None:
        got.append(change)
        if len(got) == 1:
            raise RuntimeError("the core said no")

    s = GpioStandSensors(pin_factory=factory, pins={"T1": 17, "T2": 27}, debounce_ms=5)
    s.start(picky)
    try:
        factory.pin(17).drive_low()
        assert s.wait_idle(2.0)
        factory.pin(27).drive_low()
        assert s.wait_idle(2.0)
        assert got == [SwitchChange("T1", True), SwitchChange("T2", True)]
        assert s.alive()
    finally:
        s.stop()


def test_alive_while_the_thread_runs(factory: MockFactory) -> None:
    s = GpioStandSensors(pin_factory=factory, pins=[17])
    assert s.alive() is False  # not started: nothing senses yet
    s.start(lambda change: None)
    try:
        assert s.alive() is True
    finally:
        s.stop()
    assert s.alive() is False
