"""Every sentence the board speaks, in one table: edit here to change the wording (or translate).

Each entry is a :meth:`str.format` template; the fields each one may use are listed beside it. Names
are already made speakable (a player's name or "Seat 2", a territory's name and number, stand ids
spelled out as "M 3 A") by :mod:`kipukas_board.modes.kipukas.phrases`.
"""

from __future__ import annotations

PHRASES: dict[str, str] = {
    # diel roll: {cycle} {roll}
    "diel_roll": "The diel die shows {roll}.",
    "day": "Day {cycle}. Resolve contention, play a card, move souls and claim territory.",
    "night": "Night {cycle}. Draw, craft, sabotage or take the initiative. Souls may not move.",
    "night_2023": "Night {cycle}. Discard, draw, craft, then sabotage or lay a trap. Souls may not move.",
    "storm": "Storm, cycle {cycle}! Every soul outside a capital or base camp loses one KEAL means. "
             "Initiative carries over.",
    # storm: {stands} {count}
    "storm_exposed": "Exposed to the storm: {stands}.",
    "storm_none_exposed": "No souls are caught outside.",
    "storm_wasted": "Wasted in the storm: {stands}.",
    # claimed: {owner} {territory}
    "claimed_base_camp": "{owner} claims {territory} with a base camp.",
    "claimed_capital": "{owner} places a capital on {territory}.",
    "claimed_unknown": "{territory} is claimed.",
    # released (a claim taken back or lost): {territory}
    "released": "{territory} is no longer held.",
    # setup: {player} {claim}
    "placement_capital": "{player}, place your capital.",
    "placement_base_camp": "{player}, place a base camp.",
    "setup_complete": "Setup is complete. {player} plays first and holds the initiative.",
    # contention: {territory} {players}
    "contention_started": "{territory} is in contention between {players}.",
    "contention_ended": "Contention over {territory} is resolved.",
    "contention_changed": "{territory} is now contended between {players}.",
    # initiative: {player}
    "initiative": "{player} takes the initiative.",
    # imprisoned: {stand} {territory} {owner} {captor}
    "imprisoned": "{owner}'s soul on {stand} in {territory} is taken prisoner by {captor}.",
    # liberated: {territory} {players}
    "liberated": "The prisoners of {territory} are free: {players}.",
    # souls: {player} {count}
    "soul_lost": "{player} loses {count} soul.",
    "souls_lost": "{player} loses {count} souls.",
    "eliminated": "{player} has lost too many souls and is out of the game.",
    # souls the board knows: {player} {title} {stand} {lost} {tolerance} {cause}
    "soul_bound": "{player}'s {title} is on {stand}.",
    "soul_wait_ended": "{player}'s {title} was shown, but no soul token moved before the cycle ended; "
                       "bind it on the page if it is on the map.",
    "soul_keal_lost": "{player}'s {title} loses one KEAL means {cause}, {lost} of {tolerance} lost.",
    "soul_keal_lost_many": "{player}'s {title} loses {count} KEAL means {cause}, {lost} of {tolerance} lost.",
    "soul_keal_healed": "{player}'s {title} heals one KEAL means {cause}, {lost} of {tolerance} lost.",
    "soul_keal_healed_many": "{player}'s {title} heals {count} KEAL means {cause}, {lost} of {tolerance} lost.",
    "soul_downed": "{player}'s {title} is downed.",
    # the rule books' limits on attacks and souls: {player} {title}; {count} {territory} {limit}
    # a bout the board settled: {attacker} {defender} {winner} {sums}; then each rule note as said
    "bout_rolled": "{attacker} against {defender}, {sums}: {winner} wins.",
    "bout_rolled_final": "Final Blow, {attacker} against {defender}, {sums}: {winner} wins.",
    "bout_sums": "{attack} to {defense}",
    "attack_spent": "{player}'s {title} missed its blow: it cannot attack again this diel cycle.",
    "attack_spent_retreat": "{player}'s {title} failed to retreat: it cannot attack this diel cycle.",
    "souls_limit": "{player} has {count} souls in {territory}; a territory hosts at most {limit} souls per player.",
    "soul_wasted": "{player}'s {title} is wasted {cause}.",
    # why: {cause} is one of these
    "cause_storm": "in the storm",
    "cause_volcanic": "to the volcano",
    "cause_plains": "resting on the plains",
    "cause_bout": "in the bout",
    "cause_final_blow": "by the final blow",
    "cause_fixed": "by a correction",
    # timers: {label} {player}
    "timer_due": "Timer due: {label}.",
    "timer_due_player": "{player}, your timer is due: {label}.",
    # won: {winner} {play_style}
    "won": "{winner} wins this game of {play_style}! Well played.",
    # draw: {play_style}
    "draw": "This game of {play_style} ends without a winner.",
    # dice for players: {player} {territory} {stand} {roll} {rolls}
    "dice_territory": "The random territory is {territory}.",
    "dice_rogue": "The rogue moves to {stand}.",
    "dice_retreat_escaped": "{player} retreats: {roll} beats the D20.",
    "dice_retreat_caught": "{player} fails to retreat: {roll} does not beat the D20.",
    "dice_trap_detected": "The trap is detected.",
    "dice_trap_hidden": "The trap stays hidden.",
    "dice_roll": "{player} rolls {rolls}.",
    # undo: {action}
    "undone": "Undone: {action}.",
    # questions and problems: {text}
    "question": "The board has a question on the page: {text}",
    "problem": "Please check the board: {text}",
    # night_move, same_day_move: {stand}
    "night_move": "A soul moved at night on {stand}. Souls may not move at night.",
    "same_day_move": "A soul moved to {stand} on the day it was played. Check a card allows it.",
    # a fight's winner may take the base camp: {player} {territory}
    "claim_waiting": "{player} may take {territory}: move a soul onto its base camp stand.",
    # joining lists: "A, B and C"
    "and": "and",
    "seat": "Seat {seat}",
    "someone": "Someone",
    "the_board": "The board",
    "stand": "stand {spelled}",
    # play styles, named as the rule books title them (and the new-game form lists them)
    "style_domination": "Domination",
    "style_mass_contention": "Mass Contention",
    "style_king_of_the_hill": "King of the Hill",
    "style_coastal_war": "Coastal War",
    "style_ends_justify_means": "The Ends Must Justify the Means",
    "style_cost_too_great": "The Cost Is Too Great",
    "style_highest_body_count": "Highest Body Count",
}
