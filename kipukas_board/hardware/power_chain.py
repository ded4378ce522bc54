"""The LED power chain: supply, jack, fuse, then every conductor and connector the fuse protects.

Three rules make the chain safe, and :func:`check_chain` names each one that a build breaks:

- the LED budget (the renderer's cap, ``[leds] power_budget_ma``) is at most 80 % of the fuse, so
  the fuse never runs near its rating in play;
- the fuse is at most the rating of everything it protects, so a short anywhere behind it blows
  the fuse before a wire or a contact overheats (a blade fuse holds 110 % of its rating
  indefinitely, so "at most" is taken against the fuse's hold current);
- the supply gives at least the budget.

The board's settings apply the first rule at start (``[leds] power_budget_ma`` against ``[leds]
fuse_a``), so a budget the fuse cannot carry is refused before the strip lights.

The jack sits before the fuse, so the fuse cannot protect it: it must carry what the supply
delivers before its own overload protection cuts out (:data:`SUPPLY_TRIP_FACTOR` times its rating).

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
#: the jack before the fuse must carry the top of that range.
SUPPLY_TRIP_FACTOR = 1.5
#: Continuous current per American wire gauge, in a closed box under PLA (see the module docstring).
AWG_RATING_A: dict[int, float] = {16: 10.0, 18: 7.0, 20: 5.0, 22: 3.0, 24: 2.0, 26: 1.3}
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
    between the supply and the fuse (the jack), protected only by the supply's own limit.
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
