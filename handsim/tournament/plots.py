"""Figures of tournaments and tuning runs.

Every function takes ``ax=None`` (a new figure is made on the Agg canvas, without pyplot),
imports matplotlib lazily and returns a :class:`Drawn`: the axes and the artists drawn, by label.
"""

from __future__ import annotations

import io
import math
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

__all__ = ["Drawn", "plot_ratings", "plot_crosstable", "plot_tune_curve", "plot_tune_grid", "plot_tune_history",
           "save_figure"]


class Drawn(NamedTuple):
    """What a plotting function drew: ``ax`` (``ax.figure`` is the figure) and ``artists`` by label."""

    ax: Any
    artists: dict[str, Any]


def _axes(ax, figsize=(6.4, 4.2)):
    if ax is not None:
        return ax
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig.add_subplot()


def save_figure(fig, path: Path) -> None:
    """Save ``fig`` as PNG (110 dpi) atomically."""
    from .._io import atomic_write

    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="constrained_layout not applied")
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    atomic_write(path, buf.getvalue())


def plot_ratings(ratings: pd.DataFrame, ax=None) -> Drawn:
    """The ratings (Elo scale) with their 95% intervals, strongest on top.

    Parameters
    ----------
    ratings : pandas.DataFrame
        As :func:`handsim.tournament.ratings.ratings_table` returns (``policy``, ``rating``,
        ``rating_ci95_low``, ``rating_ci95_high``).
    ax : matplotlib.axes.Axes, optional
    """
    df = ratings.sort_values("rating", kind="stable").reset_index(drop=True)
    ax = _axes(ax, figsize=(6.4, 1.2 + 0.45 * len(df)))
    y = np.arange(len(df))
    x = df["rating"].to_numpy(float)
    lo, hi = df["rating_ci95_low"].to_numpy(float), df["rating_ci95_high"].to_numpy(float)
    err = np.vstack([np.where(np.isnan(lo), 0, x - lo), np.where(np.isnan(hi), 0, hi - x)])
    art = ax.errorbar(x, y, xerr=err, fmt="o", capsize=4, color="C0")
    ax.axvline(0.0, color="0.6", linewidth=0.8, zorder=0)
    ax.set_yticks(y, df["policy"].tolist())
    ax.set_xlabel("rating (Elo scale, mean 0) with 95% CI")
    ax.set_title("Tournament ratings (Bradley-Terry on finishing order)")
    ax.grid(axis="x", alpha=0.3)
    return Drawn(ax, {"ratings": art})


def plot_crosstable(crosstable: pd.DataFrame, labels: Sequence[str], ax=None) -> Drawn:
    """Heat map of the mean per-deal score difference, row minus column (points per round).

    Negative (blue) means the row's policy scores less than the column's, i.e. does better; a
    cell whose 95% interval includes 0 is marked with ``~``.
    """
    K = len(labels)
    ax = _axes(ax, figsize=(1.6 + 0.9 * K, 1.2 + 0.8 * K))
    grid = np.full((K, K), np.nan)
    index = {l: i for i, l in enumerate(labels)}
    text = {}
    for _, r in crosstable.iterrows():
        i, j = index[r["policy"]], index[r["opponent"]]
        grid[i, j] = r["mean_diff"]
        ns = not (r["ci95_low"] > 0 or r["ci95_high"] < 0)
        text[(i, j)] = f"{r['mean_diff']:+.1f}" + ("~" if ns else "")
    span = np.nanmax(np.abs(grid)) if np.isfinite(grid).any() else 1.0
    span = span if span > 0 else 1.0
    im = ax.imshow(grid, cmap="RdBu_r", vmin=-span, vmax=span)
    for (i, j), s in text.items():
        dark = abs(grid[i, j]) > 0.6 * span
        ax.text(j, i, s, ha="center", va="center", fontsize=8, color="white" if dark else "black")
    ax.set_xticks(range(K), labels, rotation=30, ha="right")
    ax.set_yticks(range(K), labels)
    ax.set_xlabel("opponent")
    ax.set_ylabel("policy")
    ax.set_title("Mean score difference per round (row - column)")
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label="points per round (lower is better)")
    return Drawn(ax, {"crosstable": im})


def plot_tune_curve(tune: pd.DataFrame, param: str, ax=None) -> Drawn:
    """Mean score of each candidate against one parameter, with 95% intervals; best and default marked."""
    ax = _axes(ax)
    df = tune.sort_values(param, kind="stable")
    grid = df[~df["is_default"] | df["on_grid"]]
    x = grid[param].to_numpy(float)
    y = grid["mean_score"].to_numpy(float)
    art = {"candidates": ax.errorbar(x, y, yerr=np.vstack([y - grid["ci95_low"].to_numpy(float),
                                                           grid["ci95_high"].to_numpy(float) - y]),
                                     fmt="o-", capsize=3, color="C0", label="candidates (tuning deals)")}
    best = df[df["is_best"]]
    art["best"] = ax.plot(best[param], best["mean_score"], "*", color="C3", markersize=14, label="best")[0]
    default = df[df["is_default"]]
    art["default"] = ax.plot(default[param], default["mean_score"], "s", color="C2", markersize=8,
                             fillstyle="none", label="default")[0]
    ax.set_xlabel(param)
    ax.set_ylabel("mean score per round (lower is better)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return Drawn(ax, art)


def plot_tune_grid(tune: pd.DataFrame, params: Sequence[str], ax=None) -> Drawn:
    """Heat map of the mean score over a two-parameter grid (lower is better); best (star) and
    default (square) marked."""
    p1, p2 = params
    df = tune[tune["on_grid"]]
    xs = sorted(df[p2].unique())
    ys = sorted(df[p1].unique())
    grid = np.full((len(ys), len(xs)), np.nan)
    for _, r in df.iterrows():
        grid[ys.index(r[p1]), xs.index(r[p2])] = r["mean_score"]
    ax = _axes(ax, figsize=(2.2 + 0.5 * len(xs), 1.4 + 0.36 * len(ys)))
    finite = grid[np.isfinite(grid)]
    lo = float(finite.min()) if finite.size else 0.0
    # the colours span the better half of the grid, so that the region of the best stays readable;
    # worse cells are drawn in the last colour (the colour bar's arrow)
    hi = float(np.quantile(finite, 0.5)) if finite.size else 1.0
    hi = hi if hi > lo else lo + 1.0
    im = ax.imshow(grid, cmap="viridis_r", aspect="auto", origin="lower", vmin=lo, vmax=hi)
    if grid.size <= 400:
        for i in range(len(ys)):
            for j in range(len(xs)):
                if np.isfinite(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.1f}", ha="center", va="center", fontsize=6,
                            color="white" if grid[i, j] > lo + 0.6 * (hi - lo) else "black")
    ax.set_xticks(range(len(xs)), [_tick(v) for v in xs])
    ax.set_yticks(range(len(ys)), [_tick(v) for v in ys])
    ax.set_xlabel(p2)
    ax.set_ylabel(p1)
    art = {"grid": im}
    best = tune[tune["is_best"]].iloc[0]
    if best[p2] in xs and best[p1] in ys:
        art["best"] = ax.plot(xs.index(best[p2]), ys.index(best[p1]), "*", markersize=16, markerfacecolor="none",
                              markeredgecolor="red", markeredgewidth=1.5)[0]
    dft = tune[tune["is_default"]].iloc[0]
    if dft[p2] in xs and dft[p1] in ys:
        art["default"] = ax.plot(xs.index(dft[p2]), ys.index(dft[p1]), "s", color="white", markersize=9,
                                 fillstyle="none", markeredgewidth=2)[0]
    ax.set_title("Mean score per round on the tuning deals (lower is better)")
    ax.figure.colorbar(im, ax=ax, label="points per round", extend="max")
    return Drawn(ax, art)


def plot_tune_history(tune: pd.DataFrame, ax=None) -> Drawn:
    """The search's candidates in the order they were tried, with the best so far."""
    ax = _axes(ax)
    df = tune.sort_values("candidate", kind="stable")
    y = df["mean_score"].to_numpy(float)
    x = np.arange(len(df))
    art = {"candidates": ax.plot(x, y, "o", color="C0", alpha=0.6, label="candidate")[0],
           "best so far": ax.plot(x, np.minimum.accumulate(y), "-", color="C3", label="best so far")[0]}
    ax.set_xlabel("candidate (in the order tried)")
    ax.set_ylabel("mean score per round (lower is better)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return Drawn(ax, art)


def _tick(v: Any) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return str(int(f)) if math.isfinite(f) and f.is_integer() else f"{f:g}"
