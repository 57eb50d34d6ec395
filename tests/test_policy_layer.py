"""The policy layer: one declaration per policy, the registry, the generated dispatch, and the policy
API's observations and simulation helpers on hand-built tables."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from handsim import cards
from handsim.games.hand.kernels import state as S
from handsim.errors import PolicyError
from handsim.policies import POLICIES, Param, Policy, api, greedy, parse_policy
from handsim.games.hand.policies.engines import builtin_dispatch_source
from handsim.policies.registry import BUILTIN_IDS, BUILTIN_MODULES
from handsim.games.hand.rules import Rules

ROOT = Path(__file__).resolve().parents[1]


def test_the_committed_dispatch_is_generated_from_the_registry():
    """``handsim/games/hand/kernels/dispatch.py`` is what ``python -m handsim.games.hand.policies.engines`` writes."""
    assert (ROOT / "handsim" / "games" / "hand" / "kernels" / "dispatch.py").read_text(encoding="utf-8") == builtin_dispatch_source()


def test_every_builtin_policy_is_one_declared_module():
    assert list(BUILTIN_IDS) == ["greedy", "hold-hand", "random", "card-reader", "sampler", "searcher"]
    assert list(BUILTIN_IDS.values()) == list(range(len(BUILTIN_MODULES)))
    for name in BUILTIN_IDS:
        p = POLICIES[name]
        assert p.builtin and p.help and p.choose_draw is not None and p.play is not None
        p.check()  # compiled functions of (g, seat), parameters within their ranges
        for q in p.params:
            assert q.unit and q.help
    assert [q.name for q in POLICIES["hold-hand"].params] == ["bail_turn", "bail_opponent_cards", "distance_turn",
                                                              "max_distance"]
    assert POLICIES["hold-hand"].slot("bail_opponent_cards") == 1
    assert [q.name for q in POLICIES["card-reader"].params] == ["horizon", "open_weight", "card_weight", "feed_weight",
                                                                "take_margin", "joker_play", "joker_turn", "joker_hold"]
    assert [q.name for q in POLICIES["sampler"].params] == ["samples", "rollout", "candidates"]
    assert [q.name for q in POLICIES["searcher"].params] == ["worlds", "rollout", "candidates", "gate", "eliminate",
                                                             "plans", "cap", "worlds_model"]


def test_no_policy_reads_the_state_or_another_policys_id():
    """Built-in policies go through the API only: no ``g.<field>`` and no kernel state module."""
    helpers = ("counting",)  # card-reader's counting, in a module of its own
    for mod in BUILTIN_MODULES + helpers:
        src = (ROOT / "handsim" / "games" / "hand" / "policies" / f"{mod}.py").read_text(encoding="utf-8")
        assert ("POLICY = Policy(" in src) == (mod not in helpers), mod  # the module itself, not a kept path
        tree = ast.parse(src)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "g":
                pytest.fail(f"{mod}.py reads g.{node.attr}")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [getattr(node, "module", None) or ""] + [a.name for a in node.names]
                assert not any("kernels" in n for n in names), (mod, names)
        assert ".pol[" not in src and "HOLD_HAND" not in src and "RANDOM" not in src


def test_parameters_are_set_by_name_into_the_declared_slots():
    spec = parse_policy("hold-hand:bail_opponent_cards=3")
    assert spec.params == (("bail_turn", 10.0), ("bail_opponent_cards", 3.0), ("distance_turn", 0.0),
                           ("max_distance", 3.0))
    v = spec.vector()
    assert v[POLICIES["hold-hand"].slot("bail_turn")] == 10 and v[1] == 3 and v[2] == 0 and v[3] == 3
    assert not v[4:].any()
    assert spec.label == "hold-hand:bail_opponent_cards=3"


def test_a_broken_declaration_is_refused_with_one_line():
    @njit
    def draw(g, seat):
        return 0

    with pytest.raises(PolicyError, match="use lower-case letters"):
        Policy("Mine", help="x", choose_draw=draw, play=draw).check()
    with pytest.raises(PolicyError, match="has no play function"):
        Policy("mine", help="x", choose_draw=draw).check()
    with pytest.raises(PolicyError, match="lo 5 above hi 1"):
        Policy("mine", help="x", params=(Param("a", 1, 5, 1),), choose_draw=draw, play=draw).check()
    with pytest.raises(PolicyError, match="parameter a is declared twice"):
        Policy("mine", help="x", params=(Param("a", 1, 0, 5), Param("a", 1, 0, 5)), choose_draw=draw,
               play=draw).check()


# ------------------------------------------------------------------------------ observations


@njit(cache=True)
def _table_after_moves(arr, taken, discard_after):
    """Seat 1 takes ``taken`` from the pile (put there first), then - if ``discard_after`` -
    discards it again in a later turn; returns (known[1], seen by seat 0, unseen by seat 0)."""
    g = arr[0]
    S.reset_round(g, 0, np.uint64(9))
    g.pile[0] = taken
    g.sc[S.S_PILE_N] = 1
    # the card came from seat 0's hand (it discarded it), so the deck stays whole
    g.hands[0, taken] -= 1
    g.hand_n[0] -= 1
    S.take_discard(g, 1)
    if discard_after:
        g.sc[S.S_TAKEN] = -1  # a later turn
        S.discard(g, 1, taken)
    seen = np.zeros(53, np.int8)
    unseen = np.zeros(53, np.int8)
    api.seen_cards(g, 0, seen)
    api.unseen_cards(g, 0, unseen)
    return api.known_cards(g, 1).copy(), seen, unseen, g.hands[0].copy()


def test_seen_known_and_unseen_cards():
    arr = S.new_game(3, Rules.preset("classic").to_vector(), False)
    g = arr[0]
    S.reset_round(g, 0, np.uint64(9))
    t = int(np.nonzero(g["hands"][0][:52])[0][0])  # a natural that seat 0 holds
    known, seen, unseen, hand0 = _table_after_moves(arr, t, False)
    assert known[t] == 1 and known.sum() == 1  # everyone saw seat 1 take it
    deck = np.array([2] * 52 + [2], np.int64)
    assert (seen.astype(int) + unseen.astype(int) == deck).all()
    expect = hand0.astype(int)
    expect[t] += 1  # it knows where the card it threw is
    assert (seen.astype(int) == expect).all()
    known, seen, unseen, hand0 = _table_after_moves(arr, t, True)
    assert known.sum() == 0  # discarded again: on the pile, no longer in seat 1's hand
    assert seen[t] == hand0[t] + 1  # now seen on the pile


@njit(cache=True)
def _determinize(arr, seat):
    g = arr[0]
    sim = api.new_table(g)
    api.deal_unseen(g, seat, sim[0])
    return sim


def test_deal_unseen_keeps_what_the_seat_knows_and_every_count():
    from handsim.games.hand.policies.engines import builtin_engine
    from handsim.simulate import run_chunk  # noqa: F401  (compiles the engine the same way)

    rules = Rules.preset("classic")
    arr = S.new_game(4, rules.to_vector(), False)
    g = arr[0]
    S.reset_round(g, 2, np.uint64(77))
    # seat 3 took a card from the pile: others know it is there
    c = int(np.nonzero(g["hands"][0][:52])[0][0])
    g["hands"][0][c] -= 1
    g["hand_n"][0] -= 1
    g["hands"][3][c] += 1
    g["hand_n"][3] += 1
    g["known"][3][c] = 1
    before = arr.copy()
    sim = _determinize(arr, 0)[0]
    assert (sim["hands"][0] == g["hands"][0]).all()  # its own hand
    assert (sim["hand_n"] == g["hand_n"]).all()
    for s in range(1, 4):
        assert sim["hands"][s].sum() == g["hand_n"][s]
    assert sim["hands"][3][c] >= 1  # the known card stays where it is known to be
    pool = lambda x: (x["hands"][1:4].sum(axis=0).astype(int)  # noqa: E731
                      + np.bincount(x["stock"][x["sc"][S.S_SP]:x["sc"][S.S_SEND]], minlength=53))
    assert (pool(sim) == pool(g)).all()  # the same unseen cards, dealt again
    assert not (sim["hands"][1:4] == g["hands"][1:4]).all()  # and dealt differently
    assert (arr["hands"] == before["hands"]).all()  # the table itself is untouched
    assert builtin_engine().key == "builtin"


@njit(cache=True)
def _rollout(arr):
    """Deal a round, copy the table, deal the cards seat 0 cannot see again and play the copy
    to its end with greedy at every seat - what a sampling player does at a decision."""
    g = arr[0]
    S.reset_round(g, 1, np.uint64(123))
    sim = api.new_table(g)
    s = sim[0]
    api.deal_unseen(g, 0, s)
    status = api.finish_round(s, api.starter(s), True, api.no_op, greedy.choose_draw, greedy.play)
    total = 0
    for seat in range(api.players(s)):
        total += api.round_score(s, seat)
    return status, total, api.round_status(g), s.sc[S.S_TURN], g.sc[S.S_TURN]


def test_a_look_ahead_plays_a_copy_to_the_end_and_caches():
    arr = S.new_game(3, Rules.preset("classic").to_vector(), False)
    status, total, original_status, sim_turns, turns = _rollout(arr)
    assert status in (S.STATUS_OUT, S.STATUS_VOID) and sim_turns > 0
    assert original_status == S.STATUS_PLAYING and turns == 0  # the real table did not move
    if status == S.STATUS_OUT:
        assert total != 0
    assert _rollout(arr) == (status, total, original_status, sim_turns, turns)  # the same stream, the same play
    # passing decision functions does not keep addresses in the machine code: numba caches it
    for cres in _rollout.overloads.values():
        assert not cres.library.has_dynamic_globals


def test_an_engine_plays_only_its_policies_and_plays_them_as_the_full_engine_does():
    """A run compiles the dispatch over the first set of built-in policies (engines.TIERS) that
    holds the ones it plays: the engine of card-reader and hold-hand has no random or sampler
    branch, and it plays the same deals move for move as the engine of every built-in policy
    (the golden move logs pin the latter)."""
    from handsim.policies import lineup_arrays
    from handsim.games.hand.policies.engines import builtin_engine, engine_for, engine_from_ref
    from handsim.simulate import run_chunk

    specs = [parse_policy(p) for p in ("hold-hand", "card-reader:open_weight=5", "card-reader", "greedy")]
    small, full = engine_for(specs), builtin_engine()
    assert small is not full and small.files == () and full.key == "builtin"
    assert small.builtins == (BUILTIN_IDS["greedy"], BUILTIN_IDS["hold-hand"], BUILTIN_IDS["card-reader"])
    assert sorted(small.ids) == ["card-reader", "greedy", "hold-hand"]
    assert engine_for(["card-reader"]) is small and engine_for(["greedy"]) is engine_for(["random", "hold-hand"])
    assert engine_for(["random"]).builtins == (BUILTIN_IDS["greedy"], BUILTIN_IDS["hold-hand"], BUILTIN_IDS["random"])
    assert engine_for(["random", "card-reader"]) is engine_for(["sampler"]) is not full  # no searcher
    assert sorted(engine_for(["sampler"]).ids) == ["card-reader", "greedy", "hold-hand", "random", "sampler"]
    assert engine_for(["searcher"]) is full
    assert engine_from_ref(small.ref()) is small and engine_from_ref(full.ref()) is full
    with pytest.raises(KeyError):
        small.policy_id("random")  # never played by the fall-back branch of another policy
    dispatch = (small.path.parent / small.path.name.replace("hs_engine_", "hs_dispatch_")).read_text()
    assert "card_reader import POLICY" in dispatch and "random_moves" not in dispatch and "sampler" not in dispatch
    rules = Rules.preset("classic", opening_threshold=71).to_vector()
    got = run_chunk(rules, *lineup_arrays(specs, small), 4, 11, 0, 40, small)
    want = run_chunk(rules, *lineup_arrays(specs, full), 4, 11, 0, 40, full)
    for k in want:
        assert (got[k] == want[k]).all(), k
    assert got["err"].max() == 0 and np.abs(got["score"]).sum() > 0
