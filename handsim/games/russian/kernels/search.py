"""The dynamic programme of Russian Hand's table rearrangement (numba; RULES.md §2, §8): the meld
encoding, the workspace, the per-layer search with its dominance pruning and its bounds.

:mod:`.rearrange` describes the algorithm, calls it (:func:`_search`) and re-exports every name of
this module."""

import numpy as np
from numba import njit


RUN = 0
SET = 1
#: Most melds a table can hold (104 cards / 3).
MAX_MELDS = 34

W_VALUE = 64
W_PLACED = 64 * 2048

# run-slot codes
_EMPTY = 0
_LEN1 = 1
_LEN2 = 2
_LEN3 = 3  # length 3 or more
_LEN3_LOW = 4  # length 3 or more, begun at the Ace low: may not take the Ace high
_TAG0 = 5  # _TAG0 + k: an exact copy of original run k of the suit, in progress
_MAX_TAGS = 11

_C_SHIFT = 40
_LOW40 = (1 << 40) - 1

# statuses
OK = 0
OVERFLOW = 1


def _set_kinds() -> np.ndarray:
    """For each per-suit count vector ``c`` (``sum c[s] 3^s``): -1 if its cards cannot be split
    into sets of 3-4 distinct suits, else the number of sets (0, 1 or 2)."""
    out = np.full(81, -1, dtype=np.int8)
    for cv in range(81):
        c = [(cv // 3 ** s) % 3 for s in range(4)]
        total = sum(c)
        if total == 0:
            out[cv] = 0
        elif max(c) <= 1 and total >= 3:
            out[cv] = 1
        elif total >= 6:
            out[cv] = 2
    return out


_SET_KIND = _set_kinds()
_POW3 = np.array([1, 3, 9, 27], dtype=np.int64)
#: Sum and largest digit of each per-suit set-count vector (base 3).
_CSUM = np.array([sum((cv // 3 ** s) % 3 for s in range(4)) for cv in range(81)], dtype=np.int64)
_CMAX = np.array([max((cv // 3 ** s) % 3 for s in range(4)) for cv in range(81)], dtype=np.int64)
#: Layers of the search: positions 2..13 and the Ace step, four suits each.
N_LAYERS = 52
#: Largest number of placed cards the second search bounds by value (more: no value bound).
_TOP = 32


#: Default workspace sizes: states per layer, states of all layers.
WS_STATES = 1 << 14
WS_POOL = 1 << 19


@njit(cache=True)
def new_workspace():
    """:func:`make_workspace` with the default sizes, callable from compiled code."""
    return _grow(WS_STATES, WS_POOL)


def make_workspace(states: int = WS_STATES, pool: int = WS_POOL):
    """Workspace of the search, allocated once and reused by every call.

    Parameters
    ----------
    states : int
        Most states one layer may hold (a call that needs more enlarges a copy by itself).
    pool : int
        Most states of all 52 layers together.

    Returns
    -------
    tuple of ndarray
        Pass it unchanged to the kernels.
    """
    return _grow(states, pool)


@njit(cache=True, inline="always")
def _avail(T, H, s, p):
    """Copies of the card at run position ``p`` (0..15) of suit ``s`` on the table or in hand."""
    if p < 1 or p > 14:
        return 0
    q = 1 if p == 14 else p
    return T[s, q] + H[s, q]


@njit(cache=True)
def _could_meld(T, H, s, r):
    """Whether a card of suit ``s``, rank ``r`` (1..13) could sit in some meld of table + hand cards."""
    suits = 0
    for x in range(4):
        if T[x, r] + H[x, r] > 0:
            suits += 1
    if suits >= 3:
        return True
    for pos in (r, 14 if r == 1 else -1):
        if pos < 0:
            continue
        for lo in range(pos - 2, pos + 1):
            if lo >= 1 and lo + 2 <= 14:
                if _avail(T, H, s, lo) > 0 and _avail(T, H, s, lo + 1) > 0 and _avail(T, H, s, lo + 2) > 0:
                    return True
    return False


@njit(cache=True)
def _prune_hand(T, H):
    """Drop hand cards that fit no meld of table + hand cards, to a fixed point; return how many are left."""
    changed = True
    while changed:
        changed = False
        for s in range(4):
            for r in range(1, 14):
                if H[s, r] > 0 and not _could_meld(T, H, s, r):
                    H[s, r] = 0
                    changed = True
    left = 0
    for s in range(4):
        for r in range(1, 14):
            left += H[s, r]
    return left


@njit(cache=True, inline="always")
def _next_code(code, p, s, RUNS):
    """Slot code after its run takes the card at position ``p``; -1 if it cannot."""
    reach = 0
    if code >= _TAG0 and p <= RUNS[s, 1 + _MAX_TAGS + code - _TAG0]:
        reach = 1 << (code - _TAG0)
    return _next_code_m(code, p, reach)


@njit(cache=True, inline="always")
def _tag_masks(RUNS, s, p):
    """The original runs of suit ``s`` (bit ``k``: run ``k``) that reach position ``p`` (a copy
    in progress may take the card there), that end at ``p - 1`` (a copy may close before ``p``)
    and that go on past ``p`` (a copy needs the next card).  The search's hot loops take these
    bit masks instead of ``RUNS``: a call, even an inlined one, that is given an array costs a
    reference-count update."""
    reach = 0
    ends = 0
    past = 0
    for k in range(RUNS[s, 0]):
        hi = RUNS[s, 1 + _MAX_TAGS + k]
        if p <= hi:
            reach |= 1 << k
        if hi == p - 1:
            ends |= 1 << k
        if hi > p:
            past |= 1 << k
    return reach, ends, past


@njit(cache=True, inline="always")
def _next_code_m(code, p, reach):
    """:func:`_next_code` with the original runs that reach ``p`` as a bit mask (:func:`_tag_masks`)."""
    if code == _EMPTY:
        return -1
    if code == _LEN1:
        return _LEN2
    if code == _LEN2:
        return _LEN3_LOW if p == 3 else _LEN3
    if code == _LEN3:
        return _LEN3
    if code == _LEN3_LOW:
        return -1 if p == 14 else _LEN3_LOW
    return code if (reach >> (code - _TAG0)) & 1 else -1


@njit(cache=True, inline="always")
def _close_bonus(code, ends):
    """Kept melds (0 or 1) when a slot's run ends before the position whose original runs
    ending just before it are the bit mask ``ends`` (:func:`_tag_masks`); -1 if it may not end there."""
    if code == _EMPTY or code == _LEN3 or code == _LEN3_LOW:
        return 0
    if code == _LEN1 or code == _LEN2:
        return -1
    return 1 if (ends >> (code - _TAG0)) & 1 else -1


@njit(cache=True, inline="always")
def _slot_step(code, cont, p, reach, ends):
    """A slot at position ``p``: its run takes the card (``cont``) or ends.  Returns the new code
    (empty after an end; -1 if not allowed) and the original melds that end keeps (0 or 1).
    ``reach``, ``ends``: see :func:`_tag_masks`."""
    if cont:
        return _next_code_m(code, p, reach), 0
    c = _close_bonus(code, ends)
    if c < 0:
        return -1, 0
    return _EMPTY, c


@njit(cache=True)
def _split_sets(cv, n_orig, o1, o2, masks):
    """Split the set cards ``cv`` (per-suit counts, base 3) of one rank into sets keeping as
    many of the ``n_orig`` original sets (suit masks ``o1``, ``o2``) as possible.

    Writes the set masks to ``masks[0:n]``; returns ``(n, kept)``, ``n = -1`` if no split exists.
    """
    kind = _SET_KIND[cv]
    if kind <= 0:
        return kind, 0
    twos = 0
    ones = 0
    for s in range(4):
        c = (cv // _POW3[s]) % 3
        if c == 2:
            twos |= 1 << s
        elif c == 1:
            ones |= 1 << s
    if kind == 1:
        masks[0] = ones
        kept = 1 if (n_orig >= 1 and o1 == ones) or (n_orig == 2 and o2 == ones) else 0
        return 1, kept
    best = -1
    nt = 0
    for s in range(4):
        nt += (twos >> s) & 1
    for x in range(16):
        if x & ~ones:
            continue
        a = twos | x
        b = twos | (ones & ~x)
        na = 0
        nb = 0
        for s in range(4):
            na += (a >> s) & 1
            nb += (b >> s) & 1
        if na < 3 or nb < 3:
            continue
        kept = 0
        if n_orig == 1:
            kept = 1 if (a == o1 or b == o1) else 0
        elif n_orig == 2:
            if (a == o1 and b == o2) or (a == o2 and b == o1):
                kept = 2
            elif a == o1 or a == o2 or b == o1 or b == o2:
                kept = 1
        if kept > best:
            best = kept
            masks[0] = a
            masks[1] = b
    return 2, best


@njit(cache=True, inline="always")
def _slots(x, y, res):
    """A suit's 10-bit state: the two slot codes, larger first, and the Ace-high reservation."""
    if x >= y:
        return x | (y << 4) | (res << 8)
    return y | (x << 4) | (res << 8)


@njit(cache=True, inline="always")
def _pack_action(u, mask, nn, n1, n2, cs):
    """A layer's decision for one suit: copies used, slots continued, new runs and their codes,
    copies given to sets."""
    return u | (mask << 2) | (nn << 4) | (n1 << 6) | (n2 << 10) | (cs << 14)


@njit(cache=True, inline="always")
def _lookup(keys, hslot, hstamp, stamp, nxt, key):
    """Index of the state ``key`` in the layer being built (``nxt``), -1 if it is not there."""
    hmask = hslot.shape[0] - 1
    x = key ^ (key >> 31)
    x = x * 0x5851F42D4C957F2D
    h = (x ^ (x >> 29)) & hmask
    while True:
        if hstamp[h] != stamp:
            return -1
        j = hslot[h]
        if keys[nxt, j] == key:
            return j
        h = (h + 1) & hmask


#: Below this many states a layer is not searched for dominated states (it is cheap anyway).
_PRUNE_MIN = 48


@njit(cache=True)
def _prune_layer(keys, scores, refs, hslot, hstamp, dead, stamp, nxt, n_next, p, s_done):
    """Drop the states of a finished layer that another state of the layer dominates: the same
    key but for one run slot of one suit that can do whatever this one can (an empty slot or a
    shorter run against a run of 3 or more, see :func:`_slot_dominates`), with at least the
    same score.  The search is Markov in the key, so such a state can never lead to a better
    answer than its dominator.  (Siblings are compared as they are made; this compares states
    of different parents.)  Suits up to ``s_done`` stand at position ``p``, the others at the
    position before.  Returns the number of states kept, moved to the front of the layer.
    The workspace's arrays are passed one by one (``keys``, ``scores``, ``refs``, ``hslot``,
    ``hstamp``, ``dead``: ``ws[0..4]``, ``ws[19]``; ``stamp``: the layer's hash stamp)."""
    up = np.empty(2, np.int64)
    for i in range(n_next):
        dead[i] = 0
        key = keys[nxt, i]
        sc = scores[nxt, i]
        found = False
        for s in range(4):
            sh = 10 * s
            sub = (key >> sh) & 1023
            a = sub & 15
            b = (sub >> 4) & 15
            owed = sub >> 8
            ps = p if s <= s_done else (p - 1 if p <= 13 else 13)
            for which in range(2):
                y = a if which == 0 else b
                other = b if which == 0 else a
                if which == 1 and a == b:
                    break
                n_up = 0
                if y == _EMPTY:
                    up[0] = _LEN3
                    up[1] = _LEN3_LOW
                    n_up = 2
                elif y == _LEN1:
                    up[0] = _LEN3
                    n_up = 1
                    if ps != 2:
                        up[1] = _LEN2
                        n_up = 2
                elif y == _LEN2 or y == _LEN3_LOW:
                    up[0] = _LEN3
                    n_up = 1
                for u in range(n_up):
                    nkey = (key & ~(1023 << sh)) | (_slots(up[u], other, owed) << sh)
                    j = _lookup(keys, hslot, hstamp, stamp, nxt, nkey)
                    if j >= 0 and scores[nxt, j] >= sc:
                        found = True
                        break
                if found:
                    break
            if found:
                break
        if found:
            dead[i] = 1
    m = 0
    for i in range(n_next):
        if dead[i] == 0:
            if m != i:
                keys[nxt, m] = keys[nxt, i]
                scores[nxt, m] = scores[nxt, i]
                refs[nxt, m] = refs[nxt, i]
            m += 1
    return m


@njit(cache=True, inline="always")
def _kept_sets(SETS, memo, p, cv, tags):
    """Kept original sets of rank ``p`` for set counts ``cv`` (0 without ``tags``); -1 if ``cv``
    splits into no sets.  ``SETS``, ``memo``: the workspace's ``ws[10]``, ``ws[11]``."""
    if not tags or SETS[p, 0] == 0:
        return -1 if _SET_KIND[cv] < 0 else 0
    v = memo[p, cv]
    if v == -2:
        masks = np.empty(2, np.int32)
        n, kept = _split_sets(cv, SETS[p, 0], SETS[p, 1], SETS[p, 2], masks)
        v = -1 if n < 0 else kept
        memo[p, cv] = v
    return v


@njit(cache=True, inline="always")
def _completable(ncp, room, room1):
    """Whether the set counts so far (``ncp``) can still become sets, given ``room`` copies of the
    rank in the suits not yet decided, ``room1`` of those suits holding one."""
    total = _CSUM[ncp]
    if total == 0 or total + room >= 6:
        return True
    return _CMAX[ncp] <= 1 and total + room1 >= 3


@njit(cache=True, inline="always")
def _slot_dominates(x, y, p):
    """Whether a run slot with code ``x`` can do whatever one with code ``y`` can (at position ``p``)."""
    if x == y:
        return True
    if y == _EMPTY:
        return x == _LEN3 or x == _LEN3_LOW  # a closable run may close at once
    if x == _LEN3:
        return y == _LEN1 or y == _LEN2 or y == _LEN3_LOW  # a longer run ending where y's ends
    return x == _LEN2 and y == _LEN1 and p != 2  # at 2, LEN2 is A-2 and may not reach the Ace high


@njit(cache=True, inline="always")
def _dominates(sa, sb, p):
    """Whether suit state ``sa`` can do whatever ``sb`` can: same owed Aces, slots matched pairwise."""
    if (sa >> 8) != (sb >> 8):
        return False
    a1 = sa & 15
    a2 = (sa >> 4) & 15
    b1 = sb & 15
    b2 = (sb >> 4) & 15
    return ((_slot_dominates(a1, b1, p) and _slot_dominates(a2, b2, p))
            or (_slot_dominates(a1, b2, p) and _slot_dominates(a2, b1, p)))


@njit(cache=True, inline="always")
def _viable(sl, past, av1, av2):
    """Whether the runs of suit state ``sl`` after position ``p`` can get the cards they still need:
    a run of 1 needs the next two positions, a run of 2 or an unfinished copy the next one.
    ``past``: the original runs that go on past ``p`` (:func:`_tag_masks`); ``av1``, ``av2``: the
    copies of the cards at ``p + 1`` and ``p + 2`` on the table or in hand."""
    need1 = 0
    need2 = 0
    for code in (sl & 15, (sl >> 4) & 15):
        if code == _LEN1:
            need1 += 1
            need2 += 1
        elif code == _LEN2:
            need1 += 1
        elif code >= _TAG0 and (past >> (code - _TAG0)) & 1:
            need1 += 1
    if need1 == 0:
        return True
    return need1 <= av1 and need2 <= av2


@njit(cache=True)
def _fill_bounds(ws, rank_value, goal_n, tags):
    """Bounds on what the layers from each layer on can still add: hand cards (``ws[13]``), the
    value of the best ``k`` of them (``ws[14][layer, k]``, ``k < _TOP``) and original melds that
    may still be kept (``ws[15]``)."""
    H = ws[8]
    RUNS = ws[9]
    SETS = ws[10]
    left_n = ws[13]
    top_v = ws[14]
    left_kept = ws[15]
    best = np.zeros(_TOP, np.int64)  # the largest values so far, descending
    nb = 0
    left_n[N_LAYERS] = 0
    top_v[N_LAYERS, :] = 0
    for layer in range(N_LAYERS - 1, -1, -1):
        q = layer // 4 + 2
        r = q if q <= 13 else 1
        v = rank_value[r]
        n = H[layer % 4, r]
        left_n[layer] = left_n[layer + 1] + n
        for _ in range(n):
            j = nb if nb < _TOP else _TOP - 1
            if nb < _TOP:
                nb += 1
            elif best[j] >= v:
                continue
            while j > 0 and best[j - 1] < v:
                best[j] = best[j - 1]
                j -= 1
            best[j] = v
        total = 0
        top_v[layer, 0] = 0
        for k in range(1, _TOP):
            if k <= nb:
                total += best[k - 1]
            top_v[layer, k] = total
    left_kept[:] = 0
    if tags:
        for s in range(4):
            for k in range(RUNS[s, 0]):
                hi = RUNS[s, 1 + _MAX_TAGS + k]
                claim = N_LAYERS if hi == 14 else (hi - 1) * 4 + s  # the layer where a copy of it closes
                for layer in range(claim + 1):
                    left_kept[layer] += 1
        for r in range(1, 14):
            claim = (12 if r == 1 else r - 2) * 4 + 3
            for layer in range(claim + 1):
                left_kept[layer] += SETS[r, 0]


@njit(cache=True)
def _search(ws, rank_value, tags, goal_n, goal_v, goal_kept):
    """The dynamic programme over the 52 layers (see the module docstring).

    With ``tags`` it also counts the original melds kept.  With ``goal_n >= 0`` it keeps only
    states that can still place ``goal_n`` cards worth ``goal_v`` points (the optimum, known from
    a first search) and keep more than ``goal_kept`` original melds.

    Returns ``(status, best_score, best_entry)``; ``best_entry`` is -1 when no partition exists
    (or, with a goal, when no play reaches it).
    """
    T = ws[7]
    H = ws[8]
    RUNS = ws[9]
    keys = ws[0]
    scores = ws[1]
    refs = ws[2]
    hslot = ws[3]
    hstamp = ws[4]
    pool = ws[5]
    meta = ws[6]
    SETS = ws[10]
    memo = ws[11]
    dead = ws[19]
    acts = ws[12]
    hmask = hslot.shape[0] - 1
    n_keys = keys.shape[1]
    n_pool = pool.shape[1]
    meta[1] = 0
    meta[2] = 0
    cur = 0
    n_cur = 1
    keys[0, 0] = 0
    scores[0, 0] = 0
    refs[0, 0] = -1
    opt_code = np.empty(8, np.int64)
    opt_owe = np.empty(8, np.int64)
    room = np.empty(4, np.int64)
    room1 = np.empty(4, np.int64)
    ch_sub = np.empty(128, np.int64)
    ch_cp = np.empty(128, np.int64)
    ch_score = np.empty(128, np.int64)
    ch_act = np.empty(128, np.int64)
    goal = goal_n >= 0
    if goal:
        _fill_bounds(ws, rank_value, goal_n, tags)
    left_n = ws[13]
    top_v = ws[14]
    left_kept = ws[15]
    for step in range(13):
        p = step + 2 if step < 12 else 14  # positions 2..13, then the Aces (low owed, high, sets)
        rank = p if p <= 13 else 1
        gain1 = W_PLACED + W_VALUE * rank_value[rank]
        # copies of this rank in the suits after s, and how many of those suits have one
        acc = 0
        acc1 = 0
        for s in range(3, -1, -1):
            room[s] = acc
            room1[s] = acc1
            m = T[s, rank] + H[s, rank]
            acc += m
            acc1 += 1 if m > 0 else 0
        for s in range(4):
            t = T[s, rank]
            h = H[s, rank]
            # no card here and none at the position before: every state passes unchanged
            skip = t + h == 0 and _avail(T, H, s, p - 1 if p <= 13 else 13) == 0
            if skip and s == 3:
                skip = room1[0] + (1 if T[0, rank] + H[0, rank] > 0 else 0) < 3  # no set at this rank
            acts[64 + step * 4 + s] = 1 if skip else 0
            if skip:
                continue
            nxt = 1 - cur
            meta[0] += 1  # a new hash stamp: the hash table is empty for the new layer
            if meta[0] >= 2_000_000_000:
                hstamp[:] = 0
                meta[0] = 1
            stamp = meta[0]
            reach, ends, past = _tag_masks(RUNS, s, p)
            av1 = _avail(T, H, s, p + 1)
            av2 = _avail(T, H, s, p + 2)
            memo_on = tags and SETS[rank, 0] > 0  # original sets of this rank to keep
            n_next = 0
            aces = T[s, 1] + H[s, 1]
            # the runs that may start here: plain, Ace-low (at 2: A-2, owing a low Ace), or an
            # exact copy of an original run starting here (at 2 also those starting at the Ace)
            n_opt = 0
            if p <= 13:
                opt_code[0] = _LEN1
                opt_owe[0] = 0
                n_opt = 1
                if p == 2 and aces > 0:
                    opt_code[n_opt] = _LEN2
                    opt_owe[n_opt] = 1
                    n_opt += 1
                for k in range(RUNS[s, 0] if tags else 0):
                    lo = RUNS[s, 1 + k]
                    if lo == p or (p == 2 and lo == 1 and aces > 0):
                        opt_code[n_opt] = _TAG0 + k
                        opt_owe[n_opt] = 1 if lo == 1 else 0
                        n_opt += 1
            sh = 10 * s
            for i in range(n_cur):
                key = keys[cur, i]
                sc = scores[cur, i]
                parent = refs[cur, i]
                sub = (key >> sh) & 1023
                a = sub & 15
                b = (sub >> 4) & 15
                owed = sub >> 8
                cpart = key >> _C_SHIFT
                base = (key & _LOW40) & ~(1023 << sh)
                nch = 0
                for mask in range(4):
                    if (mask & 1) and a == _EMPTY:
                        continue
                    if (mask & 2) and (b == _EMPTY or (a == b and not mask & 1)):
                        continue  # two equal slots: continuing either one is the same
                    k = (mask & 1) + (mask >> 1)
                    na, bonus_a = _slot_step(a, mask & 1, p, reach, ends)
                    if na < 0:
                        continue
                    nb, bonus_b = _slot_step(b, mask & 2, p, reach, ends)
                    if nb < 0:
                        continue
                    bonus = bonus_a + bonus_b
                    x0 = na if na != _EMPTY else nb
                    y0 = nb if na != _EMPTY else _EMPTY
                    if p == 14:
                        # the Aces: `owed` low, k high, cs in sets
                        for cs in range(3):
                            u = owed + k + cs
                            if u < t or u > t + h:
                                continue
                            ncp = cpart + cs * _POW3[s]
                            if not _completable(ncp, room[s], room1[s]):
                                continue
                            kept = 0
                            if s == 3:
                                if memo_on:
                                    kept = _kept_sets(SETS, memo, 1, ncp, tags)
                                else:
                                    kept = -1 if _SET_KIND[ncp] < 0 else 0
                                if kept < 0:
                                    continue
                                ncp = 0
                            sl = _slots(x0, y0, 0)
                            if nch < 128 and _viable(sl, past, av1, av2):
                                ch_sub[nch] = sl
                                ch_cp[nch] = ncp
                                ch_score[nch] = sc + bonus + (u - t) * gain1 + kept
                                ch_act[nch] = _pack_action(u, mask, 0, 0, 0, cs)
                                nch += 1
                        continue
                    u_lo = t if t > k else k
                    for u in range(u_lo, t + h + 1):
                        g = bonus + (u - t) * gain1
                        rem = u - k
                        for nn in range(rem + 1):
                            cs = rem - nn
                            ncp = cpart + cs * _POW3[s]
                            if not _completable(ncp, room[s], room1[s]):
                                continue
                            kept = 0
                            if s == 3:
                                if memo_on:
                                    kept = _kept_sets(SETS, memo, p, ncp, tags)
                                else:
                                    kept = -1 if _SET_KIND[ncp] < 0 else 0
                                if kept < 0:
                                    continue
                                ncp = 0
                            for i1 in range(n_opt if nn >= 1 else 1):
                                for i2 in range(i1 if nn == 2 else 0, n_opt if nn == 2 else 1):
                                    if nn == 2 and i1 == i2 and opt_code[i1] >= _TAG0:
                                        continue  # one original run cannot be copied twice
                                    n1 = opt_code[i1] if nn >= 1 else _EMPTY
                                    n2 = opt_code[i2] if nn == 2 else _EMPTY
                                    owe = owed
                                    if nn >= 1:
                                        owe += opt_owe[i1]
                                    if nn == 2:
                                        owe += opt_owe[i2]
                                    if owe > aces:
                                        continue
                                    if k == 0:
                                        sl = _slots(n1, n2, owe)
                                    elif k == 1:
                                        sl = _slots(x0, n1, owe)
                                    else:
                                        sl = _slots(x0, y0, owe)
                                    if nch < 128 and _viable(sl, past, av1, av2):
                                        ch_sub[nch] = sl
                                        ch_cp[nch] = ncp
                                        ch_score[nch] = sc + g + kept
                                        ch_act[nch] = _pack_action(u, mask, nn, n1, n2, cs)
                                        nch += 1
                # insert the children no sibling dominates
                for c1 in range(nch):
                    if goal:
                        after = step * 4 + s + 1
                        c = ch_score[c1] // W_PLACED
                        need = goal_n - c
                        if need > left_n[after]:
                            continue  # too few hand cards left to place
                        if 0 <= need < _TOP and (ch_score[c1] % W_PLACED) // W_VALUE + top_v[after, need] < goal_v:
                            continue  # the best of them are worth too little
                        if ch_score[c1] % W_VALUE + left_kept[after] <= goal_kept:
                            continue  # cannot keep more original melds

                    dominated = False
                    for c2 in range(nch):
                        if (c2 != c1 and ch_cp[c2] == ch_cp[c1] and ch_score[c2] >= ch_score[c1]
                                and ch_sub[c2] != ch_sub[c1] and _dominates(ch_sub[c2], ch_sub[c1], p)):
                            dominated = True
                            break
                    if dominated:
                        continue
                    nkey = base | (ch_sub[c1] << sh) | (ch_cp[c1] << _C_SHIFT)
                    # add or improve the state nkey of the next layer (written out here: a call,
                    # even an inlined one, costs a reference-count update per array it is given)
                    score = ch_score[c1]
                    x = nkey ^ (nkey >> 31)
                    x = x * 0x5851F42D4C957F2D
                    hh = (x ^ (x >> 29)) & hmask
                    while True:
                        if hstamp[hh] != stamp:
                            if n_next >= n_keys or meta[1] >= n_pool:
                                return OVERFLOW, 0, -1
                            e = meta[1]
                            meta[1] = e + 1
                            pool[0, e] = parent
                            pool[1, e] = ch_act[c1]
                            keys[nxt, n_next] = nkey
                            scores[nxt, n_next] = score
                            refs[nxt, n_next] = e
                            hstamp[hh] = stamp
                            hslot[hh] = n_next
                            n_next += 1
                            break
                        j = hslot[hh]
                        if keys[nxt, j] == nkey:
                            if score > scores[nxt, j]:
                                scores[nxt, j] = score
                                e = refs[nxt, j]
                                pool[0, e] = parent
                                pool[1, e] = ch_act[c1]
                            break
                        hh = (hh + 1) & hmask
            if n_next >= _PRUNE_MIN:
                n_next = _prune_layer(keys, scores, refs, hslot, hstamp, dead, meta[0], nxt, n_next, p, s)
            cur = nxt
            n_cur = n_next
            if n_cur > meta[2]:
                meta[2] = n_cur
    # every run still open ends at the Ace high
    ends15 = np.zeros(4, np.int64)
    for s in range(4):
        _, ends15[s], _ = _tag_masks(RUNS, s, 15)
    best = -1
    best_entry = -1
    for i in range(n_cur):
        key = keys[cur, i]
        sc = scores[cur, i]
        ok = True
        for s in range(4):
            sub = (key >> (10 * s)) & 1023
            for code in (sub & 15, (sub >> 4) & 15):
                c = _close_bonus(code, ends15[s])
                if c < 0:
                    ok = False
                    break
                sc += c
            if not ok:
                break
        if ok and sc > best:
            best = sc
            best_entry = refs[cur, i]
    return OK, best, best_entry


@njit(cache=True)
def _grow(states, pool):
    """A workspace with room for ``states`` states per layer and ``pool`` in all."""
    hcap = 1
    while hcap < 2 * states:
        hcap *= 2
    return (
        np.zeros((2, states), np.int64),  # 0 state keys of the current / next layer
        np.zeros((2, states), np.int64),  # 1 their scores
        np.zeros((2, states), np.int32),  # 2 their pool entries
        np.zeros(hcap, np.int32),  # 3 hash slot -> state index
        np.zeros(hcap, np.int32),  # 4 hash slot stamp (slot is used in this layer iff == stamp)
        np.zeros((2, pool), np.int32),  # 5 pool: parent entry, action
        np.zeros(4, np.int64),  # 6 [stamp, pool entries used, most states in a layer, table cards left out]
        np.zeros((4, 16), np.int32),  # 7 table copies T[s, p]
        np.zeros((4, 16), np.int32),  # 8 usable hand copies H[s, p]
        np.zeros((4, 2 * _MAX_TAGS + 1), np.int32),  # 9 original runs per suit: n, lo_k, hi_k
        np.zeros((16, 3), np.int32),  # 10 original sets per rank: n, mask_0, mask_1
        np.zeros((16, 81), np.int16),  # 11 kept sets per rank and count vector (-2 unknown)
        np.zeros(128, np.int32),  # 12 winning actions by layer, then whether each layer was skipped
        np.zeros(N_LAYERS + 1, np.int64),  # 13 hand cards in the layers from each layer on
        np.zeros((N_LAYERS + 1, _TOP), np.int64),  # 14 value of the best k of them
        np.zeros(N_LAYERS + 1, np.int64),  # 15 original melds that may still be kept
        np.zeros(52, np.int32),  # 16 group of each card type (see _components)
        np.zeros(52, np.int32),  # 17 whether each group holds a usable hand card
        np.zeros(64, np.int32),  # 18 stack of the group search
        np.zeros(states, np.uint8),  # 19 dominated states of a layer (see _prune_layer)
    )
