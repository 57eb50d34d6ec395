"""Exact integer counters of a study, shared by every game's accumulator.

An accumulator keeps ``int64`` counters whose size does not depend on the number of deals:
counts, sums and sums of squares (:func:`add_sums`) and histograms that span exactly the observed
range (:func:`grow_last`).  Integer sums are exact, so chunks added or merged in any order give
byte-identical counters, and a checkpoint resumes exactly.  A checkpoint's counters are checked
when they are read back (:func:`check_counters`, :func:`check_totals`) before they are used.
Nothing here names a game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["MAX_COUNTER", "add_sums", "grow_last", "plain", "check_counters", "check_totals"]


def add_sums(acc: np.ndarray, i_sum: int, i_sum2: int, x: np.ndarray) -> None:
    """Add the exact integer sum and sum of squares of ``x`` to ``acc[i_sum]`` and ``acc[i_sum2]``.

    Parameters
    ----------
    acc : ndarray(int64, ndim=1)
        A row of counters, changed in place.
    i_sum, i_sum2 : int
        Where the sum and the sum of squares are kept.
    x : ndarray(int64)
        The values (e.g. points of one seat over a chunk's deals).
    """
    acc[i_sum] += int(x.sum())
    acc[i_sum2] += int((x * x).sum())


def grow_last(hist: np.ndarray, lo: int, new_lo: int, new_hi: int) -> tuple[np.ndarray, int]:
    """Widen a histogram whose last axis holds values ``lo, lo + 1, ...`` to cover ``new_lo .. new_hi``.

    Returns
    -------
    (ndarray(int64), int)
        The (possibly new) array and its first value; an empty histogram becomes exactly
        ``new_lo .. new_hi`` wide, so the state stays canonical (it spans the observed range).
    """
    w = hist.shape[-1]
    if w == 0:
        return np.zeros(hist.shape[:-1] + (new_hi - new_lo + 1,), dtype=np.int64), int(new_lo)
    old_hi = lo + w - 1
    nl, nh = min(new_lo, lo), max(new_hi, old_hi)
    if nl < lo or nh > old_hi:
        pad = [(0, 0)] * (hist.ndim - 1) + [(lo - nl, nh - old_hi)]
        hist = np.pad(hist, pad)
    return hist, int(nl)


def plain(v: Any) -> Any:
    """A plain Python value (numpy scalars unwrapped) for configs and JSON."""
    if isinstance(v, np.generic):
        return v.item()
    return v


#: Every saved counter is smaller than this in size: a checkpoint value of 2**53 or more is damage
#: (no study plays that many deals, and float64 statistics are exact below it).
MAX_COUNTER = 2**53


def check_counters(state: Mapping[str, np.ndarray], layout: Mapping[str, tuple]) -> None:
    """Check the values of saved counters, as read from a checkpoint, before they are used.

    Parameters
    ----------
    state : mapping of str -> ndarray
        The saved arrays; a name of ``layout`` that ``state`` lacks is skipped (the caller reports
        missing arrays).
    layout : mapping of str -> (signed, squares)
        Per array: ``signed``, the indices on its last axis that hold sums of values that may be
        negative (scores, differences), or ``"all"`` (every entry may be negative); every other
        entry is a count or a sum of squares and must be >= 0; ``squares``, pairs ``(i, i2)`` of
        a sum of integers and its sum of squares, so that ``|x[..., i]| <= x[..., i2]``.

    Raises
    ------
    ValueError
        One line naming the array: not of an integer dtype (handsim writes ``int64``), a value of
        2**53 or more in size (:data:`MAX_COUNTER`), a negative count, or a sum larger than its
        sum of squares.
    """
    for name, (signed, squares) in layout.items():
        if name not in state:
            continue
        x = np.asarray(state[name])
        if x.dtype.kind not in "iu":
            raise ValueError(f"{name!r} holds {x.dtype} values, not the integers handsim writes")
        if not x.size:
            continue
        lo, hi = int(x.min()), int(x.max())
        if max(-lo, hi) >= MAX_COUNTER:
            raise ValueError(f"{name!r} holds a value out of range ({hi if hi >= MAX_COUNTER else lo}; "
                             "counters stay below 2**53 in size)")
        x = x.astype(np.int64, copy=False)
        if signed != "all":
            counts = np.delete(x, list(signed), axis=-1) if signed else x
            if counts.size and counts.min() < 0:
                raise ValueError(f"{name!r} holds a negative count ({int(counts.min())})")
        for i, i2 in squares:
            bad = np.abs(x[..., i]) > x[..., i2]
            if bad.any():
                k = tuple(int(v) for v in np.argwhere(bad)[0])
                raise ValueError(f"{name!r} holds a sum ({int(x[k + (i,)])}) larger than its sum of squares "
                                 f"({int(x[k + (i2,)])})")


def check_totals(name: str, got: np.ndarray, other: str, want: np.ndarray, unit: str, most: bool = False) -> None:
    """Check that the totals ``got`` of saved array ``name`` equal (``most``: do not exceed) those
    ``want`` of array ``other``, element by element.

    Raises
    ------
    ValueError
        One line naming both arrays and the first pair of totals that do not fit.
    """
    got, want = np.asarray(got), np.asarray(want)
    bad = got > want if most else got != want
    if bad.any():
        k = tuple(np.argwhere(bad)[0])
        rel = "more than" if most else "other than"
        raise ValueError(f"{name!r} counts {int(got[k])} {unit}, {rel} the {int(want[k])} of {other!r}")


