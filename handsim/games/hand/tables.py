"""The tables of a classic Hand study, read from the exact counters of its accumulator.

:class:`StudyTables` is the half of :class:`~handsim.games.hand.stats.StudyAccumulator` that
turns its integer counters into DataFrames (floats appear only here): :meth:`~StudyTables.summary`,
:meth:`~StudyTables.paired`, :meth:`~StudyTables.versus`, :meth:`~StudyTables.lineup_pairs`,
:meth:`~StudyTables.total_quantiles`, :meth:`~StudyTables.histograms` and
:meth:`~StudyTables.team_margins`; :func:`team_margin_table` summarises a team margin histogram.

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
* Team margin (:meth:`StudyTables.team_margins`, partnership match studies): team A's final
  match total minus team B's, one observation per match; Student-t interval of its mean, Wilson
  intervals of the shares of matches with a margin below, at and above 0.
* Paired differences (:meth:`StudyTables.paired`): for two configurations that differ in one
  option, the per-deal difference of a policy's mean score over the *same* deals, t interval.
* Policy contrasts (:meth:`StudyTables.versus`): within one configuration and line-up, the
  per-deal difference between two policies' mean scores, t interval.
* Line-up contrasts (:meth:`StudyTables.lineup_pairs`): for two line-ups that differ in
  one position, the per-deal (per-match for match results) difference of that position's score
  on the same deals (first line-up minus second), t interval.

The rounds of a match study are treated as independent units for the per-round columns (every
round is shuffled from its own random stream; this holds while policies do not react to the
match standings); the match columns use the match as the unit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from handsim.stats.intervals import hist_quantiles, moments, proportion, t_pvalue, wilson

from .layout import (C_DEALS, C_HD_N, C_HD_SUM, C_TB_N, C_TB_POS, C_TB_SUM, C_TURNS, C_VOID, HIGH_SCORE, LP_L, LP_L2,
                     LP_LM, LP_M, LP_N, LP_S, LP_S2, LP_TOT, LP_TOT2, LP_TS, LP_TS2, LP_TTOT, LP_TTOT2, LP_W, LP_W2,
                     LP_WM, METRICS, P_DEALS, P_HAND2, P_L, P_L2, P_LM, P_M, P_N, P_N2, P_OUT2, P_TM, P_TOT, P_TOT2,
                     P_TSUM, P_TSUM2, P_UNOP2, P_W, P_W2, QUANTILES, SCORE_QUANTILES, S_HAND, S_LMATCHES, S_LOSSES,
                     S_MATCHES, S_NEUTRAL, S_OUT, S_ROUNDS, S_SCORE, S_SCORE2, S_TMATCHES, S_TOTAL, S_TOTAL2, S_TURNS,
                     S_UNOPENED, S_VOID, S_WINS, TEAMS, T_DEALS, T_HAND, T_L, T_LM, T_M, T_N, T_OUT, T_SUM, T_SUM2,
                     T_TM, T_TOT, T_TOT2, T_UNOP, T_UNOP2, T_W)

__all__ = ["StudyTables", "MARGIN_COLUMNS", "SPREAD_COLUMNS", "team_margin_table"]


#: Columns of the summary that describe the spread of one player's round score (``"all"`` rows).
SPREAD_COLUMNS = tuple(f"score_p{round(100 * q)}" for q in SCORE_QUANTILES) + (f"share_over_{HIGH_SCORE}",)

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
            mean, sd, _, lo, hi = moments(n, s1, s2)
            row = dict(zip(keys, key))
            row.update(matches=n, mean_margin=mean, sd_margin=sd, margin_ci95_low=lo, margin_ci95_high=hi)
            for name, mask in (("p_negative", values < 0), ("p_zero", values == 0), ("p_positive", values > 0)):
                k = int(counts[mask].sum())
                row[name] = k / n
                row[name + "_ci95_low"], row[name + "_ci95_high"] = wilson(k, n)
            row.update(zip(("p10", "p50", "p90"), hist_quantiles(values, counts, (0.10, 0.50, 0.90))))
            rows.append(row)
    columns = varying + list(MARGIN_COLUMNS)
    if not rows:
        return pd.DataFrame({col: pd.Series(dtype=object) for col in columns})
    return pd.DataFrame.from_records(rows, columns=columns)


def _team_label(lineup: Sequence[str], positions: Sequence[int]) -> str:
    """``"hold-hand & greedy:support_hand=1"``: the policies of a team's positions."""
    return " & ".join(lineup[p] for p in positions)


# ----------------------------------------------------------------------------------------------


class StudyTables:
    """The tables of :class:`~handsim.games.hand.stats.StudyAccumulator` (its counters, read).

    A mixin: it reads the accumulator's study shape (``configs``, ``lineups``, ``players``,
    ``varying``, ``teams``, ``policies``, ``pairs``, ``lineup_diffs``) and counters, and writes
    nothing.
    """

    #: Columns of :meth:`summary` after the varying options.
    SUMMARY_COLUMNS = (
        "lineup", "policy", "seat", "rounds", "deals", "mean_score", "sd_score", "se_score", "ci95_low", "ci95_high",
        *SPREAD_COLUMNS,
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

            The spread of one player's score in a round (``"all"`` rows only, NaN on seat and team
            rows; from the score histogram of the policy's seats, so also for studies whose
            checkpoint predates these columns): ``score_p10``, ``score_p50``, ``score_p90``
            (points; quantiles interpolated between order statistics, numpy's default) and
            ``share_over_100`` (the share of the policy's player-rounds that scored more than 100
            points).  They describe the player-rounds and carry no interval (the ``k`` seats a
            policy holds in one deal are not independent).

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
                D = cl[C_DEALS]
                if D == 0:
                    continue
                group = {
                    "mean_tiebreaks": cl[C_TB_SUM] / cl[C_TB_N] if cl[C_TB_N] else math.nan,
                    "tiebreak_rate": proportion(1, cl[C_TB_N], cl[C_TB_POS], 0),
                    "hand_decided_rate": proportion(1, cl[C_HD_N], cl[C_HD_SUM], 0),
                }
                cl_turns, cl_void = cl[C_TURNS] / D, cl[C_VOID] / D
                for j, g in enumerate(self._names[l]):
                    k = int(self._k[l][j])
                    seat_acc = self._seat[c, l, g]
                    tot = [int(x) for x in seat_acc.sum(axis=0)]
                    pool = [int(x) for x in self._pool[c, l, g]]
                    deals = pool[P_DEALS]
                    # "all": the deal (match) as unit, from the per-unit sums over the policy's k seats
                    mean, _, se, lo, hi = moments(deals, pool[P_TSUM], pool[P_TSUM2], scale=k)
                    _, sd, _, _, _ = moments(tot[S_ROUNDS], tot[S_SCORE], tot[S_SCORE2])
                    rates = {
                        "p_out": proportion(k, deals, tot[S_OUT], pool[P_OUT2]),
                        "p_hand": proportion(k, deals, tot[S_HAND], pool[P_HAND2]),
                        "p_unopened": proportion(k, deals, tot[S_UNOPENED], pool[P_UNOP2]),
                        "p_joker_left": self._joker_rate(k, deals, int(self._joker_seat[c, l, g].sum()),
                                                         int(self._joker_pool[c, l, g])),
                        "match_win_rate": proportion(k, pool[P_M], pool[P_W], pool[P_W2]),
                        "match_lose_rate": proportion(k, pool[P_LM], pool[P_L], pool[P_L2]),
                        "match_neutral_rate": proportion(k, pool[P_LM], pool[P_N], pool[P_N2]),
                    }
                    ftot = moments(pool[P_TM], pool[P_TOT], pool[P_TOT2], scale=k)
                    row = self._row(c, lu, self.policies[g], "all", tot[S_ROUNDS], deals,
                                    (mean, sd, se, lo, hi), rates, cl_turns, cl_void, tot[S_MATCHES], ftot, group,
                                    self._score_spread(c, l, g))
                    rows.append(row)
                    for s in range(P):
                        a = [int(x) for x in seat_acc[s]]
                        n = a[S_ROUNDS]
                        rates = {
                            "p_out": proportion(1, n, a[S_OUT], 0),
                            "p_hand": proportion(1, n, a[S_HAND], 0),
                            "p_unopened": proportion(1, n, a[S_UNOPENED], 0),
                            "p_joker_left": self._joker_rate(1, n, int(self._joker_seat[c, l, g, s]), 0),
                            "match_win_rate": proportion(1, a[S_MATCHES], a[S_WINS], 0),
                            "match_lose_rate": proportion(1, a[S_LMATCHES], a[S_LOSSES], 0),
                            "match_neutral_rate": proportion(1, a[S_LMATCHES], a[S_NEUTRAL], 0),
                        }
                        rows.append(self._row(c, lu, self.policies[g], str(s), n, n,
                                              moments(n, a[S_SCORE], a[S_SCORE2]), rates,
                                              a[S_TURNS] / n if n else math.nan, a[S_VOID] / n if n else math.nan,
                                              a[S_MATCHES], moments(a[S_TMATCHES], a[S_TOTAL], a[S_TOTAL2]),
                                              group))
                if self.teams[c]:
                    for ti, (label, pos) in enumerate(TEAMS):
                        t = [int(x) for x in self._team[c, l, ti]]
                        n = t[T_DEALS]
                        rates = {
                            "p_out": proportion(1, n, t[T_OUT], 0),
                            "p_hand": proportion(1, n, t[T_HAND], 0),
                            "p_unopened": proportion(len(pos), n, t[T_UNOP], t[T_UNOP2]),
                            "p_joker_left": self._joker_rate(len(pos), n, *(int(x) for x in self._joker_team[c, l, ti])),
                            "match_win_rate": proportion(1, t[T_M], t[T_W], 0),
                            "match_lose_rate": proportion(1, t[T_LM], t[T_L], 0),
                            "match_neutral_rate": proportion(1, t[T_LM], t[T_N], 0),
                        }
                        rows.append(self._row(c, lu, _team_label(lu, pos), label, n, n,
                                              moments(n, t[T_SUM], t[T_SUM2]), rates, cl_turns, cl_void,
                                              t[T_M], moments(t[T_TM], t[T_TOT], t[T_TOT2]), group))
        df = self._frame(rows, columns)
        return df.reset_index(drop=True)

    def _joker_rate(self, k: int, n: int, s1: int, s2: int) -> tuple[float, float, float]:
        """``p_joker_left`` and its interval as :func:`proportion`; NaN when not recorded."""
        if not self.joker_recorded:
            return (math.nan, math.nan, math.nan)
        return proportion(k, n, s1, s2)

    def _score_spread(self, c: int, l: int, g: int) -> dict[str, float]:
        """:data:`SPREAD_COLUMNS` of policy ``g`` (all its seats) in configuration ``c`` and line-up
        ``l``, from the score histogram: the quantiles of one player's round score (points) and the
        share of player-rounds above :data:`~handsim.games.hand.layout.HIGH_SCORE` points."""
        h = self._score_hist[c, l, g]
        i = np.flatnonzero(h)
        if not len(i):
            return dict.fromkeys(SPREAD_COLUMNS, math.nan)
        values, counts = i.astype(np.int64) + self._score_lo, h[i]
        qs = hist_quantiles(values, counts, SCORE_QUANTILES)
        out = {f"score_p{round(100 * q)}": round(float(x), 6) for q, x in zip(SCORE_QUANTILES, qs)}
        out[f"share_over_{HIGH_SCORE}"] = int(counts[values > HIGH_SCORE].sum()) / int(counts.sum())
        return out

    def _row(self, c, lu, policy, seat, rounds, deals, moments, rates, mturns, vrate, matches, ftot, group,
             spread=None):
        mean, sd, se, lo, hi = moments
        row = self._config_cols(c)
        row.update(lineup=",".join(lu), policy=policy, seat=seat, rounds=rounds, deals=deals,
                   mean_score=mean, sd_score=sd, se_score=se, ci95_low=lo, ci95_high=hi)
        row.update(spread or dict.fromkeys(SPREAD_COLUMNS, math.nan))
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
        for m in METRICS[1:] + ("p_joker_left",):
            columns += [f"{m}_diff", f"{m}_diff_ci95_low", f"{m}_diff_ci95_high"]
        rows: list[dict[str, Any]] = []
        for q, l, j, row, acc in self._paired_cells():
            D = acc[0]
            k = int(self._k[l][j])
            g = self._names[l][j]
            mean, sd, se, lo, hi = moments(D, acc[1], acc[2], scale=k)
            row.update(deals=D, mean_diff=mean, sd_diff=sd, ci95_low=lo, ci95_high=hi,
                       p_value=t_pvalue(mean, se, D))
            for mi, m in enumerate(METRICS[1:], start=1):
                mean, _, _, lo, hi = moments(D, acc[1 + 2 * mi], acc[2 + 2 * mi], scale=k)
                row[f"{m}_diff"], row[f"{m}_diff_ci95_low"], row[f"{m}_diff_ci95_high"] = mean, lo, hi
            if self.joker_recorded:
                j1, j2 = (int(x) for x in self._joker_pair[q, l, g])
                mean, _, _, lo, hi = moments(D, j1, j2, scale=k)
            else:
                mean = lo = hi = math.nan
            row["p_joker_left_diff"], row["p_joker_left_diff_ci95_low"] = mean, lo
            row["p_joker_left_diff_ci95_high"] = hi
            rows.append(row)
        if not rows:
            return self._frame(rows, columns)
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
        for c, l, ja, jb, row, acc in self._versus_cells():
            ga, gb = self._names[l][ja], self._names[l][jb]
            ka, kb = int(self._k[l][ja]), int(self._k[l][jb])
            mean, _, se, lo, hi = moments(acc[0], acc[1], acc[2], scale=ka * kb)
            pa, pb = self._pool[c, l, ga], self._pool[c, l, gb]
            row.update(deals=acc[0], mean_a=int(pa[P_TSUM]) / (ka * int(pa[P_DEALS])),
                       mean_b=int(pb[P_TSUM]) / (kb * int(pb[P_DEALS])),
                       mean_diff=mean, ci95_low=lo, ci95_high=hi, p_value=t_pvalue(mean, se, acc[0]))
            rows.append(row)
        return self._frame(rows, columns)

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
        for c, q, j, row, a in self._lineup_pair_cells():
            D = a[LP_N]
            mean, sd, se, lo, hi = moments(D, a[LP_S], a[LP_S2])
            row.update(deals=D, mean_diff=mean, sd_diff=sd, ci95_low=lo, ci95_high=hi, p_value=t_pvalue(mean, se, D))
            nan3 = (math.nan, math.nan, math.nan, math.nan, math.nan)
            if self.teams[c]:
                team = next(label for label, pos in TEAMS if j in pos)
                tm, _, tse, tlo, thi = moments(D, a[LP_TS], a[LP_TS2])
                row.update(team=team, team_diff=tm, team_diff_ci95_low=tlo, team_diff_ci95_high=thi,
                           team_p_value=t_pvalue(tm, tse, D))
            else:
                row.update(team="", team_diff=math.nan, team_diff_ci95_low=math.nan,
                           team_diff_ci95_high=math.nan, team_p_value=math.nan)
            M = a[LP_M]
            mean, _, se, lo, hi = moments(M, a[LP_TOT], a[LP_TOT2]) if M else nan3
            row.update(matches=max(M, a[LP_WM]), total_diff=mean, total_diff_ci95_low=lo,
                       total_diff_ci95_high=hi, total_p_value=t_pvalue(mean, se, M))
            mean, _, _, lo, hi = moments(M, a[LP_TTOT], a[LP_TTOT2]) if M and self.teams[c] else nan3
            row.update(team_total_diff=mean, team_total_diff_ci95_low=lo, team_total_diff_ci95_high=hi)
            for name, (im, i1, i2) in (("match_win_diff", (LP_WM, LP_W, LP_W2)),
                                       ("match_lose_diff", (LP_LM, LP_L, LP_L2))):
                mean, _, _, lo, hi = moments(a[im], a[i1], a[i2]) if a[im] else nan3
                row.update({name: mean, name + "_ci95_low": lo, name + "_ci95_high": hi})
            rows.append(row)
        return self._frame(rows, columns)

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
            row.update(zip(qcols, (round(float(x), 6) for x in hist_quantiles(values, counts, QUANTILES))))
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
        return self._frame(rows, columns)

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

