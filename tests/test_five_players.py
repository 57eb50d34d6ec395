"""Five single players at a classic Hand table (VARIANTS.md new option #1; RULES.md section 3).

Two decks and two jokers are 106 cards; five hands of 14 and the starter's extra card are 71 of
them, so 35 stay in the stock.  The checks: the deal by hand-counted sizes, every built-in policy
playing five-seat deals that the independent checker replays without a fault and that the fast
path records exactly as traced, the scoring of a five-seat round end worked out by hand, and the
command line taking ``--players 5`` in a study, a tournament and ``score``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from handsim.cli import cli
from handsim.games.hand.checker import check_deal
from handsim.games.hand.rules import Rules
from handsim.games.hand.scoring import score_round
from handsim.games.hand.trace import trace_deal
from handsim.policies import parse_lineup
from handsim.cards import parse_cards

from test_engine_replay import compare


def test_a_five_player_deal_gives_14_cards_each_15_to_the_starter_and_leaves_35_in_the_stock():
    rules = Rules.preset("classic")
    specs = parse_lineup("greedy,greedy,greedy,greedy,greedy")
    for deal in range(6):
        trace = trace_deal(rules, specs, deal, 7)
        assert trace["players"] == 5
        sizes = [len(h) for h in trace["hands"]]
        starter = trace["starter"]
        assert sizes[starter] == 15 and sorted(sizes) == [14, 14, 14, 14, 15]
        assert len(trace["deck"]) == 106
        assert len(trace["deck"]) - sum(sizes) == 35
        # the starter sits to the dealer's right: the next seat in playing order, over five seats
        assert starter == (trace["dealer"] + 1) % 5
        assert check_deal(trace) == []


@pytest.mark.parametrize("lineup, preset, start", [
    ("greedy,hold-hand,random,greedy,hold-hand:bail_turn=4", "classic", 0),
    ("card-reader,greedy,card-reader:joker_play=0,hold-hand,random", "classic", 1_000),
    ("card-reader,greedy,hold-hand,card-reader,greedy", "saudi", 2_000),
    ("greedy,card-reader,random,hold-hand,greedy", "qahwa", 3_000),
    ("card-reader,greedy,hold-hand,random,card-reader", "konkan", 4_000),
])
def test_five_seat_deals_follow_the_rules_and_match_the_fast_path(lineup, preset, start):
    totals = compare(Rules.preset(preset), lineup, 5, start, 120)
    assert totals["out"] + totals["void"] == 120
    assert totals["out"] > 0 and totals["opened"] > 0


def test_the_sampling_and_searching_players_play_five_seats_legally():
    rules = Rules.preset("classic")
    compare(rules, "sampler:samples=2,candidates=2,card-reader,greedy,random,hold-hand", 6, 0, 6)
    compare(rules, "searcher:worlds=2,candidates=2,card-reader,greedy,card-reader,random", 6, 100, 6)


def test_a_five_seat_hand_doubles_the_four_others_by_hand():
    # seat 3 lays everything down in one turn (a Hand: -60); the others' cards, worked out by hand:
    # seat 0 (opened) KS 7H = 10 + 7 = 17, doubled 34; seat 1 (never opened) 5D = 5 + 100 = 105,
    # doubled 210; seat 2 (opened) JK = 15 (joker penalty), doubled 30; seat 4 (opened) AS 2C:
    # the Ace left in hand counts 11, the 2 counts 2: 13, doubled 26.
    rules = Rules.preset("classic")
    hands = [parse_cards("KS 7H"), parse_cards("5D"), parse_cards("JK"), [], parse_cards("AS 2C")]
    got = score_round(rules, 3, True, hands, [True, False, True, True, True])
    assert got == [34, 210, 30, -60, 26]
    # going out normally: -30 and nothing doubled
    assert score_round(rules, 3, False, hands, [True, False, True, True, True]) == [17, 105, 15, -30, 13]


def test_score_takes_a_five_seat_round_end(tmp_path):
    end = {"hands": ["KS 7H", "5D", "JK", "", "AS 2C"], "opened": [True, False, True, True, True], "out": 3,
           "hand_finish": True}
    path = tmp_path / "end.json"
    path.write_text(json.dumps(end), encoding="utf-8")
    r = CliRunner().invoke(cli, ["score", str(path), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["scores"] == [34, 210, 30, -60, 26]


def test_a_five_player_study_and_tournament_run_and_report_five_seats(tmp_path):
    runner = CliRunner()
    r = runner.invoke(cli, ["simulate", "--players", "5", "--policy", "greedy", "--deals", "40", "--jobs", "1",
                            "--no-progress", "-q", "--out", str(tmp_path / "s")])
    assert r.exit_code == 0, r.output
    import pandas as pd

    summary = pd.read_csv(tmp_path / "s" / "summary.csv")
    seats = summary[summary["seat"] != "all"]
    assert sorted(seats["seat"].astype(int)) == [0, 1, 2, 3, 4]
    assert (seats["deals"] == 40).all()
    everyone = summary[summary["seat"] == "all"].iloc[0]
    assert everyone["rounds"] == 200  # 40 deals x 5 seats
    # a round's scores: one player out (-30 or -60) or a void round; the mean over seats is the
    # mean of the per-seat means, deal by deal the same deals
    assert np.isclose(everyone["mean_score"], seats["mean_score"].mean())
    r = runner.invoke(cli, ["tournament", "--policy", "greedy", "--policy", "random", "--players", "5", "--deals", "6",
                            "--jobs", "1", "--no-progress", "-q", "--out", str(tmp_path / "t")])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("args, fragment", [
    (["simulate", "--players", "6"], "'6' is not a number of players: allowed 2, 3, 4 or 5 single players"),
    (["simulate", "--players", "5", "--lineup", "greedy,greedy,greedy,greedy"],
     "has 4 policies but --players is 5"),
    (["simulate", "--players", "5", "--set", "hand_size=21"], "hand_size"),
    (["simulate", "--players", "5", "--set", "partnership=true"], "the rules set partnership=true (2 v 2), but --players is 5"),
])
def test_five_player_refusals_are_one_line(args, fragment, tmp_path):
    r = CliRunner().invoke(cli, [*args, "--deals", "5", "--jobs", "1", "-q", "--out", str(tmp_path / "x")])
    assert r.exit_code == 2, r.output
    assert fragment in r.output
    assert "Traceback" not in r.output


def test_equity_gives_five_positions_chances_that_sum_to_one(tmp_path):
    """handsim equity at five single players: Monte Carlo continuations over the study's rounds; the
    five chances of winning are probabilities of one event each, so they sum to 1 (a shared lowest
    total plays extra rounds until it breaks), and the position far behind has the lowest chance."""
    import re

    runner = CliRunner()
    study = tmp_path / "field"
    r = runner.invoke(cli, ["simulate", "--players", "5", "--policy", "greedy", "--deals", "60", "--jobs", "1",
                            "--per-deal", "--no-progress", "-q", "--out", str(study)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["equity", str(study), "--standings", "0,20,40,60,300", "--rounds-left", "1",
                            "--starter", "5", "--position", "5", "--bootstrap", "0", "--samples", "4000"])
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.output.splitlines() if ln.startswith("  position ")]
    assert [ln.split(" (")[0] for ln in lines] == [f"  position {k}" for k in range(1, 6)]
    p = [float(re.search(r"wins ([0-9.]+)%", ln).group(1)) / 100 for ln in lines]
    assert abs(sum(p) - 1) < 0.002  # each printed to 0.1%
    assert p[4] == min(p) and p[0] == max(p)
    r = runner.invoke(cli, ["equity", str(study), "--standings", "0,0,0,0,0", "--starter", "6"])
    assert r.exit_code == 2 and "allowed 1..5" in r.output


def test_an_elimination_study_of_five_counts_its_rounds_by_table_size(tmp_path):
    """Elimination matches of five (RULES.md section 7): every match's first round is at the full table
    of five, the rounds by table size add up to the rounds, and the report names every size."""
    import pandas as pd

    study = tmp_path / "elim"
    r = CliRunner().invoke(cli, ["simulate", "--players", "5", "--set", "elimination_score=201", "--matches",
                                 "--policy", "greedy", "--deals", "12", "--jobs", "1", "--no-progress", "-q",
                                 "--out", str(study)])
    assert r.exit_code == 0, r.output
    length = pd.read_csv(study / "elimination_length.csv").iloc[0]
    sizes = [length[f"rounds_{q}p"] for q in (5, 4, 3, 2)]
    assert length["matches"] == 12 and sizes[0] >= 12
    assert sum(sizes) == length["rounds"]
    report = (study / "report.md").read_text(encoding="utf-8")
    assert f"({sizes[0]:,} at 5 players, {sizes[1]:,} at 4, {sizes[2]:,} at 3, {sizes[3]:,} at 2)" in report
