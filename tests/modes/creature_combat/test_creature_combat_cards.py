"""Creature Combat Territory's card files, table layouts, sticker sheets, and stickers read like cards."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cct_decks import ANA, BEN, creature, lands, write_decks

from kipukas_board.cards.catalog import CatalogError
from kipukas_board.cards.mode_catalog import ModeCards
from kipukas_board.cli import main
from kipukas_board.modes import MODES, mode_for_card_file
from kipukas_board.modes.base import CardFileError
from kipukas_board.modes.creature_combat.cardfile import parse_card_file
from kipukas_board.modes.creature_combat.table import TableError, load_table, parse_table


def problems(text: str) -> list[str]:
    with pytest.raises(CardFileError) as exc:
        parse_card_file(text, "deck.toml")
    return exc.value.problems


def test_a_good_deck_parses_with_stars_computed_and_no_warning() -> None:
    f = parse_card_file(ANA, "ana.toml")
    assert f.deck == "ana" and len(f.creatures) == 3 and len(f.lands) == 25
    fox = next(c for c in f.creatures if c["id"] == "ana-fox")
    assert fox["cost"] == 12 and fox["stars"] == 2 and fox["biomes"] == {"forest": 2, "ocean": -3}
    assert f.warnings == []
    assert {r["kind"] for r in f.records()} == {"creature", "land"}


def test_every_problem_is_named_with_the_card_id_and_field() -> None:
    text = (creature("fox-1", "Rusty", "Red Fox", 5, "forest = 2", cost=30)  # formula gives 11
            + '[[creatures]]\nid = "owl-1"\nname = "Hoot"\nspecies = "Owl"\ncost = 12\nstars = 3\n'
              'base_power = 2\nbiomes = { sky = 1 }\nability = "Watch"\n'
            + '[[creatures]]\nid = "fox-1"\nname = ""\nspecies = "Fox"\ncost = 101\nbase_power = -1\n'
            + '[[lands]]\nid = "bad id!"\nname = "Nowhere"\nbiome = "moon"\n')
    found = problems(text)
    expected = [
        "creature 'fox-1': field 'cost' is 30, but the card-creation formula gives 11",
        "creature 'owl-1': field 'biomes.sky': no such biome",
        "creature 'owl-1': field 'stars' must be cost / 10 rounded up = 2 for cost 12, got 3",
        "creature 'fox-1': field 'id' is already taken by creature 'fox-1' above",
        "creature 'fox-1': field 'name' must be text",
        "creature 'fox-1': field 'cost' must be a whole number 1 to 100, got 101",
        "creature 'fox-1': field 'base_power' must be a whole number from 0 up, got -1",
        "land 'bad id!': field 'id' must be 1 to 40 letters",
        "land 'bad id!': field 'biome' must be one of forest",
    ]
    for want in expected:
        assert any(p.startswith(want) for p in found), f"{want!r} not in {found}"


def test_the_formula_is_checked_only_where_the_card_gives_its_parts() -> None:
    # An ability without ability_cost: its cost cannot be known, so any cost from 1 to 100 passes.
    parse_card_file(creature("a", "A", "Ant", 1, "", "Bite", cost=40), "x.toml")
    assert problems(creature("a", "A", "Ant", 1, "", "Bite", ability_cost=2, cost=40))[0].startswith(
        "creature 'a': field 'cost' is 40, but the card-creation formula gives 4")
    discounted = creature("b", "B", "Bear", 45, "") .replace("cost = 90", "cost = 81\ndiscount = 9")
    assert parse_card_file(discounted, "x.toml").creatures[0]["cost"] == 81


def test_deck_checks_warn_at_import_and_name_the_limit() -> None:
    heavy = "".join(creature(f"c{i}", f"C{i}", "Bear", 10, "") for i in range(6)) + lands("x", 24)
    f = parse_card_file(heavy, "heavy.toml")
    assert f.warnings == [
        "deck 'heavy': creature deck costs 120 in all, more than the 100 agreed (the rule book's limit is 100; "
        "agree on another with options.deck_cost at new game)",
        "deck 'heavy': land deck has 24 lands, the game needs 25 (the rule book's deck is 25; agree on another "
        "with options.land_deck at new game)"]


def test_card_files_belong_to_the_mode_whose_tables_they_hold() -> None:
    assert mode_for_card_file({"creatures", "deck"}) is MODES["creature-combat"]
    assert mode_for_card_file({"cards"}) is MODES["duel"]
    assert mode_for_card_file({"spells"}) is None


def test_cli_imports_a_deck_and_refuses_an_id_another_deck_uses(tmp_path: Path, capsys) -> None:
    a, b = write_decks(tmp_path)
    data = tmp_path / "data"
    assert main(["catalog", "import", str(a), "--data-dir", str(data)]) == 0
    assert "deck 'ana'" in capsys.readouterr().out
    assert main(["catalog", "import", str(b), "--data-dir", str(data)]) == 0
    clash = tmp_path / "clash.toml"
    clash.write_text(creature("ana-fox", "Copy", "Fox", 1, ""), encoding="utf-8")
    assert main(["catalog", "import", str(clash), "--data-dir", str(data)]) == 2
    assert "card 'ana-fox': id already used by deck 'ana'" in capsys.readouterr().err
    assert main(["catalog", "show", "cct:ben-eel", "--data-dir", str(data)]) == 0
    assert '"species": "Eel"' in capsys.readouterr().out
    store = ModeCards.in_dir(data)
    try:
        assert store.decks("creature-combat") == {"ana": {"creature": 3, "land": 25},
                                                  "ben": {"creature": 2, "land": 25}}
        with pytest.raises(CatalogError):
            store.import_deck("creature-combat", "other", [{"id": "ben-eel", "kind": "creature"}])
        assert store.card("creature-combat", "ben-eel")["deck"] == "ben"  # nothing changed
    finally:
        store.close()


def test_cli_names_every_problem_and_imports_nothing(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(creature("x", "X", "Xerus", 2, "forest = 1", cost=9), encoding="utf-8")
    assert main(["catalog", "import", str(bad), "--data-dir", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert "bad.toml: card file not imported, 1 problem(s)" in err and "creature 'x': field 'cost' is 9" in err
    store = ModeCards.in_dir(tmp_path / "d")
    assert store.decks("creature-combat") == {}
    store.close()
    other = tmp_path / "other.toml"
    other.write_text('[[spells]]\nid = "punch"\n', encoding="utf-8")
    assert main(["catalog", "import", str(other), "--data-dir", str(tmp_path / "d")]) == 2
    assert "not a card file of any game mode" in capsys.readouterr().err


def test_the_shipped_table_layout_has_five_slots_and_bad_ones_are_named() -> None:
    t = load_table("creature-combat")
    assert [s["number"] for s in t["slots"]] == [1, 2, 3, 4, 5] and len(t["seats"]) == 4
    with pytest.raises(TableError) as exc:
        parse_table('name = "x"\n[[slots]]\nnumber = 7\nx = 0\ny = 0\n[[seats]]\nseat = 1\n', "t.toml")
    text = str(exc.value)
    assert "needs exactly 5 [[slots]], got 1" in text and "slots[0].number must be 1 to 5, got 7" in text
    assert "needs 2 to 4 [[seats]], got 1" in text


def _decode_png(path: Path) -> list[str]:
    import cv2
    import zxingcpp

    return sorted(r.text for r in zxingcpp.read_barcodes(cv2.imread(str(path))))


def test_sticker_sheets_hold_a_readable_qr_per_card(tmp_path: Path, capsys) -> None:
    deck = tmp_path / "ben.toml"
    deck.write_text(BEN.replace(lands("ben"), lands("ben", 3)), encoding="utf-8")
    svg, pdf = tmp_path / "sheet.svg", tmp_path / "sheet.pdf"
    assert main(["catalog", "stickers", str(deck), "--out", str(svg)]) == 0
    assert main(["catalog", "stickers", str(deck), "--out", str(pdf)]) == 0
    assert "wrote 5 stickers on 1 page(s)" in capsys.readouterr().out
    text = svg.read_text(encoding="utf-8")
    assert text.count("data-payload=") == 5 and 'data-payload="cct:ben-eel"' in text and ">Zap<" in text
    assert pdf.read_bytes().startswith(b"%PDF")
    assert main(["catalog", "stickers", str(deck), "--out", str(tmp_path / "sheet.png")]) == 2
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed: the PDF was not rendered and decoded")
    subprocess.run([pdftoppm, "-r", "150", "-png", str(pdf), str(tmp_path / "page")], check=True)
    assert _decode_png(tmp_path / "page-1.png") == sorted(
        ["cct:ben-eel", "cct:ben-goat", "cct:ben-land-00", "cct:ben-land-01", "cct:ben-land-02"])


def test_a_sticker_in_a_camera_frame_is_read_like_any_card(tmp_path: Path) -> None:
    from _qrgen import place, qr_tile

    from kipukas_board.cards.catalog import Catalog
    from kipukas_board.modes import payload_prefixes
    from kipukas_board.vision.desk import CardDesk

    store = ModeCards.in_dir(tmp_path)
    store.import_deck("creature-combat", "ben", parse_card_file(BEN, "ben.toml").records())
    submitted: list[dict] = []
    desk = CardDesk(Catalog.in_dir(tmp_path),
                    submit=lambda e, wait=True, timeout=None: submitted.append(e) or len(submitted),
                    mode_cards=store, mode_prefixes=payload_prefixes())
    frame = place([qr_tile("cct:ben-eel", px=8, dark=(0, 0, 0), light=(255, 255, 255))])
    events = desk.on_frame(2, frame)
    assert [e["payload"] for e in events] == ["cct:ben-eel"]
    assert events[0]["seat"] == 2 and events[0]["card"]["species"] == "Eel" and events[0]["error"] is None
    assert desk.counter.to_json() == {"accepted": 1, "refused": {}}
    unknown = desk.present(1, "cct:nobody")
    assert unknown["card"] is None and "creature-combat card 'nobody'" in unknown["error"]
    store.close()
    desk.catalog.close()
