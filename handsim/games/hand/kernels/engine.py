"""Round and match drivers: the engine (numba; RULES.md sections 3, 6 and 7).

``play_deals`` plays a chunk of independent deals; each deal ``i`` takes everything random from
the stream ``stream_key(seed, i, 0)`` and writes only its own output rows, so results are
identical for any number of processes.  ``play_matches`` does the same for whole matches;
``play_traced`` / ``play_traced_match_round`` replay one deal with the move log on and
``play_stacked`` plays a hand-built deck.

This is the only kernel module that calls the policies, through the dispatch imported below.
The built-in engine imports the dispatch of the built-in policies
(:mod:`handsim.games.hand.kernels.dispatch`, generated from the registry); an engine for user-written
policies is this same source with that one import line replaced, written to the compilation
cache and imported from there (:mod:`handsim.games.hand.policies.engines`), so it is compiled and cached
on its own while the built-in engine stays as it is.  Keep every import absolute.
"""

import numpy as np
from numba import njit

from handsim.games.hand.kernels.consts import MAX_SEATS
from handsim.games.hand.kernels.driverlib import (  # noqa: F401  (FLAG_*, MAX_TIEBREAKS: re-exported)
    FLAG_HAND,
    FLAG_JOKER_LEFT,
    FLAG_OPENED,
    FLAG_OUT,
    MAX_TIEBREAKS,
    active_seats,
    deal_setup,
    elimination_standings,
    hand_decided,
    keep_alive,
    match_setup,
    next_active_dealer,
    next_dealer,
    seat_flags,
    standings,
    traced_result,
    write_deal,
)
from handsim.games.hand.kernels.params import (DEALER_HIGHEST_SCORER, ELIMINATION_CAP, P_DEALER_ROTATION,
                                               P_ELIMINATION, P_PARTNERSHIP, P_ROUNDS, P_STANDINGS,
                                               STANDINGS_LAST_LOSES)
from handsim._kernels.rng import stream_key
from handsim.games.hand.kernels.state import (
    N_POLICY_PARAMS,
    S_ERR,
    S_IS_HAND,
    S_N_DECK,
    S_OUT_SEAT,
    S_PLAYERS,
    S_STARTER,
    S_STATUS,
    S_TURN,
    STATUS_OUT,
    deal_from_deck,
    new_game,
    reset_round,
    seat_policies,
    starter_of,
)
from handsim.games.hand.kernels.turn import play_dealt_round_with
from handsim.games.hand.kernels.dispatch import begin_round, begin_turn, choose_draw, play  # DISPATCH


@njit(cache=True)
def play_dealt_round(g):
    """Play a dealt round to its end with the seats' policies; returns the status."""
    return play_dealt_round_with(g, begin_round, begin_turn, choose_draw, play)


@njit(cache=True)
def play_round(g, dealer, key):
    """Deal from stream state ``key`` and play the round to its end; returns the status."""
    reset_round(g, dealer, key)
    return play_dealt_round(g)


@njit(cache=True)
def play_deals(seed, start, n, players, rv, pol, pp, o_score, o_flags, o_turns, o_void, o_resh, o_err):
    """Play deals ``start .. start+n-1`` (independent rounds), one after the other.

    Parallelism is across chunks (processes) in :mod:`handsim.simulate`: each deal writes only
    its own output rows and reads only its own random stream, so any split gives equal results.

    Parameters
    ----------
    seed : int
    start, n : int
        First deal index and number of deals.
    players : int
        2..4 seats.
    rv : ndarray(int64)
        Rules vector (:meth:`handsim.games.hand.rules.Rules.to_vector`).
    pol : ndarray(int64, shape=(players,))
        Policy id of each line-up position.
    pp : ndarray(float64, shape=(players, 8))
        Policy parameters of each line-up position.
    o_score : ndarray(int32, shape=(n, players))
        Out: points of each seat, indexed by seat relative to the starter.
    o_flags : ndarray(uint8, shape=(n, players))
        Out: bit 0 opened, bit 1 went out, bit 2 Hand, bit 3 a joker left in hand at the end.
    o_turns : ndarray(int16, shape=(n,))
        Out: turns played in the round.
    o_void, o_resh, o_err : ndarray(uint8 / int8 / int8, shape=(n,))
        Out: void round, reshuffles made, engine error code (0 = none).

    Line-up position ``j`` sits ``(j + i) % players`` seats after the starter in deal ``i``.
    """
    arr = new_game(players, rv, False)
    g = arr[0]
    pol_seat = np.zeros(MAX_SEATS, dtype=np.int64)
    pp_seat = np.zeros((MAX_SEATS, N_POLICY_PARAMS), dtype=np.float64)
    for k in range(n):
        i = start + k
        dealer, key = deal_setup(seed, i, players, rv, pol, pp, i % players, pol_seat, pp_seat)
        seat_policies(g, pol_seat, pp_seat)
        play_round(g, dealer, key)
        write_deal(g, k, o_score, o_flags, o_turns, o_void, o_resh, o_err)
    keep_alive(arr)


@njit(cache=True)
def play_traced(seed, i, players, rv, pol, pp):
    """Replay deal ``i`` exactly as :func:`play_deals` plays it, with the move log on.

    Returns ``(trace int16[m, 24], deck int8[N], dealer, status, scores int64[MAX_SEATS],
    flags uint8[MAX_SEATS] by seat, policy id by seat int64[MAX_SEATS], error record int64[ERR_WIDTH])``
    (the error record of :mod:`handsim.games.hand.kernels.state`: ``ER_CODE`` 0 = no error).
    """
    pol_seat = np.zeros(MAX_SEATS, dtype=np.int64)
    pp_seat = np.zeros((MAX_SEATS, N_POLICY_PARAMS), dtype=np.float64)
    dealer, key = deal_setup(seed, i, players, rv, pol, pp, i % players, pol_seat, pp_seat)
    arr = new_game(players, rv, True)
    g = arr[0]
    seat_policies(g, pol_seat, pp_seat)
    play_round(g, dealer, key)
    tr, status, scores, flags, err = traced_result(g, players)
    deck = g.deck[: g.sc[S_N_DECK]].copy()
    keep_alive(arr)
    return tr, deck, dealer, status, scores, flags, pol_seat, err


@njit(cache=True)
def play_traced_match_round(seed, m, r, players, rv, pol, pp):
    """Replay round ``r`` (0-based, tie-break rounds after the regular ones) of match ``m``
    exactly as :func:`play_matches` plays it, with the move log on.  A round depends only on
    ``(seed, m, r)``, the rules and the line-up, not on earlier rounds - but for its dealer with
    ``dealer_rotation = highest_scorer``, for which rounds ``0 .. r-1`` are played first.

    Returns what :func:`play_traced` returns.
    """
    pol_seat = np.zeros(MAX_SEATS, dtype=np.int64)
    pp_seat = np.zeros((MAX_SEATS, N_POLICY_PARAMS), dtype=np.float64)
    first_dealer = match_setup(seed, m, players, pol, pp, pol_seat, pp_seat)
    dealer = (first_dealer + r) % players
    arr = new_game(players, rv, True)
    g = arr[0]
    seat_policies(g, pol_seat, pp_seat)
    if rv[P_DEALER_ROTATION] == DEALER_HIGHEST_SCORER:
        dealer = first_dealer
        for q in range(r):
            play_round(g, dealer, stream_key(seed, m, q + 1))
            dealer = next_dealer(g.scores, dealer, players, rv)
    play_round(g, dealer, stream_key(seed, m, r + 1))
    tr, status, scores, flags, err = traced_result(g, players)
    deck = g.deck[: g.sc[S_N_DECK]].copy()
    keep_alive(arr)
    return tr, deck, dealer, status, scores, flags, pol_seat, err


@njit(cache=True)
def play_matches(seed, start, n, players, rv, pol, pp, o_score, o_flags, o_turns, o_void, o_resh, o_policy,
                 o_win, o_lose, o_tiebreaks, o_total, o_hand_decided, o_err):
    """Play matches ``start .. start+n-1`` (RULES.md section 7).

    A match is ``rounds`` rounds (``rv[P_ROUNDS]``, R); the first dealer is drawn from the
    stream ``(seed, match, 0)``, the deal moves one seat each round (``dealer_rotation``: or to the
    round's highest scorer, :func:`~handsim.games.hand.kernels.driverlib.next_dealer`), round ``r`` is shuffled
    from ``(seed, match, r + 1)``.  While the lowest total is shared after round R, tie-break
    rounds follow (at most ``MAX_TIEBREAKS``).  Line-up position ``j`` sits at seat
    ``(j + match) % players`` for the whole match.

    Outputs have one row per *regular* round, ``k * R + r`` (the same rows for every
    configuration with the same R, so configurations pair up); seats are relative to the
    round's starter.  ``o_policy`` gives the line-up position in each seat; ``o_win`` /
    ``o_lose`` (1/0, 255 = no result), ``o_tiebreaks`` (-1 = no result), ``o_total`` (final
    match total of each seat, points, tie-breaks included) and ``o_hand_decided`` (1 when a
    single Hand decided the match, see :func:`~handsim.games.hand.kernels.driverlib.hand_decided`; 255 = no result) are filled on
    the match's last regular row.  Tie-break rounds count only towards the match result.
    With ``partnership`` the match is won by the team with the lower sum of totals.
    """
    R = rv[P_ROUNDS]
    arr = new_game(players, rv, False)
    g = arr[0]
    pol_seat = np.zeros(MAX_SEATS, dtype=np.int64)
    pp_seat = np.zeros((MAX_SEATS, N_POLICY_PARAMS), dtype=np.float64)
    totals = np.zeros(MAX_SEATS, dtype=np.int64)
    wins = np.zeros(MAX_SEATS, dtype=np.int64)
    w = np.zeros(MAX_SEATS, dtype=np.uint8)
    lz = np.zeros(MAX_SEATS, dtype=np.uint8)
    last_loses = rv[P_STANDINGS] == STANDINGS_LAST_LOSES
    team = rv[P_PARTNERSHIP] != 0
    rs = np.zeros((R + MAX_TIEBREAKS, MAX_SEATS), dtype=np.int64)
    rhand = np.zeros(R + MAX_TIEBREAKS, dtype=np.int64)
    t2 = np.zeros(MAX_SEATS, dtype=np.int64)
    w2 = np.zeros(MAX_SEATS, dtype=np.uint8)
    l2 = np.zeros(MAX_SEATS, dtype=np.uint8)
    for k in range(n):
        m = start + k
        first_dealer = match_setup(seed, m, players, pol, pp, pol_seat, pp_seat)
        seat_policies(g, pol_seat, pp_seat)
        totals[:] = 0
        wins[:] = 0
        r = 0
        err = 0
        dealer = first_dealer
        last_dealer = first_dealer  # of the last regular round
        while True:
            if r == R - 1:
                last_dealer = dealer
            play_round(g, dealer, stream_key(seed, m, r + 1))
            if g.sc[S_ERR] != 0 and err == 0:
                err = g.sc[S_ERR]
            rhand[r] = -1
            for s in range(players):
                totals[s] += g.scores[s]
                rs[r, s] = g.scores[s]
            if g.sc[S_STATUS] == STATUS_OUT:
                wins[g.sc[S_OUT_SEAT]] += 1
                if g.sc[S_IS_HAND]:
                    rhand[r] = g.sc[S_OUT_SEAT]
            if r < R:
                row = k * R + r
                write_deal(g, row, o_score, o_flags, o_turns, o_void, o_resh, o_err)
                starter = g.sc[S_STARTER]
                for rel in range(players):
                    s = (starter + rel) % players
                    o_policy[row, rel] = (s - m) % players
                    o_win[row, rel] = 255
                    o_lose[row, rel] = 255
                o_tiebreaks[row] = -1
                o_hand_decided[row] = 255
            dealer = next_dealer(g.scores, dealer, players, rv)
            r += 1
            if r >= R and (standings(totals, wins, players, last_loses, team, w, lz) or r >= R + MAX_TIEBREAKS):
                break
        row = k * R + R - 1
        starter = starter_of(last_dealer, players, rv)
        for rel in range(players):
            s = (starter + rel) % players
            o_win[row, rel] = w[s]
            o_lose[row, rel] = lz[s]
            o_total[row, rel] = totals[s]
        o_tiebreaks[row] = r - R
        o_hand_decided[row] = 1 if hand_decided(totals, wins, rs, rhand, r, players, last_loses, team, w,
                                                 t2, w2, l2) else 0
        o_err[row] = err
    keep_alive(arr)


@njit(cache=True)
def play_stacked(deck, dealer, key, players, rv, pol_seat, pp_seat):
    """Play one round from an explicit deck order (no shuffle), with the move log on - for
    hand-built test situations.

    ``deck`` (int8[104 + jokers], card types, dealt as in ``docs/design.md``) replaces the
    shuffle; ``key`` seeds the stream used by reshuffles and random policies; policies are
    given by seat.  Returns ``(trace, status, scores int64[MAX_SEATS], flags uint8[MAX_SEATS], error record)``.
    """
    arr = new_game(players, rv, True)
    g = arr[0]
    seat_policies(g, pol_seat, pp_seat)
    reset_round(g, dealer, key)
    n = g.sc[S_N_DECK]
    for i in range(n):
        g.deck[i] = deck[i]
    deal_from_deck(g)
    play_dealt_round(g)
    tr, status, scores, flags, err = traced_result(g, players)
    keep_alive(arr)
    return tr, status, scores, flags, err


@njit(cache=True)
def elimination_work():
    """The work arrays of an elimination match: policies by seat and by compact seat, the seats
    in the round, totals, round wins, the round each seat went out after, round scores, round
    outcome bits (``FLAG_*``) by seat and round lengths in turns."""
    return (np.zeros(MAX_SEATS, dtype=np.int64), np.zeros((MAX_SEATS, N_POLICY_PARAMS), dtype=np.float64),
            np.zeros(MAX_SEATS, dtype=np.int64), np.zeros((MAX_SEATS, N_POLICY_PARAMS), dtype=np.float64),
            np.zeros(MAX_SEATS, dtype=np.int64), np.zeros(MAX_SEATS, dtype=np.int64),
            np.zeros(MAX_SEATS, dtype=np.int64), np.zeros(MAX_SEATS, dtype=np.int64),
            np.zeros((ELIMINATION_CAP, MAX_SEATS), dtype=np.int64), np.zeros((ELIMINATION_CAP, MAX_SEATS), dtype=np.uint8),
            np.zeros(ELIMINATION_CAP, dtype=np.int64))


@njit(cache=True)
def elimination_round(g, seed, m, r, players, dealer, gone, pol_seat, pp_seat, act, pol_c, pp_c):
    """Deal and play round ``r`` of elimination match ``m`` with the seats still in (``gone[s] == 0``)
    only: they sit at a table of their number, in seat order (compact seat ``i`` is seat
    ``act[i]``), the dealer ``dealer`` (a seat still in), shuffled from ``(seed, m, r + 1)``; the
    round kernel plays it as any round.  Returns ``(seats in the round, the dealer's compact seat)``."""
    q = active_seats(gone, players, act)
    dc = 0
    for i in range(q):
        pol_c[i] = pol_seat[act[i]]
        for k in range(N_POLICY_PARAMS):
            pp_c[i, k] = pp_seat[act[i], k]
        if act[i] == dealer:
            dc = i
    g.sc[S_PLAYERS] = q
    seat_policies(g, pol_c, pp_c)
    play_round(g, dc, stream_key(seed, m, r + 1))
    return q, dc


@njit(cache=True)
def elimination_rounds(g, seed, m, players, rv, pol_seat, pp_seat, first_dealer, stop, totals, wins, gone, rs,
                       act, pol_c, pp_c, rf, rt):
    """Play elimination match ``m`` (RULES.md section 7, ``elimination_score`` = E > 0) from its first
    round until it ends - at most one seat left, or :data:`ELIMINATION_CAP` rounds - or until
    ``stop`` rounds are played.  After each round every seat still in whose total is above E is
    out (``gone[s]`` = the round, 1-based, after which it went out); the next dealer is
    :func:`~handsim.games.hand.kernels.driverlib.next_active_dealer`.  Fills ``totals``, ``wins``
    (rounds won by going out), ``gone``, ``rs[r, seat]`` (round scores, 0 for a seat out),
    ``rf[r, seat]`` (the round's outcome bits, ``FLAG_*``, 0 for a seat out) and ``rt[r]`` (its
    turns); returns ``(rounds played, the next round's dealer, first engine error code or 0)``."""
    E = rv[P_ELIMINATION]
    sc = np.zeros(MAX_SEATS, dtype=np.int64)
    dealer = first_dealer
    r = 0
    err = 0
    while r < stop:
        q, dc = elimination_round(g, seed, m, r, players, dealer, gone, pol_seat, pp_seat, act, pol_c, pp_c)
        if g.sc[S_ERR] != 0 and err == 0:
            err = g.sc[S_ERR]
        for s in range(players):
            sc[s] = 0
            rs[r, s] = 0
            rf[r, s] = 0
        for i in range(q):
            sc[act[i]] = g.scores[i]
            rs[r, act[i]] = g.scores[i]
            rf[r, act[i]] = seat_flags(g, i)
            totals[act[i]] += g.scores[i]
        rt[r] = g.sc[S_TURN]
        if g.sc[S_STATUS] == STATUS_OUT:
            wins[act[g.sc[S_OUT_SEAT]]] += 1
        left = 0
        for i in range(q):
            if totals[act[i]] > E:
                gone[act[i]] = r + 1
            else:
                left += 1
        r += 1
        dealer = next_active_dealer(sc, dealer, players, rv, gone)
        if left <= 1 or r >= ELIMINATION_CAP:
            break
    return r, dealer, err


@njit(cache=True)
def play_elimination_matches(seed, start, n, players, rv, pol, pp, o_rounds, o_first, o_win, o_total, o_out_after,
                             o_score, o_flags, o_turns, o_err):
    """Play elimination matches ``start .. start+n-1`` (RULES.md section 7, ``elimination_score`` > 0),
    writing what a match study reads of each (``handsim.games.hand.records.ELIMINATION_MATCH``).

    Seating and the first dealer as :func:`play_matches` (line-up position ``j`` at seat
    ``(j + match) % players``, the dealer drawn from ``(seed, match, 0)``); round ``r`` is shuffled
    from ``(seed, match, r + 1)`` and played by the seats still in (:func:`elimination_rounds`).

    Parameters
    ----------
    seed, start, n, players, rv, pol, pp
        As for :func:`play_matches`.
    o_rounds : ndarray(int16, shape=(n,))
        Out: rounds the match lasted (1 .. ELIMINATION_CAP).
    o_first : ndarray(int8, shape=(n,))
        Out: the line-up position of the first round's starter (seat 0 of the match's playing order).
    o_win : ndarray(uint8, shape=(n, players))
        Out: 1 for the winner by line-up position (more than one: a shared win at the cap).
    o_total : ndarray(int32, shape=(n, players))
        Out: each line-up position's final total, points.
    o_out_after : ndarray(int16, shape=(n, players))
        Out: the round (1-based) after which the position went out of the match, 0 = still in.
    o_score : ndarray(int16, shape=(n, ELIMINATION_CAP, players))
        Out: each round's score by line-up position (0 for a position out of the match and for
        rounds after the match's end).
    o_flags : ndarray(uint8, shape=(n, ELIMINATION_CAP, players))
        Out: each round's outcome bits (``FLAG_OPENED``, ``FLAG_OUT``, ``FLAG_HAND``,
        ``FLAG_JOKER_LEFT``) by line-up position, 0 for a position out and after the end.
    o_turns : ndarray(int16, shape=(n, ELIMINATION_CAP))
        Out: each round's turns, 0 after the end.
    o_err : ndarray(int8, shape=(n,))
        Out: the first engine error code of the match (0 = none).
    """
    arr = new_game(players, rv, False)
    g = arr[0]
    pol_seat, pp_seat, pol_c, pp_c, act, totals, wins, gone, rs, rf, rt = elimination_work()
    w = np.zeros(MAX_SEATS, dtype=np.uint8)
    for k in range(n):
        m = start + k
        first_dealer = match_setup(seed, m, players, pol, pp, pol_seat, pp_seat)
        totals[:] = 0
        wins[:] = 0
        gone[:] = 0
        nr, _, err = elimination_rounds(g, seed, m, players, rv, pol_seat, pp_seat, first_dealer, ELIMINATION_CAP,
                                        totals, wins, gone, rs, act, pol_c, pp_c, rf, rt)
        elimination_standings(totals, wins, gone, players, w)
        o_rounds[k] = nr
        o_err[k] = err
        o_first[k] = (starter_of(first_dealer, players, rv) - m) % players
        for r in range(nr):
            o_turns[k, r] = rt[r]
        for j in range(players):
            s = (j + m) % players
            o_win[k, j] = w[s]
            o_total[k, j] = totals[s]
            o_out_after[k, j] = gone[s]
            for r in range(nr):
                o_score[k, r, j] = rs[r, s]
                o_flags[k, r, j] = rf[r, s]
    keep_alive(arr)


@njit(cache=True)
def play_traced_elimination_round(seed, m, r, players, rv, pol, pp):
    """Replay round ``r`` (0-based) of elimination match ``m`` exactly as
    :func:`play_elimination_matches` plays it, with the move log on: rounds ``0 .. r-1`` are played
    first (they decide who is still in and who deals).

    Returns what :func:`play_traced` returns, with seats compact (the round's own table), and
    ``act int64[MAX_SEATS]`` (compact seat ``i`` is seat ``act[i]`` of the match) and the number
    of seats in the round, 0 when the match ended before round ``r``.
    """
    pol_seat, pp_seat, pol_c, pp_c, act, totals, wins, gone, rs, rf, rt = elimination_work()
    first_dealer = match_setup(seed, m, players, pol, pp, pol_seat, pp_seat)
    arr = new_game(players, rv, True)
    g = arr[0]
    nr, dealer, _ = elimination_rounds(g, seed, m, players, rv, pol_seat, pp_seat, first_dealer, r, totals, wins,
                                       gone, rs, act, pol_c, pp_c, rf, rt)
    q = 0
    dc = 0
    if nr == r and r < ELIMINATION_CAP and players - np.count_nonzero(gone[:players]) > 1:
        q, dc = elimination_round(g, seed, m, r, players, dealer, gone, pol_seat, pp_seat, act, pol_c, pp_c)
    tr, status, scores, flags, err = traced_result(g, max(q, 1))
    deck = g.deck[: g.sc[S_N_DECK]].copy()
    keep_alive(arr)
    return tr, deck, dc, status, scores, flags, pol_c.copy(), err, act.copy(), q
