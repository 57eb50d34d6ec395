#!/usr/bin/env python3
"""The tables of results/hold-hand-bailout/ from its runs (handsim batch results/hold-hand-bailout/study.toml).

For every field (``DIR/vs-FIELD``) and opening threshold it reads the tuning run (``tune-T``:
tune.csv, run.json) and the match run (``matches-T``: summary.csv, lineups.csv) and writes
``DIR/bailout.csv`` and ``DIR/tables.csv`` (and prints them):

* ``bailout.csv``: the best bail-out on the tuning deals and its confirmation on fresh deals
  against the defaults (points per player-round, paired 95% CI); the opponents' mean score with
  the best candidate and with the defaults (tuning deals, t 95% CI); and, from 9-round matches
  with the tuned player, the cost of switching one seat from the field policy to it (points per
  round, match win and lose rates in percentage points, paired 95% CIs), its own match win and
  lose rates (Wilson 95% CIs) and the opponents' cost: their mean score per round with one tuned
  player at the table minus the all-field table's (conservative 95% CI: the sum of the two
  half-widths, the two line-ups share their deals);
* ``tables.csv``: the table with 0, 1, 2, 3 tuned hold-hand players: each policy's mean score per
  round and match win / lose rates with 95% CIs.

Usage: ``python scripts/hold_hand_bailout.py DIR``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from handsim.policies import split_lineup


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/hold_hand_bailout.py DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    rows, tables = [], []
    for field_dir in sorted(out.glob("vs-*")):
        field = field_dir.name[3:]
        for tune in sorted(field_dir.glob("tune-*")):
            T = int(tune.name.split("-")[1])
            info = json.loads((tune / "run.json").read_text())
            c = info["confirm"]
            tcsv = pd.read_csv(tune / "tune.csv")
            best = tcsv[tcsv["is_best"]].iloc[0]
            default = tcsv[tcsv["is_default"]].iloc[0]
            row = dict(field=field, opening_threshold=T, candidates=len(tcsv), tuning_deals=int(best["deals"]),
                       best=c["best"], bail_turn=int(best["bail_turn"]), bail_opponent_cards=int(best["bail_opponent_cards"]),
                       tuning_diff=best["diff_vs_default"], tuning_diff_lo=best["diff_ci95_low"],
                       tuning_diff_hi=best["diff_ci95_high"],
                       confirm_deals=c["deals"], confirm_diff=c["diff"], confirm_diff_lo=c["diff_ci95_low"],
                       confirm_diff_hi=c["diff_ci95_high"],
                       opponents_best=best["opponents_mean_score"], opponents_best_lo=best["opponents_ci95_low"],
                       opponents_best_hi=best["opponents_ci95_high"],
                       opponents_default=default["opponents_mean_score"],
                       opponents_default_lo=default["opponents_ci95_low"],
                       opponents_default_hi=default["opponents_ci95_high"])
            m = field_dir / f"matches-{T}"
            if (m / "summary.csv").is_file():
                s = pd.read_csv(m / "summary.csv")
                s = s[s["seat"].astype(str) == "all"]
                lu = pd.read_csv(m / "lineups.csv")
                lineups = list(dict.fromkeys(s["lineup"]))
                base = lineups[0]  # the all-field line-up (--policy FIELD comes first)
                one = [x for x in lineups if split_lineup(x).count(field) == len(split_lineup(x)) - 1][0]
                sw = lu[(lu["lineup_a"] == base) & (lu["lineup_b"] == one)].iloc[0]
                # lineups.csv: first line-up minus second = field minus tuned: turn it round
                row.update(matches=int(sw["matches"]), switch_score=-sw["mean_diff"], switch_score_lo=-sw["ci95_high"],
                           switch_score_hi=-sw["ci95_low"], switch_win_pp=-100 * sw["match_win_diff"],
                           switch_win_pp_lo=-100 * sw["match_win_diff_ci95_high"],
                           switch_win_pp_hi=-100 * sw["match_win_diff_ci95_low"],
                           switch_lose_pp=-100 * sw["match_lose_diff"],
                           switch_lose_pp_lo=-100 * sw["match_lose_diff_ci95_high"],
                           switch_lose_pp_hi=-100 * sw["match_lose_diff_ci95_low"])
                hh = s[(s["lineup"] == one) & (s["policy"] != field)].iloc[0]
                row.update(win_rate=hh["match_win_rate"], win_lo=hh["match_win_rate_ci95_low"],
                           win_hi=hh["match_win_rate_ci95_high"], lose_rate=hh["match_lose_rate"],
                           lose_lo=hh["match_lose_rate_ci95_low"], lose_hi=hh["match_lose_rate_ci95_high"])
                f0 = s[(s["lineup"] == base)].iloc[0]
                f1 = s[(s["lineup"] == one) & (s["policy"] == field)].iloc[0]
                d = f1["mean_score"] - f0["mean_score"]
                h = (f1["ci95_high"] - f1["ci95_low"]) / 2 + (f0["ci95_high"] - f0["ci95_low"]) / 2
                row.update(opponents_cost=d, opponents_cost_lo=d - h, opponents_cost_hi=d + h)
                for lineup in lineups:
                    k = len(split_lineup(lineup)) - split_lineup(lineup).count(field)
                    for _, r in s[s["lineup"] == lineup].iterrows():
                        tables.append(dict(field=field, opening_threshold=T, hold_hand_players=k, policy=r["policy"],
                                           mean_score=r["mean_score"], ci95_low=r["ci95_low"], ci95_high=r["ci95_high"],
                                           match_win_rate=r["match_win_rate"],
                                           win_ci95_low=r["match_win_rate_ci95_low"],
                                           win_ci95_high=r["match_win_rate_ci95_high"],
                                           match_lose_rate=r["match_lose_rate"],
                                           lose_ci95_low=r["match_lose_rate_ci95_low"],
                                           lose_ci95_high=r["match_lose_rate_ci95_high"], p_hand=r["p_hand"]))
            rows.append(row)
    bail = pd.DataFrame(rows)
    tab = pd.DataFrame(tables).sort_values(["field", "opening_threshold", "hold_hand_players", "policy"])
    bail.to_csv(out / "bailout.csv", index=False, float_format="%.6g")
    tab.to_csv(out / "tables.csv", index=False, float_format="%.6g")
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 60)
    print(bail.T.to_string())
    print(tab.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
