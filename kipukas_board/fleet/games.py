"""What the dashboard reads of each game in a board's state message: which game, its players and its
progress in a line.

A board's state message is its ``/api/state`` (topics.py): ``game`` names the game on the table,
Kipukas's fields are always at the top (no players while another game plays) and the other games'
own fields sit under their key (``duel``, ``creature_combat``), as each mode's ``to_json`` writes them.
The fleet cannot import the modes (they are the board's, the dashboard runs apart), so this module
reads those documents as the contract they are: every field is checked before it is used, since a
message comes from the network, and every text is cut short.

A game the dashboard does not know (a board newer than it) still shows by the title the board gives it
(``games``, ``under_way``), without players or progress.

Example::

    >>> doc = {"game": "duel", "duel": {"turn": 4, "to_act": 2, "phase": "play", "winner": None,
    ...        "seats": [{"seat": 1, "name": "Ana", "color": "#e4572e", "hearts": 3, "hearts_total": 3},
    ...                  {"seat": 2, "name": "Ben", "color": "#1e90ff", "hearts": 2, "hearts_total": 3}]}}
    >>> g = game_on_table(doc)
    >>> g.title, g.progress
    ('Card duel', 'turn 4 · Ben to play')
    >>> [p["detail"] for p in g.players]
    ['3/3 Hearts', '2/3 Hearts']
    >>> game_on_table({"game": "kipukas", "players": []}) is None
    True
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any

from kipukas_board import strictjson

#: The titles of the games this dashboard knows, for a board whose message lists none.
TITLES = {"kipukas": "Kipukas", "duel": "Card duel", "creature-combat": "Creature Combat Territory"}
#: Longest name or title kept, and most players listed (a message comes from the network).
MAX_TEXT = 40
MAX_PLAYERS = 8
#: Longest progress line kept (a tie between many long names, a long reason the duel ended).
MAX_PROGRESS = 160


@dataclass
class GameOnTable:
    """A game on a board's table as its dashboard row shows it."""

    game: str
    title: str
    players: list[dict[str, Any]] = field(default_factory=list)
    #: Its progress in a few words ("turn 4 · Ben to play"); None when the dashboard cannot tell.
    progress: str | None = None
    phase: str | None = None
    winner: int | None = None
    #: Kipukas's diel cycle and its phase (the other games have none).
    cycle: int | None = None
    diel_phase: str | None = None


def _text(value: Any, limit: int = MAX_TEXT) -> str | None:
    return value[:limit] if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if strictjson.is_int(value) else None


def _dicts(value: Any, limit: int | None = MAX_PLAYERS) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)][:limit] if isinstance(value, list) else []


def title_of(doc: dict[str, Any], game: str) -> str:
    """The title of ``game``: as the board's message lists it, else as this dashboard knows it."""
    for g in _dicts(doc.get("games")) + [doc["under_way"] if isinstance(doc.get("under_way"), dict) else {}]:
        if g.get("name", g.get("game")) == game and _text(g.get("title")):
            return _text(g["title"]) or game
    return TITLES.get(game, game[:MAX_TEXT])


def paused_title(doc: dict[str, Any]) -> str | None:
    """The title of the game paused for the one on the table (None when none is)."""
    paused = doc.get("paused")
    if not isinstance(paused, dict):
        return None
    return _text(paused.get("title")) or TITLES.get(str(paused.get("game")))


def _player(p: dict[str, Any], detail: str) -> dict[str, Any]:
    return {"seat": _int(p.get("seat")), "name": _text(p.get("name")), "color": _text(p.get("color"), 7),
            "detail": detail}


def _name_of(players: list[dict[str, Any]], seat: Any) -> str:
    return next((p["name"] for p in players if p["seat"] == seat and p["name"]), f"seat {seat}")


def _kipukas(doc: dict[str, Any]) -> GameOnTable | None:
    """Kipukas: a game once a new game named its players (before that the state still says "setup"
    and diel cycle 0, which describe no game)."""
    # seats as numbers only: a list or an object where a seat should be is no key to count by
    held: collections.Counter[int | None] = collections.Counter(
        _int(t.get("owner")) for t in _dicts(doc.get("territories"), limit=None))
    players = []
    for p in _dicts(doc.get("players")):
        seat = _int(p.get("seat"))
        n = held[seat] if seat is not None else 0
        one = _player(p, "out" if p.get("eliminated") is True else f"{n} territor{'y' if n == 1 else 'ies'}")
        players.append({**one, "territories": n})
    if not players:
        return None
    phase, winner = _text(doc.get("phase")), _int(doc.get("winner"))
    diel = doc.get("diel") if isinstance(doc.get("diel"), dict) else {}
    cycle, diel_phase = _int(diel.get("cycle")), _text(diel.get("phase"))
    if winner is not None:
        progress = f"{_name_of(players, winner)} wins"
    else:
        words = [phase or "under way"]
        if cycle:  # diel cycle 0: the game is still being set up
            words.append(f"cycle {cycle}" + (f" {diel_phase}" if diel_phase else ""))
        progress = " · ".join(words)
    return GameOnTable("kipukas", title_of(doc, "kipukas"), players, progress, phase, winner, cycle, diel_phase)


def _duel(doc: dict[str, Any]) -> GameOnTable | None:
    """The card duel: its two players with their Hearts, the turn and who is to act, or who won."""
    duel = doc.get("duel")
    if not isinstance(duel, dict):
        return None
    players = []
    for s in _dicts(duel.get("seats")):
        hearts, total = _int(s.get("hearts")), _int(s.get("hearts_total"))
        players.append(_player(s, f"{hearts}/{total} Hearts" if hearts is not None and total else ""))
    phase, winner = _text(duel.get("phase")), _int(duel.get("winner"))
    if phase == "over":
        progress = f"{_name_of(players, winner)} wins" if winner is not None else "over"
        reason = _text(duel.get("end_reason"), 80)
        progress += f" ({reason})" if reason else ""
    else:
        turn, to_act = _int(duel.get("turn")), _int(duel.get("to_act"))
        progress = None if turn is None else f"turn {turn}" + (
            f" · {_name_of(players, to_act)} to play" if to_act is not None else "")
    return GameOnTable("duel", title_of(doc, "duel"), players, progress, phase, winner)


def _creature_combat(doc: dict[str, Any]) -> GameOnTable | None:
    """Creature Combat Territory: its players with the lands each has won, the round and its step
    (and the land being fought), or who won."""
    cc = doc.get("creature_combat")
    if not isinstance(cc, dict):
        return None
    players = []
    for s in _dicts(cc.get("seats")):
        lands = s.get("lands")
        n = len(lands) if isinstance(lands, list) else 0
        players.append(_player(s, "conceded" if s.get("conceded") is True else f"{n} land{'' if n == 1 else 's'}"))
    phase, winner = _text(cc.get("phase")), _int(cc.get("winner"))
    if phase == "over":
        tied = [_name_of(players, t) for t in cc.get("tied") or [] if strictjson.is_int(t)][:MAX_PLAYERS]
        progress = (f"{_name_of(players, winner)} wins" if winner is not None
                    else f"a tie between {' and '.join(tied)}" if tied else "over")
    else:
        rnd = _int(cc.get("round"))
        progress = f"round {rnd} · {(phase or '').replace('_', ' ')}".rstrip(" ·") if rnd is not None else None
        combat = cc.get("combat") if isinstance(cc.get("combat"), dict) else {}
        land = combat.get("land") if isinstance(combat.get("land"), dict) else {}
        if progress and phase == "combat" and _text(land.get("name")):
            progress += f" at {_text(land.get('name'))}"
    return GameOnTable("creature-combat", title_of(doc, "creature-combat"), players, progress, phase, winner)


_READERS = {"kipukas": _kipukas, "duel": _duel, "creature-combat": _creature_combat}


def game_on_table(doc: dict[str, Any]) -> GameOnTable | None:
    """The game on the table of a board whose state message is ``doc``, or None when it has none.

    A board whose message names no game is a Kipukas board (the messages before there were other
    games). A game this dashboard does not know counts while the board says it is under way.
    """
    if not doc:
        return None
    game = doc.get("game", "kipukas")
    if not isinstance(game, str):
        return None
    reader = _READERS.get(game)
    if reader is not None:
        found = reader(doc)
        if found is not None and found.progress is not None:
            found.progress = found.progress[:MAX_PROGRESS]
        return found
    if isinstance(doc.get("under_way"), dict):
        return GameOnTable(game[:MAX_TEXT], title_of(doc, game))
    return None
