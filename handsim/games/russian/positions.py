"""Random Russian Hand positions for tests and benchmarks (RULES.md §2, §8).

A position is a table (a list of legal melds, as card types) and a hand drawn from the cards
the table leaves, never more than two copies of a card in all.
"""

from __future__ import annotations

import random
from collections import Counter

SUITS = 4
RANKS = 13


def _card(suit: int, rank: int) -> int:
    return suit * RANKS + rank - 1


def random_position(rng: random.Random, max_table: int = 40, max_hand: int = 12, aces: bool = True):
    """A realistic position ``(table, hand)``: melds as lists of card types, and the hand.

    The table is built from random legal melds (sets of 3-4 suits; runs of 3-13, mostly short)
    up to a size drawn from 0..``max_table`` cards; the hand (1..``max_hand`` cards) comes from
    the rest of the two decks, half the time mostly from cards next to the table's (same suit
    within two ranks, or same rank), so that lay-offs and rearrangements are common.  With
    ``aces=False`` no Ace appears.
    """
    avail = Counter({c: 2 for c in range(52) if aces or (c % RANKS + 1) != 1})
    target = rng.randint(0, max_table)
    table: list[list[int]] = []
    size = 0
    for _ in range(200):
        if size >= target:
            break
        if rng.random() < 0.4:
            r = rng.choice([r for r in range(1, 14) if aces or r != 1])
            suits = [s for s in range(SUITS) if avail[_card(s, r)] > 0]
            if len(suits) < 3:
                continue
            k = rng.choice([3, 3, 4]) if len(suits) == 4 else 3
            m = [_card(s, r) for s in rng.sample(suits, k)]
        else:
            s = rng.randrange(SUITS)
            length = rng.choice([3, 3, 3, 4, 4, 5, 6, 8, 13])
            first, last = (1, 15 - length) if aces else (2, 14 - length)
            if last < first:
                continue
            lo = rng.randint(first, last)
            m = [_card(s, 1 if p == 14 else p) for p in range(lo, lo + length)]
            if any(avail[c] == 0 for c in m):
                continue
        if size + len(m) > max_table:
            continue
        for c in m:
            avail[c] -= 1
        table.append(m)
        size += len(m)
    rest = list(avail.elements())
    n = rng.randint(1, max_hand)
    if rng.random() < 0.5 and table:
        near = set()
        for m in table:
            for c in m:
                s, r = (c // RANKS), (c % RANKS + 1)
                near.update(_card(s, q) for q in (r - 2, r - 1, r + 1, r + 2) if 1 <= q <= 13)
                near.update(_card(x, r) for x in range(SUITS))
        pool = [c for c in rest if c in near] or rest
        hand = []
        for _ in range(n):
            choice = pool if rng.random() < 0.8 else rest
            c = rng.choice(choice)
            if hand.count(c) < avail[c]:
                hand.append(c)
    else:
        hand = rng.sample(rest, min(n, len(rest)))
    if not hand:
        hand = [rng.choice(rest)]
    rng.shuffle(table)
    return table, hand
