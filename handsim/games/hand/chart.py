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

#: Decision classes ``handsim chart --decision`` measures (:data:`chart_kernel.CLASSES`, in its order).
DECISIONS = ("open", "draw", "jokers", "layoff", "hunt")
#: The two alternatives of each class: ``gain`` = score(second) - score(first), > 0 says the first.
ACTIONS = {"open": ("open", "wait"), "draw": ("take", "stock"), "jokers": ("lay", "keep"),
           "layoff": ("lay off", "hold back"), "hunt": ("hunt", "normal")}
#: The name, per class, of the column that says whether the field's card-reader plays the first
#: alternative there (for hunt: whether the seat is a hold-hand seat of the field).
FIELD_COLUMN = {"open": "field_opens", "draw": "field_takes", "jokers": "field_lays", "layoff": "field_lays_off",
                "hunt": "field_hunts"}
_COMMON = ("deal", "position", "threshold", "own_turn", "cards")
_TAIL = ("worlds", "sum_diff", "sum_diff2")
#: The columns of each class's positions (before ``mean_diff`` and ``se``): the features a player
#: can see at the decision (``layable``: jokers it could lay now; ``laid_off``: cards its lay-offs
#: take; ``short``: cards short of a Hand, :func:`hold_hand.distance`; ``discard_points``: 0 for a
#: joker; ``discard_use``: :data:`USES`).
POSITION_COLUMNS = {
    "open": _COMMON + ("open_points", "jokers", "fewest_opponent", "opened_opponents", "field_opens") + _TAIL,
    "draw": _COMMON + ("opened", "discard_points", "discard_use", "jokers", "fewest_opponent", "opened_opponents",
                       "field_takes") + _TAIL,
    "jokers": _COMMON + ("joker_penalty", "jokers", "layable", "fewest_opponent", "opened_opponents",
                         "field_lays") + _TAIL,
    "layoff": _COMMON + ("laid_off", "jokers", "fewest_opponent", "opened_opponents", "field_lays_off") + _TAIL,
    "hunt": _COMMON + ("short", "jokers", "fewest_opponent", "opened_opponents", "field_hunts") + _TAIL,
}
#: The chart's rows and columns of each class when none are given.
DEFAULT_AXES = {"open": ("own_turn", "open_points"), "draw": ("discard_use", "own_turn"),
                "jokers": ("own_turn", "fewest_opponent"), "layoff": ("own_turn", "fewest_opponent"),
                "hunt": ("short", "own_turn")}
#: Every feature a chart's rows or columns may be (per class: those of :data:`POSITION_COLUMNS`).
FEATURES = ("own_turn", "cards", "open_points", "jokers", "fewest_opponent", "opened_opponents", "opened",
            "discard_points", "discard_use", "joker_penalty", "layable", "laid_off", "short", "threshold")
#: ``discard_use`` codes (:data:`chart_kernel.USE_LOOSE` ..) by name.
USES = ("loose", "partial", "layoff", "meld", "opens")
#: Line-up policies a field may hold: the ones the searcher's rollouts can play (their role).
FIELD_ROLES = {"greedy": 0, "card-reader": 1, "hold-hand": 2}
#: A cell with fewer positions is marked "too few", not coloured.
MIN_POSITIONS = 30
#: Bucket edges (left-closed) of the features a cell is made of.
TURN_BUCKETS = (1, 3, 5, 8, 12)
POINT_BUCKETS = (0, 60, 80, 100, 130)
CARD_BUCKETS = (0, 5, 9, 12)
#: Decision points recorded per deal at most (room in the output arrays): the open class's points
#: are few per deal (a seat opens once), the others' one per turn of a seat.
ROWS_PER_DEAL = {"open": 16, "draw": 64, "jokers": 64, "layoff": 64, "hunt": 64}


def _label(edges: Sequence[int], x: float) -> str:
    k = int(np.searchsorted(edges, x, side="right")) - 1
    k = max(k, 0)
    lo = edges[k]
    return f"{lo}+" if k == len(edges) - 1 else f"{lo}-{edges[k + 1] - 1}"


def chart_figure(cells, rows: str, cols: str, title: str, decision: str = "open"):
    """:func:`handsim.games.hand.chart_plot.chart_figure` (the game's chart figure), its rows and
    columns in the order of :func:`order`."""
    from handsim.games.hand.chart_plot import chart_figure as fig

    rk, ck = rows + "_bucket", cols + "_bucket"
    return fig(cells, rows, cols, title, actions=ACTIONS[decision],
               row_order=sorted(set(cells[rk]) if len(cells) else [], key=lambda v: order_key(rows, v)),
               col_order=sorted(set(cells[ck]) if len(cells) else [], key=lambda v: order_key(cols, v)))


def check_axes(decision: str, rows: str, cols: str) -> None:
    """Refuse (:class:`InputError`) an unknown class, or rows or columns that class's positions
    do not have (:data:`POSITION_COLUMNS`)."""
    if decision not in DECISIONS:
        raise InputError(f"--decision {decision!r} is no decision class (allowed: {', '.join(DECISIONS)})")
    have = [f for f in FEATURES if f == "threshold" or f in POSITION_COLUMNS[decision]]
    for opt, f in (("--rows", rows), ("--cols", cols)):
        if f not in have:
            raise InputError(f"{opt} {f}: the {decision} class has no such feature (allowed: {', '.join(have)})")
    if rows == cols:
        raise InputError(f"--rows and --cols are both {rows} (allowed: two different features)")


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
    seed, start, n, players, rv, pol, pp, role_of, worlds, deck, dealer, decision = args
    from handsim.games.hand.chart_kernel import N_COLS, chart_deals

    out = np.zeros((n * ROWS_PER_DEAL[decision], N_COLS), dtype=np.float64)
    m = chart_deals(np.int64(seed), np.int64(start), np.int64(n), np.int64(players), rv, pol, pp, role_of,
                    np.int64(worlds), deck, np.int64(dealer), np.int64(DECISIONS.index(decision)), out)
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
            progress: Callable[[int], None] | None = None, deck=None, dealer: int = 0,
            decision: str = "open") -> pd.DataFrame:
    """Play ``deals`` deals with the field ``lineup`` and evaluate every decision point of a class
    (``decision``: "open now vs wait" by default; :mod:`.chart_kernel` describes each class).

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
    decision : str
        The decision class (:data:`DECISIONS`).

    Returns
    -------
    pandas.DataFrame
        One row per decision point: the class's :data:`POSITION_COLUMNS` (``deal`` and the
        features as ints), ``mean_diff`` (points per round, score of the second alternative of
        :data:`ACTIONS` less the first's, e.g. wait − open: > 0 says the first, open now) and
        ``se``.

    Raises
    ------
    InputError
        An unknown class, a field policy the rollouts cannot play, or a line-up of the wrong size.
    """
    from handsim.games.hand.chart_kernel import COLUMNS

    if decision not in DECISIONS:
        raise InputError(f"no decision class {decision!r} (allowed: {', '.join(DECISIONS)})")
    labels, pol, pp, role_of = _field(rules, lineup, None)
    players = len(labels)
    rv = rules.to_vector()
    dk = np.zeros(0, dtype=np.int8) if deck is None else np.asarray(deck, dtype=np.int8)
    items = [(seed, s, min(chunk, deals - s), players, rv, pol, pp, role_of, worlds, dk, dealer, decision)
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
    df = df.rename(columns={"field_opens": FIELD_COLUMN[decision],
                            "layable": "laid_off" if decision == "layoff" else "layable"})
    df = df[list(POSITION_COLUMNS[decision])]
    for c in df.columns:
        if c not in ("sum_diff", "sum_diff2"):
            df[c] = df[c].astype(np.int64)
    w = df["worlds"].astype(float)
    df["mean_diff"] = df["sum_diff"] / w
    var = (df["sum_diff2"] - w * df["mean_diff"] ** 2) / (w - 1).clip(lower=1)
    df["se"] = np.sqrt(var.clip(lower=0) / w)
    return df


def bucket(feature: str, x) -> str:
    """The label of a feature's value in a chart (:data:`FEATURES`): ``own_turn``, ``open_points``,
    ``cards`` and ``fewest_opponent`` in buckets (:data:`TURN_BUCKETS` ..: ``"1-2"``, ``"12+"``),
    ``discard_use`` by name (:data:`USES`), ``discard_points`` ``"joker"``, ``"2-5"``, ``"6-9"``,
    ``"10"`` or ``"A"``, ``opened`` ``"no"`` / ``"yes"``, the others their number."""
    x = int(x)
    if feature in _EDGES:
        return _label(_EDGES[feature], x)
    if feature == "discard_use":
        return USES[x]
    if feature == "discard_points":
        return "joker" if x == 0 else "A" if x == 11 else "10" if x == 10 else "6-9" if x >= 6 else "2-5"
    if feature == "opened":
        return "yes" if x else "no"
    return str(x)


_EDGES = {"own_turn": TURN_BUCKETS, "open_points": POINT_BUCKETS, "cards": CARD_BUCKETS,
          "fewest_opponent": CARD_BUCKETS}
_ORDER = {"discard_use": USES, "discard_points": ("2-5", "6-9", "10", "A", "joker"), "opened": ("no", "yes")}


def order_key(feature: str, label: str):
    """A sort key that puts a feature's labels in their natural order (buckets low to high, the
    uses from loose to opens)."""
    if feature in _EDGES:
        return [_label(_EDGES[feature], e) for e in _EDGES[feature]].index(label)
    if feature in _ORDER:
        return _ORDER[feature].index(label)
    return int(label)


def bucketed(positions: pd.DataFrame, rows: str, cols: str) -> pd.DataFrame:
    """``positions`` with the columns ``<rows>_bucket`` and ``<cols>_bucket`` (:func:`bucket`): the
    cell each position falls in."""
    df = positions.copy()
    for f in (rows, cols):
        df[f + "_bucket"] = [bucket(f, x) for x in df[f]]
    return df


def t_interval(x) -> tuple[float, float, float]:
    """Mean and 95% Student t interval of the values ``x`` (over positions): ``(mean, lo, hi)``; the
    interval is infinite for fewer than 2 values, of no width when they are all equal."""
    from scipy import stats

    x = np.asarray(x, dtype=float)
    n = len(x)
    mean = float(x.mean()) if n else float("nan")
    if n >= 2 and x.std(ddof=1) > 0:
        half = float(stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / np.sqrt(n))
    else:
        half = float("inf") if n < 2 else 0.0
    return mean, mean - half, mean + half


def verdict(decision: str, n: int, lo: float, hi: float, min_positions: int) -> str:
    """The better action of a cell: the first of :data:`ACTIONS` when the CI is above 0, the second
    below it, ``either`` when it holds 0, ``too few`` under ``min_positions`` positions."""
    first, second = ACTIONS[decision]
    if n < min_positions:
        return "too few"
    return first if lo > 0 else second if hi < 0 else "either"


def cells(positions: pd.DataFrame, rows: str = "own_turn", cols: str = "open_points",
          min_positions: int = MIN_POSITIONS, decision: str = "open") -> pd.DataFrame:
    """Group positions into cells by two bucketed features and say the better action of each.

    Parameters
    ----------
    positions : pandas.DataFrame
        :func:`measure`'s rows.
    rows, cols : str
        The features of the chart's rows and columns (:data:`FEATURES` the class's positions have).
    min_positions : int
        Cells with fewer positions are ``too few`` (no better action given).
    decision : str
        The class the positions are of (:data:`DECISIONS`).

    Returns
    -------
    pandas.DataFrame
        One row per cell: ``threshold`` (and for the jokers class ``joker_penalty``), the two
        buckets, ``positions``, ``gain`` (mean over positions of the second alternative's score less
        the first's, points per round, e.g. wait − open: > 0, the first scores that many points less),
        its 95% CI ``lo`` .. ``hi`` (Student t over positions), ``better`` (the first or second of
        :data:`ACTIONS`, ``either`` where the CI holds 0, ``too few``) and the class's
        :data:`FIELD_COLUMN` (the share of positions where the field plays the first).

    Raises
    ------
    InputError
        A feature the positions do not have.
    """
    for f in (rows, cols):
        if f not in positions.columns or f not in FEATURES:
            raise InputError(f"no chart feature {f!r} (allowed: {', '.join(c for c in FEATURES if c in positions.columns)})")
    field = FIELD_COLUMN[decision]
    df = bucketed(positions, rows, cols)
    lead = ["threshold"] + (["joker_penalty"] if decision == "jokers" else [])
    lead = [c for c in lead if c not in (rows, cols)]
    keys = lead + [rows + "_bucket", cols + "_bucket"]
    out = []
    for key, grp in df.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        n = len(grp)
        mean, lo, hi = t_interval(grp["mean_diff"].to_numpy())
        rec = dict(zip(keys, key))
        rec.update(positions=n, gain=mean, lo=lo, hi=hi, better=verdict(decision, n, lo, hi, min_positions))
        rec[field] = float(grp[field].mean())
        out.append(rec)
    res = pd.DataFrame(out)
    if "threshold" not in res.columns:
        res.insert(0, "threshold", int(df["threshold"].iloc[0]) if len(df) else 0)
    if len(res):
        res = res.sort_values(lead + [rows + "_bucket", cols + "_bucket"],
                              key=lambda c: c.map(lambda v: order_key(c.name[:-7], v)) if c.name.endswith("_bucket")
                              else c)
    return res.reset_index(drop=True)
