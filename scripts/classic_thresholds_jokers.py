#!/usr/bin/env python3
"""Who ends a round with a joker in hand: the check behind the joker-penalty finding of
results/classic-thresholds (writes results/classic-thresholds/jokers.csv).

The study's summary gives P(joker left) per player-round; the explanation of the joker-penalty
effect ("more players end the round unopened with a joker still in hand") also needs it split by
opened / unopened, which only the per-deal rows give.  This plays the study's all-greedy line-up
again on its first DEALS deals (same seed, so the same deals; joker penalty 15: no policy reads
it, so play is the same under 30) with --per-deal into a temporary folder and tabulates, per
opening threshold, P(joker left | unopened), P(joker left | opened) and the share of the
joker-left player-rounds that were unopened, with Wilson 95% CIs.

Usage: ``python scripts/classic_thresholds_jokers.py [DEALS]`` (default 50,000: 200,000
player-rounds per threshold, a CI half-width of at most 0.3 percentage points on the
conditional shares).
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
from scipy import stats


def wilson(k: int, n: int) -> tuple[float, float, float]:
    ci = stats.binomtest(int(k), int(n)).proportion_ci(0.95, method="wilson")
    return k / n, ci.low, ci.high


def main() -> int:
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        subprocess.run(["handsim", "simulate", "--threshold", "51", "--threshold", "71", "--threshold", "91",
                        "--policy", "greedy", "--players", "4", "--deals", str(deals), "--seed", "20261130",
                        "--jobs", "1", "--per-deal", "--no-progress", "-q", "--out", str(out)], check=True)
        df = pd.concat([pd.read_parquet(p, columns=["opening_threshold", "opened", "joker_left"])
                        for p in sorted((out / "per_deal").glob("part-*.parquet"))], ignore_index=True)
    rows = []
    for t, g in df.groupby("opening_threshold"):
        un, op, jl = g[~g["opened"]], g[g["opened"]], g[g["joker_left"]]
        a = wilson(int(un["joker_left"].sum()), len(un))
        b = wilson(int(op["joker_left"].sum()), len(op))
        c = wilson(int((~jl["opened"]).sum()), len(jl))
        d = wilson(int(g["joker_left"].sum()), len(g))
        rows.append(dict(opening_threshold=int(t), player_rounds=len(g),
                         p_joker_left=d[0], p_joker_left_ci95_low=d[1], p_joker_left_ci95_high=d[2],
                         p_joker_left_if_unopened=a[0], unopened_ci95_low=a[1], unopened_ci95_high=a[2],
                         p_joker_left_if_opened=b[0], opened_ci95_low=b[1], opened_ci95_high=b[2],
                         share_unopened_of_joker_left=c[0], share_ci95_low=c[1], share_ci95_high=c[2]))
    table = pd.DataFrame(rows)
    table.to_csv(root / "results" / "classic-thresholds" / "jokers.csv", index=False, float_format="%.6g")
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
