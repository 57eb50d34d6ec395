"""Interval estimators of every study's tables, from exact integer sums (95% level).

Every game's accumulator keeps exact integer sums (counts, sums and sums of squares, histograms)
and turns them into estimates only when a table is asked for, with these functions: Student-t
intervals of a mean (:func:`moments`), Wilson intervals of a proportion (:func:`wilson`), the
share of an outcome observed ``k`` times per unit (:func:`proportion`), two-sided t test
p-values (:func:`t_pvalue`) and quantiles of a histogram (:func:`hist_quantiles`).  They name no
game.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

__all__ = ["CONFIDENCE", "t_quantile", "normal_quantile", "wilson", "moments", "t_pvalue", "proportion",
           "hist_quantiles"]

#: Level of every interval.
CONFIDENCE = 0.95


@functools.lru_cache(maxsize=4096)
def t_quantile(df: int) -> float:
    """The two-sided :data:`CONFIDENCE` quantile of Student's t with ``df`` degrees of freedom
    (``t.ppf(0.975, df)``; cached)."""
    from scipy import stats as _sps  # lazy: importing scipy.stats takes seconds

    return float(_sps.t.ppf(0.5 + CONFIDENCE / 2, df))


@functools.lru_cache(maxsize=1)
def normal_quantile() -> float:
    """The two-sided :data:`CONFIDENCE` quantile of the standard normal (``norm.ppf(0.975)``, 1.96)."""
    from scipy import stats as _sps

    return float(_sps.norm.ppf(0.5 + CONFIDENCE / 2))


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson score interval (no continuity correction) of ``k`` successes in ``n`` trials.

    The same Newcombe (1998) formula as ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``
    (checked in the tests), without the binomial test's p-value search, which costs milliseconds
    per call.

    Parameters
    ----------
    k, n : int
        Successes and trials (``0 <= k <= n``).

    Returns
    -------
    (float, float)
        The interval's ends, shares in [0, 1]; ``(nan, nan)`` when ``n <= 0``.
    """
    k, n = int(k), int(n)
    if n <= 0:
        return (math.nan, math.nan)
    z = normal_quantile()
    p = k / n
    q = 1 - p
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * q + z**2)
    lo = 0.0 if k == 0 else center - delta
    hi = 1.0 if k == n else center + delta
    return (lo, hi)


def share_interval(k: int, n: int) -> tuple[float, float, float]:
    """The share ``k / n`` with its :func:`wilson` interval: ``(share, low, high)``, all NaN when
    ``n <= 0`` (the scripts' tables of match shares)."""
    if int(n) <= 0:
        return (math.nan,) * 3
    lo, hi = wilson(k, n)
    return int(k) / int(n), lo, hi


def moments(n: int, s1: int, s2: int, scale: int = 1) -> tuple[float, float, float, float, float]:
    """Mean, sd, standard error and t interval of ``n`` observations ``x_i = v_i / scale``.

    Parameters
    ----------
    n : int
        Observations.
    s1, s2 : int
        ``sum(v_i)`` and ``sum(v_i**2)``, exact integers; the variance numerator ``n*s2 - s1**2``
        is formed in Python integers, so there is neither overflow nor cancellation.
    scale : int
        Divisor of every value (e.g. the ``k`` seats a policy holds, for a per-seat mean).

    Returns
    -------
    (mean, sd, se, ci95_low, ci95_high) : tuple of float
        In the unit of ``x``; NaN where undefined (everything for ``n <= 0``, all but the mean
        for ``n == 1``).
    """
    n, s1, s2, scale = int(n), int(s1), int(s2), int(scale)
    if n <= 0:
        return (math.nan,) * 5
    mean = s1 / (n * scale)
    if n < 2:
        return (mean, math.nan, math.nan, math.nan, math.nan)
    num = n * s2 - s1 * s1
    var = max(num, 0) / (n * (n - 1) * scale * scale)
    sd = math.sqrt(var)
    se = sd / math.sqrt(n)
    half = t_quantile(n - 1) * se
    return (mean, sd, se, mean - half, mean + half)


def t_pvalue(mean: float, se: float, n: int) -> float:
    """Two-sided p-value of a t test that the mean of ``n`` observations is 0 (``n - 1`` degrees of
    freedom); NaN for fewer than 2 observations; 1 or 0 when ``se`` is 0 (the mean is or is not 0)."""
    if not (n >= 2) or math.isnan(se):
        return math.nan
    if se == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    from scipy import stats as _sps

    return float(2.0 * _sps.t.sf(abs(mean) / se, n - 1))


def proportion(k: int, n: int, s1: int, s2: int) -> tuple[float, float, float]:
    """Share and 95% interval of a proportion observed ``k`` times per unit.

    Parameters
    ----------
    k : int
        Outcomes per unit (the seats a policy holds in a deal or a match).
    n : int
        Units (deals, games or matches).
    s1, s2 : int
        The sum over units of the number of successes among the unit's ``k`` outcomes, and the
        sum of their squares.

    Returns
    -------
    (share, ci95_low, ci95_high) : tuple of float
        ``k == 1``: Wilson interval.  ``k > 1``: Student-t interval over the per-unit means
        ``s_i / k`` (clipped to [0, 1]); when every unit has the same share and it is 0 or 1, the
        Wilson interval of ``s1 / k`` in ``n`` units instead (a t interval would be empty).  NaN
        for ``n <= 0`` or ``k <= 0``.
    """
    k, n, s1, s2 = int(k), int(n), int(s1), int(s2)
    if n <= 0 or k <= 0:
        return (math.nan, math.nan, math.nan)
    p = s1 / (k * n)
    if k == 1:
        return (p, *wilson(s1, n))
    mean, sd, _, lo, hi = moments(n, s1, s2, scale=k)
    if n >= 2 and sd == 0.0 and s1 in (0, k * n):
        return (p, *wilson(s1 // k, n))
    if math.isnan(lo):
        return (p, lo, hi)
    return (p, max(lo, 0.0), min(hi, 1.0))


def hist_quantiles(values: np.ndarray, counts: np.ndarray, qs: Sequence[float]) -> list[float]:
    """Quantiles of the data ``values[i]`` repeated ``counts[i]`` times.

    Parameters
    ----------
    values : ndarray(int64, ndim=1)
        Ascending values (e.g. points, turns).
    counts : ndarray(int64, ndim=1)
        How often each value was observed.
    qs : sequence of float
        Quantile levels in [0, 1].

    Returns
    -------
    list of float
        One quantile per level, in the unit of ``values`` (NaN when nothing was observed).
        Linear interpolation between order statistics: numpy's default (``np.quantile(...,
        method="linear")``, Hyndman & Fan type 7).
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        return [math.nan] * len(qs)
    cum = np.cumsum(counts)
    out = []
    for q in qs:
        h = (n - 1) * float(q)
        i = math.floor(h)
        frac = h - i
        a = float(values[int(np.searchsorted(cum, i, side="right"))])
        b = float(values[int(np.searchsorted(cum, min(i + 1, n - 1), side="right"))])
        out.append(a + (b - a) * frac if frac < 0.5 else b - (b - a) * (1 - frac))
    return out
