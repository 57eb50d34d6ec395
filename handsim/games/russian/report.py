"""The report of a Russian Hand study, on the shared document model (RULES.md §8).

:func:`build` turns a :class:`~handsim.games.russian.stats.RussianAccumulator` into a
:class:`~handsim.report.document.Document` - *In brief* (the first player's edge, how often the
stock runs out, game length, what switching one seat's policy does), what was simulated, how to
read it, one section per question with its figure and table, the files - and
:func:`write_report` writes the CSV tables, the figures, ``report.md`` and ``report.html`` with
the shared renderers.  A game has a winner instead of points, so every finding is a share of
games (percentage points for a difference), a number of cards or of turns, never a score.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from handsim._io import atomic_write
from handsim.report import plots
from handsim.report.document import (BulletList, Column, Document, Estimate, Figure, Finding, Paragraph, Section,
                                     Table, fmt_number, fmt_pct, resumed_bullet)
from handsim.report.files import FORMATS, check_formats, write_document
from handsim.report.plots import lineup_text, value_text
from handsim.report.words import verdict

from .rules import PARAMS

__all__ = ["build", "write_report", "CSV_FILES"]

#: Rows of a table in the report (the CSV files hold every row).
MAX_ROWS = 40
#: The tables written next to the report.
CSV_FILES = ("summary.csv", "seats.csv", "paired.csv", "versus.csv", "lineups.csv", "game_length.csv")


def _f(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def _share(value, low, high, diff: bool = False) -> Estimate:
    """A share (``%``) or a difference of shares (percentage points)."""
    v, lo, hi = _f(value), _f(low), _f(high)
    identical = diff and v == 0.0 and lo == 0.0 and hi == 0.0
    return Estimate(v, lo, hi, unit="pp" if diff else "%", diff=diff, identical=identical)


def _num(value, low, high, unit: str, diff: bool = False, nd: int = 1) -> Estimate:
    v, lo, hi = _f(value), _f(low), _f(high)
    identical = diff and v == 0.0 and lo == 0.0 and hi == 0.0
    return Estimate(v, lo, hi, unit=unit, diff=diff, nd=nd, identical=identical)


def _config_text(row: Mapping[str, Any], varying: Sequence[str]) -> str:
    return ", ".join(f"`{o}` = {value_text(row[o])}" for o in varying)


def _where(row: Mapping[str, Any], varying: Sequence[str], lineup: str | None = None) -> str:
    parts = []
    if lineup:
        parts.append(f"line-up {lineup_text(lineup)}")
    if varying:
        parts.append(_config_text(row, varying))
    return "; ".join(parts)


def _single_policy(lineup: str) -> bool:
    from handsim.policies import split_lineup

    return len(set(split_lineup(str(lineup)))) == 1


def flip_lineup_pairs(lp: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Line-up comparisons read the other way round (as classic Hand's report reads them): the
    later line-up of the study minus the earlier one, so that a study that lists its baseline
    first (``greedy`` at every seat, then ``patient`` at one) reads "``patient`` instead of ``greedy``".
    ``metrics``: the names of the quantities compared (the accumulator's ``METRICS``), whose
    differences change sign."""
    if not len(lp):
        return lp
    out = lp.copy()
    out["lineup_a"], out["lineup_b"] = lp["lineup_b"], lp["lineup_a"]
    out["policy_a"], out["policy_b"] = lp["policy_b"], lp["policy_a"]
    for name in metrics:
        col = f"{name}_diff"
        out[col] = -lp[col]
        out[f"{col}_ci95_low"], out[f"{col}_ci95_high"] = -lp[f"{col}_ci95_high"], -lp[f"{col}_ci95_low"]
    return out


class _Study:
    """The tables of one study, computed once."""

    def __init__(self, acc, info: Mapping[str, Any]):
        self.acc = acc
        self.info = dict(info)
        self.varying = list(acc.varying)
        self.players = acc.players
        self.summary = acc.summary()
        self.seats = acc.seats()
        self.paired = acc.paired()
        self.versus = acc.versus()
        self.lineup_pairs = flip_lineup_pairs(acc.lineup_pairs(), [name for name, _ in acc.METRICS])
        self.length = acc.turn_quantiles()
        self.turns = acc.histograms()["turns"]
        self.lineups = [",".join(lu) for lu in acc.lineups]
        self.colours = plots.policy_colours(acc.policies)
        self.allrows = self.summary[self.summary["seat"] == "all"] if len(self.summary) else self.summary
        first = self.length.iloc[0] if len(self.length) else None
        # stock-out and draw rates per configuration x line-up (the same on every row of a group)
        self.groups = self.allrows.drop_duplicates(self.varying + ["lineup"]) if len(self.allrows) else self.allrows
        self.first = first


# ----------------------------------------------------------------------------------------------
# figures


def _seat_edge_figure(st: _Study) -> Figure | None:
    s = st.seats
    if not len(s):
        return None
    groups = list(s.groupby(st.varying + ["lineup"], sort=False)) if st.varying else list(s.groupby("lineup", sort=False))
    groups = groups[:6]
    fig = plots.new_figure((6.4, 4.2))
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / max(len(groups), 1)
    for gi, (key, g) in enumerate(groups):
        x = g["seat"].to_numpy(dtype=float) + (gi - (len(groups) - 1) / 2) * width
        y = g["win_rate"].to_numpy(dtype=float) * 100
        err = plots.yerr(y, g["win_rate_ci95_low"].to_numpy(float) * 100, g["win_rate_ci95_high"].to_numpy(float) * 100)
        label = key if isinstance(key, str) else ", ".join(value_text(k) for k in key)
        ax.errorbar(x, y, yerr=err, fmt="o", mfc="white", capsize=3, label=lineup_text(label))
    ax.axhline(100.0 / st.players, color="0.5", ls="--", lw=1, label=f"fair share (1/{st.players})")
    ax.set_xticks(range(st.players))
    ax.set_xticklabels([f"{s}" + (" (first)" if s == 0 else "") for s in range(st.players)])
    ax.set_xlabel("seat (in playing order)")
    ax.set_ylabel("games won (%)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="lower right")
    widest = float(((s["win_rate_ci95_high"] - s["win_rate_ci95_low"]) * 50).max())
    return Figure("seat_edge.png", "Chance to win by seat",
                  f"The share of games won from each seat, whatever policy sat there, with 95% Wilson intervals "
                  f"(the widest ±{widest:.2f} percentage points); the dashed line is the fair share 1/{st.players}. "
                  "Seat 0 plays first.", plots.png_bytes(fig), alt="win rate by seat")


def _win_rate_figure(st: _Study) -> Figure | None:
    a = st.allrows
    if not len(a):
        return None
    fig = plots.new_figure((6.4, max(2.4, 0.45 * len(a) + 1.2)))
    ax = fig.add_subplot(1, 1, 1)
    labels = []
    for i, (_, r) in enumerate(a.iterrows()):
        y = len(a) - 1 - i
        v, lo, hi = (_f(r[c]) * 100 for c in ("win_rate", "win_rate_ci95_low", "win_rate_ci95_high"))
        ax.errorbar([v], [y], xerr=[[max(v - lo, 0)], [max(hi - v, 0)]], fmt="o", mfc="white", capsize=3,
                    color=plots.colour_of(st.colours, r["policy"]))
        where = lineup_text(r["lineup"]) + (f" | {_config_text(r, st.varying)}" if st.varying else "")
        labels.append((y, f"{r['policy']} in {where}".replace("`", "")))
    ax.axvline(100.0 / st.players, color="0.5", ls="--", lw=1)
    ax.set_yticks([y for y, _ in labels])
    ax.set_yticklabels([t if len(t) <= 60 else t[:57] + "..." for _, t in labels], fontsize=8)
    ax.set_xlabel("games won per seat held (%)")
    ax.set_xlim(left=0)
    return Figure("win_rate.png", "Chance to win by policy",
                  "Each policy's share of games won per seat it holds, with 95% intervals (the game as unit); the "
                  f"dashed line is the fair share 1/{st.players}.", plots.png_bytes(fig), alt="win rate by policy")


def _length_figure(st: _Study) -> Figure | None:
    t = st.turns
    if not len(t):
        return None
    keys = st.varying + ["lineup"]
    groups = list(t.groupby(keys, sort=False))[:6]
    fig = plots.new_figure((6.4, 4.0))
    ax = fig.add_subplot(1, 1, 1)
    for key, g in groups:
        label = key if isinstance(key, str) else ", ".join(value_text(k) for k in key)
        total = g["games"].sum()
        ax.step(g["turns"], g["games"] / total * 100, where="mid", label=lineup_text(label))
    ax.set_xlabel("turns in the game (all players together)")
    ax.set_ylabel("games (%)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    return Figure("game_length.png", "Game length",
                  "The share of games lasting each number of turns (all players' turns together)"
                  + (", for the first six configurations and line-ups" if len(list(t.groupby(keys))) > 6 else "") + ".",
                  plots.png_bytes(fig), alt="distribution of game length")


# ----------------------------------------------------------------------------------------------
# sections


def edge_verdict(est: Estimate) -> str:
    """The first seat's edge over its fair share in words: ``"an advantage of 2.1 percentage points
    (95% CI 1.0 to 3.2)"`` or ``"a disadvantage of 3.4 percentage points (95% CI 2.1 to 4.7)"`` (its
    size, never a negative advantage) when the interval excludes 0, else ``"a difference from the fair
    share of -0.5 percentage points (95% CI ...; not significant: ...)"``.

    Parameters
    ----------
    est : Estimate
        The edge, a difference of shares (``unit="pp"``, fractions).
    """
    if not est.significant:
        return f"a difference from the fair share of {est.text()}"
    return f"{'an advantage' if est.value > 0 else 'a disadvantage'} of {_size(est).text()}"


def _size(est: Estimate) -> Estimate:
    """A significant difference as its size: ``-1.2 (-1.9 to -0.6)`` becomes ``1.2 (0.6 to 1.9)``,
    for words that carry the direction ("lowers by", "a disadvantage of")."""
    up = est.value > 0
    return dataclasses.replace(est, value=abs(est.value), low=est.low if up else -est.high,
                               high=est.high if up else -est.low, diff=False)


def _edge_findings(st: _Study) -> list[Finding]:
    out = []
    s = st.seats
    for _, r in s[s["seat"] == 0].iterrows():
        if not _single_policy(r["lineup"]):
            continue
        est = _share(r["edge"], r["edge_ci95_low"], r["edge_ci95_high"], diff=True)
        win = _share(r["win_rate"], r["win_rate_ci95_low"], r["win_rate_ci95_high"])
        out.append(Finding(f"The first player wins {win.text(inner=False)} of games against a fair share of "
                           f"{fmt_pct(r['fair_share'])}: {edge_verdict(est)} in the chance to win.", est,
                           _where(r, st.varying, r["lineup"])))
    return out


def _stock_findings(st: _Study) -> list[Finding]:
    out = []
    for _, r in st.groups.iterrows():
        so = _share(r["stock_out_rate"], r["stock_out_rate_ci95_low"], r["stock_out_rate_ci95_high"])
        dr = _share(r["draw_game_rate"], r["draw_game_rate_ci95_low"], r["draw_game_rate_ci95_high"])
        text = f"The stock runs out in {so.text()} of games"
        text += (f"; {dr.text()} of games end in a draw." if _f(r["draw_game_rate"]) > 0 else "; no game was drawn.")
        out.append(Finding(text, so, _where(r, st.varying, r["lineup"])))
    return out


def _length_findings(st: _Study) -> list[Finding]:
    out = []
    for _, r in st.length.iterrows():
        m = _num(r["mean_turns"], r["turns_ci95_low"], r["turns_ci95_high"], "turns")
        q = {k: value_text(round(float(r[k]), 1)) for k in ("p10", "p50", "p90")}  # interpolated: one decimal
        out.append(Finding(f"A game lasts {m.text()} on average (median {q['p50']} turns, 80% of games "
                           f"between {q['p10']} and {q['p90']}), all players' turns together.",
                           m, _where(r, st.varying, r["lineup"])))
    return out


def _switch_findings(st: _Study) -> list[Finding]:
    out = []
    for _, r in st.lineup_pairs.iterrows():
        est = _share(r["win_diff"], r["win_diff_ci95_low"], r["win_diff_ci95_high"], diff=True)
        cards = _num(r["cards_left_diff"], r["cards_left_diff_ci95_low"], r["cards_left_diff_ci95_high"], "cards",
                     diff=True, nd=2)
        if est.identical:
            how = "does not change that player's chance to win in any game"
        elif est.significant:
            how = f"{'raises' if est.value > 0 else 'lowers'} that player's chance to win by {_size(est).text()}"
        else:
            how = f"leaves no significant difference in that player's chance to win ({est.text(inner=True)})"
        out.append(Finding(f"Playing `{r['policy_a']}` instead of `{r['policy_b']}` at line-up position "
                           f"{int(r['position'])} {how}; the cards it holds at the end differ by {cards.text()}.",
                           est, _where(r, st.varying, f"{r['lineup_a']} against {r['lineup_b']}")))
    return out


def _versus_findings(st: _Study) -> list[Finding]:
    out = []
    for _, r in st.versus.iterrows():
        est = _share(r["win_diff"], r["win_diff_ci95_low"], r["win_diff_ci95_high"], diff=True)
        if est.significant:
            how = f"wins {'more' if est.value > 0 else 'less'} often than `{r['policy_b']}` by {est.text()}"
        else:
            how = f"and `{r['policy_b']}`: no significant difference in the chance to win ({est.text(inner=True)})"
            out.append(Finding(f"At the same table, `{r['policy_a']}` {how} per seat held.", est,
                               _where(r, st.varying, r["lineup"])))
            continue
        out.append(Finding(f"At the same table, `{r['policy_a']}` {how} per seat held.", est,
                           _where(r, st.varying, r["lineup"])))
    return out


#: Lines of *In brief* at most.
MAX_BRIEF = 5


def _at(r: Mapping[str, Any], varying: Sequence[str], n: int) -> str:
    """`` at `first_round` = free`` after a clause, when the line has one clause per configuration."""
    return f" at {_config_text(r, varying)}" if varying and n > 1 else ""


def _per_config(df: pd.DataFrame, varying: Sequence[str], lineup_col: str = "lineup") -> pd.DataFrame:
    """The rows of ``df`` of its first line-up (or line-up pair), one per configuration, three at most."""
    if not len(df):
        return df
    first = df[lineup_col].iloc[0]
    rows = df[df[lineup_col] == first]
    if "lineup_b" in df.columns and lineup_col == "lineup_a":
        rows = rows[rows["lineup_b"] == df["lineup_b"].iloc[0]]
    return rows.iloc[plots.spread_pick(list(range(len(rows))), 3)] if len(rows) > 3 else rows


def _brief_edge(st: _Study) -> Finding | None:
    s = st.seats
    s = s[(s["seat"] == 0) & s["lineup"].map(_single_policy)] if len(s) else s
    rows = _per_config(s, st.varying)
    if not len(rows):
        return None
    parts = []
    for i, (_, r) in enumerate(rows.iterrows()):
        est = _share(r["edge"], r["edge_ci95_low"], r["edge_ci95_high"], diff=True)
        win = _share(r["win_rate"], r["win_rate_ci95_low"], r["win_rate_ci95_high"])
        parts.append(f"{win.number()} of games (95% CI {win.ci_text}): {verdict(est, lower_is_better=False, unit=i == 0)}"
                     + _at(r, st.varying, len(rows)))
    r0 = rows.iloc[0]
    return Finding(f"The first player's chance to win, against a fair share of {fmt_pct(r0['fair_share'])}: "
                   + "; ".join(parts) + ".", _share(r0["edge"], r0["edge_ci95_low"], r0["edge_ci95_high"], diff=True),
                   _where(r0, [], r0["lineup"]))


def _brief_length(st: _Study) -> Finding | None:
    rows = _per_config(st.length, st.varying)
    if not len(rows):
        return None
    groups = st.groups
    parts, stock = [], []
    for i, (_, r) in enumerate(rows.iterrows()):
        m = _num(r["mean_turns"], r["turns_ci95_low"], r["turns_ci95_high"], "turns")
        parts.append((m.text() if i == 0 else f"{m.number()} (95% CI {m.ci_text})") + _at(r, st.varying, len(rows)))
        g = groups[groups["lineup"] == r["lineup"]]
        for o in st.varying:
            g = g[g[o].map(value_text) == value_text(r[o])]
        if len(g):
            q = g.iloc[0]
            so = _share(q["stock_out_rate"], q["stock_out_rate_ci95_low"], q["stock_out_rate_ci95_high"])
            drawn = _f(q["draw_game_rate"]) > 0
            stock.append(f"{so.number()}{' of games' if i == 0 else ''} (95% CI {so.ci_text})"
                         + (f", {fmt_pct(q['draw_game_rate'])} of games drawn" if drawn else "")
                         + _at(r, st.varying, len(rows)))
    text = "A game lasts, on average (all players' turns together), " + "; ".join(parts)
    if stock:
        text += ". The stock runs out in " + "; ".join(stock)
    r0 = rows.iloc[0]
    return Finding(text + ".", None, _where(r0, [], r0["lineup"]))


def _win_diff_parts(rows: pd.DataFrame, varying: Sequence[str]) -> list[str]:
    """One clause per row of a difference in the chance to win ("better by ..." / "about the
    same"), the unit said in the first, each naming its configuration when there are several."""
    parts = []
    for i, (_, r) in enumerate(rows.iterrows()):
        est = _share(r["win_diff"], r["win_diff_ci95_low"], r["win_diff_ci95_high"], diff=True)
        parts.append(verdict(est, lower_is_better=False, unit=i == 0) + _at(r, varying, len(rows)))
    return parts


def _brief_switch(st: _Study) -> list[Finding]:
    lp = st.lineup_pairs
    out = []
    if not len(lp):
        return out
    for _, g in list(lp.groupby(["lineup_a", "lineup_b", "position"], sort=False))[:2]:
        rows = g.iloc[plots.spread_pick(list(range(len(g))), 3)]
        parts = _win_diff_parts(rows, st.varying)
        r0 = rows.iloc[0]
        text = (f"Playing `{r0['policy_a']}` instead of `{r0['policy_b']}` at line-up position {int(r0['position'])}, "
                "that player's chance to win: " + "; ".join(parts) + ".")
        out.append(Finding(text, _share(r0["win_diff"], r0["win_diff_ci95_low"], r0["win_diff_ci95_high"], diff=True),
                           f"line-up {lineup_text(r0['lineup_a'])} against {lineup_text(r0['lineup_b'])}"))
    return out


def _brief_versus(st: _Study, switch: Finding | None, pair) -> Finding | None:
    vs = st.versus
    if len(vs):  # the first pair of policies of the first line-up
        vs = vs[(vs["policy_a"] == vs["policy_a"].iloc[0]) & (vs["policy_b"] == vs["policy_b"].iloc[0])]
    rows = _per_config(vs, st.varying) if len(vs) else vs
    if not len(rows):
        return None
    parts = _win_diff_parts(rows, st.varying)
    r0 = rows.iloc[0]
    text = (f"At the same table, `{r0['policy_a']}` against `{r0['policy_b']}` (the chance to win per seat held, the "
            "first's minus the second's): " + "; ".join(parts) + ".")
    if switch is not None:
        a, b = pair
        text += (" The two figures differ because *at the same table* compares players in the same games, while "
                 f"*switching one seat* compares that seat playing `{a}` and playing `{b}`, so it also counts what "
                 f"`{a}` does to the other players' chances.")
    return Finding(text, _share(r0["win_diff"], r0["win_diff_ci95_low"], r0["win_diff_ci95_high"], diff=True),
                   f"line-up {lineup_text(r0['lineup'])}")


def _summary_section(st: _Study) -> Section:
    sec = Section("In brief", level=2, id="in-brief")
    switches = _brief_switch(st)
    lp = st.lineup_pairs
    pair = (lp["policy_a"].iloc[0], lp["policy_b"].iloc[0]) if len(lp) else None
    items = [f for f in (_brief_edge(st), _brief_length(st)) if f is not None] + switches[:1]
    versus = _brief_versus(st, switches[0] if switches else None, pair)
    items += ([versus] if versus is not None else []) + switches[1:]
    if not items:
        sec.add(Paragraph("No game was played."))
        return sec
    sec.add(BulletList(tuple(items[:MAX_BRIEF])))
    return sec


def _run_section(st: _Study) -> Section:
    info = dict(st.info)
    sec = Section("What was simulated", level=2, id="run")
    bullets = [f"**Game:** Russian Hand (هاند روسي, RULES.md §8): 104 cards, no jokers, {st.players} players, "
               f"{info.get('rules', {}).get('hand_size', 7)} cards each; a turn draws one card or plays (new melds, "
               "lay-offs, rearranging the table freely); the first to empty the hand wins."]
    games = info.get("deals")
    if games is not None:
        bullets.append(f"**Games:** {int(games):,} per configuration and line-up. Every configuration and line-up "
                       "plays the *same* games (the same shuffles: common random numbers), so differences between "
                       "them are measured game by game.")
    if info.get("seed") is not None:
        bullets.append(f"**Seed:** {info['seed']} (game *i* is reproducible on its own from the seed and *i*).")
    played = info.get("games_played", info.get("rounds_played"))
    if played:
        bullets.append(f"**Games simulated:** {int(played):,} in all.")
    speed = info.get("games_per_s", info.get("rounds_per_s"))
    if speed:
        secs = info.get("seconds")
        bullets.append(f"**Speed:** {float(speed):,.0f} games/s" + (f" ({float(secs):,.1f} s of simulation)." if secs
                                                                    else "."))
    if info.get("version"):
        bullets.append(f"**handsim version:** {info['version']}.")
    if info.get("command"):
        bullets.append(f"**Command:** `{info['command']}`.")
    if resumed_bullet(info.get("resumed")):
        bullets.append(resumed_bullet(info.get("resumed")))
    sec.add(BulletList(tuple(bullets)))
    if st.varying:
        lines = [f"`{o}`: {', '.join(value_text(c[o]) for c in st.acc.configs)}" for o in st.varying]
        sec.add(Paragraph("**Options that vary** (the first value of each is the baseline of the comparisons):"),
                BulletList(tuple(lines)))
    rules = info.get("rules")
    if isinstance(rules, Mapping) and rules:
        order = {p.name: i for i, p in enumerate(PARAMS)}
        items = sorted(rules.items(), key=lambda kv: order.get(kv[0], len(order)))
        sec.add(Table((Column("option"), Column("value")),
                      tuple((f"`{k}`", "*varies*" if k in st.varying else value_text(v)) for k, v in items),
                      caption="**All options** of Russian Hand (`handsim rules --preset russian`)."))
    if st.lineups:
        sec.add(Table((Column("#", numeric=True), Column("line-up")),
                      tuple((str(i + 1), lineup_text(lu)) for i, lu in enumerate(st.lineups)),
                      caption="Line-ups: the policy at each line-up position; the positions move one seat each "
                              "game, so every policy plays from every seat equally often."))
    policies = info.get("policies")
    if isinstance(policies, Mapping) and policies:
        sec.add(Paragraph("**Policies:**"), BulletList(tuple(f"`{k}`: {v}" for k, v in policies.items())))
    return sec


def _how_to_read() -> Section:
    items = (
        "A game of Russian Hand has a **winner** - the first player to empty the hand, or, when the stock runs out, "
        "the player with the fewest cards (then the lowest card value) - or ends in a **draw** among the players tied "
        "for first. **Win rate** is the share of games a player won; with P players the fair share is 1/P. "
        "**Draw rate** is the share of games a player finished tied for first in a drawn game.",
        "**Cards left** and their **value** (RULES.md §1: 2-10 face value, J/Q/K 10, Ace `ace_value`) are counted at "
        "the end of every game (0 for the winner who went out). **Turns** count all players' turns together.",
        "**95% CI** is a 95% confidence interval. Shares use Wilson intervals; for a policy holding several seats "
        "of a line-up the game is the unit (its mean over those seats) and the interval a t interval.",
        "**Differences** are paired: the two sides played the same games. A difference whose interval includes 0 "
        "is *not significant* and no direction is claimed; **pp** = percentage points (a difference of two shares).",
        "Seats are numbered in playing order: seat 0 plays first. Line-up positions move one seat each game.",
    )
    return Section("How to read this report", level=2, id="how-to-read").add(BulletList(items))


def _pct_cell(v, lo, hi) -> str:
    return _share(v, lo, hi).cell


def _diff_cell(v, lo, hi) -> str:
    return _share(v, lo, hi, diff=True).cell


def _edge_section(st: _Study) -> Section | None:
    s = st.seats
    if not len(s):
        return None
    sec = Section("The first player's edge", level=2, id="first-player")
    sec.add(BulletList(tuple(_edge_findings(st)) or ("The line-ups mix policies: the seat rows below pool them.",)))
    fig = _seat_edge_figure(st)
    if fig is not None:
        sec.add(fig)
    rows = [tuple([_config_text(r, st.varying)] * bool(st.varying)) + (
        lineup_text(r["lineup"]), str(int(r["seat"])), f"{int(r['games']):,}",
        _pct_cell(r["win_rate"], r["win_rate_ci95_low"], r["win_rate_ci95_high"]),
        _diff_cell(r["edge"], r["edge_ci95_low"], r["edge_ci95_high"]),
        _pct_cell(r["draw_rate"], r["draw_rate_ci95_low"], r["draw_rate_ci95_high"]),
        _num(r["mean_cards_left"], r["cards_left_ci95_low"], r["cards_left_ci95_high"], "cards", nd=2).cell)
        for _, r in s.iterrows()]
    cols = ((Column("configuration"),) if st.varying else ()) + (
        Column("line-up"), Column("seat", numeric=True), Column("games", numeric=True),
        Column("win rate", "%", True), Column("edge over 1/P", "pp", True), Column("draw rate", "%", True),
        Column("cards left", "cards", True))
    shown, note = rows[:MAX_ROWS], (f"The first {MAX_ROWS} of {len(rows)} rows; all in `seats.csv`." if len(rows) > MAX_ROWS else "")
    sec.add(Table(cols, tuple(shown), caption="Each seat, whatever policy sat there.", note=note))
    return sec


def _policies_section(st: _Study) -> Section | None:
    a = st.allrows
    if not len(a):
        return None
    sec = Section("Policies", level=2, id="policies")
    fig = _win_rate_figure(st)
    if fig is not None:
        sec.add(fig)
    rows = []
    for _, r in a.iterrows():
        rows.append(tuple([_config_text(r, st.varying)] * bool(st.varying)) + (
            lineup_text(r["lineup"]), f"`{r['policy']}`",
            _pct_cell(r["win_rate"], r["win_rate_ci95_low"], r["win_rate_ci95_high"]),
            _pct_cell(r["draw_rate"], r["draw_rate_ci95_low"], r["draw_rate_ci95_high"]),
            _pct_cell(r["out_rate"], r["out_rate_ci95_low"], r["out_rate_ci95_high"]),
            _num(r["mean_cards_left"], r["cards_left_ci95_low"], r["cards_left_ci95_high"], "cards", nd=2).cell,
            _num(r["mean_card_value_left"], r["card_value_left_ci95_low"], r["card_value_left_ci95_high"],
                 "points").cell))
    cols = ((Column("configuration"),) if st.varying else ()) + (
        Column("line-up"), Column("policy"), Column("win rate", "%", True), Column("draw rate", "%", True),
        Column("went out", "%", True), Column("cards left", "cards", True), Column("value left", "points", True))
    shown, note = rows[:MAX_ROWS], (f"The first {MAX_ROWS} of {len(rows)} rows; all in `summary.csv`." if len(rows) > MAX_ROWS else "")
    sec.add(Table(cols, tuple(shown), caption="Per policy over all its seats (per seat held; the game as unit). "
                                              "`summary.csv` also has every seat.", note=note))
    return sec


def _metric_table(df: pd.DataFrame, first_cols, first_values, csv: str, caption: str) -> Table:
    rows = []
    for _, r in df.iterrows():
        rows.append(tuple(first_values(r)) + (
            f"{int(r['deals']):,}",
            _diff_cell(r["win_diff"], r["win_diff_ci95_low"], r["win_diff_ci95_high"]),
            _diff_cell(r["draw_diff"], r["draw_diff_ci95_low"], r["draw_diff_ci95_high"]),
            _num(r["cards_left_diff"], r["cards_left_diff_ci95_low"], r["cards_left_diff_ci95_high"], "cards",
                 diff=True, nd=2).cell,
            _num(r["value_left_diff"], r["value_left_diff_ci95_low"], r["value_left_diff_ci95_high"], "points",
                 diff=True).cell))
    cols = tuple(first_cols) + (Column("games", numeric=True), Column("win", "pp", True), Column("draw", "pp", True),
                                Column("cards left", "cards", True), Column("value left", "points", True))
    note = f"The first {MAX_ROWS} of {len(rows)} rows; all in `{csv}`." if len(rows) > MAX_ROWS else ""
    return Table(cols, tuple(rows[:MAX_ROWS]), caption=caption, note=note)


def _switch_section(st: _Study) -> Section | None:
    lp = st.lineup_pairs
    if not len(lp):
        return None
    sec = Section("Switching one seat", level=2, id="switching")
    sec.add(Paragraph("Line-ups that differ at one position played the same games; the difference is that "
                      "position's outcome in the later line-up of the study minus the earlier one, game by game "
                      "(`lineups.csv` holds the earlier minus the later). This is how much a policy's choice is "
                      "worth against the same opponents, e.g. `patient` instead of `greedy`."))
    sec.add(BulletList(tuple(_switch_findings(st)[:MAX_ROWS])))
    sec.add(_metric_table(lp, ((Column("configuration"),) if st.varying else ()) + (
        Column("line-up a"), Column("line-up b"), Column("position", numeric=True)),
        lambda r: [_config_text(r, st.varying)] * bool(st.varying) + [lineup_text(r["lineup_a"]),
                                                                        lineup_text(r["lineup_b"]),
                                                                        str(int(r["position"]))],
        "lineups.csv", "Differences a − b of the switched position's outcome (paired over the same games)."))
    return sec


def _versus_section(st: _Study) -> Section | None:
    v = st.versus
    if not len(v):
        return None
    sec = Section("Policy against policy", level=2, id="versus")
    sec.add(BulletList(tuple(_versus_findings(st)[:MAX_ROWS])))
    sec.add(_metric_table(v, ((Column("configuration"),) if st.varying else ()) + (
        Column("line-up"), Column("a"), Column("b")),
        lambda r: [_config_text(r, st.varying)] * bool(st.varying) + [lineup_text(r["lineup"]),
                                                                        f"`{r['policy_a']}`", f"`{r['policy_b']}`"],
        "versus.csv", "Per-game differences a − b between two policies of one line-up (each per seat it holds)."))
    return sec


def _options_section(st: _Study) -> Section | None:
    if not st.varying:
        return None
    sec = Section("Effect of the options", level=2, id="options")
    rows = []
    for _, r in st.groups.iterrows():
        rows.append((_config_text(r, st.varying), lineup_text(r["lineup"]),
                     _pct_cell(r["stock_out_rate"], r["stock_out_rate_ci95_low"], r["stock_out_rate_ci95_high"]),
                     _pct_cell(r["draw_game_rate"], r["draw_game_rate_ci95_low"], r["draw_game_rate_ci95_high"]),
                     fmt_number(r["mean_turns"], 1)))
    sec.add(Table((Column("configuration"), Column("line-up"), Column("stock runs out", "%", True),
                   Column("drawn games", "%", True), Column("mean turns", "turns", True)), tuple(rows[:MAX_ROWS]),
                  caption="Each configuration and line-up."))
    p = st.paired
    if len(p):
        p = p.copy()
        sec.add(_metric_table(p, (Column("line-up"), Column("policy"), Column("option"), Column("from"), Column("to")),
                              lambda r: [lineup_text(r["lineup"]), f"`{r['policy']}`", f"`{r['parameter']}`",
                                         value_text(r["from_value"]), value_text(r["to_value"])],
                              "paired.csv", "Paired differences (second value − first) per policy over the same "
                                            "games."))
    return sec


def _length_section(st: _Study) -> Section | None:
    if not len(st.length):
        return None
    sec = Section("Game length and the stock", level=2, id="length")
    sec.add(BulletList(tuple(_length_findings(st)[:MAX_ROWS] + _stock_findings(st)[:MAX_ROWS])))
    fig = _length_figure(st)
    if fig is not None:
        sec.add(fig)
    rows = []
    for (_, r), (_, g) in zip(st.length.iterrows(), st.groups.iterrows()):
        rows.append(tuple([_config_text(r, st.varying)] * bool(st.varying)) + (
            lineup_text(r["lineup"]), f"{int(r['games']):,}",
            _num(r["mean_turns"], r["turns_ci95_low"], r["turns_ci95_high"], "turns").cell,
            value_text(r["p10"]), value_text(r["p50"]), value_text(r["p90"]),
            _pct_cell(g["stock_out_rate"], g["stock_out_rate_ci95_low"], g["stock_out_rate_ci95_high"]),
            _pct_cell(g["draw_game_rate"], g["draw_game_rate_ci95_low"], g["draw_game_rate_ci95_high"])))
    cols = ((Column("configuration"),) if st.varying else ()) + (
        Column("line-up"), Column("games", numeric=True), Column("mean turns", "turns", True),
        Column("p10", "turns", True), Column("median", "turns", True), Column("p90", "turns", True),
        Column("stock runs out", "%", True), Column("drawn", "%", True))
    sec.add(Table(cols, tuple(rows[:MAX_ROWS]), caption="Game length (all players' turns) and how games end.",
                  note=f"All rows in `game_length.csv`." if len(rows) > MAX_ROWS else ""))
    return sec


def _files_section() -> Section:
    what = {
        "summary.csv": "every statistic per configuration, line-up, policy and seat (also `summary.parquet`); its "
                       "`games` are player-games, the games played × the seats the policy held in them (4 × the "
                       "games of a one-policy line-up of 4 in a `seat` = `all` row), `deals` the games played",
        "seats.csv": "each seat whatever policy sat there: win rate, the edge over the fair share",
        "paired.csv": "configurations that differ in one option, compared game by game",
        "versus.csv": "policies compared within a line-up",
        "lineups.csv": "line-ups that differ in one position, compared game by game",
        "game_length.csv": "game length per configuration and line-up (mean with CI, quantiles)",
    }
    return Section("Files", level=2, id="files").add(BulletList(tuple(f"`{f}`: {what[f]}." for f in CSV_FILES)))


def build(acc, info: Mapping[str, Any]) -> Document:
    """The report of a Russian Hand study as a :class:`~handsim.report.document.Document`.

    Parameters
    ----------
    acc : RussianAccumulator
    info : dict
        What was run (``run.json``): ``title``, ``rules``, ``deals``, ``seed``, ``games_played``,
        ``games_per_s``, ``seconds``, ``policies``, ``command``, ``version`` (all optional).
    """
    st = _Study(acc, info)
    title = info.get("title") or f"Russian Hand (هاند روسي) study: {st.players} players"
    doc = Document(title, lead="What the simulated games say, each number with its 95% confidence interval; "
                               "the tables and figures follow.")
    for sec in (_summary_section(st), _run_section(st), _how_to_read(), _edge_section(st), _policies_section(st),
                _switch_section(st), _versus_section(st), _options_section(st), _length_section(st),
                _files_section()):
        doc.add(sec)
    doc.unique_ids()
    return doc


def write_report(out_dir, acc, run_info: Mapping[str, Any], *, formats: Sequence[str] = FORMATS) -> Path:
    """Write the CSV tables (:data:`CSV_FILES`), the figures and ``report.md`` / ``report.html``
    of a Russian Hand study into ``out_dir`` (each file atomically).

    Returns
    -------
    pathlib.Path
        The path of ``report.md`` (of ``report.html`` when only HTML is written).

    Raises
    ------
    ValueError
        An unknown or empty ``formats``.
    """
    formats = check_formats(formats)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables = {"summary.csv": acc.summary(), "seats.csv": acc.seats(), "paired.csv": acc.paired(),
              "versus.csv": acc.versus(), "lineups.csv": acc.lineup_pairs(), "game_length.csv": acc.turn_quantiles()}
    for name, df in tables.items():
        atomic_write(out / name, df.to_csv(index=False).encode("utf-8"))
    return write_document(out, build(acc, run_info), formats)
