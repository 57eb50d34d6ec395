"""``my-greedy``: the built-in ``greedy`` policy written again as a user policy file.

It uses nothing but the public policy API (``handsim.policies.api``) and plays every deal exactly
as the built-in ``greedy`` does (``tests/test_user_policies.py`` replays the golden deals with it).
Start from this file to write your own policy:

    handsim check-policy examples/policies/greedy_copy.py my-greedy        # legal everywhere?
    handsim simulate --policy-file examples/policies/greedy_copy.py \
        --lineup my-greedy,greedy,greedy,greedy --deals 20000                 # how does it score?

The contract (docs/policies.md): every decision function is compiled with ``@njit`` and takes
``(g, seat)`` - ``g`` is the table, which a policy reads and changes only through ``api``
functions, never through its fields.  ``choose_draw`` returns ``api.DRAW_STOCK`` or
``api.DRAW_DISCARD``; ``play`` lays melds, lays off and swaps jokers through the API's moves and
returns the card to discard (``api.NO_DISCARD`` when the hand is empty).  ``cache=True`` keeps the
compiled code between runs.
"""

from numba import njit

from handsim.policies import Param, Policy, api


# --------------------------------------------------------------------------- the discard


@njit(cache=True)
def connections(g, seat, t):
    """How many cards of the hand could meld with natural ``t``: the same rank in another suit,
    or the same suit within two ranks (K and A are neighbours).  Fewer = a worse card to keep."""
    if t == api.JOKER:
        return 0
    h = api.hand(g, seat)  # our own cards: counts by card type, 53 entries (read only)
    s = api.suit_of(t)
    r = api.rank_of(t) - 1  # 0 = Ace .. 12 = King
    c = 0
    for s2 in range(api.N_SUITS):
        if s2 != s:
            c += h[api.card_of(s2, r + 1)]
    for d in (-2, -1, 1, 2):
        q = r + d
        if q == api.N_RANKS:
            q = 0  # K-A
        if 0 <= q < api.N_RANKS:
            c += h[api.card_of(s, q + 1)]
    return c


@njit(cache=True)
def choose_discard(g, seat, path, n):
    """The card to throw: the highest-value card outside the first ``n`` melds of ``path``
    (ties: fewest meld partners), then any natural, jokers last - never an illegal discard."""
    best = api.NO_DISCARD
    bestkey = -1 << 30
    h = api.hand(g, seat)
    for pass_ in range(3):  # 0: naturals outside the melds; 1: any natural; 2: jokers
        for t in range(api.N_TYPES):
            if h[t] == 0 or (t == api.JOKER) != (pass_ == 2):
                continue
            if pass_ == 0 and n > 0 and h[t] - api.path_uses(path, n, t) <= 0:
                continue  # every copy of t is in a meld of the plan
            if not api.discard_is_legal(g, seat, t):  # e.g. the card just taken from the pile
                continue
            key = api.card_points(g, t) * 16 - min(connections(g, seat, t), 15)
            if key > bestkey:
                bestkey = key
                best = t
        if best >= 0:
            return best
    return best


# --------------------------------------------------------------------------- the table


@njit(cache=True)
def do_swaps(g, seat):
    """Take every joker off the table for which we hold the natural card it stands for."""
    if api.rule(g, api.R_JOKER_SWAP) == 0:
        return 0
    done = 0
    h = api.hand(g, seat)
    for k in range(api.table_count(g)):
        again = True
        while again:
            again = False
            for t in range(api.N_NATURALS):
                if h[t] > 0 and api.swap_target(g, k, t) != api.NO_TARGET:
                    if api.swap_joker(g, seat, k, t):  # the joker comes to our hand
                        done += 1
                        again = True
                        break
    return done


@njit(cache=True)
def discard_left_after(g, seat, t):
    """Would we still have a legal discard (or no card at all) after ``t`` goes to the table?"""
    if api.hand_count(g, seat) <= 1:
        return True
    return api.legal_discard_after_card(g, seat, t)


@njit(cache=True)
def do_layoffs(g, seat, keep):
    """Lay off while more than ``keep`` cards remain: first the card taken from the pile (it may
    not be discarded this turn), then the highest-value cards."""
    h = api.hand(g, seat)
    t = api.taken_card(g)
    if t != api.NO_CARD and h[t] > 0 and api.hand_count(g, seat) > keep:
        for k in range(api.table_count(g)):
            if api.layoff_target(g, k, t) != api.NO_TARGET:
                api.lay_off(g, seat, k, t)
                break
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
            for k in range(api.table_count(g)):
                if api.layoff_target(g, k, t) != api.NO_TARGET:
                    if discard_left_after(g, seat, t):
                        bt, bk, bv = t, k, v
                    break
        if bt < 0 or not api.lay_off(g, seat, bk, bt):
            break


@njit(cache=True)
def keep_back(g, seat):
    """Cards to keep after laying down: 2 while our partner (2 v 2, with support_hand=1) still plays
    for a Hand and we have laid down before; 1 when the last card must be a discard; else 0."""
    if api.param(g, seat, SUPPORT_HAND) != 0 and api.partnership(g) and api.laid_before(g, seat) \
            and api.partner_playing_for_hand(g, seat):
        return 2
    return 1 if api.go_out_needs_discard(g) else 0


# --------------------------------------------------------------------------- the decisions


@njit(cache=True)
def choose_draw(g, seat):
    """Take the top discard when it helps: unopened, only if the opening then uses it; opened, if
    it can be laid off or swapped in (pickup rule must_open) or goes into a new meld."""
    top = api.top_discard(g)
    if top == api.NO_CARD:
        return api.DRAW_STOCK
    if not api.has_opened(g, seat):
        api.pretend_take(g, seat)  # plan as if we had taken it ...
        n = api.plan_melds(g, seat, api.OPEN, api.next_opening(g), keep_back(g, seat), True)
        ok = n > 0 and api.path_uses(api.plan(g), n, top) >= 1
        if not ok and api.rule(g, api.R_HAND_WAIVES_THRESHOLD) != 0:  # a Hand opens however low
            n, d = api.plan_hand(g, seat)
            ok = n > 0 and api.path_uses(api.plan(g), n, top) >= 1
        api.undo_take(g, seat)  # ... and always undo before returning
        return api.DRAW_DISCARD if ok else api.DRAW_STOCK
    if not api.pickup_needs_new_meld(g, seat):  # it may lay the card off (must_open, must_open_using)
        for k in range(api.table_count(g)):
            if api.layoff_target(g, k, top) != api.NO_TARGET or api.swap_target(g, k, top) != api.NO_TARGET:
                return api.DRAW_DISCARD
    api.pretend_take(g, seat)
    n = api.plan_melds(g, seat, api.DEADWOOD, 1, keep_back(g, seat), True)
    ok = n > 0 and api.path_uses(api.plan(g), n, top) >= 1
    api.undo_take(g, seat)
    return api.DRAW_DISCARD if ok else api.DRAW_STOCK


@njit(cache=True)
def play(g, seat):
    """Open as soon as the hand is worth the required points; once opened lay down every meld of
    the least-deadwood arrangement, swap jokers, lay off; then throw the highest card."""
    keep = keep_back(g, seat)
    n = 0
    if not api.has_opened(g, seat):
        req = api.required_opening(g, seat)
        # opening_requires_discard_pickup: no opening but a Hand in a turn that took no discard
        allowed = api.opening_allowed(g, seat)
        waives = api.rule(g, api.R_HAND_WAIVES_THRESHOLD) != 0 or not allowed
        val, n = api.arrange(g, api.hand(g, seat), api.OPEN)  # most opening value
        tried = allowed and val >= req and n > 0
        if tried:
            n = api.plan_melds(g, seat, api.OPEN, req, keep, True)  # ... keeping a legal discard
            taken = api.taken_card(g)
            if (n > 0 and taken != api.NO_CARD and api.pickup_needs_new_meld(g, seat)
                    and api.path_uses(api.plan(g), n, taken) == 0):
                n = -1  # the taken card must go into a new meld (new_meld_only, must_open_using, ...)
            if n > 0:
                api.lay_melds(g, seat, api.plan(g), n)
        if waives and not api.has_opened(g, seat):  # a Hand opens however low: go out
            k, d = api.plan_hand(g, seat)
            if k > 0:
                api.lay_melds(g, seat, api.plan(g), k)
                return d
            if not tried:
                val, n = api.arrange(g, api.hand(g, seat), api.OPEN)  # the plan choose_discard reads
        if not api.has_opened(g, seat):
            return choose_discard(g, seat, api.plan(g), n if n > 0 else 0)
    if api.may_touch_table(g, seat):
        n = api.plan_melds(g, seat, api.DEADWOOD, 1, keep, True)
        if n > 0:
            api.lay_melds(g, seat, api.plan(g), n)
        if do_swaps(g, seat) > 0:
            n = api.plan_melds(g, seat, api.DEADWOOD, 1, keep, True)
            if n > 0:
                api.lay_melds(g, seat, api.plan(g), n)
        do_layoffs(g, seat, keep)
    if api.hand_count(g, seat) == 0:
        return api.NO_DISCARD  # we went out by laying everything down
    return choose_discard(g, seat, api.plan(g), 0)


# --------------------------------------------------------------------------- the declaration

MY_GREEDY = Policy(
    "my-greedy",
    help="The built-in greedy policy, written as a user policy file through the policy API: opens as soon "
         "as it can, lays down and lays off everything, discards its highest card that is in no meld.",
    params=(
        Param("support_hand", default=0, lo=0, hi=1, unit="0/1",
              help="2 v 2 only: 1 = hold back from going out while the partner plays for a Hand"),
    ),
    choose_draw=choose_draw,
    play=play,
)
SUPPORT_HAND = MY_GREEDY.slot("support_hand")  # the parameter's index for api.param
