"""Spoken announcements: phrases from semantic effects, the espeak-ng adapter's queue, mute, volume."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import time
import wave
from pathlib import Path

import pytest

from kipukas_board.app import BoardApp
from kipukas_board.board.mapfile import load_map
from kipukas_board.hardware.registry import build
from kipukas_board.hardware.voice.espeak import EspeakVoice
from kipukas_board.hardware.voice.simulated import SilentVoice
from kipukas_board.modes.kipukas.phrases import phrases_for, spell_stand
from kipukas_board.modes.kipukas.rules.playstyles import STYLES
from kipukas_board.modes.kipukas.rules.state import Player, initial_state
from kipukas_board.settings import AdapterChoice, Settings
from kipukas_board.show.announcer import Announcer
from kipukas_board.web.narrate import describe

STORM = {"type": "storm", "cycle": 4, "exposed": ["M3a", "M4b"], "wasted": ["M6a"]}


@pytest.fixture(scope="module")
def state():
    s = initial_state(load_map("kipuka-8"))
    return s.evolve(players=(Player(1, "Ann", "#ff0000"), Player(2, "Bob", "#0000ff")))


def test_storm_names_the_exposed_stands(state) -> None:
    said = phrases_for(STORM, state)
    assert said[0] == "Exposed to the storm: stand M 3 A and stand M 4 B."
    assert said[1] == "Wasted in the storm: stand M 6 A."
    assert phrases_for({"type": "storm", "cycle": 2, "exposed": [], "wasted": []}, state) == \
        ["No souls are caught outside."]


@pytest.mark.parametrize("name", sorted(STYLES))
def test_the_end_of_a_game_names_its_play_style_as_players_know_it(state, name: str) -> None:
    """A win, a draw and a new game name the play style by its title, as the rule books and the
    new-game form give it ("King of the Hill", never "king of the hill"), and each sentence starts
    with a capital whatever the title."""
    title = STYLES[name].title
    won = phrases_for({"type": "won", "winner": 1, "play_style": name}, state)
    draw = phrases_for({"type": "draw", "play_style": name}, state)
    new = describe({"type": "new_game", "play_style": name, "players": [{"seat": 1, "name": "Ann"}]}, {})
    for said in (won[0], draw[0], new):
        assert title in said and said[0].isupper(), said
    assert won == [f"Ann wins this game of {title}! Well played."]
    assert draw == [f"This game of {title} ends without a winner."]


def test_every_contract_effect_has_words(state) -> None:
    t1 = state.board.territories[1]
    cases = {
        "diel": ({"type": "diel", "cycle": 3, "phase": "night", "roll": 4, "fixed": False},
                 ["The diel die shows 4.", "Night 3."]),
        "claimed": ({"type": "claimed", "territory": 1, "owner": 2, "claim": "capital"},
                    [f"Bob places a capital on {t1.name} (1)."]),
        "contention": ({"type": "contention_started", "territory": 1, "players": [1, 2]},
                       ["in contention between Ann and Bob."]),
        "ended": ({"type": "contention_ended", "territory": 1, "players": [1, 2]}, ["Contention over"]),
        "imprisoned": ({"type": "imprisoned", "territory": 1, "stand": "M1a", "prisoner_of": 1, "owner": 2},
                       ["Bob's soul on stand M 1 A", "prisoner by Ann."]),
        "timer": ({"type": "timer_due", "timer": {"id": "t1", "label": "set-aside card", "seat": 1}},
                  ["Ann, your timer is due: set-aside card."]),
        "won": ({"type": "won", "winner": 1, "play_style": "king_of_the_hill"},
                ["Ann wins this game of King of the Hill!"]),
        "question": ({"type": "question", "question": {"id": "q1", "text": "Whose soul is on M2a?"}},
                     ["Whose soul is on M2a?"]),
        "problem": ({"type": "problem", "text": "stand T4 chatters"}, ["stand T4 chatters"]),
        "night_move": ({"type": "night_move", "stand": "M2b"}, ["stand M 2 B"]),
        "same_day": ({"type": "same_day_move", "stand": "M2b", "cycle": 1}, ["stand M 2 B", "day it was played"]),
        "take": ({"type": "claim_waiting", "territory": 1, "stand": "T1", "seat": 2, "placed": False, "taker": True},
                 ["Bob may take", f"{t1.name} (1)"]),
        "seat": ({"type": "claimed", "territory": 1, "owner": 7, "claim": "base_camp"}, ["Seat 7 claims"]),
    }
    for name, (effect, needles) in cases.items():
        text = " ".join(phrases_for(effect, state))
        for n in needles:
            assert n in text, f"{name}: {n!r} not in {text!r}"


def test_fixed_opening_turns_say_no_roll_and_unknown_effects_are_quiet(state) -> None:
    assert phrases_for({"type": "diel", "cycle": 1, "phase": "day", "roll": None, "fixed": True}, state) == \
        ["Day 1. Resolve contention, play a card, move souls and claim territory."]
    assert phrases_for({"type": "stand", "stand": "T1", "occupied": True}, state) == []
    assert phrases_for({"type": "imprisoned"}, state) == []  # malformed: logged, never raised


def test_spell_stand() -> None:
    assert spell_stand("M3a") == "M 3 A" and spell_stand("T12") == "T 12"


def test_real_espeak_renders_the_storm_announcement_to_a_wav(tmp_path: Path, state) -> None:
    text = " ".join(phrases_for({"type": "diel", "cycle": 4, "phase": "storm", "roll": 6, "fixed": False}, state)
                    + phrases_for(STORM, state))
    voice = EspeakVoice()
    try:
        out = voice.render_wav(text, tmp_path / "storm.wav")
    finally:
        voice.close()
    with wave.open(str(out)) as w:
        seconds = w.getnframes() / w.getframerate()
    assert out.stat().st_size > 44 and seconds > 2.0, f"{seconds:.2f} s of speech"


def fake_espeak(tmp_path: Path, sleep: float = 0.15, fail: bool = False) -> tuple[Path, Path]:
    """A stand-in for espeak-ng that logs its argv, stdin and start/end times (one JSON line per call)."""
    log = tmp_path / "calls.jsonl"
    script = tmp_path / "fake-espeak"
    script.write_text(f"""#!{sys.executable}
import json, sys, time
start = time.monotonic()
text = sys.stdin.read()
time.sleep({sleep})
with open({str(log)!r}, "a") as fh:
    fh.write(json.dumps({{"argv": sys.argv[1:], "text": text, "start": start, "end": time.monotonic()}}) + "\\n")
sys.exit({1 if fail else 0})
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, log


def calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_queue_speaks_in_order_without_overlap_and_never_through_a_shell(tmp_path: Path) -> None:
    script, log = fake_espeak(tmp_path)
    voice = EspeakVoice(command=str(script), volume=50, voice="en-gb", speed=150)
    try:
        t0 = time.monotonic()
        texts = ["first", "-v second", "third $(touch pwned) `touch pwned2`; rm -rf x"]
        for t in texts:
            voice.say(t)
        assert time.monotonic() - t0 < 0.1, "say() returns at once"
        assert voice.wait_idle(10)
    finally:
        voice.close()
    got = calls(log)
    assert [c["text"] for c in got] == texts
    for a, b in zip(got, got[1:], strict=False):
        assert b["start"] >= a["end"], "phrases overlapped"
    assert got[0]["argv"] == ["-v", "en-gb", "-s", "150", "-a", "100", "--stdin"]
    assert not (Path.cwd() / "pwned").exists() and not (tmp_path / "pwned").exists()
    assert voice.health()["spoken"] == 3


def test_mute_and_volume(tmp_path: Path) -> None:
    script, log = fake_espeak(tmp_path, sleep=0.0)
    voice = EspeakVoice(command=str(script), muted=True)
    try:
        voice.say("not heard")
        voice.mute(False)
        voice.set_volume(100)
        voice.say("heard")
        assert voice.wait_idle(10)
        with pytest.raises(ValueError, match="volume 101 must be from 0 to 100"):
            voice.set_volume(101)
    finally:
        voice.close()
    got = calls(log)
    assert [c["text"] for c in got] == ["heard"] and "200" in got[0]["argv"]
    assert voice.dropped == 1


def test_backlog_drops_oldest_and_failures_keep_the_worker_going(tmp_path: Path) -> None:
    script, log = fake_espeak(tmp_path, sleep=0.2, fail=True)
    voice = EspeakVoice(command=str(script), max_queue=2)
    try:
        for i in range(6):
            voice.say(f"news {i}")
        assert voice.wait_idle(10)
        h = voice.health()
    finally:
        voice.close()
    texts = [c["text"] for c in calls(log)]
    assert texts[-2:] == ["news 4", "news 5"] and len(texts) <= 4
    assert h["errors"] == len(texts) and not h["ok"] and "exited 1" in h["last_error"]


def test_missing_espeak_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="'no-such-espeak' is not installed"):
        build("voice", "espeak", command="no-such-espeak")


def test_board_announces_effects_from_the_core(tmp_path: Path) -> None:
    app = BoardApp(Settings(), tmp_path / "data", sim=True, admin_pin="1234")
    app.start()
    try:
        assert isinstance(app.voice, SilentVoice)
        app.sim_set_stand("T1", True)  # the foundation's core claims the territory
        end = time.monotonic() + 5
        while not app.voice.spoken and time.monotonic() < end:
            time.sleep(0.02)
        name = app.loop.state.board.territories[1].name
        assert app.voice.spoken == [f"{name} (1) is claimed."]
        said = Announcer(app.voice, say_for=phrases_for).announce(app.loop.state, [STORM])
        assert app.voice.spoken[-2:] == said
    finally:
        app.stop()


def test_cli_say_writes_a_wav(tmp_path: Path) -> None:
    out = tmp_path / "say.wav"
    done = subprocess.run([sys.executable, "-m", "kipukas_board", "say", "Storm!", "Stand", "M", "3", "A",
                           "--wav", str(out), "--settings", str(tmp_path / "none.toml")],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "does not exist" in done.stderr
    done = subprocess.run([sys.executable, "-m", "kipukas_board", "say", "Storm!", "--wav", str(out)],
                          capture_output=True, text=True, check=True)
    assert "wrote" in done.stdout
    with wave.open(str(out)) as w:
        assert w.getnframes() > 0


def test_the_voice_thread_counts_in_the_boards_liveness(tmp_path: Path) -> None:
    """A failing phrase leaves the speaking thread alive (it is counted in health); close() ends it."""
    script, _log = fake_espeak(tmp_path, sleep=0.0, fail=True)
    settings = Settings(voice=AdapterChoice("espeak", {"command": str(script)}))
    board = BoardApp(settings, tmp_path / "data", admin_pin="2468")
    board.start()
    try:
        assert board.liveness()["voice"] is True
        board.voice.say("Storm!")
        assert board.voice.wait_idle(10)
        assert board.voice.health()["errors"] == 1
        assert board.liveness()["voice"] is True
        board.voice.close()
        assert board.liveness()["voice"] is False
    finally:
        board.stop()
