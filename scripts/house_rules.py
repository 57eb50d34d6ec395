#!/usr/bin/env python3
"""The table of results/house-rules/ from its runs (handsim batch results/house-rules/study.toml).

Each sub-folder but ``qahwa`` is one ``handsim simulate --vary KEY=classic,switched`` run: its
``paired.csv`` gives the switch's effect on the same deals.  Per switch this writes to
``DIR/house_rules.csv`` (and prints) the classic and the switched value of:

* mean score, points per player-round (t 95% CI), and the paired difference (95% CI);
* seat balance: the last seat's mean score minus the starter's (seat 3 - seat 0, points per
  player-round; conservative 95% CI: the sum of the two half-widths);
* P(Hand) per round (four times the per-player share: at most one Hand per round) and its
  paired difference;
* P(unopened) per player-round and its paired difference; P(joker left) per player-round;
* round length in turns (all players' turns together; t 95% CI from the checkpoint's histogram);
* void rate, share of rounds (Wilson 95% CI).

The Qahwa preset (``qahwa/``: 4 jokers, another deck) is set against the classic configuration of
the first run without pairing: its differences carry conservative intervals (sum of half-widths).

Usage: ``python scripts/house_rules.py DIR``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats


def wilson(k: int, n: int) -> tuple[float, float, float]:
    ci = stats.binomtest(int(k), int(n)).proportion_ci(0.95, method="wilson")
    return k / n, ci.low, ci.high


def turns_and_void(run: Path, c: int, l: int = 0) -> dict:
    z = np.load(run / "checkpoint.npz")
    h, v = z["turns_hist"][c, l], z["void_hist"][c, l]
    x = np.arange(len(h))
    n = int(h.sum())
    m = float((x * h).sum() / n)
    sd = float(np.sqrt(((x - m) ** 2 * h).sum() / (n - 1)))
    half = float(stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n))
    vr = wilson(int(v.sum()), n)
    return dict(turns=m, turns_lo=m - half, turns_hi=m + half, void=vr[0], void_lo=vr[1], void_hi=vr[2])


def levels(run: Path, summ: pd.DataFrame, c: int, cond: pd.Series) -> dict:
    rows = summ[cond]
    a = rows[rows["seat"].astype(str) == "all"].iloc[0]
    s0 = rows[rows["seat"].astype(str) == "0"].iloc[0]
    s3 = rows[rows["seat"].astype(str) == "3"].iloc[0]
    h0 = (s0["ci95_high"] - s0["ci95_low"]) / 2
    h3 = (s3["ci95_high"] - s3["ci95_low"]) / 2
    gap = s3["mean_score"] - s0["mean_score"]
    P = 4
    return dict(mean_score=a["mean_score"], score_lo=a["ci95_low"], score_hi=a["ci95_high"],
                seat_gap=gap, seat_gap_lo=gap - h0 - h3, seat_gap_hi=gap + h0 + h3,
                p_hand_round=P * a["p_hand"], p_hand_round_lo=P * a["p_hand_ci95_low"],
                p_hand_round_hi=P * a["p_hand_ci95_high"],
                p_unopened=a["p_unopened"], p_unopened_lo=a["p_unopened_ci95_low"],
                p_unopened_hi=a["p_unopened_ci95_high"],
                p_joker_left=a["p_joker_left"], p_joker_left_lo=a["p_joker_left_ci95_low"],
                p_joker_left_hi=a["p_joker_left_ci95_high"],
                **turns_and_void(run, c))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/house_rules.py DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    rows = []
    base = None
    for run in sorted(p for p in out.iterdir() if (p / "run.json").is_file() and p.name != "qahwa"):
        info = json.loads((run / "run.json").read_text())
        key, values = info["spec"]["vary"][0]
        summ = pd.read_csv(run / "summary.csv")
        paired = pd.read_csv(run / "paired.csv").iloc[0]
        lv = [levels(run, summ, c, summ[key].astype(str) == str(v)) for c, v in enumerate(values)]
        row = dict(switch=run.name, option=key, classic=values[0], switched=values[1], deals=info["deals"])
        for tag, d in (("classic", lv[0]), ("switched", lv[1])):
            row.update({f"{k}_{tag}": v for k, v in d.items()})
        row.update(score_diff=paired["mean_diff"], score_diff_lo=paired["ci95_low"], score_diff_hi=paired["ci95_high"],
                   p_hand_round_diff=4 * paired["p_hand_diff"], p_hand_round_diff_lo=4 * paired["p_hand_diff_ci95_low"],
                   p_hand_round_diff_hi=4 * paired["p_hand_diff_ci95_high"],
                   p_unopened_diff=paired["p_unopened_diff"], p_unopened_diff_lo=paired["p_unopened_diff_ci95_low"],
                   p_unopened_diff_hi=paired["p_unopened_diff_ci95_high"], paired=True)
        rows.append(row)
        if base is None:
            base = lv[0]
    q = out / "qahwa"
    if (q / "run.json").is_file() and base is not None:
        info = json.loads((q / "run.json").read_text())
        summ = pd.read_csv(q / "summary.csv")
        lq = levels(q, summ, 0, pd.Series(True, index=summ.index))
        row = dict(switch="qahwa", option="preset", classic="classic", switched="qahwa", deals=info["deals"])
        row.update({f"{k}_classic": v for k, v in base.items()})
        row.update({f"{k}_switched": v for k, v in lq.items()})
        for name, lo, hi in (("mean_score", "score_lo", "score_hi"), ("p_hand_round", "p_hand_round_lo", "p_hand_round_hi"),
                             ("p_unopened", "p_unopened_lo", "p_unopened_hi")):
            d = lq[name] - base[name]
            h = (lq[hi] - lq[lo]) / 2 + (base[hi] - base[lo]) / 2
            stem = "score" if name == "mean_score" else name
            row[f"{stem}_diff"], row[f"{stem}_diff_lo"], row[f"{stem}_diff_hi"] = d, d - h, d + h
        row["paired"] = False
        rows.append(row)
    table = pd.DataFrame(rows)
    table.to_csv(out / "house_rules.csv", index=False, float_format="%.6g")

    def f(v, lo, hi, pct=False, nd=1):
        k = 100 if pct else 1
        return f"{k * v:.{nd}f} ({k * lo:.{nd}f} to {k * hi:.{nd}f})"

    lines = ["| switch | mean score | Δ score | seat 3 − seat 0 | P(Hand) per round % | Δ P(Hand) pp | "
             "P(unopened) % | Δ P(unopened) pp | round length (turns) | void % | P(joker left) % |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        for tag in ("classic", "switched"):
            g = lambda k: (r[f"{k}_{tag}"], r[f"{k}_lo_{tag}"], r[f"{k}_hi_{tag}"])  # noqa: E731
            sc = (r[f"mean_score_{tag}"], r[f"score_lo_{tag}"], r[f"score_hi_{tag}"])
            name = f"{r['switch']}: {r['option']} = {r[tag]}"
            d_s = f(r["score_diff"], r["score_diff_lo"], r["score_diff_hi"], nd=2) if tag == "switched" else ""
            d_h = f(r["p_hand_round_diff"], r["p_hand_round_diff_lo"], r["p_hand_round_diff_hi"], True, 2) if tag == "switched" else ""
            d_u = f(r["p_unopened_diff"], r["p_unopened_diff_lo"], r["p_unopened_diff_hi"], True, 2) if tag == "switched" else ""
            lines.append(f"| {name} | {f(*sc)} | {d_s} | {f(*g('seat_gap'))} | {f(*g('p_hand_round'), True, 2)} | {d_h} | "
                         f"{f(*g('p_unopened'), True)} | {d_u} | {f(*g('turns'))} | {f(*g('void'), True, 3)} | "
                         f"{f(*g('p_joker_left'), True)} |")
    (out / "house_rules.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
