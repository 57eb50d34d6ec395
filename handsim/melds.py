"""Melds in pure Python: sets, runs, jokers, lay-offs and joker swaps (RULES.md sections 1, 2, 5).

This is the readable statement of what a legal meld is; the numba kernels are checked
against it by :mod:`handsim.games.hand.checker`.

A meld on the table is a sequence of ``(card, stands_for)`` pairs of card types
(see :mod:`handsim.cards`): a natural card stands for itself, a joker (``52``) stands for
the natural card it represents.  Run positions are ``1..14`` (``docs/design.md``):
position 1 is the Ace low, 2..13 are 2..K, 14 is the Ace high.  A run's Ace position
follows from its other cards: an Ace next to a 2 is low, an Ace next to a King is high.

Opening value (points) of a card in a meld, from the card it stands for:
2-10 face value, J/Q/K 10, Ace ``rules.ace_value`` (11 in classic), except an Ace at run
position 1 which counts ``rules.ace_low_value``.

A joker in a run stands for one fixed position.  A joker in a set stands for a suit the
set's naturals lack; which one is recorded, but since RULES.md section 5 lets any lacking
suit replace it, the record is not binding: when a natural of the recorded suit joins the
set (lay-off or swap), the joker moves to a suit still free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from handsim.cards import JOKER, N_SUITS, card_type, format_card, format_cards, n_of, rank_of, suit_of

#: ``(card, stands_for)``: a card type and the natural card type it stands for.
Pair = tuple[int, int]

ACE_LOW = 1
ACE_HIGH = 14
MIN_MELD = 3
MAX_SET = 4
MAX_RUN = 13


def max_run(rules) -> int:
    """Longest legal run under ``rules``: its ``max_run_length`` (Hand, RULES.md section 2), or
    13 for rules without that option (Russian Hand)."""
    return getattr(rules, "max_run_length", MAX_RUN)


@dataclass(frozen=True)
class MeldCheck:
    """Verdict on one meld.

    Attributes
    ----------
    ok : bool
        Whether the meld is legal.
    kind : {"run", "set"} or None
        What the meld is (None when illegal).
    value : int
        Opening value in points (0 when illegal).
    reason : str
        One line saying why the meld is illegal ("" when legal).
    cards : tuple of (int, int)
        The meld as ``(card, stands_for)`` pairs: runs in position order, sets as given.
        Empty when illegal.
    lo, hi : int
        First and last run position (1..14); 0 for a set or an illegal meld.
    """

    ok: bool
    kind: str | None
    value: int
    reason: str = ""
    cards: tuple[Pair, ...] = ()
    lo: int = 0
    hi: int = 0

    @property
    def jokers(self) -> tuple[int, ...]:
        """The natural card types the jokers of the meld stand for, in meld order."""
        return tuple(sf for c, sf in self.cards if c == JOKER)

    def describe(self) -> str:
        """One line such as ``run 9H 10H JK=JH, 30 points`` or ``illegal: two 9H in one set``."""
        if not self.ok:
            return f"illegal: {self.reason}"
        return f"{self.kind} {format_pairs(self.cards)}, {self.value} points"


def _illegal(reason: str) -> MeldCheck:
    return MeldCheck(ok=False, kind=None, value=0, reason=reason)


def format_pairs(pairs: Iterable[Pair]) -> str:
    """Text of a meld: naturals as ``9H``, jokers as ``JK=9S``."""
    return " ".join(format_card(c) if c != JOKER else f"JK={format_card(sf)}" for c, sf in pairs)


def rank_value(rank: int, ace_value: int) -> int:
    """Value in points of a card of ``rank`` (1 = Ace .. 13 = King) in a set or in hand:
    Ace ``ace_value`` (11 in classic), J/Q/K 10, 2-10 face value (RULES.md section 1)."""
    return ace_value if rank == 1 else min(rank, 10)


def position_value(pos: int, rules) -> int:
    """Opening value in points of run position ``pos`` (1..14): 1 -> ``rules.ace_low_value``,
    2..10 face value, 11..13 -> 10, 14 (Ace high) -> ``rules.ace_value`` (RULES.md section 1)."""
    if pos == ACE_LOW:
        return rules.ace_low_value
    return rank_value(1 if pos == ACE_HIGH else pos, rules.ace_value)


def _natural_at(suit: int, pos: int) -> int:
    """Card type of the natural card of ``suit`` at run position ``pos``."""
    return card_type(suit, 1 if pos == ACE_HIGH else pos)


def _as_pairs(cards) -> tuple[Pair, ...]:
    return tuple((int(c), int(sf)) for c, sf in cards)


def _ace_readings(ranks: list[int]) -> list[list[int]]:
    """Run positions of ``ranks``: with any Ace low, then with it high (once if no Ace)."""
    aces = (ACE_LOW, ACE_HIGH) if 1 in ranks else (ACE_LOW,)
    return [[ace if r == 1 else r for r in ranks] for ace in aces]


_plural = n_of


# ---------------------------------------------------------------------------------------
# validate_meld: a meld whose jokers are assigned
# ---------------------------------------------------------------------------------------


def validate_meld(cards: Sequence[Sequence[int]], rules) -> MeldCheck:
    """Check a meld whose jokers say what they stand for (RULES.md section 2).

    Parameters
    ----------
    cards : sequence of (int, int)
        ``(card, stands_for)`` pairs of card types, as in a trace ``meld`` event.  A natural
        card must stand for itself; a joker (52) for a natural card (0..51).  Order does not
        matter: a run's positions follow from the cards it stands for.
    rules : handsim.games.hand.rules.Rules
        Uses ``max_jokers_per_meld``, ``min_natural_cards_per_meld``, ``ace_low_value``,
        ``ace_value`` and ``max_run_length`` (13 when ``rules`` has none).

    Returns
    -------
    MeldCheck
        ``ok``, ``kind``, opening ``value`` in points and, for an illegal meld, a one-line
        ``reason``; ``cards`` holds a run in position order.

    Notes
    -----
    A set is 3-4 cards of one rank whose stands-for cards all differ in suit.  A run is
    3 to ``max_run_length`` (13 in classic) cards of one suit at consecutive positions; an Ace is low (position 1) or high
    (position 14), never both, and a run never wraps (K-A-2).  At most
    ``max_jokers_per_meld`` jokers and at least ``min_natural_cards_per_meld`` naturals.
    """
    pairs = _as_pairs(cards)
    if len(pairs) < MIN_MELD:
        return _illegal(f"needs at least {MIN_MELD} cards (got {len(pairs)})")
    for card, sf in pairs:
        if not 0 <= card <= JOKER:
            return _illegal(f"card type {card} out of range 0..52")
        if card == JOKER and not 0 <= sf < JOKER:
            return _illegal(f"a joker must stand for a natural card, not card type {sf}")
        if card != JOKER and sf != card:
            return _illegal(f"natural {format_card(card)} cannot stand for {format_card(sf)}")
    n_jokers = sum(1 for card, _ in pairs if card == JOKER)
    problem = _joker_limits(len(pairs) - n_jokers, n_jokers, rules)
    if problem:
        return _illegal(problem)

    stands = [sf for _, sf in pairs]
    if len({rank_of(sf) for sf in stands}) == 1:
        return _check_set(pairs, rules.ace_value)
    if len({suit_of(sf) for sf in stands}) == 1:
        return _check_run(pairs, rules)
    return _illegal(f"{format_pairs(pairs)} is neither a set (one rank) nor a run (one suit)")


def _joker_limits(n_naturals: int, n_jokers: int, rules) -> str:
    """Reason a meld breaks the joker limits of ``rules``, or ""."""
    if n_jokers > rules.max_jokers_per_meld:
        return f"{n_jokers} jokers but max_jokers_per_meld is {rules.max_jokers_per_meld}"
    if n_naturals < rules.min_natural_cards_per_meld:
        return (f"{_plural(n_naturals, 'natural card')} "
                f"but min_natural_cards_per_meld is {rules.min_natural_cards_per_meld}")
    return ""


def _check_set(pairs: tuple[Pair, ...], ace_value: int) -> MeldCheck:
    if len(pairs) > MAX_SET:
        return _illegal(f"a set has at most {MAX_SET} cards (got {len(pairs)})")
    twice = _first_duplicate(sf for _, sf in pairs)
    if twice is not None:
        return _illegal(_twice(twice, "set"))
    rank = rank_of(pairs[0][1])
    return MeldCheck(ok=True, kind="set", value=rank_value(rank, ace_value) * len(pairs), cards=pairs)


def _check_run(pairs: tuple[Pair, ...], rules) -> MeldCheck:
    ranks = [rank_of(sf) for _, sf in pairs]
    suit = suit_of(pairs[0][1])
    if len(pairs) > max_run(rules):
        return _illegal(f"a run has at most {max_run(rules)} cards (got {len(pairs)})")
    twice = _first_duplicate(sf for _, sf in pairs)
    if twice is not None:
        return _illegal(_twice(twice, "run"))
    # Only one Ace now; try it low, then high.  Both can be consecutive only for 13 cards
    # (A..K or 2..A): then the order given decides - an Ace listed first is low, else high
    # (a run is listed in position order, and the high reading is worth more).
    readings = _ace_readings(ranks)
    fits = [pos for pos in readings if max(pos) - min(pos) + 1 == len(pos)]
    if len(fits) == 2 and rank_of(pairs[0][1]) != 1:
        fits = fits[1:]
    if fits:
        positions = fits[0]
        order = sorted(range(len(pairs)), key=lambda i: positions[i])
        lo, hi = min(positions), max(positions)
        value = sum(position_value(p, rules) for p in positions)
        return MeldCheck(ok=True, kind="run", value=value, cards=tuple(pairs[i] for i in order), lo=lo, hi=hi)
    if _fits_around_the_ace(ranks, 0):
        return _illegal(_wraps(format_pairs(pairs)))
    # Report the gaps of the reading with the fewest missing cards.
    gaps = [[p for p in range(min(pos), max(pos) + 1) if p not in pos] for pos in readings]
    fewest = min(gaps, key=len)
    return _illegal(f"not consecutive: missing {format_cards(_natural_at(suit, p) for p in fewest)}")


def _twice(card: int, kind: str) -> str:
    if kind == "run" and rank_of(card) == 1:
        return f"two {format_card(card)} in one run: an Ace is low or high, never both"
    return f"two {format_card(card)} in one {kind}"


def _wraps(cards: str) -> str:
    return f"{cards}: K-A-2 wraps (an Ace is low or high, never both)"


def _first_duplicate(items: Iterable[int]) -> int | None:
    seen = set()
    for x in items:
        if x in seen:
            return x
        seen.add(x)
    return None


# ---------------------------------------------------------------------------------------
# interpret_meld: raw cards, jokers to be assigned (the `handsim meld` command)
# ---------------------------------------------------------------------------------------


def interpret_meld(cards: Sequence[int], rules) -> MeldCheck:
    """Best reading of raw cards as one meld, choosing what each joker stands for.

    Parameters
    ----------
    cards : sequence of int
        Card types (jokers as 52, not yet assigned), in any order.
    rules : handsim.games.hand.rules.Rules

    Returns
    -------
    MeldCheck
        The legal reading with the highest opening value (points), its ``cards`` pairs
        saying what each joker stands for (see :attr:`MeldCheck.jokers`); or an illegal
        verdict with a one-line ``reason`` such as ``two 9H in one set``,
        ``KH AH 2H: K-A-2 wraps ...``, ``needs at least 3 cards (got 2)`` or
        ``2 jokers but max_jokers_per_meld is 1``.

    Notes
    -----
    Every reading is checked with :func:`validate_meld` (RULES.md section 2).  Ties in value
    go to a run before a set, and among runs to the higher window, so a joker at a run end
    takes the high end (``JH QH JK`` reads ``JH QH JK=KH``) unless the low end is worth more.
    An Ace is tried both low and high.  In a set the jokers take the missing suits in the
    order S H D C (the value does not depend on it).
    """
    cards = [int(c) for c in cards]
    if len(cards) < MIN_MELD:
        return _illegal(f"needs at least {MIN_MELD} cards (got {len(cards)})")
    naturals = [c for c in cards if c != JOKER]
    n_jokers = len(cards) - len(naturals)
    problem = _joker_limits(len(naturals), n_jokers, rules)
    if problem:
        return _illegal(problem)

    readings = [r for r in (_set_reading(naturals, n_jokers, rules), *_run_readings(naturals, n_jokers, rules))
                if r is not None and r.ok]
    if readings:
        return max(readings, key=lambda m: (m.value, m.kind == "run", m.lo))
    return _illegal(_why_not(naturals, n_jokers, rules))


def _set_reading(naturals: list[int], n_jokers: int, rules) -> MeldCheck | None:
    if len({rank_of(c) for c in naturals}) != 1:
        return None
    rank = rank_of(naturals[0])
    have = {suit_of(c) for c in naturals}
    missing = [card_type(s, rank) for s in range(N_SUITS) if s not in have]
    if n_jokers > len(missing):
        return None
    return validate_meld([(c, c) for c in naturals] + [(JOKER, sf) for sf in missing[:n_jokers]], rules)


def _run_readings(naturals: list[int], n_jokers: int, rules) -> list[MeldCheck]:
    """Every legal placement of the naturals in a window of run positions, jokers filling the rest."""
    if len({suit_of(c) for c in naturals}) != 1:
        return []
    suit = suit_of(naturals[0])
    length = len(naturals) + n_jokers
    if length > max_run(rules):
        return []
    ranks = [rank_of(c) for c in naturals]
    readings = []
    for positions in _ace_readings(ranks):
        if len(set(positions)) != len(positions):
            continue
        for lo in range(ACE_LOW, ACE_HIGH - length + 2):
            hi = lo + length - 1
            if not (lo <= min(positions) and max(positions) <= hi):
                continue
            by_pos = dict(zip(positions, naturals))
            pairs = [(by_pos[p], by_pos[p]) if p in by_pos else (JOKER, _natural_at(suit, p))
                     for p in range(lo, hi + 1)]
            readings.append(validate_meld(pairs, rules))
    return readings


def _why_not(naturals: list[int], n_jokers: int, rules) -> str:
    """One-line reason no reading of the cards is a legal meld."""
    ranks = [rank_of(c) for c in naturals]
    suits = {suit_of(c) for c in naturals}
    cards = format_cards(naturals + [JOKER] * n_jokers)
    if len(set(ranks)) == 1:
        twice = _first_duplicate(naturals)
        if twice is not None:
            return _twice(twice, "set")
        return f"a set has at most {MAX_SET} cards (got {len(naturals) + n_jokers})"
    if len(suits) != 1:
        return f"{cards} is neither a set (one rank) nor a run (one suit)"
    length = len(naturals) + n_jokers
    if length > max_run(rules):
        return f"a run has at most {max_run(rules)} cards (got {length})"
    twice = _first_duplicate(naturals)
    if twice is not None:
        return _twice(twice, "run")
    if _fits_around_the_ace(ranks, n_jokers):
        return _wraps(cards)
    missing = min(max(pos) - min(pos) + 1 - len(pos) for pos in _ace_readings(ranks))
    return f"not consecutive: {_plural(missing, 'missing card')} but {_plural(n_jokers, 'joker')}"


def _fits_around_the_ace(ranks: list[int], n_jokers: int) -> bool:
    """Whether the ranks (with jokers filling gaps) would make a run if it could wrap K-A-2."""
    length = len(ranks) + n_jokers
    windows = ({(start + k) % 13 + 1 for k in range(length)} for start in range(13))
    return any(set(ranks) <= window for window in windows)


# ---------------------------------------------------------------------------------------
# lay-off and joker swap (RULES.md sections 2 and 5)
# ---------------------------------------------------------------------------------------


def can_lay_off(meld: Sequence[Sequence[int]], card: int, stands_for: int | None, rules) -> MeldCheck:
    """Whether ``card`` can be added to a table meld, and the meld it makes.

    Parameters
    ----------
    meld : sequence of (int, int)
        The table meld as ``(card, stands_for)`` pairs.
    card : int
        The card type laid off.
    stands_for : int or None
        What the card stands for: the card itself for a natural; for a joker the natural
        card it represents.  None lets a joker take the best place (highest value, then the
        high end of a run).
    rules : handsim.games.hand.rules.Rules

    Returns
    -------
    MeldCheck
        ``ok`` with ``cards`` the new meld (RULES.md section 2: the whole meld must stay
        legal), or not ``ok`` with a one-line ``reason``.

    Notes
    -----
    The jokers of a set stand for suits its naturals lack (RULES.md sections 2 and 5), so a
    natural of the suit a set's joker names may be laid off when another suit is free: the
    joker moves to that suit (``9H 9D JK=9S`` + ``9S`` makes ``9H 9D JK=9C 9S``).
    """
    pairs = _as_pairs(meld)
    before = validate_meld(pairs, rules)
    if not before.ok:
        return _illegal(f"the table meld {format_pairs(pairs)} is itself illegal: {before.reason}")
    card = int(card)
    if stands_for is None and card == JOKER:
        n_jokers = sum(1 for c, _ in pairs if c == JOKER) + 1
        problem = _joker_limits(len(pairs) + 1 - n_jokers, n_jokers, rules)
        if problem:
            return _illegal(f"cannot lay off JK on {format_pairs(pairs)}: {problem}")
        options = [validate_meld(pairs + ((JOKER, sf),), rules) for sf in range(JOKER)]
        options = [m for m in options if m.ok]
        if not options:
            return _illegal(f"cannot lay off JK on {format_pairs(pairs)}: no free place")
        return max(options, key=lambda m: (m.value, m.hi))
    added = (card, card if stands_for is None else int(stands_for))
    new = pairs + (added,)
    if before.kind == "set":
        new = _redeclare_set_jokers(new)
    after = validate_meld(new, rules)
    if not after.ok:
        return _illegal(f"cannot lay off {format_pairs([added])} on {format_pairs(pairs)}: {after.reason}")
    return after


def can_swap(meld: Sequence[Sequence[int]], natural_card: int, rules, stands_for: int | None = None) -> MeldCheck:
    """Whether a natural card can take a joker's place in a table meld (RULES.md section 5).

    Parameters
    ----------
    meld : sequence of (int, int)
        The table meld as ``(card, stands_for)`` pairs.
    natural_card : int
        The natural card type put in.
    rules : handsim.games.hand.rules.Rules
    stands_for : int, optional
        The card the taken joker stands for.  In a run it must name a joker of the meld
        (default: the joker standing for ``natural_card``).  In a set every joker stands for
        some suit the naturals lack, so any joker may go: this picks the one naming it if
        there is one (default: the joker naming ``natural_card``, else the first).

    Returns
    -------
    MeldCheck
        ``ok`` with ``cards`` the meld after the swap (the joker goes to the hand), or not
        ``ok`` with a one-line ``reason``.

    Notes
    -----
    In a run the card must be exactly the card the joker represents; in a set it must be
    of the set's rank and of a suit the set's naturals lack (the remaining jokers move to
    the other free suits).  The meld must stay legal.  Whether the player may swap at all
    (``joker_swap``, opened) is the caller's business.
    """
    pairs = _as_pairs(meld)
    before = validate_meld(pairs, rules)
    if not before.ok:
        return _illegal(f"the table meld {format_pairs(pairs)} is itself illegal: {before.reason}")
    natural_card = int(natural_card)
    if not 0 <= natural_card < JOKER:
        return _illegal("only a natural card can replace a joker")
    jokers = [i for i, (c, _) in enumerate(pairs) if c == JOKER]
    if not jokers:
        return _illegal(f"no joker in {format_pairs(pairs)}")
    wanted = natural_card if stands_for is None else int(stands_for)
    named = [i for i in jokers if pairs[i][1] == wanted]
    if before.kind == "run":
        if stands_for is None and not named:
            named = jokers  # say which card the joker needs
        if not named:
            return _illegal(f"no joker stands for {format_card(wanted)} in {format_pairs(pairs)}")
        i = named[0]
        if natural_card != pairs[i][1]:
            return _illegal(f"in a run the joker standing for {format_card(pairs[i][1])} can only be "
                            f"swapped for {format_card(pairs[i][1])}, not {format_card(natural_card)}")
        return validate_meld(pairs[:i] + ((natural_card, natural_card),) + pairs[i + 1:], rules)
    i = (named or jokers)[0]
    after = validate_meld(_redeclare_set_jokers(pairs[:i] + ((natural_card, natural_card),) + pairs[i + 1:]), rules)
    if not after.ok:
        return _illegal(f"swapping {format_card(natural_card)} for a joker of {format_pairs(pairs)}: {after.reason}")
    return after


def _redeclare_set_jokers(pairs: tuple[Pair, ...]) -> tuple[Pair, ...]:
    """A set whose jokers stand for suits its naturals lack: each joker keeps its suit while
    that suit is free, a joker whose suit is taken moves to a free suit (order S H D C)."""
    naturals = [c for c, _ in pairs if c != JOKER]
    if len({rank_of(c) for c in naturals}) != 1:
        return pairs  # not a set of one rank: leave it for validate_meld to reject
    rank = rank_of(naturals[0])
    used = {suit_of(c) for c in naturals}
    moved = []
    for i, (c, sf) in enumerate(pairs):
        if c != JOKER or rank_of(sf) != rank:
            continue  # a joker of another rank stays, for validate_meld to reject
        if suit_of(sf) in used:
            moved.append(i)
        else:
            used.add(suit_of(sf))
    out = list(pairs)
    free = [s for s in range(N_SUITS) if s not in used]
    for i, s in zip(moved, free):
        out[i] = (JOKER, card_type(s, rank))
    return tuple(out)
