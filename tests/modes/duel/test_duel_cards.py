"""The card duel's card files (problems named by card id and field, deck checks), their import and
sticker sheets, the Heart LEDs and the spoken turn."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from kipukas_board.cli import main
from kipukas_board.modes import mode_for_card_file, phrases_for
from kipukas_board.modes.base import CardFileError
from kipukas_board.modes.duel import lights, rules
from kipukas_board.modes.duel.cardfile import parse_card_file
from kipukas_board.show.layout import LedLayout
from kipukas_board.show.lighting import Scene

DECKS = Path(__file__).parents[2] / "duel_decks"


def test_the_simulation_decks_parse_with_no_warning() -> None:
    f = parse_card_file((DECKS / "iv8-p2.toml").read_text(encoding="utf-8"), "iv8-p2.toml")
    assert f.deck == "iv8-p2" and f.warnings == [] and f.summary() == "30 cards (15 different)"
    cestus = next(c for c in f.cards if c["id"] == "double-edged-cestus")
    assert cestus["effects"] == [{"attack": 7, "or": "left"}, {"defense": 7, "or": "right"}]
    chain = next(c for c in f.cards if c["id"] == "chainsickle")
    assert (chain["hands"], chain["shield"]) == (2, 6)
    assert mode_for_card_file({"deck", "cards"}).name == "duel"


BAD = '''
[[cards]]
id = "bad one"
name = "X"
type = "attack"
schools = ["rock"]

[[cards]]
id = "zap"
name = ""
type = "spell"
schools = ["plasma"]
copies = 4
status = ["BURN", "SLEEP"]
hands = 2
effects = [{ attack = 3, defense = 2 }, { attack = 2, per = "moons" }, { defense = 1, or = "left" },
           { attack = 5, per = "attack taken" }]

[[cards]]
id = "axe"
name = "Axe"
type = "attack"
schools = ["metal"]
exotic = true
copies = 2
effects = [{ attack = 5, after = "Punch", only_attack = true }, { attack = 1, per = "named" }]
'''


def test_every_problem_is_named_with_the_card_id_and_field() -> None:
    with pytest.raises(CardFileError) as exc:
        parse_card_file(BAD, "bad.toml")
    problems = exc.value.problems
    expected = [
        "card 'bad one': field 'id' must be 1 to 40 letters, digits",
        "card 'zap': field 'name' must be text",
        "card 'zap': field 'type' must be one of attack, defense, scroll, terrain, assist, trap, got 'spell'",
        "card 'zap': field 'schools' must list one or two of rock",
        "card 'zap': field 'copies' must be 1 to 3, got 4",
        "card 'zap': field 'status' must list some of PHASE, CRUMBLE, BURN, GUARD",
        "card 'zap': field 'hands' is for assists and traps",
        "card 'zap': field 'effects[0]' must have exactly one of attack, defense, draw, destroy, protect",
        "card 'zap': field 'effects[1]'.per must be one of",
        "card 'zap': field 'effects[3]'.per 'attack taken' counts only for draw",
        "card 'zap': field 'effects': an \"or\" needs both sides, left and right",
        "card 'axe': field 'copies' is 2, but an exotic card may be in a deck once",
        "card 'axe': field 'effects[0]' may have one condition, got after, only_attack",
        "card 'axe': field 'effects[1]'.name must name the card counted by per = \"named\"",
    ]
    for want in expected:
        assert any(want in p for p in problems), (want, problems)
    assert "bad.toml: card file not imported" in str(exc.value)


def test_a_name_with_asterisks_is_exotic_and_the_import_says_so() -> None:
    """The card duel rules: "Exotic cards have asterisks involving the name." and "Each deck can
    contain only 1 copy of an exotic card." The import names the card and why it counts as exotic."""
    one = ('[[cards]]\nid = "avoid"\nname = "*Avoidance*"\ntype = "defense"\nschools = ["air"]\n'
           'effects = [{ defense = 10 }]\n')
    f = parse_card_file(one, "ana.toml")
    assert f.cards[0]["exotic"] is True
    assert f.warnings[0].startswith("card 'avoid': name '*Avoidance*' has asterisks, so the card is exotic")
    assert "field 'exotic' is left out" in f.warnings[0]
    plain = parse_card_file(one.replace("*Avoidance*", "Avoidance"), "ana.toml")
    assert plain.cards[0]["exotic"] is False and not any("asterisks" in w for w in plain.warnings)
    with pytest.raises(CardFileError) as exc:
        parse_card_file(one.replace('type = "defense"', 'type = "defense"\nexotic = false\ncopies = 2'), "ana.toml")
    assert any("an exotic card may be in a deck once (its name has asterisks" in p for p in exc.value.problems)
    twice = one + one.replace('"avoid"', '"avoid-2"').replace("*Avoidance*", "Avoidance")
    notes = parse_card_file(twice, "ana.toml").warnings
    assert "deck 'ana': card '*Avoidance*' (ids 'avoid', 'avoid-2') is exotic, has 2 copies in all, at most 1" in notes


def test_cli_imports_decks_warns_on_deck_checks_and_prints_stickers(tmp_path: Path, capsys) -> None:
    data = tmp_path / "data"
    small = tmp_path / "small.toml"
    small.write_text('deck = "small"\n[[cards]]\nid = "jab"\nname = "Jab"\ntype = "attack"\nschools = ["air"]\n'
                     'copies = 3\ntext = "+2 ATTACK"\neffects = [{ attack = 2 }]\n', encoding="utf-8")
    assert main(["catalog", "import", str(small), "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "imported Card duel deck 'small'" in out and "3 cards (1 different)" in out
    assert "note: deck 'small': has 3 cards, a deck has 30" in out
    assert main(["catalog", "show", "duel:jab", "--data-dir", str(data)]) == 0
    assert '"name": "Jab"' in capsys.readouterr().out
    svg = tmp_path / "sheet.svg"
    assert main(["catalog", "stickers", str(DECKS / "iv8-p1.toml"), "--out", str(svg)]) == 0
    assert "wrote 30 stickers" in capsys.readouterr().out  # one per copy
    text = svg.read_text(encoding="utf-8")
    assert text.count("data-payload=") == 30 and text.count('data-payload="duel:p1-plain-0"') == 3
    assert 'data-payload="duel:punch"' in text and ">Punch<" in text
    pdf = tmp_path / "sheet.pdf"
    assert main(["catalog", "stickers", str(DECKS / "iv8-p2.toml"), "--out", str(pdf)]) == 0
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed: the PDF was not rendered and decoded")
    subprocess.run([pdftoppm, "-r", "100", "-png", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "page")], check=True)
    import cv2
    import zxingcpp

    read = [r.text for r in zxingcpp.read_barcodes(cv2.imread(str(tmp_path / "page-1.png")))]
    assert read.count("duel:synergy-energy") == 2 and "duel:avoidance" in read and len(read) == 20


def _duel() -> rules.Duel:
    d, _ = rules.new_game(rules.example_new_game())
    return d


def test_heart_leds_lit_flipped_flashing_and_the_player_to_act() -> None:
    layout = LedLayout(territories={n: [n - 1] for n in range(1, 9)}, stands={})
    d = _duel()
    frame = lights.render(d, layout, 0.0, Scene())
    ana, ben = (228, 87, 46), (30, 144, 255)
    assert frame[0] != (0, 0, 0) and frame[3] != (0, 0, 0)  # hearts lit in the players' colours
    assert frame[0][0] > frame[0][2] and frame[3][2] > frame[3][0]
    assert frame[6] != (0, 0, 0) and frame[7] == (0, 0, 0)  # Ana (challenged) to act
    d2 = d.with_side(rules.replace(d.side(2), hearts=2))
    scene = Scene(flash_at=10.0, flash={"type": "duel_heart", "seat": 2, "hearts": 2, "flash": True})
    shown = {lights.render(d2, layout, 10.0 + k * 0.05, scene)[5] for k in range(20)}
    assert (255, 255, 255) in shown and lights.FLIPPED in shown  # the third Heart flashes
    assert lights.render(d2, layout, 20.0, scene)[5] == lights.FLIPPED  # then stays an ember
    over = d2.evolve(phase="over", winner=2)
    assert set(lights.render(over, layout, 0.0, Scene())[:6]) == {ben}
    assert ana != ben


def test_the_turn_is_spoken() -> None:
    d = _duel()
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.table.state import new_table

    state = new_table(load_map("kipuka-8"), game="duel", mode_state=d)
    said = phrases_for({"type": "duel_turn", "turn": 3, "seat": 2, "draw": 2}, state)
    assert said == ["Turn 3: Ben, draw 2."]
    said = phrases_for({"type": "duel_heart", "seat": 2, "hearts": 1, "attack": 25, "defense": 20}, state)
    assert said == ["25 attack beats 20 defense. Ben flips a Heart, 1 left."]
    said = phrases_for({"type": "duel_over", "winner": 1, "reason": "Ben has no Heart left"}, state)
    assert said == ["Ana wins the duel: Ben has no Heart left."]


def test_the_lighting_flashes_the_heart_a_duel_effect_asks_for() -> None:
    from kipukas_board import modes
    from kipukas_board.board.mapfile import load_map
    from kipukas_board.hardware.leds.simulated import SimulatedLedStrip
    from kipukas_board.show.lighting import Lighting
    from kipukas_board.table.state import new_table

    layout = LedLayout(territories={n: [n - 1] for n in range(1, 9)}, stands={})
    now = [100.0]
    lighting = Lighting(SimulatedLedStrip(count=layout.count), layout, clock=lambda: now[0],
                        game=modes)
    d = _duel()
    d = d.with_side(rules.replace(d.side(1), hearts=2))
    state = new_table(load_map("kipuka-8"), game="duel", mode_state=d)
    lighting.update(state, [{"type": "duel_heart", "seat": 1, "hearts": 2, "flash": True}])
    assert lighting.frame()[2] == (255, 255, 255)  # Ana's third Heart, flashing
    now[0] += lights.FLASH_S + 0.1
    lighting.update(state, [])
    assert lighting.frame()[2] == lights.FLIPPED
