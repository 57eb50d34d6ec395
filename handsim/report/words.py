"""Plain words for the numbers of a report's *In brief*: better or worse for the player, about the
same when the interval includes 0, and two shares printed so that their difference is the one stated.

Every function takes an :class:`~handsim.report.document.Estimate` (or plain floats) and returns
inline text; nothing here decides which numbers a report gives.
"""

from __future__ import annotations

import math

from .document import UNITS, Estimate, _decimals_for, _finite, fmt_number

__all__ = ["verdict", "share_pair", "NOT_SIGNIFICANT"]

#: What a difference whose interval includes 0 says after its number.
NOT_SIGNIFICANT = "not significant: the interval includes 0"


def _unit(e: Estimate) -> str:
    return UNITS.get(e.unit, e.unit)


def verdict(e: Estimate, lower_is_better: bool = True, unit: bool = True) -> str:
    """A difference in words for the player: ``"worse by 5.1 points per player-round (95% CI 4.6 to 5.6)"``.

    Parameters
    ----------
    e : Estimate
        A difference (``e.diff``): the player's figure with the change minus without it.
    lower_is_better : bool
        True for scores (penalty points: a positive difference is worse), False for a chance to win.
    unit : bool
        Name the unit after the number (False in the later clauses of one sentence).

    Returns
    -------
    str
        ``"worse by ..."`` / ``"better by ..."`` (the magnitude and its interval, unsigned) when the
        95% CI excludes 0; ``"about the same (+0.2 ..., 95% CI -0.6 to +1.1; not significant: the
        interval includes 0)"`` when it includes 0; ``"the same in every deal"`` for a paired
        difference that is 0 in every deal; the signed number with ``"no interval"`` without one.
    """
    u = f" {_unit(e)}" if unit and _unit(e) else ""
    if e.identical:
        return f"the same in every deal ({e.number()}{u})"
    if not e.has_interval:
        return f"{e.number()}{u} (no interval)"
    if not e.significant:
        return f"about the same ({e.number()}{u}, 95% CI {e.ci_text}; {NOT_SIGNIFICANT})"
    scale = 100.0 if e.unit == "pp" else 1.0
    nd = _decimals_for(e.value * scale, e.low * scale, e.high * scale, e.nd, True)
    lo, hi = sorted((abs(e.low), abs(e.high)))
    worse = (e.value > 0) == lower_is_better
    word = "worse" if worse else "better"
    if not lower_is_better:  # a chance: say which way it moves, then what that means
        word = ("lower" if e.value < 0 else "higher") + f" ({word})"
    return (f"{word} by {fmt_number(abs(e.value) * scale, nd)}{u} (95% CI {fmt_number(lo * scale, nd)} to "
            f"{fmt_number(hi * scale, nd)})")


def share_pair(a: float, b: float, low: float = math.nan, high: float = math.nan, nd: int = 1) -> tuple[str, ...]:
    """Two shares and their difference printed so that the difference is that of the printed shares.

    ``18.64%`` and ``18.77%`` print as ``18.64%`` and ``18.77%`` with ``+0.13`` (not as ``18.6%`` and
    ``18.8%`` with ``+0.1``): the decimals grow (to 3 at most) until rounding the difference gives
    the difference of the rounded shares, and the interval's bounds print distinct and with their sign.

    Parameters
    ----------
    a, b : float
        The shares (fractions in [0, 1]) before and after the change.
    low, high : float
        The 95% CI of ``b - a`` (fractions; NaN: none).
    nd : int
        Fewest decimals of the percentages.

    Returns
    -------
    tuple of str
        ``(a, b, difference, low, high)``: ``"18.64%"``, ``"18.77%"``, ``"+0.13"``, ``"-0.02"``, ``"+0.28"``
        (the last three in percentage points; ``"–"`` for a missing bound).  A share of exactly 0 or 1
        prints as ``"0%"`` / ``"100%"``.
    """
    pa, pb = 100 * float(a), 100 * float(b)
    d = pb - pa
    lo, hi = 100 * float(low) if _finite(low) else math.nan, 100 * float(high) if _finite(high) else math.nan
    while True:
        nd = _decimals_for(d, lo, hi, nd, True)
        if nd >= 3 or round(round(pb, nd) - round(pa, nd), nd) == round(d, nd):
            break
        nd += 1

    def pct(x: float, p: float) -> str:
        return "0%" if x == 0 else "100%" if x == 1 else f"{p:.{nd}f}%"

    return (pct(float(a), pa), pct(float(b), pb), fmt_number(d, nd, signed=True), fmt_number(lo, nd, signed=True),
            fmt_number(hi, nd, signed=True))
