"""The sections of classic Hand's report that answer one question each: the effect of each rule option,
the levels, policy against policy, switching one seat, matches, partnership (with the team
margin) and round length, each with its figure and table, read from a
:class:`~handsim.games.hand.findings.StudyView`.

Comparisons listed in the text are the ones against the baseline (first) value of an option,
tables keep at most ``max_rows`` rows (the CSV files have all), and figures draw points, not one
label per comparison, so that studies with many configurations stay readable.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from handsim.report import plots as figures
from handsim.report.document import BulletList, Column, Finding, Paragraph, Section, Table, fmt_number, fmt_pct
from handsim.report.plots import human, lineup_text, spread_pick, value_text

from . import plots
from .findings import (LINEUP_NO, MAX_PANELS, PM, PR, StudyView, TR, bars_note, capped, config_text, estimate,
                       extremes, has_joker_left, has_matches, is_team, lineup_policies, option_columns, paired_rates,
                       share_estimate, widest)

from .tables import team_margin_table

__all__ = ["effect_section", "levels_section", "versus_section", "lineups_section", "matches_section",
           "partnership_section", "round_section", "lineup_figure", "MAX_CHANGES", "RANKED"]

#: Switches of one line-up position that the figure of *Switching one seat* draws as a series each;
#: beyond, it draws the :data:`RANKED` with the lowest and the highest difference.
MAX_CHANGES = 12
#: Rows of each end of a ranked figure or table (the lowest and the highest).
RANKED = 10


def lineup_figure(st: StudyView, lineups, draw, name: str, title: str, caption: str, *, w: float = 6.0,
                  h: float = 3.8, every=None, every_caption: str = "", every_skip=(), csv: str = "summary.csv",
                  legend: bool = True, title_loc: str | None = None):
    """A figure with one panel per line-up (``draw(ax, lineup)`` draws one), or, for more than
    :data:`~handsim.games.hand.findings.MAX_PANELS` line-ups, one that summarises.

    Many line-ups: ``every(ax)`` draws all of them in one panel, x the line-up's number in *What was
    simulated*, at the first value of every option but those in ``every_skip`` (:meth:`StudyView.at_first`),
    captioned ``every_caption``; a figure without ``every`` (a distribution) draws the
    panels of ``MAX_PANELS`` line-ups (the first, the last, evenly spaced ones between) and its
    caption says so, naming ``csv`` for the rest.  Returns the report's
    :class:`~handsim.report.document.Figure`.
    """
    lineups = list(lineups)
    if len(lineups) > MAX_PANELS and every is not None:
        from matplotlib.ticker import MaxNLocator

        fig = figures.new_figure((2 * w, h + 1.2))
        ax = fig.add_subplot()
        every(ax)
        ax.set_xlabel("line-up (its number in What was simulated)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        kept, grey = figures.cap_series(ax)
        figures.figure_legend(fig, [ax])
        note = st.overview_note(csv, every_skip)
        if grey:
            note += (f" {kept + grey} series (a policy, and the values of other options): the {kept} with the most "
                     f"points keep a colour and a legend entry each, the other {grey} are drawn in grey without a "
                     f"name (more than {figures.MAX_SERIES}); `{csv}` has them.")
        return st.figure(fig, name, title, every_caption + note, legend=False)
    if len(lineups) > MAX_PANELS:
        shown = figures.spread_pick(lineups, MAX_PANELS)
        caption += st.shown_note(shown, len(lineups), csv)
        lineups = shown
    fig, axes = figures.grid(len(lineups), 2 if len(lineups) > 1 else 1, w, h)
    for ax, lu in zip(axes, lineups):
        draw(ax, lu)
        ax.set_title(st.panel_title(lu), fontsize="medium", **({"loc": title_loc} if title_loc else {}))
    return st.figure(fig, name, title, caption, legend=legend)


def effect_section(st: StudyView, option: str) -> Section:
    p = st.paired[st.paired["parameter"] == option]
    values = st.values[option]
    base = values[0]
    others = [o for o in st.options if o != option]
    sec = Section(f"Effect of the {human(option)}", level=2, id=f"effect-{option}")
    sec.add(Paragraph(
        f"Each comparison changes only `{option}` and plays the *same* deals, so the difference is measured deal "
        f"by deal: Δ = the value named minus the baseline {value_text(base)} (the first value studied). Scores are "
        "penalty points, so Δ > 0 means the policy scores more (worse)."))
    brows = plots.baseline_rows(p, option, base)
    items: list[Finding] = []
    firsts = {o: st.values[o][0] for o in others}
    for (lu, pol), g in brows.groupby(["lineup", "policy"], sort=False):
        if lu not in st.shown:  # many line-ups: the findings of some (the table and paired.csv have all)
            continue
        g0 = g
        for o, v in firsts.items():
            g0 = g0[g0[o].map(value_text) == value_text(v)]
        targets = spread_pick([r for r in g0.to_dict("records")], 3)
        if not targets:
            continue
        alone = len(set(lineup_policies(lu))) == 1
        parts = []
        for r in targets:
            e = estimate(r, "mean_diff", "ci95_low", "ci95_high", PR)
            parts.append(f"{value_text(r['to_value'])}: {e.text()}")
        last = targets[-1]
        e_last = estimate(last, "mean_diff", "ci95_low", "ci95_high", PR)
        # the share that moves most, with its levels
        r1 = st.row({**st.config_of(last), option: base}, lu, pol)
        r2 = st.row({**st.config_of(last), option: last["to_value"]}, lu, pol)
        why = ""
        if r1 is not None and r2 is not None:
            rates = paired_rates(last)
            shown = [max(rates[:2], key=lambda k: abs(float(last[f"{k}_diff"] or 0)))]
            if option == "joker_penalty" and "p_joker_left" in rates:
                shown.append("p_joker_left")  # the share the joker penalty is paid on
            for rate in shown:
                de = estimate(last, f"{rate}_diff", f"{rate}_diff_ci95_low", f"{rate}_diff_ci95_high", "pp")
                if de.significant:
                    move = "rises" if de.value > 0 else "falls"
                    why += (f" {plots.RATE_NAMES[rate]} {move} from {fmt_pct(r1[rate])} to {fmt_pct(r2[rate])} of "
                            f"player-rounds at {value_text(last['to_value'])} ({de.text(inner=True)}).")
        who = f"`{pol}`" + ("" if alone or len(st.lineups) == 1 else f" in {lineup_text(lu)}")
        text = f"{who}, against {human(option)} {value_text(base)}: " + "; ".join(parts) + "." + why
        if alone and e_last.significant:
            text += f" Every seat plays `{pol}`: this is the rule's effect on the level of scores, not an edge over anyone."
        ctx = config_text(firsts, others) if others else ""
        items.append(Finding(text, e_last, ctx))
    if items:
        sec.add(BulletList(tuple(items)))
        if st.many:
            sec.add(Paragraph(st.shown_note(st.shown, len(st.lineups), "paired.csv", "Findings").strip(), note=True))
    if len(brows) and brows["mean_diff"].notna().any():
        bars = bars_note(widest(brows, "ci95_low", "ci95_high"), "points")

        def every(ax):  # every line-up in one panel: x its number, a marker per value compared
            df = st.numbered(st.at_first(brows, skip=(option,)).assign(**{option: brows["to_value"].map(value_text)}))
            figures.points_by_option(df, ax, ycol="mean_diff", locol="ci95_low", hicol="ci95_high",
                                     options=[LINEUP_NO, option], x=LINEUP_NO, colour_col="policy",
                                     colours=st.colours, zero_line=True,
                                     ylabel=f"Δ mean score per round (points; 95% CI)\nvs {human(option)} "
                                            f"{value_text(base)}")

        sec.add(lineup_figure(
            st, st.lineups, lambda ax, lu: plots.plot_effect(st.paired, option, ax, lineup=lu, colours=st.colours,
                                                             baseline=base),
            f"effect_{option}.png", f"Effect of the {human(option)} on the mean score",
            f"Paired difference of each policy's mean score per round (points) against {human(option)} "
            f"{value_text(base)}, on the same deals; one panel per line-up, one colour per policy." + bars,
            w=6.2, h=3.9, every=every, every_skip=(option,), csv="paired.csv",
            every_caption=f"Paired difference of each policy's mean score per round (points) against "
                          f"{human(option)} {value_text(base)}, on the same deals, a marker per value compared."
                          + bars))
    # the table: baseline comparisons, then steps between neighbouring values
    steps = {(value_text(a), value_text(b)) for a, b in zip(values, values[1:])}
    is_base = np.array([value_text(v) == value_text(base) for v in p["from_value"]], dtype=bool)
    is_step = np.array([(value_text(a), value_text(b)) in steps for a, b in zip(p["from_value"], p["to_value"])],
                       dtype=bool)
    keep = p[is_base | is_step] if len(p) else p
    jokers = has_joker_left(keep, "p_joker_left_diff")
    rows = []
    for r in keep.to_dict("records"):
        s = estimate(r, "mean_diff", "ci95_low", "ci95_high")
        rows.append((lineup_text(r["lineup"]), r["policy"],
                     f"{value_text(r['from_value'])} → {value_text(r['to_value'])}",
                     config_text(r, others) or "–", f"{int(r['deals']):,}", s.cell,
                     estimate(r, "p_unopened_diff", "p_unopened_diff_ci95_low", "p_unopened_diff_ci95_high", "pp").cell,
                     estimate(r, "p_hand_diff", "p_hand_diff_ci95_low", "p_hand_diff_ci95_high", "pp").cell)
                    + ((estimate(r, "p_joker_left_diff", "p_joker_left_diff_ci95_low", "p_joker_left_diff_ci95_high",
                             "pp").cell,) if jokers else ())
                    + (s.significance,))
    rows, note = capped(rows, "comparisons", "paired.csv", st.max_rows)
    if len(keep) < len(p):
        note = (note + " " if note else "") + (f"Shown: comparisons with the baseline and between neighbouring "
                                               f"values ({len(keep):,} of {len(p):,}; `paired.csv` has every pair).")
    if rows:
        sec.add(Table((st.lineup_column(), Column("policy"), Column(f"{human(option)}"), Column("other options"),
                       Column("deals", numeric=True), Column("Δ mean score", "points, 95% CI", True),
                       Column("Δ P(unopened)", "pp, 95% CI", True), Column("Δ P(Hand)", "pp, 95% CI", True))
                      + ((Column("Δ P(joker left)", "pp, 95% CI", True),) if jokers else ())
                      + (Column("difference?"),), tuple(rows),
                      caption="Paired differences (new value minus old, same deals). pp = percentage points.",
                      note=note))
    return sec


def levels_section(st: StudyView) -> Section:
    sec = Section("Scores and shares by configuration", level=2, id="levels")
    x = st.options[0] if st.options else None
    s = st.summary
    sec.add(Paragraph("The levels behind the differences above: each policy's mean score per round and the shares of "
                      "player-rounds that end unopened or with a Hand, per configuration (points, not lines: the "
                      "values of a rule option are discrete). One colour per policy in every figure."))
    for col, name, title, caption in (
            ("mean_score", "mean_score.png", "Mean score per round",
             "Mean score per round (points, lower is better) of each policy over all its seats."),
            ("p_unopened", "p_unopened.png", "P(unopened)",
             "Share of player-rounds (%) in which the player never laid down an opening; such a player "
             f"{st.unopened_words()}. The axis starts at 0."),
            ("p_hand", "p_hand.png", "P(Hand)",
             "Share of player-rounds (%) that end with the player going out in one turn (a Hand). The axis "
             "starts at 0.")):
        def draw(ax, lu, col=col, df=s, x=x):
            if col == "mean_score":
                plots.plot_mean_score(df, ax, lineup=lu, x=x, colours=st.colours)
            else:
                plots.plot_rate(df, col, ax, lineup=lu, x=x, colours=st.colours)

        scale = 1.0 if col == "mean_score" else 100.0
        lo, hi = ("ci95_low", "ci95_high") if col == "mean_score" else (f"{col}_ci95_low", f"{col}_ci95_high")
        unit = "points" if col == "mean_score" else "percentage points"
        bars = bars_note(widest(st.allrows, lo, hi, scale), unit)
        sec.add(lineup_figure(st, st.lineups, draw, name, title, caption + " One panel per line-up." + bars,
                              every=lambda ax, draw=draw: draw(ax, None, df=st.numbered(st.at_first(s)), x=LINEUP_NO),
                              every_caption=caption + bars))
    return sec


_VERSUS_VS_LINEUPS = (
    "Two different questions, two different numbers. *Policy against policy* (this section) compares players **at "
    "the same table**: it is what decides who wins. *Switching one seat* (next section) compares the same seat "
    "**with and without** the change, on the same deals: it includes what the change does to everyone's scores "
    "(a player who waits for a Hand makes rounds longer and its opponents' scores change too). So a policy can "
    "beat its table-mates and still score more than it would by switching: both are true at once.")


def versus_section(st: StudyView) -> Section | None:
    vs = st.versus
    if vs is None or not len(vs):
        return None
    sec = Section("Policy against policy", level=2, id="versus")
    how = ("per-deal difference on the same deals" if st.paired_ci
           else "unpaired interval from the two means (conservative)")
    sec.add(Paragraph(f"Within one line-up, the difference A − B between two policies' mean scores per round, "
                      f"{how}. Below 0, A scores less: better."))
    if st.teams:
        sec.add(Paragraph("In 2 v 2 a policy's figure pools every seat it holds, partners and opponents alike (a "
                          "player scores 0 when its partner goes out), so these comparisons do not compare teams: "
                          "see *Partnership* and *Switching one seat* for team questions.", note=True))
    if st.lineup_pairs is not None and len(st.lineup_pairs):
        sec.add(Paragraph(_VERSUS_VS_LINEUPS, note=True))
    items = []
    for r in vs.to_dict("records")[: st.max_rows]:
        e = estimate(r, "mean_diff", "ci95_low", "ci95_high", PR)
        if st.teams:  # a policy's figure pools partners and opponents: no verdict on who plays better
            verdict = "pooled over partners and opponents, so not a comparison of teams"
        elif e.significant:
            better, worse = (r["policy_a"], r["policy_b"]) if e.value < 0 else (r["policy_b"], r["policy_a"])
            verdict = f"`{better}` scores less than `{worse}`"
        else:
            verdict = "no difference shown"
        items.append(Finding(f"`{r['policy_a']}` − `{r['policy_b']}`: {e.text()}; {fmt_number(r['mean_a'])} vs "
                             f"{fmt_number(r['mean_b'])} points per player-round: {verdict}.", e, st.where(r)))
    if len(items) <= 12:
        sec.add(BulletList(tuple(items)))
    mixed = [lu for lu in st.mixed_lineups() if lu in set(vs["lineup"])]
    if mixed:
        caption = ("Per-deal difference A − B of two policies' mean scores per round at the same table "
                   "(points; colour of policy A); below the dashed 0 line A scores less (better)."
                   + bars_note(widest(vs, "ci95_low", "ci95_high"), "points"))
        sec.add(lineup_figure(
            st, mixed, lambda ax, lu: plots.plot_versus(vs, ax, lineup=lu, x=st.options[0] if st.options else None,
                                                        colours=st.colours),
            "versus.png", "Policy against policy", caption, w=6.2, h=3.9, csv="versus.csv",
            every=lambda ax: plots.plot_versus(st.numbered(st.at_first(vs)), ax, x=LINEUP_NO, colours=st.colours),
            every_caption=caption))
    rows = []
    for r in vs.to_dict("records"):
        e = estimate(r, "mean_diff", "ci95_low", "ci95_high")
        rows.append(tuple(value_text(r[o]) for o in st.options) + (
            lineup_text(r["lineup"]), r["policy_a"], r["policy_b"], f"{int(r['deals']):,}", fmt_number(r["mean_a"]),
            fmt_number(r["mean_b"]), e.cell, e.significance))
    rows, note = capped(rows, "rows", "versus.csv", st.max_rows)
    sec.add(Table(tuple(option_columns(st.options)) + (
        st.lineup_column(), Column("A"), Column("B"), Column("deals", numeric=True),
        Column("mean A", "points", True), Column("mean B", "points", True),
        Column("A − B", "points, 95% CI", True), Column("difference?")), tuple(rows), note=note))
    return sec


def lineups_section(st: StudyView) -> Section | None:
    lp = st.lineup_pairs
    if lp is None or not len(lp):
        return None
    sec = Section("Switching one seat", level=2, id="lineups")
    has_team = bool((lp["team"].astype(str) != "").any())
    has_match = bool((lp["matches"].fillna(0) > 0).any())
    sec.add(Paragraph(
        "Line-ups that differ in exactly one position play the same deals (same shuffles, same dealer), so the "
        "change at that position is measured deal by deal (match by match for match results): Δ = with the "
        "first policy named in that seat minus with the second (the line-up listed later in the study against the "
        "one listed earlier; `lineups.csv` gives the same differences the other way round). Negative Δ in score or total means the first policy "
        "helps (lower is better); positive Δ P(won match) means it helps."))
    items = []
    for r in lp.to_dict("records")[: st.max_rows]:
        e = estimate(r, "mean_diff", "ci95_low", "ci95_high", PR)
        text = (f"Position {int(r['position'])}, `{r['policy_a']}` instead of `{r['policy_b']}`: the difference in "
                f"that player's score is {e.text()}")
        main = e
        if has_team and r["team"]:
            te = estimate(r, "team_diff", "team_diff_ci95_low", "team_diff_ci95_high", TR)
            text += f"; in {r['team']}'s, {te.text()}"
            main = te
        if has_match and r["matches"] > 0:
            we = estimate(r, "match_win_diff", "match_win_diff_ci95_low", "match_win_diff_ci95_high", "pp")
            text += f"; in the chance of winning the match, {we.text()}"
            main = we
        items.append(Finding(text + ".", main, st.where({**r, "lineup": r["lineup_a"]})))
    if len(items) <= 12:
        sec.add(BulletList(tuple(items)))
    metrics = ["score"] + (["team"] if has_team else []) + (["win"] if has_match else [])
    titles = {"score": "that player's score", "team": "its team's score", "win": "chance of winning the match"}
    changes = len(lp.drop_duplicates(["position", "policy_a", "policy_b"]))
    bars = bars_note(widest(lp, "ci95_low", "ci95_high"), "points")
    if changes <= MAX_CHANGES:  # one series per switch
        fig, axes = figures.grid(len(metrics), 2 if len(metrics) > 1 else 1, 6.0 if len(metrics) > 1 else 6.4, 3.9)
        for ax, m in zip(axes, metrics):
            plots.plot_lineup_pairs(lp, ax, metric=m, x=st.options[0] if st.options else None, colours=st.colours)
            ax.set_title(titles[m], fontsize="medium")
        caption = ("Paired difference when one line-up position plays the first policy instead of the second, "
                   "same deals; one panel per question" + (", a team's score summing both partners" if has_team
                                                           else "") + "." + bars)
    else:  # too many switches for a series each: the lowest and the highest of each question
        ycols = {"score": "mean_diff", "team": "team_diff", "win": "match_win_diff"}
        chosen = {m: extremes(lp[lp[ycols[m]].notna()].to_dict("records"), ycols[m], 2 * RANKED)[0] for m in metrics}
        fig, axes = figures.grid(len(metrics), 1, 9.0, 0.28 * max(len(r) for r in chosen.values()) + 1.4)
        for ax, m in zip(axes, metrics):
            plots.plot_lineup_pairs_ranked(pd.DataFrame(chosen[m], columns=lp.columns), ax, metric=m,
                                           numbers=st.number, colours=st.colours)
            ax.set_title(titles[m], fontsize="medium")
        caption = (f"Paired difference when one line-up position plays the first policy instead of the second, "
                   f"same deals: of the {len(lp):,} comparisons ({changes:,} different switches, more than "
                   f"{MAX_CHANGES} to draw each), the {RANKED} with the lowest difference and the {RANKED} with the "
                   "highest, per question" + (" (a team's score sums both partners)" if has_team else "")
                   + "; line-ups by their number in *What was simulated*; `lineups.csv` has every comparison." + bars)
    sec.add(st.figure(fig, "lineups.png", "Switching one seat", caption))
    recs, total = extremes(lp.to_dict("records"), "mean_diff", st.max_rows)
    rows = []
    for r in recs:
        line = tuple(value_text(r[o]) for o in st.options) + (
            lineup_text(r["lineup_a"]), f"position {int(r['position'])}: `{r['policy_a']}` instead of `{r['policy_b']}`",
            f"{int(r['deals']):,}", estimate(r, "mean_diff", "ci95_low", "ci95_high").cell)
        if has_team:
            line += (r["team"] or "–", estimate(r, "team_diff", "team_diff_ci95_low", "team_diff_ci95_high").cell
                     if r["team"] else "–")
        if has_match:
            line += (f"{int(r['matches']):,}",
                     estimate(r, "total_diff", "total_diff_ci95_low", "total_diff_ci95_high").cell)
            if has_team:
                line += (estimate(r, "team_total_diff", "team_total_diff_ci95_low", "team_total_diff_ci95_high").cell
                         if r["team"] else "–",)
            line += (estimate(r, "match_win_diff", "match_win_diff_ci95_low", "match_win_diff_ci95_high", "pp").cell,)
        rows.append(line)
    cols = tuple(option_columns(st.options)) + (st.lineup_column("line-up (with the first policy)"), Column("change"),
                                           Column("deals", numeric=True),
                                           Column("Δ that player's score", "points per round, 95% CI", True))
    if has_team:
        cols += (Column("team"), Column("Δ team score", "points per round, 95% CI", True))
    if has_match:
        cols += (Column("matches", numeric=True), Column("Δ final total", "points, 95% CI", True))
        if has_team:
            cols += (Column("Δ final team total", "points, 95% CI", True),)
        cols += (Column("Δ P(won match)", "pp, 95% CI", True),)
    low = st.max_rows // 2
    note = "" if total == len(recs) else (f"The {low:,} comparisons with the lowest Δ in that player's score and the "
                                          f"{len(recs) - low:,} with the highest, of {total:,}; all of them are in "
                                          "`lineups.csv`.")
    sec.add(Table(cols, tuple(rows), note=note))
    return sec


def matches_section(st: StudyView) -> Section | None:
    if not st.matches:
        return None
    s = st.summary
    sec = Section("Matches", level=2, id="matches")
    sec.add(Paragraph(
        "Each simulated item is a whole match (RULES.md §7): the lowest cumulative total wins"
        + (" (in 2 v 2, the team with the lower sum; both partners win)" if st.teams else "")
        + ("; with `standings = last_loses` the single highest total loses and everyone else is neutral"
           if st.losses else "") + ". A tie for the lowest total is broken by extra rounds (tie-breaks). Shares "
        "of matches with 95% CIs; the match is the unit."))
    x = st.options[0] if st.options else None
    if st.teams:
        t = st.full[is_team(st.full["seat"])]
        items = []
        for lu in [lu for lu in st.mixed_lineups() if lu in st.shown] or st.lineups[:1]:
            for r in t[(t["lineup"] == lu) & (t["seat"] == "team A")].to_dict("records"):
                e = share_estimate(r, "match_win_rate")
                items.append(Finding(f"Team A ({r['policy']}) wins {e.number()} of its matches (95% CI {e.ci_text}; "
                                     "a fair share is 50%).", None, st.where(r)))
        sec.add(BulletList(tuple(items[: st.max_rows])))
        caption = ("Share of matches won (%) by team A (positions 1 & 3) and team B (2 & 4); the dotted line is "
                   "the fair share, 50%." + bars_note(widest(t, "match_win_rate_ci95_low",
                                                               "match_win_rate_ci95_high", 100), "percentage points"))
        sec.add(lineup_figure(
            st, st.lineups, lambda ax, lu: plots.plot_match_win(st.full, ax, lineup=lu, x=x, teams=True,
                                                                colours=st.colours),
            "match_win.png", "Matches won by each team", caption, every_caption=caption,
            every=lambda ax: plots.plot_match_win(st.numbered(st.at_first(st.full)), ax, x=LINEUP_NO, teams=True,
                                                  colours=st.colours)))
    else:
        rows = s[(s["seat"] == "all") & (s["matches"] > 0)]
        items = []
        for r in rows.to_dict("records")[: st.max_rows]:
            e = share_estimate(r, "match_win_rate")
            text = f"`{r['policy']}` wins {e.number()} of its player-matches (95% CI {e.ci_text})"
            if st.losses:
                lose = share_estimate(r, "match_lose_rate")
                text += f" and loses {lose.number()} (95% CI {lose.ci_text})"
            items.append(Finding(text + f" (a fair share is 1 in {st.players}).", None, st.where(r)))
        if len(items) <= 12:
            sec.add(BulletList(tuple(items)))
        caption = (f"Share of a policy's player-matches that it won (%), over all its seats; the dotted line is "
                   f"the fair share, 1 in {st.players}." + bars_note(
                       widest(rows, "match_win_rate_ci95_low", "match_win_rate_ci95_high", 100), "percentage points"))
        sec.add(lineup_figure(
            st, st.lineups, lambda ax, lu: plots.plot_match_win(s, ax, lineup=lu, x=x, colours=st.colours),
            "match_win.png", "Matches won by each policy", caption, every_caption=caption,
            every=lambda ax: plots.plot_match_win(st.numbered(st.at_first(s)), ax, x=LINEUP_NO, colours=st.colours)))
        body = []
        for r in rows.to_dict("records"):
            line = tuple(value_text(r[o]) for o in st.options) + (lineup_text(r["lineup"]), r["policy"],
                                                                   f"{int(r['matches']):,}",
                                                                   share_estimate(r, "match_win_rate").cell)
            if st.losses:
                line += (share_estimate(r, "match_lose_rate").cell, share_estimate(r, "match_neutral_rate").cell)
            line += (estimate(r, "mean_final_total", "final_total_ci95_low", "final_total_ci95_high", diff=False).cell,)
            body.append(line)
        cols = tuple(option_columns(st.options)) + (st.lineup_column(), Column("policy"),
                                               Column("player-matches", numeric=True),
                                               Column("P(won match)", "%, 95% CI", True))
        if st.losses:
            cols += (Column("P(lost match)", "%, 95% CI", True), Column("P(neither)", "%, 95% CI", True))
        cols += (Column("mean final total", "points, 95% CI", True),)
        body, note = capped(body, "rows", "summary.csv", st.max_rows)
        sec.add(Table(cols, tuple(body), caption="Who wins", note=note))
    # tie-breaks and Hands
    g = s[(s["seat"] == "all") & (s["matches"] > 0)].drop_duplicates(subset=st.options + ["lineup"])
    body = [tuple(value_text(r[o]) for o in st.options) + (
        lineup_text(r["lineup"]), fmt_number(r["mean_tiebreaks"], 3), share_estimate(r, "tiebreak_rate").cell,
        share_estimate(r, "hand_decided_rate").cell) for r in g.to_dict("records")]
    body, note = capped(body, "rows", "summary.csv", st.max_rows)
    sec.add(Table(tuple(option_columns(st.options)) + (
        st.lineup_column(), Column("tie-break rounds per match", "rounds", True),
        Column("matches with a tie-break", "%, 95% CI", True), Column("decided by a Hand", "%, 95% CI", True)),
        tuple(body), caption="Tie-breaks and Hands. *Decided by a Hand*: some round was won with a Hand and, "
        "without that round, a different player (team) would have won or the lowest total would have been tied.",
        note=note))
    # final totals: players, and teams apart, with the same bins in every panel
    th = st.histograms.get("total")
    tt = st.histograms.get("team_total")
    for hist, teams, name, title in ((th, False, "final_totals.png", "Final match totals per policy"),
                                     (tt, True, "team_totals.png", "Final match totals per team")):
        if hist is None or not len(hist):
            continue
        width = figures.nice_width(int(hist["total"].max()) - int(hist["total"].min()))
        sec.add(lineup_figure(
            st, st.lineups, lambda ax, lu, teams=teams, width=width: plots.plot_final_totals(
                th, ax, lineup=lu, team_total=tt if teams else None, width=width, colours=st.colours),
            name, title, f"Share of matches per bin of {width} points of final {'team ' if teams else ''}total "
            "(tie-break rounds included; lower is better); a colour per "
            + ("team" if teams else "policy (all its seats)") + ", a line style per configuration.",
            h=3.9, csv="totals.csv", legend=False))
    if st.totals is not None and len(st.totals):
        body = []
        for r in st.totals.to_dict("records"):
            who = r["policy"] if r["seat"] == "all" else f"{r['seat']}: {r['policy']}"
            body.append(tuple(value_text(r[o]) for o in st.options) + (
                lineup_text(r["lineup"]), who, f"{int(r['matches']):,}", fmt_number(r["mean_final_total"]))
                + tuple(fmt_number(r[c], 0) for c in ("min", "p10", "p25", "p50", "p75", "p90", "max")))
        body, note = capped(body, "rows", "totals.csv", st.max_rows)
        sec.add(Table(tuple(option_columns(st.options)) + (
            st.lineup_column(), Column("policy or team"), Column("matches", numeric=True),
            Column("mean", "points", True)) + tuple(Column(c, "points", True) for c in
                                                    ("min", "p10", "p25", "median", "p75", "p90", "max")),
            tuple(body), caption="Final totals: 10% of matches ended at or below p10, half at or below the median, "
            "and so on.", note=note))
    return sec


def partnership_section(st: StudyView) -> Section | None:
    if not st.teams:
        return None
    t = st.full[is_team(st.full["seat"])]
    sec = Section("Partnership (2 v 2)", level=2, id="partnership")
    sec.add(Paragraph(
        "Partners sit opposite: line-up positions 1 & 3 form **team A**, positions 2 & 4 **team B**. The partner "
        "of the player who goes out scores 0 for the round; a team's score is the sum of its two players (lower "
        "is better). The unit is the deal (the match for match results): *P(team went out)* is the share of "
        "deals in which either partner went out, *P(team Hand)* in which one of them went out with a Hand, "
        "*P(unopened)* the share of the team's player-rounds without an opening."))
    caption = ("Each team's summed score per round (points, both partners; lower is better); a colour per team."
               + bars_note(widest(t, "ci95_low", "ci95_high"), "points"))
    sec.add(lineup_figure(
        st, st.lineups, lambda ax, lu: plots.plot_team_score(st.full, ax, lineup=lu,
                                                             x=st.options[0] if st.options else None,
                                                             colours=st.colours),
        "team_score.png", "Team score per round", caption, every_caption=caption,
        every=lambda ax: plots.plot_team_score(st.numbered(st.at_first(st.full)), ax, x=LINEUP_NO,
                                               colours=st.colours)))
    has_match = has_matches(t)
    body = []
    for r in t.to_dict("records"):
        line = tuple(value_text(r[o]) for o in st.options) + (
            lineup_text(r["lineup"]), r["seat"].replace("team ", ""), r["policy"], f"{int(r['deals']):,}",
            estimate(r, "mean_score", "ci95_low", "ci95_high", diff=False).cell, share_estimate(r, "p_out").cell,
            share_estimate(r, "p_hand").cell, share_estimate(r, "p_unopened").cell)
        if has_match:
            line += (share_estimate(r, "match_win_rate").cell if r["matches"] > 0 else "–",
                     estimate(r, "mean_final_total", "final_total_ci95_low", "final_total_ci95_high", diff=False).cell
                     if r["matches"] > 0 else "–")
        body.append(line)
    cols = tuple(option_columns(st.options)) + (
        st.lineup_column(), Column("team"), Column("policies"), Column("deals", numeric=True),
        Column("team score per round", "points, 95% CI", True), Column("P(team went out)", "%, 95% CI", True),
        Column("P(team Hand)", "%, 95% CI", True), Column("P(unopened)", "%, 95% CI", True))
    if has_match:
        cols += (Column("P(won match)", "%, 95% CI", True), Column("mean final team total", "points, 95% CI", True))
    body, note = capped(body, "rows", "summary.csv", st.max_rows)
    sec.add(Table(cols, tuple(body), note=note))
    if has_match:
        team_margin_part(st, sec)
    return sec


def team_margin_part(st: StudyView, sec: Section) -> None:
    """The team margin of each match (team A's final total minus team B's): findings, figure, table."""
    hist = st.histograms.get("team_margin")
    if hist is None:
        sec.add(Paragraph("The *team margin* (team A's final match total minus team B's) is not in this study's "
                          "checkpoint: it was saved by a handsim that did not yet count it. Run the study again "
                          "to get its figure and table.", note=True))
        return
    table = team_margin_table(hist, st.options)
    if not len(table):
        return
    sec.add(Paragraph(
        "The **team margin** of a match is team A's final match total minus team B's (points per match, tie-break "
        "rounds included; one observation per match). Below 0 team A finished lower, which is better; its mean "
        "has a Student-t 95% CI, the shares of matches below, at and above 0 Wilson 95% CIs."))
    lineups = list(dict.fromkeys(table["lineup"].tolist()))
    many = len(lineups) > MAX_PANELS
    shown = figures.spread_pick(lineups, MAX_PANELS)
    items = []
    for r in table.to_dict("records"):
        if r["lineup"] not in shown:
            continue
        est = estimate(r, "mean_margin", "margin_ci95_low", "margin_ci95_high", unit=PM)
        items.append(Finding(
            f"Team A ({r['team_a']}) against team B ({r['team_b']}): mean margin {est.text(inner=False)}; team A's "
            f"total was lower in {share_estimate(r, 'p_negative').text()} of matches, higher in "
            f"{share_estimate(r, 'p_positive').text()}, equal in {share_estimate(r, 'p_zero').text()}.", est,
            st.where(r) if (st.options or len(st.lineups) > 1) else ""))
    sec.add(BulletList(tuple(items)))
    if many:
        sec.add(Paragraph(st.shown_note(shown, len(lineups), "team_margin.csv", "Findings").strip(), note=True))
    width = figures.nice_width(int(hist["margin"].max()) - int(hist["margin"].min()))
    fig, axes = figures.grid(len(shown) + 2, 2, 6.0, 3.9)
    for ax, lu in zip(axes, shown):
        plots.plot_team_margin(hist, ax, lineup=lu, width=width, colours=st.colours)
        ax.set_title(st.panel_title(lu), fontsize="medium")
    # the summary panels: x the first varying option, or, with many line-ups, the line-up's number
    x = LINEUP_NO if many else st.options[0] if st.options else None
    drawn = st.numbered(table) if many else table
    plots.plot_team_margin_summary(drawn, axes[len(shown)], metric="mean", x=x, colours=st.colours)
    axes[len(shown)].set_title("mean team margin", fontsize="medium")
    neg = plots.plot_team_margin_summary(drawn, axes[len(shown) + 1], metric="negative", x=x, colours=st.colours)
    neg.ax.set_title("team A's total lower (colours as in the mean panel)", fontsize="medium")
    if neg.ax.get_legend() is not None:  # the mean panel names the line-ups; here the legend would hide points
        neg.ax.get_legend().remove()
    sec.add(st.figure(fig, "team_margin.png", "Team margin", legend=False, caption=
                      f"Top panels: share of matches per bin of {width} points of team margin (team A's final match "
                      "total minus team B's; left of the dashed line team A finished lower, which is better), a "
                      "line style per configuration. Bottom panels: the mean margin (points per match) and the "
                      "share of matches with a margin below 0 (%), each with its 95% CI, a colour per line-up."
                      + bars_note(widest(table, "margin_ci95_low", "margin_ci95_high"), PM)
                      + (st.shown_note(shown, len(lineups), "team_margin.csv").replace("Panels", "Top panels", 1)
                         + " The bottom panels show every line-up, at its number." if many else "")))
    body = [tuple(value_text(r[o]) for o in st.options) + (
        lineup_text(r["lineup"]), f"{int(r['matches']):,}",
        estimate(r, "mean_margin", "margin_ci95_low", "margin_ci95_high").cell, fmt_number(r["sd_margin"]),
        share_estimate(r, "p_negative").cell, share_estimate(r, "p_zero").cell, share_estimate(r, "p_positive").cell,
        fmt_number(r["p10"], 0), fmt_number(r["p50"], 0), fmt_number(r["p90"], 0)) for r in table.to_dict("records")]
    body, note = capped(body, "rows", "team_margin.csv", st.max_rows)
    sec.add(Table(tuple(option_columns(st.options)) + (
        st.lineup_column(), Column("matches", numeric=True), Column("mean margin A − B", "points per match, 95% CI", True),
        Column("sd", "points", True), Column("margin < 0", "%, 95% CI", True), Column("margin = 0", "%, 95% CI", True),
        Column("margin > 0", "%, 95% CI", True), Column("p10", "points", True), Column("median", "points", True),
        Column("p90", "points", True)), tuple(body),
        caption="Team margin: team A's final match total minus team B's; p10: 10% of matches had a margin at or "
        "below it.", note=note))


def round_section(st: StudyView) -> Section | None:
    allrows = st.allrows.drop_duplicates(subset=st.options + ["lineup"]) if len(st.allrows) else st.allrows
    if not len(allrows):
        return None
    sec = Section("Round length", level=2, id="round-length")
    sec.add(Paragraph("A round's length counts **turns of all players together** (four players taking one turn each "
                      "make 4 turns). A *void* round is one in which the stock ran out more often than "
                      "`max_reshuffles` allows (RULES.md §3): everyone scores 0 for it."))
    items = []
    for lineup, g in allrows.groupby("lineup", sort=False):
        if lineup not in st.shown:
            continue
        recs = g.to_dict("records")
        lo = min(recs, key=lambda r: r["mean_turns"])
        hi = max(recs, key=lambda r: r["mean_turns"])
        vlo, vhi = min(r["void_rate"] for r in recs), max(r["void_rate"] for r in recs)
        void = ("none was void" if vhi == 0 else f"{fmt_pct(vlo)} are void" if vlo == vhi
                else f"void rounds: {fmt_pct(vlo)} to {fmt_pct(vhi)}")
        if len(recs) == 1 or lo["mean_turns"] == hi["mean_turns"]:
            text = f"A round lasts {fmt_number(lo['mean_turns'])} turns on average; {void}."
        else:
            text = (f"A round lasts from {fmt_number(lo['mean_turns'])} turns on average ({config_text(lo, st.options)}) "
                    f"to {fmt_number(hi['mean_turns'])} ({config_text(hi, st.options)}); {void}.")
        items.append(Finding(text, None, st.lineup_name(lineup) if len(st.lineups) > 1 else ""))
    sec.add(BulletList(tuple(items)))
    if st.many:
        sec.add(Paragraph(st.shown_note(st.shown, len(st.lineups), "summary.csv", "Findings").strip(), note=True))
    turns = st.histograms.get("turns")
    if turns is not None and len(turns):
        sec.add(lineup_figure(
            st, dict.fromkeys(turns["lineup"].tolist()), lambda ax, lu: plots.plot_round_length(turns, ax, lineup=lu),
            "round_length.png", "Round length", "Share of rounds by length (turns of all players together), one line "
            "per configuration (configurations with the same distribution drawn once; at most six); crosses: void "
            "rounds, apart from the others, with their share of all rounds in the legend.", w=6.4, h=4.0,
            legend=False, title_loc="left"))
    return sec


# ----------------------------------------------------------------------------------------------
# the run, how to read, tables
