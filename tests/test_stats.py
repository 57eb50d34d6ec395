"""Tests of handsim.stats: exact accumulators, intervals, paired differences, checkpoints."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from handsim.stats import MATCH_NONE, DealBlock, StudyAccumulator

# ----------------------------------------------------------------------------------------------
# a tiny study computed by hand: 3 players, line-up (a, b, b), thresholds 51 and 71, 3 deals

DEALS = np.array([10, 11, 12], dtype=np.int64)
# line-up position sitting in each relative seat: deal 10 a b b, deal 11 b a b, deal 12 b b a
POLICY = np.array([[0, 1, 2], [1, 0, 2], [2, 1, 0]], dtype=np.int8)


def _block(score, flags, turns, void, **kw):
    return DealBlock(DEALS.copy(), POLICY.copy(), np.array(score, dtype=np.int32), np.array(flags, dtype=np.uint8),
                     np.array(turns, dtype=np.int16), np.array(void, dtype=np.uint8), **kw)


# threshold 51: a scores 10, 5, -60 (a Hand in deal 12); b: (20, 40), (-30, 100), (7, 9)
B51 = _block([[10, 20, 40], [-30, 5, 100], [7, 9, -60]],
             [[1, 3, 0], [3, 1, 0], [1, 0, 7]], [20, 30, 12], [0, 0, 0])
# threshold 71: deal 11 is void (everyone 0, nobody opened)
B71 = _block([[12, 20, 50], [0, 0, 0], [7, 19, -60]],
             [[1, 3, 0], [0, 0, 0], [1, 0, 7]], [22, 40, 12], [0, 1, 0])


def tiny() -> StudyAccumulator:
    acc = StudyAccumulator([{"opening_threshold": 51}, {"opening_threshold": 71}], [("a", "b", "b")], 3,
                           ["opening_threshold"])
    acc.add_chunk({(0, 0): B51, (1, 0): B71})
    return acc


def row(df, **where):
    mask = np.ones(len(df), dtype=bool)
    for k, v in where.items():
        mask &= (df[k] == v).fillna(False).to_numpy(dtype=bool)
    hit = df[mask]
    assert len(hit) == 1, where
    return hit.iloc[0]


def t_ci(x):
    x = np.asarray(x, dtype=float)
    return sps.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=sps.sem(x))


def test_summary_columns_and_order():
    s = tiny().summary()
    assert list(s.columns[:5]) == ["opening_threshold", "lineup", "policy", "seat", "rounds"]
    for col in ("mean_score", "sd_score", "ci95_low", "ci95_high", "p_out", "p_out_ci95_low", "p_out_ci95_high",
                "p_hand", "p_hand_ci95_low", "p_hand_ci95_high", "p_unopened", "p_unopened_ci95_low",
                "p_unopened_ci95_high", "mean_turns", "void_rate", "match_win_rate"):
        assert col in s.columns
    assert len(s) == 2 * 2 * 4  # configs x policies x (all + 3 seats)
    assert s["opening_threshold"].tolist()[:8] == [51] * 8
    assert s["policy"].tolist()[:8] == ["a"] * 4 + ["b"] * 4
    assert s["seat"].tolist()[:8] == ["all", "0", "1", "2"] * 2
    assert set(s["lineup"]) == {"a,b,b"}


def test_single_policy_seat_all_and_per_seat():
    s = tiny().summary()
    a = row(s, opening_threshold=51, policy="a", seat="all")
    assert a["rounds"] == 3 and a["deals"] == 3
    assert a["mean_score"] == pytest.approx(-15.0, abs=1e-12)
    assert a["sd_score"] == pytest.approx(np.std([10, 5, -60], ddof=1), rel=1e-12)
    lo, hi = t_ci([10, 5, -60])
    assert (a["ci95_low"], a["ci95_high"]) == pytest.approx((lo, hi), rel=1e-12)
    assert a["p_out"] == pytest.approx(1 / 3) and a["p_hand"] == pytest.approx(1 / 3)
    assert a["p_unopened"] == 0.0
    assert a["mean_turns"] == pytest.approx(62 / 3) and a["void_rate"] == 0.0
    # one round per seat: a mean, no spread
    for seat, score in (("0", 10), ("1", 5), ("2", -60)):
        r = row(s, opening_threshold=51, policy="a", seat=seat)
        assert r["rounds"] == 1 and r["mean_score"] == score
        assert math.isnan(r["sd_score"]) and math.isnan(r["ci95_low"])


def test_pooled_policy_uses_per_deal_means():
    s = tiny().summary()
    b = row(s, opening_threshold=51, policy="b", seat="all")
    assert b["rounds"] == 6 and b["deals"] == 3
    assert b["mean_score"] == pytest.approx(146 / 6, rel=1e-12)
    # sd of one player's score, but the interval from the per-deal means 30, 35, 8
    assert b["sd_score"] == pytest.approx(np.std([20, 40, -30, 100, 7, 9], ddof=1), rel=1e-12)
    lo, hi = t_ci([30, 35, 8])
    assert (b["ci95_low"], b["ci95_high"]) == pytest.approx((lo, hi), rel=1e-12)
    assert b["se_score"] == pytest.approx(sps.sem([30, 35, 8]), rel=1e-12)
    assert b["p_out"] == pytest.approx(2 / 6) and b["p_hand"] == 0.0 and b["p_unopened"] == pytest.approx(3 / 6)
    # per seat: seat 0 holds b in deals 11 and 12
    r0 = row(s, opening_threshold=51, policy="b", seat="0")
    assert r0["rounds"] == 2 and r0["mean_score"] == pytest.approx(-11.5)
    assert (r0["ci95_low"], r0["ci95_high"]) == pytest.approx(t_ci([-30, 7]), rel=1e-12)
    assert r0["mean_turns"] == pytest.approx(21.0) and r0["p_out"] == pytest.approx(0.5)
    r2 = row(s, opening_threshold=51, policy="b", seat="2")
    assert r2["mean_score"] == pytest.approx(70.0) and r2["p_unopened"] == 1.0


def test_wilson_intervals_match_scipy():
    s = tiny().summary()
    b = row(s, opening_threshold=51, policy="b", seat="all")
    ci = sps.binomtest(2, 6).proportion_ci(confidence_level=0.95, method="wilson")
    assert (b["p_out_ci95_low"], b["p_out_ci95_high"]) == pytest.approx((ci.low, ci.high), rel=1e-12)
    a = row(s, opening_threshold=51, policy="a", seat="all")
    # Wilson 95% for 1 of 3, a known value
    assert (a["p_hand_ci95_low"], a["p_hand_ci95_high"]) == pytest.approx((0.0614919447, 0.7923403992), abs=1e-9)
    assert a["p_unopened_ci95_low"] == 0.0 and a["p_unopened_ci95_high"] == pytest.approx(0.5614970317, abs=1e-9)


def test_void_round_counts():
    s = tiny().summary()
    b = row(s, opening_threshold=71, policy="b", seat="all")
    assert b["void_rate"] == pytest.approx(1 / 3)
    assert b["mean_turns"] == pytest.approx(74 / 3)
    assert b["mean_score"] == pytest.approx((70 + 0 + 26) / 6)
    assert b["p_unopened"] == pytest.approx(4 / 6)  # nobody opened in the void deal
    a0 = row(s, opening_threshold=71, policy="a", seat="1")  # a sat in seat 1 in the void deal
    assert a0["void_rate"] == 1.0 and a0["mean_score"] == 0.0


def test_paired_differences_by_hand():
    acc = tiny()
    assert acc.pairs == [(0, 1, "opening_threshold")]
    p = acc.paired()
    assert list(p.columns[:6]) == ["lineup", "policy", "parameter", "from_value", "to_value", "opening_threshold"]
    assert len(p) == 2
    a = row(p, policy="a")
    assert a["parameter"] == "opening_threshold" and a["from_value"] == 51 and a["to_value"] == 71
    assert pd.isna(a["opening_threshold"])
    assert a["deals"] == 3
    assert a["mean_diff"] == pytest.approx(-1.0, abs=1e-12)  # 2, -5, 0
    assert (a["ci95_low"], a["ci95_high"]) == pytest.approx(t_ci([2, -5, 0]), rel=1e-12)
    assert a["p_value"] == pytest.approx(sps.ttest_1samp([2, -5, 0], 0.0).pvalue, rel=1e-9)
    b = row(p, policy="b")
    # b's per-deal means: 51 -> 30, 35, 8; 71 -> 35, 0, 13
    assert b["mean_diff"] == pytest.approx(-25 / 3, rel=1e-12)
    assert (b["ci95_low"], b["ci95_high"]) == pytest.approx(t_ci([5, -35, 5]), rel=1e-12)
    assert b["p_unopened_diff"] == pytest.approx(1 / 6)
    assert (b["p_unopened_diff_ci95_low"], b["p_unopened_diff_ci95_high"]) == pytest.approx(t_ci([0, 0.5, 0]), rel=1e-12)
    assert b["p_out_diff"] == pytest.approx(-1 / 6)


def test_versus_within_deal():
    v = tiny().versus()
    r = row(v, opening_threshold=51)
    assert (r["policy_a"], r["policy_b"]) == ("a", "b")
    assert r["mean_a"] == pytest.approx(-15.0) and r["mean_b"] == pytest.approx(146 / 6)
    d = [10 - 30, 5 - 35, -60 - 8]
    assert r["mean_diff"] == pytest.approx(np.mean(d), rel=1e-12)
    assert (r["ci95_low"], r["ci95_high"]) == pytest.approx(t_ci(d), rel=1e-12)


def test_histograms_by_hand():
    h = tiny().histograms()
    t = h["turns"]
    assert list(t.columns) == ["opening_threshold", "lineup", "turns", "rounds", "void_rounds"]
    t71 = t[t["opening_threshold"] == 71]
    assert t71["turns"].tolist() == [12, 22, 40]
    assert t71["rounds"].tolist() == [1, 1, 1] and t71["void_rounds"].tolist() == [0, 0, 1]
    sc = h["score"]
    a51 = sc[(sc["opening_threshold"] == 51) & (sc["policy"] == "a")]
    assert a51["score"].tolist() == [-60, 5, 10] and a51["count"].tolist() == [1, 1, 1]
    b71 = sc[(sc["opening_threshold"] == 71) & (sc["policy"] == "b")]
    assert dict(zip(b71["score"], b71["count"])) == {0: 2, 7: 1, 19: 1, 20: 1, 50: 1}


def test_add_block_has_no_pairs_and_matches_add_chunk_stats():
    acc = StudyAccumulator([{"opening_threshold": 51}, {"opening_threshold": 71}], [("a", "b", "b")], 3,
                           ["opening_threshold"])
    acc.add_block(0, 0, B51)
    acc.add_block(1, 0, B71)
    assert len(acc.paired()) == 0
    assert list(acc.paired().columns[:3]) == ["lineup", "policy", "parameter"]
    pd.testing.assert_frame_equal(acc.summary(), tiny().summary(), check_exact=True)


def test_constant_scores_have_zero_spread():
    acc = StudyAccumulator([{}], [("x", "x")], 2, [])
    n = 1000
    blk = DealBlock(np.arange(n), np.tile(np.array([0, 1], dtype=np.int8), (n, 1)), np.full((n, 2), 1500, np.int32),
                    np.ones((n, 2), np.uint8), np.full(n, 30, np.int16), np.zeros(n, np.uint8))
    acc.add_chunk({(0, 0): blk})
    r = row(acc.summary(), seat="all")
    assert r["mean_score"] == 1500.0 and r["sd_score"] == 0.0
    assert r["ci95_low"] == 1500.0 and r["ci95_high"] == 1500.0
    assert list(acc.summary().columns[:2]) == ["lineup", "policy"]


# ----------------------------------------------------------------------------------------------
# random studies: checkpoints, merging and chunk order


CONFIGS = [{"opening_threshold": t, "joker_penalty": j} for t in (51, 71, 91) for j in (15, 30)]
LINEUPS = [("hold-hand", "greedy", "greedy", "greedy"), ("greedy", "greedy", "greedy", "greedy")]
VARYING = ["opening_threshold", "joker_penalty"]


def random_chunk(seed: int, start: int, n: int, match: bool = False) -> dict:
    rng = np.random.default_rng(seed)
    perm = np.array([np.roll(np.arange(4), -(d % 4)) for d in range(start, start + n)], dtype=np.int8)
    base = rng.integers(-60, 150 + 40 * seed, size=(n, 4))  # score range differs between chunks
    blocks = {}
    for c, cfg in enumerate(CONFIGS):
        for l in range(len(LINEUPS)):
            score = base + (cfg["opening_threshold"] - 51) // 4 + rng.integers(-3, 4, size=(n, 4))
            kw = {}
            if match:
                mw = (rng.random((n, 4)) < 0.25).astype(np.uint8)
                mw[rng.random(n) < 0.5] = MATCH_NONE
                kw = {"match_win": mw, "tiebreaks": rng.integers(-1, 3, size=n).astype(np.int16)}
            blocks[(c, l)] = DealBlock(np.arange(start, start + n, dtype=np.int64), perm,
                                       score.astype(np.int32), rng.integers(0, 8, size=(n, 4)).astype(np.uint8),
                                       rng.integers(4 + seed, 40 + 10 * seed, size=n).astype(np.int16),
                                       (rng.random(n) < 0.05).astype(np.uint8), **kw)
    return blocks


CHUNKS = [(seed, 50 * seed, 50) for seed in range(5)]


def fresh() -> StudyAccumulator:
    return StudyAccumulator(CONFIGS, LINEUPS, 4, VARYING)


def frames(acc):
    h = acc.histograms()
    return [acc.summary(), acc.paired(), acc.versus(), h["turns"], h["score"]]


def assert_identical(acc1, acc2):
    s1, s2 = acc1.state(), acc2.state()
    assert s1.keys() == s2.keys()
    for k in s1:
        assert s1[k].dtype == s2[k].dtype and s1[k].tobytes() == s2[k].tobytes(), k
    for f1, f2 in zip(frames(acc1), frames(acc2)):
        assert f1.to_csv(index=False) == f2.to_csv(index=False)
        pd.testing.assert_frame_equal(f1, f2, check_exact=True)


@pytest.mark.parametrize("match", [False, True])
def test_chunk_order_and_merge_are_byte_identical(match):
    in_order, reverse, left, right = fresh(), fresh(), fresh(), fresh()
    for seed, start, n in CHUNKS:
        in_order.add_chunk(random_chunk(seed, start, n, match))
    for seed, start, n in reversed(CHUNKS):
        reverse.add_chunk(random_chunk(seed, start, n, match))
    for seed, start, n in CHUNKS[::2]:
        left.add_chunk(random_chunk(seed, start, n, match))
    for seed, start, n in CHUNKS[1::2]:
        right.add_chunk(random_chunk(seed, start, n, match))
    assert_identical(in_order, reverse)
    assert_identical(in_order, right.merge(left))
    assert in_order.deals().tolist() == [[250, 250]] * 6


def test_state_round_trip_through_npz():
    acc = fresh()
    for seed, start, n in CHUNKS[:3]:
        acc.add_chunk(random_chunk(seed, start, n, match=True))
    buf = io.BytesIO()
    np.savez(buf, **acc.state())
    buf.seek(0)
    with np.load(buf) as z:
        back = StudyAccumulator.from_state(z, configs=CONFIGS, lineups=LINEUPS, players=4, varying=VARYING)
    assert_identical(acc, back)
    # resume: more chunks on the restored accumulator give what one run gives
    full = fresh()
    for seed, start, n in CHUNKS:
        full.add_chunk(random_chunk(seed, start, n, match=True))
    for seed, start, n in CHUNKS[3:]:
        back.add_chunk(random_chunk(seed, start, n, match=True))
    assert_identical(full, back)
    with pytest.raises(ValueError, match="different study"):
        StudyAccumulator.from_state(acc.state(), players=4, lineups=LINEUPS[:1])


def test_pairs_differ_in_one_option():
    acc = fresh()
    assert len(acc.pairs) == 3 * 1 + 2 * 3  # penalty pairs per threshold, threshold pairs per penalty
    for c1, c2, opt in acc.pairs:
        assert c1 < c2
        diff = [v for v in VARYING if CONFIGS[c1][v] != CONFIGS[c2][v]]
        assert diff == [opt]
    assert [opt for _, _, opt in acc.pairs] == ["opening_threshold"] * 6 + ["joker_penalty"] * 3


def test_paired_random_matches_direct_computation():
    acc = fresh()
    chunks = [random_chunk(seed, start, n) for seed, start, n in CHUNKS]
    for ch in chunks:
        acc.add_chunk(ch)
    p = acc.paired()
    # greedy in line-up 0 (3 seats), 51 -> 91 at joker_penalty 30: configs 1 and 5
    diffs = []
    for ch in chunks:
        for blocks in (ch,):
            b1, b2 = blocks[(1, 0)], blocks[(5, 0)]
            greedy = b1.policy != 0
            diffs.append(((b2.score * greedy).sum(1) - (b1.score * greedy).sum(1)) / 3)
    d = np.concatenate(diffs)
    r = row(p, lineup="hold-hand,greedy,greedy,greedy", policy="greedy", parameter="opening_threshold",
            from_value=51, to_value=91, joker_penalty=30)
    assert r["deals"] == len(d)
    assert r["mean_diff"] == pytest.approx(d.mean(), rel=1e-12)
    assert (r["ci95_low"], r["ci95_high"]) == pytest.approx(t_ci(d), rel=1e-10)


def test_match_fields():
    acc = fresh()
    ch = random_chunk(0, 0, 40, match=True)
    acc.add_chunk(ch)
    s = acc.summary()
    b = ch[(0, 1)]  # all greedy
    counted = b.match_win != MATCH_NONE
    r = row(s, opening_threshold=51, joker_penalty=15, lineup="greedy,greedy,greedy,greedy", seat="all")
    assert r["matches"] == counted.sum()
    assert r["match_win_rate"] == pytest.approx((b.match_win == 1).sum() / counted.sum())
    ci = sps.binomtest(int((b.match_win == 1).sum()), int(counted.sum())).proportion_ci(method="wilson")
    assert (r["match_win_rate_ci95_low"], r["match_win_rate_ci95_high"]) == pytest.approx((ci.low, ci.high))
    tb = b.tiebreaks[b.tiebreaks >= 0]
    assert r["mean_tiebreaks"] == pytest.approx(tb.mean())
    # no match fields: NaN
    s0 = tiny().summary()
    assert s0["match_win_rate"].isna().all() and (s0["matches"] == 0).all()


# ----------------------------------------------------------------------------------------------
# errors


def test_mismatched_deals_raise_and_change_nothing():
    acc = tiny()
    before = acc.state()
    shifted = B71._replace(deal=B71.deal + 1)
    with pytest.raises(ValueError, match="different deals"):
        acc.add_chunk({(0, 0): B51, (1, 0): shifted})
    after = acc.state()
    assert all(before[k].tobytes() == after[k].tobytes() for k in before)


@pytest.mark.parametrize("change, message", [
    ({"policy": np.array([[0, 0, 2], [1, 0, 2], [2, 1, 0]], dtype=np.int8)}, "permutation"),
    ({"score": np.zeros((3, 2), dtype=np.int32)}, "shape"),
    ({"turns": np.array([1, -1, 3], dtype=np.int16)}, "negative turns"),
    ({"void": np.array([0, 2, 0], dtype=np.uint8)}, "void"),
    ({"match_win": np.full((3, 3), 7, dtype=np.uint8)}, "match_win"),
    ({"score": np.zeros((3, 3), dtype=np.float64)}, "integers"),
])
def test_bad_blocks_raise(change, message):
    acc = tiny()
    with pytest.raises(ValueError, match=message):
        acc.add_block(0, 0, B51._replace(**change))


def test_bad_study_definitions_raise():
    with pytest.raises(ValueError, match="same values"):
        StudyAccumulator([{"jokers": 2}, {"jokers": 2}], [("a", "b")], 2, ["jokers"])
    with pytest.raises(ValueError, match="lacks"):
        StudyAccumulator([{"jokers": 2}], [("a", "b")], 2, ["jokers", "joker_penalty"])
    with pytest.raises(ValueError, match="not listed in varying"):
        StudyAccumulator([{"jokers": 2, "rounds": 5}, {"jokers": 4, "rounds": 9}], [("a", "b")], 2, ["jokers"])
    with pytest.raises(ValueError, match="players"):
        StudyAccumulator([{}], [("a", "b", "c")], 2, [])
    with pytest.raises(ValueError, match="out of range"):
        tiny().add_block(2, 0, B51)
    with pytest.raises(ValueError, match="different studies"):
        tiny().merge(fresh())
    # an option that is constant across configs may be passed along and is ignored
    acc = StudyAccumulator([{"jokers": 2, "rounds": 5}, {"jokers": 4, "rounds": 5}], [("a", "b")], 2, ["jokers"])
    assert acc.configs == [{"jokers": 2}, {"jokers": 4}]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 40, 1000, 123_456_789])
def test_wilson_helper_equals_scipy(n):
    from handsim.stats import _wilson

    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        ci = sps.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert _wilson(k, n) == pytest.approx((ci.low, ci.high), rel=1e-12, abs=1e-15)
    assert all(math.isnan(x) for x in _wilson(0, 0))
