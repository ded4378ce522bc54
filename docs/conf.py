"""Sphinx configuration for kipukas-board's documentation (built by ``scripts/build-docs``).

The source directory is the repository itself, not ``docs/``: the hardware, firmware, map-format and
service pages live beside what they describe (``hardware/README.md``, ``firmware/PROTOCOL.md``...) and
are read where they are, so a maker browsing the repository and a reader of the site see one text.
``include_patterns`` picks those files; everything else in the tree is ignored.

MyST reads the Markdown; autodoc and autosummary turn the package's docstrings (with their Sphinx roles)
into the API reference; sphinx-argparse draws the command-line reference from the real parser.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

project = "kipukas-board"
author = "the kipukas-board developers"
copyright = "2026, the kipukas-board developers"  # noqa: A001 (Sphinx's own name for it)

root_doc = "docs/index"
include_patterns = [
    "docs/**",
    "hardware/*.md",
    "firmware/*.md",
    "calibration/maps/README.md",
    "systemd/README.md",
]
exclude_patterns = ["docs/_build/**", ".venv/**", "node_modules/**"]

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinxarg.ext",
]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = [
    # sphinx-argparse's domain answers MyST's "any" look-ups with a notice, not a failure.
    "myst.domains",
    # firmware/PROTOCOL.md marks its worked exchanges as ```example blocks (plain text to Pygments).
    "misc.highlighting_failure",
]

autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"
autodoc_member_order = "bysource"
# The vision and camera adapters import OpenCV and friends; a docs build without them still documents
# the modules' docstrings.
autodoc_mock_imports = ["build123d", "cv2", "picamera2", "rpi_ws281x", "spidev", "lgpio", "pyzbar", "zxingcpp"]

html_theme = "furo"
html_title = "kipukas-board"
html_static_path = ["_static"]
