"""Scripted policies (numba).

Every policy answers the same three calls on a :class:`~handsim._kernels.state.Game`:

* ``begin_turn(g, seat)`` - bookkeeping at the start of the seat's turn;
* ``choose_draw(g, seat) -> 0 | 1`` - draw from the stock (0) or take the top discard (1);
* ``play(g, seat) -> card | -1`` - meld, lay off and swap through the move functions of
  :mod:`~handsim._kernels.state`, then name the discard (-1: the hand is empty, no discard).

Policies are told apart by an integer id (``g.pol[seat]``) and read their parameters from
``g.pp[seat]`` (float64[8]); the table of names and parameters is :mod:`handsim.policies`.
"""

import numpy as np
from numba import njit

from .arrange import COUNT, COUNT_BONUS, DEAD, OPEN
from .consts import JOKER, N_NATURALS, N_RANKS, N_SUITS, N_TYPES, NO_CARD, NO_TARGET
from .melds import copy_path, meld_uses, meld_value, melded_cards, path_counts, path_uses, rank_of, suit_of, swap_melds
from .params import PICKUP_MUST_OPEN, P_ACE_LOW, P_DISCARD_PICKUP, P_JOKER_SWAP, P_PARTNERSHIP
from .rng import randbelow
from .state import (
    Q_BAILED,
    Q_LAID_BEFORE,
    Q_OPENED,
    Q_OWN_TURNS,
    S_N_MELDS,
    S_PLAYERS,
    S_T_OPENED,
    S_T_TAKEN_MELDED,
    S_T_TAKEN_USED,
    S_TAKEN,
    S_TAKEN_C0,
    card_hand_value,
    discard_is_legal,
    go_out_requires_discard,
    hand_min_cards,
    hand_search,
    lay_melds,
    lay_off,
    layoff_position,
    legal_discard_after,
    legal_discard_after_card,
    may_touch_table,
    partner_of,
    required_for,
    required_opening,
    swap_joker,
    swap_position,
    top_discard,
)

GREEDY = 0
HOLD_HAND = 1
RANDOM = 2

# hold-hand parameters (g.pp[seat, i])
PP_BAIL_TURN = 0
PP_BAIL_OPPONENT_CARDS = 1
# greedy parameters
PP_SUPPORT_HAND = 0


@njit(cache=True)
def _leftover_ok(g, seat, path, n, keep, layoff_taken):
    """Whether laying the first ``n`` melds of ``path`` leaves ``seat`` at least ``keep`` cards
    and, unless it leaves none, a card it may legally discard (not the card just taken) - or,
    with ``keep = 0`` and ``layoff_taken``, only the taken card with a table meld to lay it off
    on (the caller's lay-offs that follow put it there first, and the player goes out)."""
    left = g.hand_n[seat] - melded_cards(path, n)
    if left < keep:
        return False
    if left == 0:
        return True
    path_counts(path, n, g.rem)
    if legal_discard_after(g, seat, g.rem):
        return True
    taken = g.sc[S_TAKEN]
    if keep == 0 and left == 1 and taken != NO_CARD and layoff_taken and may_touch_table(g, seat):
        for k in range(g.sc[S_N_MELDS]):
            if layoff_position(g, k, taken) != NO_TARGET:
                return True
    return False


@njit(cache=True)
def plan_melds(g, seat, mode, req, keep, layoff_taken):
    """Melds to lay now: best arrangement of the hand under ``mode`` reaching ``req`` points
    that leaves at least ``keep`` cards (0, 1 or 2) and a legal discard among them (unless it
    empties the hand with ``keep = 0``; with ``layoff_taken``, a plan that leaves only the card
    taken from the pile counts when that card can be laid off next).

    When the best arrangement breaks that, the best one with one card kept back (a legal
    discard) is taken, and with ``keep = 2`` if need be two cards.  Returns the number of melds
    (in ``g.bestpath``), or -1 when no such arrangement reaches ``req``.
    """
    hand = g.hands[seat]
    val, n = hand_search(g, hand, mode)
    if n == 0 or val < req:
        return -1
    if _leftover_ok(g, seat, g.bestpath, n, keep, layoff_taken):
        return n
    bestv = -1
    bestn = 0
    other = -1
    otherv = -1
    N = g.hand_n[seat]
    for t in range(N_TYPES):
        if hand[t] > 0 and discard_is_legal(g, seat, t):
            hand[t] -= 1
            v, k = hand_search(g, hand, mode)
            hand[t] += 1
            if k == 0 or v < req:
                continue
            if N - melded_cards(g.bestpath, k) >= keep:
                if v > bestv:
                    bestv = v
                    bestn = k
                    copy_path(g.bestpath, g.bp2, k)
            elif v > otherv:
                otherv = v
                other = t
    if bestv < 0 and other >= 0 and keep >= 2:
        # keep back a second card as well
        hand[other] -= 1
        for t in range(N_TYPES):
            if hand[t] > 0:
                hand[t] -= 1
                v, k = hand_search(g, hand, mode)
                hand[t] += 1
                if k > 0 and v >= req and v > bestv:
                    bestv = v
                    bestn = k
                    copy_path(g.bestpath, g.bp2, k)
        hand[other] += 1
    if bestv < 0:
        return -1
    copy_path(g.bp2, g.bestpath, bestn)
    return bestn


@njit(cache=True)
def _connections(g, seat, t):
    """Cards in hand that could meld with natural ``t``: same rank other suits, same suit +-2."""
    if t == JOKER:
        return 0
    h = g.hands[seat]
    s = suit_of(t)
    r = rank_of(t) - 1  # 0..12
    c = 0
    for s2 in range(N_SUITS):
        if s2 != s:
            c += h[s2 * N_RANKS + r]
    for d in (-2, -1, 1, 2):
        q = r + d
        if q == N_RANKS:
            q = 0  # K-A
        if 0 <= q < N_RANKS:
            c += h[s * N_RANKS + q]
    return c


@njit(cache=True)
def choose_discard(g, seat, path, n):
    """The highest-value card of the hand outside the first ``n`` melds of ``path``; ties go to
    the card with fewest meld partners; jokers only when nothing else can go; never an illegal
    discard.  Returns -1 if the hand is empty."""
    best = -1
    bestkey = -1 << 30
    h = g.hands[seat]
    for pass_ in range(3):
        # pass 0: leftover naturals; pass 1: any natural; pass 2: jokers
        for t in range(N_TYPES):
            if h[t] == 0:
                continue
            if (t == JOKER) != (pass_ == 2):
                continue
            if pass_ == 0 and n > 0 and h[t] - path_uses(path, n, t) <= 0:
                continue
            if not discard_is_legal(g, seat, t):
                continue
            key = card_hand_value(t, g.rv) * 16 - min(_connections(g, seat, t), 15)
            if key > bestkey:
                bestkey = key
                best = t
        if best >= 0:
            return best
    return best


@njit(cache=True)
def do_swaps(g, seat):
    """Swap every joker on the table for which the hand holds the natural card (RULES.md §5)."""
    if g.rv[P_JOKER_SWAP] == 0:
        return 0
    done = 0
    nm = g.sc[S_N_MELDS]
    for k in range(nm):
        again = True
        while again:
            again = False
            for t in range(N_NATURALS):
                if g.hands[seat, t] > 0 and swap_position(g, k, t) != NO_TARGET:
                    if swap_joker(g, seat, k, t):
                        done += 1
                        again = True
                        break
    return done


@njit(cache=True)
def _discard_after(g, seat, t):
    """Whether ``seat`` still has a legal discard (or no card at all) after card ``t`` leaves
    its hand for the table."""
    if g.hand_n[seat] <= 1:
        return True
    return legal_discard_after_card(g, seat, t)


@njit(cache=True)
def do_layoffs(g, seat, keep):
    """Lay off cards while more than ``keep`` cards remain: first the card just taken from the
    discard pile (it may not be discarded, so it must not lose its place to another card), then
    the highest-value cards, never leaving a hand without a legal discard."""
    done = 0
    t = g.sc[S_TAKEN]
    if t != NO_CARD and g.hands[seat, t] > 0 and g.hand_n[seat] > keep:
        for k in range(g.sc[S_N_MELDS]):
            if layoff_position(g, k, t) != NO_TARGET:
                if lay_off(g, seat, k, t):
                    done += 1
                break
    while g.hand_n[seat] > keep:
        bt = -1
        bk = -1
        bv = -1
        nm = g.sc[S_N_MELDS]
        for t in range(N_TYPES):
            if g.hands[seat, t] == 0:
                continue
            v = card_hand_value(t, g.rv)
            if v <= bv:
                continue
            for k in range(nm):
                if layoff_position(g, k, t) != NO_TARGET:
                    if _discard_after(g, seat, t):
                        bt = t
                        bk = k
                        bv = v
                    break
        if bt < 0:
            break
        if not lay_off(g, seat, bk, bt):
            break
        done += 1
    return done


@njit(cache=True)
def supporting(g, seat):
    """Whether ``seat`` (greedy with ``support_hand``) holds back from going out: 2 v 2, it has
    laid down in an earlier turn (so going out now would be a plain finish, not a Hand of its
    own), and its partner is a hold-hand player still playing for a Hand (not bailed, nothing
    laid)."""
    if g.rv[P_PARTNERSHIP] == 0 or g.pol[seat] != GREEDY or g.pp[seat, PP_SUPPORT_HAND] == 0:
        return False
    if g.seat[seat, Q_LAID_BEFORE] == 0:
        return False
    p = partner_of(g, seat)
    return g.pol[p] == HOLD_HAND and g.seat[p, Q_BAILED] == 0 and g.seat[p, Q_LAID_BEFORE] == 0


@njit(cache=True)
def greedy_keep(g, seat):
    """Cards greedy keeps after its melds and lay-offs: 2 while supporting a partner's Hand
    (it does not go out), 1 when the last card must be a discard, else 0."""
    if supporting(g, seat):
        return 2
    return 1 if go_out_requires_discard(g) else 0


@njit(cache=True)
def greedy_table_play(g, seat, keep):
    """Opened: lay every meld of the least-deadwood arrangement, swap jokers, lay off."""
    if not may_touch_table(g, seat):
        return
    n = plan_melds(g, seat, DEAD, 1, keep, True)
    if n > 0:
        lay_melds(g, seat, g.bestpath, n)
    if do_swaps(g, seat) > 0:
        n = plan_melds(g, seat, DEAD, 1, keep, True)
        if n > 0:
            lay_melds(g, seat, g.bestpath, n)
    do_layoffs(g, seat, keep)


@njit(cache=True)
def greedy_play(g, seat):
    keep = greedy_keep(g, seat)
    if g.seat[seat, Q_OPENED] == 0:
        req = required_opening(g)
        val, n = hand_search(g, g.hands[seat], OPEN)
        if val >= req and n > 0:
            n = plan_melds(g, seat, OPEN, req, keep, True)
            if n > 0:
                lay_melds(g, seat, g.bestpath, n)
        if g.seat[seat, Q_OPENED] == 0:
            return choose_discard(g, seat, g.bestpath, n if n > 0 else 0)
    greedy_table_play(g, seat, keep)
    if g.hand_n[seat] == 0:
        return -1
    return choose_discard(g, seat, g.bestpath, 0)


@njit(cache=True)
def _pretend_take(g, seat, top):
    c0 = g.hands[seat, top]
    g.hands[seat, top] += 1
    g.hand_n[seat] += 1
    g.sc[S_TAKEN] = top
    g.sc[S_TAKEN_C0] = c0


@njit(cache=True)
def _undo_take(g, seat, top):
    g.hands[seat, top] -= 1
    g.hand_n[seat] -= 1
    g.sc[S_TAKEN] = -1
    g.sc[S_TAKEN_C0] = 0


@njit(cache=True)
def greedy_choose_draw(g, seat):
    top = top_discard(g)
    if top < 0:
        return 0
    if g.seat[seat, Q_OPENED] == 0:
        _pretend_take(g, seat, top)
        n = plan_melds(g, seat, OPEN, required_opening(g), greedy_keep(g, seat), True)
        ok = n > 0 and path_uses(g.bestpath, n, top) >= 1
        _undo_take(g, seat, top)
        return 1 if ok else 0
    if g.rv[P_DISCARD_PICKUP] == PICKUP_MUST_OPEN:
        for k in range(g.sc[S_N_MELDS]):
            if layoff_position(g, k, top) != NO_TARGET or swap_position(g, k, top) != NO_TARGET:
                return 1
    _pretend_take(g, seat, top)
    n = plan_melds(g, seat, DEAD, 1, greedy_keep(g, seat), True)
    ok = n > 0 and path_uses(g.bestpath, n, top) >= 1
    _undo_take(g, seat, top)
    return 1 if ok else 0


@njit(cache=True)
def plan_hand(g, seat):
    """Can ``seat`` go out in this turn as a Hand (RULES.md section 6)?

    Returns ``(n_melds, discard)``: ``n_melds >= 0`` with the melds in ``g.bestpath`` and the
    discard card (-1: none needed), or ``(-1, -1)`` when no Hand is possible now.
    """
    hand = g.hands[seat]
    N = g.hand_n[seat]
    req = required_for(g, seat)
    hmin = hand_min_cards(g)
    w, n = hand_search(g, hand, COUNT)
    c = w // COUNT_BONUS
    v = w - c * COUNT_BONUS
    if c == N:
        if not go_out_requires_discard(g):
            if v >= req and c >= hmin:
                return n, -1
            return -1, -1
        bestv = -1
        bestn = 0
        bestt = -1
        for t in range(N_TYPES):
            if hand[t] > 0 and discard_is_legal(g, seat, t):
                hand[t] -= 1
                w2, k = hand_search(g, hand, COUNT)
                hand[t] += 1
                c2 = w2 // COUNT_BONUS
                v2 = w2 - c2 * COUNT_BONUS
                if c2 == N - 1 and v2 >= req and c2 >= hmin and v2 > bestv:
                    bestv = v2
                    bestn = k
                    bestt = t
                    copy_path(g.bestpath, g.bp2, k)
        if bestt < 0:
            return -1, -1
        copy_path(g.bp2, g.bestpath, bestn)
        return bestn, bestt
    if c == N - 1 and v >= req and c >= hmin:
        for t in range(N_TYPES):
            if hand[t] > path_uses(g.bestpath, n, t):
                if discard_is_legal(g, seat, t):
                    return n, t
                return -1, -1
    return -1, -1


@njit(cache=True)
def hold_begin_turn(g, seat):
    if g.seat[seat, Q_BAILED] != 0:
        return
    if g.seat[seat, Q_OWN_TURNS] >= g.pp[seat, PP_BAIL_TURN]:
        g.seat[seat, Q_BAILED] = 1
        return
    P = g.sc[S_PLAYERS]
    partner = partner_of(g, seat)
    for s in range(P):
        if s != seat and s != partner and g.hand_n[s] <= g.pp[seat, PP_BAIL_OPPONENT_CARDS]:
            g.seat[seat, Q_BAILED] = 1
            return


@njit(cache=True)
def hold_choose_draw(g, seat):
    if g.seat[seat, Q_BAILED] != 0 or g.seat[seat, Q_LAID_BEFORE] != 0:
        return greedy_choose_draw(g, seat)
    top = top_discard(g)
    if top < 0:
        return 0
    _pretend_take(g, seat, top)
    n, d = plan_hand(g, seat)
    ok = n > 0 and path_uses(g.bestpath, n, top) >= 1
    _undo_take(g, seat, top)
    return 1 if ok else 0


@njit(cache=True)
def hold_play(g, seat):
    if g.seat[seat, Q_BAILED] != 0 or g.seat[seat, Q_LAID_BEFORE] != 0:
        return greedy_play(g, seat)
    n, d = plan_hand(g, seat)
    if n > 0:
        lay_melds(g, seat, g.bestpath, n)
        return d
    w, k = hand_search(g, g.hands[seat], COUNT)
    return choose_discard(g, seat, g.bestpath, k)


# ---------------------------------------------------------------- random


@njit(cache=True)
def _rkeep(g):
    return 1 if go_out_requires_discard(g) else 0


@njit(cache=True)
def _coin(g):
    return randbelow(g.prng, 2) == 1


@njit(cache=True)
def _leaves_discard(g, seat, rem):
    """After removing ``rem int8[N_TYPES]`` from the hand: empty (and going out without a discard
    is allowed), or some legal discard remains."""
    left = g.hand_n[seat]
    for t in range(N_TYPES):
        left -= rem[t]
    if left == 0:
        return not go_out_requires_discard(g)
    return legal_discard_after(g, seat, rem)


@njit(cache=True)
def random_choose_draw(g, seat):
    """Take the top discard with probability 1/2 whenever taking it is legal and completable."""
    top = top_discard(g)
    if top < 0:
        return 0
    opened = g.seat[seat, Q_OPENED] != 0
    must_open = g.rv[P_DISCARD_PICKUP] == PICKUP_MUST_OPEN
    if opened and must_open:
        return 1 if _coin(g) else 0
    _pretend_take(g, seat, top)
    if opened:
        n = plan_melds(g, seat, DEAD, 1, _rkeep(g), False)
    else:
        n = plan_melds(g, seat, OPEN, required_opening(g), _rkeep(g), False)
    ok = n > 0 and (must_open or path_uses(g.bestpath, n, top) >= 1)
    if ok and not opened:
        # the full opening must leave a legal discard (or go out), since the taken card may
        # be the only card left and it cannot be discarded
        path_counts(g.bestpath, n, g.tmp)
        ok = _leaves_discard(g, seat, g.tmp)
    _undo_take(g, seat, top)
    if ok and _coin(g):
        return 1
    return 0


@njit(cache=True)
def random_open(g, seat, forced):
    """Maybe open (always when ``forced``) with a random subset of the best opening melds that
    still reaches the required value (and holds the taken card under new_meld_only)."""
    req = required_opening(g)
    n = plan_melds(g, seat, OPEN, req, _rkeep(g), False)
    if n <= 0:
        return
    if not forced and not _coin(g):
        return
    # random order
    for i in range(n - 1, 0, -1):
        swap_melds(g.bestpath, i, randbelow(g.prng, i + 1))
    ace_low = g.rv[P_ACE_LOW]
    take = 0
    total = 0
    top = g.sc[S_TAKEN]
    need_top = top >= 0 and g.rv[P_DISCARD_PICKUP] != PICKUP_MUST_OPEN
    # chosen melds are moved to the front
    for i in range(n):
        pick = _coin(g)
        if need_top and meld_uses(g.bestpath[i], top) > 0:
            pick = True
        if pick:
            swap_melds(g.bestpath, i, take)
            total += meld_value(g.bestpath[take], ace_low)
            take += 1
    i = take
    while total < req and i < n:
        total += meld_value(g.bestpath[i], ace_low)
        take += 1
        i += 1
    path_counts(g.bestpath, take, g.tmp)
    if not _leaves_discard(g, seat, g.tmp):
        take = n  # the whole opening leaves a legal discard (checked when the card was taken)
    lay_melds(g, seat, g.bestpath, take)


@njit(cache=True)
def random_table_play(g, seat):
    """Random legal lay-downs, lay-offs and joker swaps, stopping with probability 1/3."""
    if not may_touch_table(g, seat):
        return
    top = g.sc[S_TAKEN]
    if top >= 0 and g.rv[P_DISCARD_PICKUP] != PICKUP_MUST_OPEN and g.sc[S_T_TAKEN_MELDED] == 0:
        n = plan_melds(g, seat, DEAD, 1, _rkeep(g), False)
        for i in range(n):
            if meld_uses(g.bestpath[i], top) > 0:
                lay_melds(g, seat, g.bestpath[i:], 1)
                break
    for _ in range(40):
        if randbelow(g.prng, 3) == 0:
            return
        nm = g.sc[S_N_MELDS]
        # count the legal actions
        nlay = 0
        nswap = 0
        for t in range(N_TYPES):
            if g.hands[seat, t] == 0:
                continue
            for k in range(nm):
                if layoff_position(g, k, t) != NO_TARGET:
                    nlay += 1
                if swap_position(g, k, t) != NO_TARGET:
                    nswap += 1
        nnew = plan_melds(g, seat, DEAD, 1, _rkeep(g), False)
        if nnew < 0:
            nnew = 0
        total = nlay + nswap + nnew
        if total == 0:
            return
        a = randbelow(g.prng, total)
        if a < nnew:
            path_counts(g.bestpath[a:], 1, g.tmp)
            if _leaves_discard(g, seat, g.tmp):
                lay_melds(g, seat, g.bestpath[a:], 1)
            continue
        a -= nnew
        idx = 0
        found = False
        for t in range(N_TYPES):
            if g.hands[seat, t] == 0:
                continue
            for k in range(nm):
                if layoff_position(g, k, t) != NO_TARGET:
                    if idx == a:
                        g.tmp[:] = 0
                        g.tmp[t] = 1
                        if _leaves_discard(g, seat, g.tmp):
                            lay_off(g, seat, k, t)
                        found = True
                        break
                    idx += 1
                if swap_position(g, k, t) != NO_TARGET:
                    if idx == a:
                        swap_joker(g, seat, k, t)
                        found = True
                        break
                    idx += 1
            if found:
                break


@njit(cache=True)
def random_discard(g, seat):
    """A uniformly random legal discard (-1 if none)."""
    n = 0
    for t in range(N_TYPES):
        if g.hands[seat, t] > 0 and discard_is_legal(g, seat, t):
            n += g.hands[seat, t]
    if n == 0:
        return -1
    a = randbelow(g.prng, n)
    for t in range(N_TYPES):
        if g.hands[seat, t] > 0 and discard_is_legal(g, seat, t):
            if a < g.hands[seat, t]:
                return t
            a -= g.hands[seat, t]
    return -1


@njit(cache=True)
def random_play(g, seat):
    if g.seat[seat, Q_OPENED] == 0:
        random_open(g, seat, g.sc[S_TAKEN] >= 0)
    if g.seat[seat, Q_OPENED] != 0:
        random_table_play(g, seat)
    if g.hand_n[seat] == 0:
        return -1
    return random_discard(g, seat)


# ---------------------------------------------------------------- dispatch


@njit(cache=True)
def begin_turn(g, seat):
    if g.pol[seat] == HOLD_HAND:
        hold_begin_turn(g, seat)


@njit(cache=True)
def choose_draw(g, seat):
    p = g.pol[seat]
    if p == HOLD_HAND:
        return hold_choose_draw(g, seat)
    if p == RANDOM:
        return random_choose_draw(g, seat)
    return greedy_choose_draw(g, seat)


@njit(cache=True)
def play(g, seat):
    p = g.pol[seat]
    if p == HOLD_HAND:
        return hold_play(g, seat)
    if p == RANDOM:
        return random_play(g, seat)
    return greedy_play(g, seat)
