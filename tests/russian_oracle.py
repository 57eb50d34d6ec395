"""An independent integer-programming oracle for Russian Hand's table rearrangement (RULES.md §2, §8).

Written for clarity, not speed, and on purpose unlike the kernel (a dynamic programme over run
positions): every legal meld of the 104-card deck is listed explicitly (308 runs - every window
of positions 1..14 of 3 to 13 cards in each suit - and 65 sets - every 3- or 4-suit subset of
each rank), and ``scipy.optimize.milp`` (HiGHS) chooses

* ``x[m]`` in 0..2: how many copies of meld ``m`` the new table holds,
* ``y[c]`` in 0..hand[c]: how many copies of card ``c`` are placed from the hand,
* ``z[m]`` in 0..orig[m], ``z[m] <= x[m]``: original melds kept unchanged,

subject to ``sum_m A[c, m] x[m] = table[c] + y[c]`` for every card ``c`` (``A[c, m]`` = copies of
``c`` in ``m``; the Ace sits at position 1 and 14 of runs).  The three criteria are solved one
after another (lexicographically): the most cards placed; with that fixed the highest value
placed; with both fixed the most original melds kept.  No weights are shared with the kernel.

:func:`check_play` independently checks a play the kernel returns: every meld legal (by its own
small validator below), the melds hold exactly the table plus the placed cards, the placed
cards come from the hand, and the value and changed-meld count are what they claim.

:func:`random_position` (from :mod:`handsim.games.russian.positions`) deals the positions.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from handsim.games.russian.positions import random_position  # noqa: F401  (the tests' positions)

SUITS = 4
RANKS = 13


def card(suit: int, rank: int) -> int:
    return suit * RANKS + rank - 1


def rank_of(c: int) -> int:
    return c % RANKS + 1


def suit_of(c: int) -> int:
    return c // RANKS


def value_of(c: int, ace: int = 11) -> int:
    r = rank_of(c)
    return ace if r == 1 else min(r, 10)


def _all_melds() -> list[tuple[int, ...]]:
    """Every legal meld as a sorted tuple of card types."""
    melds = []
    for s in range(SUITS):
        for lo in range(1, 15):
            for hi in range(lo + 2, min(lo + 12, 14) + 1):
                melds.append(tuple(sorted(card(s, 1 if p == 14 else p) for p in range(lo, hi + 1))))
    for r in range(1, RANKS + 1):
        for mask in range(16):
            if bin(mask).count("1") >= 3:
                melds.append(tuple(card(s, r) for s in range(SUITS) if mask >> s & 1))
    return melds


MELDS = _all_melds()
MELD_INDEX = {m: i for i, m in enumerate(MELDS)}
A = np.zeros((52, len(MELDS)))
for _j, _m in enumerate(MELDS):
    for _c in _m:
        A[_c, _j] += 1


def is_meld(cards) -> bool:
    """Legal meld of natural cards (RULES.md §2), by direct definition: 3-4 cards of one rank
    in distinct suits, or 3-13 cards of one suit at consecutive positions with the Ace at 1 or 14."""
    cards = sorted(cards)
    if len(cards) < 3:
        return False
    ranks = [rank_of(c) for c in cards]
    suits = [suit_of(c) for c in cards]
    if len(set(ranks)) == 1:
        return len(cards) <= 4 and len(set(suits)) == len(cards)
    if len(set(suits)) != 1 or len(cards) > 13 or len(set(ranks)) != len(ranks):
        return False
    for ace in (1, 14):
        pos = sorted(ace if r == 1 else r for r in ranks)
        if pos[-1] - pos[0] + 1 == len(pos):
            return True
    return False


def solve(table: list[list[int]], hand: list[int], ace: int = 11) -> tuple[int, int, int]:
    """Exact ``(n_placed, value, changed)`` of the best play by three integer programmes.

    ``table``: melds as lists of card types; ``hand``: card types.
    """
    t = np.bincount(np.array([c for m in table for c in m], dtype=int), minlength=52).astype(float)
    h = np.bincount(np.array(hand, dtype=int), minlength=52).astype(float)
    orig = Counter(MELD_INDEX[tuple(sorted(m))] for m in table)
    ok = sorted(orig)
    nm, no = len(MELDS), len(ok)
    n = nm + 52 + no  # x, y, z
    lo = np.zeros(n)
    hi = np.concatenate([np.full(nm, 2.0), h, np.array([orig[k] for k in ok], dtype=float)])
    rows = [np.hstack([A, -np.eye(52), np.zeros((52, no))])]
    lb = [t]
    ub = [t]
    if no:  # z[k] - x[m_k] <= 0
        Z = np.zeros((no, n))
        for i, k in enumerate(ok):
            Z[i, k] = -1
            Z[i, nm + 52 + i] = 1
        rows.append(Z)
        lb.append(np.full(no, -np.inf))
        ub.append(np.zeros(no))
    values = np.array([value_of(c, ace) for c in range(52)], dtype=float)
    count_obj = np.concatenate([np.zeros(nm), np.ones(52), np.zeros(no)])
    value_obj = np.concatenate([np.zeros(nm), values, np.zeros(no)])
    kept_obj = np.concatenate([np.zeros(nm + 52), np.ones(no)])
    found = []
    for obj in (count_obj, value_obj, kept_obj):
        cons = LinearConstraint(np.vstack(rows), np.concatenate(lb), np.concatenate(ub))
        for presolve in (True, False):  # HiGHS 1.x occasionally fails in presolve ("Solve error")
            res = milp(-obj, constraints=cons, integrality=np.ones(n), bounds=Bounds(lo, hi),
                       options={"mip_rel_gap": 0, "presolve": presolve})
            if res.status != 4:
                break
        if res.status != 0:
            raise AssertionError(f"oracle: no solution ({res.message}) - the table is not legal melds?")
        best = round(-res.fun)
        found.append(best)
        rows.append(obj[None, :])  # fix this criterion at its optimum for the next
        lb.append(np.array([best]))
        ub.append(np.array([best]))
    return found[0], found[1], len(table) - found[2]


def check_play(table, hand, placed, melds, value, changed, ace: int = 11) -> None:
    """Raise AssertionError unless ``(placed, melds, value, changed)`` is a valid play on ``table``."""
    for m in melds:
        assert is_meld(m), f"illegal meld in the result: {sorted(m)}"
    after = Counter(c for m in melds for c in m)
    before = Counter(c for m in table for c in m)
    assert after == before + Counter(placed), "the new table is not the old table plus the placed cards"
    assert not Counter(placed) - Counter(hand), "placed a card that is not in the hand"
    assert value == sum(value_of(c, ace) for c in placed), "wrong value"
    left = Counter(tuple(sorted(m)) for m in melds)
    kept = sum(min(k, left[m]) for m, k in Counter(tuple(sorted(m)) for m in table).items())
    assert changed == len(table) - kept, f"claims {changed} melds changed, but {len(table) - kept} are"
