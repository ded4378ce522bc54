# Kipukas sensor board: per-switch debouncing.
#
# A switch's new state is reported once the raw reading has held that state for ``debounce_ms``
# (measured from the last raw edge seen by the scanner). Bounce, a weak magnet's flicker or a token
# slid through a square shorter than that is never reported. Pure logic: the caller passes the time.
#
#   d = Debouncer(64, 20)
#   d.prime(raw)                 # first scan: the state at power-on, not changes
#   for ch, closed in d.update(raw, now_ms): ...
from kb_time import ticks_diff


class Debouncer:
    def __init__(self, count, debounce_ms):
        self.count = count
        self.debounce_ms = debounce_ms
        self.stable = bytearray(count)
        self.raw = bytearray(count)
        self.since = [0] * count
        self.pending = 0  # how many channels have raw != stable

    def prime(self, raw, now_ms=0):
        for i in range(self.count):
            self.stable[i] = raw[i]
            self.raw[i] = raw[i]
            self.since[i] = now_ms
        self.pending = 0

    def update(self, raw, now_ms):
        # Returns [(channel, state), ...] for switches that became stable, in channel order.
        changes = []
        stable = self.stable
        last = self.raw
        if self.pending == 0 and raw == last:
            return changes
        pending = 0
        for i in range(self.count):
            r = raw[i]
            if r != last[i]:
                last[i] = r
                self.since[i] = now_ms
            if r != stable[i]:
                if ticks_diff(now_ms, self.since[i]) >= self.debounce_ms:
                    stable[i] = r
                    changes.append((i, r))
                else:
                    pending += 1
        self.pending = pending
        return changes
