"""``joker-keeper``: greedy, except that it keeps its jokers in hand until it can go out.

A joker on the table is one the next players can swap out and use; a joker in hand costs
``joker_penalty`` points (15 or 30) if someone else goes out first.  This policy bets on the
first: while it holds a joker, and until its own turn ``release_turn``, it lays down and lays off
natural cards only - unless the whole hand can go down now, jokers and all (and it took no card
from the pile on the plan of its natural cards), in which case it plays like greedy and goes out.  From turn ``release_turn`` on it is plain greedy.

    handsim check-policy examples/policies/joker_keeper.py joker-keeper
    handsim simulate --policy-file examples/policies/joker_keeper.py \
        --lineup joker-keeper,greedy,greedy,greedy --joker-penalty 15 --joker-penalty 30

It shows the policy API at work on a count vector that is not the hand (``api.arrange`` of the
hand without its jokers, in ``api.scratch``), and reuses pieces of the built-in greedy policy
(``handsim.policies.greedy``), which are written through the same API.
"""

from numba import njit

from handsim.policies import Param, Policy, api
from handsim.policies.greedy import NO_SUPPORT, choose_discard, choose_draw_greedy, do_swaps, play_greedy


@njit(cache=True)
def hiding(g, seat):
    """Whether the jokers stay in hand this turn: it is before ``release_turn`` and it holds a
    joker other than one just taken from the discard pile (``choose_draw`` decided to take that
    one as greedy does, with greedy's plan: ``play`` must follow that plan)."""
    jokers = api.hand(g, seat)[api.JOKER] - (1 if api.taken_card(g) == api.JOKER else 0)
    return jokers > 0 and api.own_turns(g, seat) < api.param(g, seat, RELEASE_TURN)


@njit(cache=True)
def naturals(g, seat):
    """The hand without its jokers, as counts in ``api.scratch(g)``."""
    cards = api.scratch(g)
    cards[:] = api.hand(g, seat)
    cards[api.JOKER] = 0
    return cards


@njit(cache=True)
def can_go_out(g, seat):
    """Whether the whole hand - jokers included - melds now, but for at most one card to discard,
    with enough points to open if it has not opened yet."""
    w, n = api.arrange(g, api.hand(g, seat), api.COUNT)  # most cards melded, then most value
    melded = w // api.COUNT_BONUS
    value = w - melded * api.COUNT_BONUS
    return melded >= api.hand_count(g, seat) - 1 and value >= api.required_opening(g, seat)


@njit(cache=True)
def natural_plan_uses(g, seat, mode, req, card):
    """Does the best arrangement of the natural cards under ``mode`` reach ``req`` points and use ``card``?"""
    w, n = api.arrange(g, naturals(g, seat), mode)
    return n > 0 and w >= req and api.path_uses(api.plan(g), n, card) > 0


@njit(cache=True)
def choose_draw(g, seat):
    if not hiding(g, seat):
        return choose_draw_greedy(g, seat, NO_SUPPORT)
    top = api.top_discard(g)
    if top == api.NO_CARD:
        return api.DRAW_STOCK
    opened = api.has_opened(g, seat)
    if top == api.JOKER:
        # a joker is worth taking once opened, where it need not go into a meld at once
        return api.DRAW_DISCARD if opened and api.pickup_must_open(g) else api.DRAW_STOCK
    api.pretend_take(g, seat)
    if not opened:
        ok = natural_plan_uses(g, seat, api.OPEN, api.next_opening(g), top)  # it opens with it
    else:
        ok = natural_plan_uses(g, seat, api.DEADWOOD, 1, top)  # it goes into a new meld
    api.undo_take(g, seat)
    return api.DRAW_DISCARD if ok else api.DRAW_STOCK


@njit(cache=True)
def lay_off_naturals(g, seat):
    """Lay off natural cards, the highest first, keeping a legal discard."""
    h = api.hand(g, seat)
    while True:
        bt = -1
        bk = -1
        for t in range(api.N_NATURALS - 1, -1, -1):
            if h[t] == 0 or (bt >= 0 and api.card_points(g, t) <= api.card_points(g, bt)):
                continue
            for k in range(api.table_count(g)):
                if api.layoff_target(g, k, t) != api.NO_TARGET and api.legal_discard_after_card(g, seat, t):
                    bt, bk = t, k
                    break
        if bt < 0 or not api.lay_off(g, seat, bk, bt):
            return


@njit(cache=True)
def play(g, seat):
    # release the jokers and go out if greedy can - unless a card was taken from the pile with the
    # plan of the natural cards (choose_draw above): that plan must be followed, since the taken
    # card must go into an opening (must_open) or a new meld (new_meld_only) this turn
    if not hiding(g, seat) or (can_go_out(g, seat) and api.taken_card(g) == api.NO_CARD):
        return play_greedy(g, seat, NO_SUPPORT)
    n = 0
    if not api.has_opened(g, seat):
        req = api.required_opening(g, seat)
        w, n = api.arrange(g, naturals(g, seat), api.OPEN)
        if n > 0 and w >= req and api.opening_allowed(g, seat):  # (opening_requires_discard_pickup)
            api.lay_melds(g, seat, api.plan(g), n)  # an opening: all its melds at once; the jokers stay
        if not api.has_opened(g, seat):
            return choose_discard(g, seat, api.plan(g), n)
    if api.may_touch_table(g, seat):
        w, n = api.arrange(g, naturals(g, seat), api.DEADWOOD)
        path = api.plan(g)
        rem = api.scratch(g)
        for i in range(n):  # one meld at a time, each only if a legal discard is left after it
            api.path_counts(path[i:], 1, rem)
            if api.legal_discard_after(g, seat, rem):
                api.lay_melds(g, seat, path[i:], 1)
        do_swaps(g, seat)  # jokers taken off the table join the others in hand
        lay_off_naturals(g, seat)
    return choose_discard(g, seat, api.plan(g), 0)  # a natural if it has one: jokers go last


JOKER_KEEPER = Policy(
    "joker-keeper",
    help="Greedy, but while it holds a joker and before its own turn release_turn it lays down and lays off "
         "natural cards only, keeping the jokers for the turn it can go out (then, or from release_turn on, it "
         "plays greedy).",
    params=(
        Param("release_turn", default=12, lo=1, hi=1000, unit="own turns",
              help="from this own turn on it lays its jokers down like greedy"),
    ),
    choose_draw=choose_draw,
    play=play,
)
RELEASE_TURN = JOKER_KEEPER.slot("release_turn")
