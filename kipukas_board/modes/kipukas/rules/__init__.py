"""The rules core: pure functions from (state, event) to (state, effects). No I/O, no clock."""
