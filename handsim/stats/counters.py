"""Exact integer counters of a study, shared by every game's accumulator.

An accumulator keeps ``int64`` counters whose size does not depend on the number of deals:
counts, sums and sums of squares (:func:`add_sums`) and histograms that span exactly the observed
range (:func:`grow_last`).  Integer sums are exact, so chunks added or merged in any order give
byte-identical counters, and a checkpoint resumes exactly.  A checkpoint's counters are checked
when they are read back (:func:`check_counters`, :func:`check_totals`) before they are used.
:class:`Accumulator` is what every game's accumulator shares: the study's shape, adding chunks
and their paired comparisons, saving, reloading and merging the counters it names.  Nothing
here names a game.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["MAX_COUNTER", "Accumulator", "add_sums", "grow_last", "plain", "check_counters", "check_totals",
           "check_at_least", "check_parity", "check_zero", "check_spans", "check_moments", "exact_moments"]


def add_sums(acc: np.ndarray, i_sum: int, i_sum2: int, x: np.ndarray) -> None:
    """Add the exact integer sum and sum of squares of ``x`` to ``acc[i_sum]`` and ``acc[i_sum2]``.

    Parameters
    ----------
    acc : ndarray(int64, ndim=1)
        A row of counters, changed in place.
    i_sum, i_sum2 : int
        Where the sum and the sum of squares are kept.
    x : ndarray(int64)
        The values (e.g. points of one seat over a chunk's deals).
    """
    acc[i_sum] += int(x.sum())
    acc[i_sum2] += int((x * x).sum())


def grow_last(hist: np.ndarray, lo: int, new_lo: int, new_hi: int) -> tuple[np.ndarray, int]:
    """Widen a histogram whose last axis holds values ``lo, lo + 1, ...`` to cover ``new_lo .. new_hi``.

    Returns
    -------
    (ndarray(int64), int)
        The (possibly new) array and its first value; an empty histogram becomes exactly
        ``new_lo .. new_hi`` wide, so the state stays canonical (it spans the observed range).
    """
    w = hist.shape[-1]
    if w == 0:
        return np.zeros(hist.shape[:-1] + (new_hi - new_lo + 1,), dtype=np.int64), int(new_lo)
    old_hi = lo + w - 1
    nl, nh = min(new_lo, lo), max(new_hi, old_hi)
    if nl < lo or nh > old_hi:
        pad = [(0, 0)] * (hist.ndim - 1) + [(lo - nl, nh - old_hi)]
        hist = np.pad(hist, pad)
    return hist, int(nl)


def plain(v: Any) -> Any:
    """A plain Python value (numpy scalars unwrapped) for configs and JSON."""
    if isinstance(v, np.generic):
        return v.item()
    return v


#: Every saved counter is smaller than this in size: a checkpoint value of 2**53 or more is damage
#: (no study plays that many deals, and float64 statistics are exact below it).
MAX_COUNTER = 2**53


def check_counters(state: Mapping[str, np.ndarray], layout: Mapping[str, tuple]) -> None:
    """Check the values of saved counters, as read from a checkpoint, before they are used.

    Parameters
    ----------
    state : mapping of str -> ndarray
        The saved arrays; a name of ``layout`` that ``state`` lacks is skipped (the caller reports
        missing arrays).
    layout : mapping of str -> (signed, squares)
        Per array: ``signed``, the indices on its last axis that hold sums of values that may be
        negative (scores, differences), or ``"all"`` (every entry may be negative); every other
        entry is a count or a sum of squares and must be >= 0; ``squares``, pairs ``(i, i2)`` of
        a sum of integers and its sum of squares, so that ``|x[..., i]| <= x[..., i2]`` and the
        two have the same parity (``v * v - v`` is even for every integer ``v``).

    Raises
    ------
    ValueError
        One line naming the array: not of an integer dtype (handsim writes ``int64``), a value of
        2**53 or more in size (:data:`MAX_COUNTER`), a negative count, or a sum larger than its
        sum of squares or of another parity.
    """
    for name, (signed, squares) in layout.items():
        if name not in state:
            continue
        x = np.asarray(state[name])
        if x.dtype.kind not in "iu":
            raise ValueError(f"{name!r} holds {x.dtype} values, not the integers handsim writes")
        if not x.size:
            continue
        lo, hi = int(x.min()), int(x.max())
        if max(-lo, hi) >= MAX_COUNTER:
            raise ValueError(f"{name!r} holds a value out of range ({hi if hi >= MAX_COUNTER else lo}; "
                             "counters stay below 2**53 in size)")
        x = x.astype(np.int64, copy=False)
        if signed != "all":
            counts = np.delete(x, list(signed), axis=-1) if signed else x
            if counts.size and counts.min() < 0:
                raise ValueError(f"{name!r} holds a negative count ({int(counts.min())})")
        for i, i2 in squares:
            bad = np.abs(x[..., i]) > x[..., i2]
            if bad.any():
                k = tuple(int(v) for v in np.argwhere(bad)[0])
                raise ValueError(f"{name!r} holds a sum ({int(x[k + (i,)])}) larger than its sum of squares "
                                 f"({int(x[k + (i2,)])})")
            # an integer and its square are both even or both odd: so are their sums
            bad = (x[..., i] - x[..., i2]) % 2 != 0
            if bad.any():
                k = tuple(int(v) for v in np.argwhere(bad)[0])
                raise ValueError(f"{name!r} holds a sum ({int(x[k + (i,)])}) and a sum of squares "
                                 f"({int(x[k + (i2,)])}) of different parity (a square has the parity of its number)")


def check_totals(name: str, got: np.ndarray, other: str, want: np.ndarray, unit: str, most: bool = False,
                 where: np.ndarray | None = None) -> None:
    """Check that the totals ``got`` of saved array ``name`` equal (``most``: do not exceed) those
    ``want`` of array ``other``, element by element (only where ``where`` is true, when given).

    ``got`` and ``want`` may be ``int64`` or object arrays of Python ints (exact sums of products,
    :func:`exact_moments`), of shapes that broadcast together.

    Raises
    ------
    ValueError
        One line naming both arrays and the first pair of totals that do not fit.
    """
    got, want = np.broadcast_arrays(np.asarray(got), np.asarray(want))
    bad = got > want if most else got != want
    if where is not None:
        bad = bad & np.broadcast_to(where, bad.shape)
    if bad.any():
        k = tuple(np.argwhere(bad)[0])
        rel = "more than" if most else "other than"
        raise ValueError(f"{name!r} counts {int(got[k])} {unit}, {rel} the {int(want[k])} of {other!r}")


def check_at_least(name: str, got: np.ndarray, other: str, want: np.ndarray, unit: str,
                   where: np.ndarray | None = None) -> None:
    """Check that the totals ``got`` of saved array ``name`` are not below those ``want`` of
    array ``other`` (element by element, where ``where`` is true).

    Raises
    ------
    ValueError
        One line naming both arrays and the first pair of totals that do not fit.
    """
    got, want = np.broadcast_arrays(np.asarray(got), np.asarray(want))
    bad = got < want
    if where is not None:
        bad = bad & np.broadcast_to(where, bad.shape)
    if bad.any():
        k = tuple(np.argwhere(bad)[0])
        raise ValueError(f"{name!r} counts {int(got[k])} {unit}, fewer than the {int(want[k])} of {other!r}")


def check_parity(name: str, got: np.ndarray, other: str, want: np.ndarray, unit: str,
                 where: np.ndarray | None = None) -> None:
    """Check that the totals ``got`` of saved array ``name`` are even where those ``want`` of array
    ``other`` are, and odd where they are odd (element by element, where ``where`` is true).

    A sum of squares of per-deal differences ``d`` that are each -1, 0 or 1 (two 0/1 counts
    compared) is the number of deals with ``d != 0``: ``x + y - 2 * (deals where both are 1)``,
    of the parity of the sum ``x + y`` of the two counts (and of the difference's sum).

    Raises
    ------
    ValueError
        One line naming both arrays and the first pair of totals of different parity.
    """
    got, want = np.broadcast_arrays(np.asarray(got), np.asarray(want))
    bad = (got % 2) != (want % 2)
    if where is not None:
        bad = bad & np.broadcast_to(where, bad.shape)
    if bad.any():
        k = tuple(np.argwhere(bad)[0])
        parity = ("even", "odd")
        raise ValueError(f"{name!r} counts {int(got[k])} {unit}, {parity[int(got[k]) % 2]} where the "
                         f"{int(want[k])} of {other!r} is {parity[int(want[k]) % 2]}")


def check_zero(name: str, x: np.ndarray, used: np.ndarray, what: str) -> None:
    """Check that the cells of saved array ``name`` the study never adds to hold zeros.

    Parameters
    ----------
    x : ndarray(int64)
        The array.
    used : ndarray(bool)
        Broadcastable to the leading axes of ``x``: True where the study counts something (e.g. a
        policy that sits in the line-up), False where every counter must stay 0.
    what : str
        What a False cell is, for the message (``"a policy that is not in its line-up"``).

    Raises
    ------
    ValueError
        One line naming the array, the first cell that holds a count and what it is.
    """
    x = np.asarray(x)
    used = np.asarray(used, dtype=bool)
    nd = used.ndim
    lead = x.reshape(x.shape[:nd] + (int(np.prod(x.shape[nd:])),)) if x.ndim > nd else x[..., None]
    bad = (lead != 0).any(axis=-1) & ~np.broadcast_to(used, lead.shape[:-1])
    if bad.any():
        k = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name!r} holds counts at {list(k)}, for {what} (always 0)")


def exact_moments(hist: np.ndarray, lo: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count, sum and sum of squares of the values a histogram holds, as exact Python ints.

    Parameters
    ----------
    hist : ndarray(int64)
        Counts on the last axis, of the values ``lo, lo + 1, ...``.
    lo : int
        The first value.

    Returns
    -------
    (ndarray, ndarray, ndarray)
        Object arrays of Python ints of ``hist.shape[:-1]`` (exact: no ``int64`` overflow, even for
        counts near 2**53).
    """
    h = np.asarray(hist).astype(object)
    v = np.arange(lo, lo + h.shape[-1], dtype=np.int64).astype(object)
    return h.sum(axis=-1), h @ v, h @ (v * v)


def check_moments(name: str, x: np.ndarray, triples: Sequence[tuple[int, int, int]]) -> None:
    """Check the (count, sum, sum of squares) columns of a saved array: nothing summed over no
    observations, and a sum of squares at least the square of the sum over the count
    (Cauchy-Schwarz: ``n * sum(x**2) >= sum(x)**2``), exactly (Python ints).

    Parameters
    ----------
    x : ndarray(int64)
        The array; its last axis holds the columns.
    triples : sequence of (int, int, int)
        ``(count, sum, squares)`` indices on the last axis.

    Raises
    ------
    ValueError
        One line naming the array and the first cell that does not fit.
    """
    x = np.asarray(x)
    if not x.size:
        return
    for i_n, i_s, i_s2 in triples:
        n, s1, s2 = (x[..., i].astype(object) for i in (i_n, i_s, i_s2))
        bad = ((n == 0) & ((s1 != 0) | (s2 != 0))) | (n * s2 < s1 * s1)
        if bad.any():
            k = tuple(int(v) for v in np.argwhere(bad)[0])
            raise ValueError(f"{name!r} holds a sum ({x[k + (i_s,)]}) and sum of squares ({x[k + (i_s2,)]}) that "
                             f"{x[k + (i_n,)]} values cannot have")


def check_spans(name: str, hist: np.ndarray, first: bool = True) -> None:
    """Check that a saved histogram spans exactly the values observed (its state is canonical):
    its last column (and, with ``first``, its first) holds a count somewhere.

    Raises
    ------
    ValueError
        One line naming the histogram.
    """
    h = np.asarray(hist)
    if not h.shape[-1]:
        return
    for end, col in (("last", h[..., -1]), ("first", h[..., 0] if first else None)):
        if col is not None and not col.any():
            raise ValueError(f"{name!r} has an empty {end} column: handsim's histograms span exactly the values "
                             "observed")


class Accumulator:
    """The part of a game's study accumulator that does not depend on the game.

    A study plays the same deals (games) under several *configurations* (values of the rule
    options that vary) and *line-ups* (the policy at each line-up position).  A game's
    accumulator subclasses this class: it declares its fixed-shape counter arrays by name
    (:attr:`ARRAYS`, each kept as the attribute ``"_" + name``, ``int64``, their first two axes
    configuration and line-up or configuration pair), allocates them in ``__init__`` after this
    class's, and adds what one block does in ``_prepare`` (checks, per-deal sums) and ``_apply``.
    This class keeps the study's shape (normalised configs and line-ups, the policies and how
    many seats each holds, the pairs of configurations and of line-ups that differ in one
    thing), adds chunks (:meth:`add_chunk`), saves and reloads the state (:meth:`state`,
    :meth:`from_state`, with :func:`check_counters` and the game's ``_check_totals``) and merges
    accumulators (:meth:`merge`): integer sums, so byte-identical in any order.

    Parameters
    ----------
    configs : list of dict
        ``configs[c]`` maps each varying rule option to its value in configuration ``c``.  Other
        keys are allowed only if they have the same value in every configuration (they are then
        ignored).
    lineups : list of tuple of str
        ``lineups[l][i]`` is the name of the policy at line-up position ``i`` (``P`` names).  A
        name may appear several times; its seats are pooled.
    players : int
        Seats per deal, ``P``.
    varying : list of str
        Names of the options that vary, in the order of the output columns.

    Raises
    ------
    ValueError
        Empty lists, a line-up of the wrong length, a config that lacks a varying option, two
        configs with the same values, an option not in ``varying`` whose value differs, a name
        listed twice in ``varying``.
    """

    #: The state's format (``meta["format"]``); a state of another format is refused.
    FORMAT: int = 0
    #: ``meta["kind"]`` of the state (``None``: the state has no kind).
    KIND: str | None = None
    #: What a refused state is not: "a Russian Hand study" (``None``: the class name's state).
    KIND_TEXT: str | None = None
    #: Said after the format a state of another format has (e.g. what an older format lacked).
    FORMAT_NOTE: str = ""
    #: What tells two studies apart in the messages of :meth:`from_state` and :meth:`merge`.
    STUDY_FIELDS: str = "configs, line-ups, players or varying"
    #: The unit of ``n`` in a block: ``"deals"`` (``"games"``).
    UNIT: str = "deals"
    #: What one row of a block is, in the messages of the checks: ``"rounds"`` (``"games"``).
    ROWS: str = "rounds"
    #: The fixed-shape counter arrays (attribute ``"_" + name``), saved, reloaded and merged by name.
    ARRAYS: tuple[str, ...] = ()
    #: The length histograms (last axis: turns ``0, 1, ...``): the histogram of every round and one
    #: of a subset of them (same shape), grown together.
    TURN_HISTS: tuple[str, str] = ("turns_hist", "turns_hist")
    #: Value checks of a saved state (:func:`check_counters`): per array, signed columns and
    #: (sum, squares) pairs.
    LAYOUT: Mapping[str, tuple] = {}
    #: Per saved array, its ``(count, sum, sum of squares)`` columns (:func:`check_moments`).
    MOMENTS: Mapping[str, tuple] = {}
    #: Metrics compared in paired comparisons of configurations (``_pair[q, l, g]``: n, then sum and
    #: sum of squares per metric) from the blocks' ``"sums"``.
    N_PAIRED = 0

    def __init__(self, configs: Sequence[Mapping[str, Any]], lineups: Sequence[Sequence[str]], players: int,
                 varying: Sequence[str]):
        players = int(players)
        if players < 1:
            raise ValueError(f"players must be >= 1, got {players}")
        varying = [str(v) for v in varying]
        if len(set(varying)) != len(varying):
            raise ValueError(f"duplicate names in varying: {varying}")
        if not configs:
            raise ValueError("configs is empty: give at least one configuration (an empty dict if nothing varies)")
        if not lineups:
            raise ValueError("lineups is empty")
        norm_configs: list[dict[str, Any]] = []
        for c, cfg in enumerate(configs):
            missing = [v for v in varying if v not in cfg]
            if missing:
                raise ValueError(f"configs[{c}] lacks the varying option(s) {', '.join(missing)}")
            norm_configs.append({v: plain(cfg[v]) for v in varying})
        extras = sorted({k for cfg in configs for k in cfg} - set(varying))
        for k in extras:
            vals = [plain(cfg.get(k, "<missing>")) for cfg in configs]
            if any(v != vals[0] for v in vals):
                raise ValueError(f"option {k!r} differs between configs but is not listed in varying")
        seen: dict[tuple, int] = {}
        for c, cfg in enumerate(norm_configs):
            key = tuple(repr(cfg[v]) for v in varying)
            if key in seen:
                raise ValueError(f"configs[{seen[key]}] and configs[{c}] have the same values of {varying}")
            seen[key] = c
        norm_lineups: list[tuple[str, ...]] = []
        for l, lu in enumerate(lineups):
            lu = tuple(str(x) for x in lu)
            if len(lu) != players:
                raise ValueError(f"lineups[{l}] has {len(lu)} policies for {players} players")
            norm_lineups.append(lu)
        self.configs: list[dict[str, Any]] = norm_configs
        self.lineups: list[tuple[str, ...]] = norm_lineups
        self.players: int = players
        self.varying: list[str] = varying
        #: Every policy name, in order of first appearance over the line-ups.
        self.policies: list[str] = list(dict.fromkeys(n for lu in norm_lineups for n in lu))
        gidx = {n: i for i, n in enumerate(self.policies)}
        # per line-up: distinct names (global index) in order of appearance, position -> local index, k
        self._names: list[np.ndarray] = []
        self._pos_local: list[np.ndarray] = []
        self._k: list[np.ndarray] = []
        for lu in norm_lineups:
            local = list(dict.fromkeys(lu))
            self._names.append(np.array([gidx[n] for n in local], dtype=np.intp))
            self._pos_local.append(np.array([local.index(n) for n in lu], dtype=np.intp))
            self._k.append(np.array([lu.count(n) for n in local], dtype=np.int64))
        #: ``(c1, c2, option)`` with ``c1 < c2`` for every pair of configurations that differ in exactly
        #: one option, ordered by option (as in ``varying``), then ``c1``, then ``c2``.
        self.pairs: list[tuple[int, int, str]] = []
        for c1, c2 in itertools.combinations(range(len(norm_configs)), 2):
            diff = [v for v in varying if norm_configs[c1][v] != norm_configs[c2][v]]
            if len(diff) == 1:
                self.pairs.append((c1, c2, diff[0]))
        # grouped by option (in ``varying`` order), then by configuration indices
        self.pairs.sort(key=lambda q: (varying.index(q[2]), q[0], q[1]))
        #: ``(l1, l2, position)`` with ``l1 < l2`` for every pair of line-ups that differ in exactly one
        #: line-up position (0-based), ordered by ``l1``, then ``l2``.
        self.lineup_diffs: list[tuple[int, int, int]] = []
        for l1, l2 in itertools.combinations(range(len(norm_lineups)), 2):
            diff = [i for i in range(players) if norm_lineups[l1][i] != norm_lineups[l2][i]]
            if len(diff) == 1:
                self.lineup_diffs.append((l1, l2, diff[0]))
        C, L = len(norm_configs), len(norm_lineups)
        for name in dict.fromkeys(self.TURN_HISTS):
            setattr(self, "_" + name, np.zeros((C, L, 0), dtype=np.int64))

    # ------------------------------------------------------------------ bookkeeping

    def _meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"format": self.FORMAT}
        if self.KIND is not None:
            meta["kind"] = self.KIND
        meta.update(configs=self.configs, lineups=[list(lu) for lu in self.lineups], players=self.players,
                    varying=self.varying)
        return meta

    @classmethod
    def _from_meta(cls, meta: Mapping[str, Any]) -> "Accumulator":
        """An empty accumulator of the study that ``meta`` (as :meth:`_meta` writes it) describes."""
        return cls(meta["configs"], [tuple(x) for x in meta["lineups"]], meta["players"], meta["varying"])

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({len(self.configs)} configs x {len(self.lineups)} line-ups, "
                f"{self.players} players, varying={self.varying}, {self.UNIT}={self.deals().tolist()})")

    def deals(self) -> np.ndarray:
        """Deals (games) added so far per configuration and line-up, ``ndarray(int64, shape=(C, L))``."""
        return self._cl[:, :, 0].copy()

    def config_label(self, c: int) -> str:
        """``"opening_threshold=71, joker_penalty=30"`` for configuration ``c`` (``"-"`` if nothing varies)."""
        return ", ".join(f"{v}={self.configs[c][v]}" for v in self.varying) or "-"

    def _config_cols(self, c: int) -> dict[str, Any]:
        return {v: self.configs[c][v] for v in self.varying}

    @staticmethod
    def _frame(rows: list[dict[str, Any]], columns: list[str]) -> pd.DataFrame:
        """The rows as a DataFrame of these columns (an empty one of object columns when no rows)."""
        if not rows:
            return pd.DataFrame({col: pd.Series(dtype=object) for col in columns})
        return pd.DataFrame.from_records(rows, columns=columns)

    # ------------------------------------------------------------------ adding results

    def _prepare(self, c: int, l: int, block: Any) -> dict[str, Any]:
        """Check one block and compute its per-deal sums (no state is touched): ``c``, ``l``,
        ``n``, ``deal`` and whatever ``_apply`` and the pair methods read (``sums``: per metric,
        deal and local policy index, the sum over the policy's seats)."""
        raise NotImplementedError

    def _apply(self, b: dict[str, Any]) -> None:
        """Add one prepared block to the per-block counters and histograms."""
        raise NotImplementedError

    def _grow_turns(self, width: int) -> None:
        cur = getattr(self, "_" + self.TURN_HISTS[0]).shape[2]
        if width > cur:
            pad = ((0, 0), (0, 0), (0, width - cur))
            for name in dict.fromkeys(self.TURN_HISTS):
                setattr(self, "_" + name, np.pad(getattr(self, "_" + name), pad))

    def add_block(self, c: int, l: int, block: Any) -> None:
        """Add the results of one (configuration, line-up) block.

        Only per-block statistics are updated; paired comparisons between configurations and
        between line-ups need :meth:`add_chunk`.

        Parameters
        ----------
        c, l : int
            Configuration index (into ``configs``) and line-up index (into ``lineups``).
        block : the game's block (a NamedTuple of arrays)
            Results of ``n`` deals (games).

        Raises
        ------
        ValueError
            Bad indices, shapes, dtypes or values (the game's ``_prepare`` says which).  Nothing
            is added when an error is raised.
        """
        self._apply(self._prepare(c, l, block))

    def add_chunk(self, blocks: Mapping[tuple[int, int], Any]) -> None:
        """Add every block of one chunk and the paired comparisons between its configurations
        and between its line-ups.

        Parameters
        ----------
        blocks : dict of (int, int) -> block
            ``blocks[(c, l)]`` for the configurations and line-ups played on this chunk's deals.
            Pairs of configurations (see :attr:`pairs`) are compared for every line-up that has
            blocks of both; pairs of line-ups (see :attr:`lineup_diffs`) for every configuration
            that has blocks of both.

        Raises
        ------
        ValueError
            As :meth:`add_block`, or when the blocks do not all hold the same deal indices in the
            same order, or (the game's ``_check_lineup_pairs``) two line-ups compared differ in
            what they may be compared on.  The accumulator is unchanged when an error is raised.
        """
        prepared: dict[tuple[int, int], dict[str, Any]] = {}
        ref = None
        for key in sorted(blocks):
            c, l = key
            b = self._prepare(c, l, blocks[key])
            if ref is None:
                ref = (key, b["deal"])
            elif not np.array_equal(b["deal"], ref[1]):
                unit = self.UNIT.rstrip("s")
                raise ValueError(f"blocks {ref[0]} and {key} of one chunk hold different {self.UNIT}: "
                                 f"every block of a chunk must cover the same {unit} indices in the same order")
            prepared[(b["c"], b["l"])] = b
        lpairs = []
        for c in range(len(self.configs)):
            for q, (l1, l2, j) in enumerate(self.lineup_diffs):
                b1, b2 = prepared.get((c, l1)), prepared.get((c, l2))
                if b1 is None or b2 is None or b1["n"] == 0:
                    continue
                lpairs.append((c, q, j, b1, b2))
        self._check_lineup_pairs(lpairs)
        for key in sorted(prepared):
            self._apply(prepared[key])
        for q, (c1, c2, _) in enumerate(self.pairs):
            for l in range(len(self.lineups)):
                b1, b2 = prepared.get((c1, l)), prepared.get((c2, l))
                if b1 is None or b2 is None or b1["n"] == 0:
                    continue
                self._add_config_pair(q, l, b1, b2)
        for c, q, j, b1, b2 in lpairs:
            self._add_lineup_pair(c, q, j, b1, b2)

    def _check_lineup_pairs(self, lpairs: Sequence[tuple]) -> None:
        """Raise ValueError if two line-ups of a chunk that differ in one position cannot be compared."""

    def _add_config_pair(self, q: int, l: int, b1: dict[str, Any], b2: dict[str, Any]) -> None:
        """Per-deal differences (``c2 - c1``) of the first :attr:`N_PAIRED` ``sums`` of every policy of
        line-up ``l`` into ``_pair[q, l, policy]``."""
        d = b2["sums"] - b1["sums"]  # (metric, n, local policy)
        for j, g in enumerate(self._names[l]):
            acc = self._pair[q, l, g]
            acc[0] += b1["n"]
            for mi in range(self.N_PAIRED):
                add_sums(acc, 1 + 2 * mi, 2 + 2 * mi, d[mi, :, j])

    def _add_lineup_pair(self, c: int, q: int, j: int, ba: dict[str, Any], bb: dict[str, Any]) -> None:
        """Per-deal differences ``a - b`` of line-up position ``j`` into ``_lpair[c, q]``."""
        raise NotImplementedError

    # ------------------------------------------------------------------ walks over the paired counters

    def _paired_cells(self):
        """``(q, l, j, row, acc)`` for every line-up ``l``, pair ``q`` of :attr:`pairs` and local policy
        ``j`` with deals: ``acc`` the ``_pair[q, l, policy]`` counters as Python ints, ``row`` the
        first columns of its table row (``lineup``, ``policy``, ``parameter``, ``from_value``,
        ``to_value``, then every varying option: the shared value, None for ``parameter``)."""
        for l, lu in enumerate(self.lineups):
            for q, (c1, c2, opt) in enumerate(self.pairs):
                for j, g in enumerate(self._names[l]):
                    acc = [int(x) for x in self._pair[q, l, g]]
                    if acc[0] == 0:
                        continue
                    row: dict[str, Any] = {"lineup": ",".join(lu), "policy": self.policies[g], "parameter": opt,
                                           "from_value": self.configs[c1][opt], "to_value": self.configs[c2][opt]}
                    for v in self.varying:
                        row[v] = None if v == opt else self.configs[c1][v]
                    yield q, l, j, row, acc

    def _versus_cells(self):
        """``(c, l, ja, jb, row, acc)`` for every configuration, line-up and pair of its distinct
        policies ``ja < jb`` (local indices, line-up order) with deals: ``acc`` the
        ``_versus[c, l, a, b]`` counters as Python ints, ``row`` the varying options, ``lineup``,
        ``policy_a`` and ``policy_b``."""
        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                names = self._names[l]
                for ja, jb in itertools.combinations(range(len(names)), 2):
                    acc = [int(x) for x in self._versus[c, l, names[ja], names[jb]]]
                    if acc[0] == 0:
                        continue
                    row = self._config_cols(c)
                    row.update(lineup=",".join(lu), policy_a=self.policies[names[ja]],
                               policy_b=self.policies[names[jb]])
                    yield c, l, ja, jb, row, acc

    def _lineup_pair_cells(self):
        """``(c, q, j, row, acc)`` for every configuration and pair ``q`` of :attr:`lineup_diffs`
        (differing at position ``j``) with deals: ``acc`` the ``_lpair[c, q]`` counters as Python
        ints, ``row`` the varying options, ``lineup_a``, ``lineup_b``, ``position`` (1-based),
        ``policy_a`` and ``policy_b``."""
        for c in range(len(self.configs)):
            for q, (l1, l2, j) in enumerate(self.lineup_diffs):
                acc = [int(x) for x in self._lpair[c, q]]
                if acc[0] == 0:
                    continue
                row = self._config_cols(c)
                row.update(lineup_a=",".join(self.lineups[l1]), lineup_b=",".join(self.lineups[l2]), position=j + 1,
                           policy_a=self.lineups[l1][j], policy_b=self.lineups[l2][j])
                yield c, q, j, row, acc

    # ------------------------------------------------------------------ checkpoint / merge

    def state(self) -> dict[str, np.ndarray]:
        """Everything needed to resume: a dict of numpy arrays (``np.savez`` friendly).

        Returns
        -------
        dict of str -> ndarray
            ``meta`` (UTF-8 JSON of the study as ``uint8``), the ``int64`` counters of
            :attr:`ARRAYS`, the length histograms and what the game adds (``_state_extra``).  The
            arrays are copies.  The state is canonical: the same deals give byte-identical
            arrays whatever the order of the chunks or merges (histograms span exactly the
            observed range).
        """
        meta = json.dumps(self._meta(), sort_keys=True).encode("utf-8")
        out = {"meta": np.frombuffer(meta, dtype=np.uint8).copy()}
        for name in self.ARRAYS + tuple(dict.fromkeys(self.TURN_HISTS)):
            out[name] = getattr(self, "_" + name).copy()
        self._state_extra(out)
        return out

    def _state_extra(self, out: dict[str, np.ndarray]) -> None:
        """Add the game's other saved arrays to ``out``."""

    @classmethod
    def from_state(cls, state: Mapping[str, np.ndarray], *, own: bool = False, **expected: Any) -> "Accumulator":
        """Rebuild an accumulator from :meth:`state` (e.g. loaded with ``np.load``).

        Parameters
        ----------
        state : mapping of str -> ndarray
        own : bool
            Take the int64 arrays of ``state`` as they are instead of copying them (default False):
            for a caller that drops ``state`` afterwards (:func:`~handsim.study.checkpoint.read_checkpoint`),
            so that reading a checkpoint does not hold it twice (a study of 100 line-ups of 101
            policies: 448 MB of arrays).
        **expected
            Optional study fields (``configs``, ``lineups``, ``players``, ``varying``, and the
            game's own): checked against the saved ones.

        Raises
        ------
        ValueError
            Missing or malformed arrays, values a study cannot have (:func:`check_counters`, the
            game's ``_check_totals``), a state of another game or written by another version of
            handsim (another state format: such a checkpoint cannot be resumed, run the study
            again), or a mismatch with ``expected``.
        """
        try:
            meta = json.loads(bytes(np.asarray(state["meta"], dtype=np.uint8)).decode("utf-8"))
        except (KeyError, ValueError) as e:
            raise ValueError(f"not a {cls.__name__} state: {e}") from None
        if cls.KIND is not None and (not isinstance(meta, dict) or meta.get("kind") != cls.KIND):
            raise ValueError(f"the statistics are not {cls.KIND_TEXT or 'a ' + cls.__name__}'s")
        fmt = meta.get("format") if isinstance(meta, dict) else None
        if fmt != cls.FORMAT:
            raise ValueError(f"unsupported state format {fmt!r}: this version of handsim reads format {cls.FORMAT}"
                             f"{cls.FORMAT_NOTE}; results saved by another version cannot be resumed: "
                             "run the study again")
        acc = cls._from_meta(meta)
        acc._own_state = own
        check_counters(state, cls.LAYOUT)
        if expected:
            if cls._from_meta({**acc._meta(), **expected})._meta() != acc._meta():
                raise ValueError(f"saved state was made for a different study ({cls.STUDY_FIELDS} differ)")
        try:
            for name in cls.ARRAYS:
                x = np.asarray(state[name])
                want = getattr(acc, "_" + name)
                if x.shape != want.shape:
                    raise ValueError(f"state array {name} has shape {x.shape}, expected {want.shape}")
                setattr(acc, "_" + name, acc._taken(x))
            th, vh = (acc._taken(state[k]) for k in cls.TURN_HISTS)
            if th.ndim != 3 or th.shape[:2] != getattr(acc, "_" + cls.TURN_HISTS[0]).shape[:2] or vh.shape != th.shape:
                raise ValueError("state histograms do not match the study shape")
            setattr(acc, "_" + cls.TURN_HISTS[0], th)
            setattr(acc, "_" + cls.TURN_HISTS[1], vh)
            acc._load_extra(state)
        except KeyError as e:
            raise ValueError(f"state array {e.args[0]!r} is missing") from None
        acc._check_totals()
        del acc._own_state
        return acc

    def _taken(self, x) -> np.ndarray:
        """A state array as this accumulator's int64 counters: a copy, or (``from_state(own=True)``)
        the array itself when it is int64 already."""
        return np.asarray(x).astype(np.int64, copy=not getattr(self, "_own_state", False))

    def _load_extra(self, state: Mapping[str, np.ndarray]) -> None:
        """Read the game's other saved arrays (a missing one: KeyError naming it, or ValueError)."""

    def _check_totals(self) -> None:
        """Check every relation between the counters of a state read from a checkpoint: each count
        that another array or count determines must agree with it (ValueError naming both).

        The state is one a study saves: every chunk added whole by :meth:`add_chunk` (a block for
        every configuration and line-up), so that every configuration and line-up holds the same
        deals and every pair of them was compared on all of them.  A game's accumulator adds
        the relations of its own counters after :meth:`_check_cells`."""

    def _present(self) -> tuple[np.ndarray, np.ndarray]:
        """``(used, k)``, both ``shape=(L, N)``: whether policy ``g`` sits in line-up ``l`` (bool) and
        at how many of its positions (``int64``, 0 where it does not)."""
        k = np.zeros((len(self.lineups), len(self.policies)), dtype=np.int64)
        for l in range(len(self.lineups)):
            k[l, self._names[l]] = self._k[l]
        return k > 0, k

    def _versus_used(self) -> np.ndarray:
        """``ndarray(bool, shape=(L, N, N))``: True at ``[l, a, b]`` when policies ``a`` and ``b`` both
        sit in line-up ``l``, ``a`` first (the cells of ``_versus`` that are counted)."""
        used = np.zeros((len(self.lineups), len(self.policies), len(self.policies)), dtype=bool)
        for l, names in enumerate(self._names):
            for ja, jb in itertools.combinations(range(len(names)), 2):
                used[l, names[ja], names[jb]] = True
        return used

    def _check_cells(self) -> None:
        """The relations of the counters every game keeps (column 0 of each counts deals, games or
        rounds): ``cl`` (per configuration and line-up), ``seat`` and ``pool`` (per policy: its seats,
        its deals), ``pair`` (configurations compared), ``versus`` (policies compared within a
        line-up) and ``lpair`` (line-ups compared), and the length histogram.

        Raises
        ------
        ValueError
            A cell of a policy that is not in its line-up holding a count; a deals count of one
            array other than the one ``cl`` holds, or than the seats of the line-up (ValueError
            naming both arrays).
        """
        unit = self.ROWS
        used, k = self._present()
        vused = self._versus_used()
        deals = self._cl[:, :, 0]
        lineup = "a policy that is not in its line-up"
        check_zero("seat", self._seat, used[None], lineup)
        check_zero("pool", self._pool, used[None], lineup)
        check_zero("pair", self._pair, used[None], lineup)
        check_zero("versus", self._versus, vused[None], "a pair of policies that do not meet in that line-up")
        for name, triples in self.MOMENTS.items():
            check_moments(name, getattr(self, "_" + name), triples)
        th = getattr(self, "_" + self.TURN_HISTS[0])
        check_totals(self.TURN_HISTS[0], th.sum(axis=2), "cl", deals, unit)
        check_spans(self.TURN_HISTS[0], th, first=False)
        seats = self._seat[..., 0]
        check_totals("seat", seats.sum(axis=2), "cl", deals[:, :, None], f"{unit} in a seat")
        check_totals("seat", seats.sum(axis=3), "cl", k[None] * deals[:, :, None], f"{unit} of a policy's seats")
        check_totals("pool", self._pool[..., 0], "cl", used[None] * deals[:, :, None], unit)
        check_totals("versus", self._versus[..., 0], "cl", vused[None] * deals[:, :, None, None], unit)
        for q, (c1, c2, _) in enumerate(self.pairs):
            for c in (c1, c2):
                check_totals("pair", self._pair[q, ..., 0], "cl", used * deals[c][:, None], unit)
        for q, (l1, l2, _) in enumerate(self.lineup_diffs):
            for l in (l1, l2):
                check_totals("lpair", self._lpair[:, q, 0], "cl", deals[:, l], unit)

    def merge(self, other: "Accumulator") -> "Accumulator":
        """Add another accumulator of the same study (disjoint deals) into this one.

        Returns
        -------
        Accumulator
            ``self``.

        Raises
        ------
        ValueError
            If the studies differ.
        """
        if other._meta() != self._meta():
            raise ValueError(f"cannot merge accumulators of different studies ({self.STUDY_FIELDS} differ)")
        for name in self.ARRAYS:
            getattr(self, "_" + name)[...] += getattr(other, "_" + name)
        w = getattr(other, "_" + self.TURN_HISTS[0]).shape[2]
        if w:
            self._grow_turns(w)
            for name in dict.fromkeys(self.TURN_HISTS):
                getattr(self, "_" + name)[:, :, :w] += getattr(other, "_" + name)
        self._merge_extra(other)
        return self

    def _merge_extra(self, other: "Accumulator") -> None:
        """Add the game's other counters of ``other`` (same study) into this one."""
