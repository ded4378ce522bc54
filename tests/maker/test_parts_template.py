"""The drilling template: every stand's hole where the map says, in mm, the LED pieces of the
default layout, and a PDF whose tiles cover the whole map. No CAD library needed."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kipukas_board.board.mapfile import available_maps, load_map, parse_map
from kipukas_board.cli import main
from kipukas_board.maker.parts.params import ReedHolder
from kipukas_board.maker.parts.template import STRIP_BAND, TemplateError, drawing, plan, to_svg
from kipukas_board.maker.parts.template_pdf import OVERLAP, landscape, page_size, tiles
from kipukas_board.show.layout import default_layout
from tests.maptools import map_data, to_toml

SVG = "{http://www.w3.org/2000/svg}"


def svg_of(board) -> ET.Element:
    return ET.fromstring(to_svg(drawing(plan(board))))


@pytest.mark.parametrize("name", available_maps())
def test_every_stand_has_its_hole_where_the_map_puts_it(name: str) -> None:
    board = load_map(name)
    root = svg_of(board)
    w, d = board.physical.width_mm, board.physical.depth_mm
    assert (root.get("width"), root.get("height")) == (f"{w:g}mm", f"{d:g}mm")
    assert root.get("viewBox") == f"0 0 {w:g} {d:g}"
    by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
    for sid, stand in board.stands.items():
        hole = by_id.get(f"hole-{sid}")
        assert hole is not None, f"no hole for stand {sid}"
        x, y = board.position_mm(sid)
        size = ReedHolder.for_kind(stand.kind).hole_size
        if stand.kind == "territory":
            assert hole.tag == f"{SVG}rect"
            assert float(hole.get("x")) + size / 2 == pytest.approx(x, abs=0.01)
            assert float(hole.get("y")) + size / 2 == pytest.approx(y, abs=0.01)
            assert float(hole.get("width")) == pytest.approx(size)
        else:
            assert hole.tag == f"{SVG}circle"
            assert (float(hole.get("cx")), float(hole.get("cy"))) == pytest.approx((x, y), abs=0.01)
            assert 2 * float(hole.get("r")) == pytest.approx(size)
    assert len([k for k in by_id if k.startswith("hole-")]) == len(board.stands)


@pytest.mark.parametrize("name", available_maps())
def test_every_led_segment_of_the_default_layout_has_its_piece(name: str) -> None:
    board = load_map(name)
    t = plan(board)
    layout = default_layout(board)
    expected = sorted([len(px) for px in layout.territories.values()] + [len(px) for px in layout.stands.values()])
    assert sorted(p.pixels for p in t.leds) == expected
    for p in t.leds:
        length = math.dist(p.start, p.end)
        assert length == pytest.approx(p.pixels * 1000 / 60)
        assert p.start[0] >= 0 and p.end[0] <= t.width and 0 <= p.start[1] <= t.depth
    # One reed route per stand and one LED chain through every piece.
    assert sum(r.kind == "reed" for r in t.routes) == len(board.stands)
    chain = next(r for r in t.routes if r.kind == "led")
    assert len(chain.points) == 1 + 2 * len(t.leds)


def test_the_holes_are_wired_in_the_map_stands_order() -> None:
    board = load_map("kipuka-12")
    t = plan(board)
    assert [h.stand for h in t.holes] == list(board.stands)
    assert (t.holes[0].matrix, t.holes[0].switch) == ("r0c0", 1)
    assert (t.holes[9].matrix, t.holes[9].switch) == ("r1c1", 10)


def test_a_map_without_a_physical_size_is_refused_with_what_to_add(tmp_path: Path, capsys) -> None:
    data = map_data()
    del data["physical"]
    path = tmp_path / "plain.toml"
    path.write_text(to_toml(data))
    with pytest.raises(TemplateError, match=r"no \[physical\] section.*width_mm, depth_mm and mm_per_unit"):
        plan(load_map(str(path)))
    assert main(["hardware", "parts", "--map", str(path), "--out", str(tmp_path / "out"), "--template-only"]) == 2
    assert "Measuring a printed map" in capsys.readouterr().err


def test_stands_closer_than_the_reed_pitch_are_warned_and_marked() -> None:
    data = map_data()
    a, b = data["stands"][0], data["stands"][1]
    b["x"], b["y"] = a["x"] + 30, a["y"]  # 15 mm apart at 0.5 mm a unit
    t = plan(parse_map(to_toml(data), source="close.toml"))
    assert any(f"stands {a['id']} and {b['id']} are 15 mm apart" in w for w in t.warnings)
    assert any(s.style == "warn" for s in drawing(t))
    assert plan(load_map("kipuka-8")).warnings == []


def test_template_only_writes_the_svg_and_a_tiled_pdf(tmp_path: Path, capsys) -> None:
    assert main(["hardware", "parts", "--map", "kipuka-8", "--out", str(tmp_path), "--template-only",
                 "--page", "letter"]) == 0
    svg = (tmp_path / "kipuka-8-template.svg").read_text()
    assert 'width="500mm"' in svg
    pdf = (tmp_path / "kipuka-8-template-letter.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")
    pages = len(tiles(500, 270, "letter", landscape(500, 270, "letter")))
    assert pages < len(tiles(500, 270, "letter"))  # landscape: fewer pages for a wide map
    assert f"/Count {pages}".encode() in pdf  # the page tree holds one page per tile
    assert f"on {pages} LETTER page(s)" in capsys.readouterr().out
    assert not list(tmp_path.glob("*.stl"))


@given(width=st.floats(50, 3000), depth=st.floats(50, 3000), page=st.sampled_from(["a4", "letter"]),
       turn=st.booleans(), fx=st.floats(0, 1), fy=st.floats(0, 1))
def test_the_pdf_tiles_cover_every_point_of_the_map(width: float, depth: float, page: str, turn: bool, fx: float,
                                                   fy: float) -> None:
    pw, ph = page_size(page, turn)
    area_w, area_h = pw - 20, ph - 28
    x, y = fx * width, fy * depth
    ts = tiles(width, depth, page, turn)
    covering = [t for t in ts if t[2] <= x <= t[2] + area_w and t[3] <= y <= t[3] + area_h]
    assert covering, (x, y)
    # Neighbouring tiles overlap, so an alignment cross at a tile's corner shows on both pages.
    if len({t[1] for t in ts}) > 1:
        assert ts[1][2] == pytest.approx(area_w - OVERLAP)


@pytest.mark.parametrize("name", available_maps())
def test_no_led_piece_lies_over_a_stands_hole_or_another_piece(name: str) -> None:
    """A strip piece drawn over a hole would be drilled through, and two pieces in one place cannot
    both be laid: every piece keeps clear of every hole and every other piece."""
    t = plan(load_map(name))
    half = STRIP_BAND / 2
    for p in t.leds:
        x0, x1, y = p.start[0], p.end[0], p.start[1]
        assert x0 >= 0 and x1 <= t.width and half <= y <= t.depth - half, f"{p.label} runs off the map"
        for h in t.holes:
            crosses = x0 - h.size / 2 < h.x < x1 + h.size / 2 and abs(h.y - y) < half + h.size / 2
            assert not crosses, f"{name}: the LED piece of {p.label} lies over stand {h.stand}'s hole"
    for i, a in enumerate(t.leds):
        for b in t.leds[i + 1:]:
            apart = a.end[0] <= b.start[0] or b.end[0] <= a.start[0] or abs(a.start[1] - b.start[1]) >= STRIP_BAND
            assert apart, f"{name}: the LED pieces of {a.label} and {b.label} overlap"
