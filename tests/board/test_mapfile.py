"""Map files: the shipped maps load, and every kind of mistake is reported, all at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kipukas_board.board.mapfile import MapError, available_maps, load_map, parse_map
from tests.maptools import map_data, to_toml

# The two paths that join territory 8 to the rest of kipuka-8.
CUT_8 = {("M4b", "M8a"), ("M7b", "M8a")}


def problems_of(data: dict) -> list[str]:
    with pytest.raises(MapError) as info:
        parse_map(to_toml(data), source="test.toml")
    return info.value.problems


def test_shipped_maps_load_and_have_what_the_issue_asks() -> None:
    assert {"kipuka-8", "kipuka-12"} <= set(available_maps())
    small = load_map("kipuka-8")
    assert len(small.territories) == 8
    big = load_map("kipuka-12")
    assert len(big.territories) == 12
    assert any(t.transit and t.geography == "water" for t in big.territories.values())
    assert big.docks
    kinds = {p.kind for p in big.paths}
    assert {"land", "water", "tunnel"} <= kinds


def test_round_trip_of_the_test_writer_is_valid() -> None:
    board = parse_map(to_toml(map_data()), source="copy.toml")
    assert board.to_json() == load_map("kipuka-8").to_json() | {"name": board.name}


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda d: d["stands"].append(dict(d["stands"][0])), ["stands[24] (id 'T1')", "duplicate stand id 'T1'"]),
        (lambda d: d["territories"].append(dict(d["territories"][0])), ["duplicate territory number 1"]),
        (lambda d: d["paths"].append({"a": "T1", "b": "NOPE", "kind": "land"}),
         ["path to unknown stand 'NOPE'"]),
        (lambda d: d["paths"].append({"a": "T1", "b": "T1", "kind": "land"}), ["from stand 'T1' to itself"]),
        (lambda d: d["paths"].append({"a": "T1", "b": "M1a", "kind": "land"}), ["duplicate path between"]),
        (lambda d: d["paths"].append({"a": "T1", "b": "T2", "kind": "rail"}), ["'rail'", "land, water, tunnel"]),
        (lambda d: d.__setitem__("stands", [s for s in d["stands"] if s["territory"] != 3]),
         ["territory 3: has no stand"]),
        (lambda d: d.__setitem__("stands", [s for s in d["stands"] if s["id"] != "T3"]),
         ["territory 3: has no territory stand"]),
        (lambda d: d["territories"][4].__setitem__("number", 12), ["no territory 5", "numbering has gaps"]),
        (lambda d: d["stands"].append({"id": "LONE", "kind": "movement", "territory": 1, "x": 0, "y": 0}),
         ["stand 'LONE': no path reaches it"]),
        (lambda d: d["territories"][0].__setitem__("transit", True),
         ["stands[0] (id 'T1')", "transit territory"]),
        (lambda d: d["stands"][0].__setitem__("kind", "round"), ["field 'kind' is 'round'"]),
        (lambda d: d["stands"][0].__setitem__("territory", 99), ["there is no territory 99"]),
        (lambda d: d["stands"][0].pop("x"), ["field 'x' must be a number"]),
        (lambda d: d["stands"][0].__setitem__("y", float("nan")), ["field 'y' must be a number", "got nan"]),
        (lambda d: d["stands"][0].__setitem__("x", True), ["field 'x' must be a number", "got True"]),
        (lambda d: d["territories"][0].__setitem__("geography", "lava"), ["'lava'", "mountain"]),
        (lambda d: d["territories"][0].__setitem__("colour", "red"), ["unknown field 'colour'"]),
        (lambda d: d.__setitem__("territories", d["territories"][:7]) or d.__setitem__(
            "stands", [s for s in d["stands"] if s["territory"] <= 7]) or d.__setitem__(
            "paths", [p for p in d["paths"] if "8" not in p["a"] + p["b"]]), ["this map has 7"]),
        (lambda d: d.setdefault("docks", []).append({"stand": "T1"}), ["'T1' is a territory stand"]),
        (lambda d: d.setdefault("docks", []).append({"stand": "M1a"}), ["dock 'M1a' has no water path"]),
        (lambda d: d["paths"].append({"a": "M1a", "b": "M5a", "kind": "water"}),
         ["water path leaves land at 'M1a'", "not a dock"]),
        (lambda d: d.__setitem__("paths", [p for p in d["paths"] if (p["a"], p["b"]) not in CUT_8]),
         ["the map is in pieces"]),
    ],
    ids=["dup-stand", "dup-territory", "unknown-stand", "self-path", "dup-path", "path-kind", "no-stand",
         "no-territory-stand", "gap", "unreached", "transit-with-territory-stand", "stand-kind", "stand-territory",
         "missing-xy", "nan-y", "bool-x", "geography", "unknown-field", "too-few", "dock-on-territory", "dock-no-water",
         "water-not-from-dock", "pieces"],
)
def test_each_kind_of_mistake_is_named(mutate, expected: list[str]) -> None:
    data = map_data()
    mutate(data)
    problems = problems_of(data)
    text = "\n".join(problems)
    for fragment in expected:
        assert fragment in text, f"{fragment!r} not in:\n{text}"


def test_a_land_path_onto_water_is_a_mistake() -> None:
    data = map_data("kipuka-12")
    water = {t["number"] for t in data["territories"] if t["geography"] == "water"}
    lake = next(s["id"] for s in data["stands"] if s["territory"] in water)
    shore = next(s["id"] for s in data["stands"] if s["territory"] not in water and s["kind"] == "movement")
    data["paths"].append({"a": shore, "b": lake})  # kind left out: land
    text = "\n".join(problems_of(data))
    assert f"field 'kind' is 'land', but {lake!r} is on water" in text and 'expected kind = "water"' in text


def test_a_lone_stand_does_not_hide_a_map_in_pieces() -> None:
    data = map_data()
    data["stands"].append({"id": "LONE", "kind": "movement", "territory": 1, "x": 0, "y": 0})
    data["paths"] = [p for p in data["paths"] if (p["a"], p["b"]) not in CUT_8]
    text = "\n".join(problems_of(data))
    assert "stand 'LONE': no path reaches it" in text and "the map is in pieces" in text


def test_every_problem_is_reported_at_once() -> None:
    data = map_data()
    data["stands"].append(dict(data["stands"][1]))                      # duplicate M1a
    data["paths"].append({"a": "T2", "b": "GHOST", "kind": "land"})     # unknown stand
    data["territories"][0]["geography"] = "swamp"                       # bad geography
    data["stands"] = [s for s in data["stands"] if s["id"] != "T6"]     # territory 6 without square stand
    problems = problems_of(data)
    assert len(problems) >= 4
    joined = "\n".join(problems)
    for fragment in ("'M1a'", "'GHOST'", "'swamp'", "territory 6"):
        assert fragment in joined


def test_not_toml_and_missing_file() -> None:
    with pytest.raises(MapError, match="not valid TOML"):
        parse_map("name = [", source="x.toml")
    with pytest.raises(MapError, match="no such map file"):
        load_map("/nonexistent/map.toml")


def test_run_with_broken_map_reports_and_exits_2_before_serving(tmp_path: Path) -> None:
    data = map_data()
    data["stands"].append(dict(data["stands"][0]))
    data["paths"].append({"a": "T1", "b": "NOWHERE", "kind": "land"})
    data["territories"][2]["geography"] = "lava"
    broken = tmp_path / "BROKEN.toml"
    broken.write_text(to_toml(data))
    proc = subprocess.run(
        [sys.executable, "-m", "kipukas_board", "run", "--sim", "--map", str(broken),
         "--data-dir", str(tmp_path / "d"), "--port", "1"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert "3 problems" in proc.stderr
    for fragment in ("BROKEN.toml", "'T1'", "'NOWHERE'", "'lava'"):
        assert fragment in proc.stderr
    assert "http://" not in proc.stdout
    assert not (tmp_path / "d" / "journal.sqlite").exists()


def revision_of(data: dict, text_after: str = "") -> str:
    return parse_map(to_toml(data) + text_after, source="copy.toml").revision


def test_the_same_drawing_has_the_same_revision_whatever_the_file_says_around_it() -> None:
    same = revision_of(map_data())
    assert len(same) == 12 and same == load_map("kipuka-8").revision == revision_of(map_data())
    assert revision_of(map_data(), "# a comment the page never shows\n") == same
    measured = map_data()
    measured["physical"]["width_mm"] += 10  # the printed outline: not drawn on the page
    assert revision_of(measured) == same
    assert load_map("kipuka-12").revision != same


def _move_t1(d: dict) -> None:
    next(s for s in d["stands"] if s["id"] == "T1")["y"] -= 60


@pytest.mark.parametrize("redraw", [
    _move_t1,
    lambda d: d["territories"][0].update(name="Ash Ridge"),
    lambda d: d["territories"][0].update(geography="mountain"),
    lambda d: d.update(description="redrawn"),
], ids=["stand moved", "territory renamed", "geography changed", "description changed"])
def test_a_redrawn_map_of_the_same_name_has_another_revision(redraw) -> None:
    data = map_data()
    redraw(data)
    board = parse_map(to_toml(data), source="copy.toml")
    assert board.revision != load_map("kipuka-8").revision
    assert board.to_json()["revision"] == board.revision  # what the page compares


def test_the_map_sent_with_every_state_is_made_once_per_revision(monkeypatch) -> None:
    from kipukas_board.board import places
    from kipukas_board.modes import new_table, state_json

    made: list[str] = []
    real = places.place_names
    monkeypatch.setattr(places, "place_names", lambda b: made.append(b.revision) or real(b))
    eight = load_map("kipuka-8")
    table = new_table(eight)
    first = state_json(table)["map"]
    first["name"] = "changed by a caller"  # the caller's own dict: the next state is not affected
    assert state_json(table)["map"] == {**first, "name": eight.name} and made == [eight.revision]
    moved = map_data()
    _move_t1(moved)
    redrawn = parse_map(to_toml(moved), source="copy.toml")
    assert redrawn.to_json()["stands"] != eight.to_json()["stands"] and made == [eight.revision, redrawn.revision]


def test_map_check_command(tmp_path: Path) -> None:
    from kipukas_board.cli import main

    assert main(["map", "check", "kipuka-8", "kipuka-12"]) == 0
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n')
    assert main(["map", "check", str(bad)]) == 2


def test_the_shipped_maps_say_where_every_stand_is_in_mm() -> None:
    for name in available_maps():
        board = load_map(name)
        assert board.physical is not None, name
        for sid, stand in board.stands.items():
            x, y = board.position_mm(sid)
            assert (x, y) == (stand.x * board.physical.mm_per_unit, stand.y * board.physical.mm_per_unit)
            assert 0 <= x <= board.physical.width_mm and 0 <= y <= board.physical.depth_mm


def test_a_map_without_a_physical_size_stays_valid() -> None:
    data = map_data()
    del data["physical"]
    board = parse_map(to_toml(data), source="plain.toml")
    assert board.physical is None
    assert board.position_mm("T1") is None


def test_a_measured_stand_position_wins_over_the_scale() -> None:
    data = map_data()
    data["stands"][0] |= {"x_mm": 41.5, "y_mm": 77.0}
    board = parse_map(to_toml(data), source="measured.toml")
    assert board.position_mm(data["stands"][0]["id"]) == (41.5, 77.0)
    other = data["stands"][1]
    assert board.position_mm(other["id"]) == (other["x"] * 0.5, other["y"] * 0.5)


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda d: d["physical"].__setitem__("width_mm", float("nan")),
         ["field 'width_mm' must be a number of millimetres"]),
        (lambda d: d["physical"].__setitem__("depth_mm", 20), ["field 'depth_mm'", "from 50 to 3000, got 20"]),
        (lambda d: d["physical"].pop("width_mm"), ["field 'width_mm' is missing"]),
        (lambda d: d["physical"].__setitem__("mm_per_unit", 0), ["field 'mm_per_unit' must be a number above 0"]),
        (lambda d: d["physical"].__setitem__("scale", 2), ["physical: unknown field 'scale'"]),
        (lambda d: d["physical"].pop("mm_per_unit"), ["have no position in mm", "x_mm and y_mm"]),
        (lambda d: d["physical"].__setitem__("width_mm", 100), ["outside the map's 100 x 270 mm outline"]),
        (lambda d: d["stands"][0].__setitem__("x_mm", 10), ["give both x_mm and y_mm"]),
        (lambda d: d.pop("physical") and d["stands"][0].update(x_mm=1, y_mm=2), ["no [physical] section"]),
    ],
    ids=["nan", "too-small", "no-width", "zero-scale", "unknown-key", "unplaced", "outside", "half-measured",
         "measured-without-size"],
)
def test_each_physical_mistake_is_named(mutate, expected: list[str]) -> None:
    data = map_data()
    mutate(data)
    text = "\n".join(problems_of(data))
    for fragment in expected:
        assert fragment in text, f"{fragment!r} not in:\n{text}"


def test_a_territory_name_of_blanks_is_no_name_and_its_spaces_are_single() -> None:
    """A maker's placeholder name of spaces left the board saying "  (4) is in contention" and "the
    stand in    towards Ash Field"; a name broken over lines read with the break on the page."""
    from kipukas_board.board.places import place_names, territory_name

    data = map_data()
    data["territories"][3]["name"] = "   "  # territory 4
    data["territories"][2]["name"] = "  Long\n   Grass "  # territory 3
    board = parse_map(to_toml(data))
    assert board.territories[4].name == "" and territory_name(board, 4) == "territory 4"
    assert board.territories[3].name == "Long Grass" and territory_name(board, 3) == "Long Grass (3)"
    assert place_names(board)["T4"] == "the territory stand of territory 4", place_names(board)["T4"]


@pytest.mark.parametrize("name", ["Route T4", "T4 Hill", "Gate M1a West"])
def test_a_territory_name_with_a_stand_id_for_a_word_is_said_as_the_map_gives_it(name: str) -> None:
    """A map may name a territory "Route T4" where T4 is one of its stands: the report's sentences
    (:func:`in_words`) said "Route the territory stand of Grey Peaks (1) is in contention"."""
    from kipukas_board.board.places import in_words, place_names, territory_name

    data = map_data()
    data["territories"][0]["name"] = name  # territory 1
    board = parse_map(to_toml(data))
    places = place_names(board)
    said = f"{territory_name(board, 1)} is in contention; stand T4 and M1a were lifted."
    assert in_words(board, said) == f"{name} (1) is in contention; {places['T4']} and {places['M1a']} were lifted."
    assert in_words(board, f"the stand in {name} towards Fern Hollow") == f"the stand in {name} towards Fern Hollow"


def _named(name: str, number: int = 3) -> dict:
    data = map_data()
    for t in data["territories"]:
        if t["number"] == number:
            t["name"] = name
    return data


def test_a_territory_name_over_the_limit_is_refused_naming_the_territory_and_the_limit() -> None:
    from kipukas_board.board.mapfile import MAX_TERRITORY_NAME

    assert MAX_TERRITORY_NAME == 40  # as long as a player's name (table/events.py)
    long = "The Long Ridge Where The Old Fire Mountain Sleeps"  # 49 characters
    problems = problems_of(_named(long))
    assert len(problems) == 1, problems
    assert problems[0].startswith("territory 3: field 'name' is 49 characters"), problems
    assert "at most 40 characters" in problems[0] and "shorten it" in problems[0]
    huge = problems_of(_named("x" * 100_000))[0]
    assert len(huge) < 300, "the name is data: quoted in part, never whole"
    assert parse_map(to_toml(_named("y" * 40))).territories[3].name == "y" * 40


def test_the_limit_is_for_maps_coming_to_the_board_not_for_one_read_back_from_the_journal(tmp_path: Path) -> None:
    text = to_toml(_named("z" * 70))
    assert parse_map(text, new=False).territories[3].name == "z" * 70
    f = tmp_path / "long.toml"
    f.write_text(text)
    with pytest.raises(MapError, match="territory 3: field 'name' is 70 characters"):
        load_map(f)
    assert load_map(f, new=False).territories[3].name == "z" * 70


@settings(max_examples=60, deadline=None)
# the test writer escapes text as JSON does, and TOML takes no surrogate pairs: the first plane only
@given(st.text(alphabet=st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs", "Cc")), max_size=90))
def test_any_name_is_taken_exactly_when_it_is_at_most_the_limit_as_shown(name: str) -> None:
    """The limit counts the name as the page shows and the voice says it (blanks read as one)."""
    from kipukas_board.board.mapfile import MAX_TERRITORY_NAME

    shown = " ".join(name.split())
    try:
        board = parse_map(to_toml(_named(name)))
    except MapError as exc:
        assert len(shown) > MAX_TERRITORY_NAME and exc.problems[0].startswith("territory 3:"), exc.problems
    else:
        assert len(shown) <= MAX_TERRITORY_NAME and board.territories[3].name == shown


def test_a_maps_own_name_and_description_over_their_limits_are_refused_saying_which_and_the_limit() -> None:
    from kipukas_board.board.mapfile import MAX_MAP_DESCRIPTION, MAX_MAP_NAME

    assert MAX_MAP_NAME == 40 and MAX_MAP_DESCRIPTION == 300
    data = map_data()
    data["name"] = "The Kipuka Of The Long Ridge Where Fire Sleeps"  # 46 characters
    data["description"] = "d" * 301
    problems = problems_of(data)
    assert len(problems) == 2, problems
    assert problems[0].startswith("top level: field 'name' is 46 characters"), problems
    assert "at most 40 characters" in problems[0] and "shorten it" in problems[0]
    assert problems[1].startswith("top level: field 'description' is 301 characters"), problems
    assert "at most 300 characters" in problems[1]
    data["name"], data["description"] = "n" * 100_000, "d" * 1_000_000
    assert all(len(p) < 400 for p in problems_of(data)), "the text is data: quoted in part, never whole"
    data["name"], data["description"] = "n" * 40, "d" * 300
    taken = parse_map(to_toml(data))
    assert (taken.name, taken.description) == ("n" * 40, "d" * 300)
    data["description"] = 7
    assert problems_of(data) == ["top level: field 'description' must be text (a line or two about the map), got int"]


def test_the_maps_name_and_description_limits_are_not_for_a_map_read_back_from_the_journal(tmp_path: Path) -> None:
    data = map_data()
    data["name"], data["description"] = "N" * 70, "D" * 500
    text = to_toml(data)
    board = parse_map(text, new=False)
    assert (board.name, board.description) == ("N" * 70, "D" * 500)
    f = tmp_path / "long.toml"
    f.write_text(text)
    with pytest.raises(MapError, match="field 'name' is 70 characters"):
        load_map(f)
    assert load_map(f, new=False).description == "D" * 500
