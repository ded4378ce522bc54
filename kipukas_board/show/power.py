"""The output stage between the renderer and the strip: gamma, global brightness and the power cap.

**Current model.** A WS2812B draws about ``ma_per_channel`` (20 mA) per colour channel at full
duty, linear in the PWM value, plus ``idle_ma`` (about 1 mA) for its controller even when dark. So a
pixel ``(r, g, b)`` draws ``idle + 20 * (r + g + b) / 255`` mA: 61 mA for full white, and 300 white
pixels would want 18.3 A. The estimate is taken on the values actually sent (after gamma and
brightness), which are what drive the LEDs.

**Power cap.** When a frame's estimate exceeds ``budget_ma``, every channel is scaled down by the
same factor (rounding down), so hues stay and the estimate ends at or under the budget. The budget
is the part of the 5 V supply given to the LEDs (the Pi and the speaker need the rest).

Example::

    >>> from kipukas_board.show.power import OutputStage
    >>> stage = OutputStage(gamma=1.0, brightness=1.0, budget_ma=1000, ma_per_channel=20, idle_ma=1)
    >>> out = stage.apply([(255, 255, 255)] * 30)     # would be 1830 mA
    >>> stage.estimate_ma(out) <= 1000
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kipukas_board.show.colors import RGB


@dataclass
class OutputStage:
    gamma: float = 2.2
    brightness: float = 1.0
    budget_ma: float = 2500.0
    ma_per_channel: float = 20.0
    idle_ma: float = 1.0
    #: What the last :meth:`apply` did (for health and the page).
    last_estimate_ma: float = 0.0
    last_scale: float = 1.0
    _table: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.brightness <= 1.0:
            raise ValueError(f"brightness {self.brightness!r} must be from 0 to 1")
        if not 0.1 <= self.gamma <= 5.0:
            raise ValueError(f"gamma {self.gamma!r} must be from 0.1 to 5")
        if self.budget_ma <= 0:
            raise ValueError(f"power budget {self.budget_ma!r} mA must be more than 0")
        g, b = self.gamma, self.brightness
        self._table = [int(round(255 * (v / 255) ** g * b)) for v in range(256)]

    def estimate_ma(self, pixels: Sequence[Sequence[int]]) -> float:
        """Estimated current of ``pixels`` as sent to the strip (see the module's current model)."""
        total = 0
        for p in pixels:
            total += p[0] + p[1] + p[2]
        return len(pixels) * self.idle_ma + total * self.ma_per_channel / 255

    def apply(self, pixels: Sequence[Sequence[int]]) -> list[RGB]:
        """Gamma and brightness, then the power cap: the values to put on the wire."""
        t = self._table
        out = [(t[p[0]], t[p[1]], t[p[2]]) for p in pixels]
        est = self.estimate_ma(out)
        idle = len(out) * self.idle_ma
        factor = 1.0
        if est > self.budget_ma and est > idle:
            src = out
            factor = max(0.0, (self.budget_ma - idle) / (est - idle))
            while True:  # float rounding can leave a hair over the budget: shave and retry
                out = [(int(r * factor), int(g * factor), int(b * factor)) for r, g, b in src]
                est = self.estimate_ma(out)
                if est <= self.budget_ma or factor == 0.0:
                    break
                factor = factor * 0.999 if factor > 1e-6 else 0.0
        self.last_estimate_ma = est
        self.last_scale = factor
        return out
