"""What classic Hand's report reads of a study: the tables once, and the helpers its sections share.

:class:`StudyView` holds the DataFrames of :class:`handsim.games.hand.stats.StudyAccumulator`
as the report sees them (the per-policy rows, the teams, the options and their values, the
figures drawn so far); the sections of the report (:mod:`handsim.games.hand.sections`) and its
frame (:mod:`handsim.games.hand.report`) read it.  Every number that a sentence reports is an
:class:`~handsim.report.document.Estimate` (:func:`estimate`, :func:`share_estimate`), whose
interval decides the wording ("not significant" whenever the interval includes 0).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from handsim.report import plots as figures
from handsim.report.document import Column, Estimate, Figure, fmt_number
from handsim.report.plots import human, lineup_text, value_text
from handsim.stats.intervals import hist_quantiles

from .layout import QUANTILES

__all__ = ["MAX_ROWS", "MAX_PANELS", "LINEUP_NO", "PR", "TR", "PM", "is_nan", "lineup_policies", "config_text",
           "estimate", "share_estimate", "has_joker_left", "paired_rates", "change_verb", "capped", "is_team",
           "has_matches", "option_columns", "versus_from_summary", "quantiles_from_histograms",
           "flip_lineup_pairs", "StudyView", "widest", "bars_note", "extremes"]

#: Rows of a table in the report (the CSV files hold every row).
MAX_ROWS = 40
#: Line-ups a figure gives one panel each.  A study with more line-ups gets one panel that shows
#: every line-up (by its number in *What was simulated*) instead, and, for a distribution (round
#: length, final totals), the panels and the findings of this many line-ups: the first, the last
#: and evenly spaced ones between.  So the report's size and time stop growing with the line-ups.
MAX_PANELS = 6
#: The column of a line-up's number (1-based, as in *What was simulated*) in the figures of many line-ups.
LINEUP_NO = "line-up"
#: The units findings name: a player's score per round, a team's (both partners summed), a team
PR = "points per player-round"
TR = "points per team-round"
#: margin's (one observation per match).
PM = "points per match"


# ----------------------------------------------------------------------------------------------
# small helpers


def is_nan(x: Any) -> bool:
    if x is None or x is pd.NA:
        return True
    try:
        return math.isnan(float(x))
    except (TypeError, ValueError):
        return False


def lineup_policies(lineup: str) -> list[str]:
    """The policies of a line-up label (``"hold-hand,greedy:support_hand=1,greedy"``)."""
    from handsim.policies import split_lineup

    try:
        return split_lineup(str(lineup))
    except ValueError:
        return [str(lineup)]


def config_text(row: Mapping[str, Any], options: Sequence[str]) -> str:
    return ", ".join(f"{human(o)} {value_text(row[o])}" for o in options)


def estimate(row: Mapping[str, Any], col: str, lo: str, hi: str, unit: str = "points", diff: bool = True,
         nd: int = 1) -> Estimate:
    v, l, h = (float(row[c]) if not is_nan(row.get(c)) else math.nan for c in (col, lo, hi))
    # a paired difference that is 0 in every deal, or a level the design fixes (e.g. the share of
    # the outs a policy gets when it holds every seat: 1/P in every deal), whose interval has no width
    identical = (v == 0.0 and l == 0.0 and h == 0.0) if diff else (math.isfinite(v) and v == l == h)
    return Estimate(v, l, h, unit=unit, diff=diff, nd=nd, identical=identical)


def share_estimate(row, col) -> Estimate:
    return estimate(row, col, f"{col}_ci95_low", f"{col}_ci95_high", unit="%", diff=False)


def has_joker_left(df: pd.DataFrame | None, col: str = "p_joker_left") -> bool:
    """Whether a table holds the share of rounds that end with a joker in hand (studies whose
    checkpoint predates that count have the column NaN, or no column)."""
    return df is not None and col in df.columns and bool(df[col].notna().any())


def paired_rates(row: Mapping[str, Any]) -> tuple[str, ...]:
    """The shares a paired row has: P(unopened), P(Hand), and P(joker left) where it was counted."""
    return ("p_unopened", "p_hand") + (("p_joker_left",) if not is_nan(row.get("p_joker_left_diff")) else ())


def change_verb(a: Any, b: Any) -> str:
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


def capped(rows: list, what: str, csv: str, max_rows: int) -> tuple[list, str]:
    if len(rows) <= max_rows:
        return rows, ""
    return rows[:max_rows], f"The first {max_rows:,} of {len(rows):,} {what}; all of them are in `{csv}`."


def extremes(records: list[dict], key: str, max_rows: int) -> tuple[list[dict], int]:
    """At most ``max_rows`` of ``records``: all of them when they fit, else the half with the lowest
    ``key`` and the half with the highest (lowest first; NaN last, so never chosen); and how many
    there were."""
    if len(records) <= max_rows:
        return records, len(records)
    order = sorted(records, key=lambda r: (is_nan(r[key]), r[key] if not is_nan(r[key]) else 0.0))
    finite = [r for r in order if not is_nan(r[key])]
    low = max_rows // 2
    high = max(0, min(max_rows - low, len(finite) - low))
    return finite[:low] + (finite[-high:] if high else []), len(records)


def is_team(seat: pd.Series) -> pd.Series:
    return seat.astype(str).str.startswith("team")


def has_matches(summary: pd.DataFrame) -> bool:
    return bool(len(summary)) and "matches" in summary.columns and bool((summary["matches"].fillna(0) > 0).any())


def option_columns(options, numeric=True):
    return [Column(human(o), numeric=False) for o in options]


# ----------------------------------------------------------------------------------------------
# derived tables used when the caller has none


def versus_from_summary(summary: pd.DataFrame) -> pd.DataFrame:
    """Unpaired policy contrasts from the summary (used when no ``versus`` table is given)."""
    from scipy import stats as sps

    options = figures.varying(summary)
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
    :meth:`~handsim.games.hand.stats.StudyAccumulator.total_quantiles`), for callers that pass no table."""
    rows = []
    options: list[str] = []
    for key, seat_col in (("total", None), ("team_total", "team")):
        df = (histograms or {}).get(key)
        if df is None or not len(df):
            continue
        options = figures.varying(df)
        keys = options + ["lineup"] + ([seat_col] if seat_col else []) + ["policy"]
        for k, g in df.groupby(keys, sort=False, dropna=False):
            k = k if isinstance(k, tuple) else (k,)
            g = g.sort_values("total")
            values, counts = g["total"].to_numpy(np.int64), g["count"].to_numpy(np.int64)
            n = int(counts.sum())
            row = dict(zip(keys, k))
            row["seat"] = row.pop(seat_col) if seat_col else "all"
            row.update(matches=n, mean_final_total=float((values * counts).sum()) / n, min=int(values[0]))
            row.update(zip([f"p{round(100 * q)}" for q in QUANTILES], hist_quantiles(values, counts, QUANTILES)))
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


class StudyView:
    def __init__(self, summary, paired, histograms, run_info, versus, lineup_pairs, totals, paired_ci, max_rows,
                 dpi):
        self.full = summary
        self.teams = bool(len(summary)) and bool(is_team(summary["seat"]).any())
        self.summary = summary[~is_team(summary["seat"])].reset_index(drop=True) if self.teams else summary
        self.options = figures.varying(summary)
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
        self.matches = has_matches(self.summary)
        rules = self.info.get("rules")
        self.losses = self.matches and (
            (isinstance(rules, Mapping) and rules.get("standings") == "last_loses")
            or bool((self.summary["match_lose_rate"].fillna(0) > 0).any()))
        self.players = len({x for x in s["seat"].astype(str) if x.isdigit()}) if len(s) else 0
        names = list(dict.fromkeys(self.allrows["policy"].tolist())) if len(s) else []
        if self.teams:
            t = self.full[is_team(self.full["seat"])]
            names += [f"{a}: {b}" for a, b in zip(t["seat"], t["policy"])]
        self.colours = figures.policy_colours(names)
        # options with their values in study order; baseline = first value
        self.values = {o: list(dict.fromkeys(self.allrows[o].tolist())) for o in self.options} if len(s) else {}
        # fast lookup of summary rows (seat all) by (config values, lineup, policy)
        self._index = {}
        for r in self.allrows.to_dict("records"):
            self._index[(tuple(value_text(r[o]) for o in self.options), r["lineup"], r["policy"])] = r
        self.figures: list[Figure] = []
        #: More line-ups than :data:`MAX_PANELS`: figures and findings summarise.
        self.many = len(self.lineups) > MAX_PANELS
        #: line-up -> its number in *What was simulated* (1-based)
        self.number = {lu: i + 1 for i, lu in enumerate(self.lineups)}
        #: the line-ups that get a panel of a distribution and their findings listed
        self.shown = figures.spread_pick(self.lineups, MAX_PANELS)
        #: the short label of each line-up in report.html's tables (``L1`` ...; a legend says which)
        self.lineup_short = tuple((lineup_text(lu), f"L{i + 1}") for i, lu in enumerate(self.lineups))

    def row(self, values: Mapping[str, Any], lineup: str, policy: str):
        return self._index.get((tuple(value_text(values[o]) for o in self.options), lineup, policy))

    def config_of(self, r) -> dict:
        return {o: r[o] for o in self.options}

    def where(self, r, skip=(), lineup=True) -> str:
        parts = []
        if lineup and "lineup" in r and len(self.lineups) > 1:
            parts.append(self.lineup_name(r["lineup"]))
        opts = [o for o in self.options if o not in skip]
        if opts:
            parts.append(config_text(r, opts))
        return "; ".join(parts)

    def figure(self, fig, name: str, title: str, caption: str, legend: bool = True) -> Figure:
        if legend and len(fig.axes) > 1:
            figures.figure_legend(fig, fig.axes)
        f = Figure(name=name, title=title, caption=caption, png=figures.png_bytes(fig, self.dpi), alt=title)
        self.figures.append(f)
        return f

    def numbered(self, df: pd.DataFrame, col: str = "lineup", at: int = 0) -> pd.DataFrame:
        """``df`` with the column :data:`LINEUP_NO` (each row's line-up number) inserted at position
        ``at``: where the varying options are read (before ``lineup``), so that figures take it as
        the x axis."""
        out = df.copy()
        out.insert(at, LINEUP_NO, [self.number.get(x, 0) for x in df[col]] if len(df) else [])
        return out

    def at_first(self, df: pd.DataFrame, skip: Sequence[str] = ()) -> pd.DataFrame:
        """The rows of ``df`` at the first value of every varying option but those in ``skip``."""
        keep = np.ones(len(df), dtype=bool)
        for o, vals in self.values.items():
            if o not in skip and o in df.columns and len(df):
                keep &= (df[o].map(value_text) == value_text(vals[0])).to_numpy()
        return df[keep]

    def first_text(self, skip: Sequence[str] = ()) -> str:
        """``"opening threshold 51, joker penalty 15"``: the first configuration (``""`` when no option varies)."""
        return config_text(self.first_config(), [o for o in self.options if o not in skip])

    def lineup_column(self, name: str = "line-up") -> Column:
        """A table column of line-ups: report.html shows each by its short label, with a legend."""
        return Column(name, short=self.lineup_short)

    def lineup_name(self, lineup: str) -> str:
        """``line-up a, b, c``; with many line-ups ``line-up 7: a, b, c`` (its number in *What was simulated*)."""
        number = f" {self.number[lineup]}:" if self.many and lineup in self.number else ""
        return f"line-up{number} {lineup_text(lineup)}"

    def panel_title(self, lineup: str) -> str:
        """A panel's title: the line-up, with its number when the study has many."""
        return f"{self.number[lineup]}. {lineup_text(lineup)}" if self.many and lineup in self.number \
            else lineup_text(lineup)

    def shown_note(self, shown: Sequence[str], of: int, csv: str, what: str = "Panels") -> str:
        """`` Panels for 8 of the 60 line-ups ...``: which line-ups a figure (or a list) shows."""
        return (f" {what} for {len(shown)} of the {of} line-ups (the first, the last and evenly spaced ones between, "
                f"numbered as in *What was simulated*); `{csv}` has every line-up.")

    def overview_note(self, csv: str = "summary.csv", skip: Sequence[str] = ()) -> str:
        """What a figure of every line-up in one panel shows (many line-ups): at the first value of
        each option but those in ``skip``."""
        first = self.first_text(skip)
        return (f" All {len(self.lineups)} line-ups in one panel, at their number in *What was simulated* (more "
                f"than {MAX_PANELS} line-ups: no panel per line-up), a colour per policy"
                + (f", at {first}; `{csv}` has every configuration." if first else "."))

    def first_config(self) -> dict:
        return {o: v[0] for o, v in self.values.items()}

    def rule_value(self, name: str, config: Mapping[str, Any]) -> Any:
        """The value of rule option ``name`` in configuration ``config``: its value there when it
        varies, else the study's (run.json ``rules``); None when neither says."""
        if name in config:
            return config[name]
        rules = self.info.get("rules")
        return rules.get(name) if isinstance(rules, Mapping) else None

    def unopened_words(self) -> str:
        """What a player who never opened pays, from the study's rules (RULES.md §6): ``"pays 100 on
        top of the cards left"``, ``"scores 100 in all"`` (``unopened_penalty = flat``), or, when the
        configurations vary it, ``"pays each configuration's `unopened_points`"``."""
        from .rules import PARAMS

        rules = {p.name: p.default for p in PARAMS}
        given = self.info.get("rules")
        rules.update(given if isinstance(given, Mapping) else {})
        if "unopened_points" in self.options or "unopened_penalty" in self.options:
            return "pays each configuration's `unopened_points` (RULES.md §6)"
        points = str(int(rules["unopened_points"])).replace("-", "−")
        if rules["unopened_penalty"] == "flat":
            return f"scores {points} in all"
        return f"pays {points} on top of the cards left"

    def reference_lineup(self) -> str | None:
        """The first line-up in which every seat plays one policy (the rule's effect with no mix), else the first."""
        for lu in self.lineups:
            if len(set(lineup_policies(lu))) == 1:
                return lu
        return self.lineups[0] if self.lineups else None

    def mixed_lineups(self) -> list[str]:
        return [lu for lu in self.lineups if len(set(lineup_policies(lu))) > 1]


def widest(df, lo, hi, scale=1.0) -> float:
    if not len(df):
        return math.nan
    w = ((df[hi] - df[lo]) / 2 * scale).dropna()
    return float(w.max()) if len(w) else math.nan


def bars_note(half: float, unit: str) -> str:
    if is_nan(half):
        return ""
    return (f" Bars are 95% CIs; the widest is ±{fmt_number(half, 2 if half < 1 else 1)} {unit}, so where no bar "
            "shows, the interval is narrower than the marker.")


# ----------------------------------------------------------------------------------------------
# sections
