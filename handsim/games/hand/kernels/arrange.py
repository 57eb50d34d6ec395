"""Best-arrangement search (numba): the hot path of every policy (RULES.md sections 1-2).

The search partitions a hand (natural cards plus a number of jokers) into melds and leftover
cards and maximises the *melded weight*:

* mode ``OPEN``: the opening value of the melded cards (a joker is worth the card it stands
  for, an Ace at run position 1 ``ace_low_value``);
* mode ``DEAD``: the hand value of the melded cards (Ace ``ace_value``, 11 in classic; joker ``joker_penalty``), i.e. it
  minimises deadwood;
* mode ``COUNT``: ``1000`` per melded card plus the opening value (most cards melded, then the
  highest opening value) - used to test whether a hand can go out at once.

Algorithm: lowest-card branching, depth first.  The lowest remaining natural card (suit-major,
then run position; positions 1..13 hold A..K, position 14 an Ace moved up to play high) is
either the lowest natural of a set of its rank (partners from later suits, plus jokers), or the
lowest natural of a run of its suit (jokers may stand below it and in any gap; a natural in hand
may still be replaced by a joker), or - for an Ace - moved to position 14 to play high, or left
over.  Every meld holds at least one natural card, so every partition is reachable and the
search is exact.  Branches are cut when the melded weight so far plus an upper bound on what
the remaining cards could add (their best weights, less those of cards that no meld of the
remaining cards can contain) cannot beat the best found, or the caller's ``floor``; a second
copy of a card is left over when the first was (melding it instead was already tried).  Cuts
only drop branches that cannot beat the best found so far, so the arrangement returned is
always the *first* best one in this branching order - the same for any bound and any floor.

Hands inside the search are bitsets (two ``int64``: at least one copy / two copies, 16 bits per
suit), so the bound for all four suits takes a few bit operations; the recursion passes them by
value (nothing to undo), and leaving a card over continues in the same call.

The melds found are written in the encoding of :mod:`handsim.games.hand.kernels.melds`.
"""

import numpy as np
from numba import njit

from handsim.games.hand.kernels.bits import ctz, popcount
from handsim.games.hand.kernels.consts import JOKER, N_NATURALS, N_RANKS, N_SUITS
from handsim.games.hand.kernels.melds import (  # noqa: F401  (meld_cards, meld_value: re-exported)
    ACE_HIGH,
    KIND_RUN,
    KIND_SET,
    M_HI,
    M_KEY,
    M_KIND,
    M_LO,
    M_MASK,
    M_NJ,
    MAX_SET,
    MELD_WIDTH,
    MIN_MELD,
    meld_cards,
    meld_value,
    position_value,
    rank_hand_value,
)
from handsim.games.hand.kernels.params import (
    P_ACE,
    P_ACE_LOW,
    P_JOKER_PENALTY,
    P_MAX_JOKERS,
    P_MAX_RUN,
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
_W_MISC = 5  # [joker max weight, per-card bonus, max jokers per meld, min naturals per meld, longest run]


@njit(cache=True)
def make_weights(rv, mode, W):
    """Fill the weight table ``W int32[6, 16]`` for rules vector ``rv`` and ``mode``."""
    W[:, :] = 0
    ace_low = rv[P_ACE_LOW]
    ace = rv[P_ACE]
    pen = rv[P_JOKER_PENALTY]
    bonus = COUNT_BONUS if mode == COUNT else 0
    for p in range(1, ACE_HIGH + 1):
        if mode == DEAD:
            W[_W_NAT_RUN, p] = rank_hand_value(p, ace)
            W[_W_JOK_RUN, p] = pen
        else:
            W[_W_NAT_RUN, p] = position_value(p, ace_low, ace) + bonus
            W[_W_JOK_RUN, p] = position_value(p, ace_low, ace) + bonus
    for r in range(1, N_RANKS + 1):
        if mode == DEAD:
            W[_W_NAT_SET, r] = rank_hand_value(r, ace)
            W[_W_JOK_SET, r] = pen
            W[_W_NAT_MAX, r] = rank_hand_value(r, ace)
        else:
            v = rank_hand_value(r, ace)  # a set is worth the rank's value; Ace ace_value
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
        W[_W_MISC, 0] = max(ace, ace_low, 10) + bonus  # a joker's most: an Ace or a ten-count card
    W[_W_MISC, 1] = bonus
    W[_W_MISC, 2] = rv[P_MAX_JOKERS]
    W[_W_MISC, 3] = rv[P_MIN_NATURAL]
    W[_W_MISC, 4] = rv[P_MAX_RUN]


# ---------------------------------------------------------------- bitset hands
#
# Inside the search a hand is two int64 bitsets: suit ``s`` owns bits ``16 s .. 16 s + 15``, bit
# ``16 s + p`` stands for run position ``p`` (1..13 the naturals A..K, 14 an Ace moved up to play
# high); ``c1`` has the bit when the hand holds at least one copy, ``c2`` when it holds two (the
# deck's copies of a natural).  The jokers are a count.

_LANE = 16
_LANES = 0x0001000100010001  # bit 0 of every suit's lane
_RANKS = 0x3FFE * _LANES  # positions 1..13 of every suit
_LOWS = 0x1FFE * _LANES  # positions 1..12: where a 3-card run window may start
_ACES = 0x0002 * _LANES  # position 1 of every suit
#: ``leave`` when no copy was just left over.  A typed int64 rather than a literal -1: numba
#: would compile a separate version of the recursive functions for a literal argument, which
#: its cache then fails to load.
_NO_LEAVE = np.int64(-1)


@njit(cache=True, inline="always")
def _bit(s, p):
    return np.int64(1) << (s * _LANE + p)


@njit(cache=True, inline="always")
def _take(c1, c2, b):
    """The hand ``(c1, c2)`` without one copy of the card of bit ``b`` (held)."""
    if c2 & b:
        return c1, c2 & ~b
    return c1 & ~b, c2


@njit(cache=True, inline="always")
def _copies(c1, c2, b):
    return (1 if c1 & b else 0) + (1 if c2 & b else 0)


@njit(cache=True)
def hand_bits(hand):
    """The naturals of count vector ``hand int8[53]`` as ``(c1, c2)`` (bitsets: at least one copy,
    two copies; the deck has two of each natural, so a count above 2 counts as 2)."""
    c1 = np.int64(0)
    c2 = np.int64(0)
    for s in range(N_SUITS):
        for r in range(N_RANKS):
            k = hand[s * N_RANKS + r]
            sh = s * _LANE + r + 1
            c1 |= np.int64(k > 0) << sh
            c2 |= np.int64(k > 1) << sh
    return c1, c2


@njit(cache=True, inline="always")
def isolated(c1, J, maxj_rule):
    """The naturals of the hand ``c1`` (bits 1..13 of each suit) that no meld of the hand's cards
    and ``J`` jokers can contain, all suits at once: a card is kept when some 3-card window of
    run positions around it (an Ace also at 12-13-14) is filled by cards held and at most
    ``maxj_rule`` of the jokers, or when its rank is held in enough other suits for a set.
    (A necessary condition, not a sufficient one: melds need a natural and legal sizes.)"""
    jk = J if J < maxj_rule else maxj_rule
    if jk >= 2:
        return np.int64(0)
    m = c1 | ((c1 & _ACES) << (ACE_HIGH - 1))  # an Ace held may also fill position 14
    r = c1 & _RANKS
    a = r & 0xFFFF
    b = (r >> 16) & 0xFFFF
    c = (r >> 32) & 0xFFFF
    e = (r >> 48) & 0xFFFF
    m1 = m >> 1
    m2 = m >> 2
    if jk == 0:  # a set needs the rank in three suits; a run window three cards held
        sets = (a & b & c) | (a & b & e) | (a & c & e) | (b & c & e)
        w = m & m1 & m2
    else:  # two suits and a joker; two of three run positions and a joker
        sets = (a & b) | (a & c) | (a & e) | (b & c) | (b & e) | (c & e)
        w = (m & m1) | (m & m2) | (m1 & m2)
    w &= _LOWS
    cover = w | (w << 1) | (w << 2) | (sets * _LANES)
    cover |= (cover >> (ACE_HIGH - 1)) & _ACES  # an Ace that can play high
    return r & ~cover


@njit(cache=True)
def meldable(c1, J, maxj_rule):
    """The naturals of ``c1`` that are not left over in every arrangement for want of melds:
    :func:`isolated` cards are dropped, which may isolate others, until none is (a card of a
    meld of the hand always stays, with the rest of its meld)."""
    while True:
        iso = isolated(c1, J, maxj_rule)
        if iso == 0:
            return c1
        c1 &= ~iso


@njit(cache=True, inline="always")
def _weight_of(c1, c2, x, W):
    """Sum of ``W[_W_NAT_MAX, p]`` over the copies held of the cards of bitset ``x``."""
    dw = 0
    while x:
        i = ctz(x)
        x &= x - 1
        b = np.int64(1) << i
        dw += _copies(c1, c2, b) * W[_W_NAT_MAX, i & (_LANE - 1)]
    return dw


@njit(cache=True)
def _choose(c1, c2, J, cur, rem, plen, leave, W, path, best, bestpath):
    """One node of the search: the hand ``(c1, c2)`` plus ``J`` jokers is still to arrange,
    ``cur`` is the weight melded so far (melds ``path[:plen]``), ``rem`` an upper bound on what
    the rest can add.  Branches on the lowest natural in the order: sets (partner suits as a
    mask, counted down; then 0..maxj jokers), runs (0..maxj jokers below it, then grown card by
    card: stop, a natural, a joker), an Ace moved high, left over.  ``leave`` is the bit of the
    card whose other copy the parent left over (-1: none): this copy is then left over too,
    since melding it instead was tried with the other copy left over."""
    while True:
        if c1 == 0:
            if cur > best[0]:
                best[0] = cur
                best[1] = plen
                for i in range(plen):
                    for k in range(MELD_WIDTH):
                        bestpath[i, k] = path[i, k]
            return
        if cur + rem <= best[0]:
            return
        maxj_rule = W[_W_MISC, 2]
        if best[0] >= 0:
            iso = isolated(c1, J, maxj_rule)
            if iso != 0 and cur + rem - _weight_of(c1, c2, iso, W) <= best[0]:
                return
        i = ctz(c1)
        s = i >> 4
        p = i & (_LANE - 1)
        b = np.int64(1) << i
        wmax = W[_W_NAT_MAX, p]
        jw = W[_W_MISC, 0]
        maxj = maxj_rule if maxj_rule < J else J
        minnat = W[_W_MISC, 3]
        maxrun = W[_W_MISC, 4]
        d1, d2 = _take(c1, c2, b)
        if i != leave:
            if p <= N_RANKS and plen < MAX_MELDS:
                # sets of rank p: the partners from later suits as a mask, counted down
                avail = 0
                for s2 in range(s + 1, N_SUITS):
                    if c1 & _bit(s2, p):
                        avail |= 1 << s2
                m = avail
                while True:
                    n = 1 + popcount(m)
                    if n >= minnat:
                        e1 = d1
                        e2 = d2
                        for s2 in range(s + 1, N_SUITS):
                            if (m >> s2) & 1:
                                e1, e2 = _take(e1, e2, _bit(s2, p))
                        for j in range(maxj + 1):
                            size = n + j
                            if size >= MIN_MELD and size <= MAX_SET:
                                path[plen, M_KIND] = KIND_SET
                                path[plen, M_KEY] = p
                                path[plen, M_LO] = p
                                path[plen, M_HI] = p
                                path[plen, M_MASK] = m | (1 << s)
                                path[plen, M_NJ] = j
                                gain = n * W[_W_NAT_SET, p] + j * W[_W_JOK_SET, p]
                                cost = n * wmax + j * jw
                                _choose(e1, e2, J - j, cur + gain, rem - cost, plen + 1, _NO_LEAVE, W, path, best, bestpath)
                    if m == 0:
                        break
                    m = (m - 1) & avail
            if plen < MAX_MELDS:
                # runs of suit s whose lowest natural is this card, a jokers below it; each run is
                # first laid as it stands (when legal), then grown by a natural, then by a joker
                # (at most maxrun - 1 of them: the run from lo to p may not pass max_run_length)
                amax = maxj if maxj < p - 1 else p - 1
                if amax > maxrun - 1:
                    amax = maxrun - 1
                for a in range(amax + 1):
                    lo = p - a
                    e1 = d1
                    e2 = d2
                    jmask = 0
                    gain = W[_W_NAT_RUN, p]
                    for q in range(lo, p):
                        jmask |= 1 << q
                        gain += W[_W_JOK_RUN, q]
                    cost = wmax + a * jw
                    jused = a
                    nnat = 1
                    hi = p
                    while True:
                        if hi - lo + 1 >= MIN_MELD and nnat >= minnat:
                            path[plen, M_KIND] = KIND_RUN
                            path[plen, M_KEY] = s
                            path[plen, M_LO] = lo
                            path[plen, M_HI] = hi
                            path[plen, M_MASK] = jmask
                            path[plen, M_NJ] = jused
                            _choose(e1, e2, J - jused, cur + gain, rem - cost, plen + 1, _NO_LEAVE, W, path, best,
                                    bestpath)
                        # grow: a natural at hi + 1, else a joker there, else back up to the last
                        # natural placed and put a joker in its place
                        q = hi + 1
                        bq = _bit(s, q)
                        if q <= ACE_HIGH and q - lo + 1 <= maxrun and e1 & bq:
                            e1, e2 = _take(e1, e2, bq)
                            nnat += 1
                            gain += W[_W_NAT_RUN, q]
                            cost += W[_W_NAT_MAX, q]
                            hi = q
                            continue
                        joker_at_q = True
                        while True:
                            if joker_at_q and q <= ACE_HIGH and q - lo + 1 <= maxrun and jused < maxj:
                                jmask |= 1 << q
                                jused += 1
                                gain += W[_W_JOK_RUN, q]
                                cost += jw
                                hi = q
                                break
                            if hi == p:
                                break
                            q = hi
                            hi -= 1
                            if (jmask >> q) & 1:  # a joker: its options are used up, back up further
                                jmask &= ~(1 << q)
                                jused -= 1
                                gain -= W[_W_JOK_RUN, q]
                                cost -= jw
                                joker_at_q = False
                            else:  # a natural: put it back and try a joker in its place
                                bq = _bit(s, q)
                                if e1 & bq:
                                    e2 |= bq
                                else:
                                    e1 |= bq
                                nnat -= 1
                                gain -= W[_W_NAT_RUN, q]
                                cost -= W[_W_NAT_MAX, q]
                                joker_at_q = True
                        if hi == p:  # nothing left to grow or swap
                            break
            if p == 1 and ((c1 & (_bit(s, 13) | _bit(s, 12))) != 0 or J > 0):
                # an Ace moved up to play high (a Q or K, or a joker, to play with)
                h = _bit(s, ACE_HIGH)
                if d1 & h:
                    _choose(d1, d2 | h, J, cur, rem, plen, _NO_LEAVE, W, path, best, bestpath)
                else:
                    _choose(d1 | h, d2, J, cur, rem, plen, _NO_LEAVE, W, path, best, bestpath)
        if p > N_RANKS:
            return
        # left over: go on with the next card in this same call (the tail call as a loop)
        c1 = d1
        c2 = d2
        rem -= wmax
        leave = i


@njit(cache=True)
def search(hand, W, path, bestpath, best, floor):
    """Best arrangement of ``hand int8[53]`` (0..2 copies of each natural) under weights ``W``
    (see :func:`make_weights`) among those worth more than ``floor`` (-1: any arrangement).

    Writes the melds into ``bestpath int32[MAX_MELDS, 6]`` and returns
    ``(melded_weight, n_melds)``, or ``(floor, 0)`` when no arrangement is worth more than
    ``floor``.  The arrangement returned is the same for every ``floor`` below its weight: the
    first best one in search order (a floor only cuts branches that cannot beat it).
    ``path`` (``int32[MAX_MELDS, 6]``) and ``best`` (``int64[2]``) are workspaces.
    """
    c1, c2 = hand_bits(hand)
    return search_bits(c1, c2, np.int64(hand[JOKER]), W, path, bestpath, best, floor)


@njit(cache=True)
def search_bits(c1, c2, J, W, path, bestpath, best, floor):
    """:func:`search` for the hand given as bitsets (:func:`hand_bits`) and ``J`` jokers."""
    c1, c2 = drop_unmeldable(c1, c2, J, W)
    return search_kept(c1, c2, J, W, path, bestpath, best, floor)


@njit(cache=True, inline="always")
def drop_unmeldable(c1, c2, J, W):
    """The hand ``(c1, c2)`` (bitsets, with ``J`` jokers) without the cards no meld can contain
    (:func:`meldable`), when a meld may hold a single natural (``W``'s rules): they are left over
    in every arrangement, so the hand returned has the same best arrangement - the search drops
    them first, and the table's memory of searches is keyed by what is left."""
    if W[_W_MISC, 3] <= 1:
        kept = meldable(c1, J, W[_W_MISC, 2])
        return c1 & kept, c2 & kept
    return c1, c2


@njit(cache=True)
def search_kept(c1, c2, J, W, path, bestpath, best, floor):
    """:func:`search_bits` of a hand that :func:`drop_unmeldable` has already gone through."""
    rem = _weight_of(c1, c2, c1 & _RANKS, W) + J * W[_W_MISC, 0]
    best[0] = floor
    best[1] = 0
    _choose(c1, c2, J, np.int64(0), rem, np.int64(0), _NO_LEAVE, W, path, best, bestpath)
    return best[0], best[1]
