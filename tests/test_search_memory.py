"""The table's shortcuts give what the long way gives: remembered arrangement searches (with
floors) equal fresh searches, and the first meld a card fits found from the table's index of runs
and sets equals asking every meld."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from handsim._kernels import arrange as A
from handsim._kernels import state as S
from handsim._kernels.rng import shuffle
from handsim.policies import api
from handsim.rules import Rules


@njit(cache=True)
def _ask(arr, hand, mode, floor, out):
    """``hand_search_above`` on the table; ``out`` gets weight, melds and the melds' rows."""
    g = arr[0]
    v, n = S.hand_search_above(g, hand, mode, floor)
    out[0] = v
    out[1] = n
    for i in range(n):
        for k in range(6):
            out[2 + 6 * i + k] = g.bestpath[i, k]
    return arr.shape[0]


def _fresh(hand, W, floor):
    path = np.zeros((A.MAX_MELDS, 6), np.int32)
    best = np.zeros((A.MAX_MELDS, 6), np.int32)
    b = np.zeros(2, np.int64)
    v, n = A.search(hand, W, path, best, b, floor)
    out = np.zeros(2 + 6 * A.MAX_MELDS, np.int64)
    out[0], out[1] = v, n
    out[2:2 + 6 * n] = best[:n].ravel()
    return out


@pytest.mark.parametrize("preset", ["classic", "qahwa"])
def test_remembered_searches_answer_exactly_like_fresh_ones(preset):
    rules = Rules.preset(preset)
    rv = rules.to_vector()
    arr = S.new_game(4, rv, False)
    g = arr[0]
    rng = np.random.default_rng(7)
    deck = np.array([t for t in range(52) for _ in range(2)] + [52] * rules.jokers)
    hands = []
    for _ in range(12):
        h = np.zeros(53, np.int8)
        for c in rng.choice(deck, int(rng.integers(5, 16)), replace=False):
            h[c] += 1
        hands.append(h)
    hits = 0
    out = np.zeros(2 + 6 * A.MAX_MELDS, np.int64)
    for step in range(400):
        hand = hands[int(rng.integers(0, len(hands)))]
        mode = int(rng.integers(0, 3))
        full = _fresh(hand, g["W"][mode], -1)
        floor = int(rng.choice([-1, full[0] - 1, full[0], full[0] // 2, full[0] + 5]))
        out[:] = 0
        g["path"][:] = -7  # a search writes its workspace; an answer from memory does not
        _ask(arr, hand, mode, floor, out)
        hits += int((g["path"] == -7).all())
        assert (out == _fresh(hand, g["W"][mode], floor)).all(), (step, mode, floor)
    assert hits > 100  # 12 hands x 3 modes, 400 questions: most are answered from memory


@njit(cache=True)
def _table(arr, rv, seed, firsts):
    """Lay random melds (least-deadwood arrangements of random 40-card hands) on a table, then
    ``firsts[t] = (layoff_meld, swap_meld, first k with a layoff_target, first with a swap_target)``."""
    g = arr[0]
    S.reset_round(g, 0, np.uint64(seed))
    g.seat[0, S.Q_OPENED] = 1
    st = np.empty(1, np.uint64)
    st[0] = np.uint64(seed)
    deck = np.empty(108, np.int8)
    for t in range(52):
        deck[2 * t] = t
        deck[2 * t + 1] = t
    for i in range(104, 108):
        deck[i] = 52
    shuffle(deck, 104 + rv[S.P_JOKERS], st)
    g.hands[0, :] = 0
    for i in range(40):
        g.hands[0, deck[i]] += 1
    g.hand_n[0] = 40
    v, n = S.hand_search(g, g.hands[0], A.DEAD)
    S.lay_melds(g, 0, g.bestpath, n)
    for t in range(53):
        firsts[t, 0] = api.layoff_meld(g, t)
        firsts[t, 1] = api.swap_meld(g, t)
        firsts[t, 2] = -1
        firsts[t, 3] = -1
        for k in range(api.table_count(g)):
            if firsts[t, 2] < 0 and api.layoff_target(g, k, t) != api.NO_TARGET:
                firsts[t, 2] = k
            if firsts[t, 3] < 0 and api.swap_target(g, k, t) != api.NO_TARGET:
                firsts[t, 3] = k
    return api.table_count(g)


@pytest.mark.parametrize("preset", ["classic", "qahwa"])
def test_first_meld_a_card_fits_is_the_first_that_every_meld_asked_gives(preset):
    rv = Rules.preset(preset).to_vector()
    arr = S.new_game(4, rv, False)
    firsts = np.zeros((53, 4), np.int64)
    found = 0
    for seed in range(40):
        melds = _table(arr, rv, seed, firsts)
        assert melds >= 3
        assert (firsts[:, 0] == firsts[:, 2]).all(), seed
        assert (firsts[:, 1] == firsts[:, 3]).all(), seed
        found += int((firsts[:, 0] >= 0).sum() + (firsts[:, 1] >= 0).sum())
    assert found > 200  # the tables take many cards, and some swaps


@njit(cache=True)
def _could_meld_vs_plans(arr, hand, out):
    """For every card type held: ``out[t, 0]`` could_meld, ``out[t, 1..3]`` copies of it in the
    best arrangement of each mode."""
    g = arr[0]
    for t in range(53):
        out[t, 0] = 1 if hand[t] > 0 and api.could_meld(g, hand, t) else 0
    for mode in range(3):
        v, n = api.arrange(g, hand, mode)
        for t in range(53):
            out[t, 1 + mode] = api.path_uses(api.plan(g), n, t)
    return arr.shape[0]


@pytest.mark.parametrize("preset", ["classic", "qahwa"])
def test_a_card_that_could_not_meld_is_in_no_best_arrangement(preset):
    rules = Rules.preset(preset)
    arr = S.new_game(4, rules.to_vector(), False)
    rng = np.random.default_rng(11)
    deck = np.array([t for t in range(52) for _ in range(2)] + [52] * rules.jokers)
    out = np.zeros((53, 4), np.int64)
    rejected = used = 0
    for _ in range(300):
        hand = np.zeros(53, np.int8)
        for c in rng.choice(deck, int(rng.integers(8, 16)), replace=False):
            hand[c] += 1
        _could_meld_vs_plans(arr, hand, out)
        held = hand > 0
        assert (out[~held, 0] == 0).all()
        no = held & (out[:, 0] == 0)
        assert (out[no, 1:] == 0).all()  # never in a plan
        rejected += int(no.sum())
        used += int((out[held, 1:] > 0).any(axis=1).sum())
    assert rejected > 1000 and used > 500  # it does reject cards, and the plans do use cards
