"""Card notation and encoding (RULES.md section 1).

Every card is an integer *card type* ``t`` in ``0..52``:

* a natural card is ``t = suit * 13 + (rank - 1)`` with ``rank`` 1 (Ace) .. 13 (King)
  and ``suit`` 0 = spades ``S``, 1 = hearts ``H``, 2 = diamonds ``D``, 3 = clubs ``C``;
* the joker is ``t = 52`` (``JK``).

The two physical copies of a natural card share one card type; hands, the stock and the
discard pile are tracked as counts or sequences of card types.

Text notation (input and output): ranks ``A 2 3 4 5 6 7 8 9 10 J Q K`` followed by a suit
``S H D C`` (also accepted: ``♠ ♥ ♦ ♣``, lower case, and ``T`` for ten); the joker is ``JK``.
"""

from __future__ import annotations

import numpy as np

N_SUITS = 4
N_RANKS = 13
JOKER = 52
N_TYPES = 53

SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
_RANK_OF = {r: i + 1 for i, r in enumerate(RANKS)}
_RANK_OF["T"] = 10
_RANK_OF["1"] = 1  # never produced; rejected below unless followed by 0
_SUIT_OF = {s: i for i, s in enumerate(SUITS)}
_SUIT_OF.update({s: i for i, s in enumerate(SUIT_SYMBOLS)})
_SUIT_OF.update({"♤": 0, "♡": 1, "♢": 2, "♧": 3})
#: Emoji and text presentation selectors (U+FE0F, U+FE0E): after a suit symbol they are dropped.
_VARIATION_SELECTORS = "\ufe0f\ufe0e"


from .errors import CardError  # noqa: F401  (re-exported: handsim.cards.CardError)


def card_type(suit: int, rank: int) -> int:
    """Card type of the natural card of ``suit`` (0..3) and ``rank`` (1..13)."""
    return suit * N_RANKS + (rank - 1)


def suit_of(t: int) -> int:
    """Suit 0..3 of a natural card type (undefined for the joker)."""
    return t // N_RANKS


def rank_of(t: int) -> int:
    """Rank 1 (Ace) .. 13 (King) of a natural card type (undefined for the joker)."""
    return t % N_RANKS + 1


def hand_value(t: int, joker_penalty: int, ace_value: int) -> int:
    """Points a card left in hand counts at round end (RULES.md section 1).

    2-10 count face value, J/Q/K 10, an Ace ``ace_value`` (11 in classic), a joker
    ``joker_penalty``.
    """
    if t == JOKER:
        return joker_penalty
    r = rank_of(t)
    if r == 1:
        return ace_value
    return min(r, 10)


def parse_card(text: str) -> int:
    """Read one card such as ``10H``, ``Q♠``, ``as`` or ``JK``.

    Returns
    -------
    int
        The card type, 0..52.

    Raises
    ------
    CardError
        If the text is not a card (message says what is allowed).
    """
    s = text.strip()
    if len(s) >= 2 and s[-1] in _VARIATION_SELECTORS and (s[-2] in _SUIT_OF or s[-2] == "🃏"):
        s = s[:-1]  # 5♥️: the emoji form of a suit symbol (phones type it) is the symbol
    u = s.upper()
    if u in ("JK", "JOKER", "🃏"):
        return JOKER
    suit = rank = None
    if len(s) >= 2:
        suit_ch = s[-1]
        suit = _SUIT_OF.get(suit_ch.upper(), _SUIT_OF.get(suit_ch))
        rank_txt = u[:-1]
        rank = _RANK_OF.get(rank_txt) if rank_txt != "1" else None
    if suit is None or rank is None:
        from ._io import hidden_char_note

        shown = repr(text) if len(text) <= 40 else repr(text[:37]) + "..."
        raise CardError(f"bad card {shown}{hidden_char_note(text, where=False)}: expected rank A,2-10,J,Q,K then "
                        "suit S,H,D,C (or ♠♥♦♣), or JK")
    return card_type(suit, rank)


def parse_cards(text: str | list[str], *, jokers: int | None = None, allow_empty: bool = False) -> list[int]:
    """Read a list of cards separated by spaces or commas, e.g. ``"KS 7H 9D JK"``.

    Parameters
    ----------
    text : str or list of str
        The cards.
    jokers : int, optional
        Jokers in the deck; if given, more jokers than this are an error.
    allow_empty : bool
        Whether an empty list is acceptable.

    Returns
    -------
    list of int
        Card types, in input order.

    Raises
    ------
    CardError
        A malformed card, more than two copies of a natural card, more jokers than the deck
        holds, or an empty list when ``allow_empty`` is false.
    """
    if isinstance(text, str):
        tokens = text.replace(",", " ").split()
    else:
        tokens = [str(x) for x in text]
    cards = [parse_card(tok) for tok in tokens]
    if not cards and not allow_empty:
        raise CardError("no cards given: expected cards such as 'KS 7H 9D JK'")
    counts = np.bincount(np.asarray(cards, dtype=np.int64), minlength=N_TYPES) if cards else np.zeros(N_TYPES, np.int64)
    for t in range(52):
        if counts[t] > 2:
            raise CardError(f"{format_card(t)} appears {counts[t]} times: the two decks hold only 2 copies")
    if jokers is not None and counts[JOKER] > jokers:
        if jokers == 0:
            raise CardError("JK is a joker: these rules play without jokers (Russian Hand has none)")
        raise CardError(f"JK appears {counts[JOKER]} times: the deck holds only {jokers} "
                        f"joker{'s' if jokers != 1 else ''}")
    return cards


def format_card(t: int, symbols: bool = False) -> str:
    """Text of a card type: ``10H``, ``QS``, ``JK`` (``10♥`` with ``symbols=True``)."""
    t = int(t)
    if t == JOKER:
        return "JK"
    if not 0 <= t < 52:
        raise CardError(f"card type {t} out of range 0..52")
    suits = SUIT_SYMBOLS if symbols else SUITS
    return RANKS[rank_of(t) - 1] + suits[suit_of(t)]


def format_cards(cards, symbols: bool = False) -> str:
    """Space-separated text of a sequence of card types."""
    return " ".join(format_card(t, symbols) for t in cards)


def counts_of(cards) -> np.ndarray:
    """Count vector ``ndarray(int8, shape=(53,))`` of a list of card types."""
    out = np.zeros(N_TYPES, dtype=np.int8)
    for t in cards:
        out[int(t)] += 1
    return out


def cards_of(counts) -> list[int]:
    """Sorted list of card types from a count vector of shape (53,)."""
    return [t for t in range(N_TYPES) for _ in range(int(counts[t]))]


def sort_key(t: int):
    """Display order: by suit, then rank, jokers last."""
    return (5, 0) if t == JOKER else (suit_of(t), rank_of(t))


def n_of(n: int, word: str = "card", plural: str | None = None) -> str:
    """``n`` and ``word`` in the number it needs: ``"1 card"``, ``"0 cards"``, ``"3 jokers"``,
    ``n_of(2, "entry", "entries")`` ``"2 entries"`` (for messages).

    Parameters
    ----------
    n : int
    word : str
        The singular.
    plural : str, optional
        The plural (default: ``word`` + ``s``).
    """
    return f"{n} " + (word if n == 1 else plural or word + "s")
