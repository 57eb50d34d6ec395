"""Streaming statistics of a Russian Hand study: exact integer accumulators, tables with 95% CIs.

A game of Russian Hand has a winner (or is a draw) instead of points (RULES.md §8), so its
statistics are win and draw rates, what is left in the hands at the end, game length and how
often the stock runs out.  As for classic Hand (:mod:`handsim.games.hand.stats`), the accumulator keeps
only integer sums whose size does not depend on the number of games: checkpoints are exact,
chunks may be added or merged in any order with byte-identical results, and floats appear only
in the DataFrames it returns.

Seats are numbered in playing order: seat 0 plays first.  Line-up positions rotate over the
seats from game to game (position ``j`` sits at seat ``(j + i) % P`` in game ``i``).

Statistical units (as in :mod:`handsim.games.hand.tables`)
-----------------------------------------------------------
* Per seat (``seat`` = ``"0"`` .. ``"P-1"``): one observation per game in which the policy sat
  in that seat; proportions get Wilson 95% intervals, means Student-t intervals.
* ``seat == "all"``: the unit is the game.  A policy holding ``k`` seats of a line-up
  contributes the mean of its ``k`` outcomes per game (for ``k == 1`` a proportion gets the
  Wilson interval; for ``k > 1`` a t interval over the per-game means, clipped to [0, 1]).
* Paired differences (configurations that differ in one option), policy contrasts within a
  line-up and line-up contrasts (line-ups that differ in one position) are per-game
  differences on the same games (common random numbers), Student-t intervals.

A *win* is a game the player won: by emptying the hand, or on a stock-out with the fewest
cards (then the lowest card value).  A *draw* is a stock-out game that ended level: the players
tied for first each count a draw (``draw_rate``); the share of games that ended so is
``draw_game_rate``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from handsim.stats.counters import Accumulator, add_sums, check_at_least, check_parity, check_totals, exact_moments
from handsim.stats.intervals import hist_quantiles, moments, proportion, t_pvalue, wilson

from .kernels.state import END_OUT, END_STOCK_DRAW, FLAG_DREW, FLAG_OUT, FLAG_WON

__all__ = ["GameBlock", "RussianAccumulator", "METRICS"]

_STATE_FORMAT = 1
_KIND = "russian"

# per (config, line-up, policy, seat): games, wins, draws, went out, cards, cards^2, value,
# value^2, turns, stock-outs
_S_GAMES, _S_WON, _S_DREW, _S_OUT, _S_CARDS, _S_CARDS2, _S_VALUE, _S_VALUE2, _S_TURNS, _S_STOCK = range(10)
_NS = 10
# per (config, line-up, policy), sums over games of the per-game sums over its k seats:
# games, wins^2, draws^2, outs^2, cards, cards^2, value, value^2
_P_GAMES, _P_WON2, _P_DREW2, _P_OUT2, _P_CARDS, _P_CARDS2, _P_VALUE, _P_VALUE2 = range(8)
_NP = 8
# per (config, line-up): games, turns, turns^2, stock-outs, drawn games
_C_GAMES, _C_TURNS, _C_TURNS2, _C_STOCK, _C_DRAWN = range(5)
_NC = 5
# per (config, line-up, seat) over every policy: games, wins, draws, cards, cards^2
_Z_GAMES, _Z_WON, _Z_DREW, _Z_CARDS, _Z_CARDS2 = range(5)
_NZ = 5

#: The per-game quantities compared in paired, policy and line-up contrasts: name, unit.
METRICS = (("win", "share"), ("draw", "share"), ("cards_left", "cards"), ("value_left", "points"))
_NM = len(METRICS)
_NQ = 1 + 2 * _NM  # games, then (sum, sum of squares) per metric


class GameBlock(NamedTuple):
    """Per-game results of ``n`` games of one (configuration, line-up), by seat (seat 0 plays first).

    Attributes
    ----------
    deal : ndarray(int64, shape=(n,))
        Game indices (the same, in the same order, for every block of one chunk).
    policy : ndarray(int8, shape=(n, P))
        Line-up position of the policy in each seat; every row a permutation of ``0..P-1``.
    flags : ndarray(uint8, shape=(n, P))
        Bit 0 won, bit 1 drew (tied for first in a drawn game), bit 2 emptied the hand.
    cards : ndarray(int8, shape=(n, P))
        Cards left in each hand at the end.
    value : ndarray(int16, shape=(n, P))
        Their value in points (RULES.md §1, Ace ``ace_value``).
    turns : ndarray(int16, shape=(n,))
        Turns the game lasted.
    end : ndarray(uint8, shape=(n,))
        0: a player emptied the hand; 1: the stock ran out and one player won; 2: the stock ran
        out and the game was drawn.
    """

    deal: np.ndarray
    policy: np.ndarray
    flags: np.ndarray
    cards: np.ndarray
    value: np.ndarray
    turns: np.ndarray
    end: np.ndarray


class RussianAccumulator(Accumulator):
    """Exact streaming statistics of a Russian Hand study (configurations x line-ups x policies x seats).

    Parameters
    ----------
    configs : list of dict
        ``configs[c]`` maps each varying option to its value in configuration ``c``.
    lineups : list of tuple of str
        Policy labels by line-up position (``P`` each); a label may appear several times.
    players : int
        Seats per game, ``P`` (2..5).
    varying : list of str
        Names of the options that vary, in the order of the output columns.

    Raises
    ------
    ValueError
        Empty lists, a line-up of the wrong length, a config lacking a varying option, two
        configs alike, an option not in ``varying`` whose value differs, or a name listed twice
        in ``varying`` (as :class:`handsim.stats.counters.Accumulator`, whose are the study's
        shape, adding chunks, the state and merging).
    """

    def __init__(self, configs: Sequence[Mapping[str, Any]], lineups: Sequence[Sequence[str]], players: int,
                 varying: Sequence[str]):
        super().__init__(configs, lineups, players, varying)
        C, L, N, P = len(self.configs), len(self.lineups), len(self.policies), self.players
        self._seat = np.zeros((C, L, N, P, _NS), dtype=np.int64)
        self._pool = np.zeros((C, L, N, _NP), dtype=np.int64)
        self._cl = np.zeros((C, L, _NC), dtype=np.int64)
        self._seatz = np.zeros((C, L, P, _NZ), dtype=np.int64)
        self._pair = np.zeros((len(self.pairs), L, N, _NQ), dtype=np.int64)
        self._versus = np.zeros((C, L, N, N, _NQ), dtype=np.int64)
        self._lpair = np.zeros((C, len(self.lineup_diffs), _NQ), dtype=np.int64)

    # ------------------------------------------------------------------ adding results

    def _prepare(self, c: int, l: int, b: GameBlock) -> dict[str, Any]:
        C, L, P = len(self.configs), len(self.lineups), self.players
        if not (0 <= int(c) < C) or not (0 <= int(l) < L):
            raise ValueError(f"block ({c}, {l}) out of range: {C} configs, {L} line-ups")
        c, l = int(c), int(l)
        where = f"block (config {c}, line-up {l})"
        deal = np.asarray(b.deal)
        n = deal.shape[0]
        arrs = {}
        for name in ("policy", "flags", "cards", "value"):
            x = np.asarray(getattr(b, name))
            if x.shape != (n, P) or not np.issubdtype(x.dtype, np.integer):
                raise ValueError(f"{where}: field {name} must be integers of shape ({n}, {P}), got {x.dtype} {x.shape}")
            arrs[name] = x.astype(np.int64)
        for name in ("turns", "end"):
            x = np.asarray(getattr(b, name))
            if x.shape != (n,) or not np.issubdtype(x.dtype, np.integer):
                raise ValueError(f"{where}: field {name} must be integers of shape ({n},), got {x.dtype} {x.shape}")
            arrs[name] = x.astype(np.int64)
        policy = arrs["policy"].astype(np.intp)
        if n and not np.array_equal(np.sort(policy, axis=1), np.broadcast_to(np.arange(P), (n, P))):
            raise ValueError(f"{where}: every row of policy must be a permutation of the line-up positions 0..{P - 1}")
        if n and (arrs["turns"].min() < 0 or not np.isin(arrs["end"], (0, 1, 2)).all()):
            raise ValueError(f"{where}: negative turns or an end code other than 0, 1, 2")
        if n and min(arrs["cards"].min(), arrs["value"].min()) < 0:
            raise ValueError(f"{where}: negative cards or card values left")
        flags = arrs["flags"]
        won = (flags & FLAG_WON) != 0
        drew = (flags & FLAG_DREW) != 0
        out = (flags & FLAG_OUT) != 0
        cards, value = arrs["cards"], arrs["value"]
        local = self._pos_local[l][policy]
        nl = len(self._names[l])
        # per-game sums over each policy's seats: win, draw, cards left, value left; went out
        sums = np.zeros((_NM + 1, n, nl), dtype=np.int64)
        for j in range(nl):
            m = local == j
            sums[0, :, j] = (m & won).sum(axis=1)
            sums[1, :, j] = (m & drew).sum(axis=1)
            sums[2, :, j] = np.where(m, cards, 0).sum(axis=1)
            sums[3, :, j] = np.where(m, value, 0).sum(axis=1)
            sums[4, :, j] = (m & out).sum(axis=1)
        seat_of_pos = np.argsort(policy, axis=1, kind="stable")
        per_pos = np.stack([np.take_along_axis(x, seat_of_pos, axis=1) for x in (won, drew, cards, value)])
        return {"c": c, "l": l, "n": n, "deal": deal, "local": local, "won": won, "drew": drew, "out": out,
                "cards": cards, "value": value, "turns": arrs["turns"], "end": arrs["end"], "sums": sums,
                "per_pos": per_pos.astype(np.int64)}

    def _apply(self, b: dict[str, Any]) -> None:
        c, l, n, P = b["c"], b["l"], b["n"], self.players
        if n == 0:
            return
        names = self._names[l]
        local, turns, end = b["local"], b["turns"], b["end"]
        stock = end != END_OUT
        for j, g in enumerate(names):
            for s in range(P):
                m = local[:, s] == j
                acc = self._seat[c, l, g, s]
                acc[_S_GAMES] += int(m.sum())
                acc[_S_WON] += int(b["won"][m, s].sum())
                acc[_S_DREW] += int(b["drew"][m, s].sum())
                acc[_S_OUT] += int(b["out"][m, s].sum())
                add_sums(acc, _S_CARDS, _S_CARDS2, b["cards"][m, s])
                add_sums(acc, _S_VALUE, _S_VALUE2, b["value"][m, s])
                acc[_S_TURNS] += int(turns[m].sum())
                acc[_S_STOCK] += int(stock[m].sum())
            pool = self._pool[c, l, g]
            pool[_P_GAMES] += n
            for mi, idx in ((0, _P_WON2), (1, _P_DREW2), (4, _P_OUT2)):
                x = b["sums"][mi, :, j]
                pool[idx] += int((x * x).sum())
            add_sums(pool, _P_CARDS, _P_CARDS2, b["sums"][2, :, j])
            add_sums(pool, _P_VALUE, _P_VALUE2, b["sums"][3, :, j])
        k = self._k[l]
        for ja, jb in itertools.combinations(range(len(names)), 2):
            v = self._versus[c, l, names[ja], names[jb]]
            v[0] += n
            for mi in range(_NM):
                d = k[jb] * b["sums"][mi, :, ja] - k[ja] * b["sums"][mi, :, jb]
                add_sums(v, 1 + 2 * mi, 2 + 2 * mi, d)
        cl = self._cl[c, l]
        cl[_C_GAMES] += n
        add_sums(cl, _C_TURNS, _C_TURNS2, turns)
        cl[_C_STOCK] += int(stock.sum())
        cl[_C_DRAWN] += int((end == END_STOCK_DRAW).sum())
        for s in range(P):
            z = self._seatz[c, l, s]
            z[_Z_GAMES] += n
            z[_Z_WON] += int(b["won"][:, s].sum())
            z[_Z_DREW] += int(b["drew"][:, s].sum())
            add_sums(z, _Z_CARDS, _Z_CARDS2, b["cards"][:, s])
        width = int(turns.max()) + 1
        self._grow_turns(width)
        width = self._turns_hist.shape[2]
        self._turns_hist[c, l] += np.bincount(turns, minlength=width)
        self._stock_hist[c, l] += np.bincount(turns[stock], minlength=width)

    def _add_lineup_pair(self, c: int, q: int, j: int, ba: dict[str, Any], bb: dict[str, Any]) -> None:
        acc = self._lpair[c, q]
        acc[0] += ba["n"]
        for mi in range(_NM):
            add_sums(acc, 1 + 2 * mi, 2 + 2 * mi, ba["per_pos"][mi][:, j] - bb["per_pos"][mi][:, j])

    # ------------------------------------------------------------------ checkpoint / merge

    FORMAT = _STATE_FORMAT
    KIND = _KIND
    KIND_TEXT = "a Russian Hand study"
    UNIT = "games"
    ROWS = "games"
    ARRAYS = ("seat", "pool", "cl", "seatz", "pair", "versus", "lpair")
    TURN_HISTS = ("turns_hist", "stock_hist")
    N_PAIRED = _NM
    # value checks of a saved state (:func:`~handsim.stats.counters.check_counters`): signed columns and
    # (sum, squares) pairs
    _DIFFS = (tuple(range(1, _NQ, 2)), tuple((i, i + 1) for i in range(1, _NQ, 2)))
    LAYOUT = {
        "seat": ((), ((_S_CARDS, _S_CARDS2), (_S_VALUE, _S_VALUE2))),
        "pool": ((), ((_P_CARDS, _P_CARDS2), (_P_VALUE, _P_VALUE2))),
        "cl": ((), ((_C_TURNS, _C_TURNS2),)),
        "seatz": ((), ((_Z_CARDS, _Z_CARDS2),)),
        "pair": _DIFFS, "versus": _DIFFS, "lpair": _DIFFS,
        "turns_hist": ((), ()), "stock_hist": ((), ()),
    }

    MOMENTS = {
        "seat": ((_S_GAMES, _S_CARDS, _S_CARDS2), (_S_GAMES, _S_VALUE, _S_VALUE2)),
        "pool": ((_P_GAMES, _P_CARDS, _P_CARDS2), (_P_GAMES, _P_VALUE, _P_VALUE2)),
        "cl": ((_C_GAMES, _C_TURNS, _C_TURNS2),),
        "seatz": ((_Z_GAMES, _Z_CARDS, _Z_CARDS2),),
        "pair": tuple((0, i, i + 1) for i in range(1, _NQ, 2)),
        "versus": tuple((0, i, i + 1) for i in range(1, _NQ, 2)),
        "lpair": tuple((0, i, i + 1) for i in range(1, _NQ, 2)),
    }

    def _check_totals(self) -> None:
        """Check every relation between the counters of a state read from a checkpoint (a study's:
        every chunk added whole), ValueError naming both arrays and the first count that disagrees.

        Exact: a games, wins, draws, cards, points or turns count that two arrays hold (per policy
        over its seats, per seat over the policies sitting there, the length histogram's count,
        sum and sum of squares, a paired difference's sum from the two configurations' or
        line-ups' sums, a policy contrast's sum from the two policies' sums).  One player wins a
        game that is not drawn and none a drawn one, one goes out (and wins) in a game without
        a stock-out (RULES.md section 8): a line-up's wins are its games less the drawn ones,
        its outs its games less the stock-outs, a policy's per-game wins (outs) are 0 or 1, so
        their sum of squares is their sum, a policy contrast's squared wins follow from the two
        policies' wins, and a paired difference's squared wins (each -1, 0 or 1) have the
        parity of its wins and do not exceed the wins compared.  Bounds: counts within the
        games they are counted in, outs within the wins, two draws at least in a drawn game,
        a per-game count's sum of squares between its sum and ``k`` times it (``k`` the
        policy's seats; equal for one); every sum of squares of the parity of its sum (within an
        array: :func:`~handsim.stats.counters.check_counters`).  Only what depends on how the
        results fall within a game is not determined: the sums of squares of per-game sums of
        cards and points over several seats and of differences, and the differences of a line-up
        position whose policy holds several positions.
        """
        self._check_cells()
        used, k = self._present()
        kk = k[None]
        games = self._cl[:, :, _C_GAMES]
        th = self._turns_hist
        n, s1, s2 = exact_moments(th)
        check_totals("turns_hist", s1, "cl", self._cl[:, :, _C_TURNS], "turns")
        check_totals("turns_hist", s2, "cl", self._cl[:, :, _C_TURNS2], "squared turns")
        check_totals("stock_hist", self._stock_hist, "turns_hist", th, "stock-outs of a length", most=True)
        check_totals("stock_hist", self._stock_hist.sum(axis=2), "cl", self._cl[:, :, _C_STOCK], "stock-outs")
        check_totals("cl", self._cl[:, :, _C_STOCK], "cl", games, "stock-outs", most=True)
        check_totals("cl", self._cl[:, :, _C_DRAWN], "cl", self._cl[:, :, _C_STOCK], "drawn games", most=True)
        seat = self._seat
        for col, unit in ((_S_WON, "wins"), (_S_DREW, "draws"), (_S_OUT, "games gone out"), (_S_STOCK, "stock-outs")):
            check_totals("seat", seat[..., col], "seat", seat[..., _S_GAMES], unit, most=True)
        for col, c_col, unit in ((_S_TURNS, _C_TURNS, "turns"), (_S_STOCK, _C_STOCK, "stock-outs")):
            check_totals("seat", seat[..., col].sum(axis=2), "cl", self._cl[:, :, c_col, None], f"{unit} in a seat")
        z = self._seatz
        check_totals("seatz", z[..., _Z_GAMES], "cl", games[:, :, None], "games")
        for col, z_col, unit in ((_S_WON, _Z_WON, "wins"), (_S_DREW, _Z_DREW, "draws"), (_S_CARDS, _Z_CARDS, "cards"),
                                 (_S_CARDS2, _Z_CARDS2, "squared cards")):
            check_totals("seatz", z[..., z_col], "seat", seat[..., col].sum(axis=2), f"{unit} in a seat")
        by_pol = seat.sum(axis=3)  # (C, L, N, NS)
        pool = self._pool
        for p_col, s_col, unit in ((_P_CARDS, _S_CARDS, "cards"), (_P_VALUE, _S_VALUE, "points")):
            check_totals("pool", pool[..., p_col], "seat", by_pol[..., s_col], unit)
        # RULES.md section 8: a game ends when one player empties the hand (goes out and wins), or at
        # a stock-out, which one player wins or two or more draw (tied for first): one winner in a
        # game that is not drawn, none in a drawn one, one player gone out in a game without a
        # stock-out; so a policy's per-game count of wins (of outs) over its seats is 0 or 1 and its
        # square is the count itself
        check_totals("seat", seat[..., _S_OUT], "seat", seat[..., _S_WON], "games gone out (each a win)", most=True)
        cl = self._cl
        for s_col, want, unit in ((_S_WON, games - cl[:, :, _C_DRAWN], "wins (one in each game not drawn)"),
                                  (_S_OUT, games - cl[:, :, _C_STOCK], "games gone out (one in each game "
                                                                      "without a stock-out)")):
            check_totals("seat", by_pol[..., s_col].sum(axis=2), "cl", want, unit)
        draws = by_pol[..., _S_DREW].sum(axis=2)
        check_at_least("seat", draws, "cl", 2 * cl[:, :, _C_DRAWN], "draws (two or more in a drawn game)")
        check_totals("seat", draws, "cl", self.players * cl[:, :, _C_DRAWN], "draws (none in a game not drawn)",
                     most=True)
        for p_col, s_col, unit in ((_P_WON2, _S_WON, "wins"), (_P_OUT2, _S_OUT, "games gone out")):
            check_totals("pool", pool[..., p_col], "seat", by_pol[..., s_col], f"squared {unit} (each 0 or 1)")
        check_at_least("pool", pool[..., _P_DREW2], "seat", by_pol[..., _S_DREW], "squared draws")
        check_totals("pool", pool[..., _P_DREW2], "seat", kk * by_pol[..., _S_DREW], "squared draws", most=True)
        check_parity("pool", pool[..., _P_DREW2], "seat", by_pol[..., _S_DREW], "squared draws")
        # cards and points left are never negative: a per-game sum over k seats squared lies between
        # the sum of the squares and k times it
        for p_col, s_col, unit in ((_P_CARDS2, _S_CARDS2, "squared cards"), (_P_VALUE2, _S_VALUE2, "squared points")):
            check_at_least("pool", pool[..., p_col], "seat", by_pol[..., s_col], unit)
            check_totals("pool", pool[..., p_col], "seat", kk * by_pol[..., s_col], unit, most=True)
        # the metrics compared, per policy: wins, draws, cards left, points left
        x = (by_pol[..., _S_WON], by_pol[..., _S_DREW], pool[..., _P_CARDS], pool[..., _P_VALUE])
        units = ("wins", "draws", "cards", "points")
        for q, (c1, c2, _) in enumerate(self.pairs):
            for mi, unit in enumerate(units):
                check_totals("pair", self._pair[q, ..., 1 + 2 * mi], "seat", x[mi][c2] - x[mi][c1],
                             f"{unit} of the difference")
                if mi == 0:  # of two 0/1 counts (one winner at most): d^2 = |d| = x + y - 2 xy
                    check_totals("pair", self._pair[q, ..., 2], "seat", x[0][c1] + x[0][c2],
                                 "squared wins of the difference", most=True)
                    check_parity("pair", self._pair[q, ..., 2], "seat", x[0][c1] + x[0][c2],
                                 "squared wins of the difference")
                elif mi == 1:  # a difference of counts: |d| <= k, so d^2 <= k |d|
                    check_totals("pair", self._pair[q, ..., 2 + 2 * mi], "seat", k * (x[mi][c1] + x[mi][c2]),
                                 f"squared {unit} of the difference", most=True)
        # squares of differences: (x - y)^2 <= 2 (x^2 + y^2); a position's value squared is at most
        # the sum of squares over the seats its policy holds in that game
        x2 = (pool[..., _P_WON2], pool[..., _P_DREW2], pool[..., _P_CARDS2], pool[..., _P_VALUE2])
        s2 = (by_pol[..., _S_WON], by_pol[..., _S_DREW], by_pol[..., _S_CARDS2], by_pol[..., _S_VALUE2])
        for q, (c1, c2, _) in enumerate(self.pairs):
            for mi, unit in enumerate(units):
                check_totals("pair", self._pair[q, ..., 2 + 2 * mi], "pool", 2 * (x2[mi][c1] + x2[mi][c2]),
                             f"squared {unit} of the difference", most=True)
        for l, names in enumerate(self._names):
            for ja, jb in itertools.combinations(range(len(names)), 2):
                a, b = names[ja], names[jb]
                for mi, unit in enumerate(units):
                    want = k[l, b] * x[mi][:, l, a] - k[l, a] * x[mi][:, l, b]
                    check_totals("versus", self._versus[:, l, a, b, 1 + 2 * mi], "seat", want,
                                 f"{unit} of the contrast")
                    if mi == 0:  # one winner at most: d is k_b (a won), -k_a (b won) or 0
                        want = k[l, b] ** 2 * x[0][:, l, a] + k[l, a] ** 2 * x[0][:, l, b]
                        check_totals("versus", self._versus[:, l, a, b, 2], "seat", want,
                                     "squared wins of the contrast")
                        continue
                    want = 2 * (k[l, b] ** 2 * x2[mi][:, l, a] + k[l, a] ** 2 * x2[mi][:, l, b])
                    check_totals("versus", self._versus[:, l, a, b, 2 + 2 * mi], "pool", want,
                                 f"squared {unit} of the contrast", most=True)
        for q, (l1, l2, j) in enumerate(self.lineup_diffs):
            g1, g2 = self.policies.index(self.lineups[l1][j]), self.policies.index(self.lineups[l2][j])
            for mi, unit in enumerate(units):
                check_totals("lpair", self._lpair[:, q, 2 + 2 * mi], "seat", 2 * (s2[mi][:, l1, g1] + s2[mi][:, l2, g2]),
                             f"squared {unit} of the difference", most=True)
            # a position's wins: 0 or 1 in a game, a difference of -1, 0 or 1 (d^2 = |d|, of d's parity)
            check_totals("lpair", self._lpair[:, q, 2], "seat", s2[0][:, l1, g1] + s2[0][:, l2, g2],
                         "squared wins of the difference", most=True)
            check_parity("lpair", self._lpair[:, q, 2], "lpair", self._lpair[:, q, 1], "squared wins of the difference")
            if k[l1, g1] == 1 and k[l2, g2] == 1:  # one position each: the policy's sums are the position's
                for mi, unit in enumerate(units):
                    check_totals("lpair", self._lpair[:, q, 1 + 2 * mi], "seat", x[mi][:, l1, g1] - x[mi][:, l2, g2],
                                 f"{unit} of the difference")

    # ------------------------------------------------------------------ tables

    #: The per-game quantities compared in paired, policy and line-up contrasts: name, unit.
    METRICS = METRICS

    #: Columns of :meth:`summary` after the varying options.
    SUMMARY_COLUMNS = (
        "lineup", "policy", "seat", "games", "deals", "fair_share",
        "win_rate", "win_rate_ci95_low", "win_rate_ci95_high",
        "draw_rate", "draw_rate_ci95_low", "draw_rate_ci95_high",
        "out_rate", "out_rate_ci95_low", "out_rate_ci95_high",
        "mean_cards_left", "cards_left_ci95_low", "cards_left_ci95_high",
        "mean_card_value_left", "card_value_left_ci95_low", "card_value_left_ci95_high",
        "mean_turns", "stock_out_rate", "stock_out_rate_ci95_low", "stock_out_rate_ci95_high",
        "draw_game_rate", "draw_game_rate_ci95_low", "draw_game_rate_ci95_high",
    )

    def summary(self) -> pd.DataFrame:
        """One row per configuration x line-up x policy x seat (``"all"`` first, then ``"0"`` ..
        ``"P-1"``; seat 0 plays first).

        Returns
        -------
        pandas.DataFrame
            Columns: every varying option; ``lineup``; ``policy``; ``seat``; ``games``
            (player-games observed: for ``"all"`` ``k`` times the games of a policy holding ``k``
            seats); ``deals`` (games); ``fair_share`` (1 / players: the win rate of a seat if
            every seat were equal); ``win_rate``, ``draw_rate`` (tied for first in a drawn
            game), ``out_rate`` (emptied the hand), each with ``*_ci95_low/high``;
            ``mean_cards_left`` (cards in hand at the end) and ``mean_card_value_left`` (their
            points) with t intervals; ``mean_turns`` (game length in turns); per configuration
            and line-up: ``stock_out_rate`` (games ended by the stock running out) and
            ``draw_game_rate`` (games drawn), Wilson intervals over games (per seat: over the
            games the policy sat there).
        """
        P = self.players
        rows: list[dict] = []
        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                cl = [int(x) for x in self._cl[c, l]]
                G = cl[_C_GAMES]
                if G == 0:
                    continue
                drawn = (cl[_C_DRAWN] / G, *wilson(cl[_C_DRAWN], G))
                for j, g in enumerate(self._names[l]):
                    k = int(self._k[l][j])
                    seat_acc = self._seat[c, l, g]
                    tot = [int(x) for x in seat_acc.sum(axis=0)]
                    pool = [int(x) for x in self._pool[c, l, g]]
                    D = pool[_P_GAMES]
                    row = self._row(c, lu, self.policies[g], "all", tot[_S_GAMES], D)
                    row.update(self._rates(
                        proportion(k, D, tot[_S_WON], pool[_P_WON2]), proportion(k, D, tot[_S_DREW], pool[_P_DREW2]),
                        proportion(k, D, tot[_S_OUT], pool[_P_OUT2]),
                        moments(D, pool[_P_CARDS], pool[_P_CARDS2], scale=k),
                        moments(D, pool[_P_VALUE], pool[_P_VALUE2], scale=k),
                        cl[_C_TURNS] / G, (cl[_C_STOCK] / G, *wilson(cl[_C_STOCK], G)), drawn))
                    rows.append(row)
                    for s in range(P):
                        a = [int(x) for x in seat_acc[s]]
                        n = a[_S_GAMES]
                        row = self._row(c, lu, self.policies[g], str(s), n, n)
                        row.update(self._rates(
                            proportion(1, n, a[_S_WON], 0), proportion(1, n, a[_S_DREW], 0), proportion(1, n, a[_S_OUT], 0),
                            moments(n, a[_S_CARDS], a[_S_CARDS2]), moments(n, a[_S_VALUE], a[_S_VALUE2]),
                            a[_S_TURNS] / n if n else math.nan,
                            (a[_S_STOCK] / n if n else math.nan, *wilson(a[_S_STOCK], n)), drawn))
                        rows.append(row)
        return self._frame(rows, list(self.varying) + list(self.SUMMARY_COLUMNS))

    def _row(self, c, lu, policy, seat, games, deals) -> dict:
        row = self._config_cols(c)
        row.update(lineup=",".join(lu), policy=policy, seat=seat, games=games, deals=deals,
                   fair_share=1.0 / self.players)
        return row

    @staticmethod
    def _rates(win, draw, out, cards, value, turns, stock, drawn) -> dict:
        row = {}
        for name, x in (("win_rate", win), ("draw_rate", draw), ("out_rate", out)):
            row[name], row[name + "_ci95_low"], row[name + "_ci95_high"] = x
        row["mean_cards_left"], row["cards_left_ci95_low"], row["cards_left_ci95_high"] = cards[0], cards[3], cards[4]
        row["mean_card_value_left"], row["card_value_left_ci95_low"], row["card_value_left_ci95_high"] = (
            value[0], value[3], value[4])
        row["mean_turns"] = turns
        row["stock_out_rate"], row["stock_out_rate_ci95_low"], row["stock_out_rate_ci95_high"] = stock
        row["draw_game_rate"], row["draw_game_rate_ci95_low"], row["draw_game_rate_ci95_high"] = drawn
        return row

    def seats(self) -> pd.DataFrame:
        """The seats, whatever policy sat there: one row per configuration x line-up x seat.

        Returns
        -------
        pandas.DataFrame
            Columns: every varying option, ``lineup``, ``seat`` (0 plays first), ``games``,
            ``fair_share`` (1 / players), ``win_rate`` with Wilson ``win_rate_ci95_low/high``,
            ``edge`` (``win_rate - fair_share``, with ``edge_ci95_low/high``: the seat's
            advantage in the chance to win), ``draw_rate`` with CI, ``mean_cards_left`` with a
            t interval.  In a line-up of one policy this is the seat's own effect; in a mixed
            line-up the positions rotate over the seats, so every policy sits at every seat
            equally often.
        """
        cols = list(self.varying) + ["lineup", "seat", "games", "fair_share", "win_rate", "win_rate_ci95_low",
                                     "win_rate_ci95_high", "edge", "edge_ci95_low", "edge_ci95_high", "draw_rate",
                                     "draw_rate_ci95_low", "draw_rate_ci95_high", "mean_cards_left",
                                     "cards_left_ci95_low", "cards_left_ci95_high"]
        rows = []
        fair = 1.0 / self.players
        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                for s in range(self.players):
                    z = [int(x) for x in self._seatz[c, l, s]]
                    n = z[_Z_GAMES]
                    if n == 0:
                        continue
                    lo, hi = wilson(z[_Z_WON], n)
                    dlo, dhi = wilson(z[_Z_DREW], n)
                    m = moments(n, z[_Z_CARDS], z[_Z_CARDS2])
                    row = self._config_cols(c)
                    row.update(lineup=",".join(lu), seat=s, games=n, fair_share=fair, win_rate=z[_Z_WON] / n,
                               win_rate_ci95_low=lo, win_rate_ci95_high=hi, edge=z[_Z_WON] / n - fair,
                               edge_ci95_low=lo - fair, edge_ci95_high=hi - fair, draw_rate=z[_Z_DREW] / n,
                               draw_rate_ci95_low=dlo, draw_rate_ci95_high=dhi, mean_cards_left=m[0],
                               cards_left_ci95_low=m[3], cards_left_ci95_high=m[4])
                    rows.append(row)
        return self._frame(rows, cols)

    @staticmethod
    def _metric_cols(prefix: str = "") -> list[str]:
        out = []
        for name, _ in METRICS:
            out += [f"{name}_diff", f"{name}_diff_ci95_low", f"{name}_diff_ci95_high", f"{name}_p_value"]
        return out

    @staticmethod
    def _metric_values(acc: Sequence[int], scale: int = 1) -> dict:
        D = acc[0]
        row = {}
        for mi, (name, _) in enumerate(METRICS):
            mean, _, se, lo, hi = moments(D, acc[1 + 2 * mi], acc[2 + 2 * mi], scale=scale)
            row.update({f"{name}_diff": mean, f"{name}_diff_ci95_low": lo, f"{name}_diff_ci95_high": hi,
                        f"{name}_p_value": t_pvalue(mean, se, D)})
        return row

    def paired(self) -> pd.DataFrame:
        """Configurations that differ in one option, compared on the same games: per line-up and
        policy, the per-game difference (second value minus first) of the policy's win share,
        draw share, cards left and their value (mean over its seats).

        Returns
        -------
        pandas.DataFrame
            Columns ``lineup``, ``policy``, ``parameter``, ``from_value``, ``to_value``, every
            varying option (missing for ``parameter``), ``deals`` (games), then for each of
            ``win``, ``draw`` (differences of probabilities), ``cards_left`` (cards) and
            ``value_left`` (points): ``<name>_diff`` with ``_ci95_low/high`` (Student-t over
            games) and ``<name>_p_value``.
        """
        cols = ["lineup", "policy", "parameter", "from_value", "to_value"] + list(self.varying) + ["deals"] \
            + self._metric_cols()
        rows = []
        for q, l, j, row, acc in self._paired_cells():
            row["deals"] = acc[0]
            row.update(self._metric_values(acc, int(self._k[l][j])))
            rows.append(row)
        df = self._frame(rows, cols)
        for col in ("from_value", "to_value") + tuple(self.varying):
            if col in df and len(df):
                df[col] = df[col].astype(object)
        return df

    def versus(self) -> pd.DataFrame:
        """Within one configuration and line-up, the per-game difference between two of its
        policies (``policy_a`` minus ``policy_b``, each the mean over its seats).

        Returns
        -------
        pandas.DataFrame
            Columns: every varying option, ``lineup``, ``policy_a``, ``policy_b``, ``deals``,
            ``win_a``, ``win_b`` (win shares), then ``win_diff``, ``draw_diff``,
            ``cards_left_diff``, ``value_left_diff``, each with ``_ci95_low/high`` and
            ``_p_value``.
        """
        cols = list(self.varying) + ["lineup", "policy_a", "policy_b", "deals", "win_a", "win_b"] + self._metric_cols()
        rows = []
        for c, l, ja, jb, row, acc in self._versus_cells():
            ga, gb = self._names[l][ja], self._names[l][jb]
            sa, sb = self._seat[c, l, ga].sum(axis=0), self._seat[c, l, gb].sum(axis=0)
            row.update(deals=acc[0], win_a=int(sa[_S_WON]) / int(sa[_S_GAMES]),
                       win_b=int(sb[_S_WON]) / int(sb[_S_GAMES]))
            row.update(self._metric_values(acc, int(self._k[l][ja]) * int(self._k[l][jb])))
            rows.append(row)
        return self._frame(rows, cols)

    def lineup_pairs(self) -> pd.DataFrame:
        """Line-ups that differ in one position, compared on the same games: the per-game
        difference (line-up ``a`` minus ``b``) of that position's win, draw, cards left and value
        left - e.g. ``patient,greedy,greedy,greedy`` against ``greedy,greedy,greedy,greedy`` is
        what patience is worth against greedy players.

        Returns
        -------
        pandas.DataFrame
            Columns: every varying option, ``lineup_a``, ``lineup_b``, ``position`` (1-based),
            ``policy_a``, ``policy_b``, ``deals``, then ``win_diff``, ``draw_diff``,
            ``cards_left_diff``, ``value_left_diff`` with ``_ci95_low/high`` and ``_p_value``.
        """
        cols = list(self.varying) + ["lineup_a", "lineup_b", "position", "policy_a", "policy_b", "deals"] \
            + self._metric_cols()
        rows = []
        for c, q, j, row, acc in self._lineup_pair_cells():
            row["deals"] = acc[0]
            row.update(self._metric_values(acc))
            rows.append(row)
        return self._frame(rows, cols)

    def histograms(self) -> dict[str, pd.DataFrame]:
        """``{"turns": ...}``: game length per configuration and line-up - columns every varying
        option, ``lineup``, ``turns``, ``games`` (games of that length), ``stock_out_games`` (of
        which ended by the stock running out); one row per length with games."""
        rows = []
        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                h, sh = self._turns_hist[c, l], self._stock_hist[c, l]
                for t in np.flatnonzero(h):
                    row = self._config_cols(c)
                    row.update(lineup=",".join(lu), turns=int(t), games=int(h[t]), stock_out_games=int(sh[t]))
                    rows.append(row)
        return {"turns": self._frame(rows, list(self.varying) + ["lineup", "turns", "games", "stock_out_games"])}

    def turn_quantiles(self, qs: Sequence[float] = (0.1, 0.5, 0.9)) -> pd.DataFrame:
        """Game length per configuration and line-up: ``games``, ``mean_turns`` with a t interval,
        and the quantiles ``qs`` (turns)."""
        cols = list(self.varying) + ["lineup", "games", "mean_turns", "turns_ci95_low", "turns_ci95_high"] \
            + [f"p{round(100 * q)}" for q in qs]
        rows = []
        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                cl = [int(x) for x in self._cl[c, l]]
                if not cl[_C_GAMES]:
                    continue
                m = moments(cl[_C_GAMES], cl[_C_TURNS], cl[_C_TURNS2])
                h = self._turns_hist[c, l]
                row = self._config_cols(c)
                row.update(lineup=",".join(lu), games=cl[_C_GAMES], mean_turns=m[0], turns_ci95_low=m[3],
                           turns_ci95_high=m[4])
                for q, v in zip(qs, hist_quantiles(np.arange(len(h)), h, qs)):
                    row[f"p{round(100 * q)}"] = v
                rows.append(row)
        return self._frame(rows, cols)

    def write_report(self, out_dir, run_info: Mapping[str, Any] | None = None, **kwargs):
        """Write the tables, figures and report of the current results
        (:func:`handsim.games.russian.report.write_report`)."""
        from .report import write_report

        return write_report(out_dir, self, dict(run_info or {}), **kwargs)
