# Kipukas sensor board: wiring and timing. Edit to match the board, then copy to the Pico.
ROW_PINS = (2, 3, 4, 5, 6, 7, 8, 9)  # open-drain outputs, one per matrix row (GP numbers)
COL_PINS = (10, 11, 12, 13, 14, 15, 16, 17)  # inputs, 10 kOhm pull-up each (and the Pico's own); rows x cols <= 64
SETTLE_US = 20  # wait after pulling a row low before reading the columns (see hardware/README.md, "Column settling")
DEBOUNCE_MS = 20  # a change is reported once the switch has held its new state this long
SCAN_US = 1000  # one full matrix scan every millisecond
SNAPSHOT_MS = 1000  # full snapshot this often (and whenever the host asks)
HEARTBEAT_MS = 100  # heartbeat this often
WATCHDOG_MS = 2000  # reset the Pico if the loop stalls this long (0 = no watchdog)
LED_PIN = "LED"  # the on-board LED, blinking while the firmware scans ("LED" on Pico and Pico W; None = off)
BLINK_MS = 500  # the LED is on this long, then off this long
SAFE_PIN = 22  # tie to GND at reset to get the REPL instead of scanning (None = no safe pin)
