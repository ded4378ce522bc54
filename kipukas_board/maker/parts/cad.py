"""The one door to the CAD library: build123d is imported here, when a part is built, and a missing
install is named with the command that fixes it.

Example::

    >>> isinstance(available(), bool)
    True
"""

from __future__ import annotations

import importlib
import importlib.util
import types

from kipukas_board.install_hints import extra_hint

INSTALL_HINT = (f"the printed parts need the CAD extra: {extra_hint('parts')}; build123d, trimesh, matplotlib, "
                f"reportlab, about 700 MB on a development machine, not the Pi")


class CadMissing(RuntimeError):
    """build123d (or trimesh for the checks) is not installed."""


def available() -> bool:
    """Whether build123d can be imported, without importing it (that takes seconds)."""
    return importlib.util.find_spec("build123d") is not None


def load_models() -> types.ModuleType:
    """:mod:`kipukas_board.maker.parts.models`, imported now; :class:`CadMissing` naming the extra if build123d
    is not installed."""
    if not available():
        raise CadMissing(INSTALL_HINT)
    return importlib.import_module("kipukas_board.maker.parts.models")


def load_trimesh() -> types.ModuleType:
    if importlib.util.find_spec("trimesh") is None:
        raise CadMissing(INSTALL_HINT)
    return importlib.import_module("trimesh")
