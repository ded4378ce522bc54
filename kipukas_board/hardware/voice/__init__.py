"""The speaker: :mod:`.port`, :mod:`.simulated` (silent, remembers what it was asked to say) and
:mod:`.espeak` (espeak-ng)."""
