"""Findings follow from the numbers (issue 12 section 4), for studies, tournaments and tuning runs.

A difference whose 95% interval includes 0 is never worded as a difference or given a direction;
policies whose rating intervals overlap are "tied within the intervals", never ranked strictly;
every finding that reports an interval names its unit (per player-round, per team-round, of
matches, of deals, ...).  Studies are synthetic accumulators with known (null) effects;
tournaments and tuning runs are result tables built by hand.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from handsim.games.hand import report as findings
from handsim.report.document import Finding
from handsim.report.html import render as render_html
from handsim.stats import FLAG_OPENED, FLAG_OUT, DealBlock, StudyAccumulator
from handsim.tournament import make_tournament
from handsim.tournament.accumulate import CROSSTABLE_COLUMNS, TABLE_COLUMNS
from handsim.tournament.report import tournament_document, tune_document
from handsim.tournament.tune import TUNE_COLUMNS, make_tune

#: Words that claim a difference or its direction.
DIRECTION = re.compile(r"scores? less|scores? more|less than|more than|\brises\b|\bfalls\b|better|worse|\bbeats?\b|"
                       r"\bahead\b|lower total|\bwins?\b|\bchanges?\b|^Confirmed", re.I)
#: What a finding with an interval must name: the unit its number is counted in.
UNIT = re.compile(r"per (player|team)-round|per round|per match|per deal|player-rounds|player-matches|"
                  r"of (its )?(matches|deals|comparisons)|the match|Elo scale")


def all_findings(doc) -> list[Finding]:
    out = []
    for _, block in doc.walk():
        out += [i for i in getattr(block, "items", ()) if isinstance(i, Finding)]
    return out


def not_significant(doc) -> list[Finding]:
    return [f for f in all_findings(doc) if f.estimate is not None and f.estimate.diff and not f.estimate.significant]


def assert_units_named(doc) -> int:
    """Every finding that gives an interval names its unit; a finding on points names which points."""
    n = 0
    for f in all_findings(doc):
        if "95% CI" in f.text or "95% interval" in f.text:
            assert UNIT.search(f.text), f.text
            n += 1
        if f.estimate is not None and f.estimate.unit.startswith("points per"):
            assert f.estimate.unit in f.text, f.text
    return n


# ------------------------------------------------------------------------------ studies


def noise_study(seed: int, n: int = 400) -> StudyAccumulator:
    """Two thresholds x two line-ups (3 players) where nothing has an effect: every score is the deal's base
    plus independent noise (mean 0), the outcome flags are the same everywhere (shares change by exactly 0)."""
    lineups = [("hold-hand", "greedy", "greedy"), ("greedy", "greedy", "greedy")]
    configs = [{"opening_threshold": 51}, {"opening_threshold": 71}]
    acc = StudyAccumulator(configs, lineups, 3, ["opening_threshold"])
    rng = np.random.default_rng(seed)
    deals = np.arange(n, dtype=np.int64)
    perm = np.array([np.roll(np.arange(3), -(int(d) % 3)) for d in deals], dtype=np.int8)
    base = rng.integers(0, 100, size=(n, 3))
    flags = np.full((n, 3), FLAG_OPENED, np.uint8)
    flags[np.arange(n), rng.integers(0, 3, size=n)] |= FLAG_OUT
    turns = rng.integers(10, 60, size=n).astype(np.int16)
    blocks = {}
    for c in range(2):
        for l in range(2):
            score = (base + rng.integers(-3, 4, size=(n, 3))).astype(np.int32)
            blocks[(c, l)] = DealBlock(deals, perm, score, flags, turns, np.zeros(n, np.uint8))
    acc.add_chunk(blocks)
    return acc


@pytest.fixture(scope="module")
def null_study():
    acc = noise_study(seed=3)
    # the premise: every paired difference of scores has an interval that includes 0 (none is 0 in every deal)
    for df in (acc.paired(), acc.versus(), acc.lineup_pairs()):
        assert len(df) and ((df["ci95_low"] < 0) & (df["ci95_high"] > 0)).all(), df[["mean_diff", "ci95_low",
                                                                                     "ci95_high"]]
    doc = findings.build(acc.summary(), acc.paired(), acc.histograms(), {"seed": 3}, versus=acc.versus(),
                         lineup_pairs=acc.lineup_pairs(), dpi=30)
    return acc, doc


def test_study_findings_claim_no_difference_when_the_interval_includes_0(null_study):
    _, doc = null_study
    ns = not_significant(doc)
    sections = {s.id for s in doc.sections for b in s.blocks if any(f in ns for f in getattr(b, "items", ()))}
    # the effect of the option, policy against policy, switching one seat and the summary all say it
    assert {"in-brief", "effect-opening_threshold", "versus", "lineups"} <= sections, sections
    for f in ns:
        # (a share that no deal changed, e.g. In brief's Hands per round, is the same in every deal)
        assert ("the same in every deal" if f.estimate.identical else "not significant: the interval includes 0") \
            in f.text, f.text
        assert not DIRECTION.search(f.text), f.text
    versus = [f for f in ns if f.text.startswith("`hold-hand` − `greedy`")]
    assert versus and all(f.text.endswith(": no difference shown.") for f in versus)
    # the shares did not move at all: no rate is said to rise or fall
    page = render_html(doc)
    assert page.count('class="finding ns"') == len(ns) and "rises" not in page and "falls" not in page


def test_study_findings_name_their_unit(null_study):
    from test_report import COOP, PLAIN, match_study, synthetic

    _, doc = null_study
    assert assert_units_named(doc) >= 6
    acc = synthetic()
    assert assert_units_named(findings.build(acc.summary(), acc.paired(), acc.histograms(), {},
                                             versus=acc.versus(), dpi=30)) >= 8
    for teams in (True, False):
        acc = match_study([COOP, PLAIN], teams=teams, n=60, chunks=1)
        doc = findings.build(acc.summary(), acc.paired(), acc.histograms(), {}, versus=acc.versus(),
                             lineup_pairs=acc.lineup_pairs(), dpi=30)
        assert assert_units_named(doc) >= 4
        if teams:  # per-policy figures pool partners and opponents in 2 v 2: no verdict from them
            v = [f for s in doc.sections if s.id == "versus" for b in s.blocks for f in getattr(b, "items", ())]
            assert v and all("not a comparison of teams" in f.text and not DIRECTION.search(f.text) for f in v)


def _round_length_findings(doc) -> list[str]:
    return [f.text for f in all_findings(doc) if f.text.startswith("A round lasts")]


def test_round_length_finding_says_when_no_round_was_void():
    """Was "void rounds: 0% to 0%"; a void share is given only when some round was void."""
    n = 100
    deals = np.arange(n, dtype=np.int64)
    perm = np.array([np.roll(np.arange(2), -(int(d) % 2)) for d in deals], dtype=np.int8)
    score = np.tile(np.array([[0, 10]], np.int32), (n, 1))
    flags = np.tile(np.array([[FLAG_OPENED | FLAG_OUT, FLAG_OPENED]], np.uint8), (n, 1))

    def doc(void_in_71: int):
        acc = StudyAccumulator([{"opening_threshold": 51}, {"opening_threshold": 71}], [("greedy", "greedy")], 2,
                               ["opening_threshold"])
        void = np.zeros(n, np.uint8)
        void[:void_in_71] = 1
        acc.add_chunk({(0, 0): DealBlock(deals, perm, score, flags, np.full(n, 20, np.int16), np.zeros(n, np.uint8)),
                       (1, 0): DealBlock(deals, perm, score, flags, np.full(n, 30, np.int16), void)})
        return findings.build(acc.summary(), acc.paired(), acc.histograms(), {}, dpi=30)

    assert _round_length_findings(doc(0)) == [
        "A round lasts from 20.0 turns on average (opening threshold 51) to 30.0 (opening threshold 71); "
        "none was void."]
    assert _round_length_findings(doc(25)) == [
        "A round lasts from 20.0 turns on average (opening threshold 51) to 30.0 (opening threshold 71); "
        "void rounds: 0% to 25.0%."]


# ------------------------------------------------------------------------------ tournaments


def crosstable(pairs, share=0.5) -> pd.DataFrame:
    """Both orders of each ``(a, b, mean_diff, low, high)`` with the other columns filled consistently."""
    rows = []
    for a, b, d, lo, hi in pairs:
        for p, o, s in ((a, b, 1), (b, a, -1)):
            r = dict.fromkeys(CROSSTABLE_COLUMNS, 0.0)
            ahead = 0.6 if s * d < 0 else 0.4
            r.update(policy=p, opponent=o, deals=500, games_per_deal=6, mean_diff=s * d, sd_diff=8.0,
                     ci95_low=min(s * lo, s * hi), ci95_high=max(s * lo, s * hi), p_value=0.3,
                     p_deal_ahead=ahead, p_deal_ahead_ci95_low=ahead - 0.04, p_deal_ahead_ci95_high=ahead + 0.04,
                     p_deal_behind=1 - ahead, p_deal_behind_ci95_low=0.96 - ahead,
                     p_deal_behind_ci95_high=1.04 - ahead, comparisons=6000, p_ahead=share, p_tied=0.0,
                     score_share=share, score_share_ci95_low=share - 0.02, score_share_ci95_high=share + 0.02,
                     model_share=share)
            rows.append(r)
    return pd.DataFrame(rows, columns=CROSSTABLE_COLUMNS)


def ratings(rows) -> pd.DataFrame:
    df = pd.DataFrame([{"rank": i + 1, "policy": p, "rating": r, "rating_ci95_low": lo, "rating_ci95_high": hi,
                        "theta": r / 173.7, "se_theta": 0.05, "score_share": 0.5, "comparisons": 6000, "deals": 500,
                        "note": ""} for i, (p, r, lo, hi) in enumerate(rows)])
    return df


TOURNAMENT = make_tournament(["greedy", "hold-hand", "random"], players=3, deals=500, seed=1)


def tournament_doc(rating_rows, pairs, spec=TOURNAMENT):
    frames = {"ratings": ratings(rating_rows), "crosstable": crosstable(pairs),
              "tables": pd.DataFrame(columns=TABLE_COLUMNS)}
    return tournament_document(spec, frames, {}, dpi=30)


def test_tournament_findings_claim_no_difference_when_the_interval_includes_0():
    doc = tournament_doc([("greedy", 40, 30, 50), ("hold-hand", 25, 15, 35), ("random", -65, -75, -55)],
                         [("greedy", "hold-hand", -0.4, -1.1, 0.3), ("greedy", "random", -20.0, -22.0, -18.0),
                          ("hold-hand", "random", -19.6, -21.5, -17.7)])
    brief = [f.text for s in doc.sections if s.id == "in-brief" for b in s.blocks for f in getattr(b, "items", ())]
    ranking = brief[0]
    assert ranking.startswith("Ranking by rating (Elo scale, mean of the field 0; 95% CI): 1. `greedy` 40 (30 to 50), "
                              "2. `hold-hand` 25 (15 to 35), 3. `random` -65 (-75 to -55).")
    assert ("`greedy` and `hold-hand` are tied within the intervals (each one's 95% interval overlaps the next "
            "one's): the order among them is not established.") in ranking
    assert "established." not in ranking.replace("not established.", "") and ">" not in ranking
    ns = not_significant(doc)
    assert len(ns) == 2  # the summary and the head-to-head section
    for f in ns:
        assert f.text == ("`greedy` and `hold-hand` score about the same: `greedy` − `hold-hand` = -0.40 points per "
                          "player-round (95% CI -1.10 to +0.30; not significant: the interval includes 0): no "
                          "difference in score shown.")
        assert not DIRECTION.search(f.text)
    sig = [f.text for f in all_findings(doc) if f.estimate is not None and f.estimate.significant]
    assert ("`greedy` does better than `random` at the same tables (scores less): `greedy` − `random` = -20.00 points per "
            "player-round (95% CI -22.00 to -18.00); over each deal's seatings `greedy` had the lower total on 60.0% "
            "of deals (95% CI 56.0% to 64.0%), the same total on 0% and the higher on 40.0%.") in sig
    # the table says it too, and the figure is drawn with a hollow marker for the pair
    assert "| `greedy` | `hold-hand` | 500 | -0.40 (-1.10 to +0.30) | not significant |" in _md(doc)
    assert assert_units_named(doc) >= 5


def test_tournament_ranking_is_strict_only_when_the_intervals_lie_apart():
    pairs = [("greedy", "hold-hand", -3.0, -4.0, -2.0), ("greedy", "random", -20.0, -22.0, -18.0),
             ("hold-hand", "random", -17.0, -19.0, -15.0)]
    apart = tournament_doc([("greedy", 40, 32, 48), ("hold-hand", 20, 12, 28), ("random", -60, -70, -50)], pairs)
    text = all_findings(apart)[0].text
    assert text.endswith("Each policy's interval lies clear of the next one's: the order is established.")
    # all three overlap in a chain: one run of ties
    chain = tournament_doc([("greedy", 10, -5, 25), ("hold-hand", 0, -15, 15), ("random", -10, -24, 4)], pairs)
    assert ("`greedy`, `hold-hand` and `random` are tied within the intervals"
            in all_findings(chain)[0].text)
    assert "| 1 | `greedy` | 10 (-5 to 25) | tied within the intervals |" in _md(chain)


def test_two_v_two_tournament_findings_are_per_team_round():
    spec = make_tournament(["greedy", "random"], players="2v2", deals=500, seed=1)
    doc = tournament_doc([("greedy", 150, 140, 160), ("random", -150, -160, -140)],
                         [("greedy", "random", -90.0, -95.0, -85.0)], spec)
    texts = [f.text for f in all_findings(doc)]
    assert any(t.startswith("`greedy`'s team does better than `random`'s team at the same tables (scores less): `greedy` − `random` "
                            "= -90.00 points per team-round") for t in texts)
    assert "per player-round" not in " ".join(texts)
    assert_units_named(doc)


def _md(doc) -> str:
    from handsim.report.markdown import render

    return render(doc)


# ------------------------------------------------------------------------------ tuning


TUNE = make_tune("hold-hand", ["bail_turn=1:1000:999"], "greedy,greedy,greedy", deals=300, seed=5)


def tune_frame(best_diff: tuple[float, float, float]) -> pd.DataFrame:
    """The defaults, bail_turn 1 (the best, ``best_diff`` against the defaults) and bail_turn 1000."""
    labels = [TUNE.base.label, TUNE.candidate({"bail_turn": 1}).label, TUNE.candidate({"bail_turn": 1000}).label]
    d, lo, hi = best_diff
    rows = []
    for i, (lab, bt, diff, dlo, dhi) in enumerate(((labels[0], 10.0, 0.0, 0.0, 0.0), (labels[1], 1.0, d, lo, hi),
                                                   (labels[2], 1000.0, 60.0, 55.0, 65.0))):
        r = dict.fromkeys(TUNE_COLUMNS, 0.0)
        mean = 30.0 + diff
        r.update(candidate=i, stage="grid", label=lab, bail_turn=bt, deals=300, mean_score=mean, sd_score=40.0,
                 ci95_low=mean - 4.5, ci95_high=mean + 4.5, diff_vs_default=diff, diff_ci95_low=dlo,
                 diff_ci95_high=dhi, p_unopened=0.2, opponents_mean_score=40.0, opponents_ci95_low=37.0,
                 opponents_ci95_high=43.0, is_default=i == 0, is_best=i == 1, on_grid=i > 0)
        rows.append(r)
    df = pd.DataFrame(rows)
    df["rank"] = df["mean_score"].rank(method="first").astype(int)
    return df


def confirm(diff, lo, hi):
    return {"seed": 6, "deals": 300, "best": TUNE.candidate({"bail_turn": 1}).label, "default": TUNE.base.label,
            "best_mean": 30.0 + diff, "best_ci95_low": 25.0 + diff, "best_ci95_high": 35.0 + diff,
            "default_mean": 30.0, "default_ci95_low": 25.0, "default_ci95_high": 35.0,
            "diff": diff, "diff_ci95_low": lo, "diff_ci95_high": hi}


def test_tune_findings_claim_no_difference_when_the_interval_includes_0():
    best = TUNE.candidate({"bail_turn": 1}).label
    doc = tune_document(TUNE, {"tune": tune_frame((-1.68, -3.41, 0.05)), "confirm": confirm(-0.8, -2.1, 0.5)}, {},
                        dpi=30)
    ns = not_significant(doc)
    texts = [f.text for f in ns]
    assert len(ns) == 3  # the search and the confirmation in the summary, the confirmation in its section
    for f in ns:
        assert "not significant: the interval includes 0" in f.text and not DIRECTION.search(f.text), f.text
    assert (f"Not confirmed: on 300 fresh deals (seed 6), best − defaults (`{best}` − `{TUNE.base.label}`) = -0.80 "
            "points per player-round (95% CI -2.10 to +0.50; not significant: the interval includes 0): no "
            "difference shown.") in texts
    assert texts[0].startswith(f"Lowest mean score of 3 candidates on the 300 tuning deals: `{best}`; against the "
                               f"defaults `{TUNE.base.label}` on the same deals: -1.68 points per player-round (95% "
                               "CI -3.41 to +0.05; not significant")
    assert "| 2 | `hold-hand:bail_turn=1" not in _md(doc)  # the best is rank 1
    assert assert_units_named(doc) >= 3


@pytest.mark.parametrize("diff,lo,hi,start", [
    (-2.4, -4.4, -0.4, "Confirmed on 300 fresh deals (seed 6): `{best}` does better than the defaults"),
    (2.4, 0.4, 4.4, "Not confirmed: on 300 fresh deals (seed 6) `{best}` does worse than the defaults"),
])
def test_tune_confirmation_states_a_direction_only_outside_0(diff, lo, hi, start):
    best = TUNE.candidate({"bail_turn": 1}).label
    doc = tune_document(TUNE, {"tune": tune_frame((-3.0, -5.0, -1.0)), "confirm": confirm(diff, lo, hi)}, {}, dpi=30)
    conf = [f for f in all_findings(doc) if f.text.startswith(("Confirmed", "Not confirmed"))]
    assert len(conf) == 2 and all(f.text.startswith(start.format(best=best)) for f in conf)
    assert all(f.estimate.significant and math.isclose(f.estimate.value, diff) for f in conf)


def test_tune_report_when_the_defaults_are_the_best():
    df = tune_frame((3.0, 1.0, 5.0))
    df["is_best"] = df["is_default"]
    doc = tune_document(TUNE, {"tune": df, "confirm": None}, {}, dpi=30)
    texts = [f.text for f in all_findings(doc)]
    assert texts[0] == (f"Of 3 candidates, the defaults `{TUNE.base.label}` had the lowest mean score on the 300 "
                        "tuning deals (30.00 points per player-round, 95% CI 25.50 to 34.50); there is nothing to "
                        "confirm.")
    assert not any(t.startswith(("Confirmed", "Not confirmed")) for t in texts)
    assert [f.name for f in doc.figures()] == ["tune.png"]  # no confirmation figure
    assert "Every candidate played the same deals." in _md(doc)


def test_how_to_read_takes_the_scores_from_the_rules():
    # issue 27: the report's How to read said "plus 100 ... −30 ... −60" whatever the rules
    words = findings.score_words
    assert words({}) == ("the value of the cards left in hand, plus 100 for a player who never opened; "
                         "−30 for going out, −60 for a Hand")
    assert words({"out_score": -50, "hand_score": -150, "unopened_points": 200}) == (
        "the value of the cards left in hand, plus 200 for a player who never opened; −50 for going out, "
        "−150 for a Hand")
    # qahwa's flat penalty; an option the configurations vary is named, not given a value
    assert words({"unopened_penalty": "flat", "out_score": 0}, varied=["hand_score"]) == (
        "the value of the cards left in hand, or 100 in all for a player who never opened; 0 for going out, "
        "each configuration's `hand_score` for a Hand")
    assert words({"unopened_penalty": "flat"}, varied=["unopened_penalty"]) == (
        "the value of the cards left in hand, plus 100 for a player who never opened (or that in all, by each "
        "configuration's `unopened_penalty`); −30 for going out, −60 for a Hand")
