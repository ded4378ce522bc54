"""Stand sensors: the reed switches under the stands, reported by channel.

:mod:`~kipukas_board.hardware.sensors.port` is the interface and
:class:`~kipukas_board.hardware.sensors.port.SwitchChange`; :mod:`~kipukas_board.hardware.sensors.simulated`
the switches of ``--sim`` and the tests; :mod:`~kipukas_board.hardware.sensors.serial_link` the Pico sensor
board over USB serial, with its pure frame codec in :mod:`~kipukas_board.hardware.sensors.protocol`;
:mod:`~kipukas_board.hardware.sensors.gpio` switches wired straight to the Pi's pins;
:mod:`~kipukas_board.hardware.sensors.channel_health` the chatter and stuck-switch bookkeeping both real
adapters share.
"""
