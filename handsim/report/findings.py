"""The findings of a study, built once as a :class:`~handsim.report.document.Document`.

:func:`build` turns the DataFrames of :class:`handsim.stats.StudyAccumulator` into the report:
an executive summary that answers the study's question in a few sentences with their 95% CIs,
then one section per question (the effect of each rule option, policy against policy, switching
one seat, matches, teams, round length), each with its figure and table, then the full tables.
Every number that a sentence reports is an :class:`~handsim.report.document.Estimate`, whose
interval decides the wording ("not significant" whenever the interval includes 0).

Studies with many configurations stay readable: comparisons listed in the text are the ones
against the baseline (first) value of an option, tables keep at most ``max_rows`` rows (the CSV
files have all), and figures draw points, not one label per comparison.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..rules import PARAMS
from ..stats import team_margin_table
from . import plots
from .document import (BulletList, Column, Document, Estimate, Figure, Finding, Paragraph, Section, Table,
                       fmt_number, fmt_pct, resumed_bullet)
from .plots import human, lineup_text, spread_pick, value_text

__all__ = ["build", "versus_from_summary", "quantiles_from_histograms", "lineup_policies"]

#: Rows of a table in the report (the CSV files hold every row).
MAX_ROWS = 40
#: The units findings name: a player's score per round, a team's (both partners summed).
PR = "points per player-round"
TR = "points per team-round"


# ----------------------------------------------------------------------------------------------
# small helpers


def _isnan(x: Any) -> bool:
    if x is None or x is pd.NA:
        return True
    try:
        return math.isnan(float(x))
    except (TypeError, ValueError):
        return False


def lineup_policies(lineup: str) -> list[str]:
    """The policies of a line-up label (``"hold-hand,greedy:support_hand=1,greedy"``)."""
    from ..policies import split_lineup

    try:
        return split_lineup(str(lineup))
    except ValueError:
        return [str(lineup)]


def _config_text(row: Mapping[str, Any], options: Sequence[str]) -> str:
    return ", ".join(f"{human(o)} {value_text(row[o])}" for o in options)


def _est(row: Mapping[str, Any], col: str, lo: str, hi: str, unit: str = "points", diff: bool = True,
         nd: int = 1) -> Estimate:
    v, l, h = (float(row[c]) if not _isnan(row.get(c)) else math.nan for c in (col, lo, hi))
    # a paired difference that is 0 in every deal, or a level the design fixes (e.g. the share of
    # the outs a policy gets when it holds every seat: 1/P in every deal), whose interval has no width
    identical = (v == 0.0 and l == 0.0 and h == 0.0) if diff else (math.isfinite(v) and v == l == h)
    return Estimate(v, l, h, unit=unit, diff=diff, nd=nd, identical=identical)


def _share(row, col) -> Estimate:
    return _est(row, col, f"{col}_ci95_low", f"{col}_ci95_high", unit="%", diff=False)


def _has_joker_left(df: pd.DataFrame | None, col: str = "p_joker_left") -> bool:
    """Whether a table holds the share of rounds that end with a joker in hand (studies whose
    checkpoint predates that count have the column NaN, or no column)."""
    return df is not None and col in df.columns and bool(df[col].notna().any())


def _rates(row: Mapping[str, Any]) -> tuple[str, ...]:
    """The shares a paired row has: P(unopened), P(Hand), and P(joker left) where it was counted."""
    return ("p_unopened", "p_hand") + (("p_joker_left",) if not _isnan(row.get("p_joker_left_diff")) else ())


def _change_verb(a: Any, b: Any) -> str:
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return "Switching"
    try:
        if float(b) > float(a):
            return "Raising"
        if float(b) < float(a):
            return "Lowering"
    except (TypeError, ValueError):
        pass
    return "Changing"


def _capped(rows: list, what: str, csv: str, max_rows: int) -> tuple[list, str]:
    if len(rows) <= max_rows:
        return rows, ""
    return rows[:max_rows], f"The first {max_rows:,} of {len(rows):,} {what}; all of them are in `{csv}`."


def _is_team(seat: pd.Series) -> pd.Series:
    return seat.astype(str).str.startswith("team")


def _has_matches(summary: pd.DataFrame) -> bool:
    return bool(len(summary)) and "matches" in summary.columns and bool((summary["matches"].fillna(0) > 0).any())


def _opt_cols(options, numeric=True):
    return [Column(human(o), numeric=False) for o in options]


# ----------------------------------------------------------------------------------------------
# derived tables used when the caller has none


def versus_from_summary(summary: pd.DataFrame) -> pd.DataFrame:
    """Unpaired policy contrasts from the summary (used when no ``versus`` table is given)."""
    from scipy import stats as sps

    options = plots.varying(summary)
    rows = []
    allrows = summary[summary["seat"] == "all"]
    keys = options + ["lineup"]
    z = float(sps.norm.ppf(0.975))
    for _, g in allrows.groupby(keys, sort=False, dropna=False) if keys else [((), allrows)]:
        recs = g.to_dict("records")
        for i in range(len(recs)):
            for j in range(i + 1, len(recs)):
                a, b = recs[i], recs[j]
                d = a["mean_score"] - b["mean_score"]
                half = z * math.hypot(a["se_score"], b["se_score"])
                row = {o: a[o] for o in options}
                row.update(lineup=a["lineup"], policy_a=a["policy"], policy_b=b["policy"],
                           deals=min(a["deals"], b["deals"]), mean_a=a["mean_score"], mean_b=b["mean_score"],
                           mean_diff=d, ci95_low=d - half, ci95_high=d + half, p_value=math.nan)
                rows.append(row)
    return pd.DataFrame(rows, columns=options + ["lineup", "policy_a", "policy_b", "deals", "mean_a", "mean_b",
                                                 "mean_diff", "ci95_low", "ci95_high", "p_value"])


def quantiles_from_histograms(histograms: Mapping[str, pd.DataFrame] | None) -> pd.DataFrame:
    """Quantiles of final totals from ``histograms()["total"]`` / ``["team_total"]`` (as
    :meth:`~handsim.stats.StudyAccumulator.total_quantiles`), for callers that pass no table."""
    from ..stats import QUANTILES, _hist_quantiles

    rows = []
    options: list[str] = []
    for key, seat_col in (("total", None), ("team_total", "team")):
        df = (histograms or {}).get(key)
        if df is None or not len(df):
            continue
        options = plots.varying(df)
        keys = options + ["lineup"] + ([seat_col] if seat_col else []) + ["policy"]
        for k, g in df.groupby(keys, sort=False, dropna=False):
            k = k if isinstance(k, tuple) else (k,)
            g = g.sort_values("total")
            values, counts = g["total"].to_numpy(np.int64), g["count"].to_numpy(np.int64)
            n = int(counts.sum())
            row = dict(zip(keys, k))
            row["seat"] = row.pop(seat_col) if seat_col else "all"
            row.update(matches=n, mean_final_total=float((values * counts).sum()) / n, min=int(values[0]))
            row.update(zip([f"p{round(100 * q)}" for q in QUANTILES], _hist_quantiles(values, counts, QUANTILES)))
            row["max"] = int(values[-1])
            rows.append(row)
    if not rows:
        return pd.DataFrame()
    cols = options + ["lineup", "policy", "seat", "matches", "mean_final_total", "min", "p10", "p25", "p50", "p75",
                      "p90", "max"]
    return pd.DataFrame(rows, columns=cols)


_SIGNED = ("mean_diff", "team_diff", "total_diff", "team_total_diff", "match_win_diff", "match_lose_diff")


def flip_lineup_pairs(lp: pd.DataFrame | None) -> pd.DataFrame | None:
    """Line-up comparisons read the other way round: the later line-up of the study (``lineup_b``)
    minus the earlier one, so that the change reads as "the policy of the later line-up instead of
    the earlier one's" (a study lists its baseline line-up first)."""
    if lp is None or not len(lp):
        return lp
    out = lp.copy()
    out["lineup_a"], out["lineup_b"] = lp["lineup_b"], lp["lineup_a"]
    out["policy_a"], out["policy_b"] = lp["policy_b"], lp["policy_a"]
    for col in _SIGNED:
        lo, hi = ("ci95_low", "ci95_high") if col == "mean_diff" else (f"{col}_ci95_low", f"{col}_ci95_high")
        if col in lp.columns:
            out[col] = -lp[col]
        if lo in lp.columns and hi in lp.columns:
            out[lo], out[hi] = -lp[hi], -lp[lo]
    return out


# ----------------------------------------------------------------------------------------------
# the study, as the findings see it


class _Study:
    def __init__(self, summary, paired, histograms, run_info, versus, lineup_pairs, totals, paired_ci, max_rows,
                 dpi):
        self.full = summary
        self.teams = bool(len(summary)) and bool(_is_team(summary["seat"]).any())
        self.summary = summary[~_is_team(summary["seat"])].reset_index(drop=True) if self.teams else summary
        self.options = plots.varying(summary)
        self.paired = paired
        self.histograms = histograms or {}
        self.info = dict(run_info)
        self.versus = versus
        self.lineup_pairs = lineup_pairs if lineup_pairs is not None else pd.DataFrame()
        self.totals = totals
        self.paired_ci = paired_ci
        self.max_rows = max_rows
        self.dpi = dpi
        s = self.summary
        self.allrows = s[s["seat"] == "all"] if len(s) else s
        self.lineups = list(dict.fromkeys(self.allrows["lineup"].tolist())) if len(s) else []
        self.matches = _has_matches(self.summary)
        rules = self.info.get("rules")
        self.losses = self.matches and (
            (isinstance(rules, Mapping) and rules.get("standings") == "last_loses")
            or bool((self.summary["match_lose_rate"].fillna(0) > 0).any()))
        self.players = len({x for x in s["seat"].astype(str) if x.isdigit()}) if len(s) else 0
        names = list(dict.fromkeys(self.allrows["policy"].tolist())) if len(s) else []
        if self.teams:
            t = self.full[_is_team(self.full["seat"])]
            names += [f"{a}: {b}" for a, b in zip(t["seat"], t["policy"])]
        self.colours = plots.policy_colours(names)
        # options with their values in study order; baseline = first value
        self.values = {o: list(dict.fromkeys(self.allrows[o].tolist())) for o in self.options} if len(s) else {}
        # fast lookup of summary rows (seat all) by (config values, lineup, policy)
        self._index = {}
        for r in self.allrows.to_dict("records"):
            self._index[(tuple(value_text(r[o]) for o in self.options), r["lineup"], r["policy"])] = r
        self.figures: list[Figure] = []

    def row(self, values: Mapping[str, Any], lineup: str, policy: str):
        return self._index.get((tuple(value_text(values[o]) for o in self.options), lineup, policy))

    def config_of(self, r) -> dict:
        return {o: r[o] for o in self.options}

    def where(self, r, skip=(), lineup=True) -> str:
        parts = []
        if lineup and "lineup" in r and len(self.lineups) > 1:
            parts.append(f"line-up {lineup_text(r['lineup'])}")
        opts = [o for o in self.options if o not in skip]
        if opts:
            parts.append(_config_text(r, opts))
        return "; ".join(parts)

    def figure(self, fig, name: str, title: str, caption: str, legend: bool = True) -> Figure:
        if legend and len(fig.axes) > 1:
            plots.figure_legend(fig, fig.axes)
        f = Figure(name=name, title=title, caption=caption, png=plots.png_bytes(fig, self.dpi), alt=title)
        self.figures.append(f)
        return f

    def first_config(self) -> dict:
        return {o: v[0] for o, v in self.values.items()}

    def rule_value(self, name: str, config: Mapping[str, Any]) -> Any:
        """The value of rule option ``name`` in configuration ``config``: its value there when it
        varies, else the study's (run.json ``rules``); None when neither says."""
        if name in config:
            return config[name]
        rules = self.info.get("rules")
        return rules.get(name) if isinstance(rules, Mapping) else None

    def reference_lineup(self) -> str | None:
        """The first line-up in which every seat plays one policy (the rule's effect with no mix), else the first."""
        for lu in self.lineups:
            if len(set(lineup_policies(lu))) == 1:
                return lu
        return self.lineups[0] if self.lineups else None

    def mixed_lineups(self) -> list[str]:
        return [lu for lu in self.lineups if len(set(lineup_policies(lu))) > 1]


def _widest(df, lo, hi, scale=1.0) -> float:
    if not len(df):
        return math.nan
    w = ((df[hi] - df[lo]) / 2 * scale).dropna()
    return float(w.max()) if len(w) else math.nan


def _bars_note(half: float, unit: str) -> str:
    if _isnan(half):
        return ""
    return (f" Bars are 95% CIs; the widest is ±{fmt_number(half, 2 if half < 1 else 1)} {unit}, so where no bar "
            "shows, the interval is narrower than the marker.")


# ----------------------------------------------------------------------------------------------
# sections


def _effect_section(st: _Study, option: str) -> Section:
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
        g0 = g
        for o, v in firsts.items():
            g0 = g0[g0[o].map(value_text) == value_text(v)]
        targets = spread_pick([r for r in g0.to_dict("records")], 3)
        if not targets:
            continue
        alone = len(set(lineup_policies(lu))) == 1
        parts = []
        for r in targets:
            e = _est(r, "mean_diff", "ci95_low", "ci95_high", PR)
            parts.append(f"{value_text(r['to_value'])}: {e.text()}")
        last = targets[-1]
        e_last = _est(last, "mean_diff", "ci95_low", "ci95_high", PR)
        # the share that moves most, with its levels
        r1 = st.row({**st.config_of(last), option: base}, lu, pol)
        r2 = st.row({**st.config_of(last), option: last["to_value"]}, lu, pol)
        why = ""
        if r1 is not None and r2 is not None:
            rates = _rates(last)
            shown = [max(rates[:2], key=lambda k: abs(float(last[f"{k}_diff"] or 0)))]
            if option == "joker_penalty" and "p_joker_left" in rates:
                shown.append("p_joker_left")  # the share the joker penalty is paid on
            for rate in shown:
                de = _est(last, f"{rate}_diff", f"{rate}_diff_ci95_low", f"{rate}_diff_ci95_high", "pp")
                if de.significant:
                    move = "rises" if de.value > 0 else "falls"
                    why += (f" {plots.RATE_NAMES[rate]} {move} from {fmt_pct(r1[rate])} to {fmt_pct(r2[rate])} of "
                            f"player-rounds at {value_text(last['to_value'])} ({de.text(inner=True)}).")
        who = f"`{pol}`" + ("" if alone or len(st.lineups) == 1 else f" in {lineup_text(lu)}")
        text = f"{who}, against {human(option)} {value_text(base)}: " + "; ".join(parts) + "." + why
        if alone and e_last.significant:
            text += f" Every seat plays `{pol}`: this is the rule's effect on the level of scores, not an edge over anyone."
        ctx = _config_text(firsts, others) if others else ""
        items.append(Finding(text, e_last, ctx))
    if items:
        sec.add(BulletList(tuple(items)))
    if len(brows) and brows["mean_diff"].notna().any():
        nl = len(st.lineups)
        fig, axes = plots.grid(nl, 2 if nl > 1 else 1, 6.2, 3.9)
        for ax, lu in zip(axes, st.lineups):
            plots.plot_effect(st.paired, option, ax, lineup=lu, colours=st.colours, baseline=base)
            ax.set_title(lineup_text(lu), fontsize="medium")
        sec.add(st.figure(fig, f"effect_{option}.png", f"Effect of the {human(option)} on the mean score",
                          f"Paired difference of each policy's mean score per round (points) against {human(option)} "
                          f"{value_text(base)}, on the same deals; one panel per line-up, one colour per policy."
                          + _bars_note(_widest(brows, "ci95_low", "ci95_high"), "points")))
    # the table: baseline comparisons, then steps between neighbouring values
    steps = {(value_text(a), value_text(b)) for a, b in zip(values, values[1:])}
    is_base = np.array([value_text(v) == value_text(base) for v in p["from_value"]], dtype=bool)
    is_step = np.array([(value_text(a), value_text(b)) in steps for a, b in zip(p["from_value"], p["to_value"])],
                       dtype=bool)
    keep = p[is_base | is_step] if len(p) else p
    jokers = _has_joker_left(keep, "p_joker_left_diff")
    rows = []
    for r in keep.to_dict("records"):
        s = _est(r, "mean_diff", "ci95_low", "ci95_high")
        rows.append((lineup_text(r["lineup"]), r["policy"],
                     f"{value_text(r['from_value'])} → {value_text(r['to_value'])}",
                     _config_text(r, others) or "–", f"{int(r['deals']):,}", s.cell,
                     _est(r, "p_unopened_diff", "p_unopened_diff_ci95_low", "p_unopened_diff_ci95_high", "pp").cell,
                     _est(r, "p_hand_diff", "p_hand_diff_ci95_low", "p_hand_diff_ci95_high", "pp").cell)
                    + ((_est(r, "p_joker_left_diff", "p_joker_left_diff_ci95_low", "p_joker_left_diff_ci95_high",
                             "pp").cell,) if jokers else ())
                    + (s.significance,))
    rows, note = _capped(rows, "comparisons", "paired.csv", st.max_rows)
    if len(keep) < len(p):
        note = (note + " " if note else "") + (f"Shown: comparisons with the baseline and between neighbouring "
                                               f"values ({len(keep):,} of {len(p):,}; `paired.csv` has every pair).")
    if rows:
        sec.add(Table((Column("line-up"), Column("policy"), Column(f"{human(option)}"), Column("other options"),
                       Column("deals", numeric=True), Column("Δ mean score", "points, 95% CI", True),
                       Column("Δ P(unopened)", "pp, 95% CI", True), Column("Δ P(Hand)", "pp, 95% CI", True))
                      + ((Column("Δ P(joker left)", "pp, 95% CI", True),) if jokers else ())
                      + (Column("difference?"),), tuple(rows),
                      caption="Paired differences (new value minus old, same deals). pp = percentage points.",
                      note=note))
    return sec


def _levels_section(st: _Study) -> Section:
    sec = Section("Scores and shares by configuration", level=2, id="levels")
    x = st.options[0] if st.options else None
    nl = len(st.lineups)
    s = st.summary
    sec.add(Paragraph("The levels behind the differences above: each policy's mean score per round and the shares of "
                      "player-rounds that end unopened or with a Hand, per configuration (points, not lines: the "
                      "values of a rule option are discrete). One colour per policy in every figure."))
    for col, name, title, caption in (
            ("mean_score", "mean_score.png", "Mean score per round",
             "Mean score per round (points, lower is better) of each policy over all its seats."),
            ("p_unopened", "p_unopened.png", "P(unopened)",
             "Share of player-rounds (%) in which the player never laid down an opening; each pays 100 on top of "
             "its cards. The axis starts at 0."),
            ("p_hand", "p_hand.png", "P(Hand)",
             "Share of player-rounds (%) that end with the player going out in one turn (a Hand). The axis "
             "starts at 0.")):
        fig, axes = plots.grid(nl, 2 if nl > 1 else 1, 6.0, 3.8)
        for ax, lu in zip(axes, st.lineups):
            if col == "mean_score":
                plots.plot_mean_score(s, ax, lineup=lu, x=x, colours=st.colours)
            else:
                plots.plot_rate(s, col, ax, lineup=lu, x=x, colours=st.colours)
            ax.set_title(lineup_text(lu), fontsize="medium")
        scale = 1.0 if col == "mean_score" else 100.0
        lo, hi = ("ci95_low", "ci95_high") if col == "mean_score" else (f"{col}_ci95_low", f"{col}_ci95_high")
        unit = "points" if col == "mean_score" else "percentage points"
        sec.add(st.figure(fig, name, title, caption + " One panel per line-up."
                          + _bars_note(_widest(st.allrows, lo, hi, scale), unit)))
    return sec


_VERSUS_VS_LINEUPS = (
    "Two different questions, two different numbers. *Policy against policy* (this section) compares players **at "
    "the same table**: it is what decides who wins. *Switching one seat* (next section) compares the same seat "
    "**with and without** the change, on the same deals: it includes what the change does to everyone's scores "
    "(a player who waits for a Hand makes rounds longer and its opponents' scores change too). So a policy can "
    "beat its table-mates and still score more than it would by switching: both are true at once.")


def _versus_section(st: _Study) -> Section | None:
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
        e = _est(r, "mean_diff", "ci95_low", "ci95_high", PR)
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
        fig, axes = plots.grid(len(mixed), 2 if len(mixed) > 1 else 1, 6.2, 3.9)
        for ax, lu in zip(axes, mixed):
            plots.plot_versus(vs, ax, lineup=lu, x=st.options[0] if st.options else None, colours=st.colours)
            ax.set_title(lineup_text(lu), fontsize="medium")
        sec.add(st.figure(fig, "versus.png", "Policy against policy",
                          "Per-deal difference A − B of two policies' mean scores per round at the same table "
                          "(points; colour of policy A); below the dashed 0 line A scores less (better)."
                          + _bars_note(_widest(vs, "ci95_low", "ci95_high"), "points")))
    rows = []
    for r in vs.to_dict("records"):
        e = _est(r, "mean_diff", "ci95_low", "ci95_high")
        rows.append(tuple(value_text(r[o]) for o in st.options) + (
            lineup_text(r["lineup"]), r["policy_a"], r["policy_b"], f"{int(r['deals']):,}", fmt_number(r["mean_a"]),
            fmt_number(r["mean_b"]), e.cell, e.significance))
    rows, note = _capped(rows, "rows", "versus.csv", st.max_rows)
    sec.add(Table(tuple(_opt_cols(st.options)) + (
        Column("line-up"), Column("A"), Column("B"), Column("deals", numeric=True),
        Column("mean A", "points", True), Column("mean B", "points", True),
        Column("A − B", "points, 95% CI", True), Column("difference?")), tuple(rows), note=note))
    return sec


def _lineups_section(st: _Study) -> Section | None:
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
        e = _est(r, "mean_diff", "ci95_low", "ci95_high", PR)
        text = (f"Position {int(r['position'])}, `{r['policy_a']}` instead of `{r['policy_b']}`: the difference in "
                f"that player's score is {e.text()}")
        main = e
        if has_team and r["team"]:
            te = _est(r, "team_diff", "team_diff_ci95_low", "team_diff_ci95_high", TR)
            text += f"; in {r['team']}'s, {te.text()}"
            main = te
        if has_match and r["matches"] > 0:
            we = _est(r, "match_win_diff", "match_win_diff_ci95_low", "match_win_diff_ci95_high", "pp")
            text += f"; in the chance of winning the match, {we.text()}"
            main = we
        items.append(Finding(text + ".", main, st.where({**r, "lineup": r["lineup_a"]})))
    if len(items) <= 12:
        sec.add(BulletList(tuple(items)))
    metrics = ["score"] + (["team"] if has_team else []) + (["win"] if has_match else [])
    fig, axes = plots.grid(len(metrics), 2 if len(metrics) > 1 else 1, 6.0 if len(metrics) > 1 else 6.4, 3.9)
    titles = {"score": "that player's score", "team": "its team's score", "win": "chance of winning the match"}
    for ax, m in zip(axes, metrics):
        plots.plot_lineup_pairs(lp, ax, metric=m, x=st.options[0] if st.options else None, colours=st.colours)
        ax.set_title(titles[m], fontsize="medium")
    sec.add(st.figure(fig, "lineups.png", "Switching one seat",
                      "Paired difference when one line-up position plays the first policy instead of the second, "
                      "same deals; one panel per question" + (", a team's score summing both partners" if has_team
                                                              else "") + "." +
                      _bars_note(_widest(lp, "ci95_low", "ci95_high"), "points")))
    rows = []
    for r in lp.to_dict("records"):
        line = tuple(value_text(r[o]) for o in st.options) + (
            lineup_text(r["lineup_a"]), f"position {int(r['position'])}: `{r['policy_a']}` instead of `{r['policy_b']}`",
            f"{int(r['deals']):,}", _est(r, "mean_diff", "ci95_low", "ci95_high").cell)
        if has_team:
            line += (r["team"] or "–", _est(r, "team_diff", "team_diff_ci95_low", "team_diff_ci95_high").cell
                     if r["team"] else "–")
        if has_match:
            line += (f"{int(r['matches']):,}",
                     _est(r, "total_diff", "total_diff_ci95_low", "total_diff_ci95_high").cell)
            if has_team:
                line += (_est(r, "team_total_diff", "team_total_diff_ci95_low", "team_total_diff_ci95_high").cell
                         if r["team"] else "–",)
            line += (_est(r, "match_win_diff", "match_win_diff_ci95_low", "match_win_diff_ci95_high", "pp").cell,)
        rows.append(line)
    cols = tuple(_opt_cols(st.options)) + (Column("line-up (with the first policy)"), Column("change"),
                                           Column("deals", numeric=True),
                                           Column("Δ that player's score", "points per round, 95% CI", True))
    if has_team:
        cols += (Column("team"), Column("Δ team score", "points per round, 95% CI", True))
    if has_match:
        cols += (Column("matches", numeric=True), Column("Δ final total", "points, 95% CI", True))
        if has_team:
            cols += (Column("Δ final team total", "points, 95% CI", True),)
        cols += (Column("Δ P(won match)", "pp, 95% CI", True),)
    rows, note = _capped(rows, "rows", "lineups.csv", st.max_rows)
    sec.add(Table(cols, tuple(rows), note=note))
    return sec


def _matches_section(st: _Study) -> Section | None:
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
        t = st.full[_is_team(st.full["seat"])]
        items = []
        for lu in st.mixed_lineups() or st.lineups[:1]:
            for r in t[(t["lineup"] == lu) & (t["seat"] == "team A")].to_dict("records"):
                e = _share(r, "match_win_rate")
                items.append(Finding(f"Team A ({r['policy']}) wins {e.number()} of its matches (95% CI {e.ci_text}; "
                                     "a fair share is 50%).", None, st.where(r)))
        sec.add(BulletList(tuple(items[: st.max_rows])))
        fig, axes = plots.grid(len(st.lineups), 2 if len(st.lineups) > 1 else 1, 6.0, 3.8)
        for ax, lu in zip(axes, st.lineups):
            plots.plot_match_win(st.full, ax, lineup=lu, x=x, teams=True, colours=st.colours)
            ax.set_title(lineup_text(lu), fontsize="medium")
        sec.add(st.figure(fig, "match_win.png", "Matches won by each team",
                          "Share of matches won (%) by team A (positions 1 & 3) and team B (2 & 4); the dotted line is "
                          "the fair share, 50%." + _bars_note(_widest(t, "match_win_rate_ci95_low",
                                                                      "match_win_rate_ci95_high", 100), "percentage points")))
    else:
        rows = s[(s["seat"] == "all") & (s["matches"] > 0)]
        items = []
        for r in rows.to_dict("records")[: st.max_rows]:
            e = _share(r, "match_win_rate")
            text = f"`{r['policy']}` wins {e.number()} of its player-matches (95% CI {e.ci_text})"
            if st.losses:
                lose = _share(r, "match_lose_rate")
                text += f" and loses {lose.number()} (95% CI {lose.ci_text})"
            items.append(Finding(text + f" (a fair share is 1 in {st.players}).", None, st.where(r)))
        if len(items) <= 12:
            sec.add(BulletList(tuple(items)))
        fig, axes = plots.grid(len(st.lineups), 2 if len(st.lineups) > 1 else 1, 6.0, 3.8)
        for ax, lu in zip(axes, st.lineups):
            plots.plot_match_win(s, ax, lineup=lu, x=x, colours=st.colours)
            ax.set_title(lineup_text(lu), fontsize="medium")
        sec.add(st.figure(fig, "match_win.png", "Matches won by each policy",
                          f"Share of a policy's player-matches that it won (%), over all its seats; the dotted line is "
                          f"the fair share, 1 in {st.players}." + _bars_note(
                              _widest(rows, "match_win_rate_ci95_low", "match_win_rate_ci95_high", 100),
                              "percentage points")))
        body = []
        for r in rows.to_dict("records"):
            line = tuple(value_text(r[o]) for o in st.options) + (lineup_text(r["lineup"]), r["policy"],
                                                                   f"{int(r['matches']):,}",
                                                                   _share(r, "match_win_rate").cell)
            if st.losses:
                line += (_share(r, "match_lose_rate").cell, _share(r, "match_neutral_rate").cell)
            line += (_est(r, "mean_final_total", "final_total_ci95_low", "final_total_ci95_high", diff=False).cell,)
            body.append(line)
        cols = tuple(_opt_cols(st.options)) + (Column("line-up"), Column("policy"),
                                               Column("player-matches", numeric=True),
                                               Column("P(won match)", "%, 95% CI", True))
        if st.losses:
            cols += (Column("P(lost match)", "%, 95% CI", True), Column("P(neither)", "%, 95% CI", True))
        cols += (Column("mean final total", "points, 95% CI", True),)
        body, note = _capped(body, "rows", "summary.csv", st.max_rows)
        sec.add(Table(cols, tuple(body), caption="Who wins", note=note))
    # tie-breaks and Hands
    g = s[(s["seat"] == "all") & (s["matches"] > 0)].drop_duplicates(subset=st.options + ["lineup"])
    body = [tuple(value_text(r[o]) for o in st.options) + (
        lineup_text(r["lineup"]), fmt_number(r["mean_tiebreaks"], 3), _share(r, "tiebreak_rate").cell,
        _share(r, "hand_decided_rate").cell) for r in g.to_dict("records")]
    body, note = _capped(body, "rows", "summary.csv", st.max_rows)
    sec.add(Table(tuple(_opt_cols(st.options)) + (
        Column("line-up"), Column("tie-break rounds per match", "rounds", True),
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
        width = plots.nice_width(int(hist["total"].max()) - int(hist["total"].min()))
        fig, axes = plots.grid(len(st.lineups), 2 if len(st.lineups) > 1 else 1, 6.0, 3.9)
        for ax, lu in zip(axes, st.lineups):
            plots.plot_final_totals(th, ax, lineup=lu, team_total=tt if teams else None, width=width,
                                    colours=st.colours)
            ax.set_title(lineup_text(lu), fontsize="medium")
        sec.add(st.figure(fig, name, title, legend=False, caption=
                          f"Share of matches per bin of {width} points of final {'team ' if teams else ''}total "
                          "(tie-break rounds included; lower is better); a colour per "
                          + ("team" if teams else "policy (all its seats)") + ", a line style per configuration."))
    if st.totals is not None and len(st.totals):
        body = []
        for r in st.totals.to_dict("records"):
            who = r["policy"] if r["seat"] == "all" else f"{r['seat']}: {r['policy']}"
            body.append(tuple(value_text(r[o]) for o in st.options) + (
                lineup_text(r["lineup"]), who, f"{int(r['matches']):,}", fmt_number(r["mean_final_total"]))
                + tuple(fmt_number(r[c], 0) for c in ("min", "p10", "p25", "p50", "p75", "p90", "max")))
        body, note = _capped(body, "rows", "totals.csv", st.max_rows)
        sec.add(Table(tuple(_opt_cols(st.options)) + (
            Column("line-up"), Column("policy or team"), Column("matches", numeric=True),
            Column("mean", "points", True)) + tuple(Column(c, "points", True) for c in
                                                    ("min", "p10", "p25", "median", "p75", "p90", "max")),
            tuple(body), caption="Final totals: 10% of matches ended at or below p10, half at or below the median, "
            "and so on.", note=note))
    return sec


def _partnership_section(st: _Study) -> Section | None:
    if not st.teams:
        return None
    t = st.full[_is_team(st.full["seat"])]
    sec = Section("Partnership (2 v 2)", level=2, id="partnership")
    sec.add(Paragraph(
        "Partners sit opposite: line-up positions 1 & 3 form **team A**, positions 2 & 4 **team B**. The partner "
        "of the player who goes out scores 0 for the round; a team's score is the sum of its two players (lower "
        "is better). The unit is the deal (the match for match results): *P(team went out)* is the share of "
        "deals in which either partner went out, *P(team Hand)* in which one of them went out with a Hand, "
        "*P(unopened)* the share of the team's player-rounds without an opening."))
    fig, axes = plots.grid(len(st.lineups), 2 if len(st.lineups) > 1 else 1, 6.0, 3.8)
    for ax, lu in zip(axes, st.lineups):
        plots.plot_team_score(st.full, ax, lineup=lu, x=st.options[0] if st.options else None, colours=st.colours)
        ax.set_title(lineup_text(lu), fontsize="medium")
    sec.add(st.figure(fig, "team_score.png", "Team score per round",
                      "Each team's summed score per round (points, both partners; lower is better); a colour per team."
                      + _bars_note(_widest(t, "ci95_low", "ci95_high"), "points")))
    has_match = _has_matches(t)
    body = []
    for r in t.to_dict("records"):
        line = tuple(value_text(r[o]) for o in st.options) + (
            lineup_text(r["lineup"]), r["seat"].replace("team ", ""), r["policy"], f"{int(r['deals']):,}",
            _est(r, "mean_score", "ci95_low", "ci95_high", diff=False).cell, _share(r, "p_out").cell,
            _share(r, "p_hand").cell, _share(r, "p_unopened").cell)
        if has_match:
            line += (_share(r, "match_win_rate").cell if r["matches"] > 0 else "–",
                     _est(r, "mean_final_total", "final_total_ci95_low", "final_total_ci95_high", diff=False).cell
                     if r["matches"] > 0 else "–")
        body.append(line)
    cols = tuple(_opt_cols(st.options)) + (
        Column("line-up"), Column("team"), Column("policies"), Column("deals", numeric=True),
        Column("team score per round", "points, 95% CI", True), Column("P(team went out)", "%, 95% CI", True),
        Column("P(team Hand)", "%, 95% CI", True), Column("P(unopened)", "%, 95% CI", True))
    if has_match:
        cols += (Column("P(won match)", "%, 95% CI", True), Column("mean final team total", "points, 95% CI", True))
    body, note = _capped(body, "rows", "summary.csv", st.max_rows)
    sec.add(Table(cols, tuple(body), note=note))
    if has_match:
        _team_margin(st, sec)
    return sec


#: The unit of a team margin (one observation per match).
PM = "points per match"


def _team_margin(st: _Study, sec: Section) -> None:
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
    items = []
    for r in table.to_dict("records"):
        est = _est(r, "mean_margin", "margin_ci95_low", "margin_ci95_high", unit=PM)
        items.append(Finding(
            f"Team A ({r['team_a']}) against team B ({r['team_b']}): mean margin {est.text(inner=False)}; team A's "
            f"total was lower in {_share(r, 'p_negative').text()} of matches, higher in "
            f"{_share(r, 'p_positive').text()}, equal in {_share(r, 'p_zero').text()}.", est,
            st.where(r) if (st.options or len(st.lineups) > 1) else ""))
    sec.add(BulletList(tuple(items)))
    lineups = list(dict.fromkeys(table["lineup"].tolist()))
    width = plots.nice_width(int(hist["margin"].max()) - int(hist["margin"].min()))
    fig, axes = plots.grid(len(lineups) + 2, 2, 6.0, 3.9)
    for ax, lu in zip(axes, lineups):
        plots.plot_team_margin(hist, ax, lineup=lu, width=width, colours=st.colours)
        ax.set_title(lineup_text(lu), fontsize="medium")
    x = st.options[0] if st.options else None
    plots.plot_team_margin_summary(table, axes[len(lineups)], metric="mean", x=x, colours=st.colours)
    axes[len(lineups)].set_title("mean team margin", fontsize="medium")
    neg = plots.plot_team_margin_summary(table, axes[len(lineups) + 1], metric="negative", x=x, colours=st.colours)
    neg.ax.set_title("team A's total lower (colours as in the mean panel)", fontsize="medium")
    if neg.ax.get_legend() is not None:  # the mean panel names the line-ups; here the legend would hide points
        neg.ax.get_legend().remove()
    sec.add(st.figure(fig, "team_margin.png", "Team margin", legend=False, caption=
                      f"Top panels: share of matches per bin of {width} points of team margin (team A's final match "
                      "total minus team B's; left of the dashed line team A finished lower, which is better), a "
                      "line style per configuration. Bottom panels: the mean margin (points per match) and the "
                      "share of matches with a margin below 0 (%), each with its 95% CI, a colour per line-up."
                      + _bars_note(_widest(table, "margin_ci95_low", "margin_ci95_high"), PM)))
    body = [tuple(value_text(r[o]) for o in st.options) + (
        lineup_text(r["lineup"]), f"{int(r['matches']):,}",
        _est(r, "mean_margin", "margin_ci95_low", "margin_ci95_high").cell, fmt_number(r["sd_margin"]),
        _share(r, "p_negative").cell, _share(r, "p_zero").cell, _share(r, "p_positive").cell,
        fmt_number(r["p10"], 0), fmt_number(r["p50"], 0), fmt_number(r["p90"], 0)) for r in table.to_dict("records")]
    body, note = _capped(body, "rows", "team_margin.csv", st.max_rows)
    sec.add(Table(tuple(_opt_cols(st.options)) + (
        Column("line-up"), Column("matches", numeric=True), Column("mean margin A − B", "points per match, 95% CI", True),
        Column("sd", "points", True), Column("margin < 0", "%, 95% CI", True), Column("margin = 0", "%, 95% CI", True),
        Column("margin > 0", "%, 95% CI", True), Column("p10", "points", True), Column("median", "points", True),
        Column("p90", "points", True)), tuple(body),
        caption="Team margin: team A's final match total minus team B's; p10: 10% of matches had a margin at or "
        "below it.", note=note))


def _round_section(st: _Study) -> Section | None:
    allrows = st.allrows.drop_duplicates(subset=st.options + ["lineup"]) if len(st.allrows) else st.allrows
    if not len(allrows):
        return None
    sec = Section("Round length", level=2, id="round-length")
    sec.add(Paragraph("A round's length counts **turns of all players together** (four players taking one turn each "
                      "make 4 turns). A *void* round is one in which the stock ran out more often than "
                      "`max_reshuffles` allows (RULES.md §3): everyone scores 0 for it."))
    items = []
    for lineup, g in allrows.groupby("lineup", sort=False):
        recs = g.to_dict("records")
        lo = min(recs, key=lambda r: r["mean_turns"])
        hi = max(recs, key=lambda r: r["mean_turns"])
        vlo, vhi = min(r["void_rate"] for r in recs), max(r["void_rate"] for r in recs)
        void = ("none was void" if vhi == 0 else f"{fmt_pct(vlo)} are void" if vlo == vhi
                else f"void rounds: {fmt_pct(vlo)} to {fmt_pct(vhi)}")
        if len(recs) == 1 or lo["mean_turns"] == hi["mean_turns"]:
            text = f"A round lasts {fmt_number(lo['mean_turns'])} turns on average; {void}."
        else:
            text = (f"A round lasts from {fmt_number(lo['mean_turns'])} turns on average ({_config_text(lo, st.options)}) "
                    f"to {fmt_number(hi['mean_turns'])} ({_config_text(hi, st.options)}); {void}.")
        items.append(Finding(text, None, f"line-up {lineup_text(lineup)}" if len(st.lineups) > 1 else ""))
    sec.add(BulletList(tuple(items)))
    turns = st.histograms.get("turns")
    if turns is not None and len(turns):
        tl = list(dict.fromkeys(turns["lineup"].tolist()))
        fig, axes = plots.grid(len(tl), 2 if len(tl) > 1 else 1, 6.4, 4.0)
        for ax, lu in zip(axes, tl):
            plots.plot_round_length(turns, ax, lineup=lu)
            ax.set_title(lineup_text(lu), fontsize="medium", loc="left")
        sec.add(st.figure(fig, "round_length.png", "Round length", legend=False, caption=
                          "Share of rounds by length (turns of all players together), one line per configuration "
                          "(configurations with the same distribution drawn once; at most six); crosses: void "
                          "rounds, apart from the others, with their share of all rounds in the legend."))
    return sec


# ----------------------------------------------------------------------------------------------
# the run, how to read, tables


def _run_section(st: _Study) -> Section:
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
        sec.add(Paragraph(f"**Rule options that vary** (names as in RULES.md), {n_cfg:,} configuration(s) in all; "
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


def _how_to_read(st: _Study) -> Section:
    items = [
        "**Score** is the points a player gets for one round (RULES.md §6): the value of the cards left in hand, plus "
        "100 for a player who never opened; −30 for going out, −60 for a Hand (which may double the others). **Lower "
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
    return Section("How to read this report", level=2, id="how-to-read").add(BulletList(tuple(items)))


def _tables_section(st: _Study) -> Section | None:
    s = st.summary
    if not len(s):
        return None
    sec = Section("Tables", level=2, id="tables")
    df = s[s["seat"] == "all"]
    jokers = _has_joker_left(df)
    rows = []
    for r in df.to_dict("records"):
        line = tuple(value_text(r[o]) for o in st.options) + (
            lineup_text(r["lineup"]), r["policy"], f"{int(r['deals']):,}",
            _est(r, "mean_score", "ci95_low", "ci95_high", diff=False).cell,
            _share(r, "p_out").cell, _share(r, "p_hand").cell, _share(r, "p_unopened").cell) + (
            (_share(r, "p_joker_left").cell,) if jokers else ()) + (
            fmt_number(r["mean_turns"]), fmt_pct(r["void_rate"]))
        rows.append(line)
    rows, note = _capped(rows, "rows", "summary.csv", st.max_rows)
    sub = Section("Mean score and outcomes, all seats of each policy", level=3, id="table-main")
    sub.add(Table(tuple(_opt_cols(st.options)) + (
        Column("line-up"), Column("policy"), Column("deals", numeric=True),
        Column("mean score", "points per round, 95% CI", True), Column("P(went out)", "%, 95% CI", True),
        Column("P(Hand)", "%, 95% CI", True), Column("P(unopened)", "%, 95% CI", True))
        + ((Column("P(joker left)", "%, 95% CI", True),) if jokers else ())
        + (Column("round length", "turns", True), Column("void rounds", "%", True)), tuple(rows), note=note))
    sec.add(sub)
    seats = sorted({x for x in s["seat"].tolist() if x != "all"}, key=int)
    body = []
    for _, g in s[s["seat"] != "all"].groupby(st.options + ["lineup", "policy"], sort=False, dropna=False):
        recs = {r["seat"]: r for r in g.to_dict("records")}
        first = next(iter(recs.values()))
        line = tuple(value_text(first[o]) for o in st.options) + (lineup_text(first["lineup"]), first["policy"])
        for x in seats:
            r = recs.get(x)
            if r is None or r["rounds"] == 0 or _isnan(r["ci95_high"]):
                line += ("–" if r is None or r["rounds"] == 0 else fmt_number(r["mean_score"]),)
            else:
                line += (f"{fmt_number(r['mean_score'])} ± {fmt_number((r['ci95_high'] - r['ci95_low']) / 2)}",)
        body.append(line)
    body, note = _capped(body, "rows", "summary.csv", st.max_rows)
    sub = Section("Mean score by seat", level=3, id="table-seats")
    sub.add(Paragraph("Points per round ± half-width of the 95% CI. Seat 0 is the starter (dealt one extra card, "
                      "plays first)."),
            Table(tuple(_opt_cols(st.options)) + (Column("line-up"), Column("policy"))
                  + tuple(Column(f"seat {x}", "points", True) for x in seats), tuple(body), note=note))
    sec.add(sub)
    return sec


def _files_section(st: _Study, csv_files: Sequence[str]) -> Section:
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
# the executive summary


def _opening_of(st: _Study, rate: str, option: str, config: Mapping[str, Any]) -> str:
    """`` at opening threshold 51`` after P(unopened) when the clause's option is not the threshold
    itself (whose clause names both values): which opening the players did not make."""
    if rate != "p_unopened" or option == "opening_threshold":
        return ""
    threshold = st.rule_value("opening_threshold", config)
    if threshold is None:
        return ""
    ascending = st.rule_value("opening_rule", config) == "ascending"
    return f" at opening threshold {value_text(threshold)}" + (" (ascending openings)" if ascending else "")


def _summary_section(st: _Study) -> Section:
    sec = Section("In brief", level=2, id="in-brief")
    items: list[Finding] = []
    ref = st.reference_lineup()
    first = st.first_config()
    # 1. each rule option: baseline -> last value, for the reference line-up
    for option in [o for o in st.options if o in st.values][:3]:
        vals = st.values[option]
        base, last = vals[0], vals[-1]
        p = plots.baseline_rows(st.paired, option, base)
        p = p[(p["lineup"] == ref) & (p["to_value"].map(value_text) == value_text(last))]
        # a later option's effect at each value of the first varied option (a joker-penalty effect
        # may grow with the threshold): up to three of them, the baseline's first
        others = [o for o in st.options if o != option]
        x = st.options[0] if option != st.options[0] and len(st.values.get(st.options[0], ())) > 1 else None
        for o in others:
            if o != x:
                p = p[p[o].map(value_text) == value_text(first[o])]
        if not len(p):
            continue
        at_base = p if x is None else p[p[x].map(value_text) == value_text(first[x])]
        r = (at_base if len(at_base) else p).iloc[0].to_dict()
        e = _est(r, "mean_diff", "ci95_low", "ci95_high", PR)
        verb = _change_verb(base, last)
        recs = [r] if x is None else [r] + [q for q in spread_pick(p.to_dict("records"), 3)
                                            if value_text(q[x]) != value_text(r[x])][:2]
        if len(recs) > 1:  # one clause per value of x, each worded by its own interval
            parts = [f"{_est(q, 'mean_diff', 'ci95_low', 'ci95_high', PR).text()} at {human(x)} {value_text(q[x])}"
                     for q in recs]
            text = (f"{verb} the {human(option)} from {value_text(base)} to {value_text(last)}: the difference in "
                    f"`{r['policy']}`'s mean score is " + "; ".join(parts))
        elif e.significant:
            text = (f"{verb} the {human(option)} from {value_text(base)} to {value_text(last)} changes "
                    f"`{r['policy']}`'s mean score by {e.text()}")
        else:  # no direction, no claim of a change
            text = (f"{verb} the {human(option)} from {value_text(base)} to {value_text(last)}: the difference in "
                    f"`{r['policy']}`'s mean score is {e.text()}")
        r1 = st.row({**first, option: base}, ref, r["policy"])
        r2 = st.row({**first, option: last}, ref, r["policy"])
        rates = _rates(r)
        shown = [max(rates[:2], key=lambda k: abs(float(r[f"{k}_diff"] or 0)))]
        if option == "joker_penalty" and "p_joker_left" in rates:
            shown.append("p_joker_left")
        for rate in shown:
            de = _est(r, f"{rate}_diff", f"{rate}_diff_ci95_low", f"{rate}_diff_ci95_high", "pp")
            if r1 is not None and r2 is not None and de.significant:
                text += (f"; {plots.RATE_NAMES[rate]}{_opening_of(st, rate, option, first)} goes from "
                         f"{fmt_pct(r1[rate])} to {fmt_pct(r2[rate])} of player-rounds ({de.text(inner=True)})")
        items.append(Finding(text + ".", e, st.where({**r, **first, "lineup": ref},
                                                     skip=(option,) if len(recs) == 1 else (option, x))))
    # 2. policy against policy (not for 2 v 2, where a policy pools partners and opponents)
    vs = st.versus
    if vs is not None and len(vs) and not st.teams:
        for lu in st.mixed_lineups()[:1]:
            g = vs[vs["lineup"] == lu]
            a, b = g["policy_a"].iloc[0], g["policy_b"].iloc[0]
            g = g[(g["policy_a"] == a) & (g["policy_b"] == b)]
            x = st.options[0] if st.options else None
            for o in st.options[1:]:
                g = g[g[o].map(value_text) == value_text(first[o])]
            recs = spread_pick(g.to_dict("records"), 3)
            parts = [f"{_est(r, 'mean_diff', 'ci95_low', 'ci95_high', PR).text()}"
                     + (f" at {human(x)} {value_text(r[x])}" if x else "") for r in recs]
            e = _est(recs[-1], "mean_diff", "ci95_low", "ci95_high", PR)
            items.append(Finding(f"At the same table, `{a}` − `{b}` (the first's mean score minus the second's) is "
                                 + "; ".join(parts) + ".", e,
                                 st.where({**first, "lineup": lu}, skip=(x,) if x else ())))
    # 3. switching one seat (teams: the team's score and its chance to win)
    lp = st.lineup_pairs
    if lp is not None and len(lp):
        for (la, lb, pos), g in list(lp.groupby(["lineup_a", "lineup_b", "position"], sort=False))[:2]:
            x = st.options[0] if st.options else None
            for o in st.options[1:]:
                g = g[g[o].map(value_text) == value_text(first[o])]
            recs = spread_pick(g.to_dict("records"), 3)
            if not recs:
                continue
            r0 = recs[0]
            if _has_matches(st.summary) and r0["matches"] > 0:
                col, unit, what = "match_win_diff", "pp", ("its team's" if r0["team"] else "its") + " chance of winning the match"
            elif r0["team"]:
                col, unit, what = "team_diff", TR, f"{r0['team']}'s score"
            else:
                col, unit, what = "mean_diff", PR, "that player's score"
            lo, hi = ("ci95_low", "ci95_high") if col == "mean_diff" else (f"{col}_ci95_low", f"{col}_ci95_high")
            parts = [_est(r, col, lo, hi, unit).text()
                     + (f" at {human(x)} {value_text(r[x])}" if x and len(recs) > 1 else "") for r in recs]
            e = _est(recs[-1], col, lo, hi, unit)
            items.append(Finding(f"Playing `{r0['policy_a']}` instead of `{r0['policy_b']}` at position {int(pos)}: "
                                 f"the difference in {what} is " + "; ".join(parts) + ".", e,
                                 st.where({**first, "lineup": la}, skip=(x,) if x else ())))
    # 4. matches: team A's win rate in mixed line-ups
    if st.matches and st.teams and len(items) < 6:
        t = st.full[(st.full["seat"] == "team A")]
        for lu in st.mixed_lineups()[:1]:
            g = t[t["lineup"] == lu]
            for o in st.options[1:]:
                g = g[g[o].map(value_text) == value_text(first[o])]
            recs = spread_pick(g.to_dict("records"), 3)
            x = st.options[0] if st.options else None
            parts = [_share(r, "match_win_rate").text() + (f" at {human(x)} {value_text(r[x])}" if x else "")
                     for r in recs]
            items.append(Finding(f"Team A ({recs[0]['policy']}) wins, of its matches, " + "; ".join(parts)
                                 + " (a fair share is 50%).", None, f"line-up {lineup_text(lu)}"))
    if not items and len(st.allrows):
        for r in st.allrows.to_dict("records")[:4]:
            e = _est(r, "mean_score", "ci95_low", "ci95_high", PR, diff=False)
            items.append(Finding(f"`{r['policy']}` scores {e.text()}.", e, st.where(r)))
    if not items:
        sec.add(Paragraph("No results yet."))
        return sec
    sec.add(BulletList(tuple(items[:6])))
    sec.add(Paragraph("Lower scores are better. The sections below give every comparison, its figure and table.",
                      note=True))
    return sec


# ----------------------------------------------------------------------------------------------


def build(summary: pd.DataFrame, paired: pd.DataFrame, histograms: Mapping[str, pd.DataFrame] | None,
          run_info: Mapping[str, Any], *, versus: pd.DataFrame | None = None,
          lineup_pairs: pd.DataFrame | None = None, totals: pd.DataFrame | None = None,
          csv_files: Sequence[str] = (), max_rows: int = MAX_ROWS, dpi: int = 100) -> Document:
    """The report of a study as a :class:`~handsim.report.document.Document` (figures included).

    Parameters are those of :func:`handsim.report.write_report`; ``csv_files`` lists the table
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
    st = _Study(summary, paired, histograms, run_info, versus, flip_lineup_pairs(lineup_pairs), totals, paired_ci,
                max_rows, dpi)
    title = str(run_info.get("title", "Hand (هاند) strategy study"))
    doc = Document(title)
    n_rounds = run_info.get("rounds_played")
    lead = []
    if st.lineups:
        lead.append(f"{len(st.lineups)} line-up(s)")
    if st.options and st.values:
        lead.append(", ".join(f"{human(o)} {' / '.join(value_text(v) for v in st.values[o])}" if len(st.values[o]) <= 6
                              else f"{human(o)} ({len(st.values[o])} values)" for o in st.options))
    if n_rounds:
        lead.append(f"{int(n_rounds):,} rounds")
    doc.lead = ("Study of " + "; ".join(lead) + ". Scores are points per player-round: lower is better.") if lead else ""
    doc.add(_summary_section(st))
    doc.add(_run_section(st))
    doc.add(_how_to_read(st))
    if len(st.summary):
        for option in st.options:
            if len(paired) and (paired["parameter"] == option).any():
                doc.add(_effect_section(st, option))
        doc.add(_levels_section(st))
        doc.add(_versus_section(st))
        doc.add(_lineups_section(st))
        doc.add(_matches_section(st))
        doc.add(_partnership_section(st))
        doc.add(_round_section(st))
        doc.add(_tables_section(st))
    doc.add(_files_section(st, csv_files))
    doc.unique_ids()
    return doc
