"""Decision charts (issue 26 part 1): positions measured by :mod:`.chart_kernel`, grouped into cells.

:func:`measure` plays the deals in chunks (processes with ``jobs`` > 1; every deal's numbers come
from its own streams, so the table of positions is the same for any ``jobs`` and ``chunk``) and
returns one row per decision point; :func:`cells` groups them by what a player can see and says,
per cell, which action is better and by how much, with a 95% confidence interval over positions.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from handsim._interrupt import worker_pool
from handsim.errors import InputError

#: Decision classes ``handsim chart --decision`` measures.
DECISIONS = ("open",)
#: Line-up policies a field may hold: the ones the searcher's rollouts can play (their role).
FIELD_ROLES = {"greedy": 0, "card-reader": 1, "hold-hand": 2}
#: A cell with fewer positions is marked "too few", not coloured.
MIN_POSITIONS = 30
#: Bucket edges (left-closed) of the features a cell is made of.
TURN_BUCKETS = (1, 3, 5, 8, 12)
POINT_BUCKETS = (0, 60, 80, 100, 130)
CARD_BUCKETS = (0, 5, 9, 12)
#: Decision points recorded per deal at most (room in the output arrays).
ROWS_PER_DEAL = 16


def _label(edges: Sequence[int], x: float) -> str:
    k = int(np.searchsorted(edges, x, side="right")) - 1
    k = max(k, 0)
    lo = edges[k]
    return f"{lo}+" if k == len(edges) - 1 else f"{lo}-{edges[k + 1] - 1}"


def chart_figure(cells, rows: str, cols: str, title: str):
    """:func:`handsim.games.hand.chart_plot.chart_figure` (the game's chart figure)."""
    from handsim.games.hand.chart_plot import chart_figure as fig

    return fig(cells, rows, cols, title)


def check_field(rules, lineup: str) -> None:
    """Refuse (:class:`InputError`) a field the chart's rollouts cannot play."""
    _field(rules, lineup, None)


def _field(rules, lineup: str, players: int | None):
    from handsim.policies import lineup_arrays, parse_lineup

    specs = parse_lineup(lineup)
    bad = [s.name for s in specs if s.name not in FIELD_ROLES]
    if bad:
        raise InputError(f"--lineup: {bad[0]} cannot play a chart's field (allowed: {', '.join(FIELD_ROLES)})")
    if players is not None and len(specs) != players:
        raise InputError(f"--lineup names {len(specs)} policies for {players} players")
    if not 2 <= len(specs) <= 5:
        raise InputError(f"--lineup names {len(specs)} policies (allowed: 2 to 5)")
    pol, pp = lineup_arrays(specs)
    from handsim.games.hand.policies.registry import BUILTIN_IDS

    role_of = np.zeros(max(BUILTIN_IDS.values()) + 1, dtype=np.int64)
    for name, r in FIELD_ROLES.items():
        role_of[BUILTIN_IDS[name]] = r
    return [s.label for s in specs], pol, pp, role_of


def _chunk(args) -> np.ndarray:
    seed, start, n, players, rv, pol, pp, role_of, worlds, deck, dealer = args
    from handsim.games.hand.chart_kernel import N_COLS, chart_deals

    out = np.zeros((n * ROWS_PER_DEAL, N_COLS), dtype=np.float64)
    m = chart_deals(np.int64(seed), np.int64(start), np.int64(n), np.int64(players), rv, pol, pp, role_of,
                    np.int64(worlds), deck, np.int64(dealer), out)
    return out[:m]


def warm_up(rules, lineup: str) -> None:
    """Compile (or load from the cache) the chart's kernel for ``lineup`` in this process, before
    :func:`measure` forks its workers (they then load it, and a command's compile notice, which
    hears numba's compile event in this process only, covers the compilation): one deal, two
    worlds.

    Raises
    ------
    InputError
        As :func:`measure`.
    """
    measure(rules, lineup, deals=1, worlds=2)


def measure(rules, lineup: str = "card-reader,card-reader,card-reader,card-reader", deals: int = 100,
            worlds: int = 16, seed: int = 0, jobs: int = 1, chunk: int = 20,
            progress: Callable[[int], None] | None = None, deck=None, dealer: int = 0) -> pd.DataFrame:
    """Play ``deals`` deals with the field ``lineup`` and evaluate every "open now vs wait" point.

    Parameters
    ----------
    rules : handsim.games.hand.rules.Rules
    lineup : str
        The field, one policy per seat (greedy, card-reader, hold-hand; parameters apply to the
        real deal, the rollouts play their defaults).
    deals, worlds, seed, jobs, chunk : int
        Deals played; sampled hidden worlds per position (the same for both alternatives);
        the study seed; worker processes; deals per work item (neither changes the result).
    progress : callable, optional
        Called with the deals finished after each chunk.
    deck : sequence of int, optional
        A stacked deck played for every deal (hand-built tests), with ``dealer``.

    Returns
    -------
    pandas.DataFrame
        One row per decision point: :data:`chart_kernel.COLUMNS` (``deal`` and the features as
        ints), ``mean_diff`` (points per round, wait − open: > 0 says open now) and ``se``.

    Raises
    ------
    InputError
        A field policy the rollouts cannot play, or a line-up of the wrong size.
    """
    from handsim.games.hand.chart_kernel import COLUMNS

    labels, pol, pp, role_of = _field(rules, lineup, None)
    players = len(labels)
    rv = rules.to_vector()
    dk = np.zeros(0, dtype=np.int8) if deck is None else np.asarray(deck, dtype=np.int8)
    items = [(seed, s, min(chunk, deals - s), players, rv, pol, pp, role_of, worlds, dk, dealer)
             for s in range(0, deals, chunk)]
    parts = []
    if jobs <= 1:
        for it in items:
            parts.append(_chunk(it))
            if progress:
                progress(it[2])
    else:
        with worker_pool(jobs) as ex:  # (ends with this process; Ctrl-C does not wait for every chunk)
            for it, part in zip(items, ex.map(_chunk, items)):
                parts.append(part)
                if progress:
                    progress(it[2])
    arr = np.concatenate(parts) if parts else np.zeros((0, len(COLUMNS)))
    df = pd.DataFrame(arr, columns=list(COLUMNS))
    for c in COLUMNS[:11]:
        df[c] = df[c].astype(np.int64)
    w = df["worlds"].astype(float)
    df["mean_diff"] = df["sum_diff"] / w
    var = (df["sum_diff2"] - w * df["mean_diff"] ** 2) / (w - 1).clip(lower=1)
    df["se"] = np.sqrt(var.clip(lower=0) / w)
    return df


def cells(positions: pd.DataFrame, rows: str = "own_turn", cols: str = "open_points",
          min_positions: int = MIN_POSITIONS) -> pd.DataFrame:
    """Group positions into cells by two bucketed features and say the better action of each.

    Parameters
    ----------
    positions : pandas.DataFrame
        :func:`measure`'s rows.
    rows, cols : str
        The features of the chart's rows and columns (``own_turn``, ``open_points``, ``cards``,
        ``jokers``, ``fewest_opponent``, ``opened_opponents``, ``threshold``).
    min_positions : int
        Cells with fewer positions are ``too few`` (no better action given).

    Returns
    -------
    pandas.DataFrame
        One row per cell: ``threshold``, the two buckets, ``positions``, ``gain`` (mean over positions
        of wait − open, points per round; > 0: opening now scores that many points less), its 95% CI
        ``lo`` .. ``hi`` (Student t over positions), ``better`` (``open``, ``wait``, ``either`` where
        the CI holds 0, ``too few``) and ``field_opens`` (the share of positions the field opened in).
    """
    from scipy import stats

    edges = {"own_turn": TURN_BUCKETS, "open_points": POINT_BUCKETS, "cards": CARD_BUCKETS,
             "fewest_opponent": CARD_BUCKETS}
    for f in (rows, cols):
        if f not in positions.columns or f in ("deal", "position", "worlds", "sum_diff", "sum_diff2"):
            raise InputError(f"no chart feature {f!r} (allowed: own_turn, open_points, cards, jokers, "
                             f"fewest_opponent, opened_opponents, threshold)")
    df = positions.copy()
    for f in (rows, cols):
        df[f + "_bucket"] = [(_label(edges[f], x) if f in edges else str(int(x))) for x in df[f]]
    keys = ["threshold", rows + "_bucket", cols + "_bucket"] if rows != "threshold" and cols != "threshold" \
        else [rows + "_bucket", cols + "_bucket"]
    out = []
    for key, grp in df.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        x = grp["mean_diff"].to_numpy()
        n = len(x)
        mean = float(x.mean())
        if n >= 2 and x.std(ddof=1) > 0:
            half = float(stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / np.sqrt(n))
        else:
            half = float("inf") if n < 2 else 0.0
        lo, hi = mean - half, mean + half
        if n < min_positions:
            better = "too few"
        elif lo > 0:
            better = "open"
        elif hi < 0:
            better = "wait"
        else:
            better = "either"
        rec = dict(zip(keys, key))
        rec.update(positions=n, gain=mean, lo=lo, hi=hi, better=better, field_opens=float(grp["field_opens"].mean()))
        out.append(rec)
    res = pd.DataFrame(out)
    if "threshold" not in res.columns:
        res.insert(0, "threshold", int(df["threshold"].iloc[0]) if len(df) else 0)
    order = {f: list(_order(edges.get(f))) for f in (rows, cols)}

    def sort_key(col, f):
        labels = order[f]
        return col.map(lambda v: labels.index(v) if v in labels else int(v) if str(v).isdigit() else 999)

    if len(res):
        res = res.sort_values([rows + "_bucket", cols + "_bucket"],
                              key=lambda c: sort_key(c, rows if c.name == rows + "_bucket" else cols))
    return res.reset_index(drop=True)


def _order(edges):
    if edges is None:
        return []
    return [_label(edges, e) for e in edges]
