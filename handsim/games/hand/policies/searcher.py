"""``searcher``: a determinized Monte Carlo player that searches every decision class of a turn.

Where :mod:`.sampler` samples only the draw and the discard and plays ``card-reader``'s table
moves, ``searcher`` also compares, on the same random deals of the cards it has not seen
(:func:`api.deal_unseen`, common random numbers), *turn plans* - a way to play the table moves
followed by a discard:

* **own**: ``card-reader``'s moves (:func:`card_reader.table_moves`), always candidate 0;
* **wait** (unopened, able to open): lay nothing this turn;
* **open-deadwood** and **open-only** (unopened, able to open): open with the least-deadwood
  arrangement that reaches the opening (RULES.md section 4), or with card-reader's opening melds
  only, nothing else laid this turn;
* **keep** (opened before this turn): no melds and no lay-offs this turn;
* **jokers-now** / **jokers-kept**: card-reader's moves with its jokers laid at once
  (``joker_play`` 0), or kept whatever the risk (RULES.md sections 1 and 2);
* **hunt** (nothing laid yet, a Hand at most ``HUNT_DISTANCE`` cards away but not possible now):
  lay nothing, and its own seat plays the rest of the simulated round as ``hold-hand`` (asymmetric
  rollouts: a Hand, RULES.md section 6, needs the player to keep waiting).

Plans that leave the same hand as an earlier one are dropped; every plan is tried with the
``candidates`` discards card-reader values most after its moves (:func:`card_reader.discard_values`;
other plans than *own*: half as many), at most ``cap`` candidates in all.  Each candidate is played
on a copy of the table followed by the rollout policy (``greedy`` or ``card-reader``) to the end of
the round.  The worlds come in growing batches (a quarter of ``worlds``, then twice as many each
time); with ``eliminate`` after each batch but the last, the candidates scoring worse than the own
choice so far are dropped and at most half of the others go on (successive elimination, as in
jdh8/gin-rummy-engine's ``mc.rs``).  It leaves candidate 0 only for one whose paired mean score is
lower by more than ``gate`` standard errors (:func:`sampler.better_by`).  The draw is sampler's
(:func:`sampler.draw_decision`: its parameters sit in the same slots).  A card taken from the pile
must be played as card-reader plays it (RULES.md section 3): then only *own* is searched.

Worlds (``worlds_model``, for the draw and the turn alike; :func:`sampler.deal_world`): 0 deals the
hidden cards at random (:func:`api.deal_unseen`); 1 deals them as plausible given what each other
seat discarded, passed over and took (:func:`api.deal_plausible`); 2 is an all-seeing control that
keeps the true hidden cards and shuffles only the stock (:func:`api.shuffle_stock`), the upper
bound of what better inference could add (issue 21).

Randomness: only the deal's policy stream (through the deal of the worlds): reproducible and
independent of ``--jobs``.  Its score is its own, in 2 v 2 its team's.
"""

import numpy as np
from numba import njit

from handsim.games.hand.policies import api, card_reader, greedy, hold_hand, sampler
from handsim.policies.declare import MAX_PARAMS, Param, Policy

#: At most this many candidates (plans x discards) are compared (``cap``'s top).
MAX_CANDIDATES = 16
#: Turn plans (see the module's text).
V_OWN = 0
V_WAIT = 1
V_OPEN_DEADWOOD = 2
V_OPEN_ONLY = 3
V_KEEP = 4
V_JOKERS_NOW = 5
V_JOKERS_KEPT = 6
V_HUNT = 7
N_PLANS = 8
#: What :func:`apply_plan` returns for a plan that cannot be made.
INVALID = -3
#: ``hunt`` is tried when the hand is at most this many cards from going out at once
#: (:func:`hold_hand.distance`).
HUNT_DISTANCE = 3
#: The memory slot of a simulated seat that says which policy plays it in the rollout.
M_ROLE = 15
ROLE_GREEDY = sampler.ROLLOUT_GREEDY
ROLE_CARD_READER = sampler.ROLLOUT_CARD_READER
ROLE_HUNT = 2
_HUNTER_PARAMS = sampler._defaults(hold_hand.POLICY)


# ------------------------------------------------------------------------- rollouts


@njit(cache=True)
def _r_begin(g, seat):
    r = api.memory(g, seat)[M_ROLE]
    if r == ROLE_CARD_READER:
        card_reader.begin_turn(g, seat)
    elif r == ROLE_HUNT:
        hold_hand.begin_turn(g, seat)


@njit(cache=True)
def _r_draw(g, seat):
    r = api.memory(g, seat)[M_ROLE]
    if r == ROLE_CARD_READER:
        return card_reader.choose_draw(g, seat)
    if r == ROLE_HUNT:
        return hold_hand.choose_draw(g, seat)
    return greedy.choose_draw(g, seat)


@njit(cache=True)
def _r_play(g, seat):
    r = api.memory(g, seat)[M_ROLE]
    if r == ROLE_CARD_READER:
        return card_reader.play(g, seat)
    if r == ROLE_HUNT:
        return hold_hand.play(g, seat)
    return greedy.play(g, seat)


@njit(cache=True)
def _rollout(sim, seat, rollout, hunt):
    """Play the simulated round from the seat after ``seat`` to its end: every seat the rollout
    policy (its parameters, an empty memory), ``seat`` itself ``hold-hand`` with ``hunt``."""
    if api.round_status(sim) != api.STATUS_PLAYING:
        return
    sampler._seat_rollout(sim, rollout)
    for s in range(api.players(sim)):
        api.memory(sim, s)[M_ROLE] = rollout
    if hunt:
        api.memory(sim, seat)[M_ROLE] = ROLE_HUNT
        for k in range(MAX_PARAMS):
            api.set_param(sim, seat, k, _HUNTER_PARAMS[k])
    api.finish_round(sim, api.next_seat(sim, seat), False, _r_begin, _r_draw, _r_play)


@njit(cache=True)
def rollout_field(sim, seat, roles):
    """:func:`_rollout` with each seat ``s`` played by its own role ``roles[s]`` (:data:`ROLE_GREEDY`,
    :data:`ROLE_CARD_READER` or :data:`ROLE_HUNT`, hold-hand), its defaults and an empty memory:
    the rest of a round played by a field of several policies (``handsim chart``)."""
    if api.round_status(sim) != api.STATUS_PLAYING:
        return
    for s in range(api.players(sim)):
        mem = api.memory(sim, s)
        mem[:] = 0
        r = roles[s]
        for k in range(MAX_PARAMS):
            v = _HUNTER_PARAMS[k] if r == ROLE_HUNT else (
                sampler._CARD_READER_PARAMS[k] if r == ROLE_CARD_READER else sampler._GREEDY_PARAMS[k])
            api.set_param(sim, s, k, v)
        mem[M_ROLE] = r
    api.finish_round(sim, api.next_seat(sim, seat), False, _r_begin, _r_draw, _r_play)


# ------------------------------------------------------------------------- turn plans


@njit(cache=True)
def _jokers_params(prm, mode):
    """card-reader's parameters ``prm`` (a tuple) with ``joker_play`` ``mode``, and with 1 its
    ``joker_hold`` so high that it keeps them whatever the risk."""
    hold = 1e9 if mode == card_reader.JOKERS_WHEN_NEEDED else prm[7]
    return (prm[0], prm[1], prm[2], prm[3], prm[4], float(mode), prm[6], hold)


@njit(cache=True)
def apply_plan(g, seat, v, prm):
    """Make the table moves of plan ``v`` (:data:`V_OWN` ..) on ``g``; returns ``(discard,
    keep_jokers)`` as :func:`card_reader.table_moves`: the discard when the moves fixed it, else
    :data:`card_reader.UNDECIDED`, and whether the jokers stay out of the discard's valuation;
    :data:`INVALID` when the plan finds no moves, and a plan whose moves are refused leaves the round
    stopped with an error (both are found on copies first)."""
    if v == V_OWN:
        return card_reader.table_moves(g, seat, prm)
    if v == V_JOKERS_NOW:
        return card_reader.table_moves(g, seat, _jokers_params(prm, card_reader.JOKERS_AT_ONCE))
    if v == V_JOKERS_KEPT:
        api.memory(g, seat)[card_reader.M_RELEASED] = 0
        return card_reader.table_moves(g, seat, _jokers_params(prm, card_reader.JOKERS_WHEN_NEEDED))
    keep_jk = card_reader.keeps_jokers(g, seat, prm) and api.hand(g, seat)[api.JOKER] > 0
    api.memory(g, seat)[card_reader.M_BOUND_OK] = 0
    if v == V_OPEN_DEADWOOD or v == V_OPEN_ONLY:
        keep = greedy.keep_back(g, seat, greedy.NO_SUPPORT)
        req = api.required_opening(g, seat)
        mode = api.DEADWOOD if v == V_OPEN_DEADWOOD else api.OPEN
        n = api.plan_melds(g, seat, mode, req, keep, True)
        if n <= 0 or not api.lay_melds(g, seat, api.plan(g), n):
            return INVALID, False
        if v == V_OPEN_DEADWOOD:
            greedy.table_play(g, seat, keep)
            keep_jk = False
        if api.hand_count(g, seat) == 0:
            return api.NO_DISCARD, False
    return card_reader.UNDECIDED, keep_jk


@njit(cache=True)
def _plans(g, seat, prm, out):
    """The plans worth trying for ``seat`` now, :data:`V_OWN` first (``out int64[N_PLANS]``);
    returns their number."""
    out[0] = V_OWN
    m = 1
    if api.taken_card(g) != api.NO_CARD or api.param(g, seat, PLANS) == 0:
        return m
    h = api.hand(g, seat)
    opened = api.has_opened(g, seat)
    if not opened:
        val, n = api.arrange(g, h, api.OPEN)
        if n > 0 and val >= api.required_opening(g, seat) and api.opening_allowed(g, seat):
            out[m] = V_WAIT
            out[m + 1] = V_OPEN_DEADWOOD
            out[m + 2] = V_OPEN_ONLY
            m += 3
    elif api.may_touch_table(g, seat):
        out[m] = V_KEEP
        m += 1
    if h[api.JOKER] > 0:
        out[m] = V_JOKERS_NOW
        out[m + 1] = V_JOKERS_KEPT
        m += 2
    if not api.laid_before(g, seat) and hold_hand.distance(g, seat) <= HUNT_DISTANCE:
        out[m] = V_HUNT
        m += 1
    return m


@njit(cache=True)
def _top(vals, k, cand, plan, v, m, cap):
    """Append the ``k`` best discards of ``vals`` (best first, ties the lower card type) to the
    candidates (``cand``, ``plan``) as plan ``v``, from position ``m``, at most ``cap`` in all;
    returns the new number."""
    i = 0
    while i < k and m < cap:
        best = -1
        bestv = card_reader.NOT_A_CANDIDATE
        for t in range(api.N_TYPES):
            if vals[t] > bestv:
                bestv = vals[t]
                best = t
        if best < 0:
            break
        cand[m] = best
        plan[m] = v
        vals[best] = card_reader.NOT_A_CANDIDATE
        m += 1
        i += 1
    return m


# ------------------------------------------------------------------------- the turn


@njit(cache=True)
def play_turn(g, seat):
    """Compare the turn plans x discards on sampled worlds (see the module's text); make the
    chosen plan's moves and return its discard."""
    prm = card_reader.default_params()
    plans = np.empty(N_PLANS, dtype=np.int64)
    np_ = _plans(g, seat, prm, plans)
    k = min(int(api.param(g, seat, CANDIDATES)), MAX_CANDIDATES)
    cap = min(int(api.param(g, seat, CAP)), MAX_CANDIDATES)
    cand = np.empty(MAX_CANDIDATES, dtype=np.int64)
    plan = np.empty(MAX_CANDIDATES, dtype=np.int64)
    hands = np.empty((N_PLANS, api.N_TYPES), dtype=np.int8)
    hplan = np.empty(N_PLANS, dtype=np.int64)
    m = 0
    nh = 0
    work_arr = api.new_table(g)
    work = work_arr[0]
    vals = np.empty(api.N_TYPES, dtype=np.float64)
    for i in range(np_):
        v = plans[i]
        api.copy_table(g, work)
        d, keep_jk = apply_plan(work, seat, v, prm)
        if d == INVALID or api.round_status(work) == api.STATUS_ERROR:
            continue
        if v == V_OWN and d != card_reader.UNDECIDED:  # a Hand, or out: no better plan
            break
        same = False
        for j in range(nh):  # a plan that leaves the hand of an earlier one (hunt aside) adds nothing
            if v != V_HUNT and hplan[j] != V_HUNT:
                eq = True
                for t in range(api.N_TYPES):
                    if hands[j, t] != api.hand(work, seat)[t]:
                        eq = False
                        break
                if eq:
                    same = True
                    break
        if same:
            continue
        hands[nh, :] = api.hand(work, seat)
        hplan[nh] = v
        nh += 1
        if d != card_reader.UNDECIDED:
            if m < cap:
                cand[m] = d
                plan[m] = v
                m += 1
            continue
        card_reader.discard_values(work, seat, keep_jk, prm, vals)
        m = _top(vals, k if v == V_OWN else (k + 1) // 2, cand, plan, v, m, cap)
    if m <= 1:
        # card-reader's own turn (also when no search is needed)
        d, keep_jk = card_reader.table_moves(g, seat, prm)
        if d == card_reader.UNDECIDED:
            d = card_reader.choose_discard(g, seat, keep_jk, prm)
        card_reader.remember_discard(g, seat, d)
        return d if work_arr.shape[0] > 0 else d
    c = _search(g, seat, cand, plan, m, prm)
    d, keep_jk = apply_plan(g, seat, plan[c], prm)
    if d == card_reader.UNDECIDED:
        d = cand[c]
    card_reader.remember_discard(g, seat, d)
    return d if work_arr.shape[0] > 0 else d


@njit(cache=True)
def _search(g, seat, cand, plan, m, prm):
    """Which of the ``m`` candidates (discard ``cand[j]`` after plan ``plan[j]``; 0 is card-reader's)
    to play: successive elimination over growing batches of sampled worlds, then the gate."""
    n_worlds = int(api.param(g, seat, WORLDS))
    rollout = int(api.param(g, seat, ROLLOUT))
    z = api.param(g, seat, GATE)
    elim = api.param(g, seat, ELIMINATE) != 0
    model = int(api.param(g, seat, WORLDS_MODEL))
    base_arr = api.new_table(g)
    mid_arr = api.new_table(g)
    sim_arr = api.new_table(g)
    base = base_arr[0]
    mid = mid_arr[0]
    sim = sim_arr[0]
    alive = np.ones(m, dtype=np.bool_)
    sc = np.zeros(MAX_CANDIDATES, dtype=np.float64)
    diff = np.zeros(MAX_CANDIDATES, dtype=np.float64)
    diff2 = np.zeros(MAX_CANDIDATES, dtype=np.float64)
    done = 0
    batch = max(2, n_worlds // 4) if elim else n_worlds
    while done < n_worlds:
        b = min(batch, n_worlds - done)
        for _ in range(b):
            api.copy_table(g, base)
            sampler.deal_world(g, seat, base, model)
            last = -1
            d = card_reader.UNDECIDED
            for j in range(m):
                if not alive[j]:
                    continue
                if plan[j] != last:
                    api.copy_table(base, mid)
                    d, _k = apply_plan(mid, seat, plan[j], prm)
                    last = plan[j]
                api.copy_table(mid, sim)
                if api.round_status(sim) == api.STATUS_PLAYING:
                    api.end_turn(sim, seat, cand[j] if d == card_reader.UNDECIDED else d)
                _rollout(sim, seat, rollout, plan[j] == V_HUNT)
                sc[j] = sampler._score(sim, seat)
            for j in range(1, m):
                if alive[j]:
                    x = sc[j] - sc[0]
                    diff[j] += x
                    diff2[j] += x * x
        done += b
        batch *= 2
        if elim and done < n_worlds:
            _eliminate(diff, alive, m, done)
    for j in range(1, m):
        if not alive[j]:
            diff[j] = 1e6 * done  # never chosen
    keep = base_arr.shape[0] + mid_arr.shape[0] + sim_arr.shape[0]  # the tables live until here
    return sampler.better_by(diff, diff2, m, done, z) if keep > 0 else 0


@njit(cache=True)
def _eliminate(diff, alive, m, n):
    """Drop the candidates whose mean score so far is worse than candidate 0's, then all but the
    best half of the others (candidate 0 stays)."""
    live = 0
    for j in range(1, m):
        if alive[j] and diff[j] > 0.0:
            alive[j] = False
        if alive[j]:
            live += 1
    keep = (live + 1) // 2
    while live > keep:
        worst = -1
        for j in range(1, m):
            if alive[j] and (worst < 0 or diff[j] > diff[worst]):
                worst = j
        alive[worst] = False
        live -= 1


@njit(cache=True)
def begin_turn(g, seat):
    card_reader.begin_turn(g, seat)


@njit(cache=True)
def choose_draw(g, seat):
    return sampler.draw_decision_in(g, seat, int(api.param(g, seat, WORLDS_MODEL)))


@njit(cache=True)
def play(g, seat):
    return play_turn(g, seat)


POLICY = Policy(
    "searcher",
    help="Determinized Monte Carlo over whole turn plans: besides sampler's draw it compares, on the same random "
         "deals of the cards it has not seen, card-reader's moves against waiting to open, opening with another "
         "arrangement, keeping its lay-offs, laying or keeping its jokers and hunting a Hand (its own seat then "
         "plays hold-hand in the rollout), each with card-reader's best discards; successive elimination over "
         "growing batches of worlds, and it leaves card-reader's choice only for one better by `gate` standard "
         "errors.",
    params=(
        Param("worlds", 32, 1, 1000, unit="deals per decision",
              help="random deals of the unseen cards the candidates that last are played on (32: the "
                   "measured knee of strength against cost, docs/policies.md)"),
        Param("rollout", 0, 0, 1, unit="0/1",
              help="the policy that plays the rest of the round in a world: 0 greedy, 1 card-reader"),
        Param("candidates", 4, 1, MAX_CANDIDATES, unit="cards",
              help="discards tried after card-reader's moves (half as many after each other plan)"),
        Param("gate", 2.0, 0.0, 10.0, unit="standard errors", integer=False,
              help="it leaves card-reader's choice only for a candidate scoring less by more than this many "
                   "standard errors of the paired mean difference"),
        Param("eliminate", 1, 0, 1, unit="0/1",
              help="1: worlds in growing batches, dropping the candidates behind after each; 0: every "
                   "candidate on every world"),
        Param("plans", 1, 0, 1, unit="0/1",
              help="1: search the turn plans above; 0: card-reader's moves only (the discard searched)"),
        Param("cap", 10, 1, MAX_CANDIDATES, unit="candidates",
              help="at most this many candidates (plans x discards) in all"),
        Param("worlds_model", 0, 0, 2, unit="0/1/2",
              help="how a world's hidden cards are dealt: 0 at random (api.deal_unseen); 1 plausibly given "
                   "what each other seat discarded, passed over and took (api.deal_plausible); 2 the true "
                   "hidden cards, only the stock shuffled (api.shuffle_stock: an all-seeing control, not a "
                   "fair player)"),
    ),
    begin_turn=begin_turn,
    choose_draw=choose_draw,
    play=play,
)
WORLDS = POLICY.slot("worlds")
ROLLOUT = POLICY.slot("rollout")
CANDIDATES = POLICY.slot("candidates")
GATE = POLICY.slot("gate")
ELIMINATE = POLICY.slot("eliminate")
PLANS = POLICY.slot("plans")
CAP = POLICY.slot("cap")
WORLDS_MODEL = POLICY.slot("worlds_model")
assert (WORLDS, ROLLOUT) == (sampler.SAMPLES, sampler.ROLLOUT)  # sampler.draw_decision reads them
