# Kipukas sensor board: the clock. MicroPython's time has ticks_ms/ticks_diff/sleep_us; under
# CPython the tests' machine shim supplies the same functions (wrapping exactly as MicroPython's do),
# so the scanner and debouncer run unchanged on both.
import time

try:
    ticks_ms = time.ticks_ms
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
    ticks_add = time.ticks_add
    sleep_us = time.sleep_us
except AttributeError:  # CPython (tests, soak): see firmware/machine_shim/machine.py
    from machine import sleep_us, ticks_add, ticks_diff, ticks_ms, ticks_us  # noqa: F401
