# Kipukas sensor board: entry point on the Pico (copied to the board with config.py and kb_*.py).
#
# USB CDC is the REPL's stdin/stdout: Ctrl-C handling is turned off so a 0x03 byte in a host command
# does not stop the program, and frames are written as raw bytes to sys.stdout.buffer.
import select
import sys

import config
import micropython
from kb_firmware import SensorFirmware
from kb_led import open_led
from kb_matrix import Matrix
from machine import WDT, Pin


class UsbPort:
    def __init__(self):
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)

    def read(self):
        data = bytearray()
        while len(data) < 64 and self.poll.poll(0):
            data.extend(self.inp.read(1))
        return data

    def write(self, frame):
        self.out.write(frame)


def main():
    if config.SAFE_PIN is not None and Pin(config.SAFE_PIN, Pin.IN, Pin.PULL_UP).value() == 0:
        print("kipukas sensors: SAFE_PIN is grounded, staying in the REPL")
        return
    micropython.kbd_intr(-1)
    matrix = Matrix(config.ROW_PINS, config.COL_PINS, settle_us=config.SETTLE_US)
    try:  # the LED only helps a human: sensing must start without it (getattr: an older config.py)
        led = open_led(getattr(config, "LED_PIN", "LED"))
    except Exception:
        led = None
    fw = SensorFirmware(matrix, UsbPort(), debounce_ms=config.DEBOUNCE_MS, scan_us=config.SCAN_US,
                        snapshot_ms=config.SNAPSHOT_MS, heartbeat_ms=config.HEARTBEAT_MS,
                        led=led, blink_ms=getattr(config, "BLINK_MS", 500))
    wdt = WDT(timeout=config.WATCHDOG_MS) if config.WATCHDOG_MS else None
    fw.run(tick=wdt.feed if wdt else None)


main()
