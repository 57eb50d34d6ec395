"""*In brief* of classic Hand's report (issue 23, first contact): worse / better for the player, how
often Hands happen and how long rounds are, honest rounding, "about the same" for an interval across
0, the threshold of joker-penalty figures, why "same table" and "switching one seat" differ, and the
How to read paragraph from the study's rules.

The studies are built by hand (every round: who goes out, whether with a Hand, how many turns), and
the tables they give are then set by hand where a sentence needs chosen numbers (18.64% and 18.77%).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy import stats as sps

from handsim.games.hand import report as findings
from handsim.report.document import Estimate
from handsim.report.words import share_pair, verdict
from handsim.stats import FLAG_HAND, FLAG_OPENED, FLAG_OUT, DealBlock, StudyAccumulator

PURE = ("greedy",) * 4
MIXED = ("hold-hand", "greedy", "greedy", "greedy")
N = 200


def designed(option: str = "opening_threshold", values=(51, 71), every=(5, 2)) -> StudyAccumulator:
    """Two line-ups (four greedy; hold-hand and three greedy) x two values of ``option``, 200 deals.

    Every player opens; seat ``d % 4`` goes out in deal ``d``, with a Hand when ``d % every[0] == 0``
    at the first value (20% of rounds) and when ``d % every[1] == 0`` at the second (50%, or 25% with
    ``every=(5, 4)``); rounds last 40 turns at
    the first value and 50 at the second; scores are the deal's base, +8 at the second value, +5 for
    hold-hand's seat."""
    configs = [{option: v} for v in values]
    acc = StudyAccumulator(configs, [PURE, MIXED], 4, [option])
    rng = np.random.default_rng(23)
    deals = np.arange(N, dtype=np.int64)
    perm = np.array([np.roll(np.arange(4), -(int(d) % 4)) for d in deals], dtype=np.int8)
    base = rng.integers(0, 100, size=(N, 4))
    blocks = {}
    for c in range(2):
        flags = np.full((N, 4), FLAG_OPENED, np.uint8)
        hand = deals % every[c] == 0
        flags[deals, deals % 4] |= FLAG_OUT | (FLAG_HAND * hand).astype(np.uint8)
        turns = np.full(N, 40 if c == 0 else 50, np.int16)
        for l, lineup in enumerate((PURE, MIXED)):
            score = base + 8 * c + rng.integers(-2, 3, size=(N, 4))
            if lineup == MIXED:
                score = score + 5 * (perm == 0)
            blocks[(c, l)] = DealBlock(deals, perm, score.astype(np.int32), flags, turns, np.zeros(N, np.uint8))
    acc.add_chunk(blocks)
    return acc


def brief(doc) -> list[str]:
    return [f"{f.text} [{f.context}]" for s in doc.sections if s.id == "in-brief" for b in s.blocks
            for f in getattr(b, "items", ())]


def build(acc, rules=None, summary=None, paired=None, versus=None, lineup_pairs=None):
    return findings.build(acc.summary() if summary is None else summary, acc.paired() if paired is None else paired,
                          acc.histograms(), {"rules": rules or {}}, versus=acc.versus() if versus is None else versus,
                          lineup_pairs=acc.lineup_pairs() if lineup_pairs is None else lineup_pairs, dpi=30)


def t_interval(x):
    x = np.asarray(x, float)
    half = sps.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    return x.mean() - half, x.mean() + half


@pytest.mark.parametrize("every, second, said", [((5, 2), "50.0%", "+30.0 percentage points, 95% CI {lo} to {hi}"),
                                                 ((5, 4), "25.0%", "about the same: +5.0 percentage points, 95% CI "
                                                  "{lo} to {hi}; not significant: the interval includes 0")])
def test_the_main_comparison_says_how_often_hands_happen_and_how_long_rounds_are(every, second, said):
    acc = designed(every=every)
    lines = brief(build(acc))
    assert 3 <= len(lines) <= 5, lines
    # the per-round share of Hands changes by [d % every[1] == 0] - [d % 5 == 0] in deal d (one player
    # goes out per round): a t interval over the 200 deals (with (5, 4): -3.2 to +13.2, across 0)
    d = np.arange(N)
    lo, hi = t_interval((d % every[1] == 0).astype(float) - (d % 5 == 0))
    said = said.format(lo=f"{100 * lo:+.1f}", hi=f"{100 * hi:+.1f}")
    rounds = lines[1]
    assert rounds == (f"A Hand ends 20.0% of rounds at opening threshold 51 and {second} at 71 ({said}); a round "
                      "lasts 40.0 turns on average at opening threshold 51 and 50.0 at 71 (all players' turns "
                      "together). [line-up greedy, greedy, greedy, greedy]"), rounds
    if every == (5, 4):
        assert "-3.2 to +13.2" in rounds
    # +8 points at 71 for every seat: worse for the player, in words, the magnitude unsigned
    assert lines[0].startswith("Raising the opening threshold from 51 to 71 makes `greedy`'s score worse by 8.")
    # hold-hand's seat +5 (and the base of its seats): worse at the same table, at each threshold
    versus = [x for x in lines if x.startswith("At the same table")]
    assert len(versus) == 1 and re.match(r"At the same table, `hold-hand` against `greedy` \(the first's mean "
                                         r"score minus the second's\): worse by [\d.]+ points per player-round "
                                         r"\(95% CI [\d.]+ to [\d.]+\) at opening threshold 51; worse by [\d.]+ "
                                         r"\(95% CI [\d.]+ to [\d.]+\) at 71\.", versus[0]), versus
    for word in ("line-up(s)", "configuration(s)"):
        assert not any(word in x for x in lines)


def test_two_close_shares_are_printed_so_that_their_difference_is_the_one_stated():
    acc = designed()
    s, p = acc.summary(), acc.paired()
    rows = (s["lineup"] == ",".join(PURE)) & (s["seat"] == "all")
    s.loc[rows & (s["opening_threshold"] == 51), "p_unopened"] = 0.1864
    s.loc[rows & (s["opening_threshold"] == 71), "p_unopened"] = 0.1877
    row = p["lineup"] == ",".join(PURE)
    p.loc[row, ["p_unopened_diff", "p_unopened_diff_ci95_low", "p_unopened_diff_ci95_high"]] = [0.0013, 0.0004, 0.0022]
    first = brief(build(acc, summary=s, paired=p))[0]
    # one decimal would print 18.6% -> 18.8% with +0.1: two decimals, and the difference 18.77 - 18.64
    assert "; P(unopened) goes from 18.64% to 18.77% of player-rounds (+0.13 percentage " \
           "points, 95% CI +0.04 to +0.22)." in first, first
    assert share_pair(0.1864, 0.1877) == ("18.64%", "18.77%", "+0.13", "–", "–")
    assert share_pair(0.186, 0.188, 0.001, 0.003) == ("18.6%", "18.8%", "+0.2", "+0.1", "+0.3")


def test_an_interval_across_0_is_about_the_same():
    acc = designed()
    p = acc.paired()
    p.loc[p["lineup"] == ",".join(PURE), ["mean_diff", "ci95_low", "ci95_high"]] = [0.2, -0.6, 1.1]
    first = brief(build(acc, paired=p))[0]
    assert first.startswith("Raising the opening threshold from 51 to 71 leaves `greedy`'s score about the same "
                            "(+0.2 points per player-round, 95% CI -0.6 to +1.1; not significant: the interval "
                            "includes 0)"), first
    assert "worse" not in first.split(";")[0] and "better" not in first
    e = Estimate(-1.4, -2.3, -0.4, unit="points per player-round")
    assert verdict(e) == "better by 1.4 points per player-round (95% CI 0.4 to 2.3)"
    assert verdict(Estimate(-0.048, -0.05, -0.045, unit="pp"), lower_is_better=False) == (
        "lower (worse) by 4.8 percentage points (95% CI 4.5 to 5.0)")
    assert verdict(Estimate(0.0, 0.0, 0.0, unit="points per player-round", identical=True)) == (
        "the same in every deal (0.0 points per player-round)")


def test_same_table_and_switching_one_seat_say_why_they_differ():
    acc = designed()
    vs, lp = acc.versus(), acc.lineup_pairs()
    at51 = vs["opening_threshold"] == 51
    vs.loc[at51, ["mean_diff", "ci95_low", "ci95_high"]] = [17.5, 16.9, 18.1]
    # lineup_pairs() gives the earlier line-up minus the later: four greedy minus hold-hand's table
    lp.loc[lp["opening_threshold"] == 51, ["mean_diff", "ci95_low", "ci95_high"]] = [-14.8, -15.3, -14.3]
    lines = brief(build(acc, versus=vs, lineup_pairs=lp))
    switch = [x for x in lines if x.startswith("Playing `hold-hand` instead of `greedy`")]
    assert len(switch) == 1, lines
    assert switch[0].startswith("Playing `hold-hand` instead of `greedy` at position 1, that player's score: worse "
                                "by 14.8 points per player-round (95% CI 14.3 to 15.3) at opening threshold 51;")
    # 14.8 - 17.5 = -2.7: the greedy players at hold-hand's table score 2.7 less than at four greedy's
    assert ("The two figures differ because *at the same table* compares players in the same rounds, while "
            "*switching one seat* compares that seat playing `hold-hand` and playing `greedy`, so it also counts "
            "what `hold-hand` does to the other players' scores: at opening threshold 51 the `greedy` players at "
            "that table score about 2.7 points per player-round below their score at a table without "
            "`hold-hand`.") in switch[0]
    versus = [x for x in lines if x.startswith("At the same table")][0]
    assert "worse by 17.5 points per player-round (95% CI 16.9 to 18.1) at opening threshold 51" in versus


def test_every_joker_penalty_figure_names_its_opening_threshold():
    acc = designed("joker_penalty", (15, 30))
    lines = brief(build(acc, rules={"opening_threshold": 71}))
    assert lines[0].startswith("Raising the joker penalty from 15 to 30 at opening threshold 71 makes `greedy`'s "
                               "score worse by 8."), lines[0]
    assert lines[0].endswith("[line-up greedy, greedy, greedy, greedy]")  # said in the line, not again
    for line in lines[1:]:
        assert line.endswith("opening threshold 71]"), line
    # a study that varies the threshold names it in each figure already, and adds nothing
    lines = brief(build(designed(), rules={"opening_threshold": 71}))
    assert not any("opening threshold 71]" in x for x in lines)


@pytest.mark.parametrize("rules, said", [
    ({"out_score": -20}, "plus 100 for a player who never opened; −20 for going out, −60 for a Hand"),
    ({"out_score": -20, "hand_score": -40, "unopened_points": 50},
     "plus 50 for a player who never opened; −20 for going out, −40 for a Hand"),
])
def test_how_to_read_and_the_captions_take_the_scores_of_the_study(rules, said):
    from handsim.report.markdown import render

    text = render(build(designed(), rules=rules))
    how = text.split("\n## How to read this report\n", 1)[1].split("\n## ", 1)[0]
    assert said in how, how
    points = rules.get("unopened_points", 100)
    assert f"such a player pays {points} on top of the cards left." in text
    if points != 100:
        assert "pays 100" not in text
