"""What ``card-reader`` counts and how it values a hand (numba; RULES.md sections 1-6): the copies
of each card no one has seen, the chance of drawing a card, the partial melds a card completes,
the leftover terms of an arrangement, what each opponent took and passed over, and the risk of
feeding a player who is close to going out.

:mod:`.card_reader` decides with these (draw, table moves, discard) and re-exports every name."""

import numpy as np
from numba import njit
from handsim.games.hand.policies import api


# policy memory (api.memory): what it saw of the next player
M_VALID = 0  # 1: the three slots below describe its last discard
M_AFTER = 1  # cards in the discard pile right after its last discard
M_RESH = 2  # reshuffles left then (a reshuffle makes the pile unreadable)
M_DISC = 3  # the card it discarded
M_AVOID = 4  # bit t: the next player discarded card type t, or refused it (drew from the stock over it)
M_RELEASED = 5  # 1: it stopped keeping jokers in this round (the risk of holding them got too high)
M_BOUND = 6  # unopened: the most opening value its hand had when it chose its last discard
M_BOUND_OK = 7  # 1: M_BOUND was set in its last turn (its hand is that hand less the discard)

#: ``joker_play`` values.
JOKERS_AT_ONCE = 0
JOKERS_WHEN_NEEDED = 1
JOKERS_UNTIL_TURN = 2

#: Chance that an opened opponent holding ``c`` cards (index, 0 unused) goes out in its next turn,
#: and that an unopened one does (a Hand): rough levels, used only to weigh the cost of a kept joker.
_OUT_CHANCE = np.array([1.0, 0.5, 0.35, 0.2, 0.1, 0.05], dtype=np.float64)
_OUT_CHANCE_FAR = 0.02

#: A card the next player is not to get: a joker.
_JOKER_FEED = 100.0


# ------------------------------------------------------------------------- cards and outs

#: Bit 0 of each suit's lane of a :func:`card_bits` set.
_LANES = 0x0001000100010001


@njit(cache=True, inline="always")
def _pos_card(suit, q):
    """Card type at run position ``q`` (1 = Ace low .. 13 = King, 14 = Ace high) of ``suit``."""
    return api.card_of(suit, 1 if q == 14 else q)


@njit(cache=True, inline="always")
def _pos_value(q, ace_low, ace):
    """Opening value of run position ``q`` (RULES.md section 1: the low Ace counts ``ace_low_value``,
    the high Ace ``ace_value``)."""
    if q == 1:
        return ace_low
    if q == 14:
        return ace
    return 10 if q >= 10 else q


@njit(cache=True, inline="always")
def _chance(outs, unseen, horizon):
    """Chance of drawing one of ``outs`` cards among ``unseen`` in ``horizon`` draws."""
    if outs <= 0 or unseen <= 0:
        return 0.0
    x = 1.0 - outs / unseen
    if x <= 0.0:
        return 1.0
    return 1.0 - x ** horizon


# A decision's valuations read the cards as bitsets, which numba passes between functions as
# plain integers: bit 16 s + q is run position q (1 = Ace low .. 13 = King, 14 = the Ace again,
# high) of suit s.


@njit(cache=True)
def card_bits(cards):
    """The natural cards of which ``cards`` holds at least one copy and those it holds two of,
    as two bitsets (the Ace of each suit at both of its run positions)."""
    b1 = np.int64(0)
    b2 = np.int64(0)
    for s in range(api.N_SUITS):
        for r in range(1, api.N_RANKS + 1):
            k = cards[api.card_of(s, r)]
            b1 |= np.int64(k >= 1) << (s * 16 + r)
            b2 |= np.int64(k >= 2) << (s * 16 + r)
    aces = np.int64(0x0002000200020002)  # position 1 of each suit
    return b1 | ((b1 & aces) << 13), b2 | ((b2 & aces) << 13)


@njit(cache=True)
def held_bits(cards):
    """The first of :func:`card_bits` (the natural cards ``cards`` holds at least one copy of),
    for a hand of few cards: only the cards held are looked at (a valuation's left cards)."""
    b1 = np.int64(0)
    for t in range(api.N_NATURALS):
        if cards[t] > 0:
            b1 |= np.int64(1) << ((t // api.N_RANKS) * 16 + t % api.N_RANKS + 1)
    aces = np.int64(0x0002000200020002)  # position 1 of each suit
    return b1 | ((b1 & aces) << 13)


@njit(cache=True, inline="always")
def _card_bit(t):
    """The bit (or, for an Ace, the two bits) of natural card ``t`` in a :func:`card_bits` set."""
    s = api.suit_of(t)
    r = api.rank_of(t)
    b = np.int64(1) << (s * 16 + r)
    if r == 1:
        b |= np.int64(1) << (s * 16 + 14)
    return b


@njit(cache=True)
def outlook(unseen, n_unseen, horizon, ace_low, ace):
    """What every partial meld of a decision is valued with: ``(u1, u2, ace_low, ch, ace)``, the
    unseen cards ``unseen`` as bitsets of one and two copies (:func:`card_bits`), the low Ace's
    value, ``ace`` the value of every other Ace (``ace_value``) and ``ch[k]``, the chance of drawing one of ``k`` = 0 .. 4 live outs among
    ``n_unseen`` cards in ``horizon`` draws (a partial meld has at most 4: a pair lacks two
    suits, a connector has two ends, two copies each) - computed once, not once per partial."""
    ch = (0.0, _chance(1, n_unseen, horizon), _chance(2, n_unseen, horizon), _chance(3, n_unseen, horizon),
          _chance(4, n_unseen, horizon))
    u1, u2 = card_bits(unseen)
    return u1, u2, ace_low, ch, ace


@njit(cache=True, inline="always")
def _copies_unseen(look, b):
    """Unseen copies (0..2) of the card at bit ``b``."""
    u1, u2, _, _, _ = look
    return ((u1 >> b) & 1) + ((u2 >> b) & 1)


@njit(cache=True, inline="always")
def _run_partial(sb, lo, hi, look):
    """``(p, v)`` of the run partial meld at run positions ``lo`` < ``hi`` (one or two apart;
    both held) of the suit whose bits start at ``sb``: chance to be completed and the opening
    value of the run of three it completes to, the completing card's value averaged over its
    live outs; ``p`` is 0 without live outs."""
    _, _, ace_low, ch, ace = look
    vsum = _pos_value(lo, ace_low, ace) + _pos_value(hi, ace_low, ace)
    outs = 0
    ovsum = 0.0
    if hi - lo == 2:  # a gap: the middle card
        outs = _copies_unseen(look, sb + lo + 1)
        ovsum = outs * _pos_value(lo + 1, ace_low, ace)
    else:  # a connector: either end
        if lo - 1 >= 1:
            k = _copies_unseen(look, sb + lo - 1)
            outs += k
            ovsum += k * _pos_value(lo - 1, ace_low, ace)
        if hi + 1 <= 14:
            k = _copies_unseen(look, sb + hi + 1)
            outs += k
            ovsum += k * _pos_value(hi + 1, ace_low, ace)
    if outs == 0:
        return 0.0, 0.0
    return ch[outs], vsum + ovsum / outs


@njit(cache=True, inline="always")
def _better(pv, best, bp, bv):
    """``(best, bp, bv)`` with the partial meld ``pv = (p, v)`` if its ``p * v`` beats ``best``."""
    p, v = pv
    if p * v > best:
        return p * v, p, v
    return best, bp, bv


#: :func:`partial_dep` of a card without a partial meld, and of one whose best partial meld is a pair
#: (one of more than two cards of its rank); a run partial meld's is ``DEP_RUN`` + its partner's card type.
DEP_NONE = 0
DEP_PAIR = 1
DEP_RUN = 2


@njit(cache=True, inline="always")
def _best_dep(pv, dep, best, bp, bv, bd):
    """:func:`_better`, carrying the :func:`partial_dep` code ``dep`` of the partial meld ``pv``."""
    p, v = pv
    if p * v > best:
        return p * v, p, v, dep
    return best, bp, bv, bd


@njit(cache=True, inline="always")
def partial_dep(t, c1, look):
    """:func:`partial_of` ``(p, v)`` and what it depends on: ``DEP_NONE`` when ``t`` has no
    partial meld (none appears when a card of ``c1`` goes), ``DEP_PAIR`` when the best is a pair
    (it may change when a card of the rank goes), ``DEP_RUN + u`` when the best is a run partial
    with card ``u`` (it may change when ``u`` goes).  The best partial meld is the first in order
    with the most ``p * v``, and a card's going only removes partial melds or lowers a pair's
    ``p`` (a run partial's value does not depend on the other cards): a card other than these
    leaves ``(p, v)`` exactly as they are."""
    s = api.suit_of(t)
    r = api.rank_of(t)
    sb = s * 16
    best = 0.0
    bp = 0.0
    bv = 0.0
    bd = DEP_NONE
    # a pair (or more) of the rank: completed by the suits it lacks (the rank's bit in the three
    # other suits' lanes, counted at once)
    u1, u2, _, _, _ = look
    col = (np.int64(_LANES) << r) & ~(np.int64(1) << (sb + r))
    others = api.popcount(c1 & col)
    miss = col & ~c1
    outs = api.popcount(u1 & miss) + api.popcount(u2 & miss)
    if others > 0:
        p = 1.0 if others >= 2 else look[3][outs]
        best, bp, bv, bd = _best_dep((p, 3.0 * api.rank_hand_value(r, look[4])), DEP_PAIR, best, bp, bv, bd)
    # runs: the Ace sits low (position 1) or high (14); partners in the order +1, +2, -1, -2 of
    # position r, then for an Ace those of position 14 (-1, -2: the King, then the Queen)
    if (c1 >> (sb + r + 1)) & 1:
        best, bp, bv, bd = _best_dep(_run_partial(sb, r, r + 1, look), DEP_RUN + _pos_card(s, r + 1), best, bp, bv, bd)
    if r <= 12 and (c1 >> (sb + r + 2)) & 1:
        best, bp, bv, bd = _best_dep(_run_partial(sb, r, r + 2, look), DEP_RUN + _pos_card(s, r + 2), best, bp, bv, bd)
    if r >= 2 and (c1 >> (sb + r - 1)) & 1:
        best, bp, bv, bd = _best_dep(_run_partial(sb, r - 1, r, look), DEP_RUN + _pos_card(s, r - 1), best, bp, bv, bd)
    if r >= 3 and (c1 >> (sb + r - 2)) & 1:
        best, bp, bv, bd = _best_dep(_run_partial(sb, r - 2, r, look), DEP_RUN + _pos_card(s, r - 2), best, bp, bv, bd)
    if r == 1 and (c1 >> (sb + 13)) & 1:
        best, bp, bv, bd = _best_dep(_run_partial(sb, 13, 14, look), DEP_RUN + _pos_card(s, 13), best, bp, bv, bd)
    if r == 1 and (c1 >> (sb + 12)) & 1:
        best, bp, bv, bd = _best_dep(_run_partial(sb, 12, 14, look), DEP_RUN + _pos_card(s, 12), best, bp, bv, bd)
    return bp, bv, bd


@njit(cache=True)
def partial_of(t, c1, look):
    """:func:`card_partial` of natural ``t`` among the cards ``c1`` (a bitset: the first of
    :func:`card_bits`), valued with :func:`outlook` ``look``: the same ``(p, v)``, from integers
    only."""
    p, v, _ = partial_dep(t, c1, look)
    return p, v


@njit(cache=True)
def card_partial(t, cards, unseen, n_unseen, horizon, ace_low, ace=11):
    """The best partial meld of natural card ``t`` among ``cards`` (a leftover: cards no meld
    holds) - a pair of one rank, a connector of one suit (ranks one apart) or a gap (two apart) -
    by chance of completion times opening value.  Returns ``(p, v)``: its chance to be completed
    (``1 - (1 - outs/n_unseen)^horizon``, outs = the completing cards among ``unseen``) and the
    opening value of the meld it completes to (RULES.md section 1; points); ``(0, 0)`` without a
    partial meld.  It depends on ``cards`` only through the cards of ``t``'s rank in other suits
    and of its suit within two ranks (:func:`neighbours`).  The turn's valuations call
    :func:`partial_of` with the cards as bitsets and the chances computed once (:func:`outlook`).
    ``ace_low`` and ``ace`` are the Ace's values low and otherwise (``ace_low_value``, ``ace_value``)."""
    return partial_of(t, card_bits(cards)[0], outlook(unseen, n_unseen, horizon, ace_low, ace))


@njit(cache=True)
def partials_of(cards, look, p_out, v_out, dep):
    """:func:`partials` valued with :func:`outlook` ``look``, for the cards held only: the
    entries of the natural cards ``cards`` lacks are left as they were (the valuations read the
    entries of the cards held only); ``dep int8[N_TYPES]`` gets each one's :func:`partial_dep`
    code (for :func:`terms_without`).  Returns the cards held as a bitset (the first of
    :func:`card_bits`)."""
    c1 = held_bits(cards)
    p_out[api.JOKER] = 0.0
    v_out[api.JOKER] = 0.0
    dep[api.JOKER] = DEP_NONE
    for t in range(api.N_NATURALS):
        if cards[t] > 0:
            p_out[t], v_out[t], dep[t] = partial_dep(t, c1, look)
    return c1


@njit(cache=True)
def partials(cards, unseen, n_unseen, horizon, ace_low, p_out, v_out, ace=11):
    """:func:`card_partial` of every natural card type held in ``cards`` into ``p_out[t]`` /
    ``v_out[t]`` (``float64[N_TYPES]``); 0 and 0 for the others.  Returns ``p_out``."""
    for t in range(api.N_NATURALS):
        p_out[t] = 0.0
        v_out[t] = 0.0
    partials_of(cards, outlook(unseen, n_unseen, horizon, ace_low, ace), p_out, v_out,
                np.empty(api.N_TYPES, dtype=np.int8))
    return p_out


def _neighbour_table() -> np.ndarray:
    """The natural cards whose partial meld may change with ``t``'s presence, for every natural
    ``t`` by row (``int64[N_NATURALS, 8]``, padded with -1): ``t``'s rank in the three other
    suits and ``t``'s suit within two run positions (the Ace both low and high), in that order.
    A constant the valuations read without a call."""
    card_of = getattr(api.card_of, "py_func", api.card_of)  # the Python function: nothing compiles at import
    out = np.full((api.N_NATURALS, 8), -1, dtype=np.int64)
    for t in range(api.N_NATURALS):
        s, r = t // api.N_RANKS, t % api.N_RANKS + 1
        nb = [card_of(s2, r) for s2 in range(api.N_SUITS) if s2 != s]
        for q in (r, 14):
            if q == 14 and r != 1:
                continue
            for d in (-2, -1, 1, 2):
                q2 = q + d
                if q2 < 1 or q2 > 14 or (q2 == 14 and q == 1) or (q2 == 1 and q == 14):
                    continue
                nb.append(card_of(s, 1 if q2 == 14 else q2))
        out[t, :len(nb)] = nb
    return out


#: :func:`neighbours` of each natural card type (rows padded with -1).
NEIGHBOURS = _neighbour_table()


@njit(cache=True)
def neighbours(t, out):
    """The natural cards whose partial meld may change with ``t``'s presence (a row of
    :data:`NEIGHBOURS`).  Writes them into ``out int64[>=7]``; returns how many."""
    n = 0
    while n < 8 and NEIGHBOURS[t, n] >= 0:
        out[n] = NEIGHBOURS[t, n]
        n += 1
    return n


# ------------------------------------------------------------------------- the hand's value


@njit(cache=True)
def leftover_terms(g, left, card_weight, p_out, v_out):
    """``(cost, gain)`` of the cards ``left`` (no meld holds them) with ``p_out`` / ``v_out`` as
    :func:`partials` gives them for ``left``: ``cost`` is each card's points plus
    ``card_weight`` (a card more to get rid of before going out) times the chance it stays
    unmelded; ``gain`` the expected opening value the partial melds add (each one's chance times
    the value of the meld, shared by its two cards)."""
    cost = 0.0
    gain = 0.0
    for t in range(api.N_TYPES):
        k = left[t]
        if k == 0:
            continue
        cost += k * (api.card_points(g, t) + card_weight) * (1.0 - p_out[t])
        gain += p_out[t] * v_out[t] * 0.5
    return cost, gain


@njit(cache=True)
def terms_without(g, left, lbits, t, cost, gain, card_weight, p_out, v_out, dep, look):
    """:func:`leftover_terms` of ``left`` (``lbits``: its cards as a bitset) less one copy of
    card ``t``, from those of ``left`` (``cost``, ``gain``, ``p_out``, ``v_out``, ``dep``: as
    :func:`partials_of` gives them): only ``t`` and its :func:`neighbours` change (valued again in
    that order with :func:`outlook` ``look``) - and of those only the ones whose best partial meld
    depends on ``t`` (:func:`partial_dep`; the others' terms would change by exactly 0)."""
    cost -= (api.card_points(g, t) + card_weight) * (1.0 - p_out[t])
    if left[t] > 1:
        return cost, gain  # a copy stays: no partial meld changes
    gain -= p_out[t] * v_out[t] * 0.5
    if t == api.JOKER:
        return cost, gain
    lb = lbits & ~_card_bit(t)
    for i in range(8):
        u = NEIGHBOURS[t, i]
        if u < 0:
            break
        if left[u] == 0:
            continue
        # the first three neighbours are t's rank in the other suits, the rest t's suit
        if dep[u] != (DEP_PAIR if i < 3 else DEP_RUN + t):
            continue
        p, v = partial_of(u, lb, look)
        cost += left[u] * (api.card_points(g, u) + card_weight) * (p_out[u] - p)
        gain += (p * v - p_out[u] * v_out[u]) * 0.5
    return cost, gain


@njit(cache=True, inline="always")
def value_of(cost, gain, open_value, req, hand_points, open_weight, unopened):
    """The value (points, higher is better) of a hand whose melds are worth ``open_value`` towards
    the opening and whose left cards have :func:`leftover_terms` ``cost`` and ``gain``: minus
    ``cost``; unopened (``req`` > 0), minus ``open_weight`` per point the melds plus ``gain``
    still lack for ``req``, scaled by ``(unopened + hand_points) / 100``: what a player who never
    opens pays (RULES.md section 6: ``unopened`` = ``unopened_points``, 100, and every card, a
    joker ``joker_penalty``), over what it pays at the default 100 points."""
    value = -cost
    if req > 0:
        short = req - open_value - gain
        if short > 0:
            value -= open_weight * short * (unopened + hand_points) * 0.01
    return value


@njit(cache=True)
def leftover_value(g, left, open_value, req, hand_points, open_weight, card_weight, p_out, v_out):
    """:func:`value_of` the :func:`leftover_terms` of ``left``."""
    cost, gain = leftover_terms(g, left, card_weight, p_out, v_out)
    return value_of(cost, gain, open_value, req, hand_points, open_weight, unopened_points(g))


@njit(cache=True, inline="always")
def unopened_points(g):
    """What a player who never opens pays on top of its cards (``unopened_points``, RULES.md
    section 6), as a float for :func:`value_of`."""
    return float(api.rule(g, api.R_UNOPENED_POINTS))


@njit(cache=True)
def points_of(g, cards):
    """Points of the cards ``cards`` in hand (RULES.md section 1; a joker ``joker_penalty``)."""
    total = 0
    for t in range(api.N_TYPES):
        if cards[t] > 0:
            total += cards[t] * api.card_points(g, t)
    return total


@njit(cache=True)
def melds_left(g, cards, opened, left):
    """The first half of :func:`arrange_left`: the cards of ``cards`` no meld of the arrangement
    holds into ``left`` (before any lay-off); returns the melds' opening value (unopened) or 0."""
    mode = api.DEADWOOD if opened else api.OPEN
    w, n = api.arrange(g, cards, mode)
    api.path_counts(api.plan(g), n, left)
    for t in range(api.N_TYPES):
        left[t] = cards[t] - left[t]
    return 0 if opened else w


@njit(cache=True)
def lay_off_left(g, left):
    """The second half of :func:`arrange_left` (opened): one copy of each card of ``left`` that
    fits a table meld is laid off."""
    if api.table_count(g) > 0:
        for t in range(api.N_TYPES):
            if left[t] > 0 and api.layoff_meld(g, t) >= 0:
                left[t] -= 1  # one copy: a second may not fit any more


@njit(cache=True)
def arrange_left(g, seat, cards, opened, left):
    """Arrange ``cards`` as ``seat`` would play them: unopened, for the most opening value;
    opened, for the least deadwood, with the left cards that fit a table meld laid off.  Writes
    the cards no meld holds into ``left`` and returns the melds' opening value (unopened) or 0."""
    ov = melds_left(g, cards, opened, left)
    if opened:
        lay_off_left(g, left)
    return ov


@njit(cache=True)
def _unseen(g, seat, out):
    api.unseen_cards(g, seat, out)
    n = 0
    for t in range(api.N_TYPES):
        n += out[t]
    return n


# ------------------------------------------------------------------------- the next player


@njit(cache=True)
def observe(g, seat):
    """At the start of its turn: read off the discard pile what the next player did with its last
    discard (took it, or drew from the stock over it) and which card it discarded; remember the
    cards it refused or discarded (``M_AVOID``).  After a reshuffle nothing is read."""
    mem = api.memory(g, seat)
    if mem[M_VALID] == 0:
        return
    mem[M_VALID] = 0
    if api.reshuffles_left(g) != mem[M_RESH]:
        return
    a = mem[M_AFTER]
    n = api.pile_count(g)
    if n < a:
        return
    if api.pile_card(g, a - 1) == mem[M_DISC]:
        mem[M_AVOID] |= np.int64(1) << mem[M_DISC]  # refused: drew from the stock over it
        if n > a:
            mem[M_AVOID] |= np.int64(1) << api.pile_card(g, a)  # and discarded this (or a later player did)
    else:
        mem[M_AVOID] |= np.int64(1) << api.pile_card(g, a - 1)  # took it, discarded this


@njit(cache=True)
def remember_discard(g, seat, d):
    """Note where its discard ``d`` lands in the pile, for :func:`observe`."""
    mem = api.memory(g, seat)
    if d == api.NO_DISCARD:
        mem[M_VALID] = 0
        return
    mem[M_VALID] = 1
    mem[M_AFTER] = api.pile_count(g) + 1
    mem[M_RESH] = api.reshuffles_left(g)
    mem[M_DISC] = d


@njit(cache=True)
def feed_risk(g, seat, t):
    """What discarding card ``t`` may give the next player (units: about one useful card): a
    joker, very much; 1 if it is opened and could lay ``t`` off (``must_open`` lets it take the
    card); 0.5 per card it was seen to take (:func:`api.known_cards`) that ``t`` pairs or connects
    with; halved for an unopened next player (it may take the card only to open with it); none
    when it discarded or refused that very card, less when it discarded or refused a card of the
    same rank or a neighbour of the same suit."""
    nxt = api.next_seat(g, seat)
    if not api.is_opponent(g, seat, nxt):
        return 0.0
    if t == api.JOKER:
        return _JOKER_FEED
    avoid = api.memory(g, seat)[M_AVOID]
    if (avoid >> t) & 1:
        return 0.0
    opened = api.has_opened(g, nxt)
    risk = 0.0
    if opened and not api.pickup_needs_new_meld(g, nxt) and api.layoff_meld(g, t) >= 0:
        risk += 1.0
    known = api.known_cards(g, nxt)
    s = api.suit_of(t)
    r = api.rank_of(t)
    for s2 in range(api.N_SUITS):
        c = api.card_of(s2, r)
        if s2 != s and known[c] > 0:
            risk += 0.5
        if (avoid >> c) & 1:
            risk -= 0.25
    for d in (-2, -1, 1, 2):
        q = r + d
        if q == 14:
            q = 1
        if 1 <= q <= 13:
            c = api.card_of(s, q)
            if known[c] > 0:
                risk += 0.5
            if (avoid >> c) & 1 and (d == 1 or d == -1):
                risk -= 0.25
    if risk < 0.0:
        risk = 0.0
    if not opened:
        risk *= 0.5
    return risk


def _feed_tables() -> tuple[np.ndarray, np.ndarray]:
    """For every natural ``t`` (bit ``c`` for card type ``c``), the cards :func:`feed_risk` reads:
    those a known card of which adds to the risk (``t``'s rank in the other suits, ``t``'s suit
    within two ranks: an Ace below a 2 and a 3 only, above a King and a Queen) and those whose
    avoidance lowers it (``t``'s rank in every suit, ``t``'s suit one rank away).  Constants."""
    near = np.zeros(api.N_NATURALS, dtype=np.int64)
    away = np.zeros(api.N_NATURALS, dtype=np.int64)
    for t in range(api.N_NATURALS):
        s, r = t // api.N_RANKS, t % api.N_RANKS + 1
        for s2 in range(api.N_SUITS):
            c = s2 * api.N_RANKS + r - 1
            if s2 != s:
                near[t] |= 1 << c
            away[t] |= 1 << c
        for d in (-2, -1, 1, 2):
            q = r + d
            if q == 14:
                q = 1
            if 1 <= q <= 13:
                c = s * api.N_RANKS + q - 1
                near[t] |= 1 << c
                if d in (-1, 1):
                    away[t] |= 1 << c
    return near, away


#: :func:`_feed_tables`: the cards that raise and those that lower the feed risk of each natural.
FEED_NEAR, FEED_AWAY = _feed_tables()


@njit(cache=True, inline="always")
def _bit_count(x):
    """Set bits of ``x`` (a few)."""
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def feed_view(g, seat):
    """What :func:`feed_risk` reads of the next player, read once for a decision's candidates:
    ``(opponent, opened, lay_offs, known, avoid)`` - whether it is an opponent, whether it
    opened, whether a card it could lay off counts (opened and ``must_open``), the cards it is
    known to hold (bit ``t``: :func:`api.known_cards`) and ``M_AVOID``."""
    nxt = api.next_seat(g, seat)
    if not api.is_opponent(g, seat, nxt):
        return False, False, False, np.int64(0), np.int64(0)
    opened = api.has_opened(g, nxt)
    known = api.known_cards(g, nxt)
    kb = np.int64(0)
    for c in range(api.N_NATURALS):
        if known[c] > 0:
            kb |= np.int64(1) << c
    return True, opened, opened and not api.pickup_needs_new_meld(g, nxt), kb, api.memory(g, seat)[M_AVOID]


@njit(cache=True)
def feed_risk_in(g, view, t):
    """:func:`feed_risk` of card ``t`` from the :func:`feed_view` ``view``: the same value (its
    terms are multiples of 0.25, exact in any order)."""
    opponent, opened, lay, kb, avoid = view
    if not opponent:
        return 0.0
    if t == api.JOKER:
        return _JOKER_FEED
    if (avoid >> t) & 1:
        return 0.0
    risk = 0.0
    if lay and api.layoff_meld(g, t) >= 0:
        risk += 1.0
    risk += 0.5 * _bit_count(kb & FEED_NEAR[t]) - 0.25 * _bit_count(avoid & FEED_AWAY[t])
    if risk < 0.0:
        risk = 0.0
    if not opened:
        risk *= 0.5
    return risk


# ------------------------------------------------------------------------- jokers


@njit(cache=True)
def out_risk(g, seat):
    """Rough chance that an opponent goes out before ``seat``'s next turn, from their card counts
    and whether they opened (RULES.md section 6: a joker in hand then costs ``joker_penalty``)."""
    stay = 1.0
    for s in range(api.players(g)):
        if not api.is_opponent(g, seat, s):
            continue
        c = api.hand_count(g, s)
        if not api.has_opened(g, s):
            q = _OUT_CHANCE_FAR
        elif c < _OUT_CHANCE.shape[0]:
            q = _OUT_CHANCE[c]
        else:
            q = _OUT_CHANCE_FAR
        stay *= 1.0 - q
    return 1.0 - stay
