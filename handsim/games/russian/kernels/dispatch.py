"""Policy dispatch of the Russian Hand engine, generated from its policy registry by
``python -m handsim.games.russian.policies.registry``: do not edit (a test checks it is current).

Each function calls the decision function of the seat's policy, told apart by its kernel id
(the position of its module in ``handsim.games.russian.policies.registry.BUILTIN_MODULES``).
"""

from numba import njit

from handsim.games.russian.policies.greedy import POLICY as _P0
from handsim.games.russian.policies.patient import POLICY as _P1
from handsim.games.russian.policies.random_play import POLICY as _P2

_p0_play = _P0.play
_p1_play = _P1.play
_p2_play = _P2.play


@njit(cache=True)
def begin_round(g, seat):
    return


@njit(cache=True)
def begin_turn(g, seat):
    return


@njit(cache=True)
def play(g, seat):
    p = g[0].pol[seat]
    if p == 1:
        return _p1_play(g, seat)
    if p == 2:
        return _p2_play(g, seat)
    return _p0_play(g, seat)
