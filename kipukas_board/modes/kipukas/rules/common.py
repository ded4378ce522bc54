"""Small building blocks every rules module uses: problems, questions, claims, contention, wins.

Each helper takes the state and the effects list of the event being applied, returns the new state
and appends the effects it caused, so a handler reads as the rule it implements.
"""

from __future__ import annotations

from typing import Any

from kipukas_board.board.mapfile import BoardMap
from kipukas_board.board.places import territory_name
from kipukas_board.modes.kipukas.rules.editions import MAX_SOULS_PER_PLAYER, SUPPLY, edition
from kipukas_board.modes.kipukas.rules.playstyles import claims_winner, last_standing, style
from kipukas_board.modes.kipukas.rules.state import KipukasState, amend
from kipukas_board.table.events import Effect

# -- per-map tables, computed once per map object ---------------------------------------------------
_Tables = tuple[BoardMap, dict[int, tuple[str, ...]], dict[int, str], tuple[str, ...]]
_TABLES: dict[int, _Tables] = {}


def _tables(board: BoardMap) -> _Tables:
    t = _TABLES.get(id(board))
    if t is None or t[0] is not board:
        movement: dict[int, list[str]] = {n: [] for n in board.territories}
        for s in board.stands.values():
            if s.kind == "movement":
                movement[s.territory].append(s.id)
        if len(_TABLES) > 16:
            _TABLES.clear()
        squares = {s.territory: s.id for s in board.stands.values() if s.kind == "territory"}
        every = tuple(s.id for s in board.stands.values() if s.kind == "movement")
        t = (board, {n: tuple(v) for n, v in movement.items()}, squares, every)
        _TABLES[id(board)] = t
    return t


def movement_stands(board: BoardMap, territory: int) -> tuple[str, ...]:
    return _tables(board)[1][territory]


def territory_stand_id(board: BoardMap, territory: int) -> str | None:
    """The id of territory ``territory``'s square stand (None for a transit territory), from a table."""
    return _tables(board)[2].get(territory)


# -- problems, questions, wins ----------------------------------------------------------------------
def problem(state: KipukasState, effects: list[Effect], text: str, quiet: bool = False) -> KipukasState:
    """Show ``text`` on the page as something players should check. ``quiet``: the voice already says
    it another way (an effect of its own), so it is not spoken twice."""
    effects.append({"type": "problem", "text": text, **({"quiet": True} if quiet else {})})
    return state.with_problem(text)


def ask(state: KipukasState, effects: list[Effect], kind: str, text: str, options: list[Any],
        **context: Any) -> KipukasState:
    """Open a question the page shows; an ``answer`` event with one of ``options`` resolves it."""
    n = state.counter + 1
    q = {"id": f"q{n}", "kind": kind, "text": text, "options": list(options), **context}
    effects.append({"type": "question", "question": q})
    return state.evolve(counter=n, questions=(*state.questions, q))


def drop_questions(state: KipukasState, **match: Any) -> KipukasState:
    """Close open questions whose context matches (the evidence they asked about is gone)."""
    if not state.questions:
        return state
    keep = tuple(q for q in state.questions if any(q.get(k) != v for k, v in match.items()))
    return state if len(keep) == len(state.questions) else state.evolve(questions=keep)


def seat_name(state: KipukasState, seat: int | None) -> str:
    """A player as the table says them: the name, with the seat only when another player has the
    same name ("Ben's soul", "Ana (seat 1)" beside another Ana), or the seat when nobody sits there."""
    p = state.player(seat)
    if p is None:
        return f"seat {seat}"
    twin = any(o.seat != p.seat and o.name.casefold() == p.name.casefold() for o in state.players)
    return f"{p.name} (seat {seat})" if twin else p.name


def win(state: KipukasState, effects: list[Effect], winner: int | None) -> KipukasState:
    """End the game: ``won`` for a winner, ``draw`` when there is none (a tie, or ended without one)."""
    if winner is None:
        effects.append({"type": "draw", "play_style": state.play_style})
    else:
        effects.append({"type": "won", "winner": winner, "play_style": state.play_style})
    return state.evolve(phase="over", winner=winner)


def check_claims_win(state: KipukasState, effects: list[Effect]) -> KipukasState:
    """After a claim changed: Domination-style wins and the last player standing."""
    if state.phase != "play":
        return state
    winner = last_standing(state)
    if winner is None and style(state.play_style).decided_by == "claims":
        winner = claims_winner(state)
    return win(state, effects, winner) if winner is not None else state


def soul_limits(state: KipukasState, effects: list[Effect]) -> KipukasState:
    """The Cost Is Too Great: a player who lost ``soul_limit`` souls is out of the game."""
    if state.play_style != "cost_too_great" or state.phase != "play":
        return state
    limit = int(state.style_options.get("soul_limit", 0))
    out = [p.seat for p in state.players
           if p.seat not in state.eliminated and state.souls_lost.get(p.seat, 0) >= limit]
    if not out:
        return state
    for s in out:
        effects.append({"type": "eliminated", "seat": s, "souls_lost": state.souls_lost.get(s, 0)})
    return check_claims_win(state.evolve(eliminated=(*state.eliminated, *out)), effects)


def lose_soul(state: KipukasState, effects: list[Effect], seat: int, by: int | None, count: int = 1) -> KipukasState:
    """Count ``count`` souls of ``seat`` lost (defeated by ``by``, when a player did it)."""
    lost = dict(state.souls_lost)
    lost[seat] = lost.get(seat, 0) + count
    changes: dict[str, Any] = {"souls_lost": lost}
    if by is not None and by != seat:
        defeated = dict(state.souls_defeated)
        defeated[by] = defeated.get(by, 0) + count
        changes["souls_defeated"] = defeated
    effects.append({"type": "soul_lost", "seat": seat, "by": by, "count": count})
    return soul_limits(state.evolve(**changes), effects)


# -- tokens and claims ------------------------------------------------------------------------------
def claims_of(state: KipukasState, seat: int) -> tuple[int, int]:
    """(capitals, base camps) held by ``seat``."""
    caps = camps = 0
    for t in state.territories.values():
        if t.owner == seat:
            if t.claim == "capital":
                caps += 1
            elif t.claim == "base_camp":
                camps += 1
    return caps, camps


def souls_on_board(state: KipukasState, seat: int) -> int:
    """How many soul tokens of ``seat`` stand on the map's movement stands."""
    stands = state.stands
    count = 0
    for sid in _tables(state.board)[3]:
        st = stands[sid]
        if st.owner == seat and st.occupied:
            count += 1
    return count


def capital_protected(state: KipukasState, owner: int | None, territory: int | None = None,
                      taker: int | None = None) -> bool:
    """Whether ``owner``'s capital (in ``territory``) cannot be taken by ``taker`` now.

    Web rules: not while its owner holds any other base camp. 2023 rule book: not until the taker
    holds every other territory on the board (``taker`` None: any single player). Some play styles
    never let a capital be taken.
    """
    if owner is None:
        return False
    if not style(state.play_style).capitals_takeable:
        return True
    if edition(state.edition).capital_rule == "all_territories":
        holders = {t.owner for n, t in state.territories.items()
                   if n != territory and not state.board.territories[n].transit}
        return not (len(holders) == 1 and None not in holders and owner not in holders
                    and (taker is None or holders == {taker}))
    return claims_of(state, owner)[1] > 0


def capital_contended(state: KipukasState, owner: int | None, territory: int) -> bool:
    """Whether enemy souls in ``owner``'s capital put it in contention (the edition decides)."""
    return edition(state.edition).capital_contention or not capital_protected(state, owner, territory)


def set_claim(state: KipukasState, effects: list[Effect], n: int, owner: int | None, claim: str | None,
              gained: bool = False) -> KipukasState:
    """Give territory ``n`` to ``owner`` (or clear it), checking the token supply and the capital
    rule; a refused change becomes a problem and leaves the territory as it was."""
    t = state.territories[n]
    if owner is not None and claim is None:
        claim = "base_camp"
    if owner is None:
        claim = None
    if (t.owner, t.claim) == (owner, claim):
        return state
    if t.claim == "capital" and owner != t.owner and capital_protected(state, t.owner, n, owner):
        if not style(state.play_style).capitals_takeable:
            why = "capitals cannot be taken in this play style"
        elif edition(state.edition).capital_rule == "all_territories":
            why = f"{seat_name(state, owner)} must first hold every other territory on the board"
        else:
            why = f"{seat_name(state, t.owner)} still holds another base camp"
        return problem(state, effects, f"{territory_name(state.board, n)} is {seat_name(state, t.owner)}'s capital "
                                       f"and cannot be taken: {why}")
    if owner is not None:
        caps, camps = claims_of(state, owner)
        if t.owner == owner:
            caps -= t.claim == "capital"
            camps -= t.claim == "base_camp"
        if claim == "capital" and caps >= SUPPLY["capital"]:
            return problem(state, effects, f"{seat_name(state, owner)} already has a capital on the map "
                                           f"(one capital per player)")
        if claim == "base_camp" and camps >= SUPPLY["base_camp"]:
            return problem(state, effects, f"{seat_name(state, owner)} has no base camp token left "
                                           f"({SUPPLY['base_camp']} per player)")
    territories = dict(state.territories)
    taken = owner is not None and t.owner is not None and owner != t.owner
    # Prisoners stay imprisoned "until ... the base camp/capital is taken": a prison taken frees them.
    freed = t.prisoners if taken else ()
    territories[n] = amend(t, owner=owner, claim=claim, taker=t.taker if owner == t.owner else None,
                             prisoners=() if freed else t.prisoners)
    effects.append({"type": "claimed", "territory": n, "owner": owner, "claim": claim})
    if freed:
        effects.append({"type": "liberated", "territory": n, "seats": list(freed)})
    changes: dict[str, Any] = {"territories": territories}
    if owner != t.owner and any(w.territory == n for w in state.claim_waits):
        changes["claim_waits"] = tuple(w for w in state.claim_waits if w.territory != n)
    if gained and owner is not None and state.phase == "play":
        gains = dict(state.claims_gained)
        gains[owner] = gains.get(owner, 0) + 1
        changes["claims_gained"] = gains
    if state.play_style == "king_of_the_hill" and n == state.style_options.get("territory"):
        changes["hill_since"] = state.diel_cycle if owner is not None else None
    state = state.evolve(**changes)
    # losing a base camp can unprotect a capital elsewhere: look at every territory (at most 12)
    state = refresh_all_contention(state, effects)
    return check_claims_win(state, effects)


# -- contention -------------------------------------------------------------------------------------
def present_enemies(state: KipukasState, n: int) -> set[int]:
    """Seats other than the holder with a soul token standing in territory ``n`` (not one waiting
    to be taken off as imprisoned or wasted)."""
    holder = state.territories[n].owner
    stands = state.stands
    present = set()
    for sid in _tables(state.board)[1][n]:
        st = stands[sid]
        if st.occupied and st.owner is not None and st.owner != holder and st.awaiting is None:
            present.add(st.owner)
    return present


def souls_limit(state: KipukasState, effects: list[Effect], sid: str) -> KipukasState:
    """A problem when the owner of the soul token on movement stand ``sid`` now has more than
    :data:`~.editions.MAX_SOULS_PER_PLAYER` soul tokens in its territory. It names every one of those
    stands, so it is over when one of them changes. The board counts the tokens it sees: prisoners
    (kept in the territory's prison, not on its stands) and souls in base camps are not among them."""
    st = state.stands[sid]
    if state.phase != "play" or not st.occupied or st.owner is None or st.awaiting is not None:
        return state
    n = state.board.stands[sid].territory
    mine = [m for m in movement_stands(state.board, n)
            if state.stands[m].occupied and state.stands[m].owner == st.owner and state.stands[m].awaiting is None]
    if len(mine) <= MAX_SOULS_PER_PLAYER:
        return state
    effects.append({"type": "souls_limit", "territory": n, "seat": st.owner, "count": len(mine), "stands": mine,
                    "limit": MAX_SOULS_PER_PLAYER})
    return problem(state, effects, f"{seat_name(state, st.owner)} has {len(mine)} soul tokens in "
                                   f"{territory_name(state.board, n)}, on {', '.join(mine)}: a territory hosts "
                                   f"at most {MAX_SOULS_PER_PLAYER} souls per player (\"Every territory hosts a max "
                                   f"of 3 souls (per player)\"; prisoners are counted apart)", quiet=True)


def meeting(state: KipukasState, n: int) -> set[int]:
    """Seats whose souls meet in territory ``n``: the contenders, and every seat with a soul token
    standing on one of its movement stands. The 2023 book: "If an enemy is in the same territory that
    you moved to, you must engage an attack", held territory or not."""
    seats = set(state.contenders.get(n, ()))
    stands = state.stands
    for sid in movement_stands(state.board, n):
        st = stands[sid]
        if st.occupied and st.owner is not None and st.awaiting is None:
            seats.add(st.owner)
    return seats


def refresh_contention(state: KipukasState, effects: list[Effect], n: int) -> KipukasState:
    """Contention in territory ``n`` follows the evidence: a held territory (not a protected capital)
    with an enemy soul token on one of its movement stands, unless a resolution already settled
    that enemy's presence. A fight the holder lost (``taker``) is over: the taker alone is no
    contention, only other enemies still there are."""
    t = state.territories[n]
    enemies: list[int] = []
    resolved = t.resolved
    if t.owner is not None:
        present = present_enemies(state, n)
        resolved = resolved & present
        if state.phase == "play" and not (t.claim == "capital" and not capital_contended(state, t.owner, n)):
            enemies = sorted(present - resolved)
            if enemies == [t.taker]:
                enemies = []
    else:
        resolved = frozenset()
    contenders = (t.owner, *enemies) if enemies else ()
    old = state.contenders.get(n, ())
    if bool(enemies) == t.contention and contenders == old and resolved == t.resolved:
        return state
    territories = dict(state.territories)
    territories[n] = amend(t, contention=bool(enemies), resolved=resolved)
    cont = dict(state.contenders)
    if enemies:
        cont[n] = contenders  # type: ignore[assignment]
    else:
        cont.pop(n, None)
    if enemies and not t.contention:
        effects.append({"type": "contention_started", "territory": n, "players": list(contenders)})
    elif t.contention and not enemies:
        effects.append({"type": "contention_ended", "territory": n, "players": list(old)})
    elif enemies and contenders != old:
        effects.append({"type": "contention_changed", "territory": n, "players": list(contenders)})
    return state.evolve(territories=territories, contenders=cont)


def refresh_all_contention(state: KipukasState, effects: list[Effect]) -> KipukasState:
    for n in state.territories:
        state = refresh_contention(state, effects, n)
    return state
