"""What to do now: whose move it is, what to do and why, for every moment of setup and play.

The page's "what now" line and its "Why?" read :func:`next_step`'s sentences from the state
document (``next`` in ``GET /api/state``), so the rules that decide them (whose placement it is,
what a night allows in each edition, how many cycles the opening fixes, King of the Hill's count)
live here, beside the rules that apply them, and nowhere in the page's script. Stands are named by
where they are (:mod:`kipukas_board.board.places`), never by their ids.

King of the Hill's standing (``hill`` in the state document) is worked out here too, since the
what-now line tells it and the page draws it from the same numbers.

Example::

    >>> from kipukas_board.board.mapfile import load_map
    >>> from kipukas_board.modes.kipukas.rules.state import Player, initial_state
    >>> s = initial_state(load_map("kipuka-8"))
    >>> next_step(s).now
    'No game yet. Start one under More actions → New game.'
    >>> s = s.evolve(players=(Player(1, "Ana", "#d7263d"), Player(2, "Ben", "#1b98e0")), started=True,
    ...              placement_order=(1, 2), placer=1, placement_rolls=((1, 5), (2, 3)))
    >>> step = next_step(s)
    >>> step.seat, step.now
    (1, 'Ana: place your capital on a territory stand.')
    >>> for sentence in step.why.split(". "):
    ...     print(sentence)
    Everyone places a capital first, then base camps, in turn: Ana, then Ben
    Ana places first (D6 for first placement: Ana 5, Ben 3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kipukas_board.board.places import place_names, territory_name
from kipukas_board.modes.kipukas.rules.checks import why_not
from kipukas_board.modes.kipukas.rules.editions import EDITIONS
from kipukas_board.modes.kipukas.rules.souls import where
from kipukas_board.modes.kipukas.rules.state import KipukasState

#: The placement rolls named in the "Why?" at most (a run of ties rolls again, each roll is kept).
MAX_ROLLS_TOLD = 24

#: What each diel phase allows, as the "Why?" says it (the night by edition: the December 2023 rule
#: book's night is discard, draw, craft, then a sabotage or a trap; the Kipukas web rules' night is
#: draw, craft, sabotage or take the initiative).
_ALLOWS = {
    "day": "Day: resolve contention, play a card, move souls and claim territory.",
    "night": "Night: draw, craft, sabotage or take the initiative. Souls may not move.",
    "storm": "Storm: souls outside a capital or base camp lose a KEAL means. Initiative carries over.",
}
_NIGHT_2023 = "Night: discard, draw, craft, then sabotage or lay a trap. Souls may not move."


@dataclass(frozen=True)
class NextStep:
    """Whose move it is (``seat``, None when it is nobody's or everyone's), what to do (``now``, one
    sentence) and why (``why``, empty when nothing needs saying)."""

    seat: int | None
    now: str
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "now": self.now, "why": self.why}


def next_step(state: KipukasState) -> NextStep:
    """What the players do next in ``state``, in the page's words (see the module's docstring)."""
    if not state.players:
        return NextStep(None, "No game yet. Start one under More actions → New game.",
                        "Each player puts their tokens by their seat; one phone with the PIN starts the game.")
    if state.phase == "over":
        won = state.winner
        return NextStep(won, f"{_who(state, won)} won. Game over." if won is not None
                        else "The game is over without a winner.",
                        "Start a new game under More actions, or print the game report.")
    if state.phase == "setup":
        return _setup(state)
    if state.questions:
        return NextStep(None, "Answer the board's question first.", "")
    # A wasted soul's token still on the map is called out until someone lifts it.
    stands = where(state) if state.souls else {}
    gone = next((s for s in state.souls.values() if s.wasted and stands.get(s.id)), None)
    if gone is not None:
        stand = place_names(state.board).get(stands[gone.id] or "", "a stand")
        return NextStep(gone.seat, f"{gone.title} ({_who(state, gone.seat)}) is wasted: take its token off the map.",
                        f"Its token is on {stand}, marked ✕ on the map. A wasted soul counts as lost.")
    return _play(state)


#: The page's actions whose every argument the page knows from the state alone, by event type: the
#: page greys them out (saying why) when the rules would refuse them now.
ASKED = ("roll_diel", "take_initiative", "end_game")


def refusals(state: KipukasState) -> dict[str, str]:
    """Why the rules would refuse each of :data:`ASKED` now, in :func:`.checks.why_not`'s words (an
    action they take is left out). The initiative is asked for the first player's seat: whose it is
    the page's menu picks, and any player may take it.

    Example::

        >>> from kipukas_board.board.mapfile import load_map
        >>> from kipukas_board.modes.kipukas.rules.state import initial_state
        >>> refusals(initial_state(load_map("kipuka-8")))["end_game"]
        'there is no game in progress to end'
    """
    seat = state.players[0].seat if state.players else None
    asked = {"roll_diel": {"type": "roll_diel"}, "take_initiative": {"type": "take_initiative", "seat": seat},
             "end_game": {"type": "end_game"}}
    out = {kind: why_not(state, asked[kind]) for kind in ASKED}
    return {kind: why for kind, why in out.items() if why is not None}


def next_json(state: KipukasState) -> dict[str, Any]:
    """``next`` in the state document: :func:`next_step`'s ``seat``, ``now`` and ``why``, and
    ``refused``, :func:`refusals`."""
    return {**next_step(state).to_json(), "refused": refusals(state)}


def hill_json(state: KipukasState) -> dict[str, Any]:
    """King of the Hill's ``hill``: the territory, who holds it, and the cycles still to hold it
    (``left`` is None while nobody holds it: the count starts when someone takes it). Other play
    styles have no ``hill``."""
    n = state.style_options.get("territory")
    if state.play_style != "king_of_the_hill" or n not in state.territories:
        return {}
    need = int(state.style_options.get("cycles", 0))
    holder = state.territories[n].owner
    since = state.hill_since if holder is not None else None
    left = None if since is None else max(0, need - (state.diel_cycle - since))
    return {"hill": {"territory": n, "name": state.board.territories[n].name, "holder": holder,
                     "since": since, "cycles": need, "left": left}}


def _setup(state: KipukasState) -> NextStep:
    """Setup: capitals round the table first, then base camps (both rule books, "Game Setup" 5), on a
    map cleared of the tokens a game before left."""
    left = sorted(sid for sid, st in state.stands.items() if st.occupied) if not state.placements else []
    if left:
        names = place_names(state.board)
        shown = ", ".join(names.get(sid, "a stand") for sid in left[:3]) + (", ..." if len(left) > 3 else "")
        return NextStep(None, "Clear the map first: lift the tokens left on it.",
                        f"{_plural(len(left), 'token is', 'tokens are')} still on the map ({shown}); setup "
                        f"starts on an empty map, then {_who(state, state.placer)} places a capital.")
    capital = state.placements < len(state.players)
    order = ", then ".join(_who(state, seat) for seat in state.placement_order)
    why = (f"{'Everyone places a capital first, then base camps' if capital else 'Base camps now'}, "
           f"in turn: {order}.")
    first = _first_why(state)
    hill = _hill_now(state)
    why = " ".join(x for x in (why, first, hill) if x)
    what = "place your capital" if capital else "place a base camp"
    return NextStep(state.placer, f"{_who(state, state.placer)}: {what} on a territory stand.", why)


def _play(state: KipukasState) -> NextStep:
    ini = state.initiative
    opening = EDITIONS[state.edition].opening
    if not state.diel_phase:
        return NextStep(ini, "Roll the diel die to start cycle 1.",
                        f"The first {len(opening)} cycles are fixed ({', '.join(opening)}); the die decides after that."
                        if opening else "")
    night_2023 = state.diel_phase == "night" and state.edition == "2023"
    allows = _NIGHT_2023 if night_2023 else _ALLOWS.get(state.diel_phase or "", "")
    contested = [n for n, t in sorted(state.territories.items()) if t.contention]
    if contested and state.diel_phase == "day":
        seats = sorted({seat for n in contested for seat in state.contenders.get(n, ())})
        fighters = f"{' and '.join(_who(state, seat) for seat in seats)} fight" if seats else "Fight"
        over = ", ".join(territory_name(state.board, n) for n in contested)
        return NextStep(ini, f"{fighters} over {over}: tap who won.", allows)
    cycle = state.diel_cycle
    fixed = f" Cycle {cycle + 1} is fixed: {opening[cycle]}." if cycle < len(opening) else ""
    total = state.style_options.get("cycles")
    hill = _hill_now(state)
    left = (f" {hill}" if hill else
            f" {_plural(max(0, total - cycle), 'cycle', 'cycles')} left of {total}." if total else "")
    now = (f"{_who(state, ini)}'s initiative: play, then roll the diel die." if ini is not None
           else "Play the cycle, then roll the diel die.")
    return NextStep(ini, now, f"Cycle {cycle}. {allows}{fixed}{left}")


def _hill_now(state: KipukasState) -> str:
    """King of the Hill: the hill by name, and its count only while someone holds it."""
    h = hill_json(state).get("hill")
    if h is None:
        return ""
    n = h["territory"]
    spot = f"{h['name']} ({n}, marked ▲ on the map)" if h["name"] else f"territory {n} (marked ▲ on the map)"
    if h["holder"] is None:
        return f"The hill is {spot}: nobody holds it; hold it {_plural(h['cycles'], 'cycle', 'cycles')} to win."
    more = (f"hold it {_plural(h['cycles'], 'cycle', 'cycles')} in play to win" if h["left"] is None
            else f"{_plural(h['left'], 'cycle', 'cycles')} more to win")
    return f"{_who(state, h['holder'])} holds the hill, {spot}: {more}."


def _first_why(state: KipukasState) -> str:
    """Who places first and why: the higher D6 (both rule books, "Game Setup" 4), with the rolls."""
    if not state.placement_order:
        return ""
    rolls = [f"{_who(state, seat)} {roll}" for seat, roll in state.placement_rolls[:MAX_ROLLS_TOLD]]
    why = f"D6 for first placement: {', '.join(rolls)}" if rolls else "highest D6 roll"
    return f"{_who(state, state.placement_order[0])} places first ({why})."


def _who(state: KipukasState, seat: int | None) -> str:
    if seat is None:
        return "nobody"
    p = state.player(seat)
    return p.name if p is not None else f"seat {seat}"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
