"""Elimination matches on the engine (RULES.md §7, ``elimination_score``; issue 27, VARIANTS.md #15).

The bookkeeping pieces are checked on hand-worked cases; the engine's matches against the
independent reading of the rule in :func:`handsim.games.hand.sheet.score_sheet` (who is out after
which round, the winner, the totals), and every round replayed with the move log on by the
pure-Python checker, at the table of the players still in, with the dealer the rule names."""

from __future__ import annotations

import numpy as np
import pytest

from handsim.games.hand.checker import check_deal
from handsim.games.hand.elimination import run_elimination_chunk, sheet_rows, trace_elimination_round
from handsim.games.hand.kernels.driverlib import active_seats, elimination_standings, next_active_dealer
from handsim.games.hand.rules import Rules
from handsim.games.hand.sheet import score_sheet
from handsim.policies import parse_lineup


def _i64(*xs):
    return np.array(list(xs) + [0] * (4 - len(xs)), dtype=np.int64)


def test_the_seats_left_and_the_next_dealer_pass_over_the_seats_out():
    rv = Rules.preset("classic", elimination_score=301).to_vector()
    hs = Rules.preset("levant", elimination_score=301).to_vector()  # dealer_rotation = highest_scorer
    act = np.zeros(4, np.int64)
    gone = _i64(0, 3, 0, 0)  # seat 1 out after round 3
    assert active_seats(gone, 4, act) == 3 and act[:3].tolist() == [0, 2, 3]
    scores = _i64(10, 99, 30, 30)
    assert next_active_dealer(scores, 0, 4, rv, gone) == 2  # seat 1 is passed over
    assert next_active_dealer(scores, 3, 4, rv, gone) == 0
    assert next_active_dealer(scores, 1, 4, rv, gone) == 2  # the dealer himself went out
    # highest_scorer: seat 1's 99 does not count (out); 30 and 30 tie: the first after the dealer
    assert next_active_dealer(scores, 0, 4, hs, gone) == 2
    assert next_active_dealer(scores, 2, 4, hs, gone) == 3
    assert next_active_dealer(_i64(0, 0, 0, 0), 3, 4, hs, gone) == 0  # a void round: the next seat still in
    assert next_active_dealer(scores, 0, 4, rv, _i64(1, 1, 1, 1)) == -1


def test_the_winner_is_the_last_one_left_or_at_the_cap_the_lowest_then_more_round_wins_then_shared():
    w = np.zeros(4, np.uint8)
    elimination_standings(_i64(-40, 320, 310), _i64(3, 1, 1), _i64(0, 5, 7), 3, w)
    assert w[:3].tolist() == [1, 0, 0]
    elimination_standings(_i64(20, -10, 20, -900), _i64(1, 1, 1, 9), _i64(0, 0, 0, 4), 4, w)  # seat 3 is out
    assert w.tolist() == [0, 1, 0, 0]
    elimination_standings(_i64(20, 20, 50), _i64(4, 6, 9), _i64(0, 0, 0), 3, w)
    assert w[:3].tolist() == [0, 1, 0]
    elimination_standings(_i64(20, 20, 20), _i64(6, 6, 2), _i64(0, 0, 0), 3, w)
    assert w[:3].tolist() == [1, 1, 0]


CASES = [  # rules, line-up, seed, matches
    (dict(elimination_score=301), "greedy,hold-hand,greedy", 7, 30),
    (dict(elimination_score=201, preset="levant"), "greedy,greedy,hold-hand,greedy", 11, 20),
    (dict(elimination_score=100), "random,greedy", 3, 20),
    (dict(elimination_score=150, preset="qahwa"), "card-reader,greedy,random,hold-hand", 5, 8),
]


def _rules(kw):
    kw = dict(kw)
    return Rules.preset(kw.pop("preset", "classic"), **kw)


@pytest.mark.parametrize("kw, lineup, seed, n", CASES)
def test_engine_matches_are_the_sheet_the_rule_gives(kw, lineup, seed, n):
    rules, specs = _rules(kw), parse_lineup(lineup)
    P = len(specs)
    out = run_elimination_chunk(rules, specs, seed, 0, n)
    assert not out["err"].any()
    lasted = 0
    for k in range(n):
        sheet = score_sheet(sheet_rows(out, k), rules)  # refuses a score for a position already out
        assert len(sheet.rounds) == out["rounds"][k]
        assert sheet.out_after == tuple(None if a == 0 else int(a) for a in out["out_after"][k])
        assert sheet.winner == tuple(int(j) for j in np.nonzero(out["win"][k])[0])
        assert list(sheet.rounds[-1].totals) == out["total"][k].tolist()
        assert out["score"][k, int(out["rounds"][k]):].any() == False  # noqa: E712 (nothing after the end)
        left = int((out["out_after"][k] == 0).sum())
        assert left == 1 or out["rounds"][k] == 100
        assert all(t > rules.elimination_score for t, a in zip(out["total"][k], out["out_after"][k]) if a)
        lasted += int(out["rounds"][k])
    assert lasted > 2 * n  # matches of several rounds, not one
    # each match is its own stream: a chunk from match 5 on plays the same matches
    part = run_elimination_chunk(rules, specs, seed, 5, n - 5)
    for key in out:
        assert np.array_equal(part[key], out[key][5:]), key


def _next_dealer(rules, dealer, scores, gone, P):
    """RULES.md §7 read again: the next seat still in, or the highest scorer still in (ties: the
    first after the dealer)."""
    order = [(dealer + i) % P for i in range(1, P + 1) if not gone[(dealer + i) % P]]
    if rules.dealer_rotation == "next_seat":
        return order[0]
    return max(order, key=lambda s: (scores[s], -order.index(s)))


@pytest.mark.parametrize("kw, lineup, seed, n", CASES)
def test_every_round_replays_legally_at_the_table_of_the_players_left(kw, lineup, seed, n):
    rules, specs = _rules(kw), parse_lineup(lineup)
    P = len(specs)
    n = min(n, 6)
    out = run_elimination_chunk(rules, specs, seed, 0, n)
    smaller = 0
    for m in range(n):
        R = int(out["rounds"][m])
        before = None
        for r in range(R):
            d = trace_elimination_round(rules, specs, m, r, seed)
            assert check_deal(d) == [], (m, r)
            still = [j for j in range(P) if out["out_after"][m, j] == 0 or out["out_after"][m, j] > r]
            assert sorted(d["positions"]) == still and d["players"] == len(still)
            assert d["policies"] == [specs[j].label for j in d["positions"]]
            assert d["result"]["scores"] == [int(out["score"][m, r, j]) for j in d["positions"]], (m, r)
            seat = [(j + m) % P for j in d["positions"]]  # the match's seat of each seat at the table
            dealer = seat[d["dealer"]]
            assert seat[d["starter"]] == seat[(d["dealer"] + 1) % len(seat)] or rules.starter == "dealer"
            if before is not None:
                prev_dealer, prev_scores = before
                gone = [0 < out["out_after"][m, (s - m) % P] <= r for s in range(P)]
                assert dealer == _next_dealer(rules, prev_dealer, prev_scores, gone, P), (m, r)
            scores = [0] * P
            for i, s in enumerate(seat):
                scores[s] = d["result"]["scores"][i]
            before = (dealer, scores)
            smaller += len(still) < P
        assert trace_elimination_round(rules, specs, m, R, seed) is None
    assert (smaller > 0) == (P > 2)  # rounds were played at a smaller table (2 players: the first out ends it)


@pytest.mark.parametrize("preset, lineup", [("classic", "greedy,hold-hand,random,greedy"),
                                            ("levant", "card-reader,greedy,hold-hand")])
def test_until_someone_is_out_an_elimination_match_is_the_match_of_fixed_rounds(preset, lineup):
    # the same seating, first dealer, shuffles (seed, match, round + 1) and dealer rotation: while
    # every player is in, round r is round r of play_matches' match
    from handsim.policies import lineup_arrays
    from handsim.simulate import run_match_chunk

    R, n, seed = 6, 10, 21
    specs = parse_lineup(lineup)
    P = len(specs)
    fixed = run_match_chunk(Rules.preset(preset, rounds=R).to_vector(), *lineup_arrays(specs), P, seed, 0, n)
    out = run_elimination_chunk(Rules.preset(preset, elimination_score=1000), specs, seed, 0, n)
    compared = 0
    for k in range(n):
        first_out = min([int(a) for a in out["out_after"][k] if a] or [R])
        for r in range(min(R, first_out)):  # rounds 1 .. first_out are played by everyone
            row = k * R + r
            by_position = [0] * P
            for rel in range(P):
                by_position[fixed["policy"][row, rel]] = int(fixed["score"][row, rel])
            assert by_position == out["score"][k, r].tolist(), (k, r)
            compared += 1
    assert compared >= n * 3
