"""``card-reader``: a heuristic player that counts cards.

It keeps track of every card it has seen (its hand, the table, the discard pile, the cards others
were seen to take: :func:`api.unseen_cards`) and values a hand by what the unseen cards can still
make of it:

* **Live outs.**  A pair (two cards of one rank, different suits) is completed by the cards of
  that rank in the suits it lacks, a connector (two cards of one suit one or two ranks apart) by
  the card or cards that make it a run of three.  The *live outs* are those completing cards not
  yet seen; with ``U`` cards unseen and ``horizon`` draws to come, a partial meld with ``k`` live
  outs is completed with probability ``1 - (1 - k/U)^horizon``.
* **The hand's value** (points, higher is better; :func:`hand_value`): minus the points of the
  cards no meld of the best arrangement holds, each weighted by the chance that it stays
  unmelded (``1 - p`` of its best partial meld); before the opening, also minus ``open_weight``
  times the points the hand is still expected to lack for the required opening (RULES.md
  section 4: 51, 71 or 91, or more under ``opening_rule = ascending``), where each partial meld
  counts ``p`` times the value it would add.  So a K-K pair (30 points towards the opening)
  outweighs a lone 4, and a 2-3 connector counts little at 91.
* **The discard**: the card whose loss lowers the hand's value least, less what it is worth to
  the next player, who may take it (:func:`feed_risk`): a card that the next player could lay
  off (opened, ``must_open``), a card that fits cards it was seen to take, a joker; less so a
  card of a rank or suit run it was seen to discard or to refuse (it drew from the stock over
  it).  That tracking uses the policy memory (:data:`M_AFTER` ..).
* **The draw**: it takes the top discard when the hand with it (after the best discard and,
  before the opening, only if it then opens: ``discard_pickup``) is worth more than the hand
  now plus ``take_margin`` points - the worth of an unknown card from the stock - not only when
  the card completes a meld; unopened, it always takes a card that lets it open at once.
* **Jokers** (``joker_play``): 0 lays them into melds at once (as greedy); 1 keeps them in hand
  and uses them only where needed - to reach the opening or to go out; 2 keeps them so until its
  own turn ``joker_turn``, then lays them at once.  A kept joker costs ``joker_penalty`` if
  someone goes out first: while it holds one it estimates the chance that an opponent goes out
  before its next turn (from their card counts) and lays its jokers when that chance times
  ``joker_penalty`` exceeds ``joker_hold`` points.  At ``joker_penalty`` 30 it so lays them
  earlier than at 15.

It opens as soon as it can (with a Hand when the whole hand can go out in one turn), then lays
down and lays off everything it can, as greedy does.  Written through :mod:`handsim.games.hand.policies.api`
only; randomness: none.
"""

import numpy as np
from numba import njit

from handsim.games.hand.policies import api
from handsim.policies.declare import MAX_PARAMS, Param, Policy
from handsim.games.hand.policies.greedy import NO_SUPPORT, do_layoffs, do_swaps, keep_back, table_play

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


@njit(cache=True, inline="always")
def _pos_card(suit, q):
    """Card type at run position ``q`` (1 = Ace low .. 13 = King, 14 = Ace high) of ``suit``."""
    return api.card_of(suit, 1 if q == 14 else q)


@njit(cache=True, inline="always")
def _pos_value(q, ace_low):
    """Opening value of run position ``q`` (RULES.md section 1: the low Ace counts ``ace_low_value``)."""
    if q == 1:
        return ace_low
    if q == 14:
        return 11
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
def outlook(unseen, n_unseen, horizon, ace_low):
    """What every partial meld of a decision is valued with: ``(u1, u2, ace_low, ch)``, the
    unseen cards ``unseen`` as bitsets of one and two copies (:func:`card_bits`), the low Ace's
    value and ``ch[k]``, the chance of drawing one of ``k`` = 0 .. 4 live outs among
    ``n_unseen`` cards in ``horizon`` draws (a partial meld has at most 4: a pair lacks two
    suits, a connector has two ends, two copies each) - computed once, not once per partial."""
    ch = (0.0, _chance(1, n_unseen, horizon), _chance(2, n_unseen, horizon), _chance(3, n_unseen, horizon),
          _chance(4, n_unseen, horizon))
    u1, u2 = card_bits(unseen)
    return u1, u2, ace_low, ch


@njit(cache=True, inline="always")
def _copies_unseen(look, b):
    """Unseen copies (0..2) of the card at bit ``b``."""
    u1, u2, _, _ = look
    return ((u1 >> b) & 1) + ((u2 >> b) & 1)


@njit(cache=True, inline="always")
def _run_partial(sb, lo, hi, look):
    """``(p, v)`` of the run partial meld at run positions ``lo`` < ``hi`` (one or two apart;
    both held) of the suit whose bits start at ``sb``: chance to be completed and the opening
    value of the run of three it completes to, the completing card's value averaged over its
    live outs; ``p`` is 0 without live outs."""
    _, _, ace_low, ch = look
    vsum = _pos_value(lo, ace_low) + _pos_value(hi, ace_low)
    outs = 0
    ovsum = 0.0
    if hi - lo == 2:  # a gap: the middle card
        outs = _copies_unseen(look, sb + lo + 1)
        ovsum = outs * _pos_value(lo + 1, ace_low)
    else:  # a connector: either end
        if lo - 1 >= 1:
            k = _copies_unseen(look, sb + lo - 1)
            outs += k
            ovsum += k * _pos_value(lo - 1, ace_low)
        if hi + 1 <= 14:
            k = _copies_unseen(look, sb + hi + 1)
            outs += k
            ovsum += k * _pos_value(hi + 1, ace_low)
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


@njit(cache=True)
def partial_of(t, c1, look):
    """:func:`card_partial` of natural ``t`` among the cards ``c1`` (a bitset: the first of
    :func:`card_bits`), valued with :func:`outlook` ``look``: the same ``(p, v)``, from integers
    only."""
    s = api.suit_of(t)
    r = api.rank_of(t)
    sb = s * 16
    best = 0.0
    bp = 0.0
    bv = 0.0
    # a pair (or more) of the rank: completed by the suits it lacks
    others = 0
    outs = 0
    for s2 in range(api.N_SUITS):
        if s2 == s:
            continue
        b = s2 * 16 + r
        if (c1 >> b) & 1:
            others += 1
        else:
            outs += _copies_unseen(look, b)
    if others > 0:
        p = 1.0 if others >= 2 else look[3][outs]
        best, bp, bv = _better((p, 3.0 * api.rank_hand_value(r)), best, bp, bv)
    # runs: the Ace sits low (position 1) or high (14); partners in the order +1, +2, -1, -2 of
    # position r, then for an Ace those of position 14 (-1, -2: the King, then the Queen)
    if (c1 >> (sb + r + 1)) & 1:
        best, bp, bv = _better(_run_partial(sb, r, r + 1, look), best, bp, bv)
    if r <= 12 and (c1 >> (sb + r + 2)) & 1:
        best, bp, bv = _better(_run_partial(sb, r, r + 2, look), best, bp, bv)
    if r >= 2 and (c1 >> (sb + r - 1)) & 1:
        best, bp, bv = _better(_run_partial(sb, r - 1, r, look), best, bp, bv)
    if r >= 3 and (c1 >> (sb + r - 2)) & 1:
        best, bp, bv = _better(_run_partial(sb, r - 2, r, look), best, bp, bv)
    if r == 1 and (c1 >> (sb + 13)) & 1:
        best, bp, bv = _better(_run_partial(sb, 13, 14, look), best, bp, bv)
    if r == 1 and (c1 >> (sb + 12)) & 1:
        best, bp, bv = _better(_run_partial(sb, 12, 14, look), best, bp, bv)
    return bp, bv


@njit(cache=True)
def card_partial(t, cards, unseen, n_unseen, horizon, ace_low):
    """The best partial meld of natural card ``t`` among ``cards`` (a leftover: cards no meld
    holds) - a pair of one rank, a connector of one suit (ranks one apart) or a gap (two apart) -
    by chance of completion times opening value.  Returns ``(p, v)``: its chance to be completed
    (``1 - (1 - outs/n_unseen)^horizon``, outs = the completing cards among ``unseen``) and the
    opening value of the meld it completes to (RULES.md section 1; points); ``(0, 0)`` without a
    partial meld.  It depends on ``cards`` only through the cards of ``t``'s rank in other suits
    and of its suit within two ranks (:func:`neighbours`).  The turn's valuations call
    :func:`partial_of` with the cards as bitsets and the chances computed once (:func:`outlook`)."""
    return partial_of(t, card_bits(cards)[0], outlook(unseen, n_unseen, horizon, ace_low))


@njit(cache=True)
def partials_of(cards, look, p_out, v_out):
    """:func:`partials` valued with :func:`outlook` ``look``, for the cards held only: the
    entries of the natural cards ``cards`` lacks are left as they were (the valuations read the
    entries of the cards held only).  Returns the cards held as a bitset (the first of
    :func:`card_bits`)."""
    c1 = card_bits(cards)[0]
    p_out[api.JOKER] = 0.0
    v_out[api.JOKER] = 0.0
    for t in range(api.N_NATURALS):
        if cards[t] > 0:
            p_out[t], v_out[t] = partial_of(t, c1, look)
    return c1


@njit(cache=True)
def partials(cards, unseen, n_unseen, horizon, ace_low, p_out, v_out):
    """:func:`card_partial` of every natural card type held in ``cards`` into ``p_out[t]`` /
    ``v_out[t]`` (``float64[N_TYPES]``); 0 and 0 for the others.  Returns ``p_out``."""
    for t in range(api.N_NATURALS):
        p_out[t] = 0.0
        v_out[t] = 0.0
    partials_of(cards, outlook(unseen, n_unseen, horizon, ace_low), p_out, v_out)
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
def terms_without(g, left, lbits, t, cost, gain, card_weight, p_out, v_out, look):
    """:func:`leftover_terms` of ``left`` (``lbits``: its cards as a bitset) less one copy of
    card ``t``, from those of ``left`` (``cost``, ``gain``, ``p_out``, ``v_out``): only ``t`` and
    its :func:`neighbours` change (valued again in that order with :func:`outlook` ``look``)."""
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
        p, v = partial_of(u, lb, look)
        cost += left[u] * (api.card_points(g, u) + card_weight) * (p_out[u] - p)
        gain += (p * v - p_out[u] * v_out[u]) * 0.5
    return cost, gain


@njit(cache=True, inline="always")
def value_of(cost, gain, open_value, req, hand_points, open_weight):
    """The value (points, higher is better) of a hand whose melds are worth ``open_value`` towards
    the opening and whose left cards have :func:`leftover_terms` ``cost`` and ``gain``: minus
    ``cost``; unopened (``req`` > 0), minus ``open_weight`` per point the melds plus ``gain``
    still lack for ``req``, scaled by ``(100 + hand_points) / 100``: what a player who never opens
    pays (RULES.md section 6: 100 and every card, a joker ``joker_penalty``)."""
    value = -cost
    if req > 0:
        short = req - open_value - gain
        if short > 0:
            value -= open_weight * short * (100.0 + hand_points) * 0.01
    return value


@njit(cache=True)
def leftover_value(g, left, open_value, req, hand_points, open_weight, card_weight, p_out, v_out):
    """:func:`value_of` the :func:`leftover_terms` of ``left``."""
    cost, gain = leftover_terms(g, left, card_weight, p_out, v_out)
    return value_of(cost, gain, open_value, req, hand_points, open_weight)


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
def draws_ahead(g, prm):
    """The draws it expects to make in the round: ``horizon`` at ``opening_threshold`` 51, in
    proportion to the threshold above it (rounds last longer when openings are harder)."""
    th = api.rule(g, api.R_OPENING_THRESHOLD)
    return prm[HORIZON] * max(th, 51) / 51.0


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
    if opened and api.pickup_must_open(g) and api.layoff_meld(g, t) >= 0:
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


@njit(cache=True)
def keeps_jokers(g, seat, prm):
    """Whether it keeps its jokers out of melds this turn (``joker_play`` 1, or 2 before own turn
    ``joker_turn``), as long as the chance that someone goes out first times ``joker_penalty``
    per joker stays at most ``joker_hold`` points; once that is passed it lays them for the rest
    of the round."""
    mode = prm[JOKER_PLAY]
    if mode == JOKERS_AT_ONCE:
        return False
    if mode == JOKERS_UNTIL_TURN and api.own_turns(g, seat) >= prm[JOKER_TURN]:
        return False
    mem = api.memory(g, seat)
    if mem[M_RELEASED] != 0:
        return False
    n = api.hand(g, seat)[api.JOKER]
    if n > 0 and out_risk(g, seat) * api.card_points(g, api.JOKER) * n > prm[JOKER_HOLD]:
        mem[M_RELEASED] = 1
        return False
    return True


# ------------------------------------------------------------------------- the discard


#: ``discard_values`` of a card that is no candidate.
NOT_A_CANDIDATE = -1e300


#: The work arrays of a valuation (:func:`new_work`): card counts (``int8``) and values (``float64``).
_W_CARDS = 0  # card counts: the hand valued
_W_LEFT = 1  # its cards no meld holds
_W_UNSEEN = 2  # the cards the player cannot place
_W_PRE = 3  # the cards no meld holds, before the lay-offs
_N_IWORK = 4
_W_P = 0  # the partial melds' chances (p_out)
_W_V = 1  # and values (v_out)
_N_FWORK = 2


@njit(cache=True)
def new_work():
    """The work arrays of one decision's valuations: ``int8[4, N_TYPES]`` (the hand valued, its
    left cards, the unseen cards, the left cards before lay-offs) and ``float64[2, N_TYPES]``
    (the partial melds' chances and values): two allocations per decision instead of one per
    array and valuation."""
    return np.empty((_N_IWORK, api.N_TYPES), dtype=np.int8), np.empty((_N_FWORK, api.N_TYPES), dtype=np.float64)


@njit(cache=True)
def discard_values(g, seat, keep_jokers, prm, out):
    """The worth of each legal discard (``out float64[N_TYPES]``, points, higher is better;
    :data:`NOT_A_CANDIDATE` for cards that are not candidates): the hand's value without the card
    (:func:`leftover_value`) less ``feed_weight`` times what it may give the next player
    (:func:`feed_risk`).  The candidates are the cards no meld holds; when none of them may go,
    every natural (breaking a meld: the hand is arranged again without it); when no natural may
    go, a joker.  With ``keep_jokers`` (opened) the jokers stay out of the arrangement.  Returns
    the number of candidates."""
    iw, fw = new_work()
    return _discard_values(g, seat, keep_jokers, prm, out, iw, fw)


@njit(cache=True)
def _discard_values(g, seat, keep_jokers, prm, out, iw, fw):
    """:func:`discard_values` with the work arrays of :func:`new_work`."""
    h = api.hand(g, seat)
    opened = api.has_opened(g, seat)
    req = api.required_opening(g, seat)
    cards = iw[_W_CARDS]
    left = iw[_W_LEFT]
    unseen = iw[_W_UNSEEN]
    p = fw[_W_P]
    v = fw[_W_V]
    n_unseen = _unseen(g, seat, unseen)
    look = outlook(unseen, n_unseen, draws_ahead(g, prm), api.rule(g, api.R_ACE_LOW))
    ow = prm[OPEN_WEIGHT]
    cw = prm[CARD_WEIGHT]
    fwt = prm[FEED_WEIGHT]
    for t in range(api.N_TYPES):
        out[t] = NOT_A_CANDIDATE
    cards[:] = h
    if opened and keep_jokers:
        cards[api.JOKER] = 0
    ov = arrange_left(g, seat, cards, opened, left)
    if not opened:  # the hand it keeps can be worth no more than this: may_take reads it
        mem = api.memory(g, seat)
        mem[M_BOUND] = ov
        mem[M_BOUND_OK] = 1
    pts = points_of(g, h)
    lbits = partials_of(left, look, p, v)
    cost, gain = leftover_terms(g, left, cw, p, v)
    n = 0
    for t in range(api.N_NATURALS):
        if left[t] == 0 or not api.discard_is_legal(g, seat, t):
            continue
        c2, g2 = terms_without(g, left, lbits, t, cost, gain, cw, p, v, look)
        out[t] = value_of(c2, g2, ov, req, pts - api.card_points(g, t), ow) - fwt * feed_risk(g, seat, t)
        n += 1
    if n > 0:
        return n
    # every card is in a meld (or may not go): break the meld that costs least
    for t in range(api.N_NATURALS):
        if h[t] == 0 or not api.discard_is_legal(g, seat, t):
            continue
        cards[t] -= 1
        ov2 = arrange_left(g, seat, cards, opened, left)
        partials_of(left, look, p, v)
        out[t] = (leftover_value(g, left, ov2, req, pts - api.card_points(g, t), ow, cw, p, v)
                  - fwt * feed_risk(g, seat, t))
        cards[t] += 1
        n += 1
    if n == 0 and api.discard_is_legal(g, seat, api.JOKER):
        out[api.JOKER] = 0.0
        n = 1
    return n


@njit(cache=True)
def choose_discard(g, seat, keep_jokers, prm):
    """The candidate of :func:`discard_values` worth most (ties: the lower card type), or
    ``api.NO_DISCARD`` when there is none (an empty hand)."""
    iw, fw = new_work()
    vals = np.empty(api.N_TYPES, dtype=np.float64)
    _discard_values(g, seat, keep_jokers, prm, vals, iw, fw)
    best = api.NO_DISCARD
    bestv = NOT_A_CANDIDATE
    for t in range(api.N_TYPES):
        if vals[t] > bestv:
            bestv = vals[t]
            best = t
    return best


@njit(cache=True)
def hand_value(g, seat, cards, opened, req, discard, keep, prm, look, left, p, v, pre, reuse):
    """The value of the hand ``cards`` (points, higher is better), arranged as ``seat`` would
    play it (:func:`arrange_left`) and valued by :func:`leftover_value` - with ``discard``, after
    the best discard among the cards no meld holds other than one copy of card ``keep`` (the card
    taken from the pile).  ``req``: points the opening still needs (0 once opened); ``look``:
    the :func:`outlook` of the player's unseen cards (:func:`api.unseen_cards`); ``left``,
    ``p``, ``v``: work arrays (``int8``, ``float64``, ``float64[N_TYPES]``).  ``pre``
    (``int8[N_TYPES]``) gets the cards no meld holds before the lay-offs (:func:`melds_left`);
    with ``reuse`` (opened) it holds them already for ``cards`` without one ``keep``, which no
    meld of ``cards`` can contain: the arrangement is the same, and is not searched again."""
    ow = prm[OPEN_WEIGHT]
    cw = prm[CARD_WEIGHT]
    if reuse:
        for t in range(api.N_TYPES):
            left[t] = pre[t]
        left[keep] += 1
        ov = 0
    else:
        ov = melds_left(g, cards, opened, left)
        for t in range(api.N_TYPES):
            pre[t] = left[t]
    if opened:
        lay_off_left(g, left)
    pts = points_of(g, cards)
    lbits = partials_of(left, look, p, v)
    cost, gain = leftover_terms(g, left, cw, p, v)
    best = -1e300
    if discard:
        for t in range(api.N_NATURALS):
            if left[t] == 0 or (t == keep and left[t] == 1):
                continue
            c2, g2 = terms_without(g, left, lbits, t, cost, gain, cw, p, v, look)
            val = value_of(c2, g2, ov, req, pts - api.card_points(g, t), ow)
            if val > best:
                best = val
    if best == -1e300:
        best = value_of(cost, gain, ov, req, pts, ow)
    return best


# ------------------------------------------------------------------------- the draw


@njit(cache=True)
def may_take(g, seat):
    """Whether ``seat`` may take the top discard and play it legally this turn as
    :func:`table_moves` plays (RULES.md section 3, ``discard_pickup``): unopened, only when it can
    then open (``new_meld_only``: with the card in a meld of the opening); opened, under
    ``new_meld_only`` only when the card joins a new meld.  Returns ``(may, opens)``: ``opens``
    when taking it lets an unopened hand open now and the hand alone could not."""
    top = api.top_discard(g)
    if top == api.NO_CARD:
        return False, False
    must_open = api.pickup_must_open(g)
    keep = keep_back(g, seat, NO_SUPPORT)
    if not api.has_opened(g, seat):
        req = api.next_opening(g)
        api.pretend_take(g, seat)
        mem = api.memory(g, seat)
        if mem[M_BOUND_OK] != 0 and mem[M_BOUND] < req and not api.could_meld(g, api.hand(g, seat), top):
            # no meld holds the card, and the hand alone is worth less than req (it was, with its
            # last discard, when it chose it): no plan reaches req, none is searched
            api.undo_take(g, seat)
            return False, False
        n = api.plan_melds(g, seat, api.OPEN, req, keep, True)
        ok = n > 0 and (must_open or api.path_uses(api.plan(g), n, top) >= 1)
        api.undo_take(g, seat)
        if not ok:
            return False, False
        w, n = api.arrange(g, api.hand(g, seat), api.OPEN)
        return True, not (n > 0 and w >= req)
    if not must_open:
        api.pretend_take(g, seat)
        n = api.plan_melds(g, seat, api.DEADWOOD, 1, keep, True)
        ok = n > 0 and api.path_uses(api.plan(g), n, top) >= 1
        api.undo_take(g, seat)
        return ok, False
    return True, False


@njit(cache=True)
def draw_decision(g, seat, prm):
    """Take the top discard when the hand with it is worth more than the hand now plus
    ``take_margin`` points (what a card from the stock is worth on average), after the best
    discard (not the card taken) and arranged as it would play it; only when it may
    (:func:`may_take`), and always when that lets it open now and the hand alone would not
    (RULES.md sections 3-4)."""
    ok, opens = may_take(g, seat)
    if not ok:
        return api.DRAW_STOCK
    if opens:
        return api.DRAW_DISCARD
    top = api.top_discard(g)
    if top == api.JOKER:
        return api.DRAW_DISCARD  # a joker is always worth taking
    keep_jk = keeps_jokers(g, seat, prm)
    iw, fw = new_work()
    cards = iw[_W_CARDS]
    unseen = iw[_W_UNSEEN]
    look = outlook(unseen, _unseen(g, seat, unseen), draws_ahead(g, prm), api.rule(g, api.R_ACE_LOW))
    left = iw[_W_LEFT]
    p = fw[_W_P]
    v = fw[_W_V]
    # both ways it is opened by the end of the turn: compare the hands' values
    cards[:] = api.hand(g, seat)
    if keep_jk:
        cards[api.JOKER] = 0
    pre = iw[_W_PRE]
    now = hand_value(g, seat, cards, True, 0, False, api.NO_CARD, prm, look, left, p, v, pre, False)
    cards[top] += 1
    # a top discard that no meld of the hand with it can contain changes nothing in the hand's
    # arrangement (the search drops such cards first, when a meld may hold a single natural)
    reuse = api.rule(g, api.R_MIN_NATURAL_CARDS_PER_MELD) <= 1 and not api.could_meld(g, cards, top)
    with_top = hand_value(g, seat, cards, True, 0, True, top, prm, look, left, p, v, pre, reuse)
    return api.DRAW_DISCARD if with_top > now + prm[TAKE_MARGIN] else api.DRAW_STOCK


# ------------------------------------------------------------------------- the turn


@njit(cache=True)
def _natural_discard_left(g, seat, rem):
    """Whether a natural card ``seat`` may discard is left once the cards ``rem`` leave the hand
    (``rem`` is restored)."""
    nj = rem[api.JOKER]
    rem[api.JOKER] = api.hand(g, seat)[api.JOKER]
    ok = api.legal_discard_after(g, seat, rem)
    rem[api.JOKER] = nj
    return ok


@njit(cache=True)
def lay_without_jokers(g, seat, mode, req):
    """Lay the melds of the best ``mode`` arrangement of the hand without its jokers, if they are
    worth ``req`` points and leave a natural card to discard; returns whether it did."""
    cards = np.empty(api.N_TYPES, dtype=np.int8)
    cards[:] = api.hand(g, seat)
    cards[api.JOKER] = 0
    w, n = api.arrange(g, cards, mode)
    if n <= 0 or w < req:
        return False
    rem = np.empty(api.N_TYPES, dtype=np.int8)
    api.path_counts(api.plan(g), n, rem)
    if not _natural_discard_left(g, seat, rem):
        return False
    return api.lay_melds(g, seat, api.plan(g), n)


@njit(cache=True)
def can_go_out(g, seat):
    """Whether the whole hand, jokers too, could go to the table this turn: the least-deadwood
    arrangement leaves at most one card that no table meld takes."""
    cards = np.empty(api.N_TYPES, dtype=np.int8)
    left = np.empty(api.N_TYPES, dtype=np.int8)
    cards[:] = api.hand(g, seat)
    arrange_left(g, seat, cards, True, left)
    n = 0
    for t in range(api.N_TYPES):
        n += left[t]
    return n <= 1


@njit(cache=True)
def layoff_naturals(g, seat, keep):
    """Lay off natural cards (the taken card first, then the highest), keeping ``keep`` cards
    and a natural card to discard; jokers stay in hand."""
    h = api.hand(g, seat)
    rem = np.zeros(api.N_TYPES, dtype=np.int8)
    t = api.taken_card(g)
    first = True
    while api.hand_count(g, seat) > keep:
        bt = -1
        bk = -1
        bv = -1
        for c in range(api.N_NATURALS):
            if h[c] == 0:
                continue
            v = api.card_points(g, c)
            if first and c == t:
                v = 1000
            if v <= bv:
                continue
            k = api.layoff_meld(g, c)
            if k >= 0:
                rem[c] = 1
                if _natural_discard_left(g, seat, rem):
                    bt = c
                    bk = k
                    bv = v
                rem[c] = 0
        first = False
        if bt < 0 or not api.lay_off(g, seat, bk, bt):
            break


#: What :func:`table_moves` returns as the discard when the discard is still to be chosen.
UNDECIDED = -2


@njit(cache=True)
def table_moves(g, seat, prm):
    """The turn's moves before the discard: a Hand if it can make one; the opening as soon as it can;
    once opened, every meld and lay-off (its jokers only where :func:`keeps_jokers` allows).
    Returns ``(discard, keep_jokers)``: the discard when the moves fixed it (a Hand's, or
    ``api.NO_DISCARD`` for an empty hand), else :data:`UNDECIDED`; and whether the jokers stay
    out of the hand's arrangement when the discard is chosen."""
    keep = keep_back(g, seat, NO_SUPPORT)
    api.memory(g, seat)[M_BOUND_OK] = 0  # the hand changed: the next discard sets M_BOUND again
    if not api.laid_before(g, seat):
        n, d = api.plan_hand(g, seat)
        if n > 0:
            api.lay_melds(g, seat, api.plan(g), n)
            return d, False
    keep_jk = keeps_jokers(g, seat, prm) and api.hand(g, seat)[api.JOKER] > 0
    # a card taken under new_meld_only must go into a new meld: play it as greedy plans it
    taken_rule = api.taken_card(g) != api.NO_CARD and not api.pickup_must_open(g)
    if not api.has_opened(g, seat):
        req = api.required_opening(g, seat)
        val, n = api.arrange(g, api.hand(g, seat), api.OPEN)
        if val >= req and n > 0:
            if not (keep_jk and not taken_rule and lay_without_jokers(g, seat, api.OPEN, req)):
                n = api.plan_melds(g, seat, api.OPEN, req, keep, True)
                if n > 0:
                    api.lay_melds(g, seat, api.plan(g), n)
        if not api.has_opened(g, seat):
            return UNDECIDED, False
    if api.may_touch_table(g, seat):
        if not keep_jk or taken_rule or can_go_out(g, seat):
            table_play(g, seat, keep)
            keep_jk = False
        else:
            lay_without_jokers(g, seat, api.DEADWOOD, 1)
            if api.rule(g, api.R_JOKER_SWAP) != 0 and do_swaps(g, seat) > 0:
                lay_without_jokers(g, seat, api.DEADWOOD, 1)
            layoff_naturals(g, seat, keep)
    if api.hand_count(g, seat) == 0:
        return api.NO_DISCARD, False
    return UNDECIDED, keep_jk


@njit(cache=True)
def play_turn(g, seat, prm):
    """:func:`table_moves`, then the discard of :func:`choose_discard`."""
    d, keep_jk = table_moves(g, seat, prm)
    if d == UNDECIDED:
        d = choose_discard(g, seat, keep_jk, prm)
    remember_discard(g, seat, d)
    return d


#: :func:`params` spells out the MAX_PARAMS parameters one by one.
assert MAX_PARAMS == 8


@njit(cache=True)
def params(g, seat):
    """The seat's parameters as a tuple of ``MAX_PARAMS`` floats (indexed like a vector by the
    slots above; a tuple, so that a turn allocates nothing for them), passed to the functions
    above (the sampling player passes its own rollout settings, :func:`default_params`)."""
    return (api.param(g, seat, 0), api.param(g, seat, 1), api.param(g, seat, 2), api.param(g, seat, 3),
            api.param(g, seat, 4), api.param(g, seat, 5), api.param(g, seat, 6), api.param(g, seat, 7))


@njit(cache=True)
def begin_turn(g, seat):
    observe(g, seat)


@njit(cache=True)
def choose_draw(g, seat):
    return draw_decision(g, seat, params(g, seat))


@njit(cache=True)
def play(g, seat):
    return play_turn(g, seat, params(g, seat))


POLICY = Policy(
    "card-reader",
    help="Counts the cards it has seen to know each pair's and connector's live outs; keeps the cards worth "
         "most towards the required opening and least as deadwood (a K-K pair over a lone 4), discards the "
         "card worth least to itself and to the next player (who may take it: what it was seen to take and "
         "discard), takes the discard when that raises the hand's value by more than take_margin, opens as "
         "soon as it can (a Hand when it can), then lays down and lays off everything; jokers by joker_play, "
         "weighing the chance someone goes out first times joker_penalty against joker_hold.",
    params=(
        Param("horizon", 6, 1, 40, unit="draws",
              help="draws it expects to make at opening_threshold 51 (in proportion above it): a partial meld "
                   "with k live outs among U unseen cards is completed with chance 1 - (1 - k/U)^draws"),
        Param("open_weight", 7.0, 0.0, 50.0, unit="points per point", integer=False,
              help="before its opening: value of each point the hand is expected to lack for the required "
                   "opening, against one point of deadwood (tuned against greedy: 3 to 9 play alike, 7 is best "
                   "at thresholds 51, 71 and 91 together)"),
        Param("card_weight", 3.0, 0.0, 30.0, unit="points per card", integer=False,
              help="what each card no meld holds costs besides its points: one more card to get rid of "
                   "before it can go out"),
        Param("feed_weight", 4.0, 0.0, 100.0, unit="points", integer=False,
              help="what a discard that the next player can use (lay off, or fit to cards it took) costs it"),
        Param("take_margin", 2.0, 0.0, 50.0, unit="points", integer=False,
              help="it takes the top discard when the hand with it is worth this much more than the hand now "
                   "(the worth of a card from the stock)"),
        Param("joker_play", 1, 0, 2, unit="0/1/2",
              help="0: lays jokers into melds at once; 1: keeps them in hand unless needed to open or to go out; "
                   "2: as 1 until own turn joker_turn, then at once"),
        Param("joker_turn", 8, 1, 1000, unit="own turns",
              help="with joker_play=2: the own turn from which it lays its jokers"),
        Param("joker_hold", 3.0, 0.0, 100.0, unit="points", integer=False,
              help="it keeps a joker while the chance that an opponent goes out before its next turn times "
                   "joker_penalty per joker stays at or below this"),
    ),
    begin_turn=begin_turn,
    choose_draw=choose_draw,
    play=play,
)
HORIZON = POLICY.slot("horizon")
OPEN_WEIGHT = POLICY.slot("open_weight")
CARD_WEIGHT = POLICY.slot("card_weight")
FEED_WEIGHT = POLICY.slot("feed_weight")
TAKE_MARGIN = POLICY.slot("take_margin")
JOKER_PLAY = POLICY.slot("joker_play")
JOKER_TURN = POLICY.slot("joker_turn")
JOKER_HOLD = POLICY.slot("joker_hold")


#: Its parameters' defaults, as a vector (what the sampling player plays its moves with).
DEFAULT_PARAMS = np.zeros(MAX_PARAMS, dtype=np.float64)
for _i, _p in enumerate(POLICY.params):
    DEFAULT_PARAMS[_i] = _p.default


@njit(cache=True)
def default_params():
    """:data:`DEFAULT_PARAMS` as :func:`params` gives a seat's parameters (a tuple)."""
    d = DEFAULT_PARAMS
    return (d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7])
