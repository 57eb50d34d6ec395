"""The policy API of Russian Hand (numba): what a policy may observe, plan and do (RULES.md §8).

A Russian Hand policy's ``play(g, seat)`` is called once per turn of its seat and returns
:data:`DRAW` (take the top stock card; the turn ends) or :data:`PLAY`, having *staged* a play
with :func:`best_play` or :func:`try_play`.  The engine checks the staged play (at least one
hand card placed, only cards the hand holds, the table after is the table before plus exactly
those cards, every meld legal, the first-round rule) before it carries it out.  ``g`` is opaque:
read it only through these functions.

Observations: :func:`cards_held`, :func:`hand_count`, :func:`hand_value`, :func:`players`,
:func:`turn`, :func:`own_turns`, :func:`stock_left`, :func:`in_first_round`, :func:`frozen`,
:func:`fewest_cards_of_others`, :func:`table_count`, :func:`n_table_melds`,
:func:`table_meld`, :func:`param`.  Randomness: :func:`random_below` (the deal's own stream,
so a deal replays alone).  Planning and staging: :func:`best_play`, :func:`try_play`,
:func:`staged_count`, :func:`staged_card`.
"""

import numpy as np
from numba import njit

from handsim.games.russian.kernels import rearrange as K
from handsim.games.russian.kernels.state import (
    DECK,
    DRAW,
    ERR_SEARCH,
    FR_FREE,
    FR_ONE_MELD,
    MELD_ROWS,
    N_CARDS,
    PLAY,
    R_FIRST_ROUND,
    R_STOCK_OUT_END,
    SO_LAST_CARD,
)
from handsim._kernels.rng import randbelow

__all__ = ["DRAW", "PLAY", "best_play", "try_play"]

# re-exported for policies
DRAW = DRAW
PLAY = PLAY


# ------------------------------------------------------------------------------ observations


@njit(cache=True, inline="always")
def cards_held(g, seat):
    """Cards in ``seat``'s hand."""
    return g[0].hand_n[seat]


@njit(cache=True, inline="always")
def hand_count(g, seat, t):
    """Copies (0..2) of card type ``t`` in ``seat``'s hand (a policy may look only at its own)."""
    return g[0].hand[seat, t]


@njit(cache=True)
def hand_value(g, seat):
    """Points of ``seat``'s hand (RULES.md §1, Ace ``ace_value``): the stock-out tie-break."""
    st = g[0]
    v = 0
    for t in range(N_CARDS):
        c = st.hand[seat, t]
        if c:
            v += c * st.rank_value[t % 13 + 1]
    return v


@njit(cache=True, inline="always")
def players(g):
    return g[0].players


@njit(cache=True, inline="always")
def turn(g):
    """Turns finished in this game (the current turn is ``turn(g) + 1``)."""
    return g[0].turn


@njit(cache=True, inline="always")
def own_turns(g, seat):
    """Turns ``seat`` has finished."""
    return g[0].own_turns[seat]


@njit(cache=True, inline="always")
def stock_left(g):
    """Cards left in the stock."""
    return DECK - g[0].stock_top


@njit(cache=True, inline="always")
def in_first_round(g):
    """Whether this turn is in the first round of turns (until every player has had one)."""
    return g[0].turn < g[0].players


@njit(cache=True, inline="always")
def frozen(g):
    """Whether a play now may only lay new melds of hand cards (the first-round rule)."""
    st = g[0]
    return st.turn < st.players and st.rv[R_FIRST_ROUND] != FR_FREE


@njit(cache=True, inline="always")
def last_card_ends(g):
    """Whether drawing the last stock card ends the game (``stock_out_end = last_card``)."""
    return g[0].rv[R_STOCK_OUT_END] == SO_LAST_CARD


@njit(cache=True)
def fewest_cards_of_others(g, seat):
    """The fewest cards any other player holds."""
    st = g[0]
    best = 1 << 30
    for s in range(st.players):
        if s != seat and st.hand_n[s] < best:
            best = st.hand_n[s]
    return best


@njit(cache=True, inline="always")
def table_count(g, t):
    """Copies of card type ``t`` on the table."""
    return g[0].tcnt[t]


@njit(cache=True, inline="always")
def n_table_melds(g):
    return g[0].n_melds


@njit(cache=True, inline="always")
def table_meld(g, i, j):
    """Field ``j`` of table meld ``i``: ``(RUN, suit, lo, hi)`` or ``(SET, rank, suit_mask, 0)``."""
    return g[0].melds[i, j]


@njit(cache=True, inline="always")
def param(g, seat, slot):
    """The seat's policy parameter at ``slot`` (``Policy.slot(name)``)."""
    return g[0].pp[seat, slot]


@njit(cache=True, inline="always")
def random_below(g, n):
    """A uniform integer in ``0..n-1`` from the deal's own random stream."""
    return randbelow(g[0].rng, n)


# ------------------------------------------------------------------------------ plans


@njit(cache=True)
def _stage(g, hcnt, tags):
    """Search the best play of the cards ``hcnt`` (a subset of the hand) and stage it; returns
    the number of cards it places (0: nothing staged)."""
    st = g[0]
    ws = g[1]
    st.st_n = 0
    frozen_play = st.turn < st.players and st.rv[R_FIRST_ROUND] != FR_FREE
    st.solves += 1
    st.searched = 1
    out = st.sol_melds
    if frozen_play and st.rv[R_FIRST_ROUND] == FR_ONE_MELD:
        n, _ = K.best_single_meld(hcnt, st.rank_value, out)
        n_out = 1 if n > 0 else 0
        if n > 0:
            st.st_placed[:] = 0
            if out[0, 0] == K.RUN:
                for p in range(out[0, 2], out[0, 3] + 1):
                    r = 1 if p == 14 else p
                    st.st_placed[out[0, 1] * 13 + r - 1] += 1
            else:
                for s in range(4):
                    if (out[0, 2] >> s) & 1:
                        st.st_placed[s * 13 + out[0, 1] - 1] += 1
    else:
        ws[6][2] = 0
        status, n, value, kept, n_out = K.rearrange(st.tcnt, hcnt, st.melds, st.n_melds, st.rank_value, frozen_play,
                                                    tags, ws, st.st_placed, out)
        if ws[6][2] > 0:
            st.searches += 1
        if status != K.OK:
            st.err = ERR_SEARCH
            return 0
    if n == 0:
        return 0
    m = 0
    if frozen_play:  # the table stays; the new melds follow it
        for i in range(st.n_melds):
            for j in range(4):
                st.st_melds[i, j] = st.melds[i, j]
        m = st.n_melds
    for i in range(n_out):
        for j in range(4):
            st.st_melds[m + i, j] = out[i, j]
    st.st_n_melds = m + n_out
    st.st_n = n
    return n


@njit(cache=True)
def best_play(g, seat):
    """Stage the play that places the most of ``seat``'s cards, then the highest value
    (RULES.md §8: the exact rearrangement search; in the first round only new melds of hand
    cards, or the best single meld under ``first_round = one_meld``).

    Returns
    -------
    int
        Cards it places; 0 when no card can be placed (nothing is staged).
    """
    return _stage(g, g[0].hand[seat], False)


@njit(cache=True)
def try_play(g, seat, cnt, tags):
    """Stage a play that places exactly the cards ``cnt`` (``int8[52]`` counts, a part of the
    hand), if the table and those cards can be laid out in legal melds (``tags``: the layout
    that changes the fewest table melds, else any legal one).

    Returns
    -------
    bool
        Whether such a play exists (it is then staged); ``False`` also for cards the hand does
        not hold or no card at all.
    """
    st = g[0]
    n = 0
    for t in range(N_CARDS):
        if cnt[t] < 0 or cnt[t] > st.hand[seat, t]:
            st.st_n = 0
            return False
        n += cnt[t]
    if n == 0:
        st.st_n = 0
        return False
    got = _stage(g, cnt, tags)
    if got != n:
        st.st_n = 0
        return False
    return True


@njit(cache=True, inline="always")
def staged_count(g):
    """Cards the staged play places (0: none staged)."""
    return g[0].st_n


@njit(cache=True, inline="always")
def staged_card(g, t):
    """Copies of card type ``t`` the staged play places."""
    return g[0].st_placed[t]


@njit(cache=True)
def new_counts():
    """A zeroed ``int8[52]`` card-count vector (for :func:`try_play`); allocate it once per
    call of a policy, not per candidate."""
    return np.zeros(N_CARDS, np.int8)


MELD_ROWS = MELD_ROWS
