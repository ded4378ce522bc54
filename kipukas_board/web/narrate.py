"""The game told in sentences a player can read: the log, the captions and what undo would undo.

Two sources make the log: each journaled event (what a player or a token did) in one sentence with
names, and what the rules made of it (claims, contention, storms, wins) in the words the board
speaks (the game mode's ``written``, the voice's sentences with stand ids written rather than spelled
out). The rules' effects are not journaled, so those come from :class:`Narration`, which
follows the core loop and remembers the last :data:`KEEP` events' sentences; after a restart the
older entries show their event sentence alone.

Example::

    >>> describe({"type": "resolve_contention", "territory": 2, "winner": 2}, {2: "Ben"}, {2: "Lowlands"})
    'Ben won the contention over Lowlands (2).'
    >>> describe({"type": "duel_pass", "seat": 1}, {1: "Ana"})    # an event with no sentence of its own
    'Duel pass (Ana).'
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from kipukas_board.board.places import territory_name
from kipukas_board.show.phrases import PHRASES

#: Events whose sentences are kept (about one evening of play).
KEEP = 2000
#: The board's phrases as written on the page: stand ids as printed on the board, not spelled out.
WRITTEN = {**PHRASES, "stand": "stand {id}"}

_SOURCES = {"sensor": "", "sim": " (simulated)", "resync": " (found at start)", "page": " (from the page)"}
_CLAIMS = {"capital": "a capital", "base_camp": "a base camp"}


def _seat(names: Mapping[int, str], seat: Any) -> str:
    return names.get(seat) or (f"seat {seat}" if seat is not None else "nobody")


def soul_names(state: Any) -> dict[str, str]:
    """Each soul the board knows by its card's name and its owner ("Raven, Ana's"), by soul id: the
    words :func:`describe` uses instead of the id."""
    names = {p.seat: p.name for p in getattr(state, "players", ())}
    return {sid: f"{s.title or 'a soul'}, {names.get(s.seat, f'seat {s.seat}')}'s"
            for sid, s in (getattr(state, "souls", None) or {}).items()}


def describe(event: Mapping[str, Any], names: Mapping[int, str] | None = None,
             territories: Mapping[int, str] | None = None, souls: Mapping[str, str] | None = None) -> str:
    """One sentence for a journaled event, with players' names (``names``: seat → name) and souls'
    (``souls``: soul id → card name and owner, see :func:`soul_names`); never a raw field or id."""
    names = dict(names or {})
    terr = territories or {}
    soul = lambda key: (souls or {}).get(str(event.get(key)), "a soul")  # noqa: E731
    kind = event.get("type")
    seat = lambda key: _seat(names, event.get(key))  # noqa: E731
    if kind == "stand":
        how = "placed on" if event.get("occupied") else "lifted from"
        return f"A token was {how} stand {event.get('stand')}{_SOURCES.get(str(event.get('source')), '')}."
    if kind == "map":
        return f"The board started on the map {event.get('name')}."
    if kind == "new_game":
        players = event.get("players") or []
        who = ", ".join(str(p.get("name")) for p in players if isinstance(p, dict)) or "no players"
        name = str(event.get("play_style", "domination"))
        style = WRITTEN.get(f"style_{name}", name.replace("_", " "))
        first = _names(players).get(event.get("first_placer"))  # type: ignore[arg-type]
        rolls = event.get("placement_rolls")
        why = ""
        if isinstance(rolls, list) and rolls:
            everyone = {**names, **_names(players)}
            why = " (D6 for first placement: " + ", ".join(
                f"{_seat(everyone, r[0])} {r[1]}" for r in rolls if isinstance(r, list) and len(r) == 2) + ")"
        lead = f" {first} places first{why}." if first else ""
        return f"New game of {style} for {who}.{lead}"
    if kind == "roll_diel":
        phase, cycle = event.get("phase"), event.get("cycle")
        how = {"fixed": "the fixed opening", "physical": "a roll at the table"}.get(str(event.get("source")))
        how = how or (f"the board rolled {event.get('roll')}" if event.get("roll") is not None else "a roll")
        return f"Cycle {cycle}: {phase} ({how})."
    if kind == "answer":
        answer = event.get("answer")
        shown = names.get(answer, answer) if isinstance(answer, int) else answer
        return f"Question {event.get('question')} answered: {shown}."
    if kind == "correction":
        what = []
        if "owner" in event:
            what.append(f"held by {_seat(names, event['owner'])}")
        if "downed" in event:
            what.append("a downed soul" if event["downed"] else "a standing soul")
        if "claim" in event:
            what.append(_CLAIMS.get(str(event["claim"]), "no claim"))
        where = (f"stand {event.get('stand')}" if event.get("target") == "stand"
                 else territory_name(terr, event.get("territory")))
        return f"Corrected {where}: {', '.join(what)}."
    if kind == "undo":
        return "The last action was undone."
    if kind == "resume":
        return "The paused game was resumed."
    if kind == "redo":
        return "The undone action was done again."
    if kind == "resolve_contention":
        return f"{seat('winner')} won the contention over {territory_name(terr, event.get('territory'))}."
    if kind == "bout":
        n = int(event.get("defeated") or 0)
        lost = f", {n} soul{'s' if n != 1 else ''} of {seat('loser')} defeated" if n else ""
        cleared = "; the territory is cleared" if event.get("cleared") else ""
        return (f"{seat('winner')} won a bout against {seat('loser')} in "
                f"{territory_name(terr, event.get('territory'))}{lost}{cleared}.")
    if kind == "take_initiative":
        return f"{seat('seat')} took the initiative."
    if kind in ("soul_lost", "soul_wasted"):
        count = int(event.get("count") or 1)
        by = f", defeated by {seat('by')}" if event.get("by") is not None else ""
        where = f" on stand {event.get('stand')}" if event.get("stand") else ""
        return f"{seat('seat')} lost {count} soul{'s' if count != 1 else ''}{where}{by}."
    if kind == "timer_start":
        return f"Timer started: {event.get('label')}, {event.get('cycles')} cycles."
    if kind == "timer_cancel":
        return f"Timer {event.get('timer')} cancelled."
    if kind == "dice_roll":
        return f"Dice rolled ({str(event.get('kind')).replace('_', ' ')}): {event.get('rolls')}."
    if kind == "end_game":
        if event.get("winner") is not None:
            return f"The game was ended: {seat('winner')} wins."
        return "The game was ended."
    if kind == "card":
        card = event.get("card")
        if isinstance(card, dict) and card.get("mode"):  # a card game's card: its players are not ``names``
            return f"{card.get('name') or 'A card'} was shown at seat {event.get('seat')}."
        held = names.get(event.get("seat"))  # type: ignore[arg-type]
        return f"A card was shown at {held}'s seat." if held else f"A card was shown at seat {event.get('seat')}."
    if kind == "soul_bind":
        whose = soul("soul") if "soul" in event else f"a soul of {seat('seat')}"
        return _cap(f"{whose} was put on stand {event.get('stand')}.")
    if kind == "soul_unbind":
        return _cap(f"{soul('soul')} was taken off the map.")
    if kind == "soul_fix":
        fixed = "wasted" if event.get("wasted") else f"{event.get('lost')} KEAL means lost"
        return f"Corrected {soul('soul')}: {fixed}."
    if kind == "soul_damage":
        if event.get("healed"):
            return _cap(f"{soul('soul')} healed {event.get('healed')} KEAL means.")
        return _cap(f"{soul('soul')} lost {event.get('count', 1)} KEAL means.")
    if kind == "bout_roll":
        return (f"A bout in {territory_name(terr, event.get('territory'))}: {soul('attacker')} attacked "
                f"{soul('defender')}.")
    said = str(kind).replace("_", " ").capitalize()
    return f"{said} ({seat('seat')})." if event.get("seat") is not None else f"{said}."


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _names(players: Any) -> dict[int, str]:
    return {p["seat"]: str(p.get("name")) for p in players or []
            if isinstance(p, dict) and isinstance(p.get("seat"), int)}


#: effect, state -> the sentences written for it (a game mode's ``written``).
SayFor = Callable[[dict[str, Any], Any], list[str]]


def said(state: Any, effects: list[dict[str, Any]], say_for: SayFor) -> list[str]:
    """What the board says about ``effects``, written for the page (the captions): in the words of
    ``say_for`` (the game being played, see ``GameMode.written``)."""
    return [text for e in effects for text in say_for(e, state)]


class Narration:
    """Follows the core loop: the sentences each event's effects gave, by journal number.

    ``publish(seq, said, kinds, game)`` is called for every change that says something (the page
    shows it as a caption and may speak it; ``kinds`` are the effect types, e.g. ``storm`` and
    ``won`` for the map's passing light effects; ``game`` is the mode it was said in, so each game's
    page tells only its own news).
    """

    def __init__(self, say_for: SayFor, publish: Callable[[int, list[str], list[str], str], None] | None = None,
                 keep: int = KEEP) -> None:
        self._say_for = say_for
        self._by_seq: OrderedDict[int, tuple[float, list[str], str]] = OrderedDict()
        self._keep = keep
        self._lock = threading.Lock()
        self._publish = publish

    def __call__(self, state: Any, effects: list[dict[str, Any]]) -> None:
        text = said(state, effects, self._say_for)
        game = str(getattr(state, "game", "") or "")
        with self._lock:
            if text:
                self._by_seq[state.seq] = (time.time(), text, game)
                while len(self._by_seq) > self._keep:
                    self._by_seq.popitem(last=False)
        kinds = sorted({str(e.get("type")) for e in effects})
        if self._publish is not None and (text or {"storm", "won"} & set(kinds)):
            self._publish(state.seq, text, kinds, game)

    def sentences(self, seq: int) -> list[str]:
        with self._lock:
            got = self._by_seq.get(seq)
        return list(got[1]) if got else []

    def game(self, seq: int) -> str:
        """The game the sentences of event ``seq`` were said in ("" when none are kept), so a game's
        page reads back only its own news."""
        with self._lock:
            got = self._by_seq.get(seq)
        return got[2] if got else ""
