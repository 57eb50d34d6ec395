"""Decision charts (issue 26 part 1): the measurement kernel (numba, no Python object per deal).

:func:`chart_deals` plays deals with a field (each seat greedy, card-reader or hold-hand, as the
searcher's rollouts play them: :func:`searcher.rollout_field`) and, at every turn of an unopened
seat, replays the turn's start (its ``begin_turn`` and draw) on a copy of the table and stops it
after the draw.  When that seat could now lay an opening that reaches what it needs (RULES.md
section 4) and took no card from the pile (a taken card must be played: section 3), the position is
a decision point of the class **open now vs wait** and both alternatives are evaluated there:

* **open**: the searcher's plan ``open-deadwood`` (the least-deadwood arrangement reaching the
  opening, then greedy's other table moves: :func:`searcher.apply_plan`);
* **wait**: the searcher's plan ``wait`` (lay nothing this turn);

each followed by card-reader's discard (:func:`card_reader.choose_discard`) and the field's policy
to the end of the round, on the same ``worlds`` sampled hidden worlds (paired): the cards the seat
cannot place dealt again consistently with what it has seen (:func:`api.deal_unseen`, the honest
choice: not the true continuation).  The worlds come from the stream ``stream_key(seed, deal,
1 + turn)`` alone, so a position's numbers depend on the seed and the deal, not on ``--jobs``; the
real deal goes on as the field plays it, untouched by the evaluation.

The score is the seat's points for the round (lower is better in Hand; in 2 v 2 its team's):
``diff`` is wait − open, so a positive mean difference says *open now*.
"""

import numpy as np
from numba import njit

from handsim._kernels.rng import stream_key
from handsim.games.hand.kernels.driverlib import deal_setup, keep_alive
from handsim.games.hand.kernels.round import MAX_TURNS, S_STATUS, S_TURN, STATUS_PLAYING
from handsim.games.hand.kernels.state import deal_from_deck, new_game, reset_round, seat_policies
from handsim.games.hand.kernels.turn import begin_round_with
from handsim.games.hand.policies import api, card_reader, hold_hand, sampler, searcher

#: The alternatives of the class "open now vs wait", in the order of :func:`evaluate`'s columns.
ALTS = np.array([searcher.V_OPEN_DEADWOOD, searcher.V_WAIT], dtype=np.int64)
#: The columns of a position row (float64) written by :func:`chart_deals`.
COLUMNS = ("deal", "position", "threshold", "own_turn", "cards", "open_points", "jokers", "fewest_opponent",
           "opened_opponents", "field_opens", "worlds", "sum_diff", "sum_diff2")
N_COLS = len(COLUMNS)
#: What the probe's play function leaves in the round's status: the turn stopped after the draw.
STATUS_PROBE = 77


@njit(cache=True)
def _stop(g, seat):
    """The probe's ``play``: stop the turn right after the draw (the state is read there)."""
    g.sc[S_STATUS] = STATUS_PROBE
    return api.NO_DISCARD


@njit(cache=True)
def _begin_round(g, seat):
    if api.memory(g, seat)[searcher.M_ROLE] == searcher.ROLE_HUNT:
        hold_hand.begin_round(g, seat)


@njit(cache=True)
def open_points(g, seat):
    """The opening value of ``seat``'s best opening now, or -1 when it cannot open (already opened,
    a card taken from the pile, or no opening reaching :func:`api.required_opening`)."""
    if api.has_opened(g, seat) or api.taken_card(g) != api.NO_CARD:
        return -1
    val, n = api.arrange(g, api.hand(g, seat), api.OPEN)
    if n > 0 and val >= api.required_opening(g, seat):
        return val
    return -1


@njit(cache=True)
def _play_alt(sim, seat, v, roles):
    """Alternative ``v`` on the table ``sim`` (after the draw), card-reader's discard, then the
    field to the end of the round; returns the seat's score, or NaN when ``v`` cannot be made."""
    prm = card_reader.default_params()
    d, keep_jk = searcher.apply_plan(sim, seat, v, prm)
    if d == searcher.INVALID:
        return np.nan
    if api.round_status(sim) == api.STATUS_PLAYING:
        if d == card_reader.UNDECIDED:
            d = card_reader.choose_discard(sim, seat, keep_jk, prm)
        api.end_turn(sim, seat, d)
    searcher.rollout_field(sim, seat, roles)
    return sampler._score(sim, seat)


@njit(cache=True)
def evaluate(g, seat, roles, worlds, key, out):
    """Paired rollouts of the alternatives :data:`ALTS` from ``g`` (``seat``'s turn, after its draw).

    Parameters
    ----------
    g : table record
        The position (left unchanged).
    seat : int
    roles : ndarray(int64, shape=(MAX_SEATS,))
        The field's policy of each seat (``searcher.ROLE_*``).
    worlds : int
        Sampled hidden worlds; world ``w`` is the ``w``-th :func:`api.deal_unseen` from the stream
        state ``key`` and both alternatives are played on it.
    key : uint64
    out : ndarray(float64, shape=(worlds, 2))
        Out: the seat's round score (points, lower is better) of each alternative on each world;
        NaN where the alternative cannot be made.
    """
    obs_arr = api.new_table(g)
    base_arr = api.new_table(g)
    sim_arr = api.new_table(g)
    obs, base, sim = obs_arr[0], base_arr[0], sim_arr[0]
    api.copy_table(g, obs)
    obs.prng[0] = key
    for w in range(worlds):
        api.copy_table(g, base)
        api.deal_unseen(obs, seat, base)
        base.prng[0] = obs.prng[0]
        for a in range(ALTS.shape[0]):
            api.copy_table(base, sim)
            out[w, a] = _play_alt(sim, seat, ALTS[a], roles)
    keep_alive(obs_arr)
    keep_alive(base_arr)
    keep_alive(sim_arr)


@njit(cache=True)
def one_rollout(g, seat, roles, world, key, a):
    """Alternative ``ALTS[a]`` alone on world ``world`` of the stream ``key`` (the world
    :func:`evaluate` plays both alternatives on); returns the seat's score (tests check the pairing)."""
    obs_arr = api.new_table(g)
    sim_arr = api.new_table(g)
    obs, sim = obs_arr[0], sim_arr[0]
    api.copy_table(g, obs)
    obs.prng[0] = key
    for _ in range(world + 1):
        api.copy_table(g, sim)
        api.deal_unseen(obs, seat, sim)
    sim.prng[0] = obs.prng[0]
    sc = _play_alt(sim, seat, ALTS[a], roles)
    keep_alive(obs_arr)
    keep_alive(sim_arr)
    return sc


@njit(cache=True)
def _features(g, seat, pts, row):
    row[2] = api.required_opening(g, seat)
    row[3] = api.own_turns(g, seat)
    row[4] = api.hand_count(g, seat)
    row[5] = pts
    row[6] = api.hand(g, seat)[api.JOKER]
    few = 1000
    opened = 0
    for s in range(api.players(g)):
        if api.is_opponent(g, seat, s):
            few = min(few, api.hand_count(g, s))
            if api.has_opened(g, s):
                opened += 1
    row[7] = few
    row[8] = opened


@njit(cache=True)
def _field_opens(g, seat):
    """Whether card-reader's own moves would open here (what the field's card-reader does)."""
    t_arr = api.new_table(g)
    t = t_arr[0]
    api.copy_table(g, t)
    card_reader.table_moves(t, seat, card_reader.default_params())
    r = api.has_opened(t, seat)
    keep_alive(t_arr)
    return r


@njit(cache=True)
def chart_deals(seed, start, n, players, rv, pol, pp, role_of, worlds, deck, dealer0, out):
    """Play deals ``start .. start+n-1`` with the field and evaluate every decision point.

    Parameters
    ----------
    seed, start, n : int
    players : int
    rv : ndarray(int64)
        Rules vector.
    pol : ndarray(int64, shape=(players,))
        Kernel policy id of each line-up position (seated as in ``engine.play_deals``).
    pp : ndarray(float64, shape=(players, 8))
        Their parameters (the real deal; rollouts play every role with its defaults).
    role_of : ndarray(int64)
        The ``searcher.ROLE_*`` of each kernel policy id.
    worlds : int
    deck : ndarray(int8)
        Empty: shuffled deals; else this stacked deck for every deal (tests).
    dealer0 : int
        The dealer of a stacked deck (ignored otherwise).
    out : ndarray(float64, shape=(rows, N_COLS))
        Out: one row per decision point (:data:`COLUMNS`; ``position`` is the line-up position).

    Returns
    -------
    int
        Rows written (at most ``out.shape[0]``: later decision points are dropped).
    """
    arr = new_game(players, rv, False)
    probe_arr = new_game(players, rv, False)
    g = arr[0]
    probe = probe_arr[0]
    pol_seat = np.zeros(api.MAX_SEATS, dtype=np.int64)
    pp_seat = np.zeros((api.MAX_SEATS, pp.shape[1]), dtype=np.float64)
    roles = np.zeros(api.MAX_SEATS, dtype=np.int64)
    pos_of = np.zeros(api.MAX_SEATS, dtype=np.int64)
    sc = np.empty((max(worlds, 1), 2), dtype=np.float64)
    m = 0
    for k in range(n):
        i = start + k
        dealer, key = deal_setup(seed, i, players, rv, pol, pp, i % players, pol_seat, pp_seat)
        if deck.shape[0] > 0:
            dealer = dealer0
        seat_policies(g, pol_seat, pp_seat)
        reset_round(g, dealer, key)
        if deck.shape[0] > 0:
            for c in range(deck.shape[0]):
                g.deck[c] = deck[c]
            deal_from_deck(g)
        st = api.starter(g)
        for j in range(players):
            pos_of[(st + (j + i % players) % players) % players] = j
        for s in range(players):
            roles[s] = role_of[pol_seat[s]]
            api.memory(g, s)[searcher.M_ROLE] = roles[s]
        begin_round_with(g, _begin_round)
        seat = st
        first = True
        while api.round_status(g) == STATUS_PLAYING:
            if g.sc[S_TURN] >= MAX_TURNS:
                api.finish_round(g, seat, first, searcher._r_begin, searcher._r_draw, searcher._r_play)
                break
            if not api.has_opened(g, seat) and m < out.shape[0]:
                api.copy_table(g, probe)
                api.play_turn(probe, seat, first, searcher._r_begin, searcher._r_draw, _stop)
                if probe.sc[S_STATUS] == STATUS_PROBE:
                    probe.sc[S_STATUS] = STATUS_PLAYING
                    pts = open_points(probe, seat)
                    if pts >= 0:
                        turn_key = stream_key(seed, i, 1 + g.sc[S_TURN])
                        evaluate(probe, seat, roles, worlds, turn_key, sc)
                        s1 = 0.0
                        s2 = 0.0
                        ok = True
                        for w in range(worlds):
                            if np.isnan(sc[w, 0]) or np.isnan(sc[w, 1]):
                                ok = False
                                break
                            x = sc[w, 1] - sc[w, 0]
                            s1 += x
                            s2 += x * x
                        if ok:
                            row = out[m]
                            row[0] = i
                            row[1] = pos_of[seat]
                            _features(probe, seat, pts, row)
                            row[9] = 1.0 if _field_opens(probe, seat) else 0.0
                            row[10] = worlds
                            row[11] = s1
                            row[12] = s2
                            m += 1
            api.play_turn(g, seat, first, searcher._r_begin, searcher._r_draw, searcher._r_play)
            first = False
            seat = api.next_seat(g, seat)
    keep_alive(arr)
    keep_alive(probe_arr)
    return m


@njit(cache=True)
def stacked_position(players, rv, dealer, key, deck, roles):
    """A table array (``GAME_DTYPE[1]``) at the starter's first turn of the stacked ``deck`` (begun
    as :func:`chart_deals` begins a probe's turn; no draw: the first decision point), each seat's
    role ``roles[s]`` in its memory (tests)."""
    arr = new_game(players, rv, False)
    g = arr[0]
    reset_round(g, dealer, key)
    for c in range(deck.shape[0]):
        g.deck[c] = deck[c]
    deal_from_deck(g)
    for s in range(players):
        api.memory(g, s)[searcher.M_ROLE] = roles[s]
    begin_round_with(g, _begin_round)
    api.play_turn(g, api.starter(g), True, searcher._r_begin, searcher._r_draw, _stop)
    g.sc[S_STATUS] = STATUS_PLAYING
    return arr


@njit(cache=True)
def evaluate_at(arr, seat, roles, worlds, key, out):
    """:func:`evaluate` on the table ``arr[0]`` (from Python)."""
    evaluate(arr[0], seat, roles, worlds, key, out)


@njit(cache=True)
def one_rollout_at(arr, seat, roles, world, key, a):
    """:func:`one_rollout` on the table ``arr[0]`` (from Python)."""
    return one_rollout(arr[0], seat, roles, world, key, a)
