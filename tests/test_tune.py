"""Tuning: the grid rule, candidates on common random numbers, the confirmation on fresh deals,
the TPE search's determinism and best.toml as a policy."""

from __future__ import annotations

import pandas as pd
import pytest

from handsim.policies import PolicyError, parse_policy
from handsim.games.hand.rules import Rules
from handsim.simulate import StudyError, make_spec, run_study
from handsim.tournament.best import expand_lineup_refs, expand_policy_ref, read_policy_toml, write_policy_toml
from handsim.tournament.tune import GRID_POINTS, ParamRange, TuneUnfinished, make_tune, run_tune, write_tune


def tune(spec, **kw):
    kw.setdefault("jobs", 1)
    kw.setdefault("executor", "inline")
    return run_tune(spec, **kw)


# ------------------------------------------------------------------------------ the grid rule


def test_grid_rule():
    assert ParamRange("x", 4, 20).grid() == [float(v) for v in range(4, 21)]  # 17 values: every integer
    g = ParamRange("x", 0, 100).grid()  # 101 values > 21: step ceil(100 / 20) = 5
    assert g == [float(v) for v in range(0, 101, 5)] and len(g) == GRID_POINTS
    g = ParamRange("x", 1, 1000).grid()  # step ceil(999 / 20) = 50: 1, 51, ..., 951, then 1000
    assert g[:3] == [1.0, 51.0, 101.0] and g[-2:] == [951.0, 1000.0] and len(g) == 21
    assert ParamRange("x", 0, 10, 4).grid() == [0.0, 4.0, 8.0, 10.0]  # HI always included
    assert ParamRange("x", 3, 3).grid() == [3.0]


@pytest.mark.parametrize("param,match", [
    ("bail_turn", "expected NAME=LO:HI"),
    ("bail_turn=4", "expected NAME=LO:HI"),
    ("nope=1:3", "no parameter 'nope'"),
    ("bail_turn=0:5", "allowed values of bail_turn are 1 to 1000"),
    ("bail_turn=9:5", "LO is greater than HI"),
    ("bail_turn=1:5:0", "step must be positive"),
    ("bail_turn=1.5:5", "whole numbers"),
    ("bail_turn=a:5", "must be numbers"),
])
def test_bad_param_ranges_are_refused(param, match):
    with pytest.raises(StudyError, match=match) as e:
        make_tune("hold-hand", [param], deals=10)
    assert "\n" not in str(e.value)


def test_other_bad_tuning_runs_are_refused():
    with pytest.raises(StudyError, match="need 3"):
        make_tune("hold-hand", ["bail_turn=1:5"], "greedy,greedy", players=4, deals=10)
    with pytest.raises(StudyError, match="nothing to tune"):
        make_tune("hold-hand", [], deals=10)
    with pytest.raises(StudyError, match="bail_turn is given twice in --param"):
        make_tune("hold-hand", ["bail_turn=1:5", "bail_turn=2:3"], deals=10)
    with pytest.raises(StudyError, match="candidates: allowed at most"):
        make_tune("hold-hand", ["bail_turn=1:1000:1", "bail_opponent_cards=0:30"], deals=10)
    with pytest.raises(PolicyError, match="unknown policy"):
        make_tune("nope", ["bail_turn=1:5"], deals=10)
    # --confirm-deals refuses 0 on the command line; make_tune (and so a saved run.json) too, naming the field
    with pytest.raises(StudyError, match=r"^invalid confirm_deals 0: allowed 1\.\.10\^12$"):
        make_tune("hold-hand", ["bail_turn=1:5"], deals=10, confirm_deals=0)
    with pytest.raises(StudyError, match=r"^invalid confirm_seed -1: allowed 0\.\.2\^63-1$"):
        make_tune("hold-hand", ["bail_turn=1:5"], deals=10, confirm_seed=-1)


def test_a_stage_is_played_on_exactly_the_deals_asked():
    """TuneSpec.study(deals=...) takes the number given (it took 'deals or self.deals', so 0 became the search's)."""
    spec = make_tune("hold-hand", ["bail_turn=1:5"], deals=10, confirm_deals=7, confirm_seed=9)
    assert (spec.study([spec.base]).deals, spec.study([spec.base]).seed) == (10, 0)
    assert spec.study([spec.base], seed=9, deals=7).deals == 7
    assert spec.record() == {k: v for k, v in spec.to_json().items() if k not in ("kind", "policy", "policy_files")}
    assert (spec.record()["confirm_deals"], spec.record()["confirm_seed"], spec.record()["strategy"]) == (7, 9, "grid")


# ------------------------------------------------------------------------------ known best


@pytest.fixture(scope="module")
def known(tmp_path_factory):
    """bail_turn 1 (gives up the Hand at once, plays greedy) against 1000 (never lays down anything but a
    Hand: pays the unopened penalty almost every round), bail_opponent_cards=0 (no other bail-out)."""
    spec = make_tune("hold-hand:bail_opponent_cards=0", ["bail_turn=1:1000:999"], "greedy,greedy,greedy",
                     deals=120, seed=3, chunk=50)
    out = tmp_path_factory.mktemp("tune")
    res = tune(spec, out=out)
    write_tune(res, out)
    return spec, res, out


def test_tune_finds_the_known_best_and_ranks_every_candidate(known):
    spec, res, _ = known
    df = res.tune
    assert df["label"].tolist() == ["hold-hand:bail_opponent_cards=0", "hold-hand:bail_turn=1,bail_opponent_cards=0",
                                    "hold-hand:bail_turn=1000,bail_opponent_cards=0"]
    assert df["is_default"].tolist() == [True, False, False]
    assert df["on_grid"].tolist() == [False, True, True]
    assert res.best.label == "hold-hand:bail_turn=1,bail_opponent_cards=0"
    by = df.set_index("bail_turn")
    assert by.loc[1.0, "mean_score"] < by.loc[10.0, "mean_score"] < by.loc[1000.0, "mean_score"]
    assert by.loc[1000.0, "p_unopened"] > 0.8  # never lays down: almost never opens
    assert by.loc[1000.0, "diff_ci95_low"] > 0  # significantly worse than the default, same deals
    assert sorted(df["rank"]) == [1, 2, 3] and by.loc[1.0, "rank"] == 1


def test_candidates_match_a_study_of_the_same_lineups(known):
    """The tuned seat's mean and the paired difference equal what handsim simulate measures on the same deals."""
    spec, res, _ = known
    lineups = [",".join([lab, "greedy", "greedy", "greedy"]) for lab in res.tune["label"]]
    study = run_study(make_spec(Rules.preset("classic"), None, lineups, 4, 120, 3, 50), jobs=1, executor="inline")
    summ = study.summary
    pairs = study.accumulator.lineup_pairs()
    for lab, lu, (_, row) in zip(res.tune["label"], lineups, res.tune.iterrows()):
        s = summ[(summ["lineup"] == lu) & (summ["policy"] == lab) & (summ["seat"] == "all")].iloc[0]
        assert row["mean_score"] == pytest.approx(s["mean_score"], abs=1e-9)
        assert row["ci95_low"] == pytest.approx(s["ci95_low"], abs=1e-9)
        assert row["p_unopened"] == pytest.approx(s["p_unopened"], abs=1e-12)
    # paired difference of candidate 2 from the default: line-ups 0 and 2 differ in position 1 only
    p = pairs[(pairs["lineup_a"] == lineups[2]) & (pairs["lineup_b"] == lineups[0])]
    if p.empty:
        p = pairs[(pairs["lineup_a"] == lineups[0]) & (pairs["lineup_b"] == lineups[2])]
        sign = -1
    else:
        sign = 1
    r = res.tune.iloc[2]
    assert r["diff_vs_default"] == pytest.approx(sign * p.iloc[0]["mean_diff"], abs=1e-9)


def test_confirmation_plays_fresh_deals(known):
    spec, res, _ = known
    c = res.confirm
    assert c["seed"] == 4 and c["deals"] == 120  # seed + 1, as many deals as the search
    lineups = [f"{c['default']},greedy,greedy,greedy", f"{c['best']},greedy,greedy,greedy"]
    study = run_study(make_spec(Rules.preset("classic"), None, lineups, 4, 120, 4, 50), jobs=1, executor="inline")
    s = study.summary
    best = s[(s["lineup"] == lineups[1]) & (s["seat"] == "all") & (s["policy"] == c["best"])].iloc[0]
    assert c["best_mean"] == pytest.approx(best["mean_score"], abs=1e-9)
    assert c["best_mean"] != pytest.approx(res.tune[res.tune["is_best"]]["mean_score"].iloc[0], abs=1e-6)
    assert c["diff_ci95_high"] < 0  # giving up the Hand at once beats bail_turn 10 with no other bail-out


def test_outputs_and_best_toml_round_trip(known, tmp_path):
    spec, res, out = known
    for name in ("tune.csv", "best.toml", "tune.png", "confirm.png", "report.md", "report.html", "run.json"):
        assert (out / name).stat().st_size > 0, name
    text = read_policy_toml(out / "best.toml")
    assert parse_policy(text) == res.best
    assert expand_policy_ref(f"@{out / 'best.toml'}") == text
    assert [parse_policy(x) for x in expand_lineup_refs(f"@{out / 'best.toml'},greedy")] == [res.best,
                                                                                          parse_policy("greedy")]
    csv = pd.read_csv(out / "tune.csv")
    assert len(csv) == 3 and {"bail_turn", "mean_score", "ci95_low", "diff_vs_default", "is_best"} <= set(csv.columns)
    report = (out / "report.md").read_text(encoding="utf-8")
    c = res.confirm
    assert (f"Confirmed on {c['deals']} fresh deals (seed {c['seed']}): `{c['best']}` does better than the defaults "
            f"`{c['default']}` (scores less): best − defaults = {c['diff']:+.2f} points per player-round (95% CI "
            f"{c['diff_ci95_low']:+.2f} to {c['diff_ci95_high']:+.2f}).") in report
    assert "](tune.png)" in report and "](confirm.png)" in report


def test_policy_toml_errors_are_one_line(tmp_path):
    cases = {
        "missing.toml": None,
        "bad.toml": "[policy\nname = 1",
        "notable.toml": "name = \"greedy\"\n",
        "noname.toml": "[policy]\nbail_turn = 3\n",
        "notnumber.toml": "[policy]\nname = \"hold-hand\"\nbail_turn = \"3\"\n",
        "range.toml": "[policy]\nname = \"hold-hand\"\nbail_turn = 5000\n",  # the value's error names the file too
        "unknown.toml": "[policy]\nname = \"hold-hand\"\nbail_time = 3\n",
    }
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text, encoding="utf-8")
        with pytest.raises(PolicyError) as e:
            read_policy_toml(path)
        assert "\n" not in str(e.value) and name in str(e.value)
    with pytest.raises(PolicyError, match="unknown.toml.*unknown parameter 'bail_time'"):
        read_policy_toml(tmp_path / "unknown.toml")
    with pytest.raises(PolicyError, match="range.toml.*bail_turn"):
        read_policy_toml(tmp_path / "range.toml")
    spec = parse_policy("hold-hand:bail_turn=7")
    write_policy_toml(tmp_path / "p.toml", spec, {"note": "x \"quoted\"", "ci": [1.5, float("nan")]})
    assert parse_policy(read_policy_toml(tmp_path / "p.toml")) == spec


# ------------------------------------------------------------------------------ TPE


def test_tpe_search_is_deterministic_and_independent_of_jobs():
    spec = make_tune("hold-hand", ["bail_turn=1:30", "bail_opponent_cards=0:8"], deals=30, seed=5, chunk=10,
                     strategy="tpe", trials=6, batch=3)
    a = tune(spec).tune
    b = tune(spec, jobs=2, executor="process").tune
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert a["is_default"].iloc[0] and 4 <= len(a) <= 7  # defaults + up to 6 distinct proposals
    assert a["stage"].tolist()[0] == "batch-000" and set(a["stage"]) <= {"batch-000", "batch-001"}
    assert (a["bail_turn"].between(1, 30)).all() and (a["bail_opponent_cards"].between(0, 8)).all()
    assert a["is_best"].sum() == 1 and a.loc[a["is_best"], "mean_score"].iloc[0] == a["mean_score"].min()


def test_three_parameters_choose_tpe():
    spec = make_tune("hold-hand", ["bail_turn=1:30", "bail_opponent_cards=0:8"], deals=10)
    assert spec.strategy == "grid"
    spec = make_tune("hold-hand", ["bail_turn=1:30"], deals=10, strategy="tpe")
    assert spec.strategy == "tpe"


def test_two_v_two_objective_is_the_team_score():
    spec = make_tune("greedy", ["support_hand=0:1"], "greedy,hold-hand,greedy", players="2v2", deals=40, seed=2,
                     chunk=40)
    assert spec.teams and spec.rules.partnership
    res = tune(spec)
    lineups = [f"{lab},greedy,hold-hand,greedy" for lab in res.tune["label"]]
    study = run_study(make_spec(Rules.preset("classic", partnership=True), None, lineups, 4, 40, 2, 40), jobs=1,
                      executor="inline")
    s = study.summary
    for lab, lu, (_, row) in zip(res.tune["label"], lineups, res.tune.iterrows()):
        team = s[(s["lineup"] == lu) & (s["seat"] == "team A")].iloc[0]
        assert row["mean_score"] == pytest.approx(team["mean_score"], abs=1e-9)


def test_tpe_resume_replays_the_finished_batches(tmp_path):
    """A TPE run stopped after its first batch continues, on --resume, with the same proposals."""
    import shutil

    spec = make_tune("hold-hand", ["bail_turn=1:30", "bail_opponent_cards=0:8"], deals=30, seed=6, chunk=10,
                     strategy="tpe", trials=6, batch=3)
    full = tmp_path / "full"
    full.mkdir()
    ref = tune(spec, out=full)
    assert {"batch-000", "batch-001"} <= {p.name for p in (full / "stages").iterdir()}
    part = tmp_path / "part"
    (part / "stages").mkdir(parents=True)
    shutil.copytree(full / "stages" / "batch-000", part / "stages" / "batch-000")
    again = tune(spec, out=part, resume=True)
    pd.testing.assert_frame_equal(again.tune, ref.tune, check_exact=True)
    assert again.confirm == ref.confirm
    # replay (what 'handsim report' does) plays nothing: the same table from the checkpoints, refused on the
    # part that lacks its later stages
    replayed = tune(spec, out=full, replay=True)
    pd.testing.assert_frame_equal(replayed.tune, ref.tune, check_exact=True)
    assert replayed.confirm == ref.confirm and replayed.rounds_now == 0
    # the rounds and seconds the stages' checkpoints hold: the run's, as it recorded them
    assert {k: replayed.run_info[k] for k in ("rounds_played", "seconds")} == \
        {k: ref.run_info[k] for k in ("rounds_played", "seconds")}
    shutil.rmtree(part / "stages" / "confirm")
    with pytest.raises(TuneUnfinished, match="stage confirm was not played"):
        tune(spec, out=part, replay=True)


@pytest.mark.parametrize("teams", [False, True], ids=["singles", "2v2"])
def test_a_tuning_checkpoint_with_more_outs_than_rounds_is_refused(teams):
    """One player at most goes out in a round, of two partners too: the tuned seats' rounds gone out
    (Hands) are at most the deals (were: the deals times the tuned seats), a Hand only by going out."""
    import sys
    from pathlib import Path

    import numpy as np

    from handsim.stats import DealBlock
    from handsim.tournament.tune import _U_DEALS, _U_HAND, _U_OUT, TuneCounters

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from play_flags import hand_flags

    rng = np.random.default_rng(3)
    n, P = 40, 4
    c = TuneCounters(2, P, teams)
    perm = np.array([np.roll(np.arange(P), -(d % P)) for d in range(n)], dtype=np.int8)
    void = (rng.random(n) < 0.1).astype(np.uint8)
    flags = hand_flags(rng, void, P, hand=0.5)
    c.add_chunk({(0, l): DealBlock(np.arange(n), perm, rng.integers(-10, 90, size=(n, P)).astype(np.int32), flags,
                                   np.full(n, 20, np.int16), void) for l in range(2)})
    state = c.state()
    lu = state["lu"]
    assert lu[0, _U_DEALS] == n and 0 < lu[0, _U_HAND] <= lu[0, _U_OUT] < n
    TuneCounters.from_state(state)
    for col, v, msg in ((_U_OUT, n + 1, rf"'lu' counts {n + 1} rounds gone out \(one at most in a round\), more than the "
                                        rf"{n} of 'lu'"),
                        (_U_HAND, int(lu[0, _U_OUT]) + 1, rf"'lu' counts {int(lu[0, _U_OUT]) + 1} Hands, more than the "
                                                          rf"{int(lu[0, _U_OUT])} of 'lu'")):
        bad = {k: x.copy() for k, x in state.items()}
        bad["lu"][0, col] = v
        if col == _U_OUT:
            bad["lu"][0, _U_HAND] = min(int(lu[0, _U_HAND]), v)
        with pytest.raises(ValueError, match=f"^{msg}$"):
            TuneCounters.from_state(bad)


def _notes_of_best(params, best_values):
    from handsim.tournament.report import _edge_notes

    spec = make_tune("hold-hand", params, deals=10)
    tune = pd.DataFrame([{**best_values, "mean_score": 1.0, "is_best": True}])
    return _edge_notes(spec, tune, tune.iloc[0])


def test_an_edge_of_the_searched_range_is_told_apart_from_the_allowed_limit():
    # bail_turn allows 1..1000, bail_opponent_cards 0..30 (hold-hand's declaration)
    assert _notes_of_best(["bail_turn=4:20", "bail_opponent_cards=0:8:2"], {"bail_turn": 4, "bail_opponent_cards": 8}) == [
        "The best candidate lies on the edge of the searched range: `bail_turn` = 4 is at the low end of its range "
        "(4..20); `bail_opponent_cards` = 8 is at the high end of its range (0..8 step 2). A wider range may hold a "
        "better value."]
    assert _notes_of_best(["bail_turn=1:4"], {"bail_turn": 1}) == [
        "The best candidate lies on the edge of the searched range: `bail_turn` = 1 is at the low end of its range "
        "(1..4), the lowest value `bail_turn` allows (allowed: 1..1000). `bail_turn` is at the allowed limit: the "
        "range cannot be widened on that side."]
    assert _notes_of_best(["bail_turn=1:4", "bail_opponent_cards=8:14:2"], {"bail_turn": 1, "bail_opponent_cards": 8}) == [
        "The best candidate lies on the edge of the searched range: `bail_turn` = 1 is at the low end of its range "
        "(1..4), the lowest value `bail_turn` allows (allowed: 1..1000); `bail_opponent_cards` = 8 is at the low end "
        "of its range (8..14 step 2). A wider range of `bail_opponent_cards` may hold a better value. `bail_turn` is "
        "at the allowed limit: the range cannot be widened on that side."]
    assert _notes_of_best(["bail_opponent_cards=20:30:5", "bail_turn=990:1000"],
                          {"bail_opponent_cards": 30, "bail_turn": 1000}) == [
        "The best candidate lies on the edge of the searched range: `bail_opponent_cards` = 30 is at the high end of "
        "its range (20..30 step 5), the highest value `bail_opponent_cards` allows (allowed: 0..30); `bail_turn` = "
        "1000 is at the high end of its range (990..1000), the highest value `bail_turn` allows (allowed: 1..1000). "
        "`bail_opponent_cards` and `bail_turn` are at the allowed limit: the range cannot be widened on that side."]
    # inside the range: no note
    assert _notes_of_best(["bail_turn=1:4"], {"bail_turn": 2}) == []
