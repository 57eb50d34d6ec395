"""Best-arrangement search (numba): the hot path of every policy (RULES.md sections 1-2).

A hand is a count table ``cnt int8[4, 16]`` (suit x run position; positions 1..13 hold the
naturals A..K, position 14 receives an Ace moved up to play high, 0 and 15 stay empty) plus a
number of jokers.  The search partitions the hand into melds and leftover cards and maximises
the *melded weight*:

* mode ``OPEN``: the opening value of the melded cards (a joker is worth the card it stands
  for, an Ace at run position 1 ``ace_low_value``);
* mode ``DEAD``: the hand value of the melded cards (Ace 11, joker ``joker_penalty``), i.e. it
  minimises deadwood;
* mode ``COUNT``: ``1000`` per melded card plus the opening value (most cards melded, then the
  highest opening value) - used to test whether a hand can go out at once.

Algorithm: lowest-card branching.  The lowest remaining natural card (suit-major, then
position) is either left over, or the lowest natural of a set of its rank (partners from later
suits, plus jokers), or the lowest natural of a run of its suit (jokers may stand below it and
in any gap; a natural in hand may still be replaced by a joker), or - for an Ace - moved to
position 14 to play high.  Branches are cut when the melded weight so far plus an upper bound
on what the remaining cards could add cannot beat the best found.  Every meld holds at least
one natural card, so every partition is reachable and the search is exact.

The melds found are written in the encoding of :mod:`handsim._kernels.melds`.
"""

import numpy as np
from numba import njit

from .consts import JOKER, N_NATURALS, N_RANKS, N_SUITS
from .melds import (  # noqa: F401  (meld_cards, meld_value: re-exported)
    ACE_HIGH,
    KIND_RUN,
    KIND_SET,
    M_HI,
    M_KEY,
    M_KIND,
    M_LO,
    M_MASK,
    M_NJ,
    MAX_RUN,
    MAX_SET,
    MELD_WIDTH,
    MIN_MELD,
    meld_cards,
    meld_value,
    position_value,
    rank_hand_value,
)
from .params import (
    P_ACE_LOW,
    P_JOKER_PENALTY,
    P_MAX_JOKERS,
    P_MIN_NATURAL,
)

OPEN = 0
DEAD = 1
COUNT = 2
COUNT_BONUS = 1000

MAX_MELDS = 24

# rows of the weight table W int32[6, 16]
_W_NAT_RUN = 0
_W_JOK_RUN = 1
_W_NAT_SET = 2
_W_JOK_SET = 3
_W_NAT_MAX = 4
_W_MISC = 5  # [joker max weight, per-card bonus, max jokers per meld, min naturals per meld]


@njit(cache=True)
def make_weights(rv, mode, W):
    """Fill the weight table ``W int32[6, 16]`` for rules vector ``rv`` and ``mode``."""
    W[:, :] = 0
    ace_low = rv[P_ACE_LOW]
    pen = rv[P_JOKER_PENALTY]
    bonus = COUNT_BONUS if mode == COUNT else 0
    for p in range(1, ACE_HIGH + 1):
        if mode == DEAD:
            W[_W_NAT_RUN, p] = rank_hand_value(p)
            W[_W_JOK_RUN, p] = pen
        else:
            W[_W_NAT_RUN, p] = position_value(p, ace_low) + bonus
            W[_W_JOK_RUN, p] = position_value(p, ace_low) + bonus
    for r in range(1, N_RANKS + 1):
        if mode == DEAD:
            W[_W_NAT_SET, r] = rank_hand_value(r)
            W[_W_JOK_SET, r] = pen
            W[_W_NAT_MAX, r] = rank_hand_value(r)
        else:
            v = rank_hand_value(r)  # a set is worth the rank's value; Ace 11
            W[_W_NAT_SET, r] = v + bonus
            W[_W_JOK_SET, r] = v + bonus
            m = W[_W_NAT_RUN, r]
            if v + bonus > m:
                m = v + bonus
            if r == 1 and W[_W_NAT_RUN, ACE_HIGH] > m:
                m = W[_W_NAT_RUN, ACE_HIGH]
            W[_W_NAT_MAX, r] = m
    W[_W_NAT_MAX, ACE_HIGH] = W[_W_NAT_MAX, 1]
    if mode == DEAD:
        W[_W_MISC, 0] = pen
    else:
        W[_W_MISC, 0] = 11 + bonus
    W[_W_MISC, 1] = bonus
    W[_W_MISC, 2] = rv[P_MAX_JOKERS]
    W[_W_MISC, 3] = rv[P_MIN_NATURAL]


@njit(cache=True)
def can_meld(cnt, s, p, J, maxj_rule):
    """Whether natural (suit ``s``, rank position ``p`` 1..13) could sit in *some* meld made of
    the cards in ``cnt`` plus ``J`` jokers (a necessary condition; melds need one natural).

    A legal meld containing the card contains a legal 3-card window (a 3-card set, or three
    consecutive run positions around it), so looking at those is enough.
    """
    jk = J if J < maxj_rule else maxj_rule
    k = 0
    for s2 in range(N_SUITS):
        if s2 != s and cnt[s2, p] > 0:
            k += 1
    if k + jk >= 2:
        return True
    # run windows: positions of this card (an Ace is at 1 and 14)
    for pos in (p, ACE_HIGH if p == 1 else -1):
        if pos < 0:
            continue
        for lo in range(pos - 2, pos + 1):
            if lo < 1 or lo + 2 > ACE_HIGH:
                continue
            miss = 0
            for q in range(lo, lo + 3):
                if q == pos:
                    continue
                if q == ACE_HIGH:
                    have = cnt[s, 1] + cnt[s, ACE_HIGH]  # an Ace may still move up, or already did
                else:
                    have = cnt[s, q]
                if have == 0:
                    miss += 1
            if miss <= jk:
                return True
    return False


@njit(cache=True)
def drop_isolated(cnt, J, maxj_rule):
    """Remove from ``cnt`` the naturals that no meld can contain (they are left over in every
    arrangement); repeat until none is removed.  Returns how many were removed."""
    removed = 0
    changed = True
    while changed:
        changed = False
        for s in range(N_SUITS):
            for p in range(1, N_RANKS + 1):
                if cnt[s, p] > 0 and not can_meld(cnt, s, p, J, maxj_rule):
                    removed += cnt[s, p]
                    cnt[s, p] = 0
                    changed = True
    return removed


MAX_DEPTH = 160

# frame columns of the explicit search stack F int64[MAX_DEPTH, 20]
_F_MODE = 0  # 0 choose for the lowest card, 1 growing a run
_F_S = 1
_F_P = 2
_F_CUR = 3
_F_REM = 4
_F_J = 5
_F_PLEN = 6
_F_PHASE = 7
_F_M = 8
_F_JJ = 9
_F_A = 10
_F_APPLIED = 11
_F_LO = 12  # run: lo; choose frame: the set mask applied
_F_HI = 13
_F_JMASK = 14
_F_JUSED = 15
_F_NNAT = 16
_F_GAIN = 17
_F_COST = 18
_F_AVAIL = 19


@njit(cache=True, inline="always")
def _push_choose(F, d, s, p, cur, rem, J, plen):
    f = F[d]
    f[_F_MODE] = 0
    f[_F_S] = s
    f[_F_P] = p
    f[_F_CUR] = cur
    f[_F_REM] = rem
    f[_F_J] = J
    f[_F_PLEN] = plen
    f[_F_PHASE] = -1
    f[_F_APPLIED] = 0


@njit(cache=True, inline="always")
def _push_run(F, d, s, p0, cur, rem, J, plen, lo, hi, jmask, jused, nnat, gain, cost):
    f = F[d]
    f[_F_MODE] = 1
    f[_F_S] = s
    f[_F_P] = p0
    f[_F_CUR] = cur
    f[_F_REM] = rem
    f[_F_J] = J
    f[_F_PLEN] = plen
    f[_F_PHASE] = 0
    f[_F_APPLIED] = 0
    f[_F_LO] = lo
    f[_F_HI] = hi
    f[_F_JMASK] = jmask
    f[_F_JUSED] = jused
    f[_F_NNAT] = nnat
    f[_F_GAIN] = gain
    f[_F_COST] = cost


@njit(cache=True)
def _search_stack(cnt, J0, rem0, W, path, best, bestpath, F):
    """Iterative lowest-card branching (see the module docstring) with an explicit stack."""
    maxj_rule = W[_W_MISC, 2]
    minnat = W[_W_MISC, 3]
    jw = W[_W_MISC, 0]
    _push_choose(F, 0, 0, 1, 0, rem0, J0, 0)
    d = 0
    while d >= 0:
        f = F[d]
        s = f[_F_S]
        cur = f[_F_CUR]
        rem = f[_F_REM]
        J = f[_F_J]
        plen = f[_F_PLEN]
        maxj = maxj_rule if maxj_rule < J else J
        if f[_F_MODE] == 0:
            p = f[_F_P]
            if f[_F_PHASE] == -1:
                # locate the lowest remaining natural
                while s < N_SUITS:
                    while p <= ACE_HIGH and cnt[s, p] == 0:
                        p += 1
                    if p <= ACE_HIGH:
                        break
                    s += 1
                    p = 1
                if s == N_SUITS:
                    if cur > best[0]:
                        best[0] = cur
                        best[1] = plen
                        for i in range(plen):
                            for k in range(MELD_WIDTH):
                                bestpath[i, k] = path[i, k]
                    d -= 1
                    continue
                if cur + rem <= best[0]:
                    d -= 1
                    continue
                if best[0] >= 0:
                    # tighter bound: cards no meld of the remaining cards can contain add nothing
                    dw = 0
                    for s2 in range(s, N_SUITS):
                        for p2 in range(p if s2 == s else 1, N_RANKS + 1):
                            if cnt[s2, p2] > 0 and not can_meld(cnt, s2, p2, J, maxj_rule):
                                dw += cnt[s2, p2] * W[_W_NAT_MAX, p2]
                    if cur + rem - dw <= best[0]:
                        d -= 1
                        continue
                f[_F_S] = s
                f[_F_P] = p
                avail = 0
                if p <= N_RANKS:
                    for s2 in range(s + 1, N_SUITS):
                        if cnt[s2, p] > 0:
                            avail |= 1 << s2
                f[_F_AVAIL] = avail
                f[_F_M] = avail
                f[_F_JJ] = 0
                f[_F_A] = 0
                f[_F_PHASE] = 0 if (p <= N_RANKS and plen < MAX_MELDS) else 1
            # undo the option applied last time
            ap = f[_F_APPLIED]
            if ap == 1:
                cnt[s, p] += 1
                mm = f[_F_LO]
                for s2 in range(s + 1, N_SUITS):
                    if (mm >> s2) & 1:
                        cnt[s2, p] += 1
            elif ap == 2 or ap == 4:
                cnt[s, p] += 1
            elif ap == 3:
                cnt[s, ACE_HIGH] -= 1
                cnt[s, 1] += 1
            f[_F_APPLIED] = 0
            wmax = W[_W_NAT_MAX, p]
            pushed = False
            while not pushed:
                ph = f[_F_PHASE]
                if ph == 0:
                    # sets of rank p: partners mask m, j jokers
                    m = f[_F_M]
                    j = f[_F_JJ]
                    if j + 1 > maxj:
                        f[_F_JJ] = 0
                        if m == 0:
                            f[_F_PHASE] = 1
                        else:
                            f[_F_M] = (m - 1) & f[_F_AVAIL]
                    else:
                        f[_F_JJ] = j + 1
                    n = 1
                    mm = m
                    while mm:
                        n += mm & 1
                        mm >>= 1
                    size = n + j
                    if size >= MIN_MELD and size <= MAX_SET and n >= minnat:
                        cnt[s, p] -= 1
                        for s2 in range(s + 1, N_SUITS):
                            if (m >> s2) & 1:
                                cnt[s2, p] -= 1
                        f[_F_APPLIED] = 1
                        f[_F_LO] = m
                        path[plen, M_KIND] = KIND_SET
                        path[plen, M_KEY] = p
                        path[plen, M_LO] = p
                        path[plen, M_HI] = p
                        path[plen, M_MASK] = m | (1 << s)
                        path[plen, M_NJ] = j
                        gain = n * W[_W_NAT_SET, p] + j * W[_W_JOK_SET, p]
                        cost = n * wmax + j * jw
                        d += 1
                        _push_choose(F, d, s, p, cur + gain, rem - cost, J - j, plen + 1)
                        pushed = True
                elif ph == 1:
                    # runs of suit s whose lowest natural is (s, p), a jokers below it
                    a = f[_F_A]
                    amax = maxj if maxj < p - 1 else p - 1
                    if plen < MAX_MELDS and a <= amax:
                        f[_F_A] = a + 1
                        cnt[s, p] -= 1
                        f[_F_APPLIED] = 2
                        lo = p - a
                        jmask = 0
                        gain = W[_W_NAT_RUN, p]
                        for q in range(lo, p):
                            jmask |= 1 << q
                            gain += W[_W_JOK_RUN, q]
                        cost = wmax + a * jw
                        d += 1
                        _push_run(F, d, s, p, cur, rem, J, plen, lo, p, jmask, a, 1, gain, cost)
                        pushed = True
                    else:
                        f[_F_PHASE] = 2
                elif ph == 2:
                    f[_F_PHASE] = 3
                    if p == 1 and (cnt[s, 13] > 0 or cnt[s, 12] > 0 or J > 0):  # a Q or K to play high with
                        cnt[s, 1] -= 1
                        cnt[s, ACE_HIGH] += 1
                        f[_F_APPLIED] = 3
                        d += 1
                        _push_choose(F, d, s, p, cur, rem, J, plen)
                        pushed = True
                elif ph == 3:
                    f[_F_PHASE] = 4
                    if p <= N_RANKS:
                        cnt[s, p] -= 1
                        f[_F_APPLIED] = 4
                        d += 1
                        _push_choose(F, d, s, p, cur, rem - wmax, J, plen)
                        pushed = True
                else:
                    d -= 1
                    break
        else:
            # growing a run of suit s over lo..hi
            lo = f[_F_LO]
            hi = f[_F_HI]
            if f[_F_APPLIED] == 1:
                cnt[s, hi + 1] += 1
                f[_F_APPLIED] = 0
            jused = f[_F_JUSED]
            pushed = False
            while not pushed:
                ph = f[_F_PHASE]
                q = hi + 1
                if ph == 0:
                    f[_F_PHASE] = 1
                    if hi - lo + 1 >= MIN_MELD and f[_F_NNAT] >= minnat:
                        path[plen, M_KIND] = KIND_RUN
                        path[plen, M_KEY] = s
                        path[plen, M_LO] = lo
                        path[plen, M_HI] = hi
                        path[plen, M_MASK] = f[_F_JMASK]
                        path[plen, M_NJ] = jused
                        d += 1
                        _push_choose(F, d, s, f[_F_P], cur + f[_F_GAIN], rem - f[_F_COST], J - jused, plen + 1)
                        pushed = True
                elif ph == 1:
                    f[_F_PHASE] = 2
                    if q <= ACE_HIGH and q - lo + 1 <= MAX_RUN and cnt[s, q] > 0:
                        cnt[s, q] -= 1
                        f[_F_APPLIED] = 1
                        d += 1
                        _push_run(F, d, s, f[_F_P], cur, rem, J, plen, lo, q, f[_F_JMASK], jused,
                                  f[_F_NNAT] + 1, f[_F_GAIN] + W[_W_NAT_RUN, q], f[_F_COST] + W[_W_NAT_MAX, q])
                        pushed = True
                elif ph == 2:
                    f[_F_PHASE] = 3
                    if q <= ACE_HIGH and q - lo + 1 <= MAX_RUN and jused < maxj:
                        d += 1
                        _push_run(F, d, s, f[_F_P], cur, rem, J, plen, lo, q, f[_F_JMASK] | (1 << q), jused + 1,
                                  f[_F_NNAT], f[_F_GAIN] + W[_W_JOK_RUN, q], f[_F_COST] + jw)
                        pushed = True
                else:
                    d -= 1
                    break


@njit(cache=True)
def hand_to_table(hand, cnt):
    """Fill ``cnt int8[4, 16]`` from a hand count vector ``hand int8[53]``; return the jokers."""
    cnt[:, :] = 0
    for t in range(N_NATURALS):
        cnt[t // N_RANKS, t % N_RANKS + 1] = hand[t]
    return hand[JOKER]


@njit(cache=True)
def search(hand, W, cnt, path, bestpath, best, F):
    """Best arrangement of ``hand int8[53]`` under weights ``W`` (see :func:`make_weights`).

    Writes the melds into ``bestpath int32[MAX_MELDS, 6]`` and returns
    ``(melded_weight, n_melds)``.  ``cnt``, ``path``, ``best`` and ``F`` are workspaces
    (``int8[4,16]``, ``int32[MAX_MELDS,6]``, ``int64[2]``, ``int64[MAX_DEPTH,20]``).
    """
    J = np.int64(hand_to_table(hand, cnt))
    if W[_W_MISC, 3] <= 1:
        drop_isolated(cnt, J, W[_W_MISC, 2])
    rem = np.int64(0)
    for su in range(N_SUITS):
        for p in range(1, N_RANKS + 1):
            rem += cnt[su, p] * W[_W_NAT_MAX, p]
    rem += J * W[_W_MISC, 0]
    best[0] = -1
    best[1] = 0
    _search_stack(cnt, J, rem, W, path, best, bestpath, F)
    return best[0], best[1]
