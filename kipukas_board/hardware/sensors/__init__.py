"""Stand sensors: the reed switches under the stands, reported by channel.

:mod:`.port` is the interface and :class:`~.port.SwitchChange`; :mod:`.simulated` the switches of
``--sim`` and the tests; :mod:`.serial_link` the Pico sensor board over USB serial, with its pure frame
codec in :mod:`.protocol`; :mod:`.gpio` switches wired straight to the Pi's pins; :mod:`.channel_health`
the chatter and stuck-switch bookkeeping both real adapters share.
"""
