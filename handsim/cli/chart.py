"""``handsim chart``: a decision chart (issue 26 part 1) - paired rollouts at the decision points of
a field's deals, grouped into cells of what a player can see."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import (CHART_COMPILE, Command, IntIn, classic_rules_options, compile_notice, compiling, load_rules,
                      preset_name, rules_note)

CHART_HELP = """A basic-strategy chart of one decision (when to open), measured by paired rollouts.

It plays --deals deals with the field (--lineup, one policy per seat: greedy, card-reader or
hold-hand) and, at every decision point of the class, evaluates each alternative from that exact
position by paired rollouts: the same --worlds sampled hidden worlds (the cards the seat cannot
place dealt again consistently with what it has seen) for each alternative, then the field's
policies to the end of the round.  It prints the answer first: in how many cells (groups of
positions by --rows and --cols) one action scores less (open now, or wait), neither is shown
(the 95% CI holds 0) or too few positions were met to say.

--decision open: the seat is unopened and could now lay an opening that reaches what it needs
(RULES.md section 4); "open" lays the least-deadwood opening, "wait" lays nothing this turn, both
then discard as card-reader does.  The gain is wait - open in points per round for that seat
(lower is better in Hand): a positive gain says open now.

It writes, into --out (a new or empty folder): positions.csv (one row per position: the features a
player can see and the paired mean difference), chart.csv (one row per cell: positions, the better
action, the mean gain with a 95% CI over positions; "either" where the CI holds 0, "too few" under
--min-positions) and chart.png.  Reproducible from --seed and independent of --jobs.

\b
Examples:
    $ handsim chart --decision open --deals 2000 --worlds 16 --out charts/open-51
    $ handsim chart --decision open --threshold 71 --lineup card-reader,card-reader,greedy,greedy \\
          --out charts/open-71

\b
The first run compiles the rollouts (about a minute, announced on stderr).  Exit codes: 0 done,
2 bad input (one line: what was wrong and what is allowed).
"""


@click.command(cls=Command, name="chart", help=CHART_HELP, short_help="A decision chart by paired rollouts.")
@click.option("--decision", type=click.Choice(["open"]), default="open", show_default=True,
              help="The decision class: open (open now vs wait).")
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
@click.option("--rows", type=click.Choice(["own_turn", "cards", "jokers", "fewest_opponent", "opened_opponents"]),
              default="own_turn", show_default=True, help="The chart's row feature.")
@click.option("--cols", type=click.Choice(["open_points", "cards", "jokers", "fewest_opponent", "opened_opponents"]),
              default="open_points", show_default=True, help="The chart's column feature.")
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
    charts = game_for_preset(preset).chart()
    if charts is None:
        raise click.UsageError("this game has no decision charts (allowed: the presets of classic Hand)")
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise click.UsageError(f"--out {out} is not a new or empty folder (a chart never overwrites)")
    charts.check_field(rules, lineup)  # bad line-ups before any work
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
                      progress=bar.update)
    dt = time.time() - t0
    tab = charts.cells(pos, rows, cols, min_positions)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "positions.csv", pos.to_csv(index=False).encode())
    atomic_write(out / "chart.csv", tab.to_csv(index=False, float_format="%.3f").encode())
    thr = int(rules.opening_threshold)
    fig = charts.chart_figure(tab, rows, cols, f"Open now vs wait at {thr}: {lineup}\n{deals} deals, {worlds} worlds, "
                                        f"seed {seed}; gain = wait - open, points per round")
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    atomic_write(out / "chart.png", buf.getvalue())
    for line in summary_lines(tab, len(pos), thr, _field_text(lineup), min_positions, dt):
        click.echo(line)
    click.echo(f"Results: {out}/ (chart.csv, chart.png, positions.csv)")


def _field_text(lineup: str) -> str:
    from ._study_options import short_lineup

    return short_lineup([p.strip() for p in lineup.split(",")])


#: An action of a chart's ``better`` column in the terminal summary's words.
ACTION_WORDS = {"open": "open now", "wait": "wait"}


def summary_lines(tab, positions: int, threshold: int, field: str, min_positions: int, seconds: float) -> list[str]:
    """The terminal summary of a chart: the answer in words first (cells where opening now, waiting, neither or
    too few positions), then what the gain is, then the measurement's size and speed.

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
    """
    better = [str(b) for b in tab["better"]] if len(tab) else []
    count = {k: better.count(k) for k in ["open", "wait", "either", "too few"] + better}
    actions = [k for k in count if k not in ("either", "too few")]  # the decision's actions (open: open, wait)
    cells = len(tab)
    if cells == 0:
        answer = (f"No position of the decision was met at threshold {threshold} with {field}: the chart is empty "
                  "(more --deals, or a lower threshold, meet some).")
    elif count["too few"] == cells:
        answer = (f"Too few positions to say, at threshold {threshold} with {field}: each of the {cells} cells "
                  f"has fewer than {min_positions} (--min-positions); play more --deals.")
    else:
        some = [f"{ACTION_WORDS.get(k, k)} in {count[k]}" for k in actions] + [
            f"no difference shown in {count['either']}"]
        answer = (f"{' or '.join(ACTION_WORDS.get(k, k) for k in actions).capitalize()}, at threshold {threshold} with {field}: of {cells} cells, {', '.join(some)}"
                  + (f"; {count['too few']} with fewer than {min_positions} positions "
                     f"{'is' if count['too few'] == 1 else 'are'} too few to say."
                     if count["too few"] else "."))
    rate = positions / seconds if seconds > 0 else 0.0
    return [answer,
            "Gain = wait - open, points per round for the seat deciding (positive: opening now scores less); "
            "a cell's answer needs its 95% CI over its positions to exclude 0.",
            f"Measured {positions:,} position{'s' if positions != 1 else ''} in {seconds:.1f} s "
            f"({rate:.1f} per second)."]


class _Null:
    def write(self, s):
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False
