"""``sampler``: flat Monte Carlo over determinizations.

At each draw decision (stock or the top discard) and each discard decision it deals the cards it
cannot place again at random, consistently with what it has seen (:func:`api.deal_unseen`: the
other hands keep their sizes and the cards they were seen to take, the stock its size), plays each
candidate decision on a copy of the table followed by a fixed *rollout* policy (``greedy`` or
``card-reader``, every seat) to the end of the round, and picks the candidate with the best mean
score over ``samples`` such deals (its own score; in 2 v 2 its team's) - but it leaves
``card-reader``'s own choice only when another candidate scores less by more than
:data:`SWITCH_Z` standard errors.  Every candidate is played on the same deals (common random
numbers), so the comparison is paired.

* Draw: the candidates are the stock and - when it may take it (:func:`card_reader.may_take`) -
  the top discard.
* Discard: it first makes the turn's moves as ``card-reader`` makes them (a Hand, the opening,
  melds and lay-offs: :func:`card_reader.table_moves`), then samples the ``candidates`` discards
  that ``card-reader`` values most (:func:`card_reader.discard_values`).

Randomness: only the deal's policy stream (``api.rand_below`` through ``api.deal_unseen``), so a
study is reproducible and independent of ``--jobs``.  Cost: ``samples`` x candidates rollouts of
the rest of the round per decision.
"""

import numpy as np
from numba import njit

from handsim.games.hand.policies import api, card_reader, greedy
from handsim.policies.declare import MAX_PARAMS, Param, Policy

ROLLOUT_GREEDY = 0
ROLLOUT_CARD_READER = 1


def _defaults(policy) -> np.ndarray:
    v = np.zeros(MAX_PARAMS, dtype=np.float64)
    for i, p in enumerate(policy.params):
        v[i] = p.default
    return v


#: The rollout policies' parameters (their defaults), given to every seat of a simulated table.
_GREEDY_PARAMS = _defaults(greedy.POLICY)
_CARD_READER_PARAMS = card_reader.DEFAULT_PARAMS

#: At most this many discards are compared (the ``candidates`` parameter's top).
MAX_CANDIDATES = 16
#: It plays another candidate than card-reader's own choice only when the sampled rounds say that
#: candidate scores less by more than this many standard errors of the paired mean difference:
#: with a few dozen noisy rollouts per decision, picking the best mean alone mostly follows the
#: noise (measured: no better than card-reader).
SWITCH_Z = 2.0


@njit(cache=True)
def _seat_rollout(sim, rollout):
    """Give every seat of the simulated table the rollout policy's parameters and an empty memory."""
    for s in range(api.players(sim)):
        mem = api.memory(sim, s)
        mem[:] = 0
        for k in range(MAX_PARAMS):
            api.set_param(sim, s, k, _CARD_READER_PARAMS[k] if rollout == ROLLOUT_CARD_READER else _GREEDY_PARAMS[k])


@njit(cache=True)
def _score(sim, seat):
    """``seat``'s points for the simulated round (with its partner's in 2 v 2); a round the engine
    stopped with an error counts as a very bad one."""
    if api.round_status(sim) == api.STATUS_ERROR:
        return 1000.0
    sc = api.round_score(sim, seat)
    p = api.partner_of(sim, seat)
    if p != api.NO_SEAT:
        sc += api.round_score(sim, p)
    return float(sc)


@njit(cache=True)
def _finish(sim, seat, rollout):
    """Play the simulated round to its end from the seat after ``seat`` with the rollout policy."""
    if api.round_status(sim) != api.STATUS_PLAYING:
        return
    nxt = api.next_seat(sim, seat)
    if rollout == ROLLOUT_CARD_READER:
        api.finish_round(sim, nxt, False, card_reader.begin_turn, card_reader.choose_draw, card_reader.play)
    else:
        api.finish_round(sim, nxt, False, api.no_op, greedy.choose_draw, greedy.play)


@njit(cache=True)
def _rest_of_turn(sim, seat, rollout):
    """After the draw on the simulated table: the rollout policy's moves and discard."""
    if rollout == ROLLOUT_CARD_READER:
        card_reader.begin_turn(sim, seat)
        d = card_reader.play(sim, seat)
    else:
        d = greedy.play(sim, seat)
    if api.round_status(sim) == api.STATUS_PLAYING:
        api.end_turn(sim, seat, d)


#: What the hidden cards of a world are (``searcher``'s ``worlds_model``): dealt at random
#: (:func:`api.deal_unseen`), dealt as plausible given what each other seat did
#: (:func:`api.deal_plausible`), or the true ones with only the stock shuffled
#: (:func:`api.shuffle_stock`: the all-seeing control).
WORLDS_UNIFORM = 0
WORLDS_PLAUSIBLE = 1
WORLDS_ALL_SEEING = 2


@njit(cache=True)
def deal_world(g, seat, dst, model):
    """Deal the hidden cards of the world ``dst`` (a :func:`api.copy_table` of ``g``) for ``seat``
    under the worlds model ``model`` (:data:`WORLDS_UNIFORM` ..)."""
    if model == WORLDS_PLAUSIBLE:
        api.deal_plausible(g, seat, dst)
    elif model == WORLDS_ALL_SEEING:
        api.shuffle_stock(g, dst)
    else:
        api.deal_unseen(g, seat, dst)


@njit(cache=True)
def draw_decision(g, seat):
    """Sample the stock against the top discard (when it may take it): card-reader's own choice
    unless the other source is clearly better (:func:`_clearly_better`)."""
    return draw_decision_in(g, seat, WORLDS_UNIFORM)


@njit(cache=True)
def draw_decision_in(g, seat, model):
    """:func:`draw_decision` on worlds dealt by the worlds model ``model`` (:func:`deal_world`)."""
    ok, opens = card_reader.may_take(g, seat)
    if not ok:
        return api.DRAW_STOCK
    n = int(api.param(g, seat, SAMPLES))
    rollout = int(api.param(g, seat, ROLLOUT))
    base_arr = api.new_table(g)
    sim_arr = api.new_table(g)
    base = base_arr[0]
    sim = sim_arr[0]
    # candidate 0: card-reader's own choice; 1: the other source
    own = card_reader.draw_decision(g, seat, card_reader.default_params())
    src = np.empty(2, dtype=np.int64)
    src[0] = own
    src[1] = api.DRAW_STOCK if own == api.DRAW_DISCARD else api.DRAW_DISCARD
    sc = np.empty(2, dtype=np.float64)
    diff = np.zeros(MAX_CANDIDATES, dtype=np.float64)
    diff2 = np.zeros(MAX_CANDIDATES, dtype=np.float64)
    for _ in range(n):
        api.copy_table(g, base)
        deal_world(g, seat, base, model)
        _seat_rollout(base, rollout)
        for c in range(2):
            api.copy_table(base, sim)
            if api.draw(sim, seat, src[c]):
                _rest_of_turn(sim, seat, rollout)
                _finish(sim, seat, rollout)
            sc[c] = _score(sim, seat)
        d = sc[1] - sc[0]
        diff[1] += d
        diff2[1] += d * d
    keep = base_arr.shape[0] + sim_arr.shape[0]  # the tables live until here
    return src[_clearly_better(diff, diff2, 2, n)] if keep > 0 else own


@njit(cache=True)
def _clearly_better(diff, diff2, m, n):
    """Which of ``m`` candidates to play, given for each ``j`` the sums over ``n`` samples of its
    score difference from candidate 0 (``diff[j]``) and of its square (``diff2[j]``): the one with
    the lowest mean difference among those whose mean is below 0 by more than :data:`SWITCH_Z`
    standard errors (paired: every candidate is played on the same deals); else 0 (card-reader's
    choice)."""
    return better_by(diff, diff2, m, n, SWITCH_Z)


@njit(cache=True)
def better_by(diff, diff2, m, n, z):
    """:func:`_clearly_better` with the gate ``z`` (standard errors) given: 0 always plays the
    lowest mean difference below 0."""
    best = 0
    bestm = 0.0
    if n < 2:
        return 0
    for j in range(1, m):
        mean = diff[j] / n
        var = (diff2[j] - n * mean * mean) / (n - 1)
        se = np.sqrt(max(var, 0.0) / n)
        if mean < bestm and mean + z * se < 0.0:
            best = j
            bestm = mean
    return best


@njit(cache=True)
def play_turn(g, seat):
    """``card-reader``'s moves, then the sampled discard among the ``candidates`` it values most."""
    prm = card_reader.default_params()
    d, keep_jk = card_reader.table_moves(g, seat, prm)
    if d != card_reader.UNDECIDED:
        card_reader.remember_discard(g, seat, d)
        return d
    vals = np.empty(api.N_TYPES, dtype=np.float64)
    card_reader.discard_values(g, seat, keep_jk, prm, vals)
    k = min(int(api.param(g, seat, CANDIDATES)), MAX_CANDIDATES)
    cand = np.empty(MAX_CANDIDATES, dtype=np.int64)
    m = 0
    # the k best by card-reader's values, best first (ties: the lower card type)
    while m < k:
        best = -1
        bestv = card_reader.NOT_A_CANDIDATE
        for t in range(api.N_TYPES):
            if vals[t] > bestv:
                bestv = vals[t]
                best = t
        if best < 0:
            break
        cand[m] = best
        vals[best] = card_reader.NOT_A_CANDIDATE
        m += 1
    if m == 0:
        card_reader.remember_discard(g, seat, api.NO_DISCARD)
        return api.NO_DISCARD
    d = cand[0]
    if m > 1:
        n = int(api.param(g, seat, SAMPLES))
        rollout = int(api.param(g, seat, ROLLOUT))
        base_arr = api.new_table(g)
        sim_arr = api.new_table(g)
        base = base_arr[0]
        sim = sim_arr[0]
        sc = np.empty(MAX_CANDIDATES, dtype=np.float64)
        diff = np.zeros(MAX_CANDIDATES, dtype=np.float64)
        diff2 = np.zeros(MAX_CANDIDATES, dtype=np.float64)
        for _ in range(n):
            api.copy_table(g, base)
            api.deal_unseen(g, seat, base)
            _seat_rollout(base, rollout)
            for j in range(m):
                api.copy_table(base, sim)
                api.end_turn(sim, seat, cand[j])
                _finish(sim, seat, rollout)
                sc[j] = _score(sim, seat)
            for j in range(1, m):
                x = sc[j] - sc[0]
                diff[j] += x
                diff2[j] += x * x
        d = cand[_clearly_better(diff, diff2, m, n)] if base_arr.shape[0] + sim_arr.shape[0] > 0 else d
    card_reader.remember_discard(g, seat, d)
    return d


@njit(cache=True)
def begin_turn(g, seat):
    card_reader.begin_turn(g, seat)


@njit(cache=True)
def choose_draw(g, seat):
    return draw_decision(g, seat)


@njit(cache=True)
def play(g, seat):
    return play_turn(g, seat)


POLICY = Policy(
    "sampler",
    help="Flat Monte Carlo: at each draw and discard decision it deals the cards it has not seen at random "
         "(consistently with what it saw), plays each candidate followed by the rollout policy to the end of "
         "the round on `samples` such deals, and plays the best mean score when it beats card-reader's own choice "
         "by more than 2 standard errors (else card-reader's choice); its melds and lay-offs are card-reader's, "
         "its discard candidates card-reader's best `candidates`.",
    params=(
        Param("samples", 16, 1, 1000, unit="deals per decision",
              help="random deals of the unseen cards each candidate is played on"),
        Param("rollout", 0, 0, 1, unit="0/1",
              help="the policy that plays the rest of the round in a sample: 0 greedy, 1 card-reader"),
        Param("candidates", 4, 1, MAX_CANDIDATES, unit="cards",
              help="discards compared: the ones card-reader values most"),
    ),
    begin_turn=begin_turn,
    choose_draw=choose_draw,
    play=play,
)
SAMPLES = POLICY.slot("samples")
ROLLOUT = POLICY.slot("rollout")
CANDIDATES = POLICY.slot("candidates")
