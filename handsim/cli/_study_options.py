"""What the commands that run studies share (``handsim simulate``, ``tournament``, ``tune``,
``report``): the size bounds and defaults, ``--policy-file`` and ``--force``, which options were
given, the default output folder, run.json read back, and SIGTERM stopping a run like Ctrl-C.

Nothing here imports the study driver: ``--help`` stays light.
"""

from __future__ import annotations

import contextlib
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
         "be named wherever a policy is written (repeatable).")

#: --force of simulate, tournament and tune (handsim.study.claim_out).
FORCE_HELP = ("Replace an existing --out folder if it is a handsim output folder (a readable run.json or "
              "checkpoint of a study, tournament or tuning run) holding only files handsim writes: those files "
              "are deleted, nothing else, and only after every check (policy files compiled, --scheduler answering); any "
              "other folder, the working folder and its parents are refused.")


def given(ctx: click.Context, names) -> list[str]:
    """Those of the parameters ``names`` that the command line (or the environment) set."""
    from click.core import ParameterSource

    out = []
    for n in names:
        src = ctx.get_parameter_source(n)
        if src is not None and src not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP):
            out.append(n)
    return out


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
