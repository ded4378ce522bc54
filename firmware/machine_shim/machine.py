"""A CPython stand-in for MicroPython's ``machine`` module, so the firmware's own files run in tests.

Only what the firmware uses: ``Pin`` (IN/OUT/OPEN_DRAIN, PULL_UP, ``value()``, GPIO numbers and
the name ``"LED"``), ``WDT`` (no-op) and, because
CPython's ``time`` lacks them, MicroPython's ``ticks_ms/ticks_us/ticks_diff/ticks_add/sleep_us`` with
the same wrap-around (``TICKS_PERIOD``). The ticks use ``time.monotonic()`` so a test that runs the
firmware and the host in one process measures both ends with one clock.

Pins read what an attached *board* says: ``attach(board)`` installs an object with
``read(pin_id, driven)`` where ``driven`` maps the ids of output pins to the level they drive.
An open-drain pin is in ``driven`` (as 0) only while it pulls low; released, it drives nothing.
With nothing attached, inputs with a pull-up read 1.

Example::

    >>> import machine
    >>> class OneSwitch:                       # closed switch between output 2 and input 10
    ...     def read(self, pin, driven):
    ...         return 0 if pin == 10 and driven.get(2) == 0 else 1
    >>> machine.attach(OneSwitch())
    >>> row, col = machine.Pin(2, machine.Pin.OUT, value=1), machine.Pin(10, machine.Pin.IN, machine.Pin.PULL_UP)
    >>> col.value(); row.value(0); col.value()
    1
    0
"""

import time

TICKS_PERIOD = 1 << 30
_T0 = time.monotonic()

_board = None
_driven = {}
#: Pin names (besides GPIO numbers) this MicroPython knows: "LED" on a Pico since 1.20 and on every
#: Pico W build. A test empties it to play an older plain-Pico MicroPython.
NAMED_PINS = {"LED"}


def attach(board):
    """Wire the pins to ``board`` (an object with ``read(pin_id, driven) -> 0/1``); None detaches."""
    global _board
    _board = board
    _driven.clear()


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=IN, pull=None, *, value=None):
        if isinstance(id, str) and id not in NAMED_PINS:
            raise ValueError("invalid pin")  # what MicroPython says for a name it does not know
        self.id = id
        self.init(mode, pull, value=value)

    def init(self, mode=IN, pull=None, *, value=None):
        self.mode = mode
        self.pull = pull
        _driven.pop(self.id, None)
        if mode == Pin.OUT:
            _driven[self.id] = 1 if value is None else (1 if value else 0)
        elif mode == Pin.OPEN_DRAIN and value is not None and not value:
            _driven[self.id] = 0

    def value(self, v=None):
        if v is None:
            if self.mode == Pin.OUT:
                return _driven.get(self.id, 0)
            if self.mode == Pin.OPEN_DRAIN and _driven.get(self.id) == 0:
                return 0
            if _board is not None:
                return 1 if _board.read(self.id, _driven) else 0
            return 0 if self.pull == Pin.PULL_DOWN else 1
        if self.mode == Pin.OUT:
            _driven[self.id] = 1 if v else 0
        elif self.mode == Pin.OPEN_DRAIN:
            if v:
                _driven.pop(self.id, None)  # released: high-impedance
            else:
                _driven[self.id] = 0
        return None

    def high(self):
        self.value(1)

    def low(self):
        self.value(0)

    def __call__(self, v=None):
        return self.value(v)


def driven(pin_id):
    """CPython only: the level pin ``pin_id`` drives now (None if it drives nothing: an input or a
    released open-drain pin)."""
    return _driven.get(pin_id)


class WDT:
    """MicroPython's watchdog; here feeding it does nothing."""

    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout

    def feed(self):
        pass


# -- MicroPython's time.ticks_* (CPython's time module lacks them) --------------------------------
def ticks_ms():
    return int((time.monotonic() - _T0) * 1000) % TICKS_PERIOD


def ticks_us():
    return int((time.monotonic() - _T0) * 1000000) % TICKS_PERIOD


def ticks_add(ticks, delta):
    return (ticks + delta) % TICKS_PERIOD


def ticks_diff(a, b):
    return ((a - b + TICKS_PERIOD // 2) % TICKS_PERIOD) - TICKS_PERIOD // 2


def sleep_us(us):
    if us > 0:
        time.sleep(us / 1000000)


def monotonic_of_ticks_ms(ms):
    """CPython only: the ``time.monotonic()`` value of a ``ticks_ms`` reading (before it wraps)."""
    return _T0 + ms / 1000
