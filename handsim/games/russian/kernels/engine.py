"""The Russian Hand engine (numba): the turn loop and the drivers (RULES.md §8).

``play_games`` plays a chunk of independent games: game ``i`` takes everything random (the
shuffle, the random policy's choices) from the stream ``stream_key(seed, i, 0)`` and writes
only its own output rows, so results are identical for any number of processes and every
configuration and line-up sees the same deck for the same ``i`` (common random numbers).
``play_traced`` replays one game with the move log on; ``play_stacked`` plays a hand-built
deck.  This is the only kernel module that calls the policies, through the generated dispatch.

A turn is one call of the seat's policy: it returns ``DRAW`` (take the top stock card; the turn
ends) or ``PLAY`` with a staged play, which :func:`~.state.apply_play` checks and carries out.
The game ends when a player empties the hand (that player wins), or on an empty stock
(``stock_out_end``): ``must_draw`` - at the first turn that is not a play while the stock is
empty; ``last_card`` - as soon as the last stock card is drawn.  Then the fewest cards wins, then
the lowest card value, else a draw.
"""

import numpy as np
from numba import njit

from handsim.games.russian.kernels.dispatch import begin_round, begin_turn, play
from handsim.games.russian.kernels.rearrange import new_workspace
from handsim.games.russian.kernels.state import (
    DRAW,
    END_OUT,
    ERR_BAD_ACTION,
    ERR_LOG_FULL,
    ERR_TURN_CAP,
    EV_OUT,
    EV_STOCK_OUT,
    EV_TURN,
    FLAG_OUT,
    FLAG_WON,
    LOG_SIZE,
    MAX_SEATS,
    PLAY,
    R_STOCK_OUT_END,
    SO_LAST_CARD,
    TURN_CAP,
    apply_play,
    deal,
    draw,
    hand_value,
    keep_alive,
    log_event,
    new_state,
    seat_policies,
    start_deck,
    stock_left,
    stock_out_result,
)


@njit(cache=True)
def play_dealt(g, flags):
    """Play a dealt game to its end.  Returns how it ended (``END_*``), or -1 on an engine
    error (``st.err``); writes the per-seat result ``flags`` (``FLAG_*``)."""
    st = g[0]
    P = st.players
    for s in range(P):
        flags[s] = 0
    for s in range(P):
        begin_round(g, s)
    while True:
        if st.turn >= TURN_CAP:
            st.err = ERR_TURN_CAP
            return -1
        seat = st.turn % P
        log_event(st, EV_TURN, seat, 0)
        st.searched = 0
        st.st_n = 0
        begin_turn(g, seat)
        a = play(g, seat)
        if st.err != 0:
            st.err_seat = seat
            return -1
        if st.searched:
            st.search_turns += 1
        st.own_turns[seat] += 1
        st.turn += 1
        if a == PLAY:
            if not apply_play(st, seat):
                return -1
            if st.hand_n[seat] == 0:
                log_event(st, EV_OUT, seat, 0)
                flags[seat] = FLAG_WON | FLAG_OUT
                return END_OUT
        elif a == DRAW:
            if stock_left(st) == 0:  # must_draw: a turn that is not a play, with nothing to draw
                log_event(st, EV_STOCK_OUT, seat, 0)
                return stock_out_result(st, flags)
            draw(st, seat)
            if st.rv[R_STOCK_OUT_END] == SO_LAST_CARD and stock_left(st) == 0:
                log_event(st, EV_STOCK_OUT, seat, 0)
                return stock_out_result(st, flags)
        else:
            st.err = ERR_BAD_ACTION
            st.err_seat = seat
            return -1


@njit(cache=True)
def play_games(seed, start, n, players, rv, pol, pp, o_flags, o_cards, o_value, o_turns, o_end, o_solves,
               o_searches, o_search_turns, o_err):
    """Play games ``start .. start+n-1`` of one configuration and line-up.

    Parameters
    ----------
    seed : uint64
    start, n : int
        First game index and number of games.
    players : int
        2..5.
    rv : ndarray(int64)
        ``RussianRules.to_vector()``.
    pol : ndarray(int64, shape=(P,))
        Policy id by line-up position; position ``j`` sits at seat ``(j + i) % P`` in game ``i``.
    pp : ndarray(float64, shape=(P, 8))
        Policy parameters by line-up position.
    o_flags : ndarray(uint8, shape=(n, P))
        Output by seat (seat 0 plays first): ``FLAG_WON``, ``FLAG_DREW``, ``FLAG_OUT``.
    o_cards, o_value : ndarray(int8 / int16, shape=(n, P))
        Output: cards left in each hand, and their value in points.
    o_turns : ndarray(int16, shape=(n,))
        Output: turns played.
    o_end : ndarray(uint8, shape=(n,))
        Output: ``END_OUT``, ``END_STOCK_WIN`` or ``END_STOCK_DRAW``.
    o_solves, o_searches, o_search_turns : ndarray(int32 / int32 / int16, shape=(n,))
        Output: calls of the rearrangement search, those that ran the dynamic programme, and
        turns that called it.
    o_err : ndarray(int8, shape=(n,))
        Output: 0, or an engine error code (``ERR_*``: a bug).
    """
    arr = new_state(players, rv, 0)
    st = arr[0]
    g = (st, new_workspace())
    flags = np.zeros(MAX_SEATS, np.uint8)
    for k in range(n):
        i = start + k
        seat_policies(st, i, pol, pp)
        deal(st, seed, i)
        end = play_dealt(g, flags)
        o_err[k] = st.err
        if end < 0:
            continue
        for s in range(players):
            o_flags[k, s] = flags[s]
            o_cards[k, s] = st.hand_n[s]
            o_value[k, s] = hand_value(st, s)
        o_turns[k] = st.turn
        o_end[k] = end
        o_solves[k] = st.solves
        o_searches[k] = st.searches
        o_search_turns[k] = st.search_turns
    keep_alive(arr)


@njit(cache=True)
def _traced(arr, g):
    st = g[0]
    P = st.players
    flags = np.zeros(P, np.uint8)
    end = play_dealt(g, flags)
    if st.err == 0 and st.n_log > LOG_SIZE:
        st.err = ERR_LOG_FULL
        end = -1
    cards = np.zeros(P, np.int64)
    value = np.zeros(P, np.int64)
    for s in range(P):
        cards[s] = st.hand_n[s]
        value[s] = hand_value(st, s)
    log = st.log[:min(st.n_log, LOG_SIZE)].copy()
    deck = st.deck.copy()
    pol = st.pol[:P].copy()
    err = np.array([st.err, st.err_why, st.err_seat, st.turn], np.int64)
    keep_alive(arr)
    return log, deck, flags, cards, value, end, pol, err


@njit(cache=True)
def play_traced(seed, i, players, rv, pol, pp):
    """Replay game ``i`` of ``seed`` with the move log on.

    Returns
    -------
    tuple
        ``(log int16[:], deck int8[104], flags uint8[P], cards int64[P], value int64[P], end,
        pol int64[P] (policy id by seat), err int64[4])`` - ``err`` is ``(code, why, seat,
        turns)``.
    """
    arr = new_state(players, rv, 1)
    st = arr[0]
    g = (st, new_workspace())
    seat_policies(st, i, pol, pp)
    deal(st, seed, i)
    return _traced(arr, g)


@njit(cache=True)
def play_stacked(deck, players, rv, pol_seat, pp_seat, key):
    """Play one game from the deck order ``deck`` (int8[104]) with policies by seat; ``key``
    seeds the random stream.  Returns what :func:`play_traced` returns."""
    arr = new_state(players, rv, 1)
    st = arr[0]
    g = (st, new_workspace())
    seat_policies(st, 0, pol_seat, pp_seat)
    for k in range(deck.shape[0]):
        st.deck[k] = deck[k]
    st.rng[0] = np.uint64(key)
    start_deck(st)
    return _traced(arr, g)
