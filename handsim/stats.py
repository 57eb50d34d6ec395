"""Streaming statistics of a study: exact integer accumulators, summaries with confidence intervals.

A *study* plays the same deals (common random numbers) under several *configurations* (values
of the rule options that vary, RULES.md names) and several *line-ups* (the policy sitting in each
line-up position).  The driver hands every finished chunk of deals to a
:class:`StudyAccumulator` as one :class:`DealBlock` per (configuration, line-up).  The accumulator
keeps only integer sums whose size does not depend on the number of deals, so memory stays flat,
checkpoints are exact (:meth:`StudyAccumulator.state`, :meth:`StudyAccumulator.from_state`) and
chunks may be added or merged in any order with byte-identical results
(:meth:`StudyAccumulator.merge`).  Floats appear only in the DataFrames returned by
:meth:`StudyAccumulator.summary`, :meth:`StudyAccumulator.paired`,
:meth:`StudyAccumulator.versus` and :meth:`StudyAccumulator.histograms`.

Seats in a block are *relative*: seat 0 is the starter (RULES.md section 3: the player with the
extra card), seat 1 plays next, and so on.  Scores are points for one round, lower is better
(RULES.md section 6).

Statistical units
-----------------
* Per seat (``seat`` = ``"0"`` .. ``"P-1"``): one observation per round in which the policy sat in
  that seat.  Mean score with a Student-t 95% interval; proportions with Wilson 95% intervals.
* ``seat == "all"``: the unit is the *deal*.  When a policy holds ``k`` seats of a line-up, the
  observation of a deal is the mean of its ``k`` scores, so the t interval of the mean score is
  honest although the ``k`` scores of one deal are dependent.  Proportions (``p_out`` ...) pool
  the ``k * deals`` player-rounds in a Wilson interval.
* Paired differences (:meth:`StudyAccumulator.paired`): for two configurations that differ in one
  option, the per-deal difference of a policy's mean score over the *same* deals, t interval.
* Policy contrasts (:meth:`StudyAccumulator.versus`): within one configuration and line-up, the
  per-deal difference between two policies' mean scores, t interval.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

__all__ = [
    "DealBlock",
    "StudyAccumulator",
    "FLAG_OPENED",
    "FLAG_OUT",
    "FLAG_HAND",
    "MATCH_NONE",
    "TIEBREAK_NONE",
    "CONFIDENCE",
]

#: ``flags`` bit: the player opened (laid down a first meld) in the round (RULES.md section 4).
FLAG_OPENED = 1
#: ``flags`` bit: the player went out (RULES.md section 6).
FLAG_OUT = 2
#: ``flags`` bit: the player went out with a Hand (RULES.md section 6).
FLAG_HAND = 4
#: ``match_win`` value meaning "this row carries no match result" (e.g. not the last round of a match).
MATCH_NONE = 255
#: ``tiebreaks`` value meaning "this row carries no match result".
TIEBREAK_NONE = -1
#: Level of every interval.
CONFIDENCE = 0.95

_STATE_FORMAT = 1

# per (config, line-up, policy, seat) counters, last axis of ``_seat``
_S_ROUNDS, _S_SCORE, _S_SCORE2, _S_OUT, _S_HAND, _S_UNOPENED, _S_TURNS, _S_VOID, _S_MATCHES, _S_WINS = range(10)
_NS = 10
# per (config, line-up, policy) deal-level sums, last axis of ``_pool``
_P_DEALS, _P_TSUM, _P_TSUM2 = range(3)
_NP = 3
# per (config, line-up), last axis of ``_cl``
_C_DEALS, _C_TURNS, _C_VOID, _C_TB_N, _C_TB_SUM = range(5)
_NC = 5
# paired metrics: per-deal sums over the policy's seats of score / went out / Hand / unopened
_METRICS = ("score", "p_out", "p_hand", "p_unopened")
_NM = len(_METRICS)
_NQ = 1 + 2 * _NM  # deals, then (sum, sum of squares) per metric
# versus: deals, sum, sum of squares
_NV = 3


class DealBlock(NamedTuple):
    """Per-deal results of ``n`` deals of one (configuration, line-up), by **relative seat**.

    Relative seat 0 is the starter, seat 1 the next to play, and so on (``P`` seats).

    Attributes
    ----------
    deal : ndarray(int64, shape=(n,))
        Deal indices (the same, in the same order, for every block of one chunk).
    policy : ndarray(int8, shape=(n, P))
        Line-up position (index into the line-up tuple) of the policy sitting in each seat; every
        row is a permutation of ``0..P-1``.
    score : ndarray(int32, shape=(n, P))
        Points scored in the round (RULES.md section 6; lower is better).
    flags : ndarray(uint8, shape=(n, P))
        Bit 0 (:data:`FLAG_OPENED`) opened, bit 1 (:data:`FLAG_OUT`) went out, bit 2
        (:data:`FLAG_HAND`) went out with a Hand.
    turns : ndarray(int16, shape=(n,))
        Length of the round in turns (>= 0).
    void : ndarray(uint8, shape=(n,))
        1 if the round was void (RULES.md section 3), else 0.
    match_win : ndarray(uint8, shape=(n, P)) or None
        1 if the player won the match, 0 if not, :data:`MATCH_NONE` (255) if the row carries no
        match result.  ``None`` when no matches were played.
    tiebreaks : ndarray(int16, shape=(n,)) or None
        Extra rounds played to break a tie for the lowest total (RULES.md section 7), or
        :data:`TIEBREAK_NONE` (-1) if the row carries no match result.
    """

    deal: np.ndarray
    policy: np.ndarray
    score: np.ndarray
    flags: np.ndarray
    turns: np.ndarray
    void: np.ndarray
    match_win: np.ndarray | None = None
    tiebreaks: np.ndarray | None = None


# ----------------------------------------------------------------------------------------------
# interval helpers (scipy distributions; exact integer moments)


@functools.lru_cache(maxsize=4096)
def _t_quantile(df: int) -> float:
    from scipy import stats as _sps  # lazy: importing scipy.stats takes seconds

    return float(_sps.t.ppf(0.5 + CONFIDENCE / 2, df))


@functools.lru_cache(maxsize=1)
def _z() -> float:
    from scipy import stats as _sps

    return float(_sps.norm.ppf(0.5 + CONFIDENCE / 2))


def _wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson score interval (no continuity correction) of ``k`` successes in ``n`` trials.

    The same Newcombe (1998) formula as ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``
    (checked in the tests), without the binomial test's p-value search, which costs milliseconds
    per call.
    """
    k, n = int(k), int(n)
    if n <= 0:
        return (math.nan, math.nan)
    z = _z()
    p = k / n
    q = 1 - p
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * q + z**2)
    lo = 0.0 if k == 0 else center - delta
    hi = 1.0 if k == n else center + delta
    return (lo, hi)


def _moments(n: int, s1: int, s2: int, scale: int = 1) -> tuple[float, float, float, float, float]:
    """Mean, sd, standard error and t interval of ``n`` observations ``x_i = v_i / scale``.

    ``s1 = sum(v_i)``, ``s2 = sum(v_i**2)`` are exact integers; the variance numerator
    ``n*s2 - s1**2`` is formed in Python integers, so there is neither overflow nor cancellation.
    """
    n, s1, s2, scale = int(n), int(s1), int(s2), int(scale)
    if n <= 0:
        return (math.nan,) * 5
    mean = s1 / (n * scale)
    if n < 2:
        return (mean, math.nan, math.nan, math.nan, math.nan)
    num = n * s2 - s1 * s1
    var = max(num, 0) / (n * (n - 1) * scale * scale)
    sd = math.sqrt(var)
    se = sd / math.sqrt(n)
    half = _t_quantile(n - 1) * se
    return (mean, sd, se, mean - half, mean + half)


def _t_pvalue(mean: float, se: float, n: int) -> float:
    if not (n >= 2) or math.isnan(se):
        return math.nan
    if se == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    from scipy import stats as _sps

    return float(2.0 * _sps.t.sf(abs(mean) / se, n - 1))


def _py(v: Any) -> Any:
    """A plain Python value (numpy scalars unwrapped) for configs and JSON."""
    if isinstance(v, np.generic):
        return v.item()
    return v


# ----------------------------------------------------------------------------------------------


class StudyAccumulator:
    """Exact streaming statistics of a study (configurations x line-ups x policies x seats).

    Parameters
    ----------
    configs : list of dict
        ``configs[c]`` maps each varying rule option (RULES.md name, e.g. ``"opening_threshold"``)
        to its value in configuration ``c``.  Other keys are allowed only if they have the same
        value in every configuration (they are then ignored).
    lineups : list of tuple of str
        ``lineups[l][i]`` is the name of the policy at line-up position ``i`` (``P`` names).  A name
        may appear several times; its seats are pooled.
    players : int
        Seats per deal, ``P``.
    varying : list of str
        Names of the options that vary, in the order of the output columns.

    Raises
    ------
    ValueError
        Empty lists, a line-up of the wrong length, a config that lacks a varying option, two
        configs with the same values, or an option not in ``varying`` whose value differs.

    Notes
    -----
    Feed results with :meth:`add_chunk` (all blocks of one chunk: per-block statistics *and*
    paired comparisons between configurations) or :meth:`add_block` (one block: no paired
    comparisons).  All counters are ``int64``; a square of a per-deal seat sum must stay below
    ``2**63 / deals``, far beyond any reachable score.
    """

    def __init__(self, configs: Sequence[Mapping[str, Any]], lineups: Sequence[Sequence[str]],
                 players: int, varying: Sequence[str]):
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
            norm_configs.append({v: _py(cfg[v]) for v in varying})
        extras = sorted({k for cfg in configs for k in cfg} - set(varying))
        for k in extras:
            vals = [_py(cfg.get(k, "<missing>")) for cfg in configs]
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

        C, L, N, P, Q = len(norm_configs), len(norm_lineups), len(self.policies), players, len(self.pairs)
        self._seat = np.zeros((C, L, N, P, _NS), dtype=np.int64)
        self._pool = np.zeros((C, L, N, _NP), dtype=np.int64)
        self._cl = np.zeros((C, L, _NC), dtype=np.int64)
        self._pair = np.zeros((Q, L, N, _NQ), dtype=np.int64)
        self._versus = np.zeros((C, L, N, N, _NV), dtype=np.int64)
        self._turns_hist = np.zeros((C, L, 0), dtype=np.int64)
        self._void_hist = np.zeros((C, L, 0), dtype=np.int64)
        self._score_hist = np.zeros((C, L, N, 0), dtype=np.int64)
        self._score_lo = 0

    # ------------------------------------------------------------------ bookkeeping

    def _meta(self) -> dict[str, Any]:
        return {
            "format": _STATE_FORMAT,
            "configs": self.configs,
            "lineups": [list(lu) for lu in self.lineups],
            "players": self.players,
            "varying": self.varying,
        }

    def __repr__(self) -> str:
        return (f"StudyAccumulator({len(self.configs)} configs x {len(self.lineups)} line-ups, "
                f"{self.players} players, varying={self.varying}, deals={self.deals().tolist()})")

    def deals(self) -> np.ndarray:
        """Deals added so far per configuration and line-up, ``ndarray(int64, shape=(C, L))``."""
        return self._cl[:, :, _C_DEALS].copy()

    def config_label(self, c: int) -> str:
        """``"opening_threshold=71, joker_penalty=30"`` for configuration ``c`` (``"-"`` if nothing varies)."""
        return ", ".join(f"{v}={self.configs[c][v]}" for v in self.varying) or "-"

    # ------------------------------------------------------------------ adding results

    def _prepare(self, c: int, l: int, block: DealBlock) -> dict[str, Any]:
        """Check one block and compute its per-deal sums (no state is touched)."""
        C, L, P = len(self.configs), len(self.lineups), self.players
        if not (0 <= int(c) < C) or not (0 <= int(l) < L):
            raise ValueError(f"block ({c}, {l}) out of range: {C} configs, {L} line-ups")
        c, l = int(c), int(l)
        where = f"block (config {c}, line-up {l})"

        def arr(name, ndim, required=True):
            x = getattr(block, name)
            if x is None:
                if required:
                    raise ValueError(f"{where}: field {name} is missing")
                return None
            x = np.asarray(x)
            if not (np.issubdtype(x.dtype, np.integer) or x.dtype == np.bool_):
                raise ValueError(f"{where}: field {name} must hold integers, got dtype {x.dtype}")
            if x.ndim != ndim:
                raise ValueError(f"{where}: field {name} must have {ndim} dimension(s), got shape {x.shape}")
            return x

        deal = arr("deal", 1)
        n = deal.shape[0]
        out: dict[str, Any] = {"c": c, "l": l, "n": n, "deal": deal}
        for name, ndim in (("policy", 2), ("score", 2), ("flags", 2), ("turns", 1), ("void", 1)):
            out[name] = arr(name, ndim)
        out["match_win"] = arr("match_win", 2, required=False)
        out["tiebreaks"] = arr("tiebreaks", 1, required=False)
        for name in ("policy", "score", "flags", "match_win"):
            x = out[name]
            if x is not None and x.shape != (n, P):
                raise ValueError(f"{where}: field {name} has shape {x.shape}, expected ({n}, {P})")
        for name in ("turns", "void", "tiebreaks"):
            x = out[name]
            if x is not None and x.shape != (n,):
                raise ValueError(f"{where}: field {name} has shape {x.shape}, expected ({n},)")
        policy = out["policy"].astype(np.intp)
        if n and not np.array_equal(np.sort(policy, axis=1), np.broadcast_to(np.arange(P), (n, P))):
            raise ValueError(f"{where}: every row of policy must be a permutation of the line-up positions 0..{P - 1}")
        turns = out["turns"].astype(np.int64)
        if n and turns.min() < 0:
            raise ValueError(f"{where}: negative turns")
        void = out["void"].astype(np.int64)
        if n and not np.isin(void, (0, 1)).all():
            raise ValueError(f"{where}: void must be 0 or 1")
        mw = out["match_win"]
        if mw is not None:
            mw = mw.astype(np.int64)
            if n and not np.isin(mw, (0, 1, MATCH_NONE)).all():
                raise ValueError(f"{where}: match_win must be 0, 1 or {MATCH_NONE} (no result in this row)")
        tb = out["tiebreaks"]
        if tb is not None:
            tb = tb.astype(np.int64)
            if n and tb.min() < TIEBREAK_NONE:
                raise ValueError(f"{where}: tiebreaks must be >= 0, or {TIEBREAK_NONE} for no result")
        score = out["score"].astype(np.int64)
        flags = out["flags"].astype(np.int64)
        local = self._pos_local[l][policy]  # (n, P) local policy index per seat
        nl = len(self._names[l])
        sums = np.zeros((_NM, n, nl), dtype=np.int64)  # per-deal sums over the policy's seats
        is_out = (flags & FLAG_OUT) != 0
        is_hand = (flags & FLAG_HAND) != 0
        unopened = (flags & FLAG_OPENED) == 0
        for j in range(nl):
            m = local == j
            sums[0, :, j] = np.where(m, score, 0).sum(axis=1)
            sums[1, :, j] = (m & is_out).sum(axis=1)
            sums[2, :, j] = (m & is_hand).sum(axis=1)
            sums[3, :, j] = (m & unopened).sum(axis=1)
        out.update(policy=policy, score=score, flags=flags, turns=turns, void=void, match_win=mw, tiebreaks=tb,
                   local=local, sums=sums, is_out=is_out, is_hand=is_hand, unopened=unopened)
        return out

    def _apply(self, b: dict[str, Any]) -> None:
        """Add one prepared block to the per-block counters and histograms."""
        c, l, n, P = b["c"], b["l"], b["n"], self.players
        if n == 0:
            return
        names, k = self._names[l], self._k[l]
        local, score, turns, void = b["local"], b["score"], b["turns"], b["void"]
        mw, tb, T = b["match_win"], b["tiebreaks"], b["sums"][0]
        for j, g in enumerate(names):
            for s in range(P):
                m = local[:, s] == j
                acc = self._seat[c, l, g, s]
                x = score[m, s]
                acc[_S_ROUNDS] += int(m.sum())
                acc[_S_SCORE] += int(x.sum())
                acc[_S_SCORE2] += int((x * x).sum())
                acc[_S_OUT] += int(b["is_out"][m, s].sum())
                acc[_S_HAND] += int(b["is_hand"][m, s].sum())
                acc[_S_UNOPENED] += int(b["unopened"][m, s].sum())
                acc[_S_TURNS] += int(turns[m].sum())
                acc[_S_VOID] += int(void[m].sum())
                if mw is not None:
                    w = mw[m, s]
                    acc[_S_MATCHES] += int((w != MATCH_NONE).sum())
                    acc[_S_WINS] += int((w == 1).sum())
            t = T[:, j]
            pool = self._pool[c, l, g]
            pool[_P_DEALS] += n
            pool[_P_TSUM] += int(t.sum())
            pool[_P_TSUM2] += int((t * t).sum())
        # policy contrasts within the deal: d = k_b*T_a - k_a*T_b (a before b in the line-up)
        for ja, jb in itertools.combinations(range(len(names)), 2):
            d = k[jb] * T[:, ja] - k[ja] * T[:, jb]
            v = self._versus[c, l, names[ja], names[jb]]
            v[0] += n
            v[1] += int(d.sum())
            v[2] += int((d * d).sum())
        cl = self._cl[c, l]
        cl[_C_DEALS] += n
        cl[_C_TURNS] += int(turns.sum())
        cl[_C_VOID] += int(void.sum())
        if tb is not None:
            has = tb != TIEBREAK_NONE
            cl[_C_TB_N] += int(has.sum())
            cl[_C_TB_SUM] += int(tb[has].sum())
        # round length histograms
        tmax = int(turns.max())
        self._grow_turns(tmax + 1)
        width = self._turns_hist.shape[2]
        self._turns_hist[c, l] += np.bincount(turns, minlength=width)
        self._void_hist[c, l] += np.bincount(turns[void != 0], minlength=width)
        # score histogram per policy (all seats)
        self._grow_scores(int(score.min()), int(score.max()))
        width = self._score_hist.shape[3]
        for j, g in enumerate(names):
            self._score_hist[c, l, g] += np.bincount(score[local == j] - self._score_lo, minlength=width)

    def _grow_turns(self, width: int) -> None:
        cur = self._turns_hist.shape[2]
        if width > cur:
            pad = ((0, 0), (0, 0), (0, width - cur))
            self._turns_hist = np.pad(self._turns_hist, pad)
            self._void_hist = np.pad(self._void_hist, pad)

    def _grow_scores(self, lo: int, hi: int) -> None:
        cur = self._score_hist.shape[3]
        if cur == 0:
            self._score_lo = lo
            self._score_hist = np.zeros(self._score_hist.shape[:3] + (hi - lo + 1,), dtype=np.int64)
            return
        old_hi = self._score_lo + cur - 1
        new_lo, new_hi = min(lo, self._score_lo), max(hi, old_hi)
        if new_lo < self._score_lo or new_hi > old_hi:
            pad = ((0, 0), (0, 0), (0, 0), (self._score_lo - new_lo, new_hi - old_hi))
            self._score_hist = np.pad(self._score_hist, pad)
            self._score_lo = new_lo

    def add_block(self, c: int, l: int, block: DealBlock) -> None:
        """Add the results of one (configuration, line-up) block.

        Only per-block statistics are updated; paired comparisons between configurations need
        :meth:`add_chunk`.

        Parameters
        ----------
        c, l : int
            Configuration index (into ``configs``) and line-up index (into ``lineups``).
        block : DealBlock
            Results of ``n`` deals, by relative seat.

        Raises
        ------
        ValueError
            Bad indices, shapes or dtypes, a ``policy`` row that is not a permutation of the
            line-up positions, negative turns, or out-of-range ``void``/``match_win``/``tiebreaks``.
            Nothing is added when an error is raised.
        """
        self._apply(self._prepare(c, l, block))

    def add_chunk(self, blocks: Mapping[tuple[int, int], DealBlock]) -> None:
        """Add every block of one chunk and the paired comparisons between its configurations.

        Parameters
        ----------
        blocks : dict of (int, int) -> DealBlock
            ``blocks[(c, l)]`` for the configurations and line-ups played on this chunk's deals.
            Pairs of configurations (see :attr:`pairs`) are compared for every line-up that has
            blocks of both.

        Raises
        ------
        ValueError
            As :meth:`add_block`, or when the blocks do not all hold the same deal indices in the
            same order.  The accumulator is unchanged when an error is raised.
        """
        prepared: dict[tuple[int, int], dict[str, Any]] = {}
        ref = None
        for key in sorted(blocks):
            c, l = key
            b = self._prepare(c, l, blocks[key])
            if ref is None:
                ref = (key, b["deal"])
            elif not np.array_equal(b["deal"], ref[1]):
                raise ValueError(f"blocks {ref[0]} and {key} of one chunk hold different deals: "
                                 "every block of a chunk must cover the same deal indices in the same order")
            prepared[(b["c"], b["l"])] = b
        for key in sorted(prepared):
            self._apply(prepared[key])
        for q, (c1, c2, _) in enumerate(self.pairs):
            for l in range(len(self.lineups)):
                b1, b2 = prepared.get((c1, l)), prepared.get((c2, l))
                if b1 is None or b2 is None or b1["n"] == 0:
                    continue
                d = b2["sums"] - b1["sums"]  # (metric, n, local policy)
                for j, g in enumerate(self._names[l]):
                    acc = self._pair[q, l, g]
                    acc[0] += b1["n"]
                    for mi in range(_NM):
                        x = d[mi, :, j]
                        acc[1 + 2 * mi] += int(x.sum())
                        acc[2 + 2 * mi] += int((x * x).sum())

    # ------------------------------------------------------------------ checkpoint / merge

    def state(self) -> dict[str, np.ndarray]:
        """Everything needed to resume: a dict of numpy arrays (``np.savez`` friendly).

        Returns
        -------
        dict of str -> ndarray
            ``meta`` (UTF-8 JSON of configs, line-ups, players, varying as ``uint8``) and the
            ``int64`` counters.  The arrays are copies.  The state is canonical: the same deals give
            byte-identical arrays whatever the order of the chunks or merges (histograms span exactly
            the observed range).
        """
        meta = json.dumps(self._meta(), sort_keys=True).encode("utf-8")
        return {
            "meta": np.frombuffer(meta, dtype=np.uint8).copy(),
            "seat": self._seat.copy(),
            "pool": self._pool.copy(),
            "cl": self._cl.copy(),
            "pair": self._pair.copy(),
            "versus": self._versus.copy(),
            "turns_hist": self._turns_hist.copy(),
            "void_hist": self._void_hist.copy(),
            "score_hist": self._score_hist.copy(),
            "score_lo": np.array([self._score_lo], dtype=np.int64),
        }

    @classmethod
    def from_state(cls, state: Mapping[str, np.ndarray], **expected: Any) -> "StudyAccumulator":
        """Rebuild an accumulator from :meth:`state` (e.g. loaded with ``np.load``).

        Parameters
        ----------
        state : mapping of str -> ndarray
        **expected
            Optional ``configs``, ``lineups``, ``players``, ``varying``: checked against the saved ones.

        Raises
        ------
        ValueError
            Missing or malformed arrays, or a mismatch with ``expected``.
        """
        try:
            meta = json.loads(bytes(np.asarray(state["meta"], dtype=np.uint8)).decode("utf-8"))
        except (KeyError, ValueError) as e:
            raise ValueError(f"not a StudyAccumulator state: {e}") from None
        if meta.get("format") != _STATE_FORMAT:
            raise ValueError(f"unsupported state format {meta.get('format')!r}")
        acc = cls(meta["configs"], [tuple(x) for x in meta["lineups"]], meta["players"], meta["varying"])
        if expected:
            other = cls(expected.get("configs", acc.configs), expected.get("lineups", acc.lineups),
                        expected.get("players", acc.players), expected.get("varying", acc.varying))
            if other._meta() != acc._meta():
                raise ValueError("saved state was made for a different study (configs, line-ups, players or varying differ)")
        for name in ("seat", "pool", "cl", "pair", "versus"):
            x = np.asarray(state[name])
            want = getattr(acc, "_" + name)
            if x.shape != want.shape:
                raise ValueError(f"state array {name} has shape {x.shape}, expected {want.shape}")
            setattr(acc, "_" + name, x.astype(np.int64, copy=True))
        th, vh, sh = (np.asarray(state[k]).astype(np.int64, copy=True) for k in ("turns_hist", "void_hist", "score_hist"))
        if th.shape[:2] != acc._turns_hist.shape[:2] or vh.shape != th.shape or sh.shape[:3] != acc._score_hist.shape[:3]:
            raise ValueError("state histograms do not match the study shape")
        acc._turns_hist, acc._void_hist, acc._score_hist = th, vh, sh
        acc._score_lo = int(np.asarray(state["score_lo"]).reshape(-1)[0])
        return acc

    def merge(self, other: "StudyAccumulator") -> "StudyAccumulator":
        """Add another accumulator of the same study (disjoint deals) into this one.

        Returns
        -------
        StudyAccumulator
            ``self``.

        Raises
        ------
        ValueError
            If the studies differ (configs, line-ups, players or varying).
        """
        if other._meta() != self._meta():
            raise ValueError("cannot merge accumulators of different studies (configs, line-ups, players or varying differ)")
        self._seat += other._seat
        self._pool += other._pool
        self._cl += other._cl
        self._pair += other._pair
        self._versus += other._versus
        if other._turns_hist.shape[2]:
            self._grow_turns(other._turns_hist.shape[2])
            w = other._turns_hist.shape[2]
            self._turns_hist[:, :, :w] += other._turns_hist
            self._void_hist[:, :, :w] += other._void_hist
        if other._score_hist.shape[3]:
            lo, w = other._score_lo, other._score_hist.shape[3]
            self._grow_scores(lo, lo + w - 1)
            off = lo - self._score_lo
            self._score_hist[:, :, :, off:off + w] += other._score_hist
        return self

    # ------------------------------------------------------------------ results

    def _config_cols(self, c: int) -> dict[str, Any]:
        return {v: self.configs[c][v] for v in self.varying}

    def _typed_frame(self, rows: list[dict[str, Any]], columns: list[str]) -> pd.DataFrame:
        if not rows:
            return pd.DataFrame({col: pd.Series(dtype=object) for col in columns})
        return pd.DataFrame.from_records(rows, columns=columns)

    def summary(self) -> pd.DataFrame:
        """One row per configuration x line-up x policy x seat (``"all"`` first, then ``"0"`` .. ``"P-1"``).

        Returns
        -------
        pandas.DataFrame
            Columns: every varying option (its RULES.md name); ``lineup`` (policy names joined by
            ``","``); ``policy``; ``seat``; ``rounds`` (player-rounds observed); ``deals`` (deals;
            equals ``rounds`` for one seat); ``mean_score`` (points per round), ``sd_score`` (sd of
            one player's round score), ``se_score``, ``ci95_low``, ``ci95_high`` (Student-t; for
            ``"all"`` from the per-deal means over the policy's seats); ``p_out``, ``p_hand``,
            ``p_unopened`` each with ``*_ci95_low`` and ``*_ci95_high`` (Wilson, over player-rounds);
            ``mean_turns`` (turns per round), ``void_rate``; ``matches`` (player-rows with a match
            result), ``match_win_rate`` with ``match_win_rate_ci95_low/high`` (Wilson) and
            ``mean_tiebreaks`` (per configuration and line-up), NaN when no matches were played.
            ``p_unopened`` counts the player-rounds whose ``flags`` lack :data:`FLAG_OPENED`, void
            rounds included.  Only configurations and line-ups with at least one deal appear.  Order: configs, then
            line-ups, then policies (line-up order), then seats.
        """
        P = self.players
        columns = list(self.varying) + [
            "lineup", "policy", "seat", "rounds", "deals", "mean_score", "sd_score", "se_score", "ci95_low", "ci95_high",
            "p_out", "p_out_ci95_low", "p_out_ci95_high", "p_hand", "p_hand_ci95_low", "p_hand_ci95_high",
            "p_unopened", "p_unopened_ci95_low", "p_unopened_ci95_high", "mean_turns", "void_rate",
            "matches", "match_win_rate", "match_win_rate_ci95_low", "match_win_rate_ci95_high", "mean_tiebreaks",
        ]
        rows: list[dict[str, Any]] = []
        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                cl = [int(x) for x in self._cl[c, l]]
                if cl[_C_DEALS] == 0:
                    continue
                tb_mean = cl[_C_TB_SUM] / cl[_C_TB_N] if cl[_C_TB_N] else math.nan
                for j, g in enumerate(self._names[l]):
                    k = int(self._k[l][j])
                    seat_acc = self._seat[c, l, g]
                    tot = [int(x) for x in seat_acc.sum(axis=0)]
                    pool = [int(x) for x in self._pool[c, l, g]]
                    deals = pool[_P_DEALS]
                    # "all": mean and CI from per-deal means, sd from player-rounds
                    mean, _, se, lo, hi = _moments(deals, pool[_P_TSUM], pool[_P_TSUM2], scale=k)
                    _, sd, _, _, _ = _moments(tot[_S_ROUNDS], tot[_S_SCORE], tot[_S_SCORE2])
                    entries = [("all", tot, deals, (mean, sd, se, lo, hi),
                                cl[_C_TURNS] / deals if deals else math.nan,
                                cl[_C_VOID] / deals if deals else math.nan)]
                    for s in range(P):
                        a = [int(x) for x in seat_acc[s]]
                        n = a[_S_ROUNDS]
                        entries.append((str(s), a, n, _moments(n, a[_S_SCORE], a[_S_SCORE2]),
                                        a[_S_TURNS] / n if n else math.nan,
                                        a[_S_VOID] / n if n else math.nan))
                    for seat, a, deals_, (mean, sd, se, lo, hi), mturns, vrate in entries:
                        n = a[_S_ROUNDS]
                        row = self._config_cols(c)
                        row.update(lineup=",".join(lu), policy=self.policies[g], seat=seat, rounds=n, deals=deals_,
                                   mean_score=mean, sd_score=sd, se_score=se, ci95_low=lo, ci95_high=hi)
                        for name, idx in (("p_out", _S_OUT), ("p_hand", _S_HAND), ("p_unopened", _S_UNOPENED)):
                            row[name] = a[idx] / n if n else math.nan
                            row[name + "_ci95_low"], row[name + "_ci95_high"] = _wilson(a[idx], n)
                        row["mean_turns"] = mturns
                        row["void_rate"] = vrate
                        nm = a[_S_MATCHES]
                        row["matches"] = nm
                        row["match_win_rate"] = a[_S_WINS] / nm if nm else math.nan
                        row["match_win_rate_ci95_low"], row["match_win_rate_ci95_high"] = _wilson(a[_S_WINS], nm)
                        row["mean_tiebreaks"] = tb_mean
                        rows.append(row)
        df = self._typed_frame(rows, columns)
        return df.reset_index(drop=True)

    def paired(self) -> pd.DataFrame:
        """Paired differences between configurations that differ in exactly one option.

        For every pair ``(c1, c2)`` in :attr:`pairs` (``c1 < c2``), every line-up and every policy
        of it: the per-deal difference (``c2 - c1``) of the policy's mean score over its seats, on
        the deals both configurations played (chunks added with :meth:`add_chunk`).

        Returns
        -------
        pandas.DataFrame
            Columns ``lineup``, ``policy``, ``parameter`` (the option that differs),
            ``from_value`` (its value in ``c1``), ``to_value`` (in ``c2``), every varying option
            (the shared value; missing for ``parameter`` itself), ``deals``, ``mean_diff``
            (points per round), ``sd_diff``, ``ci95_low``, ``ci95_high`` (Student-t), ``p_value``
            (two-sided paired t test), and the same for the proportions as differences of
            probabilities: ``p_out_diff``, ``p_hand_diff``, ``p_unopened_diff``, each with
            ``*_ci95_low`` and ``*_ci95_high``.  Order: line-ups, pairs, policies.
        """
        columns = ["lineup", "policy", "parameter", "from_value", "to_value"] + list(self.varying) + [
            "deals", "mean_diff", "sd_diff", "ci95_low", "ci95_high", "p_value"]
        for m in _METRICS[1:]:
            columns += [f"{m}_diff", f"{m}_diff_ci95_low", f"{m}_diff_ci95_high"]
        rows: list[dict[str, Any]] = []
        for l, lu in enumerate(self.lineups):
            for q, (c1, c2, opt) in enumerate(self.pairs):
                for j, g in enumerate(self._names[l]):
                    acc = [int(x) for x in self._pair[q, l, g]]
                    D = acc[0]
                    if D == 0:
                        continue
                    k = int(self._k[l][j])
                    row: dict[str, Any] = {"lineup": ",".join(lu), "policy": self.policies[g], "parameter": opt,
                                           "from_value": self.configs[c1][opt], "to_value": self.configs[c2][opt]}
                    for v in self.varying:
                        row[v] = None if v == opt else self.configs[c1][v]
                    mean, sd, se, lo, hi = _moments(D, acc[1], acc[2], scale=k)
                    row.update(deals=D, mean_diff=mean, sd_diff=sd, ci95_low=lo, ci95_high=hi,
                               p_value=_t_pvalue(mean, se, D))
                    for mi, m in enumerate(_METRICS[1:], start=1):
                        mean, _, _, lo, hi = _moments(D, acc[1 + 2 * mi], acc[2 + 2 * mi], scale=k)
                        row[f"{m}_diff"], row[f"{m}_diff_ci95_low"], row[f"{m}_diff_ci95_high"] = mean, lo, hi
                    rows.append(row)
        if not rows:
            return self._typed_frame(rows, columns)
        data = {}
        for col in columns:
            vals = [r[col] for r in rows]
            if col in self.varying:
                data[col] = pd.array(vals) if any(v is None for v in vals) else vals
            elif col in ("from_value", "to_value"):
                data[col] = pd.Series(vals, dtype=object)
            else:
                data[col] = vals
        return pd.DataFrame(data, columns=columns)

    def versus(self) -> pd.DataFrame:
        """Within-deal contrasts between the policies of one line-up (same configuration).

        Returns
        -------
        pandas.DataFrame
            One row per configuration x line-up x pair of distinct policies ``(policy_a,
            policy_b)`` in line-up order.  Columns: every varying option, ``lineup``,
            ``policy_a``, ``policy_b``, ``deals``, ``mean_a``, ``mean_b`` (points per round),
            ``mean_diff`` (``a - b``, per-deal difference of the two policies' mean scores),
            ``ci95_low``, ``ci95_high`` (Student-t over deals), ``p_value``.
        """
        columns = list(self.varying) + ["lineup", "policy_a", "policy_b", "deals", "mean_a", "mean_b",
                                        "mean_diff", "ci95_low", "ci95_high", "p_value"]
        rows: list[dict[str, Any]] = []
        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                names, k = self._names[l], self._k[l]
                for ja, jb in itertools.combinations(range(len(names)), 2):
                    ga, gb = names[ja], names[jb]
                    acc = [int(x) for x in self._versus[c, l, ga, gb]]
                    if acc[0] == 0:
                        continue
                    ka, kb = int(k[ja]), int(k[jb])
                    mean, _, se, lo, hi = _moments(acc[0], acc[1], acc[2], scale=ka * kb)
                    pa, pb = self._pool[c, l, ga], self._pool[c, l, gb]
                    row = self._config_cols(c)
                    row.update(lineup=",".join(lu), policy_a=self.policies[ga], policy_b=self.policies[gb],
                               deals=acc[0], mean_a=int(pa[_P_TSUM]) / (ka * int(pa[_P_DEALS])),
                               mean_b=int(pb[_P_TSUM]) / (kb * int(pb[_P_DEALS])),
                               mean_diff=mean, ci95_low=lo, ci95_high=hi, p_value=_t_pvalue(mean, se, acc[0]))
                    rows.append(row)
        return self._typed_frame(rows, columns)

    def histograms(self) -> dict[str, pd.DataFrame]:
        """Tidy histograms of round length and of scores.

        Returns
        -------
        dict
            ``"turns"``: columns every varying option, ``lineup``, ``turns``, ``rounds`` (rounds of
            that length), ``void_rounds`` (of which void); one row per length with ``rounds > 0``.
            ``"score"``: columns every varying option, ``lineup``, ``policy``, ``score`` (points),
            ``count`` (player-rounds, all seats); one row per score with ``count > 0``.
        """
        tcols: dict[str, list] = {k: [] for k in ["_c", "lineup", "turns", "rounds", "void_rounds"]}
        scols: dict[str, list] = {k: [] for k in ["_c", "lineup", "policy", "score", "count"]}
        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                h, vh = self._turns_hist[c, l], self._void_hist[c, l]
                t = np.flatnonzero(h)
                tcols["_c"].append(np.full(len(t), c, dtype=np.int64))
                tcols["lineup"] += [",".join(lu)] * len(t)
                tcols["turns"].append(t.astype(np.int64))
                tcols["rounds"].append(h[t])
                tcols["void_rounds"].append(vh[t])
                for g in self._names[l]:
                    sh = self._score_hist[c, l, g]
                    i = np.flatnonzero(sh)
                    scols["_c"].append(np.full(len(i), c, dtype=np.int64))
                    scols["lineup"] += [",".join(lu)] * len(i)
                    scols["policy"] += [self.policies[g]] * len(i)
                    scols["score"].append(i.astype(np.int64) + self._score_lo)
                    scols["count"].append(sh[i])
        return {"turns": self._tidy(tcols), "score": self._tidy(scols)}

    def _tidy(self, cols: dict[str, list]) -> pd.DataFrame:
        """A frame from column pieces (lists of int64 arrays, or lists of strings); the ``_c`` piece
        (configuration index per row) becomes the varying option columns."""
        ints = {k: np.concatenate(v) if v else np.zeros(0, dtype=np.int64)
                for k, v in cols.items() if k not in ("lineup", "policy")}
        cidx = ints.pop("_c")
        out: dict[str, Any] = {}
        for v in self.varying:
            out[v] = pd.Series([self.configs[c][v] for c in range(len(self.configs))]).take(cidx).reset_index(drop=True)
        for k in cols:
            if k in ("lineup", "policy"):
                out[k] = pd.Series(cols[k], dtype="str")
            elif k != "_c":
                out[k] = pd.Series(ints[k], dtype=np.int64)
        return pd.DataFrame(out)

    def write_report(self, out_dir, run_info: Mapping[str, Any] | None = None):
        """Write figures and ``report.md`` for the current results (see :func:`handsim.report.write_report`)."""
        from . import report

        return report.write_report(out_dir, self.summary(), self.paired(), self.histograms(),
                                   dict(run_info or {}), versus=self.versus())
