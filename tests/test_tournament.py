"""Tournaments: the duplicate design, the exact counters, the ratings and their intervals.

Answers known by construction: a policy entered twice comes out level on every single deal; the
crosstable equals a brute-force computation from the engine's raw per-deal scores; the rating
model recovers strengths from a hand-built win table and its deal-clustered interval agrees with
a bootstrap over deals; results do not depend on jobs or chunk size; a resumed tournament is
byte-identical to an uninterrupted one.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from handsim.policies import lineup_arrays
from handsim.games.hand.rules import Rules
from handsim.simulate import StudyError, run_chunk
from handsim.tournament import design, games_per_deal, make_tournament, run_tournament, write_tournament
from handsim.tournament.accumulate import TournamentCounters
from handsim.tournament.ratings import ELO, bradley_terry, ratings_table


def run(spec, **kw):
    kw.setdefault("jobs", 1)
    kw.setdefault("executor", "inline")
    return run_tournament(spec, **kw)


# ------------------------------------------------------------------------------ design


@pytest.mark.parametrize("players,teams,tables,per_pair", [(2, False, "pairs", 2), (3, False, "pairs", 6),
                                                            (4, False, "pairs", 6), (4, True, "pairs", 2)])
def test_pairs_design_seats_each_pair_at_equal_strength(players, teams, tables, per_pair):
    d = design(4, players, tables, teams)
    assert len(d.lineups) == 6 * per_pair == games_per_deal(4, players, tables, teams)
    assert len(set(d.lineups)) == len(d.lineups)  # no seating twice
    for lu, t in zip(d.lineups, d.table_of):
        assert sorted(lu) == sorted(d.tables[t])  # a seating is an order of its table
    for t, table in enumerate(d.tables):
        seats = [lu for lu, tt in zip(d.lineups, d.table_of) if tt == t]
        if teams:
            a, b = table[0], table[-1]
            assert seats == [(a, b, a, b), (b, a, b, a)]
        else:
            assert len(seats) == math.factorial(players) // math.prod(
                math.factorial(table.count(e)) for e in set(table))  # every distinct order
    # both majorities at 3 seats
    if players == 3:
        assert (0, 0, 1) in d.tables and (0, 1, 1) in d.tables


def test_all_design_plays_every_sequence_of_entries():
    d = design(3, 3, "all")
    assert sorted(d.lineups) == sorted(itertools.product(range(3), repeat=3))
    assert games_per_deal(3, 3, "all") == 27 and len(d.tables) == 10  # multisets of 3 from 3
    with pytest.raises(ValueError, match="2 v 2"):
        design(3, 4, "all", teams=True)


def test_every_deal_meets_every_seat_assignment_in_the_engine():
    """Replayed through the engine: on each deal, the 6 seatings of table greedy,greedy,random,random put
    the policies in the seats in all 6 distinct ways, and every seating gets the same cards by seat."""
    from handsim.games.hand.trace import trace_deal

    rules = Rules.preset("classic")
    d = design(2, 4, "pairs")
    names = ["greedy", "random"]
    for deal in range(3):
        assignments, hands = [], []
        for lu in d.lineups:
            t = trace_deal(rules, [names[e] for e in lu], deal, 3, players=4)
            rel = [(t["starter"] + r) % 4 for r in range(4)]  # seats from the starter on
            assignments.append(tuple(t["policies"][s] for s in rel))
            hands.append([sorted(t["hands"][s]) for s in rel])
        assert sorted(assignments) == sorted(set(itertools.permutations(("greedy", "greedy", "random", "random"))))
        assert all(h == hands[0] for h in hands)


# ------------------------------------------------------------------------------ known answers


def test_a_policy_against_itself_is_level_on_every_deal():
    spec = make_tournament(["greedy", "greedy"], players=4, deals=60, seed=2, chunk=25)
    assert spec.labels == ("greedy", "greedy#2")
    res = run(spec)
    f = res.frames()
    c = f["crosstable"]
    assert len(c) == 2
    for _, r in c.iterrows():
        assert r["mean_diff"] == 0.0 and r["sd_diff"] == 0.0
        assert r["ci95_low"] == 0.0 and r["ci95_high"] == 0.0
        assert r["p_deal_tied"] == 1.0 and r["p_deal_ahead"] == 0.0
        assert r["score_share"] == 0.5 and r["model_share"] == pytest.approx(0.5, abs=1e-12)
    r = f["ratings"]
    assert r["rating"].abs().max() < 1e-9
    assert (r["rating_ci95_high"] - r["rating_ci95_low"]).abs().max() < 1e-9  # no spread at all


def test_a_policy_against_itself_at_three_seats_both_majorities_cancel():
    spec = make_tournament(["hold-hand", "hold-hand"], players=3, deals=40, seed=5, chunk=40)
    c = run(spec).frames()["crosstable"]
    assert (c["mean_diff"] == 0).all() and (c["p_deal_tied"] == 1).all()


def _raw(spec):
    """Per-deal scores by line-up position, straight from the engine, for every seating."""
    rv = spec.rules.to_vector()
    out = []
    for lu in spec.design().lineups:
        specs = [spec.entries[e] for e in lu]
        raw = run_chunk(rv, *lineup_arrays(specs), spec.players, spec.seed, 0, spec.deals)
        n, P = raw["score"].shape
        # relative seat of position j in deal i is (j + i) % P
        pos = np.array([[raw["score"][i, (j + i) % P] for j in range(P)] for i in range(n)], dtype=np.int64)
        out.append((lu, pos))
    return out


def test_crosstable_and_win_counts_match_a_brute_force_count():
    spec = make_tournament(["greedy", "hold-hand", "random"], players=3, deals=80, seed=11, chunk=30)
    res = run(spec)
    c = res.frames()["crosstable"].set_index(["policy", "opponent"])
    raw = _raw(spec)
    labels = spec.labels
    for a, b in itertools.permutations(range(3), 2):
        diffs, wins, cmps = np.zeros(spec.deals), np.zeros(spec.deals), 0
        for lu, pos in raw:
            if a in lu and b in lu:
                ia = [j for j, e in enumerate(lu) if e == a]
                ib = [j for j, e in enumerate(lu) if e == b]
                diffs += pos[:, ia].mean(axis=1) - pos[:, ib].mean(axis=1)
                for j1, j2 in itertools.product(ia, ib):
                    wins += (pos[:, j1] < pos[:, j2]) + 0.5 * (pos[:, j1] == pos[:, j2])
                    cmps += 1
        games = sum(1 for lu, _ in raw if a in lu and b in lu)
        x = diffs / games
        r = c.loc[(labels[a], labels[b])]
        half = sps.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
        assert r["mean_diff"] == pytest.approx(x.mean(), abs=1e-9)
        assert r["ci95_low"] == pytest.approx(x.mean() - half, abs=1e-9)
        assert r["ci95_high"] == pytest.approx(x.mean() + half, abs=1e-9)
        assert r["p_deal_ahead"] == pytest.approx((x < 0).mean(), abs=1e-12)
        assert r["comparisons"] == cmps * spec.deals
        assert r["score_share"] == pytest.approx(wins.sum() / (cmps * spec.deals), abs=1e-12)


def test_crosstable_is_exactly_antisymmetric_and_greedy_beats_random():
    spec = make_tournament(["greedy", "random", "hold-hand"], players=4, deals=120, seed=1, chunk=50)
    f = run(spec).frames()
    c = f["crosstable"].set_index(["policy", "opponent"])
    for a, b in itertools.combinations(spec.labels, 2):
        x, y = c.loc[(a, b)], c.loc[(b, a)]
        assert x["mean_diff"] == -y["mean_diff"]
        assert (x["ci95_low"], x["ci95_high"]) == (-y["ci95_high"], -y["ci95_low"])
        assert x["p_deal_ahead"] == y["p_deal_behind"] and x["p_deal_tied"] == y["p_deal_tied"]
        assert x["score_share"] + y["score_share"] == pytest.approx(1.0, abs=1e-15)
    g = c.loc[("greedy", "random")]
    assert g["ci95_high"] < -50  # greedy scores at least 50 points a round less than random
    assert g["p_deal_ahead"] > 0.95
    r = f["ratings"].set_index("policy")
    assert r.loc["greedy", "rating_ci95_low"] > r.loc["random", "rating_ci95_high"]
    assert f["ratings"]["rank"].tolist() == [1, 2, 3]


def test_all_design_at_two_seats_equals_the_pairs_design():
    """At 2 seats, --tables all adds only the one-policy tables (a a), which hold no comparison: every
    crosstable row and rating is exactly that of the pairs design."""
    entries = ["greedy", "hold-hand", "random"]
    pairs = run(make_tournament(entries, players=2, tables="pairs", deals=50, seed=6, chunk=25)).frames()
    every = run(make_tournament(entries, players=2, tables="all", deals=50, seed=6, chunk=25)).frames()
    pd.testing.assert_frame_equal(every["crosstable"], pairs["crosstable"], check_exact=True)
    pd.testing.assert_frame_equal(every["ratings"], pairs["ratings"], check_exact=True)
    assert len(every["tables"]) == len(pairs["tables"]) + 3  # greedy x2, hold-hand x2, random x2 alone


def test_two_v_two_compares_teams():
    spec = make_tournament(["greedy", "random"], players="2v2", deals=60, seed=4, chunk=60)
    assert spec.teams and spec.rules.partnership
    assert [lu for lu in spec.design().lineups] == [(0, 1, 0, 1), (1, 0, 1, 0)]
    f = run(spec).frames()
    c = f["crosstable"].set_index(["policy", "opponent"])
    raw = _raw(spec)
    x = np.zeros(spec.deals)
    for lu, pos in raw:
        team_g = [j for j, e in enumerate(lu) if e == 0]
        team_r = [j for j, e in enumerate(lu) if e == 1]
        x += pos[:, team_g].sum(axis=1) - pos[:, team_r].sum(axis=1)
    assert c.loc[("greedy", "random"), "mean_diff"] == pytest.approx(x.mean() / 2, abs=1e-9)  # team points
    assert c.loc[("greedy", "random"), "comparisons"] == 2 * spec.deals  # one team comparison per game
    assert c.loc[("greedy", "random"), "ci95_high"] < 0


# ------------------------------------------------------------------------------ the rating model


def _data(wins: dict, deals: int, per_deal_w=None, K=None):
    K = K or 1 + max(max(p) for p in wins)
    pairs = list(itertools.combinations(range(K), 2))
    w = [2 * wins.get((a, b), 0) for a, b in pairs]
    cmp_ = [wins.get((a, b), 0) + wins.get((b, a), 0) for a, b in pairs]
    if per_deal_w is None:
        ww = [[w[i] * w[j] // deals for j in range(len(pairs))] for i in range(len(pairs))]
    else:
        ww = (per_deal_w.T @ per_deal_w).tolist()
    return {"entries": K, "pairs": pairs, "deals": deals, "w": w, "ww": ww, "comparisons": cmp_}


def test_two_entries_rate_as_the_log_odds_of_finishing_ahead():
    # 300 of 400 comparisons won: theta_a - theta_b = ln(300 / 100) exactly
    fit = bradley_terry(_data({(0, 1): 300, (1, 0): 100}, deals=100))
    assert fit["theta"][0] - fit["theta"][1] == pytest.approx(math.log(3), abs=1e-9)
    assert fit["theta"].sum() == pytest.approx(0, abs=1e-12)
    assert not fit["prior"]


def test_strengths_are_recovered_from_an_exact_win_table():
    # expected wins under strengths ln 1, ln 2, ln 4 with 1200 comparisons a pair: the MLE is exact
    s = np.array([1.0, 2.0, 4.0])
    wins = {}
    for a, b in itertools.permutations(range(3), 2):
        wins[(a, b)] = 1200 * s[a] / (s[a] + s[b])
    pairs = list(itertools.combinations(range(3), 2))
    data = {"entries": 3, "pairs": pairs, "deals": 10, "w": [round(2 * wins[p]) for p in pairs],
            "ww": [[0] * 3 for _ in range(3)], "comparisons": [1200] * 3}
    fit = bradley_terry(data)
    want = np.log(s) - np.log(s).mean()
    assert fit["theta"] == pytest.approx(want, abs=1e-6)
    table = ratings_table(fit, ["one", "two", "four"], 10)
    assert table["policy"].tolist() == ["four", "two", "one"]
    assert table["rating"].iloc[0] == pytest.approx(ELO * want[2], abs=1e-3)


def test_two_entries_interval_is_the_delta_method_by_hand():
    rng = np.random.default_rng(3)
    n, c = 500, 6  # 6 comparisons a deal, wins correlated within a deal
    p_deal = np.clip(0.65 + 0.2 * rng.standard_normal(n), 0, 1)
    wins = rng.binomial(c, p_deal)
    per = (2 * wins).reshape(-1, 1).astype(np.int64)
    data = {"entries": 2, "pairs": [(0, 1)], "deals": n, "w": [int(per.sum())], "ww": (per.T @ per).tolist(),
            "comparisons": [c * n]}
    fit = bradley_terry(data)
    p = wins.sum() / (c * n)
    se_p = (wins / c).std(ddof=1) / math.sqrt(n)
    se_diff = se_p / (p * (1 - p))  # d logit(p) / dp = 1 / (p (1 - p)); theta_a = diff / 2
    assert math.sqrt(fit["cov"][0, 0]) == pytest.approx(se_diff / 2, rel=1e-9)
    assert fit["cov"][0, 1] == pytest.approx(-fit["cov"][0, 0], rel=1e-9)


def test_deal_clustered_interval_agrees_with_a_bootstrap_over_deals():
    rng = np.random.default_rng(7)
    K, n = 3, 400
    pairs = list(itertools.combinations(range(K), 2))
    theta = np.array([0.6, 0.0, -0.6])
    luck = rng.standard_normal((n, K)) * 0.8  # a deal favours some entries in all its games
    per = np.zeros((n, len(pairs)), dtype=np.int64)
    for m, (a, b) in enumerate(pairs):
        pr = 1 / (1 + np.exp(-(theta[a] + luck[:, a] - theta[b] - luck[:, b])))
        per[:, m] = 2 * rng.binomial(8, pr)
    cmp_ = [8 * n] * len(pairs)

    def fit_of(rows):
        d = {"entries": K, "pairs": pairs, "deals": len(rows), "w": [int(v) for v in rows.sum(axis=0)],
             "ww": (rows.T @ rows).tolist(), "comparisons": cmp_}
        return bradley_terry(d)

    se = np.sqrt(np.diag(fit_of(per)["cov"]))
    boot = np.array([fit_of(per[rng.integers(0, n, n)])["theta"] for _ in range(300)])
    assert se == pytest.approx(boot.std(axis=0, ddof=1), rel=0.15)
    naive = 1 / np.sqrt(8 * n * 0.24)  # what independent comparisons would claim, roughly: far too small
    assert (se > 1.5 * naive / 2).all()


def test_an_unbeaten_entry_gets_the_prior_and_a_note():
    fit = bradley_terry(_data({(0, 1): 50, (1, 0): 0}, deals=10))
    assert fit["prior"] and np.isfinite(fit["theta"]).all()
    assert fit["theta"][0] - fit["theta"][1] == pytest.approx(math.log(50.5 / 0.5), abs=1e-6)
    t = ratings_table(fit, ["a", "b"], 10)
    assert t["note"].str.contains("virtual tie").all()


# ------------------------------------------------------------------------------ determinism, resume


@pytest.fixture(scope="module")
def small():
    spec = make_tournament(["greedy", "hold-hand:bail_turn=6", "random"], players=3, deals=90, seed=8, chunk=30)
    return spec, run(spec)


def test_results_do_not_depend_on_chunk_size_or_jobs(small):
    spec, ref = small
    ref_state = ref.counters.state()
    for chunk, kw in ((7, {}), (90, {}), (20, {"jobs": 2, "executor": "process"})):
        other = run(make_tournament(["greedy", "hold-hand:bail_turn=6", "random"], players=3, deals=90, seed=8,
                                    chunk=chunk), **kw)
        st = other.counters.state()
        for k in ref_state:
            assert np.array_equal(st[k], ref_state[k]), (chunk, k)
        pd.testing.assert_frame_equal(other.frames()["crosstable"], ref.frames()["crosstable"], check_exact=True)


def test_another_seed_gives_other_numbers(small):
    spec, ref = small
    other = run(make_tournament(["greedy", "hold-hand:bail_turn=6", "random"], players=3, deals=90, seed=9, chunk=30))
    assert not np.array_equal(other.frames()["crosstable"]["mean_diff"], ref.frames()["crosstable"]["mean_diff"])


class _Stop(TournamentCounters):
    """Counters that interrupt the run (as Ctrl-C would) when a chunk of deals from ``stop_at`` arrives."""

    stop_at = 0

    def add_chunk(self, blocks):
        if int(blocks[(0, 0)].deal[0]) >= self.stop_at:
            raise KeyboardInterrupt
        super().add_chunk(blocks)


def test_interrupted_tournament_resumes_byte_identical(tmp_path, small):
    spec, ref = small
    full = tmp_path / "full"
    full.mkdir()
    write_tournament(ref, full)
    part = tmp_path / "part"
    part.mkdir()
    from handsim.tournament.core import _counters

    stop = _Stop(**_counters(spec)._meta_args())
    stop.stop_at = 60
    from handsim.simulate import run_study

    with pytest.raises(KeyboardInterrupt):
        run_study(spec.study(), jobs=1, executor="inline", out=part, accumulator=stop)
    with np.load(part / "checkpoint.npz") as z:
        assert sorted(z["__done__"].tolist()) == [0, 1]  # two of three chunks kept
    resumed = run(spec, out=part, resume=True)
    write_tournament(resumed, part)
    for name in ("crosstable.csv", "ratings.csv", "tables.csv"):
        assert (part / name).read_bytes() == (full / name).read_bytes(), name


def test_checkpoint_of_another_tournament_is_refused(tmp_path, small):
    spec, _ = small
    out = tmp_path / "t"
    out.mkdir()
    run(spec, out=out)
    other = make_tournament(["greedy", "random"], players=3, deals=90, seed=8, chunk=30)
    with pytest.raises(StudyError, match="different study"):
        run(other, out=out, resume=True)


# ------------------------------------------------------------------------------ input errors


@pytest.mark.parametrize("kw,match", [
    ({"entries": ["greedy"]}, "at least two"),
    ({"entries": ["greedy", "nope"]}, "unknown policy"),
    ({"entries": ["greedy", "random"], "players": 6}, "allowed 2, 3, 4, 5 or 2v2"),
    ({"entries": ["greedy", "random"], "tables": "some"}, "unknown table design"),
    ({"entries": ["greedy", "random"], "players": "2v2", "tables": "all"}, "'pairs' tables only"),
    ({"entries": ["greedy"] * 9, "tables": "all"}, "games per deal"),
    ({"entries": ["greedy", "random"], "deals": 0}, "invalid deals"),
])
def test_bad_tournaments_are_refused_with_one_line(kw, match):
    kw = dict(kw)
    entries = kw.pop("entries")
    with pytest.raises(ValueError, match=match) as e:
        make_tournament(entries, **kw)
    assert "\n" not in str(e.value)


def test_write_tournament_writes_every_output(tmp_path, small):
    import re

    spec, ref = small
    path = write_tournament(ref, tmp_path)
    assert path == tmp_path / "report.md"
    for name in ("ratings.csv", "crosstable.csv", "tables.csv", "ratings.png", "crosstable.png", "report.md",
                 "report.html", "run.json"):
        assert (tmp_path / name).stat().st_size > 0, name
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert re.findall(r"^## (.+)$", text, flags=re.M) == [
        "In brief", "What was run", "How to read this report", "Ratings", "Head to head", "Results per table", "Files"]
    assert "](ratings.png)" in text and "](crosstable.png)" in text
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.count('<img src="data:image/png;base64,') == 2 and "ratings.png" not in page
    # the summary's ranking is the ratings table's, with the intervals
    r = pd.read_csv(tmp_path / "ratings.csv")
    brief = text.split("## In brief", 1)[1].split("\n## ", 1)[0]
    first = r.iloc[0]
    assert (f"1. `{first['policy']}` {first['rating']:.0f} ({first['rating_ci95_low']:.0f} to "
            f"{first['rating_ci95_high']:.0f})") in brief
    ratings = pd.read_csv(tmp_path / "ratings.csv")
    assert ratings["policy"].tolist()[0] in spec.labels and len(ratings) == 3
    tables = pd.read_csv(tmp_path / "tables.csv")
    assert set(tables["table"]) == set(spec.table_labels())
    assert (tables["rounds"] == tables["seats"] * tables["seatings"] * spec.deals).all()


@pytest.mark.slow
def test_intervals_cover_the_answer_of_a_long_run_95_percent_of_the_time():
    """40 short tournaments (300 deals, seeds 1..40) against the answer of one long one (8,000 deals): the
    crosstable's paired interval and the deal-clustered rating interval each cover it in at least 33 of
    40 runs (for a 95% interval, fewer than 33 has probability below 1%)."""
    entries = ["greedy", "hold-hand"]
    long = run(make_tournament(entries, players=3, deals=8000, seed=1000, chunk=1000), jobs=2, executor="process")
    lf = long.frames()
    true_diff = lf["crosstable"].iloc[0]["mean_diff"]
    true_rating = lf["ratings"].set_index("policy").loc["greedy", "rating"]
    covered_diff = covered_rating = 0
    for seed in range(1, 41):
        f = run(make_tournament(entries, players=3, deals=300, seed=seed, chunk=300)).frames()
        c = f["crosstable"].iloc[0]
        covered_diff += c["ci95_low"] <= true_diff <= c["ci95_high"]
        r = f["ratings"].set_index("policy").loc["greedy"]
        covered_rating += r["rating_ci95_low"] <= true_rating <= r["rating_ci95_high"]
    assert covered_diff >= 33, covered_diff
    assert covered_rating >= 33, covered_rating


def test_python_api_and_spec_round_trip(tmp_path):
    import json

    from handsim.tournament import TournamentSpec, tournament

    ratings = tournament(["greedy", "random"], players=2, deals=20, seed=3, jobs=1, chunk=20, out=tmp_path / "t")
    assert ratings["policy"].tolist() == ["greedy", "random"]
    saved = json.loads((tmp_path / "t" / "run.json").read_text())["tournament"]
    spec = TournamentSpec.from_json(saved)
    assert spec == make_tournament(["greedy", "random"], players=2, deals=20, seed=3, chunk=20)
    two = make_tournament(["greedy", "hold-hand:bail_turn=3"], players="2v2", deals=5)
    assert TournamentSpec.from_json(json.loads(json.dumps(two.to_json()))) == two


def test_a_checkpoint_with_counts_no_play_makes_is_refused(small):
    """One player at most goes out in a round: an entry's rounds gone out in a deal are at most the
    seatings of its table, and so its squared count at most that many times the count; a Hand only
    by going out; the entries' rounds gone out at a table at most its rounds.  Each edit keeps the
    parity of its (sum, sum of squares) pair, which is checked first."""
    from handsim.tournament import accumulate as A

    _, res = small
    c = res.counters
    state = c.state()
    TournamentCounters.from_state(state)  # as played: consistent
    at = np.flatnonzero(c.seats[0])  # the entries of table 0
    a0, k = int(at[0]), int(c.seatings[0])
    cell = state["table"][0, a0]
    outs, hands = int(cell[A._T_OUT]), int(cell[A._T_HAND])
    assert 0 < hands <= outs <= int(cell[A._T_OUT2]) <= k * outs

    def even(v, like):  # v, or v + 1: of the parity of like
        return v + (v - like) % 2

    every = {(a, A._T_OUT): int(state["table"][0, a, A._T_ROUNDS]) for a in at}
    every.update({(a, A._T_OUT2): every[(a, A._T_OUT)] for a in at})
    for edit, msg in (
            ({(a0, A._T_OUT2): even(k * outs + 1, outs)},
             rf"'table' counts {even(k * outs + 1, outs)} squared rounds gone out, more than the {k * outs} of 'table'"),
            ({(a0, A._T_HAND): outs + 2, (a0, A._T_HAND2): even(k * (outs + 2), outs)},
             rf"'table' counts {outs + 2} Hands, more than the {outs} of 'table'"),
            (every, rf"'table' counts {sum(every[(a, A._T_OUT)] for a in at)} rounds gone out \(one at most in a "
                    rf"round\), more than the {c.deals() * k} of 'table'")):
        bad = {n: x.copy() for n, x in state.items()}
        for (a, col), v in edit.items():
            bad["table"][0, a, col] = v
        with pytest.raises(ValueError, match=f"^{msg}$"):
            TournamentCounters.from_state(bad)


def test_a_checkpoint_whose_wins_and_ties_disagree_is_refused(small):
    """W = 2 x wins + ties per pair of entries (breaker2 K13): W less the ties is even, the ties are at
    most W, and W at most 2 x the comparisons less the ties; a change of the ties by one is refused."""
    from handsim.tournament import accumulate as A

    _, res = small
    state = res.counters.state()
    TournamentCounters.from_state(state)  # as played: consistent
    m = int(np.flatnonzero(state["pair"][:, A._R_CMP])[0])
    w, ties, cmp = (int(state["pair"][m, col]) for col in (A._R_W, A._R_TIES, A._R_CMP))
    assert (w - ties) % 2 == 0 and ties <= w <= 2 * cmp - ties
    tried = 0
    for col, v, msg in ((A._R_TIES, ties + 1, rf"^'pair' counts W = {w} \(2 x wins \+ ties\) with {ties + 1} ties"),
                        (A._R_TIES, ties - 1, rf"^'pair' counts W = {w} \(2 x wins \+ ties\) with {ties - 1} ties"),
                        (A._R_TIES, w + 2, rf"^'pair' counts {w + 2} ties \(each counts 1 in W")):
        if v < 0 or v > cmp:
            continue
        bad = {n: x.copy() for n, x in state.items()}
        bad["pair"][m, col] = v
        with pytest.raises(ValueError, match=msg):
            TournamentCounters.from_state(bad)
        tried += 1
    assert tried >= 2
