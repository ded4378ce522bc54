"""Tools that test or measure the board rather than run it.

- :mod:`.firmware_sim`: the sensor board's real firmware under CPython behind a pseudo-terminal;
- :mod:`.sensor_soak`: the stand-sensing soak (firmware ↔ faulty link ↔ serial adapter ↔ core);
- :mod:`.qr`: the QR decoders and the pipeline measured on labelled captures;
- :mod:`.camera`: what a seat's camera costs while still images play before it as scenes;
- :mod:`.sse`, :mod:`.streams`, :mod:`.flood`: the page's event streams and the API under load;
- :mod:`.fleet`: simulated boards publishing through a real MQTT broker;
- :mod:`.lighting`: the LED renderer, output stage and SPI encoding per frame;
- :mod:`.replay`: rebuilding the state from a generated journal.

The commands (``kipukas-board bench-*``, ``leds bench``, ``fleet bench``) only parse their
arguments and print what these return.

They sit above the board they measure (the soak runs a whole :class:`~kipukas_board.app.BoardApp`),
and nothing the board runs imports them.
"""
