"""Figure helpers shared by every report: a figure on the Agg canvas, colours per policy name, points with
95% intervals by a rule option, legends, PNG bytes (matplotlib, imported lazily).

Each game draws its own figures with these helpers (classic Hand's in
:mod:`handsim.games.hand.plots`, Russian Hand's in :mod:`handsim.games.russian.report`, a
tournament's in :mod:`handsim.tournament.plots`).  The varying rule options of a table are the
columns before ``lineup``.

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
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

__all__ = [
    "Drawn",
    "BUILTIN_COLOURS",
    "OTHER_COLOURS",
    "MARKERS",
    "MAX_SERIES",
    "OTHER_GREY",
    "cap_series",
    "new_figure",
    "grid",
    "png_bytes",
    "figure_progress",
    "figure_legend",
    "axes_or_new",
    "varying",
    "nunique",
    "is_numeric",
    "human",
    "value_text",
    "lineup_text",
    "policy_colour",
    "policy_colours",
    "colour_of",
    "yerr",
    "pick_x",
    "no_data",
    "points_by_option",
    "merged_text",
    "rows_where",
    "spread_pick",
    "nice_width",
    "binned_share",
]

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
#: The colours of the built-in policies, fixed so that a policy looks the same in every report:
#: classic Hand's greedy, hold-hand, card-reader, sampler and random, and Russian Hand's patient
#: (its greedy and random take the classic policies' colours).
BUILTIN_COLOURS = {
    "greedy": "#1f77b4",  # blue
    "hold-hand": "#ff7f0e",  # orange
    "card-reader": "#2ca02c",  # green
    "sampler": "#9467bd",  # purple
    "searcher": "#0b3d91",  # navy
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


#: ``[callback, figures drawn]`` inside :func:`figure_progress`, else None
_PROGRESS: ContextVar[list | None] = ContextVar("handsim_report_progress", default=None)


@contextmanager
def figure_progress(callback: Callable[[int], None]) -> Iterator[None]:
    """Within the block, call ``callback(n)`` after each figure drawn (:func:`png_bytes`), ``n`` the
    figures drawn so far: the progress of a report of any kind (a study, a tournament, a tuning run),
    which the command line shows on stderr."""
    token = _PROGRESS.set([callback, 0])
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def png_bytes(fig, dpi: int = 100) -> bytes:
    """The figure as PNG bytes (one step of :func:`figure_progress`)."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        # small studies can leave a panel too narrow for constrained layout; the figure is still drawn
        warnings.filterwarnings("ignore", message="constrained_layout not applied")
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    progress = _PROGRESS.get()
    if progress is not None:
        progress[1] += 1
        progress[0](progress[1])
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


#: Series that a summarising figure (every line-up in one panel) draws in a colour and a legend
#: entry each; beyond, :func:`cap_series` draws the rest in grey under one legend entry.
MAX_SERIES = 12
#: The grey of the series :func:`cap_series` leaves out of the legend.
OTHER_GREY = "#a0a0a0"


def cap_series(ax, limit: int = MAX_SERIES) -> tuple[int, int]:
    """Keep the legend of ``ax`` to at most ``limit`` entries: the series of 95% CI points
    (``errorbar`` containers) with the most points keep their colour and label (ties: in the
    order drawn); the others are drawn in :data:`OTHER_GREY`, smaller, under one entry
    ``"N other series (grey)"``.  Other labelled artists (a reference line) are left as they are.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    limit : int
        Legend entries kept, the grey one included (at least 2).

    Returns
    -------
    (int, int)
        Series drawn in colour, series drawn in grey (0 when everything fits).
    """
    from matplotlib.container import ErrorbarContainer

    conts = [c for c in ax.containers if isinstance(c, ErrorbarContainer) and not c.get_label().startswith("_")]
    if len(conts) <= limit:
        return len(conts), 0
    order = sorted(range(len(conts)), key=lambda i: (-len(conts[i].lines[0].get_xdata()), i))
    keep = set(order[: max(1, limit - 1)])
    grey = [c for i, c in enumerate(conts) if i not in keep]
    for c in grey:
        line = c.lines[0]
        line.set_color(OTHER_GREY)
        line.set_markeredgecolor(OTHER_GREY)
        line.set_markersize(min(line.get_markersize(), 3.0))
        line.set_zorder(1.5)
        for art in list(c.lines[1]) + list(c.lines[2]):
            art.set_color(OTHER_GREY)
            art.set_zorder(1.4)
        c.set_label("_grey")
    grey[0].set_label(f"{len(grey)} other series (grey)")
    return len(conts) - len(grey), len(grey)


def axes_or_new(ax, figsize=(6.4, 4.2)):
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


def yerr(y, lo, hi) -> np.ndarray:
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


def no_data(ax, text="no data"):
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
    ax = axes_or_new(ax)
    drawn: dict[str, Any] = {}
    if not len(df):
        no_data(ax)
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
                parts.append(merged_text([m[0] for m in members], others) + " (same values)")
        label = " — ".join(parts) if len(parts) > 1 else parts[0]
        mk = marker_of.setdefault(other_vals if len(members) == 1 else ("merged", i), MARKERS[len(marker_of) % len(MARKERS)])
        colour = colour_of(colours, str(kd.get(colour_col)))
        xpos = np.asarray(g["_p"], dtype=float) + dodge * (i - (n_series - 1) / 2)
        y = np.asarray(g[ycol], dtype=float) * scale
        lo = np.asarray(g[locol], dtype=float) * scale
        hi = np.asarray(g[hicol], dtype=float) * scale
        cont = ax.errorbar(xpos, y, yerr=yerr(y, lo, hi), fmt=mk, linestyle="none", color=colour,
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


def merged_text(members: Sequence[Mapping[str, Any]], options: Sequence[str]) -> str:
    """``"opening threshold 51, joker penalty 15 or 30"``: the options of merged identical series."""
    parts = []
    for o in options:
        vals = list(dict.fromkeys(value_text(m[o]) for m in members))
        parts.append(f"{human(o)} {' or '.join(vals)}")
    return ", ".join(parts)


def rows_where(df, **eq):
    if not len(df):
        return df
    mask = np.ones(len(df), dtype=bool)
    for k, v in eq.items():
        if v is not None:
            mask &= (df[k].astype(str) == str(v)).to_numpy()
    return df[mask]


def spread_pick(values: Sequence, k: int) -> list:
    """At most ``k`` of ``values``: the first, the last and evenly spaced ones between."""
    values = list(values)
    if len(values) <= k:
        return values
    idx = sorted({round(i * (len(values) - 1) / (k - 1)) for i in range(k)})
    return [values[i] for i in idx]


def nice_width(span: float, bins: int = 40) -> int:
    """A bin width of 1, 2 or 5 times a power of ten giving about ``bins`` bins over ``span``."""
    raw = max(span / bins, 1.0)
    p = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * p >= raw:
            return int(m * p)
    return int(10 * p)


def binned_share(values, counts, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin centres (points) and the share of the total count per bin of ``width`` points."""
    t = np.asarray(values, dtype=np.int64)
    c = np.asarray(counts, dtype=float)
    b = np.floor_divide(t, width)
    idx = np.arange(b.min(), b.max() + 1)
    share = np.zeros(len(idx))
    np.add.at(share, b - b.min(), c)
    return (idx + 0.5) * width, share / c.sum()
