"""Property tests of the contention flow: random token orders and fight outcomes around a contested
territory never lose or hand over a claim in silence, and the journal always replays to the same state.

"In silence" means: a territory's holder changes only with a ``claimed`` effect, and only by a rule
the players can see at work: a soul of the fight's winner stepping onto the territory stand, an
answer to the board's question about that territory, a correction, an undo, or a claim of a free
territory. A bout's outcome or a resolution never moves a claim by itself.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kipukas_board.board.graph import ANY_PATH, distance
from kipukas_board.board.mapfile import load_map
from kipukas_board.modes import new_table
from kipukas_board.modes.kipukas.on_table import kipukas_state
from kipukas_board.modes.kipukas.rules.core import apply
from kipukas_board.modes.kipukas.rules.editions import MAX_MOVE
from kipukas_board.modes.kipukas.rules.state import KipukasState, initial_state
from kipukas_board.modes.kipukas.rules.view import state_json
from kipukas_board.modes.replay import read_lines, replay_events
from kipukas_board.table.events import check_event, map_event, stand_event

BOARD = load_map("kipuka-8")
SETUP = ["T1", "T8", "T2", "T3", "T5", "T7"]  # seat 1: T1, T2, T5; seat 2: T8, T3, T7
#: The stands around the fight over T3 (seat 2's base camp): the ones players' hands touch.
NEAR = ["T3", "M3a", "M3b", "M2b", "M2a", "T2", "M4a", "T4", "M6a", "M7a"]
OPS = ("stand", "stand", "stand", "stand", "stand", "bout", "resolve", "answer", "answer", "roll", "undo",
       "correct")


def opening() -> list[dict]:
    """Day 3 of a two-player web game: seat 1's soul has walked into seat 2's T3."""
    events = [map_event(BOARD.name, BOARD.source_text),
              {"type": "new_game", "edition": "web", "play_style": "domination", "first_placer": 1, "options": {},
               "players": [{"seat": s, "name": f"P{s}", "color": "#102030"} for s in (1, 2)]}]
    events += [stand_event(sid, True) for sid in SETUP]
    events += [{"type": "roll_diel", "cycle": c, "phase": p, "roll": None, "source": "fixed"}
               for c, p in ((2, "night"), (3, "day"))]
    events += [stand_event("M2b", True), stand_event("M2b", False), stand_event("M3a", True)]
    return events


def to_event(s: KipukasState, op: str, a: int, b: int) -> dict | None:
    seats = list(s.seats)
    if op == "stand":
        sid = NEAR[a % len(NEAR)]
        return stand_event(sid, not s.stands[sid].occupied)
    if op == "bout":
        n = (3, 3, 3, 2, 4)[a % 5]
        winner, loser = seats[b % 2], seats[(b + 1) % 2]
        movement = [x for x in ("M3a", "M3b") if s.stands[x].occupied and s.stands[x].awaiting is None
                    and s.stands[x].owner in (loser, None)]
        event = {"type": "bout", "territory": n, "winner": winner, "loser": loser, "defeated": a % 3,
                 "cleared": bool(b % 3 == 0)}
        if n == 3 and movement and a % 2:
            event["stand"] = movement[0]
        return event
    if op == "resolve" and s.contenders:
        n = sorted(s.contenders)[a % len(s.contenders)]
        return {"type": "resolve_contention", "territory": n, "winner": s.contenders[n][b % len(s.contenders[n])]}
    if op == "answer" and s.questions:
        q = s.questions[a % len(s.questions)]
        return {"type": "answer", "question": q["id"], "answer": q["options"][b % len(q["options"])]}
    if op == "roll":
        return {"type": "roll_diel", "cycle": s.diel_cycle + 1, "phase": ("day", "night", "storm")[b % 3],
                "roll": None, "source": "physical"}
    if op == "undo":
        return {"type": "undo"}
    if op == "correct":
        return {"type": "correction", "target": "territory", "territory": (3, 2, 4)[a % 3],
                "owner": seats[b % 2] if b % 4 else None}
    return None


def check_claims_moved_in_sight(before: KipukasState, after: KipukasState, event: dict, effects: list[dict]) -> None:
    """Every change of a territory's holder is announced and has a reason the players can see."""
    for n, t in after.territories.items():
        old, new = before.territories[n].owner, t.owner
        if old == new:
            continue
        kind = event["type"]
        if kind in ("undo", "correction"):
            continue
        assert {"type": "claimed", "territory": n, "owner": new, "claim": t.claim} in effects, \
            f"territory {n}: {old} -> {new} on {event} without a claimed effect"
        if kind == "answer":
            q = next(q for q in before.questions if q["id"] == event["question"])
            assert q.get("territory") == n or q["kind"] in ("vanished", "fight_over"), (q, n)
            continue
        assert kind == "stand", f"territory {n}: {old} -> {new} on a {kind} event ({event})"
        square = next(sid for sid, spec in before.board.stands.items()
                      if spec.territory == n and spec.kind == "territory")
        # the territory stand itself, or the stand of a soul within a move of it ("take the base camp
        # by moving a soul onto the territory stand": the soul token leaving its movement stand)
        steps = distance(before.board, event["stand"], square, ANY_PATH)
        assert event["stand"] == square or (steps is not None and steps <= MAX_MOVE), (event, n)
        if old is None:
            continue  # a free territory claimed by the soul that moved onto it
        # a transfer at the sensor: only to the fight's winner, its soul stepping onto the stand
        taker = before.territories[n].taker
        assert new == taker, f"territory {n} handed to {new} (taker {taker})"
        assert any(e["type"] == "moved" and e["to"] == square and e["owner"] == new for e in effects), effects


def check_nothing_dropped(s: KipukasState) -> None:
    """A held territory stays held until an answer or correction says otherwise; a stand waiting for
    an attacker is in a held territory; a taker is never the holder."""
    for n, t in s.territories.items():
        if t.taker is not None:
            assert t.owner is not None and t.taker != t.owner, (n, t)
    for w in s.claim_waits:
        assert s.territories[w.territory].owner is not None, w
        assert s.board.stands[w.stand].territory == w.territory and s.board.stands[w.stand].kind == "territory"
        if w.placed:
            assert s.stands[w.stand].occupied, w
            assert w.left >= 1, w


scenario = st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 60), st.integers(0, 60)), max_size=60)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario)
def test_random_token_orders_and_outcomes_never_move_a_claim_in_silence(ops):
    state = initial_state(BOARD)
    journal: list[dict] = []

    def feed(event: dict) -> None:
        nonlocal state
        check_event(event)
        journal.append(event)
        before = state
        state, effects = apply(state, event, seq=len(journal))
        check_claims_moved_in_sight(before, state, event, effects)
        check_nothing_dropped(state)

    for e in opening():
        feed(e)
    assert state.contenders.get(3) == (2, 1)
    for op, a, b in ops:
        if state.phase != "play":  # undone back into setup, or a game won: the fight is over
            break
        e = to_event(state, op, a, b)
        if e is not None:
            feed(e)
    lines = [json.dumps({"seq": i, "ts": 0.0, "event": e}) for i, e in enumerate(journal, 1)]
    rebuilt = kipukas_state(replay_events(read_lines(lines), new_table(BOARD)))
    assert state_json(rebuilt) == state_json(state)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.permutations(["lift_T", "lift_M", "put_T"]), st.booleans())
def test_the_swap_in_any_order_ends_with_an_owner_everyone_sees(order, won):
    """The three changes of a take (the holder's token off, the attacker's soul token off, a token back
    on the territory stand), in any order the sensors allow: after a won fight the attacker holds the
    territory; without one the board asks. Nothing is left pending and the soul is not left "in hand"."""
    state = initial_state(BOARD)
    for e in opening():
        state, _ = apply(state, e)
    if won:
        state, _ = apply(state, {"type": "resolve_contention", "territory": 3, "winner": 1})
    steps = {"lift_T": stand_event("T3", False), "lift_M": stand_event("M3a", False),
             "put_T": stand_event("T3", True)}
    if order.index("put_T") < order.index("lift_T"):  # a token cannot go on a stand that is still full
        order = [x for x in order if x != "put_T"]
        order.insert(order.index("lift_T") + 1, "put_T")
    for step in order:
        state, _ = apply(state, steps[step])
    assert state.claim_waits == () and state.hand == ()
    if won:
        assert state.territories[3].owner == 1 and not state.questions
    else:
        assert state.territories[3].owner == 2
        q = state.questions[-1]
        assert q["kind"] == "claim_owner" and q["territory"] == 3 and q["options"] == [1, 2]
