"""Stand sensors wired straight to the Pi's GPIO pins (gpiozero), debounced here.

For small boards: each reed switch sits between a GPIO pin and ground, with the pin's pull-up on,
so a magnet over the switch reads low (closed). Debouncing is ours, not gpiozero's ``bounce_time``
(which drops edges and can leave a pin in the wrong state): every edge restarts the channel's
timer, and the channel's new state is reported once it has held for ``debounce_ms``, exactly as the
sensor board's firmware does. A slow safety poll catches an edge the kernel never reported.

The pin factory is chosen explicitly: on a Raspberry Pi 5 only lgpio can drive the RP1 chip, so
``pin_factory = "auto"`` picks lgpio there (and gpiozero's default elsewhere). Tests pass gpiozero's
``MockFactory`` and drive its pins.

Settings example::

    [sensors]
    adapter = "gpio"
    pins = { T1 = 17, T2 = 27, M1a = 22 }   # channel name = pin; or a list: pins = [17, 27] -> "gpio17"...
    debounce_ms = 20

Example with mock pins::

    >>> from gpiozero.pins.mock import MockFactory
    >>> factory = MockFactory()
    >>> sensors = GpioStandSensors(pins=[17], pin_factory=factory, debounce_ms=5)
    >>> seen = []
    >>> sensors.start(seen.append)
    >>> factory.pin(17).drive_low(); sensors.wait_idle(1.0)
    True
    >>> seen
    [SwitchChange(channel='gpio17', closed=True)]
    >>> sensors.stop()
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kipukas_board.hardware.sensors.channel_health import ChannelHealth
from kipukas_board.hardware.sensors.port import Emit, StandSensors, SwitchChange, emit_guarded
from kipukas_board.strictjson import is_int

MODEL_FILE = Path("/proc/device-tree/model")


def is_pi5(model_file: Path = MODEL_FILE) -> bool:
    """True on a Raspberry Pi 5 (whose GPIO needs the lgpio pin factory)."""
    try:
        return "raspberry pi 5" in model_file.read_text(errors="replace").lower()
    except OSError:
        return False


def make_pin_factory(choice: Any) -> Any:
    """A gpiozero pin factory from a settings value: "auto", "lgpio", "rpigpio", "native", "mock",
    None (gpiozero's own choice) or a factory object (tests)."""
    if choice is None or (choice == "auto" and not is_pi5()):
        return None
    if not isinstance(choice, str):
        return choice
    name = "lgpio" if choice == "auto" else choice
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    if name == "rpigpio":
        from gpiozero.pins.rpigpio import RPiGPIOFactory

        return RPiGPIOFactory()
    if name == "native":
        from gpiozero.pins.native import NativeFactory

        return NativeFactory()
    if name == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    raise ValueError(f"[sensors] pin_factory = {choice!r}: expected auto, lgpio, rpigpio, native or mock")


def _channels(pins: Any) -> dict[str, int]:
    if isinstance(pins, dict):
        out = {str(k): v for k, v in pins.items()}
    elif isinstance(pins, list | tuple):
        out = {f"gpio{p}": p for p in pins}
    else:
        raise ValueError(f"[sensors] pins = {pins!r}: expected a list of GPIO numbers or a table name = pin")
    for name, pin in out.items():
        if not is_int(pin) or not 0 <= pin <= 53:
            raise ValueError(f"[sensors] pins: {name} = {pin!r} is not a GPIO number (0-27 on the header)")
    if len(set(out.values())) != len(out):
        raise ValueError(f"[sensors] pins: a GPIO number is used twice in {out}")
    return out


class GpioStandSensors(StandSensors):
    """Reed switches on GPIO pins, debounced in our code; see the module docstring."""

    def __init__(self, pins: Any = (), pull_up: bool = True, debounce_ms: float = 20, pin_factory: Any = "auto",
                 poll_s: float = 0.5, chatter_changes: int = 8, chatter_window_s: float = 10.0,
                 chatter_quiet_s: float = 5.0, stuck_s: float | None = 7200.0,
                 clock: Callable[[], float] = time.monotonic, **unknown: Any) -> None:
        if unknown:
            raise ValueError(f"unknown [sensors] option(s) for the gpio adapter: {', '.join(sorted(unknown))}")
        if not 0 <= debounce_ms <= 1000:
            raise ValueError(f"[sensors] debounce_ms = {debounce_ms}: expected 0 to 1000")
        self.pins = _channels(list(pins) if isinstance(pins, tuple) else pins)
        self.pull_up = pull_up
        self.debounce_s = debounce_ms / 1000
        self.poll_s = poll_s
        self._factory_choice = pin_factory
        self._clock = clock
        self.channels = ChannelHealth(chatter_changes, chatter_window_s, chatter_quiet_s, stuck_s, clock)
        self._cond = threading.Condition()
        self._devices: dict[str, Any] = {}
        self._stable: dict[str, bool] = {}
        self._view: dict[str, bool] = {}
        self._deadline: dict[str, float] = {}
        self._emit: Emit | None = None
        self._thread: threading.Thread | None = None
        self._stopping = False
        self.edges = 0
        self._emitting = False
        self.factory_name = "-"

    def start(self, emit: Emit) -> None:
        from gpiozero import DigitalInputDevice

        factory = make_pin_factory(self._factory_choice)
        self.factory_name = type(factory).__name__ if factory is not None else "gpiozero default"
        now = self._clock()
        for name, pin in self.pins.items():
            try:
                dev = DigitalInputDevice(pin, pull_up=self.pull_up, bounce_time=None, pin_factory=factory)
            except Exception as exc:  # gpiozero's errors (no pin factory, pin in use, not a Pi)
                for opened in self._devices.values():
                    opened.close()
                self._devices.clear()
                raise RuntimeError(
                    f"cannot open GPIO{pin} ({name}) with the {self.factory_name} pin factory: {exc}. "
                    f"On a Pi 5 install python3-lgpio (apt) and keep pin_factory = \"auto\" or \"lgpio\"; "
                    f"check that no other program uses the pin and that this user is in the 'gpio' group"
                ) from exc
            self._devices[name] = dev
            closed = bool(dev.is_active)
            self._stable[name] = self._view[name] = closed
            self.channels.seen(name, closed, now)
            dev.when_activated = dev.when_deactivated = self._edge_handler(name)
        self._emit = emit
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="gpio-sensors", daemon=True)
        self._thread.start()

    def _edge_handler(self, name: str) -> Callable[[], None]:
        def on_edge(*_args: Any) -> None:
            with self._cond:
                self.edges += 1
                self._deadline[name] = self._clock() + self.debounce_s
                self._cond.notify()
        return on_edge

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(2.0)
        for dev in self._devices.values():
            dev.close()
        self._devices.clear()
        self._emit = None

    def snapshot(self) -> dict[str, bool]:
        with self._cond:
            return dict(self._view)

    def alive(self) -> bool:
        """True while the debounce thread runs (the service's watchdog asks).

        False before :meth:`start` and after :meth:`stop`: no thread, no sensing. If the thread has
        died, nothing reports the switches any more and only a restart of the service helps.
        """
        thread = self._thread
        return thread is not None and thread.is_alive()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no channel is waiting out its debounce time (tests); False on timeout."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._cond:
                if not self._deadline and not self._emitting:
                    return True
            time.sleep(0.001)
        return False

    def health(self) -> dict[str, Any]:
        with self._cond:
            report = self.channels.report()
            return {"adapter": "gpio", "ok": not report["chatter"] and not report["stuck"],
                    "pin_factory": self.factory_name, "debounce_ms": round(self.debounce_s * 1000, 3),
                    "pins": dict(self.pins), "edges": self.edges, "channels": report}

    def _run(self) -> None:
        next_poll = self._clock() + self.poll_s
        while True:
            out: list[SwitchChange] = []
            with self._cond:
                if self._stopping:
                    return
                now = self._clock()
                release = self.channels.next_release()
                wake = min([next_poll, *self._deadline.values(), *([release] if release is not None else [])])
                if wake > now:
                    self._cond.wait(wake - now)
                    continue
                if now >= next_poll:  # an edge the kernel never reported still settles here
                    next_poll = now + self.poll_s
                    for name, dev in self._devices.items():
                        if name not in self._deadline and bool(dev.is_active) != self._stable[name]:
                            self._deadline[name] = now + self.debounce_s
                for name in [n for n, t in self._deadline.items() if t <= now]:
                    del self._deadline[name]
                    closed = bool(self._devices[name].is_active)
                    if closed == self._stable[name]:
                        continue
                    self._stable[name] = closed
                    if self.channels.admit(name, closed, now) and self._view[name] != closed:
                        self._view[name] = closed
                        out.append(SwitchChange(name, closed))
                for name, closed in self.channels.released(now):
                    if self._view.get(name) != closed:
                        self._view[name] = closed
                        out.append(SwitchChange(name, closed))
                self._emitting = bool(out)
            emit = self._emit
            for change in out:
                emit_guarded(emit, change)  # a consumer that raises must not end this thread
            if out:
                with self._cond:
                    self._emitting = False
