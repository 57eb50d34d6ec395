"""card-reader's counting constants and bitsets, worked out by hand (no compilation: the
Python functions and tables only)."""

import numpy as np

from handsim.games.hand.policies import counting


def _bits(*cs):
    return sum(1 << c for c in cs)


def test_feed_tables_of_a_queen_and_an_ace():
    # card type = 13 * suit + rank - 1; the Queen of suit 0 is 11
    assert counting.FEED_NEAR[11] == _bits(24, 37, 50, 9, 10, 12, 0)  # other Queens; 10, J, K, Ace above
    assert counting.FEED_AWAY[11] == _bits(11, 24, 37, 50, 10, 12)  # every Queen; J and K
    # the Ace of suit 1 (13): other Aces; 2 and 3 of its suit (no King or Queen below it)
    assert counting.FEED_NEAR[13] == _bits(0, 26, 39, 14, 15)
    assert counting.FEED_AWAY[13] == _bits(0, 13, 26, 39, 14)


def test_held_bits_puts_an_ace_at_both_ends():
    cards = np.zeros(53, dtype=np.int8)
    cards[0] = 1  # Ace of suit 0: run positions 1 and 14
    cards[38] = 2  # King of suit 2: bit 2 * 16 + 13
    cards[52] = 1  # a joker is no natural
    held = getattr(counting.held_bits, "py_func", counting.held_bits)
    assert held(cards) == (1 << 1) | (1 << 14) | (1 << 45)
