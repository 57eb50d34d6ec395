"""The Russian Hand engine (RULES.md §8): hand-built games worked out by hand, the end of a game,
the checks on a staged play, determinism, and the policies' defining behaviour."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from handsim.cards import format_cards, parse_cards
from handsim.games.russian.checker import check_deal
from handsim.games.russian.kernels import rearrange as K
from handsim.games.russian.kernels import state as S
from handsim.games.russian.rules import INDEX, PARAMS, RussianRules
from handsim.games.russian.trace import play_stacked_deal, trace_deal

RULES = RussianRules.preset()


def stacked(*hands: str, stock: str = "") -> list[int]:
    """A full deck: the hands in seat order (``hand_size`` cards each), then the stock top, then
    the rest of the two decks in card order."""
    cards = [c for h in hands for c in parse_cards(h)] + (parse_cards(stock) if stock else [])
    rest = Counter({t: 2 for t in range(52)}) - Counter(cards)
    return cards + sorted(rest.elements())


def plays(trace) -> list[tuple[int, int, list[str]]]:
    """``(turn, seat, cards)`` of every play (cards sorted as text)."""
    out, turn = [], 0
    for e in trace["events"]:
        if e["type"] == "turn":
            turn = e["turn"]
        elif e["type"] == "play":
            out.append((turn, e["seat"], sorted(e["cards"])))
    return out


def test_rules_vector_indices_match_the_kernel():
    assert (S.R_HAND_SIZE, S.R_FIRST_ROUND, S.R_STOCK_OUT_END, S.R_ACE_VALUE) == (
        INDEX["hand_size"], INDEX["first_round"], INDEX["stock_out_end"], INDEX["ace_value"])
    assert S.N_RULES == len(PARAMS)
    first, stock = (next(p for p in PARAMS if p.name == n) for n in ("first_round", "stock_out_end"))
    assert first.choices.index("new_melds") == S.FR_NEW_MELDS and first.choices.index("one_meld") == S.FR_ONE_MELD
    assert first.choices.index("free") == S.FR_FREE
    assert stock.choices.index("must_draw") == S.SO_MUST_DRAW and stock.choices.index("last_card") == S.SO_LAST_CARD


def test_dispatch_is_generated_from_the_registry():
    from handsim.games.russian.policies import registry

    assert registry.DISPATCH_PATH.read_text() == registry.dispatch_source()


# ------------------------------------------------------------------------------ hand-built games

# seat 0 holds two melds and a King; seat 1 a run of clubs, two hearts that extend seat 0's run
# once lay-offs are allowed, and two loose cards
FIRST_ROUND = stacked("5H 6H 7H 9S 9D 9C KC", "8H 9H 2C 3C 4C QD JS", stock="KD KS")


def test_first_round_new_melds_only_then_lay_offs():
    tr = play_stacked_deal(RULES, FIRST_ROUND, ["greedy", "greedy"])
    assert check_deal(tr) == []
    p = plays(tr)
    # turn 1: seat 0 lays both melds; turn 2 (still the first round): seat 1 may not lay off 8H 9H,
    # only its new meld 2C 3C 4C; turn 3: seat 0's KC fits nowhere, it draws KD; turn 4: 8H 9H go on
    assert p[0] == (1, 0, sorted(["5H", "6H", "7H", "9S", "9D", "9C"]))
    assert p[1] == (2, 1, ["2C", "3C", "4C"])
    assert tr["events"][tr["events"].index({"type": "turn", "seat": 0, "turn": 3}) + 1] == {
        "type": "draw", "seat": 0, "card": "KD"}
    assert p[2] == (4, 1, ["8H", "9H"])


def test_first_round_free_allows_lay_offs_at_once():
    tr = play_stacked_deal(RULES.replace(first_round="free"), FIRST_ROUND, ["greedy", "greedy"])
    assert check_deal(tr) == []
    assert plays(tr)[1] == (2, 1, sorted(["8H", "9H", "2C", "3C", "4C"]))


def test_first_round_one_meld_lays_the_best_single_meld():
    tr = play_stacked_deal(RULES.replace(first_round="one_meld"), FIRST_ROUND, ["greedy", "greedy"])
    assert check_deal(tr) == []
    # both melds have 3 cards; the set of nines (27 points) beats the run 5-6-7 of hearts (18)
    assert plays(tr)[0] == (1, 0, ["9C", "9D", "9S"])
    assert tr["events"][1]["table_after"] == [["9S", "9D", "9C"]]


def test_going_out_in_the_first_turn_wins_at_once():
    deck = stacked("5H 6H 7H 8H 9S 9D 9C", "2C 3C KD QS 4H 10D JC")
    tr = play_stacked_deal(RULES, deck, ["greedy", "greedy"])
    assert check_deal(tr) == []
    res = tr["result"]
    assert (res["end"], res["winner"], res["draw"], res["turns"]) == ("out", 0, False, 1)
    assert res["won"] == [True, False]
    # seat 1 keeps 2C 3C KD QS 4H 10D JC: 2 + 3 + 10 + 10 + 4 + 10 + 10
    assert res["cards_left"] == [0, 7] and res["value_left"] == [0, 49]
    assert tr["events"][-1] == {"type": "out", "seat": 0}


def test_patient_holds_back_a_single_lay_off_while_the_stock_lasts():
    deck = stacked("5H 6H 7H 9S 9D 9C KC", "8H 2C 3C 4C QD JS 5S", stock="KD KS")
    greedy = plays(play_stacked_deal(RULES, deck, ["greedy", "greedy"]))
    patient = play_stacked_deal(RULES, deck, ["greedy", "patient"])
    assert check_deal(patient) == []
    # turn 4: greedy lays off 8H; patient holds that single card back and draws the top stock card
    assert greedy[2] == (4, 1, ["8H"])
    turn4 = patient["events"].index({"type": "turn", "seat": 1, "turn": 4})
    assert patient["events"][turn4 + 1] == {"type": "draw", "seat": 1, "card": "KS"}
    # with a reserve larger than the stock, the stock counts as running low: it plays like greedy
    eager = plays(play_stacked_deal(RULES, deck, ["greedy", "patient:stock_min=100"]))
    assert eager[2] == (4, 1, ["8H"])
    assert plays(play_stacked_deal(RULES, deck, ["greedy", "patient:hold_max=0"]))[2] == (4, 1, ["8H"])


def test_a_stacked_deck_must_be_two_full_decks():
    from handsim.cards import CardError

    with pytest.raises(CardError, match="104 cards"):
        play_stacked_deal(RULES, FIRST_ROUND[:-1], ["greedy", "greedy"])


# ------------------------------------------------------------------------------ the end of a game


def _table(players: int, hands: list[str], **rules):
    arr = S.new_state(players, RULES.replace(**rules).to_vector(), 0)
    st = arr[0]
    for s, h in enumerate(hands):
        for c in parse_cards(h, allow_empty=True):
            st["hand"][s, c] += 1
        st["hand_n"][s] = len(parse_cards(h, allow_empty=True))
    return arr, st


@pytest.mark.parametrize("hands, rules, end, flags", [
    # fewest cards wins
    (["AS AH", "KS", "2C 3D 4H"], {}, S.END_STOCK_WIN, [0, S.FLAG_WON, 0]),
    # equal counts: the lowest value wins (AS AH = 22 against KS 2C = 12)
    (["AS AH", "KS 2C", "2C 3D 4H"], {}, S.END_STOCK_WIN, [0, S.FLAG_WON, 0]),
    # with ace_value = 1 the Aces are worth 2 against 12
    (["AS AH", "KS 2C", "2C 3D 4H"], {"ace_value": 1}, S.END_STOCK_WIN, [S.FLAG_WON, 0, 0]),
    # equal counts and values: a draw between the tied players only (10S JS = QH KH = 20)
    (["10S JS", "QH KH", "2C"], {}, S.END_STOCK_WIN, [0, 0, S.FLAG_WON]),
    (["10S JS", "QH KH", "2C 3C 4C"], {}, S.END_STOCK_DRAW, [S.FLAG_DREW, S.FLAG_DREW, 0]),
])
def test_stock_out_result(hands, rules, end, flags):
    arr, st = _table(3, hands, **rules)
    out = np.zeros(S.MAX_SEATS, np.uint8)
    assert S.stock_out_result(st, out) == end
    assert out[:3].tolist() == flags


# ------------------------------------------------------------------------------ staged plays


def _stage(st, placed: str, melds: list[str]):
    st["st_placed"][:] = 0
    for c in parse_cards(placed, allow_empty=True):
        st["st_placed"][c] += 1
    st["st_n"] = len(parse_cards(placed, allow_empty=True))
    from handsim.games.russian.rearrange import meld_row

    for i, m in enumerate(melds):
        st["st_melds"][i] = meld_row(parse_cards(m))
    st["st_n_melds"] = len(melds)


def _with_table(st, melds: list[str]):
    from handsim.games.russian.rearrange import meld_row

    for i, m in enumerate(melds):
        st["melds"][i] = meld_row(parse_cards(m))
        for c in parse_cards(m):
            st["tcnt"][c] += 1
    st["n_melds"] = len(melds)


@pytest.mark.parametrize("placed, after, turn, rules, why", [
    ("8H", ["5H 6H 7H 8H"], 5, {}, 0),
    ("", ["5H 6H 7H"], 5, {}, S.WHY_NOTHING),
    ("9H", ["5H 6H 7H 8H 9H"], 5, {}, S.WHY_NOT_HELD),  # 9H is not in the hand
    ("8H", ["5H 6H 7H 8H", "2C 3C 4C"], 5, {}, S.WHY_CARDS),  # clubs from nowhere
    ("8H", ["6H 7H 8H"], 5, {}, S.WHY_CARDS),  # 5H lost
    ("8H 2C 3C 4C", ["5H 6H 7H 8H", "2C 3C 4C"], 1, {}, S.WHY_FIRST_ROUND),  # a lay-off in the first round
    ("2C 3C 4C", ["5H 6H 7H", "2C 3C 4C"], 1, {}, 0),  # a new meld in the first round
    ("8H 2C 3C 4C", ["5H 6H 7H 8H", "2C 3C 4C"], 1, {"first_round": "free"}, 0),
])
def test_the_engine_checks_every_staged_play(placed, after, turn, rules, why):
    arr, st = _table(2, ["8H 2C 3C 4C KS", "AD"], **rules)
    _with_table(st, ["5H 6H 7H"])
    st["turn"] = turn
    _stage(st, placed, after)
    assert S.staged_problem(st, 0) == why
    if why == 0:
        assert S.apply_play(st, 0)
        assert st["hand_n"][0] == 5 - len(parse_cards(placed))
        assert st["n_melds"] == len(after)
    else:
        assert not S.apply_play(st, 0) and st["err"] == S.ERR_BAD_PLAY and st["err_why"] == why
        assert st["hand_n"][0] == 5  # nothing applied


def test_an_illegal_meld_row_is_refused():
    arr, st = _table(2, ["8H", "AD"])
    _with_table(st, ["5H 6H 7H"])
    st["turn"] = 5
    _stage(st, "8H", ["5H 6H 7H 8H"])
    st["st_melds"][0] = (K.RUN, 1, 5, 6)  # a run of two cards
    assert S.staged_problem(st, 0) == S.WHY_BAD_MELD


# ------------------------------------------------------------------------------ determinism


def _chunk(lineup, players, seed, start, n, rules=RULES):
    from handsim.games.russian.game import GAME
    from handsim.policies import lineup_arrays, parse_lineup

    pol, pp = lineup_arrays(parse_lineup(lineup, game="russian"))
    return GAME.run_chunk(rules.to_vector(), pol, pp, players, seed, start, n)


def test_game_i_depends_on_seed_and_i_only():
    whole = _chunk("greedy,random,patient", 3, 11, 0, 60)
    parts = [_chunk("greedy,random,patient", 3, 11, s, 20) for s in (0, 20, 40)]
    for k in whole:
        assert np.array_equal(whole[k], np.concatenate([p[k] for p in parts])), k
    assert not whole["err"].any()


def test_the_fast_path_agrees_with_the_move_log():
    res = _chunk("random,greedy,patient,greedy", 4, 5, 0, 40)
    for i in range(40):
        tr = trace_deal(RULES, "random,greedy,patient,greedy", i, 5)
        r = tr["result"]
        assert r["turns"] == res["turns"][i]
        assert r["cards_left"] == res["cards"][i].tolist()
        assert r["value_left"] == res["value"][i].tolist()
        assert r["won"] == [bool(f & S.FLAG_WON) for f in res["flags"][i]]
        assert (r["end"] == "out") == (res["end"][i] == S.END_OUT)


def test_the_same_deck_for_every_line_up_and_rule_variant():
    a = trace_deal(RULES, "greedy,greedy,greedy", 7, 3)
    b = trace_deal(RULES.replace(stock_out_end="last_card", first_round="free"), "random,patient,greedy", 7, 3)
    assert a["deck"] == b["deck"] and a["hands"] == b["hands"]
    assert a["policies"] == ["greedy"] * 3
    assert b["policies"] == ["greedy", "random", "patient"]  # position j sits at seat (j + 7) % 3


# ------------------------------------------------------------------------------ policies


def _positions(trace):
    """``(turn, seat, table, hand, event)`` at the start of every turn."""
    hands = [Counter(parse_cards(" ".join(h))) for h in trace["hands"]]
    table: list[list[int]] = []
    ev = trace["events"]
    for k, e in enumerate(ev):
        if e["type"] == "draw":
            hands[e["seat"]][parse_cards(e["card"])[0]] += 1
        elif e["type"] == "play":
            hands[e["seat"]] -= Counter(parse_cards(" ".join(e["cards"])))
            table = [parse_cards(" ".join(m)) for m in e["table_after"]]
        if e["type"] == "turn" and k + 1 < len(ev):
            yield e["turn"], e["seat"], [list(m) for m in table], list(hands[e["seat"]].elements()), ev[k + 1]


def test_greedy_plays_the_most_cards_whenever_it_can():
    from handsim.games.russian.rearrange import rearrange

    checked = 0
    for deal in range(6):
        tr = trace_deal(RULES, "greedy,greedy,greedy", deal, 21)
        for turn, seat, table, hand, nxt in _positions(tr):
            best = rearrange(table, hand, RULES, first_round=turn <= 3)
            if nxt["type"] == "play":
                assert len(nxt["cards"]) == best.n_placed > 0
            elif nxt["type"] == "draw":
                assert best.n_placed == 0
            checked += 1
    assert checked > 150


def test_random_plays_parts_of_what_it_could_and_draws_when_it_could_play():
    from handsim.games.russian.rearrange import rearrange

    partial = drew_instead = plays_made = 0
    for deal in range(8):
        tr = trace_deal(RULES, "random,random", deal, 4)
        assert check_deal(tr) == []
        for turn, seat, table, hand, nxt in _positions(tr):
            best = rearrange(table, hand, RULES, first_round=turn <= 2).n_placed
            if nxt["type"] == "play":
                plays_made += 1
                assert 0 < len(nxt["cards"]) <= best
                partial += len(nxt["cards"]) < best
            elif nxt["type"] == "draw" and best > 0:
                drew_instead += 1
    assert plays_made > 30 and partial > 5 and drew_instead > 5
