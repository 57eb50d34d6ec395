"""The built-in players' key decisions on hand-built deals (``handsim/policies/``).

Each test stacks a deck with the helpers of ``tests/test_engine_rules.py`` (the starter's
``hand_size + 1`` cards, then each next seat's, then the stock top first), plays the round and
compares what the player did with the decision worked out by hand in the comments; every deal
is also replayed by the rules checker.
"""

from __future__ import annotations

import pytest

from handsim.games.hand.rules import Rules
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


# --- card-reader: live outs, keep values, feeding, taking, jokers ------------------------------


def _first_turn(ev, seat):
    """The compact events of ``seat``'s first turn."""
    return next(t for t in turns_of(ev) if t[0] == f"turn {seat}")


def test_card_reader_counts_live_outs_of_pairs_and_connectors():
    # card_partial(t, cards, unseen, n_unseen, horizon, ace_low) -> (chance, opening value)
    import numpy as np

    from handsim.cards import parse_card
    from handsim.games.hand.policies.card_reader import card_partial, partials

    def vec(text):
        v = np.zeros(53, dtype=np.int8)
        for c in text.split():
            v[parse_card(c)] += 1
        return v

    ks = parse_card("KS")
    # K-K (spades, hearts): completed by KD or KC, 2 copies each unseen = 4 outs among 50, 5 draws:
    # 1 - (46/50)^5 = 0.340918...; a K set is worth 30
    p, v = card_partial(ks, vec("KS KH"), vec("KD KD KC KC"), 50, 5.0, 1)
    assert p == pytest.approx(1 - 0.92 ** 5) and v == 30.0
    # one copy of each seen: 2 outs, 1 - (48/50)^5 = 0.184627...
    p, v = card_partial(ks, vec("KS KH"), vec("KD KC"), 50, 5.0, 1)
    assert p == pytest.approx(1 - 0.96 ** 5) and v == 30.0
    # every K seen: a dead pair, no partial meld at all
    assert card_partial(ks, vec("KS KH"), vec("QS QS"), 50, 5.0, 1) == (0.0, 0.0)
    # 5S-6S: 4S (2 unseen) or 7S (1 unseen) = 3 outs; the run is worth 5 + 6 + (2*4 + 1*7)/3 = 16
    p, v = card_partial(parse_card("5S"), vec("5S 6S"), vec("4S 4S 7S"), 50, 5.0, 1)
    assert p == pytest.approx(1 - 0.94 ** 5) and v == pytest.approx(16.0)
    # 5S-7S, a gap: only 6S completes it (1 unseen): 5 + 7 + 6 = 18
    p, v = card_partial(parse_card("7S"), vec("5S 7S"), vec("6S 4S 8S"), 50, 5.0, 1)
    assert p == pytest.approx(1 - 0.98 ** 5) and v == pytest.approx(18.0)
    # the best partial wins: 6S with 5S (outs 4S, 7S: 3) rather than with 6H (outs 6D, 6C: 1)
    p_out = np.zeros(53)
    v_out = np.zeros(53)
    partials(vec("5S 6S 6H"), vec("4S 4S 7S 6D"), 50, 5.0, 1, p_out, v_out)
    assert p_out[parse_card("6S")] == pytest.approx(1 - 0.94 ** 5) and v_out[parse_card("6S")] == pytest.approx(16.0)
    assert p_out[parse_card("6H")] == pytest.approx(1 - 0.98 ** 5) and v_out[parse_card("6H")] == 18.0
    assert p_out[parse_card("KS")] == 0.0


@pytest.mark.parametrize("dead, thrown", [("QC QD QH QC QD QS", ("QS", "QH")), ("KS KH KC KS KH KD", ("KC", "KD"))])
def test_card_reader_breaks_the_pair_whose_outs_are_gone(dead, thrown):
    # 3 players, hand_size 7.  Seat 0 (greedy, 8 cards) opens with two sets that hold both copies
    # of the two cards completing one of seat 1's pairs (60 >= 51) and throws 3D.  Seat 1
    # (card-reader) holds four pairs, KC KD, QS QH, 9C 9D and (after drawing 7H) 7S 7H, so it must
    # break one.  The dead pair's cards cost 10 + 3 each with no chance of a set: throwing one of
    # them saves 13 points and loses nothing, while breaking a live pair (4 outs among 91 unseen
    # of 106, 6 draws: 1 - (87/91)^6 = 24 % chance of a set) also loses that chance.  It throws a card of the dead pair.
    rules = CLASSIC.replace(hand_size=7)
    _, ev = play(rules, {0: dead + " 2C 3D", 1: "KC KD QS QH 9C 9D 7S", 2: "2S 4H 6D 8C 10H AD 5C"},
                 stock="7H", policies=["greedy", "card-reader", "greedy"])
    first = _first_turn(ev, 1)
    assert first[:2] == ["turn 1", "draw 1 stock 7H"]
    assert first[-1] in (f"discard 1 {thrown[0]}", f"discard 1 {thrown[1]}")


@pytest.mark.parametrize("ace, pair_value, run_value", [(11, 33.0, 31.0), (10, 30.0, 30.0), (1, 3.0, 21.0)])
def test_card_reader_values_partial_melds_of_aces_by_ace_value(ace, pair_value, run_value):
    # card_partial(t, cards, unseen, n_unseen, horizon, ace_low, ace): AS-AH completes to a set of
    # three Aces, 3 x ace; KS-AS (the Ace high) to Q-K-A by QS, 10 + 10 + ace
    import numpy as np

    from handsim.cards import parse_card
    from handsim.games.hand.policies.card_reader import card_partial

    def vec(text):
        v = np.zeros(53, dtype=np.int8)
        for c in text.split():
            v[parse_card(c)] += 1
        return v

    _, v = card_partial(parse_card("AS"), vec("AS AH"), vec("AD AC"), 50, 5.0, 1, ace)
    assert v == pair_value
    _, v = card_partial(parse_card("KS"), vec("KS AS"), vec("QS QS"), 50, 5.0, 1, ace)
    assert v == pytest.approx(run_value)


@pytest.mark.parametrize("unopened, value", [
    # 5 points of cost; unopened, the melds (30) lack 21 of the 51 needed: open_weight 7 per point,
    # scaled by (unopened_points + 40 points in hand) / 100.
    (100.0, -5 - 7 * 21 * 1.40),  # -210.8
    (0.0, -5 - 7 * 21 * 0.40),  # -63.8: an unopened hand costs only its cards
    (400.0, -5 - 7 * 21 * 4.40),  # -651.8
])
def test_card_reader_weighs_the_opening_it_lacks_by_unopened_points(unopened, value):
    from handsim.games.hand.policies.counting import value_of

    assert value_of(5.0, 0.0, 30, 51, 40, 7.0, unopened) == pytest.approx(value)
    assert value_of(5.0, 0.0, 30, 0, 40, 7.0, unopened) == -5.0  # opened (req 0): no opening term


@pytest.mark.parametrize("policy, thrown", [("card-reader", "4C"), ("greedy", "KS")])
def test_card_reader_keeps_a_high_pair_over_a_lone_4_at_71(policy, thrown):
    # opening_threshold 71, hand_size 8: the starter (9 cards, no draw) holds 2D 3D 4D and 6S 7S 8S
    # (30 points of runs) and K-K plus a lone 4C: it cannot open.  K-K has 4 live outs (KD, KC) among
    # 97 unseen cards over 6 x 71/51 = 8.35 draws: 1 - (93/97)^8.35 = 0.30 chance of a 30-point set,
    # worth ~9 points towards the 71 it lacks 41 of (and the Ks may stop being deadwood), so
    # card-reader throws the 4C (7 points of deadwood, no partner).  Greedy throws its highest card, a K.
    rules = CLASSIC.replace(opening_threshold=71, hand_size=8)
    _, ev = play(rules, {0: "2D 3D 4D 6S 7S 8S KS KH 4C", 1: "2S 4H 6D 8C 10H AD 5C 9C"},
                 policies=[policy, "greedy"])
    assert turns_of(ev)[0] == ["turn 0", f"discard 0 {thrown}"]


@pytest.mark.parametrize("policy, thrown", [("card-reader", "JH"), ("card-reader:feed_weight=0", "KS"),
                                            ("greedy", "KS")])
def test_card_reader_does_not_feed_the_next_player(policy, thrown):
    # 2 players, hand_size 7.  Seat 0 (greedy, 8 cards) opens with 9C 9D 9H and 10S JS QS (57 >= 51)
    # and throws 3D.  Seat 1 (card-reader) cannot take it (it could not open), draws 7S and holds
    # nothing but lone cards: KS and JH are its costliest, 10 points each.  Seat 0, the next player,
    # has opened and may take a discard (must_open): KS fits its 10S JS QS run, JH fits nothing.
    # card-reader throws JH; without feed_weight the two are worth the same and it throws the lower
    # card type, KS, as greedy does (same points, no partner).
    _, ev = play(CLASSIC.replace(hand_size=7), {0: "10S JS QS 9C 9D 9H 2C 3D", 1: "KS JH 2S 4D 6C 8H 3H"}, stock="7S",
                 policies=["greedy", policy])
    first = _first_turn(ev, 1)
    assert first == ["turn 1", "draw 1 stock 7S", f"discard 1 {thrown}"]


@pytest.mark.parametrize("policy, takes", [("card-reader", True), ("greedy", False)])
def test_card_reader_takes_a_discard_that_raises_its_value_without_a_meld(policy, takes):
    # 2 players, hand_size 8.  Seat 0 (greedy, 9 cards, no meld) throws its highest card, KS.  Seat 1
    # (8 cards) can open with QS QD QC and 9D 10D JD (59 >= 51) either way; its other cards are KH
    # and JC, 13 points of deadwood each.  Taking KS (must_open: it opens this turn) and throwing JC
    # leaves K-K, 4 live outs among 97 unseen, 6 draws: 1 - (93/97)^6 = 0.22 chance of a set, so
    # 2 x 13 x 0.78 = 20.3 points expected against 26 now: 5.7 more than the hand without it, above
    # take_margin.  The KS completes no meld, so greedy draws from the stock.
    _, ev = play(CLASSIC.replace(hand_size=8), {0: "KS 2H 4C 6D 8S 3C 5H 7D 2S", 1: "QS QD QC 9D 10D JD KH JC"},
                 stock="5S", policies=["greedy", policy])
    first = _first_turn(ev, 1)
    if takes:
        assert first[1] == "draw 1 discard KS" and first[-1] == "discard 1 JC"
    else:
        assert first[1] == "draw 1 stock 5S"


@pytest.mark.parametrize("penalty, lays", [(15, False), (30, True)])
def test_card_reader_weighs_a_kept_joker_against_joker_penalty(penalty, lays):
    # 2 players, hand_size 9.  Seat 0 (greedy, 10 cards) opens with 9C 9D 9H 9S and 10S JS QS KS,
    # throws 10C (it would raise seat 1's deadwood: not taken) and holds one card: card-reader puts its chance of going out next turn at 0.5.  Seat 1
    # (card-reader, joker_play=1: keep jokers unless needed, joker_hold=10) opens with two sets
    # (60 >= 51) and keeps JK 4S 7D (8C drawn and thrown): it cannot go out, so keeping the joker costs
    # 0.5 x joker_penalty: 7.5 <= 10 at 15 (kept), 15 > 10 at 30 (it lays the joker on a set).
    rules = CLASSIC.replace(hand_size=9, joker_penalty=penalty)
    _, ev = play(rules, {0: "9C 9D 9H 9S 10S JS QS KS 2C 10C", 1: "KH KD KC QH QD QC JK 4S 7D"}, stock="8C",
                 policies=["greedy", "card-reader:joker_play=1,joker_hold=10"])
    first = _first_turn(ev, 1)
    assert first[1] == "draw 1 stock 8C" and first[-1] == "discard 1 8C"
    assert any("JK" in e for e in first[2:-1]) == lays
