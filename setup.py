"""Build-time layout of the wheel: the top-level data folders shipped inside the package.

Everything else (metadata, dependencies, entry points) is in pyproject.toml. The maps and the sensor
board's firmware stay where the product keeps them (``calibration/maps/``, ``firmware/``) and are
mapped into the wheel as ``kipukas_board/data/...``, where :func:`kipukas_board.resources.shipped_dir`
finds them. The code's own packages are found as usual, so a new subpackage needs no entry here.
"""

from setuptools import find_namespace_packages, setup

#: wheel package -> folder in the source tree (namespace packages: no __init__.py in either).
SHIPPED = {
    "kipukas_board.data.maps": "calibration/maps",
    "kipukas_board.data.firmware": "firmware",
    "kipukas_board.data.firmware.machine_shim": "firmware/machine_shim",
}

# Namespace discovery: every page's templates/ and static/ folders (web/, each game mode's) are
# packages of data files.
CODE = find_namespace_packages(include=["kipukas_board", "kipukas_board.*"], exclude=["*.__pycache__"])
PAGE_FILES = {p: ["*.html"] for p in CODE if p.endswith(".templates")} | {p: ["*"] for p in CODE if p.endswith(".static")}

setup(
    packages=CODE + list(SHIPPED),
    package_dir=SHIPPED,
    package_data={
        **PAGE_FILES,
        "kipukas_board.data.maps": ["*.toml", "*.md"],
        "kipukas_board.data.firmware": ["*.md"],
    },
)
