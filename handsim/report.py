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
import pandas as pd

__all__ = [
    "Drawn",
    "plot_mean_score",
    "plot_rate",
    "plot_round_length",
    "plot_paired",
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
            if sig == "significant":
                judgement = (f": {row['policy']} does worse (scores are penalty points, lower is better)" if d > 0
                             else f": {row['policy']} does better (lower is better)")
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
                out.append(
                    f"  - {_RATE_NAMES[rate]} for {row['policy']} {move} {levels} "
                    f"({_pp(dd)} percentage points, 95% CI {_ci_text(100 * dlo, 100 * dhi, _signed)}){tail}.")
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


def _versus_findings(versus: pd.DataFrame, options: list[str], paired_ci: bool) -> list[str]:
    out: list[str] = []
    if not len(versus):
        return out
    out.append("### Policies compared in the same deals")
    out.append("")
    how = ("per-deal difference on the same deals" if paired_ci
           else "unpaired interval from the two means (conservative)")
    for row in versus.to_dict("records"):
        d, lo, hi = row["mean_diff"], row["ci95_low"], row["ci95_high"]
        sig = _significance(lo, hi)
        if sig == "significant":
            better, worse = (row["policy_a"], row["policy_b"]) if d < 0 else (row["policy_b"], row["policy_a"])
            verdict = f"{better} does better than {worse}"
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


def _match_findings(summary: pd.DataFrame, options: list[str]) -> list[str]:
    allrows = summary[(summary["seat"] == "all") & (summary["matches"] > 0)] if len(summary) else summary
    if not len(allrows):
        return []
    out = ["### Matches", ""]
    for row in allrows.to_dict("records"):
        ctx = f"line-up {_lineup_text(row['lineup'])}"
        if options:
            ctx += "; " + _config_text(row, options)
        out.append(f"- {row['policy']} wins {_pct(row['match_win_rate'])} of its matches "
                   f"(95% CI {_pct(row['match_win_rate_ci95_low'])} to {_pct(row['match_win_rate_ci95_high'])}). [{ctx}]")
    out.append("")
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
        rows = [(f"`{k}`", "*varies*" if k in options else _value_text(v)) for k, v in rules.items()]
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
- **95% CI** is a 95% confidence interval. For a policy over all its seats ("all") the unit is the deal:
  when a policy holds several seats of a line-up, their mean score in a deal is one observation, so the
  interval stays honest. Proportions (P(went out), P(Hand), P(unopened), P(won match)) use Wilson
  intervals over player-rounds.
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
                 run_info: Mapping[str, Any], *, versus: pd.DataFrame | None = None) -> Path:
    """Write PNG figures, CSV tables and ``report.md`` into ``out_dir``.

    Every file is written atomically (a temporary file in ``out_dir``, then ``os.replace``).

    Parameters
    ----------
    out_dir : str or Path
        Folder (created if needed).
    summary, paired : pandas.DataFrame
        From :class:`handsim.stats.StudyAccumulator`.
    histograms : dict
        From :meth:`~handsim.stats.StudyAccumulator.histograms` (``"turns"`` is used).
    run_info : dict
        What was run; every key is optional.  Known keys: ``title``, ``players``, ``deals`` (per
        configuration and line-up), ``seed``, ``preset``, ``rules`` (option -> value of the base
        rules, e.g. ``Rules.to_dict()``), ``seconds`` (simulation wall time), ``rounds_per_s``,
        ``rounds_played``, ``policies`` (name -> one-line description), ``command``,
        ``version``.  Other keys are listed under "Other run details".
    versus : pandas.DataFrame, optional
        :meth:`~handsim.stats.StudyAccumulator.versus`; without it, policies are compared from the
        summary with an unpaired (conservative) interval.

    Returns
    -------
    pathlib.Path
        The path of ``report.md``.

    Notes
    -----
    Files written: ``report.md``, ``summary.csv``, ``paired.csv``, ``versus.csv``, ``mean_score.png``,
    ``rates.png``, ``round_length.png``, ``paired.png`` (the figures only when there is data).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    options = _varying(summary)
    title = str(run_info.get("title", "Hand (هاند) strategy study"))
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

    _atomic_write_bytes(out / "summary.csv", summary.to_csv(index=False).encode("utf-8"))
    _atomic_write_bytes(out / "paired.csv", paired.to_csv(index=False).encode("utf-8"))
    _atomic_write_bytes(out / "versus.csv", versus.to_csv(index=False).encode("utf-8"))

    md: list[str] = [f"# {title}", ""]
    md += _run_section(summary, run_info, options)
    md.append(_HOW_TO_READ)
    md += ["## Findings", ""]
    findings: list[str] = []
    if len(summary):
        findings += _paired_findings(summary, paired, options)
        findings += _versus_findings(versus, options, paired_ci)
        findings += _round_findings(summary, options)
        findings += _match_findings(summary, options)
    md += findings or ["No results yet.", ""]
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
           "- `versus.csv`: policies compared within a line-up.", ""]
    path = out / "report.md"
    _atomic_write_bytes(path, "\n".join(md).encode("utf-8"))
    return path
