"""Markdown reports of tournaments and tuning runs.

Each report is a list of sections built from the result tables alone (:func:`tournament_sections`,
:func:`tune_sections`), joined into Markdown by :func:`render`.  The sections are plain
``(title, [paragraphs])`` pairs so that they can move onto the report document model of
:mod:`handsim.report` without being rewritten; findings follow from the intervals (a difference
whose 95% interval includes 0 is reported as not significant) and name their unit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

__all__ = ["tournament_report", "tune_report", "render", "significance"]

Section = tuple[str, list[str]]


def _num(x: Any) -> float | None:
    """``x`` as a float, or None when it is missing or NaN."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def _f(x: Any, nd: int = 1) -> str:
    x = _num(x)
    return "-" if x is None else f"{x:.{nd}f}"


def _signed(x: Any, nd: int = 1) -> str:
    x = _num(x)
    return "-" if x is None else f"{x:+.{nd}f}"


def _pct(p: Any, nd: int = 1) -> str:
    p = _num(p)
    return "-" if p is None else f"{100 * p:.{nd}f}%"


def _ci(lo: Any, hi: Any, fmt=_f) -> str:
    return f"[{fmt(lo)}, {fmt(hi)}]"


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(x):
        return str(x).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def rules_text(rules) -> str:
    """``classic`` or ``classic + joker_penalty=30, opening_threshold=71``."""
    from ..rules import Rules

    diff = rules.differs_from(Rules.preset("classic"))
    def text(v):
        return ("true" if v else "false") if isinstance(v, bool) else str(v)
    return "classic" + ("" if not diff else " + " + ", ".join(f"{k}={text(getattr(rules, k))}" for k in diff))


def _tick(v: Any) -> str:
    v = _num(v)
    return "-" if v is None else (str(int(v)) if v.is_integer() else f"{v:g}")


def significance(lo: float, hi: float) -> str:
    """``"significant"`` when the 95% interval excludes 0, else ``"not significant"`` (or no interval)."""
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "no interval"
    return "not significant" if lo <= 0.0 <= hi else "significant"


def render(title: str, sections: Sequence[Section]) -> str:
    """Markdown of a title and ``(heading, paragraphs)`` sections."""
    parts = [f"# {title}", ""]
    for heading, paragraphs in sections:
        parts += [f"## {heading}", ""]
        for p in paragraphs:
            parts += [p, ""]
    return "\n".join(parts).rstrip() + "\n"


# ---------------------------------------------------------------------------------- tournament


def _pair_finding(r: Mapping[str, Any], unit: str) -> str:
    a, b = r["policy"], r["opponent"]
    sig = significance(r["ci95_low"], r["ci95_high"])
    d = float(r["mean_diff"])
    share = (f"; over each deal's seatings it finished ahead on {_pct(r['p_deal_ahead'])} of deals and behind on "
             f"{_pct(r['p_deal_behind'])}")
    if sig == "significant":
        verb = "less" if d < 0 else "more"
        return (f"- **{a}** scores {_f(abs(d), 2)} points {unit} {verb} than **{b}** "
                f"(95% CI {_ci(r['ci95_low'], r['ci95_high'], lambda x: _signed(x, 2))}, "
                f"{int(r['deals']):,} deals){share}.")
    return (f"- **{a}** and **{b}**: no significant difference in score (mean difference {_signed(d, 2)} points "
            f"{unit}, 95% CI {_ci(r['ci95_low'], r['ci95_high'], lambda x: _signed(x, 2))} includes 0){share}.")


def tournament_sections(spec, frames: Mapping[str, pd.DataFrame], info: Mapping[str, Any]) -> list[Section]:
    """The sections of a tournament report (see :func:`tournament_report`)."""
    ratings, cross, tables = frames["ratings"], frames["crosstable"], frames["tables"]
    unit = "per team-round" if spec.teams else "per round"
    d = spec.design()
    players = "2 v 2 (partners opposite)" if spec.teams else f"{spec.players} players"
    seats = len(d.lineups)
    rounds = info.get("rounds_played")
    secs = info.get("seconds")
    played = int(ratings["deals"].iloc[0]) if len(ratings) else spec.deals
    run = [
        f"Rules: {rules_text(spec.rules)}; {players}.",
        f"Policies ({len(spec.entries)}): " + ", ".join(f"`{l}`" for l in spec.labels) + ".",
        f"Tables: `{spec.tables}` design, {len(d.tables)} table{'s' if len(d.tables) != 1 else ''} with "
        f"{seats} seatings in all: every deal was played at every seating of every table (duplicate format), so "
        f"each policy met the same cards and the same seats as its opponents.",
        f"Deals: {played:,} (seed {spec.seed}), {played * seats:,} rounds"
        + (f"; {rounds:,} rounds played in {_f(secs, 1)} s" if rounds is not None and secs is not None else "") + ".",
    ]
    if played < spec.deals:
        run.append(f"**Partial results**: the tournament was interrupted after {played:,} of its {spec.deals:,} deals "
                   "(`handsim tournament --resume` finishes it).")
    sections: list[Section] = [("What was run", run)]

    rows = [[int(r["rank"]), f"`{r['policy']}`", _f(r["rating"], 0), _ci(r["rating_ci95_low"], r["rating_ci95_high"],
                                                                          lambda x: _f(x, 0)),
             _pct(r["score_share"]), f"{int(r['comparisons']):,}"] for _, r in ratings.iterrows()]
    rating_text = [
        _md_table(["rank", "policy", "rating", "95% CI", "finished ahead (ties half)", "comparisons"], rows),
        "![ratings](ratings.png)",
        "Ratings are Bradley-Terry strengths fitted to the finishing order at the table (every two seats held by "
        "different policies are one comparison, a tie counts half), on the Elo scale with mean 0: a gap of 200 means "
        "the stronger finishes ahead about 76% of the time.  Intervals are deal-clustered (sandwich) 95% intervals. "
        "A rating interval is measured against the mean of the field; to compare two policies read the head-to-head "
        "table below, whose intervals are paired over the same deals.",
    ]
    notes = sorted({n for n in ratings["note"] if isinstance(n, str) and n})
    rating_text += [f"Note: {n}." for n in notes]
    sections.append(("Ratings", rating_text))

    head = []
    for _, r in cross.iterrows():
        if list(spec.labels).index(r["policy"]) < list(spec.labels).index(r["opponent"]):
            head.append([f"`{r['policy']}`", f"`{r['opponent']}`", _signed(r["mean_diff"], 2),
                         _ci(r["ci95_low"], r["ci95_high"], lambda x: _signed(x, 2)),
                         significance(r["ci95_low"], r["ci95_high"]),
                         f"{_pct(r['p_deal_ahead'])} / {_pct(r['p_deal_tied'])} / {_pct(r['p_deal_behind'])}",
                         _pct(r["score_share"]), _pct(r["model_share"])])
    sections.append(("Head to head", [
        _md_table(["policy", "opponent", f"score difference {unit}", "95% CI", "", "deals ahead / tied / behind",
                   "finished ahead at the table", "model"], head),
        "![crosstable](crosstable.png)",
        f"Score difference: the policy's mean score minus the opponent's, points {unit} (lower is better, so a "
        "negative difference favours the policy), averaged over all seatings of a deal where both sat; the deal is "
        "the unit of the interval.  Deals ahead: the share of deals on which the policy's total over those seatings "
        "was lower.  'Model' is the rating model's share for the pair; a large gap to the observed share means the "
        "pair's result is not transitive with the rest of the field.  Every ordered pair is in crosstable.csv.",
    ]))

    trows = [[r["table"], f"`{r['policy']}`", _f(r["mean_score"], 2), _ci(r["ci95_low"], r["ci95_high"],
                                                                           lambda x: _f(x, 2)),
              _pct(r["p_out"]), _pct(r["p_hand"], 2), _pct(r["p_unopened"])] for _, r in tables.iterrows()]
    sections.append(("Tables", [
        _md_table(["table", "policy", "mean score", "95% CI", "P(went out)", "P(Hand)", "P(unopened)"], trows),
        "Per table and policy, over every seating of the table: points per player-round and the share of its "
        "player-rounds that went out, went out with a Hand, or never opened (tables.csv has every interval).",
    ]))

    findings = [_pair_finding(r, unit) for _, r in cross.iterrows()
                if list(spec.labels).index(r["policy"]) < list(spec.labels).index(r["opponent"])]
    if len(ratings):
        order = " > ".join(f"`{p}`" for p in ratings["policy"])
        findings.append(f"- Ranking by rating: {order}.")
    if cross["model_share"].notna().any():
        gap = (cross["score_share"] - cross["model_share"]).abs().max()
        misfit = cross[(cross["model_share"] < cross["score_share_ci95_low"])
                       | (cross["model_share"] > cross["score_share_ci95_high"])]
        text = (f"- The rating model reproduces the head-to-head shares (finished ahead at the table) to within "
                f"{_f(100 * gap, 2)} percentage points")
        if len(misfit):
            pairs = sorted({" v ".join(sorted((r["policy"], r["opponent"]))) for _, r in misfit.iterrows()})
            text += (f"; for {', '.join(pairs)} the model's share lies outside the observed 95% CI: one strength per "
                     "policy does not describe these pairs (read their head-to-head rows).")
        else:
            text += ", inside every observed 95% CI."
        findings.append(text)
    same = [(r["policy"], r["opponent"]) for _, r in cross.iterrows()
            if r["sd_diff"] == 0 and r["mean_diff"] == 0
            and list(spec.labels).index(r["policy"]) < list(spec.labels).index(r["opponent"])]
    for a, b in same:
        findings.append(f"- `{a}` and `{b}` came out level on every single deal: they play alike, and the "
                        "duplicate format cancels all card and seat luck between them.")
    sections.append(("Findings", findings))
    pol = info.get("policies") or {}
    if pol:
        sections.append(("Policies", [f"- `{k}`: {v}" for k, v in pol.items()]))
    return sections


def tournament_report(spec, frames: Mapping[str, pd.DataFrame], info: Mapping[str, Any]) -> str:
    """The Markdown report of a tournament (``report.md``)."""
    return render(f"Tournament: {', '.join(spec.labels)}", tournament_sections(spec, frames, info))


# ---------------------------------------------------------------------------------- tune


def tune_sections(spec, frames: Mapping[str, Any], info: Mapping[str, Any]) -> list[Section]:
    """The sections of a tuning report (see :func:`tune_report`)."""
    tune, conf = frames["tune"], frames.get("confirm")
    best = tune[tune["is_best"]].iloc[0]
    default = tune[tune["is_default"]].iloc[0]
    unit = "per team-round" if spec.teams else "per round"
    who = "its team's score" if spec.teams else "its own score"
    params = list(spec.param_names())
    strategy = (f"a full grid ({len(tune[tune['on_grid']]):,} candidates)" if spec.strategy == "grid" else
                f"optuna's TPE sampler (seed {spec.seed}), {spec.trials} trials in batches of {spec.batch}")
    run = [
        f"Tuned: `{spec.base.label}`, parameters " + ", ".join(
            f"`{p}` in {r.text()}" for p, r in zip(params, spec.ranges)) + f"; search: {strategy}.",
        "Against: " + ", ".join(f"`{a.label}`" for a in spec.against)
        + (" (2 v 2: the first is the partner)" if spec.teams else "") + f"; rules: {rules_text(spec.rules)}.",
        f"Objective: {who}, mean points {unit} (lower is better), every candidate on the same {spec.deals:,} "
        f"deals (seed {spec.seed}, common random numbers).",
    ]
    sections: list[Section] = [("What was run", run)]
    top = tune.sort_values("mean_score", kind="stable").head(10)
    rows = [[int(r["rank"]), f"`{r['label']}`", _f(r["mean_score"], 2),
             _ci(r["ci95_low"], r["ci95_high"], lambda x: _f(x, 2)), _signed(r["diff_vs_default"], 2),
             _ci(r["diff_ci95_low"], r["diff_ci95_high"], lambda x: _signed(x, 2))] for _, r in top.iterrows()]
    figure = {"grid": "![tune](tune.png)", "curve": "![tune](tune.png)", "history": "![tune](tune.png)"}
    sections.append(("Candidates", [
        _md_table(["rank", "candidate", f"mean score {unit}", "95% CI", "vs default", "95% CI"], rows),
        figure.get(info.get("figure", "grid"), ""),
        f"The ten best of {len(tune):,} candidates on the tuning deals (tune.csv has all).  'vs default' is the "
        "paired difference from the default parameters on the same deals.  The best of many candidates measured on "
        "the same deals is biased in its own favour (the winner's curse): the confirmation below plays it again on "
        "fresh deals.",
    ]))
    edges = []
    for r in spec.ranges:
        grid = r.grid()
        if len(grid) > 1 and float(best[r.name]) in (grid[0], grid[-1]):
            edges.append(f"`{r.name}` = {_tick(best[r.name])} is at the {'low' if float(best[r.name]) == grid[0] else 'high'} "
                         f"end of its range ({r.text()})")
    if edges:
        sections[-1][1].append("The best candidate lies on the edge of the searched range: " + "; ".join(edges)
                               + ".  A wider range may hold a better value.")
    ties = tune[(tune["mean_score"] == best["mean_score"]) & ~tune["is_best"]]
    if len(ties):
        sections[-1][1].append(f"{len(ties)} other candidate{'s' if len(ties) != 1 else ''} had exactly the best "
                               "mean score; the first in the order tried is reported.")
    if conf is not None:
        c = conf
        sig = significance(c["diff_ci95_low"], c["diff_ci95_high"])
        d = float(c["diff"])
        if best["label"] == default["label"]:
            verdict = "The default parameters were the best candidate; there is nothing to confirm."
        elif sig == "significant" and d < 0:
            verdict = (f"Confirmed: on {int(c['deals']):,} fresh deals `{best['label']}` scores "
                       f"{_f(-d, 2)} points {unit} less than the default `{default['label']}` "
                       f"(95% CI {_ci(c['diff_ci95_low'], c['diff_ci95_high'], lambda x: _signed(x, 2))}).")
        elif sig == "significant":
            verdict = (f"Not confirmed: on {int(c['deals']):,} fresh deals `{best['label']}` scores "
                       f"{_f(d, 2)} points {unit} MORE than the default (95% CI "
                       f"{_ci(c['diff_ci95_low'], c['diff_ci95_high'], lambda x: _signed(x, 2))}).")
        else:
            verdict = (f"Not confirmed: on {int(c['deals']):,} fresh deals the difference between `{best['label']}` "
                       f"and the default is not significant ({_signed(d, 2)} points {unit}, 95% CI "
                       f"{_ci(c['diff_ci95_low'], c['diff_ci95_high'], lambda x: _signed(x, 2))} includes 0).")
        sections.append(("Confirmation on fresh deals", [
            _md_table(["", "policy", f"mean score {unit}", "95% CI"], [
                ["best", f"`{best['label']}`", _f(c["best_mean"], 2), _ci(c["best_ci95_low"], c["best_ci95_high"],
                                                                          lambda x: _f(x, 2))],
                ["default", f"`{default['label']}`", _f(c["default_mean"], 2),
                 _ci(c["default_ci95_low"], c["default_ci95_high"], lambda x: _f(x, 2))],
            ]),
            f"Deals: {int(c['deals']):,} of seed {int(c['seed'])}, none of them used in the search.  " + verdict,
        ]))
    sections.append(("Use the result", [
        "`best.toml` holds the best parameters as a policy: `handsim simulate --policy @best.toml`, "
        "`handsim tournament --policy @best.toml --policy greedy`, or in a line-up "
        "`--lineup @best.toml,greedy,greedy,greedy`.",
    ]))
    return sections


def tune_report(spec, frames: Mapping[str, Any], info: Mapping[str, Any]) -> str:
    """The Markdown report of a tuning run (``report.md``)."""
    return render(f"Tuning {spec.base.name}: " + ", ".join(spec.param_names()), tune_sections(spec, frames, info))
