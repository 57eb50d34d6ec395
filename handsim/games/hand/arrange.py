"""Best arrangement of a hand into melds (RULES.md sections 1, 2 and 4).

Public, checked wrappers around the numba search in :mod:`handsim.games.hand.kernels.arrange`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from handsim.cards import JOKER, CardError, counts_of, format_card, hand_value, parse_cards, sort_key
from handsim.games.hand.rules import Rules


@dataclass(frozen=True)
class Meld:
    """One meld: ``kind`` ``"run"`` or ``"set"``; ``cards`` as (card type, stands_for type)
    pairs (runs in position order); ``value`` its opening value in points."""

    kind: str
    cards: tuple[tuple[int, int], ...]
    value: int

    def text(self, symbols: bool = False) -> str:
        parts = []
        for c, s in self.cards:
            parts.append(f"JK={format_card(s, symbols)}" if c == JOKER else format_card(c, symbols))
        return " ".join(parts)

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "cards": [format_card(c) for c, _ in self.cards],
            "stands_for": [format_card(s) for _, s in self.cards],
            "value": self.value,
        }


@dataclass(frozen=True)
class Arrangement:
    """Best arrangements of one hand.

    Attributes
    ----------
    max_melded_value : int
        Highest opening value (points) that melds made from the hand can reach.
    min_deadwood : int
        Fewest points (Ace ``ace_value``, 11 in classic; joker ``joker_penalty``) the hand can leave outside melds.
    can_open : bool
        ``max_melded_value >= opening_threshold``.
    opening_melds, opening_leftover
        An arrangement reaching ``max_melded_value`` and its left-over card types.
    deadwood_melds, deadwood_leftover
        An arrangement reaching ``min_deadwood`` and its left-over card types.
    """

    max_melded_value: int
    min_deadwood: int
    can_open: bool
    opening_melds: list[Meld] = field(default_factory=list)
    opening_leftover: list[int] = field(default_factory=list)
    deadwood_melds: list[Meld] = field(default_factory=list)
    deadwood_leftover: list[int] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "max_melded_value": self.max_melded_value,
            "min_deadwood": self.min_deadwood,
            "can_open": self.can_open,
            "opening": {
                "melds": [m.to_json() for m in self.opening_melds],
                "leftover": [format_card(c) for c in self.opening_leftover],
            },
            "least_deadwood": {
                "melds": [m.to_json() for m in self.deadwood_melds],
                "leftover": [format_card(c) for c in self.deadwood_leftover],
            },
        }


def _decode(path, n, ace_low, ace) -> tuple[list[Meld], np.ndarray]:
    from handsim.games.hand.kernels.melds import is_set, meld_cards, meld_value

    melds = []
    used = np.zeros(53, dtype=np.int64)
    buf = np.zeros((14, 2), dtype=np.int16)
    for i in range(n):
        k = meld_cards(path[i], buf)
        cards = tuple((int(buf[j, 0]), int(buf[j, 1])) for j in range(k))
        for c, _ in cards:
            used[c] += 1
        melds.append(Meld("set" if is_set(path[i]) else "run", cards, int(meld_value(path[i], ace_low, ace))))
    return melds, used


def _run_search(hand: np.ndarray, rv: np.ndarray, mode: int):
    from handsim.games.hand.kernels import arrange as K

    W = np.zeros((6, 16), dtype=np.int32)
    K.make_weights(rv, mode, W)
    path = np.zeros((K.MAX_MELDS, 6), dtype=np.int32)
    bestpath = np.zeros((K.MAX_MELDS, 6), dtype=np.int32)
    best = np.zeros(2, dtype=np.int64)
    val, n = K.search(hand, W, path, bestpath, best, -1)
    return int(val), bestpath[:n].copy()


#: Most cards :func:`arrange` takes: hand_size + 1 (the most a player ever holds: a starter's first
#: turn, or any hand after a draw) under the largest hand_size, 20.  The search time grows
#: exponentially with the hand; at 21 cards it stays under 0.05 s with up to 2 jokers and under
#: 0.4 s with 4 (the worst hands we found by hill-climbing), a few seconds with 7-8 jokers.
MAX_CARDS = 21


def arrange(cards, rules: Rules | None = None) -> Arrangement:
    """Best arrangements of a hand: most opening value melded, and least deadwood.

    Parameters
    ----------
    cards : str or sequence of int
        The hand, as text (``"KS 7H 9D JK"``) or card types 0..52.
    rules : Rules, optional
        Rule options (``jokers``, ``max_jokers_per_meld``, ``min_natural_cards_per_meld``,
        ``ace_low_value``, ``joker_penalty``, ``opening_threshold``); default classic.

    Returns
    -------
    Arrangement

    Raises
    ------
    CardError
        Malformed cards, more copies than the deck holds, an empty hand, or more than
        :data:`MAX_CARDS` (21) cards.
    """
    from handsim.games.hand.kernels.arrange import DEAD, OPEN

    rules = rules or Rules.preset("classic")
    if isinstance(cards, str):
        cards = parse_cards(cards, jokers=rules.jokers)
    else:
        cards = [int(c) for c in cards]
        if not cards:
            raise CardError("no cards given: expected cards such as 'KS 7H 9D JK'")
        for c in cards:
            if not 0 <= c <= JOKER:
                raise CardError(f"card type {c} out of range 0..52")
    if len(cards) > MAX_CARDS:
        raise CardError(f"{len(cards)} cards: the arrangement search takes at most {MAX_CARDS} "
                        "(hand_size + 1 with the largest hand_size, 20)")
    hand = counts_of(cards)
    if hand[:52].max(initial=0) > 2 or hand[JOKER] > rules.jokers:
        raise CardError("more copies of a card than the deck holds")
    rv = rules.to_vector()
    total_dead = sum(
        hand_value(c, rules.joker_penalty, rules.ace_value) for c in cards
    )
    oval, opath = _run_search(hand, rv, OPEN)
    dval, dpath = _run_search(hand, rv, DEAD)
    omelds, oused = _decode(opath, len(opath), rules.ace_low_value, rules.ace_value)
    dmelds, dused = _decode(dpath, len(dpath), rules.ace_low_value, rules.ace_value)

    def leftover(used):
        rest = hand.astype(np.int64) - used
        return sorted((t for t in range(53) for _ in range(int(rest[t]))), key=sort_key)

    return Arrangement(
        max_melded_value=oval,
        min_deadwood=total_dead - dval,
        can_open=oval >= rules.opening_threshold,
        opening_melds=omelds,
        opening_leftover=leftover(oused),
        deadwood_melds=dmelds,
        deadwood_leftover=leftover(dused),
    )
