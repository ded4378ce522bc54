"""Property tests: random event sequences never break the rules' invariants, and replaying the
exported journal always rebuilds exactly the live state."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kipukas_board.board.mapfile import load_map
from kipukas_board.modes import new_table
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.editions import MAX_PRISONERS, SUPPLY
from kipukas_board.modes.kipukas.rules.state import KipukasState, initial_state
from kipukas_board.modes.kipukas.rules.view import state_json
from kipukas_board.modes.replay import read_lines, replay_events
from kipukas_board.table.events import check_event, map_event

BOARDS = {name: load_map(name) for name in ("kipuka-8", "kipuka-12")}
OPS = ("stand", "stand", "stand", "stand", "roll", "answer", "correct_stand", "correct_territory",
       "resolve", "bout", "undo", "soul_lost", "initiative", "timer", "downed")


def check_invariants(s: KipukasState) -> None:
    board = s.board
    caps: dict[int, int] = {}
    camps: dict[int, int] = {}
    for n, t in s.territories.items():
        if s.started:
            assert (t.owner is None) == (t.claim is None), f"territory {n}: owner {t.owner} claim {t.claim}"
        else:  # no game: a token on a territory stand marks it held by nobody known (foundation's claim)
            held = any(st_.occupied for sid, st_ in s.stands.items()
                       if board.stands[sid].territory == n and board.stands[sid].kind == "territory")
            assert t.owner is None and t.claim == ("base_camp" if held else None), f"territory {n} before a game: {t}"
        assert t.claim in (None, "capital", "base_camp")
        if board.territories[n].transit:
            assert t.owner is None, f"transit territory {n} is held"
        if t.owner is not None:
            assert t.owner in s.seats
            (caps if t.claim == "capital" else camps)[t.owner] = \
                (caps if t.claim == "capital" else camps).get(t.owner, 0) + 1
        assert len(t.prisoners) <= MAX_PRISONERS
        # contention only with opposing presence
        assert t.contention == (n in s.contenders)
        if t.contention:
            holder = s.contenders[n][0]
            assert holder == t.owner is not None
            enemies = {st_.owner for sid, st_ in s.stands.items()
                       if board.stands[sid].territory == n and board.stands[sid].kind == "movement"
                       and st_.occupied and st_.owner not in (None, holder) and st_.awaiting is None}
            assert set(s.contenders[n][1:]) <= enemies and enemies, f"territory {n} contended without enemies"
    for seat in s.seats:
        assert caps.get(seat, 0) <= SUPPLY["capital"]
        assert camps.get(seat, 0) <= SUPPLY["base_camp"]
        souls = sum(1 for sid, st_ in s.stands.items()
                    if st_.occupied and st_.owner == seat and board.stands[sid].kind == "movement")
        assert souls <= SUPPLY["soul"], f"seat {seat} has {souls} soul tokens on the map"
    for sid, st_ in s.stands.items():
        if not st_.occupied:
            assert st_.owner is None and st_.awaiting is None, f"{sid} is empty but keeps {st_}"


def check_problems(s: KipukasState, event: dict, fx: list[dict], seq: int) -> None:
    """No problem stays open once what caused it is over, and what this event raised is open."""
    assert tuple(c.text for c in s.problem_causes) == s.problems
    kinds = {e["type"] for e in fx}
    accepted = bool(kinds - {"problem", "stand", "question"})
    moved = {e["stand"] for e in fx if e["type"] == "stand"}
    for c in s.problem_causes:
        assert c.cycle == s.diel_cycle, f"{c.text!r} from cycle {c.cycle} is still open in cycle {s.diel_cycle}"
        if c.seq != seq:  # raised earlier: this event must not have ended its cause
            assert not (c.stands & moved), f"{c.text!r} names {sorted(c.stands)}, which just changed"
            assert not (c.refused and accepted), f"{c.text!r} (a refusal) outlived an accepted action"
            assert not (event["type"] == "new_game" and kinds != {"problem"}), f"{c.text!r} outlived a new game"
    for e in fx:
        if e["type"] == "problem":
            assert e["text"] in s.problems, f"{e['text']!r} was raised now and is not open"


def to_event(s: KipukasState, op: str, a: int, b: int) -> dict | None:
    stands = sorted(s.stands)
    seats = list(s.seats)
    if not seats and op != "stand":  # an undone new game: only tokens move
        return None
    if op == "stand":
        sid = stands[a % len(stands)]
        return {"type": "stand", "stand": sid, "occupied": not s.stands[sid].occupied}
    if op == "roll":
        return {"type": "roll_diel", "cycle": s.diel_cycle + 1, "phase": ("day", "night", "storm")[b % 3],
                "roll": None, "source": "physical"}
    if op == "bout" and len(seats) > 1:
        return {"type": "bout", "territory": 1 + a % len(s.territories), "winner": seats[b % len(seats)],
                "loser": seats[(b + 1) % len(seats)], "defeated": a % 3, "cleared": bool(b % 2)}
    if op == "answer" and s.questions:
        q = s.questions[a % len(s.questions)]
        return {"type": "answer", "question": q["id"], "answer": q["options"][b % len(q["options"])]}
    if op == "correct_stand":
        movement = [x for x in stands if s.board.stands[x].kind == "movement"]
        return {"type": "correction", "target": "stand", "stand": movement[a % len(movement)],
                "owner": seats[b % len(seats)] if b % 4 else None}
    if op == "correct_territory":
        n = 1 + a % len(s.territories)
        return {"type": "correction", "target": "territory", "territory": n,
                "owner": seats[b % len(seats)] if b % 3 else None,
                "claim": "capital" if b % 5 == 0 else "base_camp"}
    if op == "resolve" and s.contenders:
        n = sorted(s.contenders)[a % len(s.contenders)]
        return {"type": "resolve_contention", "territory": n, "winner": s.contenders[n][b % len(s.contenders[n])]}
    if op == "undo":
        return {"type": "undo"}
    if op == "soul_lost":
        return {"type": "soul_lost", "seat": seats[a % len(seats)], "by": seats[b % len(seats)]}
    if op == "initiative":
        return {"type": "take_initiative", "seat": seats[a % len(seats)]}
    if op == "timer":
        return {"type": "timer_start", "label": "effect", "cycles": 1 + a % 4, "seat": None}
    if op == "downed":
        movement = [x for x in stands if s.board.stands[x].kind == "movement"]
        return {"type": "correction", "target": "stand", "stand": movement[a % len(movement)], "downed": bool(b % 2)}
    return None


game = st.fixed_dictionaries({
    "map": st.sampled_from(sorted(BOARDS)),
    "players": st.integers(2, 3),
    "edition": st.sampled_from(["web", "2023"]),
    "style": st.sampled_from(["domination", "mass_contention", "cost_too_great", "coastal_war",
                              "king_of_the_hill", "highest_body_count", "ends_justify_means"]),
    "setup": st.lists(st.integers(0, 40), min_size=0, max_size=12),
    "ops": st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 60), st.integers(0, 60)), max_size=80),
})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game)
def test_random_event_sequences_keep_the_invariants_and_replay_exactly(g):
    board = BOARDS[g["map"]]
    players = g["players"] if g["style"] == "mass_contention" and g["map"] == "kipuka-12" else 2
    events = [map_event(board.name, board.source_text),
              {"type": "new_game", "edition": g["edition"], "play_style": g["style"], "first_placer": 1,
               "options": {"cycles": 4, "territory": 2, "soul_limit": 3},
               "players": [{"seat": s, "name": f"P{s}", "color": "#102030"} for s in range(1, players + 1)]}]
    squares = sorted(s.id for s in board.stands.values() if s.kind == "territory")
    state = initial_state(board)
    seq = 0

    def feed(event):
        nonlocal state, seq
        check_event(event)
        seq += 1
        state, fx = apply(state, event, seq=seq)
        journal.append(event)
        check_invariants(state)
        check_problems(state, event, fx, seq)

    journal: list[dict] = []
    for e in events:
        feed(e)
    for i in g["setup"]:  # setup placements, some of them mistakes
        sid = squares[i % len(squares)] if i % 7 else sorted(board.stands)[i % len(board.stands)]
        feed({"type": "stand", "stand": sid, "occupied": not state.stands[sid].occupied})
    for op, a, b in g["ops"]:
        e = to_event(state, op, a, b)
        if e is not None:
            feed(e)
    # the export, as JSON lines, rebuilds the same state
    lines = [json.dumps({"seq": i, "ts": 0.0, "event": e}) for i, e in enumerate(journal, 1)]
    rebuilt = kipukas_state(replay_events(read_lines(lines), new_table(board)))
    assert state_json(rebuilt) == state_json(state)


def test_a_long_random_game_keeps_the_invariants():
    from kipukas_board.modes.kipukas.rules.dice import SeededDice
    from kipukas_board.modes.kipukas.rules.simulate import random_game

    board = BOARDS["kipuka-12"]
    state = initial_state(board)
    for e in random_game(board, 3000, SeededDice(7), players=3, play_style="mass_contention"):
        state, _ = apply(state, e)
        check_invariants(state)
    assert state.diel_cycle > 100
