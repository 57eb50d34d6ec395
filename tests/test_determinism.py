"""Results depend only on the study's arguments: not on worker processes, chunk size or run.

Deal ``i`` of a study takes everything random from its own stream ``(seed, i)`` and chunks are
merged into exact integer accumulators, so ``summary()`` must be identical for ``jobs=1`` and
``jobs=2`` and for chunks of 7, 50 or 1000 deals; two runs with the same arguments must write
byte-identical ``summary.csv`` files; and another seed must give other numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from handsim.policies import lineup_arrays, parse_lineup
from handsim.games.hand.rules import Rules
from handsim.simulate import make_spec, run_chunk, run_study, write_outputs

DEALS = 400
LINEUPS = ["greedy", "hold-hand,greedy,greedy"]


def spec(chunk: int = 50, seed: int = 9, matches: bool = False, deals: int = DEALS):
    return make_spec(Rules.preset("classic"), {"opening_threshold": [51, 71]}, LINEUPS, players=3,
                     deals=deals, seed=seed, chunk=chunk, matches=matches)


def summary(jobs: int = 1, chunk: int = 50, seed: int = 9, executor: str = "inline", **kw) -> pd.DataFrame:
    return run_study(spec(chunk, seed, **kw), jobs=jobs, executor=executor).summary


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    return summary()


def test_summary_holds_the_fast_path_numbers(reference):
    # The "all seats" row of greedy x3 at threshold 51 is the plain mean of the 400 x 3 scores
    # that run_chunk reports for deals 0..399; p_out is the share of seat-rounds that went out.
    pol, pp = lineup_arrays(parse_lineup("greedy,greedy,greedy"))
    raw = run_chunk(Rules.preset("classic").to_vector(), pol, pp, 3, 9, 0, DEALS)
    row = reference[(reference.opening_threshold == 51) & (reference.lineup == "greedy,greedy,greedy")
                    & (reference.seat == "all")].iloc[0]
    assert row["deals"] == DEALS and row["rounds"] == 3 * DEALS
    assert row["mean_score"] == pytest.approx(raw["score"].mean(), rel=0, abs=1e-9)
    assert row["p_out"] == pytest.approx(((raw["flags"] & 2) > 0).mean(), rel=0, abs=1e-12)
    assert row["mean_turns"] == pytest.approx(raw["turns"].mean(), rel=0, abs=1e-9)
    # 2 configurations x (greedy: all + 3 seats; hold-hand line-up: 2 policies x (all + 3 seats))
    assert len(reference) == 2 * (4 + 8)


@pytest.mark.parametrize("chunk", [7, 1000])
def test_chunk_size_does_not_change_results(reference, chunk):
    pd.testing.assert_frame_equal(summary(chunk=chunk), reference, check_exact=True)


def test_worker_processes_do_not_change_results(reference):
    pd.testing.assert_frame_equal(summary(jobs=2, chunk=50, executor="process"), reference, check_exact=True)


def test_matches_do_not_depend_on_chunks_or_jobs():
    base = summary(chunk=1000, matches=True, deals=40)
    pd.testing.assert_frame_equal(summary(chunk=3, matches=True, deals=40), base, check_exact=True)
    pd.testing.assert_frame_equal(summary(jobs=2, chunk=7, executor="process", matches=True, deals=40), base,
                                  check_exact=True)
    # every match counts once per player of a policy: the "all" row and the seat rows agree
    for (threshold, lineup, policy), rows in base.groupby(["opening_threshold", "lineup", "policy"]):
        n = 40 * lineup.split(",").count(policy)
        assert rows.loc[rows.seat == "all", "matches"].tolist() == [n]
        assert rows.loc[rows.seat != "all", "matches"].sum() == n


def test_same_arguments_write_byte_identical_summary(tmp_path):
    files = {}
    for name in ("a", "b"):
        out = tmp_path / name
        out.mkdir()
        result = run_study(spec(chunk=64), jobs=1, executor="inline", out=out)
        write_outputs(result, out)
        files[name] = {f: (out / f).read_bytes() for f in ("summary.csv", "paired.csv")}
    assert files["a"]["summary.csv"] == files["b"]["summary.csv"]
    assert files["a"]["paired.csv"] == files["b"]["paired.csv"]
    assert len(files["a"]["summary.csv"].splitlines()) == 1 + 24  # header + rows


def test_another_seed_gives_other_results(reference):
    other = summary(seed=10)
    assert list(other.columns) == list(reference.columns)
    assert other[["opening_threshold", "lineup", "policy", "seat", "deals"]].equals(
        reference[["opening_threshold", "lineup", "policy", "seat", "deals"]])
    assert not np.array_equal(other["mean_score"].to_numpy(), reference["mean_score"].to_numpy())
    assert (other["mean_score"] != reference["mean_score"]).sum() >= len(reference) - 2


# --- the sampling player: its determinizations come from each deal's own policy stream -------

SAMPLER_LINEUP = "sampler:samples=3,candidates=2,card-reader,card-reader"


def sampler_summary(jobs: int = 1, chunk: int = 12, seed: int = 4, executor: str = "inline") -> pd.DataFrame:
    sp = make_spec(Rules.preset("classic"), None, [SAMPLER_LINEUP], players=3, deals=24, seed=seed, chunk=chunk)
    return run_study(sp, jobs=jobs, executor=executor).summary


def test_the_sampler_is_reproducible_and_independent_of_jobs_and_chunks():
    ref = sampler_summary()
    pd.testing.assert_frame_equal(sampler_summary(), ref, check_exact=True)
    pd.testing.assert_frame_equal(sampler_summary(chunk=5), ref, check_exact=True)
    pd.testing.assert_frame_equal(sampler_summary(jobs=2, chunk=5, executor="process"), ref, check_exact=True)
    assert not ref["mean_score"].equals(sampler_summary(seed=5)["mean_score"])


def stock_draws(trace) -> list[str]:
    """The cards drawn from the stock, in order, up to the first reshuffle."""
    out = []
    for e in trace["events"]:
        if e["type"] == "reshuffle":
            break
        if e["type"] == "draw" and e["source"] == "stock":
            out.append(e["card"])
    return out


def test_the_sampler_draws_only_from_the_policy_stream():
    """Its random deals of the unseen cards use the deal's policy stream, not the deck's: the cards
    dealt and the stock are the same as with card-reader in its seat, and a replay of the deal
    (trace_deal) plays it move for move as the study did."""
    from handsim.games.hand.trace import trace_deal

    rules = Rules.preset("classic")
    for deal in (0, 7):
        a = trace_deal(rules, SAMPLER_LINEUP, deal, 4)
        b = trace_deal(rules, "card-reader,card-reader,card-reader", deal, 4)
        assert a["hands"] == b["hands"]
        stock_a, stock_b = stock_draws(a), stock_draws(b)
        n = min(len(stock_a), len(stock_b))
        assert n > 0 and stock_a[:n] == stock_b[:n]  # the same stock, card for card
        assert trace_deal(rules, SAMPLER_LINEUP, deal, 4) == a
