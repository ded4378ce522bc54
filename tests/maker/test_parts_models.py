"""The printed parts: every STL a closed, watertight solid a printer takes, as many as the map
needs, and the sizes that matter fitting the BOM's parts (the reed's glass, the Pi's holes, the
camera's holes, the strip). The parts are built once for the whole module (every map reuses them)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kipukas_board.board.mapfile import available_maps, load_map
from kipukas_board.cli import main
from kipukas_board.hardware import parts_spec as spec
from kipukas_board.maker import bom as bom_mod
from kipukas_board.maker.parts import cad
from kipukas_board.maker.parts import dimensions as dim
from kipukas_board.maker.parts.params import FIT, CameraMount, ElectronicsBox, LedChannel, ReedHolder
from kipukas_board.show.layout import default_layout

ROOT = Path(__file__).resolve().parents[2]


def need_cad() -> None:
    if importlib.util.find_spec("build123d") is None or importlib.util.find_spec("trimesh") is None:
        message = "build123d or trimesh is not installed (the 'parts' extra; scripts/run-tests installs it)"
        if os.environ.get("KIPUKAS_REQUIRE_TOOLS") == "1":
            pytest.fail(f"{message}, and KIPUKAS_REQUIRE_TOOLS=1 says this run must have it")
        pytest.skip(message)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every shipped map's parts, written by the command itself (each part is built once)."""
    need_cad()
    out = tmp_path_factory.mktemp("parts")
    for name in available_maps():
        assert main(["hardware", "parts", "--map", name, "--out", str(out / name), "--players", "4"]) == 0
    return out


def solid(stem: str):
    from kipukas_board.maker.parts.build import BUILT

    return BUILT[stem][2]


def inside(part, x: float, y: float, z: float) -> bool:
    from build123d import Vector

    return part.is_inside(Vector(x, y, z))


def test_every_part_is_a_closed_watertight_solid_of_a_printable_size(built: Path) -> None:
    import trimesh

    stls = sorted(built.glob("*/*.stl"))
    assert len(stls) == 10 * len(available_maps())
    for stl in stls:
        mesh = trimesh.load_mesh(stl)
        assert mesh.is_watertight, f"{stl.name} has holes in its mesh"
        assert mesh.is_winding_consistent and mesh.is_volume, f"{stl.name} is not a closed solid"
        assert mesh.volume > 50, f"{stl.name}: {mesh.volume:.0f} mm3"
        assert min(mesh.extents) >= 1.0 and max(mesh.extents) <= 220, f"{stl.name}: {mesh.extents}"
        assert mesh.bounds[0][2] == pytest.approx(0, abs=1e-3), f"{stl.name} does not lie on the bed"
        assert stl.with_suffix(".step").read_bytes().startswith(b"ISO-10303-21")


def test_the_parts_table_counts_what_each_map_needs(built: Path) -> None:
    for name in available_maps():
        board = load_map(name)
        rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in
                (built / name / "parts.md").read_text().splitlines() if line.startswith("| ") and ".stl" in line}
        kinds = [s.kind for s in board.stands.values()]
        assert rows["reed-holder-territory.stl"][2] == str(kinds.count("territory"))
        assert rows["reed-holder-movement.stl"][2] == str(kinds.count("movement"))
        layout = default_layout(board)
        segments = [len(px) for px in (*layout.territories.values(), *layout.stands.values())]
        assert rows["led-channel-3px.stl"][2] == str(segments.count(3))
        assert rows["led-diffuser-1px.stl"][2] == str(segments.count(1))
        bom = bom_mod.build_bom(board, 4, 5)
        assert rows["camera-mount-cm3.stl"][2] == str(bom.qty("csi-camera")) == "2"
        assert rows["camera-mount-c920.stl"][2] == str(bom.qty("usb-camera")) == "2"


@pytest.mark.parametrize("kind", ["territory", "movement"])
def test_the_reed_holder_takes_the_reed_glass_upright(built: Path, kind: str) -> None:
    p = ReedHolder.for_kind(kind)
    part = solid(f"reed-holder-{kind}")
    top = p.height
    glass_top = top - p.glass_depth
    glass_bottom = glass_top - spec.REED_GLASS_LENGTH_MM
    # The bore is open along the whole glass and wide enough for it, with a wall around it.
    for z in (glass_bottom + 0.1, (glass_top + glass_bottom) / 2, glass_top - 0.1):
        assert not inside(part, 0, 0, z)
        assert not inside(part, 0, -spec.REED_GLASS_DIAMETER_MM / 2, z)  # away from the lead slot (+x)
        assert inside(part, 0, -(p.glass_bore / 2 + 0.5), z)
        # The bore is the spec's hole, not merely some hole the glass fits: plastic just past it.
        assert not inside(part, 0, -(spec.REED_HOLE_DIAMETER_MM / 2 - 0.05), z)
        assert inside(part, 0, -(spec.REED_HOLE_DIAMETER_MM / 2 + 0.05), z)
    assert inside(part, 0, -(p.glass_bore / 2 + 0.5), glass_bottom - 0.5)  # the glass rests on a floor
    assert not inside(part, 0, 0, 0.5)  # the bottom lead's hole
    # The top lead's bend needs its room: the gap the magnet sees is the spec's plus what the bend takes.
    assert p.glass_depth >= spec.REED_BEND_FROM_GLASS_MM + spec.REED_LEAD_DIAMETER_MM
    assert p.magnet_to_reed == pytest.approx(spec.TOKEN_FLOOR_MM + spec.MAP_TOP_MM + p.glass_depth)
    assert p.hole_size > p.body and p.hole_depth == pytest.approx(p.body_height)
    # At that gap the recommended magnet still closes every reed of the grade with room to spare, and
    # the bring-up's 15 mm lift still opens it.
    seated = p.seated()
    assert seated.seated_gap_mm == pytest.approx(p.magnet_to_reed)
    assert p.magnet_to_reed < seated.closes_within_mm
    assert seated.seated_mt >= 2 * seated.pull_in_mt[1]
    assert p.magnet_to_reed + 15 > seated.opens_beyond_mm


def test_the_box_stands_each_board_on_its_own_holes(built: Path) -> None:
    p = ElectronicsBox()
    part = solid("box-base")
    origins = p.board_origins()
    boards = {"pi": dim.PI5, "sensor": dim.SENSOR_CARRIER, "power": dim.POWER_BOARD}
    z = p.floor + p.standoff / 2
    for key, board in boards.items():
        ox, oy = origins[key]
        assert ox >= 0 and ox + board.width <= p.inner_width and oy >= 0 and oy + board.depth <= p.inner_depth
        assert p.floor + p.standoff + board.height_above <= p.outer[2] + p.lid, f"{board.name} is too tall"
        for hx, hy in board.holes:
            x, y = p.wall + ox + hx, p.wall + oy + hy
            assert not inside(part, x, y, z), f"{board.name}: no screw hole at ({hx}, {hy})"
            assert inside(part, x + board.hole_diameter / 2 + 0.8, y, z), f"{board.name}: no standoff at ({hx}, {hy})"
    assert dim.PI5.hole_spacing == (58.0, 49.0)
    rects = [(origins[k][0], origins[k][1], b.width, b.depth) for k, b in boards.items()]
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]


def test_the_front_wall_takes_the_xt60_inlet_body_and_both_ear_screws(built: Path) -> None:
    """J3's body passes through its cut-out, a screw through each ear, and the wall stands between
    them and under the flange, so the flange has something to bear on."""
    p = ElectronicsBox()
    part = solid("box-base")
    inlet = dim.XT60E_M
    x, z = p.inlet_centre()
    y = p.wall / 2
    bw, bh = inlet.body
    for dx, dz in ((0, 0), (bw / 2, bh / 2 - 0.1), (-bw / 2, -bh / 2 + 0.1)):
        assert not inside(part, x + dx, y, z + dz), f"the inlet's body meets the wall at ({dx}, {dz})"
    for side in (-1, 1):
        ear = x + side * inlet.ear_pitch / 2
        assert not inside(part, ear, y, z), "no screw hole for an ear"
        between = x + side * (bw / 2 + inlet.clearance + inlet.ear_pitch / 2 - inlet.ear_hole / 2) / 2
        assert inside(part, between, y, z), "no wall between the body and the ear"
    assert inside(part, x, y, z + inlet.flange[1] / 2 - 0.5), "no wall under the flange's top"
    assert p.wall + inlet.flange[0] / 2 < x < p.outer[0] - p.wall - inlet.flange[0] / 2
    assert z - inlet.flange[1] / 2 > p.floor


def test_the_camera_mounts_fit_their_cameras(built: Path) -> None:
    m = CameraMount("cm3")
    part = solid("camera-mount-cm3")
    cam = dim.CAMERA_MODULE_3

    def at(x: float, y: float, z: float) -> bool:
        """A point of the slab drawn on its back, in the part as it lies (standing on its top edge)."""
        return inside(part, x, z, m.height - y)

    lx, ly = dim.CAMERA_MODULE_3_LENS
    lens_y = m.height - m.lens_from_top
    assert not at(0, lens_y, m.thickness - 0.5)  # the window in front of the lens
    bx, by = -lx, lens_y - ly
    for hx, hy in cam.holes:
        assert not at(bx + hx, by + hy, 4.0), f"no screw hole at ({hx}, {hy})"
        assert at(bx + hx + 1.6, by + hy, 4.0)
    assert not at(bx + 0.1, by + 0.1, 1.0) and not at(bx + cam.width - 0.1, by + cam.depth - 0.1, 1.0)
    c920 = solid("camera-mount-c920").bounding_box().size
    assert dim.C920.width <= c920.X and dim.C920.depth <= c920.Y


@pytest.mark.parametrize("pixels", [1, 3])
def test_the_led_channel_holds_its_strip_and_its_diffuser(built: Path, pixels: int) -> None:
    c = LedChannel(pixels)
    part = solid(f"led-channel-{pixels}px")
    strip_z = c.floor + 1.0
    for x in (-pixels * dim.STRIP_PITCH / 2, 0.0, pixels * dim.STRIP_PITCH / 2):
        assert not inside(part, x, dim.STRIP.width / 2, strip_z)
        assert not inside(part, x, -dim.STRIP.width / 2, strip_z)
    assert inside(part, 0, c.inner_width / 2 + c.wall / 2, strip_z)
    diffuser = solid(f"led-diffuser-{pixels}px").bounding_box().size
    assert c.inner_width < diffuser.Y <= c.inner_width + 2 * c.ledge - FIT / 2
    assert c.inner_length < diffuser.X <= c.inner_length + 2 * c.ledge - FIT / 2


@pytest.mark.parametrize("players", bom_mod.PLAYERS)
@pytest.mark.parametrize("pi", bom_mod.PIS)
def test_the_parts_are_sized_for_the_parts_the_bom_names(players: int, pi: int) -> None:
    bom = bom_mod.build_bom(load_map("kipuka-13"), players, pi)
    names = {p.name: p for p in bom.parts}
    for key, (mpn, _figure) in dim.BOM_PARTS.items():
        if key == "pi" and pi == 4:
            continue  # a Pi 4 B has the Pi 5's outline and holes
        if key in ("csi-camera", "usb-camera") and key not in names:
            continue  # this build has no camera of that kind
        assert key in names, f"the BOM has no {key!r} line"
        assert mpn in names[key].mpn, f"the BOM's {key} is {names[key].mpn!r}; the parts are sized for {mpn!r}"
    assert names["reed"].mpn.startswith(spec.REED_PART.split()[-1])


def test_the_board_starts_without_loading_the_cad_library() -> None:
    code = ("import sys; from kipukas_board.cli import build_parser; build_parser(); "
            "import kipukas_board.maker.parts.models, kipukas_board.maker.parts.build; "
            "print(sorted(m for m in ('build123d', 'OCP', 'trimesh', 'matplotlib', 'reportlab') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_without_the_cad_extra_the_command_says_how_to_install_it(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(cad, "available", lambda: False)
    assert main(["hardware", "parts", "--map", "kipuka-8", "--out", str(tmp_path)]) == 1
    assert ".venv/bin/pip install -e '.[parts]'" in capsys.readouterr().err
    assert (tmp_path / "kipuka-8-template.svg").exists()


def test_a_part_renders_to_a_small_picture(built: Path, tmp_path: Path) -> None:
    import matplotlib.image

    from kipukas_board.maker.parts.render import render_png

    png = render_png(built / "kipuka-8" / "reed-holder-territory.stl", tmp_path / "holder.png", "holder")
    image = matplotlib.image.imread(png)
    assert image.shape[:2] == (360, 480)
    orange = (image[..., 0] > 0.3) & (image[..., 2] < image[..., 0] * 0.6)
    assert orange.mean() > 0.03, "the part does not show in the picture"


def test_the_files_it_names_are_paths_as_written_with_the_docs_trailing_slash(built: Path, tmp_path: Path,
                                                                            capsys) -> None:
    """The makers' pages write ``--out parts/``: every file the command names must be one path, not
    ``parts//parts.md``."""
    out = f"{tmp_path / 'parts'}/"
    assert main(["hardware", "parts", "--map", "kipuka-8", "--out", out, "--no-step"]) == 0
    named = [line.split(":")[0] for line in capsys.readouterr().out.splitlines() if line.startswith(out[:-1])]
    assert any(name.endswith("parts.md") for name in named)
    assert [name for name in named if "//" in name] == []
    assert all(Path(name).exists() for name in named)
