"""From the rules core's semantic effects to spoken sentences.

The core never writes phrase text; it emits effects such as ``{"type": "storm", "exposed": [...]}``.
:func:`phrases_for` turns one effect into sentences using :data:`~kipukas_board.show.phrases.PHRASES`
(pure, so every wording is testable), and :class:`Announcer` is the core subscriber that queues
them on the voice port.

Example::

    >>> from kipukas_board.hardware.voice import SilentVoice
    >>> voice = SilentVoice()
    >>> Announcer(voice).announce(state, [{"type": "storm", "cycle": 4, "exposed": ["M3a"],
    ...                                    "wasted": []}])              # doctest: +SKIP
    >>> voice.spoken                                                    # doctest: +SKIP
    ['Exposed to the storm: stand M 3 A.']
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any

from kipukas_board.game.state import GameState
from kipukas_board.hardware.voice import Voice
from kipukas_board.show.phrases import PHRASES

log = logging.getLogger(__name__)

PLAY_STYLES = {"domination": "domination", "mass_contention": "mass contention",
               "king_of_the_hill": "king of the hill", "coastal_war": "coastal war"}


def spell_stand(stand_id: str) -> str:
    """``"M3a"`` → ``"M 3 A"``: espeak-ng reads grouped letters and digits one by one this way."""
    parts = re.findall(r"[A-Za-z]+|\d+", stand_id)
    return " ".join(p.upper() if p.isalpha() else p for p in parts) or stand_id


class _Namer:
    def __init__(self, state: GameState | None, phrases: Mapping[str, str]) -> None:
        self.state = state
        self.p = phrases

    def player(self, seat: Any) -> str:
        if self.state is not None:
            pl = self.state.player(seat)
            if pl is not None and pl.name.strip():
                return pl.name
        return self.p["seat"].format(seat=seat) if seat is not None else "Someone"

    def territory(self, number: Any) -> str:
        t = None
        if self.state is not None:
            try:
                t = self.state.board.territories.get(int(number))
            except (TypeError, ValueError):
                t = None
        if t is not None and t.name:
            return self.p["territory"].format(name=t.name, number=number)
        return self.p["territory_unnamed"].format(number=number)

    def stand(self, sid: Any) -> str:
        return self.p["stand"].format(spelled=spell_stand(str(sid)), id=sid)

    def join(self, items: Iterable[str]) -> str:
        xs = list(items)
        if len(xs) <= 1:
            return "".join(xs)
        return ", ".join(xs[:-1]) + f" {self.p['and']} " + xs[-1]


def phrases_for(effect: Mapping[str, Any], state: GameState | None = None,
                phrases: Mapping[str, str] = PHRASES) -> list[str]:
    """The sentences to speak for one effect (``[]`` for effects the voice stays quiet about)."""
    n = _Namer(state, phrases)
    p = phrases
    kind = effect.get("type")
    try:
        if kind == "say":
            return [str(effect["text"])]
        if kind == "diel":
            out = []
            if effect.get("roll") is not None and not effect.get("fixed"):
                out.append(p["diel_roll"].format(roll=effect["roll"]))
            phase = effect.get("phase")
            if phase in ("day", "night", "storm"):
                out.append(p[phase].format(cycle=effect.get("cycle", "")))
            return out
        if kind == "storm":
            exposed = [n.stand(s) for s in effect.get("exposed", [])]
            wasted = [n.stand(s) for s in effect.get("wasted", [])]
            out = [p["storm_exposed"].format(stands=n.join(exposed), count=len(exposed)) if exposed
                   else p["storm_none_exposed"]]
            if wasted:
                out.append(p["storm_wasted"].format(stands=n.join(wasted), count=len(wasted)))
            return out
        if kind == "claimed":
            owner = effect.get("owner")
            terr = n.territory(effect["territory"])
            if owner is None:
                return [p["claimed_unknown"].format(territory=terr, owner="")]
            key = "claimed_capital" if effect.get("claim") == "capital" else "claimed_base_camp"
            return [p[key].format(owner=n.player(owner), territory=terr)]
        if kind in ("contention_started", "contention_ended"):
            players = n.join(n.player(s) for s in effect.get("players", []))
            return [p[kind].format(territory=n.territory(effect["territory"]), players=players)]
        if kind == "imprisoned":
            return [p["imprisoned"].format(stand=n.stand(effect["stand"]), territory=n.territory(effect["territory"]),
                                           owner=n.player(effect.get("owner")),
                                           captor=n.player(effect.get("prisoner_of")))]
        if kind == "timer_due":
            timer = effect.get("timer", {})
            label = str(timer.get("label") or timer.get("id") or "")
            if timer.get("seat") is not None:
                return [p["timer_due_player"].format(label=label, player=n.player(timer["seat"]))]
            return [p["timer_due"].format(label=label, player="")]
        if kind == "won":
            style = str(effect.get("play_style", "domination"))
            return [p["won"].format(winner=n.player(effect.get("winner")),
                                    play_style=PLAY_STYLES.get(style, style.replace("_", " ")))]
        if kind == "question":
            return [p["question"].format(text=str(effect.get("question", {}).get("text", "")))]
        if kind == "problem":
            return [p["problem"].format(text=str(effect.get("text", "")))]
        if kind == "night_move":
            return [p["night_move"].format(stand=n.stand(effect["stand"]))]
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        log.warning("cannot announce effect %r: %s", effect, exc)
    return []


class Announcer:
    """Subscriber for the core loop: speaks what each batch of effects means.

    Example::

        >>> loop.subscribe(Announcer(voice).announce)   # doctest: +SKIP
    """

    def __init__(self, voice: Voice, phrases: Mapping[str, str] = PHRASES) -> None:
        self.voice = voice
        self.phrases = phrases

    def announce(self, state: GameState | None, effects: Iterable[Mapping[str, Any]]) -> list[str]:
        """Queue the sentences for ``effects``; returns them (for the log and tests)."""
        said: list[str] = []
        for e in effects:
            for text in phrases_for(e, state, self.phrases):
                self.voice.say(text)
                said.append(text)
        return said
