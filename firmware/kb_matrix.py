# Kipukas sensor board: the reed-switch matrix.
#
# Rows are open-drain outputs: the row being read is pulled low, every other row is released
# (high-impedance), never driven high. Columns are inputs held high by pull-ups (external 10 kOhm
# resistors, the Pico's own 50-80 kOhm ones as well). A closed switch in the selected row pulls its
# column low through its diode (anode on the column, cathode on the row side), so any number of
# switches may be closed without ghosting.
#
# Why released and not driven high: with a diode missing (or shorted), a driven-high idle row would
# fight the selected row through two closed reeds, and the column would read whatever the fight
# gives, so a missing diode can pass the rectangle test. Released, the missing diode shows itself as
# a ghost (the fourth corner of a rectangle of tokens reads closed), which the bring-up test catches.
# Channel number = row * cols + col (the host names it "r<row>c<col>").
#
#   m = Matrix((2, 3, 4, 5, 6, 7, 8, 9), (10, 11, 12, 13, 14, 15, 16, 17))
#   raw = bytearray(m.count); m.scan(raw)
from kb_time import sleep_us
from machine import Pin


class Matrix:
    def __init__(self, row_pins, col_pins, settle_us=20):
        if len(row_pins) * len(col_pins) > 64:
            raise ValueError("at most 64 switches (rows x cols)")
        # OPEN_DRAIN: value(0) pulls the pin low, value(1) releases it (MicroPython's rp2 port
        # switches the pin between output-low and input).
        self.rows = [Pin(p, Pin.OPEN_DRAIN, value=1) for p in row_pins]
        self.cols = [Pin(p, Pin.IN, Pin.PULL_UP) for p in col_pins]
        self.nrows = len(self.rows)
        self.ncols = len(self.cols)
        self.count = self.nrows * self.ncols
        self.settle_us = settle_us

    def scan(self, out):
        # Fill ``out`` (bytearray of count) with 1 for each closed switch.
        i = 0
        for row in self.rows:
            row.value(0)
            if self.settle_us:
                sleep_us(self.settle_us)
            for col in self.cols:
                out[i] = 0 if col.value() else 1
                i += 1
            row.value(1)
        return out
