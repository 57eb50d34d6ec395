"""A real match's score sheet (issue 27; RULES.md §6-7), each case worked out by hand."""

from __future__ import annotations

import json
import re

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


# --- the sheet against a match study (handsim score --match --against) ------------------------

def test_a_total_is_placed_among_a_histogram_of_totals_by_hand():
    from handsim.games.hand.sheet import place

    values, counts = [-90, -50, 0, 20], [2, 1, 3, 4]  # 10 totals
    at0 = place(0, values, counts)
    assert (at0.lower, at0.equal, at0.higher, at0.n) == (3, 3, 4, 10)
    assert at0.percentile == 45.0  # (3 + 3/2) / 10
    assert at0.words("10 matches") == "lower than 40% of totals in 10 matches"
    low = place(-60, values, counts)
    assert (low.lower, low.higher, low.percentile) == (2, 8, 20.0)
    assert low.words("x") == "lower than 80% of totals in x"
    high = place(50, values, counts)
    assert high.percentile == 100.0 and high.words("x") == "higher than 100% of totals in x"
    assert place(-91, [-90] * 1 + [0], [999, 1]).words("x") == "lower than 100% of totals in x"
    # one higher total of 1,000 is 0.1%; 199 of 200 is 99.5%; 1 of 5,000 is 0.02% (not "0%" or "100%")
    assert place(0, [-90, 0, 5], [1, 998, 1]).words("x") == "lower than 0.1% of totals in x"
    assert place(-10, [-20, 0], [1, 199]).words("x") == "lower than 99.5% of totals in x"
    assert place(0, [-1, 0, 1], [1, 4998, 1]).words("x") == "lower than 0.02% of totals in x"
    with pytest.raises(ValueError):
        place(0, [1, 2], [0, 0])


def test_the_first_rule_that_differs_is_named_in_the_option_tables_order():
    from handsim.games.hand.sheet import rules_difference

    assert rules_difference(rules(), rules()) is None
    assert rules_difference(rules(rounds=3), rules()) == "rounds is 3 for the sheet, 9 in the study"
    assert rules_difference(rules(rounds=3, ace_value=10), rules()) == "ace_value is 10 for the sheet, 11 in the study"
    assert rules_difference(rules(hand_doubles_others=False), rules()) == \
        "hand_doubles_others is false for the sheet, true in the study"


def _rows(scores):
    """Per-deal rows of a match study: scores[match][round][position]."""
    import pandas as pd

    recs = []
    for m, match in enumerate(scores):
        for r, rnd in enumerate(match):
            for p, x in enumerate(rnd):
                recs.append({"match": m, "round": r, "position": p, "score": x})
    return pd.DataFrame(recs)


def test_running_totals_of_a_match_study_by_hand():
    from handsim.games.hand.sheet import running_totals

    rows = _rows([[[-30, 10], [5, -30]], [[0, 0], [-60, 8]]])
    run = running_totals(rows.sample(frac=1, random_state=1), 2, False, 2)  # the rows' order does not matter
    assert run.tolist() == [[-30, 10, 0, 0], [-25, -20, -60, 8]]
    four = _rows([[[-30, 10, 0, 4], [1, 2, 3, -30]]])
    assert running_totals(four, 4, True, 2).tolist() == [[-30, 14], [-26, -14]]
    with pytest.raises(ValueError, match="do not hold 3 rounds"):
        running_totals(rows, 2, False, 3)


def _pool(rows, players):
    import numpy as np

    from handsim.games.hand.equity import RoundPool

    sc = np.asarray(rows, np.int64)
    return RoundPool(sc, sc.argmin(axis=1), np.zeros(len(sc), np.int64), players, True, ("x",) * players)


def test_equity_after_each_round_is_even_at_level_standings_and_certain_once_decided():
    from handsim.games.hand.sheet import sheet_equity

    # the starter goes out or the other does, equally often: level totals are an even match
    pool = _pool([[-30, 10], [10, -30]], 2)
    sheet = score_sheet([{"scores": [0, 0], "out": None}, {"scores": [-30, 10]}, {"scores": [-30, 10]}],
                        rules(rounds=3))
    p, se = sheet_equity(sheet, pool, rules(rounds=3))
    assert p[0].tolist() == [0.5, 0.5] and not se.any()
    # after round 2 seat 0 leads by 40 with one round left: a round moves the lead by 40, and a tie
    # (lead 0) goes to tie-break rounds won half the time: 1/2 + 1/2 x 1/2
    assert p[1] == pytest.approx([0.75, 0.25])
    assert p[2].tolist() == [1.0, 0.0]  # decided after the last round
    # 3 single players, every round a cyclic shift of (-30, 10, 20): from level totals each wins 1/3
    pool3 = _pool([[-30, 10, 20], [20, -30, 10], [10, 20, -30]], 3)
    s3 = score_sheet([{"scores": [0, 0, 0], "out": None}, {"scores": [-30, 10, 20]}], rules(rounds=2))
    p3, se3 = sheet_equity(s3, pool3, rules(rounds=2), samples=20000)
    assert (abs(p3[0] - 1 / 3) < 4 * se3[0]).all() and (se3[0] > 0).all()
    assert p3[1].tolist() == [1.0, 0.0, 0.0] and not se3[1].any()
    # 2 v 2: team A's partners level with team B's: an even match; decided: 1 and 0
    pool4 = _pool([[-30, 10, 0, 10], [10, -30, 10, 0]], 4)
    s4 = score_sheet([{"scores": [0, 0, 0, 0], "out": None}, {"scores": [-30, 10, 0, 10]}],
                     rules(rounds=2, partnership=True))
    p4, _ = sheet_equity(s4, pool4, rules(rounds=2, partnership=True))
    assert p4.tolist() == [[0.5, 0.5], [1.0, 0.0]]


def test_a_sheet_against_hand_built_totals_and_rounds():
    from handsim.games.hand.sheet import sheet_document, study_view, view_lines

    r = rules(rounds=2)
    sheet = score_sheet([{"scores": [-30, 10]}, {"scores": [5, -30]}], r)  # totals -25, -20
    # the study: 3 matches of 2 rounds
    rows = _rows([[[-30, 10], [5, -30]], [[10, -30], [-30, 10]], [[-60, 20], [-30, 4]]])
    finals = ([-90, -25, -20, 24], [1, 1, 3, 1])  # 6 final totals, tie-break rounds included
    view = study_view(sheet, r, "3 simulated matches of x ×2", finals, rows, _pool([[-30, 10], [10, -30]], 2))
    # after round 1, among (-30, 10, 10, -30, -60, 20): seat 0's -30 has 1 lower and 2 equal: (1 + 2/2) / 6;
    # seat 1's 10 has 3 lower, 2 equal: (3 + 1) / 6
    assert [round(p.percentile, 3) for p in view.running[0]] == [33.333, 66.667]
    # after round 2, among (-25, -20, -20, -20, -90, 24): -25 has 1 lower, 1 equal; -20 has 2 lower, 3 equal
    assert [round(p.percentile, 3) for p in view.running[1]] == [25.0, 58.333]
    assert view.p_win.tolist() == [[0.75, 0.25], [1.0, 0.0]]  # a 40-point lead, one round left; then decided
    assert view_lines(sheet, view) == [
        "seat 0: -25, lower than 67% of totals in 3 simulated matches of x ×2 (percentile 25.0)",
        "seat 1: -20, higher than 33% of totals in 3 simulated matches of x ×2 (percentile 58.3)"]
    table = sheet_table(sheet, view)
    assert table[0]["percentile_seat0"] == 33.33 and table[1]["p_win_seat0"] == 1.0
    md = sheet_document(sheet, view=view)
    assert "Against the match study" in [s.title for s in md.sections]
    unfinished = study_view(score_sheet([{"scores": [-30, 10]}], r), r, "x", finals)
    assert unfinished.final is None and unfinished.running is None


@pytest.fixture(scope="module")
def match_study(tmp_path_factory):
    """Real match studies: 2 greedy players, 24 matches of 3 rounds, with per-deal rows; the same
    without them; a study of single deals; 2 v 2 greedy, 20 matches of 2 rounds."""
    import shutil

    base = tmp_path_factory.mktemp("against")
    runner = CliRunner()
    for name, extra in (("m2", ["--players", "2", "--lineup", "greedy,greedy", "--rounds", "3", "--deals", "24",
                                "--per-deal"]),
                        ("deals", ["--players", "2", "--lineup", "greedy,greedy", "--deals", "10"]),
                        ("t4", ["--players", "2v2", "--lineup", "greedy,greedy,greedy,greedy", "--rounds", "2",
                                "--deals", "20", "--per-deal"])):
        r = runner.invoke(main, ["simulate", "--jobs", "1", "--out", str(base / name), "-q"] + extra)
        assert r.exit_code == 0, r.output
    shutil.copytree(base / "m2", base / "bare", ignore=shutil.ignore_patterns("per_deal"))
    return base


def test_the_command_places_a_sheet_against_a_real_match_study(match_study, tmp_path):
    import numpy as np
    import pandas as pd

    sheet = "\n".join(json.dumps(r) for r in ({"scores": [-30, 45]}, {"scores": [12, -60]}, {"scores": [-30, 20]}))
    csv, html = tmp_path / "s.csv", tmp_path / "s.html"
    r = CliRunner().invoke(main, ["score", "-", "--match", "--set", "rounds=3", "--against", str(match_study / "m2"),
                                  "--csv", str(csv), "--html", str(html)], input=sheet)
    assert r.exit_code == 0, r.output
    # worked from the study's per-deal rows (not the checkpoint the command reads): the final totals
    # sit on each match's last regular round, the running totals after round 1 on its first
    rows = pd.read_parquet(match_study / "m2" / "per_deal")
    finals = rows.loc[rows["round"] == 2, "total"].to_numpy(np.int64)
    assert len(finals) == 48
    words = []
    for seat, total in ((0, -48), (1, 5)):
        lower, equal, higher = (finals < total).sum(), (finals == total).sum(), (finals > total).sum()
        share = f"lower than {100 * higher / 48:.0f}%" if higher >= lower else f"higher than {100 * lower / 48:.0f}%"
        words.append(f"seat {seat}: {total}, {share} of totals in 24 simulated matches of greedy ×2 "
                     f"(percentile {100 * (lower + equal / 2) / 48:.1f}).")
    assert r.stdout.splitlines()[-2:] == words
    first = rows.loc[rows["round"] == 0, "score"].to_numpy(np.int64)
    pct0 = 100 * ((first < -30).sum() + (first == -30).sum() / 2) / 48
    out = pd.read_csv(csv)
    assert list(out.columns)[-4:] == ["percentile_seat0", "percentile_seat1", "p_win_seat0", "p_win_seat1"]
    assert out["percentile_seat0"].iloc[0] == pytest.approx(pct0, abs=0.005)
    assert out[["p_win_seat0", "p_win_seat1"]].iloc[2].tolist() == [1.0, 0.0]  # decided
    assert (out["p_win_seat0"] + out["p_win_seat1"]).round(6).tolist() == [1.0] * 3
    assert "Against the match study" in html.read_text() and words[0][:-1] in html.read_text()
    js = CliRunner().invoke(main, ["score", "-", "--match", "--set", "rounds=3", "--json", "--against",
                                   str(match_study / "m2")], input=sheet)
    final = json.loads(js.stdout)["against"]["final"]
    assert [f["lower"] + f["equal"] + f["higher"] for f in final] == [48, 48]
    assert final[0]["lower"] == (finals < -48).sum() and final[1]["higher"] == (finals > 5).sum()
    bare = CliRunner().invoke(main, ["score", "-", "--match", "--set", "rounds=3", "--against",
                                     str(match_study / "bare")], input=sheet)
    assert bare.exit_code == 0 and "no per-deal rows in the study" in bare.output
    assert bare.stdout.splitlines()[-2:] == words


def test_the_command_refuses_a_study_of_other_rules_players_or_single_deals(match_study, tmp_path):
    two = '{"scores": [-30, 45]}\n'
    three = '{"scores": [-30, 45, 10]}\n'
    (tmp_path / "plain").mkdir()
    cases = [
        ([two, "--set", "rounds=3", "--against", "deals"],
         "is a study of single deals: it holds no match totals; make a match study with handsim simulate --rounds 3 "
         "--players 2 --per-deal --out FOLDER"),
        ([two, "--against", "m2"], "the study's rules differ: rounds is 9 for the sheet, 3 in the study"),
        ([two, "--set", "rounds=3", "--set", "ace_value=10", "--against", "m2"], "ace_value is 10 for the sheet, 11"),
        ([two, "--preset", "saudi", "--set", "rounds=3", "--against", "m2"], "differ: "),
        ([three, "--set", "rounds=3", "--against", "m2"], "the study is of 2 players, the sheet of 3"),
        ([two, "--set", "rounds=3", "--against", "m2", "--lineup", "1"], "--lineup 1 is not one of the study's 1"),
        ([two, "--against", str(tmp_path / "plain")], "is not a study folder: no checkpoint.npz"),
    ]
    for (text, *args), fragment in cases:
        args = [str(match_study / a) if a in ("deals", "m2") else a for a in args]
        r = CliRunner().invoke(main, ["score", "-", "--match"] + args, input=text)
        assert r.exit_code == 2 and fragment in r.output and "Traceback" not in r.output, (args, r.output)
        assert len(r.output.strip().splitlines()) == 1, r.output
    r = CliRunner().invoke(main, ["score", "-", "--against", str(match_study / "m2")], input="{}")
    assert r.exit_code == 2 and "--against places a match's sheet against a study: add --match" in r.output


def test_a_partnership_sheet_is_placed_by_team_totals(match_study, tmp_path):
    import numpy as np
    import pandas as pd

    sheet = '{"scores": [-30, 45, 0, 10]}\n{"scores": [12, -30, 20, 0]}\n'  # team A 2, team B 25
    csv = tmp_path / "t.csv"
    r = CliRunner().invoke(main, ["score", "-", "--match", "--preset", "partnership", "--set", "rounds=2",
                                  "--against", str(match_study / "t4"), "--csv", str(csv)], input=sheet)
    assert r.exit_code == 0, r.output
    rows = pd.read_parquet(match_study / "t4" / "per_deal")
    last = rows[rows["round"] == 1]
    team = last.assign(team=last["position"] % 2).groupby(["match", "team"])["total"].sum().to_numpy(np.int64)
    assert len(team) == 40  # 20 matches x 2 teams
    lower, equal = (team < 2).sum(), (team == 2).sum()
    assert "team A (seats 0 & 2): 2, " in r.stdout
    assert f"(percentile {100 * (lower + equal / 2) / 40:.1f})" in r.stdout.splitlines()[-2]
    out = pd.read_csv(csv)
    assert list(out.columns)[-4:] == ["percentile_team_A", "percentile_team_B", "p_win_team_A", "p_win_team_B"]
    assert out[["p_win_team_A", "p_win_team_B"]].iloc[1].tolist() == [1.0, 0.0]
    assert out["p_win_team_A"].iloc[0] + out["p_win_team_B"].iloc[0] == pytest.approx(1.0, abs=1e-5)


def test_a_tie_break_round_has_no_running_percentile_and_its_equity_is_the_tie_breaks():
    from handsim.games.hand.sheet import sheet_equity, study_view

    r = rules(rounds=1)
    pool = _pool([[-30, 10], [10, -30]], 2)
    # level after the one regular round: a tie-break round decides, each side winning it half the time
    sheet = score_sheet([{"scores": [0, 0], "out": None}, {"scores": [10, -30]}], r)
    assert [x.tiebreak for x in sheet.rounds] == [False, True] and sheet.winner == (1,)
    p, _ = sheet_equity(sheet, pool, r)
    assert p.tolist() == [[0.5, 0.5], [0.0, 1.0]]
    view = study_view(sheet, r, "2 matches", ([-20, 10], [2, 2]), _rows([[[-30, 10]], [[10, -30]]]), pool)
    assert view.running[1] is None and [x.percentile for x in view.running[0]] == [50.0, 50.0]
    assert [(x.lower, x.equal, x.higher) for x in view.final] == [(2, 2, 0), (0, 0, 4)]  # 10 and -30 among -20, 10
    assert sheet_table(sheet, view)[1]["percentile_seat0"] == ""


def test_a_damaged_study_is_one_line_for_score_against_and_equity(match_study, tmp_path):
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(match_study / "m2", bad)
    part = sorted((bad / "per_deal").glob("*.parquet"))[0]
    part.write_bytes(b"not a parquet file")
    sheet = '{"scores": [-30, 45]}\n'
    for args in (["score", "-", "--match", "--set", "rounds=3", "--against", str(bad)],
                 ["equity", str(bad), "--standings", "0,0"]):
        r = CliRunner().invoke(main, args, input=sheet)
        assert r.exit_code == 2 and "Traceback" not in r.output, (args, r.output)
        assert f"{bad / 'per_deal'} cannot be read as a study's per-deal rows (damaged" in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1, r.output
    (bad / "checkpoint.npz").write_bytes(b"")
    r = CliRunner().invoke(main, ["score", "-", "--match", "--set", "rounds=3", "--against", str(bad)], input=sheet)
    assert r.exit_code == 2 and "checkpoint.npz is not a usable handsim checkpoint: the file is empty" in r.output


# -- elimination_score (RULES.md §7, VARIANTS.md #15), worked out by hand

A, B, VOID = {"scores": [-30, 30]}, {"scores": [30, -30]}, {"scores": [0, 0], "out": None}


def test_elimination_puts_out_each_player_above_the_score_and_the_last_one_left_wins():
    rows = [{"scores": [-30, 45, 60]}, {"scores": [50, -30, 50]}, {"scores": [-30, 90, None]}]
    sheet = score_sheet(rows, rules(elimination_score=100))
    # totals (-30, 45, 60), (20, 15, 110): seat 2 out after round 2; (-10, 105, 110): seat 1 out after 3
    assert [r.totals for r in sheet.rounds] == [(-30, 45, 60), (20, 15, 110), (-10, 105, 110)]
    assert [r.eliminated for r in sheet.rounds] == [(), (2,), (1,)]
    assert [r.playing for r in sheet.rounds] == [(0, 1, 2), (0, 1, 2), (0, 1)]
    assert sheet.out_after == (None, 3, 2) and sheet.winner == (0,)
    assert sheet.status == "seat 0 wins, the last player left after 3 rounds (with -10 points)"
    assert sheet_table(sheet)[2] == {"round": 3, "tiebreak": False, "out": 0, "hand": False, "seat0": -30, "seat1": 90,
                                     "seat2": "", "total0": -10, "total1": 105, "total2": 110, "eliminated": "1"}
    # 100 exactly is not above 100: seat 1 stays in; rounds=1 plays no part
    sheet = score_sheet([{"scores": [-30, 100, 40]}, {"scores": [-30, None, 80]}][:1], rules(elimination_score=100,
                                                                                              rounds=1))
    assert sheet.winner == () and sheet.out_after == (None, None, None)
    assert sheet.status == ("1 round played: seats 0, 1 and 2 still in the match (elimination_score 100): the match "
                            "is not over; seat 0 leads with -30")


def test_two_players_out_in_one_round_leave_the_winner():
    sheet = score_sheet([{"scores": [-30, 80, 90]}, {"scores": [-30, 30, 20]}], rules(elimination_score=100))
    assert sheet.rounds[1].eliminated == (1, 2) and sheet.winner == (0,)
    assert sheet.status == "seat 0 wins, the last player left after 2 rounds (with -60 points)"


def test_elimination_refuses_a_score_for_a_player_already_out_and_a_round_after_the_end():
    E = rules(elimination_score=100)
    first = [{"scores": [-30, 45, 60]}, {"scores": [50, -30, 50]}]
    with pytest.raises(SheetError, match=r"^round 3: seat 2 is out of the match since round 2 \(total above "
                                         r"elimination_score 100\), but scores has 5 for it: write null$"):
        score_sheet(first + [{"scores": [-30, 90, 5]}], E)
    with pytest.raises(SheetError, match=r"^round 3: seat 2 is out .* scores has 0 for it: write null$"):
        score_sheet(first + [{"scores": [-30, 90, 0]}], E)
    with pytest.raises(SheetError, match=r"^round 2: scores has null for seat 1, which is still in the match$"):
        score_sheet(first[:1] + [{"scores": [-30, None, 50]}], E)
    with pytest.raises(SheetError, match=r"^round 4: the match was decided after round 3"):
        score_sheet(first + [{"scores": [-30, 90, None]}, {"scores": [-30, 5, None]}], E)
    with pytest.raises(SheetError, match=r"^round 3: out is seat 2, which is out of the match since round 2$"):
        score_sheet(first + [{"out": 2, "hand_finish": False, "hands": ["KS", "7H", None],
                              "opened": [True, True, None]}], E)


def test_elimination_with_rounds_given_as_their_ends():
    E = rules(elimination_score=100)
    end = {"out": 0, "hand_finish": False, "hands": ["", None, "KS 7H"], "opened": [True, None, True]}
    sheet = score_sheet([{"scores": [-30, 150, 20]}, end], E)
    # seat 1 out after round 1 (150); round 2: seat 0 out -30, seat 2 K + 7 = 17
    assert sheet.rounds[1].scores == (-30, 0, 17) and sheet.rounds[1].totals == (-60, 150, 37)
    assert sheet.winner == () and sheet.out_after == (None, 1, None)
    with pytest.raises(SheetError, match=r"^round 2: seat 1 is out .* but hands has \"9D\" for it: write null$"):
        score_sheet([{"scores": [-30, 150, 20]}, {**end, "hands": ["", "9D", "KS 7H"]}], E)
    with pytest.raises(SheetError, match=r"counting only the seats still in the match, 0, 2, in this order\)$"):
        score_sheet([{"scores": [-30, 150, 20]}, {**end, "hands": ["", None, ""]}], E)


def test_at_the_cap_of_100_rounds_the_lowest_total_then_more_round_wins_then_a_shared_win():
    E = rules(elimination_score=100)
    low = score_sheet([A] + [VOID] * 99, E)
    assert low.winner == (0,) and low.status == ("seat 0 wins after 100 rounds (the cap of 100 rounds): the lowest "
                                                 "total, -30")
    # (-60, 60) then seat 1's Hand doubles seat 0's 30: (0, 0), round wins 2 against 1
    wins = score_sheet([A, A, {"scores": [60, -60]}] + [VOID] * 97, E)
    assert wins.rounds[-1].totals == (0, 0) and wins.wins == (2, 1) and wins.winner == (0,)
    assert wins.status.endswith("the lowest total, 0, shared, and the most round wins, 2")
    shared = score_sheet([A, B] + [VOID] * 98, E)
    assert shared.winner == (0, 1) and shared.status == (
        "seats 0 and 1 share the win after 100 rounds (the cap of 100 rounds): the lowest total, 0, and 1 round win each")
    with pytest.raises(SheetError, match=r"^round 101: the match was decided after round 100"):
        score_sheet([A, B] + [VOID] * 99, E)


@pytest.mark.parametrize("kw, message", [
    (dict(elimination_score=30), "allowed 0 (off) or an integer from 50 to 1000"),
    (dict(elimination_score=1001), "allowed an integer from 0 to 1000"),
    (dict(elimination_score=301, partnership=True), "elimination_score is for single players, not 2 v 2"),
    (dict(elimination_score=301, standings="last_loses"), "allowed standings=lowest_wins with elimination_score > 0"),
])
def test_elimination_score_values_and_combinations_refused(kw, message):
    from handsim.games.hand.rules import RulesError

    with pytest.raises(RulesError, match=re.escape(message)):
        rules(**kw)


def test_the_command_scores_an_elimination_match(tmp_path):
    runner = CliRunner()
    sheet = "\n".join(json.dumps(r) for r in ({"scores": [-30, 45, 60]}, {"scores": [50, -30, 50]},
                                              {"scores": [-30, 90, None]}))
    csv = tmp_path / "sheet.csv"
    r = runner.invoke(main, ["score", "-", "--match", "--set", "elimination_score=100", "--csv", str(csv)], input=sheet)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[-2] == "Out of the match (total above elimination_score 100): seat 2 after round 2; seat 1 after round 3 (- : did not play)."
    assert lines[-1] == "seat 0 wins, the last player left after 3 rounds (with -10 points)."
    assert "-" in lines[-3].split()
    assert csv.read_text().splitlines()[3] == "3,False,0,False,-30,90,,-10,105,110,1"
    bad = runner.invoke(main, ["score", "-", "--match", "--set", "elimination_score=100"],
                        input=sheet + "\n" + json.dumps({"scores": [-30, 5, None]}))
    assert bad.exit_code == 2 and "round 4: the match was decided after round 3" in bad.output
    assert "Traceback" not in bad.output
    low = runner.invoke(main, ["score", "-", "--match", "--set", "elimination_score=30"], input=sheet)
    assert low.exit_code == 2 and "allowed 0 (off) or an integer from 50 to 1000" in low.output
    assert "Traceback" not in low.output


def test_elimination_match_studies_are_set_up_and_show_deal_refuses_their_rounds():
    from handsim.study import make_spec

    E = rules(elimination_score=301)
    assert make_spec(E, matches=True, deals=10).rules.elimination_score == 301  # an elimination match study
    assert make_spec(E, matches=False, deals=10).rules.elimination_score == 301  # single deals ignore it
    runner = CliRunner()
    r = runner.invoke(main, ["show-deal", "--deal", "1", "--round", "2", "--set", "elimination_score=301"])
    assert r.exit_code == 2 and "show-deal --round replays rounds of matches of `rounds` rounds" in r.output
    assert "Traceback" not in r.output and r.output.count("\n") <= 2, r.output
    r = runner.invoke(main, ["simulate", "--deals", "10", "--rounds", "5", "--set", "elimination_score=301"])
    assert r.exit_code == 2 and "--rounds 5: a match with elimination_score=301 ends when one player is left" in r.output
    assert "Traceback" not in r.output
    vary = runner.invoke(main, ["simulate", "--deals", "10", "--matches", "--vary", "elimination_score=0,301"])
    assert vary.exit_code == 2 and "cannot vary 'elimination_score' (how a match ends)" in vary.output
