"""Which adapter serves which port, by the names used in the settings file.

Adapters are named by import path and imported only when chosen, so a development machine never
needs the Pi-only libraries (picamera2, rpi_ws281x, spidev, lgpio) that real adapters import.

To add an adapter, add one line to the port's table here.

Example::

    >>> from kipukas_board.hardware.registry import build
    >>> strip = build("leds", "sim", count=4)
    >>> strip.count
    4
"""

from __future__ import annotations

import importlib
from typing import Any

ADAPTERS: dict[str, dict[str, str]] = {
    "sensors": {
        "sim": "kipukas_board.hardware.sensors.simulated:SimulatedStandSensors",
        "serial": "kipukas_board.hardware.sensors.serial_link:SerialStandSensors",
        "gpio": "kipukas_board.hardware.sensors.gpio:GpioStandSensors",
    },
    "leds": {
        "sim": "kipukas_board.hardware.leds.simulated:SimulatedLedStrip",
        "spi": "kipukas_board.hardware.leds.spi:SpiLedStrip",
        "ws281x": "kipukas_board.hardware.leds.ws281x:Ws281xLedStrip",
    },
    "cameras": {
        "sim": "kipukas_board.hardware.cameras.simulated:SimulatedCamera",
        "files": "kipukas_board.hardware.cameras.files:FileCamera",
        "opencv": "kipukas_board.hardware.cameras.opencv:OpenCVCamera",
        "picamera2": "kipukas_board.hardware.cameras.pi_camera:Picamera2Camera",
    },
    "voice": {
        "silent": "kipukas_board.hardware.voice.simulated:SilentVoice",
        "espeak": "kipukas_board.hardware.voice.espeak:EspeakVoice",
    },
}

#: The adapter each port uses in simulation (``--sim``).
SIMULATED: dict[str, str] = {"sensors": "sim", "leds": "sim", "cameras": "sim", "voice": "silent"}


class AdapterError(ValueError):
    """An adapter name that is not known, or one whose library is missing on this machine."""


def adapter_names(port: str) -> list[str]:
    """The adapter names the settings file may give for ``port``."""
    return sorted(ADAPTERS[port])


#: Constructor parameters that are not settings: the board passes them (``count``, from the LED
#: layout) or tests do (a fake ``spi`` bus, a ``clock``).
NOT_SETTINGS = frozenset({"self", "count", "spi", "clock", "stands_in_for"})


def adapter_options(port: str, name: str) -> list[str] | None:
    """The option names the settings file may give adapter ``name`` of ``port`` (its constructor's
    named parameters), or None when its module cannot be imported here to find out."""
    import inspect

    module_name, _, class_name = ADAPTERS[port][name].partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except ImportError:
        return None
    params = inspect.signature(cls.__init__).parameters.values()
    return sorted(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                  and p.name not in NOT_SETTINGS)


def build(port: str, name: str, **options: Any) -> Any:
    """Create the adapter ``name`` for ``port`` with ``options`` from the settings file."""
    if port not in ADAPTERS:
        raise AdapterError(f"unknown hardware port {port!r}; expected one of {sorted(ADAPTERS)}")
    table = ADAPTERS[port]
    if name not in table:
        raise AdapterError(
            f"unknown {port} adapter {name!r}; expected one of {', '.join(sorted(table))}"
        )
    module_name, _, class_name = table[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AdapterError(
            f"the {port} adapter {name!r} needs a library this machine lacks ({exc}); "
            f"install it, or run with --sim"
        ) from exc
    return getattr(module, class_name)(**options)
