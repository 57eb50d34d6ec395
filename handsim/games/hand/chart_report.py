"""The report of a decision chart (issue 26 part 1): ``chart.md`` and ``chart.html`` through the
shared document model (:mod:`handsim.report.document`, as the study and tournament reports use it).

It opens with the chart's rules in plain words, one per row of the chart ("At 71, with a discard
that completes a meld: take the discard ..."), each backed by its cells' numbers: the mean gain
over the positions of the cells it names with a 95% Student t interval over those positions (as
:func:`handsim.games.hand.chart.cells` gives each cell's), the cells where the other action is
better, the cells where the interval holds 0 ("either") and those with too few positions.  Then
the figure (``chart.png``), the table of every cell and how the chart was measured.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from handsim._io import atomic_write
from handsim.report.document import BulletList, Column, Document, Estimate, Figure, Finding, Paragraph, Section, Table

from . import chart as charts

#: What each action is called in a rule ("take the discard").
VERBS = {"open": "open now", "wait": "wait (lay nothing this turn)", "take": "take the discard",
         "stock": "draw from the stock", "lay": "lay your jokers now", "keep": "keep your jokers",
         "lay off": "lay off", "hold back": "hold back (lay nothing)", "hunt": "hunt the Hand",
         "normal": "play normally (card-reader's moves)"}
#: The decision each class charts, for titles.
QUESTIONS = {"open": "Open now or wait", "draw": "Take the discard or draw from the stock",
             "jokers": "Lay the jokers now or keep them", "layoff": "Lay off or hold back",
             "hunt": "Hunt a Hand or play normally"}
_USE_WORDS = {"loose": "with a discard that fits nothing in your hand",
              "partial": "with a discard that makes a pair or a connector",
              "layoff": "with a discard you could lay off on the table",
              "meld": "with a discard that completes a meld", "opens": "with a discard that lets you open now"}


@dataclass(frozen=True)
class ChartRun:
    """What a chart was measured with (the report says it)."""

    decision: str
    preset: str | None
    rules: object
    lineup: str
    deals: int
    worlds: int
    seed: int
    rows: str
    cols: str
    min_positions: int = charts.MIN_POSITIONS


def phrase(feature: str, label: str) -> str:
    """A feature's bucket in words: ``("own_turn", "3-4")`` -> ``"on own turn 3-4"``."""
    if feature == "discard_use":
        return _USE_WORDS[label]
    if feature == "discard_points":
        return "with a joker on the pile" if label == "joker" else f"with a discard worth {label} points" \
            if label != "A" else "with an Ace on the pile"
    if feature == "opened":
        return "once you have opened" if label == "yes" else "before you have opened"
    if label == "1" and feature in ("cards", "jokers", "fewest_opponent", "layable", "laid_off", "short"):
        return phrase(feature, "{}").replace("{} cards", "1 card").replace("{} jokers", "1 joker").replace(
            "{} opponents", "1 opponent")
    words = {"own_turn": "on own turn {}", "cards": "holding {} cards", "open_points": "with an opening worth {} points",
             "jokers": "holding {} jokers", "fewest_opponent": "when the shortest opponent hand holds {} cards",
             "opened_opponents": "with {} opponents opened", "joker_penalty": "at joker penalty {}",
             "layable": "with {} jokers you could lay", "laid_off": "with {} cards to lay off",
             "short": "{} cards short of a Hand", "threshold": "at threshold {}"}
    return words.get(feature, feature + " {}").format(label)


def _better_by(first: bool, mean: float, lo: float, hi: float) -> Estimate:
    """How much better (points per round) the first (``first``) or the second action scores."""
    if first:
        return Estimate(mean, lo, hi, unit="points per round", diff=True)
    return Estimate(-mean, -hi, -lo, unit="points per round", diff=True)


@dataclass(frozen=True)
class Rule:
    """One rule of the chart: its row, the action it says, the cells it rests on and its number.

    ``estimate`` is how much better ``action`` scores over the positions of ``cells`` (points per
    round, 95% CI over positions); ``action`` ``either`` or ``too few`` when no cell of the row is
    coloured (then over every position of the row).  ``text`` is the rule in words."""

    row: str
    action: str
    cells: tuple[str, ...]
    positions: int
    estimate: Estimate
    text: str


def chart_rules(run: ChartRun, positions: pd.DataFrame, tab: pd.DataFrame) -> list[Rule]:
    """The chart's rules in plain words, one per row of ``tab`` (:func:`chart.cells`), in the rows'
    order: the action of the coloured cells holding the most positions, pooled over them, then the
    cells that say the other action, those that say either, and those with too few positions."""
    first, second = charts.ACTIONS[run.decision]
    rk, ck = run.rows + "_bucket", run.cols + "_bucket"
    pos = charts.bucketed(positions, run.rows, run.cols)
    at = f"At {int(tab['threshold'].iloc[0]) if len(tab) else int(run.rules.opening_threshold)}"
    if run.decision == "jokers":
        at += f", joker penalty {int(run.rules.joker_penalty)}"
    out = []
    for r in sorted(set(tab[rk]), key=lambda v: charts.order_key(run.rows, v)):
        row = tab[tab[rk] == r]
        row = row.iloc[sorted(range(len(row)), key=lambda i: charts.order_key(run.cols, row[ck].iloc[i]))]
        prow = pos[pos[rk] == r]
        coloured = row[row["better"].isin((first, second))]
        if len(coloured):
            sizes = coloured.groupby("better")["positions"].sum()
            action = first if sizes.get(first, 0) >= sizes.get(second, 0) else second
        else:
            action = "too few" if (row["better"] == "too few").all() else "either"
        main = row[row["better"] == action] if len(coloured) else row
        cells = tuple(main[ck])
        x = prow[prow[ck].isin(cells)]["mean_diff"].to_numpy()
        mean, lo, hi = charts.t_interval(x)
        est = _better_by(action != second, mean, lo, hi)
        where = lambda labels: ", ".join(labels)  # noqa: E731
        colw = phrase(run.cols, "{}")
        head = f"{at}, {phrase(run.rows, r)}: "
        if action in (first, second):
            text = (f"{head}**{VERBS[action]}** ({colw.format(where(cells))}: better by {est.text(inner=True)}, "
                    f"over {len(x):,} positions)")
        elif action == "either":
            lean = first if mean >= 0 else second  # the sign of the mean, named by its action
            est = _better_by(lean == first, mean, lo, hi)
            text = (f"{head}**either** - no cell's interval excludes 0 (all its cells together: {VERBS[lean]} "
                    f"better by {est.text(inner=True)}, over {len(x):,} positions)")
        else:
            text = f"{head}too few positions to say ({len(x):,} in all, fewer than {run.min_positions} in each cell)"
        rest = []
        if action in (first, second):
            other = second if action == first else first
            but = []
            for _, c in row[row["better"] == other].iterrows():
                e = _better_by(other == first, c["gain"], c["lo"], c["hi"])
                but.append(f"{colw.format(c[ck])} (better by {e.text(inner=True)}, {int(c['positions']):,} positions)")
            if but:
                rest.append(f"but **{VERBS[other]}** " + ", and ".join(but))
            ei = row[row["better"] == "either"]
            if len(ei):
                rest.append(f"either {colw.format(where(ei[ck]))} (the interval holds 0)")
            few = row[row["better"] == "too few"]
            if len(few):
                rest.append(f"too few positions {colw.format(where(few[ck]))}")
        if rest:
            text += "; " + "; ".join(rest)
        out.append(Rule(row=r, action=action, cells=cells, positions=len(x), estimate=est, text=text + "."))
    return out


def _cell_table(run: ChartRun, tab: pd.DataFrame) -> Table:
    first, second = charts.ACTIONS[run.decision]
    field = charts.FIELD_COLUMN[run.decision]
    rk, ck = run.rows + "_bucket", run.cols + "_bucket"
    rows = []
    for _, c in tab.iterrows():
        e = Estimate(c["gain"], c["lo"], c["hi"], unit="points per round", diff=True)
        rows.append((str(c[rk]), str(c[ck]), f"{int(c['positions']):,}", str(c["better"]), e.cell,
                     f"{100 * c[field]:.0f}%"))
    cols = (Column(run.rows.replace("_", " ")), Column(run.cols.replace("_", " ")),
            Column("positions", numeric=True), Column("better"),
            Column(f"gain, {second} - {first}", "points per round, 95% CI", numeric=True),
            Column(f"field plays {first}", numeric=True))
    return Table(columns=cols, rows=tuple(rows), caption="Every cell (chart.csv).",
                 note=f"A cell is coloured only when its 95% CI excludes 0 (else either); cells with fewer than "
                      f"{run.min_positions} positions are marked too few.")


def chart_png(run: ChartRun, tab: pd.DataFrame) -> bytes:
    """The chart figure (:func:`chart.chart_figure`) as PNG bytes."""
    first, second = charts.ACTIONS[run.decision]
    thr = int(run.rules.opening_threshold)
    title = (f"{QUESTIONS[run.decision]} at {thr}: {run.lineup}\n{run.deals} deals, {run.worlds} worlds, "
             f"seed {run.seed}; gain = {second} - {first}, points per round")
    fig = charts.chart_figure(tab, run.rows, run.cols, title, decision=run.decision)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


def chart_document(run: ChartRun, positions: pd.DataFrame, tab: pd.DataFrame, png: bytes = b"") -> Document:
    """The report: the rules in plain words (:func:`chart_rules`), the figure, every cell, the method."""
    first, second = charts.ACTIONS[run.decision]
    thr = int(run.rules.opening_threshold)
    doc = Document(
        title=f"{QUESTIONS[run.decision]}? A decision chart at {thr}",
        lead=(f"{len(positions):,} decision points from {run.deals:,} deals of the field {run.lineup} "
              f"({run.preset or 'classic'}; joker penalty {int(run.rules.joker_penalty)}), each evaluated on "
              f"{run.worlds} sampled worlds, seed {run.seed}.  A gain is in points per round for the deciding "
              f"seat (lower scores are better in Hand): how much better the action named scores."))
    doc.add(Section("The chart's rules").add(
        BulletList(tuple(Finding(r.text, r.estimate) for r in chart_rules(run, positions, tab)))))
    doc.add(Section("The chart").add(Figure(
        name="chart.png", title=f"{QUESTIONS[run.decision]} at {thr}", png=png,
        caption=(f"Rows {run.rows.replace('_', ' ')}, columns {run.cols.replace('_', ' ')}; orange {first}, blue "
                 f"{second}, darker the larger the gain, grey either (the CI holds 0), hatched too few positions."))))
    doc.add(Section("The cells").add(_cell_table(run, tab)))
    doc.add(Section("How it was measured").add(
        Paragraph(f"The field plays the deals; at every decision point of the class ({QUESTIONS[run.decision].lower()}) "
                  f"both actions are played from that exact position on the same {run.worlds} sampled worlds "
                  "(the cards the seat cannot place dealt again consistently with what it has seen), then the "
                  "field's policies to the end of the round: a paired difference per position.  A cell's gain is "
                  "the mean over its positions with a 95% Student t interval over positions.  Reproducible "
                  "from the seed and independent of --jobs; positions.csv holds every position.")))
    return doc


def write_report(out, run: ChartRun, positions: pd.DataFrame, tab: pd.DataFrame) -> None:
    """Write ``chart.png``, ``chart.md`` and ``chart.html`` into ``out`` (each atomically)."""
    from handsim.report import html as html_renderer
    from handsim.report import markdown as md_renderer

    out = Path(out)
    png = chart_png(run, tab)
    doc = chart_document(run, positions, tab, png)
    atomic_write(out / "chart.png", png)
    atomic_write(out / "chart.md", md_renderer.render(doc).encode("utf-8"))
    atomic_write(out / "chart.html", html_renderer.render(doc).encode("utf-8"))
