"""Write a map's printed parts and drilling template into a folder, and check every mesh written.

:func:`write_template` needs no CAD library; :func:`write_parts` builds each distinct part once a
process (:data:`BUILT` keeps the solid and the files' bytes: the holders, channels, mounts and box
of two maps differ only in how many to print) and checks every STL with trimesh: a closed,
watertight solid of a size a printer takes. ``parts.md`` in the folder lists what to print, how
many and how.

Example (needs the ``parts`` extra)::

    >>> from kipukas_board.board.mapfile import load_map
    >>> files = write_parts(load_map("kipuka-8"), "out")                 # doctest: +SKIP
    >>> all(f.check.ok for f in files)                                  # doctest: +SKIP
    True
"""

from __future__ import annotations

import collections
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.maker.parts import dimensions as dim
from kipukas_board.maker.parts.cad import load_models, load_trimesh
from kipukas_board.maker.parts.template import Template, drawing, plan, to_svg
from kipukas_board.maker.parts.template_pdf import write_pdf
from kipukas_board.show.layout import default_layout

#: The STL's chord tolerance in mm: a 2.3 mm bore keeps its size within a hundredth.
STL_TOLERANCE = 0.02
STL_ANGULAR = 0.15
#: The smallest part this project prints (a diffuser strip is 1.2 mm thick).
MIN_SIZE = 1.0
#: Parts built in this process, by file stem: (STL bytes, STEP bytes, the build123d solid). Every
#: part's parameters follow from its stem, so a stem built once is the same part for every map.
BUILT: dict[str, tuple[bytes, bytes, Any]] = {}


@dataclass(frozen=True)
class MeshCheck:
    watertight: bool
    volume_ok: bool
    size: tuple[float, float, float]
    volume: float

    @property
    def ok(self) -> bool:
        return self.watertight and self.volume_ok and self.fits and min(self.size) >= MIN_SIZE

    @property
    def fits(self) -> bool:
        return all(s <= b for s, b in zip(sorted(self.size), sorted(dim.PRINT_BED), strict=True))

    def problems(self) -> list[str]:
        out = []
        if not self.watertight:
            out.append("the mesh has holes (not watertight)")
        if not self.volume_ok:
            out.append("the mesh is not a closed solid with outward faces")
        if not self.fits:
            out.append(f"{' x '.join(f'{s:.0f}' for s in self.size)} mm does not fit a "
                       f"{dim.PRINT_BED[0]:g} x {dim.PRINT_BED[1]:g} mm bed")
        if min(self.size) < MIN_SIZE:
            out.append(f"thinner than {MIN_SIZE:g} mm")
        return out


@dataclass(frozen=True)
class PartFile:
    stem: str
    title: str
    count: int
    stl: Path
    step: Path | None
    png: Path | None
    check: MeshCheck
    material: str
    layer: float
    supports: str


@dataclass(frozen=True)
class TemplateFiles:
    svg: Path
    pdf: Path
    pages: int
    template: Template


def check_stl(path: str | Path) -> MeshCheck:
    """What trimesh says of an STL: watertight, a positive-volume solid, its size in mm."""
    trimesh = load_trimesh()
    mesh = trimesh.load_mesh(str(path))
    size = tuple(float(v) for v in mesh.extents)
    return MeshCheck(bool(mesh.is_watertight), bool(mesh.is_volume) and mesh.volume > 0, size, float(mesh.volume))


def write_template(board: BoardMap, out: str | Path, page: str = "a4", per_territory: int = 3) -> TemplateFiles:
    """``<stem>-template.svg`` (1:1 in mm) and ``<stem>-template-<page>.pdf`` (tiled) in ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t = plan(board, per_territory)
    shapes = drawing(t)
    stem = _stem(board)
    svg = out / f"{stem}-template.svg"
    svg.write_text(to_svg(shapes, t.width, t.depth), encoding="utf-8")
    pdf = out / f"{stem}-template-{page}.pdf"
    pages = write_pdf(shapes, t.width, t.depth, pdf, page, f"{board.name}: drilling template")
    return TemplateFiles(svg, pdf, pages, t)


def _stem(board: BoardMap) -> str:
    return Path(board.source).stem if board.source else "".join(c if c.isalnum() else "-" for c in board.name)


def needs(board: BoardMap, per_territory: int = 3) -> tuple[dict[str, int], dict[int, int]]:
    """How many reed holders of each stand kind and LED segments of each length the map takes."""
    kinds = collections.Counter(s.kind for s in board.stands.values())
    layout = default_layout(board, per_territory)
    lengths = collections.Counter(len(px) for px in (*layout.territories.values(), *layout.stands.values()))
    return dict(kinds), dict(lengths)


def write_parts(board: BoardMap, out: str | Path, step: bool = True, render: bool = False,
                per_territory: int = 3, cache: dict[str, Any] | None = None,
                cameras: dict[str, int] | None = None) -> list[PartFile]:
    """Build, write and check every part ``board`` needs; ``cameras`` says how many mounts of each
    camera (``cm3``, ``c920``) to print. ``cache`` defaults to :data:`BUILT`."""
    models = load_models()
    from build123d import export_step, export_stl

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cache = BUILT if cache is None else cache
    kinds, lengths = needs(board, per_territory)
    files: list[PartFile] = []
    for pm in models.all_parts(kinds, lengths, cameras):
        stl, step_path = out / f"{pm.stem}.stl", out / f"{pm.stem}.step"
        if pm.stem not in cache:
            part = pm.build()
            with tempfile.TemporaryDirectory() as tmp:
                export_stl(part, f"{tmp}/p.stl", tolerance=STL_TOLERANCE, angular_tolerance=STL_ANGULAR)
                export_step(part, f"{tmp}/p.step")
                cache[pm.stem] = (Path(f"{tmp}/p.stl").read_bytes(), Path(f"{tmp}/p.step").read_bytes(), part)
        stl_bytes, step_bytes, _ = cache[pm.stem]
        stl.write_bytes(stl_bytes)
        if step:
            step_path.write_bytes(step_bytes)
        png = None
        if render:
            from kipukas_board.maker.parts.render import render_png

            png = render_png(stl, out / f"{pm.stem}.png", pm.title)
        files.append(PartFile(pm.stem, pm.title, pm.count, stl, step_path if step else None, png, check_stl(stl),
                              pm.material, pm.layer, pm.supports))
    (out / "parts.md").write_text(parts_table(board, files), encoding="utf-8")
    return files


def parts_table(board: BoardMap, files: list[PartFile]) -> str:
    """What to print for ``board``: a Markdown table."""
    lines = [f"# Printed parts for {board.name}", "",
             "| file | what | print | size (mm) | material | layer | supports |",
             "|---|---|---:|---|---|---:|---|"]
    for f in files:
        size = " x ".join(f"{s:.1f}" for s in f.check.size)
        lines.append(f"| {f.stl.name} | {f.title} | {f.count} | {size} | {f.material} | {f.layer:g} mm "
                     f"| {f.supports} |")
    return "\n".join(lines) + "\n"
