#!/usr/bin/env python3
"""The card-reading field against the greedy baseline of results/classic-thresholds.

Reads the tables and checkpoints of ``results/classic-thresholds`` (greedy, joker penalty 15) and
``results/classic-thresholds/card-reader`` (card-reader, joker penalty 15; both seed 20261130)
and writes ``results/classic-thresholds/card-reader/comparison.csv``: one row per field (the
policy at the other seats), threshold and statistic, with its value and 95% CI.  Statistics:

* ``score``: mean score per player-round of the all-X table; ``score_vs_51``: its paired change
  from threshold 51 (same deals); ``seat0`` .. ``seat3``: the all-X table's mean score by seat
  (0 = the starter); ``seat_gap``: seat 3 minus seat 0 (no interval: the accumulator keeps no
  paired seat difference; seats differ when their intervals do not overlap);
* ``p_unopened``, ``p_unopened_vs_51``, ``p_hand`` (per player-round), ``p_hand_round`` (share of
  rounds that end in a Hand: four times the per-player share, one Hand at most per round);
* ``turns`` (mean round length, all players' turns together, Student-t over rounds, from the
  checkpoint's histogram), ``void`` (share of void rounds, Wilson);
* with one seat switched to hold-hand: ``switch_cost`` (that seat's paired change, hold-hand minus
  X, same deals: lineups.csv), ``versus`` (hold-hand minus X at the same table: versus.csv),
  ``hold_score``, ``hold_p_hand``, ``hold_p_unopened`` (the hold-hand player's own),
  ``mates_score`` (its three table-mates) and ``mates_change`` (their score minus that of the
  all-X table, an unpaired interval: conservative, as the same deals make the two positively
  correlated), ``table_p_hand_round`` (share of rounds with a Hand at that table: the hold-hand
  player's share plus three times the mates'; interval the sum of the half-widths, conservative).

Run from the repository root: ``python scripts/classic_thresholds_card_reader.py``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from handsim.stats import StudyAccumulator

ROOT = Path("results/classic-thresholds")
FIELDS = {"greedy": ROOT, "card-reader": ROOT / "card-reader"}
THRESHOLDS = (51, 71, 91)


def _turns(folder: Path, lineup: str) -> dict[int, tuple]:
    with np.load(folder / "checkpoint.npz") as z:
        acc = StudyAccumulator.from_state({k: z[k] for k in z.files if not k.startswith("__")})
    h = acc.histograms()["turns"]
    if "joker_penalty" in h:
        h = h[h["joker_penalty"] == 15]
    h = h[h["lineup"] == lineup]
    out = {}
    for t in THRESHOLDS:
        g = h[h["opening_threshold"] == t]
        n = int(g["rounds"].sum())
        x = g["turns"].to_numpy(dtype=float)
        w = g["rounds"].to_numpy(dtype=float)
        mean = float((x * w).sum() / n)
        sd = math.sqrt(float((w * (x - mean) ** 2).sum()) / (n - 1))
        half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
        k = int(g["void_rounds"].sum())
        ci = stats.binomtest(k, n).proportion_ci(method="wilson")
        out[t] = ((mean, mean - half, mean + half), (k / n, ci.low, ci.high))
    return out


def main() -> int:
    rows = []

    def put(field, t, stat, v, lo=math.nan, hi=math.nan, unit=""):
        rows.append({"field": field, "opening_threshold": t, "statistic": stat, "value": v, "ci95_low": lo,
                     "ci95_high": hi, "unit": unit})

    for field, folder in FIELDS.items():
        s = pd.read_csv(folder / "summary.csv")
        p = pd.read_csv(folder / "paired.csv")
        lp = pd.read_csv(folder / "lineups.csv")
        vs = pd.read_csv(folder / "versus.csv")
        if "joker_penalty" in s:
            s, lp, vs = (d[d["joker_penalty"] == 15] for d in (s, lp, vs))
            p = p[(p["parameter"] == "opening_threshold") & (p["joker_penalty"] == 15)]
        table = ",".join([field] * 4)
        mixed = ",".join(["hold-hand"] + [field] * 3)
        turns = _turns(folder, table)
        for t in THRESHOLDS:
            st = s[s["opening_threshold"] == t]
            a = st[(st["lineup"] == table) & (st["seat"] == "all")].iloc[0]
            put(field, t, "score", a["mean_score"], a["ci95_low"], a["ci95_high"], "points per player-round")
            put(field, t, "p_unopened", a["p_unopened"], a["p_unopened_ci95_low"], a["p_unopened_ci95_high"], "share")
            put(field, t, "p_hand", a["p_hand"], a["p_hand_ci95_low"], a["p_hand_ci95_high"], "share of player-rounds")
            put(field, t, "p_hand_round", 4 * a["p_hand"], 4 * a["p_hand_ci95_low"], 4 * a["p_hand_ci95_high"],
                "share of rounds")
            if t != 51:
                d = p[(p["lineup"] == table) & (p["from_value"] == 51) & (p["to_value"] == t)].iloc[0]
                put(field, t, "score_vs_51", d["mean_diff"], d["ci95_low"], d["ci95_high"], "points per player-round")
                put(field, t, "p_unopened_vs_51", d["p_unopened_diff"], d["p_unopened_diff_ci95_low"],
                    d["p_unopened_diff_ci95_high"], "share")
            seats = st[(st["lineup"] == table) & st["seat"].astype(str).str.isdigit()].sort_values("seat")
            for r in seats.to_dict("records"):
                put(field, t, f"seat{r['seat']}", r["mean_score"], r["ci95_low"], r["ci95_high"], "points per player-round")
            put(field, t, "seat_gap", seats["mean_score"].iloc[-1] - seats["mean_score"].iloc[0], unit="points per player-round")
            (m, lo, hi), (vr, vlo, vhi) = turns[t]
            put(field, t, "turns", m, lo, hi, "turns per round")
            put(field, t, "void", vr, vlo, vhi, "share of rounds")
            c = lp[(lp["opening_threshold"] == t) & (lp["lineup_a"] == table) & (lp["lineup_b"] == mixed)].iloc[0]
            put(field, t, "switch_cost", -c["mean_diff"], -c["ci95_high"], -c["ci95_low"], "points per player-round")
            v = vs[(vs["opening_threshold"] == t) & (vs["lineup"] == mixed)].iloc[0]
            put(field, t, "versus", v["mean_diff"], v["ci95_low"], v["ci95_high"], "points per player-round")
            h = st[(st["lineup"] == mixed) & (st["policy"] == "hold-hand") & (st["seat"] == "all")].iloc[0]
            g = st[(st["lineup"] == mixed) & (st["policy"] == field) & (st["seat"] == "all")].iloc[0]
            put(field, t, "hold_score", h["mean_score"], h["ci95_low"], h["ci95_high"], "points per player-round")
            put(field, t, "hold_p_hand", h["p_hand"], h["p_hand_ci95_low"], h["p_hand_ci95_high"], "share of player-rounds")
            put(field, t, "hold_p_unopened", h["p_unopened"], h["p_unopened_ci95_low"], h["p_unopened_ci95_high"], "share")
            put(field, t, "mates_score", g["mean_score"], g["ci95_low"], g["ci95_high"], "points per player-round")
            half = math.hypot((g["ci95_high"] - g["ci95_low"]) / 2, (a["ci95_high"] - a["ci95_low"]) / 2)
            dm = g["mean_score"] - a["mean_score"]
            put(field, t, "mates_change", dm, dm - half, dm + half, "points per player-round")
            ph = h["p_hand"] + 3 * g["p_hand"]
            half = (h["p_hand_ci95_high"] - h["p_hand_ci95_low"]) / 2 + 3 * (g["p_hand_ci95_high"] - g["p_hand_ci95_low"]) / 2
            put(field, t, "table_p_hand_round", ph, ph - half, ph + half, "share of rounds")
    out = pd.DataFrame(rows)
    path = FIELDS["card-reader"] / "comparison.csv"
    out.to_csv(path, index=False)
    print(f"wrote {path} ({len(out)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
