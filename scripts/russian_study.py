#!/usr/bin/env python
"""The committed Russian Hand study (``results/russian/``, RULES.md section 8): 2, 3, 4 and 5
players, the three policies.

For each number of players P it runs one ``handsim simulate --preset russian`` study into
``OUT/pP/`` with seven line-ups on the same games (common random numbers): greedy at every seat,
patient at every seat, one patient player among greedy players at each of three settings of
patience (``hold_max`` = 1, 2, 3: it holds back plays of up to that many cards while the stock
lasts), the ``hold_max = 2`` player made wary (``wary_at = 3``: it plays anyway once another player
holds 3 cards or fewer), and one random player among greedy players.
Then it gathers the headline figures of the four studies, each with its 95% confidence
interval, into ``OUT/headline.csv``:

* ``first_seat_edge``: the win rate of the first player (seat 0) minus the fair share 1/P, all
  greedy (``seats.csv``);
* ``last_seat_win_rate``, ``last_minus_first_seat``: the last seat to move in a round of turns,
  and its win rate minus the first seat's on the same games (normal interval of a difference of two
  shares of one multinomial), all greedy;
* ``stock_out_rate``: the share of games ended by an empty stock, all greedy and all patient;
* ``mean_turns``: game length in turns, all greedy and all patient;
* ``patience_pays`` (``hold_max = 1``), ``patience2_pays``, ``patience3_pays``,
  ``patience2_wary_pays``: the win rate of line-up position 1 when it plays that patient player
  instead of greedy against greedy players, paired on the same games (``lineups.csv``); the same
  for random (``random_instead_of_greedy``).

With ``--sweep`` it runs the patience sweep instead, into ``OUT/sweep-pP/``: greedy at every
seat, and one patient player among greedy players at each ``hold_max`` of :data:`SWEEP_HOLD`,
on the same games (the first ``--deals`` games of the same seed, so the sweep's ``hold_max`` 1 to
3 replay games of the main study); ``OUT/patience_sweep.csv`` gathers the paired win-rate
difference (patient minus greedy at the switched position) and the cards left, with 95% CIs.

A study folder that holds a finished study is kept; an interrupted one is resumed.  Usage::

    python scripts/russian_study.py --deals 36000 --jobs 1 --out results/russian
    python scripts/russian_study.py --sweep --deals 20000 --jobs 1 --out results/russian
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

PLAYERS = (2, 3, 4, 5)
SEED = 2026


#: The one-switched players of the study, each against greedy players, and the headline quantity
#: that measures the switch.
SWITCHED = (("patient", "patience_pays"), ("patient:hold_max=2", "patience2_pays"),
            ("patient:hold_max=3", "patience3_pays"), ("patient:hold_max=2,wary_at=3", "patience2_wary_pays"),
            ("random", "random_instead_of_greedy"))


#: The patience sweep's settings of ``hold_max`` (cards).
SWEEP_HOLD = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20)


def sweep_lineups(P: int) -> list[str]:
    """The sweep's line-ups for ``P`` players: all greedy, then one ``patient:hold_max=k`` player
    among greedy players for each k of :data:`SWEEP_HOLD`."""
    # hold_max = 1 is the default: handsim labels that player plain "patient"
    return ["greedy," * (P - 1) + "greedy"] + [("patient" if k == 1 else f"patient:hold_max={k}") + ",greedy" * (P - 1)
                                              for k in SWEEP_HOLD]


def lineups(P: int) -> list[str]:
    """The study's line-ups for ``P`` players: all greedy, all patient, then each of
    :data:`SWITCHED` at position 1 among greedy players."""
    return (["greedy," * (P - 1) + "greedy", "patient," * (P - 1) + "patient"]
            + [who + ",greedy" * (P - 1) for who, _ in SWITCHED])


def run(P: int, out: Path, deals: int, jobs: int, lineup_list: list[str] | None = None) -> None:
    """Play (or resume, or keep) the study of ``P`` players in ``out`` (line-ups: ``lineup_list``,
    default :func:`lineups`)."""
    if (out / "run.json").exists():
        print(f"{out}: finished, kept", file=sys.stderr)
        return
    cmd = [sys.executable, "-m", "handsim", "simulate", "--jobs", str(jobs), "--no-progress"]
    if (out / "checkpoint.npz").exists():
        cmd += ["--resume", str(out)]
    else:
        cmd += ["--preset", "russian", "--players", str(P), "--deals", str(deals), "--seed", str(SEED),
                "--out", str(out)]
        for lu in lineup_list or lineups(P):
            cmd += ["--lineup", lu]
    print(" ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True)


def switch_row(pairs: pd.DataFrame, greedy: str, other: str) -> tuple[pd.Series, float]:
    """The row of ``lineups.csv`` that pairs the all-greedy line-up with ``other``, and the sign
    that turns its differences into what the switch to ``other`` pays: the file gives line-up a
    minus line-up b at the switched position, with either line-up as a."""
    m = pairs[(pairs["lineup_a"] == greedy) & (pairs["lineup_b"] == other)]
    if not m.empty:
        return m.iloc[0], -1.0
    return pairs[(pairs["lineup_a"] == other) & (pairs["lineup_b"] == greedy)].iloc[0], 1.0


def headline(out: Path) -> pd.DataFrame:
    rows = []

    def add(P, quantity, lineup, unit, v, lo, hi, games):
        rows.append({"players": P, "quantity": quantity, "lineup": lineup, "unit": unit, "value": v,
                     "ci95_low": lo, "ci95_high": hi, "games": games})

    for P in PLAYERS:
        d = out / f"p{P}"
        if not (d / "run.json").exists():
            continue
        greedy, patient, *switched = lineups(P)
        seats = pd.read_csv(d / "seats.csv")
        s0 = seats[(seats["lineup"] == greedy) & (seats["seat"] == 0)].iloc[0]
        add(P, "first_seat_win_rate", greedy, "share of games", s0["win_rate"], s0["win_rate_ci95_low"],
            s0["win_rate_ci95_high"], s0["games"])
        add(P, "first_seat_edge", greedy, "share of games", s0["edge"], s0["edge_ci95_low"], s0["edge_ci95_high"],
            s0["games"])
        # the last seat (the starter's right-hand neighbour, who moves last in each round of turns)
        # against the first, on the same games: one seat's win excludes the other's, so the
        # variance of the difference of the two shares is (p_last + p_first - diff^2) / n
        s_last = seats[(seats["lineup"] == greedy) & (seats["seat"] == P - 1)].iloc[0]
        diff = s_last["win_rate"] - s0["win_rate"]
        half = 1.959964 * ((s_last["win_rate"] + s0["win_rate"] - diff ** 2) / s0["games"]) ** 0.5
        add(P, "last_seat_win_rate", greedy, "share of games", s_last["win_rate"], s_last["win_rate_ci95_low"],
            s_last["win_rate_ci95_high"], s_last["games"])
        add(P, "last_minus_first_seat", greedy, "win rate difference (share of games)", diff, diff - half, diff + half,
            s0["games"])
        summary = pd.read_csv(d / "summary.csv")
        length = pd.read_csv(d / "game_length.csv")
        for lu in (greedy, patient):
            r = summary[(summary["lineup"] == lu) & (summary["seat"].astype(str) == "all")].iloc[0]
            add(P, "stock_out_rate", lu, "share of games", r["stock_out_rate"], r["stock_out_rate_ci95_low"],
                r["stock_out_rate_ci95_high"], r["deals"])
            add(P, "draw_game_rate", lu, "share of games", r["draw_game_rate"], r["draw_game_rate_ci95_low"],
                r["draw_game_rate_ci95_high"], r["deals"])
            g = length[length["lineup"] == lu].iloc[0]
            add(P, "mean_turns", lu, "turns", g["mean_turns"], g["turns_ci95_low"], g["turns_ci95_high"], g["games"])
            add(P, "median_turns", lu, "turns", g["p50"], float("nan"), float("nan"), g["games"])
        pairs = pd.read_csv(d / "lineups.csv")
        for other, (_, name) in zip(switched, SWITCHED):
            r, flip = switch_row(pairs, greedy, other)
            lo, hi = sorted((flip * r["win_diff_ci95_low"], flip * r["win_diff_ci95_high"]))
            add(P, name, f"{other} vs {greedy}", "win rate difference (share of games)", flip * r["win_diff"], lo, hi,
                r["deals"])
    return pd.DataFrame(rows)


def sweep(out: Path) -> pd.DataFrame:
    """The patience sweep's table: per number of players and ``hold_max``, the paired difference
    of the switched position's win rate (share of games) and cards left at the end (cards),
    patient minus greedy, each with its 95% CI (``lineups.csv`` of ``OUT/sweep-pP``)."""
    rows = []
    for P in PLAYERS:
        d = out / f"sweep-p{P}"
        if not (d / "run.json").exists():
            continue
        pairs = pd.read_csv(d / "lineups.csv")
        greedy, *switched = sweep_lineups(P)
        for k, other in zip(SWEEP_HOLD, switched):
            r, flip = switch_row(pairs, greedy, other)
            row = {"players": P, "hold_max": k, "games": int(r["deals"])}
            for q in ("win", "cards_left"):
                lo, hi = sorted((flip * r[f"{q}_diff_ci95_low"], flip * r[f"{q}_diff_ci95_high"]))
                row.update({f"{q}_diff": flip * r[f"{q}_diff"], f"{q}_diff_ci95_low": lo, f"{q}_diff_ci95_high": hi})
            rows.append(row)
    return pd.DataFrame(rows)


def power(games: int, players=PLAYERS) -> pd.DataFrame:
    """What ``games`` games per line-up can resolve (normal approximation, 95% two-sided, 80% power):
    for each number of players P, the half-width of the 95% CI of a seat's win rate at the fair
    share 1/P, and the smallest difference from the fair share that is found with probability 80%
    (2.80 standard errors); for a paired difference of win rates (one position switched, the same
    games) the worst case, no correlation between the two line-ups' outcomes (common random
    numbers only make it smaller)."""
    from scipy.stats import norm

    z, zp = norm.ppf(0.975), norm.ppf(0.8)
    rows = []
    for P in players:
        p = 1.0 / P
        se = (p * (1 - p) / games) ** 0.5
        se_pair = (2 * p * (1 - p) / games) ** 0.5
        rows.append({"players": P, "games": games, "win_rate_ci_half_width": z * se,
                     "detectable_edge": (z + zp) * se, "paired_ci_half_width_worst": z * se_pair,
                     "detectable_paired_difference_worst": (z + zp) * se_pair})
    return pd.DataFrame(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("--deals", type=int, default=10000, help="games per line-up and number of players")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default="results/russian")
    ap.add_argument("--players", type=int, nargs="*", default=list(PLAYERS))
    ap.add_argument("--headline-only", action="store_true", help="only gather headline.csv from finished studies")
    ap.add_argument("--sweep", action="store_true",
                    help="run the patience sweep (OUT/sweep-pP/, OUT/patience_sweep.csv) instead of the main study")
    ap.add_argument("--power", action="store_true", help="print what --deals games per line-up can resolve, and stop")
    args = ap.parse_args()
    if args.power:
        print(power(args.deals).to_string(index=False, float_format=lambda x: f"{100 * x:.2f} pp"))
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.sweep:
        if not args.headline_only:
            for P in args.players:
                run(P, out / f"sweep-p{P}", args.deals, args.jobs, sweep_lineups(P))
        t = sweep(out)
        t.to_csv(out / "patience_sweep.csv", index=False)
        print(t.to_string(index=False))
        return 0
    if not args.headline_only:
        for P in args.players:
            run(P, out / f"p{P}", args.deals, args.jobs)
    h = headline(out)
    h.to_csv(out / "headline.csv", index=False)
    games = 0
    for P in PLAYERS:
        f = out / f"p{P}" / "run.json"
        if f.exists():
            spec = json.loads(f.read_text())["spec"]
            games += int(spec["deals"]) * len(spec["lineups"])
    print(h.to_string(index=False))
    print(f"{games:,} games in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
