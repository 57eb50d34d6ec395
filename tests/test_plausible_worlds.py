"""Plausible worlds for the searching player (issue 21): the public records of what each seat
discarded and passed over, :func:`api.deal_plausible` on hand-built positions where it must never
(or always) give an opponent a card, checked over many worlds against the uniform deal, and the
all-seeing control's :func:`api.shuffle_stock`."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from handsim.games.hand.kernels import state as S
from handsim.games.hand.kernels.consts import DRAW_STOCK
from handsim.games.hand.kernels.turn import draw_from
from handsim.games.hand.policies import api
from handsim.games.hand.policies.sampler import deal_world  # 0 deal_unseen, 1 deal_plausible, 2 shuffle_stock
from handsim.games.hand.rules import Rules

CLASSIC = Rules.preset("classic")
WORLDS = 2000


def card(text: str) -> int:
    """Card type of e.g. ``"7H"``."""
    from handsim.cards import parse_card

    return int(parse_card(text))


def _where(g, t):
    """Every place a copy of ``t`` is: ``("hand", seat)`` or ``("stock", index)``."""
    out = []
    for s in range(g["sc"][S.S_PLAYERS]):
        out += [("hand", s)] * int(g["hands"][s][t])
    sp, send = g["sc"][S.S_SP], g["sc"][S.S_SEND]
    out += [("stock", i) for i in range(sp, send) if g["stock"][i] == t]
    return out


def _swap(g, place, t, u):
    """Put card ``u`` where one copy of ``t`` is (``place``), ``t`` leaves it."""
    kind, k = place
    if kind == "hand":
        g["hands"][k][t] -= 1
        g["hands"][k][u] += 1
    else:
        assert g["stock"][k] == t
        g["stock"][k] = u


def keep_out_of(g, seat, cards):
    """Move every copy of ``cards`` out of ``seat``'s hand into the stock (each swapped with a stock
    card not among them): the deck stays whole, hand sizes too."""
    sp, send = g["sc"][S.S_SP], g["sc"][S.S_SEND]
    for t in cards:
        while g["hands"][seat][t] > 0:
            i = next(i for i in range(sp, send) if g["stock"][i] not in cards)
            u = int(g["stock"][i])
            g["stock"][i] = t
            g["hands"][seat][t] -= 1
            g["hands"][seat][u] += 1


def give(g, seat, t):
    """Make sure ``seat`` holds a copy of ``t`` (swapped with a card of its hand that is not ``t``)."""
    if g["hands"][seat][t] > 0:
        return
    place = next(p for p in _where(g, t) if p != ("hand", seat))
    u = int(next(x for x in np.nonzero(g["hands"][seat])[0] if x != t))
    _swap(g, place, t, u)
    g["hands"][seat][u] -= 1
    g["hands"][seat][t] += 1


def position(seed=5):
    """A 4-player classic round just dealt (seat 0 the starter, 15 cards; the others 14)."""
    arr = S.new_game(4, CLASSIC.to_vector(), False)
    S.reset_round(arr[0], 3, np.uint64(seed))
    assert arr[0]["sc"][S.S_STARTER] == 0
    return arr


@njit(cache=True)
def _holds_counts(arr, seat, model, n, out):
    """Deal ``n`` worlds for ``seat`` (0 uniform, 1 plausible, 2 all-seeing): ``out[s, t]`` counts
    the worlds in which seat ``s`` holds card ``t``, the returned ``pairs[s, t, u]`` those in which
    it holds ``t`` and ``u``."""
    g = arr[0]
    sim_arr = api.new_table(g)
    sim = sim_arr[0]
    pairs = np.zeros((4, 53, 53), dtype=np.int64)
    for _ in range(n):
        api.copy_table(g, sim)
        deal_world(g, seat, sim, model)
        for s in range(api.players(g)):
            for t in range(53):
                if sim.hands[s, t] > 0:
                    out[s, t] += 1
                    for u in range(53):
                        if sim.hands[s, u] > 0:
                            pairs[s, t, u] += 1
    return pairs


def sample(arr, seat, model, n=WORLDS):
    out = np.zeros((4, 53), dtype=np.int64)
    pairs = _holds_counts(arr, seat, model, n, out)
    return out, pairs


@njit(cache=True)
def _one_world(arr, seat, model):
    g = arr[0]
    sim = api.new_table(g)
    api.copy_table(g, sim[0])
    deal_world(g, seat, sim[0], model)
    return sim


def test_the_engine_records_discards_and_passes_over_while_opened():
    arr = position()
    g = arr[0]
    h7 = card("7H")
    give(g, 0, h7)
    assert S.discard(g, 0, h7)
    assert api.discarded_cards(g, 0) == 1 << h7 and api.discarded_cards(g, 1) == 0
    draw_from(g, 1, DRAW_STOCK)  # seat 1 unopened: taking 7H would have needed an opening
    assert api.passed_over(g, 1) == 0
    g["seat"][2][S.Q_OPENED] = 1
    draw_from(g, 2, DRAW_STOCK)  # seat 2 opened: it could have taken 7H and did not
    assert api.passed_over(g, 2) == 1 << h7 and api.passed_over(g, 0) == 0
    S.reset_round(g, 3, np.uint64(6))
    assert api.discarded_cards(g, 0) == 0 and api.passed_over(g, 2) == 0  # a new round forgets


# the 3-card melds 7H is in: 5H 6H, 6H 8H, 8H 9H, and two of 7S 7D 7C
MELDS_WITH_7H = [("5H", "6H"), ("6H", "8H"), ("8H", "9H"), ("7S", "7D"), ("7S", "7C"), ("7D", "7C")]


@pytest.mark.parametrize("how", ["passed", "discarded"])
def test_a_seat_never_gets_two_cards_that_meld_with_a_card_it_passed_over_or_discarded(how):
    # Seat 0 discards 7H; seat 1 (opened) passes over it and draws from the stock - or seat 1 itself
    # discarded a 7H.  Every card of the melds with 7H is out of seat 0's sight (in the stock or in
    # the others' hands), so the uniform deal gives seat 1 such a pair in many worlds; the plausible
    # deal never does: seat 1 would have taken (or kept) the 7H.
    arr = position()
    g = arr[0]
    h7 = card("7H")
    partners = sorted({card(c) for pair in MELDS_WITH_7H for c in pair})
    if how == "passed":
        give(g, 0, h7)
        keep_out_of(g, 0, partners)
        assert S.discard(g, 0, h7)
        g["seat"][1][S.Q_OPENED] = 1
        draw_from(g, 1, DRAW_STOCK)
    else:
        give(g, 1, h7)
        keep_out_of(g, 0, partners + [h7])
        g["sc"][S.S_TURN_SEAT] = 1
        assert S.discard(g, 1, h7)
        assert api.discarded_cards(g, 1) == 1 << h7
    for model, expect_none in ((0, False), (1, True)):
        _, pairs = sample(arr, 0, model)
        melds = sum(int(pairs[1, card(a), card(b)]) for a, b in MELDS_WITH_7H)
        if expect_none:
            assert melds == 0
        else:
            assert melds > WORLDS // 20  # a few hundred in 2,000 worlds: the test can fail
        # the other seats are not held to seat 1's evidence
        assert sum(int(pairs[2, card(a), card(b)]) for a, b in MELDS_WITH_7H) > WORLDS // 20


def test_a_card_taken_from_the_pile_and_kept_always_has_a_partner():
    # Seat 0 discards 8D, seat 1 takes it and keeps it (known to all).  Its partners - 6D 7D 9D 10D,
    # 8S 8H 8C and the jokers - are kept out of seat 0's hand; the uniform deal leaves seat 1 with
    # none of them in some worlds ((1 - 16/93)^13 is about 8%), the plausible deal never.
    arr = position()
    g = arr[0]
    d8 = card("8D")
    partners = [card(c) for c in ("6D", "7D", "9D", "10D", "8S", "8H", "8C")] + [api.JOKER]
    give(g, 0, d8)
    keep_out_of(g, 0, partners)
    keep_out_of(g, 1, [d8])
    assert S.discard(g, 0, d8)
    S.take_discard(g, 1)
    assert api.known_cards(g, 1)[d8] == 1
    for model, expect_always in ((0, False), (1, True)):
        held, _ = sample(arr, 0, model)
        assert held[1, d8] == WORLDS  # a known card stays in every world
        with_partner = _worlds_where(arr, 0, model, 1, np.array(partners, dtype=np.int64), WORLDS)
        if expect_always:
            assert with_partner == WORLDS
        else:
            assert WORLDS - with_partner > WORLDS // 50


@njit(cache=True)
def _worlds_where(arr, seat, model, s, cards, n):
    """In how many of ``n`` worlds dealt for ``seat`` seat ``s`` holds at least one of ``cards`` -
    or, with ``cards`` empty, holds a hand that reaches the opening."""
    g = arr[0]
    sim_arr = api.new_table(g)
    sim = sim_arr[0]
    k = 0
    for _ in range(n):
        api.copy_table(g, sim)
        deal_world(g, seat, sim, model)
        if cards.shape[0] == 0:
            val, m = api.arrange(sim, sim.hands[s], api.OPEN)
            k += m > 0 and val >= api.required_opening(sim, s)
        for t in cards:
            if sim.hands[s, t] > 0:
                k += 1
                break
    return k


def _pool(x):
    return (x["hands"][1:4].sum(axis=0).astype(int)
            + np.bincount(x["stock"][x["sc"][S.S_SP]:x["sc"][S.S_SEND]], minlength=53))


@pytest.mark.parametrize("model", [1, 2])
def test_a_world_keeps_every_count_and_what_the_seat_knows(model):
    arr = position(11)
    g = arr[0]
    c = card("QS")
    give(g, 0, c)
    keep_out_of(g, 3, [c])
    assert S.discard(g, 0, c)
    S.take_discard(g, 3)  # seat 3 took QS: it is known to be there
    before = arr.copy()
    sim = _one_world(arr, 0, model)[0]
    assert (sim["hands"][0] == g["hands"][0]).all()
    assert (sim["hand_n"] == g["hand_n"]).all()
    for s in range(1, 4):
        assert sim["hands"][s].sum() == g["hand_n"][s]
    assert sim["hands"][3][c] >= 1
    assert (_pool(sim) == _pool(g)).all()  # the same hidden cards, dealt again
    sp, send = g["sc"][S.S_SP], g["sc"][S.S_SEND]
    assert (sim["stock"][sp:send] != g["stock"][sp:send]).any()  # the stock reshuffled
    if model == 2:
        assert (sim["hands"] == g["hands"]).all()  # the all-seeing control: the true hands
    else:
        assert not (sim["hands"][1:4] == g["hands"][1:4]).all()
    assert (arr["hands"] == before["hands"]).all() and (arr["stock"] == before["stock"]).all()
    # the deal's policy stream only: the same stream state, the same world
    arr2 = before.copy()
    sim2 = _one_world(arr2, 0, model)[0]
    assert (sim2["hands"] == sim["hands"]).all() and (sim2["stock"] == sim["stock"]).all()


def test_a_seat_that_did_not_open_when_it_could_gets_no_hand_that_opens():
    # Seat 1 has played a turn and not opened: under the uniform deal its 14 cards reach 51 in a
    # good share of the worlds; the plausible deal deals such a hand again (up to PLAUSIBLE_TRIES = 8
    # times), so it keeps one only when 8 deals in a row open: (share)^8 of the worlds, about none.
    # Before its first turn (no evidence) both deals are alike.
    arr = position(21)
    g = arr[0]
    n = 400
    opening = np.zeros(0, dtype=np.int64)
    before = [_worlds_where(arr, 0, m, 1, opening, n) for m in (0, 1)]
    g["seat"][1][S.Q_OWN_TURNS] = 1
    uniform, plausible = (_worlds_where(arr, 0, m, 1, opening, n) for m in (0, 1))
    share = uniform / n
    assert share > 0.1
    assert plausible <= max(1, 3 * n * share ** 8)
    assert before[1] > n * 0.1 and abs(before[1] - before[0]) < 0.5 * before[0]
