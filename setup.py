"""Build-time layout of the wheel: the top-level data folders shipped inside the package.

Everything else (metadata, dependencies, entry points) is in pyproject.toml. The maps and the sensor
board's firmware stay where the product keeps them (``calibration/maps/``, ``firmware/``) and are
mapped into the wheel as ``kipukas_board/data/...``, where :func:`kipukas_board.resources.shipped_dir`
finds them. The code's own packages are found as usual, so a new subpackage needs no entry here.
"""

from pathlib import Path

from setuptools import find_namespace_packages, setup

#: wheel package -> folder in the source tree; each subfolder comes along as a package of its own.
SHIPPED_ROOTS = {"kipukas_board.data.maps": "calibration/maps", "kipukas_board.data.firmware": "firmware"}
#: the data files of those folders (their .py files are modules of the package and come anyway).
SHIPPED_DATA = ["*.toml", "*.md"]


def shipped_packages() -> dict[str, str]:
    """Every folder under the shipped roots as ``{package: folder}`` (namespace packages: no __init__.py)."""
    out = {}
    for package, folder in SHIPPED_ROOTS.items():
        for d in [Path(folder), *sorted(p for p in Path(folder).rglob("*") if p.is_dir())]:
            if "__pycache__" not in d.parts:
                rel = d.relative_to(folder).parts
                out[".".join([package, *rel])] = d.as_posix()
    return out


SHIPPED = shipped_packages()

# Namespace discovery: a folder without __init__.py in the package (the pages' templates/ and
# static/, web/ and each game mode's, the fleet's examples/) is a package of data files, all shipped.
CODE = find_namespace_packages(include=["kipukas_board", "kipukas_board.*"], exclude=["*.__pycache__"])
PAGE_FILES = {p: ["*"] for p in CODE if not Path(*p.split("."), "__init__.py").exists()}

setup(
    packages=CODE + list(SHIPPED),
    package_dir=SHIPPED,
    package_data={
        **PAGE_FILES,
        **{p: SHIPPED_DATA for p in SHIPPED},
    },
)
