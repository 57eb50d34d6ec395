"""The built-in players' key decisions on hand-built deals (``handsim/policies/``).

Each test stacks a deck with the helpers of ``tests/test_engine_rules.py`` (the starter's
``hand_size + 1`` cards, then each next seat's, then the stock top first), plays the round and
compares what the player did with the decision worked out by hand in the comments; every deal
is also replayed by the rules checker.
"""

from __future__ import annotations

import pytest

from handsim.rules import Rules
from test_engine_rules import play, turns_of  # noqa: F401  (the stacked-deck helpers)

CLASSIC = Rules.preset("classic")


# --- hold-hand: the distance bail-out --------------------------------------------------------


@pytest.mark.parametrize("params, bails", [
    ("", False),                                    # off by default: waits for its Hand
    (":distance_turn=1,max_distance=0", True),      # 1 card from a Hand > 0 from turn 1 on: gives up
    (":distance_turn=1,max_distance=1", False),     # 1 card is close enough
    (":distance_turn=2,max_distance=0", False),     # not yet in its first turn; a Hand in its second
])
def test_hold_hand_gives_up_a_hand_that_is_still_far(params, bails):
    # hand_size 7, seat 0 (starter, 8 cards) KS KH KD QS QH QD 4C 9D: the most-cards arrangement
    # melds 6 (K set, Q set), 2 left over, so it is 2 - 1 = 1 card from going out at once.  Giving
    # up at its first turn, it plays greedy: opens with both sets (60 >= 51) and throws 9D (the
    # higher of 4C and 9D).  Waiting, it throws 9D and lays nothing; in turn 3 it draws KC and goes
    # out with a Hand (K set of 4 + Q set, 4C discarded), as in test_hold_hand_waits_for_a_hand.
    rules = CLASSIC.replace(hand_size=7)
    trace, ev = play(rules, {0: "KS KH KD QS QH QD 4C 9D", 1: "2H 3D 5C 7S 9C 6H 8D"}, stock="10S KC",
                     policies=["hold-hand" + params, "greedy"])
    first = turns_of(ev)[0]
    if bails:
        assert first[0] == "turn 0" and first[-1] == "discard 0 9D"
        assert sorted(first[1:-1]) == ["meld 0 set KS KH KD", "meld 0 set QS QH QD"]
        assert trace["result"]["hand"] is False
    else:
        assert first == ["turn 0", "discard 0 9D"]
        assert trace["result"]["hand"] is True and trace["result"]["out"] == 0
