"""The table every game is played on: its state (map, switches, cards shown, problems, journal
number, the game played), the events it shares between games and how its problems clear.

Below the games and above the map: a game mode (:mod:`kipukas_board.modes`) builds on it, and the
board's parts (core loop, lights, voice, page, cameras) read it without knowing any game's inside.
"""
