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
:meth:`StudyAccumulator.versus`, :meth:`StudyAccumulator.lineup_pairs`,
:meth:`StudyAccumulator.total_quantiles` and :meth:`StudyAccumulator.histograms`.

Seats in a block are *relative*: seat 0 is the starter (RULES.md section 3: the player with the
extra card), seat 1 plays next, and so on.  Scores are points for one round, lower is better
(RULES.md section 6).

In a *match* study (RULES.md section 7) every row is one regular round of a match and the
match's result (``match_win``, ``match_lose``, ``tiebreaks``, ``total``, ``hand_decided``) sits
on the row of its last regular round.  In a *partnership* (2 v 2, ``teams``) study line-up
positions 1 & 3 form team A and positions 2 & 4 team B (1-based, as line-ups are written;
partners sit opposite).


The tables (:meth:`StudyAccumulator.summary` and the others, their statistical units) are
described in :mod:`handsim.games.hand.tables`; the interval estimators are
:mod:`handsim.stats.intervals`, the exact counters' helpers :mod:`handsim.stats.counters`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from handsim.stats.counters import (Accumulator, add_sums, check_at_least, check_parity, check_spans, check_totals,
                                    check_zero, exact_moments, grow_last)

from .layout import (C_DEALS, C_HD_N, C_HD_SUM, C_TB_N, C_TB_POS, C_TB_SUM, C_TURNS, C_VOID, FLAG_HAND,
                     FLAG_JOKER_LEFT, FLAG_OPENED, FLAG_OUT, JOKER_ARRAYS, LP_L, LP_L2, LP_LM, LP_M, LP_N, LP_S, LP_S2,
                     LP_TOT, LP_TOT2, LP_TS, LP_TS2, LP_TTOT, LP_TTOT2, LP_W, LP_W2, LP_WM, MARGIN_HIST, MATCH_NONE,
                     MAX_TIEBREAKS, NC, NLP, NM, NP, NQ, NS, NT, NV, P_DEALS, P_HAND2, P_L, P_L2, P_LM, P_M, P_N, P_N2,
                     P_OUT2, P_TM, P_TOT, P_TOT2, P_TSUM, P_TSUM2, P_UNOP2, P_W, P_W2, QUANTILES, S_HAND, S_LMATCHES, S_LOSSES,
                     S_MATCHES, S_NEUTRAL, S_OUT, S_ROUNDS, S_SCORE, S_SCORE2, S_TMATCHES, S_TOTAL, S_TOTAL2, S_TURNS,
                     S_UNOPENED, S_VOID, S_WINS, TEAMS, TIEBREAK_NONE, T_DEALS, T_HAND, T_L, T_LM, T_M, T_N, T_OUT,
                     T_SUM, T_SUM2, T_TM, T_TOT, T_TOT2, T_UNOP, T_UNOP2, T_W)
from .tables import MARGIN_COLUMNS, StudyTables, team_margin_table

__all__ = [
    "DealBlock",
    "StudyAccumulator",
    "FLAG_OPENED",
    "FLAG_OUT",
    "FLAG_HAND",
    "FLAG_JOKER_LEFT",
    "MATCH_NONE",
    "TIEBREAK_NONE",
    "QUANTILES",
    "TEAMS",
    "MARGIN_COLUMNS",
    "team_margin_table",
]

_STATE_FORMAT = 2


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
        (:data:`FLAG_HAND`) went out with a Hand, bit 3 (:data:`FLAG_JOKER_LEFT`) ended the round
        with a joker in hand.
    turns : ndarray(int16, shape=(n,))
        Length of the round in turns (>= 0).
    void : ndarray(uint8, shape=(n,))
        1 if the round was void (RULES.md section 3), else 0.
    match_win : ndarray(uint8, shape=(n, P)) or None
        1 if the player won the match, 0 if not, :data:`MATCH_NONE` (255) if the row carries no
        match result (a row is either all 255 or a result).  ``None`` when no matches were played.
    tiebreaks : ndarray(int16, shape=(n,)) or None
        Extra rounds played to break a tie for the lowest total (RULES.md section 7), or
        :data:`TIEBREAK_NONE` (-1) if the row carries no match result.
    match_lose : ndarray(uint8, shape=(n, P)) or None
        1 if the player lost the match (``standings = last_loses``; always 0 under
        ``lowest_wins``), 0 if not, :data:`MATCH_NONE` exactly where ``match_win`` is.  Needs
        ``match_win``.
    total : ndarray(int32, shape=(n, P)) or None
        Each player's final match total (points, tie-break rounds included), read on the rows
        that carry a match result (ignored elsewhere).  Needs ``match_win``.
    hand_decided : ndarray(uint8, shape=(n,)) or None
        1 if a single Hand decided the match, 0 if not, :data:`MATCH_NONE` if the row carries no
        match result.
    """

    deal: np.ndarray
    policy: np.ndarray
    score: np.ndarray
    flags: np.ndarray
    turns: np.ndarray
    void: np.ndarray
    match_win: np.ndarray | None = None
    tiebreaks: np.ndarray | None = None
    match_lose: np.ndarray | None = None
    total: np.ndarray | None = None
    hand_decided: np.ndarray | None = None


class StudyAccumulator(StudyTables, Accumulator):
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
    teams : bool or list of bool
        2 v 2 partnership (RULES.md sections 6-7): line-up positions 1 & 3 (0-based 0 and 2) form
        team A, positions 2 & 4 team B.  Adds team rows to :meth:`summary` and team columns to
        :meth:`lineup_pairs`.  One bool for every configuration, or one per configuration (when
        ``partnership`` varies).  Needs ``players == 4``.

    Raises
    ------
    ValueError
        Empty lists, a line-up of the wrong length, a config that lacks a varying option, two
        configs with the same values, an option not in ``varying`` whose value differs, a name
        listed twice in ``varying``, or teams with other than 4 players.

    Notes
    -----
    Feed results with :meth:`add_chunk` (all blocks of one chunk: per-block statistics *and*
    paired comparisons between configurations and between line-ups) or :meth:`add_block` (one
    block: no paired comparisons).  All counters are ``int64``; a square of a per-deal seat sum
    must stay below ``2**63 / deals``, far beyond any reachable score.  The study's shape, adding
    chunks, the state and merging are :class:`handsim.stats.counters.Accumulator`'s; the tables
    are :class:`~handsim.games.hand.tables.StudyTables`'.

    A state without the ``joker_*`` counters (saved before handsim counted the rounds that end
    with a joker in hand) is read by :meth:`from_state` with :attr:`joker_recorded` False:
    ``p_joker_left`` and its differences are NaN, also after more deals are added to it.
    Likewise a state without ``team_margin_hist`` (saved before the team margin was counted) is
    read with :attr:`margin_recorded` False: the margin is then not reported.
    """

    def __init__(self, configs: Sequence[Mapping[str, Any]], lineups: Sequence[Sequence[str]],
                 players: int, varying: Sequence[str], teams: bool | Sequence[bool] = False):
        super().__init__(configs, lineups, players, varying)
        norm_configs, players = self.configs, self.players
        if isinstance(teams, (bool, np.bool_)) or teams is None:
            team_flags = [bool(teams)] * len(norm_configs)
        else:
            team_flags = [bool(t) for t in teams]
            if len(team_flags) != len(norm_configs):
                raise ValueError(f"teams has {len(team_flags)} entries for {len(norm_configs)} configurations")
        if any(team_flags) and players != 4:
            raise ValueError(f"teams (2 v 2 partnership) need 4 players, got {players}")

        #: Whether configuration ``c`` is played 2 v 2 (team rows, team columns).
        self.teams: list[bool] = team_flags

        C, L, N, P, Q = len(norm_configs), len(self.lineups), len(self.policies), players, len(self.pairs)
        self._seat = np.zeros((C, L, N, P, NS), dtype=np.int64)
        self._pool = np.zeros((C, L, N, NP), dtype=np.int64)
        self._cl = np.zeros((C, L, NC), dtype=np.int64)
        self._team = np.zeros((C, L, len(TEAMS), NT), dtype=np.int64)
        self._pair = np.zeros((Q, L, N, NQ), dtype=np.int64)
        self._versus = np.zeros((C, L, N, N, NV), dtype=np.int64)
        self._lpair = np.zeros((C, len(self.lineup_diffs), NLP), dtype=np.int64)
        self._score_hist = np.zeros((C, L, N, 0), dtype=np.int64)
        self._score_lo = 0
        self._total_hist = np.zeros((C, L, N, 0), dtype=np.int64)
        self._total_lo = 0
        self._team_total_hist = np.zeros((C, L, len(TEAMS), 0), dtype=np.int64)
        self._team_total_lo = 0
        self._team_margin_hist = np.zeros((C, L, 0), dtype=np.int64)
        self._team_margin_lo = 0
        self._joker_seat = np.zeros((C, L, N, P), dtype=np.int64)
        self._joker_pool = np.zeros((C, L, N), dtype=np.int64)
        self._joker_team = np.zeros((C, L, len(TEAMS), 2), dtype=np.int64)
        self._joker_pair = np.zeros((Q, L, N, 2), dtype=np.int64)
        #: Whether the rounds that end with a joker in hand were counted from the first deal on
        #: (False for a checkpoint of a study run before :data:`FLAG_JOKER_LEFT` existed, and for
        #: one resumed from it: ``p_joker_left`` is then NaN).
        self.joker_recorded: bool = True
        #: Whether the team margin of every partnership match was counted from the first deal on
        #: (False for a checkpoint saved before the margin histogram existed, and for one resumed
        #: from it: :meth:`team_margins` is then empty and ``histograms()`` has no ``"team_margin"``).
        self.margin_recorded: bool = True

    # ------------------------------------------------------------------ bookkeeping

    def _meta(self) -> dict[str, Any]:
        return {**super()._meta(), "teams": self.teams}

    @classmethod
    def _from_meta(cls, meta: Mapping[str, Any]) -> "StudyAccumulator":
        return cls(meta["configs"], [tuple(x) for x in meta["lineups"]], meta["players"], meta["varying"],
                   teams=meta.get("teams", False))

    # ------------------------------------------------------------------ adding results

    def _prepare(self, c: int, l: int, block: DealBlock) -> dict[str, Any]:
        """Check one block and compute its per-deal sums (no state is touched).

        Raises
        ------
        ValueError
            Bad indices, shapes or dtypes, a ``policy`` row that is not a permutation of the
            line-up positions, negative turns, out-of-range ``void`` / ``match_win`` /
            ``match_lose`` / ``hand_decided`` / ``tiebreaks``, a ``match_win`` row that is
            partly :data:`MATCH_NONE`, ``match_lose`` without result where ``match_win`` has one
            (or the reverse), or match fields without ``match_win``.
        """
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
        for name, ndim in (("match_win", 2), ("tiebreaks", 1), ("match_lose", 2), ("total", 2), ("hand_decided", 1)):
            out[name] = arr(name, ndim, required=False)
        for name in ("policy", "score", "flags", "match_win", "match_lose", "total"):
            x = out[name]
            if x is not None and x.shape != (n, P):
                raise ValueError(f"{where}: field {name} has shape {x.shape}, expected ({n}, {P})")
        for name in ("turns", "void", "tiebreaks", "hand_decided"):
            x = out[name]
            if x is not None and x.shape != (n,):
                raise ValueError(f"{where}: field {name} has shape {x.shape}, expected ({n},)")
        if out["match_win"] is None:
            given = [k for k in ("match_lose", "total", "tiebreaks", "hand_decided") if out[k] is not None]
            if given:
                raise ValueError(f"{where}: field(s) {', '.join(given)} need match_win (the rows that carry a match result)")
        policy = out["policy"].astype(np.intp)
        if n and not np.array_equal(np.sort(policy, axis=1), np.broadcast_to(np.arange(P), (n, P))):
            raise ValueError(f"{where}: every row of policy must be a permutation of the line-up positions 0..{P - 1}")
        turns = out["turns"].astype(np.int64)
        if n and turns.min() < 0:
            raise ValueError(f"{where}: negative turns")
        void = out["void"].astype(np.int64)
        if n and not np.isin(void, (0, 1)).all():
            raise ValueError(f"{where}: void must be 0 or 1")
        mw, ml, hd = out["match_win"], out["match_lose"], out["hand_decided"]
        none = None
        if mw is not None:
            mw = mw.astype(np.int64)
            if n and not np.isin(mw, (0, 1, MATCH_NONE)).all():
                raise ValueError(f"{where}: match_win must be 0, 1 or {MATCH_NONE} (no result in this row)")
            none = mw == MATCH_NONE
            if n and (none.any(axis=1) != none.all(axis=1)).any():
                raise ValueError(f"{where}: a row of match_win must be {MATCH_NONE} in every seat (no result) or in none")
        if ml is not None:
            ml = ml.astype(np.int64)
            if n and not np.isin(ml, (0, 1, MATCH_NONE)).all():
                raise ValueError(f"{where}: match_lose must be 0, 1 or {MATCH_NONE} (no result in this row)")
            if not np.array_equal(ml == MATCH_NONE, none):
                raise ValueError(f"{where}: match_lose must be {MATCH_NONE} exactly where match_win is")
            if ((ml == 1) & (mw == 1)).any():
                raise ValueError(f"{where}: a player cannot both win and lose a match (match_win and match_lose both 1)")
        if self.teams[c] and mw is not None:
            for name, x in (("match_win", mw), ("match_lose", ml)):
                if x is not None and not np.array_equal(x[:, :2], x[:, 2:]):
                    raise ValueError(f"{where}: partners (seats s and s + 2) must share the team's {name} in a 2 v 2 study")
        if hd is not None:
            hd = hd.astype(np.int64)
            if n and not np.isin(hd, (0, 1, MATCH_NONE)).all():
                raise ValueError(f"{where}: hand_decided must be 0, 1 or {MATCH_NONE} (no result in this row)")
        tb = out["tiebreaks"]
        if tb is not None:
            tb = tb.astype(np.int64)
            if n and (tb.min() < TIEBREAK_NONE or tb.max() > MAX_TIEBREAKS):
                raise ValueError(f"{where}: tiebreaks must be 0..{MAX_TIEBREAKS}, or {TIEBREAK_NONE} for no result")
        if mw is not None:
            # every row with a match result carries its tie-break count and Hand-decided flag (the
            # kernel writes all five), so a checkpoint's counts of them equal the matches
            for name, x, no in (("tiebreaks", tb, TIEBREAK_NONE), ("hand_decided", hd, MATCH_NONE)):
                if x is None:
                    raise ValueError(f"{where}: field {name} is missing (match_win is given: every match has one)")
                if not np.array_equal(x == no, none[:, 0]):
                    raise ValueError(f"{where}: {name} must be {no} exactly where match_win is {MATCH_NONE}")
        score = out["score"].astype(np.int64)
        flags = out["flags"].astype(np.int64)
        local = self._pos_local[l][policy]  # (n, P) local policy index per seat
        nl = len(self._names[l])
        sums = np.zeros((NM, n, nl), dtype=np.int64)  # per-deal sums over the policy's seats
        is_out = (flags & FLAG_OUT) != 0
        is_hand = (flags & FLAG_HAND) != 0
        unopened = (flags & FLAG_OPENED) == 0
        joker = (flags & FLAG_JOKER_LEFT) != 0
        jsums = np.zeros((n, nl), dtype=np.int64)
        for j in range(nl):
            m = local == j
            sums[0, :, j] = np.where(m, score, 0).sum(axis=1)
            sums[1, :, j] = (m & is_out).sum(axis=1)
            sums[2, :, j] = (m & is_hand).sum(axis=1)
            sums[3, :, j] = (m & unopened).sum(axis=1)
            jsums[:, j] = (m & joker).sum(axis=1)
        # the same results by line-up position (column i: the player at line-up position i)
        seat_of_pos = np.argsort(policy, axis=1, kind="stable")

        def by_pos(x):
            return np.take_along_axis(x, seat_of_pos, axis=1)

        out.update(policy=policy, score=score, flags=flags, turns=turns, void=void, match_win=mw, tiebreaks=tb,
                   match_lose=ml, hand_decided=hd, local=local, sums=sums, is_out=is_out, is_hand=is_hand,
                   unopened=unopened, joker=joker, jsums=jsums, pos_score=by_pos(score), pos_out=by_pos(is_out),
                   pos_hand=by_pos(is_hand), pos_unopened=by_pos(unopened), pos_joker=by_pos(joker))
        # match results: rows with a result, by seat and by line-up position
        out["res_rows"] = out["res_local"] = out["pos_win"] = out["pos_lose"] = out["pos_total"] = None
        out["res_win"] = out["res_lose"] = out["res_total"] = None
        if mw is not None:
            rows = np.flatnonzero(~none[:, 0]) if n else np.zeros(0, dtype=np.intp)
            sp = seat_of_pos[rows]
            out["res_rows"] = rows
            out["res_local"] = local[rows]
            out["res_win"] = mw[rows]
            out["pos_win"] = np.take_along_axis(mw[rows], sp, axis=1)
            if ml is not None:
                out["res_lose"] = ml[rows]
                out["pos_lose"] = np.take_along_axis(ml[rows], sp, axis=1)
            if out["total"] is not None:
                tot = out["total"].astype(np.int64)[rows]
                out["res_total"] = tot
                out["pos_total"] = np.take_along_axis(tot, sp, axis=1)
        return out

    def _apply(self, b: dict[str, Any]) -> None:
        """Add one prepared block to the per-block counters and histograms."""
        c, l, n, P = b["c"], b["l"], b["n"], self.players
        if n == 0:
            return
        names, k = self._names[l], self._k[l]
        local, score, turns, void = b["local"], b["score"], b["turns"], b["void"]
        tb, hd, T = b["tiebreaks"], b["hand_decided"], b["sums"][0]
        rw, rl, rt, rloc = b["res_win"], b["res_lose"], b["res_total"], b["res_local"]
        pw, pl, pt = b["pos_win"], b["pos_lose"], b["pos_total"]
        nr = 0 if rw is None else len(rw)
        for j, g in enumerate(names):
            for s in range(P):
                m = local[:, s] == j
                acc = self._seat[c, l, g, s]
                x = score[m, s]
                acc[S_ROUNDS] += int(m.sum())
                add_sums(acc, S_SCORE, S_SCORE2, x)
                acc[S_OUT] += int(b["is_out"][m, s].sum())
                acc[S_HAND] += int(b["is_hand"][m, s].sum())
                acc[S_UNOPENED] += int(b["unopened"][m, s].sum())
                self._joker_seat[c, l, g, s] += int(b["joker"][m, s].sum())
                acc[S_TURNS] += int(turns[m].sum())
                acc[S_VOID] += int(void[m].sum())
                if rw is not None:
                    mr = rloc[:, s] == j
                    nm = int(mr.sum())
                    w = rw[mr, s]
                    acc[S_MATCHES] += nm
                    acc[S_WINS] += int(w.sum())
                    if rl is not None:
                        lz = rl[mr, s]
                        acc[S_LMATCHES] += nm
                        acc[S_LOSSES] += int(lz.sum())
                        acc[S_NEUTRAL] += int(nm - w.sum() - lz.sum())
                    if rt is not None:
                        x = rt[mr, s]
                        acc[S_TMATCHES] += nm
                        add_sums(acc, S_TOTAL, S_TOTAL2, x)
            pool = self._pool[c, l, g]
            t = T[:, j]
            pool[P_DEALS] += n
            add_sums(pool, P_TSUM, P_TSUM2, t)
            for mi, idx in ((1, P_OUT2), (2, P_HAND2), (3, P_UNOP2)):
                x = b["sums"][mi, :, j]
                pool[idx] += int((x * x).sum())
            x = b["jsums"][:, j]
            self._joker_pool[c, l, g] += int((x * x).sum())
            if pw is not None:
                mpos = self._pos_local[l] == j
                kj = int(k[j])
                w = pw[:, mpos].sum(axis=1)
                pool[P_M] += nr
                add_sums(pool, P_W, P_W2, w)
                if pl is not None:
                    lz = pl[:, mpos].sum(axis=1)
                    nu = kj - w - lz
                    pool[P_LM] += nr
                    add_sums(pool, P_L, P_L2, lz)
                    add_sums(pool, P_N, P_N2, nu)
                if pt is not None:
                    x = pt[:, mpos].sum(axis=1)
                    pool[P_TM] += nr
                    add_sums(pool, P_TOT, P_TOT2, x)
        # policy contrasts within the deal: d = k_b*T_a - k_a*T_b (a before b in the line-up)
        for ja, jb in itertools.combinations(range(len(names)), 2):
            d = k[jb] * T[:, ja] - k[ja] * T[:, jb]
            v = self._versus[c, l, names[ja], names[jb]]
            v[0] += n
            add_sums(v, 1, 2, d)
        cl = self._cl[c, l]
        cl[C_DEALS] += n
        cl[C_TURNS] += int(turns.sum())
        cl[C_VOID] += int(void.sum())
        if tb is not None:
            has = tb != TIEBREAK_NONE
            cl[C_TB_N] += int(has.sum())
            cl[C_TB_SUM] += int(tb[has].sum())
            cl[C_TB_POS] += int((tb[has] >= 1).sum())
        if hd is not None:
            has = hd != MATCH_NONE
            cl[C_HD_N] += int(has.sum())
            cl[C_HD_SUM] += int((hd[has] == 1).sum())
        # teams (2 v 2): sums over the two partners' line-up positions
        if self.teams[c]:
            for ti, (_, pos) in enumerate(TEAMS):
                pos = list(pos)
                acc = self._team[c, l, ti]
                ts = b["pos_score"][:, pos].sum(axis=1)
                u = b["pos_unopened"][:, pos].sum(axis=1)
                acc[T_DEALS] += n
                add_sums(acc, T_SUM, T_SUM2, ts)
                acc[T_OUT] += int(b["pos_out"][:, pos].any(axis=1).sum())
                acc[T_HAND] += int(b["pos_hand"][:, pos].any(axis=1).sum())
                add_sums(acc, T_UNOP, T_UNOP2, u)
                add_sums(self._joker_team[c, l, ti], 0, 1, b["pos_joker"][:, pos].sum(axis=1))
                if pw is not None:
                    w = pw[:, pos].max(axis=1)
                    acc[T_M] += nr
                    acc[T_W] += int(w.sum())
                    if pl is not None:
                        lz = pl[:, pos].max(axis=1)
                        acc[T_LM] += nr
                        acc[T_L] += int(lz.sum())
                        acc[T_N] += int((nr - w.sum() - lz.sum()))
                    if pt is not None:
                        x = pt[:, pos].sum(axis=1)
                        acc[T_TM] += nr
                        add_sums(acc, T_TOT, T_TOT2, x)
        # round length histograms
        tmax = int(turns.max())
        self._grow_turns(tmax + 1)
        width = self._turns_hist.shape[2]
        self._turns_hist[c, l] += np.bincount(turns, minlength=width)
        self._void_hist[c, l] += np.bincount(turns[void != 0], minlength=width)
        # score histogram per policy (all seats)
        self._score_hist, self._score_lo = grow_last(self._score_hist, self._score_lo, int(score.min()), int(score.max()))
        width = self._score_hist.shape[3]
        for j, g in enumerate(names):
            self._score_hist[c, l, g] += np.bincount(score[local == j] - self._score_lo, minlength=width)
        # final match totals per policy (all seats), and per team
        if rt is not None and nr:
            self._total_hist, self._total_lo = grow_last(self._total_hist, self._total_lo, int(rt.min()), int(rt.max()))
            width = self._total_hist.shape[3]
            for j, g in enumerate(names):
                self._total_hist[c, l, g] += np.bincount(rt[rloc == j] - self._total_lo, minlength=width)
            if self.teams[c]:
                tt = np.stack([pt[:, list(pos)].sum(axis=1) for _, pos in TEAMS])
                self._team_total_hist, self._team_total_lo = grow_last(
                    self._team_total_hist, self._team_total_lo, int(tt.min()), int(tt.max()))
                width = self._team_total_hist.shape[3]
                for ti in range(len(TEAMS)):
                    self._team_total_hist[c, l, ti] += np.bincount(tt[ti] - self._team_total_lo, minlength=width)
                margin = tt[0] - tt[1]
                self._team_margin_hist, self._team_margin_lo = grow_last(
                    self._team_margin_hist, self._team_margin_lo, int(margin.min()), int(margin.max()))
                width = self._team_margin_hist.shape[2]
                self._team_margin_hist[c, l] += np.bincount(margin - self._team_margin_lo, minlength=width)

    def _check_lineup_pairs(self, lpairs: Sequence[tuple]) -> None:
        """Line-ups compared must hold their match results on the same rows (play the same matches)."""
        for c, q, j, b1, b2 in lpairs:
            l1, l2, _ = self.lineup_diffs[q]
            r1, r2 = b1["res_rows"], b2["res_rows"]
            if r1 is not None and r2 is not None and not np.array_equal(r1, r2):
                raise ValueError(f"blocks ({c}, {l1}) and ({c}, {l2}) of one chunk hold match results on "
                                 "different rows: line-ups compared must play the same matches")

    def _add_config_pair(self, q: int, l: int, b1: dict[str, Any], b2: dict[str, Any]) -> None:
        super()._add_config_pair(q, l, b1, b2)
        for j, g in enumerate(self._names[l]):
            add_sums(self._joker_pair[q, l, g], 0, 1, b2["jsums"][:, j] - b1["jsums"][:, j])

    def _add_lineup_pair(self, c: int, q: int, j: int, ba: dict[str, Any], bb: dict[str, Any]) -> None:
        """Per-deal (per-match) differences ``a - b`` of line-up position ``j`` and its team."""
        acc = self._lpair[c, q]
        team = [j, (j + 2) % 4] if self.teams[c] else None
        d = ba["pos_score"][:, j] - bb["pos_score"][:, j]
        acc[LP_N] += ba["n"]
        add_sums(acc, LP_S, LP_S2, d)
        if team is not None:
            d = ba["pos_score"][:, team].sum(axis=1) - bb["pos_score"][:, team].sum(axis=1)
            add_sums(acc, LP_TS, LP_TS2, d)
        ta, tb = ba["pos_total"], bb["pos_total"]
        if ta is not None and tb is not None:
            d = ta[:, j] - tb[:, j]
            acc[LP_M] += len(d)
            add_sums(acc, LP_TOT, LP_TOT2, d)
            if team is not None:
                d = ta[:, team].sum(axis=1) - tb[:, team].sum(axis=1)
                add_sums(acc, LP_TTOT, LP_TTOT2, d)
        for name, (im, i1, i2) in (("pos_win", (LP_WM, LP_W, LP_W2)), ("pos_lose", (LP_LM, LP_L, LP_L2))):
            xa, xb = ba[name], bb[name]
            if xa is not None and xb is not None:
                d = xa[:, j] - xb[:, j]
                acc[im] += len(d)
                add_sums(acc, i1, i2, d)

    # ------------------------------------------------------------------ checkpoint / merge

    FORMAT = _STATE_FORMAT
    FORMAT_NOTE = " (format 1 came before match totals and team statistics)"
    STUDY_FIELDS = "configs, line-ups, players, varying or teams"
    ARRAYS = ("seat", "pool", "cl", "team", "pair", "versus", "lpair")
    TURN_HISTS = ("turns_hist", "void_hist")
    N_PAIRED = NM
    # histogram arrays, their first-value attribute, and how many leading axes are fixed by the study
    _HISTS = (("score_hist", "score_lo", 3), ("total_hist", "total_lo", 3), ("team_total_hist", "team_total_lo", 3))
    # value checks of a saved state (:func:`check_counters`): signed columns and (sum, squares) pairs
    LAYOUT = {
        "seat": ((S_SCORE, S_TOTAL), ((S_SCORE, S_SCORE2), (S_TOTAL, S_TOTAL2))),
        "pool": ((P_TSUM, P_TOT), ((P_TSUM, P_TSUM2), (P_TOT, P_TOT2), (P_W, P_W2), (P_L, P_L2),
                                     (P_N, P_N2))),
        "cl": ((), ()),
        "team": ((T_SUM, T_TOT), ((T_SUM, T_SUM2), (T_UNOP, T_UNOP2), (T_TOT, T_TOT2))),
        "pair": (tuple(range(1, NQ, 2)), tuple((i, i + 1) for i in range(1, NQ, 2))),
        "versus": ((1,), ((1, 2),)),
        "lpair": ((LP_S, LP_TS, LP_TOT, LP_TTOT, LP_W, LP_L),
                  tuple((i, i + 1) for i in (LP_S, LP_TS, LP_TOT, LP_TTOT, LP_W, LP_L))),
        "turns_hist": ((), ()), "void_hist": ((), ()),
        "score_hist": ((), ()), "total_hist": ((), ()), "team_total_hist": ((), ()), "team_margin_hist": ((), ()),
        "score_lo": ("all", ()), "total_lo": ("all", ()), "team_total_lo": ("all", ()), "team_margin_lo": ("all", ()),
        "joker_seat": ((), ()), "joker_pool": ((), ()), "joker_team": ((), ((0, 1),)), "joker_pair": ((0,), ((0, 1),)),
    }

    MOMENTS = {
        "seat": ((S_ROUNDS, S_SCORE, S_SCORE2), (S_TMATCHES, S_TOTAL, S_TOTAL2)),
        "pool": ((P_DEALS, P_TSUM, P_TSUM2), (P_TM, P_TOT, P_TOT2), (P_M, P_W, P_W2), (P_LM, P_L, P_L2),
                 (P_LM, P_N, P_N2)),
        "team": ((T_DEALS, T_SUM, T_SUM2), (T_DEALS, T_UNOP, T_UNOP2), (T_TM, T_TOT, T_TOT2)),
        "pair": tuple((0, i, i + 1) for i in range(1, NQ, 2)),
        "versus": ((0, 1, 2),),
        "lpair": ((LP_N, LP_S, LP_S2), (LP_N, LP_TS, LP_TS2), (LP_M, LP_TOT, LP_TOT2), (LP_M, LP_TTOT, LP_TTOT2),
                  (LP_WM, LP_W, LP_W2), (LP_LM, LP_L, LP_L2)),
    }

    def _state_extra(self, out: dict[str, np.ndarray]) -> None:
        """The histograms with their first values, the ``joker_*`` counters when :attr:`joker_recorded`,
        ``team_margin_hist`` / ``team_margin_lo`` when :attr:`margin_recorded`."""
        for name, lo, _ in self._HISTS:
            out[name] = getattr(self, "_" + name).copy()
            out[lo] = np.array([getattr(self, "_" + lo)], dtype=np.int64)
        if self.joker_recorded:
            for name in JOKER_ARRAYS:
                out[name] = getattr(self, "_" + name).copy()
        if self.margin_recorded:
            name, lo, _ = MARGIN_HIST
            out[name] = getattr(self, "_" + name).copy()
            out[lo] = np.array([getattr(self, "_" + lo)], dtype=np.int64)

    def _load_extra(self, state: Mapping[str, np.ndarray]) -> None:
        for name, lo, fixed in self._HISTS:
            h = self._taken(state[name])
            if h.ndim != fixed + 1 or h.shape[:fixed] != getattr(self, "_" + name).shape[:fixed]:
                raise ValueError(f"state histogram {name} does not match the study shape")
            setattr(self, "_" + name, h)
            setattr(self, "_" + lo, int(np.asarray(state[lo]).reshape(-1)[0]))
        # the joker counters came later (same state format): a checkpoint without them is read,
        # and the share of rounds ending with a joker in hand is then not known (NaN)
        have = [name for name in JOKER_ARRAYS if name in state]
        if not have:
            self.joker_recorded = False
        elif len(have) < len(JOKER_ARRAYS):
            missing = sorted(set(JOKER_ARRAYS) - set(have))
            raise ValueError(f"state array {missing[0]!r} is missing")
        else:
            for name in JOKER_ARRAYS:
                x = np.asarray(state[name])
                want = getattr(self, "_" + name)
                if x.shape != want.shape:
                    raise ValueError(f"state array {name} has shape {x.shape}, expected {want.shape}")
                setattr(self, "_" + name, self._taken(x))
        name, lo, fixed = MARGIN_HIST
        if name not in state:
            self.margin_recorded = False
        else:
            if lo not in state:
                raise ValueError(f"state array {lo!r} is missing")
            h = self._taken(state[name])
            if h.ndim != fixed + 1 or h.shape[:fixed] != self._team_margin_hist.shape[:fixed]:
                raise ValueError(f"state histogram {name} does not match the study shape")
            self._team_margin_hist = h
            self._team_margin_lo = int(np.asarray(state[lo]).reshape(-1)[0])

    def _check_totals(self) -> None:
        """Check every relation between the counters of a state read from a checkpoint (a study's:
        every chunk added whole), ValueError naming both arrays and the first count that disagrees.

        Exact: a deals, rounds, matches or points count that two arrays hold (per policy over its
        seats, per line-up over its policies, per team over its partners, a histogram's count,
        sum and sum of squares, a paired difference's sum from the two configurations' or
        line-ups' sums, a policy contrast's sum from the two policies' sums).  One player goes
        out in each round that is not void (RULES.md section 3), none in a void one: the rounds
        gone out of a line-up are its deals less its void rounds, the two teams' add up to them,
        and a policy's per-deal count of rounds gone out (of Hands) is 0 or 1, so its sum of
        squares is its sum, and that of a paired difference of two such counts (-1, 0 or 1)
        has the parity of their sum and does not exceed it (the same parity for a line-up
        position's difference of match wins or losses).  Every match result carries its tie-break
        count and Hand-decided flag: as many of each as matches (all 0 in a study without
        matches), and the tie-break rounds between the matches that had one and
        ``MAX_TIEBREAKS`` (RULES.md section 7) times them, and the matches decided by a Hand within the
        regular rounds ended by a Hand and the tie-break rounds.  Bounds: counts within the rounds, the
        matches or the deals they are counted in, Hands within the rounds gone out, a team's
        rounds gone out between those of the policies that sit in the team only and in it at
        all, a per-deal count's sum of squares between its sum and ``k`` times it (``k`` the
        policy's seats; equal for one).  Parity: every sum of squares has the parity of its sum
        (an integer's square has its parity; within an array
        :func:`~handsim.stats.counters.check_counters` checks it, from ``LAYOUT``).  Only what
        depends on how the results fall within a deal is not determined: the sums of squares of per-deal score sums and differences (beyond their
        parity), and the score differences of a line-up position whose policy holds several
        positions.
        """
        self._check_cells()
        used, k = self._present()
        teams = np.array(self.teams, dtype=bool)[:, None]
        cl, seat, pool, team = self._cl, self._seat, self._pool, self._team
        deals = cl[:, :, C_DEALS]
        kk = k[None]  # (1, L, N): a policy's positions in each line-up
        # per configuration and line-up
        th, vh = self._turns_hist, self._void_hist
        check_totals("turns_hist", th @ np.arange(th.shape[2]), "cl", cl[:, :, C_TURNS], "turns")
        check_totals("void_hist", vh, "turns_hist", th, "void rounds of a length", most=True)
        check_totals("void_hist", vh.sum(axis=2), "cl", cl[:, :, C_VOID], "void rounds")
        check_totals("cl", cl[:, :, C_VOID], "cl", deals, "void rounds", most=True)
        # every match result carries its tie-break count and Hand-decided flag: as many as the
        # matches (0 in a study that plays none); 1 to MAX_TIEBREAKS rounds in a match with a tie-break
        first = np.array([names[0] for names in self._names])
        n_match = pool[:, np.arange(len(first)), first, P_M]  # (C, L)
        for col, unit in ((C_TB_N, "matches with a tie-break count"), (C_HD_N, "matches with a Hand-decided flag")):
            check_totals("cl", cl[:, :, col], "pool", n_match, unit)
        check_totals("cl", cl[:, :, C_TB_POS], "cl", cl[:, :, C_TB_N], "matches with a tie-break", most=True)
        check_totals("cl", cl[:, :, C_TB_POS], "cl", cl[:, :, C_TB_SUM], "matches with a tie-break", most=True)
        check_totals("cl", cl[:, :, C_TB_SUM], "cl", MAX_TIEBREAKS * cl[:, :, C_TB_POS],
                     f"tie-break rounds (at most {MAX_TIEBREAKS} in each match with a tie-break)", most=True)
        check_totals("cl", cl[:, :, C_HD_SUM], "cl", cl[:, :, C_HD_N], "matches decided by a Hand", most=True)
        # a match decided by a Hand had a Hand: in a regular round (counted by the seats) or in one
        # of its tie-break rounds (counted only by C_TB_SUM)
        hand_rounds = seat[..., S_HAND].sum(axis=(2, 3))  # (C, L): one Hand at most in a round
        check_totals("cl", cl[:, :, C_HD_SUM], "seat", hand_rounds + cl[:, :, C_TB_SUM],
                     "matches decided by a Hand (each had a Hand, in a regular or a tie-break round)", most=True)
        # per seat: every round of a seat is one policy's
        rounds = seat[..., S_ROUNDS]
        for col, unit in ((S_OUT, "rounds gone out"), (S_HAND, "Hands"), (S_UNOPENED, "unopened rounds")):
            check_totals("seat", seat[..., col], "seat", rounds, unit, most=True)
        # a Hand is a way of going out (FLAG_HAND only with FLAG_OUT)
        check_totals("seat", seat[..., S_HAND], "seat", seat[..., S_OUT], "Hands", most=True)
        for col, c_col, unit in ((S_TURNS, C_TURNS, "turns"), (S_VOID, C_VOID, "void rounds")):
            check_totals("seat", seat[..., col].sum(axis=2), "cl", cl[:, :, c_col, None], f"{unit} in a seat")
        # match results: the rows that carry one, the same for every seat and policy of a line-up
        for s_col, p_col, unit in ((S_MATCHES, P_M, "matches"), (S_LMATCHES, P_LM, "matches with a loss result"),
                                   (S_TMATCHES, P_TM, "matches with totals")):
            n_res = pool[:, np.arange(len(first)), first, p_col]  # (C, L)
            check_totals("pool", pool[..., p_col], "pool", used[None] * n_res[:, :, None], unit)
            check_totals("seat", seat[..., s_col].sum(axis=2), "pool", n_res[:, :, None], f"{unit} in a seat")
            check_totals("pool", n_res, "cl", deals, unit, most=True)
        ms = seat[..., S_MATCHES]
        check_totals("seat", seat[..., S_WINS], "seat", ms, "match wins", most=True)
        check_totals("seat", seat[..., S_LMATCHES], "seat", ms, "matches with a loss result", most=True)
        check_totals("seat", seat[..., S_TMATCHES], "seat", ms, "matches with totals", most=True)
        lm = seat[..., S_LMATCHES]
        check_totals("seat", seat[..., S_LOSSES] + seat[..., S_NEUTRAL], "seat", lm, "losses and neutral matches",
                     most=True)
        check_totals("seat", seat[..., S_WINS] + seat[..., S_LOSSES] + seat[..., S_NEUTRAL], "seat", lm,
                     "wins, losses and neutral matches", where=lm == ms)
        # per policy: sums over its seats
        by_pol = seat.sum(axis=3)  # (C, L, N, NS)
        exact = [(P_TSUM, S_SCORE, "points"), (P_W, S_WINS, "match wins"), (P_L, S_LOSSES, "match losses"),
                 (P_N, S_NEUTRAL, "neutral matches"), (P_TOT, S_TOTAL, "match total points")]
        for p_col, s_col, unit in exact:
            check_totals("pool", pool[..., p_col], "seat", by_pol[..., s_col], unit)
        # one player goes out in a round that is not void (RULES.md section 3: the one who ends it), and
        # none in a void round: a policy's per-deal count of rounds gone out (of Hands) over its seats
        # is 0 or 1, its square the count itself
        outs = by_pol[..., S_OUT].sum(axis=2)  # (C, L): over every policy of the line-up
        check_totals("seat", outs, "cl", deals - cl[:, :, C_VOID], "rounds gone out (one in each round not void)")
        for p_col, s_col, unit in ((P_OUT2, S_OUT, "rounds gone out"), (P_HAND2, S_HAND, "Hands")):
            check_totals("pool", pool[..., p_col], "seat", by_pol[..., s_col], f"squared {unit} (each 0 or 1)")
        # sums of squares of a per-deal count over the policy's k seats (0 <= x <= k): between the
        # count and k times it, equal to it for k = 1
        squares = [(P_UNOP2, by_pol[..., S_UNOPENED], "seat", "unopened rounds"),
                   (P_W2, pool[..., P_W], "pool", "match wins"), (P_L2, pool[..., P_L], "pool", "match losses"),
                   (P_N2, pool[..., P_N], "pool", "neutral matches")]
        for p_col, x, other, unit in squares:
            check_at_least("pool", pool[..., p_col], other, x, f"squared {unit}")
            check_totals("pool", pool[..., p_col], other, kk * x, f"squared {unit}", most=True)
        check_parity("pool", pool[..., P_UNOP2], "seat", by_pol[..., S_UNOPENED], "squared unopened rounds")
        for p_col, s_col, unit in ((P_TSUM2, S_SCORE2, "squared points"), (P_TOT2, S_TOTAL2, "squared total points")):
            check_totals("pool", pool[..., p_col], "seat", kk * by_pol[..., s_col], unit, most=True)
            check_totals("pool", pool[..., p_col], "seat", by_pol[..., s_col], unit, where=kk == 1)
        # the histograms: count, sum and sum of squares of what they hold
        for name, lo, n_col, s_col, s2_col, unit in (
                ("score_hist", self._score_lo, S_ROUNDS, S_SCORE, S_SCORE2, "rounds"),
                ("total_hist", self._total_lo, S_TMATCHES, S_TOTAL, S_TOTAL2, "matches with totals")):
            h = getattr(self, "_" + name)
            check_zero(name, h, used[None], "a policy that is not in its line-up")
            check_spans(name, h)
            n, s1, s2 = exact_moments(h, lo)
            check_totals(name, n, "seat", by_pol[..., n_col], unit)
            check_totals(name, s1, "seat", by_pol[..., s_col], "points")
            check_totals(name, s2, "seat", by_pol[..., s2_col], "squared points")
        # teams (2 v 2): the partners' sums
        check_zero("team", team, teams, "a configuration played without partnerships")
        check_totals("team", team[..., T_DEALS], "cl", teams[:, :, None] * deals[:, :, None], "deals")
        every = pool.sum(axis=2)  # (C, L, NP): over every policy of the line-up
        for t_col, x, other, unit in ((T_SUM, every[..., P_TSUM], "pool", "points"),
                                      (T_UNOP, by_pol[..., S_UNOPENED].sum(axis=2), "seat", "unopened rounds"),
                                      (T_TOT, every[..., P_TOT], "pool", "match total points")):
            check_totals("team", team[..., t_col].sum(axis=2), other, teams * x, unit)
        # a team's rounds gone out (with a Hand): its partners', one player at most in a round, so the
        # two teams' add up to the line-up's; a team's lie between the policies that sit in the team
        # only and those that sit in it at all
        only, some = self._team_policies()  # (L, 2, N) bool each
        for t_col, s_col, unit in ((T_OUT, S_OUT, "deals gone out"), (T_HAND, S_HAND, "deals with a Hand")):
            check_totals("team", team[..., t_col], "team", team[..., T_DEALS], unit, most=True)
            x = by_pol[..., s_col]  # (C, L, N)
            check_totals("team", team[..., t_col].sum(axis=2), "seat", teams * x.sum(axis=2), unit)
            low = (x[:, :, None, :] * only[None]).sum(axis=3)
            high = (x[:, :, None, :] * some[None]).sum(axis=3)
            check_at_least("team", team[..., t_col], "seat", teams[:, :, None] * low, unit)
            check_totals("team", team[..., t_col], "seat", high, unit, most=True)
        check_at_least("team", team[..., T_UNOP2], "team", team[..., T_UNOP], "squared unopened rounds")
        check_totals("team", team[..., T_UNOP2], "team", 2 * team[..., T_UNOP], "squared unopened rounds", most=True)
        for t_col, p_col, unit in ((T_M, P_M, "matches"), (T_LM, P_LM, "matches with a loss result"),
                                   (T_TM, P_TM, "matches with totals")):
            n_res = pool[:, np.arange(len(first)), first, p_col]
            check_totals("team", team[..., t_col], "pool", teams[:, :, None] * n_res[:, :, None], unit)
        check_totals("team", team[..., T_W], "team", team[..., T_M], "match wins", most=True)
        check_totals("team", team[..., T_L] + team[..., T_N], "team", team[..., T_LM], "losses and neutral matches",
                     most=True)
        check_totals("team", team[..., T_W] + team[..., T_L] + team[..., T_N], "team", team[..., T_LM],
                     "wins, losses and neutral matches", where=team[..., T_LM] == team[..., T_M])
        h = self._team_total_hist
        check_zero("team_total_hist", h, teams, "a configuration played without partnerships")
        check_spans("team_total_hist", h)
        n, s1, s2 = exact_moments(h, self._team_total_lo)
        check_totals("team_total_hist", n, "team", team[..., T_TM], "matches with totals")
        check_totals("team_total_hist", s1, "team", team[..., T_TOT], "total points")
        check_totals("team_total_hist", s2, "team", team[..., T_TOT2], "squared total points")
        if self.margin_recorded:
            h = self._team_margin_hist
            check_zero("team_margin_hist", h, teams, "a configuration played without partnerships")
            check_spans("team_margin_hist", h)
            n, s1, _ = exact_moments(h, self._team_margin_lo)
            check_totals("team_margin_hist", n, "team", team[:, :, 0, T_TM], "matches with totals")
            check_totals("team_margin_hist", s1, "team", team[:, :, 0, T_TOT] - team[:, :, 1, T_TOT], "margin points")
        # paired comparisons: a difference's sum is the difference of the two sums it compares
        diffs = ((1, by_pol[..., S_SCORE], "points"), (3, by_pol[..., S_OUT], "rounds gone out"),
                 (5, by_pol[..., S_HAND], "Hands"), (7, by_pol[..., S_UNOPENED], "unopened rounds"))
        for q, (c1, c2, _) in enumerate(self.pairs):
            for col, x, unit in diffs:
                check_totals("pair", self._pair[q, ..., col], "seat", x[c2] - x[c1], f"{unit} of the difference")
                if col == 7:  # a difference of counts: |d| <= k, so d^2 <= k |d|
                    check_totals("pair", self._pair[q, ..., col + 1], "seat", k * (x[c1] + x[c2]),
                                 f"squared {unit} of the difference", most=True)
                elif col > 1:  # of two 0/1 counts (one player goes out): d^2 = |d| = x + y - 2 xy
                    check_totals("pair", self._pair[q, ..., col + 1], "seat", x[c1] + x[c2],
                                 f"squared {unit} of the difference", most=True)
                    check_parity("pair", self._pair[q, ..., col + 1], "seat", x[c1] + x[c2],
                                 f"squared {unit} of the difference")
        # squares of differences and of partners' sums: (x - y)^2 <= 2 (x^2 + y^2), and one
        # position's (or partner's) score squared is at most the sum of squares over the seats
        # its policy holds in that deal
        t2 = pool[..., P_TSUM2]
        for q, (c1, c2, _) in enumerate(self.pairs):
            check_totals("pair", self._pair[q, ..., 2], "pool", 2 * (t2[c1] + t2[c2]),
                         "squared points of the difference", most=True)
        ss = by_pol[..., S_SCORE2]  # (C, L, N)
        check_totals("team", team[..., T_SUM2].sum(axis=2), "seat", 2 * ss.sum(axis=2), "squared points", most=True)
        tsum = pool[..., P_TSUM]
        for l, names in enumerate(self._names):
            for ja, jb in itertools.combinations(range(len(names)), 2):
                a, b = names[ja], names[jb]
                want = k[l, b] * tsum[:, l, a] - k[l, a] * tsum[:, l, b]
                check_totals("versus", self._versus[:, l, a, b, 1], "pool", want, "points of the contrast")
                want = 2 * (k[l, b] ** 2 * t2[:, l, a] + k[l, a] ** 2 * t2[:, l, b])
                check_totals("versus", self._versus[:, l, a, b, 2], "pool", want, "squared points of the contrast",
                             most=True)
        for q, (l1, l2, j) in enumerate(self.lineup_diffs):
            g1, g2 = self.policies.index(self.lineups[l1][j]), self.policies.index(self.lineups[l2][j])
            lp = self._lpair[:, q]
            ti = j % 2  # the team of position j (positions 1 & 3 form team A)
            check_zero("lpair", lp[:, [LP_TS, LP_TS2, LP_TTOT, LP_TTOT2]], teams[:, 0], "a configuration played "
                       "without partnerships")
            check_totals("lpair", lp[:, LP_TS], "team", team[:, l1, ti, T_SUM] - team[:, l2, ti, T_SUM],
                         "points of the team difference")
            tot2 = by_pol[..., S_TOTAL2]
            for col, bound, other, unit in (
                    (LP_S2, 2 * (ss[:, l1, g1] + ss[:, l2, g2]), "seat", "squared points"),
                    (LP_TS2, 2 * (team[:, l1, ti, T_SUM2] + team[:, l2, ti, T_SUM2]), "team", "squared team points"),
                    (LP_TOT2, 2 * (tot2[:, l1, g1] + tot2[:, l2, g2]), "seat", "squared total points"),
                    (LP_TTOT2, 2 * (team[:, l1, ti, T_TOT2] + team[:, l2, ti, T_TOT2]), "team",
                     "squared team total points"),
                    (LP_W2, lp[:, LP_WM], "lpair", "squared match wins"), (LP_L2, lp[:, LP_LM], "lpair",
                                                                            "squared match losses")):
                check_totals("lpair", lp[:, col], other, bound, f"{unit} of the difference", most=True)
            for col, col2, unit in ((LP_W, LP_W2, "match wins"), (LP_L, LP_L2, "match losses")):
                # a difference of two 0/1 results: d^2 = |d|, of the parity of d
                check_parity("lpair", lp[:, col2], "lpair", lp[:, col], f"squared {unit} of the difference")
            # line-ups compared play the same matches (_check_lineup_pairs): every match of each is compared
            for col, p_col, unit in ((LP_M, P_TM, "matches with totals compared"), (LP_WM, P_M, "matches compared"),
                                     (LP_LM, P_LM, "matches with a loss result compared")):
                for l, g in ((l1, g1), (l2, g2)):
                    check_totals("lpair", lp[:, col], "pool", pool[:, l, g, p_col], unit)
            check_totals("lpair", lp[:, LP_TTOT], "team", team[:, l1, ti, T_TOT] - team[:, l2, ti, T_TOT],
                         "total points of the team difference", where=team[:, l1, ti, T_TM] == lp[:, LP_M])
            if k[l1, g1] == 1 and k[l2, g2] == 1:  # one position each: the policy's sums are the position's
                for col, p_col, unit in ((LP_S, P_TSUM, "points"), (LP_TOT, P_TOT, "total points"),
                                         (LP_W, P_W, "match wins"), (LP_L, P_L, "match losses")):
                    check_totals("lpair", lp[:, col], "pool", pool[:, l1, g1, p_col] - pool[:, l2, g2, p_col],
                                 f"{unit} of the difference")
        # rounds that end with a joker in hand
        if self.joker_recorded:
            js = self._joker_seat
            check_totals("joker_seat", js, "seat", rounds, "rounds", most=True)
            jp = js.sum(axis=3)  # (C, L, N)
            check_at_least("joker_pool", self._joker_pool, "joker_seat", jp, "squared rounds")
            check_totals("joker_pool", self._joker_pool, "joker_seat", kk * jp, "squared rounds", most=True)
            check_parity("joker_pool", self._joker_pool, "joker_seat", jp, "squared rounds")
            jt = self._joker_team
            check_zero("joker_team", jt, teams, "a configuration played without partnerships")
            check_totals("joker_team", jt[..., 0].sum(axis=2), "joker_seat", teams * jp.sum(axis=2), "rounds")
            check_at_least("joker_team", jt[..., 1], "joker_team", jt[..., 0], "squared rounds")
            check_totals("joker_team", jt[..., 1], "joker_team", 2 * jt[..., 0], "squared rounds", most=True)
            check_zero("joker_pair", self._joker_pair, used[None], "a policy that is not in its line-up")
            for q, (c1, c2, _) in enumerate(self.pairs):
                check_totals("joker_pair", self._joker_pair[q, ..., 0], "joker_seat", jp[c2] - jp[c1],
                             "rounds of the difference")
                check_totals("joker_pair", self._joker_pair[q, ..., 1], "joker_seat", k * (jp[c1] + jp[c2]),
                             "squared rounds of the difference", most=True)

    def _team_policies(self) -> tuple[np.ndarray, np.ndarray]:
        """``(only, some)``, both ``ndarray(bool, shape=(L, 2, N))``: whether policy ``g`` of line-up
        ``l`` sits at team ``t``'s positions only (:data:`TEAMS`), and at one of them at least."""
        L, N = len(self.lineups), len(self.policies)
        only = np.zeros((L, len(TEAMS), N), dtype=bool)
        some = np.zeros((L, len(TEAMS), N), dtype=bool)
        for l, lu in enumerate(self.lineups):
            for ti, (_, pos) in enumerate(TEAMS):
                inside = {self.policies.index(lu[p]) for p in pos if p < len(lu)}
                outside = {self.policies.index(lu[p]) for p in range(len(lu)) if p not in pos}
                for g in inside:
                    some[l, ti, g] = True
                    only[l, ti, g] = g not in outside
        return only, some

    def _merge_extra(self, other: "StudyAccumulator") -> None:
        for name in JOKER_ARRAYS:
            getattr(self, "_" + name)[...] += getattr(other, "_" + name)
        self.joker_recorded = self.joker_recorded and other.joker_recorded
        self.margin_recorded = self.margin_recorded and other.margin_recorded
        for name, lo_name, _ in self._HISTS + (MARGIN_HIST,):
            h = getattr(other, "_" + name)
            w = h.shape[-1]
            if not w:
                continue
            lo = getattr(other, "_" + lo_name)
            mine, mine_lo = grow_last(getattr(self, "_" + name), getattr(self, "_" + lo_name), lo, lo + w - 1)
            off = lo - mine_lo
            mine[..., off:off + w] += h
            setattr(self, "_" + name, mine)
            setattr(self, "_" + lo_name, mine_lo)

    # ------------------------------------------------------------------ results

    def write_report(self, out_dir, run_info: Mapping[str, Any] | None = None, **kwargs):
        """Write the tables, figures and report of the current results (see
        :func:`handsim.games.hand.report.write_report`; keyword arguments such as ``formats`` are passed on)."""
        from . import report

        return report.write_report(out_dir, self.summary(), self.paired(), self.histograms(),
                                   dict(run_info or {}), versus=self.versus(), lineup_pairs=self.lineup_pairs(),
                                   totals=self.total_quantiles(), **kwargs)
