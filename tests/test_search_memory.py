"""The table's shortcuts give what the long way gives: remembered arrangement searches (with
floors) equal fresh searches, and the first meld a card fits found from the table's index of runs
and sets equals asking every meld."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from handsim.games.hand.kernels import arrange as A
from handsim.games.hand.kernels import state as S
from handsim._kernels.rng import shuffle
from handsim.policies import api
from handsim.games.hand.rules import Rules


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


@njit(cache=True)
def _ask_copy(src_arr, dst_arr, hand, mode, out):
    """Copy table ``src`` into ``dst`` (as a look-ahead player copies its table), then ask ``dst``
    for the arrangement of ``hand``; ``out`` as :func:`_ask`."""
    api.copy_table(src_arr[0], dst_arr[0])
    return _ask(dst_arr, hand, mode, np.int64(-1), out)


def test_a_copy_of_a_table_of_the_same_rules_keeps_its_remembered_searches():
    classic = Rules.preset("classic").to_vector()
    qahwa = Rules.preset("qahwa").to_vector()
    src = S.new_game(4, classic, False)
    other = S.new_game(4, qahwa, False)
    dst = S.new_game(4, classic, False)
    rng = np.random.default_rng(3)
    deck = np.array([t for t in range(52) for _ in range(2)] + [52, 52])
    hand = np.zeros(53, np.int8)
    for c in rng.choice(deck, 14, replace=False):
        hand[c] += 1
    out = np.zeros(2 + 6 * A.MAX_MELDS, np.int64)
    _ask(dst, hand, A.DEAD, -1, out)  # dst remembers the search
    for source, rv, remembered in ((src, classic, True), (other, qahwa, False), (src, classic, False)):
        dst["path"][:] = -7
        _ask_copy(source, dst, hand, A.DEAD, out)
        # the same rules: answered from memory; other weights: searched again (and the copy
        # back to the classic table then searches once more: the memory holds qahwa's answers)
        assert bool((dst["path"] == -7).all()) == remembered
        assert (out == _fresh(hand, S.new_game(4, rv, False)[0]["W"][A.DEAD], -1)).all()


@njit(cache=True)
def _same_melds_with(arr, hand, t, out):
    """``out[0]``: could ``t`` meld in ``hand`` + ``t``; ``out[1]``: the least-deadwood melds of
    ``hand`` and of ``hand`` + ``t`` are the same rows."""
    g = arr[0]
    hand[t] += 1
    out[0] = 1 if api.could_meld(g, hand, t) else 0
    v2, n2 = api.arrange(g, hand, api.DEADWOOD)
    rows = g.bestpath[:n2].copy()
    hand[t] -= 1
    v1, n1 = api.arrange(g, hand, api.DEADWOOD)
    same = v1 == v2 and n1 == n2
    if same:
        for i in range(n1):
            for k in range(6):
                if g.bestpath[i, k] != rows[i, k]:
                    same = False
    out[1] = 1 if same else 0
    return arr.shape[0]


@pytest.mark.parametrize("preset", ["classic", "qahwa"])
def test_a_card_that_could_not_meld_leaves_the_arrangement_as_it_was(preset):
    # card-reader's draw decision does not search the hand with the top discard again when that
    # card could not meld: the search drops such cards first, so the melds are the very same
    rules = Rules.preset(preset)
    assert rules.to_vector()[S.P_MIN_NATURAL] <= 1
    arr = S.new_game(4, rules.to_vector(), False)
    rng = np.random.default_rng(5)
    deck = np.array([t for t in range(52) for _ in range(2)] + [52] * rules.jokers)
    out = np.zeros(2, np.int64)
    isolated = 0
    for _ in range(400):
        hand = np.zeros(53, np.int8)
        for c in rng.choice(deck, int(rng.integers(6, 15)), replace=False):
            hand[c] += 1
        t = int(rng.integers(0, 52))
        if hand[t] >= 2:
            continue
        _same_melds_with(arr, hand, t, out)
        if out[0] == 0:
            isolated += 1
            assert out[1] == 1, (hand.nonzero(), t)
    assert isolated > 100


@njit(cache=True)
def _lay_off_all(arr, rv, seed, firsts, steps):
    """A random table (:func:`_table`), then lay-offs from a second random hand one by one; after
    each, ``firsts[step, t] = layoff_meld`` and ``firsts[step, 53 + t]`` = the first meld that
    every meld asked gives.  Returns the lay-offs made."""
    g = arr[0]
    _table(arr, rv, seed, np.zeros((53, 4), np.int64))
    g.seat[1, S.Q_OPENED] = 1
    st = np.empty(1, np.uint64)
    st[0] = np.uint64(seed + 1000)
    made = 0
    for step in range(steps):
        for t in range(53):
            firsts[step, t] = api.layoff_meld(g, t)
            firsts[step, 53 + t] = -1
            for k in range(api.table_count(g)):
                if firsts[step, 53 + t] < 0 and api.layoff_target(g, k, t) != api.NO_TARGET:
                    firsts[step, 53 + t] = k
        fit = -1
        start = np.int64(st[0] % np.uint64(53))
        st[0] = st[0] * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
        for i in range(53):
            t = (start + i) % 53
            if firsts[step, t] >= 0:
                fit = t
                break
        if fit < 0:
            break
        g.hands[1, fit] += 1
        g.hand_n[1] += 1
        g.sc[S.S_TURN_SEAT] = 1
        g.sc[S.S_T_MOVES] = 0
        g.sc[S.S_T_OPENED] = 0
        if not S.lay_off(g, 1, firsts[step, fit], fit):
            break
        made += 1
    return made


def test_the_cards_that_fit_the_table_follow_every_lay_off():
    rv = Rules.preset("classic").to_vector()
    arr = S.new_game(4, rv, False)
    steps = 30
    firsts = np.zeros((steps, 106), np.int64)
    made = 0
    for seed in range(20):
        firsts[:] = -2
        n = _lay_off_all(arr, rv, seed, firsts, steps)
        done = firsts[: n + 1]
        assert (done[:, :53] == done[:, 53:]).all(), seed
        made += n
    assert made > 100  # lay-offs grew the runs and sets, and the answers followed


def test_a_hand_with_a_card_no_meld_can_hold_is_answered_from_memory():
    # classic: a meld may hold a single natural, so the memory is keyed by the cards some meld
    # may contain; 5S 6S 7S + 9H 9D 9C, then the same with a lone KD, and without the lone 2C
    rules = Rules.preset("classic")
    arr = S.new_game(4, rules.to_vector(), False)
    g = arr[0]

    def hand(*cards):
        h = np.zeros(53, np.int8)
        for c in cards:
            h[c] += 1
        return h

    core = [4, 5, 6, 13 + 8, 26 + 8, 39 + 8]  # 5S 6S 7S, 9H 9D 9C (card type 13 suit + rank - 1)
    out = np.zeros(2 + 6 * A.MAX_MELDS, np.int64)
    first = hand(*core, 39 + 1)  # and the 2C
    _ask(arr, first, A.DEAD, -1, out)
    assert out[0] == 5 + 6 + 7 + 27 and out[1] == 2
    for other in (hand(*core), hand(*core, 39 + 1, 26 + 12), hand(*core, 26 + 12, 26 + 12)):
        g["path"][:] = -7
        out[:] = 0
        _ask(arr, other, A.DEAD, -1, out)
        assert (g["path"] == -7).all()  # from memory
        assert (out == _fresh(other, g["W"][A.DEAD], -1)).all()
    # a card that may join a meld is another hand: searched
    g["path"][:] = -7
    _ask(arr, hand(*core, 7), A.DEAD, -1, out)  # the 8S extends the run
    assert not (g["path"] == -7).all()
    assert out[0] == 5 + 6 + 7 + 8 + 27
