"""Every sentence the board speaks, in one table: edit here to change the wording (or translate).

Each entry is a :meth:`str.format` template; the fields each one may use are listed beside it. Names
are already made speakable (a player's name or "Seat 2", a territory's name and number, stand ids
spelled out as "M 3 A") by :mod:`kipukas_board.show.announcements`.
"""

from __future__ import annotations

PHRASES: dict[str, str] = {
    # diel roll: {cycle} {roll}
    "diel_roll": "The diel die shows {roll}.",
    "day": "Day {cycle}. Resolve contention, play a card, move souls and claim territory.",
    "night": "Night {cycle}. Draw, craft, sabotage or take the initiative. Souls may not move.",
    "storm": "Storm, cycle {cycle}! Every soul outside a capital or base camp loses one keal means. "
             "Initiative carries over.",
    # storm: {stands} {count}
    "storm_exposed": "Exposed to the storm: {stands}.",
    "storm_none_exposed": "No souls are caught outside.",
    "storm_wasted": "Wasted in the storm: {stands}.",
    # claimed: {owner} {territory}
    "claimed_base_camp": "{owner} claims {territory} with a base camp.",
    "claimed_capital": "{owner} places a capital on {territory}.",
    "claimed_unknown": "{territory} is claimed.",
    # contention: {territory} {players}
    "contention_started": "{territory} is in contention between {players}.",
    "contention_ended": "Contention over {territory} is resolved.",
    # imprisoned: {stand} {territory} {owner} {captor}
    "imprisoned": "{owner}'s soul on {stand} in {territory} is taken prisoner by {captor}.",
    # timers: {label} {player}
    "timer_due": "Timer due: {label}.",
    "timer_due_player": "{player}, your timer is due: {label}.",
    # won: {winner} {play_style}
    "won": "{winner} wins by {play_style}! Well played.",
    # questions and problems: {text}
    "question": "The board has a question on the page: {text}",
    "problem": "Please check the board: {text}",
    # night_move: {stand}
    "night_move": "A soul moved at night on {stand}. Souls may not move at night.",
    # joining lists: "A, B and C"
    "and": "and",
    "seat": "Seat {seat}",
    "territory": "{name}, territory {number}",
    "territory_unnamed": "territory {number}",
    "stand": "stand {spelled}",
}
