"""``greedy``: open as soon as possible, lay down and lay off everything, discard the highest card.

Written through :mod:`handsim.games.hand.policies.api` only.  Its pieces (``play_greedy``,
``choose_draw_greedy``, ``choose_discard``, ``table_play``) are also what ``hold-hand`` plays once
it gives up the Hand.
"""

import numpy as np
from numba import njit

from handsim.games.hand.policies import api
from handsim.policies.declare import Param, Policy


#: ``support_hand`` off, for callers that play greedy's moves without the team option (hold-hand
#: after giving up the Hand).  A numpy value rather than ``False``: numba compiles a separate copy
#: of a function for each constant argument, and this keeps one copy of play_greedy.
NO_SUPPORT = np.bool_(False)


@njit(cache=True)
def connections(g, seat, t):
    """Cards in ``seat``'s hand that could meld with natural ``t``: same rank in other suits,
    same suit within two ranks (K-A counts as adjacent)."""
    if t == api.JOKER:
        return 0
    h = api.hand(g, seat)
    s = api.suit_of(t)
    r = api.rank_of(t) - 1  # 0..12
    c = 0
    for s2 in range(api.N_SUITS):
        if s2 != s:
            c += h[s2 * api.N_RANKS + r]
    for d in (-2, -1, 1, 2):
        q = r + d
        if q == api.N_RANKS:
            q = 0  # K-A
        if 0 <= q < api.N_RANKS:
            c += h[s * api.N_RANKS + q]
    return c


@njit(cache=True)
def choose_discard(g, seat, path, n):
    """The highest-value card of the hand outside the first ``n`` melds of ``path``; ties go to
    the card with fewest meld partners; jokers only when nothing else can go; never an illegal
    discard.  Returns ``api.NO_DISCARD`` if the hand is empty."""
    best = api.NO_DISCARD
    bestkey = -1 << 30
    h = api.hand(g, seat)
    used = api.scratch(g)
    if n > 0:
        api.path_counts(path, n, used)
    for pass_ in range(3):
        # pass 0: leftover naturals; pass 1: any natural; pass 2: jokers
        for t in range(api.N_TYPES):
            if h[t] == 0:
                continue
            if (t == api.JOKER) != (pass_ == 2):
                continue
            if pass_ == 0 and n > 0 and h[t] - used[t] <= 0:
                continue
            v = api.card_points(g, t) * 16
            if v <= bestkey:  # its key, v less 0..15, cannot beat the best
                continue
            if not api.discard_is_legal(g, seat, t):
                continue
            key = v - min(connections(g, seat, t), 15)
            if key > bestkey:
                bestkey = key
                best = t
        if best >= 0:
            return best
    return best


@njit(cache=True)
def do_swaps(g, seat):
    """Swap every joker on the table for which the hand holds the natural card (RULES.md section 5)."""
    if api.rule(g, api.R_JOKER_SWAP) == 0:
        return 0
    done = 0
    h = api.hand(g, seat)
    for k in range(api.table_count(g)):
        m = api.table_meld(g, k)
        if api.meld_jokers(m) == 0:
            continue  # no joker to swap (a swap only takes jokers away)
        # only the naturals of a run's suit or of a set's rank can take a joker's place: the same
        # cards in the same (ascending) order as asking all 52
        key = api.meld_key(m)
        is_set = api.is_set(m)
        first = api.card_of(0, key) if is_set else api.card_of(key, 1)
        step = api.N_RANKS if is_set else 1
        count = api.N_SUITS if is_set else api.N_RANKS
        again = True
        while again:
            again = False
            for i in range(count):
                t = first + i * step
                if h[t] > 0 and api.swap_target(g, k, t) != api.NO_TARGET:
                    if api.swap_joker(g, seat, k, t):
                        done += 1
                        again = True
                        break
    return done


@njit(cache=True)
def _discard_after(g, seat, t):
    """Whether ``seat`` still has a legal discard (or no card at all) after card ``t`` leaves
    its hand for the table."""
    if api.hand_count(g, seat) <= 1:
        return True
    return api.legal_discard_after_card(g, seat, t)


@njit(cache=True)
def do_layoffs(g, seat, keep):
    """Lay off cards while more than ``keep`` cards remain: first the card just taken from the
    discard pile (it may not be discarded, so it must not lose its place to another card), then
    the highest-value cards, never leaving a hand without a legal discard."""
    done = 0
    h = api.hand(g, seat)
    t = api.taken_card(g)
    if t != api.NO_CARD and h[t] > 0 and api.hand_count(g, seat) > keep:
        k = api.layoff_meld(g, t)
        if k >= 0 and api.lay_off(g, seat, k, t):
            done += 1
    while api.hand_count(g, seat) > keep:
        bt = -1
        bk = -1
        bv = -1
        for t in range(api.N_TYPES):
            if h[t] == 0:
                continue
            v = api.card_points(g, t)
            if v <= bv:
                continue
            k = api.layoff_meld(g, t)
            if k >= 0 and _discard_after(g, seat, t):
                bt = t
                bk = k
                bv = v
        if bt < 0:
            break
        if not api.lay_off(g, seat, bk, bt):
            break
        done += 1
    return done


@njit(cache=True)
def supporting(g, seat, support_hand):
    """Whether ``seat`` holds back from going out for its partner's Hand: ``support_hand``, 2 v 2,
    it has laid down in an earlier turn (so going out now would be a plain finish, not a Hand of
    its own), and its partner still plays for a Hand (it says so and has laid nothing)."""
    if not support_hand or not api.partnership(g):
        return False
    if not api.laid_before(g, seat):
        return False
    return api.partner_playing_for_hand(g, seat)


@njit(cache=True)
def keep_back(g, seat, support_hand):
    """Cards greedy keeps after its melds and lay-offs: 2 while supporting a partner's Hand
    (it does not go out), 1 when the last card must be a discard, else 0."""
    if supporting(g, seat, support_hand):
        return 2
    return 1 if api.go_out_needs_discard(g) else 0


@njit(cache=True)
def table_play(g, seat, keep):
    """Opened: lay every meld of the least-deadwood arrangement, swap jokers, lay off."""
    if not api.may_touch_table(g, seat):
        return
    n = api.plan_melds(g, seat, api.DEADWOOD, 1, keep, True)
    if n > 0:
        api.lay_melds(g, seat, api.plan(g), n)
    if do_swaps(g, seat) > 0:
        n = api.plan_melds(g, seat, api.DEADWOOD, 1, keep, True)
        if n > 0:
            api.lay_melds(g, seat, api.plan(g), n)
    do_layoffs(g, seat, keep)


@njit(cache=True)
def opening_uses_taken(g, seat, n):
    """Whether the first ``n`` melds of the plan put the card taken from the pile in this turn into
    a new meld, where the rules need it (:func:`api.pickup_needs_new_meld`: ``new_meld_only``,
    ``must_open_using``, ``opening_requires_discard_pickup``; RULES.md sections 3-4); True when no
    card was taken or the rules do not need it."""
    taken = api.taken_card(g)
    if taken == api.NO_CARD or not api.pickup_needs_new_meld(g, seat):
        return True
    return api.path_uses(api.plan(g), n, taken) >= 1


@njit(cache=True)
def play_greedy(g, seat, support_hand):
    """Greedy's turn after the draw: open if the hand reaches the required value, then lay down,
    swap and lay off everything it can; returns the discard.  With ``hand_waives_threshold`` a hand
    that cannot open goes out as a Hand when it can (:func:`api.plan_hand`); so does one that may not
    open in this turn (``opening_requires_discard_pickup`` without the top discard taken)."""
    keep = keep_back(g, seat, support_hand)
    n = 0
    if not api.has_opened(g, seat):
        req = api.required_opening(g, seat)
        allowed = api.opening_allowed(g, seat)
        waives = api.rule(g, api.R_HAND_WAIVES_THRESHOLD) != 0 or not allowed
        val, n = api.arrange(g, api.hand(g, seat), api.OPEN)
        tried = allowed and val >= req and n > 0
        if tried:
            n = api.plan_melds(g, seat, api.OPEN, req, keep, True)
            if n > 0 and not opening_uses_taken(g, seat, n):
                n = -1  # the card was taken for a Hand (choose_draw_greedy): the opening may not leave it out
            if n > 0:
                api.lay_melds(g, seat, api.plan(g), n)
        if waives and not api.has_opened(g, seat):
            # a Hand of any value; also when the hand reaches the opening value but no opening
            # keeps a legal discard
            k, d = api.plan_hand(g, seat)
            if k > 0:
                api.lay_melds(g, seat, api.plan(g), k)
                return d
            if not tried:
                val, n = api.arrange(g, api.hand(g, seat), api.OPEN)  # the plan choose_discard reads
        if not api.has_opened(g, seat):
            return choose_discard(g, seat, api.plan(g), n if n > 0 else 0)
    table_play(g, seat, keep)
    if api.hand_count(g, seat) == 0:
        return api.NO_DISCARD
    return choose_discard(g, seat, api.plan(g), 0)


@njit(cache=True)
def choose_draw_greedy(g, seat, support_hand):
    """Take the top discard when it helps: unopened, only when the opening then uses it (or, with
    ``hand_waives_threshold``, a Hand of any value); opened, when it can be laid off or swapped in
    (``must_open``) or joins a new meld."""
    top = api.top_discard(g)
    if top == api.NO_CARD:
        return api.DRAW_STOCK
    opened = api.has_opened(g, seat)
    if opened and not api.pickup_needs_new_meld(g, seat):
        if api.layoff_meld(g, top) >= 0 or api.swap_meld(g, top) >= 0:
            return api.DRAW_DISCARD
    api.pretend_take(g, seat)
    ok = False
    if api.could_meld(g, api.hand(g, seat), top):  # else no plan uses it: no search needed
        keep = keep_back(g, seat, support_hand)
        if opened:
            n = api.plan_melds(g, seat, api.DEADWOOD, 1, keep, True)
        else:
            n = api.plan_melds(g, seat, api.OPEN, api.next_opening(g), keep, True)
        ok = n > 0 and api.path_uses(api.plan(g), n, top) >= 1
        if not ok and not opened and api.rule(g, api.R_HAND_WAIVES_THRESHOLD) != 0:
            n, d = api.plan_hand(g, seat)  # hand_waives_threshold: a Hand with it, however low
            ok = n > 0 and api.path_uses(api.plan(g), n, top) >= 1
    api.undo_take(g, seat)
    return api.DRAW_DISCARD if ok else api.DRAW_STOCK


@njit(cache=True)
def choose_draw(g, seat):
    return choose_draw_greedy(g, seat, np.bool_(api.param(g, seat, SUPPORT_HAND) != 0))


@njit(cache=True)
def play(g, seat):
    return play_greedy(g, seat, np.bool_(api.param(g, seat, SUPPORT_HAND) != 0))


POLICY = Policy(
    "greedy",
    help="Opens as soon as the hand reaches the required value, lays down and lays off everything it "
         "can, takes the discard when it helps (unopened: only when it can then open with it), "
         "discards its highest-value card that is in no meld (ties: fewest meld partners) and keeps jokers. "
         "Team option (2 v 2): with support_hand=1, once it has laid down it does not go out while its "
         "partner still plays for a Hand (a hold-hand player that has laid nothing and not given up): it "
         "keeps two cards back so that the partner's Hand, which doubles both opponents, can still come.",
    params=(
        Param("support_hand", 0, 0, 1, unit="0/1",
              help="2 v 2 only: 1 = hold back from going out while the partner plays for a Hand"),
    ),
    choose_draw=choose_draw,
    play=play,
)
SUPPORT_HAND = POLICY.slot("support_hand")
