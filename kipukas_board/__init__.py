"""kipukas-board: the software of a Raspberry Pi smart board for the Kipukas tabletop game.

Layers (docs/explanation/architecture.md): ``board`` (map files and graph), ``game`` (the pure rules core),
``store`` (the SQLite journal), ``hardware`` (ports and their adapters), ``vision`` and ``cards``
(card QR codes and the catalog), ``show`` (lighting and voice), ``web`` (the table's page),
``runtime`` (the one core thread that ties them together) and ``cli``.
"""

__version__ = "0.1.0"
