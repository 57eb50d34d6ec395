"""Named constants of the kernels: cards, seats and "nothing here" markers.

The card values agree with :mod:`handsim.cards` (a test checks it): natural card type
``t = suit * N_RANKS + rank - 1`` (suit 0..3 = S H D C, rank 1 = Ace .. 13 = King), the joker
``JOKER``; hands are count vectors of length ``N_TYPES``.
"""

N_SUITS = 4
N_RANKS = 13
JOKER = 52  # card type of the joker
N_TYPES = 53  # card types: 52 naturals and the joker
N_NATURALS = 52
COPIES = 2  # copies of each natural card in the two decks

#: Most seats at a table: every per-seat array of the state has this many rows.
MAX_SEATS = 5

NO_CARD = -1  # "no card": an empty discard pile, no card taken, no discard
NO_SEAT = -1  # "no seat": nobody went out, no partner
NO_TARGET = -100  # a card that cannot be laid off on (or swapped into) a meld

#: A draw decision (what ``choose_draw`` returns).
DRAW_STOCK = 0
DRAW_DISCARD = 1
