"""What the commands that run studies share (``handsim simulate``, ``tournament``, ``tune``,
``report``): the size bounds and defaults, ``--policy-file`` and ``--force``, which options were
given, the default output folder, run.json read back, SIGTERM stopping a run like Ctrl-C, and the
cells of the tables printed after a study (each game's ``summary_text``).

Nothing here imports the study driver: ``--help`` stays light.
"""

from __future__ import annotations

import contextlib
import json
import math
import signal
import threading
import time
from pathlib import Path

import click

#: handsim.study.DEFAULT_CHUNK, MAX_DEALS, MAX_CHUNK, DEFAULT_DEALS and DEFAULT_POLICY (kept here so that --help
#: imports nothing heavy; tests check them).
DEFAULT_CHUNK = 2000
MAX_DEALS = 10**12
MAX_CHUNK = 10**6
DEFAULT_DEALS = 20000
DEFAULT_POLICY = "card-reader"

#: --policy-file of simulate, tournament and tune.
POLICY_FILE_OPTION = click.option(
    "--policy-file", "policy_files", multiple=True, type=click.Path(dir_okay=True), metavar="FILE",
    help="A Python file of user-written policies (see docs/policies.md and examples/policies/); its policies can then "
         "be named wherever a policy is written (repeatable).  Recorded in run.json with its hash: --resume reloads "
         "it and refuses an edited file.")

#: --force of simulate, tournament and tune (handsim.study.claim_out).
FORCE_HELP = ("Replace an existing --out folder if it is a handsim output folder (a readable run.json or "
              "checkpoint of a study, tournament or tuning run) holding only files handsim writes: those files "
              "are deleted, nothing else (never the folder), and only after every check (policy files compiled, --scheduler answering); any "
              "other folder, the working folder and its parents are refused.")


#: Options of ``handsim simulate`` that define the rules or line-ups of a study (a game's default
#: study runs when none is given).
STUDY_OPTIONS = ("preset", "rules_file", "settings", "thresholds", "joker_penalties", "vary", "policies", "lineups",
                 "policy_files")
#: The command-line flag of each option of ``handsim simulate`` that a message may name.
STUDY_FLAGS = {
    "preset": "--preset", "rules_file": "--rules", "settings": "--set", "thresholds": "--threshold",
    "joker_penalties": "--joker-penalty", "vary": "--vary", "policies": "--policy", "lineups": "--lineup",
    "policy_files": "--policy-file",
    "players": "--players", "deals": "--deals", "seed": "--seed", "chunk": "--chunk", "matches": "--matches",
    "rounds": "--rounds", "standings": "--standings",
}


def given(ctx: click.Context, names) -> list[str]:
    """Those of the parameters ``names`` that the command line (or the environment) set."""
    from click.core import ParameterSource

    out = []
    for n in names:
        src = ctx.get_parameter_source(n)
        if src is not None and src not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP):
            out.append(n)
    return out


def check_only(ctx: click.Context) -> bool:
    """Whether ``handsim batch`` invoked the command only to build (and so check) its study, before
    anything runs: the command then returns right after building it."""
    return isinstance(ctx.obj, dict) and bool(ctx.obj.get("batch_check"))


def read_run_json(path: Path) -> dict:
    """A study's run.json as a dict (exit 2 with one line if unreadable or not an object)."""
    from handsim._io import read_json

    d = read_json(path, "run.json")
    if not isinstance(d, dict):
        raise click.UsageError(f"{path}: expected a JSON object (a study's run.json)")
    return d


def default_out(kind: str = "study") -> Path:
    """``results/<kind>-YYYYmmdd-HHMMSS`` (``-2``, ``-3`` ... if taken)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path("results") / f"{kind}-{stamp}"
    k = 2
    while out.exists():
        out = Path("results") / f"{kind}-{stamp}-{k}"
        k += 1
    return out


class Terminated(KeyboardInterrupt):
    """SIGTERM during ``handsim simulate``: stops the study like Ctrl-C (checkpoint, exit 143)."""


@contextlib.contextmanager
def sigterm_stops():
    """SIGTERM (``kill PID``) raises :class:`Terminated` while the study runs, unless SIGTERM is
    ignored or handled already."""
    installed = (threading.current_thread() is threading.main_thread()
                 and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)
    if installed:
        signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        if installed:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _raise_terminated(signum, frame):
    raise Terminated()


def short_lineup(labels: list[str]) -> str:
    """``greedy×4``, ``hold-hand,greedy×3``: runs of one policy shortened."""
    parts: list[list] = []
    for lab in labels:
        if parts and parts[-1][0] == lab:
            parts[-1][1] += 1
        else:
            parts.append([lab, 1])
    return ",".join(lab if n == 1 else f"{lab}×{n}" for lab, n in parts)


def number_text(x, digits: int) -> str:
    """``x`` with ``digits`` decimals, ``-`` for a missing or non-numeric value."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "-"
    if x != x:  # nan
        return "-"
    return f"{x:.{digits}f}"


def ci_cell(value, low, high, digits: int, unit: str = "game") -> str:
    """``[low, high]``, or ``fixed`` when the interval has no width because the design fixes the
    value (one policy at every seat wins 1/P of the games that have a winner)."""
    try:
        v, lo, hi = float(value), float(low), float(high)
    except (TypeError, ValueError):
        v = lo = hi = math.nan
    if math.isfinite(v) and v == lo == hi:
        return f"fixed (every {unit})"
    return f"[{number_text(low, digits)}, {number_text(high, digits)}]"


def parse_vary(items) -> dict[str, list[str]]:
    """``--vary KEY=V1,V2,...`` items -> option name -> its value texts (click.BadParameter if malformed)."""
    out: dict[str, list[str]] = {}
    for item in items:
        key, eq, values = item.partition("=")
        key = key.strip().replace("-", "_")
        vals = [v.strip() for v in values.split(",")]
        if not eq or not key or not all(vals):
            raise click.BadParameter(
                f"{item!r}: expected KEY=V1,V2,... such as opening_threshold=51,71,91", param_hint="'--vary'"
            )
        if key in out:
            raise click.BadParameter(f"{key} given twice", param_hint="'--vary'")
        out[key] = vals
    return out


def shown_value(v) -> str:
    """A run.json value in a warning: JSON, at most 80 characters."""
    text = json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def record_warnings(saved: dict, truth: dict, where, source: str = "the checkpoint") -> list[str]:
    """One warning per field of ``truth`` (what the checkpoint determines) that run.json's
    ``saved`` records otherwise: seconds to 0.0015, speeds to 0.051 (run.json's rounding), an
    object by its first key that differs ("run.json says rules.hand_score -90, the checkpoint
    -60: the report uses the checkpoint").  A field ``saved`` lacks is not compared."""
    warnings = []
    for k in sorted(truth):
        if k not in saved:
            continue  # not recorded
        got, want = saved[k], truth[k]
        if isinstance(got, dict) and isinstance(want, dict):
            key = next((x for x in sorted(set(got) | set(want)) if got.get(x, want) != want.get(x, got)), None)
            if key is not None:
                k, got, want = f"{k}.{key}", got.get(key, "(missing)"), want.get(key, "(missing)")
            same = key is None
        else:
            same = got == want and type(got) is type(want) or (
                isinstance(got, (int, float)) and not isinstance(got, bool) and isinstance(want, (int, float))
                and abs(got - want) <= (0.0015 if k == "seconds" else 0.051 if k.endswith("_per_s") else 0))
        if not same:
            warnings.append(f"{where} says {k} {shown_value(got)}, {source} {shown_value(want)}: the report uses {source}")
    return warnings


def unknown_fields(saved: dict, info: dict, known, where, writer: str) -> list[str]:
    """Leave out of ``info`` the fields of run.json's ``saved`` that ``writer`` (``"a study"``)
    does not write (``known``); one warning naming them (an invisible character in a name named),
    or none."""
    from handsim._io import hidden_char_note

    unknown = sorted(k for k in saved if k not in known)
    for k in unknown:
        info.pop(k, None)
    if not unknown:
        return []
    named = ", ".join(f"{k!r}{hidden_char_note(k, where=False)}" for k in unknown[:5])
    more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
    return [f"{where} holds field{'s' if len(unknown) > 1 else ''} {writer} does not write, left out of the report: "
            f"{named}{more}"]
