"""A random but plausible game, event by event: for benchmarks and property tests.

:func:`random_game` plays both sides with a :class:`~kipukas_board.modes.kipukas.rules.dice.Dice` (seeded for
repeatable runs): setup placements, souls stepping out of base camps, moves along paths, claims,
diel rolls, answers to the board's questions, resolutions and the takes that follow them, timers and
soul losses, soul cards shown as souls step out of base camps (from :data:`SIM_CARDS`, a few made-up
cards) and bouts between the souls the board knows, rolled with the bout assistant. Every event goes
through :func:`~kipukas_board.modes.kipukas.rules.events.check_event` and the real core, so the result is a journal
the board could have written.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.modes.kipukas.rules.dice import SeededDice
    >>> from kipukas_board.modes.kipukas.rules.simulate import random_game
    >>> events = random_game(load_map("kipuka-8"), 500, SeededDice(1))
    >>> len(events) >= 500
    True
"""

from __future__ import annotations

from typing import Any

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.modes.kipukas.rules.bouts import plan_bout, roll_plan
from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.dice import Dice
from kipukas_board.modes.kipukas.rules.rolls import diel_event, placement_rolls
from kipukas_board.modes.kipukas.rules.state import KipukasState, initial_state
from kipukas_board.table.cards import card_event
from kipukas_board.table.events import check_event, map_event, stand_event

COLORS = ["#e4572e", "#1e90ff", "#2e8b57", "#daa520"]
#: Soul cards each simulated player holds at a time (a new game starts with fresh souls).
DECK = 12
#: Made-up soul cards the generated games show (catalog records, as the card desk writes them in).
SIM_CARDS: list[dict[str, Any]] = [
    {"code": "SmAa", "title": "Sim Ash Walker", "movement": 2, "injury_tolerance": 2, "habitat": "Volcanic",
     "die": "D6-D6", "genetic_disposition": "Brutal", "motivation": "Survival", "brawl_sequence": "SmAa"},
    {"code": "SmBb", "title": "Sim Bog Hound", "movement": 3, "injury_tolerance": 1, "habitat": "Plains",
     "die": "", "genetic_disposition": "Magic", "motivation": "Passion", "brawl_sequence": "Sm-b"},
    {"code": "SmCc", "title": "Sim Cliff Owl", "movement": 4, "injury_tolerance": 3, "habitat": "Nomad",
     "die": "D20", "genetic_disposition": "Avian", "motivation": "Duty", "brawl_sequence": "S9Cc"},
]


class _Driver:
    def __init__(self, board: BoardMap, dice: Dice, players: int, play_style: str, edition: str,
                 options: dict[str, Any] | None) -> None:
        self.board = board
        self.dice = dice
        self.players = players
        self.play_style = play_style
        self.edition = edition
        self.options = options or {}
        self.events: list[dict[str, Any]] = []
        self.state: KipukasState = initial_state(board)
        self.emit(map_event(board.name, board.source_text))

    def emit(self, event: dict[str, Any]) -> None:
        check_event(event)
        self.events.append(event)
        self.state, _ = apply(self.state, event)

    def pick(self, items: list[Any]) -> Any:
        return items[self.dice.roll(len(items)) - 1]

    def new_game(self) -> None:
        for sid, st in self.state.stands.items():
            if st.occupied:
                self.emit(stand_event(sid, False))
        seats = list(range(1, self.players + 1))
        rolls, first = placement_rolls(seats, self.dice)
        self.emit({"type": "new_game", "edition": self.edition, "play_style": self.play_style,
                   "options": dict(self.options), "first_placer": first, "placement_rolls": rolls,
                   "players": [{"seat": s, "name": f"Player {s}", "color": COLORS[s - 1]} for s in seats]})
        while self.state.phase == "setup":
            free = [s.id for s in self.board.stands.values()
                    if s.kind == "territory" and not self.state.stands[s.id].occupied]
            self.emit(stand_event(self.pick(free), True))

    def step(self) -> None:
        s = self.state
        if s.phase != "play":
            self.new_game()
            return
        r = self.dice.roll(20)
        if r <= 2 or s.diel_phase != "day":
            self.emit(diel_event(s, self.dice))
        elif s.questions and r <= 6:
            q = s.questions[0]
            self.emit({"type": "answer", "question": q["id"], "answer": self.pick(q["options"])})
        elif s.contenders and r == 7:
            n = self.pick(sorted(s.contenders))
            self.emit({"type": "resolve_contention", "territory": n, "winner": self.pick(list(s.contenders[n]))})
        elif (r == 10 and self.take()) or (r in (11, 12) and self.bout()):
            return
        elif r == 8:
            seat = self.pick(list(s.seats))
            self.emit({"type": "timer_start", "label": "personal effect", "cycles": 5, "seat": seat})
        elif r == 9:
            self.emit({"type": "soul_lost", "seat": self.pick(list(s.seats)), "by": self.pick(list(s.seats))})
        else:
            self.move()

    def show_card(self, seat: int | None) -> None:
        """A soul card from ``seat``'s hand shown (it binds to the token put down next): one of
        :data:`DECK` cards that is neither wasted nor standing on the map; a wasted card is replaced
        by a new one, as players draw."""
        if seat is None:
            return
        s = self.state
        on_map = {st.soul for st in s.stands.values() if st.soul is not None and st.occupied}
        drawn = sum(1 for x in s.souls.values() if x.seat == seat and x.wasted)  # wasted cards are replaced
        free = []
        for k in range(drawn, drawn + DECK):
            card = SIM_CARDS[(seat + k) % len(SIM_CARDS)]
            copy = f"{seat}{k:03d}"
            soul = s.souls.get(f"{card['code']}#{copy}")
            if soul is None or (not soul.wasted and soul.id not in on_map and soul.seat == seat):
                free.append((card, copy))
        if free:
            card, copy = self.pick(free)
            self.emit(card_event(seat, f"kpks.us/{card['code']}#{copy}", card["code"], copy, None, card, source="sim"))

    def bout(self) -> bool:
        """Two bound souls of different seats in one territory fight; the dice are the driver's."""
        s, b = self.state, self.board
        by_territory: dict[int, list[Any]] = {}
        for sid, st in s.stands.items():
            soul = s.souls.get(st.soul) if st.soul is not None and st.occupied and st.awaiting is None else None
            if soul is not None and not soul.wasted:
                by_territory.setdefault(b.stands[sid].territory, []).append(soul)
        for n, souls in sorted(by_territory.items()):
            attackers = [x for x in souls if not x.downed]
            for att in attackers:
                foes = [x for x in souls if x.seat != att.seat]
                if foes:
                    plan = plan_bout(s, n, att.id, foes[0].id, archetype=self.dice.roll(7) - 4)
                    if isinstance(plan, dict):
                        self.emit({"type": "bout_roll", "territory": n, "attacker": att.id, "defender": foes[0].id,
                                   "archetype": plan["archetype"], "rolls": roll_plan(plan, self.dice),
                                   "source": "board"})
                        return True
        return False

    def take(self) -> bool:
        """A fight's winner takes the base camp: the holder's token off, the soul onto the stand."""
        s, b = self.state, self.board
        for n, t in sorted(s.territories.items()):
            square = b.territory_stand(n)
            if t.taker is None or square is None or not s.stands[square.id].occupied:
                continue
            souls = [sid for sid in (x.id for x in b.stands_in(n) if x.kind == "movement")
                     if s.stands[sid].occupied and s.stands[sid].owner == t.taker and s.stands[sid].awaiting is None]
            if souls:
                self.emit(stand_event(square.id, False))
                self.emit(stand_event(souls[0], False))
                self.emit(stand_event(square.id, True))
                return True
        return False

    def move(self) -> None:
        s, b = self.state, self.board
        gone = [sid for sid, st in s.stands.items() if st.occupied and st.awaiting == "wasted"]
        if gone:  # a wasted soul's token is taken off the map
            self.emit(stand_event(gone[0], False))
            return
        souls = [sid for sid, st in s.stands.items()
                 if st.occupied and st.owner is not None and b.stands[sid].kind == "movement" and st.awaiting is None]
        if souls and self.dice.roll(3) > 1:
            src = self.pick(souls)
            targets = [n for n, _ in b.edges(src) if not s.stands[n].occupied]
            if targets:
                self.emit(stand_event(src, False))
                self.emit(stand_event(self.pick(targets), True))
                return
            self.emit(stand_event(src, False))  # into a base camp (or off the map)
            return
        held = [b.territory_stand(n).id for n, t in s.territories.items()  # type: ignore[union-attr]
                if t.owner is not None and b.territory_stand(n) is not None]
        if not held:
            return
        camp = self.pick(held)
        out = [n for n, _ in b.edges(camp) if not s.stands[n].occupied]
        if out:
            if self.dice.roll(3) > 1:  # most souls step out with their card shown
                self.show_card(s.territories[b.stands[camp].territory].owner)
            self.emit(stand_event(self.pick(out), True))


def random_game(board: BoardMap, n_events: int, dice: Dice, players: int = 2, play_style: str = "domination",
                edition: str = "web", options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """At least ``n_events`` events of a random game (new games start when one ends)."""
    d = _Driver(board, dice, players, play_style, edition, options)
    while len(d.events) < n_events:
        d.step()
    return d.events[:n_events] if len(d.events) > n_events else d.events
