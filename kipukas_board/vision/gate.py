"""The change gate: is this camera frame a different scene from the last one decoded?

A seat's camera looks at an empty phone stand most of the game. Decoding every such frame costs a
core on a Pi, and finds nothing new, so the camera reader asks this gate first and decodes only
when the scene changed. The gate must cost almost nothing, ignore sensor noise, and never miss a
card coming into view:

* **Cheap.** It looks at one channel (green: the sensor's best), every second pixel of every
  eighth row, and averages blocks of 32x32 frame pixels into a thumbnail (40 blocks on the longer
  side): about 0.09 ms at 1280x720 on a frame fresh from the camera. A frame's rows are what it
  costs: reading any pixel of a row brings most of the row from memory, and every second row (as
  the columns) would take 0.33 ms, most of an empty stand's CPU.
* **Noise-proof.** Each block averages 64 samples (4 rows of 16), so sensor noise of sigma grey
  levels becomes sigma/8 in a block. The threshold comes from the difference itself: the median
  difference is taken off (a camera's exposure drifting moves every block alike) and a block counts
  as changed only when it differs by more than ``k_sigma`` robust deviations (the median absolute
  deviation of all blocks) and at least ``floor`` grey levels. The threshold never goes above
  ``ceiling``: when the whole view changes, every block differs and the deviation says nothing
  about noise.
* **Never late for a card.** A card held up changes dozens of blocks by tens of grey levels, far
  past any threshold, so the first frame that shows it is decoded. A frame is compared with the
  last frame that counted as changed (not with the previous frame), so a slow drift adds up and is
  seen too.

Example::

    >>> import numpy as np
    >>> gate = ChangeGate()
    >>> empty = np.full((720, 1280, 3), 120, np.uint8)
    >>> gate.changed(empty)            # the first frame is always new
    True
    >>> gate.changed(empty.copy())
    False
    >>> card = empty.copy(); card[200:500, 400:700] = 30
    >>> gate.changed(card)
    True
"""

from __future__ import annotations

from typing import Any

from kipukas_board.vision.preprocess import check_frame

#: The gate reads one row in this many of the rows its column step would sample (see the notes
#: above: rows are its cost; a block keeps 64 samples, four times those of a column).
ROW_SKIP = 4


class ChangeGate:
    """Says whether a frame differs from the reference scene (the last frame that was new)."""

    def __init__(self, blocks: int = 40, floor: float = 6.0, ceiling: float = 18.0, k_sigma: float = 6.0,
                 min_blocks: int = 2) -> None:
        self.blocks = blocks
        self.floor = floor
        self.ceiling = ceiling
        self.k_sigma = k_sigma
        self.min_blocks = min_blocks
        self._ref: Any = None
        self._ref_shape: tuple[int, ...] = ()
        self.last_changed_blocks = 0

    def thumbnail(self, frame: Any) -> Any:
        """The frame as a small float32 image of block means (about ``blocks`` on its longer side)."""
        import cv2
        import numpy as np

        frame = check_frame(frame)
        h, w = frame.shape[:2]
        step = max(1, max(h, w) // (self.blocks * 16))  # about 16 samples along a block's side
        block = max(1, -(-max(h, w) // step) // self.blocks)  # a block's side in columns sampled
        tall = max(1, block // ROW_SKIP)  # and in rows sampled
        rstep = step * (block // tall)
        sample = frame[::rstep, ::step, 1] if frame.ndim == 3 else frame[::rstep, ::step]
        sh, sw = sample.shape
        rows, cols = max(1, sh // tall), max(1, sw // block)
        # whole blocks only: OpenCV averages integer-factor blocks on its fast path
        sample = np.ascontiguousarray(sample[:rows * tall, :cols * block])
        return cv2.resize(sample, (cols, rows), interpolation=cv2.INTER_AREA).astype(np.float32)

    def changed(self, frame: Any) -> bool:
        """True when ``frame`` shows a different scene; it then becomes the reference."""
        import numpy as np

        thumb = self.thumbnail(frame)
        ref = self._ref
        if ref is None or self._ref_shape != frame.shape:  # another size: the camera's mode changed
            self._ref, self._ref_shape = thumb, frame.shape
            self.last_changed_blocks = thumb.size
            return True
        diff = thumb - ref
        diff -= np.median(diff)
        dev = np.abs(diff)
        sigma = 1.4826 * float(np.median(dev))
        threshold = min(self.ceiling, max(self.floor, self.k_sigma * sigma))
        n = int(np.count_nonzero(dev > threshold))
        self.last_changed_blocks = n
        if n >= self.min_blocks:
            self._ref = thumb
            return True
        return False

    def reset(self) -> None:
        """Forget the reference: the next frame counts as new."""
        self._ref = None
