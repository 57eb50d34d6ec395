"""The round engine on hand-built deals: every rule of RULES.md sections 1-6.

Each test stacks a deck (``handsim.games.hand.trace.play_stacked_deal``), lets the scripted players play
the round and compares the engine's move log and result with the answer worked out by hand
in the comments.  Every deal is also replayed by the independent checker
(``handsim.games.hand.checker.check_deal``), which must find nothing.

How the decks are stacked (``stacked``): the starter's ``hand_size + 1`` cards, then each next
seat in playing order ``hand_size`` cards, then the stock cards the test names (top first),
then the rest of the deck in a fixed order that no test relies on (only the long rounds in
which nobody can meld ever reach it).  Unless a test says otherwise there are 2 players and
the dealer is chosen so that seat 0 starts.

Small hands (``hand_size`` 3 to 10) keep the situations checkable by hand.  Card values
(RULES.md section 1): 2-10 face value, J Q K 10, Ace 11 (1 at the low end of a run in an
opening sum, ``ace_low_value``), joker 15 or 30 in hand.

The policies' rules that decide the moves (``handsim/games/hand/policies/greedy.py``, ``handsim/games/hand/policies/hold_hand.py``):

* greedy, unopened: opens as soon as the best arrangement of its hand reaches the required
  value, laying down every meld of that arrangement; takes the top discard only when it can
  then open with it (the card in a meld of the opening); otherwise draws from the stock.
* greedy, opened: takes the top discard when it can lay it off (``must_open`` only) or put it
  into a new meld; lays every meld it can, swaps every joker it can, then lays off (the taken
  card first, then the highest-value cards).
* greedy discard: the highest-value card outside the melds it keeps (ties: the card with fewer
  meld partners, then the lower card type - spades, hearts, diamonds, clubs, Ace to King); a
  joker only when nothing else can go; never an illegal discard.
* hold-hand: lays nothing down until it can go out in one turn (a Hand); takes the discard only
  when that makes the Hand; after ``bail_turn`` of its own turns (or once an opponent holds
  ``bail_opponent_cards`` cards or fewer) it plays like greedy (the bail-out on distance,
  ``distance_turn``, is off by default; ``tests/test_players.py`` tests it).
"""

from __future__ import annotations

from collections import Counter

import pytest

from handsim.cards import JOKER, format_card, parse_card
from handsim.games.hand.checker import check_deal, full_deck
from handsim.games.hand.rules import Rules, RulesError
from handsim.games.hand.trace import play_stacked_deal, trace_deal

CLASSIC = Rules.preset("classic")
SAUDI = Rules.preset("saudi")
QAHWA = Rules.preset("qahwa")


# --- helpers -------------------------------------------------------------------------------


def starter_of(rules: Rules, dealer: int, players: int) -> int:
    return (dealer + 1) % players if rules.starter == "dealer_right" else dealer


def stacked(rules: Rules, players: int, dealer: int, hands: dict[int, str], stock: str = "") -> list[str]:
    """The full deck: the hands (by seat) in dealing order, then ``stock`` (top first), then the rest."""
    starter = starter_of(rules, dealer, players)
    front: list[str] = []
    for k in range(players):
        seat = (starter + k) % players
        cards = hands[seat].split()
        assert len(cards) == rules.hand_size + (1 if k == 0 else 0), f"seat {seat} holds {len(cards)} cards"
        front += cards
    front += stock.split()
    used = Counter(parse_card(c) for c in front)
    assert not used - full_deck(rules), "a card appears more often than the deck holds it"
    rest = full_deck(rules) - used
    # the rest: rank by rank in a spread-out order (rank*7 mod 13), suits in order, jokers last
    filler = sorted(rest.elements(), key=lambda t: (t == JOKER, (t % 13 * 7) % 13, t // 13))
    return front + [format_card(t) for t in filler]


def compact(ev: dict) -> str:
    """One event as a short string: ``meld 1 set KS KH KD``, ``meld 0 run 9H JK=10H JH``, ..."""
    kind = ev["type"]
    if kind == "turn":
        return f"turn {ev['seat']}"
    if kind == "draw":
        return f"draw {ev['seat']} {ev['source']} {ev['card']}"
    if kind == "discard":
        return f"discard {ev['seat']} {ev['card']}"
    if kind == "meld":
        cards = " ".join(c if c == sf else f"{c}={sf}" for c, sf in ev["cards"])
        return f"meld {ev['seat']} {ev['kind']} {cards}"
    if kind == "layoff":
        card = ev["card"] if ev["card"] == ev["stands_for"] else f"{ev['card']}={ev['stands_for']}"
        return f"layoff {ev['seat']} m{ev['meld']} {card}"
    if kind == "swap":
        return f"swap {ev['seat']} m{ev['meld']} {ev['card']} for JK={ev['stands_for']}"
    if kind == "out":
        return f"out {ev['seat']}" + (" hand" if ev["hand"] else "")
    if kind == "reshuffle":
        return f"reshuffle {len(ev['stock'])}"
    return kind


def play(rules: Rules, hands: dict[int, str], stock: str = "", policies=None, dealer: int | None = None,
         players: int | None = None, key: int = 0):
    """Play a stacked deal; assert the checker finds nothing; return ``(trace, compact events)``."""
    players = players or len(hands)
    if dealer is None:  # seat 0 starts
        dealer = players - 1 if rules.starter == "dealer_right" else 0
    policies = policies or ["greedy"] * players
    trace = play_stacked_deal(rules, stacked(rules, players, dealer, hands, stock), policies, dealer=dealer, key=key)
    assert check_deal(trace) == []
    return trace, [compact(e) for e in trace["events"]]


def result(trace, **expected):
    """The fields of ``trace["result"]`` named in ``expected``."""
    return {k: trace["result"][k] for k in expected}


def melded(events: list[str], seat: int) -> Counter:
    """The cards (as laid, ``JK=7H`` for a joker) of the ``meld`` events of ``seat``; asserts
    that ``events`` holds nothing else (so the melds may come in any order or split)."""
    cards: Counter = Counter()
    for e in events:
        assert e.startswith(f"meld {seat} "), e
        cards.update(e.split()[3:])
    return cards


def turns_of(events: list[str]) -> list[list[str]]:
    """The compact events split into turns (each list starts with its ``turn`` event)."""
    out: list[list[str]] = []
    for e in events:
        if e.startswith("turn"):
            out.append([])
        out[-1].append(e)
    return out


# A "closer" for seat 1 (10 cards, hand_size 10): two runs worth 51 + 49 = 100 points.  In its
# first turn it draws the stock's top card (2S, which fits nothing), opens with both runs (100
# reaches 51, 71 and 91), discards the 2S and is out: a Hand.  None of the starter's discards
# below fits its runs (9D, 8S or AS would).
CLOSER = "10D JD QD KD AD 9S 10S JS QS KS"
CLOSER_TURN = ["turn 1", "draw 1 stock 2S", "meld 1 run 9S 10S JS QS KS", "meld 1 run 10D JD QD KD AD",
               "discard 1 2S", "out 1 hand"]


# --- section 3: dealing and order of play --------------------------------------------------


@pytest.mark.parametrize("starter_rule, first", [("dealer_right", 2), ("dealer", 1)])
def test_deal_starter_and_counter_clockwise_order(starter_rule, first):
    # 3 players, dealer seat 1, hand_size 3: the starter is the dealer's right-hand neighbour,
    # seat (1 + 1) % 3 = 2, or (QA) the dealer itself, seat 1.  The starter takes the first
    # 3 + 1 = 4 cards, then seats first+1, first+2 three cards each; play goes first, first+1,
    # first+2, first, ... (seats are numbered in playing order = counter-clockwise).
    # With 4-card hands nobody can reach 51, so nobody melds or takes a discard; with
    # max_reshuffles = 0 the round is void when the stock (106 - 10 = 96 cards) runs out:
    # turn 1 has no draw, turns 2..97 draw the 96 cards, turn 98 finds the stock empty.
    rules = CLASSIC.replace(hand_size=3, max_reshuffles=0, starter=starter_rule)
    a, b = (first + 1) % 3, (first + 2) % 3
    trace, ev = play(rules, {first: "KS 2H 5D 9C", a: "3S 6H 8D", b: "4C 7S 10D"}, stock="QH JD 9S",
                     dealer=1, players=3)
    assert trace["starter"] == first
    assert [len(h) for h in trace["hands"]] == [4 if s == first else 3 for s in range(3)]
    assert trace["hands"][first] == ["KS", "2H", "5D", "9C"]
    # the starter's first turn has no draw: it discards its highest card, KS (10 points);
    # then each seat draws the top of the stock (QH, JD, 9S) and discards its highest card:
    # seat a throws the QH it drew; seat b holds 10D and JD (10 each, one partner each) and
    # throws the lower card type, 10D.
    assert ev[:12] == [
        f"turn {first}", f"discard {first} KS",
        f"turn {a}", f"draw {a} stock QH", f"discard {a} QH",
        f"turn {b}", f"draw {b} stock JD", f"discard {b} 10D",
        f"turn {first}", f"draw {first} stock 9S", f"discard {first} 9S",
        f"turn {a}",
    ]
    seats = [e["seat"] for e in trace["events"] if e["type"] == "turn"]
    assert seats == [(first + k) % 3 for k in range(98)]
    assert ev[-2:] == [f"turn {seats[-1]}", "void"]
    assert result(trace, void=1, out=1, turns=1, scores=1) == {"void": True, "out": None, "turns": 98,
                                                             "scores": [0, 0, 0]}


def test_full_size_deal_starter_has_15_cards_and_no_first_draw():
    # A classic 4-player deal of a study: the starter (dealer's right) holds 15 cards, the others
    # 14, the stock the remaining 106 - 57 = 49; the first event is the starter's turn and the
    # second is not a draw.
    trace = trace_deal(CLASSIC, "greedy,greedy,greedy,greedy", deal=3, seed=5)
    assert check_deal(trace) == []
    starter = trace["starter"]
    assert starter == (trace["dealer"] + 1) % 4
    assert [len(h) for h in trace["hands"]] == [15 if s == starter else 14 for s in range(4)]
    assert len(trace["deck"]) == 106
    assert trace["events"][0] == {"type": "turn", "seat": starter, "turn": 1}
    assert trace["events"][1]["type"] in ("meld", "discard")
    first_draw = next(e for e in trace["events"] if e["type"] == "draw")
    assert first_draw["seat"] == (starter + 1) % 4
    # QA deals 108 cards and the dealer starts
    trace = trace_deal(QAHWA, "greedy,greedy,greedy", deal=3, seed=5)
    assert check_deal(trace) == []
    assert trace["starter"] == trace["dealer"]
    assert len(trace["deck"]) == 108 and sum(len(h) for h in trace["hands"]) == 43


def test_first_dealer_is_uniform():
    # The first dealer is drawn uniformly: over 800 deals of 4 players each seat deals
    # 200 +- 3 standard deviations (sqrt(800 * 1/4 * 3/4) = 12.2) times.
    counts = Counter(trace_deal(CLASSIC, "greedy,greedy,greedy,greedy", deal=i, seed=2)["dealer"] for i in range(800))
    assert sorted(counts) == [0, 1, 2, 3]
    assert all(200 - 37 <= c <= 200 + 37 for c in counts.values()), counts


# --- section 3: drawing, the discard pile, discard_pickup ----------------------------------


@pytest.mark.parametrize("pickup, requires", [("must_open", False), ("new_meld_only", False),
                                             ("must_open_using", False), ("must_open", True)])
def test_unopened_player_takes_the_discard_only_to_open_with_it(pickup, requires):
    # hand_size 7.  Seat 0: QS KS 2H 3D 5C 7H 8D 4S - nothing melds.  Seat 1: KH KD QH QD QC 2C 4D,
    # a Q set (30) and a pair of kings.
    # Turn 1: seat 0 discards QS or KS (10 points, one partner each): the lower card type, QS.
    # Turn 2: QS would make a Q set of four, 40 < 51: greedy does not take it; it draws AS
    #         from the stock and throws it (11 points, outside its melds).
    # Turn 3: seat 0 draws 6C and throws KS (10, now without partners).
    # Turn 4: KS gives K set 30 + Q set 30 = 60 >= 51: seat 1 takes it and opens at once, the
    #         taken KS inside the K set (must_open: the opening; new_meld_only: a new meld);
    #         it keeps 2C and discards 4D.
    # Turn 5: seat 0 draws 3H, throws 8D (no use to seat 1).  Turn 6: seat 1 draws KC, lays it
    #         off on its own K set (meld 1), discards 2C and is out: -30 (no Hand: it laid down
    #         in turn 4).
    # Seat 0 keeps 2H 3H 3D 5C 7H 4S 6C = 30, never opened: 30 + 100 = 130.
    # must_open_using (KA) and opening_requires_discard_pickup (KN): the same play, since the
    # opening of turn 4 holds the taken KS in a new meld, and seat 1 lays off KC once opened.
    rules = CLASSIC.replace(hand_size=7, discard_pickup=pickup, opening_requires_discard_pickup=requires)
    trace, ev = play(rules, {0: "QS KS 2H 3D 5C 7H 8D 4S", 1: "KH KD QH QD QC 2C 4D"}, stock="AS 6C 3H KC")
    assert ev == [
        "turn 0", "discard 0 QS",
        "turn 1", "draw 1 stock AS", "discard 1 AS",
        "turn 0", "draw 0 stock 6C", "discard 0 KS",
        "turn 1", "draw 1 discard KS", "meld 1 set KS KH KD", "meld 1 set QH QD QC", "discard 1 4D",
        "turn 0", "draw 0 stock 3H", "discard 0 8D",
        "turn 1", "draw 1 stock KC", "layoff 1 m0 KC", "discard 1 2C", "out 1",
    ]
    assert result(trace, out=1, hand=1, opened=1, scores=1) == {
        "out": 1, "hand": False, "opened": [False, True], "scores": [130, -30]}


@pytest.mark.parametrize("pickup", ["must_open", "new_meld_only", "must_open_using"])
def test_opened_player_takes_the_discard_to_lay_it_off_only_under_must_open(pickup):
    # hand_size 7.  Turn 1: seat 0 opens with K set + Q set (60), throws 9D, keeps 4C.
    # Turn 2: seat 1 (KC 2H 3D 5S 7S 6D 8H, nothing melds) draws 2C and throws KC (10 points).
    # Turn 3, must_open: seat 0 may take KC to lay it off on its K set: it does, then discards
    #   4C and is out (-30, it laid down in turn 1).
    # Turn 3, new_meld_only: KC would only be laid off, not put into a new meld: seat 0 draws
    #   6C instead and throws it; seat 1 draws 9S and throws it; seat 0 draws the other KC,
    #   lays it off and throws 4C: out at turn 5.
    # must_open_using (KA): an opened player takes the discard freely, as under must_open.
    # Seat 1 (never opened) keeps 2H 3D 5S 7S 6D 8H 2C = 33: 133 either way.
    rules = CLASSIC.replace(hand_size=7, discard_pickup=pickup)
    trace, ev = play(rules, {0: "KS KH KD QS QH QD 4C 9D", 1: "KC 2H 3D 5S 7S 6D 8H"}, stock="2C 6C 9S KC")
    start = ["turn 0", "meld 0 set QS QH QD", "meld 0 set KS KH KD", "discard 0 9D",
             "turn 1", "draw 1 stock 2C", "discard 1 KC"]
    if pickup != "new_meld_only":
        assert ev == start + ["turn 0", "draw 0 discard KC", "layoff 0 m1 KC", "discard 0 4C", "out 0"]
        assert trace["result"]["turns"] == 3
    else:
        assert ev == start + ["turn 0", "draw 0 stock 6C", "discard 0 6C",
                              "turn 1", "draw 1 stock 9S", "discard 1 9S",
                              "turn 0", "draw 0 stock KC", "layoff 0 m1 KC", "discard 0 4C", "out 0"]
        assert trace["result"]["turns"] == 5
    assert result(trace, out=1, hand=1, scores=1) == {"out": 0, "hand": False, "scores": [-30, 133]}


def test_opening_requires_discard_pickup_opens_only_with_the_taken_card():
    # opening_requires_discard_pickup (KN; RULES.md section 4), hand_size 7: the deal of
    # test_opened_player_takes_the_discard_to_lay_it_off_only_under_must_open.  Turn 1 has no
    # draw, so seat 0 may not open with its K set + Q set (60) - nor make a Hand (4C 9D would be
    # left): it throws 9D, its highest card outside the melds.  Turn 2: seat 1 draws 2C and throws
    # KC.  Turn 3: seat 0 takes KC, which opens with it in a new meld: K set of four (40) + Q set
    # (30) = 70, throws 4C and is out in its first lay-down: a Hand, -60.  Seat 1 (never opened):
    # 2H 3D 5S 7S 6D 8H 2C = 33, (33 + 100) * 2 = 266.
    rules = CLASSIC.replace(hand_size=7, opening_requires_discard_pickup=True)
    trace, ev = play(rules, {0: "KS KH KD QS QH QD 4C 9D", 1: "KC 2H 3D 5S 7S 6D 8H"}, stock="2C 6C 9S KC")
    assert ev == ["turn 0", "discard 0 9D", "turn 1", "draw 1 stock 2C", "discard 1 KC",
                  "turn 0", "draw 0 discard KC", "meld 0 set QS QH QD", "meld 0 set KS KH KD KC",
                  "discard 0 4C", "out 0 hand"]
    assert result(trace, opened=1, scores=1) == {"opened": [True, False], "scores": [-60, 266]}


@pytest.mark.parametrize("requires", [False, True])
def test_opening_requires_discard_pickup_exempts_a_hand_from_the_stock(requires):
    # The 51 deal of test_opening_threshold: the starter's Q set + 6H 7H 8H reach 51.
    #   false: it opens in turn 1 and keeps 2D 4S 7D 3H (16) after throwing 9C; the CLOSER's Hand
    #     doubles it: 32.
    #   true: turn 1 took no discard: no opening (no Hand either); it throws 9C.  The CLOSER draws
    #     2S from the stock and lays its whole hand down: a Hand, exempt.  Seat 0 keeps
    #     30 + 21 + 2 + 4 + 7 + 3 = 67, unopened: (67 + 100) * 2 = 334.
    rules = CLASSIC.replace(hand_size=10, opening_requires_discard_pickup=requires)
    trace, ev = play(rules, {0: OPENING_CASES[51][0], 1: CLOSER}, stock="2S")
    melds = ["meld 0 set QS QH QC", "meld 0 run 6H 7H 8H"] if not requires else []
    assert ev == ["turn 0"] + melds + ["discard 0 9C"] + CLOSER_TURN
    assert result(trace, opened=1, scores=1) == {"opened": [not requires, True], "scores": [334 if requires else 32, -60]}


def test_card_taken_from_the_pile_is_not_discarded():
    # go_out_requires_discard (the last card must be a discard), hand_size 6.
    # Turn 1: seat 0 (KS 2H 3D 5C 7H 8D 4S) throws KS.
    # Turn 2: seat 1 holds KH KD KC QH QD QC.  With the KS from the pile all 7 cards would meld
    #   (K set of 4 + Q set = 70), but one card must be left to discard.  Leaving KS out would
    #   be the first choice (lowest card type, 60 points still open) - but KS was just taken from
    #   the pile and may not be discarded this turn.  Leaving out KH instead: K set KS KD KC (30)
    #   + Q set (30) = 60 >= 51.  So seat 1 takes KS, melds it, discards KH and is out in its
    #   first turn: a Hand, -60.
    # Seat 0: 2H 3D 5C 7H 8D 4S = 29, unopened: (29 + 100) * 2 = 258.
    rules = CLASSIC.replace(hand_size=6, go_out_requires_discard=True)
    trace, ev = play(rules, {0: "KS 2H 3D 5C 7H 8D 4S", 1: "KH KD KC QH QD QC"})
    assert ev == ["turn 0", "discard 0 KS",
                  "turn 1", "draw 1 discard KS", "meld 1 set KS KD KC", "meld 1 set QH QD QC",
                  "discard 1 KH", "out 1 hand"]
    assert result(trace, out=1, hand=1, scores=1) == {"out": 1, "hand": True, "scores": [258, -60]}


# --- section 3: stock exhaustion --------------------------------------------------------------


@pytest.mark.parametrize("max_reshuffles, turns", [(0, 101), (1, 200), (3, 398)])
def test_stock_exhaustion_reshuffles_then_void(max_reshuffles, turns):
    # 2 players, hand_size 3: nobody can ever reach 51 with 4 cards, so every turn is a stock
    # draw and a discard.  Stock: 106 - 7 = 99 cards.  Turn 1 (no draw) and turns 2..100 (99
    # draws) leave 100 cards in the pile.  Turn 101 finds the stock empty: with no reshuffle
    # left the round is void; otherwise the top discard stays and the other 99 cards become
    # the stock, drawn in turns 101..199, and turn 200 finds it empty again, and so on:
    # 101 + 99 * max_reshuffles turns.  A void round scores 0 for everyone.
    rules = CLASSIC.replace(hand_size=3, max_reshuffles=max_reshuffles)
    trace, ev = play(rules, {0: "KS 2H 5D 9C", 1: "3S 6H 8D"})
    assert result(trace, void=1, out=1, turns=1, scores=1) == {"void": True, "out": None, "turns": turns,
                                                             "scores": [0, 0]}
    assert ev[-2:] == [f"turn {(turns - 1) % 2}", "void"]
    reshuffles = [i for i, e in enumerate(trace["events"]) if e["type"] == "reshuffle"]
    assert len(reshuffles) == max_reshuffles
    pile: list[str] = []
    for i, e in enumerate(trace["events"]):
        if e["type"] == "discard":
            pile.append(e["card"])
        elif e["type"] == "reshuffle":
            # the pile minus its top card, and the top card stays on the pile
            assert len(e["stock"]) == 99
            assert Counter(e["stock"]) == Counter(pile[:-1])
            pile = pile[-1:]
            # the draw that needed it takes the new stock's top card
            assert trace["events"][i + 1] == {"type": "draw", "seat": trace["events"][i - 1]["seat"],
                                              "source": "stock", "card": e["stock"][0]}
        elif e["type"] == "draw":
            assert e["source"] == "stock"


def test_long_void_round_is_traced_completely():
    # As above with max_reshuffles = 20: void after 101 + 99 * 20 = 2081 turns, about 6,250 log
    # rows.  The trace must hold the whole round (or the engine must refuse it), not stop early.
    rules = CLASSIC.replace(hand_size=3, max_reshuffles=20)
    trace, ev = play(rules, {0: "KS 2H 5D 9C", 1: "3S 6H 8D"})
    assert trace["result"]["turns"] == 2081 and ev[-1] == "void"


def test_many_reshuffles_end_in_a_void_round():
    # max_reshuffles = 30 (allowed: 0..100): void after 101 + 99 * 30 = 3071 turns.
    rules = CLASSIC.replace(hand_size=3, max_reshuffles=30)
    trace, ev = play(rules, {0: "KS 2H 5D 9C", 1: "3S 6H 8D"})
    assert trace["result"]["turns"] == 3071 and ev[-1] == "void"


# --- section 4: opening ---------------------------------------------------------------------


# Starter hands (11 cards, hand_size 10) worth exactly the threshold and one point less:
OPENING_CASES = {
    # 51 = Q set 30 + 6H 7H 8H 21, junk 2D 4S 7D 9C 3H; 50 = Q set 30 + 2C..6C 20, junk 2D 4S 9C.
    51: ("QH QC QS 6H 7H 8H 2D 4S 7D 9C 3H", "QH QC QS 2C 3C 4C 5C 6C 2D 4S 9C"),
    # 71 = K set 30 + JC QC KC AC 41 (Ace high 11); 70 = K set 30 + 10C JC QC KC 40
    # (moving KC into the set gives 40 + 30, the same).  Junk 2D 4S 7D 3H.
    71: ("KH KS KD JC QC KC AC 2D 4S 7D 3H", "KH KS KD 10C JC QC KC 2D 4S 7D 3H"),
    # 91 = K set + J set 60 + QC KC AC 31 (with Ace high as 1 it would be 81); 90 = K, J and
    # Q sets.  Junk 2D 4S.
    91: ("KH KS KD JH JS JD QC KC AC 2D 4S", "KH KS KD JH JS JD QH QS QD 2D 4S"),
}


@pytest.mark.parametrize("threshold", [51, 71, 91])
@pytest.mark.parametrize("reaches", [True, False])
def test_opening_threshold(threshold, reaches):
    # The starter's melds are worth exactly opening_threshold (it opens in its first turn) or
    # one point less (it does not).  It discards its highest junk card either way (9C, 7D, 4S).
    # Then seat 1, the CLOSER, goes out with a Hand: the starter's score is doubled.
    #   51 reached: keeps 2D 4S 7D 3H = 16 -> 32.     51 missed: 50 + 2 + 4 = 56, +100 -> 312.
    #   71 reached: keeps 2D 4S 3H = 9 -> 18.         71 missed: 70 + 2 + 4 + 3 = 79, +100 -> 358.
    #   91 reached: keeps 2D = 2 -> 4.                91 missed: 90 + 2 = 92, +100 -> 384.
    rules = CLASSIC.replace(hand_size=10, opening_threshold=threshold)
    hand = OPENING_CASES[threshold][0 if reaches else 1]
    trace, ev = play(rules, {0: hand, 1: CLOSER}, stock="2S")
    discard = {51: "9C", 71: "7D", 91: "4S"}[threshold]
    melds = {
        51: ["meld 0 set QS QH QC", "meld 0 run 6H 7H 8H"],
        71: ["meld 0 set KS KH KD", "meld 0 run JC QC KC AC"],
        91: ["meld 0 set JS JH JD", "meld 0 set KS KH KD", "meld 0 run QC KC AC"],
    }[threshold]
    assert ev == ["turn 0"] + (melds if reaches else []) + [f"discard 0 {discard}"] + CLOSER_TURN
    expected = {(51, True): 32, (51, False): 312, (71, True): 18, (71, False): 358,
                (91, True): 4, (91, False): 384}[threshold, reaches]
    assert result(trace, opened=1, scores=1) == {"opened": [reaches, True], "scores": [expected, -60]}


@pytest.mark.parametrize("hand, opens, score0", [
    # 2H JK 4H: the joker stands for 3H (3 points, not its 15 in hand): Q set 30 + 9 = 39, or the
    # joker in the Q set: 40.  Below 51: no opening.  Kept: QS QH QD 2H JK 4H (30 + 6 + 15 = 51)
    # after discarding 9C: (51 + 100) * 2 = 302.
    ("QS QH QD 2H JK 4H 9C", False, 302),
    # 6H JK 8H: the joker stands for 7H: Q set 30 + 21 = 51: opens, throws 9C, out: a Hand.
    ("QS QH QD 6H JK 8H 9C", True, -60),
])
def test_joker_counts_the_card_it_stands_for_in_an_opening(hand, opens, score0):
    # hand_size 6; seat 1: 10D JD QD KD AD 9D (run worth 60); when seat 0 does not open, seat 1
    # draws 2S, opens with its run, throws 2S: a Hand, and seat 0's score is doubled.
    # When seat 0 makes a Hand, seat 1 scores (60 + 100) * 2 = 320.
    rules = CLASSIC.replace(hand_size=6)
    trace, ev = play(rules, {0: hand, 1: "9D 10D JD QD KD AD"}, stock="2S")
    if opens:
        assert ev == ["turn 0", "meld 0 set QS QH QD", "meld 0 run 6H JK=7H 8H", "discard 0 9C", "out 0 hand"]
        assert trace["result"]["scores"] == [-60, 320]
    else:
        assert ev[:2] == ["turn 0", "discard 0 9C"]
        assert ev[-1] == "out 1 hand"
        assert trace["result"]["scores"] == [score0, -60]


@pytest.mark.parametrize("ace_low_value", [1, 11])
def test_ace_low_value_in_an_opening(ace_low_value):
    # Seat 0: K set (30) + AS 2S 3S 4S 5S (Ace low: ace_low_value + 14) + 6H, hand_size 8.
    #   ace_low_value 1:  30 + 15 = 45 < 51: no opening; it throws 6H.  Seat 1 (10D..AD 51 +
    #     9C 10C JC 29) draws 2H, opens with 80 and throws 2H: a Hand.  Seat 0 keeps K set + AS..5S,
    #     the Ace counting 11 in hand: 30 + 11 + 14 = 55, (55 + 100) * 2 = 310.
    #   ace_low_value 11: 30 + 25 = 55 >= 51: seat 0 opens, throws 6H and is out: a Hand;
    #     seat 1 holds 80: (80 + 100) * 2 = 360.
    rules = CLASSIC.replace(hand_size=8, ace_low_value=ace_low_value)
    trace, ev = play(rules, {0: "KS KH KD AS 2S 3S 4S 5S 6H", 1: "10D JD QD KD AD 9C 10C JC"}, stock="2H")
    if ace_low_value == 1:
        assert ev == ["turn 0", "discard 0 6H", "turn 1", "draw 1 stock 2H", "meld 1 run 10D JD QD KD AD",
                      "meld 1 run 9C 10C JC", "discard 1 2H", "out 1 hand"]
        assert trace["result"]["scores"] == [310, -60]
    else:
        assert ev == ["turn 0", "meld 0 run AS 2S 3S 4S 5S", "meld 0 set KS KH KD", "discard 0 6H", "out 0 hand"]
        assert trace["result"]["scores"] == [-60, 360]


@pytest.mark.parametrize("ace_value", [11, 10])
def test_ace_value_in_an_opening_and_in_hand(ace_value):
    # Seat 0: AS AH AD (3 x ace_value) + 2C 3C 4C 5C 6C (20) + 9H, hand_size 8.
    #   ace_value 11: 33 + 20 = 53 >= 51: seat 0 opens, throws 9H and is out: a Hand; seat 1
    #     holds 10D..AD 9C 10C JC = 40 + 11 + 29 = 80: (80 + 100) * 2 = 360.
    #   ace_value 10: 30 + 20 = 50 < 51: no opening; it throws 9H.  Seat 1 draws 2H, opens with
    #     10D..AD (50) + 9C 10C JC (29) = 79 and throws 2H: a Hand.  Seat 0 keeps the Aces at 10
    #     each and 2C..6C: 30 + 20 = 50, (50 + 100) * 2 = 300.
    rules = CLASSIC.replace(hand_size=8, ace_value=ace_value)
    trace, ev = play(rules, {0: "AS AH AD 2C 3C 4C 5C 6C 9H", 1: "10D JD QD KD AD 9C 10C JC"}, stock="2H")
    if ace_value == 11:
        assert ev[-2:] == ["discard 0 9H", "out 0 hand"]
        assert sorted(ev[1:3]) == ["meld 0 run 2C 3C 4C 5C 6C", "meld 0 set AS AH AD"]
        assert trace["result"]["scores"] == [-60, 360]
    else:
        assert ev == ["turn 0", "discard 0 9H", "turn 1", "draw 1 stock 2H", "meld 1 run 10D JD QD KD AD",
                      "meld 1 run 9C 10C JC", "discard 1 2H", "out 1 hand"]
        assert trace["result"]["scores"] == [300, -60]


@pytest.mark.parametrize("hand, throw, score0", [
    # K-A-2 wraps: not a run.  Only the Q set melds: 30 < 51 (KS AS 2S would add 10 + 11 + 2 or
    # 10 + 1 + 2).  Seat 0 throws AS (11 points); keeps Q set + KS 2S 5H 7D =
    # 30 + 10 + 2 + 5 + 7 = 54: (54 + 100) * 2 = 308.
    ("QH QD QC KS AS 2S 5H 7D", "AS", 308),
    # Two 9H never sit in one set: 9H 9H 9D is no set (9H 9H 9D would make K set + 27 = 57).
    # Only the K set melds: 30 < 51.  Seat 0 throws a 9H (9 points; one partner, where 9D has
    # three: two 9H and 7D); keeps 9H 9D K set 5H 7D: 9 + 9 + 30 + 5 + 7 = 60,
    # (60 + 100) * 2 = 320.
    ("9H 9H 9D KS KH KD 5H 7D", "9H", 320),
])
def test_illegal_melds_do_not_open(hand, throw, score0):
    # hand_size 7.  Seat 1 (8D 9D 10D JD QD KD AD, a run worth 68) does not want the thrown card,
    # draws 2S, opens with its run and throws 2S: a Hand, so seat 0's score is doubled.
    rules = CLASSIC.replace(hand_size=7)
    trace, ev = play(rules, {0: hand, 1: "8D 9D 10D JD QD KD AD"}, stock="2S")
    assert ev[:4] == ["turn 0", f"discard 0 {throw}", "turn 1", "draw 1 stock 2S"]
    assert melded(ev[4:-2], 1) == Counter("8D 9D 10D JD QD KD AD".split())
    assert ev[-2:] == ["discard 1 2S", "out 1 hand"]
    assert result(trace, opened=1, scores=1) == {"opened": [False, True], "scores": [score0, -60]}


@pytest.mark.parametrize("rule, seat1, opens", [
    # saudi (ascending): seat 0 opened with 60, so seat 1 needs 61.  J set + 10 set = 60: no.
    ("ascending", "JS JH JD 10S 10H 10D 2H", False),
    # QC KC AC (31) + J set (30) = 61: yes.
    ("ascending", "QC KC AC JS JH JD 2H", True),
    # fixed: 60 >= 51 opens.
    ("fixed", "JS JH JD 10S 10H 10D 2H", True),
])
def test_ascending_opening(rule, seat1, opens):
    # hand_size 7.  Turn 1: seat 0 opens with K set + Q set = 60, throws 9H, keeps 5C.
    # Turn 2: 9H is no use to seat 1 (9H 10H JH would be a 29-point run, but the J and 10 sets
    #   give more); it draws 3C, opens if it can (see the cases), and throws 3C (3 points, more
    #   than its 2H), keeping 2H.
    # Turn 3: seat 0 draws KC, lays it off on its K set (meld 1), throws 5C and is out: -30.
    # Seat 1: opened: 2H = 2; not opened: 60 + 2 + 100 = 162.
    rules = (SAUDI if rule == "ascending" else CLASSIC).replace(hand_size=7)
    trace, ev = play(rules, {0: "KS KH KD QS QH QD 5C 9H", 1: seat1}, stock="3C KC")
    seat1_melds = []
    if opens:
        seat1_melds = (["meld 1 set JS JH JD", "meld 1 run QC KC AC"] if "AC" in seat1
                       else ["meld 1 set 10S 10H 10D", "meld 1 set JS JH JD"])
    assert ev == ["turn 0", "meld 0 set QS QH QD", "meld 0 set KS KH KD", "discard 0 9H",
                  "turn 1", "draw 1 stock 3C"] + seat1_melds + ["discard 1 3C",
                  "turn 0", "draw 0 stock KC", "layoff 0 m1 KC", "discard 0 5C", "out 0"]
    assert result(trace, opened=1, scores=1) == {"opened": [True, opens], "scores": [-30, 2 if opens else 162]}


@pytest.mark.parametrize("preset, increment, seat1, opens", [
    # The deal of test_ascending_opening: seat 0 opens with 60; seat 1 then holds 60 or 61.
    # ascending_increment 0: 60 is enough (an equal opening, KN).
    ("saudi", 0, "JS JH JD 10S 10H 10D 2H", True),
    # 5: 65 needed; QC KC AC + J set = 61 is not.
    ("saudi", 5, "QC KC AC JS JH JD 2H", False),
    # fixed: the increment plays no part, 60 >= 51.
    ("classic", 10, "JS JH JD 10S 10H 10D 2H", True),
])
def test_ascending_increment(preset, increment, seat1, opens):
    # As in test_ascending_opening: seat 1 draws 3C, opens or not, throws 3C (its highest card
    # outside the melds); seat 0 lays off KC and goes out: -30.  Seat 1: opened 2H = 2; not
    # opened QC KC AC JS JH JD 2H = 10 + 10 + 11 + 30 + 2 = 63, + 100 = 163.
    rules = Rules.preset(preset, hand_size=7, ascending_increment=increment)
    trace, ev = play(rules, {0: "KS KH KD QS QH QD 5C 9H", 1: seat1}, stock="3C KC")
    seat1_melds = ["meld 1 set 10S 10H 10D", "meld 1 set JS JH JD"] if opens else []
    assert ev == ["turn 0", "meld 0 set QS QH QD", "meld 0 set KS KH KD", "discard 0 9H",
                  "turn 1", "draw 1 stock 3C"] + seat1_melds + ["discard 1 3C",
                  "turn 0", "draw 0 stock KC", "layoff 0 m1 KC", "discard 0 5C", "out 0"]
    assert result(trace, opened=1, scores=1) == {"opened": [True, opens], "scores": [-30, 2 if opens else 163]}


def test_the_first_ascending_opening_needs_only_the_threshold():
    # saudi, opening_threshold 5, ascending_increment 10, hand_size 4.  Seat 0 opens with
    # 2S 3S 4S = 9 (>= 5: no opening came before, so the increment does not count) and throws KH
    # (10, its highest card), keeping 9D.  Seat 1 (QC QD QH QS) needs 9 + 10 = 19: it does not
    # take KH (no meld of its uses it), draws 5H, lays the Q set (40 >= 19) and throws 5H: out
    # in its first turn, a Hand (-60).  Seat 0: 9D = 9, doubled: 18.
    rules = SAUDI.replace(hand_size=4, opening_threshold=5, ascending_increment=10)
    trace, ev = play(rules, {0: "2S 3S 4S KH 9D", 1: "QC QD QH QS"}, stock="5H")
    assert ev == ["turn 0", "meld 0 run 2S 3S 4S", "discard 0 KH",
                  "turn 1", "draw 1 stock 5H", "meld 1 set QS QH QD QC", "discard 1 5H", "out 1 hand"]
    assert result(trace, opened=1, scores=1) == {"opened": [True, True], "scores": [18, -60]}


@pytest.mark.parametrize("max_run_length", [13, 5])
def test_max_run_length_refuses_a_lay_off_past_it(max_run_length):
    # RULES.md section 2, VARIANTS.md #5.  hand_size 12.  Seat 0 opens with K set + Q set + the
    # run 3C..7C (30 + 30 + 25 = 85; 5 cards, legal at 5 too), throws 9H (its highest card
    # outside the melds) and keeps 2D.  Seat 1 melds nothing (no three of a rank, no three in a
    # row), draws 9D and throws a ten-count card no meld of seat 0 takes.  Seat 0 draws 8C:
    #   13: lays it off on the run (meld 2: 3C..8C) and throws 2D: out, -30.  Seat 1 holds
    #       2S 4S 6S 8S 10S QS 2H 4H 6H JD 5D 7D 9D = 40 + 12 + 31 = 83, less the card thrown
    #       (10), + 100 unopened: 173.
    #   5: 3C..8C would be 6 cards: no lay-off; it throws 8C (8 > 2) and keeps 2D.
    rules = CLASSIC.replace(hand_size=12, max_run_length=max_run_length)
    trace, ev = play(rules, {0: "KS KH KD QS QH QD 3C 4C 5C 6C 7C 9H 2D",
                             1: "2S 4S 6S 8S 10S QS 2H 4H 6H JD 5D 7D"}, stock="9D 8C")
    turns = turns_of(ev)
    assert sorted(turns[0][1:-1]) == ["meld 0 run 3C 4C 5C 6C 7C", "meld 0 set KS KH KD", "meld 0 set QS QH QD"]
    assert turns[0][-1] == "discard 0 9H"
    assert turns[1][:2] == ["turn 1", "draw 1 stock 9D"] and len(turns[1]) == 3
    thrown = turns[1][2].split()[-1]
    assert thrown in ("10S", "QS", "JD")
    if max_run_length == 13:
        assert turns[2] == ["turn 0", "draw 0 stock 8C", "layoff 0 m2 8C", "discard 0 2D", "out 0"]
        assert result(trace, scores=1) == {"scores": [-30, 173]}
    else:
        assert turns[2] == ["turn 0", "draw 0 stock 8C", "discard 0 8C"]
        assert all(not e.startswith("layoff") for e in ev)


@pytest.mark.parametrize("layoff_on_opening_turn", [True, False])
def test_layoffs_only_after_opening(layoff_on_opening_turn):
    # hand_size 8.  Turn 1: seat 0 opens with Q set + K set (60; the K set, meld 1, lacks KC),
    #   throws 9D, keeps 4C 2S.
    # Turn 2: seat 1 (9H 10H JH QH 5D 5C KC AS) has not opened: it may not lay KC off on the
    #   K set.  It draws AD and throws AS (11, its lower card type among the two Aces).
    # Turn 3: seat 0 draws 7C and throws it.
    # Turn 4: seat 1 draws 5S: 5 set (15) + 9H..QH (39) = 54 >= 51, it opens.
    #   layoff_on_opening_turn true: it lays KC off on seat 0's K set in the same turn, throws
    #     AD and is out.  Not a Hand: a card went onto another player's meld: -30.
    #   false: no lay-off in the opening turn; it throws AD (11 > KC's 10) and keeps KC.
    #     Turn 5: seat 0 draws 8S, throws it.  Turn 6: seat 1 draws 6S, now lays KC off,
    #     throws 6S and is out: -30.
    # Seat 0 (opened) keeps 4C 2S = 6.
    rules = CLASSIC.replace(hand_size=8, layoff_on_opening_turn=layoff_on_opening_turn)
    trace, ev = play(rules, {0: "KS KH KD QS QH QD 4C 2S 9D", 1: "9H 10H JH QH 5D 5C KC AS"},
                     stock="AD 7C 5S 8S 6S")
    start = ["turn 0", "meld 0 set QS QH QD", "meld 0 set KS KH KD", "discard 0 9D",
             "turn 1", "draw 1 stock AD", "discard 1 AS",
             "turn 0", "draw 0 stock 7C", "discard 0 7C",
             "turn 1", "draw 1 stock 5S", "meld 1 set 5S 5D 5C", "meld 1 run 9H 10H JH QH"]
    if layoff_on_opening_turn:
        assert ev == start + ["layoff 1 m1 KC", "discard 1 AD", "out 1"]
    else:
        assert ev == start + ["discard 1 AD",
                              "turn 0", "draw 0 stock 8S", "discard 0 8S",
                              "turn 1", "draw 1 stock 6S", "layoff 1 m1 KC", "discard 1 6S", "out 1"]
    assert result(trace, out=1, hand=1, scores=1) == {"out": 1, "hand": False, "scores": [6, -30]}


# --- section 5: joker swap --------------------------------------------------------------------


@pytest.mark.parametrize("joker_swap", [True, False])
def test_joker_swap_on_a_run(joker_swap):
    # hand_size 7.  Turn 1: seat 0 opens with K set (30) + 9H JK JH (the joker is 10H: 29) = 59,
    #   throws 5D, keeps 3C.
    # Turn 2: seat 1 (AS AH AD QS QC QD 10H) draws 2C and opens with A set + Q set (63).
    #   joker_swap true: 10H takes the joker's place in seat 0's run (meld 1); the joker (15, its
    #     highest card) is laid off at once on the K set (meld 0) as KC, the suit the set lacks;
    #     it throws 2C and is out: -30 (not a Hand: it played on seat 0's melds).
    #   false: 10H fits nowhere (its place in the run is the joker's); it throws 10H, keeps 2C.
    #     Turn 3: seat 0 draws 4D, throws it.  Turn 4: seat 1 draws 8H, lays it off below the
    #     run (8H 9H JK JH), throws 2C: out, -30.
    # Seat 0 keeps 3C = 3.
    rules = CLASSIC.replace(hand_size=7, joker_swap=joker_swap)
    trace, ev = play(rules, {0: "KS KH KD 9H JK JH 3C 5D", 1: "AS AH AD QS QC QD 10H"}, stock="2C 4D 8H")
    start = ["turn 0", "meld 0 set KS KH KD", "meld 0 run 9H JK=10H JH", "discard 0 5D",
             "turn 1", "draw 1 stock 2C", "meld 1 set AS AH AD", "meld 1 set QS QD QC"]
    if joker_swap:
        assert ev == start + ["swap 1 m1 10H for JK=10H", "layoff 1 m0 JK=KC", "discard 1 2C", "out 1"]
    else:
        assert ev == start + ["discard 1 10H", "turn 0", "draw 0 stock 4D", "discard 0 4D",
                              "turn 1", "draw 1 stock 8H", "layoff 1 m1 8H", "discard 1 2C", "out 1"]
    assert result(trace, out=1, hand=1, scores=1) == {"out": 1, "hand": False, "scores": [3, -30]}


@pytest.mark.parametrize("joker_swap", [True, False])
def test_joker_swap_on_a_set(joker_swap):
    # hand_size 7.  Turn 1: seat 0 opens with KS KH JK (the joker stands for a missing suit: 30)
    #   + 9H 10H JH (29) = 59, throws 5D, keeps 3C.
    # Turn 2: seat 1 (AS AH AD QS QC QD KC) draws 2C and opens with A set + Q set.
    #   joker_swap true: KC, a suit the set lacks, replaces the joker (swaps come before
    #     lay-offs); the joker goes back onto the same set as its fourth card, now KD; it throws
    #     2C: out, -30.
    #   false: KC is simply laid off on the set (KS KH JK KC); it throws 2C: out, -30.
    rules = CLASSIC.replace(hand_size=7, joker_swap=joker_swap)
    trace, ev = play(rules, {0: "KS KH JK 9H 10H JH 3C 5D", 1: "AS AH AD QS QC QD KC"}, stock="2C")
    start = ["turn 0", "meld 0 set KS KH JK=KD", "meld 0 run 9H 10H JH", "discard 0 5D",
             "turn 1", "draw 1 stock 2C", "meld 1 set AS AH AD", "meld 1 set QS QD QC"]
    if joker_swap:
        assert ev == start + ["swap 1 m0 KC for JK=KC", "layoff 1 m0 JK=KD", "discard 1 2C", "out 1"]
    else:
        assert ev == start + ["layoff 1 m0 KC", "discard 1 2C", "out 1"]
    assert result(trace, out=1, hand=1, scores=1) == {"out": 1, "hand": False, "scores": [3, -30]}


@pytest.mark.parametrize("set_joker_swap", ["one_card", "fill_set"])
def test_set_joker_swap(set_joker_swap):
    # The deal of test_joker_swap_on_a_set: seat 0's set KS KH JK=KD lacks two suits.
    #   one_card: KC takes the joker's place, which seat 1 then lays back on the set as KD.
    #   fill_set (VARIANTS.md #6): the joker comes back only for the fourth suit, and the set has
    #     two naturals, so KC is laid off (the set becomes KS KH KC JK=KD).  Out with 2C either way.
    rules = CLASSIC.replace(hand_size=7, set_joker_swap=set_joker_swap)
    trace, ev = play(rules, {0: "KS KH JK 9H 10H JH 3C 5D", 1: "AS AH AD QS QC QD KC"}, stock="2C")
    start = ["turn 0", "meld 0 set KS KH JK=KD", "meld 0 run 9H 10H JH", "discard 0 5D",
             "turn 1", "draw 1 stock 2C", "meld 1 set AS AH AD", "meld 1 set QS QD QC"]
    if set_joker_swap == "one_card":
        assert ev == start + ["swap 1 m0 KC for JK=KC", "layoff 1 m0 JK=KD", "discard 1 2C", "out 1"]
        # the checker refuses the same swap under fill_set
        trace["rules"] = dict(trace["rules"], set_joker_swap="fill_set")
        problems = check_deal(trace)
        assert len(problems) == 1 and "set_joker_swap=fill_set" in problems[0] and "has 2 naturals" in problems[0]
    else:
        assert ev == start + ["layoff 1 m0 KC", "discard 1 2C", "out 1"]
    assert result(trace, out=1, hand=1, scores=1) == {"out": 1, "hand": False, "scores": [3, -30]}


def test_fill_set_swap_for_the_fourth_suit():
    # set_joker_swap=fill_set, opening_threshold 40, hand_size 7.  Seat 0 opens with KS KH KD
    # JK=KC (40), throws 9C (its highest card outside the set), keeps 3C 5D 7S.  Seat 1 draws 2C,
    # opens with A set + Q set, and KC - the set's one missing suit - takes the joker back (the set
    # is now four naturals); the joker is laid off on its A set as AC; it throws 2C: out, -30.
    # Seat 0: 3 + 5 + 7 = 15.
    rules = CLASSIC.replace(hand_size=7, set_joker_swap="fill_set", opening_threshold=40)
    trace, ev = play(rules, {0: "KS KH KD JK 3C 5D 7S 9C", 1: "AS AH AD QS QC QD KC"}, stock="2C")
    assert ev == ["turn 0", "meld 0 set KS KH KD JK=KC", "discard 0 9C",
                  "turn 1", "draw 1 stock 2C", "meld 1 set AS AH AD", "meld 1 set QS QD QC",
                  "swap 1 m0 KC for JK=KC", "layoff 1 m1 JK=AC", "discard 1 2C", "out 1"]
    assert result(trace, out=1, hand=1, scores=1) == {"out": 1, "hand": False, "scores": [15, -30]}


def test_fill_set_needs_one_joker_per_meld():
    with pytest.raises(RulesError, match="set_joker_swap=fill_set needs max_jokers_per_meld=1, not 2"):
        Rules.preset("classic", set_joker_swap="fill_set", max_jokers_per_meld=2).validate()


@pytest.mark.parametrize("max_jokers", [1, 2])
def test_jokers_per_meld(max_jokers):
    # Seat 0 (hand_size 6): KS KH KD 9S JK JK 4C.
    #   max 2: 9S JK JK is a run 9S 10S JS (29; one natural card is enough) + K set 30 = 59:
    #     it opens, throws 4C and is out: a Hand.  Seat 1 (9D..AD, 60): (60 + 100) * 2 = 320.
    #   max 1: at most one joker per meld: the best is K set + one joker, 40 < 51: no opening.
    #     It throws 9S (9 points, outside that meld).  Seat 1 draws 2H, opens with 9D..AD,
    #     throws 2H: a Hand.  Seat 0 keeps K set, two jokers and 4C: 30 + 15 + 15 + 4 = 64,
    #     (64 + 100) * 2 = 328.
    rules = CLASSIC.replace(hand_size=6, max_jokers_per_meld=max_jokers)
    trace, ev = play(rules, {0: "KS KH KD 9S JK JK 4C", 1: "9D 10D JD QD KD AD"}, stock="2H")
    if max_jokers == 2:
        assert ev == ["turn 0", "meld 0 run 9S JK=10S JK=JS", "meld 0 set KS KH KD", "discard 0 4C", "out 0 hand"]
        assert trace["result"]["scores"] == [-60, 320]
    else:
        assert ev[:5] == ["turn 0", "discard 0 9S", "turn 1", "draw 1 stock 2H", "meld 1 run 9D 10D JD"]
        assert ev[-2:] == ["discard 1 2H", "out 1 hand"]
        assert trace["result"]["scores"] == [328, -60]


def test_swapped_joker_is_used_again_in_the_same_turn():
    # hand_size 9.  Seat 0 opens with K set + 9H JK JH (the joker is 10H) = 59, throws 5D.
    # Seat 1 (AS AH AD QS QC QD 10H 5C 6C) draws 8S, opens with A set + Q set (63), swaps 10H
    # for the joker and - the joker back in its hand - melds 5C 6C JK (the joker is 7C) in the
    # same turn; throws 8S: out, -30 (it played on seat 0's run: no Hand).  Seat 0 keeps
    # 3C 2S 4H = 9.
    rules = CLASSIC.replace(hand_size=9)
    trace, ev = play(rules, {0: "KS KH KD 9H JK JH 3C 5D 2S 4H", 1: "AS AH AD QS QC QD 10H 5C 6C"}, stock="8S")
    assert ev == ["turn 0", "meld 0 set KS KH KD", "meld 0 run 9H JK=10H JH", "discard 0 5D",
                  "turn 1", "draw 1 stock 8S", "meld 1 set AS AH AD", "meld 1 set QS QD QC",
                  "swap 1 m1 10H for JK=10H", "meld 1 run 5C 6C JK=7C", "discard 1 8S", "out 1"]
    assert result(trace, out=1, hand=1, scores=1) == {"out": 1, "hand": False, "scores": [9, -30]}


def test_aces_laid_off_high_and_low():
    # hand_size 10.  Seat 0 opens with JS QS KS (30) + 10 set (30) + 2D 3D 4D (9) = 69, throws
    # 8C, keeps 6H.  Seat 1 (AS AD 10S 5D + Q and J sets) draws 3S, opens with 60 and lays off,
    # highest value first: AS above KS (J Q K A), AD below 2D (A 2 3 4), 10S below JS, 5D above
    # 4D; throws 3S: out, -30.  Seat 0: 6H = 6.
    rules = CLASSIC.replace(hand_size=10)
    trace, ev = play(rules, {0: "JS QS KS 2D 3D 4D 10C 10H 10D 6H 8C", 1: "AS AD 10S 5D QH QC QD JC JH JD"},
                     stock="3S")
    assert ev == ["turn 0", "meld 0 run JS QS KS", "meld 0 set 10H 10D 10C", "meld 0 run 2D 3D 4D", "discard 0 8C",
                  "turn 1", "draw 1 stock 3S", "meld 1 set JH JD JC", "meld 1 set QH QD QC",
                  "layoff 1 m0 AS", "layoff 1 m2 AD", "layoff 1 m0 10S", "layoff 1 m2 5D", "discard 1 3S", "out 1"]
    assert result(trace, out=1, hand=1, scores=1) == {"out": 1, "hand": False, "scores": [6, -30]}


# --- section 6: going out and scoring -----------------------------------------------------------


@pytest.mark.parametrize("requires_discard", [False, True])
def test_going_out_with_or_without_a_final_discard(requires_discard):
    # Seat 0 (hand_size 6): KS KH KD KC QS QH QD = K set of 4 (40) + Q set (30).
    #   go_out_requires_discard false: it melds all 7 cards and is out without a discard.
    #   true: one card must be left to discard.  Without a K: 30 + 30 = 60 >= 51 (without a Q
    #     only the K set, 40); the first K (lowest card type) is KS: melds KH KD KC + Q set,
    #     discards KS.
    # Both are a Hand (-60).  Seat 1: 2H 3D 5C 7S 9D 4H = 30, unopened: (30 + 100) * 2 = 260.
    rules = CLASSIC.replace(hand_size=6, go_out_requires_discard=requires_discard)
    trace, ev = play(rules, {0: "KS KH KD KC QS QH QD", 1: "2H 3D 5C 7S 9D 4H"})
    if requires_discard:
        assert ev == ["turn 0", "meld 0 set QS QH QD", "meld 0 set KH KD KC", "discard 0 KS", "out 0 hand"]
    else:
        assert ev == ["turn 0", "meld 0 set QS QH QD", "meld 0 set KS KH KD KC", "out 0 hand"]
    assert result(trace, out=1, hand=1, turns=1, scores=1) == {"out": 0, "hand": True, "turns": 1,
                                                             "scores": [-60, 260]}


@pytest.mark.parametrize("requires_discard", [False, True])
def test_must_keep_a_card_to_discard(requires_discard):
    # Seat 0 (hand_size 5): KS KH KD QS QH QD, both sets needed for 60 >= 51.
    #   false: it melds all six and is out: a Hand.  Seat 1 (10D..AD, 51): (51 + 100) * 2 = 302.
    #   true: a legal opening would leave nothing to discard, so it cannot open.  It throws QS
    #     (Q and K each have three partners; QS is the lower card type).  Seat 1 draws 2S, opens
    #     with its run and throws 2S: a Hand.  Seat 0: KS KH KD QH QD = 50,
    #     (50 + 100) * 2 = 300.
    rules = CLASSIC.replace(hand_size=5, go_out_requires_discard=requires_discard)
    trace, ev = play(rules, {0: "KS KH KD QS QH QD", 1: "10D JD QD KD AD"}, stock="2S")
    if requires_discard:
        assert ev == ["turn 0", "discard 0 QS", "turn 1", "draw 1 stock 2S", "meld 1 run 10D JD QD KD AD",
                      "discard 1 2S", "out 1 hand"]
        assert trace["result"]["scores"] == [300, -60]
    else:
        assert ev == ["turn 0", "meld 0 set QS QH QD", "meld 0 set KS KH KD", "out 0 hand"]
        assert trace["result"]["scores"] == [-60, 302]


@pytest.mark.parametrize("penalty, doubles, score1", [
    # Seat 1 holds 2H 3D 5C 7S 9D 4H = 30 and never opened; seat 0 makes a Hand.
    ("add", True, (30 + 100) * 2),
    ("add", False, 30 + 100),
    ("flat", True, 100 * 2),
    ("flat", False, 100),
])
def test_hand_scoring_and_unopened_penalty(penalty, doubles, score1):
    rules = CLASSIC.replace(hand_size=6, unopened_penalty=penalty, hand_doubles_others=doubles)
    trace, ev = play(rules, {0: "KS KH KD KC QS QH QD", 1: "2H 3D 5C 7S 9D 4H"})
    assert ev[-1] == "out 0 hand"
    assert trace["result"]["scores"] == [-60, score1]


@pytest.mark.parametrize("hand_score, unopened_points, penalty, score1", [
    # Seat 1 holds 2H 3D 5C 7S 9D 4H = 30 and never opened; seat 0 makes a Hand, doubling it.
    (-100, 40, "add", (30 + 40) * 2),
    (-400, 0, "add", 30 * 2),
    (-60, 250, "flat", 250 * 2),
])
def test_hand_score_and_unopened_points(hand_score, unopened_points, penalty, score1):
    rules = CLASSIC.replace(hand_size=6, hand_score=hand_score, unopened_points=unopened_points,
                            unopened_penalty=penalty)
    trace, ev = play(rules, {0: "KS KH KD KC QS QH QD", 1: "2H 3D 5C 7S 9D 4H"})
    assert ev[-1] == "out 0 hand"
    assert trace["result"]["scores"] == [hand_score, score1]


def test_out_score_of_a_normal_out():
    # The deal of test_normal_out_after_opening_earlier: seat 0 opens in turn 1, goes out in
    # turn 3 (no Hand): out_score -10.  Seat 1 (2H 3D 5C 7S 9C 6H 8D = 40) never opened:
    # 40 + unopened_points 250 = 290.
    rules = CLASSIC.replace(hand_size=7, out_score=-10, unopened_points=250)
    trace, ev = play(rules, {0: "KS KH KD QS QH QD 4C 9D", 1: "2H 3D 5C 7S 9C 6H 8D"}, stock="10S KC")
    assert ev[-1] == "out 0"
    assert result(trace, out=1, hand=1, scores=1) == {"out": 0, "hand": False, "scores": [-10, 290]}


def test_hand_doubles_every_other_player():
    # 4 players, hand_size 6: seat 0 makes a Hand in turn 1.  Every other seat never opened:
    # seat 1: 2H 3D 5C 7S 9D 4H = 30 -> (30 + 100) * 2 = 260;
    # seat 2: JK AC 8C 10H 6S 2D = 15 + 11 + 8 + 10 + 6 + 2 = 52 -> 304;
    # seat 3: 3C 4S 6D 7H 9S 2C = 31 -> 262.
    rules = CLASSIC.replace(hand_size=6)
    trace, ev = play(rules, {0: "KS KH KD KC QS QH QD", 1: "2H 3D 5C 7S 9D 4H", 2: "JK AC 8C 10H 6S 2D",
                             3: "3C 4S 6D 7H 9S 2C"})
    assert ev == ["turn 0", "meld 0 set QS QH QD", "meld 0 set KS KH KD KC", "out 0 hand"]
    assert trace["result"]["scores"] == [-60, 260, 304, 262]


@pytest.mark.parametrize("joker_penalty, score1", [(15, (26 + 15 + 100) * 2), (30, (26 + 30 + 100) * 2)])
def test_joker_left_in_hand(joker_penalty, score1):
    # Seat 0 makes a Hand in turn 1; seat 1 is left with JK 2H 3D 5C 7S 9D: 26 + the joker.
    rules = CLASSIC.replace(hand_size=6, joker_penalty=joker_penalty)
    trace, ev = play(rules, {0: "KS KH KD KC QS QH QD", 1: "JK 2H 3D 5C 7S 9D"})
    assert ev[-1] == "out 0 hand"
    assert trace["result"]["scores"] == [-60, score1]


@pytest.mark.parametrize("policy", ["greedy", "hold-hand:bail_turn=1"])
def test_normal_out_after_opening_earlier(policy):
    # Seat 0 (hand_size 7): K set + Q set + 4C 9D.  Greedy (and hold-hand that gives up the Hand
    # from its first turn, bail_turn=1) opens in turn 1 with 60, throws 9D.  Seat 1 draws 10S
    # and throws it.  Turn 3: seat 0 draws KC, lays it off, throws 4C: out, but it laid down in
    # an earlier turn: no Hand, -30, nothing doubled.
    # Seat 1: 2H 3D 5C 7S 9C 6H 8D = 40, unopened: 140.
    rules = CLASSIC.replace(hand_size=7)
    trace, ev = play(rules, {0: "KS KH KD QS QH QD 4C 9D", 1: "2H 3D 5C 7S 9C 6H 8D"}, stock="10S KC",
                     policies=[policy, "greedy"])
    assert ev == ["turn 0", "meld 0 set QS QH QD", "meld 0 set KS KH KD", "discard 0 9D",
                  "turn 1", "draw 1 stock 10S", "discard 1 10S",
                  "turn 0", "draw 0 stock KC", "layoff 0 m1 KC", "discard 0 4C", "out 0"]
    assert result(trace, out=1, hand=1, scores=1) == {"out": 0, "hand": False, "scores": [-30, 140]}


def test_hold_hand_waits_for_a_hand():
    # The same deal with hold-hand in seat 0: 60 would open, but it cannot go out in one turn
    # (6 of its 8 cards meld), so it lays nothing down and throws 9D.  Turn 3: with KC it holds
    # K set of 4 + Q set (7 cards, 70) and 4C to discard: it lays everything down and is out in
    # one turn: a Hand, -60.  Seat 1: (40 + 100) * 2 = 280.
    rules = CLASSIC.replace(hand_size=7)
    trace, ev = play(rules, {0: "KS KH KD QS QH QD 4C 9D", 1: "2H 3D 5C 7S 9C 6H 8D"}, stock="10S KC",
                     policies=["hold-hand", "greedy"])
    assert ev == ["turn 0", "discard 0 9D",
                  "turn 1", "draw 1 stock 10S", "discard 1 10S",
                  "turn 0", "draw 0 stock KC", "meld 0 set QS QH QD", "meld 0 set KS KH KD KC",
                  "discard 0 4C", "out 0 hand"]
    assert result(trace, out=1, hand=1, scores=1) == {"out": 0, "hand": True, "scores": [-60, 280]}


def test_hold_hand_takes_the_discard_that_makes_its_hand():
    # Seat 0 (greedy, hand_size 7: KC 2H 3D 5S 7S 6D 8H 4C) throws KC (10 points).  Seat 1
    # (hold-hand: KS KH KD QS QH QD 9C) takes it: K set of 4 + Q set (70) with 9C to discard is a
    # Hand.  Seat 0: 2H 3D 5S 7S 6D 8H 4C = 35, (35 + 100) * 2 = 270.
    rules = CLASSIC.replace(hand_size=7)
    trace, ev = play(rules, {0: "KC 2H 3D 5S 7S 6D 8H 4C", 1: "KS KH KD QS QH QD 9C"},
                     policies=["greedy", "hold-hand"])
    assert ev == ["turn 0", "discard 0 KC", "turn 1", "draw 1 discard KC", "meld 1 set QS QH QD",
                  "meld 1 set KS KH KD KC", "discard 1 9C", "out 1 hand"]
    assert result(trace, out=1, hand=1, scores=1) == {"out": 1, "hand": True, "scores": [270, -60]}


@pytest.mark.parametrize("policy", ["greedy", "hold-hand", "card-reader"])
@pytest.mark.parametrize("waives", [True, False])
def test_hand_waives_threshold(policy, waives):
    # hand_size 5: the starter holds 2S 3S 4S + 5H 5D 5C, a run (9) and a set (15): 24 points,
    # far below 51, but all six cards meld.  hand_waives_threshold: every player goes out at once
    # with that Hand (-60); seat 1 (KH 9C 7D 8S 2H = 36, unopened) scores (36 + 100) * 2 = 272.
    # Without it the starter cannot open, lays nothing down and discards.
    rules = CLASSIC.replace(hand_size=5, hand_waives_threshold=waives)
    trace, ev = play(rules, {0: "2S 3S 4S 5H 5D 5C", 1: "KH 9C 7D 8S 2H"}, policies=[policy, "greedy"])
    if waives:
        assert ev[0] == "turn 0" and ev[-1] == "out 0 hand"
        assert melded(ev[1:-1], 0) == Counter("2S 3S 4S 5H 5D 5C".split())
        assert result(trace, turns=1, opened=1, scores=1) == {"turns": 1, "opened": [True, False], "scores": [-60, 272]}
    else:
        assert ev[0] == "turn 0" and ev[1].startswith("discard 0 ")


@pytest.mark.parametrize("policy", ["greedy", "hold-hand"])
def test_hand_waives_threshold_with_a_final_discard(policy):
    # go_out_requires_discard, hand_size 5.  The starter (greedy: 2C 4D 6H 8S 10C KD, no meld)
    # throws KD (10 points and no meld partner; 10C is a later card type).  Seat 1 (2H 3H 4H 5H
    # JS) does not take it (it fits nothing), draws 6H: the run 2H..6H is worth 20, below 51, and
    # leaves JS to discard: a Hand (-60).  Seat 0: 2C 4D 6H 8S 10C = 30, (30 + 100) * 2 = 260.
    rules = CLASSIC.replace(hand_size=5, hand_waives_threshold=True, go_out_requires_discard=True)
    trace, ev = play(rules, {0: "2C 4D 6H 8S 10C KD", 1: "2H 3H 4H 5H JS"}, stock="6H",
                     policies=["greedy", policy])
    assert ev == ["turn 0", "discard 0 KD", "turn 1", "draw 1 stock 6H", "meld 1 run 2H 3H 4H 5H 6H",
                  "discard 1 JS", "out 1 hand"]
    assert trace["result"]["scores"] == [260, -60]


# qahwa with hand_waives_threshold (a fuzz of c21c9ab found greedy and hold-hand breaking it).
QAHWA_WAIVES = QAHWA.replace(hand_waives_threshold=True)


def test_qahwa_waiver_greedy_makes_the_hand_it_took_the_card_for():
    # Seat 1 (greedy, unopened) holds 2S 4S 5S 4H 5H AD 2D 2D 3D 4D 5D 2C 3C JK.  The starter
    # (greedy) opens with AS AH AC twice (aces in a set count 11: 33 each), 2S 2H 2C (6) and
    # 3S 3H 3D (9): 81 points, and throws 5C, the higher of its cards left (4D 4S 5C).  With 5C
    # seat 1 has a Hand worth 48, below 51, which the waiver allows: 2S 2D 2C (6), 4S 4H 4D (12),
    # 5S 5H 5D 5C (20), AD 2D 3D JK=4D (10), 3C the discard.  Its most valuable arrangement
    # reaches 51, but no opening of 51 keeps a legal last discard (go_out_requires_discard, and
    # the taken 5C may not go back): greedy used to stop there, holding the taken card unmelded
    # (engine error 1).  The Hand scores -60; the
    # starter's 4D 4S (8) are doubled: 16.
    trace, ev = play(QAHWA_WAIVES, {0: "AS AH AC AS AH AC 3S 3H 3D 2H 2C 2S 4D 4S 5C",
                                    1: "2S 4S 5S 4H 5H AD 2D 2D 3D 4D 5D 2C 3C JK"})
    turns = turns_of(ev)
    assert turns[0][-1] == "discard 0 5C"
    assert turns[1][:2] == ["turn 1", "draw 1 discard 5C"] and turns[1][-2:] == ["discard 1 3C", "out 1 hand"]
    assert melded(turns[1][2:-2], 1) == Counter("2S 2D 2C 4S 4H 4D 5S 5H 5D 5C AD 2D 3D JK=4D".split())
    assert result(trace, out=1, hand=1, scores=1) == {"out": 1, "hand": True, "scores": [16, -60]}


@pytest.mark.parametrize("seed, deal, lineup", [(8014, 9408, "random,greedy"), (8020, 3061, "hold-hand,random")])
def test_qahwa_waiver_fuzz_deals_replay_legally(seed, deal, lineup):
    # The two deals of the fuzz (2 players, qahwa + hand_waives_threshold) on which greedy took the
    # top discard for a Hand and then opened without it or not at all (engine errors 1 and 4).
    trace = trace_deal(QAHWA_WAIVES, lineup.split(","), deal, seed)
    assert check_deal(trace) == []
    assert trace["result"]["turns"] > 0


# QA: at least 14 cards must go into new melds for a Hand.  14 cards: AS..7S (1+2+...+7 = 28 with
# the Ace low) and 8H..AH (68): 96 points; 13 cards: 2S..7S and 8H..AH.
QA_14 = "AS 2S 3S 4S 5S 6S 7S 8H 9H 10H JH QH KH AH 2D"
QA_13 = "2S 3S 4S 5S 6S 7S 8H 9H 10H JH QH KH AH 2D"
QA_OTHER = "3C 5D 7C 9D JC KD 4H 6C 8D 10C QD 2C 9C 3D"


@pytest.mark.parametrize("hand_size, is_hand, score1", [(14, True, 200), (13, False, 100)])
def test_qahwa_hand_needs_14_cards_in_new_melds(hand_size, is_hand, score1):
    # qahwa: the dealer starts, go_out_requires_discard, unopened_penalty flat,
    # hand_min_new_meld_cards 14.  The starter melds everything but 2D, discards it and is out
    # in its first turn.  With 14 cards in new melds that is a Hand (-60; seat 1's flat 100
    # doubled: 200); with 13 it is a normal out (-30; seat 1: 100).
    rules = QAHWA.replace(hand_size=hand_size)
    other = " ".join(QA_OTHER.split()[:hand_size])
    trace, ev = play(rules, {0: QA_14 if hand_size == 14 else QA_13, 1: other})
    assert trace["starter"] == trace["dealer"] == 0
    assert ev[-2:] == ["discard 0 2D", "out 0 hand" if is_hand else "out 0"]
    assert sum(len(e.split()) - 3 for e in ev if e.startswith("meld 0")) == hand_size
    assert result(trace, out=1, hand=1, turns=1, scores=1) == {
        "out": 0, "hand": is_hand, "turns": 1, "scores": [-60 if is_hand else -30, score1]}


def test_qahwa_hold_hand_does_not_go_down_with_13_cards():
    # hold-hand looks only for a Hand; with 13 meld cards there is none (14 needed), so in its
    # first turn it lays nothing down and discards 2D (the card outside its melds).
    rules = QAHWA.replace(hand_size=13)
    trace, ev = play(rules, {0: QA_13, 1: " ".join(QA_OTHER.split()[:13])}, policies=["hold-hand", "greedy"])
    assert ev[:2] == ["turn 0", "discard 0 2D"]


# --- section 6: partnership (opening_scope = team, 2 v 2) ------------------------------------


PARTNERSHIP = Rules.preset("partnership")


@pytest.mark.parametrize("scope", ["team", "player"])
def test_partnership_partner_of_the_out_player_scores_zero(scope):
    # 4 players, partners opposite (0 & 2, 1 & 3), hand_size 6.  Seat 0 makes a Hand in turn 1.
    # Seat 2, its partner, scores 0 (and, with opening_scope = team, counts as opened); the
    # opponents score (hand + 100) * 2: seat 1 2H 3D 5C 7S 9D 4H = 30 -> 260; seat 3
    # 2C 3H 5D 7H 9S 4D = 30 -> 260.
    rules = PARTNERSHIP.replace(hand_size=6, opening_scope=scope)
    trace = play_stacked_deal(rules, stacked(rules, 4, 3, {0: "KS KH KD KC QS QH QD", 1: "2H 3D 5C 7S 9D 4H",
                                                           2: "6S 8C 10H 2S 4C 6D", 3: "2C 3H 5D 7H 9S 4D"}),
                              ["greedy"] * 4, dealer=3)
    assert trace["result"]["scores"] == [-60, 260, 0, 260]
    assert trace["result"]["opened"] == [True, False, scope == "team", False]
    assert check_deal(trace) == []


def test_partnership_normal_finish_scores_opponents_as_usual():
    # Seat 0 (hand_size 7) opens with Q set + K set (60) in turn 1 and throws 9D.  Seats 1-3
    # each draw an Ace (the stock: AC AD AH), which nobody can use, and throw it (11 points, their
    # highest card).  Turn 5: seat 0 draws KC, lays it off on its K set (meld 1) and throws 4C:
    # out, -30, no Hand (it laid down in turn 1), nothing doubled.  Seat 2, its partner, scores
    # 0 although it holds 2+5+8+10+6+3+7 = 41 and never opened; the opponents pay their cards +
    # 100: seat 1 2D 5H 7C 9H JD 3C 4S = 40 -> 140; seat 3 3D 5D 7H 9S JC 2H 6C = 42 -> 142.
    rules = PARTNERSHIP.replace(hand_size=7)
    hands = {0: "KS KH KD QS QH QD 4C 9D", 1: "2D 5H 7C 9H JD 3C 4S", 2: "2C 5C 8H 10D 6S 3S 7D",
             3: "3D 5D 7H 9S JC 2H 6C"}
    trace, ev = play(rules, hands, stock="AC AD AH KC", players=4, dealer=3)
    assert ev == ["turn 0", "meld 0 set QS QH QD", "meld 0 set KS KH KD", "discard 0 9D",
                  "turn 1", "draw 1 stock AC", "discard 1 AC", "turn 2", "draw 2 stock AD", "discard 2 AD",
                  "turn 3", "draw 3 stock AH", "discard 3 AH",
                  "turn 0", "draw 0 stock KC", "layoff 0 m1 KC", "discard 0 4C", "out 0"]
    assert result(trace, out=1, hand=1, scores=1, opened=1) == {
        "out": 0, "hand": False, "scores": [-30, 140, 0, 142], "opened": [True, False, False, False]}


@pytest.mark.parametrize("scope, lays", [("team", True), ("player", False)])
def test_team_opening_scope_lets_the_partner_lay_small_melds(scope, lays):
    # Seat 0 opens with 60 in turn 1.  With opening_scope = team its partner, seat 2, counts as
    # opened: in its first turn (turn 3) it lays 2H 3H 4H (9 points, far below 51) and throws its
    # highest card; with opening_scope = player 9 points cannot open and it lays nothing.
    rules = PARTNERSHIP.replace(hand_size=7, opening_scope=scope)
    hands = {0: "KS KH KD QS QH QD 4C 9D", 1: "2D 5H 7C 9H JD KC 4S", 2: "2H 3H 4H 7C 9C JS 5D",
             3: "3D 5D 7H 9S JC 2C 6D"}
    trace, ev = play(rules, hands, stock="3C 8D 10H 6S", players=4, dealer=3)
    t = turns_of(ev)
    assert t[0] == ["turn 0", "meld 0 set QS QH QD", "meld 0 set KS KH KD", "discard 0 9D"]
    assert t[2][:2] == ["turn 2", "draw 2 stock 8D"]
    if lays:
        assert t[2][2:] == ["meld 2 run 2H 3H 4H", "discard 2 JS"]
    else:
        assert t[2][2:] == ["discard 2 JS"]


@pytest.mark.parametrize("support", [0, 1])
def test_support_hand_holds_back_a_normal_finish(support):
    # Seat 0 hold-hand (can make no Hand), seat 2 its partner, greedy with support_hand.  Seat 2
    # opens in its first turn with 10S..AS (51) and throws 8D, keeping 5S 6S.  In turn 7 it
    # draws 7S: plain greedy melds 5S 6S 7S and is out (-30, partner 0); with support_hand = 1
    # the hold-hand partner is still playing for a Hand (nothing laid, not bailed: the
    # opponents hold 7 cards, the partner's 2 do not count), so it keeps two cards: it cannot
    # meld the run and keep two, so it throws 7S (the highest) and plays on.
    rules = PARTNERSHIP.replace(hand_size=7)
    hands = {0: "2C 4D 6H 8S 10C QD AH 3S", 1: "2D 5H 7C 9H JD KC 4C", 2: "10S JS QS KS AS 5S 6S",
             3: "3D 5C 7H 9D JC KH 2H"}
    pol = ["hold-hand", "greedy", f"greedy:support_hand={support}", "greedy"]
    trace, ev = play(rules, hands, stock="3C 8D 10H 4S 6D 7S", players=4, dealer=3, policies=pol)
    t = turns_of(ev)
    assert t[2][:3] == ["turn 2", "draw 2 stock 8D", "meld 2 run 10S JS QS KS AS"]
    assert t[6][:2] == ["turn 2", "draw 2 stock 7S"]
    if support:
        assert t[6][2:] == ["discard 2 7S"]
        assert len(t) > 7
    else:
        assert t[6][2:] == ["meld 2 run 5S 6S 7S", "out 2"]
        assert trace["result"]["scores"][2] == -30 and trace["result"]["scores"][0] == 0


def test_longest_legal_round_fits_the_turn_limit_and_the_move_log():
    # max_reshuffles = 30 (the largest allowed) with tiny hands: void after 101 + 99 * 30 =
    # 3071 turns - under MAX_TURNS, and the whole round is in the move log.
    rules = CLASSIC.replace(hand_size=3, max_reshuffles=30)
    trace, ev = play(rules, {0: "KS 2H 5D 9C", 1: "3S 6H 8D"})
    assert trace["result"]["turns"] == 3071 and ev[-1] == "void"


def test_the_pickup_errors_name_the_move_and_the_rule():
    # The error records of the turn's pick-up checks (RULES.md sections 3-4) in words, as
    # check-policy and simulate print them: card 9C is card type 3 * 13 + 8 = 47.
    import numpy as np

    from handsim.games.hand.kernels import state as S
    from handsim.games.hand.policies.violations import describe_move

    def words(code, a, b=0, c=0):
        err = np.zeros(S.ERR_WIDTH, dtype=np.int64)
        err[S.ER_CODE], err[S.ER_A], err[S.ER_B], err[S.ER_C] = code, a, b, c
        return describe_move(err)

    move, rule = words(S.E_OPENED_WITHOUT_TAKEN, parse_card("9C"), 0)
    assert move == "took 9C from the discard pile and opened without it in a new meld"
    assert rule.startswith("discard_pickup = must_open_using: ")
    assert words(S.E_OPENED_WITHOUT_TAKEN, parse_card("9C"), 1)[1].startswith("opening_requires_discard_pickup: ")
    move, rule = words(S.E_OPENED_WITHOUT_PICKUP, 60, 5)
    assert move == ("opened with 60 points without taking the top discard and kept 5 card(s) or laid off on "
                    "another player's meld")
    assert rule.startswith("opening_requires_discard_pickup: ") and "a Hand" in rule
