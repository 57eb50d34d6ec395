"""A slow, obviously-correct reference solver for the best arrangement of a hand (RULES.md §1-2).

This module is the test oracle for ``handsim.games.hand.arrange``. It is written for clarity, not speed,
and on purpose does *not* mirror the kernel's lowest-card branching over suits and ranks:

1. **Melds by brute force.** Every sub-multiset of the hand with 3 or more cards (enumerated as
   count vectors, i.e. bitmasks over the card instances with equal multisets merged; the
   bitmask form is kept in :func:`legal_melds_by_mask` and checked equal) is handed to
   :func:`best_meld_reading`, a direct validator: sort the naturals, check the set or run
   definition, and try every place the jokers can go (every missing suit of a set, every window
   of positions of a run). It returns the best-valued legal reading, or ``None``.
2. **Packing by exhaustive search.** ``f(rest)`` over the multiset of cards still to place:
   either the lowest remaining card stays in hand (deadwood), or some legal meld from step 1 that
   contains the lowest remaining card and fits inside ``rest`` is laid. Memoised on the multiset.
   Two objectives are solved: the largest opening value of all melded cards and the smallest
   hand value of the unmelded cards (deadwood).

A second, independent validator, :func:`meld_value`, reads a meld as the kernel reports it (a list
of ``(card, stands_for)`` pairs) and returns its opening value or raises :class:`InvalidMeld`;
:func:`check_arrangement` uses it to check that an arrangement is a valid witness.

Card encoding (docs/design.md): natural ``t = suit*13 + rank-1`` (rank 1 = Ace .. 13 = King,
suits S H D C = 0..3), joker ``t = 52``. Run positions 1..14: 1 = Ace low, 2..13 = 2..K,
14 = Ace high.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import product

JOKER = 52


# --------------------------------------------------------------------------- card values


def rank_of(t: int) -> int:
    return t % 13 + 1


def suit_of(t: int) -> int:
    return t // 13


def card(suit: int, rank: int) -> int:
    return suit * 13 + rank - 1


def hand_points(t: int, joker_penalty: int, ace_value: int = 11) -> int:
    """Value of a card left in hand: 2-10 face, J/Q/K 10, Ace ``ace_value``, joker ``joker_penalty``."""
    if t == JOKER:
        return joker_penalty
    r = rank_of(t)
    if r == 1:
        return ace_value
    return min(r, 10)


def set_card_value(rank: int, ace_value: int = 11) -> int:
    """Opening value of each card of a set of ``rank`` (Ace ``ace_value``)."""
    return ace_value if rank == 1 else min(rank, 10)


def position_value(pos: int, ace_low_value: int, ace_value: int = 11) -> int:
    """Opening value of a run position: 1 -> ace_low_value, 2..10 face, 11..13 -> 10, 14 -> ace_value."""
    if pos == 1:
        return ace_low_value
    if pos == 14:
        return ace_value
    return min(pos, 10)


def positions_of_rank(rank: int) -> tuple[int, ...]:
    """Run positions a natural of ``rank`` may take: the Ace 1 or 14, others their rank."""
    return (1, 14) if rank == 1 else (rank,)


def card_at_position(suit: int, pos: int) -> int:
    return card(suit, 1 if pos in (1, 14) else pos)


# --------------------------------------------------------------------------- melds


@dataclass(frozen=True)
class OMeld:
    """A meld: ``kind`` "run" or "set"; ``cards`` (card, stands_for) pairs, runs in position
    order; ``value`` its opening value."""

    kind: str
    cards: tuple[tuple[int, int], ...]
    value: int

    def card_list(self) -> list[int]:
        return [c for c, _ in self.cards]


def _set_reading(cards: tuple[int, ...], rules) -> OMeld | None:
    naturals = sorted(c for c in cards if c != JOKER)
    jokers = len(cards) - len(naturals)
    if not 3 <= len(cards) <= 4 or not naturals:
        return None
    ranks = {rank_of(c) for c in naturals}
    suits = [suit_of(c) for c in naturals]
    if len(ranks) != 1 or len(set(suits)) != len(suits):
        return None
    rank = ranks.pop()
    missing = [s for s in range(4) if s not in suits]
    if jokers > len(missing):  # cannot happen when len(cards) <= 4, kept for clarity
        return None
    # Every choice of missing suits for the jokers gives the same value; take the first ones.
    pairs = [(c, c) for c in naturals] + [(JOKER, card(s, rank)) for s in missing[:jokers]]
    return OMeld("set", tuple(pairs), set_card_value(rank, rules.ace_value) * len(cards))


def _run_readings(cards: tuple[int, ...], rules) -> list[OMeld]:
    naturals = sorted(c for c in cards if c != JOKER)
    jokers = len(cards) - len(naturals)
    size = len(cards)
    out: list[OMeld] = []
    if not 3 <= size <= rules.max_run_length or not naturals:
        return out
    suits = {suit_of(c) for c in naturals}
    if len(suits) != 1:
        return out
    suit = suits.pop()
    # Try every window lo..hi of `size` positions inside 1..14 (a window of <= 13 positions can
    # never hold both Ace positions, so Ace-low and Ace-high runs are never mixed, nor wrapped).
    for lo in range(1, 14 - size + 2):
        hi = lo + size - 1
        placed: dict[int, int] = {}
        ok = True
        for c in naturals:
            spots = [p for p in positions_of_rank(rank_of(c)) if lo <= p <= hi]
            if len(spots) != 1 or spots[0] in placed:  # outside the window, or a duplicate
                ok = False
                break
            placed[spots[0]] = c
        if not ok:
            continue
        holes = [p for p in range(lo, hi + 1) if p not in placed]
        assert len(holes) == jokers
        pairs = []
        for p in range(lo, hi + 1):
            if p in placed:
                pairs.append((placed[p], placed[p]))
            else:
                pairs.append((JOKER, card_at_position(suit, p)))
        value = sum(position_value(p, rules.ace_low_value, rules.ace_value) for p in range(lo, hi + 1))
        out.append(OMeld("run", tuple(pairs), value))
    return out


def meld_readings(cards, rules) -> list[OMeld]:
    """Every legal reading of the multiset ``cards`` as one meld (sets: one per multiset)."""
    cards = tuple(sorted(int(c) for c in cards))
    if not 3 <= len(cards) <= 13:
        return []
    naturals = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(naturals)
    if jokers > rules.max_jokers_per_meld or len(naturals) < rules.min_natural_cards_per_meld:
        return []
    # Quick rejects (shortcuts only; the readers below check everything again): a meld's
    # naturals share a rank (set) or a suit (run), and never repeat a card.
    if len({rank_of(c) for c in naturals}) > 1 and len({suit_of(c) for c in naturals}) > 1:
        return []
    if len(set(naturals)) != len(naturals):
        return []
    out = []
    s = _set_reading(cards, rules)
    if s is not None:
        out.append(s)
    out.extend(_run_readings(cards, rules))
    return out


def best_meld_reading(cards, rules) -> OMeld | None:
    """The highest-valued legal reading of ``cards`` as one meld, or None if it is no meld."""
    readings = meld_readings(cards, rules)
    if not readings:
        return None
    return max(readings, key=lambda m: m.value)


# --------------------------------------------------------------------------- witness checking


class InvalidMeld(ValueError):
    pass


def meld_value(kind: str, pairs, rules) -> int:
    """Opening value of a meld given as ``(card, stands_for)`` pairs (runs in position order).

    Independent of :func:`meld_readings`: it reads what each card stands for and checks the
    definition directly. Raises :class:`InvalidMeld` with the reason.
    """
    pairs = [(int(c), int(sf)) for c, sf in pairs]
    n = len(pairs)
    if n < 3:
        raise InvalidMeld(f"{n} cards: a meld needs at least 3")
    for c, sf in pairs:
        if not 0 <= sf < 52:
            raise InvalidMeld(f"stands_for {sf} is not a natural card")
        if c != JOKER and c != sf:
            raise InvalidMeld(f"natural {c} stands for {sf}")
        if c == JOKER and not 0 <= sf < 52:
            raise InvalidMeld("joker stands for nothing")
        if not (0 <= c < 52 or c == JOKER):
            raise InvalidMeld(f"bad card {c}")
    jokers = sum(1 for c, _ in pairs if c == JOKER)
    if jokers > rules.max_jokers_per_meld:
        raise InvalidMeld(f"{jokers} jokers > max_jokers_per_meld {rules.max_jokers_per_meld}")
    if n - jokers < rules.min_natural_cards_per_meld:
        raise InvalidMeld(f"{n - jokers} naturals < min_natural_cards_per_meld")
    sfs = [sf for _, sf in pairs]
    if kind == "set":
        if n > 4:
            raise InvalidMeld("a set has at most 4 cards")
        if len({rank_of(s) for s in sfs}) != 1:
            raise InvalidMeld("set of mixed ranks")
        if len({suit_of(s) for s in sfs}) != n:
            raise InvalidMeld("set with a repeated suit")
        return set_card_value(rank_of(sfs[0]), rules.ace_value) * n
    if kind == "run":
        if n > rules.max_run_length:
            raise InvalidMeld(f"a run has at most max_run_length = {rules.max_run_length} cards")
        if len({suit_of(s) for s in sfs}) != 1:
            raise InvalidMeld("run of mixed suits")
        for start in positions_of_rank(rank_of(sfs[0])):
            pos = list(range(start, start + n))
            if pos[-1] > 14:
                continue
            if all(p in positions_of_rank(rank_of(s)) for p, s in zip(pos, sfs)):
                return sum(position_value(p, rules.ace_low_value, rules.ace_value) for p in pos)
        raise InvalidMeld("stands_for cards are not consecutive positions in order")
    raise InvalidMeld(f"unknown meld kind {kind!r}")


def check_arrangement(hand, melds, leftover, rules) -> tuple[int, int]:
    """Check an arrangement of ``hand`` and return (sum of meld values, deadwood points).

    ``melds`` are objects with ``kind``, ``cards`` and ``value``. Checks every meld with
    :func:`meld_value` (and that its ``value`` field agrees), and that the melds and the leftover
    together are exactly the hand (so the melds are disjoint and drawn from the hand).
    Raises AssertionError with the reason.
    """
    used: Counter = Counter()
    total = 0
    for m in melds:
        try:
            v = meld_value(m.kind, m.cards, rules)
        except InvalidMeld as e:
            raise AssertionError(f"illegal meld {m}: {e}") from None
        assert int(m.value) == v, f"meld {m} claims value {m.value}, validator says {v}"
        total += v
        used.update(int(c) for c, _ in m.cards)
    used.update(int(c) for c in leftover)
    assert used == Counter(int(c) for c in hand), (
        f"melds + leftover {sorted(used.elements())} != hand {sorted(hand)}"
    )
    deadwood = sum(hand_points(int(c), rules.joker_penalty, rules.ace_value) for c in leftover)
    return total, deadwood


# --------------------------------------------------------------------------- packing


@dataclass
class OracleResult:
    max_melded_value: int
    min_deadwood: int
    can_open: bool
    opening_melds: list[OMeld] = field(default_factory=list)
    opening_leftover: list[int] = field(default_factory=list)
    deadwood_melds: list[OMeld] = field(default_factory=list)
    deadwood_leftover: list[int] = field(default_factory=list)


def legal_melds(hand, rules) -> dict[tuple[int, ...], OMeld]:
    """Every distinct sub-multiset of ``hand`` that is a legal meld -> its best reading.

    The sub-multisets are enumerated directly as count vectors (0..copies of each distinct card
    type), which is the bitmask-over-instances enumeration with equal multisets merged.
    """
    counts = Counter(int(c) for c in hand)
    types = sorted(counts)
    found: dict[tuple[int, ...], OMeld] = {}
    for pick in product(*(range(counts[t] + 1) for t in types)):
        if sum(pick) < 3:
            continue
        key = tuple(t for t, k in zip(types, pick) for _ in range(k))
        m = best_meld_reading(key, rules)
        if m is not None:
            found[key] = m
    return found


def legal_melds_by_mask(hand, rules) -> dict[tuple[int, ...], OMeld]:
    """Same as :func:`legal_melds`, enumerated as bitmasks over the card instances (slower;
    kept to cross-check the count-vector enumeration)."""
    inst = sorted(int(c) for c in hand)
    n = len(inst)
    seen: set[tuple[int, ...]] = set()
    found: dict[tuple[int, ...], OMeld] = {}
    for mask in range(1, 1 << n):
        if bin(mask).count("1") < 3:
            continue
        key = tuple(inst[i] for i in range(n) if mask >> i & 1)
        if key in seen:
            continue
        seen.add(key)
        m = best_meld_reading(key, rules)
        if m is not None:
            found[key] = m
    return found


def solve(hand, rules) -> OracleResult:
    """Best arrangements of ``hand`` (a list of card types) under ``rules``.

    Returns the largest opening value over all sets of disjoint legal melds, the smallest
    deadwood (hand points of the unmelded cards), and one arrangement achieving each.
    """
    hand = sorted(int(c) for c in hand)
    types = sorted(set(hand))
    index = {t: i for i, t in enumerate(types)}
    start = [0] * len(types)
    for c in hand:
        start[index[c]] += 1
    start = tuple(start)

    # melds_from[i]: the legal melds whose lowest card is types[i], as (count vector, meld).
    # (When types[i] is the lowest card left, a meld holding it that fits in what is left
    # has no lower card, so these are exactly the candidates.)
    melds_from: list[list] = [[] for _ in types]
    for key, m in legal_melds(hand, rules).items():
        vec = [0] * len(types)
        for c in key:
            vec[index[c]] += 1
        melds_from[index[min(key)]].append((tuple(vec), m))

    # Objective "value": maximise sum of meld values; objective "deadwood": minimise
    # leftover hand points. memo[state] = (score, choice) with choice None (lowest card
    # stays in hand) or the meld laid.
    def run(objective: str):
        memo: dict[tuple[int, ...], tuple[int, object]] = {}
        better = (lambda a, b: a > b) if objective == "value" else (lambda a, b: a < b)

        def f(state):
            if state in memo:
                return memo[state][0]
            low = next((i for i, k in enumerate(state) if k), None)
            if low is None:
                memo[state] = (0, None)
                return 0
            # Option 1: the lowest card stays in hand.
            rest = list(state)
            rest[low] -= 1
            best = f(tuple(rest))
            if objective == "deadwood":
                best += hand_points(types[low], rules.joker_penalty, rules.ace_value)
            choice = None
            # Option 2: lay a legal meld that holds the lowest card and fits in what is left.
            for vec, m in melds_from[low]:
                if any(v > s for v, s in zip(vec, state)):
                    continue
                sub = f(tuple(s - v for s, v in zip(state, vec)))
                score = sub + (m.value if objective == "value" else 0)
                if better(score, best):
                    best, choice = score, (vec, m)
            memo[state] = (best, choice)
            return best

        score = f(start)
        # Walk the choices to recover one arrangement.
        chosen, leftover, state = [], [], start
        while any(state):
            low = next(i for i, k in enumerate(state) if k)
            choice = memo[state][1]
            if choice is None:
                leftover.append(types[low])
                rest = list(state)
                rest[low] -= 1
                state = tuple(rest)
            else:
                vec, m = choice
                chosen.append(m)
                state = tuple(s - v for s, v in zip(state, vec))
        return score, chosen, leftover

    value, omelds, oleft = run("value")
    deadwood, dmelds, dleft = run("deadwood")
    return OracleResult(
        max_melded_value=value,
        min_deadwood=deadwood,
        can_open=value >= rules.opening_threshold,
        opening_melds=omelds,
        opening_leftover=oleft,
        deadwood_melds=dmelds,
        deadwood_leftover=dleft,
    )
