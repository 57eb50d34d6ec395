"""The meld encoding of the kernels and the functions that read it (numba; RULES.md section 2).

A meld is ``int32[MELD_WIDTH]``, read through the accessors below, never by raw subscript:

========  ==============================  ==============================================
field     run (``KIND_RUN``)              set (``KIND_SET``)
========  ==============================  ==============================================
``kind``  ``KIND_RUN``                    ``KIND_SET``
``key``   suit 0..3                       rank 1..13
``lo``    lowest run position 1..14       the rank
``hi``    highest run position            the rank
``mask``  bit ``p``: position ``p`` is    bit ``s``: suit ``s`` is held by a natural
          held by a joker
``nj``    jokers in the run               jokers in the set
========  ==============================  ==============================================

The one-line accessors are ``inline="always"``: numba copies them into their callers instead of
compiling each on its own (a first run compiles fewer functions; the code is the same).

Run positions: 1 is the Ace low, 2..13 are 2..K, ``ACE_HIGH`` (14) is the Ace played high.  A
"path" is a table of melds ``int32[n, MELD_WIDTH]`` (the arrangement search's output, the
table's melds).
"""

from numba import njit

from handsim.games.hand.kernels.consts import JOKER, N_RANKS, N_SUITS, N_TYPES
from handsim.games.hand.kernels.params import P_MAX_JOKERS, P_MAX_RUN, P_MIN_NATURAL

# fields of a meld
M_KIND = 0
M_KEY = 1
M_LO = 2
M_HI = 3
M_MASK = 4
M_NJ = 5
MELD_WIDTH = 6

KIND_RUN = 0
KIND_SET = 1

ACE_LOW = 1  # run position of an Ace played low
ACE_HIGH = 14  # run position of an Ace played high
MAX_RUN = 13  # longest run the deck allows (the rules may allow less: max_run_length)
MAX_SET = 4  # largest set
MIN_MELD = 3  # smallest meld


# ---------------------------------------------------------------- cards


@njit(cache=True, inline="always")
def card_of(suit, rank):
    """Card type of the natural of ``suit`` (0..3) and ``rank`` (1..13)."""
    return suit * N_RANKS + rank - 1


@njit(cache=True, inline="always")
def suit_of(t):
    """Suit (0..3) of natural card type ``t``."""
    return t // N_RANKS


@njit(cache=True, inline="always")
def rank_of(t):
    """Rank (1 = Ace .. 13 = King) of natural card type ``t``."""
    return t % N_RANKS + 1


@njit(cache=True, inline="always")
def position_rank(q):
    """Rank of run position ``q`` (1..14; the Ace high is rank 1)."""
    return q if q <= N_RANKS else 1


@njit(cache=True)
def position_value(p, ace_low, ace):
    """Opening value of run position ``p`` (1..14): Ace low ``ace_low``, 2-10 face, J/Q/K 10, Ace high
    ``ace`` (``ace_value``, 11 in classic)."""
    if p == ACE_LOW:
        return ace_low
    if p >= ACE_HIGH:
        return ace
    if p >= 10:
        return 10
    return p


@njit(cache=True)
def rank_hand_value(r, ace):
    """Hand value of a natural of rank ``r`` (1..13): Ace ``ace`` (``ace_value``, 11 in classic),
    J/Q/K 10, else face value."""
    if r == 1 or r == ACE_HIGH:
        return ace
    if r >= 10:
        return 10
    return r


# ---------------------------------------------------------------- accessors


@njit(cache=True, inline="always")
def is_set(m):
    return m[M_KIND] == KIND_SET


@njit(cache=True, inline="always")
def is_run(m):
    return m[M_KIND] == KIND_RUN


@njit(cache=True, inline="always")
def meld_key(m):
    """Suit of a run, rank of a set."""
    return m[M_KEY]


@njit(cache=True, inline="always")
def meld_lo(m):
    """Lowest run position (a set: its rank)."""
    return m[M_LO]


@njit(cache=True, inline="always")
def meld_hi(m):
    """Highest run position (a set: its rank)."""
    return m[M_HI]


@njit(cache=True, inline="always")
def meld_mask(m):
    """Run: the joker positions as bits; set: the suits held by naturals as bits."""
    return m[M_MASK]


@njit(cache=True, inline="always")
def set_jokers(m):
    """Jokers in a set (``nj``; a run counts its jokers by :func:`meld_jokers`)."""
    return m[M_NJ]


@njit(cache=True, inline="always")
def run_has_joker_at(m, q):
    """Whether run position ``q`` of run ``m`` is held by a joker."""
    return ((m[M_MASK] >> q) & 1) == 1


@njit(cache=True, inline="always")
def set_has_suit(m, s):
    """Whether suit ``s`` of set ``m`` is held by a natural."""
    return ((m[M_MASK] >> s) & 1) == 1


@njit(cache=True)
def write_run(m, suit, lo, hi, joker_mask, njokers):
    m[M_KIND] = KIND_RUN
    m[M_KEY] = suit
    m[M_LO] = lo
    m[M_HI] = hi
    m[M_MASK] = joker_mask
    m[M_NJ] = njokers


@njit(cache=True)
def write_set(m, rank, suit_mask, njokers):
    m[M_KIND] = KIND_SET
    m[M_KEY] = rank
    m[M_LO] = rank
    m[M_HI] = rank
    m[M_MASK] = suit_mask
    m[M_NJ] = njokers


@njit(cache=True)
def copy_meld(src, dst):
    for k in range(MELD_WIDTH):
        dst[k] = src[k]


@njit(cache=True)
def copy_path(src, dst, n):
    """Copy the first ``n`` melds of path ``src`` to ``dst``."""
    for i in range(n):
        copy_meld(src[i], dst[i])


@njit(cache=True)
def swap_melds(path, i, j):
    """Exchange melds ``i`` and ``j`` of ``path``."""
    for k in range(MELD_WIDTH):
        x = path[i, k]
        path[i, k] = path[j, k]
        path[j, k] = x


# ---------------------------------------------------------------- contents


@njit(cache=True)
def meld_size(m):
    """Cards in meld ``m``, jokers included."""
    if is_run(m):
        return m[M_HI] - m[M_LO] + 1
    n = m[M_NJ]
    for s in range(N_SUITS):
        n += (m[M_MASK] >> s) & 1
    return n


@njit(cache=True)
def meld_jokers(m):
    """Jokers in meld ``m``."""
    if is_set(m):
        return m[M_NJ]
    n = 0
    for q in range(m[M_LO], m[M_HI] + 1):
        n += (m[M_MASK] >> q) & 1
    return n


@njit(cache=True)
def meld_uses(m, t):
    """Copies of card type ``t`` (``JOKER`` included) in meld ``m``."""
    if t == JOKER:
        return meld_jokers(m)
    s = suit_of(t)
    r = rank_of(t)
    if is_set(m):
        if m[M_KEY] == r and set_has_suit(m, s):
            return 1
        return 0
    if m[M_KEY] != s:
        return 0
    n = 0
    if m[M_LO] <= r <= m[M_HI] and not run_has_joker_at(m, r):
        n += 1
    if r == 1 and m[M_HI] == ACE_HIGH and not run_has_joker_at(m, ACE_HIGH):
        n += 1
    return n


@njit(cache=True)
def path_uses(path, n, t):
    """Copies of card type ``t`` used by the first ``n`` melds of ``path``."""
    u = 0
    for i in range(n):
        u += meld_uses(path[i], t)
    return u


@njit(cache=True)
def melded_cards(path, n):
    """Cards in the first ``n`` melds of ``path``."""
    c = 0
    for i in range(n):
        c += meld_size(path[i])
    return c


@njit(cache=True)
def path_counts(path, n, out):
    """``out int8[N_TYPES]`` = the cards of the first ``n`` melds of ``path`` as a count vector."""
    out[:] = 0
    for i in range(n):
        m = path[i]
        if is_run(m):
            s = m[M_KEY]
            for q in range(m[M_LO], m[M_HI] + 1):
                if run_has_joker_at(m, q):
                    out[JOKER] += 1
                else:
                    out[card_of(s, position_rank(q))] += 1
        else:
            r = m[M_KEY]
            for s in range(N_SUITS):
                if set_has_suit(m, s):
                    out[card_of(s, r)] += 1
            out[JOKER] += m[M_NJ]


@njit(cache=True)
def meld_is_legal(m, rv):
    """Whether meld ``m`` is a legal set or run under rules vector ``rv`` (RULES.md section 2; a run
    holds at most ``max_run_length`` cards)."""
    nj = meld_jokers(m)
    size = meld_size(m)
    if nj > rv[P_MAX_JOKERS]:
        return False
    if size - nj < rv[P_MIN_NATURAL]:
        return False
    if is_set(m):
        return MIN_MELD <= size <= MAX_SET and 1 <= m[M_KEY] <= N_RANKS
    return MIN_MELD <= size <= rv[P_MAX_RUN] and ACE_LOW <= m[M_LO] and m[M_HI] <= ACE_HIGH


@njit(cache=True)
def meld_cards(m, out):
    """Cards of meld ``m`` as (card, stands_for) rows in ``out int16[14, 2]``.

    Returns the number of cards.  A set's jokers stand for its missing suits in suit order; a
    run's cards are in position order (Ace high as the Ace at the top).
    """
    n = 0
    if is_run(m):
        s = m[M_KEY]
        for q in range(m[M_LO], m[M_HI] + 1):
            t = card_of(s, position_rank(q))
            out[n, 0] = JOKER if run_has_joker_at(m, q) else t
            out[n, 1] = t
            n += 1
    else:
        r = m[M_KEY]
        for s in range(N_SUITS):
            if set_has_suit(m, s):
                out[n, 0] = card_of(s, r)
                out[n, 1] = card_of(s, r)
                n += 1
        j = m[M_NJ]
        for s in range(N_SUITS):
            if j > 0 and not set_has_suit(m, s):
                out[n, 0] = JOKER
                out[n, 1] = card_of(s, r)
                n += 1
                j -= 1
    return n


@njit(cache=True)
def meld_value(m, ace_low, ace):
    """Opening value (points) of meld ``m`` (RULES.md sections 1 and 4): a low Ace counts
    ``ace_low``, every other Ace ``ace``."""
    if is_run(m):
        v = 0
        for q in range(m[M_LO], m[M_HI] + 1):
            v += position_value(q, ace_low, ace)
        return v
    n = 0
    for s in range(N_SUITS):
        n += (m[M_MASK] >> s) & 1
    return (n + m[M_NJ]) * rank_hand_value(m[M_KEY], ace)
