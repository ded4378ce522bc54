# Kipukas sensor board: the on-board LED as a heartbeat, so a glance at the Pico says it is scanning.
#
# The LED toggles every ``period_ms`` while the main loop scans (on half a second, off half a second
# by default). Steady on or steady off means the loop has stopped (the watchdog then resets the Pico);
# dark from power-on means the firmware never started (see README.md, "Installing on a Pico").
#
# On a Pico the LED is on GP25; on a Pico W it hangs off the wireless chip, and GP25 belongs to that
# chip's bus and must not be driven. MicroPython names the LED "LED" on both (on the plain Pico
# since 1.20); an older plain-Pico build lacks the name and gets GP25 instead.
#
#   beat = Heartbeat(open_led("LED"), 500)
#   beat.tick(ticks_ms())               # once per scan
from kb_time import ticks_add, ticks_diff
from machine import Pin

PICO_LED_GPIO = 25


def open_led(name="LED"):
    # The LED as an output pin, off; None when ``name`` is None (no LED wanted).
    if name is None:
        return None
    try:
        return Pin(name, Pin.OUT, value=0)
    except (ValueError, TypeError):  # "invalid pin": a MicroPython without the "LED" name
        if name != "LED":
            raise
    return Pin(PICO_LED_GPIO, Pin.OUT, value=0)  # only a plain Pico lacks the name (a Pico W has it)


class Heartbeat:
    def __init__(self, led, period_ms=500):
        self.led = led
        self.period_ms = period_ms
        self.on = 0
        self.next_ms = None  # set by the first tick, so no tick count is ever compared with 0

    def tick(self, now_ms):
        # Toggle the LED if its half-period is up; cheap enough to call on every scan.
        if self.led is None:
            return
        if self.next_ms is not None and ticks_diff(now_ms, self.next_ms) < 0:
            return
        self.on ^= 1
        self.led.value(self.on)
        self.next_ms = ticks_add(now_ms, self.period_ms)
