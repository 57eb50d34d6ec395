"""The check of one Russian Hand play (RULES.md §2, §8): :func:`check_play` and :func:`is_legal_play`;
:mod:`handsim.games.russian.checker` describes them and re-exports them."""

from __future__ import annotations

import functools
from collections import Counter
from types import SimpleNamespace
from typing import Sequence

from handsim.cards import JOKER, format_cards
from handsim.melds import validate_meld

from ..rules import RussianRules


_MELD_RULES = SimpleNamespace(max_jokers_per_meld=0, min_natural_cards_per_meld=3, ace_low_value=1,
                             ace_value=11)

Melds = Sequence[Sequence[int]]


def _cards(counter: Counter) -> str:
    return format_cards(sorted(counter.elements(), key=lambda t: (t // 13, t % 13)))


def _meld_problem(meld: Sequence[int]) -> str:
    """Why ``meld`` is not a legal Russian Hand meld, or ``""``."""
    return _meld_problem_of(tuple(meld))


@functools.lru_cache(maxsize=65536)
def _meld_problem_of(meld: tuple[int, ...]) -> str:
    # a replayed game names the same melds again and again (every play logs the whole table)
    if JOKER in meld:
        return "Russian Hand has no jokers"
    m = validate_meld([(c, c) for c in meld], _MELD_RULES)
    return "" if m.ok else m.reason


def check_play(table_before: Melds, hand: Sequence[int], played: Sequence[int], table_after: Melds, *,
               first_round: bool = False, rules: RussianRules | None = None) -> list[str]:
    """Problems with one Russian Hand play (RULES.md §8); an empty list means it is legal.

    Parameters
    ----------
    table_before, table_after : sequence of sequence of int
        The table's melds before and after the play, as card types (``handsim.cards``).
    hand : sequence of int
        The player's hand before the play.
    played : sequence of int
        The hand cards put on the table.
    first_round : bool
        Whether the play is in the first round of turns (until every player has had one turn).
    rules : RussianRules, optional
        Gives ``first_round`` (``new_melds``, ``one_meld`` or ``free``); default the preset.

    Returns
    -------
    list of str
        One line per problem, e.g. ``"7H is played but not in the hand"`` or
        ``"the table after holds an illegal meld 5H 6H 8H: not consecutive: missing 7H"``.
    """
    rules = rules or RussianRules.preset()
    if _is_legal_fast(table_before, hand, played, table_after, first_round and rules.first_round != "free"):
        return []
    problems = []
    before_cards = Counter(c for m in table_before for c in m)
    after_cards = Counter(c for m in table_after for c in m)
    played_cards = Counter(played)
    if not played:
        problems.append("a play must put at least one hand card on the table (else the turn is a draw)")
    missing = played_cards - Counter(hand)
    if missing:
        problems.append(f"{_cards(missing)} {'is' if sum(missing.values()) == 1 else 'are'} played but not in the hand")
    for i, m in enumerate(table_before):
        why = _meld_problem(m)
        if why:
            problems.append(f"the table before holds an illegal meld {format_cards(m)} (meld {i + 1}): {why}")
    expected = before_cards + played_cards
    if after_cards != expected:
        extra, lost = after_cards - expected, expected - after_cards
        parts = []
        if extra:
            parts.append(f"{_cards(extra)} appear{'s' if sum(extra.values()) == 1 else ''} from nowhere")
        if lost:
            parts.append(f"{_cards(lost)} {'is' if sum(lost.values()) == 1 else 'are'} missing")
        problems.append("the table after is not the table before plus the played cards: " + "; ".join(parts))
    for i, m in enumerate(table_after):
        why = _meld_problem(m)
        if why:
            problems.append(f"the table after holds an illegal meld {format_cards(m)} (meld {i + 1}): {why}")
    if first_round and rules.first_round != "free":
        old = Counter(tuple(sorted(m)) for m in table_before)
        new = Counter(tuple(sorted(m)) for m in table_after)
        gone = old - new
        if gone:
            problems.append(f"first round: only new melds of hand cards may be laid, but the table's "
                            f"{format_cards(next(iter(gone)))} was changed")
        laid = sum((new - old).values())
        if rules.first_round == "one_meld" and laid != 1:
            problems.append(f"first round (first_round = one_meld): one new meld only, not {laid}")
    return problems


def _is_legal_fast(table_before: Melds, hand: Sequence[int], played: Sequence[int], table_after: Melds,
                   restricted: bool) -> bool:
    """Whether :func:`check_play` would find no problem, decided quickly: the same conditions
    (a card played, the played cards in the hand, the table after holding exactly the table
    before plus the played cards, every meld legal, the first-round rule when ``restricted``)
    tested without building the messages.  A replayed game calls :func:`check_play` for every
    play, and nearly every play is legal; ``False`` sends it to the full check, which names
    the problems."""
    if not played:
        return False
    try:
        before = [c for m in table_before for c in m]
        after = [c for m in table_after for c in m]
        if len(after) != len(before) + len(played) or sorted(after) != sorted(before + list(played)):
            return False
        left = list(hand)
        for c in played:
            left.remove(c)  # ValueError: not in the hand
        for m in table_before:
            if _meld_problem(m):
                return False
        for m in table_after:
            if _meld_problem(m):
                return False
    except (TypeError, ValueError):
        return False
    return not restricted  # the first round: the full check compares the melds


def is_legal_play(table_before: Melds, hand: Sequence[int], played: Sequence[int], table_after: Melds, *,
                  first_round: bool = False, rules: RussianRules | None = None) -> bool:
    """Whether :func:`check_play` finds no problem."""
    return not check_play(table_before, hand, played, table_after, first_round=first_round, rules=rules)
