#!/usr/bin/env python3
"""The tables and figures of results/single-matches/ from the per-deal rows of its two runs.

``handsim simulate`` gives match win / lose rates by policy and by seat of the last round, the
share of matches a single Hand decided and the tie-break rate.  This script adds what it does not
give, from ``DIR/p3/per_deal`` and ``DIR/p4/per_deal`` (``--per-deal`` Parquet rows, one per deal
and seat, with line-up position, match, round and the match result on each match's last regular
round):

* ``seats.csv``     win / lose rate (Wilson 95% CI) by the seat a player holds in the first round
                    and the number of rounds it starts in the match; mean points per round
                    by that seat (t 95% CI);
* ``length.csv``    match length in turns (all players' turns of the 9 regular rounds added up;
                    tie-break rounds not included): mean, median and 90th percentile with 95% CIs
                    (order-statistic intervals for the quantiles), tie-break and decided-by-a-Hand
                    shares (Wilson 95% CI);
* ``skill.csv``     the challenger against the field: per-round paired difference (challenger -
                    one field player, points per round, t 95% CI); P(the stronger of the two
                    finishes ahead of the other) and P(the challenger wins the match outright)
                    after k rounds, exact from the data for k = 1..9 and from the normal
                    approximation of the summed rounds beyond; the rounds needed for the stronger
                    to finish ahead with probability 75% / 90% and to win outright with
                    probability 50% (95% CI from the interval of the mean difference);
* ``skill_curve.csv`` the curves behind it; ``seats.png``, ``skill.png``.

Usage: ``python scripts/single_matches.py DIR`` (DIR as given to handsim batch results/single-matches/study.toml --out DIR);
``python scripts/single_matches.py --figures-only DIR`` redraws the two figures from the CSVs in DIR
(e.g. ``results/single-matches``), without the per-deal rows.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats  # noqa: E402

from handsim.stats.intervals import share_interval  # noqa: E402

COLS = ["deal", "lineup", "seat", "position", "score", "hand", "went_out", "turns", "match", "round",
        "match_win", "match_lose", "tiebreaks", "hand_decided", "opening_threshold"]
Z = stats.norm.ppf(0.975)
KS_LONG = np.unique(np.round(np.logspace(1, 4, 61)).astype(int))  # 10 .. 10,000 rounds


def tmean(x: np.ndarray) -> tuple[float, float, float]:
    m = float(x.mean())
    h = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))
    return m, m - h, m + h


def quantile_ci(x: np.ndarray, q: float) -> tuple[float, float, float]:
    res = stats.quantile_test(x, q=float(np.quantile(x, q, method="inverted_cdf")), p=q)
    ci = res.confidence_interval(0.95)
    return float(np.quantile(x, q, method="inverted_cdf")), float(ci.low), float(ci.high)


def load(run: Path) -> tuple[pd.DataFrame, dict]:
    info = json.loads((run / "run.json").read_text())
    parts = sorted((run / "per_deal").glob("part-*.parquet"))
    if not parts:
        sys.exit(f"{run}/per_deal has no Parquet files: run the study with --per-deal")
    df = pd.concat([pd.read_parquet(p, columns=COLS) for p in parts], ignore_index=True)
    return df, info


def seat_table(g: pd.DataFrame, P: int, R: int) -> pd.DataFrame:
    first = g.loc[g["round"] == 0, ["match", "position", "seat"]].rename(columns={"seat": "first_seat"})
    starts = g[g["seat"] == 0].groupby(["match", "position"]).size().rename("starts").reset_index()
    last = g[g["round"] == R - 1][["match", "position", "match_win", "match_lose"]]
    m = last.merge(first, on=["match", "position"]).merge(starts, on=["match", "position"], how="left")
    m["starts"] = m["starts"].fillna(0).astype(int)
    rows = []
    for s, h in m.groupby("first_seat"):
        n = len(h)
        w, wl, wh = share_interval(int(h["match_win"].sum()), n)
        lo, ll, lh = share_interval(int(h["match_lose"].sum()), n)
        rs = g.loc[g["seat"] == s, "score"].to_numpy(np.float64)
        ms, msl, msh = tmean(rs)
        rows.append(dict(first_seat=int(s), starts=int(h["starts"].iloc[0]) if h["starts"].nunique() == 1 else np.nan,
                         matches=n, win_rate=w, win_ci95_low=wl, win_ci95_high=wh,
                         lose_rate=lo, lose_ci95_low=ll, lose_ci95_high=lh,
                         mean_score_as_round_seat=ms, score_ci95_low=msl, score_ci95_high=msh))
    return pd.DataFrame(rows)


def length_row(g: pd.DataFrame, R: int) -> dict:
    one = g[g["seat"] == 0]
    turns = one.groupby("match")["turns"].sum().to_numpy(np.float64)
    last = g[(g["round"] == R - 1) & (g["seat"] == 0)]
    n = len(last)
    mean, mlo, mhi = tmean(turns)
    med, medl, medh = quantile_ci(turns, 0.5)
    p90, p90l, p90h = quantile_ci(turns, 0.9)
    tb, tbl, tbh = share_interval(int((last["tiebreaks"] > 0).sum()), n)
    hd, hdl, hdh = share_interval(int(last["hand_decided"].sum()), n)
    return dict(matches=n, mean_turns=mean, mean_ci95_low=mlo, mean_ci95_high=mhi,
                median_turns=med, median_ci95_low=medl, median_ci95_high=medh,
                p90_turns=p90, p90_ci95_low=p90l, p90_ci95_high=p90h,
                tiebreak_rate=tb, tiebreak_ci95_low=tbl, tiebreak_ci95_high=tbh,
                hand_decided_rate=hd, hand_decided_ci95_low=hdl, hand_decided_ci95_high=hdh)


def outright_normal(mu: np.ndarray, cov: np.ndarray, k: np.ndarray, rng, draws: int = 200_000) -> np.ndarray:
    """P(position 0's k-round total is the lowest) under S_k ~ N(k mu, k cov)."""
    L = np.linalg.cholesky(cov + 1e-9 * np.eye(len(mu)))
    z = rng.standard_normal((draws, len(mu))) @ L.T
    out = []
    for kk in k:
        s = kk * mu + np.sqrt(kk) * z
        out.append(float((s[:, 0] < s[:, 1:].min(axis=1)).mean()))
    return np.array(out)


def skill(g: pd.DataFrame, P: int, R: int, rng) -> tuple[dict, pd.DataFrame]:
    wide = g.pivot_table(index=["match", "round"], columns="position", values="score", aggfunc="first")
    X = wide.to_numpy(np.float64)  # rounds x P, position 0 = the challenger
    d = X[:, 0] - X[:, 1]  # against one field player
    mu_d, lo_d, hi_d = tmean(d)
    sd_d = float(d.std(ddof=1))
    stronger = "challenger" if mu_d < 0 else "field"
    # exact curves from the data: prefix sums over the rounds of each match
    cum = wide.groupby(level="match").cumsum()
    curve = []
    for k in range(1, R + 1):
        c = cum.xs(k - 1, level="round").to_numpy(np.float64)
        n = len(c)
        ahead = int((c[:, 0] < c[:, 1]).sum()) if mu_d < 0 else int((c[:, 1] < c[:, 0]).sum())
        a, al, ah = share_interval(ahead, n)
        wins = int((c[:, 0] < c[:, 1:].min(axis=1)).sum())
        w, wl, wh = share_interval(wins, n)
        curve.append(dict(rounds=k, source="data", p_stronger_ahead=a, ahead_ci95_low=al, ahead_ci95_high=ah,
                          p_challenger_wins=w, wins_ci95_low=wl, wins_ci95_high=wh))
    # the normal approximation of k summed rounds (rounds are independent deals)
    mu = X.mean(axis=0)
    cov = np.cov(X, rowvar=False)
    ks = np.concatenate([np.arange(1, R + 1), KS_LONG])
    pa = stats.norm.cdf(np.sqrt(ks) * abs(mu_d) / sd_d)
    # interval of the curve from the interval of the mean difference
    if np.sign(lo_d) == np.sign(hi_d):
        pa_lo = stats.norm.cdf(np.sqrt(ks) * min(abs(lo_d), abs(hi_d)) / sd_d)
        pa_hi = stats.norm.cdf(np.sqrt(ks) * max(abs(lo_d), abs(hi_d)) / sd_d)
    else:
        pa_lo = np.full(len(ks), 0.5)
        pa_hi = stats.norm.cdf(np.sqrt(ks) * max(abs(lo_d), abs(hi_d)) / sd_d)
    pw = outright_normal(mu, cov, ks, rng)
    for i, k in enumerate(ks):
        curve.append(dict(rounds=int(k), source="normal", p_stronger_ahead=pa[i], ahead_ci95_low=pa_lo[i],
                          ahead_ci95_high=pa_hi[i], p_challenger_wins=pw[i]))

    def need(p: float, m: float) -> float:
        return float(np.ceil((stats.norm.ppf(p) * sd_d / abs(m)) ** 2)) if m != 0 else np.inf

    row = dict(rounds=len(d), challenger_minus_field=mu_d, diff_ci95_low=lo_d, diff_ci95_high=hi_d,
               sd_diff=sd_d, stronger=stronger,
               significant=bool(np.sign(lo_d) == np.sign(hi_d)))
    for p in (0.75, 0.9):
        row[f"rounds_for_{int(p*100)}"] = need(p, mu_d)
        if row["significant"]:
            row[f"rounds_for_{int(p*100)}_ci95_low"] = need(p, max(abs(lo_d), abs(hi_d)))
            row[f"rounds_for_{int(p*100)}_ci95_high"] = need(p, min(abs(lo_d), abs(hi_d)))
        else:
            row[f"rounds_for_{int(p*100)}_ci95_low"] = need(p, max(abs(lo_d), abs(hi_d)))
            row[f"rounds_for_{int(p*100)}_ci95_high"] = np.inf
    big = np.nonzero(pw >= 0.5)[0]
    row["challenger_wins_9"] = curve[R - 1]["p_challenger_wins"]
    row["challenger_wins_9_ci95_low"] = curve[R - 1]["wins_ci95_low"]
    row["challenger_wins_9_ci95_high"] = curve[R - 1]["wins_ci95_high"]
    row["rounds_for_challenger_win_50"] = float(ks[big[0]]) if len(big) else np.inf
    return row, pd.DataFrame(curve)


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--figures-only":
        out = Path(argv[1])
        figures(out, pd.read_csv(out / "seats.csv"), pd.read_csv(out / "skill_curve.csv"),
                pd.read_csv(out / "skill.csv"))
        return 0
    if len(argv) != 1:
        print("usage: python scripts/single_matches.py [--figures-only] DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    rng = np.random.default_rng(20261201)
    seats, lengths, skills, curves, policies = [], [], [], [], []
    for P in (3, 4):
        run = out / f"p{P}"
        df, info = load(run)
        R = info["rules"]["rounds"]
        lineups = info["spec"]["lineups"]
        summ = pd.read_csv(run / "summary.csv")
        summ["players"] = P
        policies.append(summ[summ["seat"].astype(str) == "all"][[
            "players", "opening_threshold", "lineup", "policy", "matches", "mean_score", "ci95_low", "ci95_high",
            "match_win_rate", "match_win_rate_ci95_low", "match_win_rate_ci95_high",
            "match_lose_rate", "match_lose_rate_ci95_low", "match_lose_rate_ci95_high",
            "p_hand", "p_unopened"]])
        for (t, l), g in df.groupby(["opening_threshold", "lineup"]):
            key = dict(players=P, opening_threshold=int(t), lineup=lineups[l])
            s = seat_table(g, P, R)
            for k, v in key.items():
                s.insert(0, k, v) if k not in s else None
            seats.append(s[["players", "opening_threshold", "lineup"] + [c for c in s if c not in key]])
            lengths.append({**key, **length_row(g, R)})
            if l == 1:
                row, curve = skill(g, P, R, rng)
                skills.append({**key, **row})
                for k, v in key.items():
                    curve.insert(0, k, v)
                curves.append(curve)
        del df
    seats = pd.concat(seats, ignore_index=True)
    lengths = pd.DataFrame(lengths)
    skills = pd.DataFrame(skills)
    curves = pd.concat(curves, ignore_index=True)
    policies = pd.concat(policies, ignore_index=True)
    for name, t in (("seats", seats), ("length", lengths), ("skill", skills), ("skill_curve", curves),
                    ("policies", policies)):
        t.to_csv(out / f"{name}.csv", index=False, float_format="%.6g")
    figures(out, seats, curves, skills)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 40)
    for name, t in (("policies", policies), ("seats", seats), ("length", lengths), ("skill", skills)):
        print(f"== {name}\n{t.to_string(index=False)}\n")
    return 0


def figures(out: Path, seats: pd.DataFrame, curves: pd.DataFrame, skills: pd.DataFrame) -> None:
    """``seats.png`` (win rate by first-round seat, seats numbered as in ``seats.csv``: 0 is the
    starter) and ``skill.png`` (the curves of ``skill_curve.csv``, each threshold's line naming the
    stronger player of ``skill.csv``)."""
    colours = {51: "#1b9e77", 71: "#d95f02", 91: "#7570b3"}
    field = seats[seats["lineup"] == seats.groupby("players")["lineup"].transform("first")]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, P in zip(axes, (3, 4)):
        f = field[field["players"] == P]
        for j, t in enumerate((51, 71, 91)):
            h = f[f["opening_threshold"] == t]
            x = h["first_seat"].to_numpy() + (j - 1) * 0.12
            y = 100 * h["win_rate"].to_numpy()
            ax.errorbar(x, y, yerr=[y - 100 * h["win_ci95_low"], 100 * h["win_ci95_high"] - y], fmt="o",
                        mfc="none", color=colours[t], capsize=3, label=f"threshold {t}", zorder=3)
        ax.axhline(100 / P, color="grey", lw=0.8, ls="--", zorder=1)
        # a fixed window of the fair share +- 3 points of percentage, the same on both panels, so
        # that differences of a few tenths are not drawn as if they were large
        ax.set_ylim(100 / P - 3, 100 / P + 3)
        starts = f.groupby("first_seat")["starts"].first()
        ax.set_xticks(range(P), [f"seat {s}{' (starter)' if s == 0 else ''}\n({int(starts[s])} starts)"
                                 for s in range(P)])
        ax.set_title(f"{P} players, every seat the same policy")
        ax.set_xlabel("seat in the first round, as in seats.csv (rounds it starts of 9)")
    axes[0].set_ylabel("match win rate, % of matches (95% CI;\ndashed: the fair share; window ±3 pp)")
    axes[0].legend(frameon=False)
    fig.tight_layout()
    fig.savefig(out / "seats.png", dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, P in zip(axes, (3, 4)):
        for t in (51, 71, 91):
            c = curves[(curves["players"] == P) & (curves["opening_threshold"] == t)]
            nrm = c[c["source"] == "normal"].sort_values("rounds")
            dat = c[c["source"] == "data"]
            k = skills[(skills["players"] == P) & (skills["opening_threshold"] == t)]
            who = "?"
            if len(k):
                lu = str(k["lineup"].iloc[0]).split(",")
                who = lu[0] if k["stronger"].iloc[0] == "challenger" else lu[1]
            ax.plot(nrm["rounds"], 100 * nrm["p_stronger_ahead"], color=colours[t], lw=1,
                    label=f"threshold {t}: {who} is the stronger")
            ax.fill_between(nrm["rounds"], 100 * nrm["ahead_ci95_low"], 100 * nrm["ahead_ci95_high"],
                            color=colours[t], alpha=0.2, lw=0)
            y = 100 * dat["p_stronger_ahead"].to_numpy()
            ax.errorbar(dat["rounds"], y, yerr=[y - 100 * dat["ahead_ci95_low"], 100 * dat["ahead_ci95_high"] - y],
                        fmt="o", ms=3, mfc="none", color=colours[t], zorder=3)
        ax.axvline(9, color="grey", lw=0.8, ls=":")
        ax.plot([], [], "o", mfc="none", color="grey", ms=3, label="exact from the matches (1-9 rounds)")
        ax.plot([], [], "-", color="grey", lw=1, label="normal approximation (band: 95% CI)")
        ax.set_xscale("log")
        lu = str(skills.loc[skills["players"] == P, "lineup"].iloc[0]).split(",") if len(skills) else ["?", "?"]
        ax.set_title(f"{P} players: {lu[0]} (challenger) vs one {lu[1]}", fontsize=10)
        ax.set_xlabel("rounds played (log scale; dotted: a 9-round match)")
        ax.legend(frameon=False, fontsize=7, loc="upper left")  # each panel: who is stronger differs
    axes[0].set_ylabel("P(the stronger finishes ahead), % (95% CI)")
    fig.tight_layout()
    fig.savefig(out / "skill.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
