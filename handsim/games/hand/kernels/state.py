"""Round state and the legal moves on it (numba; RULES.md sections 1-6): the moves on the table
(melds, lay-offs, joker swaps, the discard) are here; the state record itself, dealing, drawing,
scoring and the hand searches are in :mod:`.round`, whose names this module re-exports.

A round's state is a :class:`Game` named tuple of preallocated arrays (no jitclasses): hands as
card counts, the stock and discard pile as card sequences, the table melds in the encoding of
:mod:`handsim.games.hand.kernels.arrange`, scalars in ``sc`` and per-seat integers in ``seat``.  Every
move function checks legality and returns ``False`` (or sets an error code) instead of raising,
and appends an event row to the trace when tracing is on.

Trace rows (``int16[24]``): ``[type, seat, ...]`` with types

* ``EV_TURN`` ``[., seat, turn]``; ``EV_DRAW`` ``[., seat, card, source(0 stock, 1 pile)]``
* ``EV_MELD`` ``[., seat, index, kind, key, lo, hi, mask, njokers]``
* ``EV_LAYOFF`` ``[., seat, index, card, pos]`` (run position; set: suit, or -1 for a joker)
* ``EV_SWAP`` ``[., seat, index, card, pos]`` (run: the joker's position; set: the card's suit)
* ``EV_DISCARD`` ``[., seat, card]``; ``EV_OUT`` ``[., seat, is_hand]``; ``EV_VOID`` ``[.]``
* ``EV_RESHUFFLE`` ``[., n]`` followed by rows ``EV_CARDS`` ``[., k, c0 .. c(k-1)]`` (new stock, top first)
"""

import numpy as np
from numba import njit

from handsim.games.hand.kernels.bits import ctz
from handsim.games.hand.kernels.consts import JOKER, MAX_SEATS, N_SUITS, N_TYPES, NO_CARD, NO_SEAT, NO_TARGET
from handsim.games.hand.kernels.melds import (
    ACE_HIGH,
    M_HI,
    M_KEY,
    M_KIND,
    M_LO,
    M_MASK,
    M_NJ,
    MAX_SET,
    card_of,
    copy_meld,
    is_set,
    meld_is_legal,
    meld_jokers,
    meld_key,
    meld_size,
    meld_uses,
    meld_value,
    path_uses,
    position_rank,
    rank_of,
    run_has_joker_at,
    set_has_suit,
    set_jokers,
    suit_of,
)
from handsim.games.hand.kernels.params import (
    P_OPENING_SCOPE,
    SCOPE_TEAM,
    P_ACE,
    P_ACE_LOW,
    P_MIN_NATURAL,
    P_MAX_RUN,
    P_JOKER_SWAP,
    P_SET_JOKER_SWAP,
    SET_SWAP_FILL_SET,
    P_JOKERS,
    P_LAYOFF_ON_OPENING,
    P_HAND_WAIVES,
    P_MAX_JOKERS,
    P_DISCARD_PICKUP,
    P_OPEN_NEEDS_PICKUP,
    PICKUP_MUST_OPEN_USING,
    PICKUP_NEW_MELD_ONLY,
)
from .round import (  # noqa: F401  (moved to .round; re-exported)
    ERR_WIDTH, ER_A, ER_B, ER_C, ER_CODE, ER_MELD,
    ER_SEAT, ER_TURN, EV_CARDS, EV_DISCARD, EV_DRAW, EV_LAYOFF,
    EV_MELD, EV_OUT, EV_RESHUFFLE, EV_SWAP, EV_TURN, EV_VOID,
    EV_WIDTH, E_BAD_DISCARD, E_BAD_DRAW, E_BAD_LAYOFF, E_BAD_MELD, E_BAD_OPENING,
    E_BAD_SWAP, E_EMPTY_NO_DISCARD, E_NEW_MELD_ONLY, E_NONE, E_POLICY_RAISED, E_STATE_CHANGED, E_TABLE_FULL,
    E_TOOK_WITHOUT_OPENING, E_TOO_LONG, E_TOO_MANY_MOVES, E_TRACE_FULL, E_WAIVED_NOT_HAND, FIRST_USER_POLICY,
    E_OPENED_WITHOUT_PICKUP, E_OPENED_WITHOUT_TAKEN,
    GAME_DTYPE,
    MAX_EVENTS, MAX_MOVES_PER_TURN, MAX_TABLE, MAX_TURNS, MEMO, MEMORY_SLOTS,
    N_POLICY_PARAMS, N_Q, N_SC, Q_DISCARDED, Q_FOR_HAND, Q_LAID_BEFORE, Q_OPENED,
    Q_OPEN_VALUE, Q_OWN_TURNS, Q_PASSED, STATUS_ERROR, STATUS_OUT, STATUS_PLAYING, STATUS_VOID,
    S_DEALER, S_ERR, S_FIT, S_FIT_VER, S_IS_HAND, S_MAX_OPEN,
    S_N_DECK, S_N_MELDS, S_OUT_SEAT, S_PILE_N, S_PLAYERS, S_RESHUF,
    S_SEND, S_SP, S_STARTER, S_STATUS, S_TABLE_VER, S_TAKEN,
    S_TAKEN_C0, S_TRACE, S_TR_N, S_TR_OVER, S_TURN, S_TURN_SEAT,
    S_T_LAID, S_T_MOVES, S_T_NEWMELD, S_T_OPENED, S_T_OTHERS, S_T_TAKEN_MELDED,
    S_T_TAKEN_USED, S_T_WAIVED, WHY_EMPTY_PILE, WHY_ILLEGAL_MELD, WHY_NOT_A_SOURCE, WHY_NOT_HELD, WHY_NOT_OPENED,
    WHY_NO_DISCARD, WHY_NO_FIT, WHY_NO_MELD, WHY_ROUND_OVER, WHY_TAKEN_CARD, _fail_meld,
    _fail_move, _memo_pair, card_hand_value, could_meld, count_move, deal_from_deck,
    draw_stock, fail, fail_meld, fail_move, forget_searches, go_out,
    go_out_requires_discard, hand_min_cards, hand_search, hand_search_above, leaves_hand, log,
    log_cards, new_game, partner_of, required_for, required_opening, reset_round,
    score_round, seat_policies, starter_of, stock_left, take_discard, top_discard,
)


@njit(cache=True)
def _remove_meld_cards(g, seat, m):
    """Take the cards of meld ``m`` out of ``seat``'s hand; False if the hand lacks one."""
    if not is_set(m):
        s = meld_key(m)
        for q in range(m[M_LO], m[M_HI] + 1):
            t = JOKER if run_has_joker_at(m, q) else card_of(s, position_rank(q))
            if g.hands[seat, t] <= 0:
                return False
            g.hands[seat, t] -= 1
            g.hand_n[seat] -= 1
            leaves_hand(g, seat, t)
    else:
        r = meld_key(m)
        for s in range(N_SUITS):
            if set_has_suit(m, s):
                t = card_of(s, r)
                if g.hands[seat, t] <= 0:
                    return False
                g.hands[seat, t] -= 1
                g.hand_n[seat] -= 1
                leaves_hand(g, seat, t)
        nj = set_jokers(m)
        if g.hands[seat, JOKER] < nj:
            return False
        g.hands[seat, JOKER] -= nj
        g.hand_n[seat] -= nj
        for _ in range(nj):
            leaves_hand(g, seat, JOKER)
    return True


@njit(cache=True)
def _holds_meld_cards(g, seat, m):
    """Whether ``seat``'s hand holds every card of meld ``m`` (its naturals are distinct cards)."""
    if not is_set(m):
        s = meld_key(m)
        nj = 0
        for q in range(m[M_LO], m[M_HI] + 1):
            if run_has_joker_at(m, q):
                nj += 1
            elif g.hands[seat, card_of(s, position_rank(q))] <= 0:
                return False
        return g.hands[seat, JOKER] >= nj
    r = meld_key(m)
    for s in range(N_SUITS):
        if set_has_suit(m, s) and g.hands[seat, card_of(s, r)] <= 0:
            return False
    return g.hands[seat, JOKER] >= set_jokers(m)


@njit(cache=True)
def lay_melds(g, seat, path, n):
    """Put the first ``n`` melds of ``path`` from ``seat``'s hand on the table.

    An unopened seat opens with them: their total opening value must reach
    :func:`required_opening` (RULES.md section 4) - with ``hand_waives_threshold``, or else the
    turn must end in a Hand (``S_T_WAIVED`` holds the value required; :func:`waiver_broken`
    checks it at the turn's end; more melds of the same turn that reach it clear it).  Returns
    False (and sets an error) when the opening is too low, a meld is illegal or the hand lacks a
    card.
    """
    if n == 0:
        return True
    if g.sc[S_STATUS] != STATUS_PLAYING:
        return False
    rv = g.rv
    opening = g.seat[seat, Q_OPENED] == 0
    req = 0
    if opening:
        total = 0
        for i in range(n):
            total += meld_value(path[i], rv[P_ACE_LOW], rv[P_ACE])
        req = required_opening(g)
        if total < req and rv[P_HAND_WAIVES] == 0:
            fail_move(g, E_BAD_OPENING, total, req, n)
            return False
    for i in range(n):
        m = path[i]
        if not count_move(g):
            return False
        if not meld_is_legal(m, rv):
            fail_meld(g, E_BAD_MELD, m, i, WHY_ILLEGAL_MELD)
            return False
        k = g.sc[S_N_MELDS]
        if k >= MAX_TABLE:
            fail(g, E_TABLE_FULL)
            return False
        if not _holds_meld_cards(g, seat, m):
            fail_meld(g, E_BAD_MELD, m, i, WHY_NOT_HELD)
            return False
        _remove_meld_cards(g, seat, m)
        if g.sc[S_TAKEN] != NO_CARD:
            u = meld_uses(m, g.sc[S_TAKEN])
            g.sc[S_T_TAKEN_MELDED] += u
            g.sc[S_T_TAKEN_USED] += u
        copy_meld(m, g.melds[k])
        g.owner[k] = seat
        g.sc[S_N_MELDS] = k + 1
        g.sc[S_TABLE_VER] += 1
        if is_set(m):
            g.set_melds[meld_key(m)] |= np.int64(1) << k
        else:
            g.run_melds[meld_key(m)] |= np.int64(1) << k
        g.sc[S_T_NEWMELD] += meld_size(m)
        g.sc[S_T_LAID] = 1
        log(g, EV_MELD, seat, k, m[M_KIND], m[M_KEY], m[M_LO], m[M_HI], m[M_MASK], m[M_NJ])
    if opening:
        g.seat[seat, Q_OPENED] = 1
        g.seat[seat, Q_OPEN_VALUE] = total
        g.sc[S_T_OPENED] = 1
        if total < req:  # hand_waives_threshold: it stands only as a Hand
            g.sc[S_T_WAIVED] = req
        if rv[P_OPENING_SCOPE] == SCOPE_TEAM and partner_of(g, seat) != NO_SEAT:
            # opening_scope = team: the partner counts as opened too (RULES.md section 4)
            g.seat[partner_of(g, seat), Q_OPENED] = 1
    elif g.sc[S_T_OPENED] == 1:
        # more melds in the opening turn belong to the opening (RULES.md section 4)
        for i in range(n):
            g.seat[seat, Q_OPEN_VALUE] += meld_value(path[i], rv[P_ACE_LOW], rv[P_ACE])
        if g.sc[S_T_WAIVED] != 0 and g.seat[seat, Q_OPEN_VALUE] >= g.sc[S_T_WAIVED]:
            g.sc[S_T_WAIVED] = 0  # the opening reached the required value after all
    if g.sc[S_T_OPENED] == 1 and g.seat[seat, Q_OPEN_VALUE] > g.sc[S_MAX_OPEN]:
        g.sc[S_MAX_OPEN] = g.seat[seat, Q_OPEN_VALUE]
    return True


@njit(cache=True)
def waiver_broken(g, seat):
    """At the end of ``seat``'s turn: True (and ``E_WAIVED_NOT_HAND``) when it opened below the
    required value under ``hand_waives_threshold`` (``S_T_WAIVED``) and the turn is no Hand: cards
    are left in the hand, one went onto another player's meld, or fewer than
    ``hand_min_new_meld_cards`` went into new melds (RULES.md sections 4 and 6)."""
    if g.sc[S_T_WAIVED] == 0:
        return False
    if g.hand_n[seat] == 0 and g.sc[S_T_OTHERS] == 0 and g.sc[S_T_NEWMELD] >= hand_min_cards(g):
        return False
    fail_move(g, E_WAIVED_NOT_HAND, g.seat[seat, Q_OPEN_VALUE], g.sc[S_T_WAIVED], g.hand_n[seat])
    return True


@njit(cache=True)
def unopened_at_turn_start(g, seat):
    """Whether ``seat`` had not opened when its turn began: it has not opened, or it is its turn
    and it opened in it."""
    if g.seat[seat, Q_OPENED] == 0:
        return True
    return seat == g.sc[S_TURN_SEAT] and g.sc[S_T_OPENED] == 1


@njit(cache=True)
def taken_needs_new_meld(g, seat):
    """Whether a card ``seat`` takes from the discard pile in its turn must go into a new meld of
    that turn (RULES.md sections 3-4): always under ``discard_pickup = new_meld_only``; under
    ``must_open_using`` or ``opening_requires_discard_pickup`` when the seat had not opened at the
    start of the turn (the card must be in a meld of its opening; an opened player takes freely);
    never otherwise (``must_open``: the unopened taker need only open)."""
    pick = g.rv[P_DISCARD_PICKUP]
    if pick == PICKUP_NEW_MELD_ONLY:
        return True
    if pick != PICKUP_MUST_OPEN_USING and g.rv[P_OPEN_NEEDS_PICKUP] == 0:
        return False
    return unopened_at_turn_start(g, seat)


@njit(cache=True)
def pickup_broken(g, seat):
    """At the end of ``seat``'s turn: True (and ``E_OPENED_WITHOUT_PICKUP``) when under
    ``opening_requires_discard_pickup`` it opened in a turn in which it took no card from the discard
    pile and the turn is no Hand (cards left in the hand, one laid on another player's meld, or fewer
    than ``hand_min_new_meld_cards`` in new melds; RULES.md sections 4 and 6).  A turn that took the
    card is checked by :func:`taken_needs_new_meld` instead."""
    if g.rv[P_OPEN_NEEDS_PICKUP] == 0 or g.sc[S_T_OPENED] == 0 or g.sc[S_TAKEN] != NO_CARD:
        return False
    if g.hand_n[seat] == 0 and g.sc[S_T_OTHERS] == 0 and g.sc[S_T_NEWMELD] >= hand_min_cards(g):
        return False
    fail_move(g, E_OPENED_WITHOUT_PICKUP, g.seat[seat, Q_OPEN_VALUE], g.hand_n[seat], 0)
    return True


@njit(cache=True)
def may_touch_table(g, seat):
    """Whether ``seat`` may lay off or swap now (opened; not the opening turn if forbidden)."""
    if g.seat[seat, Q_OPENED] == 0:
        return False
    if g.rv[P_LAYOFF_ON_OPENING] == 0 and g.sc[S_T_OPENED] == 1:
        return False
    return True


@njit(cache=True)
def _table_move_problem(g, seat, k, t):
    """Why ``seat`` may not lay card ``t`` off on (or swap it into) table meld ``k`` whatever the
    meld: ``WHY_*``, or 0."""
    if k < 0 or k >= g.sc[S_N_MELDS]:
        return WHY_NO_MELD
    if t < 0 or t > JOKER or g.hands[seat, t] <= 0:
        return WHY_NOT_HELD
    if not may_touch_table(g, seat):
        return WHY_NOT_OPENED
    return 0


@njit(cache=True)
def layoff_position(g, k, t):
    """Where card ``t`` can be laid off on table meld ``k``: a run position, a set suit
    (-1 for a joker on a set), or ``NO_TARGET`` when it cannot (RULES.md section 2; a run of
    ``max_run_length`` cards takes no more)."""
    m = g.melds[k]
    rv = g.rv
    lo = m[M_LO]
    hi = m[M_HI]
    if t == JOKER:
        if meld_jokers(m) >= rv[P_MAX_JOKERS]:
            return NO_TARGET
        if is_set(m):
            if meld_size(m) < MAX_SET:
                return -1
            return NO_TARGET
        if hi - lo + 1 >= rv[P_MAX_RUN]:
            return NO_TARGET
        if hi < ACE_HIGH:
            return hi + 1
        return lo - 1
    s = suit_of(t)
    r = rank_of(t)
    if is_set(m):
        if meld_key(m) != r or set_has_suit(m, s) or meld_size(m) >= MAX_SET:
            return NO_TARGET
        return s
    if meld_key(m) != s or hi - lo + 1 >= rv[P_MAX_RUN]:
        return NO_TARGET
    if r == 1:
        if lo == 2:
            return 1
        if hi == 13:
            return ACE_HIGH
        return NO_TARGET
    if r == lo - 1:
        return r
    if r == hi + 1:
        return r
    return NO_TARGET


@njit(cache=True)
def first_layoff_meld(g, t):
    """The lowest-numbered table meld card type ``t`` can be laid off on
    (:func:`layoff_position`), or -1.  Only the sets of its rank and the runs of its suit are
    tried (a joker tries every meld), and only when :func:`layoff_fits` says some meld may take
    the card (most cards of a hand fit none)."""
    if ((layoff_fits(g) >> t) & 1) == 0:
        return -1
    return _first_meld(g, t, False)


@njit(cache=True)
def layoff_fits(g):
    """Bitset of the card types (bit ``t``; the joker bit ``JOKER``) that may be laid off on
    some table meld: the ends of the runs that are not full, the suits missing from the sets that
    are not full, a joker where the meld has room for one more (a superset of what
    :func:`layoff_position` accepts).  Worked out again only after the table changed."""
    if g.sc[S_FIT_VER] == g.sc[S_TABLE_VER]:
        return g.sc[S_FIT]
    fit = np.int64(0)
    maxj = g.rv[P_MAX_JOKERS]
    for k in range(g.sc[S_N_MELDS]):
        m = g.melds[k]
        key = meld_key(m)
        if is_set(m):
            if meld_size(m) >= MAX_SET:
                continue
            for s in range(N_SUITS):
                if not set_has_suit(m, s):
                    fit |= np.int64(1) << card_of(s, key)
        else:
            lo = m[M_LO]
            hi = m[M_HI]
            if hi - lo + 1 >= g.rv[P_MAX_RUN]:
                continue
            if lo >= 2:
                fit |= np.int64(1) << card_of(key, lo - 1)  # lo - 1 = 1: the Ace, low
            if hi <= 12:
                fit |= np.int64(1) << card_of(key, hi + 1)
            elif hi == 13:
                fit |= np.int64(1) << card_of(key, 1)  # the Ace, high
        if meld_jokers(m) < maxj:
            fit |= np.int64(1) << JOKER
    g.sc[S_FIT] = fit
    g.sc[S_FIT_VER] = g.sc[S_TABLE_VER]
    return fit


@njit(cache=True)
def first_swap_meld(g, t):
    """The lowest-numbered table meld whose joker natural ``t`` can replace
    (:func:`swap_position`), or -1 (always -1 for a joker)."""
    return _first_meld(g, t, True)


@njit(cache=True, inline="always")
def _first_meld(g, t, swap):
    if t == JOKER:
        if swap:
            return -1
        for k in range(g.sc[S_N_MELDS]):
            if layoff_position(g, k, t) != NO_TARGET:
                return k
        return -1
    cand = g.set_melds[rank_of(t)] | g.run_melds[suit_of(t)]
    while cand:
        k = ctz(cand)
        pos = swap_position(g, k, t) if swap else layoff_position(g, k, t)
        if pos != NO_TARGET:
            return k
        cand &= cand - 1
    return -1


@njit(cache=True)
def lay_off(g, seat, k, t):
    """Lay card ``t`` from ``seat``'s hand off on table meld ``k`` (RULES.md sections 2 and 4).

    Returns False, and stops the round with ``E_BAD_LAYOFF``, when the move is not legal.
    """
    if not count_move(g):
        return False
    why = _table_move_problem(g, seat, k, t)
    pos = NO_TARGET
    if why == 0:
        pos = layoff_position(g, k, t)
        if pos == NO_TARGET:
            why = WHY_NO_FIT
    if why != 0:
        fail_move(g, E_BAD_LAYOFF, t, k, why)
        return False
    m = g.melds[k]
    g.sc[S_TABLE_VER] += 1
    if is_set(m):
        if t == JOKER:
            m[M_NJ] += 1
        else:
            m[M_MASK] |= 1 << pos
    else:
        if pos < m[M_LO]:
            m[M_LO] = pos
        else:
            m[M_HI] = pos
        if t == JOKER:
            m[M_MASK] |= 1 << pos
    g.hands[seat, t] -= 1
    g.hand_n[seat] -= 1
    leaves_hand(g, seat, t)
    if t == g.sc[S_TAKEN]:
        g.sc[S_T_TAKEN_USED] += 1
    g.sc[S_T_LAID] = 1
    if g.owner[k] != seat:
        g.sc[S_T_OTHERS] = 1
    log(g, EV_LAYOFF, seat, k, t, pos, 0, 0, 0, 0)
    return True


@njit(cache=True)
def swap_position(g, k, t):
    """Where natural ``t`` can replace a joker of table meld ``k`` (run position or set suit),
    or ``NO_TARGET`` (RULES.md section 5)."""
    if g.rv[P_JOKER_SWAP] == 0 or t == JOKER:
        return NO_TARGET
    m = g.melds[k]
    s = suit_of(t)
    r = rank_of(t)
    if is_set(m):
        if set_jokers(m) == 0 or meld_key(m) != r or set_has_suit(m, s):
            return NO_TARGET
        if g.rv[P_SET_JOKER_SWAP] == SET_SWAP_FILL_SET:
            # fill_set (VARIANTS.md #6): only the natural of the last missing suit, so that the
            # set becomes four naturals
            mask = m[M_MASK]
            if (mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1) + ((mask >> 3) & 1) != 3:
                return NO_TARGET
        return s
    if meld_key(m) != s:
        return NO_TARGET
    lo = m[M_LO]
    hi = m[M_HI]
    if r == 1:
        if lo == 1 and run_has_joker_at(m, 1):
            return 1
        if hi == ACE_HIGH and run_has_joker_at(m, ACE_HIGH):
            return ACE_HIGH
        return NO_TARGET
    if lo <= r <= hi and run_has_joker_at(m, r):
        return r
    return NO_TARGET


@njit(cache=True)
def swap_joker(g, seat, k, t):
    """Put natural ``t`` in place of a joker of meld ``k``; the joker goes to the hand
    (RULES.md section 5).

    Returns False, and stops the round with ``E_BAD_SWAP``, when the move is not legal.
    """
    if not count_move(g):
        return False
    why = _table_move_problem(g, seat, k, t)
    pos = NO_TARGET
    if why == 0:
        pos = swap_position(g, k, t)
        if pos == NO_TARGET:
            why = WHY_NO_FIT
    if why != 0:
        fail_move(g, E_BAD_SWAP, t, k, why)
        return False
    m = g.melds[k]
    g.sc[S_TABLE_VER] += 1
    if is_set(m):
        m[M_MASK] |= 1 << pos
        m[M_NJ] -= 1
    else:
        m[M_MASK] &= ~(1 << pos)
    g.hands[seat, t] -= 1
    g.hands[seat, JOKER] += 1
    leaves_hand(g, seat, t)
    g.known[seat, JOKER] += 1  # everyone saw the joker go to the hand
    if t == g.sc[S_TAKEN]:
        g.sc[S_T_TAKEN_USED] += 1
    g.sc[S_T_LAID] = 1
    if g.owner[k] != seat:
        g.sc[S_T_OTHERS] = 1
    log(g, EV_SWAP, seat, k, t, pos, 0, 0, 0, 0)
    return True


@njit(cache=True, inline="always")
def may_discard(t, held, taken, taken_before, taken_used):
    """The rule on the card taken from the discard pile (RULES.md section 3), written once.

    Whether one of ``held`` copies of card type ``t`` may be discarded, when ``taken`` is the card
    taken from the pile this turn (``NO_CARD``: none), ``taken_before`` the copies of it the hand
    held before the take, and ``taken_used`` the copies of it put on the table this turn.  The
    card just taken may not go back; its twin, held before, may; and once a copy went to the
    table, any copy may.  Used by the engine (:func:`discard_is_legal`) and by every planner
    that asks what the hand could discard after some cards leave it
    (:func:`legal_discard_after`, :func:`legal_discard_after_card`).
    """
    if held <= 0:
        return False
    return not (t == taken and taken_before == 0 and held == 1 and taken_used == 0)


@njit(cache=True)
def discard_is_legal(g, seat, t):
    """Whether ``seat`` may discard card type ``t`` now (held, and :func:`may_discard`)."""
    if t < 0 or t > JOKER:
        return False
    return may_discard(t, g.hands[seat, t], g.sc[S_TAKEN], g.sc[S_TAKEN_C0], g.sc[S_T_TAKEN_USED])


@njit(cache=True)
def legal_discard_after(g, seat, rem):
    """Whether ``seat`` would still hold a card it may discard once the cards ``rem``
    (``int8[N_TYPES]`` counts) leave its hand for the table this turn (False when none is left)."""
    taken = g.sc[S_TAKEN]
    used = g.sc[S_T_TAKEN_USED]
    if taken != NO_CARD:
        used += rem[taken]
    for t in range(N_TYPES):
        if may_discard(t, g.hands[seat, t] - rem[t], taken, g.sc[S_TAKEN_C0], used):
            return True
    return False


@njit(cache=True)
def legal_discard_after_path(g, seat, path, n):
    """:func:`legal_discard_after` for the cards of the first ``n`` melds of ``path`` (a plan)."""
    taken = g.sc[S_TAKEN]
    used = g.sc[S_T_TAKEN_USED]
    if taken != NO_CARD:
        used += path_uses(path, n, taken)
    for t in range(N_TYPES):
        held = g.hands[seat, t]
        if held > 0 and may_discard(t, held - path_uses(path, n, t), taken, g.sc[S_TAKEN_C0], used):
            return True
    return False


@njit(cache=True)
def legal_discard_after_card(g, seat, c):
    """:func:`legal_discard_after` for one card ``c`` leaving the hand (a lay-off)."""
    taken = g.sc[S_TAKEN]
    used = g.sc[S_T_TAKEN_USED] + (1 if c == taken else 0)
    for t in range(N_TYPES):
        if may_discard(t, g.hands[seat, t] - (1 if t == c else 0), taken, g.sc[S_TAKEN_C0], used):
            return True
    return False


@njit(cache=True)
def discard(g, seat, t):
    """Discard ``t`` to the pile; False (and an error) if not legal."""
    if not discard_is_legal(g, seat, t):
        if t < 0:
            why = WHY_NO_DISCARD
        elif t > JOKER or g.hands[seat, t] <= 0:
            why = WHY_NOT_HELD
        else:
            why = WHY_TAKEN_CARD
        fail_move(g, E_BAD_DISCARD, t, 0, why)
        return False
    g.hands[seat, t] -= 1
    g.hand_n[seat] -= 1
    leaves_hand(g, seat, t)
    g.seat[seat, Q_DISCARDED] |= np.int64(1) << t
    g.pile[g.sc[S_PILE_N]] = t
    g.sc[S_PILE_N] += 1
    log(g, EV_DISCARD, seat, t, 0, 0, 0, 0, 0, 0)
    return True


