"""A Kipukas table for scripted-game tests: a simulated board (BoardApp on a temporary data dir)
driven only through its HTTP API, as players and reed switches would drive it.

    with Table(data_dir, dice=ScriptedDice([5, 2])) as t:
        t.new_game(players=2)
        t.put("T1")                  # a reed switch closes under T1
        t.move("M2b", "M3a")         # a token lifted from M2b and put on M3a
        t.act("roll-diel", {"phase": "storm"})
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kipukas_board.app import BoardApp
from kipukas_board.modes.kipukas.rules.dice import Dice, SeededDice
from kipukas_board.settings import Settings
from kipukas_board.web.server import create_app

PIN = "2468"
COLORS = ["#e4572e", "#1e90ff", "#2e8b57", "#daa520"]


class Table:
    def __init__(self, data_dir: Path, map_name: str = "kipuka-8", dice: Dice | None = None) -> None:
        settings = Settings()
        settings.map = map_name
        self.board = BoardApp(settings, data_dir, sim=True, admin_pin=PIN, dice=dice or SeededDice(0))
        self.client = create_app(self.board).test_client()
        self.board.start()
        self.effects: list[dict[str, Any]] = []  # every effect the core emitted, in order
        self.board.loop.subscribe(lambda state, fx: self.effects.extend(fx))

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.board.stop()

    # -- hands on tokens ------------------------------------------------------------------------
    def switch(self, sid: str, occupied: bool) -> None:
        r = self.client.post(f"/api/sim/stands/{sid}", json={"occupied": occupied})
        assert r.status_code == 200, r.get_json()
        assert r.get_json()["changed"], f"{sid} was already {'occupied' if occupied else 'empty'}"

    def put(self, *sids: str) -> None:
        for sid in sids:
            self.switch(sid, True)

    def lift(self, *sids: str) -> None:
        for sid in sids:
            self.switch(sid, False)

    def move(self, *route: str) -> None:
        """A token moved along ``route`` (lifted from each stand, put on the next)."""
        for a, b in zip(route, route[1:], strict=False):
            self.lift(a)
            self.put(b)

    # -- the page -------------------------------------------------------------------------------
    def act(self, name: str, body: dict[str, Any] | None = None, status: int = 200) -> dict[str, Any]:
        r = self.client.post(f"/api/actions/{name}", json=body if body is not None else {},
                             headers={"X-Admin-Pin": PIN})
        assert r.status_code == status, (name, body, r.status_code, r.get_json())
        return r.get_json()

    def new_game(self, players: int = 2, **body: Any) -> dict[str, Any]:
        ps = [{"seat": s, "name": f"Player {s}", "color": COLORS[s - 1], "affinity": "brutal"}
              for s in range(1, players + 1)]
        return self.act("new-game", {"players": ps, **body})

    def roll(self, phase: str | None = None) -> dict[str, Any]:
        return self.act("roll-diel", {"phase": phase} if phase else {})

    def answer(self, question: str, answer: Any, status: int = 200) -> dict[str, Any]:
        return self.act("answer", {"question": question, "answer": answer}, status=status)

    def state(self) -> dict[str, Any]:
        r = self.client.get("/api/state")
        assert r.status_code == 200
        return r.get_json()

    def territory(self, n: int) -> dict[str, Any]:
        return next(t for t in self.state()["territories"] if t["number"] == n)

    def stand(self, sid: str) -> dict[str, Any]:
        return next(s for s in self.state()["stands"] if s["id"] == sid)

    def owners(self) -> dict[int, int | None]:
        return {t["number"]: t["owner"] for t in self.state()["territories"]}

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.effects if e["type"] == kind]

    def questions(self) -> list[dict[str, Any]]:
        return self.state()["questions"]

    def problems(self) -> list[str]:
        return self.state()["problems"]


# -- openings several test files share ------------------------------------------------------------
SETUP = ["T1", "T8", "T2", "T7", "T5", "T4"]  # seat 1 first: capitals T1 / T8, base camps 2, 7 / 5, 4


def play(t: Table, edition: str = "web", first: int = 1, **body) -> None:
    t.new_game(2, edition=edition, first_placer=first, **body)
    t.put(*SETUP)
    assert t.state()["phase"] == "play"


def setup_two_players(t: Table) -> None:
    """Seat 1 places first (D6 5 against 2): capitals T1 / T8, then base camps T2, T7, T5, T4."""
    r = t.new_game(2, edition="web", play_style="domination")
    assert r["event"]["first_placer"] == 1
    assert r["event"]["placement_rolls"] == [[1, 5], [2, 2]]
    order = [("T1", 1, "capital"), ("T8", 2, "capital"), ("T2", 1, "base_camp"), ("T7", 2, "base_camp"),
             ("T5", 1, "base_camp"), ("T4", 2, "base_camp")]
    for sid, seat, claim in order:
        s = t.state()
        assert s["phase"] == "setup"
        assert s["setup"]["placer"] == seat, (sid, s["setup"])
        t.put(sid)
        terr = t.territory(int(sid[1:]))
        assert (terr["owner"], terr["claim"]) == (seat, claim)
