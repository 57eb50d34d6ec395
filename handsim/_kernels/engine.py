"""Round and match drivers (numba; RULES.md sections 3, 6 and 7).

``play_deals`` plays a chunk of independent deals; each deal ``i`` takes
everything random from the stream ``stream_key(seed, i, 0)`` and writes only its own output
rows, so results are identical for any number of threads.  ``play_matches`` does the same for
whole matches.  ``play_traced`` replays one deal with the move log switched on.
"""

import numpy as np
from numba import njit

from .params import (
    PICKUP_MUST_OPEN,
    P_DISCARD_PICKUP,
    P_PARTNERSHIP,
    P_ROUNDS,
    P_STANDINGS,
    STANDINGS_LAST_LOSES,
)
from .policies import begin_turn, choose_draw, play
from .consts import MAX_SEATS, NO_CARD
from .rng import randbelow, stream_key
from .state import (
    E_EMPTY_NO_DISCARD,
    E_TRACE_FULL,
    E_NEW_MELD_ONLY,
    E_TOO_LONG,
    E_TOOK_WITHOUT_OPENING,
    E_BAD_DISCARD,
    EV_TURN,
    MAX_TURNS,
    N_POLICY_PARAMS,
    Q_LAID_BEFORE,
    Q_OPENED,
    Q_OWN_TURNS,
    S_ERR,
    S_N_DECK,
    S_TR_N,
    S_TR_OVER,
    S_PLAYERS,
    S_RESHUF,
    S_STARTER,
    S_STATUS,
    S_OUT_SEAT,
    S_IS_HAND,
    S_T_LAID,
    S_T_NEWMELD,
    S_T_OPENED,
    S_T_OTHERS,
    S_T_TAKEN_MELDED,
    S_T_TAKEN_USED,
    S_TAKEN,
    S_TAKEN_C0,
    S_TURN,
    STATUS_OUT,
    STATUS_PLAYING,
    STATUS_VOID,
    discard,
    draw_stock,
    fail,
    go_out,
    go_out_requires_discard,
    log,
    deal_from_deck,
    new_game,
    seat_policies,
    reset_round,
    starter_of,
    take_discard,
    top_discard,
)

FLAG_OPENED = 1
FLAG_OUT = 2
FLAG_HAND = 4


@njit(cache=True)
def keep_alive(arr):
    """A use of the game array after the last use of its record ``g = arr[0]``.

    numba frees a local array after its *last use*; a record taken from it does not keep it
    alive, so every function that works through ``g`` calls this at its end.
    """
    return arr.shape[0]


@njit(cache=True)
def play_turn(g, seat, first):
    """One turn of ``seat`` (RULES.md section 3): draw (not on the starter's first turn),
    the policy's melds / lay-offs / swaps, the discard; ends the round when the hand empties."""
    g.sc[S_TURN] += 1
    g.seat[seat, Q_OWN_TURNS] += 1
    g.sc[S_TAKEN] = NO_CARD
    g.sc[S_TAKEN_C0] = 0
    g.sc[S_T_NEWMELD] = 0
    g.sc[S_T_OTHERS] = 0
    g.sc[S_T_LAID] = 0
    g.sc[S_T_TAKEN_MELDED] = 0
    g.sc[S_T_TAKEN_USED] = 0
    g.sc[S_T_OPENED] = 0
    log(g, EV_TURN, seat, g.sc[S_TURN], 0, 0, 0, 0, 0, 0)
    begin_turn(g, seat)
    if not first:
        src = choose_draw(g, seat)
        if src == 1 and top_discard(g) != NO_CARD:
            take_discard(g, seat)
        else:
            if draw_stock(g, seat) == NO_CARD:
                return
    d = play(g, seat)
    if g.sc[S_STATUS] != STATUS_PLAYING:
        return
    if g.sc[S_TAKEN] != NO_CARD:
        if g.seat[seat, Q_OPENED] == 0:
            fail(g, E_TOOK_WITHOUT_OPENING)
            return
        if g.rv[P_DISCARD_PICKUP] != PICKUP_MUST_OPEN and g.sc[S_T_TAKEN_MELDED] == 0:
            fail(g, E_NEW_MELD_ONLY)
            return
    if g.hand_n[seat] == 0:
        if go_out_requires_discard(g):
            fail(g, E_EMPTY_NO_DISCARD)
            return
        go_out(g, seat)
        return
    if d < 0:
        fail(g, E_BAD_DISCARD)
        return
    if not discard(g, seat, d):
        return
    if g.hand_n[seat] == 0:
        go_out(g, seat)
    if g.sc[S_T_LAID] != 0:
        g.seat[seat, Q_LAID_BEFORE] = 1


@njit(cache=True)
def play_dealt_round(g):
    """Play a dealt round to its end, the starter first; returns the status."""
    P = g.sc[S_PLAYERS]
    seat = g.sc[S_STARTER]
    first = True
    while g.sc[S_STATUS] == STATUS_PLAYING:
        if g.sc[S_TURN] >= MAX_TURNS:
            fail(g, E_TOO_LONG)
            break
        play_turn(g, seat, first)
        first = False
        seat = (seat + 1) % P
    return g.sc[S_STATUS]


@njit(cache=True)
def play_round(g, dealer, key):
    """Deal from stream state ``key`` and play the round to its end; returns the status."""
    reset_round(g, dealer, key)
    return play_dealt_round(g)


@njit(cache=True)
def _deal_setup(seed, i, players, rv, pol, pp, rotate, pol_seat, pp_seat):
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
    """Outcome bits of seat ``s``: FLAG_OPENED, FLAG_OUT, FLAG_HAND."""
    f = 0
    if g.seat[s, Q_OPENED]:
        f |= FLAG_OPENED
    if g.sc[S_STATUS] == STATUS_OUT and g.sc[S_OUT_SEAT] == s:
        f |= FLAG_OUT
        if g.sc[S_IS_HAND]:
            f |= FLAG_HAND
    return f


@njit(cache=True)
def _write_deal(g, k, o_score, o_flags, o_turns, o_void, o_resh, o_err):
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
        Rules vector (:meth:`handsim.rules.Rules.to_vector`).
    pol : ndarray(int64, shape=(players,))
        Policy id of each line-up position.
    pp : ndarray(float64, shape=(players, 8))
        Policy parameters of each line-up position.
    o_score : ndarray(int32, shape=(n, players))
        Out: points of each seat, indexed by seat relative to the starter.
    o_flags : ndarray(uint8, shape=(n, players))
        Out: bit 0 opened, bit 1 went out, bit 2 Hand.
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
        dealer, key = _deal_setup(seed, i, players, rv, pol, pp, i % players, pol_seat, pp_seat)
        seat_policies(g, pol_seat, pp_seat)
        play_round(g, dealer, key)
        _write_deal(g, k, o_score, o_flags, o_turns, o_void, o_resh, o_err)
    keep_alive(arr)


@njit(cache=True)
def play_traced(seed, i, players, rv, pol, pp):
    """Replay deal ``i`` exactly as :func:`play_deals` plays it, with the move log on.

    Returns ``(trace int16[m, 24], deck int8[N], dealer, status, scores int64[MAX_SEATS],
    flags uint8[MAX_SEATS] by seat, policy id by seat int64[MAX_SEATS], error code)``.
    """
    pol_seat = np.zeros(MAX_SEATS, dtype=np.int64)
    pp_seat = np.zeros((MAX_SEATS, N_POLICY_PARAMS), dtype=np.float64)
    dealer, key = _deal_setup(seed, i, players, rv, pol, pp, i % players, pol_seat, pp_seat)
    arr = new_game(players, rv, True)
    g = arr[0]
    seat_policies(g, pol_seat, pp_seat)
    play_round(g, dealer, key)
    tr, status, scores, flags, err = _traced_result(g, players)
    deck = g.deck[: g.sc[S_N_DECK]].copy()
    keep_alive(arr)
    return tr, deck, dealer, status, scores, flags, pol_seat, err


@njit(cache=True)
def _traced_result(g, players):
    """Copies of a finished traced round: ``(trace, status, scores, flags by seat, error)``;
    a full move log is reported as :data:`E_TRACE_FULL`."""
    flags = np.zeros(MAX_SEATS, dtype=np.uint8)
    for s in range(players):
        flags[s] = seat_flags(g, s)
    tr = g.tr[: g.sc[S_TR_N]].copy()
    err = g.sc[S_ERR]
    if err == 0 and g.sc[S_TR_OVER] != 0:
        err = E_TRACE_FULL
    return tr, g.sc[S_STATUS], g.scores.copy(), flags, err


MAX_TIEBREAKS = 50


@njit(cache=True)
def _standings(totals, wins, P, last_loses, team, out_win, out_lose):
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
def _hand_decided(totals, wins, rs, rhand, nr, P, last_loses, team, w, t2, w2, l2):
    """Whether a single Hand decided the match: some round finished by a Hand without which
    (its scores taken off every total, its round win off the winner's count) the winner would
    differ or be tied."""
    for r in range(nr):
        if rhand[r] < 0:
            continue
        for s in range(P):
            t2[s] = totals[s] - rs[r, s]
        wins[rhand[r]] -= 1
        ok = _standings(t2, wins, P, last_loses, team, w2, l2)
        wins[rhand[r]] += 1
        if not ok:
            return True
        for s in range(P):
            if w2[s] != w[s]:
                return True
    return False


@njit(cache=True)
def _match_setup(seed, m, players, pol, pp, pol_seat, pp_seat):
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
def play_traced_match_round(seed, m, r, players, rv, pol, pp):
    """Replay round ``r`` (0-based, tie-break rounds after the regular ones) of match ``m``
    exactly as :func:`play_matches` plays it, with the move log on.  A round depends only on
    ``(seed, m, r)``, the rules and the line-up, not on earlier rounds.

    Returns what :func:`play_traced` returns.
    """
    pol_seat = np.zeros(MAX_SEATS, dtype=np.int64)
    pp_seat = np.zeros((MAX_SEATS, N_POLICY_PARAMS), dtype=np.float64)
    first_dealer = _match_setup(seed, m, players, pol, pp, pol_seat, pp_seat)
    dealer = (first_dealer + r) % players
    arr = new_game(players, rv, True)
    g = arr[0]
    seat_policies(g, pol_seat, pp_seat)
    play_round(g, dealer, stream_key(seed, m, r + 1))
    tr, status, scores, flags, err = _traced_result(g, players)
    deck = g.deck[: g.sc[S_N_DECK]].copy()
    keep_alive(arr)
    return tr, deck, dealer, status, scores, flags, pol_seat, err


@njit(cache=True)
def play_matches(seed, start, n, players, rv, pol, pp, o_score, o_flags, o_turns, o_void, o_resh, o_policy,
                 o_win, o_lose, o_tiebreaks, o_total, o_hand_decided, o_err):
    """Play matches ``start .. start+n-1`` (RULES.md section 7).

    A match is ``rounds`` rounds (``rv[P_ROUNDS]``, R); the first dealer is drawn from the
    stream ``(seed, match, 0)``, the deal moves one seat each round, round ``r`` is shuffled
    from ``(seed, match, r + 1)``.  While the lowest total is shared after round R, tie-break
    rounds follow (at most ``MAX_TIEBREAKS``).  Line-up position ``j`` sits at seat
    ``(j + match) % players`` for the whole match.

    Outputs have one row per *regular* round, ``k * R + r`` (the same rows for every
    configuration with the same R, so configurations pair up); seats are relative to the
    round's starter.  ``o_policy`` gives the line-up position in each seat; ``o_win`` /
    ``o_lose`` (1/0, 255 = no result), ``o_tiebreaks`` (-1 = no result), ``o_total`` (final
    match total of each seat, points, tie-breaks included) and ``o_hand_decided`` (1 when a
    single Hand decided the match, see :func:`_hand_decided`; 255 = no result) are filled on
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
        first_dealer = _match_setup(seed, m, players, pol, pp, pol_seat, pp_seat)
        seat_policies(g, pol_seat, pp_seat)
        totals[:] = 0
        wins[:] = 0
        r = 0
        err = 0
        while True:
            dealer = (first_dealer + r) % players
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
                _write_deal(g, row, o_score, o_flags, o_turns, o_void, o_resh, o_err)
                starter = g.sc[S_STARTER]
                for rel in range(players):
                    s = (starter + rel) % players
                    o_policy[row, rel] = (s - m) % players
                    o_win[row, rel] = 255
                    o_lose[row, rel] = 255
                o_tiebreaks[row] = -1
                o_hand_decided[row] = 255
            r += 1
            if r >= R and (_standings(totals, wins, players, last_loses, team, w, lz) or r >= R + MAX_TIEBREAKS):
                break
        row = k * R + R - 1
        starter = starter_of((first_dealer + R - 1) % players, players, rv)
        for rel in range(players):
            s = (starter + rel) % players
            o_win[row, rel] = w[s]
            o_lose[row, rel] = lz[s]
            o_total[row, rel] = totals[s]
        o_tiebreaks[row] = r - R
        o_hand_decided[row] = 1 if _hand_decided(totals, wins, rs, rhand, r, players, last_loses, team, w,
                                                 t2, w2, l2) else 0
        o_err[row] = err
    keep_alive(arr)


@njit(cache=True)
def play_stacked(deck, dealer, key, players, rv, pol_seat, pp_seat):
    """Play one round from an explicit deck order (no shuffle), with the move log on - for
    hand-built test situations.

    ``deck`` (int8[104 + jokers], card types, dealt as in ``docs/design.md``) replaces the
    shuffle; ``key`` seeds the stream used by reshuffles and random policies; policies are
    given by seat.  Returns ``(trace, status, scores int64[MAX_SEATS], flags uint8[MAX_SEATS], error code)``.
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
    tr, status, scores, flags, err = _traced_result(g, players)
    keep_alive(arr)
    return tr, status, scores, flags, err
