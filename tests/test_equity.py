"""Match equity (issue 26 part 3, ``handsim equity``): tables worked out by hand, the dynamic
programme against a plain recursive oracle, the Monte Carlo against an exact enumeration of 4
players' continuations (lowest_wins and last_loses), the starter's rotation (next seat and
highest_scorer), the per-deal rows' checks, and the command's output and refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from handsim.errors import InputError
from handsim.games.hand.equity import RoundPool, equity_mc, equity_table, equity_two_sides, round_pool


def pool_of(rows, players, outs=None):
    """A symmetric pool of hand-built rounds (scores by seat, seat 0 the starter)."""
    sc = np.asarray(rows, np.int64).reshape(-1, players)
    out = np.asarray(outs if outs is not None else sc.argmin(axis=1), np.int64)
    return RoundPool(sc, out, np.zeros(len(sc), np.int64), players, True, ("x",) * players)


# --- two sides, by hand -------------------------------------------------------------------

def test_one_round_kind_worked_by_hand():
    # Every round: the starter goes out (-30), the other holds 10.  Position 0 is "me";
    # E[r, k, lead_max + d], d = other's total - mine.
    E = equity_two_sides(pool_of([[-30, 10]], 2), me=0, rounds=2, lead_max=60)
    assert E[1, 0, 60] == 1.0  # I start: d = 0 + 40 > 0
    assert E[1, 1, 60] == 0.0  # the other starts: d = -40
    # the other starts, I lead by 40: d = 0, a tie; the tie-break round is mine to start: I win
    assert E[1, 1, 60 + 40] == 1.0 and E[1, 1, 60 + 39] == 0.0
    # two rounds, level, I start: +40 then -40 = 0, the tie-break is mine to start: win; the other
    # starting first: -40 + 40 = 0 and the other starts the tie-break: lose
    assert E[2, 0, 60] == 1.0 and E[2, 1, 60] == 0.0
    # r = 0: the match is over; a tie is a tie-break round started by k
    assert E[0, 0, 60] == 1.0 and E[0, 1, 60] == 0.0 and E[0, 0, 61] == 1.0 and E[0, 1, 59] == 0.0


def test_two_round_kinds_worked_by_hand():
    # A: starter out (-30), other 10; B: starter 25, other out (-30); equally likely.  I start, one
    # round left, lead L: A gives d = L + 40, B gives d = L - 55.  A tie-break started by either
    # side is won half the time (the starter wins A, loses B).
    E = equity_two_sides(pool_of([[-30, 10], [25, -30]], 2), me=0, rounds=1, lead_max=100)
    at = {L: E[1, 0, 100 + L] for L in (-41, -40, 0, 54, 55, 56)}
    assert at == pytest.approx({-41: 0.0, -40: 0.25, 0: 0.5, 54: 0.5, 55: 0.75, 56: 1.0})


def test_highest_scorer_keeps_the_start_with_the_round_winner():
    # dealer_rotation = highest_scorer, starter = dealer_right: the highest scorer deals, the other
    # (2 players) starts.  With only [-30, 10] the starter always starts again: from a deficit of 70,
    # two rounds started by me give -70 + 40 + 40 = 10 > 0: a sure win.  Next seat: -70 + 40 - 40.
    pool = pool_of([[-30, 10]], 2)
    hs = equity_two_sides(pool, 0, 2, highest_scorer=True, lead_max=100)
    ns = equity_two_sides(pool, 0, 2, highest_scorer=False, lead_max=100)
    assert hs[2, 0, 100 - 70] == 1.0 and ns[2, 0, 100 - 70] == 0.0
    p, _, _ = equity_mc(pool, [0, 70], 0, 2, 0, samples=1000, highest_scorer=True)
    assert p[0] == 1.0


def _oracle_two(rows, P, team, r, k, d, depth=40):
    """P(position 0's side wins): plain recursion over every round drawn (RULES.md section 7)."""
    def delta(row, k):
        by_pos = [0] * P
        for s in range(P):
            by_pos[(k + s) % P] = row[s]
        mine = [p for p in range(P) if (p % 2 == 0 if team else p == 0)]
        return sum(by_pos[p] for p in range(P) if p not in mine) - sum(by_pos[p] for p in mine)

    def end(k, d, depth):
        if d != 0:
            return float(d > 0)
        if depth == 0:
            return 0.5
        return float(np.mean([end((k + 1) % P, delta(row, k), depth - 1) for row in rows]))

    if r == 0:
        return end(k, d, depth)
    return float(np.mean([_oracle_two(rows, P, team, r - 1, (k + 1) % P, d + delta(row, k), depth) for row in rows]))


@pytest.mark.parametrize("players,team,seed", [(2, False, 1), (2, False, 2), (4, True, 3)])
def test_dynamic_programme_matches_a_recursive_oracle(players, team, seed):
    rng = np.random.default_rng(seed)
    rows = rng.integers(-30, 60, size=(4, players)).tolist()
    E = equity_two_sides(pool_of(rows, players), 0, 3, partnership=team, lead_max=120)
    for r, k, d in itertools.product(range(4), range(players), range(-120, 121, 13)):
        assert E[r, k, 120 + d] == pytest.approx(_oracle_two(rows, players, team, r, k, d), abs=1e-9), (r, k, d)


# --- three and four players: Monte Carlo against an exact enumeration ---------------------------

def _standing(tot, wins, me, last_loses):
    lo = min(tot)
    if tot.count(lo) > 1:
        return None
    if tot[me] == lo:
        return 1
    if not last_loses:
        return 0
    hi = max(tot)
    if tot[me] != hi:
        return 0
    tied = [s for s in range(len(tot)) if tot[s] == hi]
    return 2 if wins[me] == min(wins[s] for s in tied) else 0


def _oracle_many(rows, outs, r, k, tot, wins, me, last_loses, depth=8):
    """(P(win), P(the one loser)) of position ``me``, every continuation enumerated."""
    P = len(tot)
    if r <= 0:
        res = _standing(tot, wins, me, last_loses)
        if res is not None or depth == 0:
            return (float(res == 1), float(res == 2))
    acc = np.zeros(2)
    for row, o in zip(rows, outs):
        t2, w2 = list(tot), list(wins)
        for s in range(P):
            t2[(k + s) % P] += row[s]
        w2[(k + o) % P] += 1
        acc += _oracle_many(rows, outs, r - 1, (k + 1) % P, t2, w2, me, last_loses, depth - (r <= 0))
    return tuple(acc / len(rows))


@pytest.mark.parametrize("last_loses", [False, True])
def test_monte_carlo_matches_the_exact_enumeration(last_loses):
    rows = [[-30, 12, 40, 7], [25, -30, 3, 60], [9, 31, -30, 15]]
    outs = [0, 1, 2]
    pool = pool_of(rows, 4, outs)
    for tot, k, r, me in [([0, 0, 0, 0], 0, 2, 0), ([0, 20, 30, 45], 2, 2, 1), ([10, 10, 40, 10], 1, 1, 3),
                          ([0, 0, 0, 0], 3, 0, 2)]:
        wins = [1, 0, 2, 0]
        exact = _oracle_many(rows, outs, r, k, list(tot), list(wins), me, last_loses)
        p, pl, se = equity_mc(pool, tot, k, r, me, samples=200_000, seed=5, last_loses=last_loses, wins=wins)
        assert abs(p[0] - exact[0]) < 4 * se[0] + 1e-9, (tot, k, r, me, p[0], exact)
        assert abs(pl[0] - exact[1]) < 4 * np.sqrt(exact[1] * (1 - exact[1]) / 200_000) + 1e-9
        if not last_loses:
            assert pl[0] == 0.0


def test_monte_carlo_of_two_players_agrees_with_the_dynamic_programme():
    rng = np.random.default_rng(7)
    pool = pool_of(rng.integers(-30, 80, size=(50, 2)).tolist(), 2)
    E = equity_two_sides(pool, 0, 4, lead_max=100)
    leads = [-100, -35, 0, 20, 90]
    for k in (0, 1):
        p, _, se = equity_mc(pool, [0, 0], k, 4, 0, samples=100_000, seed=1, leads=leads)
        for j, L in enumerate(leads):
            assert abs(p[j] - E[4, k, 100 + L]) < 4 * se[j] + 1e-9


def test_monte_carlo_is_reproducible_and_leads_share_continuations():
    pool = pool_of([[-30, 12, 40, 7], [25, -30, 3, 60], [9, 31, -30, 15]], 4, [0, 1, 2])
    a = equity_mc(pool, [0, 0, 0, 0], 0, 3, 0, samples=5000, seed=11, leads=[-20, 0, 20])[0]
    b = equity_mc(pool, [0, 0, 0, 0], 0, 3, 0, samples=5000, seed=11, leads=[-20, 0, 20])[0]
    assert (a == b).all()
    assert a[0] <= a[1] <= a[2]  # common random numbers: a larger lead never wins less


def test_bootstrap_replicates_give_the_pool_its_interval():
    rng = np.random.default_rng(4)
    pool = pool_of(rng.integers(-30, 80, size=(30, 2)).tolist(), 2)
    a = equity_table(pool, 2, lead_max=20, lead_step=20, bootstrap=8)
    b = equity_table(pool, 2, lead_max=20, lead_step=20)
    assert (a["p_win"] == b["p_win"]).all()  # the point estimate is the whole pool's
    reps = np.stack([equity_table(pool.resample(k + 1), 2, lead_max=20, lead_step=20)["p_win"] for k in range(8)])
    assert a["pool_se"].to_numpy() == pytest.approx(reps.std(axis=0, ddof=1))
    assert a["ci_high"].to_numpy() == pytest.approx(np.clip(a["p_win"] + 1.96 * a["pool_se"], 0, 1))


def test_table_of_a_symmetric_two_player_field_is_complementary():
    # me at seat s leading by L, or the other at seat 1 - s leading by -L: one of the two wins
    rng = np.random.default_rng(3)
    pool = pool_of(rng.integers(-30, 80, size=(40, 2)).tolist(), 2)
    t = equity_table(pool, 3, lead_max=50, lead_step=25)
    assert len(t) == 3 * 2 * 5 and set(t["method"]) == {"dp"}
    p = t.set_index(["rounds_left", "seat_next", "lead"])["p_win"]
    for r, s, L in itertools.product((1, 2, 3), (0, 1), (-50, -25, 0, 25, 50)):
        assert p[(r, s, L)] + p[(r, 1 - s, -L)] == pytest.approx(1.0, abs=1e-12)
    assert (p.groupby(level=[0, 1]).diff().dropna() >= -1e-12).all()  # never worse for a larger lead


# --- the per-deal rows --------------------------------------------------------------------

def _rows(positions):
    out = []
    for d, pos in enumerate(positions):
        for seat, p in enumerate(pos):
            out.append(dict(deal=d, seat=seat, position=p, policy="greedy", score=10 * seat - 30 * (seat == 0),
                            went_out=seat == 0))
    return pd.DataFrame(out)


def test_round_pool_reads_rotations_and_refuses_other_seatings():
    pool = round_pool(_rows([[0, 1, 2], [2, 0, 1], [1, 2, 0]]), 3)
    assert pool.symmetric and pool.rounds == 3
    assert pool.scores.tolist() == [[-30, 10, 20]] * 3 and pool.out.tolist() == [0, 0, 0]
    with pytest.raises(InputError, match="not rotations"):
        round_pool(_rows([[0, 2, 1]]), 3)
    with pytest.raises(InputError, match="no per-deal rows"):
        round_pool(_rows([]), 3)


# --- the command --------------------------------------------------------------------------

def test_equity_command_writes_the_table_and_refuses_bad_input(tmp_path):
    from click.testing import CliRunner

    from handsim.cli import cli

    study = tmp_path / "field"
    r = CliRunner().invoke(cli, ["simulate", "--players", "2", "--lineup", "greedy,greedy", "--deals", "60",
                                 "--chunk", "30", "--jobs", "1", "--per-deal", "--out", str(study), "-q"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["equity", str(study), "--out", str(tmp_path / "eq"), "--rounds", "3",
                                 "--lead-max", "100", "--lead-step", "50"])
    assert r.exit_code == 0, r.output
    assert "Warning: only 60 rounds" in r.output and "level with 3 round(s) left: wins 50.0%" in r.output
    t = pd.read_csv(tmp_path / "eq" / "match_equity.csv")
    assert list(t.columns) == ["rounds_left", "lead", "seat_next", "p_win", "se", "p_lose", "method", "pool_se",
                               "ci_low", "ci_high"]
    assert (t["pool_se"] > 0).any() and (t["ci_low"] <= t["p_win"]).all() and (t["p_win"] <= t["ci_high"]).all()
    assert len(t) == 3 * 2 * 5 and (tmp_path / "eq" / "match_equity.png").stat().st_size > 10_000
    r = CliRunner().invoke(cli, ["equity", str(study), "--standings", "0,0", "--rounds-left", "0"])
    assert r.exit_code == 0 and "position 1 (greedy): wins" in r.output and "95% CI" in r.output, r.output
    (tmp_path / "plain").mkdir()
    cases = [
        ([str(study), "--out", str(tmp_path / "eq")], "not a new or empty folder"),
        ([str(study), "--standings", "1,2,3"], "gives 3 numbers for 2 line-up positions"),
        ([str(study), "--standings", "1,x"], "is not 2 whole numbers"),
        ([str(study), "--position", "3", "--out", str(tmp_path / "e2")], "not a line-up position"),
        ([str(study)], "give --out DIR"),
        ([str(tmp_path / "plain"), "--out", str(tmp_path / "e3")], "not a study folder"),
    ]
    for args, fragment in cases:
        r = CliRunner().invoke(cli, ["equity"] + args)
        assert r.exit_code == 2 and fragment in r.output and "Traceback" not in r.output, (args, r.output)
        assert len(r.output.strip().splitlines()) == 1, r.output


@pytest.mark.slow
@pytest.mark.compile_notices
def test_equity_says_its_compilation_once_in_an_empty_cache(tmp_path):
    import os
    import subprocess
    import sys

    study = tmp_path / "field"
    env = dict(os.environ, HANDSIM_CACHE_DIR=str(tmp_path / "cache"))
    run = [sys.executable, "-m", "handsim"]
    p = subprocess.run(run + ["simulate", "--players", "3", "--lineup", "greedy,greedy,greedy", "--deals", "30",
                              "--jobs", "1", "--per-deal", "--out", str(study), "-q"], env=env, capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    said = []
    for _ in range(2):
        p = subprocess.run(run + ["equity", str(study), "--standings", "0,0,0", "--samples", "200", "--bootstrap", "0"],
                           env=env, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        said.append(p.stderr.count("Compiling the match equity kernel"))
    assert said == [1, 0]


def _bump(column, amount):
    def change(d):
        d.loc[0, column] = d.loc[0, column] + amount if column != "went_out" else not d.loc[0, column]
        return d
    return change


@pytest.mark.parametrize("change, what", [
    (_bump("score", 50), lambda r, ck: f"{r + 50:,} points in the rows, {r:,} in the checkpoint"),
    (lambda d: d.drop(index=0), lambda r, ck: f"{ck - 1:,} rounds in the rows, {ck:,} in the checkpoint"),
    (_bump("went_out", 1), None),
], ids=["score", "row-dropped", "went-out"])
def test_equity_refuses_per_deal_rows_its_checkpoint_did_not_count(tmp_path, change, what):
    """The per-deal rows are what the study's checkpoint counted (issue 23, cause 1's kind): a
    score changed by 50 in the parquet file gave other chances silently; now one line naming the
    configuration, line-up, seat and the two counts, exit 2, nothing written."""
    from click.testing import CliRunner

    from handsim.cli import cli
    from handsim.games.hand.layout import S_ROUNDS, S_SCORE
    from handsim.simulate import read_checkpoint

    study = tmp_path / "field"
    r = CliRunner().invoke(cli, ["simulate", "--players", "2", "--lineup", "greedy,greedy", "--deals", "20",
                                 "--chunk", "10", "--jobs", "1", "--per-deal", "--out", str(study), "-q"])
    assert r.exit_code == 0, r.output
    part = sorted((study / "per_deal").glob("*.parquet"))[0]
    d = pd.read_parquet(part)
    seat = int(d.loc[0, "seat"])
    change(d).to_parquet(part, index=False)
    acc = read_checkpoint(study / "checkpoint.npz", policies=False).accumulator
    points, rounds = (int(acc._seat[0, 0, :, seat, i].sum()) for i in (S_SCORE, S_ROUNDS))
    r = CliRunner().invoke(cli, ["equity", str(study), "--out", str(tmp_path / "eq"), "--rounds", "3"])
    assert r.exit_code == 2, r.output
    head = (f"Error: {study / 'per_deal'} does not hold the rows its study's checkpoint counted: configuration 0, "
            f"line-up 0, seat {seat}: ")
    assert r.output.startswith(head) and len(r.output.strip().splitlines()) == 1, r.output
    if what is not None:
        assert what(points if "points" in what(0, 0) else rounds, rounds) in r.output, r.output
    else:
        assert "rounds gone out in the rows" in r.output, r.output
    assert not (tmp_path / "eq").exists()


def test_equity_refusals_list_the_studys_configurations_and_lineups(tmp_path):
    from click.testing import CliRunner

    from handsim.cli import cli

    study = tmp_path / "field"
    r = CliRunner().invoke(cli, ["simulate", "--players", "2", "--threshold", "51", "--threshold", "71",
                                 "--lineup", "greedy,greedy", "--lineup", "hold-hand,greedy", "--deals", "4",
                                 "--jobs", "1", "--per-deal", "--out", str(study), "-q"])
    assert r.exit_code == 0, r.output
    cases = [
        ([], "Error: the study has 2 configurations: choose one with --config (allowed: 0 = opening_threshold=51; "
             "1 = opening_threshold=71)"),
        (["--config", "2"], "Error: --config 2 is not one of the study's 2 configurations (allowed: 0 = "
                            "opening_threshold=51; 1 = opening_threshold=71)"),
        (["--config", "1"], "Error: the study has 2 line-ups: choose one with --lineup (allowed: 0 = greedy×2; "
                            "1 = hold-hand,greedy)"),
    ]
    for args, line in cases:
        r = CliRunner().invoke(cli, ["equity", str(study), "--out", str(tmp_path / "eq"), *args])
        assert r.exit_code == 2 and r.output.strip().splitlines() == [f"{line} (see 'handsim equity --help')"], (
            args, r.output)


def test_a_long_list_of_choices_is_cut_after_twelve():
    from handsim.cli.equity import _listed

    assert _listed(["a", "b"]) == "0 = a; 1 = b"
    assert _listed([f"x{i}" for i in range(15)]) == ("0 = x0; 1 = x1; 2 = x2; 3 = x3; 4 = x4; 5 = x5; 6 = x6; 7 = x7; "
                                                     "8 = x8; 9 = x9; 10 = x10; 11 = x11; ... 3 more, to 14")


def test_equity_numbers_line_up_positions_from_one(tmp_path):
    """--position, --starter and the printed lines count line-up positions from 1 (as tournaments, tuning and
    the reports do); the kernels, from 0."""
    from click.testing import CliRunner

    from handsim.cli import cli
    from handsim.cli.equity import _pool

    study = tmp_path / "field"
    r = CliRunner().invoke(cli, ["simulate", "--players", "2", "--lineup", "hold-hand,greedy", "--deals", "40",
                                 "--jobs", "1", "--per-deal", "--out", str(study), "-q"])
    assert r.exit_code == 0, r.output
    eq, rules, players, labels, pool = _pool(study, None, None)
    r = CliRunner().invoke(cli, ["equity", str(study), "--standings", "0,40", "--rounds-left", "1", "--starter", "2",
                                 "--bootstrap", "0", "--samples", "2000", "--seed", "3"])
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert lines[-3] == "From totals 0,40, 1 round(s) left, position 2 to start; 40 rounds of the field hold-hand,greedy:"
    kw = dict(highest_scorer=rules.dealer_rotation == "highest_scorer", dealer_right=rules.starter == "dealer_right")
    for me in (0, 1):  # starter 2 is the kernels' 1
        p = eq.equity_mc(pool, [0, 40], 1, 1, me, 2000, 3, **kw)[0][0]
        assert lines[-2 + me].startswith(f"  position {me + 1} ({labels[me]}): wins {p:.1%} (95% CI ")
    r = CliRunner().invoke(cli, ["equity", str(study), "--position", "2", "--rounds", "1", "--lead-max", "20",
                                 "--lead-step", "20", "--bootstrap", "0", "--samples", "500", "--out",
                                 str(tmp_path / "eq")])
    assert r.exit_code == 0, r.output
    table = eq.equity_table(pool, 1, me=1, lead_max=20, lead_step=20, samples=500, **kw)
    got = pd.read_csv(tmp_path / "eq" / "match_equity.csv")
    assert got["p_win"].round(5).tolist() == table["p_win"].round(5).tolist()
    for args, line in ((["--position", "3", "--out", str(tmp_path / "e3")],
                        "Error: --position 3 is not a line-up position (allowed: 1..2)"),
                       (["--standings", "0,0", "--starter", "3"],
                        "Error: --starter 3 is not a line-up position (allowed: 1..2)"),
                       (["--standings", "0,0", "--starter", "0"],
                        "Error: Invalid value for '--starter': 0 is out of range: allowed 1..5")):
        r = CliRunner().invoke(cli, ["equity", str(study), *args])
        assert r.exit_code == 2 and r.output.strip().splitlines() == [f"{line} (see 'handsim equity --help')"], (
            args, r.output)
    teams = tmp_path / "teams"
    r = CliRunner().invoke(cli, ["simulate", "--players", "2v2", "--policy", "greedy", "--deals", "8", "--jobs", "1",
                                 "--per-deal", "--out", str(teams), "-q"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["equity", str(teams), "--standings", "0,10,0,10", "--bootstrap", "0"])
    assert r.exit_code == 0, r.output
    assert [ln.split(":")[0] for ln in r.output.strip().splitlines()[-4:]] == [
        "  position 1 (team A, positions 1 & 3)", "  position 2 (team B, positions 2 & 4)",
        "  position 3 (team A, positions 1 & 3)", "  position 4 (team B, positions 2 & 4)"]
