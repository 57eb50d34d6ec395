"""Elimination match studies (RULES.md section 7, ``elimination_score`` > 0; issue 27).

A match study whose rules end a match by elimination plays whole matches with
:func:`handsim.games.hand.elimination.run_elimination_study_chunk` (the engine's
``play_elimination_study``: the matches of ``run_elimination_chunk``), one row per match
(:data:`handsim.games.hand.records.ELIMINATION_MATCH`).  Such a match has no fixed number of rounds,
so its statistics are not those of :class:`handsim.games.hand.stats.StudyAccumulator` (``rounds``
rows per match): :class:`EliminationAccumulator` keeps exact integer counters per configuration and
line-up - who won (by line-up position, by seat of the first round's playing order, by policy), the
finishing places (the order of elimination), the match length and the rounds at each table size,
and each position's per-round figures (points, went out, Hand, unopened) - checked against each
other when a checkpoint is read (:meth:`EliminationAccumulator._check_totals`).
:func:`write_elimination_outputs` writes the report (``report.md``) and its tables.

Units: a match is one study item (``--deals`` matches per configuration and line-up); a round is
one round played (at the table of the players still in); a player-round one player's round.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from handsim.stats.counters import Accumulator, check_at_least, check_totals
from handsim.stats.intervals import hist_quantiles, moments, wilson

from .layout import FLAG_HAND, FLAG_OPENED, FLAG_OUT
from .rules import ELIMINATION_MAX_ROUNDS

__all__ = ["EliminationBlock", "EliminationAccumulator", "is_elimination_study", "write_elimination_outputs",
           "elimination_summary_text"]

CAP = ELIMINATION_MAX_ROUNDS

# ``_cl[c, l, :]``: per configuration and line-up
CL_MATCHES, CL_ROUNDS, CL_ROUNDS2, CL_CAPPED, CL_SHARED, CL_VOID, CL_PROUNDS, CL_TURNS, CL_TURNS2 = range(9)
NCL = 9
# ``_pos[c, l, j, :]``: per line-up position
(PO_WIN, PO_SHARED, PO_PLAYED, PO_POINTS, PO_POINTS2, PO_OUT, PO_HAND, PO_UNOPENED, PO_ELIM, PO_FIRST_OUT,
 PO_TOTAL2) = range(11)
NPO = 11


def is_elimination_study(spec) -> bool:
    """Whether ``spec`` is a match study of matches ended by elimination (``elimination_score`` > 0;
    the option cannot vary, so the study's base rules say it)."""
    return bool(getattr(spec, "matches", False)) and bool(getattr(spec.rules, "elimination_score", 0))


class EliminationBlock(NamedTuple):
    """One chunk's elimination matches of one configuration and line-up (the arrays of
    :data:`handsim.games.hand.records.ELIMINATION_MATCH`, by line-up position), and ``match
    int64[n]``, their match indices."""

    match: np.ndarray
    rounds: np.ndarray
    first: np.ndarray
    win: np.ndarray
    total: np.ndarray
    out_after: np.ndarray
    score: np.ndarray
    flags: np.ndarray
    turns: np.ndarray


def places(win: np.ndarray, out_after: np.ndarray) -> np.ndarray:
    """Finishing place (1 = won) of each line-up position, ``int64[n, P]``: the winners first, then
    the players still in at the cap, then the others by the round they went out (later is better);
    players out after the same round share the better place."""
    oa = out_after.astype(np.int64)
    key = np.where(oa == 0, CAP + 1, oa) * 2 + (win != 0)
    return 1 + (key[:, None, :] > key[:, :, None]).sum(axis=2)


class EliminationAccumulator(Accumulator):
    """Exact integer statistics of an elimination match study (see the module's text).

    Parameters
    ----------
    configs, lineups, players, varying
        As for :class:`handsim.stats.counters.Accumulator`.

    Notes
    -----
    Counters (``int64``): ``cl[C, L, 9]`` (matches, rounds, rounds², matches that reached the
    cap with two or more players left, matches with a shared win, void rounds, player-rounds, turns,
    turns²), ``pos[C, L, P, 11]`` per line-up position (outright wins, shared wins, rounds played,
    points, points² (per round), rounds gone out, Hands, rounds unopened, eliminations, first out,
    final total²), ``place[C, L, P, P]`` (matches finished in place 1..P), ``seatwin[C, L, P, 2]``
    (outright and shared wins by seat of the first round's playing order, seat 0 its starter),
    ``length[C, L, CAP + 1]`` (matches by rounds), ``table[C, L, P + 1]`` (rounds played at a table of
    0..P players) and ``turns_hist[C, L, W]`` (rounds by turns).
    """

    FORMAT = 1
    KIND = "elimination"
    KIND_TEXT = "an elimination match study"
    UNIT = "matches"
    ROWS = "matches"
    ARRAYS = ("cl", "pos", "place", "seatwin", "length", "table")
    LAYOUT = {"cl": ((), ((CL_ROUNDS, CL_ROUNDS2), (CL_TURNS, CL_TURNS2))),
              "pos": ((PO_POINTS,), ((PO_POINTS, PO_POINTS2),)),
              "place": ((), ()), "seatwin": ((), ()), "length": ((), ()), "table": ((), ())}

    def __init__(self, configs: Sequence[Mapping[str, Any]], lineups: Sequence[Sequence[str]], players: int,
                 varying: Sequence[str]):
        super().__init__(configs, lineups, players, varying)
        C, L, P = len(self.configs), len(self.lineups), self.players
        self._cl = np.zeros((C, L, NCL), np.int64)
        self._pos = np.zeros((C, L, P, NPO), np.int64)
        self._place = np.zeros((C, L, P, P), np.int64)
        self._seatwin = np.zeros((C, L, P, 2), np.int64)
        self._length = np.zeros((C, L, CAP + 1), np.int64)
        self._table = np.zeros((C, L, P + 1), np.int64)

    # ------------------------------------------------------------------ adding results

    def _prepare(self, c: int, l: int, block: EliminationBlock) -> dict[str, Any]:
        if not (0 <= c < len(self.configs) and 0 <= l < len(self.lineups)):
            raise ValueError(f"block ({c}, {l}) is outside the study's {len(self.configs)} configurations and "
                             f"{len(self.lineups)} line-ups")
        P = self.players
        R = np.asarray(block.rounds).astype(np.int64)
        n = len(R)
        if n and (R.min() < 1 or R.max() > CAP):
            raise ValueError(f"a match of {int(R.min()) if R.min() < 1 else int(R.max())} rounds: allowed 1 to {CAP}")
        oa = np.asarray(block.out_after).astype(np.int64)
        win = np.asarray(block.win) != 0
        r_idx = np.arange(CAP)
        live = r_idx[None, :] < R[:, None]  # (n, CAP): rounds played
        inr = live[:, :, None] & ((oa[:, None, :] == 0) | (oa[:, None, :] > r_idx[None, :, None]))  # (n, CAP, P)
        score = np.asarray(block.score).astype(np.int64)
        flags = np.asarray(block.flags)
        if (score[~inr] != 0).any() or (flags[~inr] != 0).any():
            raise ValueError("a round score or outcome for a player out of the match or after its end")
        total = np.asarray(block.total).astype(np.int64)
        if not np.array_equal(score.sum(axis=1), total):
            raise ValueError("a match total other than the sum of its round scores")
        left = (oa == 0).sum(axis=1)
        nwin = win.sum(axis=1)
        if (win & (oa != 0)).any() or (nwin < 1).any() or ((nwin > 1) & (R < CAP)).any() \
                or ((left > 1) & (R < CAP)).any() or (oa > R[:, None]).any():
            raise ValueError("a match whose winners, eliminations and length do not fit RULES.md section 7")
        went = ((flags & FLAG_OUT) != 0) & inr
        turns = np.asarray(block.turns).astype(np.int64)
        shared = nwin > 1
        sole = win & ~shared[:, None]
        elim = oa > 0
        first_round = np.where(elim, oa, CAP + 1).min(axis=1)
        q = inr.sum(axis=2)
        first = np.asarray(block.first).astype(np.int64)
        seat = (np.arange(P)[None, :] - first[:, None]) % P  # seat of each position in the first round's order
        pl = places(block.win, oa)
        return {"c": c, "l": l, "n": n, "deal": np.asarray(block.match, dtype=np.int64),
                "R": R, "inr": inr, "live": live, "score": score, "flags": flags, "went": went, "turns": turns,
                "total": total, "shared": shared, "sole": sole, "elim": elim, "first_out": elim & (oa == first_round[:, None]),
                "left": left, "q": q, "seat": seat, "place": pl}

    def _apply(self, b: dict[str, Any]) -> None:
        c, l, P = b["c"], b["l"], self.players
        cl = self._cl[c, l]
        R, inr, live, flags, score = b["R"], b["inr"], b["live"], b["flags"], b["score"]
        cl[CL_MATCHES] += b["n"]
        cl[CL_ROUNDS] += int(R.sum())
        cl[CL_ROUNDS2] += int((R * R).sum())
        cl[CL_CAPPED] += int(((R == CAP) & (b["left"] > 1)).sum())
        cl[CL_SHARED] += int(b["shared"].sum())
        cl[CL_VOID] += int((live & ~b["went"].any(axis=2)).sum())
        cl[CL_PROUNDS] += int(inr.sum())
        t = b["turns"][live]
        cl[CL_TURNS] += int(t.sum())
        cl[CL_TURNS2] += int((t * t).sum())
        pos = self._pos[c, l]
        pos[:, PO_WIN] += b["sole"].sum(axis=0)
        pos[:, PO_SHARED] += (b["shared"][:, None] & (b["place"] == 1)).sum(axis=0)
        pos[:, PO_PLAYED] += inr.sum(axis=(0, 1))
        pos[:, PO_POINTS] += score.sum(axis=(0, 1))
        pos[:, PO_POINTS2] += (score * score).sum(axis=(0, 1))
        pos[:, PO_OUT] += b["went"].sum(axis=(0, 1))
        pos[:, PO_HAND] += (((flags & FLAG_HAND) != 0) & inr).sum(axis=(0, 1))
        pos[:, PO_UNOPENED] += (((flags & FLAG_OPENED) == 0) & inr).sum(axis=(0, 1))
        pos[:, PO_ELIM] += b["elim"].sum(axis=0)
        pos[:, PO_FIRST_OUT] += b["first_out"].sum(axis=0)
        pos[:, PO_TOTAL2] += (b["total"] * b["total"]).sum(axis=0)
        for j in range(P):
            self._place[c, l, j] += np.bincount(b["place"][:, j] - 1, minlength=P)[:P]
            for col, won in ((0, b["sole"][:, j]), (1, b["shared"] & (b["place"][:, j] == 1))):
                self._seatwin[c, l, :, col] += np.bincount(b["seat"][won, j], minlength=P)[:P]
        self._length[c, l] += np.bincount(R, minlength=CAP + 1)
        self._table[c, l] += np.bincount(b["q"][live], minlength=P + 1)[:P + 1]
        if len(t):
            self._grow_turns(int(t.max()) + 1)
            self._turns_hist[c, l, : int(t.max()) + 1] += np.bincount(t)

    def add_chunk(self, blocks: Mapping[tuple[int, int], EliminationBlock]) -> None:
        """Add every block of one chunk (the same matches for every configuration and line-up;
        elimination studies keep no paired comparisons).

        Raises
        ------
        ValueError
            A block that does not fit (:meth:`_prepare`), or blocks of different matches.  Nothing
            is added when an error is raised.
        """
        prepared = []
        for key in sorted(blocks):
            b = self._prepare(*key, blocks[key])
            if prepared and not np.array_equal(b["deal"], prepared[0]["deal"]):
                raise ValueError(f"blocks {sorted(blocks)[0]} and {key} of one chunk hold different matches")
            prepared.append(b)
        for b in prepared:
            self._apply(b)

    def rounds_played(self) -> int:
        """Rounds played over every configuration and line-up (what the checkpoint's
        ``__rounds__`` counts)."""
        return int(self._cl[:, :, CL_ROUNDS].sum())

    def _merge_extra(self, other) -> None:
        """Nothing: every counter is in :attr:`ARRAYS` or the turns histogram."""

    # ------------------------------------------------------------------ checkpoint checks

    def _check_totals(self) -> None:
        """Every relation between the counters of a state read from a checkpoint (ValueError naming
        both arrays): the match count of ``cl`` is that of ``length``, ``place`` (each position) and the
        winners (one outright winner per match, or a shared win at the cap); the rounds of ``cl``
        those of ``length``, ``table`` and ``turns_hist``, and the rounds gone out and void; the
        player-rounds those of ``table`` and ``pos``; eliminations what a match of P players leaves."""
        P = self.players
        cl, pos = self._cl, self._pos
        m = cl[:, :, CL_MATCHES]
        ln = self._length
        r = np.arange(CAP + 1, dtype=np.int64)
        check_totals("length", ln.sum(axis=2), "cl", m, "matches")
        check_totals("length", ln @ r, "cl", cl[:, :, CL_ROUNDS], "rounds")
        check_totals("length", ln @ (r * r), "cl", cl[:, :, CL_ROUNDS2], "squared rounds")
        check_totals("length", ln[:, :, 0], "cl", np.zeros_like(m), "matches of 0 rounds")
        check_totals("cl", cl[:, :, CL_CAPPED], "length", ln[:, :, CAP], "matches at the cap", most=True)
        check_totals("cl", cl[:, :, CL_SHARED], "cl", cl[:, :, CL_CAPPED], "shared wins (only at the cap)", most=True)
        check_totals("place", self._place.sum(axis=3), "cl", m[:, :, None], "matches of a position")
        check_totals("place", self._place[:, :, :, 0], "pos", pos[:, :, :, PO_WIN] + pos[:, :, :, PO_SHARED],
                     "first places")
        check_totals("pos", pos[:, :, :, PO_WIN].sum(axis=2) + cl[:, :, CL_SHARED], "cl", m,
                     "outright winners and shared wins")
        check_at_least("pos", pos[:, :, :, PO_SHARED].sum(axis=2), "cl", 2 * cl[:, :, CL_SHARED],
                       "shared winners (two or more a shared win)")
        check_totals("pos", pos[:, :, :, PO_SHARED].sum(axis=2), "cl", P * cl[:, :, CL_SHARED],
                     "shared winners", most=True)
        check_totals("pos", pos[:, :, :, PO_WIN] + pos[:, :, :, PO_SHARED] + pos[:, :, :, PO_ELIM], "cl",
                     m[:, :, None], "wins and eliminations of a position", most=True)
        check_totals("seatwin", self._seatwin.sum(axis=2), "pos", pos[:, :, :, [PO_WIN, PO_SHARED]].sum(axis=2),
                     "wins")
        elim = pos[:, :, :, PO_ELIM].sum(axis=2)
        settled = (P - 1) * (m - cl[:, :, CL_CAPPED])
        check_at_least("pos", elim, "cl", settled, "eliminations (P - 1 a match that did not reach the cap)")
        check_totals("pos", elim, "cl", settled + (P - 2) * cl[:, :, CL_CAPPED], "eliminations", most=True)
        check_totals("pos", pos[:, :, :, PO_FIRST_OUT].sum(axis=2), "pos", elim, "first out", most=True)
        check_at_least("pos", pos[:, :, :, PO_FIRST_OUT].sum(axis=2), "cl", m - cl[:, :, CL_CAPPED],
                       "first out (one a match that did not reach the cap)")
        tb = self._table
        q = np.arange(tb.shape[2], dtype=np.int64)
        check_totals("table", tb.sum(axis=2), "cl", cl[:, :, CL_ROUNDS], "rounds")
        check_totals("table", tb @ q, "cl", cl[:, :, CL_PROUNDS], "player-rounds")
        check_totals("table", tb[:, :, :2].sum(axis=2), "cl", np.zeros_like(m), "rounds of fewer than 2 players")
        check_at_least("table", tb[:, :, P], "cl", m, "rounds at the full table (every match's first)")
        check_totals("pos", pos[:, :, :, PO_PLAYED].sum(axis=2), "cl", cl[:, :, CL_PROUNDS], "player-rounds")
        check_totals("pos", pos[:, :, :, PO_PLAYED], "cl", cl[:, :, CL_ROUNDS][:, :, None], "rounds played", most=True)
        check_at_least("pos", pos[:, :, :, PO_PLAYED], "cl", m[:, :, None], "rounds played (every match's first)")
        check_totals("pos", pos[:, :, :, PO_OUT].sum(axis=2) + cl[:, :, CL_VOID], "cl", cl[:, :, CL_ROUNDS],
                     "rounds gone out or void")
        for col, what in ((PO_HAND, "Hands"), (PO_UNOPENED, "rounds unopened")):
            check_totals("pos", pos[:, :, :, col], "pos", pos[:, :, :, PO_PLAYED], what, most=True)
        check_totals("pos", pos[:, :, :, PO_HAND], "pos", pos[:, :, :, PO_OUT], "Hands", most=True)
        th = self._turns_hist
        t = np.arange(th.shape[2], dtype=np.int64)
        check_totals("turns_hist", th.sum(axis=2), "cl", cl[:, :, CL_ROUNDS], "rounds")
        check_totals("turns_hist", th @ t, "cl", cl[:, :, CL_TURNS], "turns")
        check_totals("turns_hist", th @ (t * t), "cl", cl[:, :, CL_TURNS2], "squared turns")
        if th.shape[2] and not th[:, :, -1].any():
            raise ValueError("'turns_hist' has an empty last column: handsim's histograms span exactly the values "
                             "observed")

    # ------------------------------------------------------------------ tables

    def _cells(self):
        for c in range(len(self.configs)):
            for l, lu in enumerate(self.lineups):
                if self._cl[c, l, CL_MATCHES]:
                    yield c, l, lu, {**self._config_cols(c), "lineup": ",".join(lu)}

    def positions(self) -> pd.DataFrame:
        """One row per configuration, line-up and line-up position (1-based): ``matches``, ``p_win``
        (outright wins, share of matches) with its 95% Wilson interval, ``p_shared`` (a share of the
        win at the cap), ``mean_total`` (final total, points) with its t interval, ``mean_place``,
        ``p_first_out``, ``p_place_1`` .. ``p_place_P``, then the per-round figures: ``rounds_played``
        (player-rounds), ``mean_score`` (points per round) with its t interval (rounds taken as
        independent), ``p_out``, ``p_hand``, ``p_unopened`` (shares of the position's rounds)."""
        P = self.players
        rows = []
        for c, l, lu, base in self._cells():
            n = int(self._cl[c, l, CL_MATCHES])
            for j in range(P):
                x = [int(v) for v in self._pos[c, l, j]]
                lo, hi = wilson(x[PO_WIN], n)
                mt, _, _, tlo, thi = moments(n, x[PO_POINTS], x[PO_TOTAL2])
                pr = x[PO_PLAYED]
                ms, _, _, slo, shi = moments(pr, x[PO_POINTS], x[PO_POINTS2])
                place = self._place[c, l, j].astype(np.int64)
                row = {**base, "position": j + 1, "policy": lu[j], "matches": n, "p_win": x[PO_WIN] / n,
                       "ci95_low": lo, "ci95_high": hi, "p_shared": x[PO_SHARED] / n, "mean_total": mt,
                       "total_ci95_low": tlo, "total_ci95_high": thi,
                       "mean_place": float(place @ np.arange(1, P + 1)) / n, "p_first_out": x[PO_FIRST_OUT] / n}
                for p in range(P):
                    row[f"p_place_{p + 1}"] = int(place[p]) / n
                row.update(rounds_played=pr, mean_score=ms, score_ci95_low=slo, score_ci95_high=shi,
                           p_out=x[PO_OUT] / pr, p_hand=x[PO_HAND] / pr, p_unopened=x[PO_UNOPENED] / pr)
                rows.append(row)
        cols = list(self.varying) + ["lineup", "position", "policy", "matches", "p_win", "ci95_low", "ci95_high",
                                     "p_shared", "mean_total", "total_ci95_low", "total_ci95_high", "mean_place",
                                     "p_first_out"] + [f"p_place_{p + 1}" for p in range(P)] + [
            "rounds_played", "mean_score", "score_ci95_low", "score_ci95_high", "p_out", "p_hand", "p_unopened"]
        return self._frame(rows, cols)

    def policies_table(self) -> pd.DataFrame:
        """One row per configuration, line-up and distinct policy: ``seats`` (its line-up positions),
        ``matches``, ``p_win`` (a match won outright by one of its seats: at most one a match) with its
        95% Wilson interval and ``p_shared``."""
        rows = []
        for c, l, lu, base in self._cells():
            n = int(self._cl[c, l, CL_MATCHES])
            for name in dict.fromkeys(lu):
                js = [j for j, x in enumerate(lu) if x == name]
                w = int(self._pos[c, l, js, PO_WIN].sum())
                lo, hi = wilson(w, n)
                rows.append({**base, "policy": name, "seats": len(js), "matches": n, "p_win": w / n, "ci95_low": lo,
                             "ci95_high": hi, "p_shared": int(self._pos[c, l, js, PO_SHARED].sum()) / n})
        return self._frame(rows, list(self.varying) + ["lineup", "policy", "seats", "matches", "p_win", "ci95_low",
                                                       "ci95_high", "p_shared"])

    def seats(self) -> pd.DataFrame:
        """One row per configuration, line-up and seat of the first round's playing order (seat 1
        its starter, the line-up rotating over the seats match by match): ``p_win`` (outright) with
        its 95% Wilson interval and ``p_shared``."""
        rows = []
        for c, l, lu, base in self._cells():
            n = int(self._cl[c, l, CL_MATCHES])
            for s in range(self.players):
                w, sh = (int(v) for v in self._seatwin[c, l, s])
                lo, hi = wilson(w, n)
                rows.append({**base, "seat": s + 1, "matches": n, "p_win": w / n, "ci95_low": lo, "ci95_high": hi,
                             "p_shared": sh / n})
        return self._frame(rows, list(self.varying) + ["lineup", "seat", "matches", "p_win", "ci95_low", "ci95_high",
                                                       "p_shared"])

    def lengths(self) -> pd.DataFrame:
        """One row per configuration and line-up: ``matches``, match length in rounds (``mean_rounds``
        with its t interval, ``median_rounds``, ``p90_rounds``, ``max_rounds``), ``p_cap`` (share of
        matches stopped by the 100-round cap with two or more players left, 95% Wilson interval),
        ``p_shared``, ``rounds`` and the rounds played at a table of P, ..., 3 and 2 players
        (``rounds_4p``... for P = 4), ``mean_turns`` (per round) and ``p_void`` (share of rounds)."""
        rows = []
        vals = np.arange(CAP + 1)
        for c, l, lu, base in self._cells():
            x = [int(v) for v in self._cl[c, l]]
            n = x[CL_MATCHES]
            mean, _, _, lo, hi = moments(n, x[CL_ROUNDS], x[CL_ROUNDS2])
            med, p90 = hist_quantiles(vals, self._length[c, l], [0.5, 0.9])
            clo, chi = wilson(x[CL_CAPPED], n)
            row = {**base, "matches": n, "mean_rounds": mean, "ci95_low": lo, "ci95_high": hi, "median_rounds": med,
                   "p90_rounds": p90, "max_rounds": int(np.nonzero(self._length[c, l])[0].max()),
                   "p_cap": x[CL_CAPPED] / n, "cap_ci95_low": clo, "cap_ci95_high": chi,
                   "p_shared": x[CL_SHARED] / n, "rounds": x[CL_ROUNDS]}
            for q in range(self._table.shape[2] - 1, 1, -1):
                row[f"rounds_{q}p"] = int(self._table[c, l, q])
            row["mean_turns"] = x[CL_TURNS] / x[CL_ROUNDS]
            row["p_void"] = x[CL_VOID] / x[CL_ROUNDS]
            rows.append(row)
        return self._frame(rows, list(self.varying) + [
            "lineup", "matches", "mean_rounds", "ci95_low", "ci95_high", "median_rounds", "p90_rounds", "max_rounds",
            "p_cap", "cap_ci95_low", "cap_ci95_high", "p_shared", "rounds",
            *(f"rounds_{q}p" for q in range(self._table.shape[2] - 1, 1, -1)), "mean_turns", "p_void"])

    def summary(self) -> pd.DataFrame:
        """:meth:`positions` (the study's summary table)."""
        return self.positions()


# ---------------------------------------------------------------------- report

def _num(x, d: int = 3) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{d}f}"


def _ci(lo, hi, d: int = 3) -> str:
    return f"[{_num(lo, d)}, {_num(hi, d)}]"


def _at_tables(row) -> str:
    """``"1,200 at 4 players, 300 at 3, 90 at 2"``: a lengths() row's rounds by table size, the full table first."""
    sizes = sorted((int(k[len("rounds_"):-1]) for k in row.keys() if k.startswith("rounds_") and k.endswith("p")),
                   reverse=True)
    return ", ".join(f"{int(row[f'rounds_{q}p']):,} at {q}" + (" players" if i == 0 else "")
                     for i, q in enumerate(sizes))


def _md_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _cell_title(row, varying) -> str:
    cfg = ", ".join(f"{v}={row[v]}" for v in varying)
    return f"line-up {row['lineup']}" + (f" ({cfg})" if cfg else "")


def report_markdown(acc: EliminationAccumulator, info: Mapping[str, Any]) -> str:
    """The elimination study's ``report.md``: per configuration and line-up, who wins (by line-up
    position, policy and seat), the order of elimination, the match length and the per-round
    figures, each with its unit and 95% interval."""
    rules = info.get("rules") or {}
    E = rules.get("elimination_score")
    pos, pols, seats, lens = acc.positions(), acc.policies_table(), acc.seats(), acc.lengths()
    P = acc.players
    v = acc.varying
    lines = [f"# Elimination match study: out above {E} points", "",
             f"{int(acc.deals().max()):,} matches per configuration and line-up, {P} players, seed "
             f"{info.get('seed')}; RULES.md section 7: after each round every player whose total is above "
             f"{E} is out, the last player left wins; a match stops at {CAP} rounds (then the lowest total left "
             f"wins, a tie to more rounds won, still tied a shared win).", ""]
    if info.get("command"):
        lines += [f"Command: `{info['command']}`", ""]
    lines += ["Units: P(win) is the share of matches won outright (95% Wilson interval); shared: the share won "
              "jointly at the cap; totals are final match totals (points, lower is better); places: 1 = won, "
              "players out after the same round share the better place; per-round figures count the position's "
              "own rounds (player-rounds; the interval takes rounds as independent).", ""]
    for _, L in lens.iterrows():
        sel = (pos["lineup"] == L["lineup"])
        for k in v:
            sel &= pos[k] == L[k]
        lines += [f"## {_cell_title(L, v)}", ""]
        lines += ["Who wins, by line-up position:", ""]
        rows = []
        for _, r in pos[sel].iterrows():
            rows.append([str(r["position"]), r["policy"], _num(r["p_win"]), _ci(r["ci95_low"], r["ci95_high"]),
                         _num(r["p_shared"]), _num(r["mean_total"], 1), _num(r["mean_place"], 2),
                         _num(r["p_first_out"])] + [_num(r[f"p_place_{p + 1}"]) for p in range(P)])
        lines += _md_table(["position", "policy", "P(win)", "95% CI", "shared", "mean total", "mean place",
                            "P(first out)"] + [f"place {p + 1}" for p in range(P)], rows) + [""]
        ps = pols[(pols["lineup"] == L["lineup"]) & np.logical_and.reduce([pols[k] == L[k] for k in v] or [True])]
        if len(ps) < P:
            lines += ["By policy (its seats pooled; at most one outright winner a match):", ""]
            lines += _md_table(["policy", "seats", "P(win)", "95% CI", "shared"],
                               [[r["policy"], str(r["seats"]), _num(r["p_win"]), _ci(r["ci95_low"], r["ci95_high"]),
                                 _num(r["p_shared"])] for _, r in ps.iterrows()]) + [""]
        ss = seats[(seats["lineup"] == L["lineup"]) & np.logical_and.reduce([seats[k] == L[k] for k in v] or [True])]
        lines += ["By seat of the first round's playing order (seat 1 starts; the line-up rotates over the seats):", ""]
        lines += _md_table(["seat", "P(win)", "95% CI", "shared"],
                           [[str(r["seat"]), _num(r["p_win"]), _ci(r["ci95_low"], r["ci95_high"]), _num(r["p_shared"])]
                            for _, r in ss.iterrows()]) + [""]
        lines += [f"Match length: mean {_num(L['mean_rounds'], 2)} rounds {_ci(L['ci95_low'], L['ci95_high'], 2)}, "
                  f"median {_num(L['median_rounds'], 1)}, 90th percentile {_num(L['p90_rounds'], 1)}, longest "
                  f"{L['max_rounds']}; {_num(L['p_cap'])} of matches {_ci(L['cap_ci95_low'], L['cap_ci95_high'])} "
                  f"reached the {CAP}-round cap with two or more players left ({_num(L['p_shared'])} a shared win). "
                  f"Rounds played: {L['rounds']:,} ({_at_tables(L)}); {_num(L['mean_turns'], 1)} turns a round, "
                  f"{_num(L['p_void'])} void.", ""]
        lines += ["Per round, by line-up position:", ""]
        lines += _md_table(["position", "policy", "rounds played", "mean score", "95% CI", "P(out)", "P(Hand)",
                            "P(unopened)"],
                           [[str(r["position"]), r["policy"], f"{r['rounds_played']:,}", _num(r["mean_score"], 2),
                             _ci(r["score_ci95_low"], r["score_ci95_high"], 2), _num(r["p_out"]), _num(r["p_hand"]),
                             _num(r["p_unopened"])] for _, r in pos[sel].iterrows()]) + [""]
    lines += ["Tables: summary.csv (by line-up position), elimination_policies.csv, elimination_seats.csv, "
              "elimination_length.csv.", ""]
    return "\n".join(lines)


def write_elimination_outputs(acc: EliminationAccumulator, out, info: Mapping[str, Any]):
    """Write ``summary.csv`` (:meth:`EliminationAccumulator.positions`), ``elimination_policies.csv``,
    ``elimination_seats.csv``, ``elimination_length.csv`` and ``report.md`` into ``out`` (each
    atomically); returns the report's path."""
    from pathlib import Path

    from handsim._io import atomic_write

    out = Path(out)
    atomic_write(out / "summary.csv", acc.positions().to_csv(index=False).encode())
    atomic_write(out / "elimination_policies.csv", acc.policies_table().to_csv(index=False).encode())
    atomic_write(out / "elimination_seats.csv", acc.seats().to_csv(index=False).encode())
    atomic_write(out / "elimination_length.csv", acc.lengths().to_csv(index=False).encode())
    path = out / "report.md"
    atomic_write(path, report_markdown(acc, info).encode())
    return path


def elimination_summary_text(acc: EliminationAccumulator) -> str:
    """The table printed after an elimination study: P(win) by line-up position and the match length."""
    from handsim.cli._common import table

    pos, lens = acc.positions(), acc.lengths()
    v = acc.varying
    body = [[str(r[k]) for k in v] + [r["lineup"], str(r["position"]), r["policy"], f"{r['matches']:,}",
                                      _num(r["p_win"]), _ci(r["ci95_low"], r["ci95_high"]), _num(r["mean_place"], 2),
                                      _num(r["mean_score"], 2), _num(r["p_out"])] for _, r in pos.iterrows()]
    text = table(v + ["lineup", "position", "policy", "matches", "p_win", "95% CI", "mean_place", "mean_score",
                      "p_out"], body)
    body = [[str(r[k]) for k in v] + [r["lineup"], _num(r["mean_rounds"], 1), _num(r["median_rounds"], 1),
                                      _num(r["p90_rounds"], 1), _num(r["p_cap"])] for _, r in lens.iterrows()]
    text += "\n" + table(v + ["lineup", "mean_rounds", "median", "p90", "p_cap"], body)
    return text + ("\nUnits: p_win: share of matches won outright (95% Wilson CI); mean_place: finishing place "
                   "(1 = won); mean_score: points per round played; p_out: share of the position's rounds gone "
                   f"out; match length in rounds (p_cap: share stopped by the {CAP}-round cap).")
