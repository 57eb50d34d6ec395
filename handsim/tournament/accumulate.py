"""Exact counters of a tournament: per-deal duplicate comparisons, finishing orders, table statistics.

:class:`TournamentCounters` is fed by the study driver (:func:`handsim.study.run_study`,
``accumulator=``) with every chunk of deals as one :class:`handsim.stats.DealBlock` per seating
(line-up).  All seatings of a chunk hold the same deals, so the counters combine the games of one
deal across seatings and tables before anything is summed: **the deal is the unit** of every
interval (its games share the cards, so they are not independent).

What is counted, per deal ``i`` (all integers):

* For each pair of entries ``a < b``: ``X_ab(i)``, the sum over the games where both sit of
  ``L * (S_a / k_a - S_b / k_b)`` (``S``: the entry's summed score in that game, ``k``: its
  seats, ``L = lcm(1..P)`` so that the value is an integer; in 2 v 2 the team sums
  ``S_a - S_b``, times ``L``).  Its sum and sum of squares give the mean per-deal score
  difference and its Student-t interval; its sign gives the deal's duplicate result (who finished
  ahead over all seatings of the deal).
* The finishing order as pairwise results: for every game and every two seats held by different
  entries (2 v 2: the two teams), ``2`` for the one with fewer points, ``1`` each for a tie.
  ``w_ab(i)`` is the deal's total for ``a`` against ``b``; the counters keep ``sum_i w_ab(i)``
  and ``sum_i w_ab(i) w_cd(i)`` for every two pairs, which is what the Bradley-Terry fit and its
  deal-clustered (sandwich) interval need (:mod:`handsim.tournament.ratings`).
* Per table and entry: the score, went-out, Hand and unopened sums over the table's seatings and
  their squares per deal.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..games.hand.stats import FLAG_HAND, FLAG_OPENED, FLAG_OUT
from ..stats.counters import check_at_least, check_moments, check_totals, check_zero
from ..stats.intervals import moments, proportion, t_pvalue, wilson
from ._counters import Counters, positions_view

__all__ = ["TournamentCounters"]

# per pair a < b, last axis of ``_pair``
(_R_DEALS, _R_X, _R_X2, _R_A_AHEAD, _R_B_AHEAD, _R_TIED, _R_CMP, _R_W, _R_W2, _R_TIES) = range(10)
_NR = 10
# per table and entry, last axis of ``_table``
(_T_DEALS, _T_ROUNDS, _T_S, _T_S2, _T_OUT, _T_OUT2, _T_HAND, _T_HAND2, _T_UNOP, _T_UNOP2) = range(10)
_NT = 10


def _add(acc: np.ndarray, i: int, i2: int, x: np.ndarray) -> None:
    acc[i] += int(x.sum())
    acc[i2] += int((x * x).sum())


class TournamentCounters(Counters):
    """Counters of one tournament design.

    Parameters
    ----------
    entries : int
        Number of entries ``K``.
    players : int
        Seats ``P``.
    lineups : list of list of int
        Entry index at each line-up position, one list per seating (as played by the driver, in order).
    table_of : list of int
        Table index of each seating.
    tables : int
        Number of tables.
    teams : bool
        2 v 2: positions 1 & 3 against 2 & 4; each team must be one entry.

    Raises
    ------
    ValueError
        Inconsistent sizes, an entry index out of range, or a mixed team.
    """

    KIND = "tournament"
    FORMAT = 1
    _ARRAYS = ("pair", "ww", "table")
    _LAYOUT = {
        "pair": ((_R_X,), ((_R_X, _R_X2), (_R_W, _R_W2))),
        "ww": ((), ()),
        "table": ((_T_S,), ((_T_S, _T_S2), (_T_OUT, _T_OUT2), (_T_HAND, _T_HAND2), (_T_UNOP, _T_UNOP2))),
    }

    def __init__(self, entries: int, players: int, lineups: Sequence[Sequence[int]], table_of: Sequence[int],
                 tables: int, teams: bool = False):
        K, P, T = int(entries), int(players), int(tables)
        lus = [tuple(int(e) for e in lu) for lu in lineups]
        if K < 2 or not lus or len(table_of) != len(lus):
            raise ValueError("a tournament needs two or more entries and one table index per seating")
        for lu in lus:
            if len(lu) != P or not all(0 <= e < K for e in lu):
                raise ValueError(f"seating {lu} does not hold {P} entries from 0..{K - 1}")
            if teams and (P != 4 or lu[0] != lu[2] or lu[1] != lu[3]):
                raise ValueError(f"2 v 2 seating {lu}: each team (positions 1 & 3, 2 & 4) must be one entry")
        if not all(0 <= int(t) < T for t in table_of):
            raise ValueError("table index out of range")
        self.entries, self.players, self.teams = K, P, bool(teams)
        self.lineups = lus
        self.table_of = [int(t) for t in table_of]
        self.n_tables = T
        #: Unordered pairs ``(a, b)``, ``a < b``, in order; ``pair_index[(a, b)]`` is the row.
        self.pairs = list(itertools.combinations(range(K), 2))
        self.pair_index = {p: m for m, p in enumerate(self.pairs)}
        #: ``lcm(1..P)``: per-game differences are kept in units of 1/L point.
        self.unit = math.lcm(*range(1, P + 1))
        M = len(self.pairs)
        # per pair: games per deal where both sit, comparisons per deal (fixed by the design)
        self.games = np.zeros(M, dtype=np.int64)
        self.comparisons = np.zeros(M, dtype=np.int64)
        #: Seatings per table, and each entry's seats at each table.
        self.seatings = np.zeros(T, dtype=np.int64)
        self.seats = np.zeros((T, K), dtype=np.int64)
        for lu, t in zip(lus, self.table_of):
            self.seatings[t] += 1
            counts = np.bincount(lu, minlength=K)
            self.seats[t] = counts
            for a, b in self.pairs:
                if counts[a] and counts[b]:
                    m = self.pair_index[(a, b)]
                    self.games[m] += 1
                    self.comparisons[m] += 1 if self.teams else counts[a] * counts[b]
        self._pair = np.zeros((M, _NR), dtype=np.int64)
        self._ww = np.zeros((M, M), dtype=np.int64)
        self._table = np.zeros((T, K, _NT), dtype=np.int64)

    def _meta_args(self) -> dict[str, Any]:
        return {"entries": self.entries, "players": self.players, "lineups": [list(lu) for lu in self.lineups],
                "table_of": self.table_of, "tables": self.n_tables, "teams": self.teams}

    def deals(self) -> int:
        """Deals counted so far (every seating of every table played on each)."""
        return int(self._table[:, :, _T_DEALS].max()) if self._table.size else 0

    # ------------------------------------------------------------------ adding

    def add_chunk(self, blocks: Mapping[tuple[int, int], Any]) -> None:
        """Add one chunk: ``blocks[(0, l)]`` is the :class:`handsim.stats.DealBlock` of seating ``l``.

        Raises
        ------
        ValueError
            A missing seating, another configuration than 0, or blocks of different deals (nothing
            is added then).
        """
        L = len(self.lineups)
        if sorted(blocks) != [(0, l) for l in range(L)]:
            raise ValueError(f"a tournament chunk needs one block per seating (0, 0) .. (0, {L - 1}), "
                             f"got {sorted(blocks)[:5]}")
        deal0 = np.asarray(blocks[(0, 0)].deal)
        n = len(deal0)
        views = []
        for l in range(L):
            b = blocks[(0, l)]
            if not np.array_equal(np.asarray(b.deal), deal0):
                raise ValueError(f"seating {l} holds other deals than seating 0: every seating must play the same deals")
            views.append(positions_view(b))
        if n == 0:
            return
        K, T, M, U = self.entries, self.n_tables, len(self.pairs), self.unit
        x = np.zeros((M, n), dtype=np.int64)
        w = np.zeros((M, n), dtype=np.int64)
        ties = np.zeros(M, dtype=np.int64)
        tab = np.zeros((T, K, 4, n), dtype=np.int64)  # score, out, hand, unopened summed over seatings
        for l, (score, flags, _) in enumerate(views):
            lu, t = self.lineups[l], self.table_of[l]
            present = sorted(set(lu))
            S = {}
            for a in present:
                pos = [j for j, e in enumerate(lu) if e == a]
                S[a] = score[:, pos].sum(axis=1)
                f = flags[:, pos]
                tab[t, a, 0] += S[a]
                tab[t, a, 1] += ((f & FLAG_OUT) != 0).sum(axis=1)
                tab[t, a, 2] += ((f & FLAG_HAND) != 0).sum(axis=1)
                tab[t, a, 3] += ((f & FLAG_OPENED) == 0).sum(axis=1)
            k = {a: lu.count(a) for a in present}
            mult = 2 if self.teams else 1
            for a, b in itertools.combinations(present, 2):
                m = self.pair_index[(a, b)]
                x[m] += (U // k[a]) * mult * S[a] - (U // k[b]) * mult * S[b]
            if self.teams:
                a, b = lu[0], lu[1]
                if a != b:
                    self._compare(S[a], S[b], a, b, w, ties)
            else:
                for j1, j2 in itertools.combinations(range(self.players), 2):
                    if lu[j1] != lu[j2]:
                        self._compare(score[:, j1], score[:, j2], lu[j1], lu[j2], w, ties)
        for m in range(M):
            acc = self._pair[m]
            if not self.games[m]:
                continue
            acc[_R_DEALS] += n
            _add(acc, _R_X, _R_X2, x[m])
            acc[_R_A_AHEAD] += int((x[m] < 0).sum())
            acc[_R_B_AHEAD] += int((x[m] > 0).sum())
            acc[_R_TIED] += int((x[m] == 0).sum())
            acc[_R_CMP] += n * int(self.comparisons[m])
            _add(acc, _R_W, _R_W2, w[m])
            acc[_R_TIES] += int(ties[m])
        self._ww += w @ w.T
        for t in range(T):
            for a in range(K):
                k = int(self.seats[t, a])
                if not k:
                    continue
                acc = self._table[t, a]
                acc[_T_DEALS] += n
                acc[_T_ROUNDS] += n * k * int(self.seatings[t])
                _add(acc, _T_S, _T_S2, tab[t, a, 0])
                _add(acc, _T_OUT, _T_OUT2, tab[t, a, 1])
                _add(acc, _T_HAND, _T_HAND2, tab[t, a, 2])
                _add(acc, _T_UNOP, _T_UNOP2, tab[t, a, 3])

    def deal_counts(self) -> list[tuple[str, np.ndarray]]:
        """The deal counts of every pair that meets and every entry at a table it sits at (each is
        the tournament's deals so far)."""
        return [("pair", self._pair[self.games > 0, _R_DEALS]), ("table", self._table[self.seats > 0, _T_DEALS])]

    def _check_totals(self) -> None:
        p, t = self._pair, self._table
        check_totals("pair", p[:, _R_A_AHEAD] + p[:, _R_B_AHEAD] + p[:, _R_TIED], "pair", p[:, _R_DEALS],
                     "deals ahead or tied")
        check_totals("pair", p[:, _R_CMP], "pair", p[:, _R_DEALS] * self.comparisons, "comparisons")
        check_totals("pair", p[:, _R_TIES], "pair", p[:, _R_CMP], "ties", most=True)
        # W counts 2 for each comparison won by the first entry and 1 for each tie: W - TIES is twice
        # the wins, so even, and the wins are at most the comparisons not tied
        check_totals("pair", p[:, _R_TIES], "pair", p[:, _R_W], "ties (each counts 1 in W = 2 x wins + ties)",
                     most=True)
        check_totals("pair", p[:, _R_W], "pair", 2 * p[:, _R_CMP] - p[:, _R_TIES],
                     "for W = 2 x wins + ties (2 x the comparisons less the ties at most)", most=True)
        odd = (p[:, _R_W] - p[:, _R_TIES]) % 2 != 0
        if odd.any():
            m = int(np.flatnonzero(odd)[0])
            raise ValueError(f"'pair' counts W = {int(p[m, _R_W])} (2 x wins + ties) with {int(p[m, _R_TIES])} ties: "
                             "W less the ties must be even (twice the wins)")
        check_totals("ww", np.diagonal(self._ww), "pair", p[:, _R_W2], "squared wins")
        check_totals("table", t[..., _T_ROUNDS], "table", t[..., _T_DEALS] * self.seats * self.seatings[:, None],
                     "rounds")
        for col, unit in ((_T_OUT, "rounds gone out"), (_T_HAND, "Hands"), (_T_UNOP, "unopened rounds")):
            check_totals("table", t[..., col], "table", t[..., _T_ROUNDS], unit, most=True)
        # one player at most goes out in a round (RULES.md section 3), a Hand only by going out: an
        # entry's per-deal count over the seatings of its table lies between 0 and the table's
        # seatings (its square between the count and that many times it); unopened rounds between 0
        # and the entry's rounds of a deal
        check_totals("table", t[..., _T_HAND], "table", t[..., _T_OUT], "Hands", most=True)
        per_deal = self.seatings[:, None]  # (T, 1)
        deals = t[..., _T_DEALS].max(axis=1)  # (T,)
        check_totals("table", t[..., _T_OUT].sum(axis=1), "table", deals * self.seatings,
                     "rounds gone out (one at most in a round)", most=True)
        for col, col2, most, unit in ((_T_OUT, _T_OUT2, per_deal, "rounds gone out"),
                                      (_T_HAND, _T_HAND2, per_deal, "Hands"),
                                      (_T_UNOP, _T_UNOP2, per_deal * self.seats, "unopened rounds")):
            check_at_least("table", t[..., col2], "table", t[..., col], f"squared {unit}")
            check_totals("table", t[..., col2], "table", most * t[..., col], f"squared {unit}", most=True)
        met, seated = self.games > 0, self.seats > 0
        check_zero("pair", p, met, "a pair of entries that sit at no table together")
        check_zero("ww", self._ww, met[:, None] & met[None, :], "a pair of entries that sit at no table together")
        check_zero("table", t, seated, "an entry that has no seat at that table")
        # every pair that meets and every entry at its tables played every deal
        n = self.deals()
        check_totals("pair", p[:, _R_DEALS], "table", met * n, "deals")
        check_totals("table", t[..., _T_DEALS], "table", seated * n, "deals")
        check_moments("pair", p, ((_R_DEALS, _R_X, _R_X2), (_R_DEALS, _R_W, _R_W2)))
        check_moments("table", t, ((_T_DEALS, _T_S, _T_S2), (_T_DEALS, _T_OUT, _T_OUT2), (_T_DEALS, _T_HAND, _T_HAND2),
                                   (_T_DEALS, _T_UNOP, _T_UNOP2)))
        # a pair's score difference is the difference of its two entries' table sums, over the tables
        # where both sit (per game L * (S_a / k_a - S_b / k_b), 2 v 2 twice the team sums)
        tsum = t[..., _T_S].astype(object)
        coef = np.where(seated, self.unit // np.maximum(self.seats, 1), 0).astype(object) * (2 if self.teams else 1)
        want = np.array([int((coef[:, a] * tsum[:, a] * seated[:, b] - coef[:, b] * tsum[:, b] * seated[:, a]).sum())
                         for a, b in self.pairs], dtype=object)
        check_totals("pair", p[:, _R_X].astype(object), "table", want,
                     "points of the score difference (L x points per seat, over the tables both sit at)")
        # a deal not tied adds at least 1 to the squares; one ahead for the first entry (x < 0) only
        # when the sum is below 0 or another deal was ahead for the second
        check_totals("pair", p[:, _R_A_AHEAD] + p[:, _R_B_AHEAD], "pair", p[:, _R_X2],
                     "deals not tied (each adds at least 1 to the squared differences)", most=True)
        for col, sign, side in ((_R_A_AHEAD, 1, "first"), (_R_B_AHEAD, -1, "second")):
            other = _R_B_AHEAD if col == _R_A_AHEAD else _R_A_AHEAD
            bad = (p[:, other] == 0) & (sign * p[:, _R_X] > -p[:, col])
            if bad.any():
                m = int(np.flatnonzero(bad)[0])
                raise ValueError(f"'pair' counts {int(p[m, col])} deals with the {side} entry ahead and none with the "
                                 f"other, but a score difference of {int(p[m, _R_X])}: of the wrong sign or too small")
        ww, c2 = self._ww, 2 * self.comparisons
        asym = ww != ww.T
        if asym.any():
            i, j = (int(v) for v in np.argwhere(asym)[0])
            raise ValueError(f"'ww' holds {int(ww[i, j])} at [{i}, {j}] but {int(ww[j, i])} at [{j}, {i}]: a product "
                             "of two pairs' wins is the same either way")
        # w of a deal lies between 0 and 2 x its comparisons: w^2 <= 2c w, w w' <= 2c' w, and
        # (Cauchy-Schwarz) (sum w w')^2 <= sum w^2 sum w'^2
        check_totals("pair", p[:, _R_W2], "pair", c2 * p[:, _R_W], "squared wins (each deal's at most 2 x its "
                     "comparisons times its W)", most=True)
        check_totals("ww", ww, "pair", p[:, _R_W, None] * c2[None, :], "products of two pairs' wins", most=True)
        w2 = p[:, _R_W2].astype(object)
        check_totals("ww", ww.astype(object) ** 2, "pair", w2[:, None] * w2[None, :],
                     "squared products of two pairs' wins (Cauchy-Schwarz)", most=True)

    def _compare(self, sa: np.ndarray, sb: np.ndarray, a: int, b: int, w: np.ndarray, ties: np.ndarray) -> None:
        """Add one comparison per deal between entry ``a`` scoring ``sa`` and ``b`` scoring ``sb``."""
        if a > b:
            a, b, sa, sb = b, a, sb, sa
        m = self.pair_index[(a, b)]
        tie = sa == sb
        w[m] += 2 * (sa < sb) + tie
        ties[m] += int(tie.sum())

    # ------------------------------------------------------------------ results

    def pair_data(self) -> dict[str, Any]:
        """What the rating model needs (:func:`handsim.tournament.ratings.bradley_terry`).

        Returns
        -------
        dict
            ``pairs`` (list of ``(a, b)``), ``deals`` (int), ``w`` (``sum_i w_ab(i)``, Python ints: twice
            the wins of ``a`` over ``b``, ties counting 1), ``ww`` (``sum_i w(i) w(i)^T``, ``M x M``
            Python ints), ``comparisons`` (per pair, over all deals).
        """
        return {
            "entries": self.entries,
            "pairs": list(self.pairs),
            "deals": int(self._pair[:, _R_DEALS].max()) if len(self.pairs) else 0,
            "w": [int(v) for v in self._pair[:, _R_W]],
            "ww": [[int(v) for v in row] for row in self._ww],
            "comparisons": [int(v) for v in self._pair[:, _R_CMP]],
        }

    def crosstable(self, labels: Sequence[str], model_share: np.ndarray | None = None) -> pd.DataFrame:
        """One row per ordered pair of entries that met (both orders; ``policy`` minus ``opponent``).

        Parameters
        ----------
        labels : list of str
            Entry names.
        model_share : ndarray(float, shape=(K, K)), optional
            The rating model's probability that the row's entry finishes ahead of the column's.

        Returns
        -------
        pandas.DataFrame
            ``policy``, ``opponent``, ``deals``, ``games_per_deal`` (seatings where both sit),
            ``mean_diff`` (points per round, ``policy`` minus ``opponent``, per player; 2 v 2: per
            team; lower is better, so a negative value means ``policy`` scores less), ``sd_diff``
            (of the per-deal mean difference), ``ci95_low``, ``ci95_high`` (Student-t over deals),
            ``p_value`` (two-sided t test of no difference); the deal's duplicate result over all its
            seatings: ``p_deal_ahead`` (share of deals ``policy`` scored less), ``p_deal_behind``,
            ``p_deal_tied``, each with Wilson ``*_ci95_low/high``; the finishing order at the table
            (every two seats held by the two entries; 2 v 2: the two teams): ``comparisons``,
            ``p_ahead`` (share ``policy`` finished with fewer points), ``p_tied``, ``score_share``
            (``p_ahead + p_tied / 2``) with ``score_share_ci95_low/high`` (t over deals), and
            ``model_share`` (the rating model's ``score_share``, when given).  Rows of a pair are
            exactly antisymmetric.
        """
        rows = []
        K = self.entries
        for a in range(K):
            for b in range(K):
                if a == b:
                    continue
                lo_, hi_ = (a, b) if a < b else (b, a)
                m = self.pair_index[(lo_, hi_)]
                r = [int(v) for v in self._pair[m]]
                n = r[_R_DEALS]
                if not n:
                    continue
                scale = self.unit * int(self.games[m])
                mean, sd, se, lo, hi = moments(n, r[_R_X], r[_R_X2], scale=scale)
                c = int(self.comparisons[m])
                cmp_total = r[_R_CMP]
                share, _, _, s_lo, s_hi = moments(n, r[_R_W], r[_R_W2], scale=2 * c)
                wins2, ahead, behind = r[_R_W], r[_R_A_AHEAD], r[_R_B_AHEAD]
                if a > b:  # the other entry's view: every figure mirrored exactly
                    mean, lo, hi = -mean, -hi, -lo
                    share, s_lo, s_hi = 1.0 - share, 1.0 - s_hi, 1.0 - s_lo
                    wins2, ahead, behind = 2 * cmp_total - wins2, behind, ahead
                row = {
                    "policy": labels[a], "opponent": labels[b], "deals": n, "games_per_deal": int(self.games[m]),
                    "mean_diff": mean, "sd_diff": sd, "ci95_low": lo, "ci95_high": hi,
                    "p_value": t_pvalue(mean, se, n),
                    "p_deal_ahead": ahead / n, "p_deal_behind": behind / n, "p_deal_tied": r[_R_TIED] / n,
                }
                for name, k in (("p_deal_ahead", ahead), ("p_deal_behind", behind), ("p_deal_tied", r[_R_TIED])):
                    row[name + "_ci95_low"], row[name + "_ci95_high"] = wilson(k, n)
                ties = r[_R_TIES]
                row.update(comparisons=cmp_total, p_ahead=(wins2 - ties) / (2 * cmp_total), p_tied=ties / cmp_total,
                           score_share=share, score_share_ci95_low=s_lo, score_share_ci95_high=s_hi,
                           model_share=float(model_share[a, b]) if model_share is not None else math.nan)
                rows.append(row)
        return pd.DataFrame.from_records(rows, columns=CROSSTABLE_COLUMNS)

    def tables(self, labels: Sequence[str], table_labels: Sequence[str]) -> pd.DataFrame:
        """One row per table and entry at it: its results over all the table's seatings.

        Returns
        -------
        pandas.DataFrame
            ``table``, ``policy``, ``seats`` (the entry's seats at the table), ``seatings``, ``deals``,
            ``rounds`` (player-rounds), ``mean_score`` (points per round) with ``ci95_low/high``
            (Student-t over the per-deal means), ``p_out``, ``p_hand``, ``p_unopened`` (shares of its
            player-rounds) with ``*_ci95_low/high`` (the deal as unit).
        """
        rows = []
        for t in range(self.n_tables):
            for a in range(self.entries):
                k = int(self.seats[t, a])
                acc = [int(v) for v in self._table[t, a]]
                n = acc[_T_DEALS]
                if not k or not n:
                    continue
                per = k * int(self.seatings[t])
                mean, _, _, lo, hi = moments(n, acc[_T_S], acc[_T_S2], scale=per)
                row = {"table": table_labels[t], "policy": labels[a], "seats": k, "seatings": int(self.seatings[t]),
                       "deals": n, "rounds": acc[_T_ROUNDS], "mean_score": mean, "ci95_low": lo, "ci95_high": hi}
                for name, i, i2 in (("p_out", _T_OUT, _T_OUT2), ("p_hand", _T_HAND, _T_HAND2),
                                    ("p_unopened", _T_UNOP, _T_UNOP2)):
                    row[name], row[name + "_ci95_low"], row[name + "_ci95_high"] = proportion(per, n, acc[i], acc[i2])
                rows.append(row)
        return pd.DataFrame.from_records(rows, columns=TABLE_COLUMNS)


CROSSTABLE_COLUMNS = [
    "policy", "opponent", "deals", "games_per_deal", "mean_diff", "sd_diff", "ci95_low", "ci95_high", "p_value",
    "p_deal_ahead", "p_deal_ahead_ci95_low", "p_deal_ahead_ci95_high",
    "p_deal_behind", "p_deal_behind_ci95_low", "p_deal_behind_ci95_high",
    "p_deal_tied", "p_deal_tied_ci95_low", "p_deal_tied_ci95_high",
    "comparisons", "p_ahead", "p_tied", "score_share", "score_share_ci95_low", "score_share_ci95_high", "model_share",
]

TABLE_COLUMNS = [
    "table", "policy", "seats", "seatings", "deals", "rounds", "mean_score", "ci95_low", "ci95_high",
    "p_out", "p_out_ci95_low", "p_out_ci95_high", "p_hand", "p_hand_ci95_low", "p_hand_ci95_high",
    "p_unopened", "p_unopened_ci95_low", "p_unopened_ci95_high",
]
