"""``handsim batch FILE.toml``: the studies, tournaments and tuning runs of a study file, run as
one experiment (handsim.study.batch reads the file; the option values are checked here by the
commands' own click converters and spec builders, never by a second parser)."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from ._common import Command, IntIn, one_line, user_error_types

#: Options of the commands that the batch decides (per run, not per part).
_BATCH_OWNED = {"out": "the part's folder is OUT/NAME (or its 'out' key)", "resume": "handsim batch --resume",
                "from_run": "give the options themselves", "force": "parts go to new or empty folders",
                "scheduler": "handsim batch --scheduler", "progress": "handsim batch --progress",
                "quiet": "handsim batch --quiet", "help": "not an option of a run"}


def _commands() -> dict:
    from .simulate import simulate
    from .tournament import tournament, tune

    return {"simulate": simulate, "tournament": tournament, "tune": tune}


def option_keys(cmd: click.Command) -> dict[str, click.Parameter]:
    """The keys a part of this command may have: each parameter's name and each of its long
    flags (``joker_penalty`` and ``joker_penalties`` for ``--joker-penalty``), ``-`` as ``_``."""
    keys: dict[str, click.Parameter] = {}
    for p in cmd.params:
        if p.name in _BATCH_OWNED:
            continue
        keys[p.name] = p
        for opt in getattr(p, "opts", ()):
            if opt.startswith("--"):
                keys[opt[2:].replace("-", "_")] = p
    return keys


def _key_name(p: click.Parameter) -> str:
    """The key a study file writes for a parameter: its first long flag (``joker_penalty``), or an
    argument's name (tune's ``policy``)."""
    flag = next((o for o in getattr(p, "opts", ()) if o.startswith("--")), None)
    return flag[2:].replace("-", "_") if flag and not isinstance(p, click.Argument) else p.name


def _text(value, key: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise ValueError(f"{type(value).__name__} is not an option value (give a string, a number or true/false)")


def _item(value, key: str) -> str:
    """One value of an option: a list is joined with ',' (a line-up, --against), a table is
    ``k=v`` (one pair)."""
    if isinstance(value, list):
        return ",".join(_text(v, key) for v in value)
    return _text(value, key)


def _argv_of(p: click.Parameter, key: str, value) -> list[str]:
    """The command-line words of one key's value."""
    flag = next((o for o in getattr(p, "opts", ()) if o.startswith("--")), None)
    if isinstance(p, click.Argument):
        return [_item(value, key)]
    if getattr(p, "is_flag", False):
        if not isinstance(value, bool):
            raise ValueError("is a flag: give true or false")
        return [flag] if value else []
    if isinstance(value, dict):  # {opening_rule = ["fixed", "ascending"]} -> opening_rule=fixed,ascending
        items = [f"{k}={_item(v, key)}" for k, v in value.items()]
    elif p.multiple:
        items = [_item(v, key) for v in (value if isinstance(value, list) else [value])]
    else:
        items = [_item(value, key)]
    if len(items) > 1 and not p.multiple:
        raise ValueError("takes one value, not several")
    return [w for it in items for w in (flag, it)]


def part_argv(part, cmd: click.Command, where) -> list[str]:
    """A part's options as the words of its command line (without --out and the batch's flags).

    Raises
    ------
    handsim.study.batch.BatchError
        An unknown key (naming the command's keys), a key the batch decides, or a value of the
        wrong shape.
    """
    from handsim.study.batch import BatchError

    keys = option_keys(cmd)
    argv: list[str] = []
    args: list[str] = []
    for key, value in part.options.items():
        entry = "[defaults]" if key in part.from_defaults else part.entry
        norm = key.replace("-", "_")
        if norm in _BATCH_OWNED:
            raise BatchError(f"{where}: {entry} {key}: not a key of a study file ({_BATCH_OWNED[norm]})")
        p = keys.get(norm)
        if p is None:
            if key in part.from_defaults:
                continue  # a shared default another kind of part takes
            allowed = ", ".join(sorted({_key_name(q) for q in keys.values()}))
            raise BatchError(f"{where}: {entry} {key}: unknown key for handsim {part.kind} (keys: {allowed})")
        try:
            words = _argv_of(p, key, value)
        except ValueError as e:
            raise BatchError(f"{where}: {entry} {key}: {e}") from None
        (args if isinstance(p, click.Argument) else argv).extend(words)
    return [*args, *argv]


def check_defaults(plan, where) -> None:
    """A key of [defaults] that no part's command takes is refused (a misspelt shared key)."""
    from handsim.study.batch import BatchError

    commands = _commands()
    kinds = {p.kind for p in plan.parts}
    for key in plan.defaults:
        norm = key.replace("-", "_")
        if norm in _BATCH_OWNED:
            raise BatchError(f"{where}: [defaults] {key}: not a key of a study file ({_BATCH_OWNED[norm]})")
        if not any(norm in option_keys(commands[k]) for k in kinds):
            raise BatchError(f"{where}: [defaults] {key}: unknown key: no part's command "
                             f"({', '.join(sorted(kinds))}) has that option")


def _parse(cmd, kind: str, argv: list[str], part, where, check: bool) -> click.Context:
    """The command's own context for ``argv``: click converts and checks every value (the part's
    entry and key named in a failure)."""
    from handsim.study.batch import BatchError

    try:
        return cmd.make_context(f"handsim {kind}", list(argv), obj={"argv": [kind, *argv], "batch_check": check})
    except click.BadParameter as e:
        key = _key_of(e.param, part, cmd) if e.param is not None else None
        entry = "[defaults]" if key in part.from_defaults else part.entry
        raise BatchError(f"{where}: {entry}" + (f" {key}" if key else "") + f": {one_line(e.message)}") from None
    except click.UsageError as e:
        raise BatchError(f"{where}: {part.entry}: {one_line(e.message)}") from None


def _key_of(param, part, cmd) -> str | None:
    keys = option_keys(cmd)
    return next((k for k in part.options if keys.get(k.replace("-", "_")) is param), None)


def part_spec(part, where):
    """The study, tournament or tuning run a part would run (its StudySpec, TournamentSpec or
    TuneSpec), built by its command from the part's options without running anything.

    Raises
    ------
    handsim.study.batch.BatchError
        What the command refuses, in one line naming the file, the entry and (where the message
        shows which) the key.
    """
    cmd = _commands()[part.kind]
    return _check_deeply(cmd, _parse(cmd, part.kind, [*part_argv(part, cmd, where), "-q"], part, where, check=True),
                         part, where)


def _check_deeply(cmd, ctx, part, where):
    """Build the part's study (tournament, tuning run) as the command would, without running it:
    unknown policies, rule options and values are refused before anything runs."""
    from handsim.study.batch import BatchError

    try:
        with ctx:
            return cmd.invoke(ctx)
    except (click.UsageError, ValueError) as e:
        if isinstance(e, ValueError) and not isinstance(e, user_error_types()):
            raise
        text = one_line(e.message if isinstance(e, click.UsageError) else str(e))
        key = _key_named_by(text, part)
        entry = "[defaults]" if key in part.from_defaults else part.entry
        raise BatchError(f"{where}: {entry}" + (f" {key}" if key else "") + f": {text}") from None


def _words_of(value) -> list[str]:
    """The texts in a key's value (a table's keys too, and both sides of ``k=v``)."""
    if isinstance(value, dict):
        return [w for k, v in value.items() for w in (str(k), *_words_of(v))]
    if isinstance(value, list):
        return [w for v in value for w in _words_of(v)]
    text = str(value)
    return [text, *text.replace("=", ",").replace(":", ",").split(",")]


def _key_named_by(message: str, part) -> str | None:
    """The key whose value a library message quotes (``unknown policy 'nosuch'``), if one does."""
    import re

    for key, value in part.options.items():
        for w in _words_of(value):
            if w and (f"'{w}'" in message or f'"{w}"' in message):
                return key
    for key in part.options:  # else the key whose name the message says (5 players: ...)
        name = key.replace("_", "[-_ ]").replace("-", "[-_ ]")
        if re.search(rf"(?<![\w-]){name}(?![\w-])", message):
            return key
    return None


def _state(part) -> str:
    """``done``, ``started`` (something to resume) or ``new``."""
    from handsim._io import read_json
    from handsim.study import CHECKPOINT

    run_json = part.out / "run.json"
    if run_json.is_file():
        if part.kind == "simulate":
            return "done"
        saved = read_json(run_json, "run.json")
        return "started" if isinstance(saved, dict) and saved.get("status") == "running" else "done"
    return "started" if (part.out / CHECKPOINT).is_file() else "new"


BATCH_HELP = """Run a study file: the studies, tournaments and tuning runs it lists, as one experiment.

FILE is TOML.  Each part is a table [run.NAME] whose keys are the options of its command
(kind = "simulate", the default, "tournament" or "tune"; --joker-penalty is joker_penalty, a
repeatable option takes a list, --vary / --set / --param a table); [defaults] holds keys shared
by every part whose command has them; {NAME} in a value is the folder of an earlier part (e.g.
"@{tune-51}/best.toml").  Parts run in the file's order, each in OUT/NAME (OUT: --out, else the
folder of FILE), and every part is checked before the first runs: a malformed file is one line
naming the entry and the key, exit 2.  At the end OUT/index.md and OUT/index.html link each
part's report.

\b
    [defaults]
    policy = "greedy"
    deals = 20000
    seed = 7
    [run.jokers]
    vary = {jokers = [2, 4]}
    [run.ladder]
    kind = "tournament"
    policy = ["greedy", "hold-hand", "random"]

\b
Examples:
    $ handsim batch examples/study.toml --out exp1
    $ handsim batch examples/study.toml --out exp1 --resume
    $ handsim batch examples/study.toml --out exp2 --scheduler tcp://scheduler-host:8786
    $ handsim batch results/house-rules/study.toml --out hr --jobs 2   # a committed study, again

\b
Ctrl-C stops the part that runs (its finished chunks are kept); --resume then finishes what is
left, with the same results as an uninterrupted run (the file must not change in between: its
SHA-256 is kept in OUT/batch.json).  Exit codes: 0 done, 2 bad input, 130 interrupted (Ctrl-C),
143 terminated (kill).
"""


@click.command(cls=Command, name="batch", help=BATCH_HELP, short_help="Run a study file (several runs, one experiment).")
@click.argument("file", type=click.Path(exists=True, dir_okay=False), metavar="FILE")
@click.option("--out", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="The batch's folder: each part goes to DIR/NAME.  [default: the folder of FILE]")
@click.option("--resume", is_flag=True, help="Finish an interrupted batch: finished parts are kept, an "
                                              "interrupted one continues (its own --resume), the rest run.")
@click.option("--jobs", type=IntIn(1, 512, "1..512"), default=None,
              help="Worker processes of every part (over the file's jobs).  [default: the file's, else all cores]")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run every part's chunks on a dask.distributed cluster (e.g. tcp://scheduler-host:8786; see "
                   "docs/cluster.md); the same results as locally.")
@click.option("--progress/--no-progress", default=None,
              help="Show each part's progress bar on stderr.  [default: when stderr is a terminal]")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.pass_context
def batch(ctx, file, out, resume, jobs, scheduler, progress, quiet):
    from handsim.study import study_files

    from ._study_options import Terminated, sigterm_stops
    from handsim.study.batch import BatchError, check_record, load_plan, write_index, write_record

    where = Path(file)
    plan = load_plan(where, out)
    commands = _commands()
    check_defaults(plan, where)
    if scheduler is not None:
        from handsim.study import check_scheduler

        check_scheduler(scheduler)
    if resume:
        check_record(plan)
    elif (plan.out / "batch.json").exists():
        raise BatchError(f"{plan.out} holds a batch already: --resume finishes it, or choose another --out")

    # ---- every part checked before the first one runs
    flags = (["--jobs", str(jobs)] if jobs else []) + (["--scheduler", scheduler] if scheduler else []) \
        + (["--progress"] if progress else ["--no-progress"] if progress is not None else []) + (["-q"] if quiet else [])
    runs = []
    by_name = {p.name: p for p in plan.parts}
    for part in plan.parts:
        cmd = commands[part.kind]
        argv = part_argv(part, cmd, where)
        if jobs:  # --jobs of the batch wins over the file's
            argv = _without(argv, "--jobs")
        state = _state(part) if resume else "new"
        if state == "new":
            own, other = study_files(part.out) if part.out.is_dir() else ([], [])
            if own or other:
                raise BatchError(f"{where}: {part.entry}: its folder {part.out} already exists and is not empty: "
                                 f"choose another --out{'' if resume else ', or --resume the batch'}")
            ctx_check = _parse(cmd, part.kind, [*argv, "-q"], part, where, check=True)
            if all(_state(by_name[r]) == "done" for r in part.refs):  # else it reads what is not written yet:
                _check_deeply(cmd, ctx_check, part, where)              # built when it runs
            run_argv = [*argv, "--out", str(part.out), *flags]
        else:
            run_argv = ["--resume", str(part.out), *_only(argv, "--jobs"), *flags]
        runs.append((part, cmd, state, run_argv, shlex.join(["handsim", part.kind, *argv, "--out", str(part.out)])))

    # ---- run
    write_record(plan)
    status = {p.name: "done" for p, _, s, _, _ in runs if s == "done"}
    alone = {p.name: c for p, _, _, _, c in runs}
    n = len(runs)
    try:
        with sigterm_stops():  # kill PID: the part that runs stops like Ctrl-C, exit 143
            code = _run_all(runs, status, quiet, where)
    except KeyboardInterrupt as e:
        code = 143 if isinstance(e, Terminated) else 130
    written = write_index(plan, status, alone)
    if code:
        what = "Terminated" if code == 143 else "Interrupted"
        left = sum(status.get(p.name) != "done" for p in plan.parts)
        click.echo(f"{what}: {n - left} of {n} parts done; 'handsim batch {shlex.quote(str(where))}"
                   f"{' --out ' + shlex.quote(str(plan.out)) if out is not None else ''} --resume' finishes "
                   "the rest.", err=True)
        ctx.exit(code)
    if not quiet:
        click.echo(f"Batch done: {n} parts; index: {', '.join(str(w) for w in written)}")


def _run_all(runs, status: dict, quiet: bool, where) -> int:
    """Run the parts not done yet, in order; 0, or the exit code of the part that stopped."""
    n = len(runs)
    for i, (part, cmd, state, run_argv, _) in enumerate(runs, 1):
        if state == "done":
            if not quiet:
                click.echo(f"Part {i} of {n}, {part.name}: done already ({part.out})")
            continue
        if not quiet:
            verb = "continuing" if state == "started" else "running"
            click.echo(f"Part {i} of {n}, {part.name}: {verb} handsim {part.kind} -> {part.out}")
        code = _run_part(cmd, part, run_argv, where)
        if code:
            return code
        status[part.name] = "done"
    return 0


def _run_part(cmd, part, argv, where) -> int:
    """Run one part's command in this process; its exit code (130 / 143 when interrupted)."""
    from handsim.study.batch import BatchError

    try:
        sub = cmd.make_context(f"handsim {part.kind}", list(argv), obj={"argv": [part.kind, *argv]})
        with sub:
            cmd.invoke(sub)
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.UsageError as e:
        raise BatchError(f"{where}: {part.entry}: {one_line(e.message)}") from None
    return 0


def _without(argv: list[str], flag: str) -> list[str]:
    out, skip = [], False
    for w in argv:
        if skip:
            skip = False
        elif w == flag:
            skip = True
        else:
            out.append(w)
    return out


def _only(argv: list[str], flag: str) -> list[str]:
    return [w for i, w in enumerate(argv) if w == flag or (i and argv[i - 1] == flag)]
