"""``random``: a random legal play or draw, from the deal's own random stream (RULES.md §8).

For testing the rules' corners, not for strategy: it draws in a quarter of its turns even when
it could play (always when nothing can be placed); otherwise it plays a random legal *part* of
what it could place - each card of the best play kept with probability one half, each other
hand card added with probability one eighth, tried up to eight times through the search (a
random choice of layout, the fewest table melds changed or any legal one), else the best play
itself.  So partial plays, plays that leave a lay-off unused and unusual layouts all occur,
and every play it makes is legal by construction of the search.
"""

from numba import njit

from handsim.games.russian.policies import api
from handsim.policies.declare import Policy

TRIES = 8


@njit(cache=True)
def play(g, seat):
    n = api.best_play(g, seat)
    if n == 0 or api.random_below(g, 4) == 0:
        return api.DRAW
    best = api.new_counts()
    for t in range(52):
        best[t] = api.staged_card(g, t)
    cnt = api.new_counts()
    for _ in range(TRIES):
        k = 0
        for t in range(52):
            c = 0
            for _ in range(best[t]):
                if api.random_below(g, 2) == 0:
                    c += 1
            for _ in range(api.hand_count(g, seat, t) - best[t]):
                if api.random_below(g, 8) == 0:
                    c += 1
            cnt[t] = c
            k += c
        if k > 0 and api.try_play(g, seat, cnt, api.random_below(g, 2) == 0):
            return api.PLAY
    if api.try_play(g, seat, best, api.random_below(g, 2) == 0):
        return api.PLAY
    return api.DRAW


POLICY = Policy(
    "random",
    help="A random legal play or draw, from the deal's own random stream, for testing the rules' corners: draws "
         "in a quarter of its turns (always when nothing can be placed), otherwise plays a random legal part of "
         "what it could place, in a random legal layout.",
    play=play,
    game="russian",
)
