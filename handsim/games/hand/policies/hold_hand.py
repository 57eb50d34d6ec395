"""``hold-hand``: lay nothing down until the whole hand can go out in one turn (a Hand), and give
up the Hand (then play like ``greedy``) after some turns, when an opponent is close to going out,
or (optionally) when the hand is still far from a Hand late in the round.

Written through :mod:`handsim.games.hand.policies.api` only.  It publishes that it plays for a Hand
(``api.set_playing_for_hand``), which a ``greedy:support_hand=1`` partner reads.
"""

from numba import njit

from handsim.games.hand.policies import api
from handsim.policies.declare import Param, Policy
from handsim.games.hand.policies.greedy import NO_SUPPORT, choose_discard, choose_draw_greedy, play_greedy

M_BAILED = 0  # memory slot: 1 once it gave up the Hand


@njit(cache=True)
def bailed(g, seat):
    return api.memory(g, seat)[M_BAILED] != 0


@njit(cache=True)
def bail(g, seat):
    api.memory(g, seat)[M_BAILED] = 1
    api.set_playing_for_hand(g, seat, False)


@njit(cache=True)
def begin_round(g, seat):
    api.set_playing_for_hand(g, seat, True)


@njit(cache=True)
def distance(g, seat):
    """How many cards ``seat``'s hand is from going out at once: the cards that the arrangement
    with the most cards melded leaves over, less the one card a player may discard (0 when the
    hand could go out now, opening value and ``hand_min_new_meld_cards`` aside)."""
    w, n = api.arrange(g, api.hand(g, seat), api.COUNT)
    melded = w // api.COUNT_BONUS
    return max(0, api.hand_count(g, seat) - melded - 1)


@njit(cache=True)
def begin_turn(g, seat):
    """Give up the Hand after ``bail_turn`` own turns, once an opponent (not the partner) holds
    ``bail_opponent_cards`` cards or fewer, or - with ``distance_turn`` > 0 - from own turn
    ``distance_turn`` on, while the hand is more than ``max_distance`` cards from going out at once
    (before the draw)."""
    if bailed(g, seat):
        return
    if api.own_turns(g, seat) >= api.param(g, seat, BAIL_TURN):
        bail(g, seat)
        return
    for s in range(api.players(g)):
        if api.is_opponent(g, seat, s) and api.hand_count(g, s) <= api.param(g, seat, BAIL_OPPONENT_CARDS):
            bail(g, seat)
            return
    t = api.param(g, seat, DISTANCE_TURN)
    if t > 0 and api.own_turns(g, seat) >= t and distance(g, seat) > api.param(g, seat, MAX_DISTANCE):
        bail(g, seat)


@njit(cache=True)
def choose_draw(g, seat):
    """Take the top discard only when it makes the Hand now."""
    if bailed(g, seat) or api.laid_before(g, seat):
        return choose_draw_greedy(g, seat, NO_SUPPORT)
    top = api.top_discard(g)
    if top == api.NO_CARD:
        return api.DRAW_STOCK
    api.pretend_take(g, seat)
    ok = False
    if api.could_meld(g, api.hand(g, seat), top):  # else no plan uses it: no search needed
        n, d = api.plan_hand(g, seat)
        ok = n > 0 and api.path_uses(api.plan(g), n, top) >= 1
    api.undo_take(g, seat)
    return api.DRAW_DISCARD if ok else api.DRAW_STOCK


@njit(cache=True)
def play(g, seat):
    """Go out at once if the hand makes a Hand; otherwise lay nothing and throw the card that
    fits least into the arrangement with the most cards melded."""
    if bailed(g, seat) or api.laid_before(g, seat):
        return play_greedy(g, seat, NO_SUPPORT)
    # the arrangement first: plan_hand then finds it remembered, and so does the second call
    api.arrange(g, api.hand(g, seat), api.COUNT)
    n, d = api.plan_hand(g, seat)
    if n > 0:
        api.lay_melds(g, seat, api.plan(g), n)
        return d
    w, k = api.arrange(g, api.hand(g, seat), api.COUNT)
    return choose_discard(g, seat, api.plan(g), k)


POLICY = Policy(
    "hold-hand",
    help="Lays nothing down until it can go out in one turn (a Hand); takes the discard only when that "
         "makes the Hand; it gives up the Hand and plays like greedy at the first of: bail_turn of its own "
         "turns played, an opponent holding bail_opponent_cards cards or fewer, or (with distance_turn > 0) "
         "from its own turn distance_turn on, the hand still more than max_distance cards from going out at once.",
    params=(
        Param("bail_turn", 10, 1, 1000, unit="own turns",
              help="own turns after which it gives up the Hand and plays greedy"),
        Param("bail_opponent_cards", 5, 0, 30, unit="cards",
              help="gives up the Hand once an opponent holds this many cards or fewer (0: never)"),
        Param("distance_turn", 0, 0, 1000, unit="own turns",
              help="from this own turn on, gives up the Hand while the hand is more than max_distance cards "
                   "from going out at once (cards the most-cards arrangement leaves over, less one discard, "
                   "counted before the draw); 0: never"),
        Param("max_distance", 3, 0, 30, unit="cards",
              help="the distance from going out at once that it still plays for a Hand with, from own turn "
                   "distance_turn on"),
    ),
    begin_round=begin_round,
    begin_turn=begin_turn,
    choose_draw=choose_draw,
    play=play,
)
BAIL_TURN = POLICY.slot("bail_turn")
BAIL_OPPONENT_CARDS = POLICY.slot("bail_opponent_cards")
DISTANCE_TURN = POLICY.slot("distance_turn")
MAX_DISTANCE = POLICY.slot("max_distance")
