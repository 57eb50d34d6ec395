"""*In brief*: the three to five lines at the top of classic Hand's report (and of ``handsim simulate``'s
terminal), in words a house-rule designer reads in 30 seconds.

What the lines say, from a :class:`~handsim.games.hand.findings.StudyView`:

* each varied rule option's effect (first value to last) on a policy's score, worded for the player:
  *worse* / *better* by so many points, *about the same* when the 95% CI includes 0;
* for the study's main comparison, how often a Hand ends a round (% of rounds) and how long rounds
  are (turns);
* policy against policy at the same table, and switching one seat, with one sentence on why the two
  figures differ;
* every figure of a study that varies the joker penalty names the opening threshold it was played at.

Two shares are printed with enough decimals that their printed difference is the one stated
(:func:`handsim.report.words.share_pair`).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

from handsim.report.document import BulletList, Estimate, Finding, Paragraph, Section, fmt_number, fmt_pct
from handsim.report.plots import human, lineup_text, spread_pick, value_text
from handsim.report.words import NOT_SIGNIFICANT, share_pair, verdict

from . import plots
from .findings import (PR, TR, StudyView, change_verb, config_text, estimate, has_matches, is_nan, lineup_policies,
                       paired_rates, share_estimate)

__all__ = ["brief_section", "MAX_BRIEF", "hands_per_round", "round_turns", "pair_text", "diff_clause"]

#: Lines of *In brief* at most.
MAX_BRIEF = 5


def hands_per_round(st: StudyView, config: Mapping[str, Any], lineup: str) -> float:
    """The share of rounds that end in a Hand, for one configuration and line-up (NaN when a row is missing).

    At most one player goes out in a round, so it is the sum over the line-up's policies of each
    policy's P(Hand) (a share of its player-rounds) times the seats it holds.
    """
    total = 0.0
    for policy, seats in Counter(lineup_policies(lineup)).items():
        r = st.row(config, lineup, policy)
        if r is None or is_nan(r.get("p_hand")):
            return math.nan
        total += seats * float(r["p_hand"])
    return total


def round_turns(st: StudyView, config: Mapping[str, Any], lineup: str) -> float:
    """The mean number of turns of a round (all players' turns together) of a configuration and line-up."""
    r = st.row(config, lineup, lineup_policies(lineup)[0])
    return math.nan if r is None or is_nan(r.get("mean_turns")) else float(r["mean_turns"])


def diff_clause(e: Estimate, d: str, lo: str, hi: str) -> str:
    """``"(+44.2 percentage points, 95% CI +44.1 to +44.3)"`` from the printed difference ``d`` and
    bounds of ``e`` (a difference of shares); *about the same* when its interval includes 0."""
    if e.identical:
        return "(the same in every deal)"
    if e.significant:
        return f"({d} percentage points, 95% CI {lo} to {hi})"
    return f"(about the same: {d} percentage points, 95% CI {lo} to {hi}; {NOT_SIGNIFICANT})"


def pair_text(a: float, b: float, e: Estimate | None, of: str) -> str:
    """``"from 22.8% to 67.0% of player-rounds (+44.2 percentage points, 95% CI +44.1 to +44.3)"``: two
    shares and their paired difference ``e`` (a fraction, unit ``pp``), printed consistently; *about
    the same* when its interval includes 0, no difference given without one (``e`` None)."""
    if e is None or not e.has_interval:
        pa, pb = share_pair(a, b)[:2]
        return f"from {pa} to {pb} of {of}"
    pa, pb, d, lo, hi = share_pair(a, b, e.low, e.high)
    return f"from {pa} to {pb} of {of} {diff_clause(e, d, lo, hi)}"


def _opening_of(st: StudyView, config: Mapping[str, Any]) -> str:
    """``" at opening threshold 51"`` (with ``" (ascending openings)"``): the opening of ``config``."""
    threshold = st.rule_value("opening_threshold", config)
    if threshold is None:
        return ""
    ascending = st.rule_value("opening_rule", config) == "ascending"
    return f" at opening threshold {value_text(threshold)}" + (" (ascending openings)" if ascending else "")


def _context(st: StudyView, r: Mapping[str, Any], skip=(), opening: bool = True) -> str:
    """Where a line holds: its line-up and the values of the options it does not vary; in a study
    that varies the joker penalty, also the opening threshold it was played at (unless ``opening``
    is False: the line names it)."""
    where = st.where(r, skip=skip)
    if opening and "joker_penalty" in st.options and "opening_threshold" not in st.options:
        opening = _opening_of(st, r).removeprefix(" at ")
        if opening:
            where = f"{where}; {opening}" if where else opening
    return where


def _filter(df, st: StudyView, keep=()):
    """The rows of ``df`` at the first value of every option but ``keep``."""
    first = st.first_config()
    for o in st.options:
        if o not in keep and o in df.columns:
            df = df[df[o].map(value_text) == value_text(first[o])]
    return df


def _clauses(st: StudyView, recs, col: str, lo: str, hi: str, unit: str, x: str | None,
             lower_is_better: bool = True) -> tuple[str, Estimate]:
    """``"worse by 5.1 points per player-round (95% CI 4.6 to 5.6) at opening threshold 51; better by
    1.4 (95% CI 0.4 to 2.3) at 91"``: one clause per record (the unit named once), and the estimate of
    the last."""
    parts = []
    for i, r in enumerate(recs):
        e = estimate(r, col, lo, hi, unit)
        at = (f" at {human(x)} {value_text(r[x])}" if i == 0 else f" at {value_text(r[x])}") if x and len(recs) > 1 else ""
        parts.append(verdict(e, lower_is_better, unit=i == 0) + at)
    return "; ".join(parts), estimate(recs[-1], col, lo, hi, unit)


def _effect(st: StudyView, option: str, main: bool) -> tuple[Finding | None, dict | None]:
    """The line of one varied option (its first value against its last, in the reference line-up),
    and the paired row it reads (None when the study has none)."""
    ref = st.reference_lineup()
    first = st.first_config()
    vals = st.values[option]
    base, last = vals[0], vals[-1]
    p = plots.baseline_rows(st.paired, option, base)
    if not len(p):
        return None, None
    p = p[(p["lineup"] == ref) & (p["to_value"].map(value_text) == value_text(last))]
    # a later option's effect at each value of the first varied option (a joker-penalty effect may
    # grow with the threshold): up to three of them, the baseline's first
    x = st.options[0] if option != st.options[0] and len(st.values.get(st.options[0], ())) > 1 else None
    p = _filter(p, st, keep=(option, x))
    if not len(p):
        return None, None
    at_base = p if x is None else p[p[x].map(value_text) == value_text(first[x])]
    r = (at_base if len(at_base) else p).iloc[0].to_dict()
    p = p[p["policy"] == r["policy"]]
    recs = [r] if x is None else [r] + [q for q in spread_pick(p.to_dict("records"), 3)
                                        if value_text(q[x]) != value_text(r[x])][:2]
    said, e = _clauses(st, recs, "mean_diff", "ci95_low", "ci95_high", PR, x)
    change = f"{change_verb(base, last)} the {human(option)} from {value_text(base)} to {value_text(last)}"
    named = option == "joker_penalty" and x != "opening_threshold"
    if named:  # which opening the penalty was paid at
        change += _opening_of(st, {**first, **r})
    if len(recs) > 1:
        text = f"{change}, `{r['policy']}`'s score: {said}"
    else:
        text = f"{change} {'makes' if e.significant else 'leaves'} `{r['policy']}`'s score {said}"
    r1 = st.row({**first, option: base}, ref, r["policy"])
    r2 = st.row({**first, option: last}, ref, r["policy"])
    rates = paired_rates(r)
    # the share that moves most (P(Hand) of the main comparison is said per round on its own line)
    shown = [max(rates[:2], key=lambda k: abs(float(r[f"{k}_diff"] or 0)))]
    if main:
        shown = ["p_unopened"]
    if option == "joker_penalty" and "p_joker_left" in rates:
        shown.append("p_joker_left")
    for rate in shown:
        de = estimate(r, f"{rate}_diff", f"{rate}_diff_ci95_low", f"{rate}_diff_ci95_high", "pp")
        if r1 is not None and r2 is not None and de.significant:
            opening = (_opening_of(st, first) if rate == "p_unopened" and option != "opening_threshold" and not named
                       else "")
            text += (f"; {plots.RATE_NAMES[rate]}{opening} goes "
                     + pair_text(float(r1[rate]), float(r2[rate]), de, "player-rounds"))
    skip = (option,) if len(recs) == 1 else (option, x)
    return Finding(text + ".", e, _context(st, {**r, **first, "lineup": ref}, skip=skip, opening=not named)), r


def _rounds_of_effect(st: StudyView, option: str, r: Mapping[str, Any]) -> Finding | None:
    """How often a Hand ends a round and how long rounds are, at the first and last value of the
    study's first option (the reference line-up)."""
    ref = st.reference_lineup()
    first = st.first_config()
    base, last = st.values[option][0], st.values[option][-1]
    c1, c2 = {**first, option: base}, {**first, option: last}
    h1, h2 = hands_per_round(st, c1, ref), hands_per_round(st, c2, ref)
    t1, t2 = round_turns(st, c1, ref), round_turns(st, c2, ref)
    if is_nan(h1) or is_nan(h2):
        return None
    e = None
    if len(set(lineup_policies(ref))) == 1:  # one policy at every seat: per round = P x per player-round
        n = len(lineup_policies(ref))
        d = estimate(r, "p_hand_diff", "p_hand_diff_ci95_low", "p_hand_diff_ci95_high", "pp")
        e = Estimate(n * d.value, n * d.low, n * d.high, unit="pp", diff=True, identical=d.identical)
    at1, at2 = f"{human(option)} {value_text(base)}", value_text(last)
    if e is not None and e.has_interval:
        pa, pb, d, lo, hi = share_pair(h1, h2, e.low, e.high)
        text = f"A Hand ends {pa} of rounds at {at1} and {pb} at {at2} {diff_clause(e, d, lo, hi)}"
    else:
        pa, pb = share_pair(h1, h2)[:2]
        text = f"A Hand ends {pa} of rounds at {at1} and {pb} at {at2}"
    text += (f"; a round lasts {fmt_number(t1)} turns on average at {at1} and {fmt_number(t2)} at {at2} (all "
             "players' turns together).")
    return Finding(text, e, _context(st, {**first, "lineup": ref}, skip=(option,)))


def _rounds_of_levels(st: StudyView, lineups) -> Finding | None:
    """How often a Hand ends a round and how long rounds are in one or two line-ups (no option varies)."""
    first = st.first_config()
    parts = []
    for lu in lineups:
        h, t = hands_per_round(st, first, lu), round_turns(st, first, lu)
        if is_nan(h):
            return None
        parts.append((lu, h, t))
    if len(parts) == 1:
        lu, h, t = parts[0]
        text = (f"A Hand ends {fmt_pct(h)} of rounds; a round lasts {fmt_number(t)} turns on average (all players' "
                "turns together).")
        return Finding(text, None, _context(st, {**first, "lineup": lu}))
    (la, ha, ta), (lb, hb, tb) = parts
    pa, pb = share_pair(ha, hb)[:2]
    text = (f"A Hand ends {pa} of rounds with line-up {lineup_text(la)} and {pb} with {lineup_text(lb)}; a round "
            f"lasts {fmt_number(ta)} and {fmt_number(tb)} turns on average (all players' turns together).")
    return Finding(text, None, _context(st, first))


def _versus(st: StudyView) -> tuple[Finding | None, dict | None]:
    vs = st.versus
    if vs is None or not len(vs) or st.teams:  # not for 2 v 2, where a policy pools partners and opponents
        return None, None
    for lu in st.mixed_lineups()[:1]:
        g = vs[vs["lineup"] == lu]
        if not len(g):
            return None, None
        a, b = g["policy_a"].iloc[0], g["policy_b"].iloc[0]
        g = _filter(g[(g["policy_a"] == a) & (g["policy_b"] == b)], st, keep=st.options[:1])
        recs = spread_pick(g.to_dict("records"), 3)
        if not recs:
            return None, None
        x = st.options[0] if st.options else None
        said, e = _clauses(st, recs, "mean_diff", "ci95_low", "ci95_high", PR, x)
        text = f"At the same table, `{a}` against `{b}` (the first's mean score minus the second's): {said}."
        return Finding(text, e, _context(st, {**st.first_config(), "lineup": lu}, skip=(x,) if x else ())), recs[0]
    return None, None


def _switches(st: StudyView) -> list[tuple[Finding, dict, str]]:
    """Switching one seat, for the first two switches of the study: (line, its first record, its column)."""
    lp = st.lineup_pairs
    out = []
    if lp is None or not len(lp):
        return out
    for _, g in itertools.islice(lp.groupby(["lineup_a", "lineup_b", "position"], sort=False), 2):
        x = st.options[0] if st.options else None
        recs = spread_pick(_filter(g, st, keep=st.options[:1]).to_dict("records"), 3)
        if not recs:
            continue
        r0 = recs[0]
        better_high = False
        if has_matches(st.summary) and r0["matches"] > 0:
            col, unit, what = "match_win_diff", "pp", ("its team's" if r0["team"] else "its") + " chance of winning the match"
            better_high = True
        elif r0["team"]:
            col, unit, what = "team_diff", TR, f"{r0['team']}'s score"
        else:
            col, unit, what = "mean_diff", PR, "that player's score"
        lo, hi = ("ci95_low", "ci95_high") if col == "mean_diff" else (f"{col}_ci95_low", f"{col}_ci95_high")
        said, e = _clauses(st, recs, col, lo, hi, unit, x, lower_is_better=not better_high)
        text = f"Playing `{r0['policy_a']}` instead of `{r0['policy_b']}` at position {int(r0['position'])}, {what}: {said}."
        out.append((Finding(text, e, _context(st, {**st.first_config(), "lineup": r0["lineup_a"]},
                                             skip=(x,) if x else ())), r0, col))
    return out


def _why_they_differ(st: StudyView, vs_rec: Mapping[str, Any] | None, sw_rec: Mapping[str, Any], col: str) -> str:
    """One sentence on why *at the same table* and *switching one seat* give different figures, with
    the gap between the two (as printed) when both are the same policies' scores in the same line-up
    and both intervals exclude 0."""
    a, b = sw_rec["policy_a"], sw_rec["policy_b"]
    why = (" The two figures differ because *at the same table* compares players in the same rounds, while "
           f"*switching one seat* compares that seat playing `{a}` and playing `{b}`, so it also counts what `{a}` "
           "does to the other players' scores")
    same = (vs_rec is not None and col == "mean_diff" and vs_rec["lineup"] == sw_rec["lineup_a"]
            and vs_rec["policy_a"] == sw_rec["policy_a"] and vs_rec["policy_b"] == sw_rec["policy_b"]
            and all(value_text(vs_rec[o]) == value_text(sw_rec[o]) for o in st.options))
    if not same:
        return why + "."
    ev = estimate(vs_rec, "mean_diff", "ci95_low", "ci95_high", PR)
    es = estimate(sw_rec, "mean_diff", "ci95_low", "ci95_high", PR)
    if not (ev.significant and es.significant):  # the gap of two uncertain figures says little
        return why + "."
    nd = max(len(ev.number().rpartition(".")[2]) if "." in ev.number() else 0,
             len(es.number().rpartition(".")[2]) if "." in es.number() else 0)
    # the gap of the two figures as printed (e.g. +14.8 - +17.5 = -2.7)
    gap = round(float(es.number().replace(",", "")) - float(ev.number().replace(",", "")), nd)
    at = f" at {config_text(sw_rec, st.options[:1])}" if st.options else ""
    if gap == 0:
        return why + f" (the two figures agree{at})."
    return (why + f":{at} the `{b}` players at that table score about {fmt_number(abs(gap), nd)} points per "
            f"player-round {'below' if gap < 0 else 'above'} their score at a table without `{a}`.")


def brief_section(st: StudyView) -> Section:
    """The *In brief* section of a classic Hand study: at most :data:`MAX_BRIEF` lines (see the module)."""
    sec = Section("In brief", level=2, id="in-brief")
    lines: list[tuple[int, Finding]] = []  # (rank, line) in the order shown; the best-ranked are kept
    options = [o for o in st.options if o in st.values][:3]
    main_row = None
    for i, option in enumerate(options):
        f, r = _effect(st, option, main=i == 0)
        if f is None:
            continue
        lines.append(({0: 0, 1: 2}.get(i, 6), f))
        if i == 0:
            main_row = (option, r)
    if main_row is not None:
        rounds = _rounds_of_effect(st, *main_row)
    elif st.lineup_pairs is not None and len(st.lineup_pairs):
        r = st.lineup_pairs.iloc[0]
        rounds = _rounds_of_levels(st, [r["lineup_b"], r["lineup_a"]])
    elif st.lineups:
        rounds = _rounds_of_levels(st, st.lineups[:1])
    else:
        rounds = None
    if rounds is not None:  # right after the main comparison
        lines.insert(1 if main_row is not None else 0, (1, rounds))
    vs_line, vs_rec = _versus(st)
    if vs_line is not None:
        lines.append((3, vs_line))
    for j, (f, r0, col) in enumerate(_switches(st)):
        if j == 0 and vs_line is not None:
            f = Finding(f.text + _why_they_differ(st, vs_rec, r0, col), f.estimate, f.context)
        lines.append((4 if j == 0 else 7, f))
    # matches: team A's win rate in mixed line-ups
    if st.matches and st.teams:
        t = st.full[(st.full["seat"] == "team A")]
        for lu in st.mixed_lineups()[:1]:
            recs = spread_pick(_filter(t[t["lineup"] == lu], st, keep=st.options[:1]).to_dict("records"), 3)
            if not recs:
                continue
            x = st.options[0] if st.options else None
            parts = [share_estimate(r, "match_win_rate").text() + (f" at {human(x)} {value_text(r[x])}" if x else "")
                     for r in recs]
            lines.append((5, Finding(f"Team A ({recs[0]['policy']}) wins, of its matches, " + "; ".join(parts)
                                     + " (a fair share is 50%).", None, f"line-up {lineup_text(lu)}")))
    if not any(rank != 1 for rank, _ in lines) and len(st.allrows):
        levels = []
        for r in st.allrows.to_dict("records")[:3]:
            e = estimate(r, "mean_score", "ci95_low", "ci95_high", PR, diff=False)
            levels.append((0, Finding(f"`{r['policy']}` scores {e.text()}.", e, _context(st, r))))
        lines = levels + lines
    if not lines:
        sec.add(Paragraph("No results yet."))
        return sec
    keep = sorted(range(len(lines)), key=lambda i: (lines[i][0], i))[:MAX_BRIEF]
    sec.add(BulletList(tuple(lines[i][1] for i in sorted(keep))))
    sec.add(Paragraph("Scores are penalty points: lower is better. The sections below give every comparison, its "
                      "figure and table.", note=True))
    return sec
