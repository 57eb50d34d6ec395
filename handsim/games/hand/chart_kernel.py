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

The other classes (``cls``, :data:`CLASSES`) are evaluated in the same way, each alternative ``a``
(0 or 1) on the same worlds, ``diff`` = score(alternative 1) − score(alternative 0) (> 0 says
alternative 0):

* **draw** (:data:`CLS_DRAW`): at the draw of a turn (not the starter's first), where the seat may
  take the top discard and play it legally (:func:`card_reader.may_take`, RULES.md section 3):
  *take* the discard vs draw from the *stock*, then card-reader's table moves and discard.  The
  position is the turn stopped before the draw (its ``begin_turn`` done), and each world samples
  the stock too.
* **jokers** (:data:`CLS_JOKERS`): after the draw, a seat that opened in an earlier turn and holds
  a joker it could lay this turn: *lay* them (plan ``jokers-now``) vs *keep* them (``jokers-kept``;
  RULES.md sections 1 and 2); a position where the two plans leave as many jokers in hand is none.
* **layoff** (:data:`CLS_LAYOFF`): after the draw, an opened seat whose card-reader moves lay no
  new meld but lay off cards: *lay off* (plan ``own``) vs *hold back* (``keep``: nothing laid).
* **hunt** (:data:`CLS_HUNT`): after the draw, a seat that laid nothing yet, took no card from the
  pile, cannot make a Hand now and is at most ``searcher.HUNT_DISTANCE`` cards from one: *hunt*
  (lay nothing, its seat then plays the round as hold-hand) vs play *normally* (card-reader's
  moves, its seat card-reader in the rollout; RULES.md section 6).

A rollout the engine stops with an error scores NaN in these classes (the position is dropped).
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
#: Decision classes (``cls``): open now vs wait, take the discard vs the stock, lay jokers vs keep
#: them, lay off vs hold back, hunt a Hand vs play normally.
CLS_OPEN = 0
CLS_DRAW = 1
CLS_JOKERS = 2
CLS_LAYOFF = 3
CLS_HUNT = 4
CLASSES = ("open", "draw", "jokers", "layoff", "hunt")
#: The two plans of each class (``PLANS[cls, a]``; the draw class's are played after its draw).
PLANS = np.array([[searcher.V_OPEN_DEADWOOD, searcher.V_WAIT], [searcher.V_OWN, searcher.V_OWN],
                  [searcher.V_JOKERS_NOW, searcher.V_JOKERS_KEPT], [searcher.V_OWN, searcher.V_KEEP],
                  [searcher.V_HUNT, searcher.V_OWN]], dtype=np.int64)
#: What the top discard does for the hand (``discard_use`` of the draw class), least first.
USE_LOOSE = 0  # nothing below
USE_PARTIAL = 1  # a pair (same rank, another suit) or a connector (same suit, ranks 1 or 2 apart)
USE_LAYOFF = 2  # (opened) it could be laid off on a table meld
USE_MELD = 3  # the least-deadwood arrangement of the hand with it melds more points
USE_OPENS = 4  # (unopened) it lets the hand open now, which the hand alone cannot
#: The columns of a position row (float64) written by :func:`chart_deals`.  ``field_opens`` is, per
#: class, whether the field's card-reader would play alternative 0 here (open, take, lay the
#: jokers, lay off; for hunt: the seat is a hold-hand seat of the field).
COLUMNS = ("deal", "position", "threshold", "own_turn", "cards", "open_points", "jokers", "fewest_opponent",
           "opened_opponents", "field_opens", "worlds", "sum_diff", "sum_diff2", "joker_penalty",
           "discard_points", "discard_use", "opened", "layable", "short")
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
def _play_class(sim, seat, cls, a, roles, alt_roles):
    """Alternative ``a`` of class ``cls`` on the world ``sim``; the seat's score (NaN when the
    alternative cannot be made, or, but in the open class, when the engine stopped the round with
    an error).  ``alt_roles`` is scratch room for the hunt class's roles."""
    if cls == CLS_OPEN:
        return _play_alt(sim, seat, PLANS[cls, a], roles)
    if cls == CLS_DRAW:
        if not api.draw(sim, seat, api.DRAW_DISCARD if a == 0 else api.DRAW_STOCK):
            # the stock ran out for good (a void round: 0) - or an error
            return np.nan if api.round_status(sim) == api.STATUS_ERROR else sampler._score(sim, seat)
    alt_roles[:] = roles
    if cls == CLS_HUNT:
        alt_roles[seat] = searcher.ROLE_HUNT if a == 0 else searcher.ROLE_CARD_READER
    sc = _play_alt(sim, seat, PLANS[cls, a], alt_roles)
    return np.nan if api.round_status(sim) == api.STATUS_ERROR else sc


@njit(cache=True)
def evaluate(g, seat, roles, worlds, key, out):
    """:func:`evaluate_class` of the open class (``out[:, 0]`` open, ``out[:, 1]`` wait)."""
    evaluate_class(g, seat, CLS_OPEN, roles, worlds, key, out)


@njit(cache=True)
def evaluate_class(g, seat, cls, roles, worlds, key, out):
    """Paired rollouts of the two alternatives of class ``cls`` from ``g`` (``seat``'s turn, after its
    draw; for the draw class, before it).

    Parameters
    ----------
    g : table record
        The position (left unchanged).
    seat : int
    cls : int
        The decision class (:data:`CLS_OPEN` ..).
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
    alt_roles = np.empty(roles.shape[0], dtype=np.int64)
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
        for a in range(2):
            api.copy_table(base, sim)
            out[w, a] = _play_class(sim, seat, cls, a, roles, alt_roles)
    keep_alive(obs_arr)
    keep_alive(base_arr)
    keep_alive(sim_arr)


@njit(cache=True)
def one_rollout(g, seat, roles, world, key, a):
    """:func:`one_rollout_class` of the open class."""
    return one_rollout_class(g, seat, CLS_OPEN, roles, world, key, a)


@njit(cache=True)
def one_rollout_class(g, seat, cls, roles, world, key, a):
    """Alternative ``a`` of class ``cls`` alone on world ``world`` of the stream ``key`` (the world
    :func:`evaluate_class` plays both alternatives on); returns the seat's score (tests check the
    pairing)."""
    alt_roles = np.empty(roles.shape[0], dtype=np.int64)
    obs_arr = api.new_table(g)
    sim_arr = api.new_table(g)
    obs, sim = obs_arr[0], sim_arr[0]
    api.copy_table(g, obs)
    obs.prng[0] = key
    for _ in range(world + 1):
        api.copy_table(g, sim)
        api.deal_unseen(obs, seat, sim)
    sim.prng[0] = obs.prng[0]
    sc = _play_class(sim, seat, cls, a, roles, alt_roles)
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
def _near(a, b):
    """Whether ranks ``a`` and ``b`` (1 = Ace .. 13) are 1 or 2 apart in a run (the Ace also high)."""
    for x in (a, 14 if a == 1 else a):
        for y in (b, 14 if b == 1 else b):
            if 1 <= abs(x - y) <= 2:
                return True
    return False


@njit(cache=True)
def discard_use(g, seat, opens):
    """What the top discard does for ``seat``'s hand (:data:`USE_LOOSE` .. :data:`USE_OPENS`; the
    highest that holds): ``opens`` as :func:`card_reader.may_take` says it; the least-deadwood
    arrangement melds more with it; (opened) a table meld takes it; a pair or a connector."""
    if opens:
        return USE_OPENS
    top = api.top_discard(g)
    h = api.hand(g, seat)
    cards = np.empty(api.N_TYPES, dtype=np.int8)
    cards[:] = h
    w0, _ = api.arrange(g, cards, api.DEADWOOD)
    cards[top] += 1
    w1, _ = api.arrange(g, cards, api.DEADWOOD)
    if w1 > w0:
        return USE_MELD
    if api.has_opened(g, seat) and api.layoff_meld(g, top) >= 0:
        return USE_LAYOFF
    if top == api.JOKER:
        return USE_PARTIAL
    r = api.rank_of(top)
    su = api.suit_of(top)
    for t in range(api.N_NATURALS):
        if h[t] == 0 or t == top:
            continue
        if api.rank_of(t) == r and api.suit_of(t) != su:
            return USE_PARTIAL
        if api.suit_of(t) == su and _near(api.rank_of(t), r):
            return USE_PARTIAL
    return USE_LOOSE


@njit(cache=True)
def _point(g, seat, cls, roles, t, row):
    """Whether ``g`` (``seat``'s turn stopped by the probe) is a decision point of class ``cls``;
    if so its features go into ``row`` (:data:`COLUMNS` 2..9 and 13..18).  ``t`` is a scratch table."""
    prm = card_reader.default_params()
    row[5] = -1
    row[13] = api.rule(g, api.R_JOKER_PENALTY)
    row[14] = -1
    row[15] = -1
    row[16] = 1.0 if api.has_opened(g, seat) else 0.0
    row[17] = 0
    row[18] = -1
    if cls == CLS_OPEN:
        pts = open_points(g, seat)
        if pts < 0:
            return False
        row[9] = 1.0 if _field_opens(g, seat) else 0.0
    elif cls == CLS_DRAW:
        ok, opens = card_reader.may_take(g, seat)
        if not ok:
            return False
        top = api.top_discard(g)
        row[14] = 0 if top == api.JOKER else api.card_points(g, top)
        row[15] = discard_use(g, seat, opens)
        api.copy_table(g, t)
        row[9] = 1.0 if card_reader.draw_decision(t, seat, prm) == api.DRAW_DISCARD else 0.0
        pts = -1
    elif cls == CLS_JOKERS or cls == CLS_LAYOFF:
        held = api.hand(g, seat)[api.JOKER]
        if not api.has_opened(g, seat) or not api.may_touch_table(g, seat) or (cls == CLS_JOKERS and held == 0):
            return False
        api.copy_table(g, t)
        d, _ = searcher.apply_plan(t, seat, PLANS[cls, 0], prm)
        if d == searcher.INVALID or api.round_status(t) == api.STATUS_ERROR:
            return False
        if cls == CLS_JOKERS:
            now = api.hand(t, seat)[api.JOKER]
            api.copy_table(g, t)
            d, _ = searcher.apply_plan(t, seat, PLANS[cls, 1], prm)
            if d == searcher.INVALID or api.round_status(t) == api.STATUS_ERROR:
                return False
            kept = api.hand(t, seat)[api.JOKER]
            if now >= kept:
                return False
            row[17] = kept - now
            api.copy_table(g, t)
            card_reader.table_moves(t, seat, prm)
            row[9] = 1.0 if api.hand(t, seat)[api.JOKER] < held else 0.0
        else:
            laid = api.hand_count(g, seat) - api.hand_count(t, seat)
            if api.table_count(t) != api.table_count(g) or laid <= 0:
                return False
            row[17] = laid
            row[9] = 1.0
        pts = -1
    else:  # CLS_HUNT
        if api.laid_before(g, seat) or api.taken_card(g) != api.NO_CARD:
            return False
        dist = hold_hand.distance(g, seat)
        if dist > searcher.HUNT_DISTANCE:
            return False
        api.copy_table(g, t)
        n, _ = api.plan_hand(t, seat)
        if n > 0:
            return False
        row[18] = dist
        row[9] = 1.0 if roles[seat] == searcher.ROLE_HUNT else 0.0
        pts = -1
    _features(g, seat, pts, row)
    if cls != CLS_OPEN:  # what an opened seat needs is 0: the chart's threshold is the rule's
        row[2] = api.rule(g, api.R_OPENING_THRESHOLD)
    return True


@njit(cache=True)
def _may_probe(g, seat, cls, first):
    """Whether ``seat``'s coming turn can hold a decision point of class ``cls`` at all."""
    if cls == CLS_OPEN:
        return not api.has_opened(g, seat)
    if cls == CLS_DRAW:
        return not first and api.top_discard(g) != api.NO_CARD
    if cls == CLS_HUNT:
        return not api.laid_before(g, seat)
    return api.has_opened(g, seat)


@njit(cache=True)
def chart_deals(seed, start, n, players, rv, pol, pp, role_of, worlds, deck, dealer0, cls, out):
    """Play deals ``start .. start+n-1`` with the field and evaluate every decision point of class
    ``cls`` (:data:`CLS_OPEN` ..).

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
    cls : int
        The decision class.
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
    scratch_arr = new_game(players, rv, False)
    scratch = scratch_arr[0]
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
            if m < out.shape[0] and _may_probe(g, seat, cls, first):
                api.copy_table(g, probe)
                # the draw class stops at the draw: the turn begun as a first turn (no draw)
                api.play_turn(probe, seat, first or cls == CLS_DRAW, searcher._r_begin, searcher._r_draw, _stop)
                if probe.sc[S_STATUS] == STATUS_PROBE:
                    probe.sc[S_STATUS] = STATUS_PLAYING
                    row = out[m]
                    if _point(probe, seat, cls, roles, scratch, row):
                        turn_key = stream_key(seed, i, 1 + g.sc[S_TURN])
                        evaluate_class(probe, seat, cls, roles, worlds, turn_key, sc)
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
                            row[0] = i
                            row[1] = pos_of[seat]
                            row[10] = worlds
                            row[11] = s1
                            row[12] = s2
                            m += 1
            api.play_turn(g, seat, first, searcher._r_begin, searcher._r_draw, searcher._r_play)
            first = False
            seat = api.next_seat(g, seat)
    keep_alive(arr)
    keep_alive(probe_arr)
    keep_alive(scratch_arr)
    return m


@njit(cache=True)
def stacked_position(players, rv, dealer, key, deck, roles):
    """A table array (``GAME_DTYPE[1]``) at the starter's first turn of the stacked ``deck`` (begun
    as :func:`chart_deals` begins a probe's turn; no draw: the first decision point), each seat's
    role ``roles[s]`` in its memory (tests): :func:`stacked_turn` after no turn."""
    arr, _ = stacked_turn(players, rv, dealer, key, deck, roles, 0, CLS_OPEN)
    return arr


@njit(cache=True)
def evaluate_at(arr, seat, roles, worlds, key, out):
    """:func:`evaluate` on the table ``arr[0]`` (from Python)."""
    evaluate(arr[0], seat, roles, worlds, key, out)


@njit(cache=True)
def one_rollout_at(arr, seat, roles, world, key, a):
    """:func:`one_rollout` on the table ``arr[0]`` (from Python)."""
    return one_rollout(arr[0], seat, roles, world, key, a)


@njit(cache=True)
def evaluate_class_at(arr, seat, cls, roles, worlds, key, out):
    """:func:`evaluate_class` on the table ``arr[0]`` (from Python)."""
    evaluate_class(arr[0], seat, cls, roles, worlds, key, out)


@njit(cache=True)
def one_rollout_class_at(arr, seat, cls, roles, world, key, a):
    """:func:`one_rollout_class` on the table ``arr[0]`` (from Python)."""
    return one_rollout_class(arr[0], seat, cls, roles, world, key, a)


@njit(cache=True)
def point_at(arr, seat, cls, roles, row):
    """:func:`_point` on the table ``arr[0]`` (from Python; ``row`` float64[N_COLS]): whether it is
    a decision point of ``cls``, its features in ``row``."""
    t_arr = api.new_table(arr[0])
    r = _point(arr[0], seat, cls, roles, t_arr[0], row)
    keep_alive(t_arr)
    return r


@njit(cache=True)
def stacked_turn(players, rv, dealer, key, deck, roles, turns, cls):
    """The stacked ``deck`` played by the field ``roles`` (every seat at its defaults) for ``turns``
    turns, then the next seat's turn probed as :func:`chart_deals` probes it for class ``cls``
    (stopped after its draw, the draw class's before it); returns ``(table array, seat)`` (tests)."""
    arr = new_game(players, rv, False)
    g = arr[0]
    reset_round(g, dealer, key)
    for c in range(deck.shape[0]):
        g.deck[c] = deck[c]
    deal_from_deck(g)
    for s in range(players):
        api.memory(g, s)[searcher.M_ROLE] = roles[s]
    begin_round_with(g, _begin_round)
    seat = api.starter(g)
    first = True
    for _ in range(turns):
        api.play_turn(g, seat, first, searcher._r_begin, searcher._r_draw, searcher._r_play)
        first = False
        seat = api.next_seat(g, seat)
    api.play_turn(g, seat, first or cls == CLS_DRAW, searcher._r_begin, searcher._r_draw, _stop)
    g.sc[S_STATUS] = STATUS_PLAYING
    return arr, seat
