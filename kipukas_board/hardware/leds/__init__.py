"""The WS2812 strip under the terrain: :mod:`.port`, :mod:`.simulated`, :mod:`.spi` (every Pi, the
Pi 5 included) and :mod:`.ws281x` (rpi-ws281x, Pi 4 and older)."""
