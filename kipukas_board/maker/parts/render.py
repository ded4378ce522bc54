"""A small picture of a printed part for the makers' docs: the STL shaded from one light, drawn by
matplotlib off screen (no display, no GPU), so it renders the same on CI.

Example (needs the ``parts`` extra)::

    >>> png = render_png("out/reed-holder-movement.stl", "out/reed-holder-movement.png")  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from kipukas_board.maker.parts.cad import load_trimesh

#: Most triangles after splitting the long ones: matplotlib's 3D drawing slows with more.
MAX_FACES = 60_000


def render_png(stl: str | Path, png: str | Path, title: str = "", size: tuple[int, int] = (480, 360)) -> Path:
    """Draw ``stl`` seen from the front, right and above, light from the upper left; returns ``png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    trimesh = load_trimesh()
    mesh = trimesh.load_mesh(str(stl))
    # matplotlib sorts whole triangles by depth (a painter's algorithm): the CAD export's long thin
    # triangles across a flat face then hide what stands in front of them. Small ones sort right.
    # Coarser splits for a part with many faces already, so the drawing stays quick.
    vertices, faces = mesh.vertices, mesh.faces
    for parts_across in (25, 15, 8):
        v, f = trimesh.remesh.subdivide_to_size(mesh.vertices, mesh.faces,
                                                max_edge=float(mesh.extents.max()) / parts_across, max_iter=8)
        if len(f) <= MAX_FACES:
            vertices, faces = v, f
            break
    tris = vertices[faces]
    normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
    light = np.array([-0.4, -0.6, 0.7])
    light /= np.linalg.norm(light)
    shade = 0.35 + 0.65 * np.clip(normals @ light, 0, 1)
    base = np.array([0.93, 0.55, 0.18])
    colours = np.clip(shade[:, None] * base[None, :], 0, 1)
    dpi = 100
    fig = plt.figure(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi)
    ax = fig.add_subplot(projection="3d")
    ax.add_collection3d(Poly3DCollection(tris, facecolors=colours, edgecolors="none", linewidths=0))
    lo, hi = mesh.bounds
    for axis, a, b in zip((ax.set_xlim, ax.set_ylim, ax.set_zlim), lo, hi, strict=True):
        axis(a, b)
    # True proportions, with a floor so a thin diffuser still shows its thickness.
    ax.set_box_aspect(np.maximum(hi - lo, (hi - lo).max() / 12), zoom=1.0)
    ax.view_init(elev=28, azim=-58)
    ax.set_axis_off()
    w, d, h = hi - lo
    ax.set_title(f"{title}\n{w:.1f} x {d:.1f} x {h:.1f} mm" if title else f"{w:.1f} x {d:.1f} x {h:.1f} mm",
                 fontsize=8)
    fig.subplots_adjust(left=0, right=1, bottom=0, top=0.9)
    fig.savefig(str(png), dpi=dpi)
    plt.close(fig)
    # 64 colours are plenty for one shaded colour, and make the file a third of the size.
    from PIL import Image

    with Image.open(png) as im:
        im.convert("RGB").quantize(64).save(png, optimize=True)
    return Path(png)
