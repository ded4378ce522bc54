"""Many tables: boards publish to an MQTT broker, and the organiser sees every table on one page.

- :mod:`~kipukas_board.fleet.publisher`: a board's journal, state and health to the broker; nothing lost.
- :mod:`~kipukas_board.fleet.board`: joins a running board to its fleet when the settings have ``[fleet]``.
- :mod:`~kipukas_board.fleet.view` and :mod:`~kipukas_board.fleet.dashboard`: the organiser's page.
- ``examples/``: a Mosquitto config and an ACL that lets each board write only under its own id.
"""
