"""The policy API: what a policy may observe, the questions it may ask, the plans it may have
made for it, and the moves it may make (numba; ``docs/policies.md`` is the guide).

Every function here is ``@njit`` (the one-line observations ``inline="always"``: numba copies
them into the policy's code) and takes the table ``g`` (the round's state, passed to each
decision function) and usually the policy's own ``seat``.  A policy reads the game only through
these functions - never through ``g``'s fields, which may change from one version to the next.
Built-in and user-written policies use the same API.

Observations
    ``players``, ``turn``, ``own_turns``, ``hand`` (own cards, a count vector
    ``int8[N_TYPES]``), ``hand_count`` (any seat), ``has_opened``, ``laid_before``,
    ``partner_of``, ``is_opponent``, ``top_discard``, ``pile_count``,
    ``pile_card``, ``stock_count``, ``table_count``, ``table_meld``,
    ``meld_owner``, ``known_cards``, ``seen_cards``, ``unseen_cards``,
    ``taken_card``, ``discarded_cards`` and ``passed_over`` (bitsets: what each seat was
    seen to discard and to leave on the pile), the rules (``required_opening``, ``card_points``, ``rule``
    with the ``R_*`` indices, ...), the policy's parameters (``param``) and memory
    (``memory``), what the partner publishes (``partner_playing_for_hand``).
Legal queries
    ``may_discard`` (the taken-card rule itself), ``discard_is_legal``,
    ``legal_discard_after``, ``legal_discard_after_card``, ``may_touch_table``,
    ``layoff_target``, ``swap_target``, ``layoff_meld``, ``swap_meld``,
    ``could_meld``.
Planners (results in ``plan``)
    ``arrange`` (best arrangement of any count vector: ``OPEN`` most opening value,
    ``DEADWOOD`` least deadwood, ``COUNT`` most cards), ``plan_melds`` (melds to lay now,
    keeping a legal discard), ``plan_hand`` (a Hand now, RULES.md section 6),
    ``pretend_take`` / ``undo_take`` (what if I took the top discard?).
Moves
    ``lay_melds``, ``lay_off``, ``swap_joker``; the draw and the discard are what
    ``choose_draw`` and ``play`` return.  An illegal move stops the round with an error that
    names the policy, the move and the rule (RULES.md section).
Simulation (for players that look ahead)
    ``new_table``, ``copy_table``, ``deal_unseen`` (or ``deal_plausible``, weighted by what
    the other seats did; ``shuffle_stock``, the true hands: a control), ``rand_below``,
    ``set_param``, then ``finish_round(sim, seat, first, begin_turn, choose_draw, play)``
    plays the copy to the end with a fixed policy's decision functions (``play_turn`` one turn;
    ``draw(sim, seat, source)`` and ``end_turn(sim, seat, discard)`` the draw and the end of a
    turn begun in ``g``, to try a decision on the copy), and ``round_status`` /
    ``round_score`` read the outcome.
"""

import numpy as np
from numba import njit

from handsim.games.hand.kernels import state as _S
from handsim.games.hand.kernels.arrange import COUNT, COUNT_BONUS, DEAD, MAX_MELDS, OPEN
from handsim.games.hand.kernels.bits import popcount  # noqa: F401  (set bits of an int64: for policies' bitsets)
from handsim.games.hand.kernels.consts import (  # noqa: F401  (the API's constants)
    COPIES,
    DRAW_DISCARD,
    DRAW_STOCK,
    JOKER,
    MAX_SEATS,
    N_NATURALS,
    N_RANKS,
    N_SUITS,
    N_TYPES,
    NO_CARD,
    NO_SEAT,
    NO_TARGET,
)
from handsim.games.hand.kernels.melds import (  # noqa: F401  (meld accessors, re-exported)
    ACE_HIGH,
    ACE_LOW,
    KIND_RUN,
    KIND_SET,
    MELD_WIDTH,
    card_of,
    copy_path,
    is_run,
    is_set,
    meld_hi,
    meld_jokers,
    meld_key,
    meld_lo,
    meld_size,
    meld_uses,
    meld_value,
    melded_cards,
    path_counts,
    path_uses,
    rank_hand_value,
    rank_of,
    run_has_joker_at,
    set_has_suit,
    set_jokers,
    suit_of,
    swap_melds,
)
from handsim.games.hand.kernels.params import (  # noqa: F401  (rules vector indices: api.rule(g, api.R_...))
    P_ACE as R_ACE,
    P_ACE_LOW as R_ACE_LOW,
    P_DISCARD_PICKUP as R_DISCARD_PICKUP,
    P_OPEN_NEEDS_PICKUP as R_OPENING_REQUIRES_DISCARD_PICKUP,
    P_GO_OUT_DISCARD as R_GO_OUT_REQUIRES_DISCARD,
    P_HAND_DOUBLES as R_HAND_DOUBLES_OTHERS,
    P_HAND_MIN_CARDS as R_HAND_MIN_NEW_MELD_CARDS,
    P_HAND_WAIVES as R_HAND_WAIVES_THRESHOLD,
    P_HAND_SIZE as R_HAND_SIZE,
    P_JOKER_PENALTY as R_JOKER_PENALTY,
    P_JOKER_SWAP as R_JOKER_SWAP,
    P_JOKERS as R_JOKERS,
    P_LAYOFF_ON_OPENING as R_LAYOFF_ON_OPENING_TURN,
    P_MAX_JOKERS as R_MAX_JOKERS_PER_MELD,
    P_MAX_RESHUFFLES as R_MAX_RESHUFFLES,
    P_MIN_NATURAL as R_MIN_NATURAL_CARDS_PER_MELD,
    P_OPENING_RULE as R_OPENING_RULE,
    P_ASC_INCREMENT as R_ASCENDING_INCREMENT,
    P_OPENING_SCOPE as R_OPENING_SCOPE,
    P_PARTNERSHIP as R_PARTNERSHIP,
    P_STARTER as R_STARTER,
    P_THRESHOLD as R_OPENING_THRESHOLD,
    P_UNOPENED_PENALTY as R_UNOPENED_PENALTY,
    P_UNOPENED_POINTS as R_UNOPENED_POINTS,
    P_OUT_SCORE as R_OUT_SCORE,
    P_HAND_SCORE as R_HAND_SCORE,
    P_MAX_RUN as R_MAX_RUN_LENGTH,
    PICKUP_MUST_OPEN,
    PICKUP_MUST_OPEN_USING,
    PICKUP_NEW_MELD_ONLY,
)
from handsim._kernels.rng import randbelow as _randbelow
from handsim.games.hand.kernels.bits import ctz as _ctz
from handsim.games.hand.kernels.turn import finish_round_with as finish_round  # noqa: F401  (for look-ahead players)
from handsim.games.hand.kernels.turn import play_turn_with as play_turn  # noqa: F401
from handsim.games.hand.kernels.turn import draw_from as draw  # noqa: F401  (on a table copy: a turn's draw)
from handsim.games.hand.kernels.turn import end_turn  # noqa: F401  (on a table copy: the rest of a turn after its moves)
from handsim.games.hand.kernels.state import (  # noqa: F401  (moves and legal queries, re-exported)
    MEMORY_SLOTS,
    STATUS_ERROR,
    STATUS_OUT,
    STATUS_PLAYING,
    STATUS_VOID,
    discard_is_legal,
    lay_melds,
    lay_off,
    legal_discard_after,
    legal_discard_after_card,
    legal_discard_after_path,
    may_discard,
    may_touch_table,
    swap_joker,
)

#: What ``play`` returns when the hand is empty (the round ends without a discard).
NO_DISCARD = NO_CARD
#: Search modes of :func:`arrange` / :func:`plan_melds`.
DEADWOOD = DEAD
#: Cards in one meld at most (a run of 13).
MAX_MELD_CARDS = 13


# ------------------------------------------------------------------------- the round


@njit(cache=True, inline="always")
def players(g):
    """Seats at the table (2..4)."""
    return g.sc[_S.S_PLAYERS]


@njit(cache=True, inline="always")
def turn(g):
    """Turns played in the round so far, this one included (1 in the starter's first turn)."""
    return g.sc[_S.S_TURN]


@njit(cache=True, inline="always")
def own_turns(g, seat):
    """Turns ``seat`` has begun in this round, this one included."""
    return g.seat[seat, _S.Q_OWN_TURNS]


@njit(cache=True, inline="always")
def starter(g):
    """The seat that played first in this round."""
    return g.sc[_S.S_STARTER]


@njit(cache=True, inline="always")
def partner_of(g, seat):
    """The partner of ``seat`` in 2 v 2 play (the seat opposite), or ``NO_SEAT``."""
    return _S.partner_of(g, seat)


@njit(cache=True, inline="always")
def is_opponent(g, seat, other):
    """Whether ``other`` plays against ``seat`` (not itself, not its partner)."""
    return other != seat and other != _S.partner_of(g, seat)


@njit(cache=True, inline="always")
def no_op(g, seat):
    """A decision function that does nothing: the ``begin_round`` / ``begin_turn`` to pass to
    :func:`finish_round` for a policy that has none."""
    return


@njit(cache=True, inline="always")
def round_status(g):
    """``STATUS_PLAYING``, ``STATUS_OUT`` (someone went out), ``STATUS_VOID`` or ``STATUS_ERROR``."""
    return g.sc[_S.S_STATUS]


@njit(cache=True, inline="always")
def round_score(g, seat):
    """``seat``'s points for the finished round (RULES.md section 6; lower is better; 0 while it
    is being played and in a void round)."""
    return g.scores[seat]


@njit(cache=True, inline="always")
def next_seat(g, seat):
    """The seat that plays after ``seat`` (it may take what ``seat`` discards)."""
    return (seat + 1) % g.sc[_S.S_PLAYERS]


# ------------------------------------------------------------------------- hands


@njit(cache=True, inline="always")
def hand(g, seat):
    """``seat``'s own cards as counts by card type (``int8[N_TYPES]``; a view: do not write to it -
    use the moves).  A policy reads its own seat's hand only."""
    return g.hands[seat]


@njit(cache=True, inline="always")
def hand_count(g, seat):
    """Cards in ``seat``'s hand (any seat: the count is public)."""
    return g.hand_n[seat]


@njit(cache=True, inline="always")
def has_opened(g, seat):
    """Whether ``seat`` counts as opened: its own opening, or its partner's under
    ``opening_scope = team`` (RULES.md section 4)."""
    return g.seat[seat, _S.Q_OPENED] != 0


@njit(cache=True, inline="always")
def laid_before(g, seat):
    """Whether ``seat`` laid anything on the table (meld, lay-off, swap) in an earlier turn of this
    round - once it has, it can no longer make a Hand (RULES.md section 6)."""
    return g.seat[seat, _S.Q_LAID_BEFORE] != 0


@njit(cache=True, inline="always")
def opened_this_turn(g):
    """Whether the seat whose turn it is made its opening in this turn."""
    return g.sc[_S.S_T_OPENED] != 0


@njit(cache=True, inline="always")
def laid_this_turn(g):
    """Whether the seat whose turn it is has put anything on the table in this turn."""
    return g.sc[_S.S_T_LAID] != 0


@njit(cache=True, inline="always")
def known_cards(g, seat):
    """The cards ``seat`` is known by everyone to hold: taken from the discard pile (or a joker
    swapped off the table) and not since laid down or discarded (``int8[N_TYPES]`` view)."""
    return g.known[seat]


@njit(cache=True)
def seen_cards(g, seat, out):
    """Every card whose place ``seat`` knows, as counts in ``out int8[N_TYPES]``: its own hand, the
    table melds, the discard pile and the cards others are known to hold (:func:`known_cards`).
    Returns ``out``."""
    path_counts(g.melds, g.sc[_S.S_N_MELDS], out)  # the table's cards (no array to allocate)
    for t in range(N_TYPES):
        out[t] += g.hands[seat, t]
    for i in range(g.sc[_S.S_PILE_N]):
        out[g.pile[i]] += 1
    for s in range(g.sc[_S.S_PLAYERS]):
        if s != seat:
            for t in range(N_TYPES):
                out[t] += g.known[s, t]
    return out


@njit(cache=True)
def deck_counts(g, out):
    """The whole deck as counts in ``out int8[N_TYPES]`` (two of each natural, ``jokers`` jokers)."""
    for t in range(N_NATURALS):
        out[t] = COPIES
    out[JOKER] = g.rv[R_JOKERS]
    return out


@njit(cache=True)
def unseen_cards(g, seat, out):
    """The cards ``seat`` cannot place, as counts in ``out int8[N_TYPES]``: the deck minus
    :func:`seen_cards` - they are in the stock or in other hands, unseen.  Returns ``out``."""
    seen_cards(g, seat, out)
    for t in range(N_TYPES):
        out[t] = (g.rv[R_JOKERS] if t == JOKER else COPIES) - out[t]
    return out


# ------------------------------------------------------------------------- stock, pile, table


@njit(cache=True, inline="always")
def top_discard(g):
    """The top card of the discard pile, or ``NO_CARD``."""
    return _S.top_discard(g)


@njit(cache=True, inline="always")
def pile_count(g):
    """Cards in the discard pile."""
    return g.sc[_S.S_PILE_N]


@njit(cache=True, inline="always")
def pile_card(g, i):
    """Card ``i`` of the discard pile, 0 = the bottom, ``pile_count(g) - 1`` = the top."""
    return g.pile[i]


@njit(cache=True, inline="always")
def stock_count(g):
    """Cards left in the stock."""
    return _S.stock_left(g)


@njit(cache=True, inline="always")
def reshuffles_left(g):
    """How many more times the pile may become the stock before an empty stock voids the round."""
    return g.rv[R_MAX_RESHUFFLES] - g.sc[_S.S_RESHUF]


@njit(cache=True, inline="always")
def table_count(g):
    """Melds on the table (numbered 0.. in the order laid)."""
    return g.sc[_S.S_N_MELDS]


@njit(cache=True, inline="always")
def table_meld(g, k):
    """Table meld ``k`` (``int32[MELD_WIDTH]`` view, read it with the meld accessors)."""
    return g.melds[k]


@njit(cache=True, inline="always")
def meld_owner(g, k):
    """The seat that laid table meld ``k``."""
    return g.owner[k]


@njit(cache=True, inline="always")
def taken_card(g):
    """The card taken from the discard pile in this turn, or ``NO_CARD``."""
    return g.sc[_S.S_TAKEN]


@njit(cache=True, inline="always")
def taken_card_melded(g):
    """Copies of the taken card put into new melds in this turn (``discard_pickup =
    new_meld_only`` needs one before the turn ends)."""
    return g.sc[_S.S_T_TAKEN_MELDED]


# ------------------------------------------------------------------------- rules


@njit(cache=True, inline="always")
def rule(g, index):
    """The value of rule option ``index`` (an ``R_*`` constant; choices as the index of their word
    in ``handsim.games.hand.rules``, booleans as 0/1)."""
    return g.rv[index]


@njit(cache=True, inline="always")
def required_opening(g, seat):
    """Points ``seat``'s next lay-down must reach: 0 once it counts as opened, else the opening
    threshold (under ``opening_rule = ascending``: the best opening so far plus
    ``ascending_increment``, if that is more)."""
    return _S.required_for(g, seat)


@njit(cache=True, inline="always")
def next_opening(g):
    """Points the next opening at the table must reach (RULES.md section 4), whoever makes it."""
    return _S.required_opening(g)


@njit(cache=True, inline="always")
def card_points(g, t):
    """Points card type ``t`` costs when left in hand (RULES.md section 1; a joker
    ``joker_penalty``)."""
    return _S.card_hand_value(t, g.rv)


@njit(cache=True, inline="always")
def go_out_needs_discard(g):
    """Whether the last card must be a discard (``go_out_requires_discard``)."""
    return g.rv[R_GO_OUT_REQUIRES_DISCARD] != 0


@njit(cache=True, inline="always")
def pickup_must_open(g):
    """``discard_pickup = must_open``: an unopened player who takes the top discard must open in
    that turn; otherwise (``new_meld_only``) the taken card must go into a new meld at once."""
    return g.rv[R_DISCARD_PICKUP] == PICKUP_MUST_OPEN


@njit(cache=True, inline="always")
def pickup_needs_new_meld(g, seat):
    """Whether a card ``seat`` takes from the discard pile in its turn (or took, in this turn) must
    go into a new meld laid in that turn (RULES.md sections 3-4): always under ``discard_pickup =
    new_meld_only``; under ``must_open_using`` or ``opening_requires_discard_pickup`` when it had not
    opened at the start of the turn (the card must be in a meld of its opening, not laid off; an
    opened player takes freely); otherwise never (``must_open``: an unopened taker need only open,
    an opened one may lay the card off)."""
    return _S.taken_needs_new_meld(g, seat)


@njit(cache=True, inline="always")
def opening_allowed(g, seat):
    """Whether ``seat`` may open in this turn with melds that are no Hand (RULES.md section 4):
    always, but under ``opening_requires_discard_pickup`` only in a turn in which it took the top
    discard (which must then go into the opening: :func:`pickup_needs_new_meld`).  A Hand
    (:func:`plan_hand`) opens in any turn.  In ``choose_draw`` after :func:`pretend_take` it says
    what taking the card would allow."""
    return g.rv[R_OPENING_REQUIRES_DISCARD_PICKUP] == 0 or g.sc[_S.S_TAKEN] != NO_CARD


@njit(cache=True, inline="always")
def partnership(g):
    """Whether the table plays 2 v 2."""
    return g.rv[R_PARTNERSHIP] != 0


# ------------------------------------------------------------------------- the policy's own


@njit(cache=True, inline="always")
def param(g, seat, slot):
    """The value of the seat's policy parameter ``slot`` (``Policy.slot(name)``), float64."""
    return g.pp[seat, slot]


@njit(cache=True, inline="always")
def memory(g, seat):
    """The seat's policy memory: ``int64[MEMORY_SLOTS]``, zeroed when a round is dealt, kept
    from turn to turn (a view: write to it freely)."""
    return g.mem[seat]


@njit(cache=True, inline="always")
def set_param(sim, seat, slot, value):
    """Set parameter ``slot`` of ``seat`` on a simulated table (a :func:`copy_table`): a look-ahead
    player gives every seat of its copy the parameters of the policy it plays the copy with.
    Never on the table a decision function was called with."""
    sim.pp[seat, slot] = value


@njit(cache=True, inline="always")
def set_playing_for_hand(g, seat, flag):
    """Publish whether ``seat`` still plays for a Hand (its partner may hold back for it)."""
    g.seat[seat, _S.Q_FOR_HAND] = 1 if flag else 0


@njit(cache=True, inline="always")
def playing_for_hand(g, seat):
    """What ``seat`` published with :func:`set_playing_for_hand`, and it has laid nothing yet."""
    return g.seat[seat, _S.Q_FOR_HAND] != 0 and g.seat[seat, _S.Q_LAID_BEFORE] == 0


@njit(cache=True, inline="always")
def partner_playing_for_hand(g, seat):
    """Whether ``seat``'s partner (2 v 2) still plays for a Hand: it says so
    (:func:`set_playing_for_hand`) and has laid nothing in an earlier turn."""
    p = _S.partner_of(g, seat)
    if p == NO_SEAT:
        return False
    return playing_for_hand(g, p)


@njit(cache=True, inline="always")
def scratch(g):
    """A count vector ``int8[N_TYPES]`` the policy may use freely within one decision (no API
    function touches it; its content is not kept)."""
    return g.tmp


@njit(cache=True, inline="always")
def rand_below(g, n):
    """A uniform integer in ``0 .. n-1`` from the deal's policy stream: reproducible, and the same
    for any ``--jobs``.  Never use another source of randomness in a policy."""
    return _randbelow(g.prng, n)


# ------------------------------------------------------------------------- table targets


@njit(cache=True, inline="always")
def layoff_target(g, k, t):
    """Where card ``t`` could be laid off on table meld ``k`` (a run position or a set's suit;
    -1 for a joker on a set), or ``NO_TARGET`` (RULES.md section 2)."""
    if k < 0 or k >= g.sc[_S.S_N_MELDS]:
        return NO_TARGET
    return _S.layoff_position(g, k, t)


@njit(cache=True, inline="always")
def could_meld(g, cards, t):
    """False when no meld made of the count vector ``cards`` can contain card ``t`` (one of
    ``cards``), so that no arrangement of ``cards`` - no plan - uses it; True promises nothing.
    A few bit operations: ask it before a search whose plan is only wanted if it uses ``t``."""
    return _S.could_meld(g, cards, t)


@njit(cache=True, inline="always")
def layoff_meld(g, t):
    """The lowest-numbered table meld card ``t`` could be laid off on, or -1: the first ``k`` with
    a :func:`layoff_target`, found without asking every meld."""
    return _S.first_layoff_meld(g, t)


@njit(cache=True, inline="always")
def swap_meld(g, t):
    """The lowest-numbered table meld whose joker natural ``t`` could replace, or -1: the first
    ``k`` with a :func:`swap_target`, found without asking every meld."""
    return _S.first_swap_meld(g, t)


@njit(cache=True, inline="always")
def swap_target(g, k, t):
    """Where natural ``t`` could replace a joker of table meld ``k``, or ``NO_TARGET`` (RULES.md
    section 5; also ``NO_TARGET`` with ``joker_swap = false``)."""
    if k < 0 or k >= g.sc[_S.S_N_MELDS]:
        return NO_TARGET
    return _S.swap_position(g, k, t)


# ------------------------------------------------------------------------- planners


@njit(cache=True, inline="always")
def plan(g):
    """The melds the last planner call found (``int32[MAX_MELDS, MELD_WIDTH]`` view; the first ``n``
    rows, ``n`` as returned)."""
    return g.bestpath


@njit(cache=True, inline="always")
def arrange(g, cards, mode):
    """Best arrangement of the count vector ``cards`` (``int8[N_TYPES]``, any cards the deck
    holds: 0..2 copies of each natural - a count above 2 counts as 2 - and any number of jokers)
    into melds: ``OPEN`` most opening value, ``DEADWOOD`` most hand value melded (least
    deadwood), ``COUNT`` most cards melded then most opening value (weight ``COUNT_BONUS`` per
    card + value).

    Returns ``(melded_weight, n_melds)``; the melds are in :func:`plan`.  The table remembers its
    last few searches: asking again for the same cards and mode costs nothing.
    """
    return _S.hand_search(g, cards, mode)


@njit(cache=True)
def _leftover_ok(g, seat, path, n, keep, layoff_taken):
    """Whether laying the first ``n`` melds of ``path`` leaves ``seat`` at least ``keep`` cards
    and, unless it leaves none, a card it may legally discard (not the card just taken) - or,
    with ``keep = 0`` and ``layoff_taken``, only the taken card with a table meld to lay it off
    on (the caller's lay-offs that follow put it there first, and the player goes out)."""
    left = g.hand_n[seat] - melded_cards(path, n)
    if left < keep:
        return False
    if left == 0:
        return True
    if legal_discard_after_path(g, seat, path, n):
        return True
    taken = g.sc[_S.S_TAKEN]
    if keep == 0 and left == 1 and taken != NO_CARD and layoff_taken and may_touch_table(g, seat):
        for k in range(g.sc[_S.S_N_MELDS]):
            if _S.layoff_position(g, k, taken) != NO_TARGET:
                return True
    return False


@njit(cache=True, inline="always")
def plan_melds(g, seat, mode, req, keep, layoff_taken):
    """Melds for ``seat`` to lay now: the best arrangement of its hand under ``mode`` reaching
    ``req`` points that leaves at least ``keep`` cards (0, 1 or 2) and a legal discard among them
    (unless it empties the hand with ``keep = 0``; with ``layoff_taken``, a plan that leaves only
    the card taken from the pile counts when that card can be laid off next).

    When the best arrangement breaks that, the best one with one card kept back (a legal
    discard) is taken, and with ``keep = 2`` if need be two cards.  Returns the number of melds
    (in :func:`plan`), or -1 when no such arrangement reaches ``req``.
    """
    # numba compiles a copy of a function for every combination of constant arguments it is
    # called with (OPEN / DEADWOOD, True / False): one copy is enough
    return _plan_melds(g, seat, np.int64(mode), np.int64(req), np.int64(keep), np.bool_(layoff_taken))


@njit(cache=True)
def _plan_melds(g, seat, mode, req, keep, layoff_taken):
    """The body of :func:`plan_melds`."""
    hand = g.hands[seat]
    floor = req - 1  # only arrangements reaching req matter: the search cuts everything below
    val, n = _S.hand_search_above(g, hand, mode, floor)
    if n == 0 or val < req:
        return -1
    if _leftover_ok(g, seat, g.bestpath, n, keep, layoff_taken):
        return n
    bestv = -1
    bestn = 0
    other = -1
    otherv = -1
    N = g.hand_n[seat]
    for t in range(N_TYPES):
        if hand[t] > 0 and discard_is_legal(g, seat, t):
            hand[t] -= 1
            v, k = _S.hand_search_above(g, hand, mode, floor)
            hand[t] += 1
            if k == 0 or v < req:
                continue
            if N - melded_cards(g.bestpath, k) >= keep:
                if v > bestv:
                    bestv = v
                    bestn = k
                    copy_path(g.bestpath, g.bp2, k)
            elif v > otherv:
                otherv = v
                other = t
    if bestv < 0 and other >= 0 and keep >= 2:
        # keep back a second card as well
        hand[other] -= 1
        for t in range(N_TYPES):
            if hand[t] > 0:
                hand[t] -= 1
                v, k = _S.hand_search_above(g, hand, mode, max(floor, bestv))
                hand[t] += 1
                if k > 0 and v >= req and v > bestv:
                    bestv = v
                    bestn = k
                    copy_path(g.bestpath, g.bp2, k)
        hand[other] += 1
    if bestv < 0:
        return -1
    copy_path(g.bp2, g.bestpath, bestn)
    return bestn


@njit(cache=True)
def plan_hand(g, seat):
    """Can ``seat`` go out in this turn as a Hand (RULES.md section 6)?  Its melds must reach
    :func:`required_opening`, unless ``hand_waives_threshold``; they must hold at least
    ``hand_min_new_meld_cards`` cards; the discard that ends it (``go_out_requires_discard``, or
    the one card the melds leave) must be legal; and a card taken from the pile in this turn must
    go into one of them when :func:`pickup_needs_new_meld` (RULES.md section 3).

    Returns ``(n_melds, discard)``: ``n_melds >= 0`` with the melds in :func:`plan` and the
    discard card (``NO_DISCARD``: none needed), or ``(-1, NO_DISCARD)`` when no Hand is possible now.
    """
    hand = g.hands[seat]
    N = g.hand_n[seat]
    req = 0 if g.rv[R_HAND_WAIVES_THRESHOLD] != 0 else _S.required_for(g, seat)
    hmin = _S.hand_min_cards(g)
    taken = g.sc[_S.S_TAKEN]
    # the taken card must still go into a new meld (new_meld_only; must_open_using and
    # opening_requires_discard_pickup while unopened)
    need = taken != NO_CARD and g.sc[_S.S_T_TAKEN_MELDED] == 0 and pickup_needs_new_meld(g, seat)
    # a Hand melds all N cards, or N - 1 worth req: the search cuts everything below that
    floor = (N - 1) * COUNT_BONUS + max(req - 1, -1)
    w, n = _S.hand_search_above(g, hand, COUNT, floor)
    if w <= floor:
        return -1, NO_DISCARD
    c = w // COUNT_BONUS
    v = w - c * COUNT_BONUS
    if c == N and not _S.go_out_requires_discard(g):
        if v >= req and c >= hmin:
            return n, NO_DISCARD  # every card melded, the taken one too
        return -1, NO_DISCARD
    if c == N - 1:
        if v < req or c < hmin:
            return -1, NO_DISCARD  # no arrangement of N - 1 cards is worth more
        for t in range(N_TYPES):
            if hand[t] > path_uses(g.bestpath, n, t):
                if discard_is_legal(g, seat, t) and (not need or path_uses(g.bestpath, n, taken) >= 1):
                    return n, t
                break
    # all N cards meld but the Hand must end with a discard, or the card the best arrangement
    # leaves may not be discarded (the card just taken) or leaves out the taken card: try each
    # legal discard and meld the other N - 1 cards
    bestv = -1
    bestn = 0
    bestt = -1
    for t in range(N_TYPES):
        if hand[t] > 0 and discard_is_legal(g, seat, t):
            hand[t] -= 1
            # only N - 1 cards melded, worth req and more than bestv, count
            w2, k = _S.hand_search_above(g, hand, COUNT, (N - 1) * COUNT_BONUS + max(req - 1, bestv))
            hand[t] += 1
            c2 = w2 // COUNT_BONUS
            v2 = w2 - c2 * COUNT_BONUS
            if c2 == N - 1 and v2 >= req and c2 >= hmin and v2 > bestv:
                if not need or path_uses(g.bestpath, k, taken) >= 1:
                    bestv = v2
                    bestn = k
                    bestt = t
                    copy_path(g.bestpath, g.bp2, k)
    if bestt < 0:
        return -1, NO_DISCARD
    copy_path(g.bp2, g.bestpath, bestn)
    return bestn, bestt


@njit(cache=True)
def pretend_take(g, seat):
    """Pretend ``seat`` took the top discard (for planning in ``choose_draw``): the card joins the
    hand and counts as the taken card.  Must be undone with :func:`undo_take` before
    ``choose_draw`` returns.  Returns the card (``NO_CARD`` with an empty pile: nothing done)."""
    top = _S.top_discard(g)
    if top == NO_CARD:
        return NO_CARD
    g.sc[_S.S_TAKEN_C0] = g.hands[seat, top]
    g.hands[seat, top] += 1
    g.hand_n[seat] += 1
    g.sc[_S.S_TAKEN] = top
    return top


@njit(cache=True)
def undo_take(g, seat):
    """Undo :func:`pretend_take`."""
    top = g.sc[_S.S_TAKEN]
    if top == NO_CARD:
        return
    g.hands[seat, top] -= 1
    g.hand_n[seat] -= 1
    g.sc[_S.S_TAKEN] = NO_CARD
    g.sc[_S.S_TAKEN_C0] = 0


# ------------------------------------------------------------------------- simulation


@njit(cache=True)
def new_table(g):
    """A new table like ``g`` for simulations: ``GAME_DTYPE[1]`` (use ``arr[0]``; keep ``arr``
    alive while you use the record), with the same rules and seats and the move log off.
    Allocate it once per decision at most, not per move."""
    arr = np.empty(1, dtype=_S.GAME_DTYPE)  # not zeroed: the move log alone is 1.9 MB
    t = arr[0]
    t.path[:, :] = 0
    t.bestpath[:, :] = 0
    t.bp2[:, :] = 0
    t.best[:] = 0
    t.memo_key[:, :] = 0
    t.memo_res[:, :] = 0
    t.memo_path[:, :, :] = 0
    t.memo_next[:] = 0
    t.tmp[:] = 0
    t.rem[:] = 0
    copy_table(g, t)  # every other field but the move log (off)
    return arr


@njit(cache=True)
def copy_table(g, dst):
    """Copy the whole round's state of ``g`` into ``dst`` (another table record), except the move
    log (``dst`` logs nothing).  Then the moves and decision functions may be played on ``dst``
    without touching ``g``."""
    dst.hands[:, :] = g.hands
    dst.hand_n[:] = g.hand_n
    dst.melds[:, :] = g.melds
    dst.owner[:] = g.owner
    dst.run_melds[:] = g.run_melds
    dst.set_melds[:] = g.set_melds
    dst.stock[:] = g.stock
    dst.pile[:] = g.pile
    dst.deck[:] = g.deck
    dst.sc[:] = g.sc
    dst.seat[:, :] = g.seat
    dst.rv[:] = g.rv
    dst.pol[:] = g.pol
    dst.pp[:, :] = g.pp
    dst.mem[:, :] = g.mem
    dst.known[:, :] = g.known
    dst.err[:] = g.err
    dst.W[:, :, :] = g.W
    _S.forget_searches(dst)
    dst.rng[:] = g.rng
    dst.prng[:] = g.prng
    dst.scores[:] = g.scores
    dst.sc[_S.S_TRACE] = 0
    dst.sc[_S.S_TR_N] = 0


@njit(cache=True)
def deal_unseen(g, seat, dst):
    """A determinization: ``dst`` (a :func:`copy_table` of ``g``) with the cards ``seat`` cannot
    place dealt again at random - each other hand keeps its size and its known cards
    (:func:`known_cards`), the stock keeps its size, and the rest of those cards are shuffled
    among them.  Draws from the deal's policy stream of ``g`` (reproducible).  ``seat``'s own
    hand, the table and the discard pile are unchanged."""
    P = g.sc[_S.S_PLAYERS]
    pool = np.empty(128, dtype=np.int8)
    n = 0
    # the stock's cards and every other hand's unknown cards go into the pool
    sp = g.sc[_S.S_SP]
    for i in range(sp, g.sc[_S.S_SEND]):
        pool[n] = g.stock[i]
        n += 1
    for s in range(P):
        if s == seat:
            continue
        for t in range(N_TYPES):
            for _ in range(g.hands[s, t] - g.known[s, t]):
                pool[n] = t
                n += 1
    # Fisher-Yates from the policy stream
    for i in range(n - 1, 0, -1):
        j = _randbelow(g.prng, i + 1)
        x = pool[i]
        pool[i] = pool[j]
        pool[j] = x
    k = 0
    for s in range(P):
        if s == seat:
            continue
        for t in range(N_TYPES):
            dst.hands[s, t] = g.known[s, t]
        for _ in range(g.hand_n[s] - _known_total(g, s)):
            dst.hands[s, pool[k]] += 1
            k += 1
    for i in range(sp, g.sc[_S.S_SEND]):
        dst.stock[i] = pool[k]
        k += 1


@njit(cache=True)
def _known_total(g, s):
    c = 0
    for t in range(N_TYPES):
        c += g.known[s, t]
    return c


# ------------------------------------------------------------------------- plausible worlds


@njit(cache=True, inline="always")
def discarded_cards(g, seat):
    """The card types ``seat`` discarded in this round, as a bitset (``int64``, bit ``t`` = card
    type ``t``): public, everyone saw each discard (RULES.md section 3)."""
    return g.seat[seat, _S.Q_DISCARDED]


@njit(cache=True, inline="always")
def passed_over(g, seat):
    """The card types ``seat`` left on top of the discard pile and drew from the stock over, in
    turns it began as opened (it could have taken them, RULES.md section 3), as a bitset
    (``int64``, bit ``t`` = card type ``t``): public."""
    return g.seat[seat, _S.Q_PASSED]


def _completion_table() -> np.ndarray:
    """``int64[N_NATURALS, N_NATURALS]``: bit ``c`` of ``[a, x]`` says naturals ``a``, ``x`` and ``c``
    make a 3-card meld (a set of three suits, or a run of three positions in a row)."""
    out = np.zeros((N_NATURALS, N_NATURALS), dtype=np.int64)
    for a in range(N_NATURALS):
        sa, ra = divmod(a, N_RANKS)
        for x in range(N_NATURALS):
            sx, rx = divmod(x, N_RANKS)
            if x == a:
                continue
            for c in range(N_NATURALS):
                sc_, rc = divmod(c, N_RANKS)
                if c == a or c == x:
                    continue
                if ra == rx == rc and len({sa, sx, sc_}) == 3:
                    out[a, x] |= np.int64(1) << c
                elif sa == sx == sc_ and len({ra, rx, rc}) == 3:
                    for ps in _positions(ra + 1, rx + 1, rc + 1):
                        if max(ps) - min(ps) == 2:
                            out[a, x] |= np.int64(1) << c
                            break
    return out


def _positions(*ranks):
    """Every choice of run positions for ``ranks`` (1 = Ace .. 13 = King; an Ace is 1 or 14)."""
    res = [()]
    for r in ranks:
        res = [p + (q,) for p in res for q in ((1, 14) if r == 1 else (r,))]
    return res


def _partner_table(completes: np.ndarray) -> np.ndarray:
    """``int64[N_TYPES]``: bit ``x`` of row ``t`` says naturals ``x`` and ``t`` are in some 3-card
    meld together (the same rank and another suit, or the same suit and run positions at most 2
    apart, the Ace low and high: ``completes[t, x]`` is not empty); the joker is every natural's
    partner."""
    out = np.zeros(N_TYPES, dtype=np.int64)
    for t in range(N_NATURALS):
        for x in np.nonzero(completes[t])[0]:
            out[t] |= np.int64(1) << int(x)
        out[t] |= np.int64(1) << JOKER
    return out


_COMPLETES = _completion_table()
_PARTNERS = _partner_table(_COMPLETES)


@njit(cache=True)
def _completions(avoid, x):
    """The naturals that would make, with natural ``x`` and one of the cards of the bitset
    ``avoid``, a 3-card meld (bitset)."""
    out = np.int64(0)
    b = avoid & _PARTNERS[x] & ~(np.int64(1) << JOKER)
    while b != 0:
        a = _ctz(b)
        b &= b - 1
        out |= _COMPLETES[a, x]
    return out


@njit(cache=True)
def _pick(cnt, forbid, want, prng):
    """A card type drawn from the counts ``cnt`` (weighted by count), among those in ``want`` and not
    in ``forbid`` if there are any, else among those not in ``forbid``, else among all."""
    for stage in range(3):
        total = 0
        for t in range(N_TYPES):
            if cnt[t] > 0 and _pick_ok(t, forbid, want, stage):
                total += cnt[t]
        if total == 0:
            continue
        r = _randbelow(prng, total)
        for t in range(N_TYPES):
            if cnt[t] > 0 and _pick_ok(t, forbid, want, stage):
                r -= cnt[t]
                if r < 0:
                    return t
    return NO_CARD


@njit(cache=True, inline="always")
def _pick_ok(t, forbid, want, stage):
    bit = np.int64(1) << t
    if stage == 0:
        return (want & bit) != 0 and (forbid & bit) == 0
    if stage == 1:
        return (forbid & bit) == 0
    return True


#: Deals of an unopened seat's hand :func:`deal_plausible` tries before it keeps one that could open.
PLAUSIBLE_TRIES = 8


@njit(cache=True)
def deal_plausible(g, seat, dst):
    """A determinization weighted by what the other seats did: ``dst`` (a :func:`copy_table` of
    ``g``) with the cards ``seat`` cannot place dealt again as :func:`deal_unseen` deals them (each
    other hand keeps its size and its :func:`known_cards`, the stock its size), but each other
    seat's unknown cards drawn one by one so that

    * it never holds two cards that make a 3-card meld with a card it discarded
      (:func:`discarded_cards`) or passed over while opened (:func:`passed_over`): it would have
      kept, or taken, that card;
    * a card it took from the pile and still holds (:func:`known_cards`) has a partner in its
      hand (a joker, a card of the same rank, or of the same suit at most two run positions away):
      its first unknown cards are drawn among those partners while one lacks any;
    * a seat that has not opened though it had a turn (and may open without the discard) holds
      no hand that reaches :func:`required_opening`: it would have opened (its hand is dealt
      again, at most :data:`PLAUSIBLE_TRIES` times).

    Each draw is weighted by the copies left; when no card meets a condition it is dropped for
    that draw (the draw then meets what it can).  The other seats are dealt in playing order
    from the one after ``seat``; the cards left make the stock, shuffled.  Draws from the deal's
    policy stream of ``g`` (reproducible, the same for any ``--jobs``).  ``seat``'s own hand, the
    table and the discard pile are unchanged (RULES.md section 3).

    Parameters
    ----------
    g : GAME_DTYPE record
        The table of the decision (read only, but its policy stream advances).
    seat : int
        The deciding seat.
    dst : GAME_DTYPE record
        A :func:`copy_table` of ``g``; its other hands and its stock are dealt again.
    """
    P = g.sc[_S.S_PLAYERS]
    cnt = np.zeros(N_TYPES, dtype=np.int64)
    sp = g.sc[_S.S_SP]
    send = g.sc[_S.S_SEND]
    for i in range(sp, send):
        cnt[g.stock[i]] += 1
    for s in range(P):
        if s != seat:
            for t in range(N_TYPES):
                cnt[t] += g.hands[s, t] - g.known[s, t]
    for i in range(1, P):
        s = (seat + i) % P
        # unopened after a turn in which it could have opened: its hand cannot open now
        closed = (g.seat[s, _S.Q_OPENED] == 0 and g.seat[s, _S.Q_OWN_TURNS] > 0
                  and g.rv[R_OPENING_REQUIRES_DISCARD_PICKUP] == 0)
        req = _S.required_for(g, s)
        for attempt in range(PLAUSIBLE_TRIES):
            _deal_plausible_hand(g, s, dst, cnt)
            if not closed or attempt == PLAUSIBLE_TRIES - 1:
                break
            val, n = _S.hand_search(dst, dst.hands[s], OPEN)
            if n == 0 or val < req:
                break
            for t in range(N_TYPES):  # it could open: its unknown cards go back, and again
                cnt[t] += dst.hands[s, t] - g.known[s, t]
    _deal_stock(g, dst, cnt)



@njit(cache=True)
def _deal_plausible_hand(g, s, dst, cnt):
    """Seat ``s``'s hand in ``dst``: its known cards, then its unknown cards drawn from the counts
    ``cnt`` (taken out of them) as :func:`deal_plausible` says."""
    avoid = g.seat[s, _S.Q_DISCARDED] | g.seat[s, _S.Q_PASSED]
    forbid = np.int64(0)
    held = np.int64(0)
    took = np.int64(0)
    for t in range(N_TYPES):
        dst.hands[s, t] = g.known[s, t]
        if g.known[s, t] > 0:
            held |= np.int64(1) << t
            if t < N_NATURALS:
                took |= np.int64(1) << t
                forbid |= _completions(avoid, t)
    for _ in range(g.hand_n[s] - _known_total(g, s)):
        want = np.int64(0)
        b = took
        while b != 0:
            t = _ctz(b)
            b &= b - 1
            if (_PARTNERS[t] & held) == 0:
                want |= _PARTNERS[t]
        c = _pick(cnt, forbid, want, g.prng)
        cnt[c] -= 1
        dst.hands[s, c] += 1
        held |= np.int64(1) << c
        if c < N_NATURALS:
            forbid |= _completions(avoid, c)


@njit(cache=True)
def _deal_stock(g, dst, cnt):
    """The stock of ``dst`` made of the counts ``cnt`` (as many cards as ``g``'s stock holds),
    shuffled from the policy stream of ``g``."""
    sp = g.sc[_S.S_SP]
    k = sp
    for t in range(N_TYPES):
        for _ in range(cnt[t]):
            dst.stock[k] = t
            k += 1
    for i in range(k - 1, sp, -1):
        j = sp + _randbelow(g.prng, i - sp + 1)
        x = dst.stock[i]
        dst.stock[i] = dst.stock[j]
        dst.stock[j] = x


@njit(cache=True)
def shuffle_stock(g, dst):
    """The all-seeing control's world: ``dst`` (a :func:`copy_table` of ``g``) keeps every hand as it
    truly is, and only the stock's order is shuffled (from the deal's policy stream of ``g``): a
    player that knows every hidden card but not the order of the draws to come (RULES.md
    section 3).  Not for a fair player: it reads the other hands."""
    cnt = np.zeros(N_TYPES, dtype=np.int64)
    for i in range(g.sc[_S.S_SP], g.sc[_S.S_SEND]):
        cnt[g.stock[i]] += 1
    _deal_stock(g, dst, cnt)
