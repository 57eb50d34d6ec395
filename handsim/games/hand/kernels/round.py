"""The state of a classic Hand round (numba; RULES.md sections 1-6): its constants, the state
record, dealing, drawing, scoring, going out and the hand searches.

:mod:`.state` adds the moves on the table and re-exports every name of this module: the engine,
the policy API and the tracer read them there (``S.<name>``)."""

import numpy as np
from numba import njit
from handsim.games.hand.kernels.arrange import (
    COUNT, DEAD, MAX_MELDS, OPEN, drop_unmeldable, hand_bits, make_weights, meldable, search_kept,
)
from handsim.games.hand.kernels.consts import (
    JOKER,
    MAX_SEATS,
    N_NATURALS,
    N_RANKS,
    N_SUITS,
    N_TYPES,
    NO_CARD,
    NO_SEAT,
)
from handsim.games.hand.kernels.melds import MELD_WIDTH, rank_hand_value, rank_of, suit_of
from handsim.games.hand.kernels.params import (
    P_PARTNERSHIP,
    OPENING_ASCENDING,
    P_ASC_INCREMENT,
    P_GO_OUT_DISCARD,
    P_HAND_DOUBLES,
    P_HAND_MIN_CARDS,
    P_HAND_SIZE,
    P_ACE,
    P_JOKER_PENALTY,
    P_JOKERS,
    P_MAX_JOKERS,
    P_MAX_RESHUFFLES,
    P_OPENING_RULE,
    P_STARTER,
    P_THRESHOLD,
    N_PARAMS,
    P_HAND_SCORE,
    P_OUT_SCORE,
    P_UNOPENED_PENALTY,
    P_UNOPENED_POINTS,
    STARTER_DEALER_RIGHT,
    UNOPENED_FLAT,
)
from handsim._kernels.rng import shuffle


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
S_T_WAIVED = 31  # hand_waives_threshold: the points this turn's opening lacked the required value of (0: none)
N_SC = 32

# per-seat integers seat[s, ...]
Q_OPENED = 0
Q_LAID_BEFORE = 1
Q_OWN_TURNS = 2
Q_FOR_HAND = 3  # published by the seat's policy: it still plays for a Hand (api.set_playing_for_hand)
Q_OPEN_VALUE = 4
Q_DISCARDED = 5  # bit t: the seat discarded card type t in this round (public: everyone saw it)
Q_PASSED = 6  # bit t: the seat drew from the stock over top discard t while it counted as opened (public)
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
E_POLICY_RAISED = 15  # a user-written policy's decision raised (an index out of range, ...): ER_A the decision
E_WAIVED_NOT_HAND = 16  # hand_waives_threshold: an opening below the required value that was no Hand
E_OPENED_WITHOUT_TAKEN = 17  # must_open_using / opening_requires_discard_pickup: the taken card in no new meld of the opening
E_OPENED_WITHOUT_PICKUP = 18  # opening_requires_discard_pickup: opened without taking the top discard, and no Hand

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
    return rank_hand_value(rank_of(t), rv[P_ACE])


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
    """Points the next opening must reach (RULES.md section 4): ``opening_threshold``; under
    ``opening_rule = ascending``, once someone has opened, at least the highest opening so far plus
    ``ascending_increment``."""
    thr = g.rv[P_THRESHOLD]
    if g.rv[P_OPENING_RULE] == OPENING_ASCENDING and g.sc[S_MAX_OPEN] > 0:
        m = g.sc[S_MAX_OPEN] + g.rv[P_ASC_INCREMENT]
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
            g.scores[s] = rv[P_HAND_SCORE] if is_hand else rv[P_OUT_SCORE]
            continue
        if s == partner:
            continue  # 2 v 2: the partner of the player who went out scores 0 (RULES.md section 6)
        v = 0
        for t in range(N_TYPES):
            if g.hands[s, t] > 0:
                v += g.hands[s, t] * card_hand_value(t, rv)
        if g.seat[s, Q_OPENED] == 0:
            if rv[P_UNOPENED_PENALTY] == UNOPENED_FLAT:
                v = rv[P_UNOPENED_POINTS]
            else:
                v += rv[P_UNOPENED_POINTS]
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
    J = np.int64(hand[JOKER])
    W = g.W[mode]
    # keyed by the cards some meld may contain: a hand searched again with other cards no meld
    # can hold (a card drawn or discarded that fits nothing) has the same arrangement
    c1, c2 = hand_bits(hand)
    c1, c2 = drop_unmeldable(c1, c2, J, W)
    key2 = J | (np.int64(mode) << 8)
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
    val, n = search_kept(c1, c2, J, W, g.path, g.bestpath, g.best, floor)
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
    return ((kept >> (suit_of(t) * 16 + rank_of(t))) & 1) == 1


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
