"""A real match's score sheet (issue 27; RULES.md §6-7), each case worked out by hand."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from handsim.cli import cli as main
from handsim.games.hand.rules import Rules
from handsim.games.hand.sheet import SheetError, score_sheet, sheet_table


def rules(**kw):
    return Rules.preset(kw.pop("preset", "classic"), **kw)


def test_running_totals_and_the_winner_of_a_three_round_match():
    sheet = score_sheet([{"scores": [-30, 45]}, {"scores": [12, -60]}, {"scores": [-30, 20]}], rules(rounds=3))
    assert [r.totals for r in sheet.rounds] == [(-30, 45), (-18, -15), (-48, 5)]
    assert [(r.out, r.hand) for r in sheet.rounds] == [(0, False), (1, True), (0, False)]
    assert sheet.winner == (0,) and sheet.loser is None and sheet.wins == (2, 1)
    assert sheet.status == "seat 0 wins with -48 points after 3 rounds"


def test_a_tie_for_the_lowest_total_is_broken_by_extra_rounds():
    rows = [{"scores": [-30, 30]}, {"scores": [30, -30]}, {"scores": [0, 0], "out": None}]
    tied = score_sheet(rows, rules(rounds=3))
    assert tied.winner == () and "share the lowest total, 0, after 3 rounds" in tied.status
    sheet = score_sheet(rows + [{"scores": [-30, 5]}], rules(rounds=3))
    assert [r.tiebreak for r in sheet.rounds] == [False, False, False, True]
    assert sheet.winner == (0,) and sheet.status == "seat 0 wins with -30 points after 4 rounds (1 tie-break round)"


def test_an_unfinished_sheet_names_the_leader():
    sheet = score_sheet([{"scores": [-30, 45, 10]}], rules(rounds=9))
    assert sheet.winner == () and sheet.status == "1 of 9 rounds played: the match is not over; seat 0 leads with -30"


def test_last_loses_and_a_tie_for_last_decided_by_round_wins():
    # totals 0, 20, 20: seats 1 and 2 tie for last; seat 1 won round 2, seat 2 won none -> seat 2 loses
    sheet = score_sheet([{"scores": [-30, 50, 20]}, {"scores": [30, -30, 0]}], rules(rounds=2, standings="last_loses"))
    assert [r.totals for r in sheet.rounds][-1] == (0, 20, 20)
    assert sheet.winner == (0,) and sheet.loser == 2
    assert sheet.status.endswith("; seat 2 loses with 20")
    # the same round wins: no single loser
    even = score_sheet([{"scores": [-30, 40, 50, 50]}], rules(rounds=1, standings="last_loses"))
    assert even.loser is None and even.status.endswith("tie for last with 50 points and 0 round wins each: no single loser")


def test_a_partnership_is_decided_by_team_totals_and_rounds_may_be_given_as_their_end():
    end = {"out": 1, "hand_finish": False, "hands": ["KS 7H 9D", "", "QD", "4C"], "opened": [False, True, True, True]}
    sheet = score_sheet([{"scores": [-30, 40, 0, 7]}, end], rules(preset="partnership", rounds=2))
    # round 2 from the cards: seat 0 never opened 10 + 7 + 9 + 100 = 126, seat 2 QD = 10, seat 3 partner of seat 1 = 0
    assert sheet.rounds[1].scores == (126, -30, 10, 0)
    assert [sheet.side_totals(r) for r in sheet.rounds] == [[-30, 47], [106, 17]]
    assert sheet.winner == (1,) and sheet.status.startswith("team B (seats 1 & 3) wins with 17 points")
    assert sheet_table(sheet)[1] == {"round": 2, "tiebreak": False, "out": 1, "hand": False, "seat0": 126, "seat1": -30,
                                     "seat2": 10, "seat3": 0, "total0": 96, "total1": 10, "total2": 10, "total3": 7,
                                     "team_A": 106, "team_B": 17}


@pytest.mark.parametrize("rows, kw, message", [
    ([], {}, "the sheet has no rounds"),
    ([{"scores": [-30, -30]}], {}, "round 1: seats 0 and 1 both went out"),
    ([{"scores": [13, -60, 4]}], {}, "round 1: seat 1 made a Hand (-60), but seat 0's 13 is not doubled"),
    ([{"scores": [-20, 13]}], {}, "round 1: seat 0 scores -20: going out scores -30, a Hand -60"),
    ([{"scores": [5, 13]}], {}, "round 1: nobody went out (no negative score), but a void round scores 0"),
    ([{"scores": [-30, 13], "out": 1}], {}, "round 1: out is 1, but seat 0 has the negative score"),
    ([{"scores": [-30, 13]}, {"scores": [-30, 1, 2]}], {}, "round 2: 3 scores, but the sheet's first round has 2"),
    ([{"scores": [-30, 30]}, {"scores": [-30, 5]}], {"rounds": 1}, "round 2: the match was decided after round 1"),
    ([{"scores": [-30, 40, 50, 7]}], {"preset": "partnership"}, "round 1: seat 2, the partner of seat 0 who went out, scores 50"),
    ([{"scores": [-30, "12"]}], {}, "round 1: scores: expected a list of whole numbers"),
    ([{"out": 0, "hand_finish": False, "hands": ["", "KS"], "opened": [False, True]}], {}, "round 1: "),
])
def test_an_inconsistent_sheet_is_refused_naming_the_round(rows, kw, message):
    with pytest.raises(SheetError) as e:
        score_sheet(rows, rules(**kw))
    assert message in str(e.value)


def test_without_doubling_a_hand_round_may_hold_odd_scores():
    sheet = score_sheet([{"scores": [13, -60, 4]}], rules(rounds=1, hand_doubles_others=False))
    assert sheet.winner == (1,)


def test_a_sheet_is_checked_against_the_rules_out_and_hand_scores():
    # out_score -50, hand_score -100: round 1 a plain out, round 2 a Hand (60 = 30 doubled)
    kw = {"rounds": 2, "out_score": -50, "hand_score": -100}
    sheet = score_sheet([{"scores": [-50, 45]}, {"scores": [60, -100]}], rules(**kw))
    assert [(r.out, r.hand) for r in sheet.rounds] == [(0, False), (1, True)]
    assert sheet.rounds[-1].totals == (10, -55) and sheet.winner == (1,)
    with pytest.raises(SheetError) as e:
        score_sheet([{"scores": [-30, 45]}], rules(**kw))
    assert str(e.value) == "round 1: seat 0 scores -30: going out scores -50, a Hand -100 (out_score, hand_score)"
    # hand_score = out_score: the sheet cannot tell a Hand, so an odd score next to it is no error
    same = score_sheet([{"scores": [13, -30]}], rules(rounds=1, hand_score=-30))
    assert [(r.out, r.hand) for r in same.rounds] == [(1, False)]


def test_the_command_prints_writes_and_never_overwrites(tmp_path):
    runner = CliRunner()
    sheet = "\n".join(json.dumps(r) for r in ({"scores": [-30, 45]}, {"scores": [12, -60]}, {"scores": [-30, 20]}))
    csv, html = tmp_path / "sheet.csv", tmp_path / "sheet.html"
    r = runner.invoke(main, ["score", "-", "--match", "--set", "rounds=3", "--csv", str(csv), "--html", str(html)],
                      input=sheet)
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[-1] == "seat 0 wins with -48 points after 3 rounds."
    assert csv.read_text().splitlines()[0] == "round,tiebreak,out,hand,seat0,seat1,total0,total1"
    assert csv.read_text().splitlines()[3] == "3,False,0,False,-30,20,-48,5"
    assert "seat 0 wins with -48 points after 3 rounds." in html.read_text()
    again = runner.invoke(main, ["score", "-", "--match", "--set", "rounds=3", "--csv", str(csv)], input=sheet)
    assert again.exit_code == 2 and f"{csv} exists: handsim never overwrites a file" in again.output
    same = tmp_path / "same.x"  # the CSV was written, then replaced by the HTML (breaker C34)
    both = runner.invoke(main, ["score", "-", "--match", "--set", "rounds=3", "--csv", str(same), "--html",
                                str(tmp_path / "." / "same.x")], input=sheet)
    assert both.exit_code == 2 and "--csv and --html name the same file" in both.output and not same.exists()
    js = runner.invoke(main, ["score", "-", "--match", "--set", "rounds=3", "--json"], input=sheet)
    assert json.loads(js.output)["winner"] == [0]
    bad = runner.invoke(main, ["score", "-", "--match"], input='{"scores": [-30, -30]}\n')
    assert bad.exit_code == 2 and "round 1: seats 0 and 1 both went out" in bad.output
    assert "Traceback" not in bad.output
    lone = runner.invoke(main, ["score", "-", "--csv", str(tmp_path / "x.csv")], input="{}")
    assert lone.exit_code == 2 and "--csv and --html write a match's sheet: add --match" in lone.output
