"""Streaming statistics of a study: exact integer accumulators, summaries with confidence intervals.

A *study* plays the same deals (common random numbers) under several *configurations* (values
of the rule options that vary, RULES.md names) and several *line-ups* (the policy sitting in each
line-up position).  The driver hands every finished chunk of deals to a
:class:`StudyAccumulator` as one :class:`DealBlock` per (configuration, line-up).  The accumulator
keeps only integer sums whose size does not depend on the number of deals, so memory stays flat,
checkpoints are exact (:meth:`StudyAccumulator.state`, :meth:`StudyAccumulator.from_state`) and
chunks may be added or merged in any order with byte-identical results
(:meth:`StudyAccumulator.merge`).  Floats appear only in the DataFrames returned by
:meth:`StudyAccumulator.summary`, :meth:`StudyAccumulator.paired`,
:meth:`StudyAccumulator.versus`, :meth:`StudyAccumulator.lineup_pairs`,
:meth:`StudyAccumulator.total_quantiles` and :meth:`StudyAccumulator.histograms`.

Seats in a block are *relative*: seat 0 is the starter (RULES.md section 3: the player with the
extra card), seat 1 plays next, and so on.  Scores are points for one round, lower is better
(RULES.md section 6).

In a *match* study (RULES.md section 7) every row is one regular round of a match and the
match's result (``match_win``, ``match_lose``, ``tiebreaks``, ``total``, ``hand_decided``) sits
on the row of its last regular round.  In a *partnership* (2 v 2, ``teams``) study line-up
positions 1 & 3 form team A and positions 2 & 4 team B (1-based, as line-ups are written;
partners sit opposite).

Statistical units
-----------------
* Per seat (``seat`` = ``"0"`` .. ``"P-1"``): one observation per round (or, for the match
  columns, per match) in which the policy sat in that seat; a match counts for the seat held in
  its last round (seats are numbered from each round's starter, who moves every round).  Means with a Student-t 95%
  interval; proportions with Wilson 95% intervals.
* ``seat == "all"``: the unit is the *deal* (for the match columns, the *match*).  When a
  policy holds ``k`` seats of a line-up, the observation of a deal (match) is the mean of its
  ``k`` outcomes, so the intervals stay honest although the ``k`` outcomes of one deal are
  dependent: Student-t intervals over the per-deal (per-match) means, for the mean score, the
  mean final total *and* the proportions (``p_out`` ... ``match_win_rate`` ...).  With
  ``k == 1`` a proportion gets the Wilson interval (the unit holds one Bernoulli outcome).  A
  t interval of a proportion is clipped to [0, 1]; when every unit has the same outcome (all 0 or
  all 1) the Wilson interval over the units is used instead of an empty interval.
* Team rows (``seat`` = ``"team A"`` / ``"team B"``, partnership studies): the unit is the deal
  (match); a team's score is the sum of its two players' scores.
* Team margin (:meth:`StudyAccumulator.team_margins`, partnership match studies): team A's final
  match total minus team B's, one observation per match; Student-t interval of its mean, Wilson
  intervals of the shares of matches with a margin below, at and above 0.
* Paired differences (:meth:`StudyAccumulator.paired`): for two configurations that differ in one
  option, the per-deal difference of a policy's mean score over the *same* deals, t interval.
* Policy contrasts (:meth:`StudyAccumulator.versus`): within one configuration and line-up, the
  per-deal difference between two policies' mean scores, t interval.
* Line-up contrasts (:meth:`StudyAccumulator.lineup_pairs`): for two line-ups that differ in
  one position, the per-deal (per-match for match results) difference of that position's score
  on the same deals (first line-up minus second), t interval.

The rounds of a match study are treated as independent units for the per-round columns (every
round is shuffled from its own random stream; this holds while policies do not react to the
match standings); the match columns use the match as the unit.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

__all__ = [
    "DealBlock",
    "StudyAccumulator",
    "FLAG_OPENED",
    "FLAG_OUT",
    "FLAG_HAND",
    "FLAG_JOKER_LEFT",
    "MATCH_NONE",
    "TIEBREAK_NONE",
    "CONFIDENCE",
    "QUANTILES",
    "TEAMS",
    "MARGIN_COLUMNS",
    "team_margin_table",
]

#: ``flags`` bit: the player opened (laid down a first meld) in the round (RULES.md section 4).
FLAG_OPENED = 1
#: ``flags`` bit: the player went out (RULES.md section 6).
FLAG_OUT = 2
#: ``flags`` bit: the player went out with a Hand (RULES.md section 6).
FLAG_HAND = 4
#: ``flags`` bit: the round ended with at least one joker in the player's hand (it pays
#: ``joker_penalty`` for each, RULES.md sections 1 and 6; void rounds included).
FLAG_JOKER_LEFT = 8
#: ``match_win`` / ``match_lose`` / ``hand_decided`` value meaning "this row carries no match
#: result" (e.g. not the last round of a match).
MATCH_NONE = 255
#: ``tiebreaks`` value meaning "this row carries no match result".
TIEBREAK_NONE = -1
#: Level of every interval.
CONFIDENCE = 0.95
#: Quantiles of the final match totals (:meth:`StudyAccumulator.total_quantiles`).
QUANTILES = (0.10, 0.25, 0.50, 0.75, 0.90)
#: Team labels (``seat`` column of team rows) and their line-up positions (0-based).
TEAMS = (("team A", (0, 2)), ("team B", (1, 3)))

_STATE_FORMAT = 2

# per (config, line-up, policy, seat) counters, last axis of ``_seat``
(_S_ROUNDS, _S_SCORE, _S_SCORE2, _S_OUT, _S_HAND, _S_UNOPENED, _S_TURNS, _S_VOID, _S_MATCHES, _S_WINS,
 _S_LMATCHES, _S_LOSSES, _S_TMATCHES, _S_TOTAL, _S_TOTAL2, _S_NEUTRAL) = range(16)
_NS = 16
# per (config, line-up, policy) unit-level sums (sum over the policy's k seats per deal / match),
# last axis of ``_pool``: deals, score sum and sum of squares, squares of the went-out / Hand /
# unopened counts; matches with a win result, wins and squares; with a lose result, losses,
# squares, neutral count and squares; matches with totals, totals and squares
(_P_DEALS, _P_TSUM, _P_TSUM2, _P_OUT2, _P_HAND2, _P_UNOP2, _P_M, _P_W, _P_W2, _P_LM, _P_L, _P_L2, _P_N, _P_N2,
 _P_TM, _P_TOT, _P_TOT2) = range(17)
_NP = 17
# per (config, line-up), last axis of ``_cl``: deals, turns, void rounds, matches with a tie-break
# count, tie-break rounds, matches with >= 1 tie-break round, matches with a hand_decided flag, of
# which decided by a Hand
_C_DEALS, _C_TURNS, _C_VOID, _C_TB_N, _C_TB_SUM, _C_TB_POS, _C_HD_N, _C_HD_SUM = range(8)
_NC = 8
# per (config, line-up, team), last axis of ``_team``
(_T_DEALS, _T_SUM, _T_SUM2, _T_OUT, _T_HAND, _T_UNOP, _T_UNOP2, _T_M, _T_W, _T_LM, _T_L, _T_TM, _T_TOT,
 _T_TOT2, _T_N) = range(15)
_NT = 15
# per (config, line-up pair): deals, position score diff (sum, squares), team score diff (sum,
# squares); matches with totals, total diff, squares, team total diff, squares; matches with a
# win result, win diff, squares; with a lose result, lose diff, squares
(_LP_N, _LP_S, _LP_S2, _LP_TS, _LP_TS2, _LP_M, _LP_TOT, _LP_TOT2, _LP_TTOT, _LP_TTOT2, _LP_WM, _LP_W, _LP_W2,
 _LP_LM, _LP_L, _LP_L2) = range(16)
_NLP = 16
# paired metrics: per-deal sums over the policy's seats of score / went out / Hand / unopened
_METRICS = ("score", "p_out", "p_hand", "p_unopened")
_NM = len(_METRICS)
_NQ = 1 + 2 * _NM  # deals, then (sum, sum of squares) per metric
# versus: deals, sum, sum of squares
_NV = 3
# rounds that end with a joker in hand (FLAG_JOKER_LEFT), kept in arrays of their own so that the
# checkpoints of studies run before the flag existed stay readable (the column is then NaN):
# per seat the count, per policy the sum of squares of the per-deal count over its seats, per
# team the per-deal count over both partners (sum, squares), per pair of configurations the
# per-deal difference (sum, squares)
_JOKER_ARRAYS = ("joker_seat", "joker_pool", "joker_team", "joker_pair")
# the team margin of a partnership match (team A's final match total minus team B's), kept as a
# histogram of its own for the same reason: checkpoints saved before it existed stay readable
# (the margin is then not reported)
_MARGIN_HIST = ("team_margin_hist", "team_margin_lo", 2)


class DealBlock(NamedTuple):
    """Per-deal results of ``n`` deals of one (configuration, line-up), by **relative seat**.

    Relative seat 0 is the starter, seat 1 the next to play, and so on (``P`` seats).

    Attributes
    ----------
    deal : ndarray(int64, shape=(n,))
        Deal indices (the same, in the same order, for every block of one chunk).
    policy : ndarray(int8, shape=(n, P))
        Line-up position (index into the line-up tuple) of the policy sitting in each seat; every
        row is a permutation of ``0..P-1``.
    score : ndarray(int32, shape=(n, P))
        Points scored in the round (RULES.md section 6; lower is better).
    flags : ndarray(uint8, shape=(n, P))
        Bit 0 (:data:`FLAG_OPENED`) opened, bit 1 (:data:`FLAG_OUT`) went out, bit 2
        (:data:`FLAG_HAND`) went out with a Hand, bit 3 (:data:`FLAG_JOKER_LEFT`) ended the round
        with a joker in hand.
    turns : ndarray(int16, shape=(n,))
        Length of the round in turns (>= 0).
    void : ndarray(uint8, shape=(n,))
        1 if the round was void (RULES.md section 3), else 0.
    match_win : ndarray(uint8, shape=(n, P)) or None
        1 if the player won the match, 0 if not, :data:`MATCH_NONE` (255) if the row carries no
        match result (a row is either all 255 or a result).  ``None`` when no matches were played.
    tiebreaks : ndarray(int16, shape=(n,)) or None
        Extra rounds played to break a tie for the lowest total (RULES.md section 7), or
        :data:`TIEBREAK_NONE` (-1) if the row carries no match result.
    match_lose : ndarray(uint8, shape=(n, P)) or None
        1 if the player lost the match (``standings = last_loses``; always 0 under
        ``lowest_wins``), 0 if not, :data:`MATCH_NONE` exactly where ``match_win`` is.  Needs
        ``match_win``.
    total : ndarray(int32, shape=(n, P)) or None
        Each player's final match total (points, tie-break rounds included), read on the rows
        that carry a match result (ignored elsewhere).  Needs ``match_win``.
    hand_decided : ndarray(uint8, shape=(n,)) or None
        1 if a single Hand decided the match, 0 if not, :data:`MATCH_NONE` if the row carries no
        match result.
    """

    deal: np.ndarray
    policy: np.ndarray
    score: np.ndarray
    flags: np.ndarray
    turns: np.ndarray
    void: np.ndarray
    match_win: np.ndarray | None = None
    tiebreaks: np.ndarray | None = None
    match_lose: np.ndarray | None = None
    total: np.ndarray | None = None
    hand_decided: np.ndarray | None = None

# ----------------------------------------------------------------------------------------------
# interval helpers (scipy distributions; exact integer moments)


@functools.lru_cache(maxsize=4096)
def _t_quantile(df: int) -> float:
    from scipy import stats as _sps  # lazy: importing scipy.stats takes seconds

    return float(_sps.t.ppf(0.5 + CONFIDENCE / 2, df))


@functools.lru_cache(maxsize=1)
def _z() -> float:
    from scipy import stats as _sps

    return float(_sps.norm.ppf(0.5 + CONFIDENCE / 2))


def _wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson score interval (no continuity correction) of ``k`` successes in ``n`` trials.

    The same Newcombe (1998) formula as ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``
    (checked in the tests), without the binomial test's p-value search, which costs milliseconds
    per call.
    """
    k, n = int(k), int(n)
    if n <= 0:
        return (math.nan, math.nan)
    z = _z()
    p = k / n
    q = 1 - p
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * q + z**2)
    lo = 0.0 if k == 0 else center - delta
    hi = 1.0 if k == n else center + delta
    return (lo, hi)


def _moments(n: int, s1: int, s2: int, scale: int = 1) -> tuple[float, float, float, float, float]:
    """Mean, sd, standard error and t interval of ``n`` observations ``x_i = v_i / scale``.

    ``s1 = sum(v_i)``, ``s2 = sum(v_i**2)`` are exact integers; the variance numerator
    ``n*s2 - s1**2`` is formed in Python integers, so there is neither overflow nor cancellation.
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
    half = _t_quantile(n - 1) * se
    return (mean, sd, se, mean - half, mean + half)


def _add_sums(acc: np.ndarray, i_sum: int, i_sum2: int, x: np.ndarray) -> None:
    """Add the exact integer sum and sum of squares of ``x`` to ``acc[i_sum]`` and ``acc[i_sum2]``."""
    acc[i_sum] += int(x.sum())
    acc[i_sum2] += int((x * x).sum())


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


def _t_pvalue(mean: float, se: float, n: int) -> float:
    if not (n >= 2) or math.isnan(se):
        return math.nan
    if se == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    from scipy import stats as _sps

    return float(2.0 * _sps.t.sf(abs(mean) / se, n - 1))


def _py(v: Any) -> Any:
    """A plain Python value (numpy scalars unwrapped) for configs and JSON."""
    if isinstance(v, np.generic):
        return v.item()
    return v


# ----------------------------------------------------------------------------------------------
# proportions over units, histograms


def _prop(k: int, n: int, s1: int, s2: int) -> tuple[float, float, float]:
    """Share and 95% interval of a proportion observed ``k`` times per unit.

    ``n`` units (deals or matches); ``s1`` is the sum over units of the number of successes among
    the unit's ``k`` outcomes, ``s2`` the sum of their squares.  ``k == 1``: Wilson interval.
    ``k > 1``: Student-t interval over the per-unit means ``s_i / k`` (clipped to [0, 1]); when
    every unit has the same share and it is 0 or 1, the Wilson interval of ``s1 / k`` in ``n``
    units instead (a t interval would be empty).
    """
    k, n, s1, s2 = int(k), int(n), int(s1), int(s2)
    if n <= 0 or k <= 0:
        return (math.nan, math.nan, math.nan)
    p = s1 / (k * n)
    if k == 1:
        return (p, *_wilson(s1, n))
    mean, sd, _, lo, hi = _moments(n, s1, s2, scale=k)
    if n >= 2 and sd == 0.0 and s1 in (0, k * n):
        return (p, *_wilson(s1 // k, n))
    if math.isnan(lo):
        return (p, lo, hi)
    return (p, max(lo, 0.0), min(hi, 1.0))


def _grow_last(hist: np.ndarray, lo: int, new_lo: int, new_hi: int) -> tuple[np.ndarray, int]:
    """Widen a histogram whose last axis holds values ``lo, lo + 1, ...`` to cover ``new_lo .. new_hi``.

    Returns the (possibly new) array and its first value; an empty histogram becomes exactly
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


def _hist_quantiles(values: np.ndarray, counts: np.ndarray, qs: Sequence[float]) -> list[float]:
    """Quantiles of the data ``values[i]`` repeated ``counts[i]`` times (``values`` ascending).

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


#: Columns of :func:`team_margin_table` after the varying options.
MARGIN_COLUMNS = (
    "lineup", "team_a", "team_b", "matches", "mean_margin", "sd_margin", "margin_ci95_low", "margin_ci95_high",
    "p_negative", "p_negative_ci95_low", "p_negative_ci95_high", "p_zero", "p_zero_ci95_low", "p_zero_ci95_high",
    "p_positive", "p_positive_ci95_low", "p_positive_ci95_high", "p10", "p50", "p90",
)


def team_margin_table(hist: pd.DataFrame, varying: Sequence[str] = ()) -> pd.DataFrame:
    """The team margin of partnership matches, summarised per configuration and line-up.

    The margin of a match is team A's final match total minus team B's (points, tie-break rounds
    included; RULES.md section 7): under ``lowest_wins`` a negative margin means team A finished
    lower, i.e. ahead.

    Parameters
    ----------
    hist : pandas.DataFrame
        ``StudyAccumulator.histograms()["team_margin"]``: columns every option in ``varying``,
        ``lineup``, ``team_a``, ``team_b``, ``margin`` (int64, points), ``count`` (int64, matches).
    varying : sequence of str
        The option columns that tell configurations apart.

    Returns
    -------
    pandas.DataFrame
        One row per configuration x line-up with matches, in order of appearance.  Columns: the
        options, then :data:`MARGIN_COLUMNS`: ``matches``; ``mean_margin`` (points per match),
        ``sd_margin`` and the Student-t 95% interval ``margin_ci95_low/high`` (the unit is the
        match; exact integer sums); ``p_negative`` / ``p_zero`` / ``p_positive`` (share of matches
        with margin < 0, = 0, > 0) with Wilson 95% intervals; ``p10``, ``p50``, ``p90`` (points,
        quantiles interpolated as numpy's default).
    """
    varying = list(varying)
    keys = varying + ["lineup", "team_a", "team_b"]
    rows: list[dict[str, Any]] = []
    if hist is not None and len(hist):
        for key, g in hist.groupby(keys, sort=False):
            g = g.sort_values("margin")
            values = np.asarray(g["margin"], dtype=np.int64)
            counts = np.asarray(g["count"], dtype=np.int64)
            n = int(counts.sum())
            if n == 0:
                continue
            s1 = sum(int(v) * int(k) for v, k in zip(values, counts))
            s2 = sum(int(v) * int(v) * int(k) for v, k in zip(values, counts))
            mean, sd, _, lo, hi = _moments(n, s1, s2)
            row = dict(zip(keys, key))
            row.update(matches=n, mean_margin=mean, sd_margin=sd, margin_ci95_low=lo, margin_ci95_high=hi)
            for name, mask in (("p_negative", values < 0), ("p_zero", values == 0), ("p_positive", values > 0)):
                k = int(counts[mask].sum())
                row[name] = k / n
                row[name + "_ci95_low"], row[name + "_ci95_high"] = _wilson(k, n)
            row.update(zip(("p10", "p50", "p90"), _hist_quantiles(values, counts, (0.10, 0.50, 0.90))))
            rows.append(row)
    columns = varying + list(MARGIN_COLUMNS)
    if not rows:
        return pd.DataFrame({col: pd.Series(dtype=object) for col in columns})
    return pd.DataFrame.from_records(rows, columns=columns)


def _team_label(lineup: Sequence[str], positions: Sequence[int]) -> str:
    """``"hold-hand & greedy:support_hand=1"``: the policies of a team's positions."""
    return " & ".join(lineup[p] for p in positions)


# ----------------------------------------------------------------------------------------------


class StudyAccumulator:
    """Exact streaming statistics of a study (configurations x line-ups x policies x seats).

    Parameters
    ----------
    configs : list of dict
        ``configs[c]`` maps each varying rule option (RULES.md name, e.g. ``"opening_threshold"``)
        to its value in configuration ``c``.  Other keys are allowed only if they have the same
        value in every configuration (they are then ignored).
    lineups : list of tuple of str
        ``lineups[l][i]`` is the name of the policy at line-up position ``i`` (``P`` names).  A name
        may appear several times; its seats are pooled.
    players : int
        Seats per deal, ``P``.
    varying : list of str
        Names of the options that vary, in the order of the output columns.
    teams : bool or list of bool
        2 v 2 partnership (RULES.md sections 6-7): line-up positions 1 & 3 (0-based 0 and 2) form
        team A, positions 2 & 4 team B.  Adds team rows to :meth:`summary` and team columns to
        :meth:`lineup_pairs`.  One bool for every configuration, or one per configuration (when
        ``partnership`` varies).  Needs ``players == 4``.

    Raises
    ------
    ValueError
        Empty lists, a line-up of the wrong length, a config that lacks a varying option, two
        configs with the same values, an option not in ``varying`` whose value differs, or teams
        with other than 4 players.

    Notes
    -----
    Feed results with :meth:`add_chunk` (all blocks of one chunk: per-block statistics *and*
    paired comparisons between configurations and between line-ups) or :meth:`add_block` (one
    block: no paired comparisons).  All counters are ``int64``; a square of a per-deal seat sum
    must stay below ``2**63 / deals``, far beyond any reachable score.
    """

    def __init__(self, configs: Sequence[Mapping[str, Any]], lineups: Sequence[Sequence[str]],
                 players: int, varying: Sequence[str], teams: bool | Sequence[bool] = False):
        players = int(players)
        if players < 1:
            raise ValueError(f"players must be >= 1, got {players}")
        varying = [str(v) for v in varying]
        if len(set(varying)) != len(varying):
            raise ValueError(f"duplicate names in varying: {varying}")
        if not configs:
            raise ValueError("configs is empty: give at least one configuration (an empty dict if nothing varies)")
        if not lineups:
            raise ValueError("lineups is empty")
        norm_configs: list[dict[str, Any]] = []
        for c, cfg in enumerate(configs):
            missing = [v for v in varying if v not in cfg]
            if missing:
                raise ValueError(f"configs[{c}] lacks the varying option(s) {', '.join(missing)}")
            norm_configs.append({v: _py(cfg[v]) for v in varying})
        extras = sorted({k for cfg in configs for k in cfg} - set(varying))
        for k in extras:
            vals = [_py(cfg.get(k, "<missing>")) for cfg in configs]
            if any(v != vals[0] for v in vals):
                raise ValueError(f"option {k!r} differs between configs but is not listed in varying")
        seen: dict[tuple, int] = {}
        for c, cfg in enumerate(norm_configs):
            key = tuple(repr(cfg[v]) for v in varying)
            if key in seen:
                raise ValueError(f"configs[{seen[key]}] and configs[{c}] have the same values of {varying}")
            seen[key] = c
        norm_lineups: list[tuple[str, ...]] = []
        for l, lu in enumerate(lineups):
            lu = tuple(str(x) for x in lu)
            if len(lu) != players:
                raise ValueError(f"lineups[{l}] has {len(lu)} policies for {players} players")
            norm_lineups.append(lu)
        if isinstance(teams, (bool, np.bool_)) or teams is None:
            team_flags = [bool(teams)] * len(norm_configs)
        else:
            team_flags = [bool(t) for t in teams]
            if len(team_flags) != len(norm_configs):
                raise ValueError(f"teams has {len(team_flags)} entries for {len(norm_configs)} configurations")
        if any(team_flags) and players != 4:
            raise ValueError(f"teams (2 v 2 partnership) need 4 players, got {players}")

        self.configs: list[dict[str, Any]] = norm_configs
        self.lineups: list[tuple[str, ...]] = norm_lineups
        self.players: int = players
        self.varying: list[str] = varying
        #: Whether configuration ``c`` is played 2 v 2 (team rows, team columns).
        self.teams: list[bool] = team_flags
        #: Every policy name, in order of first appearance over the line-ups.
        self.policies: list[str] = list(dict.fromkeys(n for lu in norm_lineups for n in lu))
        gidx = {n: i for i, n in enumerate(self.policies)}
        # per line-up: distinct names (global index) in order of appearance, position -> local index, k
        self._names: list[np.ndarray] = []
        self._pos_local: list[np.ndarray] = []
        self._k: list[np.ndarray] = []
        for lu in norm_lineups:
            local = list(dict.fromkeys(lu))
            self._names.append(np.array([gidx[n] for n in local], dtype=np.intp))
            self._pos_local.append(np.array([local.index(n) for n in lu], dtype=np.intp))
            self._k.append(np.array([lu.count(n) for n in local], dtype=np.int64))
        #: ``(c1, c2, option)`` with ``c1 < c2`` for every pair of configurations that differ in exactly
        #: one option, ordered by option (as in ``varying``), then ``c1``, then ``c2``.
        self.pairs: list[tuple[int, int, str]] = []
        for c1, c2 in itertools.combinations(range(len(norm_configs)), 2):
            diff = [v for v in varying if norm_configs[c1][v] != norm_configs[c2][v]]
            if len(diff) == 1:
                self.pairs.append((c1, c2, diff[0]))
        # grouped by option (in ``varying`` order), then by configuration indices
        self.pairs.sort(key=lambda q: (varying.index(q[2]), q[0], q[1]))
        #: ``(l1, l2, position)`` with ``l1 < l2`` for every pair of line-ups that differ in exactly one
        #: line-up position (0-based), ordered by ``l1``, then ``l2``.
        self.lineup_diffs: list[tuple[int, int, int]] = []
        for l1, l2 in itertools.combinations(range(len(norm_lineups)), 2):
            diff = [i for i in range(players) if norm_lineups[l1][i] != norm_lineups[l2][i]]
            if len(diff) == 1:
                self.lineup_diffs.append((l1, l2, diff[0]))

        C, L, N, P, Q = len(norm_configs), len(norm_lineups), len(self.policies), players, len(self.pairs)
        self._seat = np.zeros((C, L, N, P, _NS), dtype=np.int64)
        self._pool = np.zeros((C, L, N, _NP), dtype=np.int64)
        self._cl = np.zeros((C, L, _NC), dtype=np.int64)
        self._team = np.zeros((C, L, len(TEAMS), _NT), dtype=np.int64)
        self._pair = np.zeros((Q, L, N, _NQ), dtype=np.int64)
        self._versus = np.zeros((C, L, N, N, _NV), dtype=np.int64)
        self._lpair = np.zeros((C, len(self.lineup_diffs), _NLP), dtype=np.int64)
        self._turns_hist = np.zeros((C, L, 0), dtype=np.int64)
        self._void_hist = np.zeros((C, L, 0), dtype=np.int64)
        self._score_hist = np.zeros((C, L, N, 0), dtype=np.int64)
        self._score_lo = 0
        self._total_hist = np.zeros((C, L, N, 0), dtype=np.int64)
        self._total_lo = 0
        self._team_total_hist = np.zeros((C, L, len(TEAMS), 0), dtype=np.int64)
        self._team_total_lo = 0
        self._team_margin_hist = np.zeros((C, L, 0), dtype=np.int64)
        self._team_margin_lo = 0
        self._joker_seat = np.zeros((C, L, N, P), dtype=np.int64)
        self._joker_pool = np.zeros((C, L, N), dtype=np.int64)
        self._joker_team = np.zeros((C, L, len(TEAMS), 2), dtype=np.int64)
        self._joker_pair = np.zeros((Q, L, N, 2), dtype=np.int64)
        #: Whether the rounds that end with a joker in hand were counted from the first deal on
        #: (False for a checkpoint of a study run before :data:`FLAG_JOKER_LEFT` existed, and for
        #: one resumed from it: ``p_joker_left`` is then NaN).
        self.joker_recorded: bool = True
        #: Whether the team margin of every partnership match was counted from the first deal on
        #: (False for a checkpoint saved before the margin histogram existed, and for one resumed
        #: from it: :meth:`team_margins` is then empty and ``histograms()`` has no ``"team_margin"``).
        self.margin_recorded: bool = True

    # ------------------------------------------------------------------ bookkeeping

    def _meta(self) -> dict[str, Any]:
        return {
            "format": _STATE_FORMAT,
            "configs": self.configs,
            "lineups": [list(lu) for lu in self.lineups],
            "players": self.players,
            "varying": self.varying,
            "teams": self.teams,
        }

    def __repr__(self) -> str:
        return (f"StudyAccumulator({len(self.configs)} configs x {len(self.lineups)} line-ups, "
                f"{self.players} players, varying={self.varying}, deals={self.deals().tolist()})")

    def deals(self) -> np.ndarray:
        """Deals added so far per configuration and line-up, ``ndarray(int64, shape=(C, L))``."""
        return self._cl[:, :, _C_DEALS].copy()

    def config_label(self, c: int) -> str:
        """``"opening_threshold=71, joker_penalty=30"`` for configuration ``c`` (``"-"`` if nothing varies)."""
        return ", ".join(f"{v}={self.configs[c][v]}" for v in self.varying) or "-"

    # ------------------------------------------------------------------ adding results

    def _prepare(self, c: int, l: int, block: DealBlock) -> dict[str, Any]:
        """Check one block and compute its per-deal sums (no state is touched)."""
        C, L, P = len(self.configs), len(self.lineups), self.players
        if not (0 <= int(c) < C) or not (0 <= int(l) < L):
            raise ValueError(f"block ({c}, {l}) out of range: {C} configs, {L} line-ups")
        c, l = int(c), int(l)
        where = f"block (config {c}, line-up {l})"

        def arr(name, ndim, required=True):
            x = getattr(block, name)
            if x is None:
                if required:
                    raise ValueError(f"{where}: field {name} is missing")
                return None
            x = np.asarray(x)
            if not (np.issubdtype(x.dtype, np.integer) or x.dtype == np.bool_):
                raise ValueError(f"{where}: field {name} must hold integers, got dtype {x.dtype}")
            if x.ndim != ndim:
                raise ValueError(f"{where}: field {name} must have {ndim} dimension(s), got shape {x.shape}")
            return x

        deal = arr("deal", 1)
        n = deal.shape[0]
        out: dict[str, Any] = {"c": c, "l": l, "n": n, "deal": deal}
        for name, ndim in (("policy", 2), ("score", 2), ("flags", 2), ("turns", 1), ("void", 1)):
            out[name] = arr(name, ndim)
        for name, ndim in (("match_win", 2), ("tiebreaks", 1), ("match_lose", 2), ("total", 2), ("hand_decided", 1)):
            out[name] = arr(name, ndim, required=False)
        for name in ("policy", "score", "flags", "match_win", "match_lose", "total"):
            x = out[name]
            if x is not None and x.shape != (n, P):
                raise ValueError(f"{where}: field {name} has shape {x.shape}, expected ({n}, {P})")
        for name in ("turns", "void", "tiebreaks", "hand_decided"):
            x = out[name]
            if x is not None and x.shape != (n,):
                raise ValueError(f"{where}: field {name} has shape {x.shape}, expected ({n},)")
        if out["match_win"] is None:
            given = [k for k in ("match_lose", "total", "hand_decided") if out[k] is not None]
            if given:
                raise ValueError(f"{where}: field(s) {', '.join(given)} need match_win (the rows that carry a match result)")
        policy = out["policy"].astype(np.intp)
        if n and not np.array_equal(np.sort(policy, axis=1), np.broadcast_to(np.arange(P), (n, P))):
            raise ValueError(f"{where}: every row of policy must be a permutation of the line-up positions 0..{P - 1}")
        turns = out["turns"].astype(np.int64)
        if n and turns.min() < 0:
            raise ValueError(f"{where}: negative turns")
        void = out["void"].astype(np.int64)
        if n and not np.isin(void, (0, 1)).all():
            raise ValueError(f"{where}: void must be 0 or 1")
        mw, ml, hd = out["match_win"], out["match_lose"], out["hand_decided"]
        none = None
        if mw is not None:
            mw = mw.astype(np.int64)
            if n and not np.isin(mw, (0, 1, MATCH_NONE)).all():
                raise ValueError(f"{where}: match_win must be 0, 1 or {MATCH_NONE} (no result in this row)")
            none = mw == MATCH_NONE
            if n and (none.any(axis=1) != none.all(axis=1)).any():
                raise ValueError(f"{where}: a row of match_win must be {MATCH_NONE} in every seat (no result) or in none")
        if ml is not None:
            ml = ml.astype(np.int64)
            if n and not np.isin(ml, (0, 1, MATCH_NONE)).all():
                raise ValueError(f"{where}: match_lose must be 0, 1 or {MATCH_NONE} (no result in this row)")
            if not np.array_equal(ml == MATCH_NONE, none):
                raise ValueError(f"{where}: match_lose must be {MATCH_NONE} exactly where match_win is")
            if ((ml == 1) & (mw == 1)).any():
                raise ValueError(f"{where}: a player cannot both win and lose a match (match_win and match_lose both 1)")
        if self.teams[c] and mw is not None:
            for name, x in (("match_win", mw), ("match_lose", ml)):
                if x is not None and not np.array_equal(x[:, :2], x[:, 2:]):
                    raise ValueError(f"{where}: partners (seats s and s + 2) must share the team's {name} in a 2 v 2 study")
        if hd is not None:
            hd = hd.astype(np.int64)
            if n and not np.isin(hd, (0, 1, MATCH_NONE)).all():
                raise ValueError(f"{where}: hand_decided must be 0, 1 or {MATCH_NONE} (no result in this row)")
        tb = out["tiebreaks"]
        if tb is not None:
            tb = tb.astype(np.int64)
            if n and tb.min() < TIEBREAK_NONE:
                raise ValueError(f"{where}: tiebreaks must be >= 0, or {TIEBREAK_NONE} for no result")
        score = out["score"].astype(np.int64)
        flags = out["flags"].astype(np.int64)
        local = self._pos_local[l][policy]  # (n, P) local policy index per seat
        nl = len(self._names[l])
        sums = np.zeros((_NM, n, nl), dtype=np.int64)  # per-deal sums over the policy's seats
        is_out = (flags & FLAG_OUT) != 0
        is_hand = (flags & FLAG_HAND) != 0
        unopened = (flags & FLAG_OPENED) == 0
        joker = (flags & FLAG_JOKER_LEFT) != 0
        jsums = np.zeros((n, nl), dtype=np.int64)
        for j in range(nl):
            m = local == j
            sums[0, :, j] = np.where(m, score, 0).sum(axis=1)
            sums[1, :, j] = (m & is_out).sum(axis=1)
            sums[2, :, j] = (m & is_hand).sum(axis=1)
            sums[3, :, j] = (m & unopened).sum(axis=1)
            jsums[:, j] = (m & joker).sum(axis=1)
        # the same results by line-up position (column i: the player at line-up position i)
        seat_of_pos = np.argsort(policy, axis=1, kind="stable")

        def by_pos(x):
            return np.take_along_axis(x, seat_of_pos, axis=1)

        out.update(policy=policy, score=score, flags=flags, turns=turns, void=void, match_win=mw, tiebreaks=tb,
                   match_lose=ml, hand_decided=hd, local=local, sums=sums, is_out=is_out, is_hand=is_hand,
                   unopened=unopened, joker=joker, jsums=jsums, pos_score=by_pos(score), pos_out=by_pos(is_out),
                   pos_hand=by_pos(is_hand), pos_unopened=by_pos(unopened), pos_joker=by_pos(joker))
        # match results: rows with a result, by seat and by line-up position
        out["res_rows"] = out["res_local"] = out["pos_win"] = out["pos_lose"] = out["pos_total"] = None
        out["res_win"] = out["res_lose"] = out["res_total"] = None
        if mw is not None:
            rows = np.flatnonzero(~none[:, 0]) if n else np.zeros(0, dtype=np.intp)
            sp = seat_of_pos[rows]
            out["res_rows"] = rows
            out["res_local"] = local[rows]
            out["res_win"] = mw[rows]
            out["pos_win"] = np.take_along_axis(mw[rows], sp, axis=1)
            if ml is not None:
                out["res_lose"] = ml[rows]
                out["pos_lose"] = np.take_along_axis(ml[rows], sp, axis=1)
            if out["total"] is not None:
                tot = out["total"].astype(np.int64)[rows]
                out["res_total"] = tot
                out["pos_total"] = np.take_along_axis(tot, sp, axis=1)
        return out

    def _apply(self, b: dict[str, Any]) -> None:
        """Add one prepared block to the per-block counters and histograms."""
        c, l, n, P = b["c"], b["l"], b["n"], self.players
        if n == 0:
            return
        names, k = self._names[l], self._k[l]
        local, score, turns, void = b["local"], b["score"], b["turns"], b["void"]
        tb, hd, T = b["tiebreaks"], b["hand_decided"], b["sums"][0]
        rw, rl, rt, rloc = b["res_win"], b["res_lose"], b["res_total"], b["res_local"]
        pw, pl, pt = b["pos_win"], b["pos_lose"], b["pos_total"]
        nr = 0 if rw is None else len(rw)
        for j, g in enumerate(names):
            for s in range(P):
                m = local[:, s] == j
                acc = self._seat[c, l, g, s]
                x = score[m, s]
                acc[_S_ROUNDS] += int(m.sum())
                _add_sums(acc, _S_SCORE, _S_SCORE2, x)
                acc[_S_OUT] += int(b["is_out"][m, s].sum())
                acc[_S_HAND] += int(b["is_hand"][m, s].sum())
                acc[_S_UNOPENED] += int(b["unopened"][m, s].sum())
                self._joker_seat[c, l, g, s] += int(b["joker"][m, s].sum())
                acc[_S_TURNS] += int(turns[m].sum())
                acc[_S_VOID] += int(void[m].sum())
                if rw is not None:
                    mr = rloc[:, s] == j
                    nm = int(mr.sum())
                    w = rw[mr, s]
                    acc[_S_MATCHES] += nm
                    acc[_S_WINS] += int(w.sum())
                    if rl is not None:
                        lz = rl[mr, s]
                        acc[_S_LMATCHES] += nm
                        acc[_S_LOSSES] += int(lz.sum())
                        acc[_S_NEUTRAL] += int(nm - w.sum() - lz.sum())
                    if rt is not None:
                        x = rt[mr, s]
                        acc[_S_TMATCHES] += nm
                        _add_sums(acc, _S_TOTAL, _S_TOTAL2, x)
            pool = self._pool[c, l, g]
            t = T[:, j]
            pool[_P_DEALS] += n
            _add_sums(pool, _P_TSUM, _P_TSUM2, t)
            for mi, idx in ((1, _P_OUT2), (2, _P_HAND2), (3, _P_UNOP2)):
                x = b["sums"][mi, :, j]
                pool[idx] += int((x * x).sum())
            x = b["jsums"][:, j]
            self._joker_pool[c, l, g] += int((x * x).sum())
            if pw is not None:
                mpos = self._pos_local[l] == j
                kj = int(k[j])
                w = pw[:, mpos].sum(axis=1)
                pool[_P_M] += nr
                _add_sums(pool, _P_W, _P_W2, w)
                if pl is not None:
                    lz = pl[:, mpos].sum(axis=1)
                    nu = kj - w - lz
                    pool[_P_LM] += nr
                    _add_sums(pool, _P_L, _P_L2, lz)
                    _add_sums(pool, _P_N, _P_N2, nu)
                if pt is not None:
                    x = pt[:, mpos].sum(axis=1)
                    pool[_P_TM] += nr
                    _add_sums(pool, _P_TOT, _P_TOT2, x)
        # policy contrasts within the deal: d = k_b*T_a - k_a*T_b (a before b in the line-up)
        for ja, jb in itertools.combinations(range(len(names)), 2):
            d = k[jb] * T[:, ja] - k[ja] * T[:, jb]
            v = self._versus[c, l, names[ja], names[jb]]
            v[0] += n
            _add_sums(v, 1, 2, d)
        cl = self._cl[c, l]
        cl[_C_DEALS] += n
        cl[_C_TURNS] += int(turns.sum())
        cl[_C_VOID] += int(void.sum())
        if tb is not None:
            has = tb != TIEBREAK_NONE
            cl[_C_TB_N] += int(has.sum())
            cl[_C_TB_SUM] += int(tb[has].sum())
            cl[_C_TB_POS] += int((tb[has] >= 1).sum())
        if hd is not None:
            has = hd != MATCH_NONE
            cl[_C_HD_N] += int(has.sum())
            cl[_C_HD_SUM] += int((hd[has] == 1).sum())
        # teams (2 v 2): sums over the two partners' line-up positions
        if self.teams[c]:
            for ti, (_, pos) in enumerate(TEAMS):
                pos = list(pos)
                acc = self._team[c, l, ti]
                ts = b["pos_score"][:, pos].sum(axis=1)
                u = b["pos_unopened"][:, pos].sum(axis=1)
                acc[_T_DEALS] += n
                _add_sums(acc, _T_SUM, _T_SUM2, ts)
                acc[_T_OUT] += int(b["pos_out"][:, pos].any(axis=1).sum())
                acc[_T_HAND] += int(b["pos_hand"][:, pos].any(axis=1).sum())
                _add_sums(acc, _T_UNOP, _T_UNOP2, u)
                _add_sums(self._joker_team[c, l, ti], 0, 1, b["pos_joker"][:, pos].sum(axis=1))
                if pw is not None:
                    w = pw[:, pos].max(axis=1)
                    acc[_T_M] += nr
                    acc[_T_W] += int(w.sum())
                    if pl is not None:
                        lz = pl[:, pos].max(axis=1)
                        acc[_T_LM] += nr
                        acc[_T_L] += int(lz.sum())
                        acc[_T_N] += int((nr - w.sum() - lz.sum()))
                    if pt is not None:
                        x = pt[:, pos].sum(axis=1)
                        acc[_T_TM] += nr
                        _add_sums(acc, _T_TOT, _T_TOT2, x)
        # round length histograms
        tmax = int(turns.max())
        self._grow_turns(tmax + 1)
        width = self._turns_hist.shape[2]
        self._turns_hist[c, l] += np.bincount(turns, minlength=width)
        self._void_hist[c, l] += np.bincount(turns[void != 0], minlength=width)
        # score histogram per policy (all seats)
        self._score_hist, self._score_lo = _grow_last(self._score_hist, self._score_lo, int(score.min()), int(score.max()))
        width = self._score_hist.shape[3]
        for j, g in enumerate(names):
            self._score_hist[c, l, g] += np.bincount(score[local == j] - self._score_lo, minlength=width)
        # final match totals per policy (all seats), and per team
        if rt is not None and nr:
            self._total_hist, self._total_lo = _grow_last(self._total_hist, self._total_lo, int(rt.min()), int(rt.max()))
            width = self._total_hist.shape[3]
            for j, g in enumerate(names):
                self._total_hist[c, l, g] += np.bincount(rt[rloc == j] - self._total_lo, minlength=width)
            if self.teams[c]:
                tt = np.stack([pt[:, list(pos)].sum(axis=1) for _, pos in TEAMS])
                self._team_total_hist, self._team_total_lo = _grow_last(
                    self._team_total_hist, self._team_total_lo, int(tt.min()), int(tt.max()))
                width = self._team_total_hist.shape[3]
                for ti in range(len(TEAMS)):
                    self._team_total_hist[c, l, ti] += np.bincount(tt[ti] - self._team_total_lo, minlength=width)
                margin = tt[0] - tt[1]
                self._team_margin_hist, self._team_margin_lo = _grow_last(
                    self._team_margin_hist, self._team_margin_lo, int(margin.min()), int(margin.max()))
                width = self._team_margin_hist.shape[2]
                self._team_margin_hist[c, l] += np.bincount(margin - self._team_margin_lo, minlength=width)

    def _grow_turns(self, width: int) -> None:
        cur = self._turns_hist.shape[2]
        if width > cur:
            pad = ((0, 0), (0, 0), (0, width - cur))
            self._turns_hist = np.pad(self._turns_hist, pad)
            self._void_hist = np.pad(self._void_hist, pad)

    def add_block(self, c: int, l: int, block: DealBlock) -> None:
        """Add the results of one (configuration, line-up) block.

        Only per-block statistics are updated; paired comparisons between configurations and
        between line-ups need :meth:`add_chunk`.

        Parameters
        ----------
        c, l : int
            Configuration index (into ``configs``) and line-up index (into ``lineups``).
        block : DealBlock
            Results of ``n`` deals, by relative seat.

        Raises
        ------
        ValueError
            Bad indices, shapes or dtypes, a ``policy`` row that is not a permutation of the
            line-up positions, negative turns, out-of-range ``void`` / ``match_win`` /
            ``match_lose`` / ``hand_decided`` / ``tiebreaks``, a ``match_win`` row that is
            partly :data:`MATCH_NONE`, ``match_lose`` without result where ``match_win`` has one
            (or the reverse), or match fields without ``match_win``.  Nothing is added when an
            error is raised.
        """
        self._apply(self._prepare(c, l, block))

    def add_chunk(self, blocks: Mapping[tuple[int, int], DealBlock]) -> None:
        """Add every block of one chunk and the paired comparisons between its configurations
        and between its line-ups.

        Parameters
        ----------
        blocks : dict of (int, int) -> DealBlock
            ``blocks[(c, l)]`` for the configurations and line-ups played on this chunk's deals.
            Pairs of configurations (see :attr:`pairs`) are compared for every line-up that has
            blocks of both; pairs of line-ups (see :attr:`lineup_diffs`) for every configuration
            that has blocks of both.

        Raises
        ------
        ValueError
            As :meth:`add_block`, or when the blocks do not all hold the same deal indices in the
            same order, or two line-ups compared hold match results on different rows.  The
            accumulator is unchanged when an error is raised.
        """
        prepared: dict[tuple[int, int], dict[str, Any]] = {}
        ref = None
        for key in sorted(blocks):
            c, l = key
            b = self._prepare(c, l, blocks[key])
            if ref is None:
                ref = (key, b["deal"])
            elif not np.array_equal(b["deal"], ref[1]):
                raise ValueError(f"blocks {ref[0]} and {key} of one chunk hold different deals: "
                                 "every block of a chunk must cover the same deal indices in the same order")
            prepared[(b["c"], b["l"])] = b
        lpairs = []
        for c in range(len(self.configs)):
            for q, (l1, l2, j) in enumerate(self.lineup_diffs):
                b1, b2 = prepared.get((c, l1)), prepared.get((c, l2))
                if b1 is None or b2 is None or b1["n"] == 0:
                    continue
                r1, r2 = b1["res_rows"], b2["res_rows"]
                if r1 is not None and r2 is not None and not np.array_equal(r1, r2):
                    raise ValueError(f"blocks ({c}, {l1}) and ({c}, {l2}) of one chunk hold match results on "
                                     "different rows: line-ups compared must play the same matches")
                lpairs.append((c, q, j, b1, b2))
        for key in sorted(prepared):
            self._apply(prepared[key])
        for q, (c1, c2, _) in enumerate(self.pairs):
            for l in range(len(self.lineups)):
                b1, b2 = prepared.get((c1, l)), prepared.get((c2, l))
                if b1 is None or b2 is None or b1["n"] == 0:
                    continue
                d = b2["sums"] - b1["sums"]  # (metric, n, local policy)
                for j, g in enumerate(self._names[l]):
                    acc = self._pair[q, l, g]
                    acc[0] += b1["n"]
                    for mi in range(_NM):
                        x = d[mi, :, j]
                        _add_sums(acc, 1 + 2 * mi, 2 + 2 * mi, x)
                    _add_sums(self._joker_pair[q, l, g], 0, 1, b2["jsums"][:, j] - b1["jsums"][:, j])
        for c, q, j, b1, b2 in lpairs:
            self._add_lineup_pair(c, q, j, b1, b2)

    def _add_lineup_pair(self, c: int, q: int, j: int, ba: dict[str, Any], bb: dict[str, Any]) -> None:
        """Per-deal (per-match) differences ``a - b`` of line-up position ``j`` and its team."""
        acc = self._lpair[c, q]
        team = [j, (j + 2) % 4] if self.teams[c] else None
        d = ba["pos_score"][:, j] - bb["pos_score"][:, j]
        acc[_LP_N] += ba["n"]
        _add_sums(acc, _LP_S, _LP_S2, d)
        if team is not None:
            d = ba["pos_score"][:, team].sum(axis=1) - bb["pos_score"][:, team].sum(axis=1)
            _add_sums(acc, _LP_TS, _LP_TS2, d)
        ta, tb = ba["pos_total"], bb["pos_total"]
        if ta is not None and tb is not None:
            d = ta[:, j] - tb[:, j]
            acc[_LP_M] += len(d)
            _add_sums(acc, _LP_TOT, _LP_TOT2, d)
            if team is not None:
                d = ta[:, team].sum(axis=1) - tb[:, team].sum(axis=1)
                _add_sums(acc, _LP_TTOT, _LP_TTOT2, d)
        for name, (im, i1, i2) in (("pos_win", (_LP_WM, _LP_W, _LP_W2)), ("pos_lose", (_LP_LM, _LP_L, _LP_L2))):
            xa, xb = ba[name], bb[name]
            if xa is not None and xb is not None:
                d = xa[:, j] - xb[:, j]
                acc[im] += len(d)
                _add_sums(acc, i1, i2, d)

    # ------------------------------------------------------------------ checkpoint / merge

    _ARRAYS = ("seat", "pool", "cl", "team", "pair", "versus", "lpair")
    # histogram arrays, their first-value attribute, and how many leading axes are fixed by the study
    _HISTS = (("score_hist", "score_lo", 3), ("total_hist", "total_lo", 3), ("team_total_hist", "team_total_lo", 3))
    # value checks of a saved state (:func:`check_counters`): signed columns and (sum, squares) pairs
    _LAYOUT = {
        "seat": ((_S_SCORE, _S_TOTAL), ((_S_SCORE, _S_SCORE2), (_S_TOTAL, _S_TOTAL2))),
        "pool": ((_P_TSUM, _P_TOT), ((_P_TSUM, _P_TSUM2), (_P_TOT, _P_TOT2), (_P_W, _P_W2), (_P_L, _P_L2),
                                     (_P_N, _P_N2))),
        "cl": ((), ()),
        "team": ((_T_SUM, _T_TOT), ((_T_SUM, _T_SUM2), (_T_UNOP, _T_UNOP2), (_T_TOT, _T_TOT2))),
        "pair": (tuple(range(1, _NQ, 2)), tuple((i, i + 1) for i in range(1, _NQ, 2))),
        "versus": ((1,), ((1, 2),)),
        "lpair": ((_LP_S, _LP_TS, _LP_TOT, _LP_TTOT, _LP_W, _LP_L),
                  tuple((i, i + 1) for i in (_LP_S, _LP_TS, _LP_TOT, _LP_TTOT, _LP_W, _LP_L))),
        "turns_hist": ((), ()), "void_hist": ((), ()),
        "score_hist": ((), ()), "total_hist": ((), ()), "team_total_hist": ((), ()), "team_margin_hist": ((), ()),
        "score_lo": ("all", ()), "total_lo": ("all", ()), "team_total_lo": ("all", ()), "team_margin_lo": ("all", ()),
        "joker_seat": ((), ()), "joker_pool": ((), ()), "joker_team": ((), ((0, 1),)), "joker_pair": ((0,), ((0, 1),)),
    }

    def state(self) -> dict[str, np.ndarray]:
        """Everything needed to resume: a dict of numpy arrays (``np.savez`` friendly).

        Returns
        -------
        dict of str -> ndarray
            ``meta`` (UTF-8 JSON of the format, configs, line-ups, players, varying and teams as
            ``uint8``) and the ``int64`` counters (the ``joker_*`` counters only when
            :attr:`joker_recorded`, ``team_margin_hist`` / ``team_margin_lo`` only when
            :attr:`margin_recorded`).  The arrays are copies.  The state is canonical:
            the same deals give byte-identical arrays whatever the order of the chunks or merges
            (histograms span exactly the observed range).
        """
        meta = json.dumps(self._meta(), sort_keys=True).encode("utf-8")
        out = {"meta": np.frombuffer(meta, dtype=np.uint8).copy()}
        for name in self._ARRAYS:
            out[name] = getattr(self, "_" + name).copy()
        out["turns_hist"] = self._turns_hist.copy()
        out["void_hist"] = self._void_hist.copy()
        for name, lo, _ in self._HISTS:
            out[name] = getattr(self, "_" + name).copy()
            out[lo] = np.array([getattr(self, "_" + lo)], dtype=np.int64)
        if self.joker_recorded:
            for name in _JOKER_ARRAYS:
                out[name] = getattr(self, "_" + name).copy()
        if self.margin_recorded:
            name, lo, _ = _MARGIN_HIST
            out[name] = getattr(self, "_" + name).copy()
            out[lo] = np.array([getattr(self, "_" + lo)], dtype=np.int64)
        return out

    @classmethod
    def from_state(cls, state: Mapping[str, np.ndarray], **expected: Any) -> "StudyAccumulator":
        """Rebuild an accumulator from :meth:`state` (e.g. loaded with ``np.load``).

        Parameters
        ----------
        state : mapping of str -> ndarray
        **expected
            Optional ``configs``, ``lineups``, ``players``, ``varying``, ``teams``: checked against
            the saved ones.

        Raises
        ------
        ValueError
            Missing or malformed arrays, a state written by another version of handsim (another
            state format: such a checkpoint cannot be resumed, run the study again), or a mismatch
            with ``expected``.

        Notes
        -----
        A state without the ``joker_*`` counters (saved before handsim counted the rounds that
        end with a joker in hand) is read with :attr:`joker_recorded` False: ``p_joker_left``
        and its differences are NaN, also after more deals are added to it.  Likewise a state
        without ``team_margin_hist`` (saved before the team margin was counted) is read with
        :attr:`margin_recorded` False: the margin is then not reported.
        """
        try:
            meta = json.loads(bytes(np.asarray(state["meta"], dtype=np.uint8)).decode("utf-8"))
        except (KeyError, ValueError) as e:
            raise ValueError(f"not a StudyAccumulator state: {e}") from None
        fmt = meta.get("format") if isinstance(meta, dict) else None
        if fmt != _STATE_FORMAT:
            raise ValueError(f"unsupported state format {fmt!r}: this version of handsim reads format {_STATE_FORMAT} "
                             "(format 1 came before match totals and team statistics); "
                             "results saved by another version cannot be resumed: run the study again")
        acc = cls(meta["configs"], [tuple(x) for x in meta["lineups"]], meta["players"], meta["varying"],
                  teams=meta.get("teams", False))
        check_counters(state, cls._LAYOUT)
        if expected:
            other = cls(expected.get("configs", acc.configs), expected.get("lineups", acc.lineups),
                        expected.get("players", acc.players), expected.get("varying", acc.varying),
                        teams=expected.get("teams", acc.teams))
            if other._meta() != acc._meta():
                raise ValueError("saved state was made for a different study (configs, line-ups, players, varying or teams differ)")
        try:
            for name in cls._ARRAYS:
                x = np.asarray(state[name])
                want = getattr(acc, "_" + name)
                if x.shape != want.shape:
                    raise ValueError(f"state array {name} has shape {x.shape}, expected {want.shape}")
                setattr(acc, "_" + name, x.astype(np.int64, copy=True))
            th, vh = (np.asarray(state[k]).astype(np.int64, copy=True) for k in ("turns_hist", "void_hist"))
            if th.shape[:2] != acc._turns_hist.shape[:2] or vh.shape != th.shape:
                raise ValueError("state histograms do not match the study shape")
            acc._turns_hist, acc._void_hist = th, vh
            for name, lo, fixed in cls._HISTS:
                h = np.asarray(state[name]).astype(np.int64, copy=True)
                if h.ndim != fixed + 1 or h.shape[:fixed] != getattr(acc, "_" + name).shape[:fixed]:
                    raise ValueError(f"state histogram {name} does not match the study shape")
                setattr(acc, "_" + name, h)
                setattr(acc, "_" + lo, int(np.asarray(state[lo]).reshape(-1)[0]))
        except KeyError as e:
            raise ValueError(f"state array {e.args[0]!r} is missing") from None
        # the joker counters came later (same state format): a checkpoint without them is read,
        # and the share of rounds ending with a joker in hand is then not known (NaN)
        have = [name for name in _JOKER_ARRAYS if name in state]
        if not have:
            acc.joker_recorded = False
        elif len(have) < len(_JOKER_ARRAYS):
            missing = sorted(set(_JOKER_ARRAYS) - set(have))
            raise ValueError(f"state array {missing[0]!r} is missing")
        else:
            for name in _JOKER_ARRAYS:
                x = np.asarray(state[name])
                want = getattr(acc, "_" + name)
                if x.shape != want.shape:
                    raise ValueError(f"state array {name} has shape {x.shape}, expected {want.shape}")
                setattr(acc, "_" + name, x.astype(np.int64, copy=True))
        name, lo, fixed = _MARGIN_HIST
        if name not in state:
            acc.margin_recorded = False
        else:
            if lo not in state:
                raise ValueError(f"state array {lo!r} is missing")
            h = np.asarray(state[name]).astype(np.int64, copy=True)
            if h.ndim != fixed + 1 or h.shape[:fixed] != acc._team_margin_hist.shape[:fixed]:
                raise ValueError(f"state histogram {name} does not match the study shape")
            acc._team_margin_hist = h
            acc._team_margin_lo = int(np.asarray(state[lo]).reshape(-1)[0])
        acc._check_totals()
        return acc

    def _check_totals(self) -> None:
        """The cheap sums of a state read from a checkpoint that must agree (ValueError naming them)."""
        deals = self._cl[:, :, _C_DEALS]
        check_totals("turns_hist", self._turns_hist.sum(axis=2), "cl", deals, "rounds")
        check_totals("turns_hist", self._turns_hist @ np.arange(self._turns_hist.shape[2]), "cl",
                     self._cl[:, :, _C_TURNS], "turns")
        check_totals("void_hist", self._void_hist.sum(axis=2), "turns_hist", self._turns_hist.sum(axis=2),
                     "void rounds", most=True)
        for col, unit in ((_C_VOID, "void rounds"), (_C_TB_N, "matches with a tie-break count"),
                          (_C_HD_N, "matches with a Hand-decided flag")):
            check_totals("cl", self._cl[:, :, col], "cl", deals, unit, most=True)
        rounds = self._seat[..., _S_ROUNDS]
        for col, unit in ((_S_OUT, "rounds gone out"), (_S_HAND, "Hands"), (_S_UNOPENED, "unopened rounds")):
            check_totals("seat", self._seat[..., col], "seat", rounds, unit, most=True)
        h = self._score_hist
        check_totals("score_hist", h.sum(axis=3), "seat", rounds.sum(axis=3), "rounds")
        check_totals("score_hist", h @ np.arange(self._score_lo, self._score_lo + h.shape[3]), "seat",
                     self._seat[..., _S_SCORE].sum(axis=3), "points")
        if self.joker_recorded:
            check_totals("joker_seat", self._joker_seat, "seat", rounds, "rounds", most=True)

    def merge(self, other: "StudyAccumulator") -> "StudyAccumulator":
        """Add another accumulator of the same study (disjoint deals) into this one.

        Returns
        -------
        StudyAccumulator
            ``self``.

        Raises
        ------
        ValueError
            If the studies differ (configs, line-ups, players, varying or teams).
        """
        if other._meta() != self._meta():
            raise ValueError("cannot merge accumulators of different studies (configs, line-ups, players, varying or teams differ)")
        for name in self._ARRAYS + _JOKER_ARRAYS:
            getattr(self, "_" + name)[...] += getattr(other, "_" + name)
        self.joker_recorded = self.joker_recorded and other.joker_recorded
        self.margin_recorded = self.margin_recorded and other.margin_recorded
        if other._turns_hist.shape[2]:
            self._grow_turns(other._turns_hist.shape[2])
            w = other._turns_hist.shape[2]
            self._turns_hist[:, :, :w] += other._turns_hist
            self._void_hist[:, :, :w] += other._void_hist
        for name, lo_name, _ in self._HISTS + (_MARGIN_HIST,):
            h = getattr(other, "_" + name)
            w = h.shape[-1]
            if not w:
                continue
            lo = getattr(other, "_" + lo_name)
            mine, mine_lo = _grow_last(getattr(self, "_" + name), getattr(self, "_" + lo_name), lo, lo + w - 1)
            off = lo - mine_lo
            mine[..., off:off + w] += h
            setattr(self, "_" + name, mine)
            setattr(self, "_" + lo_name, mine_lo)
        return self

    # ------------------------------------------------------------------ results

    def _config_cols(self, c: int) -> dict[str, Any]:
        return {v: self.configs[c][v] for v in self.varying}

    def _typed_frame(self, rows: list[dict[str, Any]], columns: list[str]) -> pd.DataFrame:
        if not rows:
            return pd.DataFrame({col: pd.Series(dtype=object) for col in columns})
        return pd.DataFrame.from_records(rows, columns=columns)

    #: Columns of :meth:`summary` after the varying options.
    SUMMARY_COLUMNS = (
        "lineup", "policy", "seat", "rounds", "deals", "mean_score", "sd_score", "se_score", "ci95_low", "ci95_high",
        "p_out", "p_out_ci95_low", "p_out_ci95_high", "p_hand", "p_hand_ci95_low", "p_hand_ci95_high",
        "p_unopened", "p_unopened_ci95_low", "p_unopened_ci95_high",
        "p_joker_left", "p_joker_left_ci95_low", "p_joker_left_ci95_high", "mean_turns", "void_rate",
        "matches", "match_win_rate", "match_win_rate_ci95_low", "match_win_rate_ci95_high",
        "match_lose_rate", "match_lose_rate_ci95_low", "match_lose_rate_ci95_high",
        "match_neutral_rate", "match_neutral_rate_ci95_low", "match_neutral_rate_ci95_high",
        "mean_final_total", "final_total_ci95_low", "final_total_ci95_high",
        "mean_tiebreaks", "tiebreak_rate", "tiebreak_rate_ci95_low", "tiebreak_rate_ci95_high",
        "hand_decided_rate", "hand_decided_rate_ci95_low", "hand_decided_rate_ci95_high",
    )

    def summary(self) -> pd.DataFrame:
        """One row per configuration x line-up x policy x seat (``"all"`` first, then ``"0"`` .. ``"P-1"``),
        then, in partnership configurations, one row per team (``"team A"``, ``"team B"``).

        Returns
        -------
        pandas.DataFrame
            Columns: every varying option (its RULES.md name); ``lineup`` (policy names joined by
            ``","``); ``policy`` (for a team: its two policies joined by ``" & "``, positions 1 & 3
            or 2 & 4); ``seat``; ``rounds`` (player-rounds observed; team rows: deals); ``deals``
            (deals; equals ``rounds`` for one seat); ``mean_score`` (points per round; team rows:
            the team's sum), ``sd_score`` (sd of one player's round score; team rows: of the team
            sum), ``se_score``, ``ci95_low``, ``ci95_high`` (Student-t; for ``"all"`` from the
            per-deal means over the policy's seats); ``p_out``, ``p_hand``, ``p_unopened`` each with
            ``*_ci95_low`` and ``*_ci95_high`` (per seat: Wilson over player-rounds; ``"all"``: the
            deal as unit, see the module docstring; team rows: ``p_out`` / ``p_hand`` = share of
            deals in which either partner went out / went out with a Hand, Wilson; ``p_unopened`` =
            share of the team's player-rounds without an opening, deal as unit); ``p_joker_left``
            with ``*_ci95_low/high``: the share of player-rounds that end with at least one joker
            in the player's hand (void rounds included; team rows: of the team's player-rounds,
            deal as unit), NaN for a study whose checkpoint predates this count
            (:attr:`joker_recorded`);
            ``mean_turns`` (turns per round), ``void_rate``.

            Match columns (NaN when no matches were played): ``matches`` (player-matches: for
            ``"all"`` ``k`` times the matches of a policy holding ``k`` seats; team rows: matches);
            ``match_win_rate``, ``match_lose_rate`` (``standings = last_loses``: the single
            highest total; 0 under ``lowest_wins``), ``match_neutral_rate`` (neither won nor lost:
            1 - win - lose, so 1 - win under ``lowest_wins``), each with ``*_ci95_low/high``
            (per seat and team: Wilson over matches; ``"all"``: the match as unit);
            ``mean_final_total`` (points of a player's, or a team's, final match total, tie-break
            rounds included) with ``final_total_ci95_low/high`` (Student-t; ``"all"``: per-match
            mean of the policy's totals).  Per configuration and line-up (the same on each row of
            the group): ``mean_tiebreaks`` (tie-break rounds per match), ``tiebreak_rate`` (share
            of matches that needed at least one tie-break round) and ``hand_decided_rate`` (share of
            matches decided by a single Hand: without one Hand round the winner would differ or be
            tied), each with Wilson ``*_ci95_low/high``.

            ``p_unopened`` counts the player-rounds whose ``flags`` lack :data:`FLAG_OPENED`, void
            rounds included.  Only configurations and line-ups with at least one deal appear.
            Order: configs, then line-ups, then policies (line-up order) and seats, then teams.
        """
        P = self.players
        columns = list(self.varying) + list(self.SUMMARY_COLUMNS)
        rows: list[dict[str, Any]] = []
        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                cl = [int(x) for x in self._cl[c, l]]
                D = cl[_C_DEALS]
                if D == 0:
                    continue
                group = {
                    "mean_tiebreaks": cl[_C_TB_SUM] / cl[_C_TB_N] if cl[_C_TB_N] else math.nan,
                    "tiebreak_rate": _prop(1, cl[_C_TB_N], cl[_C_TB_POS], 0),
                    "hand_decided_rate": _prop(1, cl[_C_HD_N], cl[_C_HD_SUM], 0),
                }
                cl_turns, cl_void = cl[_C_TURNS] / D, cl[_C_VOID] / D
                for j, g in enumerate(self._names[l]):
                    k = int(self._k[l][j])
                    seat_acc = self._seat[c, l, g]
                    tot = [int(x) for x in seat_acc.sum(axis=0)]
                    pool = [int(x) for x in self._pool[c, l, g]]
                    deals = pool[_P_DEALS]
                    # "all": the deal (match) as unit, from the per-unit sums over the policy's k seats
                    mean, _, se, lo, hi = _moments(deals, pool[_P_TSUM], pool[_P_TSUM2], scale=k)
                    _, sd, _, _, _ = _moments(tot[_S_ROUNDS], tot[_S_SCORE], tot[_S_SCORE2])
                    rates = {
                        "p_out": _prop(k, deals, tot[_S_OUT], pool[_P_OUT2]),
                        "p_hand": _prop(k, deals, tot[_S_HAND], pool[_P_HAND2]),
                        "p_unopened": _prop(k, deals, tot[_S_UNOPENED], pool[_P_UNOP2]),
                        "p_joker_left": self._joker_rate(k, deals, int(self._joker_seat[c, l, g].sum()),
                                                         int(self._joker_pool[c, l, g])),
                        "match_win_rate": _prop(k, pool[_P_M], pool[_P_W], pool[_P_W2]),
                        "match_lose_rate": _prop(k, pool[_P_LM], pool[_P_L], pool[_P_L2]),
                        "match_neutral_rate": _prop(k, pool[_P_LM], pool[_P_N], pool[_P_N2]),
                    }
                    ftot = _moments(pool[_P_TM], pool[_P_TOT], pool[_P_TOT2], scale=k)
                    row = self._row(c, lu, self.policies[g], "all", tot[_S_ROUNDS], deals,
                                    (mean, sd, se, lo, hi), rates, cl_turns, cl_void, tot[_S_MATCHES], ftot, group)
                    rows.append(row)
                    for s in range(P):
                        a = [int(x) for x in seat_acc[s]]
                        n = a[_S_ROUNDS]
                        rates = {
                            "p_out": _prop(1, n, a[_S_OUT], 0),
                            "p_hand": _prop(1, n, a[_S_HAND], 0),
                            "p_unopened": _prop(1, n, a[_S_UNOPENED], 0),
                            "p_joker_left": self._joker_rate(1, n, int(self._joker_seat[c, l, g, s]), 0),
                            "match_win_rate": _prop(1, a[_S_MATCHES], a[_S_WINS], 0),
                            "match_lose_rate": _prop(1, a[_S_LMATCHES], a[_S_LOSSES], 0),
                            "match_neutral_rate": _prop(1, a[_S_LMATCHES], a[_S_NEUTRAL], 0),
                        }
                        rows.append(self._row(c, lu, self.policies[g], str(s), n, n,
                                              _moments(n, a[_S_SCORE], a[_S_SCORE2]), rates,
                                              a[_S_TURNS] / n if n else math.nan, a[_S_VOID] / n if n else math.nan,
                                              a[_S_MATCHES], _moments(a[_S_TMATCHES], a[_S_TOTAL], a[_S_TOTAL2]),
                                              group))
                if self.teams[c]:
                    for ti, (label, pos) in enumerate(TEAMS):
                        t = [int(x) for x in self._team[c, l, ti]]
                        n = t[_T_DEALS]
                        rates = {
                            "p_out": _prop(1, n, t[_T_OUT], 0),
                            "p_hand": _prop(1, n, t[_T_HAND], 0),
                            "p_unopened": _prop(len(pos), n, t[_T_UNOP], t[_T_UNOP2]),
                            "p_joker_left": self._joker_rate(len(pos), n, *(int(x) for x in self._joker_team[c, l, ti])),
                            "match_win_rate": _prop(1, t[_T_M], t[_T_W], 0),
                            "match_lose_rate": _prop(1, t[_T_LM], t[_T_L], 0),
                            "match_neutral_rate": _prop(1, t[_T_LM], t[_T_N], 0),
                        }
                        rows.append(self._row(c, lu, _team_label(lu, pos), label, n, n,
                                              _moments(n, t[_T_SUM], t[_T_SUM2]), rates, cl_turns, cl_void,
                                              t[_T_M], _moments(t[_T_TM], t[_T_TOT], t[_T_TOT2]), group))
        df = self._typed_frame(rows, columns)
        return df.reset_index(drop=True)

    def _joker_rate(self, k: int, n: int, s1: int, s2: int) -> tuple[float, float, float]:
        """``p_joker_left`` and its interval as :func:`_prop`; NaN when not recorded."""
        if not self.joker_recorded:
            return (math.nan, math.nan, math.nan)
        return _prop(k, n, s1, s2)

    def _row(self, c, lu, policy, seat, rounds, deals, moments, rates, mturns, vrate, matches, ftot, group):
        mean, sd, se, lo, hi = moments
        row = self._config_cols(c)
        row.update(lineup=",".join(lu), policy=policy, seat=seat, rounds=rounds, deals=deals,
                   mean_score=mean, sd_score=sd, se_score=se, ci95_low=lo, ci95_high=hi)
        for name in ("p_out", "p_hand", "p_unopened", "p_joker_left"):
            row[name], row[name + "_ci95_low"], row[name + "_ci95_high"] = rates[name]
        row["mean_turns"] = mturns
        row["void_rate"] = vrate
        row["matches"] = matches
        for name in ("match_win_rate", "match_lose_rate", "match_neutral_rate"):
            row[name], row[name + "_ci95_low"], row[name + "_ci95_high"] = rates[name]
        row["mean_final_total"], row["final_total_ci95_low"], row["final_total_ci95_high"] = ftot[0], ftot[3], ftot[4]
        row["mean_tiebreaks"] = group["mean_tiebreaks"]
        for name in ("tiebreak_rate", "hand_decided_rate"):
            row[name], row[name + "_ci95_low"], row[name + "_ci95_high"] = group[name]
        return row

    def paired(self) -> pd.DataFrame:
        """Paired differences between configurations that differ in exactly one option.

        For every pair ``(c1, c2)`` in :attr:`pairs` (``c1 < c2``), every line-up and every policy
        of it: the per-deal difference (``c2 - c1``) of the policy's mean score over its seats, on
        the deals both configurations played (chunks added with :meth:`add_chunk`).

        Returns
        -------
        pandas.DataFrame
            Columns ``lineup``, ``policy``, ``parameter`` (the option that differs),
            ``from_value`` (its value in ``c1``), ``to_value`` (in ``c2``), every varying option
            (the shared value; missing for ``parameter`` itself), ``deals``, ``mean_diff``
            (points per round), ``sd_diff``, ``ci95_low``, ``ci95_high`` (Student-t), ``p_value``
            (two-sided paired t test), and the same for the proportions as differences of
            probabilities: ``p_out_diff``, ``p_hand_diff``, ``p_unopened_diff``,
            ``p_joker_left_diff`` (NaN when not :attr:`joker_recorded`), each with ``*_ci95_low``
            and ``*_ci95_high``.  Order: line-ups, pairs, policies.
        """
        columns = ["lineup", "policy", "parameter", "from_value", "to_value"] + list(self.varying) + [
            "deals", "mean_diff", "sd_diff", "ci95_low", "ci95_high", "p_value"]
        for m in _METRICS[1:] + ("p_joker_left",):
            columns += [f"{m}_diff", f"{m}_diff_ci95_low", f"{m}_diff_ci95_high"]
        rows: list[dict[str, Any]] = []
        for l, lu in enumerate(self.lineups):
            for q, (c1, c2, opt) in enumerate(self.pairs):
                for j, g in enumerate(self._names[l]):
                    acc = [int(x) for x in self._pair[q, l, g]]
                    D = acc[0]
                    if D == 0:
                        continue
                    k = int(self._k[l][j])
                    row: dict[str, Any] = {"lineup": ",".join(lu), "policy": self.policies[g], "parameter": opt,
                                           "from_value": self.configs[c1][opt], "to_value": self.configs[c2][opt]}
                    for v in self.varying:
                        row[v] = None if v == opt else self.configs[c1][v]
                    mean, sd, se, lo, hi = _moments(D, acc[1], acc[2], scale=k)
                    row.update(deals=D, mean_diff=mean, sd_diff=sd, ci95_low=lo, ci95_high=hi,
                               p_value=_t_pvalue(mean, se, D))
                    for mi, m in enumerate(_METRICS[1:], start=1):
                        mean, _, _, lo, hi = _moments(D, acc[1 + 2 * mi], acc[2 + 2 * mi], scale=k)
                        row[f"{m}_diff"], row[f"{m}_diff_ci95_low"], row[f"{m}_diff_ci95_high"] = mean, lo, hi
                    if self.joker_recorded:
                        j1, j2 = (int(x) for x in self._joker_pair[q, l, g])
                        mean, _, _, lo, hi = _moments(D, j1, j2, scale=k)
                    else:
                        mean = lo = hi = math.nan
                    row["p_joker_left_diff"], row["p_joker_left_diff_ci95_low"] = mean, lo
                    row["p_joker_left_diff_ci95_high"] = hi
                    rows.append(row)
        if not rows:
            return self._typed_frame(rows, columns)
        data = {}
        for col in columns:
            vals = [r[col] for r in rows]
            if col in self.varying:
                data[col] = pd.array(vals) if any(v is None for v in vals) else vals
            elif col in ("from_value", "to_value"):
                data[col] = pd.Series(vals, dtype=object)
            else:
                data[col] = vals
        return pd.DataFrame(data, columns=columns)

    def versus(self) -> pd.DataFrame:
        """Within-deal contrasts between the policies of one line-up (same configuration).

        Returns
        -------
        pandas.DataFrame
            One row per configuration x line-up x pair of distinct policies ``(policy_a,
            policy_b)`` in line-up order.  Columns: every varying option, ``lineup``,
            ``policy_a``, ``policy_b``, ``deals``, ``mean_a``, ``mean_b`` (points per round),
            ``mean_diff`` (``a - b``, per-deal difference of the two policies' mean scores),
            ``ci95_low``, ``ci95_high`` (Student-t over deals), ``p_value``.
        """
        columns = list(self.varying) + ["lineup", "policy_a", "policy_b", "deals", "mean_a", "mean_b",
                                        "mean_diff", "ci95_low", "ci95_high", "p_value"]
        rows: list[dict[str, Any]] = []
        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                names, k = self._names[l], self._k[l]
                for ja, jb in itertools.combinations(range(len(names)), 2):
                    ga, gb = names[ja], names[jb]
                    acc = [int(x) for x in self._versus[c, l, ga, gb]]
                    if acc[0] == 0:
                        continue
                    ka, kb = int(k[ja]), int(k[jb])
                    mean, _, se, lo, hi = _moments(acc[0], acc[1], acc[2], scale=ka * kb)
                    pa, pb = self._pool[c, l, ga], self._pool[c, l, gb]
                    row = self._config_cols(c)
                    row.update(lineup=",".join(lu), policy_a=self.policies[ga], policy_b=self.policies[gb],
                               deals=acc[0], mean_a=int(pa[_P_TSUM]) / (ka * int(pa[_P_DEALS])),
                               mean_b=int(pb[_P_TSUM]) / (kb * int(pb[_P_DEALS])),
                               mean_diff=mean, ci95_low=lo, ci95_high=hi, p_value=_t_pvalue(mean, se, acc[0]))
                    rows.append(row)
        return self._typed_frame(rows, columns)

    def lineup_pairs(self) -> pd.DataFrame:
        """Line-ups that differ in one position, compared on the same deals (matches).

        For every pair ``(l1, l2)`` in :attr:`lineup_diffs` (``l1 < l2``, differing only at line-up
        position ``i``) and every configuration: the per-deal difference (line-up ``a = l1`` minus
        line-up ``b = l2``, as in :meth:`versus`: list the line-up of interest first and its
        baseline after it) of the score of the player at position ``i`` -- the same deals, dealer
        and seat in both line-ups, so the difference is paired -- and, in a partnership
        configuration, of that position's team score (positions ``i`` and ``i + 2``).  With match results, the same per match for
        the final match total and for winning and losing the match.  Chunks must be added with
        :meth:`add_chunk`.

        Returns
        -------
        pandas.DataFrame
            Columns: every varying option; ``lineup_a`` (``l1``), ``lineup_b`` (``l2``),
            ``position`` (1-based, as line-ups are written), ``policy_a``, ``policy_b`` (the policies
            at that position); differences are ``a - b``:
            ``deals``, ``mean_diff`` (points per round), ``sd_diff``, ``ci95_low``, ``ci95_high``
            (Student-t), ``p_value`` (two-sided paired t test); ``team`` (``"team A"`` /
            ``"team B"``, empty without teams), ``team_diff`` (team points per round) with
            ``team_diff_ci95_low/high`` and ``team_p_value``; ``matches``, ``total_diff`` (final
            match total of the position, points) with ``total_diff_ci95_low/high`` and
            ``total_p_value``, ``team_total_diff`` with ``team_total_diff_ci95_low/high``,
            ``match_win_diff`` and ``match_lose_diff`` (differences of probabilities) with
            ``*_ci95_low/high``.  NaN where a quantity was not observed.  Order: configurations,
            then pairs.
        """
        columns = list(self.varying) + [
            "lineup_a", "lineup_b", "position", "policy_a", "policy_b", "deals", "mean_diff", "sd_diff",
            "ci95_low", "ci95_high", "p_value", "team", "team_diff", "team_diff_ci95_low", "team_diff_ci95_high",
            "team_p_value", "matches", "total_diff", "total_diff_ci95_low", "total_diff_ci95_high", "total_p_value",
            "team_total_diff", "team_total_diff_ci95_low", "team_total_diff_ci95_high",
            "match_win_diff", "match_win_diff_ci95_low", "match_win_diff_ci95_high",
            "match_lose_diff", "match_lose_diff_ci95_low", "match_lose_diff_ci95_high"]
        rows: list[dict[str, Any]] = []
        for c in range(len(self.configs)):
            for q, (l1, l2, j) in enumerate(self.lineup_diffs):
                a = [int(x) for x in self._lpair[c, q]]
                D = a[_LP_N]
                if D == 0:
                    continue
                row = self._config_cols(c)
                row.update(lineup_a=",".join(self.lineups[l1]), lineup_b=",".join(self.lineups[l2]),
                           position=j + 1, policy_a=self.lineups[l1][j], policy_b=self.lineups[l2][j])
                mean, sd, se, lo, hi = _moments(D, a[_LP_S], a[_LP_S2])
                row.update(deals=D, mean_diff=mean, sd_diff=sd, ci95_low=lo, ci95_high=hi, p_value=_t_pvalue(mean, se, D))
                nan3 = (math.nan, math.nan, math.nan, math.nan, math.nan)
                if self.teams[c]:
                    team = next(label for label, pos in TEAMS if j in pos)
                    tm, _, tse, tlo, thi = _moments(D, a[_LP_TS], a[_LP_TS2])
                    row.update(team=team, team_diff=tm, team_diff_ci95_low=tlo, team_diff_ci95_high=thi,
                               team_p_value=_t_pvalue(tm, tse, D))
                else:
                    row.update(team="", team_diff=math.nan, team_diff_ci95_low=math.nan,
                               team_diff_ci95_high=math.nan, team_p_value=math.nan)
                M = a[_LP_M]
                mean, _, se, lo, hi = _moments(M, a[_LP_TOT], a[_LP_TOT2]) if M else nan3
                row.update(matches=max(M, a[_LP_WM]), total_diff=mean, total_diff_ci95_low=lo,
                           total_diff_ci95_high=hi, total_p_value=_t_pvalue(mean, se, M))
                mean, _, _, lo, hi = _moments(M, a[_LP_TTOT], a[_LP_TTOT2]) if M and self.teams[c] else nan3
                row.update(team_total_diff=mean, team_total_diff_ci95_low=lo, team_total_diff_ci95_high=hi)
                for name, (im, i1, i2) in (("match_win_diff", (_LP_WM, _LP_W, _LP_W2)),
                                           ("match_lose_diff", (_LP_LM, _LP_L, _LP_L2))):
                    mean, _, _, lo, hi = _moments(a[im], a[i1], a[i2]) if a[im] else nan3
                    row.update({name: mean, name + "_ci95_low": lo, name + "_ci95_high": hi})
                rows.append(row)
        return self._typed_frame(rows, columns)

    def total_quantiles(self) -> pd.DataFrame:
        """Distribution of the final match totals: quantiles per policy (all its seats) and per team.

        Returns
        -------
        pandas.DataFrame
            One row per configuration x line-up x policy (``seat`` = ``"all"``; observations are
            player-matches), then, in partnership configurations, per team (``seat`` =
            ``"team A"`` / ``"team B"``, ``policy`` the two policies joined by ``" & "``; the team
            total is the sum of the partners' totals).  Columns: every varying option, ``lineup``,
            ``policy``, ``seat``, ``matches`` (observations), ``mean_final_total``, ``min``,
            ``p10``, ``p25``, ``p50``, ``p75``, ``p90``, ``max`` (points; quantiles interpolate
            linearly between order statistics, numpy's default).  Only rows with observations.
        """
        qcols = [f"p{round(100 * q)}" for q in QUANTILES]
        columns = list(self.varying) + ["lineup", "policy", "seat", "matches", "mean_final_total", "min"] + qcols + ["max"]
        rows: list[dict[str, Any]] = []

        def one(c, lu, policy, seat, h, lo):
            i = np.flatnonzero(h)
            if not len(i):
                return
            values, counts = i.astype(np.int64) + lo, h[i]
            n = int(counts.sum())
            row = self._config_cols(c)
            row.update(lineup=",".join(lu), policy=policy, seat=seat, matches=n,
                       mean_final_total=int((values * counts).sum()) / n, min=int(values[0]))
            row.update(zip(qcols, (round(float(x), 6) for x in _hist_quantiles(values, counts, QUANTILES))))
            row["max"] = int(values[-1])
            rows.append(row)

        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                if self._total_hist.shape[3]:
                    for g in self._names[l]:
                        one(c, lu, self.policies[g], "all", self._total_hist[c, l, g], self._total_lo)
                if self.teams[c] and self._team_total_hist.shape[3]:
                    for ti, (label, pos) in enumerate(TEAMS):
                        one(c, lu, _team_label(lu, pos), label, self._team_total_hist[c, l, ti], self._team_total_lo)
        return self._typed_frame(rows, columns)

    def histograms(self) -> dict[str, pd.DataFrame]:
        """Tidy histograms of round length, of scores and of final match totals.

        Returns
        -------
        dict
            ``"turns"``: columns every varying option, ``lineup``, ``turns``, ``rounds`` (rounds of
            that length), ``void_rounds`` (of which void); one row per length with ``rounds > 0``.
            ``"score"``: columns every varying option, ``lineup``, ``policy``, ``score`` (points),
            ``count`` (player-rounds, all seats); one row per score with ``count > 0``.
            ``"total"``: columns every varying option, ``lineup``, ``policy``, ``total`` (final
            match total, points), ``count`` (player-matches, all seats); empty without matches.
            ``"team_total"``: columns every varying option, ``lineup``, ``team`` (``"team A"`` /
            ``"team B"``), ``policy`` (the team's policies joined by ``" & "``), ``total`` (the
            team's final match total), ``count`` (matches); empty without teams or matches.
            ``"team_margin"`` (only when :attr:`margin_recorded`): columns every varying option,
            ``lineup``, ``team_a`` and ``team_b`` (each team's policies joined by ``" & "``),
            ``margin`` (team A's final match total minus team B's, points), ``count`` (matches);
            empty without teams or matches.
        """
        tcols: dict[str, list] = {k: [] for k in ["_c", "lineup", "turns", "rounds", "void_rounds"]}
        scols: dict[str, list] = {k: [] for k in ["_c", "lineup", "policy", "score", "count"]}
        mcols: dict[str, list] = {k: [] for k in ["_c", "lineup", "policy", "total", "count"]}
        xcols: dict[str, list] = {k: [] for k in ["_c", "lineup", "team", "policy", "total", "count"]}
        dcols: dict[str, list] = {k: [] for k in ["_c", "lineup", "team_a", "team_b", "margin", "count"]}

        def put(cols, c, lu, h, lo, value, **labels):
            i = np.flatnonzero(h)
            cols["_c"].append(np.full(len(i), c, dtype=np.int64))
            cols["lineup"] += [",".join(lu)] * len(i)
            for k, v in labels.items():
                cols[k] += [v] * len(i)
            cols[value].append(i.astype(np.int64) + lo)
            cols["count"].append(h[i])

        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                h, vh = self._turns_hist[c, l], self._void_hist[c, l]
                t = np.flatnonzero(h)
                tcols["_c"].append(np.full(len(t), c, dtype=np.int64))
                tcols["lineup"] += [",".join(lu)] * len(t)
                tcols["turns"].append(t.astype(np.int64))
                tcols["rounds"].append(h[t])
                tcols["void_rounds"].append(vh[t])
                for g in self._names[l]:
                    put(scols, c, lu, self._score_hist[c, l, g], self._score_lo, "score", policy=self.policies[g])
                    if self._total_hist.shape[3]:
                        put(mcols, c, lu, self._total_hist[c, l, g], self._total_lo, "total", policy=self.policies[g])
                if self.teams[c] and self._team_total_hist.shape[3]:
                    for ti, (label, pos) in enumerate(TEAMS):
                        put(xcols, c, lu, self._team_total_hist[c, l, ti], self._team_total_lo, "total",
                            team=label, policy=_team_label(lu, pos))
                if self.teams[c] and self._team_margin_hist.shape[2]:
                    put(dcols, c, lu, self._team_margin_hist[c, l], self._team_margin_lo, "margin",
                        team_a=_team_label(lu, TEAMS[0][1]), team_b=_team_label(lu, TEAMS[1][1]))
        out = {"turns": self._tidy(tcols), "score": self._tidy(scols), "total": self._tidy(mcols),
               "team_total": self._tidy(xcols)}
        if self.margin_recorded:
            out["team_margin"] = self._tidy(dcols)
        return out

    def team_margins(self) -> pd.DataFrame:
        """The team margin (team A's final match total minus team B's) per configuration and line-up.

        Returns
        -------
        pandas.DataFrame
            :func:`team_margin_table` of ``histograms()["team_margin"]``; empty (with its columns)
            without partnership matches or when not :attr:`margin_recorded`.
        """
        return team_margin_table(self.histograms().get("team_margin"), self.varying)

    def _tidy(self, cols: dict[str, list]) -> pd.DataFrame:
        """A frame from column pieces (lists of int64 arrays, or lists of strings); the ``_c`` piece
        (configuration index per row) becomes the varying option columns."""
        text = ("lineup", "policy", "team", "team_a", "team_b")
        ints = {k: np.concatenate(v) if v else np.zeros(0, dtype=np.int64)
                for k, v in cols.items() if k not in text}
        cidx = ints.pop("_c")
        out: dict[str, Any] = {}
        for v in self.varying:
            out[v] = pd.Series([self.configs[c][v] for c in range(len(self.configs))]).take(cidx).reset_index(drop=True)
        for k in cols:
            if k in text:
                out[k] = pd.Series(cols[k], dtype="str")
            elif k != "_c":
                out[k] = pd.Series(ints[k], dtype=np.int64)
        return pd.DataFrame(out)

    def write_report(self, out_dir, run_info: Mapping[str, Any] | None = None, **kwargs):
        """Write the tables, figures and report of the current results (see :func:`handsim.report.write_report`;
        keyword arguments such as ``formats`` are passed on)."""
        from . import report

        return report.write_report(out_dir, self.summary(), self.paired(), self.histograms(),
                                   dict(run_info or {}), versus=self.versus(), lineup_pairs=self.lineup_pairs(),
                                   totals=self.total_quantiles(), **kwargs)
