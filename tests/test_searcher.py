"""The searching player (``searcher``, issue 21): its elimination and gate worked out by hand, its
turn plans on hand-built deals, and its reproducibility (the deal's policy stream only)."""

from __future__ import annotations

import numpy as np
import pytest

from handsim.games.hand.rules import Rules
from test_engine_rules import play, turns_of  # noqa: F401  (the stacked-deck helpers)

CLASSIC = Rules.preset("classic")


def test_elimination_drops_the_candidates_behind_the_own_choice_then_the_worse_half():
    from handsim.games.hand.policies.searcher import _eliminate

    # sums of score differences from candidate 0: 1 (+3) and 5 (+0.5) score worse than it and go;
    # 2, 3, 4 (-1, -2, -5) are left, (3 + 1) // 2 = 2 of them go on: the worst, 2, goes too
    diff = np.array([0.0, 3.0, -1.0, -2.0, -5.0, 0.5])
    alive = np.ones(6, dtype=np.bool_)
    _eliminate(diff, alive, 6, 4)
    assert alive.tolist() == [True, False, False, True, True, False]


def test_the_gate_leaves_the_own_choice_only_for_a_clearly_better_candidate():
    from handsim.games.hand.policies.sampler import better_by

    # n = 4 samples.  Candidate 1: differences -4, -4, -4, -4: mean -4, sd 0 -> clearly better at
    # any gate.  Candidate 2: -10, +2, -10, +2: mean -4, sd sqrt(48) = 6.93, se 3.46 -> -4 + 2 x 3.46
    # = +2.9 is not below 0 at gate 2; at gate 0 the lowest mean below 0 wins.
    diff = np.array([0.0, -16.0, -16.0])
    diff2 = np.array([0.0, 64.0, 208.0])
    assert better_by(diff, diff2, 3, 4, 2.0) == 1
    diff[1] = -12.0  # candidate 1 now -3 on average (e.g. -3 x 4, diff2 36)
    diff2[1] = 36.0
    assert better_by(diff, diff2, 3, 4, 2.0) == 1  # sd 0: still clearly better; 2 is not
    assert better_by(diff, diff2, 3, 4, 0.0) == 2  # mean -4 < -3
    diff[1] = 4.0
    assert better_by(diff, diff2, 3, 4, 2.0) == 0  # 1 is worse, 2 not clearly better


def test_it_plays_a_hand_at_once():
    # hand_size 7, the starter (8 cards, no draw): K set of 4 and Q set (70 >= 51), 9D to throw:
    # a Hand now, which no other plan can better - it is played without a search.
    trace, ev = play(CLASSIC.replace(hand_size=7), {0: "KS KH KD KC QS QH QD 9D", 1: "2H 3D 5C 7S 9C 6H 8D"},
                     stock="10S", policies=["searcher", "greedy"])
    assert turns_of(ev)[0][-2:] == ["discard 0 9D", "out 0 hand"]
    assert trace["result"]["hand"] is True and trace["result"]["out"] == 0


@pytest.mark.parametrize("scores, waits", [
    ({"out_score": 0, "hand_score": -400}, True),
    ({"out_score": -200, "hand_score": 0}, False),
])
def test_it_waits_for_a_hand_only_when_the_hand_is_worth_it(scores, waits):
    # 2 players, hand_size 7.  The starter (8 cards, no draw) holds KS KH KD QS QH QD 4C 9D: it can
    # open with both sets (60 >= 51) and is one card from a Hand (KC or QC, two copies each, or a
    # joker: 6 outs among the 91 cards it has not seen, 6.6% a draw, about half over ten draws).
    # card-reader opens at once.  With a Hand worth -400 and going out 0, hunting the Hand
    # (own seat played by hold-hand in the rollouts) scores about 0.5 x -400 = -200 against about 0
    # for opening now: it lays nothing.  With going out worth -200 and a Hand 0, opening now (out in
    # a turn or two, 1 card left) is far better than waiting: it opens.
    rules = CLASSIC.replace(hand_size=7, **scores)
    for policy, lays in (("searcher:worlds=32", not waits), ("card-reader", True)):
        _, ev = play(rules, {0: "KS KH KD QS QH QD 4C 9D", 1: "2H 3D 5C 7S 9C 6H 8D"}, stock="10S 2S",
                     policies=[policy, "greedy"])
        first = turns_of(ev)[0]
        assert any(e.startswith("meld 0") for e in first) == lays, (policy, first)


@pytest.mark.parametrize("model", [0, 1, 2])
def test_it_is_reproducible_and_independent_of_jobs(model):
    # every worlds model (uniform, plausible, all-seeing) deals its worlds from the deal's policy stream
    import pandas as pd

    from handsim.simulate import make_spec, run_study

    def summary(jobs, chunk, executor="inline", seed=4):
        sp = make_spec(CLASSIC, None, [f"searcher:worlds=3,candidates=2,worlds_model={model},card-reader,card-reader"],
                       players=3,
                       deals=12, seed=seed, chunk=chunk)
        return run_study(sp, jobs=jobs, executor=executor).summary

    ref = summary(1, 12)
    pd.testing.assert_frame_equal(summary(2, 5, "process"), ref, check_exact=True)
    assert not ref["mean_score"].equals(summary(1, 12, seed=5)["mean_score"])
