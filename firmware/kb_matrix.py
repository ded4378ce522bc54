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
# The self-test (PROTOCOL.md, SELFTEST) turns the matrix round for a moment: rows become inputs
# with pull-ups, columns open-drain, and each column is pulled low in turn. A good diode blocks
# current from a row into a column, so a row that reads low there conducts backwards: a missing,
# shorted or reversed diode under a closed reed, or a row wire touching a column wire. Pulling one
# row (one column) low with the others pulled up finds rows (columns) shorted to each other.
#
#   m = Matrix((2, 3, 4, 5, 6, 7, 8, 9), (10, 11, 12, 13, 14, 15, 16, 17))
#   raw = bytearray(m.count); m.scan(raw)
#   closed, reverse, rows, cols = m.self_test()
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

    def _normal(self):
        # None: no pull-up on the rows again (the self-test turned theirs on), as at start
        for row in self.rows:
            row.init(Pin.OPEN_DRAIN, None, value=1)
        for col in self.cols:
            col.init(Pin.IN, Pin.PULL_UP)

    def _settle(self):
        if self.settle_us:
            sleep_us(self.settle_us)

    def self_test(self):
        # Returns four bytearrays of 0/1: closed (a forward scan), reverse (per position: its row
        # read low while only its column was pulled low), rows and cols (each: read low while
        # another row, or column, alone was pulled low). Leaves the pins as scanning needs them.
        closed = self.scan(bytearray(self.count))
        reverse = bytearray(self.count)
        rows_short = bytearray(self.nrows)
        cols_short = bytearray(self.ncols)
        try:
            for i in range(self.nrows):  # rows against rows, columns released
                for row in self.rows:
                    row.init(Pin.IN, Pin.PULL_UP)
                self.rows[i].init(Pin.OPEN_DRAIN, value=0)
                self._settle()
                for j in range(self.nrows):
                    if j != i and not self.rows[j].value():
                        rows_short[j] = 1
            for row in self.rows:
                row.init(Pin.IN, Pin.PULL_UP)
            for c in range(self.ncols):  # columns pulled low one at a time: rows must stay high
                for col in self.cols:
                    col.init(Pin.IN, Pin.PULL_UP)
                self.cols[c].init(Pin.OPEN_DRAIN, value=0)
                self._settle()
                for r in range(self.nrows):
                    if not self.rows[r].value():
                        reverse[r * self.ncols + c] = 1
                for k in range(self.ncols):
                    if k != c and not self.cols[k].value():
                        cols_short[k] = 1
        finally:
            self._normal()
        return closed, reverse, rows_short, cols_short
