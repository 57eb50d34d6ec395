"""The state of one Russian Hand table and its moves (numba; RULES.md §8).

One table is a record of :data:`STATE_DTYPE` (hands as card counts, the shuffled deck whose
undealt rest is the stock, the table's melds, the staged play, counters and the move log) and
the search workspace of :mod:`.rearrange`; the two travel together as ``g = (st, ws)``, which
is what the policies receive (they read and change it only through
:mod:`handsim.games.russian.policies.api`).  Both are allocated once per chunk of deals, never
per turn.

A *play* is staged first (``st.st_*``: the hand cards placed and the whole table after the
play) by the policy API, then :func:`apply_play` checks it - at least one card, only cards the
hand holds, the table after holding exactly the table before plus those cards, every meld
legal, the first-round rule - and carries it out.  A staged play that breaks a rule is never
applied: the deal stops with :data:`ERR_BAD_PLAY` and the reason in ``st.err_why``.

Cards are card types ``t = suit * 13 + rank - 1`` (``handsim.cards``), 0..51; the deck holds
every type twice.  Melds are rows ``(RUN, suit, lo, hi)`` / ``(SET, rank, suit_mask, 0)`` of
:mod:`.rearrange`.
"""

import numpy as np
from numba import njit

from handsim._kernels.rng import shuffle, stream_key
from handsim.games.russian.kernels.rearrange import MAX_MELDS, RUN, SET

#: Most players (RULES.md §8).
MAX_SEATS = 5
#: Cards in the deck: two 52-card decks, no jokers.
DECK = 104
#: Card types.
N_CARDS = 52
#: Rows of a meld buffer (the most melds a table holds, and room for a search's output).
MELD_ROWS = MAX_MELDS + 8
#: Length of a seat's parameter vector (``handsim.policies.declare.MAX_PARAMS``).
N_POLICY_PARAMS = 8
#: Entries of the move log (int16).
LOG_SIZE = 1 << 16
#: A deal that has not ended after this many turns is an engine error (every turn draws a
#: stock card or puts a hand card on the table, so a game lasts at most 104 + 76 turns).
TURN_CAP = 400

# indices of the rules vector (RussianRules.to_vector; tests check them against rules.INDEX)
R_HAND_SIZE = 0
R_FIRST_ROUND = 1
R_STOCK_OUT_END = 2
R_ACE_VALUE = 3
N_RULES = 4
# first_round values
FR_NEW_MELDS = 0
FR_ONE_MELD = 1
FR_FREE = 2
# stock_out_end values
SO_MUST_DRAW = 0
SO_LAST_CARD = 1

# what a policy's play() returns
DRAW = 0
PLAY = 1

# per-seat result flags
FLAG_WON = 1
FLAG_DREW = 2  # tied for first in a drawn game
FLAG_OUT = 4  # emptied the hand

# how a game ended
END_OUT = 0  # a player emptied the hand
END_STOCK_WIN = 1  # the stock ran out; fewest cards (then lowest value) won
END_STOCK_DRAW = 2  # the stock ran out; a draw

# engine errors (a bug, or an illegal play staged by a policy)
ERR_NONE = 0
ERR_TURN_CAP = 1
ERR_BAD_PLAY = 2
ERR_LOG_FULL = 3
ERR_SEARCH = 4
ERR_BAD_ACTION = 5

# why a staged play was refused (st.err_why)
WHY_NOTHING = 1  # no card placed
WHY_NOT_HELD = 2  # a card placed that the hand does not hold
WHY_BAD_MELD = 3  # an illegal meld in the table after
WHY_CARDS = 4  # the table after is not the table before plus the placed cards
WHY_FIRST_ROUND = 5  # the first-round rule (the table changed, or not one meld under one_meld)
WHY_COUNT = 6  # the staged count does not match the placed cards

# move-log events: (code, seat, ...)
EV_TURN = 1  # seat
EV_DRAW = 2  # seat, card
EV_PLAY = 3  # seat, n, n placed cards, m, m meld rows of 4 (the table after)
EV_STOCK_OUT = 4  # seat: the game ends on an empty stock (at this seat's turn)
EV_OUT = 5  # seat: emptied the hand

STATE_DTYPE = np.dtype([
    ("hand", np.int8, (MAX_SEATS, N_CARDS)),  # card counts by seat
    ("hand_n", np.int64, (MAX_SEATS,)),  # cards held by seat
    ("deck", np.int8, (DECK,)),  # the shuffled deck of this deal; deck[stock_top:] is the stock
    ("stock_top", np.int64),
    ("tcnt", np.int8, (N_CARDS,)),  # card counts on the table
    ("melds", np.int8, (MELD_ROWS, 4)),  # the table's melds
    ("n_melds", np.int64),
    ("players", np.int64),
    ("turn", np.int64),  # turns finished
    ("own_turns", np.int64, (MAX_SEATS,)),
    ("rv", np.int64, (N_RULES,)),
    ("rank_value", np.int32, (14,)),  # card value by rank (Ace ace_value)
    ("pol", np.int64, (MAX_SEATS,)),  # policy id by seat
    ("pp", np.float64, (MAX_SEATS, N_POLICY_PARAMS)),  # policy parameters by seat
    ("rng", np.uint64, (1,)),  # the deal's random stream
    ("st_placed", np.int8, (N_CARDS,)),  # staged play: hand cards placed
    ("st_n", np.int64),  # staged play: number of cards placed (0: nothing staged)
    ("st_melds", np.int8, (MELD_ROWS, 4)),  # staged play: the table after
    ("st_n_melds", np.int64),
    ("sol_melds", np.int8, (MELD_ROWS, 4)),  # the search's output
    ("scratch", np.int8, (N_CARDS,)),
    ("solves", np.int64),  # calls of the rearrangement search in this deal
    ("searches", np.int64),  # of which ran the dynamic programme (not answered by pruning)
    ("search_turns", np.int64),  # turns in which the search was called
    ("searched", np.int64),  # whether it was called in the current turn
    ("err", np.int64),
    ("err_why", np.int64),
    ("err_seat", np.int64),
    ("trace_on", np.int64),
    ("n_log", np.int64),
    ("log", np.int16, (LOG_SIZE,)),
])


@njit(cache=True)
def new_state(players, rv, trace_on):
    """Allocate one table (``STATE_DTYPE`` array of length 1; use ``arr[0]``)."""
    arr = np.zeros(1, dtype=STATE_DTYPE)
    st = arr[0]
    st.players = players
    for i in range(N_RULES):
        st.rv[i] = rv[i]
    for r in range(1, 14):
        st.rank_value[r] = r if r <= 10 else 10
    st.rank_value[1] = rv[R_ACE_VALUE]
    st.trace_on = trace_on
    return arr


@njit(cache=True)
def keep_alive(arr):
    """A use of the state array after the last use of its record (numba frees an array after
    its last use even while a record taken from it is in use)."""
    return arr.shape[0]


@njit(cache=True)
def seat_policies(st, i, pol, pp):
    """Line-up position ``j`` sits at seat ``(j + i) % P`` in deal ``i`` (the positions rotate
    over the seats from deal to deal)."""
    P = st.players
    for j in range(P):
        s = (j + i) % P
        st.pol[s] = pol[j]
        for k in range(N_POLICY_PARAMS):
            st.pp[s, k] = pp[j, k]


@njit(cache=True)
def deal(st, seed, i):
    """Shuffle deal ``i`` of ``seed`` and deal it: seat 0 (the first player) takes
    ``deck[0:h]``, seat 1 the next ``h`` cards, ...; the rest is the stock, top first."""
    st.rng[0] = stream_key(seed, i, 0)
    for k in range(DECK):
        st.deck[k] = k % N_CARDS
    shuffle(st.deck, DECK, st.rng)
    start_deck(st)


@njit(cache=True)
def start_deck(st):
    """Deal ``st.deck`` (already in order) and reset everything else of the deal."""
    P = st.players
    h = st.rv[R_HAND_SIZE]
    st.hand[:, :] = 0
    st.hand_n[:] = 0
    st.tcnt[:] = 0
    st.n_melds = 0
    st.turn = 0
    st.own_turns[:] = 0
    st.st_n = 0
    st.st_n_melds = 0
    st.solves = 0
    st.searches = 0
    st.search_turns = 0
    st.searched = 0
    st.err = 0
    st.err_why = 0
    st.err_seat = -1
    st.n_log = 0
    k = 0
    for s in range(P):
        for _ in range(h):
            st.hand[s, st.deck[k]] += 1
            k += 1
        st.hand_n[s] = h
    st.stock_top = k


@njit(cache=True, inline="always")
def stock_left(st):
    return DECK - st.stock_top


@njit(cache=True, inline="always")
def in_first_round(st):
    """Whether the current turn is in the first round of turns (until every player has had one)."""
    return st.turn < st.players


@njit(cache=True, inline="always")
def frozen_now(st):
    """Whether a play now may only lay new melds of hand cards (the first-round rule, RULES.md §8)."""
    return st.turn < st.players and st.rv[R_FIRST_ROUND] != FR_FREE


# ------------------------------------------------------------------------------ move log


@njit(cache=True, inline="always")
def _log1(st, x):
    if st.n_log < LOG_SIZE:
        st.log[st.n_log] = x
    st.n_log += 1


@njit(cache=True)
def log_event(st, code, seat, card):
    """An event of up to one card (turn, draw, stock-out, out)."""
    if st.trace_on == 0:
        return
    _log1(st, code)
    _log1(st, seat)
    if code == EV_DRAW:
        _log1(st, card)


@njit(cache=True)
def log_play(st, seat):
    """The play just applied: the placed cards and the whole table after it."""
    if st.trace_on == 0:
        return
    _log1(st, EV_PLAY)
    _log1(st, seat)
    _log1(st, st.st_n)
    for t in range(N_CARDS):
        for _ in range(st.st_placed[t]):
            _log1(st, t)
    _log1(st, st.n_melds)
    for i in range(st.n_melds):
        for j in range(4):
            _log1(st, st.melds[i, j])


# ------------------------------------------------------------------------------ moves


@njit(cache=True)
def draw(st, seat):
    """Move the top stock card into ``seat``'s hand (the stock must not be empty); returns it."""
    c = st.deck[st.stock_top]
    st.stock_top += 1
    st.hand[seat, c] += 1
    st.hand_n[seat] += 1
    log_event(st, EV_DRAW, seat, c)
    return c


@njit(cache=True, inline="always")
def meld_ok(kind, key, a, b):
    """Whether a meld row is a legal Russian Hand meld (RULES.md §2, no jokers)."""
    if kind == RUN:
        n = b - a + 1
        return 0 <= key < 4 and 1 <= a and b <= 14 and 3 <= n <= 13
    if kind == SET:
        if not (1 <= key <= 13 and 0 < a < 16 and b == 0):
            return False
        n = (a & 1) + ((a >> 1) & 1) + ((a >> 2) & 1) + ((a >> 3) & 1)
        return n >= 3
    return False


@njit(cache=True)
def add_meld_cards(cnt, kind, key, a, b):
    """Add the cards of a legal meld row to the counts ``cnt``."""
    if kind == RUN:
        for p in range(a, b + 1):
            r = 1 if p == 14 else p
            cnt[key * 13 + r - 1] += 1
    else:
        for s in range(4):
            if (a >> s) & 1:
                cnt[s * 13 + key - 1] += 1


@njit(cache=True)
def staged_problem(st, seat):
    """Why the staged play may not be applied (a ``WHY_*`` code), 0 if it may (RULES.md §8)."""
    n = 0
    for t in range(N_CARDS):
        p = st.st_placed[t]
        if p < 0 or p > st.hand[seat, t]:
            return WHY_NOT_HELD
        n += p
    if n == 0:
        return WHY_NOTHING
    if n != st.st_n:
        return WHY_COUNT
    m = st.st_n_melds
    if m < 0 or m > MAX_MELDS:
        return WHY_BAD_MELD
    cnt = st.scratch
    cnt[:] = 0
    for i in range(m):
        kind = st.st_melds[i, 0]
        key = st.st_melds[i, 1]
        a = st.st_melds[i, 2]
        b = st.st_melds[i, 3]
        if not meld_ok(kind, key, a, b):
            return WHY_BAD_MELD
        add_meld_cards(cnt, kind, key, a, b)
    for t in range(N_CARDS):
        if cnt[t] != st.tcnt[t] + st.st_placed[t]:
            return WHY_CARDS
    if frozen_now(st):
        # the melds on the table stay as they are (in their places), the play adds new ones
        if m <= st.n_melds:
            return WHY_FIRST_ROUND
        for i in range(st.n_melds):
            for j in range(4):
                if st.st_melds[i, j] != st.melds[i, j]:
                    return WHY_FIRST_ROUND
        if st.rv[R_FIRST_ROUND] == FR_ONE_MELD and m != st.n_melds + 1:
            return WHY_FIRST_ROUND
    return 0


@njit(cache=True)
def apply_play(st, seat):
    """Check and carry out the staged play of ``seat``; returns ``True`` if it was applied
    (else ``st.err`` is :data:`ERR_BAD_PLAY` and ``st.err_why`` says why)."""
    why = staged_problem(st, seat)
    if why != 0:
        st.err = ERR_BAD_PLAY
        st.err_why = why
        st.err_seat = seat
        return False
    for t in range(N_CARDS):
        p = st.st_placed[t]
        if p:
            st.hand[seat, t] -= p
            st.tcnt[t] += p
    st.hand_n[seat] -= st.st_n
    for i in range(st.st_n_melds):
        for j in range(4):
            st.melds[i, j] = st.st_melds[i, j]
    st.n_melds = st.st_n_melds
    log_play(st, seat)
    st.st_n = 0
    return True


@njit(cache=True)
def hand_value(st, seat):
    """Points of the cards in ``seat``'s hand (RULES.md §1; Ace ``ace_value``)."""
    v = 0
    for t in range(N_CARDS):
        c = st.hand[seat, t]
        if c:
            v += c * st.rank_value[t % 13 + 1]
    return v


@njit(cache=True)
def stock_out_result(st, flags):
    """The stock-out ending (RULES.md §8): the fewest cards wins, then the lowest card value,
    else a draw among the tied.  Writes ``flags`` by seat; returns ``END_STOCK_WIN`` or
    ``END_STOCK_DRAW``."""
    P = st.players
    best_n = 1 << 30
    best_v = 1 << 30
    for s in range(P):
        n = st.hand_n[s]
        v = hand_value(st, s)
        if n < best_n or (n == best_n and v < best_v):
            best_n = n
            best_v = v
    tied = 0
    for s in range(P):
        flags[s] = 0
        if st.hand_n[s] == best_n and hand_value(st, s) == best_v:
            tied += 1
    for s in range(P):
        if st.hand_n[s] == best_n and hand_value(st, s) == best_v:
            flags[s] = FLAG_WON if tied == 1 else FLAG_DREW
    return END_STOCK_WIN if tied == 1 else END_STOCK_DRAW
