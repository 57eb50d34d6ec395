"""Round state and the legal moves on it (numba; RULES.md sections 1-6).

A round's state is a :class:`Game` named tuple of preallocated arrays (no jitclasses): hands as
card counts, the stock and discard pile as card sequences, the table melds in the encoding of
:mod:`handsim.games.hand.kernels.arrange`, scalars in ``sc`` and per-seat integers in ``seat``.  Every
move function checks legality and returns ``False`` (or sets an error code) instead of raising,
and appends an event row to the trace when tracing is on.

Trace rows (``int16[24]``): ``[type, seat, ...]`` with types

* ``EV_TURN`` ``[., seat, turn]``; ``EV_DRAW`` ``[., seat, card, source(0 stock, 1 pile)]``
* ``EV_MELD`` ``[., seat, index, kind, key, lo, hi, mask, njokers]``
* ``EV_LAYOFF`` ``[., seat, index, card, pos]`` (run position; set: suit, or -1 for a joker)
* ``EV_SWAP`` ``[., seat, index, card, pos]`` (run: the joker's position; set: the card's suit)
* ``EV_DISCARD`` ``[., seat, card]``; ``EV_OUT`` ``[., seat, is_hand]``; ``EV_VOID`` ``[.]``
* ``EV_RESHUFFLE`` ``[., n]`` followed by rows ``EV_CARDS`` ``[., k, c0 .. c(k-1)]`` (new stock, top first)
"""

import numpy as np
from numba import njit

from handsim.games.hand.kernels.bits import ctz
from handsim.games.hand.kernels.arrange import COUNT, DEAD, MAX_MELDS, OPEN, hand_bits, make_weights, meldable, search_bits
from handsim.games.hand.kernels.consts import JOKER, MAX_SEATS, N_NATURALS, N_RANKS, N_SUITS, N_TYPES, NO_CARD, NO_SEAT, NO_TARGET
from handsim.games.hand.kernels.melds import (
    ACE_HIGH,
    M_HI,
    M_KEY,
    M_KIND,
    M_LO,
    M_MASK,
    M_NJ,
    MAX_RUN,
    MAX_SET,
    MELD_WIDTH,
    card_of,
    copy_meld,
    is_set,
    meld_is_legal,
    meld_jokers,
    meld_key,
    meld_size,
    meld_uses,
    meld_value,
    path_uses,
    position_rank,
    rank_hand_value,
    rank_of,
    run_has_joker_at,
    set_has_suit,
    set_jokers,
    suit_of,
)
from handsim.games.hand.kernels.params import (
    P_OPENING_SCOPE,
    P_PARTNERSHIP,
    SCOPE_TEAM,
    P_ACE_LOW,
    P_MIN_NATURAL,
    OPENING_ASCENDING,
    P_GO_OUT_DISCARD,
    P_HAND_DOUBLES,
    P_HAND_MIN_CARDS,
    P_HAND_SIZE,
    P_JOKER_PENALTY,
    P_JOKER_SWAP,
    P_JOKERS,
    P_LAYOFF_ON_OPENING,
    P_MAX_JOKERS,
    P_MAX_RESHUFFLES,
    P_OPENING_RULE,
    P_STARTER,
    P_THRESHOLD,
    N_PARAMS,
    P_UNOPENED_PENALTY,
    STARTER_DEALER_RIGHT,
    UNOPENED_FLAT,
)
from handsim._kernels.rng import randbelow, shuffle

MAX_TABLE = 48
MAX_EVENTS = 40000  # enough for MAX_TURNS turns of three rows plus melds and reshuffles
EV_WIDTH = 24
MAX_TURNS = 12000  # above the longest legal round: 101 stock runs of at most ~108 turns
#: Most moves (new melds, lay-offs, joker swaps) in one turn: far above what a hand of at most
#: 36 cards can make; a policy that goes on past it never ends its turn.
MAX_MOVES_PER_TURN = 1000
N_POLICY_PARAMS = 8  # handsim.policies.declare.MAX_PARAMS
#: Integers each seat's policy may keep from turn to turn within a round (``api.memory``).
MEMORY_SLOTS = 16
#: Policy ids from this one on belong to user-written policies: the engine checks the table's
#: cards after each of their decisions.
FIRST_USER_POLICY = 100

EV_TURN = 1
EV_DRAW = 2
EV_MELD = 3
EV_LAYOFF = 4
EV_SWAP = 5
EV_DISCARD = 6
EV_RESHUFFLE = 7
EV_CARDS = 8
EV_OUT = 9
EV_VOID = 10

# scalars sc[...]
S_N_MELDS = 0
S_SP = 1  # stock pointer: next card to draw is stock[S_SP]
S_SEND = 2  # stock end
S_PILE_N = 3
S_RESHUF = 4
S_TURN = 5
S_PLAYERS = 6
S_STARTER = 7
S_DEALER = 8
S_STATUS = 9  # 0 playing, 1 someone went out, 2 void, 3 error
S_OUT_SEAT = 10
S_IS_HAND = 11
S_MAX_OPEN = 12
S_TRACE = 13
S_TR_N = 14
S_ERR = 15
S_TAKEN = 16
S_TAKEN_C0 = 17
S_T_NEWMELD = 18  # cards put in new melds this turn
S_T_OTHERS = 19  # laid off / swapped on another player's meld this turn
S_T_LAID = 20  # laid anything this turn
S_N_DECK = 21
S_TR_OVER = 22
S_T_TAKEN_MELDED = 23  # copies of the taken card put into new melds this turn
S_T_OPENED = 24  # the player opened in this turn
S_T_TAKEN_USED = 25  # copies of the taken card put on the table this turn (meld, lay-off, swap)
S_TURN_SEAT = 26  # the seat whose turn it is
S_T_MOVES = 27  # moves made this turn
S_TABLE_VER = 28  # changes of the table melds in this round (a meld laid, a card laid off, a joker swapped)
S_FIT_VER = 29  # the S_TABLE_VER that S_FIT was worked out at
S_FIT = 30  # bit t: card type t may fit some table meld (first_layoff_meld; a superset of those that do)
N_SC = 32

# per-seat integers seat[s, ...]
Q_OPENED = 0
Q_LAID_BEFORE = 1
Q_OWN_TURNS = 2
Q_FOR_HAND = 3  # published by the seat's policy: it still plays for a Hand (api.set_playing_for_hand)
Q_OPEN_VALUE = 4
N_Q = 8

STATUS_PLAYING = 0
STATUS_OUT = 1
STATUS_VOID = 2
STATUS_ERROR = 3

# error codes (S_ERR)
E_NONE = 0
E_TOOK_WITHOUT_OPENING = 1
E_BAD_DISCARD = 2
E_EMPTY_NO_DISCARD = 3
E_NEW_MELD_ONLY = 4
E_BAD_OPENING = 5
E_TOO_LONG = 6
E_TABLE_FULL = 7
E_BAD_MELD = 8
E_TRACE_FULL = 9
E_BAD_DRAW = 10
E_BAD_LAYOFF = 11
E_BAD_SWAP = 12
E_TOO_MANY_MOVES = 13
E_STATE_CHANGED = 14

# the error record err[...]: what went wrong, where, and the move (a, b, c and a meld's fields)
ER_CODE = 0
ER_SEAT = 1
ER_TURN = 2
ER_A = 3
ER_B = 4
ER_C = 5
ER_MELD = 6  # ER_MELD .. ER_MELD + MELD_WIDTH - 1
ERR_WIDTH = 12

# reasons (ER_C / ER_B) given with some errors
WHY_NOT_HELD = 1  # the hand lacks the card
WHY_NOT_OPENED = 2  # may not touch the table yet (not opened, or layoff_on_opening_turn = false)
WHY_NO_FIT = 3  # the card does not fit that meld
WHY_NO_MELD = 4  # no such table meld
WHY_ILLEGAL_MELD = 5  # not a legal set or run
WHY_EMPTY_PILE = 6  # took the top discard from an empty pile
WHY_NOT_A_SOURCE = 7  # neither DRAW_STOCK nor DRAW_DISCARD
WHY_TAKEN_CARD = 8  # the card just taken from the discard pile
WHY_NO_DISCARD = 9  # named no discard while holding cards
WHY_ROUND_OVER = 10  # a move after the round ended

#: Searches remembered per table (see :func:`hand_search_above`): :data:`MEMO` entries in pairs
#: (a hand's pair is picked by a hash of the hand and mode; either entry of the pair may hold it).
MEMO = 128

#: One round's whole state as a numpy record (one allocation per chunk of deals, passed to
#: every kernel as a single record: cheap calls, fast compilation).
GAME_DTYPE = np.dtype(
    [
        ("hands", np.int8, (MAX_SEATS, N_TYPES)),  # card counts by seat
        ("hand_n", np.int64, (MAX_SEATS,)),  # cards held by seat
        ("melds", np.int32, (MAX_TABLE, MELD_WIDTH)),  # table melds (encoding of melds.py)
        ("owner", np.int64, (MAX_TABLE,)),  # seat that laid each meld
        ("run_melds", np.int64, (N_SUITS,)),  # bit k: table meld k is a run of this suit
        ("set_melds", np.int64, (N_RANKS + 1,)),  # bit k: table meld k is a set of this rank
        ("stock", np.int8, (128,)),
        ("pile", np.int8, (128,)),  # discard pile, top last
        ("deck", np.int8, (128,)),  # the shuffled deck of this deal
        ("sc", np.int64, (N_SC,)),  # scalars S_*
        ("seat", np.int64, (MAX_SEATS, N_Q)),  # per-seat integers Q_*
        ("rv", np.int64, (N_PARAMS,)),  # rules vector
        ("pol", np.int64, (MAX_SEATS,)),  # policy id by seat
        ("pp", np.float64, (MAX_SEATS, N_POLICY_PARAMS)),  # policy parameters by seat
        ("mem", np.int64, (MAX_SEATS, MEMORY_SLOTS)),  # each seat's policy memory (zeroed every round)
        ("known", np.int8, (MAX_SEATS, N_TYPES)),  # cards each seat was seen to take from the pile and still holds
        ("err", np.int64, (ERR_WIDTH,)),  # the error record ER_*
        ("W", np.int32, (3, 6, 16)),  # search weights by mode
        ("path", np.int32, (MAX_MELDS, MELD_WIDTH)),  # search workspaces
        ("bestpath", np.int32, (MAX_MELDS, MELD_WIDTH)),
        ("bp2", np.int32, (MAX_MELDS, MELD_WIDTH)),
        ("best", np.int64, (2,)),
        ("memo_key", np.int64, (MEMO, 3)),  # remembered searches: hand bitsets, jokers | mode
        ("memo_res", np.int64, (MEMO, 3)),  # ... their floor, weight, number of melds
        ("memo_path", np.int32, (MEMO, MAX_MELDS, MELD_WIDTH)),  # ... and melds
        ("memo_next", np.int64, (1,)),  # which entry of a pair to overwrite next (alternates)
        ("memo_w", np.int32, (3, 6, 16)),  # the search weights the remembered searches were made with
        ("tmp", np.int8, (N_TYPES,)),  # scratch card counts
        ("rem", np.int8, (N_TYPES,)),  # scratch card counts of the planners
        ("rng", np.uint64, (1,)),  # the deal's stream: shuffle and reshuffles
        ("prng", np.uint64, (1,)),  # the deal's policy stream: random decisions
        ("scores", np.int64, (MAX_SEATS,)),
        ("tr", np.int16, (MAX_EVENTS, EV_WIDTH)),  # move log (used only when tracing)
    ],
    align=True,
)


@njit(cache=True)
def new_game(players, rv, trace_on):
    """Allocate the state of one table (``GAME_DTYPE`` array of length 1; use ``arr[0]``).

    Done once per chunk of deals, never per turn.  Seats get their policies from
    :func:`seat_policies` before each deal.
    """
    arr = np.zeros(1, dtype=GAME_DTYPE)
    g = arr[0]
    for i in range(N_PARAMS):
        g.rv[i] = rv[i]
    make_weights(rv, OPEN, g.W[OPEN])
    make_weights(rv, DEAD, g.W[DEAD])
    make_weights(rv, COUNT, g.W[COUNT])
    forget_searches(g)
    g.sc[S_PLAYERS] = players
    g.sc[S_TRACE] = 1 if trace_on else 0
    return arr


@njit(cache=True)
def seat_policies(g, pol_seat, pp_seat):
    """Give each seat its policy id and parameters for the next deal."""
    for s in range(MAX_SEATS):
        g.pol[s] = pol_seat[s]
        for k in range(N_POLICY_PARAMS):
            g.pp[s, k] = pp_seat[s, k]


@njit(cache=True)
def log(g, etype, seat, a, b, c, d, e, f, h):
    """Append one trace row (no-op when tracing is off)."""
    if g.sc[S_TRACE] == 0:
        return
    n = g.sc[S_TR_N]
    if n >= MAX_EVENTS:
        g.sc[S_TR_OVER] = 1
        return
    row = g.tr[n]
    row[:] = 0
    row[0] = etype
    row[1] = seat
    row[2] = a
    row[3] = b
    row[4] = c
    row[5] = d
    row[6] = e
    row[7] = f
    row[8] = h
    g.sc[S_TR_N] = n + 1


@njit(cache=True)
def log_cards(g, cards, start, n):
    """Trace ``cards[start:start+n]`` in EV_CARDS rows of up to 20 cards."""
    if g.sc[S_TRACE] == 0:
        return
    i = 0
    while i < n:
        k = n - i
        if k > 20:
            k = 20
        r = g.sc[S_TR_N]
        if r >= MAX_EVENTS:
            g.sc[S_TR_OVER] = 1
            return
        row = g.tr[r]
        row[:] = 0
        row[0] = EV_CARDS
        row[1] = k
        for j in range(k):
            row[2 + j] = cards[start + i + j]
        g.sc[S_TR_N] = r + 1
        i += k


@njit(cache=True, inline="always")
def fail(g, code):
    """Stop the round with error ``code`` (the first error is kept, with the seat and turn)."""
    _fail_move(g, np.int64(code), np.int64(0), np.int64(0), np.int64(0))


@njit(cache=True, inline="always")
def fail_move(g, code, a, b, c):
    """:func:`fail`, recording the move's details ``a, b, c`` (see ``ER_*`` and the error codes)."""
    # inlined into the caller, which passes constants: numba would compile a copy of the body for
    # each combination of them; as int64 values there is one
    _fail_move(g, np.int64(code), np.int64(a), np.int64(b), np.int64(c))


@njit(cache=True)
def _fail_move(g, code, a, b, c):
    g.sc[S_STATUS] = STATUS_ERROR
    if g.sc[S_ERR] == E_NONE:
        g.sc[S_ERR] = code
        g.err[ER_CODE] = code
        g.err[ER_SEAT] = g.sc[S_TURN_SEAT]
        g.err[ER_TURN] = g.sc[S_TURN]
        g.err[ER_A] = a
        g.err[ER_B] = b
        g.err[ER_C] = c


@njit(cache=True, inline="always")
def fail_meld(g, code, m, b, c):
    """:func:`fail_move` for a meld: its fields go into the error record."""
    _fail_meld(g, np.int64(code), m, np.int64(b), np.int64(c))


@njit(cache=True)
def _fail_meld(g, code, m, b, c):
    if g.sc[S_ERR] == E_NONE:
        _fail_move(g, code, np.int64(0), b, c)
        for k in range(MELD_WIDTH):
            g.err[ER_MELD + k] = m[k]
    else:
        g.sc[S_STATUS] = STATUS_ERROR


@njit(cache=True)
def count_move(g):
    """Count one move of this turn; False (and an error) past ``MAX_MOVES_PER_TURN`` or after the
    round ended."""
    if g.sc[S_STATUS] != STATUS_PLAYING:
        return False
    g.sc[S_T_MOVES] += 1
    if g.sc[S_T_MOVES] > MAX_MOVES_PER_TURN:
        fail_move(g, E_TOO_MANY_MOVES, g.sc[S_T_MOVES], 0, 0)
        return False
    return True


@njit(cache=True, inline="always")
def leaves_hand(g, seat, t):
    """Bookkeeping when a copy of ``t`` leaves ``seat``'s hand: a card others saw it take is no
    longer known to be there (the copies are interchangeable; the known one goes first)."""
    if g.known[seat, t] > 0:
        g.known[seat, t] -= 1


@njit(cache=True, inline="always")
def card_hand_value(t, rv):
    """Points of card type ``t`` left in hand (RULES.md section 1)."""
    if t == JOKER:
        return rv[P_JOKER_PENALTY]
    return rank_hand_value(rank_of(t))


@njit(cache=True)
def reset_round(g, dealer, rng_state):
    """Shuffle the deck from ``rng_state`` and deal (RULES.md section 3; see docs/design.md)."""
    P = g.sc[S_PLAYERS]
    rv = g.rv
    njok = rv[P_JOKERS]
    n = 0
    for t in range(N_NATURALS):
        g.deck[n] = t
        g.deck[n + 1] = t
        n += 2
    for _ in range(njok):
        g.deck[n] = JOKER
        n += 1
    g.rng[0] = rng_state
    g.prng[0] = rng_state ^ np.uint64(0xD1B54A32D192ED03)
    shuffle(g.deck, n, g.rng)
    g.sc[S_N_DECK] = n
    g.hands[:, :] = 0
    g.hand_n[:] = 0
    g.seat[:, :] = 0
    g.mem[:, :] = 0
    g.known[:, :] = 0
    g.err[:] = 0
    g.sc[S_TURN_SEAT] = NO_SEAT
    g.sc[S_N_MELDS] = 0
    g.sc[S_TABLE_VER] += 1
    g.run_melds[:] = 0
    g.set_melds[:] = 0
    g.sc[S_PILE_N] = 0
    g.sc[S_RESHUF] = 0
    g.sc[S_TURN] = 0
    g.sc[S_STATUS] = STATUS_PLAYING
    g.sc[S_OUT_SEAT] = NO_SEAT
    g.sc[S_IS_HAND] = 0
    g.sc[S_MAX_OPEN] = 0
    g.sc[S_TR_N] = 0
    g.sc[S_TR_OVER] = 0
    g.sc[S_ERR] = 0
    g.scores[:] = 0
    g.sc[S_DEALER] = dealer
    g.sc[S_STARTER] = starter_of(dealer, P, rv)
    deal_from_deck(g)


@njit(cache=True, inline="always")
def starter_of(dealer, players, rv):
    """The starter's seat: the player to the dealer's right (the next to play) or the dealer
    (``starter``, RULES.md section 3)."""
    if rv[P_STARTER] == STARTER_DEALER_RIGHT:
        return (dealer + 1) % players
    return dealer


@njit(cache=True, inline="always")
def partner_of(g, seat):
    """The partner of ``seat`` in 2 v 2 play (the seat opposite, RULES.md section 7), or
    ``NO_SEAT`` when everyone plays alone."""
    if g.rv[P_PARTNERSHIP] == 0:
        return NO_SEAT
    P = g.sc[S_PLAYERS]
    return (seat + P // 2) % P


@njit(cache=True)
def deal_from_deck(g):
    """Deal ``g.deck`` (RULES.md section 3): the starter takes hand_size + 1 cards, then each
    next seat in playing order hand_size; the rest is the stock, drawn in deck order."""
    P = g.sc[S_PLAYERS]
    starter = g.sc[S_STARTER]
    n = g.sc[S_N_DECK]
    g.hands[:, :] = 0
    hs = g.rv[P_HAND_SIZE]
    k = 0
    for i in range(P):
        s = (starter + i) % P
        take = hs + 1 if i == 0 else hs
        for _ in range(take):
            g.hands[s, g.deck[k]] += 1
            k += 1
        g.hand_n[s] = take
    for i in range(k, n):
        g.stock[i - k] = g.deck[i]
    g.sc[S_SP] = 0
    g.sc[S_SEND] = n - k


@njit(cache=True, inline="always")
def required_for(g, seat):
    """Points ``seat``'s next lay-down must reach: 0 once it counts as opened (its own opening,
    or its partner's with ``opening_scope = team``), else :func:`required_opening`."""
    if g.seat[seat, Q_OPENED] != 0:
        return 0
    return required_opening(g)


@njit(cache=True)
def required_opening(g):
    """Points the next opening must reach (RULES.md section 4, fixed or ascending)."""
    thr = g.rv[P_THRESHOLD]
    if g.rv[P_OPENING_RULE] == OPENING_ASCENDING:
        m = g.sc[S_MAX_OPEN] + 1
        if m > thr:
            return m
    return thr


@njit(cache=True, inline="always")
def stock_left(g):
    return g.sc[S_SEND] - g.sc[S_SP]


@njit(cache=True, inline="always")
def top_discard(g):
    """Top card of the discard pile, or ``NO_CARD`` when it is empty."""
    if g.sc[S_PILE_N] == 0:
        return NO_CARD
    return g.pile[g.sc[S_PILE_N] - 1]


@njit(cache=True)
def draw_stock(g, seat):
    """Draw the top of the stock, reshuffling the pile or voiding the round when it is empty.

    Returns the card, or ``NO_CARD`` when the round became void (RULES.md section 3).
    """
    if stock_left(g) == 0:
        pn = g.sc[S_PILE_N]
        if g.sc[S_RESHUF] >= g.rv[P_MAX_RESHUFFLES] or pn <= 1:
            g.sc[S_STATUS] = STATUS_VOID
            log(g, EV_VOID, seat, 0, 0, 0, 0, 0, 0, 0)
            return NO_CARD
        top = g.pile[pn - 1]
        m = pn - 1
        for i in range(m):
            g.stock[i] = g.pile[i]
        shuffle(g.stock, m, g.rng)
        g.sc[S_SP] = 0
        g.sc[S_SEND] = m
        g.pile[0] = top
        g.sc[S_PILE_N] = 1
        g.sc[S_RESHUF] += 1
        log(g, EV_RESHUFFLE, seat, m, 0, 0, 0, 0, 0, 0)
        log_cards(g, g.stock, 0, m)
    c = g.stock[g.sc[S_SP]]
    g.sc[S_SP] += 1
    g.hands[seat, c] += 1
    g.hand_n[seat] += 1
    log(g, EV_DRAW, seat, c, 0, 0, 0, 0, 0, 0)
    return c


@njit(cache=True)
def take_discard(g, seat):
    """Take the top of the discard pile into ``seat``'s hand; returns the card or ``NO_CARD``."""
    pn = g.sc[S_PILE_N]
    if pn == 0:
        return NO_CARD
    c = g.pile[pn - 1]
    g.sc[S_PILE_N] = pn - 1
    g.sc[S_TAKEN] = c
    g.sc[S_TAKEN_C0] = g.hands[seat, c]
    g.hands[seat, c] += 1
    g.hand_n[seat] += 1
    g.known[seat, c] += 1  # everyone saw it
    log(g, EV_DRAW, seat, c, 1, 0, 0, 0, 0, 0)
    return c


@njit(cache=True)
def _remove_meld_cards(g, seat, m):
    """Take the cards of meld ``m`` out of ``seat``'s hand; False if the hand lacks one."""
    if not is_set(m):
        s = meld_key(m)
        for q in range(m[M_LO], m[M_HI] + 1):
            t = JOKER if run_has_joker_at(m, q) else card_of(s, position_rank(q))
            if g.hands[seat, t] <= 0:
                return False
            g.hands[seat, t] -= 1
            g.hand_n[seat] -= 1
            leaves_hand(g, seat, t)
    else:
        r = meld_key(m)
        for s in range(N_SUITS):
            if set_has_suit(m, s):
                t = card_of(s, r)
                if g.hands[seat, t] <= 0:
                    return False
                g.hands[seat, t] -= 1
                g.hand_n[seat] -= 1
                leaves_hand(g, seat, t)
        nj = set_jokers(m)
        if g.hands[seat, JOKER] < nj:
            return False
        g.hands[seat, JOKER] -= nj
        g.hand_n[seat] -= nj
        for _ in range(nj):
            leaves_hand(g, seat, JOKER)
    return True


@njit(cache=True)
def _holds_meld_cards(g, seat, m):
    """Whether ``seat``'s hand holds every card of meld ``m`` (its naturals are distinct cards)."""
    if not is_set(m):
        s = meld_key(m)
        nj = 0
        for q in range(m[M_LO], m[M_HI] + 1):
            if run_has_joker_at(m, q):
                nj += 1
            elif g.hands[seat, card_of(s, position_rank(q))] <= 0:
                return False
        return g.hands[seat, JOKER] >= nj
    r = meld_key(m)
    for s in range(N_SUITS):
        if set_has_suit(m, s) and g.hands[seat, card_of(s, r)] <= 0:
            return False
    return g.hands[seat, JOKER] >= set_jokers(m)


@njit(cache=True)
def lay_melds(g, seat, path, n):
    """Put the first ``n`` melds of ``path`` from ``seat``'s hand on the table.

    An unopened seat opens with them: their total opening value must reach
    :func:`required_opening` (RULES.md section 4).  Returns False (and sets an error) when the
    opening is too low, a meld is illegal or the hand lacks a card.
    """
    if n == 0:
        return True
    if g.sc[S_STATUS] != STATUS_PLAYING:
        return False
    rv = g.rv
    opening = g.seat[seat, Q_OPENED] == 0
    if opening:
        total = 0
        for i in range(n):
            total += meld_value(path[i], rv[P_ACE_LOW])
        if total < required_opening(g):
            fail_move(g, E_BAD_OPENING, total, required_opening(g), n)
            return False
    for i in range(n):
        m = path[i]
        if not count_move(g):
            return False
        if not meld_is_legal(m, rv):
            fail_meld(g, E_BAD_MELD, m, i, WHY_ILLEGAL_MELD)
            return False
        k = g.sc[S_N_MELDS]
        if k >= MAX_TABLE:
            fail(g, E_TABLE_FULL)
            return False
        if not _holds_meld_cards(g, seat, m):
            fail_meld(g, E_BAD_MELD, m, i, WHY_NOT_HELD)
            return False
        _remove_meld_cards(g, seat, m)
        if g.sc[S_TAKEN] != NO_CARD:
            u = meld_uses(m, g.sc[S_TAKEN])
            g.sc[S_T_TAKEN_MELDED] += u
            g.sc[S_T_TAKEN_USED] += u
        copy_meld(m, g.melds[k])
        g.owner[k] = seat
        g.sc[S_N_MELDS] = k + 1
        g.sc[S_TABLE_VER] += 1
        if is_set(m):
            g.set_melds[meld_key(m)] |= np.int64(1) << k
        else:
            g.run_melds[meld_key(m)] |= np.int64(1) << k
        g.sc[S_T_NEWMELD] += meld_size(m)
        g.sc[S_T_LAID] = 1
        log(g, EV_MELD, seat, k, m[M_KIND], m[M_KEY], m[M_LO], m[M_HI], m[M_MASK], m[M_NJ])
    if opening:
        g.seat[seat, Q_OPENED] = 1
        g.seat[seat, Q_OPEN_VALUE] = total
        g.sc[S_T_OPENED] = 1
        if rv[P_OPENING_SCOPE] == SCOPE_TEAM and partner_of(g, seat) != NO_SEAT:
            # opening_scope = team: the partner counts as opened too (RULES.md section 4)
            g.seat[partner_of(g, seat), Q_OPENED] = 1
    elif g.sc[S_T_OPENED] == 1:
        # more melds in the opening turn belong to the opening (RULES.md section 4)
        for i in range(n):
            g.seat[seat, Q_OPEN_VALUE] += meld_value(path[i], rv[P_ACE_LOW])
    if g.sc[S_T_OPENED] == 1 and g.seat[seat, Q_OPEN_VALUE] > g.sc[S_MAX_OPEN]:
        g.sc[S_MAX_OPEN] = g.seat[seat, Q_OPEN_VALUE]
    return True


@njit(cache=True)
def may_touch_table(g, seat):
    """Whether ``seat`` may lay off or swap now (opened; not the opening turn if forbidden)."""
    if g.seat[seat, Q_OPENED] == 0:
        return False
    if g.rv[P_LAYOFF_ON_OPENING] == 0 and g.sc[S_T_OPENED] == 1:
        return False
    return True


@njit(cache=True)
def _table_move_problem(g, seat, k, t):
    """Why ``seat`` may not lay card ``t`` off on (or swap it into) table meld ``k`` whatever the
    meld: ``WHY_*``, or 0."""
    if k < 0 or k >= g.sc[S_N_MELDS]:
        return WHY_NO_MELD
    if t < 0 or t > JOKER or g.hands[seat, t] <= 0:
        return WHY_NOT_HELD
    if not may_touch_table(g, seat):
        return WHY_NOT_OPENED
    return 0


@njit(cache=True)
def layoff_position(g, k, t):
    """Where card ``t`` can be laid off on table meld ``k``: a run position, a set suit
    (-1 for a joker on a set), or ``NO_TARGET`` when it cannot (RULES.md section 2)."""
    m = g.melds[k]
    rv = g.rv
    lo = m[M_LO]
    hi = m[M_HI]
    if t == JOKER:
        if meld_jokers(m) >= rv[P_MAX_JOKERS]:
            return NO_TARGET
        if is_set(m):
            if meld_size(m) < MAX_SET:
                return -1
            return NO_TARGET
        if hi - lo + 1 >= MAX_RUN:
            return NO_TARGET
        if hi < ACE_HIGH:
            return hi + 1
        return lo - 1
    s = suit_of(t)
    r = rank_of(t)
    if is_set(m):
        if meld_key(m) != r or set_has_suit(m, s) or meld_size(m) >= MAX_SET:
            return NO_TARGET
        return s
    if meld_key(m) != s or hi - lo + 1 >= MAX_RUN:
        return NO_TARGET
    if r == 1:
        if lo == 2:
            return 1
        if hi == 13:
            return ACE_HIGH
        return NO_TARGET
    if r == lo - 1:
        return r
    if r == hi + 1:
        return r
    return NO_TARGET


@njit(cache=True)
def first_layoff_meld(g, t):
    """The lowest-numbered table meld card type ``t`` can be laid off on
    (:func:`layoff_position`), or -1.  Only the sets of its rank and the runs of its suit are
    tried (a joker tries every meld), and only when :func:`layoff_fits` says some meld may take
    the card (most cards of a hand fit none)."""
    if ((layoff_fits(g) >> t) & 1) == 0:
        return -1
    return _first_meld(g, t, False)


@njit(cache=True)
def layoff_fits(g):
    """Bitset of the card types (bit ``t``; the joker bit ``JOKER``) that may be laid off on
    some table meld: the ends of the runs that are not full, the suits missing from the sets that
    are not full, a joker where the meld has room for one more (a superset of what
    :func:`layoff_position` accepts).  Worked out again only after the table changed."""
    if g.sc[S_FIT_VER] == g.sc[S_TABLE_VER]:
        return g.sc[S_FIT]
    fit = np.int64(0)
    maxj = g.rv[P_MAX_JOKERS]
    for k in range(g.sc[S_N_MELDS]):
        m = g.melds[k]
        key = meld_key(m)
        if is_set(m):
            if meld_size(m) >= MAX_SET:
                continue
            for s in range(N_SUITS):
                if not set_has_suit(m, s):
                    fit |= np.int64(1) << card_of(s, key)
        else:
            lo = m[M_LO]
            hi = m[M_HI]
            if hi - lo + 1 >= MAX_RUN:
                continue
            if lo >= 2:
                fit |= np.int64(1) << card_of(key, lo - 1)  # lo - 1 = 1: the Ace, low
            if hi <= 12:
                fit |= np.int64(1) << card_of(key, hi + 1)
            elif hi == 13:
                fit |= np.int64(1) << card_of(key, 1)  # the Ace, high
        if meld_jokers(m) < maxj:
            fit |= np.int64(1) << JOKER
    g.sc[S_FIT] = fit
    g.sc[S_FIT_VER] = g.sc[S_TABLE_VER]
    return fit


@njit(cache=True)
def first_swap_meld(g, t):
    """The lowest-numbered table meld whose joker natural ``t`` can replace
    (:func:`swap_position`), or -1 (always -1 for a joker)."""
    return _first_meld(g, t, True)


@njit(cache=True, inline="always")
def _first_meld(g, t, swap):
    if t == JOKER:
        if swap:
            return -1
        for k in range(g.sc[S_N_MELDS]):
            if layoff_position(g, k, t) != NO_TARGET:
                return k
        return -1
    cand = g.set_melds[rank_of(t)] | g.run_melds[suit_of(t)]
    while cand:
        k = ctz(cand)
        pos = swap_position(g, k, t) if swap else layoff_position(g, k, t)
        if pos != NO_TARGET:
            return k
        cand &= cand - 1
    return -1


@njit(cache=True)
def lay_off(g, seat, k, t):
    """Lay card ``t`` from ``seat``'s hand off on table meld ``k`` (RULES.md sections 2 and 4).

    Returns False, and stops the round with ``E_BAD_LAYOFF``, when the move is not legal.
    """
    if not count_move(g):
        return False
    why = _table_move_problem(g, seat, k, t)
    pos = NO_TARGET
    if why == 0:
        pos = layoff_position(g, k, t)
        if pos == NO_TARGET:
            why = WHY_NO_FIT
    if why != 0:
        fail_move(g, E_BAD_LAYOFF, t, k, why)
        return False
    m = g.melds[k]
    g.sc[S_TABLE_VER] += 1
    if is_set(m):
        if t == JOKER:
            m[M_NJ] += 1
        else:
            m[M_MASK] |= 1 << pos
    else:
        if pos < m[M_LO]:
            m[M_LO] = pos
        else:
            m[M_HI] = pos
        if t == JOKER:
            m[M_MASK] |= 1 << pos
    g.hands[seat, t] -= 1
    g.hand_n[seat] -= 1
    leaves_hand(g, seat, t)
    if t == g.sc[S_TAKEN]:
        g.sc[S_T_TAKEN_USED] += 1
    g.sc[S_T_LAID] = 1
    if g.owner[k] != seat:
        g.sc[S_T_OTHERS] = 1
    log(g, EV_LAYOFF, seat, k, t, pos, 0, 0, 0, 0)
    return True


@njit(cache=True)
def swap_position(g, k, t):
    """Where natural ``t`` can replace a joker of table meld ``k`` (run position or set suit),
    or ``NO_TARGET`` (RULES.md section 5)."""
    if g.rv[P_JOKER_SWAP] == 0 or t == JOKER:
        return NO_TARGET
    m = g.melds[k]
    s = suit_of(t)
    r = rank_of(t)
    if is_set(m):
        if set_jokers(m) == 0 or meld_key(m) != r or set_has_suit(m, s):
            return NO_TARGET
        return s
    if meld_key(m) != s:
        return NO_TARGET
    lo = m[M_LO]
    hi = m[M_HI]
    if r == 1:
        if lo == 1 and run_has_joker_at(m, 1):
            return 1
        if hi == ACE_HIGH and run_has_joker_at(m, ACE_HIGH):
            return ACE_HIGH
        return NO_TARGET
    if lo <= r <= hi and run_has_joker_at(m, r):
        return r
    return NO_TARGET


@njit(cache=True)
def swap_joker(g, seat, k, t):
    """Put natural ``t`` in place of a joker of meld ``k``; the joker goes to the hand
    (RULES.md section 5).

    Returns False, and stops the round with ``E_BAD_SWAP``, when the move is not legal.
    """
    if not count_move(g):
        return False
    why = _table_move_problem(g, seat, k, t)
    pos = NO_TARGET
    if why == 0:
        pos = swap_position(g, k, t)
        if pos == NO_TARGET:
            why = WHY_NO_FIT
    if why != 0:
        fail_move(g, E_BAD_SWAP, t, k, why)
        return False
    m = g.melds[k]
    g.sc[S_TABLE_VER] += 1
    if is_set(m):
        m[M_MASK] |= 1 << pos
        m[M_NJ] -= 1
    else:
        m[M_MASK] &= ~(1 << pos)
    g.hands[seat, t] -= 1
    g.hands[seat, JOKER] += 1
    leaves_hand(g, seat, t)
    g.known[seat, JOKER] += 1  # everyone saw the joker go to the hand
    if t == g.sc[S_TAKEN]:
        g.sc[S_T_TAKEN_USED] += 1
    g.sc[S_T_LAID] = 1
    if g.owner[k] != seat:
        g.sc[S_T_OTHERS] = 1
    log(g, EV_SWAP, seat, k, t, pos, 0, 0, 0, 0)
    return True


@njit(cache=True, inline="always")
def may_discard(t, held, taken, taken_before, taken_used):
    """The rule on the card taken from the discard pile (RULES.md section 3), written once.

    Whether one of ``held`` copies of card type ``t`` may be discarded, when ``taken`` is the card
    taken from the pile this turn (``NO_CARD``: none), ``taken_before`` the copies of it the hand
    held before the take, and ``taken_used`` the copies of it put on the table this turn.  The
    card just taken may not go back; its twin, held before, may; and once a copy went to the
    table, any copy may.  Used by the engine (:func:`discard_is_legal`) and by every planner
    that asks what the hand could discard after some cards leave it
    (:func:`legal_discard_after`, :func:`legal_discard_after_card`).
    """
    if held <= 0:
        return False
    return not (t == taken and taken_before == 0 and held == 1 and taken_used == 0)


@njit(cache=True)
def discard_is_legal(g, seat, t):
    """Whether ``seat`` may discard card type ``t`` now (held, and :func:`may_discard`)."""
    if t < 0 or t > JOKER:
        return False
    return may_discard(t, g.hands[seat, t], g.sc[S_TAKEN], g.sc[S_TAKEN_C0], g.sc[S_T_TAKEN_USED])


@njit(cache=True)
def legal_discard_after(g, seat, rem):
    """Whether ``seat`` would still hold a card it may discard once the cards ``rem``
    (``int8[N_TYPES]`` counts) leave its hand for the table this turn (False when none is left)."""
    taken = g.sc[S_TAKEN]
    used = g.sc[S_T_TAKEN_USED]
    if taken != NO_CARD:
        used += rem[taken]
    for t in range(N_TYPES):
        if may_discard(t, g.hands[seat, t] - rem[t], taken, g.sc[S_TAKEN_C0], used):
            return True
    return False


@njit(cache=True)
def legal_discard_after_path(g, seat, path, n):
    """:func:`legal_discard_after` for the cards of the first ``n`` melds of ``path`` (a plan)."""
    taken = g.sc[S_TAKEN]
    used = g.sc[S_T_TAKEN_USED]
    if taken != NO_CARD:
        used += path_uses(path, n, taken)
    for t in range(N_TYPES):
        held = g.hands[seat, t]
        if held > 0 and may_discard(t, held - path_uses(path, n, t), taken, g.sc[S_TAKEN_C0], used):
            return True
    return False


@njit(cache=True)
def legal_discard_after_card(g, seat, c):
    """:func:`legal_discard_after` for one card ``c`` leaving the hand (a lay-off)."""
    taken = g.sc[S_TAKEN]
    used = g.sc[S_T_TAKEN_USED] + (1 if c == taken else 0)
    for t in range(N_TYPES):
        if may_discard(t, g.hands[seat, t] - (1 if t == c else 0), taken, g.sc[S_TAKEN_C0], used):
            return True
    return False


@njit(cache=True)
def discard(g, seat, t):
    """Discard ``t`` to the pile; False (and an error) if not legal."""
    if not discard_is_legal(g, seat, t):
        if t < 0:
            why = WHY_NO_DISCARD
        elif t > JOKER or g.hands[seat, t] <= 0:
            why = WHY_NOT_HELD
        else:
            why = WHY_TAKEN_CARD
        fail_move(g, E_BAD_DISCARD, t, 0, why)
        return False
    g.hands[seat, t] -= 1
    g.hand_n[seat] -= 1
    leaves_hand(g, seat, t)
    g.pile[g.sc[S_PILE_N]] = t
    g.sc[S_PILE_N] += 1
    log(g, EV_DISCARD, seat, t, 0, 0, 0, 0, 0, 0)
    return True


@njit(cache=True)
def score_round(g):
    """Fill ``g.scores`` (points, by seat) for the finished round (RULES.md section 6)."""
    P = g.sc[S_PLAYERS]
    rv = g.rv
    g.scores[:] = 0
    if g.sc[S_STATUS] != STATUS_OUT:
        return
    out = g.sc[S_OUT_SEAT]
    is_hand = g.sc[S_IS_HAND]
    partner = partner_of(g, out)
    for s in range(P):
        if s == out:
            g.scores[s] = -60 if is_hand else -30
            continue
        if s == partner:
            continue  # 2 v 2: the partner of the player who went out scores 0 (RULES.md section 6)
        v = 0
        for t in range(N_TYPES):
            if g.hands[s, t] > 0:
                v += g.hands[s, t] * card_hand_value(t, rv)
        if g.seat[s, Q_OPENED] == 0:
            if rv[P_UNOPENED_PENALTY] == UNOPENED_FLAT:
                v = 100
            else:
                v += 100
        if is_hand and rv[P_HAND_DOUBLES]:
            v *= 2
        g.scores[s] = v


@njit(cache=True)
def go_out(g, seat):
    """End the round with ``seat`` out; decide whether it is a Hand (RULES.md section 6)."""
    is_hand = (
        g.seat[seat, Q_LAID_BEFORE] == 0
        and g.sc[S_T_OTHERS] == 0
        and g.sc[S_T_NEWMELD] >= g.rv[P_HAND_MIN_CARDS]
    )
    g.sc[S_STATUS] = STATUS_OUT
    g.sc[S_OUT_SEAT] = seat
    g.sc[S_IS_HAND] = 1 if is_hand else 0
    log(g, EV_OUT, seat, 1 if is_hand else 0, 0, 0, 0, 0, 0, 0)
    score_round(g)


@njit(cache=True)
def hand_search(g, hand, mode):
    """Best arrangement of count vector ``hand`` under ``mode``; melds land in ``g.bestpath``.

    Returns ``(melded_weight, n_melds)`` (see :func:`handsim.games.hand.kernels.arrange.search`).
    """
    return hand_search_above(g, hand, mode, np.int64(-1))


@njit(cache=True, inline="always")
def _memo_pair(c1, c2, key2):
    """The first entry of the pair of remembered searches where a hand (bitsets ``c1``, ``c2``)
    and ``key2`` (jokers | mode << 8) are kept: a multiplicative hash."""
    x = c1 * np.int64(0x2545F4914F6CDD1D) + c2 * np.int64(0x5851F42D4C957F2D) + key2 * np.int64(0x1B873593)
    return ((x >> 40) & (MEMO // 2 - 1)) * 2


@njit(cache=True)
def hand_search_above(g, hand, mode, floor):
    """:func:`hand_search` among the arrangements worth more than ``floor``: returns
    ``(floor, 0)`` when there is none, else what :func:`hand_search` returns (the same melds).

    The table remembers its last searches (hand, mode, floor and result; :data:`MEMO` of them, two
    per hash of hand and mode), so a hand searched again - the draw decision pretends to take the
    discard and the play then searches the hand it took, a planner repeats the search its caller
    just made, a simulated continuation meets the hands an earlier one met - is searched once.  A
    remembered result that found an arrangement answers any floor (it is the best one, and the
    same melds come out for every floor below its weight); one that found nothing above its floor
    answers the same floor or a higher one.  The result depends on the hand and the search
    weights only, which :func:`forget_searches` watches.
    """
    c1, c2 = hand_bits(hand)
    key2 = np.int64(hand[JOKER]) | (np.int64(mode) << 8)
    e0 = _memo_pair(c1, c2, key2)
    slot = -1
    for e in range(e0, e0 + 2):
        k = g.memo_key[e]
        if k[0] != c1 or k[1] != c2 or k[2] != key2:
            continue
        r = g.memo_res[e]
        if r[1] > r[0]:  # found: the best arrangement
            if r[1] <= floor:
                return floor, 0
            n = r[2]
            for i in range(n):
                for j in range(MELD_WIDTH):
                    g.bestpath[i, j] = g.memo_path[e, i, j]
            return r[1], n
        if floor >= r[0]:  # nothing above a floor as high or higher
            return floor, 0
        slot = e  # nothing above a higher floor: this search replaces it
    val, n = search_bits(c1, c2, np.int64(hand[JOKER]), g.W[mode], g.path, g.bestpath, g.best, floor)
    if slot < 0:
        slot = e0 + (g.memo_next[0] & 1)
        g.memo_next[0] += 1
    g.memo_key[slot, 0] = c1
    g.memo_key[slot, 1] = c2
    g.memo_key[slot, 2] = key2
    g.memo_res[slot, 0] = floor
    g.memo_res[slot, 1] = val
    g.memo_res[slot, 2] = n
    for i in range(n):
        for j in range(MELD_WIDTH):
            g.memo_path[slot, i, j] = g.bestpath[i, j]
    return val, n


@njit(cache=True)
def could_meld(g, hand, t):
    """False when no meld made of the cards ``hand`` (count vector) can contain card type ``t``
    (held in ``hand``): then no arrangement of ``hand`` uses it.  True promises nothing.  A few
    bit operations, no search (:func:`handsim.games.hand.kernels.arrange.meldable`)."""
    if t == JOKER:
        return True
    c1, c2 = hand_bits(hand)
    kept = meldable(c1, np.int64(hand[JOKER]), g.rv[P_MAX_JOKERS])
    return (kept >> (suit_of(t) * 16 + rank_of(t))) & 1 == 1


@njit(cache=True)
def forget_searches(g):
    """Empty the table's remembered searches if its search weights ``W`` are not the ones they
    were made with (a new table; a copy of a table of other rules).  A copy of a table of the same
    rules keeps them: a search's result depends on the hand and the weights only."""
    same = True
    for m in range(3):
        for i in range(6):
            for j in range(16):
                if g.W[m, i, j] != g.memo_w[m, i, j]:
                    same = False
    if same:
        return
    for e in range(MEMO):
        g.memo_key[e, 2] = -1
    g.memo_w[:, :, :] = g.W


@njit(cache=True, inline="always")
def go_out_requires_discard(g):
    return g.rv[P_GO_OUT_DISCARD] != 0


@njit(cache=True, inline="always")
def hand_min_cards(g):
    return g.rv[P_HAND_MIN_CARDS]
