"""Exact table rearrangement for Russian Hand (numba): the hot path of every turn (RULES.md §2, §8).

Given the table (a legal partition into melds) and a hand, find the *play*: the hand cards to put
on the table such that the table plus those cards partition into legal melds (sets of 3-4 cards
of one rank in distinct suits; runs of 3-13 consecutive cards of one suit, the Ace low at run
position 1 or high at position 14, never both, never wrapping), choosing lexicographically

1. the most hand cards placed,
2. then the highest total card value placed (``rank_value``, RULES.md §1: Ace 11, J/Q/K 10),
3. then the fewest table melds changed (an original meld is *kept* when the new table holds a
   meld of exactly the same cards; copies of a card are interchangeable).

Encoding
--------
* Cards: count vectors over card types ``t = suit * 13 + rank - 1`` (``handsim.cards``), at
  least 52 long (a 53rd joker entry is ignored), each count 0..2.
* A meld is one row ``int8[4]``: a run ``(RUN, suit, lo, hi)`` with run positions
  ``1 <= lo < hi <= 14`` (1 = Ace low, 14 = Ace high); a set ``(SET, rank, suit_mask, 0)``
  with bit ``s`` of ``suit_mask`` set when suit ``s`` is in the set.  No jokers in Russian Hand,
  so a row names its cards exactly.

Algorithm (a dynamic programme over run positions, after van Rijn, Takes & Vis 2016)
-------------------------------------------------------------------------------------
Run positions 2..13 are visited in order and then one *Ace step*, within each the suits 0..3:
52 layers.  At ``(p, s)`` the search decides how many copies ``u`` of the card are used (all
table copies plus 0..all hand copies) and what each copy does: continue one of the at most two
runs of suit ``s`` that are open (a copy of a card sits in one run, so at most two runs of a
suit pass any position), start a new run, or join a set of rank ``p``.  A run that receives
no card closes and must then be at least 3 long.  The Aces are decided last, because an Ace
may be low (position 1) or high (14): a run started at 2 may begin with a low Ace (it then
*owes* one); at the Ace step each suit's Aces pay what is owed, extend runs open at the King
(the Ace high) and go into Ace sets.

The state is, per suit, the two open run *slots* (code: empty, length 1, length 2, length
3+, length 3+ begun at the Ace low - it may not reach the Ace high -, or *tagged*: an exact
copy in progress of original table run ``k`` of the suit) and the low Aces owed; plus, inside a
position, the copies per suit given to sets so far.  After the last suit the set counts must
split into sets of 3-4 distinct suits (all zero; one 0/1 vector with 3-4 ones; or counts
summing to 6+: two sets), the split keeping as many original sets of the rank as it can.  A
tagged run scores a kept meld when it closes exactly where its original ends.  The score is
``placed * W_PLACED + value * W_VALUE + kept``: additive over layers, so the best score per
state is all the search keeps, and the weights make the criteria lexicographic (``kept < 64``,
``value < 2048``).

Exactness: every partition of table plus placed cards into legal melds is one path through the
layers (runs are intervals of positions, a set lives at one rank, each Ace's role is chosen at
the Ace step) and every complete path is such a partition, so the best final state is the
optimum.  The search drops only states that cannot lead to a better answer:

* hand cards that fit no meld of table + hand cards (fewer than 3 suits of their rank and no
  3 consecutive positions of their suit around them), to a fixed point, before the search -
  with none left the answer is "place nothing, keep the table" without a search;
* the parts of the table no usable hand card can reach: cards are joined when consecutive in
  a suit or of one rank held in three suits, every meld lies within one such group, and a group
  without hand cards stays as it is (its melds are copied to the answer, kept);
* set counts that can no longer become sets, and runs of length 1 or 2 whose next one or two
  positions hold too few cards;
* a child of a state that a sibling *dominates*: same set counts and owed Aces, a score at
  least as high, and slots that can do whatever the child's can (a run of 3+ can end at once,
  so it dominates an empty slot; a longer run dominates a shorter one of the same end); and,
  once a layer holds 48 states or more, any state of the layer dominated in the same way by
  another that differs from it in one run slot (the search is Markov in the state, so the
  dominated state cannot lead to a better answer; on tables of 60+ cards this cuts the states
  about in half and the time about three-fold);
* layers with no card and no card at the position before in that suit are skipped.

The changed-melds criterion costs a second search: the first, without tags, finds the best
count and value and a play; the second, with tags, keeps only states that can still reach that
count and value and keep more original melds than the first play (bounds: hand cards left,
the value of the best of them, original melds still ahead).

States are deduplicated per layer in an open-addressing hash table; each state owns one entry
of a pool (parent entry, action), from which the winning path is read back and replayed to
write the new table's melds.  The workspace (:func:`make_workspace`) is allocated once; a call
that needs more states than it holds uses a four times larger one for that call (exact, just
slower).
"""

import numpy as np
from numba import njit
from .search import (  # noqa: F401  (moved to .search; re-exported)
    MAX_MELDS, N_LAYERS, OK, OVERFLOW, RUN, SET,
    WS_POOL, WS_STATES, W_PLACED, W_VALUE, _CMAX, _CSUM,
    _C_SHIFT, _EMPTY, _LEN1, _LEN2, _LEN3, _LEN3_LOW,
    _LOW40, _MAX_TAGS, _POW3, _PRUNE_MIN, _SET_KIND, _TAG0,
    _TOP, _avail, _close_bonus, _completable, _could_meld, _dominates,
    _fill_bounds, _grow, _kept_sets, _lookup, _next_code, _next_code_m,
    _pack_action, _prune_hand, _prune_layer, _search, _set_kinds, _slot_dominates,
    _slot_step, _slots, _split_sets, _tag_masks, _viable, make_workspace,
    new_workspace,
)


@njit(cache=True)
def _components(ws):
    """Split the cards of table and hand (``T``, ``H``) into groups that no meld crosses, and
    drop from ``T`` the groups holding no usable hand card.

    Two card types are joined when both are present and are consecutive in one suit (the King
    and the Ace too: Q-K-A) or share a rank held in at least three suits (a set could join
    them).  Every meld lies within one group, so a group without hand cards is a part of the
    table no play can touch: it stays as it is and the search need not see it.  Writes each
    card type's group to ``ws[16][t]`` (-1 if absent) and whether the group holds a hand card
    to ``ws[17][group]``; returns the number of table cards dropped.
    """
    T = ws[7]
    H = ws[8]
    comp = ws[16]
    live = ws[17]
    stack = ws[18]
    for t in range(52):
        s = t // 13
        r = t % 13 + 1
        comp[t] = -1 if T[s, r] + H[s, r] == 0 else -2
    n_comp = 0
    for t0 in range(52):
        if comp[t0] != -2:
            continue
        comp[t0] = n_comp
        live[n_comp] = 0
        top = 0
        stack[top] = t0
        top += 1
        while top > 0:
            top -= 1
            t = stack[top]
            s = t // 13
            r = t % 13 + 1
            if H[s, r] > 0:
                live[n_comp] = 1
            # neighbours in the suit (K and A are neighbours through the Ace high)
            for dr in (-1, 1):
                q = r + dr
                if q == 0:
                    q = 13
                elif q == 14:
                    q = 1
                u = s * 13 + q - 1
                if comp[u] == -2:
                    comp[u] = n_comp
                    stack[top] = u
                    top += 1
            # the same rank in other suits, when a set could form
            suits = 0
            for x in range(4):
                if T[x, r] + H[x, r] > 0:
                    suits += 1
            if suits >= 3:
                for x in range(4):
                    u = x * 13 + r - 1
                    if comp[u] == -2:
                        comp[u] = n_comp
                        stack[top] = u
                        top += 1
        n_comp += 1
    dropped = 0
    for t in range(52):
        c = comp[t]
        if c >= 0 and live[c] == 0:
            s = t // 13
            r = t % 13 + 1
            dropped += T[s, r]
            T[s, r] = 0
    return dropped


@njit(cache=True, inline="always")
def _meld_live(comp, live, kind, key, a):
    """Whether a table meld lies in a group of cards that holds a usable hand card (see :func:`_components`)."""
    if kind == RUN:
        t = key * 13 + (1 if a == 14 else a) - 1
    else:
        s = 0
        while not (a >> s) & 1:
            s += 1
        t = s * 13 + key - 1
    return live[comp[t]] != 0


@njit(cache=True)
def _load(ws, tcnt, hcnt, melds, n_melds, frozen, tags):
    """Fill the per-call tables of the workspace; return the number of usable hand cards.

    Hand cards that fit no meld are dropped first (:func:`_prune_hand`), then the parts of the
    table no usable hand card can reach (:func:`_components`; ``ws[6][3]`` holds how many
    table cards that left out, 0 when nothing was)."""
    T = ws[7]
    H = ws[8]
    RUNS = ws[9]
    SETS = ws[10]
    T[:, :] = 0
    H[:, :] = 0
    RUNS[:, 0] = 0
    SETS[:, 0] = 0
    for s in range(4):
        for r in range(1, 14):
            if not frozen:
                T[s, r] = tcnt[s * 13 + r - 1]
            H[s, r] = hcnt[s * 13 + r - 1]
    left = _prune_hand(T, H)
    ws[6][3] = 0
    if left == 0 or frozen:
        return left
    ws[6][3] = _components(ws)
    comp = ws[16]
    live = ws[17]
    if tags:
        for i in range(n_melds):
            if ws[6][3] and not _meld_live(comp, live, melds[i, 0], melds[i, 1], melds[i, 2]):
                continue
            if melds[i, 0] == RUN:
                s = melds[i, 1]
                k = RUNS[s, 0]
                RUNS[s, 1 + k] = melds[i, 2]
                RUNS[s, 1 + _MAX_TAGS + k] = melds[i, 3]
                RUNS[s, 0] = k + 1
            else:
                r = melds[i, 1]
                k = SETS[r, 0]
                SETS[r, 1 + k] = melds[i, 2]
                SETS[r, 0] = k + 1
        ws[11][:, :] = -2
    return left


@njit(cache=True)
def _write_play(ws, best_entry, placed, out):
    """Read the winning path back from the pool and replay it: the placed cards into
    ``placed`` and the new table's melds into ``out``; return the number of melds."""
    T = ws[7]
    RUNS = ws[9]
    SETS = ws[10]
    pool = ws[5]
    acts = ws[12]
    e = best_entry
    for layer in range(N_LAYERS - 1, -1, -1):
        if acts[64 + layer]:
            acts[layer] = 0  # a skipped layer: nothing used, nothing open
        else:
            acts[layer] = pool[1, e]
            e = pool[0, e]
    placed[:] = 0
    code = np.zeros((4, 2), np.int64)
    start = np.zeros((4, 2), np.int64)
    setc = np.zeros(4, np.int64)
    masks = np.empty(2, np.int32)
    n_out = 0
    for step in range(13):
        p = step + 2 if step < 12 else 14
        rank = p if p <= 13 else 1
        for s in range(4):
            act = acts[step * 4 + s]
            u = act & 3
            mask = (act >> 2) & 3
            nn = (act >> 4) & 3
            n1 = (act >> 6) & 15
            n2 = (act >> 10) & 15
            setc[s] = (act >> 14) & 3
            # continuing runs keep their start; new runs start here (or at the Ace low); larger code first
            m = 0
            c0 = _EMPTY
            c1 = _EMPTY
            s0 = 0
            s1 = 0
            for j in range(2):
                if (mask >> j) & 1:
                    c = _next_code(code[s, j], p, s, RUNS)
                    if m == 0:
                        c0 = c
                        s0 = start[s, j]
                    else:
                        c1 = c
                        s1 = start[s, j]
                    m += 1
                elif code[s, j] != _EMPTY:
                    n_out = _put(out, n_out, RUN, s, start[s, j], p - 1)
            for j in range(nn):
                c = n1 if j == 0 else n2
                first = p
                if p == 2 and (c == _LEN2 or (c >= _TAG0 and RUNS[s, 1 + c - _TAG0] == 1)):
                    first = 1
                if m == 0:
                    c0 = c
                    s0 = first
                else:
                    c1 = c
                    s1 = first
                m += 1
            if c1 > c0:
                code[s, 0] = c1
                code[s, 1] = c0
                start[s, 0] = s1
                start[s, 1] = s0
            else:
                code[s, 0] = c0
                code[s, 1] = c1
                start[s, 0] = s0
                start[s, 1] = s1
            placed[s * 13 + rank - 1] = u - T[s, rank]
        cv = setc[0] + 3 * setc[1] + 9 * setc[2] + 27 * setc[3]
        n, _ = _split_sets(cv, SETS[rank, 0], SETS[rank, 1], SETS[rank, 2], masks)
        for j in range(n):
            n_out = _put(out, n_out, SET, rank, masks[j], 0)
    for s in range(4):
        for j in range(2):
            if code[s, j] != _EMPTY:
                n_out = _put(out, n_out, RUN, s, start[s, j], 14)
    return n_out


@njit(cache=True, inline="always")
def _put(out, n_out, kind, key, a, b):
    out[n_out, 0] = kind
    out[n_out, 1] = key
    out[n_out, 2] = a
    out[n_out, 3] = b
    return n_out + 1


@njit(cache=True)
def _solve_in(ws, tcnt, hcnt, melds, n_melds, rank_value, frozen, tags, placed, out):
    """One search with workspace ``ws``: ``(status, n_placed, value, kept, n_out)``."""
    left = _load(ws, tcnt, hcnt, melds, n_melds, frozen, tags)
    best = 0
    entry = 0
    if left > 0:
        # the best count and value first, without copies of original runs (fast); then, for
        # the fewest melds changed, again with them, keeping only states that reach that optimum
        status, best, entry = _search(ws, rank_value, False, -1, 0, 0)
        if status != OK:
            return status, 0, 0, 0, 0
        if entry < 0:
            return -1, 0, 0, 0, 0  # the table itself is no partition into melds
    if best < W_PLACED:  # nothing placeable: the table stays as it is
        placed[:] = 0
        n_out = 0
        if not frozen:
            for i in range(n_melds):
                for j in range(4):
                    out[i, j] = melds[i, j]
            n_out = n_melds
        return OK, 0, 0, (0 if frozen else n_melds), n_out
    n_out = _write_play(ws, entry, placed, out)
    kept = 0
    if tags and not frozen:
        kept = _count_kept(out, n_out, melds, n_melds)
        status, best2, entry2 = _search(ws, rank_value, True, best // W_PLACED, (best % W_PLACED) // W_VALUE, kept)
        if status != OK:
            return status, 0, 0, 0, 0
        if entry2 >= 0 and best2 > best + kept:
            n_out = _write_play(ws, entry2, placed, out)
            kept = best2 % W_VALUE
    if ws[6][3]:  # the parts of the table the search left out stay as they were
        comp = ws[16]
        live = ws[17]
        for i in range(n_melds):
            if not _meld_live(comp, live, melds[i, 0], melds[i, 1], melds[i, 2]):
                for j in range(4):
                    out[n_out, j] = melds[i, j]
                n_out += 1
                kept += 1
    n_placed = best // W_PLACED
    value = (best % W_PLACED) // W_VALUE
    return OK, n_placed, value, kept, n_out


@njit(cache=True)
def _count_kept(out, n_out, melds, n_melds):
    """Original melds that appear unchanged among the ``n_out`` melds of ``out`` (as multisets)."""
    used = np.zeros(n_out, np.bool_)
    kept = 0
    for i in range(n_melds):
        for j in range(n_out):
            if (not used[j] and out[j, 0] == melds[i, 0] and out[j, 1] == melds[i, 1]
                    and out[j, 2] == melds[i, 2] and out[j, 3] == melds[i, 3]):
                used[j] = True
                kept += 1
                break
    return kept


@njit(cache=True)
def rearrange(tcnt, hcnt, melds, n_melds, rank_value, frozen, tags, ws, placed, out):
    """Best play of a hand onto a table, rearranging the table freely (RULES.md §2, §8).

    Parameters
    ----------
    tcnt, hcnt : ndarray(int8, shape=(52,) or (53,))
        Copies of each card type on the table / in the hand (0..2; together at most 2).
    melds : ndarray(int8, shape=(M, 4))
        The table's melds (rows ``(RUN, suit, lo, hi)`` / ``(SET, rank, suit_mask, 0)``);
        rows ``0..n_melds-1`` are read.  Must be legal and hold exactly ``tcnt``.
    n_melds : int
    rank_value : ndarray(int32, shape=(14,))
        Value in points of a card of rank 1..13 (index 0 unused), the second criterion.
    frozen : bool
        First-round play (RULES.md §8): the table may not be touched; only new melds made of
        hand cards alone are laid (``tcnt`` and ``melds`` are then ignored).
    tags : bool
        Whether to minimise the table melds changed (the third criterion); without it the
        search is faster and the placed count and value are the same.
    ws : tuple
        From :func:`make_workspace`.
    placed : ndarray(int8, shape=(52,))
        Output: copies of each card type placed from the hand.
    out : ndarray(int8, shape=(>= MAX_MELDS, 4))
        Output: the melds of the table after the play (with ``frozen``: the new melds only).

    Returns
    -------
    tuple of int
        ``(status, n_placed, value, kept, n_out)``: ``status`` 0 ok, -1 the table is not a
        partition into legal melds; ``value`` in points; ``kept`` original melds unchanged (with
        ``tags``; the table melds changed are ``n_melds - kept``); ``n_out`` rows of ``out``.
    """
    status, n_placed, value, kept, n_out = _solve_in(ws, tcnt, hcnt, melds, n_melds, rank_value,
                                                     frozen, tags, placed, out)
    states = ws[0].shape[1]
    pool = ws[5].shape[1]
    while status == OVERFLOW:
        states *= 4
        pool *= 4
        big = _grow(states, pool)
        status, n_placed, value, kept, n_out = _solve_in(big, tcnt, hcnt, melds, n_melds, rank_value,
                                                         frozen, tags, placed, out)
    return status, n_placed, value, kept, n_out


@njit(cache=True)
def _lays_off(tcnt, melds, n_melds, hcnt):
    """A sufficient test: some hand card extends a table meld as it stands, or three hand
    cards make a meld by themselves."""
    for i in range(n_melds):
        if melds[i, 0] == RUN:
            s = melds[i, 1]
            lo = melds[i, 2]
            hi = melds[i, 3]
            if hi - lo + 1 >= 13:
                continue
            if lo > 1:
                r = lo - 1
                if hcnt[s * 13 + r - 1] > 0:
                    return True
            if hi < 14:
                r = 1 if hi + 1 == 14 else hi + 1
                if hcnt[s * 13 + r - 1] > 0:
                    return True
        else:
            r = melds[i, 1]
            m = melds[i, 2]
            for s in range(4):
                if not (m >> s) & 1 and hcnt[s * 13 + r - 1] > 0:
                    return True
    for r in range(1, 14):
        suits = 0
        for s in range(4):
            if hcnt[s * 13 + r - 1] > 0:
                suits += 1
        if suits >= 3:
            return True
    for s in range(4):
        run = 0
        for p in range(1, 15):
            r = 1 if p == 14 else p
            if hcnt[s * 13 + r - 1] > 0:
                run += 1
                if run >= 3:
                    return True
            else:
                run = 0
    return False


@njit(cache=True)
def can_place(tcnt, hcnt, melds, n_melds, frozen, ws):
    """Whether the hand can place any card at all (RULES.md §8: a play places at least one).

    Same inputs as :func:`rearrange` (with ``frozen``, only new melds of hand cards count).
    Answers most positions from a lay-off or hand-only meld test or from the pre-search
    pruning, and runs the search (without the changed-melds criterion) only when those do
    not decide.

    Returns
    -------
    bool
    """
    empty = np.zeros(1, np.int8)
    if frozen:
        if _lays_off(empty, melds, 0, hcnt):
            return True
    elif _lays_off(tcnt, melds, n_melds, hcnt):
        return True
    left = _load(ws, tcnt, hcnt, melds, n_melds, frozen, False)
    if left == 0:
        return False
    if frozen:
        return False  # no three hand cards make a meld (checked above)
    rank_value = np.ones(14, np.int32)
    placed = np.zeros(52, np.int8)
    out = np.zeros((MAX_MELDS + 8, 4), np.int8)
    status, n_placed, value, kept, n_out = rearrange(tcnt, hcnt, melds, n_melds, rank_value, frozen, False,
                                                     ws, placed, out)
    return n_placed > 0


@njit(cache=True)
def best_single_meld(hcnt, rank_value, out):
    """First-round play under ``first_round = one_meld``: the one new meld of hand cards with
    the most cards, then the highest value (RULES.md §8).

    Parameters
    ----------
    hcnt : ndarray(int8, shape=(52,) or (53,))
    rank_value : ndarray(int32, shape=(14,))
    out : ndarray(int8, shape=(>= 1, 4))
        Output row 0: the meld.

    Returns
    -------
    tuple of int
        ``(n_cards, value)``; ``(0, 0)`` when the hand holds no meld.
    """
    best_n = 0
    best_v = 0
    for s in range(4):
        for lo in range(1, 13):
            v = 0
            for hi in range(lo, min(lo + 12, 14) + 1):
                r = 1 if hi == 14 else hi
                if hcnt[s * 13 + r - 1] == 0:
                    break
                v += rank_value[r]
                n = hi - lo + 1
                if n >= 3 and (n > best_n or (n == best_n and v > best_v)):
                    best_n = n
                    best_v = v
                    out[0, 0] = RUN
                    out[0, 1] = s
                    out[0, 2] = lo
                    out[0, 3] = hi
    for r in range(1, 14):
        m = 0
        n = 0
        for s in range(4):
            if hcnt[s * 13 + r - 1] > 0:
                m |= 1 << s
                n += 1
        v = n * rank_value[r]
        if n >= 3 and (n > best_n or (n == best_n and v > best_v)):
            best_n = n
            best_v = v
            out[0, 0] = SET
            out[0, 1] = r
            out[0, 2] = m
            out[0, 3] = 0
    return best_n, best_v
