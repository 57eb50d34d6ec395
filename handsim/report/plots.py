"""Figures of a study, drawn with matplotlib (imported lazily).

Every plotting function takes ``ax=None`` (a new figure is made on the Agg canvas, without
pyplot) and returns a :class:`Drawn`: the axes and the artists drawn, by series label.  The
functions work on the DataFrames of :class:`handsim.stats.StudyAccumulator`; the varying rule
options are the columns before ``lineup``.

Conventions kept by every figure:

* one colour per policy (and per team), the same in every figure of every report: pass the
  report's ``colours`` mapping (:func:`policy_colours`, made of :func:`policy_colour`: fixed
  colours for the built-in policies, a colour derived from the name for any other);
* values of a rule option are discrete: drawn as points, never joined by lines;
* 95% confidence intervals are drawn *over* hollow markers, so they show whenever they are
  wider than a line; series that are the same numbers are drawn once, with a merged label;
* axes of shares start at 0; y labels name the unit and the interval.
"""

from __future__ import annotations

import io
import math
import warnings
import zlib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

__all__ = [
    "Drawn",
    "BUILTIN_COLOURS",
    "OTHER_COLOURS",
    "policy_colour",
    "policy_colours",
    "plot_mean_score",
    "plot_rate",
    "plot_effect",
    "plot_versus",
    "plot_lineup_pairs",
    "plot_match_win",
    "plot_team_score",
    "plot_round_length",
    "plot_paired",
    "plot_final_totals",
    "plot_team_margin",
    "plot_team_margin_summary",
    "png_bytes",
]

RATE_NAMES = {
    "p_out": "P(went out)",
    "p_hand": "P(Hand)",
    "p_unopened": "P(unopened)",
    "p_joker_left": "P(joker left in hand)",
    "match_win_rate": "P(won match)",
}
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
#: The colours of the built-in policies, fixed so that a policy looks the same in every report:
#: classic Hand's greedy, hold-hand, card-reader, sampler and random, and Russian Hand's patient
#: (its greedy and random take the classic policies' colours).
BUILTIN_COLOURS = {
    "greedy": "#1f77b4",  # blue
    "hold-hand": "#ff7f0e",  # orange
    "card-reader": "#2ca02c",  # green
    "sampler": "#9467bd",  # purple
    "random": "#7f7f7f",  # grey
    "patient": "#d62728",  # red
}
#: The colours of every other policy (user-written, parameterised variants of built-ins) and of
#: teams: none of them is a built-in's (:func:`policy_colour`).
OTHER_COLOURS = ("#8c564b", "#e377c2", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173",
                 "#e7ba52", "#00a087")


class Drawn(NamedTuple):
    """What a plotting function drew.

    Attributes
    ----------
    ax : matplotlib.axes.Axes
        The axes drawn on (``ax.figure`` is the figure).
    artists : dict of str -> matplotlib artist
        One entry per series (e.g. an ``ErrorbarContainer`` or a ``Line2D``), keyed by its label.
    """

    ax: Any
    artists: dict[str, Any]


# ----------------------------------------------------------------------------------------------
# helpers


def new_figure(figsize: tuple[float, float]):
    """A matplotlib Figure on an Agg canvas (no pyplot, no global backend change)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def grid(n: int, ncols: int = 2, w: float = 6.0, h: float = 3.8, sharey: bool = False):
    """A figure with ``n`` panels, ``ncols`` per row; returns ``(fig, axes)``."""
    ncols = max(1, min(ncols, n))
    nrows = math.ceil(n / ncols)
    fig = new_figure((w * ncols, h * nrows))
    axes = []
    for i in range(n):
        kw = {"sharey": axes[0]} if sharey and axes else {}
        axes.append(fig.add_subplot(nrows, ncols, i + 1, **kw))
    return fig, axes


def png_bytes(fig, dpi: int = 100) -> bytes:
    """The figure as PNG bytes."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        # small studies can leave a panel too narrow for constrained layout; the figure is still drawn
        warnings.filterwarnings("ignore", message="constrained_layout not applied")
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def figure_legend(fig, axes, ncols: int | None = None) -> None:
    """One legend for all panels, below them (series keep their colour in every panel)."""
    seen: dict[str, Any] = {}
    for ax in axes:
        h, l = ax.get_legend_handles_labels()
        for handle, label in zip(h, l):
            seen.setdefault(label, handle)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    if seen:
        n = len(seen)
        fig.legend(list(seen.values()), list(seen.keys()), loc="outside lower center", fontsize="small",
                   ncols=ncols or (1 if n <= 2 else 2 if n <= 6 else 3), frameon=False)


def _axes(ax, figsize=(6.4, 4.2)):
    if ax is None:
        ax = new_figure(figsize).add_subplot()
    return ax


def varying(df: pd.DataFrame, before: str = "lineup") -> list[str]:
    """The varying option columns of a frame: those before ``lineup`` (``lineup_a`` in lineups.csv);
    in a paired frame (paired.csv) those between ``to_value`` and ``deals``."""
    cols = list(df.columns)
    if "to_value" in cols and "deals" in cols:
        return [str(c) for c in cols[cols.index("to_value") + 1: cols.index("deals")]]
    for col in (before, "lineup_a"):
        if col in cols:
            return [str(c) for c in cols[: cols.index(col)]]
    return []


def nunique(df: pd.DataFrame, col: str) -> int:
    return int(df[col].nunique(dropna=False)) if col in df.columns and len(df) else 0


def is_numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def human(option: str) -> str:
    return option.replace("_", " ")


def value_text(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def lineup_text(lineup: str) -> str:
    return str(lineup).replace(",", ", ")


def policy_colour(name: str) -> str:
    """The colour of a policy (or team) name, the same in every figure of every report.

    Parameters
    ----------
    name : str
        A policy label as in ``summary.csv`` (``greedy``, ``patient:hold_max=2``, a user-written
        policy's name) or a team key (``team A: <policies>``).

    Returns
    -------
    str
        ``#rrggbb``: :data:`BUILTIN_COLOURS` for a built-in policy of either game; for any other
        name (a parameterised variant of a built-in included, so that ``patient:hold_max=2`` is not
        drawn as ``patient``) one of :data:`OTHER_COLOURS`, picked by a CRC-32 of the name: stable
        across runs and machines (Python's ``hash`` of a string is not).
    """
    key = str(name).strip()
    if key in BUILTIN_COLOURS:
        return BUILTIN_COLOURS[key]
    return OTHER_COLOURS[zlib.crc32(key.encode("utf-8")) % len(OTHER_COLOURS)]


def policy_colours(names: Sequence[str]) -> dict[str, str]:
    """One colour per name of a report (policies, then teams): :func:`policy_colour` of each, so a
    policy has the same colour in every report.

    Two names of one report never share a colour while :data:`OTHER_COLOURS` has one free: when
    names that are not built-ins pick the same colour, the first of them in sorted order keeps it
    and the next takes the following free colour of :data:`OTHER_COLOURS` (so the answer depends
    on the set of names, not on their order).

    Returns
    -------
    dict of str -> str
        Name -> ``#rrggbb``, in order of first appearance.
    """
    unique = list(dict.fromkeys(str(n) for n in names))
    chosen = {n: BUILTIN_COLOURS[n.strip()] for n in unique if n.strip() in BUILTIN_COLOURS}
    used = set(chosen.values())
    for n in sorted(n for n in unique if n not in chosen):
        i = OTHER_COLOURS.index(policy_colour(n))
        free = [OTHER_COLOURS[(i + k) % len(OTHER_COLOURS)] for k in range(len(OTHER_COLOURS))]
        colour = next((c for c in free if c not in used), free[0])
        chosen[n] = colour
        used.add(colour)
    return {n: chosen[n] for n in unique}


def colour_of(colours: Mapping[str, str] | None, key: str) -> str:
    """``colours[key]`` (a report's :func:`policy_colours`), else :func:`policy_colour` of ``key``."""
    if colours is not None and key in colours:
        return colours[key]
    return policy_colour(key)


def _yerr(y, lo, hi) -> np.ndarray:
    y, lo, hi = (np.asarray(a, dtype=float) for a in (y, lo, hi))
    err = np.vstack([y - lo, hi - y])
    return np.clip(np.nan_to_num(err, nan=0.0), 0.0, None)


def pick_x(df: pd.DataFrame, options: Sequence[str], x: str | None) -> str | None:
    """``x`` if it varies in ``df``, else the first option that does, else None."""
    if x in options and nunique(df, x) > 1:
        return x
    for v in options:
        if nunique(df, v) > 1:
            return v
    return None


def _no_data(ax, text="no data"):
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def points_by_option(df: pd.DataFrame, ax, *, ycol: str, locol: str, hicol: str, options: Sequence[str],
                     x: str | None, colour_col: str, label_col: str | None = None, colours=None,
                     scale: float = 1.0, ylabel: str = "", zero_line: bool = False, include_zero: bool = False,
                     ref: float | None = None, ref_label: str = "") -> Drawn:
    """Points with 95% CI bars of ``ycol`` against one option, one series per value of ``colour_col``
    and of the other varying options (marker shape).  Identical series are drawn once.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows to draw (already filtered); holds ``options`` columns and ``colour_col``.
    ax : matplotlib.axes.Axes or None
    ycol, locol, hicol : str
        Value and interval columns (multiplied by ``scale``).
    options : list of str
        The varying options (columns); ``x`` is drawn on the x axis if it varies in ``df``.
    colour_col : str
        Column whose value picks the colour (``colours[value]``) and starts the label.
    label_col : str, optional
        Column whose value is the start of the label (default ``colour_col``).
    zero_line, include_zero : bool
        Draw a dashed line at 0 / make the y axis include 0.
    ref : float, optional
        A dotted reference line (e.g. a fair share), labelled ``ref_label``.

    Returns
    -------
    Drawn
    """
    ax = _axes(ax)
    drawn: dict[str, Any] = {}
    if not len(df):
        _no_data(ax)
        return Drawn(ax, drawn)
    label_col = label_col or colour_col
    xopt = pick_x(df, options, x)
    others = [o for o in options if o != xopt and nunique(df, o) > 1]
    numeric = xopt is not None and is_numeric(df[xopt])
    xs_all = [None] if xopt is None else list(dict.fromkeys(df[xopt].tolist()))
    if numeric:
        xs_all = sorted(xs_all)
    pos_of = {v: (float(v) if numeric else float(i)) for i, v in enumerate(xs_all)}
    keys = [label_col] + ([colour_col] if colour_col != label_col else []) + others
    series = []
    for key, g in df.groupby(keys, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        kd = dict(zip(keys, key))
        g = g.assign(_p=[pos_of[v] for v in (g[xopt] if xopt else [None] * len(g))]).sort_values("_p")
        arr = tuple(np.round(np.asarray(g[c], dtype=float) * scale, 9).tobytes() for c in ("_p", ycol, locol, hicol))
        series.append((kd, g, arr))
    # identical numbers: one series, a merged label
    merged: dict[tuple, list] = {}
    for kd, g, arr in series:
        merged.setdefault((kd[label_col], kd.get(colour_col), arr), []).append((kd, g))
    marker_of: dict[tuple, str] = {}
    groups = list(merged.values())
    n_series = len(groups)
    gap = min(np.diff(sorted(pos_of.values()))) if len(pos_of) > 1 else 1.0
    dodge = gap * (0.08 if n_series <= 6 else 0.04) if len(xs_all) <= 12 else 0.0
    for i, members in enumerate(groups):
        kd, g = members[0]
        other_vals = tuple(value_text(kd[o]) for o in others)
        parts = [str(kd[label_col])]
        if others:
            if len(members) == 1:
                parts.append(", ".join(f"{human(o)} {value_text(kd[o])}" for o in others))
            else:
                parts.append(_merged_text([m[0] for m in members], others) + " (same values)")
        label = " — ".join(parts) if len(parts) > 1 else parts[0]
        mk = marker_of.setdefault(other_vals if len(members) == 1 else ("merged", i), _MARKERS[len(marker_of) % len(_MARKERS)])
        colour = colour_of(colours, str(kd.get(colour_col)))
        xpos = np.asarray(g["_p"], dtype=float) + dodge * (i - (n_series - 1) / 2)
        y = np.asarray(g[ycol], dtype=float) * scale
        lo = np.asarray(g[locol], dtype=float) * scale
        hi = np.asarray(g[hicol], dtype=float) * scale
        cont = ax.errorbar(xpos, y, yerr=_yerr(y, lo, hi), fmt=mk, linestyle="none", color=colour,
                           markerfacecolor="white", markeredgewidth=1.3, markersize=6 if len(xs_all) <= 30 else 3.5,
                           ecolor=colour, elinewidth=1.4, capsize=3 if len(xs_all) <= 30 else 1.5, label=label)
        # the interval above the marker
        cont.lines[0].set_zorder(2.0)
        for art in list(cont.lines[1]) + list(cont.lines[2]):
            art.set_zorder(3.0)
        drawn[label] = cont
    if xopt is None:
        ax.set_xticks([0.0], ["all configurations"])
        ax.set_xlim(-0.6, 0.6)
    elif numeric:
        if len(xs_all) <= 12:
            ax.set_xticks([float(v) for v in xs_all], [value_text(v) for v in xs_all])
        ax.set_xlabel(human(xopt))
    else:
        ax.set_xticks(list(range(len(xs_all))), [value_text(v) for v in xs_all])
        ax.set_xlim(-0.5, len(xs_all) - 0.5)
        ax.set_xlabel(human(xopt))
    if zero_line:
        ax.axhline(0.0, color="0.35", linewidth=0.9, linestyle="--", zorder=1)
    if ref is not None:
        ax.axhline(ref, color="0.45", linewidth=0.9, linestyle=":", zorder=1, label=ref_label or None)
    if include_zero:
        lo_, hi_ = ax.get_ylim()
        if lo_ > 0:
            ax.set_ylim(0.0, hi_ * 1.05)
        elif hi_ < 0:
            ax.set_ylim(lo_ * 1.05, 0.0)
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    if drawn:
        ax.legend(fontsize="small", ncols=1 if len(drawn) <= 6 else 2)
    return Drawn(ax, drawn)


def _merged_text(members: Sequence[Mapping[str, Any]], options: Sequence[str]) -> str:
    """``"opening threshold 51, joker penalty 15 or 30"``: the options of merged identical series."""
    parts = []
    for o in options:
        vals = list(dict.fromkeys(value_text(m[o]) for m in members))
        parts.append(f"{human(o)} {' or '.join(vals)}")
    return ", ".join(parts)


def _filter(df, **eq):
    if not len(df):
        return df
    mask = np.ones(len(df), dtype=bool)
    for k, v in eq.items():
        if v is not None:
            mask &= (df[k].astype(str) == str(v)).to_numpy()
    return df[mask]


# ----------------------------------------------------------------------------------------------
# levels


def plot_mean_score(summary: pd.DataFrame, ax=None, *, lineup: str | None = None, policy: str | None = None,
                    seat: str = "all", x: str = "opening_threshold", colours=None) -> Drawn:
    """Mean score per round with 95% CIs, by one option; a colour per policy, a marker per value of the other options.

    Parameters
    ----------
    summary : pandas.DataFrame
        :meth:`StudyAccumulator.summary <handsim.stats.StudyAccumulator.summary>`.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure if None.
    lineup, policy : str, optional
        Keep one line-up (comma-joined names, as in the summary) / one policy.
    seat : str
        ``"all"`` (default), a relative seat ``"0"`` .. ``"P-1"``, or ``"team A"`` / ``"team B"``.
    x : str
        Option on the x axis (RULES.md name); if it did not vary, the first option that did;
        if none did, a single position.
    colours : dict, optional
        Policy name -> colour (:func:`policy_colours`).

    Returns
    -------
    Drawn
        ``artists`` maps each series label to its ``ErrorbarContainer``.
    """
    df = _filter(summary, seat=seat, lineup=lineup, policy=policy)
    return points_by_option(df, ax, ycol="mean_score", locol="ci95_low", hicol="ci95_high", options=varying(summary),
                            x=x, colour_col="policy", colours=colours,
                            ylabel="mean score per round (points; bars: 95% CI)")


def plot_rate(summary: pd.DataFrame, rate: str = "p_unopened", ax=None, *, lineup: str | None = None,
              policy: str | None = None, seat: str = "all", x: str = "opening_threshold", colours=None) -> Drawn:
    """A share (``p_hand``, ``p_unopened``, ``p_out`` or ``match_win_rate``) in percent with 95% CIs; the axis starts at 0.

    Parameters are those of :func:`plot_mean_score`, plus ``rate``, the summary column.

    Raises
    ------
    ValueError
        An unknown ``rate``.
    """
    if rate not in RATE_NAMES:
        raise ValueError(f"unknown rate {rate!r}: allowed {', '.join(RATE_NAMES)}")
    df = _filter(summary, seat=seat, lineup=lineup, policy=policy)
    unit = "matches" if rate == "match_win_rate" else "player-rounds"
    return points_by_option(df, ax, ycol=rate, locol=f"{rate}_ci95_low", hicol=f"{rate}_ci95_high",
                            options=varying(summary), x=x, colour_col="policy", colours=colours, scale=100.0,
                            include_zero=True, ylabel=f"{RATE_NAMES[rate]} (% of {unit}; bars: 95% CI)")


def plot_team_score(summary: pd.DataFrame, ax=None, *, lineup: str | None = None, x: str | None = None,
                    colours=None) -> Drawn:
    """A 2 v 2 team's summed score per round (points, 95% CI) by configuration, a colour per team."""
    df = summary[summary["seat"].astype(str).str.startswith("team")] if len(summary) else summary
    df = _filter(df, lineup=lineup)
    if len(df):
        df = df.assign(team=df["seat"].str.replace("team ", "team ") + ": " + df["policy"])
    return points_by_option(df, ax, ycol="mean_score", locol="ci95_low", hicol="ci95_high", options=varying(summary),
                            x=x, colour_col="team", colours=colours, include_zero=True,
                            ylabel="team score per round\n(points, both partners; 95% CI)")


def plot_match_win(summary: pd.DataFrame, ax=None, *, lineup: str | None = None, x: str | None = None,
                   teams: bool = False, colours=None) -> Drawn:
    """Share of matches won (95% CI) by configuration: per policy (all its seats), or per team.

    A dotted line marks the fair share: 1 / players for a player, 50% for a team.
    """
    if teams:
        df = summary[summary["seat"].astype(str).str.startswith("team")] if len(summary) else summary
        df = _filter(df, lineup=lineup)
        if len(df):
            df = df.assign(team=df["seat"] + ": " + df["policy"])
        col, ref, ref_label = "team", 50.0, "fair share (50%)"
    else:
        df = _filter(summary, seat="all", lineup=lineup)
        players = max(1, len({s for s in summary["seat"].astype(str) if s.isdigit()}))
        col, ref, ref_label = "policy", 100.0 / players, f"fair share (1 in {players})"
    if len(df):
        df = df[df["matches"] > 0]
    return points_by_option(df, ax, ycol="match_win_rate", locol="match_win_rate_ci95_low",
                            hicol="match_win_rate_ci95_high", options=varying(summary), x=x, colour_col=col,
                            colours=colours, scale=100.0, include_zero=True, ref=ref, ref_label=ref_label,
                            ylabel="matches won (%; bars: 95% CI)")


# ----------------------------------------------------------------------------------------------
# differences


def baseline_rows(paired: pd.DataFrame, option: str, baseline: Any) -> pd.DataFrame:
    """The rows of ``paired`` that change ``option`` from ``baseline`` to another value."""
    if not len(paired):
        return paired
    df = paired[paired["parameter"] == option]
    return df[df["from_value"].map(lambda v: value_text(v) == value_text(baseline))]


def plot_effect(paired: pd.DataFrame, option: str, ax=None, *, lineup: str | None = None, metric: str = "score",
                colours=None, baseline: Any = None) -> Drawn:
    """The effect of one rule option: paired difference from its first (baseline) value to each other value.

    x: the option's value; y: the per-deal difference of a policy's mean score (or of a share, in
    percentage points) against the baseline value, on the same deals, with 95% CIs; the baseline
    itself is the dashed 0 line.  A colour per policy, a marker per value of the other options.

    Parameters
    ----------
    paired : pandas.DataFrame
        :meth:`StudyAccumulator.paired <handsim.stats.StudyAccumulator.paired>`.
    option : str
        The option (``parameter`` column).
    metric : str
        ``"score"`` (points per round) or ``"p_out"``, ``"p_hand"``, ``"p_unopened"`` (percentage points).
    baseline : optional
        The value compared against (default: the first ``from_value`` of the option).

    Returns
    -------
    Drawn
    """
    if metric not in _PAIRED_METRICS:
        raise ValueError(f"unknown metric {metric!r}: allowed {', '.join(_PAIRED_METRICS)}")
    ycol, locol, hicol, scale, ylabel = _PAIRED_METRICS[metric]
    df = paired[paired["parameter"] == option] if len(paired) else paired
    if baseline is None and len(df):
        baseline = df["from_value"].iloc[0]
    df = baseline_rows(df, option, baseline)
    df = _filter(df, lineup=lineup)
    options = varying(paired)
    if len(df):
        df = df.copy()
        df[option] = df["to_value"].map(lambda v: v)
        try:
            df[option] = pd.to_numeric(df[option])
        except (TypeError, ValueError):
            df[option] = df[option].map(value_text)
    others = [o for o in options if o != option]
    one_value = len(df) and nunique(df, option) == 1
    xo = next((o for o in others if nunique(df, o) > 1), option) if one_value else option
    order = [option] + others
    d = points_by_option(df, ax, ycol=ycol, locol=locol, hicol=hicol, options=order, x=xo,
                         colour_col="policy", colours=colours, scale=scale, zero_line=True,
                         ylabel=f"{ylabel}\nvs {human(option)} {value_text(baseline)}")
    if len(df):
        if xo == option and nunique(df, option) == 1:  # one comparison and nothing else varies
            d.ax.set_xticks([0.0], [f"{value_text(baseline)} → {value_text(df[option].iloc[0])}"])
            d.ax.set_xlabel(f"{human(option)} (baseline {value_text(baseline)} = dashed line)")
        elif xo == option:
            d.ax.set_xlabel(f"{human(option)} (baseline {value_text(baseline)} = dashed line)")
            if is_numeric(df[option]):
                try:
                    bx = float(baseline)
                except (TypeError, ValueError):
                    bx = None
                if bx is not None:
                    d.ax.plot([bx], [0.0], "D", color="0.2", markersize=5, zorder=4, label="baseline")
                    if nunique(df, option) <= 11:
                        ticks = sorted({bx, *[float(v) for v in df[option]]})
                        d.ax.set_xticks(ticks, [value_text(v) for v in ticks])
        else:
            to = value_text(df[option].iloc[0])
            d.ax.set_xlabel(f"{human(xo)} ({human(option)} {value_text(baseline)} → {to})")
    return d


_PAIRED_METRICS = {
    "score": ("mean_diff", "ci95_low", "ci95_high", 1.0, "Δ mean score per round (points; 95% CI)"),
    "p_out": ("p_out_diff", "p_out_diff_ci95_low", "p_out_diff_ci95_high", 100.0, "Δ P(went out) (pp; 95% CI)"),
    "p_hand": ("p_hand_diff", "p_hand_diff_ci95_low", "p_hand_diff_ci95_high", 100.0, "Δ P(Hand) (pp; 95% CI)"),
    "p_unopened": ("p_unopened_diff", "p_unopened_diff_ci95_low", "p_unopened_diff_ci95_high", 100.0,
                   "Δ P(unopened) (pp; 95% CI)"),
}


def plot_paired(paired: pd.DataFrame, ax=None, *, metric: str = "score", lineup: str | None = None,
                policy: str | None = None, colours=None, max_rows: int = 60) -> Drawn:
    """Forest plot of paired differences between configurations (c2 − c1) with 95% CIs.

    Filled markers: the interval excludes 0; hollow: not significant.  At most ``max_rows`` rows
    are drawn (the first ones; a note says how many were left out).

    Parameters
    ----------
    paired : pandas.DataFrame
        :meth:`StudyAccumulator.paired <handsim.stats.StudyAccumulator.paired>`.
    ax : matplotlib.axes.Axes, optional
    metric : str
        ``"score"`` (points per round) or ``"p_out"``, ``"p_hand"``, ``"p_unopened"`` (percentage points).
    lineup, policy : str, optional
        Keep one line-up / policy.

    Returns
    -------
    Drawn
        ``artists`` maps each row label to its ``ErrorbarContainer``.
    """
    if metric not in _PAIRED_METRICS:
        raise ValueError(f"unknown metric {metric!r}: allowed {', '.join(_PAIRED_METRICS)}")
    ycol, locol, hicol, scale, xlabel = _PAIRED_METRICS[metric]
    df = _filter(paired, lineup=lineup, policy=policy)
    total = len(df)
    df = df.iloc[:max_rows]
    if ax is None:
        ax = new_figure((7.5, max(2.5, 0.3 * len(df) + 1.2))).add_subplot()
    drawn: dict[str, Any] = {}
    if not len(df):
        _no_data(ax, "no paired comparisons")
        return Drawn(ax, drawn)
    options = varying(paired)
    with_lineup = nunique(df, "lineup") > 1
    labels = []
    for i, row in enumerate(df.to_dict("records")):
        v, lo, hi = (float(row[c]) * scale for c in (ycol, locol, hicol))
        sig = not (math.isnan(lo) or math.isnan(hi) or lo <= 0.0 <= hi)
        others = [o for o in options if o != row["parameter"]]
        label = (f"{row['policy']}: {human(row['parameter'])} {value_text(row['from_value'])}"
                 f" → {value_text(row['to_value'])}")
        if others:
            label += " (" + ", ".join(f"{human(o)} {value_text(row[o])}" for o in others) + ")"
        if with_lineup:
            label += f" [{lineup_text(row['lineup'])}]"
        colour = colour_of(colours, str(row["policy"]))
        cont = ax.errorbar([v], [-i], xerr=_yerr([v], [lo], [hi]), fmt="o", capsize=3, color=colour,
                           markerfacecolor=colour if sig else "white")
        cont.lines[0].set_zorder(2.0)
        for art in list(cont.lines[1]) + list(cont.lines[2]):
            art.set_zorder(3.0)
        drawn[label] = cont
        labels.append(label)
    ax.axvline(0.0, color="0.3", linewidth=1, linestyle="--")
    ax.set_yticks([-i for i in range(len(labels))], labels, fontsize="small")
    ax.set_ylim(-len(labels) + 0.5, 0.5)
    ax.set_xlabel(xlabel + (f" — first {len(df)} of {total}" if total > len(df) else ""))
    ax.grid(True, axis="x", alpha=0.3)
    return Drawn(ax, drawn)


def plot_versus(versus: pd.DataFrame, ax=None, *, lineup: str | None = None, x: str | None = None,
                colours=None) -> Drawn:
    """Policy against policy at the same table: per-deal difference A − B of the two policies' mean
    scores (points per round, paired 95% CI) by configuration.  Below 0: A scores less (better)."""
    df = _filter(versus, lineup=lineup)
    if len(df):
        df = df.assign(pair=df["policy_a"] + " − " + df["policy_b"])
    return points_by_option(df, ax, ycol="mean_diff", locol="ci95_low", hicol="ci95_high", options=varying(versus),
                            x=x, colour_col="policy_a", label_col="pair", colours=colours, zero_line=True,
                            ylabel="A − B, points per round\n(same deals; 95% CI; < 0: A better)")


_LINEUP_METRICS = {
    "score": ("mean_diff", "ci95_low", "ci95_high", 1.0, "Δ score of that player\n(points per round; 95% CI)"),
    "team": ("team_diff", "team_diff_ci95_low", "team_diff_ci95_high", 1.0,
             "Δ team score\n(points per round; 95% CI)"),
    "total": ("total_diff", "total_diff_ci95_low", "total_diff_ci95_high", 1.0,
              "Δ final match total\n(points; 95% CI)"),
    "team_total": ("team_total_diff", "team_total_diff_ci95_low", "team_total_diff_ci95_high", 1.0,
                   "Δ final team total\n(points; 95% CI)"),
    "win": ("match_win_diff", "match_win_diff_ci95_low", "match_win_diff_ci95_high", 100.0,
            "Δ P(won match)\n(percentage points; 95% CI)"),
}


def plot_lineup_pairs(lineups: pd.DataFrame, ax=None, *, metric: str = "score", x: str | None = None,
                      colours=None) -> Drawn:
    """Switching one line-up position from policy B to policy A, on the same deals (matches): the
    paired difference (A in the seat minus B in the seat) of ``metric`` by configuration.

    Parameters
    ----------
    lineups : pandas.DataFrame
        :meth:`StudyAccumulator.lineup_pairs <handsim.stats.StudyAccumulator.lineup_pairs>`.
    metric : str
        ``"score"`` (that player's points per round), ``"team"`` (its team's), ``"total"``,
        ``"team_total"`` (final match totals) or ``"win"`` (P(won match), percentage points).

    Returns
    -------
    Drawn
    """
    if metric not in _LINEUP_METRICS:
        raise ValueError(f"unknown metric {metric!r}: allowed {', '.join(_LINEUP_METRICS)}")
    ycol, locol, hicol, scale, ylabel = _LINEUP_METRICS[metric]
    df = lineups
    if len(df):
        df = df[df[ycol].notna()]
        df = df.assign(change=[f"position {int(r['position'])}: {r['policy_a']} instead of {r['policy_b']}"
                               for r in df.to_dict("records")])
    return points_by_option(df, ax, ycol=ycol, locol=locol, hicol=hicol, options=varying(lineups, "lineup_a"), x=x,
                            colour_col="policy_a", label_col="change", colours=colours, scale=scale, zero_line=True,
                            ylabel=ylabel)


# ----------------------------------------------------------------------------------------------
# distributions


def spread_pick(values: Sequence, k: int) -> list:
    """At most ``k`` of ``values``: the first, the last and evenly spaced ones between."""
    values = list(values)
    if len(values) <= k:
        return values
    idx = sorted({round(i * (len(values) - 1) / (k - 1)) for i in range(k)})
    return [values[i] for i in idx]


def plot_round_length(turns: pd.DataFrame, ax=None, *, lineup: str | None = None, max_configs: int = 6) -> Drawn:
    """Distribution of round length (all players' turns together) per configuration, as a share of rounds.

    Void rounds (the stock ran out too often, RULES.md section 3) are drawn apart, as crosses at
    their lengths, so that their spike is not read as ordinary rounds.  Configurations with the
    same distribution are drawn once; at most ``max_configs`` configurations (first, last, evenly
    spaced) are drawn.

    Parameters
    ----------
    turns : pandas.DataFrame
        ``histograms()["turns"]`` (columns: varying options, ``lineup``, ``turns``, ``rounds``,
        ``void_rounds``).
    ax : matplotlib.axes.Axes, optional
    lineup : str, optional
        Keep one line-up.

    Returns
    -------
    Drawn
        ``artists`` maps each series label to its ``Line2D`` (void rounds: ``"<label>: void rounds"``).
    """
    ax = _axes(ax)
    df = _filter(turns, lineup=lineup)
    drawn: dict[str, Any] = {}
    if not len(df):
        _no_data(ax)
        return Drawn(ax, drawn)
    opts = [v for v in varying(turns) if nunique(df, v) > 1]
    keys = opts + (["lineup"] if nunique(df, "lineup") > 1 else [])
    groups = list(df.groupby(keys, sort=False, dropna=False)) if keys else [((), df)]
    merged: dict[bytes, list] = {}
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        sig = g[["turns", "rounds", "void_rounds"]].to_numpy(np.int64).tobytes()
        merged.setdefault(sig, []).append((key, g))
    chosen = spread_pick(list(merged.values()), max_configs)
    import matplotlib

    cmap = matplotlib.colormaps["viridis"]
    void_labelled = False
    for i, members in enumerate(chosen):
        key, g = members[0]
        if keys:
            label = _merged_text([dict(zip(keys, [lineup_text(v) if k == "lineup" else v for k, v in zip(keys, kk)]))
                                  for kk, _ in members], keys)
        else:
            label = "all rounds"
        total = int(g["rounds"].sum())
        t = np.asarray(g["turns"], dtype=np.int64)
        full = np.arange(t.min(), t.max() + 1)
        counts = np.zeros(len(full))
        voids = np.zeros(len(full))
        counts[t - t.min()] = np.asarray(g["rounds"], dtype=float) - np.asarray(g["void_rounds"], dtype=float)
        voids[t - t.min()] = np.asarray(g["void_rounds"], dtype=float)
        colour = cmap(0.9 * i / max(1, len(chosen) - 1)) if len(chosen) > 1 else "#1f77b4"
        mean = float((np.asarray(g["turns"]) * np.asarray(g["rounds"])).sum()) / total
        nv = int(voids.sum())
        (line,) = ax.step(full, counts / total, where="mid", color=colour, linewidth=1.3,
                          label=f"{label} (mean {mean:.1f} turns; void {_share(nv / total)})")
        drawn[label] = line
        if nv:
            m = voids > 0
            (vl,) = ax.plot(full[m], voids[m] / total, "x", color=colour, markersize=6, markeredgewidth=1.5,
                            label=None if void_labelled else "× void rounds (stock ran out), at their length")
            void_labelled = True
            drawn[f"{label}: void rounds"] = vl
    if len(merged) > len(chosen):
        ax.set_title(f"{len(chosen)} of {len(merged)} configurations", fontsize="small", loc="right")
    ax.set_xlabel("round length (turns, all players' turns together)")
    ax.set_ylabel("share of rounds")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return Drawn(ax, drawn)


def _share(p: float) -> str:
    from .document import fmt_pct

    return fmt_pct(p)


def nice_width(span: float, bins: int = 40) -> int:
    """A bin width of 1, 2 or 5 times a power of ten giving about ``bins`` bins over ``span``."""
    raw = max(span / bins, 1.0)
    p = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * p >= raw:
            return int(m * p)
    return int(10 * p)


_STYLES = ("-", "--", ":", "-.")


def _binned_setup(df: pd.DataFrame | None, lineup: str | None, col: str, width: int | None, max_configs: int):
    """The rows of one line-up, the bin width, the varying options and the configurations to draw
    (at most ``max_configs``) of a histogram frame; None when there are no rows."""
    df = _filter(df, lineup=lineup) if df is not None else pd.DataFrame()
    if not len(df):
        return None
    if width is None:
        width = nice_width(int(df[col].max()) - int(df[col].min()))
    opts = [v for v in varying(df) if nunique(df, v) > 1]
    cfgs = list(dict.fromkeys(tuple(r) for r in df[opts].itertuples(index=False))) if opts else [()]
    return df, width, opts, spread_pick(cfgs, max_configs)


def _binned_share(values, counts, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin centres (points) and the share of the total count per bin of ``width`` points."""
    t = np.asarray(values, dtype=np.int64)
    c = np.asarray(counts, dtype=float)
    b = np.floor_divide(t, width)
    idx = np.arange(b.min(), b.max() + 1)
    share = np.zeros(len(idx))
    np.add.at(share, b - b.min(), c)
    return (idx + 0.5) * width, share / c.sum()


def plot_final_totals(total: pd.DataFrame, ax=None, *, lineup: str | None = None,
                      team_total: pd.DataFrame | None = None, width: int | None = None, colours=None,
                      max_configs: int = 3) -> Drawn:
    """Distribution of final match totals (share of matches per bin of points).

    With ``team_total`` given, the team totals are drawn (one line per team) and ``total`` is not;
    otherwise one line per policy (all its seats).  A line style per configuration (at most
    ``max_configs``).  Give the same ``width`` to every panel of a figure so that bins compare.

    Parameters
    ----------
    total : pandas.DataFrame
        ``histograms()["total"]`` (columns: varying options, ``lineup``, ``policy``, ``total``,
        ``count``).
    ax : matplotlib.axes.Axes, optional
    lineup : str, optional
        Keep one line-up.
    team_total : pandas.DataFrame, optional
        ``histograms()["team_total"]``.
    width : int, optional
        Bin width in points (default: about 40 bins over the range drawn).

    Returns
    -------
    Drawn
        ``artists`` maps each series label to its ``Line2D``.
    """
    ax = _axes(ax)
    teams = team_total is not None and len(team_total) > 0
    drawn: dict[str, Any] = {}
    setup = _binned_setup(team_total if teams else total, lineup, "total", width, max_configs)
    if setup is None:
        _no_data(ax, "no matches")
        return Drawn(ax, drawn)
    df, width, opts, cfgs = setup
    who = ["team", "policy"] if teams else ["policy"]
    for ci, cfg in enumerate(cfgs):
        g0 = df
        for o, v in zip(opts, cfg):
            g0 = g0[g0[o] == v]
        for key, g in g0.groupby(who, sort=False):
            key = key if isinstance(key, tuple) else (key,)
            name = f"{key[0]}: {key[1]}" if teams else str(key[0])
            label = name + (" — " + ", ".join(f"{human(o)} {value_text(v)}" for o, v in zip(opts, cfg)) if opts else "")
            x, share = _binned_share(g["total"], g["count"], width)
            (line,) = ax.step(x, share, where="mid", color=colour_of(colours, name),
                              linestyle=_STYLES[ci % len(_STYLES)], linewidth=1.3, label=label)
            drawn[label] = line
    return _share_axes(Drawn(ax, drawn),
                       f"final {'team ' if teams else ''}match total (points, bins of {width}; lower is better)")


def _share_axes(drawn: Drawn, xlabel: str) -> Drawn:
    """Label and finish the axes of a histogram drawn as shares of matches."""
    ax = drawn.ax
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of matches")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper right")
    return drawn


def plot_team_margin(margin: pd.DataFrame, ax=None, *, lineup: str | None = None, width: int | None = None,
                     colours=None, max_configs: int = 3) -> Drawn:
    """Distribution of the 2 v 2 team margin: team A's final match total minus team B's.

    Share of matches per bin of ``width`` points, one line per configuration (a line style per
    configuration, at most ``max_configs``), a dashed line at 0; left of it team A finished lower.

    Parameters
    ----------
    margin : pandas.DataFrame
        ``histograms()["team_margin"]`` (columns: varying options, ``lineup``, ``team_a``,
        ``team_b``, ``margin`` (points), ``count`` (matches)).
    ax : matplotlib.axes.Axes, optional
    lineup : str, optional
        Keep one line-up.
    width : int, optional
        Bin width in points (default: about 40 bins over the range drawn); give every panel of a
        figure the same width.
    colours : mapping, optional
        Colours keyed ``"team A: <policies>"`` (as in :func:`policy_colours` of a report).

    Returns
    -------
    Drawn
        ``artists`` maps each series label to its ``Line2D``.
    """
    ax = _axes(ax)
    drawn: dict[str, Any] = {}
    setup = _binned_setup(margin, lineup, "margin", width, max_configs)
    if setup is None:
        _no_data(ax, "no matches")
        return Drawn(ax, drawn)
    df, width, opts, cfgs = setup
    for ci, cfg in enumerate(cfgs):
        g = df
        for o, v in zip(opts, cfg):
            g = g[g[o] == v]
        team_a = str(g["team_a"].iloc[0])
        label = (", ".join(f"{human(o)} {value_text(v)}" for o, v in zip(opts, cfg)) if opts
                 else f"team A: {team_a} v team B: {g['team_b'].iloc[0]}")
        x, share = _binned_share(g["margin"], g["count"], width)
        (line,) = ax.step(x, share, where="mid", color=colour_of(colours, f"team A: {team_a}"),
                          linestyle=_STYLES[ci % len(_STYLES)], linewidth=1.3, label=label)
        drawn[label] = line
    ax.axvline(0.0, color="0.35", linewidth=0.9, linestyle="--", zorder=1)
    return _share_axes(Drawn(ax, drawn), f"team margin: team A's final total − team B's (points, bins of {width})")


def plot_team_margin_summary(table: pd.DataFrame, ax=None, *, metric: str = "mean", x: str | None = None,
                             colours=None) -> Drawn:
    """The team margin's mean (points per match) or the share of matches with margin < 0, with 95% CIs.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`handsim.stats.team_margin_table` (varying options, ``lineup``, ``team_a``,
        ``team_b``, ``mean_margin``, ``p_negative`` ... with their intervals).
    metric : {"mean", "negative"}
        ``"mean"``: the mean margin (points per match; dashed line at 0); ``"negative"``: the
        share of matches in which team A's total was lower (%, dotted line at 50%).
    colours : mapping, optional
        Colours keyed ``"team A: <policies>"``.

    Raises
    ------
    ValueError
        An unknown ``metric``.
    """
    if metric not in ("mean", "negative"):
        raise ValueError(f"unknown metric {metric!r}: allowed mean, negative")
    df = table
    if len(df):
        df = df.assign(team=["team A: " + str(a) for a in df["team_a"]],
                       match=[f"A: {a} v B: {b}" for a, b in zip(df["team_a"], df["team_b"])])
    if metric == "mean":
        return points_by_option(df, ax, ycol="mean_margin", locol="margin_ci95_low", hicol="margin_ci95_high",
                                options=varying(table), x=x, colour_col="team", label_col="match", colours=colours,
                                zero_line=True, ylabel="mean team margin A − B\n(points per match; 95% CI; < 0: A lower)")
    return points_by_option(df, ax, ycol="p_negative", locol="p_negative_ci95_low", hicol="p_negative_ci95_high",
                            options=varying(table), x=x, colour_col="team", label_col="match", colours=colours,
                            scale=100.0, ref=50.0, ref_label="even (50%)",
                            ylabel="matches with margin < 0\n(%, team A's total lower; 95% CI)")
