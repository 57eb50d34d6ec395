"""Policy dispatch of the built-in engine, generated from the policy registry by
``python -m handsim.games.hand.policies.engines``: do not edit (tests/test_policy_layer.py checks it is current).

Each function calls the decision function of the seat's policy, told apart by its kernel id
``g.pol[seat]`` (the position of its module in ``handsim.games.hand.policies.registry.BUILTIN_MODULES``).
"""

from numba import njit

from handsim.games.hand.policies.greedy import POLICY as _P0
from handsim.games.hand.policies.hold_hand import POLICY as _P1
from handsim.games.hand.policies.random_moves import POLICY as _P2
from handsim.games.hand.policies.card_reader import POLICY as _P3
from handsim.games.hand.policies.sampler import POLICY as _P4
from handsim.games.hand.policies.searcher import POLICY as _P5

_p0_choose_draw = _P0.choose_draw
_p0_play = _P0.play
_p1_begin_round = _P1.begin_round
_p1_begin_turn = _P1.begin_turn
_p1_choose_draw = _P1.choose_draw
_p1_play = _P1.play
_p2_choose_draw = _P2.choose_draw
_p2_play = _P2.play
_p3_begin_turn = _P3.begin_turn
_p3_choose_draw = _P3.choose_draw
_p3_play = _P3.play
_p4_begin_turn = _P4.begin_turn
_p4_choose_draw = _P4.choose_draw
_p4_play = _P4.play
_p5_begin_turn = _P5.begin_turn
_p5_choose_draw = _P5.choose_draw
_p5_play = _P5.play


@njit(cache=True)
def begin_round(g, seat):
    p = g.pol[seat]
    if p == 1:
        _p1_begin_round(g, seat)


@njit(cache=True)
def begin_turn(g, seat):
    p = g.pol[seat]
    if p == 1:
        _p1_begin_turn(g, seat)
    if p == 3:
        _p3_begin_turn(g, seat)
    if p == 4:
        _p4_begin_turn(g, seat)
    if p == 5:
        _p5_begin_turn(g, seat)


@njit(cache=True)
def choose_draw(g, seat):
    p = g.pol[seat]
    if p == 1:
        return _p1_choose_draw(g, seat)
    if p == 2:
        return _p2_choose_draw(g, seat)
    if p == 3:
        return _p3_choose_draw(g, seat)
    if p == 4:
        return _p4_choose_draw(g, seat)
    if p == 5:
        return _p5_choose_draw(g, seat)
    return _p0_choose_draw(g, seat)


@njit(cache=True)
def play(g, seat):
    p = g.pol[seat]
    if p == 1:
        return _p1_play(g, seat)
    if p == 2:
        return _p2_play(g, seat)
    if p == 3:
        return _p3_play(g, seat)
    if p == 4:
        return _p4_play(g, seat)
    if p == 5:
        return _p5_play(g, seat)
    return _p0_play(g, seat)
