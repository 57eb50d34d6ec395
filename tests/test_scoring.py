"""Round scoring (RULES.md section 6): values worked out by hand."""

import pytest

from handsim.cards import parse_cards
from handsim.games.hand.rules import Rules
from handsim.games.hand.scoring import ScoreInputError, round_end_from_json, score_round

CLASSIC = Rules.preset("classic")


def hands(*texts):
    return [parse_cards(t, allow_empty=True) for t in texts]


def test_classic_out_and_card_values():
    # KS 7H 9D = 10 + 7 + 9 = 26; AS JK 2C = 11 + 15 + 2 = 28; QH 10C = 20 (+100 unopened)
    scores = score_round(CLASSIC, 2, False, hands("KS 7H 9D", "AS JK 2C", "", "QH 10C"), [True, True, True, False])
    assert scores == [26, 28, -30, 120]


def test_joker_penalty_30():
    scores = score_round(CLASSIC.replace(joker_penalty=30), 0, False, hands("", "JK JK"), [True, True])
    assert scores == [-30, 60]


def test_hand_doubles_others_including_the_100():
    # seat 1: (10 + 7 + 9 + 100) * 2 = 252; seat 2: (3 + 4) * 2 = 14
    scores = score_round(CLASSIC, 0, True, hands("", "KS 7H 9D", "3C 4C"), [True, False, True])
    assert scores == [-60, 252, 14]


def test_hand_without_doubling():
    rules = CLASSIC.replace(hand_doubles_others=False)
    assert score_round(rules, 0, True, hands("", "KS 7H 9D", "3C 4C"), [True, False, True]) == [-60, 126, 7]


def test_flat_unopened_penalty():
    rules = CLASSIC.replace(unopened_penalty="flat")
    # unopened: exactly 100 whatever the hand; opened: the hand
    assert score_round(rules, 1, False, hands("KS KH KD AS", "", "5D"), [False, True, True]) == [100, -30, 5]
    # flat 100 doubled by a Hand
    assert score_round(rules, 1, True, hands("KS KH KD AS", "", "5D"), [False, True, True]) == [200, -60, 10]


def test_out_hand_and_unopened_points_are_options():
    # out_score -50, hand_score -150, unopened_points 40 (VARIANTS.md #14).
    rules = CLASSIC.replace(out_score=-50, hand_score=-150, unopened_points=40)
    # plain out: seat 1 KS 7H 9D = 26 unopened + 40 = 66; seat 2 opened 3C 4C = 7
    assert score_round(rules, 0, False, hands("", "KS 7H 9D", "3C 4C"), [True, False, True]) == [-50, 66, 7]
    # a Hand doubles both: (26 + 40) * 2 = 132, 7 * 2 = 14
    assert score_round(rules, 0, True, hands("", "KS 7H 9D", "3C 4C"), [True, False, True]) == [-150, 132, 14]
    # flat: exactly 40 for the unopened seat, whatever it holds
    flat = rules.replace(unopened_penalty="flat")
    assert score_round(flat, 0, False, hands("", "KS 7H 9D", "3C 4C"), [True, False, True]) == [-50, 40, 7]
    # unopened_points 0 with "add": the cards only
    assert score_round(rules.replace(unopened_points=0), 0, False, hands("", "KS 7H 9D"), [True, False]) == [-50, 26]


@pytest.mark.parametrize("name, value", [("out_score", 1), ("out_score", -201), ("hand_score", -401),
                                         ("unopened_points", -1), ("unopened_points", 501)])
def test_score_options_refuse_values_outside_their_range(name, value):
    from handsim.games.hand.rules import RulesError

    with pytest.raises(RulesError, match=f"invalid value {value} for rule '{name}'"):
        CLASSIC.replace(**{name: value})


@pytest.mark.parametrize("ace, score1", [(11, 16), (10, 15), (1, 6)])
def test_an_ace_left_in_hand_counts_ace_value(ace, score1):
    # seat 1 (opened) keeps AS 5H: ace + 5; seat 2 (never opened) KS AD: 10 + ace + 100
    rules = CLASSIC.replace(ace_value=ace)
    got = score_round(rules, 0, False, hands("", "AS 5H", "KS AD"), [True, True, False])
    assert got == [-30, score1, 10 + ace + 100]


@pytest.mark.parametrize("value", [0, 12])
def test_ace_value_refuses_values_outside_1_to_11(value):
    from handsim.games.hand.rules import RulesError

    with pytest.raises(RulesError, match=f"invalid value {value} for rule 'ace_value'"):
        CLASSIC.replace(ace_value=value)


def test_void_round_is_all_zero():
    assert score_round(CLASSIC, None, False, hands("KS", "7H 9D", "JK"), [False, True, False]) == [0, 0, 0]


def test_partner_of_the_out_player_scores_zero():
    scores = score_round(CLASSIC, 1, False, hands("KS", "", "7H", "QS QH"), [True, True, True, False],
                         partners=[2, 3, 0, 1])
    assert scores == [10, -30, 7, 0]


def test_out_player_must_have_empty_hand():
    with pytest.raises(ScoreInputError, match=r"hands\[0\]: the out player's hand must be empty, got 1 card$"):
        score_round(CLASSIC, 0, False, hands("KS", "7H"), [True, True])
    with pytest.raises(ScoreInputError, match=r"must be empty, got 2 cards$"):
        round_end_from_json({"out": 0, "hand_finish": False, "hands": ["KS QH", "7H"], "opened": [True, True]},
                            CLASSIC)


def test_counts_in_messages_agree_in_number():
    from handsim.cards import n_of

    assert [n_of(0), n_of(1), n_of(2), n_of(1, "joker")] == ["0 cards", "1 card", "2 cards", "1 joker"]


# --- round_end_from_json ---------------------------------------------------------------


def test_json_round_end():
    obj = {"out": 2, "hand_finish": False, "hands": ["KS 7H 9D", "QH 10C", ""], "opened": [True, False, True]}
    assert round_end_from_json(obj, CLASSIC) == [26, 120, -30]


def test_json_hands_as_lists_and_void():
    obj = {"out": None, "hand_finish": False, "hands": [["KS"], ["7H", "9D"]], "opened": [False, False]}
    assert round_end_from_json(obj, CLASSIC) == [0, 0]


@pytest.mark.parametrize(
    "change, field",
    [
        ({"out": 1}, r"hands\[1\]: the out player's hand must be empty"),
        ({"out": 5}, r"out: expected a seat 0\.\.2 or null"),
        ({"out": True}, r"out:"),
        ({"hand_finish": "yes"}, r"hand_finish:"),
        ({"opened": [True, True]}, r"opened: 2 entries but hands has 3"),
        ({"opened": [True]}, r"opened: 1 entry but hands has 3"),
        ({"opened": [True, 1, True]}, r"opened:"),
        ({"hands": ["KS 7H XX", "QH", ""]}, r"hands\[0\]: bad card 'XX'"),
        ({"hands": ["KS KS", "KS", ""]}, r"hands: 3 copies of KS"),
        ({"hands": ["KS", "", ""]}, r"hands\[1\]: empty"),
        ({"hands": "KS"}, r"hands:"),
        ({"opened": [True, True, False]}, r"opened\[2\]: the out player must have opened"),
        ({"extra": 1}, r"unknown field 'extra'"),
    ],
)
def test_json_errors_name_the_field(change, field):
    obj = {"out": 2, "hand_finish": False, "hands": ["KS 7H 9D", "QH", ""], "opened": [True, True, True]}
    obj.update(change)
    with pytest.raises(ScoreInputError, match=field):
        round_end_from_json(obj, CLASSIC)


def test_json_missing_field_and_not_an_object():
    with pytest.raises(ScoreInputError, match="missing field 'opened'"):
        round_end_from_json({"out": 0, "hand_finish": False, "hands": ["", "KS"]}, CLASSIC)
    with pytest.raises(ScoreInputError, match="expected a JSON object"):
        round_end_from_json([1, 2], CLASSIC)
    assert issubclass(ScoreInputError, ValueError)


def test_json_jokers_limited_by_rules():
    obj = {"out": 0, "hand_finish": False, "hands": ["", "JK JK JK"], "opened": [True, True]}
    with pytest.raises(ScoreInputError, match="3 copies of JK"):
        round_end_from_json(obj, CLASSIC)
    assert round_end_from_json(obj, Rules.preset("qahwa")) == [-30, 90]


# --- partnership, 2 v 2 (RULES.md section 6) ---------------------------------------------

PARTNERSHIP = Rules.preset("partnership")


def test_partners_of():
    from handsim.games.hand.scoring import partners_of

    assert partners_of(PARTNERSHIP, 4) == [2, 3, 0, 1]
    assert partners_of(CLASSIC, 4) is None
    assert partners_of(PARTNERSHIP.replace(opening_scope="team"), 4) == [2, 3, 0, 1]


def test_partnership_hand_doubles_the_opponents_only():
    # seat 0 makes a Hand; seat 2, its partner, scores 0; seat 1 (7 + 9 + 100) * 2 = 232;
    # seat 3 (10 + 10) * 2 = 40
    scores = score_round(PARTNERSHIP, 0, True, hands("", "7H 9D", "KS KH", "QS QH"), [True, False, False, True],
                         partners=[2, 3, 0, 1])
    assert scores == [-60, 232, 0, 40]


def test_json_round_end_in_2v2():
    # seat 1 out; seat 3, its partner, 0; seat 0 26 + 100 (never opened); seat 2 opened: 20
    obj = {"out": 1, "hand_finish": False, "hands": ["KS 7H 9D", "", "QH 10C", "AS AH"],
           "opened": [False, True, True, False]}
    assert round_end_from_json(obj, PARTNERSHIP) == [126, -30, 20, 0]
    # opening_scope=team: seat 0's partner (seat 2) opened, so seat 0 counts as opened
    assert round_end_from_json(obj, PARTNERSHIP.replace(opening_scope="team")) == [26, -30, 20, 0]
    # singles: seat 3 pays its Aces + 100
    assert round_end_from_json(obj, CLASSIC) == [126, -30, 20, 122]


def test_json_round_end_in_2v2_out_player_opened_through_the_partner():
    obj = {"out": 2, "hand_finish": False, "hands": ["KS", "7H", "", "9D"], "opened": [True, False, False, False]}
    with pytest.raises(ScoreInputError, match=r"opened\[2\]: the out player must have opened"):
        round_end_from_json(obj, PARTNERSHIP)
    assert round_end_from_json(obj, PARTNERSHIP.replace(opening_scope="team")) == [0, 107, -30, 109]


def test_json_round_end_2v2_needs_four_hands():
    obj = {"out": 1, "hand_finish": False, "hands": ["KS 7H 9D", "", "QH"], "opened": [True, True, True]}
    with pytest.raises(ScoreInputError, match=r"hands: partnership=true \(2 v 2\) needs 4 hands"):
        round_end_from_json(obj, PARTNERSHIP)
