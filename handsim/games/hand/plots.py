"""Classic Hand's figures of a study, drawn with matplotlib (imported lazily) on the shared helpers of
:mod:`handsim.report.plots`.

Every plotting function takes ``ax=None`` (a new figure is made on the Agg canvas, without
pyplot) and returns a :class:`~handsim.report.plots.Drawn`: the axes and the artists drawn, by
series label.  The functions work on the DataFrames of
:class:`handsim.games.hand.stats.StudyAccumulator`; the varying rule options are the columns
before ``lineup``.  Every figure keeps the conventions of :mod:`handsim.report.plots` (one
colour per policy name, discrete option values as points, intervals over hollow markers).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from handsim.report.plots import (Drawn, axes_or_new, binned_share, colour_of, human, is_numeric, lineup_text,
                                  merged_text, new_figure, nice_width, no_data, nunique, points_by_option, rows_where,
                                  spread_pick, value_text, varying, yerr)

__all__ = [
    "RATE_NAMES",
    "plot_mean_score",
    "plot_rate",
    "plot_effect",
    "plot_versus",
    "plot_lineup_pairs",
    "plot_lineup_pairs_ranked",
    "plot_match_win",
    "plot_team_score",
    "plot_round_length",
    "plot_paired",
    "plot_final_totals",
    "plot_team_margin",
    "plot_team_margin_summary",
    "baseline_rows",
]

RATE_NAMES = {
    "p_out": "P(went out)",
    "p_hand": "P(Hand)",
    "p_unopened": "P(unopened)",
    "p_joker_left": "P(joker left in hand)",
    "match_win_rate": "P(won match)",
}


# ----------------------------------------------------------------------------------------------
# levels


def plot_mean_score(summary: pd.DataFrame, ax=None, *, lineup: str | None = None, policy: str | None = None,
                    seat: str = "all", x: str = "opening_threshold", colours=None) -> Drawn:
    """Mean score per round with 95% CIs, by one option; a colour per policy, a marker per value of the other options.

    Parameters
    ----------
    summary : pandas.DataFrame
        :meth:`StudyAccumulator.summary <handsim.games.hand.stats.StudyAccumulator.summary>`.
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
    df = rows_where(summary, seat=seat, lineup=lineup, policy=policy)
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
    df = rows_where(summary, seat=seat, lineup=lineup, policy=policy)
    unit = "matches" if rate == "match_win_rate" else "player-rounds"
    return points_by_option(df, ax, ycol=rate, locol=f"{rate}_ci95_low", hicol=f"{rate}_ci95_high",
                            options=varying(summary), x=x, colour_col="policy", colours=colours, scale=100.0,
                            include_zero=True, ylabel=f"{RATE_NAMES[rate]} (% of {unit}; bars: 95% CI)")


def plot_team_score(summary: pd.DataFrame, ax=None, *, lineup: str | None = None, x: str | None = None,
                    colours=None) -> Drawn:
    """A 2 v 2 team's summed score per round (points, 95% CI) by configuration, a colour per team."""
    df = summary[summary["seat"].astype(str).str.startswith("team")] if len(summary) else summary
    df = rows_where(df, lineup=lineup)
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
        df = rows_where(df, lineup=lineup)
        if len(df):
            df = df.assign(team=df["seat"] + ": " + df["policy"])
        col, ref, ref_label = "team", 50.0, "fair share (50%)"
    else:
        df = rows_where(summary, seat="all", lineup=lineup)
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
        :meth:`StudyAccumulator.paired <handsim.games.hand.stats.StudyAccumulator.paired>`.
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
    df = rows_where(df, lineup=lineup)
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
        :meth:`StudyAccumulator.paired <handsim.games.hand.stats.StudyAccumulator.paired>`.
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
    df = rows_where(paired, lineup=lineup, policy=policy)
    total = len(df)
    df = df.iloc[:max_rows]
    if ax is None:
        ax = new_figure((7.5, max(2.5, 0.3 * len(df) + 1.2))).add_subplot()
    drawn: dict[str, Any] = {}
    if not len(df):
        no_data(ax, "no paired comparisons")
        return Drawn(ax, drawn)
    options = varying(paired)
    with_lineup = nunique(df, "lineup") > 1
    rows = []
    for row in df.to_dict("records"):
        others = [o for o in options if o != row["parameter"]]
        label = (f"{row['policy']}: {human(row['parameter'])} {value_text(row['from_value'])}"
                 f" → {value_text(row['to_value'])}")
        if others:
            label += " (" + ", ".join(f"{human(o)} {value_text(row[o])}" for o in others) + ")"
        if with_lineup:
            label += f" [{lineup_text(row['lineup'])}]"
        rows.append((label, *(float(row[c]) * scale for c in (ycol, locol, hicol)),
                     colour_of(colours, str(row["policy"]))))
    return _forest(ax, rows, xlabel + (f" — first {len(df)} of {total}" if total > len(df) else ""))


def _forest(ax, rows, xlabel: str) -> Drawn:
    """A forest plot: one row per ``(label, value, low, high, colour)``, top down, the 95% interval
    over its marker, filled where the interval excludes 0 (hollow: not significant); a dashed line at 0."""
    drawn: dict[str, Any] = {}
    for i, (label, v, lo, hi, colour) in enumerate(rows):
        sig = not (math.isnan(lo) or math.isnan(hi) or lo <= 0.0 <= hi)
        cont = ax.errorbar([v], [-i], xerr=yerr([v], [lo], [hi]), fmt="o", capsize=3, color=colour,
                           markerfacecolor=colour if sig else "white")
        cont.lines[0].set_zorder(2.0)
        for art in list(cont.lines[1]) + list(cont.lines[2]):
            art.set_zorder(3.0)
        drawn[label] = cont
    ax.axvline(0.0, color="0.3", linewidth=1, linestyle="--")
    ax.set_yticks([-i for i in range(len(rows))], [r[0] for r in rows], fontsize="small")
    ax.set_ylim(-len(rows) + 0.5, 0.5)
    ax.set_xlabel(xlabel)
    ax.grid(True, axis="x", alpha=0.3)
    return Drawn(ax, drawn)


def plot_versus(versus: pd.DataFrame, ax=None, *, lineup: str | None = None, x: str | None = None,
                colours=None) -> Drawn:
    """Policy against policy at the same table: per-deal difference A − B of the two policies' mean
    scores (points per round, paired 95% CI) by configuration.  Below 0: A scores less (better)."""
    df = rows_where(versus, lineup=lineup)
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
        :meth:`StudyAccumulator.lineup_pairs <handsim.games.hand.stats.StudyAccumulator.lineup_pairs>`.
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


def plot_lineup_pairs_ranked(rows: pd.DataFrame, ax=None, *, metric: str = "score",
                             numbers: dict[str, int] | None = None, colours=None) -> Drawn:
    """Chosen switches of one line-up position as a forest, one row each, ordered by the paired
    difference of ``metric`` (the lowest at the top), with 95% CIs (filled where the interval excludes
    0): for studies with too many switches to draw each as a series of :func:`plot_lineup_pairs`.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of :meth:`StudyAccumulator.lineup_pairs <handsim.games.hand.stats.StudyAccumulator.lineup_pairs>`
        (e.g. those with the lowest and the highest difference).
    metric : str
        As :func:`plot_lineup_pairs`.
    numbers : dict, optional
        Line-up -> its number in the report; a row is labelled with the number of ``lineup_a``.

    Returns
    -------
    Drawn
        ``artists`` maps each row's label to its ``ErrorbarContainer``.
    """
    if metric not in _LINEUP_METRICS:
        raise ValueError(f"unknown metric {metric!r}: allowed {', '.join(_LINEUP_METRICS)}")
    ycol, locol, hicol, scale, xlabel = _LINEUP_METRICS[metric]
    df = rows[rows[ycol].notna()].sort_values(ycol, kind="stable") if len(rows) else rows
    if ax is None:
        ax = new_figure((8.0, max(2.5, 0.28 * len(df) + 1.2))).add_subplot()
    if not len(df):
        no_data(ax, "no line-ups differ in one position")
        return Drawn(ax, {})
    options = [o for o in varying(rows, "lineup_a") if nunique(rows, o) > 1]
    out = []
    for r in df.to_dict("records"):
        lu = r["lineup_a"]
        where = f"line-up {numbers[lu]}" if numbers and lu in numbers else lineup_text(lu)
        label = (f"{r['policy_a']} instead of {r['policy_b']} at position {int(r['position'])} ({where}"
                 + "".join(f", {human(o)} {value_text(r[o])}" for o in options) + ")")
        out.append((label, *(float(r[c]) * scale for c in (ycol, locol, hicol)),
                    colour_of(colours, str(r["policy_a"]))))
    return _forest(ax, out, xlabel.replace("\n", " "))


# ----------------------------------------------------------------------------------------------
# distributions


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
    ax = axes_or_new(ax)
    df = rows_where(turns, lineup=lineup)
    drawn: dict[str, Any] = {}
    if not len(df):
        no_data(ax)
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
            label = merged_text([dict(zip(keys, [lineup_text(v) if k == "lineup" else v for k, v in zip(keys, kk)]))
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
    from handsim.report.document import fmt_pct

    return fmt_pct(p)


_STYLES = ("-", "--", ":", "-.")


def _binned_setup(df: pd.DataFrame | None, lineup: str | None, col: str, width: int | None, max_configs: int):
    """The rows of one line-up, the bin width, the varying options and the configurations to draw
    (at most ``max_configs``) of a histogram frame; None when there are no rows."""
    df = rows_where(df, lineup=lineup) if df is not None else pd.DataFrame()
    if not len(df):
        return None
    if width is None:
        width = nice_width(int(df[col].max()) - int(df[col].min()))
    opts = [v for v in varying(df) if nunique(df, v) > 1]
    cfgs = list(dict.fromkeys(tuple(r) for r in df[opts].itertuples(index=False))) if opts else [()]
    return df, width, opts, spread_pick(cfgs, max_configs)


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
    ax = axes_or_new(ax)
    teams = team_total is not None and len(team_total) > 0
    drawn: dict[str, Any] = {}
    setup = _binned_setup(team_total if teams else total, lineup, "total", width, max_configs)
    if setup is None:
        no_data(ax, "no matches")
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
            x, share = binned_share(g["total"], g["count"], width)
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
    ax = axes_or_new(ax)
    drawn: dict[str, Any] = {}
    setup = _binned_setup(margin, lineup, "margin", width, max_configs)
    if setup is None:
        no_data(ax, "no matches")
        return Drawn(ax, drawn)
    df, width, opts, cfgs = setup
    for ci, cfg in enumerate(cfgs):
        g = df
        for o, v in zip(opts, cfg):
            g = g[g[o] == v]
        team_a = str(g["team_a"].iloc[0])
        label = (", ".join(f"{human(o)} {value_text(v)}" for o, v in zip(opts, cfg)) if opts
                 else f"team A: {team_a} v team B: {g['team_b'].iloc[0]}")
        x, share = binned_share(g["margin"], g["count"], width)
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
        :func:`handsim.games.hand.tables.team_margin_table` (varying options, ``lineup``, ``team_a``,
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
