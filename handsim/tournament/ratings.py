"""Ratings from finishing orders: Bradley-Terry on every pair of seats, deal-clustered intervals.

The model
---------
Each entry ``a`` has a strength ``theta_a``; at a table, ``a`` finishes ahead of ``b`` (fewer
points in the round, RULES.md section 6) with probability ``1 / (1 + exp(theta_b - theta_a))``.
Every game is broken into its pairs of seats held by different entries (full rank-breaking of the
finishing order; 2 v 2: the two teams), and a tie counts half a win for each (the usual
Bradley-Terry treatment of draws).  The strengths are the maximum-likelihood estimates of this
Bradley-Terry model, fitted with ``choix`` (Maystre & Grossglauser's iterative Luce spectral
ranking, ``choix.ilsr_pairwise_dense``), and are centred on mean 0.  Ratings are shown on the
Elo scale, ``rating = 400 / ln(10) * theta``: a 200-point gap means the stronger entry finishes
ahead of the weaker about 76% of the time at a table.

Why this model: Hand rounds end with one winner and an order of the others by their penalty
points, with ties (two unopened players paying the same, two losers holding equal deadwood).
Plackett-Luce on the full order has no standard treatment of ties, and online raters
(Elo, TrueSkill, OpenSkill) depend on the order in which the games are fed and report an
uncertainty that is not a confidence interval.  Under Plackett-Luce the chance that ``a``
finishes ahead of ``b`` is exactly the Bradley-Terry one, so Bradley-Terry on all pairs (the
composite, pairwise likelihood of the finishing orders: "full rank-breaking") estimates the same
strengths; it handles ties by half wins, and its sufficient statistics are integer counts, so it
merges over chunks and resumes exactly.  On a 20,000-deal tournament of greedy, hold-hand and
random (4 players) the deal-clustered standard errors came out 1.2 to 1.6 times the naive ones.

The intervals
-------------
The pairs of one game, and the games of one deal (every seating of every table plays the same
cards), are dependent, so the model's own Fisher information would overstate the precision.  The
interval is the robust (sandwich) one with the **deal as the cluster**: the fitted strengths solve
``sum_b [w_ab - c_ab * p_ab(theta)] = 0`` for every ``a`` (``w``: mean wins per deal, ``c``:
comparisons per deal, the same on every deal by the design), so by the implicit function theorem
``Cov(theta) = H^+ B Cov(w_bar) B^T H^+`` with ``H`` the Bradley-Terry information per deal,
``B`` the incidence matrix of the pairs and ``Cov(w_bar)`` the sample covariance of the per-deal
win vectors divided by the number of deals (exact integer sums, see
:class:`handsim.tournament.accumulate.TournamentCounters`).  The 95% interval is
``theta +- 1.96 se`` (normal: the number of deals is large).

When an entry never finished ahead of (or level with) the others, the maximum-likelihood
strengths are infinite; the fit then adds one virtual tie between every two entries that met
(a weak prior, as in Coulom's BayesElo) and says so in the ``note`` column.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["ELO", "bradley_terry", "ratings_table", "RATING_COLUMNS"]

#: Elo points per unit of Bradley-Terry strength (natural log-odds): 400 / ln 10.
ELO = 400.0 / math.log(10.0)

RATING_COLUMNS = ["rank", "policy", "rating", "rating_ci95_low", "rating_ci95_high", "theta", "se_theta",
                  "score_share", "comparisons", "deals", "note"]


def _z() -> float:
    from scipy import stats

    return float(stats.norm.ppf(0.975))


def _strongly_connected(wins: np.ndarray) -> bool:
    from scipy.sparse.csgraph import connected_components

    n, _ = connected_components(wins > 0, directed=True, connection="strong")
    return n == 1


def bradley_terry(data: Mapping[str, Any]) -> dict[str, Any]:
    """Fit Bradley-Terry strengths and their deal-clustered covariance.

    Parameters
    ----------
    data : dict
        ``entries`` (K), ``pairs`` (list of ``(a, b)``, ``a < b``), ``deals`` (n), ``w`` (per pair,
        the sum over deals of twice ``a``'s wins over ``b``, ties counting 1), ``ww`` (``M x M``:
        sum over deals of the products of those per-deal values), ``comparisons`` (per pair, over
        all deals; the same number on every deal).  As returned by
        :meth:`handsim.tournament.accumulate.TournamentCounters.pair_data`.

    Returns
    -------
    dict
        ``theta`` (ndarray(float64, K), mean 0), ``cov`` (ndarray(float64, K x K); NaN with fewer
        than two deals), ``wins`` (ndarray K x K: wins of row over column, ties half), ``prob``
        (K x K: the model's probability that row finishes ahead of column), ``prior`` (bool: the
        virtual ties were needed).

    Raises
    ------
    ValueError
        No comparisons, entries that never met (directly or through others), or a fit that did not
        converge.
    """
    import choix

    K, pairs, n = int(data["entries"]), [tuple(p) for p in data["pairs"]], int(data["deals"])
    w2 = [int(v) for v in data["w"]]
    cmp_ = [int(v) for v in data["comparisons"]]
    M = len(pairs)
    if n <= 0 or not any(cmp_):
        raise ValueError("no comparisons to rate: play at least one deal")
    met = np.zeros((K, K), dtype=bool)
    wins = np.zeros((K, K))
    for m, (a, b) in enumerate(pairs):
        if cmp_[m]:
            met[a, b] = met[b, a] = True
            wins[a, b] = w2[m] / 2
            wins[b, a] = cmp_[m] - w2[m] / 2
    from scipy.sparse.csgraph import connected_components

    if connected_components(met, directed=False)[0] != 1:
        raise ValueError("some entries never met, directly or through others: they cannot be rated together")
    prior = not _strongly_connected(wins)
    fit = wins + 0.5 * met if prior else wins
    theta = np.asarray(choix.ilsr_pairwise_dense(fit, max_iter=10_000, tol=1e-12), dtype=np.float64)
    theta = theta - theta.mean()
    # check the score equations: observed wins = expected wins, for every entry
    diff = theta[:, None] - theta[None, :]
    prob = 1.0 / (1.0 + np.exp(-diff))
    total = fit + fit.T
    resid = (fit - total * prob).sum(axis=1)
    if not np.all(np.abs(resid) <= 1e-6 * max(1.0, total.sum())):
        raise ValueError(f"the Bradley-Terry fit did not converge (score residuals {resid})")
    # sandwich covariance, deal as the cluster
    cov = np.full((K, K), math.nan)
    if n >= 2:
        c = np.array(cmp_, dtype=np.float64) / n  # comparisons per deal
        H = np.zeros((K, K))
        B = np.zeros((K, M))
        for m, (a, b) in enumerate(pairs):
            v = c[m] * prob[a, b] * prob[b, a]
            H[a, b] -= v
            H[b, a] -= v
            H[a, a] += v
            H[b, b] += v
            B[a, m], B[b, m] = 1.0, -1.0
        ww = data["ww"]
        S = np.empty((M, M))
        for i in range(M):
            for j in range(M):
                # exact: n * sum(w_i w_j) - sum(w_i) sum(w_j), in Python integers
                S[i, j] = (n * int(ww[i][j]) - w2[i] * w2[j]) / (n * (n - 1)) / 4.0  # per-deal win covariance
        Hp = np.linalg.pinv(H)
        cov = Hp @ B @ (S / n) @ B.T @ Hp
        cov = (cov + cov.T) / 2
    return {"theta": theta, "cov": cov, "wins": wins, "prob": prob, "prior": prior}


def ratings_table(fit: Mapping[str, Any], labels: Sequence[str], deals: int) -> pd.DataFrame:
    """The ratings as a table, best first.

    Returns
    -------
    pandas.DataFrame
        ``rank`` (1 = strongest), ``policy``, ``rating`` (Elo scale, mean 0) with
        ``rating_ci95_low/high`` (deal-clustered sandwich, normal), ``theta`` (natural log-odds
        scale) and ``se_theta``, ``score_share`` (share of its comparisons the entry finished
        ahead, ties half), ``comparisons``, ``deals``, ``note``.
    """
    theta, cov, wins = fit["theta"], fit["cov"], fit["wins"]
    z = _z()
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    total = wins + wins.T
    rows = []
    for a, label in enumerate(labels):
        n_cmp = float(total[a].sum())
        rows.append({
            "policy": label,
            "rating": ELO * theta[a],
            "rating_ci95_low": ELO * (theta[a] - z * se[a]),
            "rating_ci95_high": ELO * (theta[a] + z * se[a]),
            "theta": theta[a],
            "se_theta": se[a],
            "score_share": float(wins[a].sum()) / n_cmp if n_cmp else math.nan,
            "comparisons": int(round(n_cmp)),
            "deals": int(deals),
            "note": ("no finite maximum-likelihood rating (an entry never finished ahead): "
                     "one virtual tie per pair added" if fit["prior"] else ""),
        })
    df = pd.DataFrame.from_records(rows)
    df = df.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    df.insert(0, "rank", np.arange(1, len(df) + 1))
    return df[RATING_COLUMNS]
