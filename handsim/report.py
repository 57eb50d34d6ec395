"""Figures and a plain-words Markdown report of a study.

Everything here works on the DataFrames of :class:`handsim.stats.StudyAccumulator`
(:meth:`~handsim.stats.StudyAccumulator.summary`, :meth:`~handsim.stats.StudyAccumulator.paired`,
:meth:`~handsim.stats.StudyAccumulator.histograms`, :meth:`~handsim.stats.StudyAccumulator.versus`).
The varying rule options are the columns of the summary before ``lineup``.

Plotting functions take ``ax=None`` (a new figure is made, without pyplot, on the Agg canvas),
import matplotlib lazily and return a :class:`Drawn` (the axes and the artists drawn, by label).
They degrade gracefully: an option that did not vary is not used as an axis, and with nothing
varying every series is a single point.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ._io import atomic_write
from .rules import PARAMS
import pandas as pd

__all__ = [
    "Drawn",
    "plot_mean_score",
    "plot_rate",
    "plot_round_length",
    "plot_paired",
    "plot_final_totals",
    "write_report",
]

_RATE_NAMES = {
    "p_out": "P(went out)",
    "p_hand": "P(Hand)",
    "p_unopened": "P(unopened)",
    "match_win_rate": "P(won match)",
}


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
# small helpers


def _new_figure(figsize: tuple[float, float]):
    """A matplotlib Figure on an Agg canvas (no pyplot, no global backend change)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _axes(ax, figsize=(6.4, 4.2)):
    if ax is None:
        ax = _new_figure(figsize).add_subplot()
    return ax


def _varying(df: pd.DataFrame) -> list[str]:
    """The varying option columns of a summary / histogram frame: those before ``lineup``."""
    if "lineup" not in df.columns:
        return []
    return [str(c) for c in df.columns[: df.columns.get_loc("lineup")]]


def _is_numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def _nunique(df: pd.DataFrame, col: str) -> int:
    return int(df[col].nunique(dropna=False)) if col in df.columns and len(df) else 0


def _pick_x(df: pd.DataFrame, varying: list[str], x: str | None) -> str | None:
    if x in varying and _nunique(df, x) > 1:
        return x
    for v in varying:
        if _nunique(df, v) > 1:
            return v
    return None


def _human(option: str) -> str:
    return option.replace("_", " ")


def _lineup_text(lineup: str) -> str:
    return lineup.replace(",", ", ")


def _fmt(x: Any, nd: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)) or x is pd.NA:
        return "–"
    return f"{x:.{nd}f}"


def _signed(x: float, nd: int = 1) -> str:
    if x is None or math.isnan(x):
        return "–"
    if round(x, nd) == 0:
        return f"{0:.{nd}f}"
    return f"{x:+.{nd}f}"


def _lineup_policies(lineup: str) -> list[str]:
    """The policies of a line-up label (``"hold-hand,greedy:support_hand=1,greedy"``)."""
    from .policies import split_lineup

    try:
        return split_lineup(str(lineup))
    except ValueError:
        return [str(lineup)]


def _pct(p: float) -> str:
    if p is None or math.isnan(p):
        return "–"
    nd = 2 if 0 < p < 0.01 else 1
    return f"{100 * p:.{nd}f}%"


def _pp(d: float, nd: int = 1) -> str:
    """A difference of probabilities in percentage points, signed."""
    return "–" if d is None or math.isnan(d) else _signed(100 * d, nd)


def _ci_text(lo: float, hi: float, fmt=_fmt) -> str:
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "no interval"
    return f"{fmt(lo)} to {fmt(hi)}"


def _includes_zero(lo: float, hi: float) -> bool:
    return math.isnan(lo) or math.isnan(hi) or lo <= 0.0 <= hi


def _value_text(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    return str(v)


def _config_text(row: Mapping[str, Any], options: Sequence[str]) -> str:
    return ", ".join(f"{o} = {_value_text(row[o])}" for o in options)


def _series_label(parts: list[tuple[str, Any]]) -> str:
    return ", ".join(f"{k}={_value_text(v)}" if k else str(v) for k, v in parts) or "all"


def _yerr(y, lo, hi) -> np.ndarray:
    y, lo, hi = (np.asarray(a, dtype=float) for a in (y, lo, hi))
    err = np.vstack([y - lo, hi - y])
    return np.clip(np.nan_to_num(err, nan=0.0), 0.0, None)


# ----------------------------------------------------------------------------------------------
# plots


def _plot_by_option(summary, ycol, locol, hicol, ax, *, lineup, policy, seat, x, hue, scale, ylabel):
    ax = _axes(ax)
    df = summary
    if len(df):
        mask = df["seat"].astype(str) == str(seat)
        if lineup is not None:
            mask &= df["lineup"] == lineup
        if policy is not None:
            mask &= df["policy"] == policy
        df = df[mask]
    drawn: dict[str, Any] = {}
    if not len(df):
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
        return Drawn(ax, drawn)
    varying = _varying(summary)
    xopt = _pick_x(df, varying, x)
    splitters = [v for v in varying if v != xopt and _nunique(df, v) > 1]
    if hue in splitters:  # the hue option first in the labels
        splitters.remove(hue)
        splitters.insert(0, hue)
    keys = (["lineup"] if _nunique(df, "lineup") > 1 else []) + ["policy"] + splitters
    if xopt is None:
        xs_all = [None]
        numeric = False
    else:
        xs_all = list(dict.fromkeys(df[xopt].tolist()))
        numeric = _is_numeric(df[xopt])
        if numeric:
            xs_all = sorted(xs_all)
    groups = list(df.groupby(keys, sort=False, dropna=False))
    m = len(groups)
    # colour per (line-up, policy), line style and marker per value of the other options
    ncolour = len(keys) - len(splitters)
    colours: dict[tuple, str] = {}
    styles: dict[tuple, tuple[str, str]] = {}
    linestyles, markers = ("-", "--", ":", "-."), ("o", "s", "^", "D", "v", "P")
    if numeric:
        span = (max(xs_all) - min(xs_all)) or 1.0
        step = span * 0.012
    else:
        step = 0.06
    for i, (key, g) in enumerate(groups):
        key = key if isinstance(key, tuple) else (key,)
        parts = [("", _lineup_text(key[0]) + ":")] if keys[0] == "lineup" else []
        parts += [("" if k in ("lineup", "policy") else k, v) for k, v in zip(keys, key) if k != "lineup"]
        label = _series_label(parts).replace(":, ", ": ")
        if xopt is not None:
            g = g.assign(_x=g[xopt].map({v: j for j, v in enumerate(xs_all)})).sort_values("_x")
            pos = np.asarray(g[xopt], dtype=float) if numeric else np.asarray(g["_x"], dtype=float)
        else:
            pos = np.zeros(len(g))
        pos = pos + step * (i - (m - 1) / 2)
        y = np.asarray(g[ycol], dtype=float) * scale
        lo = np.asarray(g[locol], dtype=float) * scale
        hi = np.asarray(g[hicol], dtype=float) * scale
        colour = colours.setdefault(key[:ncolour], f"C{len(colours) % 10}")
        ls, mk = styles.setdefault(key[ncolour:], (linestyles[len(styles) % 4], markers[len(styles) % 6]))
        cont = ax.errorbar(pos, y, yerr=_yerr(y, lo, hi), marker=mk, capsize=3, markersize=4, color=colour,
                           linestyle=ls if len(pos) > 1 else "none", label=label)
        drawn[label] = cont
    if xopt is None:
        ax.set_xticks([0.0], ["all configurations"])
        ax.set_xlim(-0.5, 0.5)
    elif numeric:
        ax.set_xticks([float(v) for v in xs_all], [_value_text(v) for v in xs_all])
        ax.set_xlabel(_human(xopt))
    else:
        ax.set_xticks(list(range(len(xs_all))), [_value_text(v) for v in xs_all])
        ax.set_xlim(-0.5, len(xs_all) - 0.5)
        ax.set_xlabel(_human(xopt))
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if drawn:
        ax.legend(fontsize="small", ncols=1 if len(drawn) <= 8 else 2)
    return Drawn(ax, drawn)


def plot_mean_score(summary: pd.DataFrame, ax=None, *, lineup: str | None = None, policy: str | None = None,
                    seat: str = "all", x: str = "opening_threshold", hue: str = "joker_penalty") -> Drawn:
    """Mean score per round with 95% CI error bars, by one option, a series per policy and value of the others.

    Parameters
    ----------
    summary : pandas.DataFrame
        :meth:`StudyAccumulator.summary <handsim.stats.StudyAccumulator.summary>`.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure if None.
    lineup, policy : str, optional
        Keep one line-up (comma-joined names, as in the summary) / one policy.
    seat : str
        ``"all"`` (default) or a relative seat ``"0"`` .. ``"P-1"``.
    x : str
        Option on the x axis (RULES.md name); if it did not vary, the first option that did;
        if none did, a single position.
    hue : str
        Option listed first in the series labels (each of its values is a series).

    Returns
    -------
    Drawn
        ``artists`` maps each series label to its ``ErrorbarContainer``.
    """
    return _plot_by_option(summary, "mean_score", "ci95_low", "ci95_high", ax, lineup=lineup, policy=policy,
                           seat=seat, x=x, hue=hue, scale=1.0, ylabel="mean score per round (points)")


def plot_rate(summary: pd.DataFrame, rate: str = "p_unopened", ax=None, *, lineup: str | None = None,
              policy: str | None = None, seat: str = "all", x: str = "opening_threshold",
              hue: str = "joker_penalty") -> Drawn:
    """A proportion (``p_hand``, ``p_unopened``, ``p_out`` or ``match_win_rate``) in percent, with Wilson 95% CIs.

    Parameters are those of :func:`plot_mean_score`, plus ``rate``, the summary column.

    Returns
    -------
    Drawn
    """
    if rate not in _RATE_NAMES:
        raise ValueError(f"unknown rate {rate!r}: allowed {', '.join(_RATE_NAMES)}")
    d = _plot_by_option(summary, rate, f"{rate}_ci95_low", f"{rate}_ci95_high", ax, lineup=lineup, policy=policy,
                        seat=seat, x=x, hue=hue, scale=100.0, ylabel=f"{_RATE_NAMES[rate]} (% of player-rounds)")
    return d


def plot_round_length(turns: pd.DataFrame, ax=None, *, lineup: str | None = None) -> Drawn:
    """Distribution of round length (turns) per configuration, as a fraction of rounds.

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
        ``artists`` maps each series label (configuration, line-up) to its ``Line2D``.
    """
    ax = _axes(ax)
    df = turns
    if lineup is not None and len(df):
        df = df[df["lineup"] == lineup]
    drawn: dict[str, Any] = {}
    if not len(df):
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
        return Drawn(ax, drawn)
    varying = [v for v in _varying(turns) if _nunique(df, v) > 1]
    keys = varying + (["lineup"] if _nunique(df, "lineup") > 1 else [])
    groups = list(df.groupby(keys, sort=False, dropna=False)) if keys else [((), df)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        parts = [(k if k != "lineup" else "", _lineup_text(v) if k == "lineup" else v) for k, v in zip(keys, key)]
        total = int(g["rounds"].sum())
        void = int(g["void_rounds"].sum())
        t = np.asarray(g["turns"], dtype=np.int64)
        full = np.arange(t.min(), t.max() + 1)
        counts = np.zeros(len(full))
        counts[t - t.min()] = np.asarray(g["rounds"], dtype=float)
        label = f"{_series_label(parts)} (void {_pct(void / total)})"
        (line,) = ax.step(full, counts / total, where="mid", label=label)
        drawn[label] = line
    ax.set_xlabel("round length (turns)")
    ax.set_ylabel("fraction of rounds")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return Drawn(ax, drawn)


_PAIRED_METRICS = {
    "score": ("mean_diff", "ci95_low", "ci95_high", 1.0, "difference in mean score per round (points)"),
    "p_out": ("p_out_diff", "p_out_diff_ci95_low", "p_out_diff_ci95_high", 100.0,
              "difference in P(went out) (percentage points)"),
    "p_hand": ("p_hand_diff", "p_hand_diff_ci95_low", "p_hand_diff_ci95_high", 100.0,
               "difference in P(Hand) (percentage points)"),
    "p_unopened": ("p_unopened_diff", "p_unopened_diff_ci95_low", "p_unopened_diff_ci95_high", 100.0,
                   "difference in P(unopened) (percentage points)"),
}


def _pair_label(row: Mapping[str, Any], options: list[str], with_lineup: bool) -> str:
    others = [o for o in options if o != row["parameter"]]
    text = (f"{row['policy']}: {_human(row['parameter'])} {_value_text(row['from_value'])}"
            f" → {_value_text(row['to_value'])}")
    if others:
        text += " (" + ", ".join(f"{o}={_value_text(row[o])}" for o in others) + ")"
    if with_lineup:
        text += f" [{_lineup_text(row['lineup'])}]"
    return text


def plot_paired(paired: pd.DataFrame, ax=None, *, metric: str = "score", lineup: str | None = None,
                policy: str | None = None) -> Drawn:
    """Forest plot of paired differences between configurations (c2 − c1) with 95% CIs.

    Filled markers: the interval excludes 0; hollow: not significant.

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
    df = paired
    if lineup is not None and len(df):
        df = df[df["lineup"] == lineup]
    if policy is not None and len(df):
        df = df[df["policy"] == policy]
    if ax is None:
        ax = _new_figure((7.5, max(2.5, 0.32 * len(df) + 1.2))).add_subplot()
    drawn: dict[str, Any] = {}
    if not len(df):
        ax.text(0.5, 0.5, "no paired comparisons", ha="center", va="center", transform=ax.transAxes)
        return Drawn(ax, drawn)
    options = [c for c in df.columns[df.columns.get_loc("to_value") + 1: df.columns.get_loc("deals")]]
    with_lineup = _nunique(df, "lineup") > 1
    labels = []
    for i, row in enumerate(df.to_dict("records")):
        y = -i
        v, lo, hi = (float(row[c]) * scale for c in (ycol, locol, hicol))
        sig = not _includes_zero(lo, hi)
        label = _pair_label(row, options, with_lineup)
        cont = ax.errorbar([v], [y], xerr=_yerr([v], [lo], [hi]), fmt="o", capsize=3, color="C0",
                           markerfacecolor="C0" if sig else "white")
        drawn[label] = cont
        labels.append(label)
    ax.axvline(0.0, color="0.3", linewidth=1, linestyle="--")
    ax.set_yticks([-i for i in range(len(labels))], labels, fontsize="small")
    ax.set_ylim(-len(labels) + 0.5, 0.5)
    ax.set_xlabel(xlabel)
    ax.grid(True, axis="x", alpha=0.3)
    return Drawn(ax, drawn)


def _nice_width(span: float, bins: int = 40) -> int:
    """A bin width of 1, 2 or 5 times a power of ten giving about ``bins`` bins over ``span``."""
    raw = max(span / bins, 1.0)
    p = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * p >= raw:
            return int(m * p)
    return int(10 * p)


def plot_final_totals(total: pd.DataFrame, ax=None, *, lineup: str | None = None,
                      team_total: pd.DataFrame | None = None) -> Drawn:
    """Distribution of final match totals (share of matches per bin of points), one line per policy.

    Parameters
    ----------
    total : pandas.DataFrame
        ``histograms()["total"]`` (columns: varying options, ``lineup``, ``policy``, ``total``,
        ``count``).
    ax : matplotlib.axes.Axes, optional
    lineup : str, optional
        Keep one line-up.
    team_total : pandas.DataFrame, optional
        ``histograms()["team_total"]``: team totals drawn dashed, one line per team.

    Returns
    -------
    Drawn
        ``artists`` maps each series label to its ``Line2D``.
    """
    ax = _axes(ax)
    frames = []
    for df, kind in ((total, "policy"), (team_total, "team")):
        if df is None or not len(df):
            continue
        if lineup is not None:
            df = df[df["lineup"] == lineup]
        if len(df):
            frames.append((df, kind))
    drawn: dict[str, Any] = {}
    if not frames:
        ax.text(0.5, 0.5, "no matches", ha="center", va="center", transform=ax.transAxes)
        return Drawn(ax, drawn)
    lo = min(int(df["total"].min()) for df, _ in frames)
    hi = max(int(df["total"].max()) for df, _ in frames)
    width = _nice_width(hi - lo)
    for df, kind in frames:
        varying = [v for v in _varying(df) if _nunique(df, v) > 1]
        keys = varying + (["lineup"] if _nunique(df, "lineup") > 1 else []) + (["team"] if kind == "team" else [])
        keys += ["policy"]
        for key, g in df.groupby(keys, sort=False, dropna=False):
            key = key if isinstance(key, tuple) else (key,)
            parts = [("" if k in ("lineup", "policy", "team") else k,
                      _lineup_text(v) if k == "lineup" else v) for k, v in zip(keys, key)]
            if kind == "team":  # "team A (hold-hand & greedy): team total"
                parts = parts[:-2] + [("", f"{key[-2]} ({key[-1]}): team total")]
            label = _series_label(parts)
            t = np.asarray(g["total"], dtype=np.int64)
            c = np.asarray(g["count"], dtype=float)
            b = np.floor_divide(t, width)
            edges_idx = np.arange(b.min(), b.max() + 1)
            share = np.zeros(len(edges_idx))
            np.add.at(share, b - b.min(), c)
            share /= c.sum()
            centres = (edges_idx + 0.5) * width
            (line,) = ax.step(centres, share, where="mid", label=label, linestyle="--" if kind == "team" else "-")
            drawn[label] = line
    ax.set_xlabel(f"final match total (points, bins of {width})")
    ax.set_ylabel("share of matches")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return Drawn(ax, drawn)


# ----------------------------------------------------------------------------------------------
# files


_atomic_write_bytes = atomic_write


def _save_figure(fig, path: Path) -> None:
    import warnings

    buf = io.BytesIO()
    with warnings.catch_warnings():
        # small studies can leave a panel too narrow for constrained layout; the figure is still drawn
        warnings.filterwarnings("ignore", message="constrained_layout not applied")
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    _atomic_write_bytes(path, buf.getvalue())


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(x):
        return str(x).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# findings


def _change_verb(a: Any, b: Any) -> str:
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return "Switching"
    try:
        if float(b) > float(a):
            return "Raising"
        if float(b) < float(a):
            return "Lowering"
    except (TypeError, ValueError):
        pass
    return "Changing"


def _summary_row(summary: pd.DataFrame, options: list[str], values: Mapping[str, Any], lineup: str,
                 policy: str) -> dict[str, Any] | None:
    mask = (summary["seat"] == "all") & (summary["lineup"] == lineup) & (summary["policy"] == policy)
    for o in options:
        mask &= summary[o] == values[o]
    hit = summary[mask]
    return hit.iloc[0].to_dict() if len(hit) else None


def _significance(lo: float, hi: float) -> str:
    if math.isnan(lo) or math.isnan(hi):
        return "no interval (too few deals)"
    return "not significant (the 95% CI includes 0)" if _includes_zero(lo, hi) else "significant"


def _paired_findings(summary: pd.DataFrame, paired: pd.DataFrame, options: list[str]) -> list[str]:
    out: list[str] = []
    if not len(paired):
        return out
    for param, block in paired.groupby("parameter", sort=False):
        out.append(f"### Effect of the {_human(param)} (`{param}`)")
        out.append("")
        for row in block.to_dict("records"):
            others = [o for o in options if o != param]
            where = [f"line-up {_lineup_text(row['lineup'])}"]
            if others:
                where.append(_config_text(row, others))
            ctx = f" [{'; '.join(where)}]" if where else ""
            a, b = row["from_value"], row["to_value"]
            verb = _change_verb(a, b)
            d, lo, hi = row["mean_diff"], row["ci95_low"], row["ci95_high"]
            sig = _significance(lo, hi)
            judgement = ""
            alone = len(set(_lineup_policies(row["lineup"]))) == 1
            if sig == "significant":
                judgement = (f": {row['policy']} scores more (worse: scores are penalty points)" if d > 0
                             else f": {row['policy']} scores less (better: lower is better)")
                if alone:
                    judgement += (f" - every seat plays {row['policy']}, so this is the rule's effect on the level "
                                  f"of scores, not an advantage over anyone")
            else:
                judgement = f" — {sig}"
            out.append(
                f"- {verb} the {_human(param)} from {_value_text(a)} to {_value_text(b)} changes "
                f"{row['policy']}'s mean score per round by {_signed(d)} points "
                f"(95% CI {_ci_text(lo, hi, _signed)}; {row['deals']:,} paired deals){judgement}.{ctx}")
            # rates, with levels from the summary
            base = {o: row[o] for o in others}
            r1 = _summary_row(summary, options, {**base, param: a}, row["lineup"], row["policy"])
            r2 = _summary_row(summary, options, {**base, param: b}, row["lineup"], row["policy"])
            for rate in ("p_unopened", "p_hand"):
                dd = row[f"{rate}_diff"]
                dlo, dhi = row[f"{rate}_diff_ci95_low"], row[f"{rate}_diff_ci95_high"]
                if r1 is None or r2 is None:
                    continue
                p1, p2 = r1[rate], r2[rate]
                move = "rises" if p2 > p1 else ("falls" if p2 < p1 else "stays")
                levels = f"from {_pct(p1)} to {_pct(p2)}" if move != "stays" else f"at {_pct(p1)}"
                s = _significance(dlo, dhi)
                tail = "" if s == "significant" else f" — {s}"
                nd = 1 if abs(100 * dd) >= 0.1 else (2 if abs(100 * dd) >= 0.01 else 3)
                out.append(
                    f"  - {_RATE_NAMES[rate]} for {row['policy']} {move} {levels} "
                    f"({_pp(dd, nd)} percentage points, 95% CI "
                    f"{_ci_text(100 * dlo, 100 * dhi, lambda x: _signed(x, nd))}){tail}.")
        out.append("")
    return out


def _versus_from_summary(summary: pd.DataFrame) -> pd.DataFrame:
    """Unpaired policy contrasts from the summary (used when no ``versus`` table is given)."""
    from scipy import stats as sps

    options = _varying(summary)
    rows = []
    allrows = summary[summary["seat"] == "all"]
    keys = options + ["lineup"]
    for _, g in allrows.groupby(keys, sort=False, dropna=False) if keys else [((), allrows)]:
        recs = g.to_dict("records")
        for i in range(len(recs)):
            for j in range(i + 1, len(recs)):
                a, b = recs[i], recs[j]
                d = a["mean_score"] - b["mean_score"]
                se = math.hypot(a["se_score"], b["se_score"])
                half = float(sps.norm.ppf(0.975)) * se
                row = {o: a[o] for o in options}
                row.update(lineup=a["lineup"], policy_a=a["policy"], policy_b=b["policy"],
                           deals=min(a["deals"], b["deals"]), mean_a=a["mean_score"], mean_b=b["mean_score"],
                           mean_diff=d, ci95_low=d - half, ci95_high=d + half, p_value=math.nan)
                rows.append(row)
    return pd.DataFrame(rows, columns=options + ["lineup", "policy_a", "policy_b", "deals", "mean_a", "mean_b",
                                                 "mean_diff", "ci95_low", "ci95_high", "p_value"])


def _versus_findings(versus: pd.DataFrame, options: list[str], paired_ci: bool, teams: bool = False) -> list[str]:
    out: list[str] = []
    if not len(versus):
        return out
    out.append("### Policies compared in the same deals")
    out.append("")
    if teams:
        out.append("In 2 v 2 a policy's figure pools every seat it holds, partners and opponents alike (a player "
                   "scores 0 when its partner goes out), so these per-policy comparisons do not compare teams: "
                   "see the team rows and the line-up comparisons for that.")
        out.append("")
    how = ("per-deal difference on the same deals" if paired_ci
           else "unpaired interval from the two means (conservative)")
    for row in versus.to_dict("records"):
        d, lo, hi = row["mean_diff"], row["ci95_low"], row["ci95_high"]
        sig = _significance(lo, hi)
        if sig == "significant":
            better, worse = (row["policy_a"], row["policy_b"]) if d < 0 else (row["policy_b"], row["policy_a"])
            verdict = f"{better} scores less than {worse} (lower is better)"
        else:
            verdict = sig
        ctx = f"line-up {_lineup_text(row['lineup'])}"
        if options:
            ctx += "; " + _config_text(row, options)
        out.append(
            f"- {row['policy_a']} scores {_fmt(row['mean_a'])} points per round versus {_fmt(row['mean_b'])} "
            f"for {row['policy_b']}: difference {_signed(d)} (95% CI {_ci_text(lo, hi, _signed)}, {how}); "
            f"{verdict}. [{ctx}]")
    out.append("")
    return out


def _round_findings(summary: pd.DataFrame, options: list[str]) -> list[str]:
    allrows = summary[summary["seat"] == "all"].drop_duplicates(subset=options + ["lineup"])
    if not len(allrows):
        return []
    out = ["### Round length", ""]
    for lineup, g in allrows.groupby("lineup", sort=False):
        recs = g.to_dict("records")
        lo = min(recs, key=lambda r: r["mean_turns"])
        hi = max(recs, key=lambda r: r["mean_turns"])
        if len(recs) == 1 or lo["mean_turns"] == hi["mean_turns"]:
            text = (f"- Line-up {_lineup_text(lineup)}: a round lasts {_fmt(lo['mean_turns'])} turns on average; "
                    f"{_pct(lo['void_rate'])} of rounds are void.")
        else:
            text = (f"- Line-up {_lineup_text(lineup)}: a round lasts from {_fmt(lo['mean_turns'])} turns on average "
                    f"({_config_text(lo, options)}) to {_fmt(hi['mean_turns'])} ({_config_text(hi, options)}); "
                    f"void rounds: {_pct(min(r['void_rate'] for r in recs))} to "
                    f"{_pct(max(r['void_rate'] for r in recs))}.")
        out.append(text)
    out.append("")
    return out


def _match_findings(summary: pd.DataFrame, options: list[str], losses: bool = False) -> list[str]:
    allrows = summary[(summary["seat"] == "all") & (summary["matches"] > 0)] if len(summary) else summary
    if not len(allrows):
        return []
    out = ["### Matches", ""]
    for row in allrows.to_dict("records"):
        ctx = f"line-up {_lineup_text(row['lineup'])}"
        if options:
            ctx += "; " + _config_text(row, options)
        lose = ""
        if losses and "match_lose_rate" in row:
            lose = (f" and loses {_pct(row['match_lose_rate'])} "
                    f"(95% CI {_pct(row['match_lose_rate_ci95_low'])} to {_pct(row['match_lose_rate_ci95_high'])})")
        total = ""
        if not _isnan(row.get("mean_final_total")):
            total = (f"; its final total averages {_fmt(row['mean_final_total'])} points "
                     f"(95% CI {_ci_text(row['final_total_ci95_low'], row['final_total_ci95_high'])})")
        out.append(f"- {row['policy']} wins {_pct(row['match_win_rate'])} of its matches "
                   f"(95% CI {_pct(row['match_win_rate_ci95_low'])} to {_pct(row['match_win_rate_ci95_high'])})"
                   f"{lose}{total}. [{ctx}]")
    if "tiebreak_rate" in allrows.columns:
        for row in allrows.drop_duplicates(subset=options + ["lineup"]).to_dict("records"):
            ctx = f"line-up {_lineup_text(row['lineup'])}"
            if options:
                ctx += "; " + _config_text(row, options)
            parts = []
            if not _isnan(row["tiebreak_rate"]):
                parts.append(f"{_pct(row['tiebreak_rate'])} of matches needed a tie-break round (95% CI "
                             f"{_pct(row['tiebreak_rate_ci95_low'])} to {_pct(row['tiebreak_rate_ci95_high'])})")
            if not _isnan(row["hand_decided_rate"]):
                parts.append(f"a single Hand decided {_pct(row['hand_decided_rate'])} (95% CI "
                             f"{_pct(row['hand_decided_rate_ci95_low'])} to {_pct(row['hand_decided_rate_ci95_high'])})")
            if parts:
                out.append(f"- {'; '.join(parts)}. [{ctx}]")
    out.append("")
    return out


def _isnan(x: Any) -> bool:
    return x is None or x is pd.NA or (isinstance(x, float) and math.isnan(x))


def _is_team(seat: pd.Series) -> pd.Series:
    return seat.astype(str).str.startswith("team")


def _has_matches(summary: pd.DataFrame) -> bool:
    return bool(len(summary)) and "matches" in summary.columns and bool((summary["matches"] > 0).any())


def _shows_losses(summary: pd.DataFrame, run_info: Mapping[str, Any]) -> bool:
    """Whether matches have a loser: ``standings = last_loses`` (or any loss observed)."""
    rules = run_info.get("rules") if isinstance(run_info, Mapping) else None
    if isinstance(rules, Mapping) and rules.get("standings") == "last_loses":
        return True
    return "match_lose_rate" in summary.columns and bool((summary["match_lose_rate"].fillna(0) > 0).any())


def _rate_ci(r: Mapping[str, Any], col: str) -> str:
    return f"{_pct(r[col])} ({_pct(r[col + '_ci95_low'])}–{_pct(r[col + '_ci95_high'])})"


def _quantiles_from_histograms(histograms: Mapping[str, pd.DataFrame] | None) -> pd.DataFrame:
    """Quantiles of final totals from ``histograms()["total"]`` / ``["team_total"]`` (as
    :meth:`~handsim.stats.StudyAccumulator.total_quantiles`), for callers that pass no table."""
    from .stats import QUANTILES, _hist_quantiles

    rows = []
    options: list[str] = []
    for key, seat_col in (("total", None), ("team_total", "team")):
        df = (histograms or {}).get(key)
        if df is None or not len(df):
            continue
        options = _varying(df)
        keys = options + ["lineup"] + ([seat_col] if seat_col else []) + ["policy"]
        for k, g in df.groupby(keys, sort=False, dropna=False):
            k = k if isinstance(k, tuple) else (k,)
            g = g.sort_values("total")
            values, counts = g["total"].to_numpy(np.int64), g["count"].to_numpy(np.int64)
            n = int(counts.sum())
            row = dict(zip(keys, k))
            row["seat"] = row.pop(seat_col) if seat_col else "all"
            row.update(matches=n, mean_final_total=float((values * counts).sum()) / n, min=int(values[0]))
            row.update(zip([f"p{round(100 * q)}" for q in QUANTILES], _hist_quantiles(values, counts, QUANTILES)))
            row["max"] = int(values[-1])
            rows.append(row)
    if not rows:
        return pd.DataFrame()
    cols = options + ["lineup", "policy", "seat", "matches", "mean_final_total", "min", "p10", "p25", "p50", "p75",
                      "p90", "max"]
    return pd.DataFrame(rows, columns=cols)


def _matches_section(summary: pd.DataFrame, totals: pd.DataFrame, options: list[str], losses: bool,
                     teams: bool = False) -> list[str]:
    """The "Matches" section: match outcomes per policy, tie-breaks, Hands, final totals."""
    rows = summary[(summary["seat"] == "all") & (summary["matches"] > 0)]
    out = ["## Matches", "",
           "Each simulated item is a whole match (RULES.md §7): the lowest cumulative total wins"
           + (" (in 2 v 2, the team with the lower sum; both partners win)" if teams else "")
           + ("; with `standings = last_loses` the single highest total loses and everyone else is neutral"
              if losses else "") + ". A tie for the lowest total is broken by extra rounds. Rates are shares of "
           "matches with Wilson 95% CIs (for a policy holding several seats, the match is the unit: the CI "
           "uses the policy's share per match).", ""]
    headers = options + ["line-up", "policy", "matches", "P(won match)"]
    if losses:
        headers += ["P(lost match)", "P(neither)"]
    headers += ["mean final total (95% CI)"]
    body = []
    # matches per configuration and line-up: every player of a match is counted once over the policies
    players = max(1, len({s for s in summary["seat"].astype(str) if s.isdigit()}))
    n_matches = rows.groupby(options + ["lineup"], sort=False, dropna=False)["matches"].transform("sum") // players
    for r, m in zip(rows.to_dict("records"), n_matches.tolist()):
        line = [_value_text(r[o]) for o in options] + [_lineup_text(r["lineup"]), r["policy"],
                                                          f"{int(m):,}", _rate_ci(r, "match_win_rate")]
        if losses:
            line += [_rate_ci(r, "match_lose_rate"), _rate_ci(r, "match_neutral_rate")]
        line.append(f"{_fmt(r['mean_final_total'])} ({_ci_text(r['final_total_ci95_low'], r['final_total_ci95_high'])})")
        body.append(line)
    out += ["### Who wins", "", _md_table(headers, body), ""]
    groups = rows.drop_duplicates(subset=options + ["lineup"])
    body = []
    for r in groups.to_dict("records"):
        body.append([_value_text(r[o]) for o in options] + [
            _lineup_text(r["lineup"]), _fmt(r["mean_tiebreaks"], 2), _rate_ci(r, "tiebreak_rate"),
            _rate_ci(r, "hand_decided_rate")])
    out += ["### Tie-breaks and Hands", "",
            "*Tie-break share*: matches that needed at least one extra round. *Decided by a Hand*: matches in which "
            "some round was won with a Hand and, without that round, a different player (team) would have won or "
            "the lowest total would have been tied.", "",
            _md_table(options + ["line-up", "tie-break rounds per match", "tie-break share (95% CI)",
                                 "decided by a Hand (95% CI)"], body), ""]
    if totals is not None and len(totals):
        body = []
        for r in totals.to_dict("records"):
            who = r["policy"] if r["seat"] == "all" else f"{r['seat']}: {r['policy']}"
            body.append([_value_text(r[o]) for o in options] + [
                _lineup_text(r["lineup"]), who, f"{int(r['matches']):,}", _fmt(r["mean_final_total"])]
                + [_fmt(r[c], 0) for c in ("min", "p10", "p25", "p50", "p75", "p90", "max")])
        out += ["### Final totals", "",
                "Distribution of the final match totals (points, tie-break rounds included, lower is better) over "
                "every player-match of a policy" + (" and, for teams, of the team totals" if
                                                      (totals["seat"] != "all").any() else "")
                + ": 10% of matches ended at or below p10, half at or below the median p50, and so on.", "",
                _md_table(options + ["line-up", "policy", "matches", "mean", "min", "p10", "p25", "median", "p75",
                                     "p90", "max"], body), ""]
    return out


def _team_table(summary: pd.DataFrame, options: list[str]) -> str:
    rows = summary[_is_team(summary["seat"])]
    has_match = _has_matches(rows)
    headers = options + ["line-up", "team", "policies", "deals", "team score per round (95% CI)", "P(team went out)",
                         "P(team Hand)", "P(unopened)"]
    if has_match:
        headers += ["P(won match)", "mean final team total (95% CI)"]
    body = []
    for r in rows.to_dict("records"):
        line = [_value_text(r[o]) for o in options] + [
            _lineup_text(r["lineup"]), r["seat"].replace("team ", ""), r["policy"], f"{int(r['deals']):,}",
            f"{_fmt(r['mean_score'])} ({_ci_text(r['ci95_low'], r['ci95_high'])})",
            _rate_ci(r, "p_out"), _rate_ci(r, "p_hand"), _rate_ci(r, "p_unopened")]
        if has_match:
            line += [_rate_ci(r, "match_win_rate") if r["matches"] > 0 else "–",
                     f"{_fmt(r['mean_final_total'])} ({_ci_text(r['final_total_ci95_low'], r['final_total_ci95_high'])})"
                     if r["matches"] > 0 else "–"]
        body.append(line)
    return _md_table(headers, body)


def _lineup_change(r: Mapping[str, Any]) -> str:
    return f"position {int(r['position'])}: `{r['policy_a']}` instead of `{r['policy_b']}`"


def _lineups_table(lineups: pd.DataFrame, options: list[str]) -> str:
    has_team = bool((lineups["team"].astype(str) != "").any())
    has_match = bool((lineups["matches"] > 0).any())
    headers = options + ["line-up", "change", "deals", "Δ score of that player (95% CI)"]
    if has_team:
        headers += ["team", "Δ team score (95% CI)"]
    if has_match:
        headers += ["matches", "Δ final total (95% CI)"] + (["Δ final team total (95% CI)"] if has_team else []) + [
            "Δ P(won match), pp (95% CI)"]
    body = []
    for r in lineups.to_dict("records"):
        line = [_value_text(r[o]) for o in options] + [
            _lineup_text(r["lineup_a"]), _lineup_change(r), f"{int(r['deals']):,}",
            f"{_signed(r['mean_diff'])} ({_ci_text(r['ci95_low'], r['ci95_high'], _signed)})"]
        if has_team:
            line += [r["team"] or "–",
                     f"{_signed(r['team_diff'])} ({_ci_text(r['team_diff_ci95_low'], r['team_diff_ci95_high'], _signed)})"
                     if r["team"] else "–"]
        if has_match:
            line += [f"{int(r['matches']):,}",
                     f"{_signed(r['total_diff'])} ({_ci_text(r['total_diff_ci95_low'], r['total_diff_ci95_high'], _signed)})"]
            if has_team:
                line.append(f"{_signed(r['team_total_diff'])} ({_ci_text(r['team_total_diff_ci95_low'], r['team_total_diff_ci95_high'], _signed)})"
                            if r["team"] else "–")
            line.append(f"{_pp(r['match_win_diff'])} ({_ci_text(100 * r['match_win_diff_ci95_low'], 100 * r['match_win_diff_ci95_high'], _signed)})")
        body.append(line)
    return _md_table(headers, body)


def _lineup_findings(lineups: pd.DataFrame | None, options: list[str]) -> list[str]:
    if lineups is None or not len(lineups):
        return []
    out = ["### Line-ups that differ in one position", ""]
    for r in lineups.to_dict("records"):
        ctx = f"line-up {_lineup_text(r['lineup_a'])} against {_lineup_text(r['lineup_b'])}"
        if options:
            ctx += "; " + _config_text(r, options)
        sig = _significance(r["ci95_low"], r["ci95_high"])
        text = (f"- At position {int(r['position'])}, `{r['policy_a']}` instead of `{r['policy_b']}` "
                f"changes that player's mean score per round by {_signed(r['mean_diff'])} points "
                f"(95% CI {_ci_text(r['ci95_low'], r['ci95_high'], _signed)}; {int(r['deals']):,} paired deals)"
                f"{'' if sig == 'significant' else ' — ' + sig}")
        if r["team"]:
            tsig = _significance(r["team_diff_ci95_low"], r["team_diff_ci95_high"])
            text += (f"; {r['team']}'s score per round by {_signed(r['team_diff'])} "
                     f"(95% CI {_ci_text(r['team_diff_ci95_low'], r['team_diff_ci95_high'], _signed)})"
                     f"{'' if tsig == 'significant' else ' — ' + tsig}")
        if r["matches"] > 0:
            wsig = _significance(r["match_win_diff_ci95_low"], r["match_win_diff_ci95_high"])
            text += (f"; the chance of winning the match by {_pp(r['match_win_diff'])} percentage points "
                     f"(95% CI {_ci_text(100 * r['match_win_diff_ci95_low'], 100 * r['match_win_diff_ci95_high'], _signed)})"
                     f"{'' if wsig == 'significant' else ' — ' + wsig}")
        out.append(text + f". Lower scores are better. [{ctx}]")
    out.append("")
    return out


def _lineups_section(lineups: pd.DataFrame, options: list[str], level: str = "##") -> list[str]:
    return [f"{level} Line-ups compared", "",
            "Line-ups that differ in exactly one position play the same deals (same shuffles, same dealer), so the "
            "change at that position is measured deal by deal (match by match for match results): Δ = the line-up "
            "shown (with the first policy at that position) minus the same line-up with the second policy there, "
            "with a paired 95% CI. Negative Δ in score or total means the first policy helps (lower is better); "
            "positive Δ P(won match) means it helps. Full table: `lineups.csv`.", "",
            _lineups_table(lineups, options), ""]


def _partnership_section(summary: pd.DataFrame, lineups: pd.DataFrame | None, options: list[str]) -> list[str]:
    out = ["## Partnership (2 v 2)", "",
           "Partners sit opposite: line-up positions 1 & 3 form **team A**, positions 2 & 4 **team B**. The partner "
           "of the player who goes out scores 0 for the round; a team's score is the sum of its two players "
           "(lower is better), and the team with the lower total wins the match. The unit is the deal (the match "
           "for match results): *P(team went out)* is the share of deals in which either partner went out, "
           "*P(team Hand)* in which one of them went out with a Hand, *P(unopened)* the share of the team's "
           "player-rounds without an opening.", "",
           _team_table(summary, options), ""]
    if lineups is not None and len(lineups):
        out += _lineups_section(lineups, options, "###")
    return out


# ----------------------------------------------------------------------------------------------
# the report


def _run_section(summary: pd.DataFrame, run_info: Mapping[str, Any], options: list[str]) -> list[str]:
    info = dict(run_info)
    out = ["## What was simulated", ""]
    allrows = summary[summary["seat"] == "all"] if len(summary) else summary
    players = info.pop("players", None)
    if players is None and len(summary):
        players = len({s for s in summary["seat"].tolist() if s != "all"}) or None
    deals = info.pop("deals", None)
    if deals is None and len(allrows):
        deals = int(allrows["deals"].max())
    seed = info.pop("seed", None)
    preset = info.pop("preset", None)
    rules = info.pop("rules", None)
    seconds = info.pop("seconds", None)
    rps = info.pop("rounds_per_s", None)
    total_rounds = info.pop("rounds_played", None)
    if total_rounds is None and len(allrows):
        total_rounds = int(allrows.drop_duplicates(options + ["lineup"])["deals"].sum())
    if rps is None and seconds and total_rounds:
        rps = total_rounds / float(seconds)
    policies = info.pop("policies", None)
    command = info.pop("command", None)
    version = info.pop("version", None)
    info.pop("title", None)
    lineups = list(dict.fromkeys(allrows["lineup"].tolist())) if len(allrows) else []
    configs = allrows.drop_duplicates(options)[options].to_dict("records") if len(allrows) and options else []

    bullets = []
    if players is not None:
        bullets.append(f"**Players:** {players} seats. Seats are counted from the starter (seat 0, who is dealt the "
                       "extra card and plays first), then in playing order.")
    if deals is not None:
        bullets.append(f"**Deals:** {int(deals):,} per configuration and line-up. Every configuration and line-up "
                       "plays the *same* deals (same shuffles, same dealer: common random numbers), so differences "
                       "between them are measured deal by deal.")
    if seed is not None:
        bullets.append(f"**Seed:** {seed} (deal *i* is reproducible on its own from the seed and *i*).")
    if total_rounds:
        bullets.append(f"**Rounds simulated:** {int(total_rounds):,} in all.")
    if rps:
        speed = f"**Speed:** {float(rps):,.0f} rounds/s"
        if seconds:
            speed += f" ({float(seconds):,.1f} s of simulation)"
        bullets.append(speed + ".")
    elif seconds:
        bullets.append(f"**Time:** {float(seconds):,.1f} s.")
    if preset is not None:
        bullets.append(f"**Rules preset:** `{preset}`.")
    if version is not None:
        bullets.append(f"**handsim version:** {version}.")
    if command is not None:
        bullets.append(f"**Command:** `{command}`.")
    out += [f"- {b}" for b in bullets]
    out.append("")

    if options:
        out.append("**Rule options that vary** (names as in RULES.md):")
        out.append("")
        for o in options:
            vals = list(dict.fromkeys(_value_text(c[o]) for c in configs))
            out.append(f"- `{o}`: {', '.join(vals)}")
        out.append("")
        out.append(f"That makes {len(configs)} configuration(s): "
                   + "; ".join(_config_text(c, options) for c in configs) + ".")
        out.append("")
    else:
        out += ["No rule option varies: one configuration.", ""]
    if isinstance(rules, Mapping) and rules:
        out.append("**All rule options** (the varying ones take each value listed above):")
        out.append("")
        # in the order of RULES.md (run.json keeps its keys sorted); unknown names last
        order = {p.name: i for i, p in enumerate(PARAMS)}
        items = sorted(rules.items(), key=lambda kv: order.get(kv[0], len(order)))
        rows = [(f"`{k}`", "*varies*" if k in options else _value_text(v)) for k, v in items]
        out.append(_md_table(["option", "value"], rows))
        out.append("")
    if lineups:
        out.append("**Line-ups** (the policy at each line-up position; the dealer moves every deal, so each "
                   "policy sits in every relative seat in turn):")
        out.append("")
        out.append(_md_table(["#", "line-up"], [(i + 1, _lineup_text(lu)) for i, lu in enumerate(lineups)]))
        out.append("")
    if isinstance(policies, Mapping) and policies:
        out.append("**Policies:**")
        out.append("")
        out += [f"- `{k}`: {v}" for k, v in policies.items()]
        out.append("")
    if info:
        out.append("**Other run details:**")
        out.append("")
        out += [f"- {k}: {v}" for k, v in info.items()]
        out.append("")
    return out


_HOW_TO_READ = """## How to read this report

- **Score** is the points a player gets for one round (RULES.md §6): the value of the cards left in hand,
  plus 100 for a player who never opened; −30 for going out, −60 for a Hand (which may double the others).
  **Lower is better.** Void rounds (the stock ran out too often) score 0 for everyone and are included.
- **95% CI** is a 95% confidence interval. For a policy over all its seats ("all") the unit is the deal
  (the match for match results): when a policy holds several seats of a line-up, its mean over them in a
  deal is one observation, so the interval stays honest. Proportions (P(went out), P(Hand), P(unopened),
  P(won match)) use Wilson intervals when there is one observation per unit (one seat, or a policy in one
  seat), otherwise a t interval over the per-deal (per-match) shares.
- **P(unopened)** is the share of player-rounds in which the player never laid down an opening.
- **Paired differences** compare two configurations that differ in one rule option, deal by deal, on the
  same deals; they are much more precise than comparing the two means separately. A difference whose
  interval includes 0 is marked *not significant*.
"""


def _main_table(summary: pd.DataFrame, options: list[str]) -> str:
    df = summary[summary["seat"] == "all"]
    has_match = bool((df["matches"] > 0).any())
    headers = options + ["line-up", "policy", "deals", "mean score (95% CI)", "P(went out)", "P(Hand)",
                         "P(unopened)", "turns", "void"] + (["P(won match)"] if has_match else [])
    rows = []
    for r in df.to_dict("records"):
        row = [_value_text(r[o]) for o in options] + [
            _lineup_text(r["lineup"]), r["policy"], f"{int(r['deals']):,}",
            f"{_fmt(r['mean_score'])} ({_fmt(r['ci95_low'])} to {_fmt(r['ci95_high'])})"]
        for p in ("p_out", "p_hand", "p_unopened"):
            row.append(f"{_pct(r[p])} ({_pct(r[p + '_ci95_low'])}–{_pct(r[p + '_ci95_high'])})")
        row += [_fmt(r["mean_turns"]), _pct(r["void_rate"])]
        if has_match:
            row.append(f"{_pct(r['match_win_rate'])} ({_pct(r['match_win_rate_ci95_low'])}–"
                       f"{_pct(r['match_win_rate_ci95_high'])})" if r["matches"] > 0 else "–")
        rows.append(row)
    return _md_table(headers, rows)


def _seat_table(summary: pd.DataFrame, options: list[str]) -> str:
    seats = sorted({s for s in summary["seat"].tolist() if s != "all"}, key=int)
    df = summary[summary["seat"] != "all"]
    headers = options + ["line-up", "policy"] + [f"seat {s}" for s in seats]
    rows = []
    keys = options + ["lineup", "policy"]
    for _, g in df.groupby(keys, sort=False, dropna=False):
        recs = {r["seat"]: r for r in g.to_dict("records")}
        first = next(iter(recs.values()))
        row = [_value_text(first[o]) for o in options] + [_lineup_text(first["lineup"]), first["policy"]]
        for s in seats:
            r = recs.get(s)
            if r is None or r["rounds"] == 0:
                row.append("–")
            else:
                half = (r["ci95_high"] - r["ci95_low"]) / 2
                row.append(f"{_fmt(r['mean_score'])} ± {_fmt(half)}")
        rows.append(row)
    return _md_table(headers, rows)


def _paired_table(paired: pd.DataFrame, options: list[str]) -> str:
    headers = ["line-up", "policy", "option", "from → to", "other options", "deals", "Δ mean score (95% CI)",
               "Δ P(unopened), pp (95% CI)", "Δ P(Hand), pp (95% CI)", "significant?"]
    rows = []
    for r in paired.to_dict("records"):
        others = [o for o in options if o != r["parameter"]]
        rows.append([
            _lineup_text(r["lineup"]), r["policy"], f"`{r['parameter']}`",
            f"{_value_text(r['from_value'])} → {_value_text(r['to_value'])}",
            _config_text(r, others) or "–", f"{int(r['deals']):,}",
            f"{_signed(r['mean_diff'])} ({_ci_text(r['ci95_low'], r['ci95_high'], _signed)})",
            f"{_pp(r['p_unopened_diff'])} ({_ci_text(100 * r['p_unopened_diff_ci95_low'], 100 * r['p_unopened_diff_ci95_high'], _signed)})",
            f"{_pp(r['p_hand_diff'])} ({_ci_text(100 * r['p_hand_diff_ci95_low'], 100 * r['p_hand_diff_ci95_high'], _signed)})",
            "yes" if _significance(r["ci95_low"], r["ci95_high"]) == "significant" else "no",
        ])
    return _md_table(headers, rows)


def _versus_table(versus: pd.DataFrame, options: list[str]) -> str:
    headers = options + ["line-up", "policy A", "policy B", "deals", "mean A", "mean B", "A − B (95% CI)", "significant?"]
    rows = []
    for r in versus.to_dict("records"):
        rows.append([_value_text(r[o]) for o in options] + [
            _lineup_text(r["lineup"]), r["policy_a"], r["policy_b"], f"{int(r['deals']):,}", _fmt(r["mean_a"]),
            _fmt(r["mean_b"]), f"{_signed(r['mean_diff'])} ({_ci_text(r['ci95_low'], r['ci95_high'], _signed)})",
            "yes" if _significance(r["ci95_low"], r["ci95_high"]) == "significant" else "no"])
    return _md_table(headers, rows)


def _grid(n: int, ncols: int, w: float, h: float):
    ncols = max(1, min(ncols, n))
    nrows = math.ceil(n / ncols)
    fig = _new_figure((w * ncols, h * nrows))
    axes = [fig.add_subplot(nrows, ncols, i + 1) for i in range(n)]
    return fig, axes


def write_report(out_dir, summary: pd.DataFrame, paired: pd.DataFrame, histograms: Mapping[str, pd.DataFrame],
                 run_info: Mapping[str, Any], *, versus: pd.DataFrame | None = None,
                 lineup_pairs: pd.DataFrame | None = None, totals: pd.DataFrame | None = None) -> Path:
    """Write PNG figures, CSV tables and ``report.md`` into ``out_dir``.

    Every file is written atomically (a temporary file in ``out_dir``, then ``os.replace``).

    Parameters
    ----------
    out_dir : str or Path
        Folder (created if needed).
    summary, paired : pandas.DataFrame
        From :class:`handsim.stats.StudyAccumulator`.
    histograms : dict
        From :meth:`~handsim.stats.StudyAccumulator.histograms` (``"turns"``, ``"total"`` and
        ``"team_total"`` are used).
    run_info : dict
        What was run; every key is optional.  Known keys: ``title``, ``players``, ``deals`` (per
        configuration and line-up), ``seed``, ``preset``, ``rules`` (option -> value of the base
        rules, e.g. ``Rules.to_dict()``), ``seconds`` (simulation wall time), ``rounds_per_s``,
        ``rounds_played``, ``policies`` (name -> one-line description), ``command``,
        ``version``.  Other keys are listed under "Other run details".
    versus : pandas.DataFrame, optional
        :meth:`~handsim.stats.StudyAccumulator.versus`; without it, policies are compared from the
        summary with an unpaired (conservative) interval.
    lineup_pairs : pandas.DataFrame, optional
        :meth:`~handsim.stats.StudyAccumulator.lineup_pairs` (line-ups that differ in one
        position); written to ``lineups.csv`` and reported when not empty.
    totals : pandas.DataFrame, optional
        :meth:`~handsim.stats.StudyAccumulator.total_quantiles`; without it, computed from
        ``histograms["total"]`` / ``["team_total"]``.

    Returns
    -------
    pathlib.Path
        The path of ``report.md``.

    Notes
    -----
    Files written: ``report.md``, ``summary.csv``, ``paired.csv``, ``versus.csv``, ``lineups.csv``
    (when ``lineup_pairs`` is given), ``totals.csv`` (when matches were played), ``mean_score.png``,
    ``rates.png``, ``round_length.png``, ``paired.png``, ``final_totals.png`` (the figures only
    when there is data).  Summary rows of teams (``seat`` = ``"team A"`` / ``"team B"``) appear
    in a "Partnership" section, not in the per-policy tables.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    options = _varying(summary)
    title = str(run_info.get("title", "Hand (هاند) strategy study"))
    full = summary
    has_teams = bool(len(summary)) and bool(_is_team(summary["seat"]).any())
    if has_teams:  # team rows have their own section; the per-policy tables and plots keep to players
        summary = summary[~_is_team(summary["seat"])].reset_index(drop=True)
    has_match = _has_matches(summary)
    losses = has_match and _shows_losses(summary, run_info)
    if totals is None:
        totals = _quantiles_from_histograms(histograms)
    allrows = summary[summary["seat"] == "all"] if len(summary) else summary
    lineups = list(dict.fromkeys(allrows["lineup"].tolist())) if len(allrows) else []
    paired_ci = versus is not None
    if versus is None:
        versus = _versus_from_summary(summary) if len(summary) else pd.DataFrame()

    figures: list[tuple[str, str, str]] = []  # (file, title, caption)
    if lineups:
        fig, axes = _grid(len(lineups), 2, 6.4, 4.2)
        for ax, lu in zip(axes, lineups):
            plot_mean_score(summary, ax, lineup=lu)
            ax.set_title(_lineup_text(lu), fontsize="medium")
        _save_figure(fig, out / "mean_score.png")
        figures.append(("mean_score.png", "Mean score per round",
                        "Mean score per round (points, lower is better) with 95% CIs, one panel per line-up."))

        fig, axes = _grid(2 * len(lineups), 2, 6.0, 4.0)
        for i, lu in enumerate(lineups):
            for ax, rate in zip(axes[2 * i: 2 * i + 2], ("p_hand", "p_unopened")):
                plot_rate(summary, rate, ax, lineup=lu)
                ax.set_title(f"{_RATE_NAMES[rate]} — {_lineup_text(lu)}", fontsize="medium")
        _save_figure(fig, out / "rates.png")
        figures.append(("rates.png", "P(Hand) and P(unopened)",
                        "Share of player-rounds ending with a Hand (left) and without an opening (right), "
                        "with Wilson 95% CIs."))

    turns = histograms.get("turns") if histograms else None
    if turns is not None and len(turns):
        tl = list(dict.fromkeys(turns["lineup"].tolist()))
        fig, axes = _grid(len(tl), 2, 6.4, 4.0)
        for ax, lu in zip(axes, tl):
            plot_round_length(turns, ax, lineup=lu)
            ax.set_title(_lineup_text(lu), fontsize="medium")
        _save_figure(fig, out / "round_length.png")
        figures.append(("round_length.png", "Round length",
                        "Distribution of round length in turns (share of rounds); the legend gives the void share."))

    if len(paired):
        d = plot_paired(paired)
        _save_figure(d.ax.figure, out / "paired.png")
        figures.append(("paired.png", "Paired differences",
                        "Change in mean score per round when one rule option changes (95% CIs on the same deals). "
                        "Filled: significant; hollow: the interval includes 0."))

    total_hist = histograms.get("total") if histograms else None
    team_hist = histograms.get("team_total") if histograms else None
    total_figure = None
    if total_hist is not None and len(total_hist):
        tl = list(dict.fromkeys(total_hist["lineup"].tolist()))
        fig, axes = _grid(len(tl), 2, 6.4, 4.0)
        for ax, lu in zip(axes, tl):
            plot_final_totals(total_hist, ax, lineup=lu, team_total=team_hist)
            ax.set_title(_lineup_text(lu), fontsize="medium")
        _save_figure(fig, out / "final_totals.png")
        total_figure = "final_totals.png"

    _atomic_write_bytes(out / "summary.csv", full.to_csv(index=False).encode("utf-8"))
    _atomic_write_bytes(out / "paired.csv", paired.to_csv(index=False).encode("utf-8"))
    _atomic_write_bytes(out / "versus.csv", versus.to_csv(index=False).encode("utf-8"))
    if lineup_pairs is not None:
        _atomic_write_bytes(out / "lineups.csv", lineup_pairs.to_csv(index=False).encode("utf-8"))
    if totals is not None and len(totals):
        _atomic_write_bytes(out / "totals.csv", totals.to_csv(index=False).encode("utf-8"))

    md: list[str] = [f"# {title}", ""]
    md += _run_section(summary, run_info, options)
    md.append(_HOW_TO_READ)
    md += ["## Findings", ""]
    findings: list[str] = []
    if len(summary):
        findings += _paired_findings(summary, paired, options)
        teams = "seat" in summary.columns and bool(summary["seat"].astype(str).str.startswith("team").any())
        findings += _versus_findings(versus, options, paired_ci, teams)
        findings += _round_findings(summary, options)
        findings += _match_findings(summary, options, losses)
        findings += _lineup_findings(lineup_pairs, options)
    md += findings or ["No results yet.", ""]
    if has_match:
        md += _matches_section(summary, totals, options, losses, has_teams)
        if total_figure:
            md += ["### Distribution of final totals", "", f"![Final match totals]({total_figure})", "",
                   "Share of matches per bin of final total (points, lower is better), one line per policy "
                   "(all its seats)" + ("; dashed: team totals" if has_teams else "") + ".", ""]
    if has_teams:
        md += _partnership_section(full, lineup_pairs, options)
    elif lineup_pairs is not None and len(lineup_pairs):
        md += _lineups_section(lineup_pairs, options)
    if len(summary):
        md += ["## Tables", "", "### Mean score and outcomes, all seats of each policy", "",
               _main_table(summary, options), "",
               "### Mean score by seat (± half-width of the 95% CI)", "",
               "Seat 0 is the starter (who is dealt one extra card and plays first).", "",
               _seat_table(summary, options), ""]
        if len(paired):
            md += ["### Paired differences between configurations (c2 − c1, same deals)", "",
                   "pp = percentage points.", "", _paired_table(paired, options), ""]
        if len(versus):
            md += ["### Policies compared within a line-up", "", _versus_table(versus, options), ""]
    if figures:
        md += ["## Figures", ""]
        for fname, ftitle, caption in figures:
            md += [f"### {ftitle}", "", f"![{ftitle}]({fname})", "", caption, ""]
    md += ["## Files", "",
           "- `summary.csv`: every statistic per configuration, line-up, policy and seat.",
           "- `paired.csv`: every paired difference between configurations.",
           "- `versus.csv`: policies compared within a line-up."]
    if lineup_pairs is not None:
        md.append("- `lineups.csv`: line-ups that differ in one position, compared deal by deal (and match by match).")
    if totals is not None and len(totals):
        md.append("- `totals.csv`: quantiles of the final match totals per policy" + (" and team." if has_teams else "."))
    md.append("")
    path = out / "report.md"
    _atomic_write_bytes(path, "\n".join(md).encode("utf-8"))
    return path
