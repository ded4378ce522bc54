"""Hardware ports and adapters, one subpackage per device kind.

Each kind of hardware is a small interface (a *port*) with real adapters and a simulated one, the way
gpiozero has pin factories and a MockFactory: the same code runs on the Pi and in tests. Every
subpackage holds the same three kinds of module, so a newcomer can tell an adapter by its folder:
``port`` (the interface), ``simulated`` (the adapter for ``--sim`` and tests), and one module per
real adapter.

=========== ===================================== ==================================================
port        simulated adapter                     real adapters (settings name: module)
=========== ===================================== ==================================================
sensors     :mod:`.sensors.simulated` (``sim``)   ``serial``: :mod:`.sensors.serial_link` (the Pico
                                                  sensor board; its codec is :mod:`.sensors.protocol`),
                                                  ``gpio``: :mod:`.sensors.gpio`
leds        :mod:`.leds.simulated` (``sim``)      ``spi``: :mod:`.leds.spi`, ``ws281x``: :mod:`.leds.ws281x`
cameras     :mod:`.cameras.simulated` (``sim``)   ``files``: :mod:`.cameras.files`, ``opencv``:
                                                  :mod:`.cameras.opencv`, ``picamera2``: :mod:`.cameras.pi_camera`
voice       :mod:`.voice.simulated` (``silent``)  ``espeak``: :mod:`.voice.espeak`
=========== ===================================== ==================================================

:mod:`.registry` maps the settings file's adapter names to these classes and builds them. Tools that
exist to test or measure the hardware (the sensor soak, the firmware simulator) live in
:mod:`kipukas_board.bench`, not here.
"""
