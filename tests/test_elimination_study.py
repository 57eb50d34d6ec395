"""Elimination match studies (RULES.md §7, ``elimination_score`` > 0; issue 27): ``handsim simulate
--matches`` with elimination plays whole elimination matches, chunked and resumable.

The oracle: every round of the study's matches is replayed with the move log on
(``trace_elimination_round``) and re-scored from the hands the log leaves with :func:`handsim.games.hand.scoring.score_round`,
the totals and the eliminations are worked out again from those scores (RULES.md §7: out above E),
and every figure of the report is counted again from them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from handsim.games.hand.elimination import run_elimination_chunk, trace_elimination_round
from handsim.games.hand.rules import Rules
from handsim.policies import parse_lineup
from handsim.study import make_spec, read_checkpoint
from handsim.study.checkpoint import CHECKPOINT
from handsim.study.runner import TEST_HOLD_ENV, run_study

E, SEED, MATCHES, CHUNK = 100, 7, 12, 4
LINEUP = "card-reader,greedy,hold-hand"
ARGS = ["--matches", "--set", f"elimination_score={E}", "--lineup", LINEUP, "--deals", str(MATCHES),
        "--chunk", str(CHUNK), "--seed", str(SEED), "--no-progress", "-q"]
HANG_GUARD = 1800  # a guard against a hung child only, never a measure


def _spec():
    return make_spec(Rules.preset("classic", elimination_score=E), lineups=[LINEUP], players=3, deals=MATCHES,
                     chunk=CHUNK, seed=SEED, matches=True)


def _hands_left(trace):
    """The hands the move log leaves at the round's end (show-deal's bookkeeping)."""
    from handsim.cards import parse_cards
    from handsim.cli.inspect import _DealView

    view = _DealView(trace)
    for ev in trace["events"]:
        getattr(view, "on_" + ev["type"])(ev)
    return [parse_cards(h, allow_empty=True) for h in view.hands]


@pytest.fixture(scope="module")
def oracle():
    """Each match's rounds re-scored from the move log: per match, per round, the positions in and
    their scores, who went out, Hands and unopened; and the totals, eliminations and winner that
    RULES.md §7 gives for them."""
    from handsim.games.hand.scoring import score_round

    rules, specs = Rules.preset("classic", elimination_score=E), parse_lineup(LINEUP)
    P = len(specs)
    out = run_elimination_chunk(rules, specs, SEED, 0, MATCHES)
    matches = []
    for m in range(MATCHES):
        totals, gone, rounds = [0] * P, [0] * P, []
        r = 0
        while True:
            d = trace_elimination_round(rules, specs, m, r, SEED)
            if d is None:
                break
            res = d["result"]
            scores = [0] * len(d["positions"]) if res["void"] else \
                score_round(rules, res["out"], res["hand"], _hands_left(d), res["opened"])
            assert scores == res["scores"], (m, r)
            rnd = {"in": list(d["positions"]), "scores": dict(zip(d["positions"], scores)), "turns": res["turns"],
                   "out": None if res["void"] else d["positions"][res["out"]], "hand": res["hand"],
                   "unopened": [p for p, o in zip(d["positions"], res["opened"]) if not o]}
            rounds.append(rnd)
            for p, s in rnd["scores"].items():
                totals[p] += s
            for p in rnd["in"]:
                if totals[p] > E:
                    gone[p] = r + 1
            r += 1
        left = [p for p in range(P) if not gone[p]]
        lo = min(totals[p] for p in left)
        wins = [p for p in left if totals[p] == lo]
        if len(wins) > 1:  # at the cap: more rounds won, then shared
            won = {p: sum(1 for x in rounds if x["out"] == p) for p in wins}
            wins = [p for p in wins if won[p] == max(won.values())]
        matches.append({"rounds": rounds, "totals": totals, "gone": gone, "winners": wins})
        # run_elimination_chunk's match (the fuzz's and golden logs' reading) is the re-scored one
        assert int(out["rounds"][m]) == len(rounds)
        assert out["total"][m].tolist() == totals and out["out_after"][m].tolist() == gone
        assert np.nonzero(out["win"][m])[0].tolist() == wins
    return matches


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("elim") / "study"
    r = subprocess.run([sys.executable, "-m", "handsim", "simulate", *ARGS, "--jobs", "1", "--out", str(out)],
                       capture_output=True, text=True, timeout=HANG_GUARD, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    return out


def test_the_report_is_the_re_scored_matches(study, oracle):
    P = 3
    n = len(oracle)
    pos = pd.read_csv(study / "summary.csv")
    assert pos["position"].tolist() == [1, 2, 3] and pos["policy"].tolist() == LINEUP.split(",")
    for j in range(P):
        row = pos.iloc[j]
        solo = sum(1 for m in oracle if m["winners"] == [j])
        assert row["matches"] == n and row["p_win"] == pytest.approx(solo / n)
        assert row["mean_total"] == pytest.approx(sum(m["totals"][j] for m in oracle) / n)
        mine = [(x["scores"][j], x["out"] == j, x["out"] == j and x["hand"], j in x["unopened"])
                for m in oracle for x in m["rounds"] if j in x["in"]]
        assert row["rounds_played"] == len(mine)
        assert row["mean_score"] == pytest.approx(sum(s for s, *_ in mine) / len(mine))
        assert row["p_out"] == pytest.approx(sum(o for _, o, _, _ in mine) / len(mine))
        assert row["p_hand"] == pytest.approx(sum(h for _, _, h, _ in mine) / len(mine))
        assert row["p_unopened"] == pytest.approx(sum(u for *_, u in mine) / len(mine))
        # places: the winner 1st, then by the round gone out (later is better, the same round shared)
        def place(m, j):
            key = [(2 * (101 if not g else g) + (p in m["winners"])) for p, g in enumerate(m["gone"])]
            return 1 + sum(k > key[j] for k in key)
        assert row["mean_place"] == pytest.approx(sum(place(m, j) for m in oracle) / n)
        first_out = sum(1 for m in oracle if m["gone"][j] and m["gone"][j] == min(g for g in m["gone"] if g))
        assert row["p_first_out"] == pytest.approx(first_out / n)
    length = pd.read_csv(study / "elimination_length.csv").iloc[0]
    rounds = [len(m["rounds"]) for m in oracle]
    assert length["matches"] == n and length["rounds"] == sum(rounds)
    assert length["mean_rounds"] == pytest.approx(np.mean(rounds))
    assert length["median_rounds"] == pytest.approx(np.median(rounds))
    assert length["p90_rounds"] == pytest.approx(np.quantile(rounds, 0.9))
    assert length["max_rounds"] == max(rounds) and length["p_cap"] == sum(r == 100 for r in rounds) / n
    at = [len(x["in"]) for m in oracle for x in m["rounds"]]
    assert (length["rounds_3p"], length["rounds_2p"]) == (at.count(3), at.count(2))
    assert length["mean_turns"] == pytest.approx(np.mean([x["turns"] for m in oracle for x in m["rounds"]]))
    assert sum(rounds) > 2 * n and at.count(2) > 0  # matches of several rounds, some at a smaller table
    seats = pd.read_csv(study / "elimination_seats.csv")
    assert seats["p_win"].sum() == pytest.approx(sum(len(m["winners"]) == 1 for m in oracle) / n)
    run = json.loads((study / "run.json").read_text())
    assert run["rounds_played"] == sum(rounds)


def test_the_report_is_the_checkpoints(study):
    ck = read_checkpoint(study / CHECKPOINT)
    assert ck.done == frozenset(range(MATCHES // CHUNK)) and ck.rounds == ck.accumulator.rounds_played()
    acc = ck.accumulator
    for name, table in (("summary.csv", acc.positions()), ("elimination_length.csv", acc.lengths()),
                        ("elimination_seats.csv", acc.seats()), ("elimination_policies.csv", acc.policies_table())):
        pd.testing.assert_frame_equal(pd.read_csv(study / name), table.reset_index(drop=True), check_dtype=False,
                                      check_exact=False, rtol=1e-12)
    md = (study / "report.md").read_text()
    row = acc.positions().iloc[0]
    assert f"| 1 | card-reader | {row['p_win']:.3f} | [{row['ci95_low']:.3f}, {row['ci95_high']:.3f}] |" in md


def test_jobs_do_not_change_the_study():
    one = run_study(_spec(), jobs=1, executor="inline").accumulator.state()
    two = run_study(_spec(), jobs=2).accumulator.state()
    assert sorted(one) == sorted(two)
    for k in one:
        assert np.array_equal(one[k], two[k]), k


def test_a_stopped_study_resumes_byte_identical(tmp_path, study):
    out = tmp_path / "study"
    env = dict(os.environ, **{TEST_HOLD_ENV: "1"})
    p = subprocess.Popen([sys.executable, "-m", "handsim", "simulate", *ARGS, "--jobs", "1", "--out", str(out)],
                         env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    for line in p.stderr:
        if "handsim: test hold after 1 chunks" in line:
            break
    else:
        p.wait()
        pytest.fail(f"the study ended (exit {p.returncode}) without holding")
    os.killpg(p.pid, signal.SIGINT)
    p.communicate(timeout=HANG_GUARD)
    assert p.returncode == 130
    assert read_checkpoint(out / CHECKPOINT).done == frozenset({0}) and not (out / "summary.csv").exists()
    env.pop(TEST_HOLD_ENV)
    r = subprocess.run([sys.executable, "-m", "handsim", "simulate", "--resume", str(out), "-q"], env=env,
                       capture_output=True, text=True, timeout=HANG_GUARD, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    for name in ("summary.csv", "elimination_length.csv", "elimination_seats.csv", "elimination_policies.csv"):
        assert (out / name).read_bytes() == (study / name).read_bytes(), name
    with np.load(out / CHECKPOINT) as a, np.load(study / CHECKPOINT) as b:
        for k in b.files:
            if k not in ("__seconds__", "__run__"):
                assert np.array_equal(a[k], b[k]), k


def _tamper(src, dst, name, change):
    with np.load(src) as z:
        state = {k: z[k].copy() for k in z.files}
    change(state[name])
    np.savez(dst, **state)


@pytest.mark.parametrize("name, change, says", [
    ("__rounds__", lambda x: x.__setitem__(0, x[0] + 1), "'__rounds__'"),
    ("pos", lambda x: x.__setitem__((0, 0, 0, 0), x[0, 0, 0, 0] + 1), "'pos'"),  # one more outright win
    ("length", lambda x: (x.__setitem__((0, 0, 2), x[0, 0, 2] - 1), x.__setitem__((0, 0, 3), x[0, 0, 3] + 1)),
     "'length'"),  # a match one round longer
    ("place", lambda x: (x.__setitem__((0, 0, 1, 0), x[0, 0, 1, 0] + 1), x.__setitem__((0, 0, 1, 2), x[0, 0, 1, 2] - 1)),
     "'place'"),  # a last place made a first
    ("seatwin", lambda x: (x.__setitem__((0, 0, 0, 0), x[0, 0, 0, 0] + 1), x.__setitem__((0, 0, 1, 1), x[0, 0, 1, 1] + 1)),
     "'seatwin'"),
    ("table", lambda x: (x.__setitem__((0, 0, 3), x[0, 0, 3] + 1), x.__setitem__((0, 0, 2), x[0, 0, 2] - 1)),
     "'table'"),  # a round of 2 players made one of 3
    ("cl", lambda x: x.__setitem__((0, 0, 0), x[0, 0, 0] + 1), "'cl'"),  # one more match
])
def test_a_tampered_checkpoint_is_refused_naming_the_arrays(tmp_path, study, name, change, says):
    from handsim.errors import StudyError

    bad = tmp_path / CHECKPOINT
    _tamper(study / CHECKPOINT, bad, name, change)
    with pytest.raises(StudyError, match="is not a usable handsim checkpoint") as e:
        read_checkpoint(bad)
    assert says in str(e.value) and "\n" not in str(e.value), str(e.value)
    read_checkpoint(study / CHECKPOINT)  # (the untouched one reads)
