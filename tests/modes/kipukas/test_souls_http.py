"""Souls and the bout assistant through the HTTP API of a simulated board (real SQLite journal,
a small catalog of made-up cards imported the way ``kipukas-board catalog import`` does)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kipukas_board.cards.catalog import Catalog
from kipukas_board.modes.kipukas.rules.dice import ScriptedDice
from tests.rules_table import PIN, Table


def record(code: str, title: str, **over: Any) -> dict[str, Any]:
    rec = {"code": code, "slug": title.lower().replace(" ", "_"), "title": title, "type": "Species",
           "genetic_disposition": "Brutal", "motivation": "Duty", "habitat": "Forest", "injury_tolerance": 1,
           "movement": 2, "die": "D6-D6", "brawl_sequence": code, "keal_means": []}
    rec.update(over)
    return rec


def _table(data_dir: Path, dice: list[int]) -> Table:
    Catalog.in_dir(data_dir).import_records([record("HMPU", "Hilbert", habitat="Plains", motivation="Passion"),
                                             record("ZrrD", "Raven", die="", habitat="Nomad")])
    t = Table(data_dir, dice=ScriptedDice(dice))
    t.new_game(players=2, first_placer=1)
    t.put("T1", "T8", "T2", "T3", "T5", "T7")
    t.roll()
    t.roll()  # the fixed opening: night 2, day 3
    return t


def show(t: Table, seat: int, code: str) -> None:
    r = t.client.post("/api/sim/cards", json={"payload": f"kpks.us/{code}#0001?Ab{code}", "seat": seat})
    assert r.status_code == 200, r.get_json()


def test_souls_bind_fight_and_show_in_the_state(data_dir: Path) -> None:
    with _table(data_dir, [6, 6, 2] + [6, 6, 1]) as t:
        show(t, 2, "ZrrD")
        t.put("M3b")
        show(t, 1, "HMPU")
        t.put("M2b")
        t.move("M2b", "M3a")
        souls = {s["id"]: s for s in t.state()["souls"]}
        assert souls["HMPU#0001"] == {"id": "HMPU#0001", "seat": 1, "code": "HMPU", "title": "Hilbert",
                                      "stand": "M3a", "keal": {"tolerance": 1, "lost": 0}, "downed": False,
                                      "wasted": False, "attack_spent": False, "attack_spent_why": ""}
        assert souls["ZrrD#0001"]["stand"] == "M3b" and souls["ZrrD#0001"]["seat"] == 2
        plan = t.client.get("/api/bout/plan?territory=3&attacker=HMPU%230001&defender=ZrrD%230001&archetype=2")
        assert plan.status_code == 200
        p = plan.get_json()
        assert p["defender"]["dice"] == [20] and "no die" in p["defender"]["assumed"]
        assert [m["value"] for m in p["attacker"]["modifiers"]] == [1, 2]  # affinity; fists; no habitat (a nomad)
        bad = t.client.get("/api/bout/plan?territory=3&attacker=HMPU%230001&defender=HMPU%230001")
        assert bad.status_code == 409 and "both" in bad.get_json()["error"]
        out = t.act("bout-roll", {"territory": 3, "attacker": "HMPU#0001", "defender": "ZrrD#0001",
                                  "archetype": 2})  # the board rolls 6+6 against 2
        assert out["event"]["rolls"] == {"attacker": [[6, 6]], "defender": [[2]]}
        assert out["event"]["source"] == "board"
        raven = next(s for s in t.state()["souls"] if s["id"] == "ZrrD#0001")
        assert raven["downed"] and raven["keal"]["lost"] == 1
        assert t.state()["last_bout"]["rounds"][0] == {"attacker": 15, "defender": 3, "won": "attacker",
                                                       "brawl": False}
        assert any("Raven loses one KEAL means in the bout" in c["text"] for c in t.state()["captions"])
        t.act("bout-roll", {"territory": 3, "attacker": "HMPU#0001", "defender": "ZrrD#0001",
                            "rolls": {"attacker": [[1, 1]], "defender": [[20]]}})  # physical: the attack fails
        spent = t.client.get("/api/bout/plan?territory=3&attacker=HMPU%230001&defender=ZrrD%230001")
        assert spent.status_code == 409 and "cannot attack again in this diel cycle" in spent.get_json()["error"]
        assert next(s for s in t.state()["souls"] if s["id"] == "HMPU#0001")["attack_spent"]
        t.roll("day")  # a new diel cycle: Hilbert may attack again
        # the Raven is downed: without a number typed in, the board's typing table gives the Final Blow's
        (data_dir / "typing.toml").write_text("[modifiers]\nbrutal = { Brutal = -3, Avian = 2 }\n")
        p = t.client.get("/api/bout/plan?territory=3&attacker=HMPU%230001&defender=ZrrD%230001").get_json()
        assert {"source": "archetype interaction from typing.toml: Brutal against Brutal", "value": -3} \
            in p["attacker"]["modifiers"] and p["final_blow"]
        (data_dir / "typing.toml").write_text("[modifiers]\nBrutal = { Brutal = \"lots\" }\n")
        bad = t.client.get("/api/bout/plan?territory=3&attacker=HMPU%230001&defender=ZrrD%230001")
        assert bad.status_code == 409 and "modifiers.Brutal.Brutal must be a whole number" in bad.get_json()["error"]
        (data_dir / "typing.toml").write_text("[modifiers]\nbrutal = { Brutal = -3 }\n")
        assert not next(s for s in t.state()["souls"] if s["id"] == "ZrrD#0001")["wasted"]
        out = t.act("bout-roll", {"territory": 3, "attacker": "HMPU#0001", "defender": "ZrrD#0001"})  # Final Blow
        assert out["event"]["archetype"] == -3 and "typing.toml" in out["event"]["archetype_source"]
        raven = next(s for s in t.state()["souls"] if s["id"] == "ZrrD#0001")
        assert raven["wasted"] and t.state()["souls_lost"] == {"2": 1}
        t.act("undo")
        assert not next(s for s in t.state()["souls"] if s["id"] == "ZrrD#0001")["wasted"]


def test_bind_unbind_fix_and_bad_bodies(data_dir: Path) -> None:
    with _table(data_dir, []) as t:
        t.put("M2b")
        show(t, 1, "HMPU")
        assert t.state()["souls"][0]["stand"] is None  # shown after the token came down: it waits
        t.act("soul-bind", {"stand": "M2b", "seat": 1})
        assert t.state()["souls"][0]["stand"] == "M2b"
        t.act("soul-fix", {"soul": "HMPU#0001", "lost": 1})
        assert t.stand("M2b")["downed"] and t.state()["souls"][0]["downed"]
        out = t.act("soul-fix", {"soul": "HMPU#0001", "lost": 3}, status=409)
        assert "tolerates 1" in out["error"]
        t.act("soul-damage", {"soul": "HMPU#0001", "healed": 1, "cause": "potion"})
        assert t.state()["souls"][0]["keal"]["lost"] == 0
        t.act("soul-unbind", {"soul": "HMPU#0001"})
        assert t.state()["souls"][0]["stand"] is None
        assert "soul" in t.act("soul-fix", {"soul": 5}, status=400)["error"]
        bad = t.act("soul-bind", {"stand": "M2b", "soul": "x", "hat": 1}, status=400)["error"]
        assert "unknown field(s) hat" in bad
        r = t.client.post("/api/actions/soul-unbind", json={"soul": "HMPU#0001"}, headers={"X-Admin-Pin": "0"})
        assert r.status_code in (401, 403) and PIN != "0"


def test_a_failed_retreat_roll_names_its_souls_and_ends_their_attacks(data_dir: Path) -> None:
    """The web rules: "If unsuccessful, the retreating soul(s) forgo their ability to attack for the day"."""
    with _table(data_dir, [1, 1, 12]) as t:  # the escapee's 2 D6 (2) against the D20 (12): caught
        show(t, 2, "ZrrD")
        t.put("M3b")
        show(t, 1, "HMPU")
        t.put("M2b")
        t.move("M2b", "M3a")
        t.act("roll-dice", {"kind": "trap", "souls": ["HMPU#0001"]}, status=400)
        out = t.act("roll-dice", {"kind": "retreat", "seat": 1, "souls": ["HMPU#0001"]})
        assert out["event"]["souls"] == ["HMPU#0001"]
        assert any(e["type"] == "attack_spent" and e["by"] == "retreat" for e in out["effects"])
        assert next(s for s in t.state()["souls"] if s["id"] == "HMPU#0001")["attack_spent"]
        spent = t.client.get("/api/bout/plan?territory=3&attacker=HMPU%230001&defender=ZrrD%230001")
        assert spent.status_code == 409 and "its retreat failed" in spent.get_json()["error"]


def test_an_unknown_field_is_refused_in_the_words_of_every_other_action(data_dir: Path) -> None:
    """The souls' routes check a body's fields with the board's one helper, so a typo reads as it does
    on ``/api/actions/timer``: 'unknown field(s) ...; expected ...'."""
    with Table(data_dir) as t:
        timer = t.act("timer", {"lable": "x"}, status=400)["error"]
        damage = t.act("soul-damage", {"soul": "HMPU#0001", "damage": 1}, status=400)["error"]
        assert timer.startswith("unknown field(s) lable; expected ")
        assert damage == "unknown field(s) damage; expected by, cause, count, healed, soul"
