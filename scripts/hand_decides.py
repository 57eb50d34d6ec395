#!/usr/bin/env python
"""How often does one Hand decide a match, against how often any round does? (results/single-matches)

The match studies report ``hand_decided``: the share of matches in which removing one round with a
Hand from the totals would change the winner or leave a tie for the lowest total.  That number
alone claims too much: removing *any* round changes the winner of many matches.  This script reads
the per-deal rows of a match study (``handsim simulate --rounds R --per-deal``) and gives, per
configuration, three measures of the same matches (RULES.md sections 6 and 7):

* ``hand_round_decisive``: of the rounds that ended in a Hand, the share whose removal changes the
  winner (or makes a tie for the lowest total);
* ``ordinary_round_decisive``: the same for the rounds that did not end in a Hand: the baseline;
* ``hand_bonus_decided``: the share of matches whose winner changes (or ties) when each Hand is
  scored as an ordinary going out instead: the player who went out scores ``-30`` instead of ``-60``
  and the others' scores are not doubled.  This measures only what a Hand adds over going out.

The matches that needed tie-break rounds (0.07% to 0.24% of them) are left out, as the per-deal
rows do not hold those rounds; on the rest the winner is the lowest total of the regular rounds,
totals without a round (or with the Hands scored plainly) that tie for the lowest count as a
change, and ``hand_decided`` recomputed from the rows equals the study's own, match by match
(checked: the script stops if it does not).  Shares carry Wilson 95%
intervals (the Hand and ordinary rounds of one match are not independent, so the round shares'
intervals are somewhat narrow).

Usage::

    handsim simulate --rounds 9 --standings last_loses --threshold 51 --threshold 71 --threshold 91 \\
        --policy greedy --players 4 --deals 40000 --seed 20261201 --per-deal --out p4
    python scripts/hand_decides.py p4 [p3 ...] --out hand_decides.csv
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from handsim.stats.intervals import share_interval

COLS = ["lineup", "position", "score", "hand", "match", "round", "tiebreaks", "hand_decided",
        "opening_threshold"]
OUT_SCORE = -30  # what going out scores (RULES.md section 6), unless the study's rules say otherwise


def winner(totals: np.ndarray) -> np.ndarray:
    """The position with the lowest total of each match (shape (M, P) -> (M,)), -1 on a tie for it."""
    low = totals.min(axis=1, keepdims=True)
    tied = (totals == low).sum(axis=1) > 1
    return np.where(tied, -1, totals.argmin(axis=1))


def measure(g: pd.DataFrame, rounds: int, out_score: int = OUT_SCORE, doubles: bool = True) -> dict:
    """The three measures for one configuration and line-up (rows of every seat of every round)."""
    g = g.sort_values(["match", "round", "position"], kind="stable")
    tied = g.loc[g["round"] == rounds - 1].groupby("match")["tiebreaks"].first()
    all_matches = len(tied)
    g = g[g["match"].isin(tied.index[tied == 0])]
    matches = g["match"].nunique()
    players = g["position"].nunique()
    shape = (matches, rounds, players)
    score = g["score"].to_numpy(np.int64).reshape(shape)
    hand = g["hand"].to_numpy().astype(bool).reshape(shape)
    hand_round = hand.any(axis=2)                                   # (M, R)
    totals = score.sum(axis=1)                                      # (M, P)
    # the match's winner, after its tie-break rounds where the regular rounds left a tie
    last = g[g["round"] == rounds - 1]
    w0 = winner(totals)
    decisive = np.stack([winner(totals - score[:, r, :]) != w0 for r in range(rounds)], axis=1)  # (M, R)
    # each Hand scored as an ordinary going out: -30 for the player out, the others not doubled
    plain = np.where(hand, out_score, np.where(hand_round[:, :, None] & doubles, score // 2, score))
    bonus_decided = winner(plain.sum(axis=1)) != w0
    # the kernel's own measure, recomputed: a check that these rows are read the right way
    own = (decisive & hand_round).any(axis=1)
    kernel = last.drop_duplicates("match")["hand_decided"].to_numpy() == 1
    if not np.array_equal(own, kernel):
        raise SystemExit(f"recomputed hand_decided differs from the study's in {int((own != kernel).sum())} matches")
    row = {"matches": matches, "tiebreak_matches_left_out": all_matches - matches, "players": players, "rounds": rounds,
           "hand_rounds": int(hand_round.sum()), "ordinary_rounds": int((~hand_round).sum())}
    for name, k, n in (("hand_decided", int(own.sum()), matches),
                       ("hand_round_decisive", int((decisive & hand_round).sum()), int(hand_round.sum())),
                       ("ordinary_round_decisive", int((decisive & ~hand_round).sum()), int((~hand_round).sum())),
                       ("hand_bonus_decided", int(bonus_decided.sum()), matches)):
        p, lo, hi = share_interval(k, n)
        row.update({name: p, f"{name}_ci95_low": lo, f"{name}_ci95_high": hi})
    return row


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path, help="study folders written with --rounds R --per-deal")
    ap.add_argument("--out", type=Path, default=None, help="CSV to write (new file only); default: print")
    a = ap.parse_args(argv)
    rows = []
    for run in a.runs:
        info = json.loads((run / "run.json").read_text(encoding="utf-8"))
        rounds = int(info["spec"]["rounds"]) if "rounds" in info.get("spec", {}) else None
        parts = sorted((run / "per_deal").glob("part-*.parquet"))
        if not parts:
            sys.exit(f"{run}/per_deal has no Parquet files: run the study with --per-deal")
        df = pd.concat([pd.read_parquet(p, columns=COLS) for p in parts], ignore_index=True)
        rules = info.get("rules", {})
        if rules.get("partnership"):
            sys.exit(f"{run}: a partnership study; this script reads single players' matches")
        rounds = rounds or int(df["round"].max()) + 1
        out_score, doubles = int(rules.get("out_score", OUT_SCORE)), bool(rules.get("hand_doubles_others", True))
        names = info.get("spec", {}).get("lineups") or []
        for (lineup, thr), g in df.groupby(["lineup", "opening_threshold"], sort=True):
            name = names[int(lineup)] if str(lineup).isdigit() and int(lineup) < len(names) else lineup
            rows.append({"run": run.name, "lineup": name, "opening_threshold": int(thr),
                         **measure(g, rounds, out_score, doubles)})
    table = pd.DataFrame(rows)
    if a.out is None:
        print(table.to_string(index=False))
        return 0
    if a.out.exists():
        sys.exit(f"{a.out} exists: give a new file")
    tmp = a.out.with_name(a.out.name + ".tmp")
    table.to_csv(tmp, index=False)
    tmp.replace(a.out)
    print(f"wrote {a.out} ({len(table)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
