"""Figures of tournaments and tuning runs.

Every function takes ``ax=None`` (a new figure is made on the Agg canvas, without pyplot),
imports matplotlib lazily and returns a :class:`Drawn`: the axes and the artists drawn, by label.
They keep the conventions of the study figures (:mod:`handsim.report.plots`): one colour per
policy (pass the report's ``colours``, from :func:`handsim.report.plots.policy_colours`), 95%
intervals drawn *over* the markers, a marker filled when its interval excludes 0 and hollow when
not, discrete parameter values as points (never joined by lines), axis labels with their unit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..report.plots import Drawn, colour_of, new_figure, policy_colours

__all__ = ["Drawn", "plot_ratings", "plot_crosstable", "plot_tune_curve", "plot_tune_grid", "plot_tune_history",
           "plot_tune_confirm", "crosstable_pairs", "crosstable_outlier", "MAX_PAIRS", "OUTLIER_RATIO"]

#: Most pairs the crosstable figure draws one by one; beyond, only neighbours in the ranking.
MAX_PAIRS = 45

#: The last-ranked policy's pairs get a panel of their own when its smallest difference is this
#: many times the largest reach (difference plus half-width) of the other pairs.
OUTLIER_RATIO = 4.0


def _axes(ax, figsize=(6.4, 4.2)):
    return ax if ax is not None else new_figure(figsize).add_subplot()


def _err(v, lo, hi) -> np.ndarray:
    v, lo, hi = (np.asarray(a, dtype=float) for a in (v, lo, hi))
    return np.clip(np.nan_to_num(np.vstack([v - lo, hi - v]), nan=0.0), 0.0, None)


def _significant(lo: float, hi: float) -> bool:
    return not (math.isnan(lo) or math.isnan(hi) or lo <= 0.0 <= hi)


def _point(ax, x, y, *, xerr=None, yerr=None, colour="#1f77b4", filled=False, marker="o", label=None, size=7):
    """One point with its interval drawn above the marker (hollow unless ``filled``)."""
    cont = ax.errorbar([x], [y], xerr=xerr, yerr=yerr, fmt=marker, color=colour, ecolor=colour, elinewidth=1.5,
                       capsize=4, markersize=size, markeredgewidth=1.4, markerfacecolor=colour if filled else "white",
                       label=label)
    cont.lines[0].set_zorder(2.0)
    for art in list(cont.lines[1]) + list(cont.lines[2]):
        art.set_zorder(3.0)
    return cont


def plot_ratings(ratings: pd.DataFrame, ax=None, *, colours: Mapping[str, str] | None = None) -> Drawn:
    """The ratings (Elo scale, mean 0) with their 95% intervals, strongest on top, one colour per policy.

    Parameters
    ----------
    ratings : pandas.DataFrame
        As :func:`handsim.tournament.ratings.ratings_table` returns (``policy``, ``rating``,
        ``rating_ci95_low``, ``rating_ci95_high``).
    ax : matplotlib.axes.Axes, optional
    colours : dict, optional
        Policy -> colour (default: :func:`~handsim.report.plots.policy_colours` of the policies).

    Returns
    -------
    Drawn
        One errorbar container per policy, keyed by its label.
    """
    df = ratings.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    colours = colours or policy_colours(df["policy"].tolist())
    ax = _axes(ax, figsize=(6.4, 1.4 + 0.42 * len(df)))
    art = {}
    for i, r in enumerate(df.to_dict("records")):
        art[r["policy"]] = _point(ax, r["rating"], -i, xerr=_err([r["rating"]], [r["rating_ci95_low"]],
                                                                 [r["rating_ci95_high"]]),
                                  colour=colour_of(colours, r["policy"]))
    ax.axvline(0.0, color="0.6", linewidth=0.8, linestyle=":", zorder=1)
    ax.set_yticks([-i for i in range(len(df))], df["policy"].tolist())
    ax.set_ylim(-len(df) + 0.5, 0.5)
    ax.set_xlabel("rating (Elo scale, mean of the field 0; 95% CI)")
    ax.grid(True, axis="x", alpha=0.3)
    return Drawn(ax, art)


def crosstable_pairs(crosstable: pd.DataFrame, order: Sequence[str], max_pairs: int = MAX_PAIRS) -> pd.DataFrame:
    """The rows of ``crosstable`` with ``policy`` before ``opponent`` in ``order`` (one row per pair),
    in that order; with more than ``max_pairs`` pairs, only neighbours in ``order``."""
    pos = {p: i for i, p in enumerate(order)}
    df = crosstable[[pos[a] < pos[b] for a, b in zip(crosstable["policy"], crosstable["opponent"])]]
    df = df.assign(_a=df["policy"].map(pos), _b=df["opponent"].map(pos)).sort_values(["_a", "_b"], kind="stable")
    if len(df) > max_pairs:
        df = df[df["_b"] == df["_a"] + 1]
    return df.drop(columns=["_a", "_b"]).reset_index(drop=True)


def crosstable_outlier(pairs: pd.DataFrame, order: Sequence[str], ratio: float = OUTLIER_RATIO) -> str | None:
    """The last-ranked policy of ``order`` when its pairs would squeeze every other pair to a dot.

    A ladder with ``random`` at the bottom is the usual case: ``random`` loses by 40 to 80 points
    per player-round, the other pairs differ by a few, and on one shared axis their intervals
    cannot be read.

    Parameters
    ----------
    pairs : pandas.DataFrame
        :func:`crosstable_pairs` rows (``policy``, ``opponent``, ``mean_diff``, ``ci95_low``,
        ``ci95_high``; points).
    order : list of str
        The policies, best first.
    ratio : float
        How many times the other pairs' largest reach (``|mean_diff|`` plus the half-width) the
        last policy's smallest ``|mean_diff|`` must be.

    Returns
    -------
    str or None
        That policy's name, or None when one axis serves every pair (or fewer than three
        policies play, or every pair involves the last one).
    """
    if len(order) < 3 or not len(pairs):
        return None
    last = order[-1]
    with_last = (pairs["policy"] == last) | (pairs["opponent"] == last)
    far, near = pairs[with_last], pairs[~with_last]
    if not len(far) or not len(near):
        return None
    reach = (near["mean_diff"].abs() + (near["ci95_high"] - near["ci95_low"]).abs() / 2).max()
    smallest = far["mean_diff"].abs().min()
    if not (np.isfinite(reach) and np.isfinite(smallest)) or smallest <= ratio * max(reach, 1e-9):
        return None
    return str(last)


def plot_crosstable(crosstable: pd.DataFrame, order: Sequence[str], ax=None, *,
                    colours: Mapping[str, str] | None = None, unit: str = "points per player-round") -> Drawn:
    """Head to head: the paired per-deal score difference of each pair with its 95% CI.

    One row per pair, ``A − B`` with A the earlier policy in ``order`` (the ranking), in the colour
    of A; filled when the interval excludes 0, hollow when it does not.  Below 0, A scores less
    (lower is better).  With more than :data:`MAX_PAIRS` pairs only neighbours in ``order`` are drawn.
    When the last-ranked policy's pairs dwarf the others (:func:`crosstable_outlier`) and no
    ``ax`` is given, they get a second panel below with its own scale, so the close pairs stay
    readable; ``Drawn.ax`` is then the upper panel.

    Parameters
    ----------
    crosstable : pandas.DataFrame
        :meth:`TournamentCounters.crosstable <handsim.tournament.accumulate.TournamentCounters.crosstable>`.
    order : list of str
        The policies, best first.
    unit : str
        The unit of the differences (x label).

    Returns
    -------
    Drawn
        One errorbar container per pair, keyed ``"A − B"``.
    """
    df = crosstable_pairs(crosstable, order)
    colours = colours or policy_colours(list(order))
    outlier = crosstable_outlier(df, order) if ax is None else None
    if outlier is None:
        panels = [(_axes(ax, figsize=(6.8, 1.4 + 0.38 * max(1, len(df)))), df, None)]
    else:
        far = (df["policy"] == outlier) | (df["opponent"] == outlier)
        near_df, far_df = df[~far], df[far]
        fig = new_figure((6.8, 2.4 + 0.38 * len(df)))
        top, bottom = fig.subplots(2, 1, height_ratios=[max(1, len(near_df)) + 1.2, max(1, len(far_df)) + 1.2])
        panels = [(top, near_df, None), (bottom, far_df, f"pairs with {outlier}, on their own scale")]
    art = {}
    for axis, rows, title in panels:
        labels = []
        for i, r in enumerate(rows.to_dict("records")):
            label = f"{r['policy']} − {r['opponent']}"
            art[label] = _point(axis, r["mean_diff"], -i,
                                xerr=_err([r["mean_diff"]], [r["ci95_low"]], [r["ci95_high"]]),
                                colour=colour_of(colours, r["policy"]),
                                filled=_significant(r["ci95_low"], r["ci95_high"]))
            labels.append(label)
        axis.axvline(0.0, color="0.35", linewidth=0.9, linestyle="--", zorder=1)
        axis.set_yticks([-i for i in range(len(labels))], labels)
        axis.set_ylim(-max(1, len(labels)) + 0.5, 0.5)
        axis.set_xlabel(f"score difference A − B, {unit}\n(same deals and seats; 95% CI; < 0: A scores less)")
        axis.grid(True, axis="x", alpha=0.3)
        if title:
            axis.set_title(title, fontsize=9, loc="left")
    return Drawn(panels[0][0], art)


def _tick(v: Any) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return str(int(f)) if math.isfinite(f) and f.is_integer() else f"{f:g}"


def plot_tune_curve(tune: pd.DataFrame, param: str, ax=None, *, unit: str = "points per player-round") -> Drawn:
    """Each candidate's paired difference from the defaults (same deals, 95% CI) against one parameter.

    Points, not lines (the values are discrete); filled when the interval excludes 0; the best
    candidate starred, the defaults (0 by definition) a square.

    Returns
    -------
    Drawn
        ``candidates`` (interval excludes 0) and ``candidates (not significant)``, when any; ``best``,
        ``default``.
    """
    ax = _axes(ax)
    df = tune.sort_values(param, kind="stable")
    grid = df[df["on_grid"] & ~df["is_default"]]
    art: dict[str, Any] = {}
    x = grid[param].to_numpy(float)
    y = grid["diff_vs_default"].to_numpy(float)
    lo, hi = grid["diff_ci95_low"].to_numpy(float), grid["diff_ci95_high"].to_numpy(float)
    sig = np.array([_significant(a, b) for a, b in zip(lo, hi)], dtype=bool)
    for mask, filled, label in ((sig, True, "interval excludes 0"), (~sig, False, "interval includes 0")):
        if mask.any():
            cont = ax.errorbar(x[mask], y[mask], yerr=_err(y[mask], lo[mask], hi[mask]), fmt="o", linestyle="none",
                               color="#1f77b4", markerfacecolor="#1f77b4" if filled else "white", markersize=6,
                               markeredgewidth=1.3, capsize=3, elinewidth=1.3, label=f"candidate ({label})")
            cont.lines[0].set_zorder(2.0)
            for a in list(cont.lines[1]) + list(cont.lines[2]):
                a.set_zorder(3.0)
            art["candidates" if filled else "candidates (not significant)"] = cont
    best = df[df["is_best"]]
    art["best"] = ax.plot(best[param], best["diff_vs_default"], "*", color="#d62728", markersize=15, zorder=4,
                          label="best on the tuning deals")[0]
    default = df[df["is_default"]]
    art["default"] = ax.plot(default[param], [0.0] * len(default), "s", color="#2ca02c", markersize=9,
                             fillstyle="none", markeredgewidth=2, zorder=4, label="defaults")[0]
    ax.axhline(0.0, color="0.35", linewidth=0.9, linestyle="--", zorder=1)
    vals = sorted(set(df[param].tolist()))
    if len(vals) <= 15:
        ax.set_xticks([float(v) for v in vals], [_tick(v) for v in vals])
    ax.set_xlabel(param)
    ax.set_ylabel(f"candidate − defaults, {unit}\n(same deals; 95% CI; < 0: scores less)")
    ax.legend(fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)
    return Drawn(ax, art)


def plot_tune_grid(tune: pd.DataFrame, params: Sequence[str], ax=None, *, unit: str = "points per player-round") -> Drawn:
    """Heat map of the mean score over a two-parameter grid (lower is better).

    The colours span the better half of the grid (worse cells take the last colour, the colour
    bar's arrow), so the region of the best stays readable; each cell shows its mean.  Cells whose
    paired difference from the defaults has a 95% interval below 0 are outlined in red; the best
    has a star in its corner, the defaults (when on the grid) a dashed white frame.

    Returns
    -------
    Drawn
        ``grid`` (the image), ``better`` (the outlines, when any), ``best``, ``default``.
    """
    from matplotlib.patches import Rectangle

    p1, p2 = params
    df = tune[tune["on_grid"]]
    xs = sorted(df[p2].unique())
    ys = sorted(df[p1].unique())
    grid = np.full((len(ys), len(xs)), np.nan)
    better = np.zeros_like(grid, dtype=bool)
    for r in df.to_dict("records"):
        i, j = ys.index(r[p1]), xs.index(r[p2])
        grid[i, j] = r["mean_score"]
        better[i, j] = r["diff_ci95_high"] < 0
    ax = _axes(ax, figsize=(2.6 + 0.55 * len(xs), 1.6 + 0.4 * len(ys)))
    finite = grid[np.isfinite(grid)]
    lo = float(finite.min()) if finite.size else 0.0
    hi = float(np.quantile(finite, 0.5)) if finite.size else 1.0
    hi = hi if hi > lo else lo + 1.0
    im = ax.imshow(grid, cmap="viridis_r", aspect="auto", origin="lower", vmin=lo, vmax=hi)
    art: dict[str, Any] = {"grid": im}
    if grid.size <= 400:
        for i in range(len(ys)):
            for j in range(len(xs)):
                if np.isfinite(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.1f}", ha="center", va="center", fontsize=7,
                            color="white" if grid[i, j] > lo + 0.6 * (hi - lo) else "black")
    boxes = []
    for i, j in zip(*np.nonzero(better)):
        boxes.append(ax.add_patch(Rectangle((j - 0.46, i - 0.46), 0.92, 0.92, fill=False, edgecolor="#d62728",
                                            linewidth=1.4, zorder=3)))
    if boxes:
        art["better"] = boxes
    ax.set_xticks(range(len(xs)), [_tick(v) for v in xs])
    ax.set_yticks(range(len(ys)), [_tick(v) for v in ys])
    ax.set_xlabel(p2)
    ax.set_ylabel(p1)
    # the best: a star in the corner of its cell (the value stays readable); the defaults: a dashed frame
    best = tune[tune["is_best"]].iloc[0]
    if best[p2] in xs and best[p1] in ys:
        art["best"] = ax.plot(xs.index(best[p2]) + 0.3, ys.index(best[p1]) + 0.27, "*", markersize=11,
                              color="#d62728", markeredgecolor="white", markeredgewidth=0.6, zorder=4)[0]
    dft = tune[tune["is_default"]].iloc[0]
    if dft[p2] in xs and dft[p1] in ys:
        art["default"] = ax.add_patch(Rectangle((xs.index(dft[p2]) - 0.42, ys.index(dft[p1]) - 0.42), 0.84, 0.84,
                                                fill=False, edgecolor="white", linewidth=1.6, linestyle="--",
                                                zorder=4))
    ax.figure.colorbar(im, ax=ax, label=f"mean score, {unit}", extend="max")
    return Drawn(ax, art)


def plot_tune_history(tune: pd.DataFrame, ax=None, *, unit: str = "points per player-round") -> Drawn:
    """A search's candidates in the order tried: each one's paired difference from the defaults
    (95% CI; filled when it excludes 0) and the lowest so far (a step line).

    Returns
    -------
    Drawn
        ``candidates`` (interval excludes 0) and ``candidates (not significant)``, when any; ``best so far``.
    """
    ax = _axes(ax)
    df = tune.sort_values("candidate", kind="stable")
    x = np.arange(len(df), dtype=float)
    y = df["diff_vs_default"].to_numpy(float)
    lo, hi = df["diff_ci95_low"].to_numpy(float), df["diff_ci95_high"].to_numpy(float)
    sig = np.array([_significant(a, b) for a, b in zip(lo, hi)], dtype=bool)
    art: dict[str, Any] = {}
    for mask, filled in ((sig, True), (~sig, False)):
        if mask.any():
            cont = ax.errorbar(x[mask], y[mask], yerr=_err(y[mask], lo[mask], hi[mask]), fmt="o", linestyle="none",
                               color="#1f77b4", markerfacecolor="#1f77b4" if filled else "white", markersize=4.5,
                               capsize=2, elinewidth=1.0,
                               label="candidate (interval " + ("excludes" if filled else "includes") + " 0)")
            art["candidates" if filled else "candidates (not significant)"] = cont
    art["best so far"] = ax.step(x, np.minimum.accumulate(y), where="post", color="#d62728", linewidth=1.3,
                                 label="lowest so far")[0]
    ax.axhline(0.0, color="0.35", linewidth=0.9, linestyle="--", zorder=1)
    ax.set_xlabel("candidate (in the order tried)")
    ax.set_ylabel(f"candidate − defaults, {unit}\n(same deals; 95% CI)")
    ax.legend(fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)
    return Drawn(ax, art)


def plot_tune_confirm(best: Mapping[str, Any], confirm: Mapping[str, Any], ax=None, *,
                      unit: str = "points per player-round") -> Drawn:
    """The best candidate minus the defaults twice: on the tuning deals (where it was picked, so biased
    in its favour) and on the fresh deals of the confirmation; paired 95% CIs, filled when they exclude 0.

    Parameters
    ----------
    best : dict
        The best candidate's row of ``tune.csv`` (``diff_vs_default``, ``diff_ci95_low/high``).
    confirm : dict
        :attr:`TuneResult.confirm <handsim.tournament.tune.TuneResult>` (``diff``, ``diff_ci95_low/high``).

    Returns
    -------
    Drawn
        ``tuning deals``, ``fresh deals``.
    """
    ax = _axes(ax, figsize=(6.4, 2.4))
    art = {}
    rows = (("tuning deals", best["diff_vs_default"], best["diff_ci95_low"], best["diff_ci95_high"], "#7f7f7f"),
            ("fresh deals", confirm["diff"], confirm["diff_ci95_low"], confirm["diff_ci95_high"], "#d62728"))
    for i, (name, v, lo, hi, colour) in enumerate(rows):
        art[name] = _point(ax, float(v), -i, xerr=_err([v], [lo], [hi]), colour=colour,
                           filled=_significant(float(lo), float(hi)))
    ax.axvline(0.0, color="0.35", linewidth=0.9, linestyle="--", zorder=1)
    ax.set_yticks([0, -1], ["search\n(tuning deals)", "confirmation\n(fresh deals)"])
    ax.set_ylim(-1.6, 0.6)
    ax.set_xlabel(f"best − defaults, {unit} (paired 95% CI; < 0: the best scores less)")
    ax.grid(True, axis="x", alpha=0.3)
    return Drawn(ax, art)
