"""Reading the camouflaged QR codes on the backs of cards.

:mod:`.decoders` wraps the QR libraries, :mod:`.preprocess` prepares frames for them, :mod:`.pipeline`
tries them in order within a budget, and :mod:`.desk` turns each seat camera's frames into card events
(payloads checked by :mod:`kipukas_board.cards`).
"""
