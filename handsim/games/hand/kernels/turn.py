"""The turn and the round, with the policies' decision functions passed in (numba; RULES.md
sections 3 and 6).

``play_turn_with(g, seat, first, begin_turn, choose_draw, play)`` plays one turn with the given
decision functions; the engine (:mod:`handsim.games.hand.kernels.engine`) passes its policy dispatch, and a
player that looks ahead may pass a fixed policy's functions to play a copy of the table to the
end (``finish_round_with``).  These functions are inlined (numba ``inline="always"``) into their
caller: a function passed as a value to a compiled, not inlined callee would keep the
dispatcher's address in the machine code, and numba cannot cache code holding addresses.

The engine checks every decision: a draw must be ``DRAW_STOCK`` or ``DRAW_DISCARD`` (the latter
from a non-empty pile), the discard must be legal, a card taken from the pile must be used as
``discard_pickup`` demands, the last card must be a discard under ``go_out_requires_discard``.
For user-written policies (ids from ``FIRST_USER_POLICY``) it also checks after each decision that
no card appeared or vanished (:func:`cards_conserved`).  Any breach stops the round with an error
code and the details in ``g.err``.
"""

import numpy as np
from numba import njit

from handsim.games.hand.kernels.consts import DRAW_DISCARD, DRAW_STOCK, N_TYPES, NO_CARD
from handsim.games.hand.kernels.melds import meld_size
from handsim.games.hand.kernels.params import PICKUP_NEW_MELD_ONLY, P_DISCARD_PICKUP, P_OPEN_NEEDS_PICKUP
from handsim.games.hand.kernels.state import (
    E_BAD_DRAW,
    E_EMPTY_NO_DISCARD,
    E_NEW_MELD_ONLY,
    E_OPENED_WITHOUT_TAKEN,
    E_POLICY_RAISED,
    E_STATE_CHANGED,
    E_TOO_LONG,
    E_TOOK_WITHOUT_OPENING,
    EV_TURN,
    FIRST_USER_POLICY,
    MAX_TURNS,
    Q_LAID_BEFORE,
    Q_OPENED,
    Q_PASSED,
    Q_OWN_TURNS,
    S_N_DECK,
    S_N_MELDS,
    S_PILE_N,
    S_PLAYERS,
    S_STARTER,
    S_STATUS,
    S_T_LAID,
    S_T_MOVES,
    S_T_NEWMELD,
    S_T_OPENED,
    S_T_OTHERS,
    S_T_TAKEN_MELDED,
    S_T_TAKEN_USED,
    S_T_WAIVED,
    S_TAKEN,
    S_TAKEN_C0,
    S_TURN,
    S_TURN_SEAT,
    STATUS_PLAYING,
    WHY_EMPTY_PILE,
    WHY_NOT_A_SOURCE,
    discard,
    draw_stock,
    fail,
    fail_move,
    go_out,
    go_out_requires_discard,
    log,
    pickup_broken,
    stock_left,
    take_discard,
    taken_needs_new_meld,
    top_discard,
    waiver_broken,
)

# the decision a conservation failure followed (ER_A of E_STATE_CHANGED), or that raised (of E_POLICY_RAISED)
AFTER_BEGIN_TURN = 1
AFTER_CHOOSE_DRAW = 2
AFTER_PLAY = 3
AFTER_BEGIN_ROUND = 4
#: The decision functions by name, with the ``AFTER_*`` code of each (a generated dispatch names them).
DECISIONS = {"begin_round": AFTER_BEGIN_ROUND, "begin_turn": AFTER_BEGIN_TURN, "choose_draw": AFTER_CHOOSE_DRAW,
             "play": AFTER_PLAY}


@njit(cache=True)
def cards_conserved(g):
    """Whether every card of the deck is in exactly one place (hands, stock, pile, table) and each
    hand's count matches its cards - what a policy that only uses the API's moves keeps true."""
    total = stock_left(g) + g.sc[S_PILE_N]
    for s in range(g.sc[S_PLAYERS]):
        c = 0
        for t in range(N_TYPES):
            if g.hands[s, t] < 0:
                return False
            c += g.hands[s, t]
        if c != g.hand_n[s]:
            return False
        total += c
    for k in range(g.sc[S_N_MELDS]):
        total += meld_size(g.melds[k])
    return total == g.sc[S_N_DECK]


@njit(cache=True)
def policy_raised(g, after):
    """Stop the round with ``E_POLICY_RAISED``: decision ``after`` (``AFTER_*``) of a user-written
    policy raised an exception (an index out of range - policy files compile with bounds checks -,
    a division by zero, a ``raise``), which the generated dispatch caught.  Returns -1, which the
    turn does not use (the round has stopped)."""
    fail_move(g, E_POLICY_RAISED, after, 0, 0)
    return -1


@njit(cache=True, inline="always")
def _checked(g, seat, after):
    """For a user-written policy: False (and ``E_STATE_CHANGED``) when a decision left the cards
    inconsistent, and False when it stopped the round (an illegal move, an exception it raised)."""
    if g.pol[seat] < FIRST_USER_POLICY:
        return True
    if g.sc[S_STATUS] != STATUS_PLAYING:
        return False
    if cards_conserved(g):
        return True
    fail_move(g, E_STATE_CHANGED, after, 0, 0)
    return False


@njit(inline="always")  # see the module docstring: inlined where the functions are passed in
def begin_round_with(g, begin_round):
    """Call ``begin_round`` for every seat, the starter first (after the deal, before the first turn)."""
    P = g.sc[S_PLAYERS]
    for i in range(P):
        s = (g.sc[S_STARTER] + i) % P
        g.sc[S_TURN_SEAT] = s
        begin_round(g, s)
        if not _checked(g, s, AFTER_BEGIN_ROUND):
            return


@njit(inline="always")  # see the module docstring: inlined where the functions are passed in
def play_turn_with(g, seat, first, begin_turn, choose_draw, play):
    """One turn of ``seat`` (RULES.md section 3): draw (not on the starter's first turn),
    the policy's melds / lay-offs / swaps, the discard; ends the round when the hand empties."""
    g.sc[S_TURN] += 1
    g.seat[seat, Q_OWN_TURNS] += 1
    g.sc[S_TURN_SEAT] = seat
    g.sc[S_TAKEN] = NO_CARD
    g.sc[S_TAKEN_C0] = 0
    g.sc[S_T_NEWMELD] = 0
    g.sc[S_T_OTHERS] = 0
    g.sc[S_T_LAID] = 0
    g.sc[S_T_TAKEN_MELDED] = 0
    g.sc[S_T_TAKEN_USED] = 0
    g.sc[S_T_OPENED] = 0
    g.sc[S_T_WAIVED] = 0
    g.sc[S_T_MOVES] = 0
    log(g, EV_TURN, seat, g.sc[S_TURN], 0, 0, 0, 0, 0, 0)
    begin_turn(g, seat)
    if not _checked(g, seat, AFTER_BEGIN_TURN):
        return
    if not first:
        src = choose_draw(g, seat)
        if not _checked(g, seat, AFTER_CHOOSE_DRAW):
            return
        if not draw_from(g, seat, src):
            return
    d = play(g, seat)
    if g.sc[S_STATUS] != STATUS_PLAYING:
        return
    if not _checked(g, seat, AFTER_PLAY):
        return
    end_turn(g, seat, d)


@njit(cache=True, inline="always")
def draw_from(g, seat, src):
    """The draw of ``seat``'s turn (RULES.md section 3) from ``src`` (``DRAW_STOCK`` or
    ``DRAW_DISCARD``), checked; returns False when the round stopped instead (a source other than
    those, the discard from an empty pile, an empty stock with no reshuffle left: a void round)."""
    if src == DRAW_DISCARD:
        if top_discard(g) == NO_CARD:
            fail_move(g, E_BAD_DRAW, src, WHY_EMPTY_PILE, 0)
            return False
        take_discard(g, seat)
    elif src == DRAW_STOCK:
        top = top_discard(g)
        if top != NO_CARD and g.seat[seat, Q_OPENED] != 0:
            g.seat[seat, Q_PASSED] |= np.int64(1) << top  # passed over (public: api.passed_over)
        if draw_stock(g, seat) == NO_CARD:
            return False
    else:
        fail_move(g, E_BAD_DRAW, src, WHY_NOT_A_SOURCE, 0)
        return False
    return True


@njit(cache=True, inline="always")
def end_turn(g, seat, d):
    """The end of ``seat``'s turn after its moves, with ``d`` the discard its policy chose (RULES.md
    sections 3 and 6): a card taken from the pile must have been used as ``discard_pickup`` (and
    ``opening_requires_discard_pickup``) demands; an empty hand goes out (not under
    ``go_out_requires_discard``); else ``d`` is discarded (checked) and the hand goes out if that
    was its last card.  An opening below the required value (``hand_waives_threshold``), or under
    ``opening_requires_discard_pickup`` one in a turn that took no discard, must have made the turn
    a Hand."""
    taken = g.sc[S_TAKEN]
    if taken != NO_CARD:
        if g.seat[seat, Q_OPENED] == 0:
            fail_move(g, E_TOOK_WITHOUT_OPENING, taken, 0, 0)
            return
        if g.sc[S_T_TAKEN_MELDED] == 0 and taken_needs_new_meld(g, seat):
            if g.rv[P_DISCARD_PICKUP] == PICKUP_NEW_MELD_ONLY:
                fail_move(g, E_NEW_MELD_ONLY, taken, 0, 0)
            else:
                fail_move(g, E_OPENED_WITHOUT_TAKEN, taken, g.rv[P_OPEN_NEEDS_PICKUP], 0)
            return
    if g.hand_n[seat] == 0:
        if go_out_requires_discard(g):
            fail(g, E_EMPTY_NO_DISCARD)
            return
        if waiver_broken(g, seat) or pickup_broken(g, seat):
            return
        go_out(g, seat)
        return
    if not discard(g, seat, d):
        return
    if waiver_broken(g, seat) or pickup_broken(g, seat):
        return
    if g.hand_n[seat] == 0:
        go_out(g, seat)
    if g.sc[S_T_LAID] != 0:
        g.seat[seat, Q_LAID_BEFORE] = 1


@njit(inline="always")  # see the module docstring: inlined where the functions are passed in
def finish_round_with(g, seat, first, begin_turn, choose_draw, play):
    """Play turns from ``seat``'s (``first``: without a draw) until the round ends; returns the
    status.  A round that reaches ``MAX_TURNS`` stops with ``E_TOO_LONG``."""
    P = g.sc[S_PLAYERS]
    while g.sc[S_STATUS] == STATUS_PLAYING:
        if g.sc[S_TURN] >= MAX_TURNS:
            g.sc[S_TURN_SEAT] = seat
            fail_move(g, E_TOO_LONG, g.sc[S_TURN], 0, 0)
            break
        play_turn_with(g, seat, first, begin_turn, choose_draw, play)
        first = False
        seat = (seat + 1) % P
    return g.sc[S_STATUS]


@njit(inline="always")  # see the module docstring: inlined where the functions are passed in
def play_dealt_round_with(g, begin_round, begin_turn, choose_draw, play):
    """Play a dealt round to its end, the starter first; returns the status."""
    begin_round_with(g, begin_round)
    if g.sc[S_STATUS] != STATUS_PLAYING:
        return g.sc[S_STATUS]
    return finish_round_with(g, g.sc[S_STARTER], True, begin_turn, choose_draw, play)
