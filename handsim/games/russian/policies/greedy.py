"""``greedy``: plays whenever it can place cards, as many as it can (RULES.md §8).

Every turn it asks the exact rearrangement search for the play that places the most of its
cards (then the highest value) and plays it; it draws only when no card can be placed.
"""

from numba import njit

from handsim.games.russian.policies import api
from handsim.policies.declare import Policy


@njit(cache=True)
def play(g, seat):
    if api.best_play(g, seat) > 0:
        return api.PLAY
    return api.DRAW


POLICY = Policy(
    "greedy",
    help="Plays whenever it can place cards, the play that places the most of them (then the highest value; "
         "the exact table-rearrangement search); draws only when no card can be placed.",
    play=play,
    game="russian",
)
