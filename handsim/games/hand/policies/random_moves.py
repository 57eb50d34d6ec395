"""``random``: a uniformly random legal choice at every decision, from the deal's own random
stream - for testing the rules' corners (the replay fuzz plays it under every rule option).

Written through :mod:`handsim.games.hand.policies.api` only.
"""

from numba import njit

from handsim.games.hand.policies import api
from handsim.policies.declare import Policy


@njit(cache=True)
def _keep(g):
    return 1 if api.go_out_needs_discard(g) else 0


@njit(cache=True)
def _coin(g):
    return api.rand_below(g, 2) == 1


@njit(cache=True)
def _leaves_discard(g, seat, rem):
    """After ``rem`` (``int8[N_TYPES]`` counts) leaves the hand: empty (and going out without a
    discard is allowed), or some legal discard remains."""
    left = api.hand_count(g, seat)
    for t in range(api.N_TYPES):
        left -= rem[t]
    if left == 0:
        return not api.go_out_needs_discard(g)
    return api.legal_discard_after(g, seat, rem)


@njit(cache=True)
def choose_draw(g, seat):
    """Take the top discard with probability 1/2 whenever taking it is legal and completable."""
    top = api.top_discard(g)
    if top == api.NO_CARD:
        return api.DRAW_STOCK
    opened = api.has_opened(g, seat)
    free = not api.pickup_needs_new_meld(g, seat)  # the card need not go into a new meld
    if opened and free:
        return api.DRAW_DISCARD if _coin(g) else api.DRAW_STOCK
    api.pretend_take(g, seat)
    if opened:
        n = api.plan_melds(g, seat, api.DEADWOOD, 1, _keep(g), False)
    else:
        n = api.plan_melds(g, seat, api.OPEN, api.next_opening(g), _keep(g), False)
    ok = n > 0 and (free or api.path_uses(api.plan(g), n, top) >= 1)
    if ok and not opened:
        # the full opening must leave a legal discard (or go out), since the taken card may
        # be the only card left and it cannot be discarded
        rem = api.scratch(g)
        api.path_counts(api.plan(g), n, rem)
        ok = _leaves_discard(g, seat, rem)
    api.undo_take(g, seat)
    if ok and _coin(g):
        return api.DRAW_DISCARD
    return api.DRAW_STOCK


@njit(cache=True)
def open_randomly(g, seat, forced):
    """Maybe open (always when ``forced``) with a random subset of the best opening melds that
    still reaches the required value (and holds the taken card where :func:`api.pickup_needs_new_meld`)."""
    req = api.next_opening(g)
    n = api.plan_melds(g, seat, api.OPEN, req, _keep(g), False)
    if n <= 0:
        return
    if not forced and not _coin(g):
        return
    path = api.plan(g)
    # random order
    for i in range(n - 1, 0, -1):
        api.swap_melds(path, i, api.rand_below(g, i + 1))
    ace_low = api.rule(g, api.R_ACE_LOW)
    ace = api.rule(g, api.R_ACE)
    take = 0
    total = 0
    top = api.taken_card(g)
    need_top = top != api.NO_CARD and api.pickup_needs_new_meld(g, seat)
    # chosen melds are moved to the front
    for i in range(n):
        pick = _coin(g)
        if need_top and api.meld_uses(path[i], top) > 0:
            pick = True
        if pick:
            api.swap_melds(path, i, take)
            total += api.meld_value(path[take], ace_low, ace)
            take += 1
    i = take
    while total < req and i < n:
        total += api.meld_value(path[i], ace_low, ace)
        take += 1
        i += 1
    rem = api.scratch(g)
    api.path_counts(path, take, rem)
    if not _leaves_discard(g, seat, rem):
        take = n  # the whole opening leaves a legal discard (checked when the card was taken)
    api.lay_melds(g, seat, path, take)


@njit(cache=True)
def table_play(g, seat):
    """Random legal lay-downs, lay-offs and joker swaps, stopping with probability 1/3."""
    if not api.may_touch_table(g, seat):
        return
    h = api.hand(g, seat)
    rem = api.scratch(g)
    top = api.taken_card(g)
    if top != api.NO_CARD and api.taken_card_melded(g) == 0 and api.pickup_needs_new_meld(g, seat):
        n = api.plan_melds(g, seat, api.DEADWOOD, 1, _keep(g), False)
        path = api.plan(g)
        for i in range(n):
            if api.meld_uses(path[i], top) > 0:
                api.lay_melds(g, seat, path[i:], 1)
                break
    for _ in range(40):
        if api.rand_below(g, 3) == 0:
            return
        nm = api.table_count(g)
        # count the legal actions
        nlay = 0
        nswap = 0
        for t in range(api.N_TYPES):
            if h[t] == 0:
                continue
            for k in range(nm):
                if api.layoff_target(g, k, t) != api.NO_TARGET:
                    nlay += 1
                if api.swap_target(g, k, t) != api.NO_TARGET:
                    nswap += 1
        nnew = api.plan_melds(g, seat, api.DEADWOOD, 1, _keep(g), False)
        if nnew < 0:
            nnew = 0
        total = nlay + nswap + nnew
        if total == 0:
            return
        a = api.rand_below(g, total)
        if a < nnew:
            path = api.plan(g)
            api.path_counts(path[a:], 1, rem)
            if _leaves_discard(g, seat, rem):
                api.lay_melds(g, seat, path[a:], 1)
            continue
        a -= nnew
        idx = 0
        found = False
        for t in range(api.N_TYPES):
            if h[t] == 0:
                continue
            for k in range(nm):
                if api.layoff_target(g, k, t) != api.NO_TARGET:
                    if idx == a:
                        rem[:] = 0
                        rem[t] = 1
                        if _leaves_discard(g, seat, rem):
                            api.lay_off(g, seat, k, t)
                        found = True
                        break
                    idx += 1
                if api.swap_target(g, k, t) != api.NO_TARGET:
                    if idx == a:
                        api.swap_joker(g, seat, k, t)
                        found = True
                        break
                    idx += 1
            if found:
                break


@njit(cache=True)
def random_discard(g, seat):
    """A uniformly random legal discard (``api.NO_DISCARD`` if none)."""
    h = api.hand(g, seat)
    n = 0
    for t in range(api.N_TYPES):
        if h[t] > 0 and api.discard_is_legal(g, seat, t):
            n += h[t]
    if n == 0:
        return api.NO_DISCARD
    a = api.rand_below(g, n)
    for t in range(api.N_TYPES):
        if h[t] > 0 and api.discard_is_legal(g, seat, t):
            if a < h[t]:
                return t
            a -= h[t]
    return api.NO_DISCARD


@njit(cache=True)
def play(g, seat):
    if not api.has_opened(g, seat) and api.opening_allowed(g, seat):
        open_randomly(g, seat, api.taken_card(g) != api.NO_CARD)
    if api.has_opened(g, seat):
        table_play(g, seat)
    if api.hand_count(g, seat) == 0:
        return api.NO_DISCARD
    return random_discard(g, seat)


POLICY = Policy(
    "random",
    help="Plays a uniformly random legal move at each decision (draw source, whether and with which melds "
         "to open, lay-downs, lay-offs, joker swaps, the discard), from the deal's own random stream; "
         "exercises the rare corners of the rules.",
    choose_draw=choose_draw,
    play=play,
)
