"""``handsim simulate`` (run a study) and ``handsim report`` (rebuild a study's report)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from ._common import (GAME_PLAYERS_CHOICE, STANDINGS, Command, IntIn, Words, ENGINE_COMPILE, command_line, engine_notice,
                      dump_json, parse_players, preset_name, report_progress, rules_note, rules_options,
                      speed_text)
from ._study_options import (DEFAULT_CHUNK, DEFAULT_DEALS, DEFAULT_POLICY, FORCE_HELP, MAX_CHUNK, MAX_DEALS,  # noqa: F401
                             POLICY_FILE_OPTION, STUDY_FLAGS, STUDY_OPTIONS, Terminated, check_only, default_out, given,
                             read_run_json, record_warnings, short_lineup, shown_value, sigterm_stops, unknown_fields)

#: Options that --resume and --from take from the saved study instead.
_SAVED_OPTIONS = STUDY_OPTIONS + ("players", "deals", "seed", "chunk", "matches", "rounds", "standings")


def _saved_spec(folder: Path):
    """The StudySpec saved in a study folder: run.json's "spec", else the checkpoint's."""
    from handsim._io import refuse_if_in_use
    from handsim.study import CHECKPOINT, read_checkpoint, spec_difference

    refuse_if_in_use(folder)  # a study still starting there has written nothing yet
    run_json = folder / "run.json"
    ck = folder / CHECKPOINT
    if run_json.exists():
        saved = read_run_json(run_json)
        spec = _spec_from_run(saved, run_json, doing=f"cannot resume {folder}")
        # an edited run.json "spec" (the study driver's load_checkpoint names the field too, but only
        # after _check_record below, which would blame the top-level record instead, and it
        # says nothing of run.json): refused here, naming the field and both files
        if ck.exists():
            differs = spec_difference(_spec_from_run(saved, run_json, policies=False),
                                      read_checkpoint(ck, policies=False).spec)
            if differs:
                raise click.UsageError(f"{run_json} and {ck} belong to different studies ({differs}): --resume "
                                       "would continue one study's chunks with the other's deals; restore the "
                                       "matching file, or start a new study with --out")
        _check_record(saved, spec, run_json)  # else a resume would rewrite the edited record silently
        return spec
    if ck.exists():
        return read_checkpoint(ck).spec
    raise click.UsageError(f"{folder} is not a study folder: no run.json or {CHECKPOINT} in it")


def _spec_from_run(d: dict, where, policies: bool = True, doing: str | None = None) -> "StudySpec":
    """The StudySpec of a run.json object (library errors in it propagate as usage errors);
    without ``policies``, the :class:`~handsim.study.spec.SavedStudy` (its policy files not loaded).
    ``doing`` ("cannot resume FOLDER") heads the refusal of a policy file edited or moved since."""
    from handsim.errors import PolicyFileError
    from handsim.study import StudySpec
    from handsim.study.spec import SavedStudy

    if "spec" not in d:
        raise click.UsageError(f"{where} holds no study \"spec\": it was not written by handsim simulate")
    try:
        return (StudySpec if policies else SavedStudy).from_json(d["spec"])
    except PolicyFileError as e:
        raise click.UsageError(f"{doing or where}: {' '.join(str(e).split())}") from None
    except ValueError as e:  # StudyError, RulesError, PolicyError: one line naming the field
        raise click.UsageError(f"{where}: {' '.join(str(e).split())}") from None


def _check_record(d: dict, spec, where) -> None:
    """UsageError (one line naming the field) if run.json's top-level record differs from its spec."""
    differs = _record_difference(d, spec)
    if differs:
        raise click.UsageError(f"{where}: {differs}")


#: run.json's top-level copies of its study "spec" (handsim.study.runner writes both).
_RECORD_FIELDS = ("players", "deals", "seed", "rules")


def _record_difference(d: dict, spec) -> str:
    """How run.json's top-level record of its study (``players``, ``deals``, ``seed``, ``rules``)
    differs from its ``"spec"`` (what the study ran), in one line ("" if it does not).

    The top-level fields are a record, not settings: --resume and --from run the spec.  An edited
    record would be rewritten silently by a resume (and read as the study's by a person), so it is
    refused instead, naming the field, the value found and the spec's.  A field the file lacks (or
    a rule an older handsim did not record) is not compared."""
    from handsim.options import fmt_value

    want = {"players": spec.players, "deals": spec.deals, "seed": spec.seed,
            "rules": json.loads(json.dumps(spec.rules.to_dict()))}
    for key in _RECORD_FIELDS:
        if key not in d:
            continue
        found, rec = d[key], want[key]
        if key == "rules" and isinstance(found, dict):
            k = next((k for k in found if k in rec and found[k] != rec[k]), None)
            if k is None:
                continue
            return (f"its rule {k} is {fmt_value(found[k])} but its study \"spec\" (what the study ran) has "
                    f"{fmt_value(rec[k])}: the top-level fields are a record of the study, not its settings; "
                    f"put back {fmt_value(rec[k])}, or start a new study with the rule you want")
        if found != rec or type(found) is not type(rec):
            shown = json.dumps(found, ensure_ascii=False)
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            return (f"its \"{key}\" is {shown} but its study \"spec\" (what the study ran) has {rec}: the "
                    f"top-level fields are a record of the study, not its settings; put back {rec}, or start "
                    f"a new study with the {key} you want")
    return ""


def _describe(spec, base: str, jobs: int, out: Path, default_study: bool = False) -> str:
    """The start line: what is simulated (configurations × line-ups × deals), the rules, players, seed, jobs and
    folder; ``default_study``: no rule or policy option was given, and the line says it is the default study."""
    from handsim.options import fmt_value

    ncfg = len(spec.configs())
    nl = len(spec.lineups)
    matches = getattr(spec, "matches", False)
    per_item = spec.game.rounds_per_item(spec)  # None: matches of varying length (elimination)
    total = spec.deals * ncfg * nl * (per_item or 1)
    unit = (f"matches of {spec.rules.rounds} rounds" if per_item else "elimination matches") if matches \
        else spec.game.item + "s"
    total_unit = f"{spec.game.unit}s" if per_item else "matches"
    if spec.vary:
        varying = " × ".join(f"{k} {'/'.join(fmt_value(v) for v in vals)}" for k, vals in spec.vary)
        cfg = f"{ncfg} configurations ({varying})"
    else:
        cfg = "1 configuration"
    lineups = " | ".join(short_lineup([s.label for s in lu]) for lu in spec.lineups)
    what = ("the default study (no rule or policy option given; 'handsim simulate --help' shows how to choose "
            "others): " if default_study else "")
    return (f"Simulating {what}{cfg} × {nl} line-up{'s' if nl != 1 else ''} ({lineups}) × {spec.deals:,} {unit} "
            f"= {total:,} {total_unit}; rules {rules_note(spec.rules, base)}; "
            f"{spec.players} players, seed {spec.seed}, "
            f"{jobs} job{'s' if jobs != 1 else ''} -> {out}")


def _trace_deals(seed: int, deals: int, n: int) -> list[int]:
    import numpy as np

    rng = np.random.default_rng(seed)
    return sorted(int(x) for x in rng.choice(deals, n, replace=False))


def _write_traces(spec, out: Path, n: int) -> tuple[Path, int]:
    """``n`` sampled deals per configuration × line-up, as JSON lines in ``out/traces.jsonl``."""
    from handsim._io import atomic_write

    deals = _trace_deals(spec.seed, spec.deals, n)
    lines = []
    for rules in spec.configs():
        for lineup in spec.lineups:
            for d in deals:
                lines.append(dump_json(spec.game.trace_deal(rules, list(lineup), d, spec.seed, spec.players)))
    path = out / "traces.jsonl"
    atomic_write(path, ("\n".join(lines) + "\n").encode("utf-8"))
    return path, len(lines)


SIMULATE_HELP = """Run a study: every combination of the varying rule options × every line-up, on the same deals.

Without any rule or policy option it runs the default study: classic rules, opening_threshold
51/71/91 × joker_penalty 15/30, line-ups "card-reader at every seat" and
"hold-hand,card-reader,...", 20000 deals.  Otherwise what is not given defaults to: preset
classic, nothing varying, card-reader (the card-counting player, the default for studies) at
every seat.  An option both set and varied (--set jokers=4 --vary jokers=2,4), or set to another
value than --rounds / --standings say, is refused.  Results go to --out (default: a new folder results/study-YYYYmmdd-HHMMSS):

\b
    summary.csv      per configuration × line-up × policy × seat: mean score with 95% CI,
                     P(out), P(Hand), P(unopened), round length, the spread of a round's
                     score (score_p10/p50/p90, share_over_100); match studies: win rates
    summary.parquet  the same table as Parquet
    paired.csv       configurations that differ in one option, compared on the same deals
    versus.csv       the policies within a mixed line-up, compared deal by deal
    lineups.csv      line-ups that differ in one position, compared on the same deals
    totals.csv       match studies: quantiles of the final match totals
    team_margin.csv  2 v 2 match studies: team A's final total minus team B's, per match (mean with
                     95% CI, shares of matches below / at / above 0, quantiles)
    report.md        the written report, with its figures (*.png)
    report.html      the same report as one self-contained page (figures embedded)
    run.json         the rules, the study, versions, the command, rounds per second
    checkpoint.npz   the exact accumulators (--resume continues from it, 'handsim report' redraws)
    traces.jsonl     with --trace: sampled deals as move logs (check them with 'handsim check')
    per_deal/        with --per-deal: every deal's rows (Parquet; with the line-up position, and in
                     match studies the match, the round and, on its last round, the result)

\b
Examples:
    $ handsim simulate
    $ handsim simulate --threshold 51 --threshold 71 --policy greedy --policy hold-hand:bail_turn=8 --deals 50000
    $ handsim simulate --preset qahwa --vary max_reshuffles=1,3 --lineup hold-hand,greedy,greedy,greedy --out q1
    $ handsim simulate --resume q1
    $ handsim simulate --preset russian --players 3 --policy greedy --policy patient:hold_max=2 --deals 50000

\b
The first run compiles the engine (1 to 2 minutes, announced on stderr).  Ctrl-C or 'kill PID'
stops a study within a chunk; every finished chunk is kept in checkpoint.npz and --resume DIR
continues.  A study started with '&' in a non-interactive shell ignores SIGINT (stop it with
'kill PID'); one killed outright (SIGKILL, a crash) keeps its last checkpoint (one every 10 s).
Exit codes: 0 done, 1 a user-written policy's illegal move (one line naming policy, deal, seat,
turn, move, rule and the show-deal command; the finished chunks kept), 2 bad input, 130
interrupted (Ctrl-C), 143 terminated (kill).
"""


@click.command(cls=Command, name="simulate", help=SIMULATE_HELP, short_help="Run a study of rules and policies.")
@rules_options
@click.option("--threshold", "thresholds", type=IntIn(), multiple=True, metavar="N",
              help="opening_threshold value to compare (repeatable).")
@click.option("--joker-penalty", "joker_penalties", type=IntIn(), multiple=True, metavar="N",
              help="joker_penalty value to compare (repeatable).")
@click.option("--vary", multiple=True, metavar="KEY=V1,V2,...",
              help="Any rule option and the values to compare, e.g. --vary discard_pickup=must_open,new_meld_only (repeatable).")
@click.option("--policy", "policies", multiple=True, metavar="POLICY",
              help="A line-up where every seat plays POLICY, e.g. hold-hand:bail_turn=8 (parameters: whole numbers in "
                   "plain digits with an optional sign, each parameter once) or @best.toml (a policy file of handsim "
                   "tune) (repeatable; see 'handsim policies').  [default: card-reader at every seat]")
@POLICY_FILE_OPTION
@click.option("--lineup", "lineups", multiple=True, metavar="P1,P2,...",
              help="A line-up seat by seat, e.g. hold-hand,greedy,greedy,greedy; items may be @FILE (repeatable).  "
                   "The positions rotate over the seats from deal to deal, so that no policy keeps the starter's "
                   "seat; results are per policy and per seat.")
@click.option("--players", type=GAME_PLAYERS_CHOICE, default="4",
              help="Players (seats): 2 to 5 single players, or 2v2 - partnership, four players, partners "
                   "opposite (line-up positions 1 & 3 against 2 & 4; the same as --set partnership=true).  "
                   "[default: the length of the first --lineup, else 4]")
@click.option("--deals", type=IntIn(1, MAX_DEALS, "1..10^12"), default=DEFAULT_DEALS, show_default=True,
              help="Deals per configuration and line-up (with --matches or --rounds: matches).")
@click.option("--seed", type=IntIn(0, 2**63 - 1, "0..2^63-1"), default=0, show_default=True, help="Seed of the deals.")
@click.option("--matches", is_flag=True,
              help="Play whole matches (RULES.md section 7): each of --deals is a match of 'rounds' rounds.")
@click.option("--rounds", type=IntIn(1), default=None, metavar="N",
              help="Play matches of N rounds (3, 5, 7 or 9 in the sources): the same as --matches --set rounds=N.")
@click.option("--standings", type=Words(STANDINGS), default=None,
              help="Match standings (RULES.md section 7): lowest_wins, or last_loses (3-4 single players: one winner, "
                   "one loser - a tie for last goes to fewer round wins -, the rest neutral).  Plays matches: the same "
                   "as --matches --set standings=...")
@click.option("--jobs", type=IntIn(1, 512, "1..512"), default=None, help="Worker processes.  [default: all cores; --resume: the number the study last ran with]")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the chunks on a dask.distributed cluster (e.g. tcp://scheduler-host:8786); every worker needs "
                   "handsim installed with its cluster extra (pip install -e \".[cluster]\" in a checkout).  The address "
                   "is checked before anything runs or any folder is made: a dask scheduler must answer there within "
                   "5 s (something else listening is refused), else one line, exit 2.  Results are the same as locally.")
@click.option("--chunk", type=IntIn(1, MAX_CHUNK, "1..10^6"), default=DEFAULT_CHUNK, show_default=True,
              help="Deals per work item (results do not depend on it; at most 10^6 work items per study).")
@click.option("--out", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Output folder (must be new or empty; held by this run while it writes - a lock on "
                   "DIR/.handsim.lock, dropped by the system however the run ends: a second run into it, or a "
                   "'handsim report' of it, is refused).  [default: results/study-YYYYmmdd-HHMMSS]")
@click.option("--force", is_flag=True, help=FORCE_HELP)
@click.option("--resume", type=click.Path(exists=True, file_okay=False), default=None, metavar="DIR",
              help="Continue an interrupted study in DIR (with its saved arguments).  run.json keeps the command that "
                   "started it and lists each resume under 'resumed' (the report names them); the speed printed "
                   "counts only this run's rounds; a hand-edited run.json is refused, naming the field.")
@click.option("--from", "from_run", type=click.Path(exists=True), default=None, metavar="RUN_JSON",
              help="Run again exactly the study described by a run.json (or a study folder).")
@click.option("--per-deal", is_flag=True,
              help="Also write every deal's rows (Parquet, OUT/per_deal/): one row per deal and seat - seat (relative "
                   "to the starter), position (in the line-up), policy, score and flags; match studies: one row per "
                   "regular round (deal = match x rounds + round, with match and round) and on each match's last "
                   "regular round its result (match_win, match_lose, total, tiebreaks, hand_decided; missing on the "
                   "other rounds); tie-break rounds are not written.")
@click.option("--trace", type=IntIn(0), default=0, metavar="N",
              help="Write N sampled deals per configuration × line-up to OUT/traces.jsonl (see 'handsim check'; "
                   "not with --matches).")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr.  [default: when stderr is a terminal]")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.pass_context
def simulate(ctx, preset, rules_file, settings, thresholds, joker_penalties, vary, policies, policy_files, lineups,
             players,
             deals, seed, matches, rounds, standings, jobs, scheduler, chunk, out, force, resume, from_run, per_deal, trace, progress,
             quiet):
    from handsim.study import claim_out, write_outputs
    from handsim.study.runner import run_study

    # ---- what to run
    base = preset_name(preset, rules_file)
    players, two_v_two = parse_players(players)
    if resume and from_run:
        raise click.UsageError("use either --resume or --from")
    if resume or from_run:
        clash = given(ctx, _SAVED_OPTIONS)
        if clash:
            opts = ", ".join(STUDY_FLAGS[n] for n in clash)
            which = "--resume" if resume else "--from"
            raise click.UsageError(f"{which} runs the saved study as it was: drop {opts}")
    if resume:
        if force:
            raise click.UsageError("--force and --resume exclude each other")
        if out is not None and Path(out).resolve() != Path(resume).resolve():
            raise click.UsageError("--resume DIR continues in DIR: drop --out")
        out = Path(resume)
        spec = _saved_spec(out)
        per_deal = per_deal or (out / "per_deal").is_dir()
        if ctx.get_parameter_source("trace") == click.core.ParameterSource.DEFAULT:
            from handsim.study import recorded_trace

            trace = recorded_trace(out)  # the traces the study was started with (written once it is finished)
    elif from_run:
        src = Path(from_run)
        if src.is_dir():
            src = src / "run.json"
            if not src.exists():
                raise click.UsageError(f"--from {from_run}: no run.json in that folder")
        saved = read_run_json(src)
        spec = _spec_from_run(saved, src)
        _check_record(saved, spec, src)
    else:
        from handsim.games import game_for_preset
        from handsim.study import make_spec

        game = game_for_preset(base)
        given_options = {
            "preset": preset, "rules_file": rules_file, "settings": settings, "thresholds": thresholds,
            "joker_penalties": joker_penalties, "vary": vary, "policies": policies, "policy_files": policy_files,
            "lineups": lineups, "players": players, "two_v_two": two_v_two, "deals": deals, "seed": seed,
            "chunk": chunk, "matches": matches, "rounds": rounds, "standings": standings}
        spec = make_spec(**game.study_from_options(ctx, given_options), unique_lineups=True)
        if not quiet:
            for note in game.study_notes(spec, given_options):
                click.echo(f"Note: {note}", err=True)

    if trace and getattr(spec, "matches", False):
        raise click.UsageError("--trace samples single deals: it does not work with --matches")
    if trace > spec.deals:
        raise click.BadParameter(f"{trace} is more than the {spec.deals} deals of the study", param_hint="'--trace'")
    if check_only(ctx):
        return spec

    if scheduler is not None:
        from handsim.study import check_scheduler

        check_scheduler(scheduler)  # before anything is created or compiled
    from handsim.study import check_policy_files

    engine = spec.engine()
    # said when numba compiles (the policy files' functions here, the engine in the study's warm-up,
    # which runs in a helper thread: Ctrl-C acts at once); once for both
    notice = engine_notice(engine, spec.game.engine_words(spec.matches)[0], ENGINE_COMPILE, quiet)
    with notice:
        check_policy_files(engine)  # policy files that do not compile: refused before --force deletes anything

    # ---- where (claimed for this process until the command ends)
    if out is None:
        out = default_out()
    out = ctx.with_resource(claim_out(out, resume=bool(resume), force=force))
    if resume and jobs is None:  # the worker processes the study ran with, unless --jobs says otherwise
        from handsim.study import recorded_jobs

        jobs = recorded_jobs(out)
    n_jobs = jobs or os.cpu_count() or 1
    if progress is None:
        progress = (not quiet) and sys.stderr.isatty()
    if not quiet:
        fresh = not (resume or from_run)
        click.echo(_describe(spec, base if fresh else "classic", n_jobs, out,
                             default_study=fresh and not given(ctx, STUDY_OPTIONS)))

    # ---- run
    from handsim.errors import PolicyMoveError

    try:
        with sigterm_stops():
            with notice:
                result = run_study(spec, jobs=n_jobs, out=out, progress=progress, per_deal=per_deal,
                                   resume=bool(resume), scheduler=scheduler, command=command_line(ctx),
                                   keep={"trace": trace} if trace else None)
            with report_progress(progress):  # where the progress bar was shown
                write_outputs(result, out, command=command_line(ctx))
            traces = None
            if trace:
                from handsim.study.executors import interruptible

                with engine_notice(engine, "the deal tracer for --trace", quiet=quiet):
                    traces = interruptible(_write_traces, spec, out, trace)  # (compiles the tracer: Ctrl-C acts at once)
            if not quiet:
                _print_results(result, spec, out, traces, n_jobs)
    except KeyboardInterrupt as e:
        ctx.exit(_interrupted(e, out, trace))
    except PolicyMoveError as e:
        from handsim.study import CHECKPOINT

        from handsim.policies._text import add_context

        kept = f"; the finished work is kept in {out} ('handsim report {out}' reports it)" \
            if (Path(out) / CHECKPOINT).exists() else ""
        raise PolicyMoveError(add_context(str(e), kept)) from None


def _interrupted(e: KeyboardInterrupt, out: Path, trace: int = 0) -> int:
    """Say what an interruption left in ``out`` (``trace``: the deals --trace asked for, written
    after the study); the exit code (130 SIGINT, 143 SIGTERM)."""
    import shlex

    from handsim.study import CHECKPOINT

    what = "Terminated" if isinstance(e, Terminated) else "Interrupted"
    if getattr(e, "note", None):  # worker processes stopped: which policy did not return
        click.echo(f"\n{what}: {e.note}.", err=True)
    if (out / "run.json").exists():
        missing = trace and not (out / "traces.jsonl").exists()
        traces = (f"; its traces (--trace {trace}) were not written: 'handsim simulate --resume "
                  f"{shlex.quote(str(out))}' writes them") if missing else ""
        click.echo(f"\n{what} after the study was finished: its results are in {out}{traces}.", err=True)
    elif (out / CHECKPOINT).exists():
        click.echo(f"\n{what}: partial results are checkpointed in {out}; "
                   f"'handsim simulate --resume {shlex.quote(str(out))}' continues"
                   f"{f' (and writes the --trace {trace} deals)' if trace else ''}.", err=True)
    else:
        click.echo(f"\n{what} before any work was finished: nothing to resume in {out}.", err=True)
    return 143 if isinstance(e, Terminated) else 130


#: Most lines of the report's *In brief* printed in the terminal before the table.
BRIEF_LINES = 5


def in_brief(report_md: Path, most: int = BRIEF_LINES) -> list[str]:
    """The first ``most`` findings of a report's *In brief* section as plain lines (markdown marks
    dropped), and its closing note when there is one; [] when the report has no such section."""
    import re

    try:
        text = report_md.read_text(encoding="utf-8")
    except OSError:
        return []
    body = re.search(r"^## In brief\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    if body is None:
        return []
    items, note = [], None
    for line in body.group(1).splitlines():
        if line.startswith("- "):
            items.append(line[2:])
        elif line.startswith("> ") and note is None:
            note = line[2:].split(". ")[0].rstrip(".") + "."
    plain = [re.sub(r"[`*]", "", x) for x in items[:most]]
    if len(items) > most:
        plain.append(f"... and {len(items) - most} more in the report")
    return plain + ([re.sub(r"[`*]", "", note)] if note and plain else [])


def _print_results(result, spec, out: Path, traces, n_jobs: int) -> None:
    brief = in_brief(Path(out) / "report.md")
    if brief:  # the answer first, in the report's words
        click.echo("In brief:")
        for line in brief:
            click.echo(f"  {line}")
        click.echo("")
    click.echo(spec.game.summary_text(result, spec))
    files = [f for f in ("report.md", "report.html", "summary.csv", "summary.parquet", "seats.csv", "paired.csv",
                         "versus.csv", "lineups.csv", "game_length.csv", "totals.csv", "team_margin.csv",
                         "elimination_policies.csv", "elimination_seats.csv", "elimination_length.csv", "run.json")
             if (Path(out) / f).exists()]
    if (Path(out) / "report.html").exists():
        click.echo(f"Report: {out}/report.html")
    click.echo(f"Results: {out}/ ({', '.join(files)})")
    if traces:
        click.echo(f"Traces: {traces[0]} ({traces[1]} deals; check them with 'handsim check {traces[0]}')")
    click.echo(f"Speed: {speed_text(result, spec.game.unit + 's')}, {n_jobs} job{'s' if n_jobs != 1 else ''}")


REPORT_HELP = """Rebuild the report (report.md with its figures, a self-contained report.html), the tables
and the figures of a study, tournament or tuning folder from its checkpoints.

Works on a finished study and on an interrupted one (the report then covers the deals finished
so far), on a tournament folder (handsim tournament; also an interrupted one) and on a finished
tuning run (handsim tune; read from the checkpoints of its stages, nothing is played again).
Refused, with one line: an unfinished tuning run (naming the stage, with 'handsim tune --resume
DIR'), a stage folder (DIR/stages/search: report the tuning run), a run.json and a checkpoint of
different studies (naming the field that differs), a folder another handsim process is writing.
On a terminal, a report that takes more than 3 s says on stderr how it comes along.

\b
Examples:
    $ handsim simulate --policy greedy --deals 2000 --out s1 && handsim report s1
    $ handsim report s1 --format html --open
    $ handsim tournament --policy greedy --policy random --deals 500 --out t1 && handsim report t1
"""


@click.command(cls=Command, name="report", help=REPORT_HELP,
               short_help="Rebuild the report of a study, tournament or tuning run.")
@click.argument("folder", type=click.Path(exists=True, file_okay=False), metavar="DIR")
@click.option("--format", "fmt", type=click.Choice(["md", "html", "both"]), default="both", show_default=True,
              help="md: report.md and its PNG figures; html: report.html alone (figures embedded); both.")
@click.option("--open", "open_", is_flag=True,
              help="Then open report.html in the web browser (Python's webbrowser: $BROWSER, else the system's "
                   "default); where there is none, say where the file is.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def report(folder, fmt, open_, quiet):
    if open_ and fmt == "md":
        raise click.UsageError("--open opens report.html, which --format md does not write: use --format html or both")
    _report(folder, fmt, quiet)
    if open_:
        open_report(Path(folder) / "report.html")


def open_report(page: Path) -> bool:
    """Open ``page`` (a report.html) in a web browser, if this machine has one Python's
    :mod:`webbrowser` can start; else say on stderr where the file is.  Whether one opened it."""
    import webbrowser

    page = page.resolve()
    try:
        opened = webbrowser.get().open(page.as_uri())
    except webbrowser.Error:  # no browser registered here (a server, a container, no $BROWSER)
        opened = False
    if not opened:
        click.echo(f"No web browser to open it here: the report is {page}", err=True)
    return opened


def _report(folder, fmt, quiet):
    from handsim._io import FolderLock, refuse_if_in_use
    from handsim.study import CHECKPOINT, read_checkpoint, spec_difference

    out = Path(folder)
    refuse_if_in_use(out)  # a run still starting there has written nothing yet: the lock decides
    ck_path = out / CHECKPOINT
    formats = ("md", "html") if fmt == "both" else (fmt,)
    if (out / "run.json").is_file() and read_run_json(out / "run.json").get("kind") in ("tournament", "tune"):
        from .tournament import rebuild_report  # a tournament or tuning folder: its own report

        return rebuild_report(out, quiet, formats)
    if not ck_path.is_file():
        if out.resolve().name == "stages" and (out.resolve().parent / "run.json").is_file():
            raise click.UsageError(f"{folder} holds the stages of a tuning run: report the tuning run, "
                                   f"handsim report {out.resolve().parent}")
        # study folders one or two levels down (a tuning run's stages are not reports of their own)
        inside = []
        for pattern in (f"*/{CHECKPOINT}", f"*/*/{CHECKPOINT}"):
            inside = inside or sorted(str(p.parent) for p in out.glob(pattern) if "stages" not in p.parts[-3:-1])
        if inside:  # a folder of studies (results/russian holds one per player count)
            shown = ", ".join(inside[:4]) + (f" and {len(inside) - 4} more" if len(inside) > 4 else "")
            raise click.UsageError(f"{folder} is not a study folder but holds {len(inside)} of them: give one, "
                                   f"e.g. handsim report {inside[0]} ({shown})")
        raise click.UsageError(f"{folder} is not a study folder: no {CHECKPOINT} (written by handsim simulate)")
    tuning = out.resolve().parent.parent
    if out.resolve().parent.name == "stages" and (tuning / "run.json").is_file() \
            and read_run_json(tuning / "run.json").get("kind") == "tune":
        raise click.UsageError(f"{folder} is a stage of the tuning run in {tuning}: its report is the tuning run's, "
                               f"handsim report {tuning}")
    ck = read_checkpoint(ck_path, policies=False)  # a report redraws: the policy files are not needed
    run_json = out / "run.json"
    if run_json.exists():
        saved = read_run_json(run_json)
        differs = spec_difference(_spec_from_run(saved, run_json, policies=False), ck.spec)
        if differs:
            raise click.UsageError(f"{run_json} and {ck_path} belong to different studies ({differs}): a report "
                                   "would state one study's settings over the other's tables; restore the matching "
                                   "file or run the study again")
        info = _report_info(saved, ck.spec)  # the settings from the spec: an edited record is not shown
        for line in _from_checkpoint(info, saved, ck, run_json):  # and what the run did from the checkpoint
            click.echo(f"Warning: {line}", err=True)
    else:
        from handsim.study import chunk_ranges

        info = _report_info({}, ck.spec)
        # no run.json: the run stopped before writing its outputs - after its last chunk, or before
        if len(ck.done) < len(chunk_ranges(ck.spec)):
            info["title"] = ck.spec.game.partial_title(ck.spec) + " (interrupted: partial results)"
    with FolderLock(out).acquire("handsim report"), report_progress(not quiet and stderr_is_terminal()):
        ck.accumulator.write_report(out, info, formats=formats)
    if not quiet:
        paths = ", ".join(str(out / f"report.{f}") for f in formats)
        click.echo(f"Report: {paths}" + (f" ({ck.rounds:,} {ck.spec.game.unit}s)" if ck.rounds else ""))


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (where ``handsim report`` shows how a slow report comes along)."""
    return sys.stderr.isatty()


#: run.json fields a report shows, and the JSON types they must have to be shown.
_INFO_TYPES = {"seconds": (int, float), "rounds_per_s": (int, float), "rounds_played": int, "command": str,
               "version": str, "title": str, "preset": str, "python": str, "numba": str, "machine": str,
               "jobs": int}


#: run.json fields the study writes (handsim.study.runner, handsim.study.api, the run history):
#: any other is left out of a report, with a warning naming it.
_RUN_FIELDS = frozenset(_INFO_TYPES) | {"spec", "players", "deals", "seed", "rules", "policies", "resumed", "trace",
                                        "game", "games_played", "games_per_s"}


def _from_checkpoint(info: dict, saved: dict, ck, where) -> list[str]:
    """Put into ``info`` what the checkpoint records of the run (the source of truth: rounds played,
    seconds of simulation and their speed, and its run history: ``command``, ``jobs``,
    ``resumed``, ``trace``) and the built-in policies' descriptions (the registry's), and leave
    out run.json fields a study does not write.

    Returns
    -------
    list of str
        One warning line per run.json field that disagrees with the checkpoint, naming the field
        and both values ("run.json says rounds_played 41, the checkpoint 40: the report uses the
        checkpoint"), one per built-in policy described otherwise, and one naming the fields left out (an invisible character in a name named).
    """
    seconds = round(ck.seconds, 3)
    history = ck.history if isinstance(ck.history, dict) else {}
    truth = {"rounds_played": ck.rounds, "seconds": seconds}
    # the speed over the whole study (every invocation), as the study wrote it (to 0.1 round/s)
    truth["rounds_per_s"] = round(ck.rounds / ck.seconds, 1) if ck.seconds > 0 and ck.rounds else None
    truth.update(history)
    info.update(truth)
    info.update(ck.spec.game.run_info(info))  # (a game whose deal is not a round: the figures in its unit)
    warnings = record_warnings(saved, {k: info[k] for k in set(truth) | {"games_played", "games_per_s"} if k in info},
                               where)
    # a built-in policy's description is the registry's (the policies of a policy file, not loaded
    # for a report, keep run.json's)
    described = dict(info["policies"]) if isinstance(info.get("policies"), dict) else {}
    for label, text in ck.spec.game.policy_descriptions(ck.spec).items():
        if label in described and described[label] != text:
            warnings.append(f"{where} says policy {label} is {shown_value(described[label])}, the built-in policy of that "
                            f"name is {shown_value(text)}: the report uses the built-in policy's description")
        described[label] = text
    if described:
        info["policies"] = described
    warnings += unknown_fields(saved, info, _RUN_FIELDS, where, "a study")
    return warnings


def _report_info(saved: dict, spec) -> dict:
    """What a report states about its study: the study's settings from the (checked) spec, and
    from run.json only the fields of the right type (a hand-edited or damaged field is left out,
    never shown as another study's)."""
    info = {}
    for k, v in saved.items():
        want = _INFO_TYPES.get(k)
        if want is None and k != "policies":
            info[k] = v
        elif k == "policies":
            if isinstance(v, dict) and all(isinstance(x, str) for x in [*v, *v.values()]):
                info[k] = v
        elif isinstance(v, want) and not isinstance(v, bool) and (not isinstance(v, float) or v == v and abs(v) < 1e300):
            info[k] = v
    j = spec.to_json()
    info.update(spec=j, players=j["players"], deals=j["deals"], seed=j["seed"], rules=j["rules"])
    return info
