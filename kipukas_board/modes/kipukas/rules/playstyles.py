"""Play styles (seed 001, "Play Style Options") as data, and the win checks they name.

A :class:`PlayStyle` says how many territories each player places at setup, how many players the map
allows, which options new-game must give (``cycles``, ``territory``, ``soul_limit``) and *when* the
winner is decided: ``"claims"`` (after every change of a claim: Domination and its variants),
``"cycles"`` (when the fixed number of diel cycles has passed: Coastal War, The Ends Must Justify the
Means), ``"hill"`` (King of the Hill: the chosen territory held for N cycles), ``"end"`` (only when
players end the game: Highest Body Count).

Example::

    >>> from kipukas_board.modes.kipukas.rules.playstyles import style, player_limit
    >>> style("king_of_the_hill").setup_claims
    1
    >>> [player_limit(n) for n in (8, 9, 11, 12)]
    [2, 3, 3, 4]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kipukas_board.modes.kipukas.rules.state import KipukasState


@dataclass(frozen=True)
class PlayStyle:
    name: str
    title: str
    decided_by: str  # "claims" | "cycles" | "hill" | "end"
    setup_claims: int = 3
    max_players: int | None = 2  # None: by the map's territory count (Mass Contention)
    needs: tuple[str, ...] = ()  # options new-game must give
    capitals_takeable: bool = True
    summary: str = ""


STYLES: dict[str, PlayStyle] = {s.name: s for s in (
    PlayStyle("domination", "Domination", "claims",
              summary="hold every base camp and capital on the map"),
    PlayStyle("mass_contention", "Mass Contention", "claims", max_players=None,
              summary="Domination for up to 4 players (8 territories: 2, 9-11: 3, 12: 4)"),
    PlayStyle("king_of_the_hill", "King of the Hill", "hill", setup_claims=1, needs=("territory", "cycles"),
              summary="hold the chosen territory for N diel cycles; players start with only a capital"),
    PlayStyle("coastal_war", "Coastal War", "cycles", needs=("cycles",),
              summary="most coastline after N diel cycles"),
    PlayStyle("ends_justify_means", "The Ends Must Justify the Means", "cycles", needs=("cycles",),
              summary="best ratio of territory gained to souls lost after N diel cycles"),
    PlayStyle("cost_too_great", "The Cost Is Too Great", "claims", needs=("soul_limit",),
              summary="Domination; a player who loses soul_limit souls is out of the game"),
    PlayStyle("highest_body_count", "Highest Body Count", "end", capitals_takeable=False,
              summary="claims do not matter, capitals cannot be taken; most souls defeated when the game ends"),
)}


def style(name: str) -> PlayStyle:
    try:
        return STYLES[name]
    except KeyError:
        raise KeyError(f"unknown play style {name!r}; expected one of {', '.join(STYLES)}") from None


def player_limit(territories: int) -> int:
    """Mass Contention's player limit for a map of ``territories`` territories that can be held.

    A transit territory (water) cannot be held, so it does not count: a 12-territory map with a lake
    allows 3 players, as 4 players placing 3 territories each would need 12 territory stands.
    """
    if territories <= 8:
        return 2
    if territories <= 11:
        return 3
    return 4


def max_players(ps: PlayStyle, territories: int) -> int:
    """How many players ``ps`` allows on a map with ``territories`` holdable territories: the style's
    limit, and never more than can each place their setup claims."""
    limit = player_limit(territories) if ps.max_players is None else ps.max_players
    return min(limit, territories // ps.setup_claims)


def player_limit_why(ps: PlayStyle, territories: int) -> str:
    """Why ``ps`` allows :func:`max_players` players on a map with ``territories`` holdable territories."""
    limit = max_players(ps, territories)
    if ps.max_players is None:
        why = (f"Mass Contention counts the territories that can be held ({territories} here; water and other "
               f"transit territories do not count): 8 allow 2 players, 9 to 11 allow 3, 12 allow 4")
    else:
        why = f"the rule books describe {ps.title} for {ps.max_players} players; only Mass Contention seats more"
    if territories // ps.setup_claims < (player_limit(territories) if ps.max_players is None else ps.max_players):
        why += f"; each player places {ps.setup_claims} territories at setup"
    return f"up to {limit} players: {why}"


def player_limits(board: Any) -> dict[str, dict[str, Any]]:
    """For the page and ``GET /api/state``: how many players each play style allows on ``board``, and why."""
    holdable = len(board.holdable)
    return {name: {"players": max_players(ps, holdable), "why": player_limit_why(ps, holdable)}
            for name, ps in STYLES.items()}


def too_many_players(ps: PlayStyle, board: Any, players: int) -> str | None:
    """Why ``players`` players cannot play ``ps`` on ``board`` (None if they can)."""
    holdable = len(board.holdable)
    limit = max_players(ps, holdable)
    if players <= limit:
        return None
    return (f"{ps.title} on {board.name!r} ({holdable} territories that can be held) allows at most {limit} "
            f"players, not {players}")


# -- scores -----------------------------------------------------------------------------------------
def holdings(state: KipukasState) -> dict[int, int]:
    """Territories held per active seat."""
    out = {p.seat: 0 for p in state.players if p.seat not in state.eliminated}
    for t in state.territories.values():
        if t.owner in out:
            out[t.owner] += 1
    return out


def coastline(state: KipukasState) -> dict[int, int]:
    out = {p.seat: 0 for p in state.players if p.seat not in state.eliminated}
    for n, t in state.territories.items():
        if t.owner in out:
            out[t.owner] += state.board.territories[n].coastline
    return out


def ends_ratio(state: KipukasState) -> dict[int, float]:
    """Territory gained (claims made during play) per soul lost (at least 1, so no division by zero)."""
    return {p.seat: state.claims_gained.get(p.seat, 0) / max(1, state.souls_lost.get(p.seat, 0))
            for p in state.players if p.seat not in state.eliminated}


def body_count(state: KipukasState) -> dict[int, int]:
    return {p.seat: state.souls_defeated.get(p.seat, 0) for p in state.players}


def scores(state: KipukasState) -> dict[str, Any]:
    """What the page shows as the standing for the game's play style."""
    name = state.play_style
    if name == "coastal_war":
        key, values = "coastline", coastline(state)
    elif name == "ends_justify_means":
        key, values = "ratio", ends_ratio(state)  # type: ignore[assignment]
    elif name == "highest_body_count":
        key, values = "defeated", body_count(state)
    else:
        key, values = "territories", holdings(state)
    return {key: {str(seat): v for seat, v in values.items()}}  # JSON object keys are strings


def best(values: dict[int, Any]) -> int | None:
    """The single seat with the highest value, or None on a tie (or no seats)."""
    if not values:
        return None
    top = max(values.values())
    seats = [s for s, v in values.items() if v == top]
    return seats[0] if len(seats) == 1 else None


def claims_winner(state: KipukasState) -> int | None:
    """Domination: the one active player holding every territory that has a territory stand."""
    owners = set()
    for n, t in state.territories.items():
        if state.board.territories[n].transit:
            continue
        if t.owner is None:
            return None
        owners.add(t.owner)
    if len(owners) == 1:
        return owners.pop()
    return None


def last_standing(state: KipukasState) -> int | None:
    active = [p.seat for p in state.players if p.seat not in state.eliminated]
    return active[0] if len(active) == 1 else None


def cycles_winner(state: KipukasState) -> tuple[bool, int | None]:
    """For styles decided after N cycles: (decided, winner or None on a tie)."""
    n = int(state.style_options.get("cycles", 0))
    if state.diel_cycle <= n:
        return False, None
    if state.play_style == "coastal_war":
        return True, best(coastline(state))
    return True, best(ends_ratio(state))
