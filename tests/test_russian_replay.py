"""The Russian Hand engine against its pure-Python twin (RULES.md §8): games of every player
count (2-5) replayed through :func:`handsim.games.russian.checker.check_deal`, over every rule
variant and every policy - 250 per count in the fast suite, 2,000 per count (and 25,000) in the
slow sweeps; and the checker catches every kind of wrong move log."""

from __future__ import annotations

import copy
import itertools
import json
from collections import Counter

import pytest

from handsim.games.russian.checker import check_deal
from handsim.games.russian.rules import RussianRules
from handsim.games.russian.trace import play_stacked_deal, trace_deal

#: Every value of every option that changes play (and two hand sizes).
VARIANTS = [
    {},
    {"stock_out_end": "last_card"},
    {"first_round": "one_meld"},
    {"first_round": "free"},
    {"ace_value": 1},
    {"hand_size": 11, "stock_out_end": "last_card"},
    {"first_round": "one_meld", "stock_out_end": "last_card", "ace_value": 1},
]

#: Line-ups by players: every policy, patient at settings that hold back much, and players who
#: never play unless they can go out.
LINEUPS = {
    2: ["greedy,greedy", "random,greedy", "patient,random", "patient:hold_max=20,patient:hold_max=20",
        "random,patient:hold_max=3,stock_min=10"],
    3: ["greedy,greedy,greedy", "random,random,patient", "patient:hold_max=20,random,patient:hold_max=20",
        "greedy,patient:wary_at=3,random"],
    4: ["greedy,greedy,greedy,greedy", "random,greedy,patient,random",
        "patient:hold_max=20,patient:hold_max=20,patient:hold_max=20,random", "patient,patient,greedy,greedy"],
    5: ["greedy,greedy,greedy,greedy,greedy", "random,patient,greedy,random,patient:hold_max=2",
        "patient:hold_max=20,patient:hold_max=20,random,patient:hold_max=20,patient:hold_max=20"],
}

#: Games that end on an empty stock: big hands, ``last_card``, players who never play unless
#: they can go out - with 4 players the stock is drawn out in 24 turns, the counts are equal and
#: the value decides, or the game is drawn; with 5 the stock holds 4 cards and the last seat wins.
STOCK_OUT = {4: [({"hand_size": 20, "stock_out_end": "last_card"}, ",".join(["patient:hold_max=20"] * 4))],
             5: [({"hand_size": 20, "stock_out_end": "last_card"}, ",".join(["patient:hold_max=20"] * 5))]}

#: Games per player count: the fast suite replays FAST_GAMES, the slow sweep GAMES (the
#: issue's 2,000 per player count; about 50 ms a game with the move log and the Python replay).
GAMES = 2000
FAST_GAMES = 250


def replay(players: int, games: int, seed: int):
    cases = list(itertools.product(VARIANTS, LINEUPS[players])) + STOCK_OUT.get(players, [])
    counts = Counter()
    problems = []
    rules = {}
    for d in range(games):
        ov, lineup = cases[d % len(cases)]
        key = tuple(sorted(ov.items()))
        r = rules.get(key) or rules.setdefault(key, RussianRules.preset(**ov))
        tr = trace_deal(r, lineup, d, seed)
        p = check_deal(tr)
        if p:
            problems.append((d, ov, lineup, p[:3]))
        res = tr["result"]
        counts[res["end"]] += 1
        counts["draw"] += res["draw"]
        for e in tr["events"]:
            if e["type"] == "play":
                counts["plays"] += 1
                counts["rearranged"] += rearranged(e["table_before"], e["table_after"])
    return counts, problems


def rearranged(before, after) -> bool:
    """Whether a play moved table cards between melds: some meld before is in no meld after."""
    after = [Counter(m) for m in after]
    return any(not any(not (Counter(m) - n) for n in after) for m in before)


def _check_sweep(players, games, seed):
    counts, problems = replay(players, games, seed=seed)
    assert problems == []
    assert counts["out"] + counts["stock_out"] == games
    # the corners occur: plays that move table cards between melds; games ended by an empty
    # stock (which greedy and patient players almost never let happen with 2 or 3 players)
    assert counts["out"] > games // 4 and counts["rearranged"] > games // 10
    if players >= 4:
        assert counts["stock_out"] > games // 100
    return counts


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_games_replay_through_the_checker(players):
    _check_sweep(players, FAST_GAMES, seed=100 + players)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_2000_games_per_player_count_replay_through_the_checker(players):
    counts = _check_sweep(players, GAMES, seed=100 + players)
    if players == 4:
        assert counts["draw"] > 0  # a drawn game: equal cards and equal value


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_more_games_replay_through_the_checker(players):
    counts, problems = replay(players, 25_000, seed=900 + players)
    assert problems == []
    assert counts["stock_out"] > 0




# ------------------------------------------------------------------------------ the checker catches


@pytest.fixture(scope="module")
def game():
    """A 3-player game with draws, plays and a rearranged table, ending with a player going out."""
    for d in range(50):
        tr = trace_deal(RussianRules.preset(), "greedy,greedy,greedy", d, 8)
        if tr["result"]["end"] == "out" and any(
                e["type"] == "play" and any(m not in e["table_after"] for m in e["table_before"]) for e in tr["events"]):
            assert check_deal(tr) == []
            return tr
    raise AssertionError("no suitable game")


def _first(tr, kind, pred=lambda e: True):
    return next(i for i, e in enumerate(tr["events"]) if e["type"] == kind and pred(e))


def test_a_wrong_draw_is_named(game):
    tr = copy.deepcopy(game)
    i = _first(tr, "draw")
    real = tr["events"][i]["card"]
    other = "KS" if real != "KS" else "QS"
    tr["events"][i]["card"] = other
    turn = sum(1 for e in tr["events"][:i] if e["type"] == "turn")
    assert check_deal(tr)[0].startswith(f"deal {tr['deal']}, turn {turn}, seat {tr['events'][i]['seat']}: "
                                        f"draws {other}, but the top stock card is {real}")


def test_a_card_lost_from_the_table_is_named(game):
    tr = copy.deepcopy(game)
    i = _first(tr, "play", lambda e: any(len(m) > 3 for m in e["table_after"]))
    meld = next(m for m in tr["events"][i]["table_after"] if len(m) > 3)
    lost = meld.pop()
    msgs = check_deal(tr)
    assert any(f"the table after is not the table before plus the played cards: {lost} is missing" in m for m in msgs)


def test_a_card_played_from_nowhere_is_named(game):
    tr = copy.deepcopy(game)
    i = _first(tr, "play")
    ev = tr["events"][i]
    held = Counter(c for h in tr["hands"] for c in h)
    card = next(c for c in ("KS", "QS", "JS", "KH", "QH") if c not in ev["cards"] and held[c] == 0)
    ev["cards"].append(card)
    assert any(f"play: {card} is played but not in the hand" in m for m in check_deal(tr))


def test_an_illegal_meld_is_named(game):
    tr = copy.deepcopy(game)
    i = _first(tr, "play", lambda e: any(len(m) >= 4 for m in e["table_after"]))
    meld = next(m for m in tr["events"][i]["table_after"] if len(m) >= 4)
    meld[1], meld[-1] = meld[-1], meld[1]  # order does not matter ...
    assert check_deal(tr) == [] or all("illegal meld" not in m for m in check_deal(tr))
    tr["events"][i]["table_after"].append(meld[:2])  # ... but a meld of two cards does
    msgs = check_deal(tr)
    assert any("the table after holds an illegal meld" in m for m in msgs)


def test_a_wrong_winner_and_a_missing_end_are_named(game):
    tr = copy.deepcopy(game)
    winner = tr["result"]["winner"]
    tr["result"]["winner"] = (winner + 1) % 3
    assert any(f"result: winner is {(winner + 1) % 3}, but the rules give {winner}" in m for m in check_deal(tr))
    tr = copy.deepcopy(game)
    assert tr["events"].pop()["type"] == "out"
    msgs = check_deal(tr)
    assert any("the hand is empty: the game must end there" in m for m in msgs)
    assert any("the log ends but the game has not ended" in m for m in msgs)


def test_turn_order_and_one_move_per_turn(game):
    tr = copy.deepcopy(game)
    i = _first(tr, "turn", lambda e: e["turn"] == 2)
    tr["events"][i]["seat"] = 2
    assert any("turn 2 is seat 1's" in m for m in check_deal(tr))
    tr = copy.deepcopy(game)
    i = _first(tr, "draw")
    tr["events"].insert(i + 1, dict(tr["events"][i]))
    assert any("a second move (draw) in one turn" in m for m in check_deal(tr))


def test_a_first_round_lay_off_is_named():
    from test_russian_engine import FIRST_ROUND

    free = play_stacked_deal(RussianRules.preset(first_round="free"), FIRST_ROUND, ["greedy", "greedy"])
    assert check_deal(free) == []
    free["rules"]["first_round"] = "new_melds"  # the same moves under the rule that forbids the lay-off
    msgs = check_deal(free)
    assert any("turn 2, seat 1: play: first round: only new melds of hand cards may be laid, but the table's "
               "5H 6H 7H was changed" in m for m in msgs)


def test_the_stock_out_rules_are_checked():
    rules = RussianRules.preset(hand_size=20, stock_out_end="last_card")
    lineup = ",".join(["patient:hold_max=20"] * 5)
    tr = next(t for d in range(20) if (t := trace_deal(rules, lineup, d, 1))["result"]["end"] == "stock_out")
    assert check_deal(tr) == []
    # the stock holds 4 cards: the fourth draw ends the game; the seat that did not draw wins
    assert tr["result"]["turns"] == 4 and tr["result"]["cards_left"] == [21, 21, 21, 21, 20]
    assert tr["result"]["winner"] == 4
    wrong = copy.deepcopy(tr)
    wrong["rules"]["stock_out_end"] = "must_draw"
    assert any("must_draw: the game ends at a turn that is not a play while the stock is empty" in m
               for m in check_deal(wrong))
    early = copy.deepcopy(tr)
    i = max(i for i, e in enumerate(early["events"]) if e["type"] == "draw")
    del early["events"][i - 1:i + 1]  # the last turn gone: the stock still holds a card
    assert any("the game ends on an empty stock, but it holds 1 card" in m for m in check_deal(early))


# ------------------------------------------------------------------------------ every kind of fault


def _nth_play(tr, pred=lambda e: True):
    return tr["events"][_first(tr, "play", lambda e: bool(e["table_before"]) and pred(e))]


def _drop_before_meld(tr):
    _nth_play(tr)["table_before"].pop()


def _swap_before_card(tr):
    ev = _nth_play(tr)
    meld = ev["table_before"][0]
    meld[0] = "KS" if meld[0] != "KS" else "QS"


def _empty_play(tr):
    ev = _nth_play(tr)
    ev["cards"] = []
    ev["table_after"] = copy.deepcopy(ev["table_before"])


def _take_back(tr):  # a table card goes back to the hand: the table after lacks it
    ev = _nth_play(tr, lambda e: any(len(m) > 3 for m in e["table_before"]))
    meld = next(m for m in ev["table_before"] if len(m) > 3)
    card = meld[0]
    for m in ev["table_after"]:
        if card in m:
            m.remove(card)
            break


def _result(key, change):
    def corrupt(tr):
        tr["result"][key] = change(tr["result"][key])
    return corrupt


def _event_after_end(tr):
    tr["events"].append({"type": "draw", "seat": tr["events"][-1]["seat"], "card": "2C"})


def _out_too_early(tr):
    i = _first(tr, "draw")
    tr["events"].insert(i + 1, {"type": "out", "seat": tr["events"][i]["seat"]})


def _no_move(tr):
    del tr["events"][_first(tr, "draw")]


def _unknown_event(tr):
    i = _first(tr, "draw")
    tr["events"][i]["type"] = "discard"


def _bad_deck(tr):
    tr["deck"][-1] = tr["deck"][0] if tr["deck"][0] != tr["deck"][-1] else tr["deck"][1]


def _bad_hand(tr):
    tr["hands"][1][0] = tr["hands"][0][0]


def _illegal_after(tr):  # a legal table after, but one meld split into a pair and the rest
    ev = _nth_play(tr, lambda e: any(len(m) >= 5 for m in e["table_after"]))
    meld = next(m for m in ev["table_after"] if len(m) >= 5)
    ev["table_after"].remove(meld)
    ev["table_after"] += [meld[:2], meld[2:]]


FAULTS = {
    "the table before is not the table": (_drop_before_meld, "play: the table before, as logged, is not the table as it stands"),
    "a card of the table before replaced": (_swap_before_card, "play: the table before, as logged, is not the table as it stands"),
    "a play of no card": (_empty_play, "a play must put at least one hand card on the table"),
    "a table card taken back": (_take_back, "the table after is not the table before plus the played cards"),
    "an illegal meld after": (_illegal_after, "the table after holds an illegal meld"),
    "wrong cards left": (_result("cards_left", lambda v: [x + 1 for x in v]), "result: cards_left is"),
    "wrong value left": (_result("value_left", lambda v: [x + 1 for x in v]), "result: value_left is"),
    "wrong turns": (_result("turns", lambda v: v + 1), "result: turns is"),
    "a drawn game claimed": (_result("draw", lambda v: not v), "result: draw is"),
    "a move after the end": (_event_after_end, "the game had ended (out), but a 'draw' event follows"),
    "out holding cards": (_out_too_early, "goes out holding"),
    "a turn without a move": (_no_move, "the turn ended without a draw or a play"),
    "an unknown event": (_unknown_event, "unknown event 'discard'"),
    "a deck that is not two decks": (_bad_deck, "the deck is not two full decks"),
    "a hand not dealt from the deck": (_bad_hand, "the hand dealt is not the deck's cards for that seat"),
}


def _as_read(tr):
    """The move log as a file gives it back (the traced dict shares one list between a play's
    table after and the next play's table before; a file does not)."""
    return json.loads(json.dumps(tr))


@pytest.mark.parametrize("kind", sorted(FAULTS))
def test_the_checker_catches_each_kind_of_fault(game, kind):
    corrupt, message = FAULTS[kind]
    assert check_deal(_as_read(game)) == []
    tr = _as_read(game)
    corrupt(tr)
    msgs = check_deal(tr)
    assert any(message in m for m in msgs), msgs


def test_melds_before_in_another_order_are_the_same_table(game):
    tr = _as_read(game)
    ev = _nth_play(tr, lambda e: len(e["table_before"]) >= 2)
    ev["table_before"].reverse()
    for m in ev["table_before"]:
        m.reverse()
    assert check_deal(tr) == []


def test_a_second_meld_in_the_first_round_under_one_meld_is_named():
    rules = RussianRules.preset()
    for d in range(400):
        tr = trace_deal(rules, "greedy,greedy,greedy,greedy", d, 3)
        first = tr["events"][:next(i for i, e in enumerate(tr["events"]) if e["type"] == "turn" and e["turn"] == 5)]
        if any(e["type"] == "play" and len(e["table_after"]) - len(e["table_before"]) == 2 for e in first):
            break
    else:
        raise AssertionError("no first-round play of two melds")
    assert check_deal(tr) == []
    tr["rules"]["first_round"] = "one_meld"
    assert any("first round (first_round = one_meld): one new meld only, not 2" in m for m in check_deal(tr))
