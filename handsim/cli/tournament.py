"""``handsim tournament`` (rank policies in the duplicate format) and ``handsim tune`` (search a
policy's parameters on common random numbers, confirm on fresh deals)."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import click

from handsim.errors import InputError, PolicyFileError

from ._common import (PLAYERS_CHOICE, Command, IntIn, Words, ENGINE_COMPILE, classic_rules_options, command_line, engine_notice,
                      load_rules, parse_players, set_differs, speed_text, table)
from ._study_options import (DEFAULT_CHUNK, FORCE_HELP, MAX_CHUNK, MAX_DEALS, POLICY_FILE_OPTION, Terminated,
                             check_only, default_out, given, read_run_json, sigterm_stops)

#: Options that define a tournament / tuning run; --resume takes them from the saved run instead.
_T_SAVED = ("preset", "rules_file", "settings", "threshold", "policies", "policy_files", "players", "tables", "deals",
            "seed", "chunk")
_U_SAVED = ("preset", "rules_file", "settings", "threshold", "policy", "policy_files", "params", "against", "players",
            "deals", "seed", "chunk", "search", "trials", "batch", "confirm_deals", "confirm_seed")
_FLAG = {"preset": "--preset", "rules_file": "--rules", "settings": "--set", "threshold": "--threshold",
         "policies": "--policy", "policy_files": "--policy-file", "players": "--players", "tables": "--tables", "deals": "--deals", "seed": "--seed",
         "chunk": "--chunk", "policy": "POLICY", "params": "--param", "against": "--against", "search": "--search",
         "trials": "--trials", "batch": "--batch", "confirm_deals": "--confirm-deals", "confirm_seed": "--confirm-seed"}


def run_options(kind: str):
    """``--jobs``, ``--scheduler``, ``--chunk``, ``--out``, ``--force``, ``--resume``, ``--progress``, ``-q``."""
    what = {"tournament": "tournament", "tune": "tuning run"}[kind]
    options = [
        click.option("--jobs", type=IntIn(1, 512, "1..512"), default=None, help="Worker processes.  [default: all cores]"),
        click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="Run on a dask.distributed cluster (e.g. tcp://scheduler-host:8786); the same results."),
        click.option("--chunk", type=IntIn(1, MAX_CHUNK, "1..10^6"), default=DEFAULT_CHUNK, show_default=True,
                     help="Deals per work item (results do not depend on it)."),
        click.option("--out", type=click.Path(file_okay=False), default=None, metavar="DIR",
                     help=f"Output folder (must be new or empty; held by this run while it writes: a second run "
                          f"into it is refused).  [default: results/{kind}-YYYYmmdd-HHMMSS]"),
        click.option("--force", is_flag=True,
                     help=FORCE_HELP),
        click.option("--resume", type=click.Path(exists=True, file_okay=False), default=None, metavar="DIR",
                     help=f"Continue an interrupted {what} in DIR (with its saved arguments, and without --jobs the "
                          f"jobs it last ran with).  run.json keeps the starting command and lists the resumes; the "
                          f"speed printed counts only the rounds played now"
                          + {"tournament": " (a run.json whose labels are not those of its entries is refused).",
                             "tune": ".  Each stage keeps its checkpoint under DIR/stages/ with the tuning run's "
                                     "settings, and a resume replays the finished stages, so the search takes the "
                                     "same path; a run.json edited to play something else (confirm_deals, "
                                     "confirm_seed, strategy, against, ...) is refused, naming the field."}[kind]),
        click.option("--progress/--no-progress", default=None,
                     help="Show a progress bar on stderr.  [default: when stderr is a terminal]"),
        click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors."),
    ]

    def wrap(f):
        for opt in reversed(options):
            f = opt(f)
        return f

    return wrap


def _resume_folder(ctx, names, what: str, resume, out, force) -> Path:
    """The folder of --resume, after refusing options that would change the saved run."""
    clash = given(ctx, names)
    if clash:
        raise click.UsageError(f"--resume continues the saved {what} as it was: drop "
                               + ", ".join(_FLAG[n] for n in clash))
    if force:
        raise click.UsageError("--force and --resume exclude each other")
    if out is not None and Path(out).resolve() != Path(resume).resolve():
        raise click.UsageError("--resume DIR continues in DIR: drop --out")
    from handsim._io import refuse_if_in_use

    refuse_if_in_use(resume)  # a run still starting there has written nothing yet: the lock decides
    return Path(resume)


def _saved(folder: Path, kind: str) -> dict:
    run_json = folder / "run.json"
    if not run_json.exists():
        raise click.UsageError(f"nothing to resume in {folder}: no run.json there")
    d = read_run_json(run_json)
    if d.get("kind") != kind or not isinstance(d.get(kind), dict):
        what = {"tune": "tuning run"}.get(kind, kind)
        held = {"tune": "a tuning run", "tournament": "a tournament"}.get(
            d.get("kind"), "a study (handsim simulate)" if "spec" in d else "another kind of run")
        why = f"its '{kind}' field is missing or not an object" if d.get("kind") == kind else f"its run.json is of {held}"
        raise click.UsageError(f"{folder} holds no {what} (run.json of handsim {kind}): {why}")
    return d[kind]


def _why(e: Exception) -> str:
    """An exception from reading a saved spec, in a few words on one line."""
    text = " ".join(str(e).split())
    if isinstance(e, KeyError):
        return f"no field {text}"
    if isinstance(e, InputError):
        return text
    return f"{type(e).__name__}: {text}"[:300]


def _rules(preset, rules_file, settings, threshold, two_v_two):
    rules = load_rules(preset, rules_file, settings, partnership=two_v_two)
    if threshold is not None:
        if set_differs(settings, "opening_threshold", rules.opening_threshold, threshold):
            raise click.UsageError(f"--threshold {threshold} contradicts --set opening_threshold="
                                   f"{rules.opening_threshold}: give one of them")
        rules = rules.replace(opening_threshold=threshold)
    return rules


def _prepare(ctx, kind: str, spec, policies, out, resume, force, scheduler, jobs, progress, quiet):
    """Check the scheduler and that the policy files of ``policies`` (the run's policies) compile, make (or reopen) the output folder, write the starting run.json (what --resume
    reads; replaced by the full one at the end); returns ``(out, jobs, progress, history)``: ``jobs`` is
    --jobs, else for a resume the jobs the run last ran with (run.json), else all cores.

    ``history`` is the command that started the run (kept by every resume: it is the reproducible one)
    and the resumes (``"resumed"``: command and time, UTC), recorded in run.json at once (so that an
    interrupted resume is recorded too) and to be written with the results
    (:func:`handsim.study.run_history`)."""
    from handsim._io import atomic_write
    from handsim.policies import engine_of as engine_for
    from handsim.study import check_policy_files, check_scheduler, claim_out, run_history

    if scheduler is not None:
        check_scheduler(scheduler)
    check_policy_files(engine_for(policies))  # before --force deletes anything or the folder is made
    out = out if out is not None else default_out(kind)  # claimed for this process until the command ends
    out = ctx.with_resource(claim_out(out, resume=bool(resume), force=force, what=f"handsim {kind}"))
    if not resume:
        history = run_history(None, command_line(ctx), False)
        info = {"kind": kind, kind: spec.to_json(), "status": "running", **history}
    else:
        info = read_run_json(out / "run.json")
        history = run_history(info, command_line(ctx), True)
        info.update(history)
        saved = info.get("jobs")  # a resume without --jobs runs with the jobs the run last ran with
        if jobs is None and isinstance(saved, int) and not isinstance(saved, bool) and 1 <= saved <= 512:
            jobs = saved
    jobs = jobs or os.cpu_count() or 1
    history["jobs"] = info["jobs"] = jobs
    atomic_write(out / "run.json", (json.dumps(info, indent=2, sort_keys=True) + "\n").encode())
    if progress is None:
        progress = (not quiet) and sys.stderr.isatty()
    return out, jobs, progress, history


def _interrupted(ctx, out: Path, command: str, has_work: bool, e: KeyboardInterrupt | None = None) -> None:
    """Ctrl-C (exit 130) or ``kill PID`` (SIGTERM, exit 143: :class:`~handsim.cli._study_options.Terminated`)
    during a run: say what was kept."""
    what = "Terminated" if isinstance(e, Terminated) else "Interrupted"
    if getattr(e, "note", None):  # worker processes stopped: which policy did not return
        click.echo(f"\n{what}: {e.note}.", err=True)
    if has_work:
        click.echo(f"\n{what}: finished work is checkpointed in {out}; "
                   f"'handsim {command} --resume {shlex.quote(str(out))}' continues.", err=True)
    elif (Path(out) / "run.json").exists():  # set up (its run.json written first), nothing played yet
        click.echo(f"\n{what} before any work was finished; the run is set up in {out}: "
                   f"'handsim {command} --resume {shlex.quote(str(out))}' starts it.", err=True)
    else:
        click.echo(f"\n{what} before any work was finished: nothing to resume in {out}.", err=True)
    ctx.exit(143 if isinstance(e, Terminated) else 130)


def _compile_notice(quiet: bool, policies):
    """Within the block, the compile notice of the engine that plays ``policies`` (said when numba
    compiles it: the first stage's warm-up); none with --quiet."""
    from handsim.policies import engine_of as engine_for

    return engine_notice(engine_for(policies), "the simulation engine", ENGINE_COMPILE, quiet)


def _f(x, nd=1) -> str:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "-"
    return "-" if x != x else f"{x:.{nd}f}"


# ------------------------------------------------------------------------------ tournament

TOURNAMENT_HELP = """Rank policies: every policy against every other on the same deals, in the duplicate format.

Every deal is played at every seating of every table, so the luck of the cards and of the seats
cancels.  Tables (--tables pairs, the default): each pair of policies at equal strength - 2 players
A B; 3 players A A B and A B B; 4 players A A B B; 2v2 team A & A against B & B; --tables all:
every mix of policies (K^P seatings per deal).  Outputs in --out: ratings.csv (Bradley-Terry
ratings on the finishing order, Elo scale, 95% CI clustered by deal), crosstable.csv (every
pair: mean per-deal score difference with paired 95% CI, shares of deals ahead / tied / behind), tables.csv,
report.md with its figures (ratings.png, crosstable.png), the self-contained report.html,
run.json.

\b
Examples:
    $ handsim tournament --policy greedy --policy hold-hand --policy random --deals 5000
    $ handsim tournament --policy greedy --policy hold-hand:bail_turn=6 --players 3 --preset saudi --out t1
    $ handsim tournament --policy-file examples/policies/joker_keeper.py --policy joker-keeper --policy greedy
    $ handsim tournament --policy @results/hold-hand-bailout/vs-greedy/tune-51/best.toml --policy greedy --players 2v2
    $ handsim tournament --resume t1

\b
Exit codes: 0 done, 2 bad input, 130 interrupted (finished work is kept; --resume continues).
"""


@click.command(cls=Command, name="tournament", help=TOURNAMENT_HELP, short_help="Rank policies (duplicate format).")
@click.option("--policy", "policies", multiple=True, metavar="POLICY",
              help="A policy to rank, e.g. hold-hand:bail_turn=8 or @best.toml (repeat: at least two).  A policy "
                   "entered twice is named greedy#2 and comes out level with its copy on every deal.")
@POLICY_FILE_OPTION
@classic_rules_options
@click.option("--threshold", type=IntIn(), default=None, metavar="N",
              help="opening_threshold (the same as --set opening_threshold=N).")
@click.option("--players", type=PLAYERS_CHOICE, default="4", show_default=True,
              help="Seats per table: 2 to 5 single players, or 2v2 (partnership, partners opposite).")
@click.option("--tables", type=Words(["pairs", "all"]), default="pairs", show_default=True,
              help="Table design: pairs (each pair of policies at equal strength: K(K-1)/2 pairs x 2, 6, 6 or 2 "
                   "seatings per deal with 2, 3, 4 players or 2v2) or all (every mix; K^P seatings per deal).")
@click.option("--deals", type=IntIn(1, MAX_DEALS, "1..10^12"), default=10000, show_default=True,
              help="Deals, each played at every seating of every table.")
@click.option("--seed", type=IntIn(0, 2**63 - 1, "0..2^63-1"), default=0, show_default=True, help="Seed of the deals.")
@run_options("tournament")
@click.pass_context
def tournament(ctx, policies, policy_files, preset, rules_file, settings, threshold, players, tables, deals, seed, jobs, scheduler,
               chunk, out, force, resume, progress, quiet):
    from handsim.study import CHECKPOINT
    from handsim.tournament import TournamentSpec, make_tournament, run_tournament, write_tournament
    from handsim.tournament.best import expand_policy_ref

    if resume:
        out = _resume_folder(ctx, _T_SAVED, "tournament", resume, out, force)
        try:
            spec = TournamentSpec.from_json(_saved(out, "tournament"))
        except PolicyFileError as e:  # a policy file edited or moved since: the run is whole, but not resumable
            raise click.UsageError(f"cannot resume the tournament in {out}: {' '.join(str(e).split())}") from None
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as e:  # (a damaged or hand-edited run.json)
            raise click.UsageError(f"cannot resume the tournament in {out}: its run.json is damaged or incomplete "
                                   f"({_why(e)})") from None
        from handsim.study.checkpoint import load_checkpoint
        from handsim.tournament.accumulate import TournamentCounters

        load_checkpoint(out, spec.study(), TournamentCounters)  # damaged or foreign: refused before run.json changes
    else:
        if len(policies) < 2:
            raise click.UsageError("a tournament needs at least two policies: give --policy twice or more")
        n_players, two_v_two = parse_players(players)
        rules = _rules(preset, rules_file, settings, threshold, two_v_two)
        from handsim.policies import load_policy_files

        load_policy_files(policy_files)  # before the entries name their policies
        entries = [expand_policy_ref(p) for p in policies]
        spec = make_tournament(entries, "2v2" if two_v_two else n_players, rules, tables, deals, seed, chunk,
                               policy_files=policy_files)
        if not quiet:
            from handsim.tournament.best import tuned_notes

            for note in tuned_notes(policies, [rules], "2v2" if two_v_two else spec.players):
                click.echo(f"Note: {note}", err=True)
    if check_only(ctx):
        return spec
    notice = _compile_notice(quiet, spec.entries)  # the policy files' functions, then the engine: said once
    with notice:
        out, n_jobs, progress, history = _prepare(ctx, "tournament", spec, spec.entries, out, resume, force, scheduler,
                                                  jobs, progress, quiet)
    d = spec.design()
    if not quiet:
        fmt = "2 v 2" if spec.teams else f"{spec.players} players"
        click.echo(f"Tournament of {len(spec.entries)} policies ({', '.join(spec.labels)}), {fmt}, "
                   f"{len(d.tables)} tables with {len(d.lineups)} seatings × {spec.deals:,} deals = "
                   f"{len(d.lineups) * spec.deals:,} rounds; seed {spec.seed}, {n_jobs} job{'s' if n_jobs != 1 else ''} "
                   f"-> {out}")
    try:
        with sigterm_stops():  # kill PID: stop like Ctrl-C (finished chunks kept, workers stopped), exit 143
            with notice:
                result = run_tournament(spec, jobs=n_jobs, out=out, progress=progress, resume=bool(resume),
                                        scheduler=scheduler)
            result.run_info.update(history)
            write_tournament(result, out)
    except KeyboardInterrupt as e:
        _interrupted(ctx, out, "tournament", (Path(out) / CHECKPOINT).exists(), e)
    if quiet:
        return
    frames = result.frames()
    r = frames["ratings"]
    click.echo(table(["rank", "policy", "rating", "95% CI", "finished ahead"],
                     [[int(x["rank"]), x["policy"], _f(x["rating"], 0),
                       f"[{_f(x['rating_ci95_low'], 0)}, {_f(x['rating_ci95_high'], 0)}]",
                       f"{100 * x['score_share']:.1f}%"] for _, x in r.iterrows()]))
    click.echo(RATINGS_UNITS)
    c = frames["crosstable"]
    labels = list(spec.labels)
    rows = [[x["policy"], x["opponent"], _f(x["mean_diff"], 2), f"[{_f(x['ci95_low'], 2)}, {_f(x['ci95_high'], 2)}]",
             f"{100 * x['p_deal_ahead']:.1f}% / {100 * x['p_deal_tied']:.1f}% / {100 * x['p_deal_behind']:.1f}%"]
            for _, x in c.iterrows() if labels.index(x["policy"]) < labels.index(x["opponent"])]
    click.echo(table(["policy", "opponent", "score diff", "95% CI", "deals ahead / tied / behind"], rows))
    click.echo(crosstable_units(spec.teams))
    files = [f for f in ("report.md", "report.html", "ratings.csv", "crosstable.csv", "tables.csv", "ratings.png",
                         "crosstable.png", "run.json") if (out / f).exists()]
    click.echo(f"Results: {out}/ ({', '.join(files)})")
    click.echo(f"Speed: {speed_text(result, 'rounds')}, {n_jobs} job{'s' if n_jobs != 1 else ''}")


#: The line under the ratings table (the table's columns and their units, as simulate prints under its own).
RATINGS_UNITS = ("Units: rating: Elo scale, the policies' mean is 0 (95% CI: of the rating, relative to that mean); "
                 "finished ahead: share of its comparisons at the table (pairs of seats held by two policies) it "
                 "finished ahead in, ties counted half.")


def crosstable_units(teams: bool) -> str:
    """The line under the head-to-head table: its columns' units and which quantity its 95% CI is of."""
    from handsim.tournament.report import score_unit

    return (f"Units: score diff: the policy's mean score minus the opponent's, {score_unit(teams)} (below 0: the "
            "policy scores less; 95% CI: of score diff, the deal as unit); deals ahead / tied / behind: shares of "
            "deals whose total over the seatings where both sat was lower / the same / higher for the policy.")


def tune_units(teams: bool) -> str:
    """The line under the tuning table: its columns' units and which quantity each 95% CI is of."""
    from handsim.tournament.report import score_unit

    whose = "the tuned team's (both partners summed)" if teams else "the tuned player's"
    return (f"Units: mean score: {whose} {score_unit(teams)}, lower is better (the 95% CI after it: of mean score); "
            "vs default: mean score minus the defaults' on the same deals, in the same unit (the 95% CI after it: "
            "of vs default, paired over the same deals).")


# ------------------------------------------------------------------------------ tune

TUNE_HELP = """Tune a policy's parameters: every candidate on the same deals, the winner confirmed on fresh deals.

POLICY is the policy to tune (its values are the defaults every candidate is compared with, e.g.
hold-hand or hold-hand:bail_opponent_cards=3).  It sits at line-up position 1; --against gives the
other positions (2v2: the second of the three is the partner).  The objective is its mean score
per round (2v2: its team's), lower is better.  One or two --param: the full grid (NAME=LO:HI
takes every integer if the range holds at most 21 values, else an even step that gives at most
21; NAME=LO:HI:STEP sets the step).  Three or more: optuna's TPE sampler, seeded (--trials
proposals in batches of --batch).  The best candidate is then played against the defaults on
--confirm-deals fresh deals (seed --confirm-seed, default seed + 1) with a paired 95% CI, so the
winner's curse does not leak into the answer.  Outputs in --out: tune.csv, best.toml (use it as
--policy @best.toml), report.md with its figures (tune.png: a heat map for two parameters;
confirm.png), the self-contained report.html, run.json.

\b
Examples:
    $ handsim tune hold-hand --param bail_turn=4:20 --param bail_opponent_cards=0:10 \\
          --against greedy,greedy,greedy --threshold 71 --deals 20000 --out tune71
    $ handsim simulate --lineup @tune71/best.toml,greedy,greedy,greedy --threshold 71
    $ handsim tune --resume tune71

\b
Exit codes: 0 done, 2 bad input, 130 interrupted (finished work is kept; --resume continues).
"""


@click.command(cls=Command, name="tune", help=TUNE_HELP, short_help="Tune a policy's parameters.")
@click.argument("policy", required=False, metavar="POLICY")
@click.option("--param", "params", multiple=True, metavar="NAME=LO:HI[:STEP]",
              help="A parameter to tune and its range, e.g. bail_turn=4:20 (repeatable).  A grid has at most 2,000 "
                   "candidates; the defaults are always one (is_default in tune.csv).")
@click.option("--against", default=None, metavar="P1,P2,...",
              help="The other seats' policies, in line-up order after the tuned one.  [default: greedy at every "
                   "other seat]")
@POLICY_FILE_OPTION
@classic_rules_options
@click.option("--threshold", type=IntIn(), default=None, metavar="N",
              help="opening_threshold (the same as --set opening_threshold=N).")
@click.option("--players", type=PLAYERS_CHOICE, default=None,
              help="2, 3, 4 or 2v2.  [default: 1 + the policies in --against, else 4]")
@click.option("--deals", type=IntIn(1, MAX_DEALS, "1..10^12"), default=20000, show_default=True,
              help="Deals every candidate plays.")
@click.option("--seed", type=IntIn(0, 2**63 - 1, "0..2^63-1"), default=0, show_default=True,
              help="Seed of the tuning deals (and of the TPE sampler).")
@click.option("--search", type=Words(["auto", "grid", "tpe"]), default="auto", show_default=True,
              help="grid (every combination) or tpe (optuna); auto: grid for one or two parameters, else tpe.")
@click.option("--trials", type=IntIn(2, 10000, "2..10000"), default=64, show_default=True,
              help="TPE: candidates proposed (the defaults come on top).")
@click.option("--batch", type=IntIn(1, 1000, "1..1000"), default=8, show_default=True,
              help="TPE: candidates played together per batch (results do not depend on --jobs).")
@click.option("--confirm-deals", type=IntIn(1, MAX_DEALS, "1..10^12"), default=None,
              help="Fresh deals of the confirmation.  [default: --deals]")
@click.option("--confirm-seed", type=IntIn(0, 2**63 - 1, "0..2^63-1"), default=None,
              help="Seed of the confirmation deals.  [default: --seed + 1]")
@run_options("tune")
@click.pass_context
def tune(ctx, policy, params, against, policy_files, preset, rules_file, settings, threshold, players, deals, seed, search, trials,
         batch, confirm_deals, confirm_seed, jobs, scheduler, chunk, out, force, resume, progress, quiet):
    from handsim.tournament.best import expand_lineup_refs, expand_policy_ref
    from handsim.tournament.report import score_unit
    from handsim.tournament.tune import TuneSpec, make_tune, run_tune, write_tune

    if resume:
        out = _resume_folder(ctx, _U_SAVED, "tuning run", resume, out, force)
        try:
            spec = TuneSpec.from_json(_saved(out, "tune"))
        except PolicyFileError as e:  # a policy file edited or moved since: the run is whole, but not resumable
            raise click.UsageError(f"cannot resume the tuning run in {out}: {' '.join(str(e).split())}") from None
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as e:  # (a damaged or hand-edited run.json)
            raise click.UsageError(f"cannot resume the tuning run in {out}: its run.json is damaged or incomplete "
                                   f"({_why(e)})") from None
        from handsim.tournament.tune import check_stages

        check_stages(spec, out)  # a damaged stage, or one of another run: refused before run.json changes
    else:
        if not policy:
            raise click.UsageError("give the POLICY to tune, e.g. handsim tune hold-hand --param bail_turn=4:20")
        if not params:
            raise click.UsageError("nothing to tune: give at least one --param NAME=LO:HI, e.g. --param bail_turn=4:20")
        from handsim.policies import load_policy_files

        load_policy_files(policy_files)  # before POLICY and --against name their policies
        n_players, two_v_two = parse_players(players)
        rules = _rules(preset, rules_file, settings, threshold, two_v_two)
        others = expand_lineup_refs(against) if against else None
        spec = make_tune(expand_policy_ref(policy), list(params), others, rules,
                         "2v2" if two_v_two else n_players, deals, seed, chunk, search, trials, batch,
                         confirm_deals, confirm_seed, policy_files=policy_files)
    if check_only(ctx):
        return spec
    notice = _compile_notice(quiet, [spec.base, *spec.against])  # the policy files' functions, then the engine: said once
    with notice:
        out, n_jobs, progress, history = _prepare(ctx, "tune", spec, [spec.base, *spec.against], out, resume, force,
                                                  scheduler, jobs, progress, quiet)
    if not quiet:
        what = ("grid" if spec.strategy == "grid" else f"TPE, {spec.trials} trials in batches of {spec.batch}")
        click.echo(f"Tuning {spec.base.label} ({', '.join(r.name + ' ' + r.text() for r in spec.ranges)}; {what}) "
                   f"against {','.join(a.label for a in spec.against)}, rules {spec.rules.note()}, "
                   f"{spec.deals:,} deals, seed {spec.seed}, {n_jobs} job{'s' if n_jobs != 1 else ''} -> {out}")
    log = None if quiet else (lambda text: click.echo(text, err=True))
    try:
        with sigterm_stops():
            with notice:
                result = run_tune(spec, jobs=n_jobs, out=out, progress=progress, resume=bool(resume),
                                  scheduler=scheduler, log=log)
            result.run_info.update(history)
            write_tune(result, out)
    except KeyboardInterrupt as e:
        _interrupted(ctx, out, "tune", (out / "stages").is_dir(), e)
    if quiet:
        return
    df = result.tune.sort_values("rank").head(5)
    click.echo(table(["rank", "candidate", "mean score", "95% CI", "vs default", "95% CI"],
                     [[int(r["rank"]), r["label"], _f(r["mean_score"], 2),
                       f"[{_f(r['ci95_low'], 2)}, {_f(r['ci95_high'], 2)}]", _f(r["diff_vs_default"], 2),
                       f"[{_f(r['diff_ci95_low'], 2)}, {_f(r['diff_ci95_high'], 2)}]"] for _, r in df.iterrows()]))
    click.echo(tune_units(spec.teams))
    from handsim.tournament.report import _edge_notes

    best = result.tune[result.tune["is_best"]]
    for note in (_edge_notes(spec, result.tune, best.iloc[0]) if len(best) else []):
        click.echo(f"Note: {note.replace('`', '')}")
    c = result.confirm
    if c is None:
        click.echo("The defaults were the best candidate: nothing to confirm.")
    else:
        click.echo(f"Confirmation on {c['deals']:,} fresh deals (seed {c['seed']}): {c['best']} minus {c['default']} = "
                   f"{_f(c['diff'], 2)} {score_unit(spec.teams)}, 95% CI [{_f(c['diff_ci95_low'], 2)}, "
                   f"{_f(c['diff_ci95_high'], 2)}]")
    files = [f for f in ("report.md", "report.html", "tune.csv", "best.toml", "tune.png", "confirm.png", "run.json")
             if (out / f).exists()]
    click.echo(f"Results: {out}/ ({', '.join(files)})")
    click.echo(f"Speed: {speed_text(result, 'rounds')}, {n_jobs} job{'s' if n_jobs != 1 else ''}")


def rebuild_report(out: Path, quiet: bool, formats=("md", "html")) -> None:
    """``handsim report DIR`` for a tournament or tuning folder: a tournament's tables, figures and report from
    its checkpoint (also of an interrupted tournament: the deals finished so far); a finished tuning run's
    from the checkpoints of its stages (nothing is played again)."""
    from handsim._io import FolderLock
    from handsim.study import CHECKPOINT, read_checkpoint
    from handsim.study.spec import canonical_spec, spec_difference
    from handsim.tournament import TournamentSpec, write_tournament
    from handsim.tournament.accumulate import TournamentCounters
    from handsim.tournament.core import TournamentResult

    from ._study_options import record_warnings, unknown_fields

    info = read_run_json(out / "run.json")
    if info.get("kind") == "tune":
        return _rebuild_tune(out, info, quiet, formats)
    ck = out / CHECKPOINT
    if not ck.is_file():
        raise click.UsageError(f"{out}: no {CHECKPOINT} yet (the tournament finished no work)")
    try:  # a report redraws: the policy files are not loaded (nor needed, edited or moved since)
        spec = TournamentSpec.saved(info["tournament"])
        study = spec.saved_study()
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise click.UsageError(f"cannot read the tournament in {out}/run.json: {' '.join(str(e).split())}") from None
    saved = read_checkpoint(ck, TournamentCounters, policies=False)  # damaged or foreign: one line (StudyError)
    if canonical_spec(saved.spec) != canonical_spec(study):
        raise click.UsageError(f"{out}/run.json and {ck} belong to different tournaments "
                               f"({spec_difference(study, saved.spec)}): restore the matching file or run the "
                               "tournament again")
    counters = saved.accumulator
    if counters.deals() == 0:
        raise click.UsageError(f"{out}: the tournament finished no deals yet: nothing to report")
    # what the checkpoint and the checked spec determine wins over run.json's record of it, each
    # field that differs named (an edited run.json is not reported silently)
    truth = {"deals": spec.deals, "seed": spec.seed, "players": spec.players,
             "rules": json.loads(json.dumps(study.rules.to_dict())), "games_per_deal": len(spec.design().lineups)}
    if counters.deals() < spec.deals:  # interrupted: the timing of a finished run does not apply
        info = {k: v for k, v in info.items() if k not in ("rounds_played", "seconds", "rounds_per_s")}
    else:
        truth.update(rounds_played=saved.rounds, seconds=round(saved.seconds, 3),
                     rounds_per_s=round(saved.rounds / saved.seconds, 1) if saved.seconds > 0 and saved.rounds else None)
    warnings = record_warnings(info, truth, out / "run.json")
    info = {**info, **truth}
    warnings += unknown_fields(dict(info), info, _TOURNAMENT_FIELDS, out / "run.json", "a tournament")
    for line in warnings:
        click.echo(f"Warning: {line}", err=True)
    with FolderLock(out).acquire("handsim report"):
        path = write_tournament(TournamentResult(spec, counters, info), out, formats=formats)
    if not quiet:
        click.echo(f"Report: {_report_paths(out, formats)} ({counters.deals():,} deals)")


#: run.json fields a tournament writes (handsim.study.runner, handsim.tournament.core, the run history).
_TOURNAMENT_FIELDS = frozenset({"kind", "tournament", "status", "command", "resumed", "jobs", "deals", "seed", "players",
                                "rules", "games_per_deal", "rounds_played", "seconds", "rounds_per_s", "policies",
                                "version", "python", "numba", "machine"})
#: run.json fields a tuning run writes (handsim.tournament.tune, the run history).
_TUNE_FIELDS = frozenset({"kind", "tune", "status", "command", "resumed", "jobs", "rounds_played", "seconds",
                          "candidates", "best", "confirm", "figure", "version", "python", "numba", "machine"})


def _report_paths(out: Path, formats) -> str:
    return ", ".join(str(out / f"report.{f}") for f in formats)


def _rebuild_tune(out: Path, info: dict, quiet: bool, formats) -> None:
    from handsim._io import FolderLock
    from handsim.tournament.tune import TuneResult, TuneSpec, TuneUnfinished, run_tune, write_tune

    from ._study_options import record_warnings, unknown_fields

    try:
        spec = TuneSpec.from_json(info["tune"])
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as e:
        raise click.UsageError(f"cannot read the tuning run in {out}/run.json: {' '.join(str(e).split())}") from None
    with FolderLock(out).acquire("handsim report"):
        try:
            replayed = run_tune(spec, out=out, replay=True, executor="inline")
        except TuneUnfinished as e:
            raise click.UsageError(f"{out}: the tuning run is not finished ({e}): 'handsim tune --resume "
                                   f"{shlex.quote(str(out))}' finishes it") from None
        saved = {k: v for k, v in info.items() if k != "status"}  # its command, not the replay's
        # what the stages' checkpoints determine wins over run.json's record of it, each field named
        truth = {k: replayed.run_info[k] for k in ("rounds_played", "seconds", "candidates")}
        warnings = unknown_fields(dict(saved), saved, _TUNE_FIELDS, out / "run.json", "a tuning run")
        write_tune(TuneResult(spec, replayed.tune, replayed.confirm, {**saved, **truth}), out, formats=formats)
        written = read_run_json(out / "run.json")
        truth.update((k, written.get(k)) for k in ("best", "confirm", "figure"))
        warnings = record_warnings(saved, truth, out / "run.json", "the stages' checkpoints") + warnings
    for line in warnings:
        click.echo(f"Warning: {line}", err=True)
    if not quiet:
        click.echo(f"Report: {_report_paths(out, formats)} ({len(replayed.tune):,} candidates)")
