"""Classic Hand's report of a study: :func:`build` (the document) and :func:`write_report` (its files).

:func:`build` turns the DataFrames of :class:`handsim.games.hand.stats.StudyAccumulator` into a
:class:`~handsim.report.document.Document`: an executive summary that answers the study's
question in a few sentences with their 95% CIs, what was run and how to read it, then one
section per question (:mod:`handsim.games.hand.sections`), then the full tables and the files.
:func:`write_report` writes the CSV tables, the figures and ``report.md`` / ``report.html`` with
the shared renderers (:func:`handsim.report.files.write_document`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from handsim._io import atomic_write
from handsim.report import plots as figures
from handsim.report.document import (BulletList, Column, Document, Finding, Paragraph, Section, Table, fmt_number,
                                     fmt_pct, resumed_bullet)
from handsim.report.plots import human, lineup_text, spread_pick, value_text
from handsim.report.files import FORMATS, check_formats, write_document
from handsim.games.hand.rules import PARAMS

from . import plots
from .findings import (MAX_ROWS, PR, StudyView, TR, capped, change_verb, estimate, flip_lineup_pairs, has_joker_left,
                       has_matches, is_nan, lineup_policies, option_columns, paired_rates, quantiles_from_histograms,
                       share_estimate, versus_from_summary)
from .brief import brief_section
from .sections import (effect_section, levels_section, lineups_section, matches_section, partnership_section,
                       round_section, versus_section)
from .tables import SPREAD_COLUMNS, team_margin_table

__all__ = ["build", "write_report"]


def write_report(out_dir, summary: pd.DataFrame, paired: pd.DataFrame, histograms: Mapping[str, pd.DataFrame],
                 run_info: Mapping[str, Any], *, versus: pd.DataFrame | None = None,
                 lineup_pairs: pd.DataFrame | None = None, totals: pd.DataFrame | None = None,
                 formats: Sequence[str] = FORMATS) -> Path:
    """Write the CSV tables, the figures and the report (``report.md`` and/or ``report.html``) into ``out_dir``.

    Every file is written atomically (a temporary file in ``out_dir``, then ``os.replace``).

    Parameters
    ----------
    out_dir : str or Path
        Folder (created if needed).
    summary, paired : pandas.DataFrame
        From :class:`handsim.games.hand.stats.StudyAccumulator`.
    histograms : dict
        From :meth:`~handsim.games.hand.stats.StudyAccumulator.histograms` (``"turns"``, ``"total"``,
        ``"team_total"`` and ``"team_margin"`` are used).
    run_info : dict
        What was run; every key is optional.  Known keys: ``title``, ``players``, ``deals`` (per
        configuration and line-up), ``seed``, ``preset``, ``rules`` (option -> value of the base
        rules, e.g. ``Rules.to_dict()``), ``seconds`` (simulation wall time), ``rounds_per_s``,
        ``rounds_played``, ``policies`` (name -> one-line description), ``command``,
        ``version``.  ``spec`` is not shown (it is in ``run.json``); other keys are listed under
        "Other run details".
    versus : pandas.DataFrame, optional
        :meth:`~handsim.games.hand.stats.StudyAccumulator.versus`; without it, policies are compared from the
        summary with an unpaired (conservative) interval.
    lineup_pairs : pandas.DataFrame, optional
        :meth:`~handsim.games.hand.stats.StudyAccumulator.lineup_pairs` (line-ups that differ in one
        position); written to ``lineups.csv`` and reported when not empty.
    totals : pandas.DataFrame, optional
        :meth:`~handsim.games.hand.stats.StudyAccumulator.total_quantiles`; without it, computed from
        ``histograms["total"]`` / ``["team_total"]``.
    formats : sequence of str
        Any of ``"md"`` (``report.md`` and its PNG figures) and ``"html"`` (``report.html``, the
        figures embedded); default both.

    Returns
    -------
    pathlib.Path
        The path of ``report.md`` (of ``report.html`` when only HTML is written).

    Raises
    ------
    ValueError
        An unknown or empty ``formats``.

    Notes
    -----
    Files written: ``summary.csv``, ``paired.csv``, ``versus.csv``, ``lineups.csv`` (when
    ``lineup_pairs`` is given), ``totals.csv`` (when matches were played), ``team_margin.csv``
    (partnership matches: :func:`handsim.games.hand.tables.team_margin_table`), the report files and,
    with ``"md"``, one PNG per figure (``effect_<option>.png``, ``mean_score.png``,
    ``p_unopened.png``, ``p_hand.png``, ``versus.png``, ``lineups.png``, ``match_win.png``,
    ``final_totals.png``, ``team_totals.png``, ``team_margin.png``, ``team_score.png``, ``round_length.png``, those
    that have data).  Summary rows of teams (``seat`` = ``"team A"`` / ``"team B"``) appear in a
    "Partnership" section, not in the per-policy tables.
    """
    formats = check_formats(formats)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if versus is None:
        table_versus = versus_from_summary(summary) if len(summary) else pd.DataFrame()
    else:
        table_versus = versus
    csv_files = ["summary.csv", "paired.csv", "versus.csv"]
    atomic_write(out / "summary.csv", summary.to_csv(index=False).encode("utf-8"))
    atomic_write(out / "paired.csv", paired.to_csv(index=False).encode("utf-8"))
    atomic_write(out / "versus.csv", table_versus.to_csv(index=False).encode("utf-8"))
    if lineup_pairs is not None:
        atomic_write(out / "lineups.csv", lineup_pairs.to_csv(index=False).encode("utf-8"))
        csv_files.append("lineups.csv")
    if _has_totals(totals, histograms):
        csv_files.append("totals.csv")
    if _has_margin(histograms):
        csv_files.append("team_margin.csv")
    doc = build(summary, paired, histograms, run_info, versus=versus, lineup_pairs=lineup_pairs, totals=totals,
                csv_files=csv_files)
    if _has_totals(totals, histograms):
        t = totals if totals is not None else quantiles_from_histograms(histograms)
        atomic_write(out / "totals.csv", t.to_csv(index=False).encode("utf-8"))
    if _has_margin(histograms):
        atomic_write(out / "team_margin.csv", _margin_table(histograms).to_csv(index=False).encode("utf-8"))
    return write_document(out, doc, formats)


def _has_margin(histograms) -> bool:
    return bool(histograms) and histograms.get("team_margin") is not None and len(histograms["team_margin"]) > 0


def _margin_table(histograms) -> pd.DataFrame:
    h = histograms["team_margin"]
    return team_margin_table(h, figures.varying(h))


def _has_totals(totals, histograms) -> bool:
    if totals is not None:
        return len(totals) > 0
    return bool(histograms) and histograms.get("total") is not None and len(histograms["total"]) > 0


def _run_section(st: StudyView) -> Section:
    info = dict(st.info)
    sec = Section("What was simulated", level=2, id="run")
    players = info.pop("players", None) or st.players or None
    deals = info.pop("deals", None)
    if deals is None and len(st.allrows):
        deals = int(st.allrows["deals"].max())
    seed = info.pop("seed", None)
    preset = info.pop("preset", None)
    rules = info.pop("rules", None)
    seconds = info.pop("seconds", None)
    rps = info.pop("rounds_per_s", None)
    total_rounds = info.pop("rounds_played", None)
    if total_rounds is None and len(st.allrows):
        total_rounds = int(st.allrows.drop_duplicates(st.options + ["lineup"])["deals"].sum())
    if rps is None and seconds and total_rounds:
        rps = total_rounds / float(seconds)
    policies = info.pop("policies", None)
    command = info.pop("command", None)
    resumed = resumed_bullet(info.pop("resumed", None))
    version = info.pop("version", None)
    for k in ("title", "spec"):
        info.pop(k, None)
    bullets = []
    if players is not None:
        bullets.append(f"**Players:** {players} seats. Seats are counted from the starter (seat 0, who is dealt the "
                       "extra card and plays first), then in playing order.")
    if deals is not None:
        bullets.append(f"**Deals:** {int(deals):,} per configuration and line-up. Every configuration and line-up "
                       "plays the *same* deals (same shuffles, same dealer: common random numbers), so differences "
                       "between them are measured deal by deal.")
    if seed is not None:
        bullets.append(f"**Seed:** {seed} (deal *i* is reproducible on its own from the seed and *i*).")
    if total_rounds:
        bullets.append(f"**Rounds simulated:** {int(total_rounds):,} in all.")
    if rps:
        speed = f"**Speed:** {float(rps):,.0f} rounds/s"
        if seconds:
            speed += f" ({float(seconds):,.1f} s of simulation)"
        bullets.append(speed + ".")
    elif seconds:
        bullets.append(f"**Time:** {float(seconds):,.1f} s.")
    if preset is not None:
        bullets.append(f"**Rules preset:** `{preset}`.")
    if version is not None:
        bullets.append(f"**handsim version:** {version}.")
    if command is not None:
        bullets.append(f"**Command:** `{command}`.")
    if resumed:
        bullets.append(resumed)
    if bullets:
        sec.add(BulletList(tuple(bullets)))
    if st.options:
        n_cfg = int(np.prod([len(v) for v in st.values.values()])) if st.values else 0
        lines = []
        for o in st.options:
            vals = [value_text(v) for v in st.values.get(o, [])]
            shown = ", ".join(vals) if len(vals) <= 12 else ", ".join(vals[:5]) + f", … , {vals[-1]} ({len(vals)} values)"
            lines.append(f"`{o}`: {shown}")
        sec.add(Paragraph(f"**Rule options that vary** (names as in RULES.md), {n_cfg:,} configuration{'' if n_cfg == 1 else 's'} in all; "
                          "the first value of each is the baseline of the comparisons:"), BulletList(tuple(lines)))
    else:
        sec.add(Paragraph("No rule option varies: one configuration."))
    if isinstance(rules, Mapping) and rules:
        order = {p.name: i for i, p in enumerate(PARAMS)}
        items = sorted(rules.items(), key=lambda kv: order.get(kv[0], len(order)))
        rows = tuple((f"`{k}`", "*varies*" if k in st.options else value_text(v)) for k, v in items)
        sec.add(Table((Column("option"), Column("value")), rows,
                      caption="**All rule options** (the varying ones take each value listed above)."))
    if st.lineups:
        sec.add(Table((Column("#", numeric=True), Column("line-up")),
                      tuple((str(i + 1), lineup_text(lu)) for i, lu in enumerate(st.lineups)),
                      caption="Line-ups: the policy at each line-up position; the dealer moves every deal, so each "
                      "policy sits in every relative seat in turn."))
    if isinstance(policies, Mapping) and policies:
        # in line-up order (run.json keeps them sorted by name, so simulate and 'handsim report' agree)
        first = {p: i for i, p in enumerate(dict.fromkeys(p for lu in st.lineups for p in lineup_policies(lu)))}
        items = sorted(policies.items(), key=lambda kv: (first.get(kv[0], len(first)), kv[0]))
        sec.add(Paragraph("**Policies:**"), BulletList(tuple(f"`{k}`: {v}" for k, v in items)))
    if info:
        sec.add(Paragraph("**Other run details:**"), BulletList(tuple(f"{k}: {v}" for k, v in sorted(info.items()))))  # (run.json's order)
    return sec


def score_words(rules: Mapping[str, Any] | None, varied: Sequence[str] = ()) -> str:
    """How a round is scored, in words, with the study's ``out_score``, ``hand_score``,
    ``unopened_points`` and ``unopened_penalty`` (RULES.md §6).

    Parameters
    ----------
    rules : mapping or None
        The run's rules (``run.json``'s ``rules``); a missing option takes its default.
    varied : sequence of str
        Options the configurations vary: named, not given a value.

    Returns
    -------
    str
        E.g. "the value of the cards left in hand, plus 100 for a player who never opened; −30 for
        going out, −60 for a Hand".
    """
    rules = rules if isinstance(rules, Mapping) else {}
    defaults = {p.name: p.default for p in PARAMS}

    def value(name: str) -> str:
        if name in varied:
            return f"each configuration's `{name}`"
        return str(int(rules.get(name, defaults[name]))).replace("-", "−")

    if "unopened_penalty" in varied:
        unopened = (f"plus {value('unopened_points')} for a player who never opened (or that in all, by each "
                    "configuration's `unopened_penalty`)")
    elif rules.get("unopened_penalty", defaults["unopened_penalty"]) == "flat":
        unopened = f"or {value('unopened_points')} in all for a player who never opened"
    else:
        unopened = f"plus {value('unopened_points')} for a player who never opened"
    return (f"the value of the cards left in hand, {unopened}; {value('out_score')} for going out, "
            f"{value('hand_score')} for a Hand")


def _how_to_read(st: StudyView) -> Section:
    items = [
        "**Score** is the points a player gets for one round (RULES.md §6): "
        f"{score_words(st.info.get('rules'), st.options)} (which may double the others). **Lower "
        "is better.** Void rounds score 0 for everyone and are included. Scores and their differences are in points "
        "per player-round (one player's points in one round); a team's are in points per team-round (both partners "
        "summed); match results are shares of matches.",
        "**95% CI** is a 95% confidence interval. For a policy over all its seats the unit is the deal (the match for "
        "match results): a policy holding several seats of a deal counts as one observation, its mean over them, so "
        "the interval stays honest. Shares use Wilson intervals with one observation per unit, otherwise a t "
        "interval over the per-deal (per-match) shares.",
        "**Differences** are paired wherever the design allows: the two sides played the same deals. A difference "
        "whose interval includes 0 is called *not significant* and no direction is claimed for it; *no change* "
        "means it was 0 in every deal. **pp** = percentage points (a difference of two shares).",
        "**P(unopened)**: share of player-rounds in which the player never laid down an opening. **P(Hand)**: share "
        "of player-rounds in which the player went out in a single turn. **P(joker left)**: share of player-rounds "
        "that end with at least one joker in the player's hand (each costs `joker_penalty`; void rounds included; "
        "a study run before handsim counted it shows no such column). **Turns** count all players' turns together.",
        "Figures: one colour per policy (and per team) throughout; the values of a rule option are drawn as points, "
        "not joined by lines; error bars are 95% CIs drawn over hollow markers.",
    ]
    return Section("How to read this report", level=2, id="how-to-read",
                   fold="Show the five notes: score, 95% CI, differences, the shares, figures").add(
        BulletList(tuple(items)))


def _tables_section(st: StudyView) -> Section | None:
    s = st.summary
    if not len(s):
        return None
    sec = Section("Tables", level=2, id="tables")
    df = s[s["seat"] == "all"]
    jokers = has_joker_left(df)
    rows = []
    for r in df.to_dict("records"):
        line = tuple(value_text(r[o]) for o in st.options) + (
            lineup_text(r["lineup"]), r["policy"], f"{int(r['deals']):,}",
            estimate(r, "mean_score", "ci95_low", "ci95_high", diff=False).cell,
            share_estimate(r, "p_out").cell, share_estimate(r, "p_hand").cell, share_estimate(r, "p_unopened").cell) + (
            (share_estimate(r, "p_joker_left").cell,) if jokers else ()) + (
            fmt_number(r["mean_turns"]), fmt_pct(r["void_rate"]))
        rows.append(line)
    rows, note = capped(rows, "rows", "summary.csv", st.max_rows)
    sub = Section("Mean score and outcomes, all seats of each policy", level=3, id="table-main")
    sub.add(Table(tuple(option_columns(st.options)) + (
        st.lineup_column(), Column("policy"), Column("deals", numeric=True),
        Column("mean score", "points per round, 95% CI", True), Column("P(went out)", "%, 95% CI", True),
        Column("P(Hand)", "%, 95% CI", True), Column("P(unopened)", "%, 95% CI", True))
        + ((Column("P(joker left)", "%, 95% CI", True),) if jokers else ())
        + (Column("round length", "turns", True), Column("void rounds", "%", True)), tuple(rows), note=note))
    sec.add(sub)
    spread = _spread_table(st, df)
    if spread is not None:
        sec.add(spread)
    seats = sorted({x for x in s["seat"].tolist() if x != "all"}, key=int)
    body = []
    groups: dict[tuple, dict] = {}  # (options, line-up, policy) -> seat -> row, in order of appearance
    for r in s[s["seat"] != "all"].to_dict("records"):  # (one pass: a groupby's frame per group took seconds)
        key = tuple(value_text(r[o]) for o in st.options) + (r["lineup"], r["policy"])
        groups.setdefault(key, {})[r["seat"]] = r
    for recs in groups.values():
        first = next(iter(recs.values()))
        line = tuple(value_text(first[o]) for o in st.options) + (lineup_text(first["lineup"]), first["policy"])
        for x in seats:
            r = recs.get(x)
            if r is None or r["rounds"] == 0 or is_nan(r["ci95_high"]):
                line += ("–" if r is None or r["rounds"] == 0 else fmt_number(r["mean_score"]),)
            else:
                line += (f"{fmt_number(r['mean_score'])} ± {fmt_number((r['ci95_high'] - r['ci95_low']) / 2)}",)
        body.append(line)
    body, note = capped(body, "rows", "summary.csv", st.max_rows)
    sub = Section("Mean score by seat", level=3, id="table-seats")
    sub.add(Paragraph("Points per round ± half-width of the 95% CI. Seat 0 is the starter (dealt one extra card, "
                      "plays first)."),
            Table(tuple(option_columns(st.options)) + (st.lineup_column(), Column("policy"))
                  + tuple(Column(f"seat {x}", "points", True) for x in seats), tuple(body), note=note))
    sec.add(sub)
    return sec


def _spread_table(st: StudyView, df: pd.DataFrame) -> Section | None:
    """The spread of one player's round score per policy (``score_p10`` ... ``share_over_100``), or None
    when the summary has none of it."""
    if not all(col in df.columns for col in SPREAD_COLUMNS) or not df["score_p50"].notna().any():
        return None
    rows = [tuple(value_text(r[o]) for o in st.options) + (
        lineup_text(r["lineup"]), r["policy"], fmt_number(r["score_p10"]), fmt_number(r["score_p50"]),
        fmt_number(r["score_p90"]), fmt_pct(r["share_over_100"])) for r in df.to_dict("records")]
    rows, note = capped(rows, "rows", "summary.csv", st.max_rows)
    sub = Section("Score per round: the spread", level=3, id="table-spread")
    sub.add(Paragraph("How one player's score in a round spreads, over all seats of each policy: a tenth of the "
                      "player-rounds score at most p10 points, half at most the median, nine tenths at most p90; the "
                      "last column is the share of player-rounds that cost more than 100 points (an unopened player "
                      f"{st.unopened_words()}). They describe the rounds played and carry no interval."),
            Table(tuple(option_columns(st.options)) + (
                st.lineup_column(), Column("policy"), Column("p10", "points", True), Column("median", "points", True),
                Column("p90", "points", True), Column("over 100", "% of player-rounds", True)), tuple(rows), note=note))
    return sub


def _files_section(st: StudyView, csv_files: Sequence[str]) -> Section:
    what = {
        "summary.csv": "every statistic per configuration, line-up, policy and seat (and team)",
        "summary.parquet": "the same as Parquet",
        "paired.csv": "every paired difference between configurations that differ in one option",
        "versus.csv": "policies compared within a line-up",
        "lineups.csv": "line-ups that differ in one position, compared deal by deal (and match by match)",
        "totals.csv": "quantiles of the final match totals per policy" + (" and team" if st.teams else ""),
        "team_margin.csv": "the team margin (team A's final match total minus team B's) per configuration and "
                           "line-up: mean with 95% CI, shares below, at and above 0, quantiles",
    }
    return Section("Files", level=2, id="files").add(
        BulletList(tuple(f"`{f}`: {what[f]}." for f in csv_files if f in what)))


# ----------------------------------------------------------------------------------------------


def build(summary: pd.DataFrame, paired: pd.DataFrame, histograms: Mapping[str, pd.DataFrame] | None,
          run_info: Mapping[str, Any], *, versus: pd.DataFrame | None = None,
          lineup_pairs: pd.DataFrame | None = None, totals: pd.DataFrame | None = None,
          csv_files: Sequence[str] = (), max_rows: int = MAX_ROWS, dpi: int = 100) -> Document:
    """The report of a study as a :class:`~handsim.report.document.Document` (figures included).

    Parameters are those of :func:`handsim.games.hand.report.write_report`; ``csv_files`` lists the table
    files written next to the report (for the *Files* section), ``max_rows`` caps every table.

    Returns
    -------
    Document
    """
    paired_ci = versus is not None
    if versus is None:
        versus = versus_from_summary(summary) if len(summary) else pd.DataFrame()
    if totals is None:
        totals = quantiles_from_histograms(histograms)
    st = StudyView(summary, paired, histograms, run_info, versus, flip_lineup_pairs(lineup_pairs), totals, paired_ci,
                max_rows, dpi)
    title = str(run_info.get("title", "Hand (هاند) strategy study"))
    doc = Document(title)
    n_rounds = run_info.get("rounds_played")
    lead = []
    if st.lineups:
        lead.append(f"{len(st.lineups)} line-up{'' if len(st.lineups) == 1 else 's'}")
    if st.options and st.values:
        lead.append(", ".join(f"{human(o)} {' / '.join(value_text(v) for v in st.values[o])}" if len(st.values[o]) <= 6
                              else f"{human(o)} ({len(st.values[o])} values)" for o in st.options))
    if n_rounds:
        lead.append(f"{int(n_rounds):,} rounds")
    doc.lead = ("Study of " + "; ".join(lead) + ". Scores are points per player-round: lower is better.") if lead else ""
    doc.add(brief_section(st))
    doc.add(_run_section(st))
    doc.add(_how_to_read(st))
    if len(st.summary):
        for option in st.options:
            if len(paired) and (paired["parameter"] == option).any():
                doc.add(effect_section(st, option))
        doc.add(levels_section(st))
        doc.add(versus_section(st))
        doc.add(lineups_section(st))
        doc.add(matches_section(st))
        doc.add(partnership_section(st))
        doc.add(round_section(st))
        doc.add(_tables_section(st))
    doc.add(_files_section(st, csv_files))
    doc.unique_ids()
    return doc
