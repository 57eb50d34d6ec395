#!/usr/bin/env python3
"""The tables of results/joker-penalty/ from its run (handsim batch results/joker-penalty/study.toml: DIR/joker-penalty).

Writes (and prints) ``DIR/tables.csv`` and ``DIR/best_joker_play.csv``:

* ``tables.csv``: per joker penalty and per table where every seat plays the same joker play
  (0, 1, 2): mean score per player-round (t 95% CI), P(Hand) per round (four times the
  per-player share: at most one Hand per round), P(joker left) and P(unopened) per player-round,
  round length in turns (all players' turns; t 95% CI from the checkpoint's histogram), and the
  paired effect of raising the penalty from 15 to 30 on the same deals (score, P(Hand) per round,
  P(joker left), P(unopened); 95% CIs);
* ``best_joker_play.csv``: per joker penalty, one player's joker play among three default
  players: the paired difference of that seat's score against playing the default (line-ups
  differing in that one seat, same deals; points per player-round, 95% CI), and its own P(joker
  left).

Usage: ``python scripts/joker_penalty.py DIR``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from handsim.policies import split_lineup


def turns(z, c: int, l: int) -> tuple[float, float, float]:
    h = z["turns_hist"][c, l]
    x = np.arange(len(h))
    n = h.sum()
    m = float((x * h).sum() / n)
    sd = float(np.sqrt(((x - m) ** 2 * h).sum() / (n - 1)))
    half = float(stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n))
    return m, m - half, m + half


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/joker_penalty.py DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    info = json.loads((out / "run.json").read_text())
    lineups = info["spec"]["lineups"]
    penalties = dict(info["spec"]["vary"])["joker_penalty"]
    summ = pd.read_csv(out / "summary.csv")
    paired = pd.read_csv(out / "paired.csv")
    lu = pd.read_csv(out / "lineups.csv")
    z = np.load(out / "checkpoint.npz")
    allrows = summ[summ["seat"].astype(str) == "all"]
    tables, best = [], []
    for c, pen in enumerate(penalties):
        for l, lineup in enumerate(lineups):
            pols = split_lineup(lineup)
            if len(set(pols)) != 1:
                continue
            r = allrows[(allrows["joker_penalty"] == pen) & (allrows["lineup"] == lineup)].iloc[0]
            t = turns(z, c, l)
            row = dict(joker_penalty=pen, table=pols[0], mean_score=r["mean_score"], ci95_low=r["ci95_low"],
                       ci95_high=r["ci95_high"], p_hand_round=4 * r["p_hand"], p_hand_round_lo=4 * r["p_hand_ci95_low"],
                       p_hand_round_hi=4 * r["p_hand_ci95_high"], p_joker_left=r["p_joker_left"],
                       p_joker_left_lo=r["p_joker_left_ci95_low"], p_joker_left_hi=r["p_joker_left_ci95_high"],
                       p_unopened=r["p_unopened"], p_unopened_lo=r["p_unopened_ci95_low"],
                       p_unopened_hi=r["p_unopened_ci95_high"], turns=t[0], turns_lo=t[1], turns_hi=t[2])
            if c == len(penalties) - 1:
                p = paired[(paired["lineup"] == lineup) & (paired["parameter"] == "joker_penalty")].iloc[0]
                row.update(d_score=p["mean_diff"], d_score_lo=p["ci95_low"], d_score_hi=p["ci95_high"],
                           d_p_hand_round=4 * p["p_hand_diff"], d_p_hand_round_lo=4 * p["p_hand_diff_ci95_low"],
                           d_p_hand_round_hi=4 * p["p_hand_diff_ci95_high"],
                           d_p_joker_left=p["p_joker_left_diff"], d_p_joker_left_lo=p["p_joker_left_diff_ci95_low"],
                           d_p_joker_left_hi=p["p_joker_left_diff_ci95_high"],
                           d_p_unopened=p["p_unopened_diff"], d_p_unopened_lo=p["p_unopened_diff_ci95_low"],
                           d_p_unopened_hi=p["p_unopened_diff_ci95_high"])
            tables.append(row)
        # one seat: line-ups that differ from an all-same line-up in position 1 only
        for _, s in lu[lu["joker_penalty"] == pen].iterrows():
            a, b = split_lineup(s["lineup_a"]), split_lineup(s["lineup_b"])
            if len(set(a)) == 1:  # a: all default, b: one seat switched
                base, other, sign = a, b, -1.0  # lineups.csv: a minus b
            elif len(set(b)) == 1:
                base, other, sign = b, a, 1.0
            else:
                continue
            pos = int(s["position"]) - 1
            me = allrows[(allrows["joker_penalty"] == pen) & (allrows["lineup"] == ",".join(other))
                         & (allrows["policy"] == other[pos])]
            d = sign * s["mean_diff"]
            lo, hi = sorted((sign * s["ci95_low"], sign * s["ci95_high"]))
            best.append(dict(joker_penalty=pen, player=other[pos], others=base[0], switch_minus_default=d,
                             ci95_low=lo, ci95_high=hi,
                             p_joker_left=me["p_joker_left"].iloc[0] if len(me) else np.nan))
    tables = pd.DataFrame(tables)
    best = pd.DataFrame(best)
    tables.to_csv(out / "tables.csv", index=False, float_format="%.6g")
    best.to_csv(out / "best_joker_play.csv", index=False, float_format="%.6g")
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 60)
    print(tables.T.to_string())
    print(best.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
