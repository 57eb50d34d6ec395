"""Pieces of the round and match drivers that call no policy (numba; RULES.md sections 3, 6, 7).

Seating a line-up, writing a finished deal's outcome, the match standings: compiled once and
shared by the built-in engine and every engine generated for user-written policies
(:mod:`handsim.games.hand.kernels.engine` holds only what calls the policies).
"""

import numpy as np
from numba import njit

from handsim.games.hand.kernels.consts import JOKER, MAX_SEATS
from handsim._kernels.rng import randbelow, stream_key
from handsim.games.hand.kernels.params import DEALER_HIGHEST_SCORER, P_DEALER_ROTATION
from handsim.games.hand.kernels.state import (
    E_TRACE_FULL,
    ER_CODE,
    N_POLICY_PARAMS,
    Q_OPENED,
    S_ERR,
    S_IS_HAND,
    S_OUT_SEAT,
    S_PLAYERS,
    S_RESHUF,
    S_STARTER,
    S_STATUS,
    S_TR_N,
    S_TR_OVER,
    S_TURN,
    STATUS_OUT,
    STATUS_VOID,
    starter_of,
)

FLAG_OPENED = 1
FLAG_OUT = 2
FLAG_HAND = 4
FLAG_JOKER_LEFT = 8  # the round ended with a joker in the seat's hand (void rounds too)

#: Most tie-break rounds of a match (RULES.md section 7).
MAX_TIEBREAKS = 50


@njit(cache=True)
def keep_alive(arr):
    """A use of the game array after the last use of its record ``g = arr[0]``.

    numba frees a local array after its *last use*; a record taken from it does not keep it
    alive, so every function that works through ``g`` calls this at its end.
    """
    return arr.shape[0]


@njit(cache=True)
def deal_setup(seed, i, players, rv, pol, pp, rotate, pol_seat, pp_seat):
    """Dealer and seating of deal ``i``: returns ``(dealer, stream state for the shuffle)``.

    Line-up position ``j`` sits ``(j + rotate) % players`` seats after the starter."""
    st = np.empty(1, dtype=np.uint64)
    st[0] = stream_key(seed, i, 0)
    dealer = randbelow(st, players)
    starter = starter_of(dealer, players, rv)
    for j in range(players):
        s = (starter + (j + rotate) % players) % players
        pol_seat[s] = pol[j]
        for k in range(N_POLICY_PARAMS):
            pp_seat[s, k] = pp[j, k]
    return dealer, st[0]


@njit(cache=True)
def seat_flags(g, s):
    """Outcome bits of seat ``s``: FLAG_OPENED, FLAG_OUT, FLAG_HAND, FLAG_JOKER_LEFT."""
    f = 0
    if g.hands[s, JOKER] > 0:
        f |= FLAG_JOKER_LEFT
    if g.seat[s, Q_OPENED]:
        f |= FLAG_OPENED
    if g.sc[S_STATUS] == STATUS_OUT and g.sc[S_OUT_SEAT] == s:
        f |= FLAG_OUT
        if g.sc[S_IS_HAND]:
            f |= FLAG_HAND
    return f


@njit(cache=True)
def write_deal(g, k, o_score, o_flags, o_turns, o_void, o_resh, o_err):
    P = g.sc[S_PLAYERS]
    starter = g.sc[S_STARTER]
    for rel in range(P):
        s = (starter + rel) % P
        o_score[k, rel] = g.scores[s]
        o_flags[k, rel] = seat_flags(g, s)
    o_turns[k] = g.sc[S_TURN]
    o_void[k] = 1 if g.sc[S_STATUS] == STATUS_VOID else 0
    o_resh[k] = g.sc[S_RESHUF]
    o_err[k] = g.sc[S_ERR]


@njit(cache=True)
def traced_result(g, players):
    """Copies of a finished traced round: ``(trace, status, scores, flags by seat, error record)``;
    the error record is ``g.err`` (``int64[ERR_WIDTH]``, code 0 = none); a full move log is
    reported as :data:`E_TRACE_FULL`."""
    flags = np.zeros(MAX_SEATS, dtype=np.uint8)
    for s in range(players):
        flags[s] = seat_flags(g, s)
    tr = g.tr[: g.sc[S_TR_N]].copy()
    err = g.err.copy()
    if err[ER_CODE] == 0 and g.sc[S_TR_OVER] != 0:
        err[ER_CODE] = E_TRACE_FULL
    return tr, g.sc[S_STATUS], g.scores.copy(), flags, err


@njit(cache=True)
def standings(totals, wins, P, last_loses, team, out_win, out_lose):
    """Winner (unique lowest total) and, with ``last_loses``, the loser (RULES.md section 7).

    With ``team`` (2 v 2, partners opposite) the totals compared are the team sums
    ``totals[s] + totals[s + P // 2]`` and both partners of the lower team win.  Returns False when the lowest total is shared
    (a tie-break round is needed).  The loser is the single highest total; a tie for last goes
    to the fewest round wins, and a tie on that too makes every seat still tied a loser.
    """
    if team:
        half = P // 2
        a = totals[0] + totals[half]
        b = totals[1] + totals[1 + half]
        for s in range(P):
            out_win[s] = 0
            out_lose[s] = 0
        if a == b:
            return False
        w = 0 if a < b else 1
        out_win[w] = 1
        out_win[w + half] = 1
        return True
    lo = totals[0]
    for s in range(1, P):
        if totals[s] < lo:
            lo = totals[s]
    nlo = 0
    for s in range(P):
        out_win[s] = 0
        out_lose[s] = 0
        if totals[s] == lo:
            nlo += 1
    if nlo > 1:
        return False
    for s in range(P):
        if totals[s] == lo:
            out_win[s] = 1
    if last_loses:
        hi = totals[0]
        for s in range(1, P):
            if totals[s] > hi:
                hi = totals[s]
        minw = 1 << 30
        for s in range(P):
            if totals[s] == hi and out_win[s] == 0 and wins[s] < minw:
                minw = wins[s]
        for s in range(P):
            if totals[s] == hi and out_win[s] == 0 and wins[s] == minw:
                out_lose[s] = 1
    return True


@njit(cache=True)
def hand_decided(totals, wins, rs, rhand, nr, P, last_loses, team, w, t2, w2, l2):
    """Whether a single Hand decided the match: some round finished by a Hand without which
    (its scores taken off every total, its round win off the winner's count) the winner would
    differ or be tied."""
    for r in range(nr):
        if rhand[r] < 0:
            continue
        for s in range(P):
            t2[s] = totals[s] - rs[r, s]
        wins[rhand[r]] -= 1
        ok = standings(t2, wins, P, last_loses, team, w2, l2)
        wins[rhand[r]] += 1
        if not ok:
            return True
        for s in range(P):
            if w2[s] != w[s]:
                return True
    return False


#: No seat out of the match (a match of fixed ``rounds``): :func:`next_dealer` is
#: :func:`next_active_dealer` with every seat still in (a compile-time constant to numba).
_NONE_GONE = np.zeros(MAX_SEATS, dtype=np.int64)


@njit(cache=True)
def next_dealer(scores, dealer, players, rv):
    """The dealer of a match's next round (``dealer_rotation``, RULES.md section 7): the next seat,
    or with ``highest_scorer`` the seat with the most points in ``scores`` (the round just played),
    the first in playing order after ``dealer`` among tied seats (a void round: the next seat);
    :func:`next_active_dealer` with every seat still in."""
    return next_active_dealer(scores, dealer, players, rv, _NONE_GONE)


@njit(cache=True)
def match_setup(seed, m, players, pol, pp, pol_seat, pp_seat):
    """Seating of match ``m`` (line-up position ``j`` at seat ``(j + m) % players`` for the whole
    match) into ``pol_seat`` / ``pp_seat``; returns the first round's dealer."""
    st = np.empty(1, dtype=np.uint64)
    st[0] = stream_key(seed, m, 0)
    first_dealer = randbelow(st, players)
    for j in range(players):
        s = (j + m) % players
        pol_seat[s] = pol[j]
        for q in range(N_POLICY_PARAMS):
            pp_seat[s, q] = pp[j, q]
    return first_dealer


@njit(cache=True)
def active_seats(gone, players, act):
    """The seats still in an elimination match (``gone[s] == 0``), in seat order, into ``act``;
    returns how many (RULES.md section 7, ``elimination_score``)."""
    q = 0
    for s in range(players):
        if gone[s] == 0:
            act[q] = s
            q += 1
    return q


@njit(cache=True)
def next_active_dealer(scores, dealer, players, rv, gone):
    """The next dealer of an elimination match among the seats still in (``gone[s] == 0``): the
    first of them in playing order after ``dealer``, or with ``highest_scorer`` the one with the
    most points in ``scores`` (the round just played, by seat), the first in playing order after
    ``dealer`` among tied seats; -1 when no seat is left."""
    best = -1
    for i in range(1, players + 1):
        s = (dealer + i) % players
        if gone[s] != 0:
            continue
        if best < 0:
            best = s
            if rv[P_DEALER_ROTATION] != DEALER_HIGHEST_SCORER:
                return best
        elif scores[s] > scores[best]:
            best = s
    return best


@njit(cache=True)
def elimination_standings(totals, wins, gone, players, out_win):
    """The winners of a finished elimination match into ``out_win`` (1/0 by seat; RULES.md section
    7): the one seat left, or at the round cap the lowest total among the seats left, then the
    most round wins; seats still tied share the win (all 1)."""
    lo = 1 << 40
    for s in range(players):
        out_win[s] = 0
        if gone[s] == 0 and totals[s] < lo:
            lo = totals[s]
    most = -1
    for s in range(players):
        if gone[s] == 0 and totals[s] == lo and wins[s] > most:
            most = wins[s]
    for s in range(players):
        if gone[s] == 0 and totals[s] == lo and wins[s] == most:
            out_win[s] = 1
