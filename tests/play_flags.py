"""Random outcome flags of the kind play makes them, for tests that build study blocks by hand.

A checkpoint's counters are checked against what play determines (issue 23, cause 1): in Hand one
player goes out in a round that is not void and none in a void one (RULES.md section 3), a Hand
only by the player who goes out; in Russian Hand one player wins a game that is not drawn (going
out, or at the stock-out) and two or more draw a drawn one (RULES.md section 8).  Blocks with
flags drawn bit by bit at random would make states no study makes, which a checkpoint refuses.
"""

import numpy as np

from handsim.games.hand import layout as H
from handsim.games.russian import stats as R


def hand_flags(rng: np.random.Generator, void: np.ndarray, players: int = 4, hand: float = 0.25) -> np.ndarray:
    """``ndarray(uint8, shape=(n, players))``: opened and a joker left at random, and in each round
    that is not void (``void[i] == 0``) one seat going out (opened; with a Hand with probability
    ``hand``), none in a void one."""
    void = np.asarray(void)
    n = len(void)
    flags = (rng.integers(0, 2, size=(n, players)) * H.FLAG_OPENED
             + rng.integers(0, 2, size=(n, players)) * H.FLAG_JOKER_LEFT)
    rows = np.flatnonzero(void == 0)
    who = rng.integers(0, players, size=len(rows))
    flags[rows, who] |= H.FLAG_OPENED | H.FLAG_OUT | (rng.random(len(rows)) < hand) * H.FLAG_HAND
    return flags.astype(np.uint8)


def russian_flags(rng: np.random.Generator, end: np.ndarray, players: int = 3) -> np.ndarray:
    """``ndarray(uint8, shape=(n, players))`` by each game's end code: one seat that went out and
    won (0), one seat that won at the stock-out (1), or two or more that drew (2)."""
    flags = np.zeros((len(end), players), dtype=np.uint8)
    for i, e in enumerate(np.asarray(end)):
        if e == 2:
            flags[i, rng.permutation(players)[:rng.integers(2, players + 1)]] = R.FLAG_DREW
        else:
            flags[i, rng.integers(0, players)] = R.FLAG_WON | (R.FLAG_OUT if e == 0 else 0)
    return flags
