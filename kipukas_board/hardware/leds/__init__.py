"""The WS2812 strip under the terrain: :mod:`~kipukas_board.hardware.leds.port`,
:mod:`~kipukas_board.hardware.leds.simulated`, :mod:`~kipukas_board.hardware.leds.spi` (every Pi, the Pi 5
included) and :mod:`~kipukas_board.hardware.leds.ws281x` (rpi-ws281x, Pi 4 and older)."""
