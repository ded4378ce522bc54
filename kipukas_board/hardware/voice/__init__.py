"""The speaker: :mod:`~kipukas_board.hardware.voice.port`, :mod:`~kipukas_board.hardware.voice.simulated`
(silent, remembers what it was asked to say) and :mod:`~kipukas_board.hardware.voice.espeak` (espeak-ng)."""
