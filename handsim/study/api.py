"""What a Python user calls: :func:`simulate` (a study from a preset and a few arguments, its
summary table) and :func:`write_outputs` (a finished study's tables, figures, report - its game
writes them - and run.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

from .._io import atomic_write
from ..options import RulesBase
from .outdir import claim_out
from .runner import StudyResult, run_study
from .spec import DEFAULT_CHUNK, DEFAULT_DEALS, make_spec


def write_outputs(result: StudyResult, out, command: str | None = None, title: str | None = None) -> Path:
    """Write ``summary.csv``, ``summary.parquet``, ``paired.csv``, ``versus.csv``, ``lineups.csv``
    (line-ups that differ in one position, compared on the same deals), ``totals.csv`` (quantiles
    of the final match totals, match studies), ``report.md`` with figures, the self-contained
    ``report.html`` and ``run.json`` into
    ``out`` (each file written atomically).

    Returns
    -------
    Path
        The report's path.
    """
    out = Path(out)
    info = dict(result.run_info)
    if command and "command" not in info:  # a resumed study keeps the command that started it
        info["command"] = command
    if title:
        info["title"] = title
    game = result.spec.game
    info["policies"] = game.policy_descriptions(result.spec)
    path = game.write_outputs(result, out, info)
    atomic_write(out / "run.json", (json.dumps(info, indent=2, sort_keys=True, default=str) + "\n").encode())
    return path


def simulate(
    preset: str = "classic",
    rules: RulesBase | None = None,
    vary: Mapping[str, Sequence] | None = None,
    lineups: Sequence | None = None,
    players: int = 4,
    deals: int = DEFAULT_DEALS,
    seed: int = 0,
    jobs: int | None = None,
    chunk: int = DEFAULT_CHUNK,
    out=None,
    progress: bool = False,
    force: bool = False,
    matches: bool = False,
    policy_files: Sequence = (),
):
    """Run a study from Python and return its summary table.

    Parameters
    ----------
    preset : str
        Base rules (``classic``, ``saudi``, ``qahwa``, ``partnership``; ``russian``: a study of
        Russian Hand, RULES.md §8) unless ``rules`` is given.
    rules : Rules, optional
    vary : dict, optional
        Rule option -> values to compare, e.g. ``{"opening_threshold": [51, 71, 91]}``.
    lineups : sequence, optional
        Policy names (every seat plays it) or line-up strings (``"hold-hand,greedy,greedy,greedy"``);
        default: the game's default policy at every seat (``card-reader``; Russian Hand ``greedy``).
    players : int
        Players (seats), 2 to 4 (Russian Hand: 2 to 5); the line-ups must have as many positions.
    deals : int
        Deals per configuration and line-up (with ``matches``: matches), 1 to 10^12.
    seed : int
        Seed of the deals, 0 to 2^63-1: the same seed deals the same cards to every
        configuration and line-up.
    jobs : int, optional
        Worker processes (default: all cores); the results do not depend on it.
    chunk : int
        Deals per work item, 1 to 10^6; the results do not depend on it.
    out : path, optional
        When given, write the full outputs there (see ``write_outputs``); a new or empty folder.
    progress : bool
        Show a progress bar on stderr.
    force : bool
        Replace ``out`` if it is a handsim output folder holding only handsim's files (as
        ``handsim simulate --force``).
    matches : bool
        Play ``deals`` whole matches of ``rules.rounds`` rounds instead of independent deals.
    policy_files : sequence of path
        Python files of user-written policies (``docs/policies.md``) whose policies the
        line-ups name, e.g. ``policy_files=["my_policies.py"], lineups=["mine:aggr=3,greedy,greedy,greedy"]``.

    Returns
    -------
    pandas.DataFrame
        One row per configuration x line-up x policy x seat: the columns of ``summary.csv``
        (docs/reading-a-report.md).

    Raises
    ------
    handsim.errors.InputError
        Bad input (rules, policies, a policy file, sizes): a one-line message.
    handsim.errors.PolicyMoveError
        A user-written policy made an illegal move (the message names it and the ``show-deal``
        command that replays it); the finished work stays in ``out``'s checkpoint.
    """
    from ..games import game_for_preset

    base = rules or game_for_preset(preset).preset(preset)
    spec = make_spec(base, vary, lineups, players, deals, seed, chunk, matches, policy_files=policy_files,
                     unique_lineups=True)
    if out is None:
        return run_study(spec, jobs=jobs, progress=progress).summary
    with claim_out(out, force=force) as folder:
        result = run_study(spec, jobs=jobs, out=folder, progress=progress)
        write_outputs(result, folder)
    return result.summary

