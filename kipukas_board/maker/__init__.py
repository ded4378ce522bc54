"""What a maker orders and how it is powered: the bill of materials, the power chain, the magnets.

Pure calculations from a map and its LED layout (no I/O beyond reading the map), so the command
``kipukas-board hardware bom``, ``hardware/bom.csv`` and the tables in ``hardware/`` all come from
the same numbers. :mod:`kipukas_board.hardware.power_chain` holds the fuse and wire rules, :mod:`.bom` the parts,
:mod:`.magnets` the field of the token magnet against the reed's sensitivity.
"""
