"""Match equity: the chance of winning a match from given standings (issue 26 part 3).

The analogue of backgammon's match equity table for Hand (RULES.md section 7): the
probability that a player wins the match from the current totals with ``R`` rounds left,
computed over the *empirical* distribution of round outcomes of a field - the per-deal rows of a
study (``handsim simulate --per-deal``).  Each round of the rest of the match is a deal drawn from
those rows, with the starter moving round by round as the match rules move it
(``dealer_rotation``, RULES.md section 3), and a tie for the lowest total after the last round is
broken by extra rounds (section 7).

- Two sides (2 players, or 2 v 2 partnership teams): exact, by dynamic programming over the
  difference of the two totals (:func:`equity_two_sides`).
- Three or four single players: Monte Carlo over whole continuations (:func:`equity_mc`), with the
  standard error of each probability; ``standings = last_loses`` also gives the chance of being
  the one loser (a tie for last goes to the fewer round wins).

The model treats the rounds of a match as independent draws of the field's rounds: it is exact
for players who play each round without looking at the standings (every built-in policy does),
and says nothing about players who would change their play by the score.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit

import handsim._kernels  # noqa: F401  (points numba's cache at handsim's folder before the kernels below)
from handsim.errors import InputError

#: Tie-break rounds played at most after the last regular round (as the match driver).
MAX_TIEBREAKS = 50


@dataclass(frozen=True)
class RoundPool:
    """The field's round outcomes, relative to the round's starter.

    Attributes
    ----------
    scores : numpy.ndarray, int64, shape (n_rounds, players)
        Points each seat scored (seat 0 = the starter, then in playing order; RULES.md section 6).
    out : numpy.ndarray, int64, shape (n_rounds,)
        The seat that went out (round won), or -1 (a void round).
    start : numpy.ndarray, int64, shape (n_rounds,)
        The line-up position of the starter; all 0 when ``symmetric``.
    players : int
    symmetric : bool
        Every line-up position holds the same policy: every round serves every position, so a
        round is drawn from all rows whoever starts.
    labels : tuple of str
        The policy of each line-up position.
    """

    scores: np.ndarray
    out: np.ndarray
    start: np.ndarray
    players: int
    symmetric: bool
    labels: tuple

    @property
    def rounds(self) -> int:
        return len(self.out)

    def resample(self, seed: int) -> "RoundPool":
        """A bootstrap replicate: as many rounds drawn with replacement (within each starter's
        rounds when not ``symmetric``), for the uncertainty the field's finite sample adds."""
        rng = np.random.default_rng(seed)
        if self.symmetric:
            idx = rng.integers(0, self.rounds, self.rounds)
        else:
            idx = np.concatenate([g[rng.integers(0, len(g), len(g))] for g in
                                  (np.flatnonzero(self.start == k) for k in range(self.players)) if len(g)])
        return RoundPool(self.scores[idx], self.out[idx], self.start[idx], self.players, self.symmetric, self.labels)

    def by_starter(self, k: int) -> np.ndarray:
        """Indices of the rows usable when line-up position ``k`` starts."""
        if self.symmetric:
            return np.arange(self.rounds)
        return np.flatnonzero(self.start == k)


def round_pool(rows: pd.DataFrame, players: int) -> RoundPool:
    """The :class:`RoundPool` of one configuration and line-up's per-deal rows.

    Parameters
    ----------
    rows : pandas.DataFrame
        Per-deal rows (``per_deal/`` of a study): columns ``deal``, ``seat`` (relative to the
        starter), ``position`` (line-up position), ``policy``, ``score``, ``went_out``; one row per
        deal and seat.
    players : int

    Raises
    ------
    InputError
        No rows, a deal without a row for every seat, or seatings that are not the cyclic
        rotations a match plays (position at seat ``s`` = starter's position + ``s``).
    """
    if len(rows) == 0:
        raise InputError("the study has no per-deal rows for this configuration and line-up")
    rows = rows.sort_values(["deal", "seat"], kind="stable")
    n = len(rows) // players
    if len(rows) != n * players or not (rows["seat"].to_numpy().reshape(n, players) == np.arange(players)).all():
        raise InputError("the per-deal rows do not hold one row per deal and seat (a damaged per_deal/ folder?)")
    pos = rows["position"].to_numpy(np.int64).reshape(n, players)
    start = pos[:, 0]
    if not (pos == (start[:, None] + np.arange(players)) % players).all():
        raise InputError("the per-deal rows' seatings are not rotations of the line-up (allowed: studies of "
                         "handsim simulate, whose deals rotate the line-up round the table)")
    scores = rows["score"].to_numpy(np.int64).reshape(n, players)
    went = rows["went_out"].to_numpy(bool).reshape(n, players)
    out = np.where(went.any(axis=1), went.argmax(axis=1), -1).astype(np.int64)
    pol = rows["policy"].to_numpy().reshape(n, players)
    labels = [None] * players
    for s in range(players):
        labels[int(pos[0, s])] = str(pol[0, s])
    symmetric = len(set(labels)) == 1
    return RoundPool(scores, out, np.zeros(n, np.int64) if symmetric else start, players, symmetric, tuple(labels))


def _sides(players: int, partnership: bool) -> np.ndarray:
    """Side of each line-up position: the position itself, or its team (partners opposite)."""
    if partnership:
        return np.arange(players) % (players // 2)
    return np.arange(players)


@njit(cache=True)
def _next_starter(k, scores_rel, players, highest_scorer, dealer_right):
    """The next round's starter (line-up position) after a round started by ``k`` with these seat
    scores (RULES.md section 3, ``dealer_rotation``), as the match driver's ``next_dealer``: the one
    rule of both the programme's transitions and the Monte Carlo's rounds."""
    dealer = (k - 1) % players if dealer_right else k
    best = (dealer + 1) % players
    if highest_scorer:
        for i in range(2, players + 1):
            s = (dealer + i) % players
            if scores_rel[(s - k) % players] > scores_rel[(best - k) % players]:
                best = s
    return (best + 1) % players if dealer_right else best


def transitions(pool: RoundPool, me: int, partnership: bool, highest_scorer: bool, dealer_right: bool):
    """Two-side transition histograms: for each starter ``k`` and next starter ``k2``, the
    probability of each round difference (opponent side's points - ``me``'s side's points).

    Returns
    -------
    (hist, lo) : numpy.ndarray float64 of shape (players, players, width), int
        ``hist[k, k2, j]`` is the probability that a round started by position ``k`` gives the
        difference ``lo + j`` and passes the start to ``k2``; each ``hist[k]`` sums to 1.
    """
    P = pool.players
    if not partnership and P > 2:
        raise InputError("two-side equity needs 2 players or 2 v 2")
    _groups(pool)  # every starter has rounds, or the one-line refusal
    side = _sides(P, partnership)
    mine = side[me]
    per_k = []
    for k in range(P):
        idx = pool.by_starter(k)
        sc = pool.scores[idx]
        by_pos = np.empty_like(sc)
        for s in range(P):
            by_pos[:, (k + s) % P] = sc[:, s]
        diff = by_pos[:, side != mine].sum(axis=1) - by_pos[:, side == mine].sum(axis=1)
        nxt = np.array([_next_starter(k, row, P, highest_scorer, dealer_right) for row in sc]) \
            if highest_scorer else np.full(len(idx), (k + 1) % P)
        per_k.append((diff, nxt))
    lo = min(int(d.min()) for d, _ in per_k)
    hi = max(int(d.max()) for d, _ in per_k)
    hist = np.zeros((P, P, hi - lo + 1))
    for k, (diff, nxt) in enumerate(per_k):
        np.add.at(hist[k], (nxt, diff - lo), 1.0)
        hist[k] /= len(diff)
    return hist, lo


def equity_two_sides(pool: RoundPool, me: int, rounds: int, partnership: bool = False,
                     highest_scorer: bool = False, dealer_right: bool = True, lead_max: int = 0):
    """Exact match equity for two sides by dynamic programming (RULES.md section 7).

    ``E[r, k, d]``: the probability that ``me``'s side wins with ``r`` rounds left, line-up position
    ``k`` to start the next round, and ``d`` = the other side's total - ``me``'s side's total
    (points; > 0 means ``me`` leads, lower being better).  After the last round a lower total wins
    and a tie is broken by extra rounds until it breaks.

    Parameters
    ----------
    pool : RoundPool
    me : int
        Line-up position whose side's equity is computed.
    rounds : int
        The most rounds left, 1 or more.
    partnership, highest_scorer, dealer_right : bool
        2 v 2 teams; ``dealer_rotation = highest_scorer``; ``starter = dealer_right``.
    lead_max : int
        The table covers ``d`` in ``-lead_max .. lead_max`` (points).

    Returns
    -------
    numpy.ndarray, float64, shape (rounds + 1, players, 2 * lead_max + 1)
        ``E[r, k, lead_max + d]``; ``r = 0`` is the end of the regular rounds.
    """
    hist, lo = transitions(pool, me, partnership, highest_scorer, dealer_right)
    P = pool.players
    width = hist.shape[2]
    M = max(abs(lo), abs(lo + width - 1))
    D = lead_max + (rounds + 1) * M + 1
    # tie-break: t[k] = P(win | tied, k starts) = sum_k2 (P(d>0, k2) + P(d=0, k2) t[k2])
    dvals = lo + np.arange(width)
    win_now = hist[:, :, dvals > 0].sum(axis=2)  # (P, P)
    tie = hist[:, :, dvals == 0].sum(axis=2) if (dvals == 0).any() else np.zeros((P, P))
    a = np.eye(P) - tie
    t = np.linalg.solve(a, win_now.sum(axis=1)) if np.linalg.matrix_rank(a) == P else np.full(P, 0.5)
    grid = np.arange(-D, D + 1)
    E = np.zeros((P, 2 * D + 1))
    E[:, grid > 0] = 1.0
    E[:, grid == 0] = t[:, None]
    out = np.zeros((rounds + 1, P, 2 * lead_max + 1))
    mid = slice(D - lead_max, D + lead_max + 1)
    out[0] = E[:, mid]
    for r in range(1, rounds + 1):
        new = np.zeros_like(E)
        for k in range(P):
            for k2 in range(P):
                h = hist[k, k2]
                if not h.any():
                    continue
                # new[i] = sum_j h[j] * E[k2][i + lo + j]: E beyond the grid is 0 (far behind) or 1
                ext = np.concatenate([np.zeros(M), E[k2], np.ones(M)])
                corr = np.correlate(ext, h, mode="valid")  # corr[m] = sum_j ext[m + j] h[j]
                # ext index of grid i + lo + j is i + lo + j + M; so corr index m = i + lo + M
                new[k] += corr[lo + M: lo + M + 2 * D + 1]
        E = np.clip(new, 0.0, 1.0)
        out[r] = E[:, mid]
    return out


@njit(cache=True, inline="always")
def _draw(state):
    """splitmix64: the next state and a 64-bit draw."""
    state += np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True)
def _play_round(state, k, scores, out, groups, gstart, gcount, pos_tot, wins, highest_scorer, dealer_right):
    """Draw one round for starter ``k`` into ``pos_tot`` / ``wins``; returns (state, next starter)."""
    P = scores.shape[1]
    state, z = _draw(state)
    i = groups[gstart[k] + np.int64(z % np.uint64(gcount[k]))]
    for s in range(P):
        pos_tot[(k + s) % P] += scores[i, s]
    if out[i] >= 0:
        wins[(k + out[i]) % P] += 1
    return state, _next_starter(k, scores[i], P, highest_scorer, dealer_right)


@njit(cache=True)
def _result(pos_tot, wins, me, lead, last_loses):
    """0 = ``me`` neither wins nor loses, 1 wins, 2 is the one loser, -1 the lowest total is shared
    (RULES.md section 7; ``lead`` is added to every other position's total)."""
    P = pos_tot.shape[0]
    lo = pos_tot[me]
    for s in range(P):
        t = pos_tot[s] + (0 if s == me else lead)
        if t < lo:
            lo = t
    nlo = 0
    for s in range(P):
        if pos_tot[s] + (0 if s == me else lead) == lo:
            nlo += 1
    if nlo > 1:
        return -1
    if pos_tot[me] == lo:
        return 1
    if not last_loses:
        return 0
    hi = pos_tot[me]
    for s in range(P):
        t = pos_tot[s] + (0 if s == me else lead)
        if t > hi:
            return 0
    minw = 1 << 30
    for s in range(P):
        if pos_tot[s] + (0 if s == me else lead) == hi and wins[s] < minw:
            minw = wins[s]
    return 2 if wins[me] == minw else 0


@njit(cache=True)
def _mc_kernel(scores, out, groups, gstart, gcount, totals0, wins0, k0, rounds, samples, seed,
               highest_scorer, dealer_right, last_loses, me, leads, res_win, res_lose):
    """Monte Carlo continuations of a match of single players: for each lead ``leads[j]`` (added to
    every other position's total), the wins and losses of ``me`` over ``samples`` continuations
    into ``res_win[j]`` / ``res_lose[j]``.  The regular rounds of a continuation are shared by
    every lead (common random numbers); tie-break rounds are drawn per lead from a stream of
    their own."""
    P = scores.shape[1]
    state = np.uint64(seed) * np.uint64(0xD1B54A32D192ED03) + np.uint64(0x8CB92BA72F3D8DD7)
    pos_tot = np.zeros(P, np.int64)
    wins = np.zeros(P, np.int64)
    t2 = np.zeros(P, np.int64)
    w2 = np.zeros(P, np.int64)
    for smp in range(samples):
        for s in range(P):
            pos_tot[s] = totals0[s]
            wins[s] = wins0[s]
        k = k0
        state, tb_seed = _draw(state)  # the sample's tie-break streams
        for r in range(rounds):
            state, k = _play_round(state, k, scores, out, groups, gstart, gcount, pos_tot, wins,
                                   highest_scorer, dealer_right)
        for j in range(leads.shape[0]):
            res = _result(pos_tot, wins, me, leads[j], last_loses)
            if res == -1:  # tie-break rounds until the lowest total is not shared
                t2[:] = pos_tot
                w2[:] = wins
                k2 = k
                st2 = tb_seed ^ (np.uint64(0xA0761D6478BD642F) * np.uint64(j + 1))
                for tb in range(MAX_TIEBREAKS):
                    st2, k2 = _play_round(st2, k2, scores, out, groups, gstart, gcount, t2, w2,
                                          highest_scorer, dealer_right)
                    res = _result(t2, w2, me, leads[j], last_loses)
                    if res != -1:
                        break
            if res == 1:
                res_win[j] += 1
            elif res == 2:
                res_lose[j] += 1


def _groups(pool: RoundPool):
    P = pool.players
    parts = [pool.by_starter(k) for k in range(P)]
    for k, p in enumerate(parts):
        if len(p) == 0:
            raise InputError(f"the study has no deal started by line-up position {k + 1} (allowed: a study of at least "
                             f"{P} deals, whose deals rotate the starter)")
    gcount = np.array([len(p) for p in parts], np.int64)
    gstart = np.concatenate([[0], np.cumsum(gcount)[:-1]]).astype(np.int64)
    return np.concatenate(parts).astype(np.int64), gstart, gcount


def equity_mc(pool: RoundPool, totals, starter: int, rounds_left: int, me: int, samples: int = 20000,
              seed: int = 0, highest_scorer: bool = False, dealer_right: bool = True,
              last_loses: bool = False, wins=None, leads=(0,)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Monte Carlo match equity of single players from given standings (RULES.md section 7).

    Parameters
    ----------
    pool : RoundPool
    totals : sequence of int, length players
        Each line-up position's match total so far (points).
    starter : int
        Line-up position to start the next round.
    rounds_left : int
        Regular rounds left, 0 or more (0: only a tie-break, if the lowest total is shared).
    me : int
        Line-up position whose chances are computed.
    samples : int
        Continuations played; ``seed`` their random stream (common random numbers: the same seed
        draws the same continuations for every standing).
    highest_scorer, dealer_right, last_loses : bool
        ``dealer_rotation = highest_scorer``; ``starter = dealer_right``; ``standings = last_loses``.
    wins : sequence of int, optional
        Rounds won so far by each position (a tie for last place under ``last_loses``); default 0.
    leads : sequence of int
        Points added to every other position's total, one result per value (the same
        continuations for each).

    Returns
    -------
    (p_win, p_lose, se) : numpy.ndarray float64, shape (len(leads),)
        The probability that ``me`` wins the match, that it is the one loser (``last_loses``;
        else 0), and the standard error of ``p_win``.
    """
    P = pool.players
    if len(totals) != P:
        raise InputError(f"{len(totals)} totals for {P} players")
    groups, gstart, gcount = _groups(pool)
    lv = np.asarray(leads, np.int64)
    rw = np.zeros(len(lv))
    rl = np.zeros(len(lv))
    w0 = np.zeros(P, np.int64) if wins is None else np.asarray(wins, np.int64)
    _mc_kernel(pool.scores, pool.out, groups, gstart, gcount, np.asarray(totals, np.int64), w0,
               np.int64(starter), np.int64(rounds_left), np.int64(samples), np.int64(seed), highest_scorer,
               dealer_right, last_loses, np.int64(me), lv, rw, rl)
    p = rw / samples
    return p, rl / samples, np.sqrt(np.clip(p * (1 - p), 0.0, None) / samples)


def warm_up() -> None:
    """Compile (or load from the kernel cache) the Monte Carlo kernel on a one-round pool, so that a
    command can say the compilation before its work (``handsim equity``)."""
    pool = RoundPool(np.array([[-30, 10, 20]], np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64), 3, True,
                     ("x",) * 3)
    equity_mc(pool, [0, 0, 0], 0, 1, 0, samples=1)


def equity_table(pool: RoundPool, rounds: int, *, me: int = 0, partnership: bool = False,
                 highest_scorer: bool = False, dealer_right: bool = True, last_loses: bool = False,
                 lead_max: int = 200, lead_step: int = 10, samples: int = 20000, seed: int = 0,
                 bootstrap: int = 0, progress=None) -> pd.DataFrame:
    """The match equity table: ``me``'s chance of winning by rounds left, lead and who starts next.

    The lead is over every opponent, the opponents level with each other: ``lead`` > 0 says ``me``
    has that many points fewer than each of them (lower is better, RULES.md section 6).

    Returns
    -------
    pandas.DataFrame
        Columns ``rounds_left`` (1 .. ``rounds``), ``lead`` (points, ``-lead_max .. lead_max`` by
        ``lead_step``), ``seat_next`` (``me``'s seat in the next round's playing order: 0 = ``me``
        starts, 1 = plays second, ...), ``p_win``, ``se`` (0 for the exact two-side table),
        ``p_lose`` (``last_loses`` only, else empty) and ``method`` (``dp`` or ``mc``).
        With ``bootstrap`` = B > 0 also ``pool_se`` (the standard deviation of ``p_win`` over B
        bootstrap replicates of the field's rounds, the same continuations' seed in each: what the
        finite sample of rounds adds), ``ci_low`` / ``ci_high`` (``p_win`` -+ 1.96 x the root of
        ``se``^2 + ``pool_se``^2, within 0..1).

    ``progress`` is called with 1 after each number of rounds left of each table (1 + B tables).
    """
    kw = dict(me=me, partnership=partnership, highest_scorer=highest_scorer, dealer_right=dealer_right,
              last_loses=last_loses, lead_max=lead_max, lead_step=lead_step, samples=samples, seed=seed,
              progress=progress)
    tab = _table_once(pool, rounds, **kw)
    if bootstrap > 0:
        reps = np.stack([_table_once(pool.resample(seed * 1000003 + b + 1), rounds, **kw)["p_win"].to_numpy()
                         for b in range(bootstrap)])
        tab["pool_se"] = reps.std(axis=0, ddof=1) if bootstrap > 1 else 0.0
        half = 1.96 * np.sqrt(tab["se"] ** 2 + tab["pool_se"] ** 2)
        tab["ci_low"] = (tab["p_win"] - half).clip(0, 1)
        tab["ci_high"] = (tab["p_win"] + half).clip(0, 1)
    return tab


def _table_once(pool, rounds, *, me, partnership, highest_scorer, dealer_right, last_loses, lead_max, lead_step,
                samples, seed, progress):
    P = pool.players
    leads = np.arange(-lead_max, lead_max + 1, lead_step)
    two = P == 2 or partnership
    rows = []
    if two:
        E = equity_two_sides(pool, me, rounds, partnership, highest_scorer, dealer_right, lead_max)
        for r in range(1, rounds + 1):
            for off in range(P):
                k = (me - off) % P
                for L in leads:
                    rows.append((r, int(L), off, float(E[r, k, lead_max + L]), 0.0, np.nan, "dp"))
            if progress:
                progress(1)
    else:
        for r in range(1, rounds + 1):
            for off in range(P):
                k = (me - off) % P
                p, pl, se = equity_mc(pool, np.zeros(P, np.int64), k, r, me, samples, seed, highest_scorer,
                                      dealer_right, last_loses, leads=leads)
                for j, L in enumerate(leads):
                    rows.append((r, int(L), off, float(p[j]), float(se[j]), float(pl[j]) if last_loses else np.nan,
                                 "mc"))
            if progress:
                progress(1)
    return pd.DataFrame(rows, columns=["rounds_left", "lead", "seat_next", "p_win", "se", "p_lose", "method"])


def equity_figure(table: pd.DataFrame, title: str):
    """Curves of the chance of winning against the lead, one per number of rounds left (averaged
    over the seat in the next round), as a matplotlib Figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    mean = table.groupby(["rounds_left", "lead"], as_index=False)["p_win"].mean()
    rounds = sorted(mean["rounds_left"].unique())
    show = rounds if len(rounds) <= 6 else sorted({rounds[0], rounds[1], rounds[len(rounds) // 2], rounds[-2], rounds[-1]} | {rounds[2]})
    cmap = plt.get_cmap("viridis")
    for i, r in enumerate(show):
        m = mean[mean["rounds_left"] == r]
        ax.plot(m["lead"], m["p_win"], color=cmap(i / max(len(show) - 1, 1)), label=f"{r} round{'s' if r > 1 else ''} left")
    ax.axhline(1 / max(len(table["seat_next"].unique()), 2) if table["method"].iloc[0] == "mc" else 0.5,
               color="grey", lw=0.8, ls=":")
    ax.axvline(0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("lead over every opponent, points (negative: behind)")
    ax.set_ylabel("chance of winning the match (mean over the seat in the next round)")
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def per_deal_mismatch(rows: pd.DataFrame, accumulator, config: int, lineup: int) -> str:
    """Whether a study's per-deal rows are what its checkpoint counted (issue 23, cause 1's kind).

    Per seat of configuration ``config`` and line-up ``lineup``, the rows' rounds, points and rounds
    gone out must equal the checkpoint's ``seat`` counters (summed over the policies).

    Parameters
    ----------
    rows : pandas.DataFrame
        The per-deal rows of that configuration and line-up: columns ``seat`` (int), ``score``
        (points) and ``went_out`` (bool), one row per seat and round.
    accumulator : handsim.games.hand.stats.Accumulator
        The study checkpoint's accumulator (its ``_seat`` array, ``int64[C, L, K, P, NS]``).
    config, lineup : int
        The configuration and line-up.

    Returns
    -------
    str
        ``""`` when they agree, else the first difference in words, to follow the per-deal folder's
        name (``"does not hold the rows its study's checkpoint counted: configuration 0, ..."``).
    """
    from handsim.games.hand.layout import S_OUT, S_ROUNDS, S_SCORE

    seat = accumulator._seat[config, lineup].sum(axis=0)  # (P, NS): over the policies
    by_seat = rows.groupby("seat").agg(n=("score", "size"), score=("score", "sum"), out=("went_out", "sum"))
    for s in range(seat.shape[0]):
        got = by_seat.loc[s] if s in by_seat.index else pd.Series({"n": 0, "score": 0, "out": 0})
        for col, i, what in (("n", S_ROUNDS, "rounds"), ("score", S_SCORE, "points"), ("out", S_OUT, "rounds gone out")):
            if int(got[col]) != int(seat[s, i]):
                return (f"does not hold the rows its study's checkpoint counted: configuration {config}, line-up "
                        f"{lineup}, seat {s}: {int(got[col]):,} {what} in the rows, {int(seat[s, i]):,} in the "
                        "checkpoint ('seat'); restore the folder or run the study again with --per-deal")
    extra = sorted(set(int(x) for x in by_seat.index) - set(range(seat.shape[0])))
    if extra:
        return f"holds rows of seat {extra[0]}, which its study does not have"
    return ""
