"""What pytest collects from the package itself: its docstring examples (``--doctest-modules``).

The printed parts' CAD models need the optional ``parts`` extra (build123d); a venv without it (a Pi's,
or ``pip install .`` alone) still runs every other example, so that one module is left out there.
"""

from __future__ import annotations

import importlib.util

collect_ignore: list[str] = []
if importlib.util.find_spec("build123d") is None:
    collect_ignore.append("kipukas_board/maker/parts/models.py")
