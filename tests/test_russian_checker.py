"""The pure-Python check of a Russian Hand play (``handsim.games.russian.checker``, RULES.md §8):
hand-built plays, legal and not, and every play the search finds on random positions."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from russian_oracle import random_position  # noqa: E402

from handsim.cards import parse_cards  # noqa: E402
from handsim.games.russian.checker import check_play, is_legal_play  # noqa: E402
from handsim.games.russian.rearrange import parse_table, rearrange  # noqa: E402
from handsim.games.russian.rules import RussianRules  # noqa: E402


def problems(before, hand, played, after, **kw):
    return check_play(parse_table(before), parse_cards(hand, allow_empty=True), parse_cards(played, allow_empty=True),
                      parse_table(after), **kw)


LEGAL = [
    # a lay-off
    ("5H 6H 7H | 9S 9D 9C", "8H 4C", "8H", "5H 6H 7H 8H | 9S 9D 9C"),
    # a run split by the second 7H
    ("5H 6H 7H 8H 9H 10H", "7H", "7H", "5H 6H 7H | 7H 8H 9H 10H"),
    # a set broken to extend two runs, 9D 10D JD new
    ("9S 9H 9D | 6S 7S 8S | 10H JH QH", "10D JD", "10D JD", "6S 7S 8S 9S | 9H 10H JH QH | 9D 10D JD"),
    # the Ace moved from A-2-3-4 to Q-K-A
    ("AS 2S 3S 4S", "QS KS 2D", "QS KS", "2S 3S 4S | QS KS AS"),
    # melds listed in any order, cards in any order
    ("5H 6H 7H | 9S 9D 9C", "8H", "8H", "9C 9S 9D | 8H 7H 6H 5H"),
    # the whole hand into new melds on an empty table (going out)
    ("", "2C 3C 4C 9S 9H 9D", "9S 9H 9D 2C 3C 4C", "2C 3C 4C | 9S 9H 9D"),
]


@pytest.mark.parametrize("before, hand, played, after", LEGAL)
def test_legal_plays(before, hand, played, after):
    assert problems(before, hand, played, after) == []


@pytest.mark.parametrize("before, hand, played, after, message", [
    ("5H 6H 7H", "8H", "", "5H 6H 7H",
     "a play must put at least one hand card on the table (else the turn is a draw)"),
    ("5H 6H 7H", "4C", "8H", "5H 6H 7H 8H", "8H is played but not in the hand"),
    ("5H 6H 7H", "8H", "8H", "5H 6H 7H 8H 9H",
     "the table after is not the table before plus the played cards: 9H appears from nowhere"),
    ("5H 6H 7H | 9S 9D 9C", "8H", "8H", "5H 6H 7H 8H",
     "the table after is not the table before plus the played cards: 9S 9D 9C are missing"),
    ("5H 6H 7H", "9H", "9H", "5H 6H 7H 9H",
     "the table after holds an illegal meld 5H 6H 7H 9H (meld 1): not consecutive: missing 8H"),
    ("5H 6H 7H | 9S 9D 9C", "9H 9H", "9H 9H", "5H 6H 7H | 9S 9D 9C 9H 9H",
     "the table after holds an illegal meld 9S 9D 9C 9H 9H (meld 2): a set has at most 4 cards (got 5)"),
    ("QS KS AS", "2S", "2S", "QS KS AS 2S",
     "the table after holds an illegal meld QS KS AS 2S (meld 1): QS KS AS 2S: K-A-2 wraps (an Ace is low or high, "
     "never both)"),
    ("5H 6H 7H 8H", "7H", "7H", "5H 6H 7H | 7H 8H",
     "the table after holds an illegal meld 7H 8H (meld 2): needs at least 3 cards (got 2)"),
])
def test_illegal_plays(before, hand, played, after, message):
    assert problems(before, hand, played, after) == [message]


def test_several_problems_are_all_named():
    found = problems("5H 6H 7H", "4C", "8H", "5H 6H 7H 8H 9H")
    assert found == ["8H is played but not in the hand",
                     "the table after is not the table before plus the played cards: 9H appears from nowhere"]


def test_an_illegal_table_before_is_named():
    assert problems("5H 6H 8H", "9H", "9H", "5H 6H 8H 9H")[0] == (
        "the table before holds an illegal meld 5H 6H 8H (meld 1): not consecutive: missing 7H")


def test_first_round():
    # a lay-off is not allowed in the first round; a new meld is
    assert problems("5H 6H 7H", "8H", "8H", "5H 6H 7H 8H", first_round=True) == [
        "first round: only new melds of hand cards may be laid, but the table's 5H 6H 7H was changed"]
    assert problems("5H 6H 7H", "2C 3C 4C 9S 9H 9D", "2C 3C 4C 9S 9H 9D",
                    "5H 6H 7H | 2C 3C 4C | 9S 9H 9D", first_round=True) == []
    # rearranging the table, even with the same cards, changes its melds
    assert problems("5H 6H 7H 8H 9H 10H", "2C 3C 4C", "2C 3C 4C", "5H 6H 7H | 8H 9H 10H | 2C 3C 4C",
                    first_round=True) == [
        "first round: only new melds of hand cards may be laid, but the table's 5H 6H 7H 8H 9H 10H was changed"]
    one = RussianRules.preset(first_round="one_meld")
    assert problems("", "2C 3C 4C 9S 9H 9D", "2C 3C 4C 9S 9H 9D", "2C 3C 4C | 9S 9H 9D",
                    first_round=True, rules=one) == ["first round (first_round = one_meld): one new meld only, not 2"]
    assert problems("", "2C 3C 4C 9S", "2C 3C 4C", "2C 3C 4C", first_round=True, rules=one) == []
    free = RussianRules.preset(first_round="free")
    assert problems("5H 6H 7H", "8H", "8H", "5H 6H 7H 8H", first_round=True, rules=free) == []
    # later turns: no restriction
    assert problems("5H 6H 7H", "8H", "8H", "5H 6H 7H 8H", first_round=False) == []


def test_every_play_the_search_finds_is_legal_and_a_broken_one_is_not():
    rng = random.Random(3)
    checked = 0
    for _ in range(300):
        table, hand = random_position(rng)
        p = rearrange(table, hand)
        if not p.n_placed:
            continue
        assert check_play(table, hand, p.placed, p.melds) == []
        q = rearrange(table, hand, first_round=True)
        if q.n_placed:
            assert is_legal_play(table, hand, q.placed, list(table) + list(q.melds), first_round=True)
        # drop one played card from the table after: cards go missing and (usually) a meld breaks
        melds = [list(m) for m in p.melds]
        victim = next(m for m in melds if p.placed[0] in m)
        victim.remove(p.placed[0])
        assert any("is missing" in x for x in check_play(table, hand, p.placed, melds))
        checked += 1
    assert checked > 150
