# Kipukas sensor board: the reed-switch matrix.
#
# Rows are outputs, held high; columns are inputs with pull-ups. To read row r the scanner drives
# r low: a closed switch in that row pulls its column low through its diode (anode on the column,
# cathode on the row side), so any number of switches may be closed without ghosting.
# Channel number = row * cols + col (the host names it "r<row>c<col>").
#
#   m = Matrix((2, 3, 4, 5, 6, 7, 8, 9), (10, 11, 12, 13, 14, 15, 16, 17))
#   raw = bytearray(m.count); m.scan(raw)
from kb_time import sleep_us
from machine import Pin


class Matrix:
    def __init__(self, row_pins, col_pins, settle_us=5):
        if len(row_pins) * len(col_pins) > 64:
            raise ValueError("at most 64 switches (rows x cols)")
        self.rows = [Pin(p, Pin.OUT, value=1) for p in row_pins]
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
