"""``patient``: greedy, but it holds back small plays while it can still draw (RULES.md §8).

A play that places at most ``hold_max`` cards (default 1: a single lay-off) is held back - the
player draws instead - while the stock holds at least ``stock_min`` cards and every other
player holds more than ``wary_at`` cards.  A play that empties its hand is never held back.
"""

from numba import njit

from handsim.games.russian.policies import api
from handsim.policies.declare import Param, Policy


@njit(cache=True)
def play(g, seat):
    n = api.best_play(g, seat)
    if n == 0:
        return api.DRAW
    if n == api.cards_held(g, seat):
        return api.PLAY  # goes out
    if (n <= api.param(g, seat, HOLD_MAX) and api.stock_left(g) >= api.param(g, seat, STOCK_MIN)
            and api.fewest_cards_of_others(g, seat) > api.param(g, seat, WARY_AT)):
        return api.DRAW
    return api.PLAY


POLICY = Policy(
    "patient",
    help="Greedy, but it holds back a play of at most hold_max cards (default 1: a single lay-off) and draws "
         "instead, while the stock holds at least stock_min cards and every other player holds more than "
         "wary_at cards; a play that empties its hand is never held back.",
    params=(
        Param("hold_max", default=1, lo=0, hi=20, unit="cards",
              help="the largest play it holds back (0: never holds back, plays like greedy)"),
        Param("stock_min", default=1, lo=1, hi=104, unit="cards",
              help="holds back only while the stock holds at least this many cards"),
        Param("wary_at", default=0, lo=0, hi=104, unit="cards",
              help="plays anyway once another player holds this many cards or fewer (0: never)"),
    ),
    play=play,
    game="russian",
)
HOLD_MAX = POLICY.slot("hold_max")
STOCK_MIN = POLICY.slot("stock_min")
WARY_AT = POLICY.slot("wary_at")
