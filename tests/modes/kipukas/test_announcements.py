"""What the board says, from real games: effects made by the rules core, driven through the
simulated sensors and the actions API, heard through the board's voice port."""

from __future__ import annotations

import wave
from pathlib import Path

from conftest import need_tool
from rules_table import SETUP, Table, play

from kipukas_board.hardware.voice.espeak import EspeakVoice
from kipukas_board.modes.kipukas.rules.dice import ScriptedDice


def heard(t: Table, since: int = 0) -> list[str]:
    """What the board's (silent, recording) voice was asked to say. The announcer runs on the core
    thread before the event's submit returns, so an answered action has been said already."""
    return list(t.board.voice.spoken[since:])


def test_a_storm_roll_names_the_exposed_stands_and_espeak_renders_it(data_dir, tmp_path: Path) -> None:
    need_tool("espeak-ng", "espeak-ng")
    with Table(data_dir, dice=ScriptedDice([5])) as t:  # the diel die: face 5 is a storm
        play(t, edition="2023")
        t.put("M1a", "M8b")  # souls out next to each capital
        t.roll()  # cycle 2: the fixed night
        before = len(t.board.voice.spoken)
        r = t.roll()  # cycle 3: the board rolls a storm
        assert next(e for e in r["effects"] if e["type"] == "storm")["exposed"] == ["M1a", "M8b"]
        said = heard(t, before)
    assert "Exposed to the storm: stand M 1 A and stand M 8 B." in said
    assert any(s.startswith("Storm, cycle 3!") for s in said)
    voice = EspeakVoice()
    try:
        wav = voice.render_wav(" ".join(said), tmp_path / "storm.wav")
    finally:
        voice.close()
    with wave.open(str(wav)) as w:
        assert w.getnframes() / w.getframerate() > 2.0


def test_setup_is_talked_through_and_a_lost_claim_is_not_a_claim(data_dir) -> None:
    with Table(data_dir) as t:
        t.new_game(2, first_placer=1)
        assert heard(t)[-1] == "Player 1, place your capital."
        t.put(*SETUP[:2])
        assert heard(t)[-1] == "Player 1, place a base camp."
        t.put(SETUP[2])
        t.lift(SETUP[2])  # the latest placement taken back
        said = heard(t)
        name = t.board.loop.state.board.territories[2].name
        assert f"{name} (2) is no longer held." in said  # the name, its number as the map shows it
        assert not any(s.endswith("(2) is claimed.") for s in said)
        t.put(*SETUP[2:])
        assert "Setup is complete. Player 2 plays first and holds the initiative." in heard(t)


def test_a_night_move_is_said_once_and_the_night_is_the_editions(data_dir) -> None:
    with Table(data_dir) as t:
        play(t, edition="2023")
        t.roll()  # cycle 2: night
        assert heard(t)[-1].startswith("Night 2. Discard, draw, craft")
        before = len(t.board.voice.spoken)
        t.put("M1a")
        said = heard(t, before)
        assert said == ["A soul moved at night on stand M 1 A. Souls may not move at night."], said


def test_a_draw_is_not_announced_as_a_win_and_dice_say_what_they_mean(data_dir) -> None:
    with Table(data_dir, dice=ScriptedDice([3])) as t:
        play(t)
        t.act("roll-dice", {"kind": "trap", "seat": 1})  # web rules: 1-4 detects
        assert heard(t)[-1] == "The trap is detected."
        t.act("initiative", {"seat": 1})
        assert heard(t)[-1] == "Player 1 takes the initiative."
        t.act("undo")
        assert heard(t)[-1] == "Undone: the initiative taken."  # what was done, never the event's name
        t.act("end-game", {"winner": None})
        said = heard(t)
        assert said[-1] == "This game of Domination ends without a winner."
        assert not any("wins" in s for s in said)


def test_a_sentence_that_opens_with_an_unnamed_territory_opens_with_a_capital() -> None:
    """On a map that leaves its territories unnamed a territory is "territory 4"; a sentence the
    voice says, the caption shows and the report keeps that opens with it reads "Territory 4 is in
    contention ...", not "territory 4 is ...", and one that opens with a name keeps it as written."""
    from dataclasses import replace

    from kipukas_board.board.mapfile import load_map
    from kipukas_board.modes.kipukas.phrases import phrases_for
    from kipukas_board.modes.kipukas.rules.state import initial_state

    named = load_map("kipuka-8")
    unnamed = replace(named, territories={n: replace(t, name="") for n, t in named.territories.items()})
    fight = {"type": "contention_started", "territory": 4, "players": [1, 2]}
    for kind in ("contention_started", "contention_changed", "released"):
        said = phrases_for({**fight, "type": kind}, initial_state(unnamed))
        assert said and said[0].startswith("Territory 4 "), said
    assert phrases_for(fight, initial_state(named)) == ["Grey Peaks (4) is in contention between Seat 1 and Seat 2."]
    odd = replace(named, territories={**named.territories, 4: replace(named.territories[4], name="de Wolf's <b>")})
    assert phrases_for(fight, initial_state(odd))[0].startswith("De Wolf's <b> (4) is in contention"), \
        "a sentence opens with a capital whatever opens it"
