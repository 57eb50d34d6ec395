"""The replay checker (RULES.md sections 2-6, docs/design.md trace format).

Small legal deals are written out by hand (2 players, 4-card hands, a hand-made deck
order), checked clean, then mutated one fault at a time; each fault must be reported.
A random legal player at the end checks that long deals under every preset come out clean.
"""

import json
import random
from collections import Counter, deque

import pytest

from handsim.cards import JOKER, format_card, parse_card
from handsim.games.hand.checker import check_deal, check_file, full_deck
from handsim.melds import can_lay_off, can_swap, validate_meld
from handsim.games.hand.rules import Rules
from handsim.games.hand.scoring import score_round

SMALL = dict(hand_size=4)


# --- building traces by hand -------------------------------------------------------------


def deck_with(front, rules):
    """The full deck: the given cards first, then every other card in card-type order."""
    front = front.split()
    rest = full_deck(rules) - Counter(parse_card(c) for c in front)
    return front + [format_card(t) for t in sorted(rest.elements())]


def draw(card, source="stock"):
    return {"type": "draw", "source": source, "card": card}


def meld(kind, text):
    cards = []
    for tok in text.split():
        card, _, sf = tok.partition("=")
        cards.append([card, sf or card])
    return {"type": "meld", "kind": kind, "cards": cards}


def layoff(index, card, stands_for=None):
    return {"type": "layoff", "meld": index, "card": card, "stands_for": stands_for or card}


def swap(index, card, stands_for):
    return {"type": "swap", "meld": index, "card": card, "stands_for": stands_for}


def discard(card):
    return {"type": "discard", "card": card}


def out(hand=False):
    return {"type": "out", "hand": hand}


def make_trace(rules, dealer, front, hands, turns, result, players=2):
    """A trace per docs/design.md: fills in seats, turn events and meld indices."""
    starter = (dealer + 1) % players if rules.starter == "dealer_right" else dealer
    events, seat, n_melds = [], starter, 0
    for number, actions in enumerate(turns, start=1):
        events.append({"type": "turn", "seat": seat, "turn": number})
        for action in actions:
            ev = dict(action)
            if ev["type"] not in ("reshuffle", "void"):
                ev["seat"] = seat
            if ev["type"] == "meld":
                ev["meld"] = n_melds
                n_melds += 1
            events.append(ev)
        seat = (seat + 1) % players
    return {"deal": 7, "seed": 1, "players": players, "rules": rules.to_dict(),
            "policies": ["test"] * players, "dealer": dealer, "starter": starter,
            "deck": deck_with(front, rules), "hands": [h.split() for h in hands],
            "events": events, "result": result}


def events_of(trace, kind):
    return [ev for ev in trace["events"] if ev["type"] == kind]


# Deal A: seat 0 opens with three Kings, takes a discard, lays off the fourth King, goes out.
RULES_A = Rules.preset("classic", opening_threshold=30, **SMALL)


def deal_a(rules=RULES_A):
    return make_trace(
        rules, dealer=1,
        front="KS KH KD 5C 9D  2H 3H 4H 7C  8C QD KC",
        hands=["KS KH KD 5C 9D", "2H 3H 4H 7C"],
        turns=[
            [meld("set", "KS KH KD"), discard("9D")],                       # 30 points opens
            [draw("8C"), discard("7C")],
            [draw("7C", "discard"), discard("5C")],
            [draw("QD"), discard("8C")],
            [draw("KC"), layoff(0, "KC"), discard("7C"), out()],
        ],
        # seat 1 keeps 2H 3H 4H QD = 19 points, never opened: 119
        result={"void": False, "out": 0, "hand": False, "turns": 5, "opened": [True, False], "scores": [-30, 119]},
    )


# Deal B: a joker run, then the other seat opens, swaps the joker out and lays it off.
RULES_B = Rules.preset("classic", opening_threshold=20, **SMALL)


def deal_b(rules=RULES_B):
    return make_trace(
        rules, dealer=1,
        front="8H 9H JK 4C 2D  10S 10D 10C 10H  6D",
        hands=["8H 9H JK 4C 2D", "10S 10D 10C 10H"],
        turns=[
            [meld("run", "8H 9H JK=10H"), discard("2D")],                   # 27 points
            [draw("6D"), meld("set", "10S 10D 10C"), swap(0, "10H", "10H"),
             layoff(1, "JK", "10H"), discard("6D"), out()],
        ],
        result={"void": False, "out": 1, "hand": False, "turns": 2, "opened": [True, True], "scores": [4, -30]},
    )


# Deal H: the starter (seat 0) lays a four-card run and discards its fifth card: a Hand.
def deal_h(rules=RULES_A, dealer=1):
    return make_trace(
        rules, dealer=dealer,
        front="9S 10S JS QS 4D  2H 3H 4H 7C",
        hands=["9S 10S JS QS 4D", "2H 3H 4H 7C"],
        turns=[[meld("run", "9S 10S JS QS"), discard("4D"), out(hand=True)]],
        # (2 + 3 + 4 + 7 + 100) * 2
        result={"void": False, "out": 0, "hand": True, "turns": 1, "opened": [True, False], "scores": [-60, 232]},
    )


def only(problems, text):
    """The problems contain ``text``; return the matching lines."""
    hits = [p for p in problems if text in p]
    assert hits, f"{text!r} not in {problems}"
    return hits


# --- clean deals --------------------------------------------------------------------------


@pytest.mark.parametrize("build", [deal_a, deal_b, deal_h])
def test_hand_made_deals_are_clean(build):
    assert check_deal(build()) == []


def test_twin_of_the_taken_card_may_be_discarded():
    trace = deal_a()
    # seat 0 holds a 7C of its own (instead of 5C), takes the other 7C and discards a 7C
    trace["deck"] = deck_with("KS KH KD 7C 9D  2H 3H 4H 7C  8C QD KC", RULES_A)
    trace["hands"][0] = "KS KH KD 7C 9D".split()
    events_of(trace, "discard")[2]["card"] = "7C"
    assert check_deal(trace) == []


def deal_j(swap_first=True):
    # seat 1 throws a joker; seat 0 takes it, swaps 10H for the joker of its run (a second
    # joker in hand) and throws a joker: the swapped one, which is legal.  Seat 1 goes out.
    return make_trace(
        RULES_B, dealer=1,
        front="8H 9H JK 10H 2D  10S 10D 10C JK  6D 10H",
        hands=["8H 9H JK 10H 2D", "10S 10D 10C JK"],
        turns=[
            [meld("run", "8H 9H JK=10H"), discard("2D")],
            [draw("6D"), meld("set", "10S 10D 10C"), discard("JK")],
            [draw("JK", "discard"), *([swap(0, "10H", "10H")] if swap_first else []), discard("JK")],
            [draw("10H"), layoff(1, "10H"), discard("6D"), out()],
        ],
        result={"void": False, "out": 1, "hand": False, "turns": 4, "opened": [True, True],
                "scores": [15 if swap_first else 10, -30]})


def test_a_joker_swapped_off_the_table_may_go_after_taking_a_joker():
    assert check_deal(deal_j()) == []
    # without the swap the only joker in hand is the one just taken
    assert check_deal(deal_j(swap_first=False)) == [
        "deal 7, turn 3, seat 0: discarded JK, the card just taken from the discard pile"]


# --- mutations: each one fault ------------------------------------------------------------


def test_wrong_draw_card():
    trace = deal_a()
    events_of(trace, "draw")[0]["card"] = "QD"
    problems = check_deal(trace)
    assert problems == ["deal 7, turn 2, seat 1: drew QD from the stock, but its top card is 8C"]


def test_wrong_discard_pile_card():
    trace = deal_a()
    events_of(trace, "draw")[1]["card"] = "9D"
    assert check_deal(trace) == ["deal 7, turn 3, seat 0: drew 9D from the discard pile, but its top card is 7C"]


def test_illegal_meld():
    trace = deal_a()
    events_of(trace, "meld")[0]["cards"] = [["KS", "KS"], ["KH", "KH"], ["5C", "5C"]]
    only(check_deal(trace), "deal 7, turn 1, seat 0: illegal meld KS KH 5C: KS KH 5C is neither a set")


def test_opening_below_threshold():
    trace = deal_a(RULES_A.replace(opening_threshold=31))
    assert check_deal(trace) == ["deal 7, turn 1, seat 0: opening worth 30 points, below the 31 needed"]


def test_hand_waives_threshold():
    # deal_h's Hand is worth 9 + 10 + 10 + 10 = 39 points, below 51.
    assert check_deal(deal_h(RULES_A.replace(opening_threshold=51))) == [
        "deal 7, turn 1, seat 0: opening worth 39 points, below the 51 needed"]
    assert check_deal(deal_h(RULES_A.replace(opening_threshold=51, hand_waives_threshold=True))) == []
    # deal_a's opening (30) below 31 keeps 5C: no Hand, so nothing is waived
    assert check_deal(deal_a(RULES_A.replace(opening_threshold=31, hand_waives_threshold=True))) == [
        "deal 7, turn 1, seat 0: opening worth 30 points, below the 31 needed and no Hand to waive it "
        "(hand_waives_threshold): 1 card left in the hand"]


def test_discarding_the_card_just_taken():
    trace = deal_a()
    discards = events_of(trace, "discard")
    discards[2]["card"] = "7C"   # turn 3: takes 7C and throws it back
    discards[4]["card"] = "5C"   # turn 5: keeps the books balanced
    assert check_deal(trace) == ["deal 7, turn 3, seat 0: discarded 7C, the card just taken from the discard pile"]


def test_lost_card_player_goes_out_holding_a_card():
    trace = deal_a()
    trace["events"].remove(events_of(trace, "discard")[4])  # the last 7C vanishes
    only(check_deal(trace), "deal 7, turn 5, seat 0: out, but the hand still holds 7C")


def test_lost_card_deck_not_complete():
    trace = deal_a()
    trace["deck"][-1] = "KC"  # one card replaced by a third King of clubs
    only(check_deal(trace), "deal 7: deck: not the full 106-card deck: missing")


def test_dealt_hands_must_match_the_deck():
    trace = deal_a()
    trace["hands"][1] = ["2H", "3H", "4H", "8C"]
    assert check_deal(trace) == ["deal 7: hands[1]: not the cards dealt from the deck: missing 7C, extra 8C"]


def test_wrong_score():
    trace = deal_a()
    trace["result"]["scores"] = [-30, 19]
    assert check_deal(trace) == ["deal 7: result: scores is [-30, 19], but the replay gives [-30, 119]"]


def test_wrong_result_fields():
    trace = deal_a()
    trace["result"].update(turns=4, opened=[True, True])
    problems = check_deal(trace)
    assert problems == ["deal 7: result: turns is 4, but the replay gives 5",
                        "deal 7: result: opened is [true, true], but the replay gives [true, false]"]


def test_joker_left_is_checked_when_the_trace_has_it():
    trace = deal_a()
    assert check_deal(dict(trace, result=dict(trace["result"], joker_left=[False, False]))) == []
    trace["result"]["joker_left"] = [False, True]  # nobody holds a joker at the end of deal_a
    assert check_deal(trace) == ["deal 7: result: joker_left is [false, true], but the replay gives [false, false]"]


def test_engine_flags_a_joker_left_in_hand_and_the_checker_agrees():
    from handsim.games.hand.trace import trace_deal

    rules = Rules.preset("classic", opening_threshold=91)  # many unopened hands keep their jokers
    held = 0
    for deal in range(40):
        tr = trace_deal(rules, "greedy,greedy,greedy,random", deal, 3)
        assert check_deal(tr) == []
        left = tr["result"]["joker_left"]
        held += sum(left)
        # the flag is exactly "a joker among the cards scored at the end"
        tr["result"]["joker_left"] = [not x for x in left]
        assert len(check_deal(tr)) == 1
    assert held > 0


def test_hand_flag_wrong_when_laid_down_before():
    trace = deal_a()
    events_of(trace, "out")[0]["hand"] = True
    assert check_deal(trace) == [
        "deal 7, turn 5, seat 0: out event says hand=true, but this is no Hand: "
        "cards were laid down in an earlier turn"]


def test_hand_flag_missing_on_a_real_hand():
    trace = deal_h()
    events_of(trace, "out")[0]["hand"] = False
    trace["result"].update(hand=False, scores=[-30, 116])
    assert check_deal(trace) == [
        "deal 7, turn 1, seat 0: out event says hand=false, but this is a Hand (all cards laid down in one turn)",
        "deal 7: result: hand is false, but the replay gives true",
        "deal 7: result: scores is [-30, 116], but the replay gives [-60, 232]",
    ]


def test_hand_flag_wrong_after_touching_another_players_meld():
    trace = deal_b()
    events_of(trace, "out")[0]["hand"] = True
    only(check_deal(trace), "this is no Hand: a card went onto another player's meld this turn")


def test_hand_needs_hand_min_new_meld_cards():
    # qahwa: the dealer (seat 0) starts; 4 cards in new melds are fewer than 14, so no Hand; unopened pays flat 100
    rules = Rules.preset("qahwa", opening_threshold=30, **SMALL)
    trace = deal_h(rules, dealer=0)
    assert check_deal(trace)[0] == ("deal 7, turn 1, seat 0: out event says hand=true, but this is no Hand: "
                                    "only 4 cards went into new melds, hand_min_new_meld_cards is 14")
    events_of(trace, "out")[0]["hand"] = False
    trace["result"].update(hand=False, scores=[-30, 100])
    assert check_deal(trace) == []


def test_go_out_requires_discard():
    rules = RULES_A.replace(go_out_requires_discard=True)
    trace = make_trace(
        rules, dealer=1, front="9S 10S JS QS KS  2H 3H 4H 7C", hands=["9S 10S JS QS KS", "2H 3H 4H 7C"],
        turns=[[meld("run", "9S 10S JS QS KS"), out(hand=True)]],
        result={"void": False, "out": 0, "hand": True, "turns": 1, "opened": [True, False], "scores": [-60, 232]})
    assert check_deal(trace) == [
        "deal 7, turn 1, seat 0: went out by melding the last card, but go_out_requires_discard is true"]
    trace["rules"] = RULES_A.to_dict()
    assert check_deal(trace) == []


def test_layoff_and_swap_need_an_opening():
    trace = deal_b(RULES_B.replace(opening_threshold=31))
    assert check_deal(trace) == [
        "deal 7, turn 1, seat 0: opening worth 27 points, below the 31 needed",
        "deal 7, turn 2, seat 1: joker swap before opening "
        "(the melds of this turn are worth 30 of the 31 points needed)",
        "deal 7, turn 2, seat 1: lay-off before opening (the melds of this turn are worth 30 of the 31 points needed)",
        "deal 7, turn 2, seat 1: opening worth 30 points, below the 31 needed",
    ]


def test_layoff_on_opening_turn_switch():
    problems = check_deal(deal_b(RULES_B.replace(layoff_on_opening_turn=False)))
    assert problems == [
        "deal 7, turn 2, seat 1: joker swap in the opening turn, but layoff_on_opening_turn is false",
        "deal 7, turn 2, seat 1: lay-off in the opening turn, but layoff_on_opening_turn is false",
    ]


def test_joker_swap_switch_and_wrong_swap_card():
    assert check_deal(deal_b(RULES_B.replace(joker_swap=False))) == [
        "deal 7, turn 2, seat 1: joker swap, but joker_swap is false"]
    trace = deal_b()
    events_of(trace, "swap")[0]["stands_for"] = "9H"
    only(check_deal(trace), "no joker stands for 9H")


@pytest.mark.parametrize("named", ["9S", "9C"])
def test_swap_in_a_set_for_any_missing_suit(named):
    # the set's joker stands for 9S; a 9C takes its place (RULES.md section 5).  The swap
    # event may name the joker's card (9S) or, the set's jokers being interchangeable, 9C.
    trace = make_trace(
        RULES_B, dealer=1,
        front="9H 9D JK 4C 2D  KS KH KD 9C  6D",
        hands=["9H 9D JK 4C 2D", "KS KH KD 9C"],
        turns=[
            [meld("set", "9H 9D JK=9S"), discard("2D")],
            [draw("6D"), meld("set", "KS KH KD"), swap(0, "9C", named), layoff(1, "JK", "KC"), discard("6D"), out()],
        ],
        result={"void": False, "out": 1, "hand": False, "turns": 2, "opened": [True, True], "scores": [4, -30]})
    assert check_deal(trace) == []
    events_of(trace, "swap")[0]["card"] = "9H"  # the set already holds a 9H
    trace["deck"] = deck_with("9H 9D JK 4C 2D  KS KH KD 9H  6D", RULES_B)
    trace["hands"][1] = ["KS", "KH", "KD", "9H"]
    only(check_deal(trace), "deal 7, turn 2, seat 1: illegal joker swap on meld 0: swapping 9H for a joker of "
                            "9H 9D JK=9S: two 9H in one set")


def test_illegal_layoff():
    trace = deal_b()
    events_of(trace, "layoff")[0]["stands_for"] = "9S"  # a joker standing for 9S on a set of tens
    only(check_deal(trace), "deal 7, turn 2, seat 1: illegal lay-off on meld 1: cannot lay off JK=9S on 10S 10D 10C")


def test_kind_and_position_order_of_a_run():
    trace = deal_b()
    ev = events_of(trace, "meld")[0]
    ev["kind"] = "set"
    ev["cards"] = [["9H", "9H"], ["8H", "8H"], ["JK", "10H"]]
    problems = check_deal(trace)
    assert problems == [
        "deal 7, turn 1, seat 0: meld 9H 8H JK=10H recorded as kind 'set', but it is a run",
        "deal 7, turn 1, seat 0: run 9H 8H JK=10H not in position order (8H 9H JK=10H)",
    ]


# Deal N: seat 1 takes a discard into a new set; seat 0 takes a discard and lays it off.
def deal_n(pickup):
    rules = Rules.preset("classic", opening_threshold=20, discard_pickup=pickup, **SMALL)
    return make_trace(
        rules, dealer=1,
        front="KS KH KD 9C 5D  9H 9S KC 3D",
        hands=["KS KH KD 9C 5D", "9H 9S KC 3D"],
        turns=[
            [meld("set", "KS KH KD"), discard("9C")],
            [draw("9C", "discard"), meld("set", "9H 9S 9C"), discard("KC")],
            [draw("KC", "discard"), layoff(0, "KC"), discard("5D"), out()],
        ],
        result={"void": False, "out": 0, "hand": False, "turns": 3, "opened": [True, True], "scores": [-30, 3]},
    )


def test_discard_pickup_rules():
    assert check_deal(deal_n("must_open")) == []
    assert check_deal(deal_n("new_meld_only")) == [
        "deal 7, turn 3, seat 0: took KC from the discard pile but did not put it into a new meld "
        "(it was laid off) (discard_pickup=new_meld_only)"]


def test_must_open_using_lets_opened_players_take_freely():
    # Deal N's seat 0, opened, takes KC and lays it off: legal under must_open_using (KA).
    assert check_deal(deal_n("must_open_using")) == []


def deal_laid_off_taken(pickup):
    """Seat 1 (unopened) takes 9C, opens with 9H 9S 9D (27 >= 20), lays 9C off on it and goes out
    with its last card 3D: a Hand (only its own meld touched).  Seat 0 keeps 5D: 5, doubled 10."""
    rules = Rules.preset("classic", opening_threshold=20, discard_pickup=pickup, **SMALL)
    return make_trace(
        rules, dealer=1,
        front="KS KH KD 9C 5D  9H 9S 9D 3D",
        hands=["KS KH KD 9C 5D", "9H 9S 9D 3D"],
        turns=[
            [meld("set", "KS KH KD"), discard("9C")],
            [draw("9C", "discard"), meld("set", "9H 9S 9D"), layoff(1, "9C"), discard("3D"), out(hand=True)],
        ],
        result={"void": False, "out": 1, "hand": True, "turns": 2, "opened": [True, True], "scores": [10, -60]},
    )


def test_must_open_using_needs_the_taken_card_in_the_opening():
    assert check_deal(deal_laid_off_taken("must_open")) == []
    assert check_deal(deal_laid_off_taken("must_open_using")) == [
        "deal 7, turn 2, seat 1: took 9C from the discard pile and opened without it in a new meld "
        "(it was laid off) (discard_pickup=must_open_using)"]


def test_opening_requires_discard_pickup():
    # Deal N under opening_requires_discard_pickup: seat 0 opens in turn 1 (no draw) and keeps 5D:
    # no Hand.  Seat 1's opening in turn 2 holds the 9C it took: legal.
    trace = deal_n("must_open")
    trace["rules"]["opening_requires_discard_pickup"] = True
    assert check_deal(trace) == [
        "deal 7, turn 1, seat 0: opened without taking the top discard, and the turn is no Hand: "
        "1 card left in the hand (opening_requires_discard_pickup)"]
    # Seat 1's 9C laid off instead of melded (deal_laid_off_taken): refused too.
    trace = deal_laid_off_taken("must_open")
    trace["rules"]["opening_requires_discard_pickup"] = True
    problems = check_deal(trace)
    only(problems, "deal 7, turn 2, seat 1: took 9C from the discard pile and opened without it in a new meld "
                   "(it was laid off) (opening_requires_discard_pickup)")


def test_opening_requires_discard_pickup_exempts_a_hand():
    # Seat 0 (KS 2H 5D 7C 8S) throws KS; seat 1 draws 9C from the stock and lays 9H 9S 9D 9C down
    # (36 >= 20), throws QH: a Hand from a stock draw, legal.  Seat 0: 22 + 100, doubled: 244.
    rules = Rules.preset("classic", opening_threshold=20, opening_requires_discard_pickup=True, **SMALL)
    trace = make_trace(
        rules, dealer=1,
        front="KS 2H 5D 7C 8S  9H 9S 9D QH 9C",
        hands=["KS 2H 5D 7C 8S", "9H 9S 9D QH"],
        turns=[
            [discard("KS")],
            [draw("9C"), meld("set", "9H 9S 9D 9C"), discard("QH"), out(hand=True)],
        ],
        result={"void": False, "out": 1, "hand": True, "turns": 2, "opened": [False, True], "scores": [244, -60]},
    )
    assert check_deal(trace) == []


def test_unopened_player_taking_the_discard_must_open():
    trace = deal_n("must_open")
    turn2 = trace["events"].index(events_of(trace, "meld")[1])
    del trace["events"][turn2]  # seat 1 takes 9C but lays nothing
    trace["events"][turn2]["card"] = "3D"  # and discards 3D, keeps KC
    problems = check_deal(trace)
    only(problems, "deal 7, turn 2, seat 1: took 9C from the discard pile without opening (discard_pickup=must_open)")


def test_ascending_opening_rule():
    rules = Rules.preset("saudi", opening_threshold=20, **SMALL)
    trace = make_trace(
        rules, dealer=1,
        front="JH QH JK 4C 2D  10S 10D 10C 5S  6D 10H",
        hands=["JH QH JK 4C 2D", "10S 10D 10C 5S"],
        turns=[
            [meld("run", "JH QH JK=KH"), discard("2D")],          # 30
            [draw("6D"), meld("set", "10S 10D 10C"), discard("5S")],  # 30 again: needs 31
            [draw("10H"), layoff(0, "10H"), discard("4C"), out()],
        ],
        result={"void": False, "out": 0, "hand": False, "turns": 3, "opened": [True, True], "scores": [-30, 6]})
    assert check_deal(trace) == [
        "deal 7, turn 2, seat 1: opening worth 30 points, below the 31 needed "
        "(ascending: the best opening so far is 30)"]
    trace["rules"] = Rules.preset("classic", opening_threshold=20, **SMALL).to_dict()
    assert check_deal(trace) == []
    # ascending_increment 0: an opening equal to the best one before it is enough
    trace["rules"] = rules.replace(ascending_increment=0).to_dict()
    assert check_deal(trace) == []


def test_turn_order():
    trace = deal_a()
    trace["events"][0]["seat"] = 1
    assert check_deal(trace) == ["deal 7, turn 1, seat 0: turn of seat 1, but seat 0 plays now"]
    trace = deal_a()
    trace["starter"] = 1
    only(check_deal(trace), "starter is seat 1, but with starter=dealer_right and dealer 1 it is seat 0")


def test_starter_first_turn_has_no_draw_and_later_turns_one():
    trace = deal_a()
    trace["events"].insert(1, {"type": "draw", "seat": 0, "source": "stock", "card": "8C"})
    only(check_deal(trace), "deal 7, turn 1, seat 0: a draw in the starter's first turn, which has none")
    trace = deal_a()
    trace["events"].remove(events_of(trace, "draw")[0])
    only(check_deal(trace), "deal 7, turn 2, seat 1: discard before the draw")


def test_second_draw_in_a_turn():
    trace = deal_a()
    i = trace["events"].index(events_of(trace, "draw")[0])
    trace["events"].insert(i + 1, {"type": "draw", "seat": 1, "source": "stock", "card": "QD"})
    only(check_deal(trace), "deal 7, turn 2, seat 1: a second draw in one turn")


def test_playing_a_card_not_in_the_hand():
    trace = deal_a()
    events_of(trace, "meld")[0]["cards"][2] = ["KC", "KC"]
    assert check_deal(trace) == ["deal 7, turn 1, seat 0: melded KC, not in the hand (KS KH 9D KD 5C)"]


def test_reshuffle_must_be_followed_by_a_stock_draw():
    trace = deal_r(1, 1)
    i = trace["events"].index(events_of(trace, "reshuffle")[0])
    top = [ev for ev in trace["events"][:i] if ev["type"] == "discard"][-1]["card"]
    trace["events"][i + 1].update(source="discard", card=top)
    only(check_deal(trace),
         "deal 7, turn 99, seat 0: reshuffled the pile into the stock, then drew from the discard pile")


def test_deal_follows_design():
    from handsim.games.hand.checker import GameState

    rules = Rules.preset("classic")
    deck = [parse_card(c) for c in deck_with("", rules)]
    state = GameState(rules, 3, deck, starter=2)
    # the starter takes deck[0..14], then seats 0 and 1 take 14 cards each, in playing order
    assert state.hand_cards(2) == sorted(deck[0:15])
    assert state.hand_cards(0) == sorted(deck[15:29])
    assert state.hand_cards(1) == sorted(deck[29:43])
    assert state.held == [14, 14, 15]
    assert list(state.stock) == deck[43:] and len(state.stock) == 106 - 43
    assert state.all_cards() == full_deck(rules)


def test_malformed_traces():
    assert check_deal([]) == ["deal ?: a trace is a JSON object, got list"]
    trace = deal_a()
    trace["rules"]["jokerz"] = 2
    only(check_deal(trace), "deal 7: rules: unknown rule 'jokerz'")
    trace = deal_a()
    trace["events"][4]["type"] = "peek"  # the draw of turn 2
    only(check_deal(trace), "deal 7, turn 2, seat 1: unknown event")


def test_events_after_out_and_missing_discard():
    trace = deal_a()
    trace["events"].append({"type": "turn", "seat": 1, "turn": 6})
    assert check_deal(trace) == ["deal 7, turn 5, seat 0: turn event after the round ended"]
    trace = deal_a()
    trace["events"].remove(events_of(trace, "discard")[1])  # seat 1 keeps 7C in turn 2
    only(check_deal(trace), "deal 7, turn 2, seat 1: the turn ended without a discard")


# Deal R: nobody melds; every player draws from the stock and discards that card until the
# stock runs out.  With hand_size 4 and 2 players, 9 cards are dealt and the stock holds 97.
def deal_r(max_reshuffles, reshuffles_done, void=True):
    rules = Rules.preset("classic", max_reshuffles=max_reshuffles, **SMALL)
    deck = deck_with("", rules)
    hands = [deck[0:5], deck[5:9]]
    stock, pile = deque(deck[9:]), []
    turns = [[discard(hands[0][0])]]
    pile.append(hands[0][0])
    done = 0
    while True:
        actions = []
        if not stock:
            if done == reshuffles_done:
                if void:
                    actions.append({"type": "void"})
                turns.append(actions)
                break
            new = pile[:-1][::-1]
            actions.append({"type": "reshuffle", "stock": new})
            stock, pile, done = deque(new), pile[-1:], done + 1
        card = stock.popleft()
        actions += [draw(card), discard(card)]
        pile.append(card)
        turns.append(actions)
    trace = make_trace(rules, dealer=1, front=" ".join(deck), hands=[" ".join(h) for h in hands], turns=turns,
                       result={"void": True, "out": None, "hand": False, "turns": len(turns),
                               "opened": [False, False], "scores": [0, 0]})
    return trace


def test_void_when_the_stock_runs_out_without_reshuffles():
    trace = deal_r(0, 0)
    assert trace["result"]["turns"] == 99  # turn 1 discards, turns 2..98 draw all 97 stock cards
    assert check_deal(trace) == []


def test_reshuffle_then_void():
    trace = deal_r(1, 1)
    (ev,) = events_of(trace, "reshuffle")
    assert len(ev["stock"]) == 97  # 98 discards minus the top one
    assert trace["result"]["turns"] == 99 + 97
    assert check_deal(trace) == []


def test_void_while_a_reshuffle_is_left():
    trace = deal_r(1, 0)
    assert check_deal(trace) == [
        "deal 7, turn 99, seat 0: void after 0 reshuffles, but max_reshuffles is 1 "
        "and the pile holds 97 cards to reshuffle"]


def test_reshuffle_beyond_max():
    trace = deal_r(1, 1)
    trace["rules"]["max_reshuffles"] = 0
    only(check_deal(trace), "deal 7, turn 99, seat 0: reshuffle number 1, but max_reshuffles is 0")


def test_reshuffle_losing_a_card():
    trace = deal_r(1, 1)
    lost = events_of(trace, "reshuffle")[0]["stock"].pop()
    assert check_deal(trace) == [
        f"deal 7, turn 99, seat 0: reshuffle: the new stock is not the discard pile minus its top card: missing {lost}"]


def test_reshuffle_while_stock_not_empty():
    trace = deal_r(0, 0)
    trace["events"].insert(3, {"type": "reshuffle", "stock": []})  # inside turn 2, before the draw
    assert check_deal(trace) == ["deal 7, turn 2, seat 1: reshuffle while the stock still holds 97 cards"]


def test_events_ending_without_out_or_void():
    trace = deal_r(0, 0, void=False)
    assert check_deal(trace) == ["deal 7, turn 99, seat 0: the events end without an out or void event"]


def test_check_file(tmp_path):
    bad = deal_a()
    bad["deal"] = 8
    bad["result"]["scores"] = [-30, 19]
    path = tmp_path / "trace.jsonl"
    path.write_text(json.dumps(deal_a()) + "\n\n" + json.dumps(bad) + "\n{oops\n")
    n, problems = check_file(path)
    assert n == 3
    assert problems[0] == (8, "deal 8: result: scores is [-30, 19], but the replay gives [-30, 119]")
    assert problems[1][0] is None and problems[1][1].startswith("line 4: not a JSON object")
    assert len(problems) == 2


# --- card conservation: the checker's own bookkeeping is checked too ----------------------


@pytest.mark.parametrize("event, patched, build, lost, turn, seat", [
    ("meld", "validate_meld", deal_a, "KS", 1, 0),    # KS KH KD laid
    ("layoff", "can_lay_off", deal_a, "KC", 5, 0),    # KC laid off on KS KH KD
    ("swap", "can_swap", deal_b, "10H", 2, 1),        # 10H takes the joker's place in 8H 9H JK=10H
])
def test_conservation_catches_a_table_meld_that_changes_cards(monkeypatch, event, patched, build, lost, turn, seat):
    # a meld rule that hands back the meld with one card replaced by a QS breaks conservation:
    # the check of that event must say so (and the replay stops there)
    from dataclasses import replace

    import handsim.games.hand.checker as checker

    real = getattr(checker, patched)
    lost_t, qs = parse_card(lost), parse_card("QS")

    def fake(*args, **kwargs):
        check = real(*args, **kwargs)
        if check.ok and any(c == lost_t for c, _ in check.cards):
            cards = [(qs, qs) if c == lost_t else (c, sf) for c, sf in check.cards]
            return replace(check, cards=tuple(cards))
        return check

    monkeypatch.setattr(checker, patched, fake)
    assert check_deal(build()) == [f"deal 7, turn {turn}, seat {seat}: after the {event} event the cards are "
                                   f"not the deck: missing {lost}, extra QS"]


def test_conservation_recount_at_the_end_of_each_turn(monkeypatch):
    # a bookkeeping slip that no single event check sees (a card vanishing from the stock) is
    # caught by the recount when the turn ends
    import handsim.games.hand.checker as checker

    real = checker._Replay.on_discard

    def leaky(self, ev):
        real(self, ev)
        if self.turn.number == 2:
            self.state.stock.pop()  # the bottom card of the stock disappears

    monkeypatch.setattr(checker._Replay, "on_discard", leaky)
    trace = deal_a()
    lost = trace["deck"][-1]
    assert check_deal(trace) == [f"deal 7, turn 2, seat 1: after the discard event the cards are not the deck: "
                                 f"missing {lost}"]


# --- partnership, 2 v 2 (RULES.md sections 4, 6 and 7) -----------------------------------
#
# Four seats, partners opposite (0 & 2, 1 & 3).  dealer 3, so seat 0 starts; 4-card hands.


def partnership_rules(scope="player", **kw):
    return Rules.preset("partnership", opening_scope=scope, opening_threshold=30, **{**SMALL, **kw})


# Deal P: seat 0 opens with three Kings, seat 3 opens with three tens, seat 0 lays off the
# fourth King and goes out (no Hand).  With ``take`` seat 2 takes seat 1's 7C from the pile
# without laying anything down (allowed with opening_scope=team: its partner has opened).
def deal_p(rules, take=False, result=None):
    return make_trace(
        rules, dealer=3, players=4,
        front="KS KH KD 5C 9D  2H 3H 4H 7C  2S 6D 8C QC  10S 10D 10C 3S  8H " + ("" if take else "5S ") + "JS KC",
        hands=["KS KH KD 5C 9D", "2H 3H 4H 7C", "2S 6D 8C QC", "10S 10D 10C 3S"],
        turns=[
            [meld("set", "KS KH KD"), discard("9D")],                              # seat 0: 30 opens
            [draw("8H"), discard("7C")],                                           # seat 1
            [draw("7C", "discard") if take else draw("5S"), discard("QC")],        # seat 2
            [draw("JS"), meld("set", "10S 10D 10C"), discard("JS")],               # seat 3: 30 opens
            [draw("KC"), layoff(0, "KC"), discard("5C"), out()],                   # seat 0 out
        ],
        result=result,
    )


def test_partnership_normal_finish_partner_scores_zero():
    # seat 0 out: -30.  Seat 2, its partner: 0 (it holds 2S 6D 8C 5S = 21 and never opened).
    # Seat 1 keeps 2H 3H 4H 8H = 17 and never opened: 117.  Seat 3 opened, keeps 3S: 3.
    result = {"void": False, "out": 0, "hand": False, "turns": 5, "opened": [True, False, False, True],
              "scores": [-30, 117, 0, 3]}
    assert check_deal(deal_p(partnership_rules(), result=result)) == []
    # the same deal between four single players: seat 2 pays 21 + 100
    singles = deal_p(partnership_rules(partnership=False), result=result)
    assert check_deal(singles) == [
        "deal 7: result: scores is [-30, 117, 0, 3], but the replay gives [-30, 117, 121, 3]"]
    singles["result"]["scores"] = [-30, 117, 121, 3]
    assert check_deal(singles) == []


def test_partnership_team_opening_covers_the_partner():
    # opening_scope=team: seat 2 (partner of seat 0, opened in turn 1) may take the discard
    # without laying down; seat 1 counts as opened once its partner seat 3 opened (turn 4), so
    # it pays 17 without the 100.  Every seat's opened flag is the team's.
    result = {"void": False, "out": 0, "hand": False, "turns": 5, "opened": [True, True, True, True],
              "scores": [-30, 17, 0, 3]}
    assert check_deal(deal_p(partnership_rules("team"), take=True, result=result)) == []
    # opening_scope=player: seat 2 has not opened, so taking the discard is illegal, and seat 1
    # pays the 100
    trace = deal_p(partnership_rules("player"), take=True, result=result)
    assert check_deal(trace) == [
        "deal 7, turn 3, seat 2: took 7C from the discard pile without opening (discard_pickup=must_open)",
        "deal 7: result: opened is [true, true, true, true], but the replay gives [true, false, false, true]",
        "deal 7: result: scores is [-30, 17, 0, 3], but the replay gives [-30, 117, 0, 3]",
    ]


@pytest.mark.parametrize("scope", ["player", "team"])
def test_partnership_hand_doubles_both_opponents_not_the_partner(scope):
    # seat 0 lays 9S 10S JS QS and discards 4D in its first turn: a Hand, -60.  Opponents:
    # seat 1 (2 + 3 + 4 + 7 + 100) * 2 = 232, seat 3 (3 + 5 + 7 + 9 + 100) * 2 = 248; the
    # partner, seat 2: 0 (not doubled, though it holds 2S 6D 8C QC and never opened).
    rules = partnership_rules(scope)
    trace = make_trace(
        rules, dealer=3, players=4,
        front="9S 10S JS QS 4D  2H 3H 4H 7C  2S 6D 8C QC  3D 5D 7H 9C",
        hands=["9S 10S JS QS 4D", "2H 3H 4H 7C", "2S 6D 8C QC", "3D 5D 7H 9C"],
        turns=[[meld("run", "9S 10S JS QS"), discard("4D"), out(hand=True)]],
        result={"void": False, "out": 0, "hand": True, "turns": 1,
                "opened": [True, False, scope == "team", False], "scores": [-60, 232, 0, 248]})
    assert check_deal(trace) == []
    trace["result"]["scores"] = [-60, 232, 2 * (2 + 6 + 8 + 10 + 100), 248]  # partner doubled: wrong
    assert check_deal(trace) == [
        "deal 7: result: scores is [-60, 232, 252, 248], but the replay gives [-60, 232, 0, 248]"]


# Deal T (5-card hands): seat 0 opens with three Kings; its partner, seat 2, then lays
# AH 2H 3H 4H (10 points with the Ace low) in turn 3 and goes out in turn 7 by laying off 5H.
def deal_t(rules, seat0_opens=True):
    return make_trace(
        rules, dealer=3, players=4,
        front="KS KH KD 5C 9D 8S  2C 3D 5H 7S 9H  AH 2H 3H 4H QC  6C 7D 8H JC QS  JD 6S 4S 2S 3C 5H",
        hands=["KS KH KD 5C 9D 8S", "2C 3D 5H 7S 9H", "AH 2H 3H 4H QC", "6C 7D 8H JC QS"],
        turns=[
            [meld("set", "KS KH KD"), discard("9D")] if seat0_opens else [discard("9D")],
            [draw("JD"), discard("JD")],
            [draw("6S"), meld("run", "AH 2H 3H 4H"), discard("QC")],
            [draw("4S"), discard("4S")],
            [draw("2S"), discard("2S")],
            [draw("3C"), discard("3C")],
            [draw("5H"), layoff(1 if seat0_opens else 0, "5H"), discard("6S"), out()],
        ],
        # seat 2 out; seat 0 its partner 0; seat 1 2C 3D 5H 7S 9H = 26 + 100; seat 3
        # 6C 7D 8H JC QS = 41 + 100 (their team never opened)
        result={"void": False, "out": 2, "hand": False, "turns": 7,
                "opened": [seat0_opens or rules.opening_scope == "team", False, True, False],
                "scores": [0, 126, -30, 141]})


def test_team_opening_lets_the_partner_lay_a_small_meld():
    assert check_deal(deal_t(partnership_rules("team", hand_size=5))) == []
    # opening_scope=player: the partner's 10 points are its own opening, below the 30 needed
    assert check_deal(deal_t(partnership_rules("player", hand_size=5))) == [
        "deal 7, turn 3, seat 2: opening worth 10 points, below the 30 needed"]


def test_team_opening_needs_the_partner_to_have_opened_first():
    # seat 0 does not open: seat 2's 10-point run is an opening and is rejected, team or not
    # (with team, the rejected opening still counts as the team's: seat 0's flag is true)
    for scope in ("team", "player"):
        assert check_deal(deal_t(partnership_rules(scope, hand_size=5), seat0_opens=False)) == [
            "deal 7, turn 3, seat 2: opening worth 10 points, below the 30 needed"]


@pytest.mark.parametrize("scope", ["team", "player"])
def test_team_partner_lay_down_is_not_an_opening_for_the_ascending_rule(scope):
    # Saudi (ascending), 5-card hands.  Seat 0 opens with 30; seat 2 lays four Queens (40);
    # seat 3 opens with 8D 9D 10D JD (37), lays off QD and discards 4S: out in one turn, a Hand.
    # With opening_scope=team seat 2's 40 is no opening, so 31 is enough for seat 3; with
    # player it is, and seat 3 needs 41.  Seat 1, seat 3's partner, scores 0; the opponents
    # are doubled: seat 0 (5 + 8) * 2 = 26, seat 2 4 * 2 = 8.
    rules = Rules.preset("saudi", partnership=True, opening_scope=scope, opening_threshold=30, hand_size=5)
    trace = make_trace(
        rules, dealer=3, players=4,
        front="KS KH KD 5C 9D 8S  2C 3D 5H 7S 9H  QS QH QD QC 4H  8D 9D 10D JD 4S  JS 6S QD",
        hands=["KS KH KD 5C 9D 8S", "2C 3D 5H 7S 9H", "QS QH QD QC 4H", "8D 9D 10D JD 4S"],
        turns=[
            [meld("set", "KS KH KD"), discard("9D")],
            [draw("JS"), discard("JS")],
            [draw("6S"), meld("set", "QS QH QD QC"), discard("6S")],
            [draw("QD"), meld("run", "8D 9D 10D JD"), layoff(2, "QD"), discard("4S"), out(hand=True)],
        ],
        result={"void": False, "out": 3, "hand": True, "turns": 4,
                "opened": [True, scope == "team", True, True], "scores": [26, 0, 8, -60]})
    if scope == "team":
        assert check_deal(trace) == []
    else:
        assert check_deal(trace) == [
            "deal 7, turn 4, seat 3: lay-off before opening "
            "(the melds of this turn are worth 37 of the 41 points needed)",
            "deal 7, turn 4, seat 3: opening worth 37 points, below the 41 needed "
            "(ascending: the best opening so far is 40)"]


def test_partnership_rules_are_checked():
    trace = deal_p(partnership_rules("team"), take=True)
    trace["rules"]["partnership"] = False
    only(check_deal(trace), "deal 7: rules: opening_scope=team needs partnership=true")
    trace = deal_a(RULES_A.replace(partnership=True))  # a 2-player deal
    only(check_deal(trace), "deal 7: rules: partnership=true needs 4 players (2 v 2), not 2")


# --- random legal deals: the checker must find nothing ------------------------------------


class _RandomDeal:
    """A plain rule-abiding player for every seat: melds natural sets and runs, lays off,
    swaps jokers, sometimes takes the discard.  Writes a trace per docs/design.md."""

    def __init__(self, rules, players, seed):
        self.rules, self.players, self.rng = rules, players, random.Random(seed)
        deck = list(full_deck(rules).elements())
        self.rng.shuffle(deck)
        dealer = self.rng.randrange(players)
        starter = (dealer + 1) % players if rules.starter == "dealer_right" else dealer
        self.hands = [Counter() for _ in range(players)]
        pos = 0
        for k in range(players):
            size = rules.hand_size + (k == 0)
            self.hands[(starter + k) % players].update(deck[pos:pos + size])
            pos += size
        self.stock, self.pile = deque(deck[pos:]), []
        self.table, self.owner = [], []
        self.opened, self.laid = [False] * players, [False] * players
        self.best_opening, self.reshuffles = 0, 0
        self.events = []
        self.trace = {"deal": seed, "seed": seed, "players": players, "rules": rules.to_dict(),
                      "policies": ["random"] * players, "dealer": dealer, "starter": starter,
                      "deck": [format_card(t) for t in deck],
                      "hands": [[format_card(t) for t in sorted(h.elements())] for h in self.hands]}
        self.play(starter)

    def emit(self, **ev):
        self.events.append(ev)

    def required(self):
        if self.rules.opening_rule == "ascending":
            return max(self.rules.opening_threshold, self.best_opening + 1)
        return self.rules.opening_threshold

    @staticmethod
    def find_melds(hand):
        """Greedy natural melds: sets of 3-4 suits first, then runs of 3-13 (Ace low or high)."""
        hand = Counter(hand)
        melds = []
        for rank in range(13):
            suits = [s * 13 + rank for s in range(4) if hand[s * 13 + rank]]
            if len(suits) >= 3:
                melds.append(suits)
                hand.subtract(suits)

        def flush(run):
            if len(run) >= 3:
                melds.append(run)
            else:
                hand.update(run)  # too short: the cards go back

        for suit in range(4):
            run = []
            for pos in range(1, 15):  # 14 is the Ace high
                t = suit * 13 + (0 if pos == 14 else pos - 1)
                if hand[t] and len(run) < 13:
                    run.append(t)
                else:
                    flush(run)
                    run = [t] if hand[t] else []
                if hand[t] and run and run[-1] == t:
                    hand[t] -= 1
            flush(run)
        return melds

    def plan(self, seat, hand, taken):
        """The melds to lay this turn, or None if the turn cannot be played legally that way."""
        rules = self.rules
        melds = [validate_meld([(c, c) for c in m], rules) for m in self.find_melds(hand)]
        melds = [m for m in melds if m.ok]
        if rules.go_out_requires_discard:
            while melds and sum(len(m.cards) for m in melds) >= sum(hand.values()):
                melds.pop()
        if not self.opened[seat] and sum(m.value for m in melds) < self.required():
            melds = []
        if taken is not None:
            if rules.discard_pickup == "new_meld_only" and not any(c == taken for m in melds for c, _ in m.cards):
                return None
            if not self.opened[seat] and not melds:
                return None
            left = hand - Counter(c for m in melds for c, _ in m.cards)
            if left and not any(t != taken for t in left):
                return None  # nothing left to discard but the taken card
        return melds

    def play(self, seat):
        rules, number = self.rules, 0
        while True:
            number += 1
            self.emit(type="turn", seat=seat, turn=number)
            hand, taken, held = self.hands[seat], None, 0
            if number > 1:
                top = self.pile[-1] if self.pile else None
                wants_top = top is not None and self.rng.random() < 0.5
                if wants_top and self.plan(seat, hand + Counter([top]), top) is not None:
                    taken, held = top, hand[top]
                    self.pile.pop()
                    self.emit(type="draw", seat=seat, source="discard", card=format_card(top))
                    hand[top] += 1
                else:
                    if not self.stock:
                        if self.reshuffles >= rules.max_reshuffles or len(self.pile) < 2:
                            self.emit(type="void")
                            return self.finish(None, False, number)
                        new = self.pile[:-1]
                        self.rng.shuffle(new)
                        self.stock, self.pile = deque(new), self.pile[-1:]
                        self.reshuffles += 1
                        self.emit(type="reshuffle", stock=[format_card(t) for t in new])
                    card = self.stock.popleft()
                    self.emit(type="draw", seat=seat, source="stock", card=format_card(card))
                    hand[card] += 1

            def discardable(t):
                return t != taken or held > 0

            opened_before, laid_before = self.opened[seat], self.laid[seat]
            melds = self.plan(seat, hand, taken) or []
            for m in melds:
                hand.subtract(c for c, _ in m.cards)
                self.emit(type="meld", seat=seat, meld=len(self.table), kind=m.kind,
                          cards=[[format_card(c), format_card(sf)] for c, sf in m.cards])
                self.table.append(list(m.cards))
                self.owner.append(seat)
            if melds and not opened_before:
                self.opened[seat] = True
                self.best_opening = max(self.best_opening, sum(m.value for m in melds))
            placed = sum(len(m.cards) for m in melds)
            touched, extended = False, False
            if self.opened[seat] and (opened_before or rules.layoff_on_opening_turn):
                if rules.joker_swap:
                    for i, meld in enumerate(self.table):
                        for c, sf in meld:
                            if c == JOKER and hand[sf]:
                                result = can_swap(meld, sf, rules, stands_for=sf)
                                if result.ok:
                                    hand[sf] -= 1
                                    hand[JOKER] += 1
                                    self.table[i] = list(result.cards)
                                    touched |= self.owner[i] != seat
                                    extended = True
                                    self.emit(type="swap", seat=seat, meld=i, card=format_card(sf),
                                              stands_for=format_card(sf))
                                break
                keep = 1 if rules.go_out_requires_discard else 0
                for t in sorted(+hand):
                    for i, meld in enumerate(self.table):
                        left = hand - Counter([t])
                        if hand[t] == 0 or sum(left.values()) < keep or (left and not any(map(discardable, left))):
                            break
                        if t == taken and rules.discard_pickup == "new_meld_only":
                            break
                        result = can_lay_off(meld, t, None, rules)
                        if result.ok:
                            new_jokers = (Counter(s for c, s in result.cards if c == JOKER)
                                          - Counter(s for c, s in meld if c == JOKER))
                            sf = next(iter(new_jokers)) if t == JOKER else t
                            hand[t] -= 1
                            self.table[i] = list(result.cards)
                            touched |= self.owner[i] != seat
                            extended = True
                            self.emit(type="layoff", seat=seat, meld=i, card=format_card(t), stands_for=format_card(sf))
            if +hand:
                card = max(filter(discardable, +hand), key=lambda t: (t != JOKER, t % 13))
                hand[card] -= 1
                self.pile.append(card)
                self.emit(type="discard", seat=seat, card=format_card(card))
            self.laid[seat] |= bool(melds) or extended
            if not +hand:
                is_hand = not laid_before and not touched and placed >= rules.hand_min_new_meld_cards
                self.emit(type="out", seat=seat, hand=is_hand)
                return self.finish(seat, is_hand, number)
            seat = (seat + 1) % self.players

    def finish(self, out_seat, is_hand, turns):
        hands = [sorted((+h).elements()) for h in self.hands]
        scores = score_round(self.rules, out_seat, is_hand, hands, self.opened)
        self.trace["events"] = self.events
        self.trace["result"] = {"void": out_seat is None, "out": out_seat, "hand": is_hand, "turns": turns,
                                "opened": list(self.opened), "scores": scores}


RANDOM_CONFIGS = [
    ("classic", {}, 2),
    ("classic", {"opening_threshold": 20, "hand_size": 8}, 3),
    ("saudi", {"hand_size": 10}, 4),
    ("qahwa", {"opening_threshold": 30}, 3),
    ("classic", {"max_reshuffles": 0, "layoff_on_opening_turn": False, "joker_swap": False}, 4),
    ("classic", {"max_jokers_per_meld": 2, "discard_pickup": "new_meld_only", "opening_threshold": 25}, 2),
]


def _check_random_deals(preset, overrides, players, seeds):
    rules = Rules.preset(preset, **overrides)
    kinds = Counter()
    for seed in seeds:
        trace = _RandomDeal(rules, players, seed).trace
        trace = json.loads(json.dumps(trace))  # exactly what a trace file holds
        assert check_deal(trace) == [], f"seed {seed}"
        kinds.update(ev["type"] for ev in trace["events"])
    return kinds


def test_random_legal_deals_are_clean_and_reach_every_event():
    kinds = Counter()
    for config in RANDOM_CONFIGS:
        kinds += _check_random_deals(*config, seeds=range(8))
    for kind in ("turn", "draw", "reshuffle", "meld", "layoff", "swap", "discard", "out", "void"):
        assert kinds[kind] > 0, kind
    assert kinds["out"] + kinds["void"] == 8 * len(RANDOM_CONFIGS)


@pytest.mark.slow
@pytest.mark.parametrize("preset, overrides, players", RANDOM_CONFIGS)
def test_many_random_legal_deals_are_clean(preset, overrides, players):
    _check_random_deals(preset, overrides, players, range(10, 310))
