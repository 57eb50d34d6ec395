"""``handsim equity``: the match equity table of a field (issue 26 part 3)."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import Command, IntIn, compile_notice, compiling

#: How long the Monte Carlo kernel takes to compile from an empty kernel cache (measured: 5 s of CPU, 12 s
#: on a loaded machine).
EQUITY_COMPILE = "5 to 30 seconds"

EQUITY_HELP = """The chance of winning a match from given standings, from a field's round outcomes.

STUDY is a folder of `handsim simulate --per-deal` (classic Hand's presets): its deals are the
field's round outcomes.  Each round left in the match is one of those deals drawn at random, the
start moving round by round as the study's rules move it (dealer_rotation); after the last round
the lowest total wins and a shared lowest total plays extra rounds until it breaks (RULES.md
section 7).  Two sides (2 players, or 2 v 2) are computed exactly by dynamic programming; 3 to 5
single players by --samples Monte Carlo continuations (with a standard error), which also give
the chance of losing under standings=last_loses.  The confidence intervals add to the Monte
Carlo's error what the study's finite sample of rounds adds (--bootstrap replicates of it).

The model treats the rounds of a match as independent draws of the field's rounds: it is exact
for players that do not change their play by the score (every built-in policy) and says nothing
about players that would.

Without --standings it writes, into --out (a new or empty folder): match_equity.csv (one row per
rounds left, lead and who starts next: --position's chance of winning the match when it leads
every opponent by LEAD points, the opponents level; a negative lead is a deficit; seat_next is its
seat in the next round counted from the starter as summary.csv's seat: 0 = it starts, 1 = it plays
second...) and match_equity.png.  With --standings it prints each position's chances from those
totals.  Line-up positions are numbered from 1, as in tournaments, tuning and reports (--position, --starter,
the order of --standings and --wins, the lines printed; 2 v 2: team A = positions 1 & 3).

A study of several configurations or line-ups (the default study has 6 x 2): choose one with
--config and --lineup (numbered from 0 as in its per_deal/ files; left out, the refusal lists them).

\b
Examples:
    $ handsim simulate --policy card-reader --deals 20000 --per-deal --out runs/field
    $ handsim equity runs/field --out runs/equity
    $ handsim equity runs/field --standings 120,60,90,150 --rounds-left 2 --starter 2
"""


@click.command(cls=Command, name="equity", help=EQUITY_HELP, short_help="Match equity from a field's round outcomes.")
@click.argument("study", type=click.Path(file_okay=False, exists=True), metavar="STUDY")
@click.option("--out", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Output folder of the table (new or empty: nothing is overwritten).")
@click.option("--config", "config_i", type=IntIn(0, 10**6, "0..10^6"), default=None,
              help="The study's configuration (0 first, as the config column of its per_deal/ files); needed when it has "
                   "several (left out, the refusal lists them, e.g. 0 = opening_threshold=51, joker_penalty=15).")
@click.option("--lineup", "lineup_i", type=IntIn(0, 10**6, "0..10^6"), default=None,
              help="The study's line-up (0 first, as its --lineup options were given); needed when it has "
                   "several (left out, the refusal lists them, e.g. 0 = card-reader×4).")
@click.option("--position", type=IntIn(1, 5, "1..5"), default=1, show_default=True,
              help="The line-up position (1 first) whose chances the table gives.")
@click.option("--rounds", type=IntIn(1, 100, "1..100"), default=None,
              help="Rounds left at most in the table.  [default: the study's rules' rounds]")
@click.option("--lead-max", type=IntIn(0, 2000, "0..2000"), default=200, show_default=True,
              help="The table's leads run from -LEAD_MAX to LEAD_MAX points.")
@click.option("--lead-step", type=IntIn(1, 1000, "1..1000"), default=10, show_default=True,
              help="Points between the table's leads.")
@click.option("--samples", type=IntIn(100, 10**8, "100..10^8"), default=50000, show_default=True,
              help="Monte Carlo continuations per cell (3 to 5 single players).")
@click.option("--seed", type=IntIn(0, 2**63 - 1, "0..2^63-1"), default=0, show_default=True,
              help="Seed of the continuations (the same seed draws the same ones for every cell).")
@click.option("--bootstrap", type=IntIn(0, 1000, "0..1000"), default=10, show_default=True,
              help="Bootstrap replicates of the study's rounds for the confidence intervals (what the finite "
                   "sample of rounds adds to the Monte Carlo's own error); 0: none.")
@click.option("--standings", default=None, metavar="T1,T2,...",
              help="Each line-up position's total so far (points), position 1 first: print the chances from there.")
@click.option("--rounds-left", type=IntIn(0, 100, "0..100"), default=1, show_default=True,
              help="With --standings: regular rounds still to play.")
@click.option("--starter", type=IntIn(1, 5, "1..5"), default=1, show_default=True,
              help="With --standings: the line-up position (1 first) that starts the next round.")
@click.option("--wins", default=None, metavar="W1,W2,...",
              help="With --standings: rounds won so far by each position (a tie for last place under "
                   "standings=last_loses).  [default: 0 each]")
def equity(study, out, config_i, lineup_i, position, rounds, lead_max, lead_step, samples, seed, bootstrap,
           standings, rounds_left, starter, wins):
    import io
    import time

    import numpy as np

    from handsim._io import atomic_write, refuse_if_in_use

    folder = Path(study)
    refuse_if_in_use(folder)
    eq, rules, players, labels, pool = _pool(folder, config_i, lineup_i)
    if position > players:
        raise click.UsageError(f"--position {position} is not a line-up position (allowed: 1..{players})")
    if getattr(rules, "elimination_score", 0):
        raise click.UsageError(f"the study's rules have elimination_score={rules.elimination_score}: match equity is "
                               "worked out for matches of `rounds` rounds only, for now")
    compiling(compile_notice("the match equity kernel", EQUITY_COMPILE), eq.warm_up)
    kw = dict(highest_scorer=rules.dealer_rotation == "highest_scorer", dealer_right=rules.starter == "dealer_right")
    partnership = bool(rules.partnership)
    last_loses = rules.standings == "last_loses"
    if standings is not None:
        tot = _ints(standings, "--standings", players)
        w = _ints(wins, "--wins", players) if wins is not None else None
        if starter > players:
            raise click.UsageError(f"--starter {starter} is not a line-up position (allowed: 1..{players})")
        first = starter - 1  # the kernels number the positions from 0
        _warn_if_few(pool)
        click.echo(f"From totals {','.join(map(str, tot))}, {rounds_left} round(s) left, position {starter} to start; "
                   f"{pool.rounds:,} rounds of the field {','.join(labels)}:")
        for me in range(players):
            def chances(pl_, me=me):
                if partnership:
                    return _team(eq, pl_, tot, first, rounds_left, me, kw), 0.0, 0.0
                p, lose, se = eq.equity_mc(pl_, tot, first, rounds_left, me, samples, seed, last_loses=last_loses,
                                           wins=w, **kw)
                return float(p[0]), float(lose[0]), float(se[0])

            p, lose, se = chances(pool)
            reps = [chances(pool.resample(seed * 1000003 + b + 1)) for b in range(bootstrap)]
            pool_se = float(np.std([x[0] for x in reps], ddof=1)) if bootstrap > 1 else 0.0
            half = 1.96 * (se ** 2 + pool_se ** 2) ** 0.5
            who = f"team {'AB'[me % 2]}, positions {me % 2 + 1} & {me % 2 + 3}" if partnership else labels[me]
            ci = f" (95% CI {max(p - half, 0):.1%} to {min(p + half, 1):.1%})" if half > 0 else ""
            click.echo(f"  position {me + 1} ({who}): wins {p:.1%}{ci}" + (f", loses {lose:.1%}" if last_loses else ""))
        return
    if out is None:
        raise click.UsageError("give --out DIR for the table, or --standings for one position's chances")
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise click.UsageError(f"--out {out} is not a new or empty folder (equity never overwrites)")
    R = rounds or int(rules.rounds)
    _warn_if_few(pool)
    t0 = time.time()
    import sys

    with click.progressbar(length=R * (1 + bootstrap), label="rounds left x tables", file=sys.stderr if sys.stderr.isatty() else io.StringIO()) as bar:
        tab = eq.equity_table(pool, R, me=position - 1, partnership=partnership, last_loses=last_loses,
                              lead_max=lead_max, lead_step=lead_step, samples=samples, seed=seed,
                              bootstrap=bootstrap, progress=bar.update, **kw)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "match_equity.csv", tab.to_csv(index=False, float_format="%.5f").encode())
    fig = eq.equity_figure(tab, f"{', '.join(labels)}: {pool.rounds:,} rounds of the field; position {position}")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    atomic_write(out / "match_equity.png", buf.getvalue())
    even = tab[(tab["lead"] == 0) & (tab["rounds_left"] == R)]["p_win"].mean()
    click.echo(f"{len(tab):,} cells from {pool.rounds:,} rounds in {time.time() - t0:.1f} s "
               f"({'exact' if tab['method'].iloc[0] == 'dp' else f'{samples:,} continuations each'}); "
               f"level with {R} round(s) left: wins {even:.1%}: {out}")


def _warn_if_few(pool) -> None:
    """Say on stderr when the field's rounds are too few for the table's chances to be trusted."""
    per = pool.rounds if pool.symmetric else pool.rounds // pool.players
    if per < 2000:
        click.echo(f"Warning: only {per:,} rounds per starter in the study: the chances follow those few rounds "
                   f"closely (at least 20,000 deals are advised)", err=True)


def _team(eq, pool, tot, starter, rounds_left, me, kw) -> float:
    d = (tot[(me + 1) % 4] + tot[(me + 3) % 4]) - (tot[me] + tot[(me + 2) % 4])  # the other team - mine
    lead_max = abs(d)
    E = eq.equity_two_sides(pool, me, max(rounds_left, 0), True, kw["highest_scorer"], kw["dealer_right"],
                            lead_max)
    return float(E[rounds_left, starter, lead_max + d])


def _ints(text: str, what: str, n: int) -> list[int]:
    parts = [p.strip() for p in text.split(",")]
    try:
        vals = [int(p) for p in parts]
    except ValueError:
        raise click.UsageError(f"{what} {text!r} is not {n} whole numbers separated by commas") from None
    if len(vals) != n:
        raise click.UsageError(f"{what} gives {len(vals)} numbers for {n} line-up positions")
    if any(abs(v) > 10**6 for v in vals):
        raise click.UsageError(f"{what}: each number must be within -10^6..10^6")
    return vals


def _pool(folder: Path, config_i, lineup_i):
    """The game's equity module, the study's rules, players, line-up labels and :class:`RoundPool` of the chosen configuration
    and line-up."""
    from handsim.study import CHECKPOINT, read_checkpoint

    ck_path = folder / CHECKPOINT
    if not ck_path.is_file():
        raise click.UsageError(f"{folder} is not a study folder: no {CHECKPOINT} (written by handsim simulate)")
    ck = read_checkpoint(ck_path, policies=False)
    spec = ck.spec
    eq = spec.game.equity()
    if eq is None:
        raise click.UsageError(f"{folder} is a study of {spec.game.name}: match equity is for classic Hand's presets "
                               "(a match of scored rounds)")
    per_deal = folder / "per_deal"
    if not per_deal.is_dir() or not any(per_deal.glob("*.parquet")):
        raise click.UsageError(f"{folder} has no per-deal rows: run the study with --per-deal "
                               "(handsim simulate ... --per-deal --out FOLDER)")
    configs = spec.configs()
    config_names, lineup_names = study_choices(spec)
    ci = _choose(config_i, config_names, "--config", "configurations")
    li = _choose(lineup_i, lineup_names, "--lineup", "line-ups")
    rows = read_per_deal(per_deal, ci, li, ["deal", "seat", "position", "policy", "score", "went_out"], ck)
    from handsim.errors import InputError

    try:
        pool = eq.round_pool(rows, spec.players)
    except InputError as e:
        raise click.UsageError(f"{folder}: {e}") from None
    return eq, configs[ci], spec.players, pool.labels, pool


def read_per_deal(per_deal: Path, config: int, lineup: int, columns: list[str], ck=None):
    """The per-deal rows of one configuration and line-up of a study's ``per_deal/`` folder (a
    pandas DataFrame of ``columns``); a damaged or foreign file, or a missing column, is one line
    (:class:`click.UsageError`) naming the folder.  With the study's checkpoint ``ck`` (classic
    Hand's), the rows must be those its counters counted (issue 23, cause 1's kind): per seat, its
    rounds, points and rounds gone out (``seat``'s sums over the policies); ``columns`` must then
    hold ``seat``, ``score`` and ``went_out``."""
    import pandas as pd
    import pyarrow

    try:
        rows = pd.read_parquet(per_deal, filters=[("config", "==", config), ("lineup", "==", lineup)], columns=columns)
    except (OSError, ValueError, KeyError, pyarrow.ArrowException) as e:
        why = " ".join(str(e).split())
        raise click.UsageError(f"{per_deal} cannot be read as a study's per-deal rows (damaged, or not written by "
                               f"handsim simulate --per-deal): {type(e).__name__}: {why[:200]}") from None
    if ck is not None:
        why = ck.spec.game.equity().per_deal_mismatch(rows, ck.accumulator, config, lineup)
        if why:
            raise click.UsageError(f"{per_deal} {why}")
    return rows


#: Most choices a refusal of --config / --lineup lists (then how many more).
_LISTED = 12


def study_choices(spec) -> tuple[list[str], list[str]]:
    """A study's configurations and line-ups in words, in the order ``--config`` / ``--lineup`` number them (0
    first, as the ``config`` and ``lineup`` columns of its ``per_deal/`` files): ``opening_threshold=51,
    joker_penalty=15`` (``the study's rules`` when nothing varies) and ``hold-hand,card-reader×3``."""
    from handsim.options import fmt_value

    from ._study_options import short_lineup

    configs = [", ".join(f"{k}={fmt_value(v)}" for k, v in d.items()) or "the study's rules"
               for d in spec.config_dicts()]
    return configs, [short_lineup([p.label for p in lu]) for lu in spec.lineups]


def _listed(names: list[str]) -> str:
    shown = "; ".join(f"{i} = {t}" for i, t in enumerate(names[:_LISTED]))
    return shown + (f"; ... {len(names) - _LISTED} more, to {len(names) - 1}" if len(names) > _LISTED else "")


def _choose(i, names: list[str], flag: str, what: str) -> int:
    """The index ``flag`` chose among the study's ``names`` (configurations or line-ups); one line listing them
    when it is missing (and there are several) or out of range."""
    n = len(names)
    if i is None:
        if n > 1:
            raise click.UsageError(f"the study has {n} {what}: choose one with {flag} (allowed: {_listed(names)})")
        return 0
    if i >= n:
        raise click.UsageError(f"{flag} {i} is not one of the study's {n} {what} (allowed: {_listed(names)})")
    return i
