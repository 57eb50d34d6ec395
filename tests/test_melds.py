"""Meld rules (RULES.md sections 1, 2, 5): values worked out by hand."""

import pytest

from handsim.cards import JOKER, parse_card, parse_cards
from handsim.melds import can_lay_off, can_swap, interpret_meld, validate_meld
from handsim.games.hand.rules import Rules

CLASSIC = Rules.preset("classic")
QAHWA = Rules.preset("qahwa")  # up to 4 jokers per meld


def pairs(text):
    """``"8H 9H JK=10H"`` -> [(8H, 8H), (9H, 9H), (JK, 10H)] as card types."""
    out = []
    for tok in text.split():
        card, _, sf = tok.partition("=")
        c = parse_card(card)
        out.append((c, parse_card(sf) if sf else c))
    return out


def interpret(text, rules=CLASSIC):
    return interpret_meld(parse_cards(text), rules)


# --- validate_meld: sets -----------------------------------------------------------------


def test_set_of_three_kings_is_worth_30():
    m = validate_meld(pairs("KS KH KD"), CLASSIC)
    assert (m.ok, m.kind, m.value, m.reason) == (True, "set", 30, "")


def test_set_of_aces_counts_11_each_joker_included():
    m = validate_meld(pairs("AS AH JK=AD"), CLASSIC)
    assert (m.ok, m.kind, m.value) == (True, "set", 33)


def test_set_with_two_nines_of_hearts_is_illegal():
    m = validate_meld(pairs("9H 9H 9S"), CLASSIC)
    assert not m.ok and m.kind is None and m.value == 0
    assert m.reason == "two 9H in one set"


def test_joker_standing_for_a_suit_already_present_is_illegal():
    m = validate_meld(pairs("9H 9S JK=9H"), CLASSIC)
    assert m.reason == "two 9H in one set"


def test_set_of_five_is_illegal():
    m = validate_meld(pairs("9H 9S 9D 9C JK=9S"), QAHWA)
    assert m.reason == "a set has at most 4 cards (got 5)"


def test_four_card_set_with_joker():
    m = validate_meld(pairs("7S 7H 7D JK=7C"), CLASSIC)
    assert (m.ok, m.kind, m.value) == (True, "set", 28)


# --- validate_meld: runs -----------------------------------------------------------------


def test_run_with_joker_in_the_middle():
    m = validate_meld(pairs("5H JK=6H 7H"), CLASSIC)
    assert (m.ok, m.kind, m.value, m.lo, m.hi) == (True, "run", 18, 5, 7)


def test_ace_low_counts_ace_low_value():
    assert validate_meld(pairs("AS 2S 3S"), CLASSIC).value == 1 + 2 + 3
    assert validate_meld(pairs("AS 2S 3S"), CLASSIC.replace(ace_low_value=11)).value == 11 + 2 + 3


def test_ace_high_counts_11_and_is_put_at_the_top():
    m = validate_meld(pairs("AS KS QS"), CLASSIC)
    assert (m.ok, m.value, m.lo, m.hi) == (True, 31, 12, 14)
    assert m.cards == tuple(pairs("QS KS AS"))


def test_full_13_card_run_from_ace_low():
    m = validate_meld(pairs("AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD"), CLASSIC)
    assert (m.ok, m.value, m.lo, m.hi) == (True, 1 + 54 + 30, 1, 13)


def test_wrap_is_illegal():
    m = validate_meld(pairs("KS AS 2S"), CLASSIC)
    assert not m.ok and "K-A-2 wraps" in m.reason
    assert "K-A-2 wraps" in validate_meld(pairs("QS KS JK=AS 2S"), CLASSIC).reason
    # not a wrap, just a gap: the high reading 3 ... K A misses fewest
    assert validate_meld(pairs("KS AS 3S"), CLASSIC).reason == "not consecutive: missing 4S 5S 6S 7S 8S 9S 10S JS QS"


def test_ace_both_low_and_high_is_illegal():
    m = validate_meld(pairs("AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD"), CLASSIC)
    assert not m.ok and m.reason == "a run has at most 13 cards (got 14)"
    m = validate_meld(pairs("AD 2D AD"), CLASSIC)
    assert not m.ok and m.reason.startswith("two AD in one run")


def test_gap_in_a_run():
    m = validate_meld(pairs("5S 6S 9S"), CLASSIC)
    assert m.reason == "not consecutive: missing 7S 8S"


def test_mixed_suits_and_ranks():
    m = validate_meld(pairs("9H 9S 10H"), CLASSIC)
    assert not m.ok and "neither a set" in m.reason


def test_too_few_cards():
    assert validate_meld(pairs("9H 10H"), CLASSIC).reason == "needs at least 3 cards (got 2)"


def test_joker_limits():
    m = validate_meld(pairs("5H JK=6H JK=7H"), CLASSIC)
    assert m.reason == "2 jokers but max_jokers_per_meld is 1"
    assert validate_meld(pairs("5H JK=6H JK=7H"), QAHWA).value == 18
    m = validate_meld(pairs("JK=5H JK=6H JK=7H"), QAHWA)
    assert m.reason == "0 natural cards but min_natural_cards_per_meld is 1"


def test_natural_must_stand_for_itself_and_joker_for_a_natural():
    assert validate_meld([(parse_card("9H"), parse_card("9S")), *pairs("9D 9C")], CLASSIC).reason == \
        "natural 9H cannot stand for 9S"
    assert "must stand for a natural" in validate_meld([(JOKER, JOKER), *pairs("9D 9C")], CLASSIC).reason


# --- interpret_meld ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "cards, kind, value, jokers",
    [
        ("9H 10H JK", "run", 9 + 10 + 10, ("JH",)),          # joker to the high end
        ("JH QH JK", "run", 30, ("KH",)),                     # 10-J-Q and J-Q-K tie: high end
        ("QH KH JK", "run", 31, ("AH",)),                     # Ace high beats J
        ("AH 2H JK", "run", 6, ("3H",)),                      # Ace low: only the high end is free
        ("KS AS JK", "run", 31, ("QS",)),                     # run already ends at Ace high
        ("7C JK 7D", "set", 21, ("7S",)),                     # jokers take missing suits S H D C
        ("AS KS QS", "run", 31, ()),
    ],
)
def test_interpret_chooses_best_joker(cards, kind, value, jokers):
    m = interpret(cards)
    assert (m.ok, m.kind, m.value) == (True, kind, value)
    assert m.jokers == tuple(parse_card(j) for j in jokers)


def test_interpret_with_two_jokers_picks_highest_value():
    # run 9-10-J = 29 beats the set 9-9-9 = 27
    m = interpret("9H JK JK", QAHWA)
    assert (m.kind, m.value, m.jokers) == ("run", 29, (parse_card("10H"), parse_card("JH")))
    # set A-A-A = 33 beats the run Q-K-A = 31
    m = interpret("AH JK JK", QAHWA)
    assert (m.kind, m.value) == ("set", 33)


def test_interpret_ace_low_worth_more_when_ace_low_value_is_high():
    m = interpret("2H 3H JK", CLASSIC.replace(ace_low_value=11))
    assert (m.value, m.jokers) == (16, (parse_card("AH"),))
    assert interpret("2H 3H JK").jokers == (parse_card("4H"),)


@pytest.mark.parametrize(
    "cards, rules, reason",
    [
        ("9H 9H 9S", CLASSIC, "two 9H in one set"),
        ("9H JK", CLASSIC, "needs at least 3 cards (got 2)"),
        ("9H JK JK", CLASSIC, "2 jokers but max_jokers_per_meld is 1"),
        ("5H 9H JK", CLASSIC, "not consecutive: 3 missing cards but 1 joker"),
        ("9S 9H 9D 9C JK", QAHWA, "a set has at most 4 cards (got 5)"),
        ("5H 6H 6H", CLASSIC, "two 6H in one run"),
    ],
)
def test_interpret_reasons(cards, rules, reason):
    m = interpret(cards, rules)
    assert not m.ok and m.reason == reason


def test_interpret_wraps():
    assert "K-A-2 wraps" in interpret("KH AH 2H").reason
    assert "K-A-2 wraps" in interpret("KH 2H JK").reason  # the joker would have to be the Ace
    assert "neither a set" in interpret("9H 9S 10H").reason


# --- lay-off and joker swap (sections 2 and 5) --------------------------------------------


def test_lay_off_at_either_end_of_a_run():
    run = pairs("5H JK=6H 7H")
    m = can_lay_off(run, parse_card("8H"), None, CLASSIC)
    assert m.ok and m.cards == tuple(pairs("5H JK=6H 7H 8H"))
    m = can_lay_off(run, parse_card("4H"), None, CLASSIC)
    assert m.ok and m.cards == tuple(pairs("4H 5H JK=6H 7H"))


def test_lay_off_that_breaks_the_meld_is_refused():
    run = pairs("5H JK=6H 7H")
    assert "missing 8H" in can_lay_off(run, parse_card("9H"), None, CLASSIC).reason
    assert "max_jokers_per_meld is 1" in can_lay_off(run, JOKER, None, CLASSIC).reason
    kings = pairs("KS KH KD")
    assert can_lay_off(kings, parse_card("KC"), None, CLASSIC).value == 40
    assert "two KS in one set" in can_lay_off(kings, parse_card("KS"), None, CLASSIC).reason


@pytest.mark.parametrize("max_run_length", [13, 5])
def test_max_run_length_bounds_runs_and_lay_offs(max_run_length):
    # RULES.md section 2, VARIANTS.md #5 (JS-a: 5).  3S..7S is 5 cards: legal at 5 and 13
    # (3 + 4 + 5 + 6 + 7 = 25).  3S..8S is 6 cards: legal only at 13 (33).  Laying 8S (or a
    # joker) off on 3S..7S makes 6 cards: refused at 5.
    rules = CLASSIC.replace(max_run_length=max_run_length)
    five = validate_meld(pairs("3S 4S 5S 6S 7S"), rules)
    assert (five.ok, five.kind, five.value) == (True, "run", 25)
    six = validate_meld(pairs("3S 4S 5S 6S 7S 8S"), rules)
    lay = can_lay_off(pairs("3S 4S 5S 6S 7S"), parse_card("8S"), None, rules)
    joker = can_lay_off(pairs("3S 4S 5S 6S 7S"), JOKER, None, rules)
    if max_run_length == 13:
        assert (six.ok, six.value, lay.ok, lay.value, joker.ok) == (True, 33, True, 33, True)
    else:
        assert (six.ok, six.reason) == (False, "a run has at most 5 cards (got 6)")
        assert not lay.ok and not joker.ok
        assert interpret("3S 4S 5S 6S 7S 8S", rules).reason == "a run has at most 5 cards (got 6)"
        # a joker inside counts: 3S 4S JK 6S 7S is 5 cards, 3S 4S JK 6S 7S 8S is 6
        assert interpret("3S 4S JK 6S 7S", rules).ok
        assert not interpret("3S 4S JK 6S 7S 8S", rules).ok


def test_lay_off_joker_declares_or_takes_the_best_place():
    run = pairs("5H 6H 7H")
    assert can_lay_off(run, JOKER, parse_card("4H"), CLASSIC).cards == tuple(pairs("JK=4H 5H 6H 7H"))
    assert can_lay_off(run, JOKER, None, CLASSIC).cards == tuple(pairs("5H 6H 7H JK=8H"))


def test_swap_in_a_run_needs_exactly_the_represented_card():
    run = pairs("5H JK=6H 7H")
    m = can_swap(run, parse_card("6H"), CLASSIC)
    assert m.ok and m.cards == tuple(pairs("5H 6H 7H"))
    assert "can only be swapped for 6H" in can_swap(run, parse_card("6S"), CLASSIC).reason


def test_swap_in_a_set_takes_any_missing_suit():
    nines = pairs("9H 9D JK=9S")
    assert can_swap(nines, parse_card("9S"), CLASSIC).cards == tuple(pairs("9H 9D 9S"))
    assert can_swap(nines, parse_card("9C"), CLASSIC).cards == tuple(pairs("9H 9D 9C"))
    assert can_swap(nines, parse_card("9H"), CLASSIC).reason.endswith("two 9H in one set")
    assert not can_swap(nines, parse_card("8S"), CLASSIC).ok
    assert "no joker" in can_swap(pairs("9H 9D 9S"), parse_card("9C"), CLASSIC).reason


def test_swap_in_a_set_with_two_jokers_moves_the_other_joker():
    nines = pairs("9H 9D JK=9S JK=9C")
    assert can_swap(nines, parse_card("9S"), QAHWA).cards == tuple(pairs("9H 9D 9S JK=9C"))
    # the 9C joker goes, the 9S joker moves to clubs, the one suit the naturals still lack
    m = can_swap(nines, parse_card("9S"), QAHWA, stands_for=parse_card("9C"))
    assert m.cards == tuple(pairs("9H 9D JK=9C 9S"))
    assert "two 9H in one set" in can_swap(nines, parse_card("9H"), QAHWA).reason


def test_lay_off_on_a_set_moves_a_joker_to_a_free_suit():
    nines = pairs("9H 9D JK=9S")
    m = can_lay_off(nines, parse_card("9S"), None, CLASSIC)
    assert m.ok and m.cards == tuple(pairs("9H 9D JK=9C 9S")) and m.value == 36
    # no free suit left for the joker: five cards
    assert "at most 4 cards" in can_lay_off(pairs("9H 9D 9C JK=9S"), parse_card("9S"), None, CLASSIC).reason
    # a joker laid off must stand for the set's rank
    assert not can_lay_off(nines, JOKER, parse_card("8C"), QAHWA).ok


def test_thirteen_card_run_with_an_ace_reads_by_order_and_interprets_high():
    from handsim.cards import parse_cards
    from handsim.melds import interpret_meld, validate_meld
    from handsim.games.hand.rules import Rules

    r = Rules.preset("classic")
    # 2..K + A high: 2+3+...+10 = 54, J Q K = 30, A high 11 -> 95; A low: 1 + 54 + 30 = 85
    high = parse_cards("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH")
    assert interpret_meld(high, r).value == 95
    assert validate_meld([(c, c) for c in high], r).value == 95
    low = parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH")
    assert validate_meld([(c, c) for c in low], r).value == 85
    assert interpret_meld(low, r).value == 95  # the best reading of the same cards


def test_handsim_simulate_is_callable_and_a_module_in_any_order():
    import handsim

    assert callable(handsim.simulate)
    assert callable(handsim.simulate.make_spec)
    from handsim.simulate import simulate

    assert callable(simulate)
