"""Russian Hand's table rearrangement, checked and readable (RULES.md §2, §8).

The public face of :mod:`handsim.games.russian.kernels.rearrange`: it reads a table given as
melds of card types (or as text, ``"5H 6H 7H | 9S 9D 9C"``) and a hand, checks them, and asks the
exact search for the best play: the most hand cards placed, then the highest value placed,
then the fewest table melds changed.

A table meld here is a tuple of card types (``handsim.cards``; no jokers in Russian Hand): a
run in position order (an Ace high last), a set in suit order S H D C.  The kernel's encoding of
a meld as one ``int8[4]`` row (``(RUN, suit, lo, hi)`` or ``(SET, rank, suit_mask, 0)``) is
converted by :func:`meld_row` and :func:`row_cards`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Iterable, Sequence

import numpy as np

from handsim.cards import JOKER, CardError, card_type, format_cards, parse_cards, rank_of, suit_of
from handsim.errors import TableError
from handsim.melds import validate_meld

from .kernels import rearrange as _k
from .rules import RussianRules

#: Rules for :func:`handsim.melds.validate_meld` with no jokers (RULES.md §2).
_MELD_RULES = SimpleNamespace(max_jokers_per_meld=0, min_natural_cards_per_meld=3, ace_low_value=1,
                             ace_value=11)

Meld = tuple[int, ...]


@dataclass(frozen=True)
class Play:
    """The best play of a hand onto a table (RULES.md §8).

    Attributes
    ----------
    placed : tuple of int
        Card types put on the table from the hand, in display order (suit, then rank).
    value : int
        Their total value in points (Ace ``ace_value``, J/Q/K 10, 2-10 face value).
    melds : tuple of tuple of int
        The table after the play: every meld as card types, runs (by suit, in position order)
        before sets (by rank).  For a first-round play, only the new melds.
    changed : int
        Melds of the table before the play that do not appear unchanged after it (0 for a
        first-round play).
    """

    placed: tuple[int, ...]
    value: int
    melds: tuple[Meld, ...]
    changed: int

    @property
    def n_placed(self) -> int:
        """Number of hand cards placed."""
        return len(self.placed)

    def to_json(self) -> dict:
        """``{"placed": [...], "value": ..., "n_placed": ..., "changed": ..., "melds": [[...], ...]}``
        with cards as text (``"10H"``)."""
        return {
            "placed": format_cards(self.placed).split(),
            "n_placed": self.n_placed,
            "value": self.value,
            "changed": self.changed,
            "melds": [format_cards(m).split() for m in self.melds],
        }


# ------------------------------------------------------------------------------ meld encoding


def meld_row(cards: Sequence[int]) -> tuple[int, int, int, int]:
    """The kernel row of a legal meld of natural cards.

    Parameters
    ----------
    cards : sequence of int
        Card types, any order (a run with both readings, A..K or 2..A, reads the Ace low
        when it is listed first, as :func:`handsim.melds.validate_meld` does).

    Returns
    -------
    tuple of int
        ``(RUN, suit, lo, hi)`` or ``(SET, rank, suit_mask, 0)``.

    Raises
    ------
    TableError
        A joker, or not a legal meld (the message names the meld and why).
    """
    cards = [int(c) for c in cards]
    if JOKER in cards:
        raise TableError(f"{format_cards(cards)}: Russian Hand has no jokers")
    m = validate_meld([(c, c) for c in cards], _MELD_RULES)
    if not m.ok:
        raise TableError(f"{format_cards(cards)} is not a legal meld: {m.reason}")
    if m.kind == "run":
        return (_k.RUN, suit_of(cards[0]), m.lo, m.hi)
    mask = 0
    for c in cards:
        mask |= 1 << suit_of(c)
    return (_k.SET, rank_of(cards[0]), mask, 0)


def row_cards(row: Sequence[int]) -> Meld:
    """Card types of a kernel meld row: a run in position order, a set in suit order."""
    kind, key, a, b = (int(x) for x in row)
    if kind == _k.RUN:
        return tuple(card_type(key, 1 if p == 14 else p) for p in range(a, b + 1))
    return tuple(card_type(s, key) for s in range(4) if (a >> s) & 1)


def parse_table(text: str) -> list[list[int]]:
    """Melds separated by ``|``, e.g. ``"5H 6H 7H | 9S 9D 9C"`` (empty text: an empty table).

    Raises
    ------
    handsim.cards.CardError
        A malformed card, an empty meld between two bars, or more than 2 copies in one meld.
    """
    if not text.strip():
        return []
    melds = []
    for i, part in enumerate(text.split("|")):
        if not part.strip():
            raise CardError(f"meld {i + 1} of the table is empty: separate melds by '|', e.g. '5H 6H 7H | 9S 9D 9C'")
        melds.append(parse_cards(part, jokers=0))
    return melds


def _counts(cards: Iterable[int]) -> np.ndarray:
    out = np.zeros(52, dtype=np.int8)
    for c in cards:
        out[c] += 1
    return out


class Position:
    """A checked table and hand, in the kernel's arrays.

    Parameters
    ----------
    table : sequence of sequence of int
        The table's melds as card types.
    hand : sequence of int
        The hand's card types.

    Raises
    ------
    TableError
        A meld that is not legal (named), a joker, or more than 2 copies of a card in table
        and hand together.
    """

    def __init__(self, table: Sequence[Sequence[int]], hand: Sequence[int]):
        rows = []
        for i, m in enumerate(table):
            try:
                rows.append(meld_row(m))
            except TableError as e:
                raise TableError(f"table meld {i + 1} ({format_cards(m)}) is illegal: "
                                 f"{str(e).split(': ', 1)[-1]}") from None
        hand = [int(c) for c in hand]
        if JOKER in hand:
            raise TableError("the hand holds a joker: Russian Hand has no jokers")
        self.melds = np.zeros((max(len(rows), 1), 4), dtype=np.int8)
        for i, r in enumerate(rows):
            self.melds[i] = r
        self.n_melds = len(rows)
        self.tcnt = _counts(c for m in table for c in m)
        self.hcnt = _counts(hand)
        both = self.tcnt.astype(np.int16) + self.hcnt
        if both.max(initial=0) > 2:
            t = int(np.argmax(both))
            raise TableError(f"{format_cards([t])} appears {both[t]} times in table and hand: "
                             "the two decks hold only 2 copies")


_WS = None


def _workspace():
    global _WS
    if _WS is None:
        _WS = _k.make_workspace()
    return _WS


def rearrange(table: Sequence[Sequence[int]], hand: Sequence[int], rules: RussianRules | None = None, *,
              first_round: bool = False) -> Play:
    """The best play of ``hand`` onto ``table`` (RULES.md §2, §8).

    Parameters
    ----------
    table : sequence of sequence of int
        The table's melds as card types; each must be legal.
    hand : sequence of int
        The hand's card types.
    rules : RussianRules, optional
        Gives the card values (``ace_value``) and the first-round rule; default the preset.
    first_round : bool
        A play in the first round of turns: with ``first_round = new_melds`` only new melds of
        hand cards (the best set of them), with ``one_meld`` the best single new meld, with
        ``free`` the same as later turns.

    Returns
    -------
    Play
        The most hand cards placed, then the highest value, then the fewest table melds
        changed; ``n_placed == 0`` when nothing can be placed (the table then stays as it is).

    Raises
    ------
    TableError
        An illegal table meld (named), a joker, or more than 2 copies of a card.
    """
    rules = rules or RussianRules.preset()
    pos = Position(table, hand)
    rank_value = rules.rank_values()
    frozen = first_round and rules.first_round != "free"
    placed = np.zeros(52, dtype=np.int8)
    out = np.zeros((_k.MAX_MELDS + 8, 4), dtype=np.int8)
    if frozen and rules.first_round == "one_meld":
        n, value = _k.best_single_meld(pos.hcnt, rank_value, out)
        if n == 0:
            return Play((), 0, (), 0)
        cards = row_cards(out[0])
        return Play(_display(cards), int(value), (cards,), 0)
    status, n_placed, value, kept, n_out = _k.rearrange(pos.tcnt, pos.hcnt, pos.melds, pos.n_melds, rank_value,
                                                        frozen, True, _workspace(), placed, out)
    if status != _k.OK:  # pragma: no cover - Position checked every meld
        raise RuntimeError(f"internal error: rearrangement search status {status} on a checked table")
    # runs by suit and position, then sets by rank
    melds = tuple(row_cards(r) for r in sorted(tuple(int(x) for x in out[i]) for i in range(n_out)))
    cards = [t for t in range(52) for _ in range(int(placed[t]))]
    changed = 0 if frozen else pos.n_melds - int(kept)
    return Play(_display(cards), int(value), melds, changed)


def can_place(table: Sequence[Sequence[int]], hand: Sequence[int], rules: RussianRules | None = None, *,
              first_round: bool = False) -> bool:
    """Whether any hand card can be placed at all (a play must place at least one, RULES.md §8).

    Same parameters and errors as :func:`rearrange`; a fast test (no best play is built).
    """
    rules = rules or RussianRules.preset()
    pos = Position(table, hand)
    frozen = first_round and rules.first_round != "free"
    return bool(_k.can_place(pos.tcnt, pos.hcnt, pos.melds, pos.n_melds, frozen, _workspace()))


def _display(cards: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted((int(c) for c in cards), key=lambda t: (suit_of(t), rank_of(t))))


__all__ = ["Play", "Position", "TableError", "can_place", "meld_row", "parse_table", "rearrange", "row_cards"]
