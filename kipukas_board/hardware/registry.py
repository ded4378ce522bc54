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
        "sim": "kipukas_board.hardware.sensors:SimulatedStandSensors",
        # stand sensing (issue 5)
        "serial": "kipukas_board.hardware.serial_sensors:SerialStandSensors",
        "gpio": "kipukas_board.hardware.gpio_sensors:GpioStandSensors",
    },
    "leds": {
        "sim": "kipukas_board.hardware.leds:SimulatedLedStrip",
        # lighting (issue 6)
        "spi": "kipukas_board.hardware.leds_spi:SpiLedStrip",
        "ws281x": "kipukas_board.hardware.leds_ws281x:Ws281xLedStrip",
    },
    "cameras": {
        "sim": "kipukas_board.hardware.cameras:SimulatedCamera",
        # card scanning (issue 4)
        "files": "kipukas_board.hardware.cameras_files:FileCamera",
        "opencv": "kipukas_board.hardware.cameras_opencv:OpenCVCamera",
        "picamera2": "kipukas_board.hardware.cameras_picamera2:Picamera2Camera",
    },
    "voice": {
        "silent": "kipukas_board.hardware.voice:SilentVoice",
        # voice (issue 6)
        "espeak": "kipukas_board.hardware.voice_espeak:EspeakVoice",
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
NOT_SETTINGS = frozenset({"self", "count", "spi", "clock"})


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
