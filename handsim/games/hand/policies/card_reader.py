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
from handsim.games.hand.policies.greedy import NO_SUPPORT, do_layoffs, do_swaps, keep_back, opening_uses_taken, table_play
from .counting import (  # noqa: F401  (moved to .counting; re-exported)
    JOKERS_AT_ONCE, JOKERS_UNTIL_TURN, JOKERS_WHEN_NEEDED, M_AFTER, M_AVOID, M_BOUND,
    M_BOUND_OK, M_DISC, M_RELEASED, M_RESH, M_VALID, NEIGHBOURS,
    _JOKER_FEED, _OUT_CHANCE, _OUT_CHANCE_FAR, _better, _card_bit, _chance,
    _copies_unseen, _neighbour_table, _pos_card, _pos_value, _run_partial, _unseen,
    DEP_NONE, DEP_PAIR, DEP_RUN, arrange_left, card_bits, card_partial, feed_risk, feed_risk_in, feed_view, held_bits,
    lay_off_left, leftover_terms, partial_dep,
    leftover_value, melds_left, neighbours, observe, out_risk, outlook,
    partial_of, partials, partials_of, points_of, remember_discard, terms_without,
    unopened_points, value_of,
)


# ------------------------------------------------------------------------- cards and outs


# A decision's valuations read the cards as bitsets, which numba passes between functions as
# plain integers: bit 16 s + q is run position q (1 = Ace low .. 13 = King, 14 = the Ace again,
# high) of suit s.


# ------------------------------------------------------------------------- the hand's value


@njit(cache=True)
def draws_ahead(g, prm):
    """The draws it expects to make in the round: ``horizon`` at ``opening_threshold`` 51, in
    proportion to the threshold above it (rounds last longer when openings are harder)."""
    th = api.rule(g, api.R_OPENING_THRESHOLD)
    return prm[HORIZON] * max(th, 51) / 51.0


# ------------------------------------------------------------------------- the next player


# ------------------------------------------------------------------------- jokers


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
_W_DEP = 4  # what each left card's best partial meld depends on (counting.partial_dep)
_N_IWORK = 5
_W_P = 0  # the partial melds' chances (p_out)
_W_V = 1  # and values (v_out)
_N_FWORK = 2


@njit(cache=True)
def new_work():
    """The work arrays of one decision's valuations: ``int8[5, N_TYPES]`` (the hand valued, its
    left cards, the unseen cards, the left cards before lay-offs, their partial melds'
    dependencies) and ``float64[2, N_TYPES]``
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
    dep = iw[_W_DEP]
    n_unseen = _unseen(g, seat, unseen)
    look = outlook(unseen, n_unseen, draws_ahead(g, prm), api.rule(g, api.R_ACE_LOW), api.rule(g, api.R_ACE))
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
    lbits = partials_of(left, look, p, v, dep)
    cost, gain = leftover_terms(g, left, cw, p, v)
    fv = feed_view(g, seat)
    n = 0
    for t in range(api.N_NATURALS):
        if left[t] == 0 or not api.discard_is_legal(g, seat, t):
            continue
        c2, g2 = terms_without(g, left, lbits, t, cost, gain, cw, p, v, dep, look)
        out[t] = value_of(c2, g2, ov, req, pts - api.card_points(g, t), ow, unopened_points(g)) - fwt * feed_risk_in(g, fv, t)
        n += 1
    if n > 0:
        return n
    # every card is in a meld (or may not go): break the meld that costs least
    for t in range(api.N_NATURALS):
        if h[t] == 0 or not api.discard_is_legal(g, seat, t):
            continue
        cards[t] -= 1
        ov2 = arrange_left(g, seat, cards, opened, left)
        partials_of(left, look, p, v, dep)
        out[t] = (leftover_value(g, left, ov2, req, pts - api.card_points(g, t), ow, cw, p, v)
                  - fwt * feed_risk_in(g, fv, t))
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
def hand_value(g, seat, cards, opened, req, discard, keep, prm, look, left, p, v, dep, pre, reuse):
    """The value of the hand ``cards`` (points, higher is better), arranged as ``seat`` would
    play it (:func:`arrange_left`) and valued by :func:`leftover_value` - with ``discard``, after
    the best discard among the cards no meld holds other than one copy of card ``keep`` (the card
    taken from the pile).  ``req``: points the opening still needs (0 once opened); ``look``:
    the :func:`outlook` of the player's unseen cards (:func:`api.unseen_cards`); ``left``,
    ``p``, ``v``, ``dep``: work arrays (``int8``, ``float64``, ``float64``, ``int8[N_TYPES]``).  ``pre``
    (``int8[N_TYPES]``) gets the cards no meld holds before the lay-offs (:func:`melds_left`);
    with ``reuse`` (opened) it holds them already for ``cards`` without one ``keep``, which no
    meld of ``cards`` can contain: the arrangement is the same, and is not searched again; and
    ``p``, ``v``, ``dep`` hold the partial melds of that valuation (the call just before, with the
    same ``look``): only ``keep`` and its neighbours are valued again, when ``keep`` is a new
    left card (:func:`partial_dep` depends on a card's neighbours only)."""
    ow = prm[OPEN_WEIGHT]
    cw = prm[CARD_WEIGHT]
    had_keep = False
    if reuse:
        for t in range(api.N_TYPES):
            left[t] = pre[t]
        # whether the valuation before kept a copy of keep in its left cards (after lay_off_left)
        k = pre[keep]
        if k > 0 and opened and api.table_count(g) > 0 and api.layoff_meld(g, keep) >= 0:
            k -= 1
        had_keep = k > 0
        left[keep] += 1
        ov = 0
    else:
        ov = melds_left(g, cards, opened, left)
        for t in range(api.N_TYPES):
            pre[t] = left[t]
    if opened:
        lay_off_left(g, left)
    pts = points_of(g, cards)
    if reuse:
        lbits = held_bits(left)
        if left[keep] > 0 and not had_keep:
            p[keep], v[keep], dep[keep] = partial_dep(keep, lbits, look)
            for i in range(8):
                u = NEIGHBOURS[keep, i]
                if u < 0:
                    break
                if left[u] > 0:
                    p[u], v[u], dep[u] = partial_dep(u, lbits, look)
    else:
        lbits = partials_of(left, look, p, v, dep)
    cost, gain = leftover_terms(g, left, cw, p, v)
    best = -1e300
    if discard:
        for t in range(api.N_NATURALS):
            if left[t] == 0 or (t == keep and left[t] == 1):
                continue
            c2, g2 = terms_without(g, left, lbits, t, cost, gain, cw, p, v, dep, look)
            val = value_of(c2, g2, ov, req, pts - api.card_points(g, t), ow, unopened_points(g))
            if val > best:
                best = val
    if best == -1e300:
        best = value_of(cost, gain, ov, req, pts, ow, unopened_points(g))
    return best


# ------------------------------------------------------------------------- the draw


@njit(cache=True)
def may_take(g, seat):
    """Whether ``seat`` may take the top discard and play it legally this turn as
    :func:`table_moves` plays (RULES.md section 3, ``discard_pickup``): unopened, only when it can
    then open (with the card in a meld of the opening where :func:`api.pickup_needs_new_meld`:
    ``new_meld_only``, ``must_open_using``, ``opening_requires_discard_pickup``); opened, under
    ``new_meld_only`` only when the card joins a new meld.  Returns ``(may, opens)``: ``opens``
    when taking it lets an unopened hand open now and the hand alone could not (or may not:
    ``opening_requires_discard_pickup``)."""
    top = api.top_discard(g)
    if top == api.NO_CARD:
        return False, False
    must_open = not api.pickup_needs_new_meld(g, seat)  # the card need not go into a new meld
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
        if not api.opening_allowed(g, seat):  # before the take, no opening but a Hand
            return True, True
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
    look = outlook(unseen, _unseen(g, seat, unseen), draws_ahead(g, prm), api.rule(g, api.R_ACE_LOW), api.rule(g, api.R_ACE))
    left = iw[_W_LEFT]
    p = fw[_W_P]
    v = fw[_W_V]
    # both ways it is opened by the end of the turn: compare the hands' values
    cards[:] = api.hand(g, seat)
    if keep_jk:
        cards[api.JOKER] = 0
    pre = iw[_W_PRE]
    dep = iw[_W_DEP]
    now = hand_value(g, seat, cards, True, 0, False, api.NO_CARD, prm, look, left, p, v, dep, pre, False)
    cards[top] += 1
    # a top discard that no meld of the hand with it can contain changes nothing in the hand's
    # arrangement (the search drops such cards first, when a meld may hold a single natural)
    reuse = api.rule(g, api.R_MIN_NATURAL_CARDS_PER_MELD) <= 1 and not api.could_meld(g, cards, top)
    with_top = hand_value(g, seat, cards, True, 0, True, top, prm, look, left, p, v, dep, pre, reuse)
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
    # a card taken that must go into a new meld (api.pickup_needs_new_meld): play it as greedy plans it
    taken_rule = api.taken_card(g) != api.NO_CARD and api.pickup_needs_new_meld(g, seat)
    if not api.has_opened(g, seat):
        req = api.required_opening(g, seat)
        val, n = api.arrange(g, api.hand(g, seat), api.OPEN)
        if val >= req and n > 0 and api.opening_allowed(g, seat):
            if not (keep_jk and not taken_rule and lay_without_jokers(g, seat, api.OPEN, req)):
                n = api.plan_melds(g, seat, api.OPEN, req, keep, True)
                if n > 0 and opening_uses_taken(g, seat, n):
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
