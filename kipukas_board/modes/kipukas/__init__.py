"""Kipukas, the board's own game, as a game mode (the default one).

* :mod:`.rules`: the pure rules core (state, events, movement, contention, souls, bouts, the diel);
* :mod:`.mode`: the adapter the board talks to (:class:`~.mode.KipukasMode`).

This file imports nothing: the rules core is read by the table's parts (the core loop, the page's
pre-checks) without loading the mode adapter, which itself imports the modes' seam.
"""
