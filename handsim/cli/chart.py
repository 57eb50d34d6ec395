"""``handsim chart``: a decision chart (issue 26 part 1) - paired rollouts at the decision points of
a field's deals, grouped into cells of what a player can see."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import (CHART_COMPILE, Command, IntIn, classic_rules_options, compile_notice, compiling, load_rules,
                      preset_name, rules_note)

CHART_HELP = """A basic-strategy chart of one decision (open, draw, jokers, layoff, hunt), by paired rollouts.

It plays --deals deals with the field (--lineup, one policy per seat: greedy, card-reader or
hold-hand) and, at every decision point of the class, evaluates each alternative from that exact
position by paired rollouts: the same --worlds sampled hidden worlds (the cards the seat cannot
place dealt again consistently with what it has seen) for each alternative, then the field's
policies to the end of the round.  It prints the answer first: in how many cells (groups of
positions by --rows and --cols) one action scores less (e.g. open now, or wait), neither is shown
(the 95% CI holds 0) or too few positions were met to say.

--decision open: the seat is unopened and could now lay an opening that reaches what it needs
(RULES.md section 4); "open" lays the least-deadwood opening, "wait" lays nothing this turn, both
then discard as card-reader does.  The gain is wait - open in points per round for that seat
(lower is better in Hand): a positive gain says open now.

--decision draw: take the top discard vs draw from the stock, where the seat may take it and play
it legally (RULES.md section 3); then card-reader's moves and discard.  Gain: stock - take.

--decision jokers: an opened seat holding a joker it could lay this turn: lay the jokers now vs
keep them (sections 1-2).  Gain: keep - lay.

--decision layoff: an opened seat whose moves are lay-offs only: lay off vs hold back.  --decision
hunt: nothing laid yet, at most 3 cards from a Hand: hunt it (lay nothing, play for the Hand) vs
play normally (section 6).  Gain: hold back - lay off, normal - hunt: a positive gain always says
the first action.

It writes, into --out (a new or empty folder): positions.csv (one row per position: the features a
player can see and the paired mean difference), chart.csv (one row per cell: positions, the better
action, the mean gain with a 95% CI over positions; "either" where the CI holds 0, "too few" under
--min-positions), chart.png, and the report chart.md / chart.html (the chart's rules in plain
words, each with its cells' numbers, then the figure and the table).  Reproducible from --seed
and independent of --jobs.

\b
Examples:
    $ handsim chart --decision open --deals 2000 --worlds 16 --out charts/open-51
    $ handsim chart --decision open --threshold 71 --lineup card-reader,card-reader,greedy,greedy \\
          --out charts/open-71
    $ handsim chart --decision draw --deals 1000 --worlds 8 --out charts/draw-51
    $ handsim chart --decision jokers --set joker_penalty=30 --out charts/jokers-30

\b
The first run compiles the rollouts (about a minute, announced on stderr).  Exit codes: 0 done,
2 bad input (one line: what was wrong and what is allowed).
"""


#: The features a chart's rows or columns may be (handsim.games.hand.chart.FEATURES; each class has some).
_FEATURES = ["own_turn", "cards", "open_points", "jokers", "fewest_opponent", "opened_opponents", "opened",
             "discard_points", "discard_use", "joker_penalty", "layable", "laid_off", "short"]


@click.command(cls=Command, name="chart", help=CHART_HELP, short_help="A decision chart by paired rollouts.")
@click.option("--decision", type=click.Choice(["open", "draw", "jokers", "layoff", "hunt"]), default="open",
              show_default=True, help="The decision class: open (open now vs wait), draw (take the discard vs "
                                      "the stock), jokers (lay vs keep), layoff (lay off vs hold back), hunt "
                                      "(hunt a Hand vs play normally).")
@classic_rules_options
@click.option("--threshold", type=IntIn(1, 500, "1..500"), default=None,
              help="The opening threshold (as --set opening_threshold=N).")
@click.option("--lineup", default="card-reader,card-reader,card-reader,card-reader", show_default=True,
              help="The field, one policy per seat, 2 to 5 of greedy, card-reader and hold-hand (with parameters, "
                   "e.g. hold-hand:bail_turn=4); the number of policies is the number of players.")
@click.option("--deals", type=IntIn(1, 10**7, "1..10^7"), default=1000, show_default=True, help="Deals played.")
@click.option("--worlds", type=IntIn(2, 1000, "2..1000"), default=16, show_default=True,
              help="Sampled hidden worlds per position (both alternatives on each).")
@click.option("--seed", type=IntIn(0, 2**63 - 1, "0..2^63-1"), default=0, show_default=True, help="Study seed.")
@click.option("--jobs", type=IntIn(1, 512, "1..512"), default=1, show_default=True, help="Worker processes.")
@click.option("--chunk", type=IntIn(1, 10**6, "1..10^6"), default=50, show_default=True,
              help="Deals per work item (results do not depend on it).")
@click.option("--rows", type=click.Choice(_FEATURES), default=None,
              help="The chart's row feature (one the class has).  [default: per class: open own_turn, draw "
                   "discard_use, jokers and layoff own_turn, hunt short]")
@click.option("--cols", type=click.Choice(_FEATURES), default=None,
              help="The chart's column feature.  [default: per class: open open_points, draw own_turn, jokers "
                   "and layoff fewest_opponent, hunt own_turn]")
@click.option("--min-positions", type=IntIn(2, 10**6, "2..10^6"), default=30, show_default=True,
              help="Cells with fewer positions are marked too few (no answer given), not coloured.")
@click.option("--out", type=click.Path(file_okay=False), required=True, metavar="DIR",
              help="Output folder (new or empty: nothing is overwritten).")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar of the deals played on stderr.  [default: when stderr is a terminal]")
def chart(decision, preset, rules_file, settings, threshold, lineup, deals, worlds, seed, jobs, chunk, rows, cols,
          min_positions, out, progress):
    import sys
    import time

    from handsim._io import atomic_write
    from handsim.games import game_for_preset

    settings = list(settings)
    if threshold is not None:
        settings.append(f"opening_threshold={threshold}")
    rules = load_rules(preset, rules_file, settings)
    game = game_for_preset(preset)
    charts = game.chart()
    if charts is None:
        raise click.UsageError("this game has no decision charts (allowed: the presets of classic Hand)")
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise click.UsageError(f"--out {out} is not a new or empty folder (a chart never overwrites)")
    charts.check_field(rules, lineup)  # bad line-ups before any work
    drows, dcols = charts.DEFAULT_AXES[decision]
    rows, cols = rows or drows, cols or dcols
    charts.check_axes(decision, rows, cols)
    click.echo(f"Charting the decision {decision}: {deals:,} deals x {worlds} worlds per position, field "
               f"{_field_text(lineup)}, rules {rules_note(rules, preset_name(preset, rules_file))}, seed {seed}, "
               f"{jobs} job{'s' if jobs != 1 else ''} -> {out}")
    # the kernel compiles (or loads) here, said when numba compiles, Ctrl-C acting at once; the
    # workers then load it, and the clock starts after it
    compiling(compile_notice("the chart's rollouts", CHART_COMPILE), charts.warm_up, rules, lineup)
    show = sys.stderr.isatty() if progress is None else progress
    t0 = time.time()
    with click.progressbar(length=deals, label="deals played", file=sys.stderr if show else _Null()) as bar:
        pos = charts.measure(rules, lineup, deals=deals, worlds=worlds, seed=seed, jobs=jobs, chunk=chunk,
                      progress=bar.update, decision=decision)
    dt = time.time() - t0
    tab = charts.cells(pos, rows, cols, min_positions, decision=decision)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "positions.csv", pos.to_csv(index=False).encode())
    atomic_write(out / "chart.csv", tab.to_csv(index=False, float_format="%.3f").encode())
    report = game.chart_report()
    run = report.ChartRun(decision=decision, preset=preset, rules=rules, lineup=lineup, deals=deals, worlds=worlds,
                          seed=seed, rows=rows, cols=cols, min_positions=min_positions)
    report.write_report(out, run, pos, tab)
    for line in summary_lines(tab, len(pos), int(rules.opening_threshold), _field_text(lineup), min_positions, dt,
                              actions=charts.ACTIONS[decision]):
        click.echo(line)
    click.echo(f"Results: {out}/ (chart.md, chart.html, chart.png, chart.csv, positions.csv)")


def _field_text(lineup: str) -> str:
    from ._study_options import short_lineup

    return short_lineup([p.strip() for p in lineup.split(",")])


#: An action of a chart's ``better`` column in the terminal summary's words (the two alternatives of
#: each class, :data:`handsim.games.hand.chart.ACTIONS`).
ACTION_WORDS = {"open": "open now", "wait": "wait", "take": "take the discard", "stock": "draw from the stock",
                "lay": "lay the jokers", "keep": "keep them", "lay off": "lay off", "hold back": "hold back",
                "hunt": "hunt the Hand", "normal": "play normally"}
#: The first alternative of each class as the subject of "... scores less".
_FIRST_DOING = {"open": "opening now", "take": "taking the discard", "lay": "laying the jokers",
                "lay off": "laying off", "hunt": "hunting the Hand"}


def summary_lines(tab, positions: int, threshold: int, field: str, min_positions: int, seconds: float,
                  actions: tuple[str, str] = ("open", "wait")) -> list[str]:
    """The terminal summary of a chart: the answer in words first (cells where each alternative is better,
    neither, or too few positions), then what the gain is, then the measurement's size and speed.

    Parameters
    ----------
    tab : pandas.DataFrame
        The chart's cells (:func:`handsim.games.hand.chart.cells`; its ``better`` column).
    positions : int
        Positions measured.
    threshold : int
        The opening threshold (points).
    field : str
        The field's policies in words.
    min_positions : int
        The --min-positions of the too-few cells.
    seconds : float
        Wall time of the measurement.
    actions : tuple of str
        The decision's two alternatives, the first the one a positive gain says (the game chart
        module's ``ACTIONS[decision]``, e.g. ``("take", "stock")`` for the draw).
    """
    first, second = actions
    better = [str(b) for b in tab["better"]] if len(tab) else []
    count = {k: better.count(k) for k in (first, second, "either", "too few")}
    cells = len(tab)
    if cells == 0:
        answer = (f"No position of the decision was met at threshold {threshold} with {field}: the chart is empty "
                  "(more --deals, or a lower threshold, meet some).")
    elif count["too few"] == cells:
        answer = (f"Too few positions to say, at threshold {threshold} with {field}: each of the {cells} cells "
                  f"has fewer than {min_positions} (--min-positions); play more --deals.")
    else:
        some = [f"{ACTION_WORDS[k]} in {count[k]}" for k in (first, second)] + [
            f"no difference shown in {count['either']}"]
        answer = (f"{ACTION_WORDS[first].capitalize()} or {ACTION_WORDS[second]}, at threshold {threshold} with "
                  f"{field}: of {cells} cells, {', '.join(some)}"
                  + (f"; {count['too few']} with fewer than {min_positions} positions "
                     f"{'is' if count['too few'] == 1 else 'are'} too few to say."
                     if count["too few"] else "."))
    rate = positions / seconds if seconds > 0 else 0.0
    return [answer,
            f"Gain = {second} - {first}, points per round for the seat deciding (positive: "
            f"{_FIRST_DOING.get(first, first)} scores less); a cell's answer needs its 95% CI over its positions to "
            "exclude 0.",
            f"Measured {positions:,} position{'s' if positions != 1 else ''} in {seconds:.1f} s "
            f"({rate:.1f} per second)."]


class _Null:
    def write(self, s):
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False
