"""Reports of tournaments and tuning runs, on the report document model of :mod:`handsim.report`.

:func:`tournament_document` and :func:`tune_document` build a
:class:`~handsim.report.document.Document` from the result tables alone (an executive summary
first, then one section per question with its findings, figure and table); the writers
(:func:`handsim.tournament.write_tournament`, :func:`handsim.tournament.tune.write_tune`) render it
as ``report.md`` (figures as PNG files next to it) and a self-contained ``report.html``, as for
studies.

Findings follow from the numbers: every number a sentence reports is an
:class:`~handsim.report.document.Estimate` with its 95% interval and unit (points per
player-round, per team-round in 2 v 2, shares of deals); a difference whose interval includes 0
is reported as not significant and given no direction, and policies whose rating intervals
overlap are "tied within the intervals", never ranked strictly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..report.document import (BulletList, Column, Document, Estimate, Figure, Finding, Paragraph, Section, Table,
                               fmt_number, fmt_pct, resumed_bullet)
from ..report.plots import figure_legend, png_bytes, policy_colours

__all__ = ["tournament_document", "tune_document", "write_with_run_json", "score_unit",
           "ranking_finding", "pair_finding", "confirmation_finding", "MAX_ROWS"]

#: Rows of a table in the report (the CSV files hold every row).
MAX_ROWS = 40


def write_with_run_json(out, doc: Document, info: Mapping[str, Any], formats: Sequence[str]):
    """Render ``doc`` into ``out`` (:func:`handsim.report.write_document`), then write ``info`` as
    ``run.json``; each file atomically.  Returns the report's path."""
    import json
    from pathlib import Path

    from .._io import atomic_write
    from ..report import write_document

    path = write_document(out, doc, formats)
    atomic_write(Path(out) / "run.json", (json.dumps(info, indent=2, sort_keys=True, default=str) + "\n").encode())
    return path


def _num(x: Any) -> float:
    """``x`` as a float (NaN when it is missing or not a number)."""
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def score_unit(teams: bool) -> str:
    """The unit of a score: ``points per player-round``, in 2 v 2 ``points per team-round`` (both partners)."""
    return "points per team-round" if teams else "points per player-round"


def _tick(v: Any) -> str:
    v = _num(v)
    return "–" if math.isnan(v) else (str(int(v)) if v.is_integer() else f"{v:g}")


def _diff(value, low, high, unit: str, identical: bool = False) -> Estimate:
    return Estimate(_num(value), _num(low), _num(high), unit=unit, diff=True, nd=2, identical=identical)


def _level(value, low, high, unit: str, nd: int = 2) -> Estimate:
    return Estimate(_num(value), _num(low), _num(high), unit=unit, diff=False, nd=nd)


def _share(r: Mapping[str, Any], col: str) -> Estimate:
    return Estimate(_num(r[col]), _num(r.get(f"{col}_ci95_low")), _num(r.get(f"{col}_ci95_high")), unit="%",
                    diff=False)


def _figure(fig, name: str, title: str, caption: str, dpi: int, legend: bool = False) -> Figure:
    if legend:
        figure_legend(fig, fig.axes)
    return Figure(name=name, title=title, caption=caption, png=png_bytes(fig, dpi), alt=title)


def _capped(rows: list, what: str, csv: str) -> tuple[list, str]:
    if len(rows) <= MAX_ROWS:
        return rows, ""
    return rows[:MAX_ROWS], f"The first {MAX_ROWS:,} of {len(rows):,} {what}; all of them are in `{csv}`."


def _run_details(info: Mapping[str, Any]) -> list[str]:
    """Speed, command and version bullets from run.json's fields (those present)."""
    out = []
    rounds, seconds = info.get("rounds_played"), info.get("seconds")
    if isinstance(rounds, int) and rounds and isinstance(seconds, (int, float)) and seconds > 0:
        out.append(f"**Speed:** {rounds / seconds:,.0f} rounds/s ({rounds:,} rounds in {seconds:,.1f} s).")
    if isinstance(info.get("version"), str):
        out.append(f"**handsim version:** {info['version']}.")
    if isinstance(info.get("command"), str):
        out.append(f"**Command:** `{info['command']}`.")
    resumed = resumed_bullet(info.get("resumed"))
    if resumed:
        out.append(resumed)
    return out


def _files_section(files: Mapping[str, str]) -> Section:
    return Section("Files", id="files").add(BulletList(tuple(f"`{k}`: {v}." for k, v in files.items())))


# ---------------------------------------------------------------------------------- tournament


def _ties(recs: Sequence[Mapping[str, Any]]) -> list[bool]:
    """For each policy in ranking order but the last: whether its 95% rating interval overlaps the next one's
    (or either has no interval)."""
    out = []
    for a, b in zip(recs, recs[1:]):
        lo_a, hi_b = _num(a["rating_ci95_low"]), _num(b["rating_ci95_high"])
        out.append(math.isnan(lo_a) or math.isnan(hi_b) or lo_a <= hi_b)
    return out


def _names(names: Sequence[str]) -> str:
    q = [f"`{n}`" for n in names]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " and " + q[-1]


def ranking_finding(ratings: pd.DataFrame, max_listed: int = 8) -> Finding:
    """The ranking by rating in one finding: each policy's rating with its 95% interval, and, where the
    intervals of neighbours in the ranking overlap, that they are *tied within the intervals* (the order
    between them is not established).  The ranking is called established only when every interval lies
    clear of the next one's."""
    recs = ratings.sort_values("rank", kind="stable").to_dict("records")
    parts = []
    for r in recs[:max_listed]:
        e = _level(r["rating"], r["rating_ci95_low"], r["rating_ci95_high"], "", nd=0)
        parts.append(f"{int(r['rank'])}. `{r['policy']}` {e.number()} ({e.ci_text})")
    more = f", … ({len(recs) - max_listed} more in *Ratings*)" if len(recs) > max_listed else ""
    text = "Ranking by rating (Elo scale, mean of the field 0; 95% CI): " + ", ".join(parts) + more + "."
    ties = _ties(recs)
    runs, cur = [], [recs[0]["policy"]] if recs else []
    for r, tied in zip(recs[1:], ties):
        if tied:
            cur.append(r["policy"])
        else:
            if len(cur) > 1:
                runs.append(cur)
            cur = [r["policy"]]
    if len(cur) > 1:
        runs.append(cur)
    if len(recs) < 2:
        pass
    elif not runs:
        text += " Each policy's interval lies clear of the next one's: the order is established."
    else:
        text += " " + "; ".join(
            f"{_names(run)} are tied within the intervals (each one's 95% interval overlaps the next one's)"
            for run in runs) + ": the order among them is not established."
    return Finding(text)


def pair_finding(r: Mapping[str, Any], teams: bool = False) -> Finding:
    """One head-to-head result (a crosstable row, ``policy`` minus ``opponent``) in words.

    A difference is stated with a direction only when its 95% interval excludes 0; a pair that
    scored the same on every deal is said to play alike.
    """
    unit = score_unit(teams)
    a, b = r["policy"], r["opponent"]
    identical = _num(r.get("sd_diff")) == 0 and _num(r["mean_diff"]) == 0
    e = _diff(r["mean_diff"], r["ci95_low"], r["ci95_high"], unit, identical)

    def who(p):
        return f"`{p}`'s team" if teams else f"`{p}`"
    if e.identical:
        text = (f"{who(a)} and {who(b)} scored the same on every deal ({e.text(inner=True)}): they play alike here, "
                "and the duplicate format cancels all card and seat luck between them.")
    elif e.significant:
        better, worse = (a, b) if e.value < 0 else (b, a)
        col, other = ("p_deal_ahead", "p_deal_behind") if better == a else ("p_deal_behind", "p_deal_ahead")
        share, tied, higher = _share(r, col), _share(r, "p_deal_tied"), _share(r, other)
        # the three shares together: "lower on 28.9%" alone hid that 63.4% of deals were tied
        text = (f"{who(better)} does better than {who(worse)} at the same tables (scores less): `{a}` − `{b}` = "
                f"{e.text()}; "
                f"over each deal's seatings {who(better)} had the lower total on {share.number()} of deals "
                f"(95% CI {share.ci_text}), the same total on {tied.number()} and the higher on {higher.number()}.")
    else:
        text = (f"{who(a)} and {who(b)} score about the same: `{a}` − `{b}` = {e.text()}: no difference in score "
                "shown.")
    return Finding(text, e)


def _model_finding(cross: pd.DataFrame) -> Finding | None:
    if not len(cross) or not cross["model_share"].notna().any():
        return None
    gap = float((cross["score_share"] - cross["model_share"]).abs().max())
    misfit = cross[(cross["model_share"] < cross["score_share_ci95_low"])
                   | (cross["model_share"] > cross["score_share_ci95_high"])]
    text = (f"The rating model reproduces each pair's share of finishing ahead at the table (share of comparisons, "
            f"ties half) to within {fmt_number(100 * gap, 2)} percentage points")
    if len(misfit):
        pairs = sorted({" v ".join(sorted((str(x), str(y)))) for x, y in zip(misfit["policy"], misfit["opponent"])})
        text += (f"; for {', '.join(pairs)} the model's share lies outside the observed 95% CI: one strength per "
                 "policy does not describe these pairs (read their head-to-head rows).")
    else:
        text += ", inside every observed 95% CI."
    return Finding(text)


def _t_summary(spec, ratings, cross, order, played) -> Section:
    sec = Section("In brief", id="in-brief")
    items: list[Finding] = []
    if len(ratings):
        items.append(ranking_finding(ratings))
    pos = {p: i for i, p in enumerate(order)}
    pairs = cross[[pos[a] < pos[b] for a, b in zip(cross["policy"], cross["opponent"])]] if len(cross) else cross
    if len(order) > 3 and len(pairs):  # neighbours in the ranking
        pairs = pairs[[pos[b] == pos[a] + 1 for a, b in zip(pairs["policy"], pairs["opponent"])]]
    if len(pairs):
        pairs = pairs.assign(_a=pairs["policy"].map(pos), _b=pairs["opponent"].map(pos)).sort_values(["_a", "_b"])
    for r in pairs.to_dict("records")[:4]:
        items.append(pair_finding(r, spec.teams))
    fit = _model_finding(cross)
    if fit is not None and "outside" in fit.text:
        items.append(fit)
    if not items:
        return sec.add(Paragraph("No results yet."))
    sec.add(BulletList(tuple(items[:5])))
    note = ("Scores are penalty points: lower is better. The ranking is by rating (finishing order at the table); "
            "the head-to-head score differences are paired over the same deals and seats.")
    if played < spec.deals:
        note = (f"**Partial results**: {played:,} of {spec.deals:,} deals (the tournament was interrupted; "
                "`handsim tournament --resume` finishes it). " + note)
    return sec.add(Paragraph(note, note=True))


def _t_run(spec, info, played) -> Section:
    d = spec.design()
    players = ("2 v 2 (partners opposite: line-up positions 1 & 3 against 2 & 4)" if spec.teams
               else f"{spec.players} single players")
    seatings = len(d.lineups)
    bullets = [
        f"**Rules:** {spec.rules.note()}.",
        f"**Players:** {players}.",
        f"**Tables:** the `{spec.tables}` design, {len(d.tables)} table{'s' if len(d.tables) != 1 else ''} with "
        f"{seatings} seatings in all: every deal was played at every seating of every table (duplicate format), so "
        "each policy met the same cards and the same seats as its opponents.",
        f"**Deals:** {played:,} (seed {spec.seed}), {played * seatings:,} rounds"
        + (f" (**partial results**: the tournament was interrupted after {played:,} of its {spec.deals:,} deals; "
           "`handsim tournament --resume` finishes it)" if played < spec.deals else "") + ".",
    ] + _run_details(info)
    sec = Section("What was run", id="run").add(BulletList(tuple(bullets)))
    pol = info.get("policies") or {}
    sec.add(Paragraph(f"**Policies** ({len(spec.labels)}):"),
            BulletList(tuple(f"`{k}`: {pol[k]}" if k in pol else f"`{k}`" for k in spec.labels)))
    tab = spec.table_labels()
    if len(tab) <= MAX_ROWS:
        sec.add(Table((Column("#", numeric=True), Column("table")), tuple((str(i + 1), t) for i, t in enumerate(tab)),
                      caption="The tables (each played at all its seatings on every deal)."))
    return sec


def _t_how_to_read(spec) -> Section:
    unit = score_unit(spec.teams)
    items = [
        "**Score** is the points a player gets for one round (RULES.md §6); **lower is better**. "
        + ("In 2 v 2 a team's score is the sum of its two players (" + unit + ")."
           if spec.teams else "Score differences are per player-round: a policy holding several seats of a game "
           "counts the mean over its seats."),
        "**Ratings** are Bradley–Terry strengths fitted to the finishing order at the table, on the Elo scale with "
        "the field's mean at 0: a gap of 200 means the stronger finishes ahead about 76% of the time. A rating "
        "interval is measured against the field's mean; two policies whose intervals overlap are *tied within the "
        "intervals*, and the order between them is not established.",
        "**Head to head** differences are paired: both policies played the same deals at the same seats, so the "
        "luck of the cards cancels. The deal is the unit of every interval (its games share the cards). A "
        "difference whose 95% CI includes 0 is called *not significant* and given no direction.",
        "Figures: one colour per policy, as in study reports; intervals are drawn over the markers; a marker is "
        "filled when its interval excludes 0 and hollow when it does not.",
    ]
    return Section("How to read this report", id="how-to-read").add(BulletList(tuple(items)))


def _t_ratings(spec, ratings, colours, dpi) -> Section:
    from .plots import plot_ratings

    sec = Section("Ratings", id="ratings")
    if not len(ratings):
        return sec
    sec.add(Paragraph(
        "Every two seats of a game held by different policies are one comparison (the one with fewer points "
        "finishes ahead, a tie counts half"
        + ("; in 2 v 2 the two teams" if spec.teams else "") + "). The ratings are the Bradley–Terry strengths that "
        "fit these comparisons best, with 95% intervals clustered by deal (sandwich). To compare two policies "
        "directly, read *Head to head*, whose intervals are paired over the same deals."))
    recs = ratings.sort_values("rank", kind="stable").to_dict("records")
    half = max(((_num(r["rating_ci95_high"]) - _num(r["rating_ci95_low"])) / 2 for r in recs), default=math.nan)
    fig = plot_ratings(ratings, colours=colours).ax.figure
    sec.add(_figure(fig, "ratings.png", "Ratings", "Bradley–Terry rating of each policy on the Elo scale (mean of the "
                    "field 0), strongest on top, one colour per policy; bars are 95% intervals clustered by deal"
                    + (f" (the widest ±{fmt_number(half, 0)} rating points)" if not math.isnan(half) else "")
                    + ". Overlapping bars: tied within the intervals.", dpi))
    ties = _ties(recs) + [None]
    rows = []
    for r, tied in zip(recs, ties):
        e = _level(r["rating"], r["rating_ci95_low"], r["rating_ci95_high"], "", nd=0)
        nxt = "–" if tied is None else ("tied within the intervals" if tied else "intervals apart")
        rows.append((str(int(r["rank"])), f"`{r['policy']}`", e.cell, nxt, fmt_pct(r["score_share"]),
                     f"{int(r['comparisons']):,}"))
    sec.add(Table((Column("rank", numeric=True), Column("policy"), Column("rating", "Elo scale, 95% CI", True),
                   Column("against the next"), Column("finished ahead", "% of comparisons, ties half", True),
                   Column("comparisons", numeric=True)), tuple(rows)))
    for n in sorted({n for n in ratings["note"] if isinstance(n, str) and n}):
        sec.add(Paragraph(f"Note: {n}.", note=True))
    return sec


def _t_head_to_head(spec, cross, order, colours, dpi) -> Section:
    from .plots import MAX_PAIRS, crosstable_outlier, crosstable_pairs, plot_crosstable

    unit = score_unit(spec.teams)
    sec = Section("Head to head", id="head-to-head")
    if not len(cross):
        return sec
    sec.add(Paragraph(
        f"A − B is A's mean score minus B's, {unit}, over all seatings of a deal where both sat, averaged over the "
        "deals (the deal is the unit of the 95% CI). Lower is better, so a negative difference favours A. Pairs "
        "are listed with the higher-rated policy first."))
    pairs = crosstable_pairs(cross, order, max_pairs=len(cross))
    items = [pair_finding(r, spec.teams) for r in pairs.to_dict("records")]
    fit = _model_finding(cross)
    if len(items) <= 12:
        sec.add(BulletList(tuple(items) + ((fit,) if fit else ())))
    elif fit:
        sec.add(BulletList((fit,)))
    fig = plot_crosstable(cross, order, colours=colours, unit=unit).ax.figure
    shown = crosstable_pairs(cross, order)
    half = float(((shown["ci95_high"] - shown["ci95_low"]) / 2).max()) if len(shown) else math.nan
    sec.add(_figure(fig, "crosstable.png", "Head to head",
                    f"Paired difference A − B of the mean score per deal ({unit}), the same deals and seats, in the "
                    "colour of A; filled: the 95% interval excludes 0, hollow: it does not (no difference shown)"
                    + (f"; the widest interval is ±{fmt_number(half, 2)}" if not math.isnan(half) else "")
                    + (f". {len(shown)} of {len(pairs)} pairs: neighbours in the ranking (more than {MAX_PAIRS})"
                       if len(shown) < len(pairs) else "")
                    + (f". The pairs with `{outlier}` are in the lower panel, on a scale of their own"
                       if (outlier := crosstable_outlier(shown, order)) else "") + ".", dpi))
    rows = []
    for r in pairs.to_dict("records"):
        e = _diff(r["mean_diff"], r["ci95_low"], r["ci95_high"], unit,
                  _num(r["sd_diff"]) == 0 and _num(r["mean_diff"]) == 0)
        rows.append((f"`{r['policy']}`", f"`{r['opponent']}`", f"{int(r['deals']):,}", e.cell, e.significance,
                     f"{fmt_pct(r['p_deal_ahead'])} / {fmt_pct(r['p_deal_tied'])} / {fmt_pct(r['p_deal_behind'])}",
                     _share(r, "score_share").cell, fmt_pct(r["model_share"])))
    rows, note = _capped(rows, "pairs", "crosstable.csv")
    sec.add(Table((Column("A"), Column("B"), Column("deals", numeric=True),
                   Column("A − B", f"{unit}, 95% CI", True), Column("difference?"),
                   Column("A's deal total lower / level / higher", "% of deals", True),
                   Column("A finished ahead at the table", "% of comparisons, ties half, 95% CI", True),
                   Column("rating model", "% of comparisons", True)), tuple(rows),
                  caption="Head to head, one row per pair (`crosstable.csv` has both orders of every pair). *Rating "
                  "model*: the share the ratings predict; far from the observed share, the pair is not transitive "
                  "with the rest of the field.", note=note))
    return sec


def _t_tables(spec, tables) -> Section:
    sec = Section("Results per table", id="tables")
    if not len(tables):
        return sec
    rows = [(r["table"], f"`{r['policy']}`", str(int(r["seats"])), f"{int(r['rounds']):,}",
             _level(r["mean_score"], r["ci95_low"], r["ci95_high"], "").cell, _share(r, "p_out").cell,
             _share(r, "p_hand").cell, _share(r, "p_unopened").cell) for r in tables.to_dict("records")]
    rows, note = _capped(rows, "rows", "tables.csv")
    sec.add(Table((Column("table"), Column("policy"), Column("seats", numeric=True),
                   Column("player-rounds", numeric=True),
                   Column("mean score", "points per player-round, 95% CI", True),
                   Column("P(went out)", "% of player-rounds, 95% CI", True),
                   Column("P(Hand)", "% of player-rounds, 95% CI", True),
                   Column("P(unopened)", "% of player-rounds, 95% CI", True)), tuple(rows),
                  caption="Per table and policy, over every seating of the table (the deal is the unit of the "
                  "intervals).", note=note))
    return sec


def tournament_document(spec, frames: Mapping[str, Any], info: Mapping[str, Any], dpi: int = 100) -> Document:
    """The report of a tournament as a :class:`~handsim.report.document.Document` (figures included).

    Parameters
    ----------
    spec : handsim.tournament.TournamentSpec
    frames : dict
        ``ratings``, ``crosstable`` and ``tables`` (:meth:`TournamentResult.frames
        <handsim.tournament.TournamentResult.frames>`).
    info : dict
        run.json's fields; ``policies`` (label -> description), ``command``, ``version``,
        ``rounds_played`` and ``seconds`` are shown when present.
    dpi : int
        Resolution of the figures.

    Returns
    -------
    Document
        Sections *In brief*, *What was run*, *How to read this report*, *Ratings* (``ratings.png``),
        *Head to head* (``crosstable.png``), *Results per table*, *Files*.
    """
    ratings, cross, tables = frames["ratings"], frames["crosstable"], frames["tables"]
    order = ratings.sort_values("rank", kind="stable")["policy"].tolist() if len(ratings) else list(spec.labels)
    colours = policy_colours(list(spec.labels))
    played = int(ratings["deals"].iloc[0]) if len(ratings) else 0
    title = f"Tournament: {', '.join(spec.labels)}" + (" (partial results)" if played < spec.deals else "")
    who = "2 v 2" if spec.teams else f"{spec.players} players"
    doc = Document(title, lead=f"{len(spec.labels)} policies, {who}, rules {spec.rules.note()}; {played:,} deals, "
                   "each played at every seating of every table (duplicate format). Scores are penalty points: lower "
                   "is better.")
    doc.add(_t_summary(spec, ratings, cross, order, played))
    doc.add(_t_run(spec, info, played))
    doc.add(_t_how_to_read(spec))
    doc.add(_t_ratings(spec, ratings, colours, dpi))
    doc.add(_t_head_to_head(spec, cross, order, colours, dpi))
    doc.add(_t_tables(spec, tables))
    doc.add(_files_section({
        "ratings.csv": "one row per policy, best first: rating with its 95% interval, share of comparisons finished "
                       "ahead, comparisons, deals",
        "crosstable.csv": "every ordered pair: paired score difference with 95% CI and p-value, shares of deals "
                          "ahead / level / behind, finishing order at the table and the rating model's share",
        "tables.csv": "per table and policy: mean score and shares of player-rounds, with 95% CIs",
        "run.json": "the tournament's definition (what `--resume` reads), versions, timing",
        "checkpoint.npz": "the exact integer counters (`handsim report` redraws from them)",
    }))
    doc.unique_ids()
    return doc


# ---------------------------------------------------------------------------------- tune


def confirmation_finding(confirm: Mapping[str, Any], best: str, default: str, teams: bool = False) -> Finding:
    """The confirmation on fresh deals in words: *confirmed* only when the paired 95% interval of
    best − defaults lies below 0; a direction is stated only when the interval excludes 0."""
    e = _diff(confirm["diff"], confirm["diff_ci95_low"], confirm["diff_ci95_high"], score_unit(teams))
    where = f"on {int(confirm['deals']):,} fresh deals (seed {int(confirm['seed'])})"
    if e.significant and e.value < 0:
        text = (f"Confirmed {where}: `{best}` does better than the defaults `{default}` (scores less): best − "
                f"defaults = {e.text()}.")
    elif e.significant:
        text = (f"Not confirmed: {where} `{best}` does worse than the defaults `{default}` (scores more): best − "
                f"defaults = {e.text()}.")
    else:
        text = (f"Not confirmed: {where}, best − defaults (`{best}` − `{default}`) = {e.text()}: no difference "
                "shown.")
    return Finding(text, e)


def _search_finding(spec, tune, best, default) -> Finding:
    unit = score_unit(spec.teams)
    n = len(tune)
    if best["label"] == default["label"]:
        e = _level(best["mean_score"], best["ci95_low"], best["ci95_high"], unit)
        return Finding(f"Of {n:,} candidates, the defaults `{default['label']}` had the lowest mean score on the "
                       f"{spec.deals:,} tuning deals ({e.text(inner=True)}); there is nothing to confirm.", e)
    e = _diff(best["diff_vs_default"], best["diff_ci95_low"], best["diff_ci95_high"], unit)
    return Finding(f"Lowest mean score of {n:,} candidates on the {spec.deals:,} tuning deals: `{best['label']}`; "
                   f"against the defaults `{default['label']}` on the same deals: {e.text()}. Picked as the lowest "
                   "of many, it is biased in its own favour: the confirmation on fresh deals is the answer.", e)


def _edge_notes(spec, tune, best) -> list[str]:
    """The notes under a tuning run's best candidate: the edges of the searched range it lies on (a range bound
    that is also the parameter's allowed bound is the allowed limit: that side cannot be widened) and ties."""
    from ..policies import POLICIES

    notes = []
    edges, open_names, limit_names = [], [], []
    try:
        allowed = {p.name: p for p in POLICIES[spec.base.name].params}
    except KeyError:  # (a policy file not loaded: its bounds are not known here)
        allowed = {}
    for r in spec.ranges:
        grid = r.grid()
        v = float(best[r.name])
        if len(grid) > 1 and v in (grid[0], grid[-1]):
            low = v == grid[0]
            text = f"`{r.name}` = {_tick(v)} is at the {'low' if low else 'high'} end of its range ({r.text()})"
            p = allowed.get(r.name)
            if p is not None and v == float(p.lo if low else p.hi):
                text += (f", the {'lowest' if low else 'highest'} value `{r.name}` allows (allowed: "
                         f"{_tick(p.lo)}..{_tick(p.hi)})")
                limit_names.append(f"`{r.name}`")
            else:
                open_names.append(f"`{r.name}`")
            edges.append(text)
    if edges:
        text = "The best candidate lies on the edge of the searched range: " + "; ".join(edges) + "."
        if open_names:
            text += (" A wider range" + ("" if not limit_names else " of " + " and ".join(open_names))
                     + " may hold a better value.")
        if limit_names:
            one = len(limit_names) == 1
            text += (f" {' and '.join(limit_names)} {'is' if one else 'are'} at the allowed limit: the range cannot be "
                     "widened on that side.")
        notes.append(text)
    ties = tune[(tune["mean_score"] == best["mean_score"]) & ~tune["is_best"]]
    if len(ties):
        notes.append(f"{len(ties)} other candidate{'s' if len(ties) != 1 else ''} had exactly the best mean score; "
                     "the first in the order tried is reported.")
    return notes


def _u_summary(spec, tune, best, default, confirm) -> Section:
    sec = Section("In brief", id="in-brief")
    items = [_search_finding(spec, tune, best, default)]
    if confirm is not None:
        items.append(confirmation_finding(confirm, best["label"], default["label"], spec.teams))
    items += [Finding(t) for t in _edge_notes(spec, tune, best)]
    sec.add(BulletList(tuple(items)))
    return sec.add(Paragraph("Scores are penalty points: lower is better. Every candidate played the same deals"
                             + ("; the best was then played again, with the defaults, on fresh deals."
                                if confirm is not None else "."), note=True))


def _u_run(spec, tune, info) -> Section:
    unit = score_unit(spec.teams)
    params = ", ".join(f"`{r.name}` in {r.text()}" for r in spec.ranges)
    on_grid = int(tune["on_grid"].sum())
    default_on_grid = bool(tune.loc[tune["is_default"], "on_grid"].any())
    strategy = (f"a full grid ({on_grid:,} candidates" + ("" if default_on_grid else ", and the defaults") + ")"
                if spec.strategy == "grid" else
                f"optuna's TPE sampler (seed {spec.seed}), {spec.trials} proposals in batches of {spec.batch}")
    who = "its team's score (both partners)" if spec.teams else "its own score"
    bullets = [
        f"**Tuned:** `{spec.base.label}` (the defaults), parameters {params}; search: {strategy}.",
        "**Against:** " + ", ".join(f"`{a.label}`" for a in spec.against)
        + (" (line-up positions 2, 3 and 4: the second, at position 3, is the partner)" if spec.teams else "")
        + f"; rules: {spec.rules.note()}.",
        f"**Objective:** {who}, mean {unit} (lower is better), every candidate on the same {spec.deals:,} deals "
        f"(seed {spec.seed}: common random numbers).",
        f"**Confirmation:** {spec.confirm_deals:,} fresh deals of seed {spec.confirm_seed}, none of them used in "
        "the search.",
    ] + _run_details(info)
    return Section("What was run", id="run").add(BulletList(tuple(bullets)))


def _u_how_to_read(spec) -> Section:
    unit = score_unit(spec.teams)
    items = [
        ("**Mean score**: the tuned team's points per round, both partners summed (points per team-round; "
         if spec.teams else "**Mean score**: the tuned player's points per round (points per player-round; ")
        + "RULES.md §6), lower is better.",
        "**− defaults**: a candidate's mean minus the defaults' on the same deals (paired, deal by deal), with its "
        "95% CI. A difference whose interval includes 0 is *not significant* and given no direction.",
        "The candidates are ordered by their mean on the tuning deals; the order of candidates whose differences "
        "from the defaults overlap is not established. The lowest of many noisy means is biased low (the winner's "
        "curse), so the best is played again on fresh deals: that confirmation is the answer.",
    ]
    return Section("How to read this report", id="how-to-read").add(BulletList(tuple(items)))


def _u_search(spec, tune, best, figure_kind, dpi) -> Section:
    from .plots import plot_tune_curve, plot_tune_grid, plot_tune_history

    unit = score_unit(spec.teams)
    names = spec.param_names()
    sec = Section("Search", id="search")
    if figure_kind == "grid":
        fig = plot_tune_grid(tune, names, unit=unit).ax.figure
        caption = (f"Mean score ({unit}, lower is better) of every candidate on the tuning deals, over the grid of "
                   f"`{names[0]}` and `{names[1]}`; colours span the better half of the grid (worse cells take the "
                   "last colour). Red outline: the candidate's paired 95% CI against the defaults lies below 0; red "
                   "star: the best; dashed white frame: the defaults (when on the grid).")
        title = "Mean score over the grid"
    elif figure_kind == "curve":
        fig = plot_tune_curve(tune, names[0], unit=unit).ax.figure
        caption = (f"Each candidate's mean score minus the defaults' on the same deals ({unit}, paired 95% CI; "
                   f"below 0 it scores less) against `{names[0]}`; points, not lines (the values are discrete); "
                   "filled: the interval excludes 0.")
        title = f"Candidates against {names[0]}"
    else:
        fig = plot_tune_history(tune, unit=unit).ax.figure
        caption = (f"Each candidate's mean score minus the defaults' on the same deals ({unit}, paired 95% CI) in "
                   "the order the search tried them; the line is the lowest so far.")
        title = "The search, in the order tried"
    half = float(((tune["diff_ci95_high"] - tune["diff_ci95_low"]) / 2).max()) if len(tune) else math.nan
    if not math.isnan(half):
        caption += f" The widest paired interval against the defaults is ±{fmt_number(half, 2)}."
    sec.add(_figure(fig, "tune.png", title, caption, dpi))
    top = tune.sort_values(["rank"], kind="stable").head(10)
    rows = []
    for r in top.to_dict("records"):
        d = _diff(r["diff_vs_default"], r["diff_ci95_low"], r["diff_ci95_high"], unit)
        rows.append((str(int(r["rank"])), f"`{r['label']}`" + (" (defaults)" if r["is_default"] else ""),
                     _level(r["mean_score"], r["ci95_low"], r["ci95_high"], unit).cell,
                     "0 (the reference)" if r["is_default"] else d.cell,
                     "–" if r["is_default"] else d.significance, fmt_pct(r["p_unopened"]),
                     _level(r["opponents_mean_score"], r["opponents_ci95_low"], r["opponents_ci95_high"], "").cell))
    sec.add(Table((Column("rank", numeric=True), Column("candidate"), Column("mean score", f"{unit}, 95% CI", True),
                   Column("− defaults", f"{unit}, paired 95% CI", True), Column("difference?"),
                   Column("P(unopened)", "% of its player-rounds", True),
                   Column("opponents' score", "points per player-round, 95% CI", True)), tuple(rows),
                  caption=f"The {len(top)} candidates with the lowest mean of {len(tune):,} on the tuning deals "
                  "(`tune.csv` has all). The rank follows the mean; candidates whose intervals overlap are not "
                  "established in that order."))
    for t in _edge_notes(spec, tune, best):
        sec.add(Paragraph(t, note=True))
    return sec


def _u_confirm(spec, best, default, confirm, dpi) -> Section:
    from .plots import plot_tune_confirm

    unit = score_unit(spec.teams)
    sec = Section("Confirmation on fresh deals", id="confirmation")
    if confirm is None:
        return sec.add(Paragraph("The defaults were the best candidate; there is nothing to confirm."))
    sec.add(BulletList((confirmation_finding(confirm, best["label"], default["label"], spec.teams),)))
    fig = plot_tune_confirm(best, confirm, unit=unit).ax.figure
    sec.add(_figure(fig, "confirm.png", "The best against the defaults, twice",
                    f"Best − defaults ({unit}, paired 95% CI) on the tuning deals, where the best was picked as the "
                    "lowest of all candidates (so biased in its favour), and on the fresh deals of the confirmation; "
                    "filled: the interval excludes 0.", dpi))
    e = _diff(confirm["diff"], confirm["diff_ci95_low"], confirm["diff_ci95_high"], unit)
    rows = (("best", f"`{best['label']}`",
             _level(confirm["best_mean"], confirm["best_ci95_low"], confirm["best_ci95_high"], unit).cell),
            ("defaults", f"`{default['label']}`",
             _level(confirm["default_mean"], confirm["default_ci95_low"], confirm["default_ci95_high"], unit).cell),
            ("best − defaults", "paired, same deals", e.cell + f" ({e.significance})"))
    sec.add(Table((Column(""), Column("policy"), Column("mean score", f"{unit}, 95% CI", True)), rows,
                  caption=f"{int(confirm['deals']):,} fresh deals of seed {int(confirm['seed'])}."))
    return sec


def tune_document(spec, frames: Mapping[str, Any], info: Mapping[str, Any], dpi: int = 100) -> Document:
    """The report of a tuning run as a :class:`~handsim.report.document.Document` (figures included).

    Parameters
    ----------
    spec : handsim.tournament.tune.TuneSpec
    frames : dict
        ``tune`` (every candidate, as in ``tune.csv``) and ``confirm`` (:attr:`TuneResult.confirm
        <handsim.tournament.tune.TuneResult>`, None when the defaults were the best).
    info : dict
        run.json's fields (``command``, ``version``, ``rounds_played``, ``seconds`` are shown).
    dpi : int

    Returns
    -------
    Document
        Sections *In brief*, *What was run*, *How to read this report*, *Search* (``tune.png``: a heat map
        for two grid parameters, the paired differences against one, the search history for TPE),
        *Confirmation on fresh deals* (``confirm.png``), *Use the result*, *Files*.
    """
    tune, confirm = frames["tune"], frames.get("confirm")
    best = tune[tune["is_best"]].iloc[0].to_dict()
    default = tune[tune["is_default"]].iloc[0].to_dict()
    names = spec.param_names()
    kind = ("grid" if len(names) == 2 else "curve") if spec.strategy == "grid" else "history"
    doc = Document(f"Tuning {spec.base.name}: " + ", ".join(names),
                   lead=f"`{spec.base.label}` against " + ", ".join(f"`{a.label}`" for a in spec.against)
                   + f", rules {spec.rules.note()}; {len(tune):,} candidates on {spec.deals:,} deals, the best "
                   f"confirmed on {spec.confirm_deals:,} fresh deals. Scores are penalty points: lower is better.")
    doc.add(_u_summary(spec, tune, best, default, confirm))
    doc.add(_u_run(spec, tune, info))
    doc.add(_u_how_to_read(spec))
    doc.add(_u_search(spec, tune, best, kind, dpi))
    doc.add(_u_confirm(spec, best, default, confirm, dpi))
    doc.add(Section("Use the result", id="use").add(Paragraph(
        "`best.toml` holds the best parameters as a policy: `handsim simulate --policy @best.toml`, "
        "`handsim tournament --policy @best.toml --policy greedy`, or in a line-up "
        "`--lineup @best.toml,greedy,greedy,greedy`.")))
    doc.add(_files_section({
        "tune.csv": "every candidate in the order tried: its parameters, mean score with 95% CI, paired difference "
                    "from the defaults with 95% CI, shares of player-rounds, opponents' score, rank",
        "best.toml": "the best candidate as a policy file",
        "run.json": "the tuning run's definition (what `--resume` reads), the confirmation, timing",
        "stages/": "one checkpoint per stage of the search and of the confirmation (`--resume` and "
                   "`handsim report` read them)",
    }))
    doc.unique_ids()
    return doc
