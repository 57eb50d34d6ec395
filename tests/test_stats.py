"""Tests of handsim.stats: exact accumulators, intervals, paired differences, checkpoints."""

from __future__ import annotations

import io
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from handsim.stats import MATCH_NONE, DealBlock, StudyAccumulator

sys.path.insert(0, str(Path(__file__).resolve().parent))

from play_flags import hand_flags  # noqa: E402

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
    b = row(s, opening_threshold=51, policy="b", seat="1")  # b sat in seat 1 in deals 10 and 12, went out in 10
    ci = sps.binomtest(1, 2).proportion_ci(confidence_level=0.95, method="wilson")
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
    none = rng.random(n) < 0.5  # rows without a match result: the same in every block of the chunk
    blocks = {}
    for c, cfg in enumerate(CONFIGS):
        for l in range(len(LINEUPS)):
            score = base + (cfg["opening_threshold"] - 51) // 4 + rng.integers(-3, 4, size=(n, 4))
            kw = {}
            if match:
                # partners (opposite seats) share the match result, as in 2 v 2
                mw = np.tile(rng.random((n, 2)) < 0.25, 2).astype(np.uint8)
                ml = np.tile(rng.random((n, 2)) < 0.3, 2).astype(np.uint8) * (1 - mw)
                tb = rng.integers(0, 3, size=n).astype(np.int16)
                hd = (rng.random(n) < 0.2).astype(np.uint8)
                total = rng.integers(-200, 400 + 100 * seed, size=(n, 4)).astype(np.int32)
                mw[none], ml[none], tb[none], hd[none], total[none] = MATCH_NONE, MATCH_NONE, -1, MATCH_NONE, 0
                kw = {"match_win": mw, "tiebreaks": tb, "match_lose": ml, "total": total, "hand_decided": hd}
            void = (rng.random(n) < 0.05).astype(np.uint8)
            blocks[(c, l)] = DealBlock(np.arange(start, start + n, dtype=np.int64), perm,
                                       score.astype(np.int32), hand_flags(rng, void),
                                       rng.integers(4 + seed, 40 + 10 * seed, size=n).astype(np.int16), void, **kw)
    return blocks


CHUNKS = [(seed, 50 * seed, 50) for seed in range(5)]


def fresh(teams: bool = False) -> StudyAccumulator:
    return StudyAccumulator(CONFIGS, LINEUPS, 4, VARYING, teams=teams)


def frames(acc):
    h = acc.histograms()
    return [acc.summary(), acc.paired(), acc.versus(), acc.lineup_pairs(), acc.total_quantiles(), h["turns"],
            h["score"], h["total"], h["team_total"], h.get("team_margin"), acc.team_margins()]


def assert_identical(acc1, acc2):
    s1, s2 = acc1.state(), acc2.state()
    assert s1.keys() == s2.keys()
    for k in s1:
        assert s1[k].dtype == s2[k].dtype and s1[k].tobytes() == s2[k].tobytes(), k
    for f1, f2 in zip(frames(acc1), frames(acc2)):
        assert f1.to_csv(index=False) == f2.to_csv(index=False)
        pd.testing.assert_frame_equal(f1, f2, check_exact=True)


@pytest.mark.parametrize("match, teams", [(False, False), (True, False), (True, True)])
def test_chunk_order_and_merge_are_byte_identical(match, teams):
    in_order, reverse, left, right = fresh(teams), fresh(teams), fresh(teams), fresh(teams)
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
    assert len(in_order.lineup_pairs()) == 6
    if match:
        assert len(in_order.total_quantiles()) == 6 * (3 + 4 * teams)  # policies, then 2 teams per line-up


@pytest.mark.parametrize("teams", [False, True])
def test_state_round_trip_through_npz(teams):
    acc = fresh(teams)
    for seed, start, n in CHUNKS[:3]:
        acc.add_chunk(random_chunk(seed, start, n, match=True))
    buf = io.BytesIO()
    np.savez(buf, **acc.state())
    buf.seek(0)
    with np.load(buf) as z:
        back = StudyAccumulator.from_state(z, configs=CONFIGS, lineups=LINEUPS, players=4, varying=VARYING,
                                           teams=[teams] * len(CONFIGS))
    assert_identical(acc, back)
    assert back.teams == [teams] * len(CONFIGS)
    # resume: more chunks on the restored accumulator give what one run gives
    full = fresh(teams)
    for seed, start, n in CHUNKS:
        full.add_chunk(random_chunk(seed, start, n, match=True))
    for seed, start, n in CHUNKS[3:]:
        back.add_chunk(random_chunk(seed, start, n, match=True))
    assert_identical(full, back)
    with pytest.raises(ValueError, match="different study"):
        StudyAccumulator.from_state(acc.state(), players=4, lineups=LINEUPS[:1])
    with pytest.raises(ValueError, match="different study"):
        StudyAccumulator.from_state(acc.state(), teams=not teams)
    with pytest.raises(ValueError, match="different studies"):
        fresh(not teams).merge(acc)


def test_old_state_format_is_refused_with_a_clear_message():
    import json

    state = tiny().state()
    meta = json.loads(bytes(state["meta"]).decode())
    meta["format"] = 1
    del meta["teams"]
    state["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with pytest.raises(ValueError, match="unsupported state format 1.*run the study again"):
        StudyAccumulator.from_state(state)
    good = tiny().state()
    del good["lpair"]
    with pytest.raises(ValueError, match="'lpair' is missing"):
        StudyAccumulator.from_state(good)


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


def test_lineup_pairs_random_match_direct_computation():
    acc = fresh(teams=True)
    chunks = [random_chunk(seed, start, n, match=True) for seed, start, n in CHUNKS]
    for ch in chunks:
        acc.add_chunk(ch)
    # line-ups differ at position 1 (index 0): hold-hand -> greedy; configuration 3
    d, td, tot, ttot, win = [], [], [], [], []
    for ch in chunks:
        b1, b2 = ch[(3, 0)], ch[(3, 1)]
        inv = np.argsort(b1.policy, axis=1)
        pos1 = np.take_along_axis(b1.score.astype(np.int64), inv, 1)
        pos2 = np.take_along_axis(b2.score.astype(np.int64), inv, 1)
        d.append(pos1[:, 0] - pos2[:, 0])
        td.append(pos1[:, [0, 2]].sum(1) - pos2[:, [0, 2]].sum(1))
        res = b1.match_win[:, 0] != MATCH_NONE
        t1 = np.take_along_axis(b1.total.astype(np.int64), inv, 1)[res]
        t2 = np.take_along_axis(b2.total.astype(np.int64), inv, 1)[res]
        tot.append(t1[:, 0] - t2[:, 0])
        ttot.append(t1[:, [0, 2]].sum(1) - t2[:, [0, 2]].sum(1))
        w1 = np.take_along_axis(b1.match_win.astype(np.int64), inv, 1)[res]
        w2 = np.take_along_axis(b2.match_win.astype(np.int64), inv, 1)[res]
        win.append(w1[:, 0] - w2[:, 0])
    p = acc.lineup_pairs()
    r = row(p, opening_threshold=71, joker_penalty=30)
    assert (r["position"], r["policy_a"], r["policy_b"], r["team"]) == (1, "hold-hand", "greedy", "team A")
    for x, col, lo, hi in ((d, "mean_diff", "ci95_low", "ci95_high"),
                           (td, "team_diff", "team_diff_ci95_low", "team_diff_ci95_high"),
                           (tot, "total_diff", "total_diff_ci95_low", "total_diff_ci95_high"),
                           (ttot, "team_total_diff", "team_total_diff_ci95_low", "team_total_diff_ci95_high"),
                           (win, "match_win_diff", "match_win_diff_ci95_low", "match_win_diff_ci95_high")):
        x = np.concatenate(x)
        assert r[col] == pytest.approx(x.mean(), rel=1e-12, abs=1e-12), col
        assert (r[lo], r[hi]) == pytest.approx(t_ci(x), rel=1e-10), col
    assert r["deals"] == 250 and r["matches"] == len(np.concatenate(tot))


def test_match_fields():
    acc = fresh()
    ch = random_chunk(0, 0, 40, match=True)
    acc.add_chunk(ch)
    s = acc.summary()
    b = ch[(0, 1)]  # all greedy: 4 seats of one policy, so the match is the unit of the "all" row
    res = b.match_win[:, 0] != MATCH_NONE
    r = row(s, opening_threshold=51, joker_penalty=15, lineup="greedy,greedy,greedy,greedy", seat="all")
    assert r["matches"] == 4 * res.sum()  # player-matches
    per_match = b.match_win[res].sum(axis=1) / 4
    assert r["match_win_rate"] == pytest.approx(per_match.mean(), rel=1e-12)
    assert (r["match_win_rate_ci95_low"], r["match_win_rate_ci95_high"]) == pytest.approx(t_ci(per_match), rel=1e-12)
    assert r["match_lose_rate"] == pytest.approx(b.match_lose[res].mean(), rel=1e-12)
    neutral = (4 - b.match_win[res].sum(axis=1) - b.match_lose[res].sum(axis=1)) / 4
    assert r["match_neutral_rate"] == pytest.approx(neutral.mean(), rel=1e-12)
    assert (r["match_neutral_rate_ci95_low"], r["match_neutral_rate_ci95_high"]) == pytest.approx(t_ci(neutral), rel=1e-12)
    totals = b.total[res].astype(float).mean(axis=1)
    assert r["mean_final_total"] == pytest.approx(totals.mean(), rel=1e-12)
    assert (r["final_total_ci95_low"], r["final_total_ci95_high"]) == pytest.approx(t_ci(totals), rel=1e-12)
    tb = b.tiebreaks[b.tiebreaks >= 0]
    assert r["mean_tiebreaks"] == pytest.approx(tb.mean())
    ci = sps.binomtest(int((tb >= 1).sum()), len(tb)).proportion_ci(method="wilson")
    assert (r["tiebreak_rate"], r["tiebreak_rate_ci95_low"], r["tiebreak_rate_ci95_high"]) == pytest.approx(
        ((tb >= 1).mean(), ci.low, ci.high), rel=1e-12)
    hd = b.hand_decided[res]
    assert r["hand_decided_rate"] == pytest.approx(hd.mean(), rel=1e-12)
    # one seat: Wilson over that seat's matches
    r1 = row(s, opening_threshold=51, joker_penalty=15, lineup="greedy,greedy,greedy,greedy", seat="1")
    w = b.match_win[res, 1]
    ci = sps.binomtest(int(w.sum()), len(w)).proportion_ci(method="wilson")
    assert r1["matches"] == len(w)
    assert (r1["match_win_rate"], r1["match_win_rate_ci95_low"], r1["match_win_rate_ci95_high"]) == pytest.approx(
        (w.mean(), ci.low, ci.high), rel=1e-12)
    # no match fields: NaN
    s0 = tiny().summary()
    for col in ("match_win_rate", "match_lose_rate", "match_neutral_rate", "mean_final_total", "tiebreak_rate",
                "hand_decided_rate", "mean_tiebreaks"):
        assert s0[col].isna().all(), col
    assert (s0["matches"] == 0).all()
    assert tiny().total_quantiles().empty and tiny().histograms()["total"].empty


# ----------------------------------------------------------------------------------------------
# matches computed by hand: 3 players, line-up (a, b, b), 3 matches of 2 rounds

# line-up position in each relative seat, one row per round; results on rows 1, 3 and 5
M_POLICY = np.array([[0, 1, 2], [1, 2, 0], [1, 2, 0], [2, 0, 1], [2, 0, 1], [0, 1, 2]], dtype=np.int8)
M_RESULT_ROWS = (1, 3, 5)
# by line-up position (a, b, b): final totals, winner, loser, tie-break rounds, decided by a Hand
M_TOTALS = [(50, 120, -30), (-40, 200, 90), (130, 10, 60)]
M_WINNER = (2, 0, 1)
M_LOSER = (1, 1, 0)
M_TIEBREAKS = (0, 2, 1)
M_HAND = (1, 0, 0)


def match_block() -> DealBlock:
    n = len(M_POLICY)
    mw = np.full((n, 3), MATCH_NONE, np.uint8)
    ml = np.full((n, 3), MATCH_NONE, np.uint8)
    total = np.zeros((n, 3), np.int32)
    tb = np.full(n, -1, np.int16)
    hd = np.full(n, MATCH_NONE, np.uint8)
    for m, r in enumerate(M_RESULT_ROWS):
        for s in range(3):
            pos = M_POLICY[r, s]
            mw[r, s] = pos == M_WINNER[m]
            ml[r, s] = pos == M_LOSER[m]
            total[r, s] = M_TOTALS[m][pos]
        tb[r], hd[r] = M_TIEBREAKS[m], M_HAND[m]
    score = np.arange(n * 3, dtype=np.int32).reshape(n, 3)
    return DealBlock(np.arange(n, dtype=np.int64), M_POLICY.copy(), score, np.ones((n, 3), np.uint8),
                     np.full(n, 20, np.int16), np.zeros(n, np.uint8), mw, tb, ml, total, hd)


def match_study() -> StudyAccumulator:
    acc = StudyAccumulator([{}], [("a", "b", "b")], 3, [])
    acc.add_chunk({(0, 0): match_block()})
    return acc


def wilson(k, n):
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return (ci.low, ci.high)


def test_match_rates_by_hand():
    s = match_study().summary()
    a = row(s, policy="a", seat="all")
    assert a["matches"] == 3
    for col, k in (("match_win_rate", 1), ("match_lose_rate", 1), ("match_neutral_rate", 1)):
        assert a[col] == pytest.approx(k / 3, rel=1e-12)
        assert (a[col + "_ci95_low"], a[col + "_ci95_high"]) == pytest.approx(wilson(k, 3), rel=1e-12)
    assert a["mean_final_total"] == pytest.approx(140 / 3, rel=1e-12)
    assert (a["final_total_ci95_low"], a["final_total_ci95_high"]) == pytest.approx(t_ci([50, -40, 130]), rel=1e-12)
    # b holds two seats: per-match shares of wins 1/2, 0, 1/2; losses 1/2, 1/2, 0; neutral 0, 1/2, 1/2
    b = row(s, policy="b", seat="all")
    assert b["matches"] == 6
    for col, shares in (("match_win_rate", [0.5, 0, 0.5]), ("match_lose_rate", [0.5, 0.5, 0]),
                        ("match_neutral_rate", [0, 0.5, 0.5])):
        assert b[col] == pytest.approx(1 / 3, rel=1e-12)
        lo, hi = t_ci(shares)
        assert (b[col + "_ci95_low"], b[col + "_ci95_high"]) == pytest.approx((max(lo, 0), min(hi, 1)), rel=1e-12)
    assert b["mean_final_total"] == pytest.approx(75.0, rel=1e-12)
    assert (b["final_total_ci95_low"], b["final_total_ci95_high"]) == pytest.approx(t_ci([45, 145, 35]), rel=1e-12)
    # b in seat 0 at the end of a match: match 0 (position 1: lost, 120) and match 1 (position 2: neutral, 90)
    b0 = row(s, policy="b", seat="0")
    assert b0["matches"] == 2 and b0["match_win_rate"] == 0 and b0["match_lose_rate"] == 0.5
    assert b0["match_neutral_rate"] == 0.5
    assert (b0["match_lose_rate_ci95_low"], b0["match_lose_rate_ci95_high"]) == pytest.approx(wilson(1, 2), rel=1e-12)
    assert b0["mean_final_total"] == 105.0
    assert (b0["final_total_ci95_low"], b0["final_total_ci95_high"]) == pytest.approx(t_ci([120, 90]), rel=1e-12)
    # per configuration and line-up, repeated on every row
    for r in s.to_dict("records"):
        assert r["mean_tiebreaks"] == 1.0
        assert (r["tiebreak_rate"], r["tiebreak_rate_ci95_low"], r["tiebreak_rate_ci95_high"]) == pytest.approx(
            (2 / 3, *wilson(2, 3)), rel=1e-12)
        assert (r["hand_decided_rate"], r["hand_decided_rate_ci95_low"], r["hand_decided_rate_ci95_high"]) == \
            pytest.approx((1 / 3, *wilson(1, 3)), rel=1e-12)


def test_final_total_quantiles_and_histogram_by_hand():
    acc = match_study()
    q = acc.total_quantiles()
    assert list(q.columns) == ["lineup", "policy", "seat", "matches", "mean_final_total", "min", "p10", "p25",
                               "p50", "p75", "p90", "max"]
    for policy, values in (("a", [50, -40, 130]), ("b", [120, -30, 200, 90, 10, 60])):
        r = row(q, policy=policy)
        assert r["seat"] == "all" and r["matches"] == len(values)
        assert r["mean_final_total"] == pytest.approx(np.mean(values), rel=1e-12)
        assert (r["min"], r["max"]) == (min(values), max(values))
        want = np.quantile(values, [0.1, 0.25, 0.5, 0.75, 0.9])
        got = [r[c] for c in ("p10", "p25", "p50", "p75", "p90")]
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert row(q, policy="a")["p50"] == 50.0 and row(q, policy="b")["p25"] == 22.5
    h = acc.histograms()["total"]
    assert list(h.columns) == ["lineup", "policy", "total", "count"]
    hb = h[h["policy"] == "b"]
    assert hb["total"].tolist() == [-30, 10, 60, 90, 120, 200] and hb["count"].tolist() == [1] * 6
    assert acc.histograms()["team_total"].empty


def test_hist_quantiles_with_repeated_values():
    from handsim.stats import _hist_quantiles

    rng = np.random.default_rng(3)
    data = rng.integers(-5, 6, size=101)
    values, counts = np.unique(data, return_counts=True)
    qs = [0.0, 0.1, 0.25, 0.333, 0.5, 0.75, 0.9, 1.0]
    np.testing.assert_allclose(_hist_quantiles(values, counts, qs), np.quantile(data, qs), rtol=1e-12, atol=1e-12)


def test_pooled_rates_use_the_deal_as_unit():
    s = tiny().summary()
    # b's per-deal share of went-out: deal 10 1/2, deal 11 1/2, deal 12 0; unopened 1/2, 1/2, 1/2
    b = row(s, opening_threshold=51, policy="b", seat="all")
    lo, hi = t_ci([0.5, 0.5, 0.0])
    assert (b["p_out_ci95_low"], b["p_out_ci95_high"]) == pytest.approx((max(lo, 0), min(hi, 1)), rel=1e-12)
    # every deal the same share (1/2): no spread, the interval is the point
    assert (b["p_unopened"], b["p_unopened_ci95_low"], b["p_unopened_ci95_high"]) == (0.5, 0.5, 0.5)
    # no b player made a Hand in any deal: Wilson over the 3 deals, not a zero-width interval
    assert b["p_hand"] == 0.0
    assert (b["p_hand_ci95_low"], b["p_hand_ci95_high"]) == pytest.approx(wilson(0, 3), rel=1e-12)


# ----------------------------------------------------------------------------------------------
# partnership (2 v 2): teams are line-up positions 1 & 3 and 2 & 4

TEAM_LINEUPS = [("h", "g", "s", "g"), ("h", "g", "g", "g")]  # differ at position 3 (index 2)
T_POLICY = np.array([[0, 1, 2, 3], [3, 0, 1, 2], [2, 3, 0, 1], [1, 2, 3, 0]], dtype=np.int8)
# by line-up position, 4 deals (each a one-round match): scores and who went out (H: with a Hand)
T_SCORE = {0: [[-30, 40, 0, 60], [20, -30, 35, 0], [0, 15, -30, 80], [-60, 200, 100, 120]],
           1: [[-30, 50, 0, 70], [25, -30, 45, 0], [10, -30, 130, 0], [-60, 220, 100, 140]]}
T_OUT = {0: [0, 1, 2, 0], 1: [0, 1, 1, 0]}
T_HAND = {0: [False, False, False, True], 1: [False, False, False, True]}
T_UNOPENED = {0: [[], [2], [], [1, 2, 3]], 1: [[], [], [2], [1, 3]]}  # positions that never opened
T_TOTALS = {0: [[100, 40, 0, 50], [20, 10, 35, 0], [0, 15, 30, 80], [-60, 200, 100, 120]],
            1: [[100, 50, 0, 40], [25, -30, 45, 0], [10, 0, 130, 0], [-60, 220, 100, 140]]}


def team_block(l: int, matches: bool = True) -> DealBlock:
    n = len(T_POLICY)
    by_pos = np.array(T_SCORE[l])
    score = np.take_along_axis(by_pos, T_POLICY.astype(np.intp), axis=1).astype(np.int32)
    flags = np.full((n, 4), 1, np.uint8)
    for d in range(n):
        for s in range(4):
            pos = T_POLICY[d, s]
            if pos == T_OUT[l][d]:
                flags[d, s] |= 2 | (4 if T_HAND[l][d] else 0)
            if pos in T_UNOPENED[l][d]:
                flags[d, s] &= ~np.uint8(1)
    kw = {}
    if matches:
        tot = np.array(T_TOTALS[l])
        team_a = tot[:, 0] + tot[:, 2] < tot[:, 1] + tot[:, 3]
        win_pos = np.where(team_a[:, None], [1, 0, 1, 0], [0, 1, 0, 1])
        kw = dict(match_win=np.take_along_axis(win_pos, T_POLICY.astype(np.intp), axis=1).astype(np.uint8),
                  tiebreaks=np.zeros(n, np.int16), match_lose=np.zeros((n, 4), np.uint8),
                  total=np.take_along_axis(tot, T_POLICY.astype(np.intp), axis=1).astype(np.int32),
                  hand_decided=np.array([0, 0, 0, 1], np.uint8))
    return DealBlock(np.arange(n, dtype=np.int64), T_POLICY.copy(), score, flags, np.full(n, 30, np.int16),
                     np.zeros(n, np.uint8), **kw)


def team_study(matches: bool = True) -> StudyAccumulator:
    acc = StudyAccumulator([{}], TEAM_LINEUPS, 4, [], teams=True)
    acc.add_chunk({(0, 0): team_block(0, matches), (0, 1): team_block(1, matches)})
    return acc


def test_team_rows_by_hand():
    s = team_study().summary()
    seats = ["all", "0", "1", "2", "3"]
    assert s["seat"].tolist() == seats * 3 + ["team A", "team B"] + seats * 2 + ["team A", "team B"]
    a = row(s, lineup="h,g,s,g", seat="team A")
    assert a["policy"] == "h & s" and a["rounds"] == 4 and a["deals"] == 4
    sums = [-30, 55, -30, 40]  # positions 1 + 3 per deal
    assert a["mean_score"] == pytest.approx(np.mean(sums), rel=1e-12)
    assert a["sd_score"] == pytest.approx(np.std(sums, ddof=1), rel=1e-12)
    assert (a["ci95_low"], a["ci95_high"]) == pytest.approx(t_ci(sums), rel=1e-12)
    # team A went out in deals 0, 2 and 3 (a Hand in 3)
    assert (a["p_out"], a["p_out_ci95_low"], a["p_out_ci95_high"]) == pytest.approx((0.75, *wilson(3, 4)), rel=1e-12)
    assert (a["p_hand"], a["p_hand_ci95_low"], a["p_hand_ci95_high"]) == pytest.approx((0.25, *wilson(1, 4)), rel=1e-12)
    # unopened team player-rounds, per deal: 0, 1/2, 0, 1/2
    lo, hi = t_ci([0, 0.5, 0, 0.5])
    assert (a["p_unopened"], a["p_unopened_ci95_low"], a["p_unopened_ci95_high"]) == pytest.approx(
        (0.25, max(lo, 0), hi), rel=1e-12)
    # matches: team A's totals 100, 55, 30, 40 against 90, 10, 95, 320 -> wins matches 2 and 3
    assert a["matches"] == 4
    assert (a["match_win_rate"], a["match_win_rate_ci95_low"], a["match_win_rate_ci95_high"]) == pytest.approx(
        (0.5, *wilson(2, 4)), rel=1e-12)
    assert a["match_lose_rate"] == 0.0 and a["match_neutral_rate"] == 0.5
    assert a["mean_final_total"] == pytest.approx(56.25, rel=1e-12)
    assert (a["final_total_ci95_low"], a["final_total_ci95_high"]) == pytest.approx(t_ci([100, 55, 30, 40]), rel=1e-12)
    assert a["hand_decided_rate"] == 0.25 and a["mean_turns"] == 30.0 and a["void_rate"] == 0.0
    b = row(s, lineup="h,g,s,g", seat="team B")
    assert b["policy"] == "g & g" and b["match_win_rate"] == 0.5
    assert b["mean_score"] == pytest.approx(np.mean([100, -30, 95, 320]), rel=1e-12)
    # g holds both team B seats: its "all" row, per match 0/2 wins -> share 0 or 1 per match
    g = row(s, lineup="h,g,s,g", policy="g", seat="all")
    assert g["matches"] == 8 and g["match_win_rate"] == 0.5
    lo, hi = t_ci([0, 1, 1, 0])
    assert (g["match_win_rate_ci95_low"], g["match_win_rate_ci95_high"]) == pytest.approx((max(lo, 0), min(hi, 1)))
    q = team_study().total_quantiles()
    qa = row(q, lineup="h,g,s,g", seat="team A")
    assert qa["policy"] == "h & s" and qa["matches"] == 4
    np.testing.assert_allclose([qa["p10"], qa["p50"], qa["p90"]], np.quantile([100, 55, 30, 40], [0.1, 0.5, 0.9]))
    ht = team_study().histograms()["team_total"]
    assert list(ht.columns) == ["lineup", "team", "policy", "total", "count"]
    assert ht[(ht["lineup"] == "h,g,s,g") & (ht["team"] == "team B")]["total"].tolist() == [10, 90, 95, 320]


# team margin (team A's final total minus team B's) per match, from T_TOTALS by hand:
# line-up 0 (h,g,s,g): A = 100, 55, 30, 40 against B = 90, 10, 95, 320
# line-up 1 (h,g,g,g): A = 100, 70, 140, 40 against B = 90, -30, 0, 360
T_MARGINS = {0: [10, 45, -65, -280], 1: [10, 100, 140, -320]}


def test_team_margin_by_hand():
    acc = team_study()
    h = acc.histograms()["team_margin"]
    assert list(h.columns) == ["lineup", "team_a", "team_b", "margin", "count"]
    g = h[h["lineup"] == "h,g,s,g"]
    assert g["margin"].tolist() == [-280, -65, 10, 45] and g["count"].tolist() == [1, 1, 1, 1]
    assert (g["team_a"].iloc[0], g["team_b"].iloc[0]) == ("h & s", "g & g")
    t = acc.team_margins()
    assert t["lineup"].tolist() == ["h,g,s,g", "h,g,g,g"]
    for l, lu in enumerate(["h,g,s,g", "h,g,g,g"]):
        m = np.array(T_MARGINS[l], dtype=float)
        r = row(t, lineup=lu)
        assert r["matches"] == 4
        assert r["mean_margin"] == pytest.approx(m.mean(), rel=1e-12)  # -72.5 and -17.5
        assert r["sd_margin"] == pytest.approx(m.std(ddof=1), rel=1e-12)
        assert (r["margin_ci95_low"], r["margin_ci95_high"]) == pytest.approx(t_ci(m), rel=1e-12)
        for col, k in (("p_negative", int((m < 0).sum())), ("p_zero", 0), ("p_positive", int((m > 0).sum()))):
            assert (r[col], r[col + "_ci95_low"], r[col + "_ci95_high"]) == pytest.approx((k / 4, *wilson(k, 4)),
                                                                                          rel=1e-12)
        np.testing.assert_allclose([r["p10"], r["p50"], r["p90"]], np.quantile(m, [0.1, 0.5, 0.9]))
    assert row(t, lineup="h,g,s,g")["p_negative"] == 0.5 and row(t, lineup="h,g,g,g")["p_negative"] == 0.25
    # the mean margin is the difference of the team rows' mean final totals
    s = acc.summary()
    a, b = row(s, lineup="h,g,s,g", seat="team A"), row(s, lineup="h,g,s,g", seat="team B")
    assert a["mean_final_total"] - b["mean_final_total"] == pytest.approx(-72.5, rel=1e-12)
    # no margin without teams or without matches
    assert team_study(matches=False).team_margins().empty
    plain = StudyAccumulator([{}], TEAM_LINEUPS, 4, [])
    plain.add_chunk({(0, 0): team_block(0), (0, 1): team_block(1)})
    assert plain.histograms()["team_margin"].empty and plain.team_margins().empty


def test_team_margin_merges_across_chunks():
    """Two halves of the matches, merged, give the histogram of all of them (the margin's range grows)."""
    first, second = StudyAccumulator([{}], TEAM_LINEUPS, 4, [], teams=True), StudyAccumulator(
        [{}], TEAM_LINEUPS, 4, [], teams=True)
    half = [team_block(0)._replace(**{k: getattr(team_block(0), k)[sl] for k in DealBlock._fields})
            for sl in (slice(0, 2), slice(2, 4))]
    half1 = [team_block(1)._replace(**{k: getattr(team_block(1), k)[sl] for k in DealBlock._fields})
             for sl in (slice(0, 2), slice(2, 4))]
    first.add_chunk({(0, 0): half[0], (0, 1): half1[0]})
    second.add_chunk({(0, 0): half[1], (0, 1): half1[1]})
    assert first.histograms()["team_margin"]["margin"].tolist() == [10, 45, 10, 100]
    merged = second.merge(first)
    assert_identical(merged, team_study())
    assert sorted(merged.histograms()["team_margin"].query("lineup == 'h,g,g,g'")["margin"]) == [-320, 10, 100, 140]


def test_checkpoint_without_team_margin_reads_and_reports_none():
    acc = team_study()
    state = acc.state()
    assert {"team_margin_hist", "team_margin_lo"} <= set(state)
    old = {k: v for k, v in state.items() if not k.startswith("team_margin")}  # as saved before the margin
    back = StudyAccumulator.from_state(old)
    assert not back.margin_recorded
    assert "team_margin" not in back.histograms() and back.team_margins().empty
    # everything else is as before
    for f1, f2 in zip(frames(back)[:9], frames(acc)[:9]):
        pd.testing.assert_frame_equal(f1, f2, check_exact=True)
    # resumed: later matches cannot make the histogram whole, the margin stays unreported
    back.add_chunk({(0, 0): team_block(0)._replace(deal=np.arange(4, 8, dtype=np.int64)),
                    (0, 1): team_block(1)._replace(deal=np.arange(4, 8, dtype=np.int64))})
    assert back.team_margins().empty and "team_margin_hist" not in back.state()
    assert not team_study().merge(StudyAccumulator.from_state(old)).margin_recorded
    partial = dict(state)
    del partial["team_margin_lo"]
    with pytest.raises(ValueError, match="'team_margin_lo' is missing"):
        StudyAccumulator.from_state(partial)
    bad = dict(state)
    bad["team_margin_hist"] = state["team_margin_hist"][:, :1]
    with pytest.raises(ValueError, match="team_margin_hist does not match"):
        StudyAccumulator.from_state(bad)


def test_lineup_pairs_by_hand():
    acc = team_study()
    assert acc.lineup_diffs == [(0, 1, 2)]
    p = acc.lineup_pairs()
    assert len(p) == 1
    r = p.iloc[0]
    assert (r["lineup_a"], r["lineup_b"], r["position"]) == ("h,g,s,g", "h,g,g,g", 3)
    assert (r["policy_a"], r["policy_b"], r["team"]) == ("s", "g", "team A")
    d = [0, -10, -160, 0]  # position 3: s's score minus g's, deal by deal
    assert r["deals"] == 4 and r["mean_diff"] == pytest.approx(-42.5, rel=1e-12)
    assert (r["ci95_low"], r["ci95_high"]) == pytest.approx(t_ci(d), rel=1e-12)
    assert r["p_value"] == pytest.approx(sps.ttest_1samp(d, 0.0).pvalue, rel=1e-9)
    td = [0, -15, -170, 0]  # team A (positions 1 + 3)
    assert r["team_diff"] == pytest.approx(np.mean(td), rel=1e-12)
    assert (r["team_diff_ci95_low"], r["team_diff_ci95_high"]) == pytest.approx(t_ci(td), rel=1e-12)
    assert r["team_p_value"] == pytest.approx(sps.ttest_1samp(td, 0.0).pvalue, rel=1e-9)
    # per match: position 3's final total, team A's final total, and winning
    assert r["matches"] == 4
    assert r["total_diff"] == pytest.approx(np.mean([0, -10, -100, 0]), rel=1e-12)
    assert (r["total_diff_ci95_low"], r["total_diff_ci95_high"]) == pytest.approx(t_ci([0, -10, -100, 0]), rel=1e-12)
    assert r["team_total_diff"] == pytest.approx(np.mean([0, -15, -110, 0]), rel=1e-12)
    # team A: won matches 2, 3 with s; with g its totals are 100, 70, 140, 40 against 90, -30, 0, 360
    w = [0, 0, 1, 0]
    assert r["match_win_diff"] == pytest.approx(0.25, rel=1e-12)
    assert (r["match_win_diff_ci95_low"], r["match_win_diff_ci95_high"]) == pytest.approx(t_ci(w), rel=1e-12)
    assert r["match_lose_diff"] == 0.0
    # without teams or matches: the team and match columns are empty
    plain = StudyAccumulator([{}], TEAM_LINEUPS, 4, [])
    plain.add_chunk({(0, 0): team_block(0, False), (0, 1): team_block(1, False)})
    r = plain.lineup_pairs().iloc[0]
    assert r["mean_diff"] == pytest.approx(-42.5) and r["team"] == ""
    assert math.isnan(r["team_diff"]) and math.isnan(r["total_diff"]) and math.isnan(r["match_win_diff"])
    assert r["matches"] == 0
    assert not (plain.summary()["seat"].str.startswith("team")).any()
    # add_block alone compares no line-ups
    single = StudyAccumulator([{}], TEAM_LINEUPS, 4, [], teams=True)
    single.add_block(0, 0, team_block(0))
    single.add_block(0, 1, team_block(1))
    assert single.lineup_pairs().empty
    pd.testing.assert_frame_equal(single.summary(), team_study().summary(), check_exact=True)


def test_teams_per_configuration_and_errors():
    acc = StudyAccumulator([{"partnership": False}, {"partnership": True}], TEAM_LINEUPS, 4, ["partnership"],
                           teams=[False, True])
    acc.add_chunk({(c, l): team_block(l) for c in (0, 1) for l in (0, 1)})
    s = acc.summary()
    teams = s[s["seat"].str.startswith("team")]
    assert set(teams["partnership"]) == {True} and len(teams) == 4
    p = acc.lineup_pairs()
    assert p["team"].tolist() == ["", "team A"]
    with pytest.raises(ValueError, match="4 players"):
        StudyAccumulator([{}], [("a", "b", "c")], 3, [], teams=True)
    with pytest.raises(ValueError, match="entries"):
        StudyAccumulator([{}], TEAM_LINEUPS, 4, [], teams=[True, False])


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
    ({"match_win": np.array([[1, 0, 0], [255, 0, 255], [255] * 3], dtype=np.uint8)}, "every seat"),
    ({"match_lose": np.zeros((3, 3), dtype=np.uint8)}, "need match_win"),
    ({"match_win": np.array([[1, 0, 0], [255] * 3, [255] * 3], dtype=np.uint8),
      "match_lose": np.zeros((3, 3), dtype=np.uint8)}, "exactly where"),
    ({"match_win": np.array([[1, 0, 0], [255] * 3, [255] * 3], dtype=np.uint8),
      "match_lose": np.array([[1, 0, 0], [255] * 3, [255] * 3], dtype=np.uint8)}, "both win and lose"),
    ({"match_win": np.array([[1, 0, 0], [255] * 3, [255] * 3], dtype=np.uint8),
      "hand_decided": np.array([1, 2, 255], dtype=np.uint8)}, "hand_decided"),
    ({"match_win": np.array([[1, 0, 0], [255] * 3, [255] * 3], dtype=np.uint8),
      "total": np.zeros((3, 2), dtype=np.int32)}, "total has shape"),
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


# ----------------------------------------------------------------------------------------------
# rounds that end with a joker in hand (FLAG_JOKER_LEFT)


def joker_study() -> StudyAccumulator:
    """tiny()'s deals with joker bits: at 51, a holds a joker at the end of deal 10 (seat 0), b in
    deal 11 (seat 2) and deal 12 (seats 0 and 1); at 71 only b in deal 12 (seat 0)."""
    from handsim.stats import FLAG_JOKER_LEFT as J

    f51 = np.array([[1, 3, 0], [3, 1, 0], [1, 0, 7]], dtype=np.uint8)
    f51[0, 0] |= J
    f51[1, 2] |= J
    f51[2, 0] |= J
    f51[2, 1] |= J
    f71 = np.array([[1, 3, 0], [0, 0, 0], [1, 0, 7]], dtype=np.uint8)
    f71[2, 0] |= J
    acc = StudyAccumulator([{"opening_threshold": 51}, {"opening_threshold": 71}], [("a", "b", "b")], 3,
                           ["opening_threshold"])
    acc.add_chunk({(0, 0): B51._replace(flags=f51), (1, 0): B71._replace(flags=f71)})
    return acc


def test_joker_left_share_by_hand():
    s = joker_study().summary()
    a = row(s, opening_threshold=51, policy="a", seat="all")
    assert (a["p_joker_left"], a["p_joker_left_ci95_low"], a["p_joker_left_ci95_high"]) == pytest.approx(
        (1 / 3, *wilson(1, 3)), rel=1e-12)  # one seat per deal: Wilson over deals
    # b holds two seats: per deal 0/2, 1/2, 2/2 -> t interval over the per-deal shares, clipped
    b = row(s, opening_threshold=51, policy="b", seat="all")
    lo, hi = t_ci([0, 0.5, 1.0])
    assert (b["p_joker_left"], b["p_joker_left_ci95_low"], b["p_joker_left_ci95_high"]) == pytest.approx(
        (0.5, max(lo, 0.0), min(hi, 1.0)), rel=1e-12)
    # per seat: b sat in seat 0 in deals 11 and 12, with a joker left in deal 12
    r = row(s, opening_threshold=51, policy="b", seat="0")
    assert (r["p_joker_left"], r["p_joker_left_ci95_low"], r["p_joker_left_ci95_high"]) == pytest.approx(
        (0.5, *wilson(1, 2)), rel=1e-12)
    assert row(s, opening_threshold=71, policy="a", seat="all")["p_joker_left"] == 0.0
    # the flag does not disturb the other shares
    pd.testing.assert_series_equal(s.drop(columns=[c for c in s if "joker" in c]).iloc[0],
                                   tiny().summary().drop(columns=[c for c in s if "joker" in c]).iloc[0])


def test_joker_left_paired_difference_by_hand():
    p = joker_study().paired()
    b = row(p, policy="b")
    d = np.array([0, -0.5, -0.5])  # per deal: 71 minus 51 of b's share over its two seats
    assert b["p_joker_left_diff"] == pytest.approx(d.mean(), rel=1e-12)
    assert (b["p_joker_left_diff_ci95_low"], b["p_joker_left_diff_ci95_high"]) == pytest.approx(t_ci(d), rel=1e-12)
    a = row(p, policy="a")
    assert a["p_joker_left_diff"] == pytest.approx(-1 / 3, rel=1e-12)


def test_checkpoint_without_joker_counters_reads_with_nan_and_stays_nan():
    acc = joker_study()
    state = acc.state()
    assert {"joker_seat", "joker_pool", "joker_team", "joker_pair"} <= set(state)
    old = {k: v for k, v in state.items() if not k.startswith("joker_")}  # as written before the flag
    back = StudyAccumulator.from_state(old)
    assert not back.joker_recorded
    s = back.summary()
    assert s["p_joker_left"].isna().all() and s["p_joker_left_ci95_high"].isna().all()
    assert back.paired()["p_joker_left_diff"].isna().all()
    # everything else is as before
    keep = [c for c in s.columns if "joker" not in c]
    pd.testing.assert_frame_equal(s[keep], acc.summary()[keep], check_exact=True)
    # resumed: later deals cannot make the count whole, the share stays unknown
    back.add_chunk({(0, 0): B51._replace(deal=DEALS + 10), (1, 0): B71._replace(deal=DEALS + 10)})
    assert back.summary()["p_joker_left"].isna().all()
    assert "joker_seat" not in back.state()
    merged = joker_study().merge(StudyAccumulator.from_state(old))
    assert not merged.joker_recorded
    partial = dict(state)
    del partial["joker_pair"]
    with pytest.raises(ValueError, match="'joker_pair' is missing"):
        StudyAccumulator.from_state(partial)


def test_team_joker_left_share_by_hand():
    from handsim.stats import FLAG_JOKER_LEFT as J

    blocks = {(0, l): team_block(l, False) for l in (0, 1)}
    b = blocks[(0, 0)]
    flags = b.flags.copy()
    pos = np.argsort(b.policy, axis=1)  # seat of each line-up position
    flags[0, pos[0, 0]] |= J  # deal 0: position 1 (team A)
    flags[1, pos[1, 0]] |= J  # deal 1: positions 1 and 3 (team A)
    flags[1, pos[1, 2]] |= J
    flags[2, pos[2, 1]] |= J  # deal 2: position 2 (team B)
    blocks[(0, 0)] = b._replace(flags=flags)
    acc = StudyAccumulator([{}], TEAM_LINEUPS, 4, [], teams=True)
    acc.add_chunk(blocks)
    s = acc.summary()
    a = row(s, lineup="h,g,s,g", seat="team A")
    lo, hi = t_ci([0.5, 1.0, 0, 0])
    assert (a["p_joker_left"], a["p_joker_left_ci95_low"], a["p_joker_left_ci95_high"]) == pytest.approx(
        (3 / 8, max(lo, 0.0), min(hi, 1.0)), rel=1e-12)
    assert row(s, lineup="h,g,s,g", seat="team B")["p_joker_left"] == pytest.approx(1 / 8)


# ----------------------------------------------------------------------------------------------
# the spread of one player's round score (score_p10 / p50 / p90, share_over_100), from the score histogram


def test_score_spread_by_hand():
    """Policy b of the tiny study scores 20, 40 / -30, 100 / 7, 9 at threshold 51: sorted -30 7 9 20 40 100,
    p10 between -30 and 7 (h = 0.5: -11.5), median between 9 and 20 (14.5), p90 between 40 and 100 (70);
    100 is not above 100. Seat rows have no spread."""
    s = tiny().summary()
    b = row(s, opening_threshold=51, policy="b", seat="all")
    assert (b["score_p10"], b["score_p50"], b["score_p90"], b["share_over_100"]) == (-11.5, 14.5, 70.0, 0.0)
    a = row(s, opening_threshold=51, policy="a", seat="all")  # -60 5 10
    assert (a["score_p10"], a["score_p50"], a["score_p90"]) == (-47.0, 5.0, 9.0)
    assert list(np.quantile([20, 40, -30, 100, 7, 9], (0.1, 0.5, 0.9))) == pytest.approx([-11.5, 14.5, 70.0])
    seats = s[s["seat"] != "all"]
    assert seats[["score_p10", "score_p50", "score_p90", "share_over_100"]].isna().all().all()
    cols = list(s.columns)
    assert cols[cols.index("ci95_high") + 1:cols.index("p_out")] == ["score_p10", "score_p50", "score_p90",
                                                                      "share_over_100"]


def test_share_over_100_counts_the_rounds_above_100_points():
    """Two players, one policy: 101 and 150 are above 100, 100 and -20 are not: 2 of 4 player-rounds."""
    block = DealBlock(np.array([0, 1]), np.array([[0, 1], [1, 0]], dtype=np.int8),
                      np.array([[101, 100], [150, -20]], dtype=np.int32), np.zeros((2, 2), dtype=np.uint8),
                      np.array([5, 6], dtype=np.int16), np.zeros(2, dtype=np.uint8))
    acc = StudyAccumulator([{}], [("g", "g")], 2, [])
    acc.add_chunk({(0, 0): block})
    g = row(acc.summary(), seat="all")
    assert g["share_over_100"] == 0.5
    assert (g["score_p10"], g["score_p50"], g["score_p90"]) == pytest.approx(
        tuple(np.quantile([101, 100, 150, -20], (0.1, 0.5, 0.9))), abs=1e-9)


def test_score_spread_of_a_checkpoint_saved_before_it_and_of_merged_chunks():
    """The spread comes from the score histogram the checkpoints have always kept: a state without the
    counters added later (joker_*, team_margin_*) reports it, and chunks merged give the whole study's."""
    state = tiny().state()
    old = {k: v for k, v in state.items() if not k.startswith(("joker_", "team_margin"))}
    back = StudyAccumulator.from_state(old).summary()
    cols = ["score_p10", "score_p50", "score_p90", "share_over_100"]
    pd.testing.assert_frame_equal(back[cols], tiny().summary()[cols])
    one = StudyAccumulator([{"opening_threshold": 51}], [("a", "b", "b")], 3, ["opening_threshold"])
    one.add_block(0, 0, B51._replace(deal=DEALS[:1], policy=POLICY[:1], score=B51.score[:1], flags=B51.flags[:1],
                                     turns=B51.turns[:1], void=B51.void[:1]))
    two = StudyAccumulator([{"opening_threshold": 51}], [("a", "b", "b")], 3, ["opening_threshold"])
    two.add_block(0, 0, B51._replace(deal=DEALS[1:], policy=POLICY[1:], score=B51.score[1:], flags=B51.flags[1:],
                                     turns=B51.turns[1:], void=B51.void[1:]))
    b = row(one.merge(two).summary(), policy="b", seat="all")
    assert (b["score_p10"], b["score_p50"], b["score_p90"]) == (-11.5, 14.5, 70.0)
