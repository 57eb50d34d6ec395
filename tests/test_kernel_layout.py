"""The kernels' named constants, meld accessors and the rules written once (starter, partner,
the card taken from the discard pile), on hand-built cases worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from handsim import cards
from handsim.games.hand.kernels import consts as C
from handsim.games.hand.kernels import melds as M
from handsim.games.hand.kernels import state as S
from handsim.games.hand.rules import Rules


def test_kernel_card_constants_agree_with_handsim_cards():
    assert C.JOKER == cards.JOKER == 52
    assert C.N_TYPES == cards.N_TYPES == 53
    assert C.N_RANKS == cards.N_RANKS == 13
    assert C.N_SUITS == len(cards.SUITS) == 4
    assert C.N_NATURALS == C.N_SUITS * C.N_RANKS
    assert S.GAME_DTYPE["hands"].shape == (C.MAX_SEATS, C.N_TYPES)
    assert S.GAME_DTYPE["pol"].shape == (C.MAX_SEATS,)


def test_meld_accessors_read_what_the_writers_wrote():
    run = np.zeros(M.MELD_WIDTH, np.int32)
    M.write_run(run, 1, 11, 14, 1 << 12, 1)  # J♥ JK(=Q♥) K♥ A♥ (Ace high)
    assert M.is_run(run) and not M.is_set(run)
    assert (M.meld_key(run), M.meld_lo(run), M.meld_hi(run)) == (1, 11, 14)
    assert M.meld_size(run) == 4 and M.meld_jokers(run) == 1
    assert M.run_has_joker_at(run, 12) and not M.run_has_joker_at(run, 13)
    assert M.meld_uses(run, cards.parse_card("AH")) == 1
    assert M.meld_uses(run, cards.parse_card("QH")) == 0  # the joker stands for it
    assert M.meld_uses(run, C.JOKER) == 1
    assert M.meld_value(run, 1, 11) == 10 + 10 + 10 + 11
    assert M.meld_value(run, 1, 10) == 10 + 10 + 10 + 10  # ace_value=10: the high Ace counts 10
    st = np.zeros(M.MELD_WIDTH, np.int32)
    M.write_set(st, 9, 0b0101, 1)  # 9♠ 9♦ JK
    assert M.is_set(st) and M.set_has_suit(st, 0) and not M.set_has_suit(st, 1)
    assert M.meld_size(st) == 3 and M.set_jokers(st) == 1 and M.meld_value(st, 1, 11) == 27
    aces = np.zeros(M.MELD_WIDTH, np.int32)
    M.write_set(aces, 1, 0b0111, 0)  # A♠ A♥ A♦
    assert M.meld_value(aces, 1, 11) == 33 and M.meld_value(aces, 1, 10) == 30 and M.meld_value(aces, 11, 1) == 3
    rv = Rules.preset("classic").to_vector()
    assert M.meld_is_legal(run, rv) and M.meld_is_legal(st, rv)
    M.write_set(st, 9, 0b0001, 2)  # 9♠ JK JK: two jokers, classic allows one
    assert not M.meld_is_legal(st, rv)


@pytest.mark.parametrize("t, held, taken, before, used, ok", [
    (5, 1, C.NO_CARD, 0, 0, True),   # nothing was taken
    (5, 1, 5, 0, 0, False),          # the card just taken from the pile
    (5, 2, 5, 1, 0, True),           # its twin, held before, may go
    (5, 1, 5, 1, 0, True),           # the twin held before is the one left
    (5, 1, 5, 0, 1, True),           # a copy went to the table this turn: any copy may go
    (52, 2, 52, 0, 0, True),         # a taken joker and one swapped off the table: one may go
    (7, 1, 5, 0, 0, True),           # another card
    (5, 0, C.NO_CARD, 0, 0, False),  # not held
])
def test_the_taken_card_rule(t, held, taken, before, used, ok):
    """RULES.md section 3: a card taken from the discard pile may not be discarded in that turn."""
    assert S.may_discard(t, held, taken, before, used) is ok


@njit(cache=True)
def _legal(arr, seat, card, rem):
    """(may discard ``card`` now, a legal discard left after ``rem`` leaves, ... after ``card`` leaves)"""
    g = arr[0]
    return S.discard_is_legal(g, seat, card), S.legal_discard_after(g, seat, rem), \
        S.legal_discard_after_card(g, seat, card)


def test_legal_discard_after_some_cards_leave_the_hand():
    rv = Rules.preset("classic").to_vector()
    arr = S.new_game(4, rv, False)
    g = arr[0]
    six, ten = cards.parse_card("6S"), cards.parse_card("10S")
    g["hands"][1, six] = 1
    g["hands"][1, ten] = 1
    g["hand_n"][1] = 2
    g["sc"][S.S_TAKEN] = six  # 6♠ was just taken from the pile, no twin held before
    g["sc"][S.S_TAKEN_C0] = 0
    rem = np.zeros(C.N_TYPES, np.int8)
    rem[ten] = 1
    # 10♠ may go; once it leaves for the table only the taken 6♠ is left, which may not
    assert _legal(arr, 1, ten, rem) == (True, False, False)
    rem[:] = 0
    rem[six] = 1
    # the taken 6♠ may not go back; once it is on the table, 10♠ may be discarded
    assert _legal(arr, 1, six, rem) == (False, True, True)


def test_starter_and_partner_are_one_rule_in_python_and_in_the_kernels():
    for starter in ("dealer_right", "dealer"):
        rules = Rules.preset("classic", starter=starter)
        rv = rules.to_vector()
        for players in (2, 3, 4):
            for dealer in range(players):
                assert S.starter_of(dealer, players, rv) == rules.starter_of(dealer, players)
    assert Rules.preset("classic").starter_of(3, 4) == 0 and Rules.preset("qahwa").starter_of(3, 4) == 3
    team = Rules.preset("partnership")
    assert [team.partner_of(s, 4) for s in range(4)] == [2, 3, 0, 1]
    assert Rules.preset("classic").partner_of(0, 4) is None
