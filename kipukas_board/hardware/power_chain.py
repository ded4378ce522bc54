"""The LED power chain: supply, inlet, fuse, then every conductor and connector the fuse protects.

Three rules make the chain safe, and :func:`check_chain` names each one that a build breaks:

- the LED budget (the renderer's cap, ``[leds] power_budget_ma``) is at most 80 % of the fuse, so
  the fuse never runs near its rating in play;
- the fuse is at most the rating of everything it protects, so a short anywhere behind it blows
  the fuse before a wire or a contact overheats (a blade fuse holds 110 % of its rating
  indefinitely, so "at most" is taken against the fuse's hold current);
- the supply gives at least the budget.

The board's settings apply the first rule at start (``[leds] power_budget_ma`` against ``[leds]
fuse_a``), so a budget the fuse cannot carry is refused before the strip lights.

The inlet the supply plugs into sits before the fuse, and so do its leads to the fuse and to the
GND block: the fuse cannot protect them, so they must carry what the supply delivers before its own
overload protection cuts out (:data:`SUPPLY_TRIP_FACTOR` times its rating). That is 9 A for the
BOM's 6 A brick, more than a 2.1 mm barrel jack is commonly rated for, hence its XT60 inlet.

The strip's own 5 V and GND copper between its cut pads is behind the fuse too: a short on a piece
draws through it what the fuse lets through. :data:`STRIP_COPPER_A` is its planning rating, and
:func:`fuse_problem` refuses a fuse whose hold current the thinnest conductor the build wires behind
it (:data:`BEHIND_THE_FUSE`: the 18 AWG feeds and jumpers, the strip's copper) cannot carry.

Wire ratings (:data:`AWG_RATING_A`) are conservative figures for PVC-insulated stranded copper
bundled in a closed box under PLA (chassis-wiring tables give about twice these in free air):
PLA softens near 60 °C, so a wire must stay cool, not merely survive.

Example::

    >>> wire_for(0.3, fuse_a=5.0)            # a jumper carrying 0.3 A behind a 5 A fuse
    18
    >>> check_chain(budget_ma=4000, fuse_a=5.0, psu_a=6.0, protected=[("feed", 7.0)])
    []
    >>> check_chain(budget_ma=4500, fuse_a=5.0, psu_a=6.0, protected=[("feed", 7.0)])[0]
    'LED budget 4500 mA is more than 80 % of the 5 A fuse (4000 mA)'
    >>> fuse_problem(5.0) is None, max_fuse_a()
    (True, 5.45)
"""

from __future__ import annotations

from collections.abc import Iterable

#: The LED fuse the project's BOM fits (``[leds] fuse_a`` in the settings when another is fitted).
DEFAULT_FUSE_A = 5.0
#: The budget may use at most this share of the fuse's rating.
BUDGET_SHARE_OF_FUSE = 0.8
#: A blade fuse (ATO) carries this multiple of its rating indefinitely without blowing.
FUSE_HOLD_FACTOR = 1.1
#: A closed 5 V brick's overload protection typically trips between 105 % and 150 % of its rating:
#: the inlet before the fuse must carry the top of that range.
SUPPLY_TRIP_FACTOR = 1.5
#: Continuous current per American wire gauge, in a closed box under PLA (see the module docstring).
AWG_RATING_A: dict[int, float] = {16: 10.0, 18: 7.0, 20: 5.0, 22: 3.0, 24: 2.0, 26: 1.3}
#: The gauge the BOM wires behind the fuse: the supply side, every feed pair and every jumper across a cut.
BOM_WIRE_AWG = 18


def trace_rating_a(width_mm: float, copper_um: float, rise_c: float) -> float:
    """A copper track's continuous current by IPC-2221's outer-layer formula, ``0.048 dT^0.44 A^0.725``
    (``A`` the cross-section in square mils): how much a strip's flat copper carries for a given rise.

    >>> round(trace_rating_a(0.254, 35, 10), 2)   # the textbook 10 mil track of 1 oz copper
    0.89
    """
    area_mil2 = (width_mm / 0.0254) * (copper_um / 25.4)
    return 0.048 * rise_c ** 0.44 * area_mil2 ** 0.725


#: A WS2812B strip's 5 V (or GND) copper between two cut pads, planned as 1 oz (35 um) copper on a
#: 3 mm rail of a 10 mm, 60/m strip at a 15 degree rise under PLA (IPC-2221 gives 6.3 A), rounded down:
#: a strip sold as 2 oz copper carries more, a thin no-name strip may carry less.
STRIP_COPPER_A = 6.0
#: Every conductor the build puts behind the fuse whose rating does not follow the fuse (the WAGO
#: blocks and the fuse holder are rated 20 A): what any ``[leds] fuse_a`` must protect.
BEHIND_THE_FUSE: dict[str, float] = {
    f"the {BOM_WIRE_AWG} AWG feeds and jumpers": AWG_RATING_A[BOM_WIRE_AWG],
    "the strip's copper between its cut pads": STRIP_COPPER_A,
}


def max_fuse_a(behind: dict[str, float] | None = None) -> float:
    """The largest fuse whose hold current every conductor behind it carries, in A (2 decimals, down)."""
    weakest = min((BEHIND_THE_FUSE if behind is None else behind).values())
    return int(weakest / FUSE_HOLD_FACTOR * 100) / 100


def fuse_problem(fuse_a: float, behind: dict[str, float] | None = None) -> str | None:
    """Why a fuse of ``fuse_a`` leaves a conductor behind it unprotected (None: it protects them all).

    >>> print(fuse_problem(7.5))  # doctest: +NORMALIZE_WHITESPACE
    a 7.5 A fuse holds 8.25 A indefinitely, more than the strip's copper between its cut pads carries
    (6 A): a short there would overheat it before the fuse blows; fit a fuse of at most 5.45 A (the
    BOM's is 5 A)
    """
    behind = BEHIND_THE_FUSE if behind is None else behind
    name, rating = min(behind.items(), key=lambda kv: kv[1])
    hold = fuse_hold_a(fuse_a)
    if hold <= rating:
        return None
    return (f"a {fuse_a:g} A fuse holds {hold:g} A indefinitely, more than {name} carries ({rating:g} A): "
            f"a short there would overheat it before the fuse blows; fit a fuse of at most "
            f"{max_fuse_a(behind):g} A (the BOM's is {DEFAULT_FUSE_A:g} A)")


#: Resistance of copper wire per metre, for the voltage drop of a feed (one way).
AWG_OHM_PER_M: dict[int, float] = {16: 0.0132, 18: 0.0210, 20: 0.0333, 22: 0.0530, 24: 0.0842, 26: 0.134}


def fuse_hold_a(fuse_a: float) -> float:
    """The current the fuse lets through indefinitely."""
    return fuse_a * FUSE_HOLD_FACTOR


def max_budget_ma(fuse_a: float) -> float:
    """The highest LED budget a fuse of ``fuse_a`` allows, in mA.

    Example::

        >>> max_budget_ma(5.0)
        4000.0
    """
    return round(fuse_a * BUDGET_SHARE_OF_FUSE * 1000, 3)


def wire_for(carried_a: float, fuse_a: float) -> int:
    """The thinnest gauge (largest AWG number) that carries ``carried_a`` and that the fuse protects."""
    need = max(carried_a, fuse_hold_a(fuse_a))
    fits = [awg for awg, rating in AWG_RATING_A.items() if rating >= need]
    if not fits:
        raise ValueError(f"no listed wire carries {need:.1f} A (thickest: 16 AWG, {AWG_RATING_A[16]:g} A)")
    return max(fits)


def check_chain(budget_ma: float, fuse_a: float, psu_a: float,
                protected: Iterable[tuple[str, float]],
                before_fuse: Iterable[tuple[str, float]] = ()) -> list[str]:
    """Every way the chain is broken, in words naming both figures; an empty list when it holds.

    ``protected`` are ``(name, rating_a)`` of everything behind the fuse, ``before_fuse`` those
    between the supply and the fuse (the inlet and its leads), protected only by the supply's own limit.
    """
    problems: list[str] = []
    if budget_ma > max_budget_ma(fuse_a):
        problems.append(f"LED budget {budget_ma:g} mA is more than 80 % of the {fuse_a:g} A fuse "
                        f"({max_budget_ma(fuse_a):g} mA)")
    hold = fuse_hold_a(fuse_a)
    for name, rating in protected:
        if rating < hold:
            problems.append(f"{name} is rated {rating:g} A, less than the {fuse_a:g} A fuse holds "
                            f"indefinitely ({hold:g} A)")
    trip = psu_a * SUPPLY_TRIP_FACTOR
    for name, rating in before_fuse:
        if rating < trip:
            problems.append(f"{name} is rated {rating:g} A, before the fuse, less than the {psu_a:g} A "
                            f"supply may deliver before it cuts out ({trip:g} A)")
    if psu_a * 1000 < budget_ma:
        problems.append(f"the {psu_a:g} A supply gives less than the LED budget of {budget_ma:g} mA")
    return problems
