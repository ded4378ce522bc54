"""Hardware ports and adapters.

Each kind of hardware is a small interface (a *port*) with a real adapter and a simulated one, the way
gpiozero has pin factories and a MockFactory: the same code runs on the Pi and in tests.

========== ============================ ===========================================
port       module                       adapters
========== ============================ ===========================================
sensors    :mod:`.sensors`              ``sim``; real ones registered in :mod:`.registry`
leds       :mod:`.leds`                 ``sim``; real ones registered in :mod:`.registry`
cameras    :mod:`.cameras`              ``sim``; real ones registered in :mod:`.registry`
voice      :mod:`.voice`                ``silent``; real ones registered in :mod:`.registry`
========== ============================ ===========================================
"""
