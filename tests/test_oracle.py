"""Checks of the reference solver ``tests/oracle.py`` itself (RULES.md §1-2).

Every case in :data:`CASES` was worked out by hand; the comment above it shows the sums.
``tests/test_arrange.py`` reuses the same cases against ``handsim.games.hand.arrange``.

Classic rules: 2 jokers, joker_penalty 15, ace_low_value 1, max_jokers_per_meld 1,
min_natural_cards_per_meld 1, opening_threshold 51. Hand points: 2-10 face, J/Q/K 10, Ace 11.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from oracle import (  # noqa: E402
    JOKER,
    InvalidMeld,
    OMeld,
    check_arrangement,
    hand_points,
    legal_melds,
    legal_melds_by_mask,
    meld_readings,
    meld_value,
    solve,
)

from handsim.cards import parse_cards  # noqa: E402
from handsim.games.hand.rules import Rules  # noqa: E402

CLASSIC = Rules.preset("classic")


def rules_of(overrides: dict) -> Rules:
    return CLASSIC.replace(**overrides) if overrides else CLASSIC


# (id, hand, rule overrides, max_melded_value, min_deadwood)
CASES = [
    # max_run_length (VARIANTS.md #5).  3S..9S (7 cards, 42 points) splits into runs of at most 5
    # (3-4-5 + 6-7-8-9, or 3-4-5-6 + 7-8-9): all melded, 42, no deadwood.
    ("max-run-5-splits", "3S 4S 5S 6S 7S 8S 9S", {"max_run_length": 5}, 42, 0),
    # At 3 only two runs of 3 fit: leave the lowest card, 3S: 42 - 3 = 39, deadwood 3.
    ("max-run-3-leaves-one", "3S 4S 5S 6S 7S 8S 9S", {"max_run_length": 3}, 39, 3),
    # At 4, 3S..7S (5 cards) cannot split into runs of 3+: the best run of 4 is 4-5-6-7 = 22,
    # leaving 3S; the least deadwood leaves 3S too (3).
    ("max-run-4-of-five", "3S 4S 5S 6S 7S", {"max_run_length": 4}, 22, 3),
    # At 3: 5-6-7 = 18 leaves 3S 4S (deadwood 7).
    ("max-run-3-of-five", "3S 4S 5S 6S 7S", {"max_run_length": 3}, 18, 7),
    # A joker counts in the length: at 4, 4S 5S 6S 7S JK cannot all go in one run (5 cards) nor
    # two (6 or more).  5-6-7-JK=8 = 26 leaving 4S beats 4-5-6-7 = 22 leaving the joker (15)
    # and JK=3 4 5 6 = 18 leaving 7S: value 26, deadwood 4 (4S).
    ("max-run-4-joker", "4S 5S 6S 7S JK", {"max_run_length": 4}, 26, 4),
    # A-2-3 with the Ace low: 1 + 2 + 3 = 6.
    ("ace-low-run", "AH 2H 3H", {}, 6, 0),
    # Same with ace_low_value 11: 11 + 2 + 3 = 16.
    ("ace-low-run-11", "AH 2H 3H", {"ace_low_value": 11}, 16, 0),
    # Q-K-A with the Ace high: 10 + 10 + 11 = 31.
    ("ace-high-run", "QH KH AH", {}, 31, 0),
    # ace_value 10 (KA): Q-K-A = 30; a set of Aces 3 x 10 = 30; A-2-3 keeps ace_low_value (6).
    ("ace-high-run-10", "QH KH AH", {"ace_value": 10}, 30, 0),
    ("ace-set-10", "AS AH AD", {"ace_value": 10}, 30, 0),
    ("ace-low-run-ace10", "AH 2H 3H", {"ace_value": 10}, 6, 0),
    # K-A-2 wraps: no meld; with ace_value 1 the deadwood is 10 + 1 + 2 = 13.
    ("no-wrap-ace1", "KH AH 2H", {"ace_value": 1}, 0, 13),
    # Joker as 7H: 5 + 6 + 7 = 18 (as 4H only 4 + 5 + 6 = 15).
    ("joker-top-of-run", "JK 5H 6H", {}, 18, 0),
    # K and A fit together only in the window Q-K-A (K-A-2 wraps): joker = QH, 10+10+11 = 31.
    ("joker-must-be-queen", "KH AH JK", {}, 31, 0),
    # K-A-2 wraps: no meld. Deadwood 10 + 11 + 2 = 23.
    ("no-wrap", "KH AH 2H", {}, 0, 23),
    # Two 9H never in one set, and no run: no meld. Deadwood 9 + 9 + 9 = 27.
    ("no-duplicate-suit-set", "9H 9H 9S", {}, 0, 27),
    # 9H 9S JK is a set (joker = 9D or 9C) worth 27; the other 9H is left: deadwood 9.
    ("set-with-joker-plus-spare", "9H 9H 9S JK", {}, 27, 9),
    # 7S 7S JK: repeated suit, repeated rank: no meld. Deadwood 7 + 7 + 15 = 29.
    ("same-card-twice-no-set", "7S 7S JK", {}, 0, 29),
    # Joker in place of a natural we hold: set 7H 7S JK = 21 and run 5H 6H JK(=7H) = 18,
    # total 39, nothing left. Using the natural 7H in the run instead (5-6-7-JK(8H) = 26) leaves
    # 7S JK unmelded (max one joker per meld): 26 and deadwood 22.
    ("joker-replaces-held-natural", "5H 6H 7H 7S JK JK", {}, 39, 0),
    # The two copies of 5H and of 6H go to two runs: 4-5-6 = 15, 5-6-7 = 18, total 33.
    ("two-copies-two-runs", "4H 5H 6H 5H 6H 7H", {}, 33, 0),
    # Two copies of AH: Q-K-A (31) and A-2-3 (6) = 37 (below 51: cannot open).
    ("two-aces-high-and-low", "QH KH AH AH 2H 3H", {}, 37, 0),
    # All 13 hearts. The run A..K is worth 1 + (2+..+10 = 54) + 30 = 85, but the same cards
    # can all be melded with the Ace high (e.g. the 13-card run 2..K,A): 54 + 30 + 11 = 95.
    ("thirteen-hearts", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", {}, 95, 0),
    # Same with ace_low_value 11: A..K = 11 + 54 + 30 = 95 as well.
    ("thirteen-hearts-ace11", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", {"ace_low_value": 11}, 95, 0),
    # Set of four 9s (36) + 10-J-Q of hearts (30) + 4-5-6 of diamonds (15) = 81.
    # (9H into the heart run: 9-10-J-Q 39 + three 9s 27 + 15 = 81 too.)
    ("set-of-four-plus-runs", "9S 9H 9D 9C 10H JH QH 4D 5D 6D", {}, 81, 0),
    # One joker per meld: AH 2H 3H JK(=4H) = 1+2+3+4 = 10, the other joker stays: deadwood 15.
    ("joker-left-penalty-15", "AH 2H 3H JK JK", {}, 10, 15),
    # Same with joker_penalty 30: deadwood 30.
    ("joker-left-penalty-30", "AH 2H 3H JK JK", {"joker_penalty": 30}, 10, 30),
    # Value and deadwood want different arrangements: set 3H 3S 3D = 9 (leaves AH 2H = 13) vs
    # run A-2-3 = 6 (leaves 3S 3D = 6). Best value 9, least deadwood 6.
    ("value-vs-deadwood", "AH 2H 3H 3S 3D", {}, 9, 6),
    # Two jokers allowed: 5H JK JK as 5-6-7 = 18 (set of 5s 15, 3-4-5 12).
    ("two-jokers-run", "JK JK 5H", {"max_jokers_per_meld": 2}, 18, 0),
    # One joker per meld: no meld. Deadwood 15 + 15 + 5 = 35.
    ("two-jokers-not-allowed", "JK JK 5H", {}, 0, 35),
    # Two jokers allowed but two naturals required: no meld, deadwood 35.
    ("min-naturals-2", "JK JK 5H", {"max_jokers_per_meld": 2, "min_natural_cards_per_meld": 2}, 0, 35),
    # Three jokers + AH: set of Aces 4 x 11 = 44 beats J-Q-K-A (41) and A-2-3-4 (10).
    ("three-jokers-ace-set", "JK JK JK AH", {"jokers": 4, "max_jokers_per_meld": 3}, 44, 0),
    # A set has at most 4 cards, so one card stays: four 7s = 28 leave the joker (15), but
    # 7H 7D 7C JK(=7S) = 28 leaves 7S: deadwood 7.
    ("set-at-most-four", "7S 7H 7D 7C JK", {}, 28, 7),
    # JK K A = Q-K-A 31 (2H left, deadwood 2) vs A-2-JK(3) 6 (KH left, deadwood 10).
    ("wrap-needs-choice", "KH AH 2H JK", {}, 31, 2),
    # Jokers at both ends of a run, best window 10-J-Q-K: 10+10+10+10 = 40
    # (8..J 37, 9..Q 39).
    ("jokers-both-ends", "JK 10S JS JK", {"max_jokers_per_meld": 2}, 40, 0),
    # JK Q K: joker as AS high (10+10+11 = 31) beats JS (30).
    ("joker-as-ace-high", "JK QS KS", {}, 31, 0),
    # JK 2 3: joker as 4S (9) beats AS low (6) ...
    ("joker-not-ace-low", "JK 2S 3S", {}, 9, 0),
    # ... unless the low Ace counts 11: 11 + 2 + 3 = 16.
    ("joker-as-ace-low-11", "JK 2S 3S", {"ace_low_value": 11}, 16, 0),
    # Joker in the middle: 2-3-JK(4)-5-6 = 20.
    ("joker-in-middle", "2C 3C 5C 6C JK", {}, 20, 0),
    # 8S 9S 10S (27) vs 8S 8H 8D (24) share 8S. Run: value 27, deadwood 8+8 = 16
    # (set leaves 9 + 10 = 19).
    ("run-or-set-sharing", "8S 8H 8D 9S 10S", {}, 27, 16),
    # Nothing melds: deadwood 2 + 5 + 9 + 10 + 15 = 41.
    ("nothing", "2S 5H 9D KC JK", {}, 0, 41),
    # Four jokers and one natural, no joker limit: run 5..9 = 35 (5..8 = 26 + joker left).
    ("four-jokers-one-natural", "JK JK JK JK 5H",
     {"jokers": 4, "max_jokers_per_meld": 4, "joker_penalty": 30}, 35, 0),
    # Set of Aces with a joker: 4 x 11 = 44.
    ("ace-set-joker", "AS AH AD JK", {}, 44, 0),
]


@pytest.mark.parametrize("cid,hand,overrides,value,deadwood", CASES, ids=[c[0] for c in CASES])
def test_hand_worked_cases(cid, hand, overrides, value, deadwood):
    rules = rules_of(overrides)
    cards = parse_cards(hand)
    res = solve(cards, rules)
    assert res.max_melded_value == value
    assert res.min_deadwood == deadwood
    assert res.can_open == (value >= rules.opening_threshold)
    v, _ = check_arrangement(cards, res.opening_melds, res.opening_leftover, rules)
    assert v == value
    _, d = check_arrangement(cards, res.deadwood_melds, res.deadwood_leftover, rules)
    assert d == deadwood


def test_can_open_flags():
    assert solve(parse_cards("9S 9H 9D 9C 10H JH QH 4D 5D 6D"), CLASSIC).can_open  # 81
    assert not solve(parse_cards("QH KH AH AH 2H 3H"), CLASSIC).can_open  # 37
    assert not solve(parse_cards("QH KH AH AH 2H 3H"), CLASSIC.replace(opening_threshold=38)).can_open
    assert solve(parse_cards("QH KH AH AH 2H 3H"), CLASSIC.replace(opening_threshold=37)).can_open


def test_value_vs_deadwood_witnesses_differ():
    res = solve(parse_cards("AH 2H 3H 3S 3D"), CLASSIC)
    assert [m.kind for m in res.opening_melds] == ["set"]
    assert [m.kind for m in res.deadwood_melds] == ["run"]


def test_joker_replaces_held_natural_witness():
    res = solve(parse_cards("5H 6H 7H 7S JK JK"), CLASSIC)
    run = next(m for m in res.opening_melds if m.kind == "run")
    assert (JOKER, parse_cards("7H")[0]) in run.cards


# --------------------------------------------------------------------------- the meld validators


def pairs(text_pairs: str):
    """'AH 2H JK=3H' -> [(AH, AH), (2H, 2H), (JK, 3H)]."""
    out = []
    for tok in text_pairs.split():
        if "=" in tok:
            c, sf = tok.split("=")
            out.append((parse_cards(c)[0], parse_cards(sf)[0]))
        else:
            t = parse_cards(tok)[0]
            out.append((t, t))
    return out


@pytest.mark.parametrize(
    "kind,text,overrides,value",
    [
        ("run", "AH 2H 3H", {}, 6),
        ("run", "AH 2H 3H", {"ace_low_value": 11}, 16),
        ("run", "QH KH AH", {}, 31),
        ("run", "JK=QH KH AH", {}, 31),
        ("run", "JK=AH 2H 3H", {}, 6),
        ("run", "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", {}, 95),
        ("set", "7S 7H JK=7C", {}, 21),
        ("set", "AS AH AD AC", {}, 44),
        ("set", "JK=KS JK=KH KD", {"max_jokers_per_meld": 2}, 30),
    ],
)
def test_meld_value_accepts(kind, text, overrides, value):
    assert meld_value(kind, pairs(text), rules_of(overrides)) == value


@pytest.mark.parametrize(
    "kind,text,overrides",
    [
        ("run", "KH AH 2H", {}),  # wrap
        ("run", "JK=KH AH 2H", {}),  # wrap through a joker
        ("run", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", {}),  # 14 cards, both Aces
        ("run", "3H 2H AH", {}),  # not in position order
        ("run", "2H 3H", {}),  # too short
        ("run", "2H 3H 5H", {}),  # gap
        ("run", "2H 3S 4H", {}),  # mixed suits
        ("run", "JK=2H JK=3H 4H", {}),  # two jokers, max 1
        ("run", "JK=2H JK=3H 4H", {"max_jokers_per_meld": 2, "min_natural_cards_per_meld": 2}),
        ("run", "2H 3H 4S=4H", {}),  # a natural standing for another card
        ("set", "9H 9H 9S", {}),  # repeated suit
        ("set", "9H 9S JK=9S", {}),  # joker for a suit already there
        ("set", "9H 9S 8D", {}),  # mixed ranks
        ("set", "9H 9S 9D 9C JK=9C", {}),  # five cards
        ("set", "JK=9H JK=9S JK=9D", {"max_jokers_per_meld": 3}),  # no natural
    ],
)
def test_meld_value_rejects(kind, text, overrides):
    with pytest.raises(InvalidMeld):
        meld_value(kind, pairs(text), rules_of(overrides))


def test_readings_agree_with_validator():
    """Every reading found by brute force passes the independent validator with its value, and
    the readings of single-suit windows found by construction are all found."""
    rng = random.Random(7)
    for overrides in ({}, {"max_jokers_per_meld": 2}, {"max_jokers_per_meld": 4, "jokers": 4, "ace_low_value": 11}):
        rules = rules_of(overrides)
        for _ in range(3000):
            n = rng.randint(3, 6)
            pool = [t for t in rng.sample(range(52), 2) for _ in range(1)]
            suit = rng.randrange(4)
            lo = rng.randint(1, 12)
            pool = [(suit * 13 + (p - 1) % 13) for p in range(lo, min(lo + 6, 15))] * 2 + pool + [JOKER] * 4
            cards = rng.sample(pool, n)
            for m in meld_readings(cards, rules):
                assert sorted(m.card_list()) == sorted(cards)
                assert meld_value(m.kind, m.cards, rules) == m.value
        # Construct every run window directly and check it is found with its value.
        for suit in range(4):
            for lo in range(1, 13):
                for hi in range(lo + 2, min(lo + 12, 14) + 1):
                    sfs = [suit * 13 + (1 if p == 14 else p) - 1 for p in range(lo, hi + 1)]
                    for j in range(len(sfs)):  # at most one joker at any single place
                        cards = [JOKER if i == j else c for i, c in enumerate(sfs)]
                        found = [m for m in meld_readings(cards, rules) if m.kind == "run"]
                        want = meld_value("run", [(c, s) for c, s in zip(cards, sfs)], rules)
                        assert want in [m.value for m in found]


# --------------------------------------------------------------------------- packing, cross-checked


def partition_solver(hand, rules):
    """A second packing search: every way to split the card instances into groups (restricted
    growth strings; group 0 is 'left in hand'), each other group must be a legal meld."""
    hand = list(hand)
    n = len(hand)
    best_v, best_d = 0, sum(hand_points(c, rules.joker_penalty, rules.ace_value) for c in hand)
    cache = {}

    def meld_best(group):
        key = tuple(sorted(group))
        if key not in cache:
            rs = meld_readings(key, rules)
            cache[key] = max((m.value for m in rs), default=None)
        return cache[key]

    labels = [0] * n

    def rec(i, used):
        nonlocal best_v, best_d
        if i == n:
            groups = {}
            for c, lab in zip(hand, labels):
                groups.setdefault(lab, []).append(c)
            total = 0
            for lab, g in groups.items():
                if lab == 0:
                    continue
                v = meld_best(g)
                if v is None:
                    return
                total += v
            left = sum(hand_points(c, rules.joker_penalty, rules.ace_value) for c in groups.get(0, []))
            best_v, best_d = max(best_v, total), min(best_d, left)
            return
        for lab in range(0, used + 2):
            labels[i] = lab
            rec(i + 1, max(used, lab))

    rec(0, 0)
    return best_v, best_d


def test_oracle_matches_partition_solver():
    rng = random.Random(11)
    for k in range(400):
        rules = CLASSIC.replace(
            jokers=rng.choice([2, 4]),
            max_jokers_per_meld=rng.choice([1, 2, 4]),
            ace_low_value=rng.choice([1, 11]),
            joker_penalty=rng.choice([15, 30]),
            ace_value=rng.choice([1, 10, 11]),
        )
        suits = rng.sample(range(4), rng.randint(1, 2))
        lo = rng.randint(1, 13)
        ranks = [(lo - 1 + i) % 13 + 1 for i in range(rng.randint(3, 6))]
        deck = [s * 13 + r - 1 for s in suits for r in ranks for _ in range(2)] + [JOKER] * rules.jokers
        hand = rng.sample(deck, min(len(deck), rng.randint(3, 7)))
        res = solve(hand, rules)
        assert (res.max_melded_value, res.min_deadwood) == partition_solver(hand, rules), hand


def test_oracle_witnesses_and_bounds():
    rng = random.Random(3)
    deck = [t for t in range(52) for _ in range(2)] + [JOKER] * 4
    rules = CLASSIC.replace(jokers=4, max_jokers_per_meld=4, joker_penalty=30)
    for _ in range(100):
        hand = rng.sample(deck, rng.randint(6, 10))
        res = solve(hand, rules)
        assert check_arrangement(hand, res.opening_melds, res.opening_leftover, rules)[0] == res.max_melded_value
        assert check_arrangement(hand, res.deadwood_melds, res.deadwood_leftover, rules)[1] == res.min_deadwood
        assert 0 <= res.min_deadwood <= sum(hand_points(c, 30) for c in hand)
        # Adding a card never lowers the best value.
        extra = rng.choice([c for c in deck if hand.count(c) < deck.count(c)])
        assert solve(hand + [extra], rules).max_melded_value >= res.max_melded_value


def test_legal_melds_dedupes_copies():
    melds = legal_melds(parse_cards("5H 5H 6H 6H 7H 7H"), CLASSIC)
    # Distinct multisets: only 5-6-7 is a meld (any larger multiset repeats a card).
    assert list(melds) == [tuple(parse_cards("5H 6H 7H"))]
    assert isinstance(next(iter(melds.values())), OMeld)


def test_count_vector_enumeration_equals_bitmask_enumeration():
    rng = random.Random(5)
    for _ in range(60):
        rules = CLASSIC.replace(jokers=4, max_jokers_per_meld=rng.choice([1, 2, 4]))
        suits = rng.sample(range(4), rng.randint(1, 2))
        deck = [s * 13 + r for s in suits for r in range(13) for _ in range(2)] + [JOKER] * 4
        hand = rng.sample(deck, rng.randint(3, 10))
        assert legal_melds(hand, rules) == legal_melds_by_mask(hand, rules)
