"""From the rules core's semantic effects to spoken sentences.

The core never writes phrase text; it emits effects such as ``{"type": "storm", "exposed": [...]}``.
:func:`phrases_for` turns one effect into sentences using :data:`~kipukas_board.show.phrases.PHRASES`
(pure, so every wording is testable); :class:`~kipukas_board.show.announcer.Announcer`, the core
subscriber, queues them on the voice port.

Example::

    >>> phrases_for({"type": "storm", "cycle": 4, "exposed": ["M3a"], "wasted": []})
    ['Exposed to the storm: stand M 3 A.']
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any

from kipukas_board.board.places import territory_name
from kipukas_board.modes.kipukas.rules.state import KipukasState
from kipukas_board.show.phrases import PHRASES

log = logging.getLogger(__name__)

def spell_stand(stand_id: str) -> str:
    """``"M3a"`` → ``"M 3 A"``: espeak-ng reads grouped letters and digits one by one this way."""
    parts = re.findall(r"[A-Za-z]+|\d+", stand_id)
    return " ".join(p.upper() if p.isalpha() else p for p in parts) or stand_id


class _Namer:
    def __init__(self, state: KipukasState | None, phrases: Mapping[str, str]) -> None:
        self.state = state
        self.p = phrases

    def player(self, seat: Any) -> str:
        if self.state is not None:
            pl = self.state.player(seat)
            if pl is not None and pl.name.strip():
                return pl.name
        return self.p["seat"].format(seat=seat) if seat is not None else self.p["someone"]

    def play_style(self, name: Any) -> str:
        return self.p.get(f"style_{name}", str(name).replace("_", " "))

    def territory(self, number: Any) -> str:
        """As the page, the questions and the log name it: "Grey Peaks (4)" (espeak-ng reads the
        brackets as a short pause, "Grey Peaks, four"), "territory 4" where the map leaves it unnamed."""
        with contextlib.suppress(TypeError, ValueError):  # "4" from an effect names territory 4 too
            number = int(number)
        return territory_name(self.state.board if self.state is not None else {}, number)

    def stand(self, sid: Any) -> str:
        return self.p["stand"].format(spelled=spell_stand(str(sid)), id=sid)

    def join(self, items: Iterable[str]) -> str:
        xs = list(items)
        if len(xs) <= 1:
            return "".join(xs)
        return ", ".join(xs[:-1]) + f" {self.p['and']} " + xs[-1]


#: What an undo took back, in words ("Undone: the diel roll."), by the kind of the event undone.
UNDONE = {"roll_diel": "the diel roll", "stand": "the token's move", "new_game": "the new game",
          "answer": "the answer", "correction": "the correction", "resolve_contention": "the fight's result",
          "bout": "the bout", "bout_roll": "the bout", "soul_lost": "the soul lost",
          "soul_wasted": "the soul wasted", "take_initiative": "the initiative taken", "timer_start": "the timer",
          "timer_cancel": "the timer's cancelling", "dice_roll": "the dice roll", "end_game": "the game's end",
          "soul_bind": "the soul's binding", "soul_unbind": "the soul's unbinding", "soul_fix": "the soul's correction",
          "soul_damage": "the soul's damage", "map": "the map change"}


def phrases_for(effect: Mapping[str, Any], state: KipukasState | None = None,
                phrases: Mapping[str, str] = PHRASES) -> list[str]:
    """The sentences to speak for one effect (``[]`` for effects the voice stays quiet about), each
    opening with a capital: a sentence may open with a territory a map leaves unnamed ("Territory 4
    is in contention between Ana and Ben.", not "territory 4 is ...").

    Example::

        >>> from kipukas_board.board.mapfile import load_map
        >>> from kipukas_board.modes.kipukas.rules.state import initial_state
        >>> phrases_for({"type": "released", "territory": 9}, initial_state(load_map("kipuka-8")))
        ['Territory 9 is no longer held.']
    """
    return [line[:1].upper() + line[1:] for line in _sentences(effect, state, phrases)]


def _sentences(effect: Mapping[str, Any], state: KipukasState | None, phrases: Mapping[str, str]) -> list[str]:
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
                key = phase
                if state is not None and f"{phase}_{state.edition}" in p:  # what the phase allows differs
                    key = f"{phase}_{state.edition}"
                out.append(p[key].format(cycle=effect.get("cycle", "")))
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
            if owner is None:  # before a game a token marks a claim nobody owns; otherwise a claim ended
                return [p["claimed_unknown" if effect.get("claim") else "released"].format(territory=terr)]
            key = "claimed_capital" if effect.get("claim") == "capital" else "claimed_base_camp"
            return [p[key].format(owner=n.player(owner), territory=terr)]
        if kind == "released":
            return [p["released"].format(territory=n.territory(effect["territory"]))]
        if kind == "placement":
            key = "placement_capital" if effect.get("claim") == "capital" else "placement_base_camp"
            return [p[key].format(player=n.player(effect.get("placer")))]
        if kind == "setup_complete":
            return [p["setup_complete"].format(player=n.player(effect.get("first_player")))]
        if kind in ("contention_started", "contention_ended", "contention_changed"):
            players = n.join(n.player(s) for s in effect.get("players", []))
            return [p[kind].format(territory=n.territory(effect["territory"]), players=players)]
        if kind == "initiative":
            return [p["initiative"].format(player=n.player(effect.get("seat")))]
        if kind == "imprisoned":
            return [p["imprisoned"].format(stand=n.stand(effect["stand"]), territory=n.territory(effect["territory"]),
                                           owner=n.player(effect.get("owner")),
                                           captor=n.player(effect.get("prisoner_of")))]
        if kind == "liberated":
            return [p["liberated"].format(territory=n.territory(effect["territory"]),
                                          players=n.join(n.player(s) for s in effect.get("seats", [])))]
        if kind == "soul_lost":
            count = int(effect.get("count", 1))
            return [p["soul_lost" if count == 1 else "souls_lost"].format(player=n.player(effect.get("seat")),
                                                                           count=count)]
        if kind in ("soul_keal", "soul_bound"):
            return _soul(effect, n, p)
        if kind == "bout_rolled" and effect.get("titles"):
            att, dfn = (str(t) for t in effect["titles"])
            sums = n.join(p["bout_sums"].format(attack=a, defense=d) for a, d in effect.get("sums", []))
            key = "bout_rolled_final" if effect.get("final_blow") else "bout_rolled"
            said = [p[key].format(attacker=att, defender=dfn, sums=sums,
                                  winner=att if effect.get("winner") == "attacker" else dfn)]
            return said + [str(note)[:1].upper() + str(note)[1:] + "." for note in effect.get("notes", [])]
        if kind == "attack_spent":
            key = "attack_spent_retreat" if effect.get("by") == "retreat" else "attack_spent"
            return [p[key].format(player=n.player(effect.get("seat")), title=str(effect.get("title", "")))]
        if kind == "souls_limit":
            return [p["souls_limit"].format(player=n.player(effect.get("seat")), count=effect["count"],
                                            territory=n.territory(effect["territory"]), limit=effect["limit"])]
        if kind == "soul_wait_ended":
            return [p["soul_wait_ended"].format(player=n.player(effect.get("seat")),
                                                title=str(effect.get("title", "")))]
        if kind == "eliminated":
            return [p["eliminated"].format(player=n.player(effect.get("seat")))]
        if kind == "timer_due":
            timer = effect.get("timer", {})
            label = str(timer.get("label") or timer.get("id") or "")
            if timer.get("seat") is not None:
                return [p["timer_due_player"].format(label=label, player=n.player(timer["seat"]))]
            return [p["timer_due"].format(label=label, player="")]
        if kind == "won":
            return [p["won"].format(winner=n.player(effect.get("winner")),
                                    play_style=n.play_style(effect.get("play_style", "domination")))]
        if kind == "draw":
            return [p["draw"].format(play_style=n.play_style(effect.get("play_style", "domination")))]
        if kind == "dice":
            return _dice(effect, n, p)
        if kind == "undone":
            action = str(effect.get("action", ""))
            return [p["undone"].format(action=UNDONE.get(action, action.replace("_", " ")))]
        if kind == "question":
            return [p["question"].format(text=str(effect.get("question", {}).get("text", "")))]
        if kind == "problem":
            return [] if effect.get("quiet") else [p["problem"].format(text=str(effect.get("text", "")))]
        if kind in ("night_move", "same_day_move"):
            return [p[kind].format(stand=n.stand(effect["stand"]))]
        if kind == "claim_waiting" and effect.get("taker"):  # once, when the fight is won
            return [p["claim_waiting"].format(player=n.player(effect.get("seat")),
                                              territory=n.territory(effect["territory"]))]
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        log.warning("cannot announce effect %r: %s", effect, exc)
    return []


def _soul(effect: Mapping[str, Any], n: _Namer, p: Mapping[str, str]) -> list[str]:
    """Which soul lost or healed what, and why (the cause's words, or the cause itself)."""
    names = {"player": n.player(effect.get("seat")), "title": str(effect.get("title", ""))}
    if effect["type"] == "soul_bound":
        return [p["soul_bound"].format(**names, stand=n.stand(effect["stand"]))] if effect.get("stand") else []
    cause = str(effect.get("cause", ""))
    names["cause"] = p.get(f"cause_{cause}", cause)
    if effect.get("wasted"):
        return [p["soul_wasted"].format(**names)]
    change = int(effect.get("change", 0))
    if change == 0:
        return []
    key = "soul_keal_lost" if change < 0 else "soul_keal_healed"
    out = [p[key if abs(change) == 1 else key + "_many"].format(
        **names, count=abs(change), lost=effect.get("lost"), tolerance=effect.get("tolerance"))]
    if effect.get("downed") and change < 0:
        out.append(p["soul_downed"].format(**names))
    return out


def _dice(effect: Mapping[str, Any], n: _Namer, p: Mapping[str, str]) -> list[str]:
    """Dice the board rolled for players: say what they mean, not only the numbers."""
    kind = effect.get("kind")
    player = n.player(effect.get("seat")) if effect.get("seat") is not None else p["the_board"]
    if kind == "random_territory" and effect.get("territory") is not None:
        return [p["dice_territory"].format(territory=n.territory(effect["territory"]))]
    if kind == "rogue_path" and effect.get("to"):
        return [p["dice_rogue"].format(stand=n.stand(effect["to"]))]
    if kind == "retreat":
        key = "dice_retreat_escaped" if effect.get("escaped") else "dice_retreat_caught"
        return [p[key].format(player=player, roll=sum(effect.get("escapee", [])))]
    if kind == "trap":
        return [p["dice_trap_detected" if effect.get("detected") else "dice_trap_hidden"]]
    rolls = effect.get("rolls") or []
    return [p["dice_roll"].format(player=player, rolls=n.join(str(r) for r in rolls))] if rolls else []
