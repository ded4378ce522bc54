"""Where the files the package ships besides its code are: the maps and the sensor board's firmware.

In the source tree they sit at the top, where map makers and whoever flashes the Pico look for them
(``calibration/maps/``, ``firmware/``). A built wheel carries them inside the package as
``kipukas_board/data/maps`` and ``kipukas_board/data/firmware`` (``setup.py`` maps the folders there
at build time, so git holds one copy), and :mod:`importlib.resources` finds them, so an installed
board needs no checkout.

Example::

    >>> (shipped_dir("maps") / "kipuka-8.toml").is_file()
    True
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Literal

Shipped = Literal["maps", "firmware"]

#: Where each kind lives in a source checkout (the wheel's ``data/<kind>`` is built from it).
IN_CHECKOUT: dict[str, str] = {"maps": "calibration/maps", "firmware": "firmware"}


def shipped_dir(kind: Shipped) -> Path:
    """The folder of shipped ``kind`` files: inside the installed package, else in the checkout.

    A real directory in both cases (the firmware's files go on ``sys.path``): a wheel is installed
    unpacked, and the package is never imported from a zip.
    """
    packaged = resources.files("kipukas_board").joinpath("data", kind)
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[1] / IN_CHECKOUT[kind]
